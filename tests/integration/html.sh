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
for m in "#verdict says 'not-compliant', the record 'compliant'" \
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

echo "html: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
