# bars.gp: a chapter's versions at one size, as bars, reading columns by name.
# gnuplot -e "data='CH.bars.csv'; rate='gbps'; ylab='GB/s ...'; ttl='...'; out='dir/name'; nbars=12" bars.gp
# The file (plots/gnuplot.py) has a column rgb: each version's colour, baselines grey.
# With term='dumb' it prints the chart to the terminal instead, from any results rows.
set datafile separator ","
set datafile columnheaders
set style fill solid 0.85 noborder
set yrange [0:*]
set offsets 0, 0, graph 0.15, 0
set ylabel ylab noenhanced
set title ttl noenhanced
set key off
set grid ytics
if (exists("term") && term eq "dumb") {
    set style data histograms
    set boxwidth 0.8
    set terminal dumb size 100, 28
    plot data using (column(rate)):xtic(strcol("version")) linecolor rgb "#3b6ea8", \
         '' using 0:(column(rate)):(sprintf("%.1f%%", column("pct_of_baseline"))) with labels offset 0,1
    exit
}
set xtics rotate by 60 right noenhanced font ",9"
set xrange [-0.7:nbars - 0.3]
width = nbars * 28 + 240 > 720 ? nbars * 28 + 240 : 720
pct(d) = column("pct_of_baseline") == column("pct_of_baseline") ? sprintf("%.1f%%", column("pct_of_baseline")) : ""
do for [fmt in "svg png"] {
    if (fmt eq "svg") { set terminal svg size width, 420 font "sans,11" noenhanced } \
    else { set terminal png size width, 420 noenhanced }
    set output out."-gnuplot.".fmt
    plot data using 0:(column(rate)):(0.75):(column("rgb")):xtic(strcol("version")) with boxes lc rgb variable, \
         '' using 0:(column(rate)):(pct(0)) with labels rotate by 90 left offset 0,0.5 font ",8"
    set output
}
