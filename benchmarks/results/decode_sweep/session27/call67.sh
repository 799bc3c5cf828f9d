#!/usr/bin/env bash
# GPU call 67 (session 27): call 66's short-prompt trace at 4 requests in
# flight again (one pure-decode step took 604 us per layer there, the steps
# around it 15-17 us), 3 repetitions instead of 2.
set -u
cd "$(dirname "$0")/../../../.."
source benchmarks/gpu_call_env.sh
tag=qwen_shape_p16_rocm_short_c4
mkdir -p /tmp/o/$tag
timeout 300 python3 benchmarks/replay_scheduler.py --vllm-root /tmp/b --out-dir /tmp/o/$tag --reps 3 \
  --variants upstream_rocm,series_rocm_default --model qwen3.5-27b --page 16 \
  --tiers 64-256 --concurrency 4 --budget 4096 > /tmp/o/$tag/replay_scheduler_h200.log 2>&1
echo "$tag rc=$?"; grep -E "ratios|per request" /tmp/o/$tag/replay_scheduler_h200.log | head
tar czf "$OUT/call67.tgz" -C /tmp/o .
