/* suite.json (schema "bcbench-suite/2", docs/suite-report.md) as a cJSON
 * document: a check that a document is one, its totals and exit code
 * recomputed from its entries, and the entries' reports, which suite.json
 * names by path and sha256 instead of holding them (a suite's memory must
 * not grow with its entries: each report is read when needed, one at a
 * time). The suite runner, merge, diff and JUnit share these. */
#ifndef BN_REPORT_SUITE_DOC_H
#define BN_REPORT_SUITE_DOC_H

#include <cjson/cJSON.h>
#include <stdbool.h>

#include "core/err.h"
#include "report/report.h"

#define BN_SUITE_SCHEMA "bcbench-suite/2"
/* The format before: every entry's report embedded whole. Refused, with a
 * message that says so. */
#define BN_SUITE_SCHEMA_V1 "bcbench-suite/1"

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
 * present, a bool; "report", where present, null or {"path": non-empty
 * string, "sha256": 64 hex digits}; "rules", where present, an object of
 * counts. BN_ERR_DATA "PATH: entries[3]: no \"id\"" otherwise; a
 * bcbench-suite/1 record is refused as of the older format. */
int bn_suite_doc_check(const cJSON *doc, const char *path, struct bn_err *err);

/* Replace (or add) doc's "totals" and "exit_code" with the ones its
 * entries give: counts of each outcome, of entries not as expected, the
 * sums of the entries' "rules" (verdict counts of their reports); the exit
 * code the most urgent (bn_exit_most_urgent) of the entries not as
 * expected, each by its "exit_cause" (one without: 3 for an error, else
 * 1); 0 when every entry is as expected, 7 when there is none. Each entry
 * needs "outcome" and "as_expected"
 * (BN_ERR_DATA naming the entry otherwise); doc is unchanged on error. */
int bn_suite_doc_totals(cJSON *doc, struct bn_err *err);

/* The verdict counts of report's results, as an entry's "rules" object
 * {"pass": 3, "fail": 1, ...}; all zero for a NULL report. A result
 * without a known verdict: NULL and BN_ERR_DATA naming id. NULL and
 * BN_ERR_NOMEM when out of memory. */
cJSON *bn_suite_rules_of(const cJSON *report, const char *id, struct bn_err *err);

/* The file an entry's "report" names: its "path" taken relative to the
 * directory of suite_path (the suite.json it is in), an absolute path as
 * it is. *has is false when the entry has no report ("report" null or
 * absent). BN_ERR_DATA when the reference is malformed or the path does
 * not fit buf. */
int bn_suite_report_path(const cJSON *entry, const char *suite_path, char *buf, size_t len,
			 bool *has, struct bn_err *err);

/* The report entry names, read and its sha256 checked: *report is the
 * parsed document (the caller's), or NULL when the entry has none. A
 * report missing, unreadable, of another sha256 or not JSON is
 * BN_ERR_DATA "SUITE: entry \"ID\": report PATH: ..." (bad input: the
 * record no longer matches its files). */
int bn_suite_report_load(const cJSON *entry, const char *suite_path, cJSON **report,
			 struct bn_err *err);

/* Every entry's report is there with its sha256, checked one file at a
 * time without parsing (merge): errors as bn_suite_report_load's. */
int bn_suite_doc_verify_reports(const cJSON *doc, const char *suite_path, struct bn_err *err);

#endif
