# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the vLLM project
"""Page sweep of q=1 decode: the page-contiguous op against the path each backend runs today.

For every page, head shape, batch and KV length (points that do not fit the
--cache-gib budget are skipped and listed), in one process on one GPU:

  layout "triton" (TRITON_ATTN: K|V interleaved [blocks, page, kv_heads, 2*hs]):
      op       vllm.v1.attention.ops.decode_page_contiguous
      today    unified_attention, with the split-K scratch TRITON_ATTN's builder
               allocates (seq_threshold_3D = 128 // kv_heads, 16 segments)
  layout "rocm" (ROCM_ATTN: K [blocks, kv_heads, hs/x, page, x], V [blocks, kv_heads, hs, page]):
      op       the same op on this layout
      today    chunked_prefill_paged_decode as ROCM_ATTN calls it. Off ROCm that
               is its Triton kernel; on ROCm, pages 16/32 with head 64/128 go to
               the HIP kernel paged_attention_rocm instead (use_rocm_custom_paged_
               attention), which cannot be timed here: those points are marked
               "hip_kernel_on_rocm" and a route must never take them.
  layout "rocm_nhd" (ROCM_ATTN's bound cache [blocks, 2, page, kv_heads * hs] read
      as K and V [blocks, page, kv_heads, hs], as its paged-prefill layers keep it):
      op       the same op on this layout
      today    unified_attention (what such a layer runs outside the op)

Timing: a CUDA graph of up to 16 calls, each on its own random block table
(padded with block 0 to a --max-model-len server's width, if given; the op's
split count reads the table's width) over a cache of at least 2 GiB (so a call
finds little of its data in the 50 MB L2), and the L2 flushed (untimed) before
every replay; the time of one call is the replay time / calls, median of
--reps replays, the least of --rounds such timings (both kernels are timed
once, then again in the same order). Large points use fewer calls per graph
(each call then reads far more than the L2 holds). Before timing, worker
processes compile every kernel specialization the sweep needs (Triton's
on-disk cache), so compilation is off the timed path.

Each point also records whether the op's routing predicate
(``page_contiguous_decode_is_faster``, where the module has it) sends it to the
op, and on points small enough, the relative L2 error of both kernels against
an fp32 reference gathered from the paged cache.

Writes decode_page_sweep.json and decode_page_sweep.png (time ratio op/today
per layout, head shape, page, batch and length) under --out-dir.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing as mp
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import common  # noqa: E402

PAGES = "16,32,64,128,544,576,784,832,1056,1088"
HEADS = "24/4/256,16/2/256,32/8/128,8/1/128,32/32/128"
BATCHES = "1,4,16,64,256"
SEQ_LENS = "1024,4096,16384,65536"
MAX_CALLS = 16


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--vllm-root", default=None, help="path that holds vllm/")
    p.add_argument("--out-dir", default=".")
    p.add_argument("--pages", default=PAGES)
    p.add_argument("--heads", default=HEADS, help="q/kv/head_size,...")
    p.add_argument("--batches", default=BATCHES)
    p.add_argument("--seq-lens", default=SEQ_LENS)
    p.add_argument("--layouts", default="triton,rocm")
    p.add_argument("--reps", type=int, default=5)
    p.add_argument(
        "--rounds", type=int, default=2,
        help="time both kernels of a point this many times over, keep the least",
    )  # fmt: skip
    p.add_argument("--cache-gib", type=float, default=60.0, help="largest KV cache allocated")
    p.add_argument("--prewarm-workers", type=int, default=12)
    p.add_argument("--time-budget", type=float, default=1e9, help="seconds of timing")
    p.add_argument("--tag", default="decode_page_sweep")
    p.add_argument("--dtype", default="bfloat16", choices=("bfloat16", "float16", "float32"))
    p.add_argument(
        "--max-model-len", type=int, default=0,
        help="pad every block table to this server's width with block 0 (never read); "
        "0: tables as wide as the sequence",
    )  # fmt: skip
    return p.parse_args(argv)


ints = common.ints


def heads_of(text: str) -> list[tuple[int, int, int]]:
    return [tuple(int(v) for v in h.split("/")) for h in text.split(",") if h]  # type: ignore[misc]


# Head sizes ROCm's HIP paged attention kernel is built for.
HIP_KERNEL_HEAD_SIZES = (64, 128)


def hip_kernel_on_rocm(page: int, hq: int, hk: int, hs: int) -> bool:
    """use_rocm_custom_paged_attention on CDNA for a bf16 decode without
    window or sinks (vllm/platforms/rocm.py), and pow2 native layout."""
    return hs in HIP_KERNEL_HEAD_SIZES and page in (16, 32) and 1 <= hq // hk <= 16


class Ops:
    """The kernels, imported from --vllm-root."""

    def __init__(self) -> None:
        common.stub_rocm_platform_module()
        from vllm.v1.attention.ops import decode_page_contiguous as dpc
        from vllm.v1.attention.ops.chunked_prefill_paged_decode import (
            chunked_prefill_paged_decode,
        )
        from vllm.v1.attention.ops.triton_unified_attention import unified_attention

        self.dpc = dpc
        self.unified = unified_attention
        self.rocm = chunked_prefill_paged_decode
        self.route = getattr(dpc, "page_contiguous_decode_is_faster", None)
        self.grid_stays = getattr(dpc, "decode_grid_stays_on_unified_attention", None)

    def routed(
        self, page: int, heads: tuple[int, int, int], batch: int, dtype, layout: str, device
    ) -> bool | None:
        """Whether the backend of ``layout`` sends this point to the op: the
        op module's page rule (``page_contiguous_decode_serves_page``, both
        backends). Where the module has none, the rules the backends had:
        TRITON_ATTN (on sm_90) pages of at least 64 tokens or 16/32, ROCM_ATTN
        pages that are not a power of two; both with one query head per KV
        head only on multiples of 64. Older queues: the module's predicates
        (TRITON_ATTN passes
        ``small_pages`` and keeps the grids
        ``decode_grid_stays_on_unified_attention`` names on unified_attention;
        ROCM_ATTN passes ``small_pages`` where ROCm's HIP kernel is not built
        for the head size)."""
        import inspect

        hq, hk, head_size = heads
        serves_page = getattr(self.dpc, "page_contiguous_decode_serves_page", None)
        if serves_page is not None:
            served = self.dpc.supports_page_contiguous_decode(head_size, hq // hk, dtype)
            return bool(served and serves_page(page, hq // hk))
        if self.route is None:
            served = self.dpc.supports_page_contiguous_decode(head_size, hq // hk, dtype)
            if layout == "triton":
                page_ok = page >= 64 or page in (16, 32)
            else:
                page_ok = page & (page - 1) != 0
            return bool(served and page_ok and (hq // hk > 1 or page % 64 == 0))
        params = inspect.signature(self.route).parameters
        small_pages = layout == "triton" or head_size not in HIP_KERNEL_HEAD_SIZES
        kwargs = {"small_pages": True} if "small_pages" in params and small_pages else {}
        if "dtype" in params:
            routed = bool(self.route(page, head_size, hq // hk, dtype=dtype, **kwargs))
        else:
            routed = bool(self.route(page, head_size, hq // hk))
        if routed and layout == "triton" and self.grid_stays is not None:
            routed = not self.grid_stays(batch, hk, page, head_size, dtype, device)
        return routed


class Group:
    """One KV cache (layout, heads, page) and the calls of every point on it."""

    def __init__(
        self, ops: Ops, layout: str, heads, page: int, nblocks: int, device, dtype
    ) -> None:
        import torch

        self.ops, self.layout, self.page = ops, layout, page
        self.hq, self.hk, self.hs = heads
        self.nblocks = nblocks
        self.device = device
        self.dtype = dtype
        gen = torch.Generator(device=device).manual_seed(page * 7919 + self.hq * 31 + self.hk)
        if layout == "triton":
            self.kv = torch.empty((nblocks, page, self.hk, 2 * self.hs), dtype=dtype, device=device)
            self.kv.normal_(generator=gen)
            self.k, self.v = self.kv.split(self.hs, dim=-1)
        elif layout == "rocm_nhd":
            # ROCM_ATTN's bound cache read as NHD (its paged-prefill layers).
            self.kv = torch.empty((nblocks, 2, page, self.hk, self.hs), dtype=dtype, device=device)
            self.kv.normal_(generator=gen)
            self.k, self.v = self.kv.unbind(1)
        else:
            x = 16 // dtype.itemsize
            self.k = torch.empty(
                (nblocks, self.hk, self.hs // x, page, x), dtype=dtype, device=device
            )
            self.v = torch.empty((nblocks, self.hk, self.hs, page), dtype=dtype, device=device)
            self.k.normal_(generator=gen)
            self.v.normal_(generator=gen)
        self.gen = gen
        self.scale = self.hs**-0.5
        self.ones = torch.ones((), dtype=torch.float32, device=device)
        threshold = 128 // self.hk
        rows = min(threshold, 256)
        hs_pad = 1 << (self.hs - 1).bit_length()
        self.threshold_3d = threshold
        self.segm_out = torch.empty((rows, self.hq, 16, hs_pad), dtype=torch.float32, device=device)
        self.segm_max = torch.empty((rows, self.hq, 16), dtype=torch.float32, device=device)
        self.segm_sum = torch.empty_like(self.segm_max)
        import inspect

        numel = ops.dpc.decode_page_contiguous_workspace_numel
        by_dtype = "dtype" in inspect.signature(numel).parameters
        self.workspace = torch.empty(
            numel(self.hq, self.hk, self.hs, *((dtype,) if by_dtype else ()), device),
            dtype=torch.float32,
            device=device,
        )

    def tables(self, batch: int, seq_len: int, count: int, max_model_len: int = 0):
        """`count` block tables of distinct random blocks (as far as the cache
        allows), padded with block 0 to a max_model_len server's width."""
        import torch

        pages = math.ceil(seq_len / self.page)
        need = batch * pages
        out = []
        for _ in range(count):
            perm = torch.randperm(self.nblocks, device=self.device, generator=self.gen)
            out.append(
                pad_table(perm[:need].to(torch.int32).view(batch, pages), max_model_len, self.page)
            )
        return out

    def call(self, kernel: str, q, out, table, seq_lens, seq_len: int):
        import torch

        batch = q.shape[0]
        if kernel == "op":
            return lambda: self.ops.dpc.decode_page_contiguous(
                q, self.k, self.v, out, table, seq_lens, self.scale, workspace=self.workspace
            )
        cu_q = torch.arange(batch + 1, dtype=torch.int32, device=self.device)
        if self.layout in ("triton", "rocm_nhd"):
            descale = self.ones.expand((batch, self.hk))
            return lambda: self.ops.unified(
                q=q, k=self.k, v=self.v, out=out, cu_seqlens_q=cu_q, max_seqlen_q=1,
                seqused_k=seq_lens, max_seqlen_k=seq_len, softmax_scale=self.scale,
                causal=True, window_size=(-1, -1), block_table=table, softcap=0,
                q_descale=None, k_descale=descale, v_descale=descale,
                seq_threshold_3D=self.threshold_3d, num_par_softmax_segments=16,
                softmax_segm_output=self.segm_out, softmax_segm_max=self.segm_max,
                softmax_segm_expsum=self.segm_sum,
            )  # fmt: skip
        return lambda: self.ops.rocm(
            query=q, key=None, value=None, output=out, kv_cache_dtype="auto",
            key_cache=self.k, value_cache=self.v, block_table=table,
            query_start_loc=cu_q, seq_lens=seq_lens, max_seq_len=seq_len,
            max_query_len=1, k_scale=self.ones, v_scale=self.ones, sliding_window=0,
            sm_scale=self.scale,
        )  # fmt: skip

    def reference(self, q, table, seq_len: int, rows: int):
        """fp32 attention of the first `rows` sequences, K/V gathered through the table."""
        import torch

        pages = math.ceil(seq_len / self.page)
        outs = []
        for i in range(rows):
            blocks = table[i, :pages].long()
            if self.layout in ("triton", "rocm_nhd"):
                k = self.k[blocks].flatten(0, 1)[:seq_len].float()
                v = self.v[blocks].flatten(0, 1)[:seq_len].float()
            else:
                k = (
                    self.k[blocks]
                    .permute(0, 3, 1, 2, 4)
                    .flatten(3, 4)
                    .flatten(0, 1)[:seq_len]
                    .float()
                )
                v = self.v[blocks].permute(0, 3, 1, 2).flatten(0, 1)[:seq_len].float()
            g = self.hq // self.hk
            k = k.repeat_interleave(g, dim=1)
            v = v.repeat_interleave(g, dim=1)
            s = torch.einsum("hd,nhd->hn", q[i].float(), k) * self.scale
            outs.append(torch.einsum("hn,nhd->hd", s.softmax(-1), v))
        return torch.stack(outs)


