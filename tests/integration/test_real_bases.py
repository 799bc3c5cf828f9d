"""The tool against the real pinned vLLM sdists (downloaded once, then cached)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from vllm_fork.bases import known_bases
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
