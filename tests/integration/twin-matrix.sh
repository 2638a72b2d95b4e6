#!/bin/sh
# The bench twin's proof (issue 17): each line of the matrix runs one
# scenario with one firmware twice, on the simulated bench and on the twin
# (build/tests/twin: the same world behind emulated instruments, driven by
# bcbench-twin-host through every real backend: the FTDI fixture, the SCPI
# load and supply, the device's console, the bench PC as its USB host, a
# capture device libsigrok drives). Then:
#   - every rule the twin judges (pass or fail) must have the sim's verdict;
#   - every rule the twin leaves inconclusive is listed with its reason
#     (what the twin's instruments cannot resolve);
#   - the line's REQUIRED rules must be judged through the twin, and a
#     faulty firmware's line must fail at least one of them (the fault
#     resolved through the real backends, as on the sim).
# Every run's report.json, capture and the twin's logs (the decoded fixture
# states, each instrument's SCPI dialogue, the values served to libsigrok)
# are kept for a reader in TWIN_MATRIX_OUT (default: twin-matrix/ beside
# the bcbench binary, emptied first): DIR/NAME/{sim,twin,twin-log}.
. "$(dirname "$0")/lib.sh"
BCBENCH=${BCBENCH:-build/bcbench}
FWDIR=${FWDIR:-build/fw}
TWINDIR=${TWINDIR:-$(dirname "$BCBENCH")/tests/twin}
TWIN=$TWINDIR/bcbench-twin
HOST=$TWINDIR/bcbench-twin-host
TMP=$(mktemp -d /tmp/bcbench-matrix.XXXXXX)
OUT=${TWIN_MATRIX_OUT:-$(dirname "$BCBENCH")/twin-matrix}
rm -rf "$OUT"
mkdir -p "$OUT"
TWIN_PID=
open_n=0
cleanup() {
	[ -n "$TWIN_PID" ] && kill -TERM "$TWIN_PID" 2>/dev/null && wait "$TWIN_PID" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT INT TERM
if [ ! -x "$TWIN" ] || [ ! -x "$HOST" ]; then
	bad "the twin is not built in $TWINDIR (make twin)"
	echo "twin-matrix: $pass passed, $fail failed"
	exit 1
fi

# NAME SCENARIO FIRMWARE TWIN-ARGS REQUIRED
# TWIN-ARGS: the twin's own profiles, as the scenario names them, and its
# capture device (commas for spaces). The scope (100 kHz, 8-bit) judges
# the 1 kHz rules the polled power supply (48 Hz) cannot; its IBUS shunt
# is 5 ohm (3.9 mA a step, up to 0.5 A) where the device draws at most
# 500 mA, 1 ohm (19.6 mA a step, up to 2.5 A) on the DCPs. REQUIRED: the
# rules that must be judged through the twin (pass or fail, the sim's):
# the reported port type, and the rules of tasks 2 to 5 (what the device
# advertises, the host's choice, current within range, dead battery),
# each shown passing with the reference firmware and failing with a
# faulty one. A required rule left inconclusive fails the matrix.
SDP=--charger=host-500ma,--capture=scope,--scope-shunt=5
MATRIX="
sdp-ref       twin-sdp-host.scn      reference         $SDP,--host=root-500ma                 bc12.det.port_type,bc12.adv.max_power,bc12.host.configured_bmaxpower
sdp-adv-high  twin-sdp-host.scn      adv_high_power    $SDP,--host=root-500ma                 bc12.adv.max_power
sdp-nosusp    twin-sdp-host.scn      ignore_suspend    $SDP,--host=root-500ma                 bc12.host.suspend_isusp,bc12.host.suspend_entry
hub-ref       twin-sdp-hub.scn       reference         $SDP,--host=hub-100ma                  bc12.host.configured_bmaxpower
hub-noconf    twin-sdp-hub.scn       ignore_config     $SDP,--host=hub-100ma                  bc12.host.configured_bmaxpower
nocfg-ref     twin-sdp-noconfig.scn  reference         $SDP,--host=no-config,--usb-port-ma=50 bc12.host.unconfigured_iunit
nocfg-unconf  twin-sdp-noconfig.scn  unconfigured_500  $SDP,--host=no-config,--usb-port-ma=50 bc12.host.unconfigured_iunit
dbp-ref       twin-dbp.scn           reference         $SDP,--host=root-500ma,--dut=phone-dbp-small,--battery=3.0V bc12.dbp.iunit
dbp-300ma     twin-dbp.scn           dbp_300ma         $SDP,--host=root-500ma,--dut=phone-dbp-small,--battery=3.0V bc12.dbp.iunit
strong-ref    twin-dcp-strong.scn    reference         --charger=ideal-5a,--battery=4.1V,--capture=scope bc12.det.port_type,bc12.cur.idev_chg
strong-ramp   twin-dcp-strong.scn    ramp_past_idev    --charger=ideal-5a,--battery=4.1V,--capture=scope bc12.cur.idev_chg
cdp-ref       twin-cdp.scn           reference         --charger=cdp-1a5,--capture=scope      bc12.det.port_type
cdp-as-dcp    twin-cdp.scn           cdp_as_dcp        --charger=cdp-1a5,--capture=scope      bc12.det.port_type
dcp-pps       twin-dcp-load.scn      reference         --charger=dcp-1a,--capture=pps         bc12.det.port_type
"

# verdicts FILE: "id verdict" per result, and the reasons beside.
verdicts() {
	python3 - "$1" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for x in r["results"]:
    print(x["id"], x["verdict"], (x.get("reason") or "").replace("\n", " ")[:160])
PY
}

echo "$MATRIX" >"$TMP/matrix"
while read -r name scn fw targs required; do
	[ -n "$name" ] || continue
	d=$OUT/$name
	mkdir -p "$d/twin-log"
	# the sim bench
	"$BCBENCH" run -q --firmware "$FWDIR/$fw.so" --out "$d/sim" "tests/data/scenarios/$scn" >"$TMP/sim.out" 2>&1
	s_rc=$?
	# the twin
	# shellcheck disable=SC2046
	"$TWIN" --firmware "$FWDIR/$fw.so" $(echo "$targs" | tr ',' ' ' | sed 's/=/ /g') --log "$d/twin-log" \
		--conf-out "$d/twin-log/bench.conf" >"$d/twin-log/stdout" 2>"$d/twin-log/stderr" &
	TWIN_PID=$!
	i=0
	while [ $i -lt 100 ] && [ ! -s "$d/twin-log/bench.conf" ] && kill -0 $TWIN_PID 2>/dev/null; do
		sleep 0.1
		i=$((i + 1))
	done
	if [ ! -s "$d/twin-log/bench.conf" ]; then
		bad "$name: the twin did not start: $(head -3 "$d/twin-log/stderr")"
		continue
	fi
	(
		[ -s "$d/twin-log/bench.conf.env" ] && set -a && . "$d/twin-log/bench.conf.env" && set +a
		"$HOST" run -q --conf "$d/twin-log/bench.conf" --out "$d/twin" "tests/data/scenarios/$scn"
	) >"$TMP/twin.out" 2>&1
	t_rc=$?
	kill -TERM "$TWIN_PID" 2>/dev/null
	wait "$TWIN_PID" 2>/dev/null
	TWIN_PID=
	if [ ! -f "$d/sim/report.json" ] || [ ! -f "$d/twin/report.json" ]; then
		bad "$name: no report (sim exit $s_rc, twin exit $t_rc): $(tail -2 "$TMP/twin.out")"
		continue
	fi
	verdicts "$d/sim/report.json" >"$TMP/sim.v"
	verdicts "$d/twin/report.json" >"$TMP/twin.v"
	same=0 differ=0 incon=0
	while read -r id tv treason; do
		sv=$(awk -v id="$id" '$1 == id { print $2; exit }' "$TMP/sim.v")
		case $tv in
		pass | fail)
			if [ "$tv" = "$sv" ]; then same=$((same + 1)); else
				differ=$((differ + 1))
				bad "$name: $id is $tv through the twin, $sv on the sim ($treason)"
			fi
			;;
		inconclusive) incon=$((incon + 1)); echo "$id" >>"$TMP/incon.$name" ;;
		esac
	done <"$TMP/twin.v"
	[ $differ -eq 0 ] && ok "$name ($fw on $scn): the $same rules and expectations the twin judged have the sim's verdicts ($incon inconclusive)"
	[ -f "$TMP/incon.$name" ] && echo "     $name: inconclusive through the twin (each result says why, $d/twin/report.json): $(tr '\n' ' ' <"$TMP/incon.$name")"
	failed_req=0
	for rule in $(echo "$required" | tr ',' ' '); do
		tv=$(awk -v id="$rule" '$1 == id { print $2; exit }' "$TMP/twin.v")
		sv=$(awk -v id="$rule" '$1 == id { print $2; exit }' "$TMP/sim.v")
		case $tv in
		pass | fail) ok "$name: $rule judged through the twin: $tv (the sim: $sv)"
			[ "$tv" = fail ] && failed_req=1 ;;
		*) bad "$name: $rule is $tv through the twin, not judged ($(awk -v id="$rule" '$1 == id { $1 = $2 = ""; print; exit }' "$TMP/twin.v" | sed 's/^ *//'))"
		   echo "$name $rule" >>"$TMP/open" ;;
		esac
	done
	# events.json is in time order (the host's events come at the wall
	# clock's time, after sysfs waits; expectations at their step)
	if python3 -c 'import json, sys; t = [e["t_us"] for e in json.load(open(sys.argv[1]))["events"]]; sys.exit(any(b < a for a, b in zip(t, t[1:])))' "$d/twin/events.json"; then
		ok "$name: the twin run's events.json is in time order"
	else
		bad "$name: the twin run's events.json is out of time order"
	fi
	# The record the twin run left (capture.sr, events.json) judges the
	# same again in a replay: the capture's time base, the real host's
	# events and the configurations the device advertised are in it.
	if "$BCBENCH" replay -q --out "$d/replay" "$d/twin/capture.sr" >"$TMP/replay.out" 2>&1 ||
		[ -f "$d/replay/report.json" ]; then
		verdicts "$d/replay/report.json" >"$TMP/replay.v"
		if awk 'NR == FNR { v[$1] = $2; next } !($1 in v) || v[$1] != $2 { print; bad = 1 } END { exit bad }' \
			"$TMP/replay.v" "$TMP/twin.v" >"$TMP/replay.diff"; then
			ok "$name: a replay of the twin run's record has the twin run's verdicts"
		else
			bad "$name: the replay differs: $(head -3 "$TMP/replay.diff" | tr '\n' ';')"
		fi
	else
		bad "$name: replay of $d/twin/capture.sr: $(tail -2 "$TMP/replay.out")"
	fi
	if [ "$fw" != reference ]; then
		[ $failed_req -eq 1 ] && ok "$name: the fault of $fw is resolved through the twin" ||
			bad "$name: $fw fails none of $required through the twin"
	fi
