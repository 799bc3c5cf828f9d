#!/usr/bin/env bash
# GPU call 45 (session 19): short-context decode variants fill_min128/256/512
# (grids within one wave of programs also run a sequence shorter than the
# threshold in one program) against the op as built and today's paths.
set -u
cd "$(dirname "$0")/../../../.."
source benchmarks/gpu_call_env.sh
timeout 540 python3 benchmarks/experiments/decode_short_context_variants.py --vllm-root /tmp/b --out-dir /tmp/o \
  --variants base,fill_min128,fill_min256,fill_min512 \
  --groups triton:24/4/256:64,triton:24/4/256:832,triton:24/4/256:1056,triton:16/2/256:832,triton:32/8/128:64,triton:32/8/128:832,triton:8/1/128:832,rocm:24/4/256:832,rocm:32/8/128:832 \
  --batches 1,2,4,8,16,32,64 --seq-lens 64,128,192,256,384,512,768,1024,4096 --max-tokens 524288 --reps 5 \
  > /tmp/o/variants_round6_fill_min_h200.log 2>&1
echo "rc=$?"; tail -n 8 /tmp/o/variants_round6_fill_min_h200.log
for f in /tmp/o/*.json; do mv "$f" "${f%.json}_round6.json"; done
cp /tmp/o/* $OUT/
