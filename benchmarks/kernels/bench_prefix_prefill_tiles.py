# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the vLLM project
"""Tile sizes of prefix_prefill's context_attention_fwd, one GPU run.

For every (head size, page size) it times the prefix-prefill kernel
(vllm/v1/attention/ops/prefix_prefill.py, `_fwd_kernel`, the kernel
ROCM_ATTN's chunked_prefill_paged_decode runs for prefill sequences) on a
batch of 4 sequences with ~4K new and 3-7K context tokens each, bf16,
random data, and compares:

  tile configs   BLOCK_M/BLOCK_N/TRITON_BLOCK_SIZE/num_warps, forced by
                 wrapping the module's `_fwd_kernel` launcher in this script
                 (32/32/32/w4 is v0.29.0's collapse for non-power-of-2 pages,
                 128/64/32/w4 is upstream's v0.30+ choice for every page)
  production     context_attention_fwd of --vllm-root as it is, with its own
                 tile choice (recorded under "production_config")
  unfixed        the same configs on --unfixed-kernel, a prefix_prefill.py
                 from before the block-table mask fix, loaded as a separate
                 module: the cost of the fix is fixed / unfixed - 1

Timing: triton.testing.do_bench median (ms). First call: wall time of the
first launch of each (shape, variant) from an empty Triton cache, i.e. the
compilation; those launches run in --compile-workers parallel processes
(so the numbers include some CPU contention), then every variant is timed
sequentially in the main process from the warm cache. Each output is
checked against an fp32 reference on a sample of query rows (K/V gathered
from the paged cache through the block table) and for NaN. The run also
measures the bf16 matmul rate and copy / read bandwidth.

vLLM is imported from --vllm-root (a source tree or an unpacked Python-only
bundle; a bundle needs an empty ``vllm/_C_stable_libtorch.py`` stand-in
because vllm/platforms/cuda.py imports it unconditionally; the Triton op
benchmarked here never calls it).

  python benchmarks/kernels/bench_prefix_prefill_tiles.py \\
      --vllm-root BUNDLE --unfixed-kernel OLD/prefix_prefill.py --out DIR

On a machine without a GPU, --cpu-check runs the same logic on tiny fp16
shapes under the Triton interpreter (TRITON_INTERPRET=1
CUDA_VISIBLE_DEVICES=) to check the script, not the kernel's speed.
"""

import argparse
import importlib.util
import json
import os
import statistics
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import common  # noqa: E402

PAGES = [544, 784, 832, 1040, 1056, 1024]
HEAD_SIZES = [128, 256]
# (num_query_heads, num_kv_heads): Qwen3-Next / Qwen3.5 full-attention layers.
HEADS = (16, 2)
CTX_LENS = [3000, 4500, 6000, 7000]
QUERY_LENS = [4096, 3968, 4100, 4000]
# BLOCK_M/BLOCK_N/TRITON_BLOCK_SIZE/num_warps
CONFIGS = [
    "32/32/32/4",
    "128/64/32/4",
    "64/64/32/4",
    "128/64/32/8",
    "64/64/64/4",
    "128/64/64/4",
    "128/64/64/8",
]
OLD, UPSTREAM = "32/32/32/4", "128/64/32/4"


def parse_config(name: str) -> dict:
    m, n, bs, w = (int(v) for v in name.split("/"))
    return {"BLOCK_M": m, "BLOCK_N": n, "BLOCK_SIZE": bs, "num_warps": w}


def config_name(kw: dict) -> str:
    return "/".join(
        str(kw[k]) for k in ("BLOCK_M", "BLOCK_N", "BLOCK_SIZE", "num_warps")
    )


class _Launcher:
    """Stands in for `_fwd_kernel` in prefix_prefill's namespace: forwards
    the launch, optionally overriding tile constexprs, and records them."""

    def __init__(self, kernel, override: dict | None):
        self.kernel = kernel
        self.override = override or {}
        self.seen: dict | None = None

    def __getitem__(self, grid):
        launch = self.kernel[grid]

        def run(*args, **kwargs):
            kwargs.update(self.override)
            self.seen = {
                k: kwargs[k] for k in ("BLOCK_M", "BLOCK_N", "BLOCK_SIZE", "num_warps")
            }
            return launch(*args, **kwargs)

        return run


