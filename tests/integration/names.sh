#!/bin/sh
# Paths and names a newcomer can guess, through the binary: a scenario's
# relative paths start from its own folder; an unknown profile, telemetry
# key or check id is answered with the nearest; implausible profile
# values are refused with what was likely meant; --version and --help
# after every command; --json on devices, selftest and suite --list; one
# bench lock per bench.conf; a --filter that selects nothing exits 7.
# Run from the repository root by tests/integration/run.sh. BCBENCH: the
# binary. Under 60 s.
set -u
BCBENCH=${BCBENCH:-build/bcbench}
case $BCBENCH in /*) ;; *) BCBENCH=$PWD/$BCBENCH ;; esac
ROOT=$PWD
TMP=$(mktemp -d /tmp/bcbench-names.XXXXXX)
holder=
trap '[ -n "$holder" ] && kill "$holder" 2>/dev/null; rm -rf "$TMP"' EXIT

. tests/integration/lib.sh

# json_ok NAME PYTHON: stdout of the last command is one JSON document
# for which the python expression (on d) holds
json_ok() {
	if /usr/bin/python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert $2, d" "$TMP/out" 2>"$TMP/py.err"; then
		ok "$1"
	else
		bad "$1"; sed 's/^/     | /' "$TMP/py.err" | tail -3
	fi
}

# --- 1: a scenario's relative paths are relative to its folder ---
mkdir -p "$TMP/lab/chargers" "$TMP/elsewhere/chargers"
cp profiles/chargers/dcp-weak.json "$TMP/lab/chargers/mine.json"
# the same name relative to the current directory is a broken file: it
# must not be the one read
printf '{ "curve": "broken" }\n' >"$TMP/elsewhere/chargers/mine.json"
printf 'port dcp\ncharger chargers/mine.json\nplug\nwait 1s\nexpect dut.port == dcp\n' >"$TMP/lab/rel.scn"
(cd "$TMP/elsewhere" && "$BCBENCH" run -q --datadir "$ROOT" --out "$TMP/o-rel" ../lab/rel.scn) >"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc -eq 0 ] && ok "a scenario's relative path is its folder's, not the current directory's (exit 0)" ||
	{ bad "relative path: exit $rc"; sed 's/^/     | /' "$TMP/err" | tail -3; }
has "the run read the scenario's charger" "$TMP/o-rel/report.json" "\"../lab/chargers/mine.json\""
# a path that is nowhere: the message says where it looked
printf 'port dcp\ncharger chargers/none.json\nplug\nwait 1s\n' >"$TMP/lab/none.scn"
expect_exit "a relative path that is not there" 2 "$BCBENCH" run -q --datadir "$ROOT" --out "$TMP/o-none" "$TMP/lab/none.scn"
expect_err "it names both places it looked" "(looked for $TMP/lab/chargers/none.json (relative to the scenario's folder) and $ROOT/chargers/none.json (the data dir's))"

# --- 2: an unknown profile name lists what exists and the nearest ---
printf 'port dcp\ncharger dcp-wek\nplug\nwait 1s\n' >"$TMP/lab/wek.scn"
expect_exit "an unknown charger profile" 2 "$BCBENCH" run -q --datadir "$ROOT" --out "$TMP/o-wek" "$TMP/lab/wek.scn"
expect_err "it is named at its place with the nearest" "wek.scn:2:1: error: unknown charger profile \"dcp-wek\" (available in $ROOT/profiles/chargers/: cdp-1a5,"
expect_err "did you mean" "did you mean dcp-weak?; another data dir"
expect_exit "an unknown port on the command line" 2 "$BCBENCH" run -q --datadir "$ROOT" --out "$TMP/o-wek" --port dcpp "$TMP/lab/rel.scn"
expect_err "the port's nearest" "unknown port profile \"dcpp\""
expect_err "the port's nearest, named" "did you mean dcp?"
expect_exit "an unknown device declaration" 2 "$BCBENCH" run -q --datadir "$ROOT" --out "$TMP/o-wek" --dut phnoe "$TMP/lab/rel.scn"
expect_err "the device's nearest" "did you mean phone?"
# replay's profiles, named on its command line, the same way
SR=tests/fuzz/corpus/srzip/sdp-stored.sr
expect_exit "replay: an unknown --port" 2 "$BCBENCH" replay -q --datadir "$ROOT" --no-events --out "$TMP/o-rp" --port dcq "$SR"
expect_err "replay: --port's list and nearest" "/profiles/ports/: aca-a,"
expect_err "replay: --port's nearest" "did you mean dcp?; another data dir: give --datadir DIR"
expect_exit "replay: an unknown --charger" 2 "$BCBENCH" replay -q --datadir "$ROOT" --no-events --out "$TMP/o-rp" --charger dcp-wek "$SR"
expect_err "replay: --charger's nearest" "did you mean dcp-weak?"
expect_exit "replay: an unknown --dut" 2 "$BCBENCH" replay -q --datadir "$ROOT" --no-events --out "$TMP/o-rp" --dut phnoe "$SR"
expect_err "replay: --dut's nearest" "did you mean phone?"
expect_exit "an unknown conditions profile" 2 "$BCBENCH" run -q --datadir "$ROOT" --out "$TMP/o-wek" --conditions realistc "$TMP/lab/rel.scn"
expect_err "the conditions' nearest" "did you mean realistic?"
printf 'port dcp\nfirmware refrence\nplug\nwait 1s\n' >"$TMP/lab/fw.scn"
expect_exit "an unknown firmware name" 2 "$BCBENCH" run -q --datadir "$ROOT" --out "$TMP/o-fw" "$TMP/lab/fw.scn"
expect_err "the firmware's nearest" "fw.scn:2:1: error: unknown firmware \"refrence\" (built in: probe, reference; did you mean reference?"
expect_exit "an unknown --firmware" 2 "$BCBENCH" run -q --datadir "$ROOT" --out "$TMP/o-fw" --firmware refrence "$TMP/lab/rel.scn"
expect_err "its nearest" "--firmware: unknown firmware \"refrence\" (built in: probe, reference; did you mean reference?"

# --- 3: telemetry keys and check ids at parse time ---
printf 'port dcp\nplug\nwait 10min\nexpect dut.prot == dcp\n' >"$TMP/lab/key.scn"
t0=$(date +%s)
expect_exit "a mistyped telemetry key" 2 "$BCBENCH" run -q --datadir "$ROOT" --out "$TMP/o-key" "$TMP/lab/key.scn"
expect_err "named at file:line:col with the nearest" "key.scn:4:8: error: unknown telemetry key \"dut.prot\" (did you mean dut.port?"
expect_err "and the keys there are" "the keys the bench knows: backoffs, bus, config,"
[ ! -e "$TMP/o-key/report.json" ] && ok "nothing ran before the key was refused" || bad "a run started before the key was refused"
printf 'port dcp\nplug\nwait 10min\ncheck bc12.det bc12.dettt\n' >"$TMP/lab/rule.scn"
expect_exit "an unknown check id" 2 "$BCBENCH" run -q --datadir "$ROOT" --out "$TMP/o-rule" "$TMP/lab/rule.scn"
expect_err "named at file:line:col with the nearest" "rule.scn:4:16: error: unknown check \"bc12.dettt\" (did you mean bc12.det?"
[ $(($(date +%s) - t0)) -lt 10 ] && ok "refused at once, not after 10 simulated minutes" || bad "the refusals took $(($(date +%s) - t0)) s"

# --- 4: profile values with units, implausible ones refused ---
printf '{"curve": [["0mA", "5.05V"], ["800mA", "4.4V"], ["1A", "2V"]], "cable": "0.1ohm", "rated": "1A"}\n' >"$TMP/lab/chargers/units.json"
printf 'port dcp\ncharger chargers/units.json\nplug\nwait 1s\n' >"$TMP/lab/units.scn"
expect_exit "a curve written with units" 0 "$BCBENCH" run -q --datadir "$ROOT" --out "$TMP/o-units" "$TMP/lab/units.scn"
printf '{"curve": [[0, 5.05], [800, 4.4], [1000, 2.0]], "cable": "0.1ohm"}\n' >"$TMP/lab/chargers/ma.json"
printf 'port dcp\ncharger chargers/ma.json\nplug\nwait 1s\n' >"$TMP/lab/ma.scn"
expect_exit "a curve in mA" 2 "$BCBENCH" run -q --datadir "$ROOT" --out "$TMP/o-ma" "$TMP/lab/ma.scn"
expect_err "the file, the point and the hint" "chargers/ma.json: key \"curve\": point 1: current 800 A is more than USB carries (at most 10 A): did you write mA? write 0.8 or \"800mA\""
cp profiles/duts/phone.json "$TMP/lab/phone-ma.json"
sed -i 's/"system_load": "150mA"/"system_load": 150/' "$TMP/lab/phone-ma.json"
printf 'port sdp\ndut phone-ma.json\nplug\nwait 1s\n' >"$TMP/lab/dut-ma.scn"
expect_exit "a device declaration's current in mA" 2 "$BCBENCH" run -q --datadir "$ROOT" --out "$TMP/o-ma" "$TMP/lab/dut-ma.scn"
expect_err "the key and the hint" "phone-ma.json: key \"system_load\": 150 A is more than USB carries (at most 10 A): did you write mA? write 0.15 or \"150mA\""
printf '{"budget": 500}\n' >"$TMP/lab/host-ma.json"
printf 'port sdp\nhost host-ma.json\nplug\nwait 1s\n' >"$TMP/lab/host-ma.scn"
expect_exit "a host budget in bare mA" 2 "$BCBENCH" run -q --datadir "$ROOT" --out "$TMP/o-ma" "$TMP/lab/host-ma.scn"
expect_err "the host's hint" "host-ma.json: key \"budget\": write a current with its unit: 500 looks like mA, write \"500mA\""

# --- 5: --version and --help after every command ---
"$BCBENCH" version >"$TMP/version"
for cmd in run replay devices selftest suite diff merge salvage report curve "curve sweep" "curve import" version; do
	# shellcheck disable=SC2086
	expect_exit "$cmd --version" 0 "$BCBENCH" $cmd --version
	cmp -s "$TMP/out" "$TMP/version" && ok "$cmd --version prints bcbench version's line" || bad "$cmd --version: $(cat "$TMP/out")"
	# shellcheck disable=SC2086
	expect_exit "$cmd --help" 0 "$BCBENCH" $cmd --help
	expect_out "$cmd --help is its usage" "Usage: bcbench ${cmd%% *}"
	# shellcheck disable=SC2086
	expect_exit "$cmd -h" 0 "$BCBENCH" $cmd -h
done
expect_exit "curve sweep --help is sweep's" 0 "$BCBENCH" curve sweep --help
expect_out "curve sweep's usage" "Usage: bcbench curve sweep --out"

# --- 6: --json on devices, selftest and suite --list ---
expect_exit "devices --json" 0 "$BCBENCH" devices --json
json_ok "devices --json: the documented keys" 'd["schema"] == "bcbench-devices/1" and all(k in d for k in ("ftdi", "serial", "sigrok", "usb", "usb_visible", "found", "dut", "capture")) and isinstance(d["usb"]["devices"], list) and len(d["sigrok"]["drivers"]) > 0'
printf 'dut_usb = 18d1:4ee1\n' >"$TMP/dut.conf"
# not there: a bench fault (exit 5, the code a CI retries), with --json
# as without
expect_exit "devices, dut_usb not attached: a bench fault" 5 "$BCBENCH" devices --conf "$TMP/dut.conf"
expect_exit "devices --json, dut_usb not attached: the text's code" 5 "$BCBENCH" devices --json --conf "$TMP/dut.conf"
json_ok "devices --json says the dut is not found" 'd["dut"]["found"] is False and "18d1:4ee1" in d["dut"]["error"]'
printf 'datadir = %s\n' "$ROOT" >"$TMP/sim.conf"
expect_exit "selftest --json on the simulated bench" 2 "$BCBENCH" selftest --json --conf "$TMP/sim.conf"
json_ok "selftest --json: the documented keys and why it cannot run" 'd["schema"] == "bcbench-selftest/1" and d["exit"] == 2 and "no real fixture" in d["error"] and d["checks"] == [] and all(k in d for k in ("conf", "fixture", "passed", "failed", "skipped", "first_failure"))'
expect_exit "suite --list --json" 0 "$BCBENCH" suite --list --json --filter 'dcp-weak*' scripts/suites/regression.suite
json_ok "suite --list --json: the documented keys" 'd["schema"] == "bcbench-suite-list/1" and d["selected"] == len(d["entries"]) > 0 and d["total"] >= d["selected"] and all(e["id"].startswith("dcp-weak") and e["expect"] in ("pass", "xfail", "xerror") and set(e) == {"index", "id", "scenario", "expect", "rules", "params"} for e in d["entries"])'
expect_exit "--json without --list" 2 "$BCBENCH" suite --json scripts/suites/regression.suite

# a suite's profile names: the list and the nearest, at the suite's line
printf 'suite "typo"\nscenario %s/scripts/scenarios/dcp.scn\n  charger dcp-wek\n  firmware reference\n' "$ROOT" >"$TMP/typo.suite"
expect_exit "a suite naming an unknown charger" 2 "$BCBENCH" suite --list --datadir "$ROOT" "$TMP/typo.suite"
expect_err "the suite's line and the nearest" "typo.suite:3:11: error: no charger profile \"dcp-wek\""
expect_err "the suite's nearest" "did you mean dcp-weak?"

# --- 8: a --filter that selects nothing ---
expect_exit "suite --filter matching nothing" 7 "$BCBENCH" suite --filter 'dcp-wek*' --out "$TMP/o-suite" scripts/suites/regression.suite
expect_err "it names the nearest" "--filter 'dcp-wek*' matches none of the"
expect_err "the nearest, as a glob" "did you mean 'dcp-weak*'?"
expect_err "and the entries" "its entries: aca-a/reference"
# nothing ran, and the record says so (a CI job's artifact): exit 7, no entry
grep -q '"exit_code":[[:space:]]*7' "$TMP/o-suite/suite.json" 2>/dev/null && [ -z "$(ls "$TMP/o-suite/entries" 2>/dev/null)" ] &&
	ok "nothing was run; suite.json says exit 7" || bad "suite.json: $(grep exit_code "$TMP/o-suite/suite.json" 2>&1 | head -2); entries: $(ls "$TMP/o-suite/entries" 2>&1 | head -3)"
expect_exit "suite --list --filter matching nothing" 7 "$BCBENCH" suite --list --filter nope scripts/suites/regression.suite

# --- 7: one bench lock per bench.conf ---
mkdir -p "$TMP/b1" "$TMP/b2" "$TMP/locks"
printf 'lock = yes\nlock_dir = %s/locks\ndatadir = %s\n' "$TMP" "$ROOT" >"$TMP/b1/bench.conf"
cp "$TMP/b1/bench.conf" "$TMP/b2/bench.conf"
printf 'port dcp\nplug\nwait 2h\n' >"$TMP/long.scn"
printf 'port dcp\nplug\nwait 1s\n' >"$TMP/short.scn"
"$BCBENCH" run -q --conf "$TMP/b1/bench.conf" --out "$TMP/o-hold" "$TMP/long.scn" >/dev/null 2>&1 &
holder=$!
i=0
while [ $i -lt 50 ] && ! grep -qs "pid $holder" "$TMP"/locks/*.lock; do sleep 0.1; i=$((i + 1)); done
grep -qs "pid $holder" "$TMP"/locks/*.lock && ok "the first bench holds its lock" || bad "the first run took no lock"
expect_exit "an identical bench with another bench.conf does not wait" 0 "$BCBENCH" run -q --wait 0 --conf "$TMP/b2/bench.conf" --out "$TMP/o-b2" "$TMP/short.scn"
# busy: a bench fault (exit 5); nothing ran, so no report
expect_exit "the same bench.conf is refused while held: a bench fault" 5 "$BCBENCH" run -q --wait 0 --conf "$TMP/b1/bench.conf" --out "$TMP/o-b1" "$TMP/short.scn"
expect_err "naming the holder" "is in use by pid $holder (bcbench run"
expect_exit "the same bench.conf by another path too: a bench fault" 5 "$BCBENCH" run -q --wait 0 --conf "$TMP/b2/../b1/bench.conf" --out "$TMP/o-b1" "$TMP/short.scn"
expect_err "naming the same holder" "is in use by pid $holder (bcbench run"
[ ! -e "$TMP/o-b1/report.json" ] && ok "the bench in use: no report claims a run" || bad "the bench in use: a report.json in $TMP/o-b1"
[ "$(ls "$TMP/locks" | grep -c '^bcbench-bench-[0-9a-f]\{8\}\.lock$')" -eq 2 ] && ok "two lock files, one per bench.conf" || bad "lock files: $(ls "$TMP/locks")"
printf 'fixture = ftdi:0403:6014:FT1234AB\nfixture_file = fixtures/bcbench-fixture-a.json\nlock_dir = %s/locks\ndatadir = %s\n' "$TMP" "$ROOT" >"$TMP/b1/ftdi.conf"
"$BCBENCH" run -q --conf "$TMP/b1/ftdi.conf" --out "$TMP/o-ftdi" "$TMP/short.scn" >/dev/null 2>&1
ls "$TMP/locks" | grep -q '^bcbench-bcbench-fixture-a-FT1234AB\.lock$' && ok "a real fixture's lock is named by its serial" || bad "lock files: $(ls "$TMP/locks")"
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null
holder=

echo "names: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
