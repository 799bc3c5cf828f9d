"""check --upstream-tests: the release's own tests of the files the series
modifies pass on the fork wherever they pass on the release."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.conftest import make_pin, run_git
from vllm_fork import venv
from vllm_fork.bases import Base, load_base
from vllm_fork.checks import upstream_regressions, upstream_tests
from vllm_fork.cli import main

RELEASE = {
    "vllm/__init__.py": "",
    "vllm/value.py": "def value() -> int:\n    return 1\n\n\ndef helper() -> int:\n    return 0\n",
    "vllm/other.py": "OTHER = 1\n",
    # Names vllm/value.py three ways; the last test needs a GPU.
    "tests/test_value.py": (
        "import pytest\n\nfrom vllm.value import value\n\n\n"
        "@pytest.mark.parametrize('n', [1, 2])\ndef test_value(n: int) -> None:\n    assert value() * n == n\n\n\n"
        "def test_gpu() -> None:\n    raise AssertionError('needs a GPU')\n"
    ),
    "tests/sub/test_parent.py": (
        "from vllm import value\n\n\nclass TestValue:\n    def test_it(self) -> None:\n        assert value.value() == 1\n"
    ),
    "tests/test_helper.py": "from vllm.value import helper\n\n\ndef test_helper() -> None:\n    assert helper() == 0\n",
    # Names only a file the series leaves alone.
    "tests/test_other.py": "from vllm.other import OTHER\n\n\ndef test_other() -> None:\n    assert OTHER == 2\n",
}


def release(tmp_path: Path) -> tuple[Base, Path]:
    make_pin(tmp_path / "queue" / "patches" / "v1.0.0", "1.0.0", "0" * 64)
    tree = tmp_path / "tree"
    for name, text in RELEASE.items():
        (tree / name).parent.mkdir(parents=True, exist_ok=True)
        (tree / name).write_text(text)
    run_git(tree, "init", "-q", "-b", "main")
    run_git(tree, "add", "-A")
    run_git(tree, "commit", "-q", "-m", "release")
    run_git(tree, "tag", "v1.0.0")
    return load_base(tmp_path / "queue", "v1.0.0"), tree


def patch(tree: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (tree / name).write_text(text)
    run_git(tree, "add", "-A")
    run_git(tree, "commit", "-q", "-m", "patch")


# A test file the series adds is bisect's, never an upstream test.
NEW_TEST = "from vllm.value import value\n\n\ndef test_new() -> None:\n    assert value() == 3\n"


def test_a_series_that_breaks_upstream_tests_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    base, tree = release(tmp_path)
    patch(tree, {"vllm/value.py": "def value() -> int:\n    return 2\n", "tests/test_new.py": NEW_TEST})
    assert upstream_tests(base, tree) == {
        name: ["vllm/value.py"] for name in ("tests/sub/test_parent.py", "tests/test_helper.py", "tests/test_value.py")
    }
    # The tests run with this interpreter, not a venv of the release's.
    monkeypatch.setattr(venv, "ensure", lambda *_: Path(sys.executable))
    queue = str(tmp_path / "queue")
    assert main(["--repo", queue, "-q", "check", "--upstream-tests", "--fork", str(tree)]) == 1
    out = capsys.readouterr().out.splitlines()
    start = out.index("upstream-tests: 4 test(s) pass at the release and fail on the fork")
    # A test file that no longer imports: each of its tests that passed.
    helper = "  tests/test_helper.py::test_helper: not collected: ImportError: cannot import name 'helper'"
    assert out[start + 2].startswith(helper), out[start + 2]
    assert out[start + 1 : start + 5] == [
        "  tests/sub/test_parent.py::TestValue::test_it: failed: assert 2 == 1",
        out[start + 2],
        "  tests/test_value.py::test_value[1]: failed: assert (2 * 1) == 1",
        "  tests/test_value.py::test_value[2]: failed: assert (2 * 2) == 2",
    ]
    assert out[start + 5].startswith("  Fix the series, not the test")
    assert run_git(tree, "rev-parse", "--abbrev-ref", "HEAD").strip() == "main"


def test_a_series_that_keeps_upstream_tests_green_passes(tmp_path: Path) -> None:
    base, tree = release(tmp_path)
    value = RELEASE["vllm/value.py"].replace("return 1", "return 2 - 1")
    # It also changes a test on purpose: that test's new version runs at HEAD.
    test = RELEASE["tests/test_value.py"].replace("[1, 2]", "[1, 3]")
    patch(tree, {"vllm/value.py": value, "tests/test_value.py": test, "tests/test_new.py": NEW_TEST})
    logs: list[str] = []
    assert upstream_regressions(base, tree, Path(sys.executable), logs.append, tmp_path / "cache") == []
    # HEAD runs only the tests that passed at the release: not test_gpu, nor
    # test_value[3], nor the series' own test_new.
    assert "  upstream-tests: at HEAD: 3 passed" in [line.split(" (")[0] for line in logs], logs
    # The release's outcomes are kept: a second check runs only HEAD's tests.
    first = len(logs)
    assert upstream_regressions(base, tree, Path(sys.executable), logs.append, tmp_path / "cache") == []
    assert not any(" outcomes from " in line for line in logs[:first])
    assert any(" outcomes from " in line for line in logs[first:]), logs
