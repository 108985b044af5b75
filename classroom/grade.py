#!/usr/bin/env python3
"""grade.py: the exercises, their starter kits, and the grader. The Makefile's targets call it:

  make exercises                                   list every exercise
  make starter   CH=01-transpose EX=tiled DEST=dir write a student's kit
  make grade     CH=... EX=... SUB=file-or-kit OUT=dir            grade one submission
  make grade-all CH=... EX=... SUBS=dir-of-students OUT=dir       grade a class, write a gradebook

An exercise is a folder chapters/NN-topic/exercises/NAME/ with rubric.toml (points and cases),
README.md (the statement, copied into the kit) and answers.md (the key, never copied). Its code
is the body of one or more functions of the chapter's source, between "// EXERCISE: NAME begin"
and "// EXERCISE: NAME end" (source.py reads them).

How a submission is graded (docs/instructors.md says why each step is there):
  1. Only the bodies of its exercise regions are taken; they are put into the kit's own source,
     so changes anywhere else count for nothing (and are named in the report). A region may
     hold device code, or in a launcher only the names the reference uses: see source.py.
  2. It is compiled (a case); an error ends the grading with 0 points.
  3. Correctness: each case runs the program with --dump, in its own folder, with a scrubbed
     environment and a time limit; then the chapter's own program, built from the repository
     and never running the submission's code, checks the dumped output (--verify). What the
     submission prints or returns is never read for a verdict.
  4. compute-sanitizer's tools at a small size; a tool's case needs a clean report and a
     verified output.
  5. Speed: the reference solution and the submission, each against the chapter's baseline in
     its own run, one after the other on the same GPU; the ratio of the two picks a tier. Both
     run with --check-each: every timed launch starts from a poisoned output and is checked,
     and the inputs must be unchanged after it.
Exit codes: 0 grading finished (whatever the score), 2 bad usage, 3 the grader could not run
(no GPU, no compute-sanitizer): the compile step is graded first and written as incomplete.
"""
import argparse
import concurrent.futures
import contextlib
import csv
import fcntl
import fnmatch
import glob
import hashlib
import hmac
import io
import json
import os
import re
import resource
import shlex
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from xml.etree import ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import source  # noqa: E402

try:
    import tomllib
except ImportError:  # Python < 3.11
    try:
        import tomli as tomllib
    except ImportError:
        tomllib = None

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
EXIT_USAGE, EXIT_GRADER = 2, 3
OUTPUT_CAP = 6000      # characters of a program's output kept in a case's report
PARALLEL_CASES = 4     # correctness and sanitizer runs at once (speed runs alone)
SECTIONS = ("Goal", "The idea", "What to write", "Hints", "How it is graded", "Questions")


class UsageError(Exception):
    pass


class GraderError(Exception):
    """The grader itself cannot run (no GPU, no compute-sanitizer)."""


# ---- exercises -----------------------------------------------------------------------------------

def chapter_line(chapter, name):
    """The first line of the chapter's file `name` that is not a comment or blank, or None."""
    path = os.path.join(ROOT, "chapters", chapter, name)
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return next((l.strip() for l in f if l.strip() and not l.startswith("#")), None)


class Exercise:
    def __init__(self, chapter, name):
        self.chapter, self.name = chapter, name
        self.dir = os.path.join(ROOT, "chapters", chapter, "exercises", name)
        # the program: the topic ('01-transpose': transpose), or the first in the chapter's
        # `programs` file ('07-multi-gpu': allreduce); the fewest GPUs it runs on: `gpus`, or 1
        self.topic = chapter_line(chapter, "programs") or chapter[3:]
        self.gpus = int(chapter_line(chapter, "gpus") or 1)
        self.source_path = os.path.join(ROOT, "chapters", chapter, self.topic + ".cu")
        if tomllib is None:
            raise UsageError("the grader needs Python 3.11 or later (tomllib), or the tomli package")
        path = os.path.join(self.dir, "rubric.toml")
        try:
            with open(path, "rb") as f:
                self.rubric = tomllib.load(f)
            self.title = self.rubric["title"]
            self.version = self.rubric["version"]
        except (tomllib.TOMLDecodeError, KeyError) as e:
            raise UsageError(f"{os.path.relpath(path, ROOT)}: not a rubric ({e})") from None

    @property
    def label(self):
        return f"{self.chapter}/{self.name}"

    def text(self):
        """The chapter's source as one text: its program with its version files in place."""
        return source.flatten(self.source_path)

    def total(self):
        return sum(self.rubric[k]["points"] for k in ("compile", "correct", "sanitize", "speed"))

    def note(self):
        return (f"Starter kit: chapter {self.chapter}, exercise \"{self.name}\" ({self.version}): "
                f"{self.title}.\nWrite the function bodies between the EXERCISE markers (README.md "
                f"says what they must do).\nOnly those bodies are graded; everything else is put "
                f"back as the kit has it.")

    def kit_source(self, solution=False):
        return source.kit_text(self.text(), self.name, self.version, solution, self.note(),
                               program=self.topic, also_drop=self.other_parts())

    def other_parts(self):
        """The versions of this chapter's other exercises that sit in another version table
        (04's counters and histogram): a kit leaves them out with what follows them."""
        rows = source.version_rows(self.text().split("\n"))
        table = {r.tag: r.table for r in rows}
        out = []
        for path in glob.glob(os.path.join(ROOT, "chapters", self.chapter, "exercises", "*",
                                           "rubric.toml")):
            name = os.path.basename(os.path.dirname(path))
            if name == self.name:
                continue
            other = Exercise(self.chapter, name)
            if table.get(other.version) and table.get(other.version) != table.get(self.version):
                out.append(other.version)
        return sorted(out)


def all_exercises():
    out = []
    for rubric in sorted(glob.glob(os.path.join(ROOT, "chapters", "*", "exercises", "*",
                                                "rubric.toml"))):
        parts = rubric.split(os.sep)
        out.append(Exercise(parts[-4], parts[-2]))
    # within a chapter, in the order of the ladder
    def order(ex):
        lines = ex.text().split("\n")
        rs = source.regions(lines, ex.name)
        return (ex.chapter, rs[0].begin if rs else 0)
    return sorted(out, key=order)


