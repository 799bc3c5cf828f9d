"""The queue tool on a synthetic upstream release: fast, no network."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

from tests.conftest import GOOD_MESSAGE, Queue, make_pin, run_git
from vllm_fork.cli import main


def snapshot(tree: Path) -> dict[str, bytes]:
    """Every file under `tree`, .git included, by content."""
    files = {}
    for path in sorted(tree.rglob("*")):
        if path.is_file() and "/.git/objects/" not in str(path):
            files[str(path.relative_to(tree))] = path.read_bytes()
    return files


def build_with_patches(queue: Queue, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(queue.argv("build", "--no-venv")) == 0
    queue.commit(GOOD_MESSAGE.format(title="Align pages to 64"), {"vllm/page.py": "def page_size(tokens: int, alignment: int = 64) -> int:\n    return -(-tokens // alignment) * alignment\n"})
    attn = (queue.fork / "vllm/attn.py").read_text().replace("LINE_20 = 20", "LINE_20 = 2000")
    queue.commit(GOOD_MESSAGE.format(title="Change line 20"), {"vllm/attn.py": attn, "tests/kernels/test_attn.py": "def test_x() -> None:\n    assert True\n"})
    assert main(queue.argv("export")) == 0
    capsys.readouterr()


def test_build_export_roundtrip_is_byte_stable(queue: Queue, capsys: pytest.CaptureFixture[str]) -> None:
    build_with_patches(queue, capsys)
    names = (queue.patches / "series").read_text().split("\n")
    assert "ROCm-Kernel-Align-pages-to-64.patch" in names
    before = snapshot(queue.patches)
    assert main(queue.argv("export")) == 0
    assert "0 file(s) changed" in capsys.readouterr().out
    # A fresh build from the exported files exports the very same bytes.
    shutil.rmtree(queue.fork)
    assert main(queue.argv("build", "--no-venv")) == 0
    assert main(queue.argv("export")) == 0
    assert snapshot(queue.patches) == before
    log = run_git(queue.fork, "log", "--format=%s", "v1.0.0..HEAD").splitlines()
    assert log == ["[ROCm][Kernel] Change line 20", "[ROCm][Kernel] Align pages to 64"], "git am must keep the [tags]"


def test_base_commit_is_reproducible(queue: Queue) -> None:
    assert main(queue.argv("build", "--no-venv")) == 0
    first = run_git(queue.fork, "rev-parse", "v1.0.0")
    shutil.rmtree(queue.fork)
    assert main(queue.argv("build", "--no-venv")) == 0
    assert run_git(queue.fork, "rev-parse", "v1.0.0") == first
    assert not (queue.fork / "vllm/_version.py").read_text() == "", "generated files stay in the tree"
    assert "vllm/_version.py" not in run_git(queue.fork, "ls-files")


def target_checkout(queue: Queue, tmp_path: Path) -> Path:
    target = tmp_path / "user-vllm"
    run_git(tmp_path, "clone", "-q", str(queue.fork), str(target))
    run_git(target, "checkout", "-q", "-B", "mine", "v1.0.0")
    return target


def test_apply_onto_checkout(queue: Queue, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    build_with_patches(queue, capsys)
    target = target_checkout(queue, tmp_path)
    assert main(queue.argv("apply", str(target))) == 0
    assert run_git(target, "log", "-1", "--format=%s").strip() == "[ROCm][Kernel] Change line 20"
    assert run_git(target, "rev-parse", "--abbrev-ref", "HEAD").strip() == "mine"


def test_apply_corrupted_hunk_names_it_and_changes_nothing(
    queue: Queue, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    build_with_patches(queue, capsys)
    patch = queue.patches / "ROCm-Kernel-Change-line-20.patch"
    text = patch.read_text()
    assert " LINE_18 = 18\n" in text
    patch.write_text(text.replace(" LINE_18 = 18\n", " LINE_18 = 1818\n"))
    target = target_checkout(queue, tmp_path)
    before = snapshot(target)
    branches = run_git(target, "branch", "-a")
    assert main(queue.argv("apply", str(target))) == 2
    err = capsys.readouterr().err
    assert "patch ROCm-Kernel-Change-line-20.patch does not apply" in err
    assert "file vllm/attn.py, hunk 1 of 1 (@@ -17,7 +17,7 @@)" in err
    assert "nothing was changed" in err
    assert snapshot(target) == before
    assert run_git(target, "branch", "-a") == branches
    assert run_git(target, "status", "--porcelain") == ""


def test_apply_refuses_other_base(queue: Queue, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    build_with_patches(queue, capsys)
    target = tmp_path / "other"
    target.mkdir()
    (target / "x.py").write_text("x = 1\n")
    run_git(target, "init", "-q")
    run_git(target, "add", "-A")
    run_git(target, "commit", "-q", "-m", "other")
    assert main(queue.argv("apply", str(target))) == 2
    assert "is not based on vLLM 1.0.0" in capsys.readouterr().err


def test_export_refuses_dirty_fork(queue: Queue, capsys: pytest.CaptureFixture[str]) -> None:
    build_with_patches(queue, capsys)
    (queue.fork / "vllm/page.py").write_text("# edited\n")
    before = snapshot(queue.patches)
    assert main(queue.argv("export")) == 2
    assert "refusing to export" in capsys.readouterr().err
    assert snapshot(queue.patches) == before


def test_export_refuses_a_detached_head(queue: Queue, capsys: pytest.CaptureFixture[str]) -> None:
    """A check killed in its bisect leaves the tree at an early patch: an
    export from there would delete every later patch file."""
    build_with_patches(queue, capsys)
    run_git(queue.fork, "checkout", "-q", "--detach", "HEAD~1")
    before = snapshot(queue.patches)
    assert main(queue.argv("export")) == 2
    err = capsys.readouterr().err
    assert "refusing to export" in err and "detached HEAD" in err and "checkout main" in err
    assert snapshot(queue.patches) == before
    run_git(queue.fork, "checkout", "-q", "main")
    assert main(queue.argv("export")) == 0


def test_build_refuses_to_drop_unexported_commits(queue: Queue, capsys: pytest.CaptureFixture[str]) -> None:
    build_with_patches(queue, capsys)
    queue.commit(GOOD_MESSAGE.format(title="Not exported yet"), {"vllm/new.py": "y = 2\n"})
    assert main(queue.argv("build", "--no-venv")) == 2
    err = capsys.readouterr().err
    assert "not exported" in err and "Not exported yet" in err
    assert (queue.fork / "vllm/new.py").exists()


def test_unknown_base_lists_known(queue: Queue, capsys: pytest.CaptureFixture[str]) -> None:
    make_pin(queue.root / "patches" / "v2.0.0", "2.0.0", "0" * 64)
    assert main(["--base", "v9.9.9", *queue.argv("build", "--no-venv")]) == 2
    err = capsys.readouterr().err
    assert "unknown base 'v9.9.9'" in err and "v1.0.0, v2.0.0" in err


def test_sha256_mismatch_refuses(queue: Queue, capsys: pytest.CaptureFixture[str]) -> None:
    make_pin(queue.patches, "1.0.0", "f" * 64)
    assert main(queue.argv("build", "--no-venv")) == 2
    assert "sha256" in capsys.readouterr().err
    assert not queue.fork.exists()
    assert not list(queue.cache.rglob("*.tar.gz"))


def test_network_failure_says_so_and_uses_cache(
    queue: Queue, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PIP_INDEX_URL", "http://127.0.0.1:9/simple")
    assert main(queue.argv("build", "--no-venv")) == 2
    assert "could not reach the package index" in capsys.readouterr().err
    sha = hashlib.sha256(queue.sdist.read_bytes()).hexdigest()
    cached = queue.cache / "sdists" / sha / queue.sdist.name
    cached.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(queue.sdist, cached)
    assert main([a for a in queue.argv("build", "--no-venv") if a != "-q"]) == 0
    assert "using cached" in capsys.readouterr().err


def test_build_from_source_checkout(queue: Queue, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    build_with_patches(queue, capsys)
    checkout = tmp_path / "vllm-git"
    run_git(tmp_path, "clone", "-q", str(queue.fork), str(checkout))
    run_git(checkout, "reset", "-q", "--hard", "v1.0.0")
    other = tmp_path / "fork2"
    assert main(queue.argv("build", "--no-venv", "--source", str(checkout), "--fork", str(other))) == 0
    assert "2000" in (other / "vllm/attn.py").read_text()


def test_status_reports_each_state(queue: Queue, capsys: pytest.CaptureFixture[str]) -> None:
    build_with_patches(queue, capsys)
    assert main(queue.argv("status")) == 0
    out = capsys.readouterr().out
    assert out.count("applied ") == 2
    # A patch whose change the base already has, and one that conflicts.
    other = queue.root / "patches" / "other"
    other.mkdir()
    run_git(queue.fork, "format-patch", "-1", "-o", str(other), "HEAD~1")
    conflicting = other / "conflict.patch"
    text = next(other.glob("0001-*")).read_text()
    conflicting.write_text(
        text.replace("alignment: int = 16)", "alignment: int = 32)").replace("alignment: int = 64)", "alignment: int = 128)")
    )
    run_git(queue.fork, "checkout", "-q", "v1.0.0")
    (queue.fork / "vllm/page.py").write_text((queue.fork / "vllm/page.py").read_text().replace("= 16", "= 64"))
    run_git(queue.fork, "commit", "-q", "-am", "upstream did it too")
    run_git(queue.fork, "tag", "-f", "v1.0.0")
    backport = other / "backport.patch"
    backport.write_text(conflicting.read_text().replace("Upstream-Status: Pending", "Upstream-Status: Backport [v0.9.0]"))
    (other / "series").write_text(f"{next(other.glob('0001-*')).name}\nconflict.patch\nbackport.patch\n")
    assert main(queue.argv("status", "--series", str(other / "series"))) == 1
    out = capsys.readouterr().out
    assert "already upstream  0001-" in out and "conflicting       conflict.patch" in out
    assert "already upstream  backport.patch" in out and "backport from v0.9.0" in out


def test_upstream_strips_internal_trailers(queue: Queue, capsys: pytest.CaptureFixture[str]) -> None:
    build_with_patches(queue, capsys)
    # The submitter signs (the synthetic Dev One's address is a reserved,
    # placeholder domain); its sparse message is a draft (tests/tool/test_upstream.py).
    argv = ("upstream", "Align-pages", "--author", "Grace Hopper <gh@navy.mil>", "--draft")
    assert main(queue.argv(*argv)) == 0
    out = capsys.readouterr().out
    assert "Upstream-Status" not in out
    assert "Signed-off-by: Grace Hopper <gh@navy.mil>" in out
    for section in ("## Overview", "## Claims", "## Validation", "## Details"):
        assert section in out
    assert "Subject: [PATCH] [ROCm][Kernel] Align pages to 64" in out
    assert "diff --git a/vllm/page.py b/vllm/page.py" in out


def test_check_static_ok(queue: Queue, capsys: pytest.CaptureFixture[str]) -> None:
    build_with_patches(queue, capsys)
    assert main(queue.argv("check", "--static")) == 0
    assert "static: ok" in capsys.readouterr().out


def test_check_apply_rebuilds(queue: Queue, capsys: pytest.CaptureFixture[str]) -> None:
    build_with_patches(queue, capsys)
    assert main(queue.argv("check", "--apply")) == 0
    assert "apply: ok" in capsys.readouterr().out


def test_bisect_runs_each_patch_tests(queue: Queue, capsys: pytest.CaptureFixture[str]) -> None:
    import sys

    from vllm_fork import checks
    from vllm_fork.bases import load_base

    build_with_patches(queue, capsys)
    queue.commit(
        GOOD_MESSAGE.format(title="Touch a module this machine cannot import"),
        {"vllm/gpu_only.py": '# touched\nraise RuntimeError("Found no GPU")\n'},
    )
    queue.commit(GOOD_MESSAGE.format(title="Break the import"), {"vllm/page.py": "def broken(:\n"})
    queue.commit(
        GOOD_MESSAGE.format(title="Fix it, break a test"),
        {"vllm/page.py": "x = 1\n", "tests/kernels/test_attn.py": "def test_x() -> None:\n    assert False\n"},
    )
    gpu_test = (queue.fork / "tests/kernels/test_gpu_only.py").read_text()
    queue.commit(
        GOOD_MESSAGE.format(title="Extend a test file whose tests need a GPU"),
        {"tests/kernels/test_gpu_only.py": gpu_test + "\n\ndef test_new() -> None:\n    assert True\n"},
    )
    queue.commit(
        GOOD_MESSAGE.format(title="Drop that test, change only a helper"),
        {"tests/kernels/test_gpu_only.py": gpu_test + "\n\nHELPER = 2\n"},
    )
    queue.commit(
        GOOD_MESSAGE.format(title="Add a failing test to it"),
        {
            "tests/kernels/test_gpu_only.py": gpu_test
            + "\n\ndef test_new() -> None:\n    assert True\n\n\ndef test_bad() -> None:\n    assert False\n"
        },
    )
    steps = checks.bisect(load_base(queue.root, "v1.0.0"), queue.fork, Path(sys.executable), lambda m: None)
    assert [s.ok for s in steps] == [True, True, True, False, False, True, True, False, False]
    # Extending vLLM's own test file runs only the test the patch adds ...
    assert "1 passed" in steps[5].detail and "failed" not in steps[5].detail
    # ... a change outside its test functions runs the file, excusing what
    # failed before the patch too ...
    assert "fail before this patch too" in steps[6].detail
    # ... and a failing test the patch adds is never excused.
    assert "new failures:" in steps[7].detail and "test_bad" in steps[7].detail
    assert "no tests of its own" in steps[0].detail and "1 passed" in steps[1].detail
    assert "import vllm.page failed: SyntaxError" in steps[3].detail
    assert "1 failed" in steps[4].detail
    # At the head, every test the series adds or changes runs once more; the
    # two still failing are not excused (neither fails at the release).
    assert steps[8].subject == checks.HEAD_STEP
    assert "new failures:" in steps[8].detail
    assert "test_attn.py::test_x" in steps[8].detail and "test_bad" in steps[8].detail
    assert run_git(queue.fork, "rev-parse", "--abbrev-ref", "HEAD").strip() == "main", "bisect restores HEAD"


def test_bisect_head_step_catches_a_test_a_later_patch_breaks(
    queue: Queue, capsys: pytest.CaptureFixture[str]
) -> None:
    """A patch that changes a module without touching the test file of an
    earlier patch passes its own step; only the head step sees that test
    fail. Tests that fail at the release too (vLLM's GPU-only ones) are
    excused there."""
    import sys

    from vllm_fork import checks
    from vllm_fork.bases import load_base

    build_with_patches(queue, capsys)
    test = "from vllm.value import VALUE\n\n\ndef test_value() -> None:\n    assert VALUE == 1\n"
    queue.commit(
        GOOD_MESSAGE.format(title="Add a value and its test"),
        {"vllm/value.py": "VALUE = 1\n", "tests/kernels/test_value.py": test},
    )
    queue.commit(GOOD_MESSAGE.format(title="Change the value"), {"vllm/value.py": "VALUE = 2\n"})
    gpu_test = (queue.fork / "tests/kernels/test_gpu_only.py").read_text()
    queue.commit(
        GOOD_MESSAGE.format(title="Change a helper of a test file whose tests need a GPU"),
        {"tests/kernels/test_gpu_only.py": gpu_test + "\n\nHELPER = 2\n"},
    )
    base = load_base(queue.root, "v1.0.0")
    steps = checks.bisect(base, queue.fork, Path(sys.executable), lambda m: None)
    assert [s.ok for s in steps] == [True, True, True, True, True, False]
    assert steps[-1].subject == checks.HEAD_STEP
    assert "new failures:" in steps[-1].detail and "test_value.py::test_value" in steps[-1].detail
    assert "test_gpu_only" not in steps[-1].detail.split("new failures:")[1].split("\n\n")[0]

    queue.commit(GOOD_MESSAGE.format(title="Restore the value"), {"vllm/value.py": "VALUE = 1\n"})
    steps = checks.bisect(base, queue.fork, Path(sys.executable), lambda m: None)
    assert [s.ok for s in steps] == [True] * 7
    assert "fail at the release too" in steps[-1].detail


HOOK_CONFIG = """\
repos:
- repo: local
  hooks:
  - id: check-forbidden-word
    name: No FORBIDDEN in Python files
    entry: python tools/pre_commit/check_forbidden_word.py
    language: python
    types: [python]
  - id: ci-only
    name: Runs in CI only
    entry: python tools/pre_commit/always_fails.py
    language: python
    stages: [manual]
"""
HOOK_SCRIPT = """\
import sys

bad = [f for f in sys.argv[1:] if "FORBIDDEN" in open(f).read()]
print("\\n".join(bad))
sys.exit(1 if bad else 0)
"""


def test_gate_runs_the_trees_own_hooks_on_touched_files(
    queue: Queue, capsys: pytest.CaptureFixture[str]
) -> None:
    import sys

    from vllm_fork import checks
    from vllm_fork.bases import load_base

    bindir = Path(sys.executable).parent
    if not ((bindir / "ruff").exists() and (bindir / "typos").exists()):
        pytest.skip("ruff and typos are not installed beside this Python (the fork venv has them).")
    assert main(queue.argv("build", "--no-venv")) == 0
    queue.commit(
        "[Misc] Add hooks\n\nThe tree's own gate.\n",
        {
            ".pre-commit-config.yaml": HOOK_CONFIG,
            "tools/pre_commit/check_forbidden_word.py": HOOK_SCRIPT,
            "tools/pre_commit/always_fails.py": "raise SystemExit(1)\n",
        },
    )
    run_git(queue.fork, "tag", "-f", "v1.0.0")  # the hooks are part of the base
    base = load_base(queue.root, "v1.0.0")
    queue.commit(GOOD_MESSAGE.format(title="Clean"), {"vllm/clean.py": "x = 1\n"})
    hook_envs = queue.root / "hook-envs"
    assert checks.gate(base, queue.fork, Path(sys.executable), hook_envs, lambda m: None) == []
    queue.commit(
        GOOD_MESSAGE.format(title="Dirty"),
        {"vllm/dirty.py": "x=1  # FORBIDDEN\n", "vllm/untouched_ok.py": "y = 2\n"},
    )
    findings = checks.gate(base, queue.fork, Path(sys.executable), hook_envs, lambda m: None)
    names = sorted(f.split(" failed")[0] for f in findings)
    assert names == ["check-forbidden-word", "ruff format"], findings
    assert all("vllm/dirty.py" in f for f in findings)


def tiny_wheel(folder: Path) -> Path:
    """A wheel of one module, `hookdep` (VALUE = 42), installable offline."""
    import base64
    import zipfile

    dist = "hookdep-1.0.dist-info"
    files = {
        "hookdep.py": "VALUE = 42\n",
        f"{dist}/METADATA": "Metadata-Version: 2.1\nName: hookdep\nVersion: 1.0\n",
        f"{dist}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = []
    for name, text in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=")
        record.append(f"{name},sha256={digest.decode()},{len(text.encode())}")
    files[f"{dist}/RECORD"] = "\n".join([*record, f"{dist}/RECORD,,"]) + "\n"
    wheel = folder / "hookdep-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as z:
        for name, text in files.items():
            z.writestr(name, text)
    return wheel


HOOK_ENV_CONFIG = """\
repos:
- repo: local
  hooks:
  - id: bare
    entry: python tools/pre_commit/bare.py
    language: python
    types: [python]
  - id: with-dependency
    entry: python tools/pre_commit/with_dependency.py
    language: python
    types: [python]
    additional_dependencies: ["{wheel}"]
"""
# Run by a hook without dependencies: neither the fork venv's packages
# (pytest) nor another hook's are there.
BARE_HOOK = """\
import importlib.util, sys

assert importlib.util.find_spec("pytest") is None, sys.executable
assert importlib.util.find_spec("hookdep") is None, sys.executable
"""
# Run by a hook with one dependency: it imports, and the hook's own
# environment comes first on PATH (vLLM's mypy hook runs `mypy`).
DEPENDENCY_HOOK = """\
import os, shutil, sys

import hookdep

assert hookdep.VALUE == 42
assert os.path.dirname(shutil.which("python")) == os.path.dirname(sys.executable)
"""


def test_gate_runs_each_hook_in_an_environment_of_its_dependencies(
    queue: Queue, tmp_path: Path
) -> None:
    """As pre-commit runs a `language: python` hook: in a virtualenv that
    holds its additional_dependencies and nothing else, not in the fork's venv
    (whose torch and transformers vLLM's pre-commit never sees)."""
    import sys

    from vllm_fork import checks
    from vllm_fork.bases import load_base

    assert main(queue.argv("build", "--no-venv")) == 0
    queue.commit(
        "[Misc] Add hooks\n\nThe tree's own gate.\n",
        {
            ".pre-commit-config.yaml": HOOK_ENV_CONFIG.format(wheel=tiny_wheel(tmp_path)),
            "tools/pre_commit/bare.py": BARE_HOOK,
            "tools/pre_commit/with_dependency.py": DEPENDENCY_HOOK,
        },
    )
    run_git(queue.fork, "tag", "-f", "v1.0.0")  # the hooks are part of the base
    base = load_base(queue.root, "v1.0.0")
    queue.commit(GOOD_MESSAGE.format(title="Clean"), {"vllm/clean.py": "x = 1\n"})
    hook_envs = tmp_path / "hook-envs"
    for built in (2, 0):  # built, then reused
        log: list[str] = []
        findings = checks.gate(base, queue.fork, Path(sys.executable), hook_envs, log.append)
        assert [f for f in findings if not f.startswith(("ruff", "typos"))] == []
        assert len([m for m in log if "hook environment" in m]) == built, log
        assert len([p for p in hook_envs.iterdir() if p.is_dir()]) == 2


def test_upstream_sorts_unmarked_paragraphs_into_sections() -> None:
    from vllm_fork.upstream import sections

    body = (
        "Why the change.\n\nMeasured on one GPU: 2x.\n\n  table row\n\n"
        "Tests: fp32 reference.\n\nLeft out: fp8."
    )
    found = sections(body)
    assert found["Overview"] == "Why the change."
    assert found["Claims"] == "Measured on one GPU: 2x.\n\n  table row"
    assert found["Validation"] == "Tests: fp32 reference."
    assert found["Details"] == "Left out: fp8."
    marked = sections("Intro.\nClaims:\nFast.\nDetails:\nMore.")
    assert marked["Overview"] == "Intro." and marked["Claims"] == "Fast." and marked["Details"] == "More."


def test_bundle_carries_the_release_version_of_modified_files(
    queue: Queue, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import tarfile

    build_with_patches(queue, capsys)
    out = tmp_path / "bundle.tgz"
    assert main(queue.argv("bundle", "-o", str(out))) == 0
    with tarfile.open(out) as tar:
        names = set(tar.getnames())
        base_attn = tar.extractfile("base/vllm/attn.py").read().decode()  # type: ignore[union-attr]
        attn = tar.extractfile("vllm/attn.py").read().decode()  # type: ignore[union-attr]
    assert "LINE_20 = 20\n" in base_attn and "LINE_20 = 2000" in attn
    # Only vllm/ files: tests the series touches are not carried as base.
    assert "tests/kernels/test_attn.py" in names
    assert not any(n.startswith("base/tests/") for n in names)


def test_bundle_carries_the_test_helpers_the_series_touches(
    queue: Queue, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A series test that imports a helper module it changes (as
    tests/v1/attention/utils.py) needs that module and its package there."""
    import subprocess
    import tarfile

    build_with_patches(queue, capsys)
    (queue.fork / "tests/v1/attention").mkdir(parents=True)
    (queue.fork / "tests/v1/__init__.py").write_text("")
    (queue.fork / "tests/v1/attention/utils.py").write_text("HELPER = 1\n")
    (queue.fork / "tests/v1/attention/test_new.py").write_text(
        "from tests.v1.attention.utils import HELPER\n"
    )
    for args in (["add", "-A"], ["commit", "-q", "-m", "a test with a helper"]):
        subprocess.run(["git", *args], cwd=queue.fork, check=True)
    out = tmp_path / "bundle.tgz"
    assert main(queue.argv("bundle", "-o", str(out))) == 0
    with tarfile.open(out) as tar:
        names = set(tar.getnames())
    assert {
        "tests/v1/__init__.py",
        "tests/v1/attention/utils.py",
        "tests/v1/attention/test_new.py",
    } <= names


def test_apply_malformed_hunk_says_so_without_git_advice(
    queue: Queue, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    build_with_patches(queue, capsys)
    patch = queue.patches / "ROCm-Kernel-Change-line-20.patch"
    patch.write_text(patch.read_text().replace(" LINE_18 = 18\n", "LINE_18 = 18\n"))
    target = target_checkout(queue, tmp_path)
    assert main(queue.argv("apply", str(target))) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: 1 patch(es) of v1.0.0 do not apply")
    assert "ROCm-Kernel-Change-line-20.patch does not apply: malformed patch" in err
    assert "hint:" not in err and "--continue" not in err and "Traceback" not in err


def test_apply_rerun_says_patches_are_already_there(
    queue: Queue, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    build_with_patches(queue, capsys)
    target = target_checkout(queue, tmp_path)
    assert main(queue.argv("apply", str(target))) == 0
    assert main(queue.argv("apply", str(target))) == 2
    assert "ROCm-Kernel-Change-line-20.patch is already applied (commit" in capsys.readouterr().err


def test_status_with_a_missing_series_file(queue: Queue, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(queue.argv("build", "--no-venv")) == 0
    assert main(queue.argv("status", "--series", str(queue.root / "nowhere" / "series"))) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: no series file at ") and "Traceback" not in err


def test_bundle_refuses_a_dirty_tree(
    queue: Queue, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    build_with_patches(queue, capsys)
    (queue.fork / "vllm/page.py").write_text("# edited, not committed\n")
    assert main(queue.argv("bundle", "-o", str(tmp_path / "b.tgz"))) == 2
    assert "refusing to bundle" in capsys.readouterr().err
    assert not (tmp_path / "b.tgz").exists()


def test_run_jobs_runs_what_it_can_and_says_what_it_did_not(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import os
    import sys

    from vllm_fork.cli import Job, run_jobs

    ok, bad = [sys.executable, "-c", "print('fine')"], [sys.executable, "-c", "raise SystemExit(3)"]
    jobs = {
        "a": Job(ok, [], 1),
        "b": Job(bad, [], 1),
        "c": Job(ok, ["a"], 1),
        "d": Job(ok, ["b"], 1),
        "e": Job(ok, ["d"], 1),
    }
    assert run_jobs(jobs, tmp_path, dict(os.environ), processes=2) is False
    out = capsys.readouterr().out
    assert "== a: ok" in out and "== c: ok" in out and "fine" in out
    assert "== b: FAILED (exit 3)" in out
    assert "== d: not run (needs b)" in out and "== e: not run (needs d)" in out


@pytest.mark.timeout(120)  # a job that waits for more room than there is never starts
def test_run_jobs_keeps_at_most_its_processes_computing(tmp_path: Path) -> None:
    """Jobs start in the order given while the processes they keep computing
    fit; a job wider than that runs alone, one of no processes beside
    anything."""
    import os
    import sys

    from vllm_fork.cli import Job, run_jobs

    def job(name: str, processes: int, needs: list[str] | None = None, secs: float = 0.5) -> Job:
        # Its start and end on the wall clock, in a file named after it.
        code = (
            f"import sys, time; s = time.time(); time.sleep({secs}); "
            "open(sys.argv[1], 'w').write(f'{s} {time.time()}')"
        )
        return Job([sys.executable, "-c", code, str(tmp_path / name)], needs or [], processes)

    jobs = {
        "disk-first": job("disk-first", 0, secs=1.5),
        "pair": job("pair", 2),
        "one-a": job("one-a", 1),
        "one-b": job("one-b", 1),
        "one-c": job("one-c", 1),
        "wide": job("wide", 3),
        "disk": job("disk", 0),
        "two": job("two", 2, ["wide"]),
    }
    assert run_jobs(jobs, tmp_path, dict(os.environ), processes=2) is True
    spans = {n: tuple(map(float, (tmp_path / n).read_text().split())) for n in jobs}

    def overlap(a: str, b: str) -> bool:
        return spans[a][0] < spans[b][1] and spans[b][0] < spans[a][1]

    for name, (start, _) in spans.items():
        busy = sum(jobs[n].processes for n, (s, e) in spans.items() if s <= start < e)
        assert busy <= 2 or name == "wide", f"{busy} processes computing when {name} started: {spans}"
    assert overlap("one-a", "one-b"), "two 1-process jobs with room for 2 ran one after the other"
    assert overlap("pair", "disk-first"), "a job of no processes took room"
    for other in ("pair", "one-a", "one-b", "one-c", "two"):
        assert not overlap("wide", other), f"the 3-process job ran beside {other}"
    assert spans["wide"][1] <= spans["two"][0], "a job ran before what it needs"
    assert overlap("disk", "pair"), "a job of no processes waited for room"


def test_the_test_verb_runs_each_test_once_and_the_bisects_first(tmp_path: Path) -> None:
    """`test`'s jobs for this repository: the builds, then the bisects (the
    longest jobs), the upstream-tests checks, the gates, the Triton target check's jobs, the tool's
    tests. Each target check job collects one test; the tool's tests job
    collects every other test under tests/, so each runs once."""
    import subprocess
    import sys
    from collections import Counter

    from vllm_fork.bases import known_bases
    from vllm_fork.cli import Ctx, all_test_jobs, parser

    root = Path(__file__).resolve().parents[2]
    ctx = Ctx(parser().parse_args(["--repo", str(root), "test"]))
    names = known_bases(root)
    jobs = all_test_jobs(ctx, names, tmp_path)
    kinds = [
        "build" if t.startswith("build") else
        "copy" if t.startswith("copy") else
        t.split(": ")[1] if t.startswith("check") else
        "targets" if t.startswith("Triton target check") else "tool"
        for t in jobs
    ]  # fmt: skip
    order = [k for k in kinds if k != "copy"]
    steps = ["build", "bisect", "upstream-tests", "gate", "targets", "tool"]
    assert order == sorted(order, key=steps.index), order
    assert kinds.count("bisect") == kinds.count("gate") == kinds.count("build") == len(names)
    assert kinds.count("upstream-tests") == len(names)

    def collected(cmd: list[str]) -> list[str]:
        args = [a for a in cmd[cmd.index("pytest") + 1 :] if a not in ("-n", "2", "--durations=10", "-q")]
        out = subprocess.run(
            [sys.executable, "-m", "pytest", "--collect-only", "-q", *args],
            cwd=root, capture_output=True, text=True,
        )  # fmt: skip
        assert out.returncode == 0, out.stdout + out.stderr
        return [line for line in out.stdout.splitlines() if "::" in line]

    pytest_jobs = {t: j for t, j in jobs.items() if "pytest" in j.cmd}
    runs = {t: collected(j.cmd) for t, j in pytest_jobs.items()}
    for title, ids in runs.items():
        if title.startswith("Triton target check"):
            assert len(ids) == 1, (title, ids)
    every = collected([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "tests"])
    ran = Counter(i for ids in runs.values() for i in ids)
    assert ran == Counter(every), f"run twice: {ran - Counter(every)}, never: {Counter(every) - ran}"
