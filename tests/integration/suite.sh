#!/bin/sh
# CLI-level tests of bcbench suite, merge, diff on suites and JUnit: exit
# codes, isolation of crashing and hanging firmware, shards, the JUnit
# schema. Run from the repository root by tests/integration/run.sh.
# BCBENCH: the binary; FWDIR: where the test firmware .so files are.
set -u
BCBENCH=${BCBENCH:-build/bcbench}
FWDIR=${FWDIR:-build/fw}
EMUDIR=${EMUDIR:-build/emu}
TMP=$(mktemp -d /tmp/bcbench-suite.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
XSD=tests/data/junit/junit-10.xsd
# Under AddressSanitizer (make check SAN=1) a SIGSEGV would be caught and
# turned into exit(1); let it kill the process as it does in a real build,
# so the crash tests see the signal. (A run that exits without finishing
# is an error too: exit_early below.)
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_segv=0
export ASAN_OPTIONS

. tests/integration/lib.sh

# json_num FILE KEY: a suite.json's totals.KEY (cJSON prints one key a
# line, indented by depth: the totals' own keys are two tabs in)
json_num() {
	grep -m1 "^		\"$2\":" "$1" | sed 's/.*:[[:space:]]*\([-0-9.]*\).*/\1/'
}

# Bad suites: exit 2, file:line:col, nothing run.
for case in bad-statement:3:3 bad-rule:2:29 bad-port:2:16 bad-scenario:2:10 no-firmware:2:12; do
	f=${case%%:*}
	loc=${case#*:}
	expect_exit "bad suite $f" 2 "$BCBENCH" suite --fwdir "$FWDIR" --out "$TMP/$f" "tests/data/suites/$f.suite"
	expect_err "bad suite $f names file:line:col" "tests/data/suites/$f.suite:$loc: error:"
	[ ! -e "$TMP/$f/suite.json" ] && ok "bad suite $f writes no suite.json" || bad "bad suite $f wrote suite.json"
done
expect_exit "suite without a file" 2 "$BCBENCH" suite
expect_exit "suite, -j 0" 2 "$BCBENCH" suite -j 0 scripts/suites/regression.suite
expect_exit "suite, --shard 4/3" 2 "$BCBENCH" suite --shard 4/3 scripts/suites/regression.suite
expect_err "--shard names what it expects" "expected K/N with 1 <= K <= N"
expect_exit "suite --help" 0 "$BCBENCH" suite --help
has "suite --help lists exit codes" "$TMP/out" "5      bench-fault"

# Crashing, hanging and livelocking firmware among healthy entries.
expect_exit "isolation suite" 3 "$BCBENCH" suite -j 2 --fwdir "$FWDIR" --out "$TMP/iso" --junit "$TMP/iso.xml" tests/data/suites/isolation.suite
S=$TMP/iso/suite.json
has "segfault entry is error with its signal" "$S" "crashed: killed by SIGSEGV"
has "hang entry is error with the watchdog" "$S" "watchdog: no progress for 1 s"
has "livelock entry is error with its cause" "$S" "livelocked virtual time"
[ "$(json_num "$S" pass)" = 2 ] && ok "the two healthy entries passed" || bad "healthy entries: pass = $(json_num "$S" pass)"
[ "$(json_num "$S" error)" = 3 ] && ok "three entries in error" || bad "errors = $(json_num "$S" error)"
has "crash report on disk says why" "$TMP/iso/entries/0001-dcp-crash_segv/report.json" "killed by SIGSEGV"
xmllint --noout --schema "$XSD" "$TMP/iso.xml" 2>"$TMP/xmlerr" && ok "isolation JUnit validates against $XSD" || { bad "isolation JUnit invalid"; head -5 "$TMP/xmlerr"; }
has "JUnit has the crash as the device's error" "$TMP/iso.xml" 'type="device-broke-run"'
if grep -q 'type="bench-fault"' "$TMP/iso.xml"; then bad "JUnit calls a firmware's fault the bench's"; else ok "JUnit calls no firmware fault the bench's"; fi
expect_exit "expected errors (xerror)" 0 "$BCBENCH" suite -j 2 --fwdir "$FWDIR" --out "$TMP/xerror" tests/data/suites/xerror.suite
expect_exit "xpass is unexpected" 1 "$BCBENCH" suite --fwdir "$FWDIR" --out "$TMP/xpass" tests/data/suites/xpass.suite
has "xpass says which rule passed" "$TMP/out" "bc12.det.port_type was expected to fail but is pass"

# bcbench run alone on each: the device broke the run, exit 3 and the cause
# in its report.
for fwname in crash_segv hang_spin livelock exit_early; do
	case $fwname in
	exit_early) cause="exited with status 0 at t=0.300 s" ;;
	crash_segv) cause="killed by SIGSEGV" ;;
	hang_spin) cause="watchdog: no progress" ;;
	livelock) cause="livelocked virtual time" ;;
	esac
	expect_exit "run alone: $fwname" 3 "$BCBENCH" run -q --watchdog 1 --firmware "$FWDIR/$fwname.so" --out "$TMP/alone-$fwname" scripts/scenarios/dcp.scn
	has "run alone: $fwname report has the cause" "$TMP/alone-$fwname/report.json" "$cause"
	has "run alone: $fwname report is an error" "$TMP/alone-$fwname/report.json" '"state":	"error"'
	has "run alone: $fwname report's cause is the device's" "$TMP/alone-$fwname/report.json" '"cause":	"device-broke-run"'
	# every rule that applies on the DCP is an error with the run's cause,
	# the others skipped; none passes or fails on the partial stream
	python3 - "$TMP/alone-$fwname/report.json" "$cause" <<'PY' &&
