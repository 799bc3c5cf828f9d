#!/usr/bin/env bash
# GPU call 35 (session 11, issue 14): the decode op with the wave rule
# (patch 2: a grid between one and two waves, at <= 2 programs per SM, split
# to end near a whole wave) against the op without it and the path each
# backend runs today, batches around one and two waves; the op's and
# TRITON_ATTN's test files in bf16 on the H200.
set -u
cd "$(dirname "$0")/.."
for d in whl whl_numpy; do
  python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/$d .gpu/$d/*.whl 2>&1 | tail -1
done
rm -rf /tmp/b; mkdir -p /tmp/b /tmp/o35
tar xzf .gpu/bundle-v0.33.0.tgz -C /tmp/b
export PYTHONUNBUFFERED=1
PYTHONPATH=/tmp/b:/tmp/whl timeout 330 python3 benchmarks/experiments/decode_xpacked_v_layout.py --vllm-root /tmp/b --out-dir /tmp/o35 \
  --variants base,no_wave_rule \
  --groups triton:24/4/256:832,triton:16/2/256:544,triton:24/4/256:544,triton:16/2/256:832,rocm:24/4/256:832,rocm:16/2/256:544,triton:32/8/128:832,triton:8/1/128:832 \
  --batches 1,16,33,48,64,67,80,96,112,128,132,160,192,224,256 --seq-lens 256,1024,4096,16384 --max-tokens 4194304 \
  > /tmp/o35/decode_wave_rule_h200.log 2>&1; echo "sweep rc=$?"
grep "base  *:\|no_wave_rule  *:" /tmp/o35/decode_wave_rule_h200.log
mv /tmp/o35/decode_xpacked_v_layout.json /tmp/o35/decode_wave_rule.json
PYTHONPATH=/tmp/whl_numpy:/tmp/b:/tmp/whl timeout 200 python3 benchmarks/gpu_pytest.py /tmp/b -q -n 14 -rs \
  tests/kernels/attention/test_decode_page_contiguous.py tests/v1/attention/test_triton_attn_page_contiguous_decode.py \
  tests/v1/attention/test_rocm_attn_page_contiguous_decode.py > /tmp/o35/gpu_tests_decode_h200.log 2>&1
echo "tests rc=$?"; tail -4 /tmp/o35/gpu_tests_decode_h200.log
cp -r /tmp/o35/* $OUT/
