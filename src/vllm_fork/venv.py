"""The fork's Python-only install: a virtualenv where `import vllm` is the fork.

Dependencies: the torch named in the base's pin.toml (the reason for the choice
is written there), the fork's own requirements/common.txt, the pin's extras
(pytest, ...), and vLLM's gate tools at the versions its pre-commit pins.
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
# What `vllm-fork test` adds to the pin's extras: the tool's tests and the
# bisect's per-patch test runs spread over the cores with it.
TEST_TOOLS = ("pytest-xdist==3.8.0",)
# What setup.py needs with --no-build-isolation (its pyproject build-system
# minus torch and cmake, which VLLM_TARGET_DEVICE=empty does not use).
BUILD_TOOLS = ("setuptools>=77.0.3,<81.0.0", "setuptools-scm>=8.0", "setuptools-rust>=1.9.0", "wheel", "packaging>=24.2", "jinja2")


def venv_dir(root: Path, base: Base) -> Path:
    return root / ".fork" / "venvs" / base.name


def python_of(venv: Path) -> Path:
    return venv / "bin" / "python"


def _stamp(base: Base, tree: Path) -> str:
    """What the venv was installed from; a change means reinstall."""
    import hashlib

    # "byte-compiled": venvs installed before step 5 existed are refreshed.
    installed = (base.environment, GATE_TOOLS, BUILD_TOOLS, TEST_TOOLS, "byte-compiled")
    digest = hashlib.sha256(repr(installed).encode())
    for req in base.environment.requirements:
        digest.update((tree / req).read_bytes())
    return digest.hexdigest()


def ensure(base: Base, tree: Path, venv: Path, log) -> Path:
    """The venv's python, (re)installed if missing or made from other pins."""
    stamp = venv / "vllm-fork-stamp"
    if python_of(venv).exists() and stamp.is_file() and stamp.read_text() == _stamp(base, tree):
        return python_of(venv)
    return install(base, tree, venv, log)


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
    steps = 5
    if not python.exists():
        log(f"[1/{steps}] creating virtualenv {venv}")
        stdlib_venv.EnvBuilder(with_pip=True, clear=True).create(venv)
    else:
        log(f"[1/{steps}] reusing virtualenv {venv}")
    # --no-compile: pip byte-compiles one module at a time (about 75 s of CPU
    # per venv); step 5 compiles them all on every core instead.
    pip = [str(python), "-m", "pip", "install", "--progress-bar", "on", "--no-compile"]
    env = dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1")
    log(f"[2/{steps}] installing {base.environment.torch}")
    _run([*pip, base.environment.torch], log, env)
    log(f"[3/{steps}] installing the fork's requirements, test and gate tools")
    reqs: list[str] = []
    for req in base.environment.requirements:
        reqs += ["-r", str(tree / req)]
    _run([*pip, base.environment.torch, *reqs, *base.environment.extra, *GATE_TOOLS, *TEST_TOOLS, *BUILD_TOOLS], log, env)
    log(f"[4/{steps}] installing the fork (VLLM_TARGET_DEVICE=empty, editable, Python only)")
    # The version stays the release's: setuptools-scm would otherwise derive
    # 0.33.1.devN+g<sha> from the fork's commits on top of the tag.
    env_empty = dict(env, VLLM_TARGET_DEVICE="empty", SETUPTOOLS_SCM_PRETEND_VERSION=base.version)
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
    log(f"[5/{steps}] byte-compiling the virtualenv")
    compile_site_packages(python, log)
    (venv / "vllm-fork-stamp").write_text(_stamp(base, tree))
    return python


def compile_site_packages(python: Path, log) -> None:
    """Byte-compile the venv's site-packages (~19,000 modules: about 40 s of
    CPU, on every core).

    Without it every interpreter that imports torch and vLLM compiles their
    ~4,600 modules again (about 14 s of CPU) wherever PYTHONDONTWRITEBYTECODE
    is set (it is where this was measured). A module that does not compile
    (torch ships one in Python 3.12 syntax) is only reported: Python
    compiles what imports, as before."""
    script = (
        "import compileall, sysconfig\n"
        "compileall.compile_dir(sysconfig.get_path('purelib'), quiet=1, workers=0)\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    start = time.monotonic()
    proc = subprocess.run([str(python), "-c", script], env=env, capture_output=True, text=True)
    failed = proc.stdout.count("*** Error compiling")
    note = f", {failed} module(s) did not compile" if failed else ""
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        note = f"; it stopped (exit {proc.returncode}: {last}), modules compile on import instead"
    log(f"    done in {time.monotonic() - start:.0f} s{note}")
