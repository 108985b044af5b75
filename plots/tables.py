"""Fills the tables in the READMEs from the committed CSVs, so no number is ever typed.

A chapter README marks a table like this (filters select rows, the words after | are columns):
    <!-- table 01-transpose m=8192 n=8192 | version idea ms gbps pct_of_baseline -->
    <!-- /table -->
(a chapter measured on several GPUs names its results folder: <!-- table 2x-h200/07-multi-gpu ...),
a pivot puts one row per size and one column per version (the filter's versions, in its order),
each cell the named column of that version's row, and after them any VERSION:COLUMN asked for:
    <!-- pivot 03-matmul input=random version=cublas,v12,v16 | pct_of_baseline v16:extra_value -->
    <!-- /pivot -->
and a number in the prose may name the one row and column it quotes, written right after it:
    49,184<!-- result 03-matmul m=4096 n=4096 k=4096 version=v13 gflops --> GFLOP/s
(the number is rewritten from the CSV with as many decimals as it has, and --check fails when
it differs; the folder, as for tables, is the GPU's unless the name has one). A number derived
from two quoted values, their quotient, names both, " / " between them:
    3.2<!-- ratio h200/ncu/04-atomics n=16777216 version=v2 WAVEFRONTS / h200/ncu/04-atomics n=16777216 version=v2 INSTRUCTIONS -->
A column us_median is ms_median in microseconds, for latencies (07's small messages). The
timing column (launch, batch, graph, interleaved) filters like any other: timing=batch.
A number from a kept grading (make grade-sample's plots/results/<gpu>/grading*.txt) names the
file and the submission, and is the speed ratio its report printed:
    0.97<!-- graded h200/grading-06-tensor-cores-grouped.txt colsorder -->
And the top README marks the chapter summary with <!-- summary h200 --> ... <!-- /summary -->.
An exercise's statement (chapters/NN-topic/exercises/NAME/README.md) marks where its grading
table goes with <!-- rubric --> ... <!-- /rubric -->, filled from the exercise's rubric.toml; its
answer key may hold tables too. A chapter README lists its exercises between <!-- exercises -->
and <!-- /exercises -->.

usage: tables.py [--check] [--gpu h200]
  --check: change nothing; print FAIL for each README whose tables differ from the CSVs."""
import glob
import os
import re
import sys

from common import (ROOT, UNITS, also_baseline, headline, matches, num, parse_filters, rate_column,
                    read_csv, timing_of)

TABLE = re.compile(r"(<!-- table (.*?) -->\n)(.*?)(<!-- /table -->)", re.S)
RESULT = re.compile(r"(-?\d[\d,]*(?:\.\d+)?)(<!-- result (\S+) (.*?) (\S+) -->)")
RATIO = re.compile(r"(-?\d[\d,]*(?:\.\d+)?)(<!-- ratio (.*?) -->)")
GRADED = re.compile(r"(-?\d[\d,]*(?:\.\d+)?)(<!-- graded (\S+) (\S+) -->)")
QUOTE = re.compile(r"(\S+) (.*?) (\S+)$")  # NAME FILTERS COLUMN, as in a result mark
PIVOT = re.compile(r"(<!-- pivot (.*?) -->\n)(.*?)(<!-- /pivot -->)", re.S)
SUMMARY = re.compile(r"(<!-- summary (\S+) -->\n)(.*?)(<!-- /summary -->)", re.S)
RUBRIC = re.compile(r"(<!-- rubric -->\n)(.*?)(<!-- /rubric -->)", re.S)
# <!-- grading sample --> reads the default GPU's folder; <!-- grading sample h100-80gb-hbm3 -->
# names another
SAMPLE = re.compile(r"(<!-- grading sample(?: ([\w.-]+))? -->\n)(.*?)(<!-- /grading sample -->)", re.S)
EXERCISES = re.compile(r"(<!-- exercises( all)? -->\n)(.*?)(<!-- /exercises -->)", re.S)
sys.path.insert(0, os.path.join(ROOT, "classroom"))


