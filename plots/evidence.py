"""Evidence: the facts the READMEs quote that are not timings, kept as committed files, and the
check that the numbers quoted match them.

  evidence.py registers --nvcc NVCC --arch sm_90 --out DIR FILE.ptxas ...
      Reads the compiler's reports (nvcc -Xptxas -v, one file a program, which `make evidence`
      writes into build/evidence/) and writes DIR/NN-topic-registers.csv: per kernel its
      registers, spills, stack and shared memory, and DIR/compiler.txt, the nvcc that made them.
  evidence.py check
      Every number a README marks, like  200<!-- evidence sm_90/03-matmul-registers
      matmul_v6_regblock registers -->,  must be the value in that file, row and column.
      Prints one PASS or FAIL line per README with marks; exits 1 if any number differs.
  evidence.py stale --nvcc NVCC --arch sm_90 FILE.ptxas ...
      Whether the committed files still say what this compiler says (skipped, with a line,
      when the nvcc differs from the one that made them)."""
import csv
import fnmatch
import glob
import io
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EVIDENCE = os.path.join(ROOT, "plots", "evidence")
MARK = re.compile(r"(\d[\d,]*(?:\.\d+)?)\s*<!-- evidence (\S+) (\S+) (\S+) -->")
COLUMNS = ["kernel", "registers", "spill_stores", "spill_loads", "shared_bytes", "stack_bytes"]


def nvcc_version(nvcc):
    out = subprocess.run([nvcc, "--version"], capture_output=True, text=True).stdout
    return next((l.strip() for l in out.splitlines() if l.startswith("Build ")), out.strip()[-60:])


def kernel_name(mangled):
    """'_Z18matmul_v6_regblockPKfS0_Pfmmm' -> 'matmul_v6_regblock'; templates keep their
    arguments, without spaces: 'matmul_v8_warptiled<true,false>'."""
    name = subprocess.run(["c++filt", mangled], capture_output=True, text=True).stdout.strip()
    name = re.sub(r"^void ", "", name)
    depth, cut = 0, len(name)
    for i in range(len(name) - 1, -1, -1):  # the parameter list: the last group in parentheses
        depth += {")": 1, "(": -1}.get(name[i], 0)
        if depth == 0 and name[i] == "(":
            cut = i
            break
    return name[:cut].replace(" ", "")


def parse_ptxas(path):
    """The kernels of one compiler report, as rows of COLUMNS."""
    rows, current = [], None
    with open(path) as f:
        for line in f:
            m = re.search(r"Compiling entry function '([^']+)'", line)
            if m:
                current = {"kernel": kernel_name(m.group(1)), "stack_bytes": 0, "spill_stores": 0,
                           "spill_loads": 0, "shared_bytes": 0}
                continue
            m = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", line)
            if m and current is not None:
                current.update(stack_bytes=int(m.group(1)), spill_stores=int(m.group(2)),
                               spill_loads=int(m.group(3)))
            m = re.search(r"Used (\d+) registers", line)
            if m and current is not None:
                current["registers"] = int(m.group(1))
                s = re.search(r"(\d+) bytes smem", line)
                current["shared_bytes"] = int(s.group(1)) if s else 0
                rows.append(current)
                current = None
    return sorted(rows, key=lambda r: r["kernel"])


def chapter_name(program):
    """'matmul-f64' -> '03-matmul-f64', 'allreduce' -> '07-multi-gpu', from the chapter folders
    (a chapter's first program is its topic, or the first line of its `programs` file)."""
    for d in sorted(glob.glob(os.path.join(ROOT, "chapters", "[0-9][0-9]-*"))):
        ch = os.path.basename(d)
        topic = ch[3:]
        if os.path.exists(os.path.join(d, "programs")):
            with open(os.path.join(d, "programs")) as f:
                topic = next(l.strip() for l in f if re.match(r"[a-z0-9]", l))
        if program == topic or program.startswith(topic + "-"):
            return ch + program[len(topic):]
    return program


