# SPDX-License-Identifier: Apache-2.0
"""Run tools/triton_targets.py with each compile's wall time summed per
(target, check, kernel), printed to stderr; arguments as the tool's."""

import collections
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tools"))
import triton_targets as tt  # noqa: E402

original = tt.Compiler.compile
spent: dict[tuple, float] = collections.defaultdict(float)
count: collections.Counter = collections.Counter()


def timed(self, fn, args, kwargs):
    start = time.time()
    original(self, fn, args, kwargs)
    key = (self.target.name, self.case.split()[0], fn.__name__)
    spent[key] += time.time() - start
    count[key] += 1


tt.Compiler.compile = timed
begin = time.time()
try:
    tt.main(sys.argv[1:])
finally:
    print("TOTAL", round(time.time() - begin, 1), file=sys.stderr)
    for key, seconds in sorted(spent.items(), key=lambda x: -x[1]):
        print(f"{seconds:7.1f} s {count[key]:3d}  {key}", file=sys.stderr)
