#!/usr/bin/env python3
"""test_grader.py: the tests of the exercises, the kits and the grader. One PASS or FAIL line per
check, counted by tests/run.sh.

  test_grader.py cpu   no GPU needed (make test, CI): rubrics, statements, every kit builds and
                       holds the chapter's files up to its version (the region file stubbed), the
                       kit folder, the region file alone and a one-file kit grade the same, edits
                       outside the regions are named file by file and ignored, the
                       splicer keeps the kit's text and refuses regions that reach outside, the
                       reports' formats, cheats that never reach the GPU, the secret, time limits,
                       the speed protocol's statistics (synthetic timings) and rounds (stand-in
                       programs), the roster and the deadline of the gradebook, sub-step versions
  test_grader.py gpu   the GPU part of make test: every exercise's reference solution (a kit
                       folder) scores full points and its untouched kit (one file) scores no
                       correctness point; planted bugs (classroom/plants, region files
                       alone) are each caught where they should be. The speed protocol's caps are
                       lowered to 8 rounds, 20 s a submission (KL_SPEED_MAX_ROUNDS/SECONDS)
"""
import concurrent.futures
import contextlib
import copy
import csv
import io
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import threading
import time
from xml.etree import ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "classroom"))  # the grader itself
import exercises  # noqa: E402
import kits  # noqa: E402
from plants import names as plant_names, plant, with_bodies, write_sub  # noqa: E402
import reports  # noqa: E402
import sandbox  # noqa: E402
import scoring  # noqa: E402
import source  # noqa: E402
import speed  # noqa: E402
import toolchain  # noqa: E402

ROOT = exercises.ROOT
failed = 0


printing = threading.Lock()  # checks run in threads (the pools below): one whole line at a time


def check(ok, what, detail=""):
    global failed
    line = f"{'PASS' if ok else 'FAIL'} {what}" + (f": {detail}" if detail and not ok else "")
    with printing:  # print() writes the text and its newline apart: two threads could join lines
        print(line, flush=True)
        failed += not ok
    return ok


def built():
    """make's -o for what make test built first (every program, build/gpuinfo, common/'s
    objects): several of these makes run at once, and none may rewrite build/ under the others."""
    done = ["all", "build/gpuinfo"] + [os.path.relpath(o, ROOT) for o in toolchain.common_objects()]
    done += sorted({f"build/{ex.topic}" for ex in exercises.all_exercises()})
    return [a for d in done for a in ("-o", d)]


def make(*args, log=None):
    p = subprocess.run(["make", "-s", "--no-print-directory", *built(), *args], cwd=ROOT,
                       capture_output=True, text=True)
    if log:
        with open(log, "w") as f:
            f.write(p.stdout + p.stderr)
    return p


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
    open(os.path.join(tmp, "afile"), "w").close()  # an OUT= or DEST= that is a file
    # a class whose report folder for alice is a file
    os.makedirs(os.path.join(tmp, "class", "alice"), exist_ok=True)
    open(os.path.join(tmp, "class", "alice", "v01-tiled.cuh"), "w").close()
    os.makedirs(os.path.join(tmp, "class-out"), exist_ok=True)
    open(os.path.join(tmp, "class-out", "alice"), "w").close()
    cases = [(("exercises",), None),
             (("starter", "CH=01-transpose", "EX=nosuch", f"DEST={tmp}/k"), "no exercise"),
             (("starter", "CH=01-transpose", "EX=../tiled", f"DEST={tmp}/k"), "no exercise"),
             (("starter", "CH=01-transpose", "EX=tiled"), "DEST"),
             (("starter", "CH=01-transpose", "EX=tiled", f"DEST={tmp}/full"), "not empty"),
             (("grade", "CH=01-transpose", "EX=tiled", f"OUT={tmp}/o"), "SUB"),
             (("grade", "CH=01-transpose", "EX=tiled", f"SUB={tmp}/nothing", f"OUT={tmp}/o"),
              "no submission"),
             (("grade-all", "CH=01-transpose", "EX=tiled", f"SUBS={tmp}/full", f"OUT={tmp}/o"),
              "no student folders"),
             (("grade", "CH=01-transpoze", "EX=tiled", f"SUB={tmp}/full", f"OUT={tmp}/o"),
              "no exercise"),
             (("starter", "CH=01-transpose", "EX=tiled", f"DEST={tmp}/afile"), "DEST="),
             (("grade", "CH=01-transpose", "EX=tiled", f"SUB={tmp}/full", f"OUT={tmp}/afile"),
              "OUT="),
             (("grade-all", "CH=01-transpose", "EX=tiled", f"SUBS={tmp}/class", f"OUT={tmp}/afile"),
              "OUT="),
             (("grade-all", "CH=01-transpose", "EX=tiled", f"SUBS={tmp}/class", "OUT=/proc/nope"),
              "OUT=/proc/nope"),
             (("grade-all", "CH=01-transpose", "EX=tiled", f"SUBS={tmp}/class",
               f"OUT={tmp}/class-out"), "class-out/alice: File exists"),
             (("grade-all", "CH=01-transpose", "EX=tield", f"SUBS={tmp}/full", f"OUT={tmp}/o"),
              "no exercise")]
    for args, word in cases:
        p = make(*args)
        lines = [l for l in p.stderr.split("\n") if l.startswith("grade:")]
        if word is None:
            check(p.returncode == 0, "make exercises exits 0")
        else:
            check(p.returncode != 0 and "Error 2" in p.stderr and len(lines) == 1 and word in lines[0],
                  f"make {' '.join(args).replace(tmp, 'TMP')}: one line naming '{word}', exit 2",
                  p.stderr)
    p = make("autograder", "CH=01-transpose", "EX=tiled", f"DEST={tmp}/afile")
    lines = [l for l in p.stderr.split("\n") if l.startswith("autograder:")]
    check(p.returncode != 0 and "Error 2" in p.stderr and len(lines) == 1 and "DEST=" in lines[0]
          and "Traceback" not in p.stderr, "make autograder DEST=<a file>: one line naming DEST=, "
          "exit 2", p.stderr[-300:])


def grader_copy(tmp, name):
    """A copy of the grader's tree (Makefile, classroom/, common/, chapter 01) with an empty
    build/ of its own beside the real one: what a grader finds before `make`."""
    import shutil
    root = os.path.join(tmp, name)
    os.makedirs(root)
    shutil.copy(os.path.join(ROOT, "Makefile"), os.path.join(root, "Makefile"))
    for d in ("classroom", "common", os.path.join("chapters", "01-transpose")):
        shutil.copytree(os.path.join(ROOT, d), os.path.join(root, d),
                        ignore=shutil.ignore_patterns("__pycache__"))
    os.makedirs(os.path.join(root, "build", "common"))
    return root


def test_unbuilt_grader(tmp):
    """The grader called directly (python3 classroom/grade.py, as scripts do) on a tree whose
    build/common/*.o are not built, or are broken: every submission's compile would fail to
    link. That is the grader's failure: exit 3, one line naming make, and no total anywhere,
    never a 0 for a correct submission."""
    import shutil
    ex = exercises.find_exercise("01-transpose", "tiled")
    sub = write_sub(os.path.join(tmp, "unbuilt-subs", "alice"), ex, ex.kit_source(True), "regions")
    root = grader_copy(tmp, "unbuilt")
    shutil.copy(os.path.join(ROOT, "build", "gpuinfo"), os.path.join(root, "build", "gpuinfo"))
    out = os.path.join(tmp, "unbuilt-out")
    p = subprocess.run([sys.executable, os.path.join(root, "classroom", "grade.py"), "grade",
                        "01-transpose", "tiled", sub, out], capture_output=True, text=True)
    lines = [l for l in p.stderr.split("\n") if l.strip()]
    check(p.returncode == 3 and len(lines) == 1 and "build/common/" in lines[0]
          and "run make" in lines[0] and not os.path.exists(os.path.join(out, "results.json"))
          and not re.search(r"total\s+\d", p.stdout),
          "grade.py grade on a tree without build/common's objects: exit 3, one line naming "
          "them and make, no results.json and no total", f"rc {p.returncode}: {p.stderr[-300:]}")
    # objects that are there but do not link (a broken build): the reference does not compile
    # either, so no submission's failed compile is a grade
    for o in toolchain.common_objects():
        open(os.path.join(root, "build", "common", os.path.basename(o)), "w").close()
    p = subprocess.run([sys.executable, os.path.join(root, "classroom", "grade.py"), "grade",
                        "01-transpose", "tiled", sub, out], capture_output=True, text=True)
    res = {}
    if os.path.exists(os.path.join(out, "incomplete.json")):
        with open(os.path.join(out, "incomplete.json")) as f:
            res = json.load(f)
    check(p.returncode == 3 and "reference solution" in res.get("incomplete", "")
          and "score" not in res and not os.path.exists(os.path.join(out, "results.json"))
          and not re.search(r"total\s+\d", p.stdout),
          "grade.py grade where nothing links, the reference neither: exit 3, incomplete.json "
          "naming the reference, no 0 for the submission", f"rc {p.returncode}: {p.stdout[-400:]}")


def test_grade_deps():
    """make grade, grade-all and grade-sample build what grading the exercise needs (its
    chapter's program, build/gpuinfo, common/'s objects), not every chapter (07's NCCL among
    them); for an exercise that does not exist, nothing: the grader's one line comes at once."""
    def would_build(*args):  # -n -B: what make would build, were nothing built
        p = subprocess.run(["make", "-n", "-B", "--no-print-directory", *args, "SUB=x", "SUBS=x",
                            "OUT=y"], cwd=ROOT, capture_output=True, text=True)
        return set(re.findall(r" -o (build/\S+)", p.stdout))
    common = {os.path.relpath(o, ROOT) for o in toolchain.common_objects()}
    for target in ("grade", "grade-all"):
        for ch in ("01-transpose", "06-tensor-cores/"):
            ex = exercises.find_exercise(ch, "tiled" if ch.startswith("01") else "grouped")
            got = would_build(target, f"CH={ch}", f"EX={ex.name}")
            check(got == {f"build/{ex.topic}", "build/gpuinfo"} | common,
                  f"make {target} CH={ch} builds build/{ex.topic}, build/gpuinfo and common/'s "
                  f"objects, nothing else", str(sorted(got - common)))
        for bad in (("CH=01-transpoze", "EX=tiled"), ("CH=01-transpose", "EX=tield"), ()):
            got = would_build(target, *bad)
            check(not got, f"make {target} {' '.join(bad) or 'without CH='} builds nothing before "
                  f"the grader refuses it", str(sorted(got)))
    got = would_build("grade-sample")
    check(got == {"build/transpose", "build/gpuinfo"} | common,
          "make grade-sample builds what 01-transpose/tiled needs, nothing else", str(sorted(got)))


