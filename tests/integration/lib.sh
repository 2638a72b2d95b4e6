# What the integration scripts share; sourced after each sets TMP (a
# scratch directory it removes on exit). pass and fail count the checks.
pass=0
fail=0

ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }

# expect_exit NAME CODE CMD...: run CMD (stdout to $TMP/out, stderr to
# $TMP/err), check its exit code; on a miss show the end of both
expect_exit() {
	name=$1 want=$2
	shift 2
	"$@" >"$TMP/out" 2>"$TMP/err"
	got=$?
	if [ "$got" -eq "$want" ]; then ok "$name (exit $got)"; else
		bad "$name: exit $got, want $want"; sed 's/^/     | /' "$TMP/err" "$TMP/out" | tail -8; fi
}

# expect_out NAME TEXT / expect_err NAME TEXT: the last command's stdout /
# stderr contains TEXT
expect_out() {
	if grep -qF -- "$2" "$TMP/out"; then ok "$1"; else
		bad "$1: stdout lacks \"$2\""; sed 's/^/     | /' "$TMP/out" | head -8; fi
}
expect_err() {
	if grep -qF -- "$2" "$TMP/err"; then ok "$1"; else
		bad "$1: stderr lacks \"$2\""; sed 's/^/     | /' "$TMP/err" | head -5; fi
}

# has NAME FILE TEXT: FILE contains TEXT
has() {
	if grep -qF -- "$3" "$2"; then ok "$1"; else bad "$1: $2 lacks \"$3\""; fi
}

# validate_records DIR [EXCLUDED...]: every report.json, suite.json and
# events.json under DIR (and any other JSON file whose "schema" is one of
# theirs) validates against docs/report.schema.json, docs/suite.schema.json
# or docs/events.schema.json by its "schema" (python3-jsonschema, which
# scripts/install-deps.sh installs). EXCLUDED: records a test broke on
# purpose, relative to DIR; each must be there. Call it before the
# script's cleanup.
validate_records() {
	vr_dir=$1
	shift
	if ! /usr/bin/python3 -c 'import jsonschema' 2>/dev/null; then
		bad "python3-jsonschema is missing (scripts/install-deps.sh installs it)"
		return
	fi
	if /usr/bin/python3 tests/integration/validate_records.py "$vr_dir" "$@" >"$TMP/validate.out" 2>&1; then
		ok "records validate against their schemas: $(tail -1 "$TMP/validate.out")"
	else
		bad "records do not validate against their schemas:"
		sed 's/^/     | /' "$TMP/validate.out" | head -20
	fi
}

# The instrument emulators a script starts (tests/emu/instr_emu, on a
# pseudo-terminal): EPIDS holds their pids.
EPIDS=${EPIDS:-}
# emu NAME FAMILY ARGS...: start the emulator, its pty in $pty
emu() {
	e_name=$1
	shift
	"$EMUDIR/instr_emu" --family "$@" >"$TMP/$e_name.out" 2>&1 &
	EPIDS="$EPIDS $!"
	i=0
	while [ $i -lt 50 ] && [ ! -s "$TMP/$e_name.out" ]; do sleep 0.1; i=$((i + 1)); done
	pty=$(head -1 "$TMP/$e_name.out")
}
# stop_emus: kill those still running; a pid is checked to be an
# emulator first, since scripts run two at a time and a pid of one that
# exited may already be another script's process.
stop_emus() {
	for p in $EPIDS; do
		grep -q instr_emu "/proc/$p/cmdline" 2>/dev/null && kill "$p" 2>/dev/null
	done
}

# plain_pass_only NAME WHY: in make check's SAN pass (BN_CHECK_SAN=1) a
# script that builds, copies or installs the tree itself says it is
# skipped and why, and exits 0 (a skip, not counted as a check)
plain_pass_only() {
	[ "${BN_CHECK_SAN:-}" = 1 ] || return 0
	echo "$1: skipped in the SAN pass: $2"
	exit 0
}
