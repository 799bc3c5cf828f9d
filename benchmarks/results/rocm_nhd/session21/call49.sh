#!/usr/bin/env bash
# GPU call 49 (session 21): ROCM_ATTN's default kernels (context_attention_fwd,
# kernel_paged_attention_2d behind chunked_prefill_paged_decode) on an NHD
# cache read through x-packed-shaped views, against the x-packed cache; and
# the decode op on both layouts.
set -u
cd "$(dirname "$0")/../../../.."
source benchmarks/gpu_call_env.sh
timeout 290 python3 benchmarks/experiments/rocm_default_layer_nhd.py --vllm-root /tmp/b --out-dir /tmp/o \
  --x8-views --tag nhd_views_head256 --heads 24/4/256,16/2/256 --pages 784,544,1056,64 > /tmp/o/nhd_views_head256_h200.log 2>&1
echo "head256 rc=$?"
timeout 270 python3 benchmarks/experiments/rocm_default_layer_nhd.py --vllm-root /tmp/b --out-dir /tmp/o \
  --x8-views --tag nhd_views_head128 --heads 32/8/128,8/1/128,40/8/128 --pages 784,64 > /tmp/o/nhd_views_head128_h200.log 2>&1
echo "head128 rc=$?"
grep -E "ratio|Error|error" /tmp/o/*.log | cut -c1-200 | tail -120
cp /tmp/o/* $OUT/
