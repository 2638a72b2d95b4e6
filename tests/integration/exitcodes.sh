#!/bin/sh
# The exit codes a CI acts on (bench/core/exit.h, README.md "Exit codes"):
# each produced by a real case through the bcbench binary, with the cause
# its record gives (report.json status.cause, suite.json exit_cause, the
# JUnit type of its error or failure). Run from the repository root by
# tests/integration/run.sh (or alone: BCBENCH=build/bcbench FWDIR=build/fw
# EMUDIR=build/emu sh tests/integration/exitcodes.sh).
set -u
BCBENCH=${BCBENCH:-build/bcbench}
FWDIR=${FWDIR:-build/fw}
EMUDIR=${EMUDIR:-build/emu}
FAULTSO=${FAULTSO:-$(dirname "$BCBENCH")/fault/enospc.so}
TMP=$(mktemp -d /tmp/bcbench-exitcodes.XXXXXX)
PIDS=""
trap 'for p in $PIDS; do kill "$p" 2>/dev/null; done; rm -rf "$TMP"' EXIT
XSD=tests/data/junit/junit-10.xsd
# A SIGSEGV must kill the run as in a real build (see suite.sh).
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_segv=0
export ASAN_OPTIONS

. tests/integration/lib.sh

# cause_is NAME DIR CAUSE CODE: DIR/report.json's status says CAUSE, CODE
cause_is() {
	if /usr/bin/python3 - "$2/report.json" "$3" "$4" <<'PY'; then ok "$1: report.json says $3, $4"; else bad "$1: report.json status"; fi
import json, sys
st = json.load(open(sys.argv[1], encoding="utf-8"))["status"]
if st.get("cause") != sys.argv[2] or st.get("exit_code") != int(sys.argv[3]):
    print("     | status:", st)
    sys.exit(1)
PY
}
# no_report NAME DIR: nothing ran, nothing claims a verdict
no_report() {
	[ ! -e "$2/report.json" ] && ok "$1: no report" || bad "$1: wrote a report"
}
# junit_types NAME FILE TYPE...: FILE validates and has an <error> or
# <failure> of each TYPE, and of no other
junit_types() {
	j_name=$1 j_file=$2
	shift 2
	xmllint --noout --schema "$XSD" "$j_file" 2>/dev/null && ok "$j_name: JUnit validates" || bad "$j_name: JUnit invalid"
	got_types=$(grep -o '<\(error\|failure\) [^>]*type="[^"]*"' "$j_file" | sed 's/.*type="\([^"]*\)"/\1/' | sort -u | tr '\n' ' ')
	want_types=$(for t in "$@"; do echo "$t"; done | sort -u | tr '\n' ' ')
	[ "$got_types" = "$want_types" ] && ok "$j_name: JUnit types: $got_types" || bad "$j_name: JUnit types \"$got_types\", want \"$want_types\""
}
# emu NAME ARGS...: an emulated instrument on a pty; its path in $pty
emu() {
	e_name=$1
	shift
	"$EMUDIR/instr_emu" "$@" >"$TMP/$e_name.out" 2>&1 &
	PIDS="$PIDS $!"
	i=0
	while [ $i -lt 50 ] && [ ! -s "$TMP/$e_name.out" ]; do sleep 0.1; i=$((i + 1)); done
	pty=$(head -1 "$TMP/$e_name.out")
}

SCN=scripts/scenarios/dcp.scn

# ---- 0 ok, 1 rule-failed, 2 bad-input, 4 not-demonstrated ----
expect_exit "a passing run" 0 "$BCBENCH" run -q --no-html --out "$TMP/ok" "$SCN"
cause_is "a passing run" "$TMP/ok" ok 0
expect_exit "a faulty firmware (adv_high_power on sdp-root)" 1 "$BCBENCH" run -q --no-html --firmware "$FWDIR/adv_high_power.so" --out "$TMP/fail" scripts/scenarios/sdp-root.scn
cause_is "a faulty firmware" "$TMP/fail" rule-failed 1
sed 's/^wait .*/wait fortnight/' "$SCN" >"$TMP/bad.scn"
expect_exit "a bad scenario" 2 "$BCBENCH" run -q --out "$TMP/bad" "$TMP/bad.scn"
expect_err "a bad scenario names FILE:LINE:COL" "$TMP/bad.scn:"
no_report "a bad scenario" "$TMP/bad"
expect_exit "float.scn judges nothing: passes without --require-verdicts" 0 "$BCBENCH" run -q --no-html --out "$TMP/float0" scripts/scenarios/float.scn
expect_exit "--require-verdicts on a run that demonstrates nothing" 4 "$BCBENCH" run -q --no-html --require-verdicts --out "$TMP/float" scripts/scenarios/float.scn
cause_is "--require-verdicts" "$TMP/float" not-demonstrated 4

