# SPDX-License-Identifier: Apache-2.0
"""CPU time of one bisect step's child, as the step server runs it: forked
(imports of vLLM's modules, then pytest on one small test file), first with
nothing preloaded, then twice after preloading the third-party modules such a
step loads. Run in a copy of a fork tree, with TRITON_INTERPRET=1
CUDA_VISIBLE_DEVICES= PYTHONDONTWRITEBYTECODE=1 and the fork venv's python."""

import importlib
import os
import subprocess
import sys
import time

TEST = "tests/kernels/attention/test_rocm_vendor_paged_prefill.py"
IMPORTS = "vllm, vllm.v1.attention.backends.rocm_attn, vllm.v1.attention.backends.triton_attn"
# Lists the modules a step loads from outside the tree (what the server preloads).
LIST_MODULES = f"""
import os, sys
import {IMPORTS}
import pytest
pytest.main(["-q", "-p", "no:cacheprovider", "--collect-only", "{TEST}"])
root = os.getcwd()
loaded = [
    n for n, m in list(sys.modules.items())
    if isinstance(getattr(m, "__file__", None), str)
    and not os.path.realpath(m.__file__).startswith(root)
]
print("MODS", " ".join(loaded))
"""


def step() -> None:
    pid = os.fork()
    if pid == 0:
        start = time.process_time()
        importlib.import_module("vllm")
        for name in IMPORTS.split(", "):
            importlib.import_module(name)
        imported = time.process_time()
        import pytest

        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.dup2(null, 2)
        pytest.main(["-q", "-p", "no:cacheprovider", TEST])
        done = time.process_time()
        os.write(3, f"child imports {imported - start:.2f} total {done - start:.2f}\n".encode())
        os._exit(0)
    os.waitpid(pid, 0)


def main() -> None:
    os.dup2(1, 3)
    step()  # nothing preloaded: what the first step costs
    out = subprocess.run(
        [sys.executable, "-c", LIST_MODULES], capture_output=True, text=True
    ).stdout
    mods = next(line for line in out.splitlines() if line.startswith("MODS")).split()[1:]
    start = time.process_time()
    for name in mods:
        try:
            importlib.import_module(name)
        except BaseException:
            pass
    print(f"preload {len(mods)} modules {time.process_time() - start:.2f}", flush=True)
    step()
    step()


if __name__ == "__main__":
    main()
