# SPDX-License-Identifier: Apache-2.0
"""ROCM_ATTN's x-packed K on an H200: does a coalesced K load bring the op to
the read bandwidth it reaches on TRITON_ATTN's layout? (session 8)

On K [blocks, kv_heads, head_size // x, page, x] the op loads the K^T tile
[head, tile] with 8 dims (16 B) per thread and, at head 256, the 32 lanes of
a warp on 32 different 16-B rows of one token: each lane uses half of a 32-B
sector, so K crosses L2 twice. The variants load K^T as [pieces, DIM_PIECE,
tile] instead: DIM_PIECE // 8 lanes cover the dims of a token, the rest of
the warp the next tokens, so a warp reads whole sectors (DIM_PIECE 128: 32 B
per token row; 64: 64 B; 32: 128 B). Q is loaded as [pieces, heads,
DIM_PIECE] and S is the sum over pieces of a batched dot.

  base      the op as built
  k3d32/64/128   K^T in pieces of 32/64/128 dims (x-packed layout only)

    python3 benchmarks/experiments/decode_xpacked_k_load.py --vllm-root BUNDLE --out-dir OUT

Same method as decode_short_context_variants.py (CUDA graph of up to 16
calls on distinct block tables, L2 flushed before every replay); adds the
read bandwidth of each variant against the ceiling measured in the same run.
Writes OUT/decode_xpacked_k_load.json.
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


def main(argv=None):
    defaults = [
        "--groups", "rocm:24/4/256:832,rocm:16/2/256:832,rocm:32/8/128:832,rocm:24/4/256:544",
        "--batches", "1,4,16,64", "--seq-lens", "1024,4096,16384,32768",
        "--max-tokens", str(1 << 21), "--variants", "base,k3d32,k3d64,k3d128",
    ]  # fmt: skip
    return run_with_read_bandwidth(argv, defaults, "decode_xpacked_k_load.json")


def run_with_read_bandwidth(argv, defaults, name: str) -> int:
    """decode_short_context_variants with `defaults`, each time also as a share
    of the read bandwidth measured in the same run; writes OUT/`name`."""
    rc, result = short.run_with_ceilings(argv, defaults)
    read_bw = result["ceilings"]["read_bandwidth_TBps"] * 1e12
    for row in result["points"]:
        nbytes = row["batch"] * row["seq_len"] * sweep.kv_bytes_per_token(row["heads"], "bfloat16")
        row["bytes"] = nbytes
        for variant in ["today", *result["variants"]]:
            row[f"{variant}_pct_read"] = 100 * nbytes / (row[f"{variant}_us"] * 1e-6) / read_bw
        common.log(
            f"{row['heads']} p{row['page']} B={row['batch']} L={row['seq_len']}: "
            + " ".join(f"{n} {row[f'{n}_pct_read']:5.1f}%" for n in result["variants"])
        )
    with open(os.path.join(result.pop("out_dir"), name), "w") as f:
        json.dump(result, f, indent=1)
    return rc


if __name__ == "__main__":
    sys.exit(main())
