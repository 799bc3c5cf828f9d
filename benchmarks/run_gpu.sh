#!/usr/bin/env bash
# Every GPU test and benchmark of the series (= tox -e gpu), on a machine with a
# GPU, torch and Triton: no network, no compiled vLLM.
#
#   ./vllm-fork bundle                       # where the fork is built
#   benchmarks/run_gpu.sh .gpu/bundle-v0.34.0.tgz [--quick]   # on the GPU machine
#
# The bundle may also be benchmarks/gpu_bundle_xz.sh's .tar.xz (without the
# model classes, so test_triton_attn_paged_prefill.py, whose configs inspect
# them, fails). Python wheels the GPU machine lacks (serving packages
# the backends import) are unpacked from .gpu/site.tar.xz (gpu_bundle_xz.sh)
# or installed from .gpu/whl/*.whl if present. Results go to $OUT, else benchmarks/results/,
# one folder per benchmark (benchmarks/run.py's names). SKIP_TESTS=1 leaves
# out the kernel tests, SKIP_BENCHMARKS=1 the benchmarks.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bundle=${1:?usage: benchmarks/run_gpu.sh BUNDLE [--quick]}
shift
out=${OUT:-$root/benchmarks/results}
mkdir -p "$out"
if [ -f "$root/.gpu/site.tar.xz" ]; then
  mkdir -p /tmp/vllm-fork-site
  tar xJf "$root/.gpu/site.tar.xz" -C /tmp/vllm-fork-site
  export PYTHONPATH=/tmp/vllm-fork-site${PYTHONPATH:+:$PYTHONPATH}
elif compgen -G "$root/.gpu/whl/*.whl" >/dev/null; then
  python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/vllm-fork-site "$root"/.gpu/whl/*.whl
  export PYTHONPATH=/tmp/vllm-fork-site${PYTHONPATH:+:$PYTHONPATH}
fi
work=$(mktemp -d)
tar xf "$bundle" -C "$work"
export PYTHONPATH=$work${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
# The series' kernel and backend tests at real shapes (bf16 on the GPU).
# gpu_pytest.py stands in for serving packages the machine lacks and runs
# pytest without vLLM's conftest. The out-of-bounds guards run their child
# under the Triton interpreter, which needs NumPy < 2.4 where Triton predates
# the fix for triton-lang/triton#9171 (carry numpy 2.3.x in .gpu/whl there).
# vLLM's own test files that a patch extends (test_prefix_prefill.py,
# test_triton_unified_attention.py): only the series' tests in them run.
# test_hybrid_model_logprobs_match serves a model: it needs a vLLM build with
# compiled extensions, which the bundle lacks, and is left out.
own_tests=(
  "tests/kernels/attention/test_prefix_prefill.py::test_context_attention_fwd_block_table_row_end"
  "tests/kernels/attention/test_triton_unified_attention.py::test_triton_unified_attn_sm90_prefill_launch"
  "tests/kernels/attention/test_triton_unified_attention.py::test_unified_attention_row_count_compiles_nothing"
)
tests=$(grep -E '^tests/(kernels|v1)/' "$work/series-tests.txt" \
  | grep -vE 'test_prefix_prefill|test_triton_unified_attention.py' || true)
for t in "${own_tests[@]}"; do
  if grep -q "^${t%%::*}" "$work/series-tests.txt"; then tests="$tests $t"; fi
done
tp=tests/v1/attention/test_triton_attn_paged_prefill.py
if grep -q "^$tp" "$work/series-tests.txt"; then
  tests="$tests --deselect $tp::test_hybrid_model_logprobs_match"
  # Its builders build vLLM's config objects, whose model-class inspection
  # runs in a subprocess that imports vllm_flash_attn on the CUDA platform
  # (compiled extensions the bundle lacks). One build on vLLM's CPU platform
  # caches that inspection for the GPU run.
  (cd "$work" && CUDA_VISIBLE_DEVICES= VLLM_TARGET_DEVICE=cpu python3 "$root/benchmarks/gpu_pytest.py" "$work" \
    -q -p no:cacheprovider "$tp::test_other_shapes_keep_one_unified_launch[default]") > /dev/null 2>&1
fi
# pytest-xdist (carried in .gpu/whl) runs the files across the CPU cores
# (-v names each test as it ends, so a run cut short still names failures):
# compiling the Triton kernels is most of the time.
# Four workers: the fp32 references of the largest kernel cases take ~10 GiB
# each, and 12 workers ran an 80 GiB H100 out of memory.
par=$(python3 -c "import xdist" 2>/dev/null && echo "-n 4")
if [ -n "$tests" ] && [ "${SKIP_TESTS:-0}" != 1 ]; then
  mkdir -p "$out/gpu_tests"
  (cd "$work" && python3 "$root/benchmarks/gpu_pytest.py" "$work" -v $par -rfEs $tests) 2>&1 | tee "$out/gpu_tests/gpu-tests.log" | grep -E "FAILED|ERROR|passed|failed" | tail -40
fi
# The prefix_prefill block-table bound under compute-sanitizer: the fixed
# kernel must show 0 errors, the release's (bundle base/) invalid reads.
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
if [ -n "$cs" ]; then
  mkdir -p "$out/prefix_prefill"
  for k in fixed unfixed; do
    PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout 300 "$cs" --tool memcheck --print-limit 3 \
      python3 "$root/benchmarks/kernels/prefix_prefill_row_end.py" "$work" $k \
      "$work/base/vllm/v1/attention/ops/prefix_prefill.py" > "$out/prefix_prefill/sanitizer_$k.txt" 2>&1
    grep -hE "ERROR SUMMARY|launched" "$out/prefix_prefill/sanitizer_$k.txt"
  done
fi
if [ "${SKIP_BENCHMARKS:-0}" != 1 ]; then
  python3 "$root/benchmarks/run.py" --vllm-root "$work" --out-dir "$out" "$@"
fi
