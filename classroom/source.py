"""source.py: what the grader reads in a chapter's source, and the texts it writes from it.

A chapter's program (topic.cu) includes its version files and shared pieces (v01-tiled.cuh,
tiles.cuh); the grader reads it as one text with each line's file (program_lines), as
  - sections: a line "// ---- TITLE ----", one a file. A version's code sits in the section
    titled "vN idea"; a shared section that serves later versions says so in its title,
    "(vN on)"; a variant with code of its own (an experiment on a version, "v1-transposed") sits
    in a section whose title starts with a variant's tag, with its launcher;
  - version tables: "static const version NAME[] = {" up to "};", one row a line;
  - exercise regions: the whole body of one function, between the lines
    "// EXERCISE: NAME begin" and "// EXERCISE: NAME end".
From these it writes a starter kit (kit_lines: every later version's file left out, with its
rows and header lines, the regions replaced by a stub; kit_files: the kit's program and the
files it keeps, each unchanged but for the stubs) and a graded source (splice: the kit as one
text with the submission's regions put in; changed_lines: what else a submitted file changed).
What a region may contain is decided by check_region(), token by token: a region in a GPU
function is device code and cannot reach the host; a region in a host function (a launcher) may
only use the names the reference solution's region uses, and the ones it declares itself.
"""
import difflib
import os
import re
from dataclasses import dataclass, field

SECTION = re.compile(r"^// ---- (.+?) -+$")
MARK = re.compile(r"^\s*// EXERCISE: ([a-z0-9][a-z0-9-]*) (begin|end)\b")
TABLE_START = re.compile(r"^static const version (\w+)\[\] = \{\s*$")
ROW = re.compile(r'^\s*\{"([^"]+)", "([^"]*)", (\w+), ([^}]*)\},?\s*(//.*)?$')  # a comment may follow
SERVES = re.compile(r"\(([a-z]\d+[a-w]?) on\)")  # "(v5 on)", a sub-step's "(v4a on)", 04's "(c4 on)"
INCLUDE = re.compile(r'^#include [<"]')
KERNEL = re.compile(r"__global__\s+(?:void\s+)?(?:__launch_bounds__\s*\([^)]*\)\s*)?(?:void\s+)?(\w+)\s*\(")


class SourceError(Exception):
    """The chapter source does not have the shape the grader needs (an author's mistake)."""


class RegionError(Exception):
    """A submission's region breaks a rule; the message is for the student."""


@dataclass
class Row:
    tag: str
    idea: str
    launcher: str
    baseline: bool
    line: int      # index into the lines
    table: str


@dataclass
class Region:
    name: str
    begin: int     # index of the begin marker line
    end: int       # index of the end marker line
    function: str = ""
    device: bool = False
    returns_void: bool = True
    params: list = field(default_factory=list)

    def body(self, lines):
        return lines[self.begin + 1:self.end]


# ---- reading ------------------------------------------------------------------------------------

LOCAL_INCLUDE = re.compile(r'^#include "([A-Za-z0-9][A-Za-z0-9._-]*\.cuh)"\s*$')


def program_lines(path):
    """(line, file) of each line of a chapter program with its own files put in place: each line
    `#include "F.cuh"` naming a file beside it (a version's file, or a piece several versions
    share) becomes that file's lines, each paired with F; the program's own lines are paired
    with None. Headers from common/ are not beside it and stay includes."""
    folder = os.path.dirname(path)
    with open(path) as f:
        lines = f.read().split("\n")
    out = []
    for line in lines:
        m = LOCAL_INCLUDE.match(line)
        inner = os.path.join(folder, m.group(1)) if m else None
        if inner and os.path.isfile(inner):
            with open(inner) as f:
                out.extend((l, m.group(1)) for l in f.read().rstrip("\n").split("\n"))
        else:
            out.append((line, None))
    return out


def flatten(path):
    """A chapter program's text with its own files put in place (program_lines): one source, as
    the compiler sees it."""
    return "\n".join(line for line, _ in program_lines(path))


