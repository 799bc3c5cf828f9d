"""One patch as it would go upstream: the submitter's identity, the patches it
needs, internal trailers out, PR template sections in.

vLLM's DCO needs the real submitter, so the mail's `From:` and last
`Signed-off-by:` come from the submitter's git identity (`git config
user.name` / `user.email`, or `--author`), never from the queue's
placeholder author; a placeholder identity (a reserved domain such as
`.example`) is refused, as is an unset one.

vLLM's PR template asks for Overview, Claims, Validation and Details. A commit
body may mark them with a line holding only `Overview:`, `Claims:`,
`Validation:` or `Details:`; unmarked text before the first marker is the
Overview. A body without markers is sorted by paragraph: the first is the
Overview, one that starts with "Measured" a Claim, one that starts with
"Test"/"Tested"/"The tests" Validation, the rest Details (an indented paragraph
stays with the one before it). A section left empty, or a message that names
something only this queue has (another patch by number or position, the
queue's own benchmarks, "the issue"), is not ready to go upstream.

A patch needs an earlier patch of its series when it does not apply without
it (its hunks' context or removed lines were added by the earlier patch, span
lines it removed, or the file is one it created), or when its added lines
import a module or name a file that the earlier patch creates.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from email.header import Header
from email.utils import formataddr, parseaddr
from pathlib import Path

from vllm_fork import msgrules
from vllm_fork.errors import ForkError
from vllm_fork.patchfile import (
    HUNK_RE,
    INTERNAL_TRAILERS,
    UPSTREAM_STATUS,
    Patch,
    parse_patch,
)

SECTIONS = ("Overview", "Claims", "Validation", "Details")
MARKER_RE = re.compile(r"^(Overview|Claims|Validation|Details):\s*$", re.IGNORECASE)
MISSING = "(not stated in the commit message)"
AM_HINT = "apply with: git am --keep-non-patch  (plain `git am` drops the [Tag] title prefixes)"

CLAIM_RE = re.compile(r"^(Measured|Numbers)\b")
VALIDATION_RE = re.compile(r"^(Tests?|Tested|The tests|Validat|Checked)\b")


def _trim(text: str) -> str:
    """Without blank lines around it; the first line keeps its indentation
    (an indented command is a quoted one)."""
    lines = text.rstrip().splitlines()
    while lines and not lines[0].strip():
        lines.pop(0)
    return "\n".join(lines)


def sections_by_paragraph(message: str) -> dict[str, str]:
    found: dict[str, list[str]] = {name: [] for name in SECTIONS}
    current = "Overview"
    for i, paragraph in enumerate(message.split("\n\n")):
        if i and not paragraph.startswith((" ", "\t")):
            if CLAIM_RE.match(paragraph):
                current = "Claims"
            elif VALIDATION_RE.match(paragraph):
                current = "Validation"
            else:
                current = "Details"
        found[current].append(paragraph)
    return {name: _trim("\n\n".join(parts)) for name, parts in found.items()}


def sections(message: str) -> dict[str, str]:
    if not any(MARKER_RE.match(line) for line in message.splitlines()):
        return sections_by_paragraph(message)
    found: dict[str, list[str]] = {name: [] for name in SECTIONS}
    current = "Overview"
    for line in message.splitlines():
        match = MARKER_RE.match(line)
        if match:
            current = match.group(1).capitalize()
            continue
        found[current].append(line)
    return {name: _trim("\n".join(lines)) for name, lines in found.items()}


def missing_sections(patch: Patch) -> list[str]:
    """The PR template sections the commit message leaves empty."""
    return [name for name, text in sections(patch.message).items() if not text]


# vLLM 0.33.0's .github/PULL_REQUEST_TEMPLATE.md below its four sections;
# only the AI-assistance box is ticked (the submitter ticks the rest).
TEMPLATE_CHECKLIST = """\
<details>
<summary> Pull Request Checklist </summary>

- [ ] I used vLLM's `/pr-checklist` skill. (Mandatory for agents, optional for humans).
- [x] AI assistance was used during the creation of this PR.

