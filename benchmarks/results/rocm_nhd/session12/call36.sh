#!/usr/bin/env bash
# Ran against an intermediate form of the op (README section 8); re-run now,
# it measures the exported op.
# GPU call 36 (session 12, issue 14): the wave rule's length threshold. The
# op as built (sequences under 1024 tokens are not split past one wave) against
# the thresholds 0 (the op as of session 11), 512 and 2048, the op without the
# wave rule, and the path each backend runs today, at 256-4096 tokens; the
# op's and both backends' decode test files in bf16 on the H200.
set -u
cd "$(dirname "$0")/../../../.."
for d in whl whl_numpy; do
  python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/$d .gpu/$d/*.whl 2>&1 | tail -1
done
rm -rf /tmp/b; mkdir -p /tmp/b /tmp/o36
tar xzf .gpu/bundle-v0.33.0.tgz -C /tmp/b
export PYTHONUNBUFFERED=1
PYTHONPATH=/tmp/b:/tmp/whl timeout 360 python3 benchmarks/experiments/decode_xpacked_v_layout.py --vllm-root /tmp/b --out-dir /tmp/o36 \
  --variants base,wave_min0,wave_min512,wave_min2048,no_wave_rule \
  --groups triton:24/4/256:832,triton:16/2/256:544,rocm:24/4/256:832,rocm:16/2/256:544 \
  --batches 1,64,67,80,96,112,160,192 --seq-lens 256,512,768,1024,1536,2048,4096 --max-tokens 4194304 \
  > /tmp/o36/decode_wave_min_len_h200.log 2>&1; echo "sweep rc=$?"
mv /tmp/o36/decode_xpacked_v_layout.json /tmp/o36/decode_wave_min_len.json
cp -r /tmp/o36/* $OUT/
PYTHONPATH=/tmp/whl_numpy:/tmp/b:/tmp/whl timeout 200 python3 benchmarks/gpu_pytest.py /tmp/b -q -n 14 -rs \
  tests/kernels/attention/test_decode_page_contiguous.py tests/v1/attention/test_triton_attn_page_contiguous_decode.py \
  tests/v1/attention/test_rocm_attn_page_contiguous_decode.py > /tmp/o36/gpu_tests_decode_h200.log 2>&1
echo "tests rc=$?"; tail -4 /tmp/o36/gpu_tests_decode_h200.log
cp -r /tmp/o36/* $OUT/
