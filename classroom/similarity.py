"""similarity.py: which submissions of a class are alike, for the instructor to read (make grade-all
writes similarity.csv beside the gradebook). It compares what the grader grades, the bodies of the
exercise's regions, as tokens: comments, spacing and the names of variables do not count, so a
copy with its names changed and its comments rewritten still matches. It never changes a grade.

A region body is a k-gram fingerprint: the set of every run of K tokens in it, each identifier
that is not C++'s or CUDA's own read as one token `ID`, each number as `NUM`. Two bodies'
similarity is the share of the smaller body's k-grams that the other holds as well: 1.0 where
one is contained in the other. Bodies of fewer than MIN_TOKENS tokens are not compared (06's
swizzled, one line of index arithmetic; 04's casint, a loop of a few lines): they come out alike
in honest hands. Short bodies above it can too (06's grouped, a dozen lines that most correct
answers write much the same way): a pair on the list is a reason to read two submissions, not
evidence of copying.
"""
import csv
import re

K = 8                # tokens in a k-gram
MIN_TOKENS = 40      # bodies shorter than this are not compared
THRESHOLD = 0.8      # pairs at or above it are listed

# C++ and CUDA's own words, kept as they are: the shape of the code, not the names chosen in it
KEEP = set("""
auto bool break case char const constexpr continue default do double else enum extern false float
for goto if inline int long namespace nullptr return short signed sizeof static static_assert
struct switch template this true typedef typename union unsigned using void volatile while
size_t uint32_t uint64_t int64_t float2 float4 int2 int4 half __half __nv_bfloat16
__global__ __device__ __host__ __shared__ __constant__ __restrict__ __forceinline__
__syncthreads __syncwarp __shfl_sync __shfl_down_sync __shfl_up_sync __shfl_xor_sync
__ballot_sync __any_sync __all_sync __activemask __ldg __ldcg __stcg __fmaf_rn __fdividef
atomicAdd atomicCAS atomicExch atomicMax atomicMin atomicSub atomicInc atomicOr atomicAnd
threadIdx blockIdx blockDim gridDim warpSize min max fmaf sqrtf expf
wmma mma_sync load_matrix_sync store_matrix_sync fill_fragment fragment
""".split())

TOKEN = re.compile(r"""
    (?P<id>[A-Za-z_]\w*)
  | (?P<num>0[xX][0-9a-fA-F]+[uUlL]*|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?[fFuUlL]*)
  | (?P<str>"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*')
  | (?P<op>>>=|<<=|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^!~<>=?:;,.(){}\[\]])
""", re.X)


def strip_comments(text):
    """The text without // and /* */ comments (string literals are left alone)."""
    out, i, n = [], 0, len(text)
    while i < n:
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
            out.append(" ")
        elif text[i] in "\"'":
            m = TOKEN.match(text, i)
            s = m.group(0) if m and m.lastgroup == "str" else text[i]
            out.append(s)
            i += len(s)
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def tokens(text):
    """The body's tokens, names of its own as ID and numbers as NUM."""
    out = []
    for m in TOKEN.finditer(strip_comments(text)):
        kind, word = m.lastgroup, m.group(0)
        if kind == "id":
            out.append(word if word in KEEP else "ID")
        elif kind == "num":
            out.append("NUM")
        elif kind == "str":
            out.append("STR")
        else:
            out.append(word)
    return out


def fingerprint(text):
    """The set of K-grams of the body's tokens, or None where it is too short to compare."""
    t = tokens(text)
    if len(t) < MIN_TOKENS:
        return None
    return {tuple(t[i:i + K]) for i in range(len(t) - K + 1)}


def similarity(a, b):
    """The share of the smaller fingerprint's k-grams that the other holds (0 to 1)."""
    if not a or not b:
        return 0.0
    small, large = (a, b) if len(a) <= len(b) else (b, a)
    return len(small & large) / len(small)


def alike(bodies, reference, threshold=THRESHOLD):
    """bodies: {student: region text or None (nothing graded)}; reference: the reference
    solution's region text. Returns (rows, short): rows [(student, other, similarity)] at or
    above `threshold`, most alike first, `other` a student or "(reference solution)"; short: the
    students whose regions were too short to compare."""
    prints = {s: fingerprint(t) for s, t in bodies.items() if t is not None}
    short = sorted(s for s, f in prints.items() if f is None)
    prints = {s: f for s, f in prints.items() if f is not None}
    names = sorted(prints)
    rows = []
    ref = fingerprint(reference) if reference is not None else None
    for i, s in enumerate(names):
        if ref is not None:
            x = similarity(prints[s], ref)
            if x >= threshold:
                rows.append((s, "(reference solution)", x))
        for o in names[i + 1:]:
            x = similarity(prints[s], prints[o])
            if x >= threshold:
                rows.append((s, o, x))
    rows.sort(key=lambda r: (-r[2], r[0], r[1]))
    return rows, short


def write_csv(path, rows, short):
    """similarity.csv: student, other, similarity (3 decimals); the students too short to
    compare as rows with other "(too short to compare)" and no value."""
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["student", "other", "similarity"])
        w.writerows([s, o, f"{x:.3f}"] for s, o, x in rows)
        w.writerows([s, "(too short to compare)", ""] for s in short)
