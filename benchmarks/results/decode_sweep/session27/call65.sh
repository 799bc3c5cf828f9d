#!/usr/bin/env bash
# GPU call 65 (session 27): ROCM_ATTN at pages 16 and 32 with head 256, where
# ROCm's HIP paged attention kernel is not built for the head size and
# chunked_prefill_paged_decode runs its Triton kernel: the decode op on
# ROCM_ATTN's x-packed layout against that path, batch 1-256, 64-64K tokens,
# block tables as wide as a 128K-token server's. Head 128 (which the HIP kernel
# serves on CDNA) for comparison.
set -u
cd "$(dirname "$0")/../../../.."
source benchmarks/gpu_call_env.sh
timeout 540 python3 benchmarks/kernels/bench_decode_page_sweep.py --rounds 1 --vllm-root /tmp/b \
  --out-dir /tmp/o --tag rocm_small_pages_h256 --layouts rocm --pages 16,32 \
  --heads 24/4/256,16/2/256,8/4/256,8/1/256,32/8/128 \
  --batches 1,2,4,8,16,32,64,128,256 --seq-lens 64,128,256,512,1024,4096,16384,65536 \
  --max-model-len 131072 --cache-gib 24 --reps 5 --prewarm-workers 14 --time-budget 400 \
  > /tmp/o/rocm_small_pages_h256_h200.log 2>&1
echo "sweep rc=$?"; tail -n 3 /tmp/o/rocm_small_pages_h256_h200.log
cp /tmp/o/* "$OUT/"
