# SPDX-License-Identifier: Apache-2.0
"""Replay the attention work of serving Qwen3.5-27B: upstream v0.33.0 vs the series.

For the 16 full-attention layers of Qwen3.5-27B (24 query heads, 4 KV heads,
head 256, bf16), each request of a tier is replayed as vLLM schedules it:
chunked prefill in 4096-token chunks (the last chunk is the shorter tail), then
`--output-len` decode steps at batch `--decode-batch`. Four variants, same
process, same random inputs, interleaved rounds:

  upstream_unified  unified_attention (TRITON_ATTN) on page 784
  upstream_rocm     chunked_prefill_paged_decode (ROCM_ATTN today) on page 784
  series            ROCM_ATTN with the series: page 832, paged_prefill_aligned
                    for prefill chunks, decode_page_contiguous for decode
  series_triton     TRITON_ATTN with the series: page 832, unified_attention
                    for prefill chunks, decode_page_contiguous for decode

Decode batch: vLLM's default max_num_seqs (256) never binds at these context
lengths; what a tier's serving run has in flight does. The write-up's serving
A/B sent 10 requests per tier, which vLLM pads to the CUDA-graph capture size
16, so decode steps run at batch 16. Per request, decode attention time is
output_len x step_time / batch, with the step timed at the request's mid-decode
context. The 16 layers have identical shapes: one layer's call is timed (CUDA
graph replay, median) and multiplied by 16.

Roofline: prefill FLOPs = 4 x heads x head_size x causal (query, key) pairs,
against the bf16 matmul rate; decode bytes = K+V read + q + out, against a
read-only bandwidth; both ceilings measured in the same run.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

LAYERS, HQ, HK, HS = 16, 24, 4, 256
TIERS = {"4K-8K": (4096, 8192), "8K-16K": (8192, 16384), "16K-32K": (16384, 32768)}
CHUNK = 4096
VARIANTS = ("upstream_unified", "upstream_rocm", "series", "series_triton")
PAGE = {"upstream_unified": 784, "upstream_rocm": 784, "series": 832, "series_triton": 832}
# Variants on TRITON_ATTN's cache layout, and the upstream path each replaces.
TRITON_LAYOUT = ("upstream_unified", "series_triton")
BASELINE = {"series": "upstream_rocm", "series_triton": "upstream_unified"}


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--vllm-root", help="source tree or unpacked bundle holding vllm/")
    p.add_argument("--out-dir", default="benchmarks/results/replay")
    p.add_argument("--requests", type=int, default=3, help="prompt lengths drawn per tier")
    p.add_argument("--output-len", type=int, default=512)
    p.add_argument("--decode-batch", type=int, default=16)
    p.add_argument("--rounds", type=int, default=3, help="interleaved rounds per point")
    p.add_argument("--reps", type=int, default=7, help="graph replays per round")
    p.add_argument("--quick", action="store_true", help="1 request per tier, 2 rounds")
    return p.parse_args()


class Variant:
    """One layer's KV cache and inputs for one variant, one page size, one batch."""

    def __init__(self, name: str, batch: int, seq_len: int, q_len: int, gen) -> None:
        import torch

        self.name, self.batch, self.seq_len, self.q_len = name, batch, seq_len, q_len
        page = PAGE[name]
        self.pages = math.ceil(seq_len / page)
        nblocks = batch * self.pages
        dev, dt = "cuda", torch.bfloat16
        if name in TRITON_LAYOUT:
            kv = torch.randn((nblocks, page, HK, 2 * HS), dtype=dt, device=dev, generator=gen)
            self.cache = kv.split(HS, dim=-1)
        else:
            x = 8  # ROCM_ATTN packs 16 bytes of K per token
            k = torch.randn((nblocks, HK, HS // x, page, x), dtype=dt, device=dev, generator=gen)
            v = torch.randn((nblocks, HK, HS, page), dtype=dt, device=dev, generator=gen)
            self.cache = (k, v)
        perm = torch.randperm(nblocks, device=dev, generator=gen).to(torch.int32)
        self.block_table = perm.view(batch, self.pages).contiguous()
        tokens = batch * q_len
        self.q = torch.randn((tokens, HQ, HS), dtype=dt, device=dev, generator=gen)
        self.k_new = torch.randn((tokens, HK, HS), dtype=dt, device=dev, generator=gen)
        self.v_new = torch.randn((tokens, HK, HS), dtype=dt, device=dev, generator=gen)
        self.out = torch.empty_like(self.q)
        self.seq_lens = torch.full((batch,), seq_len, dtype=torch.int32, device=dev)
        self.cu_q = torch.arange(0, tokens + 1, q_len, dtype=torch.int32, device=dev)
        self.one = torch.ones((), dtype=torch.float32, device=dev)
        self.scale = HS**-0.5
        rows = 128 // HK
        self.segm_out = torch.empty((rows, HQ, 16, HS), dtype=torch.float32, device=dev)
        self.segm_max = torch.empty((rows, HQ, 16), dtype=torch.float32, device=dev)
        self.segm_sum = torch.empty_like(self.segm_max)
        self.workspace = torch.empty(64 << 20, dtype=torch.float32, device=dev)

    def __call__(self) -> None:
        k, v = self.cache
        if self.name == "upstream_unified" or (self.name == "series_triton" and self.q_len > 1):
            descale = self.one.expand((self.batch, HK))
            OPS["unified"](
                q=self.q, k=k, v=v, out=self.out, cu_seqlens_q=self.cu_q,
                max_seqlen_q=self.q_len, seqused_k=self.seq_lens,
                max_seqlen_k=self.seq_len, softmax_scale=self.scale, causal=True,
                window_size=(-1, -1), block_table=self.block_table, softcap=0,
                q_descale=None, k_descale=descale, v_descale=descale,
                seq_threshold_3D=128 // HK, num_par_softmax_segments=16,
                softmax_segm_output=self.segm_out, softmax_segm_max=self.segm_max,
                softmax_segm_expsum=self.segm_sum,
            )  # fmt: skip
        elif self.name == "upstream_rocm":
            prefill = self.q_len > 1
            OPS["rocm"](
                query=self.q, key=self.k_new if prefill else None,
                value=self.v_new if prefill else None, output=self.out,
                kv_cache_dtype="auto", key_cache=k, value_cache=v,
                block_table=self.block_table, query_start_loc=self.cu_q,
                seq_lens=self.seq_lens, max_seq_len=self.seq_len,
                max_query_len=self.q_len, k_scale=self.one, v_scale=self.one,
                sliding_window=0, sm_scale=self.scale,
            )  # fmt: skip
        elif self.q_len > 1:
            OPS["prefill"](
                self.q, k, v, self.out, self.cu_q, self.seq_lens, self.block_table,
                self.q_len, self.scale,
            )  # fmt: skip
        else:
            OPS["decode"](
                self.q, k, v, self.out, self.block_table, self.seq_lens, self.scale,
                workspace=self.workspace,
            )  # fmt: skip


OPS: dict = {}


def import_ops() -> None:
    common.stub_rocm_platform_module()
    from vllm.v1.attention.ops.chunked_prefill_paged_decode import chunked_prefill_paged_decode
    from vllm.v1.attention.ops.decode_page_contiguous import decode_page_contiguous
    from vllm.v1.attention.ops.triton_paged_prefill_aligned import paged_prefill_aligned
    from vllm.v1.attention.ops.triton_unified_attention import unified_attention

    OPS.update(
        unified=unified_attention, rocm=chunked_prefill_paged_decode,
        prefill=paged_prefill_aligned, decode=decode_page_contiguous,
    )  # fmt: skip


def time_point(args, batch: int, seq_len: int, q_len: int, seed: int) -> dict[str, float]:
    """Microseconds for the 16 layers' calls of one step, per variant (interleaved)."""
    import torch

    gen = torch.Generator(device="cuda").manual_seed(seed)
    fns = {n: Variant(n, batch, seq_len, q_len, gen) for n in VARIANTS}
    samples: dict[str, list[float]] = {n: [] for n in VARIANTS}
    for r in range(args.rounds):
        order = VARIANTS if r % 2 == 0 else tuple(reversed(VARIANTS))
        for name in order:
            samples[name].append(common.graph_time_us(fns[name], reps=args.reps))
    del fns
    torch.cuda.empty_cache()
    return {n: LAYERS * sorted(s)[len(s) // 2] for n, s in samples.items()}


def causal_pairs(ctx: int, q: int) -> int:
    return q * ctx + q * (q + 1) // 2


def main() -> int:
    args = parse_args()
    if args.quick:
        args.requests, args.rounds = 1, 2
    common.use_vllm_root(args.vllm_root)
    import torch

    import_ops()
    os.makedirs(args.out_dir, exist_ok=True)
    common.log("measuring ceilings")
    ceil = common.ceilings()
    common.log(f"ceilings: {ceil}")
    rng = random.Random(0)
    results = []
    for tier, (lo, hi) in TIERS.items():
        prompts = sorted(rng.randrange(lo, hi + 1) for _ in range(args.requests))
        for prompt in prompts:
            rec = {"tier": tier, "prompt": prompt, "prefill_us": dict.fromkeys(VARIANTS, 0.0)}
            flops = 0
            for start in range(0, prompt, CHUNK):
                q = min(CHUNK, prompt - start)
                common.log(f"{tier} prompt {prompt}: prefill chunk q={q} ctx={start}")
                t = time_point(args, 1, start + q, q, seed=prompt + start)
                for n in VARIANTS:
                    rec["prefill_us"][n] += t[n]
                flops += LAYERS * 4 * HQ * HS * causal_pairs(start, q)
            mid = prompt + args.output_len // 2
            common.log(f"{tier} prompt {prompt}: decode batch {args.decode_batch} at {mid}")
            t = time_point(args, args.decode_batch, mid, 1, seed=prompt)
            steps = args.output_len / args.decode_batch
            rec["decode_us"] = {n: t[n] * steps for n in VARIANTS}
            dec_bytes = LAYERS * args.decode_batch * (mid * HK * HS * 4 + 2 * HQ * HS * 2)
            rec["prefill_floor_us"] = flops / (ceil["bf16_matmul_TFLOPps"] * 1e6)
            rec["decode_floor_us"] = dec_bytes / (ceil["read_bandwidth_TBps"] * 1e6) * steps
            results.append(rec)
            common.log(json.dumps(rec))
    summary = summarize(results)
    env = common.environment()
    payload = {
        "command": " ".join(sys.argv),
        "environment": env,
        "ceilings": ceil,
        "settings": {k: v for k, v in vars(args).items() if k != "vllm_root"},
        "model": {"layers": LAYERS, "q_heads": HQ, "kv_heads": HK, "head_size": HS},
        "requests": results,
        "tiers": summary,
    }
    with open(os.path.join(args.out_dir, "replay.json"), "w") as f:
        json.dump(payload, f, indent=1)
    table = markdown(summary, ceil, env, args)
    with open(os.path.join(args.out_dir, "replay.md"), "w") as f:
        f.write(table)
    plot(summary, os.path.join(args.out_dir, "replay.png"))
    print(table)
    del torch
    return 0


def summarize(results: list[dict]) -> dict:
    tiers = {}
    for tier in TIERS:
        recs = [r for r in results if r["tier"] == tier]
        n = len(recs)
        t = {}
        for v in VARIANTS:
            pre = sum(r["prefill_us"][v] for r in recs) / n
            dec = sum(r["decode_us"][v] for r in recs) / n
            t[v] = {"prefill_ms": pre / 1e3, "decode_ms": dec / 1e3, "total_ms": (pre + dec) / 1e3}
        floor_pre = sum(r["prefill_floor_us"] for r in recs) / n
        floor_dec = sum(r["decode_floor_us"] for r in recs) / n
        for v in VARIANTS:
            t[v]["prefill_roofline_pct"] = 100 * floor_pre / 1e3 / t[v]["prefill_ms"]
            t[v]["decode_roofline_pct"] = 100 * floor_dec / 1e3 / t[v]["decode_ms"]
        for series, up in BASELINE.items():
            t[f"{series}_over_{up}"] = t[series]["total_ms"] / t[up]["total_ms"]
        t["series_over_upstream_unified"] = t["series"]["total_ms"] / t["upstream_unified"]["total_ms"]
        tiers[tier] = t
    return tiers


def markdown(summary: dict, ceil: dict, env: dict, args) -> str:
    lines = [
        f"Attention time per request, Qwen3.5-27B's 16 full-attention layers, {env['gpu']}, "
        f"torch {env['torch']}, Triton {env['triton']}; decode batch {args.decode_batch}, "
        f"{args.output_len} output tokens; ceilings: matmul {ceil['bf16_matmul_TFLOPps']:.0f} TFLOP/s, "
        f"read {ceil['read_bandwidth_TBps']:.2f} TB/s, copy {ceil['copy_bandwidth_TBps']:.2f} TB/s.",
        "",
        "| tier | variant | prefill ms | decode ms | total ms | prefill % roofline | decode % roofline |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for tier, t in summary.items():
        for v in VARIANTS:
            r = t[v]
            lines.append(
                f"| {tier} | {v} | {r['prefill_ms']:.2f} | {r['decode_ms']:.2f} | {r['total_ms']:.2f} "
                f"| {r['prefill_roofline_pct']:.0f}% | {r['decode_roofline_pct']:.0f}% |"
            )
    lines += [
        "",
        "| tier | series / upstream_rocm | series_triton / upstream_unified | series / upstream_unified |",
        "| --- | ---: | ---: | ---: |",
    ]
    for tier, t in summary.items():
        lines.append(
            f"| {tier} | {t['series_over_upstream_rocm']:.3f} | {t['series_triton_over_upstream_unified']:.3f} "
            f"| {t['series_over_upstream_unified']:.3f} |"
        )
    return "\n".join(lines) + "\n"


def plot(summary: dict, path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 4.5))
    width = 0.8 / len(VARIANTS)
    for i, v in enumerate(VARIANTS):
        xs = [j + (i - (len(VARIANTS) - 1) / 2) * width for j in range(len(summary))]
        pre = [summary[t][v]["prefill_ms"] for t in summary]
        dec = [summary[t][v]["decode_ms"] for t in summary]
        ax.bar(xs, pre, width, label=f"{v} prefill", color=f"C{i}")
        ax.bar(xs, dec, width, bottom=pre, label=f"{v} decode", color=f"C{i}", alpha=0.45)
    ax.set_xticks(range(len(summary)), list(summary))
    ax.set_ylabel("attention ms per request (16 layers)")
    ax.set_title("Qwen3.5-27B attention replay: upstream (page 784) vs series (page 832)")
    ax.legend(fontsize=7, ncol=4)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


if __name__ == "__main__":
    sys.exit(main())
