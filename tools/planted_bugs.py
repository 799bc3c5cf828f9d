# SPDX-License-Identifier: Apache-2.0
"""Planted one-line bugs in the series' code, each run against the series'
own CPU tests of the file it is planted in, in a built fork tree; prints
caught or SURVIVED per bug and restores the file.

    python3 tools/planted_bugs.py [--base v0.33.0] [--tree DIR] [--python PY]
                                  [--group NAME ...] [N ...]

Groups (each with its own tests, so that a run stays short): dispatch (the
backends' dispatch code, ROCM_ATTN and TRITON_ATTN: bugs 0-30), decode (the
page-contiguous decode op), prefill (the page-aligned Triton paged prefill
kernel and the prefill fallback predicate), vendor (the DCU FlashAttention
call builder), alignment (the hybrid page alignment), prefix (prefix
prefill's block-table bound), fresh (session 7's set, all files), nhd
(session 8: the NHD layout of Triton paged-prefill layers), fresh8
(session 8's held-out set, all files), small (session 24: pages smaller
than a tile), mixed (session 25: when TRITON_ATTN splits a mixed batch)
rocm_small (session 27: ROCM_ATTN's small pages at head 256), short
(session 28: the decode op's last tile first and its empty splits) and
reduce (session 29: the decode op's reduce reading ahead of the length),
fresh30d, fresh30r, fresh30p (session 30's held-out set, by area) and
fresh30b and fresh30c (its second and third held-out sets; run fresh30c
with --base v0.29.0), fresh31 (session 31's held-out set, all files) and
fresh32 and fresh32c (session 32's; run fresh32c with --base v0.29.0)
and fresh33, fresh33k, fresh33kc, fresh33b and fresh33bc (session 33's: the
backends' metadata builders; the kernel bodies, page alignment and prefill
capability; v0.29.0's prefix-prefill tiling; boundaries; run the groups
ending in c with --base v0.29.0), band (session 36: patch 20's
decode_grid_stays_on_unified_attention and TRITON_ATTN's use of it) and
parts (session 38: patch 21's tile parts).
N: only these bugs (numbered over all groups).
--tree/--python default to the base's fork tree and venv under .fork/.

A bug whose old text is not in the tree (another base) is listed as SKIP.
Session 5 on v0.33.0: 22 of 31 dispatch bugs caught before the routing tests
it led to, 30 of 31 after; the survivor (9) passes every sequence length to
chunked_prefill_paged_decode for the decode rows, which skips the prefill
rows by their query length, so no value changes.
A run on v0.33.0 of the other groups (44 bugs, about 55 minutes on two
busy cores): decode 10 of 12, prefill 7 of 10, vendor 4 of 8, alignment 5
of 8, prefix 6 of 6. Two of the decode ones (36, 37: padded head dims
stored past a head) are caught only because the write past the output
corrupts the interpreter's heap (crashed workers; 37 then hangs), not by
an assertion. Session 6 added a test for each of those 14 (all but 68, the
ROCm platform's log line, whose module does not import on the CPU): each was
re-run against the tests it led to and is caught by an assertion now, on
v0.33.0 and v0.29.0's identical test files: 73 of 75 over all groups.
Session 7 added one for 68 (the ROCm platform module imported with the GPU
arch faked as gfx942): 74 of 75; 9 is the one left. It then had a reviewer
who had not read the tests write a fresh set (group fresh, 75-96, every
series file): 13 of 22 caught by the whole test files at first (59%; one
of them, 81, is also one of the prefill test's own mutants). Tests were
added for the 9 survivors (query-head padding, rows of no KV token, K and V
with their own strides, K/V cache shapes the prefill wrapper refuses,
routing by query heads per KV head, AITER's interleaved V cache, non-causal
batches, soft cap and ALiBi from the model config, page 16 at a block-table
row end); each fails with its bug: 22 of 22 (89 has no old text in v0.29.0,
which has no interleaved V cache).
Session 8 wrote group nhd (97-106) with the change it tests: 10 of 10 on
v0.33.0; a helper that had not read the tests wrote group fresh8 (107-130):
23 of 24 caught at first by the whole test files (96%); the survivor (116)
has a test now.
Session 24 wrote group small (131-138: pages read several per tile, and
their TRITON_ATTN-only route) with the change it tests: 8 of 8 on v0.33.0.
Session 25 wrote group mixed (139-144: the builder splits a mixed batch only
where its longest decode row is more than 5x its longest prefill row) with
the change it tests: 6 of 6 on v0.33.0 and v0.29.0.
Session 28 wrote group short (150-152: the decode op's last tile attended
before its loop, empty splits exiting at once) with the change it tests:
3 of 3 on v0.33.0 (150 once the zero-length rows test joined the group).
Session 29 wrote group reduce (153-158: the reduce reads every split's
partial state ahead of the sequence length) with the change it tests:
5 of 5 at first, 153 only by chance (tl.max skips NaN); after review the
guard's workspace is filled with +inf and runs a five-split launch: 153 and
156-158 caught again (158 new), 4 of 4.
Session 30 had a helper who read the series' code but none of its tests
write groups fresh30d, fresh30r and fresh30p (159-184: the decode op, the
backends' routing, the prefill kernels and calls), each run against the
whole test files of what it plants in: 25 of 26 caught at first (96%). The
survivor (172: the workspace sized one batch short of one and a half
waves) changes the size only where that batch needs the most, with a few
compute units; the workspace test now also runs at 1 and 3 CUs: 26 of 26.
A second helper wrote group fresh30b (185-198) on code the first set did
not touch, run against every series test file: 13 of 14 at first; the
survivor (193: TRITON_ATTN's builder sizing the workspace with query and
KV heads swapped) is caught by a test of the real builder's workspace
now: 14 of 14 (193 and 194 re-run alone: a run of 193 overlapped 194's).
A third (fresh30c, 199-206, on v0.29.0: its first patch's prefix_prefill
clamp, the page alignment, the NHD views): 6 of 8 at first. The survivors,
205 (nhd_kv_cache_views returns V as K and K as V: the series' writer and
readers still agree, but index 0 of the bound cache is no longer K for
anything else that reads it) and 206 (the vendor call builder demanding
fully contiguous K/V: the NHD views of a block-first LBHNC cache are not),
are caught on both bases now by tests that store a token through the
logical cache and read it back through the views, and that build the
vendor arguments from the views of either physical layout: 8 of 8 on
v0.29.0 (205 and 206 also caught on v0.33.0).
Session 31: a fourth held-out set (fresh31, 207-229: 23 bugs over seven of
the series' nine source files, by a helper that had read the code but not
the tests, run on v0.33.0 against every series test file): 22 of 23 at
first. The survivor (214: an empty row's last tile taken as live, so it
attends a tile at negative offsets) was hidden by the zero-length test's
NaN-filled cache: an empty row that reads NaN has a NaN softmax sum, which
is not positive, so it writes zeros. That test now fills the cache with
finite data and points the empty rows at its last block: 214 is caught on
both bases, and the whole set on v0.29.0 after the change: 23 of 23.
Session 32: a fifth held-out set by a helper that read the code but not the
tests (fresh32, 230-246 on v0.33.0: the new wave_splits config, the config
and platform changes, other series code; fresh32c, 247-251 on v0.29.0's
prefix_prefill): 15 of 17 and 4 of 5 at first. Survivors: 238 (RocmPlatform
logging the last attention backend's page decision instead of the first's)
and 239 (its guard `and backend_classes` as `or`: IndexError for a model
without attention layers), now caught by the platform test run with two
backends and with none (patch 1); 250 (upstream's bidirectional key range
of prefix_prefill rounded down to whole key tiles), now caught by the
fp32-reference test run with causal=False too.
Session 33: three more held-out sets by helpers that read the code but not
the tests, each run against every series test file: fresh33 (252-271, the
backends' metadata builders) 20 of 20 on v0.33.0 and on v0.29.0; fresh33k
(272-285, kernel bodies, page alignment, prefill capability) 14 of 14;
fresh33kc (286-291, v0.29.0's prefix-prefill tiling) 5 of 6; fresh33b and
fresh33bc (292-306, boundaries) 13 of 13 and 2 of 2. The survivor (291:
with k = v = None, cross-attention's cached K/V, every current-chunk tile
read the chunk's first 64 tokens from the cache) is caught on both bases
by the fp32-reference test run with the K/V read from the cache too.
Session 36: group band (307-314), written with patch 20: 8 of 8 on both
bases. Patch 20 merged the op call and the prefill rows' slicing in
TRITON_ATTN's forward under one `if first > 0:`, so bugs 30 and 303 were
rewritten to the new lines: both caught on both bases.
Session 38: group parts (315-330), written with patch 21: 16 of 16 on
both bases.
"""

import argparse
import os
import signal
import subprocess
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
R = "vllm/v1/attention/backends/rocm_attn.py"
T = "vllm/v1/attention/backends/triton_attn.py"
DISPATCH_TESTS = [
    "tests/v1/attention/test_triton_attn_page_contiguous_decode.py",
    "tests/v1/attention/test_rocm_attn_page_contiguous_decode.py",
    "tests/kernels/attention/test_rocm_attn_mixed_batches.py",
    "tests/kernels/attention/test_rocm_vendor_paged_prefill.py",
]
DISPATCH = [
    (
        R,
        "        if attn_metadata.num_prefills > 0:\n            attn_metadata.num_decodes = 0",
        "        if attn_metadata.num_prefills > 1:\n            attn_metadata.num_decodes = 0",
    ),
    (
        R,
        "        first = attn_metadata.num_decodes\n        query_start_loc",
        "        first = 0\n        query_start_loc",
    ),
    (R, "                query_start_loc[:2] - first,", "                query_start_loc[:2],"),
    (
        R,
        "                seq_lens[:1],\n                block_table[:1],",
        "                seq_lens[1:2],\n                block_table[:1],",
    ),
    (
        R,
        "                block_table[:1],\n                attn_metadata.max_query_len,",
        "                attn_metadata.block_table[:1],\n                attn_metadata.max_query_len,",
    ),
    (
        R,
        "            end = attn_metadata.num_actual_tokens",
        "            end = attn_metadata.num_actual_tokens - 1",
    ),
    (
        R,
        "                min(num_actual_tokens, seqused_k.shape[0]),",
        "                seqused_k.shape[0],",
    ),
    (
        R,
        "        if prefill_reason is None or (decode_op and num_decodes > 0):",
        "        if prefill_reason is None or (decode_op and num_decodes > 1):",
    ),
    (
        R,
        "                    query_start_loc=cu_seqlens_q[: num_decodes + 1],",
        "                    query_start_loc=cu_seqlens_q[:num_decodes],",
    ),
    (
        R,
        "                    seq_lens=seqused_k[:num_decodes],",
        "                    seq_lens=seqused_k,",
    ),
    (
        R,
        "            cu_seqlens_q = cu_seqlens_q[num_decodes:]\n",
        "            cu_seqlens_q = cu_seqlens_q[num_decodes + 1 :]\n",
    ),
    (R, "            seqused_k = seqused_k[num_decodes:]\n", ""),
    (
        R,
        "            and not self._use_interleaved_v_cache\n            and key_cache.dtype == query.dtype",
        "            and key_cache.dtype == query.dtype",
    ),
    (
        R,
        "            and key_cache.dtype == query.dtype\n            and attn_metadata.decode_workspace",
        "            and attn_metadata.decode_workspace",
    ),
    (
        R,
        "            and output_scale is None\n            and not self._use_interleaved_v_cache\n            and key_cache",
        "            and not self._use_interleaved_v_cache\n            and key_cache",
    ),
    (
        R,
        "        if max_query_len > VENDOR_PREFILL_MAX_TOKENS:",
        "        if max_query_len >= VENDOR_PREFILL_MAX_TOKENS:",
    ),
    (R, "        if num_prefills != 1:", "        if num_prefills > 2:"),
    (R, "    if block_size < capability.min_page:", "    if block_size <= capability.min_page:"),
    (R, "    if num_kv_heads <= 0 or num_heads % num_kv_heads != 0:", "    if num_kv_heads <= 0:"),
    (R, "    if not causal:\n", "    if False:\n"),
    (R, "    if has_output_scale:\n", "    if False:\n"),
    (
        T,
        "        if attn_metadata.max_query_len > 1:\n            attn_metadata.num_decodes = 0",
        "        if attn_metadata.max_query_len > 2:\n            attn_metadata.num_decodes = 0",
    ),
    (
        T,
        "                first = min(num_actual_tokens, seqused_k.shape[0])",
        "                first = seqused_k.shape[0]",
    ),
    (
        T,
        "                cu_seqlens_q = cu_seqlens_q[first:] - first",
        "                cu_seqlens_q = cu_seqlens_q[first:]",
    ),
    (T, "                seqused_k = seqused_k[first:]\n", ""),
    (T, "                block_table = block_table[first:]\n", ""),
    (
        T,
        "            q=query[first:num_actual_tokens],",
        "            q=query[:num_actual_tokens],",
    ),
    (T, "            and chunk_lookback == -1\n", "\n"),
    (
        T,
        "            and output_scale is None\n            and mm_prefix",
        "            and mm_prefix",
    ),
    (T, "            and key_cache.dtype == query.dtype\n", ""),
    (
        T,
        "                if max_seqlen_q == 1:\n                    return output",
        "                if max_seqlen_q == 0:\n                    return output",
    ),
]


def tests_of(path: str, *names: str) -> list[str]:
    """Node ids of these test functions, in this order: the quick ones first,
    so that a caught bug ends the run early (-x)."""
    return [f"{path}::{name}" for name in names]


D = "vllm/v1/attention/ops/decode_page_contiguous.py"
DECODE_TESTS = tests_of(
    "tests/v1/attention/test_rocm_attn_page_contiguous_decode.py",
    "test_supports_page_contiguous_decode",
) + tests_of(
    "tests/kernels/attention/test_decode_page_contiguous.py",
    "test_page_contiguous_decode_is_faster",
    "test_page_contiguous_decode_is_faster_by_dtype",
    "test_launch_config_is_pinned_per_target",
    "test_launch_config_refuses_heads_over_256",
    "test_launch_uses_the_config_of_the_target_and_layout",
    "test_decode_page_contiguous_refuses_unsupported_inputs",
    "test_decode_page_contiguous_writes_only_its_output",
    "test_workspace_fits_every_batch_exactly",
    "test_one_tile_sequences_skip_the_reduce",
    "test_decode_page_contiguous_is_deterministic",
    "test_decode_page_contiguous_negative_controls",
    "test_decode_page_contiguous_reads_stay_in_bounds",
    "test_decode_page_contiguous_guard_catches_overrun",
    "test_decode_page_contiguous",
    "test_decode_page_contiguous_cuda_graph",
)
DECODE = [
    # The K load mask inside a page (the last tile of a page may reach past it).
    (D, "        mask=dim_mask[:, None] & tok_mask[None, :],", "        mask=dim_mask[:, None],"),
    # _tile_count: the last page of a sequence that ends on a page boundary.
    (
        D,
        "    last_page = tl.maximum(seq_len - 1, 0) // PAGE_SIZE",
        "    last_page = seq_len // PAGE_SIZE",
    ),
    # Split ranges: one split too long; an empty split past the end attends the last tile.
    (
        D,
        "(split_idx < num_longer).to(tl.int32)",
        "(split_idx <= num_longer).to(tl.int32)",
    ),
    (
        D,
        "    has_last_tile = (tile_end == num_tiles) & (tile_start < tile_end)",
        "    has_last_tile = tile_end == num_tiles",
    ),
    # Reduce: empty splits not skipped; padded head dims stored (reduce, main kernel).
    (D, "    live = offs_s < num_live", "    live = offs_s < num_splits"),
    (D, "        mask=offs_d < HEAD_SIZE,\n", ""),
    (
        D,
        "    store_mask = head_mask[:, None] & dim_mask[None, :]",
        "    store_mask = head_mask[:, None]",
    ),
    # Split count cap, workspace size, launch config per target/layout.
    (D, "_MAX_NUM_SPLITS = 128", "_MAX_NUM_SPLITS = 64"),
    (
        D,
        "    return units * num_query_heads * (head_size_padded + 2)",
        "    return units * num_query_heads * (head_size_padded + 1)",
    ),
    (D, "        if key == (256, 2) and not x_packed:", "        if key == (256, 2):"),
    # Wrapper validation: a block table with fewer rows than queries.
    (D, "        or block_table.shape[0] < num_seqs\n", ""),
    # The feature predicate.
    (D, "        and not has_sinks\n", ""),
]