def test_kit_names(exs):
    """A kit's program names no version it leaves out where it lists versions: the header's
    entries (one may name several: "v12-lag1, v12-lag3  experiments: ...") and the version
    table's labels of groups of rows (a label whose rows all went goes too). 06's grouped
    (v9) names none after v9 there."""
    entry = re.compile(r"^//(\s+)((?:\S+,\s+)*\S+)\s")
    for ex in exs:
        prog = dict(ex.kit_files(False))[ex.topic + ".cu"].split("\n")
        rows = source.version_rows(ex.text().split("\n"))
        experiments = source.experiment_tags(ex.text().split("\n"), rows)
        dropped = {r.tag for r in source.dropped_rows(rows, ex.version, experiments)}
        for other in ex.other_parts():
            dropped |= {other} | {r.tag for r in source.dropped_rows(rows, other, experiments)}
        named = []  # (line, tags it names)
        for line in prog:
            if not line.startswith("//"):
                break
            m = entry.match(line)
            if m:
                named.append((line, set(re.split(r",\s+", m.group(2).rstrip(",")))))
        table = False
        for line in prog:
            if source.TABLE_START.match(line):
                table = True
            elif table and line.startswith("};"):
                table = False
            elif table and line.strip().startswith("//"):
                named.append((line, set(re.findall(r"\bv\d+[a-z]?(?:-[\w-]+)?", line))))
        bad = [line.strip() for line, tags in named if tags & dropped]
        if ex.label == "06-tensor-cores/grouped":
            bad += [line.strip() for line, tags in named
                    if any(int(re.match(r"v(\d+)", t).group(1)) > 9 for t in tags
                           if re.match(r"v\d+", t))]
        check(not bad, f"{ex.label}: the kit's header entries and version-table labels name no "
              f"version it leaves out", "; ".join(bad[:3]))


def test_kit_readme(tmp):
    """The kit's README.md holds no HTML comment marks (06's grouped statement quotes measured
    numbers as 0.84<!-- ratio ... -->): the marks go, the numbers stay."""
    ex = exercises.find_exercise("06-tensor-cores", "grouped")
    with open(os.path.join(ex.dir, "README.md")) as f:
        statement = f.read()
    numbers = re.findall(r"([0-9.]+)<!-- (?:ratio|result) ", statement)
    dest = os.path.join(tmp, "readme-kit")
    p = make("starter", f"CH={ex.chapter}", f"EX={ex.name}", f"DEST={dest}")
    with open(os.path.join(dest, "README.md")) as f:
        readme = f.read()
    check(p.returncode == 0 and numbers and "<!--" not in readme and "-->" not in readme
          and all(n in readme for n in numbers) and "| speed |" in readme,
          f"{ex.label}: the kit's README.md has no HTML comment marks, and keeps the "
          f"{len(numbers)} numbers they marked", str(re.findall(r".{20}<!--.{30}", readme)[:2]))


def test_kit(ex, tmp):
    dest = os.path.join(tmp, "kits", ex.label.replace("/", "-"))
    p = make("starter", f"CH={ex.chapter}", f"EX={ex.name}", f"DEST={dest}")
    if not check(p.returncode == 0, f"{ex.label}: make starter writes a kit", p.stderr[-300:]):
        return
    test_kit_files(ex, dest)
    b = subprocess.run(["make", "-s", "-C", dest], capture_output=True, text=True)
    if not check(b.returncode == 0, f"{ex.label}: the kit builds on its own", b.stderr[-600:]):
        return
    if toolchain.chapter_mk(ex).get("SM90A") and toolchain.gpu_cc() in ("", "9.0"):
        n = subprocess.run(["make", "-n", "-B", "-C", dest, f"build/{ex.topic}"],
                           capture_output=True, text=True)
        check("code=sm_90a" in n.stdout, f"{ex.label}: the kit builds the chapter's Hopper "
              f"versions for sm_90a, as the repository does", n.stdout[-300:])
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
    kit = ""
    for name in sorted(os.listdir(dest)):
        if name.endswith((".cu", ".cuh")):
            with open(os.path.join(dest, name)) as f:
                kit += f.read()
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
    # make check on a GPU that cannot run the version: a stand-in program says what the chapter's
    # says there (06 on a T4); the check must stop with the reason, not count the skip a pass
    real = prog + ".real"
    os.rename(prog, real)
    with open(prog, "w") as f:
        f.write(f"#!/bin/sh\necho '    {ex.version}: skipped: needs a newer GPU (a stand-in)'\n")
    os.chmod(prog, 0o755)
    c = subprocess.run(["make", "-s", "-C", dest, "check"], capture_output=True, text=True)
    os.replace(real, prog)
    check(c.returncode != 0 and f"make check: {ex.version} cannot run here: needs a newer GPU"
          in c.stdout and "PASS" not in c.stdout, f"{ex.label}: the kit's make check stops on a "
          f"version the GPU cannot run, with the reason, and counts no pass", c.stdout[-300:])
    files = set(os.listdir(dest))
    with open(os.path.join(dest, "README.md")) as f:
        readme = f.read()
    check("answers.md" not in files and "## Answer" not in readme and "| speed |" in readme
          and "ANSWERS.md" in files and ".gitignore" in files,
          f"{ex.label}: the kit has the statement, its grading table and a page for the written "
          f"answers, not the answer key")


def test_kit_files(ex, dest):
    """A kit is laid out as the chapter: its program, the chapter's files up to the exercise's
    version (those of later versions, and of another part's exercise, left out), each unchanged
    but for the stubs in the file(s) that hold the regions, the Makefile and the statement."""
    folder = os.path.dirname(ex.source_path)
    program = ex.topic + ".cu"
    with open(ex.source_path) as f:
        included = [m.group(1) for m in map(source.LOCAL_INCLUDE.match, f.read().split("\n"))
                    if m and os.path.isfile(os.path.join(folder, m.group(1)))]  # not common/'s
    rows = source.version_rows(ex.text().split("\n"))
    experiments = source.experiment_tags(ex.text().split("\n"), rows)
    dropped = {r.tag for r in source.dropped_rows(rows, ex.version, experiments)}
    for other in ex.other_parts():
        dropped |= {other} | {r.tag for r in source.dropped_rows(rows, other, experiments)}

    def tag(name):  # the version a file belongs to: its section's tag, or "(vN on)"
        with open(os.path.join(folder, name)) as f:
            title = source.SECTION.match(f.readline()).group(1)
        serves = source.SERVES.search(title)
        return serves.group(1) if serves else title.split()[0]
    want = [n for n in included if tag(n) not in dropped]
    extras = {"Makefile", "README.md", "ANSWERS.md", "check.args", "sanitize.args", "common",
              ".gitignore", ".exercise"}
    files = set(os.listdir(dest))
    mine = [n for n in want if tag(n) == ex.version]
    check(files == set(want) | {program} | extras and mine and set(ex.region_files()) <= set(want),
          f"{ex.label}: the kit's files are the chapter's up to {ex.version} ({len(want)}: "
          f"{want[0]} .. {want[-1]}), its program, Makefile and statement",
          f"extra {sorted(files - set(want) - extras - {program})}, missing "
          f"{sorted(set(want) | {program} | extras - files)}")
    same, stubbed = [], []
    for n in want:
        with open(os.path.join(folder, n)) as a, open(os.path.join(dest, n)) as b:
            theirs, kit = a.read(), b.read()
        if n in ex.region_files():
            back = with_bodies(kit, ex.name, {i: r.body(theirs.split("\n")) for i, r in
                                              enumerate(source.regions(theirs.split("\n"), ex.name))})
            stubbed.append(back == theirs and "kl_exercise_todo" in kit)
        else:
            same.append(theirs == kit)
    with open(os.path.join(dest, "README.md")) as f:
        readme = f.read()
    with open(os.path.join(dest, "Makefile")) as f:
        mk = f.read()
    check(all(same) and stubbed and all(stubbed)
          and all(f"Hand in `{n}`" in readme for n in ex.region_files()[:1])
          and "$(wildcard *.cuh)" in mk,
          f"{ex.label}: the kit's files are the chapter's, unchanged but for the stubs in "
          f"{', '.join(ex.region_files())}, which the statement names; the Makefile depends on "
          f"*.cuh")


def test_submission_layouts(tmp):
    """A submission is the kit folder, the region file(s) alone (in a folder, or loose) or a kit
    of the earlier one-file layout: each grades the same; what is changed outside the regions is
    named file by file and ignored."""
    import submission
    for label in ("01-transpose/tiled", "05-reduction/atomic"):
        ex = exercises.find_exercise(*label.split("/"))
        kit, sol = ex.kit_source(False), ex.kit_source(True)
        types = source.type_names(ex.text())
        base = os.path.join(tmp, "layouts", label.replace("/", "-"))
        holder = ex.region_files()[0]
        subs = {"kit": write_sub(os.path.join(base, "kit"), ex, sol),
                "regions": write_sub(os.path.join(base, "regions"), ex, sol, "regions"),
                "loose region file": os.path.join(base, "regions", holder),
                "one-file": write_sub(os.path.join(base, "one-file"), ex, sol, "one-file"),
                "one-file, loose": os.path.join(base, "one-file", ex.topic + ".cu"),
                "kit one folder down": os.path.dirname(write_sub(
                    os.path.join(base, "archive", "kit"), ex, sol))}
        graded = {}
        for what, path in subs.items():
            notes = []
            try:
                graded[what] = (source.splice(kit, sol, submission.read_submission(ex, path, notes),
                                              ex.name, types), notes)
            except source.RegionError as e:
                graded[what] = (str(e), notes)
        check(all(g == (sol, []) for g in graded.values()),
              f"{label}: the kit folder, {holder} alone (in a folder or loose), a kit one folder "
              f"down and a one-file kit grade the same, with nothing ignored",
              str({w: (g[0][:80], g[1]) for w, g in graded.items() if g != (sol, [])}))
    # edits outside the regions, in three files, and a file the kit does not have
    ex = exercises.find_exercise("01-transpose", "tiled")
    sol = ex.kit_source(True)
    d = write_sub(os.path.join(tmp, "layouts", "edited"), ex, sol)
    edits = {"transpose.cu": ("b.bytes = 2.0 * (double)bytes;", "b.bytes = 1e30;"),
             "v00-naive.cuh": ("out[c * m + r]", "out[r * m + c]"),
             "v01-tiled.cuh": ("#define", "// #define")}
    applied = []
    for name, (a, b) in edits.items():
        with open(os.path.join(d, name)) as f:
            text = f.read()
        if a not in text:  # the file has no such line: change its first line instead
            a = text.split("\n")[0]
            b = a + " (edited)"
        line = text[:text.index(a)].count("\n") + 1
        applied.append(f"{name} lines {line}")
        with open(os.path.join(d, name), "w") as f:
            f.write(text.replace(a, b, 1))
    with open(os.path.join(d, "helper.cuh"), "w") as f:
        f.write("// mine\n")
    notes = []
    got = source.splice(ex.kit_source(False), sol, submission.read_submission(ex, d, notes),
                        ex.name, source.type_names(ex.text()))
    note = next((n for n in notes if n.startswith("changes outside")), "")
    check(got == sol and all(a in note for a in applied) and "files the kit does not have: "
          "helper.cuh" in note, "a kit folder's edits outside the regions are named file by file "
          f"({'; '.join(applied)}; an extra helper.cuh) and ignored: the kit's text is graded",
          f"{note!r}")
    # a kit folder without the file that holds the regions: the message names it
    os.remove(os.path.join(d, "v01-tiled.cuh"))
    try:
        submission.read_submission(ex, d, [])
        check(False, "a kit folder without v01-tiled.cuh is refused, naming the file")
    except source.RegionError as e:
        check("v01-tiled.cuh" in str(e), "a kit folder without v01-tiled.cuh is refused, naming "
              "the file to hand in", str(e))


