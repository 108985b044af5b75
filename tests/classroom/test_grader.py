#!/usr/bin/env python3
"""test_grader.py: the tests of the exercises, the kits and the grader. One PASS or FAIL line per
check, counted by tests/run.sh.

  test_grader.py cpu   no GPU needed (make test, CI): rubrics, statements, every kit builds, the
                       splicer keeps the kit's text and refuses regions that reach outside, the
                       reports' formats, cheats that never reach the GPU, the secret, time limits
  test_grader.py gpu   the GPU part of make test: every exercise's reference solution scores full
                       points and its untouched kit scores no correctness point; planted bugs
                       (tests/classroom/plants) are each caught where they should be
"""
import concurrent.futures
import csv
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from xml.etree import ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "classroom"))  # the grader itself
import exercises  # noqa: E402
import sandbox  # noqa: E402
import scoring  # noqa: E402
import source  # noqa: E402
import toolchain  # noqa: E402

ROOT = exercises.ROOT
failed = 0


def check(ok, what, detail=""):
    global failed
    print(f"{'PASS' if ok else 'FAIL'} {what}" + (f": {detail}" if detail and not ok else ""))
    failed += not ok
    return ok


def make(*args, log=None):
    # -o all: make test built everything first; several of these run at once, and none may
    # rewrite build/ under the others
    p = subprocess.run(["make", "-s", "--no-print-directory", "-o", "all", *args], cwd=ROOT,
                       capture_output=True, text=True)
    if log:
        with open(log, "w") as f:
            f.write(p.stdout + p.stderr)
    return p


def plant(name):
    """A planted region body: (exercise label, body)."""
    with open(os.path.join(HERE, "plants", name + ".cu")) as f:
        text = f.read()
    return text.split("\n")[0][3:].split()[0], text.rstrip("\n").split("\n")


def with_bodies(text, exercise, bodies):
    """`text` (a kit's source) with region i's body replaced by bodies[i] (a list of lines)."""
    lines = text.split("\n")
    for i, r in reversed(list(enumerate(source.regions(lines, exercise)))):
        if i in bodies:
            lines[r.begin + 1:r.end] = bodies[i]
    return "\n".join(lines)


def write_sub(folder, ex, text):
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, ex.topic + ".cu"), "w") as f:
        f.write(text)
    return folder


def results(out):
    with open(os.path.join(out, "results.json")) as f:
        return json.load(f)


def case_scores(res):
    return {t["name"]: t for t in res["tests"]}


# ---- no GPU ------------------------------------------------------------------------------------

def test_exercises():
    exs = exercises.all_exercises()
    p = subprocess.run([sys.executable, os.path.join(ROOT, "classroom", "grade.py"), "check"],
                       capture_output=True, text=True)
    for line in p.stdout.splitlines():
        print(line)
    global failed
    failed += p.stdout.count("FAIL")
    check(p.returncode == 0 and "FAIL" not in p.stdout, "grade.py check: every exercise is well formed")
    listing = make("exercises").stdout
    rows = [line.split() for line in listing.splitlines()]
    starts = {line.index(ex.name) for line in listing.splitlines() for ex in exs
              if line.startswith(ex.chapter + " ") and f" {ex.name} " in line}
    check(all([ex.chapter, ex.name, ex.version] == r[:3] for ex in exs for r in rows
              if r[:2] == [ex.chapter, ex.name]) and
          sum(r[:2] in ([ex.chapter, ex.name] for ex in exs) for r in rows) == len(exs)
          and len(starts) == 1,
          f"make exercises lists all {len(exs)} exercises, each column in line")
    # a rubric whose points do not add up is caught
    ex = exercises.Exercise(exs[0].chapter, exs[0].name)
    ex.rubric = dict(ex.rubric, speed=dict(ex.rubric["speed"], points=5))
    check(any("add up" in p for p in exercises.validate(ex)),
          "a rubric whose points do not add up is refused")
    return exs


