"""make test: plots/timeline.py turns v16-timeline's notes into the right table and draws them,
refuses what is not a units CSV, and make timeline refuses what it cannot do. No GPU needed: the
notes are made up here, with times chosen so that every phase has a known value."""
import csv
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "plots"))
import timeline  # noqa: E402

failed = 0


def check(ok, what):
    global failed
    print(("PASS " if ok else "FAIL ") + what)
    failed += 0 if ok else 1


HEAD = ("m,n,k,block,warpgroup,unit,pair,k0,k1,kind,start_ns,loop_end_ns,wait_end_ns,sums_end_ns,"
        "end_ns")
# 512^3 (10 k steps a pair): block 0 ends in a split round (warpgroup 1 a sharer, 2 an adder),
# block 1 takes a second whole pair instead. Times in ns.
UNITS = [
    (512, 0, 1, 0, 0, 0, 10, "whole", 0, 10000, 10000, 10000, 12000),
    (512, 0, 1, 1, 3, 5, 10, "sharer", 12000, 17000, 17000, 20000, 20000),
    (512, 0, 2, 0, 0, 0, 10, "whole", 500, 10500, 10500, 10500, 12500),
    (512, 0, 2, 1, 2, 0, 5, "adder", 12500, 18000, 19000, 19500, 22000),
    (512, 1, 1, 0, 1, 0, 10, "whole", 200, 10200, 10200, 10200, 12200),
    (512, 1, 1, 1, 4, 0, 10, "whole", 12200, 22200, 22200, 22200, 24000),
    (512, 1, 2, 0, 1, 0, 10, "whole", 300, 10300, 10300, 10300, 12300),
    # 256^3, one whole pair
    (256, 0, 1, 0, 0, 0, 4, "whole", 0, 4000, 4000, 4000, 5000),
]


def write(path, rows, head=HEAD):
    with open(path, "w") as f:
        f.write(head + "\n")
        for r in rows:
            f.write(",".join(str(x) for x in (r[0], r[0], r[0]) + r[1:]) + "\n")


def run(*args):
    return subprocess.run([sys.executable, os.path.join(ROOT, "plots", "timeline.py"), *args],
                          capture_output=True, text=True, timeout=120)


