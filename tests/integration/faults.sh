#!/bin/sh
# The fault matrix: what a bad day in the lab does to a run, one case a
# line. Each case runs a command into its own output directory DIR and
# states the exit code it must end with and the report it must leave
# (status state and a piece of the reason; "-" when no report may be
# written). After every case the matrix also checks that no process of
# the case is left (nothing whose command line names DIR) and that the
# report of an earlier run was not touched.
#
#   fault LABEL EXIT STATE REASON CASE_FUNCTION
#
# A case function runs its command into "$DIR" with runc (stdout to
# $TMP/out, stderr to $TMP/err, the exit code in $got); it may check more. Run from the repository root by tests/integration/run.sh (or
# alone: BCBENCH=build/bcbench FWDIR=build/fw sh tests/integration/faults.sh).
set -u
BCBENCH=${BCBENCH:-build/bcbench}
FWDIR=${FWDIR:-build/fw}
TMP=$(mktemp -d /tmp/bcbench-faults.XXXXXX)
chmod 755 "$TMP"
trap 'chmod -R u+w "$TMP" 2>/dev/null; rm -rf "$TMP"' EXIT
. tests/integration/lib.sh

# An earlier run's report: no case may touch it.
"$BCBENCH" run -q --out "$TMP/earlier" scripts/scenarios/dcp-weak.scn >/dev/null 2>&1
EARLIER=$(sha256sum "$TMP/earlier/report.json" | cut -d' ' -f1)

runc() {
	"$@" >"$TMP/out" 2>"$TMP/err"
	got=$?
}

n_case=0
fault() {
	label=$1 want=$2 state=$3 reason=$4
	shift 4
	n_case=$((n_case + 1))
	DIR="$TMP/case-$n_case"
	got=-1
	"$@"
	if [ "$got" -eq "$want" ]; then ok "$label: exit $got"; else
		bad "$label: exit $got, want $want"; sed 's/^/     | /' "$TMP/err" "$TMP/out" | tail -8; fi
	if [ "$state" = "-" ]; then
		[ ! -e "$DIR/report.json" ] && ok "$label: no report" || bad "$label: wrote a report"
	elif [ -f "$DIR/report.json" ]; then
		/usr/bin/python3 - "$DIR/report.json" "$state" "$reason" <<'PY' && ok "$label: report says $state, \"$reason\"" || bad "$label: report"
import json, sys
st = json.load(open(sys.argv[1], encoding="utf-8"))["status"]
ok = st["state"] == sys.argv[2] and sys.argv[3] in (st.get("reason") or "")
if not ok:
    print("     | report status:", st)
sys.exit(0 if ok else 1)
PY
	else
		bad "$label: no report in $DIR"
	fi
	sleep 0.2
	if pgrep -f "$DIR" >/dev/null; then
		bad "$label: processes left:"; pgrep -af "$DIR" | sed 's/^/     | /'
		pkill -9 -f "$DIR"
	else
		ok "$label: no process left"
	fi
	[ "$(sha256sum "$TMP/earlier/report.json" | cut -d' ' -f1)" = "$EARLIER" ] &&
		ok "$label: earlier report untouched" || bad "$label: earlier report changed"
}

# ---- the cases ----

wrong_abi() {
	sed "s|^port.*|port sdp\nfirmware $FWDIR/wrong_abi.so|" tests/data/scenarios/odd-port.scn >"$TMP/wrong_abi.scn"
	runc "$BCBENCH" run -q --out "$DIR" "$TMP/wrong_abi.scn"
	grep -q "firmware ABI version 2, this bench speaks version 1" "$TMP/err" &&
		ok "wrong ABI names both versions" || bad "wrong ABI message: $(cat "$TMP/err")"
}

# ---- a run's processes, its record, its directory ----

