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
MOUNTS=""
trap 'for m in $MOUNTS; do umount "$m"; done; chmod -R u+w "$TMP" 2>/dev/null; rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM HUP
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

# ---- a run's processes, its record, its directory ----

# A long run at a high capture rate (1 MHz, 100 s of bench time: about
# 15 s of wall time, 100 M frames a channel when it is not stopped).
sed 's/at 10kHz/at 1MHz/; s/^wait .*/wait     100s/' scripts/scenarios/dcp-weak.scn >"$TMP/fast.scn"
printf 'suite "fast"\nscenario %s\n  port dcp\n  charger dcp-weak dcp-1a ideal-5a\n' \
	"$TMP/fast.scn" >"$TMP/fast.suite"

# started: the bench runs (the provisional report is there), a second on
settle_start() {
	i=0
	while [ ! -f "$DIR/report.json" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	sleep 1
}
# every process of the case ends by itself within 8 s (a run that goes on
# to its end takes 15)
settle_end() {
	i=0
	while pgrep -f "$DIR" >/dev/null && [ $i -lt 80 ]; do sleep 0.1; i=$((i + 1)); done
}
# exit_is NAME CODE CMD...: as lib.sh's expect_exit, without touching
# fault's variables (want, got)
exit_is() {
	x_name=$1 x_want=$2
	shift 2
	"$@" >"$TMP/out" 2>"$TMP/err"
	x_got=$?
	[ "$x_got" -eq "$x_want" ] && ok "$x_name (exit $x_got)" || bad "$x_name: exit $x_got, want $x_want"
}
# no spool or temporary file left in $1
no_temps() {
	left=$(ls -A "$1" | grep -E '^\.capture\.sr\.|^capture\.sr\.|\.tmp-')
	[ -z "$left" ] && ok "$2: no spool or temporary file left" || bad "$2: left $left"
}

run_killed() {
	"$BCBENCH" run -q --out "$DIR" "$TMP/fast.scn" >"$TMP/out" 2>"$TMP/err" &
	pid=$!
	settle_start
	kill -9 $pid
	wait $pid 2>/dev/null
	got=$?
	settle_end
	no_temps "$DIR" "run SIGKILLed"
	[ -f "$DIR/capture.sr" ] && ok "run SIGKILLed: the child finished the capture" ||
		bad "run SIGKILLed: no capture.sr"
}

child_killed() {
	"$BCBENCH" run -q --out "$DIR" "$TMP/fast.scn" >"$TMP/out" 2>"$TMP/err" &
	pid=$!
	settle_start
	kill -9 $(pgrep -P $pid)
	wait $pid
	got=$?
	no_temps "$DIR" "bench child SIGKILLed"
}

suite_killed() {
	"$BCBENCH" suite -q -j 2 --out "$DIR" "$TMP/fast.suite" >"$TMP/out" 2>"$TMP/err" &
	pid=$!
	i=0
	while [ "$(ls "$DIR"/entries/*/report.json 2>/dev/null | wc -l)" -lt 2 ] && [ $i -lt 100 ]; do
		sleep 0.1; i=$((i + 1)); done
	sleep 1
	kill -9 $pid
	wait $pid 2>/dev/null
	got=$?
	settle_end
	n=0
	for r in "$DIR"/entries/*/report.json; do
		n=$((n + 1))
		has "suite SIGKILLed: entry $(basename "$(dirname "$r")") stopped by itself" "$r" \
			"the bcbench suite that started this run is gone (killed?)"
		no_temps "$(dirname "$r")" "suite SIGKILLed: entry $n"
	done
	[ $n -eq 2 ] && ok "suite SIGKILLed: the 2 running entries left reports" || bad "suite SIGKILLed: $n entry reports"
}

stop_fast() {
	"$BCBENCH" run -q --out "$DIR" "$TMP/fast.scn" >"$TMP/out" 2>"$TMP/err" &
	pid=$!
	settle_start
	kill -$1 $pid
	wait $pid
	got=$?
	no_temps "$DIR" "$1 at 1 MHz"
	[ -f "$DIR/capture.sr" ] && ok "$1 at 1 MHz: capture.sr written" || bad "$1 at 1 MHz: no capture.sr"
}
sigint_fast() { stop_fast INT; }
sigterm_fast() { stop_fast TERM; }

two_writers() {
	"$BCBENCH" run -q --out "$DIR" "$TMP/fast.scn" >"$TMP/out1" 2>"$TMP/err1" &
	pid=$!
	settle_start
	runc "$BCBENCH" run -q --out "$DIR" scripts/scenarios/dcp-weak.scn
	expect_err "second writer refused, naming the first" "is in use by pid $pid (bcbench run $TMP/fast.scn"
	ls -A "$DIR" | grep -q '^\.capture\.sr\.' && ok "second writer left the first's spool alone" ||
		bad "second writer removed the first's spool"
	kill -TERM $pid
	wait $pid
	[ $? -eq 143 ] && ok "first writer ended by its SIGTERM (exit 143)" || bad "first writer's exit"
}

# both processes of a run killed at once: nothing of the run finishes it
kill_run_and_child() {
	"$BCBENCH" run -q --out "$DIR" "$TMP/fast.scn" >/dev/null 2>&1 &
	pid=$!
	settle_start
	kill -9 $(pgrep -P $pid) $pid
	wait $pid 2>/dev/null
	settle_end
}

salvage_killed() {
	kill_run_and_child
	ls -A "$DIR" | grep -q '^\.capture\.sr\.' && ok "killed run left its spool" || bad "killed run left no spool"
	runc "$BCBENCH" salvage "$DIR"
	salvaged=$got
	no_temps "$DIR" "salvage"
	exit_is "salvaged capture replays" 0 "$BCBENCH" replay -q --out "$TMP/replay-$n_case" "$DIR/capture.sr"
	exit_is "salvage again: nothing to do" 0 "$BCBENCH" salvage "$DIR"
	expect_out "salvage again says so" "nothing to salvage"
	mkdir "$TMP/not-bcbench"
	exit_is "salvage of a directory bcbench did not write" 2 "$BCBENCH" salvage "$TMP/not-bcbench"
	got=$salvaged
}

# a salvage on a full disk loses nothing: the spool stays for the next
salvage_full_then_again() {
	kill_run_and_child
	runc preload BN_FAULT_PATH=/capture.sr.part "$BCBENCH" salvage "$DIR"
	[ "$got" -eq 6 ] && ok "a full disk: the first salvage exits 6" || bad "a full disk: the first salvage exits $got"
	expect_err "the first salvage says the spool is kept" "is kept: salvage again once the cause is fixed"
	ls -A "$DIR" | grep -q '^\.capture\.sr\.' && ok "a full disk: the spool is kept" ||
		bad "a full disk: the spool is gone"
	has "the record says the capture could not be kept" "$DIR/report.json" "its capture could not be kept"
	runc "$BCBENCH" salvage "$DIR"
	expect_out "the second salvage keeps the capture" "the capture up to then was kept: capture.sr ("
	no_temps "$DIR" "second salvage"
	exit_is "the capture salvaged second replays" 0 "$BCBENCH" replay -q --out "$TMP/replay-$n_case" "$DIR/capture.sr"
}

# the next run into that directory on a full disk: the kept spool goes
# with the record it belongs to, not into the new run's
next_run_full_salvage() {
	kill_run_and_child
	spool=$(ls -A "$DIR" | grep '^\.capture\.sr\.' | head -1)
	runc preload BN_FAULT_PATH="/$spool/" "$BCBENCH" run -q --out "$DIR" scripts/scenarios/dcp-weak.scn
	run_got=$got
	expect_err "the next run says the old capture is not finished" "its capture is not finished: bcbench salvage it there"
	aside=$(ls -d "$DIR"/interrupted-* | head -1)
	[ -d "$aside/$spool" ] && ok "the kept spool moved with its record" || bad "the kept spool is not in $aside"
	ls -A "$DIR" | grep -q '^\.capture\.sr\.' && bad "a spool is left beside the new run" ||
		ok "no spool left beside the new run"
	runc "$BCBENCH" salvage "$aside"
	exit_is "the moved record salvaged there replays" 0 "$BCBENCH" replay -q --out "$TMP/replay-$n_case" "$aside/capture.sr"
	runc "$BCBENCH" run -q --out "$DIR" scripts/scenarios/dcp-weak.scn
	[ "$(ls -d "$DIR"/interrupted-* | wc -l)" -eq 1 ] && ok "the run after that moves nothing aside" ||
		bad "the run after that moved the new run's record aside"
	got=$run_got
}

next_run_moves_aside() {
	kill_run_and_child
	runc "$BCBENCH" run -q --out "$DIR" scripts/scenarios/dcp-weak.scn
	expect_err "the next run says it moved the record aside" "moved to $DIR/interrupted-"
	has "the interrupted record is finished" "$(ls -d "$DIR"/interrupted-*)/report.json" \
		"finished by the next run into this directory"
	[ -f "$(ls -d "$DIR"/interrupted-*)/capture.sr" ] && ok "the interrupted capture is kept" ||
		bad "the interrupted capture is lost"
	no_temps "$DIR" "next run"
}

long_zip() {
	# its capture takes over 2 s to zip (without beats)
	runc "$BCBENCH" run -q --watchdog 1 --out "$DIR" "$TMP/fast.scn"
	no_temps "$DIR" "long zip"
}

# -- the disk, the file size limit, the output directory --
# A small disk is a tmpfs mounted on DIR when this machine lets us (root,
# not in a locked-down container); else tests/fault/enospc.so, preloaded,
# fails the writes (and fakes statvfs's free space) the same way.
FAULTSO=${FAULTSO:-$(dirname "$BCBENCH")/fault/enospc.so}
[ -f "$FAULTSO" ] || bad "no $FAULTSO (make units builds it): the preload cases cannot run"
preload() {
	env LD_PRELOAD="$FAULTSO" ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" "$@"
}
small_disk() { # SIZE_KIB: DIR on a tmpfs that small; fails when none can be mounted
	mkdir -p "$DIR"
	[ "$(id -u)" -eq 0 ] && mount -t tmpfs -o "size=${1}k" bcbench-faults "$DIR" 2>/dev/null || return 1
	MOUNTS="$MOUNTS $DIR"
}
seam() { # which seam a case used, once per case
	echo "     ($1)"
}
no_spool_left() {
	if ls -A "$DIR" | grep -q '^\.capture\.sr\.\|\.tmp-'; then bad "$1: a spool or temporary file was left: $(ls -A "$DIR")"
	else ok "$1: no spool or temporary file left"; fi
}
events_error() {
	has "$1: events.json says error" "$DIR/events.json" '"status": "error"'
	[ ! -e "$DIR/capture.sr" ] && ok "$1: no capture.sr claims to be whole" || bad "$1: a capture.sr was left"
}
# dcp-weak at 100 kHz: 12.8 MB of samples in 8 s
sed 's|^capture.*|capture  vbus ibus dp dm at 100kHz|' scripts/scenarios/dcp-weak.scn >"$TMP/io.scn"

full_at_start() {
	if small_disk 200; then
		seam "a 200 KiB tmpfs: the pending frames (1 MiB at most) do not fit"
		runc "$BCBENCH" run -q --force --out "$DIR" scripts/scenarios/dcp-weak.scn
	else
		seam "preloaded seam: the spool's first write fails"
		runc preload BN_FAULT_PATH=/.capture.sr. BN_FAULT_AFTER=0 "$BCBENCH" run -q --out "$DIR" scripts/scenarios/dcp-weak.scn
	fi
	no_spool_left "disk full at start"
}
full_mid_run() {
	if small_disk 768; then
		seam "a 768 KiB tmpfs, past the estimate with --force: the pending frames grow past it"
		runc "$BCBENCH" run -q --force --out "$DIR" scripts/scenarios/dcp-weak.scn
	else
		seam "preloaded seam: the spool fails after 500 kB"
		runc preload BN_FAULT_PATH=/.capture.sr. BN_FAULT_AFTER=500000 "$BCBENCH" run -q --out "$DIR" scripts/scenarios/dcp-weak.scn
	fi
	grep -q '"safe_state"' "$DIR/report.json" && ok "disk full mid-run: bench put in its safe state" || bad "disk full mid-run: no safe_state event"
	events_error "disk full mid-run"
	no_spool_left "disk full mid-run"
}
full_mid_run_seam() { # the seam on every machine, whatever small_disk could do
	# 500 kB: the pending file's growth from 256 to 512 KiB fails (frame 16,380)
	runc preload BN_FAULT_PATH=/.capture.sr. BN_FAULT_AFTER=500000 "$BCBENCH" run -q --out "$DIR" scripts/scenarios/dcp-weak.scn
	events_error "spool write fails"
	no_spool_left "spool write fails"
}
spool_unmappable() {
	# A file system without shared mappings: the frames not yet
	# compressed stay in memory, the capture is whole, and the run says
	# that a crash would have lost it.
	runc preload BN_FAULT_MMAP_PATH=/.capture.sr. "$BCBENCH" run --out "$DIR" scripts/scenarios/dcp-weak.scn
	expect_err "spool not mappable: the run says so" "cannot be mapped (No such device): the frames not yet compressed are kept in memory, and a crash of this run would lose the capture"
	no_spool_left "spool not mappable"
	exit_is "spool not mappable: the capture replays" 0 "$BCBENCH" replay -q --out "$TMP/replay-$n_case" "$DIR/capture.sr"
}
spool_cannot_grow() {
	# The spool's mapping cannot grow (an address space that is full, the
	# third growth: 16 KiB to 32 KiB): the capture is lost and said so,
	# the bench is put in its safe state, nothing is left behind.
	runc preload BN_FAULT_MREMAP_AFTER=2 "$BCBENCH" run -q --out "$DIR" scripts/scenarios/dcp-weak.scn
	grep -q '"safe_state"' "$DIR/report.json" && ok "spool cannot grow: bench put in its safe state" || bad "spool cannot grow: no safe_state event"
	events_error "spool cannot grow"
	no_spool_left "spool cannot grow"
}
io_error_chunk() {
	# the zip's first 2 kB (version, metadata) go through; the first
	# chunk's members (65,536 frames in) fail
	runc preload BN_FAULT_PATH=/capture.sr.part BN_FAULT_ERRNO=EIO BN_FAULT_AFTER=2000 "$BCBENCH" run -q --out "$DIR" scripts/scenarios/dcp-weak.scn
	events_error "I/O error writing a chunk"
	no_spool_left "I/O error writing a chunk"
}
too_big() { # 3.4 MiB estimated (8 s x 10 kHz x 4 ch x 4 bytes: the zip stored at worst, the pending frames, 1 MiB of slack) on 3 MiB
	if small_disk 3072; then
		seam "a 3 MiB tmpfs"
		runc "$BCBENCH" run -q "$@" --out "$DIR" scripts/scenarios/dcp-weak.scn
	else
		seam "preloaded seam: statvfs says 3 MiB free"
		runc preload BN_FAULT_FREE=3145728 "$BCBENCH" run -q "$@" --out "$DIR" scripts/scenarios/dcp-weak.scn
	fi
}
too_big_refused() {
	too_big
	expect_err "the refusal gives the figures" "needs about 3.4 MiB of disk in $DIR (8 s x 10000 Hz x 4 channels x 4 bytes, the zip stored at worst)"
	expect_err "and names --force" "(--force runs it anyway)"
}
too_big_forced() {
	too_big --force
	[ -s "$DIR/capture.sr" ] && ok "--force: the capture was written" || bad "--force: no capture.sr"
}
fsize_at_start() { # 512 or 1024 KB (dash or bash blocks): the pending frames (1 MiB at most) do not fit
	runc sh -c 'ulimit -f 1000 && exec "$@"' sh "$BCBENCH" run -q --out "$DIR" scripts/scenarios/dcp-weak.scn
}
fsize_mid_run() { # 512 or 1024 KB: at 100 kHz the pending frames outgrow it within 0.7 s
	runc sh -c 'ulimit -f 1000 && exec "$@"' sh "$BCBENCH" run -q --out "$DIR" "$TMP/io.scn"
	events_error "file size limit mid-run"
	no_spool_left "file size limit mid-run"
}
# The permission cases as an unprivileged user (root writes anywhere), on
# a copy of what a run needs that the user can read wherever the
# repository is checked out.
PUB="$TMP/pub"
mkdir -p "$PUB" && cp "$BCBENCH" "$PUB/bcbench" && cp "$(dirname "$BCBENCH")/bcbench-hw" "$PUB/" && cp -r profiles "$PUB/" && cp scripts/scenarios/dcp-weak.scn "$PUB/" && chmod -R a+rX "$PUB"
if command -v runuser >/dev/null 2>&1; then
	as_nobody() { runuser -u nobody -- "$@"; }
elif command -v setpriv >/dev/null 2>&1; then
	as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
else
	as_nobody() { return 99; }
fi
unprivileged() { # CMD...: run as nobody in $PUB; a clear skip where that cannot be
	if [ "$(id -u)" -ne 0 ]; then
		echo "     (skipped: not root, cannot become another user; run as root to test permissions)"
		got=$want
		return
	fi
	mkdir -p "$DIR" && chmod 755 "$DIR"
	(cd "$PUB" && as_nobody "$@") >"$TMP/out" 2>"$TMP/err"
	got=$?
	if [ "$got" -eq 99 ]; then
		echo "     (skipped: neither runuser nor setpriv exists)"
		got=$want
	fi
}
readonly_run() {
	unprivileged ./bcbench run -q --out "$DIR" dcp-weak.scn
	[ "$got" -eq 6 ] && expect_err "read-only run says why" "$DIR: cannot write to the output directory: Permission denied"
}
readonly_replay() {
	cp "$TMP/earlier/capture.sr" "$TMP/earlier/events.json" "$PUB/" && chmod a+r "$PUB/capture.sr" "$PUB/events.json"
	unprivileged ./bcbench replay -q --out "$DIR" capture.sr
	[ "$got" -eq 6 ] && expect_err "read-only replay says why" "cannot write the report: $DIR/report.json: cannot create a temporary file in $DIR: Permission denied"
}

# A serial instrument serves one program at a time: while a run holds the
# electronic load (the pty emulator), another program's open() is refused
# (TIOCEXCL: root is exempt, so all of it runs as nobody) and a second
# bcbench on another bench lock is refused the port (flock), exit 5.
EMUDIR=${EMUDIR:-$(dirname "$BCBENCH")/emu}
serial_exclusive() {
	if [ "$(id -u)" -ne 0 ] || ! as_nobody true 2>/dev/null; then
		echo "     (skipped: cannot run as nobody here; run as root to test exclusive access)"
		got=$want
		return
	fi
	cp "$EMUDIR/instr_emu" "$PUB/" && chmod a+rx "$PUB/instr_emu"
	sed 's/^wait .*/wait 4s/' tests/data/scenarios/short.scn >"$PUB/held.scn" && chmod a+r "$PUB/held.scn"
	mkdir -p "$DIR/lock1" "$DIR/lock2" "$DIR/second" && chown -R nobody "$DIR"
	(cd "$PUB" && as_nobody ./instr_emu --family rigol-dl3000) >"$TMP/emu.out" 2>&1 &
	epid=$!
	i=0
	while [ $i -lt 50 ] && [ ! -s "$TMP/emu.out" ]; do sleep 0.1; i=$((i + 1)); done
	pty=$(head -1 "$TMP/emu.out")
	for k in 1 2; do
		printf 'load = scpi:%s\nload_dialect = rigol-dl3000\nlock_dir = %s/lock%s\ndatadir = %s\n' \
			"$pty" "$DIR" $k "$PUB" >"$PUB/held$k.conf"
	done
	chmod a+r "$PUB"/held*.conf
	(cd "$PUB" && as_nobody ./bcbench run -q --conf held1.conf --out "$DIR" held.scn) >"$TMP/out" 2>"$TMP/err" &
	rpid=$!
	settle_start
	if as_nobody sh -c 'exec 3<>"$1"' sh "$pty" 2>"$TMP/excl.err"; then
		bad "another program opened the load's port while the run held it"
	else
		ok "another program is refused the load's port: $(sed 's/.*: //' "$TMP/excl.err")"
	fi
	(cd "$PUB" && as_nobody ./bcbench run -q --conf held2.conf --out "$DIR/second" held.scn) >"$TMP/out2" 2>"$TMP/err2"
	x=$?
	[ $x -eq 5 ] && grep -q "$pty: in use by another program" "$TMP/err2" &&
		ok "a second bcbench is refused the load's port (exit 5)" ||
		bad "second bcbench on the held port: exit $x, $(tail -2 "$TMP/err2")"
	wait $rpid
	got=$?
	kill $epid 2>/dev/null
	wait $epid 2>/dev/null
}
lock_unwritable() { # the bench lock's directory is not the user's to write
	mkdir -p "$TMP/rootlocks" && chmod 755 "$TMP/rootlocks"
	printf 'lock = yes\nlock_dir = %s\n' "$TMP/rootlocks" >"$PUB/lock.conf" && chmod a+r "$PUB/lock.conf"
	mkdir -p "$DIR" && chown nobody "$DIR" 2>/dev/null # the output is the user's
	unprivileged ./bcbench run -q --conf lock.conf --out "$DIR" dcp-weak.scn
	[ "$got" -eq 6 ] && expect_err "unwritable bench lock says why" "bench lock $TMP/rootlocks/bcbench-bench-" && expect_err "unwritable bench lock, the system's reason" ".lock: cannot open: Permission denied"
}
# A capture device that is not there is the bench's fault, not the input's:
# exit 5 and a report saying nothing was measured.
capture_missing() {
	printf 'capture = sigrok:rigol-ds:conn=/nonexistent/ttyBN0\ncapture_map = VBUS=CH1,IBUS=CH2:shunt=0.1\ndatadir = %s\n' "$PWD" >"$TMP/cap.conf"
	runc "$BCBENCH" run -q --conf "$TMP/cap.conf" --out "$DIR" scripts/scenarios/dcp-weak.scn
}

# Every command: an output it cannot write is 6, whatever the output.
printf 'suite "one"\nscenario %s/scripts/scenarios/dcp.scn\n  firmware reference\n' "$PWD" >"$TMP/one.suite"
"$BCBENCH" suite -q --fwdir "$FWDIR" --out "$TMP/one" "$TMP/one.suite" >/dev/null 2>&1 ||
	bad "the suite the merge case needs did not run"
out_under_file() { # COMMAND ARGS...: --out DIR/file/sub, where DIR/file is a plain file
	mkdir -p "$DIR" && : >"$DIR/file"
	runc "$BCBENCH" "$@" --out "$DIR/file/sub"
	expect_err "$1: says why" "$DIR/file exists and is not a directory"
}
run_out_under_file() { out_under_file run -q scripts/scenarios/dcp-weak.scn; }
suite_out_under_file() { out_under_file suite -q --fwdir "$FWDIR" "$TMP/one.suite"; }
replay_out_under_file() { out_under_file replay -q "$TMP/earlier/capture.sr"; }
merge_full_disk() {
	runc preload BN_FAULT_PATH=merged.json "$BCBENCH" merge -o "$DIR/merged.json" "$TMP/one/suite.json"
	expect_err "merge says why" "$DIR/merged.json: write failed: No space left on device"
}
diff_full_disk() {
	mkdir -p "$DIR"
	"$BCBENCH" diff "$TMP/earlier/report.json" "$TMP/earlier/report.json" >/dev/full 2>"$TMP/err"
	got=$?
	expect_err "diff says why" "cannot write the output: No space left on device"
}

# -- bounds: refused before the bench is touched --
rate_too_high() {
	sed 's|^capture.*|capture  vbus ibus dp dm at 2MHz|' scripts/scenarios/dcp-weak.scn >"$TMP/2mhz.scn"
	runc "$BCBENCH" run -q --out "$DIR" "$TMP/2mhz.scn"
	expect_err "the rate, the maximum, file:line" "$TMP/2mhz.scn:4:1: error: capture rate 2e+06 Hz is above the maximum of the simulated bench (its clock ticks in microseconds), 1e+06 Hz"
}
# A huge run that is not refused would fill the disk: guarded by a time
# and a file size limit, so a regression fails the case and nothing else.
guarded() {
	timeout 60 sh -c 'ulimit -f 200000 && exec "$@"' sh "$@"
}
wait_too_long() {
	sed 's|^wait .*|wait     1000h|' scripts/scenarios/dcp-weak.scn >"$TMP/1000h.scn"
	runc guarded "$BCBENCH" run -q --out "$DIR" "$TMP/1000h.scn"
	expect_err "the parser's bound, file:line" "$TMP/1000h.scn:6:10: error: wait of \"1000h\" is longer than 168 h"
}
wait_too_big() { # 100 h x 1 MHz x 5 channels: 14 TB, refused by the estimate on any disk
	sed -e 's|^wait .*|wait     100h|' -e 's|^capture.*|capture  vbus ibus dp dm id at 1MHz|' scripts/scenarios/dcp-weak.scn >"$TMP/100h.scn"
	runc guarded "$BCBENCH" run -q --out "$DIR" "$TMP/100h.scn"
	expect_err "the estimate refuses it" "needs about 6.6 TiB of disk in $DIR (360000 s x 1e+06 Hz x 5 channels x 4 bytes, the zip stored at worst)"
}

# ---- the matrix ----
#     label                              exit state   reason        case
fault "firmware built for another ABI"   2    -       -             wrong_abi
fault "SIGKILL of bcbench run"           137  aborted "the bcbench process that started this run is gone (killed?)" run_killed
fault "SIGKILL of the bench child"       137  error   "from outside the run" child_killed
fault "SIGKILL of bcbench suite -j 2"    137  -       -             suite_killed
fault "SIGINT at 1 MHz capture"          130  aborted "interrupted by SIGINT" sigint_fast
fault "SIGTERM at 1 MHz capture"         143  aborted "interrupted by SIGTERM" sigterm_fast
fault "two writers in one directory"     5    aborted "interrupted by SIGTERM" two_writers
fault "salvage of a SIGKILLed run"       0    error   "not finished by its own process" salvage_killed
fault "salvage on a full disk, then again" 0  error   "not finished by its own process" salvage_full_then_again
fault "next run, old capture's disk full" 0    completed ""          next_run_full_salvage
fault "next run into a killed run's dir" 0    completed ""          next_run_moves_aside
fault "watchdog during a long zip"       0    completed ""          long_zip
fault "disk full at start"               6    error   "No space left on device" full_at_start
fault "disk full mid-run"                6    error   "No space left on device" full_mid_run
fault "spool write fails (seam)"         6    error   "the capture was lost at t=1.638 s" full_mid_run_seam
fault "I/O error writing a chunk"        6    error   "writing the capture: Input/output error" io_error_chunk
fault "spool not mappable (seam)"        0    completed ""          spool_unmappable
fault "spool mapping cannot grow (seam)" 6    error   "Cannot allocate memory" spool_cannot_grow
fault "capture too big for the disk"     2    -       -             too_big_refused
fault "--force runs it anyway"           0    completed ""          too_big_forced
fault "file size limit at start"         6    error   "the file size limit (ulimit -f)" fsize_at_start
fault "file size limit mid-run"          6    error   "the file size limit (ulimit -f)" fsize_mid_run
fault "read-only output: run"            6    -       -             readonly_run
fault "read-only output: replay"         6    -       -             readonly_replay
fault "bench lock not writable"          6    -       -             lock_unwritable
fault "capture device missing"           5    error   "the capture device failed before the run" capture_missing
fault "one program per serial port"      0    completed ""          serial_exclusive
fault "run: output under a plain file"   6    -       -             run_out_under_file
fault "replay: output under a plain file" 6   -       -             replay_out_under_file
fault "suite: output under a plain file" 6    -       -             suite_out_under_file
fault "merge: disk full (seam)"          6    -       -             merge_full_disk
fault "diff: stdout on a full disk"      6    -       -             diff_full_disk
fault "capture rate above the sim's"     2    -       -             rate_too_high
fault "wait 1000h"                       2    -       -             wait_too_long
fault "wait 100h: too big a capture"     2    -       -             wait_too_big

# Every record this script wrote, against its schema.
validate_records "$TMP"

echo "faults: $pass passed, $fail failed ($n_case cases)"
[ "$fail" -eq 0 ]
