"""scoring.py: grading one submission: its cases (plan: the rubric's cases, the sizes and seed
drawn from the instructor's secret) and a Grading, which splices the submission into the kit,
compiles it, runs each case and scores it, the speed by the rubric's tiers. A class is graded
by grade.py's grade_many: every submission compiled at once, then each one's GPU cases in turn.

How a submission is graded (docs/instructors.md says why each step is there):
  1. Only the bodies of its exercise regions are taken (from the file(s) that hold them, in the
     kit folder or alone: submission.py); they are put into the kit's own source, so changes
     anywhere else count for nothing (and are named in the report, file by file). A region may
     hold device code, or in a launcher only the names the reference uses: see source.py.
  2. It is compiled (a case); an error ends the grading with 0 points.
  3. Correctness: each case runs the program with --dump, in its own folder, with a scrubbed
     environment and a time limit; then the chapter's own program, built from the repository
     and never running the submission's code, checks the dumped output (--verify). What the
     submission prints or returns is never read for a verdict.
  4. compute-sanitizer's tools at a small size; a tool's case needs a clean report and a
     verified output.
  5. Speed (speed.py), once every correctness case has passed (a rubric's [speed] needs = "any":
     once one has): rounds of the reference solution's run then the submission's, on the
     same GPU, each against the chapter's baseline in its own run; each round gives a ratio,
     and rounds go on until the median ratio is known to 1% or a cap; the median picks a
     tier. Every run is --check-each: every timed launch starts from a poisoned output and is
     checked, and the inputs must be unchanged after it; every round's output is verified.
"""
import concurrent.futures
import csv
import hashlib
import hmac
import os
import re
import shlex
import shutil
import time

import source
import speed
from exercises import UsageError, rules_broken
from sandbox import run
from submission import read_submission
from toolchain import GraderError, first_error

PARALLEL_CASES = 4     # correctness and sanitizer runs at once (speed runs alone)


class Case:
    def __init__(self, kind, name, points, args="", tool=None):
        self.kind, self.name, self.max_score = kind, name, float(points)
        self.args, self.visibility, self.tool = args, "visible", tool
        self.score, self.passed, self.output, self.seconds = 0.0, False, "not run", 0.0
        self.secret, self.skipped = False, False  # skipped: not run because the grader could not
        self.private = ""  # for the instructor's report only: what a secret case's output showed
        self.estimate, self.leaderboard = None, []  # the speed case's (speed.Estimate)

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


def secret_missing():
    """Why secret_bytes() found none, as the start of an error message: the file GRADE_SECRET_FILE
    names may be missing or empty, which an instructor would not guess from "set GRADE_SECRET"."""
    path = os.environ.get("GRADE_SECRET_FILE")
    if path and not os.path.exists(path):
        return f"GRADE_SECRET_FILE names {path}, which does not exist (write your secret there)"
    if path:
        return f"GRADE_SECRET_FILE names {path}, which is empty"
    return "set GRADE_SECRET (or GRADE_SECRET_FILE)"


def secret_id(secret=None):
    """What the gradebook's secret column shows of the secret that graded a row: 12 hex digits of
    an HMAC (the secret cannot be had from them), or "public" with none. Rows graded with other
    secrets had other secret cases, so a regrade must use the class's secret."""
    secret = secret_bytes() if secret is None else secret
    if not secret:
        return "public"
    return hmac.new(secret, b"kernel-ladder gradebook", hashlib.sha256).hexdigest()[:12]


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


def region_text(text, exercise):
    """The bodies of `exercise`'s regions in a source, one after another (what similarity.py
    compares)."""
    lines = text.split("\n")
    return "\n".join("\n".join(r.body(lines)) for r in source.regions(lines, exercise))


