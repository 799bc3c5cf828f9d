#!/usr/bin/env bash
# Builds .gpu/bundle-<base>.tgz for a GPU call (benchmarks/results/**/callN.sh,
# which source gpu_call_env.sh): the fork's bundle (./vllm-fork bundle) less
# what no call imports, so that it and the wheels of .gpu/whl fit the device
# tool's 64 MiB carry beside the tracked tree (the full bundle is 11 MiB, this
# one about 6.4 MiB): the API server's static files, vllm/benchmarks, the
# tuned-config JSON files, model definitions other than the registry and its
# interfaces, and kernel tests other than the attention ones.
#
#   benchmarks/gpu_call_bundle.sh [v0.33.0]
set -euo pipefail
base=${1:-v0.33.0}
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
tar czf "$root/.gpu/bundle-$base.tgz" .
ls -l "$root/.gpu/bundle-$base.tgz"
