# SPDX-License-Identifier: Apache-2.0
"""Instruction counts of decode_page_contiguous's kernels for sm_90, compiled
offline on the CPU, for the variants of decode_short_context_variants.py
(session 40): how much code a variant adds or removes where the GPU timings
alone do not tell (differences of about 1%).

    .fork/venvs/v0.33.0/bin/python benchmarks/experiments/decode_short_context_sass.py \
        --tree .fork/v0.33.0 --variants base,no_tile_parts,parts_cmp \
        --groups 8/1/128:16,4/1/128:544,16/2/256:16 --out FILE.json

Each kernel is launched through the op's wrapper at batch 1 and 128 tokens
(bf16, TRITON_ATTN's layout), with the wrapper's own sm_90 config and 132
SMs; the launch is compiled for sm_90 instead of run, and its cubin is read
with cuobjdump -sass (Triton's own copy). Printed per kernel: SASS
instructions, and those of the opcodes integer division and the tile-part
masks compile to (IMAD, I2F, MUFU, ISETP).
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import subprocess
import sys
import tempfile

os.environ["CUDA_VISIBLE_DEVICES"] = ""
os.environ.pop("TRITON_INTERPRET", None)
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
import common  # noqa: E402
from decode_short_context_variants import EDITS  # noqa: E402

OPCODES = ("IMAD", "I2F", "MUFU", "ISETP")
SASS_LINE = re.compile(r"\s+/\*[0-9a-f]{4}\*/\s+(?:@!?U?P\w+\s+)?([A-Z0-9_]+)")


def sass_counts(cubin: bytes) -> dict[str, int]:
    import triton

    tool = os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "bin", "cuobjdump")
    with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
        f.write(cubin)
        f.flush()
        sass = subprocess.run([tool, "-sass", f.name], capture_output=True, text=True, check=True)
    ops = collections.Counter(
        m.group(1) for m in map(SASS_LINE.match, sass.stdout.splitlines()) if m
    )
    return {"sass": sum(ops.values()), **{op: ops[op] for op in OPCODES}}


def compiled_kernels(mod, heads, page) -> dict[str, dict[str, int]]:
    """{kernel name: counts} of one batch-1 call of mod's op, compiled for sm_90."""
    import torch
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource, make_backend
    from triton.runtime.jit import JITFunction, create_function_from_signature

    target = GPUTarget("cuda", 90, 32)
    mod._num_compute_units = lambda device: 132
    mod._current_target = lambda device: target
    found = {}

    def run(fn, *args, grid, warmup, **kwargs):  # noqa: ARG001
        backend = make_backend(target)
        binder = create_function_from_signature(fn.signature, fn.params, backend)
        kwargs = dict(kwargs, debug=False)
        bound, specialization, options = binder(*args, **kwargs)
        options, signature, constexprs, attrs = fn._pack_args(
            backend, kwargs, bound, specialization, options
        )
        src = ASTSource(fn, signature, constexprs, attrs)
        kernel = triton.compile(src, target=target, options=options.__dict__)
        found[fn.__name__] = sass_counts(kernel.asm["cubin"])

    hq, hk, hs = heads
    k = torch.empty((2, page, hk, hs), dtype=torch.bfloat16)
    q = torch.empty((1, hq, hs), dtype=torch.bfloat16)
    table = torch.zeros((1, 40), dtype=torch.int32)
    lens = torch.full((1,), 128, dtype=torch.int32)
    original = JITFunction.run
    JITFunction.run = run
    try:
        mod.decode_page_contiguous(q, k, torch.empty_like(k), q.clone(), table, lens, 0.1)
    finally:
        JITFunction.run = original
    return found


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tree", required=True, help="the fork tree (holds vllm/)")
    p.add_argument("--variants", default="base,no_tile_parts,parts_cmp")
    p.add_argument("--groups", default="8/1/128:16,4/1/128:544,16/2/256:16")
    p.add_argument("--out")
    args = p.parse_args(argv)
    sys.path.insert(0, os.path.abspath(args.tree))
    path = os.path.join(args.tree, "vllm", "v1", "attention", "ops", "decode_page_contiguous.py")
    with open(path) as f:
        src = f.read()
    rows = []
    for name in args.variants.split(","):
        mod, _ = common.edited_module(src, f"dpc_{name}", EDITS.get(name, []))
        for g in args.groups.split(","):
            heads, page = g.split(":")
            heads = tuple(map(int, heads.split("/")))
            for kernel, counts in compiled_kernels(mod, heads, int(page)).items():
                rows.append({"variant": name, "heads": list(heads), "page": int(page),
                             "kernel": kernel, **counts})  # fmt: skip
                print(f"{name:14} {g:12} {kernel:40} "
                      + " ".join(f"{k} {v:5}" for k, v in counts.items()))  # fmt: skip
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
