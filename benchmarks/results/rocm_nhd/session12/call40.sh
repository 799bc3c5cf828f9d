#!/usr/bin/env bash
# GPU call 40 (session 12, issue 14): the exported op against the same op
# with at most 2 (instead of 4) splits past one wave, and without the wave
# split, at the head-256 batches between one and 1.5 waves.
set -u
cd "$(dirname "$0")/../../../.."
for d in whl; do
  python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/$d .gpu/$d/*.whl 2>&1 | tail -1
done
rm -rf /tmp/b; mkdir -p /tmp/b /tmp/o40
tar xzf .gpu/bundle-v0.33.0.tgz -C /tmp/b
export PYTHONUNBUFFERED=1
PYTHONPATH=/tmp/b:/tmp/whl timeout 300 python3 benchmarks/experiments/decode_xpacked_v_layout.py --vllm-root /tmp/b --out-dir /tmp/o40 \
  --variants base,wave_max2,no_wave_rule \
  --groups triton:24/4/256:832,triton:16/2/256:544,rocm:24/4/256:832,rocm:16/2/256:544 \
  --batches 67,80,96,160,192 --seq-lens 256,512,1024,2048,4096,8192,16384 --max-tokens 4194304 \
  > /tmp/o40/decode_wave_max2_h200.log 2>&1; echo "sweep rc=$?"
mv /tmp/o40/decode_xpacked_v_layout.json /tmp/o40/decode_wave_max2.json
cp -r /tmp/o40/* $OUT/
