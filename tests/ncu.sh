#!/usr/bin/env bash
# make ncu CH=06-tensor-cores: the profiler's evidence for a chapter's README. For each line of
# chapters/CH/ncu.args ("version | regex on the kernel's function name | arguments") Nsight
# Compute counts the metrics of chapters/CH/profile.metrics on one launch after the warm-up,
# clocks left as they are (--clock-control none), and plots/ncu.py files the counts, in base
# units, in plots/results/<gpu>/ncu/CH.csv: one row per line, which README tables then quote.
# The profiled launch is the third of a kernel the regex matches (two warm-ups before it); a
# regex ending in @N profiles the Nth instead, for a version that launches one kernel several
# times a run (05's multi-pass reductions: @5 is the first pass of the second run).
# A chapter of several programs (chapters/CH/programs) profiles its first with ncu.args and
# another, topic-SUFFIX, with ncu-SUFFIX.args where there is one (03's matmul-f64:
# ncu-f64.args), into plots/results/<gpu>/ncu/CH-SUFFIX.csv.
# make ncu CH=06-tensor-cores V=v12,v12-halves profiles only the lines of those versions and
# merges their rows into the CSVs already there (the other rows kept as they were).
set -u
cd "$(dirname "$0")/.."
. tests/lib.sh
ch=${1:-}
only=$(echo "${2:-}" | tr ', ' '\n\n' | grep -v '^$' | paste -sd, -)  # v12,v12-halves (or spaces)
if [ -z "$ch" ]; then echo "usage: make ncu CH=NN-topic [V=v1,v2]"; exit 2; fi
if [ -n "${2:-}" ] && [ -z "$only" ]; then echo "make ncu: V='$2' names no version"; exit 2; fi
d=$(chapters "$ch") || exit 2
name=$(basename "$d")
if [ ! -f "$d/ncu.args" ]; then echo "make ncu: $d has no ncu.args"; exit 2; fi
if [ -n "$only" ]; then  # every version named must have a line, or the merge would hide a typo
    for v in $(echo "$only" | tr , ' '); do
        found=0
        for f in "$d"/ncu*.args; do
            while read -r line; do [ "$(echo ${line%%|*})" = "$v" ] && found=1; done < <(arg_lines "$f")
        done
        if [ $found = 0 ]; then echo "make ncu: no line of $d/ncu*.args profiles $v"; exit 2; fi
    done
fi
ncu=${KL_NCU:-$(command -v ncu || echo "${CUDA_HOME:-/usr/local/cuda}/bin/ncu")}  # KL_NCU: tests
if [ ! -x "$ncu" ]; then echo "make ncu: ncu (Nsight Compute) not found; install it with the CUDA toolkit"; exit 1; fi
if ! reason=$(gpu_present); then echo "make ncu: $reason"; exit 3; fi
metrics=$(tr -d ' \n' <"$d/profile.metrics")
slug=$(build/gpuinfo slug)
out="plots/results/$slug/ncu"
mkdir -p "$out"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kl-ncu.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
status=0 profiled=0
first=$(programs "$d" | head -n 1)
for program in $(programs "$d"); do
    suffix=${program#"$first"}  # "" for the first program, "-f64" for matmul-f64
    [ -f "$d/ncu$suffix.args" ] || continue
    prog=build/$program
    rm -f "$tmp"/*
    i=0
    while read -r line; do
        # the regex is everything between the first and the last |, so it may hold | itself
        rest=${line#*|} args=${line##*|}
        version=$(echo ${line%%|*}) regex=$(echo ${rest%|*})
        if [ -n "$only" ] && [[ ",$only," != *",$version,"* ]]; then continue; fi
        nth=3
        if [[ $regex =~ ^(.*)@([0-9]+)$ ]]; then regex=${BASH_REMATCH[1]} nth=${BASH_REMATCH[2]}; fi
        i=$((i + 1))
        echo "make ncu: $name$suffix $version ($regex): $prog $args"
        # shellcheck disable=SC2086
        if ! "$ncu" --clock-control none --csv --page raw --print-units base \
            -k "regex:$regex" --launch-skip $((nth - 1)) --launch-count 1 \
            --metrics "$metrics" --log-file "$tmp/$i.csv" $prog $args --warmup 3 --reps 1 \
            >"$tmp/$i.out" 2>&1; then
            echo "FAIL ncu on $version:"; tail -n 5 "$tmp/$i.out"; status=1; continue
        fi
        if ! grep -q '^"[0-9]' "$tmp/$i.csv"; then
            echo "FAIL ncu profiled no kernel matching '$regex' for $version:"; tail -n 5 "$tmp/$i.out"
            status=1; continue
        fi
        echo "$version|$args" >"$tmp/$i.what"
        profiled=$((profiled + 1))
    done < <(arg_lines "$d/ncu$suffix.args")
    if [ -n "$only" ] && ! ls "$tmp"/*.what >/dev/null 2>&1; then continue; fi  # none of V here
    if python3 plots/ncu.py "$name$suffix" "$tmp" "$out/$name$suffix.csv" "$metrics" ${only:+--merge}; then
        echo "make ncu: wrote $out/$name$suffix.csv"
    else
        status=1
    fi
done
if [ -n "$only" ] && [ $profiled = 0 ] && [ $status = 0 ]; then
    echo "make ncu: V=$only profiled nothing"; exit 1
fi
exit $status
