"""`upstream`: the submitter's identity, the patches a patch needs, the PR
template sections and the internal-reference lint, on a synthetic series made
with `git format-patch`, and on the real queues (well-formed; ready or not)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import make_pin
from vllm_fork.bases import known_bases, load_base
from vllm_fork.cli import main
from vllm_fork.patchfile import Patch, parse_patch
from vllm_fork.proposal import checklist, opt_ins
from vllm_fork.upstream import PLACEHOLDER as PR_PLACEHOLDER
from vllm_fork.upstream import (
    Identity,
    dependencies,
    internal_references,
    is_placeholder,
    message_problems,
    submission_problems,
    submission_trailers,
    upstream_mail,
)

REPO = Path(__file__).resolve().parents[2]
PLACEHOLDER = "Seed maintainers <maintainers@users.noreply.a-seed.example>"
SUBMITTER = Identity("Ada Lovelace", "ada@lovelace.name")
DATE = "2026-01-02T03:04:05Z"
BASE_FILES = {
    "vllm/__init__.py": '"""Synthetic vLLM."""\n',
    "vllm/attn.py": "".join(f"LINE_{i} = {i}\n" for i in range(1, 41)),
    "vllm/page.py": "def page_size(tokens: int) -> int:\n    return tokens\n",
}
MESSAGE = """\
{title}

Overview:
Why it is needed.

Claims:
| config | baseline | result | GPU | runs |
|---|---|---|---|---|
| page 784, batch 1 | 10.0 us | 5.0 us | H200 | 3 |

  pytest tests/kernels/test_x.py

Validation:
  TRITON_INTERPRET=1 CUDA_VISIBLE_DEVICES= pytest tests/kernels/test_x.py
2 passed.
Not validated here: MI300X (gfx942): not run.
Not validated here: MI355X (gfx950): not run.

Details:
Nothing was left out.

