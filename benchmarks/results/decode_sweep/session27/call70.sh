#!/usr/bin/env bash
# GPU call 70 (session 27): the v0.29.0 queue's patch 16 (its bundle,
# .gpu/bundle-v0.29.0.tgz, carried instead of v0.33.0's): its ROCM_ATTN
# routing and mixed-batch tests on the GPU (bf16).
set -u
cd "$(dirname "$0")/../../../.."
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .gpu/whl/*.whl 2>&1 | tail -1
mkdir -p /tmp/b29 /tmp/o
tar xzf .gpu/bundle-v0.29.0.tgz -C /tmp/b29
export PYTHONPATH=/tmp/b29:/tmp/site PYTHONUNBUFFERED=1
timeout 200 python3 benchmarks/gpu_pytest.py /tmp/b29 -q -n 14 -p no:cacheprovider \
  tests/v1/attention/test_rocm_attn_page_contiguous_decode.py \
  tests/kernels/attention/test_rocm_attn_mixed_batches.py > /tmp/o/gpu_tests_rocm_attn_v0.29.0_h200.log 2>&1
echo "tests rc=$?"; tail -n 1 /tmp/o/gpu_tests_rocm_attn_v0.29.0_h200.log
cp /tmp/o/*.log "$OUT/"
