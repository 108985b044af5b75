"""Chapter 04's own figure: counter updates per second against the number of counters.

Few counters means many threads on each one (contention); the curves show how each way of
updating a counter copes. Reads the chapter's CSV by column name: the counter rows (versions
c1..c5) give m (counters) and gflops (which that part of the program fills with G updates/s).

usage: 04-atomics.py CSV OUT_DIR   ->   OUT_DIR/04-atomics-contention.svg and .png"""
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    path, out_dir = sys.argv[1], sys.argv[2]
    with open(path, newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["version"][:1] == "c" and r["version"][1:].isdigit() and r["gflops"]]
    # c0 is not a result (it loses updates), so it is not drawn
    lines = {}
    for r in rows:
        if r["version"] == "c0":
            continue
        key = (r["version"], r["idea"])
        lines.setdefault(key, []).append((int(r["m"]), float(r["gflops"])))
    if not lines:
        print("no counter rows in", path)
        return 1
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for (tag, idea), points in sorted(lines.items()):
        points.sort()
        ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=f"{tag} {idea}")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("counters m (fewer = more threads per counter)")
    ax.set_ylabel("G updates / s")
    ax.set_title("Counter updates per second against contention (H200)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    os.makedirs(out_dir, exist_ok=True)
    for ext in ("svg", "png"):
        fig.savefig(os.path.join(out_dir, "04-atomics-contention." + ext))
    return 0


if __name__ == "__main__":
    sys.exit(main())
