# SPDX-License-Identifier: Apache-2.0
"""When should TRITON_ATTN split a mixed batch? Per-step evidence from replays.

Reads replay_scheduler.py JSONs (variants upstream_triton and series_triton
at the same page, the series splitting every mixed batch: decode rows to
decode_page_contiguous, prefill rows to unified_attention; upstream running
the whole batch through unified_attention) and, for every mixed step, sets
the series' time / upstream's against the step's shape: the longest decode
row's length over the longest prefill row's (context plus chunk), the number
of decode rows and the prefill tokens. Then evaluates candidate rules: a
rule's step time is the series' where the rule splits and upstream's where
it keeps the batch whole (the same code as upstream there). Writes a JSON
(each rule on each replay) and a PNG (ratio against the length ratio, one
panel per replay). A replay JSON may be gzipped.

    python3 benchmarks/experiments/mixed_split_rule.py --out-dir OUT REPLAY_JSON [REPLAY_JSON ...]
"""

import argparse
import gzip
import json
import os
import sys

RATIOS = (1.5, 2, 3, 4, 5, 6, 8)


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("replays", nargs="+")
    p.add_argument("--out-dir", required=True)
    p.add_argument("--label", action="append", help="one per replay (default: its folder)")
    return p.parse_args(argv)


def mixed_steps(path: str) -> list[dict]:
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        d = json.load(f)
    out = []
    for trace, steps in d["steps"].items():
        for st in steps:
            dec = [r for r in st["rows"] if r[3]]
            pre = [r for r in st["rows"] if not r[3]]
            if not dec or not pre:
                continue
            us = st["us_per_layer"]
            longest_decode = max(c + q for _, q, c, _ in dec)
            longest_prefill = max(c + q for _, q, c, _ in pre)
            out.append({
                "trace": trace, "step": st["step"], "weight": st["weight"],
                "decode_rows": len(dec), "prefill_tokens": sum(q for _, q, _, _ in pre),
                "longest_decode": longest_decode, "longest_prefill": longest_prefill,
                "length_ratio": longest_decode / longest_prefill,
                "split_us": us["series_triton"], "whole_us": us["upstream_triton"],
            })  # fmt: skip
    return out


def evaluate(steps: list[dict], split) -> dict:
    chosen = [s["split_us"] if split(s) else s["whole_us"] for s in steps]
    ratios = [t / s["whole_us"] for t, s in zip(chosen, steps)]
    total = sum(t * s["weight"] for t, s in zip(chosen, steps))
    whole = sum(s["whole_us"] * s["weight"] for s in steps)
    return {
        "split_steps": sum(1 for s in steps if split(s)), "steps": len(steps),
        "total_over_whole": total / whole, "best": min(ratios), "worst": max(ratios),
        "over_1_02": sum(1 for r in ratios if r > 1.02),
    }  # fmt: skip


def main(argv=None) -> int:
    args = parse_args(argv)
    labels = args.label or [
        os.path.basename(os.path.dirname(os.path.abspath(p))) for p in args.replays
    ]
    if len(labels) != len(args.replays):
        raise SystemExit("give one --label per replay, or none")
    os.makedirs(args.out_dir, exist_ok=True)
    sets = {lab: mixed_steps(p) for lab, p in zip(labels, args.replays)}
    rules = {"always": lambda s: True, "never": lambda s: False}
    for k in RATIOS:
        rules[f"longest decode > {k} x longest prefill"] = lambda s, k=k: s["length_ratio"] > k
    result = {"replays": dict(zip(labels, args.replays)), "rules": {}}
    for name, rule in rules.items():
        result["rules"][name] = {lab: evaluate(steps, rule) for lab, steps in sets.items()}
        print(f"{name:38s} " + " | ".join(
            f"{lab}: {r['split_steps']}/{r['steps']} split, total {r['total_over_whole']:.3f}, "
            f"{r['best']:.2f}-{r['worst']:.3f}, {r['over_1_02']} over 1.02"
            for lab, r in result["rules"][name].items()))  # fmt: skip
    with open(os.path.join(args.out_dir, "mixed_split_rule.json"), "w") as f:
        json.dump(result, f, indent=1)
    try:
        import matplotlib
    except ImportError:
        print("matplotlib is not installed: no PNG")
        return 0
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(sets), figsize=(4.5 * len(sets), 4), squeeze=False)
    for ax, (lab, steps) in zip(axes[0], sets.items()):
        sc = ax.scatter(
            [s["length_ratio"] for s in steps], [s["split_us"] / s["whole_us"] for s in steps],
            c=[s["decode_rows"] for s in steps], s=8, cmap="viridis",
        )  # fmt: skip
        ax.set_xscale("log")
        ticks = [0.5, 1, 2, 4, 8]
        ax.set_xticks(ticks, [str(t) for t in ticks])
        ax.minorticks_off()
        ax.axhline(1.0, color="k", lw=0.6)
        ax.axvline(5, color="r", lw=0.6, ls="--")
        ax.set_xlabel("longest decode row / longest prefill row")
        ax.set_title(lab, fontsize=9)
        fig.colorbar(sc, ax=ax, label="decode rows")
    axes[0][0].set_ylabel("split / whole step time")
    fig.suptitle(
        "TRITON_ATTN mixed steps: decode rows split off to the op vs the whole batch in unified_attention"
    )
    fig.tight_layout()
    fig.savefig(os.path.join(args.out_dir, "mixed_split_rule.png"), dpi=110)
    return 0


if __name__ == "__main__":
    sys.exit(main())
