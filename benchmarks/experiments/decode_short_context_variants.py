# SPDX-License-Identifier: Apache-2.0
"""Short-context decode on an H200: where the op's fixed time goes, and
kernel variants that might remove it (session 5).

The queue's op is up to 1.35x of unified_attention at batch 1-4 and
64-512 tokens on TRITON_ATTN's layout (decode_sweep/session4). This times
source edits of the op (EDITS below, applied to the --vllm-root copy of
decode_page_contiguous.py; the fork is not touched) against the op as built
and against the path each backend runs today, with the page sweep's method
(bench_decode_page_sweep.py: a CUDA graph of up to 16 calls on distinct
block tables as wide as a --max-model-len server's, L2 flushed before every
replay):

  base          the op as built
  noreduce      the reduce kernel not launched (timing only: wrong output
                for sequences of two or more tiles; says what its launch costs)
  fused         the last split of a (sequence, KV head) to finish combines
                the splits itself (an arrival counter, reset by that split);
                no reduce kernel
  fused8        that for sequences of at most 8 tiles; the reduce kernel
                (launched) combines the rest
  tile32        head 256 on sm_90 with 32-token tiles (37 KiB of shared
                memory instead of 74) and 2 programs per SM
  tile32_pc3    the same with 3 programs per SM (more splits)
  tile32_fused  tile32 + fused
  empty_exit    programs of splits past the sequence's last tile return at
                once (no Q load, no stores); the reduce takes the live splits
                from the sequence length instead of their -inf maxima
  splits2x, splits4x, splits_half, splits_quarter
                the split count from 2x, 4x, 0.5x or 0.25x the resident
                program slots (more or fewer, shorter or longer splits;
                session 9; the quarter, session 25: about as many programs
                as unified_attention's 16 segments at batch 1)
  xv_contig, xk_contig, xkv_contig, v_trans, x_t*, k_tok*, wave_splits, wave_min*
                ROCM_ATTN's x-packed K/V reads and splits past one wave of
                programs (session 11; decode_xpacked_v_layout.py)
  regcap168, regcap168_wave
                the main kernel capped at 168 registers on TRITON_ATTN's
                layout at head 256 (3 programs per SM on sm_90), in every
                launch or only the wave-split ones (session 13; the op
                before it took the cap)
  nocap, wave_st2
                the op that takes that cap without it; and without it, the
                wave-split kernel at 2 stages instead of 3 (session 13)
  pdl           the reduce kernel launched with programmatic dependent launch
                (sm_90): it starts while the main kernel runs, which signals
                at its start, and waits for the main kernel's writes before
                it reads the partial states (session 26)
  pdl_main      pdl, and the main kernel launched the same way after what
                precedes it, waiting before its first load (session 26)
  pdl_late, pdl_main_late
                the same with the main kernel's signal after its last store
  fill_min128, fill_min256, fill_min512
                grids within one wave too run a sequence of fewer than 128,
                256 or 512 tokens in one program (session 19)
  q_first       Q loaded first, in flight with the length (session 28)
  ids_early, ids_early32, q_ids_early
                the last tile's block ids (and the loop's first) read
                before Q, the tile still after the loop; ids32 holds them
                as int32 (session 28: faster short, up to 1.35x slower long
                at head 128: registers)
  first_ids, first_ids_q
                the loop's prefetch reads the last tile's ids where the
                program has no loop iterations (session 28)
  last_first    the sequence's last tile attended before the loop, its ids
                the first load after the length, Q after them (session 28;
                with empty_exit_now, as lean_last, the queue's op since)
  empty_exit_now
                empty_exit on the op's source of session 28
  lean, lean32, lean_first, lean_last (+ _pdl)
                each of those with empty_exit_now (and pdl_main_late)
  min2t, min3t  split grids within one wave run sequences of at most 2 or
                3 tiles in one program (session 28)
  loop_ids_first
                on the op after patch 17: the loop's first block ids read
                before Q as well (session 28; timed in session 29, call 82)
  split_last_first
                every split attends its own last tile before its loop, so
                each live program of a short sequence runs no loop (session 29)
  reduce_early, split_last_reduce_early
                the reduce reads the partial states of all the launch's
                splits in flight with the length, keeping the live ones
                after it (session 29); and both
  reduce_early8, reduce_early16
                reduce_early for the first 8 or 16 splits' partial outputs,
                the others read after the length (session 29)
  reduce_before the op after patch 18 (reduce_early, shipped) with the
                reduce before it (session 29)
  wave_late     on the op after patch 18: grids split past one wave read the
                split states after the length (session 29)
  before_noreduce, base_again
                reduce_before without the reduce launched (timing only);
                the op as built timed again after the others (session 29)
  page_tile     tiles of one page on 16- and 32-token pages instead of several
                pages per tile (session 34)
  s2, s2_wide   head 256 on TRITON_ATTN's layout (sm_90) at 2 stages instead
                of 3 (5 programs per SM instead of 3), in every launch or
                only in grids past one wave of 3 per SM (session 35)
  pair_pipe     min2t on the op after patch 20, both tiles of such a
                sequence in the pipelined loop, loads in flight together
                (session 37: 1.07-1.11x at head 128, 128 tokens; slower)
  sub2, sub2_p2, sub4, sub_all
                a sequence of 2 (2, up to 4, any number of) tiles with at
                least twice as many live splits spreads each tile over up
                to 4 (2) programs of 16-32 tokens, masked loads; the
                reduce reads their states (session 38)
  parts_few2, parts_few4
                sub4 compiled in only for batches of at most 2 (4)
                (sequence, KV head) programs on TRITON_ATTN's layout; the
                same kernel as the op's elsewhere (session 38)
  parts_few2s   parts_few2 with shifts for the parts' divisions (session 38)
  no_tile_parts on the op after patch 21 (parts_few2 shipped): no tile parts
                (session 38)
  wave_resident3
                the wave rule counts 3 programs per SM where the launch
                takes the sm_90 register cap (TRITON_ATTN's layout, head
                256): grids of up to 396 programs unsplit on an H200,
                397-594 split (session 30)

    python3 benchmarks/experiments/decode_short_context_variants.py --vllm-root BUNDLE --out-dir OUT

Writes OUT/decode_short_context_variants.json (us per call, rel. L2 error
against fp32 of the first sequence, per point and variant).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "kernels"))
import bench_decode_page_sweep as sweep  # noqa: E402
import common  # noqa: E402
from decode_whole_sequence_bound import wide  # noqa: E402

OP = "vllm/v1/attention/ops/decode_page_contiguous.py"

# The arrival counter: one int32 per (sequence, KV head), zero between calls.
_FUSED_KERNEL_ARGS = (
    "    part_sum_ptr,  # [num_seqs, num_query_heads, num_splits]\n    qk_scale,",
    "    part_sum_ptr,  # [num_seqs, num_query_heads, num_splits]\n    counter_ptr,\n    qk_scale,",
)
_FUSED_CONSTEXPR = (
    "    USE_SPLITS: tl.constexpr,\n    DOT_PRECISION: tl.constexpr,\n):\n"
    "    seq_idx = tl.program_id(0) // NUM_KV_HEADS",
    "    USE_SPLITS: tl.constexpr,\n    DOT_PRECISION: tl.constexpr,\n"
    "    FUSED_MAX_TILES: tl.constexpr = 0,\n):\n"
    "    seq_idx = tl.program_id(0) // NUM_KV_HEADS",
)
_FUSED_COMBINE = (
    "        out_mask = store_mask & single_tile & (split_idx == 0)\n",
    """        out_mask = store_mask & single_tile & (split_idx == 0)
        num_live = tl.minimum(num_tiles, num_splits)
        if (num_tiles > 1) & (num_tiles <= FUSED_MAX_TILES) & (tile_start < tile_end):
            tl.debug_barrier()
            ctr = counter_ptr + seq_idx * NUM_KV_HEADS + kv_head_idx
            ticket = tl.atomic_add(ctr, 1, sem="acq_rel")
            if ticket == num_live - 1:
                tl.atomic_xchg(ctr, 0)
                base = row * num_splits
                m_max = tl.full([QUERIES_PER_KV_PADDED], float("-inf"), tl.float32)
                for s in range(0, num_live):
                    m_s = tl.load(part_max_ptr + base + s, mask=head_mask,
                                  other=float("-inf"), cache_modifier=".cg")
                    m_max = tl.maximum(m_max, m_s)
                l_sum = tl.zeros([QUERIES_PER_KV_PADDED], dtype=tl.float32)
                acc2 = tl.zeros([QUERIES_PER_KV_PADDED, HEAD_SIZE_PADDED], dtype=tl.float32)
                for s in range(0, num_live):
                    m_s = tl.load(part_max_ptr + base + s, mask=head_mask,
                                  other=float("-inf"), cache_modifier=".cg")
                    w = tl.where(head_mask, tl.exp2(m_s - m_max), 0.0)
                    l_s = tl.load(part_sum_ptr + base + s, mask=head_mask, other=0.0,
                                  cache_modifier=".cg")
                    l_sum += w * l_s
                    o = tl.load(part_out_ptr + (base + s)[:, None] * HEAD_SIZE_PADDED
                                + offs_d[None, :], mask=head_mask[:, None] & dim_mask[None, :],
                                other=0.0, cache_modifier=".cg")
                    acc2 += o * w[:, None]
                acc = acc2
                l_i = l_sum
                out_mask = store_mask
""",
)
_FUSED_REDUCE_SKIP = (
    "    if num_tiles <= 1:\n        return",
    "    if num_tiles <= FUSED_MAX_TILES_R:\n        return",
)
_FUSED_REDUCE_ARG = (
    "    DIM_BLOCK: tl.constexpr,\n):",
    "    DIM_BLOCK: tl.constexpr,\n    FUSED_MAX_TILES_R: tl.constexpr = 1,\n):",
)


def _fused_host(max_tiles: int):
    """Host edits: pass the counter and the bound; skip the reduce launch when
    every sequence is combined in the main kernel."""
    launch_reduce = "False" if max_tiles >= 1 << 30 else "use_splits"
    return [
        (
            "        part_sum,\n        scale * 1.4426950408889634,",
            "        part_sum,\n        _counter(query.device),\n"
            "        scale * 1.4426950408889634,",
        ),
        (
            "        USE_SPLITS=use_splits,\n",
            f"        USE_SPLITS=use_splits,\n        FUSED_MAX_TILES={max_tiles},\n",
        ),
        (
            "    if use_splits:\n        num_splits_padded",
            f"    if {launch_reduce}:\n        num_splits_padded",
        ),
        (
            "            DIM_BLOCK=dim_block,\n",
            f"            DIM_BLOCK=dim_block,\n            FUSED_MAX_TILES_R={max(max_tiles, 1)},\n",
        ),
        (
            "@functools.cache\ndef _num_compute_units",
            "_COUNTERS = {}\n\n\ndef _counter(device):\n"
            "    if device not in _COUNTERS:\n"
            "        _COUNTERS[device] = torch.zeros(1 << 16, dtype=torch.int32, device=device)\n"
            "    return _COUNTERS[device]\n\n\n@functools.cache\ndef _num_compute_units",
        ),
    ]


def _fused(max_tiles: int):
    return [
        _FUSED_KERNEL_ARGS,
        _FUSED_CONSTEXPR,
        _FUSED_COMBINE,
        _FUSED_REDUCE_SKIP,
        _FUSED_REDUCE_ARG,
        *_fused_host(max_tiles),
    ]


_TILE32 = (
    "tile, warps, stages = min(64, 32768 // row_bytes), 4, 2",
    "tile, warps, stages = min(32, 32768 // row_bytes), 4, 2",
)


def _tile(tile: int, stages: int, row_bytes: int = 512):
    """Tile and stages of sm_90 at one head size (bf16 rows of row_bytes;
    other heads keep theirs)."""
    return (
        "tile, warps, stages = min(64, 32768 // row_bytes), 4, 2",
        f"tile, warps, stages = min(64, 32768 // row_bytes), 4, 2\n"
        f"        if row_bytes == {row_bytes}:\n            tile, stages = {tile}, {stages}",
    )


_PC3 = (
    "{64: 5, 128: 3, 256: 2} if dtype.itemsize == 2",
    "{64: 5, 128: 3, 256: 3} if dtype.itemsize == 2",
)
_NOREDUCE = (
    "    if use_splits:\n        num_splits_padded",
    "    if False:\n        num_splits_padded",
)
ALL_TILES = 1 << 30

_TAIL_OLD = """        page_offs = (num_tiles - 1 - last_page * TILES_PER_PAGE) * TILE_SIZE + offs_t
        m_i, l_i, acc = _attend_tile(
            q,
            m_i,
            l_i,
            acc,
            k_head_ptr + block_idx * stride_k_blk,
            v_head_ptr + block_idx * stride_v_blk,
            page_offs,
            page_offs < tail_tokens,
"""
_ATTEND_REST = """            k_dim_offs,
            v_dim_offs,
            dim_mask,
            qk_scale,
            stride_k_tok,
            stride_v_tok,
            DOT_PRECISION,
        )