class Grading:
    """Everything about one submission: its source, its build and its cases (reports.py writes
    what they come to)."""
    def __init__(self, ex, student, sub, out_dir, work):
        self.ex, self.student, self.sub, self.out_dir, self.work = ex, student, sub, out_dir, work
        self.cases, self.seed = plan(ex, secret_bytes())
        self.secret_id = secret_id()  # the gradebook's secret column (reports.py)
        self.notes, self.binary, self.incomplete = [], None, None
        self.user = None  # who its program runs as: grade_many sets it (toolchain.student_user)
        self.gpus = None  # the GPUs its programs see (grade_many, with --gpus); None: the grader's
        self.regions_text = None  # the bodies of its regions as graded (None: none could be read)
        self.baseline = "the baseline"  # the row the speed runs measure against
        self.submitted = (None, "not asked")  # (when it was handed in, how that is known)
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

    # -- the source and its build
    def prepare(self, tc, kit, solution, types):
        """Splice and compile. Returns True when there is a program to run."""
        compile_case = self.case("compile")[0]
        try:
            pieces = read_submission(self.ex, self.sub, self.notes)
            graded = source.splice(kit, solution, pieces, self.ex.name, types)
            self.regions_text = region_text(graded, self.ex.name)  # for similarity.py
        except source.RegionError as e:
            compile_case.result(False, f"the submission's regions cannot be graded: {e}")
            self.not_run(("correct", "sanitize", "speed"), "the submission was not graded")
            return False
        broken = rules_broken(self.ex, graded)
        if broken:
            compile_case.result(False, f"the submission's regions cannot be graded: {broken}")
            self.not_run(("correct", "sanitize", "speed"), "the submission was not graded")
            return False
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
        first = first_error(log)  # on the case's first line, which the console's summary shows
        compile_case.result(False, f"does not compile ({why})" + (f": {first[:200]}" if first else "")
                            + f"\n{log}")
        self.not_run(("correct", "sanitize", "speed"), "the submission does not compile")
        return False

    # -- runs on the GPU
    def verify(self, verifier, args, dump, timeout):
        """The repository's own program checks what the submission dumped."""
        cmd = [verifier, *shlex.split(args), "-v", self.ex.version, "--seed", str(self.seed),
               "--verify", dump]
        return run(cmd, os.path.join(os.path.dirname(dump), "verify"), timeout, gpus=self.gpus)

    def run_correct(self, c, verifier, timeout):
        d = os.path.join(self.work, re.sub(r"\W+", "-", c.name).strip("-"))
        dump = os.path.join(d, "dump")
        r = run([self.binary, *shlex.split(c.args), "-v", self.ex.version, "--seed",
                 str(self.seed), "--check-only", "--dump", dump], d, timeout, user=self.user, gpus=self.gpus)
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
        # on several GPUs NCCL starts with CUDA calls that fail on purpose (peer access already
        # enabled, a kernel image for another GPU looked up), which the tool would count as
        # errors; the program checks its own calls, so there the tool reports the GPU's side
        # only, and in the program's kernels: NCCL's (the baseline's) run unchecked
        api = ["--report-api-errors", "no", "--kernel-name-exclude", "kns=nccl"] \
            if self.ex.gpus > 1 else []
        r = run([cs, "--tool", c.tool, "--error-exitcode", "99", *api, self.binary, *shlex.split(c.args),
                 "-v", self.ex.version, "--seed", str(self.seed), "--check-only", "--warmup", "0",
                 "--dump", dump], d, timeout, user=self.user, gpus=self.gpus)
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
        """The speed protocol (speed.py): rounds of the reference's run then the submission's,
        each a fresh run of the program's timing, until the median of the rounds' ratios is
        known to 1% or a cap; the median picks the tier."""
        d = os.path.join(self.work, "speed")
        args = shlex.split(c.args)
        # --check-each: every timed launch starts from a poisoned output and is checked, so no
        # launch can skip its work; the reference is timed the same way, so the ratio is fair
        common = ["-v", self.ex.version, "--seed", str(self.seed), "--check-each"]
        spec = self.ex.rubric["speed"]
        rounds = []  # (reference's row, submission's row) of each round

        def one_round():
            n = len(rounds) + 1
            ref_csv = os.path.join(d, f"reference-{n}.csv")
            ref = run([reference, *args, *common, "--csv", ref_csv], os.path.join(d, "reference"),
                      timeout, gpus=self.gpus)
            # the submission writes only in its own folder (it may run as another user, who owns it)
            mine = os.path.join(d, "submission")
            dump, sub_csv = os.path.join(mine, f"dump-{n}"), os.path.join(mine, f"submission-{n}.csv")
            sub = run([self.binary, *args, *common, "--csv", sub_csv, "--dump", dump], mine,
                      timeout, user=self.user, gpus=self.gpus)
            where = f"\n(round {n} of the speed protocol)" if n > 1 else ""
            if ref.rc != 0 or ref.timed_out:
                raise GraderError(f"the reference solution failed its speed run (exit {ref.rc}):\n"
                                  + ref.output[-800:])
            if sub.timed_out:
                raise SpeedFailure(f"timed out after {timeout:g} s{where}")
            v = self.verify(verifier, c.args, dump, timeout)
            if v.rc != 0:
                raise SpeedFailure("the output of the timed run is wrong, so its time does not "
                                   f"count:{where}\n" + v.output[-600:])
            if not os.path.exists(os.path.join(dump, self.ex.version + ".timed.out")):
                raise SpeedFailure(f"no output of a timed run was written:{where}\n"
                                   + sub.output[-600:])
            shutil.rmtree(dump, ignore_errors=True)  # checked: 30 rounds of outputs would fill the disk
            r_row, s_row = csv_row(ref_csv, self.ex.version), csv_row(sub_csv, self.ex.version)
            if not r_row or not r_row.get("ms_median"):
                raise GraderError("the reference solution's speed run measured no time")
            if not s_row or not s_row.get("ms_median"):
                raise SpeedFailure(f"no time was measured:{where}\n" + sub.output[-600:])
            if n == 1:
                self.baseline = baseline_name(sub_csv)
            rounds.append((r_row, s_row))
            return round_ratio(r_row, s_row)

        max_rounds, max_seconds, capped = speed.caps(spec)
        if capped:  # on the console and in every report, not only in the speed case's output
            self.notes.append(f"speed: {capped}: at most {max_rounds} rounds, {max_seconds:g} s")
        t0 = time.monotonic()
        try:
            e = speed.measure(one_round, max_rounds, max_seconds)
        except SpeedFailure as err:
            return c.result(False, str(err))
        finally:
            c.seconds = time.monotonic() - t0
        base = self.baseline
        lines = []
        rate = rate_column(self.ex, [s for _, s in rounds])
        for who, rows in (("submission", [s for _, s in rounds]), ("reference ", [r for r, _ in rounds])):
            ms = speed.median([float(r["ms_median"]) for r in rows])
            pcts = [float(r["pct_of_baseline"]) for r in rows if r["pct_of_baseline"]]
            pct = f", {speed.median(pcts):.1f}% of {base}" if len(pcts) == len(rows) else ""
            rates = [float(r[rate]) for r in rows if rate and r.get(rate)]
            per_s = f", {speed.median(rates):.1f} {RATE_UNITS[rate]}" if rates else ""
            lines.append(f"  {who} {ms:.4f} ms{pct}{per_s} (medians over the rounds)")
        if all(r["pct_of_baseline"] and s["pct_of_baseline"] for r, s in rounds):
            how = f"each round: the reference's run, then the submission's, each against {base} in its own run"
        else:
            how = "each round: the reference's run, then the submission's, by their median times (no baseline)"
        ratio = e.median
        points = speed.tier_points(ratio, spec["tiers"])
        tiers = ", ".join(f"{t:g}: {p:g}" for t, p in spec["tiers"])
        c.result(points > 0, f"{speed.shown(ratio, spec['tiers'])} of the reference solution's speed "
                 f"(tiers {tiers})\n"
                 f"  {e.describe()}\n" + "\n".join(lines) + f"\n  {how}"
                 + (f"\n  {capped}" if capped else ""), float(points))
        c.estimate = e
        c.leaderboard = [{"name": f"ratio to the reference ({self.ex.version})",
                          "value": round(ratio, 4)}]
        s_rates = [float(s[rate]) for _, s in rounds if rate and s.get(rate)]
        if s_rates:
            c.leaderboard.insert(0, {"name": RATE_UNITS[rate], "value": round(speed.median(s_rates), 2)})

    def run_gpu(self, verifier, reference, cs, time_limit):
        """Every case that needs the GPU; correctness and sanitizers four at a time."""
        needs = self.ex.rubric["speed"].get("needs", "all")
        if needs not in ("all", "any"):  # make test's check refuses it; a rubric edited since
            raise UsageError(f'{self.ex.label}: the rubric\'s [speed] needs is "{needs}"; '
                             'it must be "all" or "any"')
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
        why = self.speed_withheld()
        if why:
            self.not_run(("speed",), why)
            return
        self.run_speed(self.case("speed")[0], verifier, reference, limit("speed"))

    def speed_withheld(self):
        """Why the speed case does not run, or None. By default ([speed] needs = "all") speed
        counts only for a submission right at every size: a kernel that skips its edge checks
        is faster, and would otherwise be paid for it at the speed case's size (a multiple of
        the tile). needs = "any" runs it after one correct case, as the sanitizers are."""
        correct = self.case("correct")
        wrong = [c for c in correct if not c.passed]
        if not wrong or self.ex.rubric["speed"].get("needs", "all") == "any":
            return None
        return (f"{len(wrong)} of {len(correct)} correctness cases failed, and speed counts only "
                f"for a submission right at every size")

    # -- the score (reports.py writes it out)
    def total(self):
        return sum(c.score for c in self.cases), sum(c.max_score for c in self.cases)


