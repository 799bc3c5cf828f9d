# Sourced by a GPU call's script (benchmarks/results/**/callN.sh) on the GPU
# machine, from the repository root: unpacks the wheels (.gpu/site.tar.xz)
# into /tmp/site and the v0.33.0 fork's bundle (.gpu/bundle-v0.33.0.tar.xz),
# both made by benchmarks/gpu_call_bundle.sh, into /tmp/b, and exports
# PYTHONPATH for both. The call writes its results under /tmp/o (made here)
# and copies them to $OUT; $gpu (h100, h200) names its logs after the GPU.
# GPU_SITE names another wheels archive (session 40's call 116 carried
# .gpu/site-ops.tar.xz, site.tar.xz less openai and openai_harmony, which
# only the backends import, to stay within the carry limit).
# (Calls up to session 36 carried .gpu/whl and .gpu/bundle-v0.33.0.tgz, which
# this file then installed and unpacked the same way.)
mkdir -p /tmp/site /tmp/b /tmp/o
rm -rf /tmp/b/*
tar xJf "${GPU_SITE:-.gpu/site.tar.xz}" -C /tmp/site
tar xJf .gpu/bundle-v0.33.0.tar.xz -C /tmp/b
export PYTHONPATH=/tmp/b:/tmp/site PYTHONUNBUFFERED=1
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1 | grep -o 'H[0-9][0-9]*' | head -n 1 | tr H h)
