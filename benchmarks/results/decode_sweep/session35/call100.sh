#!/usr/bin/env bash
# GPU call 100 (prepared in session 35, run in session 36 on an H100 with 2
# workers and at most 4M cached tokens per point: with 14 or 4 workers the
# H100 ran out of memory while prewarming): head 256 on TRITON_ATTN's
# layout at 2 stages (s2: every launch; s2_wide: grids past one wave of 3
# programs per SM) against the op as built and unified_attention, where call
# 98 found 16/2/256 at page 32 and batch 256 over 1.02x (a grid of 1.29
# waves of 3 per SM). Batches around the wave boundaries (132: one wave of 2
# per SM at 2 KV heads; 199: just past one wave of 3), 64 tokens to 64K.
# Logs are named after the GPU. Carries .gpu/whl and .gpu/bundle-v0.33.0.tgz.
set -u
cd "$(dirname "$0")/../../../.."
source benchmarks/gpu_call_env.sh
G=""
for h in 16/2/256 24/4/256; do for p in 16 32 64 832; do G="$G,triton:$h:$p"; done; done
timeout 400 python3 benchmarks/experiments/decode_short_context_variants.py --vllm-root /tmp/b \
  --out-dir /tmp/o --variants base,s2,s2_wide --groups "${G#,}" \
  --batches 1,4,16,64,100,132,199,256 --seq-lens 64,256,1024,4096,16384,65536 --max-tokens 4194304 \
  --workers 2 --reps 5 --rounds 2 > "/tmp/o/decode_stages_$gpu.log" 2>&1
echo "variants rc=$?"; tail -n 4 "/tmp/o/decode_stages_$gpu.log"
cp /tmp/o/decode_short_context_variants.json /tmp/o/decode_stages.json 2>/dev/null
cp /tmp/o/decode_stages* "$OUT/"