P = "vllm/v1/attention/ops/triton_paged_prefill_aligned.py"
PREFILL_TESTS = (
    tests_of(
        "tests/kernels/attention/test_rocm_attn_mixed_batches.py",
        "test_predicate_accepts",
        "test_predicate_each_condition_falls_back",
        "test_predicate_keeps_small_pages_off_the_triton_kernel",
    )
    + tests_of(
        "tests/kernels/attention/test_triton_paged_prefill_aligned.py",
        "test_launch_config_is_pinned_per_target",
        "test_paged_prefill_aligned_rejects_unsupported_inputs",
        "test_paged_prefill_aligned_rejects_misread_layouts",
        "test_paged_prefill_aligned_empty_launches_leave_output_untouched",
        "test_paged_prefill_aligned_negative_input_controls",
        "test_paged_prefill_aligned_reads_stay_in_bounds",
        "test_paged_prefill_aligned_other_tiles",
        "test_paged_prefill_aligned_matches_reference",
        "test_paged_prefill_aligned_catches_kernel_mutants",
        "test_launch_configs_fit_amd_and_nvidia_targets",
    )
    + tests_of(
        "tests/kernels/attention/test_rocm_vendor_paged_prefill.py",
        "test_triton_kernel_matches_vendor_contract",
    )
)
PREFILL = [
    # Kernel: V load mask, query load mask, causal full-tile bound, tile range.
    (
        P,
        "                v = tl.load(v_ptrs, mask=kv_valid[:, None], other=0.0)",
        "                v = tl.load(v_ptrs)",
    ),
    (
        P,
        "    q = tl.load(q_ptrs, mask=row_valid[:, None], other=0.0)",
        "    q = tl.load(q_ptrs)",
    ),
    (
        P,
        "    full_end = ((context_len + m_start + 1) // BLOCK_N) * BLOCK_N",
        "    full_end = ((context_len + m_start + 2) // BLOCK_N) * BLOCK_N",
    ),
    (
        P,
        "        tiles_end = tl.minimum(end, page_start + PAGE_SIZE)",
        "        tiles_end = page_start + PAGE_SIZE",
    ),
    (P, "    if q_tile < 0:\n        return", "    if q_tile < -1:\n        return"),
    # Launch config: the sm_90 table on newer NVIDIA targets.
    (
        P,
        'target.backend == "cuda" and target.arch == 90:',
        'target.backend == "cuda" and target.arch >= 90:',
    ),
    # Wrapper: support check (GQA grouping) and the dense-page check.
    (P, "    if num_kv_heads <= 0 or num_heads % num_kv_heads != 0:", "    if num_kv_heads <= 0:"),
    (P, "(page_size * x, x, 1) or value_cache", "(page_size * x, x, 1) and value_cache"),
    # ROCM_ATTN's fallback predicate (the conditions the dispatch bugs leave out).
    (R, "        if dtype != torch.bfloat16:", "        if dtype == torch.float16:"),
    (
        R,
        "    if block_size % capability.page_alignment != 0:",
        "    if block_size % 16 != 0:",
    ),
]

V = "vllm/v1/attention/ops/rocm_vendor_paged_prefill.py"
VENDOR_TESTS = tests_of(
    "tests/kernels/attention/test_rocm_vendor_paged_prefill.py",
    "test_vendor_args_reject_what_the_kernel_cannot_take",
    "test_vendor_args_negative_controls",
    "test_vendor_args_follow_the_contract",
    "test_triton_kernel_matches_vendor_contract",
    "test_vendor_kernel_matches_contract",
) + tests_of(
    "tests/kernels/attention/test_rocm_attn_mixed_batches.py",
    "test_forward_vendor_layer_mixed_batch",
)
VENDOR = [
    (V, "        causal=True,", "        causal=False,"),
    (V, "        max_seqlen_q=max_seqlen_q,", "        max_seqlen_q=max_seqlen_q - 1,"),
    (
        V,
        "    if page_size % VENDOR_PAGE_ALIGNMENT != 0:",
        "    if page_size % 16 != 0:",
    ),
    (
        V,
        "    if block_table.shape[1] < math.ceil(max_seqlen_k / page_size):",
        "    if block_table.shape[1] <= math.ceil(max_seqlen_k / page_size):",
    ),
    (V, "    if query.shape[1] % num_kv_heads != 0:", "    if False:"),
    (
        V,
        "    if output.shape != query.shape or output.dtype != query.dtype:",
        "    if output.shape != query.shape:",
    ),
    (V, '    _check_int32_vector("seqused_k", seq_lens, 1)\n', ""),
    (
        V,
        "    if key_cache.dim() != 4 or key_cache.shape != value_cache.shape:",
        "    if key_cache.dim() != 4:",
    ),
]

A = "vllm/v1/attention/backends/rocm_paged_prefill.py"
ALIGNMENT_TESTS = tests_of(
    "tests/kernels/attention/test_rocm_attn_mixed_batches.py",
    "test_capability_providers",
    "test_capability_each_condition_disables",
) + tests_of(
    "tests/v1/attention/test_rocm_paged_prefill_page_alignment.py",
    "test_capability_answers_both_ways",
    "test_capability_names_the_first_failed_condition",
    "test_sliding_window_keeps_the_page",
    "test_block_size_follows_the_declared_alignment",
    "test_qwen3_5_27b_page_arithmetic",
    "test_triton_opt_in_aligns_the_page",
    "test_prefix_caching_keeps_the_page",
    "test_user_block_size_behaves_as_before",
    "test_sixteen_aligned_rounding_is_caught",
    "test_decision_is_logged",
    "test_rocm_platform_logs_the_chosen_page",
)
ALIGNMENT = [
    (A, "    if not model_config.is_hybrid:", "    if False:"),
    (A, "    if cache_config.user_specified_block_size:", "    if False:"),
    (A, "        if head_size not in TRITON_HEAD_SIZES:", "        if False:"),
    (
        A,
        '    if kv_cache_dtype not in ("auto", "bfloat16"):',
        '    if kv_cache_dtype != "auto":',
    ),
    (
        A,
        "        sliding_window=model_config.get_sliding_window(),",
        "        sliding_window=None,",
    ),
    (
        R,
        "                if capability.page_alignment is not None:",
        '                if capability.provider == "vendor":',
    ),
    (
        "vllm/config/attention.py",
        "    use_rocm_triton_paged_prefill: bool = False",
        "    use_rocm_triton_paged_prefill: bool = True",
    ),
    (
        "vllm/platforms/rocm.py",
        "            log_page_alignment(vllm_config, backend_classes[0])",
        "            pass",
    ),
]

F = "vllm/v1/attention/ops/prefix_prefill.py"
PREFIX_TESTS = tests_of(
    "tests/kernels/attention/test_prefix_prefill.py",
    "test_context_attention_fwd_block_table_row_end",
    "test_context_attention_fwd_matches_paged_reference",
)
PREFIX = [
    (
        F,
        "            CLAMP_BLOCK_TABLE=PHYSICAL_BLOCK_SIZE % BLOCK_SIZE != 0,",
        "            CLAMP_BLOCK_TABLE=False,",
    ),
    (
        F,
        "            CLAMP_BLOCK_TABLE=PHYSICAL_BLOCK_SIZE % BLOCK_SIZE != 0,",
        "            CLAMP_BLOCK_TABLE=PHYSICAL_BLOCK_SIZE < BLOCK_SIZE,",
    ),
    (
        F,
        "        bn_logical = tl.minimum(bn_logical, last_block)",
        "        bn_logical = tl.minimum(bn_logical, last_block + 1)",
    ),
    (
        F,
        "        bn_logical = tl.minimum(bn_logical, last_block)",
        "        bn_logical = tl.maximum(bn_logical, last_block)",
    ),
    (
        F,
        "            last_block=(cur_batch_ctx_len - 1) // PHYSICAL_BLOCK_SIZE,",
        "            last_block=(cur_batch_ctx_len - 1) // PHYSICAL_BLOCK_SIZE - 1,",
    ),
    (F, "    if CLAMP_BLOCK_TABLE:", "    if MASK_BLOCK_TABLE:"),
]

# A fresh set written in session 7 by a reviewer who had not seen the tests,
# over every series file, each run against the tests that catch it now (9
# of 22 survived at first, run against whole test files; the tests added
# for them are listed here).
FRESH_TESTS = (
    tests_of(
        "tests/v1/attention/test_triton_attn_page_contiguous_decode.py",
        "test_non_causal_batch_keeps_unified_attention",
        "test_forward_routes_rows",
    )
    + tests_of(
        "tests/v1/attention/test_rocm_attn_page_contiguous_decode.py",
        "test_grouped_heads_route_by_queries_per_kv_head",
    )
    + tests_of(
        "tests/kernels/attention/test_rocm_attn_mixed_batches.py",
        "test_predicate_accepts",
        "test_predicate_each_condition_falls_back",
        "test_forward_interleaved_v_cache_keeps_todays_path",
    )
    + tests_of(
        "tests/kernels/attention/test_rocm_vendor_paged_prefill.py",
        "test_vendor_args_reject_what_the_kernel_cannot_take",
    )
    + tests_of(
        "tests/v1/attention/test_rocm_paged_prefill_page_alignment.py",
        "test_capability_names_the_first_failed_condition",
        "test_model_attention_features_keep_the_page",
    )
    + tests_of(
        "tests/kernels/attention/test_triton_paged_prefill_aligned.py",
        "test_paged_prefill_aligned_rejects_misread_layouts",
        "test_launch_config_is_pinned_per_target",
        "test_paged_prefill_aligned_matches_reference",
    )
    + tests_of(
        "tests/kernels/attention/test_decode_page_contiguous.py",
        "test_page_contiguous_decode_is_faster",
        "test_decode_page_contiguous_pads_query_heads_to_a_dot_tile",
        "test_decode_page_contiguous_zero_length_rows_are_zero",
        "test_decode_page_contiguous_reads_k_and_v_with_their_own_strides",
        "test_decode_page_contiguous",
    )
    + tests_of(
        "tests/kernels/attention/test_prefix_prefill.py",
        "test_context_attention_fwd_block_table_row_end",
    )
)
FRESH = [
    # --- decode op ---
    # 0: GQA query-head tile padded only to the next power of two (tl.dot needs M >= 16 on GPUs).
    (
        D,
        "        QUERIES_PER_KV_PADDED=max(16, next_power_of_2(queries_per_kv)),",
        "        QUERIES_PER_KV_PADDED=next_power_of_2(queries_per_kv),",
    ),
    # 1: seq_len == 0 rows (num_tiles == 0) no longer count as single-tile: nobody writes them.
    (D, "        single_tile = num_tiles <= 1", "        single_tile = num_tiles == 1"),
    # 2: TRITON_ATTN layout: V's block stride copied from K's (copy-paste).
    (
        D,
        "        v_strides = (sv[0], sv[2], sv[3], sv[1])",
        "        v_strides = (sk[0], sv[2], sv[3], sv[1])",
    ),
    # 3: reduce weights in base e while the maxima are in log2 units.
    (
        D,
        "    w = tl.where(live, tl.exp2(m_s - m_max), 0.0)",
        "    w = tl.where(live, tl.exp(m_s - m_max), 0.0)",
    ),
    # 4: reduce grid sized from the real head size, not the padded one.
    (
        D,
        "            (num_seqs, num_query_heads, head_size_padded // dim_block)",
        "            (num_seqs, num_query_heads, head_size // dim_block)",
    ),
    # 5: routing: 8 query heads per KV head no longer routed (off by one).
    (
        D,
        "        and 1 <= num_queries_per_kv <= _ROUTED_MAX_QUERIES_PER_KV",
        "        and 1 <= num_queries_per_kv < _ROUTED_MAX_QUERIES_PER_KV",
    ),
    # --- prefill kernel / wrapper ---
    # 6: masked range stops one key short of the tile's last row's diagonal.
    (
        P,
        "    diag_end = tl.minimum(context_len + m_start + BLOCK_M, seq_len)",
        "    diag_end = tl.minimum(context_len + m_start + BLOCK_M - 1, seq_len)",
    ),
    # 7: page loop drops a partial last page.
    (
        P,
        "    for page in range(start // PAGE_SIZE, tl.cdiv(end, PAGE_SIZE)):",
        "    for page in range(start // PAGE_SIZE, end // PAGE_SIZE):",
    ),
    # 8: K/V load mask admits the slot at seq_len (page tail, may be NaN).
    (
        P,
        "                kv_valid = (start_n + offs_n) < seq_len",
        "                kv_valid = (start_n + offs_n) <= seq_len",
    ),
    # 9: fp32 tiles not halved (itemsize check off).
    (P, "    if dtype.itemsize > 2:", "    if dtype.itemsize > 4:"),
    # 10: wrapper: K's head-dim packing not checked against head_size.
    (P, "        or key_cache.shape[2] * x != head_size\n", ""),
    # --- rocm_attn.py series code ---
    # 11: vendor chunk cap doubled.
    (R, "VENDOR_PREFILL_MAX_TOKENS = 4096", "VENDOR_PREFILL_MAX_TOKENS = 8192"),
    # 12: one-prefill / 4096-token limits applied to the Triton provider too.
    (
        R,
        '    if capability.provider == "vendor":\n        if num_prefills != 1:',
        "    if capability.provider is not None:\n        if num_prefills != 1:",
    ),
    # 13: routing asked with the total query heads, not heads per KV head.
    (
        R,
        "                self.num_heads // self.num_kv_heads,\n                query.dtype,",
        "                self.num_heads,\n                query.dtype,",
    ),
    # 14: AITER's interleaved V cache no longer keeps prefill off the providers.
    (
        R,
        "            and attn_metadata.num_prefills > 0\n            and not self._use_interleaved_v_cache\n        ):",
        "            and attn_metadata.num_prefills > 0\n        ):",
    ),
    # --- triton_attn.py series code ---
    # 15: non-causal (DFlash drafting) batches routed to the causal decode op.
    (T, "            and attn_metadata.causal is True\n", ""),
    # 16: routing asked with the KV head count instead of the page size.
    (
        T,
        "                key_cache.shape[1], self.head_size, self.num_queries_per_kv, query.dtype",
        "                key_cache.shape[2], self.head_size, self.num_queries_per_kv, query.dtype",
    ),
    # --- vendor builder ---
    # 17: block-table width checked with floor division.
    (
        V,
        "    if block_table.shape[1] < math.ceil(max_seqlen_k / page_size):",
        "    if block_table.shape[1] < max_seqlen_k // page_size:",
    ),
    # 18: extra block-table rows accepted.
    (
        V,
        "    if query_start_loc.shape[0] != num_seqs + 1 or block_table.shape[0] != num_seqs:",
        "    if query_start_loc.shape[0] != num_seqs + 1 or block_table.shape[0] < num_seqs:",
    ),
    # --- rocm_paged_prefill.py ---
    # 19: GQA grouping not checked.
    (A, "    if num_kv_heads < 1 or num_heads % num_kv_heads != 0:", "    if num_kv_heads < 1:"),
    # 20: the model's logit softcap ignored when picking the page.
    (
        A,
        '        logits_soft_cap=getattr(hf_text_config, "attn_logit_softcapping", None),',
        "        logits_soft_cap=None,",
    ),
    # --- prefix_prefill.py ---
    # 21: clamp condition with its operands swapped.
    (
        F,
        "            CLAMP_BLOCK_TABLE=PHYSICAL_BLOCK_SIZE % BLOCK_SIZE != 0,",
        "            CLAMP_BLOCK_TABLE=BLOCK_SIZE % PHYSICAL_BLOCK_SIZE != 0,",
    ),
]


