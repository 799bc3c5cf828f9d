#!/usr/bin/env bash
# GPU call 15 (session 8): vLLM's own benchmark scripts for the two new patches'
# messages: the decode op on TRITON_ATTN's NHD layout and on ROCM_ATTN's x-packed
# one; one ROCM_ATTN continuous-batching step with the Triton provider, this tree
# (NHD layers) and the tree before it (x-packed layers).
set -u
cd "$(dirname "$0")/.."
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/whl .gpu/whl/*.whl 2>&1 | tail -1
mkdir -p /tmp/b /tmp/o
tar xzf .gpu/bundle-v0.33.0.tgz -C /tmp/b
cp -a /tmp/b /tmp/b_old && cp -r .gpu/old/vllm/. /tmp/b_old/vllm/
export PYTHONUNBUFFERED=1 PYTHONPATH=/tmp/b:/tmp/whl
for layout in rocm triton; do
  for n in 16384 32768; do
    timeout 100 python3 .gpu/vbench/run.py /tmp/b .gpu/vbench/benchmark_decode_page_contiguous.py \
      --layout $layout --page 832 --batch-sizes 4,16,64 --seq-len $n 2>&1 | grep -v "^W\|stand-in\|Failed to import"
  done
done | tee /tmp/o/benchmark_decode_page_contiguous_h200.log
for t in new old; do
  root=/tmp/b; [ $t = old ] && root=/tmp/b_old
  echo "tree: $t"
  PYTHONPATH=$root:/tmp/whl timeout 120 python3 .gpu/vbench/run.py $root .gpu/vbench/benchmark_rocm_attn_mixed_batch.py \
    --page 832 --num-decodes 9 --decode-context 16384 --chunks 4096 --chunk-contexts 8192 --triton-prefill 2>&1 \
    | grep -v "^W\|stand-in\|Failed to import" | tail -4
done | tee /tmp/o/benchmark_rocm_attn_mixed_batch_h200.log
cp /tmp/o/* $OUT/