def test_bad_input(tmp):
    """The make targets' mistakes get one line and exit 2 (make reports "Error 2")."""
    os.makedirs(os.path.join(tmp, "full"), exist_ok=True)
    open(os.path.join(tmp, "full", "x"), "w").close()
    cases = [(("exercises",), None),
             (("starter", "CH=01-transpose", "EX=nosuch", f"DEST={tmp}/k"), "no exercise"),
             (("starter", "CH=01-transpose", "EX=../tiled", f"DEST={tmp}/k"), "no exercise"),
             (("starter", "CH=01-transpose", "EX=tiled"), "DEST"),
             (("starter", "CH=01-transpose", "EX=tiled", f"DEST={tmp}/full"), "not empty"),
             (("grade", "CH=01-transpose", "EX=tiled", f"OUT={tmp}/o"), "SUB"),
             (("grade", "CH=01-transpose", "EX=tiled", f"SUB={tmp}/nothing", f"OUT={tmp}/o"),
              "no submission"),
             (("grade-all", "CH=01-transpose", "EX=tiled", f"SUBS={tmp}/full", f"OUT={tmp}/o"),
              "no student folders")]
    for args, word in cases:
        p = make(*args)
        lines = [l for l in p.stderr.split("\n") if l.startswith("grade:")]
        if word is None:
            check(p.returncode == 0, "make exercises exits 0")
        else:
            check(p.returncode != 0 and "Error 2" in p.stderr and len(lines) == 1 and word in lines[0],
                  f"make {' '.join(args).replace(tmp, 'TMP')}: one line naming '{word}', exit 2",
                  p.stderr)


def test_kit(ex, tmp):
    dest = os.path.join(tmp, "kits", ex.label.replace("/", "-"))
    p = make("starter", f"CH={ex.chapter}", f"EX={ex.name}", f"DEST={dest}")
    if not check(p.returncode == 0, f"{ex.label}: make starter writes a kit", p.stderr[-300:]):
        return
    b = subprocess.run(["make", "-s", "-C", dest], capture_output=True, text=True)
    if not check(b.returncode == 0, f"{ex.label}: the kit builds on its own", b.stderr[-600:]):
        return
    prog = os.path.join(dest, "build", ex.topic)
    listed = subprocess.run([prog, "--list"], capture_output=True, text=True).stdout.split()
    rows = source.version_rows(ex.text().split("\n"))
    experiments = source.experiment_tags(ex.text().split("\n"), rows)
    dropped = {r.tag for r in source.dropped_rows(rows, ex.version, experiments)}
    for other in ex.other_parts():  # another part's exercise, and what follows it, go too
        dropped |= {other} | {r.tag for r in source.dropped_rows(rows, other, experiments)}
    check(ex.version in listed and not dropped & set(listed),
          f"{ex.label}: the kit has {ex.version} and none of the {len(dropped)} versions that "
          f"hold an exercise's answer")
    bad = subprocess.run([prog, "--bogus"], capture_output=True, text=True)
    check(bad.returncode == 2 and len(bad.stderr.strip().split("\n")) == 1,
          f"{ex.label}: the kit's program keeps the chapter's CLI (--bogus: exit 2, one line)")
    with open(os.path.join(dest, ex.topic + ".cu")) as f:
        kit = f.read()
    # no line of the answer that appears nowhere else in the chapter is in the kit
    full = ex.text().split("\n")
    code = lambda l: l.split("//")[0].strip()  # a line without its comment
    answer = set()
    for r in source.regions(full, ex.name):
        answer |= {code(l) for l in r.body(full) if len(code(l)) > 20}
    elsewhere = set()
    mine = {i for r in source.regions(full, ex.name) for i in range(r.begin, r.end)}
    for i, l in enumerate(full):
        if i not in mine:
            elsewhere.add(code(l))
    kit_code = {code(l) for l in kit.split("\n")}
    leaked = [l for l in answer - elsewhere if l in kit_code]
    check(not leaked and "kl_exercise_todo" in kit, f"{ex.label}: the kit's regions hold a stub, "
          f"not the answer", "; ".join(leaked[:2]))
    files = set(os.listdir(dest))
    with open(os.path.join(dest, "README.md")) as f:
        readme = f.read()
    check("answers.md" not in files and "## Answer" not in readme and "| speed |" in readme
          and "ANSWERS.md" in files and ".gitignore" in files,
          f"{ex.label}: the kit has the statement, its grading table and a page for the written "
          f"answers, not the answer key")


