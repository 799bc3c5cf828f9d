# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the vLLM project
"""What `do_not_specialize=["num_seqs"]` on unified_attention's two kernels
costs and saves: time per batch, and compiles after a warm-up.

Two copies of the imported tree's kernel_unified_attention and
reduce_segments, swapped into the module in turn so the tree's own wrapper
(its launch rules included) runs each:

  specialized   @triton.jit, the release's decorator: Triton specializes the
                integer num_seqs (== 1, multiple of 16, other)
  unspecialized @triton.jit(do_not_specialize=["num_seqs"])

Time: for every point (heads, page, rows of 1-token decode rows after
`--decode-context` cached tokens, or a prefill chunk after `--context`), the
two copies alternate `--rounds` times, triton.testing.do_bench median each;
the point's time is the median over rounds. TRITON_ATTN's split-K setup
(threshold 128 // KV heads, 16 segments). Outputs of the two are compared.

Compiles: each copy starts from an empty in-process cache, runs a warm-up of
2 and 256 rows of each kind (decode rows alone; beside a `--chunk`-token
chunk), then every row count 1-256 of both kinds; every compile after the
warm-up is recorded (jit_post_compile_hook), with its time.

    python3 benchmarks/kernels/bench_num_seqs_specialization.py --out DIR
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import common  # noqa: E402

VARIANTS = ("specialized", "unspecialized")


def kernels(mod, triton) -> dict:
    fns = (mod.kernel_unified_attention.fn, mod.reduce_segments.fn)
    return {
        "specialized": [triton.jit(fn) for fn in fns],
        "unspecialized": [triton.jit(do_not_specialize=["num_seqs"])(fn) for fn in fns],
    }


class Batch:
    """rows: [(query tokens, cached tokens)]; TRITON_ATTN's cache layout."""

    def __init__(self, heads, page, rows, width=None, seed=0):
        nh, nkv, hs = heads
        g = torch.Generator(device="cuda").manual_seed(seed)
        seq_lens = [q + c for q, c in rows]
        pages = [math.ceil(s / page) for s in seq_lens]
        width = width or max(pages)
        num_blocks = max(sum(pages), 1) + 1
        kv = torch.randn(num_blocks, page, nkv, 2 * hs, generator=g, device="cuda").bfloat16()
        self.table = torch.zeros(len(rows), width, dtype=torch.int32, device="cuda")
        perm = torch.randperm(num_blocks, generator=g, device="cuda").int()
        start = 0
        for i, n in enumerate(pages):
            self.table[i, :n] = perm[start : start + n]
            start += n
        qlens = [q for q, _ in rows]
        self.q = torch.randn(sum(qlens), nh, hs, generator=g, device="cuda").bfloat16()
        self.out = torch.empty_like(self.q)
        self.k, self.v = kv[..., :hs], kv[..., hs:]
        self.cu = torch.tensor([0, *qlens], device="cuda").cumsum(0).to(torch.int32)
        self.seqused = torch.tensor(seq_lens, dtype=torch.int32, device="cuda")
        self.max_q, self.max_k, self.hs = max(qlens), max(seq_lens), hs
        rows_3d = 256
        self.threshold, self.segments = 128 // nkv, 16
        self.scratch = [
            torch.empty(rows_3d, nh, self.segments, *d, dtype=torch.float32, device="cuda")
            for d in ((triton_next_pow2(hs),), (), ())
        ]

    def run(self, mod) -> None:
        mod.unified_attention(
            q=self.q, k=self.k, v=self.v, out=self.out, cu_seqlens_q=self.cu,
            max_seqlen_q=self.max_q, seqused_k=self.seqused, max_seqlen_k=self.max_k,
            softmax_scale=self.hs**-0.5, causal=True, window_size=(-1, -1),
            block_table=self.table, softcap=0, q_descale=None, k_descale=None, v_descale=None,
            seq_threshold_3D=self.threshold, num_par_softmax_segments=self.segments,
            softmax_segm_output=self.scratch[0], softmax_segm_max=self.scratch[1],
            softmax_segm_expsum=self.scratch[2],
        )  # fmt: skip


def triton_next_pow2(n: int) -> int:
    return 1 << (n - 1).bit_length()


def use(mod, pair) -> None:
    mod.kernel_unified_attention, mod.reduce_segments = pair


def time_points(mod, triton, copies, args) -> list[dict]:
    points = []
    for spec in args.heads.split(","):
        nh, nkv, hs, page = (int(x) for x in spec.replace("@", "/").split("/"))
        heads = (nh, nkv, hs)
        shapes = [("decode", n, [(1, args.decode_context)] * n) for n in map(int, args.rows.split(","))]
        shapes += [("prefill", n, [(1, args.decode_context)] * (n - 1) + [(args.chunk_len, args.context)])
                   for n in map(int, args.prefill_rows.split(","))]  # fmt: skip
        for kind, n, rows in shapes:
            b = Batch(heads, page, rows)
            outs, times = {}, {v: [] for v in VARIANTS}
            for r in range(args.rounds):
                for v in VARIANTS:
                    use(mod, copies[v])
                    b.out.fill_(float("nan"))
                    b.run(mod)
                    if r == 0:
                        outs[v] = b.out.float().clone()
                    times[v].append(triton.testing.do_bench(lambda: b.run(mod), warmup=5, rep=args.rep_ms))
            med = {v: statistics.median(times[v]) for v in VARIANTS}
            pt = {
                "heads": f"{nh}/{nkv}/{hs}", "page": page, "kind": kind, "rows": n,
                "chunk": args.chunk_len if kind == "prefill" else 1,
                "specialized_ms": med["specialized"], "unspecialized_ms": med["unspecialized"],
                "ratio": med["unspecialized"] / med["specialized"],
                "rounds_ms": times,
                "max_abs_diff": (outs["specialized"] - outs["unspecialized"]).abs().max().item(),
            }  # fmt: skip
            common.log(f"{pt['heads']} page {page} {kind} rows {n}: {med['specialized'] * 1e3:.1f} -> "
                       f"{med['unspecialized'] * 1e3:.1f} us ({pt['ratio']:.3f}x), diff {pt['max_abs_diff']:.2g}")  # fmt: skip
            points.append(pt)
    return points