def test_submission_mistakes(tmp):
    """A student's mistake in handing in is named for what it is: a file too large to read
    whole, one that is not text, two kits one folder down (no row a 0: skipped, which kit is
    theirs to say), a lone file of another name (graded, with a note), a pipe in the
    submissions folder; a compile error's summary line says the error; counts read as words."""
    import submission
    ex = exercises.find_exercise("01-transpose", "tiled")
    sol = ex.kit_source(True)
    base = os.path.join(tmp, "mistakes")

    def refused(path):
        try:
            submission.read_submission(ex, path, [])
            return ""
        except source.RegionError as e:
            return str(e)
    big = write_sub(os.path.join(base, "big"), ex, sol, "regions")
    with open(os.path.join(big, "v01-tiled.cuh"), "a") as f:
        f.write(("// " + "x" * 60 + "\n") * (5 << 14))  # 5 MiB of comment after the regions
    why = refused(big)
    check(why.startswith("v01-tiled.cuh is 5.") and "reads at most 4 MiB" in why,
          "a region file over 4 MiB is refused as too large, with its size, not cut", why)
    binary = os.path.join(base, "binary")
    os.makedirs(binary)
    with open(os.path.join(binary, "v01-tiled.cuh"), "wb") as f:
        f.write(bytes(range(256)) * 64)
    why = refused(binary)
    check("v01-tiled.cuh is not a text file" in why, "a region file that is not text says so", why)
    for k in ("sub1", "sub2"):
        write_sub(os.path.join(base, "subs-a", "jill", k), ex, sol)
    why = refused(os.path.join(base, "subs-a", "jill"))
    check(why == "2 kits one folder down (sub1, sub2): keep one",
          "a folder with two kits one folder down names them", why)
    carol = write_sub(os.path.join(base, "subs-b", "carol"), ex, sol, "regions")
    os.rename(os.path.join(carol, "v01-tiled.cuh"), os.path.join(carol, "v1-tiled.cuh"))
    write_sub(os.path.join(base, "subs-a", "sam"), ex, with_bodies(
        sol, ex.name, {0: ["__shared__ float tile[TILE][TILE];", "this is not C++;"]}))
    os.mkfifo(os.path.join(base, "subs-b", "kim.cuh"))
    runs = {}
    for run in ("a", "b"):
        runs[run] = make("grade-all", "CH=01-transpose", "EX=tiled",
                         f"SUBS={os.path.join(base, 'subs-' + run)}",
                         f"OUT={os.path.join(base, 'out-' + run)}")
    a, b = runs["a"], runs["b"]
    with open(os.path.join(base, "out-a", "gradebook.csv")) as f:
        book = {r["student"]: r for r in csv.DictReader(f)}
    check("jill" in book and book["jill"]["total"] == "" and "2 kits one folder down" in
          book["jill"]["incomplete"] and "skipped jill: 2 kits one folder down (sub1, sub2): keep "
          "one" in a.stdout, "grade-all: a folder with two kits one folder down is skipped, named, "
          "its row without a total", a.stdout[-400:])
    p = make("grade", "CH=01-transpose", "EX=tiled", f"SUB={os.path.join(base, 'subs-a', 'jill')}",
             f"OUT={os.path.join(base, 'out-jill')}")
    lines = [l for l in p.stderr.split("\n") if l.startswith("grade:")]
    check(p.returncode != 0 and "Error 2" in p.stderr and len(lines) == 1 and "keep one" in lines[0]
          and not os.path.exists(os.path.join(base, "out-jill", "results.json")),
          "grade: a folder with two kits one folder down: one line, exit 2, no results", p.stderr)
    compile_line = next((l for l in a.stdout.split("\n") if l.strip().startswith("compile ")
                         and "does not compile" in l), "")
    check(re.search(r"does not compile \(exit \d+\): .*error", compile_line) is not None,
          "a compile error's summary line names the error", compile_line)
    check("1 submission, 1 entry skipped" in a.stdout and "1 student, 1 entry skipped" in a.stdout
          and "(s)" not in a.stdout and reports.counted(2, "pair", "pairs") == "2 pairs",
          "grade-all counts in words: 1 submission, 1 entry, 1 student", a.stdout[-400:])
    check("skipped kim.cuh: not a regular file (a pipe, device or socket)" in b.stdout,
          "grade-all: a pipe named kim.cuh is skipped as not a regular file", b.stdout[-300:])
    with open(os.path.join(base, "out-b", "carol", "report.txt")) as f:
        report = f.read()
    check("note: read v1-tiled.cuh as v01-tiled.cuh, the only source file there" in report
          and "compiled" in report, "a lone file of another name is graded, and the report says "
          "which file it was read as", report[:600])


def test_instructors_doc():
    """docs/instructors.md writes the kit outside the checkout (inside, git status lists it and
    GitHub Classroom's git init nests a repository), and its list of what the autograder's zip
    holds names each file of the chapter that the zip packs."""
    sys.path.insert(0, os.path.join(ROOT, "classroom"))
    import autograder
    with open(os.path.join(ROOT, "docs", "instructors.md")) as f:
        doc = f.read()
    starter = re.findall(r"make starter CH=\S+ EX=\S+ DEST=(\S+)", doc)
    check(starter and all(d.startswith(("$HOME/", "/")) for d in starter),
          "instructors.md: make starter writes the kit outside the checkout", str(starter))
    listed = " ".join(re.findall(r"^    chapters/01-transpose/(.*)$", doc, re.M))
    packed = [os.path.basename(p) for p, _ in autograder.packed_files("01-transpose", "tiled")
              if p.startswith("chapters/01-transpose/") and "/exercises/" not in p]
    missing = [n for n in packed if n not in listed and not re.fullmatch(r"v0[1-9]-.*\.cuh", n)]
    check(packed and not missing and "plants/" in doc.split("### Gradescope", 1)[1][:3000],
          "instructors.md: the zip's list names the chapter's files it packs (headline too) and "
          "says classroom/'s plants stay out", str(missing))