- [ ] **Design Fit:** Minimizes impact on core components, reuses existing functionality, and justifies added complexity.
- [ ] **Testing and Validation:** Validates the change and ensures any added tests are meaningful and reliable, with CI coverage or documented CI resource constraints and validation performed outside CI.
- [ ] **Code Quality and Style:** Keeps code and comments clear and concise, and updates relevant documentation and examples.
- [ ] **Pull Request Contents:** Includes a brief summary and relevant links, supports claims with evidence, explains root causes and implementation trade-offs, and follows the contributing guide.
</details>

**BEFORE SUBMITTING, PLEASE READ <https://docs.vllm.ai/en/latest/contributing>** (anything written below this line will be removed by GitHub Actions)"""
# The one thing only the submitter can write: what the duplicate searches found.
PLACEHOLDER = "<submitter: paste the searches' result>"
# docs/contributing/README.md's example form ("Co-authored-by: Claude").
DEFAULT_CO_AUTHOR = "Claude"
VLLM_REPO = "vllm-project/vllm"
SEARCH_WORD_RE = re.compile(r"\b[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+\b")


def search_terms(patch: Patch, most: int = 3) -> list[str]:
    """What to search open PRs for: the identifiers of the subject
    (prefix_prefill, TRITON_ATTN), else the touched modules' names."""
    terms: list[str] = []
    words = SEARCH_WORD_RE.findall(patch.subject.replace("'s", ""))
    words += [Path(f).stem for f in patch.files() if f.startswith("vllm/") and f.endswith(".py")]
    for word in words:
        if word not in terms and word != "__init__":
            terms.append(word)
    return terms[:most] or [patch.subject.split("] ")[-1]]


def duplicate_searches(patch: Patch, issue: int | None = None) -> list[str]:
    """AGENTS.md's duplicate-work checks, filled in for this patch."""
    commands = []
    if issue is not None:
        commands += [
            f"gh issue view {issue} --repo {VLLM_REPO} --comments",
            f'gh pr list --repo {VLLM_REPO} --state open --search "{issue} in:body"',
        ]
    commands += [
        f'gh pr list --repo {VLLM_REPO} --state open --search "{term}"'
        for term in search_terms(patch)
    ]
    return commands


def split_not_validated(text: str) -> tuple[str, list[str]]:
    """The section without its `Not validated here:` lines, and their texts."""
    kept = [line for line in text.splitlines() if not msgrules.NOT_VALIDATED_RE.match(line)]
    return _trim("\n".join(kept)), msgrules.not_validated(text)


def pr_body(
    patch: Patch,
    needs: Sequence[Patch] = (),
    draft: bool = False,
    co_author: str = DEFAULT_CO_AUTHOR,
    issue: int | None = None,
    mail: bool = False,
) -> str:
    """vLLM's PR template filled from the message: `Needs:` lines open the
    Overview (the template asks it to link related PRs); the Validation's
    `Not validated here:` lines become a list; Details ends with AGENTS.md's
    AI-assistance statement and duplicate searches; the template's checklist
    closes it. An empty section raises unless `draft`."""
    found = sections(patch.message)
    empty = [name for name, text in found.items() if not text]
    if empty and not draft:
        raise ForkError(
            f"{patch.name}: no {', '.join(empty)} section in the commit message",
            "Mark each of Overview:, Claims:, Validation:, Details: in the message "
            "(CONTRIBUTING.md, 'Commit messages').",
        )
    if needs:
        lines = "\n".join(f"Needs: {p.subject}" for p in needs)
        found["Overview"] = f"{lines}\n\n{found['Overview']}".rstrip()
    found["Validation"], untested = split_not_validated(found["Validation"])
    if untested:
        listed = "\n".join(f"- {line}" for line in untested)
        found["Validation"] = _trim(f"{found['Validation']}\n\n**Not validated here:**\n\n{listed}")
    assistant = parse_identity(co_author).name if parse_identity(co_author) else co_author
    searches = "\n".join(duplicate_searches(patch, issue))
    found["Details"] = (
        f"{found['Details'] or MISSING}\n\n"
        f"**AI assistance:** AI assistance was used: {assistant} drafted this change, its "
        "tests and this description. The human submitter reviewed every changed line, ran "
        "the tests under Validation, and answers for the change.\n\n"
        f"**Not a duplicate:** open PRs were searched with\n\n```bash\n{searches}\n```\n\n"
        f"Result: {PLACEHOLDER}"
    )
    body = "\n".join(
        f"## {name}\n\n{msgrules.fence_commands(text) or MISSING}\n" for name, text in found.items()
    )
    # The template's rule: in a mail, a line `---` would end the commit message.
    return f"{body}\n{'' if mail else '---' + chr(10) + chr(10)}{TEMPLATE_CHECKLIST}\n"