import json, sys
r = json.load(open(sys.argv[1], encoding="utf-8"))
res = [x for x in r["results"] if x["kind"] == "check"]
assert len(res) >= 20, len(res)
assert {x["verdict"] for x in res} <= {"error", "skipped"}, {x["verdict"] for x in res}
err = [x for x in res if x["verdict"] == "error"]
assert any(x["id"] == "bc12.cur.idev_chg" for x in err), "idev_chg not an error"
assert all(sys.argv[2] in x["reason"] and x["reason"].startswith("the run ended early") for x in err), err[0]
assert r["totals"]["error"] == len(err) and r["totals"]["pass"] == 0, r["totals"]
PY
	ok "run alone: $fwname report lists every applicable rule as an error with the cause" ||
		bad "run alone: $fwname report's results"
	[ -z "$(find "$TMP/alone-$fwname" -name '.*')" ] && ok "run alone: $fwname leaves no spool or temporary file" || bad "run alone: $fwname left $(find "$TMP/alone-$fwname" -name '.*')"
	# What led up to the end is kept, whole: the capture and the events
	# replay, and reach the time the run ended at.
	has "run alone: $fwname report lists its capture" "$TMP/alone-$fwname/report.json" '"capture":	"capture.sr"'
	has "run alone: $fwname report lists its events" "$TMP/alone-$fwname/report.json" '"events":	"events.json"'
	"$BCBENCH" replay -q --events "$TMP/alone-$fwname/events.json" --out "$TMP/alone-$fwname/replay" "$TMP/alone-$fwname/capture.sr" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	[ $rc -le 1 ] && grep -q '"state":	"completed"' "$TMP/alone-$fwname/replay/report.json" && ok "run alone: $fwname capture and events replay (exit $rc)" || { bad "run alone: $fwname capture does not replay (exit $rc)"; tail -3 "$TMP/err"; }
	case $fwname in
	livelock) ;;
	*) has "run alone: $fwname report says what was kept" "$TMP/alone-$fwname/report.json" "the capture up to then was kept: capture.sr (" ;;
	esac
	grep -q "of capture replayed" "$TMP/out" && ok "run alone: $fwname replay reached the end" || bad "run alone: $fwname replay: $(cat "$TMP/out")"
	has "run alone: $fwname replay judges nothing on the partial record" "$TMP/alone-$fwname/replay/report.json" "did not complete (status \\\"error\\\""
	grep -q "0 passed, 0 failed" "$TMP/out" && ok "run alone: $fwname replay passes and fails nothing" || bad "run alone: $fwname replay: $(cat "$TMP/out")"
