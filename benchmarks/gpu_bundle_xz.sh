#!/usr/bin/env bash
# Builds a smaller GPU bundle and the wheels it needs, packed with xz, for a
# GPU machine that takes the working tree and .gpu/ up to a size limit
# (benchmarks/run_gpu.sh takes both):
#
#   .gpu/bundle-<base>.tar.xz  the fork's bundle (./vllm-fork bundle) less what no
#       benchmark or test imports: the API server's static files, vllm/benchmarks, the
#       tuned-config JSON files, model definitions other than the registry and
#       its interfaces, and kernel tests other than the attention ones (29 MB
#       unpacked, 4.4 MB packed; the full bundle is 11 MB as a .tgz). The
#       page test of test_triton_attn_paged_prefill.py needs the full bundle
#       (it inspects the Qwen model classes); it runs on vLLM's CPU platform,
#       as in CI;
#   .gpu/site.tar.xz  the wheels of .gpu/whl (README.md, "On a GPU") installed
#       for CPython 3.12 on x86_64, the GPU machine's Python (12 MB of wheels,
#       7.4 MB packed: xz packs the installed files tighter than the wheels'
#       zip does).
#
#   benchmarks/gpu_bundle_xz.sh [v0.34.0]
set -euo pipefail
base=${1:-v0.34.0}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$root/vllm-fork" --base "$base" bundle -o "$work/full.tgz" | tail -n 1
mkdir "$work/b"
tar xzf "$work/full.tgz" -C "$work/b"
cd "$work/b"
rm -rf vllm/entrypoints/serve/instrumentator/static vllm.egg-info/SOURCES.txt vllm/benchmarks
find . -path '*configs*' -name '*.json' -delete
for f in tests/kernels/*; do
  case $(basename "$f") in
    attention | __init__.py | conftest.py | allclose_default.py | quant_utils.py | utils.py) ;;
    *) rm -rf "$f" ;;
  esac
done
rm -rf vllm/models/*/
for f in vllm/model_executor/models/*; do
  case $(basename "$f") in
    __init__.py | registry.py | interfaces*.py | utils.py) ;;
    *) rm -rf "$f" ;;
  esac
done
mkdir -p "$root/.gpu"
tar cJf "$work/bundle.tar.xz" .
mv "$work/bundle.tar.xz" "$root/.gpu/bundle-$base.tar.xz"
ls -l "$root/.gpu/bundle-$base.tar.xz"
python3 -m pip install -q --no-index --no-deps --no-compile --only-binary=:all: \
  --python-version 3.12 --implementation cp --abi cp312 --abi abi3 --abi none \
  --platform manylinux_2_28_x86_64 --platform manylinux2014_x86_64 \
  --target "$work/site" "$root"/.gpu/whl/*.whl
tar cJf "$work/site.tar.xz" -C "$work/site" .
mv "$work/site.tar.xz" "$root/.gpu/site.tar.xz"
ls -l "$root/.gpu/site.tar.xz"