"""


def _tail_halves(guard: bool):
    """The sequence's last tile as two half tiles (the second one skipped
    when it holds no token if guard)."""
    half = (
        "        tile_base = (num_tiles - 1 - last_page * TILES_PER_PAGE) * TILE_SIZE\n"
        "        offs_half = tl.arange(0, TILE_SIZE // 2)\n"
        "        page_offs = tile_base + offs_half\n"
        "        m_i, l_i, acc = _attend_tile(\n            q,\n            m_i,\n            l_i,\n"
        "            acc,\n            k_head_ptr + block_idx * stride_k_blk,\n"
        "            v_head_ptr + block_idx * stride_v_blk,\n            page_offs,\n"
        "            page_offs < tail_tokens,\n"
    )
    second = (
        _ATTEND_REST
        + (
            "        if tile_base + TILE_SIZE // 2 < tail_tokens:\n"
            if guard
            else "        if True:\n"
        )
        + "            page_offs = tile_base + TILE_SIZE // 2 + offs_half\n"
        + "            m_i, l_i, acc = _attend_tile(q, m_i, l_i, acc, k_head_ptr + block_idx * stride_k_blk,"
        + " v_head_ptr + block_idx * stride_v_blk, page_offs, page_offs < tail_tokens, k_dim_offs,"
        + " v_dim_offs, dim_mask, qk_scale, stride_k_tok, stride_v_tok, DOT_PRECISION)\n"
    )
    return [(_TAIL_OLD + _ATTEND_REST + "\n    store_mask", half + second + "\n    store_mask")]


# The reduce's loads of partial outputs wait on the sequence length only
# (live splits are the first min(tiles, splits)), not on the split maxima.
_REDUCE_LIVE_FROM_LEN = [
    (
        "    _, _, num_tiles = _tile_count(tl.load(seq_lens_ptr + seq_idx), PAGE_SIZE, TILE_SIZE)",
        "    _, _, num_tiles = _tile_count(tl.load(seq_lens_ptr + seq_idx), PAGE_SIZE, TILE_SIZE)\n"
        "    num_live = tl.minimum(num_tiles, num_splits)",
    ),
    ('    live = m_s > float("-inf")\n', "    live = offs_s < num_live\n"),
]
# All loads of the reduce at once; dead splits' (never written) partials
# are zeroed after the load.
_REDUCE_ALL_AT_ONCE = [
    (
        "        mask=live[:, None],\n        other=0.0,\n    )\n    acc = tl.sum(o * w[:, None], axis=0)",
        "        mask=split_mask[:, None],\n        other=0.0,\n    )\n"
        "    o = tl.where(live[:, None], o, 0.0)\n    acc = tl.sum(o * w[:, None], axis=0)",
    ),
]

# Splits past the last tile return before loading Q and store nothing: the
# reduce then reads only the first min(tiles, splits) partial states (split 0
# always runs: it writes a one-tile or empty sequence's output).
_EMPTY_EXIT = [
    (
        "    tile_end = tile_start + min_tiles + (split_idx < num_longer).to(tl.int32)\n",
        "    tile_end = tile_start + min_tiles + (split_idx < num_longer).to(tl.int32)\n"
        "    if USE_SPLITS:\n"
        "        if (tile_start >= tile_end) & (split_idx > 0):\n"
        "            return\n",
    ),
    _REDUCE_LIVE_FROM_LEN[0],
    (
        '    m_s = tl.load(part_max_ptr + part + offs_s, mask=split_mask, other=float("-inf"))\n'
        "    l_s = tl.load(part_sum_ptr + part + offs_s, mask=split_mask, other=0.0)\n",
        "    live = offs_s < num_live\n"
        '    m_s = tl.load(part_max_ptr + part + offs_s, mask=live, other=float("-inf"))\n'
        "    l_s = tl.load(part_sum_ptr + part + offs_s, mask=live, other=0.0)\n",
    ),
    ('    live = m_s > float("-inf")\n', ""),
]


# _attend_tile takes a K mask and X too: its signature and its two calls.
_ATTEND_K_MASK_AND_X = [
    (
        "    k_dim_offs,\n    v_dim_offs,\n    dim_mask,\n    qk_scale,\n"
        "    stride_k_tok: tl.constexpr,\n",
        "    k_dim_offs,\n    k_dim_mask,\n    v_dim_offs,\n    dim_mask,\n    qk_scale,\n"
        "    X: tl.constexpr,\n    stride_k_tok: tl.constexpr,\n",
    ),
    lambda src: src.replace(
        "            k_dim_offs,\n            v_dim_offs,\n            dim_mask,\n"
        "            qk_scale,\n",
        "            k_dim_offs,\n            k_dim_mask,\n            v_dim_offs,\n"
        "            dim_mask,\n            qk_scale,\n            X,\n",
    ),
]


# ROCM_ATTN's x-packed K loaded as [pieces, DIM_PIECE, tile] (session 8,
# decode_xpacked_k_load.py says why).
def _pieces(dim_piece: int):
    return [
        # Q as [pieces, heads, DIM_PIECE] and the 3-D K^T offsets.
        (
            "    k_dim_offs = (offs_d // X) * stride_k_dim_hi + offs_d % X\n",
            "    if X > 1:\n"
            "        NUM_PIECES: tl.constexpr = HEAD_SIZE_PADDED // DIM_PIECE\n"
            "        offs_p = tl.arange(0, NUM_PIECES)\n"
            "        offs_i = tl.arange(0, DIM_PIECE)\n"
            "        d3 = offs_p[:, None, None] * DIM_PIECE + offs_i[None, :, None]\n"
            "        k_dim_offs = (d3 // X) * stride_k_dim_hi + d3 % X\n"
            "        k_dim_mask = d3 < HEAD_SIZE\n"
            "        qd = offs_p[:, None, None] * DIM_PIECE + offs_i[None, None, :]\n"
            "        q = tl.load(\n"
            "            q_ptr + seq_idx.to(tl.int64) * stride_q_seq\n"
            "            + query_heads[None, :, None] * stride_q_head + qd,\n"
            "            mask=head_mask[None, :, None] & (qd < HEAD_SIZE), other=0.0,\n"
            "        )\n"
            "    else:\n"
            "        k_dim_offs = ((offs_d // X) * stride_k_dim_hi + offs_d % X)[:, None]\n"
            "        k_dim_mask = dim_mask[:, None]\n",
        ),
        (
            "    k = tl.load(\n"
            "        k_page_ptr + k_dim_offs[:, None] + page_offs[None, :] * stride_k_tok,\n"
            "        mask=dim_mask[:, None] & tok_mask[None, :],\n",
            "    k = tl.load(\n"
            "        k_page_ptr + k_dim_offs + page_offs[None, :] * stride_k_tok,\n"
            "        mask=k_dim_mask & tok_mask[None, :],\n",
        ),
        (
            "    s = tl.dot(q, k, input_precision=DOT_PRECISION) * qk_scale\n",
            "    if X > 1:\n"
            "        s = tl.sum(tl.dot(q, k, input_precision=DOT_PRECISION), axis=0) * qk_scale\n"
            "    else:\n"
            "        s = tl.dot(q, k, input_precision=DOT_PRECISION) * qk_scale\n",
        ),
        *_ATTEND_K_MASK_AND_X,
        (
            "    X: tl.constexpr,  # K packing factor along the head dim (1: unpacked)\n",
            "    X: tl.constexpr,  # K packing factor along the head dim (1: unpacked)\n"
            "    DIM_PIECE: tl.constexpr,\n",
        ),
        (
            "        X=x,\n",
            f"        X=x,\n        DIM_PIECE=min({dim_piece}, head_size_padded),\n",
        ),
    ]


EDITS = {
    "base": [],
    "noreduce": [_NOREDUCE],
    "fused": _fused(ALL_TILES),
    "fused8": _fused(8),
    "tile32": [_TILE32],
    "tile32_pc3": [_TILE32, _PC3],
    "tile32_fused": [_TILE32, *_fused(ALL_TILES)],
    "tail2": _tail_halves(True),
    "tail2_both": _tail_halves(False),
    "reduce_len": _REDUCE_LIVE_FROM_LEN,
    "reduce_once": _REDUCE_ALL_AT_ONCE,
    "tail2_reduce_len": [*_tail_halves(True), *_REDUCE_LIVE_FROM_LEN],
    "tail2_noreduce": [*_tail_halves(True), _NOREDUCE],
    "t32s3": [_tile(32, 3)],
    "t32s3_pc3": [_tile(32, 3), _PC3],
    "t32s4": [_tile(32, 4)],
    "t32s3_noreduce": [_tile(32, 3), _NOREDUCE],
    "h128_t32s3": [_tile(32, 3, 256)],
    "h128_t32s2": [_tile(32, 2, 256)],
    "h128_t64s3": [_tile(64, 3, 256)],
    "empty_exit": _EMPTY_EXIT,
    "k3d32": _pieces(32),
    "k3d64": _pieces(64),
    "k3d128": _pieces(128),
}


def _first_that_applies(*edits):
    """One edit: the first of `edits` whose old text occurs exactly once (the
    op's source before and after session 11's split rule differ)."""

    def apply(src: str) -> str:
        for old, new in edits:
            if src.count(old) == 1:
                return src.replace(old, new)
        raise ValueError(f"edit does not apply: {edits[0][0][:60]!r}")

    return apply


def _split_slots(num: int, den: int):
    """The split count from num/den times the resident program slots; the
    workspace sizing follows."""
    return [
        _first_that_applies(
            (
                "    num_splits = (programs_per_cu * num_cus) // programs\n",
                f"    num_splits = (programs_per_cu * num_cus * {num}) // (programs * {den})\n",
            ),
            (
                "    num_splits = slots // programs\n",
                f"    num_splits = (slots * {num}) // (programs * {den})\n",
            ),
        ),
        _first_that_applies(
            (
                "    for num_seqs in range(1, programs_per_cu * num_cus // num_kv_heads + 1):",
                f"    for num_seqs in range(1, {num} * programs_per_cu * num_cus // num_kv_heads + 1):",
            ),
            (
                "    for num_seqs in range(1, 3 * programs_per_cu * num_cus // (2 * num_kv_heads) + 1):",
                f"    for num_seqs in range(1, {num} * 3 * programs_per_cu * num_cus // (2 * num_kv_heads) + 1):",
            ),
        ),
    ]


# ROCM_ATTN's x-packed cache (session 11, decode_xpacked_v_layout.py). The
# *_contig variants read each (block, KV head) region of the x-packed cache
# as if it held [page, head] rows: the same bytes per page as the op reads,
# in contiguous 512-byte token rows. Timing only: their outputs are wrong.
_XV_CONTIG = (
    "        v_strides = value_cache.stride()\n",
    "        v_strides = (*value_cache.stride()[:2], 1, head_size)\n",
)
_XK_CONTIG = [
    ("        X=x,\n", "        X=1,\n"),
    ("        *k_strides[2:4],\n", "        *((1, head_size) if x > 1 else k_strides[2:4]),\n"),
]
# V loaded in its stored order [head, tile] and transposed in registers.
_V_TRANS = (
    "    v = tl.load(\n"
    "        v_page_ptr + page_offs[:, None] * stride_v_tok + v_dim_offs[None, :],\n"
    "        mask=tok_mask[:, None] & dim_mask[None, :],\n"
    "        other=0.0,\n"
    "    )\n",
    "    v = tl.trans(\n"
    "        tl.load(\n"
    "            v_page_ptr + v_dim_offs[:, None] + page_offs[None, :] * stride_v_tok,\n"
    "            mask=dim_mask[:, None] & tok_mask[None, :],\n"
    "            other=0.0,\n"
    "        )\n"
    "    )\n",
)


def _xpacked_config(tile: int, warps: int, stages: int, per_cu: int):
    """sm_90's config on the x-packed layout, every head size."""
    return (
        "    return _LaunchConfig(tile, warps, stages, per_cu[key[0]])\n",
        f"    if x_packed and target is not None and target.backend == 'cuda':\n"
        f"        return _LaunchConfig({tile}, {warps}, {stages}, {per_cu})\n"
        "    return _LaunchConfig(tile, warps, stages, per_cu[key[0]])\n",
    )


