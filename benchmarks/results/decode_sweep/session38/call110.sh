#!/usr/bin/env bash
# GPU call 110 (session 38): parts_few2 and parts_few2s (the same with shifts
# for the parts' divisions) against the op as built and unified_attention on
# every group where a batch of one or two sequences gives at most two
# (sequence, KV head) programs: 16/2/256 and 8/1/128 on all their pages, and
# held-out 4/1/128, 8/2/256, 8/1/256; batch 1-2, 64 tokens to 32K, after the
# KV-cache write, five rounds. Carries .gpu/site.tar.xz and
# .gpu/bundle-v0.33.0.tar.xz.
set -u
cd "$(dirname "$0")/../../../.."
source benchmarks/gpu_call_env.sh
E=benchmarks/experiments/decode_short_context_variants.py
G=""
for p in 16 32 64 128 544 832 1056; do G="$G,triton:16/2/256:$p"; done
for p in 16 64 128 544 832 1056; do G="$G,triton:8/1/128:$p"; done
G="$G,triton:4/1/128:544,triton:4/1/128:64,triton:8/2/256:128,triton:8/1/256:784"
timeout 400 python3 $E --vllm-root /tmp/b --out-dir /tmp/o --variants base,parts_few2,parts_few2s \
  --groups "${G#,}" --batches 1,2 --seq-lens 64,128,192,256,512,1024,4096,32768 --max-tokens 524288 \
  --workers 14 --reps 5 --rounds 5 --cache-write > "/tmp/o/decode_parts2_$gpu.log" 2>&1
echo "rc=$?"; tail -n 4 "/tmp/o/decode_parts2_$gpu.log"
cp /tmp/o/decode_short_context_variants.json "$OUT/decode_parts2_$gpu.json"
cp /tmp/o/decode_parts2_$gpu.log "$OUT/"
