#!/usr/bin/env bash
# GPU call 20 (session 9, issue 14): would the decode op win at head 64? The op
# against each backend's path today on all three layouts, pages 64-1056.
set -u
cd "$(dirname "$0")/.."
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/whl .gpu/whl/*.whl 2>&1 | tail -1
mkdir -p /tmp/b /tmp/o
tar xzf .gpu/bundle-v0.33.0.tgz -C /tmp/b
export PYTHONUNBUFFERED=1 PYTHONPATH=/tmp/b:/tmp/whl
timeout 540 python3 benchmarks/kernels/bench_decode_page_sweep.py --rounds 1 --vllm-root /tmp/b --out-dir /tmp/o \
  --tag decode_head64 --layouts triton,rocm,rocm_nhd --heads 32/8/64,16/16/64,8/1/64 \
  --pages 64,128,544,832,1056 --batches 1,4,16,64,256 --seq-lens 256,1024,16384 --reps 3 \
  --prewarm-workers 15 --time-budget 330 > /tmp/o/decode_head64_h200.log 2>&1; echo "sweep rc=$?"
tail -4 /tmp/o/decode_head64_h200.log
cp -r /tmp/o/* $OUT/
