# SPDX-License-Identifier: Apache-2.0
"""paged_prefill_aligned against the prefill it replaces, over the route's envelope.

ROCM_ATTN sends a prefill chunk to paged_prefill_aligned at pages of 256+
tokens that are multiples of 64; before, context_attention_fwd ran it on the
x-packed cache. This times, per head shape, page, chunk length and cached
context (one sequence, bench_prefill_paged.py's case: random data, NaN page
tails, fp32 reference rows):

  rocm_attn_prefix     context_attention_fwd on x-packed (what ran before)
  aligned_triton       the kernel's default config on x-packed
  aligned_triton_nhd   the kernel's default config on NHD (patch 13's layout)
  candidate[_nhd]      a candidate (BLOCK_M, BLOCK_N, warps, stages) for the
                       head size (--candidates), on both layouts

Each time is the median of a CUDA graph of enough calls to take about
1 ms, replayed. It prints, per method, the largest time ratio to rocm_attn_prefix and,
per candidate, the range of its ratio to the default. The bf16 matmul rate
and read bandwidth are measured in the same run.

    python3 benchmarks/experiments/prefill_route_envelope.py --out OUT

Writes OUT/prefill_route_envelope.json (rewritten after every head shape,
so a run cut short keeps what it measured) and OUT/prefill_route_envelope.png.
"""

import argparse
import json
import math
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "kernels"))
import bench_prefill_paged as P  # noqa: E402
import torch  # noqa: E402

KEYS = ("block_m", "block_n", "num_warps", "num_stages")


def _parse_candidates(text: str) -> dict[int, tuple[int, ...]]:
    """'128:128,64,8,3;64:128,32,8,3' -> {head size: config}."""
    out = {}
    for item in filter(None, text.split(";")):
        head, cfg = item.split(":")
        out[int(head)] = tuple(int(v) for v in cfg.split(","))
    return out


def _point_key(row: dict) -> tuple:
    return (row["heads"], row["page"], row["q"], row["context"])


def _summary(rows: list[dict]) -> dict:
    """Over the timed rows: each method's largest ratio to rocm_attn_prefix,
    and each candidate's ratio range to the default config on its layout."""
    base = {_point_key(r): r["ms"] for r in rows if r["method"] == "rocm_attn_prefix"}
    default = {
        (*_point_key(r), r["method"].endswith("_nhd")): r["ms"]
        for r in rows
        if r["method"].startswith("aligned_triton")
    }
    vs_prefix: dict[str, list[float]] = {}
    vs_default: dict[str, list[float]] = {}
    for r in rows:
        key = _point_key(r)
        if r["method"] == "rocm_attn_prefix" or key not in base:
            continue
        vs_prefix.setdefault(r["method"], []).append(r["ms"] / base[key])
        d = default.get((*key, r["method"].endswith("_nhd")))
        if r["method"].startswith("candidate") and d:
            vs_default.setdefault(f"{r['method']} {r['heads']}", []).append(r["ms"] / d)
    return {
        "max_ratio_to_rocm_attn_prefix": {m: max(v) for m, v in vs_prefix.items()},
        "candidate_ratio_to_default": {m: [min(v), max(v)] for m, v in vs_default.items()},
    }


