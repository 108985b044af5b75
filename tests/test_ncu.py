"""make test: plots/ncu.py files Nsight Compute's raw CSV as the README tables expect, and
tables.py scales its counters. No GPU and no ncu needed: the ncu output here is a fixture in
the form `ncu --csv --page raw --print-units base` writes (a header, a units row, the kernels)."""
import csv
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "plots"))
failed = 0


def check(ok, what):
    global failed
    print(("PASS " if ok else "FAIL ") + what)
    failed += 0 if ok else 1


RAW = '''==PROF== Connected to process 1234
"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","dram__bytes_read.sum","gpu__time_duration.sum","lts__t_sector_hit_rate.pct"
"","","","","","","","byte","nsecond","%"
"0","1234","tensor-cores","host","void tc_v8_persistent<256, 4, grouped_order>(CUtensorMap_st, float *)","1","7","1,325,508,352","1403424","80.80"
'''

with tempfile.TemporaryDirectory(prefix="kl-test-ncu-") as tmp:
    open(os.path.join(tmp, "1.csv"), "w").write(RAW)
    open(os.path.join(tmp, "1.what"), "w").write("v9| -m 8192 -n 8192 -k 8192 -v v9\n")
    out = os.path.join(tmp, "out.csv")
    metrics = "gpu__time_duration.sum,\ndram__bytes_read.sum,\nsm__no_such_metric.sum"
    r = subprocess.run([sys.executable, os.path.join(ROOT, "plots", "ncu.py"), "06-tensor-cores",
                        tmp, out, metrics], capture_output=True, text=True)
    check(r.returncode == 0, "ncu.py files a raw ncu page")
    rows = list(csv.DictReader(open(out))) if os.path.exists(out) else []
    row = rows[0] if rows else {}
    check(list(row)[:6] == ["chapter", "version", "m", "n", "k", "kernel"] and
          list(row)[6:] == ["gpu__time_duration.sum", "dram__bytes_read.sum", "sm__no_such_metric.sum"],
          "ncu.py: the columns are the identity, then the metrics asked for, in their order")
    check(row.get("version") == "v9" and row.get("m") == "8192" and
          row.get("kernel") == "tc_v8_persistent<256, 4, grouped_order>",
          "ncu.py: version and sizes from the line, the kernel without 'void' and arguments")
    check(row.get("dram__bytes_read.sum") == "1325508352" and row.get("sm__no_such_metric.sum") == "",
          "ncu.py: thousands separators dropped, a metric ncu lacks left empty")
    # a line that profiled nothing is an error, not a silent empty row
    open(os.path.join(tmp, "1.csv"), "w").write(RAW.split("\n")[0] + "\n")
    r = subprocess.run([sys.executable, os.path.join(ROOT, "plots", "ncu.py"), "06-tensor-cores",
                        tmp, out, metrics], capture_output=True, text=True)
    check(r.returncode != 0 and "no kernel profiled" in r.stdout, "ncu.py: a line with no kernel fails")
    # --merge (make ncu V=): a row of the same version and sizes replaced where it stands, a new
    # one appended, the others kept; a file of other columns, or none, is refused
    head = "chapter,version,m,n,k,kernel,gpu__time_duration.sum,dram__bytes_read.sum,sm__no_such_metric.sum\n"
    before = head + ("06-tensor-cores,v8,8192,8192,8192,k8,1,2,\n"
                     "06-tensor-cores,v9,8192,8192,8192,old,3,4,\n"
                     "06-tensor-cores,v9,4096,4096,4096,k9,5,6,\n"
                     "06-tensor-cores,v9,8192,8192,8192,older,7,8,\n")
    open(out, "w").write(before)
    open(os.path.join(tmp, "1.csv"), "w").write(RAW)
    open(os.path.join(tmp, "2.csv"), "w").write(RAW)
    open(os.path.join(tmp, "2.what"), "w").write("v12-halves| -m 8192 -n 8192 -k 8192 -v v12-halves\n")
    r = subprocess.run([sys.executable, os.path.join(ROOT, "plots", "ncu.py"), "06-tensor-cores",
                        tmp, out, metrics, "--merge"], capture_output=True, text=True)
    got = [(row["version"], row["m"], row["kernel"]) for row in csv.DictReader(open(out))]
    check(r.returncode == 0 and got == [("v8", "8192", "k8"),
                                        ("v9", "8192", "tc_v8_persistent<256, 4, grouped_order>"),
                                        ("v9", "4096", "k9"),
                                        ("v12-halves", "8192", "tc_v8_persistent<256, 4, grouped_order>")],
          "ncu.py --merge: the re-profiled row in place (a second old row of its version and sizes "
          "gone), the new one at the end, the others kept")
    open(out, "w").write(before.replace("sm__no_such_metric.sum", "sm__other.sum"))
    r = subprocess.run([sys.executable, os.path.join(ROOT, "plots", "ncu.py"), "06-tensor-cores",
                        tmp, out, metrics, "--merge"], capture_output=True, text=True)
    check(r.returncode != 0 and "other columns" in r.stdout and "sm__other.sum" in open(out).read(),
          "ncu.py --merge: a CSV of other metrics is refused and left as it was")
    os.remove(out)
    r = subprocess.run([sys.executable, os.path.join(ROOT, "plots", "ncu.py"), "06-tensor-cores",
                        tmp, out, metrics, "--merge"], capture_output=True, text=True)
    check(r.returncode != 0 and "nothing to merge into" in r.stdout and not os.path.exists(out),
          "ncu.py --merge: no CSV to merge into is an error")
    # make ncu V=, up to where it needs ncu: KL_NCU names one that is not there, so that no run
    # of these tests profiles anything or writes into plots/results
    def ncu_sh(v):
        env = dict(os.environ, KL_NCU=os.path.join(tmp, "no-ncu"))
        return subprocess.run(["bash", os.path.join(ROOT, "tests", "ncu.sh"), "06-tensor-cores", v],
                              capture_output=True, text=True, env=env)
    r = ncu_sh("v12,v99")
    check(r.returncode == 2 and "profiles v99" in r.stdout,
          "make ncu V=: a version no line of ncu*.args profiles is refused (exit 2) before ncu runs")
    r = ncu_sh(" , ")
    check(r.returncode == 2 and "names no version" in r.stdout,
          "make ncu V=: a V of separators only is refused, not taken for every version")
    r = ncu_sh("v12 v12-halves,f2")
    check(r.returncode == 1 and "ncu (Nsight Compute) not found" in r.stdout,
          "make ncu V=: versions apart by spaces or commas, of either program (f2: ncu-fp8.args), "
          "pass the check and go on to ncu")