done

# The regression suite holds every golden row (tests/golden/*.tsv) with
# its rules, and every faulty firmware build (hang_spin waits for the
# watchdog: it lives in isolation.suite).
"$BCBENCH" suite --list --fwdir "$FWDIR" scripts/suites/regression.suite >"$TMP/list" 2>&1
rows=0
missing=0
for tsv in tests/golden/*.tsv; do
	while read -r fw scn rules; do
		case $fw in '#'* | '') continue ;; esac
		rows=$((rows + 1))
		line=$(grep " $scn/$fw " "$TMP/list")
		for rule in $rules; do
			case " $line " in *" $rule "*) ;; *) missing=$((missing + 1)); echo "     | $scn/$fw lacks $rule" ;; esac
		done
	done <"$tsv"
done
[ "$rows" -gt 30 ] && [ $missing -eq 0 ] && ok "regression.suite has all $rows golden rows with their rules" || bad "regression.suite: $missing golden rules missing ($rows rows)"
missing=0
for c in tests/firmware/*.c; do
	fw=$(basename "$c" .c)
	# hang_spin costs a watchdog; wrong_abi is refused before any run
	# (tests/integration/faults.sh); hostile_telemetry is for
	# tests/integration/hostile.sh
	case $fw in hang_spin | wrong_abi | hostile_telemetry) continue ;; esac
	grep -q "/$fw " "$TMP/list" || { missing=$((missing + 1)); echo "     | no entry runs $fw"; }
done
[ $missing -eq 0 ] && ok "regression.suite runs every faulty firmware" || bad "regression.suite misses firmware"

# The regression suite: whole, then in three shards merged.
expect_exit "regression suite -j 2" 0 "$BCBENCH" suite -j 2 --fwdir "$FWDIR" --out "$TMP/reg" --junit "$TMP/reg.xml" scripts/suites/regression.suite
xmllint --noout --schema "$XSD" "$TMP/reg.xml" 2>"$TMP/xmlerr" && ok "regression JUnit validates" || { bad "regression JUnit invalid"; head -5 "$TMP/xmlerr"; }
# Every entry as expected: JUnit must agree (no failure, no error), and
# every expected failure is there as one.
grep -q '<testsuites [^>]*failures="0" errors="0"' "$TMP/reg.xml" && ok "regression JUnit: no failures, no errors" || bad "regression JUnit: $(sed -n 2p "$TMP/reg.xml")"
n_xf=$(grep -c 'expected failure (xfail)' "$TMP/reg.xml")
[ "$n_xf" -ge 37 ] && ok "regression JUnit: $n_xf expected failures said so" || bad "regression JUnit: only $n_xf expected failures"
n_all=$(json_num "$TMP/reg/suite.json" entries)
# suite.json names each entry's report by path and sha256 and holds none
# (bcbench-suite/2): its size does not grow with the reports', and every
# report it names is there, unchanged.
n_res=$(grep -c '"results":' "$TMP/reg/suite.json")
[ "$n_res" -eq 0 ] && ok "suite.json embeds no report" || bad "suite.json has $n_res \"results\" arrays"
per_entry=$(( $(wc -c <"$TMP/reg/suite.json") / n_all ))
[ "$per_entry" -lt 3000 ] && ok "suite.json: $per_entry bytes an entry" || bad "suite.json: $per_entry bytes an entry (reports embedded?)"
awk -F'"' '/^\t\t\t\t"path":/ { p = $4 } /^\t\t\t\t"sha256":/ { if (p != "") print $4 "  " p; p = "" }' \
	"$TMP/reg/suite.json" >"$TMP/reg-sums"
n_sums=$(wc -l <"$TMP/reg-sums")
(cd "$TMP/reg" && sha256sum -c --quiet "$TMP/reg-sums") >"$TMP/sumerr" 2>&1 && [ "$n_sums" -eq "$n_all" ] &&
	ok "each of the $n_sums reports suite.json names has its sha256" || { bad "reports named: $n_sums of $n_all, or a sha256 differs"; head -3 "$TMP/sumerr"; }
for k in 1 2 3; do
	expect_exit "shard $k/3" 0 "$BCBENCH" suite -q -j 2 --shard "$k/3" --fwdir "$FWDIR" --out "$TMP/shard$k" scripts/suites/regression.suite
done
sum=0
for k in 1 2 3; do sum=$((sum + $(json_num "$TMP/shard$k/suite.json" entries))); done
[ "$sum" = "$n_all" ] && ok "shards together run $sum entries, as the whole suite" || bad "shards ran $sum, whole suite $n_all"
cat "$TMP"/shard?/suite.json | grep '^			"id":' | sort >"$TMP/ids-shards"
sort -u "$TMP/ids-shards" >"$TMP/ids-uniq"
grep '^			"id":' "$TMP/reg/suite.json" | sort >"$TMP/ids-all"
cmp -s "$TMP/ids-shards" "$TMP/ids-uniq" && ok "no entry runs in two shards" || bad "an entry ran in two shards"
cmp -s "$TMP/ids-shards" "$TMP/ids-all" && ok "shards cover every entry of the suite" || bad "shards and suite differ: $(diff "$TMP/ids-shards" "$TMP/ids-all" | head -3)"
expect_exit "merge the shards" 0 "$BCBENCH" merge -o "$TMP/merged.json" "$TMP/shard1/suite.json" "$TMP/shard2/suite.json" "$TMP/shard3/suite.json"
for key in entries pass xfail fail xpass error unexpected; do
	a=$(json_num "$TMP/merged.json" "$key")
	b=$(json_num "$TMP/reg/suite.json" "$key")
	[ "$a" = "$b" ] && ok "merged totals: $key = $a as unsharded" || bad "merged $key = $a, unsharded $b"
done
expect_exit "merge with a shard missing" 2 "$BCBENCH" merge -o "$TMP/m2.json" "$TMP/shard1/suite.json" "$TMP/shard2/suite.json"
expect_exit "merge a shard twice" 2 "$BCBENCH" merge -o "$TMP/m3.json" "$TMP/shard1/suite.json" "$TMP/shard1/suite.json" "$TMP/shard2/suite.json" "$TMP/shard3/suite.json"

# SIGTERM mid-suite: the running entries stop in their safe state, what
# was not run is recorded as such, suite.json is written, exit 143.
"$BCBENCH" suite -q -j 1 --fwdir "$FWDIR" --out "$TMP/term" scripts/suites/regression.suite >"$TMP/term.out" 2>&1 &
spid=$!
sleep 1
kill -TERM $spid
wait $spid
rc=$?
[ $rc -eq 143 ] && ok "SIGTERM mid-suite exits 143" || bad "SIGTERM mid-suite exited $rc"
has "interrupted suite still writes suite.json" "$TMP/term/suite.json" '"schema":	"bcbench-suite/2"'
has "entries not run say so" "$TMP/term/suite.json" "not run: the suite was interrupted by SIGTERM"
n_term=$(json_num "$TMP/term/suite.json" entries)
[ "$n_term" = "$n_all" ] && ok "interrupted suite.json lists all $n_term entries" || bad "interrupted suite.json lists $n_term of $n_all"
[ -z "$(find "$TMP/term" -name '.capture.sr.*')" ] && ok "no capture spool left behind" || bad "spool left: $(find "$TMP/term" -name '.capture.sr.*' | head -2)"

# The bench lock: a suite holds it from its first entry to its last, and
# its entries share it; another run is refused, naming the suite.
printf 'lock = yes\nlock_dir = %s\ndatadir = %s\n' "$TMP" "$PWD" >"$TMP/lock.conf"
"$BCBENCH" suite -q -j 2 --conf "$TMP/lock.conf" --fwdir "$FWDIR" --out "$TMP/held" tests/data/suites/long.suite >"$TMP/held.out" 2>&1 &
spid=$!
i=0
while [ $i -lt 200 ] && [ "$(find "$TMP/held/entries" -name report.json 2>/dev/null | wc -l)" -lt 2 ]; do sleep 0.1; i=$((i + 1)); done
[ "$(find "$TMP/held/entries" -name report.json 2>/dev/null | wc -l)" -eq 2 ] && ok "both entries run under the suite's lock" || bad "entries did not start: $(cat "$TMP/held.out" "$TMP"/held/entries/*/run.log 2>&1 | head -5)"
grep -qsF "pid $spid (bcbench suite tests/data/suites/long.suite" "$TMP"/bcbench-bench-*.lock && ok "the lock file names the suite" || bad "the lock file names the suite: $(cat "$TMP"/bcbench-bench-*.lock 2>&1)"
expect_exit "a run while a suite holds the bench" 5 "$BCBENCH" run -q --conf "$TMP/lock.conf" --out "$TMP/l2" scripts/scenarios/float.scn
expect_err "the refusal names the suite" "is in use by pid $spid (bcbench suite"
kill -TERM $spid
wait $spid
rc=$?
[ $rc -eq 143 ] && ok "interrupted locked suite exits 143" || bad "interrupted locked suite exited $rc"
if grep -q "in use" "$TMP/held/suite.json"; then bad "an entry of the suite found the bench in use"; else ok "no entry found its own suite's bench in use"; fi
has "the entries were interrupted, not refused" "$TMP/held/suite.json" "interrupted"
expect_exit "the suite released the bench" 0 "$BCBENCH" run -q --conf "$TMP/lock.conf" --out "$TMP/l3" scripts/scenarios/float.scn
# A suite that finds the bench in use runs nothing, says why for every
# entry (suite.json and JUnit) and exits 5: an expected error (xerror) is
# the device's, and a bench in use never tested it.
"$BCBENCH" run -q --conf "$TMP/lock.conf" --out "$TMP/l4" tests/data/scenarios/long.scn >/dev/null 2>&1 &
rpid=$!
i=0
while [ $i -lt 100 ] && ! grep -q "^pid $rpid " "$TMP"/bcbench-bench-*.lock 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
expect_exit "a suite on a bench in use" 5 "$BCBENCH" suite -q --conf "$TMP/lock.conf" --fwdir "$FWDIR" --out "$TMP/busy" --junit "$TMP/busy/junit.xml" tests/data/suites/xerror.suite
expect_err "says who holds the bench" "is in use by pid $rpid (bcbench run tests/data/scenarios/long.scn"
n_busy=$(grep -c "\"cause\":.*not run: bench .* is in use by pid $rpid" "$TMP/busy/suite.json")
n_want=$(json_num "$TMP/busy/suite.json" entries)
[ "$n_busy" -ge 1 ] && [ "$n_busy" = "$n_want" ] && ok "every entry says the bench was in use ($n_busy)" || bad "entries saying the bench was in use: $n_busy of $n_want"
[ -z "$(find "$TMP/busy/entries" -name report.json 2>/dev/null)" ] && ok "the refused suite ran nothing" || bad "the refused suite ran an entry"
xmllint --noout --schema "$XSD" "$TMP/busy/junit.xml" 2>/dev/null && ok "the refused suite's JUnit validates" || bad "refused suite JUnit invalid"
n_bf=$(grep -c '<error [^>]*type="bench-fault"' "$TMP/busy/junit.xml")
[ "$n_bf" = "$n_want" ] && ok "JUnit: each entry's run is a bench-fault error ($n_bf)" || bad "JUnit bench-fault errors: $n_bf of $n_want"
(sleep 1; kill -INT $rpid) &
"$BCBENCH" suite -q --wait 60 --conf "$TMP/lock.conf" --fwdir "$FWDIR" --out "$TMP/queued" tests/data/suites/xerror.suite >"$TMP/queued.out" 2>&1
rc=$?
wait
[ $rc -eq 0 ] && ok "the queued suite ran after the run ended (exit $rc)" || bad "queued suite exited $rc: $(tail -3 "$TMP/queued.out")"

