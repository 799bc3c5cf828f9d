# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the vLLM project
"""Variants of the aligned paged prefill kernel, for sweep_prefill_variants.py.

This is vllm/v1/attention/ops/triton_paged_prefill_aligned.py as the queue had
it before the sweep, plus two switches (KCOAL, HOIST) and a per-tile helper;
it imports Triton directly so it loads without vLLM. Not used by the queue.

Causal prefill of one sequence chunk against ROCM_ATTN's paged KV cache.

The kernel is written for KV pages that are a multiple of 64 tokens (for
example the 832-token pages of Qwen3.5 hybrid models). A KV tile of at most
64 tokens then never crosses a page, so each tile needs exactly one
block-table lookup and its K/V loads are contiguous inside one page, instead
of the per-token gather that a generic paged kernel performs.

Layouts (as written by ROCM_ATTN, see ``PagedAttention.split_kv_cache``):
  query/output: [num_q_tokens, num_heads, head_size]
  key_cache:    [num_blocks, num_kv_heads, head_size // x, page_size, x]
  value_cache:  [num_blocks, num_kv_heads, head_size, page_size]

The query chunk holds the LAST ``num_q_tokens`` tokens of a sequence of
``seq_lens[0]`` tokens whose K/V (including the chunk's own) are already in
the cache: query row ``i`` attends to keys ``0 .. seq_len - num_q_tokens + i``.
"""

import torch

import triton
import triton.language as tl

# A KV tile must never cross a page: the kernel reads one block-table entry
# per tile.
PAGED_PREFILL_PAGE_ALIGNMENT = 64
SUPPORTED_HEAD_SIZES = (64, 128, 256)
SUPPORTED_DTYPES = (torch.float16, torch.bfloat16, torch.float32)

# log2(e): the kernel uses exp2 for the online softmax.
_LOG2E = 1.4426950408889634



@triton.jit
def _tile(acc, l_i, m_i, q, k_ptr0, v_ptr0, start_n, k_tile_offs, k_coal_offs, v_tile_offs, context_len, seq_len, offs_m, offs_n, qk_scale, HEAD_SIZE: tl.constexpr, MASKED: tl.constexpr, KCOAL: tl.constexpr):
    if MASKED:
        kv_valid = (start_n + offs_n) < seq_len
        if KCOAL:
            k = tl.load(k_ptr0 + k_coal_offs, mask=kv_valid[None, :, None], other=0.0)
            k = tl.reshape(tl.permute(k, (0, 2, 1)), (HEAD_SIZE, k.shape[1]))
        else:
            k = tl.load(k_ptr0 + k_tile_offs, mask=kv_valid[None, :], other=0.0)
        v = tl.load(v_ptr0 + v_tile_offs, mask=kv_valid[:, None], other=0.0)
    else:
        if KCOAL:
            k = tl.load(k_ptr0 + k_coal_offs)
            k = tl.reshape(tl.permute(k, (0, 2, 1)), (HEAD_SIZE, k.shape[1]))
        else:
            k = tl.load(k_ptr0 + k_tile_offs)
        v = tl.load(v_ptr0 + v_tile_offs)
    qk = tl.dot(q, k)
    if MASKED:
        key_pos = start_n + offs_n
        visible = (key_pos[None, :] <= context_len + offs_m[:, None]) & (key_pos[None, :] < seq_len)
        qk = tl.where(visible, qk, float("-inf"))
    m_new = tl.maximum(m_i, tl.max(qk, 1))
    p = tl.math.exp2(qk * qk_scale - (m_new * qk_scale)[:, None])
    alpha = tl.math.exp2((m_i - m_new) * qk_scale)
    l_i = l_i * alpha + tl.sum(p, 1)
    acc = acc * alpha[:, None]
    acc = tl.dot(p.to(v.dtype), v, acc)
    return acc, l_i, m_new

