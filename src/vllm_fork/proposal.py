"""What a submitter needs besides the mails: the submitter's to-do for one PR
(`upstream --checklist`) and the RFC issue for the whole stack (`upstream
--rfc`).

The checklist is generated from the commit message (its Validation commands,
its quoted benchmarks and Claims table, its `Not validated here:` lines) and
the patch's files (the backend a serving A/B must select). The RFC's prose is
written by hand in `patches/<base>/rfc.md`; only the PR plan (every patch's
title in series order, with its line counts and the PRs it needs) is
generated, where the file has the line `RFC_PLAN_MARKER`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from vllm_fork import msgrules, upstream
from vllm_fork.errors import ForkError
from vllm_fork.patchfile import Patch

RFC_FILE = "rfc.md"
# vLLM's RFC issues are read in one sitting: the same rules as a PR body, at
# a larger length.
RFC_MAX_WORDS = 1200
RFC_PLAN_MARKER = "<!-- pr-plan -->"
RFC_MAX_WORDS = 1200
SERVE_MODEL = "Qwen/Qwen3.5-27B"
# vllm bench serve's random prompts of input_len * (1 -/+ 0.33): the tiers.
PROMPT_TIERS = ((6144, "4K-8K"), (12288, "8K-16K"), (24576, "16K-32K"))
AMD_GPUS = "MI300X (gfx942) and MI355X (gfx950)"


@dataclass(frozen=True)
class LineCount:
    added: int
    removed: int
    added_outside_tests: int  # what vLLM's pr-checklist counts for complexity

    def __str__(self) -> str:
        return f"+{self.added}/-{self.removed} lines, +{self.added_outside_tests} non-test"


def line_count(patch: Patch) -> LineCount:
    added = removed = outside = 0
    for fd in upstream.file_diffs(patch.diff):
        test = fd.path.startswith(("tests/", "benchmarks/", "docs/"))
        for _, _, body in fd.hunks:
            plus = sum(line[0] == "+" for line in body)
            added += plus
            removed += sum(line[0] == "-" for line in body)
            outside += 0 if test else plus
    return LineCount(added, removed, outside)


def backends(patch: Patch) -> list[str]:
    """The attention backends a serving A/B of the patch selects: those whose
    files it touches; both when it touches neither (a shared op)."""
    files = patch.files()
    found = [
        name
        for name, stem in (("ROCM_ATTN", "rocm_attn"), ("TRITON_ATTN", "triton_attn"))
        if any(Path(f).stem == stem for f in files)
    ]
    return found or ["ROCM_ATTN", "TRITON_ATTN"]


def opt_ins(patch: Patch) -> list[str]:
    """The server flags that turn on what the patch adds off by default: its new
    `AttentionConfig` booleans that default to False."""
    fields: list[str] = []
    path = ""
    for line in patch.diff.splitlines():
        if line.startswith("+++ "):
            path = line[len("+++ b/") :]
        elif path == "vllm/config/attention.py":
            match = re.fullmatch(r"\+    (\w+): bool = False", line)
            if match:
                fields.append(f"--attention-config.{match.group(1)}=1")
    return fields


def table_lines(text: str) -> list[str]:
    """The lines of the markdown tables in `text`."""
    return [line.strip() for line in text.splitlines() if line.strip().startswith("|")]


def _indent(lines: Sequence[str], by: str = "       ") -> str:
    return "\n".join(by + line for line in lines)


def checklist(patch: Patch, needs: Sequence[Patch], base: str) -> str:
    """The submitter's to-do for one PR, numbered, in the order to do it."""
    found = upstream.sections(patch.message)
    count = line_count(patch)
    tests = [c.text for c in msgrules.quoted_commands(found["Validation"])]
    benchmarks = [
        c.text
        for c in msgrules.quoted_commands(patch.message)
        if c.program()[:1] != ["pytest"] and c.text not in tests
    ]
    steps = [
        f"Review every changed line ({len(patch.files())} files, {count}): you answer "
        "for the change (vLLM's AGENTS.md: no pure agent PRs).\n" + _indent(patch.files()),
    ]
    if needs:
        steps.append(
            "Submit after the PRs it needs are open (link them in the Overview):\n"
            + _indent([p.subject for p in needs])
        )
    steps.append(
        "Run the duplicate searches the PR body lists and paste their result where it "
        f"says {upstream.PLACEHOLDER}; run vLLM's /pr-checklist skill and tick its box."
    )
    steps.append(
        "Run the tests as quoted, then on an AMD GPU without the CPU-only settings "
        "(TRITON_INTERPRET=1 CUDA_VISIBLE_DEVICES=), and compare with the results under "
        "Validation:\n"
        + _indent(tests or ["(the message quotes no test command: add one to Validation)"])
    )
    if benchmarks:
        table = table_lines(found["Claims"])
        steps.append(
            f"Run these in-tree benchmarks on {AMD_GPUS} and compare with the numbers measured "
            "here (the Claims table):\n"
            + _indent(benchmarks)
            + ("\n" + _indent(table) if table else "")
        )
    ab = [
        (
            f"Serving A/B on {AMD_GPUS}: vLLM {base} without this PR (before), then with it "
            "and the PRs it needs (after), same flags. Start the server:"
        )
    ]
    for backend in backends(patch):
        ab.append(
            f"       vllm serve {SERVE_MODEL} --attention-backend {backend} "
            "--max-num-batched-tokens 4096"
        )
    flags = opt_ins(patch)
    if flags:
        ab.append(f"     (after: also {' '.join(flags)}: the PR's option is off by default)")
    tiers = ", ".join(f"{n} ({name})" for n, name in PROMPT_TIERS)
    ab.append(f"     then, for each prompt tier --random-input-len {tiers} tokens:")
    for tokens, _ in PROMPT_TIERS:
        ab.append(
            f"       vllm bench serve --model {SERVE_MODEL} --dataset-name random "
            f"--random-input-len {tokens} --random-range-ratio 0.33 --random-output-len 512 "
            "--num-prompts 10 --max-concurrency 10 --seed 0 --save-result"
        )
    ab.append(
        "     and, with the same server, the greedy GSM8K check (completions mode sends "
        "temperature 0; tests/evals/gsm8k/README.md):"
    )
    ab.append(
        "       python tests/evals/gsm8k/gsm8k_eval.py --port 8000 --seed 0 "
        "--save-results gsm8k-before.json   (gsm8k-after.json the second time)"
    )
    steps.append("\n".join(ab))
    untested = msgrules.not_validated(found["Validation"])
    if untested:
        steps.append(
            "Validate what was not validated here, or leave the line in the PR:\n"
            + _indent(untested)
        )
    if any(f.startswith(("vllm/config/", "vllm/envs.py")) for f in patch.files()):
        steps.append(
            "It changes a config field or an environment variable: update the rendered docs "
            "in the same PR (AGENTS.md, 'User-visible changes')."
        )
    steps.append(
        "Do not open the PR if any of these holds (each blocks it):\n"
        + _indent(
            [
                (
                    "- after is slower than before anywhere: a benchmark row, or a serving "
                    "tier's throughput, TTFT or TPOT beyond the spread of repeat runs, on "
                    "either GPU;"
                ),
                "- a vllm bench serve result has failed != 0;",
                "- the greedy GSM8K accuracy differs between before and after;",
                "- a test above fails (a GPU-only test skipped on CPU must pass on the GPU).",
            ]
        )
    )
    head = f"# Before submitting: {patch.subject}\n"
    return head + "\n" + "\n".join(f"{i}. {s}" for i, s in enumerate(steps, 1)) + "\n"


