"""toolchain.py: what the grader builds with, and the programs and GPU it needs: nvcc's command
line with the chapter's flags (Toolchain), whether a GPU is here and how many (build/gpuinfo),
the lock that gives one grading at a time the GPU, compute-sanitizer, the chapter's own program
that checks a submission's output (the verifier) and the reference solution, built once under
build/grader/. GraderError: the grader itself cannot run (no GPU, no compute-sanitizer).
"""
import fcntl
import glob
import hashlib
import os
import re
import shlex
import shutil
import subprocess
import sys
import time

from exercises import ROOT, UsageError
from sandbox import run, unprivileged


class GraderError(Exception):
    """The grader itself cannot run (no GPU, no compute-sanitizer)."""


class Toolchain:
    """How submissions and kits are built. The Makefile passes its own settings; called
    directly, the grader reads the chapter's flags and libraries from its chapter.mk. A chapter
    with Hopper-only versions (`_SM90A`, 06) builds sm_90a where the others build sm_90, as the
    Makefile does: a plain sm_90 build would skip those versions, the exercise's among them."""
    def __init__(self, args, ex=None):
        self.nvcc = args.nvcc or shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
        mk = chapter_mk(ex) if ex else {}
        given = getattr(args, "sm90a", None)
        self.sm90a = bool((given if given is not None else mk.get("SM90A", "")).strip())
        a = "a" if self.sm90a else ""
        if args.gencode:
            self.gencode = shlex.split(args.gencode)
        elif gpu_reason() is None:
            self.gencode = (["-gencode", "arch=compute_90a,code=sm_90a"]
                            if self.sm90a and gpu_cc() == "9.0" else ["-arch=native"])
        else:
            self.gencode = ["-gencode", "arch=compute_80,code=sm_80",
                            "-gencode", f"arch=compute_90{a},code=sm_90{a}"]
        self.cflags = shlex.split(args.cflags if args.cflags is not None else mk.get("FLAGS", ""))
        self.libs = shlex.split(args.libs if args.libs is not None else mk.get("LIBS", ""))
        self.objs = common_objects()  # check_built says, before grading, that they are there

    def command(self, src, binary):
        # the chapters' flags, less -Werror: a warning is reported, not failed
        return ([self.nvcc, "-O3", "-lineinfo", "-std=c++17", *self.gencode,
                 "-Xcompiler", "-Wall,-Wextra", "-Xptxas", "-warn-spills",
                 "-I" + os.path.join(ROOT, "common"), *self.cflags, "-o", binary, src]
                + self.objs + self.libs + ["-lpthread"])


def common_objects():
    """The objects of common/ that every program links, as the Makefile's COMMON_OBJS names them:
    one for each common/*.c, and gpu.o."""
    names = sorted(os.path.basename(p)[:-2] for p in glob.glob(os.path.join(ROOT, "common", "*.c")))
    return [os.path.join(ROOT, "build", "common", f"{n}.o") for n in names + ["gpu"]]


def check_built():
    """The grader's own prerequisites, which make builds: the objects of common/ that every
    submission links, and build/gpuinfo. A missing one would fail every submission's compile (a
    link error) or hide the GPU: that is the grader's failure, so it stops here, before grading,
    with no totals (GraderError, exit 3)."""
    want = common_objects() + [os.path.join(ROOT, "build", "gpuinfo")]
    missing = [os.path.relpath(p, ROOT) for p in want if not os.path.exists(p)]
    if missing:
        named = ", ".join(missing[:3]) + (f" and {len(missing) - 3} more" if len(missing) > 3 else "")
        raise GraderError(f"the grader's own build is not there ({named}): run make in {ROOT} "
                          f"first; nothing was graded")


def chapter_mk(ex):
    """{'FLAGS': ..., 'LIBS': ..., 'SM90A': ...} from the chapter's chapter.mk
    (`matmul_LIBS := -lcublas`; `tensor-cores_SM90A := 1`: Hopper's versions need sm_90a)."""
    path = os.path.join(ROOT, "chapters", ex.chapter, "chapter.mk")
    out = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                m = re.match(rf"^{re.escape(ex.topic)}_(FLAGS|LIBS|SM90A)\s*:?=\s*(.*)$",
                             line.strip())
                if m:
                    out[m.group(1)] = m.group(2).strip()
    return out


_gpu = {}


def gpu_cc():
    """The first GPU's compute capability ("9.0"), as nvidia-smi reports it; "" when it cannot."""
    if "cc" not in _gpu:
        try:
            p = subprocess.run(["nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader"],
                               capture_output=True, text=True, timeout=60)
            _gpu["cc"] = p.stdout.strip().split("\n")[0].strip() if p.returncode == 0 else ""
        except (OSError, subprocess.TimeoutExpired):
            _gpu["cc"] = ""
    return _gpu["cc"]


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


