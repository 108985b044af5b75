#!/usr/bin/env python3
"""test_autograder.py: the tests of `make autograder` (classroom/autograder.py). One PASS or FAIL
line per check, counted by tests/run.sh.

  test_autograder.py cpu   no GPU needed (make test, CI): every exercise's zip holds what the
                           grader needs and nothing else (no answer key, no other chapter, no
                           results, no .git) and cuts the same kit as the repository; make
                           autograder refuses without a secret; run_autograder, run as Gradescope
                           runs it in a layout of its own (source/, submission/, results/), writes
                           a results.json in Gradescope's format that, without a GPU, gives no
                           score (NOT GRADED), and never grades with a missing secret or a broken
                           toolchain
  test_autograder.py gpu   on a GPU: run_autograder grades the reference solution to full points
                           and the untouched kit to no correctness point: 01-transpose/tiled, or
                           KL_AUTOGRADER_EXERCISES=all (about a minute an exercise on an H100),
                           or labels (01-transpose/tiled,04-atomics/casint), or KL_EXERCISES's
"""
import glob
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "classroom"))
import source  # noqa: E402  (the regions of a chapter's source)

SECRET = "autograder-test-secret"
failed = 0


def check(ok, what, detail=""):
    global failed
    print(f"{'PASS' if ok else 'FAIL'} {what}" + (f": {detail}" if detail and not ok else ""))
    failed += not ok
    return ok


def env_with(**changes):
    """This environment with changes; a value of None removes the variable."""
    env = dict(os.environ)
    for k, v in changes.items():
        if v is None:
            env.pop(k, None)
        else:
            env[k] = v
    return env


def make(*args, env=None):
    return subprocess.run(["make", "-s", "--no-print-directory", *args], cwd=ROOT,
                          capture_output=True, text=True, env=env)


def exercises():
    out = []
    for path in sorted(glob.glob(os.path.join(ROOT, "chapters", "*", "exercises", "*", "rubric.toml"))):
        parts = path.split(os.sep)
        out.append((parts[-4], parts[-2]))
    return out


def topic(chapter):
    path = os.path.join(ROOT, "chapters", chapter, "programs")
    if os.path.isfile(path):
        with open(path) as f:
            return next(l.strip() for l in f if l.strip() and not l.startswith("#"))
    return chapter[3:]


def build_zip(chapter, exercise, dest, public=False):
    env = env_with(GRADE_SECRET=None if public else SECRET, GRADE_SECRET_FILE=None,
                   HOME=dest)  # no ~/.config/kernel-ladder/grade-secret of the one who runs this
    p = make("autograder", f"CH={chapter}", f"EX={exercise}", f"DEST={dest}",
             *(["PUBLIC_SECRET=1"] if public else []), env=env)
    path = os.path.join(dest, f"autograder-{chapter}-{exercise}.zip")
    return p, path


# Gradescope's results.json, as its specification lists the fields (docs/instructors.md cites it);
# `status` ("passed"/"failed") is the grader's addition to each test.
TOP_KEYS = {"score", "execution_time", "output", "visibility", "stdout_visibility", "extra_data",
            "tests", "leaderboard"}
TEST_KEYS = {"score", "max_score", "name", "number", "output", "tags", "visibility", "extra_data",
             "status"}
VISIBILITY = {"hidden", "after_due_date", "after_published", "visible"}


def gradescope_problems(res):
    """What in res breaks Gradescope's results.json format; [] when nothing does."""
    number = lambda v: isinstance(v, (int, float)) and not isinstance(v, bool)
    bad = []
    if not isinstance(res, dict):
        return ["not a JSON object"]
    bad += [f"unknown key {k}" for k in set(res) - TOP_KEYS]
    tests = res.get("tests", [])
    if not isinstance(tests, list) or not all(isinstance(t, dict) for t in tests):
        return bad + ["tests is not a list of objects"]
    if "score" in res and not number(res["score"]):
        bad.append("score is not a number")
    if "score" not in res and (not tests or not all(number(t.get("score")) for t in tests)):
        bad.append("no score: neither at the top nor on every test")
    for k in ("visibility", "stdout_visibility"):
        if k in res and res[k] not in VISIBILITY:
            bad.append(f"{k} {res[k]!r}")
    for k in ("output",):
        if k in res and not isinstance(res[k], str):
            bad.append("output is not text")
    if "extra_data" in res and not isinstance(res["extra_data"], dict):
        bad.append("extra_data is not an object")
    for t in tests:
        bad += [f"test {t.get('name')!r}: unknown key {k}" for k in set(t) - TEST_KEYS]
        for k in ("score", "max_score"):
            if k in t and not number(t[k]):
                bad.append(f"test {t.get('name')!r}: {k} is not a number")
        for k in ("name", "output"):
            if k in t and not isinstance(t[k], str):
                bad.append(f"test {t.get('name')!r}: {k} is not text")
        if t.get("visibility", "visible") not in VISIBILITY:
            bad.append(f"test {t.get('name')!r}: visibility {t['visibility']!r}")
        if t.get("status", "passed") not in ("passed", "failed"):
            bad.append(f"test {t.get('name')!r}: status {t['status']!r}")
    for e in res.get("leaderboard", []):
        if not isinstance(e, dict) or "name" not in e or "value" not in e:
            bad.append(f"leaderboard entry {e!r}")
    return bad