def kit_files(pairs, program):
    """A kit's files from its lines and where each came from (kit_lines): [(name, text)], the
    program first, holding an #include line where each of the other files began."""
    files = {program: []}
    for line, origin in pairs:
        if origin is not None and origin not in files:
            files[program].append(f'#include "{origin}"')
            files[origin] = []
        files[origin or program].append(line)
    return [(name, "\n".join(lines) + ("" if name == program else "\n"))
            for name, lines in files.items()]


def version_rows(lines):
    """Every row of every version table, in order."""
    rows, table = [], None
    for i, line in enumerate(lines):
        m = TABLE_START.match(line)
        if m:
            table = m.group(1)
            continue
        if table and line.startswith("};"):
            table = None
        elif table:
            r = ROW.match(line)
            if r:
                rows.append(Row(r.group(1), r.group(2), r.group(3), "KL_BASELINE" in r.group(4),
                                i, table))
    return rows


def sections(lines):
    """(title, first line, end) of each section; a section runs to the next title."""
    heads = [(i, SECTION.match(l).group(1)) for i, l in enumerate(lines) if SECTION.match(l)]
    out = []
    for k, (i, title) in enumerate(heads):
        end = heads[k + 1][0] if k + 1 < len(heads) else len(lines)
        out.append((title, i, end))
    return out


def _signature(lines, brace_line):
    """The text of the function header that ends with the '{' on lines[brace_line]."""
    parts, i = [], brace_line
    while i >= 0:
        s = lines[i].strip()
        if i < brace_line and (not s or s.startswith("//") or s.endswith(";") or s.endswith("}")
                               or s.startswith("#")):
            break
        parts.insert(0, lines[i])
        i -= 1
    text = "\n".join(parts)
    return text[:text.rindex("{")]


def _parse_function(sig):
    """(name, is device code, returns void, parameter names) of a function header."""
    close = sig.rindex(")")
    depth, open_ = 0, None
    for j in range(close, -1, -1):
        depth += {")": 1, "(": -1}.get(sig[j], 0)
        if depth == 0:
            open_ = j
            break
    head = sig[:open_]
    name = re.findall(r"(\w+)\s*$", head)[0]
    params = []
    for p in _split_top(sig[open_ + 1:close]):
        p = p.split("=")[0].strip()
        ids = re.findall(r"[A-Za-z_]\w*", p)
        if ids and p != "void":
            params.append(ids[-1])
    rest = re.sub(r"template\s*<[^>]*>", " ", head[:head.rindex(name)])
    rest = re.sub(r"__launch_bounds__\s*\([^)]*\)", " ", rest)
    device = bool(re.search(r"\b__(global|device)__\b", rest)) and "__host__" not in rest
    kind = set(re.findall(r"\w+", rest)) - {"static", "inline", "__forceinline__", "__noinline__",
                                            "__global__", "__device__", "__host__", "extern"}
    return name, device, kind == {"void"}, params


def _split_top(text):
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch in "([<{":
            depth += 1
        elif ch in ")]>}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur)
    return out


def regions(lines, name=None):
    """The exercise regions (of one exercise, or of all), in order, with their functions."""
    out = []
    for ex, begin, end in _marks(lines, SourceError):
        r = Region(ex, begin, end)
        if not lines[begin - 1].rstrip().endswith("{") or lines[end + 1].strip() != "}":
            raise SourceError(f"lines {begin + 1}-{end + 1}: a region must be the whole body of "
                              f"one function, from its '{{' to its '}}'")
        sig = _signature(lines, begin - 1)
        r.function, r.device, r.returns_void, r.params = _parse_function(sig)
        out.append(r)
    return [r for r in out if name is None or r.name == name]


