"""One patch as it would go upstream: internal trailers out, PR template sections in.

vLLM's PR template asks for Overview, Claims, Validation and Details. A commit
body may mark them with a line holding only `Overview:`, `Claims:`,
`Validation:` or `Details:`; unmarked text before the first marker is the
Overview. A body without markers is sorted by paragraph: the first is the
Overview, one that starts with "Measured" a Claim, one that starts with
"Test"/"Tested"/"The tests" Validation, the rest Details (an indented paragraph
stays with the one before it).
"""

from __future__ import annotations

import re

from vllm_fork.patchfile import INTERNAL_TRAILERS, Patch

SECTIONS = ("Overview", "Claims", "Validation", "Details")
MARKER_RE = re.compile(r"^(Overview|Claims|Validation|Details):\s*$", re.IGNORECASE)


CLAIM_RE = re.compile(r"^(Measured|Numbers)\b")
VALIDATION_RE = re.compile(r"^(Tests?|Tested|The tests|Validat|Checked)\b")


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
    return {name: "\n\n".join(parts).strip() for name, parts in found.items()}


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
    return {name: "\n".join(lines).strip() for name, lines in found.items()}


def pr_body(patch: Patch) -> str:
    parts = []
    for name, text in sections(patch.message).items():
        parts.append(f"## {name}\n\n{text or '(not stated in the commit message)'}\n")
    return "\n".join(parts)


def public_trailers(patch: Patch) -> list[tuple[str, str]]:
    internal = {t.lower() for t in INTERNAL_TRAILERS}
    return [(k, v) for k, v in patch.trailers if k.lower() not in internal]


def upstream_mail(patch: Patch) -> str:
    """The patch, git-am-able, with internal trailers stripped and the body in sections."""
    body = pr_body(patch).rstrip()
    trailers = "\n".join(f"{k}: {v}" for k, v in public_trailers(patch))
    return (
        "From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n"
        f"From: {patch.author}\n"
        f"Date: {patch.date}\n"
        f"Subject: [PATCH] {patch.subject}\n\n"
        f"{body}\n\n{trailers}\n---\n{patch.diff}"
    )