def not_graded(res):
    """A results.json that records no grade: the score 0, every test 0, NOT GRADED first."""
    tests = res.get("tests", [])
    return (res.get("score") == 0 and all(t.get("score") == 0 for t in tests) and
            "incomplete" in res.get("extra_data", {}) and
            res.get("output", "").startswith("NOT GRADED") and
            res.get("visibility") == "after_published" and tests and
            tests[0]["name"].startswith("NOT GRADED") and tests[0].get("visibility") == "visible")


# ---- a Gradescope layout -------------------------------------------------------------------------

def layout(zip_path, folder):
    """/autograder as Gradescope makes it: the zip unpacked in source/, run_autograder copied to
    the top, results/ empty; submission/ is the caller's."""
    os.makedirs(os.path.join(folder, "results"))
    with zipfile.ZipFile(zip_path) as z:
        z.extractall(os.path.join(folder, "source"))
        for info in z.infolist():  # extractall does not keep modes
            os.chmod(os.path.join(folder, "source", info.filename), (info.external_attr >> 16) & 0o777)
    shutil.copy2(os.path.join(folder, "source", "run_autograder"), os.path.join(folder, "run_autograder"))
    return folder


def write_kit(chapter, exercise, dest, solution):
    """A student's kit from `make starter`, with the chapter's own region bodies in it when
    solution (the reference solution, as a student who wrote it would hand it in)."""
    p = make("starter", f"CH={chapter}", f"EX={exercise}", f"DEST={dest}")
    if p.returncode != 0:
        raise RuntimeError(f"make starter {chapter}/{exercise}: {p.stderr}")
    if solution:  # each region file gets the chapter's own bodies, region by region
        folder = os.path.join(ROOT, "chapters", chapter)
        pairs = source.program_lines(os.path.join(folder, topic(chapter) + ".cu"))
        holders = sorted({pairs[r.begin][1] for r in source.regions([l for l, _ in pairs], exercise)})
        for name in holders:
            with open(os.path.join(folder, name)) as f:
                chap = f.read().split("\n")
            with open(os.path.join(dest, name)) as f:
                kit = f.read().split("\n")
            bodies = [r.body(chap) for r in source.regions(chap, exercise)]
            regions = source.regions(kit, exercise)
            assert len(regions) == len(bodies), f"{chapter}/{exercise}: {len(regions)} regions in {name}"
            for r, body in reversed(list(zip(regions, bodies))):
                kit[r.begin + 1:r.end] = body
            with open(os.path.join(dest, name), "w") as f:
                f.write("\n".join(kit))
    return dest


def run_autograder(folder, **env):
    """Runs run_autograder as Gradescope does (from /autograder, here the folder); returns the
    exit code, what it printed and results.json (None when there is none)."""
    e = env_with(KL_AUTOGRADER_ROOT=folder, GRADE_SECRET=None, GRADE_SECRET_FILE=None, **env)
    p = subprocess.run([os.path.join(folder, "run_autograder")], cwd=folder, capture_output=True,
                       text=True, env=e)
    try:
        with open(os.path.join(folder, "results", "results.json")) as f:
            res = json.load(f)
    except (OSError, ValueError):
        res = None
    return p.returncode, p.stdout + p.stderr, res


def gpu_count():
    p = subprocess.run([os.path.join(ROOT, "build", "gpuinfo"), "count"], capture_output=True, text=True)
    return int(p.stdout.strip() or 0) if p.returncode == 0 else 0


def gpu_reason():
    info = os.path.join(ROOT, "build", "gpuinfo")
    if not os.path.exists(info):
        return "build/gpuinfo is not built (run make first)"
    p = subprocess.run([info], capture_output=True, text=True)
    return None if p.returncode == 0 else (p.stderr.strip().split("\n")[0] or "no GPU")


