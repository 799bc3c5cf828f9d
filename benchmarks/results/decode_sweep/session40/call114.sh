#!/usr/bin/env bash
# GPU call 114 (session 40), on the v0.33.0 series as committed (patch 21
# included); it runs session 39's call 113, which never ran, and then
# call 112's timing part again. (Call 113's second part, parts_cmp, was
# dropped: compiled offline for sm_90, its main kernel is within 8 SASS
# instructions of the op's 1,256-1,616; decode_short_context_sass.json.)
# 1) the op as built against unified_attention on twelve head shapes no
#    routing boundary was measured on (24/8/128, 40/8/128, 28/4/128,
#    64/8/128, 6/1/128, 14/2/128, 16/16/128, 12/4/256, 20/4/256, 32/4/256,
#    6/1/256), one or two pages each from 16 to 1088, batch 1, 2, 4 and 16,
#    64 tokens to 1K;
# 2) call 112's fifteen groups, the op as built against no_tile_parts and
#    unified_attention, batch 1-2, 64 tokens to 32K (on an H200 for the
#    first time if one comes; on an H100 a second sample of call 112).
# All bf16, TRITON_ATTN's layout, each call after its KV-cache write, block
# tables as wide as a 128K-token server's, three rounds.
# Carries .gpu/site.tar.xz and .gpu/bundle-v0.33.0.tar.xz.
set -u
cd "$(dirname "$0")/../../../.."
source benchmarks/gpu_call_env.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
E=benchmarks/experiments/decode_short_context_variants.py
G=""
for g in 24/8/128:16 40/8/128:784 28/4/128:832 64/8/128:1040 6/1/128:32 6/1/128:576 \
    14/2/128:832 16/16/128:1088 12/4/256:544 20/4/256:32 32/4/256:832 6/1/256:1056; do G="$G,triton:$g"; done
timeout 200 python3 $E --vllm-root /tmp/b --out-dir /tmp/o --variants base \
  --groups "${G#,}" --batches 1,2,4,16 --seq-lens 64,128,256,1024 --max-tokens 524288 \
  --workers 14 --reps 5 --rounds 3 --cache-write > "/tmp/o/decode_heldout_short_$gpu.log" 2>&1
echo "heldout rc=$?"; tail -n 3 "/tmp/o/decode_heldout_short_$gpu.log"
cp /tmp/o/decode_short_context_variants.json "$OUT/decode_heldout_short_$gpu.json"
cp /tmp/o/decode_heldout_short_$gpu.log "$OUT/"
G=triton:16/2/256:16,triton:16/2/256:64,triton:16/2/256:544,triton:8/1/128:16,triton:8/1/128:128
G=$G,triton:8/1/128:832,triton:4/1/128:544,triton:8/2/256:128,triton:8/1/256:784
G=$G,triton:12/2/128:544,triton:12/2/128:1040,triton:4/1/128:16,triton:2/1/128:576
G=$G,triton:3/1/128:1088,triton:8/1/128:1040
timeout 200 python3 $E --vllm-root /tmp/b --out-dir /tmp/o --variants base,no_tile_parts \
  --groups "$G" --batches 1,2 --seq-lens 64,128,192,256,512,1024,32768 --max-tokens 524288 \
  --workers 14 --reps 5 --rounds 3 --cache-write > "/tmp/o/decode_tile_parts_$gpu.log" 2>&1
echo "tile_parts rc=$?"; tail -n 3 "/tmp/o/decode_tile_parts_$gpu.log"
cp /tmp/o/decode_short_context_variants.json "$OUT/decode_tile_parts_$gpu.json"
cp /tmp/o/decode_tile_parts_$gpu.log "$OUT/"
