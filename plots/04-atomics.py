"""Chapter 04's own figure: counter updates per second against the number of counters.

Few counters means many threads on each one (contention); the curves show how each way of
updating a counter copes. Reads the chapter's CSV by column name: the counter rows (versions
c1..c5) give m (counters) and gflops (which that part of the program fills with G updates/s).
c0 is not drawn: it loses updates, so its rate is not a result. The sweep's sizes are the ones
c2 ran at; the other operations (c6 on) and their own sizes are the README's tables.

usage: 04-atomics.py CSV OUT_DIR   ->   OUT_DIR/04-atomics-contention.svg and .png"""
import os
import sys

import matplotlib.ticker

from common import gpu_of, num, read_csv
from style import Looks, end_labels, line_style, plt, save


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    path, out_dir = sys.argv[1], sys.argv[2]
    drawn = ("c1", "c2", "c3", "c4", "c5")
    every = read_csv(path)
    sweep = {(r["m"], r["n"]) for r in every if r["version"] == "c2"}
    rows = [r for r in every if r["version"] in drawn and (r["m"], r["n"]) in sweep
            and num(r, "gflops")]
    if not rows:
        print("no counter rows in", path)
        return 1
    tags = sorted({r["version"] for r in rows}, key=lambda t: int(t[1:]))
    # the counter ladder (c) appears in no other figure, so its colours span these five alone;
    # a dash of its own for each, since two of them (c2, c3: the same CAS loop on an int and on
    # a float) lie on top of each other
    looks = Looks(tags)
    dashes = ["-", (0, (5, 2)), (0, (1, 1.2)), (0, (6, 1.5, 1, 1.5)), (0, (3, 1))]
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    ends = []
    for i, t in enumerate(tags):
        pts = sorted((int(r["m"]), num(r, "gflops")) for r in rows if r["version"] == t)
        lk = dict(looks[t], ls=dashes[i % len(dashes)], mfc="white" if i % 2 else looks[t]["color"],
                  lw=1.6 - 0.2 * i, ms=7 - 0.8 * i)  # the first drawn widest: what lies on it leaves it visible
        ax.plot([p[0] for p in pts], [p[1] for p in pts], **line_style(lk))
        idea = next(r["idea"] for r in rows if r["version"] == t)
        ends.append((pts[-1][0], pts[-1][1], f"{t} {idea}", lk))
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    counters = sorted({int(r["m"]) for r in rows})
    ax.set_xticks(counters, [f"{m:,}" for m in counters])
    ax.yaxis.set_major_locator(matplotlib.ticker.LogLocator(numticks=12))  # one tick a decade
    ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}"))
    ax.minorticks_off()
    ax.set_xlabel("counters m (fewer counters: more threads on each)")
    ax.set_ylabel("G updates/s")
    ax.grid(axis="y", color="#e6e6e6", lw=0.6)
    ax.set_title(f"Counter updates per second against contention, {gpu_of(path)}", fontsize=9)
    end_labels(ax, ends)
    os.makedirs(out_dir, exist_ok=True)
    save(fig, out_dir, "04-atomics-contention")
    return 0


if __name__ == "__main__":
    sys.exit(main())