def test_splicer():
    ex = exercises.find_exercise("01-transpose", "tiled")
    kit, sol = ex.kit_source(False), ex.kit_source(True)
    types = source.type_names(ex.text())
    # a submission that changes the reference and the harness's call gets the kit's text back
    tampered = sol.replace("out[c * m + r] = in[r * n + c];", "out[c * m + r] = 0.0f;", 1)
    tampered = tampered.replace("b.bytes = 2.0 * (double)bytes;", "b.bytes = 1e30;")
    check(tampered.count("= 0.0f;") >= 1 and tampered != sol, "splice: the test's tampering applies")
    graded, notes = source.splice(kit, sol, tampered, ex.name, types)
    check(graded == sol, "splice: a tampered CPU reference and bench set-up are replaced by the kit's")
    check(notes and re.search(r"lines \d+", notes[0]) is not None,
          "splice: the report names the changed lines", str(notes))
    # regions the grader refuses, and ones it takes
    device_bad = {
        "escape": plant("escape")[1],
        "#include": ['#include "/etc/passwd"'],
        "#define": ["#define TILE 16"],
        "_Pragma": ['_Pragma("message(1)")'],
        "digraph": ["if (m) <% %>"],
        "trigraph": ['const char *s = "??>";'],
        "open comment": ["/* the rest of the file is a comment"],
        "open string": ['const char *s = "no end;'],
        "line splice": ["int x = 1; \\", "int y = 2;"],
        # the compiler ends a line at a lone CR, and splices at a backslash before spaces: a
        # // comment would hide the } from the grader's lexer but not from the compiler
        "a lone carriage return": ["// x\r}\r__attribute__((constructor)) static void h() {}\r"
                                   "__global__ void reopen() {"],
        "a backslash, spaces and a line end": ["// \\ ", "{", "}"],
        "a control character": ["int x = 1;\x00"],
        # state that outlives a launch: the work done once, later launches skipped
        "a static device variable": ["static __device__ unsigned launches;",
                                     "if (atomicAdd(&launches, 1) > 0) return;"],
        "unbalanced": ["if (m) {"],
    }
    for what, body in device_bad.items():
        sub = with_bodies(sol, ex.name, {0: body})
        try:
            source.splice(kit, sol, sub, ex.name, types)
            check(False, f"splice: refuses a GPU region with {what}")
        except source.RegionError as e:
            check(True, f"splice: refuses a GPU region with {what}: {str(e).split('): ', 1)[-1][:70]}")
    device_ok = ["#pragma unroll", "#pragma unroll 4", 'const char *s = R"x(})x";', "char c = '}';",
                 "// a } in a comment", "/* { */", "// a line of a Windows editor\r"]
    sub = with_bodies(sol, ex.name, {0: device_ok + source.regions(sol.split("\n"), ex.name)[0]
                                     .body(sol.split("\n"))})
    try:
        source.splice(kit, sol, sub, ex.name, types)
        check(True, "splice: takes pragmas, raw strings, braces in literals and comments, CRLF lines")
    except source.RegionError as e:
        check(False, "splice: takes pragmas, raw strings, braces in literals and comments, CRLF lines",
              str(e))
    # markers removed or doubled
    for what, sub in (("removed markers", sol.replace("// EXERCISE: tiled begin", "")),
                      ("an extra region", sol.replace("// EXERCISE: tiled end",
                                                      "// EXERCISE: tiled end\n// EXERCISE: tiled "
                                                      "begin\n// EXERCISE: tiled end", 1))):
        try:
            source.splice(kit, sol, sub, ex.name, types)
            check(False, f"splice: refuses a submission with {what}")
        except source.RegionError:
            check(True, f"splice: refuses a submission with {what}")
    # a launcher region may use only the reference's names and its own
    red = exercises.find_exercise("05-reduction", "atomic")
    rkit, rsol = red.kit_source(False), red.kit_source(True)
    rtypes = source.type_names(red.text())
    host_bad = {"p->want, cudaMemcpy and exit": plant("launcher")[1],
                "a call hidden behind a cast": ["int(1), system(\"true\");"],
                "std::system": ['std::system("true");'],
                "fopen": ['FILE *f = fopen("x", "r");']}
    for what, body in host_bad.items():
        try:
            source.splice(rkit, rsol, with_bodies(rsol, red.name, {1: body}), red.name, rtypes)
            check(False, f"splice: refuses a launcher region with {what}")
        except source.RegionError as e:
            check("may not be used" in str(e), f"splice: refuses a launcher region with {what}", str(e))
    own = ["reduction_problem *p = (reduction_problem *)problem;",
           "unsigned blocks = grid_for(p, p->n, 4), threads = THREADS;",
           "for (int i = 0; i < 1; i++) CHECK(cudaMemsetAsync(p->out, 0, sizeof(float)));",
           "reduction_v8_atomic<THREADS><<<blocks, threads>>>(p->x, p->out, p->n);",
           "CHECK_LAUNCH();"]
    try:
        source.splice(rkit, rsol, with_bodies(rsol, red.name, {1: own}), red.name, rtypes)
        check(True, "splice: a launcher region may declare and use its own names")
    except source.RegionError as e:
        check(False, "splice: a launcher region may declare and use its own names", str(e))