# The machine instructions a README argues with, counted per kernel in the SASS of the same
# compile (cuobjdump -sass of the .cubin beside the report): tensor-core MMAs (HMMA: mma.sync and
# WMMA; HGMMA: wgmma), shared-memory loads and stores (LDSM: ldmatrix), global ones, cp.async
# (LDGSTS), TMA loads (UTMALDG), mbarrier operations (SYNCS), FMAs, shuffles, atomics, barriers,
# special-function-unit instructions (MUFU: sine, base-2 exponential, reciprocal...), multiplies
# local-memory loads (LDL: spills, or sinf's slow path), global reductions (REDG: an atomic whose
# result is unused), branches, the adds and mins of the min-plus loop (FADD, FMNMX, and VIMNMX3,
# Hopper's three-way integer min), moves from a thread's registers into the warp's uniform ones
# (R2UR: 06's wgmma descriptors, built per thread, then handed to HGMMA), and last
# `instructions`, every instruction of the kernel's code, NOP padding included: its size, at 16
# bytes an instruction; and `loop`, the instructions of the kernel's longest loop, from the
# target of a backward branch to the branch itself (0 where the code has no loop): the body a
# README counts when it says "the tile loop is 1102 instructions". A count includes every
# variant of the opcode (FFMA.SAT, MUFU.EX2, LDG.E.CONSTANT).
OPCODES = ["HMMA", "HGMMA", "DMMA", "LDSM", "LDS", "STS", "LDG", "STG", "LDGSTS", "UTMALDG",
           "SYNCS", "FFMA", "DFMA", "SHFL", "ATOMS", "ATOMG", "RED", "BAR", "MUFU", "FMUL", "LDL",
           "REDG", "BRA", "FADD", "FMNMX", "VIMNMX3", "R2UR"]
# Widths, paths and hints, counted on the opcode's modifiers: 16-byte global and shared accesses
# (LDG.E.128, STS.128...), global loads through the read-only path (LDG.E.CONSTANT), and global
# loads that carry an L2 fetch-size hint (PTX's .L2::64B, .L2::128B, .L2::256B), which the SASS
# shows as a modifier that starts with LTC.
MODIFIED = {"LDG.128": ("LDG", "128"), "STG.128": ("STG", "128"), "LDS.128": ("LDS", "128"),
            "STS.128": ("STS", "128"), "LDG.CONSTANT": ("LDG", "CONSTANT"),
            "LDG.LTC": ("LDG", "LTC*")}
TOTAL = "instructions"
LOOP = "loop"
COUNTS = OPCODES + list(MODIFIED) + [TOTAL, LOOP]
SASS_LINE = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(?:@!?U?P[T0-9]+\s+)?([A-Z][A-Z0-9_]*)((?:\.\w+)*)")
BRANCH_TARGET = re.compile(r"\bBRA(?:\.\w+)*\s+(?:[^;]*,\s*)?(0x[0-9a-f]+)\s*;")
INSTRUCTION_BYTES = 16


CUOBJDUMP = ["cuobjdump"]  # the one beside --nvcc, when given


def have_cuobjdump():
    """Whether cuobjdump is there: beside nvcc, or, where the toolkit is nvcc alone (a CI
    image), the vendor's own build of it and of nvdisasm that `make setup` installs into
    build/sass-tools (plots/requirements-sass.txt). With neither, the SASS counts are neither
    written nor checked (a line says so)."""
    import shutil
    if shutil.which(CUOBJDUMP[0]):
        return True
    found = sorted(glob.glob(os.path.join(ROOT, "build", "sass-tools", "nvidia", "*", "bin", "cuobjdump")))
    if found:
        CUOBJDUMP[0] = found[-1]
        # cuobjdump -sass runs nvdisasm, which the same wheels put beside it
        os.environ["PATH"] = os.path.dirname(found[-1]) + os.pathsep + os.environ.get("PATH", "")
    return bool(found)


def parse_sass(cubin):
    """[{kernel, HMMA: count, ...}] from cuobjdump -sass, sorted by kernel name."""
    text = subprocess.run(CUOBJDUMP + ["-sass", cubin], capture_output=True, text=True,
                          check=True).stdout
    rows, row = [], None
    for line in text.splitlines():
        m = re.match(r"\s*Function : (\S+)", line)
        if m:
            row = {"kernel": kernel_name(m.group(1)), **{c: 0 for c in COUNTS}}
            rows.append(row)
            continue
        m = SASS_LINE.search(line)
        if row is not None and m:
            address, op, modifiers = int(m.group(1), 16), m.group(2), m.group(3).split(".")
            row[TOTAL] += 1
            target = BRANCH_TARGET.search(line)
            if target and int(target.group(1), 16) <= address:  # a backward branch: a loop
                body = (address - int(target.group(1), 16)) // INSTRUCTION_BYTES + 1
                row[LOOP] = max(row[LOOP], body)
            if op in OPCODES:
                row[op] += 1
            for column, (base, modifier) in MODIFIED.items():  # a modifier may end in *
                row[column] += op == base and any(fnmatch.fnmatchcase(x, modifier)
                                                  for x in modifiers)
    return sorted(rows, key=lambda r: r["kernel"])


