#!/usr/bin/env bash
# GPU call 55 (session 24): the decode op reading several pages per tile at
# pages of 16 and 32 tokens. Its kernel tests on the GPU (pages 16 and 32
# added), then the op against the op before the change (.gpu/base_op.py:
# each tile one page) and against unified_attention (TRITON_ATTN today) over
# the issue's sweep at those pages, then a regression check at pages 64 and
# 832 (same code path in both) and short contexts at 16/32.
set -u
cd "$(dirname "$0")/../../../.."
source benchmarks/gpu_call_env.sh
timeout 150 python3 benchmarks/gpu_pytest.py /tmp/b -q -n 14 -rs -p no:cacheprovider \
  tests/kernels/attention/test_decode_page_contiguous.py > /tmp/o/gpu_tests_small_pages_h200.log 2>&1
echo "tests rc=$?"; tail -n 2 /tmp/o/gpu_tests_small_pages_h200.log
E=benchmarks/experiments/decode_small_pages.py
timeout 250 python3 $E --vllm-root /tmp/b --base-op .gpu/base_op.py --out-dir /tmp/o \
  --tag decode_small_pages_sweep --time-budget 150 > /tmp/o/decode_small_pages_sweep_h200.log 2>&1
echo "sweep rc=$?"; tail -n 1 /tmp/o/decode_small_pages_sweep_h200.log
timeout 90 python3 $E --vllm-root /tmp/b --base-op .gpu/base_op.py --out-dir /tmp/o \
  --tag decode_small_pages_short --pages 16,32 --heads 24/4/256,32/8/128,8/1/128 \
  --batches 1,2,4,8 --seq-lens 64,128,256,512 --time-budget 40 \
  > /tmp/o/decode_small_pages_short_h200.log 2>&1
echo "short rc=$?"; tail -n 1 /tmp/o/decode_small_pages_short_h200.log
timeout 70 python3 $E --vllm-root /tmp/b --base-op .gpu/base_op.py --out-dir /tmp/o \
  --tag decode_small_pages_unchanged --pages 64,832 --heads 24/4/256,32/8/128 \
  --batches 1,16,256 --seq-lens 1024,16384 --time-budget 35 \
  > /tmp/o/decode_small_pages_unchanged_h200.log 2>&1
echo "unchanged rc=$?"; tail -n 1 /tmp/o/decode_small_pages_unchanged_h200.log
grep -hE "Error|error" /tmp/o/*.log | head -5 | cut -c1-200
tar czf "$OUT/call55.tgz" -C /tmp/o .
