#!/usr/bin/env bash
# make test: (a) unit tests of common/, (b) each chapter's CPU reference, (c) bad input and its
# exit codes, (d) the plot scripts and README tables on the committed CSVs, the Colab notebook
# and the chapters' ladders (make diff), (e) the exercises,
# their kits and the grader, (f) every chapter built for every GPU generation, (g) with a GPU,
# every version of every chapter over its test sizes, and the grader on the GPU. Ends with "N passed, N failed".
# KL_SECTIONS picks sections by letter (default: all), for a second run of part of it:
# KL_SECTIONS=g make test reruns the GPU sweep alone.
set -u
cd "$(dirname "$0")/.."
. tests/lib.sh

passed=0 failed=0 skipped=0
pass() { passed=$((passed + 1)); echo "PASS $*"; }
fail() { failed=$((failed + 1)); echo "FAIL $*"; }
skip() { skipped=$((skipped + 1)); echo "SKIP $*"; }
# Counts the PASS/FAIL lines a program prints, echoing the failures; a crash is a failure too.
count_lines() {
    local label=$1 log=$2 rc=$3
    local p f
    p=$(grep -c '^PASS' "$log") f=$(grep -c '^FAIL' "$log")
    passed=$((passed + p)) failed=$((failed + f))
    grep '^FAIL' "$log" | while IFS= read -r line; do echo "  [$label] $line"; done
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then fail "$label exited $rc"; fi
    if [ "$p" -eq 0 ] && [ "$f" -eq 0 ]; then fail "$label ran no check"; fi
}
# expect CODE PROGRAM ARGS...: the exit code, exactly one line on stderr, naming what was wrong
expect() {
    local code=$1 prog=$2; shift 2
    local want_word=${EXPECT_WORD:-}
    build/"$prog" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
    local rc=$? lines
    lines=$(wc -l <"$tmp/err")
    if [ "$rc" -ne "$code" ]; then
        fail "$prog $*: exit $rc, want $code ($(head -c 200 "$tmp/err"))"
    elif [ "$lines" -ne 1 ]; then
        fail "$prog $*: $lines lines on stderr, want 1"
    elif [ -n "$want_word" ] && ! grep -q -- "$want_word" "$tmp/err"; then
        fail "$prog $*: message does not name '$want_word': $(cat "$tmp/err")"
    else
        pass "$prog $* -> $code: $(cat "$tmp/err")"
    fi
}
sections=${KL_SECTIONS:-abcdefg}
if [[ ! $sections =~ ^[a-g]+$ ]]; then
    echo "KL_SECTIONS must be letters from a to g, not '$sections'" >&2
    exit 2
