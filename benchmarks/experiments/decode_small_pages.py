# SPDX-License-Identifier: Apache-2.0
"""Pages smaller than a tile: the decode op reading several pages per tile
against the op before (each tile one page, mostly masked) and against what
TRITON_ATTN runs today (unified_attention), in one process (H200).

The op under test is the --vllm-root copy; --base-op is the op source before
the change (`git show <commit>:vllm/v1/attention/ops/decode_page_contiguous.py`),
imported as a second module. Pages at or above a tile (64, 832 below) run the
same code path in both and say whether anything moved there. Method of
bench_decode_page_sweep.py: a CUDA graph of up to 16 calls on distinct block
tables as wide as a --max-model-len server's, L2 flushed before every replay,
median of --reps replays; every kernel compiled first by worker processes.

    python3 benchmarks/experiments/decode_small_pages.py --vllm-root BUNDLE \
        --base-op OLD_OP.py --out-dir OUT

Writes OUT/<tag>.json: per point op_us, base_us, today_us, the ratios, the
routing predicate's answer for TRITON_ATTN, and the op's rel. L2 error against
fp32; and OUT/<tag>.png, heatmaps of op/today and base/today side by side
(`--plot JSON` draws it again from a written JSON, no GPU needed).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "kernels"))
import bench_decode_page_sweep as sweep  # noqa: E402
import common  # noqa: E402


def parse_args(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--plot", metavar="JSON", help="only draw the PNG of a written JSON")
    p.add_argument("--vllm-root")
    p.add_argument("--base-op", help="the op's source before the change")
    p.add_argument("--out-dir", default=".")
    p.add_argument("--tag", default="decode_small_pages")
    p.add_argument("--pages", default="16,32")
    p.add_argument("--heads", default=sweep.HEADS)
    p.add_argument("--batches", default=sweep.BATCHES)
    p.add_argument("--seq-lens", default=sweep.SEQ_LENS)
    p.add_argument("--max-model-len", type=int, default=131072)
    p.add_argument("--dtype", default="bfloat16", choices=("bfloat16", "float16"))
    p.add_argument("--cache-gib", type=float, default=40.0)
    p.add_argument("--reps", type=int, default=4)
    p.add_argument("--workers", type=int, default=15)
    p.add_argument("--time-budget", type=float, default=1e9, help="seconds of timing")
    return p.parse_args(argv)


def base_module(path: str):
    mod, _ = common.edited_module(open(path).read(), "decode_page_contiguous_base", [])
    return mod


def points_of(args, heads, page):
    fit, skip, nblocks = sweep.points_of(
        argparse.Namespace(
            cache_gib=args.cache_gib, dtype=args.dtype, batches=args.batches,
            seq_lens=args.seq_lens,
        ),
        heads,
        page,
    )  # fmt: skip
    return fit, skip, nblocks


def calls_of(group, base, kernel, q, out, table, seq_lens, seq_len):
    if kernel == "base":
        return lambda: base.decode_page_contiguous(
            q, group.k, group.v, out, table, seq_lens, group.scale, workspace=group.workspace
        )
    return group.call(kernel, q, out, table, seq_lens, seq_len)


def prewarm(job):
    argv, heads, page = job
    args = parse_args(argv)
    common.use_vllm_root(args.vllm_root)
    import torch

    ops = sweep.Ops()
    base = base_module(args.base_op)
    dev = torch.device("cuda")
    group = sweep.Group(ops, "triton", heads, page, 64, dev, getattr(torch, args.dtype))
    fit, _, _ = points_of(args, heads, page)
    for batch, seq_len in fit:
        pages = math.ceil(seq_len / page)
        table = torch.randint(0, 64, (batch, pages), dtype=torch.int32, device=dev)
        table = sweep.pad_table(table, args.max_model_len, page)
        seq_lens = torch.full((batch,), seq_len, dtype=torch.int32, device=dev)
        q = torch.randn((batch, group.hq, group.hs), dtype=group.dtype, device=dev)
        out = torch.empty_like(q)
        for kernel in ("op", "base", "today"):
            calls_of(group, base, kernel, q, out, table, seq_lens, seq_len)()
    torch.cuda.synchronize()
    return f"{heads} page {page}: {len(fit)} points"


def plot(result: dict, path: str) -> None:
    """The sweep's heatmap, one column for the op and one for the op before."""
    rows = []
    for p in result["points"]:
        for name, key in (("after", "op_over_today"), ("before", "base_over_today")):
            rows.append({**p, "layout": f"TRITON_ATTN (op {name})", "ratio": p[key]})
    sweep.plot({"points": rows}, path)


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.plot:
        with open(args.plot) as f:
            plot(json.load(f), args.plot.removesuffix(".json") + ".png")
        return 0
    if not (args.vllm_root and args.base_op):
        raise SystemExit("decode_small_pages.py: --vllm-root and --base-op are required")
    common.use_vllm_root(args.vllm_root)
    import torch

    os.makedirs(args.out_dir, exist_ok=True)
    groups = [(h, p) for h in sweep.heads_of(args.heads) for p in common.ints(args.pages)]
    raw = sys.argv[1:] if argv is None else argv
    common.prewarm_in_workers(prewarm, [(raw, *g) for g in groups], args.workers)

    ops = sweep.Ops()
    base = base_module(args.base_op)
    dev = torch.device("cuda")
    dtype = getattr(torch, args.dtype)
    env = common.environment()
    flush = sweep.l2_flush(dev)
    points, skipped = [], []
    started = time.time()
    for heads, page in groups:
        fit, skip, nblocks = points_of(args, heads, page)
        skipped += [{"heads": list(heads), "page": page, "batch": b, "seq_len": s} for b, s in skip]
        if time.time() - started > args.time_budget:
            skipped += [
                {"heads": list(heads), "page": page, "batch": b, "seq_len": s, "why": "time"}
                for b, s in fit
            ]
            continue
        group = sweep.Group(ops, "triton", heads, page, nblocks, dev, dtype)
        hq, hk, hs = heads
        for batch, seq_len in fit:
            seq_lens = torch.full((batch,), seq_len, dtype=torch.int32, device=dev)
            q = torch.randn((batch, hq, hs), dtype=dtype, device=dev, generator=group.gen)
            nbytes = batch * seq_len * sweep.kv_bytes_per_token(heads, args.dtype)
            est_us = nbytes / 4e12 * 1e6
            calls = max(1, min(sweep.MAX_CALLS, int(2000 / max(est_us, 1.0))))
            tables = group.tables(batch, seq_len, calls, args.max_model_len)
            row = {
                "heads": list(heads), "page": page, "batch": batch, "seq_len": seq_len,
                "calls": calls, "routed": ops.routed(page, heads, batch, dtype, "triton", dev),
            }  # fmt: skip
            for kernel in ("op", "base", "today"):
                out = torch.full_like(q, float("nan"))
                fns = [calls_of(group, base, kernel, q, out, t, seq_lens, seq_len) for t in tables]
                row[f"{kernel}_us"] = sweep.time_calls(fns, args.reps, flush)
                if kernel == "op" and batch * seq_len <= 64 * 16384:
                    rows = min(batch, 2)
                    ref = group.reference(q, tables[-1], seq_len, rows)
                    row["op_rel_l2"] = ((out[:rows].float() - ref).norm() / ref.norm()).item()
                    row["op_nan"] = bool(out.isnan().any())
            row["op_over_today"] = row["op_us"] / row["today_us"]
            row["base_over_today"] = row["base_us"] / row["today_us"]
            row["op_over_base"] = row["op_us"] / row["base_us"]
            points.append(row)
            common.log(
                f"{hq}/{hk}/{hs} page {page:4} B={batch:3} L={seq_len:5}: op "
                f"{row['op_us']:8.1f} base {row['base_us']:8.1f} today {row['today_us']:8.1f} "
                f"op/today {row['op_over_today']:.3f} base/today {row['base_over_today']:.3f}"
            )
        del group
        torch.cuda.empty_cache()
    path = os.path.join(args.out_dir, f"{args.tag}.json")
    with open(path, "w") as f:
        json.dump(
            {"command": env["command"], "environment": env, "args": vars(args),
             "points": points, "skipped": skipped},
            f, indent=1,
        )  # fmt: skip
    common.log(f"wrote {path} ({len(points)} points)")
    with open(path) as f:
        plot(json.load(f), path.removesuffix(".json") + ".png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
