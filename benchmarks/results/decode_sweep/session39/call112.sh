#!/usr/bin/env bash
# GPU call 112 (session 39; it replaces session 38's call 111, which never
# ran), on the v0.33.0 series with patch 21 as committed
# (tile parts in batches of at most two programs):
# 1) the op's tile-parts and pinned-config tests on the GPU, where the sm_90
#    config spreads tiles;
# 2) the op as built against no_tile_parts (its config spreads none) and
#    unified_attention, bf16, batch 1-2, 64 tokens to 32K, after the KV-cache
#    write, three rounds: session 38's nine groups, and six shapes the route
#    admits that no session timed (12/2/128 on pages 544 and 1040, 4/1/128 on
#    page 16, GQA 2 and 3 with one KV head on pages 576 and 1088, 8/1/128 on
#    page 1040);
# 3) fp16 (never timed with tile parts): the page sweep's bench on
#    TRITON_ATTN's layout, block tables as wide as a 128K-token server's;
# 4) each kernel alone under Nsight Compute at the residual points (batch 1,
#    128 tokens) and at 1K tokens.
# Carries .gpu/site.tar.xz and .gpu/bundle-v0.33.0.tar.xz.
set -u
cd "$(dirname "$0")/../../../.."
source benchmarks/gpu_call_env.sh
timeout 90 python3 benchmarks/gpu_pytest.py /tmp/b -q -n 14 -rs \
  tests/kernels/attention/test_decode_page_contiguous.py -k "tile_parts or pinned" \
  > "$OUT/gpu_tests_tile_parts_$gpu.log" 2>&1
echo "tests rc=$?"; tail -n 3 "$OUT/gpu_tests_tile_parts_$gpu.log"
E=benchmarks/experiments/decode_short_context_variants.py
G=triton:16/2/256:16,triton:16/2/256:64,triton:16/2/256:544,triton:8/1/128:16,triton:8/1/128:128
G=$G,triton:8/1/128:832,triton:4/1/128:544,triton:8/2/256:128,triton:8/1/256:784
G=$G,triton:12/2/128:544,triton:12/2/128:1040,triton:4/1/128:16,triton:2/1/128:576
G=$G,triton:3/1/128:1088,triton:8/1/128:1040
timeout 240 python3 $E --vllm-root /tmp/b --out-dir /tmp/o --variants base,no_tile_parts \
  --groups "$G" --batches 1,2 --seq-lens 64,128,192,256,512,1024,32768 --max-tokens 524288 \
  --workers 14 --reps 5 --rounds 3 --cache-write > "/tmp/o/decode_tile_parts_$gpu.log" 2>&1
echo "rc=$?"; tail -n 3 "/tmp/o/decode_tile_parts_$gpu.log"
cp /tmp/o/decode_short_context_variants.json "$OUT/decode_tile_parts_$gpu.json"
cp /tmp/o/decode_tile_parts_$gpu.log "$OUT/"
timeout 90 python3 benchmarks/kernels/bench_decode_page_sweep.py --vllm-root /tmp/b --out-dir "$OUT" \
  --layouts triton --dtype float16 --tag decode_tile_parts_fp16 --pages 16,576,1088 \
  --heads 8/1/128,4/1/128,16/2/256,12/2/128 --batches 1,2 --seq-lens 128,256,1024,16384 \
  --max-model-len 131072 --prewarm-workers 14 --reps 4 --rounds 3 \
  > "$OUT/decode_tile_parts_fp16_$gpu.log" 2>&1
echo "fp16 rc=$?"; tail -n 3 "$OUT/decode_tile_parts_fp16_$gpu.log"
K=benchmarks/experiments/decode_short_kernel_times.py
KA="--heads 4/1/128,8/1/128 --pages 16,544 --batches 1 --seq-lens 128,1024"
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
timeout 60 python3 $K --graph $KA --out /tmp/o/short_graph.json > /tmp/o/short_graph_$gpu.log 2>&1
echo "graph rc=$?"
timeout 90 "$NCU" --profile-from-start off --clock-control none --csv \
  --metrics gpu__time_duration.sum,launch__grid_size,launch__registers_per_thread \
  --log-file /tmp/o/short_ncu.csv python3 $K --run $KA --order /tmp/o/short_order.json \
  > /tmp/o/short_ncu_$gpu.log 2>&1
echo "ncu rc=$?"; tail -n 3 /tmp/o/short_ncu_$gpu.log
python3 $K --parse /tmp/o/short_ncu.csv /tmp/o/short_order.json /tmp/o/short_graph.json \
  --out /tmp/o/decode_short_kernel_times.json > /tmp/o/decode_short_kernel_times.log 2>&1
echo "parse rc=$?"; head -n 30 /tmp/o/decode_short_kernel_times.log
gzip -f /tmp/o/short_ncu.csv
cp /tmp/o/short_graph.json /tmp/o/short_ncu.csv.gz /tmp/o/short_order.json /tmp/o/short_*.log \
  /tmp/o/decode_short_kernel_times.json /tmp/o/decode_short_kernel_times.log "$OUT/"
