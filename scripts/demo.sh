#!/bin/sh
# make demo: the regression suite on the simulated bench (every scenario
# by its ports and chargers, the reference firmware and every faulty one),
# two entries at a time, with suite.json, JUnit and report.html in reports/. Exit 0 when
# every entry did what the suite expects: the reference passes, each
# faulty firmware fails exactly its rules (xfail) or ends in error where
# the suite says so (xerror).
set -u
BCBENCH=${1:-build/bcbench}
FWDIR=${2:-build/fw}
OUT=${OUT:-reports}
"$BCBENCH" suite -j 2 --fwdir "$FWDIR" --out "$OUT/regression" --junit "$OUT/regression/junit.xml" \
	scripts/suites/regression.suite
rc=$?
echo
echo "demo: open $OUT/regression/report.html in a browser: the entries by rule, each linking to"
echo "      its own page (report.html beside each entry's report.json)"
exit $rc
