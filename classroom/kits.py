"""kits.py: a student's starter kit (make starter), laid out as the chapter is: its program cut
after the exercise's version (no later version's include, table row or header line), the
version and piece files up to that version unchanged, but for the file(s) holding the
exercise's regions, each region replaced by a stub (Exercise.kit_files, from source.kit_lines);
the files of common/ it needs, a Makefile (kit.mk), check.args and sanitize.args, the statement with
its grading table (rubric_text, which make plots also writes into the committed statements),
ANSWERS.md for the written answers and .exercise, which says what the kit was made from.
"""
import glob
import hashlib
import json
import os
import re
import shutil

import speed
from exercises import ROOT, out_folder


def write_kit(ex, dest, tc):
    out_folder(dest, "DEST", empty=True)
    os.makedirs(os.path.join(dest, "common"), exist_ok=True)
    files = ex.kit_files(False)
    for name, text in files:
        with open(os.path.join(dest, name), "w") as f:
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
          .replace("@TOOLS@", " ".join(r["sanitize"]["tools"]))
          .replace("@SM90A@", "1" if tc.sm90a else ""))
    with open(os.path.join(dest, "Makefile"), "w") as f:
        f.write(mk)
    with open(os.path.join(ex.dir, "README.md")) as f:
        statement = f.read().rstrip() + "\n"
    # the grading table as the rubric says now, whatever the committed copy holds
    statement = re.sub(r"(<!-- rubric -->\n).*?(<!-- /rubric -->)",
                       lambda m: m.group(1) + rubric_text(ex) + m.group(2), statement, flags=re.S)
    statement = without_marks(statement)
    with open(os.path.join(dest, "README.md"), "w") as f:
        f.write(statement + "\n" + kit_text_help(ex))
    with open(os.path.join(dest, "ANSWERS.md"), "w") as f:
        f.write(answers_template(ex, statement))
    with open(os.path.join(dest, ".gitignore"), "w") as f:
        f.write("/build/\n")
    with open(os.path.join(dest, ".exercise"), "w") as f:
        json.dump({"chapter": ex.chapter, "exercise": ex.name, "version": ex.version,
                   "files": [name for name, _ in files], "regions_in": ex.region_files(),
                   "source_sha256": hashlib.sha256(ex.kit_source(False).encode()).hexdigest()},
                  f, indent=2)
        f.write("\n")


def without_marks(text):
    """A statement for the student's eyes: the HTML comments the repository's tools keep in it
    (make plots' `<!-- rubric -->` block, tables.py's `0.84<!-- ratio ... -->` behind a measured
    number) taken out, the numbers kept; a line that held only a mark goes whole."""
    text = re.sub(r"^[ \t]*<!--.*?-->[ \t]*\n", "", text, flags=re.M | re.S)
    return re.sub(r"<!--.*?-->", "", text, flags=re.S)


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
from your {handed_in(ex)}, puts them into a fresh copy of this kit's source, and ignores any
other change. Out of {ex.total():g} points:

| what | points | how |
|---|---|---|
| compiles | {r['compile']['points']:g} | no compiler error (warnings are shown, not counted) |
| correct | {c['points']:g} | {n} cases, {c['points'] / n:.3g} each: the sizes in `check.args`, and {c.get('secret', 0)} sizes drawn from the instructor's secret; your output is written to a file and checked by the chapter's own program against the CPU reference |
| sanitizer | {r['sanitize']['points']:g} | compute-sanitizer's {', '.join(r['sanitize']['tools'])} at `{r['sanitize']['args']}`, {r['sanitize']['points'] / len(r['sanitize']['tools']):.3g} each: a clean report and a correct output |
| speed | {r['speed']['points']:g} | at `{r['speed']['args']}`, your {ex.version} against the reference solution, timed in turns on the same GPU (each as a share of the chapter's baseline in its own run, where it has one) until the median of the ratios is known to 1% (or {r['speed'].get('max_rounds', speed.MAX_ROUNDS)} rounds, {r['speed'].get('max_seconds', speed.MAX_SECONDS):g} s); the median ratio to the reference's speed scores: {tiers} |

Each run has a time limit: a hang costs its case. {needs_line(ex)}{rules_line(ex)}{gpus_line(ex)}
"""


def handed_in(ex):
    """The file(s) a student edits and hands in, for a sentence: "`v01-tiled.cuh`"."""
    return " and ".join(f"`{n}`" for n in ex.region_files())


def gpus_line(ex):
    if ex.gpus < 2:
        return ""
    return (f" It is graded on a machine with {ex.gpus} or more GPUs; on fewer, grading stops "
            f"after the compile, and no score is given.")


def needs_line(ex):
    """What the sanitizer and speed cases wait for, as the rubric's [speed] needs says."""
    if ex.rubric["speed"].get("needs", "all") == "any":
        return "The sanitizer and speed cases need at least one correct case first."
    return ("The sanitizer cases need at least one correct case first, and the speed case needs "
            "all of them: a kernel wrong at some size earns no speed points.")


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

The kit is laid out as the chapter is: `{ex.topic}.cu` (the problem, the CPU reference, the version
table and `main`) includes one file per version, up to {ex.version}, and the pieces they share, so
`diff` against the chapter's own files shows the same steps. Your code goes between the
`EXERCISE: {ex.name}` markers of {handed_in(ex)}; every other file is the chapter's, unchanged.
Until you write it, {ex.version} prints `exercise {ex.name}: not written yet` and fails its check.
Hand in {handed_in(ex)} (or the whole folder) and your answers to the questions in `ANSWERS.md`.
"""
