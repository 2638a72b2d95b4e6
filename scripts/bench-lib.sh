# What the make bench scripts share; sourced after each sets TMP.
# now: wall time in seconds; median: of the numbers on stdin, one a line.
now() { date +%s.%N; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
