#!/usr/bin/env bash
# make plots: every figure (matplotlib and gnuplot) and every README table, from the committed
# CSVs under plots/results/<gpu>/. Needs no GPU.
#   plot.sh              figures into plots/figures/<gpu>/, README tables rewritten
#   plot.sh --out DIR    figures into DIR/<gpu>/, README tables only checked (make test)
# Prints one PASS or FAIL line per figure and per README.
set -u
cd "$(dirname "$0")/.."
out_root=plots/figures check=""
if [ "${1:-}" = "--out" ]; then out_root=$2 check=--check; fi
if [ -f build/plots-skip ]; then echo "SKIP plots: $(cat build/plots-skip)"; exit 0; fi
status=0
py() { plots/python.sh "$@"; }

for res in plots/results/*/; do
    [ -d "$res" ] || continue
    gpu=$(basename "$res") out="$out_root/$gpu"
    mkdir -p "$out"
    py plots/plot.py "$res" "$out" || status=1
    for script in plots/[0-9][0-9]-*.py; do
        [ -f "$script" ] || continue
        csv="$res$(basename "$script" .py).csv"
        [ -f "$csv" ] || continue
        if py "$script" "$csv" "$out" >/dev/null; then echo "PASS figure script $script"
        else echo "FAIL figure script $script"; status=1; fi
    done
    # make timeline's notes (plots/timeline.py): a figure per size
    for units in "$res"timeline/*-units.csv; do
        [ -f "$units" ] || continue
        if py plots/timeline.py figure "$units" "$out" >/dev/null; then echo "PASS figure timeline $units"
        else echo "FAIL figure timeline $units"; status=1; fi
    done
    if ! command -v gnuplot >/dev/null; then
        echo "SKIP gnuplot charts: gnuplot is not installed"
        continue
    fi
    # gnuplot draws what plot.py draws: plots/gnuplot.py picks the rows (headline, sweep,
    # roofline points) and writes them with each version's look; 00-peaks has no ladder and is
    # left to plots/00-peaks.py, as plot.py leaves it
    work=$(mktemp -d)
    py plots/gnuplot.py "$res" "$work" >"$work/written" || { echo "FAIL gnuplot data for $gpu"; status=1; }
    for ch in $(grep -vx roofline "$work/written"); do
        args=$(cat "$work/$ch.args")
        if gnuplot -e "$args; data='$work/$ch.bars.csv'; out='$out/$ch-bars'" plots/bars.gp 2>"$work/err" &&
           [ -s "$out/$ch-bars-gnuplot.svg" ]; then
            echo "PASS gnuplot $ch-bars"
        else
            echo "FAIL gnuplot $ch-bars: $(head -n 3 "$work/err")"; status=1
        fi
        case "$args" in *swept=0*) continue ;; esac
        if gnuplot -e "$args; data='$work/$ch.sweep.dat'; out='$out/$ch'" plots/sweep.gp 2>"$work/err" &&
           [ -s "$out/$ch-sweep-gnuplot.png" ]; then
            echo "PASS gnuplot $ch-sweep"
        else
            echo "FAIL gnuplot $ch-sweep: $(head -n 3 "$work/err")"; status=1
        fi
    done
    if grep -qx roofline "$work/written"; then
        if gnuplot -e "$(cat "$work/roofline.args"); ceil='$work/roofline-ceilings.dat'; data='$work/roofline.dat'; labels='$work/roofline-labels.gp'; out='$out/roofline'" \
               plots/roofline.gp 2>"$work/err" && [ -s "$out/roofline-gnuplot.svg" ]; then
            echo "PASS gnuplot roofline"
        else
            echo "FAIL gnuplot roofline: $(head -n 3 "$work/err")"; status=1
        fi
    fi
    rm -rf "$work"
done
py plots/tables.py $check || status=1
exit $status
