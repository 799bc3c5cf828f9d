#!/usr/bin/env bash
# GPU call 83 (session 29): the reduce reading the partial states ahead of
# the sequence length (reduce_early: all the launch's splits; reduce_early8,
# reduce_early16: the first 8 or 16 splits' outputs, the rest after the
# length), plain and with each call's KV-cache write ahead of it. Carries
# .gpu with a v0.33.0 bundle trimmed as session 28's README says (call 81)
# and the openai and openai-harmony wheels (the cache writer's imports).
set -u
cd "$(dirname "$0")/../../../.."
source benchmarks/gpu_call_env.sh
G=triton:32/8/128:16,triton:24/4/256:16,triton:16/2/256:16,triton:32/8/128:32,triton:32/8/128:64,triton:24/4/256:64,triton:24/4/256:832,triton:8/1/128:832,triton:32/8/128:832,triton:32/8/128:544,triton:16/2/256:832,triton:32/32/128:64,rocm:24/4/256:832,rocm:32/8/128:832
V=base,reduce_early,reduce_early8,reduce_early16
for mode in plain cache_write; do
  extra=""; [ $mode = cache_write ] && extra="--cache-write" && G=$(echo $G | sed 's/,rocm:[^,]*//g')
  timeout 280 python3 benchmarks/experiments/decode_short_context_variants.py --vllm-root /tmp/b \
    --out-dir /tmp/o --variants $V --groups $G $extra \
    --batches 1,2,4,8,16,64,256 --seq-lens 64,128,256,512,1024,4096,32768 --max-tokens 524288 \
    --workers 14 --reps 5 > /tmp/o/decode_reduce_${mode}_h200.log 2>&1
  echo "$mode rc=$?"; tail -n 5 /tmp/o/decode_reduce_${mode}_h200.log
  cp /tmp/o/decode_short_context_variants.json /tmp/o/decode_reduce_${mode}.json 2>/dev/null
done
cp /tmp/o/decode_reduce_* "$OUT/"
