#!/usr/bin/env bash
# GPU call 82 (prepared in session 28, not run: the session's device time was
# spent): on the queue's op after patch 17, the loop's first block ids read
# before Q as well (`loop_ids_first`), against the op as built and today's
# path, plain and with each call's KV-cache write ahead of it; registers first
# (tools/triton_targets.py offline: a variant must keep the op's programs per
# SM).
set -u
cd "$(dirname "$0")/../../../.."
source benchmarks/gpu_call_env.sh
G=triton:32/8/128:16,triton:24/4/256:16,triton:16/2/256:16,triton:32/8/128:32,triton:32/8/128:64,triton:24/4/256:64,triton:24/4/256:832,triton:8/1/128:832,triton:32/8/128:832,triton:32/8/128:544,triton:16/2/256:832,triton:32/32/128:64,rocm:24/4/256:832,rocm:32/8/128:832
for mode in plain cache_write; do
  extra=""; [ $mode = cache_write ] && extra="--cache-write" && G=$(echo $G | sed 's/,rocm:[^,]*//g')
  timeout 270 python3 benchmarks/experiments/decode_short_context_variants.py --vllm-root /tmp/b \
    --out-dir /tmp/o --variants base,loop_ids_first --groups $G $extra \
    --batches 1,2,4,8,16,64,256 --seq-lens 64,128,256,512,1024,4096,32768 --max-tokens 524288 \
    --workers 14 --reps 5 > /tmp/o/decode_loop_ids_${mode}_h200.log 2>&1
  echo "$mode rc=$?"; tail -n 3 /tmp/o/decode_loop_ids_${mode}_h200.log
  cp /tmp/o/decode_short_context_variants.json /tmp/o/decode_loop_ids_${mode}.json 2>/dev/null
done
cp /tmp/o/decode_loop_ids_* "$OUT/"
