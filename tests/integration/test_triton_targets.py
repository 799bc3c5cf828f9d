"""The series' Triton kernels fit every GPU target they ship to.

Runs tools/triton_targets.py (offline compiles for gfx90a, gfx942, gfx950 and
sm_90 through each kernel's own wrapper) against each base's built fork tree
with that tree's venv; fails on a config over a target's LDS/shared memory,
or a register spill.
"""

from __future__ import annotations

import filecmp
import json
import os
import subprocess
from pathlib import Path

import pytest

from vllm_fork.bases import known_bases, load_base
from vllm_fork.cli import TRITON_TARGET_GROUPS
from vllm_fork.venv import python_of, venv_dir

ROOT = Path(__file__).resolve().parents[2]
# The series' new kernel file: the same in every base's tree, so compiled once.
PAGED_PREFILL_OP = "vllm/v1/attention/ops/triton_paged_prefill_aligned.py"
# What each target compiles: context_attention_fwd runs on ROCm only (ROCM_ATTN).
KERNELS = {
    "sm_90": {"_paged_prefill_aligned_kernel"},
    "gfx90a": {"_paged_prefill_aligned_kernel", "_fwd_kernel"},
    "gfx942": {"_paged_prefill_aligned_kernel", "_fwd_kernel"},
    "gfx950": {"_paged_prefill_aligned_kernel", "_fwd_kernel"},
}


def test_target_groups_are_every_target(monkeypatch: pytest.MonkeyPatch) -> None:
    # The tool sets these two for itself when imported; keep the worker's own.
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    monkeypatch.syspath_prepend(str(ROOT / "tools"))
    import triton_targets

    groups = [set(g.split(",")) for g in TRITON_TARGET_GROUPS]
    assert sum(map(len, groups)) == len(set().union(*groups))
    assert set().union(*groups) == {t.name for t in triton_targets.TARGETS}


