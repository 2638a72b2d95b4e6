#!/bin/sh
# Remake the README's pictures of a report page (docs/img/report-*.png):
# a failing run's page in headless Chromium, its top (the verdict, the
# record's identity, the first results) and the plot of its failing rule.
# Usage: scripts/report-screenshots.sh [BCBENCH] [FWDIR]
set -eu
BCBENCH=${1:-build/bcbench}
FWDIR=${2:-build/fw}
CHROMIUM=${CHROMIUM:-chromium}
TMP=$(mktemp -d /tmp/bcbench-shots.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

"$BCBENCH" run -q --operator "lab engineer" --out "$TMP/run" --firmware "$FWDIR/cdp_as_dcp.so" \
	scripts/scenarios/cdp.scn >/dev/null || [ $? -eq 1 ]
# the failing rule's figure alone, on a page of its own
python3 - "$TMP/run/report.html" "$TMP/plot.html" <<'PY'
import re, sys
page = open(sys.argv[1], encoding="utf-8").read()
head = page[:page.index("<body>") + len("<body>")]
fig = re.search(r'<figure class="plot" id="plot-\d+" data-index="\d+"><figcaption class="v-fail">.*?</figure>',
                page, re.S).group(0)
open(sys.argv[2], "w", encoding="utf-8").write(head + fig + "</body></html>\n")
PY
shot() {
	# (the browser's own chatter on stderr is not ours)
	"$CHROMIUM" --headless=new --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$TMP/profile" \
		--window-size="$2" --screenshot="$3" "file://$1" >/dev/null 2>&1
	echo "wrote $3 ($(wc -c <"$3") bytes)"
}
mkdir -p docs/img
shot "$TMP/run/report.html" 1000,700 docs/img/report-top.png
shot "$TMP/plot.html" 820,360 docs/img/report-plot.png
