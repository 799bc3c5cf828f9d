#!/usr/bin/env bash
# GPU call 62 (session 25): is the op's fixed main-kernel time at short
# contexts its grid? At batch 1 the op launches 8 x 49 programs (32/8/128),
# unified_attention 128. The split count from half and a quarter of the
# resident program slots, against the op as built and unified_attention, at
# 128-256 tokens and at 32K (where the splits buy bandwidth), page 16.
set -u
cd "$(dirname "$0")/../../../.."
source benchmarks/gpu_call_env.sh
timeout 140 python3 benchmarks/experiments/decode_short_context_variants.py --vllm-root /tmp/b \
  --out-dir /tmp/o --variants base,splits_half,splits_quarter \
  --groups triton:32/8/128:16,triton:24/4/256:16 --batches 1 --seq-lens 128,256,32768 \
  --workers 8 --reps 5 > /tmp/o/decode_splits_short_h200.log 2>&1
echo "variants rc=$?"; tail -n 14 /tmp/o/decode_splits_short_h200.log
cp /tmp/o/decode_short_context_variants.json /tmp/o/decode_splits_short.json 2>/dev/null
tar czf "$OUT/call62.tgz" -C /tmp/o .
