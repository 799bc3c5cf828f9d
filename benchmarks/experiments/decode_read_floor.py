# SPDX-License-Identifier: Apache-2.0
"""The decode op against a plain read of the same bytes (session 9, issue 14).

At one or two KV heads and batch 4-16 the op reads 8-270 MB per call and
reaches 46-88% of the read bandwidth measured on 4 GiB. This asks how much
of that any kernel could reach: for every point it also times torch.sum
over a buffer of exactly the bytes the op reads (one call per block table
of the op's graph, each on its own slice, L2 flushed before every replay:
the op's own method), and reports the op's time over that floor. Variants
of the op that split sequences more or less finely run alongside
(decode_short_context_variants.py's EDITS).

    python3 benchmarks/experiments/decode_read_floor.py --vllm-root BUNDLE --out-dir OUT

Writes OUT/decode_read_floor.json.
"""

from __future__ import annotations

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "kernels"))
import bench_decode_page_sweep as sweep  # noqa: E402
import common  # noqa: E402
import decode_short_context_variants as short  # noqa: E402


def read_floor_us(nbytes: int, calls: int, reps: int, flush) -> float:
    """Microseconds per call of a graph of `calls` sums, each over its own
    `nbytes` of bf16."""
    import torch

    n = nbytes // 2
    buf = torch.ones(calls * n, dtype=torch.bfloat16, device="cuda")
    acc = torch.empty(calls, dtype=torch.float32, device="cuda")
    fns = [
        (lambda i=i: torch.sum(buf[i * n : (i + 1) * n], 0, dtype=torch.float32, out=acc[i]))
        for i in range(calls)
    ]
    return sweep.time_calls(fns, reps, flush)


def main(argv=None):
    defaults = [
        "--groups", "rocm_nhd:24/4/256:832,rocm_nhd:16/2/256:832,rocm_nhd:32/8/128:832,"
        "rocm_nhd:8/1/128:832,triton:16/2/256:832,triton:8/1/128:832",
        "--batches", "1,4,16,64", "--seq-lens", "4096,16384,32768",
        "--max-tokens", str(1 << 21), "--variants", "base,splits2x,splits4x,splits_half",
    ]  # fmt: skip
    rc, result = short.run_with_ceilings(argv, defaults)
    import torch

    read_bw = result["ceilings"]["read_bandwidth_TBps"] * 1e12
    flush = sweep.l2_flush(torch.device("cuda"))
    floors: dict[tuple[int, int], float] = {}
    for row in result["points"]:
        nbytes = row["batch"] * row["seq_len"] * sweep.kv_bytes_per_token(row["heads"], "bfloat16")
        key = (nbytes, row["calls"])
        if key not in floors:
            floors[key] = read_floor_us(nbytes, row["calls"], 10, flush)
        row["bytes"] = nbytes
        row["read_floor_us"] = floors[key]
        row["read_floor_pct_read"] = 100 * nbytes / (floors[key] * 1e-6) / read_bw
        for name in ["today", *result["variants"]]:
            row[f"{name}_pct_read"] = 100 * nbytes / (row[f"{name}_us"] * 1e-6) / read_bw
            row[f"{name}_over_floor"] = row[f"{name}_us"] / floors[key]
        common.log(
            f"{row['layout']:8} {row['heads']} B={row['batch']:2} L={row['seq_len']:5}: "
            f"floor {floors[key]:6.1f} us ({row['read_floor_pct_read']:5.1f}%) "
            + " ".join(
                f"{n} {row[f'{n}_us']:6.1f} ({row[f'{n}_pct_read']:5.1f}%)"
                for n in result["variants"]
            )
        )
    with open(os.path.join(result.pop("out_dir"), "decode_read_floor.json"), "w") as f:
        json.dump(result, f, indent=1)
    return rc


if __name__ == "__main__":
    sys.exit(main())
