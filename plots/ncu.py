"""Files Nsight Compute's raw CSV pages (one per line of a chapter's ncu.args) into one CSV of
evidence: chapter, version, m, n, k, kernel, then one column per metric asked for, in base
units (bytes, cycles, nanoseconds, percent). A metric this GPU or ncu does not have is empty.

usage: ncu.py CHAPTER TMPDIR OUT.csv METRICS
  TMPDIR holds N.csv from ncu and N.what ("version|args"); METRICS is profile.metrics' list."""
import csv
import glob
import io
import os
import re
import sys


def ncu_rows(path):
    """The kernel rows of one ncu --csv --page raw log, as dicts (the units row dropped)."""
    text = open(path).read()
    lines = [l for l in text.splitlines() if l.startswith('"')]  # ncu's own ==PROF== lines are not
    rows = list(csv.DictReader(io.StringIO("\n".join(lines))))
    return [r for r in rows if r.get("ID", "").isdigit()]


def size_of(args):
    sizes = {"m": "1", "n": "1", "k": "1"}
    for key, value in re.findall(r"-([mnk])\s+(\d+)", args):
        sizes[key] = value
    return sizes


def main(chapter, folder, out, asked):
    metrics = [m for m in asked.replace("\n", "").split(",") if m]
    found = []
    for what in sorted(glob.glob(os.path.join(folder, "*.what")),
                       key=lambda p: int(os.path.basename(p).split(".")[0])):
        version, args = open(what).read().strip().split("|", 1)
        rows = ncu_rows(what[:-len(".what")] + ".csv")
        if not rows:
            print(f"FAIL ncu.py: no kernel profiled for {version} ({args})")
            return 1
        found.append((version, args, rows[0]))
    with open(out, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["chapter", "version", "m", "n", "k", "kernel"] + metrics)
        for version, args, r in found:
            s = size_of(args)
            vals = [r.get(m, "").replace(",", "") for m in metrics]
            vals = ["" if v in ("n/a", "") else v for v in vals]
            kernel = re.sub(r"^void ", "", r.get("Kernel Name", "")).split("(")[0]  # no arguments
            w.writerow([chapter, version, s["m"], s["n"], s["k"], kernel] + vals)
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 5:
        print(__doc__)
        sys.exit(2)
    sys.exit(main(*sys.argv[1:]))
