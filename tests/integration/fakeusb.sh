#!/bin/sh
# A Hantek 6022BE USB scope that is a fake libusb-1.0 (tests/fakeusb):
# libsigrok 0.5.2's own hantek-6xxx driver, in sigrok-cli and in bcbench,
# streams what tests/fakeusb/scope_feed serves, with its units, at 100 kHz.
# Run from the repository root by tests/integration/run.sh.
# BCBENCH: the binary; the fake is built beside it (make units) in
# FAKEUSB (default: BCBENCH's directory/tests/fakeusb).
set -u
BCBENCH=${BCBENCH:-build/bcbench}
FAKEUSB=${FAKEUSB:-$(dirname "$BCBENCH")/tests/fakeusb}
TMP=$(mktemp -d /tmp/bcbench-fakeusb.XXXXXX)
feed=
trap '[ -n "$feed" ] && kill $feed 2>/dev/null; rm -rf "$TMP"' EXIT
. tests/integration/lib.sh

SOCK=$TMP/scope.sock
# What scope_feed serves, as the 6022BE's codes read back by the driver
# (scope_proto_volts): at the default 500 mV a division (5 V span, steps
# of 19.6 mV) CH1 0.5 V is code 153 (0.5 V), 0.4 V is code 148
# (0.401961 V), CH2 +-0.5 V are codes 153 and 102 (+-0.5 V). The driver
# drops the first 512 frames of each start, so row r is frame r + 512: the
# step at 10 ms (frame 1000 at 100 kHz) is row 488, the 1 kHz square's
# half period 50 rows.
CH1_HI=0.5 CH1_LO=0.401961 SQ=0.5

# check_rows NAME FILE RATE SCALE1 SCALE2 MIN_ROWS: every "a,b" row of a
# CSV export holds the served waveform (CH1 times SCALE1, CH2 times
# SCALE2), within printing precision: far inside one 8-bit step
check_rows() {
	awk -F, -v rate="$3" -v s1="$4" -v s2="$5" -v min="$6" -v hi="$CH1_HI" -v lo="$CH1_LO" -v sq="$SQ" '
	function abs(x) { return x < 0 ? -x : x }
	NF == 2 && $1 ~ /^-?[0-9]/ {
		j = n + 512
		w1 = (j < rate / 100 ? hi : lo) * s1
		w2 = (int(j * 2000 / rate) % 2 == 0 ? sq : -sq) * s2
		if (abs($1 - w1) > 1e-4 * s1 || abs($2 - w2) > 1e-4 * s2) {
			if (bad++ < 3) printf "row %d: %s, want %g,%g\n", n, $0, w1, w2
		}
		n++
	}
	END {
		if (n < min) { printf "%d rows, want at least %d\n", n, min; exit 1 }
		if (bad) { printf "%d of %d rows differ\n", bad, n; exit 1 }
		printf "%d rows\n", n
	}' "$2" >"$TMP/rows" 2>&1
	if [ $? -eq 0 ]; then ok "$1 ($(cat "$TMP/rows"))"; else
		bad "$1: $(tr '\n' ';' <"$TMP/rows")"; fi
}

if [ ! -f "$FAKEUSB/libusb-1.0.so.0" ] || [ ! -x "$FAKEUSB/scope_feed" ]; then
	bad "the fake is not built in $FAKEUSB (make units)"
	echo "fakeusb: $pass passed, $fail failed"
	exit 1
fi

# The fake on its own (cmocka): quantisation, descriptors, requests,
# transfers, time-outs, cancels, a source that goes.
expect_exit "the fake's own tests" 0 "$FAKEUSB/test_fakeusb"

# It replaces the system's libusb for the dynamic linker: the same name,
# every function the real one exports (unversioned, as the real one is),
# so whatever bcbench, libsigrok and libftdi1 import is there.
real=$(ldd "$(dirname "$BCBENCH")/bcbench-hw" | awk '$1 == "libusb-1.0.so.0" { print $3 }')
LD_LIBRARY_PATH=$FAKEUSB ldd "$(dirname "$BCBENCH")/bcbench-hw" | grep -q "libusb-1.0.so.0 => $FAKEUSB/libusb-1.0.so.0" &&
	ok "LD_LIBRARY_PATH=$FAKEUSB loads the fake into bcbench-hw" || bad "bcbench-hw does not load the fake"
nm -D --defined-only "$FAKEUSB/libusb-1.0.so.0" | awk '{ print $NF }' | sort >"$TMP/fake.syms"
nm -D --defined-only "$real" | awk '$NF ~ /^libusb_/ { print $NF }' | sort >"$TMP/real.syms"
missing=$(comm -23 "$TMP/real.syms" "$TMP/fake.syms" | tr '\n' ' ')
[ -s "$TMP/real.syms" ] && [ -z "$missing" ] && ok "the fake exports all $(wc -l <"$TMP/real.syms") functions of $real" ||
	bad "the fake lacks: ${missing:-(no symbols read from $real)}"
grep -qv '^libusb_' "$TMP/fake.syms" && bad "the fake exports more than libusb_*: $(grep -v '^libusb_' "$TMP/fake.syms" | head -3 | tr '\n' ' ')" ||
	ok "the fake exports only libusb_*"