def test_splicer():
    ex = exercises.find_exercise("01-transpose", "tiled")
    kit, sol = ex.kit_source(False), ex.kit_source(True)
    types = source.type_names(ex.text())
    # a submission that changes the reference and the harness's call gets the kit's text back
    tampered = sol.replace("out[c * m + r] = in[r * n + c];", "out[c * m + r] = 0.0f;", 1)
    tampered = tampered.replace("b.bytes = 2.0 * (double)bytes;", "b.bytes = 1e30;")
    check(tampered.count("= 0.0f;") >= 1 and tampered != sol, "splice: the test's tampering applies")
    graded = source.splice(kit, sol, [("transpose.cu", tampered)], ex.name, types)
    check(graded == sol, "splice: a tampered CPU reference and bench set-up are replaced by the kit's")
    changed = source.changed_lines(kit, tampered, ex.name)
    check(re.fullmatch(r"\d+(-\d+)?, \d+(-\d+)?", changed) is not None,
          "splice: the report names the changed lines", changed)
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
            source.splice(kit, sol, [("transpose.cu", sub)], ex.name, types)
            check(False, f"splice: refuses a GPU region with {what}")
        except source.RegionError as e:
            check(True, f"splice: refuses a GPU region with {what}: {str(e).split('): ', 1)[-1][:70]}")
    device_ok = ["#pragma unroll", "#pragma unroll 4", 'const char *s = R"x(})x";', "char c = '}';",
                 "// a } in a comment", "/* { */", "// a line of a Windows editor\r"]
    sub = with_bodies(sol, ex.name, {0: device_ok + source.regions(sol.split("\n"), ex.name)[0]
                                     .body(sol.split("\n"))})
    try:
        source.splice(kit, sol, [("transpose.cu", sub)], ex.name, types)
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
            source.splice(kit, sol, [("transpose.cu", sub)], ex.name, types)
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
            source.splice(rkit, rsol, [("reduction.cu", with_bodies(rsol, red.name, {1: body}))],
                          red.name, rtypes)
            check(False, f"splice: refuses a launcher region with {what}")
        except source.RegionError as e:
            check("may not be used" in str(e), f"splice: refuses a launcher region with {what}", str(e))
    own = ["reduction_problem *p = (reduction_problem *)problem;",
           "unsigned blocks = grid_for(p, p->n, 4), threads = THREADS;",
           "for (int i = 0; i < 1; i++) CHECK(cudaMemsetAsync(p->out, 0, sizeof(float)));",
           "reduction_v8_atomic<THREADS><<<blocks, threads>>>(p->x, p->out, p->n);",
           "CHECK_LAUNCH();"]
    try:
        source.splice(rkit, rsol, [("reduction.cu", with_bodies(rsol, red.name, {1: own}))],
                      red.name, rtypes)
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
    # a loose file is a submission too: a one-file kit (dave.cu), or the region file (erin.cuh)
    write_sub(os.path.join(tmp, "loose"), ex, with_bodies(
        sol, ex.name, {0: ["__shared__ float tile[TILE][TILE];", "this is not C++;"]}), "one-file")
    os.rename(os.path.join(tmp, "loose", ex.topic + ".cu"), os.path.join(subs, "dave.cu"))
    with open(os.path.join(syntax, "v01-tiled.cuh")) as f:
        text = f.read()
    with open(os.path.join(subs, "erin.cuh"), "w") as f:
        f.write(text)
    with open(os.path.join(subs, "notes.txt"), "w") as f:  # and anything else is named
        f.write("not a submission\n")
    out = os.path.join(tmp, "out-all")
    env = dict(os.environ)
    env.pop("GRADE_SECRET", None)
    p = subprocess.run(["make", "-s", "--no-print-directory", *built(), "grade-all",
                        "CH=01-transpose", "EX=tiled", f"SUBS={subs}", f"OUT={out}"], cwd=ROOT,
                       capture_output=True, text=True, env=dict(env, HOME=tmp))
    check(p.returncode != 0 and "GRADE_SECRET" in p.stderr,
          "grade-all: refuses to grade a class without a secret", p.stderr[-300:])
    p = make("grade-all", "CH=01-transpose", "EX=tiled", f"SUBS={subs}", f"OUT={out}")
    with open(os.path.join(out, "gradebook.csv")) as f:
        book = list(csv.DictReader(f))
    students = ["dave", "empty", "erin", "escape", "linked", "syntax", "zero"]
    graded = [r for r in book if not r["incomplete"].startswith("skipped")]
    check(p.returncode == 0 and [r["student"] for r in graded] == students
          and all(float(r["total"]) == 0 for r in graded) and "compile" in book[0],
          "grade-all: one gradebook row per student, one column per case, a loose dave.cu (a "
          "one-file kit) and erin.cuh (the region file), a linked folder and a kit file linked "
          "to /dev/zero among them", p.stderr[-300:])
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
    mine = scoring.secret_id(os.environ["GRADE_SECRET"].encode())
    check(all(r["secret"] == mine for r in book2 if not r["incomplete"].startswith("skipped"))
          and all(r["secret"] == "" for r in book2 if r["incomplete"].startswith("skipped"))
          and os.environ["GRADE_SECRET"] not in open(os.path.join(out, "gradebook.csv")).read(),
          "gradebook: a secret column names the secret that graded each row (12 hex digits of an "
          "HMAC, not the secret)", str([r["secret"] for r in book2]))
    if not gpu:
        check(row["syntax"]["total"] == "" and row["syntax"]["compile"] == ""
              and row["syntax"]["incomplete"],
              "gradebook: an unfinished grading's row (no GPU) has no total and no case scores, "
              "only the reason", str(row["syntax"]))
    # a regrade with another secret, or none (a new shell without GRADE_SECRET), is refused
    # before grading: its row would have other secret cases than the rest of the class
    for what, secret in (("no secret", None), ("another secret", "not-the-class-secret")):
        env = dict(os.environ, HOME=tmp)
        env.pop("GRADE_SECRET", None)
        if secret:
            env["GRADE_SECRET"] = secret
        p = subprocess.run(["make", "-s", "--no-print-directory", *built(), "grade",
                            "CH=01-transpose", "EX=tiled", f"SUB={again}",
                            f"OUT={os.path.join(out, 'syntax')}"], cwd=ROOT, capture_output=True,
                           text=True, env=env)
        with open(os.path.join(out, "gradebook.csv")) as f:
            book3 = list(csv.DictReader(f))
        lines = [l for l in p.stderr.split("\n") if l.startswith("grade:")]
        check(p.returncode != 0 and len(lines) == 1 and "another secret" in lines[0]
              and book3 == book2, f"grade: a regrade into the class's folder with {what} is "
              "refused in one line, the gradebook left as it was", p.stderr[-300:])
    if gpu:
        print("SKIP grading the reference solutions without a GPU: a GPU is here (the GPU tests grade them)")
        return
    # without a GPU: the compile step is graded, then the grader says it cannot go on (exit 3)
    jobs = []
    layouts = ("kit", "regions", "one-file")  # each layout a submission may have, in turn
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        for k, e in enumerate(exercises.all_exercises()):
            d = write_sub(os.path.join(tmp, "ref", e.label.replace("/", "-")), e, e.kit_source(True),
                          layouts[k % 3])
            o = os.path.join(tmp, "ref-out", e.label.replace("/", "-"))
            jobs.append((e, o, layouts[k % 3], pool.submit(make, "grade", f"CH={e.chapter}",
                                                          f"EX={e.name}", f"SUB={d}", f"OUT={o}")))
        for e, o, layout, job in jobs:
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
                  and "changes outside" not in report
                  and "score" not in props and "incomplete" in props,
                  f"{e.label}: without a GPU the reference ({layout}) compiles (10 points) "
                  f"and grading stops with exit 3, no total anywhere (console, report.txt, junit.xml)", p.stderr[-300:])


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


def test_speed_statistics():
    """The speed protocol's statistics (classroom/speed.py) on synthetic timings."""
    lo, hi, cover = speed.median_interval(list(range(1, 101)))
    check((lo, hi) == (40, 61) and abs(cover - 0.9648) < 1e-3,
          "speed: the order-statistic interval of the median of 100 rounds is [x(40), x(61)], 96.5%",
          f"{lo} {hi} {cover}")
    six, five = speed.median_interval([3, 1, 2, 6, 5, 4]), speed.median_interval([1, 2, 3, 4, 5])
    check(six == (1, 6, 1 - 2 / 64) and five[:2] == (1, 5) and five[2] < 0.95,
          "speed: 6 rounds are the fewest whose range is a 95% interval; 5 give less, and say so")

    def rounds(ref_ms, sub_ms, noise, seed, drift=lambda i: 1.0):
        """A round function: the reference's and the submission's runs, each timed with its own
        noise and with the GPU's drift (a clock that changes over the rounds, both alike), each
        against a baseline in its own run, as round_ratio reads the programs' CSV rows."""
        rng, i = random.Random(seed), [0]

        def one():
            i[0] += 1
            rows = []
            for ms in (ref_ms, sub_ms):
                g, base = drift(i[0]), 10.0 * drift(i[0]) * (1 + rng.gauss(0, noise))
                t = ms * g * (1 + abs(rng.gauss(0, noise)))  # a long upper tail: noise only slows
                rows.append({"ms_median": str(t), "pct_of_baseline": str(100 * base / t)})
            return scoring.round_ratio(*rows)
        return one
    # a noisy pair, on a GPU whose clock drifts by 30% over the rounds: known to 1% and right
    e = speed.measure(rounds(1.0, 1.0 / 0.95, 0.01, 1, drift=lambda i: 1 + 0.3 * (i % 7) / 7))
    check(e.known() and speed.MIN_ROUNDS <= e.rounds < speed.MAX_ROUNDS and "known to 1%" in e.stopped
          and e.half_width <= 0.01 and abs(e.median - 0.95) / 0.95 < 0.02,
          f"speed: a noisy pair on a drifting GPU converges: {e.describe()}")
    # noise too large to know the median to 1% in the cap of rounds
    e = speed.measure(rounds(1.0, 1.0, 0.15, 2), max_rounds=12)
    check(e.rounds == 12 and not e.known() and "cap of 12 rounds" in e.stopped
          and "not known" in e.stopped, f"speed: the cap of rounds ends a noisy pair: {e.describe()}")
    # rounds of 50 s against a cap of 240 s: the fourth round ends at 200 s and a fifth would
    # end past the cap
    clock = [0.0]

    def slow():
        clock[0] += 50
        return 1.0
    e = speed.measure(slow, max_seconds=240, clock=lambda: clock[0])
    check(e.rounds == 4 and "cap of 240 s" in e.stopped and e.confidence < 0.95,
          f"speed: the cap of seconds ends the rounds before it is passed: {e.describe()}")
    # a submission twice as slow as the reference: 0.5 of its speed, to 1%, and the tier it earns
    tiers = exercises.find_exercise("01-transpose", "tiled").rubric["speed"]["tiers"]
    e = speed.measure(rounds(1.0, 2.0, 0.005, 3))
    check(e.known() and abs(e.median - 0.5) < 0.01 and e.low <= 0.5 * 1.01 and
          speed.tier_points(e.median, tiers) == (8 if e.median >= 0.5 else 4)
          and speed.tier_points(0.95, tiers) == 20 and speed.tier_points(0.1, tiers) == 0,
          f"speed: a submission twice as slow scores its ratio's tier: {e.describe()}")
    grouped = [[0.97, 50], [0.94, 25]]
    check(speed.shown(0.9696, grouped) == "0.969" and speed.tier_points(0.9696, grouped) == 25
          and speed.shown(0.9704, grouped) == "0.970" and speed.shown(0.9694, grouped) == "0.969"
          and speed.shown(0.5, tiers) == "0.500" and speed.shown(0.4999, tiers) == "0.499"
          and speed.shown(1.25, grouped) == "1.250",
          "speed: the report prints the ratio to three decimals, never rounded up onto a tier it "
          "does not reach (0.9696 against a tier at 0.97 reads 0.969)")


FAKE_PROGRAM = r"""#!/usr/bin/env python3
# A stand-in for a chapter's program in a speed run: writes the --csv row of the version it is
# asked for (its time: the next of TIMES, the baseline's 1.0 ms) and, with --dump, the timed output.
import os, sys
a = sys.argv
if "--verify" in a:
    sys.exit(0)  # as the verifier: every output right
times, state = TIMES, STATE
n = int(open(state).read()) if os.path.exists(state) else 0
open(state, "w").write(str(n + 1))
ms, v = times[min(n, len(times) - 1)], a[a.index("-v") + 1]
head = ("chapter,version,idea,input,m,n,k,reps,ms_median,ms_min,ms_max,gbps,gflops,"
        "pct_of_baseline,max_rel_err,ok,extra_name,extra_value")
row = "transpose,%s,x,random,8192,8192,,20,%s,%s,%s,%s,,%s,0,1,," 
with open(a[a.index("--csv") + 1], "w") as f:
    f.write(head + "\n" + row % ("memcpy", 1.0, 1.0, 1.0, 537, 100) + "\n"
            + row % (v, ms, ms, ms, 537 / ms, 100 / ms) + "\n")
if "--dump" in a:
    d = a[a.index("--dump") + 1]
    os.makedirs(d, exist_ok=True)
    if ms > 0:
        open(os.path.join(d, v + ".timed.out"), "w").write("out")
"""


