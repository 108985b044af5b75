# roofline.gp: the memory and FP32 ceilings from 00-peaks and each chapter's versions under them.
# gnuplot -e "bw=4232; fma=56000; files='a.csv b.csv'; names='01-transpose 02-x'; out='dir/roofline'" roofline.gp
# Rows without an operation count sit on the memory roof at one operation per element moved.
set datafile separator ","
set datafile columnheaders
set logscale xy 2
set logscale y 10
set xrange [1.0/32:1024]
set xlabel "operations per byte of device memory traffic"
set ylabel "G operations / s"
set title "Every version under the ceilings measured by 00-peaks" noenhanced
set key bottom right noenhanced
set grid
roof(x) = (bw * x < fma) ? bw * x : fma
has(c) = column(c) == column(c) && column(c) > 0
ix(d) = has("gflops") ? column("gflops") / column("gbps") : 1.0 / 8
iy(d) = has("gflops") ? column("gflops") : column("gbps") / 8
do for [fmt in "svg png"] {
    if (fmt eq "svg") { set terminal svg size 720, 460 font "sans,11" noenhanced } \
    else { set terminal png size 720, 460 noenhanced }
    set output out."-gnuplot.".fmt
    plot roof(x) with lines lw 2 lc rgb "black" title sprintf("roof: %.0f GB/s, %.0f GFLOP/s", bw, fma), \
         for [i = 1:words(files)] word(files, i) using (ix(0)):(iy(0)) with points pt 7 ps 0.6 title word(names, i)
    set output
}
