"""What an upstream-bound commit message must look like to become a PR body
a vLLM reviewer reads once: short, with commands that run in vLLM's tree,
claims as a table, and nothing that only this repository has.

The rules (`message_problems`), one finding per line:

- at most `MAX_WORDS` words outside collapsed `<details>...</details>`
  blocks (vLLM's pr-checklist: "collapsible HTML details for lengthy
  supporting material");
- every quoted command (an indented or fenced line that starts with
  `python`, `pytest` or `vllm`, optionally after `VAR=value` assignments;
  a trailing backslash continues it) names only files that the vLLM tree
  has once the stack is applied;
- no path that exists only in this repository (one of its files that the
  vLLM tree does not have);
- no jargon of the machines and tools the numbers were taken with;
- the Claims section holds a markdown table with at least the columns
  `CLAIM_COLUMNS` (the pr-checklist's "compact tables with the
  configuration, baseline, changed result" and "the run count"), and the
  command that measured it, as a `command` column or a quoted command.

Without a built vLLM tree the two path rules cannot tell vLLM's files from
others: they are skipped (`tree_note` says so once).
"""

from __future__ import annotations

import itertools
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

MAX_WORDS = 450
CLAIM_COLUMNS = ("config", "baseline", "result", "gpu", "runs")
NOT_VALIDATED = "Not validated here:"
NOT_VALIDATED_RE = re.compile(
    r"^\s*[-*]?\s*Not validated (?:here|on)\s*:\s*(.*\S)\s*$", re.IGNORECASE
)
DETAILS_RE = re.compile(r"<details\b.*?</details\s*>", re.IGNORECASE | re.DOTALL)
COMMAND_RE = re.compile(r"^(?:[A-Za-z_][A-Za-z0-9_]*=\S*\s+)*(?:python3?|pytest|vllm)(?:\s|$)")
FENCE_RE = re.compile(r"^\s*(```|~~~)")
# Words of the places the numbers were taken, not of vLLM.
JARGON = (
    (re.compile(r"\bwrite-?ups?\b", re.IGNORECASE), "a document only this repository has"),
    (re.compile(r"\bsessions?\b", re.IGNORECASE), "how the work was organised"),
    (re.compile(r"\bH100 starts?\b", re.IGNORECASE), "how the GPU was obtained"),
    (re.compile(r"\bdevice tool\b", re.IGNORECASE), "the tool the GPU was reached with"),
    (re.compile(r"\bcalls? \d+\b", re.IGNORECASE), "a run of the tool the GPU was reached with"),
)
# A path: folders, slashes, a name (Qwen/Qwen3.5-27B too: only paths that
# exist in this repository count).
PATH_RE = re.compile(r"(?<![\w/.:-])((?:\.?[\w-]+/)+[\w.-]*\w)")
TREE_FOLDERS = ("vllm/", "tests/", "benchmarks/", "examples/", "tools/", "docs/", "csrc/")


