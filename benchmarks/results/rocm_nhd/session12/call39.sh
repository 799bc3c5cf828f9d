#!/usr/bin/env bash
# GPU call 39 (session 12, issue 14): call 38 re-run on the op as exported after the review mends (wave-split length
# threshold 1024, a compile-time constant of the wave-split kernels only;
# splits of an unsplit sequence exit at once) against the session-11 op
# (wave_min0: the same kernels without the threshold code), threshold 2048,
# the op without the wave rule, and the path each backend runs today; the
# op's and both backends' decode test files in bf16 on the H200.
set -u
cd "$(dirname "$0")/../../../.."
for d in whl whl_numpy; do
  python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/$d .gpu/$d/*.whl 2>&1 | tail -1
done
rm -rf /tmp/b; mkdir -p /tmp/b /tmp/o39
tar xzf .gpu/bundle-v0.33.0.tgz -C /tmp/b
export PYTHONUNBUFFERED=1
PYTHONPATH=/tmp/b:/tmp/whl timeout 300 python3 benchmarks/experiments/decode_xpacked_v_layout.py --vllm-root /tmp/b --out-dir /tmp/o39 \
  --variants base,wave_min0,wave_min2048,no_wave_rule \
  --groups triton:24/4/256:832,triton:16/2/256:544,rocm:24/4/256:832,rocm:16/2/256:544,triton:32/8/128:832,rocm:8/1/128:832 \
  --batches 1,4,16,67,80,96,112,160,192 --seq-lens 256,512,1024,2048,4096,8192,16384 --max-tokens 4194304 \
  > /tmp/o39/decode_wave_min_len_recheck_h200.log 2>&1; echo "sweep rc=$?"
mv /tmp/o39/decode_xpacked_v_layout.json /tmp/o39/decode_wave_min_len_recheck.json
cp -r /tmp/o39/* $OUT/
PYTHONPATH=/tmp/whl_numpy:/tmp/b:/tmp/whl timeout 260 python3 benchmarks/gpu_pytest.py /tmp/b -q -n 14 -rs \
  tests/kernels/attention/test_decode_page_contiguous.py tests/v1/attention/test_triton_attn_page_contiguous_decode.py \
  tests/v1/attention/test_rocm_attn_page_contiguous_decode.py > /tmp/o39/gpu_tests_decode_h200.log 2>&1
echo "tests rc=$?"; tail -4 /tmp/o39/gpu_tests_decode_h200.log
cp -r /tmp/o39/* $OUT/