_MODULES: dict = {}


def load_kernel_module(which: str, args):
    """'fixed': vllm's prefix_prefill; 'unfixed': --unfixed-kernel as its own
    module (it imports vllm.platforms / vllm.triton_utils from --vllm-root)."""
    if which not in _MODULES:
        if which == "fixed":
            import vllm.v1.attention.ops.prefix_prefill as mod
        else:
            spec = importlib.util.spec_from_file_location(
                "prefix_prefill_unfixed", args.unfixed_kernel
            )
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
        _MODULES[which] = (mod, mod._fwd_kernel)
    return _MODULES[which]


def setup(args) -> None:
    if args.cpu_check:
        os.environ.setdefault("TRITON_INTERPRET", "1")
        os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")
    if args.vllm_root:
        sys.path.insert(0, os.path.abspath(args.vllm_root))


def shape_list(args) -> list[dict]:
    if args.cpu_check:
        return [
            dict(head_size=32, page=p, heads=(2, 1), ctx=[40, 100], q=[20, 70])
            for p in (48, 64)
        ]
    return [
        dict(head_size=h, page=p, heads=HEADS, ctx=CTX_LENS, q=QUERY_LENS)
        for h in args.head_sizes
        for p in args.pages
    ]


def make_batch(shape: dict, device: str, dtype):
    import torch

    gen = torch.Generator(device="cpu").manual_seed(
        1000 * shape["head_size"] + shape["page"]
    )
    page, d = shape["page"], shape["head_size"]
    hq, hk = shape["heads"]
    seq_lens = [c + q for c, q in zip(shape["ctx"], shape["q"])]
    pages = [(s + page - 1) // page for s in seq_lens]
    num_blocks = sum(pages) + 1
    perm = torch.randperm(num_blocks, generator=gen)
    table = torch.zeros(len(seq_lens), max(pages), dtype=torch.int32)
    used = 0
    for i, n in enumerate(pages):
        table[i, :n] = perm[used : used + n]
        used += n
    x = 16 // torch.tensor([], dtype=dtype).element_size()
    k_cache = torch.randn(num_blocks, hk, d // x, page, x, generator=gen)
    v_cache = torch.randn(num_blocks, hk, d, page, generator=gen)
    k_cache = k_cache.to(dtype=dtype, device=device)
    v_cache = v_cache.to(dtype=dtype, device=device)
    table = table.to(device)
    # The current chunk as the op gets it: dense, and also in the cache.
    k_new, v_new = [], []
    for i, (c, s) in enumerate(zip(shape["ctx"], seq_lens)):
        pos = torch.arange(c, s, device=device)
        blk = table[i, pos // page].long()
        off = pos % page
        k_new.append(k_cache[blk, :, :, off, :].reshape(len(pos), hk, d))
        v_new.append(v_cache[blk, :, :, off])
    q = torch.randn(sum(shape["q"]), hq, d, generator=gen).to(
        dtype=dtype, device=device
    )
    start = torch.tensor([0] + shape["q"]).cumsum(0).to(torch.int32).to(device)
    return dict(
        q=q,
        k=torch.cat(k_new).contiguous(),
        v=torch.cat(v_new).contiguous(),
        k_cache=k_cache,
        v_cache=v_cache,
        table=table,
        start=start,
        seq=torch.tensor(seq_lens, dtype=torch.int32, device=device),
        seq_lens=seq_lens,
        scale=torch.tensor(1.0, dtype=torch.float32, device=device),
    )


def make_call(batch: dict, mod, out):
    def call():
        mod.context_attention_fwd(
            batch["q"],
            batch["k"],
            batch["v"],
            out,
            "auto",
            batch["k_cache"],
            batch["v_cache"],
            batch["table"],
            batch["start"],
            batch["seq"],
            max(batch["seq_lens"]),
            int((batch["start"][1:] - batch["start"][:-1]).max()),
            batch["scale"],
            batch["scale"],
        )

    return call


def reference_error(batch: dict, shape: dict, out, rows: int) -> dict:
    """Max abs error against fp32 on the first and last `rows` query rows of
    every sequence, and whether the output holds NaN."""
    import torch

    page, d = shape["page"], shape["head_size"]
    hq, hk = shape["heads"]
    nb = batch["k_cache"].shape[0]
    k_pages = batch["k_cache"].permute(0, 3, 1, 2, 4).reshape(nb, page, hk, d)
    v_pages = batch["v_cache"].permute(0, 3, 1, 2)
    err = 0.0
    start = 0
    for i, (c, ql) in enumerate(zip(shape["ctx"], shape["q"])):
        s = c + ql
        blk = batch["table"][i, : (s + page - 1) // page].long()
        k = k_pages[blk].reshape(-1, hk, d)[:s].float()
        v = v_pages[blk].reshape(-1, hk, d)[:s].float()
        k = k.repeat_interleave(hq // hk, dim=1)
        v = v.repeat_interleave(hq // hk, dim=1)
        idx = sorted(
            set(list(range(min(rows, ql))) + list(range(max(0, ql - rows), ql)))
        )
        idx_t = torch.tensor(idx, device=k.device)
        q = batch["q"][start + idx_t].float()
        scores = torch.einsum("qhd,khd->hqk", q, k) * d**-0.5
        q_pos = c + idx_t
        k_pos = torch.arange(s, device=k.device)
        scores.masked_fill_(k_pos[None, None, :] > q_pos[None, :, None], float("-inf"))
        ref = torch.einsum("hqk,khd->qhd", scores.softmax(-1), v)
        err = max(err, (out[start + idx_t].float() - ref).abs().max().item())
        start += ql
    return {"max_abs_err": err, "has_nan": bool(out.isnan().any().item())}


def variants(args) -> list[tuple[str, str | None]]:
    """(kernel, config or None for production)."""
    out = [("fixed", None)] + [("fixed", c) for c in args.configs]
    if args.unfixed_kernel:
        out += [("unfixed", c) for c in args.configs]
    return out


def run_variant(args, shape: dict, kernel: str, config: str | None, batch, out):
    mod, orig = load_kernel_module(kernel, args)
    launcher = _Launcher(orig, parse_config(config) if config else None)
    mod._fwd_kernel = launcher
    try:
        call = make_call(batch, mod, out)
        call()
    finally:
        mod._fwd_kernel = orig
    return launcher.seen


def first_call_job(job) -> dict:
    """Worker: one cold first launch (the compilation) of one variant."""
    args, shape, kernel, config = job
    import torch

    device = "cpu" if args.cpu_check else "cuda"
    dtype = torch.float16 if args.cpu_check else torch.bfloat16
    batch = make_batch(shape, device, dtype)
    out = torch.empty_like(batch["q"])
    if device == "cuda":
        torch.cuda.synchronize()
    t0 = time.perf_counter()
    err = None
    try:
        seen = run_variant(args, shape, kernel, config, batch, out)
        if device == "cuda":
            torch.cuda.synchronize()
    except Exception as exc:  # noqa: BLE001
        seen, err = None, f"{type(exc).__name__}: {exc}"[:500]
    return {"first_call_s": time.perf_counter() - t0, "seen": seen, "error": err}


def _worker_init(args) -> None:
    setup(args)


def time_ms(fn, cpu: bool) -> float:
    if cpu:
        times = []
        for _ in range(3):
            t0 = time.perf_counter()
            fn()
            times.append((time.perf_counter() - t0) * 1e3)
        return statistics.median(times)
    from triton.testing import do_bench

    return float(do_bench(fn, warmup=25, rep=args_rep(), return_mode="median"))


_REP_MS = [300]


def args_rep() -> int:
    return _REP_MS[0]


def ceilings() -> dict:
    import torch
    from triton.testing import do_bench

    n = 8192
    a = torch.randn(n, n, dtype=torch.bfloat16, device="cuda")
    b = torch.randn(n, n, dtype=torch.bfloat16, device="cuda")
    ms = do_bench(lambda: torch.matmul(a, b), return_mode="median")
    nbytes = 4 << 30
    src = torch.empty(nbytes // 2, dtype=torch.bfloat16, device="cuda").normal_()
    dst = torch.empty_like(src)
    ms_copy = do_bench(lambda: dst.copy_(src), return_mode="median")
    ms_read = do_bench(
        lambda: torch.sum(src, dtype=torch.float32), return_mode="median"
    )
    torch.cuda.empty_cache()
    return {
        "bf16_matmul_tflops_8192": 2 * n**3 / ms / 1e9,
        "copy_gbps_read_plus_write_4GiB": 2 * nbytes / ms_copy / 1e6,
        "read_only_gbps_4GiB_sum": nbytes / ms_read / 1e6,
    }


def environment() -> dict:
    env = common.environment()
    env["vllm_root"] = os.environ.get("BENCH_VLLM_LABEL", "")
    return env


def causal_tflop(shape: dict) -> float:
    hq, _ = shape["heads"]
    k_eff = sum(q * c + q * (q + 1) / 2 for c, q in zip(shape["ctx"], shape["q"]))
    return 4.0 * shape["head_size"] * hq * k_eff / 1e12


def summarize(rec: dict) -> dict:
    fixed = rec["fixed"]
    ms = {c: v["ms"] for c, v in fixed.items() if v.get("ms") and c != "production"}
    s: dict = {}
    if OLD in ms and UPSTREAM in ms:
        best_fixed = min(ms[OLD], ms[UPSTREAM])
        s["upstream_over_old"] = ms[OLD] / ms[UPSTREAM]
        prod = fixed.get("production", {}).get("ms")
        cfg = rec.get("production_config")
        if cfg in ms:
            # The same kernel and launch as one of the configs: also report
            # that config's timing, so noise between two runs of one kernel
            # is visible.
            s["production_config_over_best_fixed"] = best_fixed / ms[cfg]
        if prod:
            s["production_over_old"] = ms[OLD] / prod
            s["production_over_best_fixed"] = best_fixed / prod
        best = min(ms, key=ms.get)
        s["fastest_config"] = best
        s["fastest_over_best_fixed"] = best_fixed / ms[best]
    cost = {}
    for c, v in rec.get("unfixed", {}).items():
        if v.get("ms") and ms.get(c):
            cost[c] = ms[c] / v["ms"] - 1.0
    if cost:
        s["mask_fix_cost"] = cost
    return s


def plot(results: dict, path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    heads = sorted({r["head_size"] for r in results["shapes"]})
    fig, axes = plt.subplots(1, len(heads) + 1, figsize=(6 * (len(heads) + 1), 4.5))
    for ax, h in zip(axes, heads):
        rows = [r for r in results["shapes"] if r["head_size"] == h]
        labels = [str(r["page"]) for r in rows]
        series = [
            (
                "128/64 (upstream)",
                [r["summary"].get("upstream_over_old") for r in rows],
            ),
            ("production", [r["summary"].get("production_over_old") for r in rows]),
            (
                "fastest swept config",
                [
                    r["fixed"].get(r["summary"].get("fastest_config"), {}).get("ms")
                    and r["fixed"][OLD]["ms"]
                    / r["fixed"][r["summary"]["fastest_config"]]["ms"]
                    for r in rows
                ],
            ),
        ]
        width = 0.27
        for i, (name, vals) in enumerate(series):
            xs = [j + (i - 1) * width for j in range(len(rows))]
            ax.bar(xs, [v or 0 for v in vals], width, label=name)
        ax.axhline(1.0, color="k", lw=0.8)
        ax.set_xticks(range(len(rows)), labels)
        ax.set_xlabel("page size (tokens)")
        ax.set_ylabel("speedup over 32/32 (x)")
        ax.set_title(f"head {h}: context_attention_fwd, {results['dtype']}")
        ax.legend()
    ax = axes[-1]
    rows = results["shapes"]
    labels = [f"{r['head_size']}/{r['page']}" for r in rows]
    vals = []
    for r in rows:
        cfg = r.get("production_config")
        vals.append(100 * r["summary"].get("mask_fix_cost", {}).get(cfg, 0.0))
    ax.bar(range(len(rows)), vals)
    ax.axhline(1.0, color="r", lw=0.8, ls="--")
    ax.axhline(-1.0, color="r", lw=0.8, ls="--")
    ax.set_xticks(range(len(rows)), labels, rotation=60)
    ax.set_ylabel("fixed / unfixed - 1 (%)")
    ax.set_title("block-table mask fix, production tiles")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def analyze(results: dict, choice: str) -> dict:
    """Compare one swept config (the tile choice) with 32/32 and 128/64.

    Tiles are compared on the kernel before the block-table fix ("unfixed"):
    the fix in the queue (a clamp) is not in a measured run, and where it is
    compiled in at all (the context tile does not divide the page) it is
    within about 1% of that kernel statically. The "fixed" run here is the
    rejected masked-load variant, reported as a worst case.
    """
    rows = []
    for r in results["shapes"]:
        timed = r["unfixed"] or r["fixed"]

        def ms(cfg, timed=timed):
            return timed.get(cfg, {}).get("ms")

        best_fixed = min(ms(OLD), ms(UPSTREAM))
        masked = r["fixed"].get(choice, {}).get("ms")
        rows.append(
            {
                "head_size": r["head_size"],
                "page": r["page"],
                "ms_32_32": ms(OLD),
                "ms_128_64": ms(UPSTREAM),
                "ms_choice": ms(choice),
                "choice_over_32_32": ms(OLD) / ms(choice),
                "choice_over_best_fixed": best_fixed / ms(choice),
                "ms_choice_masked_variant": masked,
                "masked_choice_over_best_fixed": best_fixed / masked
                if masked
                else None,
                "first_call_s": {
                    c: timed.get(c, {}).get("first_call_s")
                    for c in (OLD, UPSTREAM, choice)
                },
                "fastest_swept": min(
                    (c for c in timed if timed[c].get("ms")),
                    key=lambda c: timed[c]["ms"],
                ),
            }
        )
    return {"choice": choice, "compared_on": "unfixed kernel", "rows": rows}


def plot_choice(summary: dict, results: dict, path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = summary["rows"]
    heads = sorted({r["head_size"] for r in rows})
    fig, axes = plt.subplots(1, len(heads) + 1, figsize=(6 * (len(heads) + 1), 4.5))
    for ax, h in zip(axes, heads):
        sel = [r for r in rows if r["head_size"] == h]
        xs = range(len(sel))
        ax.bar(
            [x - 0.2 for x in xs],
            [r["ms_32_32"] / r["ms_128_64"] for r in sel],
            0.4,
            label=UPSTREAM + " (upstream)",
        )
        ax.bar(
            [x + 0.2 for x in xs],
            [r["choice_over_32_32"] for r in sel],
            0.4,
            label=summary["choice"] + " (choice)",
        )
        ax.axhline(1.0, color="k", lw=0.8)
        ax.set_xticks(list(xs), [str(r["page"]) for r in sel])
        ax.set_xlabel("page size (tokens)")
        ax.set_ylabel(f"speedup over {OLD} (x)")
        ax.set_title(f"head {h}, {results['dtype']}, H200")
        ax.legend(loc="lower right")
    ax = axes[-1]
    shapes = results["shapes"]
    labels, vals = [], []
    for r in shapes:
        fixed = r["fixed"].get(summary["choice"], {}).get("ms")
        unfixed = r["unfixed"].get(summary["choice"], {}).get("ms")
        if fixed and unfixed:
            labels.append(f"{r['head_size']}/{r['page']}")
            vals.append(100 * (fixed / unfixed - 1))
    ax.bar(range(len(vals)), vals)
    ax.axhline(1.0, color="r", lw=0.8, ls="--")
    ax.set_xticks(range(len(vals)), labels, rotation=60)
    ax.set_ylabel("masked / unmasked - 1 (%)")
    ax.set_title(f"masked block-table load (rejected), {summary['choice']}")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def write_json(results: dict, args) -> None:
    stem = "cpu_check" if args.cpu_check else "tiles"
    with open(os.path.join(args.out, f"{stem}.json"), "w") as f:
        json.dump(results, f, indent=1)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--vllm-root", default=None)
    ap.add_argument("--unfixed-kernel", default=None)
    ap.add_argument("--out", default="benchmarks/results/prefix_prefill")
    ap.add_argument(
        "--pages", type=lambda s: [int(v) for v in s.split(",")], default=PAGES
    )
    ap.add_argument(
        "--head-sizes",
        type=lambda s: [int(v) for v in s.split(",")],
        default=HEAD_SIZES,
    )
    ap.add_argument("--configs", type=lambda s: s.split(","), default=CONFIGS)
    ap.add_argument("--compile-workers", type=int, default=12)
    ap.add_argument("--rep-ms", type=int, default=300)
    ap.add_argument("--ref-rows", type=int, default=64)
    ap.add_argument(
        "--deadline-s",
        type=float,
        default=0.0,
        help="stop timing variants after this many seconds (0: no limit); "
        "results are written after every shape either way",
    )
    ap.add_argument("--cpu-check", action="store_true")
    ap.add_argument(
        "--analyze",
        metavar="JSON",
        help="no run: compare --choice with 32/32 and 128/64 in a results file",
    )
    ap.add_argument("--choice", default="128/64/64/8")
    args = ap.parse_args()
    if args.analyze:
        with open(args.analyze) as f:
            results = json.load(f)
        summary = analyze(results, args.choice)
        stem = os.path.splitext(args.analyze)[0] + "_choice"
        with open(stem + ".json", "w") as f:
            json.dump(summary, f, indent=1)
        try:
            plot_choice(summary, results, stem + ".png")
        except ImportError as exc:
            print(f"no plot: {exc}")
        print(f"choice {args.choice} (ms on the kernel before the bound fix)")
        print(
            "head  page  32/32   128/64  choice  x32/32 x_best  masked:x_best"
            "  first-call s"
        )
        for r in summary["rows"]:
            fc = r["first_call_s"]
            print(
                f"{r['head_size']:4d} {r['page']:5d} {r['ms_32_32']:7.2f} "
                f"{r['ms_128_64']:7.2f} {r['ms_choice']:7.2f} "
                f"{r['choice_over_32_32']:6.2f} {r['choice_over_best_fixed']:6.3f} "
                f"{r['masked_choice_over_best_fixed'] or 0:13.3f}  "
                + "/".join(f"{v:.1f}" for v in fc.values())
            )
        return 0
    _REP_MS[0] = args.rep_ms
    if args.cpu_check:
        args.configs = ["16/16/16/4", "32/32/32/4", "32/16/32/4"]
        global OLD, UPSTREAM
        OLD, UPSTREAM = "16/16/16/4", "32/32/32/4"
    # A cold Triton cache, so that first calls measure the compilation.
    cache = tempfile.mkdtemp(prefix="triton_cache_prefix_")
    os.environ["TRITON_CACHE_DIR"] = cache
    setup(args)
    os.makedirs(args.out, exist_ok=True)
    t_start = time.time()

    import torch

    shapes = shape_list(args)
    jobs = [(args, s, k, c) for s in shapes for k, c in variants(args)]
    print(f"{len(shapes)} shapes, {len(jobs)} first calls, cache {cache}", flush=True)
    with ProcessPoolExecutor(
        max_workers=args.compile_workers,
        mp_context=get_context("spawn"),
        initializer=_worker_init,
        initargs=(args,),
    ) as pool:
        first = list(pool.map(first_call_job, jobs))
    print(f"first calls done at {time.time() - t_start:.0f}s", flush=True)

    device = "cpu" if args.cpu_check else "cuda"
    dtype = torch.float16 if args.cpu_check else torch.bfloat16
    results = {
        "command": " ".join([os.path.basename(sys.executable)] + sys.argv),
        "environment": environment(),
        "ceilings": {} if args.cpu_check else ceilings(),
        "dtype": str(dtype),
        "configs_key": "BLOCK_M/BLOCK_N/TRITON_BLOCK_SIZE/num_warps",
        "timing": "triton.testing.do_bench median, ms"
        if not args.cpu_check
        else "CPU interpreter wall time (script check only)",
        "shapes": [],
    }
    fi = iter(first)
    for shape in shapes:
        batch = make_batch(shape, device, dtype)
        rec = {
            "head_size": shape["head_size"],
            "page": shape["page"],
            "num_query_heads": shape["heads"][0],
            "num_kv_heads": shape["heads"][1],
            "ctx_lens": shape["ctx"],
            "query_lens": shape["q"],
            "causal_tflop": causal_tflop(shape),
            "fixed": {},
            "unfixed": {},
        }
        for kernel, config in variants(args):
            fc = next(fi)
            name = config or "production"
            entry = {"first_call_s": fc["first_call_s"]}
            if args.deadline_s and time.time() - t_start > args.deadline_s:
                entry["error"] = "not timed: --deadline-s reached"
                rec[kernel][name] = entry
                continue
            if fc["error"]:
                entry["error"] = fc["error"]
                rec[kernel][name] = entry
                continue
            out = torch.full_like(batch["q"], float("nan"))
            seen = run_variant(args, shape, kernel, config, batch, out)
            if config is None:
                rec["production_config"] = config_name(seen)
            entry.update(reference_error(batch, shape, out, args.ref_rows))
            mod, orig = load_kernel_module(kernel, args)
            mod._fwd_kernel = _Launcher(orig, parse_config(config) if config else None)
            try:
                entry["ms"] = time_ms(make_call(batch, mod, out), args.cpu_check)
            finally:
                mod._fwd_kernel = orig
            entry["tflops"] = rec["causal_tflop"] / entry["ms"] * 1e3
            rec[kernel][name] = entry
        rec["summary"] = summarize(rec)
        results["shapes"].append(rec)
        s = rec["summary"]
        print(
            f"head {shape['head_size']:3d} page {shape['page']:5d}: "
            + " ".join(
                f"{c}={v.get('ms', float('nan')):.3f}ms"
                for c, v in rec["fixed"].items()
            )
            + f" | prod={rec.get('production_config')} "
            f"x_old={s.get('production_over_old', 0):.2f} "
            f"x_best={s.get('production_over_best_fixed', 0):.3f}",
            flush=True,
        )
        del batch
        write_json(results, args)
    results["wall_s"] = time.time() - t_start
    write_json(results, args)
    stem = "cpu_check" if args.cpu_check else "tiles"
    try:
        plot(results, os.path.join(args.out, f"{stem}.png"))
    except ImportError as exc:
        print(f"no plot: {exc}")
    print("\nhead page  prod_cfg        x32/32  x_best_fixed  fastest        mask_cost")
    for r in results["shapes"]:
        s = r["summary"]
        cfg = r.get("production_config")
        cost = s.get("mask_fix_cost", {}).get(cfg)
        print(
            f"{r['head_size']:4d} {r['page']:5d}  {cfg!s:14s} "
            f"{s.get('production_over_old', 0):6.2f}  "
            f"{s.get('production_over_best_fixed', 0):12.3f}  "
            f"{s.get('fastest_config')!s:13s} "
            f"{'n/a' if cost is None else f'{100 * cost:+.2f}%'}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