def find_exercise(chapter, name):
    if not chapter or not name:
        raise UsageError("name the exercise: CH=NN-topic EX=name (make exercises lists them)")
    chapter = os.path.basename(chapter.rstrip("/"))
    path = os.path.join(ROOT, "chapters", chapter, "exercises", name, "rubric.toml")
    if not re.fullmatch(r"[0-9][0-9]-[a-z0-9-]+", chapter) or not re.fullmatch(r"[a-z0-9-]+", name) \
            or not os.path.exists(path):
        raise UsageError(f"no exercise {chapter}/{name} (make exercises lists them)")
    return Exercise(chapter, name)


def rules_broken(ex, graded):
    """What the graded source's regions break of the rubric's [rules], or None. Names are
    shell patterns ("atomic*"); `allow` lists names a forbid pattern would catch but may be
    used. An untouched stub is not held to the rules: it is graded, and fails, as written."""
    rules = ex.rubric.get("rules", {})
    if "kl_exercise_todo" in source.region_names(graded, ex.name):
        return None
    names = source.region_names(graded, ex.name)
    why = rules.get("why", "")
    bad = sorted(n for n in names - set(rules.get("allow", []))
                 if any(fnmatch.fnmatchcase(n, pat) for pat in rules.get("forbid", [])))
    if bad:
        return f"{', '.join(bad)} may not be used here: {why}"
    need = rules.get("require_any", [])
    if need and not any(fnmatch.fnmatchcase(n, pat) for n in names for pat in need):
        return f"the code must use {' or '.join(need)}: {why}"
    return None


def validate(ex):
    """What is wrong with an exercise as its author wrote it, as a list of sentences."""
    problems = []
    r = ex.rubric
    for key in ("compile", "correct", "sanitize", "speed"):
        if key not in r or not isinstance(r[key].get("points"), (int, float)):
            problems.append(f"rubric: [{key}] needs points")
    if problems:
        return problems
    if ex.total() != r.get("total", 100):
        problems.append(f"rubric: the points add up to {ex.total()}, not {r.get('total', 100)}")
    if not r["correct"].get("cases"):
        problems.append("rubric: [correct] needs cases")
    tiers = r["speed"].get("tiers", [])
    if not tiers or any(len(t) != 2 for t in tiers):
        problems.append("rubric: [speed] tiers are [ratio, points] pairs")
    elif [t[0] for t in tiers] != sorted((t[0] for t in tiers), reverse=True) or \
            tiers[0][1] != r["speed"]["points"] or any(t[1] > r["speed"]["points"] for t in tiers):
        problems.append("rubric: [speed] tiers go from the highest ratio down, the first one "
                        "worth all the speed points")
    unknown = set(r["sanitize"].get("tools", [])) - {"memcheck", "racecheck", "synccheck",
                                                      "initcheck"}
    if unknown or not r["sanitize"].get("tools"):
        problems.append(f"rubric: [sanitize] tools must be compute-sanitizer tools ({unknown})")
    for dim in r["correct"].get("secret_sizes", {}):
        if f"-{dim}" not in " ".join(r["correct"]["cases"]):
            problems.append(f"rubric: secret size -{dim} is not a size the cases use")
    try:
        lines = ex.text().split("\n")
        if not source.regions(lines, ex.name):
            problems.append(f"source: no region 'EXERCISE: {ex.name}'")
        if ex.version not in [row.tag for row in source.version_rows(lines)]:
            problems.append(f"rubric: version {ex.version} is not in the chapter's table")
        kit, solution = ex.kit_source(False), ex.kit_source(True)
        # the reference solution must pass the rules a submission's regions are held to
        source.splice(kit, solution, solution, ex.name, source.type_names(ex.text()))
        if rules_broken(ex, solution):
            problems.append(f"the reference solution breaks the rubric's rules: "
                            f"{rules_broken(ex, solution)}")
    except source.SourceError as e:
        problems.append(f"source: {e}")
    except source.RegionError as e:
        problems.append(f"the reference solution breaks a region rule: {e}")
    for name in ("README.md", "answers.md"):
        if not os.path.exists(os.path.join(ex.dir, name)):
            problems.append(f"{name} is missing")
    if os.path.exists(os.path.join(ex.dir, "README.md")):
        with open(os.path.join(ex.dir, "README.md")) as f:
            heads = re.findall(r"^## (.+)$", f.read(), re.M)
        for s in SECTIONS:
            if s not in heads:
                problems.append(f"README.md: no section '## {s}'")
        with open(os.path.join(ex.dir, "README.md")) as f:
            if "<!-- rubric -->" not in f.read():
                problems.append("README.md: no '<!-- rubric -->' block for the grading table")
    return problems


# ---- the toolchain -------------------------------------------------------------------------------

class Toolchain:
    """How submissions and kits are built. The Makefile passes its own settings; called
    directly, the grader reads the chapter's flags and libraries from its chapter.mk."""
    def __init__(self, args, ex=None):
        self.nvcc = args.nvcc or shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
        self.gencode = shlex.split(args.gencode) if args.gencode else (
            ["-arch=native"] if gpu_reason() is None else
            ["-gencode", "arch=compute_80,code=sm_80", "-gencode", "arch=compute_90,code=sm_90"])
        mk = chapter_mk(ex) if ex else {}
        self.cflags = shlex.split(args.cflags if args.cflags is not None else mk.get("FLAGS", ""))
        self.libs = shlex.split(args.libs if args.libs is not None else mk.get("LIBS", ""))
        self.objs = sorted(glob.glob(os.path.join(ROOT, "build", "common", "*.o")))

    def command(self, src, binary):
        # the chapters' flags, less -Werror: a warning is reported, not failed
        return ([self.nvcc, "-O3", "-lineinfo", "-std=c++17", *self.gencode,
                 "-Xcompiler", "-Wall,-Wextra", "-Xptxas", "-warn-spills",
                 "-I" + os.path.join(ROOT, "common"), *self.cflags, "-o", binary, src]
                + self.objs + self.libs + ["-lpthread"])


def chapter_mk(ex):
    """{'FLAGS': ..., 'LIBS': ...} from the chapter's chapter.mk (`matmul_LIBS := -lcublas`)."""
    path = os.path.join(ROOT, "chapters", ex.chapter, "chapter.mk")
    out = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                m = re.match(rf"^{re.escape(ex.topic)}_(FLAGS|LIBS)\s*:?=\s*(.*)$", line.strip())
                if m:
                    out[m.group(1)] = m.group(2).strip()
    return out


