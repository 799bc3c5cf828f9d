# SPDX-License-Identifier: Apache-2.0
"""Run the series' test files on a GPU machine that has torch and Triton but
not vLLM's serving dependencies:

    python3 benchmarks/gpu_pytest.py BUNDLE_DIR [pytest args ...]   (-n N: pytest-xdist)

Packages the modules under test import but never call on this path
(xgrammar, fastapi, ...) get stand-ins (common.import_with_stand_ins, which
prints them), and vllm.platforms.rocm, which needs an AMD GPU, the stand-in of
common.stub_rocm_platform_module (chunked_prefill_paged_decode, which vLLM's
test_prefix_prefill.py imports, asks it). The tests themselves run unchanged.
"""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402


def install(root: str) -> list[str]:
    """Make vllm importable from `root` on this machine: stand-ins for the
    serving packages it lacks, the ROCm platform module's stand-in."""
    if root not in sys.path:
        sys.path.insert(0, root)

    def import_backends() -> None:
        # What the series' test files import: TRITON_ATTN and its paged
        # prefill kernel, the prefix_prefill kernel (and its caller, which
        # vLLM's test_prefix_prefill.py imports), the config objects, the
        # attention layer and model registry of the page test, and
        # tests/v1/attention/utils.py's imports.
        import vllm.config  # noqa: F401

        if os.environ.get("VLLM_TARGET_DEVICE") == "cpu":
            # The page test's attention layer imports vllm_flash_attn, which
            # needs compiled extensions on the CUDA platform.
            import vllm.model_executor.layers.attention  # noqa: F401
        import vllm.model_executor.models.registry  # noqa: F401
        import vllm.v1.attention.backends.mamba_attn  # noqa: F401
        import vllm.v1.attention.backends.registry  # noqa: F401
        import vllm.v1.attention.backends.triton_attn  # noqa: F401
        import vllm.v1.attention.ops.chunked_prefill_paged_decode  # noqa: F401
        import vllm.v1.attention.ops.prefix_prefill  # noqa: F401
        import vllm.v1.attention.ops.triton_paged_prefill_aligned  # noqa: F401

    if os.environ.get("VLLM_TARGET_DEVICE") == "cpu":
        # Config-only tests (the page test of test_triton_attn_paged_prefill.py)
        # run on vLLM's CPU platform here (its CUDA platform needs the
        # compiled extensions). On a host with AVX512-BF16 that platform
        # switches GDN models' SSM state to fp32, which changes their pages;
        # the CPU CI (no platform) does not.
        import torch

        torch.cpu._is_avx512_bf16_supported = lambda: False
    names = common.import_with_stand_ins(import_backends)
    common.stub_rocm_platform_module()
    return names


@pytest.fixture()
def caplog_vllm(caplog, monkeypatch):
    """The fixture of that name in vLLM's tests/conftest.py (not loaded here:
    --noconftest): vLLM's log records reach caplog at INFO."""
    import logging

    from vllm.logger import DEFAULT_LOGGING_CONFIG

    monkeypatch.setitem(DEFAULT_LOGGING_CONFIG["loggers"]["vllm"], "propagate", True)
    monkeypatch.setattr(logging.getLogger("vllm"), "propagate", True)
    with caplog.at_level(logging.INFO):
        yield caplog


if __name__ != "__main__" and os.environ.get("GPU_PYTEST_ROOT"):
    # Loaded as a pytest plugin (-p gpu_pytest), e.g. by a pytest-xdist worker.
    install(os.environ["GPU_PYTEST_ROOT"])


def main() -> int:
    root = os.path.abspath(sys.argv[1])
    here = os.path.dirname(os.path.abspath(__file__))
    # pytest-xdist workers (-n N) inherit the environment and load this file
    # as a plugin, so they set up the same way.
    os.environ["GPU_PYTEST_ROOT"] = root
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [root, here, *filter(None, [os.environ.get("PYTHONPATH")])]
    )
    print("stand-ins:", install(root), flush=True)
    os.chdir(root)
    # This file as a plugin: the caplog_vllm fixture, and pytest-xdist
    # workers set up like this process.
    return pytest.main(["-p", "no:cacheprovider", "--noconftest", "-p", "gpu_pytest", *sys.argv[2:]])


if __name__ == "__main__":
    sys.exit(main())
