#!/usr/bin/env bash
# GPU call 23 (session 9, issue 14): paged_prefill_aligned's sm_90 configs on NHD.
set -u
cd "$(dirname "$0")/.."
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/whl .gpu/whl/*.whl 2>&1 | tail -1
mkdir -p /tmp/b /tmp/o
tar xzf .gpu/bundle-v0.33.0.tgz -C /tmp/b
export PYTHONUNBUFFERED=1 PYTHONPATH=/tmp/b:/tmp/whl
timeout 330 python3 benchmarks/experiments/sweep_prefill_nhd_configs.py --out /tmp/o \
  > /tmp/o/sweep_prefill_nhd_configs_h200.log 2>&1; echo "sweep rc=$?"
grep "^{" /tmp/o/sweep_prefill_nhd_configs_h200.log
cp -r /tmp/o/* $OUT/
