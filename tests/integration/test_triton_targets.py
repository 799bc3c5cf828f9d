"""The series' Triton kernels fit every GPU target they ship to.

Runs tools/triton_targets.py (offline compiles for gfx90a, gfx942, gfx950 and
sm_90 through each kernel's own wrapper) against each base's built fork tree
with that tree's venv; fails on a config over a target's LDS/shared memory,
a register spill, a decode residency that differs from the compiled one, or a
wave-split decode kernel that holds fewer programs per compute unit than the
unsplit one.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from vllm_fork.bases import known_bases, load_base
from vllm_fork.venv import python_of, venv_dir

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.integration
# One xdist worker compiles for every base in turn: the kernels the bases
# share then come from Triton's compile cache the second time.
@pytest.mark.xdist_group("triton-compile-cache")
@pytest.mark.parametrize("base_name", known_bases(ROOT))
def test_kernels_fit_every_target(base_name: str) -> None:
    base = load_base(ROOT, base_name)
    tree = ROOT / ".fork" / base.name
    python = python_of(venv_dir(ROOT, base))
    if not (tree / "vllm").is_dir() or not python.exists():
        pytest.skip(f"{base.name} is not built here: run `./vllm-fork --base {base.name} build`.")
    proc = subprocess.run(
        [str(python), str(ROOT / "tools" / "triton_targets.py"), "--tree", str(tree)],
        capture_output=True,
        text=True,
        timeout=1800,
    )
    table = "\n".join(line for line in proc.stdout.splitlines() if not line.startswith("W"))
    print(table)
    assert proc.returncode == 0, f"{base.name}: a config does not fit its target:\n{table}\n{proc.stderr[-3000:]}"
