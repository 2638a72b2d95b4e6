#!/bin/sh
# make bench: the regression suite with -j 1 (the peer: one entry at a
# time, as a real bench runs) and with -j 2, each the median of RUNS whole
# runs of `bcbench suite`, and the speed-up. Entries are isolated
# processes scheduled longest first, so on 2 cores -j 2 should be at least
# 1.8x faster than -j 1 (issue 6 asked 1.5x, issue 21 1.8x).
set -u
BCBENCH=${1:-build/bcbench}
FWDIR=${2:-build/fw}
RUNS=${RUNS:-3}
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
for i in $(seq "$RUNS"); do
for j in 1 2; do
	t0=$(now)
	"$BCBENCH" suite -q --no-html -j "$j" --fwdir "$FWDIR" --out "$TMP/j$j" "$SUITE" >/dev/null 2>&1
	rc=$?
	t1=$(now)
	[ $rc -eq 0 ] || echo "bench-suite: -j $j exited $rc" >&2
	echo "$t0 $t1" | awk '{ printf "%.6f\n", $2 - $1 }' >>"$TMP/walls$j"
done
done
w1=$(median <"$TMP/walls1")
w2=$(median <"$TMP/walls2")
n=$(grep -m1 '^		"entries":' "$TMP/j1/suite.json" | sed 's/.*:[[:space:]]*\([0-9]*\).*/\1/')
printf '%-10s %10s %12s\n' jobs wall_s entries/s
echo "$w1 $n" | awk '{ printf "%-10s %10.3f %12.1f\n", "-j 1", $1, $2 / $1 }'
echo "$w2 $n" | awk '{ printf "%-10s %10.3f %12.1f\n", "-j 2", $1, $2 / $1 }'
echo "$w1 $w2" | awk '{ printf "speed-up -j 2 / -j 1: %.2fx (acceptance: >= 1.8x on 2 cores, issue 21)\n", $1 / $2 }'
