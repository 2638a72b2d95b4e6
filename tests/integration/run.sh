#!/bin/sh
# CLI-level tests of build/bcbench: exit codes, messages, reports on disk,
# signals. Run from the repository root by `make check`.
# BCBENCH: the binary; FWDIR: where the test firmware .so files are.
set -u
BCBENCH=${BCBENCH:-build/bcbench}
FWDIR=${FWDIR:-build/fw}
TMP=$(mktemp -d /tmp/bcbench-it.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
. tests/integration/lib.sh
run_t0=$(date +%s)

# The repository stands alone: no file refers to a document outside it
# (a sibling folder, another machine's home or work paths, design notes
# the repository does not have). Device paths such as /dev and /run/lock
# are fine.
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	git ls-files -z >"$TMP/files"
else
	find . -path ./build -prune -o -path ./.git -prune -o -type f -print0 >"$TMP/files"
fi
xargs -0 grep -lIE '\.\./shared|(^|[[:space:]"'"'"'(`=])/work/|DESIGN\.md|STYLE\.md|deps-notes|/home/[a-z]|/Users/' \
	<"$TMP/files" 2>/dev/null | grep -vx 'tests/integration/run.sh' >"$TMP/outside" # (this test's own patterns)
[ ! -s "$TMP/outside" ] && ok "no file refers to a document outside the repository" ||
	bad "files refer outside the repository: $(tr '\n' ' ' <"$TMP/outside")"

# No #include in bench/ goes up a floor (scripts/check-layers.sh; < 1 s).
sh tests/integration/layers.sh >"$TMP/layers.out" 2>&1 || fail=$((fail + 1))
grep -v '^ok ' "$TMP/layers.out"
pass=$((pass + $(grep -c '^ok ' "$TMP/layers.out")))

expect_exit "--version" 0 "$BCBENCH" --version
grep -q "^bcbench [0-9]" "$TMP/out" && ok "--version prints the version" || bad "--version output"
expect_exit "--help" 0 "$BCBENCH" --help
grep -q "Exit codes" "$TMP/out" && ok "--help lists exit codes" || bad "--help lacks exit codes"
expect_exit "run --help" 0 "$BCBENCH" run --help
expect_exit "no command" 2 "$BCBENCH"
expect_exit "unknown command" 2 "$BCBENCH" frobnicate
expect_exit "run without scenario" 2 "$BCBENCH" run
expect_exit "unknown option" 2 "$BCBENCH" run --bogus x.scn

# A passing scenario writes its report atomically, with the schema.
expect_exit "run dcp-weak" 0 "$BCBENCH" run --out "$TMP/weak" scripts/scenarios/dcp-weak.scn
if grep -q '"schema":[[:space:]]*"bcbench-report/3"' "$TMP/weak/report.json"; then ok "report has its schema"; else bad "report schema"; fi
grep -q '"state":[[:space:]]*"completed"' "$TMP/weak/report.json" && ok "report says completed" || bad "report status"
[ -z "$(find "$TMP/weak" -name '.*tmp*')" ] && ok "no temporary file left" || bad "temporary file left"
grep -q "PASS" "$TMP/out" && ok "progress lines printed" || bad "no progress lines"

# Bad input: exit 2, a message naming file:line, and no report.
for case in bad-step:4:1 bad-unit:4:6 missing-profile:3:1 bad-telemetry-unit:5:23; do
	f=${case%%:*}
	loc=${case#*:}
	expect_exit "bad input $f" 2 "$BCBENCH" run --out "$TMP/$f" "tests/data/scenarios/$f.scn"
	expect_err "bad input $f names file:line:col" "tests/data/scenarios/$f.scn:$loc: error:"
	[ ! -e "$TMP/$f/report.json" ] && ok "bad input $f writes no report" || bad "bad input $f wrote a report"
done
expect_exit "limits min > max" 2 "$BCBENCH" run --out "$TMP/lim" tests/data/scenarios/bad-limits.scn
expect_err "limits error names file and key" 'min_gt_max.json: limits[3] "VDP_SRC": min 0.7 > max 0.5'
[ ! -e "$TMP/lim/report.json" ] && ok "limits error writes no report" || bad "limits error wrote a report"
expect_exit "missing scenario file" 2 "$BCBENCH" run tests/data/scenarios/no-such.scn
expect_err "missing scenario is named" "no-such.scn"

# bench.conf errors name file:line.
printf 'backend = sim\nlimitz = x\n' >"$TMP/bad.conf"
expect_exit "bad bench.conf" 2 "$BCBENCH" run --conf "$TMP/bad.conf" scripts/scenarios/float.scn
expect_err "bench.conf error names file:line" "bad.conf:2: error: unknown key \"limitz\""

# A failing expectation exits 1 and the report says which.
sed 's/expect   avg(ibus, 250ms) <= 0.71A/expect   avg(ibus, 250ms) <= 0.3A/' scripts/scenarios/dcp-weak.scn >"$TMP/fails.scn"
expect_exit "failed expectation" 1 "$BCBENCH" run -q --out "$TMP/fails" "$TMP/fails.scn"
grep -q '"verdict":[[:space:]]*"fail"' "$TMP/fails/report.json" && ok "report records the failure" || bad "failure not in report"

# A firmware that livelocks virtual time: the device broke the run, exit 3
# and the cause in the report.
sed "s|^port.*|port sdp\nfirmware $FWDIR/livelock.so|" tests/data/scenarios/odd-port.scn >"$TMP/livelock.scn"
expect_exit "livelock firmware" 3 "$BCBENCH" run -q --out "$TMP/ll" "$TMP/livelock.scn"
grep -q 'livelocked virtual time' "$TMP/ll/report.json" && ok "report names the livelock" || bad "livelock not in report"
grep -q '"cause":[[:space:]]*"device-broke-run"' "$TMP/ll/report.json" && ok "report's cause: device-broke-run" || bad "livelock cause: $(grep '"cause"' "$TMP/ll/report.json")"

# interrupt SIG DIR: a long run into DIR, sent SIG after a second; its
# exit code in $got
interrupt() {
	"$BCBENCH" run -q --out "$2" tests/data/scenarios/long.scn >"$TMP/out" 2>"$TMP/err" &
	pid=$!
	sleep 1
	kill -"$1" $pid
	wait $pid
	got=$?
}

# SIGINT during a long run: exit 130 (128 + SIGINT), a partial report that
# says why.
interrupt INT "$TMP/long"
[ "$got" -eq 130 ] && ok "SIGINT exits 130" || bad "SIGINT: exit $got, want 130"
grep -q '"state":[[:space:]]*"aborted"' "$TMP/long/report.json" 2>/dev/null && ok "SIGINT leaves an aborted report" || bad "no aborted report after SIGINT"
grep -q 'interrupted by SIGINT' "$TMP/long/report.json" 2>/dev/null && ok "report says SIGINT" || bad "report lacks the signal"
grep -q '"safe_state"' "$TMP/long/report.json" 2>/dev/null && ok "bench put in safe state" || bad "no safe state event"
# The interrupted run's capture is whole: sigrok-cli and replay read it.
if sigrok-cli -i "$TMP/long/capture.sr" --show >"$TMP/show" 2>&1 && grep -q "VBUS" "$TMP/show"; then
	ok "capture.sr of an interrupted run is readable"
else bad "capture.sr of an interrupted run"; sed 's/^/     | /' "$TMP/show" | head -5; fi
grep -q '"status": "aborted"' "$TMP/long/events.json" && ok "events.json says aborted" || bad "events.json status"
[ -z "$(find "$TMP/long" -name '.*')" ] && ok "no spool or temporary file left after SIGINT" || bad "spool left: $(find "$TMP/long" -name '.*')"

# SIGHUP (a dropped ssh session) ends a run as SIGTERM does; a closed
# output pipe does not end it at all.
interrupt HUP "$TMP/hup"
[ "$got" -eq 129 ] && ok "SIGHUP exits 129" || bad "SIGHUP: exit $got, want 129"
grep -q 'interrupted by SIGHUP' "$TMP/hup/report.json" 2>/dev/null && ok "report says SIGHUP" || bad "report lacks SIGHUP"
grep -q '"safe_state"' "$TMP/hup/report.json" 2>/dev/null && ok "SIGHUP: bench put in safe state" || bad "SIGHUP: no safe state event"
grep -q '"status": "aborted"' "$TMP/hup/events.json" && ok "SIGHUP: events.json finished" || bad "SIGHUP: events.json"
"$BCBENCH" run --out "$TMP/pipe" scripts/scenarios/dcp.scn | head -c 1 >/dev/null
grep -q '"state":[[:space:]]*"completed"' "$TMP/pipe/report.json" 2>/dev/null && ok "a run whose output pipe closes still completes" || bad "closed pipe: $(grep -h '"reason"' "$TMP/pipe/report.json" 2>&1 | head -1)"

# Every run leaves capture.sr and events.json beside its report.
[ -s "$TMP/weak/capture.sr" ] && [ -s "$TMP/weak/events.json" ] && ok "run writes capture.sr and events.json" || bad "capture files missing"
grep -q '"capture":[[:space:]]*"capture.sr"' "$TMP/weak/report.json" && ok "report lists the capture" || bad "report lacks the capture artifact"
sigrok-cli -i "$TMP/weak/capture.sr" --show >"$TMP/show" 2>&1
for want in VBUS IBUS DP DM "Samplerate: 10000" "Analog sample count: 80000"; do
	grep -q "$want" "$TMP/show" && ok "sigrok-cli --show: $want" || bad "sigrok-cli --show lacks $want"
done

# Replay with the sidecar: the live run's rule verdicts, a report whose source is the file.
expect_exit "replay dcp-weak" 0 "$BCBENCH" replay -q --events "$TMP/weak/events.json" --out "$TMP/rw" "$TMP/weak/capture.sr"
grep -q '"backend":[[:space:]]*"replay"' "$TMP/rw/report.json" && ok "replay report backend" || bad "replay backend"
sha=$(sha256sum "$TMP/weak/capture.sr" | cut -d' ' -f1)
grep -q "$sha" "$TMP/rw/report.json" && ok "replay report carries the capture's sha256" || bad "no capture hash in replay report"
verdicts() {
	/usr/bin/python3 -c 'import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    if r["id"].startswith("bc12"):
        print(r["id"], r["verdict"])' "$1"
}
verdicts "$TMP/weak/report.json" >"$TMP/v.live"
verdicts "$TMP/rw/report.json" >"$TMP/v.replay"
if [ -s "$TMP/v.live" ] && cmp -s "$TMP/v.live" "$TMP/v.replay"; then ok "replay verdicts equal the live run's"; else
	bad "replay verdicts differ"; diff "$TMP/v.live" "$TMP/v.replay" | head -5; fi
# The sidecar beside the capture is read by default, and said so.
"$BCBENCH" replay --out "$TMP/rd" "$TMP/weak/capture.sr" >"$TMP/out" 2>"$TMP/err"
got=$?
[ "$got" -eq 0 ] && ok "replay reads the sidecar by default (exit 0)" || bad "replay with the default sidecar: exit $got"
expect_err "replay says it judges with the sidecar" "judging with the events beside the capture"
grep -q '"role":[[:space:]]*"events"' "$TMP/rd/report.json" && ok "the default sidecar is listed in the report" || bad "default sidecar not in the report"
expect_exit "--events and --no-events together" 2 "$BCBENCH" replay -q --no-events --events "$TMP/weak/events.json" --out "$TMP/rx" "$TMP/weak/capture.sr"
# --no-events: inferred events, no failure invented.
"$BCBENCH" replay --no-events --out "$TMP/ri" "$TMP/weak/capture.sr" >"$TMP/out" 2>"$TMP/err"
got=$?
[ "$got" -eq 0 ] && ok "replay without events (exit 0)" || bad "replay without events: exit $got"
grep -q '"role":[[:space:]]*"events"' "$TMP/ri/report.json" && bad "--no-events still read the sidecar" || ok "--no-events reads no sidecar"
grep -q '"inconclusive"' "$TMP/ri/report.json" && ok "unknowns are inconclusive" || bad "no inconclusive without events"
# Bad input: exit 2, the file named.
printf 'not a zip\n' >"$TMP/junk.sr"
expect_exit "replay of a non-zip" 2 "$BCBENCH" replay -q --out "$TMP/rj" "$TMP/junk.sr"
expect_err "replay error names the file" "junk.sr"
[ ! -e "$TMP/rj/report.json" ] && ok "broken capture writes no report" || bad "broken capture wrote a report"
expect_exit "replay, bad map" 2 "$BCBENCH" replay -q --map VBUS=NOPE --out "$TMP/rm" "$TMP/weak/capture.sr"
expect_err "bad map names the channel" "NOPE"
expect_exit "replay, bad origin" 2 "$BCBENCH" replay -q --events-from fixture,cloud "$TMP/weak/capture.sr"
expect_err "bad origin is named" '"cloud"'
expect_exit "replay --help" 0 "$BCBENCH" replay --help

# The udev rules parse (Debian 12 has no `udevadm verify`), and the checker
# itself fails on a broken copy, naming the line.
expect_exit "udev rules syntax" 0 sh tests/integration/udev-syntax.sh fixtures/udev/60-bcbench.rules
sed 's/MODE="0660", GROUP/MODE=0660, GROUP/' fixtures/udev/60-bcbench.rules >"$TMP/bad.rules"
sh tests/integration/udev-syntax.sh "$TMP/bad.rules" >"$TMP/err" 2>&1
[ $? -eq 1 ] && ok "udev checker fails a broken copy" || bad "udev checker passed a broken copy"
expect_err "udev checker names file:line" "bad.rules:12: error: the value of MODE must be double-quoted"
sed 's/GOTO="bcbench_end"/GOTO="bcbench_out"/' fixtures/udev/60-bcbench.rules >"$TMP/bad.rules"
sh tests/integration/udev-syntax.sh "$TMP/bad.rules" >"$TMP/err" 2>&1
expect_err "udev checker finds a GOTO without LABEL" 'GOTO "bcbench_out" has no LABEL'

# The FTDI fixture with no FTDI device on this machine: a bench fault (exit
# 5), the device
# and the way on named, and nothing written.
printf 'fixture = ftdi\nfixture_file = fixtures/bcbench-fixture-a.json\nlock_dir = %s\n' "$TMP" >"$TMP/ftdi.conf"
expect_exit "ftdi fixture without the device" 5 "$BCBENCH" run -q --conf "$TMP/ftdi.conf" --out "$TMP/noftdi" scripts/scenarios/dcp.scn
expect_err "names the fixture and its USB ids" 'fixture "ftdi" (bcbench-fixture-a, 0403:6014'
expect_err "points at bcbench devices" "bcbench devices"
printf 'fixture = ftdi:0403\nfixture_file = fixtures/bcbench-fixture-a.json\n' >"$TMP/ftdi2.conf"
expect_exit "bad ftdi spec" 2 "$BCBENCH" run -q --conf "$TMP/ftdi2.conf" --out "$TMP/noftdi" scripts/scenarios/dcp.scn
expect_err "bad ftdi spec says the form" "expected VID:PID[:SERIAL]"
printf 'fixture = ftdi\n' >"$TMP/ftdi3.conf"
expect_exit "ftdi without fixture_file" 2 "$BCBENCH" run -q --conf "$TMP/ftdi3.conf" --out "$TMP/noftdi" scripts/scenarios/dcp.scn
expect_err "asks for fixture_file" "needs fixture_file"

# Two runs on one bench: the second exits 5 naming the holder; a third
# with --wait queues and runs once the first is interrupted.
printf 'lock = yes\nlock_dir = %s\ndatadir = %s\n' "$TMP" "$PWD" >"$TMP/lock.conf"
"$BCBENCH" run -q --conf "$TMP/lock.conf" --out "$TMP/l1" tests/data/scenarios/long.scn >"$TMP/l1.out" 2>&1 &
pid1=$!
i=0
while [ $i -lt 100 ] && ! grep -q "^pid $pid1 " "$TMP"/bcbench-bench-*.lock 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
grep -q "^pid $pid1 (bcbench run tests/data/scenarios/long.scn" "$TMP"/bcbench-bench-*.lock && ok "the lock file names its holder" || bad "lock file: $(cat "$TMP"/bcbench-bench-*.lock 2>&1)"
expect_exit "second run on a held bench" 5 "$BCBENCH" run -q --conf "$TMP/lock.conf" --out "$TMP/l2" scripts/scenarios/float.scn
expect_err "names the holder's pid" "is in use by pid $pid1 (bcbench run tests/data/scenarios/long.scn"
[ ! -e "$TMP/l2/report.json" ] && ok "the refused run touched nothing" || bad "the refused run wrote a report"
"$BCBENCH" run --wait 60 --conf "$TMP/lock.conf" --out "$TMP/l3" scripts/scenarios/float.scn >"$TMP/l3.out" 2>&1 &
pid3=$!
sleep 0.5
kill -0 $pid3 2>/dev/null && [ ! -e "$TMP/l3/report.json" ] && ok "--wait queues for the bench" || bad "--wait did not wait: $(cat "$TMP/l3.out")"
kill -INT $pid1
wait $pid1
got1=$?
wait $pid3
got3=$?
[ "$got1" -eq 130 ] && [ "$got3" -eq 0 ] && ok "the queued run ran after the first (exit $got1, $got3)" || bad "lock queue: first exit $got1, queued exit $got3: $(cat "$TMP/l3.out")"
grep -q '"state":[[:space:]]*"completed"' "$TMP/l3/report.json" 2>/dev/null && ok "the queued run completed" || bad "queued run report"
grep -q "waiting up to 60 s for the bench \"bench-" "$TMP/l3.out" && ok "--wait says it waits" || bad "--wait is silent: $(cat "$TMP/l3.out")"

# bcbench devices: every library's section, and plain words when empty.
expect_exit "devices" 0 "$BCBENCH" devices
for want in "FTDI devices (libftdi1):" "Serial ports (libserialport):" "sigrok drivers (libsigrok):" "USB devices (libusb):" "demo"; do
	grep -qF "$want" "$TMP/out" && ok "devices lists \"$want\"" || bad "devices lacks \"$want\""; done
grep -q "found\.$\|none found" "$TMP/out" && ok "devices says what it found" || bad "devices summary"
printf 'dut_usb = 18d1:4ee1\n' >"$TMP/dut.conf"
expect_exit "devices, dut_usb not attached" 5 "$BCBENCH" devices --conf "$TMP/dut.conf"
grep -q "not found: no USB device 18d1:4ee1 found" "$TMP/out" && ok "devices says the DUT is not there" || bad "devices DUT section: $(tail -2 "$TMP/out")"
printf 'dut_usb = phone\n' >"$TMP/dut2.conf"
expect_exit "devices, bad dut_usb" 2 "$BCBENCH" devices --conf "$TMP/dut2.conf"
expect_exit "devices with an argument" 2 "$BCBENCH" devices extra
# The capture device bench.conf names: found, and what it can do listed.
printf 'capture = sigrok:demo\ncapture_map = VBUS=A0\n' >"$TMP/capdev.conf"
expect_exit "devices, a capture device" 0 "$BCBENCH" devices --conf "$TMP/capdev.conf"
expect_out "devices lists the capture device's channels and rates" "analog channels A0, A1, A2, A3, A4 (5); samplerate settable"
printf 'capture = sigrok:rigol-ds:conn=/nonexistent/ttyBN0\ncapture_map = VBUS=CH1\n' >"$TMP/capgone.conf"
expect_exit "devices, a capture device that is not there" 5 "$BCBENCH" devices --conf "$TMP/capgone.conf"
expect_exit "help devices" 0 "$BCBENCH" help devices
expect_exit "help selftest" 0 "$BCBENCH" help selftest
expect_exit "help of an unknown command" 2 "$BCBENCH" help frobnicate
# bcbench selftest needs a real fixture; without its device, a bench fault.
printf 'datadir = %s\n' "$PWD" >"$TMP/sim.conf"
expect_exit "selftest on the simulated bench" 2 "$BCBENCH" selftest --conf "$TMP/sim.conf"
expect_err "selftest says it needs a fixture" "has no real fixture (fixture = sim)"
expect_exit "selftest without the FTDI device" 5 "$BCBENCH" selftest --conf "$TMP/ftdi.conf"
expect_err "selftest names the fixture" 'fixture "ftdi" (bcbench-fixture-a, 0403:6014'

# The device's console named in bench.conf but not there: a bench fault.
printf 'console = %s/no-tty@115200\ndatadir = %s\nlock_dir = %s\n' "$TMP" "$PWD" "$TMP" >"$TMP/con.conf"
expect_exit "console that is not there" 5 "$BCBENCH" run -q --conf "$TMP/con.conf" --out "$TMP/nocon" scripts/scenarios/dcp.scn
expect_err "names the console's port" "console: $TMP/no-tty: open"

# Every record this script wrote, against its schema.
validate_records "$TMP"

# Suites, merge, diff and JUnit have their own scripts, two at a time
# (BN_CHECK_JOBS), the longest first; the twin's, which time a bench in
# real time, run alone after them.
run_own=$(($(date +%s) - ${run_t0}))
POOLED="deb.sh html.sh suite.sh no-capture.sh exitcodes.sh faults.sh replay.sh conditions.sh docs.sh curve.sh diff.sh names.sh realbench-port.sh fakeusb.sh labgrid.sh gitlab.sh realbench-curve.sh install.sh newcomer.sh hostile.sh curve-import.sh curve-replay.sh split.sh"
SOLO="twin.sh twin-matrix.sh"
. tests/lanes.sh
lanes "${BN_CHECK_JOBS:-2}" "$TMP/lanes" "env BCBENCH=$BCBENCH FWDIR=$FWDIR EMUDIR=${EMUDIR:-build/emu} sh" $(for s in $POOLED; do echo tests/integration/$s; done) >"$TMP/pooled.out"
fail=$((fail + lanes_failed))
lanes 1 "$TMP/solo" "env BCBENCH=$BCBENCH FWDIR=$FWDIR EMUDIR=${EMUDIR:-build/emu} sh" $(for s in $SOLO; do echo tests/integration/$s; done) >"$TMP/solo.out"
fail=$((fail + lanes_failed))
grep -v '^ok ' "$TMP/pooled.out" "$TMP/solo.out" | sed 's/^[^:]*://'
pass=$((pass + $(cat "$TMP/pooled.out" "$TMP/solo.out" | grep -c '^ok ')))
echo "integration: run.sh's own checks $run_own s; each script's time is on its == line"

echo "integration: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
