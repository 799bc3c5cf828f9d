#!/usr/bin/env bash
# CPU time of one kernel-test run (test_prefix_prefill.py's fp32-reference test,
# 12 cases, pytest start-up included) alone and two side by side, with torch's
# default OpenMP threads (one per core) and with OMP_NUM_THREADS=1. Idle machine:
#   benchmarks/results/ci_time/omp_threads.sh .fork/v0.33.0 .fork/venvs/v0.33.0
set -u
tree=$(realpath "$1") venv=$(realpath "$2") tmp=$(mktemp -d)
one() {
  cd "$tree" && TRITON_INTERPRET=1 CUDA_VISIBLE_DEVICES= /usr/bin/time -f "%U %S %e" \
    "$venv/bin/python" -m pytest -q -p no:cacheprovider \
    "tests/kernels/attention/test_prefix_prefill.py::test_context_attention_fwd_matches_paged_reference" 2>&1 | tail -n 1
}
for omp in default 1; do
  for n in 1 2; do
    for i in $(seq "$n"); do
      ( [ "$omp" = default ] || export OMP_NUM_THREADS=$omp; one > "$tmp/$i" ) &
    done
    wait
    cat "$tmp"/[0-9]* | awk -v n="$n" -v omp="$omp" '{c += $1 + $2; w = ($3 > w) ? $3 : w}
      END {printf "OMP threads %s, %d at once: %.1f CPU-s per run, %.1f s wall\n", omp, n, c / NR, w}'
    rm -f "$tmp"/[0-9]*
  done
done
rm -r "$tmp"