def pad_table(table, max_model_len: int, page: int):
    """The table padded with block 0 to ceil(max_model_len / page) columns, as
    wide as a server's (the kernels never read past a sequence's pages)."""
    import torch

    pad = math.ceil(max_model_len / page) - table.shape[1]
    if pad <= 0:
        return table.contiguous()
    return torch.cat([table, table.new_zeros((table.shape[0], pad))], dim=1).contiguous()


def l2_flush(device):
    """A function that evicts the L2 (reads 512 MiB, ten times an H200's L2)."""
    import torch

    buf = torch.ones(256 << 20, dtype=torch.bfloat16, device=device)
    acc = torch.empty((), dtype=torch.float32, device=device)
    return lambda: torch.sum(buf, dim=0, dtype=torch.float32, out=acc)


def time_calls(fns, reps: int, flush) -> float:
    """Median microseconds per call of a graph of the calls in fns, cold L2."""
    import torch

    for fn in fns:
        fn()
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        fns[0]()
    torch.cuda.current_stream().wait_stream(stream)
    with torch.cuda.graph(graph):
        for fn in fns:
            fn()
    graph.replay()
    times = []
    for _ in range(reps):
        flush()
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        graph.replay()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1e3 / len(fns))
    del graph
    return statistics.median(times)


ELEMENT_BYTES = {"bfloat16": 2, "float16": 2, "float32": 4}


