#!/usr/bin/env bash
# GPU call 30 (session 11, issue 14): what holds the decode op below 90% of
# the read bandwidth on ROCM_ATTN's x-packed cache (decode_xpacked_v_layout.py);
# paged_prefill_aligned against context_attention_fwd at pages 64 and 128
# over chunk lengths and context (the route's floor is 256).
set -u
cd "$(dirname "$0")/.."
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/whl .gpu/whl/*.whl 2>&1 | tail -1
rm -rf /tmp/b; mkdir -p /tmp/b /tmp/o30
tar xzf .gpu/bundle-v0.33.0.tgz -C /tmp/b
export PYTHONUNBUFFERED=1 PYTHONPATH=/tmp/b:/tmp/whl
timeout 330 python3 benchmarks/experiments/decode_xpacked_v_layout.py --vllm-root /tmp/b --out-dir /tmp/o30 \
  > /tmp/o30/decode_xpacked_v_layout_h200.log 2>&1; echo "xpacked rc=$?"
grep -v "^W\|prewarm" /tmp/o30/decode_xpacked_v_layout_h200.log | tail -45
timeout 240 python3 benchmarks/experiments/prefill_route_envelope.py --out /tmp/o30 \
  --heads 32/8/128,8/1/128,24/4/256,32/8/64 --pages 64,128 --candidates "" \
  > /tmp/o30/prefill_route_envelope_small_pages_h200.log 2>&1; echo "envelope rc=$?"
tail -25 /tmp/o30/prefill_route_envelope_small_pages_h200.log
cp -r /tmp/o30/* $OUT/
