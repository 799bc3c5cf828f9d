# SPDX-License-Identifier: Apache-2.0
"""ROCM_ATTN's default kernels reading an NHD cache through x-packed-shaped views.

A ROCM_ATTN layer without a paged-prefill provider keeps the x-packed split
cache (K [blocks, kv_heads, head // x, page, x], V [blocks, kv_heads, head,
page]); on it the page-contiguous decode op reads 57-81% of the read
bandwidth, on NHD [blocks, page, kv_heads, head] 90-106%. The kernels such a
layer runs besides the op (context_attention_fwd for prefill rows and
kernel_paged_attention_2d for decode rows, both behind
chunked_prefill_paged_decode) address the cache only through its strides, so
an NHD cache can be handed to them as views of x-packed shape:

  nhd_views  K: nhd.unflatten(-1, (head // x, x)).permute(0, 2, 3, 1, 4),
             x = 16 bytes as in the x-packed cache
  nhd_rows   K: nhd.unsqueeze(-2).permute(0, 2, 3, 1, 4), x = head: one
             piece per token row (both kernels take x as a compile-time
             constant, so the row is known contiguous)
  V (both):  nhd.permute(0, 2, 3, 1)

This times, on the same K/V data in both layouts, in one process:

  prefill   one chunk of Q tokens after C cached tokens (context_attention_fwd
            through chunked_prefill_paged_decode, as ROCM_ATTN calls it for
            the prefill rows of a step)
  step      D decodes at L tokens plus one chunk (--step-chunks), the
            whole step in one call (what a mixed batch captured whole in a
            CUDA graph runs)
  decode    D decodes at L tokens through kernel_paged_attention_2d (pure
            decode where the op is not used, e.g. with a fused output scale)
  op        D decodes at L tokens through decode_page_contiguous, each layout
            in its own form (x-packed, NHD)
  spec      D requests of 1 + --spec-tokens query tokens at L tokens (the
            verify step of speculative decoding, captured whole in a CUDA
            graph)

Each case runs chunked_prefill_paged_decode on the x-packed cache (the
baseline) and on the NHD views (nhd_rows; nhd_views with --x8-views); step,
decode and spec also run unified_attention on the NHD cache (unified_nhd),
what ROCM_ATTN runs for those rows on a layer kept NHD.

CUDA graph of several calls on distinct random block tables over a cache of
>= 2 GiB per layout (L2 holds little of a call's data), median of --reps
replays, per call. Outputs of the two layouts are compared with each other
and with an fp32 reference built from the paged cache (relative L2, NaN);
unused cache slots hold NaN.

    python3 benchmarks/experiments/rocm_default_layer_nhd.py --vllm-root BUNDLE --out-dir OUT

Writes OUT/<--tag>.json.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
import common  # noqa: E402

HEADS = "24/4/256,16/2/256,32/8/128,8/1/128,40/8/128"
PAGES = "64,544,784,1056"


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--vllm-root", default=None)
    p.add_argument("--out-dir", default=".")
    p.add_argument("--heads", default=HEADS)
    p.add_argument("--pages", default=PAGES)
    p.add_argument("--cases", default="prefill,step,decode,op")
    p.add_argument(
        "--chunks",
        default="512@8192,4096@0,4096@16384",
        help="prefill cases: query tokens @ cached tokens, comma-separated",
    )
    p.add_argument(
        "--step-chunks",
        default="4096@8192",
        help="step cases: the prefill chunk beside the decodes, query tokens @ "
        "cached tokens, comma-separated",
    )
    p.add_argument("--spec-tokens", type=int, default=3)
    p.add_argument("--reps", type=int, default=7)
    p.add_argument("--cache-gib", type=float, default=3.0)
    p.add_argument("--tag", default="rocm_default_layer_nhd")
    p.add_argument(
        "--x8-views",
        action="store_true",
        help="also time the nhd_views layout (x = 16 bytes)",
    )
    return p.parse_args(argv)


def x_packed_views_of_nhd(k_nhd, v_nhd, x):
    k = k_nhd.unflatten(-1, (k_nhd.shape[-1] // x, x)).permute(0, 2, 3, 1, 4)
    return k, v_nhd.permute(0, 2, 3, 1)


class Cache:
    """One random K/V store in both layouts: x-packed split caches and the
    NHD cache of ROCM_ATTN's bound view ([blocks, 2, page, kv_heads, head]);
    block 0 is never handed out and every unwritten slot is NaN."""

    def __init__(self, nkv, hs, page, gib, dtype):
        import torch

        self.nkv, self.hs, self.page, self.dtype = nkv, hs, page, dtype
        per_block = 2 * page * nkv * hs * 2
        self.num_blocks = max(64, int(gib * 2**30) // per_block)
        x = 16 // 2
        nan = float("nan")
        self.kx = torch.full(
            (self.num_blocks, nkv, hs // x, page, x), nan, dtype=dtype, device="cuda"
        )
        self.vx = torch.full((self.num_blocks, nkv, hs, page), nan, dtype=dtype, device="cuda")
        kvn = torch.full((self.num_blocks, 2, page, nkv, hs), nan, dtype=dtype, device="cuda")
        self.kn, self.vn = kvn.unbind(1)
        self.next_block = 1

    def sequence(self, seq_len, g):
        """A block-table row for a new sequence of seq_len random tokens."""
        import torch

        n = math.ceil(seq_len / self.page)
        if self.next_block + n > self.num_blocks:
            return None
        blocks = torch.arange(self.next_block, self.next_block + n, device="cuda")
        self.next_block += n
        k = torch.randn(n * self.page, self.nkv, self.hs, generator=g, device="cuda")
        v = torch.randn(n * self.page, self.nkv, self.hs, generator=g, device="cuda")
        k[seq_len:] = float("nan")
        v[seq_len:] = float("nan")
        k = k.to(self.dtype).view(n, self.page, self.nkv, self.hs)
        v = v.to(self.dtype).view(n, self.page, self.nkv, self.hs)
        self.kn[blocks] = k
        self.vn[blocks] = v
        self.kx[blocks] = k.unflatten(-1, (self.hs // 8, 8)).permute(0, 2, 3, 1, 4)
        self.vx[blocks] = v.permute(0, 2, 3, 1)
        return blocks.to(torch.int32)

    def layouts(self, kind, x8_views):
        """The layouts a case is timed on: the x-packed cache first (the
        baseline), then the NHD cache read through views by the same kernels,
        and read by what a layer kept NHD runs instead (unified_nhd,
        decode_page_contiguous's nhd)."""
        if kind == "op":
            return {"xpacked": (self.kx, self.vx), "nhd": (self.kn, self.vn)}
        out = {"xpacked": (self.kx, self.vx)}
        if x8_views:
            out["nhd_views"] = x_packed_views_of_nhd(self.kn, self.vn, 8)
        out["nhd_rows"] = x_packed_views_of_nhd(self.kn, self.vn, self.hs)
        if kind != "prefill":
            out["unified_nhd"] = (self.kn, self.vn)
        return out

    def gather(self, row, seq_len):
        k = self.kn[row.long()].flatten(0, 1)[:seq_len].float()
        v = self.vn[row.long()].flatten(0, 1)[:seq_len].float()
        return k, v


def reference(q, k, v, context, scale):
    """fp32 causal attention of q rows (positions context..) over k/v."""
    import torch

    nh, nkv = q.shape[1], k.shape[1]
    k = k.repeat_interleave(nh // nkv, 1)
    v = v.repeat_interleave(nh // nkv, 1)
    s = torch.einsum("qhd,khd->hqk", q.float(), k) * scale
    rows = torch.arange(q.shape[0], device=q.device)[:, None] + context
    cols = torch.arange(k.shape[0], device=q.device)[None, :]
    s = s.masked_fill((cols > rows)[None], float("-inf"))
    return torch.einsum("hqk,khd->qhd", torch.softmax(s, -1), v)


class Batch:
    """Requests (query_len, seq_len) on `copies` distinct sets of blocks."""

    def __init__(self, cache, nh, requests, copies, g):
        import torch

        self.requests = requests
        self.nh = nh
        self.tables, self.rows = [], []
        # Every batch starts over at block 1 (earlier batches are done).
        cache.next_block = 1
        for _ in range(copies):
            rows = [cache.sequence(s, g) for _, s in requests]
            if any(r is None for r in rows):
                break
            width = max(r.numel() for r in rows)
            table = torch.zeros(len(rows), width, dtype=torch.int32, device="cuda")
            for i, r in enumerate(rows):
                table[i, : r.numel()] = r
            self.tables.append(table)
            self.rows.append(rows)
        qlens = [q for q, _ in requests]
        self.num_tokens = sum(qlens)
        self.query = torch.randn(self.num_tokens, nh, cache.hs, generator=g, device="cuda").to(
            cache.dtype
        )
        self.cu = torch.tensor([0] + qlens, device="cuda").cumsum(0).to(torch.int32)
        self.seq_lens = torch.tensor([s for _, s in requests], dtype=torch.int32, device="cuda")
        self.max_q, self.max_s = max(qlens), max(s for _, s in requests)
        self.out = torch.empty_like(self.query)
        # The step's new K/V (ROCM_ATTN passes them besides the cache): the
        # last query_len tokens of each request, from the last copy.
        new = [
            [t[s - q : s] for t in cache.gather(row, s)]
            for (q, s), row in zip(requests, self.rows[-1] if self.rows else [])
        ]
        self.key = torch.cat([k for k, _ in new]).to(cache.dtype) if new else None
        self.value = torch.cat([v for _, v in new]).to(cache.dtype) if new else None


def run_cppd(batch, k, v, table, scale):
    import torch

    from vllm.v1.attention.ops.chunked_prefill_paged_decode import (
        chunked_prefill_paged_decode,
    )

    one = torch.ones((), dtype=torch.float32, device="cuda")
    return lambda: chunked_prefill_paged_decode(
        query=batch.query,
        key=batch.key,
        value=batch.value,
        output=batch.out,
        kv_cache_dtype="auto",
        key_cache=k,
        value_cache=v,
        block_table=table,
        query_start_loc=batch.cu,
        seq_lens=batch.seq_lens,
        max_seq_len=batch.max_s,
        max_query_len=batch.max_q,
        k_scale=one,
        v_scale=one,
        alibi_slopes=None,
        sliding_window=0,
        sm_scale=scale,
    )


def run_unified(batch, k, v, table, scale):
    from vllm.v1.attention.ops.triton_unified_attention import unified_attention

    return lambda: unified_attention(
        q=batch.query,
        k=k,
        v=v,
        out=batch.out,
        cu_seqlens_q=batch.cu,
        max_seqlen_q=batch.max_q,
        seqused_k=batch.seq_lens,
        max_seqlen_k=batch.max_s,
        softmax_scale=scale,
        causal=True,
        window_size=(-1, -1),
        block_table=table,
        softcap=0,
        q_descale=None,
        k_descale=None,
        v_descale=None,
    )


def run_op(batch, k, v, table, scale, workspace):
    from vllm.v1.attention.ops.decode_page_contiguous import decode_page_contiguous

    return lambda: decode_page_contiguous(
        batch.query,
        k,
        v,
        batch.out,
        table,
        batch.seq_lens,
        scale,
        workspace=workspace,
    )


def cases(kind, args):
    if kind == "prefill":
        for chunk in args.chunks.split(","):
            q, c = (int(v) for v in chunk.split("@"))
            yield f"Q={q} C={c}", [(q, q + c)]
    elif kind == "spec":
        q = 1 + args.spec_tokens
        for d, n in ((4, 16384), (16, 4096), (64, 4096), (16, 16384)):
            yield f"D={d} L={n} q={q}", [(q, n)] * d
    elif kind == "step":
        for chunk in args.step_chunks.split(","):
            q, c = (int(v) for v in chunk.split("@"))
            for d, n in ((9, 16384), (64, 4096)):
                yield f"D={d} L={n} +{q}@{c}", [(1, n)] * d + [(q, q + c)]
    else:
        for d, n in ((4, 16384), (16, 32768), (64, 4096)):
            yield f"D={d} L={n}", [(1, n)] * d


def main(argv=None):
    args = parse_args(argv)
    common.use_vllm_root(args.vllm_root)
    common.stub_rocm_platform_module()
    import torch

    stood_in = common.import_with_stand_ins(
        lambda: __import__("vllm.v1.attention.ops.chunked_prefill_paged_decode", fromlist=["x"])
    )
    from vllm.v1.attention.ops import decode_page_contiguous as opmod

    env = common.environment()
    env["stood_in"] = stood_in
    env["ceilings"] = common.ceilings()
    common.log(f"ceilings {env['ceilings']}")
    rows = []
    g = torch.Generator(device="cuda").manual_seed(0)
    for heads in args.heads.split(","):
        nh, nkv, hs = (int(t) for t in heads.split("/"))
        scale = hs**-0.5
        for page in common.ints(args.pages):
            cache = Cache(nkv, hs, page, args.cache_gib, torch.bfloat16)
            for kind in args.cases.split(","):
                for label, requests in cases(kind, args):
                    # Several block tables per graph where a call is short.
                    copies = 2 if max(q for q, _ in requests) >= 1024 else 8
                    batch = Batch(cache, nh, requests, copies, g)
                    if not batch.tables:
                        common.log(f"skip {heads} p{page} {kind} {label}: cache")
                        continue
                    row = {
                        "heads": heads,
                        "page": page,
                        "case": kind,
                        "label": label,
                        "calls_per_graph": len(batch.tables),
                    }
                    outs = {}
                    layouts = cache.layouts(kind, args.x8_views)
                    if kind == "op":
                        ws = torch.empty(
                            opmod.decode_page_contiguous_workspace_numel(
                                nh, nkv, hs, torch.bfloat16, torch.device("cuda")
                            ),
                            dtype=torch.float32,
                            device="cuda",
                        )
                    for name, (k, v) in layouts.items():
                        if kind == "op":
                            fns = [run_op(batch, k, v, t, scale, ws) for t in batch.tables]
                        elif name == "unified_nhd":
                            fns = [run_unified(batch, k, v, t, scale) for t in batch.tables]
                        else:
                            fns = [run_cppd(batch, k, v, t, scale) for t in batch.tables]

                        def call(fns=fns):
                            for fn in fns:
                                fn()

                        batch.out.fill_(float("nan"))
                        fns[-1]()
                        outs[name] = batch.out.clone()
                        us = common.graph_time_us(call, reps=args.reps)
                        row[f"{name}_us"] = us / len(fns)
                    base = outs["xpacked"].float()
                    row["max_abs_diff"] = max(
                        (o.float() - base).abs().max().item() for o in outs.values()
                    )
                    # fp32 reference on the last rows of the last request of
                    # the last copy (the rows the graph's last call wrote).
                    ql, sl = requests[-1]
                    n = min(ql, 256)
                    k32, v32 = cache.gather(batch.rows[-1][-1], sl)
                    ref = reference(batch.query[-n:], k32, v32, sl - n, scale)
                    rel = {}
                    for name, o in outs.items():
                        o = o[-n:].float()
                        rel[name] = ((o - ref).norm() / ref.norm()).item()
                        row[f"{name}_nan"] = bool(torch.isnan(outs[name]).any())
                    row["rel_l2"] = rel
                    names = list(outs)
                    for name in names[1:]:
                        row[f"{name}_ratio"] = row[f"{name}_us"] / row["xpacked_us"]
                    rows.append(row)
                    save(args, env, rows)
                    common.log(
                        f"{heads} p{page} {kind:7s} {label:22s} "
                        + " ".join(f"{n} {row[n + '_us']:9.1f}us" for n in names)
                        + " ratios "
                        + " ".join(f"{row[n + '_ratio']:.3f}" for n in names[1:])
                        + f" rel<={max(rel.values()):.1e}"
                    )
            del cache
            torch.cuda.empty_cache()
    save(args, env, rows)
    return 0


def save(args, env, rows):
    """Written after every point, so a run cut short keeps what it measured."""
    os.makedirs(args.out_dir, exist_ok=True)
    with open(os.path.join(args.out_dir, f"{args.tag}.json"), "w") as f:
        json.dump({"environment": env, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
