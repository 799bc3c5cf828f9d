#!/usr/bin/env bash
# GPU call 98 (session 35): the issue's 32K targets on the final v0.33.0
# series (batch 1 and 16 at 32K, 24/4/256 at page 832 on TRITON_ATTN's
# layout; read bandwidth on the NHD layout ROCM_ATTN keeps, batch 4-64 at
# 16K-32K), then the issue's whole decode page sweep (pages 16-1088, five
# head shapes, batch 1-256, 1K-64K, both layouts; block tables as wide as a
# 128K-token server's), the sweep's first point now timed once and dropped
# (decode_sweep/session34), two rounds. Logs are named after the GPU.
# Carries .gpu/whl and .gpu/bundle-v0.33.0.tgz.
set -u
cd "$(dirname "$0")/../../../.."
source benchmarks/gpu_call_env.sh
S=benchmarks/kernels/bench_decode_page_sweep.py
timeout 100 python3 $S --vllm-root /tmp/b --out-dir /tmp/o --tag decode_32k_targets --layouts triton,rocm_nhd \
  --pages 832 --heads 24/4/256,16/2/256 --batches 1,4,16,64 --seq-lens 16384,32768 \
  --max-model-len 131072 --prewarm-workers 4 --reps 5 --rounds 3 > /tmp/o/decode_32k_targets_$gpu.log 2>&1
echo "32k rc=$?"; tail -n 2 /tmp/o/decode_32k_targets_$gpu.log
cp /tmp/o/decode_32k_targets* "$OUT/"
timeout 420 python3 $S --vllm-root /tmp/b --out-dir /tmp/o \
  --tag decode_page_sweep_final --max-model-len 131072 --prewarm-workers 15 --reps 5 --rounds 2 \
  --time-budget 300 > /tmp/o/decode_page_sweep_final_$gpu.log 2>&1
echo "sweep rc=$?"; tail -n 3 /tmp/o/decode_page_sweep_final_$gpu.log
cp /tmp/o/decode_page_sweep_final* "$OUT/"
