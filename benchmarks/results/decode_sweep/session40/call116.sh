#!/usr/bin/env bash
# GPU call 116 (session 40): call 115's timing runs again (held-out shapes;
# call 112's fifteen groups, the op as built against no_tile_parts and
# unified_attention), on patch 21/22 as amended, asking for an H200. No GPU
# tests: the tree had grown past the device tool's carry limit with
# .gpu/site.tar.xz, so this call carries .gpu/site-ops.tar.xz (the same
# wheels less openai and openai_harmony, which only the backends import)
# and .gpu/bundle-v0.33.0.tar.xz, with stub_openai.py as sitecustomize
# (the first run, without it, failed importing openai_harmony; the second ran
# the same stub written inline). Output names end in _amended_c116.
set -u
cd "$(dirname "$0")/../../../.."
GPU_SITE=.gpu/site-ops.tar.xz source benchmarks/gpu_call_env.sh
# vllm.config imports openai_harmony (through vllm.reasoning): stub both.
cp benchmarks/results/decode_sweep/session40/stub_openai.py /tmp/site/sitecustomize.py
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
E=benchmarks/experiments/decode_short_context_variants.py
S=amended_c116
G=""
for g in 24/8/128:16 40/8/128:784 28/4/128:832 64/8/128:1040 6/1/128:32 6/1/128:576 \
    14/2/128:832 16/16/128:1088 12/4/256:544 20/4/256:32 32/4/256:832 6/1/256:1056; do G="$G,triton:$g"; done
timeout 150 python3 $E --vllm-root /tmp/b --out-dir /tmp/o --variants base \
  --groups "${G#,}" --batches 1,2,4,16 --seq-lens 64,128,256,1024 --max-tokens 524288 \
  --workers 14 --reps 5 --rounds 3 --cache-write > "/tmp/o/decode_heldout_short_${gpu}_$S.log" 2>&1
echo "heldout rc=$?"; tail -n 1 "/tmp/o/decode_heldout_short_${gpu}_$S.log"
cp /tmp/o/decode_short_context_variants.json "$OUT/decode_heldout_short_${gpu}_$S.json"
cp "/tmp/o/decode_heldout_short_${gpu}_$S.log" "$OUT/"
G=triton:16/2/256:16,triton:16/2/256:64,triton:16/2/256:544,triton:8/1/128:16,triton:8/1/128:128
G=$G,triton:8/1/128:832,triton:4/1/128:544,triton:8/2/256:128,triton:8/1/256:784
G=$G,triton:12/2/128:544,triton:12/2/128:1040,triton:4/1/128:16,triton:2/1/128:576
G=$G,triton:3/1/128:1088,triton:8/1/128:1040
for r in 1 2; do
  timeout 120 python3 $E --vllm-root /tmp/b --out-dir /tmp/o --variants base,no_tile_parts \
    --groups "$G" --batches 1,2 --seq-lens 64,128,192,256,512,1024,32768 --max-tokens 524288 \
    --workers 14 --reps 5 --rounds 3 --cache-write > "/tmp/o/decode_tile_parts_${gpu}_${S}_r$r.log" 2>&1
  echo "tile_parts r$r rc=$?"; tail -n 2 "/tmp/o/decode_tile_parts_${gpu}_${S}_r$r.log"
  cp /tmp/o/decode_short_context_variants.json "$OUT/decode_tile_parts_${gpu}_${S}_r$r.json"
  cp "/tmp/o/decode_tile_parts_${gpu}_${S}_r$r.log" "$OUT/"
done
