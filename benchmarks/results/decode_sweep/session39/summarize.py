# SPDX-License-Identifier: Apache-2.0
"""Session 39: prints the tables of this folder's README.

- call 112 (`decode_tile_parts_h100.json`): the op as built (v0.33.0 patch 21:
  tile parts in batches of one or two programs) against `no_tile_parts` (the
  same op, its config spreading nothing) and unified_attention;
- call 112 (`decode_tile_parts_fp16.json`): the page sweep's bench in fp16;
- call 113 (`decode_heldout_short_h100.json`, when present): the op as built
  on held-out head shapes, 64 tokens to 2K.

    python3 benchmarks/results/decode_sweep/session39/summarize.py
"""

import json
import os
import statistics

HERE = os.path.dirname(os.path.abspath(__file__))
LENGTHS = ((64, 256, "64-256"), (512, 1024, "512-1K"), (32768, 32768, "32K"))


def load(name):
    path = os.path.join(HERE, name)
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def name(p):
    return f"{'/'.join(map(str, p['heads']))} page {p['page']} batch {p['batch']} {p['seq_len']} tokens"


def tile_parts(points):
    print(f"call 112: {len(points)} points, op as built (with) and no_tile_parts (without)")
    print(f"{'':18} {'with / without':>24} {'over 1.02x of today: without':>30} {'with':>5}")
    for head in (128, 256):
        for lo, hi, label in LENGTHS:
            rows = [p for p in points if p["heads"][2] == head and lo <= p["seq_len"] <= hi]
            rel = [p["base_us"] / p["no_tile_parts_us"] for p in rows]
            before = sum(p["no_tile_parts_us"] / p["today_us"] > 1.02 for p in rows)
            after = sum(p["base_us"] / p["today_us"] > 1.02 for p in rows)
            print(
                f"head {head}, {label:7} {min(rel):.3f}-{max(rel):.3f}, median "
                f"{statistics.median(rel):.3f} {before:>14} {after:>16}"
            )
    for key, label in (("no_tile_parts", "without"), ("base", "with")):
        ratios = [p[f"{key}_us"] / p["today_us"] for p in points]
        print(f"{label}: op/today {min(ratios):.3f}-{max(ratios):.3f}; over 1.02x:")
        for p in points:
            if p[f"{key}_us"] / p["today_us"] > 1.02:
                print(f"  {name(p)}: {p[f'{key}_us'] / p['today_us']:.3f}")
    l2 = max(max(p["base_rel_l2"], p["no_tile_parts_rel_l2"]) for p in points)
    print(f"max rel. L2 error: {l2:.2e}")


def fp16(points):
    routed = [p for p in points if p["routed"]]
    ratios = [p["ratio"] for p in routed]
    print(
        f"fp16 (page sweep bench): {len(routed)} routed points, op/today "
        f"{min(ratios):.3f}-{max(ratios):.3f}, over 1.02x: {sum(r > 1.02 for r in ratios)}, "
        f"max rel. L2 {max(p['op_rel_l2'] for p in routed):.2e}, "
        f"NaN: {any(p['op_nan'] for p in routed)}"
    )


def heldout(points):
    ratios = [p["base_us"] / p["today_us"] for p in points]
    print(f"call 113: {len(points)} points, op/today {min(ratios):.3f}-{max(ratios):.3f}")
    print(f"{'':14} {'points':>6} {'op/today':>14} {'median':>7} {'over 1.02x':>11}")
    for head in (128, 256):
        for lo, hi, label in ((64, 256, "64-256"), (1024, 1024, "1K")):
            rows = [p for p in points if p["heads"][2] == head and lo <= p["seq_len"] <= hi]
            r = [p["base_us"] / p["today_us"] for p in rows]
            print(
                f"head {head}, {label:6} {len(r):>4} {min(r):>8.3f}-{max(r):.3f} "
                f"{statistics.median(r):>6.3f} {sum(x > 1.02 for x in r):>8}"
            )
    print("over 1.02x:")
    for p in points:
        if p["base_us"] / p["today_us"] > 1.02:
            print(
                f"  {name(p)}: {p['base_us']:.2f} us against {p['today_us']:.2f} "
                f"({p['base_us'] / p['today_us']:.3f})"
            )
    print(f"max rel. L2 error: {max(p['base_rel_l2'] for p in points):.2e}")


def main():
    tile_parts(load("decode_tile_parts_h100.json")["points"])
    fp16(load("decode_tile_parts_fp16.json")["points"])
    run = load("decode_heldout_short_h100.json") or load("decode_heldout_short_h200.json")
    if run is not None:
        heldout(run["points"])


if __name__ == "__main__":
    main()
