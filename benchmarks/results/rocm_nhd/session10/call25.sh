#!/usr/bin/env bash
# GPU call 25 (session 10, issue 14): paged_prefill_aligned (default and
# candidate sm_90 configs, both layouts) against context_attention_fwd over
# the ROCM_ATTN prefill route's envelope.
# (It ran the experiment script's first revision, timed with eager do_bench; calls 26+ time from CUDA graphs.)
set -u
cd "$(dirname "$0")/.."
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/whl .gpu/whl/*.whl 2>&1 | tail -1
mkdir -p /tmp/b /tmp/o
tar xzf .gpu/bundle-v0.33.0.tgz -C /tmp/b
export PYTHONUNBUFFERED=1 PYTHONPATH=/tmp/b:/tmp/whl
timeout 560 python3 benchmarks/experiments/prefill_route_envelope.py --out /tmp/o \
  --heads 32/8/128,64/8/128,32/32/128,8/1/128,32/8/64,16/16/64,24/4/256,16/2/256 \
  > /tmp/o/prefill_route_envelope_h200.log 2>&1; echo "envelope rc=$?"
tail -40 /tmp/o/prefill_route_envelope_h200.log
cp -r /tmp/o/* $OUT/
