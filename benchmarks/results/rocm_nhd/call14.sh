#!/usr/bin/env bash
# GPU call 14 (session 8): the prefill kernel's test file again (fixed compile
# check and NHD mutant page); scheduler-trace replay of ROCM_ATTN with the Triton
# provider: NHD layers (this tree) against x-packed layers (the tree before it).
set -u
cd "$(dirname "$0")/.."
for d in whl whl_numpy; do
  python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/$d .gpu/$d/*.whl 2>&1 | tail -1
done
mkdir -p /tmp/b /tmp/o
tar xzf .gpu/bundle-v0.33.0.tgz -C /tmp/b
cp -a /tmp/b /tmp/b_old && cp -r .gpu/old/vllm/. /tmp/b_old/vllm/
export PYTHONUNBUFFERED=1
PYTHONPATH=/tmp/whl_numpy:/tmp/b:/tmp/whl timeout 200 python3 benchmarks/gpu_pytest.py /tmp/b -q -n 14 -rs \
  tests/kernels/attention/test_triton_paged_prefill_aligned.py > /tmp/o/gpu_tests_prefill_nhd_h200.log 2>&1
echo "tests rc=$?"; tail -3 /tmp/o/gpu_tests_prefill_nhd_h200.log; grep -E "^FAILED" /tmp/o/gpu_tests_prefill_nhd_h200.log | head
for t in new old; do
  root=/tmp/b; [ $t = old ] && root=/tmp/b_old
  PYTHONPATH=/tmp/whl timeout 220 python3 benchmarks/replay_scheduler.py --vllm-root $root --out-dir /tmp/o/replay_$t \
    --variants series_rocm --concurrency 10,32 --budget 4096 --reps 2 > /tmp/o/replay_$t.log 2>&1
  echo "replay $t rc=$?"; grep -v "^W\|stand-in" /tmp/o/replay_$t.log | tail -8
done
cp -r /tmp/o/* $OUT/
