#!/usr/bin/env bash
# terminal.sh CSV: the chapter's headline bars as a text chart (gnuplot's dumb terminal).
cd "$(dirname "$0")/.." || exit 1
csv=$1
[ -f "$csv" ] || exit 0
command -v gnuplot >/dev/null || { echo "(no gnuplot: terminal chart skipped)"; exit 0; }
ch=$(basename "$csv" .csv)
where=$(cat "chapters/${ch%-f64}/headline" 2>/dev/null)
rows=$(mktemp)
awk -F, -v where="$(echo "$where" | tr ' ' '\n' | grep -v '^rate=\|^also=\|^bytes=\|^ops=' | paste -sd' ')" -f plots/select.awk "$csv" >"$rows"
rate=gbps
awk -F, 'NR==1{for(i=1;i<=NF;i++)c[$i]=i;next} $c["gflops"]!=""{f=1} END{exit !f}' "$rows" && rate=gflops
named=$(echo "$where" | tr ' ' '\n' | sed -n 's/^rate=//p')
[ -n "$named" ] && rate=$named
gnuplot -e "data='$rows'; rate='$rate'; ylab='$rate'; ttl='$ch ${where:-(largest size)}: $rate, % of baseline'; term='dumb'" plots/bars.gp
rm -f "$rows"