# ---------------------------------------------------------------------------
# Identity


# RFC 2606 / RFC 6761 names that can never be a person's mailbox.
RESERVED_DOMAINS = (
    "example",
    "example.com",
    "example.net",
    "example.org",
    "invalid",
    "test",
    "localhost",
)
IDENTITY_REMEDY = (
    "vLLM's DCO needs the real submitter on From: and Signed-off-by:. Set yours:\n"
    "  git config user.name 'Your Name' && git config user.email you@your.domain\n"
    "or pass --author 'Your Name <you@your.domain>'."
)


@dataclass(frozen=True)
class Identity:
    name: str
    email: str

    def __str__(self) -> str:
        return f"{self.name} <{self.email}>"

    def header(self) -> str:
        """For a From: header: RFC 2047-encoded when the name is not ASCII."""
        return formataddr((self.name, self.email), charset="utf-8")

    def same_as(self, other: Identity) -> bool:
        return self.email.lower() == other.email.lower() and self.name == other.name


def is_placeholder(email: str) -> bool:
    """True for an address no person can hold: no domain, or a reserved one."""
    _, _, domain = email.rpartition("@")
    domain = domain.lower().rstrip(".")
    if "." not in domain:  # none, or a single label such as localhost
        return True
    return any(domain == d or domain.endswith("." + d) for d in RESERVED_DOMAINS)


def parse_identity(text: str) -> Identity | None:
    """`Name <mail>` as git writes it, or None."""
    match = re.fullmatch(r"\s*([^<>]*?)\s*<([^<>\s]+@[^<>\s]+)>\s*", text)
    if not match or not match.group(1):
        return None
    _, email = parseaddr(f"{match.group(1)} <{match.group(2)}>")
    return Identity(match.group(1).strip('"'), email) if email else None


def check_identity(identity: Identity, where: str) -> Identity:
    if is_placeholder(identity.email):
        raise ForkError(
            f"{where} is {identity}: a placeholder (reserved domain), not a person vLLM's DCO accepts",
            IDENTITY_REMEDY,
        )
    return identity


def git_config(root: Path, key: str) -> str:
    """What `git config KEY` answers in `root` (repository, global or system)."""
    proc = subprocess.run(
        ["git", "config", key], cwd=root, capture_output=True, text=True, check=False
    )
    return proc.stdout.strip() if proc.returncode == 0 else ""


def submitter_identity(
    root: Path, author: str | None = None, env: Mapping[str, str] | None = None
) -> Identity:
    """--author, else git's own order: GIT_AUTHOR_NAME/EMAIL, then user.name/email."""
    if author is not None:
        identity = parse_identity(author)
        if identity is None:
            raise ForkError(f"--author {author!r} is not 'Name <mail@domain>'", IDENTITY_REMEDY)
        return check_identity(identity, "--author")
    env = os.environ if env is None else env
    name = env.get("GIT_AUTHOR_NAME") or git_config(root, "user.name")
    email = env.get("GIT_AUTHOR_EMAIL") or git_config(root, "user.email")
    unset = [key for key, value in (("user.name", name), ("user.email", email)) if not value]
    if unset:
        raise ForkError(
            f"no submitter identity: git config {' and '.join(unset)} not set", IDENTITY_REMEDY
        )
    return check_identity(
        Identity(name, email), "your git identity (git config user.name/user.email)"
    )


