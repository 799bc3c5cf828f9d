#!/usr/bin/env bash
# GPU call 12 (session 8): the aligned prefill kernel on the NHD layout against
# x-packed (same run), and the decode op on ROCM_ATTN's cache read as NHD.
set -u
cd "$(dirname "$0")/.."
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .gpu/whl/*.whl 2>&1 | tail -1
mkdir -p /tmp/b /tmp/o /tmp/o2
rm -rf /tmp/b/*; tar xzf .gpu/bundle-v0.33.0.tgz -C /tmp/b
export PYTHONPATH=/tmp/b:/tmp/site PYTHONUNBUFFERED=1
timeout 300 python3 benchmarks/experiments/decode_xpacked_k_load.py --vllm-root /tmp/b --out-dir /tmp/o \
  --variants base --groups rocm:24/4/256:832,rocm_nhd:24/4/256:832,rocm:16/2/256:832,rocm_nhd:16/2/256:832,rocm:32/8/128:832,rocm_nhd:32/8/128:832,rocm_nhd:8/1/128:832,rocm_nhd:24/4/256:544 \
  > /tmp/o/decode_rocm_nhd_h200.log 2>&1
echo "decode rc=$?"; grep "%" /tmp/o/decode_rocm_nhd_h200.log | tail -130
mv /tmp/o/decode_xpacked_k_load.json /tmp/o/decode_rocm_nhd.json
timeout 240 python3 benchmarks/kernels/bench_prefill_paged.py --out /tmp/o2 --heads 24/4/256,32/8/128 \
  --pages 832,1024 --baseline-pages 832 --contexts 0,4096,12288,28672 --skip sdpa_flash \
  > /tmp/o2/bench_prefill_paged_nhd_h200.log 2>&1
echo "prefill rc=$?"; grep -E "^aligned|^rocm_attn|^unified" /tmp/o2/bench_prefill_paged_nhd_h200.log | head -60
cp /tmp/o/* /tmp/o2/* $OUT/
