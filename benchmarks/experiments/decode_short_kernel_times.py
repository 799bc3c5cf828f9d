# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the vLLM project
"""Where the decode op's short-context time goes: each kernel's own duration.

At batch 1-8 and 64-256 tokens the op takes 1-1.7 us longer per call than
``unified_attention`` (both two launches there: a main kernel and a reduce).
Graph timing gives only the sum. This runs the same calls under Nsight
Compute (``ncu``), which times each kernel alone (``gpu__time_duration``,
caches flushed before each kernel by ncu), so the gap can be placed: main
kernel, reduce, or between launches (graph time minus the kernels' sum).

Two modes, one process each:
  --graph   per point, the op and unified_attention timed as the page sweep
            times them (a CUDA graph of 16 calls on distinct tables as wide as
            a 128K-token server's, L2 flushed before every replay);
  --run     every call once to compile, then between cudaProfilerStart/Stop
            each call --reps times, in the order written to --order (run it
            under ``ncu --profile-from-start off``; see call58.sh).
--parse NCU_CSV ORDER_JSON GRAPH_JSON joins the two into one JSON.

    PYTHONPATH=BUNDLE python3 benchmarks/experiments/decode_short_kernel_times.py --graph --out G.json
    PYTHONPATH=BUNDLE ncu --profile-from-start off --clock-control none --csv \\
        --metrics gpu__time_duration.sum,launch__grid_size,launch__registers_per_thread \\
        --log-file N.csv python3 benchmarks/experiments/decode_short_kernel_times.py --run --order O.json
    python3 benchmarks/experiments/decode_short_kernel_times.py --parse N.csv O.json G.json --out J.json
"""

import argparse
import csv
import json
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "kernels"))
sys.path.insert(0, os.path.join(HERE, ".."))

MAX_MODEL_LEN = 131072


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = p.add_mutually_exclusive_group(required=True)
    mode.add_argument("--graph", action="store_true")
    mode.add_argument("--run", action="store_true")
    mode.add_argument("--parse", nargs=3, metavar=("NCU_CSV", "ORDER_JSON", "GRAPH_JSON"))
    p.add_argument("--heads", default="32/8/128,24/4/256,8/1/128")
    p.add_argument("--pages", default="16,64")
    p.add_argument("--batches", default="1,4")
    p.add_argument("--seq-lens", default="64,128,256,512,1024")
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--order", help="--run: where to write the call order")
    p.add_argument("--out", help="--graph/--parse: output JSON")
    return p.parse_args(argv)


def points(args):
    for heads in args.heads.split(","):
        hq, hk, hs = (int(x) for x in heads.split("/"))
        for page in (int(x) for x in args.pages.split(",")):
            for batch in (int(x) for x in args.batches.split(",")):
                for seq_len in (int(x) for x in args.seq_lens.split(",")):
                    yield (hq, hk, hs), page, batch, seq_len


