#!/usr/bin/env bash
# GPU call 93 (session 32): the v0.29.0 queue with the same change (its last
# patch, byte-identical op and op tests): the op's and the backends' decode
# tests on the GPU (bf16/fp16), without the out-of-bounds guard (a CPU
# interpreter child; it runs in CI). .gpu: the v0.29.0 bundle
# (benchmarks/gpu_call_bundle.sh v0.29.0) and the wheels of call 92, without
# the v0.33.0 bundle (carry limit): carry .gpu/whl and .gpu/bundle-v0.29.0.tgz.
set -u
cd "$(dirname "$0")/../../../.."
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .gpu/whl/*.whl 2>&1 | tail -1
mkdir -p /tmp/b29 /tmp/o
tar xzf .gpu/bundle-v0.29.0.tgz -C /tmp/b29
export PYTHONPATH=/tmp/b29:/tmp/site PYTHONUNBUFFERED=1
timeout 300 python3 benchmarks/gpu_pytest.py /tmp/b29 -q -n 14 -p no:cacheprovider \
  -k "not reads_stay_in_bounds and not guard_catches_overrun" \
  tests/kernels/attention/test_decode_page_contiguous.py \
  tests/v1/attention/test_triton_attn_page_contiguous_decode.py \
  tests/v1/attention/test_rocm_attn_page_contiguous_decode.py \
  tests/kernels/attention/test_rocm_attn_mixed_batches.py > /tmp/o/gpu_tests_decode_v0.29.0_h200.log 2>&1
echo "tests rc=$?"; tail -n 3 /tmp/o/gpu_tests_decode_v0.29.0_h200.log
cp /tmp/o/*.log "$OUT/"
