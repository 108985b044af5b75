#!/usr/bin/env python3
"""grade.py: the exercises, their starter kits, and the grader. The Makefile's targets call it:

  make exercises                                   list every exercise
  make starter   CH=01-transpose EX=tiled DEST=dir write a student's kit
  make grade     CH=... EX=... SUB=kit-or-file OUT=dir            grade one submission
  make grade-all CH=... EX=... SUBS=dir-of-students OUT=dir       grade a class, write a gradebook
                 [ROSTER=roster.csv] [DEADLINE=2025-03-01T23:59:00+01:00]   keyed by a roster, with a late column

The work is done by one module a job, each beside this file:
  exercises.py   finding the exercises, their rubrics, validate (`check`), the rubric's rules
  kits.py        writing a starter kit, and the grading table of a statement
  submission.py  reading a student's submission
  sandbox.py     running a student's program: scrubbed environment, limits, time limit
  toolchain.py   nvcc, the GPU and its lock, compute-sanitizer, the grader's own programs
  scoring.py     one submission's cases and scores; its docstring says how a submission is
                 graded (docs/instructors.md says why each step is there)
  speed.py       the speed protocol's statistics: rounds until the median ratio is known to 1%
  similarity.py  which submissions of a class are alike (similarity.csv), for the instructor
  reports.py     results.json, junit.xml, report.txt, the gradebook
  source.py      reading a chapter's source: sections, version tables, regions, kits, splicing

This file is the command line: list, check, starter, grade, grade-all, sample, and grade_many,
which grades a class (every submission compiled at once, then each one's GPU cases in turn).

Exit codes: 0 grading finished (whatever the score), 2 bad usage, 3 the grader could not run
(no GPU, no compute-sanitizer, a GPU that cannot run the exercise's version): the compile step
is graded first and written as incomplete; 3 too, before anything is graded, when make has not
built the grader's own objects (toolchain.check_built).
"""
import argparse
import concurrent.futures
import contextlib
import glob
import io
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import source  # noqa: E402
from exercises import (ROOT, UsageError, all_exercises, find_exercise, out_folder,  # noqa: E402
                       validate)
from kits import write_kit  # noqa: E402
from reports import (Book, atomic_write, class_gradebook, counted, gradebook_secrets, iso,  # noqa: E402
                     parse_deadline, read_gradebook, read_roster, row_deadline,
                     update_gradebook, write_gradebook, write_grading)
from scoring import Grading, region_text, secret_bytes, secret_id, secret_missing  # noqa: E402
from similarity import THRESHOLD, alike, tokens  # noqa: E402
from similarity import write_csv as write_similarity  # noqa: E402
from submission import kits_below, several_kits, submitted_at  # noqa: E402
from toolchain import (GraderError, Toolchain, cannot_run, check_built, gpu_count,  # noqa: E402
                       gpu_groups, gpu_lock, gpu_reason, lock_keys, parse_gpus, reference_binary,
                       sanitizer, student_user, verifier_binary, visible_gpus)

EXIT_USAGE, EXIT_GRADER = 2, 3


def cmd_list(args):
    exs = all_exercises()
    # columns as wide as their longest entry, so a long chapter name does not push a row out
    wc = max([len("chapter")] + [len(ex.chapter) for ex in exs])
    we = max([len("exercise")] + [len(ex.name) for ex in exs])
    wv = max([len("version")] + [len(ex.version) for ex in exs])
    print(f"{'chapter':<{wc}}  {'exercise':<{we}}  {'version':<{wv}}  {'points':>6}  title")
    for ex in exs:
        print(f"{ex.chapter:<{wc}}  {ex.name:<{we}}  {ex.version:<{wv}}  {ex.total():>6g}  {ex.title}")
    print(f"\n{len(exs)} exercises. make starter CH=<chapter> EX=<exercise> DEST=<dir> writes a "
          f"kit; docs/instructors.md walks through an assignment.")
    return 0