# A real bench whose instrument goes away (an electronic load on a pty
# that exits when its port is closed, after the first entry): the entry
# that cannot open it says why (from its log), the suite checks the bench,
# finds it gone and records the rest as not run, instead of failing each.
"$EMUDIR/instr_emu" --family rigol-dl3000 >"$TMP/emu.out" 2>&1 &
epid=$!
i=0
while [ $i -lt 50 ] && [ ! -s "$TMP/emu.out" ]; do sleep 0.1; i=$((i + 1)); done
pty=$(head -1 "$TMP/emu.out")
printf 'load = scpi:%s\nload_dialect = rigol-dl3000\nlock_dir = %s\ndatadir = %s\n' "$pty" "$TMP" "$PWD" >"$TMP/gone.conf"
expect_exit "a suite whose bench goes away" 5 "$BCBENCH" suite --conf "$TMP/gone.conf" --fwdir "$FWDIR" --out "$TMP/gone" --junit "$TMP/gone.xml" tests/data/suites/bench-gone.suite
kill $epid 2>/dev/null
wait $epid 2>/dev/null
expect_out "the first entry ran on the real instrument" "[1/4] pass   short/dcp-1a/reference"
has "the entry that found it gone says why" "$TMP/gone/suite.json" "no report was written: $pty: open:"
n_gone=$(grep -c "\"cause\":.*not run: the bench failed after entry 1 (short/ideal-5a/reference) ended in error: $pty: open:" "$TMP/gone/suite.json")
[ "$n_gone" -eq 2 ] && ok "the rest are not run, with the bench's failure" || bad "entries recorded as not run after the bench failed: $n_gone of 2"
[ ! -e "$TMP/gone/entries/0003-short-cdp-1a5-reference/run.log" ] && ok "no run was started on the failed bench" || bad "a run was started on the failed bench"
xmllint --noout --schema "$XSD" "$TMP/gone.xml" 2>/dev/null && ok "its JUnit validates" || bad "bench-gone JUnit invalid"