def test_grading_without_gpu(tmp, gpu):
    ex = exercises.find_exercise("01-transpose", "tiled")
    sol = ex.kit_source(True)
    subs = os.path.join(tmp, "subs")
    syntax = write_sub(os.path.join(subs, "syntax"), ex, with_bodies(
        sol, ex.name, {0: ["__shared__ float tile[TILE][TILE];", "this is not C++;"]}))
    escape = write_sub(os.path.join(subs, "escape"), ex, with_bodies(sol, ex.name, {0: plant("escape")[1]}))
    os.makedirs(os.path.join(subs, "empty"), exist_ok=True)
    # links: a student folder that is another student's, and a kit file that never ends
    os.symlink(syntax, os.path.join(subs, "linked"))
    zero = write_sub(os.path.join(subs, "zero"), ex, with_bodies(
        sol, ex.name, {0: ["__shared__ float tile[TILE][TILE];", "this is not C++ either;"]}))
    os.makedirs(os.path.join(zero, "common"), exist_ok=True)
    os.symlink("/dev/zero", os.path.join(zero, "common", "util.h"))
    reference = os.path.join(tmp, "reference.cu")
    os.symlink(os.path.join(ROOT, "chapters", "01-transpose", "transpose.cu"), reference)
    out = os.path.join(tmp, "out-link")
    p = make("grade", "CH=01-transpose", "EX=tiled", f"SUB={reference}", f"OUT={out}")
    res = results(out)
    check(p.returncode == 0 and res["score"] == 0 and "symbolic link" in res["tests"][0]["output"],
          "grade: a submission that is a link to the chapter's own source gets 0, named as a link",
          res["tests"][0]["output"][:200])
    out = os.path.join(tmp, "out-syntax")
    p = make("grade", "CH=01-transpose", "EX=tiled", f"SUB={syntax}", f"OUT={out}")
    check(p.returncode == 0, "grade: a syntax error is graded (exit 0)", p.stderr[-300:])
    res = results(out)
    tests = res["tests"]
    fields = all({"name", "score", "max_score", "output", "visibility"} <= set(t) for t in tests)
    check(res["score"] == 0 and fields and "execution_time" in res and
          isinstance(res["output"], str), "grade: the syntax error's results.json: 0 points, "
                                          "Gradescope's fields")
    check(not tests[0]["status"] == "passed" and "error" in tests[0]["output"],
          "grade: the compiler's message is in the compile case's output")
    secret = [t["name"] for t in tests if "secret" in t["name"]]
    with open(os.path.join(out, "report.txt")) as f:
        report = f.read()
    check(secret and all(re.fullmatch(r"correct secret \d+", n) for n in secret)
          and "-m " not in json.dumps([t for t in tests if "secret" in t["name"]])
          and report.count("(args: -m ") == len(secret),
          "grade: the secret sizes are in the instructor's report.txt only, not in results.json")
    suite = ET.parse(os.path.join(out, "junit.xml")).getroot().find("testsuite")
    check(suite is not None and int(suite.get("tests")) == len(tests) and
          int(suite.get("failures")) == len(tests), "grade: junit.xml parses, every case a failure")
    out = os.path.join(tmp, "out-escape")
    p = make("grade", "CH=01-transpose", "EX=tiled", f"SUB={escape}", f"OUT={out}")
    res = results(out)
    check(p.returncode == 0 and res["score"] == 0
          and len(res["tests"]) == len(scoring.plan(ex, None)[0])
          and "closes a bracket" in res["tests"][0]["output"],
          "grade: a region that escapes its function to write results.json gets 0, and the "
          "grader's results.json")
    os.makedirs(os.path.join(subs, ".git"), exist_ok=True)  # not a student
    with open(os.path.join(syntax, ex.topic + ".cu")) as f:  # a loose file is a submission too
        text = f.read()
    with open(os.path.join(subs, "dave.cu"), "w") as f:
        f.write(text)
    with open(os.path.join(subs, "notes.txt"), "w") as f:  # and anything else is named
        f.write("not a submission\n")
    out = os.path.join(tmp, "out-all")
    env = dict(os.environ)
    env.pop("GRADE_SECRET", None)
    p = subprocess.run(["make", "-s", "--no-print-directory", "-o", "all", "grade-all",
                        "CH=01-transpose", "EX=tiled", f"SUBS={subs}", f"OUT={out}"], cwd=ROOT,
                       capture_output=True, text=True, env=dict(env, HOME=tmp))
    check(p.returncode != 0 and "GRADE_SECRET" in p.stderr,
          "grade-all: refuses to grade a class without a secret", p.stderr[-300:])
    p = make("grade-all", "CH=01-transpose", "EX=tiled", f"SUBS={subs}", f"OUT={out}")
    with open(os.path.join(out, "gradebook.csv")) as f:
        book = list(csv.DictReader(f))
    students = ["dave", "empty", "escape", "linked", "syntax", "zero"]
    graded = [r for r in book if not r["incomplete"].startswith("skipped")]
    check(p.returncode == 0 and [r["student"] for r in graded] == students
          and all(float(r["total"]) == 0 for r in graded) and "compile" in book[0],
          "grade-all: one gradebook row per student, one column per case, a loose dave.cu, a "
          "linked folder and a kit file linked to /dev/zero among them", p.stderr[-300:])
    skipped = {r["student"]: r for r in book if r["incomplete"].startswith("skipped")}
    check(set(skipped) == {".git", "notes.txt"} and all(r["total"] == "" for r in skipped.values())
          and "skipped notes.txt" in p.stdout,
          "grade-all: every other entry of the submissions folder is a row that says why it was "
          "skipped, and the console names it", f"{sorted(skipped)} {p.stdout[-300:]}")
    check(all(os.path.exists(os.path.join(out, s, "results.json")) for s in students),
          "grade-all: a report folder per student")
    check("symbolic link" in results(os.path.join(out, "linked"))["tests"][0]["output"],
          "grade-all: a student folder that links to another's is not graded as its own")
    # regrading one student into the class's folder replaces that student's row
    again = write_sub(os.path.join(tmp, "regrade", "syntax"), ex, sol)
    p = make("grade", "CH=01-transpose", "EX=tiled", f"SUB={again}", f"OUT={os.path.join(out, 'syntax')}")
    with open(os.path.join(out, "gradebook.csv")) as f:
        book2 = list(csv.DictReader(f))
    row = {r["student"]: r for r in book2}
    check(len(book2) == len(book) and row["syntax"]["total"] != "0.00"
          and row["syntax"]["compile"] != "0.00"
          and all(row[r["student"]] == r for r in book if r["student"] != "syntax"),
          "grade: regrading one student into the class's folder updates that row of gradebook.csv "
          "and no other", f"{row.get('syntax')} {p.stderr[-200:]}")
    if gpu:
        print("SKIP grading the reference solutions without a GPU: a GPU is here (the GPU tests grade them)")
        return
    # without a GPU: the compile step is graded, then the grader says it cannot go on (exit 3)
    jobs = []
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        for e in exercises.all_exercises():
            d = write_sub(os.path.join(tmp, "ref", e.label.replace("/", "-")), e, e.kit_source(True))
            o = os.path.join(tmp, "ref-out", e.label.replace("/", "-"))
            jobs.append((e, o, pool.submit(make, "grade", f"CH={e.chapter}", f"EX={e.name}",
                                           f"SUB={d}", f"OUT={o}")))
        for e, o, job in jobs:
            p = job.result()
            # an unfinished grading writes incomplete.json (no total), never results.json; make
            # reports the grader's exit code 3 as "Error 3" (and exits 2 itself)
            with open(os.path.join(o, "incomplete.json")) as f:
                res = json.load(f)
            with open(os.path.join(o, "report.txt")) as f:
                report = f.read()
            props = {q.get("name") for q in ET.parse(os.path.join(o, "junit.xml")).iter("property")}
            check("Error 3" in p.stderr and res.get("incomplete") and "score" not in res
                  and res["tests"][0]["status"] == "passed" and "GPU" in p.stderr
                  and not os.path.exists(os.path.join(o, "results.json"))
                  and "no total" in report and not re.search(r"total\s+\d", report + p.stdout)
                  and "score" not in props and "incomplete" in props,
                  f"{e.label}: without a GPU the reference compiles (10 points) and grading stops "
                  f"with exit 3, no total anywhere (console, report.txt, junit.xml)", p.stderr[-300:])