def pr_plan(series: Sequence[Patch]) -> str:
    """Every patch in series order: the upstream-bound ones numbered as PRs
    (line counts, the PRs each needs), the others as not proposed."""
    needs = upstream.dependencies(series)
    numbers: dict[str, int] = {}
    lines = []
    for patch in series:
        reason = upstream.fork_only_reason(patch)
        if reason is not None:
            lines.append(f"- not proposed (fork-only: {reason}): {patch.subject}")
            continue
        done = upstream.already_upstream(patch)
        if done:
            lines.append(f"- already upstream ({done[0]}): {patch.subject}")
            continue
        numbers[patch.name] = len(numbers) + 1
        prs = [str(numbers[n.patch.name]) for n in needs[patch.name] if n.patch.name in numbers]
        others = [n.patch.subject for n in needs[patch.name] if n.patch.name not in numbers]
        wanted = [f"PR{'s' if len(prs) > 1 else ''} {', '.join(prs)}"] if prs else []
        wanted += [f"not proposed: {subject}" for subject in others]
        after = f"; needs {'; '.join(wanted)}" if wanted else ""
        lines.append(f"{numbers[patch.name]}. {patch.subject} ({line_count(patch)}{after})")
    return "\n".join(lines)


def rfc(folder: Path, series: Sequence[Patch]) -> str:
    """`patches/<base>/rfc.md` with its plan marker replaced by `pr_plan`."""
    path = folder / RFC_FILE
    if not path.is_file():
        raise ForkError(
            f"no RFC text: write its prose in {path} (with a line {RFC_PLAN_MARKER} where the PR plan goes)"
        )
    text = path.read_text()
    if RFC_PLAN_MARKER not in text:
        raise ForkError(f"{path} has no line {RFC_PLAN_MARKER} (where the generated PR plan goes)")
    text = text.replace(RFC_PLAN_MARKER, pr_plan(series), 1).rstrip() + "\n"
    problems = [f"{path}: {finding}" for _, finding in msgrules.jargon(text)]
    if msgrules.word_count(text) > RFC_MAX_WORDS:
        problems.append(f"{path}: more than {RFC_MAX_WORDS} words outside <details> blocks")
    if problems:
        raise ForkError("the RFC is not ready: " + "; ".join(problems))
    return text
