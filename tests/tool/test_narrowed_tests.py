"""bisect runs a patch's own tests: in a test file the release already has,
only the test functions the patch adds or changes."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from vllm_fork.checks import narrowed_tests

UPSTREAM = '''import pytest


def helper():
    return 1


@pytest.mark.parametrize("x", [1, 2])
def test_upstream_gpu_only(x):
    assert x


def test_upstream_other():
    assert helper()
'''


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def make_tree(tmp_path: Path) -> Path:
    tree = tmp_path / "tree"
    (tree / "tests").mkdir(parents=True)
    (tree / "tests" / "test_up.py").write_text(UPSTREAM)
    git(tree, "init", "-q")
    git(tree, "add", "-A")
    git(tree, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "base")
    git(tree, "tag", "v0.0.1")
    return tree


def test_new_file_runs_whole(tmp_path: Path) -> None:
    tree = make_tree(tmp_path)
    (tree / "tests" / "test_new.py").write_text("def test_a():\n    pass\n")
    assert narrowed_tests(tree, "v0.0.1", ["tests/test_new.py"]) == ["tests/test_new.py"]


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        # A test the patch adds: only it runs.
        (lambda src: src + "\n\ndef test_series():\n    assert helper() == 1\n",
         ["tests/test_up.py::test_series"]),
        # A changed parametrization counts as a change of that test.
        (lambda src: src.replace("[1, 2]", "[1, 2, 3]"), ["tests/test_up.py::test_upstream_gpu_only"]),
        # Only a helper changed: no test function differs, the file runs whole.
        (lambda src: src.replace("return 1", "return 2"), ["tests/test_up.py"]),
    ],
    ids=["added-test", "changed-parametrization", "helper-only"],
)
def test_upstream_file_narrowed_to_changed_tests(
    tmp_path: Path, edit: Callable[[str], str], expected: list[str]
) -> None:
    tree = make_tree(tmp_path)
    (tree / "tests" / "test_up.py").write_text(edit(UPSTREAM))
    assert narrowed_tests(tree, "v0.0.1", ["tests/test_up.py"]) == expected
