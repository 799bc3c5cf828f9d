#!/usr/bin/env bash
# GPU call 48 (session 20): the issue's bandwidth and batch-1 targets on the
# exported op, with block tables as wide as a 128K-token server's: batch 1
# and 4-64 at 16K and 32K tokens, Qwen3.5-27B's 24/4/256 at page 832 and
# 16/2/256 (Qwen3-Next's heads) at page 1088, all three layouts.
set -u
cd "$(dirname "$0")/../../../.."
source benchmarks/gpu_call_env.sh
for heads_page in 24/4/256:832 16/2/256:1088; do
  tag=decode_targets_${heads_page//[\/:]/_}
  timeout 200 python3 benchmarks/kernels/bench_decode_page_sweep.py --rounds 1 --vllm-root /tmp/b --out-dir /tmp/o \
    --tag "$tag" --layouts triton,rocm_nhd,rocm --heads "${heads_page%:*}" --pages "${heads_page#*:}" \
    --batches 1,4,16,64 --seq-lens 16384,32768 --max-model-len 131072 --prewarm-workers 6 --reps 7 \
    > "/tmp/o/${tag}_h200.log" 2>&1
  echo "$tag rc=$?"; grep -E "B=  1 L=32768|B= 16 L=32768" "/tmp/o/${tag}_h200.log"
done
cp /tmp/o/* $OUT/
