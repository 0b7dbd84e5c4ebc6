set terminal pngcairo size 1000,560
set output './pressure.png'
set datafile separator ','
set key top left
set title 'Callback backlog, hog of 400 ms on CPU 0 (starts at 0)'
set xlabel 'time since the hog started (ms)'
set ylabel 'callbacks retired, not yet freed'
set logscale y
set yrange [1:*]
set grid
plot './pressure.csv' using 1:2 with lines lw 2 title 'plain boosting', \
     '' using 1:3 with lines lw 2 title 'pressure, 64 callbacks', \
     '' using 1:4 with lines lw 2 dt 2 title 'pressure, 262144 bytes', \
     '' using 1:5 with lines lw 2 title 'liburcu urcu-memb', \
     131 with lines dt 3 lc rgb 'black' title 'goal: threshold + one period'
