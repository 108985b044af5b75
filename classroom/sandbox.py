"""sandbox.py: running a student's program, and its compile: in its own folder and process
session, with an environment that holds nothing of the grader's (child_env: no GRADE_SECRET) and
a private temporary folder inside its own, no core files and no file over 4 GiB, a time limit
that stops it with every process it started, and its output kept up to OUTPUT_CAP characters.
A grader running as root runs the student's program as an unprivileged user (run's `user`,
toolchain.student_user), so it cannot read the grader's files or another student's. This is not
a security boundary: GPU code cannot be sandboxed (docs/instructors.md, "What it does not
protect against").
"""
import os
import pwd
import resource
import signal
import subprocess
import time

OUTPUT_CAP = 6000      # characters of a program's output kept in a case's report


def child_env(home):
    """The environment a submission runs (and compiles) in: what CUDA needs, nothing else. The
    secret and everything else the grader was given stay out."""
    keep = ("PATH", "LD_LIBRARY_PATH", "CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "CUDA_HOME",
            "LANG")
    env = {k: os.environ[k] for k in keep if k in os.environ}
    tmp = os.path.join(home, "tmp")
    os.makedirs(tmp, exist_ok=True)
    env.update(HOME=home, TMPDIR=tmp)
    return env


_limited = False


def _limits():
    """No core files, no file beyond 4 GiB: set once on the grader itself, so that every program
    it starts inherits them. (Set in the child, between fork and exec, they would need a
    preexec_fn, which Python warns can deadlock a program with threads, as the grader is: it
    runs four cases at a time, and a class on several GPUs.)"""
    global _limited
    if not _limited:
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        hard = resource.getrlimit(resource.RLIMIT_FSIZE)[1]
        cap = 4 << 30 if hard == resource.RLIM_INFINITY else min(hard, 4 << 30)
        resource.setrlimit(resource.RLIMIT_FSIZE, (cap, cap))
        _limited = True


def unprivileged():
    """(name, uid, gid) of the user a root grader runs students' programs as: KL_GRADE_USER, or
    'nobody'; None when the grader is not root (it is unprivileged itself) or no such user."""
    if os.geteuid() != 0:
        return None
    name = os.environ.get("KL_GRADE_USER", "nobody")
    try:
        u = pwd.getpwnam(name)
    except KeyError:
        return None
    return (name, u.pw_uid, u.pw_gid) if u.pw_uid != 0 else None


def _give_to(folder, user):
    """The folder a program runs in, and everything in it, belongs to its user: it may write
    there and nowhere of the grader's."""
    _, uid, gid = user
    os.chown(folder, uid, gid)
    for top, dirs, files in os.walk(folder):
        for name in dirs + files:
            os.lchown(os.path.join(top, name), uid, gid)


class Run:
    def __init__(self, rc, output, seconds, timed_out):
        self.rc, self.output, self.seconds, self.timed_out = rc, output, seconds, timed_out


def run(cmd, cwd, timeout, env=None, user=None, gpus=None):
    """Runs cmd in its own session with a time limit; a hang is killed with everything it
    started. The output is kept up to OUTPUT_CAP characters (its head and its tail). With
    user, (name, uid, gid) from unprivileged(), it runs as that user, owning cwd. With gpus, a
    list of the grader's CUDA_VISIBLE_DEVICES entries (toolchain.gpu_groups), it sees those GPUs
    alone."""
    os.makedirs(cwd, exist_ok=True)
    env = env if env is not None else child_env(cwd)
    if gpus:
        env["CUDA_VISIBLE_DEVICES"] = ",".join(gpus)
    if user:
        _give_to(cwd, user)
        env["USER"] = env["LOGNAME"] = user[0]

    _limits()
    # as the user: no groups of the grader's, then its group, then the user (Popen does it in
    # that order, in the child, with no Python code between fork and exec)
    who = dict(user=user[1], group=user[2], extra_groups=[]) if user else {}
    log = os.path.join(cwd, f"output-{os.getpid()}-{time.monotonic_ns()}.log")
    t0 = time.monotonic()
    with open(log, "wb") as out:
        p = subprocess.Popen(cmd, cwd=cwd, stdout=out, stderr=subprocess.STDOUT,
                             stdin=subprocess.DEVNULL, env=env, start_new_session=True, **who)
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
