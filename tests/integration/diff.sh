#!/bin/sh
# CLI-level tests of bcbench diff and bcbench merge: exit codes, messages,
# files written. Run from the repository root; BCBENCH: the binary.
# Changed copies of a real report are made with sed only (no python in CI).
set -u
BCBENCH=${BCBENCH:-build/bcbench}
TMP=$(mktemp -d /tmp/bcbench-diff.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
. tests/integration/lib.sh

# changed NAME A B: sed did change the copy
changed() {
	if cmp -s "$2" "$3"; then bad "$1: the edit did not apply"; else ok "$1: edited"; fi
}

# A real report to compare.
expect_exit "run dcp" 0 "$BCBENCH" run -q --out "$TMP/r" scripts/scenarios/dcp.scn
R=$TMP/r/report.json

expect_exit "diff a report with itself" 0 "$BCBENCH" diff "$R" "$R"
expect_out "self-diff totals" "diff: 0 regressions, 0 fixed"

# One result's verdict flipped to fail: a new failure, named.
sed '/"id":[[:space:]]*"bc12.cur.idev_chg"/,/"verdict"/ s/"verdict":\([[:space:]]*\)"pass"/"verdict":\1"fail"/' \
	"$R" >"$TMP/fail.json"
changed "verdict flipped" "$R" "$TMP/fail.json"
expect_exit "diff with a new failure" 1 "$BCBENCH" diff "$R" "$TMP/fail.json"
expect_out "names the failing rule" "bc12.cur.idev_chg: pass -> fail"
expect_out "new failures section" "new failures (1):"
expect_out "totals count it" "diff: 1 regression (1 new failure), 0 fixed"
expect_exit "diff -q" 1 "$BCBENCH" diff -q "$R" "$TMP/fail.json"
[ "$(wc -l <"$TMP/out")" -eq 1 ] && ok "-q prints one line" || bad "-q printed $(wc -l <"$TMP/out") lines"
expect_exit "the other way round: fixed" 0 "$BCBENCH" diff "$TMP/fail.json" "$R"
expect_out "fixed is counted" "0 regressions, 1 fixed"

# expect.L9 (>= 0.9 A) margin cut to 10 mA: shrunk by far more than 10 %.
sed '/"id":[[:space:]]*"expect.L9"/,/"margin"/ s/"margin":\([[:space:]]*\)[-0-9.eE+]*/"margin":\10.01/' \
	"$R" >"$TMP/margin.json"
changed "margin shrunk" "$R" "$TMP/margin.json"
expect_exit "diff with a shrunk margin" 1 "$BCBENCH" diff "$R" "$TMP/margin.json"
expect_out "margins section" "margins shrunk (1):"
expect_out "names the rule and the margins" "expect.L9: pass -> pass, margin 240 mA -> 10 mA"

# A margin down by 40 mA, 4.4 % of the 0.9 A bound: under the default 10 %.
sed '/"id":[[:space:]]*"expect.L9"/,/"margin"/ s/"margin":\([[:space:]]*\)[-0-9.eE+]*/"margin":\10.2/' \
	"$R" >"$TMP/margin2.json"
changed "margin shrunk a little" "$R" "$TMP/margin2.json"
expect_exit "a small margin drop is not a regression" 0 "$BCBENCH" diff "$R" "$TMP/margin2.json"
expect_exit "--margin-drop 4 counts it" 1 "$BCBENCH" diff --margin-drop 4 "$R" "$TMP/margin2.json"
expect_exit "--margin-drop after the files" 0 "$BCBENCH" diff "$R" "$TMP/margin2.json" --margin-drop 5

# Bad input and usage: exit 2.
expect_exit "missing file" 2 "$BCBENCH" diff "$R" "$TMP/no-such.json"
expect_err "names the missing file" "no-such.json"
printf 'this is not json\n' >"$TMP/garbage.json"
expect_exit "not JSON" 2 "$BCBENCH" diff "$TMP/garbage.json" "$R"
expect_err "names the bad file" "garbage.json:1:"
printf '{"a": 1}\n' >"$TMP/other.json"
expect_exit "JSON but not a record" 2 "$BCBENCH" diff "$R" "$TMP/other.json"
expect_err "says what it is not" "not a bcbench report or suite record"
expect_exit "--margin-drop abc" 2 "$BCBENCH" diff --margin-drop abc "$R" "$R"
expect_err "says what --margin-drop wants" "--margin-drop \"abc\""
expect_exit "--margin-drop 0" 2 "$BCBENCH" diff --margin-drop 0 "$R" "$R"
expect_exit "--margin-drop 101" 2 "$BCBENCH" diff --margin-drop 101 "$R" "$R"
expect_exit "one file" 2 "$BCBENCH" diff "$R"
expect_exit "three files" 2 "$BCBENCH" diff "$R" "$R" "$R"
expect_exit "unknown option" 2 "$BCBENCH" diff --bogus "$R" "$R"
expect_exit "diff --help" 0 "$BCBENCH" diff --help
expect_out "help lists exit codes" "Exit codes"

# Shards of a suite run, one entry per shard, each naming its copy of the
# report by path and sha256: whole bcbench-suite/2 records, as
# `bcbench suite --shard K/2` writes them (docs/suite.schema.json).
# verdicts_of REPORT: its results' verdict counts, as suite.json's "rules"
verdicts_of() {
	sep=
	for v in pass fail inconclusive skipped error; do
		printf '%s"%s": %s' "$sep" $v "$(grep -c "\"verdict\":[[:space:]]*\"$v\"" "$1")"
		sep=', '
	done
}
# mk_shard FILE SHARD_INDEX OUTCOME AS_EXPECTED
mk_shard() {
	d=$(dirname "$1")/entries/000$2-e$2
	mkdir -p "$d"
	cp "$R" "$d/report.json"
	sha=$(sha256sum "$d/report.json" | cut -d' ' -f1)
	rules=$(verdicts_of "$d/report.json")
	case $3 in xfail | xpass) want=fail ex='"fail", "rules": ["bc12.cur.droop"]' ;; *) want=pass ex='"pass", "rules": []' ;; esac
	unexp=0 code=0 why=
	[ "$4" = false ] && why="\"$3, expected $want\""
	[ "$4" = false ] && unexp=1 code=1
	[ "$4" = false ] && [ "$3" = error ] && code=3
	{
		printf '{"schema": "bcbench-suite/2", "tool": {"name": "bcbench", "version": "0.1.0"},\n'
		printf '"suite": {"name": "it", "path": "it.suite", "sha256": "%s"},\n' \
			"0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0"
		printf '"bench": {"backend": "sim"}, "limits": {"path": "profiles/limits/bc12.json", "sha256": ""},\n'
		printf '"shard": {"index": %s, "count": 2}, "filter": null, "jobs": 1, "entries_in_suite": 2,\n' "$2"
		printf '"entries": [{"index": %s, "id": "e%s", "scenario": "scripts/scenarios/dcp.scn", "line": %s,\n' \
			"$2" "$2" "$2"
		printf '"params": {"port": null, "charger": null, "host": null, "dut": null, "conditions": null, "firmware": null},\n'
		printf '"expect": {"outcome": %s}, "outcome": "%s", "as_expected": %s, "unexpected": [%s],\n' \
			"$ex" "$3" "$4" "$why"
		printf '"exit_code": %s, "cause": null, "wall_s": 0.5, "dir": "entries/000%s-e%s",\n' \
			"$([ "$3" = error ] && echo 3 || echo $code)" "$2" "$2"
		printf '"report": {"path": "entries/000%s-e%s/report.json", "sha256": "%s"},\n' \
			"$2" "$2" "$sha"
		printf '"rules": {%s}}],\n' "$rules"
		printf '"timing": {"wall_s": 1.5, "entries_wall_s": 0.5},\n'
		printf '"totals": {"entries": 1, "pass": %s, "xfail": %s, "fail": %s, "xpass": %s, "error": %s,\n' \
			"$([ "$3" = pass ] && echo 1 || echo 0)" "$([ "$3" = xfail ] && echo 1 || echo 0)" \
			"$([ "$3" = fail ] && echo 1 || echo 0)" "$([ "$3" = xpass ] && echo 1 || echo 0)" \
			"$([ "$3" = error ] && echo 1 || echo 0)"
		printf '"unexpected": %s, "rules": {%s}},\n' "$unexp" "$rules"
		printf '"exit_code": %s}\n' "$code"
	} >"$1"
}
mk_shard "$TMP/s1/suite.json" 1 pass true
mk_shard "$TMP/s2/suite.json" 2 xfail true

