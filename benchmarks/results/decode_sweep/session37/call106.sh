#!/usr/bin/env bash
# GPU call 106 (session 37): call 105's short-context points after the
# KV-cache write only, asked for on an H200 (call 105 got an H100). The tool
# ran it first on the same H100, still warm (files *_call106), then on an
# H200 (*_h200), where session 35's
# call 99 found 11 points over 1.02x without the write. Carries
# .gpu/site.tar.xz and .gpu/bundle-v0.33.0.tar.xz.
set -u
cd "$(dirname "$0")/../../../.."
source benchmarks/gpu_call_env.sh
E=benchmarks/experiments/decode_short_context_variants.py
G=""
for h in 24/4/256 16/2/256 32/8/128; do for p in 16 32; do G="$G,triton:$h:$p"; done; done
for h in 24/4/256 16/2/256 32/8/128 8/1/128; do for p in 64 128 544 832 1056; do G="$G,triton:$h:$p"; done; done
timeout 200 python3 $E --vllm-root /tmp/b --out-dir /tmp/o --variants base --groups "${G#,}" \
  --batches 1,2,4 --seq-lens 64,128,256 --max-tokens 524288 \
  --workers 14 --reps 5 --rounds 5 --cache-write > "/tmp/o/decode_short_rounds5_cache_write_$gpu.log" 2>&1
echo "cache_write rc=$?"; tail -n 3 "/tmp/o/decode_short_rounds5_cache_write_$gpu.log"
cp /tmp/o/decode_short_context_variants.json "$OUT/decode_short_rounds5_cache_write_$gpu.json"
cp /tmp/o/decode_short_rounds5_cache_write_$gpu.log "$OUT/"