# Session 8: the NHD layout of Triton paged-prefill layers (ROCM_ATTN) and of
# paged_prefill_aligned, each written with the change and run against the
# tests that catch it.
NHD_TESTS = tests_of(
    "tests/kernels/attention/test_rocm_attn_mixed_batches.py",
    "test_layers_a_provider_serves_keep_the_nhd_cache",
    "test_kv_cache_update_writes_the_layout_the_layer_reads",
    "test_forward_capture_keeps_the_generic_prefill",
    "test_forward_unrouted_head_splits_decodes_off",
    "test_forward_routes_rows_with_the_triton_provider",
    "test_forward_unrouted_page_keeps_todays_path_with_a_provider",
) + tests_of(
    "tests/kernels/attention/test_triton_paged_prefill_aligned.py",
    "test_paged_prefill_aligned_rejects_misread_nhd_layouts",
    "test_paged_prefill_aligned_reads_nhd_k_and_v_with_their_own_strides",
    "test_paged_prefill_aligned_reads_the_nhd_layout",
)
NHD = [
    # 97: a page equal to the provider's smallest taken as below it.
    (R, "and block_size >= capability.min_page", "and block_size > capability.min_page"),
    # 98: a layer whose prefill keeps today's path still given the provider.
    (
        R,
        "provider = capability.provider if prefill_reason is None else None",
        "provider = capability.provider",
    ),
    # 99: the decode rows' query_start_loc one entry short.
    (
        R,
        "cu_seqlens_q = cu_seqlens_q[: num_decodes + 1]",
        "cu_seqlens_q = cu_seqlens_q[:num_decodes]",
    ),
    # 100: the decode rows given every sequence length.
    (R, "            seq_lens = seq_lens[:num_decodes]\n", ""),
    # 101: decode rows the op served sent to unified_attention too.
    (R, "if num_decodes == 0 or decode_op:", "if num_decodes == 0:"),
    # 102: the cache writer not told the page (NHD at every page).
    (
        R,
        "if self._uses_nhd_kv_cache(key.dtype, kv_cache.shape[2]):",
        "if self._uses_nhd_kv_cache(key.dtype):",
    ),
    # 103: decode rows of an x-packed mixed batch sent to the op where it is
    # not routed.
    (
        R,
        "        if decode_op and num_decodes > 0:\n            # A mixed",
        "        if num_decodes > 0:\n            # A mixed",
    ),
    # 104: an NHD layer's decode rows sent to the op wherever it runs.
    (
        R,
        "            and page_contiguous_decode_is_faster(\n                key_cache.shape[1],",
        "            and bool(\n                key_cache.shape[1]) or page_contiguous_decode_is_faster(\n"
        "                key_cache.shape[1],",
    ),
    # 105: an NHD cache with a strided head dimension accepted.
    (
        P,
        "        dense = key_cache.stride(3) == 1 and value_cache.stride(3) == 1",
        "        dense = True",
    ),
    # 106: NHD V read with K's token stride.
    (
        P,
        "        v_strides = (sv[0], sv[2], sv[3], sv[1])",
        "        v_strides = (sv[0], sv[2], sv[3], sk[1])",
    ),
]


# Session 8: a fresh set by a helper that had not read the tests (24 bugs over
# every series file, NHD code included), run against the whole test files of
# each code file: 23 of 24 caught at first; the survivor (the NHD density
# check no longer looking at V) is caught by the strided-V case added to
# test_paged_prefill_aligned_rejects_misread_nhd_layouts.
FRESH8_TESTS = [
    "tests/kernels/attention/test_rocm_attn_mixed_batches.py",
    "tests/v1/attention/test_rocm_attn_page_contiguous_decode.py",
    "tests/v1/attention/test_triton_attn_page_contiguous_decode.py",
    "tests/kernels/attention/test_triton_paged_prefill_aligned.py",
    "tests/kernels/attention/test_rocm_vendor_paged_prefill.py",
    "tests/v1/attention/test_rocm_paged_prefill_page_alignment.py",
    "tests/kernels/attention/test_decode_page_contiguous.py",
    "tests/kernels/attention/test_prefix_prefill.py::test_context_attention_fwd_matches_paged_reference",
    "tests/kernels/attention/test_prefix_prefill.py::test_context_attention_fwd_block_table_row_end",
]
FRESH8 = [
    # 1: vendor limit off by one: a prefill chunk of exactly 4096 tokens falls back ("more than 4096 tokens").
    (
        R,
        "        if max_query_len > VENDOR_PREFILL_MAX_TOKENS:\n",
        "        if max_query_len >= VENDOR_PREFILL_MAX_TOKENS:\n",
    ),
    # 2: NHD layout rule: Triton-provider layers with a page of exactly min_page (256) keep the x-packed layout.
    (
        R,
        "                and block_size >= capability.min_page\n",
        "                and block_size > capability.min_page\n",
    ),
    # 3: NHD cache writer asks the layout rule with kv_cache.shape[1] (== 2, the K/V axis) instead of the page:
    #    Triton-provider layers write x-packed while forward reads NHD (garbage attention).
    (
        R,
        "        if self._uses_nhd_kv_cache(key.dtype, kv_cache.shape[2]):\n",
        "        if self._uses_nhd_kv_cache(key.dtype, kv_cache.shape[1]):\n",
    ),
    # 4: _forward_nhd_kv_cache, decode rows sent to unified_attention after the provider: cu_seqlens slice
    #    one short, so the last decode row is never computed (mixed batch, decode op not faster, e.g. head 64 / GQA > 8).
    (
        R,
        "            cu_seqlens_q = cu_seqlens_q[: num_decodes + 1]\n",
        "            cu_seqlens_q = cu_seqlens_q[:num_decodes]\n",
    ),
    # 5: _forward_nhd_kv_cache passes V as K and K as V to the paged prefill provider: wrong prefill rows
    #    whenever a provider serves the prefill.
    (
        R,
        "                prefill_provider, query, key_cache, value_cache, attn_metadata, output\n",
        "                prefill_provider, query, value_cache, key_cache, attn_metadata, output\n",
    ),
    # 6: _forward_paged_prefill forgets to skip the decode rows of the block table: prefill sequences of a
    #    mixed batch read the decode requests' pages (Triton: shifted rows; vendor: row 0).
    (
        R,
        "        block_table = attn_metadata.block_table[first:]\n",
        "        block_table = attn_metadata.block_table\n",
    ),
    # 7: vendor call gets absolute query_start_loc (not rebased to the sliced query) when the batch has decodes.
    (R, "                query_start_loc[:2] - first,\n", "                query_start_loc[:2],\n"),
    # 8: x-packed mixed batch: prefill cu_seqlens rebased to 0 although chunked_prefill_paged_decode gets
    #    the whole (absolute-row) query, so prefill rows read/write the decode rows' positions.
    (
        R,
        "            cu_seqlens_q = cu_seqlens_q[num_decodes:]\n",
        "            cu_seqlens_q = cu_seqlens_q[num_decodes:] - num_decodes\n",
    ),
    # 9: NHD branch: V head/dim/token strides taken in the wrong order (STRIDE_V_DIM = page-token stride,
    #    STRIDE_V_TOK = 1): wrong output for every NHD call.
    (
        A,
        "        v_strides = (sv[0], sv[2], sv[3], sv[1])\n",
        "        v_strides = (sv[0], sv[2], sv[1], sv[3])\n",
    ),
    # 10: NHD branch density check drops value_cache: a V view with a non-unit last stride is accepted
    #     instead of raising ValueError (and read as if dense).
    (
        A,
        "        dense = key_cache.stride(3) == 1 and value_cache.stride(3) == 1\n",
        "        dense = key_cache.stride(3) == 1\n",
    ),
    # 11: diag range one short: the last row of a query tile loses its own (diagonal) key when
    #     context_len % BLOCK_N == 1 (tile starting at that key is skipped).
    (
        A,
        "    diag_end = tl.minimum(context_len + m_start + BLOCK_M, seq_len)\n",
        "    diag_end = tl.minimum(context_len + m_start + BLOCK_M - 1, seq_len)\n",
    ),
    # 12: masked K/V loads read one token past seq_len: NaN in an unused page tail poisons the output
    #     (0 * NaN in p @ V).
    (
        A,
        "                kv_valid = (start_n + offs_n) < seq_len\n",
        "                kv_valid = (start_n + offs_n) <= seq_len\n",
    ),
    # 13: grid floors max_query_len / BLOCK_M: the first query tile of the longest chunk is never run
    #     (chunk length not a multiple of BLOCK_M; no program at all if shorter than BLOCK_M).
    (
        A,
        "    grid = (num_heads, num_seqs, triton.cdiv(max_query_len, block_m))\n",
        "    grid = (num_heads, num_seqs, max_query_len // block_m)\n",
    ),
    # 14: routing predicate off by one: GQA groups of exactly 8 query heads per KV head no longer routed.
    (
        D,
        "        and 1 <= num_queries_per_kv <= _ROUTED_MAX_QUERIES_PER_KV\n",
        "        and 1 <= num_queries_per_kv < _ROUTED_MAX_QUERIES_PER_KV\n",
    ),
    # 15: split ranges overlap: split num_longer gets an extra tile that the next split also covers,
    #     double counting it (split batches with num_tiles % num_splits != 0).
    (
        D,
        "    tile_end = tile_start + min_tiles + (split_idx < num_longer).to(tl.int32)\n",
        "    tile_end = tile_start + min_tiles + (split_idx <= num_longer).to(tl.int32)\n",
    ),
    # 16: _tile_count: last page computed from seq_len, not seq_len - 1: sequences whose length is a
    #     multiple of the page skip their last tile (and read one block-table entry past the end).
    (
        D,
        "    last_page = tl.maximum(seq_len - 1, 0) // PAGE_SIZE\n",
        "    last_page = seq_len // PAGE_SIZE\n",
    ),
    # 17: a split sequence of exactly one tile is treated as multi-tile by the main kernel but skipped
    #     by the reduce: its output is never written (short sequences in small, split batches).
    (D, "        single_tile = num_tiles <= 1\n", "        single_tile = num_tiles < 1\n"),
    # 18: main kernel floors tiles per page (disagreeing with _tile_count): pages not a multiple of the
    #     tile (e.g. 784 or 544 tokens) map tiles to wrong pages/offsets.
    (
        D,
        "    TILES_PER_PAGE: tl.constexpr = (PAGE_SIZE + TILE_SIZE - 1) // TILE_SIZE\n\n    seq_len = tl.load(seq_lens_ptr + seq_idx)\n",
        "    TILES_PER_PAGE: tl.constexpr = PAGE_SIZE // TILE_SIZE\n\n    seq_len = tl.load(seq_lens_ptr + seq_idx)\n",
    ),
    # 19: capability rejects an explicit kv_cache_dtype="bfloat16" (only "auto" accepted).
    (
        A,
        '    if kv_cache_dtype not in ("auto", "bfloat16"):\n',
        '    if kv_cache_dtype != "auto":\n',
    ),
    # 20: Triton capability forgets min_page: min_page defaults to 0, so pages 64-192 take the
    #     Triton provider / NHD layout.
    (A, "            min_page=TRITON_MIN_PAGE,\n", ""),
    # 21: vendor args reject a block table that exactly holds max_seqlen_k keys (off by one).
    (
        V,
        "    if block_table.shape[1] < math.ceil(max_seqlen_k / page_size):\n",
        "    if block_table.shape[1] <= math.ceil(max_seqlen_k / page_size):\n",
    ),
    # 22: TRITON_ATTN mixed batch: prefill cu_seqlens not rebased after slicing off the decode rows,
    #     so unified_attention indexes the sliced query/output at absolute rows.
    (
        T,
        "                cu_seqlens_q = cu_seqlens_q[first:] - first\n",
        "                cu_seqlens_q = cu_seqlens_q[first:]\n",
    ),
    # 23: TRITON_ATTN mixed batch: block table not sliced past the decode rows: prefill sequences read
    #     the decode requests' pages.
    (T, "                block_table = block_table[first:]\n", ""),
    # 24: prefix_prefill clamp uses max instead of min: with a page not divisible by BLOCK_SIZE every
    #     context lane looks up the context's last page (wrong K/V for longer contexts).
    (
        F,
        "        bn_logical = tl.minimum(bn_logical, last_block)\n",
        "        bn_logical = tl.maximum(bn_logical, last_block)\n",
    ),
]


# Session 24: pages smaller than a tile, read several per tile (patch 15), and
# their route (TRITON_ATTN only).
SMALL_TESTS = (
    tests_of(
        "tests/kernels/attention/test_decode_page_contiguous.py",
        "test_page_contiguous_decode_is_faster_on_small_pages",
        "test_page_contiguous_decode_is_faster",
        "test_pages_smaller_than_a_tile_are_read_several_per_tile",
        "test_one_tile_sequences_skip_the_reduce",
        "test_decode_page_contiguous",
        "test_decode_page_contiguous_reads_stay_in_bounds",
    )
    + tests_of(
        "tests/v1/attention/test_rocm_attn_page_contiguous_decode.py",
        "test_page_contiguous_decode_is_faster",
        "test_unrouted_decode_keeps_todays_kernel",
    )
    + tests_of(
        "tests/v1/attention/test_triton_attn_page_contiguous_decode.py",
        "test_forward_routes_rows",
        "test_unrouted_page_keeps_unified_attention",
    )
)
SMALL = [
    # 131: a token's page inside the tile taken from its offset in the page.
    (
        D,
        "            block_table_row + span_idx * PAGES_PER_TILE + span_offs // PAGE_SIZE,",
        "            block_table_row + span_idx * PAGES_PER_TILE + span_offs % PAGE_SIZE,",
    ),
    # 132: the block ids of a multi-page tile loaded without their mask.
    (
        D,
        "            block_table_row + span_idx * PAGES_PER_TILE + span_offs // PAGE_SIZE,\n"
        "            mask=mask,\n            other=0,\n",
        "            block_table_row + span_idx * PAGES_PER_TILE + span_offs // PAGE_SIZE,\n",
    ),
    # 133: a token's slot in its page taken as its offset in the tile.
    (D, "        page_offs = span_offs % PAGE_SIZE\n", "        page_offs = span_offs\n"),
    # 134: the last tile's block ids masked by the span, not by the tokens.
    (
        D,
        "            last_span,\n            span_offs,\n            tok_mask & has_last_tile,\n",
        "            last_span,\n            span_offs,\n            (span_offs < SPAN) & has_last_tile,\n",
    ),
    # 135: the reduce told one page per tile.
    (
        D,
        "            PAGE_SIZE=page_size,\n            PAGES_PER_TILE=pages_per_tile,\n"
        "            TILE_SIZE=tile_size,\n            NUM_SPLITS_PADDED",
        "            PAGE_SIZE=page_size,\n            PAGES_PER_TILE=1,\n"
        "            TILE_SIZE=tile_size,\n            NUM_SPLITS_PADDED",
    ),
    # 136: the split cap counts a tile per page.
    (
        D,
        "    max_tiles_per_seq = cdiv(block_table.shape[1], pages_per_tile) * cdiv(",
        "    max_tiles_per_seq = block_table.shape[1] * cdiv(",
    ),
    # 137: small pages routed without the caller asking (ROCM_ATTN too).
    (
        D,
        "            or (small_pages and block_size in _ROUTED_SMALL_PAGES)",
        "            or block_size in _ROUTED_SMALL_PAGES",
    ),
    # 138: TRITON_ATTN no longer asks for small pages.
    (T, "                small_pages=True,\n", "                small_pages=False,\n"),
]

# Session 25: TRITON_ATTN splits a mixed batch between decode_page_contiguous
# and unified_attention only where a decode row far outlasts the prefill.
MIXED_TESTS = ["tests/v1/attention/test_triton_attn_page_contiguous_decode.py"]
MIXED = [
    # 139: the boundary itself split.
    (
        T,
        "    if longest_decode > MIXED_BATCH_SPLIT_MIN_RATIO",
        "    if longest_decode >= MIXED_BATCH_SPLIT_MIN_RATIO",
    ),
    # 140: the ratio lowered to 4.
    (T, "MIXED_BATCH_SPLIT_MIN_RATIO = 5\n", "MIXED_BATCH_SPLIT_MIN_RATIO = 4\n"),
    # 141: the last decode row left out of the longest decode.
    (T, "int(seq_lens[:num_decodes].max())", "int(seq_lens[: max(num_decodes - 1, 1)].max())"),
    # 142: only the first prefill row read.
    (
        T,
        "seq_lens[num_decodes : num_decodes + num_prefills]",
        "seq_lens[num_decodes : num_decodes + 1]",
    ),
    # 143: a batch without host sequence lengths split anyway.
    (
        T,
        "    if seq_lens is None:\n        return 0\n",
        "    if seq_lens is None:\n        return num_decodes\n",
    ),
    # 144: every mixed batch split (the rule bypassed).
    (
        T,
        "            num_decodes=_num_split_decode_rows(common_attn_metadata),",
        "            num_decodes=split_decodes_and_prefills(common_attn_metadata)[0],",
    ),
]

# Session 27: ROCM_ATTN serves pages of 16 and 32 tokens with
# decode_page_contiguous and the NHD cache at the head sizes ROCm's HIP kernel
# is not built for. On v0.33.0: 5 of 5 caught.
ROCM_SMALL_TESTS = [
    "tests/v1/attention/test_rocm_attn_page_contiguous_decode.py",
    "tests/kernels/attention/test_rocm_attn_mixed_batches.py",
]
ROCM_SMALL = [
    # 145: small pages at every head size (head 128 off the HIP kernel).
    (
        R,
        "small_pages=self.head_size not in _HIP_PAGED_ATTENTION_HEAD_SIZES,",
        "small_pages=True,",
    ),
    # 146: small pages at no head size (head 256 back on the Triton kernel).
    (
        R,
        "small_pages=self.head_size not in _HIP_PAGED_ATTENTION_HEAD_SIZES,",
        "small_pages=False,",
    ),
    # 147: the HIP kernel's head sizes without 128.
    (R, "_HIP_PAGED_ATTENTION_HEAD_SIZES = (64, 128)", "_HIP_PAGED_ATTENTION_HEAD_SIZES = (64,)"),
    # 148: the layout rule without small pages (head 256 keeps x-packed there).
    (
        R,
        "            and self._decode_op_is_faster(block_size, dtype)\n",
        "            and page_contiguous_decode_is_faster(\n"
        "                block_size, self.head_size, self.num_queries_per_kv, dtype\n"
        "            )\n",
    ),
    # 149: NHD layers' decode rows without small pages (unified_attention).
    (
        R,
        "            and self._decode_op_is_faster(key_cache.shape[1], query.dtype)\n",
        "            and page_contiguous_decode_is_faster(\n"
        "                key_cache.shape[1], self.head_size, self.num_queries_per_kv, query.dtype\n"
        "            )\n",
    ),
]

