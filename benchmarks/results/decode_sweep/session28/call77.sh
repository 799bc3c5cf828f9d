#!/usr/bin/env bash
# GPU call 77 (session 28): programmatic dependent launch on top of the
# queue's op (patch 17): the op as built against `pdl_main_late` (both
# kernels launched with PDL, the main kernel waiting before its first load
# and signalling after its last store), TRITON_ATTN's layout, without and
# with each call's KV-cache write ahead of it (what a server's step runs
# before attention: PDL overlaps the op's launch with that kernel's tail).
set -u
cd "$(dirname "$0")/../../../.."
source benchmarks/gpu_call_env.sh
G=triton:32/8/128:16,triton:24/4/256:16,triton:16/2/256:16,triton:32/8/128:32,triton:32/8/128:64,triton:24/4/256:64,triton:24/4/256:832,triton:8/1/128:832,triton:32/8/128:832,triton:32/8/128:544
for mode in ${MODES:-plain cache_write}; do
  extra=""; [ $mode = cache_write ] && extra="--cache-write"
  timeout 270 python3 benchmarks/experiments/decode_short_context_variants.py --vllm-root /tmp/b \
    --out-dir /tmp/o --variants base,pdl_main_late --groups $G $extra \
    --batches 1,2,4,8,16,64,256 --seq-lens 64,128,256,512,1024,4096,32768 --max-tokens 524288 \
    --workers 14 --reps 5 > /tmp/o/decode_pdl_${mode}_h200.log 2>&1
  echo "$mode rc=$?"; tail -n 3 /tmp/o/decode_pdl_${mode}_h200.log
  cp /tmp/o/decode_short_context_variants.json /tmp/o/decode_pdl_${mode}.json 2>/dev/null
done
cp /tmp/o/decode_pdl_*.json /tmp/o/decode_pdl_*_h200.log "$OUT/"
