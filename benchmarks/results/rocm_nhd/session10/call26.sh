#!/usr/bin/env bash
# GPU call 26 (session 10, issue 14): sm_90 head-128 prefill config 128x64/8/3
# (the tree's default now) against the old 64x32/8/3 and context_attention_fwd
# at page 256, graph-timed; the page-floor and NHD commands of the messages.
set -u
cd "$(dirname "$0")/.."
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/whl .gpu/whl/*.whl 2>&1 | tail -1
mkdir -p /tmp/b /tmp/o /tmp/o/heads /tmp/o/pages
tar xzf .gpu/bundle-v0.33.0.tgz -C /tmp/b
export PYTHONUNBUFFERED=1 PYTHONPATH=/tmp/b:/tmp/whl
timeout 250 python3 benchmarks/experiments/prefill_route_envelope.py --out /tmp/o \
  --heads 32/8/128,64/8/128,32/32/128,8/1/128 --pages 256 --candidates "128:64,32,8,3" \
  > /tmp/o/prefill_route_envelope_h200.log 2>&1; echo "envelope rc=$?"
tail -30 /tmp/o/prefill_route_envelope_h200.log
timeout 100 python3 benchmarks/kernels/bench_prefill_paged.py --out /tmp/o/heads --q 2048 --contexts 0,8192 \
  --pages 64,832 --baseline-pages 64,832 --heads 32/8/128,32/32/128,8/1/128,16/16/64 \
  --skip unified,sdpa_flash > /tmp/o/bench_prefill_paged_heads_h200.log 2>&1; echo "heads rc=$?"
timeout 90 python3 benchmarks/kernels/bench_prefill_paged.py --out /tmp/o/pages --q 2048 --contexts 0,8192 \
  --pages 128,256,512,576 --baseline-pages 128,256,512,576 --heads 32/8/128,32/32/128 \
  --skip unified,sdpa_flash > /tmp/o/bench_prefill_paged_pages_h200.log 2>&1; echo "pages rc=$?"
for page in 64 128 256; do
  timeout 40 python3 .gpu/vbench/run.py /tmp/b .gpu/vbench/benchmark_paged_prefill_aligned.py \
    --page $page --num-query-heads 32 --num-kv-heads 8 --head-size 128 --chunks 2048 --contexts 8192 2>&1 | grep -v "^W\|stand-in" | tail -3
done | tee /tmp/o/benchmark_paged_prefill_aligned_floor_h200.log
for ctx in 0 12288 28672; do
  timeout 40 python3 .gpu/vbench/run.py /tmp/b .gpu/vbench/benchmark_paged_prefill_aligned.py \
    --num-query-heads 32 --num-kv-heads 8 --head-size 128 --page 832 --chunks 4096 --contexts $ctx 2>&1 | grep -v "^W\|stand-in" | tail -3
done | tee /tmp/o/benchmark_paged_prefill_aligned_nhd_h200.log
cp -r /tmp/o/* $OUT/
