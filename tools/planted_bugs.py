# SPDX-License-Identifier: Apache-2.0
"""Plant one-line bugs in a built fork tree, one at a time, and check that the
series' own CPU tests catch each; print the catch rate.

    python3 tools/planted_bugs.py [--base v0.34.0] [--tree DIR] [--python PY]
                                  [--group NAME ...] [N ...]

The bugs are data: tools/planted_bugs/<group>.toml, each with a description,
the test node ids to run (quick ones first: -x ends a caught run early), an
optional `base` it was written for, and `[[bug]]` entries (file, old, new),
where `old` must occur exactly once in the file. A bug whose `old` text is no
longer in the tree (the code changed, or another base) is reported as stale,
one line each: refresh or drop it. N selects bugs by their number over the
selected groups, in file-name order. --tree/--python default to the base's
fork tree and venv under .fork/. Not run by CI: a full run takes hours on two
cores; a surviving bug means a missing test.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "planted_bugs"
TIMEOUT_S = 900


@dataclass(frozen=True)
class Bug:
    file: str
    old: str
    new: str


@dataclass(frozen=True)
class Group:
    name: str
    description: str
    tests: tuple[str, ...]
    bugs: tuple[Bug, ...]
    base: str | None = None


def schema_problems(name: str, data: dict) -> list[str]:
    """What is wrong with one group file's data (empty when it is valid)."""
    problems = []
    allowed = {"description", "tests", "bug", "base"}
    problems += [f"{name}: unknown key {k!r}" for k in sorted(set(data) - allowed)]
    if not isinstance(data.get("description"), str) or not data.get("description"):
        problems.append(f"{name}: `description` must be a non-empty string")
    if "base" in data and not isinstance(data["base"], str):
        problems.append(f"{name}: `base` must be a string such as 'v0.29.0'")
    tests = data.get("tests")
    if not isinstance(tests, list) or not tests or not all(isinstance(t, str) and t for t in tests):
        problems.append(f"{name}: `tests` must be a non-empty list of test paths or node ids")
    bugs = data.get("bug")
    if not isinstance(bugs, list) or not bugs:
        problems.append(f"{name}: no [[bug]] entries")
        return problems
    for i, bug in enumerate(bugs):
        where = f"{name} bug {i}"
        if not isinstance(bug, dict) or set(bug) != {"file", "old", "new"}:
            problems.append(f"{where}: needs exactly the keys file, old, new")
            continue
        if not all(isinstance(bug[k], str) and bug[k] for k in ("file", "old")):
            problems.append(f"{where}: `file` and `old` must be non-empty strings")
        elif not isinstance(bug["new"], str) or bug["new"] == bug["old"]:
            problems.append(f"{where}: `new` must be a string that differs from `old`")
        elif bug["file"].startswith("/") or ".." in Path(bug["file"]).parts:
            problems.append(f"{where}: `file` must be relative to the fork tree")
    return problems


def load_groups(folder: Path | None = None) -> list[Group]:
    """Every group file, validated; ValueError lists all problems."""
    groups, problems = [], []
    for path in sorted((folder or DATA).glob("*.toml")):
        with path.open("rb") as f:
            data = tomllib.load(f)
        found = schema_problems(path.name, data)
        problems += found
        if not found:
            bugs = tuple(Bug(b["file"], b["old"], b["new"]) for b in data["bug"])
            groups.append(
                Group(path.stem, data["description"], tuple(data["tests"]), bugs, data.get("base"))
            )
    if problems:
        raise ValueError("\n".join(problems))
    return groups


def present(tree: Path, tests: tuple[str, ...]) -> list[str]:
    """The node ids whose test file (and function, if named) exist in this tree."""
    kept = []
    for node in tests:
        path, _, name = node.partition("::")
        full = tree / path
        if full.is_file() and (not name or f"def {name}(" in full.read_text()):
            kept.append(node)
    return kept