@pytest.mark.parametrize(
    "clamped_lds, clamped_spills, fails",
    [(65536, 187, False), (65536, 215, False), (65536 + 1, 0, True), (65536, 216, True)],
)
def test_prefix_prefill_clamp_fails_only_where_it_needs_more(
    clamped_lds: int, clamped_spills: int, fails: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Upstream's context_attention_fwd tiles spill on gfx90a at head 256:
    reported, not failed. A page where the block-table clamp compiles in
    fails when it needs more LDS or spills more than a page without it at
    the same head size, and only then."""
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    monkeypatch.syspath_prepend(str(ROOT / "tools"))
    import triton_targets

    def row(case: str, lds: int, spills: int) -> triton_targets.Row:
        problems = [f"{spills} spilled registers"] if spills else []
        return triton_targets.Row(
            "gfx90a", case, "_fwd_kernel", 4, 1, lds, 512, spills, 0, 1, problems
        )

    unclamped, other_head = row("832 256", 65536, 215), row("832 128", 32768, 0)
    clamped = row("784 256", clamped_lds, clamped_spills)
    kinds = {"832 256": (256, False), "832 128": (128, False), "784 256": (256, True)}
    triton_targets.judge_prefix_prefill_rows([unclamped, other_head, clamped], kinds)
    assert unclamped.upstream and unclamped.problems[0].startswith("upstream config, not failed")
    assert not other_head.problems
    if fails:
        assert not clamped.upstream
        assert clamped.problems[-1] == (
            "the block-table clamp needs more than the release's code at head 256 "
            "(65536 B LDS, 215 spilled registers)"
        )
    else:
        assert all(p.startswith("upstream config, not failed") for p in clamped.problems)


def test_prefix_prefill_clamp_without_a_case_to_compare_with_fails(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A clamped page at a head size no unclamped case has: nothing says it
    costs nothing, so it fails (the cases must come in pairs)."""
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    monkeypatch.syspath_prepend(str(ROOT / "tools"))
    import triton_targets

    clamped = triton_targets.Row("gfx942", "16 128", "_fwd_kernel", 4, 1, 32768, 291, 0, 0, 1)
    triton_targets.judge_prefix_prefill_rows([clamped], {"16 128": (128, True)})
    assert clamped.problems == ["no case at head 128 without the clamp to compare with"]
    assert not clamped.upstream


def test_prefix_prefill_cases_pair_every_clamped_page_with_an_unclamped_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each head size of the tool's context_attention_fwd cases has a page
    its 32-token context tile divides (the release's code) and one it does
    not (patch 1's clamp), so the judge has something to compare with."""
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    monkeypatch.syspath_prepend(str(ROOT / "tools"))
    import triton_targets

    heads = {hs for *_, hs, _ in triton_targets.PREFIX_CASES}
    for head in heads:
        pages = [page for *_, hs, page in triton_targets.PREFIX_CASES if hs == head]
        assert {page % 32 != 0 for page in pages} == {True, False}, (head, pages)


@pytest.mark.integration
@pytest.mark.parametrize("targets", TRITON_TARGET_GROUPS)
def test_kernels_fit_every_target(targets: str, tmp_path: Path) -> None:
    """The bases in turn, each with its own tree and venv, sharing one
    --reuse file: a kernel the bases share (the paged prefill kernel's file
    is identical) is compiled once. Each target compiles the series' kernels
    it runs (KERNELS), for every dtype of the paged prefill kernel."""
    built = []
    for name in known_bases(ROOT):
        base = load_base(ROOT, name)
        tree = ROOT / ".fork" / base.name
        python = python_of(venv_dir(ROOT, base))
        if not (tree / "vllm").is_dir() or not python.exists():
            print(f"== {name}: not built here, not checked (`./vllm-fork --base {name} build`)")
            continue
        rows, out = tmp_path / f"{name}.json", tmp_path / f"{name}.out"
        cmd = [str(python), str(ROOT / "tools" / "triton_targets.py"), "--tree", str(tree)]
        cmd += ["--targets", targets, "--reuse", str(tmp_path / "compiles.json")]
        cmd += ["--json", str(rows)]
        # The tool sets these two for itself when imported; keep the worker's own.
        env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
        env["CUDA_VISIBLE_DEVICES"] = ""
        with out.open("w") as f:  # a file, not a pipe: nothing waits on a full pipe
            proc = subprocess.run(cmd, stdout=f, stderr=f, env=env, timeout=2700)
        lines = out.read_text().splitlines()
        table = "\n".join(line for line in lines if not line.startswith("W"))
        print(f"== {name} ({targets}): exit {proc.returncode}\n{table}")
        assert proc.returncode == 0, f"{name} ({targets}): a config does not fit its target"
        found = json.loads(rows.read_text())
        assert {r["target"] for r in found} == set(targets.split(","))
        for target in targets.split(","):
            compiled = {r["kernel"] for r in found if r["target"] == target}
            assert compiled == KERNELS[target], (name, target, compiled)
        prefill = [r["case"] for r in found if r["kernel"] == "_paged_prefill_aligned_kernel"]
        for dtype in ("bfloat16", "float32"):
            assert any(f" {dtype} " in case for case in prefill), (name, dtype)
        built.append((tree, found))
    if not built:
        pytest.skip("no base is built here: run `./vllm-fork build`.")
    if len(built) > 1 and filecmp.cmp(
        built[0][0] / PAGED_PREFILL_OP, built[1][0] / PAGED_PREFILL_OP, shallow=False
    ):
        prefill = [r for r in built[1][1] if r["kernel"] == "_paged_prefill_aligned_kernel"]
        assert prefill and all(r["reused"] for r in prefill), (
            f"{built[1][0]} compiled the paged prefill kernel again: the --reuse key "
            "depends on something other than what the compile depends on"
        )


def test_compile_key_names_device_libraries_by_content(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two venvs hold the same device library at different paths: one key.
    Another library, source, constant or target: another key."""
    pytest.importorskip("triton")
    # The tool sets these two for itself when imported; keep the worker's own.
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    monkeypatch.syspath_prepend(str(ROOT / "tools"))
    import triton_targets
    import triton
    import triton.language as tl
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource, make_backend

    @triton.jit
    def copy(x, y, N: tl.constexpr):
        tl.store(y + tl.arange(0, N), tl.load(x + tl.arange(0, N)))

    @triton.jit
    def copy_twice(x, y, N: tl.constexpr):
        tl.store(y + tl.arange(0, N), 2 * tl.load(x + tl.arange(0, N)))

    libs = {}
    for name, data in (("a", b"ocml"), ("b", b"ocml"), ("c", b"other")):
        libs[name] = tmp_path / name / "ocml.bc"
        libs[name].parent.mkdir()
        libs[name].write_bytes(data)

    def key(fn=copy, n=64, lib="a", arch="gfx942") -> str:
        backend = make_backend(GPUTarget("hip", arch, 64))
        options = dict(backend.parse_options({}).__dict__, extern_libs=(("ocml", str(libs[lib])),))
        src = ASTSource(fn, {"x": "*fp32", "y": "*fp32"}, {"N": n})
        return triton_targets.compile_key(src, backend, options)

    assert key(lib="a") == key(lib="b")
    for other in (key(lib="c"), key(fn=copy_twice), key(n=128), key(arch="gfx950")):
        assert other != key()


def test_sm90_resources_come_from_the_ptxas_run_triton_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A kernel Triton compiles: the log of its own ptxas run is read, ptxas
    does not run again. The same kernel from Triton's cache: Triton's ptxas
    step runs once on its PTX, with the same resources. Nothing reaches
    stdout, and Triton's knob is as it was."""
    pytest.importorskip("triton")
    # The tool sets these two for itself when imported; keep the worker's own.
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.syspath_prepend(str(ROOT / "tools"))
    import torch
    import triton
    import triton.language as tl
    import triton_targets
    from triton.backends.nvidia.compiler import CUDABackend

    @triton.jit
    def softmax_rows(x, y, N: tl.constexpr):
        row = tl.load(x + tl.program_id(0) * N + tl.arange(0, N))
        row = tl.exp(row - tl.max(row, 0))
        tl.store(y + tl.program_id(0) * N + tl.arange(0, N), row / tl.sum(row, 0))

    ptxas_runs = []
    make_cubin = CUDABackend.make_cubin
    monkeypatch.setattr(
        CUDABackend, "make_cubin", lambda *a: ptxas_runs.append(1) or make_cubin(*a)
    )
    knob = triton.knobs.nvidia.dump_ptxas_log
    sm_90 = next(t for t in triton_targets.TARGETS if t.name == "sm_90")
    x = torch.empty(4 * 1024)
    found = []
    for _ in range(2):  # compiled, then from Triton's cache
        compiler = triton_targets.Compiler(sm_90, reuse={})
        with compiler.intercept():
            softmax_rows[(4,)](x, torch.empty_like(x), N=1024)
        (row,) = compiler.rows
        found.append((row.regs, row.spills, row.scratch, row.lds))
        assert len(ptxas_runs) == len(found)
    assert found[0] == found[1] and found[0][0] > 0
    assert triton.knobs.nvidia.dump_ptxas_log == knob
    assert capsys.readouterr().out == ""


def test_nvidia_resources_count_every_function_of_the_log(monkeypatch: pytest.MonkeyPatch) -> None:
    """A noinline helper is a function of its own in ptxas' log: its spills
    and stack frame count."""
    # The tool sets these two for itself when imported; keep the worker's own.
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    monkeypatch.syspath_prepend(str(ROOT / "tools"))
    from triton_targets import nvidia_resources

    log = (
        "ptxas info    : Function properties for kernel\n"
        "    16 bytes stack frame, 8 bytes spill stores, 8 bytes spill loads\n"
        "ptxas info    : Used 40 registers\n"
        "ptxas info    : Function properties for helper\n"
        "    96 bytes stack frame, 64 bytes spill stores, 64 bytes spill loads\n"
    )
    assert nvidia_resources(log) == {"regs": 40, "spills": 72, "scratch": 96}
