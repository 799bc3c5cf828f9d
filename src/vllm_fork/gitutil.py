"""Running git with settings that make its output independent of the user."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from vllm_fork.errors import ForkError

# Fixed identity and dates for the synthetic base commit, so that every build
# of one base gives the same commit id.
BASE_IDENTITY = {
    "GIT_AUTHOR_NAME": "vLLM release",
    "GIT_AUTHOR_EMAIL": "noreply@vllm.ai",
    "GIT_AUTHOR_DATE": "2000-01-01T00:00:00Z",
    "GIT_COMMITTER_NAME": "vLLM release",
    "GIT_COMMITTER_EMAIL": "noreply@vllm.ai",
    "GIT_COMMITTER_DATE": "2000-01-01T00:00:00Z",
}
# Settings that change what format-patch and apply print or accept.
STABLE_CONFIG = [
    "core.abbrev=12",
    "core.autocrlf=false",
    "core.quotePath=true",
    "diff.algorithm=myers",
    "diff.noprefix=false",
    "diff.mnemonicPrefix=false",
    "diff.renames=true",
    "diff.relative=false",
    "format.signature=",
    "format.numbered=false",
    "apply.whitespace=warn",
    "am.threeWay=false",
    "color.ui=false",
    "commit.gpgSign=false",
    "init.defaultBranch=main",
    "gc.auto=0",
    "maintenance.auto=false",
]


def git_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ)
    env["GIT_CONFIG_NOSYSTEM"] = "1"
    env["LC_ALL"] = "C"
    env.pop("GIT_DIR", None)
    env.pop("GIT_WORK_TREE", None)
    env.pop("GIT_INDEX_FILE", None)
    if extra:
        env.update(extra)
    return env


def git(
    cwd: Path,
    *args: str,
    env: dict[str, str] | None = None,
    check: bool = True,
    input: str | None = None,
) -> subprocess.CompletedProcess[str]:
    cmd = ["git"]
    for item in STABLE_CONFIG:
        cmd += ["-c", item]
    cmd += list(args)
    proc = subprocess.run(
        cmd,
        cwd=cwd,
        env=git_env(env),
        text=True,
        input=input,
        capture_output=True,
    )
    if check and proc.returncode != 0:
        raise ForkError(
            f"git {' '.join(args[:2])} failed in {cwd}",
            (proc.stderr or proc.stdout).strip(),
        )
    return proc


def is_git_tree(path: Path) -> bool:
    proc = git(path, "rev-parse", "--show-toplevel", check=False) if path.is_dir() else None
    return bool(proc and proc.returncode == 0 and Path(proc.stdout.strip()) == path.resolve())


def is_dirty(path: Path) -> str:
    """`git status --porcelain` output: empty when clean."""
    return git(path, "status", "--porcelain", "--untracked-files=normal").stdout


def patch_id(cwd: Path, diff_text: str) -> str | None:
    """`git patch-id --stable` of a diff: the same change gets the same id."""
    out = git(cwd, "patch-id", "--stable", input=diff_text).stdout.split()
    return out[0] if out else None


def commit_patch_ids(cwd: Path, rev_range: str) -> dict[str, str]:
    """patch-id -> commit for each commit of a range."""
    log = git(cwd, "log", "-p", "--no-color", "--format=commit %H", rev_range).stdout
    out = git(cwd, "patch-id", "--stable", input=log).stdout
    ids = {}
    for line in out.splitlines():
        pid, commit = line.split()
        ids[pid] = commit
    return ids
