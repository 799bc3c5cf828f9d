"""Summary of call 98's page sweep and its rest run, as the README quotes it.

python3 summarize_final.py   (from this folder)
"""

import json


def key(p):
    return (p["layout"], tuple(p["heads"]), p["page"], p["batch"], p["seq_len"])


first = json.load(open("decode_page_sweep_final.json"))["points"]
rest = json.load(open("decode_page_sweep_final_rest.json"))["points"]
have = {key(p) for p in first}
points = first + [p for p in rest if key(p) not in have]
print("points", len(points))
for layout in ("triton", "rocm"):
    mine = [p for p in points if p["layout"] == layout]
    routed = [p for p in mine if p["routed"] and not p.get("hip_kernel_on_rocm")]
    ratios = [p["ratio"] for p in routed]
    print(
        f"{layout}: routed {len(routed)}, op/today {min(ratios):.4f}-{max(ratios):.3f}, "
        f"over 1.02x {sum(r > 1.02 for r in ratios)}; not routed "
        f"{sum(not p['routed'] for p in mine)}; ROCm's HIP kernel's "
        f"{sum(bool(p.get('hip_kernel_on_rocm')) for p in mine)}"
    )
    for name, pages in (("16", {16}), ("32", {32}), (">=64", None)):
        sel = [p["ratio"] for p in routed if (p["page"] in pages if pages else p["page"] >= 64)]
        print(f"  page {name}: {len(sel)} points, {min(sel):.4f}-{max(sel):.3f}")
    for p in sorted(routed, key=lambda p: -p["ratio"])[:4]:
        print(f"  {p['heads']} page {p['page']} B={p['batch']} L={p['seq_len']}: {p['ratio']:.3f}, "
              f"op {p['op_pct_read']:.0f}% of read bandwidth")  # fmt: skip
errors = [p["op_rel_l2"] for p in points if p.get("op_rel_l2") is not None]
nans = sum(bool(p.get("op_nan")) for p in points)
print(f"op rel. L2 error at most {max(errors):.2e} over {len(errors)} points, NaN {nans}")
