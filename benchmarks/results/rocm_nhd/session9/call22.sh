#!/usr/bin/env bash
# GPU call 22 (session 9): the v0.29.0 queue, the two test files its patches 12 and 13 change.
set -u
cd "$(dirname "$0")/.."
for d in whl whl_numpy; do
  python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/$d .gpu/$d/*.whl 2>&1 | tail -1
done
mkdir -p /tmp/b /tmp/o
tar xzf .gpu/bundle-v0.29.0.tgz -C /tmp/b
export PYTHONUNBUFFERED=1 PYTHONPATH=/tmp/whl_numpy:/tmp/b:/tmp/whl
timeout 200 python3 benchmarks/gpu_pytest.py /tmp/b -q -n 14 -rs \
  tests/kernels/attention/test_triton_paged_prefill_aligned.py tests/kernels/attention/test_rocm_attn_mixed_batches.py \
  > /tmp/o/gpu_tests_v0.29.0_nhd_h200.log 2>&1
echo "tests rc=$?"; tail -3 /tmp/o/gpu_tests_v0.29.0_nhd_h200.log; grep -E "^FAILED" /tmp/o/gpu_tests_v0.29.0_nhd_h200.log | head
cp /tmp/o/* $OUT/
