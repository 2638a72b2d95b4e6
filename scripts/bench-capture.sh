#!/bin/sh
# make bench, captures: the .sr writer and replay against libsigrok on the
# same data, medians of RUNS, and peak RSS at two capture sizes.
#   write:  bench/capture/srzip_write (libzip, spooled) vs libsigrok's srzip
#           output, 5 analog channels, the same synthetic frames
#   replay: `bcbench replay` (every rule) vs libsigrok's sr_session_load with
#           a callback that only sums the samples, on the same file: a 45-min
#           dead-battery capture from the simulated bench (4 ch at 5 kHz,
#           54 M samples) and a noisy synthetic one (5 ch, 52 M samples),
#           each timed as a whole process (start to exit)
#   rss:    peak RSS of writing and of replay, small and large capture
# Usage: bench-capture.sh BCBENCH SR_PEER
set -u
BCBENCH=${1:-build/bcbench}
PEER=${2:-build/bench/sr_peer}
RUNS=${RUNS:-5}
TMP=$(mktemp -d /tmp/bcbench-bcap.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

. scripts/bench-lib.sh
# rate_of CMD...: median samples/s over RUNS runs of a command that prints "samples N seconds S rate R"
rate_of() {
	: >"$TMP/r"
	for i in $(seq "$RUNS"); do "$@" 2>/dev/null | field rate >>"$TMP/r"; done
	median <"$TMP/r"
}
ratio() { echo "$1 $2" | awk '{ printf "%.2f", $1 / $2 }'; }
msps() { echo "$1" | awk '{ printf "%.1f", $1 / 1e6 }'; }

echo
echo "== capture write: 5 analog channels, 1,000,000 frames (5 M samples), median of $RUNS"
ours=$(rate_of "$PEER" write-ours "$TMP/w.sr" 1000000 1000000)
theirs=$(rate_of "$PEER" write-sigrok "$TMP/ws.sr" 1000000 1000000)
printf '%-34s %10s M samples/s\n' "bcbench srzip_write (libzip)" "$(msps "$ours")"
printf '%-34s %10s M samples/s\n' "libsigrok srzip output" "$(msps "$theirs")"
printf '%-34s %10sx\n' "ratio" "$(ratio "$ours" "$theirs")"

echo
echo "== replay vs libsigrok's raw read of the same file, median of $RUNS"
sed 's/at 1kHz/at 5kHz/' scripts/scenarios/dbp.scn >"$TMP/dbp5k.scn"
cp scripts/scenarios/dbp.scn "$TMP/dbp1k.scn"
"$BCBENCH" run -q --no-html --out "$TMP/dbp5k" "$TMP/dbp5k.scn" >/dev/null 2>&1
"$BCBENCH" run -q --no-html --out "$TMP/dbp1k" "$TMP/dbp1k.scn" >/dev/null 2>&1
"$PEER" write-ours "$TMP/noisy.sr" 10400000 100000 >/dev/null 2>&1
"$PEER" write-ours "$TMP/noisy-small.sr" 2080000 100000 >/dev/null 2>&1
printf '%-30s %12s %12s %12s %8s\n' capture samples "replay M/s" "libsigrok M/s" ratio
for c in dbp5k noisy; do
	if [ "$c" = noisy ]; then
		file=$TMP/noisy.sr
		set -- "$BCBENCH" replay -q --no-html --port dcp --dut phone --out "$TMP/r-$c" "$file"
	else
		file=$TMP/$c/capture.sr
		set -- "$BCBENCH" replay -q --no-html --events "$TMP/$c/events.json" --out "$TMP/r-$c" "$file"
	fi
	n=$("$PEER" read-sigrok "$file" 2>/dev/null | field samples)
	secs=$(secs_of "$@")
	replay=$(echo "$n $secs" | awk '{ printf "%.0f", $1 / $2 }')
	# both sides timed the same way: the whole process, start to exit
	raw=$(echo "$n $(secs_of "$PEER" read-sigrok "$file")" | awk '{ printf "%.0f", $1 / $2 }')
	printf '%-30s %12s %12s %12s %7sx\n' "$c" "$n" "$(msps "$replay")" "$(msps "$raw")" "$(ratio "$replay" "$raw")"
done

echo
echo "== peak RSS (KB): small vs large capture"
printf '%-40s %12s %12s\n' what small large
printf '%-40s %12s %12s\n' "write 2.08 M vs 10.4 M frames (5 ch)" \
	"$(rss_of "$PEER" write-ours "$TMP/x.sr" 2080000 100000)" "$(rss_of "$PEER" write-ours "$TMP/x.sr" 10400000 100000)"
printf '%-40s %12s %12s\n' "bcbench run dbp, 1 kHz vs 5 kHz" \
	"$(rss_of "$BCBENCH" run -q --no-html --out "$TMP/x1" "$TMP/dbp1k.scn")" "$(rss_of "$BCBENCH" run -q --out "$TMP/x5" "$TMP/dbp5k.scn")"
printf '%-40s %12s %12s\n' "bcbench replay dbp, 1 kHz vs 5 kHz" \
	"$(rss_of "$BCBENCH" replay -q --no-html --events "$TMP/dbp1k/events.json" --out "$TMP/y1" "$TMP/dbp1k/capture.sr")" \
	"$(rss_of "$BCBENCH" replay -q --no-html --events "$TMP/dbp5k/events.json" --out "$TMP/y5" "$TMP/dbp5k/capture.sr")"
printf '%-40s %12s %12s\n' "bcbench replay noisy, 10 M vs 52 M samples" \
	"$(rss_of "$BCBENCH" replay -q --no-html --port dcp --dut phone --out "$TMP/z1" "$TMP/noisy-small.sr")" \
	"$(rss_of "$BCBENCH" replay -q --no-html --port dcp --dut phone --out "$TMP/z5" "$TMP/noisy.sr")"
printf '%-40s %12s %12s\n' "libsigrok read dbp (peer), 1 vs 5 kHz" \
	"$(rss_of "$PEER" read-sigrok "$TMP/dbp1k/capture.sr")" "$(rss_of "$PEER" read-sigrok "$TMP/dbp5k/capture.sr")"
