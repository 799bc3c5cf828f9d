# SPDX-License-Identifier: Apache-2.0
"""Time the steps vLLM's scheduler produced (scheduler_trace.py) through the backends' real forward.

For each recorded step, one full-attention layer of the model (--model;
default Qwen3.5-27B: 24 query heads, 4 KV heads, head 256, bf16) is run
through the backend's own `forward` (TritonAttentionImpl / RocmAttentionImpl
of the tree under test) with metadata made by the tree's own metadata builder
from the step's rows; the time is multiplied by the model's full-attention
layers (16). --model llama-3.1-8b is a standard model: 32 query heads, 8 KV
heads, head 128, 32 layers, pages 64 (TRITON_ATTN) and 16 (ROCM_ATTN). The
scheduler's steps do not depend on the page or the head shape
(scheduler_trace.py checks the pages), so every model and page replays the
same traces. Variants, with the pages v0.34.0 picks for Qwen3.5-27B by
default (its default block size is 64; the hybrid page follows from the GDN
state: 832 on TRITON_ATTN with or without the opt-in, 784 on ROCM_ATTN):

  upstream_rocm    ROCM_ATTN of v0.34.0, page 784: what ROCm users run
                   today (ROCm's default backend), the reference
  upstream_triton  TRITON_ATTN of v0.34.0, page 832: every row to
                   unified_attention
  series_triton    TRITON_ATTN with the series and
                   AttentionConfig.use_triton_paged_prefill=True, page 832:
                   batches with prefill rows send those rows to
                   paged_prefill_aligned, their decode rows to
                   unified_attention; pure-decode batches stay on
                   unified_attention
  series_triton_default (not run unless named in --variants)
                   TRITON_ATTN with the series, opt-in off (the default),
                   page 832: the release's path plus, on sm_90, patch 3's
                   prefill launch for head-256 batches with a 256+ token
                   chunk and at most 32 rows (decode rows included);
                   elsewhere it should time as upstream_triton

The dispatch is the tree's: nothing here decides which kernel serves a row.
Each tree runs in its own subprocess (two vLLM packages cannot share one):
the series tree is --vllm-root (a source tree or an unpacked `./vllm-fork
bundle`); the upstream tree is --upstream-root, or a temporary copy of the
series tree's vllm/ with the release's version of every file the series
modifies laid over it (the bundle's base/vllm/..., or `git show v0.34.0:...`
in a source tree). Files the series adds (the kernel) stay in that copy,
unused.

Row order: v0.34.0's model runner orders every batch single-token rows
first, then the others by query length (sort_batch_req_ids in
vllm/v1/worker/gpu/model_runner.py), whatever the backend; each step's rows
are replayed in that order (the traces hold decodes first, then prefill
chunks in the scheduler's order). The opt-in builder's split
(split_decodes_and_prefills, threshold 1) relies on it.

Attribution: a first, untimed pass over every selected step wraps the kernel
entry points in the backend module's namespace (paged_prefill_aligned,
unified_attention, chunked_prefill_paged_decode, context_attention_fwd,
whichever exist, plus any other vllm.v1.attention.ops function taking a
query) and records which query rows each call served, from where its query
tensor lies in the step's query buffer and its query_start_loc; rows are
decode or prefill by the trace, not by q. ROCM_ATTN serves every row with
chunked_prefill_paged_decode, which gives rows of more than one query token
to context_attention_fwd (skip_decode) and single-token rows to its paged
decode kernel (kernel_paged_attention_2d; ROCm's custom paged_attention_rocm
only for heads 64/128 on pages 16/32): its rows are reported as
chunked_prefill_paged_decode/<that kernel>. The same pass checks outputs:
variants of one backend and page read the same cache, block tables and
queries, so their outputs must agree (a random projection of each row's
output, summed over its tokens, compared; unwritten rows are NaN). Timing
then runs with the originals.

Timing: per step and variant, eager forward calls, each after an L2 flush
(a 512 MiB read) and a GPU spin that lets the host queue the whole forward
before the start event (so launch latency is not counted unless forward
syncs with the host); CUDA events; median of --reps after one warm-up.
The metadata builder's CUDA-graph settings are vLLM's defaults
(FULL_AND_PIECEWISE); pure-decode steps run eagerly here, not in a graph.

Compiles: before the trace, each worker runs what v0.34.0's start-up
sends through attention (gpu/warmup.py's _warmup_kernels: one step of
--warmup-seqs two-token prompts, their decode step; then CUDA-graph capture's
decode batches at every capture size up to --warmup-seqs; on sm_90, the
TRITON_ATTN mixed prefill+decode step a tree's kernel_warmup.py runs, if it
has one), with the builder's own metadata. Every Triton kernel compiled in that warm-up and in
the trace's first pass is recorded (Triton's jit_cache_hook and
jit_post_compile_hook, the hooks vLLM's JIT monitor uses) with its compile
time, in a fresh TRITON_CACHE_DIR per worker: what the trace compiles is
what a server would compile while serving those steps.

Sampling: every step holding a prefill chunk is timed; runs of consecutive
pure-decode steps with the same requests are sampled every --decode-stride
steps (the middle step of each stride, weighted by the steps it stands for);
identical compositions are timed once. Inputs: random KV cache per backend
layout and page (seeded per backend, so the variants of one backend and page
read the same cache), one random block table per request (its closed-loop
slot's blocks, permuted per request), random q/k/v shared by all variants
(same seed, same shapes).

    python3 benchmarks/replay_scheduler.py --vllm-root BUNDLE --out-dir OUT \\
        [--tiers 4K-8K,8K-16K,16K-32K] [--concurrency 10] [--budget 4096] \\
        [--decode-stride 8] [--other-decode-stride 32] [--reps 3]

--smoke runs a synthetic 3-step trace at tiny shapes (4/2 heads, head 128,
fp16: the interpreter computes bf16 dots wrongly; pages 64 on TRITON_ATTN,
48 on ROCM_ATTN) on the CPU under the Triton interpreter, end to end, with
the dispatch and output checks (exit 1 if one fails). On a source tree that
someone may be editing, time a commit (--snapshot HEAD) or a clean copy
holding base/ (the release's versions of the modified files, as a bundle
does):

    TRITON_INTERPRET=1 CUDA_VISIBLE_DEVICES= .fork/venvs/v0.34.0/bin/python \\
        benchmarks/replay_scheduler.py --smoke --vllm-root .fork/v0.34.0 --snapshot HEAD \\
        --out-dir /tmp/smoke
"""

from __future__ import annotations

import argparse
import bisect
import collections
import glob
import gzip
import inspect
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import common  # noqa: E402

