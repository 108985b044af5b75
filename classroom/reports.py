"""reports.py: what a grading writes: its summary (the console's lines), results.json in
Gradescope's autograder format, with leaderboard entries from the speed case (incomplete.json,
without a total, when the grader could not finish), junit.xml, report.txt (every case's whole output, for the instructor only), and the
class's gradebook.csv, one row a student.
"""
import csv
import datetime
import io
import json
import os
import sys
import time
from xml.etree import ElementTree as ET

from scoring import secret_bytes, secret_id, secret_missing


def counted(n, one, many):
    """'1 entry', '2 entries': a count with its noun."""
    return f"{n} {one if n == 1 else many}"


def summary(g):
    """The grading in a few lines: the console's, and the head of results.json and report.txt."""
    score, most = g.total()
    lines = [f"grade {g.ex.label} ({g.ex.title}): {g.student}",
             f"  seed {g.seed}" + ("" if secret_bytes() else
                                   f" (no secret: the secret cases are public; {secret_missing()})")]
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
    # Gradescope's leaderboard: the speed case's rate (the chapter's: GB/s or GFLOP/s, the median
    # over the protocol's rounds) and its ratio to the reference solution, where it was measured
    board = [e for c in g.cases for e in c.leaderboard]
    if board and not g.incomplete:
        results["leaderboard"] = board
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


class Book:
    """What keys and dates the gradebook's rows: an optional roster, {folder: (id, name)} in
    the roster's order (read_roster), and an optional deadline, a timezone-aware datetime
    (parse_deadline)."""
    def __init__(self, roster=None, deadline=None):
        self.roster, self.deadline = roster, deadline

    def head(self, cases):
        return ((["id", "name", "roster"] if self.roster is not None else [])
                + ["student", "total", "max_score", "incomplete"]
                + (["submitted", "deadline", "late"] if self.deadline else []) + cases + ["secret"])


def read_roster(path):
    """{folder: (id, name)} from a CSV file with the columns id, name and folder (a header row,
    any order, any other columns ignored), in its order. Raises ValueError saying what is wrong."""
    with open(path, newline="", encoding="utf-8-sig") as f:
        rows = list(csv.reader(f))
    head = [h.strip().lower() for h in rows[0]] if rows else []
    if not all(k in head for k in ("id", "name", "folder")):
        raise ValueError(f"{path}: the first row must name the columns id, name and folder")
    col = {k: head.index(k) for k in ("id", "name", "folder")}
    roster = {}
    for n, row in enumerate(rows[1:], 2):
        if not any(c.strip() for c in row):
            continue
        cell = lambda k: row[col[k]].strip() if col[k] < len(row) else ""
        folder = cell("folder") or cell("id")  # no folder named: the id is the folder's name
        if folder in roster:
            raise ValueError(f"{path}, row {n}: folder {folder} is on the roster twice")
        roster[folder] = (cell("id"), cell("name"))
    return roster


def parse_deadline(text, what="DEADLINE"):
    """An ISO 8601 time ("2025-03-01T23:59:00+01:00", "...Z"); one without a zone is the grading
    machine's local time. A date alone is refused: midnight at its start, or its end, would be a
    guess. Raises ValueError saying what to write; `what` names where the text came from."""
    form = "write it as 2025-03-01T23:59:00+01:00 (ISO 8601; without a zone, this machine's time)"
    text = text.strip()
    said = f"{what}={text!r}" if what == "DEADLINE" else f"{what} {text!r}"
    try:
        t = datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(f"{said} is not a time: {form}") from None
    if len(text) <= 10:  # 2025-03-01: fromisoformat makes it 00:00
        raise ValueError(f"{said} has no time of day: {form}")
    return t if t.tzinfo else t.astimezone()