def run_tests(tree: Path, python: str, tests: list[str]) -> tuple[int, str]:
    env = dict(os.environ, TRITON_INTERPRET="1", CUDA_VISIBLE_DEVICES="")
    cmd = [python, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "-n", "2", *tests]
    # Its own process group, so that a hung run's xdist workers are killed too.
    p = subprocess.Popen(
        cmd, cwd=tree, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True,
    )  # fmt: skip
    try:
        out, err = p.communicate(timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        return -1, f"TIMEOUT: no result in {TIMEOUT_S} s (a hang also fails CI)"
    except BaseException:  # interrupted: no test run outlives the tool
        os.killpg(p.pid, signal.SIGKILL)
        raise
    out = out.strip()
    return p.returncode, out.splitlines()[-1] if out else err[-300:]


def stale_reason(tree: Path, bug: Bug) -> str | None:
    """Why this bug cannot be planted in the tree, or None."""
    path = tree / bug.file
    if not path.is_file():
        return f"{bug.file} is not in the tree"
    count = path.read_text().count(bug.old)
    if count != 1:
        return f"its text occurs {count} times in {bug.file}: {bug.old.strip()[:60]!r}"
    return None


def _interrupted(signum: int, frame: object) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def plant_and_run(tree: Path, python: str, tests: list[str], bug: Bug) -> tuple[int, str]:
    """Run the tests with the bug planted; the file is restored however the
    run ends, a SIGTERM (e.g. from `timeout`) included."""
    path = tree / bug.file
    src = path.read_text()
    previous = signal.signal(signal.SIGTERM, _interrupted)
    try:
        path.write_text(src.replace(bug.old, bug.new))
        return run_tests(tree, python, tests)
    finally:
        path.write_text(src)
        signal.signal(signal.SIGTERM, previous)


def main(argv: list[str] | None = None) -> int:
    groups = load_groups()
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--base", default=None, help="default: the newest under patches/")
    p.add_argument("--tree", help="fork tree (default: .fork/BASE)")
    p.add_argument("--python", help="its Python (default: .fork/venvs/BASE/bin/python)")
    p.add_argument("--group", action="append", choices=[g.name for g in groups])
    p.add_argument("--file", help="only bugs planted in files whose path contains this")
    p.add_argument("only", nargs="*", type=int)
    args = p.parse_args(argv)
    base = args.base or max(
        (d.name for d in (ROOT / "patches").iterdir() if d.is_dir()), default=""
    )
    tree = Path(args.tree or ROOT / ".fork" / base)
    python = args.python or str(ROOT / ".fork" / "venvs" / base / "bin" / "python")
    if not tree.is_dir():
        print(
            f"error: no fork tree at {tree}\n  Build it first: ./vllm-fork --base {base} build",
            file=sys.stderr,
        )
        return 2
    chosen = [g for g in groups if not args.group or g.name in args.group]
    caught = tried = stale = 0
    number = -1
    for group in chosen:
        tests = present(tree, group.tests)
        for bug in group.bugs:
            number += 1
            if args.only and number not in args.only:
                continue
            if args.file and args.file not in bug.file:
                continue
            reason = stale_reason(tree, bug)
            if reason:
                stale += 1
                print(f"{number:3} stale    {group.name}: {reason}", flush=True)
                continue
            if not tests:
                print(
                    f"{number:3} ERROR    {group.name}: none of its tests is in the tree",
                    flush=True,
                )
                continue
            start = time.time()
            rc, last = plant_and_run(tree, python, tests, bug)
            if rc in (4, 5):  # pytest: usage error / no tests collected
                print(
                    f"{number:3} ERROR    {group.name}: pytest ran no test: {last[:100]}",
                    flush=True,
                )
                continue
            tried += 1
            caught += rc != 0
            print(
                f"{number:3} {'caught  ' if rc else 'SURVIVED'} {time.time() - start:4.0f}s {group.name} "
                f"{os.path.basename(bug.file)}: {bug.old.strip()[:60]!r} -> {bug.new.strip()[:40]!r} | {last[:80]}",
                flush=True,
            )
    rate = f" ({100 * caught / tried:.0f}%)" if tried else ""
    print(f"caught {caught} of {tried}{rate}; {stale} stale")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
