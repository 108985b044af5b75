#!/usr/bin/env bash
# make bench [CH=NN-topic]: each chapter's sweep (chapters/*/bench.args) into a fresh
# plots/results/<gpu>/NN-topic.csv (plus NN-topic.env.csv), then a terminal chart of it. A
# chapter with a `gpus` file (the fewest GPUs it runs on) goes into plots/results/<count>x-<gpu>/,
# <count> the GPUs it ran on, and is skipped, with a line, where there are fewer. A chapter of
# several programs benches topic-SUFFIX at bench-SUFFIX.args where there is one (06's
# tensor-cores-fp8: bench-fp8.args), else at bench.args as its first program (03's matmul-f64).
set -u
cd "$(dirname "$0")/.."
. tests/lib.sh

if ! reason=$(gpu_present); then echo "make bench: $reason"; exit 1; fi
slug=$(build/gpuinfo slug)
mkdir -p "plots/results/$slug"
echo "make bench: $(build/gpuinfo) -> plots/results/$slug/"
status=0
# On a terminal, a line on stderr before each run: how far the sweep is and, from the pace so
# far, about how long is left (runs differ a lot in length, so this is a rough guide).
total=0 done_runs=0 start=$(date +%s)
# the sizes program $2 of chapter folder $1 is benched at
bench_args() {
    local file="$1/bench${2#"$(programs "$1" | head -n 1)"}.args"
    [ -f "$file" ] && echo "$file" || echo "$1/bench.args"
}
for d in $(chapters "${1:-}"); do
    for prog in $(programs "$d"); do total=$((total + $(arg_lines "$(bench_args "$d" "$prog")" | wc -l))); done
done
say() {
    [ -t 2 ] || return 0
    local now left=""
    now=$(($(date +%s) - start))
    [ "$done_runs" -gt 0 ] && left=", about $((now * (total - done_runs) / done_runs)) s left"
    printf '[%d/%d, %d s so far%s] %s\n' "$((done_runs + 1))" "$total" "$now" "$left" "$*" >&2
}
for d in $(chapters "${1:-}"); do
    ch=$(basename "$d") topic=$(programs "$d" | head -n 1)
    dir="plots/results/$slug"
    need=$(arg_lines "$d/gpus" | head -n 1)
    if [ -n "$need" ]; then
        have=$(build/gpuinfo count)
        if [ "$have" -lt "$need" ]; then
            echo "make bench: $ch needs $need GPUs, this machine has $have: skipped"; continue
        fi
        dir="plots/results/${have}x-$slug"
        mkdir -p "$dir"
        echo "make bench: $ch on $have GPUs -> $dir/"
    fi
    for prog in $(programs "$d"); do
        csv="$dir/$ch${prog#"$topic"}.csv"  # matmul-f64 -> 03-matmul-f64.csv
        rm -f "$csv"
        while read -r args; do
            echo "== $prog $args"
            say "$(basename "$d"): $prog $args"
            line_start=$(date +%s)
            # shellcheck disable=SC2086
            build/"$prog" $args --csv "$csv" || status=1
            done_runs=$((done_runs + 1))
            # how long the line took, set-up and checks included: where a sweep's time goes
            echo "   ($(($(date +%s) - line_start)) s, $(($(date +%s) - start)) s since the sweep began)"
        done < <(arg_lines "$(bench_args "$d" "$prog")")
        bash plots/terminal.sh "$csv"
    done
done
exit $status
