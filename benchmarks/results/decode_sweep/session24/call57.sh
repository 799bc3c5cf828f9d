#!/usr/bin/env bash
# GPU call 57 (session 24): ROCM_ATTN's pure-decode and mixed-batch tests on
# the GPU after patch 14's test fix (they build the layout the layer keeps),
# and the decode op's and TRITON_ATTN's tests once more on the exported queue.
set -u
cd "$(dirname "$0")/../../../.."
source benchmarks/gpu_call_env.sh
timeout 420 python3 benchmarks/gpu_pytest.py /tmp/b -q -n 15 -rs -p no:cacheprovider \
  tests/v1/attention/test_rocm_attn_page_contiguous_decode.py \
  tests/kernels/attention/test_rocm_attn_mixed_batches.py \
  tests/v1/attention/test_triton_attn_page_contiguous_decode.py \
  tests/kernels/attention/test_decode_page_contiguous.py > /tmp/o/gpu_tests_queue_head_h200.log 2>&1
echo "tests rc=$?"; tail -n 3 /tmp/o/gpu_tests_queue_head_h200.log
tar czf "$OUT/call57.tgz" -C /tmp/o .
