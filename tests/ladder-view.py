#!/usr/bin/env python3
"""What `make diff` shows of a version file: the file, and the code it runs from an earlier
version's file. A step that reuses an earlier kernel holds only what changes (02's v7 launches
v6's kernel with deeper tiles; v9 wraps v8's loop in a bound), so a plain diff of the two files
would show the kernel leaving. Here such a file is shown with the definitions it takes from
earlier version files put back, unchanged and marked, before its own first definition: the diff
then shows the one change.

    ladder-view.py A B OUT_A OUT_B [BEFORE]   the step from file A to file B as a reader should
        see it, into OUT_A and OUT_B; BEFORE: the file of the step before A's own, if any
"""
import re
import sys

STARTS = ("template", "__global__", "__device__", "static", "struct", "constexpr")
NOT_NAMES = {"__launch_bounds__", "__align__", "sizeof", "decltype", "if", "for", "static_assert"}
IDENT = re.compile(r"[A-Za-z_]\w*")


def blocks(lines):
    """[(name, first, start, end)]: each top-level definition, its leading comment from `first`,
    its code from `start` to `end` (exclusive)."""
    out, i = [], 0
    while i < len(lines):
        if not lines[i].startswith(STARTS):
            i += 1
            continue
        start, depth, opened, j, head = i, 0, False, i, ""
        while j < len(lines):
            code = lines[j].split("//")[0]
            if not opened:
                head += " " + code.split("{")[0]
            depth += code.count("{") - code.count("}")
            opened = opened or "{" in code
            j += 1
            if (opened and depth <= 0) or (not opened and code.rstrip().endswith(";")):
                break
        m = re.search(r"\bstruct\s+(\w+)", head)
        names = [n for n in re.findall(r"([A-Za-z_]\w*)\s*\(", head) if n not in NOT_NAMES]
        name = m.group(1) if m else (names[0] if names else None)
        first = start
        while first > 0 and lines[first - 1].startswith("//") and not lines[first - 1].startswith("// ----"):
            first -= 1
        if name:
            out.append((name, first, start, j))
        i = j
    return out


def used(lines, lo=0, hi=None):
    text = "\n".join(l.split("//")[0] for l in lines[lo:hi])
    return set(IDENT.findall(text))


def pulled(lines, earlier, files):
    """{name: file}: what `lines` runs from the `earlier` files and does not define, with what
    that needs in turn."""
    own = {b[0] for b in blocks(lines)}
    defs = {}  # name -> (file, block), the nearest earlier file that defines it
    for f in earlier:
        for b in blocks(files[f]):
            defs[b[0]] = (f, b)
    want, todo = {}, sorted(used(lines) & set(defs) - own)
    while todo:
        name = todo.pop()
        if name in want:
            continue
        f, b = defs[name]
        want[name] = f
        todo += sorted(used(files[f], b[2], b[3]) & set(defs) - own - set(want))
    return want


def shown(lines, want, earlier, files):
    """lines with the blocks in `want` put back before their first definition, marked."""
    mine = blocks(lines)
    if not want or not mine:
        return lines
    taken = []
    for f in earlier:  # in the files' order, each block as it stands there
        for name, first, start, end in blocks(files[f]):
            if want.get(name) == f:
                taken.append((f, name, files[f][first:end]))
    at = mine[0][2]
    names = ", ".join(n for _, n, _ in taken)
    srcs = ", ".join(sorted({f.rsplit("/", 1)[-1] for f, _, _ in taken}))
    put = [f"// [shown by make diff, not in this file: {names}, unchanged from {srcs}]"]
    for _, _, body in taken:
        put += body + [""]
    return lines[:at] + put + lines[at:]


def main():
    a, b, out_a, out_b, before = sys.argv[1:5] + [sys.argv[5:]]
    files = {f: open(f).read().split("\n") for f in [a, b] + before}
    # B takes from A and from the step before A's own; A from that step
    want_b = pulled(files[b], before + [a], files)
    want_a = pulled(files[a], before, files)
    with open(out_a, "w") as f:
        f.write("\n".join(shown(files[a], want_a, before, files)))
    with open(out_b, "w") as f:
        f.write("\n".join(shown(files[b], want_b, before + [a], files)))


if __name__ == "__main__":
    main()
