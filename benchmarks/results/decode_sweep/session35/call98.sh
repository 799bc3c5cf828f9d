#!/usr/bin/env bash
# GPU call 98 (session 35): the issue's whole decode page sweep on the final
# v0.33.0 series (pages 16-1088, five head shapes, batch 1-256, 1K-64K, both
# layouts; block tables as wide as a 128K-token server's), the sweep's first
# point now timed once and dropped (decode_sweep/session34), two rounds.
# Carries .gpu/whl and .gpu/bundle-v0.33.0.tgz.
set -u
cd "$(dirname "$0")/../../../.."
source benchmarks/gpu_call_env.sh
timeout 470 python3 benchmarks/kernels/bench_decode_page_sweep.py --vllm-root /tmp/b --out-dir /tmp/o \
  --tag decode_page_sweep_final --max-model-len 131072 --prewarm-workers 15 --reps 5 --rounds 2 \
  --time-budget 360 > /tmp/o/decode_page_sweep_final_h200.log 2>&1
echo "sweep rc=$?"; tail -n 3 /tmp/o/decode_page_sweep_final_h200.log
cp /tmp/o/decode_page_sweep_final* "$OUT/"
