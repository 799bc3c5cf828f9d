#!/usr/bin/env bash
# GPU call 60 (session 25): the series with TRITON_ATTN's mixed-batch rule
# (decode rows split off only where the longest is more than 4x the longest
# prefill row). Its TRITON_ATTN tests on the GPU; mixed steps again (same
# page both sides: Llama-3.1-8B's shape at 16, Qwen3.5-27B's at 832); the
# default Qwen3.5-27B replay (upstream at page 784, the series at 832,
# concurrency 10, budget 4096) for the per-request numbers.
set -u
cd "$(dirname "$0")/../../../.."
source benchmarks/gpu_call_env.sh
timeout 90 python3 benchmarks/gpu_pytest.py /tmp/b -q -n 14 -p no:cacheprovider \
  tests/v1/attention/test_triton_attn_page_contiguous_decode.py > /tmp/o/gpu_tests_triton_attn_h200.log 2>&1
echo "tests rc=$?"; tail -n 1 /tmp/o/gpu_tests_triton_attn_h200.log
R=benchmarks/replay_scheduler.py
run() {  # tag, timeout, args...
  local tag=$1 t=$2; shift 2
  mkdir -p /tmp/o/$tag
  timeout $t python3 $R --vllm-root /tmp/b --out-dir /tmp/o/$tag --reps 3 \
    --variants upstream_triton,series_triton "$@" > /tmp/o/$tag/replay_scheduler_h200.log 2>&1
  echo "$tag rc=$?"; grep -E "ratios" /tmp/o/$tag/replay_scheduler_h200.log | head -12
}
run llama_p16_b4096_mixed_rule 120 --steps mixed --concurrency 4,10,32 \
  --model llama-3.1-8b --tiers 4K-8K,8K-16K,16K-32K --budget 4096
run qwen_p832_b4096_mixed_rule 150 --steps mixed --concurrency 4,10,32 \
  --model qwen3.5-27b --page 832 --tiers 4K-8K,8K-16K,16K-32K --budget 4096
run qwen_default_c10_rule 200 --tiers 4K-8K,8K-16K,16K-32K --concurrency 10 --budget 4096
tar czf "$OUT/call60.tgz" -C /tmp/o .
