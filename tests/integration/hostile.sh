#!/bin/sh
# Hostile strings: a device whose declared name, and a firmware whose
# telemetry (tests/firmware/hostile_telemetry.c), carry quotes,
# backslashes, control characters, broken UTF-8 and multi-byte text that
# straddles every fixed buffer it passes through. Through run, replay, a
# suite with --junit, merge and diff: every JSON output is strict UTF-8 and
# parses, every XML output validates, no multi-byte value is cut inside a
# character, and no raw control character reaches the terminal.
set -u
BCBENCH=${BCBENCH:-build/bcbench}
FWDIR=${FWDIR:-build/fw}
TMP=$(mktemp -d /tmp/bcbench-hostile.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
. tests/integration/lib.sh
XSD=tests/data/junit/junit-10.xsd
PY=/usr/bin/python3

# The scenario's own name is hostile too: controls, a broken byte, and
# 3-byte characters up to the parser's limit (159 bytes).
euro=$(printf '\342\202\254')
euros=$(printf '%40s' '' | sed "s/ /$euro/g")
{
	printf 'name     "hostile \\"names\\" \\\\ \001\033[31m\377 %s"\n' "$euros"
	printf 'port     dcp\ncharger  dcp-1a\ndut      %s/tests/data/duts/hostile.json\n' "$PWD"
	printf 'firmware %s/hostile_telemetry.so\ncapture  vbus ibus dp dm at 10kHz\n' "$FWDIR"
	printf 'vbus     on\nwait     2s\nexpect   dut.port == dcp\n'
	# judged on hostile telemetry: the measured word goes to every output
	printf 'expect   dut.quote == calm\nexpect   dut.broken == calm\n'
	for k in mb2_0 mb2_1 mb3_0 mb3_1 mb3_2 mb4_0 mb4_1 mb4_2 mb4_3; do
		printf 'expect   dut.%s == x\n' "$k"
	done
	printf 'check    bc12.dcd bc12.det\nvbus     off\nwait     200ms\n'
} >"$TMP/hostile.scn"
printf 'scenario %s/hostile.scn\n  firmware hostile_telemetry\n' "$TMP" >"$TMP/hostile.suite"

# term NAME: the last command's stdout and stderr carry no raw control
# character but newline and tab (no ESC, no C1 control) and are UTF-8
term() {
	for f in "$TMP/out" "$TMP/err"; do
		if "$PY" - "$f" 2>/dev/null <<'PYEOF'
import re, sys
data = open(sys.argv[1], 'rb').read()
text = data.decode('utf-8')  # strict: raises on a broken byte
bad = re.findall('[\x00-\x08\x0b-\x1f\x7f-\x9f]', text)
sys.exit(1 if bad else 0)
PYEOF
		then ok "$1: $(basename "$f") has no raw control character"
		else bad "$1: $(basename "$f") has raw control characters or broken UTF-8"
			od -c "$f" | grep -m 3 '033\|00[1-7]\|377'; fi
	done
}

# json FILE...: each file is strict UTF-8 and parses; no string holds a
# lone surrogate; no text the tests cut (runs of one multi-byte
# character: the mb* telemetry, the long keys, the scenario name's euros)
# ends in U+FFFD, the mark of a cut inside a character
json() {
	if "$PY" - "$@" >"$TMP/jsonerr" 2>&1 <<'PYEOF'
import json, re, sys
CUT = re.compile('[\u00e9\u20ac\U0001f600]\ufffd+$')
def check(s, path, f):
    s.encode('utf-8')  # strict: a lone surrogate raises
    if CUT.search(s):
        sys.exit('%s: %s cut inside a character: %r' % (f, '.'.join(path), s[-4:]))
def walk(x, path, f):
    if isinstance(x, dict):
        for k, v in x.items():
            check(k, path, f)
            walk(v, path + [k], f)
    elif isinstance(x, list):
        for i, v in enumerate(x):
            walk(v, path + [str(i)], f)
    elif isinstance(x, str):
        check(x, path, f)
for f in sys.argv[1:]:
    text = open(f, 'rb').read().decode('utf-8')
    walk(json.loads(text), [], f)
PYEOF
	then ok "JSON is UTF-8 and parses: $*"
	else bad "JSON output broken"; sed 's/^/     | /' "$TMP/jsonerr" | tail -3; fi
}

xml() {
	xmllint --noout --schema "$XSD" "$1" 2>"$TMP/xmlerr" && ok "JUnit validates: $1" ||
		{ bad "JUnit invalid: $1"; head -3 "$TMP/xmlerr"; }
}

expect_exit "run on a hostile device" 1 "$BCBENCH" run --out "$TMP/run" "$TMP/hostile.scn"
term "run"
grep -q 'measured say "hi" back\\slash \\x01\\x02 \\x1b\[31mred' "$TMP/out" &&
	ok "run shows the telemetry's controls escaped" || bad "run: telemetry not shown escaped"
json "$TMP/run/report.json" "$TMP/run/events.json"
# the device's name and telemetry are there, repaired, not dropped
"$PY" - "$TMP/run/report.json" "$TMP/run/events.json" <<'PYEOF' >"$TMP/jsonerr" 2>&1
import json, sys
rep = json.load(open(sys.argv[1], encoding='utf-8'))
ev = json.load(open(sys.argv[2], encoding='utf-8'))
tel = {e['key']: e['value'] for e in ev['events'] if e['kind'] == 'telemetry'}
assert tel['quote'].startswith('say "hi" back\\slash \x01\x02 \x1b[31mred'), tel['quote']
assert tel['broken'].startswith('bad \ufffd\ufffd lone\ufffd'), tel['broken']
assert all(len(tel['mb%d_%d' % (w, p)].encode()) >= 60 for w in (2, 3, 4) for p in range(w)), tel
meas = {r['text'].split(None, 1)[1]: r['measured'] for r in rep['results'] if r['text'].startswith('expect')}
assert meas['dut.quote == calm'].startswith('say "hi"'), meas
assert all(len(meas['dut.mb%d_%d == x' % (w, p)].encode()) > 40 for w in (2, 3, 4) for p in range(w)), meas
name = [f for f in rep['files'] if f['role'] == 'dut'][0]['name']
assert name.startswith('dev "q" \\ \x01\x1b[31m\x7f\x1f \ufffd'), name
assert ev['dut']['name'] == name, ev['dut']['name']
assert rep['scenario']['name'].startswith('hostile "names" \\ \x01\x1b[31m\ufffd '), rep['scenario']['name']
PYEOF
[ $? -eq 0 ] && ok "report and events keep the name and telemetry, repaired" ||
	{ bad "report or events lost the hostile strings"; tail -3 "$TMP/jsonerr"; }

expect_exit "replay of the hostile run" 1 "$BCBENCH" replay --events "$TMP/run/events.json" --out "$TMP/replay" "$TMP/run/capture.sr"
term "replay"
json "$TMP/replay/report.json"

expect_exit "suite with --junit" 1 "$BCBENCH" suite -j 1 --fwdir "$FWDIR" --out "$TMP/suite" --junit "$TMP/suite.xml" "$TMP/hostile.suite"
term "suite"
json "$TMP/suite/suite.json" "$TMP/suite"/entries/*/report.json "$TMP/suite"/entries/*/events.json
xml "$TMP/suite.xml"
# what each entry printed is kept in run.log: as safe as the terminal
cat "$TMP/suite"/entries/*/run.log >"$TMP/out"
: >"$TMP/err"
term "suite entry run.log"

expect_exit "merge" 1 "$BCBENCH" merge -o "$TMP/merged.json" "$TMP/suite/suite.json"
term "merge"
json "$TMP/merged.json"

expect_exit "diff of reports" 0 "$BCBENCH" diff "$TMP/run/report.json" "$TMP/replay/report.json"
term "diff of reports"
expect_exit "diff of suite records" 0 "$BCBENCH" diff "$TMP/suite/suite.json" "$TMP/merged.json"
term "diff of suite records"
# a diff with rows to show: the hostile expectations gone from the new run
grep -a -v -e dut.quote -e dut.broken "$TMP/hostile.scn" >"$TMP/hostile2.scn"
"$BCBENCH" run -q --out "$TMP/run2" "$TMP/hostile2.scn" >/dev/null 2>&1
expect_exit "diff with rows gone" 1 "$BCBENCH" diff "$TMP/run/report.json" "$TMP/run2/report.json"
term "diff with rows gone"

# Every record this script wrote, against its schema.
validate_records "$TMP"

echo "hostile: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
