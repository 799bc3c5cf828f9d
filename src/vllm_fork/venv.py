"""The fork's Python-only install: a virtualenv where `import vllm` is the fork.

Dependencies: the torch named in the base's pin.toml (the reason for the choice
is written there), the fork's own requirements/common.txt, the pin's extras
(pytest, ...), and ruff and typos at the versions vLLM's pre-commit pins.
The fork itself is installed editable with VLLM_TARGET_DEVICE=empty, so no
extension is compiled and commits checked out in the tree are what imports.

vLLM's own `language: python` hooks (mypy among them) run as pre-commit runs
them: each in a virtualenv of its own that holds only the hook's
additional_dependencies (`hook_python`).
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
GATE_TOOLS = ("ruff==0.14.0", "typos==1.43.5")
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

    # "bytecode": venvs whose import check wrote none are refreshed.
    installed = (base.environment, GATE_TOOLS, BUILD_TOOLS, TEST_TOOLS, "bytecode")
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
    steps = 4
    if not python.exists():
        log(f"[1/{steps}] creating virtualenv {venv}")
        stdlib_venv.EnvBuilder(with_pip=True, clear=True).create(venv)
    else:
        log(f"[1/{steps}] reusing virtualenv {venv}")
    # --no-compile: pip would byte-compile all ~19,000 modules (about 75 s of
    # CPU per venv); the import check below writes the bytecode of the ~2,400
    # that `import vllm` loads, which is what the tests need.
    pip = [str(python), "-m", "pip", "install", "--progress-bar", "on", "--no-compile"]
    env = dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1")
    log(f"[2/{steps}] installing {base.environment.torch}")
    _run([*pip, base.environment.torch], log, env)
    log(f"[3/{steps}] installing the fork's requirements, test tools, ruff and typos")
    reqs: list[str] = []
    for req in base.environment.requirements:
        reqs += ["-r", str(tree / req)]
    _run([*pip, base.environment.torch, *reqs, *base.environment.extra, *GATE_TOOLS, *TEST_TOOLS, *BUILD_TOOLS], log, env)
    log(f"[4/{steps}] installing the fork (VLLM_TARGET_DEVICE=empty, editable, Python only)")
    # The version stays the release's: setuptools-scm would otherwise derive
    # 0.33.1.devN+g<sha> from the fork's commits on top of the tag.
    env_empty = dict(env, VLLM_TARGET_DEVICE="empty", SETUPTOOLS_SCM_PRETEND_VERSION=base.version)
    _run([*pip, "--no-deps", "--no-build-isolation", "-e", str(tree)], log, env_empty)
    # Bytecode is written even where PYTHONDONTWRITEBYTECODE is set (it is
    # where this was measured): otherwise every interpreter that imports
    # torch and vLLM compiles them again, about 13 s of CPU each.
    check_env = {k: v for k, v in env.items() if k != "PYTHONDONTWRITEBYTECODE"}
    check = subprocess.run(
        [str(python), "-c", "import vllm, pytest; print(vllm.__file__)"],
        capture_output=True,
        text=True,
        env=dict(check_env, CUDA_VISIBLE_DEVICES=""),
    )
    if check.returncode != 0:
        raise ForkError("`import vllm` fails in the new virtualenv", check.stderr.strip()[-2000:])
    log(f"  import vllm -> {check.stdout.strip()}")
    (venv / "vllm-fork-stamp").write_text(_stamp(base, tree))
    return python


def hook_envs_dir(root: Path, base: Base) -> Path:
    return root / ".fork" / "venvs" / f"{base.name}-hooks"


def hook_python(envs: Path, deps: list[str], log) -> Path:
    """The python of a virtualenv under `envs` that holds exactly `deps`: the
    environment pre-commit builds for a `language: python` hook with these
    additional_dependencies. vLLM's mypy hook gets mypy, stub packages and
    pydantic: mypy sees the hook's stubs, not the torch and transformers
    installed in the fork's venv, which it would follow vLLM's imports into
    (minutes of CPU, and errors from their sources)."""
    import fcntl
    import hashlib

    want = "\n".join([sys.version, *sorted(deps)])
    env = envs / hashlib.sha256(want.encode()).hexdigest()[:16]
    stamp = env / "vllm-fork-stamp"
    envs.mkdir(parents=True, exist_ok=True)
    # One builder at a time (two gates of one base); a build that was killed
    # left no stamp and is redone.
    with open(envs / f"{env.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if python_of(env).exists() and stamp.is_file() and stamp.read_text() == want:
            return python_of(env)
        log(f"  hook environment {env.name}: {', '.join(deps) or 'no dependencies'}")
        stdlib_venv.EnvBuilder(with_pip=bool(deps), clear=True).create(env)
        if deps:
            pip = [str(python_of(env)), "-m", "pip", "install", "--progress-bar", "off", "--no-compile"]
            _run([*pip, *deps], log, dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1"))
        stamp.write_text(want)
    return python_of(env)