def _k_lanes_on_tokens(permute: bool):
    """x-packed K loaded so that a warp's lanes sit on consecutive tokens
    (16 B each: 512 contiguous bytes per load instruction) instead of on the
    head_size // 8 16-byte pieces of one token (a page apart), then reshaped
    to K^T [head, tile]. As [head // 8, 8, tile] (Triton orders equal
    contiguities last-dim first, so lanes go to the tile), or, if permute,
    as [head // 8, tile, 8] permuted to that."""
    if permute:
        offs3 = "offs_c[:, None, None] * stride_k_dim_hi + offs_x[None, None, :]"
        mask3 = "(offs_c[:, None, None] * X + offs_x[None, None, :]) < HEAD_SIZE"
        load = (
            "        k = tl.load(\n"
            "            k_page_ptr + k_dim_offs + page_offs[None, :, None] * stride_k_tok,\n"
            "            mask=k_dim_mask & tok_mask[None, :, None],\n"
            "            other=0.0,\n"
            "        )\n"
            "        k = tl.reshape(tl.permute(k, (0, 2, 1)), (q.shape[1], page_offs.shape[0]))\n"
        )
    else:
        offs3 = "offs_c[:, None, None] * stride_k_dim_hi + offs_x[None, :, None]"
        mask3 = "(offs_c[:, None, None] * X + offs_x[None, :, None]) < HEAD_SIZE"
        load = (
            "        k = tl.load(\n"
            "            k_page_ptr + k_dim_offs + page_offs[None, None, :] * stride_k_tok,\n"
            "            mask=k_dim_mask & tok_mask[None, None, :],\n"
            "            other=0.0,\n"
            "        )\n"
            "        k = tl.reshape(k, (q.shape[1], page_offs.shape[0]))\n"
        )
    return [
        (
            "    k_dim_offs = (offs_d // X) * stride_k_dim_hi + offs_d % X\n",
            "    if X > 1:\n"
            "        offs_c = tl.arange(0, HEAD_SIZE_PADDED // X)\n"
            "        offs_x = tl.arange(0, X)\n"
            f"        k_dim_offs = {offs3}\n"
            f"        k_dim_mask = {mask3}\n"
            "    else:\n"
            "        k_dim_offs = (offs_d * stride_k_dim_hi)[:, None]\n"
            "        k_dim_mask = dim_mask[:, None]\n",
        ),
        (
            "    k = tl.load(\n"
            "        k_page_ptr + k_dim_offs[:, None] + page_offs[None, :] * stride_k_tok,\n"
            "        mask=dim_mask[:, None] & tok_mask[None, :],\n"
            "        other=0.0,\n"
            "    )\n",
            "    if X > 1:\n" + load + "    else:\n"
            "        k = tl.load(\n"
            "            k_page_ptr + k_dim_offs + page_offs[None, :] * stride_k_tok,\n"
            "            mask=k_dim_mask & tok_mask[None, :],\n"
            "            other=0.0,\n"
            "        )\n",
        ),
        *_ATTEND_K_MASK_AND_X,
    ]


EDITS["k_tok"] = _k_lanes_on_tokens(False)
EDITS["k_tok_perm"] = _k_lanes_on_tokens(True)
# k_tok with K^T in pieces of at most 128 dims (two dots at head 256), each
# loaded lanes-on-tokens: k_tok spills 170 registers at head 256 on sm_90.
_K_TOK_PIECES = [
    (
        "    k_dim_offs = (offs_d // X) * stride_k_dim_hi + offs_d % X\n",
        "    K_PIECE: tl.constexpr = 128 if HEAD_SIZE_PADDED > 128 else HEAD_SIZE_PADDED\n"
        "    if X > 1:\n"
        "        offs_c = tl.arange(0, K_PIECE // X)\n"
        "        offs_x = tl.arange(0, X)\n"
        "        k_dim_offs = offs_c[:, None, None] * stride_k_dim_hi + offs_x[None, :, None]\n"
        "        k_piece_dims = offs_c[:, None, None] * X + offs_x[None, :, None]\n"
        "        offs_p = tl.arange(0, K_PIECE)\n"
        "        q_row = (\n"
        "            q_ptr\n"
        "            + seq_idx.to(tl.int64) * stride_q_seq\n"
        "            + query_heads[:, None] * stride_q_head\n"
        "        )\n"
        "        q1 = tl.load(\n"
        "            q_row + K_PIECE + offs_p[None, :],\n"
        "            mask=head_mask[:, None] & (offs_p + K_PIECE < HEAD_SIZE)[None, :],\n"
        "            other=0.0,\n"
        "        )\n"
        "        q = tl.load(\n"
        "            q_row + offs_p[None, :],\n"
        "            mask=head_mask[:, None] & (offs_p < HEAD_SIZE)[None, :],\n"
        "            other=0.0,\n"
        "        )\n"
        "    else:\n"
        "        k_dim_offs = (offs_d * stride_k_dim_hi)[:, None]\n"
        "        k_piece_dims = offs_d[:, None]\n"
        "        q1 = q\n",
    ),
    (
        "    k = tl.load(\n"
        "        k_page_ptr + k_dim_offs[:, None] + page_offs[None, :] * stride_k_tok,\n"
        "        mask=dim_mask[:, None] & tok_mask[None, :],\n"
        "        other=0.0,\n"
        "    )\n",
        "",
    ),
    (
        "    s = tl.dot(q, k, input_precision=DOT_PRECISION) * qk_scale\n",
        "    if X > 1:\n"
        "        k = tl.load(\n"
        "            k_page_ptr + k_dim_offs + page_offs[None, None, :] * stride_k_tok,\n"
        "            mask=(k_piece_dims < HEAD_SIZE) & tok_mask[None, None, :],\n"
        "            other=0.0,\n"
        "        )\n"
        "        k = tl.reshape(k, (K_PIECE, page_offs.shape[0]))\n"
        "        s = tl.dot(q, k, input_precision=DOT_PRECISION)\n"
        "        if HEAD_SIZE > K_PIECE:\n"
        "            k1 = tl.load(\n"
        "                k_page_ptr\n"
        "                + (K_PIECE // X) * stride_k_dim_hi\n"
        "                + k_dim_offs\n"
        "                + page_offs[None, None, :] * stride_k_tok,\n"
        "                mask=(k_piece_dims + K_PIECE < HEAD_SIZE) & tok_mask[None, None, :],\n"
        "                other=0.0,\n"
        "            )\n"
        "            k1 = tl.reshape(k1, (K_PIECE, page_offs.shape[0]))\n"
        "            s += tl.dot(q1, k1, input_precision=DOT_PRECISION)\n"
        "        s = s * qk_scale\n"
        "    else:\n"
        "        k = tl.load(\n"
        "            k_page_ptr + k_dim_offs + page_offs[None, :] * stride_k_tok,\n"
        "            mask=(k_piece_dims < HEAD_SIZE) & tok_mask[None, :],\n"
        "            other=0.0,\n"
        "        )\n"
        "        s = tl.dot(q, k, input_precision=DOT_PRECISION) * qk_scale\n",
    ),
    (
        "    k_dim_offs,\n    v_dim_offs,\n    dim_mask,\n    qk_scale,\n"
        "    stride_k_tok: tl.constexpr,\n",
        "    k_dim_offs,\n    k_piece_dims,\n    q1,\n    v_dim_offs,\n    dim_mask,\n"
        "    qk_scale,\n    X: tl.constexpr,\n    K_PIECE: tl.constexpr,\n"
        "    HEAD_SIZE: tl.constexpr,\n    stride_k_dim_hi: tl.constexpr,\n"
        "    stride_k_tok: tl.constexpr,\n",
    ),
    lambda src: src.replace(
        "            k_dim_offs,\n            v_dim_offs,\n            dim_mask,\n            qk_scale,\n",
        "            k_dim_offs,\n            k_piece_dims,\n            q1,\n            v_dim_offs,\n"
        "            dim_mask,\n            qk_scale,\n            X,\n            K_PIECE,\n"
        "            HEAD_SIZE,\n            stride_k_dim_hi,\n",
    ),
]
EDITS["k_tok_pieces"] = _K_TOK_PIECES
EDITS["k_tok_t64w8s2"] = [*_k_lanes_on_tokens(False), _xpacked_config(64, 8, 2, 1)]
EDITS["k_tok_t32w4s2"] = [*_k_lanes_on_tokens(False), _xpacked_config(32, 4, 2, 2)]
EDITS["k_tok_t32w4s3"] = [*_k_lanes_on_tokens(False), _xpacked_config(32, 4, 3, 2)]
EDITS["xv_contig"] = [_XV_CONTIG]
EDITS["xk_contig"] = _XK_CONTIG
EDITS["xkv_contig"] = [_XV_CONTIG, *_XK_CONTIG]
EDITS["v_trans"] = [_V_TRANS]
EDITS["x_t128w8s1"] = [_xpacked_config(128, 8, 1, 1)]
EDITS["x_t64w8s2"] = [_xpacked_config(64, 8, 2, 1)]
EDITS["x_t32w4s4"] = [_xpacked_config(32, 4, 4, 2)]
EDITS["x_t128w8s1_vt"] = [_xpacked_config(128, 8, 1, 1), _V_TRANS]

