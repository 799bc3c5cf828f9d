# SPDX-License-Identifier: Apache-2.0
"""One-off sweep behind decode_page_contiguous's launch config and split rule (H200).

    python3 benchmarks/experiments/sweep_decode_configs.py VLLM_ROOT OUT_DIR [BUDGET_S]
        [--configs TILE/WARPS/STAGES,...] [--tag NAME] [--old-op FILE]

Times the op of VLLM_ROOT with each launch config forced, at explicit split
counts per shape (or the op's own rule with --configs), on ROCM_ATTN's x-packed
layout and TRITON_ATTN's layout, with upstream unified_attention (and, given
--old-op, an earlier version of the op file) as references. Timing, shapes and
reference come from benchmarks/kernels/bench_decode_page_contiguous.py.
Results: OUT_DIR/<tag>.json. The committed runs are
benchmarks/results/decode/sweep_h200.json (no --configs, --old-op = the op as
the queue had it before this sweep) and sweep_tiles128_h200.json
(--configs 64/4/2,128/4/2,128/8/2,64/8/2 --tag tile128).
"""

import argparse
import importlib.util
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
p = argparse.ArgumentParser()
p.add_argument("vllm_root")
p.add_argument("out_dir")
p.add_argument("budget_s", nargs="?", type=float, default=240)
p.add_argument("--configs", default="")
p.add_argument("--tag", default="sweep_decode")
p.add_argument("--old-op", default="")
ARGS = p.parse_args()
sys.argv = ["bench", "--vllm-root", ARGS.vllm_root]
sys.path.insert(0, os.path.join(HERE, "..", "kernels"))
import bench_decode_page_contiguous as B  # noqa: E402
import torch  # noqa: E402

T0 = time.time()
DPC = B.DPC
OLD = None
if ARGS.old_op:
    spec = importlib.util.spec_from_file_location("old_dpc", ARGS.old_op)
    OLD = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(OLD)
res = {"environment": B.environment(), "rows": []}
res["ceilings"] = B.measure_ceilings(1 << 30)
print("ceilings", res["ceilings"], flush=True)
# (page, batch, seq_len) -> split counts tried.
SHAPES = {
    (832, 1, 8192): [16, 33, 66, 132],
    (832, 1, 32768): [33, 66, 132, 264],
    (832, 4, 16384): [8, 16, 33, 66],
    (832, 16, 8192): [1, 2, 4, 8],
    (832, 16, 32768): [1, 2, 3, 4, 6, 8, 12],
    (832, 64, 8192): [1, 2, 3],
}
TRITON_SHAPES = ((832, 1, 32768), (832, 16, 32768), (832, 64, 8192))
CONFIGS = [(32, 4, 3), (32, 4, 4), (32, 4, 2), (32, 8, 3), (64, 4, 2), (64, 4, 3),
           (64, 8, 2), (16, 4, 4), (16, 2, 4)]  # fmt: skip
if ARGS.configs:
    CONFIGS = [tuple(int(v) for v in c.split("/")) for c in ARGS.configs.split(",")]
    SHAPES = {s: [None] for s in ((832, 1, 32768), (832, 16, 32768), (832, 64, 8192), (832, 4, 16384))}
cases = {s: B.Case(*s) for s in SHAPES}
refs = {s: c.reference(1) for s, c in cases.items()}
read_gbps = res["ceilings"]["read_GBps"]


def rec(**kw) -> None:
    if "us" in kw:
        kw["pct_read"] = 100 * cases[kw["shape"]].bytes / kw["us"] / 1e3 / read_gbps
    res["rows"].append(kw)
    print(kw, flush=True)


for s, c in cases.items():
    o = c.out()
    rec(kernel="unified", shape=s, us=B.time_graph(c.unified(o), 20))
    if OLD is not None:
        o = c.out()
        fn = lambda: OLD.decode_page_contiguous(  # noqa: E731
            c.q, c.k_x, c.v_x, o, c.block_table, c.seq_lens, c.scale, workspace=c.workspace
        )
        rec(kernel="old", shape=s, us=B.time_graph(fn, 20))
for tile, warps, stages in CONFIGS:
    if time.time() - T0 > ARGS.budget_s:
        print("budget reached")
        break
    cfg = dict(TILE_SIZE=tile, num_warps=warps, num_stages=stages)
    DPC._launch_config = lambda *a, _c=cfg, **k: dict(_c)
    for layout in ("rocm", "triton"):
        for s, c in cases.items():
            if layout == "triton" and s not in TRITON_SHAPES:
                continue
            k, v = (c.k_x, c.v_x) if layout == "rocm" else (c.k_t, c.v_t)
            for ns in SHAPES[s]:
                o = c.out()
                fn = lambda: DPC.decode_page_contiguous(  # noqa: E731
                    c.q, k, v, o, c.block_table, c.seq_lens, c.scale,
                    workspace=c.workspace, num_splits=ns,
                )  # fmt: skip
                row = dict(kernel="new", cfg=(tile, warps, stages), layout=layout, shape=s, splits=ns)
                try:
                    t = B.time_graph(fn, 20)
                except Exception as e:  # noqa: BLE001 (out of resources)
                    rec(**row, error=repr(e)[:200])
                    torch.cuda.synchronize()
                    break
                rec(**row, us=t, rel_l2=B.rel_l2(o, refs[s]))
with open(os.path.join(ARGS.out_dir, f"{ARGS.tag}.json"), "w") as f:
    json.dump(res, f, indent=1, default=str)