def cmd_check(args):
    """make test: every exercise is well formed. Prints PASS/FAIL lines."""
    failed = 0
    exs = all_exercises()
    for ex in exs:
        problems = validate(ex)
        if problems:
            failed += 1
            print(f"FAIL exercise {ex.label}: " + "; ".join(problems))
        else:
            print(f"PASS exercise {ex.label}: rubric ({ex.total():g} points), statement, key, "
                  f"regions and kit source")
    for d in sorted(glob.glob(os.path.join(ROOT, "chapters", "[0-9][0-9]-*"))):
        ch = os.path.basename(d)
        if ch == "00-peaks":
            continue  # the ceilings: nothing to write
        n = sum(ex.chapter == ch for ex in exs)
        if n >= 2:
            print(f"PASS {ch} has {n} exercises")
        else:
            failed += 1
            print(f"FAIL {ch} has {n} exercises; every chapter after 00 needs at least two")
    return 1 if failed else 0


def cmd_starter(args):
    ex = find_exercise(args.chapter, args.exercise)
    if not args.dest:
        raise UsageError("say where the kit goes: DEST=<dir>")
    write_kit(ex, args.dest, Toolchain(args, ex))
    print(f"wrote the kit for {ex.label} ({ex.title}) to {args.dest}: "
          f"cd {args.dest} && make check")
    return 0


def grade_many(ex, students, out_root, tc, args, single, skipped=(), book=None):
    """Grades each (name, path) in students, one GPU phase at a time; returns the exit code.
    skipped: (name, why) for what the submissions folder holds that is not a submission, each a
    row of the gradebook with its reason; book: the gradebook's roster and deadline."""
    check_built()  # a missing object of common/ would be every submission's link error
    deadline = (book or book_of(args)).deadline
    if single and deadline is None:  # a regrade into a class's folder: the deadline its row names
        path = class_gradebook(out_root)
        try:
            deadline = row_deadline(read_gradebook(path)[1], students[0][0], path)
        except ValueError as e:  # an extension typed into the cell as a date alone, say
            raise UsageError(str(e)) from None
    work_root = tempfile.mkdtemp(prefix="kl-grade-")
    os.chmod(work_root, 0o711)  # an unprivileged user may pass through to its own folders
    try:
        outs = [out_root] if single else [os.path.join(out_root, name) for name, _ in students]
        gradings = [Grading(ex, name, path, out, os.path.join(work_root, name))
                    for (name, path), out in zip(students, outs)]
        for g in gradings:
            g.submitted = submitted_at(g.sub)
            if deadline:
                when = iso(g.submitted[0]) if g.submitted[0] else "unknown"
                g.notes.append(f"handed in {when} ({g.submitted[1]}); the deadline is {iso(deadline)}")
        kit, solution, types = ex.kit_source(False), ex.kit_source(True), source.type_names(ex.text())
        problem, reference, tools, ref_error = gpu_reason(), None, None, None
        if not problem and ex.gpus > 1 and gpu_count() < ex.gpus:  # its program would run nothing: no grade
            problem = f"{ex.label} needs {ex.gpus} GPUs; this machine has {gpu_count()}"
        with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
            # the reference solution compiles beside the submissions
            ref_job = pool.submit(reference_binary, ex, tc) if not problem else None
            ok = list(pool.map(lambda g: g.prepare(tc, kit, solution, types), gradings))
            if ref_job:
                try:
                    reference = ref_job.result()
                except GraderError as e:
                    problem = ref_error = str(e)
        if not any(ok):
            # nothing to run: grading is finished, GPU or not, once the reference compiles with
            # this toolchain; where it does not (a broken nvcc, a library missing), every
            # submission's failure is the grader's too, and no one gets a 0 for it
            if ref_job is None:
                try:
                    reference = reference_binary(ex, tc)
                except GraderError as e:
                    ref_error = str(e)
            problem = ref_error
            for g in gradings if ref_error else ():
                g.mark_incomplete(ref_error)
        elif not problem:
            try:
                tools = (verifier_binary(ex), reference, sanitizer())
            except GraderError as e:
                problem = str(e)
            else:
                user, note = student_user()  # an unprivileged user where the grader is root
                for g in gradings:
                    g.user = user
                    g.notes.append(note)
        groups = [(None, None)]  # nothing to run on a GPU: no lock
        if any(ok) and not problem:
            visible = visible_gpus()
            groups = gpu_groups(visible, ex.gpus, parse_gpus(getattr(args, "gpus", None)),
                                lock_keys(visible))
        problem = run_gradings(ex, gradings, ok, groups, tools, args.time_limit, problem)
        if not single:
            write_gradebook(ex, gradings, os.path.join(out_root, "gradebook.csv"), skipped, book)
            report_similarity(ex, gradings, out_root, kit, solution)
        else:  # a student regraded into a class's folder: their row of its gradebook follows
            update_gradebook(ex, gradings[0], class_gradebook(out_root), deadline)
        if problem:
            print(f"grade: {problem}", file=sys.stderr)
            return EXIT_GRADER
        return 0
    finally:
        shutil.rmtree(work_root, ignore_errors=True)


