#!/bin/sh
# check-layers.sh [ROOT]: every #include "DIR/..." under ROOT/bench (ROOT:
# the current directory) goes down the floors below, never up or
# sideways. A file may include its own folder and any folder on a lower
# floor; folders on one floor are peers and include neither each other nor
# anything above. Files directly in bench/ (main.c) are the folder "main".
# An include of a folder bench/ does not have (cjson/cJSON.h) is not ours.
# Prints FILE:LINE: the edge, for each one that is wrong, and exits 1;
# exits 0 silently when none is. Also: no file outside the Makefile's
# HW_SRC includes a hardware library's header (below). docs/design.md
# ("The floors") says why each folder stands where it does;
# tests/integration/layers.sh checks that table against this one.
#   --floors  print the table (floor, then its folders) and exit
set -u

# The floors, lowest first: the one table.
FLOORS='
0 core
1 capture firmware
2 report
3 checks
4 sim
5 hil
6 curve scenario
7 suite
8 cli
9 main
'

if [ "${1:-}" = --floors ]; then
	printf '%s\n' "$FLOORS" | sed '/^$/d'
	exit 0
fi
ROOT=${1:-.}
[ -d "$ROOT/bench" ] || { echo "check-layers: $ROOT/bench: no such folder" >&2; exit 2; }

cd "$ROOT" || exit 2
# The folders bench/ has, so an include of anything else is left alone.
dirs=$(for d in bench/*/; do d=${d%/}; [ -d "$d" ] && echo "${d##*/}"; done)
files=$(find bench -type f \( -name '*.c' -o -name '*.h' \) | LC_ALL=C sort)
[ -n "$files" ] || exit 0

# shellcheck disable=SC2086 # the file names have no blanks (bench/DIR/NAME)
awk -v floors="$FLOORS" -v dirs="$dirs" '
BEGIN {
	n = split(floors, row, "\n")
	for (i = 1; i <= n; i++) {
		m = split(row[i], w, " ")
		for (j = 2; j <= m; j++)
			floor[w[j]] = w[1]
	}
	n = split(dirs, d, "\n")
	for (i = 1; i <= n; i++)
		ours[d[i]] = 1
	bad = 0
}
FNR == 1 {
	p = FILENAME
	sub(/^bench\//, "", p)
	src = (index(p, "/") ? substr(p, 1, index(p, "/") - 1) : "main")
	if (!(src in floor) && !(src in told)) {
		printf "%s: folder %s has no floor in scripts/check-layers.sh\n", FILENAME, src
		told[src] = 1
		bad = 1
	}
}
/^[ \t]*#[ \t]*include[ \t]*"[^"\/]+\// {
	inc = $0
	sub(/^[^"]*"/, "", inc)
	sub(/".*$/, "", inc)
	dst = substr(inc, 1, index(inc, "/") - 1)
	if (dst == src || !(dst in ours))
		next
	if (!(dst in floor)) {
		printf "%s:%d: %s: folder %s has no floor in scripts/check-layers.sh\n", FILENAME, FNR, inc, dst
		bad = 1
	} else if (!(src in floor)) {
		next
	} else if (floor[dst] + 0 > floor[src] + 0) {
		printf "%s:%d: upward include: %s (floor %d) -> %s (floor %d): \"%s\"\n", \
			FILENAME, FNR, src, floor[src], dst, floor[dst], inc
		bad = 1
	} else if (floor[dst] == floor[src]) {
		printf "%s:%d: sideways include: %s -> %s, both on floor %d: \"%s\"\n", \
			FILENAME, FNR, src, dst, floor[src], inc
		bad = 1
	}
}
END { exit bad }
' $files
layers_rc=$?

# Hardware library headers (libsigrok, libftdi1, libserialport, libusb,
# hidapi) only in the Makefile's HW_SRC, the files bcbench-hw alone links
# (docs/design.md, "Two binaries"): one anywhere else is a call the link
# of bcbench would refuse. Skipped in a tree without the Makefile.
# TEMPORARY, until issue 21's writer and reader land: the capture's two
# srzip files and bench/capture/sr_shim.c still name libsigrok.h.
HW_TEMP='bench/capture/srzip_read.c bench/capture/srzip_write.c bench/capture/sr_shim.c'
hw_rc=0
if [ -f Makefile ]; then
	hw_src=$(sed -n '/^HW_SRC :=/,/[^\\]$/p' Makefile | sed 's/^HW_SRC :=//; s/\\$//' | tr -s ' \t' '\n\n' | sed '/^$/d')
	# shellcheck disable=SC2086 # the file names have no blanks
	awk -v allowed="$hw_src $HW_TEMP" '
	BEGIN { n = split(allowed, a, /[ \n]+/); for (i = 1; i <= n; i++) ok[a[i]] = 1; bad = 0 }
	/^[ \t]*#[ \t]*include[ \t]*<(libsigrok\/|libftdi1?\/|ftdi\.h|libserialport\.h|libusb(-1\.0)?\/?|hidapi)/ {
		if (FILENAME in ok)
			next
		inc = $0
		sub(/^[^<]*/, "", inc)
		sub(/>.*$/, ">", inc)
		printf "%s:%d: hardware library header outside the Makefile'"'"'s HW_SRC: %s\n", FILENAME, FNR, inc
		bad = 1
	}
	END { exit bad }
	' $files || hw_rc=1
fi
[ "$layers_rc" -eq 0 ] && [ "$hw_rc" -eq 0 ]