def _plot(result: dict, path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [r for r in result["rows"] if "ms" in r]
    base = {_point_key(r): r["ms"] for r in rows if r["method"] == "rocm_attn_prefix"}
    methods = sorted({r["method"] for r in rows} - {"rocm_attn_prefix"})
    fig, ax = plt.subplots(figsize=(10, 5))
    for i, m in enumerate(methods):
        pts = [
            (r["q"] * (1.0 + 0.04 * i), r["ms"] / base[_point_key(r)])
            for r in rows
            if r["method"] == m and _point_key(r) in base
        ]
        ax.scatter(*zip(*pts), s=12, label=m)
    ax.axhline(1.0, color="k", lw=0.8)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("chunk tokens (all heads, pages, contexts)")
    ax.set_ylabel("time / context_attention_fwd on x-packed")
    ax.legend(fontsize=8)
    ax.set_title("paged_prefill_aligned over the ROCM_ATTN prefill route (H200, bf16)")
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def _point(heads: str, page: int, q: int, ctx: int, cfg: tuple | None) -> list[dict]:
    """Every method on one chunk; a method that fails to compile or launch is
    recorded with its error."""
    case = P.Case(q, ctx, page)
    out = torch.empty_like(case.query)
    ref = case.reference_rows(32)
    runs = [("rocm_attn_prefix", None, False), ("aligned_triton", None, False)]
    runs += [("aligned_triton_nhd", None, True)]
    if cfg:
        c = dict(zip(KEYS, cfg))
        runs += [("candidate", c, False), ("candidate_nhd", c, True)]
    rows = []
    for name, config, nhd in runs:
        try:
            if name == "rocm_attn_prefix":
                fn = P.run_rocm_prefix(case, out)
            else:
                fn = P.run_aligned(case, out, config, nhd=nhd)
            row = P.measure(name, fn, case, out, ref)
        except Exception as e:  # out of shared memory and the like
            row = {"method": name, "heads": heads, "page": page, "q": q, "context": ctx,
                   "error": f"{type(e).__name__}: {str(e)[:200]}"}  # fmt: skip
        if config:
            row["config"] = list(cfg)
        rows.append(row)
    return rows


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", required=True)
    p.add_argument(
        "--heads",
        default="32/8/128,32/32/128,8/1/128,64/8/128,16/16/64,32/8/64,24/4/256,16/2/256",
    )
    p.add_argument("--pages", default="256,1056")
    p.add_argument("--qs", default="16,128,1024,4096")
    p.add_argument("--contexts", default="0,4096,16384")
    p.add_argument("--candidates", default="128:128,64,8,3;64:128,32,8,3")
    p.add_argument("--rep-ms", type=int, default=50, help="do_bench rep per point")
    args = p.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    candidates = _parse_candidates(args.candidates)

    def bench_ms(fn) -> float:
        """Median time of one call, replayed from a CUDA graph of enough calls
        to take about 1 ms (eager timing of microsecond-size calls measures
        the launch and the host; call 25 did that)."""
        from triton.testing import do_bench

        eager = do_bench(fn, warmup=3, rep=20, return_mode="median")
        calls = max(1, min(50, math.ceil(1.0 / eager)))
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            fn()
        torch.cuda.current_stream().wait_stream(stream)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            for _ in range(calls):
                fn()
        ms = do_bench(graph.replay, warmup=3, rep=args.rep_ms, return_mode="median")
        return float(ms) / calls

    P.bench_ms = bench_ms
    result = {
        "environment": P.common.environment(),
        "ceilings": P.ceilings(),
        "args": vars(args),
        "rows": [],
    }
    path = os.path.join(args.out, "prefill_route_envelope.json")
    for heads in args.heads.split(","):
        P.NUM_HEADS, P.NUM_KV_HEADS, P.HEAD_SIZE = (int(v) for v in heads.split("/"))
        t0 = time.time()
        for page in (int(v) for v in args.pages.split(",")):
            for q in (int(v) for v in args.qs.split(",")):
                for ctx in (int(v) for v in args.contexts.split(",")):
                    cfg = candidates.get(P.HEAD_SIZE)
                    result["rows"] += _point(heads, page, q, ctx, cfg)
                    torch.cuda.empty_cache()
        result["summary"] = _summary([r for r in result["rows"] if "ms" in r])
        with open(path, "w") as f:
            json.dump(result, f, indent=1)
        print(f"{heads}: {time.time() - t0:.0f} s", flush=True)
    print(json.dumps(result["summary"], indent=1))
    bad = [r for r in result["rows"] if r.get("nan") or r.get("rel_l2_vs_fp32", 0) > 3e-3]
    print(f"points with NaN or rel L2 > 3e-3: {len(bad)}")
    _plot(result, os.path.join(args.out, "prefill_route_envelope.png"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
