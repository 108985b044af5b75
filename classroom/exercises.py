"""exercises.py: finding the exercises, reading their rubrics and checking them.

An exercise is a folder chapters/NN-topic/exercises/NAME/ with rubric.toml (points and cases),
README.md (the statement, copied into the kit) and answers.md (the key, never copied). Its code
is the body of one or more functions of the chapter's source, between "// EXERCISE: NAME begin"
and "// EXERCISE: NAME end" (source.py reads them). validate() says what is wrong with an
exercise as its author wrote it (`grade.py check`, run by make test); rules_broken() holds the
regions of a graded source to the rubric's [rules].
"""
import fnmatch
import glob
import os
import re

import source

try:
    import tomllib
except ImportError:  # Python < 3.11
    try:
        import tomli as tomllib
    except ImportError:
        tomllib = None

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
SECTIONS = ("Goal", "The idea", "What to write", "Hints", "How it is graded", "Questions")


class UsageError(Exception):
    """The grader was asked for what is not there (a mistake in the command: exit 2)."""


def out_folder(path, var, empty=False):
    """Makes the folder `path` that the command line's `var` (OUT, DEST) names, or says in one
    line why it cannot: it is a file, or the system refuses (UsageError). empty: it must have
    nothing in it yet (a kit is written into a new folder)."""
    if os.path.lexists(path) and not os.path.isdir(path):
        raise UsageError(f"{var}={path} is a file, not a folder: name a folder (it is made "
                         f"where it does not exist)")
    if empty and os.path.isdir(path) and os.listdir(path):
        raise UsageError(f"{var}={path} exists and is not empty: a kit is written into a new folder")
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as e:
        raise UsageError(f"{var}={path}: {e.strerror or e}") from None


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

    def kit_lines(self, solution=False):
        """The kit's source, (line, file) pairs: source.kit_lines."""
        pairs = source.program_lines(self.source_path)
        return source.kit_lines("\n".join(l for l, _ in pairs), self.name, self.version, solution,
                                self.note(), program=self.topic, also_drop=self.other_parts(),
                                origins=[f for _, f in pairs])

    def kit_files(self, solution=False):
        """The kit's source files, [(name, text)]: the program, then the files it includes."""
        return source.kit_files(self.kit_lines(solution), self.topic + ".cu")

    def region_files(self):
        """The files that hold this exercise's regions, in order: what a student hands in."""
        pairs = source.program_lines(self.source_path)
        names = [pairs[r.begin][1] or self.topic + ".cu"
                 for r in source.regions([l for l, _ in pairs], self.name)]
        return sorted(set(names), key=names.index)

    def total(self):
        return sum(self.rubric[k]["points"] for k in ("compile", "correct", "sanitize", "speed"))

    def note(self):
        return (f"Starter kit: chapter {self.chapter}, exercise \"{self.name}\" ({self.version}): "
                f"{self.title}.\nWrite the function bodies between the EXERCISE markers (README.md "
                f"says what they must do).\nOnly those bodies are graded; everything else is put "
                f"back as the kit has it.")

    def kit_source(self, solution=False):
        """The kit's source as one text (what the grader splices into and compiles)."""
        return "\n".join(line for line, _ in self.kit_lines(solution))

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


# The shortcuts of the known reward hacks in kernel benchmarks that can reach a region, by kind:
# no exercise's regions may name these unless its reference solution's regions do (06's mma
# exercise writes inline PTX on BF16 data, so it may) or its rubric's [rules] allow them. The
# kind is what the report names. (An #include is refused before this: a region's only directive
# is '#pragma unroll'. Timing tricks, such as work left running or done once, are the speed
# run's to catch: it checks every timed launch.)
SHORTCUTS = [
    ("a library shortcut: the exercise is to write it, not to call a library",
     ["cub", "thrust", "cuda", "cooperative_groups", "nvcuda", "wmma", "cutlass", "cute",
      "cublas*", "cublasLt*", "curand*", "cufft*", "cusparse*", "cusolver*", "cudnn*", "nccl*"]),
    ("arithmetic in a lower precision than the exercise's (half, BF16, TF32 or FP8 types and "
     "conversions reach the tensor cores or drop bits the check may not see)",
     ["half", "half2", "__half*", "__nv_bfloat16*", "__nv_fp8*", "__float2half*",
      "__float2bfloat16*", "__float_to_tf32", "__nv_cvt*", "__hmul*", "__hadd*", "__hfma*"]),
    ("inline PTX, which can reach instructions the exercise does not teach (tensor cores in TF32, "
     "cache-bypassing loads)", ["asm", "__asm", "__asm__"]),
]


def shortcut_used(ex, names):
    """(kind, names) of the first SHORTCUTS kind that the region names use beyond what the
    reference's regions and the rubric allow, or None."""
    allowed = set(ex.rubric.get("rules", {}).get("allow", []))
    allowed |= source.region_names(ex.kit_source(True), ex.name)
    for kind, patterns in SHORTCUTS:
        used = sorted(n for n in names - allowed if any(fnmatch.fnmatchcase(n, p) for p in patterns))
        if used:
            return kind, used
    return None


def rules_broken(ex, graded):
    """What the graded source's regions break, or None: first the shortcuts no exercise may
    take (SHORTCUTS), then the rubric's [rules]. Names are shell patterns ("atomic*"); `allow`
    lists names a forbid pattern would catch but may be used. An untouched stub is not held to
    the rules: it is graded, and fails, as written."""
    rules = ex.rubric.get("rules", {})
    if "kl_exercise_todo" in source.region_names(graded, ex.name):
        return None
    names = source.region_names(graded, ex.name)
    shortcut = shortcut_used(ex, names)
    if shortcut:
        kind, used = shortcut
        return f"{', '.join(used)} may not be used here: {kind}"
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
    for key, least in (("max_rounds", 1), ("max_seconds", 1)):
        v = r["speed"].get(key)
        if v is not None and (not isinstance(v, (int, float)) or v < least):
            problems.append(f"rubric: [speed] {key} must be a number, at least {least}")
    if r["speed"].get("needs", "all") not in ("all", "any"):
        problems.append('rubric: [speed] needs is "all" (every correctness case must pass, the '
                        'default) or "any" (one must)')
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
        source.splice(kit, solution, [(ex.topic + ".cu", solution)], ex.name,
                      source.type_names(ex.text()))
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
