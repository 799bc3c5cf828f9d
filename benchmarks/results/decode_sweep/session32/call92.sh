#!/usr/bin/env bash
# GPU call 92 (session 32): the op after the change call 91 argued for (grids
# of one to one and a half waves of 2 programs per SM kept unsplit on
# TRITON_ATTN's layout at head 256 on sm_90; base) against the op before it
# (wave_splits_on), on call 91's points, on held-out head shapes with 1, 2
# and 4 KV heads at the batches that were split past one wave, and on the
# x-packed layout (unchanged there); two rounds. Then the op's and the
# backends' decode tests on the GPU (bf16/fp16), without the out-of-bounds
# guard, whose child runs the Triton interpreter (CPU-only; it fails under
# this machine's NumPy 2.4 and runs in CI). .gpu: the bundle of the v0.33.0
# queue with the change (benchmarks/gpu_call_bundle.sh v0.33.0), wheels as
# call 91.
set -u
cd "$(dirname "$0")/../../../.."
source benchmarks/gpu_call_env.sh
E="python3 benchmarks/experiments/decode_short_context_variants.py --vllm-root /tmp/b --out-dir /tmp/o --variants base,wave_splits_on --workers 14 --reps 5 --rounds 2 --max-tokens 4900000"
run() {  # tag timeout args...
  local tag=$1 t=$2; shift 2
  rm -f /tmp/o/decode_short_context_variants.json
  timeout "$t" $E "$@" > "/tmp/o/decode_no_wave_${tag}_h200.log" 2>&1
  echo "$tag rc=$?"; tail -n 2 "/tmp/o/decode_no_wave_${tag}_h200.log"
  cp /tmp/o/decode_short_context_variants.json "/tmp/o/decode_no_wave_${tag}.json" 2>/dev/null
}
run h24 120 --groups triton:24/4/256:16,triton:24/4/256:64,triton:24/4/256:832 \
  --batches 67,72,82,90,96,99,110 --seq-lens 64,256,512,1024,2048,4096,16384
run h16 120 --groups triton:16/2/256:16,triton:16/2/256:64,triton:16/2/256:544 \
  --batches 133,150,165,180,198,220 --seq-lens 64,256,512,1024,2048,4096,16384
run heldout 120 --groups triton:20/4/256:128,triton:12/4/256:1056,triton:8/2/256:32,triton:8/1/256:784 \
  --batches 70,85,140,170,270,340,390 --seq-lens 64,512,2048,8192
run xpacked 60 --groups rocm:24/4/256:832 --batches 72,96 --seq-lens 64,1024,4096
timeout 300 python3 benchmarks/gpu_pytest.py /tmp/b -q -n 14 -p no:cacheprovider \
  -k "not reads_stay_in_bounds and not guard_catches_overrun" \
  tests/kernels/attention/test_decode_page_contiguous.py \
  tests/v1/attention/test_triton_attn_page_contiguous_decode.py \
  tests/v1/attention/test_rocm_attn_page_contiguous_decode.py \
  tests/kernels/attention/test_rocm_attn_mixed_batches.py > /tmp/o/gpu_tests_decode_h200.log 2>&1
echo "tests rc=$?"; tail -n 3 /tmp/o/gpu_tests_decode_h200.log
cp /tmp/o/decode_no_wave_* /tmp/o/gpu_tests_decode_h200.log "$OUT/"