def pct_of(row, tag, rows):
    """row's rate as a % of the rate of baseline `tag` at the same sizes and input, or None."""
    rate = rate_column(rows, row["chapter"])
    same = ("m", "n", "k", "input")
    base = next((r for r in rows if r["version"] == tag and all(r.get(c) == row.get(c) for c in same)
                 and timing_of(r) == timing_of(row)), None)
    if not rate or base is None or not num(base, rate) or num(row, rate) is None:
        return None
    return 100.0 * num(row, rate) / num(base, rate)


# Profiler counters (plots/results/<gpu>/ncu/CH.csv, base units) as a table shows them: a column
# written "metric/1e9" is the counter divided by 1e9, headed by the name below and that unit.
COUNTERS = {"dram__bytes_read.sum": "DRAM read", "lts__t_bytes.sum": "L2 traffic",
            "lts__t_sector_hit_rate.pct": "L2 hit rate %", "gpu__time_duration.sum": "time",
            "sm__cycles_elapsed.avg.per_second": "SM clock",
            "smsp__inst_executed.sum": "instructions",
            "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed": "tensor pipe busy %",
            "sm__inst_executed_pipe_tensor_op_hmma.sum": "tensor-core instructions",
            "sm__inst_executed_pipe_tensor_op_gmma.sum": "of them wgmma",
            "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum": "shared-memory bank conflicts",
            "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum": "shared-memory wavefronts",
            "dram__bytes_write.sum": "DRAM written",
            "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum": "global load requests",
            "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum": "global load sectors",
            "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum": "global store sectors",
            "lts__t_requests_srcunit_tex_op_read.sum": "L2 read requests",
            "lts__t_sectors_srcunit_tex_op_read.sum": "L2 read sectors",
            "dram__throughput.avg.pct_of_peak_sustained_elapsed": "DRAM throughput, % of peak",
            "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum": "shared load bank conflicts",
            "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum": "shared store bank conflicts",
            "smsp__issue_active.avg.pct_of_peak_sustained_active": "issue slots busy %",
            "sm__warps_active.avg.pct_of_peak_sustained_active": "warps active %",
            "sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active": "ALU pipe %",
            "sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active": "FMA pipe %",
            "sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active": "LSU pipe %",
            "smsp__average_warps_issue_stalled_wait_per_issue_active.ratio":
                "warps waiting on a fixed latency (wait), per issue",
            "smsp__average_warps_issue_stalled_dispatch_stall_per_issue_active.ratio":
                "warps stalled in dispatch, per issue",
            "smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio":
                "warps waiting on shared memory (short scoreboard), per issue",
            "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio":
                "warps waiting at a barrier, per issue",
            "smsp__warps_eligible.avg.per_cycle_active": "eligible warps per scheduler"}
SCALE_UNITS = {("dram__bytes_read.sum", "1e9"): "GB", ("lts__t_bytes.sum", "1e9"): "GB",
               ("dram__bytes_write.sum", "1e9"): "GB",
               ("gpu__time_duration.sum", "1e6"): "ms", ("gpu__time_duration.sum", "1e3"): "µs",
               ("sm__cycles_elapsed.avg.per_second", "1e6"): "MHz",
               ("smsp__inst_executed.sum", "1e6"): "millions"}