# ---- 3 device-broke-run: the firmware crashed, hung, livelocked ----
expect_exit "a crashing firmware" 3 "$BCBENCH" run -q --no-html --firmware "$FWDIR/crash_segv.so" --out "$TMP/crash" "$SCN"
cause_is "a crashing firmware" "$TMP/crash" device-broke-run 3
expect_exit "a firmware hanging in a call" 3 "$BCBENCH" run -q --no-html --watchdog 1 --firmware "$FWDIR/hang_spin.so" --out "$TMP/hang" "$SCN"
cause_is "a hanging firmware" "$TMP/hang" device-broke-run 3
has "the hang is the firmware's" "$TMP/hang/report.json" "(the firmware hangs in a call); killed"
expect_exit "a livelocking firmware" 3 "$BCBENCH" run -q --no-html --firmware "$FWDIR/livelock.so" --out "$TMP/livelock" "$SCN"
cause_is "a livelocking firmware" "$TMP/livelock" device-broke-run 3

# ---- 5 bench-fault: the only code to retry ----
# The bench lock held by another run past --wait.
printf 'lock = yes\nlock_dir = %s\ndatadir = %s\n' "$TMP" "$PWD" >"$TMP/lock.conf"
"$BCBENCH" run -q --no-html --conf "$TMP/lock.conf" --out "$TMP/holder" tests/data/scenarios/long.scn >/dev/null 2>&1 &
hpid=$!
PIDS="$PIDS $hpid"
i=0
while [ $i -lt 100 ] && ! grep -q "^pid $hpid " "$TMP"/bcbench-bench-*.lock 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
expect_exit "the bench lock held past --wait 1" 5 "$BCBENCH" run -q --wait 1 --conf "$TMP/lock.conf" --out "$TMP/busy" "$SCN"
expect_err "it names the holder" "still in use after waiting 1 s: held by pid $hpid"
no_report "the bench in use" "$TMP/busy"
# ---- 130/143: interrupted, the holder by SIGINT ----
kill -INT $hpid
wait $hpid
rc=$?
[ $rc -eq 130 ] && ok "SIGINT mid-run: exit 130" || bad "SIGINT mid-run: exit $rc, want 130"
cause_is "SIGINT mid-run" "$TMP/holder" interrupted 130
"$BCBENCH" run -q --no-html --out "$TMP/term" tests/data/scenarios/long.scn >/dev/null 2>&1 &
tpid=$!
PIDS="$PIDS $tpid"
i=0
while [ $i -lt 100 ] && [ ! -f "$TMP/term/report.json" ]; do sleep 0.1; i=$((i + 1)); done
sleep 0.3
kill -TERM $tpid
wait $tpid
rc=$?
[ $rc -eq 143 ] && ok "SIGTERM mid-run: exit 143" || bad "SIGTERM mid-run: exit $rc, want 143"
cause_is "SIGTERM mid-run" "$TMP/term" interrupted 143

# An electronic load that stops answering mid-run: its time-out, then the
# bench's safe state and a report that says so.
emu stall --family rigol-dl3000 --stall-after 12 --log "$TMP/stall.log"
printf 'load = scpi:%s\nload_dialect = rigol-dl3000\ninstrument_timeout = 200ms\ninstrument_retries = 1\nlock_dir = %s\ndatadir = %s\n' \
	"$pty" "$TMP" "$PWD" >"$TMP/stall.conf"
sed 's/^wait .*/load 500mA\nwait 300ms/' tests/data/scenarios/short.scn >"$TMP/load.scn"
expect_exit "a load that stops answering" 5 "$BCBENCH" run -q --no-html --conf "$TMP/stall.conf" --out "$TMP/stall" "$TMP/load.scn"
cause_is "a load that stops answering" "$TMP/stall" bench-fault 5
# The same load with a time-out longer than the watchdog: the watchdog
# kills a run that waits in an instrument call, not in the firmware.
emu wd --family rigol-dl3000 --stall-after 12
printf 'load = scpi:%s\nload_dialect = rigol-dl3000\ninstrument_timeout = 10s\ninstrument_retries = 0\nlock_dir = %s\ndatadir = %s\n' \
	"$pty" "$TMP" "$PWD" >"$TMP/wd.conf"