def public_trailers(patch: Patch) -> list[tuple[str, str]]:
    internal = {t.lower() for t in INTERNAL_TRAILERS}
    return [(k, v) for k, v in patch.trailers if k.lower() not in internal]


def submission_trailers(
    patch: Patch, submitter: Identity, co_author: str = DEFAULT_CO_AUTHOR
) -> list[tuple[str, str]]:
    """Public trailers without placeholder identities, the assistant's
    `Co-authored-by:` (vLLM's attribution trailer), and the submitter's
    sign-off last, once."""
    kept = []
    for key, value in public_trailers(patch):
        who = parse_identity(value)
        if who is not None and is_placeholder(who.email):
            continue
        if key.lower() == "signed-off-by" and who is not None and who.same_as(submitter):
            continue
        if (key, value) not in kept:
            kept.append((key, value))
    if co_author and ("Co-authored-by", co_author) not in kept:
        kept.append(("Co-authored-by", co_author))
    return [*kept, ("Signed-off-by", str(submitter))]


def upstream_mail(
    patch: Patch,
    submitter: Identity,
    needs: Sequence[Patch] = (),
    draft: bool = False,
    co_author: str = DEFAULT_CO_AUTHOR,
    issue: int | None = None,
) -> str:
    """The patch, `git am --keep-non-patch`-able, from the submitter, internal
    trailers stripped, the body vLLM's PR template (`gh pr create --fill`
    takes it), the assistant's attribution beside the submitter's sign-off."""
    body = pr_body(patch, needs, draft, co_author, issue, mail=True).rstrip()
    trailers = submission_trailers(patch, submitter, co_author)
    trailers = "\n".join(f"{k}: {v}" for k, v in trailers)
    subject = f"[PATCH] {patch.subject}"
    if not subject.isascii():
        subject = Header(subject, "utf-8", header_name="Subject").encode()
    return (
        "From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n"
        f"From: {submitter.header()}\n"
        f"Date: {patch.date}\n"
        f"Subject: {subject}\n"
        "MIME-Version: 1.0\n"
        "Content-Type: text/plain; charset=UTF-8\n"
        "Content-Transfer-Encoding: 8bit\n\n"
        f"{body}\n\n{trailers}\n---\n{patch.diff}"
    )


# ---------------------------------------------------------------------------
# Dependencies between patches of one series


@dataclass
class FileDiff:
    path: str
    created: bool = False
    deleted: bool = False
    hunks: list[tuple[int, int, list[str]]] = field(
        default_factory=list
    )  # old start, old count, body


def file_diffs(diff: str) -> list[FileDiff]:
    files: list[FileDiff] = []
    lines = diff.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if line.startswith("diff --git "):
            files.append(FileDiff(line.split(" b/", 1)[1]))
        elif files and line.startswith("new file mode"):
            files[-1].created = True
        elif files and line.startswith("deleted file mode"):
            files[-1].deleted = True
        elif files and (match := HUNK_RE.match(line)):
            old_count = int(match.group(2)) if match.group(2) is not None else 1
            new_count = int(match.group(4)) if match.group(4) is not None else 1
            body: list[str] = []
            old = new = 0
            while i < len(lines) and (
                old < old_count or new < new_count or lines[i].startswith("\\")
            ):
                text = lines[i] or " "
                i += 1
                if text[0] == "\\":
                    continue
                body.append(text)
                old += text[0] in " -"
                new += text[0] in " +"
            files[-1].hunks.append((int(match.group(1)), old_count, body))
    return files


@dataclass
class Line:
    origin: int | None  # index of the patch that added it; None: the base
    removed_before: set[int] = field(default_factory=set)  # patches that removed lines just above


