#!/usr/bin/env bash
# GPU call 11 (session 8): ROCM_ATTN's x-packed K loaded as [pieces, DIM_PIECE, tile]
# (decode_xpacked_k_load.py), read bandwidth against the ceiling of the same run.
set -u
cd "$(dirname "$0")/.."
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .gpu/whl/*.whl 2>&1 | tail -1
mkdir -p /tmp/b /tmp/o
rm -rf /tmp/b/*; tar xzf .gpu/bundle-v0.33.0.tgz -C /tmp/b
export PYTHONPATH=/tmp/b:/tmp/site PYTHONUNBUFFERED=1
timeout 560 python3 benchmarks/experiments/decode_xpacked_k_load.py --vllm-root /tmp/b --out-dir /tmp/o \
  > /tmp/o/decode_xpacked_k_load_h200.log 2>&1
echo "rc=$?"; grep -v "^prewarm" /tmp/o/decode_xpacked_k_load_h200.log | tail -80
cp /tmp/o/* $OUT/
