# Sourced by call101.sh and call102.sh on the GPU machine, from the
# repository root, after benchmarks/gpu_call_env.sh. run NAME HEADS BATCHES
# [TIMEOUT]: the op as built (base) against unified_attention on
# TRITON_ATTN's layout at pages 16 and 32, 64 tokens to 16K, two rounds;
# writes /tmp/o/decode_band_NAME.json and its log.
run() {
  G=""
  for p in 16 32; do G="$G,triton:$2:$p"; done
  timeout "${4:-250}" python3 benchmarks/experiments/decode_short_context_variants.py --vllm-root /tmp/b \
    --out-dir /tmp/o/$1 --variants base --groups "${G#,}" \
    --batches "$3" --seq-lens 64,256,1024,4096,16384 --max-tokens 4194304 \
    --workers 2 --reps 5 --rounds 2 > "/tmp/o/decode_band_$1_$gpu.log" 2>&1
  echo "$1 rc=$?"; tail -n 2 "/tmp/o/decode_band_$1_$gpu.log"
  cp /tmp/o/$1/decode_short_context_variants.json "/tmp/o/decode_band_$1.json"
}
