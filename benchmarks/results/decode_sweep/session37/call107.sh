#!/usr/bin/env bash
# GPU call 107 (session 37): the pair_pipe variant (decode_short_context_variants.py:
# a sequence of at most two tiles in one program, both tiles in the pipelined
# loop) against the op as built and unified_attention, after the KV-cache
# write, at a subset of call 105's short-context points (the groups with
# points over 1.02x on the H200 in call 106, and one more per head shape;
# batch 1-2) that fits the device time left. Carries .gpu/site.tar.xz and
# .gpu/bundle-v0.33.0.tar.xz.
set -u
cd "$(dirname "$0")/../../../.."
source benchmarks/gpu_call_env.sh
G=triton:16/2/256:16,triton:16/2/256:64,triton:8/1/128:128,triton:8/1/128:544,triton:8/1/128:1056
G=$G,triton:32/8/128:16,triton:32/8/128:544,triton:24/4/256:32,triton:24/4/256:832
timeout 100 python3 benchmarks/experiments/decode_short_context_variants.py --vllm-root /tmp/b \
  --out-dir /tmp/o --variants base,pair_pipe --groups "$G" \
  --batches 1,2 --seq-lens 64,128,256 --max-tokens 524288 \
  --workers 14 --reps 5 --rounds 5 --cache-write > "/tmp/o/decode_pair_pipe_$gpu.log" 2>&1
echo "rc=$?"; tail -n 4 "/tmp/o/decode_pair_pipe_$gpu.log"
cp /tmp/o/decode_short_context_variants.json "$OUT/decode_pair_pipe_$gpu.json"
cp /tmp/o/decode_pair_pipe_$gpu.log "$OUT/"