import tables  # noqa: E402  (after the path is set)

row = {"dram__bytes_read.sum": "1325508352", "lts__t_sector_hit_rate.pct": "80.80"}
check(tables.fmt(row, "dram__bytes_read.sum/1e9", [row]) == "1.33" and
      tables.heading("dram__bytes_read.sum/1e9", [row]) == "DRAM read (GB)",
      "tables: a counter column divided and headed with its unit")
check(tables.fmt(row, "lts__t_sector_hit_rate.pct", [row]) == "80.8",
      "tables: a percentage counter with one decimal")

check([tables.binary_bytes(b) for b in (4096, 1 << 30, 4 * 1000003)] ==
      ["4 KiB", "1 GiB", "4,000,012 B"],
      "tables: a pivot's bytes@4 names sizes in binary units, and a size that is none in bytes")

check(sorted(["tc_v10_a", "tc_v2_b", "tc_v1_c", "tc_peak"], key=tables.natural) ==
      ["tc_peak", "tc_v1_c", "tc_v2_b", "tc_v10_a"],
      "tables: an evidence table lists kernels in the ladder's order (v10 after v9, not after v1)")

# A result mark is rewritten from its one row, with the decimals the prose gave it; a mark that
# matches no row keeps its text and is counted, so that --check fails on it.
import contextlib  # noqa: E402
import io  # noqa: E402


def mark(text):
    m = tables.RESULT.search(text)
    with contextlib.redirect_stdout(io.StringIO()):  # its FAIL line is for make plots, not here
        return tables.render_result(m, "h200", os.path.join(ROOT, "README.md"))


good = "1.0<!-- result h200/ncu/02-shortcut version=v9 smsp__inst_executed.sum/1e9 -->"
want = tables.num(next(r for r in csv.DictReader(open(os.path.join(
    ROOT, "plots", "results", "h200", "ncu", "02-shortcut.csv"))) if r["version"] == "v9"),
    "smsp__inst_executed.sum") / 1e9
check(mark(good) == f"{want:.1f}" + good[3:] and not tables.UNMATCHED,
      "tables: a result mark is rewritten from its row, scaled, with the prose's decimals")
bad = "7<!-- result 03-matmul m=4096 n=4096 k=4096 version=v99 gflops -->"
check(mark(bad) == bad and len(tables.UNMATCHED) == 1,
      "tables: a result mark that matches no row is left as it is and counted as a failure")


# A ratio mark is the quotient of the two values it quotes; one side that matches no row fails it.
def ratio(text):
    m = tables.RATIO.search(text)
    with contextlib.redirect_stdout(io.StringIO()):
        return tables.render_ratio(m, "h200", os.path.join(ROOT, "README.md"))


