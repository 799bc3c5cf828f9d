"""The planted-bug data files load and follow the schema (no fork tree needed)."""

from __future__ import annotations

import importlib.util
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

TOOL = Path(__file__).resolve().parents[2] / "tools" / "planted_bugs.py"


@pytest.fixture(scope="module")
def planted():
    spec = importlib.util.spec_from_file_location("planted_bugs", TOOL)
    module = importlib.util.module_from_spec(spec)
    sys.modules["planted_bugs"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_every_group_file_loads_and_validates(planted) -> None:
    groups = planted.load_groups()
    assert len(groups) == len(list(planted.DATA.glob("*.toml"))) > 0
    for group in groups:
        assert group.bugs and group.tests, group.name


def test_retired_groups_stay_out(planted) -> None:
    retired = ("decode_grid_stays_on_unified_attention", "tile_parts")
    for path in planted.DATA.glob("*.toml"):
        assert not any(word in path.read_text() for word in retired), path.name


def test_schema_problems_are_named(planted) -> None:
    bad = {
        "description": "",
        "tests": [],
        "bug": [{"file": "/abs.py", "old": "a", "new": "b"}],
        "x": 1,
    }
    problems = planted.schema_problems("bad.toml", bad)
    assert any("unknown key 'x'" in p for p in problems)
    assert any("description" in p for p in problems)
    assert any("tests" in p for p in problems)
    assert any("relative to the fork tree" in p for p in problems)
    same = {
        "description": "d",
        "tests": ["t.py"],
        "bug": [{"file": "f.py", "old": "a", "new": "a"}],
    }
    assert planted.schema_problems("same.toml", same) == [
        "same.toml bug 0: `new` must be a string that differs from `old`"
    ]


def test_a_bug_whose_text_is_gone_is_stale_not_a_crash(
    planted, tmp_path: Path, capsys, monkeypatch
) -> None:
    (tmp_path / "vllm").mkdir()
    (tmp_path / "vllm" / "page.py").write_text("x = 1\n")
    data = tmp_path / "data"
    data.mkdir()
    (data / "g.toml").write_text(
        'description = "d"\ntests = ["tests/test_x.py"]\n'
        '[[bug]]\nfile = "vllm/page.py"\nold = "x = 2"\nnew = "x = 3"\n'
        '[[bug]]\nfile = "vllm/gone.py"\nold = "y"\nnew = "z"\n'
    )
    monkeypatch.setattr(planted, "DATA", data)
    assert planted.main(["--tree", str(tmp_path), "--python", sys.executable]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [line.split()[1] for line in out[:2]] == ["stale", "stale"]
    assert out[-1] == "caught 0 of 0; 2 stale"


def test_a_terminated_run_restores_the_planted_file(tmp_path: Path) -> None:
    """`timeout` sends SIGTERM: the tree must be left as it was."""
    page = tmp_path / "vllm" / "page.py"
    page.parent.mkdir()
    page.write_text("x = 1\n")
    slow = tmp_path / "slow-python"  # stands in for the tree's Python: a test run that hangs
    slow.write_text("#!/bin/sh\nsleep 60\n")
    slow.chmod(0o755)
    data = tmp_path / "data"
    data.mkdir()
    (data / "g.toml").write_text(
        'description = "d"\ntests = ["vllm/page.py"]\n[[bug]]\nfile = "vllm/page.py"\nold = "x = 1"\nnew = "x = 2"\n'
    )
    code = (
        f"import sys; sys.argv = ['p']; sys.path.insert(0, {str(TOOL.parent)!r}); import planted_bugs as pb; "
        f"from pathlib import Path; pb.DATA = Path({str(data)!r}); "
        f"pb.main(['--tree', {str(tmp_path)!r}, '--python', {str(slow)!r}])"
    )
    proc = subprocess.Popen([sys.executable, "-c", code])
    deadline = time.monotonic() + 30
    while page.read_text() == "x = 1\n" and time.monotonic() < deadline:
        time.sleep(0.05)
    assert page.read_text() == "x = 2\n"
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=30)
    assert page.read_text() == "x = 1\n"
