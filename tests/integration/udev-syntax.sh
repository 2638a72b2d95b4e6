#!/bin/sh
# udev-syntax.sh FILE.rules: check a udev rules file's syntax the way
# udevd's parser reads it (Debian 12's systemd 252 has no `udevadm verify`).
# Each rule is KEY{ATTR}OP"VALUE" pairs separated by commas; match keys take
# == or !=, assignment keys = += -= :=; every value is double-quoted; every
# GOTO has its LABEL. Prints FILE:LINE: error: ... and exits 1 on the first
# problem of each line.
set -u
[ $# -eq 1 ] || { echo "usage: $0 FILE.rules" >&2; exit 2; }
[ -r "$1" ] || { echo "$1: cannot read" >&2; exit 2; }
exec awk -v file="$1" '
function fail(msg) { printf "%s:%d: error: %s\n", file, NR, msg; bad = 1 }
BEGIN {
	split("ACTION DEVPATH KERNEL KERNELS NAME SYMLINK SUBSYSTEM SUBSYSTEMS DRIVER DRIVERS " \
	      "ATTR ATTRS SYSCTL ENV CONST TAG TAGS TEST PROGRAM RESULT DEVTYPE", m, " ")
	for (i in m) match_key[m[i]] = 1
	split("NAME SYMLINK OWNER GROUP MODE TAG ENV ATTR SYSCTL RUN IMPORT OPTIONS " \
	      "SECLABEL GOTO LABEL", a, " ")
	for (i in a) assign_key[a[i]] = 1
	split("ATTR ATTRS ENV SYSCTL TEST IMPORT RUN SECLABEL CONST", b, " ")
	for (i in b) takes_attr[b[i]] = 1
}
/^[ \t]*(#|$)/ { next }
{
	line = $0
	sub(/^[ \t]+/, "", line)
	if (line ~ /\\$/) { fail("line continuation: keep each rule on one line"); next }
	n = 0
	while (length(line) > 0) {
		if (!match(line, /^[A-Z_]+(\{[^}]*\})?/)) { fail("expected a KEY at \"" substr(line, 1, 20) "\""); next }
		tok = substr(line, 1, RLENGTH); line = substr(line, RLENGTH + 1)
		key = tok; attr = ""
		if (index(tok, "{")) { key = substr(tok, 1, index(tok, "{") - 1); attr = tok }
		sub(/^[ \t]+/, "", line)
		if (!match(line, /^(==|!=|\+=|-=|:=|=)/)) { fail("expected an operator after " tok); next }
		op = substr(line, 1, RLENGTH); line = substr(line, RLENGTH + 1)
		sub(/^[ \t]+/, "", line)
		if (!match(line, /^"[^"]*"/)) { fail("the value of " tok " must be double-quoted"); next }
		val = substr(line, 2, RLENGTH - 2); line = substr(line, RLENGTH + 1)
		if (op == "==" || op == "!=") {
			if (!(key in match_key)) { fail("\"" key "\" cannot be matched (" op ")"); next }
		} else if (!(key in assign_key)) { fail("\"" key "\" cannot be assigned (" op ")"); next }
		if (attr != "" && !(key in takes_attr)) { fail(key " takes no {attribute}"); next }
		if (attr == "" && (key == "ATTR" || key == "ATTRS" || key == "ENV")) { fail(key " needs {name}"); next }
		if (key == "GOTO") gotos[val] = NR
		if (key == "LABEL") labels[val] = 1
		if (key == "MODE" && val !~ /^0?[0-7][0-7][0-7]$/) { fail("MODE \"" val "\" is not octal"); next }
		n++
		sub(/^[ \t]+/, "", line)
		if (length(line) == 0) break
		if (substr(line, 1, 1) != ",") { fail("expected \",\" before \"" substr(line, 1, 20) "\""); next }
		line = substr(line, 2); sub(/^[ \t]+/, "", line)
		if (length(line) == 0) { fail("trailing comma"); next }
	}
}
END {
	for (g in gotos) if (!(g in labels)) {
		printf "%s:%d: error: GOTO \"%s\" has no LABEL\n", file, gotos[g], g; bad = 1 }
	exit bad
}' "$1"
