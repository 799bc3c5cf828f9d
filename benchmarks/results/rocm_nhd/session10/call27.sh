#!/usr/bin/env bash
# GPU call 27 (session 10, issue 14): the prefill kernel's and the mixed-batch
# test files in bf16 on the H200 with the new sm_90 head-128 config; ROCM_ATTN
# steps at head 128, tree before patch 12 against after patch 13 (call 19's
# steps, both trees now with 128x64/8/3).
set -u
cd "$(dirname "$0")/.."
for d in whl whl_numpy; do
  python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/$d .gpu/$d/*.whl 2>&1 | tail -1
done
mkdir -p /tmp/b /tmp/o
tar xzf .gpu/bundle-v0.33.0.tgz -C /tmp/b
cp -a /tmp/b /tmp/b_old && cp -r .gpu/old/vllm/. /tmp/b_old/vllm/
export PYTHONUNBUFFERED=1
PYTHONPATH=/tmp/whl_numpy:/tmp/b:/tmp/whl timeout 240 python3 benchmarks/gpu_pytest.py /tmp/b -q -n 14 -rs \
  tests/kernels/attention/test_triton_paged_prefill_aligned.py tests/kernels/attention/test_rocm_attn_mixed_batches.py \
  > /tmp/o/gpu_tests_prefill_h200.log 2>&1
echo "tests rc=$?"; tail -4 /tmp/o/gpu_tests_prefill_h200.log
for t in new old; do
  root=/tmp/b; [ $t = old ] && root=/tmp/b_old
  echo "tree: $t"
  PYTHONPATH=$root:/tmp/whl timeout 150 python3 .gpu/vbench/many.py $root .gpu/vbench/benchmark_rocm_attn_mixed_batch.py \
    .gpu/vbench/mixed_args_h128.txt 2>&1 | grep -v "^W\|stand-in\|Failed to import\|Cannot use ROCm custom"
done | tee /tmp/o/benchmark_rocm_attn_mixed_batch_h128_h200.log
cp -r /tmp/o/* $OUT/
