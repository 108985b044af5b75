"""Planted submissions: region bodies written to be graded a known way (classroom/plants/NAME.cu),
most of them wrong on purpose, and how a body is put into a kit as a student would hand it in.
make grade-sample grades some of them (SAMPLE_PLANTS in grade.py) beside the reference and the
untouched kit; the grader's own tests (tests/classroom) grade them all and check each one's
score."""
import os

import source

PLANTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "plants")


def names():
    """Every plant's name, sorted (the NAME of classroom/plants/NAME.cu)."""
    return sorted(f[:-3] for f in os.listdir(PLANTS) if f.endswith(".cu"))


def plant(name):
    """A planted region body: (exercise label, body as a list of lines). The file's first line
    names the exercise ("// 01-transpose/tiled ...")."""
    with open(os.path.join(PLANTS, name + ".cu")) as f:
        text = f.read()
    return text.split("\n")[0][3:].split()[0], text.rstrip("\n").split("\n")


def with_bodies(text, exercise, bodies):
    """`text` (a kit's source) with region i's body replaced by bodies[i] (a list of lines)."""
    lines = text.split("\n")
    for i, r in reversed(list(enumerate(source.regions(lines, exercise)))):
        if i in bodies:
            lines[r.begin + 1:r.end] = bodies[i]
    return "\n".join(lines)


def sub_files(ex, text):
    """The kit's source files (make starter's) with the region bodies of `text` (a kit's source
    as one text, as kit_source gives it) in the file(s) that hold the regions."""
    lines = text.split("\n")
    bodies = [r.body(lines) for r in source.regions(lines, ex.name)]
    out = []
    for name, t in ex.kit_files(False):
        n = len(source.regions(t.split("\n"), ex.name))
        if n:
            t = with_bodies(t, ex.name, dict(enumerate(bodies[:n])))
            bodies = bodies[n:]
        out.append((name, t))
    return out


def write_sub(folder, ex, text, layout="kit"):
    """A submission of `text` (a kit's source as one text, with region bodies in it) in
    `folder`, laid out as "kit" (the kit's source files, as make starter writes them), "regions"
    (the file(s) holding the regions, alone) or "one-file" (the earlier layout: one .cu)."""
    os.makedirs(folder, exist_ok=True)
    files = [(ex.topic + ".cu", text)] if layout == "one-file" else sub_files(ex, text)
    for name, t in files:
        if layout != "regions" or name in ex.region_files():
            with open(os.path.join(folder, name), "w") as f:
                f.write(t)
    return folder
