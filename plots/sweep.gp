# sweep.gp: a chapter's rate over its square sizes, one line a version, from the file that
# plots/gnuplot.py writes (one block a version, sorted by size: elements, rate, tick label), so
# that a version's points join into its line. Ours take the chapter's colours, each its own point
# type; baselines are grey and dashed, without points.
# gnuplot -e "data='CH.sweep.dat'; ylab='GFLOP/s'; xlab='n'; sttl='...'; out='dir/CH';
#             versions='cublas v0'; colors='#000000 #bddf26'; pts='-1 1'; dts='2 1'" sweep.gp
set logscale xy
set ylabel ylab noenhanced
set xlabel xlab noenhanced
set title sttl noenhanced
set key outside right noenhanced font ",9"
set grid ytics
set xtics rotate by 30 right font ",9"
ours(i) = int(word(pts, i)) > 0
do for [fmt in "svg png"] {
    if (fmt eq "svg") { set terminal svg size 880, 440 font "sans,11" noenhanced } \
    else { set terminal png size 880, 440 noenhanced }
    set output out."-sweep-gnuplot.".fmt
    plot for [i = 1:words(versions)] data index (i - 1) using 1:2:xtic(3) with linespoints \
         lc rgb word(colors, i) dt int(word(dts, i)) pt (ours(i) ? int(word(pts, i)) : 0) \
         ps (ours(i) ? 0.8 : 0) lw (ours(i) ? 1.5 : 2) title word(versions, i)
    set output
}