# A long run at a high capture rate (1 MHz, 100 s of bench time: about
# 15 s of wall time, 100 M frames a channel when it is not stopped).
sed 's/at 10kHz/at 1MHz/; s/^wait .*/wait     100s/' scripts/scenarios/dcp-weak.scn >"$TMP/fast.scn"
printf 'suite "fast"\nscenario %s\n  port dcp\n  charger dcp-weak dcp-1a ideal-5a\n' \
	"$TMP/fast.scn" >"$TMP/fast.suite"

# started: the bench runs (the provisional report is there), a second on
settle_start() {
	i=0
	while [ ! -f "$DIR/report.json" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	sleep 1
}
# every process of the case ends by itself within 8 s (a run that goes on
# to its end takes 15)
settle_end() {
	i=0
	while pgrep -f "$DIR" >/dev/null && [ $i -lt 80 ]; do sleep 0.1; i=$((i + 1)); done
}
# exit_is NAME CODE CMD...: as lib.sh's expect_exit, without touching
# fault's variables (want, got)
exit_is() {
	x_name=$1 x_want=$2
	shift 2
	"$@" >"$TMP/out" 2>"$TMP/err"
	x_got=$?
	[ "$x_got" -eq "$x_want" ] && ok "$x_name (exit $x_got)" || bad "$x_name: exit $x_got, want $x_want"
}
# no spool or temporary file left in $1
no_temps() {
	left=$(ls -A "$1" | grep -E '^\.capture\.sr\.|^capture\.sr\.|\.tmp-')
	[ -z "$left" ] && ok "$2: no spool or temporary file left" || bad "$2: left $left"
}

run_killed() {
	"$BCBENCH" run -q --out "$DIR" "$TMP/fast.scn" >"$TMP/out" 2>"$TMP/err" &
	pid=$!
	settle_start
	kill -9 $pid
	wait $pid 2>/dev/null
	got=$?
	settle_end
	no_temps "$DIR" "run SIGKILLed"
	[ -f "$DIR/capture.sr" ] && ok "run SIGKILLed: the child finished the capture" ||
		bad "run SIGKILLed: no capture.sr"
}

child_killed() {
	"$BCBENCH" run -q --out "$DIR" "$TMP/fast.scn" >"$TMP/out" 2>"$TMP/err" &
	pid=$!
	settle_start
	kill -9 $(pgrep -P $pid)
	wait $pid
	got=$?
	no_temps "$DIR" "bench child SIGKILLed"
}

suite_killed() {
	"$BCBENCH" suite -q -j 2 --out "$DIR" "$TMP/fast.suite" >"$TMP/out" 2>"$TMP/err" &
	pid=$!
	i=0
	while [ "$(ls "$DIR"/entries/*/report.json 2>/dev/null | wc -l)" -lt 2 ] && [ $i -lt 100 ]; do
		sleep 0.1; i=$((i + 1)); done
	sleep 1
	kill -9 $pid
	wait $pid 2>/dev/null
	got=$?
	settle_end
	n=0
	for r in "$DIR"/entries/*/report.json; do
		n=$((n + 1))
		has "suite SIGKILLed: entry $(basename "$(dirname "$r")") stopped by itself" "$r" \
			"the bcbench suite that started this run is gone (killed?)"
		no_temps "$(dirname "$r")" "suite SIGKILLed: entry $n"
	done
	[ $n -eq 2 ] && ok "suite SIGKILLed: the 2 running entries left reports" || bad "suite SIGKILLed: $n entry reports"
}

stop_fast() {
	"$BCBENCH" run -q --out "$DIR" "$TMP/fast.scn" >"$TMP/out" 2>"$TMP/err" &
	pid=$!
	settle_start
	kill -$1 $pid
	wait $pid
	got=$?
	no_temps "$DIR" "$1 at 1 MHz"
	[ -f "$DIR/capture.sr" ] && ok "$1 at 1 MHz: capture.sr written" || bad "$1 at 1 MHz: no capture.sr"
}
sigint_fast() { stop_fast INT; }
sigterm_fast() { stop_fast TERM; }

two_writers() {
	"$BCBENCH" run -q --out "$DIR" "$TMP/fast.scn" >"$TMP/out1" 2>"$TMP/err1" &
	pid=$!
	settle_start
	runc "$BCBENCH" run -q --out "$DIR" scripts/scenarios/dcp-weak.scn
	expect_err "second writer refused, naming the first" "is in use by pid $pid (bcbench run $TMP/fast.scn"
	ls -A "$DIR" | grep -q '^\.capture\.sr\.' && ok "second writer left the first's spool alone" ||
		bad "second writer removed the first's spool"
	kill -TERM $pid
	wait $pid
	[ $? -eq 3 ] && ok "first writer ended by its SIGTERM (exit 3)" || bad "first writer's exit"
}

# both processes of a run killed at once: nothing of the run finishes it
kill_run_and_child() {
	"$BCBENCH" run -q --out "$DIR" "$TMP/fast.scn" >/dev/null 2>&1 &
	pid=$!
	settle_start
	kill -9 $(pgrep -P $pid) $pid
	wait $pid 2>/dev/null
	settle_end
}

salvage_killed() {
	kill_run_and_child
	ls -A "$DIR" | grep -q '^\.capture\.sr\.' && ok "killed run left its spool" || bad "killed run left no spool"
	runc "$BCBENCH" salvage "$DIR"
	salvaged=$got
	no_temps "$DIR" "salvage"
	exit_is "salvaged capture replays" 0 "$BCBENCH" replay -q --out "$TMP/replay-$n_case" "$DIR/capture.sr"
	exit_is "salvage again: nothing to do" 0 "$BCBENCH" salvage "$DIR"
	expect_out "salvage again says so" "nothing to salvage"
	mkdir "$TMP/not-bcbench"
	exit_is "salvage of a directory bcbench did not write" 2 "$BCBENCH" salvage "$TMP/not-bcbench"
	got=$salvaged
}

next_run_moves_aside() {
	kill_run_and_child
	runc "$BCBENCH" run -q --out "$DIR" scripts/scenarios/dcp-weak.scn
	expect_err "the next run says it moved the record aside" "moved to $DIR/interrupted-"
	has "the interrupted record is finished" "$(ls -d "$DIR"/interrupted-*)/report.json" \
		"finished by the next run into this directory"
	[ -f "$(ls -d "$DIR"/interrupted-*)/capture.sr" ] && ok "the interrupted capture is kept" ||
		bad "the interrupted capture is lost"
	no_temps "$DIR" "next run"
}

long_zip() {
	# its capture takes over 2 s to zip (without beats)
	runc "$BCBENCH" run -q --watchdog 1 --out "$DIR" "$TMP/fast.scn"
	no_temps "$DIR" "long zip"
}

# ---- the matrix ----
#     label                              exit state   reason        case
fault "firmware built for another ABI"   2    -       -             wrong_abi
fault "SIGKILL of bcbench run"           137  aborted "the bcbench process that started this run is gone (killed?)" run_killed
fault "SIGKILL of the bench child"       3    error   "from outside the run" child_killed
fault "SIGKILL of bcbench suite -j 2"    137  -       -             suite_killed
fault "SIGINT at 1 MHz capture"          3    aborted "interrupted by SIGINT" sigint_fast
fault "SIGTERM at 1 MHz capture"         3    aborted "interrupted by SIGTERM" sigterm_fast
fault "two writers in one directory"     3    aborted "interrupted by SIGTERM" two_writers
fault "salvage of a SIGKILLed run"       0    error   "not finished by its own process" salvage_killed
fault "next run into a killed run's dir" 0    completed ""          next_run_moves_aside
fault "watchdog during a long zip"       0    completed ""          long_zip

echo "faults: $pass passed, $fail failed ($n_case cases)"
[ "$fail" -eq 0 ]
