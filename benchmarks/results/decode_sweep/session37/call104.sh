#!/usr/bin/env bash
# GPU call 104 (session 37): every GPU test of the v0.33.0 series (all 20
# patches; patch 20's route tests had not run on a GPU) through
# benchmarks/run_gpu.sh without its benchmarks: the kernel and backend test
# files of the bundle's series-tests.txt, the page-alignment config tests on
# vLLM's CPU platform, and the prefix_prefill bound under compute-sanitizer.
# Carries .gpu/site.tar.xz and .gpu/bundle-v0.33.0.tar.xz
# (benchmarks/gpu_call_bundle.sh v0.33.0), which now fit beside the tree
# with the openai and openai-harmony wheels the backend tests import.
# BASE=v0.29.0 runs the v0.29.0 series (carry its bundle instead).
set -u
cd "$(dirname "$0")/../../../.."
base=${BASE:-v0.33.0}
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1 | grep -o 'H[0-9][0-9]*' | head -n 1 | tr H h)
mkdir -p "$OUT/tests_${base}_$gpu"
OUT=$OUT/tests_${base}_$gpu SKIP_BENCHMARKS=1 timeout 540 \
  benchmarks/run_gpu.sh ".gpu/bundle-$base.tar.xz"
echo "run_gpu rc=$?"
