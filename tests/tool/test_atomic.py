"""`apply` and `build` killed at every patch boundary leave nothing changed.

The kill comes from a post-applypatch hook (installed through a throwaway
global git config, so the product has no test switch): after the Nth patch is
committed, it SIGKILLs the tool's whole process group, git included.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import GOOD_MESSAGE, Queue, run_git
from vllm_fork.cli import main

ROOT = Path(__file__).resolve().parents[2]
KILL_HOOK = f"""#!{sys.executable}
# Count applied patches; at the Nth, kill the tool's process group (git too).
import os, pathlib, signal, time

counter = pathlib.Path(os.environ["KILL_COUNTER"])
n = int(counter.read_text()) + 1 if counter.exists() else 1
counter.write_text(str(n))
if n >= int(os.environ["KILL_AT"]):
    os.killpg(os.getpgid(0), signal.SIGKILL)
    time.sleep(10)
"""
PATCHES = 4


def snapshot(tree: Path) -> dict[str, bytes]:
    """Every file under `tree`, .git included (its object store only by name)."""
    files = {}
    for path in sorted(tree.rglob("*")):
        if path.is_file():
            inside_objects = "/.git/objects/" in str(path)
            files[str(path.relative_to(tree))] = b"" if inside_objects else path.read_bytes()
    return files


def worktree(files: dict[str, bytes]) -> dict[str, bytes]:
    return {name: data for name, data in files.items() if not name.startswith(".git/")}


def queue_with_patches(queue: Queue) -> None:
    assert main(queue.argv("build", "--no-venv")) == 0
    for i in range(1, PATCHES + 1):
        queue.commit(
            GOOD_MESSAGE.format(title=f"Change line {i}"),
            {
                "vllm/attn.py": (queue.fork / "vllm/attn.py")
                .read_text()
                .replace(f"LINE_{i} = {i}\n", f"LINE_{i} = {i}00\n")
            },
        )
    assert main(queue.argv("export")) == 0


def run_killed(queue: Queue, tmp_path: Path, kill_at: int, *argv: str) -> int:
    hooks = tmp_path / "hooks"
    hooks.mkdir(exist_ok=True)
    (hooks / "post-applypatch").write_text(KILL_HOOK)
    (hooks / "post-applypatch").chmod(0o755)
    config = tmp_path / "gitconfig"
    config.write_text(f"[core]\n\thooksPath = {hooks}\n")
    counter = tmp_path / f"counter-{kill_at}"
    env = dict(
        os.environ, GIT_CONFIG_GLOBAL=str(config), KILL_AT=str(kill_at), KILL_COUNTER=str(counter)
    )
    proc = subprocess.run(
        [sys.executable, str(ROOT / "vllm-fork"), *queue.argv(*argv)],
        env=env,
        start_new_session=True,
        capture_output=True,
        timeout=120,
    )
    assert counter.read_text().strip() == str(kill_at), proc.stderr
    return proc.returncode


@pytest.mark.parametrize("kill_at", range(1, PATCHES + 1))
def test_apply_killed_at_a_patch_boundary_changes_nothing(
    queue: Queue, tmp_path: Path, kill_at: int
) -> None:
    queue_with_patches(queue)
    target = tmp_path / "user-vllm"
    run_git(tmp_path, "clone", "-q", str(queue.fork), str(target))
    run_git(target, "checkout", "-q", "-B", "mine", "v1.0.0")
    before = snapshot(target)
    assert run_killed(queue, tmp_path, kill_at, "apply", str(target)) == -9
    assert snapshot(target) == before
    # Nothing half-done is left for the rerun to trip over.
    assert main(queue.argv("apply", str(target))) == 0
    assert run_git(target, "log", "--format=%s", "v1.0.0..mine").count("\n") == PATCHES


@pytest.mark.parametrize("kill_at", range(1, PATCHES + 1))
def test_build_killed_at_a_patch_boundary_keeps_the_old_tree(
    queue: Queue, tmp_path: Path, kill_at: int
) -> None:
    queue_with_patches(queue)
    before = snapshot(queue.fork)
    assert run_killed(queue, tmp_path, kill_at, "build", "--no-venv") == -9
    assert snapshot(queue.fork) == before
    staging = list(queue.fork.parent.glob(".v1.0.0.*"))
    assert staging, "the killed build's staging folder is what the next build removes"
    assert main(queue.argv("build", "--no-venv")) == 0
    assert not list(queue.fork.parent.glob(".v1.0.0.*"))
    assert worktree(snapshot(queue.fork)) == worktree(before)


def test_build_killed_between_the_renames_restores_the_old_tree(queue: Queue) -> None:
    """The one window a hook cannot reach: old tree moved aside, new not yet in place."""
    queue_with_patches(queue)
    before = snapshot(queue.fork)
    staging = queue.fork.parent / ".v1.0.0.killed"
    staging.mkdir()
    dead = subprocess.Popen(["true"])
    dead.wait()
    (staging / "owner.pid").write_text(str(dead.pid))
    queue.fork.rename(staging / "old")
    assert main(queue.argv("status")) == 2  # no tree: says so, does not guess
    assert main(queue.argv("build", "--no-venv")) == 0
    assert not staging.exists()
    assert worktree(snapshot(queue.fork)) == worktree(before)


def test_build_refuses_a_tree_mid_rebase(queue: Queue, capsys: pytest.CaptureFixture[str]) -> None:
    queue_with_patches(queue)
    run_git(queue.fork, "checkout", "-q", "--detach", "HEAD~1")
    (queue.fork / run_git(queue.fork, "rev-parse", "--git-path", "rebase-merge").strip()).mkdir()
    assert main(queue.argv("build", "--no-venv")) == 2
    assert "a rebase is in progress" in capsys.readouterr().err
    assert queue.fork.is_dir()


def test_build_refuses_a_broken_tree(queue: Queue, capsys: pytest.CaptureFixture[str]) -> None:
    queue_with_patches(queue)
    (queue.fork / ".git" / "HEAD").write_text("ref: refs/heads/gone\n")
    assert main(queue.argv("build", "--no-venv")) == 2
    err = capsys.readouterr().err
    assert "not a readable git tree" in err and "Traceback" not in err
    assert (queue.fork / "vllm").is_dir()
