/* A suite's report.html, from its suite.json (schema "bcbench-suite/2",
 * docs/suite-report.md): one self-contained page (no network, no external
 * file) with the suite's overall verdict, its totals and exit code, the
 * matrix of entries by rule (each cell's verdict as a colour and a word,
 * each entry linking to its own report.html), the entries that did not do
 * what the suite expects, and the diff against a baseline suite.json when
 * one is given. The entries' reports are read one at a time from the
 * paths suite.json names (their sha256 checked) and let go: the page's
 * memory does not grow with the reports. The same records give the same
 * bytes (no render time in the page).
 *
 * The overall verdict: not compliant when an entry's report has a failure
 * (not a warning) the entry does not list as expected; else compliance
 * not demonstrated when an entry has no report, or its report, with its
 * expected failures taken as met, is not demonstrated
 * (bn_report_json_overall: inconclusive, error, a run that did not
 * complete, nothing judged; an entry expected to end in error is one);
 * else compliant.
 *
 * The DOM a reader can rely on:
 *   div#verdict.banner.verdict.v-ID  data-verdict="compliant" |
 *       "not-compliant" | "not-demonstrated"
 *   table#totals  td[data-total="pass"|"xfail"|"fail"|"xpass"|"error"|
 *       "unexpected"|"entries"|"exit_code"]
 *   table#matrix  th.rule[data-rule=RULE] per column, in the column order
 *       (the rules' report order, other rules by name, expectations last
 *       by line);
 *     tr.entry[data-entry=ID][data-outcome=OUTCOME][data-as-expected]
 *       th.id a[href=the entry's report.html] (absent without a report)
 *       td.outcome[data-outcome]
 *       td.cell.v-V[data-rule=RULE][data-verdict=V], V one of pass, fail,
 *         xfail (failed, and the entry lists the rule as expected to
 *         fail), inconclusive, error, skipped, none (the entry's report
 *         has no result for the rule); a failure that is only a warning
 *         has data-warning="true"
 *       td.noreport (one cell across the rules) for an entry without a
 *         report: its outcome's cause
 *   table#legend
 *   section#unexpected  li[data-entry=ID] per entry not as expected
 *   section#diff (only with a baseline)  ul.diff[data-cat=CAT] li per row,
 *       CAT one of new-failure, new-error, new-inconclusive, gone, margin,
 *       unexpected, fixed, added, changed */
#ifndef BN_SUITE_SUITE_HTML_H
#define BN_SUITE_SUITE_HTML_H

#include <cjson/cJSON.h>

#include "core/err.h"

/* The margin drop the diff section reports (as bcbench diff's default):
 * a pass whose margin shrank by more than this share of its limit's span. */
#define BN_SUITE_HTML_MARGIN_DROP_PCT 10.0

/* The page, malloc'ed and NUL-terminated (free()). suite_path is where
 * suite_doc was read from (the entries' report paths are relative to
 * it). baseline_doc (another suite.json, read from baseline_path) may be
 * NULL: no diff section. A document that is not a suite record, a report
 * missing, changed since the suite ran (sha256) or malformed: NULL and
 * BN_ERR_DATA naming the file. */
char *bn_suite_html_render(const cJSON *suite_doc, const char *suite_path,
			   const cJSON *baseline_doc, const char *baseline_path,
			   struct bn_err *err);

/* Render and write to out_path atomically; on any error nothing is
 * written. The links are relative to suite.json's directory: out_path
 * belongs there (DIR/report.html beside DIR/suite.json). */
int bn_suite_html_write(const cJSON *suite_doc, const char *suite_path,
			const cJSON *baseline_doc, const char *baseline_path,
			const char *out_path, struct bn_err *err);

#endif
