"""What the plot and table scripts share: reading results CSVs by column name."""
import csv
import glob
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def read_csv(path):
    """Rows of a results CSV as dicts; numbers stay strings until asked for."""
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def num(row, column):
    """A column as a float, or None when it is empty (a rate that does not apply)."""
    v = row.get(column, "")
    return float(v) if v not in ("", None) else None


def result_files(results_dir):
    """The chapter CSVs of one GPU's results folder, in chapter order (not the .env.csv)."""
    return sorted(p for p in glob.glob(os.path.join(results_dir, "*.csv"))
                  if not p.endswith(".env.csv"))


def gpu_of(csv_path):
    """The GPU a results CSV was measured on, from the .env.csv beside it ('' when unknown)."""
    env = csv_path[:-len(".csv")] + ".env.csv"
    if not os.path.exists(env):
        return ""
    return {r["key"]: r["value"] for r in read_csv(env)}.get("gpu", "")


def chapter_of(csv_path):
    """'plots/results/h200/01-transpose.csv' -> '01-transpose'."""
    return os.path.basename(csv_path)[:-len(".csv")]


def size_label(row):
    """'8192 x 8192', or '2^28' style for one-dimensional sizes."""
    dims = [row["m"], row["n"], row["k"]]
    used = [d for d in dims if d != "1"] or ["1"]
    return " x ".join(used)


def size_key(row):
    return int(row["m"]) * int(row["n"]) * int(row["k"])


def matches(row, filters):
    """Whether a row has every filtered value; 'version=v0,v1' allows either."""
    return all(row.get(k) in v.split(",") for k, v in filters.items())


def parse_filters(words):
    """['m=8192', 'n=8192'] -> {'m': '8192', 'n': '8192'}."""
    return dict(w.split("=", 1) for w in words)


def headline_filters(chapter):
    """chapters/NN-topic/headline: the filters that pick a chapter's headline rows, such as
    'm=8192 n=8192' or 'n=1073741824 input=uniform'; {} when there is none."""
    filters = dict(_headline_file(chapter))
    for key in NOT_FILTERS:
        filters.pop(key, None)
    return filters


# Keys of a headline file that describe the chapter instead of picking rows: rate= (the column
# its figures show), also= (a second baseline), bytes= (what GB/s counts, when not "read +
# written") and ops= (what GFLOP/s counts, when not floating-point operations).
NOT_FILTERS = ("rate", "also", "bytes", "ops")


def headline_options(chapter):
    """Every key=value of the chapter's headline file."""
    return dict(_headline_file(chapter))


def _headline_file(chapter):
    # a chapter's second program (03-matmul-f64, 06-tensor-cores-fp8) shares its headline
    path = os.path.join(ROOT, "chapters", chapter.split("-f64")[0].split("-fp8")[0], "headline")
    if not os.path.exists(path):
        return {}
    with open(path) as f:
        return parse_filters(f.read().split())


def timing_of(row):
    """How a row was timed (the timing column): 'launch' (an event pair around each launch, and
    every row written before the column existed), 'batch', 'graph' or 'interleaved' (--interleave:
    the versions in turns)."""
    return row.get("timing") or "launch"


def one_timing(rows):
    """Where a chapter timed the same launches several ways (07: per launch, in batches, in a CUDA
    graph), the figures show one of them: the batches where there are any (the way nccl-tests
    times), else the launches, else the interleaved launches (a CSV made with --interleave
    alone); the tables name the others."""
    kinds = {timing_of(r) for r in rows}
    keep = next((k for k in ("batch", "launch", "interleaved") if k in kinds), "launch")
    return [r for r in rows if timing_of(r) == keep]


def sweep_rows(chapter, rows):
    """The rows of a size sweep: the headline's filters other than the sizes, so the timing the
    headline names where it names one (07: timing=launch, as the README's sweep tables), else
    one timing as the figures show it."""
    keep = {k: v for k, v in headline_filters(chapter).items() if k not in ("m", "n", "k")}
    rows = [r for r in rows if matches(r, keep)]
    return rows if "timing" in keep else one_timing(rows)


def headline(chapter, rows):
    """The rows a chapter's bar chart shows: those matching its headline filters; without
    them, the largest size measured. A headline that names a timing (07: timing=launch, every
    version at 1 GiB) picks it; else one timing as the figures show it."""
    filters = headline_filters(chapter)
    if "timing" not in filters:
        rows = one_timing(rows)
    if filters:
        return [r for r in rows if matches(r, filters)]
    if not rows:
        return []
    biggest = max(size_key(r) for r in rows)
    first_input = rows[0].get("input", "")
    return [r for r in rows if size_key(r) == biggest and r.get("input", "") == first_input]


def also_baseline(chapter):
    """The headline file's also=TAG: a second baseline the summary reports a ratio to (a
    ceiling that only some versions can reach, such as 02-shortcut's peak3), or None."""
    return _headline_file(chapter).get("also")


def rate_column(rows, chapter=None):
    """The rate a chapter is judged by: the headline file's rate= if it names one (a reduction
    counts additions but is judged by bandwidth), else GFLOP/s where operations are counted,
    else GB/s."""
    if chapter and "rate" in _headline_file(chapter):
        return _headline_file(chapter)["rate"]
    if any(num(r, "gflops") for r in rows):
        return "gflops"
    if any(num(r, "gbps") for r in rows):
        return "gbps"
    return None


UNITS = {"gflops": "GFLOP/s", "gbps": "GB/s (read + written, 1e9 B)"}
