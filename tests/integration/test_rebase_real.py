"""`rebase` end to end on the real sdists: the v0.33.0 queue moved onto v0.32.0.

The queue moved is patches/v0.33.0/ as of QUEUE_COMMIT (read from this
repo's history), so that later work on the live queue does not change which
conflicts the test meets. Each conflict is resolved the way a person did it
(RESOLUTIONS): v0.32.0 lacks v0.33.0's interleaved V cache, TRITON_ATTN's
pointer-range flag and the AITER fused QK-norm/RoPE hook, so the patch's side
is kept without the lines about them.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from vllm_fork.cli import main

ROOT = Path(__file__).resolve().parents[2]
QUEUE_COMMIT = "d9dc85d"
pytestmark = pytest.mark.integration


def conflict_blocks(text: str, choose: Callable[[int, str, str], str]) -> str:
    """Replace each `<<<<<<< / ======= / >>>>>>>` block by choose(i, ours, theirs)."""
    out, i = [], 0
    while "<<<<<<< " in text:
        a = text.index("<<<<<<< ")
        b = text.index("=======\n", a)
        c = text.index(">>>>>>> ", b)
        d = text.index("\n", c) + 1
        ours, theirs = text[text.index("\n", a) + 1 : b], text[b + 8 : c]
        out.append(text[:a] + choose(i, ours, theirs))
        text, i = text[d:], i + 1
    return "".join(out) + text


def theirs_without(*lines: str) -> Callable[[int, str, str], str]:
    def choose(_: int, __: str, theirs: str) -> str:
        return "".join(line for line in theirs.splitlines(True) if line.strip() not in lines)

    return choose


def resolve_dispatch(text: str) -> str:
    """Patch 7: its imports (minus two v0.32.0 has elsewhere or does not use);
    not the AITER fused QK-norm/RoPE methods v0.32.0 does not have."""
    text = conflict_blocks(text, lambda i, ours, theirs: ours if i == 2 else theirs)
    text = text.replace("from vllm import _custom_ops as ops\n", "", 1)
    return text.replace(
        "from vllm.v1.kv_cache_interface import (\n    AttentionSpec,\n    KVCacheLayout,\n"
        "    is_quantized_kv_cache,\n)\n",
        "from vllm.v1.kv_cache_interface import AttentionSpec, KVCacheLayout\n",
    )


RESOLUTIONS: dict[str, tuple[str, Callable[[str], str]]] = {
    "ROCm-Perf-Use-the-page-contiguous-decode-op-for-pure-decode-batches.patch": (
        "vllm/v1/attention/backends/rocm_attn.py",
        lambda t: conflict_blocks(
            t, theirs_without("self._use_interleaved_v_cache = False")
        ).replace("            and not self._use_interleaved_v_cache\n", "", 1),
    ),
    "Perf-Kernel-Use-the-page-contiguous-decode-op-in-TRITON_ATTN-for-pure-decode-batches.patch": (
        "vllm/v1/attention/backends/triton_attn.py",
        lambda t: conflict_blocks(
            t, theirs_without("self._set_kv_ptr_range = current_platform.is_rocm()")
        ),
    ),
    "ROCm-Perf-Dispatch-single-sequence-chunked-prefill-to-a-paged-FlashAttention-provider.patch": (
        "vllm/v1/attention/backends/rocm_attn.py",
        resolve_dispatch,
    ),
    "Bugfix-Kernel-Bound-prefix_prefill-s-context-loop-block-table-reads.patch": (
        "vllm/v1/attention/ops/prefix_prefill.py",
        lambda t: conflict_blocks(t, theirs_without("BLOCK_DMODEL,", "INTERLEAVED_V_PACK_FACTOR,")),
    ),
}


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout


def pinned_queue(dest: Path) -> None:
    """patches/v0.33.0/ as of QUEUE_COMMIT, in a queue checkout of its own."""
    proc = subprocess.run(
        ["git", "cat-file", "-e", f"{QUEUE_COMMIT}^{{commit}}"], cwd=ROOT, capture_output=True
    )
    if proc.returncode != 0:
        pytest.skip(f"This clone lacks commit {QUEUE_COMMIT} (shallow?): the queue the test moves.")
    folder = dest / "patches" / "v0.33.0"
    folder.mkdir(parents=True)
    for name in git(ROOT, "ls-tree", "--name-only", f"{QUEUE_COMMIT}:patches/v0.33.0").split():
        data = subprocess.run(
            ["git", "show", f"{QUEUE_COMMIT}:patches/v0.33.0/{name}"], cwd=ROOT, capture_output=True
        ).stdout
        (folder / name).write_bytes(data)


def test_move_the_v0_33_0_queue_onto_v0_32_0(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    queue = tmp_path / "queue"
    pinned_queue(queue)
    argv = ["--repo", str(queue), "-q"]
    tree = queue / ".fork" / "v0.32.0"
    rc = main([*argv, "rebase", "--onto", "v0.32.0"])
    stops = []
    while rc == 2:
        err = capsys.readouterr().err
        assert err.startswith("error: patch "), err
        patch = err.split()[2]
        stops.append(patch)
        assert patch in RESOLUTIONS, f"a conflict nobody resolved yet: {err}"
        path, resolve = RESOLUTIONS[patch]
        assert f"conflicts in {path}" in err and "hunk " in err
        resolved = resolve((tree / path).read_text())
        assert "<<<<<<<" not in resolved
        (tree / path).write_text(resolved)
        git(tree, "add", path)
        rc = main([*argv, "rebase", "--continue"])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert stops == list(RESOLUTIONS)
    outcomes = {}
    for line in out.splitlines():
        for outcome in ("applied clean", "applied 3-way", "resolved by hand"):
            if line.startswith(f"  {outcome}"):
                outcomes[line[len(outcome) + 2 :].split()[0]] = outcome
    assert len(outcomes) == 10, out
    assert [n for n, o in outcomes.items() if o == "resolved by hand"] == list(RESOLUTIONS)
    assert sorted(o for o in outcomes.values() if o != "resolved by hand") == [
        "applied 3-way",
        "applied 3-way",
        "applied clean",
        "applied clean",
        "applied clean",
        "applied clean",
    ]
    pin = (queue / "patches" / "v0.32.0" / "pin.toml").read_text()
    assert 'sdist = "vllm-0.32.0.tar.gz"' in pin and 'upstream_commit = "5df63a720"' in pin
    # The new queue builds from its own pin and files (a fresh tree, not the one resolved in).
    fresh = tmp_path / "fresh"
    check = [*argv, "--base", "v0.32.0", "check", "--static", "--apply", "--fork", str(fresh)]
    assert main(check) == 0, capsys.readouterr().out
