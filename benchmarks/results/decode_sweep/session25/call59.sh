#!/usr/bin/env bash
# GPU call 59 (session 25): mixed steps only (decode rows plus prefill
# chunks), TRITON_ATTN upstream vs the series at the same page, so the only
# difference is the series' split of a mixed batch (decode rows to the op,
# prefill rows to unified_attention) against upstream's one unified_attention
# call: Qwen3.5-27B's shape at page 832 (budgets 4096/8192), Llama-3.1-8B's at
# page 16 (budget 8192, then 4096 again), concurrency 4/10/32.
set -u
cd "$(dirname "$0")/../../../.."
source benchmarks/gpu_call_env.sh
R=benchmarks/replay_scheduler.py
run() {  # tag, timeout, args...
  local tag=$1 t=$2; shift 2
  mkdir -p /tmp/o/$tag
  timeout $t python3 $R --vllm-root /tmp/b --out-dir /tmp/o/$tag --steps mixed --reps 3 \
    --variants upstream_triton,series_triton --concurrency 4,10,32 "$@" \
    > /tmp/o/$tag/replay_scheduler_h200.log 2>&1
  echo "$tag rc=$?"; grep -E "ratios" /tmp/o/$tag/replay_scheduler_h200.log | head -20
}
run qwen_p832_mixed 280 --model qwen3.5-27b --page 832 --tiers 4K-8K,8K-16K,16K-32K --budget 4096,8192
run llama_p16_b8192_mixed 170 --model llama-3.1-8b --tiers 4K-8K,8K-16K,16K-32K --budget 8192
run llama_p16_b4096_mixed 120 --model llama-3.1-8b --tiers 4K-8K,8K-16K,16K-32K --budget 4096
tar czf "$OUT/call59.tgz" -C /tmp/o .