def iso(t):
    return t.astimezone(datetime.timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


def late_cells(submitted, deadline):
    """The submitted, deadline and late columns: late in hours past the deadline (0 on time),
    empty when the submission has no time."""
    if submitted is None:
        return ["", iso(deadline), ""]
    hours = (submitted - deadline).total_seconds() / 3600
    return [iso(submitted), iso(deadline), f"{hours:.2f}" if hours > 0 else "0"]


def gradebook_row(g, book, who=("", "", "")):
    """One gradebook row (a dict by column) for grading g; who: its id, name and roster flag."""
    score, most = g.total()
    row = dict(zip(("id", "name", "roster"), who))
    row.update(student=g.student, total="" if g.incomplete else f"{score:.2f}",
               max_score=f"{most:g}", incomplete=g.incomplete or "")
    # an unfinished grading's cases are empty too: no partial score to add up as a grade
    row.update({c.name: "" if c.skipped or g.incomplete else f"{c.score:.2f}" for c in g.cases})
    row["secret"] = g.secret_id
    if book.deadline:
        row.update(zip(("submitted", "deadline", "late"), late_cells(g.submitted[0], book.deadline)))
    return row


def write_rows(path, head, rows):
    buf = io.StringIO()
    w = csv.DictWriter(buf, head, restval="", extrasaction="ignore", lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
    atomic_write(path, buf.getvalue())


def write_gradebook(ex, gradings, path, skipped=(), book=None):
    """One row a student; what was skipped gets a row too, with no total and the reason. With a
    roster: its students first, in its order, each with their id and name (one with no
    submission a row "missing"), then the submissions not on it, flagged; with a deadline: when
    each was handed in and how late."""
    book = book or Book()
    head = book.head([c.name for c in gradings[0].cases] if gradings else [])
    by_folder = {g.student: g for g in gradings}
    rows, missing, extra = [], [], []
    for folder, (sid, name) in (book.roster or {}).items():
        if folder in by_folder:
            rows.append(gradebook_row(by_folder.pop(folder), book, (sid, name, "")))
        elif folder not in dict(skipped):
            missing.append(folder)
            rows.append({"id": sid, "name": name, "roster": "no submission", "student": folder,
                         "incomplete": f"missing: no submission {folder} in the submissions folder",
                         **({"deadline": iso(book.deadline)} if book.deadline else {})})
    for g in gradings:
        if g.student in by_folder:
            flag = "not on the roster" if book.roster is not None else ""
            extra += [g.student] if flag else []
            rows.append(gradebook_row(g, book, ("", "", flag)))
    for name, why in skipped:
        sid, full = (book.roster or {}).get(name, ("", ""))
        rows.append({"id": sid, "name": full, "student": name, "incomplete": f"skipped: {why}"})
    write_rows(path, head, rows)
    print(f"wrote {path}: {counted(len(gradings), 'student', 'students')}" +
          (f", {counted(len(skipped), 'entry', 'entries')} skipped (their rows say why)"
           if skipped else "") +
          (f", {len(missing)} on the roster with no submission (rows 'missing')" if missing else "") +
          (f", {len(extra)} not on the roster (graded, flagged)" if extra else ""))


def class_gradebook(out):
    """The gradebook of the class whose folder holds a student's report folder `out`."""
    return os.path.join(os.path.dirname(os.path.abspath(out)), "gradebook.csv")


def read_gradebook(path):
    """(head, rows) of a gradebook; ([], []) when there is none to update."""
    if not os.path.isfile(path) or os.path.islink(path):
        return [], []
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
        f.seek(0)
        head = next(csv.reader(f), [])
    return head, rows


def gradebook_secrets(path):
    """The secrets (secret_id) that graded a gradebook's rows."""
    return {r["secret"] for r in read_gradebook(path)[1] if r.get("secret")}


def row_deadline(rows, student, path="the gradebook"):
    """The deadline a gradebook names for a student: their row's (an extension), else the
    class's; None without one. Raises ValueError for a cell that is no time."""
    old = next((r for r in rows if r.get("student") == student), None)
    named = (old or {}).get("deadline") or next((r["deadline"] for r in rows if r.get("deadline")), "")
    return parse_deadline(named, f"{path}: {student}'s deadline cell") if named else None


def update_gradebook(ex, g, path, deadline=None):
    """After `make grade` of one student into a class's folder (OUT=grades/alice beside
    grades/gradebook.csv): that student's row is replaced, or added, so the gradebook says
    what the newest grading says. The roster's columns are kept from the old row; the late
    column follows `deadline`, else the deadline the old row names."""
    head, rows = read_gradebook(path)
    if not head:
        return
    cases = [c.name for c in g.cases]
    old = next((r for r in rows if r.get("student") == g.student), None)
    if deadline is None and "deadline" in head:  # the deadline the rows name (an extension: its own)
        deadline = row_deadline(rows, g.student)
    book = Book({} if "roster" in head else None, deadline if "late" in head else None)
    if head != book.head(cases) or ("late" in head and not deadline):
        print(f"grade: {path} has other columns (another exercise?): left as it was", file=sys.stderr)
        return
    others = gradebook_secrets(path) - {g.secret_id}
    if others:  # grade.py refuses this before grading; a gradebook edited meanwhile gets here
        print(f"grade: {path} was graded with another secret: left as it was", file=sys.stderr)
        return
    if old:  # a roster's student with no submission at the class's grading has one now
        who = (old.get("id", ""), old.get("name", ""),
               "" if old.get("roster") == "no submission" else old.get("roster", ""))
    else:
        who = ("", "", "not on the roster" if "roster" in head else "")
    row = gradebook_row(g, book, who)
    i = next((i for i, r in enumerate(rows) if r.get("student") == g.student), None)
    if i is None:
        rows.append(row)
    else:
        rows[i] = row
    write_rows(path, head, rows)
    print(f"updated {path}: {g.student}'s row")
