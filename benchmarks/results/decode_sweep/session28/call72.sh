#!/usr/bin/env bash
# GPU call 72 (session 28): the op's dependent loads at short contexts. Q
# loaded first (in flight with the length), the block ids of the first and
# the last tile read before Q, both, empty splits returning at once, and all
# of that (with programmatic dependent launch too), against the op as built
# and unified_attention (TRITON_ATTN's layout) or chunked_prefill_paged_decode
# (ROCM_ATTN's x-packed one), pages 16-832, batch 1-256, 64-32K tokens.
set -u
cd "$(dirname "$0")/../../../.."
source benchmarks/gpu_call_env.sh
timeout 540 python3 benchmarks/experiments/decode_short_context_variants.py --vllm-root /tmp/b \
  --out-dir /tmp/o --variants base,q_first,ids_early,q_ids_early,empty_exit_now,lean,lean_pdl \
  --groups triton:32/8/128:16,triton:24/4/256:16,triton:32/8/128:64,triton:24/4/256:64,triton:24/4/256:832,triton:8/1/128:832,triton:32/8/128:832,rocm:24/4/256:832 \
  --batches 1,2,4,8,16,64,256 --seq-lens 64,128,256,512,1024,4096,32768 --max-tokens 524288 \
  --workers 14 --reps 5 > /tmp/o/decode_loads_h200.log 2>&1
echo "variants rc=$?"; tail -n 8 /tmp/o/decode_loads_h200.log
cp /tmp/o/decode_short_context_variants.json /tmp/o/decode_loads.json 2>/dev/null
cp /tmp/o/decode_loads.json /tmp/o/decode_loads_h200.log "$OUT/"
