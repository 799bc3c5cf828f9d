# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the vLLM project
"""Single-sequence chunked prefill against a paged KV cache, one GPU run.

Compares, for one query chunk of Q tokens after C cached tokens
(Qwen3.5-27B full-attention shape: 24 query heads, 4 KV heads, head 256,
bf16, random data):

  aligned_triton   the page-aligned Triton kernel
                   (vllm/v1/attention/ops/triton_paged_prefill_aligned.py)
                   on TRITON_ATTN's cache ([blocks, page, kv_heads, 2 * head]
                   viewed as K and V); only for pages that are multiples of 64
  unified          unified_attention on the same cache: what TRITON_ATTN
                   runs for prefill rows without the opt-in
  rocm_attn_prefix ROCM_ATTN's prefill, context_attention_fwd
                   (ops/prefix_prefill.py) on ROCM_ATTN's x-packed cache, new
                   K/V passed separately (ROCm's default backend today)
  sdpa_flash       torch SDPA, FlashAttention backend, contiguous K/V,
                   causal_lower_right mask (a peer, not a paged kernel)

TFLOP/s counts causal work only:
  flops = 4 * head_size * num_heads * k_eff,
  k_eff = sum over query rows i of (C + i + 1) = Q * C + Q * (Q + 1) / 2,
i.e. the keys each query row can see. The bf16 matmul rate (8192^3
torch.matmul, sustained: see ceilings()), a copy bandwidth and a read-only
bandwidth are measured in the same run. Every output is checked against an fp32 reference on a
subset of query rows (relative L2) and for NaN; the cache is NaN-poisoned
everywhere the sequence does not own, page tails included.

Needs a vLLM tree importable (PYTHONPATH); only Triton ops are used.
"""

import argparse
import concurrent.futures
import json
import math
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import common  # noqa: E402

import torch

NUM_HEADS = 24
NUM_KV_HEADS = 4
HEAD_SIZE = 256
DTYPE = torch.bfloat16


def bench_ms(fn) -> float:
    from triton.testing import do_bench

    return float(do_bench(fn, warmup=25, rep=200, return_mode="median"))


