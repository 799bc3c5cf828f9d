# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the vLLM project
"""Can unified_attention itself do what paged_prefill_aligned does? One GPU run.

Prefill batches on TRITON_ATTN's cache (bf16, random data, a shuffled block
table, NaN everywhere the batch does not own, page tails included): `seqs`
sequences, each a query chunk of `chunk` tokens after `context` cached tokens.
Timed side by side per point:

  unified         unified_attention as the imported tree runs it (the
                  baseline; on sm_90 a tree with patch 3 already runs its
                  128-row launch here, so time against the release's launch
                  with a tree without it, as the committed result did)
  unified_td      the same with use_td=True (VLLM_TRITON_USE_TD=1: one
                  block-table entry per tile, tensor-descriptor tile loads)
  proto:M/T/W/S   unified_attention with a 2D prefill launch of BLOCK_M=M,
                  TILE_SIZE=T, num_warps=W, num_stages=S (32/128/8/2 is its
                  own SM100 `tuned_large_head` launch)
  proto:...+page  the same with in-page tiles: where TILE_SIZE divides the
                  page, one block-table entry per tile and the tile addressed
                  inside its page (benchmarks/prototypes/unified_attention_in_page.patch)
  aligned         paged_prefill_aligned with its own launch config

The prototype is the release's triton_unified_attention.py with that patch
applied, imported under another module name (--prototype FILE). Every output
is checked against an fp32 reference built from the cache on rows of the
first and the last sequence; a NaN anywhere in the batch's rows is recorded.
The bf16 matmul rate is measured in the same run.

    python3 benchmarks/kernels/bench_prefill_alternatives.py --out DIR [--prototype FILE]
    TRITON_INTERPRET=1 python3 ... --smoke   # CPU, fp32, tiny shapes: correctness only

Needs a vLLM tree importable (PYTHONPATH).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import common  # noqa: E402

SMOKE = dict(
    shapes="4/2/64@64,4/1/64@128",
    chunks="40",
    seqs="1,3",
    contexts="0,70",
    configs="16/32/4/1,32/64/4/1",
)


class Batch:
    """`seqs` sequences of `chunk` new tokens after `context` cached ones."""

    def __init__(self, heads, page, chunk, seqs, context, dtype, device, poison, seed=0):
        g = torch.Generator(device=device).manual_seed(seed)
        nh, nkv, hs = heads
        self.heads, self.page, self.dtype = heads, page, dtype
        self.seq_len = seq_len = context + chunk
        self.chunk, self.seqs, self.context = chunk, seqs, context
        pages = math.ceil(seq_len / page)
        num_blocks = seqs * pages + 3
        perm = torch.randperm(num_blocks, generator=g, device=device)[: seqs * pages]
        self.block_table = perm.view(seqs, pages).to(torch.int32)
        kv = torch.full((num_blocks, page, nkv, 2 * hs), poison, dtype=dtype, device=device)
        self.keys, self.values = [], []
        for s in range(seqs):
            k = torch.randn(seq_len, nkv, hs, generator=g, device=device).to(dtype)
            v = torch.randn(seq_len, nkv, hs, generator=g, device=device).to(dtype)
            for p in range(pages):
                n = min(page, seq_len - p * page)
                blk = int(self.block_table[s, p])
                kv[blk, :n, :, :hs] = k[p * page : p * page + n]
                kv[blk, :n, :, hs:] = v[p * page : p * page + n]
            self.keys.append(k)
            self.values.append(v)
        self.k, self.v = kv[..., :hs], kv[..., hs:]
        self.query = torch.randn(seqs * chunk, nh, hs, generator=g, device=device).to(dtype)
        self.cu_seqlens_q = torch.arange(0, seqs + 1, device=device, dtype=torch.int32) * chunk
        self.seq_lens = torch.full((seqs,), seq_len, dtype=torch.int32, device=device)
        self.scale = hs**-0.5

    def flops(self) -> float:
        nh, _, hs = self.heads
        k_eff = self.chunk * self.context + self.chunk * (self.chunk + 1) / 2
        return 4.0 * hs * nh * k_eff * self.seqs

    def reference(self, max_rows: int = 96):
        """(rows, fp32 output) for rows of the first and last sequence."""
        nh, nkv, hs = self.heads
        rows, outs = [], []
        for s in sorted({0, self.seqs - 1}):
            local = torch.unique(
                torch.linspace(0, self.chunk - 1, min(self.chunk, max_rows)).long()
            ).to(self.query.device)
            k = self.keys[s].float().repeat_interleave(nh // nkv, dim=1)
            v = self.values[s].float().repeat_interleave(nh // nkv, dim=1)
            q = self.query[s * self.chunk + local].float()
            scores = torch.einsum("qhd,khd->hqk", q, k) * self.scale
            cols = torch.arange(self.seq_len, device=q.device)[None, :]
            scores = scores.masked_fill(~(cols <= local[:, None] + self.context)[None], -math.inf)
            outs.append(torch.einsum("hqk,khd->qhd", scores.softmax(-1), v))
            rows.append(s * self.chunk + local)
        return torch.cat(rows), torch.cat(outs)


PATCH = os.path.join(
    os.path.dirname(os.path.abspath(__file__)),
    "..",
    "prototypes",
    "unified_attention_in_page.patch",
)


def build_prototype(out_dir: str) -> str:
    """The imported vLLM tree's triton_unified_attention.py with PATCH
    applied (`patch` must be installed), written under out_dir."""
    import shutil
    import subprocess

    from vllm.v1.attention.ops import triton_unified_attention as upstream

    if shutil.which("patch") is None:
        raise SystemExit("bench_prefill_alternatives: `patch` not found; pass --prototype FILE")
    dst = os.path.join(out_dir, "unified_attention_prototype.py")
    with open(PATCH) as f:
        subprocess.run(["patch", "-s", "-o", dst, upstream.__file__], stdin=f, check=True)
    return dst


def load_prototype(path: str):
    spec = importlib.util.spec_from_file_location("unified_attention_prototype", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def unified_call(module, b: Batch, out, **kwargs):
    return lambda: module.unified_attention(
        q=b.query, k=b.k, v=b.v, out=out, cu_seqlens_q=b.cu_seqlens_q,
        max_seqlen_q=b.chunk, seqused_k=b.seq_lens, max_seqlen_k=b.seq_len,
        softmax_scale=b.scale, causal=True, window_size=(-1, -1),
        block_table=b.block_table, softcap=0, q_descale=None, k_descale=None,
        v_descale=None, **kwargs,
    )  # fmt: skip


def variants(b: Batch, out, proto, configs):
    """(name, fn) for each variant that applies to this batch."""
    from vllm.v1.attention.ops import triton_paged_prefill_aligned as ppa
    from vllm.v1.attention.ops import triton_unified_attention as upstream

    yield "unified", unified_call(upstream, b, out)
    yield "unified_td", unified_call(upstream, b, out, use_td=True)
    for cfg in configs:
        name = "proto:" + "/".join(map(str, cfg))

        def run(cfg=cfg, in_page=False):
            proto.PROTOTYPE_PREFILL_CONFIG, proto.PROTOTYPE_TILE_IN_PAGE = cfg, in_page
            unified_call(proto, b, out)()

        yield name, run
        if b.page % cfg[1] == 0:
            yield name + "+page", lambda cfg=cfg: run(cfg, True)
    if b.page % ppa.PAGED_PREFILL_PAGE_ALIGNMENT == 0:
        yield "aligned", lambda: ppa.paged_prefill_aligned(
            b.query, b.k, b.v, out, b.cu_seqlens_q, b.seq_lens, b.block_table,
            b.chunk, b.scale,
        )  # fmt: skip


def check(fn, b: Batch, out, ref) -> dict:
    out.fill_(float("nan"))
    fn()
    rows, want = ref
    got = out[rows].float()
    return {
        "rel_l2_vs_fp32": float((got - want).norm() / want.norm()),
        "nan": bool(torch.isnan(out).any()),
    }


def summarize(rows: list[dict]) -> dict:
    """Per point: each variant's time over unified's and over aligned's; the
    best single prototype config (geometric mean over the points it ran)."""
    points: dict = {}
    for r in rows:
        if "ms" in r and not r["nan"] and r["rel_l2_vs_fp32"] < 2e-2:
            key = (r["shape"], r["chunk"], r["seqs"], r["context"])
            points.setdefault(key, {})[r["method"]] = r["ms"]
    # use_td's timings are kept even where its output is wrong (NaN page tails).
    td = {
        (r["shape"], r["chunk"], r["seqs"], r["context"]): r["ms"]
        for r in rows
        if r["method"] == "unified_td" and "ms" in r
    }
    ratios: dict = {}
    for times in points.values():
        base = times.get("unified")
        for m, ms in times.items():
            if base:
                ratios.setdefault(m, []).append(ms / base)
    geo = {m: math.exp(sum(map(math.log, v)) / len(v)) for m, v in ratios.items()}
    protos = {m: g for m, g in geo.items() if m.startswith("proto:")}
    best = min(protos, key=protos.get) if protos else None
    per_point = []
    for (shape, chunk, seqs, ctx), times in sorted(points.items()):
        best_here = min((m for m in times if m.startswith("proto:")), key=times.get, default=None)
        per_point.append(
            {
                "shape": shape, "chunk": chunk, "seqs": seqs, "context": ctx,
                "unified_ms": times.get("unified"), "aligned_ms": times.get("aligned"),
                "td_ms": td.get((shape, chunk, seqs, ctx)),
                "best_single_proto": best, "best_single_proto_ms": times.get(best),
                "best_proto_here": best_here, "best_proto_here_ms": times.get(best_here),
            }
        )  # fmt: skip
    return {
        "geomean_vs_unified": geo,
        "best_single_proto": best,
        "points": per_point,
        "valid_rule": "a timing counts if its output has no NaN and relative L2 < 2e-2 "
        "(td_ms: use_td's time whatever its output)",
    }


def plot(result: dict, path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    pts = result["summary"]["points"]
    shapes = sorted({p["shape"] for p in pts})
    fig, axes = plt.subplots(1, len(shapes), figsize=(5 * len(shapes), 4.5), squeeze=False)
    best = result["summary"]["best_single_proto"]
    for ax, shape in zip(axes[0], shapes):
        for key, label in (
            ("aligned_ms", "paged_prefill_aligned"),
            ("best_single_proto_ms", f"unified, {best}"),
            ("best_proto_here_ms", "unified, best launch per point"),
            ("td_ms", "unified, use_td"),
        ):
            for seqs, marker in ((1, "o"), (8, "s")):
                sel = [p for p in pts if p["shape"] == shape and p["seqs"] == seqs and p[key]]
                sel = [p for p in sel if p["context"] == max(q["context"] for q in sel)]
                if sel:
                    ax.plot(
                        [p["chunk"] for p in sel],
                        [p["unified_ms"] / p[key] for p in sel],
                        marker=marker,
                        label=f"{label}, {seqs} seq",
                    )
        ax.set_xscale("log", base=2)
        ax.set_xlabel("chunk tokens per sequence (largest context)")
        ax.set_ylabel("speedup over unified_attention")
        ax.set_title(shape, fontsize=9)
        ax.grid(alpha=0.3)
    axes[0][0].legend(fontsize=6)
    fig.suptitle(result["environment"].get("gpu", ""), fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument(
        "--prototype",
        default="",
        help="patched triton_unified_attention.py (default: apply "
        "benchmarks/prototypes/unified_attention_in_page.patch to the imported tree's)",
    )
    p.add_argument("--out", default="", help="directory for JSON and PNG")
    p.add_argument("--shapes", default="24/4/256@832,16/2/256@576,24/4/256@64")
    p.add_argument("--chunks", default="64,256,1024,4096")
    p.add_argument("--seqs", default="1,8")
    p.add_argument("--contexts", default="0,12288")
    p.add_argument("--configs", default="32/128/8/2,64/64/4/2,64/64/8/2,128/64/8/2")
    p.add_argument("--rep-ms", type=int, default=100)
    p.add_argument("--deadline-s", type=float, default=1e9, help="stop starting points after")
    p.add_argument(
        "--poison",
        type=float,
        default=float("nan"),
        help="value of every cache slot the batch does not own (default NaN)",
    )
    p.add_argument("--smoke", action="store_true", help="CPU interpreter, fp32, tiny shapes")
    args = p.parse_args(argv)
    if args.smoke:
        for k, v in SMOKE.items():
            setattr(args, k, v)
    device = "cpu" if args.smoke else "cuda"
    dtype = torch.float32 if args.smoke else torch.bfloat16
    if not args.smoke:
        import triton

        # use_td's device-side tensor descriptors need a scratch allocator.
        triton.set_allocator(
            lambda n, align, stream: torch.empty(n, dtype=torch.int8, device="cuda")
        )
    if not args.prototype:
        import tempfile

        args.prototype = build_prototype(tempfile.mkdtemp())
    proto = load_prototype(args.prototype)
    configs = [tuple(int(x) for x in c.split("/")) for c in args.configs.split(",")]
    result: dict = {"environment": common.environment(), "args": vars(args)}
    if not args.smoke:
        from triton.testing import do_bench

        n = 8192
        a = torch.randn(n, n, dtype=dtype, device=device)
        result["bf16_matmul_tflops"] = 2 * n**3 / do_bench(lambda: a @ a, rep=300) / 1e9
        del a
    rows: list[dict] = []
    t0 = time.time()
    for shape in args.shapes.split(","):
        heads_s, page_s = shape.split("@")
        heads = tuple(int(x) for x in heads_s.split("/"))
        for chunk in map(int, args.chunks.split(",")):
            for seqs in map(int, args.seqs.split(",")):
                for ctx in map(int, args.contexts.split(",")):
                    if time.time() - t0 > args.deadline_s:
                        result["cut_off_at"] = [shape, chunk, seqs, ctx]
                        break
                    b = Batch(heads, int(page_s), chunk, seqs, ctx, dtype, device, args.poison)
                    out = torch.empty_like(b.query)
                    ref = b.reference()
                    for name, fn in variants(b, out, proto, configs):
                        r = {"shape": shape, "chunk": chunk, "seqs": seqs, "context": ctx,
                             "method": name}  # fmt: skip
                        try:
                            c0 = time.time()
                            r.update(check(fn, b, out, ref))
                            r["first_call_s"] = time.time() - c0
                            if not args.smoke:
                                r["ms"] = do_bench(
                                    fn, warmup=10, rep=args.rep_ms, return_mode="median"
                                )
                                r["tflops"] = b.flops() / r["ms"] / 1e9
                        except Exception as e:  # noqa: BLE001 (an unsupported launch is a result)
                            r["error"] = f"{type(e).__name__}: {str(e)[:300]}"
                        common.log(" ".join(f"{k}={v}" for k, v in r.items()))
                        rows.append(r)
                    del b, out
                    if device == "cuda":
                        torch.cuda.empty_cache()
                    result["results"] = rows
                    result["summary"] = summarize(rows)
                    if args.out:
                        os.makedirs(args.out, exist_ok=True)
                        with open(
                            os.path.join(args.out, "bench_prefill_alternatives.json"), "w"
                        ) as f:
                            json.dump(result, f, indent=1)
    if args.smoke:
        bad = [r for r in rows if "error" in r or r["nan"] or r["rel_l2_vs_fp32"] > 1e-4]
        if math.isnan(args.poison):
            # use_td's tile loads are unmasked: NaN page tails reach P @ V.
            td_nan = [r for r in bad if r["method"] == "unified_td" and r["nan"]]
            bad = [r for r in bad if r not in td_nan]
            print(f"unified_td: NaN output in {len(td_nan)} runs (NaN page tails)")
        for r in bad:
            print("BAD", r)
        print(f"smoke: {len(rows)} runs, {len(bad)} bad")
        return 1 if bad else 0
    if args.out:
        plot(result, os.path.join(args.out, "bench_prefill_alternatives.png"))
    print(json.dumps(result["summary"]["geomean_vs_unified"], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
