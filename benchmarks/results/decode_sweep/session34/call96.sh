#!/usr/bin/env bash
# GPU call 96 (session 34): session 33's call 95 (the last routed points
# over 1.02x timed again in five rounds, plainly and after the KV-cache
# write; the prefix fp32-reference tests on the GPU), then the page_tile
# variant (tiles of one page on 16- and 32-token pages) against the op as
# built and unified_attention, batch 1-64, 64-16K tokens. Carries .gpu/whl
# and .gpu/bundle-v0.33.0.tgz (benchmarks/gpu_call_bundle.sh v0.33.0).
set -u
cd "$(dirname "$0")/../../../.."
bash benchmarks/results/decode_sweep/session33/call95.sh
source benchmarks/gpu_call_env.sh
G=""
# Groups and lengths in another order than call 95 (whose first timed point,
# 24/4/256 at page 16, batch 1, 64 tokens, is the one clearly over 1.02x).
for h in 32/8/128 16/2/256 24/4/256; do for p in 32 16; do G="$G,triton:$h:$p"; done; done
timeout 150 python3 benchmarks/experiments/decode_short_context_variants.py --vllm-root /tmp/b \
  --out-dir /tmp/o --variants base,page_tile --groups "${G#,}" \
  --batches 1,2,4,16,64 --seq-lens 256,128,64,1024,4096,16384 --max-tokens 524288 \
  --workers 14 --reps 5 --rounds 2 > /tmp/o/decode_page_tile_h200.log 2>&1
echo "page_tile rc=$?"; tail -n 3 /tmp/o/decode_page_tile_h200.log
cp /tmp/o/decode_short_context_variants.json /tmp/o/decode_page_tile.json 2>/dev/null
cp /tmp/o/decode_page_tile* "$OUT/"