# Batches past one full wave of resident programs (session 11): split each
# sequence so the grid ends closer to a whole number of waves (at most 4
# splits). The workspace then grows with the batch (sized here for 512
# sequences). Applies to the op before its own rule (no_wave_rule below
# removes that one from the op after it).
_WAVE_SPLITS = [
    (
        "    num_splits = (programs_per_cu * num_cus) // programs\n",
        "    slots = programs_per_cu * num_cus\n"
        "    num_splits = slots // programs\n"
        "    if programs > slots:\n"
        "        num_splits = min(\n"
        "            range(1, 5), key=lambda s: (-(-programs * s // slots) * slots / (programs * s), s)\n"
        "        )\n",
    ),
    (
        "    for num_seqs in range(1, programs_per_cu * num_cus // num_kv_heads + 1):",
        "    for num_seqs in range(1, 513):",
    ),
]
EDITS["wave_splits"] = _WAVE_SPLITS
# The op without the wave rule it gained in session 11 (what ran before;
# call 35 ran the rule's first version, up to two waves).
EDITS["no_wave_rule"] = [
    _first_that_applies(
        ("    if slots < programs < 2 * slots and programs_per_cu <= 2:\n", "    if False:\n"),
        (
            "    if slots < programs and 2 * programs <= 3 * slots and programs_per_cu <= 2:\n",
            "    if False:\n",
        ),
    )
]
# The wave rule's length threshold (session 12): past one wave, sequences
# shorter than it run in one program and their other splits exit at once. 0
# is the op of session 11 (the kernels compile without the threshold code).
# Call 37 ran an earlier form of the op (the threshold a runtime argument,
# its code in every split kernel) and an "s11" variant that removed it.
for _min_len in (0, 512, 2048, 4096, 8192):
    EDITS[f"wave_min{_min_len}"] = [
        ("_WAVE_SPLIT_MIN_LEN = 1024\n", f"_WAVE_SPLIT_MIN_LEN = {_min_len}\n")
    ]
# Session 19: within one wave of programs every sequence is split over all
# the splits, so a 128-token sequence at head 128 (two 64-token tiles) pays
# for the reduce's work. fill_min<L>: there too, a sequence of fewer than L
# tokens runs in one program (the wave rule's threshold, _WAVE_SPLIT_MIN_LEN,
# is unchanged; its register cap stays on the wave-split launches).
for _min_len in (128, 256, 512):
    EDITS[f"fill_min{_min_len}"] = [
        (
            "    min_split_len = _WAVE_SPLIT_MIN_LEN if use_splits and past_one_wave else 0\n",
            f"    min_split_len = (_WAVE_SPLIT_MIN_LEN if past_one_wave else {_min_len}) if use_splits else 0\n",
        ),
        (
            "    if min_split_len and config.wave_split_max_registers is not None:\n",
            "    if min_split_len and past_one_wave and config.wave_split_max_registers is not None:\n",
        ),
    ]
# At most 2 (instead of 4) splits past one wave: fewer empty programs for
# short sequences, a longer last wave for long ones (session 12, call 40).
EDITS["wave_max2"] = [("_MAX_WAVE_SPLITS = 4\n", "_MAX_WAVE_SPLITS = 2\n")]
# Session 13: on TRITON_ATTN's layout at head 256 (sm_90) the wave-split
# kernel takes 176 registers (2 programs per SM; its early exit costs 8),
# the unsplit and fill-split kernels 168 (3 per SM). Cap the main kernel at
# 168 registers there (ptxas: no spills), in every launch or in the
# wave-split launches only.
_LAUNCH_END = "        num_warps=config.num_warps,\n        num_stages=config.num_stages,\n    )\n"
_REG_CAP_WHEN = "x == 1 and head_size_padded == 256 and query.dtype.itemsize == 2"
EDITS["regcap168"] = [
    (
        _LAUNCH_END,
        _LAUNCH_END[:-6] + f"        **({{'maxnreg': 168}} if {_REG_CAP_WHEN} else {{}}),\n    )\n",
    )
]
EDITS["regcap168_wave"] = [
    (
        _LAUNCH_END,
        _LAUNCH_END[:-6]
        + f"        **({{'maxnreg': 168}} if {_REG_CAP_WHEN} and min_split_len else {{}}),\n    )\n",
    )
]
# The op as exported in session 13 caps that kernel at 168 registers
# (_LaunchConfig.wave_split_max_registers). nocap: without the cap (the op
# of session 12); wave_st2: without the cap, the wave-split kernel at 2
# pipeline stages instead of 3 (168 registers without a cap).
_CAP = "            max_registers = 168\n"
EDITS["nocap"] = [(_CAP, "            max_registers = None\n")]
EDITS["wave_st2"] = [
    (_CAP, "            max_registers = None\n"),
    (
        "    launch_options: dict[str, int] = {}\n",
        "    launch_options: dict[str, int] = {}\n"
        "    if min_split_len and x == 1 and head_size_padded == 256 and query.dtype.itemsize == 2:\n"
        "        launch_options['num_stages'] = 2\n",
    ),
    (
        "        num_stages=config.num_stages,\n        **launch_options,\n",
        "        **{'num_stages': config.num_stages, **launch_options},\n",
    ),
]
EDITS["splits2x"] = _split_slots(2, 1)
EDITS["splits4x"] = _split_slots(4, 1)
EDITS["splits_half"] = _split_slots(1, 2)
EDITS["splits_quarter"] = _split_slots(1, 4)


# Programmatic dependent launch (sm_90; session 26). The main kernel signals
# that the reduce may launch, at its start or after its last store; the
# reduce reads the sequence length, then waits for the main kernel's
# completion (every program, so the reduce never completes before the main
# kernel) before the partial states. With `main_too`, the main kernel is
# launched the same way after what precedes it and waits before its first
# load.
def _pdl(trigger: str, main_too: bool):
    wait = "    if PDL_WAIT:\n        tl.extra.cuda.gdc_wait()\n"
    signal = "    if USE_PDL:\n        tl.extra.cuda.gdc_launch_dependents()\n"
    main_arg = (
        "    DOT_PRECISION: tl.constexpr,\n):\n    seq_idx = tl.program_id(0) // NUM_KV_HEADS",
        "    DOT_PRECISION: tl.constexpr,\n    USE_PDL: tl.constexpr = False,\n"
        "    PDL_WAIT: tl.constexpr = False,\n):\n"
        + wait
        + (signal if trigger == "start" else "")
        + "    seq_idx = tl.program_id(0) // NUM_KV_HEADS",
    )
    edits = [main_arg]
    if trigger == "end":
        edits.append(
            ("        mask=out_mask,\n    )\n", "        mask=out_mask,\n    )\n" + signal)
        )
    edits += [
        (
            "    DIM_BLOCK: tl.constexpr,\n):",
            "    DIM_BLOCK: tl.constexpr,\n    USE_PDL: tl.constexpr = False,\n):",
        ),
        (
            "    if single_split:\n        return  # the main kernel",
            "    if USE_PDL:\n        tl.extra.cuda.gdc_wait()\n"
            "    if single_split:\n        return  # the main kernel",
        ),
        (
            "            DIM_BLOCK=dim_block,\n            num_warps=4,\n",
            "            DIM_BLOCK=dim_block,\n            num_warps=4,\n"
            "            USE_PDL=True,\n            launch_pdl=True,\n",
        ),
        (
            '        DOT_PRECISION="ieee" if',
            "        USE_PDL=True,\n"
            + ("        PDL_WAIT=True,\n        launch_pdl=True,\n" if main_too else "")
            + '        DOT_PRECISION="ieee" if',
        ),
    ]
    return edits


EDITS["pdl"] = _pdl("start", False)
EDITS["pdl_main"] = _pdl("start", True)
EDITS["pdl_late"] = _pdl("end", False)
EDITS["pdl_main_late"] = _pdl("end", True)


