#!/usr/bin/env bash
# Ran against an intermediate form of the op (README section 8); re-run now,
# it measures the exported op.
# GPU call 37 (session 12, issue 14): the wave rule's length threshold with
# the splits of an unsplit sequence exiting at once. The op as built
# (threshold 1024) against thresholds 0, 2048, 4096, 8192, the session-11
# kernels (s11: no threshold), the op without the wave rule, and the path
# each backend runs today, at 256-16K tokens, batches 1-192; the op's and
# both backends' decode test files in bf16 on the H200.
set -u
cd "$(dirname "$0")/../../../.."
for d in whl whl_numpy; do
  python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/$d .gpu/$d/*.whl 2>&1 | tail -1
done
rm -rf /tmp/b; mkdir -p /tmp/b /tmp/o37
tar xzf .gpu/bundle-v0.33.0.tgz -C /tmp/b
export PYTHONUNBUFFERED=1
PYTHONPATH=/tmp/b:/tmp/whl timeout 400 python3 benchmarks/experiments/decode_xpacked_v_layout.py --vllm-root /tmp/b --out-dir /tmp/o37 \
  --variants base,s11,wave_min0,wave_min2048,wave_min4096,wave_min8192,no_wave_rule \
  --groups triton:24/4/256:832,triton:16/2/256:544,rocm:24/4/256:832,rocm:16/2/256:544,triton:32/8/128:832,rocm:8/1/128:832 \
  --batches 1,4,16,67,80,96,160,192 --seq-lens 256,512,1024,2048,4096,8192,16384 --max-tokens 4194304 \
  > /tmp/o37/decode_wave_min_len_exit_h200.log 2>&1; echo "sweep rc=$?"
mv /tmp/o37/decode_xpacked_v_layout.json /tmp/o37/decode_wave_min_len_exit.json
cp -r /tmp/o37/* $OUT/
PYTHONPATH=/tmp/whl_numpy:/tmp/b:/tmp/whl timeout 150 python3 benchmarks/gpu_pytest.py /tmp/b -q -n 14 -rs \
  tests/kernels/attention/test_decode_page_contiguous.py tests/v1/attention/test_triton_attn_page_contiguous_decode.py \
  tests/v1/attention/test_rocm_attn_page_contiguous_decode.py > /tmp/o37/gpu_tests_decode_h200.log 2>&1
echo "tests rc=$?"; tail -4 /tmp/o37/gpu_tests_decode_h200.log
cp -r /tmp/o37/* $OUT/
