#!/bin/sh
# The Debian package: debian/ builds bcbench and bcbench-dev from a copy of
# the tree (dpkg-buildpackage -b, nocheck: make check tests the same code),
# the packages hold what a lab needs, and the unpacked package runs from
# outside the tree: the installed binary finds its data and firmware beside
# itself and runs the installed regression suite (filtered), writing its
# reports. Rebuilds the whole tree (~70 s of CPU, -j2), so not in the SAN
# pass (make check passes BN_CHECK_SAN=1 there). Run from the repository
# root by tests/integration/run.sh.
set -u
TMP=$(mktemp -d /tmp/bcbench-deb.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
. tests/integration/lib.sh
plain_pass_only deb "the package is built once per CI, by the plain pass"
# What the build needs missing is a failure, not a skip: a CI machine
# without it would pass having built nothing. No fakeroot needed:
# debian/control says Rules-Requires-Root: no.
for need in dpkg-buildpackage:dpkg-dev dh:debhelper git:git; do
	command -v "${need%%:*}" >/dev/null 2>&1 ||
		bad "no ${need%%:*}: apt-get install ${need#*:} (scripts/install-deps.sh installs it)"
done
if [ "$fail" -eq 0 ] && ! git rev-parse --git-dir >/dev/null 2>&1; then
	bad "not a git checkout: the package is built from the tree git tracks (run deb.sh in a clone of the repository)"
fi
if [ "$fail" -ne 0 ]; then
	echo "deb: $pass passed, $fail failed"
	exit 1
fi
start_s=$(date +%s)

# The tree git tracks, as it is now (uncommitted edits to tracked files
# too: git stash create makes a commit of them and touches nothing), so the
# build neither reads nor writes the working tree and its build/.
src=$(git stash create 2>/dev/null)
[ -n "$src" ] || src=HEAD
mkdir -p "$TMP/src/bcbench"
git archive "$src" | tar -x -C "$TMP/src/bcbench" || { bad "git archive $src"; exit 1; }

# -Pnocheck: also proves the package builds without cmocka (debian/rules
# then asks pkg-config without it). noautodbgsym: no -dbgsym package to
# build and throw away.
(cd "$TMP/src/bcbench" && DEB_BUILD_OPTIONS="nocheck noautodbgsym parallel=2" \
	dpkg-buildpackage -us -uc -b -Pnocheck) >"$TMP/build.log" 2>&1
got=$?
build_s=$(($(date +%s) - start_s))
if [ $got -eq 0 ]; then ok "dpkg-buildpackage -us -uc -b (${build_s} s)"; else
	bad "dpkg-buildpackage: exit $got"
	grep -E 'error|Error|dh_missing|unmet' "$TMP/build.log" | head -10 | sed 's/^/     | /'
	tail -5 "$TMP/build.log" | sed 's/^/     | /'
	echo "deb: $pass passed, $fail failed"
	exit 1
fi
[ ! -e "$TMP/src/bcbench/build/deb-regression" ] && ok "nocheck ran no tests" || bad "nocheck ran the tests"

DEB=$(ls "$TMP"/src/bcbench_*_*.deb 2>/dev/null | head -1)
DEV=$(ls "$TMP"/src/bcbench-dev_*_all.deb 2>/dev/null | head -1)
[ -f "$DEB" ] && ok "built ${DEB##*/}" || { bad "no bcbench_*.deb in $(ls "$TMP/src" | tr '\n' ' ')"; exit 1; }
[ -f "$DEV" ] && ok "built ${DEV##*/}" || { bad "no bcbench-dev_*_all.deb"; exit 1; }
# BN_DEB_OUT=DIR keeps the packages (a CI job's artifacts, lintian).
if [ -n "${BN_DEB_OUT:-}" ]; then
	mkdir -p "$BN_DEB_OUT" && cp "$DEB" "$DEV" "$BN_DEB_OUT"/ && ok "packages copied to $BN_DEB_OUT" || bad "cannot copy the packages to $BN_DEB_OUT"
fi

# What each package holds.
dpkg-deb -c "$DEB" | awk '{print $6}' | sed 's|^\./|/|' >"$TMP/deb.list"
dpkg-deb -c "$DEV" | awk '{print $6}' | sed 's|^\./|/|' >"$TMP/dev.list"
# in_list NAME LIST PATH: PATH is in the package's file list
in_list() {
	if grep -qxF -- "$3" "$2"; then ok "$1 holds $3"; else bad "$1 lacks $3"; fi
}
for f in /usr/bin/bcbench /usr/lib/bcbench/bcbench-hw /usr/share/man/man1/bcbench.1.gz \
	/usr/lib/udev/rules.d/60-bcbench.rules /usr/share/bash-completion/completions/bcbench \
	/usr/lib/bcbench/firmware/reference.so /usr/lib/bcbench/firmware/cdp_as_dcp.so \
	/usr/share/bcbench/profiles/limits/bc12.json /usr/share/bcbench/profiles/chargers/dcp-1a.json \
	/usr/share/bcbench/scripts/suites/regression.suite /usr/share/bcbench/scripts/scenarios/dcp.scn \
	/usr/share/bcbench/fixtures/bcbench-fixture-a.json /usr/share/doc/bcbench/copyright; do
	in_list bcbench "$TMP/deb.list" "$f"
done
n_fw=$(ls tests/firmware/*.c | wc -l)
n_fw_deb=$(grep -c '^/usr/lib/bcbench/firmware/.*\.so$' "$TMP/deb.list")
[ "$n_fw_deb" -eq $((n_fw + 1)) ] && ok "bcbench holds the reference and all $n_fw test firmware" ||
	bad "bcbench holds $n_fw_deb firmware .so, want $((n_fw + 1))"
n_prof=$(find profiles -type f | wc -l)
n_prof_deb=$(grep -c '^/usr/share/bcbench/profiles/.*[^/]$' "$TMP/deb.list")
[ "$n_prof_deb" -eq "$n_prof" ] && ok "bcbench holds all $n_prof profiles" || bad "bcbench holds $n_prof_deb profiles, want $n_prof"
grep -q 'installed-files' "$TMP/deb.list" && bad "bcbench ships make install's manifest (make uninstall would remove dpkg's files)" ||
	ok "no make-install manifest in the package"
grep -q '^/usr/include\|pkgconfig' "$TMP/deb.list" && bad "bcbench holds bcbench-dev's files" || ok "bcbench holds no header or .pc"
in_list bcbench-dev "$TMP/dev.list" /usr/include/bcfw/bcfw.h
in_list bcbench-dev "$TMP/dev.list" /usr/share/pkgconfig/bcfw.pc
deps=$(dpkg-deb -f "$DEB" Depends)
case $deps in
*libc6*libsigrok4*libusb-1.0-0*) ok "Depends from the linked libraries: $deps" ;;
*) bad "Depends: \"$deps\"" ;;
esac

# Unpacked into a scratch root and run from a scratch directory, with
# nothing pointing at the source tree.
ROOT=$TMP/root
U=$ROOT/usr
dpkg-deb -x "$DEB" "$ROOT" && dpkg-deb -x "$DEV" "$ROOT" && ok "dpkg-deb -x into a scratch root" || bad "dpkg-deb -x"
grep -q '^prefix=/usr$' "$U/share/pkgconfig/bcfw.pc" && ok "bcfw.pc says prefix=/usr" || bad "bcfw.pc: $(grep '^prefix' "$U/share/pkgconfig/bcfw.pc")"
TOP=$PWD
mkdir -p "$TMP/away" && cd "$TMP/away" || exit 1
unset BCBENCH_DATADIR BCBENCH_FWDIR
expect_exit "installed bcbench --version" 0 "$U/bin/bcbench" --version
expect_out "--version says the package's version" "$(sed -n '1s/.*(\(.*\)).*/\1/p' "$TOP/debian/changelog")"
expect_exit "installed regression suite, filtered, from outside the tree" 0 \
	"$U/bin/bcbench" suite -q -j 2 --filter 'dcp/*,sdp-*/*' --out suite --junit suite.xml \
	"$U/share/bcbench/scripts/suites/regression.suite"
[ -s suite/suite.json ] && [ -s suite/report.html ] && [ -s suite.xml ] && ok "the suite wrote suite.json, report.html and JUnit" ||
	bad "suite reports: $(ls suite 2>/dev/null | tr '\n' ' ')"
n_rep=$(find suite/entries -name report.json 2>/dev/null | wc -l)
[ "$n_rep" -ge 5 ] && ok "$n_rep entries wrote report.json" || bad "$n_rep entries wrote report.json"
grep -rqF "\"$U/lib/bcbench/firmware/" suite/entries 2>/dev/null && ok "the entries ran the packaged firmware" ||
	bad "no entry names $U/lib/bcbench/firmware"
grep -rqF "\"$U/share/bcbench/profiles/limits/bc12.json\"" suite/entries 2>/dev/null && ok "the entries read the packaged limits" ||
	bad "no entry names $U/share/bcbench/profiles/limits/bc12.json"
grep -q 'xfail' "$TMP/out" && ok "faulty firmware failed as the suite expects: $(head -1 "$TMP/out")" || bad "suite summary: $(head -1 "$TMP/out")"
# A suite that cannot pass: the exit code is a CI's to act on.
expect_exit "installed bcbench, a rule failing (exit 1)" 1 "$U/bin/bcbench" run -q \
	--firmware "$U/lib/bcbench/firmware/cdp_as_dcp.so" --out fail "$U/share/bcbench/scripts/scenarios/cdp.scn"
cd "$TOP" || exit 1

echo "deb: $(($(date +%s) - start_s)) s (build ${build_s} s)"
echo "deb: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
