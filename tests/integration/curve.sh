#!/bin/sh
# bcbench curve sweep from the command line. The simulated bench: every
# shipped charger swept into a profile that loads (a run takes it as its
# charger), dcp-shutdown-1a2's shutdown and recovery, usage errors, and a
# sweep interrupted by SIGINT. A real bench: the SCPI load on a
# pseudo-terminal (tests/emu/instr_emu.c) and the FTDI fixture through
# the fake libftdi1 in bcbench's own process (build/tests/bcbench-fakeftdi,
# tests/unit/test_sweep.mk), end to end, then a load that stops answering
# mid-sweep (exit 5) and a SIGTERM (143): the load's input off and every relay
# open, PROFILE.partial.json with "complete": false, no PROFILE.json (and
# an earlier one left as it was). Run from the repository root.
set -u
BCBENCH=${BCBENCH:-build/bcbench}
EMUDIR=${EMUDIR:-build/emu}
FAKEFTDI=${FAKEFTDI:-$(dirname "$BCBENCH")/tests/bcbench-fakeftdi}
TMP=$(mktemp -d /tmp/bcbench-curve.XXXXXX)
EMU_PID=
trap '[ -n "$EMU_PID" ] && kill "$EMU_PID" 2>/dev/null; rm -rf "$TMP"' EXIT
. tests/integration/lib.sh

# jq-free reads of a profile: py FILE EXPR prints EXPR of d (the JSON)
py() {
	/usr/bin/python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1" 2>&1
}
# check NAME FILE EXPR: EXPR of d is True
check() {
	got=$(py "$2" "$3")
	if [ "$got" = "True" ]; then ok "$1"; else bad "$1: $3 is $got"; fi
}

