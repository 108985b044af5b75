# roofline.gp: chapter 00's ceilings and each chapter's versions at its headline size, from the
# files plots/gnuplot.py writes (the points where plots/plot.py's roofline puts them).
# gnuplot -e "ceil='roofline-ceilings.dat'; data='roofline.dat'; labels='roofline-labels.gp';
#             bw=4257; ymax=2.1e6; roofs='#1f6f8b #b5542c'; roofdts='2 1'; names='01-transpose 02-shortcut'; ttl='...'; out='dir/roofline'" roofline.gp
set logscale x 2
set logscale y 10
set xrange [2**-6:2**12]
set yrange [1:ymax]  # room above the top ceiling for its name
set format x "%g"
set xlabel "operations per byte of device memory traffic"
set ylabel "G operations / s"
set title ttl noenhanced
set key bottom right noenhanced font ",9" title "chapter (versions joined in ladder order)"
set grid
set style textbox opaque noborder  # the ceilings' names on white, above the points
load labels
set label 100 sprintf("memory %.0f GB/s", bw) at 2**-5, bw * 2**-5 * 1.6 font ",8" front
chapter_colors = "#1f77b4 #ff7f0e #2ca02c #d62728 #9467bd #8c564b #e377c2 #7f7f7f #bcbd22 #17becf"
do for [fmt in "svg png"] {
    if (fmt eq "svg") { set terminal svg size 820, 540 font "sans,11" noenhanced } \
    else { set terminal png size 820, 540 noenhanced }
    set output out."-gnuplot.".fmt
    plot for [i = 1:words(roofs)] ceil index (i - 1) using 1:2 with lines lw 1.5 \
             lc rgb word(roofs, i) dt int(word(roofdts, i)) notitle, \
         for [i = 1:words(names)] data index (i - 1) using 1:2 with linespoints lw 0.6 \
             lc rgb word(chapter_colors, (i - 1) % 10 + 1) pt (i + 3) ps 0.9 title word(names, i)
    set output
}
