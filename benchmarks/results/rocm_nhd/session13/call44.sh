#!/usr/bin/env bash
# GPU call 44 (session 13, issue 14): the exported op (wave-split kernel held
# to 168 registers on sm_90 at head 256 on TRITON_ATTN's layout) against the
# same op without the cap, without the wave rule, and unified_attention, on
# pages call 42 did not time (128, 784, 1056), batches around the split
# ranges of both head shapes.
set -u
cd "$(dirname "$0")/../../../.."
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/whl_slim .gpu/whl_slim/*.whl 2>&1 | tail -1
rm -rf /tmp/b; mkdir -p /tmp/b /tmp/o44
tar xzf .gpu/bundle-v0.33.0.tgz -C /tmp/b
export PYTHONUNBUFFERED=1
PYTHONPATH=/tmp/b:/tmp/whl_slim timeout 400 python3 benchmarks/experiments/decode_xpacked_v_layout.py --vllm-root /tmp/b --out-dir /tmp/o44 \
  --variants base,nocap,no_wave_rule \
  --groups triton:24/4/256:784,triton:16/2/256:1056,triton:24/4/256:128,triton:16/2/256:128 \
  --batches 1,16,64,67,72,88,99,100,128,132,140,176,198,200 --seq-lens 256,512,768,1024,1536,2048,4096,16384 --max-tokens 4194304 \
  > /tmp/o44/call44_decode_regcap_heldout_h200.log 2>&1; echo "sweep rc=$?"
mv /tmp/o44/decode_xpacked_v_layout.json /tmp/o44/call44_decode_regcap_heldout.json
tail -2 /tmp/o44/call44_decode_regcap_heldout_h200.log
cp -r /tmp/o44/* $OUT/
