"""submission.py: reading a student's submission: the file(s) holding its regions (the kit
folder, or the kit one folder down in an unpacked archive; the region file(s) alone, loose or in
a folder; or a kit of the earlier one-file layout), never a symbolic link, device or pipe
(another student's file, the reference, /dev/zero); notes on what in it the grader ignores, file
by file (changed lines outside the regions, changed files of common/, files the kit does not
have, a kit made from another version of the chapter), and when it was handed in (submitted_at:
a git repository's commit time, else its newest file's time).
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

LIMIT = 4 << 20  # bytes read of a submitted file


def read_submission(ex, sub, notes):
    """The submission's files that hold its regions, [(file name, text)], for source.splice.
    `sub` is a kit folder (or the kit one folder down), a folder holding the region file(s),
    or one file: a region file, or a kit of the earlier one-file layout (any .cu). Notes on
    what in it is ignored are added to `notes` (and kept where the submission is then
    refused). A RegionError says why there is nothing to grade."""
    kit = dict(ex.kit_files(False))
    program, holders = ex.topic + ".cu", ex.region_files()
    path, folder = sub, None
    links = [path.rstrip(os.sep) or path]  # what must not be a symbolic link
    if os.path.isdir(path):
        # the kit itself, or the kit one folder down (an unpacked archive)
        inner = kits_below(ex, path)
        if len(inner) > 1:
            raise source.RegionError(several_kits(inner))
        if len(inner) == 1:
            path = os.path.join(path, inner[0])
            links.append(path)
        folder = path
        if all(os.path.lexists(os.path.join(folder, n)) for n in holders):
            names = holders  # this layout: the region files
        elif os.path.lexists(os.path.join(folder, program)):
            names = [program]  # a kit of one file
        else:
            found = sorted(glob.glob(os.path.join(folder, "*.cu")) +
                           glob.glob(os.path.join(folder, "*.cuh")))
            if len(found) > 1:
                raise source.RegionError(
                    f"no {' or '.join(holders)} in the submission folder, and {len(found)} other "
                    f"source files ({', '.join(os.path.basename(f) for f in found[:4])}"
                    f"{', ...' if len(found) > 4 else ''}): hand in {' and '.join(holders)}")
            if not found:
                raise source.RegionError(f"no {' or '.join(holders)} in the submission folder "
                                         f"(the file that holds the regions)")
            names = [os.path.basename(found[0])]
            # a lone file of another name (v1-tiled.cuh): graded as the one it stands for, said
            stands_for = holders[0] if names[0].endswith(".cuh") and len(holders) == 1 else \
                f"{program} (a kit of one file)"
            notes.append(f"read {names[0]} as {stands_for}, the only source file there")
        paths = [os.path.join(folder, n) for n in names]
    else:
        paths = [path]
    links += paths
    linked = [p for p in links if os.path.islink(p)]
    if linked:
        raise source.RegionError(f"{linked[0]} is a symbolic link; a submission must be its "
                                 f"own files")
    pieces, raw = [], []
    for p in paths:
        data = read_regular(p, LIMIT + 1) if os.path.isfile(p) else None
        if data is None:
            raise source.RegionError(f"no submission at {sub}")
        if len(data) > LIMIT:  # cut, it would be graded as what it is not
            raise source.RegionError(f"{os.path.basename(p)} is {mib(os.path.getsize(p))} MiB; "
                                     f"the grader reads at most {LIMIT >> 20} MiB")
        pieces.append((os.path.basename(p), data.decode("utf-8", "replace")))
        raw.append((os.path.basename(p), data))
    if not any(source.MARK.match(l) and source.MARK.match(l).group(1) == ex.name
               for _, text in pieces for l in text.split("\n")):
        for name, data in raw:
            try:
                data.decode("utf-8")
            except UnicodeDecodeError:
                raise source.RegionError(f"{name} is not a text file (it is not UTF-8): hand in "
                                         f"the source of {' and '.join(holders)}") from None
        raise source.RegionError(f"no region of exercise {ex.name} in the submission: hand in "
                                 f"{' and '.join(holders)} (the file holding the regions) or the "
                                 f"kit folder")
    changed = [f"{name} lines {lines}" for name, lines in
               ((name, source.changed_lines(kit_file(ex, kit, name, holders), text, ex.name))
                for name, text in pieces) if lines]
    if folder:
        changed += ignored_files(ex, folder, kit, [n for n, _ in pieces])
        notes.extend(stale_kit(ex, folder))
    if changed:
        notes.append("changes outside the exercise's regions are ignored (the kit's own text is "
                     "used): " + "; ".join(changed))
    return pieces


def kits_below(ex, path):
    """The folders one level down in the folder `path` that hold a kit (an unpacked archive:
    alice/tiled-kit/), by name; none when `path` holds the kit's files itself."""
    kit = [n for n, _ in ex.kit_files(False)]
    here = lambda d: any(os.path.lexists(os.path.join(d, n)) for n in kit)
    if here(path):
        return []
    return sorted(os.path.basename(d.rstrip(os.sep))
                  for d in glob.glob(os.path.join(path, "*", "")) if here(d))


