"""`rebase`: the queue moved onto another (synthetic) release or a git checkout."""

from __future__ import annotations

import hashlib
import tarfile
from pathlib import Path

import pytest

from tests.conftest import GOOD_MESSAGE, UPSTREAM_FILES, Queue, run_git
from vllm_fork.cli import main

# v1.1.0 already has patch A, moved the context of patch B, changed the line
# patch C changes, and left patch D's lines alone.
NEW_FILES = dict(
    UPSTREAM_FILES,
    **{
        "vllm/_version.py": "__version__ = version = '1.1.0'\n__commit_id__ = commit_id = 'gabcdef123'\n",
        "vllm/page.py": UPSTREAM_FILES["vllm/page.py"].replace("= 16", "= 64"),
        "vllm/attn.py": UPSTREAM_FILES["vllm/attn.py"]
        .replace("LINE_18 = 18\n", "LINE_18 = 1818\n")
        .replace("LINE_30 = 30\n", "LINE_30 = 31\n"),
    },
)


def add_release(queue: Queue, tmp_path: Path) -> Path:
    """vLLM 1.1.0 on the file:// index beside 1.0.0; returns its source folder."""
    src = tmp_path / "upstream" / "vllm-1.1.0"
    for name, text in NEW_FILES.items():
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        (src / name).write_text(text)
    sdist = queue.index / "vllm" / "vllm-1.1.0.tar.gz"
    with tarfile.open(sdist, "w:gz") as tar:
        tar.add(src, arcname="vllm-1.1.0")
    links = []
    for path in sorted((queue.index / "vllm").glob("*.tar.gz")):
        sha = hashlib.sha256(path.read_bytes()).hexdigest()
        links.append(f'<a href="{path.name}#sha256={sha}">{path.name}</a>')
    (queue.index / "vllm" / "index.html").write_text(
        f"<html><body>{''.join(links)}</body></html>\n"
    )
    return src


def queue_with_four_patches(queue: Queue, tmp_path: Path) -> Path:
    assert main(queue.argv("build", "--no-venv")) == 0
    page = (queue.fork / "vllm/page.py").read_text().replace("= 16", "= 64")
    queue.commit(GOOD_MESSAGE.format(title="A align pages to 64"), {"vllm/page.py": page})
    for title, line in (("B", 20), ("C", 30), ("D", 5)):
        attn = (queue.fork / "vllm/attn.py").read_text()
        attn = attn.replace(f"LINE_{line} = {line}\n", f"LINE_{line} = {line}00\n")
        queue.commit(
            GOOD_MESSAGE.format(title=f"{title} change line {line}"), {"vllm/attn.py": attn}
        )
    assert main(queue.argv("export")) == 0
    return add_release(queue, tmp_path)


def report(out: str) -> dict[str, str]:
    """patch title letter -> outcome, from the printed report."""
    found = {}
    for line in out.splitlines():
        if "ROCm-Kernel-" in line:
            outcome, _, rest = line.strip().partition("  ")
            letter = rest.strip().split("ROCm-Kernel-", 1)[1][0]
            found[letter] = outcome.strip()
    return found


