#!/bin/sh
# Docs that run: every command, scenario and suite example in README.md,
# docs/*.md and the man page's EXAMPLES is run as a reader would, its exit
# code checked and the output a prompted block shows, so an example cannot
# go stale. tests/docs/extract.py finds them (the fence
# convention and the markers are in tests/docs/README.md).
#
# Each document's examples run in order in a fresh copy of the tree's data
# (bench.conf, profiles/, scripts/, fixtures/, docs/, tests/data/, ...),
# with build/bcbench, build/fw and build/emu there pointing at BCBENCH,
# FWDIR and EMUDIR, and `bcbench` on PATH: as a user who built the tree
# and stands in its root. A ```scn block is written there as a file and
# run with `bcbench run`, a ```suite block with `bcbench suite`. Each
# failure names the document and the line. Blocks marked not run are
# listed with their reasons.
# Run from the repository root; BCBENCH, FWDIR, EMUDIR: the build's.
set -u
BCBENCH=${BCBENCH:-build/bcbench}
FWDIR=${FWDIR:-build/fw}
EMUDIR=${EMUDIR:-build/emu}
DOCS=${DOCS:-"README.md docs/*.md docs/*.1"}
t0=$(date +%s)
TMP=$(mktemp -d /tmp/bcbench-docs.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
. tests/integration/lib.sh

# The examples are the same under the sanitizers; the plain pass runs them
# (make check passes BN_CHECK_SAN=$(SAN)).
plain_pass_only docs "make check without SAN runs the documents' examples"

abs() { case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
BCBENCH_ABS=$(abs "$BCBENCH")
[ -x "$BCBENCH_ABS" ] || { bad "no bcbench at $BCBENCH"; echo "docs: $pass passed, $fail failed"; exit 1; }

# `bcbench` on PATH, as after make install.
mkdir -p "$TMP/bin"
ln -s "$BCBENCH_ABS" "$TMP/bin/bcbench"

# The tree a reader stands in, made once and copied per document.
SEED=$TMP/seed
mkdir -p "$SEED/build" "$SEED/bench" "$SEED/tests"
for d in bench.conf profiles scripts fixtures docs README.md; do
	[ -e "$d" ] && cp -R "$d" "$SEED/"
done
cp -R bench/firmware "$SEED/bench/"
for d in data firmware; do cp -R "tests/$d" "$SEED/tests/"; done
ln -s "$BCBENCH_ABS" "$SEED/build/bcbench"
ln -s "$(abs "$FWDIR")" "$SEED/build/fw"
[ -d "$EMUDIR" ] && ln -s "$(abs "$EMUDIR")" "$SEED/build/emu"

# The test's own test: a document of wrong examples, each of which must
# fail at its line, and two right ones that must pass.
if [ -z "${DOCS_SELFTEST:-}" ]; then
	DOCS_SELFTEST=1 DOCS=tests/docs/bad-examples.md BCBENCH=$BCBENCH FWDIR=$FWDIR EMUDIR=$EMUDIR \
		sh tests/integration/docs.sh >"$TMP/self.out" 2>&1
	self_rc=$?
	self_fail=$(sed -n 's/^FAIL tests\/docs\/bad-examples.md:\([0-9]*\):.*/\1/p' "$TMP/self.out" | tr '\n' ' ')
	self_ok=$(sed -n 's/^ok   tests\/docs\/bad-examples.md:\([0-9]*\):.*/\1/p' "$TMP/self.out" | tr '\n' ' ')
	if [ "$self_rc" -ne 0 ] && [ "$self_fail" = "9 15 17 20 27 37 45 54 59 " ] && [ "$self_ok" = "45 68 71 " ]; then
		ok "tests/docs/bad-examples.md: every wrong example fails at its line, the right ones pass"
	else
		bad "tests/docs/bad-examples.md: exit $self_rc, failed at lines $self_fail(want 9 15 17 20 27 37 45 54 59), passed $self_ok(want 45 68 71)"
		sed 's/^/     | /' "$TMP/self.out" | tail -20
	fi
fi

# shellcheck disable=SC2086 # DOCS is a list of globs
/usr/bin/python3 tests/docs/extract.py "$TMP/x" $DOCS || { bad "tests/docs/extract.py failed"; exit 1; }

ncmd=0 nscn=0 nsuite=0 nskip=0 nshort=0 nother=0
doc_now=
TREE=
tab=$(printf '\t')

# run_one DOC LINE WANT WHAT CMD...: run in the document's tree, check the
# exit code, show the end of the output on a miss.
run_one() {
	ro_doc=$1 ro_line=$2 ro_want=$3 ro_what=$4
	shift 4
	ro_t0=$(date +%s%N)
	(cd "$TREE" && PATH="$TMP/bin:$PATH" timeout 50 "$@") >"$TMP/out" 2>&1 </dev/null
	ro_got=$?
	ro_ms=$((($(date +%s%N) - ro_t0) / 1000000))
	if [ "$ro_got" -eq "$ro_want" ]; then
		ok "$ro_doc:$ro_line: $ro_what (exit $ro_got, $ro_ms ms)"
		# What the document shows it printing (a prompted block).
		if [ -n "${ro_shown:-}" ] && [ -f "$ro_shown" ]; then
			if /usr/bin/python3 tests/docs/extract.py --check-output "$ro_shown" "$TMP/out" >"$TMP/missing"; then
				ok "$ro_doc:$ro_line: prints what the document shows"
			else
				bad "$ro_doc:$ro_line: the output the document shows is not what it prints; not printed:"
				sed 's/^/     | /' "$TMP/missing" | head -5
				echo "     | it printed:"
				sed 's/^/     | /' "$TMP/out" | tail -6
			fi
		fi
	else
		bad "$ro_doc:$ro_line: $ro_what: exit $ro_got, the document says $ro_want"
		sed 's/^/     | /' "$TMP/out" | tail -8
	fi
}

while IFS=$tab read -r kind doc line want arg; do
	# A document's first example to run gets it a fresh tree.
	case $kind in cmd | scn | suite) if [ "$doc" != "$doc_now" ]; then
		doc_now=$doc
		TREE=$TMP/tree-$(echo "$doc" | tr '/.' '__')
		cp -R "$SEED" "$TREE"
	fi ;; esac
	case $kind in
	cmd)
		ncmd=$((ncmd + 1))
		ro_shown=$arg.out
		run_one "$doc" "$line" "$want" "$(head -c 100 "$arg" | tr '\n' ' ' | sed 's/ *$//')" sh "$arg"
		ro_shown=
		;;
	scn)
		nscn=$((nscn + 1))
		cp "$arg" "$TREE/example-L$line.scn"
		run_one "$doc" "$line" "$want" "scenario (bcbench run example-L$line.scn)" \
			bcbench run -q -o "reports/example-L$line" "example-L$line.scn"
		;;
	suite)
		nsuite=$((nsuite + 1))
		cp "$arg" "$TREE/example-L$line.suite"
		run_one "$doc" "$line" "$want" "suite (bcbench suite example-L$line.suite)" \
			bcbench suite -q -j 2 -o "reports/example-L$line" "example-L$line.suite"
		;;
	skip)
		nskip=$((nskip + 1))
		echo "skip $doc:$line: not run: $arg"
		;;
	short)
		nshort=$((nshort + 1))
		echo "short $doc:$line: its suites run with --filter $want: $arg"
		;;
	other) nother=$((nother + 1)) ;;
	error) bad "$doc:$line: $arg" ;;
	*) bad "extract.py wrote an unknown kind \"$kind\"" ;;
	esac
done <"$TMP/x/manifest"

echo "docs: $ncmd commands, $nscn scenarios and $nsuite suites run; $nskip blocks marked not run, $nshort shortened; $nother blocks not examples (text, json, conf, ...); $(($(date +%s) - t0)) s"
echo "docs: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