def report_similarity(ex, gradings, out_root, kit, solution):
    """similarity.csv beside the gradebook: the pairs of submissions whose regions are alike,
    and those alike to the reference solution (similarity.py); one line on the console. A
    submission that hands in the kit's regions untouched is left out: it copies nothing."""
    stub = region_text(kit, ex.name)
    bodies = {g.student: g.regions_text for g in gradings
              if g.regions_text is not None and tokens(g.regions_text) != tokens(stub)}
    rows, short = alike(bodies, region_text(solution, ex.name))
    path = os.path.join(out_root, "similarity.csv")
    write_similarity(path, rows, short)
    like_ref = sum(1 for _, other, _ in rows if other == "(reference solution)")
    print(f"wrote {path}: {counted(len(rows) - like_ref, 'pair', 'pairs')} of submissions alike "
          f"at {THRESHOLD:g} or more, {like_ref} alike to the reference solution, {len(short)} too "
          f"short to compare "
          f"(a list to read, not a verdict)")


def run_gradings(ex, gradings, ok, groups, tools, time_limit, problem):
    """The GPU phase of grade_many: each group of GPUs (toolchain.gpu_groups), under its lock,
    first asks whether its GPUs can run the exercise's version (cannot_run), then takes the next
    grading in order and runs it, so that one group grades the class in order and G groups grade
    G submissions at a time; each grading is printed as it ends. A grading whose program did not
    compile is only printed; after a problem (the reference failed, a GPU that cannot run the
    version) the gradings not yet started are marked incomplete. tools is None where nothing
    is to run on a GPU. With several groups, a group whose GPU another grading keeps busy stops
    waiting once the class is graded on the others, and an error that is not the grader's
    (a bug, Ctrl-C) stops every group after the gradings in progress. Returns the problem, or
    None."""
    state, guard = {"next": 0, "problem": problem, "abort": False}, threading.Lock()
    several = len(groups) > 1

    def left():
        with guard:
            return state["next"] < len(gradings) and not state["abort"]

    def work(group):
        lock, env = group
        held = gpu_lock(lock, give_up=(lambda: not left()) if several else None) if lock \
            else contextlib.nullcontext()
        with held:
            if lock and not held.acquired:
                return  # the class was graded on the other GPUs meanwhile
            try:
                with guard:
                    ask = tools is not None and state["problem"] is None
                if ask:
                    try:
                        why = cannot_run(tools[0], ex, env)
                    except GraderError as e:
                        why = str(e)
                    if why:
                        where = f" (GPU {','.join(env)})" if env else ""
                        with guard:
                            state["problem"] = state["problem"] or (
                                f"{ex.version} cannot run here{where}, so no submission can be "
                                f"checked: {why}")
                while True:
                    with guard:
                        i, problem = state["next"], state["problem"]
                        if i >= len(gradings) or state["abort"]:
                            return
                        state["next"] += 1
                    g = gradings[i]
                    if ok[i] and problem:
                        g.mark_incomplete(problem)
                    elif ok[i]:
                        if env:
                            g.gpus = env
                            g.notes.append(f"graded on GPU {','.join(env)} (CUDA_VISIBLE_DEVICES), "
                                           f"the reference's speed runs too")
                        t = time.monotonic()
                        try:
                            g.run_gpu(*tools, time_limit)
                        except GraderError as e:
                            with guard:
                                state["problem"] = state["problem"] or str(e)
                            g.mark_incomplete(str(e))
                        g.gpu_seconds = time.monotonic() - t
                    with guard:
                        print(write_grading(g), flush=True)
            except BaseException:
                with guard:
                    state["abort"] = True  # the other groups stop after their grading in progress
                raise

    if not several:
        work(groups[0])
    else:
        pool = concurrent.futures.ThreadPoolExecutor(len(groups))
        try:
            futures = [pool.submit(work, grp) for grp in groups]
            for f in concurrent.futures.as_completed(futures):
                f.result()  # the first error, as soon as it happens
        except BaseException:
            with guard:
                state["abort"] = True
            raise
        finally:
            pool.shutdown(wait=True)
    return state["problem"]


