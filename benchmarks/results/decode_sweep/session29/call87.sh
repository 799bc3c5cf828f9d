#!/usr/bin/env bash
# GPU call 87 (session 29): every routed shape of call 84 (session 28's call
# 75), the op after v0.33.0 patch 18 (base) and the same op with the reduce
# before it (reduce_before, = patch 17's op) against the path each backend
# runs today, in one process, each point timed in two rounds (least time
# kept: call 86 found the first kernel timed after today's up to 1.15x slow
# at 32K-64K tokens). Same .gpu as call 85.
set -u
cd "$(dirname "$0")/../../../.."
source benchmarks/gpu_call_env.sh
G=""
for h in 24/4/256 16/2/256 32/8/128; do for p in 16 32; do G="$G,triton:$h:$p"; done; done
for h in 24/4/256 16/2/256 32/8/128 8/1/128 32/32/128; do for p in 64 128 544 832 1056; do G="$G,triton:$h:$p"; done; done
G="$G,rocm:24/4/256:16,rocm:24/4/256:832,rocm:32/8/128:832"
timeout 500 python3 benchmarks/experiments/decode_short_context_variants.py --vllm-root /tmp/b \
  --out-dir /tmp/o --variants base,reduce_before --groups "${G#,}" \
  --batches 1,2,4,8,16,64,256 --seq-lens 64,128,256,512,1024,4096,16384,65536 --max-tokens 524288 \
  --workers 14 --reps 5 --rounds 2 > /tmp/o/decode_after_rounds_h200.log 2>&1
echo "sweep rc=$?"; tail -n 3 /tmp/o/decode_after_rounds_h200.log
cp /tmp/o/decode_short_context_variants.json /tmp/o/decode_after_rounds.json 2>/dev/null
cp /tmp/o/decode_after_rounds* "$OUT/"
