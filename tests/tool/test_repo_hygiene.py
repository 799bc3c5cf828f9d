"""The repository stays readable: small files, a small tree, results as a product
(no lab-notebook words in paths or text), no package-index host written down.

Reads what git tracks (`git ls-files`), as a fresh clone (.ci/run) has it."""

from __future__ import annotations

import re
import subprocess
from functools import cache
from pathlib import Path


ROOT = Path(__file__).resolve().parents[2]
MAX_FILE_BYTES = 1_000_000
MAX_TREE_BYTES = 8_000_000
# Built from pieces so that this file does not match its own rules.
LAB_WORDS = re.compile(r"\bsess" + r"ions?\b|\bcall" + r" \d+\b", re.IGNORECASE)
INDEX_HOSTS = re.compile(
    "|".join(
        re.escape(h) for h in ("pypi" + ".org", "files." + "python" + "hosted", "pypi" + ".python.org")
    )
)


@cache
def tracked() -> tuple[str, ...]:
    out = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    return tuple(p for p in out.split("\0") if p and (ROOT / p).is_file())


def text_of(path: str) -> str | None:
    data = (ROOT / path).read_bytes()
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def word_hits(paths) -> list[str]:
    hits = []
    for path in paths:
        if LAB_WORDS.search(path):
            hits.append(f"{path}: in the path")
        text = text_of(path)
        for n, line in enumerate((text or "").splitlines(), start=1):
            if LAB_WORDS.search(line):
                hits.append(f"{path}:{n}: {line.strip()[:100]}")
    return hits


def test_no_tracked_file_over_1_mb() -> None:
    sizes = {p: (ROOT / p).stat().st_size for p in tracked()}
    big = [f"{p}: {size} bytes" for p, size in sizes.items() if size > MAX_FILE_BYTES]
    assert not big, "shrink or summarize these (git keeps history):\n" + "\n".join(big)


def test_tracked_tree_under_8_mb() -> None:
    total = sum((ROOT / p).stat().st_size for p in tracked())
    assert total <= MAX_TREE_BYTES, f"tracked tree is {total} bytes, over {MAX_TREE_BYTES}"


def test_no_lab_notebook_words() -> None:
    """Every tracked path and text file, the patches included."""
    hits = word_hits(tracked())
    assert not hits, "results are a product, not a lab notebook:\n" + "\n".join(hits)


def test_no_package_index_host_written_down() -> None:
    hits = [
        f"{p}:{n}"
        for p in tracked()
        for n, line in enumerate((text_of(p) or "").splitlines(), start=1)
        if INDEX_HOSTS.search(line)
    ]
    assert not hits, "use pip's configuration instead of a host name:\n" + "\n".join(hits)


def test_the_rules_catch_what_they_are_for() -> None:
    assert LAB_WORDS.search("Sess" + "ion 40: two runs") and LAB_WORDS.search("see ca" + "ll 112")
    assert LAB_WORDS.search("decode_sweep/" + "sess" + "ions/x")
    assert not LAB_WORDS.search("recall 3 items; a callback; obsessions")
    assert INDEX_HOSTS.search("https://" + "pypi" + ".org/simple")
