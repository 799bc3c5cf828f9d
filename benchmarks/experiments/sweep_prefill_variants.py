# SPDX-License-Identifier: Apache-2.0
"""One-off sweep behind paged_prefill_aligned's loop structure and tiles (H200).

    python3 benchmarks/experiments/sweep_prefill_variants.py VLLM_ROOT OUT_DIR

prefill_kernel_variants.py (next to this file) is the kernel as the queue had
it before this sweep, with two switches: KCOAL loads the x-packed K as
[head // x, tile, x] (coalesced, then permuted), HOIST reads the block table
once per page outside the tile loop. Each variant and tile config is timed on
a q=4096 chunk at contexts 12K/28K/0, page 832, with benchmarks/kernels/
bench_prefill_paged.py's case, reference and timing. The committed run is
benchmarks/results/prefill/sweep_variants_h200.json; the queue took HOIST
with 128x32 tiles, 8 warps, 3 stages.
"""

import importlib.util
import json
import os
import sys

root, out_dir = sys.argv[1], sys.argv[2]
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.abspath(root))
sys.path.insert(0, os.path.join(HERE, "..", "kernels"))
import bench_prefill_paged as P  # noqa: E402
import torch  # noqa: E402

spec = importlib.util.spec_from_file_location(
    "prefill_kernel_variants", os.path.join(HERE, "prefill_kernel_variants.py")
)
V = importlib.util.module_from_spec(spec)
spec.loader.exec_module(V)
res = {"ceilings": P.ceilings(), "rows": []}
print(res["ceilings"], flush=True)
CONFIGS = ((128, 64, 8, 3), (128, 64, 8, 2), (128, 32, 8, 3), (128, 32, 8, 4), (64, 64, 4, 3))
VARIANTS = [
    (kc, ho, cfg)
    for kc in (False, True)
    for ho in (False, True)
    for cfg in CONFIGS
    if not (ho and cfg == (128, 64, 8, 3))  # over the shared-memory limit
]
for ctx in (12288, 28672, 0):
    case = P.Case(4096, ctx, 832)
    out = torch.empty_like(case.query)
    ref = case.reference_rows(64)
    for kc, ho, (bm, bn, w, st) in VARIANTS:
        if ctx == 0 and (bm, bn, w, st) not in CONFIGS[:2]:
            continue
        fn = lambda: V.paged_prefill_aligned(  # noqa: E731
            case.query, case.rocm_k, case.rocm_v, out, case.block_table, case.seq_lens,
            case.scale, block_m=bm, block_n=bn, num_warps=w, num_stages=st,
            kcoal=kc, hoist=ho,
        )  # fmt: skip
        try:
            r = P.measure("var", fn, case, out, ref)
        except Exception as e:  # noqa: BLE001
            r = {"error": repr(e)[:200]}
        r.update(ctx=ctx, kcoal=kc, hoist=ho, cfg=(bm, bn, w, st))
        r["pct_mm"] = 100 * r.get("tflops", 0) / res["ceilings"]["bf16_matmul_tflops"]
        res["rows"].append(r)
        print(r, flush=True)
    case = out = None
    torch.cuda.empty_cache()
with open(os.path.join(out_dir, "sweep_prefill.json"), "w") as f:
    json.dump(res, f, indent=1, default=str)