def test_rules():
    ex = exercises.find_exercise("04-atomics", "casint")
    sol = ex.kit_source(True)
    def body(lines):
        return with_bodies(sol, ex.name, {0: lines})
    tries = {"atomicAdd": ["return atomicAdd(address, value);"],
             "__nv_atomic_fetch_add": ["return __nv_atomic_fetch_add(address, value, "
                                       "__NV_ATOMIC_RELAXED, __NV_THREAD_SCOPE_DEVICE);"],
             "inline PTX": ['unsigned old; asm volatile("atom.add.u32 %0, [%1], %2;" : "=r"(old) '
                            ': "l"(address), "r"(value)); return old;']}
    for what, lines in tries.items():
        check(exercises.rules_broken(ex, body(lines)) is not None,
              f"rules: casint refuses a body built on {what}")
    check(exercises.rules_broken(ex, sol) is None
          and exercises.rules_broken(ex, ex.kit_source(False)) is None,
          "rules: the reference passes them, and the untouched stub is graded as it is")
    # the catalogue of shortcuts (exercises.SHORTCUTS), each refused with its kind named, in an
    # exercise whose reference does not use it; a reference that does (06's mma writes PTX on
    # BF16 data) keeps it
    hacks = [("05-reduction", "shuffle", "library shortcut",
              ["typedef cub::WarpReduce<float> R; __shared__ typename R::TempStorage t;",
               "return R(t).Sum(v);"]),
             ("05-reduction", "shuffle", "library shortcut",
              ["namespace cg = cooperative_groups;",
               "return cg::reduce(cg::tiled_partition<32>(cg::this_thread_block()), v, cg::plus<float>());"]),
             ("03-matmul", "tiled", "lower precision",
              ["__half a = __float2half(1.0f); (void)a;"]),
             ("03-matmul", "tiled", "lower precision",
              ["__nv_bfloat16 a = __float2bfloat16(1.0f); (void)a;"]),
             ("03-matmul", "tiled", "library shortcut",
              ["nvcuda::wmma::fragment<nvcuda::wmma::matrix_a, 16, 16, 8, "
               "nvcuda::wmma::precision::tf32, nvcuda::wmma::row_major> f; (void)f;"]),
             ("01-transpose", "tiled", "inline PTX",
              ['float v; asm("ld.global.nc.f32 %0, [%1];" : "=f"(v) : "l"(in)); out[0] = v;'])]
    for chapter, name, kind, lines in hacks:
        e = exercises.find_exercise(chapter, name)
        got = exercises.rules_broken(e, with_bodies(e.kit_source(True), e.name, {0: lines}))
        check(got is not None and kind in got,
              f"rules: {e.label} refuses {lines[0][:40]}...: {kind}", str(got))
    # the plant that leaves every thread at once through PTX's exit is refused before it runs
    e = exercises.find_exercise("01-transpose", "tiled")
    got = exercises.rules_broken(e, with_bodies(e.kit_source(True), e.name, {0: plant("exit")[1]}))
    check(got is not None and "inline PTX" in got,
          "rules: the 'exit' plant (PTX exit, output left poisoned) is refused as inline PTX", str(got))
    mma = exercises.find_exercise("06-tensor-cores", "mma")
    check(exercises.rules_broken(mma, mma.kit_source(True)) is None,
          "rules: 06-tensor-cores/mma's reference keeps its PTX and BF16 (its reference uses them)")


