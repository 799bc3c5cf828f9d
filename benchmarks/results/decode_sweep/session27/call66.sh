#!/usr/bin/env bash
# GPU call 66 (session 27): the series with ROCM_ATTN's head-256 layers
# decoding on 16- and 32-token pages with decode_page_contiguous. Its
# ROCM_ATTN tests on the GPU; then steps from vLLM's own scheduler replayed
# through RocmAttentionImpl.forward, Qwen3.5-27B's attention shape (24/4/256,
# 16 layers) at page 16 on both trees: upstream v0.33.0's ROCM_ATTN against
# the series' default ROCM_ATTN (no paged-prefill provider), 4-32 requests in
# flight, budget 4096, short (64-256 tokens) and long prompts.
set -u
cd "$(dirname "$0")/../../../.."
source benchmarks/gpu_call_env.sh
timeout 150 python3 benchmarks/gpu_pytest.py /tmp/b -q -n 14 -p no:cacheprovider \
  tests/v1/attention/test_rocm_attn_page_contiguous_decode.py \
  tests/kernels/attention/test_rocm_attn_mixed_batches.py > /tmp/o/gpu_tests_rocm_attn_h200.log 2>&1
echo "tests rc=$?"; tail -n 1 /tmp/o/gpu_tests_rocm_attn_h200.log
tag=qwen_shape_p16_rocm
mkdir -p /tmp/o/$tag
timeout 400 python3 benchmarks/replay_scheduler.py --vllm-root /tmp/b --out-dir /tmp/o/$tag --reps 2 \
  --variants upstream_rocm,series_rocm_default --model qwen3.5-27b --page 16 \
  --tiers 64-256,4K-8K,16K-32K --concurrency 4,10,32 --budget 4096 \
  > /tmp/o/$tag/replay_scheduler_h200.log 2>&1
echo "$tag rc=$?"; grep -E "ratios|per request|share" /tmp/o/$tag/replay_scheduler_h200.log | head -20
tar czf "$OUT/call66.tgz" -C /tmp/o .
