#!/usr/bin/env bash
# GPU call 29 (session 10, issue 14): patch 13's whole ROCM_ATTN steps at the
# shapes session 9 did not measure: pages 1088 and 2112, 32 query heads per KV
# head; tree before patch 12 against after patch 13.
set -u
cd "$(dirname "$0")/.."
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/whl .gpu/whl/*.whl 2>&1 | tail -1
rm -rf /tmp/b /tmp/b_old; mkdir -p /tmp/b /tmp/o29
tar xzf .gpu/bundle-v0.33.0.tgz -C /tmp/b
cp -a /tmp/b /tmp/b_old && cp -r .gpu/old/vllm/. /tmp/b_old/vllm/
export PYTHONUNBUFFERED=1
for t in new old; do
  root=/tmp/b; [ $t = old ] && root=/tmp/b_old
  echo "tree: $t"
  PYTHONPATH=$root:/tmp/whl timeout 140 python3 .gpu/vbench/many.py $root .gpu/vbench/benchmark_rocm_attn_mixed_batch.py \
    .gpu/vbench/mixed_args_large.txt 2>&1 | grep -v "^W\|stand-in\|Failed to import\|Cannot use ROCm custom"
done | tee /tmp/o29/benchmark_rocm_attn_mixed_batch_large_h200.log
cp -r /tmp/o29/* $OUT/
