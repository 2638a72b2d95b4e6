# What the make bench scripts share; sourced after each sets TMP.
# Runs, replays and suites are timed with --no-html: the judging and the
# capture, like for like with the figures before; the page is timed on its
# own by bench-html.sh.
# now: wall time in seconds; median: of the numbers on stdin, one a line.
now() { date +%s.%N; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# ratio A B: A / B to two decimals
ratio() { echo "$1 $2" | awk '{ printf "%.2f", $1 / $2 }'; }
# field NAME: the number after NAME in the line on stdin
field() { awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }'; }
# secs_of CMD...: median wall seconds of RUNS runs of a whole process,
# measured by $PEER rss (tests/bench/sr_peer); rss_of CMD...: its peak RSS (KB)
secs_of() {
	: >"$TMP/s"
	for i in $(seq "$RUNS"); do "$PEER" rss -- "$@" 2>/dev/null | grep maxrss_kb | field seconds >>"$TMP/s"; done
	median <"$TMP/s"
}
rss_of() { "$PEER" rss -- "$@" 2>/dev/null | grep maxrss_kb | field maxrss_kb; }
# pin CPU CMD...: CMD on that CPU alone (taskset, util-linux); as it is
# where CPU is empty or there is no taskset
pin() {
	pin_to=$1
	shift
	if [ -n "$pin_to" ] && command -v taskset >/dev/null 2>&1; then taskset -c "$pin_to" "$@"; else "$@"; fi
}
# cpus_allowed: the CPU ids this process may run on, one a line
# (Cpus_allowed_list: "0-1", "2,5-7"); nothing where /proc has none
cpus_allowed() {
	sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status 2>/dev/null |
		tr ',' '\n' | awk -F- 'NF == 1 && $1 != "" { print $1 } NF == 2 { for (c = $1; c <= $2; c++) print c }'
}
