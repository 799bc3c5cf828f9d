#!/usr/bin/env bash
# GPU call 51 (session 21): ROCM_ATTN layers without a provider keep the NHD
# cache where the decode op serves their decode rows (new v0.33.0 patch 14).
# The mixed-batch test file on the GPU (bf16), then the scheduler-trace
# replay of ROCM_ATTN as a ROCm user gets it by default (no provider, page
# 784): the tree with the patch (after) against the tree before it (before).
set -u
cd "$(dirname "$0")/../../../.."
source benchmarks/gpu_call_env.sh
# The tree before the patch: the same bundle with the one vllm/ file the
# patch changes (its tests and benchmark docstring aside) as it was.
cp -a /tmp/b /tmp/b_before && cp -r .gpu/before/vllm/. /tmp/b_before/vllm/
timeout 110 python3 benchmarks/gpu_pytest.py /tmp/b -q -n 8 -rs \
  tests/kernels/attention/test_rocm_attn_mixed_batches.py > /tmp/o/gpu_tests_mixed_batches_h200.log 2>&1
echo "tests rc=$?"; tail -2 /tmp/o/gpu_tests_mixed_batches_h200.log; grep -E "^FAILED" /tmp/o/gpu_tests_mixed_batches_h200.log | head
for t in after before; do
  root=/tmp/b; [ $t = before ] && root=/tmp/b_before
  timeout 170 python3 benchmarks/replay_scheduler.py --vllm-root $root --out-dir /tmp/o/replay_$t \
    --variants series_rocm_default --concurrency 10,32 --budget 4096 --reps 2 > /tmp/o/replay_$t.log 2>&1
  echo "replay $t rc=$?"; grep -v "^W\|stand-in" /tmp/o/replay_$t.log | tail -12
done
tar czf $OUT/call51.tgz -C /tmp/o .
cp /tmp/o/*.log $OUT/
