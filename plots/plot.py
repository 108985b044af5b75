"""Draws every figure from the results CSVs: per chapter a bar chart of the versions at its
headline size (rate and % of baseline) and a size sweep; per GPU one roofline of every version
of every chapter under the ceilings that chapter 00 measured. PNG and SVG.

usage: plot.py RESULTS_DIR OUT_DIR      (e.g. plots/results/h200 plots/figures/h200)
Prints one PASS or FAIL line per figure."""
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402

from common import (UNITS, chapter_of, headline, num, rate_column, read_csv,  # noqa: E402
                    result_files, size_key, size_label, sweep_rows)

plt.rcParams.update({"figure.dpi": 110, "font.size": 9, "svg.hashsalt": "kernel-ladder",
                     "axes.spines.top": False, "axes.spines.right": False})


def save(fig, out_dir, name):
    for ext in ("png", "svg"):
        meta = {"Date": None} if ext == "svg" else {"Software": None}
        fig.savefig(os.path.join(out_dir, f"{name}.{ext}"), bbox_inches="tight", metadata=meta)
    plt.close(fig)
    print(f"PASS figure {name}")


def gpu_name(results_dir):
    env = os.path.join(results_dir, "00-peaks.env.csv")
    for path in [env] + [p[:-4] + ".env.csv" for p in result_files(results_dir)]:
        if os.path.exists(path):
            return {r["key"]: r["value"] for r in read_csv(path)}.get("gpu", "")
    return ""


def bars(chapter, rows, out_dir, gpu):
    shown = [r for r in headline(chapter, rows) if r["ok"] != "no"]
    rate = rate_column(shown, chapter)
    if not shown or not rate:
        return
    labels = [f'{r["version"]}\n{r["idea"]}' for r in shown]
    values = [num(r, rate) or 0.0 for r in shown]
    pcts = [num(r, "pct_of_baseline") for r in shown]
    base = [r["version"] for r in shown if r.get("pct_of_baseline") in ("100", "100.0")]
    # ours are versions v0, v1, ...; baselines (memcpy, cublas, cub, peak) are grey
    colors = ["#3b6ea8" if r["version"][:1] == "v" and r["version"][1:2].isdigit() else "#9e9e9e"
              for r in shown]
    fig, ax = plt.subplots(figsize=(max(5, 0.75 * len(shown) + 1.5), 3.4))
    bar = ax.bar(range(len(shown)), values, color=colors)
    for b, p in zip(bar, pcts):
        if p is not None:
            ax.annotate(f"{p:.1f}%", (b.get_x() + b.get_width() / 2, b.get_height()),
                        ha="center", va="bottom", fontsize=8)
    ax.set_xticks(range(len(shown)), labels, fontsize=8)
    ax.set_ylabel(UNITS[rate])
    ref = base[0] if base else "baseline"
    ax.set_title(f"{chapter} at {size_label(shown[0])}, {gpu}: "
                 f"rate, and % of {ref} above each bar", fontsize=9)
    save(fig, out_dir, f"{chapter}-bars")


def sweep(chapter, rows, out_dir, gpu):
    rate = rate_column(headline(chapter, rows), chapter)
    rows = sweep_rows(chapter, rows)
    inputs = sorted({r.get("input", "") for r in rows}) or [""]
    rows = [r for r in rows if r.get("input", "") == inputs[0] and r["ok"] != "no"]
    rows = [r for r in rows if num(r, rate or "gbps") is not None]
    # square shapes only (8192 x 8192, 4096^3): odd and rectangular shapes have their tables,
    # and on one axis of element counts they would sit on top of the squares
    rows = [r for r in rows if len({d for d in (r["m"], r["n"], r["k"]) if d != "1"}) <= 1]
    sizes = sorted({size_key(r) for r in rows})
    if not rate or len(sizes) < 2:
        return
    fig, ax = plt.subplots(figsize=(6, 3.6))
    versions = list(dict.fromkeys(r["version"] for r in rows))
    for v in versions:
        pts = sorted((size_key(r), num(r, rate), size_label(r)) for r in rows
                     if r["version"] == v and num(r, rate))
        if pts:
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", ms=3,
                    label=v + " " + next(r["idea"] for r in rows if r["version"] == v))
    sizes = sorted({size_key(r) for r in rows})
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.yaxis.set_major_locator(matplotlib.ticker.LogLocator(subs=(1.0, 2.0, 5.0)))
    ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:,.0f}"))
    ax.set_xticks(sizes, [size_label(next(r for r in rows if size_key(r) == s)) for s in sizes],
                  rotation=30, fontsize=7, ha="right")
    ax.minorticks_off()
    ax.set_ylabel(UNITS[rate])
    ax.set_title(f"{chapter} over problem sizes, {gpu}" +
                 (f" (input {inputs[0]})" if inputs[0] else ""), fontsize=9)
    ax.legend(fontsize=7, ncol=2, frameon=False, bbox_to_anchor=(1.02, 1), loc="upper left")
    save(fig, out_dir, f"{chapter}-sweep")


