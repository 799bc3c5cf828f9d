# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the vLLM project
"""Batch-1 decode on an H200: how the timing method moves the numbers, where
inside the main kernel the fixed time goes, and kernel variants (issue 4).

Four parts (--parts), one process:
  * methods: the op, upstream ``unified_attention``, torch SDPA (FlashAttention
    and cuDNN back ends, contiguous K/V) and a plain read of the same bytes,
    each timed five ways: one call per CUDA graph with the L2 flushed before
    each replay (the decode benchmark's method), the same without the flush,
    Triton's ``do_bench_cudagraph`` (many calls in one graph, no flush) and
    Triton's ``do_bench`` (eager, its own L2 clear), and the time one call
    adds inside a graph of flush+call pairs (the benchmark's time_in_graph);
  * timeline: the op's main kernel with %globaltimer/%clock64 stamps per
    program (start, seq_len arrived, first block id arrived, loop done, last
    tile done; the stamps wait on those values through branches) and the
    graph's kernels from the profiler;
  * variants: source edits of the op's kernel (EDITS below), timed with the
    decode benchmark's method against the op as built, NaN in unused page
    tails; --extra-splits adds forced split counts at batch 1;
  * configs: other (tile, warps, stages) launch configs of the op or of a
    variant (--configs-variant).
The edits up to BALANCED are written against the op before its near-equal
splits (fork commit c47128d5), ``strided*`` and ``kdirect`` against the op
with them (fork commit 6aa74dc2); an edit that does not apply to the
bundle's op is logged and skipped.

    PYTHONPATH=BUNDLE python3 benchmarks/experiments/decode_batch1_timeline.py --out OUT
"""

import argparse
import json
import os
import statistics
import sys

import torch
import triton

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, ".."), os.path.join(HERE, "..", "kernels")]
from common import edited_module, environment, log  # noqa: E402

import vllm.v1.attention.ops.decode_page_contiguous as op  # noqa: E402

P = argparse.ArgumentParser()
P.add_argument("--out", default=".")
P.add_argument("--reps", type=int, default=100)
P.add_argument("--parts", default="methods,timeline,variants")
P.add_argument("--variants", default="bt_head,tail_early,bt_head_tail_early")
P.add_argument("--batches", default="1,4,16")
P.add_argument("--pages", default="832")
P.add_argument("--timeline-variants", default="bt_head_tail_early")
P.add_argument("--configs", default="64/4/2,64/4/3,64/8/2,64/8/3,32/4/3,32/4/4,128/8/2,32/2/4")
P.add_argument("--configs-variant", default="as_built")
P.add_argument("--extra-splits", default="", help="also time these split counts at batch 1")
ARGS = P.parse_args()
sys.argv = sys.argv[:1]  # the decode benchmark parses its own at import
import bench_decode_page_contiguous as B  # noqa: E402

DEV = torch.device("cuda")
DT = torch.bfloat16
LENS = (8192, 16384, 32768)


def graph(fn):
    fn()
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        fn()
    g.replay()
    torch.cuda.synchronize()
    return g


def time_noflush(fn, reps=ARGS.reps):
    """One graph replay per sample, no L2 flush, all replays queued before
    one sync. (common.graph_time_us syncs after every replay, so each
    replay starts on an idle GPU and its events also catch the launch: on
    the H200 that read 2-4 us more at batch 1.)"""
    g = graph(fn)
    ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
          for _ in range(reps)]
    for s, e in ev:
        s.record()
        g.replay()
        e.record()
    torch.cuda.synchronize()
    return statistics.median(s.elapsed_time(e) * 1e3 for s, e in ev)


def first_run_ok(fn, label):
    """Run fn once; a variant the compiler or the op refuses is logged and skipped."""
    try:
        fn()
        torch.cuda.synchronize()
        return True
    except Exception as exc:  # noqa: BLE001
        log(f"{label}: {exc!r}"[:1500])
        return False


