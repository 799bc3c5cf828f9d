#!/usr/bin/env bash
# GPU call 50 (session 21): as call 49, with the NHD cache also read through
# views whose x-packed piece is a whole token row (x = head), and with every
# batch starting over at block 1 (call 49's decode and op cases ran out of
# cache blocks and were skipped).
set -u
cd "$(dirname "$0")/../../../.."
source benchmarks/gpu_call_env.sh
timeout 300 python3 benchmarks/experiments/rocm_default_layer_nhd.py --vllm-root /tmp/b --out-dir /tmp/o \
  --x8-views --tag nhd_rows_head256 --heads 24/4/256,16/2/256 --pages 784,64 > /tmp/o/nhd_rows_head256_h200.log 2>&1
echo "head256 rc=$?"
timeout 240 python3 benchmarks/experiments/rocm_default_layer_nhd.py --vllm-root /tmp/b --out-dir /tmp/o \
  --x8-views --tag nhd_rows_head128 --heads 32/8/128,8/1/128 --pages 784,64 > /tmp/o/nhd_rows_head128_h200.log 2>&1
echo "head128 rc=$?"
grep -E "ratios|Error|error|skip" /tmp/o/*.log | cut -c30-190
cp /tmp/o/* $OUT/
