#!/bin/sh
# Every shipped scenario's capture, replayed three ways against its live
# run: with its events (the default: events.json beside the capture), bare
# (--no-events, as a lab instrument's capture comes), and with realistic
# noise added (--perturb): no verdict moves from fail to pass, and bcbench
# diff of the live run against the replay with events shows no regression.
# (A pass that would rest on an inferred event is made inconclusive by the
# engine; test_replay proves that on crafted captures.)
# Run from the repository root; BCBENCH: the binary.
set -u
BCBENCH=${BCBENCH:-build/bcbench}
TMP=$(mktemp -d /tmp/bcbench-replay.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
. tests/integration/lib.sh

# verdicts FILE: "rule verdict" lines of a report's compliance results
verdicts() {
	"${PYTHON:-/usr/bin/python3}" -c 'import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    if r["id"].startswith("bc12"):
        print(r["id"], r["verdict"])' "$1" | sort
}

# no_fail_to_pass NAME LIVE REPLAY: no rule failed live and passes on replay
no_fail_to_pass() {
	verdicts "$2" >"$TMP/a"
	verdicts "$3" >"$TMP/b"
	flips=$(join "$TMP/a" "$TMP/b" | awk '$2 == "fail" && $3 == "pass" { print $1 }')
	if [ ! -s "$TMP/a" ]; then bad "$1: no verdicts in the live report"
	elif [ -z "$flips" ]; then ok "$1: no fail became a pass"
	else bad "$1: fail became pass: $flips"; fi
}

NOISE="--perturb vbus=noise=10mV,bits=12,range=0V..25V --perturb ibus=noise=2mA,bits=12,range=-3A..3A"
NOISE="$NOISE --perturb dp=noise=3mV,bits=12,range=0V..5V --perturb dm=noise=3mV,bits=12,range=0V..5V"

for scn in scripts/scenarios/*.scn; do
	n=$(basename "$scn" .scn)
	port=$(awk '$1 == "port" { print $2; exit }' "$scn")
	dut=$(awk '$1 == "dut" { print $2; exit }' "$scn")
	[ -n "$port" ] || port=sdp
	[ -n "$dut" ] || dut=phone
	"$BCBENCH" run -q --out "$TMP/$n/live" "$scn" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	if [ $rc -gt 1 ] || [ ! -f "$TMP/$n/live/report.json" ]; then
		bad "$n: live run exit $rc"; continue; fi
	L=$TMP/$n/live/report.json
	"$BCBENCH" replay -q --out "$TMP/$n/ev" "$TMP/$n/live/capture.sr" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	if [ $rc -le 1 ]; then ok "$n: replay with its events (exit $rc)"; else bad "$n: replay with events: exit $rc"; fi
	no_fail_to_pass "$n with events" "$L" "$TMP/$n/ev/report.json"
	"$BCBENCH" diff "$L" "$TMP/$n/ev/report.json" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	if [ $rc -eq 0 ]; then ok "$n: diff of live and replay: no regression"; else
		bad "$n: diff of live and replay: exit $rc"; sed 's/^/     | /' "$TMP/out" | head -8; fi
	"$BCBENCH" replay -q --no-events --port "$port" --dut "$dut" --out "$TMP/$n/bare" \
		"$TMP/$n/live/capture.sr" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	if [ $rc -le 1 ]; then ok "$n: bare replay (exit $rc)"; else bad "$n: bare replay: exit $rc"; fi
	no_fail_to_pass "$n bare" "$L" "$TMP/$n/bare/report.json"
	# shellcheck disable=SC2086
	"$BCBENCH" replay -q $NOISE --out "$TMP/$n/noisy" "$TMP/$n/live/capture.sr" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	if [ $rc -le 1 ]; then ok "$n: noisy replay (exit $rc)"; else bad "$n: noisy replay: exit $rc"; fi
	no_fail_to_pass "$n with noise" "$L" "$TMP/$n/noisy/report.json"
done
has "the noisy replay states its measurement" "$TMP/dcp/noisy/report.json" '"spec":	"noise=3mV,bits=12'
expect_exit "a bad --perturb" 2 "$BCBENCH" replay -q --perturb vbus=noise=3mA --out "$TMP/x" "$TMP/dcp/live/capture.sr"
expect_err "names the option and the item" '--perturb "vbus=noise=3mA": noise'

# A capture that ends before its record's expectation (a salvaged one, or
# --events of a longer run): the end judges the expectation on the
# capture's last frames, as it always did, not on an empty window (replay
# skips writing the expectations' window far from the next one).
mkdir -p "$TMP/early"
printf 'name "early end"\nport dcp\ncharger dcp-1a\ncapture vbus ibus at 1kHz\nvbus on\nwait 5s\nexpect avg(vbus, 100ms) > 4V\n' \
	>"$TMP/early/long.scn"
sed 's/^wait 5s/wait 1s/' "$TMP/early/long.scn" >"$TMP/early/short.scn"
"$BCBENCH" run -q --no-html --out "$TMP/early/long" "$TMP/early/long.scn" >/dev/null 2>&1
"$BCBENCH" run -q --no-html --out "$TMP/early/short" "$TMP/early/short.scn" >/dev/null 2>&1
"$BCBENCH" replay -q --no-html --events "$TMP/early/long/events.json" --out "$TMP/early/r" \
	"$TMP/early/short/capture.sr" >/dev/null 2>&1
got=$("${PYTHON:-/usr/bin/python3}" -c 'import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    if "avg(vbus" in json.dumps(r):
        print(r["verdict"], round(r["measured"], 2) if isinstance(r.get("measured"), (int, float)) else r.get("measured"))' \
	"$TMP/early/r/report.json" 2>&1)
[ "$got" = "pass 4.96" ] && ok "an expectation after the capture's end is judged on its last frames ($got)" ||
	bad "an expectation after the capture's end: got '$got', want 'pass 4.96'"

# Every record written here, live and replayed, bare and noisy (report.json
# and events.json), against its schema.
validate_records "$TMP"

echo "replay: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