expect_exit "merge two shards" 0 "$BCBENCH" merge -o "$TMP/m/suite.json" "$TMP/s1/suite.json" "$TMP/s2/suite.json"
expect_out "merge prints its totals" "2 entries: 1 pass, 1 xfail, 0 fail, 0 xpass, 0 error; 0 unexpected (exit 0)"
grep -q '"merged_from"' "$TMP/m/suite.json" 2>/dev/null && ok "merged record lists its shards" || bad "no merged_from"
grep -q '"dir":[[:space:]]*"../s2/entries/0002-e2"' "$TMP/m/suite.json" 2>/dev/null &&
	ok "entry dirs relative to the merged file" || bad "entry dir not rebased"
grep -q '"path":[[:space:]]*"../s2/entries/0002-e2/report.json"' "$TMP/m/suite.json" 2>/dev/null &&
	ok "report paths relative to the merged file" || bad "report path not rebased"
[ -z "$(find "$TMP/m" -name '.*')" ] && ok "no temporary file left" || bad "temporary file left"
expect_exit "merge a shard missing" 2 "$BCBENCH" merge -o "$TMP/m1.json" "$TMP/s1/suite.json"
expect_err "says which shard" "shard 2/2 is missing"
[ ! -e "$TMP/m1.json" ] && ok "a refused merge writes nothing" || bad "a refused merge wrote a file"
expect_exit "merge --partial" 0 "$BCBENCH" merge --partial -o "$TMP/m1.json" "$TMP/s1/suite.json"
expect_exit "merge a shard twice" 2 "$BCBENCH" merge -o "$TMP/m2.json" "$TMP/s1/suite.json" "$TMP/s1/suite.json"
expect_exit "merge a report" 2 "$BCBENCH" merge -o "$TMP/m2.json" "$R"
expect_exit "merge nothing" 2 "$BCBENCH" merge

