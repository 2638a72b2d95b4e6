#!/bin/sh
# make install and make uninstall, and the installed tree used from outside
# the source: staged under DESTDIR with PREFIX=/usr (as a .deb build does),
# the installed binary run from a scratch directory finds its data and
# firmware beside itself (no path compiled in), a firmware built out of tree
# with pkg-config (bcfw.pc, bcfw.h) runs, the installed regression suite
# runs (a --filter of it: the whole takes ~30 s), the bash completion and
# the udev rules parse, and make uninstall leaves no file of its own.
# Uses the tree already built (BCBENCH's directory is make's BUILD): make
# install must rebuild nothing. Run from the repository root by
# tests/integration/run.sh.
set -u
BCBENCH=${BCBENCH:-build/bcbench}
FWDIR=${FWDIR:-build/fw}
TMP=$(mktemp -d /tmp/bcbench-install.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
. tests/integration/lib.sh
plain_pass_only install "make install is checked in the plain one"

# make install and uninstall are the same with sanitizers: once per CI
# (newcomer.sh runs the installed binary in the SAN pass too).
TOP=$PWD
BUILD=$(dirname "$BCBENCH")
SANARG=
# The tests below run the installed binary with none of the variables that
# would point it at the source tree.
unset BCBENCH_DATADIR BCBENCH_FWDIR
ROOT=$TMP/root
U=$ROOT/usr

# make_in NAME CMD...: run make quietly, output to $TMP/make.out
run_make() {
	make --no-print-directory -j1 BUILD="$BUILD" $SANARG "$@" >"$TMP/make.out" 2>&1
}

# Up to date first (a no-op after make check's build; a commit since the
# build changes the git describe compiled in): then install must add no
# compilation of its own.
run_make all || { bad "make all: $(tail -3 "$TMP/make.out")"; exit 1; }
run_make install DESTDIR="$ROOT" PREFIX=/usr
got=$?
[ $got -eq 0 ] && ok "make install DESTDIR=... PREFIX=/usr" || { bad "make install: exit $got"; sed 's/^/     | /' "$TMP/make.out" | tail -8; }
grep -E '^  (CC|LD|AR|FW) ' "$TMP/make.out" >"$TMP/rebuilt"
[ ! -s "$TMP/rebuilt" ] && ok "make install rebuilt nothing of the built tree" || bad "make install rebuilt: $(head -3 "$TMP/rebuilt" | tr '\n' ' ')"

# The file list: exactly what the README says install installs.
{
	echo /usr/bin/bcbench
	echo /usr/lib/bcbench/bcbench-hw
	echo /usr/share/man/man1/bcbench.1
	echo /usr/include/bcfw/bcfw.h
	echo /usr/share/pkgconfig/bcfw.pc
	echo /usr/share/bash-completion/completions/bcbench
	echo /usr/lib/udev/rules.d/60-bcbench.rules
	echo /usr/share/bcbench/installed-files
	for f in "$FWDIR"/*.so; do echo "/usr/lib/bcbench/firmware/${f##*/}"; done
	find profiles fixtures scripts/scenarios scripts/suites -type f | sed 's|^|/usr/share/bcbench/|'
} | sort >"$TMP/want.list"
(cd "$ROOT" && find . -type f -o -type l) | sed 's|^\.||' | sort >"$TMP/got.list"
if cmp -s "$TMP/want.list" "$TMP/got.list"; then ok "the installed files are the expected $(wc -l <"$TMP/got.list")"
else bad "installed files differ (< expected, > installed):"; diff "$TMP/want.list" "$TMP/got.list" | head -10 | sed 's/^/     | /'; fi
sort "$U/share/bcbench/installed-files" >"$TMP/manifest.list"
cmp -s "$TMP/manifest.list" "$TMP/got.list" && ok "the manifest lists every installed file" || bad "the manifest differs from the installed files"
[ -x "$U/bin/bcbench" ] && ok "the binary is executable" || bad "bin/bcbench is not executable"
grep -q '^prefix=/usr$' "$U/share/pkgconfig/bcfw.pc" && ok "bcfw.pc says prefix=/usr" || bad "bcfw.pc: $(head -8 "$U/share/pkgconfig/bcfw.pc" | grep prefix)"

