#!/usr/bin/env bash
# GPU call 101 (session 36): where between one and three waves of 3 programs
# per SM the op loses to unified_attention at head 256 on TRITON_ATTN's
# layout. Call 100 found 32-token pages at 512-528 programs (16/2/256 batch
# 256, 24/4/256 batch 132) at 1.05-1.08x; pages 16, 64 and 832 stayed under
# 0.95x there. Pages 16 and 32, batches from just past one wave (396
# programs on 132 SMs) to past three, 64 tokens to 16K. The op as built
# (base) only. Carries .gpu/whl and .gpu/bundle-v0.33.0.tgz.
set -u
cd "$(dirname "$0")/../../../.."
source benchmarks/gpu_call_env.sh
source benchmarks/results/decode_sweep/session36/band_run.sh
run h16 16/2/256 180,200,216,232,248,264,280,300,330,360,400,460,520,600
run h24 24/4/256 90,100,108,116,124,132,140,150,165,180,200,230,260,300
cp /tmp/o/decode_band_* "$OUT/"
