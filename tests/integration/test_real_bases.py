"""The tool against the real pinned vLLM sdists (downloaded once, then cached)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from vllm_fork import venv
from vllm_fork.bases import known_bases, load_base
from vllm_fork.cli import main

ROOT = Path(__file__).resolve().parents[2]
BASES = known_bases(ROOT)

pytestmark = pytest.mark.integration


@pytest.mark.parametrize("base", BASES)
def test_static_check_passes(base: str) -> None:
    assert main(["--repo", str(ROOT), "--base", base, "-q", "check", "--static"]) == 0


@pytest.mark.parametrize("base", BASES)
def test_export_right_after_build_changes_nothing(base: str, tmp_path: Path) -> None:
    fork = tmp_path / "fork"
    assert main(["--repo", str(ROOT), "--base", base, "-q", "build", "--no-venv", "--fork", str(fork)]) == 0
    before = subprocess.run(
        ["git", "status", "--porcelain", "--", f"patches/{base}"], cwd=ROOT, capture_output=True, text=True
    ).stdout
    assert main(["--repo", str(ROOT), "--base", base, "-q", "export", "--fork", str(fork)]) == 0
    after = subprocess.run(
        ["git", "status", "--porcelain", "--", f"patches/{base}"], cwd=ROOT, capture_output=True, text=True
    ).stdout
    diff = subprocess.run(["git", "diff", "--stat", "--", f"patches/{base}"], cwd=ROOT, capture_output=True, text=True)
    assert after == before, diff.stdout
    assert main(["--repo", str(ROOT), "--base", base, "-q", "status", "--fork", str(fork)]) == 0


# What `import vllm, pytest` loads from site-packages, and how much of it has
# no bytecode.
UNCOMPILED = """\
import importlib.util, os, sys, sysconfig
import vllm, pytest
site = sysconfig.get_path("purelib")
loaded = [m.__file__ for m in list(sys.modules.values()) if getattr(m, "__file__", None)]
loaded = [f for f in loaded if f.startswith(site) and f.endswith(".py")]
missing = [f for f in loaded if not os.path.exists(importlib.util.cache_from_source(f))]
print(len(missing), len(loaded))
"""


@pytest.mark.parametrize("base", BASES)
def test_the_built_venv_has_the_bytecode_of_what_tests_import(base: str) -> None:
    # Otherwise, where PYTHONDONTWRITEBYTECODE is set, every test interpreter
    # compiles torch and vLLM again (about 13 s of CPU each).
    python = venv.python_of(venv.venv_dir(ROOT, load_base(ROOT, base)))
    assert python.exists(), f"no venv for {base}: run ./vllm-fork --base {base} build first"
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", CUDA_VISIBLE_DEVICES="")
    out = subprocess.run(
        [str(python), "-c", UNCOMPILED], capture_output=True, text=True, check=True, env=env
    ).stdout
    missing, loaded = map(int, out.split())
    # torch and pytest alone load several hundred modules: the count shows
    # the import really ran (vLLM 0.34.0 loads about 990 from site-packages).
    assert loaded > 500 and missing == 0, (missing, loaded)
