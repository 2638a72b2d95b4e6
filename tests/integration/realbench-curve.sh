#!/bin/sh
# A real bench's supply following a charger's curve (bench.conf
# supply_mode = follow, hil/supply_follow.h), end to end through bcbench
# against the instrument emulator (EMUDIR/instr_emu): an SCPI load and an
# SCPI supply on pseudo-terminals sharing one port (the load writes the
# current it sinks where the supply reads it). The scenario's load steps
# on dcp-weak move the supply's setpoint to the curve's voltage at each
# current; report.json states the loop's rate and what it cannot
# reproduce; a supply that stops answering ends the run with exit 5, the
# load off; supply_mode = fixed keeps the open-circuit voltage. Run from
# the repository root.
set -u
BCBENCH=${BCBENCH:-build/bcbench}
EMUDIR=${EMUDIR:-build/emu}
TMP=$(mktemp -d /tmp/bcbench-curve.XXXXXX)
EPIDS=""
trap 'stop_emus; rm -rf "$TMP"' EXIT
. tests/integration/lib.sh

SCN=tests/data/scenarios/follow-load-step.scn

# bench NAME MODE [SUPPLY-FAULT...]: emulators and a bench.conf for a run
bench() {
	b_name=$1 b_mode=$2
	shift 2
	rm -f "$TMP/sink"
	emu "$b_name-load" rigol-dl3000 --log "$TMP/$b_name-load.log" --sink-out "$TMP/sink"
	b_load=$pty
	emu "$b_name-supply" rigol-dp800 --log "$TMP/$b_name-supply.log" --ohms 0 \
		--sink-file "$TMP/sink" "$@"
	b_supply=$pty
	cat >"$TMP/$b_name.conf" <<EOF
load = scpi:$b_load
load_dialect = rigol-dl3000
supply = scpi:$b_supply
supply_dialect = rigol-dp800
supply_mode = $b_mode
instrument_timeout = 200ms
instrument_retries = 1
max_load = 3A
max_vbus = 5.5V
max_power = 15W
datadir = $PWD
lock_dir = $TMP
EOF
}

# json FILE EXPR: a value of report.json (python3)
json() {
	/usr/bin/python3 -c 'import json,sys
r=json.load(open(sys.argv[1]))
res={x["id"]: x for x in r["results"]}
print(eval(sys.argv[2]))' "$1" "$2" 2>/dev/null
}

# The curve followed through the load steps.
bench follow follow
expect_exit "run with supply_mode = follow" 0 "$BCBENCH" run -q --conf "$TMP/follow.conf" --out "$TMP/follow" "$SCN"
R=$TMP/follow/report.json
[ "$(json "$R" 'r["status"]["state"]')" = completed ] && ok "the run completed" || bad "run state: $(json "$R" 'r["status"]')"
[ "$(json "$R" 'res["bench.supply_follow"]["kind"]')" = bench ] && ok "report.json has the loop's result (kind bench)" ||
	bad "no bench.supply_follow result in $R"
rate=$(json "$R" 'res["bench.supply_follow"]["figures"]["loop_rate"]["value"]')
edge=$(json "$R" 'res["bench.supply_follow"]["figures"]["slowest_edge"]["value"]')
if /usr/bin/python3 -c "import sys; sys.exit(0 if float('$rate') > 20 and 0 < float('$edge') < 0.5 else 1)" 2>/dev/null; then
	ok "the loop's rate is stated: $rate steps/s, edges faster than $edge s not reproduced"
else
	bad "loop rate $rate, slowest edge $edge"
fi
has "the result says what it cannot reproduce" "$R" "not reproduced"
# 5.02 V at 0.1 A, then 4.32 V at 0.8 A, then 5.05 V with the load off
if awk '/^:SOUR1:VOLT 5.020$/ { a = NR } /^:SOUR1:VOLT 4.320$/ && a { b = NR } END { exit !(a && b > a) }' \
	"$TMP/follow-supply.log"; then
	ok "a load step to 0.8 A moved the supply from 5.020 V to the curve's 4.320 V"
else
	bad "supply setpoints: $(grep '^:SOUR1:VOLT' "$TMP/follow-supply.log" | sort -u | tr '\n' ' ')"
fi
[ "$(grep '^:SOUR1:VOLT' "$TMP/follow-supply.log" | tail -1)" = ":SOUR1:VOLT 5.050" ] &&
	ok "the load off: back at the open-circuit 5.050 V" || bad "last setpoint: $(grep '^:SOUR1:VOLT' "$TMP/follow-supply.log" | tail -1)"
[ "$(grep '^:OUTP' "$TMP/follow-supply.log" | tail -1)" = ":OUTP CH1,OFF" ] && ok "the supply ends off" ||
	bad "the supply was not switched off at the end"

# fixed: the open-circuit voltage throughout.
bench fixed fixed
expect_exit "run with supply_mode = fixed" 0 "$BCBENCH" run -q --conf "$TMP/fixed.conf" --out "$TMP/fixed" "$SCN"
[ "$(grep -c '^:SOUR1:VOLT' "$TMP/fixed-supply.log")" = 1 ] && ok "fixed: one setpoint, the open-circuit voltage" ||
	bad "fixed: setpoints $(grep '^:SOUR1:VOLT' "$TMP/fixed-supply.log" | tr '\n' ' ')"
[ "$(json "$TMP/fixed/report.json" '"bench.supply_follow" in res')" = False ] && ok "fixed: no loop result" ||
	bad "fixed: a loop result"

# The supply stops answering mid-run: a bench fault (exit 5), the load off,
# the reason.
bench stall follow --stall-after 60
expect_exit "a supply that stops answering" 5 "$BCBENCH" run -q --conf "$TMP/stall.conf" --out "$TMP/stall" "$SCN"
R=$TMP/stall/report.json
[ "$(json "$R" 'r["status"]["state"]')" = error ] && ok "the report says error" || bad "stall state: $(json "$R" 'r["status"]')"
json "$R" 'r["status"]["reason"]' | grep -q "no answer" && ok "the reason: $(json "$R" 'r["status"]["reason"]' | cut -c1-110)" ||
	bad "stall reason: $(json "$R" 'r["status"]["reason"]')"
[ "$(grep '^:SOUR:INP:STAT' "$TMP/stall-load.log" | tail -1)" = ":SOUR:INP:STAT OFF" ] && ok "the load was switched off" ||
	bad "the load was left on"

# A wrong supply_mode is bad input at its line.
printf 'supply_mode = track\n' >"$TMP/bad.conf"
expect_exit "supply_mode = track" 2 "$BCBENCH" run -q --conf "$TMP/bad.conf" "$SCN"
expect_err "names the line and the choices" 'bad.conf:1: error: supply_mode "track": expected fixed'

validate_records "$TMP" 

echo "realbench-curve: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
