# SPDX-License-Identifier: Apache-2.0
"""Sessions 36-37 short-context runs side by side: op / unified_attention
time per point (batch 1-4, 64-256 tokens, TRITON_ATTN's layout) on an H200
and an H100, plainly and after the KV-cache write. Prints the points over
1.02x and writes decode_short_gpus.png (needs matplotlib).

    python3 benchmarks/results/decode_sweep/session37/summarize_short.py
"""

import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
RUNS = {
    "H200 plain (call 99)": "../session36/decode_short_rounds5_plain_h200.json",
    "H200 after cache write (call 106)": "decode_short_rounds5_cache_write_h200.json",
    "H100 plain (call 105)": "decode_short_rounds5_plain_h100.json",
    "H100 after cache write (call 105)": "decode_short_rounds5_cache_write_h100.json",
    "H100 after cache write (call 106)": "decode_short_rounds5_cache_write_h100_call106.json",
}


def ratios(path):
    with open(os.path.join(HERE, path)) as f:
        points = json.load(f)["points"]
    return {
        ("/".join(map(str, p["heads"])), p["page"], p["batch"], p["seq_len"]): (
            p["base_us"] / p["today_us"],
            p["base_us"] - p["today_us"],
        )
        for p in points
    }


def main():
    runs = {name: ratios(path) for name, path in RUNS.items()}
    keys = sorted(next(iter(runs.values())))
    for name, r in runs.items():
        over = sorted((k, v) for k, v in r.items() if v[0] > 1.02)
        print(
            f"{name}: {len(r)} points, {min(v[0] for v in r.values()):.3f}-"
            f"{max(v[0] for v in r.values()):.3f}, over 1.02x: {len(over)}"
        )
        for k, (ratio, diff) in over:
            print(
                f"    {k[0]} page {k[1]} batch {k[2]} {k[3]} tokens: {ratio:.3f} (+{diff:.2f} us)"
            )
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    fig, ax = plt.subplots(figsize=(14, 5))
    for i, (name, r) in enumerate(runs.items()):
        ax.scatter(range(len(keys)), [r[k][0] for k in keys], s=9, label=name, marker="os^vD"[i])
    ax.axhline(1.02, color="red", lw=0.8)
    ax.set_xticks([i for i, k in enumerate(keys) if k[2:] == (1, 64)])
    ax.set_xticklabels(
        [f"{k[0]} p{k[1]}" for k in keys if k[2:] == (1, 64)], rotation=90, fontsize=7
    )
    ax.set_ylabel("op / unified_attention time")
    ax.set_title("Batch 1-4, 64-256 tokens (per group: batch-major, then length)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(HERE, "decode_short_gpus.png"), dpi=110)


if __name__ == "__main__":
    main()
