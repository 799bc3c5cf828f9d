"""The fork's Python-only install: a virtualenv where `import vllm` is the fork.

Dependencies: the fork's own requirements/common.txt, the CPU torch named in the
pin (a CUDA build is several GB and useless without a GPU), Triton for the
interpreter, pytest, and vLLM's gate tools at the versions its pre-commit pins.
The fork itself is installed editable with VLLM_TARGET_DEVICE=empty, so no
extension is compiled and commits checked out in the tree are what imports.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import venv as stdlib_venv
from pathlib import Path

from vllm_fork.bases import Base
from vllm_fork.errors import ForkError

# vLLM's pre-commit pins (.pre-commit-config.yaml of 0.33.0).
GATE_TOOLS = (
    "ruff==0.14.0",
    "mypy==1.20.2",
    "typos==1.43.5",
    "types-cachetools",
    "types-setuptools",
    "types-PyYAML",
    "types-requests",
)
# What setup.py needs with --no-build-isolation (its pyproject build-system
# minus torch and cmake, which VLLM_TARGET_DEVICE=empty does not use).
BUILD_TOOLS = ("setuptools>=77.0.3,<81.0.0", "setuptools-scm>=8.0", "setuptools-rust>=1.9.0", "wheel", "packaging>=24.2", "jinja2")


def venv_dir(root: Path, base: Base) -> Path:
    return root / ".fork" / "venvs" / base.name


def python_of(venv: Path) -> Path:
    return venv / "bin" / "python"


def _run(cmd: list[str], log, env: dict[str, str] | None = None, cwd: Path | None = None) -> None:
    log("  $ " + " ".join(cmd))
    start = time.monotonic()
    proc = subprocess.run(cmd, env=env, cwd=cwd, stdout=sys.stderr, stderr=subprocess.STDOUT)
    if proc.returncode != 0:
        raise ForkError(f"command failed (exit {proc.returncode}): {' '.join(cmd[:6])} ...")
    log(f"    done in {time.monotonic() - start:.0f} s")


def install(base: Base, tree: Path, venv: Path, log) -> Path:
    """Create or refresh the venv; return its python."""
    python = python_of(venv)
    steps = 4
    if not python.exists():
        log(f"[1/{steps}] creating virtualenv {venv}")
        stdlib_venv.EnvBuilder(with_pip=True, clear=True).create(venv)
    else:
        log(f"[1/{steps}] reusing virtualenv {venv}")
    pip = [str(python), "-m", "pip", "install", "--progress-bar", "on"]
    env = dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1")
    log(f"[2/{steps}] installing {base.environment.torch} (CPU)")
    _run([*pip, base.environment.torch], log, env)
    log(f"[3/{steps}] installing the fork's requirements, test and gate tools")
    reqs: list[str] = []
    for req in base.environment.requirements:
        reqs += ["-r", str(tree / req)]
    _run([*pip, base.environment.torch, *reqs, *base.environment.extra, *GATE_TOOLS, *BUILD_TOOLS], log, env)
    log(f"[4/{steps}] installing the fork (VLLM_TARGET_DEVICE=empty, editable, Python only)")
    env_empty = dict(env, VLLM_TARGET_DEVICE="empty")
    _run([*pip, "--no-deps", "--no-build-isolation", "-e", str(tree)], log, env_empty)
    check = subprocess.run(
        [str(python), "-c", "import vllm, sys; print(vllm.__file__)"],
        capture_output=True,
        text=True,
        env=dict(env, CUDA_VISIBLE_DEVICES=""),
    )
    if check.returncode != 0:
        raise ForkError("`import vllm` fails in the new virtualenv", check.stderr.strip()[-2000:])
    log(f"  import vllm -> {check.stdout.strip()}")
    return python
