#!/usr/bin/env python3
"""docs/colab.ipynb, checked without a GPU or Jupyter: it is a valid nbformat 4 notebook, each
code cell follows a text cell that says what it does and how long it takes, its Python parses,
and every command it runs exists: each `make` target is one the Makefile knows (make -n), each
build/ program is one it builds, and other commands are on the list a Colab GPU runtime has.
Prints PASS/FAIL lines."""
import json
import os
import re
import shlex
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NOTEBOOK = os.path.join(ROOT, "docs", "colab.ipynb")
# commands a Colab GPU runtime has besides what the repository builds
SYSTEM = {"nvidia-smi", "nvcc", "tail", "head", "grep", "git", "ls", "cat"}
failed = 0


def check(ok, what):
    global failed
    print(("PASS " if ok else "FAIL ") + what)
    failed += not ok


def text(cell):
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


with open(NOTEBOOK) as f:
    nb = json.load(f)

# the structure nbformat 4 requires (the nbformat package checks more where it is installed)
cells = nb.get("cells", [])
shape = (nb.get("nbformat") == 4 and isinstance(nb.get("nbformat_minor"), int)
         and isinstance(nb.get("metadata"), dict) and isinstance(cells, list) and cells)
for c in cells:
    shape = shape and c.get("cell_type") in ("markdown", "code") and isinstance(c.get("metadata"), dict)
    shape = shape and isinstance(c.get("source"), (str, list))
    if c.get("cell_type") == "code":
        shape = shape and c.get("outputs") == [] and c.get("execution_count") is None
ids = [c.get("id") for c in cells]
if nb.get("nbformat_minor", 0) >= 5:
    shape = shape and all(isinstance(i, str) and re.fullmatch(r"[A-Za-z0-9_-]{1,64}", i) for i in ids) \
        and len(set(ids)) == len(ids)
check(bool(shape), f"colab.ipynb: nbformat 4 with {len(cells)} cells, ids unique, outputs cleared")
try:
    import nbformat
    try:
        nbformat.validate(nbformat.reads(json.dumps(nb), as_version=4))
        check(True, "colab.ipynb: the nbformat package validates it")
    except nbformat.ValidationError as e:
        check(False, f"colab.ipynb: nbformat.validate: {str(e).splitlines()[0]}")
except ImportError:
    pass
meta = nb.get("metadata", {})
check(meta.get("accelerator") == "GPU" and meta.get("kernelspec", {}).get("name") == "python3",
      "colab.ipynb: asks Colab for a GPU runtime and a Python 3 kernel")

# each code cell: a text cell just before it says what it does and how long it takes
for i, c in enumerate(cells):
    if c["cell_type"] != "code":
        continue
    before = text(cells[i - 1]) if i > 0 and cells[i - 1]["cell_type"] == "markdown" else ""
    timed = re.search(r"\((a few seconds|a second|about [^)]*?(second|minute)s?\b[^)]*)\)", before)
    check(bool(timed), f"colab.ipynb cell {i}: the text before it gives its time "
                       f"({before.splitlines()[0] if before else 'no text cell'})")

# the shell lines (!...) and the Python around them
makefile_targets_ok = {}


def make_knows(args):
    key = " ".join(args)
    if key not in makefile_targets_ok:
        p = subprocess.run(["make", "-n", "--no-print-directory", *args], cwd=ROOT,
                           capture_output=True, text=True)
        makefile_targets_ok[key] = p.returncode == 0 or "No rule to make target" not in p.stderr
    return makefile_targets_ok[key]


for i, c in enumerate(cells):
    if c["cell_type"] != "code":
        continue
    python = []
    for line in text(c).split("\n"):
        if not line.startswith("!"):
            python.append(line)
            continue
        python.append("pass")
        shell = line[1:].split("2>&1")[0]
        for part in re.split(r"&&|\|\||\||;", shell):
            words = shlex.split(part)
            if not words:
                continue
            cmd = words[0]
            if cmd == "make":
                args = [w for w in words[1:] if not w.startswith("-j")]
                targets = [w for w in args if "=" not in w]
                ok = all(make_knows([t, *[w for w in args if "=" in w]]) for t in targets)
                check(ok, f"colab.ipynb cell {i}: make knows {' '.join(args)}")
            elif cmd.startswith("build/"):
                check(make_knows([cmd]), f"colab.ipynb cell {i}: the Makefile builds {cmd}")
            else:
                check(cmd in SYSTEM, f"colab.ipynb cell {i}: {cmd} is a command a Colab GPU runtime has")
    try:
        compile("\n".join(python), f"cell {i}", "exec")
        check(True, f"colab.ipynb cell {i}: its Python parses")
    except SyntaxError as e:
        check(False, f"colab.ipynb cell {i}: {e}")
    # paths it names in the repository exist (results and figures are made as it runs)
    for path in re.findall(r"\b((?:chapters|docs|plots|tests)/[\w./-]+)", text(c)):
        if "{" in path or path.startswith(("plots/results", "plots/figures")):
            continue
        check(os.path.exists(os.path.join(ROOT, path)), f"colab.ipynb cell {i}: {path} exists")

sys.exit(1 if failed else 0)
