#!/bin/sh
# --no-capture and `capture off`: the run judges every sample as always
# (the same verdicts as with a capture) and writes no capture.sr; the
# record, the summary and replay say so. And a suite parses its limits
# once, before it forks its entries (they borrow the parse).
set -u
BCBENCH=${BCBENCH:-build/bcbench}
FWDIR=${FWDIR:-build/fw}
TMP=$(mktemp -d /tmp/bcbench-nocap.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
. tests/integration/lib.sh
t0=$(date +%s)

# results NAME DIR: "id verdict" lines of DIR/report.json, sorted
results() {
	/usr/bin/python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
for x in sorted(r["results"], key=lambda x: (x["id"], str(x.get("session")))):
    print(x["id"], x.get("session"), x["verdict"], x.get("measured"))' "$1/report.json"
}

for scn in dcp cdp dcp-weak sdp-noenum; do
	"$BCBENCH" run -q --no-html --out "$TMP/on-$scn" "scripts/scenarios/$scn.scn" >"$TMP/on.out" 2>&1
	rc_on=$?
	"$BCBENCH" run -q --no-html --no-capture --out "$TMP/off-$scn" "scripts/scenarios/$scn.scn" >"$TMP/off.out" 2>&1
	rc_off=$?
	results "$TMP/on-$scn" >"$TMP/on.res"
	results "$TMP/off-$scn" >"$TMP/off.res"
	if [ $rc_on -eq $rc_off ] && [ -s "$TMP/on.res" ] && cmp -s "$TMP/on.res" "$TMP/off.res"; then
		ok "$scn: the same verdicts and exit ($rc_on) with and without --no-capture ($(wc -l <"$TMP/on.res") results)"
	else
		bad "$scn: verdicts differ with --no-capture (exit $rc_on vs $rc_off)"; diff "$TMP/on.res" "$TMP/off.res" | head -5
	fi
done
d=$TMP/off-dcp
[ -f "$TMP/on-dcp/capture.sr" ] && [ ! -e "$d/capture.sr" ] && ok "--no-capture: no capture.sr (one with capture)" ||
	bad "--no-capture: capture.sr is there, or missing in the run with capture"
ls -a "$d" | grep -q '^\.capture\|spool' && bad "--no-capture left a spool: $(ls -a "$d")" || ok "--no-capture leaves no spool"
has "--no-capture: report.json says why" "$d/report.json" '"not_written":	"--no-capture"'
grep -q '"capture_file"' "$d/events.json" && bad "--no-capture: events.json names a capture" ||
	ok "--no-capture: events.json names no capture_file"
grep -q '"capture":' "$d/report.json" && grep -A3 '"artifacts":' "$d/report.json" | grep -q 'capture.sr' &&
	bad "--no-capture: artifacts name capture.sr" || ok "--no-capture: artifacts name no capture.sr"
has "--no-capture: the summary says no capture was written" "$TMP/off.out" "capture: none written (--no-capture)"

expect_exit "replay of a run without capture" 2 "$BCBENCH" replay -q "$d/capture.sr"
expect_err "replay says the run wrote no capture" "the run wrote no capture ($d/report.json: --no-capture)"
expect_exit "replay of the run directory itself" 2 "$BCBENCH" replay -q "$d"

# capture off in the scenario; the page says so too
{ echo 'name "off"'; echo 'port dcp'; echo 'charger dcp-1a'; echo 'capture off'; echo 'vbus on'; echo 'wait 2s'; } >"$TMP/off.scn"
expect_exit "capture off runs" 0 "$BCBENCH" run --out "$TMP/scn-off" "$TMP/off.scn"
[ ! -e "$TMP/scn-off/capture.sr" ] && ok "capture off: no capture.sr" || bad "capture off: capture.sr written"
has "capture off: report.json names the line" "$TMP/scn-off/report.json" "\"not_written\":	\"capture off ($TMP/off.scn:4)\""
has "capture off: the page says no capture was written" "$TMP/scn-off/report.html" "none written (capture off ("
sed 's/^capture off$/capture off now/' "$TMP/off.scn" >"$TMP/bad.scn"
expect_exit "capture off with an extra word" 2 "$BCBENCH" run -q --out "$TMP/bad" "$TMP/bad.scn"
expect_err "capture off now: file:line:col" "$TMP/bad.scn:4:13: error: extra argument \"now\" to \"capture\""

# A run with --no-capture into a directory an earlier run captured to: the
# earlier capture.sr goes (it would sit beside a report naming none, and
# replay would take it for this run's), and replay says there is none.
"$BCBENCH" run -q --no-html --out "$TMP/again" scripts/scenarios/dcp.scn >/dev/null 2>&1
[ -f "$TMP/again/capture.sr" ] || bad "the first run into again/ wrote no capture.sr"
expect_exit "--no-capture into a directory with an earlier capture" 0 "$BCBENCH" run -q --no-html --no-capture \
	--out "$TMP/again" scripts/scenarios/dcp.scn
[ ! -e "$TMP/again/capture.sr" ] && ok "the earlier run's capture.sr is gone" || bad "the earlier run's capture.sr is still there"
expect_exit "replay of that directory" 2 "$BCBENCH" replay -q --out "$TMP/again-r" "$TMP/again"

# A suite with --no-capture, and --limits read through a FIFO that gives
# its bytes once: the suite parses it before forking; an entry that read
# it again would block on the FIFO until its watchdog killed it.
{ echo 'suite "nocap"'; echo "scenario scripts/scenarios/dcp.scn"; echo "  firmware reference"
  echo "scenario scripts/scenarios/cdp.scn"; echo "  firmware reference"; } >"$TMP/s.suite"
mkfifo "$TMP/lim.json"
cat profiles/limits/bc12.json >"$TMP/lim.json" &
wpid=$!
expect_exit "suite --no-capture --limits FIFO" 0 "$BCBENCH" suite -q --no-html --no-capture -j 2 --watchdog 5 \
	--limits "$TMP/lim.json" --fwdir "$FWDIR" --out "$TMP/suite" "$TMP/s.suite"
kill "$wpid" 2>/dev/null
rm -f "$TMP/lim.json" # (validate_records below would block reading it)
n=$(find "$TMP/suite/entries" -name report.json | wc -l)
[ "$n" -eq 2 ] && [ -z "$(find "$TMP/suite/entries" -name capture.sr)" ] &&
	ok "suite --no-capture: 2 entries judged, no capture.sr" || bad "suite --no-capture: $n reports, or a capture.sr"
sha=$(sha256sum profiles/limits/bc12.json | cut -d' ' -f1)
[ "$(grep -l "$sha" "$TMP"/suite/entries/*/report.json | wc -l)" -eq 2 ] &&
	ok "the entries judged against the limits the suite parsed once (their sha256)" ||
	bad "the entries' limits sha256 is not the file's"

validate_records "$TMP"
echo "== no-capture.sh: $pass passed, $fail failed ($(($(date +%s) - t0)) s)"
[ "$fail" -eq 0 ]
