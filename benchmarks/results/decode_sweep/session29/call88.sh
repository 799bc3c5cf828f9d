#!/usr/bin/env bash
# GPU call 88 (session 29): v0.29.0's patch 19 (the reduce reading ahead of the
# length) on the GPU, as session 28's call 81: the op's kernel tests and
# TRITON_ATTN's routing tests. Carries .gpu with v0.29.0's bundle trimmed as
# call 85's (no vllm/models, vllm/model_executor/models/* but __init__,
# registry, interfaces, utils) and the wheels of call 85.
set -u
cd "$(dirname "$0")/../../../.."
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .gpu/whl/*.whl 2>&1 | tail -1
mkdir -p /tmp/b29 /tmp/o
tar xzf .gpu/bundle-v0.29.0.tgz -C /tmp/b29
export PYTHONPATH=/tmp/b29:/tmp/site PYTHONUNBUFFERED=1
timeout 300 python3 benchmarks/gpu_pytest.py /tmp/b29 -q -n 14 -p no:cacheprovider \
  tests/kernels/attention/test_decode_page_contiguous.py \
  tests/v1/attention/test_triton_attn_page_contiguous_decode.py > /tmp/o/gpu_tests_decode_v0.29.0_h200.log 2>&1
echo "tests rc=$?"; tail -n 1 /tmp/o/gpu_tests_decode_v0.29.0_h200.log
cp /tmp/o/*.log "$OUT/"
