"""One patch as it would go upstream: internal trailers out, PR template sections in.

vLLM's PR template asks for Overview, Claims, Validation and Details. A commit
body may mark them with a line holding only `Overview:`, `Claims:`,
`Validation:` or `Details:`; unmarked text before the first marker is the
Overview.
"""

from __future__ import annotations

import re

from vllm_fork.patchfile import INTERNAL_TRAILERS, Patch

SECTIONS = ("Overview", "Claims", "Validation", "Details")
MARKER_RE = re.compile(r"^(Overview|Claims|Validation|Details):\s*$", re.IGNORECASE)


def sections(message: str) -> dict[str, str]:
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