def cmd_grade(args):
    ex = find_exercise(args.chapter, args.exercise)
    if not args.submission or not args.out:
        raise UsageError("say what to grade and where the report goes: SUB=<file or kit> OUT=<dir>")
    if not os.path.exists(args.submission):
        raise UsageError(f"no submission at {args.submission}")
    if os.path.isdir(args.submission) and not os.path.islink(args.submission) and \
            len(kits_below(ex, args.submission)) > 1:  # no report to hold a 0 that is no grade
        raise UsageError(f"SUB={args.submission}: {several_kits(kits_below(ex, args.submission))}")
    path = os.path.abspath(args.submission).rstrip("/")
    name = os.path.basename(path)
    if os.path.isfile(path):  # alice.cu is alice; alice/transpose.cu, alice/v01-tiled.cuh too
        stem = os.path.splitext(name)[0]
        mine = stem == ex.topic or name in ex.region_files()
        name = os.path.basename(os.path.dirname(path)) if mine else stem
    book = class_gradebook(args.out)
    others = sorted(gradebook_secrets(book) - {secret_id()})
    if others:  # its row would be graded on other secret cases than the rest of the class
        raise UsageError(f"{book} was graded with another secret ({', '.join(others)} in its "
                         f"secret column; this one is {secret_id()}): regrade with the class's "
                         f"secret, or grade into a folder of its own")
    out_folder(args.out, "OUT")
    return grade_many(ex, [(name, args.submission)], args.out, Toolchain(args, ex), args, True)