@dataclass(frozen=True)
class Command:
    line: int  # 1-based line of `text` where it starts
    text: str  # continuation lines joined
    fenced: bool = False  # in a ``` block, not indented

    def argv(self) -> list[str]:
        try:
            return shlex.split(self.text)
        except ValueError:
            return self.text.split()

    def program(self) -> list[str]:
        """The words after the leading VAR=value assignments."""
        words = self.argv()
        while words and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", words[0]):
            words = words[1:]
        return words

    def env(self) -> dict[str, str]:
        out = {}
        for word in self.argv():
            match = re.match(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$", word)
            if not match:
                break
            out[match.group(1)] = match.group(2)
        return out

    def files(self) -> list[str]:
        """The files and folders it reads from the vLLM tree: `.py` files and
        paths under vLLM's top folders (pytest node ids without their
        `::test`); other paths (`--out results/x.json`) are outputs."""
        found = []
        for word in self.program()[1:]:
            value = word.split("=", 1)[1] if word.startswith("-") and "=" in word else word
            value = value.split("::", 1)[0]
            if value.startswith("-") or "://" in value or not value:
                continue
            if value.endswith(".py") or value.startswith(TREE_FOLDERS):
                found.append(value.removeprefix("./"))
        return found


def quoted_commands(text: str) -> list[Command]:
    """Indented or fenced lines that run python, pytest or vllm."""
    commands: list[Command] = []
    lines = text.splitlines()
    fenced = False
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if FENCE_RE.match(line):
            fenced = not fenced
            continue
        if not (fenced or line[:1] in (" ", "\t")):
            continue
        start = i
        joined = line.strip()
        while joined.endswith("\\") and i < len(lines):
            joined = joined[:-1].rstrip() + " " + lines[i].strip()
            i += 1
        if COMMAND_RE.match(joined):
            commands.append(Command(start, joined, fenced))
    return commands


def fence_commands(text: str) -> str:
    """Markdown for a commit message's indented commands: each indented block
    that starts with a quoted command becomes a fenced `bash` block (GitHub
    shows a two-space indent as running text)."""
    lines = text.splitlines()
    starts = {c.line - 1 for c in quoted_commands(text) if not c.fenced}
    out: list[str] = []
    i = 0
    while i < len(lines):
        if i not in starts:
            out.append(lines[i])
            i += 1
            continue
        end = i + 1
        while end < len(lines) and lines[end][:1] in (" ", "\t"):
            end += 1
        block = lines[i:end]
        indent = min(len(b) - len(b.lstrip()) for b in block)
        out += ["```bash", *(b[indent:] for b in block), "```"]
        i = end
    return "\n".join(out)


def without_details(text: str) -> str:
    return DETAILS_RE.sub(" ", text)


def word_count(text: str) -> int:
    """Words a reader sees before expanding anything."""
    return len(without_details(text).split())


def not_validated(text: str) -> list[str]:
    """The `Not validated here: <platform>: <what>` lines, their text."""
    return [m.group(1) for line in text.splitlines() if (m := NOT_VALIDATED_RE.match(line))]


def table_headers(text: str) -> list[list[str]]:
    """The header cells of every markdown table (a `|` row above a `|---|` row)."""
    lines = [line.strip() for line in text.splitlines()]
    headers = []
    for head, rule in itertools.pairwise(lines):
        if head.startswith("|") and re.fullmatch(
            r"\|?(\s*:?-{3,}:?\s*\|)+\s*:?(-{3,}:?)?\s*", rule
        ):
            headers.append([cell.strip().lower() for cell in head.strip("|").split("|")])
    return headers


def has_column(cells: list[str], name: str) -> bool:
    """`name`, or `name` then a space or a parenthesis ("Baseline (us)")."""
    return any(cell == name or re.match(rf"{re.escape(name)}[\s(]", cell) for cell in cells)


def table_problem(claims: str) -> str | None:
    """Why the Claims section does not carry its measurements as a table."""
    shown = without_details(claims)
    headers = table_headers(shown)
    columns = ", ".join(CLAIM_COLUMNS)
    if not headers:
        return f"Claims has no markdown table (columns {columns}; command as a column or a line under it)"
    best = max(headers, key=lambda cells: sum(has_column(cells, c) for c in CLAIM_COLUMNS))
    missing = [c for c in CLAIM_COLUMNS if not has_column(best, c)]
    if missing:
        return f"Claims table lacks column(s) {', '.join(missing)} (needs {columns})"
    if not has_column(best, "command") and not quoted_commands(shown):
        return "Claims table has no command: add a command column or quote the command under it"
    return None


def tree_note(tree: Path | None) -> str | None:
    if tree is None:
        return (
            "note: no built vLLM tree: quoted commands' files and repository-only paths not checked"
        )
    return None


def path_problems(
    text: str, tree: Path | None, repo: Path, added: set[str]
) -> list[tuple[int, str]]:
    """Files the quoted commands name that the tree lacks, and paths of this
    repository that the tree lacks; (offset, finding). Nothing without a tree."""
    if tree is None:
        return []
    found: list[tuple[int, str]] = []
    offsets = [0]
    for line in text.splitlines(keepends=True):
        offsets.append(offsets[-1] + len(line))
    named: set[str] = set()
    for command in quoted_commands(text):
        for path in command.files():
            named.add(path)
            if path not in added and not (tree / path).exists():
                what = f"the command `{' '.join(command.program()[:2])} ...` names {path}"
                found.append(
                    (offsets[command.line - 1], f"{what}, which vLLM's tree ({tree}) does not have")
                )
    for match in PATH_RE.finditer(text):
        path = match.group(1).rstrip(".")
        if path in named or path in added or (tree / path).exists():
            continue
        if (repo / path).exists():
            found.append(
                (match.start(), f"{path} exists only in this repository, not in vLLM's tree")
            )
    return found


def jargon(text: str) -> list[tuple[int, str]]:
    return [
        (m.start(), f"{' '.join(m.group(0).split())!r} is {what}, not for vLLM's reviewers")
        for pattern, what in JARGON
        for m in pattern.finditer(text)
    ]