def test_rebase_onto_a_release_stops_at_the_conflict_and_continues(
    queue: Queue, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    queue_with_four_patches(queue, tmp_path)
    capsys.readouterr()
    assert main(queue.argv("rebase", "--onto", "v1.1.0")) == 2
    err = capsys.readouterr().err
    new_tree = queue.root / ".fork" / "v1.1.0"
    assert err.startswith("error: patch ROCm-Kernel-C-change-line-30.patch conflicts with v1.1.0: ")
    assert (
        "file vllm/attn.py, hunk 1 of 1 (@@ -27,7 +27,7 @@)" in err
        and "conflicts in vllm/attn.py" in err
    )
    assert "rebase --continue" in err and "Traceback" not in err
    assert not (queue.root / "patches" / "v1.1.0").exists()
    # Resolve: upstream's other changes plus the patch's line, as a user would.
    resolved = NEW_FILES["vllm/attn.py"].replace("LINE_20 = 20\n", "LINE_20 = 2000\n")
    (new_tree / "vllm/attn.py").write_text(resolved.replace("LINE_30 = 31\n", "LINE_30 = 3000\n"))
    run_git(new_tree, "add", "vllm/attn.py")
    assert main(queue.argv("rebase", "--continue")) == 0
    out = capsys.readouterr().out
    assert report(out) == {
        "A": "already upstream",
        "B": "applied 3-way",
        "C": "resolved by hand",
        "D": "applied clean",
    }, out
    folder = queue.root / "patches" / "v1.1.0"
    pin = (folder / "pin.toml").read_text()
    sha = hashlib.sha256((queue.index / "vllm" / "vllm-1.1.0.tar.gz").read_bytes()).hexdigest()
    assert f'sha256 = "{sha}"' in pin and 'upstream_commit = "abcdef123"' in pin
    assert [
        n[:13] for n in (folder / "series").read_text().split("\n") if n.endswith(".patch")
    ] == [
        "ROCm-Kernel-B",
        "ROCm-Kernel-C",
        "ROCm-Kernel-D",
    ]
    # The new queue is a queue like any other: static, and it builds from its pin.
    assert main(["--base", "v1.1.0", *queue.argv("check", "--static", "--apply")]) == 0
    assert not (queue.root / ".fork" / "rebase-in-progress").exists()


def test_rebase_abort_goes_back_to_where_it_started(
    queue: Queue, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    queue_with_four_patches(queue, tmp_path)
    before = sorted(p.name for p in (queue.root / "patches").iterdir())
    assert main(queue.argv("rebase", "--onto", "v1.1.0")) == 2
    assert main(queue.argv("rebase", "--onto", "v1.1.0")) == 2
    assert "already in progress" in capsys.readouterr().err
    assert main(queue.argv("rebase", "--abort")) == 0
    assert not (queue.root / ".fork" / "v1.1.0").exists()
    assert sorted(p.name for p in (queue.root / "patches").iterdir()) == before
    assert main(queue.argv("rebase", "--continue")) == 2
    assert "no rebase in progress" in capsys.readouterr().err


def test_rebase_onto_a_git_checkout_with_skip(
    queue: Queue, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = queue_with_four_patches(queue, tmp_path)
    checkout = tmp_path / "vllm-main"
    run_git(tmp_path, "init", "-q", "-b", "main", str(checkout))
    for name, text in NEW_FILES.items():
        (checkout / name).parent.mkdir(parents=True, exist_ok=True)
        (checkout / name).write_text((src / name).read_text())
    run_git(checkout, "add", "-A")
    run_git(checkout, "commit", "-q", "-m", "upstream main")
    head = run_git(checkout, "rev-parse", "HEAD").strip()
    argv = ("rebase", "--onto-source", str(checkout), "--onto-name", "main")
    assert main(queue.argv(*argv)) == 2
    capsys.readouterr()
    assert main(queue.argv("rebase", "--skip")) == 0
    out = capsys.readouterr().out
    assert report(out)["C"] == "dropped"
    pin = (queue.root / "patches" / "main" / "pin.toml").read_text()
    assert f'upstream_commit = "{head}"' in pin and 'tag = "upstream-main"' in pin
    # It builds from the checkout, and says how when asked to build it from an sdist.
    fork = tmp_path / "main-fork"
    assert main(["--base", "main", *queue.argv("build", "--no-venv", "--fork", str(fork))]) == 2
    assert "is a vLLM git checkout, not a release" in capsys.readouterr().err
    build = ("build", "--no-venv", "--source", str(checkout), "--fork", str(fork))
    assert main(["--base", "main", *queue.argv(*build)]) == 0


def test_rebase_onto_a_release_that_does_not_exist(
    queue: Queue, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    queue_with_four_patches(queue, tmp_path)
    assert main(queue.argv("rebase", "--onto", "v9.9.9")) == 2
    err = capsys.readouterr().err
    assert "no vLLM release 9.9.9" in err
    assert not (queue.root / ".fork" / "v9.9.9").exists()


def test_rebase_killed_mid_way_continues_or_aborts(
    queue: Queue, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.tool.test_atomic import run_killed

    queue_with_four_patches(queue, tmp_path)
    # Killed while it builds the old series (the 2nd of its four `git am`s).
    assert run_killed(queue, tmp_path, 2, "rebase", "--onto", "v1.1.0") == -9
    assert main(queue.argv("rebase", "--continue")) == 2
    assert "no rebase in progress" in capsys.readouterr().err
    assert main(queue.argv("rebase", "--abort")) == 0
    assert not (queue.root / ".fork" / "v1.1.0").exists()
    # Killed after D's `git am` (the 5th), past the conflict on C that was skipped:
    # --continue redoes nothing twice and finishes.
    assert main(queue.argv("rebase", "--onto", "v1.1.0")) == 2
    state = queue.root / ".fork" / "v1.1.0" / ".git" / "vllm-fork-rebase.json"
    assert '"stopped": true' in state.read_text()
    assert run_killed(queue, tmp_path, 1, "rebase", "--skip") == -9
    assert main(queue.argv("rebase", "--continue")) == 0
    out = capsys.readouterr().out
    assert report(out) == {
        "A": "already upstream",
        "B": "applied 3-way",
        "C": "dropped",
        "D": "applied clean",
    }, out
    log = run_git(queue.root / ".fork" / "v1.1.0", "log", "--format=%s", "v1.1.0..HEAD")
    assert log.count("\n") == 2, log
