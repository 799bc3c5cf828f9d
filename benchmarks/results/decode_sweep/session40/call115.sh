#!/usr/bin/env bash
# GPU call 115 (session 40), on the v0.33.0 series with patch 21 amended
# (head 256 keeps its tiles whole; tiles are spread at head sizes up to 128
# only): the op's tile-parts and pinned-config tests on the GPU; call 114's
# held-out shapes and call 112's fifteen groups again (the op as built
# against no_tile_parts and unified_attention), as in call114.sh.
# Carries .gpu/site.tar.xz and .gpu/bundle-v0.33.0.tar.xz (rebuilt with
# benchmarks/gpu_call_bundle.sh v0.33.0 after the amendment).
set -u
cd "$(dirname "$0")/../../../.."
source benchmarks/gpu_call_env.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
timeout 90 python3 benchmarks/gpu_pytest.py /tmp/b -q -n 14 -rs \
  tests/kernels/attention/test_decode_page_contiguous.py -k "tile_parts or pinned" \
  > "$OUT/gpu_tests_tile_parts_$gpu.log" 2>&1
echo "tests rc=$?"; tail -n 3 "$OUT/gpu_tests_tile_parts_$gpu.log"
E=benchmarks/experiments/decode_short_context_variants.py
G=""
for g in 24/8/128:16 40/8/128:784 28/4/128:832 64/8/128:1040 6/1/128:32 6/1/128:576 \
    14/2/128:832 16/16/128:1088 12/4/256:544 20/4/256:32 32/4/256:832 6/1/256:1056; do G="$G,triton:$g"; done
timeout 150 python3 $E --vllm-root /tmp/b --out-dir /tmp/o --variants base \
  --groups "${G#,}" --batches 1,2,4,16 --seq-lens 64,128,256,1024 --max-tokens 524288 \
  --workers 14 --reps 5 --rounds 3 --cache-write > "/tmp/o/decode_heldout_short_${gpu}_amended.log" 2>&1
echo "heldout rc=$?"; tail -n 1 "/tmp/o/decode_heldout_short_${gpu}_amended.log"
cp /tmp/o/decode_short_context_variants.json "$OUT/decode_heldout_short_${gpu}_amended.json"
cp "/tmp/o/decode_heldout_short_${gpu}_amended.log" "$OUT/"
G=triton:16/2/256:16,triton:16/2/256:64,triton:16/2/256:544,triton:8/1/128:16,triton:8/1/128:128
G=$G,triton:8/1/128:832,triton:4/1/128:544,triton:8/2/256:128,triton:8/1/256:784
G=$G,triton:12/2/128:544,triton:12/2/128:1040,triton:4/1/128:16,triton:2/1/128:576
G=$G,triton:3/1/128:1088,triton:8/1/128:1040
timeout 150 python3 $E --vllm-root /tmp/b --out-dir /tmp/o --variants base,no_tile_parts \
  --groups "$G" --batches 1,2 --seq-lens 64,128,192,256,512,1024,32768 --max-tokens 524288 \
  --workers 14 --reps 5 --rounds 3 --cache-write > "/tmp/o/decode_tile_parts_${gpu}_amended.log" 2>&1
echo "tile_parts rc=$?"; tail -n 2 "/tmp/o/decode_tile_parts_${gpu}_amended.log"
cp /tmp/o/decode_short_context_variants.json "$OUT/decode_tile_parts_${gpu}_amended.json"
cp "/tmp/o/decode_tile_parts_${gpu}_amended.log" "$OUT/"
