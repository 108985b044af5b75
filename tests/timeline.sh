#!/usr/bin/env bash
# make timeline CH=06-tensor-cores: each line of chapters/CH/timeline.args run with --save into a
# folder of its own; the v16-timeline-units.csv each leaves (v16-timeline's notes: when each unit
# of work of each consumer warpgroup began and ended its parts) gathered into
# plots/results/<gpu>/timeline/CH-units.csv, then plots/timeline.py's table of it beside, CH.csv.
# Both are replaced only by a run whose every line worked. make plots draws the figures.
set -u
cd "$(dirname "$0")/.."
. tests/lib.sh
ch=${1:-}
if [ -z "$ch" ]; then echo "usage: make timeline CH=06-tensor-cores"; exit 2; fi
d=$(chapters "$ch") || exit 2
name=$(basename "$d")
if [ ! -f "$d/timeline.args" ]; then echo "make timeline: $d has no timeline.args"; exit 2; fi
if ! reason=$(gpu_present); then echo "make timeline: $reason"; exit 3; fi
slug=$(build/gpuinfo slug)
out="plots/results/$slug/timeline"
prog=build/$(programs "$d" | head -n 1)  # the chapter's first program
work=$(mktemp -d "${TMPDIR:-/tmp}/kl-timeline.XXXXXX")
trap 'rm -rf "$work"' EXIT
status=0 first=1
while read -r args; do
    echo "make timeline: $prog $args"
    rm -rf "$work/save"
    # shellcheck disable=SC2086
    if ! "$prog" $args --save "$work/save" </dev/null; then status=1; continue; fi
    units="$work/save/v16-timeline-units.csv"
    if [ ! -s "$units" ]; then
        echo "make timeline: no $(basename "$units") (did the line run v16-timeline?)"
        status=1
        continue
    fi
    if [ $first = 1 ]; then cat "$units" >"$work/units.csv"; first=0
    else tail -n +2 "$units" >>"$work/units.csv"; fi
done < <(arg_lines "$d/timeline.args")
if [ $status = 0 ] && [ $first = 0 ] &&
    python3 plots/timeline.py summary "$work/units.csv" "$work/summary.csv"; then
    mkdir -p "$out"
    mv "$work/units.csv" "$out/$name-units.csv"
    mv "$work/summary.csv" "$out/$name.csv"
    echo "make timeline: wrote $out/$name-units.csv and $out/$name.csv (make plots draws them)"
else
    echo "make timeline: a line failed (above); $out left as it was"
    status=1
fi
exit $status