mk_shard "$TMP/s2f/suite.json" 2 fail false
expect_exit "merge with an unexpected fail" 1 "$BCBENCH" merge -o "$TMP/mf/suite.json" "$TMP/s1/suite.json" "$TMP/s2f/suite.json"
mk_shard "$TMP/s2e/suite.json" 2 error false
expect_exit "merge with an unexpected error" 3 "$BCBENCH" merge -o "$TMP/me/suite.json" "$TMP/s1/suite.json" "$TMP/s2e/suite.json"

# Suites compared.
expect_exit "diff a suite with itself" 0 "$BCBENCH" diff "$TMP/m/suite.json" "$TMP/m/suite.json"
expect_exit "diff a suite whose entry turned unexpected" 1 "$BCBENCH" diff "$TMP/m/suite.json" "$TMP/mf/suite.json"
expect_out "names the entry" "[e2] xfail -> fail, not as expected"
expect_exit "diff a report against a suite" 2 "$BCBENCH" diff "$R" "$TMP/m/suite.json"
expect_err "says not to mix" "compare reports with reports"

# A suite record names its reports: one changed since, or gone, is bad
# input naming the file, for merge and diff alike.
mk_shard "$TMP/s2c/suite.json" 2 xfail true
printf ' ' >>"$TMP/s2c/entries/0002-e2/report.json"
expect_exit "merge with a report changed since" 2 "$BCBENCH" merge -o "$TMP/mc/suite.json" "$TMP/s1/suite.json" "$TMP/s2c/suite.json"
expect_err "names the changed report" "s2c/entries/0002-e2/report.json has sha256"
expect_exit "diff with a report changed since" 2 "$BCBENCH" diff "$TMP/m/suite.json" "$TMP/s2c/suite.json"
expect_err "diff names the changed report" "s2c/entries/0002-e2/report.json has sha256"
rm "$TMP/s2c/entries/0002-e2/report.json"
expect_exit "merge with a report gone" 2 "$BCBENCH" merge -o "$TMP/mc/suite.json" "$TMP/s1/suite.json" "$TMP/s2c/suite.json"
expect_err "names the missing report" "s2c/entries/0002-e2/report.json: cannot read it"
expect_exit "diff with a report gone" 2 "$BCBENCH" diff "$TMP/s2c/suite.json" "$TMP/m/suite.json"
expect_err "diff names the missing report" "s2c/entries/0002-e2/report.json: cannot read it"
[ ! -e "$TMP/mc/suite.json" ] && ok "a merge refused for a report writes nothing" || bad "merge wrote a record naming a missing report"
# The older format, every report embedded, is refused, saying so.
sed 's/bcbench-suite\/2/bcbench-suite\/1/' "$TMP/s1/suite.json" >"$TMP/v1.json"
expect_exit "diff a bcbench-suite/1 record" 2 "$BCBENCH" diff "$TMP/v1.json" "$TMP/v1.json"
expect_err "says it is the older format" "older suite record that embeds every entry's report"
expect_exit "merge a bcbench-suite/1 record" 2 "$BCBENCH" merge -o "$TMP/mv1.json" "$TMP/v1.json"

# Every record this script wrote, against its schema.
# (v1.json: the older format, made to be refused.)
# (fail.json: a verdict flipped by sed, its stored verdicts left as they were)
validate_records "$TMP" v1.json fail.json

echo "diff: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
