#!/usr/bin/env bash
# GPU call 76 (session 28): the op after the change on the GPU (bf16/fp16):
# its kernel tests and the backends' tests that route decode rows to it
# (TRITON_ATTN, ROCM_ATTN, ROCM_ATTN's mixed batches).
set -u
cd "$(dirname "$0")/../../../.."
source benchmarks/gpu_call_env.sh
timeout 500 python3 benchmarks/gpu_pytest.py /tmp/b -q -n 14 -p no:cacheprovider \
  tests/kernels/attention/test_decode_page_contiguous.py \
  tests/v1/attention/test_triton_attn_page_contiguous_decode.py \
  tests/v1/attention/test_rocm_attn_page_contiguous_decode.py \
  tests/kernels/attention/test_rocm_attn_mixed_batches.py > /tmp/o/gpu_tests_decode_h200.log 2>&1
echo "tests rc=$?"; tail -n 1 /tmp/o/gpu_tests_decode_h200.log
cp /tmp/o/*.log "$OUT/"
