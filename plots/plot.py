"""Draws every figure from the results CSVs: per chapter a bar chart of the versions at its
headline size (rate and % of baseline) and a size sweep; per GPU one roofline of every version
of every chapter under the ceilings that chapter 00 measured. PNG and SVG.

usage: plot.py RESULTS_DIR OUT_DIR      (e.g. plots/results/h200 plots/figures/h200)
Prints one PASS or FAIL line per figure."""
import math
import os
import sys

import matplotlib.lines
import matplotlib.patches
import matplotlib.ticker

from common import (chapter_of, gpu_of, headline, num, rate_column, read_csv, result_files, size_key,
                    size_label, sweep_rows, timing_of)
from style import (MARKERS, MOST_LABELS, Looks, end_labels, is_ours, label_room, line_style, plt,
                   rate_label, save, variant_of)


def gpu_name(results_dir):
    paths = [os.path.join(results_dir, "00-peaks.csv")] + result_files(results_dir)
    return next((g for g in map(gpu_of, paths) if g), "")


def number(v):
    return f"{v:,.0f}" if v >= 10 else f"{v:.2g}"


def short_size(row):
    """'8192' for a square (8192 x 8192 or 8192 x 8192 x 8192), '2^28' for a large power of two
    along one dimension (from 2^10), else '4096 x 8192 x 2048'."""
    dims = [int(d) for d in (row["m"], row["n"], row["k"]) if d != "1"] or [1]
    if len(set(dims)) == 1 and len(dims) > 1:
        return str(dims[0])
    if len(dims) == 1 and dims[0] >= 1 << 10 and dims[0] & (dims[0] - 1) == 0:
        return f"2^{dims[0].bit_length() - 1}"
    return size_label(row)


def size_words(chapter, row):
    """The headline size as the READMEs write it: 'n = 2^28 floats', '8192 x 8192', and for the
    all-reduce (07) the buffer of n floats each GPU holds, '1 GiB a GPU (n = 2^28)'."""
    size = short_size(row)
    if sum(d != "1" for d in (row["m"], row["n"], row["k"])) > 1:
        return size_label(row)
    if chapter.startswith("07-"):
        return f"{bytes_words(4 * int(row['n']))} a GPU (n = {size})"
    return f"n = {size}{N_COUNTS.get(chapter, '')}"


# what n counts where it is a buffer's length (02's n is a matrix's side; 07's n floats a GPU)
N_COUNTS = {"04-atomics": " bytes", "05-reduction": " floats", "07-multi-gpu": " floats a GPU"}


def bytes_words(b):
    """'4 KiB', '1 GiB', or the count of bytes where no binary unit divides it."""
    return next((f"{b >> s} {u}" for s, u in ((30, "GiB"), (20, "MiB"), (10, "KiB"))
                 if b >= 1 << s and b % (1 << s) == 0), f"{b:,} B")


def timing_words(row, timings):
    """How the row was timed, unless each launch on its own is the only way the CSV has."""
    if timings <= {"launch"}:
        return ""
    return {"launch": "each launch timed on its own",
            "batch": "timed in batches of back-to-back calls",
            "graph": "timed in CUDA graphs of calls",
            "interleaved": "the versions timed in turns"}.get(timing_of(row), "")


def name(tag, rows):
    """'v12 tallwarps', or just 'cublas' where the idea repeats the tag."""
    idea = next((r["idea"] for r in rows if r["version"] == tag), "")
    return tag if idea in ("", tag) else f"{tag} {idea}"


def bars(chapter, rows, out_dir, gpu, looks):
    """One horizontal bar a version at the headline size, in ladder order from the top: its rate,
    and its share of the baseline at the bar's end. A version's end-to-end timing (02's
    "v3-e2e") is a hatched bar inside its version's; other variants (02's experiments,
    "v1-transposed") are left to the chapter's tables. A bar far beyond the others (a
    tensor-core baseline) is cut at the edge, with its value written there."""
    shown = [r for r in headline(chapter, rows) if r["ok"] != "no"]
    rate = rate_column(shown, chapter)
    if not shown or not rate or not any(is_ours(r["version"]) for r in shown):
        return  # 00-peaks draws its ceilings with a figure of its own (plots/00-peaks.py)
    main = [r for r in shown if not variant_of(r["version"]) and num(r, rate)]
    extra = {variant_of(r["version"])[0]: r for r in shown
             if variant_of(r["version"]) and variant_of(r["version"])[1] == "e2e" and num(r, rate)}
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
    timed = timing_words(shown[0], {timing_of(r) for r in rows})
    ax.set_title(f"{chapter} at {size_words(chapter, shown[0])}{', ' + timed if timed else ''}, "
                 f"{gpu}:\nrate{ref}", fontsize=9)
    save(fig, out_dir, f"{chapter}-bars")


