#!/usr/bin/env bash
# GPU call 81 (session 28): the v0.29.0 queue's patch 18 (its bundle,
# .gpu/bundle-v0.29.0.tgz, carried instead of v0.33.0's): the op's kernel
# tests and TRITON_ATTN's decode routing tests on the GPU (bf16/fp16).
set -u
cd "$(dirname "$0")/../../../.."
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .gpu/whl/*.whl 2>&1 | tail -1
mkdir -p /tmp/b29 /tmp/o
tar xzf .gpu/bundle-v0.29.0.tgz -C /tmp/b29
export PYTHONPATH=/tmp/b29:/tmp/site PYTHONUNBUFFERED=1
timeout 170 python3 benchmarks/gpu_pytest.py /tmp/b29 -q -n 14 -p no:cacheprovider \
  tests/kernels/attention/test_decode_page_contiguous.py \
  tests/v1/attention/test_triton_attn_page_contiguous_decode.py > /tmp/o/gpu_tests_decode_v0.29.0_h200.log 2>&1
echo "tests rc=$?"; tail -n 1 /tmp/o/gpu_tests_decode_v0.29.0_h200.log
cp /tmp/o/*.log "$OUT/"