# Session 28: decode_page_contiguous attends the sequence's last tile before
# its loop, and splits past the last tile exit at once (the reduce takes the
# live splits from the length).
SHORT_TESTS = (
    tests_of(
        "tests/kernels/attention/test_decode_page_contiguous.py",
        "test_decode_page_contiguous_zero_length_rows_are_zero",
    )
    + DECODE_TESTS
)
SHORT = [
    # 150: the first split of an empty sequence exits too (its output unwritten).
    (D, "    if (tile_start >= tile_end) & (split_idx > 0):", "    if tile_start >= tile_end:"),
    # 151: the reduce one live split short.
    (
        D,
        "    num_live = tl.minimum(num_tiles, num_splits)",
        "    num_live = tl.minimum(num_tiles, num_splits) - 1",
    ),
    # 152: the loop runs the last tile again.
    (
        D,
        "    loop_end = tl.where(has_last_tile, tile_end - 1, tile_end)",
        "    loop_end = tile_end",
    ),
]

# Session 29: decode_page_contiguous's reduce reads every split's partial
# state in flight with the length and drops the stale ones after it.
REDUCE = [
    # 153: the stale splits' maxima kept (NaN in a reused workspace).
    (D, '    m_s = tl.where(live, m_s, float("-inf"))\n', ""),
    # 154: the stale splits' sums kept.
    (D, "tl.sum(w * tl.where(live, l_s, 0.0), axis=0)", "tl.sum(w * l_s, axis=0)"),
    # 155: the stale splits' outputs kept.
    (
        D,
        "tl.sum(tl.where(live[:, None], o, 0.0) * w[:, None], axis=0)",
        "tl.sum(o * w[:, None], axis=0)",
    ),
    # 156: the sums read past the row's splits (past the workspace at its last row).
    (
        D,
        "    l_s = tl.load(part_sum_ptr + part + offs_s, mask=mask, other=0.0)",
        "    l_s = tl.load(part_sum_ptr + part + offs_s)",
    ),
    # 157: one split too many read per row.
    (D, "            offs_s < num_splits,\n", "            offs_s <= num_splits,\n"),
    # 158: the outputs read unmasked (past the workspace where the padded split
    #      count exceeds the split count by enough).
    (D, "        mask=mask[:, None],\n        other=0.0,\n", ""),
]

# Session 30: a held-out set written by a helper who read the series' code
# (its diff against the release) but none of its tests; each group runs the
# whole test files of what it plants in.
FRESH30_DECODE_TESTS = [
    "tests/kernels/attention/test_decode_page_contiguous.py",
    "tests/v1/attention/test_triton_attn_page_contiguous_decode.py",
    "tests/v1/attention/test_rocm_attn_page_contiguous_decode.py",
]
FRESH30_DECODE = [
    # 159: wave rule misses its upper boundary: a grid of exactly 1.5 waves
    #       (e.g. slots=4, programs=6, ppc<=2) is no longer split (1 instead of
    #       2); needs _pick_num_splits (or a split count/workspace check) at
    #       exactly 2*programs == 3*slots.
    (D, "and 2 * programs <= 3 * slots and", "and 2 * programs < 3 * slots and"),
    # 160: wave-split tie-break prefers MORE splits: programs=6, slots=4 picks
    #       4 instead of 2; needs a _pick_num_splits case with tied ratios.
    (
        D,
        "key=lambda splits: (cdiv(programs * splits, slots) / splits, splits),",
        "key=lambda splits: (cdiv(programs * splits, slots) / splits, -splits),",
    ),
    # 161: main kernel: a sequence of exactly MIN_SPLIT_LEN (1024) tokens in a
    #       wave-split grid has splits>0 exit although live_splits counts them
    #       all -> missing tiles; needs seq_len == 1024 in a grid past one wave
    #       (ppc<=2).
    (
        D,
        "if (seq_len < MIN_SPLIT_LEN) & (split_idx > 0):",
        "if (seq_len <= MIN_SPLIT_LEN) & (split_idx > 0):",
    ),
    # 162: reduce kernel forgets the MIN_SPLIT_LEN short-sequence exit: it
    #       overwrites the main kernel's output of a short sequence in a wave-
    #       split grid with stale/unwritten partial states; needs a short
    #       (<1024, >1 tile) and a long sequence in a grid past one wave.
    (
        D,
        "    if MIN_SPLIT_LEN > 0:\n        single_split = single_split | (seq_len < MIN_SPLIT_LEN)\n    if single_split:\n",
        "    if single_split:\n",
    ),
    # 163: split tile ranges overlap: split == num_longer also takes an extra
    #       tile, so a tile is attended twice; needs any split sequence
    #       (num_splits > 1) checked against a reference.
    (
        D,
        "tile_end = tile_start + min_tiles + (split_idx < num_longer).to(tl.int32)",
        "tile_end = tile_start + min_tiles + (split_idx <= num_longer).to(tl.int32)",
    ),
    # 164: last tile's token mask includes the slot just past the sequence end
    #       (page tail garbage/zeros enter the softmax); needs seq_len not a
    #       multiple of the tile, ideally a NaN-poisoned page tail.
    (D, "    tok_mask = span_offs < tail_tokens\n", "    tok_mask = span_offs <= tail_tokens\n"),
    # 165: _tile_count's last span off by one when seq_len is a multiple of the
    #       span: the last tile is read from the page past the end at negative
    #       offsets (num_tiles unchanged); needs seq_len == k * page_size.
    (D, "last_span = tl.maximum(seq_len - 1, 0) // SPAN", "last_span = seq_len // SPAN"),
    # 166: main kernel treats only empty sequences as unsplit: a one-tile
    #       sequence in a split batch writes a partial state, not the output,
    #       and the reduce skips it -> output never written; needs a 1-tile
    #       sequence next to a long one in a split batch.
    (D, "        single_split = num_tiles <= 1\n", "        single_split = num_tiles < 1\n"),
    # 167: reduce counts one live split too few when num_tiles <= num_splits:
    #       the last split's tiles are dropped; needs a split sequence with
    #       fewer tiles than splits (e.g. 2-3 tiles, 4+ splits).
    (
        D,
        "num_live = tl.minimum(num_tiles, num_splits)",
        "num_live = tl.minimum(num_tiles - 1, num_splits)",
    ),
    # 168: the loop's first block-id read is masked like the read-ahead
    #       (tile_start + 1 < loop_end): a loop of exactly one tile reads block
    #       0 instead of its page; needs a split/sequence whose loop holds one
    #       tile besides the last tile, with a non-identity block table.
    (
        D,
        "        tile_start // TILES_PER_SPAN,\n        offs_t,\n        tile_start < loop_end,",
        "        tile_start // TILES_PER_SPAN,\n        offs_t,\n        tile_start + 1 < loop_end,",
    ),
    # 169: loop_end assumes the last split holds the last tile: with fewer
    #       tiles than splits (or a short sequence in a wave grid) the split
    #       holding it attends it twice, unmasked past the tail; needs
    #       num_tiles < num_splits or MIN_SPLIT_LEN short sequences.
    (
        D,
        "loop_end = tl.where(has_last_tile, tile_end - 1, tile_end)",
        "loop_end = tl.where(split_idx == num_splits - 1, tile_end - 1, tile_end)",
    ),
    # 170: routing predicate: 64-token pages (the minimum) no longer routed;
    #       needs page_contiguous_decode_is_faster(64, 128, 2, bf16) (or a
    #       backend at page 64).
    (D, "block_size >= _ROUTED_MIN_PAGE", "block_size > _ROUTED_MIN_PAGE"),
    # 171: supports_page_contiguous_decode forgets sinks: a layer with
    #       attention sinks is sent to the op (which ignores sinks); needs
    #       supports(..., has_sinks=True) or a sinks layer's output.
    (
        D,
        "        and not has_sinks\n        and sliding_window == (-1, -1)",
        "        and sliding_window == (-1, -1)",
    ),
    # 172: workspace sizing stops one batch short of 1.5 waves: e.g. 1 CU, ppc
    #       2 (head 256 bf16), 1 KV head: 2 units instead of 6, so a batch of 3
    #       raises; needs decode with the sized workspace at the largest split
    #       batch.
    (
        D,
        "range(1, 3 * programs_per_cu * num_cus // (2 * num_kv_heads) + 1)",
        "range(1, 3 * programs_per_cu * num_cus // (2 * num_kv_heads))",
    ),
]
FRESH30_DISPATCH = [
    # 173: TRITON_ATTN mixed-batch ratio boundary: a decode row exactly 5x the
    #       longest prefill row is split off; needs _num_split_decode_rows at
    #       longest_decode == 5 * longest_prefill.
    (
        T,
        "if longest_decode > MIXED_BATCH_SPLIT_MIN_RATIO * longest_prefill:",
        "if longest_decode >= MIXED_BATCH_SPLIT_MIN_RATIO * longest_prefill:",
    ),
    # 174: longest prefill taken over the decodes too, so the ratio never holds
    #       and mixed batches are never split; needs a mixed batch with a very
    #       long decode row (> 5x the prefill rows).
    (
        T,
        "longest_prefill = int(seq_lens[num_decodes : num_decodes + num_prefills].max())",
        "longest_prefill = int(seq_lens[: num_decodes + num_prefills].max())",
    ),
    # 175: TRITON_ATTN forgets to rebase cu_seqlens_q after slicing off the
    #       decode rows: prefill rows read the wrong query rows/write the wrong
    #       output rows; needs a split mixed batch checked against a reference.
    (T, "cu_seqlens_q = cu_seqlens_q[first:] - first", "cu_seqlens_q = cu_seqlens_q[first:]"),
    # 176: ROCM_ATTN treats head 256 as having a HIP paged-attention kernel, so
    #       head-256 decode on 16/32-token pages is no longer routed to the op;
    #       needs _decode_op_is_faster / routing at head 256, page 16 or 32.
    (
        R,
        "_HIP_PAGED_ATTENTION_HEAD_SIZES = (64, 128)",
        "_HIP_PAGED_ATTENTION_HEAD_SIZES = (64, 128, 256)",
    ),
    # 177: ROCM_ATTN NHD layer's prefill rows on x-packed views use the whole
    #       block table (decode rows' tables) instead of block_table[first:];
    #       needs a mixed batch on an NHD layer whose prefill keeps
    #       chunked_prefill_paged_decode.
    (
        R,
        "            block_table=attn_metadata.block_table[first:],",
        "            block_table=attn_metadata.block_table,",
    ),
    # 178: vendor prefill rejects a chunk of exactly 4096 tokens; needs
    #       paged_prefill_fallback_reason(max_query_len=4096, provider vendor)
    #       -> None.
    (
        R,
        "if max_query_len > VENDOR_PREFILL_MAX_TOKENS:",
        "if max_query_len >= VENDOR_PREFILL_MAX_TOKENS:",
    ),
]
FRESH30_PREFILL_TESTS = [
    "tests/kernels/attention/test_triton_paged_prefill_aligned.py",
    "tests/kernels/attention/test_rocm_vendor_paged_prefill.py",
    "tests/v1/attention/test_rocm_paged_prefill_page_alignment.py",
    "tests/kernels/attention/test_rocm_attn_mixed_batches.py",
    "tests/kernels/attention/test_prefix_prefill.py::test_context_attention_fwd_matches_paged_reference",
    "tests/kernels/attention/test_prefix_prefill.py::test_context_attention_fwd_block_table_row_end",
]
FRESH30_PREFILL = [
    # 179: paged_prefill_aligned's unmasked range rounds UP (cdiv): the
    #       unmasked tiles include keys past the diagonal/seq_len; needs
    #       context_len + m_start + 1 not a multiple of BLOCK_N.
    (
        P,
        "full_end = ((context_len + m_start + 1) // BLOCK_N) * BLOCK_N",
        "full_end = tl.cdiv(context_len + m_start + 1, BLOCK_N) * BLOCK_N",
    ),
    # 180: masked K/V loads include the slot at seq_len (page tail): NaN tails
    #       poison acc via 0 * NaN; needs a NaN-filled page tail and seq_len
    #       not a multiple of BLOCK_N.
    (P, "kv_valid = (start_n + offs_n) < seq_len", "kv_valid = (start_n + offs_n) <= seq_len"),
    # 181: page loop ends at end // PAGE_SIZE: keys in a partly covered last
    #       page are skipped; needs a sequence (or full_end/diag_end) not a
    #       multiple of the page.
    (
        P,
        "for page in range(start // PAGE_SIZE, tl.cdiv(end, PAGE_SIZE)):",
        "for page in range(start // PAGE_SIZE, end // PAGE_SIZE):",
    ),
    # 182: Triton provider head-size check copied from the vendor list: head
    #       32/96/160... get the Triton provider the kernel cannot serve; needs
    #       get_paged_prefill_capability(head_size=96 or 32,
    #       vendor_available=False, triton_opt_in=True).
    (
        A,
        "        if head_size not in TRITON_HEAD_SIZES:\n",
        "        if head_size not in VENDOR_HEAD_SIZES:\n",
    ),
    # 183: vendor arg builder rejects a block table that exactly holds
    #       max_seqlen_k keys; needs build_vendor_paged_prefill_args with
    #       block_table width == ceil(max_seqlen_k / page).
    (
        V,
        "if block_table.shape[1] < math.ceil(max_seqlen_k / page_size):",
        "if block_table.shape[1] <= math.ceil(max_seqlen_k / page_size):",
    ),
    # 184: prefix_prefill clamps to the wrong last page (floor count - 1):
    #       context lanes in a partly filled last page read the previous page;
    #       needs a page not a multiple of 32 (e.g. 16) with context spilling
    #       into a partly filled page.
    (
        F,
        "last_block=(cur_batch_ctx_len - 1) // PHYSICAL_BLOCK_SIZE,",
        "last_block=cur_batch_ctx_len // PHYSICAL_BLOCK_SIZE - 1,",
    ),
]

