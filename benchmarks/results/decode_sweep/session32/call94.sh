#!/usr/bin/env bash
# GPU call 94 (session 32): the fp32-reference tests of context_attention_fwd
# on the v0.33.0 queue after the bidirectional cases were added (bf16/fp16 on
# the GPU; the block-table row-end test too). Carries .gpu/whl and
# .gpu/bundle-v0.33.0.tgz (benchmarks/gpu_call_bundle.sh v0.33.0).
set -u
cd "$(dirname "$0")/../../../.."
source benchmarks/gpu_call_env.sh
timeout 300 python3 benchmarks/gpu_pytest.py /tmp/b -q -n 14 -p no:cacheprovider -rs \
  tests/kernels/attention/test_prefix_prefill.py::test_context_attention_fwd_matches_paged_reference \
  tests/kernels/attention/test_prefix_prefill.py::test_context_attention_fwd_block_table_row_end \
  > /tmp/o/gpu_tests_prefix_reference_h200.log 2>&1
echo "tests rc=$?"; tail -n 3 /tmp/o/gpu_tests_prefix_reference_h200.log
cp /tmp/o/gpu_tests_prefix_reference_h200.log "$OUT/"
