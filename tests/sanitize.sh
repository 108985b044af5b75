#!/usr/bin/env bash
# make sanitize [CH=NN-topic]: compute-sanitizer's memcheck, racecheck, initcheck and synccheck
# over every version, at the small sizes in chapters/*/sanitize.args. A version listed in the
# chapter's sanitize.expect as "TOOL TAG" (a deliberate race) runs alone under that tool and
# must be reported; every other run must be clean. A line of sanitize.args that names versions
# (-v LIST) runs those only: a size that only some versions need, too slow for all of them under
# racecheck. KL_SANITIZE_TOOLS="racecheck" runs a subset of the tools (to run the slow ones
# side by side).
set -u
cd "$(dirname "$0")/.."
. tests/lib.sh

cs=$(command -v compute-sanitizer || echo "${CUDA_HOME:-/usr/local/cuda}/bin/compute-sanitizer")
if [ ! -x "$cs" ]; then
    echo "make sanitize: compute-sanitizer not found (it comes with the CUDA toolkit)"; exit 1
fi
if ! reason=$(gpu_present); then echo "make sanitize: $reason"; exit 1; fi

passed=0 failed=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT
sanitize() {  # sanitize TOOL WANT_FINDING PROGRAM ARGS...
    local tool=$1 want=$2 prog=$3; shift 3
    # shellcheck disable=SC2086
    "$cs" --tool "$tool" --error-exitcode 99 $api build/"$prog" "$@" >"$log" 2>&1
    local rc=$?
    local summary
    summary=$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tail -n 1)
    if [ "$want" = clean ] && [ "$rc" -eq 0 ]; then
        passed=$((passed + 1)); echo "PASS $tool $prog $*: ${summary:-clean}"
    elif [ "$want" = finding ] && [ "$rc" -eq 99 ]; then
        passed=$((passed + 1)); echo "PASS $tool $prog $*: reported, as expected (${summary})"
    else
        failed=$((failed + 1)); echo "FAIL $tool $prog $*: exit $rc, wanted $want"
        # each finding and the line after it, which names the kernel ("at kernel+0x... in file")
        grep -E -A1 'Invalid|Race|Uninitialized|Barrier|ERROR|error' "$log" | grep -v '^--$' |
            head -n 10 | sed 's/^/    /'
    fi
}

for d in $(chapters "${1:-}") ; do
    # A chapter on several GPUs runs NCCL, whose start-up makes CUDA calls that fail on purpose
    # (peer access already enabled, a kernel image for another GPU looked up): compute-sanitizer
    # would count each as an error. Our own calls are all checked (CHECK), so for these chapters
    # the tools report what happens on the GPU only, in our kernels: NCCL's own kernels (the
    # baseline's, named nccl...) still run but are not checked, their buffers being NCCL's.
    api=""
    [ -f "$d/gpus" ] && api="--report-api-errors no --kernel-name-exclude kns=nccl"
    declare -A named=()  # for each line that names versions: how many of them a program has
    for prog in $(programs "$d"); do
        ours=$(build/"$prog" --list | awk 'NR > 1 && $3 == "ours" {print $1}')
        while read -r line; do
            # the versions the line names, if any: one "-v v13,v13-quadstore", tags as written
            args=$(echo " $line " | tr '\t' ' ')
            only=$(echo "$args" | sed -n 's/.* -v \([^ ]*\) .*/\1/p' | tr , ' ')
            args=$(echo "$args" | sed 's/ -v [^ ]* / /; s/^ *//; s/ *$//')
            line_ours=$ours
            if [ -n "$only" ]; then
                line_ours=$(for v in $ours; do echo " $only " | grep -q " $v " && echo "$v"; done)
                named[$line]=$(( ${named[$line]:-0} + $(echo "$line_ours" | grep -c .) ))
                [ -z "$line_ours" ] && continue  # none of this program's versions
            fi
            for tool in ${KL_SANITIZE_TOOLS:-memcheck racecheck initcheck synccheck}; do
                expected=$(awk -v t="$tool" '$1 == t {print $2}' "$d/sanitize.expect" 2>/dev/null)
                expected=$(for v in $expected; do echo "$line_ours" | grep -qx "$v" && echo "$v"; done)
                keep=$(for v in $line_ours; do echo "$expected" | grep -qx "$v" || echo "$v"; done | paste -sd,)
                if [ -n "$keep" ] || [ -z "$only" ]; then
                    # shellcheck disable=SC2086
                    sanitize "$tool" clean "$prog" $args -v "${keep:-all}" --check-only --warmup 0
                fi
                for v in $expected; do
                    # shellcheck disable=SC2086
                    sanitize "$tool" finding "$prog" $args -v "$v" --check-only --warmup 0
                done
            done
        done < <(arg_lines "$d/sanitize.args")
    done
    for line in "${!named[@]}"; do  # a line whose versions no program has: a typo, say so
        if [ "${named[$line]}" -eq 0 ]; then
            failed=$((failed + 1))
            echo "FAIL $(basename "$d")/sanitize.args: '$line' names no version of ours (--list)"
        fi
    done
    unset named
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