objdump -T "$FAKEUSB/libusb-1.0.so.0" | grep ' libusb_init$' | grep -q Base && ok "its symbols are unversioned, as the real one's" ||
	bad "the fake's symbols carry versions"
# bcbench-hw: the binary with the hardware libraries (bcbench starts it)
HWBIN=$(dirname "$BCBENCH")/bcbench-hw
for lib in "$HWBIN" $(ldd "$HWBIN" | awk '$1 ~ /^lib(sigrok|ftdi1)\.so/ { print $3 }'); do
	nm -D --undefined-only "$lib" | awk '$NF ~ /^libusb_/ { print $NF }' | sort -u >"$TMP/imports"
	missing=$(comm -23 "$TMP/imports" "$TMP/fake.syms" | tr '\n' ' ')
	[ -s "$TMP/imports" ] && [ -z "$missing" ] && ok "$(basename "$lib")'s $(wc -l <"$TMP/imports") libusb imports are in the fake" ||
		bad "$(basename "$lib") imports what the fake lacks: ${missing:-(no imports read)}"
done

# Without a sample source there is no scope.
unset BCBENCH_FAKEUSB_SCOPE
LD_LIBRARY_PATH=$FAKEUSB sigrok-cli --scan >"$TMP/out" 2>&1
grep -q hantek "$TMP/out" && bad "a scope without a source: $(grep hantek "$TMP/out")" ||
	ok "no BCBENCH_FAKEUSB_SCOPE, no scope in sigrok-cli --scan"

"$FAKEUSB/scope_feed" "$SOCK" >"$TMP/feed.log" 2>&1 &
feed=$!
i=0
while [ $i -lt 50 ] && [ ! -S "$SOCK" ]; do sleep 0.1; i=$((i + 1)); done
[ -S "$SOCK" ] && ok "scope_feed listens" || bad "scope_feed did not start: $(cat "$TMP/feed.log")"
export BCBENCH_FAKEUSB_SCOPE="$SOCK"

expect_exit "sigrok-cli --scan" 0 env LD_LIBRARY_PATH="$FAKEUSB" sigrok-cli --scan
expect_out "sigrok-cli --scan lists the 6022BE" "hantek-6xxx:conn=1.4 - Hantek 6022BE with 2 channels: CH1 CH2"

# 2000 samples at 100 kHz through libsigrok's driver, as CSV.
expect_exit "sigrok-cli 2000 samples at 100 kHz" 0 env LD_LIBRARY_PATH="$FAKEUSB" \
	sigrok-cli -d hantek-6xxx --config samplerate=100k --samples 2000 -O csv
has "the source was asked for 100 kHz, 5 V spans" "$TMP/feed.log" "start 100000 5 5"
expect_out "the CSV is in volts" "V,V"
cp "$TMP/out" "$TMP/100k.csv"
check_rows "sigrok-cli rows: CH1 0.5 V stepping to 0.4 V at row 488, CH2 the 1 kHz square" "$TMP/100k.csv" 100000 1 1 2000
awk -F, 'NF == 2 && $1 ~ /^-?[0-9]/ { if ($1 + 0 < 0.45 && !s) s = n; n++ } END { exit s != 488 }' "$TMP/100k.csv" &&
	ok "the step is at row 488 (frame 1000 less the 512 the driver drops)" || bad "the step is not at row 488"

# CH2 at 100 mV a division (a 1 V span): the gain register reaches the
# scope (CH2's codes become 255 and 0), at the driver's default 8 MHz.
expect_exit "sigrok-cli with CH2 at 100 mV a division" 0 env LD_LIBRARY_PATH="$FAKEUSB" \
	sigrok-cli -d hantek-6xxx -g CH2 --config vdiv=100mV --samples 3000 -O csv
has "the source was told CH2's 1 V span at 8 MHz" "$TMP/feed.log" "start 8000000 5 1"
cp "$TMP/out" "$TMP/8M.csv"
check_rows "sigrok-cli rows at 8 MHz, CH2 at full scale" "$TMP/8M.csv" 8000000 1 1 3000

