"""bisect's steps run in children of one server interpreter that keeps the
third-party modules a step imported: each step still sees its tree's own
modules fresh, the environment they set, and a step the server cannot serve
faithfully runs in a fresh interpreter."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from vllm_fork.checks import StepRunner

# A third-party module (outside the tree, on PYTHONPATH): it notes each
# import and keeps the flavour the tree's vllm set before importing it.
THIRDPARTY = """\
import os

with open(os.environ["THIRDPARTY_LOG"], "a") as f:
    f.write(f"{os.getpid()}\\n")
FLAVOUR = os.environ.get("STEP_FLAVOUR")
{extra}
"""
VLLM = """\
import os

os.environ["STEP_FLAVOUR"] = "{flavour}"
import thirdparty

VALUE = {value}
"""
# Imported by the server, it leaves a second Python thread running.
THREAD = "import threading, time\nthreading.Thread(target=time.sleep, args=(600,), daemon=True).start()"
TEST = """\
import thirdparty
import vllm


def test_step():
    assert (vllm.VALUE, thirdparty.FLAVOUR) == ({value}, "{flavour}")
"""


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    site = tmp_path / "site"
    site.mkdir()
    (site / "thirdparty.py").write_text(THIRDPARTY.replace("{extra}", ""))
    monkeypatch.setenv("PYTHONPATH", str(site))
    monkeypatch.setenv("THIRDPARTY_LOG", str(tmp_path / "imports.log"))
    tree = tmp_path / "tree"
    (tree / "vllm").mkdir(parents=True)
    (tree / "tests").mkdir()
    return tree


def step(
    tree: Path, runner: StepRunner, value: int, flavour: str = "a", mtime: int | None = None
) -> tuple[dict[str, str], int]:
    for path, text in (("vllm/__init__.py", VLLM), ("tests/test_step.py", TEST)):
        (tree / path).write_text(text.format(value=value, flavour=flavour))
        if mtime is not None:
            os.utime(tree / path, (mtime, mtime))
    failures, proc = runner.run(
        ["vllm"], set(), ["-q", "-p", "no:cacheprovider", "tests/test_step.py"]
    )
    return failures, proc.returncode


def imports(tree: Path) -> int:
    return len((tree.parent / "imports.log").read_text().split())


def test_steps_see_the_tree_fresh_and_third_party_modules_once(tree: Path) -> None:
    logs: list[str] = []
    with StepRunner(tree, Path(sys.executable), logs.append) as runner:
        assert step(tree, runner, 1) == ({}, 0)
        # The first step's child and then the server imported it ...
        assert imports(tree) == 2
        # ... a later step changes the tree: its child sees the change ...
        assert step(tree, runner, 2) == ({}, 0)
        assert step(tree, runner, 3) == ({}, 0)
        # ... and does not import the third-party module again.
        assert imports(tree) == 2
        (tree / "vllm" / "__init__.py").write_text("def broken(:\n")
        failures, _ = runner.run(["vllm"], set(), [])
        assert failures["vllm"].startswith("SyntaxError")
    assert logs == []


def test_a_step_that_sets_another_environment_runs_fresh(tree: Path) -> None:
    logs: list[str] = []
    with StepRunner(tree, Path(sys.executable), logs.append) as runner:
        assert step(tree, runner, 1, "a") == ({}, 0)
        # The module was preloaded under flavour "a"; this step's vllm sets "b".
        assert step(tree, runner, 2, "b") == ({}, 0)
        assert logs == [
            "  bisect: this step's imports set another environment than the one its modules were preloaded in"
        ]
        assert imports(tree) == 3


@pytest.mark.parametrize(
    ("extra", "why"),
    [
        # fork copies only the calling thread: a server with two runs nothing.
        (THREAD, "2 Python threads"),
        # Only the server imports it without vllm being imported.
        ("import sys\nif 'vllm' not in sys.modules:\n    os._exit(3)", "the step server exited"),
    ],
    ids=["threads", "server-died"],
)
def test_steps_run_fresh_once_the_server_cannot_serve(tree: Path, extra: str, why: str) -> None:
    (tree.parent / "site" / "thirdparty.py").write_text(THIRDPARTY.replace("{extra}", extra))
    logs: list[str] = []
    with StepRunner(tree, Path(sys.executable), logs.append) as runner:
        assert step(tree, runner, 1) == ({}, 0)
        assert step(tree, runner, 2) == ({}, 0)
        assert step(tree, runner, 3) == ({}, 0)
    assert len(logs) == 1 and why in logs[0] and "fresh interpreter" in logs[0]
    # The first child, the server (once), then one fresh interpreter per step.
    assert imports(tree) == 4


@pytest.mark.parametrize("extra", ["", THREAD], ids=["forked", "fresh"])
def test_steps_never_trust_bytecode_an_earlier_step_wrote(
    tree: Path, monkeypatch: pytest.MonkeyPatch, extra: str
) -> None:
    # Python takes a .pyc whose source has the size and the mtime second of
    # the one it was compiled from; a bisect checks commits out faster than
    # that, and a one-character fix keeps the size. So steps write none, in
    # the server's children and in fresh interpreters alike.
    monkeypatch.delenv("PYTHONDONTWRITEBYTECODE", raising=False)
    (tree.parent / "site" / "thirdparty.py").write_text(THIRDPARTY.replace("{extra}", extra))
    with StepRunner(tree, Path(sys.executable), lambda _: None) as runner:
        for value in (1, 2, 3):
            assert step(tree, runner, value, mtime=1_700_000_000) == ({}, 0)
    assert not list(tree.rglob("*.pyc"))


EXITING = """\
import atexit