# Session 30, second held-out set (a second helper, same rules, code the
# first set did not touch); run against every series test file.
FRESH30B = [
    # 185: Triton provider's smallest page becomes its alignment (64), so pages
    #       64/128 are served (fallback reason None, NHD layout at page 64);
    #       needs capability.min_page == 256 or paged_prefill_fallback_reason /
    #       layout at a 64- or 128-token page.
    (A, "            min_page=TRITON_MIN_PAGE,\n", "            min_page=TRITON_PAGE_ALIGNMENT,\n"),
    # 186: the Triton opt-in overrides an installed vendor kernel (provider
    #       "triton" instead of "vendor"); needs
    #       get_paged_prefill_capability(vendor_available=True,
    #       triton_opt_in=True) -> provider "vendor".
    (A, "    if not vendor_available:\n", "    if not vendor_available or triton_opt_in:\n"),
    # 187: ROCM_ATTN reads the page from the wrong axis of the logical [B, 2,
    #       N, H*hs] cache (2 instead of N): every provider's prefill falls
    #       back ("page 2 is not a multiple of 64") and the decode op is never
    #       faster; needs a forward whose prefill rows must reach the provider
    #       (spy or kernel check) at a served page.
    (R, "        block_size = kv_cache.shape[2]\n", "        block_size = kv_cache.shape[1]\n"),
    # 188: HIP-kernel head rule flipped: pages 16/32 routed to the decode op at
    #       heads 64/128 and not at head 256; needs _decode_op_is_faster(16 or
    #       32, bf16) at head 128 (False) and 256 (True).
    (
        R,
        "            small_pages=self.head_size not in _HIP_PAGED_ATTENTION_HEAD_SIZES,",
        "            small_pages=self.head_size in _HIP_PAGED_ATTENTION_HEAD_SIZES,",
    ),
    # 189: decode-op NHD layout no longer yields to AITER (whose writers store
    #       x-packed): with AITER enabled a decode-op layer keeps NHD; needs
    #       _uses_nhd_kv_cache/_decode_op_keeps_nhd_kv_cache with
    #       rocm_aiter_ops.is_enabled() monkeypatched True -> False.
    (R, "            and not rocm_aiter_ops.is_enabled()\n", ""),
    # 190: x-packed mixed batch: after the op serves the decode rows, the
    #       prefill rows' cu_seqlens start one entry late (misaligned with
    #       seqused_k/block_table, first prefill dropped); needs a split mixed
    #       batch on an x-packed layer (e.g. page 64 head 128, no provider)
    #       checked against a reference.
    (
        R,
        "            cu_seqlens_q = cu_seqlens_q[num_decodes:]\n",
        "            cu_seqlens_q = cu_seqlens_q[num_decodes + 1 :]\n",
    ),
    # 191: NHD layer whose decode op is slower: unified_attention for the
    #       decode rows gets one cu_seqlens entry too few, so the last decode
    #       row is never written; needs a mixed batch (>= 1 decode) on a
    #       provider layer where the op does not serve decode (e.g. head 64)
    #       checked row by row.
    (
        R,
        "            cu_seqlens_q = cu_seqlens_q[: num_decodes + 1]\n",
        "            cu_seqlens_q = cu_seqlens_q[:num_decodes]\n",
    ),
    # 192: TRITON_ATTN split mixed batch writes the prefill rows' output from
    #       row 0 (over the decode rows) instead of row `first`; needs a split
    #       mixed batch (decode row > 5x the prefill rows) checked against a
    #       reference.
    (
        T,
        "            out=output[first:num_actual_tokens],\n",
        "            out=output[:num_actual_tokens],\n",
    ),
    # 193: TRITON_ATTN builder sizes the workspace with query/KV head counts
    #       swapped: too small (often 0) for GQA, so a split decode raises;
    #       needs a GQA builder's workspace used by a pure-decode batch that
    #       splits (e.g. one sequence) or a numel check.
    (
        T,
        "                    self.num_heads_q,\n                    self.num_heads_kv,\n",
        "                    self.num_heads_kv,\n                    self.num_heads_q,\n",
    ),
    # 194: wrapper no longer refuses a non-float32 workspace (only its size is
    #       checked); needs decode_page_contiguous with a large enough
    #       bf16/fp16 workspace on a split batch -> ValueError.
    (
        D,
        "        elif workspace.dtype != torch.float32 or workspace.numel() < needed:",
        "        elif workspace.numel() < needed:",
    ),
    # 195: x-packed K head-dim offsets swap the packed/unpacked parts (d % X on
    #       the hi stride, d // X inside): wrong K on ROCM_ATTN's 5-D layout
    #       only (NHD X=1 unaffected); needs an x-packed (x > 1) decode checked
    #       against a reference.
    (
        D,
        "    k_dim_offs = (offs_d // X) * stride_k_dim_hi + offs_d % X\n",
        "    k_dim_offs = (offs_d % X) * stride_k_dim_hi + offs_d // X\n",
    ),
    # 196: multi-page tiles read block ids at span_idx instead of span_idx *
    #       PAGES_PER_TILE: from the second tile on, pages of the wrong logical
    #       blocks; needs page 16 (or 32 with 64-token tiles) with a sequence
    #       longer than one tile and a non-identity block table.
    (
        D,
        "            block_table_row + span_idx * PAGES_PER_TILE + span_offs // PAGE_SIZE,",
        "            block_table_row + span_idx + span_offs // PAGE_SIZE,",
    ),
    # 197: GQA query heads taken interleaved (kv_head + i * NUM_KV_HEADS)
    #       instead of grouped (kv_head * QPK + i): query heads matched to the
    #       wrong KV head; needs num_kv_heads > 1 with more than one query head
    #       per KV head and distinct per-head K/V.
    (
        D,
        "    query_heads = kv_head_idx * QUERIES_PER_KV + offs_h\n",
        "    query_heads = kv_head_idx + offs_h * NUM_KV_HEADS\n",
    ),
    # 198: paged_prefill_aligned's masked range ends one key short of the
    #       tile's last diagonal: the last row of a full query tile (rows
    #       m_start .. m_start + BLOCK_M - 1 all valid) misses its own
    #       (diagonal) key; needs a chunk of q_len >= BLOCK_M (128; 64 for
    #       fp32/head 256 on the CPU table) checked against a reference.
    (
        P,
        "    diag_end = tl.minimum(context_len + m_start + BLOCK_M, seq_len)\n",
        "    diag_end = tl.minimum(context_len + m_start + BLOCK_M - 1, seq_len)\n",
    ),
]

# Session 30, third held-out set (v0.29.0: its first patch's prefix_prefill
# tiling, the hybrid page alignment, the NHD views); every series test file.
FRESH30C = [
    # 199: prefix_prefill clamp uses maximum instead of minimum: every context
    #       lane of a clamped tile reads the context's LAST page; needs
    #       context_attention_fwd at a page that 32 does not divide (16, 48,
    #       1040, ...) with context spanning > 1 page, against a reference.
    (
        F,
        "        bn_logical = tl.minimum(bn_logical, last_block)\n",
        "        bn_logical = tl.maximum(bn_logical, last_block)\n",
    ),
    # 200: last_block computed in 32-token tile units, not pages: at pages < 32
    #       (16) valid context lanes are clamped to an earlier page; needs page
    #       16 with context > 1 tile (e.g. ctx 40) against a reference (pages >
    #       32 are unaffected).
    (
        F,
        "            last_block=(cur_batch_ctx_len - 1) // PHYSICAL_BLOCK_SIZE,\n",
        "            last_block=(cur_batch_ctx_len - 1) // BLOCK_SIZE,\n",
    ),
    # 201: clamp bound is the tile's FIRST page, not the context's last: a tile
    #       straddling a page boundary reads its second-page lanes from the
    #       first page; needs a non-dividing page (16 or 48/1040) with a tile
    #       crossing a page inside the context.
    (
        F,
        "            last_block=(cur_batch_ctx_len - 1) // PHYSICAL_BLOCK_SIZE,\n",
        "            last_block=start_n // PHYSICAL_BLOCK_SIZE,\n",
    ),
    # 202: last_block from the query length instead of the context length: when
    #       the context spans more pages than the chunk, later context pages
    #       are clamped to an early page; needs a non-dividing page with a long
    #       context and a short query chunk.
    (
        F,
        "            last_block=(cur_batch_ctx_len - 1) // PHYSICAL_BLOCK_SIZE,\n",
        "            last_block=(cur_batch_query_len - 1) // PHYSICAL_BLOCK_SIZE,\n",
    ),
    # 203: ROCM_ATTN asks for the provider's alignment only for the vendor
    #       kernel: with the Triton opt-in (no vendor) hybrid pages stay
    #       MultipleOf(16) (784 not rounded to 832); needs
    #       get_supported_kernel_block_sizes under a hybrid config with
    #       use_rocm_triton_paged_prefill=True, vendor_paged_prefill=False ->
    #       [MultipleOf(64)].
    (
        R,
        "            if capability.page_alignment is not None:\n                return [MultipleOf(capability.page_alignment)]\n",
        '            if capability.provider == "vendor":\n                return [MultipleOf(capability.page_alignment)]\n',
    ),
    # 204: page-alignment capability checks the user's MAMBA block size instead
    #       of --block-size: a user-given block size gets the provider
    #       alignment (and a user mamba block size loses it); needs
    #       get_page_alignment_capability with user_specified_block_size=True
    #       (hybrid, vendor/triton available) -> provider None.
    (
        A,
        "    if cache_config.user_specified_block_size:\n",
        "    if cache_config.user_specified_mamba_block_size:\n",
    ),
    # 205: nhd_kv_cache_views returns K and V swapped (writer and readers
    #       agree, so only the logical [B, 2, ...] index 0 = K contract
    #       breaks); needs a test that fills kv_cache[:, 0] with K (or checks
    #       the views against kv_cache[:, 0]/[:, 1]) before an NHD
    #       forward/prefill.
    (
        V,
        "    key_cache, value_cache = kv_cache.unflatten(-1, (num_kv_heads, head_size)).unbind(1)\n    return key_cache, value_cache\n",
        "    key_cache, value_cache = kv_cache.unflatten(-1, (num_kv_heads, head_size)).unbind(1)\n    return value_cache, key_cache\n",
    ),
    # 206: vendor arg builder demands fully contiguous tensors instead of a
    #       contiguous last dim: NHD views of the bound cache (unbind over the
    #       K/V axis, padded block stride) are rejected with ValueError; needs
    #       build_vendor_paged_prefill_args on nhd_kv_cache_views of a [B, 2,
    #       page, H*hs] cache (expected to succeed).
    (
        V,
        '        if t.stride(-1) != 1:\n            raise ValueError(f"{name} needs a contiguous last dimension")\n',
        '        if not t.is_contiguous():\n            raise ValueError(f"{name} needs a contiguous last dimension")\n',
    ),
]

# Session 31: a held-out set written by a helper that had read the series'
# code but none of its tests, run against every series test file.
FRESH31 = [
    # 1: split rule past one wave no longer applies at 2 programs/CU (head 256 bf16):
    #    grids of 1-1.5 waves stay unsplit; caught by _pick_num_splits at real CU counts / ppc=2.
    (
        "vllm/v1/attention/ops/decode_page_contiguous.py",
        "    if slots < programs and 2 * programs <= 3 * slots and programs_per_cu <= 2:\n",
        "    if slots < programs and 2 * programs <= 3 * slots and programs_per_cu < 2:\n",
    ),
    # 2: workspace sized only for grids up to one wave, missing the wave-split region
    #    (up to 4 splits): too small at ppc=2 on 80-304 CUs -> ValueError / undersized workspace.
    (
        "vllm/v1/attention/ops/decode_page_contiguous.py",
        "    for num_seqs in range(1, 3 * programs_per_cu * num_cus // (2 * num_kv_heads) + 1):\n",
        "    for num_seqs in range(1, programs_per_cu * num_cus // num_kv_heads + 1):\n",
    ),
    # 3: gfx90a/gfx942 (and DCU/other) config uses 2 stages: double-buffered 32-token
    #    K/V tiles at head 256 reach the 64 KiB LDS limit; caught by per-target config/LDS check.
    (
        "vllm/v1/attention/ops/decode_page_contiguous.py",
        "        tile, warps, stages = 32, 4, 1\n",
        "        tile, warps, stages = 32, 4, 2\n",
    ),
    # 4: _tile_count's last span off by one when seq_len is a multiple of the span
    #    (page): last tile gets negative in-span offsets / the next block id -> wrong output.
    (
        "vllm/v1/attention/ops/decode_page_contiguous.py",
        "    last_span = tl.maximum(seq_len - 1, 0) // SPAN\n",
        "    last_span = seq_len // SPAN\n",
    ),
    # 5: last tile's token mask `<=`: attends one slot past the sequence end
    #    (page tail garbage/NaN); caught by any ragged seq_len vs reference / NaN-poisoned tails.
    (
        "vllm/v1/attention/ops/decode_page_contiguous.py",
        "    tok_mask = span_offs < tail_tokens\n",
        "    tok_mask = span_offs <= tail_tokens\n",
    ),
    # 6: main-loop span mask `<=`: on pages not a multiple of the tile (e.g. 784, 544 at
    #    tile 64), a page's partial last tile also attends the token one past the page.
    (
        "vllm/v1/attention/ops/decode_page_contiguous.py",
        "            span_offs < SPAN,\n",
        "            span_offs <= SPAN,\n",
    ),
    # 7: split ranges overlap: split num_longer gets an extra tile (tiles attended twice /
    #    past the end); caught by split batches where num_tiles % num_splits != num_splits-1.
    (
        "vllm/v1/attention/ops/decode_page_contiguous.py",
        "    tile_end = tile_start + min_tiles + (split_idx < num_longer).to(tl.int32)\n",
        "    tile_end = tile_start + min_tiles + (split_idx <= num_longer).to(tl.int32)\n",
    ),
    # 8: an empty sequence (seq_len 0) "has" a last tile: it is taken as live and
    #    read at negative offsets from the row's first block id (tok_mask all
    #    true); output must be zeros for empty rows.
    (
        "vllm/v1/attention/ops/decode_page_contiguous.py",
        "    has_last_tile = (tile_end == num_tiles) & (tile_start < tile_end)\n",
        "    has_last_tile = tile_end == num_tiles\n",
    ),
    # 9: reduce rescales split states with exp instead of exp2 (states are log2-domain):
    #    wrong combination whenever split maxima differ; caught by split outputs vs reference.
    (
        "vllm/v1/attention/ops/decode_page_contiguous.py",
        "    w = tl.where(live, tl.exp2(m_s - m_max), 0.0)\n",
        "    w = tl.where(live, tl.exp(m_s - m_max), 0.0)\n",
    ),
    # 10: reduce treats every split as live: stale partial states of empty splits (short
    #     sequence in a split grid) are combined; caught with a dirty/NaN-filled or reused workspace.
    (
        "vllm/v1/attention/ops/decode_page_contiguous.py",
        "    num_live = tl.minimum(num_tiles, num_splits)\n",
        "    num_live = num_splits\n",
    ),
    # 11: V load mask drops the token mask: slots past the sequence end / page are loaded
    #     (p is 0 there, but NaN page tails give 0*NaN = NaN); caught by NaN-poisoned caches.
    (
        "vllm/v1/attention/ops/decode_page_contiguous.py",
        "        mask=tok_mask[:, None] & dim_mask[None, :],\n",
        "        mask=dim_mask[None, :],\n",
    ),
    # 12: GQA head mapping interleaved instead of grouped (query head kv + j*NKV instead of
    #     kv*QPK + j): wrong KV head for GQA with >1 KV head; MHA unaffected.
    (
        "vllm/v1/attention/ops/decode_page_contiguous.py",
        "    query_heads = kv_head_idx * QUERIES_PER_KV + offs_h\n",
        "    query_heads = kv_head_idx + offs_h * NUM_KV_HEADS\n",
    ),
    # 13: TRITON_ATTN mixed-batch split rule: a decode row exactly 5x the longest prefill
    #     row is split off (must stay with unified_attention); caught at the ratio boundary.
    (
        "vllm/v1/attention/backends/triton_attn.py",
        "    if longest_decode > MIXED_BATCH_SPLIT_MIN_RATIO * longest_prefill:\n",
        "    if longest_decode >= MIXED_BATCH_SPLIT_MIN_RATIO * longest_prefill:\n",
    ),
    # 14: ROCM_ATTN fallback no longer rejects pages below the provider's min_page
    #     (Triton provider at pages 64/128); caught by paged_prefill_fallback_reason tests.
    (
        "vllm/v1/attention/backends/rocm_attn.py",
        "    if block_size < capability.min_page:\n"
        '        return f"page {block_size} is below {capability.min_page} tokens"\n',
        "",
    ),
    # 15: vendor provider accepts several prefill sequences, but the vendor call serves
    #     only the first; caught by fallback reason "more than one prefill sequence".
    (
        "vllm/v1/attention/backends/rocm_attn.py",
        '        if num_prefills != 1:\n            return "more than one prefill sequence"\n',
        "",
    ),
    # 16: forward decides the provider layout without the page: a Triton-provider layer at
    #     a page it does not serve (<256 / not 64-aligned) is read as NHD while the writer
    #     stored it x-packed -> garbage; caught by write+forward tests at small pages.
    (
        "vllm/v1/attention/backends/rocm_attn.py",
        "        provider_keeps_nhd = self._provider_keeps_nhd_kv_cache(capability, block_size)\n",
        "        provider_keeps_nhd = self._provider_keeps_nhd_kv_cache(capability, None)\n",
    ),
    # 17: ROCM_ATTN small-page routing inverted: pages 16/32 go to the op at heads 64/128
    #     (HIP paged attention's) and not at head 256; caught by routing tests.
    (
        "vllm/v1/attention/backends/rocm_attn.py",
        "            small_pages=self.head_size not in _HIP_PAGED_ATTENTION_HEAD_SIZES,\n",
        "            small_pages=self.head_size in _HIP_PAGED_ATTENTION_HEAD_SIZES,\n",
    ),
    # 18: paged prefill's unmasked region rounded up instead of down: keys past the causal
    #     diagonal (and past seq_len) read unmasked -> causal leak / NaN tails.
    (
        "vllm/v1/attention/ops/triton_paged_prefill_aligned.py",
        "    full_end = ((context_len + m_start + 1) // BLOCK_N) * BLOCK_N\n",
        "    full_end = tl.cdiv(context_len + m_start + 1, BLOCK_N) * BLOCK_N\n",
    ),
    # 19: paged prefill masked-tile K/V load mask `<=`: loads one token past seq_len
    #     (NaN page tail -> 0*NaN in P@V); caught by NaN-poisoned page tails.
    (
        "vllm/v1/attention/ops/triton_paged_prefill_aligned.py",
        "                kv_valid = (start_n + offs_n) < seq_len\n",
        "                kv_valid = (start_n + offs_n) <= seq_len\n",
    ),
    # 20: gfx90a/gfx942 head-128 prefill config with 64-token KV tiles at 2 stages
    #     (128x64: K/V double-buffered = 64 KiB, over the LDS limit); caught by the pinned table.
    (
        "vllm/v1/attention/ops/triton_paged_prefill_aligned.py",
        "_CDNA_64K_CONFIGS = {\n    64: (128, 32, 4, 2),\n    128: (128, 32, 8, 2),\n",
        "_CDNA_64K_CONFIGS = {\n    64: (128, 32, 4, 2),\n    128: (128, 64, 8, 2),\n",
    ),
    # 21: prefix_prefill block-table clamp enabled on the wrong condition (reverts the
    #     bounding fix where BLOCK_SIZE does not divide the page): reads past the row end.
    (
        "vllm/v1/attention/ops/prefix_prefill.py",
        "            CLAMP_BLOCK_TABLE=PHYSICAL_BLOCK_SIZE % BLOCK_SIZE != 0,\n",
        "            CLAMP_BLOCK_TABLE=PHYSICAL_BLOCK_SIZE % BLOCK_SIZE == 0,\n",
    ),
    # 22: vendor arg check floors the pages needed: a block table one page short of
    #     max_seqlen_k is accepted; caught by build_vendor_paged_prefill_args validation.
    (
        "vllm/v1/attention/ops/rocm_vendor_paged_prefill.py",
        "    if block_table.shape[1] < math.ceil(max_seqlen_k / page_size):\n",
        "    if block_table.shape[1] < max_seqlen_k // page_size:\n",
    ),
    # 23: a user's --block-size is kept only when 64-aligned: a hybrid model with a user
    #     block size such as 16 gets the provider alignment (MultipleOf(64)) instead.
    (
        "vllm/v1/attention/backends/rocm_paged_prefill.py",
        "    if cache_config.user_specified_block_size:\n",
        "    if cache_config.user_specified_block_size and cache_config.block_size % 64 == 0:\n",
    ),
]