def _clock_and_power() -> str:
    """SM clock and board power now, from nvidia-smi ("" if unavailable)."""
    try:
        return subprocess.run(
            ["nvidia-smi", "--query-gpu=clocks.sm,power.draw,power.limit", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=10,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def bench_ms_and_clock(fn) -> tuple[float, str]:
    """bench_ms, with the SM clock and power sampled while fn runs."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        clock = pool.submit(lambda: (time.sleep(0.1), _clock_and_power())[1])
        ms = bench_ms(fn)
        return ms, clock.result()


def ceilings() -> dict:
    """bf16 matmul rate, copy and read-only bandwidth, measured now.

    A large bf16 matmul reaches the board power limit within about 0.1 s on
    an H200 (700 W; the SM clock then drops from 1980 to about 1500 MHz), so
    the first matmul timed in a run can read up to 15% faster than one that
    keeps running: first readings moved between 702 and 808 TFLOP/s from run
    to run. The ceiling is therefore the rate after 2 s of continuous
    matmul, the rate the GPU sustains; the first reading is recorded too.
    """
    n = 8192
    a = torch.randn(n, n, dtype=DTYPE, device="cuda")
    b = torch.randn(n, n, dtype=DTYPE, device="cuda")
    first_ms = bench_ms(lambda: torch.matmul(a, b))
    end = time.time() + 2.0
    while time.time() < end:
        for _ in range(20):
            torch.matmul(a, b)
        torch.cuda.synchronize()
    ms, clock_during_matmul = bench_ms_and_clock(lambda: torch.matmul(a, b))
    nbytes = 4 << 30
    src = torch.empty(nbytes // 2, dtype=DTYPE, device="cuda").normal_()
    dst = torch.empty_like(src)
    ms_copy = bench_ms(lambda: dst.copy_(src))
    ms_read = bench_ms(lambda: torch.sum(src, dtype=torch.float32))
    return {
        "bf16_matmul_tflops": 2 * n**3 / ms / 1e9,
        "bf16_matmul_tflops_first": 2 * n**3 / first_ms / 1e9,
        "bf16_matmul_shape": [n, n, n],
        "bf16_matmul_method": "do_bench median after 2 s of continuous matmul "
        "(sustained, at the power limit); _first: the run's first do_bench, before that",
        "sm_clock_power_during_matmul": clock_during_matmul,
        "copy_gbps_read_plus_write": 2 * nbytes / ms_copy / 1e6,
        "read_only_gbps": nbytes / ms_read / 1e6,
    }


def causal_flops(q_len: int, context: int) -> float:
    k_eff = q_len * context + q_len * (q_len + 1) / 2
    return 4.0 * HEAD_SIZE * NUM_HEADS * k_eff


class Case:
    """One sequence: random K/V for context + chunk, written into both
    layouts through one shuffled block table."""

    def __init__(self, q_len: int, context: int, page: int, seed: int = 0):
        g = torch.Generator(device="cuda").manual_seed(seed)
        self.q_len, self.context, self.page = q_len, context, page
        self.seq_len = seq_len = context + q_len
        dev = "cuda"
        self.query = torch.randn(q_len, NUM_HEADS, HEAD_SIZE, dtype=DTYPE, device=dev, generator=g)
        self.key = torch.randn(
            seq_len, NUM_KV_HEADS, HEAD_SIZE, dtype=DTYPE, device=dev, generator=g
        )
        self.value = torch.randn(
            seq_len, NUM_KV_HEADS, HEAD_SIZE, dtype=DTYPE, device=dev, generator=g
        )
        num_pages = math.ceil(seq_len / page)
        num_blocks = num_pages + 2
        perm = torch.randperm(num_blocks, device=dev, generator=g)[:num_pages]
        self.block_table = perm.to(torch.int32).unsqueeze(0)
        self.seq_lens = torch.tensor([seq_len], dtype=torch.int32, device=dev)
        self.cu_seqlens_q = torch.tensor([0, q_len], dtype=torch.int32, device=dev)
        self.scale = HEAD_SIZE**-0.5

        pad = num_pages * page - seq_len
        nan = float("nan")
        k_pages = torch.cat(
            [self.key, self.key.new_full((pad, NUM_KV_HEADS, HEAD_SIZE), nan)]
        ).view(num_pages, page, NUM_KV_HEADS, HEAD_SIZE)
        v_pages = torch.cat(
            [self.value, self.value.new_full((pad, NUM_KV_HEADS, HEAD_SIZE), nan)]
        ).view(num_pages, page, NUM_KV_HEADS, HEAD_SIZE)
        idx = perm.long()

        # TRITON_ATTN: [blocks, page, kv_heads, 2 * head], K|V per token/head.
        kv = torch.full(
            (num_blocks, page, NUM_KV_HEADS, 2 * HEAD_SIZE),
            nan,
            dtype=DTYPE,
            device=dev,
        )
        kv[idx, :, :, :HEAD_SIZE] = k_pages
        kv[idx, :, :, HEAD_SIZE:] = v_pages
        self.triton_k = kv[..., :HEAD_SIZE]
        self.triton_v = kv[..., HEAD_SIZE:]

        # ROCM_ATTN: K [blocks, kv_heads, head // x, page, x], V [blocks,
        # kv_heads, head, page].
        x = 16 // torch.tensor([], dtype=DTYPE).element_size()
        kc = torch.full(
            (num_blocks, NUM_KV_HEADS, HEAD_SIZE // x, page, x),
            nan,
            dtype=DTYPE,
            device=dev,
        )
        vc = torch.full((num_blocks, NUM_KV_HEADS, HEAD_SIZE, page), nan, dtype=DTYPE, device=dev)
        kc[idx] = k_pages.view(num_pages, page, NUM_KV_HEADS, HEAD_SIZE // x, x).permute(
            0, 2, 3, 1, 4
        )
        vc[idx] = v_pages.permute(0, 2, 3, 1)
        self.rocm_k, self.rocm_v = kc, vc
        self.new_k = self.key[context:]
        self.new_v = self.value[context:]

    def reference_rows(self, n_rows: int = 192) -> tuple[torch.Tensor, torch.Tensor]:
        """fp32 output of a subset of query rows (first, last, spread)."""
        rows = torch.unique(
            torch.cat(
                [
                    torch.arange(min(32, self.q_len)),
                    torch.linspace(0, self.q_len - 1, n_rows).long(),
                    torch.arange(max(0, self.q_len - 32), self.q_len),
                ]
            )
        ).to("cuda")
        group = NUM_HEADS // NUM_KV_HEADS
        k = self.key.float().repeat_interleave(group, dim=1)
        v = self.value.float().repeat_interleave(group, dim=1)
        q = self.query[rows].float()
        s = torch.einsum("qhd,khd->hqk", q, k) * self.scale
        cols = torch.arange(self.seq_len, device="cuda")[None, :]
        visible = cols <= (rows[:, None] + self.context)
        s = s.masked_fill(~visible[None], float("-inf"))
        out = torch.einsum("hqk,khd->qhd", torch.softmax(s, dim=-1), v)
        return rows, out


def run_aligned(case: Case, out: torch.Tensor, config: dict | None):
    """The aligned kernel on the case's one sequence, on TRITON_ATTN's cache;
    a config (block_m, block_n, num_warps, num_stages) replaces the module's
    launch-config choice."""
    from vllm.v1.attention.ops import triton_paged_prefill_aligned as ppa

    if not hasattr(run_aligned, "default"):
        run_aligned.default = ppa._launch_config
    ppa._launch_config = run_aligned.default
    if config:
        choice = tuple(config[k] for k in ("block_m", "block_n", "num_warps", "num_stages"))
        ppa._launch_config = lambda target, head_size, dtype: choice
    start = torch.tensor([0, case.query.shape[0]], dtype=torch.int32, device="cuda")
    table = case.block_table.reshape(1, -1).to(torch.int32).contiguous()
    return lambda: ppa.paged_prefill_aligned(
        case.query, case.triton_k, case.triton_v, out, start, case.seq_lens, table,
        case.query.shape[0], case.scale,
    )  # fmt: skip


def run_rocm_prefix(case: Case, out: torch.Tensor):
    from vllm.v1.attention.ops.prefix_prefill import context_attention_fwd

    one = torch.ones((), dtype=torch.float32, device="cuda")
    return lambda: context_attention_fwd(
        q=case.query,
        k=case.new_k,
        v=case.new_v,
        o=out,
        kv_cache_dtype="auto",
        k_cache=case.rocm_k,
        v_cache=case.rocm_v,
        b_loc=case.block_table,
        b_start_loc=case.cu_seqlens_q,
        b_seq_len=case.seq_lens,
        max_seq_len=case.seq_len,
        max_input_len=case.q_len,
        k_scale=one,
        v_scale=one,
        sm_scale=case.scale,
        skip_decode=True,
    )


def run_unified(case: Case, out: torch.Tensor):
    from vllm.v1.attention.ops.triton_unified_attention import unified_attention

    return lambda: unified_attention(
        q=case.query,
        k=case.triton_k,
        v=case.triton_v,
        out=out,
        cu_seqlens_q=case.cu_seqlens_q,
        max_seqlen_q=case.q_len,
        seqused_k=case.seq_lens,
        max_seqlen_k=case.seq_len,
        softmax_scale=case.scale,
        causal=True,
        window_size=(-1, -1),
        block_table=case.block_table,
        softcap=0,
        q_descale=None,
        k_descale=None,
        v_descale=None,
    )


def run_sdpa(case: Case, out: torch.Tensor):
    from torch.nn.attention import SDPBackend, sdpa_kernel
    from torch.nn.attention.bias import causal_lower_right

    group = NUM_HEADS // NUM_KV_HEADS
    q = case.query.transpose(0, 1).unsqueeze(0).contiguous()
    k = case.key.repeat_interleave(group, dim=1).transpose(0, 1)
    v = case.value.repeat_interleave(group, dim=1).transpose(0, 1)
    k, v = k.unsqueeze(0).contiguous(), v.unsqueeze(0).contiguous()
    mask = causal_lower_right(case.q_len, case.seq_len)

    def fn():
        with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
            o = torch.nn.functional.scaled_dot_product_attention(
                q, k, v, attn_mask=mask, scale=case.scale
            )
        out.copy_(o[0].transpose(0, 1))

    return fn


def measure(name: str, fn, case: Case, out: torch.Tensor, ref) -> dict:
    out.fill_(float("nan"))
    fn()
    torch.cuda.synchronize()
    rows, ref_out = ref
    got = out[rows].float()
    has_nan = bool(torch.isnan(out).any())
    rel_l2 = float((got - ref_out).norm() / ref_out.norm())
    ms, clock = bench_ms_and_clock(fn)
    return {
        "method": name,
        "heads": f"{NUM_HEADS}/{NUM_KV_HEADS}/{HEAD_SIZE}",
        "page": case.page,
        "context": case.context,
        "q": case.q_len,
        "ms": ms,
        "tflops": causal_flops(case.q_len, case.context) / ms / 1e9,
        "rel_l2_vs_fp32": rel_l2,
        "nan": has_nan,
        "sm_clock_power": clock,
    }


SWEEP = [
    # (block_m, block_n, num_warps, num_stages); 64-row tiles were 45-50%
    # slower in an earlier run and are left out.
    (128, 64, 8, 3),
    (128, 64, 8, 2),
    (128, 32, 8, 3),
]


def sweep(q_len: int, context: int, page: int) -> list[dict]:
    case = Case(q_len, context, page)
    out = torch.empty_like(case.query)
    ref = case.reference_rows(64)
    rows = []
    for bm, bn, w, s in SWEEP:
        cfg = dict(block_m=bm, block_n=bn, num_warps=w, num_stages=s)
        t0 = time.time()
        try:
            r = measure("aligned_triton", run_aligned(case, out, cfg), case, out, ref)
            r.update(cfg)
            r["compile_and_bench_s"] = time.time() - t0
        except Exception as e:  # out of shared memory and the like
            r = dict(cfg, error=f"{type(e).__name__}: {str(e)[:200]}")
        print("sweep", r, flush=True)
        rows.append(r)
    del case
    torch.cuda.empty_cache()
    return rows


def dispatched(rows: list[dict]) -> list[dict]:
    """What TRITON_ATTN runs per point with use_triton_paged_prefill: the
    aligned kernel where the page is a multiple of 64, unified_attention
    elsewhere, against what it replaces (unified_attention)."""
    by = {(r["method"], r.get("heads"), r["page"], r["context"]): r for r in rows}
    out = []
    for (method, heads, page, ctx), r in sorted(by.items()):
        if method != "unified":
            continue
        fast = by.get(("aligned_triton", heads, page, ctx)) if page % 64 == 0 else None
        d = fast or r
        out.append(
            {
                "heads": heads,
                "page": page,
                "context": ctx,
                "path": d["method"],
                "ms": d["ms"],
                "tflops": d["tflops"],
                "replaced_ms": r["ms"],
                "speedup_vs_replaced": r["ms"] / d["ms"],
            }
        )
    return out


def plot(result: dict, path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 5.5))
    rate = result["ceilings"]["bf16_matmul_tflops"]
    series: dict = {}
    for r in result["results"]:
        series.setdefault((r["method"], r.get("heads"), r["page"]), []).append(r)
    for (method, heads, page), rs in sorted(series.items()):
        rs.sort(key=lambda r: r["context"])
        ax.plot(
            [r["context"] / 1024 for r in rs],
            [r["tflops"] for r in rs],
            marker="o",
            label=f"{method} {heads} page {page}",
        )
    for frac in (0.45, 0.65):
        ax.axhline(rate * frac, ls="--", lw=0.8, color="grey")
        ax.text(0, rate * frac, f"{frac:.0%} of bf16 matmul", va="bottom")
    ax.set_xlabel("cached context (K tokens)")
    ax.set_ylabel("causal TFLOP/s")
    ax.set_title(
        f"q={result['q']} prefill chunk, heads {result['heads']}, bf16, "
        f"{result['environment']['gpu']} (matmul {rate:.0f} TFLOP/s)",
        fontsize=9,
    )
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", required=True, help="directory for JSON and PNG")
    p.add_argument("--q", type=int, default=4096)
    p.add_argument("--contexts", default="0,4096,12288,28672")
    p.add_argument("--pages", default="784,832")
    p.add_argument(
        "--baseline-pages",
        default="784,832",
        help="pages at which the page-agnostic baselines are measured too",
    )
    p.add_argument(
        "--sweep",
        action="store_true",
        help="also time a few tile configs of the aligned kernel (recorded; "
        "the results use the kernel's default config, the one the dispatch runs)",
    )
    p.add_argument("--config", default="", help="bm,bn,warps,stages override")
    p.add_argument(
        "--heads",
        default="24/4/256",
        help="query/kv/head_size shapes, comma-separated (each row records its own)",
    )
    p.add_argument("--skip", default="", help="comma-separated methods to leave out")
    args = p.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    contexts = [int(c) for c in args.contexts.split(",")]
    pages = [int(c) for c in args.pages.split(",")]
    baseline_pages = {int(c) for c in args.baseline_pages.split(",")}
    skip = set(filter(None, args.skip.split(",")))

    env = common.environment()
    print(env, flush=True)
    result: dict = {"environment": env, "q": args.q, "heads": args.heads}
    result["ceilings"] = ceilings()
    print(result["ceilings"], flush=True)
    result["flops_definition"] = (
        "4 * head_size * num_heads * k_eff, k_eff = sum over query rows i of "
        "(context + i + 1) = q * context + q * (q + 1) / 2 (causally visible "
        "keys only)"
    )

    config = None
    if args.sweep:
        result["sweep"] = sweep(args.q, 12288, 832)
    if args.config:
        bm, bn, w, s = (int(v) for v in args.config.split(","))
        config = dict(block_m=bm, block_n=bn, num_warps=w, num_stages=s)
    result["aligned_config"] = config or "kernel default"

    rows = []
    global NUM_HEADS, NUM_KV_HEADS, HEAD_SIZE
    for heads in args.heads.split(","):
        NUM_HEADS, NUM_KV_HEADS, HEAD_SIZE = (int(v) for v in heads.split("/"))
        for page in pages:
            for ctx in contexts:
                case = Case(args.q, ctx, page)
                out = torch.empty_like(case.query)
                ref = case.reference_rows()
                methods = []
                if page % 64 == 0 and "aligned_triton" not in skip:
                    methods.append(("aligned_triton", run_aligned(case, out, config)))
                if "rocm_attn_prefix" not in skip and page in baseline_pages:
                    methods.append(("rocm_attn_prefix", run_rocm_prefix(case, out)))
                if "unified" not in skip and page in baseline_pages:
                    methods.append(("unified", run_unified(case, out)))
                if "sdpa_flash" not in skip and page == 832:
                    methods.append(("sdpa_flash", run_sdpa(case, out)))
                for name, fn in methods:
                    try:
                        r = measure(name, fn, case, out, ref)
                    except Exception as e:
                        r = {
                            "method": name,
                            "heads": heads,
                            "page": page,
                            "context": ctx,
                            "error": f"{type(e).__name__}: {str(e)[:300]}",
                        }
                        print("ERROR", r, flush=True)
                        continue
                    c = result["ceilings"]
                    r["pct_of_matmul"] = 100 * r["tflops"] / c["bf16_matmul_tflops"]
                    r["pct_of_matmul_first"] = 100 * r["tflops"] / c["bf16_matmul_tflops_first"]
                    print(
                        f"{name:17s} {heads:10s} page {page:5d} ctx {ctx:6d}: {r['ms']:8.3f} ms "
                        f"{r['tflops']:7.1f} TFLOP/s ({r['pct_of_matmul']:5.1f}%) "
                        f"relL2 {r['rel_l2_vs_fp32']:.2e} nan={r['nan']}",
                        flush=True,
                    )
                    rows.append(r)
                del case, out
                torch.cuda.empty_cache()
                # Written after every case so that a cut-off run keeps its data.
                result["results"] = rows
                result["dispatched"] = dispatched(rows)
                with open(os.path.join(args.out, "bench_prefill_paged.json"), "w") as f:
                    json.dump(result, f, indent=1)
    plot(result, os.path.join(args.out, "bench_prefill_paged.png"))

    print("\nmethod            page   ctx      ms   TFLOP/s  %matmul")
    for r in rows:
        print(
            f"{r['method']:17s} {r['heads']:10s} {r['page']:5d} {r['context']:6d} {r['ms']:8.3f} "
            f"{r['tflops']:8.1f} {r['pct_of_matmul']:6.1f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