def cmd_grade_all(args):
    ex = find_exercise(args.chapter, args.exercise)
    spread = parse_gpus(args.gpus)  # a bad GPUS= is refused before anything is graded
    if spread is not None and gpu_reason() is None:  # and GPUS=3 on two GPUs, or 1 for 07
        gpu_groups(visible_gpus(), ex.gpus, spread)
    if not args.submissions or not args.out:
        raise UsageError("say where the submissions are and where the reports go: "
                         "SUBS=<dir with one folder per student> OUT=<dir>")
    if not os.path.isdir(args.submissions):
        raise UsageError(f"{args.submissions} is not a folder")
    if secret_bytes() is None and not args.public_secret:
        raise UsageError(f"{secret_missing()} before grading a class: without "
                         "it the secret cases are the same for anyone who has this repository "
                         "(make's PUBLIC_SECRET=1, grade.py's --public-secret, grades without one)")
    out_folder(args.out, "OUT")
    students, skipped = [], []
    for d in sorted(os.listdir(args.submissions)):
        path = os.path.join(args.submissions, d)
        own_folder = os.path.isdir(path) and not os.path.islink(path)
        inner = kits_below(ex, path) if own_folder and not d.startswith(".") else []
        if d.startswith("."):
            skipped.append((d, "a hidden entry"))
        elif len(inner) > 1:
            # which kit is the submission is the student's to say: no row a 0 to be entered
            skipped.append((d, several_kits(inner)))
        elif os.path.isdir(path):  # a link too: its grading refuses it, named as a link
            students.append((d, path))
        elif os.path.isfile(path) and d.endswith((".cu", ".cuh")) and not d.startswith(".cu"):
            # a loose alice.cu (a kit of one file) or alice.cuh (the region file) is alice's
            students.append((os.path.splitext(d)[0], path))
        elif os.path.exists(path) and not os.path.isfile(path):
            skipped.append((d, "not a regular file (a pipe, device or socket)"))
        else:
            skipped.append((d, "not a student's folder, .cu or .cuh file"))
    book = book_of(args)  # a bad roster or deadline: one line, before anything else is said
    names = [n for n, _ in students]
    for n in sorted({n for n in names if names.count(n) > 1}):  # alice/ and alice.cu
        skipped.append((n, "both a folder and a file of that name: neither is graded; keep one"))
        students = [(m, p) for m, p in students if m != n]
    for name, why in skipped:
        print(f"grade-all: skipped {name}: {why}")
    if not students:
        raise UsageError(f"{args.submissions} holds no student folders, .cu or .cuh files")
    if book.roster is not None:
        for name, _ in students:
            if name not in book.roster:
                print(f"grade-all: {name} is not on the roster: graded, its row flagged")
        for folder, (sid, full) in book.roster.items():
            if folder not in names:
                print(f"grade-all: {full or sid} ({sid}) has no submission {folder}: a row 'missing'")
    print(f"grade-all {ex.label}: {counted(len(students), 'submission', 'submissions')}" +
          (f", {counted(len(skipped), 'entry', 'entries')} skipped" if skipped else ""))
    return grade_many(ex, students, args.out, Toolchain(args, ex), args, False, skipped, book)


def book_of(args):
    """The gradebook's roster (--roster) and deadline (--deadline), as the command line gives them."""
    roster = deadline = None
    try:
        if getattr(args, "roster", None):
            roster = read_roster(args.roster)
        if getattr(args, "deadline", None):
            deadline = parse_deadline(args.deadline)
    except OSError as e:
        raise UsageError(f"ROSTER={args.roster}: {e.strerror or e}") from None
    except ValueError as e:  # parse_deadline's say what to write; read_roster's get the columns
        raise UsageError(str(e) if str(e).startswith("DEADLINE=") else
                         f"{e} (ROSTER= is a CSV file with columns id, name, folder)") from None
    return Book(roster, deadline)


# The planted submissions make grade-sample grades beside the reference and the untouched kit
# (classroom/plants/NAME.cu), by exercise; an exercise not named here gets those two alone.
SAMPLE_PLANTS = {"01-transpose/tiled": ("edge", "nosync"),
                 "06-tensor-cores/grouped": ("rowsorder", "colsorder", "fixedband")}


def sample_path(slug, ex):
    """Where make grade-sample keeps its output: plots/results/<gpu>/grading.txt for the default
    exercise (01-transpose/tiled, which docs/instructors.md quotes), grading-<chapter>-<exercise>.txt
    for another (06-tensor-cores/grouped's answers quote the orders' speeds from theirs)."""
    name = ("grading.txt" if ex.label == "01-transpose/tiled"
            else f"grading-{ex.chapter}-{ex.name}.txt")
    return os.path.join(ROOT, "plots", "results", slug, name)