# Session 32: a fifth held-out set, written by a helper that had read the
# series' code but none of its tests: the newest patch's wave_splits (1-7),
# the config/platform changes and their users (8-12), other series code
# (13-17); FRESH32_V029 for v0.29.0's prefix_prefill (run with --base v0.29.0).
_F32_DPC = "vllm/v1/attention/ops/decode_page_contiguous.py"

FRESH32 = [
    # --- 1. newest patch: _LaunchConfig.wave_splits (decode_page_contiguous.py) ---
    # Arch comparison widened: wave_splits becomes False on sm_100/sm_120 too.
    # Caught by pinning wave_splits for GPUTarget("cuda", 100, 32) at head 256.
    (
        _F32_DPC,
        "            if target.arch == 90:\n",
        "            if target.arch >= 90:\n",
    ),
    # _launch_config forgets to pass the flag: wave_splits is True everywhere.
    # Caught by pinning wave_splits=False on sm_90 / head 256 / TRITON layout / bf16.
    (
        _F32_DPC,
        "    return _LaunchConfig(tile, warps, stages, per_cu[key[0]], wave_splits)\n",
        "    return _LaunchConfig(tile, warps, stages, per_cu[key[0]])\n",
    ),
    # Optional-style check on a bool (leftover of wave_split_max_registers): the
    # flag is ignored. Caught by _pick_num_splits(..., wave_splits=False) on a 1.25-wave grid.
    (
        _F32_DPC,
        "        wave_splits\n        and slots < programs\n",
        "        wave_splits is not None\n        and slots < programs\n",
    ),
    # Workspace sized over TRITON_ATTN's layout only: on sm_90 head 256 the x-packed
    # layout still wave-splits and needs more. Caught by numel vs a per-layout max (sm_90 target).
    (
        _F32_DPC,
        "    for x_packed in (False, True):  # either KV layout\n",
        "    for x_packed in (False,):  # either KV layout\n",
    ),
    # Off-by-one: the batch of exactly 1.5 waves is not counted, workspace too small
    # (CPU: head 256, 1 KV head, batch 3 raises "workspace needs"). Caught by running the
    # op at the largest split batch with the builder-sized workspace.
    (
        _F32_DPC,
        "        for num_seqs in range(1, 3 * slots // (2 * num_kv_heads) + 1):\n",
        "        for num_seqs in range(1, 3 * slots // (2 * num_kv_heads)):\n",
    ),
    # Wrapper passes True instead of config.wave_splits: sm_90 TRITON-layout head-256
    # grids of 1-1.5 waves are split again. Caught by the stubbed-kernel grid test on sm_90.
    (
        _F32_DPC,
        "        config.wave_splits,\n    )\n    use_splits = num_splits > 1\n",
        "        True,\n    )\n    use_splits = num_splits > 1\n",
    ),
    # Wrapper picks the other layout's config (tile 32 vs 64, wave_splits swapped on
    # sm_90). Caught by checking launch meta / split count per layout with a GPUTarget.
    (
        _F32_DPC,
        "        x_packed=key_cache.dim() == 5,\n",
        "        x_packed=key_cache.dim() == 4,\n",
    ),
    # --- 2. config/attention.py, platforms/rocm.py and their users ---
    # Opt-in default flipped: Triton paged prefill (and 64-token page alignment) on by
    # default. Caught by AttentionConfig().use_rocm_triton_paged_prefill is False.
    (
        "vllm/config/attention.py",
        "    use_rocm_triton_paged_prefill: bool = False\n",
        "    use_rocm_triton_paged_prefill: bool = True\n",
    ),
    # Logs the last backend instead of the first one (the one the hybrid page follows).
    # Caught by a caplog test with two non-SSM backends, ROCM_ATTN first.
    (
        "vllm/platforms/rocm.py",
        "            log_page_alignment(vllm_config, backend_classes[0])\n",
        "            log_page_alignment(vllm_config, backend_classes[-1])\n",
    ),
    # `and` -> `or`: a model config with no attention layers hits backend_classes[0]
    # (IndexError). Caught by update_block_size_for_backend on an attention-free model.
    (
        "vllm/platforms/rocm.py",
        "        if vllm_config.model_config is not None and backend_classes:\n",
        "        if vllm_config.model_config is not None or backend_classes:\n",
    ),
    # log_page_alignment drops the class's vendor_paged_prefill override and probes the
    # install instead. Caught by a caplog test with vendor_paged_prefill=True (log says "off").
    (
        "vllm/v1/attention/backends/rocm_paged_prefill.py",
        "        capability = get_page_alignment_capability(\n"
        "            vllm_config, backend_cls.vendor_paged_prefill\n"
        "        )\n",
        "        capability = get_page_alignment_capability(vllm_config)\n",
    ),
    # Impl reads the neighbouring config field: the Triton opt-in never reaches the
    # layer. Caught by building RocmAttentionImpl under use_rocm_triton_paged_prefill=True.
    (
        "vllm/v1/attention/backends/rocm_attn.py",
        "            and vllm_config.attention_config.use_rocm_triton_paged_prefill\n",
        "            and vllm_config.attention_config.use_prefill_query_quantization\n",
    ),
    # --- 3. elsewhere in the series ---
    # Mixed batch: prefill rows' cu_seqlens not rebased after slicing off the decode rows
    # (reads/writes shifted rows). Caught by a TRITON_ATTN mixed batch vs reference.
    (
        "vllm/v1/attention/backends/triton_attn.py",
        "                cu_seqlens_q = cu_seqlens_q[first:] - first\n",
        "                cu_seqlens_q = cu_seqlens_q[first:]\n",
    ),
    # Ratio boundary: a decode row exactly 5x the longest prefill row is split off.
    # Caught by _num_split_decode_rows at ratio == MIXED_BATCH_SPLIT_MIN_RATIO.
    (
        "vllm/v1/attention/backends/triton_attn.py",
        "    if longest_decode > MIXED_BATCH_SPLIT_MIN_RATIO * longest_prefill:\n",
        "    if longest_decode >= MIXED_BATCH_SPLIT_MIN_RATIO * longest_prefill:\n",
    ),
    # Page exactly TRITON_MIN_PAGE (256) rejected. Caught by
    # paged_prefill_fallback_reason(block_size=256, provider triton) returning None.
    (
        "vllm/v1/attention/backends/rocm_attn.py",
        "    if block_size < capability.min_page:\n",
        "    if block_size <= capability.min_page:\n",
    ),
    # Diagonal range one key short: when context_len % BLOCK_N == 1 the last row of a
    # full query tile loses its own key. Caught by sweeping context lengths (e.g. 1, 33).
    (
        "vllm/v1/attention/ops/triton_paged_prefill_aligned.py",
        "    diag_end = tl.minimum(context_len + m_start + BLOCK_M, seq_len)\n",
        "    diag_end = tl.minimum(context_len + m_start + BLOCK_M - 1, seq_len)\n",
    ),
    # Block-table width check floors instead of ceiling: a table one page short of
    # max_seqlen_k is accepted. Caught by expecting ValueError for e.g. 65 keys, 1 page of 64.
    (
        "vllm/v1/attention/ops/rocm_vendor_paged_prefill.py",
        "    if block_table.shape[1] < math.ceil(max_seqlen_k / page_size):\n",
        "    if block_table.shape[1] < math.floor(max_seqlen_k / page_size):\n",
    ),
]

_F32_PP = "vllm/v1/attention/ops/prefix_prefill.py"

FRESH32_V029 = [
    # Context-loop score mask off by one: lane ctx_len (K loaded as 0) keeps score 0
    # and adds weight. Caught by any prefix test with ctx_len % 32 != 0 vs reference.
    (
        _F32_PP,
        "        qk = tl.where(\n"
        '            (start_n + offs_bs_n[None, :]) < cur_batch_ctx_len, qk, float("-inf")\n'
        "        )\n",
        "        qk = tl.where(\n"
        '            (start_n + offs_bs_n[None, :]) <= cur_batch_ctx_len, qk, float("-inf")\n'
        "        )\n",
    ),
    # Causal chunk range sized by BLOCK_N instead of BLOCK_M (harmless when both were
    # 32, wrong at 128/64): rows 64..127 of a tile miss keys. Caught by query_len > 64.
    (
        _F32_PP,
        "        key_range_upper = block_mask * (start_m + 1) * BLOCK_M\n",
        "        key_range_upper = block_mask * (start_m + 1) * BLOCK_N\n",
    ),
    # Tile width passed as the page size: context tokens resolved against 32-token pages.
    # Caught by any page size != 32 (16, 64, 544, 1056) vs reference.
    (
        _F32_PP,
        "        PHYSICAL_BLOCK_SIZE=real_block_size,\n",
        "        PHYSICAL_BLOCK_SIZE=TRITON_BLOCK_SIZE,\n",
    ),
    # Non-causal chunk loop drops the last partial BLOCK_N tile (floor, not ceil).
    # Caught by causal=False with query_len % 64 != 0.
    (
        _F32_PP,
        "        q_len_pad = (cur_batch_query_len + BLOCK_N - 1) // BLOCK_N * BLOCK_N\n",
        "        q_len_pad = cur_batch_query_len // BLOCK_N * BLOCK_N\n",
    ),
    # V cache head-dim / in-page strides swapped: context V read transposed.
    # Caught by any test with cached context (head_size != page size) vs reference.
    (
        _F32_PP,
        "        stride_v_cache_d=v_cache.stride(2),\n"
        "        stride_v_cache_bl=v_cache.stride(3),\n",
        "        stride_v_cache_d=v_cache.stride(3),\n"
        "        stride_v_cache_bl=v_cache.stride(2),\n",
    ),
]


# Session 33: a held-out set by a helper that read the series' code but none
# of its tests, aimed at the two backends' metadata builders (TRITON_ATTN's
# mixed-batch split and decode workspace, ROCM_ATTN's build, capture and
# mixed-batch slicing) and a few other series lines, run against every
# series test file.
FRESH33 = [
    # TRITON _num_split_decode_rows drops the num_decodes == 0 guard: a pure-prefill batch (e.g. 2 prefills, host seq lens set) takes .max() of an empty decode slice and build() raises.
    (
        "vllm/v1/attention/backends/triton_attn.py",
        "    if num_decodes == 0 or num_prefills == 0:\n",
        "    if num_prefills == 0:\n",
    ),
    # TRITON split ratio compares against the SHORTEST prefill row: decodes of 1000 tokens + prefills of 100 and 300 split (1000 > 500) where the original keeps the batch whole (1000 <= 1500).
    (
        "vllm/v1/attention/backends/triton_attn.py",
        "    longest_prefill = int(seq_lens[num_decodes : num_decodes + num_prefills].max())\n",
        "    longest_prefill = int(seq_lens[num_decodes : num_decodes + num_prefills].min())\n",
    ),
    # TRITON split ratio applied to the wrong side: decode 100 tokens, prefill 200 -> 5*100 > 200 splits (num_decodes > 0) where the original keeps num_decodes = 0.
    (
        "vllm/v1/attention/backends/triton_attn.py",
        "    if longest_decode > MIXED_BATCH_SPLIT_MIN_RATIO * longest_prefill:\n",
        "    if MIXED_BATCH_SPLIT_MIN_RATIO * longest_decode > longest_prefill:\n",
    ),
    # TRITON builder allocates the decode workspace only for QUANTIZED caches: with cache_dtype "auto" (bf16) metadata.decode_workspace is None and forward never calls decode_page_contiguous.
    (
        "vllm/v1/attention/backends/triton_attn.py",
        "        if not is_quantized_kv_cache(vllm_config.cache_config.cache_dtype):\n",
        "        if is_quantized_kv_cache(vllm_config.cache_config.cache_dtype):\n",
    ),
    # TRITON workspace sized with KV heads as the query-head count: GQA 8 q / 1 kv, head 128, bf16, 1-seq decode (split on CPU: 520 < 4160 floats needed; on H100 too) -> the op raises "workspace needs ...".
    (
        "vllm/v1/attention/backends/triton_attn.py",
        "                decode_page_contiguous_workspace_numel(\n                    self.num_heads_q,\n",
        "                decode_page_contiguous_workspace_numel(\n                    self.num_heads_kv,\n",
    ),
    # ROCM builder swaps the split's return order: pure decode of 4 reqs gets num_decodes=0/num_prefills=4; a mixed batch (2 decodes + 1 prefill) gets num_decodes=1, num_prefills=2 and the decode/prefill split is wrong.
    (
        "vllm/v1/attention/backends/rocm_attn.py",
        "        num_decodes, num_prefills, _, _ = split_decodes_and_prefills(\n",
        "        num_prefills, num_decodes, _, _ = split_decodes_and_prefills(\n",
    ),
    # ROCM build() forgets to pass the builder's workspace: metadata.decode_workspace is None on a bf16 cache, so decode_op is False and decode rows never reach decode_page_contiguous (any decode batch, head 128/256, page >= 64).
    (
        "vllm/v1/attention/backends/rocm_attn.py",
        "            decode_workspace=self.decode_workspace,\n",
        "",
    ),
    # ROCM capture metadata keeps paged_prefill_allowed=True: build_for_cudagraph_capture of a mixed batch lets the paged-prefill provider into a captured graph (field stays True).
    (
        "vllm/v1/attention/backends/rocm_attn.py",
        "        attn_metadata.paged_prefill_allowed = False\n",
        "",
    ),
    # ROCM capture zeroes the wrong count: a captured mixed batch (1 decode + 1 prefill) keeps num_decodes=1 and gets num_prefills=0, so the graph splits off decode rows and skips the prefill checks.
    (
        "vllm/v1/attention/backends/rocm_attn.py",
        "            attn_metadata.num_decodes = 0\n",
        "            attn_metadata.num_prefills = 0\n",
    ),
    # ROCM metadata default paged_prefill_allowed=False: build() never sets it, so every runtime batch reports "CUDA graph capture" and the Triton/vendor prefill provider is never used (opt-in, bf16, head 128, page 256+).
    (
        "vllm/v1/attention/backends/rocm_attn.py",
        "    paged_prefill_allowed: bool = True\n",
        "    paged_prefill_allowed: bool = False\n",
    ),
    # ROCM x-packed path, mixed batch with decode op (kv_cache_dtype "bfloat16" or AITER on, head 128, page 64): prefill rows read the DECODE rows' block-table rows (cu_seqlens/seq_lens are sliced, block_table is not) -> wrong prefill output.
    (
        "vllm/v1/attention/backends/rocm_attn.py",
        "            block_table = block_table[num_decodes:]\n",
        "",
    ),
    # ROCM _forward_paged_prefill forgets to drop the decode rows from seq_lens: mixed batch (2 decodes + 1 prefill) with the Triton or vendor provider attends the prefill with decode row 0's length.
    (
        "vllm/v1/attention/backends/rocm_attn.py",
        "        seq_lens = attn_metadata.seq_lens[first:]\n",
        "        seq_lens = attn_metadata.seq_lens\n",
    ),
    # ROCM workspace sized as if KV heads equalled query heads: GQA 8 q / 1 kv, head 128 -> numel(8, 8, ...) = 0 on CPU (too small on GPU), so a split 1-seq decode raises "workspace needs ...".
    (
        "vllm/v1/attention/backends/rocm_attn.py",
        "                    self.num_heads_kv,\n",
        "                    self.num_heads_q,\n",
    ),
    # ROCM NHD layer, mixed batch, prefill on chunked_prefill_paged_decode through x-packed views: seq_lens not sliced past the decodes while query_start_loc/block_table are -> prefill rows use decode rows' lengths (bf16, head 128, page 64, GQA, 1+ decodes).
    (
        "vllm/v1/attention/backends/rocm_attn.py",
        "            seq_lens=attn_metadata.seq_lens[first:],\n",
        "            seq_lens=attn_metadata.seq_lens,\n",
    ),
    # TRITON impl passes the raw sliding_window (None) instead of the (-1, -1) tuple: None != (-1, -1), so _page_contiguous_decode is False on every plain bf16 layer and decode_page_contiguous is never used.
    (
        "vllm/v1/attention/backends/triton_attn.py",
        "                self.sliding_window,\n",
        "                sliding_window,\n",
    ),
    # ROCM fallback reason gets num_decodes as num_prefills: a pure-prefill batch (num_decodes=0) with the Triton provider is reported "decode" and keeps the default path; vendor with 3 decodes + 1 prefill says "more than one prefill sequence".
    (
        "vllm/v1/attention/backends/rocm_attn.py",
        "                num_prefills=attn_metadata.num_prefills,\n",
        "                num_prefills=attn_metadata.num_decodes,\n",
    ),
    # Capability rejects logits_soft_cap=0 (what RocmAttentionImpl passes when there is no cap): every ROCM_ATTN layer gets provider None while the page alignment (soft cap None) still says triton/vendor.
    (
        "vllm/v1/attention/backends/rocm_paged_prefill.py",
        "    if logits_soft_cap:\n",
        "    if logits_soft_cap is not None:\n",
    ),
    # Vendor arg builder checks the query's head COUNT against head_size: query [T, 8, 128] with a head-128 cache raises ValueError on CPU (passes only when num_heads == head_size).
    (
        "vllm/v1/attention/ops/rocm_vendor_paged_prefill.py",
        "    if query.dim() != 3 or query.shape[2] != head_size:\n",
        "    if query.dim() != 3 or query.shape[1] != head_size:\n",
    ),
    # paged_prefill_aligned masks out the diagonal (strict <): each query row no longer sees its own key; a fresh chunk's first row sees nothing (NaN) and all rows differ from the reference.
    (
        "vllm/v1/attention/ops/triton_paged_prefill_aligned.py",
        "                visible = (key_pos[None, :] <= context_len + offs_m[:, None]) & (\n",
        "                visible = (key_pos[None, :] < context_len + offs_m[:, None]) & (\n",
    ),
    # decode_page_contiguous part_sum offset precedence slip: part_sum starts one float after part_max and overlaps it, so split batches (CPU: 1 seq, 8 q / 1 kv heads, head 128 -> 4 splits) combine corrupted maxima/sums.
    (
        "vllm/v1/attention/ops/decode_page_contiguous.py",
        "        part_sum = workspace[rows * (head_size_padded + 1) :]\n",
        "        part_sum = workspace[rows * head_size_padded + 1 :]\n",
    ),
]