@dataclass
class FileState:
    lines: list[Line] = field(default_factory=list)  # beyond them: untouched base lines
    created_by: int | None = None
    deleted_by: int | None = None

    def at(self, index: int) -> Line:
        while len(self.lines) <= index:
            self.lines.append(Line(None))
        return self.lines[index]


@dataclass(frozen=True)
class Need:
    patch: Patch
    reasons: tuple[str, ...]


def _apply_hunk(state: FileState, j: int, start: int, count: int, body: list[str]) -> set[int]:
    """Replay one hunk of patch j on the line origins; the patches whose lines it needs."""
    needs: set[int] = set()
    position = start if count == 0 else start - 1
    state.at(position + count)  # the line after the hunk exists (it may carry removals)
    old = iter(state.lines[position : position + count])
    new: list[Line] = []
    pending: set[int] = set()
    first = True
    for text in body:
        if text[0] == "+":
            new.append(Line(j, pending))
            pending = set()
            continue
        line = next(old, None)
        if line is None:  # a malformed hunk; `check --static` reports it
            break
        if not first:
            needs |= line.removed_before
        first = False
        if line.origin is not None:
            needs.add(line.origin)
        if text[0] == " ":
            new.append(Line(line.origin, pending | line.removed_before))
            pending = set()
        else:
            pending |= line.removed_before | {j}
    state.lines[position : position + count] = new
    state.at(len(new) + position).removed_before |= pending
    return needs - {j}


def _module_of(path: str) -> str | None:
    if not path.endswith(".py"):
        return None
    module = path[: -len(".py")].replace("/", ".")
    return module.removesuffix(".__init__")


def _recorder(reasons: dict[int, list[str]], j: int) -> Callable[[int, str], None]:
    def need(i: int, why: str) -> None:
        if i != j and why not in reasons.setdefault(i, []):
            reasons[i].append(why)

    return need


def dependencies(series: Sequence[Patch]) -> dict[str, list[Need]]:
    """For each patch (by file name), the earlier patches of `series` it needs."""
    states: dict[str, FileState] = {}
    created: list[list[str]] = []
    result: dict[str, list[Need]] = {}
    for j, patch in enumerate(series):
        reasons: dict[int, list[str]] = {}
        need = _recorder(reasons, j)
        diffs = file_diffs(patch.diff)
        for fd in diffs:
            state = states.get(fd.path)
            if fd.created:
                if state is not None and state.deleted_by is not None:
                    need(state.deleted_by, f"recreates {fd.path}, which it deletes")
                state = states[fd.path] = FileState(created_by=j)
            elif state is None:
                state = states[fd.path] = FileState()
            elif state.created_by is not None:
                need(state.created_by, f"changes {fd.path}, which it creates")
            for start, count, body in reversed(fd.hunks):
                for i in _apply_hunk(state, j, start, count, body):
                    if i != state.created_by:  # said already: "which it creates"
                        need(i, f"applies on its changes to {fd.path}")
            if fd.deleted:
                states[fd.path] = FileState(deleted_by=j)
        added = "\n".join(
            line[1:] for fd in diffs for _, _, body in fd.hunks for line in body if line[0] == "+"
        )
        for i, paths in enumerate(created):
            for path in paths:
                module = _module_of(path)
                parent, _, leaf = (module or "").rpartition(".")
                if module and (
                    re.search(rf"(?<![\w.]){re.escape(module)}(?![\w])", added)
                    or re.search(
                        rf"from {re.escape(parent)} import [^\n]*\b{re.escape(leaf)}\b", added
                    )
                ):
                    need(i, f"imports {module}")
                elif re.search(rf"(?<![\w/.]){re.escape(path)}\b", added):
                    need(i, f"names {path}")
        created.append([fd.path for fd in diffs if fd.created and not fd.deleted])
        result[patch.name] = [Need(series[i], tuple(reasons[i])) for i in sorted(reasons)]
    return result