# Session 28: the op's dependent loads at short contexts. A program holding
# only its sequence's last tile waits on the length, then on Q (its
# conversion to the dot layout), then on the block id, then on K/V.
_Q_BLOCK = """    offs_h = tl.arange(0, QUERIES_PER_KV_PADDED)
    offs_d = tl.arange(0, HEAD_SIZE_PADDED)
    offs_t = tl.arange(0, TILE_SIZE)
    head_mask = offs_h < QUERIES_PER_KV
    dim_mask = offs_d < HEAD_SIZE
    query_heads = kv_head_idx * QUERIES_PER_KV + offs_h

    q = tl.load(
        q_ptr
        + seq_idx.to(tl.int64) * stride_q_seq
        + query_heads[:, None] * stride_q_head
        + offs_d[None, :],
        mask=head_mask[:, None] & dim_mask[None, :],
        other=0.0,
    )

"""
_Q_LOAD = """    q = tl.load(
        q_ptr
        + seq_idx.to(tl.int64) * stride_q_seq
        + query_heads[:, None] * stride_q_head
        + offs_d[None, :],
        mask=head_mask[:, None] & dim_mask[None, :],
        other=0.0,
    )
"""
_SPLIT_IDX = "    split_idx = tl.program_id(1)\n"
# Q loaded first, in flight with the length.
_Q_FIRST = [(_Q_BLOCK, ""), (_SPLIT_IDX, _SPLIT_IDX + "\n" + _Q_BLOCK)]
_PREFETCH = """    block_ids = _span_block_ids(
        block_table_row,
        tile_start // TILES_PER_SPAN,
        offs_t,
        tile_start < loop_end,
        PAGE_SIZE,
        PAGES_PER_TILE,
    )
"""
_LAST_IDS = """    last_span_offs = (num_tiles - 1 - last_span * TILES_PER_SPAN) * TILE_SIZE + offs_t
    last_tok_mask = last_span_offs < tail_tokens
    if PAGES_PER_TILE == 1:
        last_block_ids = tl.load(
            block_table_row + last_span, mask=has_last_tile, other=0
        ).to(tl.int64)
    else:
        last_block_ids = _span_block_ids(
            block_table_row,
            last_span,
            last_span_offs,
            last_tok_mask & has_last_tile,
            PAGE_SIZE,
            PAGES_PER_TILE,
        )
"""
_LAST_TILE_IDS_OLD = """        span_offs = (num_tiles - 1 - last_span * TILES_PER_SPAN) * TILE_SIZE + offs_t
        tok_mask = span_offs < tail_tokens
        if PAGES_PER_TILE == 1:
            block_ids = tl.load(block_table_row + last_span).to(tl.int64)
        else:
            block_ids = _span_block_ids(
                block_table_row,
                last_span,
                span_offs,
                tok_mask,
                PAGE_SIZE,
                PAGES_PER_TILE,
            )
"""
_LAST_TILE_IDS_NEW = """        span_offs = last_span_offs
        tok_mask = last_tok_mask
        block_ids = last_block_ids
"""
# The block ids of the program's first tile and of the sequence's last tile
# read before Q, so that no K/V load waits on Q.
_IDS_EARLY = [
    (_Q_LOAD, ""),
    (_PREFETCH, _PREFETCH + _LAST_IDS + _Q_LOAD),
    (_LAST_TILE_IDS_OLD, _LAST_TILE_IDS_NEW),
]
# Both: Q first, the block ids right after the length.
_Q_IDS_EARLY = [
    *_Q_FIRST,
    (_PREFETCH, _PREFETCH + _LAST_IDS),
    (_LAST_TILE_IDS_OLD, _LAST_TILE_IDS_NEW),
]
# Splits past the sequence's last tile return before any load but the
# length's; the reduce takes the live splits (the first min(tiles, splits))
# from the length instead of their -inf maxima (session 7's empty_exit on
# today's source).
_EMPTY_EXIT_NOW = [
    (
        "    tile_end = tile_start + min_tiles + (split_idx < num_longer).to(tl.int32)\n",
        "    tile_end = tile_start + min_tiles + (split_idx < num_longer).to(tl.int32)\n"
        "    if USE_SPLITS:\n"
        "        if (tile_start >= tile_end) & (split_idx > 0):\n"
        "            return\n",
    ),
    (
        "    _, _, num_tiles = _tile_count(seq_len, SPAN, TILE_SIZE)\n    single_split = num_tiles <= 1\n",
        "    _, _, num_tiles = _tile_count(seq_len, SPAN, TILE_SIZE)\n    single_split = num_tiles <= 1\n"
        "    num_live = tl.minimum(num_tiles, num_splits)\n",
    ),
    (
        '    m_s = tl.load(part_max_ptr + part + offs_s, mask=split_mask, other=float("-inf"))\n'
        "    l_s = tl.load(part_sum_ptr + part + offs_s, mask=split_mask, other=0.0)\n",
        "    live = offs_s < num_live\n"
        '    m_s = tl.load(part_max_ptr + part + offs_s, mask=live, other=float("-inf"))\n'
        "    l_s = tl.load(part_sum_ptr + part + offs_s, mask=live, other=0.0)\n",
    ),
    ('    live = m_s > float("-inf")\n', ""),
]
# ids_early holding less across the loop: the block ids as int32, the last
# tile's offsets and mask computed after the loop (ids_early took registers
# enough to cost head 128 a program per SM: up to 1.35x at long contexts).
_LAST_IDS32 = """    if PAGES_PER_TILE == 1:
        last_block_ids = tl.load(block_table_row + last_span, mask=has_last_tile, other=0)
    else:
        last_span_offs = (num_tiles - 1 - last_span * TILES_PER_SPAN) * TILE_SIZE + offs_t
        last_block_ids = tl.load(
            block_table_row + last_span * PAGES_PER_TILE + last_span_offs // PAGE_SIZE,
            mask=(last_span_offs < tail_tokens) & has_last_tile,
            other=0,
        )
"""
_LAST_TILE_IDS32 = """        span_offs = (num_tiles - 1 - last_span * TILES_PER_SPAN) * TILE_SIZE + offs_t
        tok_mask = span_offs < tail_tokens
        block_ids = last_block_ids.to(tl.int64)
"""
_IDS_EARLY32 = [
    (_Q_LOAD, ""),
    (_PREFETCH, _PREFETCH + _LAST_IDS32 + _Q_LOAD),
    (_LAST_TILE_IDS_OLD, _LAST_TILE_IDS32),
]
_Q_IDS_EARLY32 = [
    *_Q_FIRST,
    (_PREFETCH, _PREFETCH + _LAST_IDS32),
    (_LAST_TILE_IDS_OLD, _LAST_TILE_IDS32),
]
EDITS["ids_early32"] = _IDS_EARLY32
EDITS["q_ids_early32"] = _Q_IDS_EARLY32
EDITS["lean32"] = [*_Q_IDS_EARLY32, *_EMPTY_EXIT_NOW]
EDITS["lean32_pdl"] = [*_Q_IDS_EARLY32, *_EMPTY_EXIT_NOW, *_pdl("end", True)]
# The prefetch before the loop reads the last tile's block ids where the
# program has no loop iterations (a short sequence's programs), so its last
# tile waits on no further load, and nothing more is held across the loop;
# both read before Q.
_PREFETCH_LAST = """    no_loop = tile_start >= loop_end
    if PAGES_PER_TILE == 1:
        block_ids = tl.load(
            block_table_row + tl.where(no_loop, last_span, tile_start // TILES_PER_SPAN),
            mask=(tile_start < loop_end) | (no_loop & has_last_tile),
            other=0,
        ).to(tl.int64)
    else:
        block_ids = _span_block_ids(
            block_table_row,
            tl.where(no_loop, last_span, tile_start),
            offs_t,
            tl.where(no_loop, (offs_t < tail_tokens) & has_last_tile, tile_start < loop_end),
            PAGE_SIZE,
            PAGES_PER_TILE,
        )
"""
_LAST_TILE_IDS_IF = """        span_offs = (num_tiles - 1 - last_span * TILES_PER_SPAN) * TILE_SIZE + offs_t
        tok_mask = span_offs < tail_tokens
        if not no_loop:
            if PAGES_PER_TILE == 1:
                block_ids = tl.load(block_table_row + last_span).to(tl.int64)
            else:
                block_ids = _span_block_ids(
                    block_table_row,
                    last_span,
                    span_offs,
                    tok_mask,
                    PAGE_SIZE,
                    PAGES_PER_TILE,
                )
"""
_FIRST_IDS = [
    (_Q_LOAD, ""),
    (_PREFETCH, _PREFETCH_LAST + _Q_LOAD),
    (_LAST_TILE_IDS_OLD, _LAST_TILE_IDS_IF),
]
EDITS["first_ids"] = _FIRST_IDS
EDITS["first_ids_q"] = [
    *_Q_FIRST,
    (_PREFETCH, _PREFETCH_LAST),
    (_LAST_TILE_IDS_OLD, _LAST_TILE_IDS_IF),
]
EDITS["lean_first"] = [*_FIRST_IDS, *_EMPTY_EXIT_NOW]
EDITS["lean_first_pdl"] = [*_FIRST_IDS, *_EMPTY_EXIT_NOW, *_pdl("end", True)]
# The sequence's last tile attended first, before the loop (softmax is
# order-free; the order stays fixed): its block ids are the program's first
# load after the length, nothing is held across the loop for it, and Q is
# read after them.
_LAST_TILE_BLOCK = (
    """    if has_last_tile:
        # The sequence's last tile: slots past its end are never loaded, as an
        # unused page tail may hold NaN, nor are the block ids of pages past
        # its end.
"""
    + _LAST_TILE_IDS_OLD
    + """        m_i, l_i, acc = _attend_span_tile(
            q,
            m_i,
            l_i,
            acc,
            k_head_ptr,
            v_head_ptr,
            block_ids,
            span_offs,
            tok_mask,
            k_dim_offs,
            v_dim_offs,
            dim_mask,
            qk_scale,
            stride_k_blk,
            stride_v_blk,
            stride_k_tok,
            stride_v_tok,
            PAGE_SIZE,
            PAGES_PER_TILE,
            DOT_PRECISION,
        )

"""
)
_HAS_LAST = "    has_last_tile = (tile_end == num_tiles) & (tile_start < tile_end)\n"
_LAST_FIRST = [
    (_Q_LOAD, ""),
    (_LAST_TILE_BLOCK, ""),
    (
        _HAS_LAST,
        _HAS_LAST
        + _LAST_IDS
        + _Q_LOAD
        + _LAST_TILE_BLOCK.replace(_LAST_TILE_IDS_OLD, _LAST_TILE_IDS_NEW),
    ),
]
EDITS["last_first"] = _LAST_FIRST
EDITS["lean_last"] = [*_LAST_FIRST, *_EMPTY_EXIT_NOW]
EDITS["lean_last_pdl"] = [*_LAST_FIRST, *_EMPTY_EXIT_NOW, *_pdl("end", True)]


# Split grids within one wave run a sequence of at most k tiles in one
# program (the wave-split grids keep their 1024 tokens): after patch 17 a
# one-tile sequence (no reduce work) takes 4.9 us at batch 1 against 7.3 us
# for two tiles in two splits and a reduce (call 78).
def _min_tiles(k: int):
    return [
        (
            "    min_split_len = _WAVE_SPLIT_MIN_LEN if use_splits and past_one_wave else 0\n",
            "    min_split_len = _WAVE_SPLIT_MIN_LEN if use_splits and past_one_wave else 0\n"
            f"    if use_splits and not past_one_wave:\n"
            f"        min_split_len = {k} * tile_size + 1\n",
        )
    ]


EDITS["min2t"] = _min_tiles(2)
EDITS["min3t"] = _min_tiles(3)
# On the op after patch 17 (session 28, not yet timed): the block ids of
# the loop's first tile read before Q too, so a split holding an interior
# tile of a short sequence (the others of its live splits) does not wait on
# Q before its block ids either.
_LOOP_PREFETCH = """    loop_end = tl.where(has_last_tile, tile_end - 1, tile_end)
    block_ids = _span_block_ids(
        block_table_row,
        tile_start // TILES_PER_SPAN,
        offs_t,
        tile_start < loop_end,
        PAGE_SIZE,
        PAGES_PER_TILE,
    )
"""
_Q_LOAD_NEW = "    q = tl.load(\n        q_ptr\n"
EDITS["loop_ids_first"] = [
    (_LOOP_PREFETCH, "    block_ids = loop_block_ids\n"),
    (
        _Q_LOAD_NEW,
        _LOOP_PREFETCH.replace("    block_ids = _span", "    loop_block_ids = _span") + _Q_LOAD_NEW,
    ),
]
# Session 29, on the op after patch 17. Every split attends its own last
# tile before its loop (not only the split holding the sequence's last
# tile), so each live program of a short sequence takes the unpipelined
# one-tile path and no loop.
_SPLIT_LAST_FIRST = [
    (
        "    has_last_tile = (tile_end == num_tiles) & (tile_start < tile_end)\n"
        "    span_offs = (num_tiles - 1 - last_span * TILES_PER_SPAN) * TILE_SIZE + offs_t\n"
        "    tok_mask = span_offs < tail_tokens\n",
        "    has_last_tile = tile_start < tile_end\n"
        "    first_span = (tile_end - 1) // TILES_PER_SPAN\n"
        "    span_offs = (tile_end - 1 - first_span * TILES_PER_SPAN) * TILE_SIZE + offs_t\n"
        "    tok_mask = span_offs < tl.where(first_span == last_span, tail_tokens, SPAN)\n",
    ),
    (
        "            block_table_row + last_span, mask=has_last_tile, other=0\n",
        "            block_table_row + first_span, mask=has_last_tile, other=0\n",
    ),
    (
        "            block_table_row,\n            last_span,\n            span_offs,\n",
        "            block_table_row,\n            first_span,\n            span_offs,\n",
    ),
]
EDITS["split_last_first"] = _SPLIT_LAST_FIRST
# The reduce reads every split's partial state (the rows a launch has) in
# flight with the length, and keeps the live ones after it: one dependent
# load less, num_splits rows read instead of the live ones.
_REDUCE_HEAD = """    seq_idx = tl.program_id(0)
    seq_len = tl.load(seq_lens_ptr + seq_idx)
"""
_REDUCE_LOADS = """    head_idx = tl.program_id(1)
    offs_d = tl.program_id(2) * DIM_BLOCK + tl.arange(0, DIM_BLOCK)
    part = (seq_idx.to(tl.int64) * NUM_QUERY_HEADS + head_idx) * num_splits
    offs_s = tl.arange(0, NUM_SPLITS_PADDED)
    live = offs_s < num_live

    m_s = tl.load(part_max_ptr + part + offs_s, mask=live, other=float("-inf"))
    l_s = tl.load(part_sum_ptr + part + offs_s, mask=live, other=0.0)
    m_max = tl.max(m_s, axis=0)
    w = tl.where(live, tl.exp2(m_s - m_max), 0.0)
    l_sum = tl.sum(w * l_s, axis=0)
    o = tl.load(
        part_out_ptr + (part + offs_s)[:, None] * HEAD_SIZE_PADDED + offs_d[None, :],
        mask=live[:, None],
        other=0.0,
    )
    acc = tl.sum(o * w[:, None], axis=0)
"""
_REDUCE_EARLY = [
    (
        _REDUCE_HEAD,
        """    seq_idx = tl.program_id(0)
    head_idx = tl.program_id(1)
    offs_d = tl.program_id(2) * DIM_BLOCK + tl.arange(0, DIM_BLOCK)
    part = (seq_idx.to(tl.int64) * NUM_QUERY_HEADS + head_idx) * num_splits
    offs_s = tl.arange(0, NUM_SPLITS_PADDED)
    in_row = offs_s < num_splits
    m_s = tl.load(part_max_ptr + part + offs_s, mask=in_row, other=float("-inf"))
    l_s = tl.load(part_sum_ptr + part + offs_s, mask=in_row, other=0.0)
    o = tl.load(
        part_out_ptr + (part + offs_s)[:, None] * HEAD_SIZE_PADDED + offs_d[None, :],
        mask=in_row[:, None],
        other=0.0,
    )
    seq_len = tl.load(seq_lens_ptr + seq_idx)
""",
    ),
    (
        _REDUCE_LOADS,
        """    live = offs_s < num_live
    m_s = tl.where(live, m_s, float("-inf"))
    m_max = tl.max(m_s, axis=0)
    w = tl.where(live, tl.exp2(m_s - m_max), 0.0)
    l_sum = tl.sum(w * tl.where(live, l_s, 0.0), axis=0)
    acc = tl.sum(tl.where(live[:, None], o, 0.0) * w[:, None], axis=0)
""",
    ),
]
EDITS["reduce_early"] = _REDUCE_EARLY


