#!/usr/bin/env bash
# GPU call 13 (session 8): the two changed test files on the H200; vLLM's own
# benchmark_paged_prefill_aligned.py (x-packed vs NHD vs today) on the fork.
set -u
cd "$(dirname "$0")/.."
for d in whl whl_numpy; do
  python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/$d .gpu/$d/*.whl 2>&1 | tail -1
done
mkdir -p /tmp/b /tmp/o
tar xzf .gpu/bundle-v0.33.0.tgz -C /tmp/b
export PYTHONUNBUFFERED=1 PYTHONPATH=/tmp/whl_numpy:/tmp/b:/tmp/whl
timeout 300 python3 benchmarks/gpu_pytest.py /tmp/b -q -n 14 -rs \
  tests/kernels/attention/test_triton_paged_prefill_aligned.py tests/kernels/attention/test_rocm_attn_mixed_batches.py \
  > /tmp/o/gpu_tests_nhd_h200.log 2>&1
echo "tests rc=$?"; tail -6 /tmp/o/gpu_tests_nhd_h200.log
for h in "24 4 256" "32 8 128"; do set -- $h
  for ctx in 0 12288 28672; do
    timeout 100 python3 .gpu/vbench/run.py /tmp/b .gpu/vbench/benchmark_paged_prefill_aligned.py \
      --num-query-heads $1 --num-kv-heads $2 --head-size $3 --page 832 --chunks 4096 --contexts $ctx 2>&1 | grep -v "^W\|stand-in" | tail -3
  done
done | tee /tmp/o/benchmark_paged_prefill_aligned_h200.log
cp /tmp/o/* $OUT/
