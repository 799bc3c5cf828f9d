#!/usr/bin/env bash
# GPU call 47 (session 20): call 46's held-out head shapes where the op is
# known to be weakest (short contexts at small batches; grids of one to one
# and a half waves of resident programs at 1K-4K tokens), and an fp16 subset.
# TRITON_ATTN's layout, block tables as wide as a 128K-token server's.
set -u
cd "$(dirname "$0")/../../../.."
source benchmarks/gpu_call_env.sh
HEADS=16/8/128,24/8/128,40/8/128,28/4/128,8/8/128,16/8/256,12/4/256,28/4/256,8/1/256,12/2/256
run() {  # tag, timeout, args...
  local tag=$1 t=$2; shift 2
  timeout "$t" python3 benchmarks/kernels/bench_decode_page_sweep.py --rounds 1 --vllm-root /tmp/b --out-dir /tmp/o \
    --tag "$tag" --layouts triton --max-model-len 131072 --prewarm-workers 15 --reps 4 "$@" \
    > "/tmp/o/${tag}_h200.log" 2>&1
  echo "$tag rc=$?"; tail -n 2 "/tmp/o/${tag}_h200.log"
}
run decode_page_sweep_heldout_short 200 --heads $HEADS --pages 64,192,784,2048 \
  --batches 1,2,4,8,32 --seq-lens 64,128,256,512,768 --time-budget 130
# Batches whose grid is one to one and a half waves at 2 programs per SM (132
# SMs): 264-396 programs (KV heads 4: 67-99, 2: 133-198, 1: 265-396, 8: 34-49).
run decode_page_sweep_heldout_wave 170 --heads 12/4/256,28/4/256,12/2/256,8/1/256,16/8/256 \
  --pages 192,832 --batches 36,45,49,80,90,99,160,180,198,330,380,396 --seq-lens 1024,1536,2048,4096 --time-budget 110
run decode_page_sweep_heldout_fp16 120 --dtype float16 --heads 28/4/128,12/2/256,16/8/256,8/1/256 \
  --pages 192,1040 --batches 1,8,60,200 --seq-lens 1000,12289,40000 --time-budget 60
cp /tmp/o/* $OUT/
