#!/usr/bin/env bash
# GPU call 97 (session 34): session 33's call 95 again, after call 96 (an
# H100) found its one clear outlier to be the first point the process timed:
# the variants script now times one point first and drops it, and its
# cache-write mode stands in for the serving packages the KV-cache writer's
# import reaches. Carries .gpu/whl (this time without xgrammar, which the
# tests' stand-ins replace, and with openai and openai-harmony) and
# .gpu/bundle-v0.33.0.tgz.
set -u
cd "$(dirname "$0")/../../../.."
bash benchmarks/results/decode_sweep/session33/call95.sh
# Then page_tile again at head 256 on 16-token pages (call 96: 0.89-0.92x of
# the op at batch 1-4 and 64-256 tokens there, 0.93-1.05x elsewhere), with
# held-out head shapes, three rounds.
source benchmarks/gpu_call_env.sh
G=""
for h in 8/2/256 32/4/256 24/4/256 16/2/256 64/8/256 8/1/256; do G="$G,triton:$h:16"; done
timeout 170 python3 benchmarks/experiments/decode_short_context_variants.py --vllm-root /tmp/b \
  --out-dir /tmp/o --variants base,page_tile --groups "${G#,}" \
  --batches 1,2,4,8,16,64,256 --seq-lens 64,128,256,1024,4096,16384 --max-tokens 524288 \
  --workers 14 --reps 5 --rounds 3 > /tmp/o/decode_page_tile_heldout_h200.log 2>&1
echo "page_tile rc=$?"; tail -n 3 /tmp/o/decode_page_tile_heldout_h200.log
cp /tmp/o/decode_short_context_variants.json /tmp/o/decode_page_tile_heldout.json 2>/dev/null
cp /tmp/o/decode_page_tile_heldout* "$OUT/"
