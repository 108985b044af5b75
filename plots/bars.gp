# bars.gp: a chapter's versions at one size, as bars, reading columns by name.
# gnuplot -e "data='rows.csv'; rate='gbps'; ylab='GB/s'; ttl='...'; out='dir/name'" bars.gp
# With term='dumb' it prints the chart to the terminal instead.
set datafile separator ","
set datafile columnheaders
set style data histograms
set style fill solid 0.8 border -1
set boxwidth 0.8
set yrange [0:*]
set offsets 0, 0, graph 0.15, 0
set ylabel ylab
set title ttl noenhanced
set key off
set xtics rotate by -45 noenhanced
set grid ytics
if (exists("term") && term eq "dumb") {
    set terminal dumb size 100, 28
    set title ttl noenhanced
    set xtics norotate
    plot data using (column(rate)):xtic(strcol("version")) linecolor rgb "#3b6ea8", \
         '' using 0:(column(rate)):(sprintf("%.1f%%", column("pct_of_baseline"))) with labels offset 0,1
    exit
}
do for [fmt in "svg png"] {
    if (fmt eq "svg") { set terminal svg size 720, 380 font "sans,11" noenhanced } \
    else { set terminal png size 720, 380 noenhanced }
    set output out."-gnuplot.".fmt
    plot data using (column(rate)):xtic(strcol("version")) linecolor rgb "#3b6ea8", \
         '' using 0:(column(rate)):(column("pct_of_baseline") == column("pct_of_baseline") ? sprintf("%.1f%%", column("pct_of_baseline")) : "") with labels rotate by 90 left offset 0,0.5 font ",9"
    set output
}
