#!/usr/bin/env bash
# GPU call 84 (session 29): the queue's op after the reduce change (v0.33.0
# patch 18), every routed shape of session 28's call 75 against the path each
# backend runs today, then the op's GPU tests and both backends' decode
# routing tests. Carries .gpu with a v0.33.0 bundle trimmed as session 28's
# README says (call 81) and the apache-tvm-ffi and openai-harmony wheels.
set -u
cd "$(dirname "$0")/../../../.."
source benchmarks/gpu_call_env.sh
G=""
for h in 24/4/256 16/2/256 32/8/128; do for p in 16 32; do G="$G,triton:$h:$p"; done; done
for h in 24/4/256 16/2/256 32/8/128 8/1/128 32/32/128; do for p in 64 128 544 832 1056; do G="$G,triton:$h:$p"; done; done
G="$G,rocm:24/4/256:16,rocm:24/4/256:832,rocm:32/8/128:832"
timeout 240 python3 benchmarks/experiments/decode_short_context_variants.py --vllm-root /tmp/b \
  --out-dir /tmp/o --variants base --groups "${G#,}" \
  --batches 1,2,4,8,16,64,256 --seq-lens 64,128,256,512,1024,4096,16384,65536 --max-tokens 524288 \
  --workers 14 --reps 5 > /tmp/o/decode_after_h200.log 2>&1
echo "sweep rc=$?"; tail -n 2 /tmp/o/decode_after_h200.log
cp /tmp/o/decode_short_context_variants.json /tmp/o/decode_after.json 2>/dev/null
timeout 300 python3 benchmarks/gpu_pytest.py /tmp/b -q -n 14 -p no:cacheprovider \
  tests/kernels/attention/test_decode_page_contiguous.py \
  tests/v1/attention/test_triton_attn_page_contiguous_decode.py \
  tests/v1/attention/test_rocm_attn_page_contiguous_decode.py \
  tests/kernels/attention/test_rocm_attn_mixed_batches.py > /tmp/o/gpu_tests_decode_h200.log 2>&1
echo "tests rc=$?"; tail -n 1 /tmp/o/gpu_tests_decode_h200.log
cp /tmp/o/decode_after.json /tmp/o/*.log "$OUT/"
