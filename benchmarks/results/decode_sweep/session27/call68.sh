#!/usr/bin/env bash
# GPU call 68 (session 27): (1) TRITON_ATTN at page 32 (patch 15 routes it),
# steps from vLLM's own scheduler replayed with Llama-3.1-8B's attention
# (32/8/128, 32 layers) at page 32 on both trees, 4-32 requests in flight,
# budget 4096, short and long prompts; (2) the op on ROCM_ATTN's x-packed
# layout against the NHD layout at pages 16 and 32, head 256 (would those
# layers gain from keeping an NHD cache, as the larger pages do?).
set -u
cd "$(dirname "$0")/../../../.."
source benchmarks/gpu_call_env.sh
timeout 170 python3 benchmarks/kernels/bench_decode_page_sweep.py --rounds 1 --vllm-root /tmp/b \
  --out-dir /tmp/o --tag rocm_small_pages_nhd --layouts rocm,rocm_nhd --pages 16,32 \
  --heads 24/4/256,16/2/256 --batches 1,4,16,64 --seq-lens 256,1024,4096,16384,65536 \
  --max-model-len 131072 --cache-gib 24 --reps 5 --prewarm-workers 14 --time-budget 90 \
  > /tmp/o/rocm_small_pages_nhd_h200.log 2>&1
echo "nhd rc=$?"; tail -n 2 /tmp/o/rocm_small_pages_nhd_h200.log
tag=llama_p32_triton
mkdir -p /tmp/o/$tag
timeout 370 python3 benchmarks/replay_scheduler.py --vllm-root /tmp/b --out-dir /tmp/o/$tag --reps 3 \
  --variants upstream_triton,series_triton --model llama-3.1-8b --page 32 \
  --tiers 64-256,4K-8K,16K-32K --concurrency 4,10,32 --budget 4096 \
  > /tmp/o/$tag/replay_scheduler_h200.log 2>&1
echo "$tag rc=$?"; grep -E "ratios|per request" /tmp/o/$tag/replay_scheduler_h200.log | head -20
tar czf "$OUT/call68.tgz" -C /tmp/o .
