"""Files Nsight Compute's raw CSV pages (one per line of a chapter's ncu.args) into one CSV of
evidence: chapter, version, m, n, k, kernel, then one column per metric asked for, in base
units (bytes, cycles, nanoseconds, percent). A metric this GPU or ncu does not have is empty.

usage: ncu.py CHAPTER TMPDIR OUT.csv METRICS [--merge]
  TMPDIR holds N.csv from ncu and N.what ("version|args"); METRICS is profile.metrics' list.
  --merge (make ncu CH= V=, some versions profiled again): OUT.csv keeps its other rows, a row
  of the same version and sizes is replaced where it stands, a new one goes at the end; it
  must have been written with the same metrics."""
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


def main(chapter, folder, out, asked, merge=False):
    metrics = [m for m in asked.replace("\n", "").split(",") if m]
    head = ["chapter", "version", "m", "n", "k", "kernel"] + metrics
    kept = []
    if merge:
        if not os.path.exists(out):
            print(f"FAIL ncu.py: nothing to merge into: {out} does not exist (make ncu without V)")
            return 1
        with open(out, newline="") as f:
            kept = list(csv.reader(f))
        if not kept or kept[0] != head:
            print(f"FAIL ncu.py: {out} has other columns than profile.metrics asks for now: "
                  "make ncu without V profiles every line again")
            return 1
        kept = kept[1:]
    found = []
    for what in sorted(glob.glob(os.path.join(folder, "*.what")),
                       key=lambda p: int(os.path.basename(p).split(".")[0])):
        version, args = open(what).read().strip().split("|", 1)
        rows = ncu_rows(what[:-len(".what")] + ".csv")
        if not rows:
            print(f"FAIL ncu.py: no kernel profiled for {version} ({args})")
            return 1
        found.append((version, args, rows[0]))
    new = []
    for version, args, r in found:
        s = size_of(args)
        vals = [r.get(m, "").replace(",", "") for m in metrics]
        vals = ["" if v in ("n/a", "") else v for v in vals]
        kernel = re.sub(r"^void ", "", r.get("Kernel Name", "")).split("(")[0]  # no arguments
        new.append([chapter, version, s["m"], s["n"], s["k"], kernel] + vals)
    rows = kept
    for row in new:  # in place of the rows of the same version and sizes, else at the end
        at = [i for i, old in enumerate(rows) if old[1:5] == row[1:5]]
        if at:
            rows[at[0]] = row
            rows = [old for i, old in enumerate(rows) if i not in at[1:]]
        else:
            rows.append(row)
    tmp = out + ".tmp"
    with open(tmp, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(head)
        w.writerows(rows)
    os.replace(tmp, out)
    return 0


if __name__ == "__main__":
    merge = "--merge" in sys.argv[5:]
    if len(sys.argv) - merge != 5:
        print(__doc__)
        sys.exit(2)
    sys.exit(main(*sys.argv[1:5], merge=merge))
