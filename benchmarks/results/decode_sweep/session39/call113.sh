#!/usr/bin/env bash
# GPU call 113 (session 39): the op as built (v0.33.0 series, patch 21
# included) against unified_attention over short and mid contexts on head
# shapes no routing boundary was measured on: 24/8/128, 40/8/128, 28/4/128,
# 64/8/128, 6/1/128, 14/2/128, 16/16/128 (one query head per KV
# head, pages that are multiples of 64 only), 12/4/256, 20/4/256, 32/4/256,
# 6/1/256; one or two pages each from 16 to 1088; batch 1, 2, 4 and 16;
# 64 tokens to 1K; bf16, TRITON_ATTN's layout, each call after its KV-cache
# write, block tables as wide as a 128K-token server's, three rounds.
# Then parts_cmp (a part's token mask by compares, not a division) against
# the op as built and no_tile_parts, on one- and two-KV-head groups, batch
# 1-2, 64 tokens to 1K.
# Carries .gpu/site.tar.xz and .gpu/bundle-v0.33.0.tar.xz.
set -u
cd "$(dirname "$0")/../../../.."
source benchmarks/gpu_call_env.sh
E=benchmarks/experiments/decode_short_context_variants.py
G=""
for g in 24/8/128:16 40/8/128:784 28/4/128:832 64/8/128:1040 6/1/128:32 6/1/128:576 \
    14/2/128:832 16/16/128:1088 12/4/256:544 20/4/256:32 32/4/256:832 6/1/256:1056; do G="$G,triton:$g"; done
timeout 200 python3 $E --vllm-root /tmp/b --out-dir /tmp/o --variants base \
  --groups "${G#,}" --batches 1,2,4,16 --seq-lens 64,128,256,1024 --max-tokens 524288 \
  --workers 14 --reps 5 --rounds 3 --cache-write > "/tmp/o/decode_heldout_short_$gpu.log" 2>&1
echo "rc=$?"; tail -n 3 "/tmp/o/decode_heldout_short_$gpu.log"
cp /tmp/o/decode_short_context_variants.json "$OUT/decode_heldout_short_$gpu.json"
cp /tmp/o/decode_heldout_short_$gpu.log "$OUT/"
P=triton:16/2/256:16,triton:16/2/256:544,triton:8/1/128:16,triton:8/1/128:544
P=$P,triton:4/1/128:544,triton:8/1/128:1056
timeout 120 python3 $E --vllm-root /tmp/b --out-dir /tmp/o --variants base,no_tile_parts,parts_cmp \
  --groups "$P" --batches 1,2 --seq-lens 64,128,192,256,512,1024 --max-tokens 524288 \
  --workers 14 --reps 5 --rounds 3 --cache-write > "/tmp/o/decode_parts_cmp_$gpu.log" 2>&1
echo "rc=$?"; tail -n 4 "/tmp/o/decode_parts_cmp_$gpu.log"
cp /tmp/o/decode_short_context_variants.json "$OUT/decode_parts_cmp_$gpu.json"
cp /tmp/o/decode_parts_cmp_$gpu.log "$OUT/"
