#!/usr/bin/env bash
# GPU call 102 (session 36): the band of call 101 on held-out head shapes,
# and the GPU tests with decode_grid_stays_on_unified_attention. 32/8/128
# (head 128: the rule keeps its route) and 8/2/256 (4 query heads per KV
# head) on pages 16 and 32, grids of 320-1200 programs, 64 tokens to 16K.
# The op as built (base) only. Carries .gpu/whl and .gpu/bundle-v0.33.0.tgz.
set -u
cd "$(dirname "$0")/../../../.."
source benchmarks/gpu_call_env.sh
source benchmarks/results/decode_sweep/session36/band_run.sh
run h32_128 32/8/128 40,48,50,56,60,64,66,70,80,100,132,150 200
run h8_256 8/2/256 180,200,216,232,248,264,280,300,360,460,600 200
timeout 200 python3 benchmarks/gpu_pytest.py /tmp/b -q -n 14 -p no:cacheprovider -rs \
  -k "not reads_stay_in_bounds and not guard_catches_overrun" \
  tests/kernels/attention/test_decode_page_contiguous.py \
  tests/v1/attention/test_triton_attn_page_contiguous_decode.py > "/tmp/o/gpu_tests_decode_$gpu.log" 2>&1
echo "tests rc=$?"; tail -n 3 "/tmp/o/gpu_tests_decode_$gpu.log"
cp /tmp/o/decode_band_* /tmp/o/gpu_tests_decode_* "$OUT/"
