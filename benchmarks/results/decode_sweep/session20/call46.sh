#!/usr/bin/env bash
# GPU call 46 (session 20): the routing rule on head shapes, pages, batches and
# lengths no earlier sweep measured (GQA 2, 3, 5, 7; one and two KV heads at
# head 256; pages 96, 192, 1040, 2048; batches around the wave boundaries;
# lengths off page and tile boundaries), block tables as wide as a 128K-token
# server's. TRITON_ATTN's layout, then ROCM_ATTN's NHD layout (paged-prefill
# layers), where today's path is unified_attention on both.
set -u
cd "$(dirname "$0")/../../../.."
source benchmarks/gpu_call_env.sh
HEADS=16/8/128,24/8/128,40/8/128,28/4/128,8/8/128,16/8/256,12/4/256,28/4/256,8/1/256,12/2/256
timeout 400 python3 benchmarks/kernels/bench_decode_page_sweep.py --rounds 1 --vllm-root /tmp/b --out-dir /tmp/o \
  --tag decode_page_sweep_heldout_triton --layouts triton --heads $HEADS \
  --pages 64,96,192,784,1040,2048 --batches 1,3,8,40,60,100,200,300 --seq-lens 1000,3001,12289,40000 \
  --max-model-len 131072 --prewarm-workers 15 --reps 4 --time-budget 280 \
  > /tmp/o/decode_page_sweep_heldout_triton_h200.log 2>&1
echo "triton rc=$?"; tail -n 3 /tmp/o/decode_page_sweep_heldout_triton_h200.log
timeout 150 python3 benchmarks/kernels/bench_decode_page_sweep.py --rounds 1 --vllm-root /tmp/b --out-dir /tmp/o \
  --tag decode_page_sweep_heldout_rocm_nhd --layouts rocm_nhd --heads 40/8/128,28/4/128,16/8/256,8/1/256,12/2/256 \
  --pages 192,832 --batches 1,3,8,40,100,300 --seq-lens 1000,3001,12289,40000 \
  --max-model-len 131072 --prewarm-workers 15 --reps 4 --time-budget 80 \
  > /tmp/o/decode_page_sweep_heldout_rocm_nhd_h200.log 2>&1
echo "rocm_nhd rc=$?"; tail -n 3 /tmp/o/decode_page_sweep_heldout_rocm_nhd_h200.log
cp /tmp/o/* $OUT/
