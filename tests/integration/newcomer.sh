#!/bin/sh
# A newcomer's first hour, with only what git holds and what make install
# puts in a prefix: from a fresh `git clone` of this checkout's HEAD,
# `make install PREFIX=...` (reusing this tree's built binary and firmware:
# BUILD points at it and `-o all` keeps make from rebuilding it, which
# would take minutes; the clone gives the Makefile, the data, the man page,
# the completion), then in a scratch directory outside both trees: write a
# charger profile and a scenario, run them, get a report. Then the usual
# mistakes, each of which must say what it looked for and where, and how
# to change it: a profile name misspelt, a data dir that is not there (or
# none beside a copied binary), a relative path in a scenario read from
# another directory. Run from the repository root by
# tests/integration/run.sh.
set -u
BCBENCH=${BCBENCH:-build/bcbench}
TMP=$(mktemp -d /tmp/bcbench-newcomer.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
. tests/integration/lib.sh

BUILD=$(cd "$(dirname "$BCBENCH")" && pwd)
SANARG=
[ "${BN_CHECK_SAN:-}" = 1 ] && SANARG=SAN=1
unset BCBENCH_DATADIR BCBENCH_FWDIR
P=$TMP/prefix

# The checkout's HEAD, as a newcomer gets it (a source tree that is no git
# checkout, an unpacked tarball, installs from itself).
SRC=$PWD
if git rev-parse --git-dir >/dev/null 2>&1; then
	SRC=$TMP/clone
	git clone -q "$PWD" "$SRC" >"$TMP/out" 2>&1 && ok "git clone of HEAD ($(git -C "$SRC" rev-parse --short HEAD))" || { bad "git clone: $(tail -2 "$TMP/out")"; exit 1; }
else
	echo "note: not a git checkout: installing from the tree itself"
fi
make --no-print-directory -C "$SRC" -j1 -o all BUILD="$BUILD" $SANARG PREFIX="$P" install >"$TMP/make.out" 2>&1
got=$?
[ $got -eq 0 ] && ok "make install PREFIX=<scratch> from the clone" || { bad "make install from the clone: exit $got"; tail -5 "$TMP/make.out" | sed 's/^/     | /'; exit 1; }
[ -x "$P/bin/bcbench" ] && [ -f "$P/share/bcbench/profiles/limits/bc12.json" ] && [ -f "$P/share/man/man1/bcbench.1" ] &&
	ok "the prefix has the binary, the data and the man page" || bad "the prefix lacks something: $(ls -R "$P" | head -5)"
PATH=$P/bin:$PATH
export PATH

# In a scratch directory: a charger that sags, and a scenario behind it.
W=$TMP/work
mkdir -p "$W" && cd "$W" || exit 1
cat >my-charger.json <<'EOF'
{
	"name": "my-charger",
	"description": "The lab's wall adapter: 1 A on its label, 4.6 V at 0.9 A.",
	"compliant": false,
	"curve": [ [0.0, 5.10], [0.5, 5.00], [0.9, 4.60], [1.0, 4.20], [1.2, 2.00] ],
	"cable": "0.15ohm",
	"rated": "1A"
}
EOF
cat >my.scn <<'EOF'
name     "My wall adapter behind a DCP"
port     dcp
charger  my-charger.json
vbus     on
wait     5s
expect   dut.port == dcp
expect   avg(vbus, 250ms) >= 4.5V
EOF
expect_exit "bcbench run my.scn (the newcomer's own charger)" 0 bcbench run my.scn
expect_out "the summary names the scenario" "My wall adapter behind a DCP: completed"
[ -f reports/my/report.json ] && [ -f reports/my/report.html ] && ok "a report in ./reports/my/" || bad "no report in $W/reports/my: $(ls -R reports 2>&1 | head -3)"
has "the report names the newcomer's charger file" reports/my/report.json '"my-charger.json"'
has "the report read the installed limits" reports/my/report.json "\"$P/share/bcbench/profiles/limits/bc12.json\""
expect_exit "bcbench report text" 0 bcbench report text reports/my/report.json
expect_out "the text report has the verdicts" "dut.port == dcp"

# Mistake 1: a shipped profile's name misspelt.
sed 's/^charger .*/charger  dcp-waek/' my.scn >typo.scn
expect_exit "a misspelt profile name" 2 bcbench run -q typo.scn
expect_err "names the scenario line and the name" "typo.scn:3:1: error: "
expect_err "names the name" '"dcp-waek"'
expect_err "says where it looked: the installed data dir's chargers" "$P/share/bcbench/profiles/chargers/"

# Mistake 2: a data dir that is not there, from each place one can be given.
expect_exit "BCBENCH_DATADIR that is not there" 2 env BCBENCH_DATADIR="$TMP/bcbench-data" bcbench run -q my.scn
expect_err "names the dir and where it came from" "the data dir \"$TMP/bcbench-data\" (from BCBENCH_DATADIR) is not a directory"
expect_exit "--datadir that is not there" 2 bcbench run -q --datadir share/bcbench my.scn
expect_err "names --datadir" "the data dir \"share/bcbench\" (from --datadir) is not a directory"
printf '# my bench\ndatadir = data\n' >bench.conf
expect_exit "bench.conf's datadir that is not there" 2 bcbench run -q my.scn
expect_err "names bench.conf's line, relative to its folder" "the data dir \"./data\" (from bench.conf:2: datadir) is not a directory"
rm bench.conf
mkdir -p bin && cp "$P/bin/bcbench" bin/
expect_exit "a copied binary with no data beside it" 2 ./bin/bcbench run -q my.scn
expect_err "lists where it looked, in order" "none beside the bcbench binary (looked for profiles/ in $TMP/work/share/bcbench, $TMP/work/bin, $TMP/work, $TMP)"
expect_err "and how to give one" "give --datadir DIR"
expect_exit "the copied binary with --datadir" 0 ./bin/bcbench run -q --datadir "$P/share/bcbench" --out copied my.scn

# A test firmware by name: NAME.so in the firmware dir beside the binary.
expect_exit "--firmware cdp_as_dcp (a NAME from the installed firmware dir)" 0 bcbench run -q --firmware cdp_as_dcp --out fwname my.scn
has "the run loaded it from the prefix" fwname/report.json "\"$P/lib/bcbench/firmware/cdp_as_dcp.so\""
expect_exit "a misspelt firmware name" 2 bcbench run -q --firmware cdp_as_dcq my.scn
expect_err "says where it looked and how to change it" 'unknown firmware "cdp_as_dcq" (built in: probe, reference; nor cdp_as_dcq.so in the firmware dir: BCBENCH_FWDIR=DIR, else the one beside the bcbench binary; or a path to a .so)'

# Mistake 3: a relative path in the scenario that is not there, run from
# another directory: every place looked names the path.
sed 's/^charger .*/charger  my-chargr.json/' my.scn >path.scn
cd "$TMP" || exit 1
expect_exit "a relative path that is not there" 2 bcbench run -q work/path.scn
expect_err "names the scenario line and the path as written" "work/path.scn:3:1: error: cannot open charger profile \"my-chargr.json\" (looked for "
expect_err "says it looked under the data dir too" "$P/share/bcbench/my-chargr.json"

echo "newcomer: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
