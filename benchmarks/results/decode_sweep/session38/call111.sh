#!/usr/bin/env bash
# GPU call 111 (session 38), on the v0.33.0 series with patch 21 (tile parts
# in batches of at most two programs; the bundle rebuilt):
# 1) the op's test file and both backends' route tests on the GPU, where
#    the sm_90 config spreads tiles;
# 2) the op as built against no_tile_parts (its config spreads none) and
#    unified_attention, on call 110's groups and points (five rounds).
# Carries .gpu/site.tar.xz and .gpu/bundle-v0.33.0.tar.xz.
set -u
cd "$(dirname "$0")/../../../.."
source benchmarks/gpu_call_env.sh
T="tests/kernels/attention/test_decode_page_contiguous.py tests/v1/attention/test_triton_attn_page_contiguous_decode.py tests/v1/attention/test_rocm_attn_page_contiguous_decode.py"
timeout 240 python3 benchmarks/gpu_pytest.py /tmp/b -q -n 14 -rs $T > "$OUT/gpu_tests_decode_$gpu.log" 2>&1
echo "tests rc=$?"; tail -n 4 "$OUT/gpu_tests_decode_$gpu.log"
E=benchmarks/experiments/decode_short_context_variants.py
G=""
for p in 16 32 64 128 544 832 1056; do G="$G,triton:16/2/256:$p"; done
for p in 16 64 128 544 832 1056; do G="$G,triton:8/1/128:$p"; done
G="$G,triton:4/1/128:544,triton:4/1/128:64,triton:8/2/256:128,triton:8/1/256:784"
timeout 300 python3 $E --vllm-root /tmp/b --out-dir /tmp/o --variants base,no_tile_parts \
  --groups "${G#,}" --batches 1,2 --seq-lens 64,128,192,256,512,1024,4096,32768 --max-tokens 524288 \
  --workers 14 --reps 5 --rounds 5 --cache-write > "/tmp/o/decode_tile_parts_$gpu.log" 2>&1
echo "rc=$?"; tail -n 3 "/tmp/o/decode_tile_parts_$gpu.log"
cp /tmp/o/decode_short_context_variants.json "$OUT/decode_tile_parts_$gpu.json"
cp /tmp/o/decode_tile_parts_$gpu.log "$OUT/"