done <"$TMP/matrix"
# Faults of the instruments during a run through the twin: each ends in
# the safe state (the fixture's last decoded state: nothing on) with an
# honest partial report (status error, a bench fault: exit 5 and cause
# "bench-fault", the code a CI retries; the reason naming the
# instrument), and no rule passes on the broken stream.
# NAME|REASON|TWIN-ARGS. With a capture device the load and supply hear
# only their commands (a dozen lines a run), so a count places the fault:
# the load stalls at its step, the supply (idle once started) vanishes by
# the time the bench turns it off; the capture stops a second in.
FAULTS='
load-stall|no answer|--load-stall-after 4
supply-vanish|instrument lost|--supply-vanish-after 9
console-hangup|device console lost|--console-hangup-after-s 1
capture-stops|no data for|--capture-stop-after-s 1
'
echo "$FAULTS" >"$TMP/faults"
while IFS='|' read -r name reason targs; do
	[ -n "$name" ] || continue
	d=$OUT/fault-$name
	mkdir -p "$d/twin-log"
	# shellcheck disable=SC2046
	"$TWIN" --charger dcp-1a --usb-host off $targs --log "$d/twin-log" \
		--conf-out "$d/twin-log/bench.conf" >"$d/twin-log/stdout" 2>"$d/twin-log/stderr" &
	TWIN_PID=$!
	i=0
	while [ $i -lt 100 ] && [ ! -s "$d/twin-log/bench.conf" ] && kill -0 $TWIN_PID 2>/dev/null; do
		sleep 0.1
		i=$((i + 1))
	done
	"$HOST" run -q --conf "$d/twin-log/bench.conf" --out "$d/run" tests/data/scenarios/twin-dcp-load.scn >"$TMP/f.out" 2>&1
	got=$?
	kill -TERM "$TWIN_PID" 2>/dev/null
	wait "$TWIN_PID" 2>/dev/null
	TWIN_PID=
	[ $got -eq 5 ] && ok "fault $name: a bench fault (exit 5)" || { bad "fault $name: exit $got, want 5"; tail -3 "$TMP/f.out"; }
	if python3 - "$d/run/report.json" "$reason" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
st = r["status"]
assert st["state"] == "error" and st["exit_code"] == 5 and st.get("cause") == "bench-fault", st
assert sys.argv[2] in r["status"]["reason"], r["status"]
assert not any(x["verdict"] == "pass" and x["kind"] == "check" for x in r["results"]), "a rule passed"
PY
	then ok "fault $name: the partial report says \"$reason\", cause bench-fault, exit_code 5; no rule passes"
	else bad "fault $name: report $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["status"])' "$d/run/report.json" 2>&1 | tail -1)"; fi
	last=$(awk -F'\t' '$2 == "state" { s = $3 } END { print s }' "$d/twin-log/fixture.log")
	[ "$last" = "port=none vbus=off load=off" ] && ok "fault $name: the fixture ended in its safe state" ||
		bad "fault $name: the fixture's last state: \"$last\""
done <"$TMP/faults"

[ -f "$TMP/open" ] && open_n=$(wc -l <"$TMP/open")
# Every record the matrix wrote, against its schema.
validate_records "$OUT"

echo "twin-matrix: $pass passed, $fail failed ($open_n required rules not judged)"
[ "$fail" -eq 0 ]
