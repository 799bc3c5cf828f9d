#!/usr/bin/env bash
# GPU call 90 (session 29): grids split past one wave (head 256 on sm_90, one
# to one and a half waves of programs), where patch 18's reduce reads every
# split's state even for the short sequences such grids run unsplit. The op
# as built (patch 18), wave_late (those grids read the states after the
# length) and reduce_before (patch 17's op), two rounds. Same .gpu as call 89
# (v0.33.0 bundle of patch 18 trimmed as call 85's).
set -u
cd "$(dirname "$0")/../../../.."
source benchmarks/gpu_call_env.sh
timeout 300 python3 benchmarks/experiments/decode_short_context_variants.py --vllm-root /tmp/b \
  --out-dir /tmp/o --variants base,wave_late,reduce_before \
  --groups triton:24/4/256:16,triton:24/4/256:832,triton:16/2/256:64,rocm:24/4/256:832 \
  --batches 1,4,72,82,96,140,165,190 --seq-lens 64,256,512,1024,2048,4096 --max-tokens 524288 \
  --workers 14 --reps 5 --rounds 2 > /tmp/o/decode_wave_late_h200.log 2>&1
echo "rc=$?"; tail -n 4 /tmp/o/decode_wave_late_h200.log
cp /tmp/o/decode_short_context_variants.json /tmp/o/decode_wave_late.json 2>/dev/null
cp /tmp/o/decode_wave_late* "$OUT/"
