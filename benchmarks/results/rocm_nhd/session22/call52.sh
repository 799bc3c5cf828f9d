#!/usr/bin/env bash
# GPU call 52 (session 22): the envelope patch 14 ("Keep the KV cache NHD on
# ROCM_ATTN layers whose decode rows the page-contiguous op serves") left
# unmeasured: prefill chunks of 16-2048 tokens, pages 96-2048, GQA 3-8, and
# the steps a layer kept NHD sends to unified_attention (speculative-decoding
# verify batches and mixed steps captured whole, decode rows with a fused
# output scale), each against what the x-packed layer ran before.
set -u
cd "$(dirname "$0")/../../../.."
source benchmarks/gpu_call_env.sh
run() {
  local tag=$1 heads=$2 limit=$3
  timeout "$limit" python3 benchmarks/experiments/rocm_default_layer_nhd.py --vllm-root /tmp/b \
    --out-dir /tmp/o --tag "$tag" --heads "$heads" --pages 96,128,544,1040,2048 \
    --cases prefill,spec,step,decode \
    --chunks 16@4096,64@8192,256@16384,1024@0,2048@32768 > "/tmp/o/${tag}_h200.log" 2>&1
  echo "$tag rc=$?"
}
run envelope_head256 24/4/256,12/2/256,16/2/256 280
run envelope_head128 40/8/128,28/4/128,24/8/128,8/1/128 270
grep -E "ratios|Error|error|skip" /tmp/o/*.log | cut -c1-220 | tail -150
cp /tmp/o/* "$OUT"/
