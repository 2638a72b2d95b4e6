#!/bin/sh
# make check's runner: the unit tests (BN_CHECK_JOBS at a time, 2 by
# default: most of their time is spent waiting on ptys and child
# processes), the fuzz corpora, the integration scripts. Says what each
# part cost, so the README's CI figures can be checked.
# Usage: sh tests/check.sh BUILD UNIT_TEST...   (from the repository root)
set -u
BUILD=$1
shift
JOBS=${BN_CHECK_JOBS:-2}
MAKE=${MAKE:-make}
. tests/lanes.sh
TMP=$(mktemp -d /tmp/bcbench-check.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
fails=0
now() { date +%s; }

t0=$(now)
lanes "$JOBS" "$TMP/units" "env BN_FWDIR=$BUILD/fw BN_EMUDIR=$BUILD/emu" "$@"
fails=$((fails + lanes_failed))
t1=$(now)
echo "== fuzz corpora"
$MAKE --no-print-directory fuzz-replay || fails=$((fails + 1))
t2=$(now)
echo "== integration"
BCBENCH=$BUILD/bcbench FWDIR=$BUILD/fw EMUDIR=$BUILD/emu sh tests/integration/run.sh || fails=$((fails + 1))
t3=$(now)
echo "make check: unit tests $((t1 - t0)) s ($# programs, $JOBS at a time), fuzz corpora $((t2 - t1)) s, integration $((t3 - t2)) s"
if [ $fails -ne 0 ]; then
	echo "make check: $fails test program(s) failed"
	exit 1
fi
echo "make check: all tests passed"