_gpu = {}


def gpu_count():
    """How many GPUs CUDA shows (build/gpuinfo count); call it only where gpu_reason() is None."""
    if "count" not in _gpu:
        p = subprocess.run([os.path.join(ROOT, "build", "gpuinfo"), "count"], capture_output=True,
                           text=True)
        _gpu["count"] = int(p.stdout.strip() or 0)
    return _gpu["count"]


def gpu_reason():
    """None when a usable GPU is visible, else why not (build/gpuinfo says)."""
    if "reason" not in _gpu:
        info = os.path.join(ROOT, "build", "gpuinfo")
        if not os.path.exists(info):
            _gpu["reason"] = "build/gpuinfo is not built (run make first)"
        else:
            p = subprocess.run([info], capture_output=True, text=True)
            _gpu["reason"] = None if p.returncode == 0 else \
                (p.stderr.strip().split("\n")[0] or f"build/gpuinfo exited {p.returncode}")
    return _gpu["reason"]


# ---- running programs ----------------------------------------------------------------------------

def child_env(home):
    """The environment a submission runs (and compiles) in: what CUDA needs, nothing else. The
    secret and everything else the grader was given stay out."""
    keep = ("PATH", "LD_LIBRARY_PATH", "CUDA_VISIBLE_DEVICES", "CUDA_HOME", "LANG")
    env = {k: os.environ[k] for k in keep if k in os.environ}
    tmp = os.path.join(home, "tmp")
    os.makedirs(tmp, exist_ok=True)
    env.update(HOME=home, TMPDIR=tmp)
    return env


def _limits():
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))             # no core files
    resource.setrlimit(resource.RLIMIT_FSIZE, (4 << 30, 4 << 30))  # no file beyond 4 GiB


class Run:
    def __init__(self, rc, output, seconds, timed_out):
        self.rc, self.output, self.seconds, self.timed_out = rc, output, seconds, timed_out


