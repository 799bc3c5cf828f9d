#!/usr/bin/env bash
# GPU call 61 (session 25): call 60's two mixed-step runs again (they ran
# past their time limits there while Triton compiled on a fresh machine).
set -u
cd "$(dirname "$0")/../../../.."
source benchmarks/gpu_call_env.sh
R=benchmarks/replay_scheduler.py
run() {  # tag, timeout, args...
  local tag=$1 t=$2; shift 2
  mkdir -p /tmp/o/$tag
  timeout $t python3 $R --vllm-root /tmp/b --out-dir /tmp/o/$tag --reps 3 --steps mixed \
    --concurrency 4,10,32 --budget 4096 --tiers 4K-8K,8K-16K,16K-32K \
    --variants upstream_triton,series_triton "$@" > /tmp/o/$tag/replay_scheduler_h200.log 2>&1
  echo "$tag rc=$?"; grep -E "ratios" /tmp/o/$tag/replay_scheduler_h200.log | head -12
}
run llama_p16_b4096_mixed_rule 200 --model llama-3.1-8b
run qwen_p832_b4096_mixed_rule 230 --model qwen3.5-27b --page 832
tar czf "$OUT/call61.tgz" -C /tmp/o .
