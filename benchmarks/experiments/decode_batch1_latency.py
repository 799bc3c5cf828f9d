# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the vLLM project
"""Where decode_page_contiguous spends its time at batch 1 (issue 4).

At batch 1 the op is two kernels (split main kernel + combine). This script
times, with the decode benchmark's method (one CUDA-graph replay, L2 flushed
by a 512 MiB read before each replay, untimed):
  * floor: graphs of one and of two empty kernels;
  * the op as shipped, and each of its two kernels alone;
  * split counts around the shipped rule;
  * the combine launched with programmatic dependent launch (PDL, CUDA only):
    the combine waits in griddepcontrol.wait instead of behind a full launch,
    with and without an early trigger in the main kernel;
  * the combine's grid and warps, 3 pipeline stages;
  * edits of the kernel source (prefetched block ids, the last tile inside
    the loop, one loop over all tiles): written against the op before it
    got its single tile loop; with the current op they report themselves
    not applicable.
Per-kernel durations inside the graph come from torch.profiler.

    PYTHONPATH=BUNDLE python3 benchmarks/experiments/decode_batch1_latency.py --out OUT
"""

import argparse
import json
import os
import statistics
import sys

import torch
import triton
import triton.language as tl
from triton.language.extra.cuda import gdc_launch_dependents, gdc_wait

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, ".."), os.path.join(HERE, "..", "kernels")]
from common import edited_module, environment, log  # noqa: E402

import vllm.v1.attention.ops.decode_page_contiguous as op  # noqa: E402

P = argparse.ArgumentParser()
P.add_argument("--out", default=".")
P.add_argument("--reps", type=int, default=100)
P.add_argument("--variants", default="shipped,main_only,pdl")
P.add_argument("--batches", default="1")
ARGS = P.parse_args()
sys.argv = sys.argv[:1]  # the decode benchmark parses its own at import
import bench_decode_page_contiguous as B  # noqa: E402
DEV = torch.device("cuda")
DT = torch.bfloat16


def time_graph(fn, reps=ARGS.reps):
    """The decode benchmark's timing, plus per-kernel durations of a few
    replays (same cold-L2 flush before each)."""
    us = B.time_graph(fn, reps)
    fn()
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        fn()
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(10):
            torch.sum(B._FLUSH[0], dim=0, dtype=torch.float32, out=B._FLUSH[1])
            g.replay()
        torch.cuda.synchronize()
    kernels = {}
    for e in prof.events():
        if e.device_type.name == "CUDA" and "reduce_sum" not in e.name and "Reduce" not in e.name:
            kernels.setdefault(e.name[:60], []).append(e.device_time)
    del g
    return us, {k: statistics.median(v) for k, v in kernels.items()}


@triton.jit
def _nop(x_ptr):
    tl.store(x_ptr + tl.program_id(0), 1.0)


ORIG_MAIN = op._decode_page_contiguous_kernel
ORIG_REDUCE = op._decode_page_contiguous_reduce_kernel


@triton.jit
def _reduce_pdl(out_ptr, part_out_ptr, part_max_ptr, part_sum_ptr, num_splits,
                stride_o_seq, stride_o_head, NUM_QUERY_HEADS: tl.constexpr,
                HEAD_SIZE: tl.constexpr, HEAD_SIZE_PADDED: tl.constexpr,
                NUM_SPLITS_PADDED: tl.constexpr, DIM_BLOCK: tl.constexpr):
    gdc_wait()
    ORIG_REDUCE(out_ptr, part_out_ptr, part_max_ptr, part_sum_ptr, num_splits,
                stride_o_seq, stride_o_head, NUM_QUERY_HEADS, HEAD_SIZE,
                HEAD_SIZE_PADDED, NUM_SPLITS_PADDED, DIM_BLOCK)


