"""submission.py: reading a student's submission: which file is its source (a .cu file, the kit
folder, or the kit one folder down in an unpacked archive), never a symbolic link, device or
pipe (another student's file, the reference, /dev/zero), and notes on what in it the grader
ignores (changed files of common/, a kit made from another version of the chapter).
"""
import glob
import hashlib
import json
import os
import stat

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