@triton.jit
def _paged_prefill_tiles(
    acc,
    l_i,
    m_i,
    q,
    k_base,
    v_base,
    block_table_ptr,
    start,
    end,
    context_len,
    seq_len,
    offs_m,
    offs_n,
    offs_d,
    qk_scale,
    stride_k_blk: tl.int64,
    stride_v_blk: tl.int64,
    PAGE_SIZE: tl.constexpr,
    X: tl.constexpr,
    BLOCK_N: tl.constexpr,
    MASKED: tl.constexpr,
    KCOAL: tl.constexpr,
    HOIST: tl.constexpr,
):
    # Inside one page and head the layouts are dense (checked by the
    # wrapper): K element (d, n) sits at (d // X) * PAGE_SIZE * X + n * X +
    # d % X and V element (n, d) at d * PAGE_SIZE + n. Compile-time strides
    # let the loads vectorize; only the page base changes per tile.
    k_tile_offs = (
        (offs_d[:, None] // X) * (PAGE_SIZE * X)
        + offs_n[None, :] * X
        + (offs_d[:, None] % X)
    )
    v_tile_offs = offs_d[None, :] * PAGE_SIZE + offs_n[:, None]
    k_coal_offs = (
        tl.arange(0, offs_d.shape[0] // X)[:, None, None] * (PAGE_SIZE * X)
        + offs_n[None, :, None] * X
        + tl.arange(0, X)[None, None, :]
    )
    if HOIST:
        for page in range(start // PAGE_SIZE, tl.cdiv(end, PAGE_SIZE)):
            physical_block = tl.load(block_table_ptr + page).to(tl.int64)
            k_page = k_base + physical_block * stride_k_blk
            v_page = v_base + physical_block * stride_v_blk
            lo = tl.maximum(start, page * PAGE_SIZE)
            hi = tl.minimum(end, page * PAGE_SIZE + PAGE_SIZE)
            for start_n in range(lo, hi, BLOCK_N):
                start_n = tl.multiple_of(start_n, BLOCK_N)
                page_offset = tl.multiple_of(start_n - page * PAGE_SIZE, BLOCK_N)
                acc, l_i, m_i = _tile(acc, l_i, m_i, q, k_page + page_offset * X, v_page + page_offset, start_n, k_tile_offs, k_coal_offs, v_tile_offs, context_len, seq_len, offs_m, offs_n, qk_scale, offs_d.shape[0], MASKED, KCOAL)
    else:
        for start_n in range(start, end, BLOCK_N):
            start_n = tl.multiple_of(start_n, BLOCK_N)
            physical_block = tl.load(block_table_ptr + start_n // PAGE_SIZE).to(tl.int64)
            page_offset = tl.multiple_of(start_n % PAGE_SIZE, BLOCK_N)
            acc, l_i, m_i = _tile(acc, l_i, m_i, q, k_base + physical_block * stride_k_blk + page_offset * X, v_base + physical_block * stride_v_blk + page_offset, start_n, k_tile_offs, k_coal_offs, v_tile_offs, context_len, seq_len, offs_m, offs_n, qk_scale, offs_d.shape[0], MASKED, KCOAL)
    return acc, l_i, m_i


@triton.jit
def _paged_prefill_aligned_kernel(
    out_ptr,
    q_ptr,
    k_cache_ptr,
    v_cache_ptr,
    block_table_ptr,
    seq_lens_ptr,
    qk_scale,
    num_q_tokens,
    num_q_tiles,
    stride_q_tok: tl.int64,
    stride_q_head: tl.int64,
    stride_o_tok: tl.int64,
    stride_o_head: tl.int64,
    stride_k_blk: tl.int64,
    stride_k_head: tl.int64,
    stride_v_blk: tl.int64,
    stride_v_head: tl.int64,
    NUM_QUERIES_PER_KV: tl.constexpr,
    HEAD_SIZE: tl.constexpr,
    PAGE_SIZE: tl.constexpr,
    X: tl.constexpr,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    KCOAL: tl.constexpr = False,
    HOIST: tl.constexpr = False,
):
    # Query heads vary fastest so that programs running together share the
    # K/V tiles of one KV head in L2; the heaviest (last) query tiles of the
    # causal triangle are scheduled first.
    head = tl.program_id(0)
    q_tile = num_q_tiles - 1 - tl.program_id(1)
    kv_head = head // NUM_QUERIES_PER_KV

    seq_len = tl.load(seq_lens_ptr)
    context_len = seq_len - num_q_tokens

    m_start = q_tile * BLOCK_M
    offs_m = m_start + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_SIZE)
    row_valid = offs_m < num_q_tokens

    q_ptrs = (
        q_ptr
        + offs_m[:, None].to(tl.int64) * stride_q_tok
        + head * stride_q_head
        + offs_d[None, :]
    )
    q = tl.load(q_ptrs, mask=row_valid[:, None], other=0.0)

    m_i = tl.full([BLOCK_M], -1.0e30, dtype=tl.float32)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_SIZE], dtype=tl.float32)

    k_base = k_cache_ptr + kv_head * stride_k_head
    v_base = v_cache_ptr + kv_head * stride_v_head

    # Keys [0, full_end) are visible to every row of this tile: no mask.
    full_end = ((context_len + m_start + 1) // BLOCK_N) * BLOCK_N
    # Keys [full_end, diag_end) straddle the causal diagonal (or seq_len).
    diag_end = tl.minimum(context_len + m_start + BLOCK_M, seq_len)

    acc, l_i, m_i = _paged_prefill_tiles(
        acc,
        l_i,
        m_i,
        q,
        k_base,
        v_base,
        block_table_ptr,
        0,
        full_end,
        context_len,
        seq_len,
        offs_m,
        offs_n,
        offs_d,
        qk_scale,
        stride_k_blk,
        stride_v_blk,
        PAGE_SIZE,
        X,
        BLOCK_N,
        False,
        KCOAL,
        HOIST,
    )
    acc, l_i, m_i = _paged_prefill_tiles(
        acc,
        l_i,
        m_i,
        q,
        k_base,
        v_base,
        block_table_ptr,
        full_end,
        diag_end,
        context_len,
        seq_len,
        offs_m,
        offs_n,
        offs_d,
        qk_scale,
        stride_k_blk,
        stride_v_blk,
        PAGE_SIZE,
        X,
        BLOCK_N,
        True,
        KCOAL,
        HOIST,
    )

    acc = acc / l_i[:, None]
    o_ptrs = (
        out_ptr
        + offs_m[:, None].to(tl.int64) * stride_o_tok
        + head * stride_o_head
        + offs_d[None, :]
    )
    tl.store(o_ptrs, acc.to(out_ptr.dtype.element_ty), mask=row_valid[:, None])


def _default_config(head_size: int, dtype: torch.dtype) -> tuple[int, int, int, int]:
    """(BLOCK_M, BLOCK_N, num_warps, num_stages)."""
    # Tuned on an H200 for head 256 (q=4096, page 832): 128x64 tiles, 8 warps,
    # 3 stages (196 KiB of shared memory, no register spills).
    return 128, 64, 8, 3


def check_paged_prefill_aligned_support(
    head_size: int,
    num_heads: int,
    num_kv_heads: int,
    page_size: int,
    dtype: torch.dtype,
) -> str | None:
    """Return why the kernel cannot serve this shape, or None if it can."""
    if head_size not in SUPPORTED_HEAD_SIZES:
        return f"head size {head_size} is not one of {SUPPORTED_HEAD_SIZES}"
    if num_kv_heads <= 0 or num_heads % num_kv_heads != 0:
        return f"{num_heads} query heads are not a multiple of {num_kv_heads}"
    if page_size % PAGED_PREFILL_PAGE_ALIGNMENT != 0:
        return (
            f"page size {page_size} is not a multiple of {PAGED_PREFILL_PAGE_ALIGNMENT}"
        )
    if dtype not in SUPPORTED_DTYPES:
        return f"dtype {dtype} is not supported"
    return None


def paged_prefill_aligned(
    query: torch.Tensor,
    key_cache: torch.Tensor,
    value_cache: torch.Tensor,
    output: torch.Tensor,
    block_table: torch.Tensor,
    seq_lens: torch.Tensor,
    softmax_scale: float,
    *,
    block_m: int | None = None,
    block_n: int | None = None,
    num_warps: int | None = None,
    num_stages: int | None = None,
    kcoal: bool = False,
    hoist: bool = False,
) -> torch.Tensor:
    """Causal attention of one query chunk over its paged context.

    Args:
        query: [num_q_tokens, num_heads, head_size], the last num_q_tokens
            tokens of the sequence.
        key_cache: [num_blocks, num_kv_heads, head_size // x, page_size, x].
        value_cache: [num_blocks, num_kv_heads, head_size, page_size].
        output: [num_q_tokens, num_heads, head_size], written in place.
        block_table: [1, max_blocks] or [max_blocks] int32 page indices.
        seq_lens: [1] int32 on the device: total tokens of the sequence,
            context plus the chunk (vLLM's seqused_k).
        softmax_scale: scale applied to Q.K^T.
        block_m: query rows per program (tuning override).
        block_n: KV tokens per tile, a divisor of the page (tuning override).
        num_warps: warps per program (tuning override).
        num_stages: software pipeline depth (tuning override).

    """
    if query.dim() != 3 or output.shape != query.shape:
        raise ValueError(
            f"query {tuple(query.shape)} and output {tuple(output.shape)} "
            "must both be [num_q_tokens, num_heads, head_size]"
        )
    if key_cache.dim() != 5 or value_cache.dim() != 4:
        raise ValueError(
            "expected ROCM_ATTN's split cache: key_cache [blocks, kv_heads, "
            "head // x, page, x] and value_cache [blocks, kv_heads, head, page]"
        )
    num_q_tokens, num_heads, head_size = query.shape
    num_kv_heads = value_cache.shape[1]
    page_size = value_cache.shape[3]
    x = key_cache.shape[4]
    reason = check_paged_prefill_aligned_support(
        head_size, num_heads, num_kv_heads, page_size, query.dtype
    )
    if reason is not None:
        raise ValueError(f"paged_prefill_aligned: {reason}")
    if (
        key_cache.shape[1] != num_kv_heads
        or key_cache.shape[2] * x != head_size
        or key_cache.shape[3] != page_size
        or value_cache.shape[2] != head_size
    ):
        raise ValueError(
            f"cache shapes {tuple(key_cache.shape)} / {tuple(value_cache.shape)} "
            f"do not match head size {head_size}"
        )
    if key_cache.dtype != query.dtype or value_cache.dtype != query.dtype:
        raise ValueError("query and K/V cache must share one dtype")
    if query.stride(2) != 1 or output.stride(2) != 1:
        raise ValueError("query and output need a contiguous head dimension")
    # Pages and heads may sit anywhere (hybrid layouts pad the block stride),
    # but one head's page must be dense, as split_kv_cache's views are.
    if key_cache.stride()[2:] != (page_size * x, x, 1) or value_cache.stride()[2:] != (
        page_size,
        1,
    ):
        raise ValueError(
            f"K/V cache strides {key_cache.stride()} / {value_cache.stride()} "
            "are not dense inside a page and head"
        )
    if block_table.dim() == 2:
        if block_table.shape[0] != 1:
            raise ValueError("paged_prefill_aligned serves exactly one sequence")
        block_table = block_table[0]
    if seq_lens.numel() != 1:
        raise ValueError("paged_prefill_aligned serves exactly one sequence")
    if block_table.stride(0) != 1:
        block_table = block_table.contiguous()
    if num_q_tokens == 0:
        return output

    d_m, d_n, d_w, d_s = _default_config(head_size, query.dtype)
    block_m = block_m or d_m
    block_n = block_n or d_n
    num_warps = num_warps or d_w
    num_stages = num_stages or d_s
    if page_size % block_n != 0:
        raise ValueError(f"KV tile {block_n} would cross a {page_size}-token page")

    num_q_tiles = triton.cdiv(num_q_tokens, block_m)
    grid = (num_heads, num_q_tiles)
    _paged_prefill_aligned_kernel[grid](
        output,
        query,
        key_cache,
        value_cache,
        block_table,
        seq_lens,
        softmax_scale * _LOG2E,
        num_q_tokens,
        num_q_tiles,
        query.stride(0),
        query.stride(1),
        output.stride(0),
        output.stride(1),
        key_cache.stride(0),
        key_cache.stride(1),
        value_cache.stride(0),
        value_cache.stride(1),
        NUM_QUERIES_PER_KV=num_heads // num_kv_heads,
        HEAD_SIZE=head_size,
        PAGE_SIZE=page_size,
        X=x,
        BLOCK_M=block_m,
        BLOCK_N=block_n,
        KCOAL=kcoal,
        HOIST=hoist,
        num_warps=num_warps,
        num_stages=num_stages,
    )
    return output