@triton.jit
def _main_trigger(out_ptr, q_ptr, k_ptr, v_ptr, block_table_ptr, seq_lens_ptr,
                  part_out_ptr, part_max_ptr, part_sum_ptr, qk_scale, num_splits,
                  s0, s1, s2, s3, s4, s5, s6, s7, s8,
                  stride_k_dim_hi: tl.constexpr, stride_k_tok: tl.constexpr,
                  stride_v_dim: tl.constexpr, stride_v_tok: tl.constexpr,
                  NUM_QUERY_HEADS: tl.constexpr, NUM_KV_HEADS: tl.constexpr,
                  QUERIES_PER_KV: tl.constexpr, QUERIES_PER_KV_PADDED: tl.constexpr,
                  HEAD_SIZE: tl.constexpr, HEAD_SIZE_PADDED: tl.constexpr,
                  PAGE_SIZE: tl.constexpr, TILE_SIZE: tl.constexpr, X: tl.constexpr,
                  USE_SPLITS: tl.constexpr, DOT_PRECISION: tl.constexpr):
    gdc_launch_dependents()
    ORIG_MAIN(out_ptr, q_ptr, k_ptr, v_ptr, block_table_ptr, seq_lens_ptr,
              part_out_ptr, part_max_ptr, part_sum_ptr, qk_scale, num_splits,
              s0, s1, s2, s3, s4, s5, s6, s7, s8, stride_k_dim_hi, stride_k_tok,
              stride_v_dim, stride_v_tok, NUM_QUERY_HEADS, NUM_KV_HEADS,
              QUERIES_PER_KV, QUERIES_PER_KV_PADDED, HEAD_SIZE, HEAD_SIZE_PADDED,
              PAGE_SIZE, TILE_SIZE, X, USE_SPLITS, DOT_PRECISION)


# Block-table reads one page ahead (and the tail page's up front), so that
# no dependent block-table read sits between two pages' tile loads.
PREFETCH_BT = [
    (
        """    for page_idx in range(
        tile_start // TILES_PER_PAGE, tl.cdiv(loop_end, TILES_PER_PAGE)
    ):
        block_idx = tl.load(block_table_row + page_idx).to(tl.int64)
""",
        """    first_page = tile_start // TILES_PER_PAGE
    end_page = tl.cdiv(loop_end, TILES_PER_PAGE)
    tail_block = tl.load(
        block_table_row + last_page, mask=has_last_tile, other=0
    ).to(tl.int64)
    next_block = tl.load(
        block_table_row + first_page, mask=first_page < end_page, other=0
    ).to(tl.int64)
    for page_idx in range(first_page, end_page):
        block_idx = next_block
        next_block = tl.load(
            block_table_row + page_idx + 1, mask=page_idx + 1 < end_page, other=0
        ).to(tl.int64)
""",
    ),
    (
        "        block_idx = tl.load(block_table_row + last_page).to(tl.int64)\n",
        "        block_idx = tail_block\n",
    ),
]


def source_variant(name, replacements):
    """The op's module with its kernel source edited; None where the edit
    does not apply (the edits target the op before its single tile loop)."""
    try:
        return edited_module(open(op.__file__).read(), f"dpc_{name}", replacements)[0]
    except ValueError:
        log(f"variant {name}: not applicable to this version of the op")
        return None


