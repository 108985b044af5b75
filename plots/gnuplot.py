"""The data the gnuplot charts draw, chosen as the matplotlib figures choose it (plots/plot.py):
the headline rows for the bars, the sweep's rows (the headline's input and timing, square sizes,
no variants) for the sweep, and each chapter's points under chapter 00's ceilings for the
roofline. gnuplot then reads plain files by column name and draws them.

usage: gnuplot.py RESULTS_DIR WORK_DIR
Writes into WORK_DIR, for each chapter with a ladder (not 00-peaks, which has a figure of its own):
  CH.bars.csv    version, rate, pct_of_baseline, rgb (a baseline grey), one row a bar
  CH.sweep.dat   one block a version (sorted by size), columns: elements, rate, tick label
  CH.args        the gnuplot -e assignments (labels, title, each version's colour, point, dash)
and roofline.dat, roofline-ceilings.dat, roofline-labels.gp, roofline.args.
Prints the chapters written, one a line."""
import os
import sys

from common import chapter_of, headline, num, rate_column, read_csv, result_files, size_key
from plot import (ceilings, gpu_name, measured_place, dram_bytes, place, short_size, size_words,
                  sweep_rows, timing_of, timing_words)
from style import Looks, is_ours, rate_label, variant_of

BASELINE_GREYS = ["#555555", "#888888", "#aaaaaa"]  # not ours: grey, dashed, no points


def rgb(color):
    r, g, b = (int(round(c * 255)) for c in color[:3])
    return f"#{r:02x}{g:02x}{b:02x}"


def quoted(text):
    return "'" + text.replace("'", "") + "'"