# Full-attention layers, one layer's shape and each backend's page.
MODELS = {
    "qwen3.5-27b": {
        "layers": 16, "shape": {"hq": 24, "hk": 4, "hs": 256, "dtype": "bfloat16"},
        "pages": {"triton": 832, "rocm": 784}, "title": "Qwen3.5-27B",
    },
    "llama-3.1-8b": {
        "layers": 32, "shape": {"hq": 32, "hk": 8, "hs": 128, "dtype": "bfloat16"},
        "pages": {"triton": 64, "rocm": 16}, "title": "Llama-3.1-8B",
    },
}  # fmt: skip
SMOKE_SHAPE = {"hq": 4, "hk": 2, "hs": 128, "dtype": "float16"}
SMOKE_PAGES = {"triton": 64, "rocm": 48}
# variant -> (tree, backend, AttentionConfig.use_triton_paged_prefill)
VARIANTS = {
    "upstream_rocm": ("upstream", "rocm", False),
    "upstream_triton": ("upstream", "triton", False),
    "series_triton": ("series", "triton", True),
    "series_triton_default": ("series", "triton", False),
}
DEFAULT_VARIANTS = ("upstream_rocm", "upstream_triton", "series_triton")
# The series variant over the path it replaces, and against ROCm's default.
RATIOS = {
    "series_triton_over_upstream_triton": ("series_triton", "upstream_triton"),
    "series_triton_over_upstream_rocm": ("series_triton", "upstream_rocm"),
    "upstream_triton_over_upstream_rocm": ("upstream_triton", "upstream_rocm"),
    "series_triton_default_over_upstream_triton": ("series_triton_default", "upstream_triton"),
}
REPLACES = {"series_triton": "upstream_triton", "series_triton_default": "upstream_triton"}
# backend -> (module under vllm.v1.attention.backends, impl, metadata builder)
BACKEND_CLASSES = {
    "triton": ("triton_attn", "TritonAttentionImpl", "TritonAttentionMetadataBuilder"),
    "rocm": ("rocm_attn", "RocmAttentionImpl", "RocmAttentionMetadataBuilder"),
}
KERNELS = (
    "paged_prefill_aligned", "unified_attention", "chunked_prefill_paged_decode", "context_attention_fwd",
)  # fmt: skip
# Entry points that serve their rows with one kernel or another by query
# length: (rows of more than one token, single-token rows).
SPLIT_BY_QUERY_LEN = {"chunked_prefill_paged_decode": ("context_attention_fwd", "kernel_paged_attention_2d")}
PAGED_PREFILL = "paged_prefill_aligned"
PAGED_PREFILL_ALIGNMENT = 64
# Output agreement between variants of one backend and page: relative error
# of the rows' output projections, at most a few output roundings (bf16 on a
# GPU, fp16 in the smoke run, where the two TRITON_ATTN paths agree to ~6e-5
# and a softmax scale off by 5% shows as 2.5e-2).
OUTPUT_TOLERANCE = {"bfloat16": 1e-2, "float16": 2e-3, "float32": 1e-4}
DIGEST_DIMS = 4
TRACE_DIR = os.path.join(HERE, "scheduler_traces")
UPSTREAM_TAG = "v0.34.0"
# Rough rates per variant for the time estimate printed before a run (TFLOP/s
# for prefill, fraction of ~4.3 TB/s for decode reads; from earlier H100/H200
# runs of benchmarks/results/{prefill,replay_scheduler}, see git history).
EST = {
    "upstream_rocm": (50, 0.04), "upstream_triton": (60, 0.7),
    "series_triton": (300, 0.7), "series_triton_default": (60, 0.7),
}  # fmt: skip


def tree_of(variant: str) -> str:
    return VARIANTS[variant][0]


def backend_of(variant: str) -> str:
    return VARIANTS[variant][1]


def page_of(variant: str, pages: dict) -> int:
    return pages[backend_of(variant)]


def job_key(variant: str, pages: dict) -> tuple:
    """Variants sharing a tree, page and opt-in setting run in one worker."""
    return tree_of(variant), page_of(variant, pages), VARIANTS[variant][2]


def runner_order(rows: list) -> list:
    """A step's rows as v0.34.0's model runner orders them (sort_batch_req_ids,
    no speculative decoding): single-token rows first, then by query length,
    ties in the scheduler's order."""
    return sorted(rows, key=lambda r: (r[1] != 1, r[1]))


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--vllm-root", help="the series tree: source tree or unpacked bundle holding vllm/")
    p.add_argument("--upstream-root", help="a tree holding v0.34.0's vllm/ (default: built from --vllm-root)")
    p.add_argument(
        "--snapshot", metavar="REF",
        help="--vllm-root is a git tree: time its commit REF (git archive, with base/ as a bundle has it), "
        "not its working tree (which someone may be editing)",
    )  # fmt: skip
    p.add_argument("--model", choices=sorted(MODELS), default="qwen3.5-27b")
    p.add_argument("--page", type=int, help="the KV page of every backend (default: the model's)")
    p.add_argument("--out-dir", default="benchmarks/results/replay_scheduler")
    p.add_argument("--trace-dir", default=TRACE_DIR)
    p.add_argument("--tiers", default="4K-8K,8K-16K,16K-32K")
    p.add_argument("--concurrency", default="10")
    p.add_argument("--budget", default="4096", help="max_num_batched_tokens of the traces (comma list)")
    p.add_argument("--focus-concurrency", type=int, default=10, help="sampled at --decode-stride")
    p.add_argument("--decode-stride", type=int, default=8)
    p.add_argument("--other-decode-stride", type=int, default=32, help="for other concurrencies")
    p.add_argument(
        "--steps", choices=("all", "mixed"), default="all",
        help="mixed: time only the steps holding decode and prefill rows (totals then cover those steps)",
    )  # fmt: skip
    p.add_argument("--variants", default=",".join(DEFAULT_VARIANTS), help=f"of {', '.join(VARIANTS)}")
    p.add_argument("--reps", type=int, default=3)
    p.add_argument(
        "--warmup-seqs", type=int, default=256,
        help="requests in the emulated start-up warm-up (vLLM's max_num_seqs; the smoke run uses 2)",
    )  # fmt: skip
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--estimate-only", action="store_true")
    p.add_argument("--smoke", action="store_true", help="tiny synthetic trace on the CPU (TRITON_INTERPRET=1)")
    p.add_argument("--worker", help=argparse.SUPPRESS)
    return p.parse_args(argv)


# ----------------------------------------------------------------- the plan
def load_trace(path: str) -> dict:
    with gzip.open(path, "rt") as f:
        return json.load(f)