def test_secret_and_runs(tmp):
    ex = exercises.find_exercise("01-transpose", "tiled")
    saved = os.environ.get("GRADE_SECRET")
    try:
        os.environ["GRADE_SECRET"] = "one"
        a, sa = scoring.plan(ex, scoring.secret_bytes())
        a2, _ = scoring.plan(ex, scoring.secret_bytes())
        os.environ["GRADE_SECRET"] = "two"
        b, sb = scoring.plan(ex, scoring.secret_bytes())
        names = lambda cs: [c.args for c in cs if "secret" in c.name]
        check(names(a) == names(a2) and names(a) != names(b) and sa != sb and len(names(a)) == 3,
              "secret: the secret cases and seed follow the secret, the same for every run")
        env_out = sandbox.run(["env"], os.path.join(tmp, "env"), 10)
        check("GRADE_SECRET" not in env_out.output and "HOME=" in env_out.output,
              "secret: a submission's environment has no GRADE_SECRET (nor anything else of the grader's)")
    finally:
        if saved is None:
            os.environ.pop("GRADE_SECRET", None)
        else:
            os.environ["GRADE_SECRET"] = saved
    pidfile = os.path.join(tmp, "child.pid")
    t0 = time.monotonic()
    hang = ["sh", "-c", f"sleep 60 & echo $! > {pidfile}; wait"]
    r = sandbox.run(hang, os.path.join(tmp, "hang"), 1)
    with open(pidfile) as f:
        child = int(f.read())
    time.sleep(0.2)
    alive = os.path.exists(f"/proc/{child}") and "Z" not in open(f"/proc/{child}/stat").read().split()[2]
    check(r.timed_out and time.monotonic() - t0 < 10 and not alive,
          "time limit: a hang is stopped, with the processes it started")


