"""Draws every figure from the results CSVs: per chapter a bar chart of the versions at its
headline size (rate and % of baseline) and a size sweep; per GPU one roofline of every version
of every chapter under the ceilings that chapter 00 measured. PNG and SVG.

usage: plot.py RESULTS_DIR OUT_DIR      (e.g. plots/results/h200 plots/figures/h200)
Prints one PASS or FAIL line per figure."""
import os
import sys

import matplotlib.patches
import matplotlib.ticker

from common import (chapter_of, gpu_of, headline, num, rate_column, read_csv, result_files, size_key,
                    size_label, sweep_rows)
from style import Looks, end_labels, is_ours, plt, rate_label, save, variant_of


def gpu_name(results_dir):
    paths = [os.path.join(results_dir, "00-peaks.csv")] + result_files(results_dir)
    return next((g for g in map(gpu_of, paths) if g), "")


def number(v):
    return f"{v:,.0f}" if v >= 10 else f"{v:.2g}"


def short_size(row):
    """'8192 x 8192', or '2^28' for a large power of two along one dimension."""
    dims = [int(d) for d in (row["m"], row["n"], row["k"]) if d != "1"] or [1]
    if len(dims) == 1 and dims[0] >= 1 << 16 and dims[0] & (dims[0] - 1) == 0:
        return f"2^{dims[0].bit_length() - 1}"
    return size_label(row)


def name(tag, rows):
    """'v12 tallwarps', or just 'cublas' where the idea repeats the tag."""
    idea = next((r["idea"] for r in rows if r["version"] == tag), "")
    return tag if idea in ("", tag) else f"{tag} {idea}"


def bars(chapter, rows, out_dir, gpu):
    """One horizontal bar a version at the headline size, in ladder order from the top: its rate,
    and its share of the baseline at the bar's end. A variant of a version (02's end-to-end
    timing, "v3-e2e") is a hatched bar inside its version's. A bar far beyond the others (a
    tensor-core baseline) is cut at the edge, with its value written there."""
    shown = [r for r in headline(chapter, rows) if r["ok"] != "no"]
    rate = rate_column(shown, chapter)
    if not shown or not rate or not any(is_ours(r["version"]) for r in shown):
        return  # 00-peaks draws its ceilings with a figure of its own (plots/00-peaks.py)
    main = [r for r in shown if not variant_of(r["version"]) and num(r, rate)]
    extra = {variant_of(r["version"])[0]: r for r in shown
             if variant_of(r["version"]) and num(r, rate)}
    looks = Looks([r["version"] for r in main])
    values = [num(r, rate) for r in main]
    ordered = sorted(values)
    # cut a bar that is more than twice the next one (when that one is not tiny)
    edge = ordered[-2] * 1.25 if len(ordered) > 2 and ordered[-1] > 2 * ordered[-2] else None
    fig, ax = plt.subplots(figsize=(7.2, 0.3 * len(main) + 1.3))
    ys = list(range(len(main)))[::-1]
    base = next((r for r in main if num(r, "pct_of_baseline") == 100.0), None)
    for y, r, v in zip(ys, main, values):
        ours = is_ours(r["version"])
        color = looks[r["version"]]["color"] if ours else "#c8c8c8"
        shown_v = min(v, edge) if edge else v
        ax.barh(y, shown_v, height=0.72, color=color, edgecolor="black" if not ours else color,
                lw=0.6, hatch=None if ours else "..")
        pct = num(r, "pct_of_baseline")
        text = number(v) + (f"  {pct:.1f}%" if pct is not None else "")
        if edge and v > edge:
            text = f"{number(v)} (off scale)  {pct:.1f}%" if pct is not None else f"{number(v)} (off scale)"
            ax.plot([shown_v * 0.985, shown_v * 1.0], [y - 0.36, y + 0.36], color="white", lw=3)
        e = extra.get(r["version"])
        if e:
            ax.barh(y, num(e, rate), height=0.36, color="white", edgecolor="black", lw=0.5,
                    hatch="////")
            text += f"   ({variant_of(e['version'])[1]}: {number(num(e, rate))})"
        ax.annotate(text, (shown_v, y), xytext=(4, 0), textcoords="offset points", va="center",
                    fontsize=7, zorder=3, bbox=dict(facecolor="white", edgecolor="none", pad=0.2))
    if extra:
        kind = variant_of(next(iter(extra.values()))["version"])[1]
        ax.legend(handles=[matplotlib.patches.Patch(facecolor="white", edgecolor="black",
                                                    hatch="////", label=f"{kind}: the same version "
                                                    f"timed end to end")],
                  fontsize=7, frameon=False, loc="lower right")
    if base is not None:
        ax.axvline(num(base, rate), color="black", lw=0.8, ls=(0, (4, 2)), zorder=1)
    ax.set_yticks(ys, [name(r["version"], main) for r in main], fontsize=8)
    ax.set_xlabel(rate_label(chapter, rate))
    right = max(min(v, edge) if edge else v for v in values)
    ax.set_xlim(0, right * (1.5 if extra else 1.32))
    ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:,.0f}"))
    ref = f", % of {base['version']} (dashed line) at each bar's end" if base is not None else ""
    ax.set_title(f"{chapter} at {size_label(shown[0])}, {gpu}: rate{ref}", fontsize=9)
    save(fig, out_dir, f"{chapter}-bars")


