#!/usr/bin/env bash
# GPU call 58 (session 25): (1) where the decode op's short-context time goes:
# each kernel's own duration under Nsight Compute against the graph time, op
# and unified_attention, TRITON_ATTN's layout, batch 1/4, 64-1024 tokens;
# (2) vLLM's scheduler traces replayed for a standard model at page 16
# (Llama-3.1-8B's attention, TRITON_ATTN upstream vs the series), the short
# tier (prompts 64-256) and the 4K-32K tiers, concurrency 1-32.
set -u
cd "$(dirname "$0")/../../../.."
source benchmarks/gpu_call_env.sh
E=benchmarks/experiments/decode_short_kernel_times.py
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
echo "ncu: $NCU"
timeout 100 python3 $E --graph --out /tmp/o/short_graph.json > /tmp/o/short_graph_h200.log 2>&1
echo "graph rc=$?"; tail -n 2 /tmp/o/short_graph_h200.log
timeout 150 "$NCU" --profile-from-start off --clock-control none --csv \
  --metrics gpu__time_duration.sum,launch__grid_size,launch__registers_per_thread \
  --log-file /tmp/o/short_ncu.csv python3 $E --run --order /tmp/o/short_order.json \
  > /tmp/o/short_ncu_h200.log 2>&1
echo "ncu rc=$?"; tail -n 3 /tmp/o/short_ncu_h200.log
python3 $E --parse /tmp/o/short_ncu.csv /tmp/o/short_order.json /tmp/o/short_graph.json \
  --out /tmp/o/decode_short_kernel_times.json > /tmp/o/decode_short_kernel_times.log 2>&1
echo "parse rc=$?"; head -n 12 /tmp/o/decode_short_kernel_times.log
mkdir -p /tmp/o/llama_p16
timeout 330 python3 benchmarks/replay_scheduler.py --vllm-root /tmp/b --out-dir /tmp/o/llama_p16 \
  --model llama-3.1-8b --tiers 64-256,4K-8K,8K-16K,16K-32K --concurrency 1,4,10,32 \
  --variants upstream_triton,series_triton --reps 2 > /tmp/o/llama_p16/replay_scheduler_h200.log 2>&1
echo "replay rc=$?"; grep -E "ratios|FAIL|Error" /tmp/o/llama_p16/replay_scheduler_h200.log | head -20
tar czf "$OUT/call58.tgz" -C /tmp/o .