def sweep(chapter, rows, out_dir, gpu, looks):
    """Each version's rate over the problem sizes: a line over the square sizes (log axes), and,
    when the chapter measured other shapes (odd or non-square), their points in a panel of their
    own, on the same rate axis. Every line is named at its right end, between the two panels
    (or, with too many lines to name there, in a legend ordered by the lines' last values)."""
    rate = rate_column(headline(chapter, rows), chapter)
    timings = {timing_of(r) for r in rows}
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
    shapes = list(dict.fromkeys(size_label(r) for r in other))
    lined = [t for t in tags if any(r["version"] == t for r in square)]
    # inches: the main panel, the names' column right of it, the panel of other shapes
    room = label_room([name(t, rows) for t in lined]) if len(lined) <= MOST_LABELS else 0.35
    widths = [4.0, room, 0.35 + 0.36 * len(shapes)] if shapes else [4.0]
    fig = plt.figure(figsize=(sum(widths) / 0.86 + (0 if shapes else 0.8), 4.4))
    grid = fig.add_gridspec(1, len(widths), width_ratios=widths, wspace=0, left=0.1, right=0.96)
    ax = fig.add_subplot(grid[0])
    axes = [ax] + ([fig.add_subplot(grid[2], sharey=ax)] if shapes else [])
    ends = []
    for t in lined:
        pts = sorted((size_key(r), num(r, rate)) for r in square if r["version"] == t)
        ax.plot([p[0] for p in pts], [p[1] for p in pts], **line_style(looks[t]))
        ends.append((pts[-1][0], pts[-1][1], name(t, rows), looks[t]))
    values = [num(r, rate) for r in rows]
    for a in axes:
        a.set_yscale("log" if max(values) / min(values) > 20 else "linear")
    ax.set_xscale("log")
    first = [next(r for r in square if size_key(r) == s) for s in sizes]
    dims = max(sum(d != "1" for d in (r["m"], r["n"], r["k"])) for r in square)
    if chapter.startswith("07-"):  # the buffer each GPU holds, as the README's tables write it
        ax.set_xticks(sizes, [bytes_words(4 * int(r["n"])) for r in first], rotation=30,
                      fontsize=7, ha="right")
        ax.set_xlabel("buffer a GPU (n floats, 4 n bytes)")
    else:
        ax.set_xticks(sizes, [short_size(r) for r in first], rotation=30, fontsize=7, ha="right")
        ax.set_xlabel({0: "n", 1: "n" + N_COUNTS.get(chapter, "")}.get(
            dims, "square sizes (m = n)" if dims == 2 else "square sizes (m = n = k)"))
    for a in axes:
        if a.get_yscale() == "log":
            a.yaxis.set_major_locator(matplotlib.ticker.LogLocator(subs=(1.0, 2.0, 5.0)))
        a.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(
            lambda v, _: f"{v:,.0f}" if v >= 1 or v == 0 else f"{v:.2g}"))  # 0.5, not 0
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
                    side.plot([x], [v], color=lk["color"], marker=lk["marker"] or "_", mfc=lk["mfc"],
                              ms=lk["ms"] if lk["marker"] else 12, mew=1 if lk["marker"] else 2,
                              ls="none")
        side.set_xticks(range(len(shapes)), shapes, rotation=30, fontsize=7, ha="right")
        side.set_xlim(-0.5, len(shapes) - 0.5)
        side.set_xlabel("other shapes")
        side.grid(axis="y", color="#e6e6e6", lw=0.6)
        side.tick_params(axis="y", left=False, labelleft=False)
    # how the rows were timed, where a chapter times the same calls several ways (07)
    notes = [f"input {inputs[0]}" if inputs[0] else "", timing_words(rows[0], timings)]
    fig.suptitle(f"{chapter} over problem sizes, {gpu}" +
                 (f" ({'; '.join(n for n in notes if n)})" if any(notes) else ""), fontsize=9, y=0.98)
    end_labels(ax, ends, legend_ax=axes[-1])
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