class SpeedFailure(Exception):
    """A round of the speed protocol ends it: the submission's time does not count (why)."""


RATE_UNITS = {"gflops": "GFLOP/s", "gbps": "GB/s"}


def round_ratio(r_row, s_row):
    """One round's ratio of the submission's speed to the reference's: each against the baseline
    of its own run where the chapter has one (a GPU that changes between the two runs changes
    both alike), else by their median times."""
    if r_row["pct_of_baseline"] and s_row["pct_of_baseline"]:
        return float(s_row["pct_of_baseline"]) / float(r_row["pct_of_baseline"])
    return float(r_row["ms_median"]) / float(s_row["ms_median"])


def rate_column(ex, rows):
    """The rate the chapter is judged by (its headline file's rate=, as plots/ reads it), else
    GFLOP/s where the rows count operations, else GB/s; None where they count neither."""
    path = os.path.join(os.path.dirname(ex.source_path), "headline")
    if os.path.isfile(path):
        with open(path) as f:
            words = dict(w.split("=", 1) for w in f.read().split() if "=" in w)
        if words.get("rate") in RATE_UNITS and any(r.get(words["rate"]) for r in rows):
            return words["rate"]
    return next((k for k in ("gflops", "gbps") if any(r.get(k) for r in rows)), None)


def csv_row(path, tag):
    """The row of version `tag` in a program's --csv file, or None."""
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return next((r for r in csv.DictReader(f) if r["version"] == tag), None)


def baseline_name(path):
    """The tag of the row a --csv file measures the others against (100% of the baseline)."""
    with open(path) as f:
        rows = list(csv.DictReader(f))
    return next((r["version"] for r in rows if r.get("pct_of_baseline") and
                 abs(float(r["pct_of_baseline"]) - 100.0) < 1e-9), "the baseline")
