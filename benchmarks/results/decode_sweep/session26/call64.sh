#!/usr/bin/env bash
# GPU call 64 (session 26): does programmatic dependent launch close the
# decode op's short-context gap? The reduce kernel launched with PDL (it
# starts while the main kernel runs and waits for its writes), and that plus
# the main kernel launched the same way, against the op as built and
# unified_attention (TRITON_ATTN's layout) or chunked_prefill_paged_decode
# (ROCM_ATTN's), pages 16-832, batch 1-256, 64-32K tokens; the main
# kernel's signal at its start or after its last store (call 63 had it at
# the start only, where the reduce's early programs slowed batches of 4-16
# on the x-packed layout). Then Nsight
# Compute's per-instruction stall samples of the main kernel at batch 1,
# 128 tokens, page 16 (op and unified_attention).
set -u
cd "$(dirname "$0")/../../../.."
source benchmarks/gpu_call_env.sh
timeout 330 python3 benchmarks/experiments/decode_short_context_variants.py --vllm-root /tmp/b \
  --out-dir /tmp/o --variants base,pdl_main,pdl_late,pdl_main_late \
  --groups triton:32/8/128:16,triton:24/4/256:16,triton:32/8/128:64,triton:24/4/256:64,triton:24/4/256:832,triton:8/1/128:832,triton:16/2/256:832,triton:32/8/128:832,rocm:24/4/256:832,rocm:32/8/128:832 \
  --batches 1,2,4,8,16,64,256 --seq-lens 64,128,256,512,1024,4096,32768 --max-tokens 524288 \
  --workers 12 --reps 5 > /tmp/o/decode_pdl2_h200.log 2>&1
echo "variants rc=$?"; tail -n 5 /tmp/o/decode_pdl2_h200.log
cp /tmp/o/decode_short_context_variants.json /tmp/o/decode_pdl2.json 2>/dev/null
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
E=benchmarks/experiments/decode_short_kernel_times.py
"$NCU" --help | grep -i -A1 sampling | head -12
timeout 150 "$NCU" --profile-from-start off --clock-control none --import-source yes \
  --section SourceCounters --section WarpStateStats --section LaunchStats --section Occupancy \
  $("$NCU" --help | grep -o -m1 -- '--warp-sampling-interval\|--sampling-interval') 0 -k "regex:_decode_page_contiguous_kernel|kernel_unified_attention_3d" \
  -o /tmp/o/stalls python3 $E --run --heads 32/8/128,24/4/256 --pages 16 --batches 1 \
  --seq-lens 128 --reps 1 --order /tmp/o/stalls_order.json > /tmp/o/stalls_ncu_h200.log 2>&1
echo "ncu rc=$?"; tail -n 3 /tmp/o/stalls_ncu_h200.log
"$NCU" -i /tmp/o/stalls.ncu-rep --page source --csv --print-source sass > /tmp/o/stalls_sass.csv 2> /tmp/o/stalls_sass.err
echo "sass rc=$?"; head -c 600 /tmp/o/stalls_sass.err
"$NCU" -i /tmp/o/stalls.ncu-rep --page details --csv > /tmp/o/stalls_details.csv 2>&1
echo "details rc=$?"
gzip -f /tmp/o/stalls_sass.csv /tmp/o/stalls_details.csv
tar czf "$OUT/call63.tgz" -C /tmp/o --exclude='*.ncu-rep' .
cp /tmp/o/stalls.ncu-rep "$OUT/" 2>/dev/null
