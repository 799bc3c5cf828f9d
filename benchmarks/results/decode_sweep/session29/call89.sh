#!/usr/bin/env bash
# GPU call 89 (session 29): the cache-write mode's reference, now taken after
# the first timed kernel, at the points where call 83 found a relative L2
# error of 0.1-0.14 for every kernel (batch 256, 64-128 tokens, pages 16 and
# 32), and its neighbours. Same .gpu as call 85.
set -u
cd "$(dirname "$0")/../../../.."
source benchmarks/gpu_call_env.sh
timeout 200 python3 benchmarks/experiments/decode_short_context_variants.py --vllm-root /tmp/b \
  --out-dir /tmp/o --variants base --groups triton:32/8/128:16,triton:32/8/128:32,triton:24/4/256:16 \
  --batches 1,64,256 --seq-lens 64,128,256 --max-tokens 524288 \
  --workers 14 --reps 3 --cache-write > /tmp/o/decode_cache_write_ref_h200.log 2>&1
echo "rc=$?"; tail -n 3 /tmp/o/decode_cache_write_ref_h200.log
cp /tmp/o/decode_short_context_variants.json /tmp/o/decode_cache_write_ref.json 2>/dev/null
cp /tmp/o/decode_cache_write_ref* "$OUT/"