# ---- no GPU --------------------------------------------------------------------------------------

def test_refusals(tmp):
    """make autograder's mistakes get one line and exit 2 (make reports "Error 2"), no zip."""
    dest = os.path.join(tmp, "refused")
    nosecret = env_with(GRADE_SECRET=None, GRADE_SECRET_FILE=None, HOME=tmp)
    empty = os.path.join(tmp, "empty-secret")
    open(empty, "w").close()
    tiled = ("CH=01-transpose", "EX=tiled", f"DEST={dest}")
    cases = [(tiled, "GRADE_SECRET", nosecret, " (no GRADE_SECRET, no GRADE_SECRET_FILE)"),
             (tiled, "does not exist", dict(nosecret, GRADE_SECRET_FILE=os.path.join(tmp, "nosuch")),
              " (GRADE_SECRET_FILE names no file)"),
             (tiled, "is empty", dict(nosecret, GRADE_SECRET_FILE=empty),
              " (GRADE_SECRET_FILE names an empty file)"),
             (("CH=01-transpose", "EX=nosuch", f"DEST={dest}"), "no exercise", None, ""),
             (("CH=01-transpose", "EX=../tiled", f"DEST={dest}"), "no exercise", None, ""),
             (("CH=01-transpose", f"DEST={dest}"), "name the exercise", None, ""),
             (("CH=01-transpose", "EX=tiled"), "DEST", None, "")]
    for args, word, env, note in cases:
        p = make("autograder", *args, env=env or env_with(GRADE_SECRET=SECRET))
        lines = [l for l in p.stderr.split("\n") if l.startswith("autograder:")]
        check(p.returncode != 0 and "Error 2" in p.stderr and len(lines) == 1 and word in lines[0]
              and not glob.glob(os.path.join(dest, "*.zip")),
              f"make autograder {' '.join(args).replace(tmp, 'TMP')}{note}: one line naming "
              f"'{word}', exit 2, no zip", p.stderr[-300:])


def test_zip(chapter, exercise, tmp):
    label = f"{chapter}/{exercise}"
    dest = os.path.join(tmp, "zips", f"{chapter}-{exercise}")
    p, path = build_zip(chapter, exercise, dest)
    if not check(p.returncode == 0 and os.path.isfile(path), f"{label}: make autograder writes "
                 f"{os.path.basename(path)}", p.stderr[-300:]):
        return None
    with zipfile.ZipFile(path) as z:
        infos = {i.filename: i for i in z.infolist()}
        mode = lambda n: (infos[n].external_attr >> 16) & 0o777 if n in infos else None
        secret = z.read("grade-secret").decode() if "grade-secret" in infos else None
    names = sorted(infos)
    ch = f"chapters/{chapter}/"
    wrong = [n for n in names if not (
        n in ("setup.sh", "run_autograder", "autograder.json", "grade-secret", "Makefile")
        or n.startswith(("common/", "classroom/"))
        or (n.startswith(ch) and "/exercises/" not in n and n.count("/") == 2)
        or n in (f"{ch}exercises/{exercise}/rubric.toml", f"{ch}exercises/{exercise}/README.md")
        or (n.startswith(f"{ch}exercises/") and n.endswith("/rubric.toml") and n.count("/") == 4))]
    wrong += [n for n in names if "answers.md" in n or "/." in "/" + n or "__pycache__" in n
              or n.startswith(("build/", "plots/", "tests/", "docs/", "results"))]
    sources = sorted(os.path.relpath(f, ROOT) for e in ("*.cu", "*.cuh")
                     for f in glob.glob(os.path.join(ROOT, "chapters", chapter, e)))
    others = sorted(f"{ch}exercises/{os.path.basename(os.path.dirname(r))}/rubric.toml"
                    for r in glob.glob(os.path.join(ROOT, ch, "exercises", "*", "rubric.toml")))
    check(not wrong and mode("setup.sh") == 0o755 and mode("run_autograder") == 0o755
          and "Makefile" in infos and all(s in infos for s in sources)
          and all(o in infos for o in others) and "classroom/grade.py" in infos
          and "classroom/autograder.py" in infos and "common/gpuinfo.cu" in infos,
          f"{label}: the zip holds setup.sh and run_autograder (executable) at its root, the "
          f"Makefile, common/, classroom/ and of {chapter} its program, its {len(sources)} source "
          f"files and the rubrics ({len(names)} files); no answer key, no other chapter, no "
          f"results, no .git", f"unexpected {wrong[:5]}, modes {mode('setup.sh')} "
          f"{mode('run_autograder')}")
    check(secret == SECRET and mode("grade-secret") == 0o600,
          f"{label}: the zip carries the instructor's secret in grade-secret (mode 600)")
    return path


