#!/usr/bin/env bash
# GPU call 17 (session 9, issue 14): the decode op against a plain read of the
# same bytes, with finer/coarser split variants; the page-aligned prefill kernel
# at head 64 on both layouts.
set -u
cd "$(dirname "$0")/.."
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/whl .gpu/whl/*.whl 2>&1 | tail -1
mkdir -p /tmp/b /tmp/o
tar xzf .gpu/bundle-v0.33.0.tgz -C /tmp/b
export PYTHONUNBUFFERED=1 PYTHONPATH=/tmp/b:/tmp/whl
timeout 300 python3 benchmarks/experiments/decode_read_floor.py --vllm-root /tmp/b --out-dir /tmp/o \
  > /tmp/o/decode_read_floor_h200.log 2>&1; echo "floor rc=$?"
grep -E "floor|op/today" /tmp/o/decode_read_floor_h200.log | tail -80
timeout 200 python3 benchmarks/kernels/bench_prefill_paged.py --out /tmp/o/prefill_h64 --heads 32/8/64,16/16/64 \
  --pages 832,1024 --baseline-pages 832 --contexts 0,4096,12288,28672 --skip sdpa_flash \
  > /tmp/o/bench_prefill_paged_h64_h200.log 2>&1; echo "prefill rc=$?"
grep -v "^W" /tmp/o/bench_prefill_paged_h64_h200.log | tail -40
cp -r /tmp/o/* $OUT/
