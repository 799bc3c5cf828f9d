# SPDX-License-Identifier: Apache-2.0
"""Compile the series' Triton kernels offline for every GPU target they ship to.

A launch config that does not fit a target fails at its first launch there
(Triton raises OutOfResources when a workgroup needs more LDS than the GPU
has), and one that spills registers runs slowly: neither shows on an NVIDIA
GPU or in the CPU interpreter. Triton's AMD and NVIDIA backends compile on a
CPU, so this runs in CI:

    python tools/triton_targets.py --tree .fork/v0.34.0 [--json out.json] [--reuse FILE]

(with the fork's venv python; `--reuse` keeps the compiled kernels'
resources in FILE, so that a run on another fork tree compiles only the
kernels that differ). The kernels: prefix_prefill's `_fwd_kernel` with
the bound fix's block-table clamp, through `context_attention_fwd` as ROCM_ATTN
calls it (AMD targets only), and the opt-in patch's `_paged_prefill_aligned_kernel`,
through `paged_prefill_aligned` on TRITON_ATTN's K/V views. Each kernel is
launched through its real wrapper on small CPU tensors with the wrapper's
own config choice for the target; the launch is intercepted and compiled
for the target instead: gfx90a (MI250), gfx942 (MI300X), gfx950 (MI355X)
and sm_90 (H100/H200).
Hygon DCU targets (gfx928/gfx936/gfx938) cannot be checked: upstream
Triton's AMD backend does not know them ("unsupported target"), and DCU
runs Hygon's own Triton build.

It prints one row per compiled kernel (LDS/shared bytes, VGPRs or
registers, spills, scratch, workgroups per compute unit) and exits 1 when a
config exceeds the target's LDS/shared memory or spills registers.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import re
import sys
from dataclasses import asdict, dataclass, field

os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")
os.environ.pop("TRITON_INTERPRET", None)


@dataclass(frozen=True)
class Target:
    name: str
    backend: str  # "hip" or "cuda"
    arch: str | int
    warp_size: int
    lds_per_workgroup: int  # bytes a workgroup (CTA) may allocate
    lds_per_cu: int  # bytes per compute unit (SM)
    num_cus: int  # compute units of the reference part


TARGETS = (
    Target("gfx90a", "hip", "gfx90a", 64, 64 << 10, 64 << 10, 110),  # MI250X (one GCD)
    Target("gfx942", "hip", "gfx942", 64, 64 << 10, 64 << 10, 304),  # MI300X
    Target("gfx950", "hip", "gfx950", 64, 160 << 10, 160 << 10, 256),  # MI355X
    Target("sm_90", "cuda", 90, 32, 227 << 10, 228 << 10, 132),  # H200
)


@dataclass
class Row:
    target: str
    case: str
    kernel: str
    num_warps: int
    num_stages: int
    lds: int
    regs: int
    spills: int
    scratch: int
    per_cu: int
    problems: list[str] = field(default_factory=list)
    upstream: bool = False
    # Taken from --reuse (or an earlier launch of this run), not compiled.
    reused: bool = False
    # Printed, not failed.
    notes: list[str] = field(default_factory=list)


def amd_resources(asm: str) -> dict[str, int]:
    def num(key: str) -> int:
        m = re.search(rf"\.{key}:\s+(\d+)", asm)
        return int(m.group(1)) if m else 0

    # .vgpr_count is the unified VGPR+AGPR total on gfx90a and later; SGPR
    # spills go to VGPR lanes, not to memory: VGPR spills and scratch do.
    return {
        "vgpr": num("vgpr_count"),
        "spills": num("vgpr_spill_count"),
        "scratch": num("private_segment_fixed_size"),
    }


def nvidia_resources(log: str) -> dict[str, int]:
    """From a `ptxas -v` log: the kernel's registers (its entry function comes
    first), the spill stores and the largest stack frame of all its functions
    (a noinline helper is a function of its own)."""
    regs = re.search(r"Used (\d+) registers", log)
    spills = [int(n) for n in re.findall(r"(\d+) bytes spill stores", log)]
    stack = [int(n) for n in re.findall(r"(\d+) bytes stack frame", log)]
    return {
        "regs": int(regs.group(1)) if regs else 0,
        "spills": sum(spills),
        "scratch": max(stack, default=0),
    }


def workgroups_per_cu(t: Target, num_warps: int, lds: int, regs: int) -> int:
    """Resident workgroups (CTAs) per compute unit, from registers and LDS."""
    by_lds = t.lds_per_cu // lds if lds else 64
    if t.backend == "hip":
        # CDNA: 512 VGPRs (VGPR + AGPR, granule 8) per lane of each of the
        # 4 SIMDs, at most 8 waves per SIMD; a workgroup's waves spread
        # over the SIMDs.
        alloc = max(8, -(-regs // 8) * 8)
        waves_per_simd = min(8, 512 // alloc)
        by_regs = 4 * waves_per_simd // num_warps
    else:
        # Hopper: 64K registers per SM, allocated per warp in units of 256,
        # at most 64 warps and 32 CTAs per SM; 1 KiB reserved per CTA.
        per_warp = -(-regs * 32 // 256) * 256
        by_regs = min(65536 // per_warp, 64) // num_warps
        by_lds = t.lds_per_cu // (lds + 1024)
    return max(0, min(by_regs, by_lds, 32))


def compile_key(src, backend, options: dict) -> str:
    """What decides a compiled kernel's resources: Triton's own cache key
    (Triton's build, the kernel's source and dependencies, specialization,
    constants, target, options, cache-invalidating environment), with the
    device libraries named by content, not by path. Triton's AMD options key
    holds the paths of ocml/ockl (its NVIDIA one already hashes libdevice's
    content), so each fork's venv (its own copy of Triton) misses the AMD
    kernels another venv compiled; this key does not."""
    import hashlib

    from triton.compiler.compiler import get_cache_invalidating_env_vars
    from triton.runtime.cache import triton_key

    def file_hash(path: str) -> str:
        with open(path, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()

    opts = dict(options)
    opts["extern_libs"] = tuple(
        (name, file_hash(path)) for name, path in opts.get("extern_libs") or ()
    )
    env = sorted(get_cache_invalidating_env_vars().items())
    opts_key = sorted((k, str(v)) for k, v in opts.items())
    key = f"{triton_key()}-{src.hash()}-{backend.hash()}-{opts_key}-{env}"
    return hashlib.sha256(key.encode()).hexdigest()


class Compiler:
    """Intercepts Triton launches and compiles them for one target.

    `reuse` maps compile_key to the resources of a kernel compiled before
    (another fork tree, an earlier run); such a kernel is not compiled again,
    and each new one is added."""

    def __init__(self, target: Target, reuse: dict[str, dict[str, int]]) -> None:
        from triton.backends.compiler import GPUTarget

        self.target = target
        self.gpu_target = GPUTarget(target.backend, target.arch, target.warp_size)
        self.rows: list[Row] = []
        self.case = ""
        self.reuse = reuse
        # The keyword arguments (constexprs, launch options) of the last launch.
        self.last_kwargs: dict = {}

    @contextlib.contextmanager
    def intercept(self):
        from triton.runtime.jit import JITFunction

        original = JITFunction.run
        compiler = self

        def run(fn, *args, grid, warmup, **kwargs):  # noqa: ARG001
            compiler.last_kwargs = kwargs
            compiler.compile(fn, args, kwargs)

        JITFunction.run = run
        try:
            yield self
        finally:
            JITFunction.run = original

    def compile_with_ptxas_log(self, backend, src, options):
        """(the kernel, the `ptxas -v` log of its cubin). Triton runs ptxas -v
        itself and prints the log with this knob; for a kernel from Triton's
        cache, which ran no ptxas, Triton's own ptxas step runs on its PTX
        (same command, same log)."""
        import triton

        log = io.StringIO()
        try:
            with triton.knobs.nvidia.scope(), contextlib.redirect_stdout(log):
                triton.knobs.nvidia.dump_ptxas_log = True
                kernel = triton.compile(src, target=self.gpu_target, options=options.__dict__)
                if not re.search(r"Used \d+ registers", log.getvalue()):
                    backend.make_cubin(kernel.asm["ptx"], {}, options, self.target.arch)
        except BaseException:
            sys.stderr.write(log.getvalue())  # Triton's reproducer, if ptxas failed
            raise
        return kernel, log.getvalue()

    def compile(self, fn, args, kwargs) -> None:
        import triton
        from triton.compiler import ASTSource, make_backend
        from triton.runtime.jit import create_function_from_signature

        backend = make_backend(self.gpu_target)
        binder = create_function_from_signature(fn.signature, fn.params, backend)
        kwargs = dict(kwargs, debug=False)
        bound, specialization, options = binder(*args, **kwargs)
        options, signature, constexprs, attrs = fn._pack_args(
            backend, kwargs, bound, specialization, options
        )
        src = ASTSource(fn, signature, constexprs, attrs)
        t = self.target
        key = compile_key(src, backend, options.__dict__)
        reused = key in self.reuse
        if not reused:
            if t.backend == "hip":
                kernel = triton.compile(src, target=self.gpu_target, options=options.__dict__)
                found = amd_resources(kernel.asm["amdgcn"])
                res = {
                    "regs": found["vgpr"],
                    "spills": found["spills"],
                    "scratch": found["scratch"],
                }
            else:
                kernel, log = self.compile_with_ptxas_log(backend, src, options)
                res = nvidia_resources(log)
            res["lds"] = kernel.metadata.shared
            self.reuse[key] = res
        res = self.reuse[key]
        lds, regs = res["lds"], res["regs"]
        num_warps, num_stages = options.num_warps, options.num_stages
        row = Row(
            t.name, self.case, fn.__name__, num_warps, num_stages, lds, regs,
            res["spills"], res["scratch"], workgroups_per_cu(t, num_warps, lds, regs),
        )  # fmt: skip
        row.reused = reused
        if lds > t.lds_per_workgroup:
            row.problems.append(f"LDS {lds} B > {t.lds_per_workgroup} B")
        if res["spills"] or res["scratch"]:
            row.problems.append(f"{res['spills']} spilled registers, {res['scratch']} B scratch")
        if row.per_cu == 0:
            row.problems.append("no workgroup fits on a compute unit")
        self.rows.append(row)


# ------------------------------------------------------------------ kernels
# (query heads, KV heads, head size): Qwen3.5-27B, Llama-style GQA, MHA.
PREFILL_HEADS = ((24, 4, 256), (32, 8, 128), (16, 16, 64))


def triton_attn_kv_views(
    num_blocks: int, page: int, kv_heads: int, head: int, dtype, physical: str
):
    """TRITON_ATTN's K/V views: its cache is one tensor, logically
    [blocks, kv_heads, page, 2 * head] (K and V of a token side by side),
    physically NHD ([blocks, page, kv_heads, 2 * head]) or HND; the forward
    transposes it to [blocks, page, kv_heads, 2 * head] and splits the last
    dim into K and V."""
    import torch

    if physical == "nhd":
        cache = torch.empty((num_blocks, page, kv_heads, 2 * head), dtype=dtype).transpose(1, 2)
    else:
        cache = torch.empty((num_blocks, kv_heads, page, 2 * head), dtype=dtype)
    return cache.transpose(1, 2).split(head, dim=-1)


def check_paged_prefill(c: Compiler, dtypes) -> None:
    """paged_prefill_aligned as TRITON_ATTN calls it (the opt-in patch): a chunk of
    4096 query rows after 12K cached tokens, at every head size and in every
    dtype it serves (fp32 with halved tiles), on Qwen3.5's 832-token pages in
    both physical orders of TRITON_ATTN's cache (the token stride is a
    constexpr of the kernel) and on 64-token pages (the smallest it serves).
    Every launch must fit and not spill."""
    import torch

    from vllm.v1.attention.ops import triton_paged_prefill_aligned as ppa

    # The wrapper's own config choice for the target.
    ppa._current_target = lambda device: c.gpu_target
    chunk, seq_len = 4096, 16384
    for dtype in dtypes:
        for hq, hk, hs in PREFILL_HEADS:
            for page, physical in ((832, "nhd"), (832, "hnd"), (64, "nhd")):
                k, v = triton_attn_kv_views(2, page, hk, hs, dtype, physical)
                q = torch.empty((chunk, hq, hs), dtype=dtype)
                start = torch.tensor([0, chunk], dtype=torch.int32)
                lens = torch.full((1,), seq_len, dtype=torch.int32)
                table = torch.zeros((1, -(-seq_len // page)), dtype=torch.int32)
                c.case = f"paged_prefill {hq}/{hk}/{hs} page {page} {str(dtype)[6:]} {physical}"
                launched = len(c.rows)
                ppa.paged_prefill_aligned(q, k, v, q.clone(), start, lens, table, chunk, 0.1)
                if len(c.rows) == launched:
                    raise RuntimeError(f"{c.case}: paged_prefill_aligned launched no kernel")


# (query heads, KV heads, head size, page) of context_attention_fwd's cases:
# at each head size, a page its 32-token context tile divides (the release's
# code) and one it does not (the series' block-table clamp compiles in):
# Qwen3.5's 832 and 784, ROCM_ATTN's default 16, 544 and 1040.
PREFIX_CASES = (
    (24, 4, 256, 832),
    (24, 4, 256, 784),
    (32, 8, 128, 832),
    (32, 8, 128, 16),
    (16, 16, 64, 544),
    (16, 16, 64, 1040),
)


def check_prefix_prefill(c: Compiler, dtypes) -> None:
    """context_attention_fwd as ROCM_ATTN calls it (chunked_prefill_paged_decode
    on its x-packed cache; the platform faked), with the bound fix's block-table
    clamp compiled in where the context tile does not divide the page."""
    import torch

    from vllm.v1.attention.ops import prefix_prefill as pp

    class Platform:
        def __getattr__(self, name):
            return getattr(real, name)

        def is_rocm(self) -> bool:
            return c.target.backend == "hip"

        def is_cuda(self) -> bool:
            return c.target.backend == "cuda"

    if c.target.backend != "hip":
        return  # context_attention_fwd runs on ROCm only (ROCM_ATTN)
    if "CLAMP_BLOCK_TABLE" not in pp._fwd_kernel.src:
        raise RuntimeError("_fwd_kernel has no CLAMP_BLOCK_TABLE: not the series' prefix_prefill")
    real = pp.current_platform
    pp.current_platform = Platform()
    first_row = len(c.rows)
    # The head size of each case's rows, and whether the clamp compiled in.
    kinds: dict[str, tuple[int, bool]] = {}
    try:
        for dtype in dtypes[:1]:
            for hq, hk, hs, page in PREFIX_CASES:
                x = 16 // dtype.itemsize
                k_cache = torch.empty((4, hk, hs // x, page, x), dtype=dtype)
                v_cache = torch.empty((4, hk, hs, page), dtype=dtype)
                q = torch.empty((256, hq, hs), dtype=dtype)
                kv = torch.empty((256, hk, hs), dtype=dtype)
                table = torch.zeros((1, -(-1024 // page)), dtype=torch.int32)
                start = torch.tensor([0, 256], dtype=torch.int32)
                lens = torch.tensor([1024], dtype=torch.int32)
                one = torch.ones((), dtype=torch.float32)
                c.case = f"prefix_prefill {hq}/{hk}/{hs} page {page} {str(dtype)[6:]}"
                launched = len(c.rows)
                pp.context_attention_fwd(
                    q, kv, kv, q.clone(), "auto", k_cache, v_cache, table, start, lens,
                    1024, 256, one, one,
                )  # fmt: skip
                if len(c.rows) == launched:
                    raise RuntimeError(f"{c.case}: context_attention_fwd launched no kernel")
                # The kernel's own condition for the clamp, from the launch.
                tile, page_size = (c.last_kwargs[k] for k in ("BLOCK_SIZE", "PHYSICAL_BLOCK_SIZE"))
                kinds[c.case] = (hs, page_size % tile != 0)
    finally:
        pp.current_platform = real
    judge_prefix_prefill_rows(c.rows[first_row:], kinds)


def judge_prefix_prefill_rows(rows: list[Row], kinds: dict[str, tuple[int, bool]]) -> None:
    """context_attention_fwd runs upstream's tiles (the series changes only
    the block-table bound): their problems are reported, not failed. Where
    the clamp compiles in (a launch the series changes) it must need no more
    LDS and spill no more than where it does not at the same head size, or
    it fails (a masked block-table load, tried first, spilled at head 256).
    kinds: case -> (head size, clamp compiled in)."""
    unclamped = {kinds[r.case][0]: r for r in rows if not kinds[r.case][1]}
    for row in rows:
        head, clamped = kinds[row.case]
        ref = unclamped.get(head)
        if clamped and ref is None:
            row.problems.append(f"no case at head {head} without the clamp to compare with")
        elif clamped and (row.lds > ref.lds or row.spills > ref.spills):
            row.problems.append(
                f"the block-table clamp needs more than the release's code at head {head} "
                f"({ref.lds} B LDS, {ref.spills} spilled registers)"
            )
        elif row.problems:
            row.problems = [f"upstream config, not failed: {'; '.join(row.problems)}"]
            row.upstream = True


CHECKS = {"prefill": check_paged_prefill, "prefix": check_prefix_prefill}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tree", required=True, help="the fork tree (holds vllm/)")
    p.add_argument("--json", help="write the rows here")
    p.add_argument("--targets", default=",".join(t.name for t in TARGETS))
    p.add_argument("--kernels", default=",".join(CHECKS))
    p.add_argument("--dtypes", default="bfloat16,float32")
    p.add_argument(
        "--reuse",
        metavar="FILE",
        help="JSON of kernels compiled by earlier runs (any fork tree or venv), keyed by "
        "what decides their resources; those are not compiled again, new ones are added",
    )
    args = p.parse_args(argv)
    sys.path.insert(0, os.path.abspath(args.tree))
    import torch

    reuse: dict[str, dict[str, int]] = {}
    if args.reuse and os.path.exists(args.reuse):
        try:
            with open(args.reuse) as f:
                reuse = json.load(f)
        except (OSError, ValueError) as exc:
            p.error(f"--reuse {args.reuse}: unreadable ({exc}); delete it to compile afresh")
        if not isinstance(reuse, dict):
            p.error(
                f"--reuse {args.reuse}: not a file this tool wrote; delete it to compile afresh"
            )
    dtypes = [getattr(torch, d) for d in args.dtypes.split(",")]
    rows: list[Row] = []
    for target in (t for t in TARGETS if t.name in args.targets.split(",")):
        compiler = Compiler(target, reuse)
        with compiler.intercept():
            for name in args.kernels.split(","):
                CHECKS[name](compiler, dtypes)
        rows += compiler.rows
    if args.reuse:
        # Replaced whole, so an interrupted run leaves the old file.
        with open(args.reuse + ".tmp", "w") as f:
            json.dump(reuse, f)
        os.replace(args.reuse + ".tmp", args.reuse)
    header = f"{'target':7} {'kernel':36} {'case':44} {'w/s':5} {'LDS':>7} {'regs':>5} {'spill':>5} {'scratch':>7} {'/CU':>3}"
    print(header)
    for r in rows:
        print(
            f"{r.target:7} {r.kernel[:36]:36} {r.case[:44]:44} {r.num_warps}/{r.num_stages:<3} "
            f"{r.lds:7} {r.regs:5} {r.spills:5} {r.scratch:7} {r.per_cu:3}"
            + (
                (" NOTE: " if r.upstream else "  FAIL: ") + "; ".join(r.problems)
                if r.problems
                else ""
            )
            + (" NOTE: " + "; ".join(r.notes) if r.notes else "")
        )
    bad = [r for r in rows if r.problems and not r.upstream]
    reused = sum(r.reused for r in rows)
    print(
        f"{len(rows)} kernels checked ({len(rows) - reused} compiled, {reused} reused), {len(bad)} failing"
    )
    print(
        "Not checked: Hygon DCU (gfx928/gfx936/gfx938): upstream Triton's AMD backend "
        "does not know these targets; DCU runs Hygon's own Triton."
    )
    if args.json:
        with open(args.json, "w") as f:
            json.dump([asdict(r) for r in rows], f, indent=1)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
