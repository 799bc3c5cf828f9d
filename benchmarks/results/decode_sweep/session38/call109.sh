#!/usr/bin/env bash
# GPU call 109 (session 38): sub-tile splits only for batches of one or two
# (parts_few2) or up to four (parts_few4) (sequence, KV head) programs, where
# call 108 found them faster; elsewhere the kernel is the op's.
# 1) session 37's 234 short-context points, after the KV-cache write, five
#    rounds;
# 2) head shapes with one or two KV heads (8/1/128, 16/2/256 and held-out
#    4/1/128, 8/2/256, 8/1/256), batch 1, 2, 4, 64 tokens to 32K, three rounds.
# Carries .gpu/site.tar.xz and .gpu/bundle-v0.33.0.tar.xz.
set -u
cd "$(dirname "$0")/../../../.."
source benchmarks/gpu_call_env.sh
E=benchmarks/experiments/decode_short_context_variants.py
G=""
for h in 24/4/256 16/2/256 32/8/128; do for p in 16 32; do G="$G,triton:$h:$p"; done; done
for h in 24/4/256 16/2/256 32/8/128 8/1/128; do for p in 64 128 544 832 1056; do G="$G,triton:$h:$p"; done; done
timeout 280 python3 $E --vllm-root /tmp/b --out-dir /tmp/o --variants base,parts_few2,parts_few4 \
  --groups "${G#,}" --batches 1,2,4 --seq-lens 64,128,256 --max-tokens 524288 \
  --workers 14 --reps 5 --rounds 5 --cache-write > "/tmp/o/decode_parts_short_$gpu.log" 2>&1
echo "short rc=$?"; tail -n 4 "/tmp/o/decode_parts_short_$gpu.log"
cp /tmp/o/decode_short_context_variants.json "$OUT/decode_parts_short_$gpu.json"
cp /tmp/o/decode_parts_short_$gpu.log "$OUT/"
rm -f /tmp/o/decode_short_context_variants.json
G=triton:8/1/128:832,triton:8/1/128:16,triton:16/2/256:64,triton:16/2/256:16,triton:4/1/128:544,triton:8/2/256:128,triton:8/1/256:784
timeout 250 python3 $E --vllm-root /tmp/b --out-dir /tmp/o --variants base,parts_few2,parts_few4 \
  --groups "$G" --batches 1,2,4 --seq-lens 64,128,192,256,512,1024,4096,32768 --max-tokens 524288 \
  --workers 14 --reps 5 --rounds 3 --cache-write > "/tmp/o/decode_parts_few_kv_$gpu.log" 2>&1
echo "few_kv rc=$?"; tail -n 4 "/tmp/o/decode_parts_few_kv_$gpu.log"
cp /tmp/o/decode_short_context_variants.json "$OUT/decode_parts_few_kv_$gpu.json"
cp /tmp/o/decode_parts_few_kv_$gpu.log "$OUT/"
