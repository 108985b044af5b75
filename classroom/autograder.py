#!/usr/bin/env python3
"""autograder.py: one exercise as a Gradescope autograder, a zip. The Makefile calls it:

  make autograder CH=01-transpose EX=tiled DEST=dir    writes dir/autograder-01-transpose-tiled.zip

Gradescope's format (docs/instructors.md cites it): a zip with setup.sh and run_autograder at its
root; Gradescope unpacks it into /autograder/source, runs setup.sh once to build its image, and
for each submission runs run_autograder with the student's files in /autograder/submission; what
it reports is /autograder/results/results.json.

The zip holds what `make grade` needs and nothing more: the Makefile, common/, classroom/, and of
chapters/CH the program and its version files (*.cu, *.cuh, *.h), chapter.mk, programs, gpus and
headline, the exercise's rubric.toml and statement, and the rubric.toml of each other exercise of the
chapter (the grader reads their versions to cut this exercise's kit, as for 04's two tables). No
answer key, no other chapter, no results, no .git. With it: setup.sh, run_autograder,
autograder.json (what was packed, from which commit) and grade-secret, the instructor's secret,
which run_autograder moves into the grader's environment and deletes before any student code runs.

run_autograder builds with make, grades with `make grade` (the grader's command line) and turns
what the grader wrote into results.json (`autograder.py results`):
  - results.json from the grader (grading finished): copied as it is;
  - incomplete.json (exit 3: no GPU, no compute-sanitizer, too few GPUs, a GPU too old for the
    version), or no grading at all (the autograder's own build failed, the secret is missing): a
    results.json that is marked NOT GRADED. Gradescope's format has no "no score": a results.json
    always records one, and a missing or broken results.json is an error for every submission. So
    it records 0, says on its first line and in a test of its own that this is not a grade, and
    hides the cases from the student until the instructor publishes (top-level visibility
    "after_published": while cases are hidden Gradescope shows the student no total). extra_data
    holds the reason, for scripts.
Exit codes: 0 done, 2 bad usage (one line on stderr).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import zipfile

from exercises import ROOT, UsageError, chapter_line, find_exercise, out_folder  # the grader's own
from scoring import secret_bytes, secret_missing

EXIT_USAGE = 2
SECRET_FILE = "grade-secret"
# Fixed timestamps: the same inputs make the same zip, byte for byte.
ZIP_TIME = (1980, 1, 1, 0, 0, 0)
CHAPTER_SUFFIXES = (".cu", ".cuh", ".h")
# what the Makefile and the grader read (headline: the rate of the speed case's leaderboard)
CHAPTER_FILES = ("chapter.mk", "programs", "gpus", "headline")


# ---- the zip ------------------------------------------------------------------------------------

def commit_name(chapter):
    """The commit the zip is made from, as the Makefile's COMMIT names it (-dirty when what is
    packed differs from it), or "unknown" outside a git clone."""
    def git(*args):
        return subprocess.run(["git", "-C", ROOT, *args], capture_output=True, text=True)
    head = git("rev-parse", "--short", "HEAD")
    if head.returncode != 0:
        return "unknown"
    paths = ["Makefile", "common", "classroom", os.path.join("chapters", chapter)]
    clean = git("diff", "--quiet", "HEAD", "--", *paths).returncode == 0 and \
        not git("ls-files", "--others", "--exclude-standard", "--", *paths).stdout.strip()
    return head.stdout.strip() + ("" if clean else "-dirty")


def packed_files(chapter, exercise):
    """(path in the zip, path here) for every file of the repository the zip carries."""
    out = [("Makefile", os.path.join(ROOT, "Makefile"))]

    def folder(rel, keep):
        for dirpath, dirs, files in os.walk(os.path.join(ROOT, rel)):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__" and not d.startswith("."))
            for name in sorted(files):
                path = os.path.join(dirpath, name)
                if keep(name) and os.path.isfile(path) and not os.path.islink(path):
                    out.append((os.path.relpath(path, ROOT), path))

    folder("common", lambda n: not n.startswith("."))
    folder("classroom", lambda n: n.endswith(".py") or n == "kit.mk")
    ch = os.path.join("chapters", chapter)
    for name in sorted(os.listdir(os.path.join(ROOT, ch))):
        path = os.path.join(ROOT, ch, name)
        if os.path.isfile(path) and not os.path.islink(path) and \
                (name.endswith(CHAPTER_SUFFIXES) or name in CHAPTER_FILES):
            out.append((os.path.join(ch, name), path))
    exercises = os.path.join(ch, "exercises")
    for name in sorted(os.listdir(os.path.join(ROOT, exercises))):
        # this exercise: its rubric and its statement; any other: its rubric alone
        for f in ("rubric.toml", "README.md") if name == exercise else ("rubric.toml",):
            path = os.path.join(ROOT, exercises, name, f)
            if os.path.isfile(path):
                out.append((os.path.join(exercises, name, f), path))
    keys = [p for p, _ in out if os.path.basename(p) == "answers.md"]
    if keys:  # by construction there is none; a zip must never carry one
        raise UsageError(f"an answer key would be packed: {keys[0]}")
    return out


def setup_sh(chapter):
    """setup.sh for the chapter, with the libraries its chapter.mk links (-lcublas, -lnccl)."""
    mk = os.path.join(ROOT, "chapters", chapter, "chapter.mk")
    libs = []
    if os.path.isfile(mk):
        with open(mk) as f:
            for m in re.finditer(r"^\S+_LIBS\s*:?=\s*(.*)$", f.read(), re.M):
                libs += [l for l in re.findall(r"-l(\S+)", m.group(1)) if l not in libs]
    return SETUP_SH.replace("@CHAPTER@", chapter).replace("@LIBS@", " ".join(libs))


SETUP_SH = r"""#!/usr/bin/env bash
# setup.sh: Gradescope runs this once, as root, when it builds the autograder's image from the
# zip (written by `make autograder` for chapter @CHAPTER@; docs/instructors.md walks through it).
# It installs what grading needs, and only what is missing:
#   - the CUDA toolkit (nvcc, compute-sanitizer, cuBLAS), from NVIDIA's apt repository for this
#     Ubuntu release, where nvcc, compute-sanitizer or a library of the toolkit that the chapter
#     links is not there;
#   - make and the host compiler (build-essential);
#   - Python 3.11 or later, or the tomli package for an older python3 (Ubuntu 22.04 has 3.10);
#   - NCCL, for a chapter that links it (07-multi-gpu).
# The chapter's libraries are looked for where the linker finds them (ldconfig) and in the
# toolkit's own folder.
# Base image: Ubuntu. On Gradescope that is its own base image (Ubuntu 22.04 by default), which
# has no CUDA: this script installs the toolkit. A GPU machine of your own runs the same zip on an
# NVIDIA CUDA devel image on Ubuntu (nvidia/cuda:<12.x or 13.x>-devel-ubuntu22.04 or -ubuntu24.04),
# where the toolkit is already installed and this script adds only what is missing.
# Gradescope's own autograder machines have no GPU: there the toolkit builds the submission and
# run_autograder reports NOT GRADED, with no score (docs/instructors.md says where to grade).
#   setup.sh --check     install nothing; list what is missing (exit 1 if anything is)
set -eu
cuda_package=${KL_CUDA_PACKAGE:-cuda-toolkit-13-0}  # the toolkit the project is tested with
libs="@LIBS@"  # the libraries chapter @CHAPTER@ links (its chapter.mk)
export PATH="$PATH:/usr/local/cuda/bin"
have_lib() {
    ldconfig -p 2>/dev/null | grep -q "lib$1\.so" ||
        ls /usr/local/cuda/lib64/lib"$1".so* /usr/local/cuda/targets/*/lib/lib"$1".so* >/dev/null 2>&1
}

missing=()
command -v nvcc >/dev/null 2>&1 || missing+=(cuda)
command -v compute-sanitizer >/dev/null 2>&1 || missing+=(compute-sanitizer)
for lib in $libs; do
    have_lib "$lib" || missing+=("$lib")
done
command -v make >/dev/null 2>&1 && command -v g++ >/dev/null 2>&1 || missing+=(build-essential)
command -v python3 >/dev/null 2>&1 || missing+=(python3)
if command -v python3 >/dev/null 2>&1 && ! python3 -c 'import tomllib' 2>/dev/null &&
    ! python3 -c 'import tomli' 2>/dev/null; then
    missing+=(tomli)
fi

if [ "${1:-}" = --check ]; then
    if [ ${#missing[@]} -eq 0 ]; then echo "setup.sh: nothing is missing"; exit 0; fi
    echo "setup.sh: missing: ${missing[*]}"
    exit 1
fi
if [ ${#missing[@]} -eq 0 ]; then
    echo "setup.sh: nothing to install"
    exit 0
fi
echo "setup.sh: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends ca-certificates curl build-essential python3
have() { [[ " ${missing[*]} " == *" $1 "* ]]; }
toolkit=0  # compute-sanitizer and cuBLAS come with the toolkit
for m in "${missing[@]}"; do
    case $m in cuda | compute-sanitizer | cublas*) toolkit=1 ;; esac
done
if [ $toolkit = 1 ] || have nccl; then
    . /etc/os-release
    arch=$(dpkg --print-architecture)
    case $arch in amd64) arch=x86_64 ;; arm64) arch=sbsa ;; esac
    repo=https://developer.download.nvidia.com/compute/cuda/repos/${ID}${VERSION_ID//./}/$arch
    if ! dpkg -s cuda-keyring >/dev/null 2>&1; then
        curl -fsSL -o /tmp/cuda-keyring.deb "$repo/cuda-keyring_1.1-1_all.deb"
        dpkg -i /tmp/cuda-keyring.deb
        rm -f /tmp/cuda-keyring.deb
        apt-get update
    fi
    if [ $toolkit = 1 ]; then apt-get install -y --no-install-recommends "$cuda_package"; fi
    if have nccl; then apt-get install -y --no-install-recommends libnccl2 libnccl-dev; fi
fi
# python3 may be new here (an NVIDIA CUDA image has none): ask it now
if ! python3 -c 'import tomllib' 2>/dev/null && ! python3 -c 'import tomli' 2>/dev/null; then
    apt-get install -y --no-install-recommends python3-tomli || python3 -m pip install tomli
fi
echo "setup.sh: done"
"""


def run_autograder(chapter, exercise, topic, commit, public):
    return (RUN_AUTOGRADER.replace("@CHAPTER@", chapter).replace("@EXERCISE@", exercise)
            .replace("@TOPIC@", topic).replace("@COMMIT@", commit)
            .replace("@PUBLIC@", "1" if public else "0"))


RUN_AUTOGRADER = r"""#!/usr/bin/env bash
# run_autograder: Kernel Ladder's grader on one submission of exercise @EXERCISE@ of chapter
# @CHAPTER@ (written by `make autograder`; docs/instructors.md). Gradescope runs it once per
# submission, in a fresh container of the image setup.sh built, from /autograder: this zip is
# unpacked in /autograder/source, the student's files are in /autograder/submission, and the
# result goes to /autograder/results/results.json. KL_AUTOGRADER_ROOT moves all of it (the tests
# run it in a folder of their own). What it prints is for the instructor only (Gradescope keeps
# it as the run's stdout; results.json hides it from students).
set -u
root=${KL_AUTOGRADER_ROOT:-/autograder}
source_dir=$root/source
results=$root/results
mkdir -p "$results"
# The zip belongs in source/: unpacked anywhere else there is no grader to run. One line saying
# so, a results.json that grades nothing, and exit 1 (the autograder failed, not the student).
if [ ! -f "$source_dir/classroom/autograder.py" ]; then
    echo "run_autograder: no grader in $source_dir: unpack the zip into source/, beside" \
        "submission/ and results/ (docs/instructors.md)" >&2
    why="the autograder's files are not where it runs (the zip is not unpacked in source/)"
    cat > "$results/results.json" <<EOF
{"score": 0, "visibility": "after_published", "output": "NOT GRADED: $why",
 "tests": [{"name": "NOT GRADED: the autograder could not run", "score": 0, "max_score": 0,
            "output": "$why", "visibility": "visible"}],
 "extra_data": {"incomplete": "$why"}}
EOF
    exit 1
fi
cd "$source_dir" || exit 1
export PATH="$PATH:/usr/local/cuda/bin"
if [ -d /usr/local/cuda/lib64 ]; then
    export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}/usr/local/cuda/lib64"
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# results.json from what the grader wrote in $work/out, or NOT GRADED with a reason ($1)
report() {
    python3 classroom/autograder.py results "$work/out" "$results/results.json" ${1:+--why "$1"} ||
        { echo "run_autograder: no results.json written (python3 failed above)" >&2; exit 1; }
    [ -f "$work/out/report.txt" ] && cat "$work/out/report.txt"
    exit 0
}

# 1. The secret moves from its file into the grader's environment, and the file is deleted: the
#    submission's programs get none of the grader's environment, and find no file to read.
#    Gradescope starts each submission from the image, so the next one finds the file again.
unset GRADE_SECRET GRADE_SECRET_FILE
if [ @PUBLIC@ = 1 ]; then
    export GRADE_SECRET_FILE=$work/no-secret  # nothing there: the grader's public sizes
elif [ -f @SECRET_FILE@ ]; then
    GRADE_SECRET=$(cat @SECRET_FILE@; echo .)  # every byte, trailing newlines too
    export GRADE_SECRET=${GRADE_SECRET%.}
    rm -f @SECRET_FILE@
else
    report "the instructor's secret is not in the autograder (@SECRET_FILE@ is gone: this \
container graded once already; Gradescope starts each submission afresh)"
fi

# 2. The build: the shared objects and build/gpuinfo, and with a GPU the chapter's program, which
#    checks every output. Without a GPU the grader compiles the submission, then stops (exit 3).
#    A failure here is the autograder's, never the student's: no grade.
jobs=${KL_AUTOGRADER_JOBS:-2}  # a few files to build; more at once needs more of the memory
make -j"$jobs" --no-print-directory COMMIT=@COMMIT@ build/gpuinfo ||
    report "the autograder's own build failed (is the CUDA toolkit installed? setup.sh installs it)"
if build/gpuinfo >/dev/null 2>&1; then
    make -j"$jobs" --no-print-directory COMMIT=@COMMIT@ build/@TOPIC@ ||
        report "the autograder's own build of build/@TOPIC@ failed"
fi

# 3. The grader, through make as an instructor runs it (-o build/@TOPIC@: built above where a GPU
#    answers; without one the grader runs no program, and the chapter's is not needed)
make --no-print-directory -o build/@TOPIC@ COMMIT=@COMMIT@ grade CH=@CHAPTER@ EX=@EXERCISE@ \
    SUB="$root/submission" OUT="$work/out"
echo "run_autograder: make grade exited $?"
report
"""


def build(args):
    ex = find_exercise(args.chapter, args.exercise)
    chapter, exercise = ex.chapter, ex.name
    if not args.dest:
        raise UsageError("say where the zip goes: DEST=<dir>")
    secret = secret_bytes()
    if secret is None and not args.public_secret:
        raise UsageError(f"{secret_missing()} before making an autograder: the "
                         "zip carries it for the secret cases (make's PUBLIC_SECRET=1 makes one "
                         "without, whose secret cases anyone with this repository can derive)")
    if secret is not None and b"\0" in secret:
        raise UsageError("the secret holds a NUL byte, which no environment variable can carry")
    topic = chapter_line(chapter, "programs") or chapter[3:]
    commit = commit_name(chapter)
    manifest = {"chapter": chapter, "exercise": exercise, "program": topic, "commit": commit,
                "secret": "public" if secret is None else "instructor's (grade-secret)",
                "made_by": "make autograder (classroom/autograder.py)"}
    entries = [("setup.sh", setup_sh(chapter).encode(), 0o755),
               ("run_autograder", run_autograder(chapter, exercise, topic, commit, secret is None)
                .replace("@SECRET_FILE@", SECRET_FILE).encode(), 0o755),
               ("autograder.json", (json.dumps(manifest, indent=2) + "\n").encode(), 0o644)]
    if secret is not None:
        entries.append((SECRET_FILE, secret, 0o600))
    for rel, path in packed_files(chapter, exercise):
        with open(path, "rb") as f:
            data = f.read()
        entries.append((rel, data, 0o755 if os.access(path, os.X_OK) else 0o644))
    out_folder(args.dest, "DEST")
    out = os.path.join(args.dest, f"autograder-{chapter}-{exercise}.zip")
    tmp = out + ".tmp"
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
        for rel, data, mode in entries:
            info = zipfile.ZipInfo(rel, ZIP_TIME)
            info.external_attr = (0o100000 | mode) << 16  # a regular file with its mode
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)
    os.replace(tmp, out)
    size = os.path.getsize(out)
    print(f"wrote {out}: {len(entries)} files, {size / 1024:.0f} KiB, from commit {commit}; "
          f"upload it to Gradescope (docs/instructors.md)")
    if secret is None:
        print("autograder: no secret in it (PUBLIC_SECRET=1): its secret cases are the ones anyone "
              "with this repository can derive")
    return 0


# ---- results.json inside the zip -----------------------------------------------------------------

def not_graded(why, grader=None, manifest=None):
    """Gradescope's results.json for a grading that did not finish: a score of 0 that says, first
    and in a test of its own, that it is no grade; the grader's cases with no points, hidden from
    the student until the instructor publishes."""
    what = f"exercise {manifest['exercise']} of {manifest['chapter']}" if manifest else "this exercise"
    head = (f"NOT GRADED: the grading of {what} did not finish: {why}.\n"
            f"The 0 Gradescope shows is not a grade. Your instructor grades this submission on a "
            f"GPU and replaces it.")
    compiled = ""
    tests = [t for t in (grader or {}).get("tests", []) if isinstance(t, dict)]
    if tests and tests[0].get("name") == "compile":
        compiled = f"\n\nThe compile step: {tests[0].get('output', '')}"
    results = {
        "score": 0.0,
        # the grader's own summary stays out: its cases' points are not a grade either (the
        # instructor finds it, and every case's output, in the run's stdout)
        "output": head + compiled + "\n",
        "visibility": "after_published",  # cases hidden: Gradescope shows the student no total
        "stdout_visibility": "hidden",
        "extra_data": {"incomplete": why, **({k: manifest[k] for k in ("chapter", "exercise",
                                                                      "commit")} if manifest else {})},
        "tests": [{"name": "NOT GRADED: the grading did not finish", "score": 0.0, "max_score": 0.0,
                   "output": head + compiled, "visibility": "visible"}],
    }
    for t in tests:
        results["tests"].append({
            "name": t.get("name", "case"), "score": 0.0, "max_score": t.get("max_score", 0.0),
            "output": "not scored: the grading did not finish\n" + str(t.get("output", ""))})
    if grader and "execution_time" in grader:
        results["execution_time"] = grader["execution_time"]
    return results


def results(args):
    """What run_autograder writes as results.json, from the grader's output folder."""
    manifest = None
    if os.path.isfile("autograder.json"):
        with open("autograder.json") as f:
            manifest = json.load(f)

    def load(name):
        try:
            with open(os.path.join(args.out, name)) as f:
                data = json.load(f)
            return data if isinstance(data, dict) else None
        except (OSError, ValueError):
            return None

    done, incomplete = load("results.json"), load("incomplete.json")
    if args.why:
        res = not_graded(args.why, None, manifest)
    elif done is not None and isinstance(done.get("score"), (int, float)):
        res = done  # the grader's own, in Gradescope's format
    elif incomplete is not None:
        res = not_graded(incomplete.get("incomplete") or "the grader could not finish",
                         incomplete, manifest)
    else:
        res = not_graded("the grader wrote no results (its output is in the autograder's log)",
                         None, manifest)
    os.makedirs(os.path.dirname(os.path.abspath(args.results)), exist_ok=True)
    tmp = args.results + ".tmp"
    with open(tmp, "w") as f:
        f.write(json.dumps(res, indent=2) + "\n")
    os.replace(tmp, args.results)
    state = "NOT GRADED: " + res["extra_data"]["incomplete"] if "extra_data" in res and \
        "incomplete" in res.get("extra_data", {}) else f"score {res['score']:g}"
    print(f"run_autograder: wrote {args.results}: {state}")
    return 0


def main(argv):
    p = argparse.ArgumentParser(prog="autograder.py", description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="write the zip (make autograder)")
    b.add_argument("chapter", nargs="?")
    b.add_argument("exercise", nargs="?")
    b.add_argument("dest", nargs="?")
    b.add_argument("--public-secret", action="store_true",
                   help="make the zip without a secret (its secret cases are then public)")
    r = sub.add_parser("results", help="results.json from the grader's output (run_autograder)")
    r.add_argument("out", help="the grader's output folder")
    r.add_argument("results", help="where results.json goes")
    r.add_argument("--why", help="the grading did not happen, for this reason")
    args = p.parse_args(argv)
    try:
        return {"build": build, "results": results}[args.command](args)
    except UsageError as e:
        print(f"autograder: {e}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