PREFETCH_MOD = source_variant("prefetch_bt", PREFETCH_BT)
# On top: the sequence's last tile stays in the pipelined loop with a
# runtime token bound instead of running after it.
TAIL_IN_LOOP = [
    (
        "    loop_end = tl.where(has_last_tile, tile_end - 1, tile_end)\n",
        "    loop_end = tile_end\n",
    ),
    ("                page_offs < PAGE_SIZE,\n",
     "                page_offs < tl.where(page_idx == last_page, tail_tokens, PAGE_SIZE),\n"),
    ("    if has_last_tile:\n", "    if has_last_tile & (num_tiles < 0):\n"),
]
TAIL_MOD = source_variant("tail_in_loop", PREFETCH_BT + TAIL_IN_LOOP)
# One pipelined loop over all tiles instead of pages x tiles: the next
# tile's block id is read one iteration ahead, so loads run on across page
# boundaries instead of draining at each one.
FLAT_LOOP = [
    (
        """    for page_idx in range(
        tile_start // TILES_PER_PAGE, tl.cdiv(loop_end, TILES_PER_PAGE)
    ):
        block_idx = tl.load(block_table_row + page_idx).to(tl.int64)
        k_page_ptr = k_head_ptr + block_idx * stride_k_blk
        v_page_ptr = v_head_ptr + block_idx * stride_v_blk
        first = tl.maximum(tile_start - page_idx * TILES_PER_PAGE, 0)
        last = tl.minimum(loop_end - page_idx * TILES_PER_PAGE, TILES_PER_PAGE)
        for tile_idx in range(first, last):
            page_offs = tile_idx * TILE_SIZE + offs_t
            m_i, l_i, acc = _attend_tile(
                q,
                m_i,
                l_i,
                acc,
                k_page_ptr,
                v_page_ptr,
""",
        """    blk = tl.load(
        block_table_row + tile_start // TILES_PER_PAGE,
        mask=tile_start < loop_end,
        other=0,
    ).to(tl.int64)
    for tile_idx in range(tile_start, loop_end):
        next_blk = tl.load(
            block_table_row + (tile_idx + 1) // TILES_PER_PAGE,
            mask=tile_idx + 1 < loop_end,
            other=0,
        ).to(tl.int64)
        if True:
            page_offs = (tile_idx % TILES_PER_PAGE) * TILE_SIZE + offs_t
            m_i, l_i, acc = _attend_tile(
                q,
                m_i,
                l_i,
                acc,
                k_head_ptr + blk * stride_k_blk,
                v_head_ptr + blk * stride_v_blk,
""",
    ),
    (
        """                DOT_PRECISION,
            )
    if has_last_tile:
""",
        """                DOT_PRECISION,
            )
        blk = next_blk
    if has_last_tile:
""",
    ),
]
FLAT_MOD = source_variant("flat", FLAT_LOOP)


