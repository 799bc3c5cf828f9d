#!/usr/bin/env bash
# GPU call 71 (session 27, review): patch 16 keeps these layers NHD, but the
# op on NHD was measured at batch 1-64 and 256+ tokens only. Both ROCM_ATTN
# layouts in one run at short contexts and large batches: the op on NHD
# (rocm_nhd) against today's kernel on the x-packed cache (rocm), joined
# per point afterwards.
set -u
cd "$(dirname "$0")/../../../.."
source benchmarks/gpu_call_env.sh
timeout 170 python3 benchmarks/kernels/bench_decode_page_sweep.py --rounds 1 --vllm-root /tmp/b \
  --out-dir /tmp/o --tag rocm_small_pages_nhd_short --layouts rocm,rocm_nhd --pages 16,32 \
  --heads 24/4/256,8/1/256 --batches 1,4,32,256 --seq-lens 64,128,256 \
  --max-model-len 131072 --cache-gib 24 --reps 5 --prewarm-workers 14 --time-budget 60 \
  > /tmp/o/rocm_small_pages_nhd_short_h200.log 2>&1
echo "rc=$?"; tail -n 2 /tmp/o/rocm_small_pages_nhd_short_h200.log
cp /tmp/o/* "$OUT/"