# ---- with a GPU ---------------------------------------------------------------------------------

def test_gpu(tmp):
    """Three exercises at a time: one compiles while another has the GPU (the grader lets one
    grading at a time use it, so the timed runs never share it)."""
    os.environ.setdefault("GRADE_SECRET", "kernel-ladder-tests")
    only = [x for x in os.environ.get("KL_EXERCISES", "").split(",") if x]  # e.g. 01-transpose/tiled
    exs = [ex for ex in exercises.all_exercises() if not only or ex.label in only]
    for ex in [ex for ex in exs if ex.gpus > toolchain.gpu_count()]:  # chapter 07 needs two or more
        print(f"SKIP {ex.label}: needs {ex.gpus} GPUs, this machine has {toolchain.gpu_count()}")
    exs = [ex for ex in exs if ex.gpus <= toolchain.gpu_count()]
    keep = os.environ.get("KL_GRADER_KEEP")  # a folder to keep the reports in (for a look)
    with concurrent.futures.ThreadPoolExecutor(3) as pool:
        for f in [pool.submit(grade_exercise_on_gpu, ex, keep or tmp) for ex in exs]:
            f.result()


def grade_exercise_on_gpu(ex, tmp):
    subs = os.path.join(tmp, "subs", ex.label.replace("/", "-"))
    write_sub(os.path.join(subs, "reference"), ex, ex.kit_source(True))
    write_sub(os.path.join(subs, "starter"), ex, ex.kit_source(False))
    plants = {}
    for name in sorted(f[:-3] for f in os.listdir(os.path.join(HERE, "plants")) if f.endswith(".cu")):
        label, body = plant(name)
        # those never reach the GPU: the cpu tests show them refused
        if label == ex.label and name not in ("escape", "launcher", "exit"):
            region = 1 if "(the second region" in body[0] else 0
            write_sub(os.path.join(subs, name), ex, with_bodies(ex.kit_source(True), ex.name,
                                                               {region: body}))
            plants[name] = True
    out = os.path.join(tmp, "out", ex.label.replace("/", "-"))
    log = os.path.join(tmp, ex.label.replace("/", "-") + ".log")
    t0 = time.monotonic()
    extra = ["TIME_LIMIT=30"] if plants else []  # the hang plant waits this long once
    p = make("grade-all", f"CH={ex.chapter}", f"EX={ex.name}", f"SUBS={subs}", f"OUT={out}",
             *extra, log=log)
    seconds = time.monotonic() - t0
    if not check(p.returncode == 0, f"{ex.label}: grade-all ran ({seconds:.0f} s)",
                 open(log).read()[-800:]):
        return
    ref, starter = results(os.path.join(out, "reference")), results(os.path.join(out, "starter"))
    check(ref["score"] == 100, f"{ex.label}: the reference solution scores 100",
          "\n" + ref["output"])
    correct = sum(t["score"] for t in starter["tests"] if t["name"].startswith("correct"))
    check(correct == 0 and starter["tests"][0]["status"] == "passed",
          f"{ex.label}: the untouched kit compiles and scores 0 on correctness ({starter['score']:g} in all)")
    if "edge" in plants:
        cs = case_scores(results(os.path.join(out, "edge")))
        whole = [n for n, t in cs.items() if n.startswith("correct") and re.search(
            r"-m (\d+) -n (\d+)", n) and all(int(x) % 32 == 0 for x in re.search(
                r"-m (\d+) -n (\d+)", n).groups())]
        odd = [n for n in cs if n.startswith("correct") and n not in whole]
        check(whole and all(cs[n]["score"] > 0 for n in whole) and
              all(cs[n]["score"] == 0 for n in odd),
              f"{ex.label}: the planted off-by-one passes whole tiles ({len(whole)}) and fails "
              f"every other size ({len(odd)})")
    if "nosync" in plants:
        cs = case_scores(results(os.path.join(out, "nosync")))
        race = [t for n, t in cs.items() if n.startswith("sanitize racecheck")][0]
        check(race["score"] == 0 and "racecheck" in race["output"],
              f"{ex.label}: racecheck catches the planted missing __syncthreads()", race["output"])
    if "hang" in plants:
        res = results(os.path.join(out, "hang"))
        cs = case_scores(res)
        hung = [n for n, t in cs.items() if "timed out" in t["output"]]
        others = [t for n, t in cs.items() if n.startswith("correct") and n not in hung]
        check(hung == ["correct -m 31 -n 33"] and all(t["score"] > 0 for t in others)
              and cs[[n for n in cs if n.startswith("speed")][0]]["score"] > 0,
              f"{ex.label}: the planted endless loop costs its one case and grading goes on",
              str(hung))
    if "skiplaunch" in plants:
        cs = case_scores(results(os.path.join(out, "skiplaunch")))
        speed = [t for n, t in cs.items() if n.startswith("speed")][0]
        right = [t for n, t in cs.items() if n.startswith("correct")]
        check(speed["score"] == 0 and "wrong" in speed["output"] and all(t["score"] > 0 for t in right),
              f"{ex.label}: a launcher that does its work once and then nothing passes the "
              f"one-launch cases and gets no speed points", speed["output"][:300])
    if "writesinput" in plants:
        cs = case_scores(results(os.path.join(out, "writesinput")))
        speed = [t for n, t in cs.items() if n.startswith("speed")][0]
        right = [t for n, t in cs.items() if n.startswith("correct")]
        check(speed["score"] == 0 and "input 1 changed" in speed["output"]
              and all(t["score"] > 0 for t in right),
              f"{ex.label}: a kernel that writes its input (the sum still right) gets no speed "
              f"points", speed["output"][:300])
    if "edge" in plants:
        res = results(os.path.join(out, "edge"))
        secret = [t for t in res["tests"] if "secret" in t["name"] and t["score"] == 0]
        with open(os.path.join(out, "edge", "report.txt")) as f:
            report = f.read()
        check(secret and not any(re.search(r"mismatch|want", t["output"]) for t in secret)
              and "mismatch" in report,
              f"{ex.label}: a wrong secret case shows the student no values, the instructor's "
              f"report shows the mismatch")
    for cheat in ("printpass",):
        if cheat in plants:
            res = results(os.path.join(out, cheat))
            check(res["score"] == ex.rubric["compile"]["points"],
                  f"{ex.label}: the '{cheat}' cheat gains nothing beyond compiling "
                  f"({res['score']:g} points)")
    with open(os.path.join(out, "gradebook.csv")) as f:
        book = {r["student"]: r for r in csv.DictReader(f)}
    check(set(book) == {"reference", "starter", *plants}, f"{ex.label}: the gradebook has every submission")