def build(args):
    """{point key: {"op": fn, "today": fn}} on one cache per (heads, page)."""
    import torch

    from bench_decode_page_sweep import Group, Ops

    ops = Ops()
    dev = torch.device("cuda")
    groups, calls = {}, {}
    for heads, page, batch, seq_len in points(args):
        key = (heads, page)
        if key not in groups:
            nblocks = max(4096, (1 << 30) // (page * heads[1] * heads[2] * 4))
            groups[key] = Group(ops, "triton", heads, page, nblocks, dev, torch.bfloat16)
        g = groups[key]
        tables = g.tables(batch, seq_len, 16, MAX_MODEL_LEN)
        seq_lens = torch.full((batch,), seq_len, dtype=torch.int32, device=dev)
        q = torch.randn((batch, heads[0], heads[2]), dtype=torch.bfloat16, device=dev)
        out = torch.empty_like(q)
        name = f"{heads[0]}/{heads[1]}/{heads[2]} p{page} B{batch} L{seq_len}"
        calls[name] = {
            k: [g.call(k, q, out, t, seq_lens, seq_len) for t in tables] for k in ("op", "today")
        }
    return calls


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.parse:
        return parse(args)
    import torch

    from bench_decode_page_sweep import l2_flush, time_calls

    calls = build(args)
    if args.graph:
        flush = l2_flush(torch.device("cuda"))
        res = {}
        for name, c in calls.items():
            res[name] = {k: time_calls(fns, 7, flush) for k, fns in c.items()}
            print(name, {k: round(v, 2) for k, v in res[name].items()}, flush=True)
        with open(args.out, "w") as f:
            json.dump(res, f, indent=1)
        return 0
    for c in calls.values():
        for fns in c.values():
            fns[0]()
    torch.cuda.synchronize()
    order = []
    torch.cuda.cudart().cudaProfilerStart()
    for name, c in calls.items():
        for k, fns in c.items():
            for r in range(args.reps):
                fns[r % len(fns)]()
                torch.cuda.synchronize()
                order.append([name, k, r])
    torch.cuda.cudart().cudaProfilerStop()
    with open(args.order, "w") as f:
        json.dump(order, f)
    return 0


def parse(args) -> int:
    ncu_csv, order_json, graph_json = args.parse
    with open(ncu_csv) as f:
        lines = [ln for ln in f if ln.startswith('"')]
    rows = list(csv.DictReader(lines))
    # One kernel per row and metric: collect (launch id -> name, metrics).
    launches: dict[int, dict] = {}
    for r in rows:
        d = launches.setdefault(int(r["ID"]), {"name": r["Kernel Name"]})
        value = float(r["Metric Value"].replace(",", ""))
        # Durations in microseconds whatever unit ncu printed.
        value *= {
            "ns": 1e-3,
            "nsecond": 1e-3,
            "us": 1.0,
            "usecond": 1.0,
            "ms": 1e3,
            "msecond": 1e3,
        }.get(r.get("Metric Unit", ""), 1.0)
        d[r["Metric Name"]] = value
    seq = [launches[i] for i in sorted(launches)]
    with open(order_json) as f:
        order = json.load(f)
    with open(graph_json) as f:
        graph = json.load(f)
    # Each call is one or two launches: a main kernel, then a reduce.
    out: dict = {}
    i = 0
    for name, k, _ in order:
        ks = [seq[i]]
        i += 1
        if i < len(seq) and ("reduce" in seq[i]["name"]):
            ks.append(seq[i])
            i += 1
        rec = out.setdefault(name, {}).setdefault(k, {"main_us": [], "reduce_us": [], "grid": None})
        rec["main_us"].append(ks[0]["gpu__time_duration.sum"])
        rec["grid"] = ks[0].get("launch__grid_size")
        rec["registers"] = ks[0].get("launch__registers_per_thread")
        rec["reduce_us"].append(ks[1]["gpu__time_duration.sum"] if len(ks) > 1 else 0.0)
    if i != len(seq):
        raise SystemExit(f"{len(seq)} kernels profiled, {i} placed: the order does not match")
    summary = {}
    for name, per in out.items():
        s = {}
        for k, rec in per.items():
            main_us = statistics.median(rec["main_us"])
            red_us = statistics.median(rec["reduce_us"])
            s[k] = {
                "main_us": main_us, "reduce_us": red_us, "kernels_us": main_us + red_us,
                "graph_us": graph.get(name, {}).get(k), "grid": rec["grid"],
                "registers": rec["registers"],
            }  # fmt: skip
            if s[k]["graph_us"] is not None:
                s[k]["between_us"] = s[k]["graph_us"] - s[k]["kernels_us"]
        summary[name] = s
        print(
            f"{name:28s} "
            + "  ".join(
                f"{k}: main {v['main_us']:.2f} reduce {v['reduce_us']:.2f} graph "
                f"{v['graph_us'] or float('nan'):.2f}"
                for k, v in s.items()
            )
        )
    with open(args.out, "w") as f:
        json.dump({"ncu_csv": ncu_csv, "points": summary}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
