#!/usr/bin/env bash
# CPU time of one kernel-test workload (8 tests of test_decode_page_contiguous.py
# under the Triton interpreter, pytest start-up included) when 1, 2, 4 or 6
# copies run at once on this 2-core machine. Run on an idle machine:
#   benchmarks/results/ci_time/oversubscription.sh .fork/v0.33.0 .fork/venvs/v0.33.0
set -u
tree=$(realpath "$1") venv=$(realpath "$2") tmp=$(mktemp -d)
one() {
  cd "$tree" && TRITON_INTERPRET=1 CUDA_VISIBLE_DEVICES= /usr/bin/time -f "%U %S %e" \
    "$venv/bin/python" -m pytest -q -p no:cacheprovider \
    tests/kernels/attention/test_decode_page_contiguous.py -k "3-splits and head_config0 and dtype0" 2>&1 | tail -n 1
}
for n in 1 2 4 6; do
  for i in $(seq "$n"); do one > "$tmp/$n.$i" & done
  wait
  cat "$tmp/$n".* | awk -v n="$n" '{c += $1 + $2; w = ($3 > w) ? $3 : w}
    END {printf "%d at once: %.1f CPU-s per copy, %.1f s wall\n", n, c / NR, w}'
done
rm -r "$tmp"