def dram_bytes(results_dir, chapter):
    """{(version, m, n, k): bytes read + written in device memory} from the chapter's Nsight
    Compute file (make ncu), for the rows that counted both."""
    path = os.path.join(results_dir, "ncu", f"{chapter}.csv")
    if not os.path.exists(path):
        return {}
    out = {}
    for r in read_csv(path):
        rd, wr = num(r, "dram__bytes_read.sum"), num(r, "dram__bytes_write.sum")
        if rd is not None and wr is not None and rd + wr > 0:
            out[(r["version"], r["m"], r["n"], r["k"])] = rd + wr
    return out


def measured_place(chapter, r, dram):
    """The row's point at the intensity it really had: its operations (rate x median time)
    over the bytes the profiler saw it move in device memory; None without a count."""
    xy = place(chapter, r)
    moved = dram.get((r["version"], r["m"], r["n"], r["k"]))
    ms = num(r, "ms_median")
    if not xy or not moved or not ms:
        return None
    return xy[1] * 1e9 * ms * 1e-3 / moved, xy[1]


# The ceilings of the roofline, each from a row of 00-peaks or, for BF16, of the chapter that
# measures it: (label, G operations/s, colour, dash, where its name goes). Names of ceilings that
# lie close together go to opposite ends or sides: FP32 FMA and the FP64 tensor cores differ by
# 5% on Hopper, FP64 FMA and add+min by 2%.
def ceilings(results_dir, peaks):
    def best(tags):
        vals = [num(r, "gflops") for r in peaks if r["version"] in tags and r["ok"] == "yes"]
        vals = [v for v in vals if v]
        return max(vals) if vals else None
    bf16 = None
    tc = os.path.join(results_dir, "06-tensor-cores.csv")
    if os.path.exists(tc):
        rows = [r for r in headline("06-tensor-cores", read_csv(tc)) if r["version"] == "peak"]
        bf16 = max((num(r, "gflops") or 0 for r in rows), default=0) or None
    fp64 = "#b5542c"
    out = [("BF16 tensor cores (06's peak)", bf16, "#1f6f8b", (0, (6, 2)), "right above"),
           ("FP64 tensor cores (DMMA)", best(("dmma", "dmma16")), fp64, (0, (6, 2)), "left above"),
           ("FP32 FMA", best(("fma",)), "black", "-", "right below"),
           ("FP64 FMA", best(("dfma",)), fp64, "-", "left above"),
           ("add+min", best(("addmin",)), "#777777", (0, (4, 2)), "left below")]
    return [c for c in out if c[1]]


