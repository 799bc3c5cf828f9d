#!/usr/bin/env bash
# GPU call 105 (session 37): session 35's call 99 again (the short-context
# points of session 34's call 97 on the final v0.33.0 series: batch 1-4,
# 64-256 tokens, five rounds), plainly and after the KV-cache write (which
# call 99 could not import: openai-harmony was not carried), then the
# page-alignment config tests that call 104's bundle could not import
# (vision.py was added to that call's bundle). Ran on an H100. The config
# step still failed (23 of 33: the trimmed bundle has no Qwen model classes
# to inspect); those tests run on vLLM's CPU platform in CI, and
# gpu_call_bundle.sh was left without vision.py. Carries .gpu/site.tar.xz
# and .gpu/bundle-v0.33.0.tar.xz.
set -u
cd "$(dirname "$0")/../../../.."
source benchmarks/gpu_call_env.sh
E=benchmarks/experiments/decode_short_context_variants.py
G=""
for h in 24/4/256 16/2/256 32/8/128; do for p in 16 32; do G="$G,triton:$h:$p"; done; done
for h in 24/4/256 16/2/256 32/8/128 8/1/128; do for p in 64 128 544 832 1056; do G="$G,triton:$h:$p"; done; done
short() {  # mode, extra flag
  timeout 170 python3 $E --vllm-root /tmp/b --out-dir /tmp/o --variants base --groups "${G#,}" \
    --batches 1,2,4 --seq-lens 64,128,256 --max-tokens 524288 \
    --workers 14 --reps 5 --rounds 5 $2 > "/tmp/o/decode_short_rounds5_$1_$gpu.log" 2>&1
  echo "$1 rc=$?"; tail -n 3 "/tmp/o/decode_short_rounds5_$1_$gpu.log"
  cp /tmp/o/decode_short_context_variants.json "/tmp/o/decode_short_rounds5_$1_$gpu.json" 2>/dev/null
  cp /tmp/o/decode_short_rounds5_$1* "$OUT/"
}
short cache_write --cache-write
short plain ""
VLLM_TARGET_DEVICE=cpu timeout 60 python3 benchmarks/gpu_pytest.py /tmp/b -q -rs -p no:cacheprovider \
  tests/v1/attention/test_rocm_paged_prefill_page_alignment.py > "$OUT/gpu_tests_config_$gpu.log" 2>&1
echo "config tests rc=$?"; tail -n 1 "$OUT/gpu_tests_config_$gpu.log"