class _Launch:
    """Stand-in for a kernel in op's namespace: kernel[grid](...) with extras;
    dim_block re-splits the combine's grid over the head dim."""

    def __init__(self, kernel, skip=False, dim_block=None, **extra):
        self.kernel, self.skip, self.dim_block, self.extra = kernel, skip, dim_block, extra

    def __getitem__(self, grid):
        def run(*args, **kwargs):
            if self.skip:
                return
            g = grid
            if self.dim_block:
                g = (grid[0], grid[1], kwargs["HEAD_SIZE_PADDED"] // self.dim_block)
                kwargs["DIM_BLOCK"] = self.dim_block
            kwargs.update(self.extra)
            self.kernel[g](*args, **kwargs)
        return run


VARIANTS = {
    "shipped": (ORIG_MAIN, ORIG_REDUCE),
    "main_only": (ORIG_MAIN, _Launch(ORIG_REDUCE, skip=True)),
    "pdl": (ORIG_MAIN, _Launch(_reduce_pdl, launch_pdl=True)),
    "pdl_trigger": (_Launch(_main_trigger), _Launch(_reduce_pdl, launch_pdl=True)),
    "combine_dim16_w4": (ORIG_MAIN, _Launch(ORIG_REDUCE, dim_block=16)),
    "combine_dim32_w4": (ORIG_MAIN, _Launch(ORIG_REDUCE, dim_block=32)),
    "combine_dim32_w2": (ORIG_MAIN, _Launch(ORIG_REDUCE, dim_block=32, num_warps=2)),
    "combine_dim64_w2": (ORIG_MAIN, _Launch(ORIG_REDUCE, dim_block=64, num_warps=2)),
    "combine_dim128_w8": (ORIG_MAIN, _Launch(ORIG_REDUCE, dim_block=128, num_warps=8)),
    "shipped_3_stages": (_Launch(ORIG_MAIN, num_stages=3), ORIG_REDUCE),
}
for _name, _mod, _stages in (
    ("prefetch_bt", PREFETCH_MOD, None),
    ("prefetch_tail_in_loop", TAIL_MOD, None),
    ("flat_loop", FLAT_MOD, None),
    ("flat_loop_3_stages", FLAT_MOD, 3),
):
    if _mod is not None:
        kernel = _mod._decode_page_contiguous_kernel
        VARIANTS[_name] = (_Launch(kernel, num_stages=_stages) if _stages else kernel, ORIG_REDUCE)
VARIANTS = {k: v for k, v in VARIANTS.items() if k in ARGS.variants.split(",")}


def make_case(page, seq_len, layout, hq=24, hkv=4, hs=256, batch=1):
    pages = -(-seq_len // page)
    nblk = batch * pages + 8
    if layout == "triton":
        kc = torch.randn(nblk, page, hkv, hs, dtype=DT, device=DEV)
        vc = torch.randn(nblk, page, hkv, hs, dtype=DT, device=DEV)
    else:
        x = 8
        kc = torch.randn(nblk, hkv, hs // x, page, x, dtype=DT, device=DEV)
        vc = torch.randn(nblk, hkv, hs, page, dtype=DT, device=DEV)
    bt = torch.randperm(nblk, device=DEV)[: batch * pages].view(batch, pages).int()
    sl = torch.full((batch,), seq_len, dtype=torch.int32, device=DEV)
    q = torch.randn(batch, hq, hs, dtype=DT, device=DEV)
    out = torch.empty_like(q)
    ws = torch.empty(op.decode_page_contiguous_workspace_numel(hq, hkv, hs, DEV) * 2,
                     dtype=torch.float32, device=DEV)
    return q, kc, vc, out, bt, sl, ws


def main():
    env = environment()
    rows = []
    ptr = torch.zeros(1024, dtype=torch.float32, device=DEV)
    t1, _ = time_graph(lambda: _nop[(1,)](ptr))
    t2, _ = time_graph(lambda: (_nop[(1,)](ptr), _nop[(1,)](ptr)))
    t264, _ = time_graph(lambda: _nop[(264,)](ptr))
    floor = {"one_empty_kernel_us": t1, "two_empty_kernels_us": t2, "one_empty_264_programs_us": t264}
    log(f"floor {floor}")
    for layout in ("triton", "rocm"):
        for batch, seq_len in [(b, n) for b in map(int, ARGS.batches.split(","))
                               for n in (8192, 16384, 32768)]:
            q, kc, vc, out, bt, sl, ws = make_case(832, seq_len, layout, batch=batch)
            ref = None
            nbytes = batch * 2 * seq_len * 4 * 256 * 2
            default = op._pick_num_splits(batch, 4, bt.shape[1] * 13, op._num_compute_units(DEV))
            for variant, (main_k, red_k) in VARIANTS.items():
                op._decode_page_contiguous_kernel = main_k
                op._decode_page_contiguous_reduce_kernel = red_k
                splits_list = [default] + ([s for s in (22, 33, 44, 88, 132) if s != default] if variant == "shipped" and batch == 1 else [])
                for splits in splits_list:
                    def fn(q=q, kc=kc, vc=vc, out=out, bt=bt, sl=sl, ws=ws, splits=splits):
                        op.decode_page_contiguous(
                            q, kc, vc, out, bt, sl, 0.0625, workspace=ws, num_splits=splits)
                    out.fill_(float("nan"))
                    try:
                        fn()
                        torch.cuda.synchronize()
                    except Exception as exc:  # noqa: BLE001
                        log(f"{variant} failed: {exc!r}"[:2000])
                        continue
                    if variant == "shipped" and splits == default:
                        ref = out.float().clone()
                    err = None
                    if ref is not None and variant != "main_only":
                        err = ((out.float() - ref).norm() / ref.norm()).item()
                    us, kern = time_graph(fn)
                    row = dict(layout=layout, batch=batch, seq_len=seq_len, variant=variant, splits=splits,
                               us=us, pct_read_4512=nbytes / us / 1e3 / 4512 * 100,
                               kernels_us=kern, diff_vs_shipped=err)
                    rows.append(row)
                    log(json.dumps(row))
            op._decode_page_contiguous_kernel = ORIG_MAIN
            op._decode_page_contiguous_reduce_kernel = ORIG_REDUCE
            del kc, vc
            torch.cuda.empty_cache()
    os.makedirs(ARGS.out, exist_ok=True)
    with open(os.path.join(ARGS.out, "decode_batch1_latency.json"), "w") as f:
        json.dump({"env": env, "floor": floor, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
