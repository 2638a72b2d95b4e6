#!/bin/sh
# A port scenario on a real bench, end to end: bcbench with the fake
# libftdi1 in its own process (build/tests/bcbench-fakeftdi) drives
# fixture B's device-side networks (or fixture A, which has none), an SCPI
# load and an SCPI supply on pseudo-terminals (tests/emu/instr_emu.c; the
# load writes the current it sinks where the supply reads it), the supply
# following the charger's curve. The record judges the port, the probe's
# sequence reaches the fixture's pins, the device rules judge nothing (the
# bench plays the device), the port rules that need D+ and D- say why they
# cannot judge; a load that stops answering mid-run ends it with exit 5,
# the load and the supply off. Run from the repository root.
set -u
BCBENCH=${BCBENCH:-build/bcbench}
EMUDIR=${EMUDIR:-build/emu}
FAKEFTDI=${FAKEFTDI:-$(dirname "$BCBENCH")/tests/bcbench-fakeftdi}
TMP=$(mktemp -d /tmp/bcbench-rbport.XXXXXX)
EPIDS=""
trap 'stop_emus; rm -rf "$TMP"' EXIT
. tests/integration/lib.sh

SCN=scripts/scenarios/port-dcp.scn

if [ ! -x "$FAKEFTDI" ] || [ ! -x "$EMUDIR/instr_emu" ]; then
	bad "$FAKEFTDI or $EMUDIR/instr_emu not built (make units)"
	echo "realbench-port: $pass passed, $fail failed"
	exit 1
fi

# bench NAME FIXTURE [LOAD-FAULT...]: emulators and NAME.conf for a run
bench() {
	b_name=$1 b_fixture=$2
	shift 2
	rm -f "$TMP/sink"
	emu "$b_name-load" rigol-dl3000 --log "$TMP/$b_name-load.log" --sink-out "$TMP/sink" "$@"
	b_load=$pty
	emu "$b_name-supply" rigol-dp800 --log "$TMP/$b_name-supply.log" --ohms 0 --sink-file "$TMP/sink"
	b_supply=$pty
	cat >"$TMP/$b_name.conf" <<EOF
fixture = ftdi
fixture_file = fixtures/$b_fixture.json
load = scpi:$b_load
load_dialect = rigol-dl3000
supply = scpi:$b_supply
supply_dialect = rigol-dp800
supply_mode = follow
instrument_timeout = 200ms
instrument_retries = 0
max_load = 3A
max_vbus = 5.5V
max_power = 15W
datadir = $PWD
lock_dir = $TMP
EOF
}

# run NAME FIXTURE ARGS...: the scenario on that bench
run_fake() {
	r_name=$1 r_fixture=$2
	shift 2
	BN_FAKE_FTDI_FIXTURE=fixtures/$r_fixture.json BN_FAKE_FTDI_LOG=$TMP/$r_name-ftdi.log \
		"$FAKEFTDI" run -q --conf "$TMP/$r_name.conf" --out "$TMP/$r_name" "$@"
}

# json FILE EXPR: a value of report.json (python3)
json() {
	/usr/bin/python3 -c 'import json,sys
r=json.load(open(sys.argv[1]))
res={x["id"]: x for x in r["results"]}
print(eval(sys.argv[2]))' "$1" "$2" 2>/dev/null
}

# ---- fixture B: the probe on the fixture's device-side networks ----
bench b bcbench-fixture-b
expect_exit "a port scenario on fixture B, the supply playing dcp-1a" 0 \
	run_fake b bcbench-fixture-b --port dcp --charger dcp-1a "$SCN"
R=$TMP/b/report.json
[ "$(json "$R" 'r["judges"]')" = port ] && ok "the record judges the port" || bad "judges: $(json "$R" 'r["judges"]')"
[ "$(json "$R" 'r["status"]["state"]')" = completed ] && ok "the run completed" || bad "state: $(json "$R" 'r["status"]')"
[ "$(json "$R" 'all(x["verdict"] == "skipped" and "probe plays the device" in x["reason"] for x in r["results"] if x["kind"] == "check" and x["side"] == "device")')" = True ] &&
	ok "every device rule skipped: the bench's probe plays the device" ||
	bad "device rules judged in a port run: $(json "$R" '[x["id"] + ":" + x["verdict"] for x in r["results"] if x["kind"] == "check" and x["side"] == "device" and x["verdict"] != "skipped"]')"
