/* suite.json (schema "bcbench-suite/1", docs/suite-report.md) as a cJSON
 * document: a check that a document is one, and its totals and exit code
 * recomputed from its entries. The suite runner, merge and diff share
 * these. */
#ifndef BN_REPORT_SUITE_DOC_H
#define BN_REPORT_SUITE_DOC_H

#include <cjson/cJSON.h>
#include <stdbool.h>

#include "core/err.h"

#define BN_SUITE_SCHEMA "bcbench-suite/1"

/* Entry outcomes, in the order of "totals". */
enum bn_outcome {
	BN_OUTCOME_PASS,
	BN_OUTCOME_XFAIL,
	BN_OUTCOME_FAIL,
	BN_OUTCOME_XPASS,
	BN_OUTCOME_ERROR,
	BN_OUTCOME_COUNT
};

const char *bn_outcome_name(enum bn_outcome o);
/* "xfail" -> BN_OUTCOME_XFAIL; -1 for anything else. */
int bn_outcome_parse(const char *name);

/* doc is a suite document: "schema" is BN_SUITE_SCHEMA, "entries" an
 * array of objects each with a number "index" and a string "id"; an
 * "outcome", where present, one of the outcomes; "as_expected", where
 * present, a bool; "report", where present, an object or null.
 * BN_ERR_DATA "PATH: entries[3]: no \"id\"" otherwise. */
int bn_suite_doc_check(const cJSON *doc, const char *path, struct bn_err *err);

/* Replace (or add) doc's "totals" and "exit_code" with the ones its
 * entries give: counts of each outcome, of entries not as expected, of
 * the verdicts of every result of every embedded report; exit code 3 if
 * an entry with outcome error is not as expected, else 1 if any entry is
 * not as expected, else 0. Each entry needs "outcome" and "as_expected"
 * (BN_ERR_DATA naming the entry otherwise); doc is unchanged on error. */
int bn_suite_doc_totals(cJSON *doc, struct bn_err *err);

#endif