def test_same_kit(chapter, exercise, zip_path, tmp):
    """The tree in the zip cuts the same kit as the repository (so a submission is graded against
    the kit the student had: 04's two tables need the other exercise's rubric)."""
    label = f"{chapter}/{exercise}"
    tree = os.path.join(tmp, "trees", f"{chapter}-{exercise}")
    with zipfile.ZipFile(zip_path) as z:
        z.extractall(tree)
    mine = os.path.join(tmp, "kits-zip", f"{chapter}-{exercise}")
    theirs = os.path.join(tmp, "kits-repo", f"{chapter}-{exercise}")
    a = subprocess.run([sys.executable, "classroom/grade.py", "starter", chapter, exercise, mine],
                       cwd=tree, capture_output=True, text=True)
    b = make("starter", f"CH={chapter}", f"EX={exercise}", f"DEST={theirs}")
    sha = []
    for d in (mine, theirs):
        try:
            with open(os.path.join(d, ".exercise")) as f:
                sha.append(json.load(f)["source_sha256"])
        except (OSError, ValueError, KeyError):
            sha.append(None)
    check(a.returncode == 0 and b.returncode == 0 and sha[0] and sha[0] == sha[1],
          f"{label}: the grader in the zip cuts the same kit as the repository's",
          (a.stderr + b.stderr)[-300:] or f"{sha}")


def test_same_bytes(tmp):
    a = build_zip("01-transpose", "tiled", os.path.join(tmp, "same-a"))[1]
    b = build_zip("01-transpose", "tiled", os.path.join(tmp, "same-b"))[1]
    with open(a, "rb") as fa, open(b, "rb") as fb:
        check(fa.read() == fb.read(), "make autograder twice: the same zip, byte for byte")


def test_setup_sh(zip_path, tmp):
    folder = os.path.join(tmp, "setup")
    with zipfile.ZipFile(zip_path) as z:
        z.extractall(folder)
    for name in ("setup.sh", "run_autograder"):
        p = subprocess.run(["bash", "-n", os.path.join(folder, name)], capture_output=True, text=True)
        check(p.returncode == 0, f"{name}: bash reads it (bash -n)", p.stderr)
    # what setup.sh would install here, against what this machine lacks
    want = []
    path = os.environ.get("PATH", "") + ":/usr/local/cuda/bin"
    if not shutil.which("nvcc", path=path):
        want.append("cuda")
    if not shutil.which("compute-sanitizer", path=path):
        want.append("compute-sanitizer")
    if not (shutil.which("make") and shutil.which("g++")):
        want.append("build-essential")
    if not shutil.which("python3"):
        want.append("python3")
    elif subprocess.run(["python3", "-c", "import tomllib"], capture_output=True).returncode and \
            subprocess.run(["python3", "-c", "import tomli"], capture_output=True).returncode:
        want.append("tomli")
    p = subprocess.run(["bash", os.path.join(folder, "setup.sh"), "--check"], capture_output=True,
                       text=True)
    said = p.stdout.strip()
    expect = "setup.sh: nothing is missing" if not want else f"setup.sh: missing: {' '.join(want)}"
    check(said == expect and p.returncode == (1 if want else 0),
          f"setup.sh --check finds what this machine lacks ({', '.join(want) or 'nothing'}) and "
          f"installs nothing", f"said {said!r}, exit {p.returncode}")
    # the chapter's libraries: 03's cuBLAS, 07's NCCL, each checked; one that is nowhere is named
    import autograder
    libs = {ch: re.search(r'^libs="([^"]*)"', autograder.setup_sh(ch), re.M)
            for ch in ("01-transpose", "03-matmul", "07-multi-gpu")}
    script = os.path.join(tmp, "setup-nosuch.sh")
    with open(script, "w") as f:
        f.write(re.sub(r'^libs="[^"]*"', 'libs="cublas kl-no-such-library"',
                       autograder.setup_sh("03-matmul"), flags=re.M))
    p = subprocess.run(["bash", script, "--check"], capture_output=True, text=True)
    check([m.group(1) if m else None for m in libs.values()] == ["", "cublas", "nccl"]
          and p.returncode == 1 and p.stdout.strip().startswith("setup.sh: missing: ")
          and p.stdout.strip().endswith(" kl-no-such-library"),
          "setup.sh --check checks the libraries the chapter links (03: cublas, 07: nccl) and "
          "names one that is missing", f"{[m and m.group(1) for m in libs.values()]} {p.stdout!r}")


