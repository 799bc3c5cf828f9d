# SPDX-License-Identifier: Apache-2.0
"""paged_prefill_aligned's sm_90 tile configs on the NHD layout (session 9, issue 14).

The sm_90 table was timed at head 256 on the x-packed layout only. For each
head shape this times, on one q=4096 chunk after 12288 cached tokens at page
832, the kernel's default config on both layouts and a set of candidate
(BLOCK_M, BLOCK_N, warps, stages) configs on the layouts --layouts names
(NHD by default), with bench_prefill_paged.py's case, fp32 reference rows
and timing. Configs that do not compile or launch are recorded with their
error.

    python3 benchmarks/experiments/sweep_prefill_nhd_configs.py --out OUT

Writes OUT/sweep_prefill_nhd_configs.json.
"""

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "kernels"))
import bench_prefill_paged as P  # noqa: E402
import torch  # noqa: E402

SHOWN = ("heads", "layout", "config", "ms", "tflops", "rel_l2_vs_fp32", "error")
CANDIDATES = [
    (128, 32, 8, 3), (128, 32, 8, 2), (128, 64, 8, 3), (128, 64, 8, 2),
    (64, 32, 8, 3), (64, 64, 8, 3), (64, 32, 4, 3), (64, 64, 4, 3),
    (128, 32, 4, 3), (128, 64, 4, 2),
]  # fmt: skip


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", required=True)
    p.add_argument("--heads", default="24/4/256,32/8/128,32/8/64")
    p.add_argument("--layouts", default="nhd", help="nhd and/or x-packed, for the candidates")
    args = p.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    result = {"environment": P.common.environment(), "rows": []}
    for heads in args.heads.split(","):
        P.NUM_HEADS, P.NUM_KV_HEADS, P.HEAD_SIZE = (int(v) for v in heads.split("/"))
        case = P.Case(4096, 12288, 832)
        out = torch.empty_like(case.query)
        ref = case.reference_rows(64)
        runs = [("default", None, False), ("default", None, True)]
        keys = ("block_m", "block_n", "num_warps", "num_stages")
        for layout in args.layouts.split(","):
            runs += [(c, dict(zip(keys, c)), layout == "nhd") for c in CANDIDATES]
        for label, cfg, nhd in runs:
            try:
                fn = P.run_aligned(case, out, cfg, nhd=nhd)
                row = P.measure(
                    "aligned_triton_nhd" if nhd else "aligned_triton", fn, case, out, ref
                )
            except Exception as e:  # out of shared memory and the like
                row = {"heads": heads, "error": f"{type(e).__name__}: {str(e)[:200]}"}
            row["config"] = label if label == "default" else list(label)
            row["layout"] = "nhd" if nhd else "x-packed"
            print(json.dumps({k: row.get(k) for k in SHOWN}), flush=True)
            result["rows"].append(row)
        P.run_aligned(case, out, None)  # restore the module's launch config
        del case, out
        torch.cuda.empty_cache()
    with open(os.path.join(args.out, "sweep_prefill_nhd_configs.json"), "w") as f:
        json.dump(result, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