def _marks(lines, error):
    """(name, begin, end) of each region marked in `lines`; a marker out of place raises
    `error` (SourceError in the chapter, RegionError in a submission)."""
    out, open_ = [], None
    for i, line in enumerate(lines):
        m = MARK.match(line)
        if not m:
            continue
        name, what = m.groups()
        if what == "begin":
            if open_:
                raise error(f"line {i + 1}: region '{name}' begins inside region '{open_[0]}' "
                            f"(line {open_[1] + 1}): regions do not nest")
            open_ = (name, i)
        else:
            if not open_ or open_[0] != name:
                raise error(f"line {i + 1}: 'EXERCISE: {name} end' without its begin")
            out.append((name, open_[1], i))
            open_ = None
    if open_:
        raise error(f"line {open_[1] + 1}: region '{open_[0]}' is never ended")
    return out


def type_names(text):
    """Names the source declares as types: typedefs, structs, and aliases."""
    names = set(re.findall(r"\}\s*(\w+)\s*;", text))  # typedef struct { ... } NAME;
    names |= set(re.findall(r"\bstruct\s+(\w+)", text))
    names |= set(re.findall(r"\btypedef\b[^;{]*?\b(\w+)\s*;", text))
    names |= set(re.findall(r"\busing\s+(\w+)\s*=", text))
    return names


# ---- the kit's source ---------------------------------------------------------------------------

def experiment_tags(lines, rows):
    """The variants with code of their own: rows whose launcher is defined in a section whose
    title starts with a variant's tag ("v0-transposed and v1-transposed: ..."). A variant that
    times a version another way ("v1-e2e") calls the version's launcher and has no section."""
    variants = {r.tag for r in rows if "-" in r.tag}
    by_launcher = {r.launcher: r.tag for r in rows if "-" in r.tag}
    out = set()
    for title, first, end in sections(lines):
        if title.split()[0] not in variants:
            continue
        for line in lines[first:end]:
            m = re.match(r"^static void (\w+)\(", line)
            if m and m.group(1) in by_launcher:
                out.add(by_launcher[m.group(1)])
    return out


def dropped_rows(rows, tag, experiments=frozenset()):
    """The rows a kit for version `tag` leaves out: the later rows of its table, except
    baselines and the variants of kept versions ("v1-e2e" stays with v1). A later variant that
    is an experiment (`experiments`, from experiment_tags) goes too: its kernel is written
    from a version's code, so a kit for that version would hold the answer."""
    mine = [r for r in rows if r.tag == tag]
    if not mine:
        raise SourceError(f"no version '{tag}' in any version table")
    table = [r for r in rows if r.table == mine[0].table]
    i = table.index(mine[0])
    kept = {r.tag for r in table[:i + 1]}
    return [r for r in table[i + 1:] if not r.baseline
            and (r.tag.split("-")[0] not in kept or r.tag in experiments)]


