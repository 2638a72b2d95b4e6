#!/bin/sh
# make bench: the regression suite with -j 1 (the peer: one entry at a
# time, as a real bench runs) and with -j 2, each the median of RUNS whole
# runs of `bcbench suite`, and the speed-up. Entries are isolated
# processes scheduled longest first, so on 2 cores -j 2 should be at least
# 1.8x faster than -j 1 (issue 6 asked 1.5x, issue 21 1.8x).
# Ceilings measured in the same rounds say what the machine gives:
#   CPU only: two independent processes (one simulated 10-minute DCP run
#     each, --no-capture: CPU, no file, a few page faults) side by side
#     against one after the other;
#   this work: the suite's two halves (--shard 1/2 and 2/2, each a whole
#     `bcbench suite -j 1` of its own, sharing nothing) side by side
#     against the whole suite at -j 1. No scheduler can beat that: it is
#     -j 2 without a suite in common. On a virtual machine whose page
#     faults, forks and exits cost several microseconds each and do not
#     run in parallel (docs/design.md, "Start-up cost"), it is well
#     under the CPU-only one.
# And each CPU's speed alone on that CPU-only run (taskset): where one is
# slower, two give at most 1 + t_fast / t_slow of the faster one.
# And the CPU time the same work takes (user and system, every process of
# the suite, from wait4): where -j 2 spends more of it than -j 1 (caches
# and memory shared, the hypervisor's page-table work), two CPUs give at
# most 2 x cpu(-j 1) / cpu(-j 2).
# The suite's speed-up is read against these.
set -u
BCBENCH=${1:-build/bcbench}
FWDIR=${2:-build/fw}
PEER=${PEER:-$(dirname "$BCBENCH")/bench/sr_peer}
RUNS=${RUNS:-5}
SUITE=${SUITE:-scripts/suites/regression.suite}
TMP=$(mktemp -d /tmp/bcbench-bsuite.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

. scripts/bench-lib.sh

echo
echo "suite: $SUITE on $(nproc) CPUs, median of $RUNS (after one warm-up run each)"
# Interleaved, -j 1 then -j 2, so a slow spell of the machine hits both.
for j in 1 2; do
	"$BCBENCH" suite -q --no-html -j "$j" --fwdir "$FWDIR" --out "$TMP/j$j" "$SUITE" >/dev/null 2>&1
done
printf 'name "ceiling"\nport dcp\ncharger dcp-1a\ncapture vbus ibus dp dm id at 10kHz\nvbus on\nwait 10min\n' \
	>"$TMP/ceiling.scn"
# suite_rss CPUFILE ARG...: `bcbench suite ARG... SUITE` timed by $PEER
# rss; its user and system seconds appended to CPUFILE, its rss line
# ("maxrss_kb ... seconds S exit E ...") printed
suite_rss() {
	cpufile=$1
	shift
	sout=$("$PEER" rss -- "$BCBENCH" suite -q --no-html --fwdir "$FWDIR" "$@" "$SUITE" 2>/dev/null |
		grep '^maxrss_kb')
	echo "$(echo "$sout" | field user_seconds) $(echo "$sout" | field sys_seconds)" >>"$cpufile"
	echo "$sout"
}
# half K: shard K of 2 of the suite, a suite of its own at -j 1
half() { [ "$(suite_rss "$TMP/hcpu$1" -j 1 --shard "$1/2" --out "$TMP/h$1" | field exit)" = 0 ]; }
one_sim() { "$BCBENCH" run -q --no-html --no-capture --force --out "$TMP/c$1" "$TMP/ceiling.scn" >/dev/null 2>&1; }
half 1
half 2
: >"$TMP/hcpu1"
: >"$TMP/hcpu2"
# the first two CPUs this process may use, for the per-CPU speeds
cpu_a=$(cpus_allowed | sed -n 1p)
cpu_b=$(cpus_allowed | sed -n 2p)
for i in $(seq "$RUNS"); do
for j in 1 2; do
	out=$(suite_rss "$TMP/cpu$j" -j "$j" --out "$TMP/j$j")
	rc=$(echo "$out" | field exit)
	[ "$rc" = 0 ] || echo "bench-suite: -j $j exited ${rc:-?}" >&2
	echo "$out" | field seconds >>"$TMP/walls$j"
done
	# the ceilings, in the same round
	t0=$(now)
	one_sim a
	one_sim b
	t1=$(now)
	one_sim a &
	one_sim b
	wait
	t2=$(now)
	echo "$t0 $t1 $t2" | awk '{ printf "%.6f\n", ($2 - $1) / ($3 - $2) }' >>"$TMP/ceil"
	# each CPU's own speed on the same run: a CPU slower than the other
	# caps what two can give over the faster one at 1 + t_fast / t_slow
	# (taskset, util-linux)
	if [ -n "$cpu_b" ] && command -v taskset >/dev/null 2>&1; then
		t0=$(now)
		taskset -c "$cpu_a" "$BCBENCH" run -q --no-html --no-capture --force --out "$TMP/p0" "$TMP/ceiling.scn" >/dev/null 2>&1
		ra=$?
		t1=$(now)
		taskset -c "$cpu_b" "$BCBENCH" run -q --no-html --no-capture --force --out "$TMP/p1" "$TMP/ceiling.scn" >/dev/null 2>&1
		rb=$?
		t2=$(now)
		if [ $ra -eq 0 ] && [ $rb -eq 0 ]; then
			echo "$t0 $t1 $t2" | awk '{ a = $2 - $1; b = $3 - $2; printf "%.6f %.6f %.6f\n", a, b, 1 + (a < b ? a / b : b / a) }' >>"$TMP/percpu"
		else
			echo "bench-suite: the run pinned to CPU $cpu_a or $cpu_b failed (exit $ra, $rb)" >&2
		fi
	fi
	t0=$(now)
	half 1 &
	pid=$!
	half 2
	r2=$?
	wait $pid
	r1=$?
	t1=$(now)
	if [ $r1 -eq 0 ] && [ $r2 -eq 0 ]; then
		tail -1 "$TMP/walls1" | awk -v a="$t0" -v b="$t1" '{ printf "%.6f\n", $1 / (b - a) }' >>"$TMP/work"
		# their CPU against the whole's at -j 1 in this round
		echo "$(tail -1 "$TMP/hcpu1") $(tail -1 "$TMP/hcpu2") $(tail -1 "$TMP/cpu1")" |
			awk 'NF == 6 && $5 + $6 > 0 { printf "%.6f\n", ($1 + $2 + $3 + $4) / ($5 + $6) }' >>"$TMP/hinfl"
	else
		echo "bench-suite: a half of the suite exited $r1, $r2: no ceiling of this work this round" >&2
	fi
done
w1=$(median <"$TMP/walls1")
w2=$(median <"$TMP/walls2")
ceil=$(median <"$TMP/ceil")
work=$( [ -s "$TMP/work" ] && median <"$TMP/work" || echo 0)
n=$(grep -m1 '^		"entries":' "$TMP/j1/suite.json" | sed 's/.*:[[:space:]]*\([0-9]*\).*/\1/')
printf '%-10s %10s %12s\n' jobs wall_s entries/s
echo "$w1 $n" | awk '{ printf "%-10s %10.3f %12.1f\n", "-j 1", $1, $2 / $1 }'
echo "$w2 $n" | awk '{ printf "%-10s %10.3f %12.1f\n", "-j 2", $1, $2 / $1 }'
# the speed-up of each round, for the spread
paste "$TMP/walls1" "$TMP/walls2" | awk '{ printf "%.2f\n", $1 / $2 }' | sort -g >"$TMP/sp"
echo "$w1 $w2 $(head -1 "$TMP/sp") $(tail -1 "$TMP/sp")" |
	awk '{ printf "speed-up -j 2 / -j 1: %.2fx (rounds %.2f-%.2fx; acceptance: >= 1.8x on 2 cores, issue 21)\n", $1 / $2, $3, $4 }'
echo "$ceil" | awk '{ printf "ceiling, CPU only: two independent runs side by side / one after the other: %.2fx\n", $1 }'
[ -s "$TMP/work" ] && echo "$work" | awk '{ printf "ceiling, this work: the two halves side by side (two suites at -j 1) / the whole at -j 1: %.2fx\n", $1 }'
# the CPU the same work took at -j 2 against -j 1, round by round (user,
# system, all); the bound 2 x all(-j 1) / all(-j 2)
paste "$TMP/cpu1" "$TMP/cpu2" | awk '$1 + $2 > 0 && $3 + $4 > 0 {
	printf "%.6f %.6f %.6f %.6f\n", $3 / $1, $4 / $2, ($3 + $4) / ($1 + $2), 2 * ($1 + $2) / ($3 + $4) }' >"$TMP/infl"