def select_steps(steps: list, stride: int) -> list[tuple[int, int]]:
    """(step index, weight): every step with a prefill row; pure-decode runs
    (same requests, consecutive) sampled at the middle of every `stride` steps."""
    out = []
    i, n = 0, len(steps)
    while i < n:
        rows = steps[i]
        if not all(r[3] for r in rows):
            out.append((i, 1))
            i += 1
            continue
        j = i
        key = [r[0] for r in rows]
        while j < n and all(r[3] for r in steps[j]) and [r[0] for r in steps[j]] == key:
            j += 1
        for s in range(i, j, stride):
            w = min(stride, j - s)
            out.append((s + w // 2, w))
        i = j
    return out


def composition_key(rows: list) -> str:
    return ";".join(f"{q},{c},{d}" for _, q, c, d in runner_order(rows))


def build_plan(args, traces: dict[str, dict]) -> dict:
    """Unique compositions to time (rows in the model runner's order), per
    trace, and each selected step's weight."""
    shape = SMOKE_SHAPE if args.smoke else MODELS[args.model]["shape"]
    plan = {"traces": {}, "shape": shape, "seed": args.seed, "reps": args.reps, "warmup_seqs": args.warmup_seqs}
    for name, tr in traces.items():
        stride = args.decode_stride if tr["concurrency"] == args.focus_concurrency else args.other_decode_stride
        sel = select_steps(tr["steps"], stride)
        if args.steps == "mixed":
            sel = [(i, w) for i, w in sel if len({r[3] for r in tr["steps"][i]}) == 2]
        unique: dict[str, int] = {}
        selected = []
        for idx, w in sel:
            k = composition_key(tr["steps"][idx])
            unique.setdefault(k, idx)
            selected.append({"step": idx, "weight": w, "key": k})
        plan["traces"][name] = {
            "concurrency": tr["concurrency"],
            "requests": [{"id": r["id"], "slot": r["slot"], "prompt": r["prompt"]} for r in tr["requests"]],
            "max_context": max(c + q for rows in tr["steps"] for _, q, c, _ in rows),
            "timed": {k: runner_order(tr["steps"][i]) for k, i in unique.items()},
            "selected": selected,
            "stride": stride,
        }
    return plan


def estimate_s(plan: dict, variants: list[str], pages: dict) -> float:
    """Rough GPU seconds: kernel time from the rates in EST, x (warm-up + reps
    + attribution pass), plus flush and spin per call, plus start-up per tree."""
    sh = plan["shape"]
    calls = plan["reps"] + 2
    total = 0.0
    for tp in plan["traces"].values():
        for rows in tp["timed"].values():
            flops = sum(4 * sh["hq"] * sh["hs"] * (q * c + q * (q + 1) / 2) for _, q, c, d in rows if not d)
            reads = sum(2 * sh["hk"] * sh["hs"] * 2 * (c + 1) for _, q, c, d in rows if d)
            for v in variants:
                tflops, bw = EST[v]
                total += calls * (flops / (tflops * 1e12) + reads / (bw * 4.3e12) + 2.5e-3)
    return total + 90 * len({job_key(v, pages) for v in variants})


# --------------------------------------------------------------- the trees
def git_modified_vllm_files(root: str) -> list[str]:
    out = subprocess.run(
        ["git", "-C", root, "diff", "--name-only", "--diff-filter=M", UPSTREAM_TAG, "--", "vllm/"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    return out.split()


def make_upstream_tree(series_root: str) -> tuple[str, list[str]]:
    """A temp copy of series_root's vllm/ with the release's version of every
    modified file laid over it. Returns (root, overlaid files)."""
    dst = tempfile.mkdtemp(prefix="vllm_upstream_")
    ignore = shutil.ignore_patterns("__pycache__", "*.so", "*.pyc")
    shutil.copytree(os.path.join(series_root, "vllm"), os.path.join(dst, "vllm"), ignore=ignore)
    if os.path.isdir(egg := os.path.join(series_root, "vllm.egg-info")):
        shutil.copytree(egg, os.path.join(dst, "vllm.egg-info"))
    base = os.path.join(series_root, "base")
    overlaid = []
    if os.path.isdir(os.path.join(base, "vllm")):
        for d, _, files in os.walk(os.path.join(base, "vllm")):
            for f in files:
                rel = os.path.relpath(os.path.join(d, f), base)
                shutil.copyfile(os.path.join(base, rel), os.path.join(dst, rel))
                overlaid.append(rel)
    else:
        if not os.path.exists(os.path.join(series_root, ".git")):
            raise SystemExit(
                f"{series_root} has no base/vllm/ (a bundle's) and is no git tree: pass --upstream-root, "
                "or put the release's version of each modified vllm/ file under base/vllm/"
            )
        for rel in git_modified_vllm_files(series_root):
            text = subprocess.run(
                ["git", "-C", series_root, "show", f"{UPSTREAM_TAG}:{rel}"], capture_output=True, check=True
            ).stdout
            with open(os.path.join(dst, rel), "wb") as f:
                f.write(text)
            overlaid.append(rel)
    if not overlaid:
        raise SystemExit(f"no base/vllm/ in {series_root} and no files modified since {UPSTREAM_TAG}")
    return dst, sorted(overlaid)


def snapshot_tree(root: str, ref: str) -> str:
    """A bundle-like copy of a git tree's commit: vllm/ and vllm.egg-info at
    `ref`, base/vllm/... holding the release's version of each file `ref`
    modifies."""
    dst = tempfile.mkdtemp(prefix="vllm_series_")
    archive = subprocess.run(["git", "-C", root, "archive", ref, "vllm"], capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", dst], input=archive, check=True)
    if os.path.isdir(egg := os.path.join(root, "vllm.egg-info")):
        shutil.copytree(egg, os.path.join(dst, "vllm.egg-info"))
    names = subprocess.run(
        ["git", "-C", root, "diff", "--name-only", "--diff-filter=M", UPSTREAM_TAG, ref, "--", "vllm/"],
        capture_output=True, text=True, check=True,
    ).stdout.split()  # fmt: skip
    for rel in names:
        path = os.path.join(dst, "base", rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(subprocess.run(["git", "-C", root, "show", f"{UPSTREAM_TAG}:{rel}"], capture_output=True, check=True).stdout)
    return dst



# ------------------------------------------------------------------ worker
class Compiles:
    """Triton kernels compiled in this process while active, with their
    compile times (the runtime hooks vLLM's JIT monitor uses; the
    interpreter compiles nothing)."""

    def __init__(self) -> None:
        self.events: list[dict] = []
        self._start = 0.0

    def __enter__(self) -> "Compiles":
        from triton import knobs

        self._saved = knobs.runtime.jit_cache_hook, knobs.runtime.jit_post_compile_hook
        knobs.runtime.jit_cache_hook, knobs.runtime.jit_post_compile_hook = self._before, self._after
        return self

    def __exit__(self, *exc) -> None:
        from triton import knobs

        knobs.runtime.jit_cache_hook, knobs.runtime.jit_post_compile_hook = self._saved

    def _before(self, **kw) -> bool:
        self._start = time.perf_counter()
        return False  # compile as usual

    def _after(self, **kw) -> None:
        fn, compile = kw.get("fn"), kw.get("compile") or {}
        params = [p.name for p in getattr(getattr(fn, "jit_function", None), "params", [])]
        consts = {
            params[k[0]]: v for k, v in compile.get("constants", {}).items()
            if isinstance(k, tuple) and len(k) == 1 and k[0] < len(params) and isinstance(v, int)
        }  # fmt: skip
        self.events.append({
            "kernel": getattr(fn, "name", str(fn)), "compile_s": round(time.perf_counter() - self._start, 3),
            "num_warps": compile.get("num_warps"), "num_stages": compile.get("num_stages"),
            **{k: consts[k] for k in ("BLOCK_M", "TILE_SIZE") if k in consts},
        })  # fmt: skip


def warmup_steps(num_seqs: int, capture_sizes: list[int], mixed_tokens: int = 0) -> list[list]:
    """The steps v0.34.0's start-up sends through attention, as trace rows
    [request, query tokens, context, is_decode]: _warmup_kernels' step of
    `num_seqs` two-token prompts and their decode step, then CUDA-graph
    capture's uniform decode batches (FULL_AND_PIECEWISE) at each capture
    size up to `num_seqs`; with `mixed_tokens`, the steps of
    run_mixed_prefill_decode_warmup(num_tokens=mixed_tokens): a two-token
    prompt alone, then its decode row beside a prompt of the other tokens."""
    steps = [[[i, 2, 0, 0] for i in range(num_seqs)], [[i, 1, 2, 1] for i in range(num_seqs)]]
    steps += [[[i, 1, 2, 1] for i in range(n)] for n in capture_sizes if n <= num_seqs]
    if mixed_tokens:
        steps += [[[0, 2, 0, 0]], [[0, 1, 2, 1], [1, mixed_tokens - 1, 0, 0]]]
    return steps


def triton_attn_mixed_warmup_tokens(tree: str) -> int:
    """The token count of the tree's TRITON_ATTN mixed warm-up step, or 0
    where it has none: patch 5's `_warmup_triton_attn_prefill` in
    kernel_warmup.py (sm_90) runs one decode row beside a chunk,
    2 * SM90_PREFILL_MIN_QUERY_LEN tokens in all."""
    def source(*parts: str) -> str:
        with open(os.path.join(tree, "vllm", *parts)) as f:
            return f.read()

    if "def _warmup_triton_attn_prefill(" not in source("model_executor", "warmup", "kernel_warmup.py"):
        return 0
    m = re.search(r"^SM90_PREFILL_MIN_QUERY_LEN = (\d+)$", source("v1", "attention", "ops", "triton_unified_attention.py"), re.M)
    return 2 * int(m.group(1))


class Attribution:
    """Wraps the backend module's kernel entry points; records rows served."""

    def __init__(self, module) -> None:
        self.module = module
        self.names = [n for n in KERNELS if callable(getattr(module, n, None))]
        for n, obj in vars(module).items():
            mod = getattr(obj, "__module__", "") or ""
            if n in self.names or not inspect.isfunction(obj) or not mod.startswith("vllm.v1.attention.ops"):
                continue
            try:
                params = list(inspect.signature(obj).parameters)
            except (TypeError, ValueError):
                continue
            if params and params[0] in ("q", "query") and not n.startswith(("build_", "supports_")):
                self.names.append(n)
        self.originals = {n: getattr(module, n) for n in self.names}
        self.calls: list[tuple[str, int, int]] = []
        self.base_ptr = 0
        self.row_bytes = 1

    def install(self) -> None:
        for n, fn in self.originals.items():
            setattr(self.module, n, self._wrap(n, fn))

    def remove(self) -> None:
        for n, fn in self.originals.items():
            setattr(self.module, n, fn)

    def _wrap(self, name, fn):
        sig = inspect.signature(fn)

        def wrapper(*a, **k):
            try:
                bound = sig.bind_partial(*a, **k).arguments
            except TypeError:
                bound = {}
            q = bound.get("query", bound.get("q"))
            if q is None or not hasattr(q, "data_ptr"):
                self.calls.append((name, -1, 0))
            else:
                start = (q.data_ptr() - self.base_ptr) // self.row_bytes
                n = q.shape[0]
                # A kernel given query_start_loc serves rows [qsl[0], qsl[-1])
                # of its query (a varlen call may get the whole batch's query).
                qsl = bound.get("query_start_loc", bound.get("cu_seqlens_q"))
                if qsl is not None and hasattr(qsl, "numel") and qsl.numel() > 0:
                    lo, hi = int(qsl[0]), int(qsl[-1])
                    start, n = start + lo, hi - lo
                self.calls.append((name, start, n))
            return fn(*a, **k)

        return wrapper

    def served(self, rows: list) -> tuple[dict, list[str]]:
        """{kernel: [decode tokens, prefill tokens]} for the calls since the
        last reset, mapped onto the step's rows (in the order they were
        given to the builder); and problems (tokens served twice or not at
        all, calls that cannot be placed)."""
        ends = []
        t = 0
        for _, q, _, _ in rows:
            t += q
            ends.append(t)
        total = t
        cover = [0] * len(rows)
        out: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0])
        problems = []
        for name, start, n in self.calls:
            if start < 0 or start + n > total:
                problems.append(f"{name}: query rows [{start}, {start + n}) outside the step's {total}")
                continue
            i = bisect.bisect_right(ends, start)
            pos = start
            while pos < start + n and i < len(rows):
                row_start = ends[i] - rows[i][1]
                take = min(ends[i], start + n) - max(row_start, pos)
                kernel = name
                if name in SPLIT_BY_QUERY_LEN:
                    multi, single = SPLIT_BY_QUERY_LEN[name]
                    kernel = f"{name}/{multi if rows[i][1] > 1 else single}"
                out[kernel][0 if rows[i][3] else 1] += take
                cover[i] += take
                pos = ends[i]
                i += 1
        for i, (_, q, _, _) in enumerate(rows):
            if cover[i] != q:
                problems.append(f"row {i} (q={q}) served {cover[i]} tokens")
        self.calls.clear()
        return dict(out), problems


# vLLM's default CUDA-graph capture sizes (max_num_seqs 256 and above).
CAPTURE_SIZES = [1, 2, 4] + list(range(8, 257, 8)) + list(range(272, 513, 16))


def worker(args) -> int:
    with open(args.worker) as f:
        job = json.load(f)
    tree, variants, plan = job["tree_root"], job["variants"], job["plan"]
    opt_in = job["use_triton_paged_prefill"]
    sys.path.insert(0, os.path.abspath(tree))
    import importlib

    import torch

    import vllm

    if not os.path.abspath(vllm.__file__).startswith(os.path.abspath(tree)):
        raise SystemExit(f"imported vllm from {vllm.__file__}, not {tree}")
    common.stub_rocm_platform_module()
    backends = sorted({backend_of(v) for v in variants})

    def import_backends() -> None:
        import vllm.config  # noqa: F401
        import vllm.v1.attention.backend  # noqa: F401
        import vllm.v1.kv_cache_interface  # noqa: F401

        for b in backends:
            importlib.import_module(f"vllm.v1.attention.backends.{BACKEND_CLASSES[b][0]}")

    stood_in = common.import_with_stand_ins(import_backends)
    if stood_in:
        print(f"stand-ins for packages this machine lacks: {stood_in}", flush=True)
    from vllm.config import CUDAGraphMode
    from vllm.v1.attention.backend import CommonAttentionMetadata
    from vllm.v1.kv_cache_interface import FullAttentionSpec

    modules = {b: importlib.import_module(f"vllm.v1.attention.backends.{BACKEND_CLASSES[b][0]}") for b in backends}

    on_gpu = torch.cuda.is_available()
    dev = torch.device("cuda" if on_gpu else "cpu")
    sh = plan["shape"]
    hq, hk, hs = sh["hq"], sh["hk"], sh["hs"]
    dtype = getattr(torch, sh["dtype"])
    page = job["page"]

    class Layer(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            one = torch.ones((), dtype=torch.float32, device=dev)
            self._q_scale = self._k_scale = self._v_scale = one
            self._q_scale_float = self._k_scale_float = self._v_scale_float = 1.0

    def ns(**kw):
        import types

        return types.SimpleNamespace(**kw)

    def builder_config(max_num_seqs: int):
        """What the two builders' __init__ read of a VllmConfig, with vLLM's
        serving defaults (no model download here; see the module docstring)."""
        model = ns(
            get_num_attention_heads=lambda pc=None: hq, get_num_kv_heads=lambda pc=None: hk,
            get_head_size=lambda: hs, rswa_window=None, dtype=dtype,
        )  # fmt: skip
        comp = ns(
            cudagraph_mode=CUDAGraphMode.FULL_AND_PIECEWISE,
            cudagraph_capture_sizes=CAPTURE_SIZES,
            static_forward_context={},
        )
        return ns(
            model_config=model, parallel_config=ns(decode_context_parallel_size=1),
            compilation_config=comp,
            scheduler_config=ns(max_num_seqs=max_num_seqs), speculative_config=None,
            cache_config=ns(cache_dtype="auto"),
            # --attention-config.use_triton_paged_prefill (the release's
            # builders do not read it).
            attention_config=ns(use_triton_paged_prefill=opt_in),
        )  # fmt: skip

    spec = FullAttentionSpec(block_size=page, num_kv_heads=hk, head_size=hs, dtype=dtype)
    builders = {
        b: getattr(modules[b], BACKEND_CLASSES[b][2])(spec, ["model.layers.3.self_attn.attn"], builder_config(256), dev)
        for b in backends
    }
    dispatch = None
    if "triton" in builders:
        dispatch = getattr(builders["triton"], "paged_prefill", None)
        if opt_in and dispatch is None:
            raise SystemExit(f"{tree}'s TRITON_ATTN has no use_triton_paged_prefill (not the series' tree?)")
        if opt_in and not dispatch:
            common.log(f"TRITON_ATTN declines the opt-in at page {page}, head {hs}: every row stays on "
                       "unified_attention")
    impls = {b: getattr(modules[b], BACKEND_CLASSES[b][1])(hq, hs, hs**-0.5, hk, None, None, "auto") for b in builders}
    layer = Layer()
    flush = torch.empty(128 << 20, dtype=torch.float32, device=dev) if on_gpu else None
    flush_out = torch.empty((), dtype=torch.float32, device=dev)
    # Output digest: each row's output projected on DIGEST_DIMS fixed random
    # directions, summed over its tokens.
    proj = torch.randn((hq * hs, DIGEST_DIMS), generator=torch.Generator().manual_seed(plan["seed"] + 3)).to(dev)
    results: dict = {"variants": variants, "tree": tree, "page": page, "paged_prefill": dispatch, "traces": {},
                     "compiles": {v: {"warmup": [], "trace": []} for v in variants}}  # fmt: skip
    # The TRITON_ATTN mixed step runs on CUDA sm_90 only (kernel_warmup.py's gate).
    sm90 = on_gpu and torch.cuda.get_device_capability()[0] == 9 and "triton" in builders
    mixed = triton_attn_mixed_warmup_tokens(tree) if sm90 else 0
    warm = warmup_steps(plan["warmup_seqs"] if on_gpu else min(plan["warmup_seqs"], 2), CAPTURE_SIZES, mixed)
    results["warmup_mixed_tokens"] = mixed
    for tname, tp in plan["traces"].items():
        common.log(f"{'/'.join(variants)}: {tname}: {len(tp['timed'])} compositions")
        conc = tp["concurrency"]
        pages_per_req = math.ceil(tp["max_context"] / page)
        nblocks = conc * pages_per_req
        caches = {}
        for b in builders:
            # Seeded per backend: variants of one backend and page, in any
            # worker, read the same cache.
            gen = torch.Generator(device=dev).manual_seed(plan["seed"] + (0 if b == "triton" else 7))
            if b == "rocm":
                raw = torch.randn((2, nblocks, page, hk * hs), dtype=dtype, device=dev, generator=gen)
                caches[b] = raw.transpose(0, 1)  # the bound logical [B, 2, N, H*hs]
            else:
                raw = torch.randn((nblocks, page, hk, 2 * hs), dtype=dtype, device=dev, generator=gen)
                caches[b] = raw.transpose(1, 2)  # the bound logical [B, H, N, 2*hs]
        cpu_gen = torch.Generator().manual_seed(plan["seed"] + 1)
        pool = torch.randperm(nblocks, generator=cpu_gen).view(conc, pages_per_req)
        tables = {
            r["id"]: pool[r["slot"]][torch.randperm(pages_per_req, generator=cpu_gen)].to(torch.int32)
            for r in tp["requests"]
        }
        max_tokens = max(sum(r[1] for r in rows) for rows in [*tp["timed"].values(), *warm])
        qgen = torch.Generator(device=dev).manual_seed(plan["seed"] + 2)
        q_all = torch.randn((max_tokens, hq, hs), dtype=dtype, device=dev, generator=qgen)
        k_all = torch.randn((max_tokens, hk, hs), dtype=dtype, device=dev, generator=qgen)
        v_all = torch.randn((max_tokens, hk, hs), dtype=dtype, device=dev, generator=qgen)
        out_all = torch.empty_like(q_all)
        # Warm-up rows read the first request's blocks.
        warm_table = tables[tp["requests"][0]["id"]]

        def make_calls(rows, table_of=lambda rid: tables[rid]):
            ntok = sum(r[1] for r in rows)
            qlens = [r[1] for r in rows]
            seqs = [r[1] + r[2] for r in rows]
            qsl = torch.tensor([0] + list(_cumsum(qlens)), dtype=torch.int32)
            bt = torch.stack([table_of(r[0]) for r in rows]).to(dev)
            cm = CommonAttentionMetadata(
                query_start_loc=qsl.to(dev), query_start_loc_cpu=qsl,
                seq_lens=torch.tensor(seqs, dtype=torch.int32, device=dev),
                num_reqs=len(rows), num_actual_tokens=ntok, max_query_len=max(qlens),
                max_seq_len=max(seqs), block_table_tensor=bt,
                slot_mapping=torch.full((ntok,), -1, dtype=torch.int64, device=dev),
                causal=True, is_prefilling=torch.tensor([not r[3] for r in rows]),
                seq_lens_cpu_upper_bound=torch.tensor(seqs, dtype=torch.int32),
            )  # fmt: skip
            calls = {}
            for v in variants:
                b = backend_of(v)
                md = builders[b].build(0, cm)
                q, k_, v_, o = q_all[:ntok], k_all[:ntok], v_all[:ntok], out_all[:ntok]

                def call(b=b, md=md, q=q, k_=k_, v_=v_, o=o, cache=caches[b]):
                    impls[b].forward(layer, q, k_, v_, cache, md, o)

                calls[v] = call
            return calls, ntok, qsl

        if warm:  # the first trace only: compiles are per process
            for v in variants:
                with Compiles() as c:
                    for rows in warm:
                        make_calls(rows, lambda rid: warm_table)[0][v]()
                results["compiles"][v]["warmup"] = c.events
            warm = []
        per_key: dict = {}
        for key, rows in tp["timed"].items():
            calls, ntok, qsl = make_calls(rows)
            rec = {"attribution": {}, "problems": {}, "digest": {}, "us": {}}
            # Untimed attribution and output pass (also the first call: compiles).
            for v in variants:
                att = Attribution(modules[backend_of(v)])
                att.base_ptr, att.row_bytes = q_all.data_ptr(), q_all.stride(0) * q_all.element_size()
                out_all[:ntok].fill_(float("nan"))
                att.install()
                try:
                    with Compiles() as c:
                        calls[v]()
                finally:
                    att.remove()
                results["compiles"][v]["trace"] += [{"trace": tname, "step_key": key, **e} for e in c.events]
                rec["attribution"][v], probs = att.served(rows)
                if probs:
                    rec["problems"][v] = probs
                proj_rows = out_all[:ntok].float().reshape(ntok, -1) @ proj
                rec["digest"][v] = {
                    str(r[0]): proj_rows[int(qsl[i]) : int(qsl[i + 1])].sum(0).tolist() for i, r in enumerate(rows)
                }
            samples = {v: [] for v in variants}
            for rep in range(plan["reps"] + 1):
                order = variants if rep % 2 == 0 else list(reversed(variants))
                for v in order:
                    t = _time_call(calls[v], flush, flush_out, on_gpu)
                    if rep:
                        samples[v].append(t)
            rec["us"] = {v: statistics.median(s) for v, s in samples.items()}
            per_key[key] = rec
        results["traces"][tname] = per_key
        caches = q_all = k_all = v_all = out_all = None  # free them before the next trace
        if on_gpu:
            torch.cuda.empty_cache()
    with open(job["out"], "w") as f:
        json.dump(results, f)
    return 0


def _cumsum(xs):
    t = 0
    for x in xs:
        t += x
        yield t


def _time_call(fn, flush, flush_out, on_gpu: bool) -> float:
    """Microseconds of one eager call: L2 flushed, host queued ahead (GPU spin)."""
    import torch

    if not on_gpu:
        t = time.perf_counter()
        fn()
        return (time.perf_counter() - t) * 1e6
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    torch.sum(flush, 0, out=flush_out)
    torch.cuda._sleep(2_000_000)  # ~1-1.4 ms: the host queues the forward meanwhile
    start.record()
    fn()
    end.record()
    end.synchronize()
    return start.elapsed_time(end) * 1e3


# ------------------------------------------------------------------ parent
def smoke_trace() -> dict:
    """Three steps at tiny shapes: a chunk listed before two decodes (the
    replay puts the decodes first, as the model runner does), two chunks
    without decodes, pure decode."""
    return {
        "tier": "smoke", "concurrency": 4, "max_num_batched_tokens": 40, "page": 0,
        "requests": [
            {"id": 0, "prompt": 70, "slot": 0}, {"id": 1, "prompt": 100, "slot": 1},
            {"id": 2, "prompt": 72, "slot": 2}, {"id": 3, "prompt": 12, "slot": 3},
        ],
        "steps": [
            [[2, 8, 40, 0], [0, 1, 70, 1], [1, 1, 100, 1]],
            [[2, 24, 48, 0], [3, 12, 0, 0]],
            [[0, 1, 71, 1], [1, 1, 101, 1], [2, 1, 72, 1], [3, 1, 12, 1]],
        ],
        "command": "synthetic (--smoke)",
    }  # fmt: skip


def digest_error(a: dict, b: dict) -> float:
    """Relative error of one composition's output digests ({row: vector})."""
    num = den = 0.0
    for rid, vb in b.items():
        va = a.get(rid)
        if va is None:
            return math.inf
        for x, y in zip(va, vb):
            num += (x - y) ** 2
            den += y * y
    if math.isnan(num) or math.isnan(den):
        return math.inf
    return math.sqrt(num / den) if den else (0.0 if num == 0 else math.inf)


def agreeing_pairs(variants: list[str], pages: dict) -> list[tuple[str, str]]:
    """Variants of one backend and page: the same inputs, so the same outputs."""
    return [
        (a, b) for i, a in enumerate(variants) for b in variants[i + 1 :]
        if backend_of(a) == backend_of(b) and page_of(a, pages) == page_of(b, pages)
    ]  # fmt: skip


def summarize(plan: dict, traces: dict, merged: dict, variants: list[str], layers: int, pages: dict) -> dict:
    out = {}
    pairs = agreeing_pairs(variants, pages)
    for name, tp in plan["traces"].items():
        tr = traces[name]
        nreq = len(tr["requests"])
        tot = {v: 0.0 for v in variants}
        pre_steps = {v: 0.0 for v in variants}
        per_req = {v: collections.Counter() for v in variants}
        att = {v: collections.defaultdict(lambda: [0.0, 0.0]) for v in variants}
        problems = collections.Counter()
        decode_tok = prefill_tok = multi_prefill_tok = 0.0
        for s in tp["selected"]:
            rows = tr["steps"][s["step"]]
            rec = merged[name][s["key"]]
            w = s["weight"]
            work = [(q * c + q * (q + 1) / 2) for _, q, c, _ in rows]
            wsum = sum(work)
            decode_tok += w * sum(q for _, q, _, d in rows if d)
            prefill_tok += w * sum(q for _, q, _, d in rows if not d)
            multi_prefill_tok += w * sum(q for _, q, _, d in rows if not d and q > 1)
            for v in variants:
                t = layers * rec["us"][v] * w
                tot[v] += t
                if not all(r[3] for r in rows):
                    pre_steps[v] += t
                for (rid, *_), wk in zip(rows, work):
                    per_req[v][rid] += t * wk / wsum
                for k, (d, p) in rec["attribution"][v].items():
                    att[v][k][0] += w * d
                    att[v][k][1] += w * p
                for p in rec["problems"].get(v, []):
                    problems[f"{v}: {p.split(' (')[0].split(':')[0]}"] += 1
        agreement = {
            f"{a}_vs_{b}": max(
                (digest_error(merged[name][k]["digest"][a], merged[name][k]["digest"][b]) for k in tp["timed"]),
                default=0.0,
            )
            for a, b in pairs
        }
        res = {
            "tier": tr["tier"], "concurrency": tr["concurrency"], "budget": tr["max_num_batched_tokens"],
            "requests": nreq, "steps": len(tr["steps"]), "timed_compositions": len(tp["timed"]),
            "selected_steps": len(tp["selected"]), "decode_stride": tp["stride"],
            "attention_ms_per_request": {v: tot[v] / nreq / 1e3 for v in variants},
            "attention_ms_total": {v: tot[v] / 1e3 for v in variants},
            "ms_in_steps_with_prefill": {v: pre_steps[v] / 1e3 for v in variants},
            "ms_in_pure_decode_steps": {v: (tot[v] - pre_steps[v]) / 1e3 for v in variants},
            "per_request_ms": {
                v: {str(r["id"]): per_req[v][r["id"]] / 1e3 for r in tr["requests"]} for v in variants
            },
            "per_request_note": "each step's time split over its rows by causal (query, key) pairs",
            "kernel_share": {
                v: {
                    k: {
                        "decode_tokens_fraction": d / decode_tok if decode_tok else 0.0,
                        "prefill_tokens_fraction": p / prefill_tok if prefill_tok else 0.0,
                    }
                    for k, (d, p) in sorted(att[v].items())
                }
                for v in variants
            },
            "paged_prefill_tokens": {v: att[v][PAGED_PREFILL][1] if PAGED_PREFILL in att[v] else 0.0 for v in variants},
            "paged_prefill_decode_tokens": {
                v: att[v][PAGED_PREFILL][0] if PAGED_PREFILL in att[v] else 0.0 for v in variants
            },
            "prefill_tokens": prefill_tok,
            "prefill_tokens_in_multi_token_rows": multi_prefill_tok,
            "decode_tokens": decode_tok,
            "output_max_relative_error": agreement,
            "attribution_problems": dict(problems),
        }
        res["ratios"] = {
            r: tot[a] / tot[b] for r, (a, b) in RATIOS.items() if a in variants and b in variants and tot[b]
        }
        out[name] = res
    return out


def checks(summary: dict, variants: list[str], pages: dict, tol: float, timed: bool) -> tuple[list[str], bool]:
    """Lines on what was measured, and whether a correctness check failed:
    the opt-in's dispatch (paged_prefill_aligned serves exactly the prefill
    rows of more than one token, no decode row), output agreement, the
    attribution; with `timed`, a series variant slower than the path it
    replaces (reported, not a failure)."""
    lines, failed = [], False

    def add(ok: bool, text: str) -> None:
        nonlocal failed
        failed |= not ok
        lines.append(f"{text}: {'PASS' if ok else 'FAIL'}")

    for name, s in summary.items():
        for v in variants:
            if not VARIANTS[v][2]:
                continue
            if page_of(v, pages) % PAGED_PREFILL_ALIGNMENT:
                lines.append(f"{name}: {v}: page {page_of(v, pages)} is no multiple of "
                             f"{PAGED_PREFILL_ALIGNMENT}: the opt-in does not apply")
                continue
            got, want = s["paged_prefill_tokens"][v], s["prefill_tokens_in_multi_token_rows"]
            add(got == want and not s["paged_prefill_decode_tokens"][v],
                f"{name}: {v}: {PAGED_PREFILL} served {got:.0f} of {want:.0f} prefill tokens in rows of "
                f"more than one token, {s['paged_prefill_decode_tokens'][v]:.0f} decode tokens")
        for pair, err in s["output_max_relative_error"].items():
            add(err <= tol, f"{name}: outputs {pair.replace('_vs_', ' vs ')}: max relative error "
                f"{err:.2e} (<= {tol:.0e})")
        if s["attribution_problems"]:
            add(False, f"{name}: attribution problems {s['attribution_problems']}")
        if timed:
            for series, up in REPLACES.items():
                key = f"{series}_over_{up}"
                if key in s["ratios"] and s["ratios"][key] > 1.0:
                    lines.append(f"{name}: {key} {s['ratios'][key]:.3f} > 1: slower than the path it replaces")
    return lines, failed


def plot(summary: dict, variants: list[str], path: str, title: str, layers: int) -> None:
    try:
        import matplotlib
    except ImportError:
        common.log(f"matplotlib is not installed: no {path}")
        return
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    tiers = list(dict.fromkeys(s["tier"] for s in summary.values()))
    fig, axes = plt.subplots(2, len(tiers), figsize=(4.5 * len(tiers), 7), squeeze=False)
    for j, tier in enumerate(tiers):
        pts = sorted((s for s in summary.values() if s["tier"] == tier), key=lambda s: (s["budget"], s["concurrency"]))
        labels = [f"C{s['concurrency']}" + (f"/b{s['budget']}" if len({p['budget'] for p in pts}) > 1 else "") for s in pts]
        ax = axes[0][j]
        width = 0.8 / len(variants)
        for i, v in enumerate(variants):
            xs = [x + (i - (len(variants) - 1) / 2) * width for x in range(len(pts))]
            ax.bar(xs, [s["attention_ms_per_request"][v] for s in pts], width, label=v, color=f"C{i}")
        ax.set_xticks(range(len(pts)), labels)
        ax.set_title(f"{tier}: attention ms per request ({layers} layers)", fontsize=9)
        ax.set_yscale("log")
        if j == 0:
            ax.legend(fontsize=7)
        ax = axes[1][j]
        for i, r in enumerate(RATIOS):
            ys = [s["ratios"].get(r) for s in pts]
            if any(y is not None for y in ys):
                ax.plot(range(len(pts)), ys, "o-", label=r.replace("_over_", " / "), color=f"C{i + 4}")
        ax.axhline(1.0, color="k", lw=0.6)
        ax.set_xticks(range(len(pts)), labels)
        ax.set_title(f"{tier}: time ratios", fontsize=9)
        if j == 0:
            ax.legend(fontsize=7)
    fig.suptitle(f"{title} attention replayed from vLLM's scheduler", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def load_traces(args) -> tuple[dict, dict]:
    """One trace per (tier, concurrency, budget), from every page's file
    present (their steps must be equal: the page does not change them)."""
    traces, files = {}, {}
    for tier in args.tiers.split(","):
        for c in args.concurrency.split(","):
            for b in args.budget.split(","):
                name = f"{tier}_c{c}_b{b}"
                paths = sorted(glob.glob(os.path.join(args.trace_dir, f"{name}_p*.json.gz")))
                if not paths:
                    raise SystemExit(f"no trace {name}_p<page>.json.gz in {args.trace_dir} (scheduler_trace.py)")
                loaded = {p: load_trace(p) for p in paths}
                first = next(iter(loaded.values()))
                if any(t["steps"] != first["steps"] for t in loaded.values()):
                    raise SystemExit(f"{name}: the pages' traces differ; time them separately")
                traces[name] = first
                files[name] = {os.path.relpath(p, os.path.dirname(HERE)): t["command"] for p, t in loaded.items()}
    return traces, files


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.worker:
        return worker(args)
    if not args.vllm_root:
        raise SystemExit("--vllm-root is required")
    variants = [v for v in args.variants.split(",") if v]
    if unknown := [v for v in variants if v not in VARIANTS]:
        raise SystemExit(f"unknown variants {unknown}; known: {', '.join(VARIANTS)}")
    os.makedirs(args.out_dir, exist_ok=True)
    model = MODELS[args.model]
    pages = dict(SMOKE_PAGES if args.smoke else model["pages"])
    if args.page and not args.smoke:
        pages = {b: args.page for b in pages}
    title = "smoke" if args.smoke else f"{model['title']} (pages: {pages})"
    if args.smoke:
        traces, files = {"smoke": smoke_trace()}, {"smoke": {"synthetic": None}}
    else:
        traces, files = load_traces(args)
    plan = build_plan(args, traces)
    n_timed = sum(len(t["timed"]) for t in plan["traces"].values())
    est = estimate_s(plan, variants, pages)
    common.log(
        f"{len(traces)} traces, {sum(len(t['selected']) for t in plan['traces'].values())} selected steps, "
        f"{n_timed} compositions x {len(variants)} variants; estimated GPU time ~{est / 60:.1f} min "
        "(rough, from kernel rates of earlier runs)"
    )
    for name, t in plan["traces"].items():
        common.log(f"  {name}: {len(traces[name]['steps'])} steps -> {len(t['selected'])} selected "
                   f"(decode stride {t['stride']}), {len(t['timed'])} compositions")
    if args.estimate_only:
        return 0
    roots = {"series": os.path.abspath(args.vllm_root)}
    if args.snapshot:
        roots["series"] = snapshot_tree(roots["series"], args.snapshot)
        common.log(f"series tree: {args.vllm_root} at {args.snapshot}, copied to {roots['series']}")
    overlaid: list[str] = []
    if any(tree_of(v) == "upstream" for v in variants):
        if args.upstream_root:
            roots["upstream"] = os.path.abspath(args.upstream_root)
        else:
            roots["upstream"], overlaid = make_upstream_tree(roots["series"])
            common.log(f"upstream tree {roots['upstream']}: {len(overlaid)} files of {UPSTREAM_TAG} laid over: "
                       + ", ".join(overlaid))
    merged: dict = {
        n: collections.defaultdict(lambda: {"attribution": {}, "problems": {}, "digest": {}, "us": {}}) for n in traces
    }
    dispatch: dict = {}
    work = tempfile.mkdtemp(prefix="replay_sched_")
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    compiles: dict = {}
    for key in sorted({job_key(v, pages) for v in variants}, key=str, reverse=True):
        tree, page, opt_in = key
        tv = [v for v in variants if job_key(v, pages) == key]
        tag = f"{tree}_p{page}" + ("_paged_prefill" if opt_in else "")
        job = {"tree_root": roots[tree], "variants": tv, "page": page, "plan": plan,
               "use_triton_paged_prefill": opt_in, "out": os.path.join(work, f"{tag}.json")}  # fmt: skip
        jpath = os.path.join(work, f"{tag}_job.json")
        with open(jpath, "w") as f:
            json.dump(job, f)
        common.log(f"{tree} tree ({', '.join(tv)}, page {page}): {roots[tree]}")
        # A fresh Triton cache per worker: compile times are real compiles.
        wenv = dict(env, TRITON_CACHE_DIR=os.path.join(work, f"{tag}_triton_cache"))
        proc = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker", jpath], env=wenv)
        if proc.returncode:
            raise SystemExit(f"{tag} worker failed (exit {proc.returncode})")
        with open(job["out"]) as f:
            res = json.load(f)
        compiles.update(res["compiles"])
        for v in tv:
            dispatch[v] = res["paged_prefill"] if backend_of(v) == "triton" else None
        for name, per_key in res["traces"].items():
            for k, rec in per_key.items():
                for field in ("attribution", "problems", "digest", "us"):
                    merged[name][k][field].update(rec[field])
    summary = summarize(plan, traces, merged, variants, model["layers"], pages)
    # The interpreter's times say nothing about speed: no timing lines for the smoke run.
    tol = OUTPUT_TOLERANCE[plan["shape"]["dtype"]]
    check_lines, failed = checks(summary, variants, pages, tol, timed=not args.smoke)
    env_info = common.environment()
    payload = {
        "command": env_info["command"],
        "environment": env_info,
        "settings": {k: v for k, v in vars(args).items() if k not in ("worker",)},
        "model": args.model, "shape": plan["shape"], "layers": model["layers"], "pages": pages,
        "variants": {v: {"tree": tree_of(v), "backend": backend_of(v), "page": page_of(v, pages),
                         "use_triton_paged_prefill": VARIANTS[v][2],
                         "builder_paged_prefill": dispatch.get(v)} for v in variants},
        "row_order": "single-token rows first, then by query length (v0.34.0's sort_batch_req_ids)",
        "trees": roots, "upstream_overlaid_files": overlaid, "trace_files": files,
        "summary": summary, "output_tolerance": tol, "checks": check_lines,
        "compiles": {"note": "Triton kernels each variant compiled in the emulated start-up warm-up "
                             f"({args.warmup_seqs} requests) and then while replaying the traces", **compiles},
        "steps": {
            name: [
                # The step's rows are the trace's (trace_files), in runner_order.
                {"step": s["step"], "weight": s["weight"],
                 "us_per_layer": {v: round(us, 1) for v, us in merged[name][s["key"]]["us"].items()},
                 "attribution": merged[name][s["key"]]["attribution"]}
                for s in plan["traces"][name]["selected"]
            ]
            for name in traces
        },
    }  # fmt: skip
    stem = "replay_scheduler_smoke" if args.smoke else "replay_scheduler"
    with open(os.path.join(args.out_dir, f"{stem}.json"), "w") as f:
        json.dump(payload, f, indent=1)
    png = os.path.join(args.out_dir, f"{stem}.png")
    if os.path.exists(png):
        os.remove(png)  # a previous run's
    plot(summary, variants, png, title, model["layers"])
    for name, s in summary.items():
        print(f"{name}: attention ms per request: "
              + ", ".join(f"{v} {s['attention_ms_per_request'][v]:.2f}" for v in variants))
        print("  ratios: " + ", ".join(f"{k} {x:.3f}" for k, x in s["ratios"].items()))
        for v in variants:
            share = ", ".join(
                f"{k} d{x['decode_tokens_fraction']:.0%}/p{x['prefill_tokens_fraction']:.0%}"
                for k, x in s["kernel_share"][v].items()
            )
            print(f"  {v}: {share}")
    for v in variants:
        w, t = compiles[v]["warmup"], compiles[v]["trace"]
        kinds = collections.Counter(
            f"{e['kernel']}" + (f"[BLOCK_M={e['BLOCK_M']},TILE_SIZE={e.get('TILE_SIZE')}]" if "BLOCK_M" in e else "")
            for e in t
        )  # fmt: skip
        print(f"{v}: warm-up compiled {len(w)} kernels ({sum(e['compile_s'] for e in w):.1f} s); "
              f"the traces then compiled {len(t)} ({sum(e['compile_s'] for e in t):.1f} s)"
              + (f": {dict(kinds)}" if kinds else ""))
    for line in check_lines:
        print(line)
    print(f"wrote {os.path.join(args.out_dir, stem)}.json" + (" and .png" if os.path.exists(png) else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
