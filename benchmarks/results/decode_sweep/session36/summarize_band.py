"""Calls 101 and 102: the op's time over unified_attention's on TRITON_ATTN's
layout against the grid's programs per SM (one program per sequence and KV
head; 132 SMs on both GPUs), pages 16 and 32. Prints the table the commit of
decode_grid_stays_on_unified_attention quotes and draws decode_band.png.

python3 summarize_band.py   (from this folder; matplotlib for the plot)
"""

import json

NUM_SMS = 132
RUNS = [  # (file, KV heads, GPU)
    ("decode_band_h16_h100.json", 2, "H100"),
    ("decode_band_h24_h100.json", 4, "H100"),
    ("decode_band_h16_h200.json", 2, "H200"),
    ("decode_band_h24_h200.json", 4, "H200"),
    ("decode_band_h8_256_h200.json", 2, "H200"),
    ("decode_band_h32_128_h200.json", 8, "H200"),
]
# Grids of more than 3 and at most 4 programs per SM: the band the rule keeps
# on unified_attention (head 256, 32-token pages).
BANDS = [(0, 396, "<= 3 per SM"), (396, 528, "3-4 per SM (the band)"), (528, 10**9, "> 4 per SM")]


def rows():
    for name, kv_heads, gpu in RUNS:
        for p in json.load(open(name))["points"]:
            yield {
                "gpu": gpu,
                "heads": "/".join(map(str, p["heads"])),
                "page": p["page"],
                "programs": p["batch"] * kv_heads,
                "seq_len": p["seq_len"],
                "ratio": p["base_us"] / p["today_us"],
            }


def main():
    points = list(rows())
    for gpu in ("H100", "H200"):
        for heads in sorted({p["heads"] for p in points if p["gpu"] == gpu}):
            for page in (32, 16):
                print(f"{gpu} {heads} page {page}")
                for lo, hi, label in BANDS:
                    sel = [
                        p["ratio"]
                        for p in points
                        if (p["gpu"], p["heads"], p["page"]) == (gpu, heads, page)
                        and lo < p["programs"] <= hi
                    ]
                    if sel:
                        over = sum(r > 1.02 for r in sel)
                        print(
                            f"  {label:22s} {len(sel):3d} points "
                            f"{min(sel):.3f}-{max(sel):.3f}, over 1.02x: {over}"
                        )
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("no matplotlib: no plot")
        return
    groups = sorted({(p["gpu"], p["heads"]) for p in points})
    fig, axes = plt.subplots(2, len(groups), figsize=(3.2 * len(groups), 6), sharey=True)
    for col, (gpu, heads) in enumerate(groups):
        for row, page in enumerate((32, 16)):
            ax = axes[row][col]
            for seq_len in sorted({p["seq_len"] for p in points}):
                sel = sorted(
                    (p["programs"] / NUM_SMS, p["ratio"])
                    for p in points
                    if (p["gpu"], p["heads"], p["page"], p["seq_len"])
                    == (gpu, heads, page, seq_len)
                )
                if sel:
                    ax.plot(*zip(*sel), marker=".", label=f"{seq_len} tok")
            ax.axvspan(3, 4, color="grey", alpha=0.2)
            ax.axhline(1.0, color="black", lw=0.8)
            ax.axhline(1.02, color="red", lw=0.8, ls="--")
            ax.set_title(f"{gpu} {heads} page {page}", fontsize=9)
            ax.set_xlabel("programs per SM")
            if col == 0:
                ax.set_ylabel("op / unified_attention")
    axes[0][0].legend(fontsize=7)
    fig.suptitle(
        "decode_page_contiguous / unified_attention, TRITON_ATTN layout, bf16 "
        "(grey: the band kept on unified_attention at head 256, page 32)",
        fontsize=10,
    )
    fig.tight_layout()
    fig.savefig("decode_band.png", dpi=110)
    print("wrote decode_band.png")


if __name__ == "__main__":
    main()
