#!/usr/bin/env bash
# GPU call 41 (session 13, issue 14): the wave-split kernel on TRITON_ATTN's
# layout at head 256 takes 176 registers on sm_90 (2 programs per SM), the
# unsplit one 168 (3 per SM). Times the exported op (base) against the main
# kernel capped at 168 registers in every head-256 TRITON_ATTN launch
# (regcap168) or in the wave-split launches only (regcap168_wave), the op
# without the wave rule, the session-11 op (wave_min0) and the path the
# backend runs today (unified_attention).
set -u
cd "$(dirname "$0")/../../../.."
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/whl .gpu/whl/*.whl 2>&1 | tail -1
rm -rf /tmp/b; mkdir -p /tmp/b /tmp/o41
tar xzf .gpu/bundle-v0.33.0.tgz -C /tmp/b
export PYTHONUNBUFFERED=1
PYTHONPATH=/tmp/b:/tmp/whl timeout 420 python3 benchmarks/experiments/decode_xpacked_v_layout.py --vllm-root /tmp/b --out-dir /tmp/o41 \
  --variants base,regcap168,regcap168_wave,no_wave_rule,wave_min0 \
  --groups triton:16/2/256:544,triton:24/4/256:832,triton:16/2/256:832,triton:24/4/256:64 \
  --batches 1,4,16,67,80,96,112,133,160,192 --seq-lens 256,512,1024,2048,4096,8192,16384 --max-tokens 4194304 \
  > /tmp/o41/call41_decode_regcap_h200.log 2>&1; echo "sweep rc=$?"
mv /tmp/o41/decode_xpacked_v_layout.json /tmp/o41/call41_decode_regcap.json
tail -3 /tmp/o41/call41_decode_regcap_h200.log
cp -r /tmp/o41/* $OUT/