def roofline(results_dir, out_dir, gpu):
    """Chapter 00's ceilings (memory, FP32 and FP64 on the CUDA cores and the tensor cores,
    add+min) and every version of every chapter at the headline size. A version sits at its
    measured intensity where the chapter's ncu file counted its DRAM bytes (a filled marker),
    otherwise at the algorithm's (an open one); each chapter's versions are joined in ladder
    order, and the fastest is ringed and named."""
    peaks_path = os.path.join(results_dir, "00-peaks.csv")
    if not os.path.exists(peaks_path):
        return
    peaks = read_csv(peaks_path)
    big = max(peaks, key=lambda r: size_key(r) if r["version"] == "memcpy" else -1)
    bw = num(big, "gbps")
    roofs = ceilings(results_dir, peaks)
    if not bw or not roofs:
        return
    fig, ax = plt.subplots(figsize=(7.6, 5.2))
    xs = [2 ** (e / 4) for e in range(-6 * 4, 12 * 4 + 1)]
    top = max(c[1] for c in roofs)
    for label, value, color, dash, where in roofs:
        ax.plot(xs, [min(value, bw * x) for x in xs], color=color, lw=1.1, ls=dash)
        right, above = where.startswith("right"), where.endswith("above")
        ax.annotate(f"{label} {value / 1e3:.1f} T/s", (2 ** 12 if right else 2 * value / bw, value),
                    fontsize=6.5, color=color, xytext=(-2 if right else 2, 2 if above else -2),
                    textcoords="offset points", ha="right" if right else "left",
                    va="bottom" if above else "top", zorder=6,  # above the points and lines
                    bbox=dict(facecolor="white", edgecolor="none", pad=0.6, alpha=0.85))
    # the FP8 program has no ceiling here (00 measures no FP8 peak): it stays in its own figures
    chapters = [p for p in result_files(results_dir) if "00-peaks" not in p and "-fp8" not in p]
    colors = plt.get_cmap("tab10")
    handles = []  # the legend: each chapter's marker and its fastest version
    measured_any = False
    for i, path in enumerate(chapters):
        chapter = chapter_of(path)
        dram = dram_bytes(results_dir, chapter)
        rows = [r for r in headline(chapter, read_csv(path)) if r["ok"] == "yes"]
        color = colors(i % 10)
        pts = []
        for r in rows:
            if not is_ours(r["version"]):
                continue
            xy = measured_place(chapter, r, dram)
            if xy:
                measured_any = True
            pts.append((xy or place(chapter, r), bool(xy), r))
        pts = [p for p in pts if p[0]]
        if not pts:
            continue
        marker = MARKERS[i % len(MARKERS)]
        ax.plot([xy[0] for xy, _, _ in pts], [xy[1] for xy, _, _ in pts], color=color, lw=0.5,
                alpha=0.5)
        for xy, measured, r in pts:
            ax.scatter([xy[0]], [xy[1]], s=14, marker=marker, color=color if measured else "white",
                       edgecolor=color, lw=0.8, zorder=3)
        best = max(pts, key=lambda p: p[0][1])
        ax.scatter([best[0][0]], [best[0][1]], s=46, marker=marker, color=color,
                   edgecolor="black", lw=0.7, zorder=4)
        handles.append(matplotlib.lines.Line2D(
            [], [], ls="none", marker=marker, ms=6, color=color, mec="black", mew=0.6,
            label=f"{chapter}: {best[2]['version']} {best[2]['idea']}"))
        for r in rows:
            if r["version"] == "cublas-tf32" and place(chapter, r):
                xy = place(chapter, r)
                ax.scatter([xy[0]], [xy[1]], s=22, marker="^", color="white", edgecolor=color,
                           zorder=3)
                ax.annotate("cublas-tf32", xy, fontsize=6.5, xytext=(5, -2),
                            textcoords="offset points", color="#444444")
    # a legend rather than names beside the points: nothing to overlap, and each chapter has its
    # own marker as well as its colour
    ax.legend(handles=handles, loc="lower right", fontsize=6.5, frameon=False,
              title="chapter: its fastest version (ringed)", title_fontsize=6.5)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlim(2 ** -6, 2 ** 12)
    ax.set_ylim(1, top * 2.2)
    # the memory roof's name along its slope, now that the limits fix the slope's angle
    (x0, y0), (x1, y1) = ax.transData.transform([(2 ** -5, bw * 2 ** -5), (2 ** -3, bw * 2 ** -3)])
    ax.annotate(f"memory {bw:,.0f} GB/s", (2 ** -5, bw * 2 ** -5), fontsize=6.5,
                rotation=math.degrees(math.atan2(y1 - y0, x1 - x0)), rotation_mode="anchor",
                xytext=(0, 3), textcoords="offset points", zorder=6,
                bbox=dict(facecolor="white", edgecolor="none", pad=0.3, alpha=0.85))
    ax.set_xlabel("operations per byte of device memory traffic")
    ax.set_ylabel("G operations / s")
    ax.set_title(f"Every chapter under the ceilings chapter 00 measured, {gpu}", fontsize=9)
    how = ("Filled points: the version's own intensity, its operations over the DRAM bytes Nsight "
           "Compute counted (make ncu). Open points: the\nalgorithm's intensity, for versions "
           "without a count. " if measured_any else
           "Each version sits at its algorithm's intensity (no ncu counts for this GPU yet). ")
    fig.text(0.01, -0.03, how + "01 counts an element moved as an operation, 04 an update, 02 an "
             "add and a min as two. A point above a ceiling\nuses other units: cublas-tf32 runs "
             "on the tensor cores (TF32, no ceiling drawn); the FP64 build (03-matmul-f64) is "
             "under the FP64 ceilings, and\n06 under BF16's. Each chapter's versions are joined in "
             "ladder order; the ringed point is its fastest.",
             fontsize=6.3, color="#444444", va="top")
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
        looks = Looks([r["version"] for r in rows])  # the same look in every figure of a chapter
        bars(chapter, rows, out_dir, gpu, looks)
        sweep(chapter, rows, out_dir, gpu, looks)
    roofline(results_dir, out_dir, gpu)


if __name__ == "__main__":
    main()