# The completion and the udev rules as installed.
bash -n "$U/share/bash-completion/completions/bcbench" && ok "bash completion parses (bash -n)" || bad "bash completion does not parse"
got=$(PATH=$U/bin:$PATH bash -c '. "$1"; COMP_WORDS=(bcbench suite --fw); COMP_CWORD=2; _bcbench; echo "${COMPREPLY[*]}"' sh "$U/share/bash-completion/completions/bcbench")
[ "$got" = "--fwdir" ] && ok "bash completion completes an option from the binary's help" || bad "bash completion of \"bcbench suite --fw\": \"$got\""
got=$(PATH=$U/bin:$PATH bash -c '. "$1"; COMP_WORDS=(bcbench run --charger dcp-we); COMP_CWORD=3; _bcbench; printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " "' sh "$U/share/bash-completion/completions/bcbench")
[ "$got" = "dcp-weak dcp-weak-cap " ] && ok "bash completion lists the installed charger profiles" || bad "bash completion of --charger dcp-we: \"$got\""
expect_exit "installed udev rules pass the syntax check" 0 sh tests/integration/udev-syntax.sh "$U/lib/udev/rules.d/60-bcbench.rules"

# Outside the tree, with only installed files.
mkdir -p "$TMP/away" && cd "$TMP/away" || exit 1
expect_exit "installed bcbench run, from a scratch directory" 0 "$U/bin/bcbench" run -q --out run "$U/share/bcbench/scripts/scenarios/dcp.scn"
has "the run read the installed limits (data dir beside the binary)" run/report.json "\"$U/share/bcbench/profiles/limits/bc12.json\""
expect_exit "installed bcbench --version" 0 "$U/bin/bcbench" --version
# devices needs the hardware libraries: bcbench starts lib/bcbench/bcbench-hw
expect_exit "installed bcbench devices" 0 env LD_DEBUG=files "$U/bin/bcbench" devices
grep -q "file=libftdi1.so.2 .*needed by" "$TMP/err" && ok "it ran in the installed bcbench-hw" || bad "installed bcbench devices did not start bcbench-hw"
expect_exit "installed regression suite, filtered" 0 "$U/bin/bcbench" suite -q -j 2 --filter 'cdp/*,dcp-weak/*' --out suite "$U/share/bcbench/scripts/suites/regression.suite"
grep -rqF "\"$U/lib/bcbench/firmware/cdp_as_dcp.so\"" suite/entries 2>/dev/null && ok "the suite ran the installed test firmware" || bad "the suite did not run $U/lib/bcbench/firmware/cdp_as_dcp.so"
grep -q 'xfail' "$TMP/out" && ok "the suite's faulty firmware failed as expected: $(head -1 "$TMP/out")" || bad "suite summary: $(head -1 "$TMP/out")"

# A device team's firmware, built out of tree against the installed header.
cat >fw.c <<'EOF'
#include <bcfw.h>

struct ctx { const struct bcfw_hal *hal; };

static int init(void *c, const struct bcfw_hal *hal, const struct bcfw_decl *decl)
{
	(void)decl;
	((struct ctx *)c)->hal = hal;
	return 0;
}

/* Says it found an SDP and draws 100 mA, whatever the port. */
static void wake(void *c, uint32_t events)
{
	const struct bcfw_hal *h = ((struct ctx *)c)->hal;

	(void)events;
	h->telemetry_str(h->bench, "port", "sdp");
	h->set_input_limit_ma(h->bench, 100);
}

static const struct bcfw_firmware fw = { BCFW_ABI_VERSION, "outoftree", "1.0", sizeof(struct ctx), init, wake };