def fake_program(path, times):
    with open(path, "w") as f:
        f.write(FAKE_PROGRAM.replace("TIMES", repr(times)).replace("STATE", repr(path + ".n")))
    os.chmod(path, 0o755)
    return path


def test_speed_protocol(tmp):
    """run_speed's rounds with stand-ins for the programs (no GPU): the report says the rounds,
    the ratio and its interval; results.json has the leaderboard."""
    ex = exercises.find_exercise("01-transpose", "tiled")
    d = os.path.join(tmp, "speed-protocol")
    os.makedirs(d)
    for folder in (tmp, d):
        os.chmod(folder, 0o711)
    verifier = fake_program(os.path.join(d, "verify"), [1.0])
    ref = fake_program(os.path.join(d, "reference"), [1.00, 1.01, 0.99, 1.00, 1.02, 1.00, 1.01, 1.0])
    sub = fake_program(os.path.join(d, "submission"), [2.00, 2.02, 1.99, 2.01, 2.00, 2.03, 2.0, 2.0])
    g = scoring.Grading(ex, "fake", sub, os.path.join(d, "out"), os.path.join(d, "work"))
    g.binary = sub
    os.chmod(os.path.join(d, "work"), 0o777)
    c = g.case("speed")[0]
    g.run_speed(c, verifier, ref, 30)
    for other in g.cases:
        if other is not c:
            other.result(True, "stand-in")
    reports.write_grading(g)
    res = results(g.out_dir)
    board = {e["name"]: e["value"] for e in res.get("leaderboard", [])}
    ratio = [v for k, v in board.items() if k.startswith("ratio")]
    check(c.estimate is not None and c.estimate.rounds >= speed.MIN_ROUNDS
          and re.match(r"0\.(49[5-9]|50[0-5]) of the reference solution's speed", c.output)
          and "median of" in c.output and "interval" in c.output and "known to 1%" in c.output
          and c.score == 8, "speed: the protocol's rounds on stand-in programs: 0.50 of the "
          "reference's speed, its rounds and interval in the report, 8 points", c.output)
    lowered = speed.caps(ex.rubric["speed"])
    check(lowered[:2] == (8, 20) and "KL_SPEED_MAX_ROUNDS=8, KL_SPEED_MAX_SECONDS=20" in c.output
          and any("at most 8 rounds, 20 s" in n for n in g.notes)
          and speed.caps({"max_rounds": 5, "max_seconds": 10})[:2] == (5, 10),
          "speed: KL_SPEED_MAX_ROUNDS and KL_SPEED_MAX_SECONDS (8 rounds, 20 s in these tests) "
          "lower the rubric's caps, never raise them, and the report and notes say so",
          f"{lowered} {g.notes}")
    check(ratio and abs(ratio[0] - 0.5) < 0.01 and abs(board.get("GB/s", 0) - 537 / 2) < 5,
          "speed: results.json's leaderboard has the chapter's rate (GB/s) and the ratio", str(board))
    # a submission whose third round writes no timed output: its time does not count
    sub2 = fake_program(os.path.join(d, "submission2"), [2.0, 2.0, 0, 2.0])
    g2 = scoring.Grading(ex, "fake2", sub2, os.path.join(d, "out2"), os.path.join(d, "work2"))
    g2.binary = sub2
    os.chmod(os.path.join(d, "work2"), 0o777)
    c2 = g2.case("speed")[0]
    g2.run_speed(c2, verifier, ref, 30)
    check(c2.score == 0 and "no output of a timed run" in c2.output and "round 3" in c2.output
          and not c2.leaderboard, "speed: a round whose timed output is missing ends the protocol "
          "with no speed points, and names the round", c2.output[:200])


def test_cannot_run(tmp):
    """A GPU without the version's hardware (a T4 for 06's wgmma versions): the chapter's program
    skips the version. The grader asks first (toolchain.cannot_run) and grades nothing on that
    GPU; stand-in programs here, no GPU."""
    ex = exercises.find_exercise("06-tensor-cores", "swizzled")
    d = os.path.join(tmp, "cannot-run")
    os.makedirs(d)
    said = {}
    for name, line in (("old", f"    {ex.version}: skipped: needs BF16 tensor cores (compute "
                               "capability 8.0); this GPU is 7.5"),
                       ("able", f"{ex.version}          swizzled   0.0100  yes")):
        path = os.path.join(d, name)
        with open(path, "w") as f:
            f.write(f"#!/bin/sh\necho 'version idea ms'\necho '{line}'\n")
        os.chmod(path, 0o755)
        said[name] = toolchain.cannot_run(path, ex)
    check(said["old"] == "needs BF16 tensor cores (compute capability 8.0); this GPU is 7.5"
          and said["able"] is None, "grade: a GPU that cannot run the exercise's version is "
          "named with the program's reason (and one that can is not)", str(said))
    # --verify of the skipped version failing is run for real in make test's GPU part (tests/run.sh)


def test_speed_gate(tmp):
    """run_gpu with stand-ins for the runs (no GPU): by default the speed case runs only when
    every correctness case passed; [speed] needs = "any" runs it after one; a rubric with another
    value is refused; the kit's README says which."""
    ex = exercises.find_exercise("01-transpose", "tiled")
    ran = {}

    def grading(tag, wrong, needs=None):
        e = copy.copy(ex)
        if needs:
            e.rubric = dict(ex.rubric, speed=dict(ex.rubric["speed"], needs=needs))
        d = os.path.join(tmp, "speed-gate-" + tag)
        g = scoring.Grading(e, tag, d, os.path.join(d, "out"), os.path.join(d, "work"))
        ran[tag] = []
        names = [c.name for c in g.case("correct")]
        g.run_correct = lambda c, *a: c.result(c.name not in names[:wrong], "stand-in")
        g.run_sanitize = lambda c, *a: (ran[tag].append(c.kind), c.result(True, "stand-in"))
        g.run_speed = lambda c, *a: (ran[tag].append(c.kind), c.result(True, "stand-in", 20.0))
        g.run_gpu("verify", "reference", "sanitizer", 30)
        return g

    g = grading("right", 0)
    check(ran["right"].count("speed") == 1 and g.case("speed")[0].score == 20,
          "speed gate: a submission right at every size has its speed case run")
    g = grading("one-wrong", 1)
    n = len(g.case("correct"))
    out = g.case("speed")[0].output
    check("speed" not in ran["one-wrong"] and "sanitize" in ran["one-wrong"]
          and g.case("speed")[0].score == 0
          and out == f"not run: 1 of {n} correctness cases failed, and speed counts only for a "
                     "submission right at every size",
          "speed gate: one wrong correctness case withholds the speed case (the sanitizers run)", out)
    g = grading("any", 1, needs="any")
    check(ran["any"].count("speed") == 1, "speed gate: [speed] needs = \"any\" runs it after one "
          "correct case")
    g = grading("none", n, needs="any")
    check(ran["none"] == [] and "no correctness case passed" in g.case("speed")[0].output,
          "speed gate: with no correct case neither sanitizers nor speed run, whatever needs says")
    bad = copy.copy(ex)
    bad.rubric = dict(ex.rubric, speed=dict(ex.rubric["speed"], needs="most"))
    try:
        grading("most", 0, needs="most")
        refused = ""
    except exercises.UsageError as e:
        refused = str(e)
    check(any("needs" in p for p in exercises.validate(bad)) and '"most"' in refused
          and "speed" not in ran["most"],
          "speed gate: a rubric whose [speed] needs is neither \"all\" nor \"any\" is refused, "
          "by make test's check and by the grader before any run", refused)
    check("the speed case needs all of them" in kits.rubric_text(ex)
          and "need at least one correct case first." in kits.rubric_text(g.ex),
          "speed gate: the kit's README says what the speed case needs, as the rubric says")


