# SPDX-License-Identifier: Apache-2.0
"""Shared pieces of the GPU benchmarks: importing the fork, timing, ceilings, environment.

vLLM is imported from a source tree or an unpacked Python-only bundle
(`./vllm-fork bundle`). A bundle carries an empty stand-in for
`vllm._C_stable_libtorch`, which vllm/platforms/cuda.py imports unconditionally;
none of the Triton ops benchmarked here call it.
"""

from __future__ import annotations

import importlib.util
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import types

T0 = time.time()


def log(msg: str) -> None:
    print(f"[{time.time() - T0:7.1f}s] {msg}", flush=True)


def ints(text: str) -> list[int]:
    """A comma-separated command-line list of integers."""
    return [int(v) for v in text.split(",") if v]


def prewarm_in_workers(prewarm, jobs, workers: int) -> None:
    """Run prewarm(job) for every job in spawned worker processes (Triton
    compiles there, into its on-disk cache), logging what each returns."""
    import multiprocessing as mp

    with mp.get_context("spawn").Pool(workers) as pool:
        for msg in pool.imap_unordered(prewarm, jobs):
            log(f"prewarm {msg}")


def use_vllm_root(root: str | None) -> None:
    if root:
        sys.path.insert(0, os.path.abspath(root))


def stub_rocm_platform_module() -> None:
    """chunked_prefill_paged_decode imports vllm.platforms.rocm lazily, which cannot
    be imported without an AMD GPU. Its only use there, use_rocm_custom_paged_attention,
    answers False on ROCm for head size 256 and pages that are not 16/32, so a
    stand-in answering False selects the same (Triton) kernel ROCm runs."""
    try:
        import vllm.platforms.rocm  # noqa: F401
    except Exception:  # noqa: BLE001
        stub = types.ModuleType("vllm.platforms.rocm")
        stub.use_rocm_custom_paged_attention = lambda *a, **k: False
        sys.modules["vllm.platforms.rocm"] = stub


class _StandIn(types.ModuleType):
    """A package the GPU machine lacks; any attribute is a placeholder class."""

    __path__: list[str] = []

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        value = type(
            name,
            (),
            {
                "__init__": lambda self, *a, **k: None,
                "__init_subclass__": classmethod(lambda cls, **k: None),
                "__class_getitem__": classmethod(lambda cls, item: cls),
            },
        )
        setattr(self, name, value)
        return value


class _StandInFinder:
    """Meta-path finder serving _StandIn modules for the given top-level names."""

    def __init__(self) -> None:
        self.names: set[str] = set()

    def find_spec(self, fullname, path=None, target=None):
        if fullname.split(".")[0] not in self.names:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec):
        return _StandIn(spec.name)

    def exec_module(self, module) -> None:
        pass


def import_with_stand_ins(import_all, limit: int = 60) -> list[str]:
    """Run import_all(), standing in for each top-level package that is not
    installed (serving-only dependencies of vLLM modules, e.g. xgrammar, that
    a GPU machine without vLLM's requirements lacks and attention kernels
    never call). Returns the packages stood in for; say so in results."""
    finder = _StandInFinder()
    sys.meta_path.insert(0, finder)
    for _ in range(limit):
        try:
            import_all()
            return sorted(finder.names)
        except ModuleNotFoundError as exc:
            top = (exc.name or "").split(".")[0]
            if not top or top == "vllm" or top in finder.names:
                raise
            # Modules whose import failed are out of sys.modules again;
            # those that completed stay, so a retry resumes where it stopped.
            finder.names.add(top)
    raise RuntimeError(f"more than {limit} missing packages: {sorted(finder.names)}")


def edited_module(src: str, name: str, edits) -> tuple[types.ModuleType, str]:
    """Import a copy of a module's source with edits applied (benchmarks
    that try kernel variants without touching the fork). Each edit is
    (old, new), `old` occurring exactly once, or a function of the source.
    Returns the module and its edited source; ValueError names an edit
    that does not apply."""
    for edit in edits:
        if callable(edit):
            src = edit(src)
            continue
        old, new = edit
        if src.count(old) != 1:
            raise ValueError(f"{name}: edit does not apply: {old[:60]!r}")
        src = src.replace(old, new)
    path = os.path.join(tempfile.mkdtemp(), f"{name}.py")
    with open(path, "w") as f:
        f.write(src)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod, src


def graph_time_us(fn, reps: int = 30, rounds: int = 1) -> float:
    """Median microseconds of one CUDA-graph replay of fn (falls back to eager)."""
    import torch

    fn()
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    try:
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            fn()
        torch.cuda.current_stream().wait_stream(stream)
        with torch.cuda.graph(graph):
            fn()
        run = graph.replay
    except Exception as exc:  # noqa: BLE001
        log(f"graph capture failed ({exc!r}); timing eagerly")
        run = fn
    run()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        run()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1e3)
    return statistics.median(times)


def ceilings(gib: float = 4.0) -> dict[str, float]:
    """Copy bandwidth (read+write), read-only bandwidth, bf16 matmul rate, measured now."""
    import torch

    n = int(gib * 2**30) // 2
    # One dict, cleared at the end, so the buffers are freed before the
    # caller allocates its own.
    buf = {"src": torch.randn(n, dtype=torch.bfloat16, device="cuda")}
    buf["dst"] = torch.empty_like(buf["src"])
    buf["acc"] = torch.empty((), dtype=torch.float32, device="cuda")
    copy_us = graph_time_us(lambda: buf["dst"].copy_(buf["src"]), reps=20)
    read_us = graph_time_us(
        lambda: torch.sum(buf["src"], 0, dtype=torch.float32, out=buf["acc"]), reps=20
    )
    buf.clear()
    buf["a"] = torch.randn((8192, 8192), dtype=torch.bfloat16, device="cuda")
    buf["b"] = torch.randn((8192, 8192), dtype=torch.bfloat16, device="cuda")
    mm_us = graph_time_us(lambda: buf["a"] @ buf["b"], reps=20)
    buf.clear()
    torch.cuda.empty_cache()
    return {
        "copy_bandwidth_TBps": 2 * n * 2 / copy_us / 1e6,
        "read_bandwidth_TBps": n * 2 / read_us / 1e6,
        "bf16_matmul_TFLOPps": 2 * 8192**3 / mm_us / 1e6,
    }


def environment() -> dict[str, object]:
    """GPU, driver, library versions, the command line and the fork commit
    (FORK_COMMIT, set by whoever made the bundle)."""
    import torch
    import triton

    env: dict[str, object] = {
        "torch": torch.__version__,
        "triton": triton.__version__,
        "python": platform.python_version(),
        "command": " ".join([os.path.basename(sys.executable)] + sys.argv),
        "fork_commit": os.environ.get("FORK_COMMIT", "unknown"),
    }
    if torch.cuda.is_available():
        env["gpu"] = torch.cuda.get_device_name()
        env["sm_count"] = torch.cuda.get_device_properties(0).multi_processor_count
        env["cuda"] = str(torch.version.cuda)
        try:
            env["driver"] = subprocess.run(
                ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                capture_output=True,
                text=True,
                timeout=20,
            ).stdout.strip()
        except Exception as exc:  # noqa: BLE001
            env["driver"] = f"unknown ({exc})"
    return env
