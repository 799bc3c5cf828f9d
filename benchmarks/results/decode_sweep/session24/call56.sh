#!/usr/bin/env bash
# GPU call 56 (session 24): the decode op's kernel tests and TRITON_ATTN's
# route tests on the GPU (pages 16 and 32 added; several pages per tile), then
# the large-batch points at pages 16 and 32 again with 8 replays per point
# (call 55 had 16/2/256 at page 32, batch 256, at 1.00-1.04x of
# unified_attention, with the op's code unchanged there).
set -u
cd "$(dirname "$0")/../../../.."
source benchmarks/gpu_call_env.sh
timeout 400 python3 benchmarks/gpu_pytest.py /tmp/b -q -n 15 -rs -p no:cacheprovider \
  tests/kernels/attention/test_decode_page_contiguous.py \
  tests/v1/attention/test_triton_attn_page_contiguous_decode.py > /tmp/o/gpu_tests_small_pages_h200.log 2>&1
echo "tests rc=$?"; tail -n 2 /tmp/o/gpu_tests_small_pages_h200.log
E=benchmarks/experiments/decode_small_pages.py
timeout 120 python3 $E --vllm-root /tmp/b --base-op .gpu/base_op.py --out-dir /tmp/o \
  --tag decode_small_pages_large_batch --pages 16,32 --heads 16/2/256,24/4/256,32/8/128 \
  --batches 64,256 --seq-lens 4096,16384 --reps 8 --time-budget 80 \
  > /tmp/o/decode_small_pages_large_batch_h200.log 2>&1
echo "large batch rc=$?"; tail -n 1 /tmp/o/decode_small_pages_large_batch_h200.log
tar czf "$OUT/call56.tgz" -C /tmp/o .