def test_roster_and_deadline(tmp):
    """grade-all's optional roster (id, name, folder) keys the gradebook's rows, and its optional
    deadline adds when each submission was handed in and how late. Submissions with no source
    (nothing to compile) keep it quick: each is graded, to 0, at once."""
    subs = os.path.join(tmp, "roster-subs")
    deadline = "2025-03-01T23:59:00+01:00"
    due = 1740869940  # the deadline, in seconds since 1970
    for name in ("alice", "bob", "zed"):
        os.makedirs(os.path.join(subs, name))
        with open(os.path.join(subs, name, "notes.md"), "w") as f:
            f.write("no source yet\n")
    os.utime(os.path.join(subs, "alice", "notes.md"), (due + 2 * 3600, due + 2 * 3600))  # 2 h late
    os.utime(os.path.join(subs, "zed", "notes.md"), (due - 60, due - 60))
    # bob's folder is a git repository (a GitHub Classroom clone): his commit's time counts, not
    # the files' times (a clone's files are as new as the clone)
    git_env = dict(os.environ, GIT_AUTHOR_NAME="b", GIT_AUTHOR_EMAIL="b@x", GIT_COMMITTER_NAME="b",
                   GIT_COMMITTER_EMAIL="b@x", GIT_COMMITTER_DATE=f"{due - 3600} +0000",
                   GIT_AUTHOR_DATE=f"{due - 3600} +0000")
    for cmd in (["init", "-q"], ["add", "notes.md"], ["commit", "-q", "-m", "done"]):
        subprocess.run(["git", "-C", os.path.join(subs, "bob"), *cmd], env=git_env, check=True,
                       capture_output=True)
    roster = os.path.join(tmp, "roster.csv")
    with open(roster, "w") as f:
        f.write("ID,Name,Folder,email\n1001,Alice A,alice,a@x\n1002,Bob B,bob,b@x\n"
                "1003,Carol C,carol,c@x\n")
    out = os.path.join(tmp, "roster-out")
    p = make("grade-all", "CH=01-transpose", "EX=tiled", f"SUBS={subs}", f"OUT={out}",
             f"ROSTER={roster}", f"DEADLINE={deadline}")
    with open(os.path.join(out, "gradebook.csv")) as f:
        head = next(csv.reader(f))
        f.seek(0)
        book = {r["student"]: r for r in csv.DictReader(f)}
    check(p.returncode == 0 and head[:7] == ["id", "name", "roster", "student", "total",
                                             "max_score", "incomplete"]
          and head[7:10] == ["submitted", "deadline", "late"] and list(book) == ["alice", "bob",
                                                                                "carol", "zed"],
          "grade-all ROSTER= DEADLINE=: the gradebook's rows in the roster's order, then the rest; "
          "columns id, name, roster ... submitted, deadline, late", f"{head[:10]} {list(book)} "
          f"{p.stderr[-300:]}")
    a, b, c, z = (book.get(n, {}) for n in ("alice", "bob", "carol", "zed"))
    check(a.get("id") == "1001" and a.get("name") == "Alice A" and a.get("roster") == ""
          and a.get("total") == "0.00" and b.get("id") == "1002",
          "grade-all ROSTER=: a roster's student's row has their id and name", str(a))
    check(c.get("id") == "1003" and c.get("roster") == "no submission" and c.get("total") == ""
          and c.get("incomplete", "").startswith("missing") and "no submission carol" in p.stdout,
          "grade-all ROSTER=: a roster entry with no folder gets a row 'missing', no total, and a "
          "console line", str(c))
    check(z.get("id") == "" and z.get("roster") == "not on the roster" and z.get("total") == "0.00"
          and "zed is not on the roster" in p.stdout,
          "grade-all ROSTER=: a folder not on the roster is graded and flagged", str(z))
    check(a.get("late") == "2.00" and a.get("submitted") == "2025-03-02T00:59:00Z"
          and b.get("late") == "0" and b.get("submitted") == "2025-03-01T21:59:00Z"
          and z.get("late") == "0" and c.get("late") == "" and a.get("deadline") == "2025-03-01T22:59:00Z",
          "grade-all DEADLINE=: late is the hours past the deadline, from the newest file's time, "
          "or a git repository's commit time (not its files' times)",
          f"{a.get('submitted')} {a.get('late')} {b.get('submitted')} {b.get('late')}")
    with open(os.path.join(out, "alice", "report.txt")) as f:
        check("handed in 2025-03-02T00:59:00Z (the modification time of its newest file, "
              "alice/notes.md)" in f.read(), "grade DEADLINE=: the report says when and how the "
              "submission's time is known")
    # regrades into the class's folder: alice's fixed folder (on time now, against the deadline
    # her row names), and carol's late one: their roster columns stay
    os.utime(os.path.join(subs, "alice", "notes.md"), (due - 10, due - 10))
    os.makedirs(os.path.join(subs, "carol"))
    with open(os.path.join(subs, "carol", "notes.md"), "w") as f:
        f.write("late\n")
    os.utime(os.path.join(subs, "carol", "notes.md"), (due + 36 * 3600, due + 36 * 3600))
    for name in ("alice", "carol"):
        p2 = make("grade", "CH=01-transpose", "EX=tiled", f"SUB={os.path.join(subs, name)}",
                  f"OUT={os.path.join(out, name)}")
    with open(os.path.join(out, "gradebook.csv")) as f:
        book2 = {r["student"]: r for r in csv.DictReader(f)}
    reports = ""
    for name in ("alice", "carol"):
        with open(os.path.join(out, name, "report.txt")) as f:
            reports += f.read()
    check(reports.count("the deadline is 2025-03-01T22:59:00Z") == 2,
          "grade: a regrade into the class's folder without DEADLINE= says in its report the "
          "deadline its gradebook row names", reports[-300:])
    a2, c2 = book2.get("alice", {}), book2.get("carol", {})
    check(list(book2) == list(book) and a2.get("id") == "1001" and a2.get("late") == "0"
          and c2.get("id") == "1003" and c2.get("roster") == "" and c2.get("late") == "36.00"
          and c2.get("total") == "0.00" and book2["bob"] == b,
          "grade: a regrade into the class's folder keeps the roster's columns, and takes late from "
          "the deadline the row names (a missing student's late submission: 36 h late)",
          f"{a2} {c2} {p2.stderr[-200:]}")
    with open(roster + "x", "w") as f:
        f.write("id,name\n1,A\n")
    os.makedirs(os.path.join(subs, "scratch"))  # not a submission: it is not named before the error
    with open(os.path.join(subs, "scratch.txt"), "w") as f:
        f.write("a loose file\n")
    for what, args, word in (("a roster without a folder column", ["ROSTER=" + roster + "x"], "roster"),
                             ("a roster that is not there", ["ROSTER=" + roster + "-nosuch"],
                              "No such file"),
                             ("a deadline that is no time", ["DEADLINE=tomorrow"], "ISO"),
                             ("a deadline with no time of day", ["DEADLINE=2025-03-01"],
                              "no time of day")):
        p = make("grade-all", "CH=01-transpose", "EX=tiled", f"SUBS={subs}",
                 f"OUT={os.path.join(tmp, 'roster-bad')}", *args)
        lines = [l for l in p.stderr.split("\n") if l.startswith("grade:")]
        check(p.returncode != 0 and len(lines) == 1 and word in lines[0] and "grade-all" not in p.stdout,
              f"grade-all with {what}: one line naming the {word}, before anything else, exit 2",
              p.stdout[-200:] + p.stderr[-300:])


def test_substeps():
    """A sub-step version (v6a, v6b between v6 and v7, in files v06a-NAME.cuh) is an ordinary
    version in the table's order: a kit for v6a keeps v6 and v6a and leaves out v6b, v7 and what
    serves them ("(v6b on)")."""
    text = "\n".join([
        "// chapter X", "//   v6 six", "//   v6a sixa", "//   v6b sixb", "//   v7 seven",
        '#include "gpu.h"',
        "// ---- v6 six ----", "static void launch_v6(void *p) { (void)p; }",
        "// ---- v6a sixa ----", "__global__ void k6a(float *x) {", "    // EXERCISE: sub begin",
        "    x[0] = 1;", "    // EXERCISE: sub end", "}", "static void launch_v6a(void *p) { (void)p; }",
        "// ---- wide loads (v6b on) ----", "__device__ void wide_v6b() {}",
        "// ---- v6b sixb ----", "static void launch_v6b(void *p) { wide_v6b(); (void)p; }",
        "// ---- v7 seven ----", "static void launch_v7(void *p) { wide_v6b(); (void)p; }",
        "// ---- the version table ----", "static const version versions[] = {",
        '    {"v6", "six", launch_v6, 0},', '    {"v6a", "sixa", launch_v6a, 0},',
        '    {"v6b", "sixb", launch_v6b, 0},', '    {"v7", "seven", launch_v7, 0},', "};", ""])
    kit = "\n".join(line for line, _ in source.kit_lines(text, "sub", "v6a", False, "kit"))
    kept = {r.tag for r in source.version_rows(kit.split("\n"))}
    check(kept == {"v6", "v6a"} and "wide_v6b" not in kit and "launch_v6(" in kit
          and "kl_exercise_todo" in kit and "sixb" not in kit,
          "kits: a kit for sub-step v6a keeps v6 and v6a, and leaves out v6b, what serves it "
          "('(v6b on)') and v7", str(sorted(kept)))


# ---- with a GPU ---------------------------------------------------------------------------------

def test_gpu(tmp):
    """Three exercises at a time: one compiles while another has the GPU (the grader lets one
    grading at a time use a GPU, so the timed runs never share it). On two GPUs or more, each
    single-GPU exercise is graded with GPUS=all, a submission a GPU."""
    os.environ.setdefault("GRADE_SECRET", "kernel-ladder-tests")
    only = [x for x in os.environ.get("KL_EXERCISES", "").split(",") if x]  # e.g. 01-transpose/tiled
    exs = [ex for ex in exercises.all_exercises() if not only or ex.label in only]
    for ex in [ex for ex in exs if ex.gpus > toolchain.gpu_count()]:  # chapter 07 needs two or more
        print(f"SKIP {ex.label}: needs {ex.gpus} GPUs, this machine has {toolchain.gpu_count()}")
    exs = [ex for ex in exs if ex.gpus <= toolchain.gpu_count()]
    unable = {ex.label: toolchain.cannot_run(toolchain.verifier_binary(ex), ex) for ex in exs}
    for ex in [ex for ex in exs if unable[ex.label]]:  # 06's grouped before Hopper, say
        print(f"SKIP {ex.label}: {ex.version} cannot run here: {unable[ex.label]}")
    exs = [ex for ex in exs if not unable[ex.label]]
    keep = os.environ.get("KL_GRADER_KEEP")  # a folder to keep the reports in (for a look)
    with concurrent.futures.ThreadPoolExecutor(3) as pool:
        for f in [pool.submit(grade_exercise_on_gpu, ex, keep or tmp) for ex in exs]:
            f.result()
    if SPREAD_SEEN:  # three grade-alls at once share the GPUs: count over the whole suite
        gpus = {g for _, _, g in SPREAD_SEEN if g}
        check(all(g for _, _, g in SPREAD_SEEN) and len(gpus) >= 2,
              f"GPUS=all: every report of the single-GPU exercises names the GPU that graded it, "
              f"{len(gpus)} GPUs in all", str([x for x in SPREAD_SEEN if not x[2]][:5]))


SPREAD_SEEN = []  # (exercise, submission, the GPU its report names) of GPUS=all gradings