def cmd_sample(args):
    """make grade-sample [CH= EX=]: grades a small class on this GPU (the reference solution, the
    untouched kit, and the exercise's planted submissions) and keeps the output under
    plots/results/<gpu>/ (sample_path), the sample and the timings the docs quote."""
    import plants  # the planted bugs (classroom/plants) and how a body goes into a kit
    ex = find_exercise(args.chapter or "01-transpose", args.exercise or "tiled")
    reason = gpu_reason()
    if reason:  # build/gpuinfo's own words, which begin "no usable GPU"
        raise GraderError(reason)
    slug = subprocess.run([os.path.join(ROOT, "build", "gpuinfo"), "slug"], capture_output=True,
                          text=True).stdout.strip()
    with tempfile.TemporaryDirectory(prefix="kl-sample-") as tmp:
        subs = os.path.join(tmp, "submissions")
        plants.write_sub(os.path.join(subs, "reference"), ex, ex.kit_source(True))
        plants.write_sub(os.path.join(subs, "starter"), ex, ex.kit_source(False))
        for name in SAMPLE_PLANTS.get(ex.label, ()):
            label, body = plants.plant(name)
            if label == ex.label:
                plants.write_sub(os.path.join(subs, name), ex,
                                 plants.with_bodies(ex.kit_source(True), ex.name, {0: body}))
        buf = io.StringIO()
        t0 = time.monotonic()
        saved, sys.stdout = sys.stdout, buf
        try:
            rc = grade_many(ex, [(d, os.path.join(subs, d)) for d in sorted(os.listdir(subs))],
                            os.path.join(tmp, "out"), Toolchain(args, ex), args, False)
        finally:
            sys.stdout = saved
        text = buf.getvalue().replace(tmp + "/", "")
        text += (f"\n{len(os.listdir(subs))} submissions graded in {time.monotonic() - t0:.1f} s "
                 f"(the compile of all of them, in parallel, included)\n")
    path = sample_path(slug, ex)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    atomic_write(path, f"# make grade-sample: {ex.label} on this GPU ({slug})\n" + text)
    print(text)
    print(f"wrote {os.path.relpath(path, ROOT)}")
    return rc


def main(argv):
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `make exercises | head` ends quietly
    p = argparse.ArgumentParser(prog="grade.py", description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    sub.add_parser("list")
    sub.add_parser("check")
    for name in ("starter", "grade", "grade-all", "sample"):
        s = sub.add_parser(name)
        s.add_argument("chapter", nargs="?")
        s.add_argument("exercise", nargs="?")
        if name == "starter":
            s.add_argument("dest", nargs="?")
        elif name == "grade":
            s.add_argument("submission", nargs="?")
            s.add_argument("out", nargs="?")
        elif name == "grade-all":
            s.add_argument("submissions", nargs="?")
            s.add_argument("out", nargs="?")
        s.add_argument("--jobs", type=int, default=os.cpu_count() or 2,
                       help="submissions compiled at once")
        s.add_argument("--public-secret", action="store_true",
                       help="grade a class without GRADE_SECRET (the secret cases are then public)")
        if name in ("grade", "grade-all"):
            s.add_argument("--deadline", help="an ISO time: the gradebook gets a late column")
        if name == "grade-all":
            s.add_argument("--roster", help="a CSV file (id, name, folder) that keys the gradebook")
            s.add_argument("--gpus", help="grade on several GPUs at once: all, or how many "
                           "(the first N that CUDA_VISIBLE_DEVICES shows); a submission a GPU")
        s.add_argument("--time-limit", type=float, default=None,
                       help="cap every run's time limit (seconds)")
        s.add_argument("--nvcc")
        s.add_argument("--gencode", help="nvcc's architecture flags")
        s.add_argument("--cflags", help="the chapter's extra nvcc flags")
        s.add_argument("--libs", help="the chapter's libraries")
        s.add_argument("--sm90a", help="non-empty: the chapter's Hopper versions need sm_90a "
                       "(its chapter.mk's _SM90A; the kit's Makefile builds for it)")
    args = p.parse_args(argv)
    try:
        return {"list": cmd_list, "check": cmd_check, "starter": cmd_starter, "grade": cmd_grade,
                "grade-all": cmd_grade_all, "sample": cmd_sample}[args.command](args)
    except UsageError as e:
        print(f"grade: {e}", file=sys.stderr)
        return EXIT_USAGE
    except source.SourceError as e:
        print(f"grade: the chapter source: {e}", file=sys.stderr)
        return EXIT_USAGE
    except GraderError as e:
        print(f"grade: {e}", file=sys.stderr)
        return EXIT_GRADER
    except OSError as e:  # a path of the command line's that the system refuses (OUT=, ROSTER=)
        print(f"grade: {f'{e.filename}: ' if e.filename else ''}{e.strerror or e}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
