#!/usr/bin/env bash
# GPU call 99 (session 35): session 34's call 97 short-context points on the
# final v0.33.0 series (batch 1-4, 64-256 tokens, the first point timed and
# dropped) plainly and after the KV-cache write, and the prefix
# fp32-reference GPU tests. Steps in order of need, each copied to $OUT
# when it ends. Logs are named after the GPU. Carries .gpu/whl and
# .gpu/bundle-v0.33.0.tgz.
set -u
cd "$(dirname "$0")/../../../.."
source benchmarks/gpu_call_env.sh
E=benchmarks/experiments/decode_short_context_variants.py
G=""
for h in 24/4/256 16/2/256 32/8/128; do for p in 16 32; do G="$G,triton:$h:$p"; done; done
for h in 24/4/256 16/2/256 32/8/128 8/1/128; do for p in 64 128 544 832 1056; do G="$G,triton:$h:$p"; done; done
short() {  # mode, extra flag
  timeout 150 python3 $E --vllm-root /tmp/b --out-dir /tmp/o --variants base --groups "${G#,}" \
    --batches 1,2,4 --seq-lens 64,128,256 --max-tokens 524288 \
    --workers 14 --reps 5 --rounds 5 $2 > "/tmp/o/decode_short_rounds5_$1_$gpu.log" 2>&1
  echo "$1 rc=$?"; tail -n 3 "/tmp/o/decode_short_rounds5_$1_$gpu.log"
  cp /tmp/o/decode_short_context_variants.json "/tmp/o/decode_short_rounds5_$1.json" 2>/dev/null
  cp /tmp/o/decode_short_rounds5_$1* "$OUT/"
}
short plain ""
short cache_write --cache-write
timeout 150 python3 benchmarks/gpu_pytest.py /tmp/b -q -n 14 -p no:cacheprovider -rs \
  tests/kernels/attention/test_prefix_prefill.py::test_context_attention_fwd_matches_paged_reference \
  tests/kernels/attention/test_prefix_prefill.py::test_context_attention_fwd_block_table_row_end \
  > /tmp/o/gpu_tests_prefix_reference_$gpu.log 2>&1
echo "tests rc=$?"; tail -n 3 /tmp/o/gpu_tests_prefix_reference_$gpu.log
cp /tmp/o/gpu_tests_prefix_reference_$gpu.log "$OUT/"