def visible_gpus():
    """The GPUs the grader's programs see, each as CUDA_VISIBLE_DEVICES names it to a child: the
    entries of the grader's own CUDA_VISIBLE_DEVICES where it is set ("2,3", or UUIDs), else
    "0" .. count - 1. Call it only where gpu_reason() is None."""
    mine = os.environ.get("CUDA_VISIBLE_DEVICES", "").strip()
    entries = [e.strip() for e in mine.split(",") if e.strip()] if mine else []
    return entries[:gpu_count()] if entries else [str(i) for i in range(gpu_count())]


def gpu_uuids():
    """The visible GPUs' UUIDs in CUDA's order (build/gpuinfo uuids), or None where it cannot
    tell. Call it only where gpu_reason() is None."""
    if "uuids" not in _gpu:
        p = subprocess.run([os.path.join(ROOT, "build", "gpuinfo"), "uuids"], capture_output=True,
                           text=True)
        lines = p.stdout.split()
        _gpu["uuids"] = lines if p.returncode == 0 and lines else None
    return _gpu["uuids"]


def lock_keys(visible):
    """What each of `visible`'s entries locks by: the GPU's UUID where build/gpuinfo tells it,
    so that graders naming one GPU two ways ("0", its UUID, another CUDA_DEVICE_ORDER) still
    keep off each other's GPU; the entry itself where it cannot."""
    uuids = gpu_uuids()
    if uuids and len(uuids) >= len(visible):
        return dict(zip(visible, uuids))
    return {e: e for e in visible}


def parse_gpus(value):
    """--gpus: None (not given), "all", or a count from 1 up; anything else is a usage error."""
    if value is None or value == "":
        return None
    if value == "all":
        return "all"
    if re.fullmatch(r"[0-9]+", value) and int(value) > 0:
        return int(value)
    raise UsageError(f"GPUS={value}: say all, or how many GPUs to grade on (a whole number from 1)")


def gpu_groups(visible, need, spread, keys=None):
    """The groups of GPUs that grade submissions at the same time, each (lock, env): the entries
    whose locks the group holds, and the entries its programs see (None: the grader's own).
    Without --gpus (spread None), one group, as on a machine of one GPU: the first visible GPU's
    lock, or every visible GPU's for an exercise of several (07's program runs on all it sees),
    and the environment left as it is. With --gpus all or N, the first N visible GPUs (all)
    make groups of `need` (1, or 07's 2), each its own GPUs, and as many submissions are graded
    at once; each speed ratio still compares a submission with the reference run in turns on the
    same GPUs. keys (lock_keys) names each GPU's lock; without it, the entry does."""
    key = (lambda group: [keys[e] for e in group]) if keys else (lambda group: list(group))
    if spread is None:
        return [(key(visible[:1] if need <= 1 else visible), None)]
    use = visible if spread == "all" else visible[:spread]
    if spread != "all" and spread > len(visible):
        raise UsageError(f"GPUS={spread}: this machine shows {len(visible)} "
                         f"GPU{'' if len(visible) == 1 else 's'}")
    size = max(1, need)
    groups = [use[i:i + size] for i in range(0, len(use) - size + 1, size)]
    if not groups:
        raise UsageError(f"GPUS={spread}: the exercise needs {size} GPUs a grading, "
                         f"{len(use)} given")
    return [(key(g), g) for g in groups]