fi
want() { [[ $sections == *"$1"* ]]; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if want a; then
    echo "== (a) unit tests of common/"
    build/test_common "$tmp" >"$tmp/unit.log" 2>&1
    count_lines unit "$tmp/unit.log" $?
    if python3 -c 'import numpy' 2>/dev/null || [ -x .venv/bin/python ]; then
        py=python3; python3 -c 'import numpy' 2>/dev/null || py=.venv/bin/python
        if "$py" - "$tmp" <<'PY'; then pass "npy: numpy reads back what we wrote"; else fail "npy: numpy read-back"; fi
import sys, numpy as np
d = sys.argv[1]
m = np.load(d + "/m.npy"); one = np.load(d + "/one.npy")
assert m.dtype == np.float32 and m.shape == (2, 3) and (m == np.arange(1, 7).reshape(2, 3)).all()
assert one.dtype == np.uint32 and one.shape == (1,) and one[0] == 7
PY
    else
        skip "npy read-back: no numpy"
    fi
fi

if want b; then
    echo "== (b) CPU references against brute force"
    for d in $(chapters); do
        for prog in $(programs "$d"); do
            build/"$prog" --self-test >"$tmp/self.log" 2>&1
            count_lines "$prog --self-test" "$tmp/self.log" $?
        done
        echo "   $(basename "$d"): done"
    done
fi

if want c; then
    echo "== (c) bad input: exit code and a one-line message"
    if gpu_present >/dev/null; then have_gpu=1; else have_gpu=0; fi
    for d in $(chapters); do
        for prog in $(programs "$d"); do
            EXPECT_WORD=-n expect 2 "$prog" -n 0
            EXPECT_WORD=-n expect 2 "$prog" -n -7
            EXPECT_WORD=-n expect 2 "$prog" -n abc
            EXPECT_WORD=-n expect 2 "$prog" -n 12abc
            EXPECT_WORD=-n expect 2 "$prog" -n 99999999999999999999999
            EXPECT_WORD=-n expect 2 "$prog" -n 2147483648
            EXPECT_WORD=-n expect 2 "$prog" -n
            EXPECT_WORD=-m expect 2 "$prog" -m 0
            EXPECT_WORD=nosuch expect 2 "$prog" -v nosuch
            first=$(build/"$prog" --list 2>/dev/null | awk 'NR == 2 {print $1}')
            EXPECT_WORD=v9x expect 2 "$prog" -v "$first,v9x"
            EXPECT_WORD=--bogus expect 2 "$prog" --bogus
            EXPECT_WORD=--reps expect 2 "$prog" --reps 0
            EXPECT_WORD="--warmup: '-1' is negative; expected a whole number >= 0" expect 2 "$prog" --warmup -1
            EXPECT_WORD=--seed expect 2 "$prog" --seed x
            EXPECT_WORD="--rest: '-5' is negative" expect 2 "$prog" --rest -5
            EXPECT_WORD=--input expect 2 "$prog" --input nosuch
            EXPECT_WORD=stray expect 2 "$prog" stray
            for a in "--batch 2" --check-each "--dump x" "--verify x"; do
                # shellcheck disable=SC2086
                EXPECT_WORD="--interleave and ${a%% *}" expect 2 "$prog" --interleave $a
            done
            if [ "$prog" = peaks ]; then  # its own timing loop has none of these
                for a in --interleave "--batch 4" --check-each "--dump x" "--verify x" \
                    "--save x" "--rest 10"; do
                    # shellcheck disable=SC2086
                    EXPECT_WORD="${a%% *}: this program times each launch on its own" \
                        expect 2 peaks $a
                done
            fi
            if [ "$have_gpu" = 0 ]; then
                EXPECT_WORD=GPU expect 3 "$prog" -n 5
            fi
            while read -r code args; do
                # shellcheck disable=SC2086
                EXPECT_WORD= expect "$code" "$prog" $args
            done < <(arg_lines "$d/bad.args")
            # --help and --list need no GPU and succeed
            if build/"$prog" --help >/dev/null 2>&1 && build/"$prog" --list >/dev/null 2>&1; then
                pass "$prog --help and --list exit 0"
            else
                fail "$prog --help or --list"
            fi
        done
        # make profile replays one kernel at a time, which would hang kernels that wait for
        # partners on other GPUs: a chapter of several GPUs is refused before ncu starts
        if [ -n "$(arg_lines "$d/gpus")" ]; then
            bash tests/profile.sh "$(basename "$d")" v0 >"$tmp/out" 2>&1 </dev/null
            rc=$?
            if [ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/out")" -eq 1 ] && grep -q "Nsight Systems" "$tmp/out"; then
                pass "make profile CH=$(basename "$d") -> 2: $(cat "$tmp/out")"
            else
                fail "make profile CH=$(basename "$d"): exit $rc, want 2 and one line naming Nsight Systems: $(head -c 200 "$tmp/out")"
            fi
        fi
    done
    # gpuinfo, which the scripts ask about the GPU, parses its arguments as the programs do
    EXPECT_WORD=--bogus expect 2 gpuinfo --bogus
    EXPECT_WORD=extra expect 2 gpuinfo slug extra
    if build/gpuinfo --help | grep -q '^usage: gpuinfo'; then pass "gpuinfo --help exits 0"
    else fail "gpuinfo --help"; fi
    if [ "$have_gpu" = 0 ]; then
        EXPECT_WORD=GPU expect 3 gpuinfo slug
    fi
fi

if want d; then
    echo "== (d) plots and README tables from the committed CSVs; the Colab notebook; the ladders"
    python3 tests/test_colab.py >"$tmp/colab.log" 2>&1
    count_lines "the Colab notebook (docs/colab.ipynb)" "$tmp/colab.log" $?
    # every chapter split into version files: each neighbouring pair has a diff (make diff)
    for d in $(chapters); do
        ch=$(basename "$d")
        ls "$d"/[a-z][0-9][0-9]-*.cuh >/dev/null 2>&1 || continue
        if sizes=$(bash tests/ladder.sh sizes "$ch" 2>&1) && [ -n "$sizes" ] &&
            ! echo "$sizes" | awk '$3 == 0 {bad = 1} END {exit !bad}'; then
            median=$(echo "$sizes" | awk '{print $3}' | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}')
            pass "make ladder CH=$ch: $(echo "$sizes" | wc -l) steps, each a diff, median $median lines changed"
        else
            fail "make ladder CH=$ch: a step with no diff, or no ladder: $(echo "$sizes" | head -n 3)"
        fi
    done
    # a step whose title names the one it grows from is diffed against it (04's c5 from c1, not
    # c4), and a reader who stops early (| head) is no error
    first=$(bash tests/ladder.sh diff 04-atomics c5 | head -n 1; echo "rc=${PIPESTATUS[0]}")
    if echo "$first" | grep -q "^04-atomics: c1 -> c5 " && echo "$first" | grep -q "^rc=0$"; then
        pass "make diff CH=04-atomics B=c5: against c1, the step its title names; | head is no error"
    else
        fail "make diff CH=04-atomics B=c5: $(echo "$first" | tr '\n' ' ')"
    fi
    if [ -f build/plots-skip ]; then
        skip "plots: $(cat build/plots-skip)"
    else
        bash plots/plot.sh --out "$tmp/figures" >"$tmp/plots.log" 2>&1
        count_lines "plots" "$tmp/plots.log" $?
        python3 plots/evidence.py check >"$tmp/evidence-marks.log" 2>&1
        count_lines "numbers marked in the READMEs" "$tmp/evidence-marks.log" $?
        python3 tests/test_ncu.py >"$tmp/ncu.log" 2>&1
        count_lines "profiler evidence (plots/ncu.py)" "$tmp/ncu.log" $?
        python3 tests/test_power.py >"$tmp/power.log" 2>&1
        count_lines "clock and power evidence (plots/power.py, make power)" "$tmp/power.log" $?
        python3 tests/test_timeline.py >"$tmp/timeline.log" 2>&1
        count_lines "block timelines (plots/timeline.py, make timeline)" "$tmp/timeline.log" $?
        # twice, the same bytes: no date, version or random id in any figure file
        bash plots/plot.sh --out "$tmp/figures2" >/dev/null 2>&1
        if differ=$(diff -rq "$tmp/figures" "$tmp/figures2"); then
            pass "figures: two runs of make plots write the same bytes ($(find "$tmp/figures" -type f | wc -l) files)"
        else
            fail "figures differ between two runs: $(echo "$differ" | head -n 3)"
        fi
    fi
fi

if want e; then
    echo "== (e) exercises, starter kits, the grader and the Gradescope autograder"
    if python3 -c 'import tomllib' 2>/dev/null || python3 -c 'import tomli' 2>/dev/null; then
        python3 tests/classroom/test_grader.py cpu >"$tmp/grader.log" 2>&1
        count_lines "grader" "$tmp/grader.log" $?
        echo "   $(grep -c '^PASS' "$tmp/grader.log") checks"
        # make autograder: every exercise's Gradescope zip, and its run_autograder in a
        # Gradescope layout (without a GPU: NOT GRADED, never a score)
        python3 tests/classroom/test_autograder.py cpu >"$tmp/autograder.log" 2>&1
        count_lines "autograder" "$tmp/autograder.log" $?
        echo "   $(grep -c '^PASS' "$tmp/autograder.log") checks of make autograder"
    else
        skip "exercises and grader: they need Python 3.11 or later (tomllib), or the tomli package"
    fi
fi

if want f; then
    echo "== (f) every chapter compiles for every GPU generation the toolkit knows"
    make --no-print-directory -k -j"$(nproc)" archs >"$tmp/archs.log" 2>&1
    archs=$(make -s --no-print-directory print-archs)
    for d in $(chapters); do
        for prog in $(programs "$d"); do
            missing=""
            for a in $archs; do [ -f "build/archs/$a/$prog.ok" ] || missing="$missing $a"; done
            if [ -z "$missing" ]; then
                pass "$prog builds for each of $archs alone, with make's flags"
            else
                fail "$prog does not build for$missing:"
                grep -E 'error' "$tmp/archs.log" | grep -m 5 -F "$prog" | sed 's/^/    /'
            fi
        done
    done
    # spills are warnings off sm_90 (docs/setup.md): say how many, so a new one is noticed
    echo "   $(grep -c 'ptxas warning : Registers are spilled' "$tmp/archs.log") spill warnings off sm_90 (make archs prints them)"

    # make archs fails where a student's build would: a planted kernel that spills fails on
    # sm_90 (the reference GPU: an error) and builds, with a warning, on another generation
    plant=$tmp/plant/99-kl-planted-spill
    mkdir -p "$plant"
    cat >"$plant/kl-planted-spill.cu" <<'CU'
// 64 live floats a thread under a 32-register cap (1024 threads, 2 blocks an SM): it spills.
__global__ void __launch_bounds__(1024, 2) spill(float *out, const float *in) {
    float v[64];
#pragma unroll
    for (int i = 0; i < 64; i++) v[i] = in[threadIdx.x + i * 1024];
    float s = 0.0f;
#pragma unroll
    for (int i = 0; i < 64; i++) s = fmaf(s, v[i], 1.0f);
#pragma unroll
    for (int i = 0; i < 64; i++) out[threadIdx.x + i * 1024] = v[i] * s;
}
int main() { return 0; }
CU
    other=$(make -s --no-print-directory print-archs | tr ' ' '\n' | grep -v '^sm_90$' | head -n 1)
    rm -f build/archs/*/kl-planted-spill.ok
    make --no-print-directory -k archs CHAPTER_DIRS="$plant" ARCHS_KNOWN="sm_90 $other" \
        >"$tmp/plant.log" 2>&1
    rc=$?
    if [ "$rc" -ne 0 ] && [ ! -f build/archs/sm_90/kl-planted-spill.ok ] &&
        grep -q 'ptxas error.*spilled' "$tmp/plant.log" &&
        [ -f "build/archs/$other/kl-planted-spill.ok" ] && grep -q 'ptxas warning.*spilled' "$tmp/plant.log"; then
        pass "make archs: a planted spill fails on sm_90 and warns on $other"
    else
        fail "make archs on a planted spill: exit $rc; want an error on sm_90 and a warning on $other"
        grep -m 4 -E 'ptxas|error' "$tmp/plant.log" | sed 's/^/    /'
    fi
    rm -f build/archs/*/kl-planted-spill.ok

    # the compiler's report for sm_90 still says what plots/evidence/ says (the READMEs quote it)
    make --no-print-directory -s -j"$(nproc)" evidence-check >"$tmp/evidence.log" 2>&1
    rc=$?
    if grep -q '^SKIP' "$tmp/evidence.log"; then skip "$(grep -m 1 '^SKIP' "$tmp/evidence.log" | cut -c6-)"
    else count_lines "evidence" "$tmp/evidence.log" $rc; fi
fi

if want g; then
    echo "== (g) GPU sweep: every version at every test size"
    if reason=$(gpu_present); then
        echo "   $(build/gpuinfo)"
        for d in $(chapters); do
            for prog in $(programs "$d"); do
                while read -r args; do
                    # shellcheck disable=SC2086
                    if build/"$prog" $args --check-only >"$tmp/sweep.log" 2>&1; then
                        pass "$prog $args"
                    else
                        fail "$prog $args (exit $?)"
                        grep -i -E 'mismatch|wrong|error|no$' "$tmp/sweep.log" | head -n 8 | sed 's/^/    /'
                    fi
                done < <(arg_lines "$d/test.args")
            done
        done
        # --save writes .npy files that numpy reads back as the right transpose
        if build/transpose -m 3 -n 5 -v v2 --check-only --save "$tmp/npy" >/dev/null 2>&1 &&
            python3 - "$tmp/npy" <<'PY'; then
import sys, numpy as np
d = sys.argv[1]
a = np.load(d + "/in.npy"); t = np.load(d + "/v2.npy")
assert a.shape == (3, 5) and t.shape == (5, 3) and (a.T == t).all()
PY
            pass "transpose --save: numpy reads in.npy and v2.npy, v2 == in.T"
        else
            fail "transpose --save"
        fi
        # --interleave: every version checked, timed in turns, checked again; its rows are the
        # --check-only run's, in the same order, each with a time and the baseline's ratio, and
        # matmul's extra column (v16's pick) is v16's own, not the last version's to run
        rm -f "$tmp/il.csv" "$tmp/co.csv" "$tmp/mm.csv"
        if build/transpose -m 999 -n 1001 --check-only --csv "$tmp/co.csv" >/dev/null 2>&1 &&
            build/transpose -m 999 -n 1001 --reps 3 --warmup 1 --interleave --csv "$tmp/il.csv" \
                >"$tmp/il.log" 2>&1 &&
            build/matmul -m 257 -n 255 -k 129 -v v15,v16,v17 --reps 2 --interleave \
                --csv "$tmp/mm.csv" >>"$tmp/il.log" 2>&1 &&
            python3 - "$tmp/il.csv" "$tmp/co.csv" "$tmp/mm.csv" <<'PY'; then
import csv, math, sys
rows, ref, mm = (list(csv.DictReader(open(f))) for f in sys.argv[1:4])
assert [r["version"] for r in rows] == [r["version"] for r in ref], "not the same rows"
for r in rows:
    assert r["timing"] == "interleaved", r
    assert r["ok"] in ("yes", "unchecked"), r
    assert 0 < float(r["ms_min"]) <= float(r["ms_median"]) <= float(r["ms_max"]), r
    assert math.isfinite(float(r["pct_of_baseline"])) and float(r["pct_of_baseline"]) > 0, r
assert float(rows[0]["pct_of_baseline"]) == 100, rows[0]
pick = {r["version"]: r["extra_value"] for r in mm}
assert pick["v16"] != "" and pick["cublas"] == "" and pick["v15"] == "" and pick["v17"] != "", pick
PY
            pass "--interleave: transpose's rows as --check-only's, timed in turns; matmul's pick per row"
        else
            fail "--interleave"
            tail -n 5 "$tmp/il.log" | sed 's/^/    /'
        fi
        # --rest: the GPU left idle before each version's timed launches; the header says so,
        # and the run lasts at least the rests of the rows it times
        rm -f "$tmp/rest.csv"
        t0=$(date +%s%N)
        if build/transpose -m 999 -n 1001 --reps 2 --warmup 1 --rest 250 --csv "$tmp/rest.csv" \
            >"$tmp/rest.log" 2>&1; then
            ms=$(( ($(date +%s%N) - t0) / 1000000 ))
            rows=$(( $(wc -l <"$tmp/rest.csv") - 1 ))
            if grep -q "rest=250 ms" "$tmp/rest.log" && [ "$rows" -gt 1 ] && [ "$ms" -ge $(( rows * 250 )) ]; then
                pass "--rest 250: said in the header, $rows rows in $ms ms"
            else
                fail "--rest 250: $rows rows in $ms ms, or no 'rest=250 ms' in the header"
            fi
        else
            fail "--rest 250: transpose failed"
            tail -n 5 "$tmp/rest.log" | sed 's/^/    /'
        fi
        EXPECT_WORD="too big" expect 3 transpose -m 2147483647 -n 2147483647
        # --verify of a version this GPU or build cannot run: FAIL and exit 1, never a pass (a
        # grader on an older GPU checks with it). v9 is skipped before Hopper; on a Hopper GPU, in
        # a build of 06 for plain sm_90 (no wgmma), made here.
        cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1)
        prog=build/tensor-cores
        if [ "$cc" = 9.0 ]; then
            prog=$tmp/tc-sm90
            "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" -gencode arch=compute_90,code=sm_90 -O3 \
                -std=c++17 -Icommon -Ibuild -include kl_build.h -o "$prog" \
                chapters/06-tensor-cores/tensor-cores.cu build/common/*.o -lcublas -lpthread \
                >"$tmp/sm90.log" 2>&1 || prog=""
        fi
        if [ -n "$prog" ] && "$prog" -m 300 -n 300 -k 64 -v v9 --check-only --dump "$tmp/vd" \
                >"$tmp/vd.log" 2>&1 && grep -q "v9: skipped" "$tmp/vd.log"; then
            "$prog" -m 300 -n 300 -k 64 -v v9 --verify "$tmp/vd" >"$tmp/vv.log" 2>&1
            rc=$?
            if [ $rc = 1 ] && grep -q "^FAIL verify v9: it cannot run here" "$tmp/vv.log"; then
                pass "--verify of a version skipped here (v9, GPU $cc): FAIL verify, exit 1"
            else
                fail "--verify of a version skipped here (v9, GPU $cc): exit $rc, want 1 and FAIL verify"
                tail -n 3 "$tmp/vv.log" | sed 's/^/    /'
            fi
        else
            fail "--verify of a skipped version: no run that skips v9 (GPU $cc)"
            cat "$tmp/sm90.log" "$tmp/vd.log" 2>/dev/null | tail -n 5 | sed 's/^/    /'
        fi
        # 07's check passes a GPU's result that is GPU 0's bit for bit on GPU 0's verdict
        # (allreduce.cu, same_as_gpu0). A dump of v5 with one float changed in GPU 1's row, or in
        # both rows alike, must still fail --verify; the dump as written must pass.
        if [ -x build/allreduce ] && [ "$(build/gpuinfo count 2>/dev/null || echo 0)" -ge 2 ]; then
            rm -rf "$tmp/ad"
            n=4099
            if build/allreduce -n $n -v v5 --check-only --dump "$tmp/ad" >"$tmp/ad.log" 2>&1; then
                verdicts=""
                for rows in none 1 0,1; do
                    cp "$tmp/ad/v5.out" "$tmp/ad/v5.orig"
                    python3 - "$tmp/ad/v5.out" $n $rows <<'PY'
import struct, sys
path, n, rows = sys.argv[1], int(sys.argv[2]), sys.argv[3]
data = bytearray(open(path, "rb").read())
for g in ([] if rows == "none" else [int(r) for r in rows.split(",")]):
    at = 4 * (g * n + 17)  # element 17 of GPU g's result, made 1 larger
    data[at:at + 4] = struct.pack("<f", struct.unpack("<f", data[at:at + 4])[0] + 1.0)
open(path, "wb").write(data)
PY
                    build/allreduce -n $n -v v5 --verify "$tmp/ad" >"$tmp/av-$rows.log" 2>&1
                    verdicts="$verdicts $rows:$?"
                    mv "$tmp/ad/v5.orig" "$tmp/ad/v5.out"
                done
                if [ "$verdicts" = " none:0 1:1 0,1:1" ] &&
                    grep -q "mismatch at (1, 17)" "$tmp/av-1.log" &&
                    grep -q "GPU 1: GPU 0's result, bit for bit: the same 1 wrong element$" "$tmp/av-0,1.log"; then
                    pass "allreduce --verify: a float changed in GPU 1's row, or in both rows alike, fails"
                else
                    fail "allreduce --verify of a changed dump: exits$verdicts, want none:0 1:1 0,1:1"
                    tail -n 4 "$tmp/av-0,1.log" | sed 's/^/    /'
                fi
            else
                fail "allreduce -v v5 --dump"
                tail -n 3 "$tmp/ad.log" | sed 's/^/    /'
            fi
        else
            skip "allreduce --verify of a changed dump: fewer than two GPUs"
        fi
        echo "== (g) the grader on the GPU: reference solutions, untouched kits, planted bugs"
        # More than 8 minutes on an H100 (the speed cases run in turns). KL_GRADER_GPU=0 leaves it to a run of its own,
        # python3 tests/classroom/test_grader.py gpu (KL_EXERCISES=01-transpose/tiled,... picks some).
        if [ "${KL_GRADER_GPU:-1}" = 0 ]; then
            skip "the grader on the GPU: KL_GRADER_GPU=0 (run tests/classroom/test_grader.py gpu on its own)"
        else
            python3 tests/classroom/test_grader.py gpu >"$tmp/grader-gpu.log" 2>&1
            count_lines "grader on the GPU" "$tmp/grader-gpu.log" $?
            grep -E '^(PASS|FAIL|SKIP)' "$tmp/grader-gpu.log" | sed 's/^/   /'
            # the Gradescope zip end to end: its run_autograder on this GPU (01-transpose/tiled;
            # KL_AUTOGRADER_EXERCISES=all for every exercise)
            python3 tests/classroom/test_autograder.py gpu >"$tmp/autograder-gpu.log" 2>&1
            count_lines "autograder on the GPU" "$tmp/autograder-gpu.log" $?
            grep -E '^(PASS|FAIL|SKIP)' "$tmp/autograder-gpu.log" | sed 's/^/   /'
        fi
    else
        skip "GPU sweep: $reason"
    fi
fi

echo
[ "$sections" = abcdefg ] || echo "(sections $sections of abcdefg)"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
