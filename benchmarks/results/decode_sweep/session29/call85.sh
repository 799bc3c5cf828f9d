#!/usr/bin/env bash
# GPU call 85 (session 29): call 84 found the op 11-17% slower at 64K tokens
# than session 28's call 75 (and unified_attention 5-7% faster), two runs
# on two machines. Here the op after v0.33.0 patch 18 (base) against the same
# op with the reduce before it (reduce_before), in one process, up to 64K
# tokens; then the GPU tests call 84 could not import (the openai wheel was
# missing). Carries .gpu with a v0.33.0 bundle trimmed as session 28's
# README says (call 81) and without vllm/models and
# vllm/model_executor/models/* (all but __init__, registry, interfaces,
# utils), and the apache-tvm-ffi, openai and openai-harmony wheels.
set -u
cd "$(dirname "$0")/../../../.."
source benchmarks/gpu_call_env.sh
timeout 200 python3 benchmarks/experiments/decode_short_context_variants.py --vllm-root /tmp/b \
  --out-dir /tmp/o --variants base,reduce_before \
  --groups triton:24/4/256:16,triton:24/4/256:832,triton:32/8/128:16,triton:32/8/128:832,triton:8/1/128:832,rocm:32/8/128:832 \
  --batches 1,2,4,8,16 --seq-lens 64,128,256,1024,16384,65536 --max-tokens 524288 \
  --workers 14 --reps 5 > /tmp/o/decode_reduce_before_h200.log 2>&1
echo "sweep rc=$?"; tail -n 3 /tmp/o/decode_reduce_before_h200.log
cp /tmp/o/decode_short_context_variants.json /tmp/o/decode_reduce_before.json 2>/dev/null
timeout 330 python3 benchmarks/gpu_pytest.py /tmp/b -q -n 14 -p no:cacheprovider \
  tests/kernels/attention/test_decode_page_contiguous.py \
  tests/v1/attention/test_triton_attn_page_contiguous_decode.py \
  tests/v1/attention/test_rocm_attn_page_contiguous_decode.py \
  tests/kernels/attention/test_rocm_attn_mixed_batches.py > /tmp/o/gpu_tests_decode_h200.log 2>&1
echo "tests rc=$?"; tail -n 1 /tmp/o/gpu_tests_decode_h200.log
cp /tmp/o/decode_reduce_before* /tmp/o/gpu_tests_decode_h200.log "$OUT/"