def test_run_without_gpu(zip_path, tmp):
    """run_autograder in a Gradescope layout on this machine (no GPU): NOT GRADED, never a score."""
    root = layout(zip_path, os.path.join(tmp, "gs"))
    write_kit("01-transpose", "tiled", os.path.join(root, "submission"), solution=True)
    rc, out, res = run_autograder(root)
    problems = gradescope_problems(res) if res is not None else ["no results.json"]
    check(rc == 0 and not problems, "run_autograder: results/results.json is Gradescope's format "
          "(score, tests with name, score, max_score, output, visibility)",
          f"exit {rc}: {problems[:4]} {out[-300:]}")
    if res is None:
        return
    check(not_graded(res) and "GPU" in res["extra_data"]["incomplete"],
          "run_autograder without a GPU: no score is given as a grade (0, every test 0, NOT "
          "GRADED first and in a visible test of its own, the cases hidden until published, the "
          "reason in extra_data)", json.dumps(res)[:400])
    check("compiled" in res["tests"][0]["output"] and
          [t["name"] for t in res["tests"][1:]][:2] == ["compile", "correct -m 1 -n 1"],
          "run_autograder without a GPU: the student still learns what the compile step found, "
          "and every case of the grader is listed", res["tests"][0]["output"][-200:])
    text = json.dumps(res) + out
    check(not os.path.exists(os.path.join(root, "source", "grade-secret")) and SECRET not in text
          and "(args: -m " in out and "(args: -m " not in json.dumps(res),
          "run_autograder: the secret leaves its file before grading and appears nowhere; the "
          "secret sizes go to the instructor's log (stdout), not to results.json")
    # the zip unpacked in the folder itself, not in source/ (an easy slip by hand): one line that
    # says where it belongs, a results.json that grades nothing, and a failed run (exit 1)
    wrong = os.path.join(tmp, "gs-flat")
    os.makedirs(os.path.join(wrong, "results"))
    with zipfile.ZipFile(zip_path) as z:
        z.extractall(wrong)
    os.chmod(os.path.join(wrong, "run_autograder"), 0o755)
    write_kit("01-transpose", "tiled", os.path.join(wrong, "submission"), solution=True)
    rc2, out2, res2 = run_autograder(wrong)
    check(rc2 == 1 and res2 is not None and not gradescope_problems(res2) and not_graded(res2)
          and "unpack the zip into source/" in out2,
          "run_autograder with the zip unpacked outside source/: exit 1, one line saying where it "
          "belongs, and a NOT GRADED results.json", f"exit {rc2}: {out2[-300:]}")
    # the same container again: the secret is gone, so no grading with public sizes
    os.remove(os.path.join(root, "results", "results.json"))
    rc, out, res = run_autograder(root)
    check(rc == 0 and res is not None and not gradescope_problems(res) and not_graded(res)
          and "secret" in res["extra_data"]["incomplete"],
          "run_autograder without its secret (a second run in one container): NOT GRADED, never "
          "graded with the public sizes", out[-300:])


def test_run_public(tmp):
    """A zip without a secret (PUBLIC_SECRET=1): a broken toolchain is no grade; a submission
    that does not compile is the grader's own finished grading, passed on as it is."""
    dest = os.path.join(tmp, "public")
    p, path = build_zip("01-transpose", "tiled", dest, public=True)
    with zipfile.ZipFile(path) as z:
        names = z.namelist()
        manifest = json.loads(z.read("autograder.json"))
    check(p.returncode == 0 and "grade-secret" not in names and manifest["secret"] == "public"
          and "PUBLIC_SECRET=1" in p.stdout,
          "make autograder PUBLIC_SECRET=1: a zip without a secret, and it says so", p.stdout + p.stderr)
    root = layout(path, os.path.join(tmp, "gs-public"))
    sub = write_kit("01-transpose", "tiled", os.path.join(root, "submission"), solution=False)
    rc, out, res = run_autograder(root, NVCC="/nonexistent/nvcc")
    check(rc == 0 and res is not None and not gradescope_problems(res) and not_graded(res)
          and "build" in res["extra_data"]["incomplete"],
          "run_autograder with no working nvcc: NOT GRADED (the autograder's failure, not the "
          "student's), not a compile error worth 0", out[-300:])
    cu = os.path.join(sub, "v01-tiled.cuh")  # the file that holds the region
    with open(cu) as f:
        kit = f.read().split("\n")
    r = source.regions(kit, "tiled")[0]
    kit[r.begin + 1:r.end] = ["__shared__ float tile[32][32];", "this is not C++;"]
    with open(cu, "w") as f:
        f.write("\n".join(kit))
    os.remove(os.path.join(root, "results", "results.json"))
    rc, out, res = run_autograder(root)
    check(rc == 0 and res is not None and not gradescope_problems(res) and res.get("score") == 0
          and "extra_data" not in res and res["tests"][0]["status"] == "failed"
          and "error" in res["tests"][0]["output"],
          "run_autograder: a submission that does not compile is a finished grading (0 points, "
          "the compiler's message), the grader's results.json passed on as it is",
          out[-400:] if res is None else json.dumps(res)[:300])


