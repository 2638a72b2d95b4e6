#!/bin/sh
# make bench: a suite's memory must not grow with its entries (issue 16).
# Generates suites of SIZES entries (default 300 and 1000) of one short
# scenario (SCENARIO, default float.scn: 2 s simulated, a 28 kB report),
# runs each at -j 2 with --junit, then merges each with itself and diffs
# it against itself, and prints each process's peak RSS and the ratio of
# the largest suite's to the smallest's.
#
# The suite: VmHWM of the suite process alone, from /proc while it runs;
# with strace present the process is also held at its exit_group for a
# moment and read there, so the figure covers its last act (suite.json,
# JUnit). GNU time would not do for it: Linux folds the peak of a
# process's reaped children (the entries' runs) into what wait4 reports.
# merge and diff have no children: GNU time -v "Maximum resident set
# size" (package time).
#
# The bound: a suite.json names its entries' reports by path and sha256
# (bcbench-suite/2) and each process reads one report at a time, so what
# grows with the entries is only their small records (a few kB each, the
# parsed suite file's entries, the records as cJSON), not the reports: the
# peak RSS of each of suite, merge and diff grows by at most
# RSS_KB_PER_ENTRY (default 16) kB an entry between the smallest and the
# largest size (plus 1 MB for the allocator's granularity, which matters
# only between small sizes), whatever the reports' size. Exit 1 when one
# does not, or when a run fails. (With reports embedded, bcbench-suite/1,
# it was 150 to 350 kB an entry with this scenario's 28 kB report, and
# grew with the report.)
set -u
BCBENCH=${1:-build/bcbench}
FWDIR=${2:-build/fw}
SIZES=${SIZES:-300 1000}
SCENARIO=${SCENARIO:-scripts/scenarios/float.scn}
RSS_KB_PER_ENTRY=${RSS_KB_PER_ENTRY:-16}
TMP=$(mktemp -d /tmp/bcbench-brss.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

# gen N: TMP/N.suite, N copies of the scenario (one entry each: the ids,
# named by the scenario's stem, must differ).
gen() {
	mkdir -p "$TMP/scn$1"
	{
		echo "suite \"rss $1\""
		echo "watchdog 30s"
		i=1
		while [ "$i" -le "$1" ]; do
			f=$(printf '%s/scn%s/s%04d.scn' "$TMP" "$1" "$i")
			cp "$SCENARIO" "$f"
			echo "scenario $f"
			i=$((i + 1))
		done
	} >"$TMP/$1.suite"
}

hwm_kb() { sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$1/status" 2>/dev/null; }

# vmhwm CMD...: run it, print its peak RSS in kB (VmHWM) on fd 3.
vmhwm() {
	if command -v strace >/dev/null 2>&1; then
		strace -qq -o /dev/null -e trace=exit_group \
			-e inject=exit_group:delay_enter=700000 "$@" &
		w=$!
		# strace's child that runs CMD (not one of the children it forks
		# at start to probe the kernel)
		comm=$(basename "$1" | cut -c1-15)
		pid=""
		while [ -z "$pid" ] && kill -0 "$w" 2>/dev/null; do
			for c in $(ps -o pid= --ppid "$w"); do
				[ "$(cat "/proc/$c/comm" 2>/dev/null)" = "$comm" ] && pid=$c
			done
			[ -n "$pid" ] || sleep 0.01
		done
	else
		"$@" &
		w=$!
		pid=$w
	fi
	peak=0
	while kill -0 "$w" 2>/dev/null; do
		v=$(hwm_kb "$pid")
		[ -n "$v" ] && [ "$v" -gt "$peak" ] && peak=$v
		sleep 0.05
	done
	wait "$w"
	rc=$?
	echo "$peak" >&3
	return $rc
}

# gnu_rss CMD...: GNU time's maximum resident set size in kB on fd 3.
gnu_rss() {
	/usr/bin/time -v -o "$TMP/time.txt" "$@"
	rc=$?
	sed -n 's/.*Maximum resident set size (kbytes): *//p' "$TMP/time.txt" >&3
	return $rc
}

if [ ! -x /usr/bin/time ] || ! /usr/bin/time -v true >/dev/null 2>&1; then
	echo "bench-suite-rss: needs GNU time (/usr/bin/time -v; package time)" >&2
	exit 2
fi

echo
echo "suite peak RSS: $(basename "$SCENARIO") x SIZES at -j 2 (VmHWM of the suite process$(command -v strace >/dev/null 2>&1 && echo ', read at its exit'))"
printf '%-8s %10s %12s %12s %12s %10s\n' entries wall_s suite_kB merge_kB diff_kB json_kB
first=""
last=""
fail=0
for n in $SIZES; do
	gen "$n"
	t0=$(date +%s.%N)
	vmhwm "$BCBENCH" suite -q --no-html -j 2 --fwdir "$FWDIR" --out "$TMP/out$n" \
		--junit "$TMP/out$n/junit.xml" "$TMP/$n.suite" >"$TMP/suite$n.log" 2>&1 \
		3>"$TMP/rss$n"
	rc=$?
	t1=$(date +%s.%N)
	# Every entry must pass: a figure of a run that went wrong (a disk
	# full, say) measures something else.
	[ "$rc" -eq 0 ] || { echo "bench-suite-rss: suite of $n exited $rc" >&2; tail -4 "$TMP/suite$n.log" >&2; fail=1; }
	gnu_rss "$BCBENCH" merge -o "$TMP/out$n/merged.json" "$TMP/out$n/suite.json" \
		>/dev/null 2>"$TMP/merge$n.log" 3>"$TMP/mrss$n" ||
		{ echo "bench-suite-rss: merge of $n failed" >&2; tail -4 "$TMP/merge$n.log" >&2; fail=1; }
	gnu_rss "$BCBENCH" diff -q "$TMP/out$n/suite.json" "$TMP/out$n/merged.json" \
		>/dev/null 2>"$TMP/diff$n.log" 3>"$TMP/drss$n" ||
		{ echo "bench-suite-rss: diff of $n failed" >&2; tail -4 "$TMP/diff$n.log" >&2; fail=1; }
	json_kb=$(( $(wc -c <"$TMP/out$n/suite.json") / 1024 ))
	echo "$n $t0 $t1 $(cat "$TMP/rss$n") $(cat "$TMP/mrss$n") $(cat "$TMP/drss$n") $json_kb" |
		awk '{ printf "%-8d %10.1f %12d %12d %12d %10d\n", $1, $3 - $2, $4, $5, $6, $7 }'
	[ -n "$first" ] || first=$n
	last=$n
	rm -rf "$TMP/out$n" "$TMP/scn$n"
done
[ "$first" != "$last" ] || exit $fail
for what in rss mrss drss; do
	a=$(cat "$TMP/$what$first")
	b=$(cat "$TMP/$what$last")
	name=$(case $what in rss) echo suite ;; mrss) echo merge ;; drss) echo diff ;; esac)
	echo "$name $a $b" | awk -v f="$first" -v l="$last" -v bound="$RSS_KB_PER_ENTRY" -v slack=1024 '{
		slope = ($3 - $2) / (l - f)
		within = $3 - $2 <= bound * (l - f) + slack
		printf "%-5s peak RSS %d / %d entries: %.2fx, %+.1f kB an entry (bound: <= %g kB an entry)%s\n",
			$1, l, f, $3 / $2, slope, bound, within ? "" : "  OVER"
		exit !within }' || fail=1
done
exit $fail
