"""reports.py: what a grading writes: its summary (the console's lines), results.json in
Gradescope's autograder format (incomplete.json, without a total, when the grader could not
finish), junit.xml, report.txt (every case's whole output, for the instructor only), and the
class's gradebook.csv, one row a student.
"""
import csv
import io
import json
import os
import sys
import time
from xml.etree import ElementTree as ET

from scoring import secret_bytes


def summary(g):
    """The grading in a few lines: the console's, and the head of results.json and report.txt."""
    score, most = g.total()
    lines = [f"grade {g.ex.label} ({g.ex.title}): {g.student}",
             f"  seed {g.seed}" + ("" if secret_bytes() else
                                   " (no GRADE_SECRET: the secret cases are public)")]
    if g.incomplete:
        lines.append(f"  INCOMPLETE: {g.incomplete}")
    width = max(len(c.name) for c in g.cases)
    for c in g.cases:
        first = c.output.split("\n")[0]
        lines.append(f"  {c.name:<{width}}  {c.score:5.1f} / {c.max_score:<4.3g} {first}")
    for n in g.notes:
        lines.append(f"  note: {n}")
    # an incomplete grading has no total: no partial score may be taken for a grade
    total = "no total: the grading did not finish" if g.incomplete else \
        f"{score:5.1f} / {most:<4.3g}"
    lines.append(f"  {'total':<{width}}  {total} "
                 f"(compile {g.case('compile')[0].seconds:.1f} s, GPU {g.gpu_seconds:.1f} s)")
    return "\n".join(lines)


def write_grading(g):
    """results.json (Gradescope's format), junit.xml and report.txt. A grading the grader
    could not finish writes incomplete.json instead of results.json, without a total, so
    that no course tool takes its partial score for a grade."""
    score, most = g.total()
    text = summary(g)
    seconds = time.monotonic() - g.t0
    results = {
        "score": round(score, 2),
        "execution_time": round(seconds, 1),
        "output": text + "\n",
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "tests": [{"name": c.name, "score": round(c.score, 2), "max_score": round(c.max_score, 2),
                   "status": "passed" if c.passed else "failed", "output": c.output,
                   "visibility": c.visibility} for c in g.cases],
    }
    for stale in ("results.json", "incomplete.json"):
        if os.path.exists(os.path.join(g.out_dir, stale)):
            os.remove(os.path.join(g.out_dir, stale))
    if g.incomplete:
        del results["score"]
        results["incomplete"] = g.incomplete
        atomic_write(os.path.join(g.out_dir, "incomplete.json"),
                     json.dumps(results, indent=2) + "\n")
    else:
        atomic_write(os.path.join(g.out_dir, "results.json"),
                     json.dumps(results, indent=2) + "\n")
    atomic_write(os.path.join(g.out_dir, "junit.xml"), junit(g, seconds))
    atomic_write(os.path.join(g.out_dir, "report.txt"), text + "\n\n" + details(g))
    return text


def details(g):
    """Every case's whole output, for the instructor: the secret cases' sizes included."""
    out = []
    for c in g.cases:
        args = f" (args: {c.args})" if c.secret else ""
        private = f"\n{c.private}" if c.private else ""
        out.append(f"== {c.name}{args}: {c.score:.2f} / {c.max_score:g} ({c.seconds:.1f} s)\n"
                   f"{c.output}{private}\n")
    return "\n".join(out)


def junit(g, seconds):
    failures = sum(not c.passed and not c.skipped for c in g.cases)
    suite = ET.Element("testsuite", name=g.ex.label, tests=str(len(g.cases)),
                       failures=str(failures), errors="0",
                       skipped=str(sum(c.skipped for c in g.cases)), time=f"{seconds:.1f}")
    props = ET.SubElement(suite, "properties")
    score, most = g.total()
    # an incomplete grading has no score property, only the reason
    for k, v in (("student", g.student),
                 ("incomplete", g.incomplete) if g.incomplete else ("score", f"{score:.2f}"),
                 ("max_score", f"{most:g}"), ("seed", str(g.seed))):
        ET.SubElement(props, "property", name=k, value=v)
    for c in g.cases:
        tc = ET.SubElement(suite, "testcase", classname=f"{g.ex.chapter}.{g.ex.name}",
                           name=c.name, time=f"{c.seconds:.1f}")
        if c.skipped:
            ET.SubElement(tc, "skipped", message=g.incomplete or "not run")
        elif not c.passed:
            f = ET.SubElement(tc, "failure", message=c.output.split("\n")[0][:200])
            f.text = c.output
        out = ET.SubElement(tc, "system-out")
        out.text = f"score {c.score:.2f} of {c.max_score:g}\n{c.output}"
    root = ET.Element("testsuites")
    root.append(suite)
    return ET.tostring(root, encoding="unicode") + "\n"


def atomic_write(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


GRADEBOOK_HEAD = ["student", "total", "max_score", "incomplete"]


def gradebook_row(g):
    score, most = g.total()
    return [g.student, "" if g.incomplete else f"{score:.2f}", f"{most:g}",
            g.incomplete or ""] + ["" if c.skipped else f"{c.score:.2f}" for c in g.cases]


def write_gradebook(ex, gradings, path, skipped=()):
    """One row a student; what was skipped gets a row too, with no total and the reason."""
    names = [c.name for c in gradings[0].cases] if gradings else []
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(GRADEBOOK_HEAD + names)
    for g in gradings:
        w.writerow(gradebook_row(g))
    for name, why in skipped:
        w.writerow([name, "", "", f"skipped: {why}"] + [""] * len(names))
    atomic_write(path, buf.getvalue())
    print(f"wrote {path}: {len(gradings)} students" +
          (f", {len(skipped)} entries skipped (their rows say why)" if skipped else ""))


def update_gradebook(ex, g, path):
    """After `make grade` of one student into a class's folder (OUT=grades/alice beside
    grades/gradebook.csv): that student's row is replaced, or added, so the gradebook says
    what the newest grading says."""
    if not os.path.isfile(path) or os.path.islink(path):
        return
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    row = gradebook_row(g)
    if not rows or rows[0] != GRADEBOOK_HEAD + [c.name for c in g.cases]:
        print(f"grade: {path} has other columns (another exercise?): left as it was", file=sys.stderr)
        return
    body = [r for r in rows[1:] if r and r[0] != g.student]
    body.append(row)
    body.sort(key=lambda r: r[0])
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerows([rows[0]] + body)
    atomic_write(path, buf.getvalue())
    print(f"updated {path}: {g.student}'s row")
