#!/usr/bin/env bash
# GPU call 91 (session 30): grids split past one wave (head 256 on sm_90, one
# to one and a half waves of programs at 2 per SM), where the op after patch
# 18 is up to 1.10x of today's path at 64-2K tokens. The op as built (base)
# against the op without the wave rule (no_wave_rule), the rule counting 3
# programs per SM on TRITON_ATTN's layout (wave_resident3: its grids of
# 265-396 programs unsplit, 397-594 split), the rule's length threshold at
# 512 and 2048 tokens, and at most 2 splits (wave_max2); each head shape at
# the batches where base or wave_resident3 split past one wave; two rounds.
# .gpu: the v0.33.0 bundle of the exported queue (patch 18 with its
# wave-split exception), trimmed as session 29's call 85.
set -u
cd "$(dirname "$0")/../../../.."
source benchmarks/gpu_call_env.sh
V=base,no_wave_rule,wave_resident3,wave_min512,wave_min2048,wave_max2
E="python3 benchmarks/experiments/decode_short_context_variants.py --vllm-root /tmp/b --out-dir /tmp/o --variants $V --workers 14 --reps 5 --rounds 2 --max-tokens 4900000"
run() {  # tag timeout args...
  local tag=$1 t=$2; shift 2
  rm -f /tmp/o/decode_short_context_variants.json
  timeout "$t" $E "$@" > "/tmp/o/decode_wave_rule_${tag}_h200.log" 2>&1
  echo "$tag rc=$?"; tail -n 6 "/tmp/o/decode_wave_rule_${tag}_h200.log"
  cp /tmp/o/decode_short_context_variants.json "/tmp/o/decode_wave_rule_${tag}.json" 2>/dev/null
}
run h24 200 --groups triton:24/4/256:16,triton:24/4/256:64,triton:24/4/256:832 \
  --batches 67,72,82,90,96,99,110,132,148 --seq-lens 64,256,512,1024,2048,4096,16384
run h16 200 --groups triton:16/2/256:16,triton:16/2/256:64,triton:16/2/256:544 \
  --batches 133,150,165,180,198,220,264,297 --seq-lens 64,256,512,1024,2048,4096,16384
run xpacked 100 --groups rocm:24/4/256:832,rocm:16/2/256:544 \
  --batches 72,96,165,190 --seq-lens 64,512,1024,4096
cp /tmp/o/decode_wave_rule_* "$OUT/"