if [ -s "$TMP/infl" ]; then
	iu=$(awk '{ print $1 }' "$TMP/infl" | median)
	is=$(awk '{ print $2 }' "$TMP/infl" | median)
	ia=$(awk '{ print $3 }' "$TMP/infl" | median)
	ib=$(awk '{ print $4 }' "$TMP/infl" | median)
	sort -g -k4 "$TMP/infl" | awk -v u="$iu" -v s="$is" -v a="$ia" -v b="$ib" -v c1="$(awk '{ print $1 + $2 }' "$TMP/cpu1" | median)" \
		'{ v[NR] = $4 } END {
		printf "CPU of the same work, -j 2 / -j 1 (every process, user + system): %.2fx (user %.2fx, system %.2fx; -j 1 took %.2f s)\n", a, u, s, c1
		printf "ceiling, that CPU: 2 / %.2f = %.2fx (rounds %.2f-%.2fx)\n", a, b, v[1], v[NR] }'
fi
[ -s "$TMP/hinfl" ] && median <"$TMP/hinfl" | awk '{ printf "CPU of the two halves side by side / the whole at -j 1: %.2fx (the same inflation without a suite in common)\n", $1 }'
if [ -s "$TMP/percpu" ]; then
	c0=$(awk '{ print $1 }' "$TMP/percpu" | median)
	c1=$(awk '{ print $2 }' "$TMP/percpu" | median)
	sort -g -k3 "$TMP/percpu" | awk -v c0="$c0" -v c1="$c1" '{ b[NR] = $3 } END {
		printf "each CPU alone, the same run pinned: cpu'"$cpu_a"' %.3f s, cpu'"$cpu_b"' %.3f s; the most two such CPUs give over the faster, 1 + t_fast/t_slow: %.2fx (rounds %.2f-%.2fx)\n",
			c0, c1, (NR % 2) ? b[(NR + 1) / 2] : (b[NR / 2] + b[NR / 2 + 1]) / 2, b[1], b[NR] }'
fi
echo "$w1 $w2 $ceil $work ${ib:-0}" | awk '{ printf "the suite'"'"'s speed-up / the ceilings: %.0f%% of CPU only", 100 * $1 / $2 / $3
	if ($4 > 0) printf ", %.0f%% of this work'"'"'s", 100 * $1 / $2 / $4
	if ($5 > 0) printf ", %.0f%% of that CPU'"'"'s", 100 * $1 / $2 / $5; printf "\n" }'
# what the machine charges for the kernel work an entry does (tests/bench/vm_cost.c)
VMCOST=${VMCOST:-$(dirname "$BCBENCH")/bench/vm_cost}
if [ -x "$VMCOST" ]; then
	"$VMCOST" | awk '
		$1 == "fault_us" { f = $2 } $1 == "populate_us" { p = $2 } $1 == "fork_exit_ms" { k = $2 }
		$1 == "side_by_side" { sf = $3; sk = $5 }
		END { printf "this machine: a first touch of a page %s us (backed in one call: %s us), fork+exit %s ms;\n", f, p, k
		      printf "  two processes side by side / one after the other: faulting pages %sx, forking %sx\n", sf, sk }'
fi
