#!/bin/sh
# make bench, captures: the .sr writer and replay against libsigrok on the
# same data, medians of RUNS, and peak RSS at two capture sizes.
#   write:  bench/capture/srzip_write (libdeflate as it goes, capture/zipw)
#           vs libsigrok's srzip output at the same level (9, libsigrok's
#           only one) and chunk (262144 samples), and vs the ceiling: the
#           same chunks deflated in memory, no file; our defaults (level 1,
#           65536) and compression threads; 5 analog channels, the same
#           synthetic frames
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
msps() { echo "$1" | awk '{ printf "%.1f", $1 / 1e6 }'; }

# Each configuration once per round, RUNS rounds, so all see the same load;
# then the median of each. cfg NAME CMD...: one run, "rate bytes cpu_rate"
# appended to $TMP/w-NAME. The wall rate is what a run sees; the CPU rate
# (samples per CPU second, every thread's) is steadier on a shared machine.
cfg() {
	name=$1
	shift
	"$@" 2>/dev/null | awk '/^samples/ { r = $6; q = $10 } /^bytes/ { b = $2 } END { print r, b, q }' >>"$TMP/w-$name"
}
wmed() { awk '{ print $1 }' "$TMP/w-$1" | median; }
cmed() { awk '{ print $3 }' "$TMP/w-$1" | median; }
wbytes() { tail -1 "$TMP/w-$1" | awk '{ print $2 }'; }
F=1000000
G=4000000
# The one-thread configurations all on one CPU, the same one: where a
# machine's CPUs run at different speeds (bench-suite.sh prints each
# one's), a writer and its peer timed on different CPUs would compare the
# CPUs. The threaded ones (and a run without threads to set them against)
# run where the scheduler puts them: their point is the second CPU.
pin_cpu=$(cpus_allowed | sed -n 1p)
echo
echo "== capture write: 5 analog channels at 1 MHz, +-1 mV of noise, median of $RUNS rounds side by side"
echo "   against libsigrok: $F frames (5 M samples; libsigrok rewrites its zip per packet);"
echo "   against the ceiling and with threads: $G frames (20 M samples), so that a file's"
echo "   fixed cost (its fsyncs and rename on a disk shared with other work) weighs less;"
echo "   every configuration without threads on CPU ${pin_cpu:-?} (taskset), the threaded ones on any"
for i in $(seq "$RUNS"); do
	cfg sigrok pin "$pin_cpu" "$PEER" write-sigrok "$TMP/ws.sr" $F 1000000 262144
	cfg ours9s pin "$pin_cpu" "$PEER" write-ours "$TMP/w.sr" $F 1000000 9 262144 0
	cfg ours9 pin "$pin_cpu" "$PEER" write-ours "$TMP/w.sr" $G 1000000 9 262144 0
	cfg ceil9 pin "$pin_cpu" "$PEER" ceiling $G 1000000 9 262144
	cfg ours pin "$pin_cpu" "$PEER" write-ours "$TMP/w.sr" $G 1000000 0 0 0
	cfg ceil pin "$pin_cpu" "$PEER" ceiling $G 1000000 0 65536
	cfg ours_u "$PEER" write-ours "$TMP/w.sr" $G 1000000 0 0 0
	cfg ours_t1 "$PEER" write-ours "$TMP/w.sr" $G 1000000 0 0 1
	cfg ours_t2 "$PEER" write-ours "$TMP/w.sr" $G 1000000 0 0 2
done
row() { printf '%-42s %6s %5s %7s %3s %8s %8s %10s\n' "$@"; }
line() { row "$1" "$2" "$3" "$4" "$5" "$(msps "$(wmed "$6")")" "$(msps "$(cmed "$6")")" "$(wbytes "$6")"; }
row what frames level chunk thr "wall M/s" "CPU M/s" bytes
line "libsigrok 0.5.2 srzip output (libzip)" 1M "9 (a)" 262144 - sigrok
line "bcbench srzip_write" 1M 9 262144 0 ours9s
line "bcbench srzip_write" 4M 9 262144 0 ours9
line "in-memory ceiling (libdeflate, no file)" 4M 9 262144 - ceil9
line "bcbench srzip_write, defaults" 4M 1 65536 0 ours
line "in-memory ceiling (libdeflate, no file)" 4M 1 65536 - ceil
line "bcbench srzip_write, defaults, any CPU" 4M 1 65536 0 ours_u
line "bcbench srzip_write, defaults" 4M 1 65536 1 ours_t1
line "bcbench srzip_write, defaults" 4M 1 65536 2 ours_t2
echo "(a) libsigrok sets no level: libzip's default deflate level, 9 (zlib); ours is libdeflate's 9"
both() { printf '%-62s %6sx %6sx\n' "$1" "$(ratio "$(wmed "$2")" "$(wmed "$3")")" "$(ratio "$(cmed "$2")" "$(cmed "$3")")"; }
printf '%-62s %7s %7s\n' "ratio" wall CPU
both "writer / libsigrok, same level, chunk, data (want >= 2)" ours9s sigrok
both "ceiling / writer, level 9, one thread each (want <= 1.3)" ceil9 ours9
both "ceiling / writer, defaults, one thread each (want <= 1.3)" ceil ours
both "default level 1 / level 9: speed" ours ours9
printf '%-62s %6sx\n' "default level 1 / level 9: bytes" "$(ratio "$(wbytes ours)" "$(wbytes ours9)")"
both "1 compressing thread / none (2 cores, shared: wall is the point)" ours_t1 ours_u
both "2 compressing threads / none" ours_t2 ours_u
short=$("$PEER" write-short "$TMP/short.sr" 200 2>/dev/null)
printf '%-62s %6s ms (min %s ms)\n' "a 10-frame capture, open to close with its fsync: median of 200" \
	"$(echo "$short" | field median_ms)" "$(echo "$short" | field min_ms)"

