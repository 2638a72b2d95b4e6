#!/bin/sh
# The two binaries (docs/design.md, "Two binaries"): bcbench neither
# links nor loads the hardware libraries (libsigrok, libftdi1,
# libserialport, libusb), and a simulated run maps none of them;
# bcbench-hw, beside it, links them all, and bcbench starts it, with the
# same command line and environment (an LD_PRELOAD fault seam included),
# for a command that needs hardware. Without bcbench-hw a hardware
# command says where it looked (exit 6). Run from the repository root.
set -u
BCBENCH=${BCBENCH:-build/bcbench}
EMUDIR=${EMUDIR:-build/emu}
HWBIN=$(dirname "$BCBENCH")/bcbench-hw
FAULTSO=$(dirname "$BCBENCH")/fault/enospc.so
TMP=$(mktemp -d /tmp/bcbench-split.XXXXXX)
EPIDS=""
trap 'stop_emus; rm -rf "$TMP"' EXIT
. tests/integration/lib.sh
HWLIBS='lib(sigrok|ftdi1|serialport|usb-1\.0)\.so'

# ---- the link ----
readelf -d "$BCBENCH" | grep NEEDED >"$TMP/needed"
[ -s "$TMP/needed" ] && ! grep -Eq "$HWLIBS" "$TMP/needed" && ok "bcbench's NEEDED has no hardware library ($(wc -l <"$TMP/needed") libraries)" ||
	bad "bcbench's NEEDED: $(grep -Eo "$HWLIBS" "$TMP/needed" | tr '\n' ' ')"
ldd "$BCBENCH" >"$TMP/ldd"
! grep -Eq "$HWLIBS|libhidapi|libbluetooth" "$TMP/ldd" && ok "nor does anything bcbench loads need one ($(wc -l <"$TMP/ldd") in ldd)" ||
	bad "ldd bcbench: $(grep -Eo "$HWLIBS|libhidapi|libbluetooth" "$TMP/ldd" | tr '\n' ' ')"
n=$(readelf -d "$HWBIN" | grep NEEDED | grep -Ec "$HWLIBS")
[ "$n" -eq 4 ] && ok "bcbench-hw links all four" || bad "bcbench-hw links $n of the four hardware libraries"
nm -D --undefined-only "$BCBENCH" | awk '{ print $NF }' | grep -E '^(ftdi|sp|libusb|hid)_' >"$TMP/undef"
[ ! -s "$TMP/undef" ] && ok "bcbench calls no hardware library function" || bad "bcbench imports $(head -3 "$TMP/undef" | tr '\n' ' ')"

# ---- a simulated run: nothing of the hardware mapped ----
# (bcbench-hw keeps the command line, so the dynamic linker names the
# program as bcbench still: a "needed by" libsigrok is the sign of it)
SCN=scripts/scenarios/dcp.scn
LD_DEBUG=libs "$BCBENCH" run -q --no-html --out "$TMP/sim" "$SCN" >"$TMP/out" 2>"$TMP/ld"
rc=$?
[ $rc -eq 0 ] && ok "a simulated run (exit 0)" || bad "a simulated run: exit $rc"
grep 'calling init:' "$TMP/ld" | awk '{ print $NF }' | sort -u >"$TMP/mapped"
[ -s "$TMP/mapped" ] && ! grep -Eq "$HWLIBS|libhidapi|libbluetooth" "$TMP/mapped" &&
	ok "it maps $(wc -l <"$TMP/mapped") libraries, no hardware one" || bad "a simulated run maps: $(grep -E "$HWLIBS" "$TMP/mapped" | tr '\n' ' ')"
! grep -q 'bcbench-hw' "$TMP/ld" && ok "and does not start bcbench-hw" || bad "a simulated run started bcbench-hw"
# the hidden override: the same run in bcbench-hw gives the same verdicts
BN_HW=always LD_DEBUG=files "$BCBENCH" run -q --no-html --out "$TMP/simhw" "$SCN" >"$TMP/out" 2>"$TMP/ld"
rc=$?
[ $rc -eq 0 ] && grep -q "file=libsigrok.so.4 .*needed by" "$TMP/ld" && ok "BN_HW=always runs it in bcbench-hw (exit 0)" ||
	bad "BN_HW=always: exit $rc, libsigrok $(grep -c 'file=libsigrok' "$TMP/ld") times in LD_DEBUG"
v1=$(grep -o '"verdict":[[:space:]]*"[a-z-]*"' "$TMP/sim/report.json" | sort | uniq -c | tr -s ' \n\t' ' ')
v2=$(grep -o '"verdict":[[:space:]]*"[a-z-]*"' "$TMP/simhw/report.json" | sort | uniq -c | tr -s ' \n\t' ' ')
[ -n "$v1" ] && [ "$v1" = "$v2" ] && ok "both binaries give the same verdicts" || bad "verdicts: bcbench $v1, bcbench-hw $v2"

