#!/usr/bin/env bash
# GPU call 82 (session 29): variants of the queue's op after patch 17 for
# short sequences, against the op as built and today's path, plain and with
# each call's KV-cache write ahead of it (--cache-write, TRITON_ATTN's layout
# only): loop_ids_first (prepared in session 28), split_last_first,
# reduce_early, split_last_reduce_early. Carries .gpu with the v0.33.0
# bundle and the openai-harmony wheel (the cache writer's import chain).
set -u
cd "$(dirname "$0")/../../../.."
source benchmarks/gpu_call_env.sh
G=triton:32/8/128:16,triton:24/4/256:16,triton:16/2/256:16,triton:32/8/128:32,triton:32/8/128:64,triton:24/4/256:64,triton:24/4/256:832,triton:8/1/128:832,triton:32/8/128:832,triton:32/8/128:544,triton:16/2/256:832,triton:32/32/128:64,rocm:24/4/256:832,rocm:32/8/128:832
V=base,loop_ids_first,split_last_first,reduce_early,split_last_reduce_early
for mode in plain cache_write; do
  extra=""; [ $mode = cache_write ] && extra="--cache-write" && G=$(echo $G | sed 's/,rocm:[^,]*//g')
  timeout 280 python3 benchmarks/experiments/decode_short_context_variants.py --vllm-root /tmp/b \
    --out-dir /tmp/o --variants $V --groups $G $extra \
    --batches 1,2,4,8,16,64,256 --seq-lens 64,128,256,512,1024,4096,32768 --max-tokens 524288 \
    --workers 14 --reps 5 > /tmp/o/decode_short_${mode}_h200.log 2>&1
  echo "$mode rc=$?"; tail -n 6 /tmp/o/decode_short_${mode}_h200.log
  cp /tmp/o/decode_short_context_variants.json /tmp/o/decode_short_${mode}.json 2>/dev/null
done
cp /tmp/o/decode_short_* "$OUT/"
