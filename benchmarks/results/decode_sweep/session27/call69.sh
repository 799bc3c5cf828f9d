#!/usr/bin/env bash
# GPU call 69 (session 27): the same head-256 layers on 16- and 32-token
# pages also keeping the NHD cache (the layout rule of the layers the op
# serves, as on larger pages). Its ROCM_ATTN tests on the GPU; their other
# kernels on the NHD cache against the x-packed one at these pages
# (context_attention_fwd for prefill rows through x-packed-shaped views, a
# mixed step run whole, the op); the scheduler replay of call 66 again.
set -u
cd "$(dirname "$0")/../../../.."
source benchmarks/gpu_call_env.sh
timeout 150 python3 benchmarks/gpu_pytest.py /tmp/b -q -n 14 -p no:cacheprovider \
  tests/v1/attention/test_rocm_attn_page_contiguous_decode.py \
  tests/kernels/attention/test_rocm_attn_mixed_batches.py > /tmp/o/gpu_tests_rocm_attn_nhd_h200.log 2>&1
echo "tests rc=$?"; tail -n 1 /tmp/o/gpu_tests_rocm_attn_nhd_h200.log
timeout 150 python3 benchmarks/experiments/rocm_default_layer_nhd.py --vllm-root /tmp/b --out-dir /tmp/o \
  --tag rocm_small_pages_layer_nhd --heads 24/4/256,16/2/256 --pages 16,32 --cases prefill,step,op \
  > /tmp/o/rocm_small_pages_layer_nhd_h200.log 2>&1
echo "layer rc=$?"; tail -n 3 /tmp/o/rocm_small_pages_layer_nhd_h200.log
tag=qwen_shape_p16_rocm_nhd
mkdir -p /tmp/o/$tag
timeout 300 python3 benchmarks/replay_scheduler.py --vllm-root /tmp/b --out-dir /tmp/o/$tag --reps 2 \
  --variants upstream_rocm,series_rocm_default --model qwen3.5-27b --page 16 \
  --tiers 64-256,4K-8K,16K-32K --concurrency 4,10,32 --budget 4096 \
  > /tmp/o/$tag/replay_scheduler_h200.log 2>&1
echo "$tag rc=$?"; grep -E "ratios|per request" /tmp/o/$tag/replay_scheduler_h200.log | head -20
tar czf "$OUT/call69.tgz" -C /tmp/o .