# ---- with a GPU ----------------------------------------------------------------------------------

def test_gpu(tmp):
    # KL_AUTOGRADER_EXERCISES=all, or labels; else the grader's KL_EXERCISES; else one exercise
    chosen = os.environ.get("KL_AUTOGRADER_EXERCISES") or os.environ.get("KL_EXERCISES") or \
        "01-transpose/tiled"
    exs = exercises() if chosen == "all" else \
        [tuple(x.split("/")) for x in chosen.split(",") if x]
    have = gpu_count()
    for chapter, exercise in exs:
        label = f"{chapter}/{exercise}"
        gpus = 1
        path = os.path.join(ROOT, "chapters", chapter, "gpus")
        if os.path.isfile(path):
            with open(path) as f:
                gpus = int(next(l.strip() for l in f if l.strip() and not l.startswith("#")))
        if gpus > have:
            print(f"SKIP {label}: needs {gpus} GPUs, this machine has {have}")
            continue
        p, zip_path = build_zip(chapter, exercise, os.path.join(tmp, "zips", label.replace("/", "-")))
        if not check(p.returncode == 0, f"{label}: make autograder", p.stderr[-300:]):
            continue
        got = {}
        for who in ("reference", "starter"):
            root = layout(zip_path, os.path.join(tmp, "gs", label.replace("/", "-"), who))
            write_kit(chapter, exercise, os.path.join(root, "submission"), solution=who == "reference")
            rc, out, res = run_autograder(root)
            got[who] = res
            check(rc == 0 and res is not None and not gradescope_problems(res)
                  and "extra_data" not in res,
                  f"{label}: run_autograder on the GPU grades the {who} to the end "
                  f"(results.json in Gradescope's format)", out[-800:])
        ref, starter = got["reference"], got["starter"]
        if ref and "score" in ref:
            check(ref["score"] == 100, f"{label}: run_autograder gives the reference solution 100",
                  ref.get("output", "")[-800:])
        if starter and "tests" in starter:
            correct = sum(t["score"] for t in starter["tests"] if t["name"].startswith("correct"))
            check(correct == 0 and starter["tests"][0]["status"] == "passed",
                  f"{label}: run_autograder gives the untouched kit no correctness point "
                  f"({starter.get('score', 0):g} in all, for compiling)")


def main(argv):
    mode = argv[1] if len(argv) > 1 else "cpu"
    # the speed protocol's caps, lowered for these tests as in test_grader.py (make passes them on)
    os.environ.setdefault("KL_SPEED_MAX_ROUNDS", "8")
    os.environ.setdefault("KL_SPEED_MAX_SECONDS", "20")
    with tempfile.TemporaryDirectory(prefix="kl-test-autograder-") as tmp:
        if mode == "cpu":
            test_refusals(tmp)
            first = None
            for chapter, exercise in exercises():
                path = test_zip(chapter, exercise, tmp)
                if path:
                    test_same_kit(chapter, exercise, path, tmp)
                    if (chapter, exercise) == ("01-transpose", "tiled"):
                        first = path
            test_same_bytes(tmp)
            if first:
                test_setup_sh(first, tmp)
                if gpu_reason() is None:
                    print("SKIP run_autograder without a GPU: a GPU is here (test_autograder.py gpu "
                          "grades on it)")
                else:
                    test_run_without_gpu(first, tmp)
            test_run_public(tmp)
        elif mode == "gpu":
            reason = gpu_reason()
            if reason:
                print(f"SKIP run_autograder on the GPU: {reason}")
                return 0
            test_gpu(tmp)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