# The same with only the first k splits' partial outputs read ahead of the
# length (a sequence of at most k tiles), the others after it: the reduce of
# a one-tile sequence reads k rows, not the launch's num_splits.
def _reduce_early_rows(k: int):
    (old_head, head), (old_loads, loads) = _REDUCE_EARLY
    head = head.replace(
        "        mask=in_row[:, None],\n",
        f"        mask=(in_row & (offs_s < {k}))[:, None],\n",
    )
    loads = loads.replace(
        "    acc = tl.sum(tl.where(live[:, None], o, 0.0) * w[:, None], axis=0)\n",
        "    o_late = tl.load(\n"
        "        part_out_ptr + (part + offs_s)[:, None] * HEAD_SIZE_PADDED + offs_d[None, :],\n"
        f"        mask=(live & (offs_s >= {k}))[:, None],\n"
        "        other=0.0,\n"
        "    )\n"
        f"    o = tl.where((offs_s < {k})[:, None], o, o_late)\n"
        "    acc = tl.sum(tl.where(live[:, None], o, 0.0) * w[:, None], axis=0)\n",
    )
    return [(old_head, head), (old_loads, loads)]


EDITS["reduce_early8"] = _reduce_early_rows(8)
EDITS["reduce_early16"] = _reduce_early_rows(16)
EDITS["split_last_reduce_early"] = [*_SPLIT_LAST_FIRST, *_REDUCE_EARLY]
# The op as built in v0.33.0 patch 18 (reduce_early, with its comment) back
# to the reduce before it, for same-run comparisons on the op after it.
_REDUCE_EARLY_COMMENT = """    # Every split's partial state is read in flight with the length, which
    # says the splits that hold tiles only after its load; the others'
    # (stale) states are dropped below. A short sequence's reduce then waits
    # on one load, not two.
"""
EDITS["reduce_before"] = [
    (
        _REDUCE_EARLY[0][1].replace("    in_row = ", _REDUCE_EARLY_COMMENT + "    in_row = "),
        _REDUCE_HEAD,
    ),
    (_REDUCE_EARLY[1][1], _REDUCE_LOADS),
]
EDITS["before_noreduce"] = [*EDITS["reduce_before"], _NOREDUCE]
# On the op after patch 18: a grid split past one wave (MIN_SPLIT_LEN > 0)
# reads the split states after the length, as before patch 18 (there its
# short sequences run unsplit and their reduce would read every split's
# state for nothing; the longer ones have all splits live).
_LOAD_SPLIT_STATES = """@triton.jit
def _load_split_states(
    part_out_ptr,
    part_max_ptr,
    part_sum_ptr,
    part,
    offs_s,
    offs_d,
    mask,
    HEAD_SIZE_PADDED: tl.constexpr,
):
    \"\"\"(maxima, sums, outputs) of the splits ``mask`` selects in a row of
    partial states that starts at ``part``.\"\"\"
    m_s = tl.load(part_max_ptr + part + offs_s, mask=mask, other=float("-inf"))
    l_s = tl.load(part_sum_ptr + part + offs_s, mask=mask, other=0.0)
    o = tl.load(
        part_out_ptr + (part + offs_s)[:, None] * HEAD_SIZE_PADDED + offs_d[None, :],
        mask=mask[:, None],
        other=0.0,
    )
    return m_s, l_s, o


"""


def _state_loads(indent: str, mask: str) -> str:
    args = ["part_out_ptr", "part_max_ptr", "part_sum_ptr", "part", "offs_s", "offs_d",
            mask, "HEAD_SIZE_PADDED"]  # fmt: skip
    inner = "".join(f"{indent}    {a},\n" for a in args)
    return f"{indent}m_s, l_s, o = _load_split_states(\n{inner}{indent})\n"


EDITS["wave_late"] = [
    (
        "@triton.jit\ndef _decode_page_contiguous_reduce_kernel(",
        _LOAD_SPLIT_STATES + "@triton.jit\ndef _decode_page_contiguous_reduce_kernel(",
    ),
    (
        _REDUCE_EARLY_COMMENT
        + _REDUCE_EARLY[0][1].split("    offs_s = tl.arange(0, NUM_SPLITS_PADDED)\n")[1],
        "    if MIN_SPLIT_LEN == 0:\n"
        + "        # Every split's partial state is read in flight with the length,\n"
        "        # which says the splits that hold tiles only after its load; the\n"
        "        # others' (stale) states are dropped below. A short sequence's\n"
        "        # reduce then waits on one load, not two.\n"
        + _state_loads("        ", "offs_s < num_splits")
        + "    seq_len = tl.load(seq_lens_ptr + seq_idx)\n",
    ),
    (
        "    live = offs_s < num_live\n    m_s = tl.where(",
        "    live = offs_s < num_live\n"
        "    if MIN_SPLIT_LEN > 0:\n"
        "        # A grid split past one wave runs its sequences shorter than\n"
        "        # MIN_SPLIT_LEN in one program and only the longer ones split, all\n"
        "        # splits live: the states are read after the length, and only the\n"
        "        # reduce of a split sequence reads them.\n"
        + _state_loads("        ", "live")
        + "    m_s = tl.where(",
    ),
    (
        "them empty) exit at once; the reduce reads only the first",
        "them empty) exit at once; the reduce uses only the first",
    ),
]
EDITS["base_again"] = []  # the op as built, timed again (order effects)
# Session 34: on 16- and 32-token pages the op reads several pages per tile
# (patch 15). page_tile: tiles of one page there instead (the page's block id
# one scalar load, no per-token ids), to see whether unified_attention's lead
# at batch 1 and 64 tokens on page 16 (16-token tiles) comes from the tile.
EDITS["page_tile"] = [
    (
        "    tile_size = config.tile_size\n",
        "    tile_size = page_size if page_size in (16, 32) else config.tile_size\n",
    )
]
# Session 35: at head 256 on TRITON_ATTN's layout the sm_90 config (32-token
# tiles, 3 stages, 73 KiB of shared memory) holds 3 programs per SM, so an
# unsplit grid of 397-594 programs (16/2/256 at batch 256: 512) runs 1.3-1.5
# waves; on an H100 the op read 89-95% of the read ceiling there, 98-100% at
# batch 64. At 2 stages the kernel takes 41 KiB and 96 registers (offline
# compile): 5 programs per SM, 512 programs in one wave. s2: every such
# launch at 2 stages; s2_wide: only grids past one wave of 3 per SM.
EDITS["s2"] = [("            tile, stages = 32, 3\n", "            tile, stages = 32, 2\n")]
EDITS["s2_wide"] = [
    (
        "        num_stages=config.num_stages,\n    )\n    if use_splits:\n",
        "        num_stages=(\n"
        "            2\n"
        "            if config.num_stages == 3 and num_seqs * num_kv_heads > 3 * num_cus\n"
        "            else config.num_stages\n"
        "        ),\n    )\n    if use_splits:\n",
    )
]
# Session 32: after call 91 the op keeps head-256 grids of one to one and a
# half waves unsplit on TRITON_ATTN's layout on sm_90 (wave_splits False in
# _launch_config). wave_splits_on: the op as before that change (the wave
# rule applies there again; the register cap it had was already unused).
EDITS["wave_splits_on"] = [
    ("                wave_splits = False\n", "                wave_splits = True\n")
]
# Session 30: after patch 17 every launch on TRITON_ATTN's layout at head
# 256 holds 3 programs per SM on sm_90 (offline compile), while the wave rule
# counts the 2 of the x-packed layout. wave_resident3: on the launches that
# take the register cap (sm_90, head 256, TRITON_ATTN's layout, 2-byte
# dtypes) the wave rule counts 3 per SM (a grid of up to 396 programs on an
# H200 runs unsplit; 397-594 are split); the fill rule keeps 2.
EDITS["wave_resident3"] = [
    (
        "    programs_per_cu: int,\n) -> int:\n",
        "    programs_per_cu: int,\n    wave_programs_per_cu: int | None = None,\n) -> int:\n",
    ),
    (
        "    num_splits = slots // programs\n"
        "    if slots < programs and 2 * programs <= 3 * slots and programs_per_cu <= 2:\n",
        "    num_splits = slots // programs\n"
        "    slots = (wave_programs_per_cu or programs_per_cu) * num_cus\n"
        "    if slots < programs and 2 * programs <= 3 * slots and programs_per_cu <= 2:\n",
    ),
    (
        "    num_splits = _pick_num_splits(\n"
        "        num_seqs, num_kv_heads, max_tiles_per_seq, num_cus, config.programs_per_cu\n"
        "    )\n"
        "    use_splits = num_splits > 1\n"
        "    past_one_wave = num_seqs * num_kv_heads > config.programs_per_cu * num_cus\n",
        "    wave_per_cu = 3 if config.wave_split_max_registers else config.programs_per_cu\n"
        "    num_splits = _pick_num_splits(\n"
        "        num_seqs, num_kv_heads, max_tiles_per_seq, num_cus, config.programs_per_cu,\n"
        "        wave_per_cu,\n"
        "    )\n"
        "    use_splits = num_splits > 1\n"
        "    past_one_wave = num_seqs * num_kv_heads > wave_per_cu * num_cus\n",
    ),
    (
        "    for num_seqs in range(1, 3 * programs_per_cu * num_cus // (2 * num_kv_heads) + 1):\n"
        "        num_splits = _pick_num_splits(\n"
        "            num_seqs, num_kv_heads, _MAX_NUM_SPLITS, num_cus, programs_per_cu\n"
        "        )\n",
        "    for num_seqs in range(1, 9 * num_cus // (2 * num_kv_heads) + 1):\n"
        "        num_splits = max(\n"
        "            _pick_num_splits(num_seqs, num_kv_heads, _MAX_NUM_SPLITS, num_cus, programs_per_cu, w)\n"
        "            for w in (None, 3)\n"
        "        )\n",
    ),
]
EDITS["q_first"] = _Q_FIRST
EDITS["ids_early"] = _IDS_EARLY
EDITS["q_ids_early"] = _Q_IDS_EARLY
EDITS["empty_exit_now"] = _EMPTY_EXIT_NOW
EDITS["lean"] = [*_Q_IDS_EARLY, *_EMPTY_EXIT_NOW]
EDITS["lean_pdl"] = [*_Q_IDS_EARLY, *_EMPTY_EXIT_NOW, *_pdl("end", True)]

