#!/usr/bin/env bash
# GPU call 53 (session 22): the rest of call 52's envelope (GQA 3, 6 and 1,
# pages 1040-2048 at head 256), and mixed steps captured whole at vLLM's
# default capture sizes (<= 512 tokens: a 448-token chunk beside 9 or 64
# decodes) besides the 4096-token chunk of call 52. Decode rows with a fused
# output scale (the decode case) are not repeated: unified_attention on NHD
# took 0.02-0.53x of the x-packed path at every point of call 52.
set -u
cd "$(dirname "$0")/../../../.."
source benchmarks/gpu_call_env.sh
run() {
  local tag=$1 heads=$2 pages=$3 limit=$4
  timeout "$limit" python3 benchmarks/experiments/rocm_default_layer_nhd.py --vllm-root /tmp/b \
    --out-dir /tmp/o --tag "$tag" --heads "$heads" --pages "$pages" --cases prefill,spec,step \
    --chunks 16@4096,64@8192,256@16384,1024@0,2048@32768 --step-chunks 448@8192,4096@8192 \
    > "/tmp/o/${tag}_h200.log" 2>&1
  echo "$tag rc=$?"
}
run envelope2_gqa3 24/8/128 96,544,1040 110
run envelope2_gqa7 28/4/128 544,1040,2048 110
run envelope2_gqa1 8/1/128 128,2048 80
run envelope2_12q2kv 12/2/256 96,544,1040 120
run envelope2_head256_large_pages 24/4/256 1040,2048 90
grep -hE "ratios|Error|error|skip" /tmp/o/*.log | cut -c1-200
cp /tmp/o/* "$OUT"/  # (the device returns 8 files: the last run's two were left out)