# The other SCPI links, end to end: a LAN load (the emulator on a local
# TCP port, tcp-raw/HOST/PORT) and a supply named usbtmc:PATH (the
# emulator's pty, read as a stream), with the same dialect files.
"$EMUDIR/instr_emu" --family rigol-dl3000 --tcp 0 --log "$TMP/lan.log" >"$TMP/lan.out" 2>&1 &
lpid=$!
"$EMUDIR/instr_emu" --family rigol-dp800 --log "$TMP/tmc.log" >"$TMP/tmc.out" 2>&1 &
tpid=$!
i=0
while [ $i -lt 50 ] && { [ ! -s "$TMP/lan.out" ] || [ ! -s "$TMP/tmc.out" ]; }; do sleep 0.1; i=$((i + 1)); done
printf 'load = scpi:%s\nload_dialect = rigol-dl3000\nsupply = scpi:usbtmc:%s\nsupply_dialect = rigol-dp800\nlock_dir = %s\ndatadir = %s\n' \
	"$(head -1 "$TMP/lan.out")" "$(head -1 "$TMP/tmc.out")" "$TMP" "$PWD" >"$TMP/links.conf"
expect_exit "a run with a LAN load and a usbtmc: supply" 0 "$BCBENCH" run -q --conf "$TMP/links.conf" --out "$TMP/links" tests/data/scenarios/short.scn
kill $lpid $tpid 2>/dev/null
wait $lpid $tpid 2>/dev/null
has "the LAN load was identified" "$TMP/lan.log" "*IDN?"
has "the LAN load was left safe" "$TMP/lan.log" ":SOUR:INP:STAT OFF"
has "the usbtmc: supply was identified" "$TMP/tmc.log" "*IDN?"
# A real bench without a capture device judges only what its instruments
# measured: each channel names its instrument (or none, and why), no
# simulated part is taken for a real one, and the captured IBUS is the
# emulated supply's reading (its 20 ohm load: I = V / 20, 0.255 A at the
# charger's 5.1 V), not the simulated device's draw (under 0.1 A
# unconfigured on this SDP).
if python3 - "$TMP/links" <<'PY'
import json, sys, zipfile, struct
d = sys.argv[1]
r = json.load(open(d + "/report.json"))
ch = r["measurement"]["channels"]
assert "supply scpi (RIGOL TECHNOLOGIES,DP832" in ch["VBUS"]["instrument"], ch["VBUS"]
assert "its output voltage reading" in ch["VBUS"]["instrument"], ch["VBUS"]
assert "its output current reading, less the load's" in ch["IBUS"]["instrument"], ch["IBUS"]
for c in ("VBUS", "IBUS"):
    assert ch[c]["rate_hz"] <= 50 and ch[c]["polls"] > 0, ch[c]