expect_exit "the watchdog in an instrument call" 5 "$BCBENCH" run -q --no-html --watchdog 1 --conf "$TMP/wd.conf" --out "$TMP/wd" "$TMP/load.scn"
cause_is "the watchdog in an instrument call" "$TMP/wd" bench-fault 5
has "the hang is not the firmware's" "$TMP/wd/report.json" "outside the firmware: an instrument that does not answer?"

# ---- 6 environment: a retry would repeat it ----
if [ -f "$FAULTSO" ]; then
	env LD_PRELOAD="$FAULTSO" ASAN_OPTIONS="$ASAN_OPTIONS:verify_asan_link_order=0" BN_FAULT_PATH=/.capture.sr. BN_FAULT_AFTER=200000 \
		"$BCBENCH" run -q --no-html --out "$TMP/full" scripts/scenarios/dcp-weak.scn >"$TMP/out" 2>"$TMP/err"
	rc=$?
	[ $rc -eq 6 ] && ok "a disk that fills up mid-run: exit 6" || bad "a disk that fills up: exit $rc, want 6"
	cause_is "a disk that fills up" "$TMP/full" environment 6
else
	bad "no $FAULTSO (make builds it): the disk cases cannot run"
fi
: >"$TMP/file"
expect_exit "an output under a plain file" 6 "$BCBENCH" run -q --out "$TMP/file/sub" "$SCN"
expect_err "it says why" "$TMP/file exists and is not a directory"
# A read-only output directory (root writes anywhere: as nobody then, on
# a copy of what the run needs that nobody can read).
chmod 755 "$TMP"
mkdir -p "$TMP/ro" "$TMP/pub" && chmod 555 "$TMP/ro"
cp "$BCBENCH" "$TMP/pub/bcbench" && cp -r profiles "$TMP/pub/" && cp "$SCN" "$TMP/pub/" && chmod -R a+rX "$TMP/pub"
if [ "$(id -u)" -ne 0 ]; then
	ro() { "$@"; }
elif command -v setpriv >/dev/null 2>&1; then
	ro() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
else
	ro() { runuser -u nobody -- "$@"; }
fi
(cd "$TMP/pub" && ro ./bcbench run -q --no-html --out "$TMP/ro/out" dcp.scn) >"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc -eq 6 ] && ok "a read-only output directory: exit 6" || { bad "a read-only output: exit $rc, want 6"; tail -3 "$TMP/err"; }
expect_err "it says why" "$TMP/ro/out: Permission denied"
# A firmware whose library needs another that is not there.
CC=${CC:-cc}
printf 'int gone_x;\n' >"$TMP/gone.c"
printf 'extern int gone_x;\nint *uses_gone(void) { return &gone_x; }\n' >"$TMP/uses.c"
if "$CC" -shared -fPIC -o "$TMP/libgone.so" "$TMP/gone.c" 2>"$TMP/cc.err" &&
	"$CC" -shared -fPIC -o "$TMP/needs_gone.so" tests/firmware/crash_segv.c bench/firmware/ref_fw.c bench/firmware/ref_ramp.c \
		tests/firmware/lib/variant.c "$TMP/uses.c" -Ibench -Itests/firmware -L"$TMP" -Wl,--no-as-needed -lgone 2>"$TMP/cc.err"; then
	rm "$TMP/libgone.so"
	expect_exit "a firmware library that cannot be loaded" 6 "$BCBENCH" run -q --firmware "$TMP/needs_gone.so" --out "$TMP/nolib" "$SCN"
	expect_err "it names the missing library" "libgone.so: cannot open shared object file"
	no_report "a library that cannot be loaded" "$TMP/nolib"
	expect_exit "a firmware file that is not there is bad input" 2 "$BCBENCH" run -q --firmware "$TMP/not-there.so" --out "$TMP/nofile" "$SCN"
else
	bad "cannot build the firmware library test case: $(head -3 "$TMP/cc.err")"
fi