Upstream-Status: Pending
Signed-off-by: {sob}
"""


def git(cwd: Path, *args: str, env: dict[str, str] | None = None, stdin: str | None = None) -> str:
    full = dict(os.environ, GIT_CONFIG_NOSYSTEM="1", **(env or {}))
    return subprocess.run(
        ["git", *args], cwd=cwd, env=full, input=stdin, check=True, capture_output=True, text=True
    ).stdout


def author_env(identity: str) -> dict[str, str]:
    name, email = identity.rstrip(">").split(" <")
    return {
        "GIT_AUTHOR_NAME": name,
        "GIT_AUTHOR_EMAIL": email,
        "GIT_AUTHOR_DATE": DATE,
        "GIT_COMMITTER_NAME": name,
        "GIT_COMMITTER_EMAIL": email,
        "GIT_COMMITTER_DATE": DATE,
    }


def write(tree: Path, files: dict[str, str | None]) -> None:
    for name, text in files.items():
        path = tree / name
        if text is None:
            path.unlink()
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def attn(**changes: str | None) -> str:
    """vllm/attn.py with LINE_<n> replaced (a string) or dropped (None)."""
    lines = []
    for i in range(1, 41):
        value = changes.get(f"l{i}", f"LINE_{i} = {i}")
        if value is not None:
            lines.append(value + "\n")
    return "".join(lines)


HELPER = "".join(f"HELPER_{i} = {i}\n" for i in range(1, 11))
# (title, files, earlier patches it needs by title): the dependency cases.
SERIES: list[tuple[str, dict[str, str | None], list[str]]] = [
    ("[ROCm][Kernel] Add a helper module", {"vllm/helper.py": HELPER}, []),
    ("[ROCm][Perf] Change line 10", {"vllm/attn.py": attn(l10="LINE_10 = 1000")}, []),
    (
        "[ROCm][Perf] Drop line 30",
        {"vllm/attn.py": attn(l10="LINE_10 = 1000", l30=None)},
        [],
    ),
    (  # its context holds the line patch 2 changed
        "[Bugfix] Change line 12",
        {"vllm/attn.py": attn(l10="LINE_10 = 1000", l30=None, l12="LINE_12 = 1200")},
        ["[ROCm][Perf] Change line 10"],
    ),
    (  # a file the first patch creates
        "[Kernel] Extend the helper",
        {"vllm/helper.py": HELPER.replace("HELPER_5 = 5", "HELPER_5 = 500")},
        ["[ROCm][Kernel] Add a helper module"],
    ),
    (  # applies without it, but imports its module
        "[Perf] Use the helper for pages",
        {"vllm/page.py": "from vllm.helper import HELPER_1\n\n" + BASE_FILES["vllm/page.py"]},
        ["[ROCm][Kernel] Add a helper module"],
    ),
    (  # its context spans the line patch 3 removed
        "[Misc] Change line 32",
        {"vllm/attn.py": attn(l10="LINE_10 = 1000", l30=None, l12="LINE_12 = 1200", l32="X = 3")},
        ["[ROCm][Perf] Drop line 30"],
    ),
    (  # only shifted by earlier patches: needs none
        "[Misc] Change line 40",
        {
            "vllm/attn.py": attn(
                l10="LINE_10 = 1000", l30=None, l12="LINE_12 = 1200", l32="X = 3", l40="Y = 4"
            )
        },
        [],
    ),
]


@dataclass
class Series:
    root: Path  # the queue checkout
    folder: Path  # patches/v1.0.0
    base: Path  # a vLLM checkout at the release, tagged v1.0.0

    def argv(self, *args: str) -> list[str]:
        return ["--repo", str(self.root), "-q", *args]

    def path(self, number: int) -> Path:
        names = [n for n in (self.folder / "series").read_text().splitlines() if n and n[0] != "#"]
        return self.folder / names[number - 1]


def make_series(
    tmp_path: Path, entries: list[tuple[str, dict[str, str | None], list[str]]]
) -> Series:
    base = tmp_path / "vllm"
    write(base, dict(BASE_FILES))
    env = author_env(PLACEHOLDER)
    git(base, "init", "-q", "-b", "main")
    git(base, "add", "-A")
    git(base, "commit", "-q", "-m", "vLLM 1.0.0", env=env)
    git(base, "tag", "v1.0.0")
    work = tmp_path / "work"
    git(tmp_path, "clone", "-q", str(base), str(work))
    for title, files, _ in entries:
        write(work, files)
        git(work, "add", "-A")
        git(work, "commit", "-q", "-m", MESSAGE.format(title=title, sob=PLACEHOLDER), env=env)
    root = tmp_path / "queue"
    folder = root / "patches" / "v1.0.0"
    make_pin(folder, "1.0.0", "0" * 64)
    out = git(work, "format-patch", "--zero-commit", "--no-signature", "-o", str(folder), "v1.0.0")
    names = [Path(line).name for line in out.splitlines()]
    (folder / "series").write_text("# synthetic\n" + "".join(n + "\n" for n in names))
    return Series(root, folder, base)


@pytest.fixture
def series(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Series:
    """A queue whose author is a placeholder; the submitter is Ada (git config)."""
    made = make_series(tmp_path, SERIES)
    for key in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"):
        monkeypatch.delenv(key, raising=False)
    empty = tmp_path / "empty.gitconfig"
    empty.write_text("")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(empty))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    git(made.root, "init", "-q")
    git(made.root, "config", "user.name", SUBMITTER.name)
    git(made.root, "config", "user.email", SUBMITTER.email)
    return made


def chain(s: Series) -> list[Patch]:
    return [parse_patch(s.path(i)) for i in range(1, len(SERIES) + 1)]


# -- identity -----------------------------------------------------------------


def test_mail_is_from_the_submitter_not_the_placeholder(
    series: Series, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(series.argv("upstream", "Add-a-helper")) == 0
    out = capsys.readouterr().out
    assert "From: Ada Lovelace <ada@lovelace.name>\n" in out
    assert out.count("Signed-off-by:") == 1
    assert "Signed-off-by: Ada Lovelace <ada@lovelace.name>\n---\n" in out
    assert "a-seed.example" not in out and "Upstream-Status" not in out
    assert "Subject: [PATCH] [ROCm][Kernel] Add a helper module\n" in out
    assert "\ndiff --git a/vllm/helper.py b/vllm/helper.py\n" in out


def test_refuses_without_an_identity(
    series: Series, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    git(series.root, "config", "--unset", "user.email")
    assert main(series.argv("upstream", "Add-a-helper")) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: no submitter identity: git config user.email not set\n")
    assert "git config user.email" in err and "--author" in err
    git(series.root, "config", "--unset", "user.name")
    assert main(series.argv("upstream", "Add-a-helper")) == 2
    assert "git config user.name and user.email not set" in capsys.readouterr().err


def test_refuses_a_placeholder_identity(series: Series, capsys: pytest.CaptureFixture[str]) -> None:
    git(series.root, "config", "user.email", "maintainers@users.noreply.a-seed.example")
    assert main(series.argv("upstream", "Add-a-helper")) == 2
    err = capsys.readouterr().err
    assert ">: a placeholder (reserved domain), not a person vLLM's DCO accepts" in err
    assert main(series.argv("upstream", "Add-a-helper", "--author", "Me <me@example.com>")) == 2
    assert "--author is Me <me@example.com>: a placeholder" in capsys.readouterr().err
    assert (
        is_placeholder("a@localhost") and is_placeholder("a@x.invalid") and is_placeholder("nope")
    )
    assert not is_placeholder("1234+ada@users.noreply.github.com")


def test_author_option_overrides_and_is_validated(
    series: Series, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        main(series.argv("upstream", "Add-a-helper", "--author", "Grace Hopper <gh@navy.mil>")) == 0
    )
    out = capsys.readouterr().out
    assert (
        "From: Grace Hopper <gh@navy.mil>" in out
        and "Signed-off-by: Grace Hopper <gh@navy.mil>" in out
    )
    for bad in ("Grace Hopper", "<gh@navy.mil>", "Grace <not-an-address>"):
        assert main(series.argv("upstream", "Add-a-helper", "--author", bad)) == 2
        assert "is not 'Name <mail@domain>'" in capsys.readouterr().err


def test_git_author_environment_wins_like_git(
    series: Series, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Env Person")
    monkeypatch.setenv("GIT_AUTHOR_EMAIL", "env@person.dev")
    assert main(series.argv("upstream", "Add-a-helper")) == 0
    assert "From: Env Person <env@person.dev>" in capsys.readouterr().out


def test_real_trailers_kept_placeholder_dropped_submitter_once(series: Series) -> None:
    patch = parse_patch(series.path(1))
    patch.trailers[:] = [
        ("Reviewed-by", "Real Reviewer <rr@reviewers.dev>"),
        ("Signed-off-by", PLACEHOLDER),
        ("Signed-off-by", "Ada Lovelace <ada@lovelace.name>"),
        ("Co-developed-by", "Bob Builder <bob@builder.dev>"),
        ("Signed-off-by", "Bob Builder <bob@builder.dev>"),
        ("Upstream-Status", "Pending"),
    ]
    assert submission_trailers(patch, SUBMITTER) == [
        ("Reviewed-by", "Real Reviewer <rr@reviewers.dev>"),
        ("Co-developed-by", "Bob Builder <bob@builder.dev>"),
        ("Signed-off-by", "Bob Builder <bob@builder.dev>"),
        ("Co-authored-by", "Claude"),
        ("Signed-off-by", "Ada Lovelace <ada@lovelace.name>"),
    ]


# -- git am keeps the tags and the submitter ------------------------------------


@pytest.mark.parametrize(
    "submitter", ["Ada Lovelace <ada@lovelace.name>", "Zoë Ñandú <zoe@nandu.dev>"]
)
def test_mail_survives_git_am_keep_non_patch(
    series: Series, tmp_path: Path, capsys: pytest.CaptureFixture[str], submitter: str
) -> None:
    target = tmp_path / "mine"
    git(tmp_path, "clone", "-q", str(series.base), str(target))
    committer = author_env("Maintainer <m@vllm.dev>")
    for name in ("Add-a-helper", "Extend-the-helper"):  # the second needs the first
        assert main([*series.argv("upstream", name, "--author", submitter)[:-1], submitter]) == 0
        mail = capsys.readouterr().out
        git(target, "am", "--keep-non-patch", env=committer, stdin=mail)
    log = git(
        target,
        "log",
        "--format=%s|%an <%ae>|%(trailers:key=Signed-off-by,valueonly,separator=;)",
        "-2",
    )
    assert log.splitlines() == [
        f"[Kernel] Extend the helper|{submitter}|{submitter}",
        f"[ROCm][Kernel] Add a helper module|{submitter}|{submitter}",
    ]
    body = git(target, "log", "-1", "--format=%b")
    assert body.startswith(
        "## Overview\n\nNeeds: [ROCm][Kernel] Add a helper module\n\nWhy it is needed."
    )
    assert "HELPER_5 = 500" in (target / "vllm/helper.py").read_text()
    # The trap the hint is about: plain `git am` drops the tags.
    plain = tmp_path / "plain"
    git(tmp_path, "clone", "-q", str(series.base), str(plain))
    assert main(series.argv("upstream", "Add-a-helper")) == 0
    git(plain, "am", env=committer, stdin=capsys.readouterr().out)
    assert git(plain, "log", "-1", "--format=%s").strip() == "Add a helper module"


def test_hint_names_keep_non_patch(series: Series, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--repo", str(series.root), "upstream", "Add-a-helper"]) == 0
    assert "apply with: git am --keep-non-patch" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["upstream", "--help"])
    assert "git am --keep-non-patch" in capsys.readouterr().out


# -- dependencies --------------------------------------------------------------


def test_dependencies_of_the_synthetic_series(series: Series) -> None:
    patches = chain(series)
    needs = dependencies(patches)
    for patch, (title, _, expected) in zip(patches, SERIES, strict=True):
        assert [n.patch.subject for n in needs[patch.name]] == expected, title
    reasons = {p.subject: [r for n in needs[p.name] for r in n.reasons] for p in patches}
    assert reasons["[Perf] Use the helper for pages"] == ["imports vllm.helper"]
    assert reasons["[Kernel] Extend the helper"][0] == "changes vllm/helper.py, which it creates"
    assert reasons["[Misc] Change line 32"] == ["applies on its changes to vllm/attn.py"]


def test_textual_dependencies_are_what_git_apply_needs(series: Series, tmp_path: Path) -> None:
    """Ground truth: j needs i exactly when j does not apply on the base plus
    every earlier patch but i (the import dependency is not textual)."""
    patches = chain(series)
    needs = dependencies(patches)
    for j, patch in enumerate(patches):
        textual = {
            n.patch.name
            for n in needs[patch.name]
            if any(not r.startswith("imports") for r in n.reasons)
        }
        fails = set()
        for i in range(j):
            tree = tmp_path / f"t{j}-{i}"
            shutil.copytree(series.base, tree)
            for k in range(j):
                if k != i:
                    subprocess.run(
                        ["git", "apply", str(patches[k].path)],
                        cwd=tree,
                        capture_output=True,
                        check=False,
                    )
            check = subprocess.run(
                ["git", "apply", "--check", str(patch.path)],
                cwd=tree,
                capture_output=True,
                check=False,
            )
            if check.returncode:
                fails.add(patches[i].name)
        assert fails == textual, patch.subject


def test_needs_open_the_overview_with_subjects_only(
    series: Series, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(series.argv("upstream", "Change-line-32", "--pr-body")) == 0
    out = capsys.readouterr().out
    assert out.startswith(
        "# [Misc] Change line 32\n\n## Overview\n\nNeeds: [ROCm][Perf] Drop line 30\n\nWhy"
    )
    assert "patch 3" not in out and ".patch" not in out


# -- sections and internal references ------------------------------------------


def test_missing_section_refuses_unless_draft(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    s = make_series(tmp_path, [("[Kernel] Half a message", {"vllm/x.py": "x = 1\n"}, [])])
    text = s.path(1).read_text()
    s.path(1).write_text(text.replace("Claims:\n", "").replace("| config", "Measured:\n| config"))
    argv = s.argv("upstream", "Half-a-message", "--author", "Ada Lovelace <ada@lovelace.name>")
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "Kernel-Half-a-message.patch is not ready to go upstream (1 problem(s))" in err
    assert "no Claims section (mark it with a line 'Claims:')" in err and "--draft" in err
    assert main(s.argv("upstream", "Half-a-message", "--pr-body")) == 2
    assert "no Claims section" in capsys.readouterr().err
    assert main([*argv, "--draft"]) == 0
    out, err = capsys.readouterr()
    assert "## Claims\n\n(not stated in the commit message)" in out
    assert "warning: 0001-Kernel-Half-a-message.patch: not for submission: no Claims section" in err


TABLE = "| Config | Baseline | Result | GPU | Runs | Command |\n|---|---|---|---|---|---|\n| a | 2 | 1 | H200 | 3 | c |"


def patch_with(tmp_path: Path, body: str, files: tuple[str, ...] = ("vllm/x.py",)) -> Patch:
    diff = "".join(f"diff --git a/{f} b/{f}\nnew file mode 100644\n" for f in files)
    folder = tmp_path / "queue" / "patches" / "v1.0.0"
    return Patch(folder / "x.patch", PLACEHOLDER, "Fri, 2 Jan 2026", "[Kernel] X", body, [], diff)


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("As patch 8 does, clamp it.", "'patch 8'"),
        ("Wired up in a later patch.", "'a later patch'"),
        ("TRITON_ATTN gets it in the next patch.", "'the next patch'"),
        ("The previous patch's tests cover it.", "'The previous patch'"),
        ("Its own patch has the numbers.", "'Its own patch'"),
        ("The issue's 45% target is not met.", "'The issue'"),
        ("With this queue's tiles.", "'this queue'"),
        ("(benchmark in the series' repository)", '"series\' repository"'),
        ("Kept in this repository.", "'this repository'"),
        ("Command (benchmark in the series'\nrepository):", '"series\' repository"'),
        ("Built with ./vllm-fork build.", "'vllm-fork'"),
    ],
)
def test_internal_words(tmp_path: Path, text: str, found: str) -> None:
    problems = internal_references(patch_with(tmp_path, f"Why.\n\n{text}"))
    assert problems and found in problems[0] and "x.patch: body line 3:" in problems[0]


def test_one_finding_per_phrase(tmp_path: Path) -> None:
    problems = internal_references(patch_with(tmp_path, "Kept in the patch queue's repository."))
    assert len(problems) == 1 and "'patch queue'" in problems[0]


def test_a_backport_is_not_submitted_again(tmp_path: Path) -> None:
    patch = patch_with(tmp_path, f"Overview:\nA.\nClaims:\n{TABLE}\nValidation:\nC.\nDetails:\nD.")
    assert submission_problems(patch) == []
    patch.trailers.append(("Upstream-Status", "Backport [v0.30.0]"))
    assert submission_problems(patch) == [
        "x.patch: already upstream (Upstream-Status: Backport [v0.30.0]): nothing to submit"
    ]


def test_plain_words_are_not_internal(tmp_path: Path) -> None:
    text = "The scheduler's waiting queue is unchanged; a patch of 16 tokens; fork() in the worker."
    assert internal_references(patch_with(tmp_path, text)) == []


def test_benchmark_paths_must_exist_in_vllm_or_come_with_the_patch(tmp_path: Path) -> None:
    body = "Command:\n  python benchmarks/kernels/bench_mine.py --out DIR"
    no_tree = internal_references(patch_with(tmp_path, body))
    assert len(no_tree) == 1 and "bench_mine.py is not checked (no vLLM tree)" in no_tree[0]
    tree = tmp_path / "queue" / ".fork" / "v1.0.0"  # the default: the built fork tree
    (tree / "benchmarks/kernels").mkdir(parents=True)
    flagged = internal_references(patch_with(tmp_path, body))
    assert len(flagged) == 1 and f"is not in vLLM's tree ({tree})" in flagged[0]
    (tree / "benchmarks/kernels/bench_mine.py").write_text("")
    assert internal_references(patch_with(tmp_path, body)) == []
    other = tmp_path / "other-tree"
    other.mkdir()
    assert len(internal_references(patch_with(tmp_path, body), tree=other)) == 1
    added = patch_with(tmp_path, body, files=("benchmarks/kernels/bench_mine.py",))
    assert internal_references(added, tree=other) == []


def test_a_benchmark_an_earlier_patch_of_the_series_adds_counts(tmp_path: Path) -> None:
    """Without a vLLM tree (a fresh clone's static check), a benchmark that an
    earlier patch of the series adds is not reported; a later one's is."""
    folder = tmp_path / "queue" / "patches" / "v1.0.0"
    folder.mkdir(parents=True)
    bench = "benchmarks/kernels/bench_mine.py"
    earlier = folder / "a.patch"
    earlier.write_text(
        "From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n"
        f"From: {PLACEHOLDER}\nDate: Fri, 2 Jan 2026\nSubject: [PATCH] [Kernel] A\n\nA.\n"
        f"---\ndiff --git a/{bench} b/{bench}\nnew file mode 100644\n"
    )
    (folder / "series").write_text("a.patch\nx.patch\n")
    body = f"Command:\n  python {bench} --out DIR"
    assert internal_references(patch_with(tmp_path, body)) == []
    (folder / "series").write_text("x.patch\na.patch\n")
    assert len(internal_references(patch_with(tmp_path, body))) == 1


def test_lint_lists_needs_and_problems(series: Series, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(series.argv("upstream", "--lint")) == 0
    out = capsys.readouterr().out
    assert "needs: [ROCm][Perf] Drop line 30  (applies on its changes to vllm/attn.py)" in out
    assert "0 of 8 patch(es) not ready to go upstream" in out
    text = series.path(2).read_text()
    series.path(2).write_text(text.replace("Why it is needed.", "See patch 9."))
    assert main(series.argv("upstream", "--lint")) == 1
    out = capsys.readouterr().out
    assert "FAIL 0002-ROCm-Perf-Change-line-10.patch\n       body line 2: 'patch 9'" in out


# -- the real queues -------------------------------------------------------------


def real_series() -> list[tuple[str, list[Patch]]]:
    return [
        (name, [parse_patch(p) for p in load_base(REPO, name).patch_paths()])
        for name in known_bases(REPO)
    ]


@pytest.mark.parametrize(("base", "patches"), real_series())
def test_real_series_mails_are_well_formed(base: str, patches: list[Patch]) -> None:
    needs = dependencies(patches)
    for position, patch in enumerate(patches):
        earlier = {p.subject for p in patches[:position]}
        mail = upstream_mail(patch, SUBMITTER, [n.patch for n in needs[patch.name]], draft=True)
        head, _, rest = mail.partition("\n\n")
        assert f"Subject: [PATCH] {patch.subject}\n" in head + "\n", patch.name
        assert "From: Ada Lovelace <ada@lovelace.name>" in head
        message = rest.split("\n---\n", 1)[0]
        assert message.startswith("## Overview\n\n") and "Upstream-Status" not in message
        signoffs = [line for line in message.splitlines() if line.startswith("Signed-off-by:")]
        assert signoffs == ["Signed-off-by: Ada Lovelace <ada@lovelace.name>"], patch.name
        for line in message.splitlines():
            if line.startswith("Needs: "):
                assert line[len("Needs: ") :] in earlier, patch.name
    subjects = [p.subject for p in patches]
    bound = "[Bugfix][Kernel] Bound prefix_prefill's context-loop block-table reads"
    test = "[Kernel][Test] Check context_attention_fwd against an fp32 paged reference"
    if bound in subjects and test in subjects:  # the example: the fix edits the new test
        assert test in [n.patch.subject for n in needs[patches[subjects.index(bound)].name]]


@pytest.mark.parametrize(("base", "patches"), real_series())
def test_real_series_ab_turns_each_new_option_on(base: str, patches: list[Patch]) -> None:
    """The checklist's "after" server turns on what a patch adds off by default."""
    flags = {p.subject: opt_ins(p) for p in patches}
    bound = "[Bugfix][Kernel] Bound prefix_prefill's context-loop block-table reads"
    prefill = "[Kernel][Perf] Opt-in page-aligned Triton paged prefill for TRITON_ATTN"
    assert flags[bound] == []
    assert flags[prefill] == ["--attention-config.use_triton_paged_prefill=1"]
    text = checklist(patches[list(flags).index(prefill)], [], base)
    assert "after: also --attention-config.use_triton_paged_prefill=1" in text


@pytest.mark.parametrize("base", ["v0.34.0"])
def test_real_series_is_ready_to_go_upstream(base: str) -> None:
    problems = [p for patch in dict(real_series())[base] for p in submission_problems(patch)]
    assert problems == []


# -- what a submitter sends: PR body, checklist, RFC, message rules ------------


def set_status(path: Path, status: str) -> None:
    path.write_text(path.read_text().replace("Upstream-Status: Pending", f"Upstream-Status: {status}"))


@pytest.mark.parametrize("how", [[], ["--pr-body"], ["--checklist"], ["--draft"]])
def test_a_fork_only_patch_is_refused_with_its_reason(
    series: Series, capsys: pytest.CaptureFixture[str], how: list[str]
) -> None:
    set_status(series.path(1), "Inappropriate [vendor kernel no upstream CI runs]")
    assert main(series.argv("upstream", "Add-a-helper", *how)) == 2
    assert capsys.readouterr().err == (
        "error: 0001-ROCm-Kernel-Add-a-helper-module.patch is fork-only, never proposed "
        "upstream: vendor kernel no upstream CI runs\n"
    )
    assert main(series.argv("upstream", "--lint")) == 0
    assert "fork-only, not proposed: vendor kernel no upstream CI runs" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("co_author", "trailer"),
    [(None, "Co-authored-by: Claude"), ("Bot <bot@ai.dev>", "Co-authored-by: Bot <bot@ai.dev>")],
)
def test_mail_states_ai_assistance_and_carries_the_trailers(
    series: Series, capsys: pytest.CaptureFixture[str], co_author: str | None, trailer: str
) -> None:
    extra = ["--co-author", co_author] if co_author else []
    assert main(series.argv("upstream", "Add-a-helper", *extra)) == 0
    mail = capsys.readouterr().out
    message = mail.split("\n---\n", 1)[0]  # what git am keeps
    assert message.endswith(f"\n\n{trailer}\nSigned-off-by: Ada Lovelace <ada@lovelace.name>")
    assert "**AI assistance:** AI assistance was used:" in message
    assert "- [x] AI assistance was used during the creation of this PR." in message
    assert "## Validation\n\n```bash\nTRITON_INTERPRET=1 CUDA_VISIBLE_DEVICES= pytest" in message
    assert "**Not validated here:**\n\n- MI300X (gfx942): not run.\n- MI355X" in message


def test_pr_body_is_the_template_with_one_placeholder(
    series: Series, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(series.argv("upstream", "Change-line-32", "--pr-body", "--issue", "4242")) == 0
    body = capsys.readouterr().out
    headings = [line for line in body.splitlines() if line.startswith("## ")]
    assert headings == ["## Overview", "## Claims", "## Validation", "## Details"]
    assert "\n---\n\n<details>\n<summary> Pull Request Checklist </summary>" in body
    assert "gh issue view 4242 --repo vllm-project/vllm --comments" in body
    assert 'gh pr list --repo vllm-project/vllm --state open --search "attn"' in body
    tags = {"<details>", "</details>", "<summary>", "</summary>"}
    angled = [m for m in re.findall(r"<[^<>\n]*>", body) if m not in tags and "://" not in m]
    assert angled == [PR_PLACEHOLDER]
    assert "(not stated in the commit message)" not in body


@pytest.mark.parametrize(
    ("body", "finding"),
    [
        (f"{'word ' * 420}\n\nClaims:\n{TABLE}", None),
        (f"{'word ' * 460}\n\nClaims:\n{TABLE}", "body: 4"),
        (f"<details><summary>Sweep</summary>\n{'word ' * 900}\n</details>\n\nClaims:\n{TABLE}", None),
        (f"Why.\n\nClaims:\n{TABLE.replace('Runs', 'Repeats')}", "lacks column(s) runs"),
        (f"Why.\n\nClaims:\n{TABLE.replace('Baseline', 'Baseline (us)')}", None),
        ("Why.\n\nClaims:\nIt is 2x faster on an H200.", "Claims has no markdown table"),
        (f"Why.\n\nClaims:\n{TABLE.replace('| Command', '| Note')}", "has no command"),
        (f"Why.\n\nClaims:\n{TABLE.replace('| Command', '| Note')}\n\n  pytest t.py", None),
        # The words are spelled in two parts: the repository's own word rule
        # (test_repo_hygiene.py) reads this file too.
        (f"Measured in {'sess' + 'ion'} 3.\n\nClaims:\n{TABLE}", "is how the work"),
        (f"From the write-up.\n\nClaims:\n{TABLE}", "'write-up' is"),
        (f"As in {'ca' + 'll'} 116.\n\nClaims:\n{TABLE}", "a run of the tool"),
    ],
)
def test_message_rules(tmp_path: Path, body: str, finding: str | None) -> None:
    problems = message_problems(patch_with(tmp_path, body))
    assert (problems == []) if finding is None else (len(problems) == 1 and finding in problems[0])


def test_paths_must_be_in_vllms_tree_not_only_in_this_repository(tmp_path: Path) -> None:
    body = (
        f"Replayed with tools/x.py.\n\nClaims:\n{TABLE}\n\n"
        "```bash\nVLLM_X=1 python tests/kernels/bench_a.py --out results/x.json \\\n"
        "    --model Qwen/Qwen3.5-27B\npytest tests/kernels/test_a.py::test_b\n```"
    )
    repo = tmp_path / "queue"
    for name in ("benchmarks/replay_scheduler.py", "tools/x.py"):
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text("")
    assert message_problems(patch_with(tmp_path, body)) == []  # no tree: not checked
    tree = repo / ".fork" / "v1.0.0"
    (tree / "tests/kernels").mkdir(parents=True)
    (tree / "tests/kernels/test_a.py").write_text("")
    problems = message_problems(patch_with(tmp_path, body))
    assert len(problems) == 2
    assert "body line 1: tools/x.py exists only in this repository" in problems[0]
    assert "`python tests/kernels/bench_a.py ...` names tests/kernels/bench_a.py" in problems[1]
    added = patch_with(tmp_path, body, files=("tests/kernels/bench_a.py",))
    assert len(message_problems(added)) == 1


@pytest.mark.parametrize(
    ("files", "backends"),
    [
        (("vllm/v1/attention/backends/triton_attn.py",), ["TRITON_ATTN"]),
        (("vllm/v1/attention/backends/rocm_attn.py",), ["ROCM_ATTN"]),
        (("vllm/v1/attention/ops/prefix_prefill.py",), ["ROCM_ATTN", "TRITON_ATTN"]),
    ],
)
def test_checklist_has_the_tests_and_the_serving_ab(
    tmp_path: Path, files: tuple[str, ...], backends: list[str]
) -> None:
    s = make_series(tmp_path, [("[Perf] Route it", {f: "x = 1\n" for f in files}, [])])
    text = checklist(parse_patch(s.path(1)), [], "v1.0.0")
    assert "       TRITON_INTERPRET=1 CUDA_VISIBLE_DEVICES= pytest tests/kernels/test_x.py\n" in text
    assert "       MI300X (gfx942): not run.\n" in text
    for backend in ("ROCM_ATTN", "TRITON_ATTN"):
        serve = f"vllm serve Qwen/Qwen3.5-27B --attention-backend {backend} --max-num-batched-tokens 4096"
        assert (serve in text) == (backend in backends)
    for tokens in (6144, 12288, 24576):
        assert (
            f"--random-input-len {tokens} --random-range-ratio 0.33 --random-output-len 512 "
            "--num-prompts 10 --max-concurrency 10 --seed 0 --save-result" in text
        )
    assert "python tests/evals/gsm8k/gsm8k_eval.py --port 8000" in text
    assert "failed != 0" in text


def test_rfc_needs_its_prose_and_generates_the_plan(
    series: Series, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(series.argv("upstream", "--rfc")) == 2
    err = capsys.readouterr().err
    assert err == (
        f"error: no RFC text: write its prose in {series.folder.resolve() / 'rfc.md'} "
        "(with a line <!-- pr-plan --> where the PR plan goes)\n"
    )
    (series.folder / "rfc.md").write_text("# RFC\n\n## PR plan\n\n<!-- pr-plan -->\n\nThanks.\n")
    set_status(series.path(2), "Inappropriate [DCU only]")
    assert main(series.argv("upstream", "--rfc")) == 0
    out = capsys.readouterr().out
    assert out.startswith("# RFC\n\n## PR plan\n\n1. [ROCm][Kernel] Add a helper module (+10/-0 lines")
    assert "\n- not proposed (fork-only: DCU only): [ROCm][Perf] Change line 10\n" in out
    assert "\n2. [ROCm][Perf] Drop line 30 (" in out
    assert "4. [Kernel] Extend the helper (+1/-1 lines, +1 non-test; needs PR 1)" in out
    # The RFC follows the message rules too.
    (series.folder / "rfc.md").write_text(f"# RFC\n\nMeasured in {'sess' + 'ion'} 3.\n\n<!-- pr-plan -->\n")
    assert main(series.argv("upstream", "--rfc")) == 2
    assert "needs not proposed: [ROCm][Perf] Change line 10" in out and out.endswith("Thanks.\n")