echo
echo "== capture disk: a steady DCP run from the simulated bench, 10 min at 10 kHz, 5 channels"
sed 's/^capture.*/capture  vbus ibus dp dm id at 10kHz/; s/^wait     8s/wait     10min/' scripts/scenarios/dcp.scn >"$TMP/dcp10.scn"
"$BCBENCH" run -q --no-html --out "$TMP/dcp10" "$TMP/dcp10.scn" >/dev/null 2>&1
sz=$(wc -c <"$TMP/dcp10/capture.sr")
# the pending file at its largest: two chunks of 65536 frames x 5 x 4 bytes (with threads)
pend=$((2 * 65536 * 5 * 4 + 64))
printf '%-60s %10s bytes\n' "capture.sr, 10 min (6,000,000 frames)" "$sz"
printf '%-60s %10s bytes\n' "pending frames beside it at most (2 chunks, threads)" "$pend"
echo "$sz $pend" | awk '{ printf "%-60s %10.2fx\n", "peak disk / capture.sr, 10 min", ($1 + $2) / $1; printf "%-60s %10.2fx\n", "peak disk / capture.sr, 6 h (36 x the data)", (36 * $1 + $2) / (36 * $1) }'

echo
echo "== replay vs libsigrok's raw read of the same file, median of $RUNS rounds side by side"
echo "   (wall: start to exit; CPU: user + system, steadier on a shared machine)"
sed 's/at 1kHz/at 5kHz/' scripts/scenarios/dbp.scn >"$TMP/dbp5k.scn"
cp scripts/scenarios/dbp.scn "$TMP/dbp1k.scn"
"$BCBENCH" run -q --no-html --out "$TMP/dbp5k" "$TMP/dbp5k.scn" >/dev/null 2>&1
"$BCBENCH" run -q --no-html --out "$TMP/dbp1k" "$TMP/dbp1k.scn" >/dev/null 2>&1
"$PEER" write-ours "$TMP/noisy.sr" 10400000 100000 >/dev/null 2>&1
"$PEER" write-ours "$TMP/noisy-small.sr" 2080000 100000 >/dev/null 2>&1
# timed NAME CMD...: one whole-process run, "wall cpu" appended to
# $TMP/t-NAME; a run that fails stops the bench (no ratio from a run
# that did not do the work)
timed() {
	name=$1
	shift
	out=$("$PEER" rss -- "$@" 2>/dev/null | grep maxrss_kb)
	code=$(echo "$out" | field exit)
	if [ "$code" != 0 ]; then
		echo "bench-capture: replay bench: '$*' exited ${code:-?}" >&2
		exit 1
	fi
	echo "$(echo "$out" | field seconds) $(echo "$out" | field cpu_seconds)" >>"$TMP/t-$name"
}
tmed() { awk -v k="$2" '{ print $k }' "$TMP/t-$1" | median; }
printf '%-10s %10s %11s %11s %11s %11s %7s %7s\n' capture samples "replay M/s" "sigrok M/s" \
	"replay CPU" "sigrok CPU" "wall" "CPU"
for c in dbp5k noisy; do
	if [ "$c" = noisy ]; then
		file=$TMP/noisy.sr
		set -- "$BCBENCH" replay -q --no-html --port dcp --dut phone --out "$TMP/r-$c" "$file"
	else
		file=$TMP/$c/capture.sr
		set -- "$BCBENCH" replay -q --no-html --events "$TMP/$c/events.json" --out "$TMP/r-$c" "$file"
	fi
	if ! n=$("$PEER" read-sigrok "$file" 2>/dev/null | field samples) || [ -z "$n" ]; then
		echo "bench-capture: replay bench: $PEER read-sigrok $file failed" >&2
		exit 1
	fi
	: >"$TMP/t-r$c"
	: >"$TMP/t-p$c"
	# both sides timed the same way, alternately, so they share the load
	for i in $(seq "$RUNS"); do
		timed "r$c" "$@"
		timed "p$c" "$PEER" read-sigrok "$file"
	done
	rw=$(tmed "r$c" 1) rc=$(tmed "r$c" 2) pw=$(tmed "p$c" 1) pc=$(tmed "p$c" 2)
	printf '%-10s %10s %11s %11s %10ss %10ss %6sx %6sx\n' "$c" "$n" \
		"$(echo "$n $rw" | awk '{ printf "%.1f", $1 / $2 / 1e6 }')" \
		"$(echo "$n $pw" | awk '{ printf "%.1f", $1 / $2 / 1e6 }')" "$rc" "$pc" \
		"$(ratio "$pw" "$rw")" "$(ratio "$pc" "$rc")"
done
echo "(wall, CPU: libsigrok's time / replay's; want >= 1 on both captures)"

echo
echo "== peak RSS (KB): small vs large capture"
printf '%-40s %12s %12s\n' what small large
printf '%-40s %12s %12s\n' "write 2.08 M vs 10.4 M frames (5 ch)" \
	"$(rss_of "$PEER" write-ours "$TMP/x.sr" 2080000 100000)" "$(rss_of "$PEER" write-ours "$TMP/x.sr" 10400000 100000)"
printf '%-40s %12s %12s\n' "  the same, 2 compressing threads" \
	"$(rss_of "$PEER" write-ours "$TMP/x.sr" 2080000 100000 0 0 2)" "$(rss_of "$PEER" write-ours "$TMP/x.sr" 10400000 100000 0 0 2)"
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
