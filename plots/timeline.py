"""make timeline: where each block's time goes, from 06's experiment v16-timeline.

v16-timeline is v16 noting the GPU's clock (%globaltimer) at five points of every unit of work a
consumer warpgroup takes (chapters/06-tensor-cores/v16x-timeline.cuh): the unit's start, the end
of its k loop, the end of its wait for other clusters' partial sums, the end of its work with
partial sums, and the end of its stores of C (handed to the copy engine, which may still be
copying). `--save DIR` writes the notes of its checked launch
as DIR/v16-timeline-units.csv, a row a unit (tests/timeline.sh gathers them, a size after another,
into plots/results/<gpu>/timeline/06-tensor-cores-units.csv). A unit is a whole pair of tiles
("whole"), or in a split last round (v13's stream-K) the later steps of a pair, whose partial sum
goes to global memory ("sharer"), or its first steps, to which the others' sums are added before
C is stored ("adder").

usage:
  timeline.py summary UNITS.csv OUT.csv   the table: per size, each phase's count, median, least
                                          and most, in microseconds (needs no matplotlib)
  timeline.py figure UNITS.csv OUT_DIR    a figure per size, the blocks along time:
                                          OUT_DIR/06-tensor-cores-timeline-<m>.svg and .png

The summary's phases (one warpgroup's unit is one sample; both consumer warpgroups count):
  whole_loop, whole_store     a whole pair's k loop, and its stores of C
  step_whole, step_split      a k step of a whole pair, and of a split one (loop / its steps)
  share                       a sharer leaving its partial sum (its stores, the count released)
  adder_wait, adder_add, adder_store   an adder waiting for the sums, adding them, storing C
  rounds_end                  when a warpgroup ended its last whole pair (the spread across the GPU)
  split_round                 a warpgroup's time from there to its end, where it had split units
  end                         when a warpgroup ended
  kernel                      from the first warpgroup's start to the last one's end (one sample)

exit 0, 1 on a file without units, 2 on wrong arguments or columns."""
import csv
import os
import statistics
import sys

COLUMNS = ["m", "n", "k", "block", "warpgroup", "unit", "pair", "k0", "k1", "kind", "start_ns",
           "loop_end_ns", "wait_end_ns", "sums_end_ns", "end_ns"]
KINDS = ("whole", "sharer", "adder")
TIMES = ["start_ns", "loop_end_ns", "wait_end_ns", "sums_end_ns", "end_ns"]  # in this order
HEAD = ["chapter", "version", "m", "n", "k", "phase", "count", "median_us", "min_us", "max_us"]
PHASES = ["whole_loop", "whole_store", "step_whole", "step_split", "share", "adder_wait",
          "adder_add", "adder_store", "rounds_end", "split_round", "end", "kernel"]


class Bad(Exception):
    """Input that is not a units CSV: the message says what."""


def read_units(path):
    """The rows of a units CSV, numbers as ints; Bad when a column or a value is wrong."""
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        missing = [c for c in COLUMNS if c not in (reader.fieldnames or [])]
        if missing:
            raise Bad(f"{path}: not a units CSV (no column {', '.join(missing)})")
        rows = []
        for i, r in enumerate(reader, start=2):
            if r["kind"] not in KINDS:
                raise Bad(f"{path}:{i}: kind '{r['kind']}' is not one of {', '.join(KINDS)}")
            try:
                rows.append({c: (r[c] if c == "kind" else int(r[c])) for c in COLUMNS})
            except (TypeError, ValueError):
                raise Bad(f"{path}:{i}: a value is not a whole number") from None
            t = rows[-1]
            times = [t[c] for c in TIMES]
            if times != sorted(times) or t["k1"] <= t["k0"]:
                raise Bad(f"{path}:{i}: its times are out of order, or it has no k steps")
    return rows


def sizes(rows):
    """The (m, n, k) in the file, in the order they first appear."""
    return list(dict.fromkeys((r["m"], r["n"], r["k"]) for r in rows))


def lanes(rows):
    """{(block, warpgroup): its units in order}."""
    out = {}
    for r in rows:
        out.setdefault((r["block"], r["warpgroup"]), []).append(r)
    for units in out.values():
        units.sort(key=lambda r: r["unit"])
    return out


def loop_us(r):
    """A unit's k loop, in microseconds."""
    return (r["loop_end_ns"] - r["start_ns"]) * 1e-3


def samples(rows):
    """{phase: [microseconds]} for the rows of one size."""
    us = 1e-3
    whole = [r for r in rows if r["kind"] == "whole"]
    sharers = [r for r in rows if r["kind"] == "sharer"]
    split = [r for r in rows if r["kind"] != "whole"]
    adders = [r for r in rows if r["kind"] == "adder"]
    s = {
        "whole_loop": [loop_us(r) for r in whole],
        "whole_store": [(r["end_ns"] - r["sums_end_ns"]) * us for r in whole],
        "step_whole": [loop_us(r) / (r["k1"] - r["k0"]) for r in whole],
        "step_split": [loop_us(r) / (r["k1"] - r["k0"]) for r in split],
        "share": [(r["sums_end_ns"] - r["loop_end_ns"]) * us for r in sharers],
        "adder_wait": [(r["wait_end_ns"] - r["loop_end_ns"]) * us for r in adders],
        "adder_add": [(r["sums_end_ns"] - r["wait_end_ns"]) * us for r in adders],
        "adder_store": [(r["end_ns"] - r["sums_end_ns"]) * us for r in adders],
        "rounds_end": [], "split_round": [], "end": [],
    }
    for units in lanes(rows).values():
        done = [r["end_ns"] for r in units if r["kind"] == "whole"]
        last = units[-1]["end_ns"]
        if done:
            s["rounds_end"].append(max(done) * us)
            if any(r["kind"] != "whole" for r in units):
                s["split_round"].append((last - max(done)) * us)
        s["end"].append(last * us)
    s["kernel"] = [(max(r["end_ns"] for r in rows) - min(r["start_ns"] for r in rows)) * us]
    return s


