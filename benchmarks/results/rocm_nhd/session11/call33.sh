#!/usr/bin/env bash
# GPU call 33 (session 11, issue 14): batches past one wave of resident
# programs, split so the grid ends near a whole number of waves
# (wave_splits), against the op as built, both KV layouts.
set -u
cd "$(dirname "$0")/.."
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/whl .gpu/whl/*.whl 2>&1 | tail -1
rm -rf /tmp/b; mkdir -p /tmp/b /tmp/o33
tar xzf .gpu/bundle-v0.33.0.tgz -C /tmp/b
export PYTHONUNBUFFERED=1 PYTHONPATH=/tmp/b:/tmp/whl
timeout 500 python3 benchmarks/experiments/decode_xpacked_v_layout.py --vllm-root /tmp/b --out-dir /tmp/o33 \
  --variants base,wave_splits \
  --groups triton:32/8/128:832,triton:24/4/256:832,triton:32/8/128:64,triton:8/1/128:832,triton:16/2/256:544,rocm:32/8/128:64,rocm:32/8/128:1056,rocm:24/4/256:832,rocm:32/8/128:832 \
  --batches 24,32,48,64,96,128,192,256 --seq-lens 1024,4096,16384 --max-tokens 4194304 \
  > /tmp/o33/decode_wave_splits_h200.log 2>&1; echo "rc=$?"
grep "wave_splits  *:\|base  *:" /tmp/o33/decode_wave_splits_h200.log
mv /tmp/o33/decode_xpacked_v_layout.json /tmp/o33/decode_wave_splits.json
cp -r /tmp/o33/* $OUT/