def several_kits(inner):
    """Why a folder with several kits one folder down is not graded: which of them to keep is the
    student's to say, not the grader's."""
    return f"{len(inner)} kits one folder down ({', '.join(inner)}): keep one"


def mib(size):
    """A size in MiB for a message: one decimal below 10 MiB."""
    return f"{size / (1 << 20):.0f}" if size >= 10 << 20 else f"{size / (1 << 20):.1f}"


def kit_file(ex, kit, name, holders):
    """The kit's text a submitted file is compared with: the kit's file of that name; a loose
    .cuh of another name is the region file (where there is one); any other file is a kit of
    the earlier one-file layout, the kit's source as one text."""
    if name in kit and name != ex.topic + ".cu":
        return kit[name]
    if name.endswith(".cuh") and len(holders) == 1:
        return kit[holders[0]]
    return ex.kit_source(False)


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
        made = json.loads(data.decode()) if data else {}
        sha = made.get("source_sha256")
    except (ValueError, AttributeError):
        return []
    now = hashlib.sha256(ex.kit_source(False).encode()).hexdigest()
    if sha and sha != now:
        what = "another version of the chapter" if "files" in made else \
            "an earlier grader (a kit of one file) or another version of the chapter"
        return [f"the kit was made by {what} than the one graded now: the regions are graded in "
                f"today's kit (a fresh kit would show the differences)"]
    return []


def ignored_files(ex, folder, kit, read):
    """What else of a kit folder differs from the kit's own: its other source files (the lines
    changed), files of common/, and source files the kit does not have; the grader uses none."""
    out = []
    for name in kit:
        p = os.path.join(folder, name)
        if name in read or not os.path.isfile(p) or os.path.islink(p):
            continue
        data = read_regular(p, LIMIT)
        lines = source.changed_lines(kit[name], data.decode("utf-8", "replace"), ex.name) \
            if data is not None else "all"
        if lines:
            out.append(f"{name} lines {lines}")
    kit_common = os.path.join(ROOT, "common")
    for path in sorted(glob.glob(os.path.join(folder, "common", "*"))):
        mine = os.path.join(kit_common, os.path.basename(path))
        size = os.path.getsize(mine) if os.path.isfile(mine) else -1
        theirs = read_regular(path, size + 1) if size >= 0 else None
        if theirs is None or theirs != read_regular(mine, size + 1):
            out.append(os.path.relpath(path, folder))
    extra = sorted(os.path.basename(p) for e in ("*.cu", "*.cuh", "*.h")
                   for p in glob.glob(os.path.join(folder, e)))
    extra = [n for n in extra if n not in kit and n not in read]
    if extra:
        out.append("files the kit does not have: " + ", ".join(extra))
    return out


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
