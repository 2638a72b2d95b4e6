#!/bin/sh
# make bench: what capture.sr costs a run, and a run's fixed cost (issue 21).
#   on/off:  the 10 kHz 5-channel 10-minute scenario (capture vbus ibus dp
#            dm id at 10kHz; port dcp; charger dcp-1a; vbus on; wait 10min)
#            with its capture and with --no-capture, interleaved, median of
#            RUNS each, and the ratio (acceptance: <= 1.5x)
#   6 h:     the same at 6 hours: wall time per frame against the 10-minute
#            runs' before and after it (acceptance: within 10%), also with
#            every run on one CPU; and, from a second run, the output
#            directory's peak disk use (du -sk every 0.1 s while it runs:
#            allocated blocks, spools and temporary files included) against
#            the final capture.sr (acceptance: < 2x). Only with BENCH_6H=1:
#            three 6-hour runs (216 M frames), 10-15 s each on a 2-core
#            machine; the spooling writer before issue 21 took 76 s and put
#            4.1 GiB on disk for a 23 MiB capture
#   entry:   the fixed cost of a suite entry: a suite of ENTRIES (default 40)
#            copies of a 10-frame scenario at -j 1, wall ms per entry
#            (median of RUNS suites) and the CPU ms of all its processes per
#            entry (GNU time, when installed), with and without capture
#            (acceptance: half the 11.6 ms the issue measured); with
#            BASELINE=/path/to/an/older/bcbench (and BASELINE_FWDIR) the same suite
#            through that build too, interleaved, and the ratio: how the
#            figure is compared with the build before issue 21 (a702957)
# The suite's -j 2 / -j 1 speed-up is bench-suite.sh's. Figures from a
# machine shared with builds are noisy: the ratios are measured side by
# side, interleaved, in one run.
# Usage: bench-run-capture.sh BCBENCH FWDIR
set -u
BCBENCH=${1:-build/bcbench}
FWDIR=${2:-build/fw}
RUNS=${RUNS:-5}
ENTRIES=${ENTRIES:-40}
TMP=$(mktemp -d /tmp/bcbench-brc.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

. scripts/bench-lib.sh
gtime=
[ -x /usr/bin/time ] && gtime=/usr/bin/time
# wall CMD...: wall seconds of one run of CMD (its output dropped); with
# GNU time, its CPU seconds (user + system) appended to $TMP/cpu.w
wall() {
	t0=$(now)
	if [ -n "$gtime" ]; then
		$gtime -f '%U %S' -o "$TMP/cpu1" "$@" >/dev/null 2>&1
		awk '{ printf "%.3f\n", $1 + $2 }' "$TMP/cpu1" >>"$TMP/cpu.w"
	else
		"$@" >/dev/null 2>&1
	fi
	t1=$(now)
	echo "$t0 $t1" | awk '{ printf "%.6f\n", $2 - $1 }'
}
# a binary without --no-capture (before issue 21) is measured with capture only
"$BCBENCH" run --help 2>/dev/null | grep -q -- '--no-capture' && nocap=1 || nocap=0

scn() { # scn FILE DURATION RATE CHANNELS
	printf 'name "bench %s at %s"\nport dcp\ncharger dcp-1a\ncapture %s at %s\nvbus on\nwait %s\n' \
		"$2" "$3" "$4" "$3" "$2" >"$1"
}

echo
echo "== capture on / off: 10 kHz, 5 channels, 10 min simulated, median of $RUNS"
scn "$TMP/10min.scn" 10min 10kHz "vbus ibus dp dm id"
: >"$TMP/on.w"
: >"$TMP/off.w"
: >"$TMP/cpu.w"
for i in $(seq "$RUNS"); do
	wall "$BCBENCH" run -q --no-html --out "$TMP/on" "$TMP/10min.scn" >>"$TMP/on.w"
	mv "$TMP/cpu.w" "$TMP/on.cpu"
	[ $nocap -eq 1 ] && wall "$BCBENCH" run -q --no-html --no-capture --out "$TMP/off" "$TMP/10min.scn" >>"$TMP/off.w"
	cat "$TMP/on.cpu" >>"$TMP/on.c" 2>/dev/null
	: >"$TMP/cpu.w"
done
won=$(median <"$TMP/on.w")
con=$( [ -s "$TMP/on.c" ] && median <"$TMP/on.c" || echo 0)
frames=$(grep -o '"samples":[[:space:]]*[0-9]*' "$TMP/on/report.json" | head -1 | sed 's/.*:[[:space:]]*//')
printf '%-28s %10s s  %8s ns/frame (%s frames)\n' "capture on" "$won" \
	"$(echo "$won $frames" | awk '{ printf "%.1f", $1 / $2 * 1e9 }')" "$frames"
if [ $nocap -eq 1 ]; then
	woff=$(median <"$TMP/off.w")
	printf '%-28s %10s s  %8s ns/frame\n' "capture off (--no-capture)" "$woff" \
		"$(echo "$woff $frames" | awk '{ printf "%.1f", $1 / $2 * 1e9 }')"
	paste "$TMP/on.w" "$TMP/off.w" | awk '{ printf "%.2f\n", $1 / $2 }' | sort -g >"$TMP/oo"
	printf '%-28s %10sx (rounds %s-%sx; acceptance: <= 1.5x)\n' "on / off" "$(ratio "$won" "$woff")" \
		"$(head -1 "$TMP/oo")" "$(tail -1 "$TMP/oo")"
else
	echo "capture off: n/a (this bcbench has no --no-capture)"
fi

echo
if [ "${BENCH_6H:-0}" = 1 ]; then
	echo "== 6 hours at 10 kHz, 5 channels (BENCH_6H=1): per frame vs the 10-minute runs (median of $RUNS before and $RUNS after), peak disk"
	scn "$TMP/6h.scn" "${LONG:-6h}" 10kHz "vbus ibus dp dm id"
	mkdir -p "$TMP/6h" "$TMP/6h-du"
	: >"$TMP/du"
	: >"$TMP/cpu.w"
	# timed alone: du every 0.1 s forks twice, and forks are dear here
	wall "$BCBENCH" run -q --no-html --force --out "$TMP/6h" "$TMP/6h.scn" >"$TMP/6h.w"
	# the peak disk from a second run, watched
	"$BCBENCH" run -q --no-html --force --out "$TMP/6h-du" "$TMP/6h.scn" >/dev/null 2>&1 &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		du -sk "$TMP/6h-du" 2>/dev/null | cut -f1 >>"$TMP/du"
		sleep 0.1
	done
	wait "$pid"
	rc=$(grep -o '"exit_code":[[:space:]]*[0-9]*' "$TMP/6h/report.json" | head -1 | sed 's/.*:[[:space:]]*//')
	w6=$(cat "$TMP/6h.w")
	c6=$( [ -s "$TMP/cpu.w" ] && cat "$TMP/cpu.w" || echo 0)
	f6=$(grep -o '"samples":[[:space:]]*[0-9]*' "$TMP/6h/report.json" | head -1 | sed 's/.*:[[:space:]]*//')
	peak=$(sort -n "$TMP/du" | tail -1)
	final=$(du -k "$TMP/6h-du/capture.sr" 2>/dev/null | cut -f1)
	echo "6-h run: exit $rc, $w6 s wall, $c6 s CPU, $f6 frames"
	# the 10-minute figure from runs before and after it: a drift of
	# the machine during the long run hits both sides
	for i in $(seq "$RUNS"); do
		: >"$TMP/cpu.w"
		wall "$BCBENCH" run -q --no-html --out "$TMP/on" "$TMP/10min.scn" >>"$TMP/on.w"
		cat "$TMP/cpu.w" >>"$TMP/on.c"
	done
	won=$(median <"$TMP/on.w")
	con=$( [ -s "$TMP/on.c" ] && median <"$TMP/on.c" || echo 0)
	echo "$w6 $f6 $won $frames" | awk '{ a = $1 / $2 * 1e9; b = $3 / $4 * 1e9;
		printf "per frame, wall: 6 h %.1f ns, 10 min %.1f ns: %.2fx (acceptance: <= 1.10x)\n", a, b, a / b }'
	# CPU time is what a loaded machine disturbs least
	[ -n "$gtime" ] && echo "$c6 $f6 $con $frames" | awk '{ a = $1 / $2 * 1e9; b = $3 / $4 * 1e9;
		printf "per frame, CPU:  6 h %.1f ns, 10 min %.1f ns: %.2fx (acceptance: <= 1.10x)\n", a, b, a / b }'
	echo "${peak:-0} ${final:-0}" | awk '{ printf "disk: peak %.1f MiB during the run, capture.sr %.1f MiB: %.2fx (acceptance: < 2x)\n",
		$1 / 1024, $2 / 1024, ($2 > 0) ? $1 / $2 : 0 }'
	# Like for like on a machine whose CPUs run at different speeds: the
	# 6-hour run and the 10-minute ones all on one CPU (taskset: one core,
	# so the writer compresses on the run's own thread), the 10-minute
	# ones before and after it.
	cpu=$(cpus_allowed | tail -1)
	if [ -n "$cpu" ] && command -v taskset >/dev/null 2>&1; then
		: >"$TMP/pin10.w"
		for i in 1 2 3; do
			wall taskset -c "$cpu" "$BCBENCH" run -q --no-html --out "$TMP/on" "$TMP/10min.scn" >>"$TMP/pin10.w"
		done
		w6p=$(wall taskset -c "$cpu" "$BCBENCH" run -q --no-html --force --out "$TMP/6h" "$TMP/6h.scn")
		for i in 1 2 3; do
			wall taskset -c "$cpu" "$BCBENCH" run -q --no-html --out "$TMP/on" "$TMP/10min.scn" >>"$TMP/pin10.w"
		done
		echo "$w6p $f6 $(median <"$TMP/pin10.w") $frames $cpu" | awk '{ a = $1 / $2 * 1e9; b = $3 / $4 * 1e9;
			printf "per frame, one CPU (taskset -c %d, one thread), wall: 6 h %.1f ns, 10 min %.1f ns: %.2fx (acceptance: <= 1.10x)\n", $5, a, b, a / b }'
	fi
