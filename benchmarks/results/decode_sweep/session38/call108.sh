#!/usr/bin/env bash
# GPU call 108 (session 38): sub-tile splits (decode_short_context_variants.py:
# sub2, sub4, sub_all) against the op as built and unified_attention.
# 1) session 37's 234 short-context points (TRITON_ATTN's layout, batch 1-4,
#    64-256 tokens), after the KV-cache write, five rounds;
# 2) 1K-32K tokens (and 512) at batch 1-16 on six groups, where sub4 and
#    sub_all change the op too, three rounds.
# Carries .gpu/site.tar.xz and .gpu/bundle-v0.33.0.tar.xz.
set -u
cd "$(dirname "$0")/../../../.."
source benchmarks/gpu_call_env.sh
E=benchmarks/experiments/decode_short_context_variants.py
G=""
for h in 24/4/256 16/2/256 32/8/128; do for p in 16 32; do G="$G,triton:$h:$p"; done; done
for h in 24/4/256 16/2/256 32/8/128 8/1/128; do for p in 64 128 544 832 1056; do G="$G,triton:$h:$p"; done; done
timeout 300 python3 $E --vllm-root /tmp/b --out-dir /tmp/o --variants base,sub2,sub4,sub_all \
  --groups "${G#,}" --batches 1,2,4 --seq-lens 64,128,256 --max-tokens 524288 \
  --workers 14 --reps 5 --rounds 5 --cache-write > "/tmp/o/decode_sub_short_$gpu.log" 2>&1
echo "short rc=$?"; tail -n 5 "/tmp/o/decode_sub_short_$gpu.log"
cp /tmp/o/decode_short_context_variants.json "$OUT/decode_sub_short_$gpu.json"
cp /tmp/o/decode_sub_short_$gpu.log "$OUT/"
rm -f /tmp/o/decode_short_context_variants.json
G=triton:24/4/256:832,triton:8/1/128:832,triton:8/1/128:128,triton:32/8/128:16,triton:16/2/256:64,triton:32/8/128:544
timeout 250 python3 $E --vllm-root /tmp/b --out-dir /tmp/o --variants base,sub4,sub_all \
  --groups "$G" --batches 1,2,4,8,16 --seq-lens 512,1024,2048,4096,16384,32768 --max-tokens 524288 \
  --workers 14 --reps 5 --rounds 3 --cache-write > "/tmp/o/decode_sub_long_$gpu.log" 2>&1
echo "long rc=$?"; tail -n 4 "/tmp/o/decode_sub_long_$gpu.log"
cp /tmp/o/decode_short_context_variants.json "$OUT/decode_sub_long_$gpu.json"
cp /tmp/o/decode_sub_long_$gpu.log "$OUT/"
