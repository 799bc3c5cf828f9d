#!/usr/bin/env bash
# GPU call 10 (session 7): every series test file on the H200 (the out-of-bounds
# guards' children under the Triton interpreter, NumPy 2.3.5); the
# page-alignment file on vLLM's CPU platform.
set -u
cd "$(dirname "$0")/.."
python3 -c "import sys, numpy, triton, torch; print('box: python', sys.version.split()[0], 'numpy', numpy.__version__, 'triton', triton.__version__, 'torch', torch.__version__)" | tee /tmp/box.txt
for d in whl whl_numpy whl_extra; do
  [ -d .gpu/$d ] || continue
  python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/$d .gpu/$d/*.whl 2>&1 | tail -1
done
mkdir -p /tmp/b /tmp/o
tar xzf .gpu/bundle-v0.33.0.tgz -C /tmp/b
cp /tmp/box.txt /tmp/o/
export PYTHONUNBUFFERED=1
[ -d .gpu/whl_numpy ] && {
# B: every series test file but the page-alignment one, NumPy 2.3.5 first on the path.
export PYTHONPATH=/tmp/whl_numpy:/tmp/b:/tmp/whl
T=$(grep -E '^tests/' /tmp/b/series-tests.txt | grep -v test_prefix_prefill | grep -v page_alignment)
timeout 330 python3 benchmarks/gpu_pytest.py /tmp/b -q -n 14 -rs $T \
  tests/kernels/attention/test_prefix_prefill.py::test_context_attention_fwd_matches_paged_reference \
  tests/kernels/attention/test_prefix_prefill.py::test_context_attention_fwd_block_table_row_end \
  > /tmp/o/gpu_tests_session7_h200.log 2>&1
echo "B rc=$?"; tail -12 /tmp/o/gpu_tests_session7_h200.log
}
[ -d .gpu/whl_extra ] && {
# C: the page-alignment file (config objects, no kernel) on vLLM's CPU platform,
# with the serving packages its model-registry subprocess imports.
PYTHONPATH=/tmp/whl_numpy:/tmp/b:/tmp/whl_extra:/tmp/whl VLLM_TARGET_DEVICE=cpu \
  timeout 200 python3 benchmarks/gpu_pytest.py /tmp/b -q -rs tests/v1/attention/test_rocm_paged_prefill_page_alignment.py \
  > /tmp/o/page_alignment_session7_h200.log 2>&1
echo "C rc=$?"; tail -15 /tmp/o/page_alignment_session7_h200.log
}
cp /tmp/o/* $OUT/
