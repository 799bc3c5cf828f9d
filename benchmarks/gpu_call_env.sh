# Sourced by a GPU call's script (benchmarks/results/**/callN.sh) on the GPU
# machine, from the repository root: installs the wheels carried in .gpu/whl,
# unpacks the v0.33.0 fork's bundle (.gpu/bundle-v0.33.0.tgz, made by
# benchmarks/gpu_call_bundle.sh) into /tmp/b and
# exports PYTHONPATH for both. The call writes its results under /tmp/o (made
# here) and copies them to $OUT; $gpu (h100, h200) names its logs after the GPU.
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .gpu/whl/*.whl 2>&1 | tail -1
mkdir -p /tmp/b /tmp/o
rm -rf /tmp/b/*
tar xzf .gpu/bundle-v0.33.0.tgz -C /tmp/b
export PYTHONPATH=/tmp/b:/tmp/site PYTHONUNBUFFERED=1
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1 | grep -o 'H[0-9][0-9]*' | head -n 1 | tr H h)
