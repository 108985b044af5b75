# sweep.gp: a chapter's rate over problem sizes, one line per version, columns read by name.
# gnuplot -e "data='rows.csv'; rate='gbps'; ylab='GB/s'; ttl='...'; out='dir/name'; versions='v0 v1'" sweep.gp
set datafile separator ","
set datafile columnheaders
set logscale xy
set ylabel ylab
set xlabel "elements (m x n x k)"
set title ttl noenhanced
set key outside right noenhanced
set grid
size(dummy) = column("m") * column("n") * column("k")
pick(v) = (strcol("version") eq v) ? column(rate) : NaN
do for [fmt in "svg png"] {
    if (fmt eq "svg") { set terminal svg size 760, 400 font "sans,11" noenhanced } \
    else { set terminal png size 760, 400 noenhanced }
    set output out."-sweep-gnuplot.".fmt
    plot for [v in versions] data using (size(0)):(pick(v)) with linespoints title v
    set output
}
