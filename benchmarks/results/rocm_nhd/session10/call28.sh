#!/usr/bin/env bash
# GPU call 28 (session 10, issue 14): patch 13's non-routed decode shapes where
# session 9 did not measure: pages 1024-2112, 32 query heads per KV head, 64K
# tokens. chunked_prefill_paged_decode on x-packed (before) against
# unified_attention on NHD (after), the op beside them.
set -u
cd "$(dirname "$0")/.."
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/whl .gpu/whl/*.whl 2>&1 | tail -1
mkdir -p /tmp/b /tmp/o28
tar xzf .gpu/bundle-v0.33.0.tgz -C /tmp/b
export PYTHONUNBUFFERED=1 PYTHONPATH=/tmp/b:/tmp/whl
timeout 500 python3 benchmarks/kernels/bench_decode_page_sweep.py --rounds 1 --vllm-root /tmp/b --out-dir /tmp/o28 \
  --tag decode_nonrouted_large --layouts rocm,rocm_nhd --heads 64/2/128,32/8/64,16/16/64,64/4/128,32/2/256 \
  --pages 1024,1088,2112 --batches 1,4,16,64,256 --seq-lens 1024,16384,65536 --reps 3 \
  --cache-gib 100 --prewarm-workers 15 --time-budget 300 > /tmp/o28/decode_nonrouted_large_h200.log 2>&1; echo "sweep rc=$?"
tail -6 /tmp/o28/decode_nonrouted_large_h200.log
cp -r /tmp/o28/* $OUT/
