#!/usr/bin/env bash
# GPU call 54 (session 22): where a mixed step captured whole at head 128
# turns slower on unified_attention (NHD) than on chunked_prefill_paged_decode
# (x-packed): call 53 had 0.48-0.83x with a 448-token chunk, 1.37-1.98x with
# a 4096-token chunk. Chunks of 1024 and 2048 tokens here.
set -u
cd "$(dirname "$0")/../../../.."
source benchmarks/gpu_call_env.sh
timeout 240 python3 benchmarks/experiments/rocm_default_layer_nhd.py --vllm-root /tmp/b \
  --out-dir /tmp/o --tag crossover_head128 --heads 28/4/128,24/8/128,40/8/128 \
  --pages 544,96,1040 --cases step --step-chunks 1024@8192,2048@8192 \
  > /tmp/o/crossover_head128_h200.log 2>&1
echo "crossover rc=$?"
grep -hE "ratios|Error|error|skip" /tmp/o/*.log | cut -c1-200
tar czf "$OUT/call54.tgz" -C /tmp/o .