def kit_lines(text, exercise, tag, solution, note, program=None, also_drop=(), origins=None):
    """The source a kit for `exercise` (version `tag`) gets, as (line, file) pairs (the file a
    line came from, in `origins`, one a line of `text`; None: the program): every version after
    `tag` left out, and this exercise's regions holding a stub (or, with solution=True, the
    reference solution). `note` is the comment put on top. also_drop names versions of the
    chapter's other parts (another version table) that are exercises of their own: they and the
    versions after them are left out too, so one kit does not hold another's answer. Header
    lines about other programs (`make build/matmul-f64`) go. A file the kit keeps is kept whole,
    but for the stubs: a SourceError says where that does not hold."""
    lines = text.split("\n")
    origins = origins or [None] * len(lines)
    rows = version_rows(lines)
    experiments = experiment_tags(lines, rows)
    drop = dropped_rows(rows, tag, experiments)
    for other in also_drop:
        drop += ([r for r in rows if r.tag == other and not r.baseline]
                 + dropped_rows(rows, other, experiments))
    tags = {r.tag for r in drop}
    launchers = {r.launcher for r in drop}
    gone = set()
    kernels = set()
    for title, first, end in sections(lines):
        word = title.split()[0]
        serves = SERVES.search(title)
        if word in tags or (serves and serves.group(1) in tags):
            # a section in a file of its own ends with the file
            mine = [i for i in range(first, end) if origins[i] == origins[first]]
            gone.update(mine)
            kernels.update(KERNEL.findall("\n".join(lines[i] for i in mine)))
    uses = re.compile(r"\b(%s)\b" % "|".join(sorted(launchers))) if launchers else None
    for i, line in enumerate(lines):
        if i not in gone and uses and uses.search(line):
            gone.add(i)
    gone |= _header_entries(lines, tags)
    gone |= _empty_labels(lines, gone)
    mine = regions(lines, exercise)
    if not mine:
        raise SourceError(f"no region is marked 'EXERCISE: {exercise} begin'")
    stubs, bodies = {}, set()
    if not solution:
        for r in mine:
            stubs[r.begin] = stub(r)
            bodies.update(range(r.begin + 1, r.end))
    for name in {o for o in origins if o}:
        where = [i for i, o in enumerate(origins) if o == name]
        changed = [i for i in where if i in gone]
        if changed and len(changed) < len(where):
            raise SourceError(f"a kit for '{exercise}' keeps {name} but would change its line "
                              f"{changed[0] - where[0] + 1}: a file goes into a kit whole or not at all")
    gone |= bodies
    # the header's example commands name only versions, and programs, that the kit has
    for i in range(len(lines)):
        if not lines[i].startswith("//"):
            break
        lines[i] = re.sub(r"-v ([\w,-]+)", lambda m: "-v " + (",".join(
            t for t in m.group(1).split(",") if t not in tags) or tag), lines[i])
        if program and any(p != program for p in re.findall(r"build/([\w-]+)", lines[i])):
            gone.add(i)
    last_include = max(i for i, l in enumerate(lines) if INCLUDE.match(l))
    out = [(f"// {l}".rstrip(), None) for l in note.split("\n")] + [("//", None)]
    for i, line in enumerate(lines):
        if i not in gone:
            out.append((line, origins[i]))
        if i in stubs:
            out.extend((l, origins[i]) for l in stubs[i])
        if i == last_include:
            out.append(('#include "exercise.cuh"', None))
    kept = "\n".join(line for line, _ in out)
    for k in sorted(kernels):
        if re.search(r"\b%s\b" % k, kept):
            raise SourceError(f"the kit for '{exercise}' leaves out {k} but still uses it")
    return out


def _header_entries(lines, tags):
    """The header comment's lines about versions in `tags`, with their continuation lines. A
    line may name several ("v12-lag1, v12-lag3  experiments: ..."): it goes when one of them
    does."""
    gone = set()
    i = 0
    while i < len(lines) and lines[i].startswith("//"):
        m = re.match(r"^//(\s+)((?:\S+,\s+)*\S+)\s", lines[i])
        if m and any(t in tags for t in re.split(r",\s+", m.group(2).rstrip(","))):
            gone.add(i)
            indent = len(m.group(1))
            j = i + 1
            while j < len(lines) and re.match(r"^//\s{%d,}\S" % (indent + 2), lines[j]):
                gone.add(j)
                j += 1
            i = j
            continue
        i += 1
    return gone


def _empty_labels(lines, gone):
    """The comment lines of a version table that label a group of rows ("// experiments on
    v10: ...") whose rows are all in `gone`: a label with nothing under it names what the kit
    leaves out."""
    out, table, label, rows = set(), False, [], []

    def close():
        if label and rows and all(r in gone for r in rows):
            out.update(label)

    for i, line in enumerate(lines):
        if TABLE_START.match(line):
            table, label, rows = True, [], []
        elif table and line.startswith("};"):
            close()
            table = False
        elif table and line.strip().startswith("//"):
            if rows:  # a new group begins
                close()
                label, rows = [], []
            label.append(i)
        elif table and ROW.match(line):
            rows.append(i)
    return out


def stub(r):
    """What stands in a kit for a region: it builds, says it is not written, and fails."""
    body = [f"    // Your code: the body of {r.function} (README.md says what it must do).",
            f'    kl_exercise_todo("{r.name}");']
    if r.params:
        body.append("    " + ", ".join(f"(void){p}" for p in r.params) + ";")
    if not r.returns_void:
        body.append("    return {};")
    return body