def roofline(results_dir, out_dir, gpu):
    """Ceilings from 00-peaks: memory (memcpy GB/s) and FP32 FMA (GFLOP/s). Chapters that count
    no operations (a transpose only moves data) are placed on the memory roof at one
    'operation' per element moved (4 bytes read + 4 written)."""
    peaks_path = os.path.join(results_dir, "00-peaks.csv")
    if not os.path.exists(peaks_path):
        return
    peaks = read_csv(peaks_path)
    big = max(peaks, key=lambda r: size_key(r) if r["version"] == "memcpy" else -1)
    bw = num(big, "gbps")
    fma = next((num(r, "gflops") for r in peaks if r["version"] == "fma"), None)
    addmin = next((num(r, "gflops") for r in peaks if r["version"] == "addmin"), None)
    if not bw or not fma:
        return
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    xs = [2 ** e for e in range(-5, 11)]
    ax.plot(xs, [min(fma, bw * x) for x in xs], color="black", lw=1.2,
            label=f"memory {bw:.0f} GB/s, FP32 FMA {fma / 1e3:.1f} TFLOP/s")
    if addmin:
        ax.plot(xs, [min(addmin, bw * x) for x in xs], color="gray", lw=0.8, ls="--",
                label=f"add+min {addmin / 1e3:.1f} TOP/s")
    markers = "osD^v<>Ph*X"
    for i, path in enumerate(p for p in result_files(results_dir) if "00-peaks" not in p):
        chapter = chapter_of(path)
        rows = [r for r in headline(chapter, read_csv(path)) if r["ok"] == "yes"]
        pts = []
        for r in rows:
            gf, gb = num(r, "gflops"), num(r, "gbps")
            if gf and gb:
                pts.append((gf / gb, gf, r["version"]))
            elif gf and not gb:
                continue  # operations without a byte count: no intensity to place it at
            elif gb:
                pts.append((1 / 8, gb / 8, r["version"]))
        if pts:
            ax.scatter([p[0] for p in pts], [p[1] for p in pts], s=14, marker=markers[i % 11],
                       label=chapter)
            best = max(pts, key=lambda p: p[1])
            ax.annotate(best[2], (best[0], best[1]), fontsize=6, xytext=(3, 3),
                        textcoords="offset points")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("operations per byte of device memory traffic")
    ax.set_ylabel("G operations / s")
    ax.set_title(f"Every version under the ceilings measured by 00-peaks, {gpu}", fontsize=9)
    ax.legend(fontsize=7, frameon=False, loc="lower right")
    save(fig, out_dir, "roofline")


def main():
    results_dir, out_dir = sys.argv[1], sys.argv[2]
    os.makedirs(out_dir, exist_ok=True)
    gpu = gpu_name(results_dir)
    for path in result_files(results_dir):
        chapter, rows = chapter_of(path), read_csv(path)
        if not rows:
            print(f"FAIL {path}: no rows")
            continue
        bars(chapter, rows, out_dir, gpu)
        sweep(chapter, rows, out_dir, gpu)
    roofline(results_dir, out_dir, gpu)


if __name__ == "__main__":
    main()