# The same through bcbench: the capture's VBUS is CH1 through a 10:1
# probe, IBUS is CH2 across a 1 ohm shunt (1 V/A; the scope reports
# volts, so the map says what turns them into amperes). A 3.5 s run: libsigrok's driver reads
# 131072 frames (1.31 s) a transfer and drops the one pending at stop,
# so two whole transfers arrive.
sed 's/^wait 300ms/wait 3500ms/' tests/data/scenarios/short.scn >"$TMP/run.scn"
cat >"$TMP/bench.conf" <<EOF
datadir = $PWD
lock_dir = $TMP
capture = sigrok:hantek-6xxx
capture_map = VBUS=CH1:scale=10,IBUS=CH2:shunt=1
capture_rate = 100kHz
EOF
LD_LIBRARY_PATH=$FAKEUSB "$BCBENCH" run -q --conf "$TMP/bench.conf" --out "$TMP/run" "$TMP/run.scn" >"$TMP/out" 2>"$TMP/err"
got=$?
[ $got -le 1 ] && ok "bcbench run through the fake scope (exit $got)" || {
	bad "bcbench run through the fake scope: exit $got"
	sed 's/^/     | /' "$TMP/err" "$TMP/out" | tail -6
}
if [ ! -f "$TMP/run/report.json" ]; then bad "bcbench wrote no report"
elif grep -q "frames lost" "$TMP/run/report.json"; then bad "bcbench lost frames: $(grep -m1 'frames lost' "$TMP/run/report.json")"
else ok "bcbench lost no frame"; fi
has "report.json names the scope and the channel" "$TMP/run/report.json" '"instrument":	"sigrok:hantek-6xxx (Hantek 6022BE at usb/1-2'
has "report.json says IBUS is CH2 across its shunt" "$TMP/run/report.json" 'its channel CH2 (voltage, V), shunt 1 ohm'
has "report.json has its rate" "$TMP/run/report.json" '"rate_hz":	100000'
# The rows straight from the zip's float32 members, in chunk order:
# libsigrok 0.5.2's CSV output pairs an analog capture's channels only
# when each has one member (a capture libsigrok wrote itself, in members
# of 1020 samples, comes out as 0 rows), and bcbench writes a member every
# 65,536 frames. tests/unit/test_srzip.c reads these files through
# libsigrok's sr_session_load.
python3 - "$TMP/run/capture.sr" >"$TMP/run.csv" 2>&1 <<'PY'
import re, struct, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
ch = {}
for n in z.namelist():
    m = re.fullmatch(r"analog-1-(\d+)-(\d+)", n)
    if m:
        ch.setdefault(int(m[1]), []).append((int(m[2]), n))
cols = []
for c in sorted(ch):
    data = b"".join(z.read(n) for _, n in sorted(ch[c]))
    cols.append(struct.unpack("<%df" % (len(data) // 4), data))
for row in zip(*cols):
    print(",".join("%g" % v for v in row))
PY
# The capture opens with a short acquisition of its own (what each
# channel measures, checked against the map), and libsigrok 0.5.2's
# driver leaves that acquisition's last transfer pending: the fake fills
# it with the first 1.31 s of the run's stream, which are lost to it. So
# the capture starts at an unknown whole transfer of the served waveform:
# checked as levels (VBUS 5 V or 4.01961 V) and the 1 kHz square (IBUS
# +-0.5 A in runs of 50 rows), not row by row.
awk -F, -v hi="$CH1_HI" -v lo="$CH1_LO" -v sq="$SQ" '
	function abs(x) { return x < 0 ? -x : x }
	NF == 2 && $1 ~ /^-?[0-9]/ {
		if (abs($1 - 10 * hi) > 1e-3 && abs($1 - 10 * lo) > 1e-3) { if (bad++ < 3) printf "row %d: VBUS %s\n", n, $1 }
		if (abs(abs($2) - sq) > 1e-4) { if (bad++ < 3) printf "row %d: IBUS %s\n", n, $2 }
		if (n > 0 && ($2 > 0) != (prev > 0)) { if (run_n && run != 50 && bad++ < 3) printf "row %d: a run of %d\n", n, run; run = 0; run_n++ }
		run++; prev = $2; n++
	}
	END { if (n < 131072) { printf "%d rows, want at least one transfer (131072)\n", n; exit 1 }
	      if (bad) exit 1; printf "%d rows\n", n }' "$TMP/run.csv" >"$TMP/rows" 2>&1 &&
	ok "capture.sr holds what was served: VBUS 5 V or 4.01961 V, IBUS the 1 kHz +-0.5 A square ($(cat "$TMP/rows"))" ||
	bad "capture.sr: $(tr '\n' ';' <"$TMP/rows")"

# No source behind the device: the fake says so (bcbench's verdicts are
# not this test's).
BCBENCH_FAKEUSB_SCOPE=$TMP/none.sock LD_LIBRARY_PATH=$FAKEUSB "$BCBENCH" run -q --conf "$TMP/bench.conf" \
	--out "$TMP/nosrc" tests/data/scenarios/short.scn >"$TMP/out" 2>"$TMP/err"
expect_err "a missing source is named" "fakeusb: cannot reach the sample source BCBENCH_FAKEUSB_SCOPE=$TMP/none.sock"

# bcbench devices lists the scope through libusb, and libftdi1's look on
# the fake bus finds nothing and does not crash.
expect_exit "bcbench devices with the fake" 0 env LD_LIBRARY_PATH="$FAKEUSB" "$BCBENCH" devices
expect_out "devices lists the scope" "1d50:608e  bus 001 address 004  Hantek 6022BE  serial fakeusb"
expect_out "libftdi1 looked and found none" "none found (looked for 0403:6001"
expect_exit "bcbench devices with the fake and no scope" 0 env -u BCBENCH_FAKEUSB_SCOPE LD_LIBRARY_PATH="$FAKEUSB" "$BCBENCH" devices
grep -q 1d50:608e "$TMP/out" && bad "devices lists a scope without a source" || ok "no source, no scope in devices"

# Every record this script wrote, against its schema.
validate_records "$TMP"

echo "fakeusb: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