# ---- splicing a submission in -------------------------------------------------------------------

def splice(kit, solution, pieces, exercise, type_words):
    """The graded source: `kit` (the kit's source as one text, with stubs) with the bodies of
    the submission's regions in place of the stubs. `pieces`: [(file name, text)], the
    submission's files that hold its regions, in the kit's order (the region files, or a kit
    of one file). Raises RegionError when the regions cannot be taken. `solution` is the kit
    with the reference's regions, whose host regions give the names a submission's host region
    may use. What changed outside the regions is changed_lines'."""
    kl, sl = kit.split("\n"), solution.split("\n")
    want = regions(kl, exercise)
    ref = regions(sl, exercise)
    got = []  # (file name, its lines, begin, end) of each region, in order
    for name, text in pieces:
        ul = text.split("\n")
        got += [(name, ul, b, e) for n, b, e in _marks(ul, RegionError) if n == exercise]
    if len(got) != len(want):
        raise RegionError(f"the submission has {len(got)} region(s) marked "
                          f"'EXERCISE: {exercise} begin/end'; the exercise has {len(want)}: "
                          f"keep the marker lines as the kit has them")
    out, pos = [], 0
    for k, (w, rr, (name, ul, b, e)) in enumerate(zip(want, ref, got)):
        body = ul[b + 1:e]
        where = f"region {k + 1} (the body of {w.function}, {name} lines {b + 2}-{e})"
        try:
            check_region("\n".join(body), w.device, rr.body(sl), type_words)
        except RegionError as err:
            raise RegionError(f"{where}: {err}") from None
        out.extend(kl[pos:w.begin + 1])
        out.extend(body)
        pos = w.end
    out.extend(kl[pos:])
    return "\n".join(out)


def changed_lines(kit, text, exercise):
    """The lines of a submitted file (`text`) outside the exercise's regions that differ from
    the kit's file (`kit`), as '3-5, 88', or '' when none do. Marker lines of other exercises
    are left out of the comparison (a kit of the earlier one-file layout had none)."""
    def outside(lines):
        spans = [(b, e) for n, b, e in _marks(lines, RegionError) if n == exercise]
        keep, pos = [], 0
        for b, e in spans + [(len(lines), len(lines))]:
            keep.extend((i, lines[i].rstrip()) for i in range(pos, min(b + 1, len(lines)))
                        if not (MARK.match(lines[i]) and MARK.match(lines[i]).group(1) != exercise))
            pos = e
        return keep
    sub = text.split("\n")
    a, b = outside(kit.split("\n")), outside(sub)
    sm = difflib.SequenceMatcher(None, [t for _, t in a], [t for _, t in b], autojunk=False)
    spans = []
    for op, i1, i2, j1, j2 in sm.get_opcodes():
        if op == "equal":
            continue
        if j2 > j1:
            first, last = b[j1][0] + 1, b[j2 - 1][0] + 1
        else:  # lines deleted: name the submission line where they were
            first = last = (b[j1][0] + 1) if j1 < len(b) else len(sub)
        spans.append(str(first) if first == last else f"{first}-{last}")
    return ", ".join(spans)


# ---- what a region may contain ------------------------------------------------------------------

KEYWORDS = {"auto", "bool", "break", "char", "const", "constexpr", "continue", "do", "double",
            "else", "false", "float", "for", "if", "int", "long", "nullptr", "return", "short",
            "signed", "sizeof", "static_cast", "true", "unsigned", "void", "while"}
TYPE_WORDS = {"auto", "bool", "char", "const", "double", "float", "int", "long", "short",
              "signed", "unsigned", "size_t", "dim3", "int32_t", "int64_t", "uint32_t",
              "uint64_t", "uint8_t", "constexpr"}
