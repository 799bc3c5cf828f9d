"""The series' Triton kernels fit every GPU target they ship to.

Runs tools/triton_targets.py (offline compiles for gfx90a, gfx942, gfx950 and
sm_90 through each kernel's own wrapper) against each base's built fork tree
with that tree's venv; fails on a config over a target's LDS/shared memory,
a register spill, a decode residency that differs from the compiled one, or a
wave-split decode kernel that holds fewer programs per compute unit than the
unsplit one.
"""

from __future__ import annotations

import filecmp
import json
import subprocess
from pathlib import Path

import pytest

from vllm_fork.bases import known_bases, load_base
from vllm_fork.venv import python_of, venv_dir

ROOT = Path(__file__).resolve().parents[2]
DECODE_OP = "vllm/v1/attention/ops/decode_page_contiguous.py"


@pytest.mark.integration
def test_kernels_fit_every_target(tmp_path: Path) -> None:
    """The bases in turn, each with its own tree and venv, sharing one
    --reuse file: a kernel the bases share (the decode op's are identical)
    is compiled once."""
    reuse = tmp_path / "compiles.json"
    built = []
    for name in known_bases(ROOT):
        base = load_base(ROOT, name)
        tree = ROOT / ".fork" / base.name
        python = python_of(venv_dir(ROOT, base))
        if not (tree / "vllm").is_dir() or not python.exists():
            print(f"== {name}: not built here, not checked (`./vllm-fork --base {name} build`)")
            continue
        rows = tmp_path / f"{name}.json"
        proc = subprocess.run(
            [str(python), str(ROOT / "tools" / "triton_targets.py"), "--tree", str(tree)]
            + ["--reuse", str(reuse), "--json", str(rows)],
            capture_output=True,
            text=True,
            timeout=2700,
        )
        table = "\n".join(line for line in proc.stdout.splitlines() if not line.startswith("W"))
        print(f"== {name}\n{table}")
        assert proc.returncode == 0, (
            f"{name}: a config does not fit its target:\n{table}\n{proc.stderr[-3000:]}"
        )
        built.append((tree, json.loads(rows.read_text())))
    if not built:
        pytest.skip("no base is built here: run `./vllm-fork build`.")
    if len(built) > 1 and filecmp.cmp(built[0][0] / DECODE_OP, built[1][0] / DECODE_OP):
        decode = [r for r in built[1][1] if r["kernel"].startswith("_decode_page_contiguous")]
        assert decode and all(r["reused"] for r in decode), (
            f"{built[1][0]} compiled the decode op's kernels again: the --reuse key "
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
