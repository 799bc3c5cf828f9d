"""The tool against the real pinned vLLM sdists (downloaded once, then cached)."""

from __future__ import annotations

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


# Counts what lacks bytecode in the venv's site-packages.
UNCOMPILED = """\
import importlib.util, sysconfig
from pathlib import Path
sources = list(Path(sysconfig.get_path("purelib")).rglob("*.py"))
print(sum(not Path(importlib.util.cache_from_source(p)).exists() for p in sources), len(sources))
"""


@pytest.mark.parametrize("base", BASES)
def test_the_built_venv_is_byte_compiled(base: str) -> None:
    # Otherwise, where PYTHONDONTWRITEBYTECODE is set, every test interpreter
    # compiles torch and vLLM's imports again (about 14 s of CPU each).
    python = venv.python_of(venv.venv_dir(ROOT, load_base(ROOT, base)))
    assert python.exists(), f"no venv for {base}: run ./vllm-fork --base {base} build first"
    out = subprocess.run([str(python), "-c", UNCOMPILED], capture_output=True, text=True, check=True).stdout
    uncompiled, sources = map(int, out.split())
    # torch ships a module in Python 3.12 syntax; nothing else is left out.
    assert sources > 10_000 and uncompiled <= 5, (uncompiled, sources)