def sweep(chapter, rows, out_dir, gpu):
    """Each version's rate over the problem sizes: a line over the square sizes (log axes), and,
    when the chapter measured other shapes (odd or non-square), their points in a panel of their
    own, on the same rate axis. Every line is named at its right end."""
    rate = rate_column(headline(chapter, rows), chapter)
    rows = sweep_rows(chapter, rows)
    inputs = list(dict.fromkeys(r.get("input", "") for r in rows)) or [""]
    rows = [r for r in rows if r.get("input", "") == inputs[0] and r["ok"] != "no"
            and not variant_of(r["version"]) and num(r, rate or "gbps") is not None]
    square = [r for r in rows if len({d for d in (r["m"], r["n"], r["k"]) if d != "1"}) <= 1]
    other = [r for r in rows if r not in square]
    sizes = sorted({size_key(r) for r in square})
    if not rate or len(sizes) < 2 or not any(is_ours(r["version"]) for r in rows):
        return  # 00-peaks measures ceilings, not a ladder
    tags = list(dict.fromkeys(r["version"] for r in rows))
    looks = Looks(tags)
    shapes = list(dict.fromkeys(size_label(r) for r in other))
    widths = [3.2, 0.45 + 0.42 * len(shapes)] if shapes else [1]
    fig, axes = plt.subplots(1, len(widths), sharey=True, figsize=(6.2 + 0.42 * len(shapes), 4.4),
                             gridspec_kw={"width_ratios": widths, "wspace": 0.06})
    axes = list(axes) if shapes else [axes]
    ax = axes[0]
    ends = []
    for t in tags:
        pts = sorted((size_key(r), num(r, rate)) for r in square if r["version"] == t)
        if not pts:
            continue
        lk = looks[t]
        ax.plot([p[0] for p in pts], [p[1] for p in pts], color=lk["color"], ls=lk["ls"],
                lw=lk["lw"], marker=lk["marker"], ms=lk["ms"])
        ends.append((pts[-1][1], name(t, rows), lk))
    values = [num(r, rate) for r in rows]
    for a in axes:
        a.set_yscale("log" if max(values) / min(values) > 20 else "linear")
    ax.set_xscale("log")
    one_dim = all(sum(d != "1" for d in (r["m"], r["n"], r["k"])) <= 1 for r in square)
    ax.set_xticks(sizes, [short_size(next(r for r in square if size_key(r) == s)) for s in sizes],
                  rotation=30, fontsize=7, ha="right")
    ax.set_xlabel("n" if one_dim else "square sizes")
    for a in axes:
        if a.get_yscale() == "log":
            a.yaxis.set_major_locator(matplotlib.ticker.LogLocator(subs=(1.0, 2.0, 5.0)))
        a.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:,.0f}"))
    ax.minorticks_off()
    ax.set_ylabel(rate_label(chapter, rate))
    ax.grid(axis="y", color="#e6e6e6", lw=0.6)
    if shapes:
        side = axes[1]
        for k, t in enumerate(tags):
            lk = looks[t]
            for i, shape in enumerate(shapes):
                v = next((num(r, rate) for r in other if r["version"] == t and size_label(r) == shape),
                         None)
                if v is not None:
                    x = i + (k - (len(tags) - 1) / 2) * 0.6 / max(1, len(tags))
                    side.plot([x], [v], color=lk["color"], marker=lk["marker"] or "_",
                              ms=lk["ms"] if lk["marker"] else 12, mew=1 if lk["marker"] else 2,
                              ls="none")
        side.set_xticks(range(len(shapes)), shapes, rotation=30, fontsize=7, ha="right")
        side.set_xlim(-0.5, len(shapes) - 0.5)
        side.set_xlabel("other shapes")
        side.grid(axis="y", color="#e6e6e6", lw=0.6)
        side.tick_params(axis="y", left=False)
    end_labels(ax, ends, label_ax=axes[-1])
    fig.suptitle(f"{chapter} over problem sizes, {gpu}" +
                 (f" (input {inputs[0]})" if inputs[0] else ""), fontsize=9, y=0.98)
    save(fig, out_dir, f"{chapter}-sweep")


def place(chapter, r):
    """(operations per byte, G operations/s) of a row on the roofline, by the operations the
    algorithm needs over the fewest bytes it must move (docs/methodology.md), or None.
    Where the CSV has both rates their ratio is the intensity. Otherwise the chapter says what it
    counts: a transpose moves elements (an "operation" an element, 8 bytes read + written); the
    min-plus product does 2 n^3 adds and mins on 8 n^2 bytes (d read once, r written once), n / 4
    an byte; a histogram does one update a byte read."""
    gf, gb = num(r, "gflops"), num(r, "gbps")
    if gf and gb:
        return gf / gb, gf
    if chapter == "01-transpose" and gb:
        return 1 / 8, gb / 8
    if chapter == "02-shortcut" and gf:
        return int(r["n"]) / 4, gf
    if chapter == "04-atomics" and gb:
        return 1.0, gb
    return None


