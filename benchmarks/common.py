# SPDX-License-Identifier: Apache-2.0
"""Shared pieces of the GPU benchmarks and tests: importing the fork, logging, environment.

vLLM is imported from a source tree or an unpacked Python-only bundle
(`./vllm-fork bundle`). A bundle carries an empty stand-in for
`vllm._C_stable_libtorch`, which vllm/platforms/cuda.py imports unconditionally;
none of the Triton ops benchmarked here call it. Each benchmark measures its
own ceilings (matmul rate, bandwidth) in the run.
"""

from __future__ import annotations

import importlib.util
import os
import platform
import subprocess
import sys
import time
import types

T0 = time.time()


def log(msg: str) -> None:
    print(f"[{time.time() - T0:7.1f}s] {msg}", flush=True)


def stub_rocm_platform_module() -> None:
    """chunked_prefill_paged_decode (ROCM_ATTN's kernel) imports vllm.platforms.rocm
    lazily, which cannot be imported without an AMD GPU. It asks
    use_rocm_custom_paged_attention, which answers False on ROCm for head size 256
    and pages that are not 16/32, so a stand-in answering False selects the same
    (Triton) kernel ROCm runs; and on_rdna (v0.34.0), which is False on the
    CDNA GPUs (MI200/MI300) that serve these models."""
    try:
        import vllm.platforms.rocm  # noqa: F401
    except Exception:  # noqa: BLE001
        stub = types.ModuleType("vllm.platforms.rocm")
        stub.use_rocm_custom_paged_attention = lambda *a, **k: False
        stub.on_rdna = lambda: False
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


def pyplot(path: str):
    """matplotlib.pyplot on the Agg backend, or None (logged) where
    matplotlib is not installed and `path` is not drawn."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        log(f"matplotlib is not installed: no {path}")
        return None
    return plt


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
