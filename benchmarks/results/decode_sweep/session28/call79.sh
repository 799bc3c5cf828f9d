#!/usr/bin/env bash
# GPU call 79 (session 28): split grids within one wave running a sequence of
# at most 2 (min2t) or 3 (min3t) tiles in one program, on the queue's op after
# patch 17 (call 78: a one-tile sequence, whose reduce has no work, takes
# 4.9 us at batch 1 where two tiles in two splits and a reduce take 7.3 us).
set -u
cd "$(dirname "$0")/../../../.."
source benchmarks/gpu_call_env.sh
G=triton:32/8/128:16,triton:24/4/256:16,triton:16/2/256:16,triton:32/8/128:32,triton:32/8/128:64,triton:24/4/256:64,triton:24/4/256:832,triton:8/1/128:832,triton:32/8/128:832,triton:32/8/128:544,triton:16/2/256:832,triton:32/32/128:64,rocm:24/4/256:832,rocm:32/8/128:832
timeout 500 python3 benchmarks/experiments/decode_short_context_variants.py --vllm-root /tmp/b \
  --out-dir /tmp/o --variants base,min2t,min3t --groups $G \
  --batches 1,2,4,8,16,64,256 --seq-lens 64,96,128,192,256,512,1024,4096,32768 --max-tokens 524288 \
  --workers 14 --reps 5 > /tmp/o/decode_min_tiles_h200.log 2>&1
echo "rc=$?"; tail -n 4 /tmp/o/decode_min_tiles_h200.log
cp /tmp/o/decode_short_context_variants.json /tmp/o/decode_min_tiles.json
cp /tmp/o/decode_min_tiles.json /tmp/o/decode_min_tiles_h200.log "$OUT/"
