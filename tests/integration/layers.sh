#!/bin/sh
# scripts/check-layers.sh: the tree keeps to its floors, and the check
# does fail, naming file, line and edge, on a copy of bench/ given one
# upward include, one sideways, one in a folder with no floor. Run from
# the repository root; needs no build.
set -u
TMP=$(mktemp -d /tmp/bcbench-layers.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
. tests/integration/lib.sh
CHECK=scripts/check-layers.sh

sh "$CHECK" >"$TMP/out" 2>&1
rc=$?
if [ $rc -eq 0 ] && [ ! -s "$TMP/out" ]; then ok "bench/ includes go down the floors only"; else
	bad "check-layers on the tree: exit $rc"; sed 's/^/     | /' "$TMP/out"; fi
tree_clean=$rc

# The floors docs/design.md explains are the ones the script enforces.
awk -F'|' '/^\| *[0-9]+ *\|/ { f = $2; w = $3; gsub(/[ `]/, "", f); gsub(/[`,]/, " ", w);
	gsub(/  +/, " ", w); sub(/^ /, "", w); sub(/ $/, "", w); print f " " w }' docs/design.md >"$TMP/doc"
sh "$CHECK" --floors >"$TMP/table"
if [ -s "$TMP/doc" ] && cmp -s "$TMP/doc" "$TMP/table"; then ok "docs/design.md's floors are the script's"; else
	bad "docs/design.md's floors differ from scripts/check-layers.sh's"; diff "$TMP/doc" "$TMP/table" | sed 's/^/     | /'; fi

# A copy of a tree that breaks the floors would carry its edges into
# every case below: they wait for a clean tree.
if [ "$tree_clean" -ne 0 ]; then
	echo "layers: $pass passed, $fail failed (the copied-tree cases not run)"
	exit 1
fi

# check_tree NAME WANT: the check on $TMP/t fails (exit 1) and prints WANT
# as its only line
check_tree() {
	sh "$CHECK" "$TMP/t" >"$TMP/out" 2>&1
	rc=$?
	if [ $rc -eq 1 ] && [ "$(cat "$TMP/out")" = "$2" ]; then ok "$1"; else
		bad "$1: exit $rc, want 1 and \"$2\""; sed 's/^/     | /' "$TMP/out" | head -5; fi
}
# One copy of bench/; each case edits one file of it (edit FILE SEDCMD) and
# puts it back (restore) after.
mkdir "$TMP/t" && cp -R bench "$TMP/t/"
edit() { cp "$TMP/t/$1" "$TMP/saved" && sed -i "$2" "$TMP/t/$1" && edited=$1; }
restore() { cp "$TMP/saved" "$TMP/t/$edited"; }

# sim/world.h (floor 4) asks for the hil's backend (floor 5) on line 2;
# lines 3 and 4, one floor down and a header from outside bench/, are
# fine: the upward one is the only line.
edit bench/sim/world.h '1a #include "hil/backend.h"\n#include "core/err.h"\n#include "cjson/cJSON.h"'
check_tree "an upward include is named with its file, line and floors, alone" \
	'bench/sim/world.h:2: upward include: sim (floor 4) -> hil (floor 5): "hil/backend.h"'
restore

# The ground floor reaching for the checks, written loosely.
edit bench/core/err.c '1a #  include   "checks/check.h"   /* the rules */'
check_tree "an include spelled with blanks is seen" \
	'bench/core/err.c:2: upward include: core (floor 0) -> checks (floor 3): "checks/check.h"'
restore

# Two peers of floor 1 are not stacked on each other.
edit bench/capture/events.c '1a #include "firmware/bcfw.h"'
check_tree "a sideways include between peers is named" \
	'bench/capture/events.c:2: sideways include: capture -> firmware, both on floor 1: "firmware/bcfw.h"'
restore

# A folder the table does not know has to be given a floor first.
mkdir "$TMP/t/bench/newroom"
printf '#include "core/err.h"\n' >"$TMP/t/bench/newroom/a.c"
check_tree "a folder without a floor is named" \
	'bench/newroom/a.c: folder newroom has no floor in scripts/check-layers.sh'
rm -r "$TMP/t/bench/newroom"

# A hardware library's header outside the Makefile's HW_SRC: bcbench,
# which links none of them, would not link (docs/design.md, "Two
# binaries").
cp Makefile "$TMP/t/"
edit bench/scenario/runner.c '1a #include <libserialport.h>'
check_tree "a hardware library header outside HW_SRC is named" \
	"bench/scenario/runner.c:2: hardware library header outside the Makefile's HW_SRC: <libserialport.h>"
restore

echo "layers: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
