#!/usr/bin/env bash
# GPU call 80 (session 28): held-out shapes on 16- and 32-token pages with
# the queue's op after patch 17, TRITON_ATTN's layout (where the small pages
# are routed for every head size): 3, 5 and 7 query heads per KV head at
# heads 128 and 256, in fp16 and bf16, batch 1-256, 128 tokens to 64K, block
# tables as wide as a 128K-token server's; the page sweep's method.
set -u
cd "$(dirname "$0")/../../../.."
source benchmarks/gpu_call_env.sh
H=24/8/128,40/8/128,28/4/128,12/4/256,20/4/256
for dt in float16 bfloat16; do
  timeout 170 python3 benchmarks/kernels/bench_decode_page_sweep.py --rounds 1 --vllm-root /tmp/b --out-dir /tmp/o \
    --layouts triton --pages 16,32 --heads $H --batches 1,4,16,64,256 --seq-lens 128,256,1024,4096,16384,65536 \
    --dtype $dt --max-model-len 131072 --cache-gib 40 --prewarm-workers 14 --reps 3 --time-budget 80 \
    --tag heldout_small_pages_$dt > /tmp/o/heldout_small_pages_${dt}_h200.log 2>&1
  echo "$dt rc=$?"; tail -n 4 /tmp/o/heldout_small_pages_${dt}_h200.log
done
cp /tmp/o/heldout_* "$OUT/"
