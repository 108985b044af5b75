"""submission.py: reading a student's submission: which file is its source (a .cu file, the kit
folder, or the kit one folder down in an unpacked archive), never a symbolic link, device or
pipe (another student's file, the reference, /dev/zero), notes on what in it the grader
ignores (changed files of common/, a kit made from another version of the chapter), and when it
was handed in (submitted_at: a git repository's commit time, else its newest file's time).
"""
import datetime
import glob
import hashlib
import json
import os
import stat
import subprocess

import source
from exercises import ROOT


def read_source(ex, sub, notes):
    """The submission's source text. `sub` is a .cu file, a kit folder or a kit one folder
    down; notes on what in it is ignored are added to `notes` (and kept where the submission
    is then refused). A RegionError says why there is nothing to grade."""
    path = sub
    links = [path.rstrip(os.sep) or path]  # what must not be a symbolic link
    if os.path.isdir(path):
        # the kit itself, or the kit one folder down (an unpacked archive)
        inner = [d for d in glob.glob(os.path.join(path, "*", ex.topic + ".cu"))]
        if not os.path.exists(os.path.join(path, ex.topic + ".cu")) and len(inner) == 1:
            path = os.path.dirname(inner[0])
            links.append(path)
        cu = os.path.join(path, ex.topic + ".cu")
        if not os.path.exists(cu):
            found = glob.glob(os.path.join(path, "*.cu"))
            if len(found) != 1:
                raise source.RegionError(f"no {ex.topic}.cu in the submission folder")
            cu = found[0]
        notes.extend(ignored_files(ex, path, cu))
        notes.extend(stale_kit(ex, path))
        path = cu
    links.append(path)
    linked = [p for p in links if os.path.islink(p)]
    if linked:
        raise source.RegionError(f"{linked[0]} is a symbolic link; a submission must be its "
                                 f"own files")
    data = read_regular(path, 4 << 20) if os.path.isfile(path) else None
    if data is None:
        raise source.RegionError(f"no submission at {sub}")
    return data.decode("utf-8", "replace")


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


def submitted_at(path):
    """(time, how) a submission was handed in: for a folder that is a git repository (a GitHub
    Classroom clone), the commit time of its HEAD, as git records it; for any other folder the
    modification time of its newest file (links and .git left out), for a file its own. (None,
    why) when there is none. Times are timezone-aware (UTC)."""
    utc = lambda t: datetime.datetime.fromtimestamp(t, datetime.timezone.utc)
    if os.path.isdir(path) and not os.path.islink(path) and os.path.exists(os.path.join(path, ".git")):
        # the repository's own settings are not trusted: no hooks, pager or fsmonitor run, and
        # a repository of another owner is read (safe.directory, on the command line)
        p = subprocess.run(["git", "-c", "safe.directory=*", "-c", "core.fsmonitor=false",
                            "--no-pager", "-C", path, "log", "-1", "--format=%ct %h", "HEAD"],
                           capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL,
                           env={"PATH": os.environ.get("PATH", ""), "GIT_CONFIG_NOSYSTEM": "1",
                                "GIT_CONFIG_GLOBAL": os.devnull, "HOME": os.devnull})
        words = p.stdout.split()
        if p.returncode == 0 and len(words) == 2:
            return utc(int(words[0])), f"the commit time of {words[1]}, its HEAD"
        return None, "a git repository whose HEAD has no commit git could read"
    if os.path.islink(path) or not os.path.exists(path):
        return None, "no such file"
    found = [path]
    if os.path.isdir(path):
        found = []
        for top, dirs, names in os.walk(path):
            dirs[:] = [d for d in dirs if d != ".git"]
            found += [os.path.join(top, n) for n in names]
    newest = None
    for f in found:
        st = os.lstat(f)
        if stat.S_ISREG(st.st_mode) and (newest is None or st.st_mtime > newest[0]):
            newest = (st.st_mtime, f)
    if newest is None:
        return None, "no file"
    name = os.path.relpath(newest[1], os.path.dirname(path.rstrip(os.sep)))
    return utc(newest[0]), f"the modification time of its newest file, {name}"
