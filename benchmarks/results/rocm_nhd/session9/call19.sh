#!/usr/bin/env bash
# GPU call 19 (session 9, issue 14): ROCM_ATTN steps with the Triton provider, tree
# before patch 12 (x-packed layers) and after patch 13 (NHD layers), eight head
# shapes: steps small enough for a full CUDA graph (<= 512 tokens, vLLM's default
# largest capture size: 9 decodes at 16K + 496-token chunk; 64 decodes at 4K +
# 256-token chunk) and the 4105-token step of the series' messages.
set -u
cd "$(dirname "$0")/.."
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/whl .gpu/whl/*.whl 2>&1 | tail -1
mkdir -p /tmp/b /tmp/o
tar xzf .gpu/bundle-v0.33.0.tgz -C /tmp/b
cp -a /tmp/b /tmp/b_old && cp -r .gpu/old/vllm/. /tmp/b_old/vllm/
export PYTHONUNBUFFERED=1
for t in new old; do
  root=/tmp/b; [ $t = old ] && root=/tmp/b_old
  echo "tree: $t"
  PYTHONPATH=$root:/tmp/whl timeout 270 python3 .gpu/vbench/many.py $root .gpu/vbench/benchmark_rocm_attn_mixed_batch.py \
    .gpu/vbench/mixed_args.txt 2>&1 | grep -v "^W\|stand-in\|Failed to import\|Cannot use ROCm custom"
done | tee /tmp/o/benchmark_rocm_attn_mixed_batch_heads_h200.log
cp -r /tmp/o/* $OUT/
