"""One test per rule of the static check (no network, no tree)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import GOOD_MESSAGE, Queue
from vllm_fork.bases import load_base
from vllm_fork.checks import static_problems
from vllm_fork.cli import main

DIFF = (
    "---\n vllm/page.py | 2 +-\n 1 file changed, 1 insertion(+), 1 deletion(-)\n\n"
    "diff --git a/vllm/page.py b/vllm/page.py\nindex 1111111..2222222 100644\n"
    "--- a/vllm/page.py\n+++ b/vllm/page.py\n@@ -1,2 +1,2 @@\n-a\n+b\n c\n"
)


def write_patch(folder: Path, name: str, message: str, listed: bool = True) -> Path:
    subject, _, body = message.partition("\n\n")
    path = folder / name
    path.write_text(
        "From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n"
        "From: Dev One <dev@example.com>\nDate: Fri, 2 Jan 2026 03:04:05 +0000\n"
        f"Subject: [PATCH] {subject}\n\n{body}{DIFF}"
    )
    if listed:
        with (folder / "series").open("a") as f:
            f.write(name + "\n")
    return path


def problems(queue: Queue) -> list[str]:
    return static_problems(load_base(queue.root, "v1.0.0"))


def test_good_patch_has_no_problem(queue: Queue) -> None:
    write_patch(queue.patches, "good.patch", GOOD_MESSAGE.format(title="Fine"))
    assert problems(queue) == []


@pytest.mark.parametrize(
    "message,expected",
    [
        ("Untagged title\n\nBody.\n\nUpstream-Status: Pending\nSigned-off-by: A <a@b.c>\n", "not vLLM style"),
        ("[ROCm] Title\n\nBody.\n\nUpstream-Status: Pending\n", "no Signed-off-by"),
        ("[ROCm] Title\n\nBody.\n\nSigned-off-by: A <a@b.c>\n", "exactly one Upstream-Status"),
        (
            "[ROCm] Title\n\nBody.\n\nUpstream-Status: Pending\nUpstream-Status: Pending\nSigned-off-by: A <a@b.c>\n",
            "exactly one Upstream-Status",
        ),
        ("[ROCm] Title\n\nBody.\n\nUpstream-Status: Maybe later\nSigned-off-by: A <a@b.c>\n", "not in the vocabulary"),
        ("[ROCm] Title\n\nUpstream-Status: Pending\nSigned-off-by: A <a@b.c>\n", "empty body"),
    ],
)
def test_header_rules(queue: Queue, message: str, expected: str) -> None:
    write_patch(queue.patches, "p.patch", message)
    found = problems(queue)
    assert any(expected in p for p in found), found


def test_backport_status_is_accepted(queue: Queue) -> None:
    msg = GOOD_MESSAGE.format(title="X").replace("Pending", "Backport [v0.30.0]")
    write_patch(queue.patches, "p.patch", msg)
    assert problems(queue) == []


def test_missing_entry(queue: Queue) -> None:
    (queue.patches / "series").write_text("nowhere.patch\n")
    assert any("nowhere.patch does not exist" in p for p in problems(queue))


def test_duplicate_entry(queue: Queue) -> None:
    write_patch(queue.patches, "p.patch", GOOD_MESSAGE.format(title="X"))
    with (queue.patches / "series").open("a") as f:
        f.write("p.patch\n")
    assert any("listed twice" in p for p in problems(queue))


def test_unused_patch(queue: Queue) -> None:
    write_patch(queue.patches, "p.patch", GOOD_MESSAGE.format(title="X"), listed=False)
    assert any("not listed in series" in p for p in problems(queue))


def test_unparsable_patch(queue: Queue) -> None:
    (queue.patches / "junk.patch").write_text("hello\n")
    (queue.patches / "series").write_text("junk.patch\n")
    assert any("not a git format-patch mbox" in p for p in problems(queue))


def test_stgit_header_is_rejected(queue: Queue) -> None:
    (queue.patches / "series").write_text("# This series applies on GIT commit abc\n")
    assert any("StGit" in p for p in problems(queue))


def test_missing_trailing_newline(queue: Queue) -> None:
    path = write_patch(queue.patches, "p.patch", GOOD_MESSAGE.format(title="X"))
    path.write_bytes(path.read_bytes().rstrip(b"\n"))
    assert any("does not end with a newline" in p for p in problems(queue))


def test_check_static_exit_code(queue: Queue, capsys: pytest.CaptureFixture[str]) -> None:
    write_patch(queue.patches, "p.patch", "No tags\n\nBody.\n\nUpstream-Status: Pending\nSigned-off-by: A <a@b.c>\n")
    assert main(queue.argv("check", "--static")) == 1
    assert "not vLLM style" in capsys.readouterr().out


def test_malformed_hunk(queue: Queue) -> None:
    path = write_patch(queue.patches, "p.patch", GOOD_MESSAGE.format(title="X"))
    path.write_text(path.read_text().replace("@@ -1,2 +1,2 @@", "@@ -1,3 +1,2 @@"))
    found = problems(queue)
    assert any("file vllm/page.py, hunk 1 (@@ -1,3 +1,2 @@) is malformed" in p for p in found), found


def test_series_entry_outside_the_folder(queue: Queue) -> None:
    write_patch(queue.patches.parent, "outside.patch", GOOD_MESSAGE.format(title="X"), listed=False)
    (queue.patches / "series").write_text("../outside.patch\n")
    assert any("../outside.patch is not a file name" in p for p in problems(queue))


def test_rfc_that_would_not_print(queue: Queue) -> None:
    write_patch(queue.patches, "good.patch", GOOD_MESSAGE.format(title="Fine"))
    rfc = queue.patches / "rfc.md"
    rfc.write_text("# RFC\n\n<!-- pr-plan -->\n")
    assert problems(queue) == []
    rfc.write_text("# RFC\n\n" + "word " * 1201 + "\n\n<!-- pr-plan -->\n")
    assert problems(queue) == [f"v1.0.0/rfc.md: the RFC is not ready: {rfc}: more than 1200 words outside <details> blocks"]