def count_compiles(mod, triton, copies, args) -> dict:
    """Compiles after a warm-up of 2 and 256 rows per kind, over rows 1-256."""
    result = {}
    for spec in args.heads.split(","):
        nh, nkv, hs, page = (int(x) for x in spec.replace("@", "/").split("/"))
        width = math.ceil((args.compile_context + args.chunk_len + 256) / page)
        for v in VARIANTS:
            fresh = copies[v][0].fn, copies[v][1].fn
            dns = ["num_seqs"] if v == "unspecialized" else []
            use(mod, [triton.jit(do_not_specialize=dns)(fn) for fn in fresh])
            events: list = []
            start = [0.0]

            def pre(**kwargs):
                start[0] = time.perf_counter()

            def post(**kwargs):
                events.append({"kernel": kwargs["fn"].name, "compile_s": round(time.perf_counter() - start[0], 3)})

            batches = {}

            def batch(kind, n):
                if (kind, n) not in batches:
                    chunk = 1 if kind == "decode" else args.chunk_len
                    rows = [(1, args.compile_context + i % 100) for i in range(n - 1)]
                    batches[(kind, n)] = Batch((nh, nkv, hs), page, rows + [(chunk, args.compile_context)],
                                               width=width, seed=n)  # fmt: skip
                return batches[(kind, n)]

            triton.knobs.runtime.jit_cache_hook, triton.knobs.runtime.jit_post_compile_hook = pre, post
            for kind in ("decode", "prefill"):
                for n in (2, 256):
                    batch(kind, n).run(mod)
            warm = list(events)
            events.clear()
            for kind in ("decode", "prefill"):
                for n in range(1, 257):
                    batch(kind, n).run(mod)
                    batches.pop((kind, n), None)
            torch.cuda.synchronize()
            triton.knobs.runtime.jit_cache_hook = triton.knobs.runtime.jit_post_compile_hook = None
            key = f"{nh}/{nkv}/{hs}@{page}/{v}"
            result[key] = {"warmup": warm, "after_warmup": list(events)}
            common.log(f"{key}: warm-up compiled {len(warm)}, rows 1-256 then compiled {len(events)} "
                       f"({sum(e['compile_s'] for e in events):.1f} s)")  # fmt: skip
    return result


def plot(points: list[dict], path: str) -> None:
    plt = common.pyplot(path)
    if plt is None:
        return
    fig, ax = plt.subplots(figsize=(9, 5))
    for key in sorted({(p["heads"], p["page"], p["kind"]) for p in points}):
        pts = sorted((p for p in points if (p["heads"], p["page"], p["kind"]) == key), key=lambda p: p["rows"])
        ax.plot([p["rows"] for p in pts], [p["ratio"] for p in pts], marker="o",
                label=f"{key[0]}, page {key[1]}, {key[2]}")  # fmt: skip
    ax.axhline(1.0, color="black", lw=0.8)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("rows in the batch")
    ax.set_ylabel("time, do_not_specialize / specialized")
    ax.set_title("unified_attention: num_seqs unspecialized over specialized (median of rounds)", fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", required=True)
    p.add_argument("--heads", default="32/8/128@16,24/4/256@832", help="Q/KV/head@page,...")
    p.add_argument("--rows", default="1,2,3,16,17,32,64,128,256", help="decode batch sizes")
    p.add_argument("--prefill-rows", default="1,2,16,32", help="rows of prefill batches (one chunk)")
    p.add_argument("--decode-context", type=int, default=4096)
    p.add_argument("--chunk-len", type=int, default=1024)
    p.add_argument("--context", type=int, default=4096)
    p.add_argument("--compile-context", type=int, default=512)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--rep-ms", type=int, default=50)
    p.add_argument("--plot-only", action="store_true", help="re-plot DIR's JSON (no GPU)")
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    out_json = os.path.join(args.out, "num_seqs_specialization.json")
    if args.plot_only:
        with open(out_json) as f:
            plot(json.load(f)["points"], os.path.join(args.out, "num_seqs_specialization.png"))
        return 0
    from vllm.triton_utils import triton
    from vllm.v1.attention.ops import triton_unified_attention as mod

    copies = kernels(mod, triton)
    compiles = count_compiles(mod, triton, copies, args)
    points = time_points(mod, triton, copies, args)
    with open(out_json, "w") as f:
        json.dump({"environment": common.environment(), "settings": vars(args), "compiles": compiles,
                   "points": points}, f, indent=1)  # fmt: skip
    plot(points, os.path.join(args.out, "num_seqs_specialization.png"))
    ratios = [pt["ratio"] for pt in points]
    common.log(f"ratio unspecialized/specialized: median {statistics.median(ratios):.3f}, "
               f"range {min(ratios):.3f}-{max(ratios):.3f} over {len(ratios)} points")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