# ---- a hardware bench: through bcbench-hw ----
emu load rigol-dl3000 --log "$TMP/load.log"
printf 'load = scpi:%s\nload_dialect = rigol-dl3000\nlock_dir = %s\ndatadir = %s\n' "$pty" "$TMP" "$PWD" >"$TMP/hw.conf"
sed 's/^wait .*/load 500mA\nwait 300ms/' tests/data/scenarios/short.scn >"$TMP/load.scn"
LD_DEBUG=files "$BCBENCH" run -q --no-html --conf "$TMP/hw.conf" --out "$TMP/hw" "$TMP/load.scn" >"$TMP/out" 2>"$TMP/ld"
rc=$?
grep -v '^ *[0-9]*:' "$TMP/ld" >"$TMP/err"
[ $rc -le 1 ] && [ -s "$TMP/hw/report.json" ] && ok "a run on an emulated SCPI load (exit $rc, a report)" ||
	{ bad "a run on an emulated SCPI load: exit $rc"; sed 's/^/     | /' "$TMP/err" | tail -5; }
grep -q "file=libsigrok.so.4 .*needed by" "$TMP/ld" && grep -q "file=libserialport.so.0 .*needed by" "$TMP/ld" &&
	ok "bcbench started bcbench-hw, which loaded the hardware libraries" || bad "no bcbench-hw in LD_DEBUG=files"
grep -q 'load:on\|INP ON\|:INP' "$TMP/load.log" 2>/dev/null && ok "the load was driven" || bad "the emulated load saw no command: $(head -3 "$TMP/load.log" | tr '\n' ' ')"
if [ -f "$FAULTSO" ]; then
	# The fault seam the tests preload reaches bcbench-hw: its disk fills up.
	emu load2 rigol-dl3000
	printf 'load = scpi:%s\nload_dialect = rigol-dl3000\nlock_dir = %s\ndatadir = %s\n' "$pty" "$TMP" "$PWD" >"$TMP/hw2.conf"
	env LD_PRELOAD="$FAULTSO" ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
		BN_FAULT_PATH=/.capture.sr. BN_FAULT_AFTER=0 \
		"$BCBENCH" run -q --no-html --conf "$TMP/hw2.conf" --out "$TMP/full" "$TMP/load.scn" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	[ $rc -eq 6 ] && ok "LD_PRELOAD's full disk reaches bcbench-hw (exit 6)" || { bad "LD_PRELOAD through the exec: exit $rc, want 6"; tail -3 "$TMP/err"; }
else
	bad "$FAULTSO not built (make units)"
fi
expect_exit "bcbench devices (always bcbench-hw)" 0 env LD_DEBUG=files "$BCBENCH" devices
grep -q "file=libftdi1.so.2 .*needed by" "$TMP/err" && ok "devices ran in bcbench-hw" || bad "devices did not start bcbench-hw"

# ---- no bcbench-hw ----
mkdir -p "$TMP/alone" && cp "$BCBENCH" "$TMP/alone/bcbench"
expect_exit "a hardware bench.conf without bcbench-hw" 6 "$TMP/alone/bcbench" run -q --conf "$TMP/hw.conf" --out "$TMP/nohw" "$TMP/load.scn"
expect_err "it names the binary and where it looked" "bcbench-hw (with libsigrok, libftdi1, libserialport, libusb); not found, looked in: $TMP/lib/bcbench/bcbench-hw, $TMP/alone/bcbench-hw"
expect_err "and the key that names hardware" "hw.conf names hardware (load)"
[ ! -e "$TMP/nohw" ] && ok "nothing written" || bad "$TMP/nohw was made"
expect_exit "devices without bcbench-hw" 6 "$TMP/alone/bcbench" devices
expect_exit "a simulated run without bcbench-hw" 0 "$TMP/alone/bcbench" run -q --no-html --datadir . --out "$TMP/alone/sim" "$SCN"
# a bcbench-hw that is bcbench again: said, not started forever
cp "$BCBENCH" "$TMP/alone/bcbench-hw"
expect_exit "a bcbench-hw without the hardware" 6 "$TMP/alone/bcbench" devices
expect_err "says so" "is bcbench without the hardware libraries"
# BN_HW=never: the stand-ins (hil/absent.c) answer, exit 6, never a crash
expect_exit "BN_HW=never on a hardware bench" 6 env BN_HW=never "$BCBENCH" run -q --no-html --conf "$TMP/hw.conf" --out "$TMP/never" "$TMP/load.scn"
expect_err "the stand-in says what is missing" "built without the hardware libraries"

echo "split: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