def series_of(path: Path, series_paths: Sequence[Path] = ()) -> list[Path]:
    """The patches of the series `path` belongs to, up to and including it:
    `series_paths` when it is one of them, else the `series` file beside it."""
    path = path.resolve()
    paths = [p.resolve() for p in series_paths]
    if path not in paths and (path.parent / "series").is_file():
        paths = []
        for line in (path.parent / "series").read_text().splitlines():
            entry = line.split("#", 1)[0].strip()
            if entry:
                paths.append(path.parent / entry)
    if path not in paths:
        return [path]
    return paths[: paths.index(path) + 1]


def needs_of(path: Path, series_paths: Sequence[Path] = ()) -> list[Need]:
    chain = [parse_patch(p) for p in series_of(path, series_paths)]
    return dependencies(chain)[chain[-1].name]


# ---------------------------------------------------------------------------
# Internal references


INTERNAL_WORDS = (
    (
        re.compile(r"\bthe issue\b", re.IGNORECASE),
        "an issue of this queue, not a vLLM issue (link it, or drop it)",
    ),
    (
        re.compile(r"\b(?:this|the|our|patch)\s+queue\b|\bqueue's\b", re.IGNORECASE),
        "the patch queue",
    ),
    (re.compile(r"\bpatch(?:es)?\s+\d+\b", re.IGNORECASE), "a patch by its number in the queue"),
    (
        re.compile(
            r"\b(?:(?:a|an|the)\s+)?(?:later|earlier|next|previous|following|preceding|subsequent)"
            r"\s+patch(?:es)?\b|\b(?:its|their)\s+own\s+patch\b",
            re.IGNORECASE,
        ),
        "another patch by its position in the queue (name its PR or subject)",
    ),
    (re.compile(r"\bthis\s+(?:repository|repo)\b", re.IGNORECASE), "this repository"),
    (
        re.compile(r"\b(?:queue|series)(?:'s|')?\s+(?:repository|tooling)\b", re.IGNORECASE),
        "the queue's repository",
    ),
    (
        re.compile(r"(?<![\w-])\.fork/|\bvllm-fork\b|\b(?:this|our|the)\s+fork\b", re.IGNORECASE),
        "the fork build",
    ),
)
BENCHMARK_PATH_RE = re.compile(r"(?<![\w/.-])benchmarks/[\w./-]*\w")


def tree_of(folder: Path) -> Path | None:
    """`.fork/<base>` beside the queue folder `patches/<base>/` when it has been built."""
    folder = folder.resolve()
    tree = folder.parent.parent / ".fork" / folder.name
    return tree if tree.is_dir() else None


def default_tree(patch: Patch) -> Path | None:
    return tree_of(patch.path.parent)


def _where(text: str, offset: int) -> str:
    """`subject` or `body line N` of `subject\n\nmessage` at `offset`."""
    number = text.count("\n", 0, offset) - 1  # a phrase may wrap: its first line
    return "subject" if number < 1 else f"body line {number}"


# How a quoted benchmark path that only a vLLM tree can confirm is reported
# where there is none (a fresh clone before its first build).
UNCHECKED_WITHOUT_TREE = "is not checked (no vLLM tree)"


def internal_references(patch: Patch, tree: Path | None = None) -> list[str]:
    """Everything in the subject and body (what goes upstream) that names
    something only this queue has, one line each.

    A `benchmarks/...` path must be one the patch or an earlier patch of its
    series adds, or one the vLLM tree has (`tree`, default `.fork/<base>`
    when it is built); without a tree, every other path is reported."""
    found: list[tuple[int, str]] = []
    tree = tree if tree is not None else default_tree(patch)
    added = stack_files(patch)
    text = f"{patch.subject}\n\n{patch.message}"

    def where(offset: int) -> str:
        return _where(text, offset)

    seen: list[tuple[int, int]] = []
    for pattern, what in INTERNAL_WORDS:
        for match in pattern.finditer(text):
            if any(match.start() < end and start < match.end() for start, end in seen):
                continue  # one finding per phrase ("this queue's repository")
            seen.append(match.span())
            phrase = " ".join(match.group(0).split())
            found.append((match.start(), f"{where(match.start())}: {phrase!r} refers to {what}"))
    for match in BENCHMARK_PATH_RE.finditer(text):
        path = match.group(0)
        if path in added or (tree is not None and (tree / path).exists()):
            continue
        whose = f"is not in vLLM's tree ({tree})" if tree is not None else UNCHECKED_WITHOUT_TREE
        message = (
            f"{where(match.start())}: {path} {whose} and the patch does not add it "
            "(add the benchmark to the patch, or describe it without the path)"
        )
        found.append((match.start(), message))
    problems = [f"{patch.name}: {finding}" for _, finding in sorted(found)]
    return problems