def render(ptxas_files):
    """{file name: CSV text} for a set of reports (and the SASS counts where a .cubin is beside)."""
    out = {}
    for path in sorted(ptxas_files):
        program = os.path.basename(path)[:-len(".ptxas")]
        buf = io.StringIO()
        w = csv.DictWriter(buf, COLUMNS, lineterminator="\n")
        w.writeheader()
        w.writerows(parse_ptxas(path))
        out[f"{chapter_name(program)}-registers.csv"] = buf.getvalue()
        cubin = path[:-len(".ptxas")] + ".cubin"
        if os.path.exists(cubin) and have_cuobjdump():
            buf = io.StringIO()
            w = csv.DictWriter(buf, ["kernel"] + COUNTS, lineterminator="\n")
            w.writeheader()
            w.writerows(parse_sass(cubin))
            out[f"{chapter_name(program)}-sass.csv"] = buf.getvalue()
    return out


def registers(args):
    nvcc, arch, out_dir, files = args["--nvcc"], args["--arch"], args["--out"], args["files"]
    os.makedirs(out_dir, exist_ok=True)
    for name, text in render(files).items():
        with open(os.path.join(out_dir, name), "w") as f:
            f.write(text)
    with open(os.path.join(out_dir, "compiler.txt"), "w") as f:
        f.write(f"{nvcc_version(nvcc)}\n-Xptxas -v for {arch} (make evidence)\n")
    print(f"wrote {len(files)} programs' kernels into {os.path.relpath(out_dir, ROOT)}/")
    if not have_cuobjdump():
        print(f"SKIP the SASS counts: no {CUOBJDUMP[0]} (the committed *-sass.csv are left as they are)")
    return 0


def stale(args):
    committed = os.path.join(EVIDENCE, args["--arch"])
    with open(os.path.join(committed, "compiler.txt")) as f:
        made_by = f.readline().strip()
    here = nvcc_version(args["--nvcc"])
    if here != made_by:
        print(f"SKIP evidence: made by {made_by}, this is {here}; register counts differ between "
              f"compilers")
        return 0
    bad = 0
    if not have_cuobjdump():
        print(f"SKIP evidence *-sass.csv: no {CUOBJDUMP[0]} to read the machine code with")
    for name, text in render(args["files"]).items():
        path = os.path.join(committed, name)
        same = os.path.exists(path) and open(path).read() == text
        bad += not same
        print(f"{'PASS' if same else 'FAIL'} evidence {name} matches the compiler"
              + ("" if same else ": run make evidence"))
    return 1 if bad else 0


def lookup(ref, key, column):
    path = os.path.join(EVIDENCE, ref + ".csv")
    if not os.path.exists(path):
        return None, f"no file plots/evidence/{ref}.csv"
    with open(path) as f:
        rows = [r for r in csv.DictReader(f) if r.get("kernel") == key]
    if len(rows) != 1:
        return None, f"{len(rows)} rows for {key} in plots/evidence/{ref}.csv"
    if column not in rows[0]:
        return None, f"no column {column} in plots/evidence/{ref}.csv"
    return rows[0][column], None


def check(_args):
    docs = [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")))
    docs += sorted(glob.glob(os.path.join(ROOT, "chapters", "*", "README.md")))
    docs += sorted(glob.glob(os.path.join(ROOT, "chapters", "*", "exercises", "*", "*.md")))
    bad = 0
    for path in docs:
        with open(path) as f:
            marks = MARK.findall(f.read())
        if not marks:
            continue
        wrong = []
        for number, ref, key, column in marks:
            value, why = lookup(ref, key, column)
            if why or float(value) != float(number.replace(",", "")):
                wrong.append(f"{number} for {key} {column}: " + (why or f"the file says {value}"))
        rel = os.path.relpath(path, ROOT)
        if wrong:
            bad += 1
            print(f"FAIL evidence in {rel}: " + "; ".join(wrong))
        else:
            print(f"PASS evidence in {rel}: {len(marks)} numbers match their files")
    return 1 if bad else 0


def main(argv):
    if len(argv) < 2 or argv[1] not in ("registers", "check", "stale"):
        print(__doc__)
        return 2
    args, files, i = {}, [], 2
    while i < len(argv):
        if argv[i].startswith("--"):
            args[argv[i]] = argv[i + 1]
            i += 2
        else:
            files.append(argv[i])
            i += 1
    args["files"] = files
    if "--nvcc" in args and os.path.dirname(args["--nvcc"]):
        CUOBJDUMP[0] = os.path.join(os.path.dirname(args["--nvcc"]), "cuobjdump")
    return {"registers": registers, "check": check, "stale": stale}[argv[1]](args)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
