#!/bin/sh
# The labgrid driver (contrib/labgrid/bcbench_labgrid.py) through
# labgrid's pytest plugin (python3-labgrid 0.4.1, python3-pytest): the
# environment tests/labgrid/env.yaml holds a simulated bench, a bench
# whose load and supply are RawSerialPort resources on the instrument
# emulator's pseudo-terminals (EMUDIR/instr_emu, the fixture simulated, as
# realbench-curve.sh), and a bench whose load is not there;
# tests/labgrid/test_bcbench.py runs scenarios and a suite on them and
# checks verdicts, report paths, bench.conf and the exceptions for bad
# input and a bench fault. Run from the repository root.
set -u
BCBENCH=${BCBENCH:-build/bcbench}
FWDIR=${FWDIR:-build/fw}
EMUDIR=${EMUDIR:-build/emu}
TMP=$(mktemp -d /tmp/bcbench-labgrid.XXXXXX)
EPIDS=""
# An emulator exits when bcbench closes its port; its pid may be another
# process's by the time this script ends (pid_max is often 32768), so
# only a pid that is still an instr_emu is stopped.
trap 'stop_emus; rm -rf "$TMP"' EXIT
. tests/integration/lib.sh

if ! /usr/bin/python3 -c 'import labgrid, pytest' 2>/dev/null; then
	bad "python3-labgrid or python3-pytest is missing (scripts/install-deps.sh installs them)"
	echo "labgrid: $pass passed, $fail failed"
	exit 1
fi
if [ ! -x "$EMUDIR/instr_emu" ]; then
	bad "$EMUDIR/instr_emu not built (make units)"
	echo "labgrid: $pass passed, $fail failed"
	exit 1
fi

abs() { case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }

emu load rigol-dl3000 --log "$TMP/load.log" --sink-out "$TMP/sink"
LG_LOAD_PTY=$pty
emu supply rigol-dp800 --log "$TMP/supply.log" --ohms 0 --sink-file "$TMP/sink"
LG_SUPPLY_PTY=$pty

PYTHONDONTWRITEBYTECODE=1 XDG_STATE_HOME=$TMP/xdg LG_BCBENCH=$(abs "$BCBENCH") LG_FWDIR=$(abs "$FWDIR") LG_DATADIR=$PWD LG_SCRATCH=$TMP \
	LG_LOAD_PTY=$LG_LOAD_PTY LG_SUPPLY_PTY=$LG_SUPPLY_PTY LG_LOAD_LOG=$TMP/load.log \
	/usr/bin/python3 -m pytest -p no:cacheprovider -q -rA --lg-env tests/labgrid/env.yaml \
	--junitxml "$TMP/pytest.xml" tests/labgrid/test_bcbench.py >"$TMP/pytest.out" 2>&1
rc=$?
# one line per test: PASSED/FAILED NAME
n_tests=$(grep -c '^PASSED ' "$TMP/pytest.out")
if [ $rc -eq 0 ] && [ "$n_tests" -eq 15 ]; then
	grep '^PASSED ' "$TMP/pytest.out" | while read -r _ t; do echo "ok   pytest: $t"; done
	pass=$((pass + n_tests))
else
	bad "pytest exit $rc, $n_tests of 15 passed:"
	sed 's/^/     | /' "$TMP/pytest.out" | tail -40
	for p in $EPIDS; do grep -q instr_emu "/proc/$p/cmdline" 2>/dev/null && echo "     | emulator $p still running" || echo "     | emulator $p exited"; done
	tail -n 3 "$TMP"/*.out "$TMP"/*.log 2>/dev/null | sed 's/^/     | /'
fi

# The supply followed the curve through the pty bench's run, and both
# instruments were left off.
[ "$(grep -c '^:SOUR1:VOLT' "$TMP/supply.log" 2>/dev/null)" -gt 2 ] &&
	ok "the pty bench's supply followed the curve" || bad "supply setpoints: $(grep '^:SOUR1:VOLT' "$TMP/supply.log" | tr '\n' ' ')"
[ "$(grep '^:SOUR:INP:STAT' "$TMP/load.log" | tail -1)" = ":SOUR:INP:STAT OFF" ] && ok "the load ends off" || bad "the load was left on"

validate_records "$TMP/out"

echo "labgrid: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