# Session 37, on the op after patch 20: min2t with both tiles of such a
# sequence in the pipelined loop (not the last one before it), so that their
# K/V loads are in flight together instead of one after the other (min2t's
# second tile cost about as much as the reduce it saved, session 28). The
# loop then masks a tile of the last span by the sequence's length (block
# ids too, where a tile reads several pages), and the reduce keeps reading
# the split states ahead of the length in grids within one wave.
_PAIR_PIPE = [
    *_min_tiles(2),
    (
        "    has_last_tile = (tile_end == num_tiles) & (tile_start < tile_end)\n",
        "    has_last_tile = (tile_end == num_tiles) & (tile_start < tile_end)\n"
        "    if MIN_SPLIT_LEN > 0:\n"
        "        has_last_tile = has_last_tile & ((seq_len >= MIN_SPLIT_LEN) | (num_tiles > 2))\n",
    ),
    (
        "    block_ids = _span_block_ids(\n"
        "        block_table_row,\n"
        "        tile_start // TILES_PER_SPAN,\n"
        "        offs_t,\n"
        "        tile_start < loop_end,\n",
        "    first_mask = tile_start < loop_end\n"
        "    if PAGES_PER_TILE > 1:\n"
        "        first_mask = first_mask & (\n"
        "            (tile_start // TILES_PER_SPAN != last_span) | (offs_t < tail_tokens)\n"
        "        )\n"
        "    block_ids = _span_block_ids(\n"
        "        block_table_row,\n"
        "        tile_start // TILES_PER_SPAN,\n"
        "        offs_t,\n"
        "        first_mask,\n",
    ),
    (
        "        next_block_ids = _span_block_ids(\n"
        "            block_table_row,\n"
        "            (tile_idx + 1) // TILES_PER_SPAN,\n"
        "            offs_t,\n"
        "            tile_idx + 1 < loop_end,\n",
        "        next_mask = tile_idx + 1 < loop_end\n"
        "        if PAGES_PER_TILE > 1:\n"
        "            next_mask = next_mask & (\n"
        "                ((tile_idx + 1) // TILES_PER_SPAN != last_span) | (offs_t < tail_tokens)\n"
        "            )\n"
        "        next_block_ids = _span_block_ids(\n"
        "            block_table_row,\n"
        "            (tile_idx + 1) // TILES_PER_SPAN,\n"
        "            offs_t,\n"
        "            next_mask,\n",
    ),
    (
        "            span_offs < SPAN,\n",
        "            span_offs < tl.where(tile_idx // TILES_PER_SPAN == last_span, tail_tokens, SPAN),\n",
    ),
    (
        "    if MIN_SPLIT_LEN == 0:\n        # Every split's",
        "    if MIN_SPLIT_LEN < 1024:\n        # Every split's",
    ),
    (
        "    if MIN_SPLIT_LEN > 0:\n        # A grid split past one wave",
        "    if MIN_SPLIT_LEN >= 1024:\n        # A grid split past one wave",
    ),
]
EDITS["pair_pipe"] = _PAIR_PIPE


def _sub_tiles(max_tiles: int, max_parts: int):
    """A sequence of 2..max_tiles tiles, with at least twice as many live
    splits as tiles, spreads each tile over up to max_parts programs (parts of
    at least 16 tokens, masked loads), so that fewer bytes go through each
    program's SM; a part past the sequence's end writes an empty state, and
    the reduce reads num_tiles * parts states (session 38)."""
    helper = (
        "@triton.jit\n"
        "def _tile_parts(num_tiles, live_splits, TILE_SIZE: tl.constexpr):\n"
        "    per_tile = live_splits // tl.maximum(num_tiles, 1)\n"
        "    parts = tl.full([], 1, tl.int32)\n"
        f"    if {max_parts} >= 2:\n"
        "        if TILE_SIZE >= 32:\n"
        "            parts = tl.where(per_tile >= 2, 2, parts)\n"
        f"    if {max_parts} >= 4:\n"
        "        if TILE_SIZE >= 64:\n"
        "            parts = tl.where(per_tile >= 4, 4, parts)\n"
        f"    return tl.where((num_tiles >= 2) & (num_tiles <= {max_tiles}), parts, 1)\n"
        "\n\n"
    )
    return [
        ("@triton.jit\ndef _span_block_ids(", helper + "@triton.jit\ndef _span_block_ids("),
        (
            "    tile_end = tile_start + min_tiles + (split_idx < num_longer).to(tl.int32)\n",
            "    tile_end = tile_start + min_tiles + (split_idx < num_longer).to(tl.int32)\n"
            "    parts = _tile_parts(num_tiles, live_splits, TILE_SIZE)\n"
            "    part_tile = split_idx // parts\n"
            "    part_idx = split_idx % parts\n"
            "    tile_start = tl.where(parts > 1, part_tile, tile_start)\n"
            "    tile_end = tl.where(parts > 1, tl.minimum(part_tile + 1, num_tiles), tile_end)\n",
        ),
        (
            "    has_last_tile = (tile_end == num_tiles) & (tile_start < tile_end)\n"
            "    span_offs = (num_tiles - 1 - last_span * TILES_PER_SPAN) * TILE_SIZE + offs_t\n"
            "    tok_mask = span_offs < tail_tokens\n",
            "    has_last_tile = (tile_end == num_tiles) & (tile_start < tile_end)\n"
            "    pre_tile = tl.where(parts > 1, tile_start, num_tiles - 1)\n"
            "    pre_span = tl.where(parts > 1, pre_tile // TILES_PER_SPAN, last_span)\n"
            "    tile_base = (pre_tile - pre_span * TILES_PER_SPAN) * TILE_SIZE\n"
            "    span_offs = tile_base + offs_t\n"
            "    tile_limit = tl.where(pre_span == last_span, tail_tokens, SPAN)\n"
            "    part_size = TILE_SIZE // parts\n"
            "    tok_mask = (span_offs < tile_limit) & (offs_t // part_size == part_idx)\n"
            "    has_pre = tl.where(\n"
            "        parts > 1,\n"
            "        (tile_start < tile_end) & (tile_base + part_idx * part_size < tile_limit),\n"
            "        has_last_tile,\n"
            "    )\n",
        ),
        (
            "            block_table_row + last_span, mask=has_last_tile, other=0\n",
            "            block_table_row + pre_span, mask=has_pre, other=0\n",
        ),
        (
            "            last_span,\n            span_offs,\n            tok_mask & has_last_tile,\n",
            "            pre_span,\n            span_offs,\n            tok_mask & has_pre,\n",
        ),
        ("    if has_last_tile:\n        m_i, l_i, acc", "    if has_pre:\n        m_i, l_i, acc"),
        (
            "    loop_end = tl.where(has_last_tile, tile_end - 1, tile_end)\n",
            "    loop_end = tl.where(\n"
            "        parts > 1, tile_start, tl.where(has_last_tile, tile_end - 1, tile_end)\n"
            "    )\n",
        ),
        (
            "    num_live = tl.minimum(num_tiles, num_splits)\n",
            "    parts = _tile_parts(num_tiles, num_splits, TILE_SIZE)\n"
            "    num_live = tl.where(\n"
            "        parts > 1, num_tiles * parts, tl.minimum(num_tiles, num_splits)\n"
            "    )\n",
        ),
    ]


EDITS["sub2"] = _sub_tiles(2, 4)
EDITS["sub2_p2"] = _sub_tiles(2, 2)
EDITS["sub4"] = _sub_tiles(4, 4)
EDITS["sub_all"] = _sub_tiles(1 << 20, 4)


def _few_program_parts(max_programs: int):
    """_sub_tiles(4, 4) compiled in only where the batch gives at most
    max_programs (sequence, KV head) programs on TRITON_ATTN's layout (a
    constexpr TILE_PARTS, 1 elsewhere: the same kernel as the op's); call 108
    found it faster only with one or two such programs (session 38)."""
    helper = (
        "@triton.jit\n"
        "def _tile_parts(num_tiles, live_splits, TILE_PARTS: tl.constexpr):\n"
        "    per_tile = live_splits // tl.maximum(num_tiles, 1)\n"
        "    parts = tl.where(per_tile >= 2, 2, 1)\n"
        "    if TILE_PARTS >= 4:\n"
        "        parts = tl.where(per_tile >= 4, 4, parts)\n"
        "    return tl.where((num_tiles >= 2) & (num_tiles <= 4), parts, 1)\n"
        "\n\n"
    )
    return [
        ("@triton.jit\ndef _span_block_ids(", helper + "@triton.jit\ndef _span_block_ids("),
        (
            "    MIN_SPLIT_LEN: tl.constexpr,  # shorter sequences are not split (0: none)\n",
            "    MIN_SPLIT_LEN: tl.constexpr,  # shorter sequences are not split (0: none)\n"
            "    TILE_PARTS: tl.constexpr,\n",
        ),
        (
            "    MIN_SPLIT_LEN: tl.constexpr,\n    DIM_BLOCK",
            "    MIN_SPLIT_LEN: tl.constexpr,\n    TILE_PARTS: tl.constexpr,\n    DIM_BLOCK",
        ),
        (
            "        MIN_SPLIT_LEN=min_split_len,\n        # Exact fp32",
            "        MIN_SPLIT_LEN=min_split_len,\n        TILE_PARTS=tile_parts,\n        # Exact fp32",
        ),
        (
            "            MIN_SPLIT_LEN=min_split_len,\n            DIM_BLOCK",
            "            MIN_SPLIT_LEN=min_split_len,\n            TILE_PARTS=tile_parts,\n            DIM_BLOCK",
        ),
        (
            "    min_split_len = _WAVE_SPLIT_MIN_LEN if use_splits and past_one_wave else 0\n",
            "    min_split_len = _WAVE_SPLIT_MIN_LEN if use_splits and past_one_wave else 0\n"
            "    tile_parts = (\n"
            "        min(4, tile_size // 16)\n"
            f"        if use_splits and key_cache.dim() == 4 and num_seqs * num_kv_heads <= {max_programs}\n"
            "        else 1\n"
            "    )\n",
        ),
        (
            "    tile_end = tile_start + min_tiles + (split_idx < num_longer).to(tl.int32)\n",
            "    tile_end = tile_start + min_tiles + (split_idx < num_longer).to(tl.int32)\n"
            "    if TILE_PARTS > 1:\n"
            "        parts = _tile_parts(num_tiles, live_splits, TILE_PARTS)\n"
            "        part_tile = split_idx // parts\n"
            "        part_idx = split_idx % parts\n"
            "        tile_start = tl.where(parts > 1, part_tile, tile_start)\n"
            "        tile_end = tl.where(parts > 1, tl.minimum(part_tile + 1, num_tiles), tile_end)\n",
        ),
        (
            "    tok_mask = span_offs < tail_tokens\n",
            "    tok_mask = span_offs < tail_tokens\n"
            "    if TILE_PARTS > 1:\n"
            "        pre_tile = tl.where(parts > 1, tile_start, num_tiles - 1)\n"
            "        pre_span = pre_tile // TILES_PER_SPAN\n"
            "        tile_base = (pre_tile - pre_span * TILES_PER_SPAN) * TILE_SIZE\n"
            "        span_end = tl.where(pre_span == last_span, tail_tokens, SPAN)\n"
            "        part_size = TILE_SIZE // parts\n"
            "        span_offs = tile_base + offs_t\n"
            "        tok_mask = (span_offs < span_end) & (offs_t // part_size == part_idx)\n"
            "        has_last_tile = tl.where(\n"
            "            parts > 1,\n"
            "            (tile_start < tile_end) & (tile_base + part_idx * part_size < span_end),\n"
            "            has_last_tile,\n"
            "        )\n"
            "        last_span = pre_span\n",
        ),
        (
            "    loop_end = tl.where(has_last_tile, tile_end - 1, tile_end)\n",
            "    loop_end = tl.where(has_last_tile, tile_end - 1, tile_end)\n"
            "    if TILE_PARTS > 1:\n"
            "        loop_end = tl.where(parts > 1, tile_start, loop_end)\n",
        ),
        (
            "    num_live = tl.minimum(num_tiles, num_splits)\n",
            "    num_live = tl.minimum(num_tiles, num_splits)\n"
            "    if TILE_PARTS > 1:\n"
            "        parts = _tile_parts(num_tiles, num_splits, TILE_PARTS)\n"
            "        num_live = tl.where(parts > 1, num_tiles * parts, num_live)\n",
        ),
    ]


EDITS["parts_few2"] = _few_program_parts(2)
EDITS["parts_few4"] = _few_program_parts(4)


