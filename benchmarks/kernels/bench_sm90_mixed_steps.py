# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the vLLM project
"""Patch 3's sm_90 launch on mixed steps: one prefill chunk beside decode rows.

Each point is a batch as vLLM's model runner orders it: `decodes` rows of
`decode_len` tokens (1; 2-8 for speculative-decode verification; each after
`decode_context` cached tokens) first, then one `chunk`-token
prefill chunk after `context` cached tokens; TRITON_ATTN's cache layout, bf16,
random data, NaN in every cache slot no row owns (page tails included).
Timed side by side per point with the imported tree's unified_attention:

  default   the release's launch for head 256 on sm_90 (16-row query
            blocks, 32-token tiles): unified_attention with the module's
            is_batch_invariant flag set (mixed steps with a chunk longer than
            MAX_3D_QUERY_LEN run the 2D kernel either way)
  sm90      patch 3's launch (128-row blocks, 64-token tiles, 8 warps, 2
            stages) on every batch, whatever the rule says: the prototype of
            bench_prefill_alternatives.py (the imported tree's
            triton_unified_attention.py with a launch knob) at 128/64/8/2
  rule      which of the two patch 3's rule picks for the batch
            (rule_takes_sm90: a chunk of 256+ tokens, at most 32 rows)

Outputs of the two launches are compared (max abs difference, NaN count).
Times: triton.testing.do_bench (median), L2 flushed by do_bench between
calls. Needs a vLLM tree importable and an sm_90 GPU; --smoke runs one tiny
point on the CPU under TRITON_INTERPRET=1 (fp16; outputs only, no times).

    python3 benchmarks/kernels/bench_sm90_mixed_steps.py --out DIR [--heads ...]
    python3 benchmarks/kernels/bench_sm90_mixed_steps.py --out DIR --merge A.json B.json ...

--merge (no GPU) joins the points of several runs into DIR's JSON and plots
them (time with patch 3's launch over the default's, per decode-row count).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

SM90_LAUNCH = (128, 64, 8, 2)


def make_batch(heads, page, rows, dtype, device, seed=0):
    """rows: [(query tokens, cached tokens)], decodes first."""
    g = torch.Generator(device=device).manual_seed(seed)
    nh, nkv, hs = heads
    seq_lens = [q + c for q, c in rows]
    pages = [math.ceil(s / page) for s in seq_lens]
    num_blocks = sum(pages) + 2
    table = torch.zeros(len(rows), max(pages), dtype=torch.int32, device=device)
    perm = torch.randperm(num_blocks, generator=g, device=device)
    start = 0
    kv = torch.full((num_blocks, page, nkv, 2 * hs), float("nan"), dtype=dtype, device=device)
    for i, (n, s) in enumerate(zip(pages, seq_lens)):
        blocks = perm[start : start + n]
        start += n
        table[i, :n] = blocks.int()
        fill = torch.randn(n * page, nkv, 2 * hs, generator=g, device=device).to(dtype)
        fill[s:] = float("nan")
        kv[blocks] = fill.view(n, page, nkv, 2 * hs)
    qlens = [q for q, _ in rows]
    return {
        "query": torch.randn(sum(qlens), nh, hs, generator=g, device=device).to(dtype),
        "k": kv[..., :hs],
        "v": kv[..., hs:],
        "cu_seqlens_q": torch.tensor([0, *qlens], device=device).cumsum(0).to(torch.int32),
        "seqused_k": torch.tensor(seq_lens, dtype=torch.int32, device=device),
        "max_seqlen_q": max(qlens),
        "max_seqlen_k": max(seq_lens),
        "block_table": table,
        "flops": sum(4 * hs * nh * (q * c + q * (q + 1) / 2) for q, c in rows),
    }


def plot(points: list[dict], path: str) -> None:
    plt = common.pyplot(path)
    if plt is None:
        return
    panels: dict = {}  # one per decode-row length
    for pt in points:
        key = (f"{pt['heads']}, chunk {pt['chunk']} after {pt['context'] // 1024}K, "
               f"decodes after {pt['decode_context'] // 1024}K")  # fmt: skip
        panels.setdefault(pt.get("decode_len", 1), {}).setdefault(key, []).append(pt)
    cols = min(2, len(panels))
    rows_ = math.ceil(len(panels) / cols)
    fig, axes = plt.subplots(rows_, cols, figsize=(10 * cols, 6 * rows_), squeeze=False)
    for ax, (n, series) in zip(axes.flat, sorted(panels.items())):
        for key, pts in sorted(series.items()):
            pts.sort(key=lambda p: p["decodes"])
            xs = [p["decodes"] + 1 for p in pts]
            (line,) = ax.plot(xs, [p["sm90_over_default"] for p in pts], marker="o", label=key)
            taken = [p for p in pts if p.get("rule_takes_sm90")]
            ax.scatter([p["decodes"] + 1 for p in taken], [p["sm90_over_default"] for p in taken],
                       s=120, facecolors="none", edgecolors=line.get_color())  # fmt: skip
        ax.axhline(1.0, color="black", lw=0.8)
        ax.axvline(32, color="grey", ls="--", lw=0.8)
        ax.set_xscale("log", base=2)
        ax.set_xlabel("rows in the batch (one chunk + decode rows); dashed: the rule's 32-row limit")
        ax.set_ylabel("time with the sm_90 launch / default launch")
        ax.set_title(f"decode rows of {n} token{'s' if n > 1 else ''} (circled: the rule takes the launch)",
                     fontsize=9)  # fmt: skip
        ax.legend(fontsize=7)
    for ax in axes.flat[len(panels):]:
        ax.set_visible(False)
    fig.suptitle("unified_attention, head 256, page 832, bf16: a prefill chunk beside decode rows", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def rule_takes_sm90(pt: dict) -> bool:
    """Patch 3's rule for the batch: head 256, 6-8 query heads per KV head, a
    256+ token chunk, at most 32 rows."""
    nh, nkv, hs = (int(x) for x in pt["heads"].split("/"))
    return hs == 256 and 6 <= nh // nkv <= 8 and pt["chunk"] >= 256 and pt["decodes"] + 1 <= 32


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", required=True)
    p.add_argument("--heads", default="24/4/256,16/2/256")
    p.add_argument("--page", type=int, default=832)
    p.add_argument("--chunks", default="4096,1024,256")
    p.add_argument("--context", type=int, default=12288)
    p.add_argument("--decodes", default="0,8,16,32,64,128")
    p.add_argument("--decode-context", type=int, default=32768)
    p.add_argument("--decode-len", type=int, default=1,
                   help="query tokens per decode row (2-8: speculative-decode verification rows)")  # fmt: skip
    p.add_argument("--rep-ms", type=int, default=100)
    p.add_argument("--smoke", action="store_true", help="one tiny point on the CPU (TRITON_INTERPRET=1)")
    p.add_argument("--merge", nargs="+", metavar="JSON", help="join these runs' points (no GPU)")
    p.add_argument("--prototype", help="the prototype module (default: built as bench_prefill_alternatives does)")
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    out_json = os.path.join(args.out, "sm90_mixed_steps.json")
    if args.merge:
        runs = []
        for path in args.merge:
            with open(path) as f:
                runs.append(json.load(f))
        points = [dict(pt, rule_takes_sm90=rule_takes_sm90(pt)) for r in runs for pt in r["points"]]
        with open(out_json, "w") as f:
            json.dump({"runs": [{k: r[k] for k in ("environment", "settings")} for r in runs],
                       "points": points}, f, indent=1)  # fmt: skip
        plot(points, os.path.join(args.out, "sm90_mixed_steps.png"))
        return 0
    import tempfile

    from bench_prefill_alternatives import build_prototype, load_prototype

    from vllm.triton_utils import triton

    proto = load_prototype(args.prototype or build_prototype(tempfile.mkdtemp()))

    dev, dtype = "cuda", torch.bfloat16
    if args.smoke:  # the interpreter computes bf16 dots wrongly
        dev, dtype = "cpu", torch.float16
        args.heads, args.page, args.chunks, args.context = "2/1/256", 64, "256", 0
        args.decodes, args.decode_context = "1", 100
    points = []
    for spec in args.heads.split(","):
        heads = tuple(int(x) for x in spec.split("/"))
        hs = heads[2]
        for chunk in (int(x) for x in args.chunks.split(",")):
            for d in (int(x) for x in args.decodes.split(",")):
                rows = [(args.decode_len, args.decode_context)] * d + [(chunk, args.context)]
                b = make_batch(heads, args.page, rows, dtype, dev)
                outs, ms = {}, {}
                for launch in ("default", "sm90"):
                    q = b["query"]
                    out = torch.full_like(q, float("nan"))
                    proto.is_batch_invariant = launch == "default"
                    proto.PROTOTYPE_PREFILL_CONFIG = SM90_LAUNCH if launch == "sm90" else None

                    def run(q=q, out=out):
                        proto.unified_attention(
                            q=q, k=b["k"], v=b["v"], out=out, cu_seqlens_q=b["cu_seqlens_q"],
                            max_seqlen_q=b["max_seqlen_q"], seqused_k=b["seqused_k"],
                            max_seqlen_k=b["max_seqlen_k"], softmax_scale=hs**-0.5, causal=True,
                            window_size=(-1, -1), block_table=b["block_table"], softcap=0,
                            q_descale=None, k_descale=None, v_descale=None,
                        )  # fmt: skip

                    run()
                    outs[launch] = out.float()
                    ms[launch] = (
                        float("nan") if args.smoke else triton.testing.do_bench(run, warmup=5, rep=args.rep_ms)
                    )
                proto.is_batch_invariant, proto.PROTOTYPE_PREFILL_CONFIG = False, None
                diff = (outs["default"] - outs["sm90"]).abs()
                pt = {
                    "heads": spec, "page": args.page, "chunk": chunk, "context": args.context,
                    "decodes": d, "decode_context": args.decode_context, "decode_len": args.decode_len,
                    "ms": ms, "sm90_over_default": ms["sm90"] / ms["default"],
                    "tflops": {k: b["flops"] / (v * 1e-3) / 1e12 for k, v in ms.items()},
                    "max_abs_diff": float(diff.nan_to_num(float("inf")).max()),
                    "nan": {k: int(o.isnan().sum()) for k, o in outs.items()},
                }  # fmt: skip
                pt["rule_takes_sm90"] = rule_takes_sm90(pt)
                points.append(pt)
                print(
                    f"{spec} chunk {chunk} + {d} decodes of {args.decode_len}: default {ms['default']:.3f} ms, "
                    f"sm90 {ms['sm90']:.3f} ms ({pt['sm90_over_default']:.2f}x), rule "
                    f"{'sm90' if pt['rule_takes_sm90'] else 'default'}, diff {pt['max_abs_diff']:.1e}, "
                    f"nan {pt['nan']}",
                    flush=True,
                )
                b = outs = None  # free the batch before the next
    with open(out_json, "w") as f:
        json.dump({"environment": common.environment(), "settings": vars(args), "points": points}, f, indent=1)
    plot(points, os.path.join(args.out, "sm90_mixed_steps.png"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