for c in ("DP", "DM", "ID"):
    assert ch[c]["source"] == "none" and ch[c]["instrument"] == "none", ch[c]
    assert "no capture device" in ch[c]["why"], ch[c]
ins = {i["role"]: i for i in r["measurement"]["instruments"]}
assert ins["fixture"]["simulated"] is True and ins["load"]["simulated"] is False, ins
assert ins["supply"]["instrument"].startswith("scpi: RIGOL TECHNOLOGIES,DP832"), ins
assert r["bench"]["backend"] == "real", r["bench"]
assert r["dut"]["firmware"] == "real device" and r["dut"]["configurations"] == [], r["dut"]
assert r["dut"]["telemetry"] == {}, r["dut"]
for x in r["results"]:
    assert x["verdict"] != "pass", x    # nothing here can be judged from 2 polled channels
    if x["id"].startswith("bc12.dcd"):
        assert "nothing on this bench measures it" in x["reason"], x
z = zipfile.ZipFile(d + "/capture.sr")
def chan(k):
    out = []
    for i in range(1, 99):
        n = "analog-1-%d-%d" % (k, i)
        if n in z.namelist():
            out += struct.unpack("<%df" % (len(z.read(n)) // 4), z.read(n))
    return out
vbus, ibus = chan(1), chan(2)
assert len(ibus) == len(vbus) > 5 and max(ibus) > 0.2, (vbus, ibus)
assert all(abs(i - v / 20) < 1e-3 for v, i in zip(vbus, ibus)), list(zip(vbus, ibus))[:5]
PY
then ok "a real bench with no capture device names each channel's instrument; IBUS is the supply's reading"
else bad "real-bench channel sources in report.json"; fi

# diff on suites: itself, then an injected regression.
expect_exit "diff suite against itself" 0 "$BCBENCH" diff "$TMP/reg/suite.json" "$TMP/reg/suite.json"
expect_exit "diff merged against unsharded" 0 "$BCBENCH" diff "$TMP/reg/suite.json" "$TMP/merged.json"
expect_exit "diff finds a regressed entry (crash)" 1 "$BCBENCH" diff "$TMP/reg/suite.json" "$TMP/iso/suite.json"

# Every record this script wrote, against its schema.
validate_records "$TMP"

echo "suite: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
