# SPDX-License-Identifier: Apache-2.0
"""Where decode_page_contiguous should stop splitting short sequences (H200).

The op sizes its split count from shapes only (CUDA-graph safe), so at batch
1-4 a 128-token sequence gets as many splits as a 128K one and pays the
reduce kernel's latency (~2.5 us) for nothing. Sequences of at most
``_WHOLE_SEQUENCE_MAX_TILES`` tiles now run whole in their first split and
the reduce skips them. This times the op with that bound set to each of
--bounds (0 = always split, the op before the change) against the path each
backend runs today, in one process, with the page sweep's method
(bench_decode_page_sweep.py: a CUDA graph of up to 16 calls on distinct block
tables, L2 flushed before every replay). Block tables are as wide as a
--max-model-len server's (vLLM's are), so the split count is what serving
sees, not capped by a table just wide enough for the sequence.

    python3 benchmarks/experiments/decode_whole_sequence_bound.py --vllm-root BUNDLE --out-dir OUT

Writes OUT/decode_whole_sequence_bound.json.

The bound was a module constant of the op while this ran (fork commit in the
JSON); the queue's op keeps bound 1, hard-coded (a one-tile sequence writes
its own output). On a tree without the constant the script times the op as
it is, as "op_bound1".
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "kernels"))
import bench_decode_page_sweep as sweep  # noqa: E402
import common  # noqa: E402


def parse_args(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--vllm-root", required=True)
    p.add_argument("--out-dir", default=".")
    p.add_argument("--bounds", default="0,2,4,8")
    p.add_argument("--pages", default="64,832,2112")
    p.add_argument("--heads", default="24/4/256,32/8/128")
    p.add_argument("--batches", default="1,2,4,16")
    p.add_argument("--seq-lens", default="64,128,256,512,1024,2048,4096")
    p.add_argument("--layouts", default="triton,rocm")
    p.add_argument("--max-model-len", type=int, default=131072)
    p.add_argument("--reps", type=int, default=4)
    p.add_argument("--workers", type=int, default=15)
    return p.parse_args(argv)


def groups(args):
    return [
        (layout, heads, page)
        for layout in args.layouts.split(",")
        for heads in sweep.heads_of(args.heads)
        for page in sweep.ints(args.pages)
    ]


def wide(table, width: int):
    """The table padded with block 0 to a server's width (never read)."""
    import torch

    pad = width - table.shape[1]
    if pad <= 0:
        return table
    return torch.cat([table, table.new_zeros((table.shape[0], pad))], dim=1).contiguous()


def tunable(ops) -> bool:
    return hasattr(ops.dpc, "_WHOLE_SEQUENCE_MAX_TILES")


def run_group(args, ops, layout, heads, page, nblocks, dev, flush=None):
    import torch

    group = sweep.Group(ops, layout, heads, page, nblocks, dev, torch.bfloat16)
    hq, hk, hs = heads
    width = math.ceil(args.max_model_len / page)
    rows = []
    for batch in sweep.ints(args.batches):
        for seq_len in sweep.ints(args.seq_lens):
            seq_lens = torch.full((batch,), seq_len, dtype=torch.int32, device=dev)
            q = torch.randn((batch, hq, hs), dtype=torch.bfloat16, device=dev)
            calls = 1 if flush is None else sweep.MAX_CALLS
            tables = [wide(t, width) for t in group.tables(batch, seq_len, calls)]
            row = {"layout": layout, "heads": list(heads), "page": page, "batch": batch,
                   "seq_len": seq_len, "table_width": width}  # fmt: skip
            bounds = sweep.ints(args.bounds) if tunable(ops) else [1]
            variants = [("today", None)] + [(f"op_bound{b}", b) for b in bounds]
            for name, bound in variants:
                kernel = "today" if bound is None else "op"
                if bound is not None and tunable(ops):
                    ops.dpc._WHOLE_SEQUENCE_MAX_TILES = bound
                out = torch.full_like(q, float("nan"))
                fns = [group.call(kernel, q, out, t, seq_lens, seq_len) for t in tables]
                if flush is None:  # compile only
                    fns[0]()
                    continue
                row[f"{name}_us"] = sweep.time_calls(fns, args.reps, flush)
                ref = group.reference(q, tables[-1], seq_len, 1)
                row[f"{name}_rel_l2"] = ((out[:1].float() - ref).norm() / ref.norm()).item()
            if flush is not None:
                row["best_bound"] = min(bounds, key=lambda b: row[f"op_bound{b}_us"])
                rows.append(row)
                common.log(
                    f"{layout:6} {hq}/{hk}/{hs} page {page:4} B={batch:3} L={seq_len:5}: today "
                    f"{row['today_us']:6.1f} "
                    + " ".join(f"b{b} {row[f'op_bound{b}_us']:6.1f}" for b in bounds)
                )
    torch.cuda.synchronize()
    return rows


def prewarm(job):
    argv, layout, heads, page = job
    args = parse_args(argv)
    common.use_vllm_root(args.vllm_root)
    import torch

    ops = sweep.Ops()
    need = max(sweep.ints(args.batches)) * math.ceil(max(sweep.ints(args.seq_lens)) / page)
    run_group(args, ops, layout, heads, page, need + 1, torch.device("cuda"))
    return f"{layout} {heads} {page}"


def main(argv=None):
    args = parse_args(argv)
    common.use_vllm_root(args.vllm_root)
    import torch

    raw = sys.argv[1:] if argv is None else argv
    common.prewarm_in_workers(prewarm, [(raw, *g) for g in groups(args)], args.workers)
    ops = sweep.Ops()
    dev = torch.device("cuda")
    env = common.environment()
    flush = sweep.l2_flush(dev)

    rows = []
    for layout, heads, page in groups(args):
        per_block = sweep.kv_bytes_per_token(heads, "bfloat16") * page
        need = max(sweep.ints(args.batches)) * math.ceil(max(sweep.ints(args.seq_lens)) / page)
        nblocks = max(math.ceil((2 << 30) / per_block), sweep.MAX_CALLS * need)
        rows += run_group(args, ops, layout, heads, page, nblocks, dev, flush)
        torch.cuda.empty_cache()
    os.makedirs(args.out_dir, exist_ok=True)
    with open(os.path.join(args.out_dir, "decode_whole_sequence_bound.json"), "w") as f:
        json.dump({"environment": env, "bounds": args.bounds, "points": rows}, f, indent=1)
    for b in sweep.ints(args.bounds) if tunable(ops) else [1]:
        ratios = [r[f"op_bound{b}_us"] / r["today_us"] for r in rows]
        common.log(f"bound {b}: op/today {min(ratios):.3f}-{max(ratios):.3f}, "
                   f"points > 1.02: {sum(x > 1.02 for x in ratios)}/{len(ratios)}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