def test_sandbox(tmp):
    """A student's program runs with an environment of its own, a private temporary folder, and,
    where the grader is root, as an unprivileged user that cannot read the grader's files."""
    d = os.path.join(tmp, "sandbox")
    os.makedirs(d)
    for folder in (tmp, d):  # as the grader's work folder: others may pass through, not look
        os.chmod(folder, 0o711)
    secret = os.path.join(d, "secret.txt")
    with open(secret, "w") as f:
        f.write("the grader's\n")
    os.chmod(secret, 0o600)
    user = sandbox.unprivileged()
    script = (f'id -u; echo "secret=${{GRADE_SECRET:-none}} tmp=$TMPDIR"; '
              f'cat {secret} 2>/dev/null || echo unreadable; touch mine && echo wrote')
    r = sandbox.run(["sh", "-c", script], os.path.join(d, "case"), 30, user=user)
    lines = r.output.split("\n")
    check(r.rc == 0 and "secret=none" in r.output and f"tmp={os.path.join(d, 'case', 'tmp')}" in r.output
          and "wrote" in r.output, "sandbox: the program sees none of the grader's environment, "
          "has a temporary folder of its own and writes in its own folder", r.output[-300:])
    if user is None:
        print(f"SKIP sandbox: the grader is not root here (uid {os.geteuid()}), so it runs no one else")
        return
    check(lines[0] == str(user[1]) and "unreadable" in r.output,
          f"sandbox: as root, the grader runs the program as {user[0]}, which cannot read the "
          f"grader's files", r.output[-300:])


def main(argv):
    mode = argv[1] if len(argv) > 1 else "cpu"
    gpu = toolchain.gpu_reason() is None
    os.environ.setdefault("GRADE_SECRET", "kernel-ladder-tests")  # grade-all needs one
    with tempfile.TemporaryDirectory(prefix="kl-test-grader-") as tmp:
        if mode == "cpu":
            exs = test_exercises()
            test_bad_input(tmp)
            test_splicer()
            test_rules()
            test_sandbox(tmp)
            test_secret_and_runs(tmp)
            with concurrent.futures.ThreadPoolExecutor(2) as pool:
                list(pool.map(lambda e: test_kit(e, tmp), exs))
            test_grading_without_gpu(tmp, gpu)
        elif mode == "gpu":
            if not gpu:
                print(f"SKIP the grader on the GPU: {toolchain.gpu_reason()}")
                return 0
            test_gpu(tmp)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
