#!/usr/bin/env bash
# GPU call 74 (session 28): the sequence's last tile attended first, before
# the loop (its block ids the first load after the length, Q read after
# them; nothing held across the loop for it), alone, with the empty splits'
# early exit (lean_last) and with programmatic dependent launch too;
# call 73's ids_early32 and empty_exit_now again.
set -u
cd "$(dirname "$0")/../../../.."
source benchmarks/gpu_call_env.sh
timeout 540 python3 benchmarks/experiments/decode_short_context_variants.py --vllm-root /tmp/b \
  --out-dir /tmp/o --variants base,last_first,lean_last,lean_last_pdl,ids_early32,empty_exit_now \
  --groups triton:32/8/128:16,triton:24/4/256:16,triton:32/8/128:64,triton:24/4/256:64,triton:24/4/256:832,triton:8/1/128:832,triton:32/8/128:832,rocm:24/4/256:832 \
  --batches 1,2,4,8,16,64,256 --seq-lens 64,128,256,512,1024,4096,32768 --max-tokens 524288 \
  --workers 14 --reps 5 > /tmp/o/decode_loads3_h200.log 2>&1
echo "variants rc=$?"; tail -n 8 /tmp/o/decode_loads3_h200.log
cp /tmp/o/decode_short_context_variants.json /tmp/o/decode_loads3.json 2>/dev/null
cp /tmp/o/decode_loads3.json /tmp/o/decode_loads3_h200.log "$OUT/"