def fmt(row, col, rows):
    if "/" in col and col.split("/", 1)[0] in row:  # a counter, scaled
        name, div = col.split("/", 1)
        v = row.get(name, "")
        return "-" if v == "" else f"{float(v) / float(div):,.2f}"
    if col.startswith("pct_of:"):  # % of another baseline, from the rows of the same run
        pct = pct_of(row, col.split(":", 1)[1], rows)
        return "-" if pct is None else f"{pct:.1f}%"
    v = row.get(col, "")
    if col == "extra":  # the chapter's own figure, with its unit
        if not row.get("extra_value"):
            return "-"
        return f'{float(row["extra_value"]):.4g} {pretty_unit(row["extra_name"])}'
    if col == "us_median":  # a latency: the median in microseconds
        return "-" if not row["ms_median"] else f'{float(row["ms_median"]) * 1e3:.1f}'
    if col == "ms":
        if not row["ms_median"]:
            return "-"
        return f'{float(row["ms_median"]):.4f} [{float(row["ms_min"]):.4f}, {float(row["ms_max"]):.4f}]'
    if v == "":
        return "-"
    if col in ("ms_median", "ms_min", "ms_max"):
        return f"{float(v):.4f}"
    if col == "gbps":
        return f"{float(v):.0f}"
    if col == "gflops":
        return f"{float(v):,.0f}"
    if col == "pct_of_baseline":
        return f"{float(v):.1f}%"
    if col == "max_rel_err":
        return f"{float(v):.1e}"
    if col in COUNTERS:  # ratios per issued instruction are small: two decimals
        return f"{float(v):,.2f}" if col.endswith(".ratio") or col.endswith("per_cycle_active") \
            else f"{float(v):,.1f}"
    if col == "extra_value":
        return f"{float(v):.4g}"
    return v


def pretty_unit(name):
    """'ffma_per_clk_per_sm' -> 'ffma/clk/SM'."""
    return name.replace("_per_sm", "/SM").replace("_per_", "/").replace("_", " ")


def heading(col, rows):
    name, _, div = col.partition("/")
    if name in COUNTERS:
        unit = SCALE_UNITS.get((name, div), {"1e6": "millions", "": ""}.get(div, f"/ {div}"))
        return f"{COUNTERS[name]} ({unit})" if unit else COUNTERS[name]
    if col.startswith("pct_of:"):
        return f"% of {col.split(':', 1)[1]}"
    if col == "pct_of_baseline":
        if rows and rows[0]["chapter"] == "00-peaks":
            return "% of datasheet"
        ref = next((r["version"] for r in rows if num(r, "pct_of_baseline") == 100.0), "baseline")
        return f"% of {ref}"
    if col == "extra":
        return "per clock per SM" if all("per_clk_per_sm" in r["extra_name"] for r in rows) else "figure"
    if col == "extra_value":
        return next((r["extra_name"] for r in rows if r["extra_name"]), "extra").replace("_", " ")
    return {"ms": "ms median [min, max]", "ms_median": "ms (median)", "us_median": "µs (median)",
            "gbps": "GB/s",
            "gflops": "GFLOP/s", "max_rel_err": "max rel err", "ok": "check",
            # make power's columns (plots/power.py)
            "clock_mhz": "SM clock, MHz (median)", "power_w": "power, W (median)",
            "temp_c_max": "hottest, °C", "held_by": "clock held by",
            "mj_per_launch": "energy a launch, mJ",
            # make timeline's table (plots/timeline.py)
            "count": "samples", "median_us": "µs (median)", "min_us": "least", "max_us": "most"}.get(col, col)


def results_csv(name, gpu):
    """"07-multi-gpu" in the GPU's results folder, or "2x-h200/07-multi-gpu" (a folder of its own,
    for several GPUs or another GPU) as named."""
    return os.path.join(ROOT, "plots", "results", *([gpu] if "/" not in name else []), name + ".csv")


def select(spec, gpu):
    """A table's spec "NAME filters | columns" -> (csv path, filters, rows, columns, error text)."""
    where, _, cols = spec.partition("|")
    words = where.split()
    csv_path = results_csv(words[0], gpu)
    if not os.path.exists(csv_path):
        return csv_path, {}, [], [], f"(no results yet: {os.path.relpath(csv_path, ROOT)})\n"
    filters = parse_filters(words[1:])
    rows = [r for r in read_csv(csv_path) if matches(r, filters)]
    error = None if rows else f"(no rows of {words[0]} match {' '.join(words[1:])})\n"
    return csv_path, filters, rows, cols.split(), error


