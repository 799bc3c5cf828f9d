#!/usr/bin/env bash
# Every GPU test and benchmark of the series (= tox -e gpu), on a machine with a
# GPU, torch and Triton: no network, no compiled vLLM.
#
#   ./vllm-fork bundle                       # where the fork is built
#   benchmarks/run_gpu.sh .gpu/bundle-v0.33.0.tgz [--quick]   # on the GPU machine
#
# Python wheels the GPU machine lacks (pyzmq for chunked_prefill_paged_decode)
# are installed from .gpu/whl/*.whl if present. Results go to $OUT, else
# benchmarks/results/latest/.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bundle=${1:?usage: benchmarks/run_gpu.sh BUNDLE [--quick]}
shift
out=${OUT:-$root/benchmarks/results/latest}
mkdir -p "$out"
if compgen -G "$root/.gpu/whl/*.whl" >/dev/null; then
  python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/vllm-fork-site "$root"/.gpu/whl/*.whl
  export PYTHONPATH=/tmp/vllm-fork-site${PYTHONPATH:+:$PYTHONPATH}
fi
work=$(mktemp -d)
tar xzf "$bundle" -C "$work"
export PYTHONPATH=$work${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
# The series' kernel tests at real shapes (bf16 on the GPU). vLLM's
# tests/conftest.py needs packages a bare GPU machine lacks, hence --noconftest.
tests=$(grep '^tests/kernels/' "$work/series-tests.txt" || true)
if [ -n "$tests" ]; then
  # Dispatch tests that import the backend need vLLM's serving dependencies
  # (pydantic, ...); where they are missing those files report collection errors.
  (cd "$work" && python3 -m pytest -q -p no:cacheprovider --noconftest --continue-on-collection-errors $tests) 2>&1 | tee "$out/gpu-tests.log" | tail -5
fi
python3 "$root/benchmarks/run.py" --vllm-root "$work" --out-dir "$out" "$@"
