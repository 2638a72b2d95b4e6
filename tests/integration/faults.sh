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

# ---- the matrix ----
#     label                              exit state   reason        case
fault "firmware built for another ABI"   2    -       -             wrong_abi

echo "faults: $pass passed, $fail failed ($n_case cases)"
[ "$fail" -eq 0 ]