[ "$(json "$R" 'not any(x["verdict"] == "fail" for x in r["results"] if x.get("side") == "port")')" = True ] &&
	ok "no port rule fails the bench's own compliant DCP" ||
	bad "port failures: $(json "$R" '[x["id"] for x in r["results"] if x.get("side") == "port" and x["verdict"] == "fail"]')"
[ "$(json "$R" 'res["bc12.port.rating"]["verdict"]')" = pass ] && ok "bc12.port.rating judged from the profile's rating" ||
	bad "rating: $(json "$R" 'res["bc12.port.rating"]')"
[ "$(json "$R" 'all(res[k]["verdict"] == "inconclusive" for k in ("bc12.port.rdcp_dat", "bc12.port.leakage"))')" = True ] &&
	ok "the line rules are inconclusive without a capture of D+ and D-" ||
	bad "line rules: $(json "$R" '[res[k]["verdict"] for k in ("bc12.port.rdcp_dat", "bc12.port.leakage")]')"
# the probe's sequence reached the fixture's pins
for net in "idp_src+rdm_dwn" "vdp_src+idm_sink" "vdm_src+idp_sink"; do
	[ "$(json "$R" "any(e['kind'] == 'device-side' and '$net' in e['detail'] for e in r['events']['list'])")" = True ] &&
		ok "the fixture switched $net" || bad "no device-side event $net"
done
# the load plan through the SCPI load, and the supply following the curve
grep -q '^:SOUR:CURR:LEV 1.000' "$TMP/b-load.log" && ok "the load drew the plan's 1 A step" ||
	bad "load setpoints: $(grep '^:SOUR:CURR:LEV' "$TMP/b-load.log" | sort -u | tr '\n' ' ')"
[ "$(grep -c '^:SOUR1:VOLT' "$TMP/b-supply.log")" -gt 2 ] && ok "the supply followed the curve ($(grep -c '^:SOUR1:VOLT' "$TMP/b-supply.log") setpoints)" ||
	bad "supply setpoints: $(grep '^:SOUR1:VOLT' "$TMP/b-supply.log" | tr '\n' ' ')"
[ "$(grep '^:SOUR:INP:STAT' "$TMP/b-load.log" | tail -1)" = ":SOUR:INP:STAT OFF" ] && ok "the load ends off" || bad "the load was left on"
[ "$(grep '^:OUTP' "$TMP/b-supply.log" | tail -1)" = ":OUTP CH1,OFF" ] && ok "the supply ends off" || bad "the supply was left on"

# ---- fixture A: no device-side networks, said ----
bench a bcbench-fixture-a
expect_exit "a port scenario on fixture A" 0 run_fake a bcbench-fixture-a --port dcp --charger dcp-1a "$SCN"
R=$TMP/a/report.json
[ "$(json "$R" "any('fixture bcbench-fixture-a has no device-side networks' in e['detail'] for e in r['events']['list'])")" = True ] &&
	ok "the record says fixture A has no device-side networks" || bad "no word of fixture A's missing networks"
[ "$(json "$R" 'r["judges"]')" = port ] && ok "fixture A: the record judges the port" || bad "fixture A judges: $(json "$R" 'r["judges"]')"

# ---- the load stops answering mid-run: a bench fault (exit 5), everything off ----
bench stall bcbench-fixture-b --stall-after 40
expect_exit "a load that stops answering mid-run" 5 run_fake stall bcbench-fixture-b --port dcp --charger dcp-1a "$SCN"
R=$TMP/stall/report.json
[ "$(json "$R" 'r["status"]["state"]')" = error ] && ok "the report says error" || bad "stall state: $(json "$R" 'r["status"]')"
json "$R" 'r["status"]["reason"]' | grep -q "no answer" && ok "the reason: $(json "$R" 'r["status"]["reason"]' | cut -c1-100)" ||
	bad "stall reason: $(json "$R" 'r["status"]["reason"]')"
[ "$(grep '^:OUTP' "$TMP/stall-supply.log" | tail -1)" = ":OUTP CH1,OFF" ] && ok "the supply was switched off" ||
	bad "the supply was left on"
[ "$(json "$R" 'r["verdict"]')" = not-demonstrated ] && ok "the port's compliance is not demonstrated" ||
	bad "stall verdict: $(json "$R" 'r["verdict"]')"

validate_records "$TMP"

echo "realbench-port: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
