#!/usr/bin/env bash
# GPU call 43 (session 13, issue 14): the op's and both backends' decode
# test files in bf16 on the H200, on the op as exported (wave-split kernel
# held to 168 registers on TRITON_ATTN's layout at head 256). Call 42's test
# run did not start: a stand-in for openai_harmony broke vLLM's import.
set -u
cd "$(dirname "$0")/../../../.."
for d in whl_slim whl_numpy; do
  python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/$d .gpu/$d/*.whl 2>&1 | tail -1
done
rm -rf /tmp/b; mkdir -p /tmp/b /tmp/o43
tar xzf .gpu/bundle-v0.33.0.tgz -C /tmp/b
export PYTHONUNBUFFERED=1
PYTHONPATH=/tmp/whl_numpy:/tmp/b:/tmp/whl_slim timeout 420 python3 benchmarks/gpu_pytest.py /tmp/b -q -n 14 -rs \
  tests/kernels/attention/test_decode_page_contiguous.py tests/v1/attention/test_triton_attn_page_contiguous_decode.py \
  tests/v1/attention/test_rocm_attn_page_contiguous_decode.py > /tmp/o43/call43_gpu_tests_decode_h200.log 2>&1
echo "tests rc=$?"; tail -4 /tmp/o43/call43_gpu_tests_decode_h200.log
cp -r /tmp/o43/* $OUT/
