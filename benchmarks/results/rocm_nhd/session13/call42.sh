#!/usr/bin/env bash
# GPU call 42 (session 13, issue 14): the op with the wave-split kernel
# capped at 168 registers on TRITON_ATTN's layout at head 256 (base)
# against the same op without the cap (nocap: session 12's op), without the
# cap and the wave-split kernel at 2 stages (wave_st2), without the wave
# rule, and unified_attention; six head-256 groups, pages 64-832, batches
# 1-198 (the split batches of both head shapes and their edges); then the
# op's and both backends' decode test files in bf16 on the H200.
set -u
cd "$(dirname "$0")/../../../.."
for d in whl_slim whl_numpy; do
  python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/$d .gpu/$d/*.whl 2>&1 | tail -1
done
rm -rf /tmp/b; mkdir -p /tmp/b /tmp/o42
tar xzf .gpu/bundle-v0.33.0.tgz -C /tmp/b
export PYTHONUNBUFFERED=1
PYTHONPATH=/tmp/b:/tmp/whl_slim timeout 330 python3 benchmarks/experiments/decode_xpacked_v_layout.py --vllm-root /tmp/b --out-dir /tmp/o42 \
  --variants base,nocap,wave_st2,no_wave_rule \
  --groups triton:16/2/256:544,triton:24/4/256:832,triton:16/2/256:832,triton:24/4/256:64,triton:16/2/256:64,triton:24/4/256:544 \
  --batches 1,4,16,67,80,96,99,112,133,160,192,198 --seq-lens 256,512,1024,2048,4096,8192,16384 --max-tokens 4194304 \
  > /tmp/o42/call42_decode_regcap_h200.log 2>&1; echo "sweep rc=$?"
mv /tmp/o42/decode_xpacked_v_layout.json /tmp/o42/call42_decode_regcap.json
tail -2 /tmp/o42/call42_decode_regcap_h200.log
cp -r /tmp/o42/* $OUT/
PYTHONPATH=/tmp/whl_numpy:/tmp/b:/tmp/whl_slim timeout 200 python3 benchmarks/gpu_pytest.py /tmp/b -q -n 14 -rs \
  tests/kernels/attention/test_decode_page_contiguous.py tests/v1/attention/test_triton_attn_page_contiguous_decode.py \
  tests/v1/attention/test_rocm_attn_page_contiguous_decode.py > /tmp/o42/call42_gpu_tests_decode_h200.log 2>&1
echo "tests rc=$?"; tail -4 /tmp/o42/call42_gpu_tests_decode_h200.log
cp -r /tmp/o42/* $OUT/