else
	echo "== 6 hours at 10 kHz: skipped (BENCH_6H=1 runs it: it writes gigabytes and takes minutes)"
fi

echo
echo "== suite entry fixed cost: $ENTRIES entries of a 10-frame scenario at -j 1, median of $RUNS"
printf 'suite "fixed cost"\n' >"$TMP/tiny.suite"
for i in $(seq "$ENTRIES"); do
	scn "$TMP/t$i.scn" 1s 10Hz "vbus ibus"
	printf 'scenario %s\n  firmware reference\n' "$TMP/t$i.scn" >>"$TMP/tiny.suite"
done
modes="on off"
[ -n "${BASELINE:-}" ] && modes="on peer off"
for mode in $modes; do
	: >"$TMP/ew-$mode"
	: >"$TMP/ec-$mode"
done
# Interleaved round by round, so a drift of the machine hits every mode.
for i in $(seq "$RUNS"); do
for mode in $modes; do
	[ $mode = off ] && [ $nocap -eq 0 ] && continue
	flag=
	[ $mode = off ] && flag=--no-capture
	bin=$BCBENCH fw=$FWDIR
	[ $mode = peer ] && bin=$BASELINE fw=${BASELINE_FWDIR:-$FWDIR}
	t0=$(now)
	if [ -n "$gtime" ]; then
		$gtime -f '%U %S' -o "$TMP/cpu" "$bin" suite -q --no-html $flag -j 1 --fwdir "$fw" \
			--out "$TMP/suite-$mode" "$TMP/tiny.suite" >/dev/null 2>&1
		awk -v n="$ENTRIES" '{ printf "%.3f\n", ($1 + $2) / n * 1000 }' "$TMP/cpu" >>"$TMP/ec-$mode"
	else
		"$bin" suite -q --no-html $flag -j 1 --fwdir "$fw" --out "$TMP/suite-$mode" \
			"$TMP/tiny.suite" >/dev/null 2>&1
	fi
	t1=$(now)
	echo "$t0 $t1 $ENTRIES" | awk '{ printf "%.3f\n", ($2 - $1) / $3 * 1000 }' >>"$TMP/ew-$mode"
done
done
for mode in $modes; do
	[ -s "$TMP/ew-$mode" ] || continue
	what="capture $mode"
	[ $mode = peer ] && what="baseline, capture on"
	printf '%-28s %8s ms wall/entry  %8s ms CPU/entry\n' \
		"$what" "$(median <"$TMP/ew-$mode")" "$( [ -s "$TMP/ec-$mode" ] && median <"$TMP/ec-$mode" || echo n/a)"
done
if [ -n "${BASELINE:-}" ]; then
	printf 'this build / baseline, capture on: %sx wall, %sx CPU (acceptance: <= 0.5x the build before issue 21)\n' \
		"$(ratio "$(median <"$TMP/ew-on")" "$(median <"$TMP/ew-peer")")" \
		"$( [ -s "$TMP/ec-on" ] && ratio "$(median <"$TMP/ec-on")" "$(median <"$TMP/ec-peer")" || echo n/a)"
else
	echo "(acceptance: half the 11.6 ms issue 21 measured; BASELINE=older/bcbench measures the build before side by side)"
fi