# Session 33's second held-out set, by another helper that read the code but
# none of the tests: v0.29.0's prefix-prefill tile decoupling (fresh33kc, run
# with --base v0.29.0), the Triton kernel bodies, the hybrid page alignment
# and the prefill capability (fresh33k).
FRESH33K_V029 = [
    # Page offset assumes a power-of-two page (& (P-1) instead of % P): on page 544 (or 48, 80, ...) context tokens past the first page read the wrong slot of their page; pow2 pages unchanged. Also hits the KV_FROM_CACHE current-chunk read.
    (
        "vllm/v1/attention/ops/prefix_prefill.py",
        "    internal = token_indices % PHYSICAL_BLOCK_SIZE\n",
        "    internal = token_indices & (PHYSICAL_BLOCK_SIZE - 1)\n",
    ),
    # Context loop steps by the page instead of the 32-token tile: any page != 32 with context > 32 (page 16: tiles overlap, tokens counted twice; page 64/544: tokens 32..page-1 of every page skipped).
    (
        "vllm/v1/attention/ops/prefix_prefill.py",
        "        0, cur_batch_ctx_len, BLOCK_SIZE, loop_unroll_factor=num_unroll_cache\n",
        "        0, cur_batch_ctx_len, PHYSICAL_BLOCK_SIZE, loop_unroll_factor=num_unroll_cache\n",
    ),
    # Context/query boundary score mask uses the sequence length: when ctx_len % 32 != 0 the last context tile's lanes past ctx_len (K loaded as 0) score 0 instead of -inf and inflate the softmax denominator.
    (
        "vllm/v1/attention/ops/prefix_prefill.py",
        '            (start_n + offs_bs_n[None, :]) < cur_batch_ctx_len, qk, float("-inf")\n',
        '            (start_n + offs_bs_n[None, :]) < cur_batch_seq_len, qk, float("-inf")\n',
    ),
    # Grid floors max_input_len / BLOCK_M: a batch whose longest query is < 128 launches no query tile (output untouched); a 200-token query loses rows 128..199.
    (
        "vllm/v1/attention/ops/prefix_prefill.py",
        '    grid_fn = lambda META: (batch, head, triton.cdiv(max_input_len, META["BLOCK_M"]))\n',
        '    grid_fn = lambda META: (batch, head, max_input_len // META["BLOCK_M"])\n',
    ),
    # Page size read from the V cache's head-size dim ([blocks, kv_heads, head, page]): any head_size != page size (e.g. head 64, page 16 or 544) addresses the wrong page/slot for context tokens.
    (
        "vllm/v1/attention/ops/prefix_prefill.py",
        "    real_block_size = v_cache.shape[3]\n",
        "    real_block_size = v_cache.shape[2]\n",
    ),
    # KV_FROM_CACHE (k = v = None) current-chunk tile forgets its start: every 64-wide query-KV tile re-reads the chunk's first 64 cached tokens, so a query chunk of > 64 tokens attends to the wrong keys.
    (
        "vllm/v1/attention/ops/prefix_prefill.py",
        "            cache_token_idx = cur_batch_ctx_len + start_n + offs_n\n",
        "            cache_token_idx = cur_batch_ctx_len + offs_n\n",
    ),
]
FRESH33K = [
    # _attend_tile drops the online-softmax rescale of acc (l_i still rescaled): any program that attends >= 2 tiles with a growing max, e.g. 1 seq of 300 tokens on page 64, 8 q / 1 kv, head 128 fp16 (CPU: tile 32, 4 splits of 2-3 tiles), or 4 seqs [40,100,200,7] on page 80 with 4 q / 2 kv (unsplit). A 100-token seq split into 4 one-tile splits does NOT show it.
    (
        "vllm/v1/attention/ops/decode_page_contiguous.py",
        "    acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v, input_precision=DOT_PRECISION)\n",
        "    acc = acc + tl.dot(p.to(v.dtype), v, input_precision=DOT_PRECISION)\n",
    ),
    # _attend_tile fills masked token lanes with score 0 instead of -inf: a partial last tile (seq_len 40 on page 64) or a page tail past SPAN (page 80) adds exp2(-m) weight of zero-V lanes to l_i.
    (
        "vllm/v1/attention/ops/decode_page_contiguous.py",
        '    s = tl.where(tok_mask[None, :], s, float("-inf"))\n',
        "    s = tl.where(tok_mask[None, :], s, 0.0)\n",
    ),
    # Prefetched block id for the next loop tile takes the page after the CURRENT tile's page: needs >= 2 tiles per page (page >= 2 tiles, e.g. 64 on CPU) and >= 2 loop tiles in one program, e.g. 1 seq of 300 on page 64 (CPU 4 splits x 3 tiles) or an unsplit 4-seq batch on page 80; pages <= tile (16/32) and one-tile splits are unaffected.
    (
        "vllm/v1/attention/ops/decode_page_contiguous.py",
        "            (tile_idx + 1) // TILES_PER_SPAN,\n",
        "            tile_idx // TILES_PER_SPAN + 1,\n",
    ),
    # _tile_count floors the tail tiles: seq_len 40 on page 64 counts 1 tile (tokens 32..39 lost), seq_len 10 counts 0 (output 0); the reduce's single_split/num_live shift too.
    (
        "vllm/v1/attention/ops/decode_page_contiguous.py",
        "    num_tiles = last_span * TILES_PER_SPAN + (tail_tokens + TILE_SIZE - 1) // TILE_SIZE\n",
        "    num_tiles = last_span * TILES_PER_SPAN + tail_tokens // TILE_SIZE\n",
    ),
    # _load_split_states: row base added unscaled (part + offs_s * HSP instead of (part + offs_s) * HSP): split batches read other rows' partial outputs for every (seq, head) with part != 0, e.g. 1 seq, 8 q / 1 kv heads, head 128 (4 splits on CPU), heads 1..7.
    (
        "vllm/v1/attention/ops/decode_page_contiguous.py",
        "        part_out_ptr + (part + offs_s)[:, None] * HEAD_SIZE_PADDED + offs_d[None, :],\n",
        "        part_out_ptr + part + offs_s[:, None] * HEAD_SIZE_PADDED + offs_d[None, :],\n",
    ),
    # Reduce sums the split sums without their max-weights (acc still weighted): any split sequence whose splits' maxima differ (almost every split batch, e.g. 1 seq of 300 tokens, 8 q / 1 kv heads).
    (
        "vllm/v1/attention/ops/decode_page_contiguous.py",
        "    l_sum = tl.sum(w * tl.where(live, l_s, 0.0), axis=0)\n",
        "    l_sum = tl.sum(tl.where(live, l_s, 0.0), axis=0)\n",
    ),
    # paged_prefill_aligned rescales acc/l_i by exp2(m_i - m_new) without qk_scale (m_i holds raw scores): any query tile attending >= 2 KV tiles whose max grows, e.g. a 64-token chunk after 64 context tokens.
    (
        "vllm/v1/attention/ops/triton_paged_prefill_aligned.py",
        "            alpha = tl.math.exp2((m_i - m_new) * qk_scale)\n",
        "            alpha = tl.math.exp2(m_i - m_new)\n",
    ),
    # Masked (diagonal) pass starts at the page start instead of full_end: keys [page_start, full_end) already attended unmasked are attended again, e.g. page 64, context 100, chunk 10 (full_end 96 on CPU fp16, 64..95 counted twice).
    (
        "vllm/v1/attention/ops/triton_paged_prefill_aligned.py",
        "        tiles_start = tl.maximum(start, page_start)\n",
        "        tiles_start = page_start\n",
    ),
    # Platform-pick hook inverted: get_supported_kernel_block_sizes() (no spec) returns MultipleOf(16) and only spec checks get the provider alignment, so a hybrid bf16 model with the vendor (or Triton opt-in) keeps page 784 (Qwen3.5-27B) instead of 832, and supports_block_size(16) under the config flips.
    (
        "vllm/v1/attention/backends/rocm_attn.py",
        "        if kv_cache_spec is None:\n",
        "        if kv_cache_spec is not None:\n",
    ),
    # Capability accepts fp16 models too: get_paged_prefill_capability(dtype=torch.float16, vendor_available=True) returns provider "vendor"/alignment 64 (and an fp16 hybrid model's page is rounded to 64) instead of "model dtype is torch.float16".
    (
        "vllm/v1/attention/backends/rocm_paged_prefill.py",
        "    if dtype != torch.bfloat16:\n",
        "    if dtype not in (torch.bfloat16, torch.float16):\n",
    ),
    # Triton opt-in capability labelled "vendor": vendor_available=False, triton_opt_in=True, head 128 returns provider "vendor" (min_page 256 still set), so dispatch would take the vendor path and the log says vendor.
    (
        "vllm/v1/attention/backends/rocm_paged_prefill.py",
        '            provider="triton",\n',
        '            provider="vendor",\n',
    ),
    # Capability from the config uses the TOTAL KV heads instead of per-rank: TP 8 with 24 q / 4 kv heads (3 q heads per rank vs 4) fails the grouping check and the hybrid page stays 400 instead of 448; at TP 2 the reason/log says 4 KV heads instead of 2.
    (
        "vllm/v1/attention/backends/rocm_paged_prefill.py",
        "        num_kv_heads=model_config.get_num_kv_heads(vllm_config.parallel_config),\n",
        "        num_kv_heads=model_config.get_total_num_kv_heads(),\n",
    ),
    # get_page_alignment_capability forgets the Triton opt-in: a hybrid bf16 model with use_rocm_triton_paged_prefill=True and no vendor kernel gets no alignment (page 784, not 832) while the layer's dispatch (own opt-in) picks "triton" and then rejects the page.
    (
        "vllm/v1/attention/backends/rocm_paged_prefill.py",
        "        triton_opt_in=vllm_config.attention_config.use_rocm_triton_paged_prefill,\n",
        "",
    ),
    # Logged page decision names the wrong provider when none applies: "triton paged prefill off: ..." instead of "vendor paged prefill off: ..." for every non-hybrid / non-ROCM_ATTN / failed-capability log line.
    (
        "vllm/v1/attention/backends/rocm_paged_prefill.py",
        '        capability.provider or "vendor",\n',
        '        capability.provider or "triton",\n',
    ),
]