def roofline(results_dir, out_dir, gpu):
    """The ceilings chapter 00 measured (memory: the copy bandwidth; FP32 FMA; add+min) and every
    chapter's versions at the headline size, stacked at the chapter's intensity from the slowest
    to the fastest, the fastest marked and named. The FP64 build is left out: its ceiling is not
    measured yet."""
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
    fig, ax = plt.subplots(figsize=(7.2, 4.6))
    xs = [2 ** e for e in range(-5, 12)]
    ax.plot(xs, [min(fma, bw * x) for x in xs], color="black", lw=1.2)
    ax.annotate(f"memory {bw:,.0f} GB/s", (2 ** -4.6, bw * 2 ** -4.6), rotation=0, fontsize=7,
                xytext=(0, 6), textcoords="offset points")
    ax.annotate(f"FP32 FMA {fma / 1e3:.1f} TFLOP/s", (2 ** 4.2, fma), fontsize=7, xytext=(0, 4),
                textcoords="offset points")
    if addmin:
        ax.plot(xs, [min(addmin, bw * x) for x in xs], color="#777777", lw=0.9, ls=(0, (4, 2)))
        ax.annotate(f"add+min {addmin / 1e3:.1f} T ops/s", (2 ** 4.2, addmin), fontsize=7,
                    xytext=(0, -10), textcoords="offset points", color="#555555")
    chapters = [p for p in result_files(results_dir) if "00-peaks" not in p and "-f64" not in p]
    colors = plt.get_cmap("tab10")
    labels = []
    for i, path in enumerate(chapters):
        chapter = chapter_of(path)
        rows = [r for r in headline(chapter, read_csv(path)) if r["ok"] == "yes"]
        pts = [(place(chapter, r), r) for r in rows]
        pts = [(xy, r) for xy, r in pts if xy and (is_ours(r["version"]) or
                                                    r["version"] in ("cublas-tf32",))]
        if not pts:
            continue
        ours = [(xy, r) for xy, r in pts if is_ours(r["version"])]
        color = colors(i % 10)
        ax.scatter([xy[0] for xy, _ in ours], [xy[1] for xy, _ in ours], s=12, color=color,
                   alpha=0.55, lw=0)
        best = max(ours, key=lambda p: p[0][1])
        ax.scatter([best[0][0]], [best[0][1]], s=40, color=color, edgecolor="black", lw=0.6,
                   zorder=3)
        labels.append((best[0], f"{chapter}: {best[1]['version']} {best[1]['idea']}", color))
        for xy, r in pts:
            if r["version"] == "cublas-tf32":
                ax.scatter([xy[0]], [xy[1]], s=22, marker="^", color="white", edgecolor=color,
                           zorder=3)
                ax.annotate("cublas-tf32 (tensor cores)", xy, fontsize=7, xytext=(5, -2),
                            textcoords="offset points", color="#444444")
    # names beside the best points: the memory-bound chapters' to the right of theirs, moved up
    # where two would overlap; the compute-bound ones' in a column below the roofs, each with a
    # line to its point
    gap = 9  # points between two names
    placed = []
    below = 0
    for (x, y), text, color in sorted(labels, key=lambda t: (t[0][0] > 2 ** 7,
                                                            t[0][1] * (-1 if t[0][0] > 2 ** 7 else 1))):
        if x > 2 ** 7:
            below += 1
            ax.annotate(text, (x, y), xytext=(2 ** 7.2, 9000 / 2.2 ** below), textcoords="data",
                        fontsize=7, color=color, va="center", ha="left",
                        arrowprops=dict(arrowstyle="-", lw=0.4, color=color))
            continue
        yd = ax.transData.transform((x, y))[1] * 72 / fig.dpi
        for other in placed:
            if abs(other[1] - yd) < gap:
                yd = other[1] + gap
        placed.append((x, yd))
        dy = yd - ax.transData.transform((x, y))[1] * 72 / fig.dpi
        ax.annotate(text, (x, y), xytext=(7, dy), textcoords="offset points", fontsize=7,
                    color=color, va="center",
                    arrowprops=dict(arrowstyle="-", lw=0.4, color=color) if dy > 1 else None)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlim(2 ** -5, 2 ** 12)
    ax.set_xlabel("operations per byte the algorithm must move")
    ax.set_ylabel("G operations / s")
    ax.set_title(f"Every chapter under the ceilings chapter 00 measured, {gpu}", fontsize=9)
    fig.text(0.01, -0.04, "Each chapter's versions stack at its algorithm's intensity, slowest at the "
             "bottom; the ringed point is the fastest. 01 counts an element moved (8 bytes) as "
             "an operation,\n04 an update (a byte read). cublas-tf32 runs on the tensor cores, "
             "whose ceiling is far above the FP32 one drawn here; the FP64 build is not shown.",
             fontsize=6.5, color="#444444", va="top")
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
