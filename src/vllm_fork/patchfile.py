"""One `git format-patch` file: its header, message, trailers and hunks."""

from __future__ import annotations

import re
from dataclasses import dataclass
from email.header import decode_header, make_header
from email.parser import BytesHeaderParser
from pathlib import Path

from vllm_fork.errors import ForkError

# vLLM's title rule (its commit-msg check): one or more bracketed tags, a space,
# a description.
TITLE_RE = re.compile(r"^(\[[^][]+\])+ +[^\s].*$")
PATCH_PREFIX_RE = re.compile(r"^\[PATCH[^\]]*\]\s*")
TRAILER_RE = re.compile(r"^([A-Za-z][A-Za-z0-9-]*): (.+)$")
UPSTREAM_STATUS = "Upstream-Status"
# A small closed vocabulary, after OpenEmbedded's Upstream-Status.
UPSTREAM_STATUS_RE = re.compile(
    r"^(Pending"
    r"|Submitted \[https?://\S+\]"
    r"|Accepted \[[^\]]+\]"
    r"|Backport \[[^\]]+\]"
    r"|Inappropriate \[[^\]]+\])$"
)
UPSTREAM_STATUS_HELP = (
    "Upstream-Status: Pending | Submitted [<PR url>] | Accepted [<version>] | "
    "Backport [<upstream version or commit>] | Inappropriate [<reason>]"
)
# Trailers that only make sense inside this queue; stripped for upstream.
INTERNAL_TRAILERS = (UPSTREAM_STATUS,)
HUNK_RE = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


@dataclass(frozen=True)
class Hunk:
    path: str
    header: str
    old_start: int
    index: int  # 1-based within its file
    count: int  # hunks in its file


@dataclass(frozen=True)
class Patch:
    path: Path
    author: str
    date: str
    subject: str  # without the [PATCH] prefix
    message: str  # body: everything between the header and the trailers
    trailers: list[tuple[str, str]]
    diff: str

    @property
    def name(self) -> str:
        return self.path.name

    def trailer_values(self, key: str) -> list[str]:
        return [v for k, v in self.trailers if k.lower() == key.lower()]

    def files(self) -> list[str]:
        files = []
        for line in self.diff.splitlines():
            if line.startswith("diff --git "):
                files.append(line.split(" b/", 1)[1])
        return files

    def hunks(self) -> list[Hunk]:
        per_file: dict[str, list[str]] = {}
        current = None
        for line in self.diff.splitlines():
            if line.startswith("diff --git "):
                current = line.split(" b/", 1)[1]
                per_file[current] = []
            elif current is not None and HUNK_RE.match(line):
                per_file[current].append(line)
        hunks = []
        for path, headers in per_file.items():
            for i, header in enumerate(headers, start=1):
                old_start = int(HUNK_RE.match(header).group(1))
                hunks.append(Hunk(path, header, old_start, i, len(headers)))
        return hunks

    def find_hunk(self, path: str, line: int) -> Hunk | None:
        candidates = [h for h in self.hunks() if h.path == path]
        for hunk in candidates:
            if hunk.old_start == line:
                return hunk
        # git reports the line it tried; fall back to the nearest hunk above it.
        above = [h for h in candidates if h.old_start <= line]
        return above[-1] if above else (candidates[0] if candidates else None)


