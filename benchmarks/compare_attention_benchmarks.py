# SPDX-License-Identifier: Apache-2.0
"""Side by side: vLLM's own attention benchmark (benchmarks/attention_benchmarks/
benchmark.py --output-json) run on the release and on the series, one JSON per
tree and shape, named release-SHAPE.json and series-SHAPE.json in one folder.

    python3 benchmarks/compare_attention_benchmarks.py DIR

Writes DIR/attention_benchmarks.json (every pair: the batch spec, both median
times per layer, the ratio), DIR/attention_benchmarks.png (the ratio per batch
spec, one panel per shape) and prints a Markdown table. No GPU needed.
"""

from __future__ import annotations

import glob
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402


def load(path: str) -> dict[str, dict]:
    return {r["config"]["batch_spec"]: r for r in json.load(open(path))}


def main(folder: str) -> None:
    rows = []
    for series in sorted(glob.glob(os.path.join(folder, "series-*.json"))):
        shape = os.path.basename(series)[len("series-") : -len(".json")]
        release = os.path.join(folder, f"release-{shape}.json")
        if not os.path.exists(release):
            continue
        base, new = load(release), load(series)
        for spec, b in base.items():
            n = new.get(spec)
            if n is None or b["error"] or n["error"]:
                err = (b["error"] or (n or {}).get("error") or "missing")[:80]
                rows.append({"shape": shape, "batch_spec": spec, "error": err})
                continue
            rows.append(
                {
                    "shape": shape,
                    "batch_spec": spec,
                    "release_ms": b["median_time"] * 1e3,
                    "series_ms": n["median_time"] * 1e3,
                    "ratio": n["median_time"] / b["median_time"],
                }
            )
    json.dump(rows, open(os.path.join(folder, "attention_benchmarks.json"), "w"), indent=1)
    print("| shape (q/kv/head-page) | batch spec | release ms/layer | series ms/layer | ratio |")
    print("| --- | --- | ---: | ---: | ---: |")
    for r in rows:
        if "error" in r:
            print(f"| {r['shape']} | `{r['batch_spec']}` | error: {r['error']} | | |")
        else:
            print(
                f"| {r['shape']} | `{r['batch_spec']}` | {r['release_ms']:.3f} | "
                f"{r['series_ms']:.3f} | {r['ratio']:.2f}x |"
            )
    png = os.path.join(folder, "attention_benchmarks.png")
    plt = common.pyplot(png)
    ok = [r for r in rows if "ratio" in r]
    if plt is None or not ok:
        return
    shapes = sorted({r["shape"] for r in ok})
    fig, axes = plt.subplots(1, len(shapes), figsize=(4 * len(shapes), 3.5), squeeze=False)
    for ax, shape in zip(axes[0], shapes):
        pts = [r for r in ok if r["shape"] == shape]
        ax.bar(range(len(pts)), [r["ratio"] for r in pts])
        ax.axhline(1.0, color="k", lw=0.8)
        ax.set_xticks(range(len(pts)), [r["batch_spec"] for r in pts], rotation=60, fontsize=7)
        ax.set_title(shape, fontsize=9)
        ax.set_ylabel("series / release time")
    fig.tight_layout()
    fig.savefig(png, dpi=120)


if __name__ == "__main__":
    main(sys.argv[1])