class gpu_lock:
    """One grading at a time on each GPU, across processes: compiles overlap, timed runs never
    share a GPU with another grading's runs. A lock file per GPU (build/grader/gpu-KEY.lock, KEY
    the GPU's UUID, from lock_keys), taken in a fixed order so that two groups never wait on
    each other.
    With give_up (a function), it waits by polling and stops waiting once give_up() is true:
    then `acquired` is False and nothing is held (a GPU of GPUS=all that another grading keeps
    busy is not waited for once the class is graded on the others)."""
    def __init__(self, gpus, give_up=None):
        self.names = sorted(re.sub(r"[^A-Za-z0-9-]", "_", g) for g in gpus)
        self.give_up, self.acquired = give_up, False

    def __enter__(self):
        os.makedirs(os.path.join(ROOT, "build", "grader"), exist_ok=True)
        self.files = []
        for name in self.names:
            f = open(os.path.join(ROOT, "build", "grader", f"gpu-{name}.lock"), "w")
            self.files.append(f)
            said = False
            while True:
                try:
                    fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if not said:
                        print(f"grade: waiting for GPU {name}: another grading is using it",
                              file=sys.stderr)
                        said = True
                    if self.give_up is None:
                        fcntl.flock(f, fcntl.LOCK_EX)
                        break
                    if self.give_up():
                        self.__exit__()
                        return self
                    time.sleep(0.2)
        self.acquired = True
        return self

    def __exit__(self, *exc):
        for f in reversed(self.files):
            fcntl.flock(f, fcntl.LOCK_UN)
            f.close()
        self.files = []


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
        # two graders at once each write and build their own copy, and one of them wins
        src = os.path.join(d, f"{ex.topic}-{os.getpid()}.cu")
        with open(src, "w") as f:
            f.write(text)
        tmp = f"{binary}.tmp{os.getpid()}"
        r = run(tc.command(src, tmp), d, 600, env=dict(os.environ))
        os.remove(src)
        if r.rc != 0:
            log = os.path.join(d, "compile.log")
            with open(log, "w") as f:
                f.write(r.output)
            first = first_error(r.output)
            raise GraderError(f"the reference solution of {ex.label} does not compile"
                              f"{': ' + first[:200] if first else ''} (the whole log: "
                              f"{os.path.relpath(log, ROOT)})")
        os.replace(tmp, binary)
    return binary


def first_error(log):
    """The first line of a compiler's log that says what went wrong (an error, an undefined
    reference at the link), or ""."""
    return next((l.strip() for l in log.split("\n")
                 if re.search(r"\berror\b|undefined reference", l, re.I)), "")


def verifier_binary(ex):
    """The chapter's own program, built from the repository by make: it checks what a
    submission dumped (--verify) and never runs the submission's code."""
    path = os.path.join(ROOT, "build", ex.topic)
    if not os.path.exists(path):
        raise GraderError(f"build/{ex.topic} is not built (make builds it)")
    return path


def cannot_run(verifier, ex, gpus=None):
    """Why the exercise's version cannot run here, or None. The chapter's program skips a
    version the GPU lacks the hardware for (06's wgmma versions before Hopper, its mma ones
    before Ampere), or the build lacks the code for (06 built for plain sm_90, not sm_90a), with
    a line "vN: skipped: why"; a grader there could check nothing, so it asks once, at the
    rubric's first correctness case, before any submission runs."""
    args = [*shlex.split(ex.rubric["correct"]["cases"][0]), "-v", ex.version, "--check-only",
            "--warmup", "0"]
    try:
        env = dict(os.environ, **({"CUDA_VISIBLE_DEVICES": ",".join(gpus)} if gpus else {}))
        p = subprocess.run([verifier, *args], capture_output=True, text=True, timeout=300, env=env)
    except subprocess.TimeoutExpired:
        raise GraderError(f"build/{ex.topic} {' '.join(args)} did not finish in 300 s") from None
    m = re.search(rf"^\s*{re.escape(ex.version)}: skipped: (.*)$", p.stdout, re.M)
    return m.group(1).strip() if m else None


def sanitizer():
    cs = shutil.which("compute-sanitizer") or os.path.join(
        os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "compute-sanitizer")
    if not os.path.exists(cs):
        raise GraderError("compute-sanitizer not found (it comes with the CUDA toolkit)")
    return cs


def student_user():
    """(user, note): whom students' programs run as, and a line for the report. A grader
    running as root runs them as an unprivileged user (sandbox.unprivileged: KL_GRADE_USER, or
    nobody) when that user can reach the GPU: build/gpuinfo, copied to a folder of its own, is
    run as it first. Otherwise they run as the grader does, and the note says why."""
    u = unprivileged()
    if u is None:
        who = "the grader's own user" if os.geteuid() != 0 else "root (no unprivileged user here)"
        return None, f"students' programs ran as {who}"
    if gpu_reason() is not None:
        return u, f"students' programs run as {u[0]}"  # nothing runs without a GPU anyway
    import tempfile
    d = tempfile.mkdtemp(prefix="kl-probe-")
    try:
        os.chmod(d, 0o711)
        probe = os.path.join(d, "gpuinfo")
        shutil.copy(os.path.join(ROOT, "build", "gpuinfo"), probe)
        os.chmod(probe, 0o755)
        r = run([probe], os.path.join(d, "run"), 60, user=u)
    finally:
        shutil.rmtree(d, ignore_errors=True)
    if r.rc != 0:
        first = (r.output.strip().split("\n") or [""])[0][:160]
        return None, f"students' programs ran as root: {u[0]} cannot reach the GPU here ({first})"
    return u, f"students' programs ran as {u[0]}, in folders of their own"
