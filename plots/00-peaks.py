"""Chapter 00's own figure: each ceiling the chapter measures, as a share of what the datasheet
allows per clock per SM (the arithmetic and shared-memory rows), with its rate written beside
it; the copies, which have no per-SM datasheet figure, with their rate alone. Every ceiling has
its own unit, so the bars compare shares, not rates. The first run in the CSV is drawn (the
reps of the headline run).

usage: 00-peaks.py CSV OUT_DIR   ->   OUT_DIR/00-peaks-ceilings.svg and .png"""
import os
import sys

from common import gpu_of, num, read_csv
from style import plt, save

UNIT = {"gbps": ("GB/s", 1.0), "gflops": ("TFLOP/s", 1e3)}


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    path, out_dir = sys.argv[1], sys.argv[2]
    rows = read_csv(path)
    if not rows:
        print("no rows in", path)
        return 1
    first = [r for r in rows if r["reps"] == rows[0]["reps"] and r["ok"] != "no"]
    fig, ax = plt.subplots(figsize=(6.8, 0.42 * len(first) + 1.1))
    for y, r in zip(range(len(first))[::-1], first):
        col = "gflops" if num(r, "gflops") else "gbps"
        unit, scale = UNIT[col]
        if r["version"] == "addmin":
            unit = "T operations/s (an add and a min count as two)"
        if r["extra_name"] == "results_per_clk_per_sm":  # sinf, __sinf, expf...: one result a call
            unit = "T results/s"
        rate = f"{num(r, col) / scale:,.1f} {unit}" if scale != 1 else f"{num(r, col):,.0f} {unit}"
        pct = num(r, "pct_of_baseline")
        per = r["extra_name"].replace("_per_clk_per_sm", "").replace("_", " ")
        if pct is not None:
            ax.barh(y, pct, height=0.6, color="#3a6f8f")
            text = f"{pct:.1f}%: {rate}, {num(r, 'extra_value'):.1f} {per} a clock an SM"
            ax.annotate(text, (pct, y), xytext=(4, 0), textcoords="offset points", va="center",
                        fontsize=7, bbox=dict(facecolor="white", edgecolor="none", pad=0.2))
        else:
            ax.annotate(f"no per-SM datasheet figure: {rate}", (0, y), xytext=(4, 0),
                        textcoords="offset points", va="center", fontsize=7, color="#444444")
    ax.set_yticks(range(len(first))[::-1], [f"{r['version']} ({r['idea']})" for r in first],
                  fontsize=8)
    ax.set_xlim(0, 160)
    ax.set_xticks([0, 25, 50, 75, 100])
    ax.axvline(100, color="black", lw=0.8, ls=(0, (4, 2)))
    ax.set_xlabel("% of the datasheet's figure per clock per SM")
    ax.set_title(f"The ceilings chapter 00 measures, {gpu_of(path)}", fontsize=9)
    os.makedirs(out_dir, exist_ok=True)
    save(fig, out_dir, "00-peaks-ceilings")
    return 0


if __name__ == "__main__":
    sys.exit(main())
