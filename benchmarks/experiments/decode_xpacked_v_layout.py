# SPDX-License-Identifier: Apache-2.0
"""ROCM_ATTN's x-packed cache on an H200: what holds the op below 90% of the
read bandwidth there (session 11)?

Session 8 (decode_xpacked_k_load.py) found the K load's sector use is not it.
This times, on the x-packed cache, the op as built against:

  xv_contig, xk_contig, xkv_contig
      each (block, KV head) region of V, K or both read as [page, head]
      rows (512 contiguous bytes per token at head 256) instead of the
      layout's [head, page] / [head // 8, page, 8]: the same bytes per
      page, so the read bandwidth the op would reach if only the order
      within a page changed. Timing only (the outputs are wrong).
  v_trans     V loaded in its stored order [head, tile] and transposed
  x_t128w8s1, x_t64w8s2, x_t32w4s4, x_t128w8s1_vt
              other tiles/warps/stages on the x-packed layout (128-token
              tiles: 256-byte V runs instead of 128)
  splits2x, splits4x
              twice / four times the splits (more loads in flight)

    python3 benchmarks/experiments/decode_xpacked_v_layout.py --vllm-root BUNDLE --out-dir OUT

Same method as decode_short_context_variants.py (CUDA graph of up to 16
calls on distinct block tables, L2 flushed before every replay), with the
read bandwidth measured in the same run. Writes
OUT/decode_xpacked_v_layout.json.
"""

from __future__ import annotations

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "kernels"))
from decode_xpacked_k_load import run_with_read_bandwidth  # noqa: E402


def main(argv=None):
    variants = [
        "base", "xv_contig", "xk_contig", "xkv_contig", "v_trans", "x_t128w8s1",
        "x_t64w8s2", "x_t32w4s4", "x_t128w8s1_vt", "splits2x", "splits4x",
    ]  # fmt: skip
    defaults = [
        "--groups", "rocm:24/4/256:832,rocm:16/2/256:832,rocm:32/8/128:832",
        "--batches", "4,16,64", "--seq-lens", "16384,32768",
        "--max-tokens", str(1 << 21), "--variants", ",".join(variants),
    ]  # fmt: skip
    return run_with_read_bandwidth(argv, defaults, "decode_xpacked_v_layout.json")


if __name__ == "__main__":
    sys.exit(main())
