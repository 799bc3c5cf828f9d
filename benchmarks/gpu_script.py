# SPDX-License-Identifier: Apache-2.0
"""Run one of vLLM's own benchmark scripts from a fork tree on a GPU machine
that has torch and Triton but not vLLM's serving dependencies:

    python3 benchmarks/gpu_script.py TREE TREE/benchmarks/attention_benchmarks/benchmark.py [args ...]

The tree is imported as gpu_pytest.py imports it (stand-ins for serving
packages the attention path never calls); the script then runs unchanged,
from its own folder, as `python3 SCRIPT args` would.
"""

import os
import runpy
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpu_pytest  # noqa: E402

if __name__ == "__main__":
    root, script, *args = sys.argv[1:]
    gpu_pytest.install(os.path.abspath(root))
    stand_ins = sys.modules.pop("common")
    # The script's folder may hold modules named like ours (common.py).
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    # Its imports first (not as __main__), standing in for what is missing.
    stand_ins.import_with_stand_ins(lambda: runpy.run_path(script, run_name="imports"))
    sys.argv = [script, *args]
    runpy.run_path(script, run_name="__main__")