def grade_exercise_on_gpu(ex, tmp):
    subs = os.path.join(tmp, "subs", ex.label.replace("/", "-"))
    # the reference as a kit folder, the starter as a one-file kit, the plants as region files
    write_sub(os.path.join(subs, "reference"), ex, ex.kit_source(True))
    write_sub(os.path.join(subs, "starter"), ex, ex.kit_source(False), "one-file")
    plants = {}
    for name in plant_names():
        label, body = plant(name)
        # those never reach the GPU: the cpu tests show them refused
        if label == ex.label and name not in ("escape", "launcher", "exit"):
            region = 1 if "(the second region" in body[0] else 0
            write_sub(os.path.join(subs, name), ex, with_bodies(ex.kit_source(True), ex.name,
                                                               {region: body}), "regions")
            plants[name] = True
    out = os.path.join(tmp, "out", ex.label.replace("/", "-"))
    log = os.path.join(tmp, ex.label.replace("/", "-") + ".log")
    t0 = time.monotonic()
    extra = ["TIME_LIMIT=30"] if plants else []  # the hang plant waits this long once
    spread = ex.gpus == 1 and toolchain.gpu_count() >= 2  # then grade on every GPU at once
    extra += ["GPUS=all"] if spread else []
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
        edge_speed = cs[[n for n in cs if n.startswith("speed")][0]]
        check(edge_speed["score"] == 0 and edge_speed["output"].startswith(
                  f"not run: {len(odd)} of {len(whole) + len(odd)} correctness cases failed"),
              f"{ex.label}: the planted off-by-one, fast where it is right, gets no speed case",
              edge_speed["output"][:200])
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
        speed_case = cs[[n for n in cs if n.startswith("speed")][0]]
        sanitized = [t for n, t in cs.items() if n.startswith("sanitize")]
        check(hung == ["correct -m 31 -n 33"] and all(t["score"] > 0 for t in others)
              and sanitized and all(t["score"] > 0 for t in sanitized)
              and speed_case["score"] == 0 and "1 of" in speed_case["output"]
              and "right at every size" in speed_case["output"],
              f"{ex.label}: the planted endless loop costs its one case, grading goes on "
              f"(sanitizers scored), and the speed case is withheld (one case wrong)",
              str(hung) + " " + speed_case["output"][:200])
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
    if "fixedband" in plants:  # 06-tensor-cores/grouped: a last band as high as the others
        cs = case_scores(results(os.path.join(out, "fixedband")))
        public = {n: t for n, t in cs.items() if n.startswith("correct -m")}
        def whole(name):  # right where the rows of tiles are whole bands of 16, or one column
            m, n = (int(x) for x in re.search(r"-m (\d+) -n (\d+)", name).groups())
            return -(-m // 128) % 16 == 0 or n <= 256
        right = [n for n in public if whole(n)]
        check(right and len(right) < len(public)
              and all((t["score"] > 0) == whole(n) for n, t in public.items())
              and cs[[n for n in cs if n.startswith("speed")][0]]["score"] == 0,
              f"{ex.label}: the planted band of fixed height is right only where the rows are "
              f"whole bands or one column ({len(right)} of {len(public)} public cases), no speed",
              str({n: t["score"] for n, t in public.items()}))
    # 06-tensor-cores/grouped: two orders right at every size, told apart by the speed case alone
    for name, what, points, says in (("rowsorder", "row by row (v8's order)", 0, "no"),
                                     ("colsorder", "column by column", None, "full")):
        if name in plants:
            cs = case_scores(results(os.path.join(out, name)))
            sp = cs[[n for n in cs if n.startswith("speed")][0]]
            right = all(t["score"] > 0 for n, t in cs.items() if n.startswith("correct"))
            want = ex.rubric["speed"]["points"] if points is None else points
            check(right and sp["score"] == want,
                  f"{ex.label}: {what} is right at every size and earns {says} speed points",
                  sp["output"][:200])
    for cheat in ("printpass",):
        if cheat in plants:
            res = results(os.path.join(out, cheat))
            check(res["score"] == ex.rubric["compile"]["points"],
                  f"{ex.label}: the '{cheat}' cheat gains nothing beyond compiling "
                  f"({res['score']:g} points)")
    with open(os.path.join(out, "gradebook.csv")) as f:
        book = {r["student"]: r for r in csv.DictReader(f)}
    check(set(book) == {"reference", "starter", *plants}, f"{ex.label}: the gradebook has every submission")
    if spread:  # each report names the GPU it was graded on (test_gpu counts them all)
        for name in book:
            with open(os.path.join(out, name, "report.txt")) as f:
                m = re.search(r"graded on GPU (\S+) ", f.read())
            SPREAD_SEEN.append((ex.label, name, m.group(1) if m else None))


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
    lim = sandbox.run(["cat", "/proc/self/limits"], os.path.join(d, "limits"), 30, user=user)
    core = re.search(r"Max core file size\s+(\S+)", lim.output)
    size = re.search(r"Max file size\s+(\S+)", lim.output)
    check(core and size and core.group(1) == "0" and size.group(1) == str(4 << 30),
          "sandbox: the program may write no core file and no file over 4 GiB", lim.output[-400:])
    if user is None:
        print(f"SKIP sandbox: the grader is not root here (uid {os.geteuid()}), so it runs no one else")
        return
    ids = sandbox.run(["id"], os.path.join(d, "groups"), 30, user=user)
    check(f"uid={user[1]}(" in ids.output and f"gid={user[2]}(" in ids.output
          and ids.output.count("(") == 3, "sandbox: as root, the program runs with the user's uid "
          "and gid and no other group (none of the grader's)", ids.output[-200:])
    check(lines[0] == str(user[1]) and "unreadable" in r.output,
          f"sandbox: as root, the grader runs the program as {user[0]}, which cannot read the "
          f"grader's files", r.output[-300:])


def test_gpu_groups(tmp):
    """grade-all on several GPUs at once (GPUS=all or N): the groups it makes, the lock of each
    GPU, the environment a program of a group sees, and the scheduler (stand-ins, no GPU)."""
    import grade  # classroom/grade.py
    g = toolchain.gpu_groups
    check(g(["0", "1", "2", "3"], 1, None) == [(["0"], None)]
          and g(["0", "1", "2", "3"], 2, None) == [(["0", "1", "2", "3"], None)]
          and g(["0", "1", "2", "3"], 1, "all") == [([e], [e]) for e in "0123"]
          and g(["4", "5", "6"], 2, "all") == [(["4", "5"], ["4", "5"])]
          and g(["GPU-a", "GPU-b", "GPU-c"], 1, 2) == [(["GPU-a"], ["GPU-a"]), (["GPU-b"], ["GPU-b"])],
          "grade-all GPUS: one group without it (the first GPU; every GPU for an exercise of "
          "several), one group a GPU (or a pair, for 07) with all or N, named as "
          "CUDA_VISIBLE_DEVICES names them")
    saved_uuids = toolchain._gpu.get("uuids", "unset")
    toolchain._gpu["uuids"] = ["GPU-aaaa", "GPU-bbbb"]  # as build/gpuinfo uuids would say
    keys = toolchain.lock_keys(["0", "1"])
    toolchain._gpu["uuids"] = None  # it could not tell
    plain = toolchain.lock_keys(["0", "1"])
    if saved_uuids == "unset":
        del toolchain._gpu["uuids"]
    else:
        toolchain._gpu["uuids"] = saved_uuids
    check(keys == {"0": "GPU-aaaa", "1": "GPU-bbbb"} and plain == {"0": "0", "1": "1"}
          and g(["0", "1"], 1, "all", keys) == [(["GPU-aaaa"], ["0"]), (["GPU-bbbb"], ["1"])]
          and g(["0", "1"], 2, None, keys) == [(["GPU-aaaa", "GPU-bbbb"], None)],
          "grade-all GPUS: each GPU's lock goes by its UUID (build/gpuinfo uuids), its programs "
          "see it as CUDA_VISIBLE_DEVICES names it; the name itself where the UUID is unknown")
    refused = []
    for value, visible, need in (("0", ["0"], 1), ("two", ["0"], 1), ("-1", ["0"], 1),
                                 ("1.5", ["0"], 1), ("3", ["0", "1"], 1), ("all", ["0"], 2)):
        try:
            g(visible, need, toolchain.parse_gpus(value))
        except exercises.UsageError as e:
            refused.append(str(e))
    check(len(refused) == 6 and all(r.startswith("GPUS=") for r in refused)
          and toolchain.parse_gpus(None) is None and toolchain.parse_gpus("all") == "all"
          and toolchain.parse_gpus("2") == 2,
          "grade-all GPUS: 0, words, negative and fractional counts, more GPUs than the machine "
          "shows and too few for a grading are refused, each with a line naming GPUS=", str(refused))
    p = subprocess.run([sys.executable, os.path.join(ROOT, "classroom", "grade.py"), "grade-all",
                        "01-transpose", "tiled", tmp, os.path.join(tmp, "gpus-out"), "--gpus",
                        "none"], capture_output=True, text=True)
    check(p.returncode == 2 and p.stderr.strip().startswith("grade: GPUS=none:")
          and len(p.stderr.strip().split("\n")) == 1,
          "grade-all GPUS=none: a one-line usage error, exit 2, before anything is graded",
          p.stderr)
    # a lock a GPU: another process waits for the same GPU, not for another
    probe = ("import fcntl, sys; f = open(sys.argv[1], 'w')\n"
             "try:\n    fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB); print('free')\n"
             "except BlockingIOError:\n    print('held')")
    lockdir = os.path.join(ROOT, "build", "grader")
    with toolchain.gpu_lock(["kl-test-1", "GPU-x/y"]):
        seen = [subprocess.run([sys.executable, "-c", probe, os.path.join(lockdir, f"gpu-{n}.lock")],
                               capture_output=True, text=True).stdout.strip()
                for n in ("kl-test-1", "GPU-x_y", "kl-test-0")]
    check(seen == ["held", "held", "free"], "grade-all GPUS: a grading holds the lock of each of "
          "its GPUs (build/grader/gpu-KEY.lock), and another GPU's stays free", str(seen))
    r = sandbox.run(["sh", "-c", "echo devices=$CUDA_VISIBLE_DEVICES"], os.path.join(tmp, "gpus-env"),
                    30, gpus=["2", "3"])
    check("devices=2,3" in r.output, "grade-all GPUS: a group's programs see its GPUs alone "
          "(CUDA_VISIBLE_DEVICES)", r.output)

    # every program of a grading on a group sees the group's GPUs: the submission's correctness,
    # sanitizer and speed runs, the checks and the reference's speed runs (stand-ins that log)
    ex = exercises.find_exercise("01-transpose", "tiled")
    d = os.path.join(tmp, "gpus-runs")
    os.makedirs(d)
    log = os.path.join(d, "seen.log")
    logger = ("import os as _o, sys as _s\n"
              f"open({log!r}, 'a').write('%s %s\\n' % (_o.path.basename(_s.argv[0]), "
              "_o.environ.get('CUDA_VISIBLE_DEVICES', '-')))\n"
              "'--csv' in _s.argv or '--verify' in _s.argv or _s.exit(0)\n")
    progs = {}
    for name in ("verifier", "reference", "submission", "sanitizer"):
        path = fake_program(os.path.join(d, name), [1.0] if name != "submission" else [2.0])
        with open(path) as f:
            head, rest = f.read().split("\n", 1)
        with open(path, "w") as f:
            f.write(head + "\n" + logger + rest)
        progs[name] = path
    g = scoring.Grading(ex, "on-7", progs["submission"], os.path.join(d, "out"), os.path.join(d, "work"))
    g.binary, g.gpus = progs["submission"], ["7"]
    g.run_gpu(progs["verifier"], progs["reference"], progs["sanitizer"], 30)
    with open(log) as f:
        seen = [l.split() for l in f.read().split("\n") if l]
    who = {w for w, _ in seen}
    check(who == {"verifier", "reference", "submission", "sanitizer"}
          and all(gpu == "7" for _, gpu in seen) and g.case("speed")[0].estimate is not None,
          f"grade-all GPUS: each of a grading's {len(seen)} runs (correctness, checks, sanitizers, "
          "both sides of the speed rounds) sees its group's GPU alone", str(seen[:6]))

    class Stand:  # a grading: when and on which GPUs it ran; 'bad' fails as a reference would,
        def __init__(self, name):  # 'crash' as a bug in the grader would
            self.name, self.gpus, self.notes, self.ran, self.incomplete = name, None, [], None, None
            self.when = None

        def run_gpu(self, *tools_and_limit):
            t0 = time.monotonic()
            time.sleep(0.1)
            self.ran, self.when = self.gpus, (t0, time.monotonic())
            if self.name == "bad":
                raise toolchain.GraderError("the reference solution failed its speed run")
            if self.name == "crash":
                raise ValueError("a bug")

        def mark_incomplete(self, why):
            self.incomplete = why
    printed, asked = [], []
    saved = grade.write_grading, grade.cannot_run
    grade.write_grading = lambda st: printed.append(st.name) or st.name

    def cannot(verifier, ex, gpus):  # the version cannot run on the GPU named kl-test-old
        asked.append(gpus)
        return "needs a newer GPU" if gpus and "kl-test-old" in gpus else None
    grade.cannot_run = cannot
    quiet = contextlib.redirect_stdout(io.StringIO())  # the names run_gradings prints
    two = toolchain.gpu_groups(["kl-test-0", "kl-test-1"], 1, "all")
    tools = ("verifier", "reference", "cs")
    holder = ("import fcntl, sys, time; f = open(sys.argv[1], 'w'); fcntl.flock(f, fcntl.LOCK_EX); "
              "print('held', flush=True); time.sleep(float(sys.argv[2]))")
    try:
        quiet.__enter__()
        subs = [Stand(f"s{i}") for i in range(7)]
        ok = [i != 3 for i in range(7)]  # s3 did not compile: printed, never run
        left = grade.run_gradings(ex, subs, ok, two, tools, None, None)
        ran = {st.name: st.ran for st in subs}
        spans = {st.name: (st.ran[0], st.when) for st in subs if st.when}
        overlap = any(a[0] != b[0] and a[1][0] < b[1][1] and b[1][0] < a[1][1]
                      for a in spans.values() for b in spans.values())
        one = [Stand(f"t{i}") for i in range(3)]
        grade.run_gradings(ex, one, [True] * 3, toolchain.gpu_groups(["kl-test-0"], 1, None),
                           tools, None, None)
        stop = [Stand(n) for n in ("a", "bad", "c", "d")]
        why = grade.run_gradings(ex, stop, [True] * 4, toolchain.gpu_groups(["kl-test-0"], 1, None),
                                 tools, None, None)
        many = [Stand("crash" if i == 1 else f"u{i}") for i in range(12)]
        crashed = None
        try:
            grade.run_gradings(ex, many, [True] * 12, two, tools, None, None)
        except ValueError as e:
            crashed = str(e)
        started = sum(1 for st in many if st.when)
        # GPU kl-test-1 busy with another grading for 4 s: the class is graded on kl-test-0 alone,
        # and the grader does not wait for kl-test-1
        busy = subprocess.Popen([sys.executable, "-c", holder,
                                 os.path.join(ROOT, "build", "grader", "gpu-kl-test-1.lock"), "4"],
                                stdout=subprocess.PIPE, text=True)
        busy.stdout.readline()
        late = [Stand(f"w{i}") for i in range(3)]
        t0 = time.monotonic()
        with contextlib.redirect_stderr(io.StringIO()):
            grade.run_gradings(ex, late, [True] * 3, two, tools, None, None)
        waited = time.monotonic() - t0
        busy.wait()
        asked.clear()
        old = [Stand(f"o{i}") for i in range(3)]
        refused = grade.run_gradings(ex, old, [True] * 3,
                                     toolchain.gpu_groups(["kl-test-old"], 1, "all"), tools, None, None)
    finally:
        quiet.__exit__(None, None, None)
        grade.write_grading, grade.cannot_run = saved
    check(left is None and sorted(printed[:7]) == sorted(st.name for st in subs)
          and ran["s3"] is None and {ran[n][0] for n in ran if n != "s3"} == {"kl-test-0", "kl-test-1"}
          and overlap and all(st.notes and "graded on GPU" in st.notes[0] for st in subs if st.name != "s3"),
          "grade-all GPUS=all: two GPUs grade the class at once (two gradings overlap in time), each "
          "submission on one of them, its note says which; the one that did not compile printed, "
          "not run", str(ran))
    check(printed[7:10] == ["t0", "t1", "t2"] and all(st.ran is None and not st.notes for st in one),
          "grade-all without GPUS: the class in order, on the grader's own GPU, no note", str(printed))
    check(why and "speed run" in why and [st.incomplete for st in stop][2:] == [why, why]
          and stop[0].incomplete is None,
          "grade-all: after a grading the grader cannot finish (the reference failed), the ones "
          "not yet started are incomplete", str([st.incomplete for st in stop]))
    check(crashed == "a bug" and started < 12,
          "grade-all GPUS=all: an error that is not the grader's (a bug) comes out, and the other "
          f"GPU stops after its grading in progress ({started} of 12 started)")
    check(waited < 3 and all(st.ran == ["kl-test-0"] for st in late),
          "grade-all GPUS=all: a GPU that another grading keeps busy is not waited for once the "
          f"class is graded on the others ({waited:.1f} s, the other grading held it 4 s)")
    check(refused and "cannot run here (GPU kl-test-old)" in refused and asked == [["kl-test-old"]]
          and all(st.incomplete == refused and st.ran is None for st in old),
          "grade-all GPUS: each group asks whether its GPU can run the version, once; one that "
          "cannot stops grading, named", str(refused))


def test_similarity(tmp):
    """similarity.csv: a copy with its names and comments changed is found, alike to another
    student's and to the reference; different code and the untouched kit are not listed; short
    bodies are named as too short. Without a GPU: the file is written all the same."""
    import similarity
    ex = exercises.find_exercise("03-matmul", "tiled")
    sol = ex.kit_source(True)
    body = source.regions(sol.split("\n"), ex.name)[0].body(sol.split("\n"))
    renamed = []  # the reference's body, its variables renamed and its comments rewritten
    for line in body:
        line = re.sub(r"//.*", "// my own words", line)
        for w, v in (("as", "tile_a"), ("bs", "tile_b"), ("ty", "y0"), ("tx", "x0"), ("col", "j"),
                     ("acc", "sum"), ("k0", "base"), ("kk", "q")):
            line = re.sub(rf"\b{w}\b", v, line)
        renamed.append(line)
    check(renamed != body and sum(a != b for a, b in zip(renamed, body)) > len(body) // 2,
          "similarity: the test's copy differs from the reference in most of its lines")
    other = ["    size_t r = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;",
             "    if (r >= m || col >= n) return;",
             "    float s = 0.0f;",
             "    for (size_t i = 0; i < k; i++) s += a[r * k + i] * b[i * n + col];",
             "    c[r * n + col] = s;"]
    subs = os.path.join(tmp, "sim-subs")
    for who, b in (("ann", renamed), ("ben", renamed), ("cat", body), ("dee", other)):
        write_sub(os.path.join(subs, who), ex, with_bodies(sol, ex.name, {0: b}))
    write_sub(os.path.join(subs, "eve"), ex, ex.kit_source(False))  # the kit, untouched
    out = os.path.join(tmp, "sim-out")
    make("grade-all", "CH=03-matmul", "EX=tiled", f"SUBS={subs}", f"OUT={out}")
    with open(os.path.join(out, "similarity.csv")) as f:
        rows = [(r["student"], r["other"], r["similarity"]) for r in csv.DictReader(f)]
    pairs = {(a, b) for a, b, _ in rows}
    check({("ann", "ben"), ("ann", "cat"), ("ben", "cat"), ("ann", "(reference solution)"),
           ("ben", "(reference solution)"), ("cat", "(reference solution)")} <= pairs
          and not any("dee" in p or "eve" in p for p in pairs)
          and all(float(x) >= similarity.THRESHOLD for _, _, x in rows),
          "grade-all: similarity.csv finds a copy with its names and comments changed (alike to "
          "its source, another student's and the reference solution) and lists neither different "
          "code nor the untouched kit", str(rows))
    short = similarity.alike({"a": "x = 1;", "b": "x = 1;"}, None)
    check(short == ([], ["a", "b"]) and similarity.fingerprint("") is None
          and similarity.tokens('s = "a // b"; /* c */ t = 0x1f; // d') ==
          ["ID", "=", "STR", ";", "ID", "=", "NUM", ";"],
          "similarity: comments go, strings and numbers are one token each, names are ID, and "
          "bodies too short to say anything are named, not compared", str(short))


def main(argv):
    mode = argv[1] if len(argv) > 1 else "cpu"
    gpu = toolchain.gpu_reason() is None
    os.environ.setdefault("GRADE_SECRET", "kernel-ladder-tests")  # grade-all needs one
    # the speed protocol's caps, lowered for these tests (speed.caps; docs/instructors.md): each
    # submission's rounds end by 8 rounds or 20 s, so the GPU suite stays a few minutes
    os.environ.setdefault("KL_SPEED_MAX_ROUNDS", "8")
    os.environ.setdefault("KL_SPEED_MAX_SECONDS", "20")
    with tempfile.TemporaryDirectory(prefix="kl-test-grader-") as tmp:
        if mode == "cpu":
            exs = test_exercises()
            test_bad_input(tmp)
            test_unbuilt_grader(tmp)
            test_grade_deps()
            test_splicer()
            test_submission_layouts(tmp)
            test_submission_mistakes(tmp)
            test_instructors_doc()
            test_substeps()
            test_rules()
            test_sandbox(tmp)
            test_secret_and_runs(tmp)
            test_speed_statistics()
            test_speed_protocol(tmp)
            test_speed_gate(tmp)
            test_cannot_run(tmp)
            test_gpu_groups(tmp)
            test_similarity(tmp)
            test_roster_and_deadline(tmp)
            test_kit_names(exs)
            test_kit_readme(tmp)
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