atexit.register(print, "the exit handler ran", end="")


def test_step():
    assert {ok}
"""


@pytest.mark.parametrize("extra", ["", THREAD], ids=["forked", "fresh"])
def test_a_step_ends_with_its_exit_status_exit_handlers_and_output(
    tree: Path, monkeypatch: pytest.MonkeyPatch, extra: str
) -> None:
    # A served step's child skips the interpreter's teardown (os._exit); what
    # a normal exit gives must still come back: pytest's status, the exit
    # handlers' effects and output still in the buffers.
    monkeypatch.delenv("PYTHONUNBUFFERED", raising=False)
    (tree.parent / "site" / "thirdparty.py").write_text(THIRDPARTY.replace("{extra}", extra))
    (tree / "vllm" / "__init__.py").write_text("")
    args = ["-q", "-p", "no:cacheprovider", "tests/test_exiting.py"]
    with StepRunner(tree, Path(sys.executable), lambda _: None) as runner:
        runner.run(["thirdparty"], set(), [])  # the server preloads it
        for ok, code in ((True, 0), (False, 1), (True, 0)):
            (tree / "tests" / "test_exiting.py").write_text(EXITING.format(ok=ok))
            failures, proc = runner.run(["vllm"], set(), args)
            assert (failures, proc.returncode) == ({}, code), proc.stdout + proc.stderr
            assert proc.stdout.endswith("the exit handler ran"), proc.stdout
            assert ("1 failed" if code else "1 passed") in proc.stdout


def test_steps_compile_each_source_once_and_never_reuse_other_code(tree: Path) -> None:
    # Two modules of the same text: each keeps its own file name in its code.
    (tree / "vllm" / "twin_a.py").write_text("def where():\n    return where.__code__.co_filename\n")
    (tree / "vllm" / "twin_b.py").write_text((tree / "vllm" / "twin_a.py").read_text())
    (tree / "tests" / "test_twins.py").write_text(
        "from vllm import twin_a, twin_b\n\n\n"
        "def test_twins():\n"
        "    assert twin_a.where().endswith('twin_a.py') and twin_b.where().endswith('twin_b.py')\n"
    )
    with StepRunner(tree, Path(sys.executable), lambda _: None) as runner:
        cache = runner.code_cache

        def entries() -> dict[str, int]:
            return {p.name: p.stat().st_ino for p in cache.iterdir()}

        assert step(tree, runner, 1) == ({}, 0)
        first = entries()
        assert len(first) >= 2  # vllm/__init__.py and the third-party module
        # The same sources again: every module's code comes from the cache.
        assert step(tree, runner, 1) == ({}, 0)
        assert entries() == first
        # An edit is compiled (one new entry); the rest still comes from the cache.
        assert step(tree, runner, 2) == ({}, 0)
        assert len(entries()) == len(first) + 1 and first.items() <= entries().items()
        twins = ["-q", "-p", "no:cacheprovider", "tests/test_twins.py"]
        for _ in range(2):  # compiled, then from the cache
            _, proc = runner.run(["vllm.twin_a", "vllm.twin_b"], set(), twins)
            assert proc.returncode == 0, proc.stdout


def test_steps_run_when_the_code_cache_cannot_be_written(tree: Path) -> None:
    with StepRunner(tree, Path(sys.executable), lambda _: None) as runner:
        cache = runner.code_cache
        cache.rmdir()
        cache.write_text("")  # every read and write in it fails
        assert step(tree, runner, 1) == ({}, 0)
        assert step(tree, runner, 2) == ({}, 0)