# ---- the simulated bench ----
n=0
for f in profiles/chargers/*.json; do
	c=$(basename "$f" .json)
	last=$(py "$f" "d['curve'][-1][0] + 0.2")
	expect_exit "sweep $c" 0 "$BCBENCH" curve sweep -q --datadir . --charger "$c" --to "${last}A" \
		--out "$TMP/sim/$c.json"
	check "$c: complete, by sweep, a knee" "$TMP/sim/$c.json" \
		"d['measured']['complete'] is True and d['measured']['by'] == 'sweep' and d['measured']['knee']['a'] > 0 and d['schema'] == 'bcbench-charger/2'"
	n=$((n + 1))
done
[ "$n" -ge 8 ] && ok "every shipped charger swept ($n)" || bad "only $n chargers swept"
check "dcp-shutdown-1a2: shutdown above 1.2 A within a step, back after 1 s within 2 ms" \
	"$TMP/sim/dcp-shutdown-1a2.json" \
	"abs(d['measured']['shutdown']['above_a'] - 1.2) <= 0.05 and abs(d['measured']['shutdown']['recover_s'] - 1.0) <= 0.002 and 'shutdown' in d"
check "the simulated load's readings are stated exact" "$TMP/sim/dcp-1a.json" \
	"'stated ideal' in d['measured']['uncertainty'] and d['measured']['vchg']['max_v'] > d['measured']['vchg']['min_v']"
check "dcp-weak folds back: no shutdown" "$TMP/sim/dcp-weak.json" \
	"'shutdown' not in d['measured'] and d['measured']['collapses'][0]['at_a'] > 0.8 and d['measured']['collapses'][0]['shutdown'] is False"
check "the settings and the swept charger are recorded" "$TMP/sim/dcp-1a.json" \
	"d['measured']['settings']['step_a'] == 0.05 and d['measured']['settings']['port'] == 'dcp' and d['measured']['bench']['simulated'] is True and d['measured']['bench']['charger'].endswith('dcp-1a.json') and d['compliant'] is None if 'compliant' in d else True"
# the swept profile is a charger a run can use
expect_exit "a run takes the swept profile as its charger" 0 "$BCBENCH" run -q \
	--charger "$TMP/sim/dcp-1a.json" --out "$TMP/run" scripts/scenarios/dcp.scn
has "report.html draws the swept curve" "$TMP/run/report.html" '<figure class="plot curve" id="charger-curve" data-profile="dcp-1a" data-by="sweep" data-complete="true">'
has "with the knee" "$TMP/run/report.html" '<g class="knee" data-a="1.10'
# the figure is the profile the run used: rendered again from another
# directory, the same curve; the profile changed since, no figure but why
cp "$TMP/run/report.html" "$TMP/run/report.html.first"
BIN_ABS=$(cd "$(dirname "$BCBENCH")" && pwd)/$(basename "$BCBENCH")
(cd /tmp && "$BIN_ABS" report html "$TMP/run/report.json") >/dev/null 2>&1
cmp -s "$TMP/run/report.html" "$TMP/run/report.html.first" &&
	ok "rendered again from another directory: the same page" || bad "another page from /tmp"
printf ' ' >>"$TMP/sim/dcp-1a.json"
expect_exit "rendered again after the profile changed" 0 "$BCBENCH" report html "$TMP/run/report.json"
if grep -q 'id="charger-curve"' "$TMP/run/report.html"; then bad "a changed profile is drawn"; else
	ok "a changed profile is not drawn"; fi
has "and the page says why" "$TMP/run/report.html" 'not the profile this run used'
expect_exit "a run on the shipped dcp-1a" 0 "$BCBENCH" run -q --charger dcp-1a --out "$TMP/run0" \
	scripts/scenarios/dcp.scn
if grep -q 'charger-curve' "$TMP/run0/report.html"; then bad "a profile nobody measured is drawn"; else
	ok "a profile nobody measured has no curve figure"; fi

expect_exit "no --out" 2 "$BCBENCH" curve sweep --charger dcp-1a
expect_err "no --out says so" "--out PROFILE.json is required"
expect_exit "the simulated bench needs --charger" 2 "$BCBENCH" curve sweep --datadir . --out "$TMP/x.json"
expect_err "says which" "needs --charger"
expect_exit "unknown charger" 2 "$BCBENCH" curve sweep --datadir . --charger nosuch --out "$TMP/x.json"
expect_exit "settle longer than the dwell" 2 "$BCBENCH" curve sweep --datadir . --charger dcp-1a \
	--dwell 10ms --settle 10ms --out "$TMP/x.json"
expect_err "names --settle" "--settle"
expect_exit "--sense2 on the simulated bench" 2 "$BCBENCH" curve sweep --datadir . --charger dcp-1a \
	--sense2 --out "$TMP/x.json"
expect_exit "a bad quantity" 2 "$BCBENCH" curve sweep --datadir . --charger dcp-1a --step 5V \
	--out "$TMP/x.json"
[ ! -e "$TMP/x.json" ] && ok "no profile from bad input" || bad "a profile from bad input"

# SIGINT: a long sweep (240000 s of virtual time, a reading every ms: some
# seconds of the machine's) stopped after half a second
"$BCBENCH" curve sweep -q --datadir . --charger ideal-5a --step 10mA --to 4A --dwell 600s \
	--out "$TMP/int.json" >"$TMP/out" 2>"$TMP/err" &
pid=$!
sleep 0.5
kill -INT $pid
wait $pid
rc=$?
[ $rc -eq 130 ] && ok "SIGINT: exit 130" || bad "SIGINT: exit $rc, want 130"
[ ! -e "$TMP/int.json" ] && ok "SIGINT: no PROFILE.json" || bad "SIGINT wrote the profile"
check "SIGINT: the partial profile says why" "$TMP/int.partial.json" \
	"d['measured']['complete'] is False and 'SIGINT' in d['measured']['why']"

# ---- a real bench: SCPI load on a pty, the FTDI fixture through the fake ----
if [ ! -x "$FAKEFTDI" ] || [ ! -x "$EMUDIR/instr_emu" ]; then
	bad "$FAKEFTDI or $EMUDIR/instr_emu not built (make units)"
	echo "curve.sh: $pass passed, $fail failed"
	[ $fail -eq 0 ]
	exit
fi

# start_emu DIR ARGS...: a rigol-dl3000 on a pty logging to DIR/load.log;
# DIR/bench.conf names it and fixture A
start_emu() {
	d=$1
	shift
	mkdir -p "$d"
	"$EMUDIR/instr_emu" --family rigol-dl3000 --log "$d/load.log" "$@" >"$d/pty" &
	EMU_PID=$!
	i=0
	while [ ! -s "$d/pty" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	printf 'fixture = ftdi\nfixture_file = fixtures/bcbench-fixture-a.json\nload = scpi:%s\nload_dialect = rigol-dl3000\nlock_dir = %s\ninstrument_timeout = 200ms\ninstrument_retries = 0\nmax_load = 2.6A\n' \
		"$(head -1 "$d/pty")" "$d" >"$d/bench.conf"
}
stop_emu() {
	kill "$EMU_PID" 2>/dev/null
	wait "$EMU_PID" 2>/dev/null
	EMU_PID=
}
fake() {
	BN_FAKE_FTDI_FIXTURE=fixtures/bcbench-fixture-a.json BN_FAKE_FTDI_LOG=$1 "$@"
}
# in_order NAME FILE A|B|C: the lines appear in this order
in_order() {
	if awk -v want="$3" 'BEGIN { n = split(want, w, "|"); k = 1 }
		k <= n && $0 == w[k] { k++ } END { exit k <= n }' "$2"; then ok "$1"; else
		bad "$1: $2 lacks in order: $3"; tail -5 "$2" | sed 's/^/     | /'; fi
}

R=$TMP/real
start_emu "$R"
BN_FAKE_FTDI_FIXTURE=fixtures/bcbench-fixture-a.json BN_FAKE_FTDI_LOG=$R/ftdi.log \
	expect_exit "real bench: sweep through the SCPI load and the FTDI fixture" 0 \
	"$FAKEFTDI" curve sweep --conf "$R/bench.conf" --datadir . --port dcp --step 0.25A --to 3A \
	--out "$R/emu.json"
stop_emu
# the emulator reads V = 5.0 - 0.1 * I: VCHG min (4.75 V) at 2.5 A
check "the emulated load's curve: knee at 2.5 A, --to capped at max_load 2.6 A" "$R/emu.json" \
	"'type A only' in d['measured']['uncertainty'] and abs(d['measured']['knee']['a'] - 2.5) < 1e-6 and d['measured']['settings']['to_a'] == 2.6 and 'max_load' in d['measured']['settings']['to_capped_by'] and all(abs(p['v'] - (5.0 - 0.1 * p['a'])) < 1e-6 for p in d['measured']['points'])"
check "the instruments' identities" "$R/emu.json" \
	"'DL3021' in d['measured']['instruments']['load'] and 'FTDI bcbench-fixture-a' in d['measured']['instruments']['fixture'] and d['measured']['bench']['name'] == 'bcbench-fixture-a' and d['measured']['bench']['simulated'] is False"
in_order "the load: setpoint, input on, steps, input off" "$R/load.log" \
	"*IDN?|:SOUR:CURR:LEV 0.000|:SOUR:INP:STAT ON|:SOUR:CURR:LEV 0.250|:SOUR:CURR:LEV 2.600|:SOUR:INP:STAT OFF"
in_order "the fixture: the DCP network, VBUS, the load path, then all open" "$R/ftdi.log" \
	"close: -|end: -"
has "the fixture made the DCP network with VBUS and the load path" "$R/ftdi.log" "VBUS_EN+LOAD_EN+DP_DM_SHORT"
if grep -q '^violation' "$R/ftdi.log"; then bad "the fake chip saw a violation: $(grep '^violation' "$R/ftdi.log")"; else ok "no violation of the chip's rules"; fi

# the CDP network
R=$TMP/cdp
start_emu "$R"
BN_FAKE_FTDI_FIXTURE=fixtures/bcbench-fixture-a.json BN_FAKE_FTDI_LOG=$R/ftdi.log \
	expect_exit "real bench: --port cdp" 0 \
	"$FAKEFTDI" curve sweep -q --conf "$R/bench.conf" --datadir . --port cdp --step 0.5A --to 1A \
	--out "$R/cdp.json"
stop_emu
has "the fixture made the CDP network" "$R/ftdi.log" "VBUS_EN+LOAD_EN+DP_PULLDOWN+DM_PULLDOWN+CDP_VDM_SRC"

# a load that stops answering mid-sweep (after 60 lines: the fifth step)
R=$TMP/stall
start_emu "$R" --stall-after 60
echo '{"kept": true}' >"$R/emu.json"
BN_FAKE_FTDI_FIXTURE=fixtures/bcbench-fixture-a.json BN_FAKE_FTDI_LOG=$R/ftdi.log \
	expect_exit "a load that stalls mid-sweep: a bench fault" 5 \
	"$FAKEFTDI" curve sweep --conf "$R/bench.conf" --datadir . --port dcp --step 0.25A --to 2A \
	--out "$R/emu.json"
stop_emu
expect_err "says it was cut short and names the load's silence" "no answer in 200 ms"
expect_err "names the partial profile" "partial profile: $R/emu.partial.json"
check "PROFILE.partial.json: complete false, why, the points before the stall" "$R/emu.partial.json" \
	"d['measured']['complete'] is False and 'no answer' in d['measured']['why'] and 1 <= len(d['measured']['points']) < 9"
check "an earlier PROFILE.json is left as it was" "$R/emu.json" "d == {'kept': True}"
in_order "the load's input went off after the stall" "$R/load.log" ":SOUR:INP:STAT ON|:SOUR:INP:STAT OFF"
in_order "every relay open at the end" "$R/ftdi.log" "close: -|end: -"

# SIGTERM on the real bench (a slow load: 30 ms a query)
R=$TMP/term
start_emu "$R" --delay-ms 30
BN_FAKE_FTDI_FIXTURE=fixtures/bcbench-fixture-a.json BN_FAKE_FTDI_LOG=$R/ftdi.log \
	"$FAKEFTDI" curve sweep --conf "$R/bench.conf" --datadir . --port dcp --step 0.1A --to 2A \
	--out "$R/emu.json" >"$TMP/out" 2>"$TMP/err" &
pid=$!
sleep 1
kill -TERM $pid
wait $pid
rc=$?
stop_emu
[ $rc -eq 143 ] && ok "SIGTERM on the real bench: exit 143" || bad "SIGTERM: exit $rc, want 143"
[ ! -e "$R/emu.json" ] && ok "SIGTERM: no PROFILE.json" || bad "SIGTERM wrote the profile"
check "SIGTERM: partial, says SIGTERM, safe state confirmed" "$R/emu.partial.json" \
	"d['measured']['complete'] is False and 'SIGTERM' in d['measured']['why'] and d['measured']['safe_confirmed'] is True"
in_order "SIGTERM: the load's input off, then every relay open" "$R/load.log" ":SOUR:INP:STAT ON|:SOUR:INP:STAT OFF"
in_order "SIGTERM: every relay open" "$R/ftdi.log" "close: -|end: -"

echo "curve.sh: $pass passed, $fail failed"
[ $fail -eq 0 ]
