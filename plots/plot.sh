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
    if ! command -v gnuplot >/dev/null; then
        echo "SKIP gnuplot charts: gnuplot is not installed"
        continue
    fi
    files="" names=""
    for csv in "$res"*.csv; do
        case "$csv" in *.env.csv) continue ;; esac
        ch=$(basename "$csv" .csv)
        rows=$(mktemp)
        where=$(cat "chapters/${ch%-f64}/headline" 2>/dev/null)
        awk -F, -v where="$(echo "$where" | tr ' ' '\n' | grep -v '^rate=\|^also=\|^bytes=\|^ops=' | paste -sd' ')" -f plots/select.awk "$csv" >"$rows"
        # the sweep: the headline's filters other than the sizes (an input, say, and the timing
        # where it names one, as plots/common.py's sweep_rows)
        awk -F, -v where="$(echo "$where" | tr ' ' '\n' | grep -v '^[mnk]=\|^rate=\|^also=\|^bytes=\|^ops=' | paste -sd' ')" \
            -f plots/select.awk "$csv" >"$rows.sweep"
        # as in the matplotlib figures, variants (v3-e2e, v9-loop, f0-narrow, peak-1wg) are left to
        # the tables, and of rows timed several ways (07: per launch, batch, graph), the batches
        # where there are any, else the launches, else the interleaved ones (as plots/common.py's
        # one_timing)
        for f in "$rows" "$rows.sweep"; do
            awk -F, 'function t(){return c["timing"] && $c["timing"]!="" ? $c["timing"] : "launch"}
                     NR==FNR{if(FNR==1)for(i=1;i<=NF;i++)c[$i]=i; else seen[t()]=1; next}
                     FNR==1{keep=seen["batch"] ? "batch" : seen["launch"] ? "launch" : seen["interleaved"] ? "interleaved" : "launch"; print; next}
                     $c["version"] !~ /^([vcf][0-9]+[a-w]?|peak)-/ && t()==keep' "$f" "$f" >"$f.kept" && mv "$f.kept" "$f"
        done
        rate=gbps
        awk -F, 'NR==1{for(i=1;i<=NF;i++)c[$i]=i;next} $c["gflops"]!=""{f=1} END{exit !f}' "$rows" && rate=gflops
        named=$(echo "$where" | tr ' ' '\n' | sed -n 's/^rate=//p')
        [ -n "$named" ] && rate=$named
        versions=$(awk -F, 'NR==1{for(i=1;i<=NF;i++)c[$i]=i;next} !s[$c["version"]]++{printf "%s ", $c["version"]}' "$rows")
        if gnuplot -e "data='$rows'; rate='$rate'; ylab='$rate'; ttl='$ch ($gpu)'; out='$out/$ch-bars'" plots/bars.gp 2>"$rows.err" &&
           gnuplot -e "data='$rows.sweep'; rate='$rate'; ylab='$rate'; ttl='$ch ($gpu)'; out='$out/$ch'; versions='$versions'" plots/sweep.gp 2>>"$rows.err" &&
           [ -s "$out/$ch-bars-gnuplot.svg" ] && [ -s "$out/$ch-sweep-gnuplot.png" ]; then
            echo "PASS gnuplot $ch-bars and $ch-sweep"
        else
            echo "FAIL gnuplot $ch: $(head -n 3 "$rows.err")"; status=1
        fi
        rm -f "$rows" "$rows.err" "$rows.sweep"
        [ "$ch" != 00-peaks ] && files="$files $csv" names="$names $ch"
    done
    peaks="$res/00-peaks.csv"
    if [ -f "$peaks" ] && [ -n "$files" ]; then
        bw=$(awk -F, 'NR==1{for(i=1;i<=NF;i++)c[$i]=i;next} $c["version"]=="memcpy" && $c["gbps"]>b{b=$c["gbps"]} END{print b+0}' "$peaks")
        fma=$(awk -F, 'NR==1{for(i=1;i<=NF;i++)c[$i]=i;next} $c["version"]=="fma"{f=$c["gflops"]} END{print f+0}' "$peaks")
        if gnuplot -e "bw=$bw; fma=$fma; files='$files'; names='$names'; out='$out/roofline'" plots/roofline.gp 2>/dev/null &&
           [ -s "$out/roofline-gnuplot.svg" ]; then
            echo "PASS gnuplot roofline"
        else
            echo "FAIL gnuplot roofline"; status=1
        fi
    fi
done
py plots/tables.py $check || status=1
exit $status