# Session 33's third held-out set, by a helper that read the code but none of
# the tests, aimed at boundaries: a comparison at a threshold, an off-by-one
# length or count, one condition of a predicate dropped (fresh33b, v0.33.0;
# fresh33bc, v0.29.0-only lines, run with --base v0.29.0).
FRESH33B = [  # v0.33.0
    # Head-size refusal moved onto the supported edge: head 256 (padded 256), which both backends route (_ROUTED_HEAD_SIZES), raises "head size 256 is not supported" from _launch_config, so decode_page_contiguous and decode_page_contiguous_workspace_numel (the builders) fail at head 256; head 128 unchanged.
    (
        "vllm/v1/attention/ops/decode_page_contiguous.py",
        "    if head_size_padded > 256:\n",
        "    if head_size_padded >= 256:\n",
    ),
    # sm_90 itself drops out of the Hopper branch: _launch_config(GPUTarget("cuda", 90, 32), 128, torch.bfloat16, False) gives the generic 32/4/1 config with programs_per_cu 4 instead of 64/4/2 with 3 (head 256 TRITON layout: tile 32/1 stage/wave_splits True instead of 32/3 stages/wave_splits False); sm_100 (arch 100) unchanged.
    (
        "vllm/v1/attention/ops/decode_page_contiguous.py",
        '    if target is not None and target.backend == "cuda" and target.arch >= 90:\n',
        '    if target is not None and target.backend == "cuda" and target.arch > 90:\n',
    ),
    # Split count rounded up instead of down: _pick_num_splits(3, 1, 128, 1, 4, True) gives 2 where 4 slots // 3 programs = 1 (a grid of 3 programs on 4 slots is split past the resident slots); on the CPU (num_cus 1) decode_page_contiguous_workspace_numel(8, 1, 128, torch.float16, cpu) grows from 4*8*130 = 4160 to 6*8*130 = 6240 (3 seqs now take 2 splits each).
    (
        "vllm/v1/attention/ops/decode_page_contiguous.py",
        "    num_splits = slots // programs\n",
        "    num_splits = cdiv(slots, programs)\n",
    ),
    # Wave-split candidates stop at 3 instead of _MAX_WAVE_SPLITS = 4: _pick_num_splits(5, 1, 128, 2, 2, True) (5 programs on 4 slots, 2 per CU: 5/4 waves) returns 3 (4/3 waves) where the original picks 4 (cdiv(20, 4) / 4 = 1.25 waves); not reachable on the CPU op itself (2 slots: 3 programs pick 2 either way).
    (
        "vllm/v1/attention/ops/decode_page_contiguous.py",
        "            range(1, _MAX_WAVE_SPLITS + 1),\n",
        "            range(1, _MAX_WAVE_SPLITS),\n",
    ),
    # Workspace check rejects an exactly-sized workspace: CPU, 8 query / 1 KV heads, head 128, fp16, one sequence with >= 4 tiles in its block table (page 64, 2 columns) needs 1*8*4*130 = 4160 floats, exactly decode_page_contiguous_workspace_numel(8, 1, 128, fp16, cpu); the builder's workspace then makes the op raise "workspace needs 4160".
    (
        "vllm/v1/attention/ops/decode_page_contiguous.py",
        "        elif workspace.dtype != torch.float32 or workspace.numel() < needed:\n",
        "        elif workspace.dtype != torch.float32 or workspace.numel() <= needed:\n",
    ),
    # Main kernel treats a sequence of exactly MIN_SPLIT_LEN tokens as unsplit while its splits and the reduce still split it: CPU, fp32, head 128 (2 programs per CU), 1 KV head, 3 seqs (one and a half waves -> 2 splits, MIN_SPLIT_LEN 1024) with seq_lens [1024, 8, 8]: split 0 writes half the sequence as the output, no split stores a partial state, and the reduce (1024 is not < 1024) overwrites row 0 from stale workspace; 1023 and 1025 unchanged.
    (
        "vllm/v1/attention/ops/decode_page_contiguous.py",
        "            single_split = single_split | (seq_len < MIN_SPLIT_LEN)\n",
        "            single_split = single_split | (seq_len <= MIN_SPLIT_LEN)\n",
    ),
    # MHA exclusion made vacuous: page_contiguous_decode_is_faster(80, 128, 1, torch.bfloat16) (one query head per KV head on a page that is not a multiple of 64) returns True where the original returns False; likewise (16, 128, 1, bf16, small_pages=True). GQA (2+) and pages % 64 == 0 unchanged.
    (
        "vllm/v1/attention/ops/decode_page_contiguous.py",
        "        and (num_queries_per_kv > 1 or block_size % 64 == 0)\n",
        "        and (num_queries_per_kv >= 1 or block_size % 64 == 0)\n",
    ),
    # Triton paged prefill drops head 256 from its supported sizes: check_paged_prefill_aligned_support(256, 16, 2, 832, torch.bfloat16) returns "head size 256 ..." and paged_prefill_aligned raises at head 256 (_launch_config has a 256 entry); ROCM_ATTN's fallback reason (PAGED_PREFILL_HEAD_SIZES) becomes "head size 256" for the triton provider.
    (
        "vllm/v1/attention/ops/triton_paged_prefill_aligned.py",
        "SUPPORTED_HEAD_SIZES = (64, 128, 256)\n",
        "SUPPORTED_HEAD_SIZES = (64, 128)\n",
    ),
    # ROCM_ATTN decode-op NHD rule drops "cache dtype is the model's": an fp16 layer with kv_cache_dtype="bfloat16" (or bf16 with "float16"), page 64, head 128, 8 q / 2 kv heads, now keeps NHD (_uses_nhd_kv_cache(torch.float16, 64) True), and forward's NHD path, which has no dtype check, calls decode_page_contiguous on the bf16 cache with fp16 queries -> ValueError on any decode or mixed batch; "auto" unchanged.
    (
        "vllm/v1/attention/backends/rocm_attn.py",
        '            and self.kv_cache_dtype == "auto"\n',
        "",
    ),
    # Fallback reason applies the Triton kernel's head sizes to the vendor provider too: paged_prefill_fallback_reason(capability=vendor, head_size=96 (or 32, 160, 192, 224), one bf16 prefill of <= 4096 tokens, page 64, ...) returns "head size 96" where the original returns None (VENDOR_HEAD_SIZES was checked by the capability).
    (
        "vllm/v1/attention/backends/rocm_attn.py",
        '    if capability.provider == "triton" and head_size not in PAGED_PREFILL_HEAD_SIZES:\n',
        "    if head_size not in PAGED_PREFILL_HEAD_SIZES:\n",
    ),
    # NHD mixed batch with exactly one decode row: its row is no longer sent to decode_page_contiguous, and the later "num_decodes == 0 or decode_op" return still skips unified_attention, so output row 0 is never written. Shows on a ROCM_ATTN NHD layer (fp16 or bf16, kv "auto", page 64, head 128, 8 q / 2 kv heads, no provider -> prefill rows on chunked_prefill_paged_decode) with batch [1 decode of 150 tokens, 1 prefill chunk of 20]; 2+ decodes unchanged.
    (
        "vllm/v1/attention/backends/rocm_attn.py",
        "            if num_decodes > 0 and decode_op:\n",
        "            if num_decodes > 1 and decode_op:\n",
    ),
    # TRITON_ATTN mixed batch split with exactly one decode row: decode_page_contiguous serves row 0, but cu_seqlens_q/seqused_k/block_table are not sliced while q/out are (query[1:]), so unified_attention reads request 0's metadata for the prefill rows. Batch [1 decode of 600 tokens, 1 prefill chunk of 20 tokens / 100 total] (600 > 5 * 100 -> num_decodes 1; page 64, head 128, 8 q / 2 kv heads, fp16): unified_attention gets 20 query rows with cu_seqlens [0, 1, 21]; 2+ decode rows unchanged. (Since patch 20 the op and the slicing share one `if first > 0:`; the bug now keeps a single decode row off the op, which unified_attention then serves with the batch.)
    (
        "vllm/v1/attention/backends/triton_attn.py",
        "            if first > 0:\n                decode_page_contiguous(\n",
        "            if first > 1:\n                decode_page_contiguous(\n",
    ),
    # Vendor head sizes lose the largest one: get_paged_prefill_capability(head_size=256, num_heads=16, num_kv_heads=2, dtype=bf16, kv_cache_dtype="auto", attn_type=DECODER, ..., vendor_available=True) returns provider None ("head size 256 is not one of ...") where the original returns "vendor"; also refuses head 256 for the triton opt-in (checked first). Head 224 unchanged.
    (
        "vllm/v1/attention/backends/rocm_paged_prefill.py",
        "VENDOR_HEAD_SIZES = (32, 64, 96, 128, 160, 192, 224, 256)\n",
        "VENDOR_HEAD_SIZES = (32, 64, 96, 128, 160, 192, 224)\n",
    ),
]
FRESH33B_V029 = [  # v0.29.0
    # v0.29.0-only line: the provider is consulted only for batches of two or more prefills, so a batch with exactly one prefill (the vendor kernel's only case, and the common chunked-prefill step) never takes the paged-prefill fast path: vendor provider, one bf16 prefill of 128 tokens on page 64 -> run_vendor_paged_prefill not called (prefill_reason stays "no provider"); the triton provider at page 256 falls to unified_attention.
    (
        "vllm/v1/attention/backends/rocm_attn.py",
        "        if capability.provider is not None and attn_metadata.num_prefills > 0:\n",
        "        if capability.provider is not None and attn_metadata.num_prefills > 1:\n",
    ),
    # v0.29.0-only line: "without a page, any page" inverted: _provider_keeps_nhd_kv_cache(triton capability, None) is False, so _uses_nhd_kv_cache() with no dtype/page (the AITER writer hook fused_rope_kvcache_supported) says x-packed for a triton-provider layer whose forward reads NHD (with AITER enabled the fused RoPE+cache writer is then allowed to write x-packed into an NHD cache); with a page (832 True, 128 False) unchanged.
    (
        "vllm/v1/attention/backends/rocm_attn.py",
        "        return block_size is None or (\n",
        "        return block_size is not None and (\n",
    ),
]


# Session 36: patch 20's band (decode_grid_stays_on_unified_attention) and
# TRITON_ATTN's use of it; written with the change, run against its tests.
BAND_TESTS = (
    tests_of(
        "tests/kernels/attention/test_decode_page_contiguous.py",
        "test_decode_grid_stays_on_unified_attention",
        "test_decode_grid_stays_on_unified_attention_scales_with_the_sms",
    )
    + MIXED_TESTS
)
BAND = [
    # 307-308: either edge of the band moved by one program.
    (D, "    return 3 * num_sms < num_seqs", "    return 3 * num_sms <= num_seqs"),
    (D, " <= 4 * num_sms\n", " < 4 * num_sms\n"),
    # 309: pages of 16 tokens join the band.
    (D, "    if block_size != 32 or next_power_of_2", "    if block_size > 32 or next_power_of_2"),
    # 310: fp32 joins the band.
    (D, " or dtype.itemsize != 2:\n        return False", ":\n        return False"),
    # 311: sm_100 joins the band.
    (
        D,
        'target.backend != "cuda" or target.arch != 90:',
        'target.backend != "cuda" or target.arch < 90:',
    ),
    # 312: programs counted without the KV heads.
    (D, "< num_seqs * num_kv_heads <=", "< num_seqs <="),
    # 313: the backend asks about the query heads' grid.
    (
        T,
        "                first,\n                self.num_kv_heads,\n",
        "                first,\n                self.num_heads,\n",
    ),
    # 314: the backend ignores the answer.
    (T, "            ):\n                first = 0\n", "            ):\n                pass\n"),
]


# Session 38: patch 21's tile parts (short sequences spread over several
# programs in batches of one or two); written with the change, run against
# the op's tests of it.
PARTS_TESTS = tests_of(
    "tests/kernels/attention/test_decode_page_contiguous.py",
    "test_few_program_batches_spread_short_sequences_over_tile_parts",
    "test_tile_parts_only_in_split_batches_of_few_programs",
    "test_launch_config_is_pinned_per_target",
)
PARTS = [
    # 315: a part attends its whole tile.
    (
        D,
        "tok_mask = (span_offs < span_len) & (offs_t // part_size == part_idx)",
        "tok_mask = span_offs < span_len",
    ),
    # 316: a part past the sequence's end attends a tile with no token.
    (
        D,
        "(tile_start < tile_end) & (tile_base + part_idx * part_size < span_len)",
        "(tile_start < tile_end)",
    ),
    # 317: a program with a part also runs its tile in the loop.
    (
        D,
        "        loop_end = tl.where(parts > 1, tile_start, loop_end)\n",
        "        loop_end = loop_end\n",
    ),
    # 318: the reduce reads min(num_tiles, num_splits) states.
    (
        D,
        "        num_live = tl.where(parts > 1, num_tiles * parts, num_live)\n",
        "        num_live = num_live\n",
    ),
    # 319-320: batches of three programs spread; two do not.
    (D, "_TILE_PARTS_MAX_PROGRAMS = 2\n", "_TILE_PARTS_MAX_PROGRAMS = 3\n"),
    (
        D,
        "num_seqs * num_kv_heads <= _TILE_PARTS_MAX_PROGRAMS",
        "num_seqs * num_kv_heads < _TILE_PARTS_MAX_PROGRAMS",
    ),
    # 321-322: sequences of five tiles, or of one, spread.
    (D, "(num_tiles >= 2) & (num_tiles <= 4)", "(num_tiles >= 2) & (num_tiles <= 5)"),
    (D, "(num_tiles >= 2) & (num_tiles <= 4)", "(num_tiles >= 1) & (num_tiles <= 4)"),
    # 323-324: 4 parts at 3 splits per tile; 2 parts at 1.
    (D, "parts = tl.where(per_tile >= 4, 4, parts)", "parts = tl.where(per_tile >= 3, 4, parts)"),
    (D, "parts = tl.where(per_tile >= 2, 2, 1)", "parts = tl.where(per_tile >= 1, 2, 1)"),
    # 325: 32-token parts on sm_90.
    (D, "            tile_parts = tile // 16\n", "            tile_parts = tile // 32\n"),
    # 326: the last span's length taken for every span.
    (
        D,
        "span_len = tl.where(lead_span == last_span, tail_tokens, SPAN)",
        "span_len = tail_tokens",
    ),
    # 327: a part's tile end not bounded by the sequence's tiles.
    (D, "tl.minimum(tile_start + 1, num_tiles)", "tile_start + 1"),
    # 328: the part index taken as the tile index.
    (D, "part_idx = split_idx % parts", "part_idx = split_idx // parts"),
    # 329: unsplit launches get the parts too.
    (
        D,
        "tile_parts = config.tile_parts if use_splits and few_programs else 1",
        "tile_parts = config.tile_parts if few_programs else 1",
    ),
    # 330: the x-packed layout spreads too.
    (
        D,
        "if dtype.itemsize == 2 and not x_packed and key[0] <= 128:",
        "if dtype.itemsize == 2 and key[0] <= 128:",
    ),
    # 331 (session 40): head 256 spreads too.
    (
        D,
        "if dtype.itemsize == 2 and not x_packed and key[0] <= 128:",
        "if dtype.itemsize == 2 and not x_packed and key[0] <= 256:",
    ),
]


# (group, tests, bugs); bugs are numbered over all groups in this order.
GROUPS = [
    ("dispatch", DISPATCH_TESTS, DISPATCH),
    ("decode", DECODE_TESTS, DECODE),
    ("prefill", PREFILL_TESTS, PREFILL),
    ("vendor", VENDOR_TESTS, VENDOR),
    ("alignment", ALIGNMENT_TESTS, ALIGNMENT),
    ("prefix", PREFIX_TESTS, PREFIX),
    ("fresh", FRESH_TESTS, FRESH),
    ("nhd", NHD_TESTS, NHD),
    ("fresh8", FRESH8_TESTS, FRESH8),
    ("small", SMALL_TESTS, SMALL),
    ("mixed", MIXED_TESTS, MIXED),
    ("rocm_small", ROCM_SMALL_TESTS, ROCM_SMALL),
    ("short", SHORT_TESTS, SHORT),
    ("reduce", SHORT_TESTS, REDUCE),
    ("fresh30d", FRESH30_DECODE_TESTS, FRESH30_DECODE),
    ("fresh30r", DISPATCH_TESTS, FRESH30_DISPATCH),
    ("fresh30p", FRESH30_PREFILL_TESTS, FRESH30_PREFILL),
    ("fresh30b", FRESH8_TESTS, FRESH30B),
    ("fresh30c", FRESH8_TESTS, FRESH30C),
    ("fresh31", FRESH8_TESTS, FRESH31),
    ("fresh32", FRESH8_TESTS, FRESH32),
    ("fresh32c", FRESH8_TESTS, FRESH32_V029),
    ("fresh33", FRESH8_TESTS, FRESH33),
    ("fresh33k", FRESH8_TESTS, FRESH33K),
    ("fresh33kc", FRESH8_TESTS, FRESH33K_V029),
    ("fresh33b", FRESH8_TESTS, FRESH33B),
    ("fresh33bc", FRESH8_TESTS, FRESH33B_V029),
    ("band", BAND_TESTS, BAND),
    ("parts", PARTS_TESTS, PARTS),
]


def present(tree: str, tests: list[str]) -> list[str]:
    """The node ids whose test function exists in this tree (another base
    may lack one, e.g. v0.29.0 has no interleaved V cache)."""
    kept = []
    for node in tests:
        path, _, name = node.partition("::")
        full = os.path.join(tree, path)
        if not os.path.exists(full):
            continue
        with open(full) as f:
            if not name or f"def {name}(" in f.read():
                kept.append(node)
    return kept


def run(tree: str, python: str, tests: list[str]) -> tuple[int, str]:
    env = dict(os.environ, TRITON_INTERPRET="1", CUDA_VISIBLE_DEVICES="")
    cmd = [python, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "-n", "2", *tests]
    # A session of its own, so that a hung run's xdist workers are killed too.
    p = subprocess.Popen(
        cmd,
        cwd=tree,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        out, err = p.communicate(timeout=900)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        return -1, "TIMEOUT: no result in 900 s (a hang also fails CI)"
    out = out.strip()
    return p.returncode, out.splitlines()[-1] if out else err[-300:]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--base", default="v0.33.0")
    p.add_argument("--tree", help="fork tree (default: .fork/BASE)")
    p.add_argument("--python", help="its Python (default: .fork/venvs/BASE/bin/python)")
    p.add_argument("--group", action="append", choices=[g for g, _, _ in GROUPS])
    p.add_argument("only", nargs="*", type=int)
    args = p.parse_args()
    tree = args.tree or os.path.join(ROOT, ".fork", args.base)
    python = args.python or os.path.join(ROOT, ".fork", "venvs", args.base, "bin", "python")
    bugs = [(g, present(tree, tests), bug) for g, tests, group in GROUPS for bug in group]
    caught = tried = 0
    for i, (group, tests, (f, old, new)) in enumerate(bugs):
        if (args.only and i not in args.only) or (args.group and group not in args.group):
            continue
        path = os.path.join(tree, f)
        src = open(path).read()
        if src.count(old) != 1:
            print(f"{i:2} SKIP     {f}: {old.strip()[:60]!r} is not in the tree", flush=True)
            continue
        with open(path, "w") as fh:
            fh.write(src.replace(old, new))
        try:
            start = time.time()
            rc, last = run(tree, python, tests)
        finally:
            with open(path, "w") as fh:
                fh.write(src)
        if rc in (4, 5):  # pytest: usage error / no tests collected
            print(f"{i:2} ERROR    {f}: pytest ran no test: {last[:100]}", flush=True)
            continue
        tried += 1
        caught += rc != 0
        print(
            f"{i:2} {'caught  ' if rc else 'SURVIVED'} {time.time() - start:4.0f}s {group} "
            f"{os.path.basename(f)}: {old.strip()[:60]!r} -> {new.strip()[:40]!r} | {last[:80]}",
            flush=True,
        )
    print(f"caught {caught} of {tried}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
