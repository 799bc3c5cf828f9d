# SPDX-License-Identifier: Apache-2.0
"""Session 38, call 110 (H100): the op with tile parts in batches of one or
two programs (parts_few2, what v0.33.0 patch 21 / v0.29.0 patch 22 ship)
and without (base), against unified_attention. Prints the table of the
patch message and the points over 1.02x, and writes decode_tile_parts.png
(needs matplotlib).

    python3 benchmarks/results/decode_sweep/session38/summarize_parts.py
"""

import json
import os
import statistics

HERE = os.path.dirname(os.path.abspath(__file__))
RUN = "decode_parts2_h100.json"
ROWS = [
    ("head 128, 64-256", lambda p: p["heads"][2] == 128 and p["seq_len"] <= 256),
    ("head 256, 64-256", lambda p: p["heads"][2] == 256 and p["seq_len"] <= 256),
    ("head 128, 512-4K", lambda p: p["heads"][2] == 128 and 512 <= p["seq_len"] <= 4096),
    ("head 256, 512-4K", lambda p: p["heads"][2] == 256 and 512 <= p["seq_len"] <= 4096),
    ("32K tokens", lambda p: p["seq_len"] == 32768),
]


def main():
    with open(os.path.join(HERE, RUN)) as f:
        points = json.load(f)["points"]
    print(f"{len(points)} points (call 110, H100)")
    print(f"{'':22} {'with / without':>22} {'over 1.02x: without':>20} {'with':>5}")
    for name, sel in ROWS:
        rows = [p for p in points if sel(p)]
        rel = [p["parts_few2_us"] / p["base_us"] for p in rows]
        before = sum(p["base_us"] / p["today_us"] > 1.02 for p in rows)
        after = sum(p["parts_few2_us"] / p["today_us"] > 1.02 for p in rows)
        print(
            f"{name:22} {min(rel):.2f}-{max(rel):.2f}, median {statistics.median(rel):.2f}"
            f" {before:>12} {after:>10}"
        )
    for key in ("base", "parts_few2"):
        over = [p for p in points if p[f"{key}_us"] / p["today_us"] > 1.02]
        print(f"{key} over 1.02x:")
        for p in over:
            print(
                f"  {'/'.join(map(str, p['heads']))} page {p['page']} batch {p['batch']} "
                f"{p['seq_len']} tokens: {p[f'{key}_us'] / p['today_us']:.3f}"
            )
    print("max rel. L2 error:", max(max(p["base_rel_l2"], p["parts_few2_rel_l2"]) for p in points))
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    short = [p for p in points if p["seq_len"] <= 256]
    short.sort(key=lambda p: (p["heads"][2], p["heads"][1], p["page"], p["batch"], p["seq_len"]))
    x = range(len(short))
    fig, ax = plt.subplots(figsize=(14, 4.5))
    for key, label, marker in (("base", "without tile parts", "o"), ("parts_few2", "with (patch)", "x")):
        ax.plot(x, [p[f"{key}_us"] / p["today_us"] for p in short], marker, ms=4, label=label)
    ax.axhline(1.02, color="r", lw=0.8, ls="--", label="1.02")
    ax.axhline(1.0, color="k", lw=0.5)
    ax.set_ylabel("op / unified_attention time")
    ax.set_xlabel("point: heads / page / batch (1-2) / 64-256 tokens, sorted by head size")
    ax.set_title("Batches of one or two programs, 64-256 tokens, H100 (call 110)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(HERE, "decode_tile_parts.png"), dpi=110)


if __name__ == "__main__":
    main()