__attribute__((visibility("default"))) const struct bcfw_firmware *bcfw_entry(void) { return &fw; }
EOF
export PKG_CONFIG_PATH="$U/share/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$ROOT"
cflags=$(pkg-config --cflags bcfw | sed 's/[[:space:]]*$//')
[ "$cflags" = "-I$U/include/bcfw" ] && ok "pkg-config --cflags bcfw: $cflags" || bad "pkg-config --cflags bcfw: \"$cflags\""
[ "$(pkg-config --variable=firmwaredir bcfw)" = "$U/lib/bcbench/firmware" ] && ok "bcfw.pc names the firmware dir" || bad "firmwaredir: $(pkg-config --variable=firmwaredir bcfw)"
expect_exit "cc \$(pkg-config --cflags bcfw) -fPIC -shared -o fw.so fw.c" 0 cc $cflags -Wall -Werror -fPIC -shared -o fw.so fw.c
unset PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR
"$U/bin/bcbench" run -q --firmware ./fw.so --out ext "$U/share/bcbench/scripts/scenarios/dcp.scn" >"$TMP/out" 2>"$TMP/err"
got=$?
[ $got -eq 1 ] && ok "the out-of-tree firmware ran and failed the DCP scenario (exit 1)" || { bad "out-of-tree firmware run: exit $got"; tail -3 "$TMP/err"; }
has "the report names the out-of-tree firmware" ext/report.json '"outoftree"'
cd "$TOP" || exit 1

# A PREFIX compiled into nothing: another PREFIX rebuilds nothing, its
# bcfw.pc names it, and that staged tree works too.
run_make install DESTDIR="$TMP/root2" PREFIX=/opt/bcb
got=$?
[ $got -eq 0 ] && ok "make install PREFIX=/opt/bcb" || { bad "make install PREFIX=/opt/bcb: exit $got"; tail -5 "$TMP/make.out"; }
grep -E '^  (CC|LD|AR|FW|GEN) ' "$TMP/make.out" >"$TMP/rebuilt"
[ ! -s "$TMP/rebuilt" ] && ok "a new PREFIX rebuilds nothing" || bad "a new PREFIX rebuilt: $(head -3 "$TMP/rebuilt" | tr '\n' ' ')"
grep -q '^prefix=/opt/bcb$' "$TMP/root2/opt/bcb/share/pkgconfig/bcfw.pc" && ok "its bcfw.pc says prefix=/opt/bcb" ||
	bad "bcfw.pc after PREFIX=/opt/bcb: $(grep '^prefix' "$TMP/root2/opt/bcb/share/pkgconfig/bcfw.pc")"
(cd "$TMP" && "$TMP/root2/opt/bcb/bin/bcbench" run -q --out "$TMP/opt-run" "$TMP/root2/opt/bcb/share/bcbench/scripts/scenarios/float.scn") >"$TMP/out" 2>"$TMP/err"
[ $? -eq 0 ] && ok "the /opt/bcb tree runs from where it is staged" || { bad "/opt/bcb run: $(tail -2 "$TMP/err")"; }

# make uninstall removes what install put there, and nothing else.
mkdir -p "$U/share/bcbench/profiles/chargers" && echo '{}' >"$U/share/bcbench/profiles/chargers/lab-own.json"
run_make uninstall DESTDIR="$ROOT" PREFIX=/usr
got=$?
[ $got -eq 0 ] && ok "make uninstall" || { bad "make uninstall: exit $got"; tail -5 "$TMP/make.out"; }
left=$(cd "$ROOT" && find . -type f -o -type l)
[ "$left" = "./usr/share/bcbench/profiles/chargers/lab-own.json" ] && ok "make uninstall left only the lab's own file" || bad "after make uninstall: $(echo "$left" | head -5 | tr '\n' ' ')"
rm -f "$U/share/bcbench/profiles/chargers/lab-own.json"
run_make uninstall DESTDIR="$TMP/root2" PREFIX=/opt/bcb
[ -z "$(find "$TMP/root2" -type f)" ] && ok "make uninstall PREFIX=/opt/bcb leaves no file" || bad "left under root2: $(find "$TMP/root2" -type f | head -3)"
[ ! -d "$TMP/root2/opt/bcb/share/bcbench" ] && [ ! -d "$TMP/root2/opt/bcb/lib/bcbench" ] && ok "bcbench's own directories are gone" || bad "bcbench's directories remain"
run_make uninstall DESTDIR="$ROOT" PREFIX=/usr
[ $? -ne 0 ] && grep -q "no .*installed-files" "$TMP/make.out" && ok "make uninstall of nothing says so" || bad "a second make uninstall: $(tail -1 "$TMP/make.out")"

echo "install: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
