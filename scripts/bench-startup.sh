#!/bin/sh
# make bench: the fixed cost of a process (docs/design.md, "Two
# binaries"). bcbench links no hardware library; its peer is bcbench-hw,
# the same program with libsigrok, libftdi1, libserialport and libusb,
# which is what every run cost before the split. Prints the libraries
# each one maps for a simulated run (the dynamic linker's own list,
# LD_DEBUG=libs), then the wall time of a tiny run (sdp-root.scn, 2.3
# simulated s) and of `version` (start-up alone), each the median over
# BLOCKS blocks of N runs, the two binaries taking turns block by block so
# a drift of the machine's speed hits both; and the ratio.
set -u
BCBENCH=${1:-build/bcbench}
HWBIN=${2:-$(dirname "$BCBENCH")/bcbench-hw}
N=${N:-10}
BLOCKS=${BLOCKS:-5}
SCN=scripts/scenarios/sdp-root.scn
TMP=$(mktemp -d /tmp/bcbench-startup.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

. scripts/bench-lib.sh

# mapped BIN: the shared libraries a simulated run of BIN initialises
mapped() {
	LD_DEBUG=libs "$1" run -q --no-html --out "$TMP/ld" "$SCN" 2>&1 >/dev/null |
		awk '/calling init:/ { print $NF }' | sort -u
}
# block BIN ARGS...: seconds per run over N runs in a row
block() {
	t0=$(now)
	for i in $(seq "$N"); do "$@" >/dev/null 2>&1; done
	t1=$(now)
	echo "$t0 $t1 $N" | awk '{ printf "%.6f\n", ($2 - $1) / $3 }'
}

mapped "$BCBENCH" >"$TMP/a.libs"
mapped "$HWBIN" >"$TMP/b.libs"
echo "libraries mapped by a simulated run ($SCN)"
printf '%-12s %4d  %s\n' bcbench "$(wc -l <"$TMP/a.libs")" "$(sed 's|.*/||' "$TMP/a.libs" | tr '\n' ' ')"
printf '%-12s %4d  +%s\n' bcbench-hw "$(wc -l <"$TMP/b.libs")" \
	"$(comm -13 "$TMP/a.libs" "$TMP/b.libs" | sed 's|.*/||' | tr '\n' ' ')"

printf '%-22s %12s %12s %8s\n' "median of $BLOCKS x $N" bcbench_ms bcbench-hw_ms ratio
for what in run version; do
	: >"$TMP/a" && : >"$TMP/b"
	for j in $(seq "$BLOCKS"); do
		if [ "$what" = run ]; then
			block "$BCBENCH" run -q --no-html --out "$TMP/r" "$SCN" >>"$TMP/a"
			block "$HWBIN" run -q --no-html --out "$TMP/r" "$SCN" >>"$TMP/b"
		else
			block "$BCBENCH" version >>"$TMP/a"
			block "$HWBIN" version >>"$TMP/b"
		fi
	done
	a=$(median <"$TMP/a") b=$(median <"$TMP/b")
	echo "$what $a $b" | awk '{ printf "%-22s %12.2f %12.2f %7.2fx\n", ($1 == "run" ? "tiny run (sdp-root)" : "version (start-up)"), $2 * 1000, $3 * 1000, $3 / $2 }'
done
