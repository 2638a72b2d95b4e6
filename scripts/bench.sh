#!/bin/sh
# make bench: how fast the simulated bench runs each scenario.
# Per scenario: simulated seconds, wall seconds of the whole process
# (median of RUNS), and the ratio simulated/wall: the speed against the
# peer every bench has, real time (a real bench runs at 1.0).
set -u
BCBENCH=${1:-build/bcbench}
RUNS=${RUNS:-3}
TMP=$(mktemp -d /tmp/bcbench-bench.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

. scripts/bench-lib.sh

printf '%-16s %12s %12s %14s %12s\n' scenario sim_s wall_s sim_s/wall_s samples
for scn in scripts/scenarios/*.scn; do
	name=$(basename "$scn" .scn)
	: >"$TMP/walls"
	for i in $(seq "$RUNS"); do
		t0=$(now)
		"$BCBENCH" run -q --no-html --out "$TMP/$name" "$scn" >/dev/null 2>&1
		t1=$(now)
		echo "$t0 $t1" | awk '{ printf "%.6f\n", $2 - $1 }' >>"$TMP/walls"
	done
	wall=$(median <"$TMP/walls")
	sim=$(grep -o '"sim_s":[[:space:]]*[0-9.e+-]*' "$TMP/$name/report.json" | head -1 | sed 's/.*:[[:space:]]*//')
	samples=$(grep -o '"samples":[[:space:]]*[0-9]*' "$TMP/$name/report.json" | head -1 | sed 's/.*:[[:space:]]*//')
	echo "$name $sim $wall $samples" | awk '{ printf "%-16s %12.1f %12.4f %14.0f %12d\n", $1, $2, $3, $2 / $3, $4 }'
done
