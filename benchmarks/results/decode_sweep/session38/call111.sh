#!/usr/bin/env bash
# GPU call 111 (session 38), on the v0.33.0 series with patch 21 (tile parts
# in batches of at most two programs; the bundle rebuilt). Sized to the
# device time left after a lost call:
# 1) the op's tile-parts and pinned-config tests on the GPU, where the sm_90
#    config spreads tiles;
# 2) the op as built against no_tile_parts (its config spreads none) and
#    unified_attention on nine of call 110's groups, batch 1-2, 64 tokens to
#    32K, after the KV-cache write, three rounds.
# Carries .gpu/site.tar.xz and .gpu/bundle-v0.33.0.tar.xz.
set -u
cd "$(dirname "$0")/../../../.."
source benchmarks/gpu_call_env.sh
timeout 90 python3 benchmarks/gpu_pytest.py /tmp/b -q -n 14 -rs \
  tests/kernels/attention/test_decode_page_contiguous.py -k "tile_parts or pinned" \
  > "$OUT/gpu_tests_tile_parts_$gpu.log" 2>&1
echo "tests rc=$?"; tail -n 3 "$OUT/gpu_tests_tile_parts_$gpu.log"
E=benchmarks/experiments/decode_short_context_variants.py
G=triton:16/2/256:16,triton:16/2/256:64,triton:16/2/256:544,triton:8/1/128:16,triton:8/1/128:128
G=$G,triton:8/1/128:832,triton:4/1/128:544,triton:8/2/256:128,triton:8/1/256:784
timeout 150 python3 $E --vllm-root /tmp/b --out-dir /tmp/o --variants base,no_tile_parts \
  --groups "$G" --batches 1,2 --seq-lens 64,128,192,256,1024,32768 --max-tokens 524288 \
  --workers 14 --reps 5 --rounds 3 --cache-write > "/tmp/o/decode_tile_parts_$gpu.log" 2>&1
echo "rc=$?"; tail -n 3 "/tmp/o/decode_tile_parts_$gpu.log"
cp /tmp/o/decode_short_context_variants.json "$OUT/decode_tile_parts_$gpu.json"
cp /tmp/o/decode_tile_parts_$gpu.log "$OUT/"
