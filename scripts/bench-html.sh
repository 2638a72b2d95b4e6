#!/bin/sh
# make bench, report.html: drawing a page against reading its capture.
#   time: `bcbench report html` of a 45-minute dead-battery record (the
#         whole page: the capture read once, reduced for every plot, the
#         tables written) vs libsigrok's sr_session_load reading the same
#         capture.sr and only summing the samples (tests/bench/sr_peer
#         read-sigrok): the floor of any tool that looks at every sample.
#         Both timed as a whole process, start to exit, median of RUNS.
#   size: the page at 1, 5 and 10 kHz: it must not follow the capture.
#   rss:  peak RSS of rendering, 1 kHz vs 10 kHz (flat: the capture is
#         streamed).
# Usage: bench-html.sh BCBENCH SR_PEER
set -u
BCBENCH=${1:-build/bcbench}
PEER=${2:-build/bench/sr_peer}
RUNS=${RUNS:-5}
TMP=$(mktemp -d /tmp/bcbench-bhtml.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

. scripts/bench-lib.sh

for k in 1 5 10; do
	sed "s/at 1kHz/at ${k}kHz/" scripts/scenarios/dbp.scn >"$TMP/dbp$k.scn"
	"$BCBENCH" run -q --no-html --out "$TMP/dbp$k" "$TMP/dbp$k.scn" >/dev/null 2>&1
	"$BCBENCH" report html "$TMP/dbp$k/report.json" 2>/dev/null
done

echo
echo "== report.html of a 45-min dead-battery record vs libsigrok reading its capture, median of $RUNS"
printf '%-8s %12s %12s %14s %8s %10s\n' rate samples "page s" "libsigrok s" ratio "page kB"
for k in 1 5 10; do
	f=$TMP/dbp$k/capture.sr
	n=$("$PEER" read-sigrok "$f" 2>/dev/null | field samples)
	page=$(secs_of "$BCBENCH" report html --out "$TMP/p.html" "$TMP/dbp$k/report.json")
	raw=$(secs_of "$PEER" read-sigrok "$f")
	printf '%-8s %12s %12s %14s %7sx %10s\n' "${k} kHz" "$n" "$page" "$raw" \
		"$(echo "$page $raw" | awk '{ printf "%.2f", $1 / $2 }')" \
		"$(wc -c <"$TMP/dbp$k/report.html" | awk '{ printf "%.0f", $1 / 1000 }')"
done
echo "(ratio: page time over the raw read; the page also writes every table and plot)"

echo
echo "== peak RSS (KB) of rendering the page, 1 kHz vs 10 kHz"
printf '%-40s %12s %12s\n' what "1 kHz" "10 kHz"
printf '%-40s %12s %12s\n' "bcbench report html" \
	"$(rss_of "$BCBENCH" report html --out "$TMP/p.html" "$TMP/dbp1/report.json")" \
	"$(rss_of "$BCBENCH" report html --out "$TMP/p.html" "$TMP/dbp10/report.json")"
printf '%-40s %12s %12s\n' "libsigrok read (peer)" \
	"$(rss_of "$PEER" read-sigrok "$TMP/dbp1/capture.sr")" "$(rss_of "$PEER" read-sigrok "$TMP/dbp10/capture.sr")"
