#!/bin/sh
# The acceptance check of report.html pages (tests/integration/html_dom.py:
# headless Chromium reads the DOM and compares it with the record) proves
# itself on hand-made pages in tests/data/html: the good page passes, and
# each broken one fails with the message of its one defect. Run from the
# repository root. CHROMIUM: the browser (default chromium); PYTHON: the
# interpreter (standard library only).
set -u
TMP=$(mktemp -d /tmp/bcbench-html.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
. tests/integration/lib.sh
D=tests/data/html
PY=${PYTHON:-python3}
CHROMIUM=${CHROMIUM:-chromium}

# scripts/install-deps.sh installs chromium, so a machine without it is
# not ready for make check: say so and fail rather than pass unseen.
if ! command -v "$CHROMIUM" >/dev/null 2>&1; then
	echo "html: SKIPPED, and that is a failure: no browser \"$CHROMIUM\" (scripts/install-deps.sh installs the Debian package chromium)"
	exit 1
fi

# Browser profiles go in TMP, so what is left of them can be seen.
dom() { TMPDIR="$TMP" "$PY" tests/integration/html_dom.py --chromium "$CHROMIUM" "$@"; }
show() { sed 's/^/     | /' "$TMP/out"; }

# The good page: every check of the contract passes, and a screenshot is
# written (looked at, never asserted).
expect_exit "good page passes" 0 dom --report $D/report.json --bands VDAT_REF,VLGC,IUNIT,IDEV_CHG \
	--max-bytes 8000 --screenshot "$TMP/good.png" $D/good.html
show
expect_out "the screenshot's path is printed" "screenshot $TMP/good.png"
[ "$(head -c 4 "$TMP/good.png" 2>/dev/null | od -An -c | tr -d ' ')" = "211PNG" ] &&
	ok "the screenshot is a PNG" || bad "no PNG at $TMP/good.png"

# broken NAME MESSAGE...: the page fails (exit 1) with exactly these
# failures (so each fixture holds the one defect it is for).
broken() {
	page=$1
	shift
	expect_exit "$page fails" 1 dom --report $D/report.json "$D/$page.html"
	show
	n=$#
	[ "$n" -eq 1 ] && want="1 failure (" || want="$n failures ("
	expect_out "$page: only its defect is found" "$want"
	for m in "$@"; do expect_out "$page: $m" "$m"; done
}
broken missing-rule "results[3] bc12.det.vdm_src (inconclusive) has no row in table#rules"
broken wrong-window "#plot-1 highlights [1.250000, 1.600000], the record's window of bc12.cur.idev_chg is [1.250000, 1.500000]"
broken external-img "not self-contained: the page requests http://example.invalid/logo.png" \
	"load failed: http://example.invalid/logo.png (net::ERR_NAME_NOT_RESOLVED)" \
	"browser log error: Failed to load resource: net::ERR_NAME_NOT_RESOLVED (http://example.invalid/logo.png)"
broken throws "uncaught exception: TypeError: Cannot set properties of null (setting 'textContent')"

# The rest of the contract on one mangled copy of the good page (one
# browser for many defects), against a record whose "verdict" field the
# page contradicts.
sed -e 's/data-lo="0.25"/data-lo="abc"/' \
	-e 's| <a class="plot-link" href="#plot-2">plot</a>||' \
	-e 's/data-channel="ID"/data-channel="USB_ID"/' \
	-e '/<td>capture.sr<\/td>/d' \
	-e 's/data-t0="0.050000" data-t1="0.200000"/data-t0="0.120000" data-t1="0.200000"/' \
	-e 's/data-index="4" data-id="expect.L7" data-verdict="skipped"/data-index="4" data-id="expect.L7" data-verdict="pass"/' \
	-e '/data-index="0"/p' \
	-e 's|^</body></html>$|<script>console.warn("stale"); setTimeout(() => { throw new Error("late"); }, 0);</script></body></html>|' \
	$D/good.html >"$TMP/mangled.html"
"$PY" -c 'import json, sys; r = json.load(open(sys.argv[1])); r["verdict"] = "compliant"; json.dump(r, open(sys.argv[2], "w"))' \
	$D/report.json "$TMP/verdict.json"
expect_exit "mangled page fails" 1 dom --report "$TMP/verdict.json" --bands VDAT_REF,NOPE --max-bytes 1000 "$TMP/mangled.html"
show
for m in "the record's \"verdict\" 'compliant' contradicts its results and status ('not-compliant')" \
	"band VDAT_REF: data-lo 'abc' is neither a number nor \"\"" \
	"band NOPE is in no plot" \
	"failed rule bc12.det.tvdpsrc_on (results[2]) has no <a class=\"plot-link\" href=\"#plot-2\">" \
	"#plot-run lane data-channel 'USB_ID' is not one of VBUS, IBUS, DP, DM, ID" \
	"#plot-run has no lane ID" \
	"table#files has 2 rows, the record 3 files" \
	"table#files lacks the sha256 of capture.sr" \
	"#plot-2: svg [0.120000, 0.200000] does not contain the highlighted window [0.101500, 0.140000]" \
	"event mark data_contact at 0.100000 s drawn outside its plot" \
	"row expect.L7 (results[4]) says 'pass', the record 'skipped'" \
	"results[0] bc12.det.vdp_src has 2 rows" \
	"more than --max-bytes 1000" \
	"console warning: stale" \
	"uncaught exception: Error: late"; do
	expect_out "mangled: $m" "$m"
done

# A record without "verdict" (written before it had one): the verdict is
# computed as bcbench does; a failure that is a warning does not count.
"$PY" -c 'import json, sys; r = json.load(open(sys.argv[1])); r["results"][1]["severity"] = "warning"; json.dump(r, open(sys.argv[2], "w"))' \
	$D/report.json "$TMP/warn.json"
expect_exit "verdict computed from an older record" 1 dom --report "$TMP/warn.json" $D/good.html
show
expect_out "only warnings and an inconclusive: not demonstrated" "#verdict says 'not-compliant', the record 'not-demonstrated'"

# Suite pages.
expect_exit "good suite page passes" 0 dom --suite $D/suite.json $D/suite.html
show
expect_exit "broken suite page fails" 1 dom --suite $D/suite.json $D/suite-broken.html
show
expect_out "suite: a link to a missing page" "entry sdp/sdp/crash links to entries/0001-sdp-sdp-crash/report.html: no such file"
expect_out "suite: a cell against its report" "entry dcp/dcp/phone: cell bc12.det.vdp_src says fail, its report pass"

# The check itself cannot run: exit 2, said why.
expect_exit "no browser" 2 dom --chromium "$TMP/no-such-browser" --report $D/report.json $D/good.html
expect_err "no browser is named" "no browser"
expect_exit "no page" 2 dom --report $D/report.json "$TMP/none.html"
expect_err "no page is said" "no such page"

# A page that never loads: the wait ends, the browser is killed.
printf '<!DOCTYPE html><html><body><script>for (;;) {}</script></body></html>\n' >"$TMP/hang.html"
expect_exit "a page that never loads" 2 dom --timeout 2 --report $D/report.json "$TMP/hang.html"
expect_err "the timeout is said" "timed out after 2 s waiting for"
sleep 0.5
ps -eo args | grep -F "$TMP/html_dom." | grep -v grep >"$TMP/left"
[ ! -s "$TMP/left" ] && ok "no browser is left running" || bad "browsers left: $(head -c 300 "$TMP/left")"
ls -d "$TMP"/html_dom.* >/dev/null 2>&1 && bad "a browser profile is left: $(ls -d "$TMP"/html_dom.*)" ||
	ok "the browser's profile is removed"

# ---- Real pages: what bcbench writes, read in the same browser. ----
BCBENCH=${BCBENCH:-build/bcbench}
FWDIR=${FWDIR:-build/fw}
R=$TMP/real
# The bands item 2 of the record's page names, each drawn somewhere.
BANDS_DETECT=VDAT_REF,VLGC,VDP_SRC,VDM_SRC
SHOTS=""
# Screenshots outlive the test (TMP does not) to be looked at; never asserted.
SHOT=${HTML_SHOTS:-build/html-shots}
mkdir -p "$SHOT"

# A passing run: compliant, every rule a row, the bands of detection and
# of the current rules (the droop threshold the device declares).
expect_exit "a passing run" 0 "$BCBENCH" run -q --operator "html test" --out "$R/pass" scripts/scenarios/dcp.scn
expect_exit "its page passes the DOM check, fits A4 printed" 0 dom --verdict compliant --lanes VBUS,IBUS,DP,DM --print-width 703 \
	--bands $BANDS_DETECT,IDEV_CHG,DROOP_THRESHOLD,VDCP_SHTDWN --screenshot "$SHOT/pass.png" "$R/pass/report.html"
show
SHOTS="$SHOTS $SHOT/pass.png"
has "the record names its operator" "$R/pass/report.json" '"operator":	"html test"'
grep -q 'Operator</dt><dd>html test' "$R/pass/report.html" && ok "the page names its operator" ||
	bad "the page lacks the operator"

# A run on a swept charger profile: the page draws its curve
# (bench/report/curve_html.h: figure#charger-curve, a g.pt per measured
# point, the knee the sweep found); a run on a plain profile has none.
expect_exit "sweep dcp-weak" 0 "$BCBENCH" curve sweep -q --charger dcp-weak --out "$R/swept-weak.json"
expect_exit "a run with --charger the swept profile" 0 "$BCBENCH" run -q --charger "$R/swept-weak.json" \
	--out "$R/swept" scripts/scenarios/dcp-weak.scn
expect_exit "its page passes the DOM check" 0 dom --lanes VBUS,IBUS,DP,DM "$R/swept/report.html"
show
if "$PY" - "$R/swept-weak.json" "$R/swept/report.html" >"$TMP/curve.out" 2>&1 <<'PY'
import json, re, sys
prof = json.load(open(sys.argv[1]))["measured"]
page = open(sys.argv[2]).read()
fig = re.findall(r'<figure class="plot curve" id="charger-curve"([^>]*)>(.*?)</figure>', page, re.S)
assert len(fig) == 1, ("figures", len(fig))
attrs, body = fig[0]
assert 'data-profile="swept-weak"' in attrs and 'data-by="sweep"' in attrs, attrs
pts = re.findall(r'<g class="pt" data-a="([^"]*)" data-v="([^"]*)"', body)
assert len(pts) == len(prof["points"]) >= 10, ("points", len(pts), len(prof["points"]))
for (a, v), p in zip(pts, prof["points"]):
    assert abs(float(a) - p["a"]) < 1e-5 and abs(float(v) - p["v"]) < 1e-5, (a, v, p)
knee = re.findall(r'<g class="knee" data-a="([^"]*)"', body)
assert len(knee) == 1 and abs(float(knee[0]) - prof["knee"]["a"]) < 1e-5, (knee, prof["knee"])
assert re.search(r'<g class="band" data-band="VCHG"', body), "no VCHG band"
print("%d points as swept, the knee at %s A, the VCHG band" % (len(pts), knee[0]))
PY
then ok "the page draws the swept curve: $(cat "$TMP/curve.out")"; else bad "the swept curve on the page: $(tail -3 "$TMP/curve.out")"; fi
grep -q 'id="charger-curve"' "$R/pass/report.html" && bad "a run on a plain charger profile draws a curve" ||
	ok "a run on a plain charger profile draws no curve"

# A failing run: not compliant; the failing rule links to its plot with
# the window it judged highlighted (html_dom checks each such link).
expect_exit "a failing run" 1 "$BCBENCH" run -q --out "$R/fail" --firmware "$FWDIR/cdp_as_dcp.so" scripts/scenarios/cdp.scn
expect_exit "its page passes the DOM check, fits A4 printed" 0 dom --verdict not-compliant --lanes VBUS,IBUS,DP,DM --print-width 703 \
	--bands $BANDS_DETECT --screenshot "$SHOT/fail.png" "$R/fail/report.html"
show
SHOTS="$SHOTS $SHOT/fail.png"
expect_out "the failing rule is linked to its plot" "ok,"
grep -q 'href="#plot-[0-9]*">plot</a>' "$R/fail/report.html" && ok "failing rows link down to plots" ||
	bad "no plot link in the failing page"

# A device run on a port that breaks a port rule (cdp-late: a CDP that
# answers VDM_SRC 60 ms late, past TVDMSRC_EN max): the port rule fails
# (side port), no device rule fails, the detection rules it broke are
# inconclusive naming the port, the run exits 0 (a port's failure is not
# the device's), and the page shows the port's verdict beside the
# device's (docs/port-dependencies.md). The scenario is cdp.scn without
# its expectations (which a late CDP makes fail) and with the port rules.
sed -e '/^expect/d' -e 's/^check .*/check    bc12.dcd bc12.det bc12.cur bc12.port/' \
	scripts/scenarios/cdp.scn >"$TMP/cdp-late-device.scn"
expect_exit "a device on a CDP that answers late: not the device's failure" 0 \
	"$BCBENCH" run -q --port cdp-late --out "$R/late" "$TMP/cdp-late-device.scn"
if "$PY" - "$R/late/report.json" >"$TMP/late.out" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
res = {r["id"]: r for r in d["results"]}
p = res["bc12.port.tvdmsrc_en"]
assert p["verdict"] == "fail" and p["side"] == "port", ("tvdmsrc_en", p["verdict"], p["side"])
dev_fail = [r["id"] for r in d["results"] if r.get("side") == "device" and r["verdict"] == "fail"]
assert not dev_fail, ("device rules failed", dev_fail)
for rid in ("bc12.det.port_type", "bc12.det.vdm_src"):
    r = res[rid]
    assert r["verdict"] == "inconclusive" and "the port (cdp-late)" in r.get("reason", ""), (rid, r["verdict"], r.get("reason"))
assert d["judges"] == "device", d["judges"]
assert d["verdicts"]["port"] == "not-compliant", d["verdicts"]
assert d["verdict"] == d["verdicts"]["device"] != "not-compliant", d["verdicts"]
assert d["status"]["exit_code"] == 0, d["status"]
print("port rule failed; device rules it broke inconclusive naming the port; verdicts", d["verdicts"])
PY
then ok "$(cat "$TMP/late.out")"; else bad "cdp-late device run: $(tail -3 "$TMP/late.out")"; fi
expect_exit "its page passes the DOM check (the port's verdict beside the device's)" 0 dom \
	--verdict not-demonstrated --lanes VBUS,IBUS,DP,DM --bands $BANDS_DETECT "$R/late/report.html"
show
has "the header names the port's failed rule" "$R/late/report.html" \
	'data-side="port">The port: not compliant (bc12.port.tvdmsrc_en)</div>'
has "the port's results under their own heading" "$R/late/report.html" "<h2 id=\"results-other\">The port's results</h2>"
expect_exit "report text of it" 0 "$BCBENCH" report text "$R/late/report.json"
expect_out "text: the port's verdict, not the device's" "the port: not compliant (bc12.port.tvdmsrc_en): reported, not the device's verdict"
expect_out "text: the port rule says its side" "bc12.port.tvdmsrc_en [the port]:"
# A page that leaves the port's verdict out, or shows a port row as the
# device's, fails the DOM check.
sed 's|<div id="verdict-other"|<div id="verdict-gone"|' "$R/late/report.html" >"$R/late/no-other.html"
expect_exit "a page without the port's verdict fails" 1 dom --report "$R/late/report.json" "$R/late/no-other.html"
expect_out "naming it" "0 #verdict-other, the port judged something"
sed 's|data-id="bc12.port.tvdmsrc_en" data-verdict="fail" data-side="port"|data-id="bc12.port.tvdmsrc_en" data-verdict="fail" data-side="device"|' \
	"$R/late/report.html" >"$R/late/wrong-side.html"
expect_exit "a port row said to be the device's fails" 1 dom --report "$R/late/report.json" "$R/late/wrong-side.html"
expect_out "naming it" "row bc12.port.tvdmsrc_en (results["
rm -f "$R/late/no-other.html" "$R/late/wrong-side.html"

# 45 minutes of a dead battery at 10 kHz (27 M frames a channel): the
# page's size does not follow the capture's length. The bound stated in
# docs/report-html.md for a scenario's page is 1 MB; the same scenario
# at a tenth of the rate gives a page within 25 % of this one.
sed 's/at 1kHz/at 10kHz/' scripts/scenarios/dbp.scn >"$TMP/dbp10k.scn"
expect_exit "a 45-minute 10 kHz dead-battery run" 0 "$BCBENCH" run -q --out "$R/dbp" "$TMP/dbp10k.scn"
has "it captured 27 M frames" "$R/dbp/report.json" '"samples":	27020000'
expect_exit "its page passes the DOM check, under 1 MB, fits A4 printed" 0 dom --max-bytes 1000000 --lanes VBUS,IBUS,DP,DM --print-width 703 \
	--bands IUNIT,ISUSP,VDP_SRC --screenshot "$SHOT/dbp.png" "$R/dbp/report.html"
show
SHOTS="$SHOTS $SHOT/dbp.png"
expect_exit "the same at 1 kHz" 0 "$BCBENCH" run -q --out "$R/dbp1k" scripts/scenarios/dbp.scn
big=$(wc -c <"$R/dbp/report.html")
small=$(wc -c <"$R/dbp1k/report.html")
[ "$big" -le $((small * 5 / 4)) ] && [ "$small" -le $((big * 5 / 4)) ] &&
	ok "10x the samples, the same page size ($big vs $small bytes)" ||
	bad "the page follows the capture's length: $big bytes at 10 kHz, $small at 1 kHz"
# the long run leaves two suspend rules inconclusive (the bus never
# suspends): no failure, yet compliance is not shown, and says so
has "an inconclusive rule: not demonstrated" "$R/dbp/report.json" '"verdict":	"not-demonstrated"'
expect_exit "--require-verdicts makes it exit 4" 4 "$BCBENCH" run -q --require-verdicts --no-html --out "$R/dbp-rv" scripts/scenarios/dbp.scn
expect_out "and says why" "compliance not demonstrated (--require-verdicts): exit 4"
[ ! -e "$R/dbp-rv/report.html" ] && ok "--no-html writes no page" || bad "--no-html wrote a page"
expect_exit "--require-verdicts on a compliant run" 0 "$BCBENCH" run -q --require-verdicts --no-html --out "$R/pass-rv" scripts/scenarios/dcp.scn

# The print check can fail: the same page with a table wider than A4.
sed 's|<table id="events">|<table id="events" style="min-width:1200px">|' "$R/fail/report.html" >"$R/fail/wide.html"
cp "$R/fail/report.json" "$TMP/wide-report.json"
expect_exit "a page wider than A4 printed fails" 1 dom --report "$TMP/wide-report.json" --lanes VBUS,IBUS,DP,DM \
	--print-width 703 "$R/fail/wide.html"
expect_out "naming what sticks out" "printed 703 px wide, the page is"
rm -f "$R/fail/wide.html"

# A suite: the matrix, each entry's link to its own page.
expect_exit "a suite" 0 "$BCBENCH" suite -q -j 2 --out "$R/suite" --filter 'cdp*,dcp/reference,dcp/crash_segv' \
	scripts/suites/regression.suite
expect_exit "its page passes the DOM check, its matrix fits landscape A4 printed" 0 dom --suite "$R/suite/suite.json" --print-width 1047 \
	--screenshot "$SHOT/suite.png" "$R/suite/report.html"
show
SHOTS="$SHOTS $SHOT/suite.png"
for e in "$R"/suite/entries/*/; do
	[ -s "$e/report.html" ] || bad "entry $e has no report.html"
done
ok "every entry has its page"
expect_exit "a crashed entry's page passes too" 0 dom --verdict not-demonstrated --lanes "" \
	"$(ls -d "$R"/suite/entries/*crash_segv)/report.html"
show

# Rendered again later, the same bytes: the page comes from the record.
for d in pass fail dbp; do
	expect_exit "report html $d again" 0 "$BCBENCH" report html --out "$TMP/again.html" "$R/$d/report.json"
	cmp -s "$TMP/again.html" "$R/$d/report.html" && ok "$d: the same bytes as at the time" ||
		bad "$d: report html gives other bytes than the run wrote"
done
cp -r "$R/fail" "$TMP/moved"
rm "$TMP/moved/report.html"
expect_exit "a record moved elsewhere" 0 "$BCBENCH" report html "$TMP/moved/report.json"
cmp -s "$TMP/moved/report.html" "$R/fail/report.html" && ok "renders beside itself, the same bytes" ||
	bad "a moved record renders differently"
expect_exit "report html of the suite again" 0 "$BCBENCH" report html --out "$TMP/again.html" "$R/suite/suite.json"
cmp -s "$TMP/again.html" "$R/suite/report.html" && ok "suite: the same bytes as at the time" ||
	bad "suite: report html gives other bytes"
# A capture that is not the one judged: refused, naming it.
printf 'x' >>"$TMP/moved/capture.sr"
expect_exit "a changed capture is refused" 2 "$BCBENCH" report html "$TMP/moved/report.json"
expect_err "naming the file and its hash" "capture.sr: SHA-256"
expect_exit "--no-plots does not read it" 0 "$BCBENCH" report html --no-plots --out "$TMP/np.html" "$TMP/moved/report.json"
grep -q "No plots: rendered without plots" "$TMP/np.html" && ok "and says there are no plots" || bad "--no-plots page"

# A record of the format before (bcbench-report/1: no verdict, no
# provenance) still renders; its verdict is computed from its results.
mkdir -p "$TMP/v1"
/usr/bin/python3 - "$R/fail/report.json" "$TMP/v1/report.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["schema"] = "bcbench-report/1"
for k in ("verdict", "record", "limits", "artifacts_sha256", "judges", "verdicts"):
    d.pop(k, None)
for r in d["results"]:
    r.pop("side", None)
d["tool"].pop("commit", None)
d["artifacts"].pop("html", None)
json.dump(d, open(sys.argv[2], "w"), indent=1)
PY
cp "$R/fail/capture.sr" "$R/fail/events.json" "$TMP/v1/"
expect_exit "a bcbench-report/1 record renders" 0 "$BCBENCH" report html "$TMP/v1/report.json"
expect_exit "its page passes the DOM check, not compliant" 0 dom --verdict not-compliant --lanes VBUS,IBUS,DP,DM \
	"$TMP/v1/report.html"
show
grep -q "the capture could not be checked" "$TMP/v1/report.html" && ok "and says its capture was not checked" ||
	bad "a v1 record's page does not say its capture was not checked"

# A lab's capture with its own channel names, IBUS as the volts across a
# 0.1 ohm shunt, replayed through a map: the page draws what the rules
# judged (the file's channels, IBUS in amperes), not "not captured".
/usr/bin/python3 - "$R/pass/capture.sr" "$TMP/lab.sr" <<'PY'
import array, sys, zipfile
names = {"VBUS": "CH1", "IBUS": "CH2", "DP": "CH3", "DM": "CH4"}
with zipfile.ZipFile(sys.argv[1]) as zin, zipfile.ZipFile(sys.argv[2], "w", zipfile.ZIP_DEFLATED) as zout:
    meta = zin.read("metadata").decode()
    ibus = [l.split("=")[0][len("analog"):] for l in meta.splitlines() if l.endswith("=IBUS")][0]
    for old, new in names.items():
        meta = meta.replace("=" + old + "\n", "=" + new + "\n")
    meta = "\n".join(l for l in meta.splitlines() if not l.startswith("bcbench units")) + "\n"
    for info in zin.infolist():
        data = zin.read(info.filename)
        if info.filename == "metadata":
            data = meta.encode()
        elif info.filename.startswith("analog-1-%s-" % ibus):
            a = array.array("f")
            a.frombytes(data)
            data = array.array("f", (v * 0.1 for v in a)).tobytes()
        zout.writestr(info.filename, data)
PY
expect_exit "a lab capture replayed through a map" 0 "$BCBENCH" replay -q --no-events --port dcp --dut phone \
	--map VBUS=CH1,IBUS=CH2:shunt=0.1,DP=CH3,DM=CH4 --out "$R/lab" "$TMP/lab.sr"
has "the record names the file's channel and its gain" "$R/lab/report.json" '"source_channel":	"CH2"'
grep -q 'not captured' "$R/lab/report.html" && bad "the lab page says a mapped channel is not captured" ||
	ok "the lab page draws every mapped channel"
# IBUS's scale on the whole run's plot: amperes as the live run's, not the shunt's volts
ibus_ticks() { sed -n '/id="svg-run"/,/<\/svg>/p' "$1" | sed -n '/data-channel="IBUS"/,/<\/g>/p' |
	grep -o 'text-anchor="end">[^<]*' | sort -u; }
ibus_ticks "$R/pass/report.html" >"$TMP/t.live"
ibus_ticks "$R/lab/report.html" >"$TMP/t.lab"
[ -s "$TMP/t.live" ] && cmp -s "$TMP/t.live" "$TMP/t.lab" && ok "the lab page's IBUS axis reads amperes, as the live run's ($(tr '\n' ' ' <"$TMP/t.lab"| sed 's/text-anchor="end">//g'))" ||
	bad "the lab page's IBUS axis: $(tr '\n' ' ' <"$TMP/t.lab") vs live $(tr '\n' ' ' <"$TMP/t.live")"

# Records that lie or are hostile. A "verdict" its results contradict is
# refused, not shown; a result with an unknown verdict too (text would
# have printed it as a pass).
/usr/bin/python3 - "$R/pass/report.json" "$TMP" <<'PY'
import json, os, sys
src, tmp = sys.argv[1], sys.argv[2]
def variant(name, change):
    d = json.load(open(src))
    change(d)
    os.makedirs(os.path.join(tmp, name), exist_ok=True)
    with open(os.path.join(tmp, name, "report.json"), "wb") as fp:
        fp.write(json.dumps(d, ensure_ascii=False).encode("utf-8", "surrogateescape"))
def lie(d):
    d["results"][0]["verdict"] = "fail"          # the stored verdict still says compliant
variant("lie", lie)
variant("unknown", lambda d: d["results"][0].__setitem__("verdict", "FAIL"))
def far(d):
    d["verdict"] = "not-compliant"
    d["verdicts"]["device"] = "not-compliant"
    d["results"][0]["verdict"] = "fail"
    d["results"][0]["window"] = {"t0_s": 1e15, "t1_s": 1e15}
variant("far", far)
def hostile(d):
    d["dut"]["firmware"] = "fw\x1b[31m<script>alert(1)</script>\udcff\udcfe&'\""
    d["results"][0]["reason"] = "\x01\x02 bell\x07"
variant("hostile", hostile)
PY
expect_exit "a record whose verdict its results contradict" 2 "$BCBENCH" report html "$TMP/lie/report.json"
expect_err "is refused as not consistent" "the record is not consistent"
# /3: a side's stored verdict its results contradict is refused too
"$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); d["verdicts"]["port"]="not-compliant"; json.dump(d,open(sys.argv[2],"w"))' \
	"$R/pass/report.json" "$TMP/lie-port.json"
expect_exit "a record whose port verdict its results contradict" 2 "$BCBENCH" report html --out "$TMP/lp.html" "$TMP/lie-port.json"
expect_err "is refused, naming the side" '"verdicts": {"port"} says not-compliant'
rm -f "$TMP/lie-port.json"
expect_exit "a result with an unknown verdict" 2 "$BCBENCH" report text "$TMP/unknown/report.json"
expect_err "is refused, naming it" 'results[0]: "verdict" is not one of'
cp "$R/pass/capture.sr" "$R/pass/events.json" "$TMP/far/"
/usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["artifacts_sha256"]={}; json.dump(d,open(sys.argv[1],"w"))' "$TMP/far/report.json"
expect_exit "a window 1e15 s out: drawn, no endless axis" 0 timeout 60 "$BCBENCH" report html "$TMP/far/report.json"
cp "$R/pass/capture.sr" "$R/pass/events.json" "$TMP/hostile/"
/usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["artifacts_sha256"]={}; json.dump(d,open(sys.argv[1],"w"))' "$TMP/hostile/report.json" 2>/dev/null ||
	true
expect_exit "strings with controls, markup and bytes that are not UTF-8" 0 "$BCBENCH" report html --no-plots "$TMP/hostile/report.json"
if /usr/bin/python3 -c 'import sys; t = open(sys.argv[1], "rb").read().decode("utf-8"); assert "<script>alert" not in t and "\x1b" not in t and "\x07" not in t and "\ufffd" in t' "$TMP/hostile/report.html"; then
	ok "the page is valid UTF-8, the markup escaped, the controls shown as U+FFFD"
else bad "the hostile record's page: markup, controls or invalid UTF-8 got through"; fi
# From another directory, by another path: the same bytes (a suite's and a
# replay's page too: neither shows the path it was rendered from, and a
# replay's capture is found by its absolute path, never by the cwd).
BCB=$(cd "$(dirname "$BCBENCH")" && pwd)/$(basename "$BCBENCH")
TOP=$(pwd)
expect_exit "a replay of a capture named relative to where it runs" 1 sh -c \
	'cd "$1" && "$2" replay -q --datadir "$3" --out rp fail/capture.sr' sh "$R" "$BCB" "$TOP"
(cd "$TMP" && "$BCB" report html --out "$TMP/rp-elsewhere.html" "$R/rp/report.json") 2>/dev/null
cmp -s "$TMP/rp-elsewhere.html" "$R/rp/report.html" && ok "a replay's page rendered from elsewhere: the same bytes" ||
	bad "a replay's page depends on where it is rendered from"
grep -q 'id="plot-run"' "$R/rp/report.html" && ok "and it has its plots" || bad "the replay's page has no plots"
(cd "$R" && "$BCB" report html --out "$TMP/suite-elsewhere.html" suite/suite.json) 2>/dev/null
cmp -s "$TMP/suite-elsewhere.html" "$R/suite/report.html" && ok "a suite's page by another path: the same bytes" ||
	bad "a suite's page depends on the path it was rendered by"

# The other formats, from the same record.
expect_exit "report text" 0 "$BCBENCH" report text "$R/fail/report.json"
expect_out "text: the failing rule's line" "FAIL   bc12.det.port_type"
expect_out "text: the overall verdict" "verdict: not compliant"
expect_exit "report markdown" 0 "$BCBENCH" report markdown "$R/fail/report.json"
expect_out "markdown: the verdict" "**not compliant**"
expect_out "markdown: the failing rule first" "| fail | \`bc12.det.port_type\`"
expect_exit "report junit" 0 "$BCBENCH" report junit --out "$TMP/one.xml" "$R/fail/report.json"
if xmllint --noout --schema tests/data/junit/junit-10.xsd "$TMP/one.xml" >"$TMP/x" 2>&1; then
	ok "one run's JUnit validates against the Jenkins xUnit schema"
else bad "one run's JUnit: $(tail -2 "$TMP/x")"; fi
grep -q '<failure' "$TMP/one.xml" && ok "and carries the failure" || bad "one run's JUnit has no failure"
expect_exit "report junit of a suite" 0 "$BCBENCH" report junit "$R/suite/suite.json"
expect_out "one testsuite per entry" "<testsuite name=\"dcp/reference\""
expect_exit "an unknown format" 2 "$BCBENCH" report pdf "$R/fail/report.json"
expect_err "names the formats" "html, junit, text or markdown"
expect_exit "not a record" 2 "$BCBENCH" report html tests/data/html/suite-broken.html
expect_exit "--out with two files" 2 "$BCBENCH" report html --out x.html "$R/pass/report.json" "$R/fail/report.json"

for s in $SHOTS; do echo "     screenshot: $s"; done
# The validator checks what a schema cannot: a /3 record's verdicts agree
# with its results (the lying record says compliant over a failure).
mkdir -p "$TMP/lie-only" && cp "$TMP/lie/report.json" "$TMP/lie-only/"
expect_exit "validate_records refuses a record whose verdicts its results contradict" 1 \
	/usr/bin/python3 tests/integration/validate_records.py "$TMP/lie-only"
expect_out "naming the side" "verdicts/device: says 'compliant', its results give 'not-compliant'"
rm -r "$TMP/lie-only"
# (the records made hostile on purpose above are not records to validate)
validate_records "$TMP" hostile/report.json unknown/report.json lie/report.json

echo "html: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