def parse_patch(path: Path) -> Patch:
    """Parse a format-patch mbox; raise ForkError naming the file if it can't."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ForkError(f"{path}: cannot read: {exc.strerror}") from exc
    text = raw.decode("utf-8", errors="replace")
    head, sep, rest = text.partition("\n\n")
    if not sep or not text.startswith("From "):
        raise ForkError(f"{path.name}: not a git format-patch mbox (no 'From ' line)")
    headers = BytesHeaderParser().parsebytes(head.split("\n", 1)[1].encode())
    for key in ("From", "Date", "Subject"):
        if headers.get(key) is None:
            raise ForkError(f"{path.name}: missing {key}: header")
    subject = str(make_header(decode_header(headers["Subject"])))
    subject = " ".join(subject.split())
    subject = PATCH_PREFIX_RE.sub("", subject)
    diff_at = rest.find("\ndiff --git ")
    if rest.startswith("diff --git "):
        diff_at = 0
    if diff_at < 0:
        raise ForkError(f"{path.name}: has no diff")
    message_part = rest[:diff_at]
    # format-patch puts '---' and a diffstat between the message and the diff.
    cut = message_part.rfind("\n---\n")
    if message_part.startswith("---\n"):
        cut = 0
    message_part = message_part[:cut] if cut >= 0 else message_part
    body, trailers = split_trailers(message_part.strip("\n"))
    return Patch(
        path=path,
        author=str(make_header(decode_header(headers["From"]))),
        date=headers["Date"],
        subject=subject,
        message=body,
        trailers=trailers,
        diff=rest[diff_at:].lstrip("\n"),
    )


def split_trailers(message: str) -> tuple[str, list[tuple[str, str]]]:
    """Split the last paragraph off as trailers when every line is `Key: value`."""
    paragraphs = message.rstrip().split("\n\n")
    last = paragraphs[-1].splitlines() if paragraphs else []
    if last and all(TRAILER_RE.match(line) for line in last):
        trailers = [TRAILER_RE.match(line).groups() for line in last]
        return "\n\n".join(paragraphs[:-1]).rstrip(), trailers
    return message.rstrip(), []


def lint_patch(patch: Patch) -> list[str]:
    """Every header problem of one patch, one line each."""
    problems = []
    if not TITLE_RE.match(patch.subject):
        problems.append(
            f"{patch.name}: title {patch.subject!r} is not vLLM style "
            "('[Tag][Tag] Description')"
        )
    if not patch.trailer_values("Signed-off-by"):
        problems.append(f"{patch.name}: no Signed-off-by: trailer (vLLM requires DCO)")
    statuses = patch.trailer_values(UPSTREAM_STATUS)
    if len(statuses) != 1:
        problems.append(
            f"{patch.name}: needs exactly one {UPSTREAM_STATUS}: trailer, "
            f"found {len(statuses)} ({UPSTREAM_STATUS_HELP})"
        )
    elif not UPSTREAM_STATUS_RE.match(statuses[0]):
        problems.append(
            f"{patch.name}: {UPSTREAM_STATUS}: {statuses[0]!r} is not in the "
            f"vocabulary ({UPSTREAM_STATUS_HELP})"
        )
    if not patch.message.strip():
        problems.append(f"{patch.name}: empty body (say why, what was measured, what was left out)")
    if not patch.path.read_bytes().endswith(b"\n"):
        problems.append(f"{patch.name}: does not end with a newline")
    problems += hunk_problems(patch)
    return problems


def hunk_problems(patch: Patch) -> list[str]:
    """Hunks whose body does not have the lines their `@@ -a,b +c,d @@` header
    promises (a hand-edited patch): git am would reject them as corrupt."""
    problems = []
    lines = patch.diff.splitlines()
    path, index, i = "", 0, 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if line.startswith("diff --git "):
            path, index = line.split(" b/", 1)[-1], 0
            continue
        match = HUNK_RE.match(line)
        if not match or not path:
            continue
        index += 1
        want_old = int(match.group(2)) if match.group(2) is not None else 1
        want_new = int(match.group(4)) if match.group(4) is not None else 1
        old = new = 0
        while i < len(lines) and (old < want_old or new < want_new):
            body = lines[i]
            if body.startswith(" ") or body == "":
                old, new = old + 1, new + 1
            elif body.startswith("-"):
                old += 1
            elif body.startswith("+"):
                new += 1
            elif not body.startswith("\\"):
                break
            i += 1
        if (old, new) != (want_old, want_new):
            header = line.split(" @@")[0] + " @@"
            problems.append(
                f"{patch.name}: file {path}, hunk {index} ({header}) is malformed: the header "
                f"promises {want_old} old / {want_new} new lines, the body has {old} / {new}"
            )
    return problems
