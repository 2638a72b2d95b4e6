#!/bin/sh
# make bench: what realistic measurement costs. Each scenario run under
# ideal measurement (the peer: the same scenario, firmware and rate) and
# under profiles/conditions/realistic.json (every sample a fresh noisy
# value, so the checks can no longer take runs of equal samples at once),
# median of RUNS whole processes each, and the ratio; then the wall time
# of scripts/suites/conditions.suite at -j 2 (its run time lives here, not
# in a test).
set -u
BCBENCH=${1:-build/bcbench}
FWDIR=${2:-build/fw}
RUNS=${RUNS:-3}
TMP=$(mktemp -d /tmp/bcbench-bcond.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

. scripts/bench-lib.sh

# timed NAME CMD...: median wall time of RUNS runs of CMD
timed() {
	name=$1
	shift
	: >"$TMP/$name.walls"
	for i in $(seq "$RUNS"); do
		t0=$(now)
		"$@" >/dev/null 2>&1
		t1=$(now)
		echo "$t0 $t1" | awk '{ printf "%.6f\n", $2 - $1 }' >>"$TMP/$name.walls"
	done
	median <"$TMP/$name.walls"
}

echo
echo "conditions: each scenario under ideal and realistic measurement, median of $RUNS"
printf '%-22s %10s %12s %10s\n' scenario ideal_s realistic_s ratio
for scn in scripts/scenarios/*.scn; do
	n=$(basename "$scn" .scn)
	wi=$(timed "$n-i" "$BCBENCH" run -q --no-html --out "$TMP/i" "$scn")
	wr=$(timed "$n-r" "$BCBENCH" run -q --no-html --conditions realistic --out "$TMP/r" "$scn")
	echo "$n $wi $wr" | awk '{ printf "%-22s %10.4f %12.4f %9.2fx\n", $1, $2, $3, $3 / $2 }'
done
ws=$(timed suite "$BCBENCH" suite -q --no-html -j 2 --fwdir "$FWDIR" --out "$TMP/s" scripts/suites/conditions.suite)
n=$(grep -m1 '^		"entries":' "$TMP/s/suite.json" | sed 's/.*:[[:space:]]*\([0-9]*\).*/\1/')
echo "$ws $n" | awk '{ printf "conditions.suite -j 2: %.3f s for %d entries (%.1f entries/s)\n", $1, $2, $2 / $1 }'