def _few_program_parts_shift(max_programs: int):
    """_few_program_parts with the parts a power of two taken as shifts: no
    integer division by a runtime value (session 38)."""
    edits = []
    for old, new in _few_program_parts(max_programs):
        new = new.replace(
            "        part_tile = split_idx // parts\n        part_idx = split_idx % parts\n",
            "        part_shift = (parts > 1).to(tl.int32) + (parts > 2).to(tl.int32)\n"
            "        part_tile = split_idx >> part_shift\n"
            "        part_idx = split_idx & (parts - 1)\n",
        )
        new = new.replace(
            "        part_size = TILE_SIZE // parts\n",
            "        part_size = TILE_SIZE >> part_shift\n",
        )
        new = new.replace(
            "(offs_t // part_size == part_idx)",
            "((offs_t * parts) // TILE_SIZE == part_idx)",
        )
        edits.append((old, new))
    return edits


EDITS["parts_few2s"] = _few_program_parts_shift(2)
# On the op with tile parts (v0.33.0 patch 21): its config spreads none.
EDITS["no_tile_parts"] = [("            tile_parts = tile // 16\n", "            tile_parts = 1\n")]
# On the op with tile parts: a part's token mask by two compares instead of a
# division of every token offset by the (runtime) part size (session 39).
EDITS["parts_cmp"] = [
    (
        "        tok_mask = (span_offs < span_len) & (offs_t // part_size == part_idx)\n",
        "        part_start = part_idx * part_size\n"
        "        tok_mask = (\n"
        "            (span_offs < span_len) & (offs_t >= part_start) & (offs_t < part_start + part_size)\n"
        "        )\n",
    )
]


def parse_args(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--vllm-root", required=True)
    p.add_argument("--out-dir", default=".")
    p.add_argument("--variants", default=",".join(EDITS))
    p.add_argument("--groups", default="triton:24/4/256:832,triton:32/8/128:832,triton:8/1/128:832,"
                   "triton:24/4/256:64,triton:32/8/128:64,rocm:24/4/256:832,rocm:32/8/128:832")  # fmt: skip
    p.add_argument("--batches", default="1,4,16,64")
    p.add_argument("--seq-lens", default="64,128,256,512,1024,4096,32768")
    p.add_argument("--max-tokens", type=int, default=1 << 17, help="batch * seq_len cap")
    p.add_argument("--max-model-len", type=int, default=131072)
    p.add_argument("--reps", type=int, default=5)
    p.add_argument(
        "--rounds", type=int, default=2,
        help="time every kernel of a point this many times in turn, keeping the least",
    )  # fmt: skip
    p.add_argument("--workers", type=int, default=14)
    p.add_argument(
        "--cache-write",
        action="store_true",
        help="each call first writes the step's new K/V token into the cache "
        "(triton_reshape_and_cache_flash, TRITON_ATTN's layout only), as a "
        "server's step does before attention (session 28)",
    )
    return p.parse_args(argv)


def groups(args):
    out = []
    for g in args.groups.split(","):
        layout, heads, page = g.split(":")
        out.append((layout, tuple(int(v) for v in heads.split("/")), int(page)))
    return out


def points(args):
    return [
        (b, n)
        for b in common.ints(args.batches)
        for n in common.ints(args.seq_lens)
        if b * n <= args.max_tokens
    ]


def load_variants(args, ops):
    src = open(os.path.join(args.vllm_root, OP)).read()
    mods = {}
    for name in args.variants.split(","):
        try:
            mods[name], _ = common.edited_module(src, f"dpc_{name}", EDITS[name])
        except ValueError as e:
            common.log(f"variant {name} skipped: {e}")
    return mods


def run_group(args, ops, mods, layout, heads, page, nblocks, dev, flush=None):
    import torch

    group = sweep.Group(ops, layout, heads, page, nblocks, dev, torch.bfloat16)
    width = math.ceil(args.max_model_len / page)
    hq, hk, hs = heads
    rows = []
    for batch, seq_len in points(args):
        seq_lens = torch.full((batch,), seq_len, dtype=torch.int32, device=dev)
        q = torch.randn((batch, hq, hs), dtype=torch.bfloat16, device=dev)
        calls = (
            1 if flush is None else max(1, min(sweep.MAX_CALLS, (1 << 16) // (batch * seq_len) + 1))
        )
        tables = [wide(t, width) for t in group.tables(batch, seq_len, calls)]
        row = {"layout": layout, "heads": list(heads), "page": page, "batch": batch,
               "seq_len": seq_len, "table_width": width, "calls": calls}  # fmt: skip
        write = None
        if args.cache_write:
            write = _cache_writer(group, tables, batch, seq_len, dev)
        # Taken after the first timed kernel: the output is the last call's,
        # which sees every call's write (the tables share blocks).
        ref = None
        timed = {}
        for name in ["today", *mods]:
            out = torch.full_like(q, float("nan"))
            if name == "today":
                fns = [group.call("today", q, out, t, seq_lens, seq_len) for t in tables]
            else:
                mod = mods[name]
                ws = torch.empty(
                    mod.decode_page_contiguous_workspace_numel(hq, hk, hs, torch.bfloat16, dev),
                    dtype=torch.float32, device=dev,
                )  # fmt: skip
                fns = [
                    (lambda t=t, mod=mod, ws=ws: mod.decode_page_contiguous(
                        q, group.k, group.v, out, t, seq_lens, group.scale, workspace=ws))
                    for t in tables
                ]  # fmt: skip
            if write is not None:
                fns = [(lambda i=i, f=f: (write(i), f())) for i, f in enumerate(fns)]
            if flush is None:
                fns[0]()
                continue
            row[f"{name}_us"] = sweep.time_calls(fns, args.reps, flush)
            timed[name] = fns
            if ref is None:
                ref = group.reference(q, tables[-1], seq_len, 1)
            row[f"{name}_rel_l2"] = ((out[:1].float() - ref).norm() / ref.norm()).item()
            # The counter is back at zero after every call.
            if name != "today" and hasattr(mods[name], "_COUNTERS"):
                c = mods[name]._COUNTERS.get(dev)
                row[f"{name}_counter_nonzero"] = int((c != 0).sum()) if c is not None else 0
        if flush is not None:
            # Every kernel again, in the same order: the least time of the
            # rounds (at 32K-64K tokens the first kernel timed after today's
            # took up to 1.15x of its time in a second round; session 29).
            for _ in range(args.rounds - 1):
                for name, fns in timed.items():
                    us = sweep.time_calls(fns, args.reps, flush)
                    row[f"{name}_us"] = min(row[f"{name}_us"], us)
            rows.append(row)
            common.log(
                f"{layout:6} {hq}/{hk}/{hs} p{page:4} B={batch:3} L={seq_len:5}: today "
                f"{row['today_us']:6.1f} " + " ".join(f"{n} {row[f'{n}_us']:6.1f}" for n in mods)
            )
    torch.cuda.synchronize()
    return rows


def _cache_writer(group, tables, batch, seq_len, dev):
    """write(i): the new token of every sequence of call i written into its
    last slot, as TritonAttentionImpl's KV-cache update does."""
    import torch

    def import_writer():
        from vllm.v1.attention.ops.triton_reshape_and_cache_flash import (  # noqa: F401
            triton_reshape_and_cache_flash,
        )

    # Serving packages the import reaches (openai_harmony) get stand-ins.
    stood_in = common.import_with_stand_ins(import_writer)
    if stood_in:
        common.log(f"KV-cache writer imported with stand-ins for {', '.join(stood_in)}")
    from vllm.v1.attention.ops.triton_reshape_and_cache_flash import (
        triton_reshape_and_cache_flash,
    )

    if group.k.dim() != 4:
        raise SystemExit("--cache-write: TRITON_ATTN's layout only")
    page = group.k.shape[1]
    new_k = torch.randn((batch, *group.k.shape[2:]), dtype=group.k.dtype, device=dev)
    new_v = torch.randn_like(new_k)
    one = torch.ones((), dtype=torch.float32, device=dev)
    last = seq_len - 1
    slots = [(t[:, last // page].long() * page + last % page).contiguous() for t in tables]

    def write(i):
        triton_reshape_and_cache_flash(new_k, new_v, group.k, group.v, slots[i], "auto", one, one)

    return write


def nblocks_of(args, heads, page):
    per_block = sweep.kv_bytes_per_token(heads, "bfloat16") * page
    need = max(b * math.ceil(n / page) for b, n in points(args))
    return need, max(
        math.ceil((2 << 30) / per_block), min(sweep.MAX_CALLS * need, need + (4 << 30) // per_block)
    )


def prewarm(job):
    argv, layout, heads, page = job
    args = parse_args(argv)
    common.use_vllm_root(args.vllm_root)
    import torch

    ops = sweep.Ops()
    mods = load_variants(args, ops)
    need, _ = nblocks_of(args, heads, page)
    run_group(args, ops, mods, layout, heads, page, need + 1, torch.device("cuda"))
    return f"{layout} {heads} {page}"


def main(argv=None):
    args = parse_args(argv)
    common.use_vllm_root(args.vllm_root)
    import torch

    raw = sys.argv[1:] if argv is None else argv
    common.prewarm_in_workers(prewarm, [(raw, *g) for g in groups(args)], args.workers)
    ops = sweep.Ops()
    mods = load_variants(args, ops)
    dev = torch.device("cuda")
    env = common.environment()
    flush = sweep.l2_flush(dev)

    # The first point a process timed came out up to 0.7 us faster for the
    # kernel timed first there (unified_attention), in all five rounds, on an
    # H100 (24/4/256, page 16, batch 1, 64 tokens: 6.75 us first, 7.5 us
    # when timed after other groups; session 34). One point is timed first
    # and dropped.
    warm = argparse.Namespace(**vars(args))
    warm.rounds = 1
    warm.batches = args.batches.split(",")[0]
    warm.seq_lens = args.seq_lens.split(",")[0]
    layout, heads, page = groups(args)[0]
    common.log("the next point is timed to be dropped:")
    run_group(warm, ops, mods, layout, heads, page, nblocks_of(warm, heads, page)[1], dev, flush)
    torch.cuda.empty_cache()

    rows = []
    for layout, heads, page in groups(args):
        _, nblocks = nblocks_of(args, heads, page)
        rows += run_group(args, ops, mods, layout, heads, page, nblocks, dev, flush)
        torch.cuda.empty_cache()
    os.makedirs(args.out_dir, exist_ok=True)
    with open(os.path.join(args.out_dir, "decode_short_context_variants.json"), "w") as f:
        json.dump({"environment": env, "variants": list(mods), "points": rows}, f, indent=1)
    for name in mods:
        ratios = [r[f"{name}_us"] / r["today_us"] for r in rows]
        errs = [r[f"{name}_rel_l2"] for r in rows]
        common.log(f"{name:13}: op/today {min(ratios):.3f}-{max(ratios):.3f}, "
                   f"> 1.02: {sum(x > 1.02 for x in ratios)}/{len(ratios)}, max rel_l2 {max(errs):.2e}")  # fmt: skip
    return 0


def run_with_ceilings(argv, defaults) -> tuple[int, dict]:
    """For experiments built on this one: main() with `defaults` ahead of the
    caller's own options (--vllm-root and --out-dir required), then its
    result, with the ceilings measured after it; the JSON file is removed."""
    p = argparse.ArgumentParser()
    p.add_argument("--vllm-root", required=True)
    p.add_argument("--out-dir", default=".")
    args, rest = p.parse_known_args(argv)
    rc = main(["--vllm-root", args.vllm_root, "--out-dir", args.out_dir, *defaults, *rest])
    common.use_vllm_root(args.vllm_root)
    src = os.path.join(args.out_dir, "decode_short_context_variants.json")
    with open(src) as f:
        result = json.load(f)
    os.remove(src)
    result["ceilings"] = common.ceilings()
    result["out_dir"] = args.out_dir
    return rc, result


if __name__ == "__main__":
    sys.exit(main())
