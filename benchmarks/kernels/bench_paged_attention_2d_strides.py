# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the vLLM project
"""ROCM_ATTN's Triton decode kernel with its unit strides typed tl.int64 or specialized.

kernel_paged_attention_2d (vllm/v1/attention/ops/chunked_prefill_paged_decode.py)
is the decode kernel ROCM_ATTN runs wherever ROCm's HIP paged_attention_rocm
does not serve (pages that are not 16/32, head 256, fp32, stride-padded hybrid
caches, sinks...). Its stride parameters are annotated ``tl.int64``. Triton
3.x drops the "equals 1" specialization of an annotated integer, so the unit
strides of K (``stride_k_cache_4``) and V (``stride_v_cache_3``) stay runtime
values and no K/V load is vectorized. Both variants are built from the
tree's own source in one process (only those two annotations differ):

  int64_unit_strides   stride_k_cache_4 / stride_v_cache_3 typed tl.int64
                       (vLLM 0.33.0 as released)
  specialized          the two annotations removed (Triton specializes 1)

For every page, head shape, batch and KV length: time of a CUDA graph of up
to 16 calls on distinct random block tables over a KV cache of >= 2 GiB
(so a call finds little of its data in L2), median of --reps replays, per
call; KV bytes read per call / time against a read-only bandwidth measured
in the same run; the two variants' outputs compared (max abs difference)
and, on small points, against an fp32 reference gathered from the cache.
Each point also records which kernel ROCM_ATTN runs there on ROCm with the
page-contiguous decode route (``path_on_rocm``: this kernel, the HIP kernel,
or the page-contiguous op), as far as the tree has that route.

Writes <tag>.json and <tag>.png (time ratio specialized / int64) under --out-dir.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import common  # noqa: E402

PAGES = "16,32,64,544,784,1056"
HEADS = "32/8/128,32/32/128,8/1/128,16/16/64,24/4/256"
BATCHES = "1,16,64,256"
SEQ_LENS = "1024,4096,16384"
UNIT_STRIDES = ("stride_k_cache_4", "stride_v_cache_3")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--vllm-root", default=None, help="path that holds vllm/")
    p.add_argument("--out-dir", default=".")
    p.add_argument("--pages", default=PAGES)
    p.add_argument("--heads", default=HEADS, help="q/kv/head_size,...")
    p.add_argument("--batches", default=BATCHES)
    p.add_argument("--seq-lens", default=SEQ_LENS)
    p.add_argument("--dtype", default="bfloat16", choices=("bfloat16", "float16", "float32"))
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--cache-gib", type=float, default=24.0, help="largest KV cache allocated")
    p.add_argument("--tag", default="paged_attention_2d_strides")
    return p.parse_args(argv)


ints = common.ints


def variants() -> dict[str, object]:
    """The tree's chunked_prefill_paged_decode module in both forms."""
    from vllm.v1.attention.ops import chunked_prefill_paged_decode as tree

    src = open(tree.__file__).read()
    # Loaded from a temporary file, outside its package.
    src = src.replace(
        "from .prefix_prefill import", "from vllm.v1.attention.ops.prefix_prefill import"
    )
    out = {}
    for name, typed in (("int64_unit_strides", True), ("specialized", False)):
        edits = []
        for stride in UNIT_STRIDES:
            pattern = re.compile(rf"^(\s*{stride})(: tl\.int64)?,", re.M)
            if len(pattern.findall(src)) != 1:
                raise ValueError(f"{stride} not found once in {tree.__file__}")
            repl = r"\1: tl.int64," if typed else r"\1,"
            edits.append(lambda s, p=pattern, r=repl: p.sub(r, s))
        out[name] = common.edited_module(src, f"cppd_{name}", edits)[0]
    return out


