#!/usr/bin/env bash
# GPU call 86 (session 29): call 85 found the op after v0.33.0 patch 18 up to
# 1.15x of the same op with the reduce before it at 64K tokens (same run),
# but not at 16K with the same tiles per split. Which kernel: each with and
# without the reduce launched (noreduce, before_noreduce), and the op as
# built timed again last (base_again). Same .gpu as call 85.
set -u
cd "$(dirname "$0")/../../../.."
source benchmarks/gpu_call_env.sh
timeout 200 python3 benchmarks/experiments/decode_short_context_variants.py --vllm-root /tmp/b \
  --out-dir /tmp/o --variants base,reduce_before,noreduce,before_noreduce,base_again \
  --groups triton:24/4/256:16,triton:32/8/128:832,rocm:32/8/128:832 \
  --batches 1,2,8 --seq-lens 4096,16384,32768,65536 --max-tokens 524288 \
  --workers 14 --reps 7 > /tmp/o/decode_reduce_64k_h200.log 2>&1
echo "rc=$?"; tail -n 6 /tmp/o/decode_reduce_64k_h200.log
cp /tmp/o/decode_short_context_variants.json /tmp/o/decode_reduce_64k.json 2>/dev/null
cp /tmp/o/decode_reduce_64k* "$OUT/"
