#!/usr/bin/env bash
# GPU call 18 (session 9, issue 14): shapes patch 13 moves to NHD but the decode op
# does not take (head 64; 16 query heads per KV head): their decode kernel before
# (chunked_prefill_paged_decode on x-packed) and after (unified_attention on NHD);
# one continuous-batching step at those shapes, tree before patch 12 and after 13.
set -u
cd "$(dirname "$0")/.."
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/whl .gpu/whl/*.whl 2>&1 | tail -1
mkdir -p /tmp/b /tmp/o
tar xzf .gpu/bundle-v0.33.0.tgz -C /tmp/b
cp -a /tmp/b /tmp/b_old && cp -r .gpu/old/vllm/. /tmp/b_old/vllm/
export PYTHONUNBUFFERED=1 PYTHONPATH=/tmp/b:/tmp/whl
timeout 330 python3 benchmarks/kernels/bench_decode_page_sweep.py --rounds 1 --vllm-root /tmp/b --out-dir /tmp/o \
  --tag decode_nonrouted --layouts rocm,rocm_nhd --heads 32/8/64,16/16/64,64/4/128,32/2/256 \
  --pages 256,832 --batches 1,4,16,64,256 --seq-lens 1024,4096,16384 --reps 3 \
  --prewarm-workers 15 --time-budget 160 > /tmp/o/decode_nonrouted_h200.log 2>&1; echo "sweep rc=$?"
tail -5 /tmp/o/decode_nonrouted_h200.log
for heads in 32/8/64 16/16/64 64/4/128; do
  IFS=/ read hq hk hs <<< "$heads"
  for t in new old; do
    root=/tmp/b; [ $t = old ] && root=/tmp/b_old
    echo "tree: $t heads $heads"
    PYTHONPATH=$root:/tmp/whl timeout 60 python3 .gpu/vbench/run.py $root .gpu/vbench/benchmark_rocm_attn_mixed_batch.py \
      --page 832 --num-query-heads $hq --num-kv-heads $hk --head-size $hs \
      --num-decodes 9 --decode-context 16384 --chunks 4096 --chunk-contexts 8192 --triton-prefill 2>&1 \
      | grep -v "^W\|stand-in\|Failed to import" | tail -4
  done
done | tee /tmp/o/benchmark_rocm_attn_mixed_batch_nonrouted_h200.log
cp -r /tmp/o/* $OUT/
