#!/bin/bash
# GPU run for the page-contiguous decode op (helper "decode").
set -o pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site "$HERE"/whl/*.whl || exit 1
mkdir -p /tmp/v && tar xzf "$HERE/vllm.tgz" -C /tmp/v || exit 1
# Empty stand-in: vllm/platforms/cuda.py imports it unconditionally; the
# Triton ops never call it.
touch /tmp/v/vllm/_C_stable_libtorch.py
export PYTHONPATH=/tmp/v:/tmp/site PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv
MODE=${1:-full}
if [ "$MODE" != "benchonly" ]; then
  (cd /tmp/v && timeout ${TEST_TIMEOUT:-110} python3 -m pytest --noconftest -q -p no:cacheprovider -n 12 \
      tests/kernels/attention/test_decode_page_contiguous.py 2>&1 | tee $OUT/tests.log | tail -8)
fi
cd "$ROOT"
timeout ${BENCH_TIMEOUT:-290} python3 benchmarks/kernels/bench_decode_page_contiguous.py \
  --vllm-root /tmp/v --out-dir $OUT ${BENCH_ARGS:---sweep --time-budget 250} 2>&1 | tee $OUT/bench.log | tail -70
