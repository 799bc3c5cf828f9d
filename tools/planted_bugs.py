# SPDX-License-Identifier: Apache-2.0
"""Planted one-line bugs in the backends' dispatch code (ROCM_ATTN and
TRITON_ATTN), each run against the series' own CPU tests of those backends
in a built fork tree; prints caught or SURVIVED per bug and restores the file.

    python3 tools/planted_bugs.py [--base v0.33.0] [N ...]   (N: only these bugs)

A bug whose old text is not in the tree (another base) is listed as SKIP.
Session 5 on v0.33.0: 22 of 31 caught before the routing tests it led to,
30 of 31 after; the survivor (9) passes every sequence length to
chunked_prefill_paged_decode for the decode rows, which skips the prefill
rows by their query length, so no value changes.
"""

import argparse
import os
import subprocess
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
R = "vllm/v1/attention/backends/rocm_attn.py"
T = "vllm/v1/attention/backends/triton_attn.py"
TESTS = [
    "tests/v1/attention/test_triton_attn_page_contiguous_decode.py",
    "tests/v1/attention/test_rocm_attn_page_contiguous_decode.py",
    "tests/kernels/attention/test_rocm_attn_mixed_batches.py",
    "tests/kernels/attention/test_rocm_vendor_paged_prefill.py",
]
M = [
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
        "            if max_seqlen_q == 1:\n                return output",
        "            if max_seqlen_q == 0:\n                return output",
    ),
]


def run(tree: str, python: str) -> tuple[int, str]:
    env = dict(os.environ, TRITON_INTERPRET="1", CUDA_VISIBLE_DEVICES="")
    cmd = [python, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "-n", "2", *TESTS]
    p = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True, timeout=900)
    out = p.stdout.strip()
    return p.returncode, out.splitlines()[-1] if out else p.stderr[-300:]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--base", default="v0.33.0")
    p.add_argument("only", nargs="*", type=int)
    args = p.parse_args()
    tree = os.path.join(ROOT, ".fork", args.base)
    python = os.path.join(ROOT, ".fork", "venvs", args.base, "bin", "python")
    caught = tried = 0
    for i, (f, old, new) in enumerate(M):
        if args.only and i not in args.only:
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
            rc, last = run(tree, python)
        finally:
            with open(path, "w") as fh:
                fh.write(src)
        tried += 1
        caught += rc != 0
        print(
            f"{i:2} {'caught  ' if rc else 'SURVIVED'} {time.time() - start:4.0f}s "
            f"{os.path.basename(f)}: {old.strip()[:60]!r} -> {new.strip()[:40]!r} | {last[:80]}",
            flush=True,
        )
    print(f"caught {caught} of {tried}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
