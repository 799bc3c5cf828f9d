# SPDX-License-Identifier: Apache-2.0
"""Session 40: prints the tables of this folder's README from calls 114 and
115's JSON files (each named after the GPU it ran on):

- `decode_heldout_short_<gpu>.json`: the op as built (v0.33.0 series) against
  unified_attention on held-out head shapes, batch 1-16, 64 tokens to 1K;
- `decode_tile_parts_<gpu>.json`: call 112's groups again, the op as built
  against no_tile_parts and unified_attention, 64 tokens to 32K;
- call 115 (`*_amended.json`): the same two runs on patch 21 as amended
  (tiles spread at head sizes up to 128 only).

    python3 benchmarks/results/decode_sweep/session40/summarize.py
"""

import glob
import json
import os
import statistics

HERE = os.path.dirname(os.path.abspath(__file__))
LENGTHS = ((64, 256, "64-256"), (512, 1024, "512-1K"), (32768, 32768, "32K"))


def runs(stem):
    for path in sorted(glob.glob(os.path.join(HERE, f"{stem}_*.json"))):
        gpu = os.path.basename(path)[len(stem) + 1 : -len(".json")]
        with open(path) as f:
            yield gpu, json.load(f)["points"]


def name(p):
    heads = "/".join(map(str, p["heads"]))
    return f"{heads} page {p['page']} batch {p['batch']} {p['seq_len']} tokens"


def ratio(p, key, of="today"):
    return p[f"{key}_us"] / p[f"{of}_us"]


def over(points, key, limit=1.02):
    for p in points:
        if ratio(p, key) > limit:
            print(
                f"  {name(p)}: {p[f'{key}_us']:.2f} us against {p['today_us']:.2f} "
                f"({ratio(p, key):.3f})"
            )


def table(points, keys, spans):
    """Per head size and length span: op/today range and median, and the
    count over 1.02x, for each variant in keys."""
    cols = "".join(f" | {k}: op/today, median, over 1.02x" for k in keys)
    print(f"points{cols}")
    for head in (128, 256):
        for lo, hi, label in spans:
            rows = [p for p in points if p["heads"][2] == head and lo <= p["seq_len"] <= hi]
            if not rows:
                continue
            line = f"head {head}, {label} ({len(rows)})"
            for k in keys:
                r = [ratio(p, k) for p in rows]
                line += (
                    f" | {min(r):.3f}-{max(r):.3f}, {statistics.median(r):.3f}, "
                    f"{sum(x > 1.02 for x in r)}"
                )
            print(line)


def errors(points, keys):
    l2 = max(p[f"{k}_rel_l2"] for p in points for k in keys)
    nan = any(p[f"{k}_rel_l2"] != p[f"{k}_rel_l2"] for p in points for k in keys)
    print(f"max rel. L2 error {l2:.2e}, NaN: {nan}")


def main():
    for gpu, points in runs("decode_heldout_short"):
        print(f"\n## held-out shapes ({gpu}): {len(points)} points")
        table(points, ["base"], ((64, 256, "64-256"), (1024, 1024, "1K")))
        for batch in sorted({p["batch"] for p in points}):
            r = [ratio(p, "base") for p in points if p["batch"] == batch]
            print(
                f"batch {batch}: {min(r):.3f}-{max(r):.3f}, over 1.02x: {sum(x > 1.02 for x in r)}"
            )
        print("over 1.02x:")
        over(points, "base")
        errors(points, ["base"])
    for gpu, points in runs("decode_tile_parts"):
        print(f"\n## call 112's groups ({gpu}): {len(points)} points")
        table(points, ["base", "no_tile_parts"], LENGTHS)
        for k in ("no_tile_parts", "base"):
            print(f"{k} over 1.02x:")
            over(points, k)
        errors(points, ["base", "no_tile_parts"])
        if "_amended" not in gpu:
            # Patch 21 as amended after call 114: tiles spread at head 128
            # only, so head 256 runs what no_tile_parts ran.
            r = [ratio(p, "base" if p["heads"][2] == 128 else "no_tile_parts") for p in points]
            print(
                f"as amended (parts at head 128 only): op/today {min(r):.3f}-{max(r):.4f}, "
                f"over 1.02x: {sum(x > 1.02 for x in r)}"
            )


if __name__ == "__main__":
    main()
