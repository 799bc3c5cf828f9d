#!/usr/bin/env bash
# GPU call 9 (session 7): short-context decode variant `empty_exit` (splits past
# the last tile return at once; the reduce takes live splits from the length).
set -u
cd "$(dirname "$0")/.."
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .gpu/whl/*.whl 2>&1 | tail -1
mkdir -p /tmp/b /tmp/o
rm -rf /tmp/b/*; tar xzf .gpu/bundle-v0.33.0.tgz -C /tmp/b
export PYTHONPATH=/tmp/b:/tmp/site PYTHONUNBUFFERED=1
timeout 540 python3 benchmarks/experiments/decode_short_context_variants.py --vllm-root /tmp/b --out-dir /tmp/o \
  --variants base,empty_exit,reduce_len \
  --groups triton:24/4/256:64,triton:24/4/256:832,triton:24/4/256:1056,triton:32/8/128:64,triton:32/8/128:832,triton:8/1/128:832,rocm:24/4/256:832,rocm:32/8/128:832 \
  --batches 1,2,4,16,64 --seq-lens 64,128,256,512,1024,4096,32768 --max-tokens 524288 \
  > /tmp/o/variants_round5_empty_exit_h200.log 2>&1
echo "rc=$?"; tail -8 /tmp/o/variants_round5_empty_exit_h200.log
for f in /tmp/o/*.json; do mv "$f" "${f%.json}_round5.json"; done
cp /tmp/o/* $OUT/