def path_on_rocm(page: int, hq: int, hk: int, hs: int, dtype) -> str:
    """What ROCM_ATTN runs for a pure-decode batch on ROCm (CDNA, bf16/fp16,
    no window, sinks or ALiBi): the HIP kernel for pages 16/32 and head
    64/128 (use_rocm_custom_paged_attention), the page-contiguous op where
    the tree routes it, this kernel elsewhere."""
    try:
        from vllm.v1.attention.ops.decode_page_contiguous import (
            page_contiguous_decode_is_faster,
        )
    except ImportError:
        page_contiguous_decode_is_faster = None
    if page_contiguous_decode_is_faster is not None and page_contiguous_decode_is_faster(
        page, hs, hq // hk, dtype
    ):
        return "page_contiguous_op"
    if hs in (64, 128) and page in (16, 32) and dtype.itemsize == 2 and hq // hk <= 16:
        return "hip_kernel"
    return "this_kernel"


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    common.use_vllm_root(args.vllm_root)
    common.stub_rocm_platform_module()
    import torch

    dtype = getattr(torch, args.dtype)
    device = torch.device("cuda")
    env = common.environment()
    common.log(f"{env}")
    ceil = common.ceilings()
    common.log(f"ceilings {ceil}")
    mods = variants()
    result: dict = {"environment": env, "ceilings": ceil, "dtype": args.dtype, "points": []}
    json_path = os.path.join(args.out_dir, f"{args.tag}.json")
    os.makedirs(args.out_dir, exist_ok=True)

    for heads in args.heads.split(","):
        hq, hk, hs = (int(v) for v in heads.split("/"))
        x = 16 // dtype.itemsize
        for page in ints(args.pages):
            token_bytes = 2 * hk * hs * dtype.itemsize
            max_need = max(ints(args.batches)) * max(ints(args.seq_lens))
            nblocks = max(
                math.ceil(2 * 2**30 / (token_bytes * page)),
                math.ceil(max_need / page) + 4 * max(ints(args.batches)),
            )
            nblocks = min(nblocks, int(args.cache_gib * 2**30 / (token_bytes * page)))
            k = torch.empty((nblocks, hk, hs // x, page, x), dtype=dtype, device=device)
            v = torch.empty((nblocks, hk, hs, page), dtype=dtype, device=device)
            gen = torch.Generator(device=device).manual_seed(page * 31 + hq)
            k.normal_(generator=gen)
            v.normal_(generator=gen)
            ones = torch.ones((), dtype=torch.float32, device=device)
            for batch in ints(args.batches):
                for seq_len in ints(args.seq_lens):
                    pages = math.ceil(seq_len / page)
                    if batch * pages > nblocks:
                        result["points"].append(
                            dict(heads=heads, page=page, batch=batch, seq_len=seq_len,
                                 skipped=f"needs {batch * pages} blocks, cache has {nblocks}")
                        )  # fmt: skip
                        continue
                    calls = max(1, min(16, nblocks // (batch * pages)))
                    q = torch.randn((batch, hq, hs), dtype=dtype, device=device)
                    lens = torch.full((batch,), seq_len, dtype=torch.int32, device=device)
                    cu_q = torch.arange(batch + 1, dtype=torch.int32, device=device)
                    tables = []
                    for _ in range(calls):
                        perm = torch.randperm(nblocks, device=device, generator=gen)
                        tables.append(perm[: batch * pages].to(torch.int32).view(batch, pages))
                    outs = {name: torch.empty_like(q) for name in mods}

                    def fn(mod, out):
                        def run():
                            for table in tables:
                                mod.chunked_prefill_paged_decode(
                                    query=q, key=None, value=None, output=out,
                                    kv_cache_dtype="auto", key_cache=k, value_cache=v,
                                    block_table=table, query_start_loc=cu_q, seq_lens=lens,
                                    max_seq_len=seq_len, max_query_len=1, k_scale=ones,
                                    v_scale=ones, sliding_window=0, sm_scale=hs**-0.5,
                                )  # fmt: skip

                        return run

                    point = dict(heads=heads, page=page, batch=batch, seq_len=seq_len,
                                 calls_per_graph=calls,
                                 path_on_rocm=path_on_rocm(page, hq, hk, hs, dtype))  # fmt: skip
                    times = {}
                    for name, mod in mods.items():
                        run = fn(mod, outs[name])
                        samples = [common.graph_time_us(run, reps=3) for _ in range(args.reps)]
                        times[name] = statistics.median(samples) / calls
                    read = batch * seq_len * token_bytes
                    point.update(
                        {f"{n}_us": t for n, t in times.items()},
                        ratio=times["specialized"] / times["int64_unit_strides"],
                        specialized_pct_read_bw=100
                        * read
                        / (times["specialized"] * 1e-6)
                        / (ceil["read_bandwidth_TBps"] * 1e12),
                        int64_pct_read_bw=100
                        * read
                        / (times["int64_unit_strides"] * 1e-6)
                        / (ceil["read_bandwidth_TBps"] * 1e12),
                        max_abs_diff=float(
                            (outs["specialized"].float() - outs["int64_unit_strides"].float())
                            .abs()
                            .max()
                        ),
                    )
                    if batch * seq_len <= 64 * 1024:
                        # fp32 reference of the last call's table.
                        table = tables[-1].long()
                        kk = k[table].permute(0, 1, 4, 2, 3, 5).reshape(batch, pages * page, hk, hs)
                        vv = v[table].permute(0, 1, 4, 2, 3).reshape(batch, pages * page, hk, hs)
                        kk = kk[:, :seq_len].float().repeat_interleave(hq // hk, dim=2)
                        vv = vv[:, :seq_len].float().repeat_interleave(hq // hk, dim=2)
                        s = torch.einsum("bhd,bnhd->bhn", q.float(), kk) * hs**-0.5
                        ref = torch.einsum("bhn,bnhd->bhd", s.softmax(-1), vv)
                        for name in mods:
                            err = (outs[name].float() - ref).norm() / ref.norm()
                            point[f"{name}_rel_l2"] = float(err)
                    common.log(
                        f"{heads:10s} page {page:5d} B {batch:4d} L {seq_len:6d} "
                        f"int64 {times['int64_unit_strides']:9.1f} us  "
                        f"specialized {times['specialized']:9.1f} us  "
                        f"ratio {point['ratio']:.3f}  ({point['path_on_rocm']})"
                    )
                    result["points"].append(point)
                    with open(json_path, "w") as f:
                        json.dump(result, f, indent=1)
            k = v = None  # free the cache before the next page
            torch.cuda.empty_cache()
    plot(result, os.path.join(args.out_dir, f"{args.tag}.png"))
    ratios = [p["ratio"] for p in result["points"] if "ratio" in p]
    served = [p["ratio"] for p in result["points"] if p.get("path_on_rocm") == "this_kernel"]
    common.log(
        f"ratio specialized/int64: all {min(ratios):.3f}-{max(ratios):.3f}; "
        f"where ROCm runs this kernel {min(served, default=0):.3f}-{max(served, default=0):.3f}"
    )
    return 0


def plot(result: dict, path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    points = [p for p in result["points"] if "ratio" in p]
    heads = sorted({p["heads"] for p in points})
    fig, axes = plt.subplots(1, len(heads), figsize=(4.2 * len(heads), 4.5), squeeze=False)
    for ax, h in zip(axes[0], heads):
        pts = [p for p in points if p["heads"] == h]
        rows = sorted({(p["batch"], p["seq_len"]) for p in pts})
        cols = sorted({p["page"] for p in pts})
        grid = [[math.nan] * len(cols) for _ in rows]
        for p in pts:
            grid[rows.index((p["batch"], p["seq_len"]))][cols.index(p["page"])] = p["ratio"]
        im = ax.imshow(grid, cmap="RdYlGn_r", vmin=0.5, vmax=1.5, aspect="auto")
        for i, row in enumerate(grid):
            for j, val in enumerate(row):
                if not math.isnan(val):
                    ax.text(j, i, f"{val:.2f}", ha="center", va="center", fontsize=6)
        ax.set_xticks(range(len(cols)), [str(c) for c in cols])
        ax.set_yticks(range(len(rows)), [f"B{b} L{s // 1024}K" for b, s in rows], fontsize=6)
        ax.set_title(f"{h}", fontsize=9)
        ax.set_xlabel("page")
    fig.colorbar(im, ax=axes[0].tolist(), shrink=0.8, label="time specialized / int64")
    fig.suptitle(
        f"kernel_paged_attention_2d, {result['dtype']}, {result['environment'].get('gpu')}",
        fontsize=10,
    )
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    sys.exit(main())