# Names any host region may use besides its reference's: the harness's checks and helpers,
# and the kit's stub.
HOST_NAMES = KEYWORDS | TYPE_WORDS | {"CHECK", "CHECK_LAUNCH", "ceil_div", "round_up", "size_mul",
                                      "min", "max", "kl_exercise_todo"}
DIGRAPHS = ("<%", "%>", "<:", ":>", "%:")
# Storage that outlives a launch: with it a kernel could do its work once and hand back the
# stored result in later launches. A kernel body needs none of it (`constexpr` for constants).
DEVICE_STATE = {"static", "__device__", "__managed__", "__constant__", "thread_local"}
PRAGMA = re.compile(r"^#\s*pragma\s+(unroll(\s+[\w\s()+\-*]+)?|nounroll)\s*$")


def tokens(code):
    """C++ tokens of a region: (kind, text) with kind in ident, number, string, punct,
    directive. Raises RegionError for what could reach outside the region: an unterminated
    comment or literal, unbalanced brackets, digraphs, trigraphs, line splices."""
    # The lexer below must see the lines the compiler sees. The compiler ends a line at a lone
    # carriage return too, and joins lines at a backslash followed by spaces and a line end;
    # either would let a // comment hide code from this lexer.
    if re.search(r"\\[ \t\f\v]*(\r?\n|\r|$)", code):
        raise RegionError("a backslash at the end of a line (a line splice) is not allowed here")
    bad = re.search(r"\r(?!\n|$)|[\x00-\x08\x0e-\x1f\x7f]", code)
    if bad:
        why = " (alone, it ends a line for the compiler)" if bad.group(0) == "\r" else ""
        raise RegionError(f"the control character {bad.group(0)!r} is not allowed here{why}")
    if re.search(r"\?\?[=/'()!<>\-]", code):
        raise RegionError("trigraphs ('??=' and the like) are not allowed here")
    out, stack, i, n = [], [], 0, len(code)
    line_start = True
    pairs = {")": "(", "]": "[", "}": "{"}
    while i < n:
        c = code[i]
        if c == "\n":
            line_start = True
            i += 1
            continue
        if c in " \t\r\f\v":
            i += 1
            continue
        if code.startswith("//", i):
            i = code.find("\n", i)
            i = n if i < 0 else i
            continue
        if code.startswith("/*", i):
            j = code.find("*/", i + 2)
            if j < 0:
                raise RegionError("a /* comment is not closed inside the region")
            i = j + 2
            continue
        if c == "#":
            if not line_start:
                raise RegionError("'#' is only allowed to begin '#pragma unroll'")
            j = code.find("\n", i)
            j = n if j < 0 else j
            out.append(("directive", code[i:j].strip()))
            i = j
            continue
        line_start = False
        m = re.compile(r"(u8|u|U|L)?R\"([^()\\ ]{0,16})\(").match(code, i)
        if m:  # raw string literal
            end = code.find(")" + m.group(2) + '"', m.end())
            if end < 0:
                raise RegionError("a raw string literal is not closed inside the region")
            out.append(("string", code[i:end + len(m.group(2)) + 2]))
            i = end + len(m.group(2)) + 2
            continue
        m = re.compile(r"(u8|u|U|L)?([\"'])").match(code, i)
        if m:
            q, j = m.group(2), m.end()
            while j < n and code[j] != q:
                if code[j] == "\n":
                    break
                j += 2 if code[j] == "\\" else 1
            if j >= n or code[j] != q:
                raise RegionError("a string or character literal is not closed on its line")
            out.append(("string", code[i:j + 1]))
            i = j + 1
            continue
        m = re.compile(r"[A-Za-z_]\w*").match(code, i)
        if m:
            out.append(("ident", m.group(0)))
            i = m.end()
            continue
        m = re.compile(r"\.?\d(?:[eEpP][+-]|'(?=\w)|[\w.])*").match(code, i)
        if m:
            out.append(("number", m.group(0)))
            i = m.end()
            continue
        if code.startswith(DIGRAPHS, i):
            raise RegionError(f"the digraph '{code[i:i + 2]}' is not allowed here")
        for p in ("<<<", ">>>", "->", "::", "<<=", ">>=", "<<", ">>", "<=", ">=", "==", "!=",
                  "&&", "||", "++", "--", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^="):
            if code.startswith(p, i):
                break
        else:
            p = c
        if p in "([{":
            stack.append(p)
        elif p in ")]}":
            if not stack:
                raise RegionError(f"'{p}' closes a bracket opened outside the region")
            if stack.pop() != pairs[p]:
                raise RegionError(f"'{p}' does not match the bracket it closes")
        out.append(("punct", p))
        i += len(p)
    if stack:
        raise RegionError(f"'{stack[-1]}' is never closed inside the region")
    return out


def check_region(code, device, reference_body, type_words):
    """Raises RegionError unless `code` may stand in the region. Device regions: any device
    code; the only directive is '#pragma unroll'. Host regions: no directive, and only the
    names the reference's region uses, the harness's helpers, and names declared here."""
    toks = tokens(code)
    for kind, text in toks:
        # a directive may end in a // comment; nothing else that the lexer would have to follow
        bare = text.split("//")[0].strip()
        if kind == "directive" and (not device or re.search(r"/\*|[\"']", bare) or
                                    not PRAGMA.match(bare)):
            raise RegionError(f"'{text}': the only directive allowed in a region is "
                              f"'#pragma unroll' (in GPU code)")
        if kind == "ident" and text in ("_Pragma", "__pragma"):
            raise RegionError(f"'{text}' is not allowed here")
        if device and kind == "ident" and text in DEVICE_STATE:
            raise RegionError(f"'{text}' is not allowed in a kernel: nothing may outlive a launch "
                              f"(write constants as constexpr)")
    if device:
        return
    allowed = HOST_NAMES | {t for k, t in tokens("\n".join(reference_body)) if k == "ident"}
    types = TYPE_WORDS | (type_words & allowed)
    declared = _declared(toks, types)
    for kind, text in toks:
        if kind == "ident" and text not in allowed and text not in declared:
            raise RegionError(f"'{text}' may not be used in this launcher: it may use the names "
                              f"the reference solution's launcher uses ("
                              f"{', '.join(sorted(allowed - HOST_NAMES))}), the harness's helpers "
                              f"and names it declares itself")


def region_names(text, exercise):
    """Every name the code of an exercise's regions uses (comments and literals left out)."""
    lines = text.split("\n")
    names = set()
    for r in regions(lines, exercise):
        names |= {t for k, t in tokens("\n".join(r.body(lines))) if k == "ident"}
    return names


def _declared(toks, types):
    """Names declared by statements of the form 'TYPE [*&]* NAME ...' (and ', NAME' after
    them) where TYPE is a known type: the only way a host region adds a name."""
    declared = set()
    starts = {"{", "}", ";", "("}
    i = 0
    while i < len(toks):
        at_start = i == 0 or toks[i - 1][1] in starts
        if at_start and toks[i][0] == "ident" and toks[i][1] in types:
            j = i
            while j < len(toks) and toks[j][0] == "ident" and toks[j][1] in types:
                j += 1
            if j == len(toks) or not (toks[j][0] == "ident" or toks[j][1] in ("*", "&")):
                i = j  # 'int(x), f()' is an expression, not a declaration
                continue
            depth = 0
            expect_name = True
            while j < len(toks):
                kind, text = toks[j]
                if text in ("(", "[", "{"):
                    depth += 1
                elif text in (")", "]", "}"):
                    if depth == 0:
                        break
                    depth -= 1
                elif text == ";" and depth == 0:
                    break
                elif depth == 0 and text == ",":
                    expect_name = True
                elif depth == 0 and expect_name and kind == "ident":
                    declared.add(text)
                    expect_name = False
                elif depth == 0 and text not in ("*", "&", "const"):
                    expect_name = False
                j += 1
            i = j
        else:
            i += 1
    return declared