with tempfile.TemporaryDirectory(prefix="kl-test-timeline-") as tmp:
    units = os.path.join(tmp, "units.csv")
    write(units, UNITS)
    out = os.path.join(tmp, "summary.csv")
    r = run("summary", units, out)
    check(r.returncode == 0 and os.path.exists(out), "timeline.py summary writes the table")
    got = {}
    if os.path.exists(out):
        with open(out, newline="") as f:
            for row in csv.DictReader(f):
                got[(row["m"], row["phase"])] = (int(row["count"]), row["median_us"], row["min_us"],
                                                 row["max_us"])
    want = {
        ("512", "whole_loop"): (5, "10.00", "10.00", "10.00"),
        ("512", "whole_store"): (5, "2.00", "1.80", "2.00"),
        ("512", "step_split"): (2, "1.05", "1.00", "1.10"),
        ("512", "share"): (1, "3.00", "3.00", "3.00"),
        ("512", "adder_wait"): (1, "1.00", "1.00", "1.00"),
        ("512", "adder_add"): (1, "0.50", "0.50", "0.50"),
        ("512", "adder_store"): (1, "2.50", "2.50", "2.50"),
        ("512", "rounds_end"): (4, "12.40", "12.00", "24.00"),
        ("512", "split_round"): (2, "8.75", "8.00", "9.50"),
        ("512", "end"): (4, "21.00", "12.30", "24.00"),
        ("512", "kernel"): (1, "24.00", "24.00", "24.00"),
        ("256", "whole_loop"): (1, "4.00", "4.00", "4.00"),
        ("256", "kernel"): (1, "5.00", "5.00", "5.00"),
    }
    bad = {k: (got.get(k), v) for k, v in want.items() if got.get(k) != v}
    check(not bad, "timeline.py's table: each phase's count, median, least and most, per size"
          + (f" (got, want: {bad})" if bad else ""))
    check(("256", "share") not in got and ("256", "split_round") not in got,
          "timeline.py leaves out the phases a size did not have (no split round at 256^3)")

    # what is not a units CSV: exit 2 and a line that says why
    for name, rows, head, word in [
            ("no column", UNITS, HEAD.replace(",wait_end_ns", ""), "wait_end_ns"),
            ("a kind", [UNITS[0][:7] + ("half",) + UNITS[0][8:]], HEAD, "half"),
            ("times out of order", [UNITS[0][:8] + (0, 10000, 9000, 10000, 12000)], HEAD, "order"),
            ("no k steps", [UNITS[0][:6] + (0,) + UNITS[0][7:]], HEAD, "no k steps")]:
        path = os.path.join(tmp, "bad.csv")
        write(path, rows, head)
        r = run("summary", path, out)
        check(r.returncode == 2 and word in r.stderr, f"timeline.py refuses a file with {name} (exit 2)")
    path = os.path.join(tmp, "bad.csv")
    with open(path, "w") as f:
        f.write(HEAD + "\n512,512,512,0,1,0,0,0,10,whole,0,x,0,0,0\n")
    r = run("summary", path, out)
    check(r.returncode == 2 and "whole number" in r.stderr, "timeline.py refuses a value that is not a number")
    write(path, [])
    r = run("summary", path, out)
    check(r.returncode == 1 and "no units" in r.stdout, "timeline.py says so of a file with no units (exit 1)")
    r = run("summary", os.path.join(tmp, "none.csv"), out)
    check(r.returncode == 2 and "none.csv" in r.stderr, "timeline.py says so of a file that is not there")
    r = run("draw", units, out)
    check(r.returncode == 2 and "usage" in r.stdout, "timeline.py prints its usage for an unknown command")

    # the figures, where matplotlib is there (make test installs it; plots/python.sh finds it)
    figs = os.path.join(tmp, "figs")
    r = subprocess.run(["bash", os.path.join(ROOT, "plots", "python.sh"),
                        os.path.join(ROOT, "plots", "timeline.py"), "figure", units, figs],
                       capture_output=True, text=True, timeout=300)
    if "No module named 'matplotlib'" in r.stderr:
        print("SKIP timeline.py's figures: no matplotlib")
    else:
        names = sorted(os.listdir(figs)) if os.path.isdir(figs) else []
        check(r.returncode == 0 and names == ["06-tensor-cores-timeline-256.png",
                                              "06-tensor-cores-timeline-256.svg",
                                              "06-tensor-cores-timeline-512.png",
                                              "06-tensor-cores-timeline-512.svg"],
              f"timeline.py draws a figure a size, SVG and PNG ({names})")

# ---- make timeline's refusals (tests/timeline.sh), none of which needs a GPU
for args, code, word, what in [([], 2, "usage", "no chapter"),
                               (["01-transpose"], 2, "no timeline.args", "a chapter without timeline.args"),
                               (["99-nothing"], 2, "no chapter", "an unknown chapter")]:
    r = subprocess.run(["bash", os.path.join(ROOT, "tests", "timeline.sh")] + args,
                       capture_output=True, text=True, timeout=60)
    check(r.returncode == code and word in r.stdout + r.stderr, f"make timeline refuses {what} (exit {code})")
gpuinfo = os.path.join(ROOT, "build", "gpuinfo")
if os.path.exists(gpuinfo) and subprocess.run([gpuinfo], capture_output=True).returncode != 0:
    r = subprocess.run(["bash", os.path.join(ROOT, "tests", "timeline.sh"), "06-tensor-cores"],
                       capture_output=True, text=True, timeout=60)
    check(r.returncode == 3 and "make timeline:" in r.stdout,
          "make timeline on a machine without a GPU: one line and exit 3")
tc = os.path.join(ROOT, "build", "tensor-cores")
if os.path.exists(tc):
    r = subprocess.run([tc, "--list"], capture_output=True, text=True, timeout=60)
    check(r.returncode == 0 and "v16-timeline" in r.stdout, "tensor-cores --list has v16-timeline")

print(f"{failed} failed")
sys.exit(1 if failed else 0)
