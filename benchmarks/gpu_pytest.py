# SPDX-License-Identifier: Apache-2.0
"""Run the series' test files on a GPU machine that has torch and Triton but
not vLLM's serving dependencies:

    python3 benchmarks/gpu_pytest.py BUNDLE_DIR [pytest args ...]

Packages the backends import but never call on this path (xgrammar, fastapi,
...) get stand-ins (common.import_with_stand_ins, which prints them), and
vllm.platforms.rocm, which needs an AMD GPU, the stand-in of
common.stub_rocm_platform_module. The tests themselves run unchanged.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402


def main() -> int:
    root = os.path.abspath(sys.argv[1])
    sys.path.insert(0, root)
    os.chdir(root)

    def import_backends() -> None:
        import vllm.config  # noqa: F401
        import vllm.v1.attention.backends.rocm_attn  # noqa: F401
        import vllm.v1.attention.backends.triton_attn  # noqa: F401

    print("stand-ins:", common.import_with_stand_ins(import_backends), flush=True)
    common.stub_rocm_platform_module()
    import pytest

    return pytest.main(["-p", "no:cacheprovider", "--noconftest", *sys.argv[2:]])


if __name__ == "__main__":
    sys.exit(main())
