#!/usr/bin/env bash
# GPU call 32 (session 11, issue 14): x-packed K loaded with a warp's lanes on
# consecutive tokens, K^T in pieces of <= 128 dims (k_tok_pieces), against the op as built and the contiguous-K
# ceiling, over ROCM_ATTN's decode envelope.
set -u
cd "$(dirname "$0")/.."
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/whl .gpu/whl/*.whl 2>&1 | tail -1
rm -rf /tmp/b; mkdir -p /tmp/b /tmp/o32
tar xzf .gpu/bundle-v0.33.0.tgz -C /tmp/b
export PYTHONUNBUFFERED=1 PYTHONPATH=/tmp/b:/tmp/whl
timeout 560 python3 benchmarks/experiments/decode_xpacked_v_layout.py --vllm-root /tmp/b --out-dir /tmp/o32 \
  --variants base,xk_contig,k_tok,k_tok_pieces \
  --groups rocm:24/4/256:832,rocm:16/2/256:832,rocm:32/8/128:832,rocm:8/1/128:832,rocm:32/32/128:832,rocm:24/4/256:64,rocm:32/8/128:64,rocm:24/4/256:544,rocm:32/8/128:1056 \
  --batches 1,4,16,64,256 --seq-lens 256,1024,4096,16384,32768 --max-tokens 2097152 \
  > /tmp/o32/decode_xpacked_k_pieces_h200.log 2>&1; echo "rc=$?"
grep -v "^W\|prewarm" /tmp/o32/decode_xpacked_k_pieces_h200.log | grep -v "rocm  " | tail -60
mv /tmp/o32/decode_xpacked_v_layout.json /tmp/o32/decode_xpacked_k_pieces.json
cp -r /tmp/o32/* $OUT/
