# SPDX-License-Identifier: Apache-2.0
"""Wall time of bisect steps served by the tool's step server, split at the
moment the child writes its report, the end of its run (imports and pytest):
what follows until the reply is the child's exit. Three variants of
bisect_step.py, each with its own server:

    now                      the child ends with os._exit after its exit
                             handlers; each source is compiled once per
                             content (the code cache)
    no code cache            the same without the code cache: every step
                             compiles vLLM's modules from source
    sys.exit, no code cache  the tool before both: the interpreter's normal
                             exit tears down every module the server
                             preloaded (torch, vLLM's dependencies)

Usage, with the fork venv's python, in this checkout:

    python benchmarks/results/ci_time/bisect_step_exit_cost.py <copy of a fork tree> <commit>

The copy (with no __pycache__ under vllm/ and tests/, as in a bisect after
its first checkouts) is checked out at <commit> and put back afterwards; each
variant gets one unmeasured first step (its child imports everything, then
the server preloads it), then four measured steps of one small test file.
"""

import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "src"))

from vllm_fork.checks import StepRunner  # noqa: E402

TEST = "tests/v1/attention/test_rocm_attn_page_contiguous_decode.py"
MODULES = ["vllm", "vllm.v1.attention.backends.rocm_attn"]
CALL = "                _run_child(req)\n"
CACHE = '    _compile_each_source_once(req["code_cache"])\n'
VARIANTS = {
    "now": {},
    "no code cache": {CACHE: ""},
    "sys.exit, no code cache": {CACHE: "", CALL: "                sys.exit(run_step(req))\n"},
}


def main() -> None:
    tree, commit = Path(sys.argv[1]), sys.argv[2]
    python = Path(sys.executable)
    source = StepRunner.SOURCE
    assert CALL in source and CACHE in source, "bisect_step.py changed: update CALL and CACHE"
    head = subprocess.run(
        ["git", "-C", tree, "rev-parse", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    subprocess.run(["git", "-C", tree, "checkout", "-q", "--detach", commit], check=True)
    try:
        for name, edits in VARIANTS.items():
            StepRunner.SOURCE = source
            for before, after in edits.items():
                StepRunner.SOURCE = StepRunner.SOURCE.replace(before, after)
            with StepRunner(tree, python, print) as steps:
                for i in range(5):
                    start = time.time()
                    _, proc = steps.run(MODULES, set(), ["-q", "-p", "no:cacheprovider", TEST])
                    end = time.time()
                    # run_step writes the report last, right before the child ends.
                    e = (Path(steps.tmp.name) / "report.json").stat().st_mtime
                    last = proc.stdout.strip().splitlines()[-1]
                    label = "first (unmeasured)" if i == 0 else f"step {i}"
                    print(
                        f"{name:23s} {label:18s} total {end - start:6.2f} s  child run {e - start:6.2f} s  "
                        f"exit and reply {end - e:5.2f} s  | {last}",
                        flush=True,
                    )
    finally:
        StepRunner.SOURCE = source
        subprocess.run(["git", "-C", tree, "checkout", "-q", head], check=True)


if __name__ == "__main__":
    main()