# ---- 7 nothing-to-run ----
expect_exit "suite --filter matching nothing" 7 "$BCBENCH" suite -q --fwdir "$FWDIR" --filter 'no-such-entry*' --out "$TMP/none" --junit "$TMP/none.xml" scripts/suites/regression.suite
expect_err "it says so" "nothing to run: no entry matches --filter no-such-entry*"
has "suite.json says 7" "$TMP/none/suite.json" '"exit_code":	7'
printf '# nothing here yet\nsuite "empty"\n' >"$TMP/empty.suite"
expect_exit "an empty suite" 7 "$BCBENCH" suite -q --out "$TMP/empty" "$TMP/empty.suite"
expect_err "it says so" "nothing to run: the suite has no entries"
printf 'suite "one"\nscenario %s/%s\n  firmware reference\n' "$PWD" "$SCN" >"$TMP/one.suite"
expect_exit "--shard 2/2 of a one-entry suite" 7 "$BCBENCH" suite -q --shard 2/2 --out "$TMP/shard" "$TMP/one.suite"
expect_exit "suite --list selecting nothing" 7 "$BCBENCH" suite --list --filter 'no-such-entry*' "$TMP/one.suite"

# ---- suites: the most urgent unexpected outcome ----
# A bench fault alone: an entry's directory held by another writer (a
# process holding its lock) is refused, like a bench in use: 5.
printf 'suite "mixed"\nscenario %s/%s\n  firmware reference\n  firmware crash_segv\n' "$PWD" "$SCN" >"$TMP/mixed.suite"
mkdir -p "$TMP/alone/entries/0000-dcp-reference" "$TMP/mixed/entries/0000-dcp-reference"
flock "$TMP/alone/entries/0000-dcp-reference/.bcbench.lock" sleep 30 &
PIDS="$PIDS $!"
flock "$TMP/mixed/entries/0000-dcp-reference/.bcbench.lock" sleep 30 &
PIDS="$PIDS $!"
sleep 0.3
expect_exit "a suite with a bench fault alone" 5 "$BCBENCH" suite -q --fwdir "$FWDIR" --out "$TMP/alone" --junit "$TMP/alone.xml" "$TMP/one.suite"
has "its entry carries the cause" "$TMP/alone/suite.json" '"exit_cause":	"bench-fault"'
junit_types "bench fault alone" "$TMP/alone.xml" bench-fault
# The same fault beside a crash: the device broke its run, a deterministic
# failure a retry would not mend: 3, not the bench's 5.
expect_exit "a suite mixing a bench fault and a crash" 3 "$BCBENCH" suite -q --fwdir "$FWDIR" --out "$TMP/mixed" --junit "$TMP/mixed.xml" "$TMP/mixed.suite"
has "the crash carries its cause" "$TMP/mixed/suite.json" '"exit_cause":	"device-broke-run"'
has "the bench fault carries its cause" "$TMP/mixed/suite.json" '"exit_cause":	"bench-fault"'
has "the run's case says the crash" "$TMP/mixed/entries/0001-dcp-crash_segv/report.json" '"cause":	"device-broke-run"'
junit_types "bench fault and crash" "$TMP/mixed.xml" bench-fault device-broke-run
expect_out "the summary names the exit code" "exit 3 (device-broke-run)"
# An expected error (xerror) is 0 only when the device broke the run.
printf 'suite "x"\nwatchdog 1s\nscenario %s/%s\n  firmware crash_segv xerror\n  firmware hang_spin xerror\n' "$PWD" "$SCN" >"$TMP/xerror.suite"
expect_exit "expected crashes and hangs (xerror)" 0 "$BCBENCH" suite -q --fwdir "$FWDIR" --out "$TMP/xerror" --junit "$TMP/xerror.xml" "$TMP/xerror.suite"
junit_types "expected errors" "$TMP/xerror.xml"
# A failing rule beside a bench fault: 1, not retried.
printf 'suite "f"\nscenario %s/scripts/scenarios/sdp-root.scn\n  firmware reference\n  firmware adv_high_power\n' "$PWD" >"$TMP/fail.suite"
mkdir -p "$TMP/fsuite/entries/0000-sdp-root-reference"
flock "$TMP/fsuite/entries/0000-sdp-root-reference/.bcbench.lock" sleep 30 &
PIDS="$PIDS $!"
sleep 0.3
expect_exit "a suite mixing a bench fault and a failed rule" 1 "$BCBENCH" suite -q --fwdir "$FWDIR" --out "$TMP/fsuite" --junit "$TMP/fsuite.xml" "$TMP/fail.suite"
junit_types "bench fault and a failed rule" "$TMP/fsuite.xml" bench-fault rule-failed
# merge keeps the order of the entries it joins
expect_exit "merge of the mixed suite's record" 3 "$BCBENCH" merge --partial -o "$TMP/merged.json" "$TMP/mixed/suite.json"

# Every record this script wrote, against its schema.
validate_records "$TMP"

echo "exitcodes: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