def stack_files(patch: Patch) -> set[str]:
    """The files the patch and the patches before it in its series touch."""
    files = set(patch.files())
    for path in series_of(patch.path)[:-1]:
        if path.is_file():
            files.update(parse_patch(path).files())
    return files


def fork_only_reason(patch: Patch) -> str | None:
    """The bracketed reason of `Upstream-Status: Inappropriate [reason]`: a
    patch kept in the fork and never proposed upstream."""
    for status in patch.trailer_values(UPSTREAM_STATUS):
        match = re.fullmatch(r"Inappropriate \[(.+)\]", status.strip())
        if match:
            return match.group(1)
    return None


def already_upstream(patch: Patch) -> list[str]:
    return [s for s in patch.trailer_values(UPSTREAM_STATUS) if s.startswith(("Backport", "Accepted"))]


def upstream_bound(patch: Patch) -> bool:
    """Neither fork-only nor already upstream: it will be proposed."""
    return fork_only_reason(patch) is None and not already_upstream(patch)


def refuse_fork_only(patch: Patch) -> None:
    reason = fork_only_reason(patch)
    if reason is not None:
        raise ForkError(f"{patch.name} is fork-only, never proposed upstream: {reason}")


def message_problems(patch: Patch, tree: Path | None = None) -> list[str]:
    """The message rules of `msgrules` (length, commands, paths, jargon, the
    claims table), one line each. `tree`: the vLLM tree with the stack
    applied (default `.fork/<base>` when built); without one, the path rules
    are skipped."""
    tree = tree if tree is not None else default_tree(patch)
    text = f"{patch.subject}\n\n{patch.message}"
    found: list[tuple[int, str]] = []
    words = msgrules.word_count(patch.message)
    if words > msgrules.MAX_WORDS:
        finding = (
            f"body: {words} words outside <details> blocks, more than {msgrules.MAX_WORDS} "
            "(shorten it, or collapse supporting material in <details><summary>...</summary> "
            "... </details>)"
        )
        found.append((len(text), finding))
    repo = patch.path.resolve().parent.parent.parent
    skip = stack_files(patch) | set(BENCHMARK_PATH_RE.findall(text))  # internal_references'
    for offset, finding in msgrules.jargon(text) + msgrules.path_problems(text, tree, repo, skip):
        found.append((offset, f"{_where(text, offset)}: {finding}"))
    claims = sections(patch.message)["Claims"]
    problem = msgrules.table_problem(claims) if claims else None
    if problem:
        found.append((len(text), problem))
    return [f"{patch.name}: {finding}" for _, finding in sorted(found, key=lambda f: f[0])]


def submission_problems(patch: Patch, tree: Path | None = None) -> list[str]:
    """Why the patch is not ready to go upstream: already there, missing
    sections, internal references, the message rules. A fork-only patch is
    never proposed: nothing to check."""
    if fork_only_reason(patch) is not None:
        return []
    problems = [
        f"{patch.name}: already upstream ({UPSTREAM_STATUS}: {status}): nothing to submit"
        for status in already_upstream(patch)
    ]
    if problems:
        return problems
    problems += [
        f"{patch.name}: no {name} section (mark it with a line '{name}:')"
        for name in missing_sections(patch)
    ]
    return problems + internal_references(patch, tree) + message_problems(patch, tree)