def kv_bytes_per_token(heads, dtype: str) -> int:
    _, hk, hs = heads
    return hk * hs * 2 * ELEMENT_BYTES[dtype]


def groups_of(args) -> list[tuple[str, tuple[int, int, int], int]]:
    return [
        (layout, heads, page)
        for layout in args.layouts.split(",")
        for heads in heads_of(args.heads)
        for page in ints(args.pages)
    ]


def points_of(args, heads, page) -> tuple[list[tuple[int, int]], list[tuple[int, int]], int]:
    """(fitting points, skipped points, blocks to allocate) of one group."""
    cap = int(args.cache_gib * 2**30)
    per_block = kv_bytes_per_token(heads, args.dtype) * page
    fit, skip, need_max = [], [], 0
    for batch in ints(args.batches):
        for seq_len in ints(args.seq_lens):
            need = batch * math.ceil(seq_len / page)
            if need * per_block > cap:
                skip.append((batch, seq_len))
            else:
                fit.append((batch, seq_len))
                need_max = max(need_max, need)
    min_blocks = math.ceil((2 << 30) / per_block)
    return fit, skip, max(need_max, min(min_blocks, cap // per_block))


def prewarm(job) -> str:
    """Compile every kernel specialization of one group (small cache, real shapes)."""
    argv, layout, heads, page = job
    args = parse_args(argv)
    common.use_vllm_root(args.vllm_root)
    import torch

    ops = Ops()
    dev = torch.device("cuda")
    group = Group(ops, layout, heads, page, 64, dev, getattr(torch, args.dtype))
    fit, _, _ = points_of(args, heads, page)
    for batch, seq_len in fit:
        pages = math.ceil(seq_len / page)
        table = torch.randint(0, 64, (batch, pages), dtype=torch.int32, device=dev)
        table = pad_table(table, args.max_model_len, page)
        seq_lens = torch.full((batch,), seq_len, dtype=torch.int32, device=dev)
        q = torch.randn((batch, group.hq, group.hs), dtype=group.dtype, device=dev)
        out = torch.empty_like(q)
        for kernel in ("op", "today"):
            group.call(kernel, q, out, table, seq_lens, seq_len)()
    torch.cuda.synchronize()
    return f"{layout} {heads} page {page}: {len(fit)} points"


def drop_first_point(args, ops, dev, flush) -> None:
    """Times both kernels of the sweep's first point once and drops the times.

    The kernel timed first at the first point a process times came out up to
    0.7 us fast in every round (6.75 us there, 7.5 us when timed after other
    groups, in an earlier sweep), which favours the op, timed first."""
    import torch

    layout, heads, page = groups_of(args)[0]
    fit, _, nblocks = points_of(args, heads, page)
    if not fit:
        return
    batch, seq_len = fit[0]
    group = Group(ops, layout, heads, page, nblocks, dev, getattr(torch, args.dtype))
    seq_lens = torch.full((batch,), seq_len, dtype=torch.int32, device=dev)
    q = torch.randn((batch, group.hq, group.hs), dtype=group.dtype, device=dev)
    out = torch.empty_like(q)
    for kernel in ("op", "today"):
        tables = group.tables(batch, seq_len, 2, args.max_model_len)
        time_calls([group.call(kernel, q, out, t, seq_lens, seq_len) for t in tables], 2, flush)
    common.log(f"dropped the first point's times ({layout} {heads} page {page})")
    del group
    torch.cuda.empty_cache()


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    common.use_vllm_root(args.vllm_root)
    import torch

    os.makedirs(args.out_dir, exist_ok=True)
    groups = groups_of(args)
    started = time.time()
    if args.prewarm_workers > 0:
        ctx = mp.get_context("spawn")
        raw = sys.argv[1:] if argv is None else argv
        with ctx.Pool(args.prewarm_workers) as pool:
            jobs = [(raw, *g) for g in groups]
            for i, msg in enumerate(pool.imap_unordered(prewarm, jobs), 1):
                common.log(f"prewarm {i}/{len(jobs)} {msg}")
    prewarm_s = time.time() - started

    ops = Ops()
    dev = torch.device("cuda")
    env = common.environment()
    ceil = common.ceilings()
    common.log(f"ceilings {ceil}")
    read_bw = ceil["read_bandwidth_TBps"] * 1e12
    flush = l2_flush(dev)
    drop_first_point(args, ops, dev, flush)

    points, skipped = [], []
    timing_start = time.time()
    for layout, heads, page in groups:
        fit, skip, nblocks = points_of(args, heads, page)
        skipped += [
            {"layout": layout, "heads": list(heads), "page": page, "batch": b, "seq_len": s,
             "why": f"K/V over {args.cache_gib} GiB"}
            for b, s in skip
        ]  # fmt: skip
        if time.time() - timing_start > args.time_budget:
            skipped += [
                {"layout": layout, "heads": list(heads), "page": page, "batch": b,
                 "seq_len": s, "why": "time budget"}
                for b, s in fit
            ]  # fmt: skip
            continue
        group = Group(ops, layout, heads, page, nblocks, dev, getattr(torch, args.dtype))
        hq, hk, hs = heads
        for batch, seq_len in fit:
            seq_lens = torch.full((batch,), seq_len, dtype=torch.int32, device=dev)
            q = torch.randn((batch, hq, hs), dtype=group.dtype, device=dev, generator=group.gen)
            nbytes = (
                batch * seq_len * kv_bytes_per_token(heads, args.dtype)
                + 2 * q.numel() * q.element_size()
            )
            est_us = nbytes / read_bw * 1e6
            row = {
                "layout": layout, "heads": list(heads), "page": page, "batch": batch,
                "seq_len": seq_len, "bytes": nbytes,
                "hip_kernel_on_rocm": layout == "rocm" and hip_kernel_on_rocm(page, hq, hk, hs),
                "dtype": args.dtype, "max_model_len": args.max_model_len,
                "routed": ops.routed(page, heads, batch, group.dtype, group.layout, dev),
            }  # fmt: skip
            timed = {}
            for kernel in ("op", "today"):
                # The ROCM_ATTN Triton fallback reads at a few % of bandwidth.
                slow = 20 if (kernel == "today" and layout == "rocm") else 1
                calls = max(1, min(MAX_CALLS, int(2000 / (est_us * slow))))
                reps = args.reps if est_us * slow * calls < 50_000 else 2
                tables = group.tables(batch, seq_len, calls, args.max_model_len)
                out = torch.full_like(q, float("nan"))
                fns = [group.call(kernel, q, out, t, seq_lens, seq_len) for t in tables]
                row[f"{kernel}_us"] = time_calls(fns, reps, flush)
                row[f"{kernel}_calls"] = calls
                timed[kernel] = (fns, reps)
                if batch * seq_len <= 64 * 16384:
                    rows = min(batch, 2)
                    ref = group.reference(q, tables[-1], seq_len, rows)
                    err = (out[:rows].float() - ref).norm() / ref.norm()
                    row[f"{kernel}_rel_l2"] = err.item()
                    row[f"{kernel}_nan"] = bool(out.isnan().any())
            # Both kernels again, in the same order; the least time of the
            # rounds is kept (a kernel timed right after another one at
            # 32K-64K tokens can take up to 1.15x of its time on an H200).
            for _ in range(args.rounds - 1):
                for kernel, (fns, reps) in timed.items():
                    us = time_calls(fns, reps, flush)
                    row[f"{kernel}_us"] = min(row[f"{kernel}_us"], us)
            row["ratio"] = row["op_us"] / row["today_us"]
            row["op_pct_read"] = 100 * nbytes / (row["op_us"] * 1e-6) / read_bw
            points.append(row)
            common.log(
                f"{layout:6} {hq}/{hk}/{hs} page {page:4} B={batch:3} L={seq_len:5}: op "
                f"{row['op_us']:9.1f} us  today {row['today_us']:9.1f} us  ratio "
                f"{row['ratio']:.3f}  routed={row['routed']}"
            )
        del group
        torch.cuda.empty_cache()

    result = {
        "command": env["command"],
        "environment": env,
        "ceilings": ceil,
        "timing": __doc__.split("Timing:")[1].split("\n\n")[0].strip(),
        "prewarm_s": prewarm_s,
        "points": points,
        "skipped": skipped,
    }
    path = os.path.join(args.out_dir, f"{args.tag}.json")
    with open(path, "w") as f:
        json.dump(result, f, indent=1)
    common.log(f"wrote {path} ({len(points)} points, {len(skipped)} skipped)")
    plot(result, os.path.join(args.out_dir, f"{args.tag}.png"))
    return 0


def plot(result: dict, path: str) -> None:
    """Heatmap of op/today per layout and head shape: pages x (batch, length)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.colors import LogNorm
    except ImportError:
        common.log("matplotlib missing: no plot")
        return
    pts = result["points"]
    layouts = sorted({p["layout"] for p in pts}, reverse=True)
    heads = sorted({tuple(p["heads"]) for p in pts}, key=lambda h: (-h[2], -h[0] / h[1]))
    pages = sorted({p["page"] for p in pts})
    cols = sorted({(p["batch"], p["seq_len"]) for p in pts})
    if not pts:
        return
    fig, axes = plt.subplots(
        len(heads), len(layouts), figsize=(9 * len(layouts), 3.2 * len(heads)), squeeze=False
    )
    norm = LogNorm(vmin=0.1, vmax=10)
    for j, layout in enumerate(layouts):
        for i, h in enumerate(heads):
            ax = axes[i][j]
            grid = [[math.nan] * len(cols) for _ in pages]
            for p in pts:
                if p["layout"] == layout and tuple(p["heads"]) == h:
                    grid[pages.index(p["page"])][cols.index((p["batch"], p["seq_len"]))] = p[
                        "ratio"
                    ]
            im = ax.imshow(grid, cmap="RdBu_r", norm=norm, aspect="auto")
            for r, row in enumerate(grid):
                for c, v in enumerate(row):
                    if not math.isnan(v):
                        ax.text(c, r, f"{v:.2f}", ha="center", va="center", fontsize=5)
            ax.set_yticks(range(len(pages)), [str(p) for p in pages], fontsize=6)
            ax.set_xticks(
                range(len(cols)),
                [f"{b}x{s // 1024}K" if s >= 1024 else f"{b}x{s}" for b, s in cols],
                fontsize=5,
                rotation=90,
            )
            today = "chunked_prefill_paged_decode" if layout == "rocm" else "unified_attention"
            ax.set_title(f"{layout} layout, {h[0]}q/{h[1]}kv/{h[2]}: op / {today}", fontsize=8)
    fig.colorbar(im, ax=axes, shrink=0.5, label="time ratio (blue: op faster)")
    fig.savefig(path, dpi=110)
    common.log(f"wrote {path}")


if __name__ == "__main__":
    sys.exit(main())