def natural(text):
    """'tc_v10_x' after 'tc_v9_y': the numbers in a name compared as numbers."""
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", text)]


def render_table(spec, gpu):
    _, _, rows, cols, error = select(spec, gpu)
    if error:
        return error
    if rows and "kernel" in rows[0] and "version" not in rows[0]:  # evidence: the ladder's order
        rows = sorted(rows, key=lambda r: natural(r["kernel"]))
    lines = ["| " + " | ".join(heading(c, rows) for c in cols) + " |",
             "|" + "|".join("---" for _ in cols) + "|"]
    lines += ["| " + " | ".join(fmt(r, c, rows) for c in cols) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def render_pivot(spec, gpu):
    csv_path, filters, rows, cols, error = select(spec, gpu)
    if error or "version" not in filters:
        return error or "(a pivot needs version=... for its columns)\n"
    value, extras = cols[0], [c.split(":", 1) for c in cols[1:] if "@" not in c]
    # tiles@BMxBN: the tiles of C of that shape; waves@BMxBNxB: tiles / (B blocks an SM x the SMs
    # of the run's GPU, from its env.csv): the arithmetic the chapter's README works through
    derived = [c.split("@", 1) for c in cols[1:] if "@" in c]
    # bytes@4: the size column names the buffer in bytes (n elements of 4 bytes: '4 KiB'), where
    # m and k are 1 and the element count alone would make the reader multiply
    unit = [int(sp) for k, sp in derived if k == "bytes"]
    derived = [d for d in derived if d[0] != "bytes"]
    env = dict((r["key"], r["value"]) for r in read_csv(csv_path[:-4] + ".env.csv"))
    versions = filters["version"].split(",")
    sizes = []
    for r in rows:
        key = (r["m"], r["n"], r["k"])
        if key not in sizes:
            sizes.append(key)
    cell = {(r["m"], r["n"], r["k"], r["version"]): r for r in rows}
    same_size = [[r for r in rows if (r["m"], r["n"], r["k"]) == s] for s in sizes]
    def shape_of(spec):
        dims = [int(x) for x in spec.split("x")]
        return dims + [1] * (3 - len(dims))

    def derive(kind, spec, size):
        bm, bn, per_sm = shape_of(spec)
        count = -(-int(size[0]) // bm) * -(-int(size[1]) // bn)
        if kind == "tiles":
            return f"{count:,}"
        return f"{count / (per_sm * int(env['sm_count'])):.2f}"

    head = ["size"] + versions + [f"{v} {heading(c, rows)}" for v, c in extras]
    head += [f"{k} of {' x '.join(str(d) for d in shape_of(sp)[:2])}" +
             (f", {shape_of(sp)[2]} an SM" if k == "waves" else "") for k, sp in derived]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    for s, group in zip(sizes, same_size):
        out = [binary_bytes(int(s[0]) * int(s[1]) * int(s[2]) * unit[0]) if unit else " x ".join(s)]
        for v in versions:
            r = cell.get(s + (v,))
            out.append("-" if r is None else fmt(r, value, group))
        for v, c in extras:
            r = cell.get(s + (v,))
            picked = r is not None and c == "extra_value" and r["extra_name"] == "picked"
            out.append("-" if r is None else f"v{fmt(r, c, group)}" if picked and r["extra_value"]
                       else fmt(r, c, group))
        out += [derive(k, sp, s) for k, sp in derived]
        lines.append("| " + " | ".join(out) + " |")
    return "\n".join(lines) + "\n"


def binary_bytes(b):
    """4096 -> '4 KiB', 2**30 -> '1 GiB'; a count that is no whole unit keeps its bytes."""
    for shift, name in ((30, "GiB"), (20, "MiB"), (10, "KiB")):
        if b >= 1 << shift and b % (1 << shift) == 0:
            return f"{b >> shift} {name}"
    return f"{b:,} B"


UNMATCHED = []  # result marks with no single row to quote: make test fails on them


def written_as(old, value):
    """value with as many decimals as the text's number, and its thousands commas if it had them."""
    decimals = len(old.split(".")[1]) if "." in old else 0
    return f"{value:,.{decimals}f}" if "," in old else f"{value:.{decimals}f}"


def quoted_value(name, where, col, gpu):
    """The one value a result mark quotes, and how many rows matched (None unless exactly one)."""
    csv_path = results_csv(name, gpu)
    rows = [r for r in read_csv(csv_path) if matches(r, parse_filters(where.split()))] \
        if os.path.exists(csv_path) else []
    name_col, _, div = col.partition("/")  # a counter may be scaled, as in tables
    value = None if len(rows) != 1 or num(rows[0], name_col) is None else \
        num(rows[0], name_col) / (float(div) if div else 1.0)
    if col.startswith("pct_of:") and len(rows) == 1:  # % of another baseline of the same run
        value = pct_of(rows[0], col.split(":", 1)[1], read_csv(csv_path))
    return value, len(rows)


def rewritten(old, mark, value, path, why):
    """A mark's number rewritten from its value, as the text wrote it; where there is no value,
    left as it is, FAIL with why, and counted (make test fails on it)."""
    if value is None:
        print(f"FAIL {os.path.relpath(path, ROOT)}: {why}")
        UNMATCHED.append(mark)
        return old + mark
    return written_as(old, value) + mark


def render_ratio(match, gpu, path):
    """The number of a `ratio` mark: the quotient of the two values it quotes."""
    old, mark, body = match.groups()
    sides = [QUOTE.match(side.strip()) for side in body.split(" / ")]
    values = [quoted_value(*side.groups(), gpu) for side in sides if side] if len(sides) == 2 \
        else []
    ok = len(values) == 2 and None not in (values[0][0], values[1][0]) and values[1][0] != 0
    return rewritten(old, mark, values[0][0] / values[1][0] if ok else None, path,
                     f"the ratio mark '{body}' does not quote two values, one row each")


def render_result(match, gpu, path):
    """The number of a `result` mark, from the CSV, written as the text wrote it."""
    old, mark, name, where, col = match.groups()
    value, count = quoted_value(name, where, col, gpu)
    return rewritten(old, mark, value, path,
                     f"{count} rows of {name} match {where} with a value of {col}")


def graded_speed(where, submission):
    """The speed ratio that submission's report printed in the kept grading plots/results/<where>,
    or None: the line '  speed ... 0.973 of the reference solution's speed' of the section
    'grade <exercise> (...): <submission>'."""
    path = os.path.join(ROOT, "plots", "results", where)
    if not os.path.exists(path):
        return None
    section = None
    with open(path) as f:
        for line in f:
            if line.startswith("grade "):
                section = line.rstrip("\n").rsplit(": ", 1)[-1]
            elif section == submission and line.strip().startswith("speed "):
                m = re.search(r"(\d+\.\d+) of the reference solution's speed", line)
                return float(m.group(1)) if m else None
    return None


def render_graded(match, path):
    """The number of a `graded` mark, from the kept grading, written as the text wrote it."""
    old, mark, where, submission = match.groups()
    return rewritten(old, mark, graded_speed(where, submission), path,
                     f"plots/results/{where} has no speed ratio for the submission {submission}")


def pretty_size(row):
    """'8192 x 8192', or '2^28' for a large power of two."""
    dims = [int(x) for x in (row["m"], row["n"], row["k"]) if x != "1"] or [1]
    if len(dims) == 1 and dims[0] >= 1 << 16 and dims[0] & (dims[0] - 1) == 0:
        return f"2^{dims[0].bit_length() - 1}"
    return " x ".join(str(d) for d in dims)


def lesson(chapter_dir):
    """The chapter README's title after the colon: '# 01 transpose: which addresses ...'."""
    path = os.path.join(chapter_dir, "README.md")
    if not os.path.exists(path):
        return ""
    with open(path) as f:
        title = f.readline().strip("# \n")
    return title.split(":", 1)[1].strip() if ":" in title else title


def render_summary(gpu):
    lines = ["| chapter | what it teaches | headline size | best version | rate | vs. baseline |",
             "|---|---|---|---|---|---|"]
    for d in sorted(glob.glob(os.path.join(ROOT, "chapters", "[0-9][0-9]-*"))):
        chapter = os.path.basename(d)
        csv_path = os.path.join(ROOT, "plots", "results", gpu, chapter + ".csv")
        link = f"[{chapter}](chapters/{chapter}/)"
        on = ""  # a multi-GPU chapter's results sit under <count>x-<gpu>/: the most GPUs it ran on
        multi = sorted(glob.glob(os.path.join(ROOT, "plots", "results", f"*x-{gpu}", chapter + ".csv")),
                       key=lambda p: int(os.path.basename(os.path.dirname(p)).split("x-")[0]))
        if not os.path.exists(csv_path) and multi:
            csv_path = multi[-1]
            on = f" on {os.path.basename(os.path.dirname(csv_path)).split('x-')[0]} GPUs"
        if not os.path.exists(csv_path):
            lines.append(f"| {link} | {lesson(d)} | - | - | - | - |")
            continue
        every = headline(chapter, read_csv(csv_path))
        rows = [r for r in every if r["ok"] == "yes"]
        if chapter == "00-peaks":  # ceilings, not a ladder: list them
            peaks = {}
            for r in read_csv(csv_path):  # the first run's rows: the largest copy
                if r["ok"] == "yes":
                    peaks.setdefault(r["version"], r)
            parts = []
            for tag, col, unit, scale in (("memcpy", "gbps", "GB/s", 1), ("fma", "gflops", "TFLOP/s FP32", 1e3),
                                          ("addmin", "gflops", "T add+min ops/s", 1e3)):
                if tag in peaks and num(peaks[tag], col):
                    parts.append(f"{num(peaks[tag], col) / scale:,.{0 if scale == 1 else 1}f} {unit}")
            lines.append(f"| {link} | {lesson(d)} | - | ceilings | {'; '.join(parts)} | - |")
            continue
        rate = rate_column(rows, chapter)
        # the main ladder's rows (v9, v9a), not the experiments beside them (v12-lag1)
        ours = [r for r in rows if re.fullmatch(r"v[0-9]+[a-w]?", r["version"])] or rows
        if not rate or not ours:
            lines.append(f"| {link} | {lesson(d)} | - | - | - | - |")
            continue
        best = max(ours, key=lambda r: num(r, rate) or 0.0)
        base = next((r["version"] for r in every if num(r, "pct_of_baseline") == 100.0), None)
        pct = f'{float(best["pct_of_baseline"]):.1f}% of {base}' if base and best["pct_of_baseline"] else "-"
        also = also_baseline(chapter)
        if also and pct_of(best, also, every) is not None:
            pct += f", {pct_of(best, also, every):.1f}% of {also}"
        unit = UNITS[rate].split(" ")[0]
        lines.append(f'| {link} | {lesson(d)} | {pretty_size(best)}{on} | {best["version"]} {best["idea"]} | '
                     f'{num(best, rate):,.0f} {unit} | {pct} |')
    return "\n".join(lines) + "\n"


def render_rubric(path):
    """The grading table of the exercise whose statement is at `path`, from its rubric.toml."""
    import exercises  # classroom/: reading rubrics needs Python 3.11 (tomllib) or tomli
    import kits
    parts = os.path.normpath(path).split(os.sep)
    return kits.rubric_text(exercises.Exercise(parts[-4], parts[-2]))


def render_exercises(path, every):
    """The table of a chapter's exercises for its README at `path`, or of all of them."""
    import exercises
    chapter = os.path.basename(os.path.dirname(path))
    lines = ["| chapter | exercise | writes | what it teaches |" if every else
             "| exercise | writes | what it teaches |", "|---|---|---|---|" if every else "|---|---|---|"]
    for ex in exercises.all_exercises():
        link = os.path.relpath(os.path.join(ex.dir, "README.md"), os.path.dirname(path))
        if every:
            lines.append(f"| {ex.chapter} | [{ex.name}]({link}) | {ex.version} | {ex.title} |")
        elif ex.chapter == chapter:
            lines.append(f"| [{ex.name}]({link}) | {ex.version} | {ex.title} |")
    return "\n".join(lines) + "\n"


def render_sample(gpu):
    """The grading sample that make grade-sample keeps in plots/results/<gpu>/grading.txt."""
    path = os.path.join(ROOT, "plots", "results", gpu, "grading.txt")
    if not os.path.exists(path):
        return f"(no sample yet: make grade-sample on the {gpu})\n"
    with open(path) as f:
        text = f.read().rstrip("\n")
    return f"From `plots/results/{gpu}/grading.txt`:\n\n```\n{text}\n```\n"


def main():
    check = "--check" in sys.argv
    gpu = sys.argv[sys.argv.index("--gpu") + 1] if "--gpu" in sys.argv else "h200"
    readmes = [os.path.join(ROOT, "README.md"), os.path.join(ROOT, "docs", "instructors.md")]
    readmes += sorted(
        glob.glob(os.path.join(ROOT, "chapters", "*", "README.md"))) + sorted(
        glob.glob(os.path.join(ROOT, "chapters", "*", "exercises", "*", "*.md")))
    stale = 0
    for path in readmes:
        if not os.path.exists(path):
            continue
        with open(path) as f:
            text = f.read()
        new = TABLE.sub(lambda m: m.group(1) + render_table(m.group(2), gpu) + m.group(4), text)
        new = PIVOT.sub(lambda m: m.group(1) + render_pivot(m.group(2), gpu) + m.group(4), new)
        new = RESULT.sub(lambda m: render_result(m, gpu, path), new)
        new = RATIO.sub(lambda m: render_ratio(m, gpu, path), new)
        new = GRADED.sub(lambda m: render_graded(m, path), new)
        new = SUMMARY.sub(lambda m: m.group(1) + render_summary(m.group(2)) + m.group(4), new)
        new = RUBRIC.sub(lambda m: m.group(1) + render_rubric(path) + m.group(3), new)
        new = SAMPLE.sub(lambda m: m.group(1) + render_sample(m.group(2) or gpu) + m.group(4), new)
        new = EXERCISES.sub(lambda m: m.group(1) + render_exercises(path, bool(m.group(2))) +
                            m.group(4), new)
        rel = os.path.relpath(path, ROOT)
        count = len(TABLE.findall(text)) + len(PIVOT.findall(text)) + len(RESULT.findall(text)) + len(RATIO.findall(text)) + len(GRADED.findall(text)) + len(SUMMARY.findall(text)) + len(RUBRIC.findall(text)) + \
            len(EXERCISES.findall(text)) + len(SAMPLE.findall(text))
        if new == text:
            print(f"PASS tables in {rel} match the CSVs ({count} tables)")
        elif check:
            stale += 1
            print(f"FAIL tables in {rel} differ from the CSVs: run make plots")
        else:
            with open(path, "w") as f:
                f.write(new)
            print(f"PASS tables in {rel} regenerated ({count} tables)")
    sys.exit(1 if stale or UNMATCHED else 0)


if __name__ == "__main__":
    main()