v9, v8 = (tables.num(next(r for r in csv.DictReader(open(os.path.join(
    ROOT, "plots", "results", "h200", "ncu", "02-shortcut.csv"))) if r["version"] == v),
    "smsp__issue_active.avg.pct_of_peak_sustained_active") for v in ("v9", "v8"))
q = ("<!-- ratio h200/ncu/02-shortcut n=6300 version=v9 "
     "smsp__issue_active.avg.pct_of_peak_sustained_active / h200/ncu/02-shortcut n=6300 "
     "version=v8 smsp__issue_active.avg.pct_of_peak_sustained_active -->")
check(ratio("9.999" + q) == f"{v9 / v8:.3f}" + q and len(tables.UNMATCHED) == 1,
      "tables: a ratio mark is rewritten as the quotient of its two rows, with the prose's decimals")
half = "2.0<!-- ratio h200/ncu/02-shortcut n=6300 version=v9 gpu__time_duration.sum / " \
       "h200/ncu/02-shortcut n=6300 version=v99 gpu__time_duration.sum -->"
check(ratio(half) == half and len(tables.UNMATCHED) == 2,
      "tables: a ratio mark with a side that matches no row is left as it is and counted")
import re  # noqa: E402


# A graded mark quotes the speed ratio that a kept grading printed for one submission.
def graded(text):
    m = tables.GRADED.search(text)
    with contextlib.redirect_stdout(io.StringIO()):
        return tables.render_graded(m, os.path.join(ROOT, "README.md"))


n = len(tables.UNMATCHED)
q = "<!-- graded h200/grading-06-tensor-cores-grouped.txt {} -->"
want = {"reference": 1.0, "rowsorder": None, "colsorder": None}
for sub in want:  # the ratios as the kept file prints them, read here the plain way
    text = open(os.path.join(ROOT, "plots", "results", "h200",
                             "grading-06-tensor-cores-grouped.txt")).read()
    section = text.split(f"): {sub}\n", 1)[1].split("\ngrade ", 1)[0]
    want[sub] = re.search(r"speed .*?   (\d\.\d+) of the reference", section).group(1)
check(all(graded("9.999" + q.format(s)) == want[s] + q.format(s) for s in want)
      and len(tables.UNMATCHED) == n,
      f"tables: a graded mark is rewritten from its submission's speed line in the kept grading {want}")
check(graded("0.5" + q.format("starter")) == "0.5" + q.format("starter") and
      graded("0.5" + q.format("nobody")) == "0.5" + q.format("nobody") and
      len(tables.UNMATCHED) == n + 2,
      "tables: a graded mark of a submission with no speed ratio (not run) or of none is left "
      "as it is and counted as a failure")
# Every line of every chapter's ncu.args names a kernel that exists: a version of ours (or a
# variant with a kernel of its own, "v1-transposed") by a regex that matches one of the
# chapter's __global__ functions (a typo would cost a GPU run to find), an optional @N that is a
# launch number, and a -v that selects something.
import glob  # noqa: E402

for args_file in sorted(glob.glob(os.path.join(ROOT, "chapters", "*", "ncu*.args"))):
    chapter_dir = os.path.dirname(args_file)
    source = "".join(open(f).read() for ext in ("*.cu", "*.cuh")  # the program and its version files
                     for f in glob.glob(os.path.join(chapter_dir, ext)))
    kernels = re.findall(r"__global__\s+(?:void\s+)?(?:__launch_bounds__\([^)]*\)\s*)?(?:void\s+)?(\w+)",
                         source)
    bad = []
    for line in open(args_file):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        version, rest = line.split("|", 1)
        regex, args = rest.rsplit("|", 1)
        version, regex = version.strip(), regex.strip()
        m = re.fullmatch(r"(.*)@(\d+)", regex)
        regex = m.group(1) if m else regex
        if (m and int(m.group(2)) < 1) or " -v " not in f" {args} ":
            bad.append(line)
        elif re.fullmatch(r"v\d+[a-w]?(-[\w-]+)?", version) and not any(re.search(regex, k) for k in kernels):
            bad.append(line)
    check(not bad and kernels, f"{os.path.basename(args_file)} of {os.path.basename(chapter_dir)}: every line names a "
          f"kernel of the chapter (or a library's) and a version" + (f"; not: {bad}" if bad else ""))

p = tables.render_pivot("03-matmul input=random version=cublas,v13 | pct_of_baseline "
                        "tiles@128x256 waves@128x256x1", "h200")
rows = [l for l in p.splitlines() if l.startswith("| 4096 x 4096 x 4096 |")]
check(len(rows) == 1 and rows[0].split("|")[2].strip() == "100.0%" and
      rows[0].split("|")[4].strip() == "512" and rows[0].split("|")[5].strip() == "3.88",
      "tables: a pivot row per size, a column per version, tiles and waves from the SM count")
sys.exit(1 if failed else 0)
