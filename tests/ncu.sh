#!/usr/bin/env bash
# make ncu CH=06-tensor-cores: the profiler's evidence for a chapter's README. For each line of
# chapters/CH/ncu.args ("version | kernel-name regex | program arguments") Nsight Compute counts
# the metrics of chapters/CH/profile.metrics on one launch of that kernel after the warm-up,
# clocks left as they are (--clock-control none), and plots/ncu.py files the counts, in base
# units, in plots/results/<gpu>/ncu/CH.csv: one row per line, which README tables then quote.
set -u
cd "$(dirname "$0")/.."
. tests/lib.sh
ch=${1:-}
if [ -z "$ch" ]; then echo "usage: make ncu CH=NN-topic"; exit 2; fi
d=$(chapters "$ch") || exit 2
name=$(basename "$d")
if [ ! -f "$d/ncu.args" ]; then echo "make ncu: $d has no ncu.args"; exit 2; fi
ncu=$(command -v ncu || echo "${CUDA_HOME:-/usr/local/cuda}/bin/ncu")
if [ ! -x "$ncu" ]; then echo "make ncu: ncu (Nsight Compute) not found; install it with the CUDA toolkit"; exit 1; fi
if ! reason=$(gpu_present); then echo "make ncu: $reason"; exit 3; fi
prog=build/$(programs "$d" | head -n 1)
metrics=$(tr -d ' \n' <"$d/profile.metrics")
slug=$(build/gpuinfo slug)
out="plots/results/$slug/ncu"
mkdir -p "$out"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kl-ncu.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
i=0
status=0
while IFS='|' read -r version regex args; do
    version=$(echo $version) regex=$(echo $regex)
    i=$((i + 1))
    echo "make ncu: $name $version ($regex): $prog $args"
    # warm-up launches 2, then the profiled one (the third launch of that kernel)
    # shellcheck disable=SC2086
    if ! "$ncu" --clock-control none --csv --page raw --print-units base \
        --kernel-name-base demangled -k "regex:$regex" --launch-skip 2 --launch-count 1 \
        --metrics "$metrics" --log-file "$tmp/$i.csv" $prog $args --warmup 3 --reps 1 \
        >"$tmp/$i.out" 2>&1; then
        echo "FAIL ncu on $version:"; tail -n 5 "$tmp/$i.out"; status=1; continue
    fi
    echo "$version|$args" >"$tmp/$i.what"
done < <(arg_lines "$d/ncu.args")
python3 plots/ncu.py "$name" "$tmp" "$out/$name.csv" || status=1
[ "$status" = 0 ] && echo "make ncu: wrote $out/$name.csv"
exit $status