def run(cmd, cwd, timeout, env=None):
    """Runs cmd in its own session with a time limit; a hang is killed with everything it
    started. The output is kept up to OUTPUT_CAP characters (its head and its tail)."""
    os.makedirs(cwd, exist_ok=True)
    log = os.path.join(cwd, f"output-{os.getpid()}-{time.monotonic_ns()}.log")
    t0 = time.monotonic()
    with open(log, "wb") as out:
        p = subprocess.Popen(cmd, cwd=cwd, stdout=out, stderr=subprocess.STDOUT,
                             stdin=subprocess.DEVNULL, env=env if env is not None else child_env(cwd),
                             start_new_session=True, preexec_fn=_limits)
        try:
            rc, timed_out = p.wait(timeout=timeout), False
        except subprocess.TimeoutExpired:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            rc, timed_out = p.wait(), True
    seconds = time.monotonic() - t0
    with open(log, "rb") as f:
        data = f.read()
    os.remove(log)
    text = data.decode("utf-8", "replace")
    if len(text) > OUTPUT_CAP:
        text = text[:OUTPUT_CAP // 3] + "\n[... output cut ...]\n" + text[-2 * OUTPUT_CAP // 3:]
    return Run(rc, text, seconds, timed_out)


# ---- cases ----------------------------------------------------------------------------------------

class Case:
    def __init__(self, kind, name, points, args="", tool=None):
        self.kind, self.name, self.max_score = kind, name, float(points)
        self.args, self.visibility, self.tool = args, "visible", tool
        self.score, self.passed, self.output, self.seconds = 0.0, False, "not run", 0.0
        self.secret, self.skipped = False, False  # skipped: not run because the grader could not
        self.private = ""  # for the instructor's report only: what a secret case's output showed

    def result(self, passed, output, score=None):
        self.passed = passed
        self.score = self.max_score if (passed and score is None) else (score or 0.0)
        self.output = output.strip()


def secret_bytes():
    """The instructor's secret: GRADE_SECRET, or the file GRADE_SECRET_FILE names, or
    ~/.config/kernel-ladder/grade-secret. None when there is none."""
    if os.environ.get("GRADE_SECRET"):
        return os.environ["GRADE_SECRET"].encode()
    path = os.environ.get("GRADE_SECRET_FILE") or os.path.expanduser(
        "~/.config/kernel-ladder/grade-secret")
    if os.path.exists(path):
        with open(path, "rb") as f:
            return f.read().strip() or None
    return None


def derive(secret, ex, label):
    """A number drawn from the secret for this exercise: the same for every student."""
    mac = hmac.new(secret, f"{ex.label}/{label}".encode(), hashlib.sha256).digest()
    return int.from_bytes(mac[:8], "little")


def plan(ex, secret):
    """The cases, in report order, and the seed every run uses."""
    r = ex.rubric
    key = secret if secret is not None else b"no secret: public"
    seed = derive(key, ex, "seed") % (1 << 32)
    cases = [Case("compile", "compile", r["compile"]["points"])]
    args = list(r["correct"]["cases"])
    visible = len(args)
    sizes = r["correct"].get("secret_sizes", {})
    for i in range(r["correct"].get("secret", 0)):
        drawn = []
        for dim, (lo, hi) in sorted(sizes.items()):
            drawn.append(f"-{dim} {lo + derive(key, ex, f'case{i}/{dim}') % (hi - lo + 1)}")
        extra = r["correct"].get("secret_args", "")
        args.append(" ".join(drawn + ([extra] if extra else [])))
    each = r["correct"]["points"] / len(args)
    for i, a in enumerate(args):
        secret_case = i >= visible
        # a secret case's sizes go into the instructor's report.txt, not into its name or the
        # output students see
        name = f"correct {a}" if not secret_case else f"correct secret {i - visible + 1}"
        c = Case("correct", name, each, a)
        c.secret = secret_case
        cases.append(c)
    tools = r["sanitize"]["tools"]
    for tool in tools:
        cases.append(Case("sanitize", f"sanitize {tool} {r['sanitize']['args']}",
                          r["sanitize"]["points"] / len(tools), r["sanitize"]["args"], tool=tool))
    cases.append(Case("speed", f"speed {r['speed']['args']}", r["speed"]["points"],
                      r["speed"]["args"]))
    return cases, seed


# ---- one submission --------------------------------------------------------------------------------

class Grading:
    """Everything about one submission: its source, its build, its cases and its report."""
    def __init__(self, ex, student, sub, out_dir, work):
        self.ex, self.student, self.sub, self.out_dir, self.work = ex, student, sub, out_dir, work
        self.cases, self.seed = plan(ex, secret_bytes())
        self.notes, self.binary, self.incomplete = [], None, None
        self.t0 = time.monotonic()
        self.gpu_seconds = 0.0  # time on the GPU, waiting for it left out
        os.makedirs(out_dir, exist_ok=True)
        os.makedirs(work, exist_ok=True)

    def case(self, kind):
        return [c for c in self.cases if c.kind == kind]

    def mark_incomplete(self, why):
        """The grader could not finish: the cases it did not run are skipped, not failed."""
        self.incomplete = why
        for c in self.cases:
            if c.kind != "compile" and c.output.startswith("not run"):
                c.result(False, "not run: the grader could not finish (INCOMPLETE)")
                c.skipped = True

    def not_run(self, kinds, why):
        for c in self.cases:
            if c.kind in kinds:
                c.result(False, f"not run: {why}")

    # -- source and build
    def read_submission(self):
        """The submission's source text, and notes on what in it is ignored."""
        path = self.sub
        links = [path.rstrip(os.sep) or path]  # what must not be a symbolic link
        if os.path.isdir(path):
            # the kit itself, or the kit one folder down (an unpacked archive)
            inner = [d for d in glob.glob(os.path.join(path, "*", self.ex.topic + ".cu"))]
            if not os.path.exists(os.path.join(path, self.ex.topic + ".cu")) and len(inner) == 1:
                path = os.path.dirname(inner[0])
                links.append(path)
            cu = os.path.join(path, self.ex.topic + ".cu")
            if not os.path.exists(cu):
                found = glob.glob(os.path.join(path, "*.cu"))
                if len(found) != 1:
                    raise source.RegionError(f"no {self.ex.topic}.cu in the submission folder")
                cu = found[0]
            self.notes.extend(ignored_files(self.ex, path, cu))
            self.notes.extend(stale_kit(self.ex, path))
            path = cu
        links.append(path)
        linked = [p for p in links if os.path.islink(p)]
        if linked:
            raise source.RegionError(f"{linked[0]} is a symbolic link; a submission must be its "
                                     f"own files")
        data = read_regular(path, 4 << 20) if os.path.isfile(path) else None
        if data is None:
            raise source.RegionError(f"no submission at {self.sub}")
        return data.decode("utf-8", "replace")

    def prepare(self, tc, kit, solution, types):
        """Splice and compile. Returns True when there is a program to run."""
        compile_case = self.case("compile")[0]
        try:
            graded, notes = source.splice(kit, solution, self.read_submission(), self.ex.name, types)
        except source.RegionError as e:
            compile_case.result(False, f"the submission's regions cannot be graded: {e}")
            self.not_run(("correct", "sanitize", "speed"), "the submission was not graded")
            return False
        broken = rules_broken(self.ex, graded)
        if broken:
            compile_case.result(False, f"the submission's regions cannot be graded: {broken}")
            self.not_run(("correct", "sanitize", "speed"), "the submission was not graded")
            return False
        self.notes.extend(notes)
        src = os.path.join(self.work, self.ex.topic + ".cu")
        with open(src, "w") as f:
            f.write(graded)
        shutil.copy(src, os.path.join(self.out_dir, "graded.cu"))
        binary = os.path.join(self.work, self.ex.topic)
        r = run(tc.command(src, binary), os.path.join(self.work, "compile"),
                self.ex.rubric["compile"].get("time_limit", 300))
        compile_case.seconds = r.seconds
        log = r.output.replace(self.work + "/", "")
        with open(os.path.join(self.out_dir, "compile.log"), "w") as f:
            f.write(log)
        if r.rc == 0 and not r.timed_out:
            warn = "\n".join(l for l in log.split("\n") if "warning" in l.lower())
            compile_case.result(True, "compiled" + (f"; warnings:\n{warn}" if warn else ""))
            self.binary = binary
            return True
        why = "timed out" if r.timed_out else f"exit {r.rc}"
        compile_case.result(False, f"does not compile ({why}):\n{log}")
        self.not_run(("correct", "sanitize", "speed"), "the submission does not compile")
        return False

    # -- runs on the GPU
    def verify(self, verifier, args, dump, timeout):
        """The repository's own program checks what the submission dumped."""
        cmd = [verifier, *shlex.split(args), "-v", self.ex.version, "--seed", str(self.seed),
               "--verify", dump]
        return run(cmd, os.path.join(os.path.dirname(dump), "verify"), timeout)

    def run_correct(self, c, verifier, timeout):
        d = os.path.join(self.work, re.sub(r"\W+", "-", c.name).strip("-"))
        dump = os.path.join(d, "dump")
        r = run([self.binary, *shlex.split(c.args), "-v", self.ex.version, "--seed",
                 str(self.seed), "--check-only", "--dump", dump], d, timeout)
        c.seconds = r.seconds
        if r.timed_out:
            return c.result(False, f"timed out after {timeout:g} s (stopped; grading goes on)")
        v = self.verify(verifier, c.args, dump, timeout)
        c.seconds += v.seconds
        if v.rc == 0 and not v.timed_out:
            return c.result(True, "right (the chapter's own program checked the output)")
        verdict = [l.strip() for l in v.output.split("\n")
                   if l.startswith("FAIL verify") or "mismatch" in l]
        first = verdict[0] if verdict else f"the check exited {v.rc}"
        out = (f"wrong: {first}\nthe chapter's own program checked the output:\n  "
               + "\n  ".join(verdict or v.output.split("\n")[-8:]))
        if c.secret:
            # the mismatch lines hold values (a sum, a size) that would let a student answer this
            # case without computing it next time: they go to the instructor's report only
            c.private = out
            return c.result(False, "wrong: the chapter's own program found the output wrong at "
                                   "this secret size (the details are in the instructor's report)")
        mine = [l for l in r.output.split("\n") if l.strip()][-12:]
        out += f"\nthe submission's own output (it exited {r.rc}), last lines:\n" + "\n".join(mine)
        c.result(False, out)

    def run_sanitize(self, c, verifier, cs, timeout):
        d = os.path.join(self.work, f"sanitize-{c.tool}")
        dump = os.path.join(d, "dump")
        r = run([cs, "--tool", c.tool, "--error-exitcode", "99", self.binary, *shlex.split(c.args),
                 "-v", self.ex.version, "--seed", str(self.seed), "--check-only", "--warmup", "0",
                 "--dump", dump], d, timeout)
        c.seconds = r.seconds
        if r.timed_out:
            return c.result(False, f"timed out after {timeout:g} s under {c.tool}")
        findings = [l for l in r.output.split("\n") if re.search(
            r"Invalid|Race|Hazard|Uninitialized|Barrier|ERROR SUMMARY|RACECHECK SUMMARY|error", l)]
        if r.rc == 99:  # --error-exitcode: the tool found something
            return c.result(False, f"{c.tool} reports errors:\n" + "\n".join(findings[:12]))
        if r.rc != 0:
            why = {1: "a wrong result", 3: "a CUDA error"}.get(r.rc, f"exit {r.rc}")
            tail = [l for l in r.output.split("\n") if l.strip()][-8:]
            return c.result(False, f"the program failed under {c.tool} ({why}), so the run proves "
                                   f"nothing:\n" + "\n".join(tail))
        v = self.verify(verifier, c.args, dump, timeout)
        if v.rc != 0:
            return c.result(False, f"{c.tool} is clean, but the output is wrong, so the run "
                                   f"proves nothing:\n" + v.output[-600:])
        c.result(True, f"{c.tool}: clean; output verified")

    def run_speed(self, c, verifier, reference, timeout):
        d = os.path.join(self.work, "speed")
        args = shlex.split(c.args)
        # --check-each: every timed launch starts from a poisoned output and is checked, so no
        # launch can skip its work; the reference is timed the same way, so the ratio is fair
        common = ["-v", self.ex.version, "--seed", str(self.seed), "--check-each"]
        ref = run([reference, *args, *common, "--csv", os.path.join(d, "reference.csv")],
                  os.path.join(d, "reference"), timeout)
        dump = os.path.join(d, "dump")
        sub = run([self.binary, *args, *common, "--csv", os.path.join(d, "submission.csv"),
                   "--dump", dump], os.path.join(d, "submission"), timeout)
        c.seconds = ref.seconds + sub.seconds
        if ref.rc != 0 or ref.timed_out:
            raise GraderError(f"the reference solution failed its speed run (exit {ref.rc}):\n"
                              + ref.output[-800:])
        if sub.timed_out:
            return c.result(False, f"timed out after {timeout:g} s")
        v = self.verify(verifier, c.args, dump, timeout)
        if v.rc != 0:
            return c.result(False, "the output of the timed run is wrong, so its time does not "
                                   "count:\n" + v.output[-600:])
        if not os.path.exists(os.path.join(dump, self.ex.version + ".timed.out")):
            return c.result(False, "no output of a timed run was written:\n" + sub.output[-600:])
        r_row = csv_row(os.path.join(d, "reference.csv"), self.ex.version)
        s_row = csv_row(os.path.join(d, "submission.csv"), self.ex.version)
        if not r_row or not r_row.get("ms_median"):
            raise GraderError("the reference solution's speed run measured no time")
        if not s_row or not s_row.get("ms_median"):
            return c.result(False, "no time was measured:\n" + sub.output[-600:])
        base = baseline_name(os.path.join(d, "submission.csv"))
        lines = []
        for who, row in (("submission", s_row), ("reference ", r_row)):
            pct = f", {float(row['pct_of_baseline']):.1f}% of {base}" if row["pct_of_baseline"] else ""
            lines.append(f"  {who} {float(row['ms_median']):.4f} ms median{pct}")
        if r_row["pct_of_baseline"] and s_row["pct_of_baseline"]:
            # each against the baseline of its own run: a GPU that changes between the two
            # runs changes both alike
            ratio = float(s_row["pct_of_baseline"]) / float(r_row["pct_of_baseline"])
            how = f"each against {base} in its own run, one run after the other"
        else:
            ratio = float(r_row["ms_median"]) / float(s_row["ms_median"])
            how = "median times of two runs, one after the other (this part has no baseline)"
        points = next((p for t, p in self.ex.rubric["speed"]["tiers"] if ratio >= t), 0)
        tiers = ", ".join(f"{t:g}: {p:g}" for t, p in self.ex.rubric["speed"]["tiers"])
        c.result(points > 0, f"{ratio:.2f} of the reference solution's speed (tiers {tiers})\n"
                 + "\n".join(lines) + f"\n  {how}", float(points))

    def run_gpu(self, verifier, reference, cs, time_limit):
        """Every case that needs the GPU; correctness and sanitizers four at a time."""
        limit = lambda key: min(time_limit or 1e9, self.ex.rubric[key].get("time_limit", 60))
        jobs = [(self.run_correct, c, verifier, limit("correct")) for c in self.case("correct")]
        with concurrent.futures.ThreadPoolExecutor(PARALLEL_CASES) as pool:
            for f in [pool.submit(fn, *a) for fn, *a in jobs]:
                f.result()
            if not any(c.passed for c in self.case("correct")):
                self.not_run(("sanitize", "speed"), "no correctness case passed")
                return
            san = [pool.submit(self.run_sanitize, c, verifier, cs, limit("sanitize"))
                   for c in self.case("sanitize")]
            for f in san:
                f.result()
        self.run_speed(self.case("speed")[0], verifier, reference, limit("speed"))

    # -- the report
    def total(self):
        return sum(c.score for c in self.cases), sum(c.max_score for c in self.cases)

    def summary(self):
        score, most = self.total()
        lines = [f"grade {self.ex.label} ({self.ex.title}): {self.student}",
                 f"  seed {self.seed}" + ("" if secret_bytes() else
                                          " (no GRADE_SECRET: the secret cases are public)")]
        if self.incomplete:
            lines.append(f"  INCOMPLETE: {self.incomplete}")
        width = max(len(c.name) for c in self.cases)
        for c in self.cases:
            first = c.output.split("\n")[0]
            lines.append(f"  {c.name:<{width}}  {c.score:5.1f} / {c.max_score:<4.3g} {first}")
        for n in self.notes:
            lines.append(f"  note: {n}")
        # an incomplete grading has no total: no partial score may be taken for a grade
        total = "no total: the grading did not finish" if self.incomplete else \
            f"{score:5.1f} / {most:<4.3g}"
        lines.append(f"  {'total':<{width}}  {total} "
                     f"(compile {self.case('compile')[0].seconds:.1f} s, GPU {self.gpu_seconds:.1f} s)")
        return "\n".join(lines)

    def write(self):
        """results.json (Gradescope's format), junit.xml and report.txt. A grading the grader
        could not finish writes incomplete.json instead of results.json, without a total, so
        that no course tool takes its partial score for a grade."""
        score, most = self.total()
        summary = self.summary()
        seconds = time.monotonic() - self.t0
        results = {
            "score": round(score, 2),
            "execution_time": round(seconds, 1),
            "output": summary + "\n",
            "visibility": "visible",
            "stdout_visibility": "hidden",
            "tests": [{"name": c.name, "score": round(c.score, 2), "max_score": round(c.max_score, 2),
                       "status": "passed" if c.passed else "failed", "output": c.output,
                       "visibility": c.visibility} for c in self.cases],
        }
        for stale in ("results.json", "incomplete.json"):
            if os.path.exists(os.path.join(self.out_dir, stale)):
                os.remove(os.path.join(self.out_dir, stale))
        if self.incomplete:
            del results["score"]
            results["incomplete"] = self.incomplete
            atomic_write(os.path.join(self.out_dir, "incomplete.json"),
                         json.dumps(results, indent=2) + "\n")
        else:
            atomic_write(os.path.join(self.out_dir, "results.json"),
                         json.dumps(results, indent=2) + "\n")
        atomic_write(os.path.join(self.out_dir, "junit.xml"), junit(self, seconds))
        atomic_write(os.path.join(self.out_dir, "report.txt"), summary + "\n\n" + details(self))
        return summary


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


def csv_row(path, tag):
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return next((r for r in csv.DictReader(f) if r["version"] == tag), None)


def baseline_name(path):
    with open(path) as f:
        rows = list(csv.DictReader(f))
    return next((r["version"] for r in rows if r.get("pct_of_baseline") and
                 abs(float(r["pct_of_baseline"]) - 100.0) < 1e-9), "the baseline")


class gpu_lock:
    """One grading at a time on the GPU, across processes: compiles overlap, timed runs never
    share the GPU with another grading's runs."""
    def __enter__(self):
        os.makedirs(os.path.join(ROOT, "build", "grader"), exist_ok=True)
        self.f = open(os.path.join(ROOT, "build", "grader", "gpu.lock"), "w")
        try:
            fcntl.flock(self.f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            print("grade: waiting for the GPU: another grading is using it", file=sys.stderr)
            fcntl.flock(self.f, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc):
        fcntl.flock(self.f, fcntl.LOCK_UN)
        self.f.close()


def read_regular(path, limit):
    """Up to `limit` bytes of the file at `path`, or None when it is not a regular file of its
    own: a symbolic link (to another student's file, the reference, /dev/zero) or a device,
    pipe or folder is never read."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        return f.read(limit)


def stale_kit(ex, folder):
    """A note when the kit the student worked in was made from another version of the chapter."""
    data = read_regular(os.path.join(folder, ".exercise"), 1 << 16)
    try:
        made = json.loads(data.decode()).get("source_sha256") if data else None
    except (ValueError, AttributeError):
        return []
    now = hashlib.sha256(ex.kit_source(False).encode()).hexdigest()
    if made and made != now:
        return ["the kit was made from another version of the chapter than the one graded now: "
                "the regions are graded in today's kit (a fresh kit would show the differences)"]
    return []


def ignored_files(ex, folder, cu):
    """Files of a kit folder that differ from the kit's own: the grader uses none of them."""
    notes = []
    kit_common = os.path.join(ROOT, "common")
    changed = []
    for path in sorted(glob.glob(os.path.join(folder, "common", "*"))):
        mine = os.path.join(kit_common, os.path.basename(path))
        size = os.path.getsize(mine) if os.path.isfile(mine) else -1
        theirs = read_regular(path, size + 1) if size >= 0 else None
        if theirs is None or theirs != read_regular(mine, size + 1):
            changed.append(os.path.relpath(path, folder))
    if changed:
        notes.append("files of the kit that differ from the kit's own are not used: "
                     + ", ".join(changed))
    return notes


# ---- the grader's own programs ------------------------------------------------------------------

def reference_binary(ex, tc):
    """The reference solution (the kit with the chapter's own regions), built once and kept
    under build/grader/ until its source or flags change."""
    text = ex.kit_source(True)
    cmd = tc.command("SRC", "BIN")
    key = hashlib.sha256((text + "\0" + " ".join(cmd)).encode()).hexdigest()[:16]
    d = os.path.join(ROOT, "build", "grader", f"{ex.chapter}-{ex.name}-{key}")
    binary = os.path.join(d, ex.topic)
    if not os.path.exists(binary):
        os.makedirs(d, exist_ok=True)
        src = os.path.join(d, ex.topic + ".cu")
        with open(src, "w") as f:
            f.write(text)
        r = run(tc.command(src, binary + ".tmp"), d, 600, env=dict(os.environ))
        if r.rc != 0:
            raise GraderError(f"the reference solution of {ex.label} does not compile:\n{r.output}")
        os.replace(binary + ".tmp", binary)
    return binary


def verifier_binary(ex):
    path = os.path.join(ROOT, "build", ex.topic)
    if not os.path.exists(path):
        raise GraderError(f"build/{ex.topic} is not built (make builds it)")
    return path


def sanitizer():
    cs = shutil.which("compute-sanitizer") or os.path.join(
        os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "compute-sanitizer")
    if not os.path.exists(cs):
        raise GraderError("compute-sanitizer not found (it comes with the CUDA toolkit)")
    return cs


# ---- commands ------------------------------------------------------------------------------------

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


def write_kit(ex, dest, tc):
    if os.path.exists(dest) and os.listdir(dest):
        raise UsageError(f"{dest} exists and is not empty: a kit is written into a new folder")
    os.makedirs(os.path.join(dest, "common"), exist_ok=True)
    text = ex.kit_source(False)
    with open(os.path.join(dest, ex.topic + ".cu"), "w") as f:
        f.write(text)
    for path in sorted(glob.glob(os.path.join(ROOT, "common", "*"))):
        if os.path.basename(path) != "gpuinfo.cu":
            shutil.copy(path, os.path.join(dest, "common"))
    r = ex.rubric
    with open(os.path.join(dest, "check.args"), "w") as f:
        f.write(f"# The sizes `make check` runs {ex.version} at: the grader's visible cases.\n")
        f.write("\n".join(r["correct"]["cases"]) + "\n")
    with open(os.path.join(dest, "sanitize.args"), "w") as f:
        f.write(f"# The size `make sanitize` runs {ex.version} at under compute-sanitizer.\n")
        f.write(r["sanitize"]["args"] + "\n")
    with open(os.path.join(os.path.dirname(__file__), "kit.mk")) as f:
        mk = f.read()
    mk = (mk.replace("@CHAPTER@", ex.chapter).replace("@EXERCISE@", ex.name)
          .replace("@TOPIC@", ex.topic).replace("@VERSION@", ex.version)
          .replace("@CFLAGS@", " ".join(tc.cflags)).replace("@LIBS@", " ".join(tc.libs))
          .replace("@TOOLS@", " ".join(r["sanitize"]["tools"])))
    with open(os.path.join(dest, "Makefile"), "w") as f:
        f.write(mk)
    with open(os.path.join(ex.dir, "README.md")) as f:
        statement = f.read().rstrip() + "\n"
    # the grading table as the rubric says now, whatever the committed copy holds
    statement = re.sub(r"(<!-- rubric -->\n).*?(<!-- /rubric -->)",
                       lambda m: m.group(1) + rubric_text(ex) + m.group(2), statement, flags=re.S)
    with open(os.path.join(dest, "README.md"), "w") as f:
        f.write(statement + "\n" + kit_text_help(ex))
    with open(os.path.join(dest, "ANSWERS.md"), "w") as f:
        f.write(answers_template(ex, statement))
    with open(os.path.join(dest, ".gitignore"), "w") as f:
        f.write("/build/\n")
    with open(os.path.join(dest, ".exercise"), "w") as f:
        json.dump({"chapter": ex.chapter, "exercise": ex.name, "version": ex.version,
                   "source_sha256": hashlib.sha256(text.encode()).hexdigest()}, f, indent=2)
        f.write("\n")


def answers_template(ex, statement):
    """ANSWERS.md for the kit: the statement's questions, each with room for the answer."""
    questions = statement.split("## Questions", 1)[1] if "## Questions" in statement else ""
    items = re.split(r"\n(?=\d+\. )", questions.strip())
    out = [f"# Answers: exercise {ex.name} ({ex.chapter})", "",
           "Answer each question from your own runs: give the command, the lines of its output "
           "you use, and your explanation. This file is read by your instructor; the grader does "
           "not score it.", ""]
    for item in items:
        if re.match(r"\d+\. ", item):
            out += [item.strip(), "", "**Answer:**", "", ""]
    return "\n".join(out).rstrip() + "\n"


def rubric_text(ex):
    """The kit README's "How it is graded", written from the rubric so it cannot drift."""
    r = ex.rubric
    c = r["correct"]
    n = len(c["cases"]) + c.get("secret", 0)
    tiers = "; ".join(f"at least {t:g} of its speed: {p:g}" for t, p in r["speed"]["tiers"])
    return f"""`make grade` (the instructor's) takes only the bodies between the `EXERCISE: {ex.name}` markers
from your `{ex.topic}.cu`, puts them into a fresh copy of this kit's source, and ignores any
other change. Out of {ex.total():g} points:

| what | points | how |
|---|---|---|
| compiles | {r['compile']['points']:g} | no compiler error (warnings are shown, not counted) |
| correct | {c['points']:g} | {n} cases, {c['points'] / n:.3g} each: the sizes in `check.args`, and {c.get('secret', 0)} sizes drawn from the instructor's secret; your output is written to a file and checked by the chapter's own program against the CPU reference |
| sanitizer | {r['sanitize']['points']:g} | compute-sanitizer's {', '.join(r['sanitize']['tools'])} at `{r['sanitize']['args']}`, {r['sanitize']['points'] / len(r['sanitize']['tools']):.3g} each: a clean report and a correct output |
| speed | {r['speed']['points']:g} | at `{r['speed']['args']}`, your {ex.version} against the reference solution, each timed in its own run (as a share of the chapter's baseline where it has one): {tiers} |

Each run has a time limit: a hang costs its case. The sanitizer and speed cases need at least
one correct case first.{rules_line(ex)}{gpus_line(ex)}
"""


def gpus_line(ex):
    if ex.gpus < 2:
        return ""
    return (f" It is graded on a machine with {ex.gpus} or more GPUs; on fewer, grading stops "
            f"after the compile, and no score is given.")


def rules_line(ex):
    r = ex.rubric.get("rules", {})
    parts = []
    if r.get("require_any"):
        parts.append("must use " + " or ".join(f"`{n}`" for n in r["require_any"]))
    if r.get("forbid"):
        parts.append("may not use " + ", ".join(f"`{n}`" for n in r["forbid"]))
    if not parts:
        return ""
    return (f" Your code {' and '.join(parts)} ({r.get('why', '')}); a submission that does not "
            f"keep to this is not graded.")


def kit_text_help(ex):
    return f"""## Working in this kit

    make              # build build/{ex.topic}
    make check        # your {ex.version} at every size in check.args, checked against the CPU reference
    make sanitize     # compute-sanitizer at the size in sanitize.args
    make run          # every version in the kit at the default size, timed
    build/{ex.topic} --help

Until you write it, {ex.version} prints `exercise {ex.name}: not written yet` and fails its check.
Hand in `{ex.topic}.cu` (or the whole folder) and your answers to the questions in `ANSWERS.md`.
"""


def cmd_starter(args):
    ex = find_exercise(args.chapter, args.exercise)
    if not args.dest:
        raise UsageError("say where the kit goes: DEST=<dir>")
    write_kit(ex, args.dest, Toolchain(args, ex))
    print(f"wrote the kit for {ex.label} ({ex.title}) to {args.dest}: "
          f"cd {args.dest} && make check")
    return 0


def grade_many(ex, students, out_root, tc, args, single, skipped=()):
    """Grades each (name, path) in students, one GPU phase at a time; returns the exit code.
    skipped: (name, why) for what the submissions folder holds that is not a submission, each a
    row of the gradebook with its reason."""
    work_root = tempfile.mkdtemp(prefix="kl-grade-")
    try:
        outs = [out_root] if single else [os.path.join(out_root, name) for name, _ in students]
        gradings = [Grading(ex, name, path, out, os.path.join(work_root, name))
                    for (name, path), out in zip(students, outs)]
        kit, solution, types = ex.kit_source(False), ex.kit_source(True), source.type_names(ex.text())
        problem, reference = gpu_reason(), None
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
                    problem = str(e)
        if not any(ok):
            problem = None  # nothing to run: grading is finished, GPU or not
        elif not problem:
            try:
                tools = (verifier_binary(ex), reference, sanitizer())
            except GraderError as e:
                problem = str(e)
        with gpu_lock() if any(ok) and not problem else contextlib.nullcontext():
            for g, compiled in zip(gradings, ok):
                if compiled and problem:
                    g.mark_incomplete(problem)
                elif compiled:
                    t = time.monotonic()
                    try:
                        g.run_gpu(*tools, args.time_limit)
                    except GraderError as e:
                        problem = str(e)
                        g.mark_incomplete(problem)
                    g.gpu_seconds = time.monotonic() - t
                print(g.write())
        if not single:
            write_gradebook(ex, gradings, os.path.join(out_root, "gradebook.csv"), skipped)
        else:  # a student regraded into a class's folder: their row of its gradebook follows
            update_gradebook(ex, gradings[0], os.path.join(os.path.dirname(
                os.path.abspath(out_root)), "gradebook.csv"))
        if problem:
            print(f"grade: {problem}", file=sys.stderr)
            return EXIT_GRADER
        return 0
    finally:
        shutil.rmtree(work_root, ignore_errors=True)


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


def cmd_grade(args):
    ex = find_exercise(args.chapter, args.exercise)
    if not args.submission or not args.out:
        raise UsageError("say what to grade and where the report goes: SUB=<file or kit> OUT=<dir>")
    if not os.path.exists(args.submission):
        raise UsageError(f"no submission at {args.submission}")
    path = os.path.abspath(args.submission).rstrip("/")
    name = os.path.basename(path)
    if os.path.isfile(path):  # alice.cu is alice; submissions/alice/transpose.cu is alice too
        stem = os.path.splitext(name)[0]
        name = os.path.basename(os.path.dirname(path)) if stem == ex.topic else stem
    return grade_many(ex, [(name, args.submission)], args.out, Toolchain(args, ex), args, True)


def cmd_grade_all(args):
    ex = find_exercise(args.chapter, args.exercise)
    if not args.submissions or not args.out:
        raise UsageError("say where the submissions are and where the reports go: "
                         "SUBS=<dir with one folder per student> OUT=<dir>")
    if not os.path.isdir(args.submissions):
        raise UsageError(f"{args.submissions} is not a folder")
    if secret_bytes() is None and not args.public_secret:
        raise UsageError("set GRADE_SECRET (or GRADE_SECRET_FILE) before grading a class: without "
                         "it the secret cases are the same for anyone who has this repository "
                         "(make's PUBLIC_SECRET=1, grade.py's --public-secret, grades without one)")
    students, skipped = [], []
    for d in sorted(os.listdir(args.submissions)):
        path = os.path.join(args.submissions, d)
        if d.startswith("."):
            skipped.append((d, "a hidden entry"))
        elif os.path.isdir(path):  # a link too: its grading refuses it, named as a link
            students.append((d, path))
        elif os.path.isfile(path) and d.endswith(".cu") and len(d) > 3:
            students.append((d[:-3], path))  # a loose alice.cu is alice's submission
        else:
            skipped.append((d, "not a student's folder or a .cu file"))
    names = [n for n, _ in students]
    for n in sorted({n for n in names if names.count(n) > 1}):  # alice/ and alice.cu
        skipped.append((n, "both a folder and a .cu file: neither is graded; keep one"))
        students = [(m, p) for m, p in students if m != n]
    for name, why in skipped:
        print(f"grade-all: skipped {name}: {why}")
    if not students:
        raise UsageError(f"{args.submissions} holds no student folders or .cu files")
    print(f"grade-all {ex.label}: {len(students)} submissions" +
          (f", {len(skipped)} entries skipped" if skipped else ""))
    return grade_many(ex, students, args.out, Toolchain(args, ex), args, False, skipped)


def cmd_sample(args):
    """make grade-sample: grades a small class on this GPU (the reference solution, the
    untouched kit, and planted bugs) and keeps the output as plots/results/<gpu>/grading.txt,
    the sample and the timings docs/instructors.md quotes."""
    # the plants and the way they are put into a kit, from the grader's tests
    sys.path.insert(0, os.path.join(ROOT, "tests", "classroom"))
    import test_grader
    ex = find_exercise(args.chapter or "01-transpose", args.exercise or "tiled")
    reason = gpu_reason()
    if reason:  # build/gpuinfo's own words, which begin "no usable GPU"
        raise GraderError(reason)
    slug = subprocess.run([os.path.join(ROOT, "build", "gpuinfo"), "slug"], capture_output=True,
                          text=True).stdout.strip()
    with tempfile.TemporaryDirectory(prefix="kl-sample-") as tmp:
        subs = os.path.join(tmp, "submissions")
        test_grader.write_sub(os.path.join(subs, "reference"), ex, ex.kit_source(True))
        test_grader.write_sub(os.path.join(subs, "starter"), ex, ex.kit_source(False))
        for name in ("edge", "nosync"):
            label, body = test_grader.plant(name)
            if label == ex.label:
                test_grader.write_sub(os.path.join(subs, name), ex,
                                      test_grader.with_bodies(ex.kit_source(True), ex.name, {0: body}))
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
    path = os.path.join(ROOT, "plots", "results", slug, "grading.txt")
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
        s.add_argument("--time-limit", type=float, default=None,
                       help="cap every run's time limit (seconds)")
        s.add_argument("--nvcc")
        s.add_argument("--gencode", help="nvcc's architecture flags")
        s.add_argument("--cflags", help="the chapter's extra nvcc flags")
        s.add_argument("--libs", help="the chapter's libraries")
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


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
