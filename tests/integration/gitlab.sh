#!/bin/sh
# The GitLab pipeline (scripts/ci/gitlab-ci.yml) run locally with
# gitlab-ci-local's shell executor on the simulated bench, in a temporary
# git repository holding this tree's files. The build job runs make all
# over the tree built already (it finds it up to date); every later job
# runs in a directory of its own (--shell-isolation), so the bench jobs
# have build/bcbench and build/fw only as the build job's artifacts. Then:
# four benches ending in 5 (the bench lock held by another process,
# --wait 0), 1 (a rule failed), 3 (the firmware crashed) and 0, and the
# report job after them; static, four benches and the report, passing;
# the report against the previous one as baseline. gitlab-ci-local does
# not execute retry, resource_group, tags or timeout: those are checked
# from the file (tests/gitlab/check_pipeline.py), with GitLab's retry rule
# applied to the exit codes the bench jobs ended with, and the file
# against GitLab's CI JSON schema as gitlab-ci-local ships it. Needs
# scripts/install-deps.sh (gitlab-ci-local in build/npm, rsync, git,
# python3-yaml). KEEP=1 keeps the temporary directory.
# Usage: BCBENCH=build/bcbench FWDIR=build/fw sh tests/integration/gitlab.sh
BCBENCH=${BCBENCH:-build/bcbench}
FWDIR=${FWDIR:-build/fw}
GCL=${GITLAB_CI_LOCAL:-$PWD/build/npm/node_modules/.bin/gitlab-ci-local}
PIPE=scripts/ci/gitlab-ci.yml
SRC=$PWD
TMP=$(mktemp -d "${TMPDIR:-/tmp}/bn-gitlab.XXXXXX")
holder=""
cleanup() {
	[ -n "$holder" ] && kill "$holder" 2>/dev/null
	[ -n "${KEEP:-}" ] || rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
. tests/integration/lib.sh
plain_pass_only gitlab "the pipeline builds and runs the plain tree"
t0=$(date +%s)
PY=/usr/bin/python3
CHECK="$PY $SRC/tests/gitlab/check_pipeline.py"

# The pipeline builds the tree without sanitizers: the SAN pass has
# nothing of its own to add here.
if [ ! -x "$GCL" ]; then
	bad "gitlab-ci-local is not installed at $GCL (scripts/install-deps.sh installs it)"
	echo "gitlab: $pass passed, $fail failed"
	exit 1
fi
git rev-parse --git-dir >/dev/null 2>&1 || bad "not a git checkout: gitlab.sh copies the tree's files as git lists them"
for tool in git rsync node; do
	command -v $tool >/dev/null 2>&1 || bad "$tool is missing (scripts/install-deps.sh installs it)"
done
$PY -c 'import yaml, jsonschema' 2>/dev/null || bad "python3-yaml or python3-jsonschema is missing (scripts/install-deps.sh)"
[ "$fail" -eq 0 ] || { echo "gitlab: $pass passed, $fail failed"; exit 1; }

# ---- What gitlab-ci-local does not run, from the file ----
# GitLab's CI schema as gitlab-ci-local ships it (src/schema/schema.js,
# fetched from gitlab-org/gitlab's app/assets/javascripts/editor/schema/ci.json).
SCHEMA_JS=$(dirname "$(readlink -f "$GCL")")/schema/schema.js
node --input-type=module -e "import { schema } from '$SCHEMA_JS'; process.stdout.write(JSON.stringify(schema));" \
	>"$TMP/ci.schema.json" 2>"$TMP/err" || bad "GitLab's CI schema not found in gitlab-ci-local ($SCHEMA_JS): $(head -2 "$TMP/err")"
$CHECK schema "$TMP/ci.schema.json" "$PIPE" >"$TMP/out" 2>&1
cat "$TMP/out"
pass=$((pass + $(grep -c '^ok ' "$TMP/out"))); fail=$((fail + $(grep -c '^FAIL' "$TMP/out")))
# A key the schema refuses is caught (the schema is not vacuous).
sed 's/^  resource_group: bench-\$BENCH/  resource_group: [bench]/' "$PIPE" >"$TMP/bad-rg.yml"
$CHECK schema "$TMP/ci.schema.json" "$TMP/bad-rg.yml" >"$TMP/out" 2>&1 &&
	bad "the schema took a resource_group that is a list" || ok "the schema refuses a resource_group that is a list"

$CHECK keys "$PIPE" >"$TMP/out" 2>&1
cat "$TMP/out"
pass=$((pass + $(grep -c '^ok ' "$TMP/out"))); fail=$((fail + $(grep -c '^FAIL' "$TMP/out")))
# retry: when [script_failure] with exit_codes [5] would retry every
# failed script (GitLab retries on either): the check refuses it.
sed 's/^    when: \[runner_system_failure\]/    when: [script_failure]/' "$PIPE" >"$TMP/bad-retry.yml"
cmp -s "$PIPE" "$TMP/bad-retry.yml" && bad "no retry:when line to change in $PIPE"
$CHECK keys "$TMP/bad-retry.yml" >"$TMP/out" 2>&1
grep -q "^FAIL bench: GitLab's retry rule retries exit 5 and no other exit code: it retries \[1, 2, 3, 4, 5, 6, 7, 129, 130, 143\]" "$TMP/out" &&
	ok "retry when: [script_failure] is refused: GitLab would retry exit 1, 2, 3 too" ||
	bad "retry when: [script_failure] not refused: $(grep retry "$TMP/out")"

# ---- A git repository of this tree, the built tree beside ----
# This tree's files, committed or not yet.
T=$TMP/tree
mkdir -p "$T"
git ls-files -z -c -o --exclude-standard | tar --null -T - --ignore-failed-read -cf - 2>/dev/null | tar -C "$T" -xf -
BUILD=$(dirname "$BCBENCH")
mkdir -p "$T/build"
for f in obj gen libbcbench.a bcbench; do [ -e "$BUILD/$f" ] && cp -a "$BUILD/$f" "$T/build/"; done
cp -a "$FWDIR" "$T/build/fw"
# Tagged with this tree's git describe, so the build job's make all
# compiles the same version.h and finds the copied build up to date.
describe=$(git describe --always --dirty --tags 2>/dev/null || echo unknown)
(
	cd "$T" && git init -q -b main && git add -A && git -c user.name=bcbench-test -c user.email=test@bcbench.invalid \
		commit -qm "tree under test" && git remote add origin https://gitlab.example.invalid/lab/bcbench.git &&
		git update-ref refs/remotes/origin/main HEAD && git symbolic-ref refs/remotes/origin/HEAD refs/remotes/origin/main &&
		git tag "$describe" && git repack -a -d -q && git prune
) >"$TMP/git.out" 2>&1 || bad "temporary repository: $(tail -3 "$TMP/git.out")"

# gcl LOG ARGS...: gitlab-ci-local in the temporary repository, its
# output in $TMP/LOG; returns its exit status.
gcl() {
	log=$1
	shift
	(cd "$T" && "$GCL" --file "$PIPE" --color=false --no-artifacts-to-source "$@") >"$TMP/$log" 2>&1
}
# job_exit LOG JOB: the exit code gitlab-ci-local reported for JOB (0 for
# PASS), or "none".
job_exit() {
	if grep -qF " PASS  $2" "$TMP/$1"; then echo 0; return; fi
	code=$(grep -F "$2 " "$TMP/$1" | sed -n 's/.*finished in .* FAIL \([0-9]*\).*/\1/p' | tail -1)
	echo "${code:-none}"
}
show() { sed 's/^/     | /' "$TMP/$1" | grep -v '^     | \(build\|static\|bench\|report\).* > ' | tail -${2:-12}; }

# ---- build: make all, its artifacts exported ----
gcl build.out build
if [ "$(job_exit build.out build)" = 0 ]; then ok "build job passes (make all)"; else
	bad "build job: exit $(job_exit build.out build); the rest needs its artifacts"
	show build.out
	echo "gitlab: $pass passed, $fail failed"
	exit 1
fi
A=$T/.gitlab-ci-local/artifacts
[ -x "$A/build/build/bcbench" ] && [ -x "$A/build/build/bcbench-hw" ] && [ -f "$A/build/build/fw/reference.so" ] && [ -f "$A/build/build/fw/crash_segv.so" ] &&
	ok "build's artifacts hold build/bcbench, build/bcbench-hw and build/fw" || bad "build's artifacts: $(cd "$A" 2>/dev/null && find . -maxdepth 3 | head -5)"
# From here on the bench jobs find the binary and the firmware only in
# the build job's artifacts.
rm -rf "$T/build"
# The job's make all only checked the tree.
grep -q 'build *> .*  CC ' "$TMP/build.out" && echo "     (the build job compiled: the copied build was older than the tree)"

# ---- exit codes a bench job ends with, and what GitLab retries ----
# bench-01's lock is held by another process and the job does not wait
# (a bench fault, 5); bench-02 fails a rule it should pass (1); bench-03's
# firmware crashes (3); bench-04's runner names a bench.conf that is not
# there (2), and its job leaves no suite.json. The report job runs all the
# same (when: always): it merges the three shards there are, no baseline.
mkdir -p "$TMP/conf"
for b in bench-01 bench-02 bench-03 bench-04; do
	mkdir -p "$TMP/lock-$b"
	[ $b = bench-04 ] || printf 'lock = yes\nlock_dir = %s\n' "$TMP/lock-$b" >"$TMP/conf/$b.conf"
done
# The lock file bcbench takes for bench-01's bench.conf (its name carries
# a hash of the conf's absolute path: bench/hil/lock.c), as bcbench itself
# names it: a run on that conf, stopped once the file names the run.
"$BCBENCH" run -q --no-html --conf "$TMP/conf/bench-01.conf" --out "$TMP/lock-run" \
	tests/data/scenarios/long.scn >"$TMP/lock-run.out" 2>&1 &
holder=$!
LOCK=""
i=0
while [ $i -lt 100 ] && [ -z "$LOCK" ]; do
	LOCK=$(grep -l "^pid $holder " "$TMP/lock-bench-01"/bcbench-bench-*.lock 2>/dev/null | head -1)
	[ -n "$LOCK" ] || sleep 0.1
	i=$((i + 1))
done
kill -INT "$holder" 2>/dev/null
wait "$holder" 2>/dev/null
[ -n "$LOCK" ] && ok "bcbench's lock for bench-01's bench.conf: $(basename "$LOCK")" ||
	bad "a run on $TMP/conf/bench-01.conf took no lock bcbench-bench-*.lock in $TMP/lock-bench-01 naming it: $(ls "$TMP/lock-bench-01"; tail -2 "$TMP/lock-run.out")"
# Held by one process that sleeps past the jobs below (flock(1) would
# leave it held by its child), and says who it is as bcbench's holder does.
$PY -c 'import fcntl, os, sys, time
f = open(sys.argv[1], "r+")
fcntl.flock(f, fcntl.LOCK_EX)
f.truncate(0); f.write("pid %d (gitlab.sh: another process on bench-01)\n" % os.getpid()); f.flush()
time.sleep(120)' "${LOCK:-$TMP/lock-bench-01/none}" >/dev/null 2>&1 &
holder=$!
i=0
while [ $i -lt 50 ] && ! grep -qs "^pid $holder " "${LOCK:-$TMP/lock-bench-01/none}"; do sleep 0.1; i=$((i + 1)); done
grep -qs "^pid $holder " "${LOCK:-$TMP/lock-bench-01/none}" && ! flock -n "$LOCK" true &&
	ok "bench-01's lock is held by pid $holder" || bad "bench-01's lock ${LOCK:-(none)} is not held by pid $holder"
gcl faults.out --shell-isolation \
	--variable "BENCH_CONF=$TMP/conf/\$BENCH.conf" --variable SUITE=tests/gitlab/faults.suite --variable BENCH_LOCK_WAIT_S=0 \
	--variable "BASELINE_URL=file://$TMP/no-baseline.zip" \
	'bench: [bench-01]' 'bench: [bench-02]' 'bench: [bench-03]' 'bench: [bench-04]' report
hpid=$holder
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null
holder=""
printf 'lock = yes\nlock_dir = %s\n' "$TMP/lock-bench-04" >"$TMP/conf/bench-04.conf"
codes=""
for spec in "1 5 the bench lock held by another process: a bench fault" "2 1 a rule failed" "3 3 the firmware crashed" "4 2 its bench.conf is not there: bad input"; do
	set -- $spec
	k=$1 want=$2
	shift 2
	code=$(job_exit faults.out "bench: [bench-0$k]")
	codes="$codes $code"
	[ "$code" = "$want" ] && ok "bench-0$k ($*) exits $code" || { bad "bench-0$k ($*): exit $code, want $want"; grep -F "bench: [bench-0$k]" "$TMP/faults.out" | tail -4 | sed 's/^/     | /'; }
done
# shellcheck disable=SC2086
$CHECK retried "$PIPE" $codes >"$TMP/out" 2>&1
[ "$(cat "$TMP/out")" = "5: retried; 1: not retried; 3: not retried; 2: not retried" ] &&
	ok "GitLab's retry rule on these exits: 5 retried, 1, 3 and 2 not" || bad "retry decisions: $(cat "$TMP/out")"
grep -F 'bench: [bench-01]' "$TMP/faults.out" | grep -qF "in use by pid $hpid (gitlab.sh: another process on bench-01); lock $LOCK" &&
	ok "bench-01 says its bench is in use by the holder, naming the lock it held" ||
	bad "bench-01 does not say its bench is in use by pid $hpid, lock ${LOCK:-(none)}: $(grep -F 'bench: [bench-01]' "$TMP/faults.out" | grep -v ' > ' | tail -3; grep -F 'bench: [bench-01]' "$TMP/faults.out" | grep 'in use' | tail -1)"
f1=$(find "$A" -maxdepth 4 -path "*/reports/shard-1/suite.json" | head -1)
[ -n "$f1" ] && grep -q '"bench-fault"' "$f1" && ok "bench-01 kept its record (when: always): causes \"bench-fault\"" ||
	bad "bench-01's artifacts: ${f1:-no suite.json}$( [ -n "$f1" ] && grep -o '"cause":[^,]*' "$f1" | sort -u | tr '\n' ' ')"
code=$(job_exit faults.out report)
if [ "$code" = 0 ] && grep -q "report *> merge: 3 files -> reports/suite.json: 3 entries: .*(exit 3)" "$TMP/faults.out" &&
	grep -q "report *> report: no baseline from main" "$TMP/faults.out"; then
	ok "report after failed bench jobs: merged the 3 shards there are (--partial; exit 3, the most urgent of 5, 1, 3); no baseline: says so, passes"
else
	bad "report after failed bench jobs: exit $code"; show faults.out
fi

# ---- static, four benches (one shard each), report: all pass ----
# bench-01 has its lock again: what a retry of the job above gets.
FILTER='aca-a/reference,cdp/reference,cdp/cdp_as_dcp,dcp/reference,dcp/crash_segv,dcp/dcp_drop_dp,float/*'
n_filter=$("$BCBENCH" suite scripts/suites/regression.suite --list --filter "$FILTER" | grep -c '^ *[0-9][0-9]*  ')
gcl pipeline.out --shell-isolation --json-schema-validation=false \
	--variable "BENCH_CONF=$TMP/conf/\$BENCH.conf" --variable "SUITE_FILTER=$FILTER" \
	--variable "BASELINE_URL=file://$TMP/no-baseline.zip" \
	static 'bench: [bench-01]' 'bench: [bench-02]' 'bench: [bench-03]' 'bench: [bench-04]' report
for job in static 'bench: [bench-01]' 'bench: [bench-02]' 'bench: [bench-03]' 'bench: [bench-04]' report; do
	code=$(job_exit pipeline.out "$job")
	[ "$code" = 0 ] && ok "$job job passes" || { bad "$job job: exit $code"; show pipeline.out; }
done
SHARDS=""
for k in 1 2 3 4; do
	d=$(find "$A" -maxdepth 4 -path "*/reports/shard-$k/suite.json" | head -1)
	d=${d%/suite.json}
	[ -n "$d" ] && [ -f "$d/report.html" ] && ok "bench-0$k's artifacts: reports/shard-$k/suite.json and report.html" ||
		{ bad "bench-0$k's artifacts lack reports/shard-$k/suite.json"; continue; }
	$PY -c 'import sys, xml.etree.ElementTree as E; r = E.parse(sys.argv[1]).getroot(); sys.exit(not (r.tag == "testsuites" and len(r) > 0))' "$d/junit.xml" 2>"$TMP/err" &&
		ok "bench-0$k's junit.xml parses ($(grep -c '<testcase' "$d/junit.xml") testcases)" || bad "bench-0$k's junit.xml: $(tail -1 "$TMP/err")"
	$PY -c 'import json,sys; s=json.load(open(sys.argv[1]))["shard"]; sys.exit(not (s["index"]==int(sys.argv[2]) and s["count"]==4))' "$d/suite.json" "$k" &&
		ok "bench-0$k ran shard $k/4" || bad "bench-0$k's suite.json shard: $(tr -d '\n\t' <"$d/suite.json" | grep -o '"shard":[^}]*')"
	SHARDS="$SHARDS $d/suite.json"
done
R=$A/report/reports
if [ -f "$R/suite.json" ]; then
	n=$($PY -c 'import json,sys; s=json.load(open(sys.argv[1])); print(len(s["entries"]), s["exit_code"], s["shard"])' "$R/suite.json")
	[ "$n" = "$n_filter 0 None" ] && ok "report merged the 4 shards: $n_filter entries, exit 0" || bad "report's merged suite.json: entries, exit, shard = $n (want $n_filter 0 None)"
	[ -f "$R/report.html" ] && ok "report's artifacts: reports/report.html" || bad "report's artifacts lack reports/report.html"
	[ "$(find "$R" -path '*/entries/*/report.json' | wc -l)" -eq "$n_filter" ] && ok "report's artifacts keep every entry's report.json (the next baseline)" ||
		bad "report's artifacts: $(find "$R" -name report.json | wc -l) report.json, want $n_filter"
else
	bad "report's artifacts lack reports/suite.json"
fi
validate_records "$A"

# ---- report against a baseline: the last one's artifacts, as GitLab zips them ----
(cd "$(dirname "$R")" && zip -qr "$TMP/baseline.zip" reports) || bad "zip of the baseline"
gcl baseline.out --shell-isolation --json-schema-validation=false --variable "BASELINE_URL=file://$TMP/baseline.zip" report
code=$(job_exit baseline.out report)
if [ "$code" = 0 ] && grep -q 'report *> diff: 0 regressions' "$TMP/baseline.out"; then
	ok "report with a baseline: bcbench diff ran, 0 regressions (exit 0)"
else
	bad "report with a baseline: exit $code"; show baseline.out
fi

# ---- timeout: a literal that covers the suite ----
# shellcheck disable=SC2086
$CHECK timeout "$PIPE" "$BCBENCH" $SHARDS >"$TMP/out" 2>&1
cat "$TMP/out"
pass=$((pass + $(grep -c '^ok ' "$TMP/out"))); fail=$((fail + $(grep -c '^FAIL' "$TMP/out")))
sed '/^bench:/,/^[a-z]/ s/^  timeout: .*/  timeout: 2h/' "$PIPE" >"$TMP/short.yml"
$CHECK timeout "$TMP/short.yml" "$BCBENCH" >"$TMP/out" 2>&1 &&
	bad "a 2 h bench timeout was taken for the regression suite on 4 benches" || ok "a 2 h bench timeout is refused: $(grep -o 'longest.*= [0-9]* s' "$TMP/out")"

echo "gitlab: $pass passed, $fail failed ($(($(date +%s) - t0)) s)"
[ "$fail" -eq 0 ]