def methods(fn):
    return {
        "graph1_flush": B.time_graph(fn, ARGS.reps),
        "graph1_noflush": time_noflush(fn),
        "triton_do_bench_cudagraph": triton.testing.do_bench_cudagraph(fn, rep=100) * 1e3,
        "triton_do_bench": triton.testing.do_bench(fn, warmup=25, rep=100) * 1e3,
        "in_graph_flush": B.time_in_graph(fn),
    }


def part_methods(rows):
    for seq_len in LENS:
        case = B.Case(832, 1, seq_len)
        out = case.out()
        kvbytes = case.bytes
        read_buf = torch.randn(kvbytes // 2, dtype=DT, device=DEV)
        acc = torch.empty((), dtype=torch.float32, device=DEV)
        fns = {
            "ours_triton_layout": case.ours_triton_layout(out),
            "ours_x_packed": case.ours(out),
            "unified_attention": case.unified(out),
            "read_same_bytes_torch_sum": lambda: torch.sum(read_buf, 0, dtype=torch.float32, out=acc),
        }
        for name, make in B.PEERS.items():  # SDPA on contiguous K/V
            fn = make(case, out)
            if first_run_ok(fn, name):
                fns[name] = fn
        for name, fn in fns.items():
            try:
                row = {"part": "methods", "seq_len": seq_len, "kernel": name, **methods(fn)}
            except Exception as exc:  # noqa: BLE001
                log(f"{name}: {exc!r}"[:300])
                continue
            rows.append(row)
            log(json.dumps(row))
        fns.clear()
        del case
        torch.cuda.empty_cache()


# ------------------------------------------------------------------ variants
def source_variant(name, edits, base=None):
    src = base if base is not None else open(op.__file__).read()
    return edited_module(src, f"dpc_{name}", edits)


# The first BT_HEAD block ids are read together with seq_len, so the first
# K/V load waits on one memory round trip instead of two.
BT_HEAD = [
    ("    num_splits,\n    stride_q_seq: tl.int64,\n",
     "    num_splits,\n    max_blocks_per_seq,\n    stride_q_seq: tl.int64,\n"),
    ("        num_splits,\n        query.stride(0),\n",
     "        num_splits,\n        block_table.shape[1],\n        query.stride(0),\n"),
    ("    USE_SPLITS: tl.constexpr,\n    DOT_PRECISION: tl.constexpr,\n):\n",
     "    USE_SPLITS: tl.constexpr,\n    DOT_PRECISION: tl.constexpr,\n"
     "    BT_HEAD: tl.constexpr = 64,\n):\n"),
    ("    seq_len = tl.load(seq_lens_ptr + seq_idx)\n",
     """    seq_len = tl.load(seq_lens_ptr + seq_idx)
    offs_bt = tl.arange(0, BT_HEAD)
    bt_head = tl.load(
        block_table_ptr + seq_idx.to(tl.int64) * stride_bt_seq + offs_bt,
        mask=offs_bt < max_blocks_per_seq,
        other=0,
    )
"""),
    ("""    block_idx = tl.load(
        block_table_row + tile_start // TILES_PER_PAGE,
        mask=tile_start < loop_end,
        other=0,
    ).to(tl.int64)
""",
     """    first_page = tile_start // TILES_PER_PAGE
    block_idx = tl.sum(tl.where(offs_bt == first_page, bt_head, 0)).to(tl.int64)
    block_idx = tl.where(
        first_page < BT_HEAD,
        block_idx,
        tl.load(
            block_table_row + first_page,
            mask=(tile_start < loop_end) & (first_page >= BT_HEAD),
            other=0,
        ).to(tl.int64),
    )
"""),
]
# The last tile's block id is read before the loop, not after it.
TAIL_EARLY = [
    ("    block_table_row = block_table_ptr + seq_idx.to(tl.int64) * stride_bt_seq\n",
     """    block_table_row = block_table_ptr + seq_idx.to(tl.int64) * stride_bt_seq
    tail_block_idx = tl.load(
        block_table_row + last_page, mask=seq_len > 0, other=0
    ).to(tl.int64)
"""),
    ("        block_idx = tl.load(block_table_row + last_page).to(tl.int64)\n",
     "        block_idx = tail_block_idx\n"),
]
# Timestamps per program: [globaltimer x5, smid, clock64 x5] at start,
# seq_len arrived, first block id arrived, loop done, last tile done. The
# branches on loaded values make each stamp wait for that value.
STAMPS = [
    ("import functools\n",
     '''import functools

_DBG = None
'''),
    ("    part_sum_ptr,  # [num_seqs, num_query_heads, num_splits]\n    qk_scale,",
     "    part_sum_ptr,  # [num_seqs, num_query_heads, num_splits]\n    dbg_ptr,\n    qk_scale,"),
    ("        part_sum,\n        scale * 1.4426950408889634",
     "        part_sum,\n        _DBG,\n        scale * 1.4426950408889634"),
    ("    split_idx = tl.program_id(1)\n\n",
     """    split_idx = tl.program_id(1)
    dbg = dbg_ptr + (tl.program_id(0) * tl.num_programs(1) + split_idx) * 16
    _stamp(dbg, 0)
    tl.store(dbg + 5, tl.inline_asm_elementwise(
        "mov.u32 $0, %smid;", "=r", [], dtype=tl.int32, is_pure=False, pack=1).to(tl.int64))

"""),
    ("    seq_len = tl.load(seq_lens_ptr + seq_idx)\n",
     """    seq_len = tl.load(seq_lens_ptr + seq_idx)
    if seq_len > -1:
        _stamp(dbg, 1)
"""),
    ("    for tile_idx in range(tile_start, loop_end):\n",
     """    if block_idx > -1:
        _stamp(dbg, 2)
    for tile_idx in range(tile_start, loop_end):
"""),
    ("    if has_last_tile",
     """    if tl.sum(l_i) > -1.0:
        _stamp(dbg, 3)
    if has_last_tile"""),
    ("    store_mask = head_mask[:, None] & dim_mask[None, :]\n    if USE_SPLITS:",
     """    if tl.sum(l_i) > -1.0:
        _stamp(dbg, 4)
    store_mask = head_mask[:, None] & dim_mask[None, :]
    if USE_SPLITS:"""),
    ("@triton.jit\ndef _attend_tile(",
     '''@triton.jit
def _stamp(dbg, i: tl.constexpr):
    t = tl.inline_asm_elementwise(
        "mov.u64 $0, %globaltimer;", "=l", [], dtype=tl.int64, is_pure=False, pack=1)
    c = tl.inline_asm_elementwise(
        "mov.u64 $0, %clock64;", "=l", [], dtype=tl.int64, is_pure=False, pack=1)
    tl.store(dbg + i, t)
    tl.store(dbg + 8 + i, c)


@triton.jit
def _attend_tile('''),
]

# On TRITON_ATTN's layout (X == 1) the sequence's last tile runs inside the
# pipelined loop with a runtime token bound: tokens are not the contiguous
# dim of K or V there, so the token mask does not split vector loads. The
# x-packed layout keeps the last tile peeled after the loop (its V has
# tokens contiguous). (Zeroing past-the-end V in registers instead keeps
# loads vectorized on both, but costs Triton 3.6 a 32 KiB layout-conversion
# buffer and 255 registers: one program per SM.)
TAIL_IN_LOOP_X1 = [
    ("    loop_end = tl.where(has_last_tile, tile_end - 1, tile_end)\n",
     """    if X == 1:
        loop_end = tile_end
    else:
        loop_end = tl.where(has_last_tile, tile_end - 1, tile_end)
"""),
    ("        page_offs = (tile_idx % TILES_PER_PAGE) * TILE_SIZE + offs_t\n",
     """        page_offs = (tile_idx % TILES_PER_PAGE) * TILE_SIZE + offs_t
        if X == 1:
            tok_bound = tl.where(
                tile_idx // TILES_PER_PAGE == last_page, tail_tokens, PAGE_SIZE
            )
        else:
            tok_bound = PAGE_SIZE
"""),
    ("            page_offs,\n            page_offs < PAGE_SIZE,\n",
     "            page_offs,\n            page_offs < tok_bound,\n"),
    ("    if has_last_tile:\n", "    if has_last_tile & (loop_end < tile_end):\n"),
]
# Splits differ by at most one tile, the longer ones first: no split is
# left empty, and the last split (which also holds the peeled last tile)
# and the splits launched second on a compute unit get the shorter ranges.
BALANCED = [
    ("""    tiles_per_split = (num_tiles + num_splits - 1) // num_splits
    tile_start = split_idx * tiles_per_split
    tile_end = tl.minimum(tile_start + tiles_per_split, num_tiles)
""", """    min_tiles = num_tiles // num_splits
    num_longer = num_tiles % num_splits
    tile_start = split_idx * min_tiles + tl.minimum(split_idx, num_longer)
    tile_end = tile_start + min_tiles + (split_idx < num_longer).to(tl.int32)
"""),
]


def tail_first(src):
    """The peeled last tile runs before the loop instead of after it: its
    cold block-table read and tile load then overlap every program's
    start-up instead of trailing the drained pipeline."""
    a = src.index("    if has_last_tile:\n")
    b = src.index("    store_mask = head_mask")
    block = src[a:b]
    src = src[:a] + src[b:]
    anchor = "    loop_end = tl.where(has_last_tile, tile_end - 1, tile_end)\n"
    return src.replace(anchor, anchor + block)




def strided(chunk):
    """Edits (against the op with near-equal splits): split s owns tile chunks
    s, s + num_splits, s + 2 * num_splits, ... of `chunk` tiles each, so the
    splits of a sequence read neighbouring tiles of a page at the same time
    (x-packed V: each 64-token tile is 128-byte pieces of 1.7 KB rows)."""
    return [
        ("""    min_tiles = num_tiles // num_splits
    num_longer = num_tiles % num_splits
    tile_start = split_idx * min_tiles + tl.minimum(split_idx, num_longer)
    tile_end = tile_start + min_tiles + (split_idx < num_longer).to(tl.int32)
""", f"""    CHUNK: tl.constexpr = {chunk}
    num_chunks = (num_tiles + CHUNK - 1) // CHUNK
    my_chunks = tl.maximum(num_chunks - split_idx + num_splits - 1, 0) // num_splits
    owns_last = (num_tiles > 0) & (split_idx == (num_chunks - 1) % num_splits)
    my_tiles = my_chunks * CHUNK - tl.where(owns_last, num_chunks * CHUNK - num_tiles, 0)
"""),
        ("""    has_last_tile = (tile_end == num_tiles) & (tile_start < tile_end)
    loop_end = tl.where(has_last_tile, tile_end - 1, tile_end)
    block_idx = tl.load(
        block_table_row + tile_start // TILES_PER_PAGE,
        mask=tile_start < loop_end,
        other=0,
    ).to(tl.int64)
    for tile_idx in range(tile_start, loop_end):
        next_block_idx = tl.load(
            block_table_row + (tile_idx + 1) // TILES_PER_PAGE,
            mask=tile_idx + 1 < loop_end,
            other=0,
        ).to(tl.int64)
""", """    has_last_tile = owns_last
    loop_end = tl.where(has_last_tile, my_tiles - 1, my_tiles)
    block_idx = tl.load(
        block_table_row + (split_idx * CHUNK) // TILES_PER_PAGE,
        mask=0 < loop_end,
        other=0,
    ).to(tl.int64)
    for i in range(0, loop_end):
        tile_idx = (split_idx + (i // CHUNK) * num_splits) * CHUNK + i % CHUNK
        next_tile = (split_idx + ((i + 1) // CHUNK) * num_splits) * CHUNK + (i + 1) % CHUNK
        next_block_idx = tl.load(
            block_table_row + next_tile // TILES_PER_PAGE,
            mask=i + 1 < loop_end,
            other=0,
        ).to(tl.int64)
"""),
    ]


# x-packed K gathered straight into K^T [head, tile] (each thread reads x
# contiguous head dims of one token, as the upstream paged kernels do), like
# the 4-D layout, instead of a coalesced [head // x, tile, x] load that is
# then permuted in registers (four more layout conversions).
KDIRECT = [
    ("""    k_rows = tl.arange(0, HEAD_SIZE_PADDED // X)
    k_dim_offs = k_rows * stride_k_dim_hi
    k_dim_mask = k_rows * X < HEAD_SIZE
""", """    k_dim_offs = (offs_d // X) * stride_k_dim_hi + offs_d % X
    k_dim_mask = dim_mask
"""),
    lambda src: src.replace(
        "            X,\n            HEAD_SIZE_PADDED,\n            TILE_SIZE,\n",
        "            1,\n            HEAD_SIZE_PADDED,\n            TILE_SIZE,\n"),
]

# Three programs per SM on an H200: registers capped at 168 so that three
# fit (the shared memory, 74 KiB each, does); NVIDIA only (maxnreg).
THREE_PER_SM = [
    ("_PROGRAMS_PER_CU = 2\n", "_PROGRAMS_PER_CU = 3\n"),
    ("        num_stages=config[\"num_stages\"],\n    )\n    if use_splits:",
     "        num_stages=config[\"num_stages\"],\n        maxnreg=168,\n    )\n    if use_splits:"),
]


EDITS = {
    "bt_head": BT_HEAD,
    "tail_early": TAIL_EARLY,
    "bt_head_tail_early": BT_HEAD + TAIL_EARLY,
    "tail_in_loop_x1": TAIL_IN_LOOP_X1,
    "balanced": BALANCED,
    "balanced_tail_in_loop_x1": BALANCED + TAIL_IN_LOOP_X1,
    "balanced_tail_first": BALANCED + [tail_first],
    "strided1": strided(1),
    "strided2": strided(2),
    "strided4": strided(4),
    "kdirect": KDIRECT,
    "three_per_sm": THREE_PER_SM,
}
MODS = {"as_built": (op, None)}
for _name in ARGS.variants.split(","):
    if _name in EDITS:
        try:
            MODS[_name] = source_variant(_name, EDITS[_name])
        except Exception as exc:  # noqa: BLE001
            log(repr(exc))


def case_fn(mod, case, out, layout, **kw):
    k, v = (case.k_t, case.v_t) if layout == "triton" else (case.k_x, case.v_x)
    return lambda: mod.decode_page_contiguous(
        case.q, k, v, out, case.block_table, case.seq_lens, case.scale,
        workspace=case.workspace, **kw)


def poison_page_tails(case):
    """NaN in every slot past a sequence's end on its last page, both layouts."""
    pages = case.block_table.shape[1]
    tail = case.seq_len - (pages - 1) * case.page
    if tail == case.page:
        return
    last = case.block_table[:, pages - 1].long()
    case.kv[last, tail:] = float("nan")
    case.k_x[last, :, :, tail:, :] = float("nan")
    case.v_x[last, :, :, tail:] = float("nan")


def part_variants(rows):
    points = [(lay, pg, b, n) for lay in ("triton", "rocm")
              for pg in map(int, ARGS.pages.split(","))
              for b in map(int, ARGS.batches.split(",")) for n in LENS]
    for layout, page, batch, seq_len in points:
        case = B.Case(page, batch, seq_len)
        poison_page_tails(case)
        ref = None
        runs = [(name, mod, {}) for name, (mod, _) in MODS.items()]
        if batch == 1:
            runs += [(f"{name}_splits{n}", mod, {"num_splits": int(n)})
                     for name, (mod, _) in MODS.items()
                     for n in filter(None, ARGS.extra_splits.split(","))]
        for name, mod, kw in runs:
            out = case.out()
            fn = case_fn(mod, case, out, layout, **kw)
            if not first_run_ok(fn, name):
                continue
            if ref is None:
                ref = out.clone()
            row = {"part": "variants", "layout": layout, "page": page, "batch": batch,
                   "seq_len": seq_len, "variant": name,
                   "finite": bool(torch.isfinite(out).all()),
                   "bitwise_equal_as_built": bool(torch.equal(out, ref)),
                   "rel_diff_as_built": B.rel_l2(out, ref.float()),
                   "graph1_flush": B.time_graph(fn, ARGS.reps),
                   "in_graph_flush": B.time_in_graph(fn),
                   "triton_do_bench_cudagraph":
                       triton.testing.do_bench_cudagraph(fn, rep=100) * 1e3}
            rows.append(row)
            log(json.dumps(row))
        del case
        torch.cuda.empty_cache()


def part_configs(rows):
    """The op as built with other (tile, warps, stages) launch configs."""
    mod = MODS[ARGS.configs_variant][0]
    built = mod._launch_config
    points = [(lay, b, n) for lay in ("triton", "rocm")
              for b, n in ((1, 8192), (1, 16384), (1, 32768), (4, 32768), (16, 32768))]
    for layout, batch, seq_len in points:
        case = B.Case(832, batch, seq_len)
        poison_page_tails(case)
        ref = None
        for cfg in ARGS.configs.split(","):
            tile, warps, stages = map(int, cfg.split("/"))
            mod._launch_config = lambda *a, c=(tile, warps, stages): {
                "TILE_SIZE": c[0], "num_warps": c[1], "num_stages": c[2]}
            out = case.out()
            fn = case_fn(mod, case, out, layout)
            if not first_run_ok(fn, cfg):
                continue
            if ref is None:
                ref = out.float().clone()
            row = {"part": "configs", "variant": ARGS.configs_variant, "layout": layout, "batch": batch, "seq_len": seq_len,
                   "config": cfg, "finite": bool(torch.isfinite(out).all()),
                   "rel_diff_first": B.rel_l2(out, ref),
                   "graph1_flush": B.time_graph(fn, ARGS.reps)}
            rows.append(row)
            log(json.dumps(row))
        mod._launch_config = built
        del case
        torch.cuda.empty_cache()


# ------------------------------------------------------------------ timeline
def part_timeline(rows):
    from torch.profiler import ProfilerActivity, profile

    for name in ["as_built"] + [v for v in ARGS.timeline_variants.split(",") if v in MODS]:
        src = open(op.__file__).read() if name == "as_built" else MODS[name][1]
        try:
            mod, _ = source_variant(f"stamps_{name}", STAMPS, base=src)
        except Exception as exc:  # noqa: BLE001
            log(repr(exc))
            continue
        for layout in ("triton", "rocm"):
            for seq_len in LENS:
                case = B.Case(832, 1, seq_len)
                out = case.out()
                splits = op._pick_num_splits(1, 4, case.block_table.shape[1] * 13,
                                             op._num_compute_units(DEV))
                mod._DBG = torch.zeros(4 * splits * 16, dtype=torch.int64, device=DEV)
                fn = case_fn(mod, case, out, layout)
                fn()
                g = graph(fn)
                stamps = []
                for _ in range(5):
                    torch.sum(B._FLUSH[0], dim=0, dtype=torch.float32, out=B._FLUSH[1])
                    g.replay()
                    torch.cuda.synchronize()
                    stamps.append(mod._DBG.view(-1, 16).cpu().tolist())
                with profile(activities=[ProfilerActivity.CUDA]) as prof:
                    for _ in range(5):
                        torch.sum(B._FLUSH[0], dim=0, dtype=torch.float32, out=B._FLUSH[1])
                        g.replay()
                    torch.cuda.synchronize()
                kern = [(e.name[:50], e.time_range.start, e.time_range.end)
                        for e in prof.events() if e.device_type.name == "CUDA"]
                row = {"part": "timeline", "variant": name, "layout": layout,
                       "seq_len": seq_len, "splits": splits,
                       "graph1_flush": B.time_graph(fn, ARGS.reps),
                       "stamps": stamps, "profiler_kernels": kern}
                rows.append(row)
                log(json.dumps({k: v for k, v in row.items()
                                if k not in ("stamps", "profiler_kernels")}))
                del case, g
                torch.cuda.empty_cache()


def main():
    rows = []
    env = environment()
    for part in ARGS.parts.split(","):
        {"methods": part_methods, "timeline": part_timeline,
         "variants": part_variants, "configs": part_configs}[part](rows)
        os.makedirs(ARGS.out, exist_ok=True)
        with open(os.path.join(ARGS.out, "decode_batch1_timeline.json"), "w") as f:
            json.dump({"env": env, "rows": rows}, f)


if __name__ == "__main__":
    main()
