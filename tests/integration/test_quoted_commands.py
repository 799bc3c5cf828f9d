"""Every command an upstream-bound message of the newest base quotes runs in
the built fork tree: pytest collects its tests (one run for all of them), a
Python script answers `--help`. A reviewer who copies a command from the PR
must not hit a missing file or a changed flag.

The built tree and venv are `.fork/<base>` and `.fork/venvs/<base>` of this
checkout, or of the checkout `VLLM_FORK_BUILT` names (its patches/ must be
this one's: the tree is HEAD of the same series).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from vllm_fork import fork, msgrules, upstream, venv
from vllm_fork.bases import default_base, load_base
from vllm_fork.patchfile import parse_patch

ROOT = Path(__file__).resolve().parents[2]
BUILT = Path(os.environ.get("VLLM_FORK_BUILT", ROOT))
BASE = load_base(ROOT, default_base(ROOT))

pytestmark = pytest.mark.integration


def quoted() -> list[tuple[str, msgrules.Command]]:
    return [
        (patch.name, command)
        for patch in map(parse_patch, BASE.patch_paths())
        if upstream.upstream_bound(patch)
        for command in msgrules.quoted_commands(patch.message)
        if command.program()[:1] != ["vllm"]  # a server or a GPU run: the checklist's
    ]


def is_pytest(command: msgrules.Command) -> bool:
    words = command.program()
    return words[0] == "pytest" or words[1:3] == ["-m", "pytest"]


def help_run(command: msgrules.Command) -> list[str] | None:
    """What shows a script's file and flags are there, without a GPU (None:
    a `python -c` snippet, which only a GPU run can check)."""
    words = command.program()
    if words[1:2] == ["-c"]:
        return None
    if words[1:2] == ["-m"]:
        return ["python", "-m", words[2], "--help"]
    return ["python", words[1], "--help"]


def run_in_tree(argv: list[str], extra_env: dict[str, str]) -> subprocess.CompletedProcess:
    """`argv` ("python": the fork's venv) in the built fork tree, on the CPU."""
    tree = fork.fork_dir(BUILT, BASE)
    python = venv.python_of(venv.venv_dir(BUILT, BASE))
    if not tree.is_dir() or not python.exists():
        pytest.skip(f"no built tree and venv for {BASE.name} in {BUILT}: run ./vllm-fork build")
    env = dict(os.environ, HF_HUB_OFFLINE="1", PYTHONDONTWRITEBYTECODE="1", OMP_NUM_THREADS="1")
    env.update(extra_env)
    env.update(TRITON_INTERPRET="1", CUDA_VISIBLE_DEVICES="")
    argv = [str(python) if a == "python" else a for a in argv]
    return subprocess.run(
        argv, check=False, cwd=tree, env=env, capture_output=True, text=True, timeout=600
    )


def test_quoted_pytest_commands_collect_in_the_fork_tree() -> None:
    """pytest collects the files of every quoted pytest command, in one run
    (each run would import vLLM and its test conftest again)."""
    commands = [(patch, command) for patch, command in quoted() if is_pytest(command)]
    files = sorted({f for _, command in commands for f in command.files()})
    assert files, "no message quotes a pytest command"
    # No .pytest_cache in the tree: it may be someone else's (read-only use).
    argv = ["python", "-m", "pytest", "-p", "no:cacheprovider", "--collect-only", "-q", *files]
    proc = run_in_tree(argv, {})
    where = "\n".join(
        f"{patch}, body line {command.line}: `{command.text}`" for patch, command in commands
    )
    assert proc.returncode == 0, (
        f"{where}\nexited {proc.returncode}:\n{(proc.stdout + proc.stderr)[-3000:]}"
    )


@pytest.mark.parametrize(
    ("patch", "command"),
    [(patch, command) for patch, command in quoted() if not is_pytest(command)],
    ids=lambda v: v if isinstance(v, str) else f"line{v.line}",
)
def test_quoted_script_runs_in_the_fork_tree(patch: str, command: msgrules.Command) -> None:
    argv = help_run(command)
    if argv is None:
        pytest.skip("a python -c snippet: run on a GPU only")
    proc = run_in_tree(argv, command.env())
    assert proc.returncode == 0, (
        f"{patch}, body line {command.line}: `{command.text}`\n"
        f"`{' '.join(argv)}` exited {proc.returncode}:\n{(proc.stdout + proc.stderr)[-3000:]}"
    )


def test_the_pr_template_checklist_is_the_trees() -> None:
    """upstream's copy of the template's checklist matches the base's own."""
    template = fork.fork_dir(BUILT, BASE) / ".github" / "PULL_REQUEST_TEMPLATE.md"
    if not template.is_file():
        pytest.skip(f"no built tree for {BASE.name} in {BUILT}")
    text = template.read_text()
    ours = upstream.TEMPLATE_CHECKLIST.replace("- [x] AI assistance", "- [ ] AI assistance")
    assert ours in text
    assert [line for line in text.splitlines() if line.startswith("## ")] == [
        f"## {name}" for name in upstream.SECTIONS
    ]