def styles(tags, looks):
    """Each tag's colour, point type and dash type as gnuplot numbers: ours along the chapter's
    colour map with a point type and dash of their own; baselines grey and dashed, no points."""
    colors, pts, dts = [], [], []
    base = 0
    for i, t in enumerate(tags):
        if is_ours(t):
            colors.append(rgb(looks[t]["color"]))
            pts.append(str(1 + i % 13))
            dts.append(str(1 + (i // 13) % 2 * 2))  # solid, then dashed after 13 versions
        else:
            colors.append(BASELINE_GREYS[base % len(BASELINE_GREYS)])
            pts.append("-1")
            dts.append(str(2 + base % 3))
            base += 1
    return colors, pts, dts


def chapter_files(chapter, rows, work, gpu):
    looks = Looks([r["version"] for r in rows])
    shown = [r for r in headline(chapter, rows) if r["ok"] != "no" and not variant_of(r["version"])]
    rate = rate_column(shown, chapter)
    if not shown or not rate or not any(is_ours(r["version"]) for r in shown):
        return False
    timings = {timing_of(r) for r in rows}
    with open(os.path.join(work, f"{chapter}.bars.csv"), "w") as f:
        f.write(f"version,{rate},pct_of_baseline,rgb\n")
        for r in shown:
            if num(r, rate) is None:
                continue
            color = rgb(looks[r["version"]]["color"]) if is_ours(r["version"]) else "#c8c8c8"
            f.write(f"{r['version']},{r[rate]},{r['pct_of_baseline']},{int(color[1:], 16)}\n")
    sweep = sweep_rows(chapter, rows)
    inputs = list(dict.fromkeys(r.get("input", "") for r in sweep)) or [""]
    square = [r for r in sweep if r.get("input", "") == inputs[0] and r["ok"] != "no"
              and not variant_of(r["version"]) and num(r, rate) is not None
              and len({d for d in (r["m"], r["n"], r["k"]) if d != "1"}) <= 1]
    tags = list(dict.fromkeys(r["version"] for r in square))
    with open(os.path.join(work, f"{chapter}.sweep.dat"), "w") as f:
        for t in tags:  # one block a version, two blank lines apart (gnuplot's index)
            f.write(f"# {t}\n")
            for r in sorted((r for r in square if r["version"] == t), key=size_key):
                f.write(f"{size_key(r)} {r[rate]} {short_size(r)}\n")
            f.write("\n\n")
    colors, pts, dts = styles(tags, looks)
    dims = max((sum(d != "1" for d in (r["m"], r["n"], r["k"])) for r in square), default=1)
    notes = [f"input {inputs[0]}" if inputs[0] else ""] + ([timing_words(square[0], timings)]
                                                          if square else [])
    note = "; ".join(n for n in notes if n)
    timed = timing_words(shown[0], timings)
    args = {
        "rate": quoted(rate), "ylab": quoted(rate_label(chapter, rate)),
        "ttl": quoted(f"{chapter} at {size_words(chapter, shown[0])}"
                      f"{', ' + timed if timed else ''}, {gpu}"),
        "sttl": quoted(f"{chapter} over problem sizes, {gpu}" + (f" ({note})" if note else "")),
        "xlab": quoted({0: "n", 1: "n", 2: "square sizes (m = n)"}.get(dims,
                                                                      "square sizes (m = n = k)")),
        "versions": quoted(" ".join(tags)), "colors": quoted(" ".join(colors)),
        "pts": quoted(" ".join(pts)), "dts": quoted(" ".join(dts)),
        "nbars": str(len(shown)), "swept": "1" if len({size_key(r) for r in square}) > 1 else "0",
    }
    with open(os.path.join(work, f"{chapter}.args"), "w") as f:
        f.write("; ".join(f"{k}={v}" for k, v in args.items()) + "\n")
    return True


def roofline_files(results_dir, work, gpu):
    """The roofline's data: the ceilings as polylines (fine enough that the ridge is sharp), each
    chapter's versions at the headline size where plot.py puts them, and the ceilings' names."""
    peaks_path = os.path.join(results_dir, "00-peaks.csv")
    if not os.path.exists(peaks_path):
        return False
    peaks = read_csv(peaks_path)
    big = max(peaks, key=lambda r: size_key(r) if r["version"] == "memcpy" else -1)
    bw = num(big, "gbps")
    roofs = ceilings(results_dir, peaks)
    if not bw or not roofs:
        return False
    xs = [2 ** (e / 64) for e in range(-6 * 64, 12 * 64 + 1)]
    with open(os.path.join(work, "roofline-ceilings.dat"), "w") as f:
        for label, value, _, _, _ in roofs:
            knee = value / bw  # the ridge exactly, whatever the sampling
            f.write(f"# {label}\n")
            for x in sorted(set(xs + [knee])):
                f.write(f"{x:.6g} {min(value, bw * x):.6g}\n")
            f.write("\n\n")
    names, colors = [], []
    with open(os.path.join(work, "roofline.dat"), "w") as f:
        chapters = [p for p in result_files(results_dir) if "00-peaks" not in p and "-fp8" not in p]
        for path in chapters:
            chapter = chapter_of(path)
            dram = dram_bytes(results_dir, chapter)
            pts = []
            for r in headline(chapter, read_csv(path)):
                if r["ok"] == "yes" and is_ours(r["version"]):
                    xy = measured_place(chapter, r, dram) or place(chapter, r)
                    if xy:
                        pts.append((xy, r["version"]))
            if not pts:
                continue
            f.write(f"# {chapter}\n")
            for (x, y), tag in pts:
                f.write(f"{x:.6g} {y:.6g} {tag}\n")
            f.write("\n\n")
            names.append(chapter)
    with open(os.path.join(work, "roofline-labels.gp"), "w") as f:
        for i, (label, value, color, _, where) in enumerate(roofs):
            right, above = where.startswith("right"), where.endswith("above")
            x = 2 ** 11.9 if right else 2.2 * value / bw
            f.write(f'set label {i + 1} "{label} {value / 1e3:.1f} T/s" at {x:.6g},{value:.6g} '
                    f'{"right" if right else "left"} offset 0,{0.6 if above else -0.6} '
                    f'font ",8" tc rgb "{color if color.startswith("#") else "#000000"}" '
                    f"front boxed\n")
    args = {"bw": f"{bw:.6g}", "ymax": f"{max(c[1] for c in roofs) * 2.2:.6g}", "names": quoted(" ".join(names)),
            "roofs": quoted(" ".join(rgb_of(c[2]) for c in roofs)),
            "roofdts": quoted(" ".join("1" if c[3] == "-" else "2" for c in roofs)),
            "ttl": quoted(f"Every chapter under the ceilings chapter 00 measured, {gpu}")}
    with open(os.path.join(work, "roofline.args"), "w") as f:
        f.write("; ".join(f"{k}={v}" for k, v in args.items()) + "\n")
    return True


def rgb_of(name):
    return {"black": "#000000"}.get(name, name)


def main():
    results_dir, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    gpu = gpu_name(results_dir)
    for path in result_files(results_dir):
        chapter, rows = chapter_of(path), read_csv(path)
        if rows and chapter_files(chapter, rows, work, gpu):
            print(chapter)
    if roofline_files(results_dir, work, gpu):
        print("roofline")


if __name__ == "__main__":
    main()
