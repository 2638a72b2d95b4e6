#!/bin/sh
# The reference firmware under real signals (scripts/suites/conditions.suite):
# every legal port x charger x host under ideal, realistic and handling
# conditions, and behind parties that misbehave. It must fail nothing; where
# a party other than the device misbehaves, the rules that party excuses are
# inconclusive and name it. Run from the repository root; BCBENCH: the binary.
set -u
BCBENCH=${BCBENCH:-build/bcbench}
FWDIR=${FWDIR:-build/fw}
TMP=$(mktemp -d /tmp/bcbench-cond.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
. tests/integration/lib.sh

# result FILE RULE: "verdict|reason" of RULE in a report
result() {
	awk -v id="$2" '
		/"id":/ { inside = index($0, "\"" id "\"") > 0; verdict = ""; reason = ""; next }
		inside && /"verdict":/ { sub(/.*"verdict":[[:space:]]*"/, ""); sub(/".*/, ""); verdict = $0 }
		inside && /"reason":/ { sub(/.*"reason":[[:space:]]*"/, ""); sub(/",?$/, ""); reason = $0 }
		inside && /^\t\t}/ { print verdict "|" reason; inside = 0 }
	' "$1" | head -1
}

# excused NAME GLOB RULE TEXT: in every entry matching GLOB, RULE is not a
# fail, and when inconclusive its reason contains TEXT
excused() {
	n=0
	for d in "$TMP"/s/entries/*$2*; do
		[ -f "$d/report.json" ] || continue
		r=$(result "$d/report.json" "$3")
		n=$((n + 1))
		case "$r" in
		fail\|*) bad "$1: $3 fails in $(basename "$d"): ${r#*|}"; return ;;
		inconclusive\|*"$4"*|pass\|*|skipped\|*) ;;
		inconclusive\|*) bad "$1: $3 inconclusive without naming it in $(basename "$d"): ${r#*|}"; return ;;
		*) bad "$1: $3 missing in $(basename "$d") ($r)"; return ;;
		esac
	done
	if [ $n -gt 0 ]; then ok "$1 ($n entries)"; else bad "$1: no entry matches $2"; fi
}

expect_exit "the reference under real signals fails nothing" 0 \
	"$BCBENCH" suite -q -j 2 --fwdir "$FWDIR" --out "$TMP/s" scripts/suites/conditions.suite
grep -q '^		"unexpected":	0,' "$TMP/s/suite.json" && ok "every entry as expected" || bad "entries not as expected: $(grep '^		"unexpected"' "$TMP/s/suite.json")"
grep -q '"conditions":	"realistic"' "$TMP/s/suite.json" && ok "entries under realistic conditions" || bad "no realistic entry"
# No device result of the reference may be "within measurement uncertainty"
# under the realistic measurement: its margins exceed U. (The port's
# results judge the shipped cdp, which answers at TVDMSRC_EN max itself;
# tests/unit/test_golden_port.c holds the reference ports' margins.)
python3 - "$TMP"/s/entries/*-realistic-*/report.json >"$TMP/wmu" <<'PY'
import json, sys
for path in sys.argv[1:]:
    with open(path) as f:
        results = json.load(f).get("results", [])
    if any("within measurement uncertainty" in (r.get("reason") or "") and r.get("side") != "port"
           for r in results):
        print(path)
PY
if [ -s "$TMP/wmu" ]; then
	bad "the reference is within measurement uncertainty in: $(tr '\n' ' ' <"$TMP/wmu")"
else
	ok "no reference result within measurement uncertainty under realistic measurement"
fi
# Who excuses what, named.
excused "a host that never enumerates excuses configured_bmaxpower" "no-enum" bc12.host.configured_bmaxpower "host never"
excused "a host that never enumerates excuses c_connect" "aca-c-ideal-5a-no-enum-ideal" bc12.aca.c_connect "host never"
excused "... under realistic measurement too" "aca-c-ideal-5a-no-enum-realistic" bc12.aca.c_connect "host never"
excused "a slow plug excuses connect_time" "slow-plug" bc12.host.connect_time "data lines touched"
excused "a slow plug excuses c_connect" "aca-c-ideal-5a-root-500ma-slow-plug" bc12.aca.c_connect "data lines touched"
excused "a late CDP excuses port_type" "cdp-late" bc12.det.port_type "never answered VDM_SRC"
excused "a late CDP excuses vdm_src" "cdp-late" bc12.det.vdm_src "never answered VDM_SRC"
excused "a capture that starts after the attach excuses primary_start" "late-capture" bc12.det.primary_start "the capture starts at"
excused "... and vdp_src" "late-capture" bc12.det.vdp_src "0.300 s"
excused "a charger that shuts down excuses nothing and needs nothing" "dcp-shutdown" bc12.cur.vdcp_shtdwn "-"

# Every record this script wrote, against its schema.
validate_records "$TMP"

echo "conditions: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
