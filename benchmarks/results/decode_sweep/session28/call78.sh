#!/usr/bin/env bash
# GPU call 78 (session 28): session 25's per-kernel durations (call 58's
# first part) again with the queue's op after patch 17: each kernel alone
# under Nsight Compute, op and unified_attention, TRITON_ATTN's layout,
# batch 1/4, 64-1024 tokens, against the graph time.
set -u
cd "$(dirname "$0")/../../../.."
source benchmarks/gpu_call_env.sh
E=benchmarks/experiments/decode_short_kernel_times.py
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
timeout 100 python3 $E --graph --out /tmp/o/short_graph.json > /tmp/o/short_graph_h200.log 2>&1
echo "graph rc=$?"; tail -n 2 /tmp/o/short_graph_h200.log
timeout 150 "$NCU" --profile-from-start off --clock-control none --csv \
  --metrics gpu__time_duration.sum,launch__grid_size,launch__registers_per_thread \
  --log-file /tmp/o/short_ncu.csv python3 $E --run --order /tmp/o/short_order.json \
  > /tmp/o/short_ncu_h200.log 2>&1
echo "ncu rc=$?"; tail -n 3 /tmp/o/short_ncu_h200.log
python3 $E --parse /tmp/o/short_ncu.csv /tmp/o/short_order.json /tmp/o/short_graph.json \
  --out /tmp/o/decode_short_kernel_times.json > /tmp/o/decode_short_kernel_times.log 2>&1
echo "parse rc=$?"; head -n 40 /tmp/o/decode_short_kernel_times.log
gzip -f /tmp/o/short_ncu.csv
cp /tmp/o/short_graph.json /tmp/o/short_ncu.csv.gz /tmp/o/short_order.json /tmp/o/*.log \
  /tmp/o/decode_short_kernel_times.json "$OUT/"
