#!/usr/bin/env bash
# GPU call 95 (session 33, prepared; no GPU was lent that session): the last
# routed points over 1.02x of today's path (batch 1 at 64-128 tokens,
# session 29's call 87) timed again with five rounds each, plainly and after
# each call's KV-cache write (what a server's step runs first), to tell a
# gap from run-to-run spread (0.93-1.03x for unchanged kernels in session
# 32's call 92); then session 32's call 94 (the prefix fp32-reference tests,
# bidirectional cases included, in bf16/fp16). Carries .gpu/whl and
# .gpu/bundle-v0.33.0.tgz (benchmarks/gpu_call_bundle.sh v0.33.0).
set -u
cd "$(dirname "$0")/../../../.."
source benchmarks/gpu_call_env.sh
G=""
for h in 24/4/256 16/2/256 32/8/128; do for p in 16 32; do G="$G,triton:$h:$p"; done; done
for h in 24/4/256 16/2/256 32/8/128 8/1/128; do for p in 64 128 544 832 1056; do G="$G,triton:$h:$p"; done; done
for mode in plain cache_write; do
  flag=""; [ "$mode" = cache_write ] && flag="--cache-write"
  timeout 200 python3 benchmarks/experiments/decode_short_context_variants.py --vllm-root /tmp/b \
    --out-dir /tmp/o --variants base --groups "${G#,}" \
    --batches 1,2,4 --seq-lens 64,128,256 --max-tokens 524288 \
    --workers 14 --reps 5 --rounds 5 $flag > "/tmp/o/decode_short_rounds5_${mode}_h200.log" 2>&1
  echo "$mode rc=$?"; tail -n 3 "/tmp/o/decode_short_rounds5_${mode}_h200.log"
  cp /tmp/o/decode_short_context_variants.json "/tmp/o/decode_short_rounds5_${mode}.json" 2>/dev/null
done
timeout 250 python3 benchmarks/gpu_pytest.py /tmp/b -q -n 14 -p no:cacheprovider -rs \
  tests/kernels/attention/test_prefix_prefill.py::test_context_attention_fwd_matches_paged_reference \
  tests/kernels/attention/test_prefix_prefill.py::test_context_attention_fwd_block_table_row_end \
  > /tmp/o/gpu_tests_prefix_reference_h200.log 2>&1
echo "tests rc=$?"; tail -n 3 /tmp/o/gpu_tests_prefix_reference_h200.log
cp /tmp/o/decode_short_rounds5_* /tmp/o/gpu_tests_prefix_reference_h200.log "$OUT/"
