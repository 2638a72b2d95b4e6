/* Two records compared (bcbench diff): a run's report.json against
 * another's, or a suite.json against another's. Each is taken apart into
 * rows keyed by (entry id, rule id) (a report is one entry, id ""), and
 * each row's change put in one category. The first six are regressions:
 * the exit code of bcbench diff is 1 when any is counted. */
#ifndef BN_REPORT_DIFF_H
#define BN_REPORT_DIFF_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdio.h>

#include "core/err.h"

enum bn_diff_cat {
	/* a result fails in NEW (fail, not a warning) that did not in BASE,
	 * or is absent from BASE */
	BN_DIFF_NEW_FAILURE,
	/* a result is error in NEW and not in BASE; or an entry's run did
	 * not complete in NEW (status not completed, suite outcome error)
	 * and did in BASE */
	BN_DIFF_NEW_ERROR,
	/* pass or fail in BASE, inconclusive in NEW: a rule that stopped
	 * judging can hide a failure */
	BN_DIFF_NEW_INCONCLUSIVE,
	/* a result or an entry in BASE missing from NEW (the results of an
	 * entry that no longer completes are counted as that one error) */
	BN_DIFF_GONE,
	/* pass in both, margin down by more than the given share of the
	 * limit's span (max - min; |bound| for a one-sided limit) */
	BN_DIFF_MARGIN,
	/* suites: an entry as expected in BASE (or absent) is not in NEW */
	BN_DIFF_UNEXPECTED,
	/* not regressions: fail in BASE, pass in NEW; an entry that
	 * completes again or is as expected again */
	BN_DIFF_FIXED,
	/* rows or entries only in NEW that neither fail nor error */
	BN_DIFF_ADDED,
	/* any other change of verdict (pass -> skipped, a new warning,
	 * error -> pass, ...) */
	BN_DIFF_CHANGED,
	BN_DIFF_CAT_COUNT
};

struct bn_diff_counts {
	int n[BN_DIFF_CAT_COUNT];
	int regressions;       /* sum of the regression categories */
	int margins_compared;  /* rows whose margins could be compared */
	int margins_no_span;   /* rows with margins but a limit with no span */
};

enum bn_diff_kind { BN_DIFF_REPORT, BN_DIFF_SUITE };

/* Section title: "new failures", "margins shrunk", ... */
const char *bn_diff_cat_name(enum bn_diff_cat c);
bool bn_diff_cat_is_regression(enum bn_diff_cat c);

/* Which record doc is, after checking it is a well-formed one:
 * BN_ERR_DATA "WHAT: ..." when it is neither (no or another schema,
 * results without an id or a known verdict, a suite entry without an
 * outcome, ...). */
int bn_diff_doc_kind(const cJSON *doc, const char *what, enum bn_diff_kind *kind,
		     struct bn_err *err);

/* Compare base with new_doc (both reports or both suites, else
 * BN_ERR_DATA). base_path and new_path are the files they were read from:
 * a suite entry's report is read from its path relative to its record,
 * when that entry is compared, and let go after (at most one report of
 * each side in memory); a report missing or not of the sha256 its record
 * names is BN_ERR_DATA naming it. margin_drop_pct in (0, 100] (else BN_ERR_ARG). When out is
 * not NULL, print each non-empty category as a section ("new failures
 * (2):" then one line per row naming entry, rule, verdicts, measured
 * values and limit). *counts is filled. */
int bn_diff_docs(const cJSON *base, const char *base_path, const cJSON *new_doc,
		 const char *new_path, double margin_drop_pct, FILE *out,
		 struct bn_diff_counts *counts, struct bn_err *err);

/* "diff: 2 regressions (1 new failure, 1 margin shrunk), 1 fixed\n" */
void bn_diff_print_totals(FILE *f, const struct bn_diff_counts *c);

#endif