def fmt(x):
    return f"{x:.2f}" if x < 100 else f"{x:.1f}"


def summary(units_path, out_path):
    rows = read_units(units_path)
    if not rows:
        print(f"timeline.py: {units_path} has no units")
        return 1
    with open(out_path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(HEAD)
        for size in sizes(rows):
            s = samples([r for r in rows if (r["m"], r["n"], r["k"]) == size])
            for phase in PHASES:
                xs = s[phase]
                if xs:
                    w.writerow(["06-tensor-cores", "v16-timeline", *size, phase, len(xs),
                                fmt(statistics.median(xs)), fmt(min(xs)), fmt(max(xs))])
    print(f"timeline.py: wrote {out_path}")
    return 0


# what each part of a unit looks like in the figure: (label, colour)
LOOK = {
    "whole_loop": ("a whole pair's k loop", ("#c9c9c9", "#a6a6a6")),  # alternate, to see the pairs
    "store": ("storing C", "#222222"),
    "sharer_loop": ("a sharer's k loop (a pair's later steps)", "#4a90d9"),
    "share": ("leaving its partial sum", "#1c3f8c"),
    "adder_loop": ("an adder's k loop (a pair's first steps)", "#f0a030"),
    "wait": ("waiting for the others' sums", "#d62728"),
    "add": ("adding them", "#8e44ad"),
}


def figure(units_path, out_dir):
    rows = read_units(units_path)
    if not rows:
        print(f"timeline.py: {units_path} has no units")
        return 1
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from style import plt, save  # matplotlib: only the figure needs it
    from common import gpu_of

    gpu = gpu_of(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(units_path))),
                              "06-tensor-cores.csv"))
    os.makedirs(out_dir, exist_ok=True)
    for m, n, k in sizes(rows):
        these = [r for r in rows if (r["m"], r["n"], r["k"]) == (m, n, k)
                 and r["warpgroup"] == 1]  # the leading warpgroup of each block
        by_lane = lanes(these)
        blocks = sorted(b for b, _ in by_lane)
        rounds = [max((r["end_ns"] for r in u if r["kind"] == "whole"), default=0)
                  for u in by_lane.values()]
        end = max(r["end_ns"] for r in these) * 1e-3
        pair_us = statistics.median([(r["end_ns"] - r["start_ns"]) * 1e-3 for r in these
                                     if r["kind"] == "whole"] or [end])
        zoom_from = max(0.0, min(rounds) * 1e-3 - 0.5 * pair_us)
        fig, axes = plt.subplots(1, 2, figsize=(10.5, 5.2), width_ratios=[1, 1.3], sharey=True)
        used = {}
        for ax, x0 in zip(axes, (0.0, zoom_from)):
            for y, b in enumerate(blocks):
                for r in by_lane[(b, 1)]:
                    t = [r[c] * 1e-3 for c in TIMES]
                    if r["kind"] == "whole":
                        parts = [("whole_loop", t[0], t[1]), ("store", t[3], t[4])]
                    elif r["kind"] == "sharer":
                        parts = [("sharer_loop", t[0], t[1]), ("share", t[1], t[3])]
                    else:
                        parts = [("adder_loop", t[0], t[1]), ("wait", t[1], t[2]),
                                 ("add", t[2], t[3]), ("store", t[3], t[4])]
                    for name, a, z in parts:
                        if z <= max(a, x0):
                            continue
                        label, colour = LOOK[name]
                        if name == "whole_loop":
                            colour = colour[r["unit"] % 2]
                        ax.broken_barh([(a, z - a)], (y - 0.5, 1.0), facecolors=colour, lw=0)
                        used[name] = True
            ax.set_xlim(x0, end + 0.01 * (end - x0))
            ax.set_ylim(-1, len(blocks))
            ax.set_xlabel("µs since the first warpgroup began")
            ax.grid(axis="x", color="#e6e6e6", lw=0.6)
        axes[0].set_ylabel(f"block (its first consumer warpgroup), {len(blocks)} in all")
        axes[0].set_title("the whole launch", fontsize=9)
        axes[1].set_title("its last round", fontsize=9)
        handles = []
        for name in LOOK:
            if name in used:
                label, colour = LOOK[name]
                colour = colour[1] if isinstance(colour, tuple) else colour
                handles.append(plt.Rectangle((0, 0), 1, 1, color=colour, label=label))
        handles.append(plt.Rectangle((0, 0), 1, 1, facecolor="white", edgecolor="#999999", lw=0.6,
                                     label="nothing to do"))
        fig.legend(handles=handles, loc="lower center", ncol=4, fontsize=8, frameon=False)
        fig.suptitle(f"v16-timeline at {m} x {n} x {k}: each block's units of work along time"
                     + (f", {gpu}" if gpu else ""), fontsize=10)
        fig.tight_layout(rect=(0, 0.08, 1, 1))
        save(fig, out_dir, f"06-tensor-cores-timeline-{m}" if m == n == k
             else f"06-tensor-cores-timeline-{m}x{n}x{k}")
    return 0


def main(argv):
    if len(argv) != 4 or argv[1] not in ("summary", "figure"):
        print(__doc__)
        return 2
    try:
        return summary(argv[2], argv[3]) if argv[1] == "summary" else figure(argv[2], argv[3])
    except (Bad, OSError) as e:
        print(f"timeline.py: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
