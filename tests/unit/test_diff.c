/* bcbench diff's library (report/diff.c) on tests/data/diff/base.json (a
 * report.json of scripts/scenarios/dcp.scn, trimmed to seven results)
 * and on copies of it changed by each case, alone and named by suite
 * records (bcbench-suite/2: written to a scratch directory, the records
 * name them by path and sha256). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <dirent.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "lib/harness.h"
#include "core/err.h"
#include "core/file.h"
#include "core/json.h"
#include "report/diff.h"
#include "report/suite_doc.h"

#define assert_has(text, s)                                                         \
	do {                                                                        \
		if (!strstr((text), (s)))                                           \
			fail_msg("output \"%s\" lacks \"%s\"", (text), (s));        \
	} while (0)

static cJSON *load_base(void)
{
	struct bn_err err = { 0 };
	char path[1024];
	cJSON *doc = NULL;

	bn_test_path("tests/data/diff/base.json", path, sizeof(path));
	if (bn_json_load(path, &doc, &err) < 0)
		fail_msg("%s", err.msg);
	return doc;
}

static cJSON *result(cJSON *doc, const char *id)
{
	cJSON *res;

	cJSON_ArrayForEach(res, cJSON_GetObjectItemCaseSensitive(doc, "results")) {
		const cJSON *rid = cJSON_GetObjectItemCaseSensitive(res, "id");

		if (cJSON_IsString(rid) && !strcmp(rid->valuestring, id))
			return res;
	}
	fail_msg("no result %s", id);
	return NULL;
}

static void set(cJSON *obj, const char *key, cJSON *item)
{
	if (cJSON_GetObjectItemCaseSensitive(obj, key))
		cJSON_ReplaceItemInObjectCaseSensitive(obj, key, item);
	else
		cJSON_AddItemToObject(obj, key, item);
}

static void set_verdict(cJSON *doc, const char *id, const char *verdict)
{
	set(result(doc, id), "verdict", cJSON_CreateString(verdict));
}

static void remove_result(cJSON *doc, const char *id)
{
	cJSON *results = cJSON_GetObjectItemCaseSensitive(doc, "results");

	cJSON_Delete(cJSON_DetachItemViaPointer(results, result(doc, id)));
}

static double margin(cJSON *doc, const char *id)
{
	return cJSON_GetObjectItemCaseSensitive(result(doc, id), "margin")->valuedouble;
}

static void set_margin(cJSON *doc, const char *id, double m)
{
	set(result(doc, id), "margin", cJSON_CreateNumber(m));
}

/* Where the suite records "are" and their reports are written: one
 * directory per test process. */
static const char *scratch(char *buf, size_t len)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(buf, len, "%s/bn_test_diff.%d", tmp && *tmp ? tmp : "/tmp", (int)getpid());
	mkdir(buf, 0755);
	return buf;
}

static int scratch_remove(void **state)
{
	char dir[512], path[1024];
	struct dirent *d;
	DIR *dp = opendir(scratch(dir, sizeof(dir)));

	(void)state;
	while (dp && (d = readdir(dp)))
		if (d->d_name[0] != '.') {
			snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
			unlink(path);
		}
	if (dp)
		closedir(dp);
	rmdir(dir);
	return 0;
}

/* The records' paths: beside the reports in the scratch directory. */
static const char *record_path(const char *name, char *buf, size_t len)
{
	char dir[512];

	snprintf(buf, len, "%s/%s", scratch(dir, sizeof(dir)), name);
	return buf;
}

/* report written to the scratch directory (named by its sha256), and the
 * entry's reference to it: {"path", "sha256"}. */
static cJSON *report_ref(const cJSON *report)
{
	char *text = cJSON_Print(report), sha[65], dir[512], path[700], name[80];
	struct bn_err err = { 0 };
	cJSON *ref = cJSON_CreateObject();

	assert_non_null(text);
	bn_sha256_hex(text, strlen(text), sha);
	snprintf(name, sizeof(name), "%s.json", sha);
	snprintf(path, sizeof(path), "%s/%s", scratch(dir, sizeof(dir)), name);
	assert_int_equal(bn_file_write_atomic(path, text, strlen(text), &err), BN_OK);
	free(text);
	cJSON_AddStringToObject(ref, "path", name);
	cJSON_AddStringToObject(ref, "sha256", sha);
	return ref;
}

/* Diff base against new_doc; the printed sections in *text (free it). */
static int run_diff(const cJSON *base, const cJSON *new_doc, double pct,
		    struct bn_diff_counts *c, char **text, struct bn_err *err)
{
	size_t len = 0;
	FILE *f = open_memstream(text, &len);
	char bp[600], np[600];
	int rc;

	assert_non_null(f);
	rc = bn_diff_docs(base, record_path("base.json", bp, sizeof(bp)), new_doc,
			  record_path("new.json", np, sizeof(np)), pct, f, c, err);
	bn_diff_print_totals(f, c);
	fclose(f);
	return rc;
}

/* The diff of base and new_doc must succeed; returns the regressions. */
static int diff_ok(const cJSON *base, const cJSON *new_doc, double pct, struct bn_diff_counts *c,
		   char **text)
{
	struct bn_err err = { 0 };

	if (run_diff(base, new_doc, pct, c, text, &err) < 0)
		fail_msg("%s", err.msg);
	return c->regressions;
}

static void test_diff__self(void **state)
{
	cJSON *base = load_base();
	struct bn_diff_counts c;
	char *text = NULL;

	assert_int_equal(diff_ok(base, base, 10, &c, &text), 0);
	for (int k = 0; k < BN_DIFF_CAT_COUNT; k++)
		assert_int_equal(c.n[k], 0);
	assert_true(c.margins_compared >= 4);
	assert_string_equal(text, "diff: 0 regressions, 0 fixed\n");
	free(text);
	cJSON_Delete(base);
}

static void test_diff__new_failure(void **state)
{
	cJSON *base = load_base(), *new_doc = cJSON_Duplicate(base, true);
	struct bn_diff_counts c;
	char *text = NULL;

	set_verdict(new_doc, "bc12.cur.idev_chg", "fail");
	assert_int_equal(diff_ok(base, new_doc, 10, &c, &text), 1);
	assert_int_equal(c.n[BN_DIFF_NEW_FAILURE], 1);
	assert_int_equal(c.n[BN_DIFF_FIXED], 0);
	assert_has(text, "new failures (1):\n");
	assert_has(text,
		   "bc12.cur.idev_chg: pass -> fail, measured 1.204 A (limit IDEV_CHG <= 1.5 A)");
	assert_has(text, "[DCP (compliant 1 A): detection and input current ramp]");
	assert_has(text, "diff: 1 regression (1 new failure), 0 fixed\n");
	free(text);
	cJSON_Delete(new_doc);
	cJSON_Delete(base);
}

/* A failure that is a warning does not fail a run: a change, not a
 * regression. */
static void test_diff__new_warning(void **state)
{
	cJSON *base = load_base(), *new_doc = cJSON_Duplicate(base, true);
	struct bn_diff_counts c;
	char *text = NULL;

	set_verdict(new_doc, "bc12.cur.idev_chg", "fail");
	cJSON_AddStringToObject(result(new_doc, "bc12.cur.idev_chg"), "severity", "warning");
	assert_int_equal(diff_ok(base, new_doc, 10, &c, &text), 0);
	assert_int_equal(c.n[BN_DIFF_CHANGED], 1);
	assert_has(text, "pass -> fail (warning)");
	free(text);
	cJSON_Delete(new_doc);
	cJSON_Delete(base);
}

static void test_diff__fixed(void **state)
{
	cJSON *base = load_base(), *new_doc = cJSON_Duplicate(base, true);
	struct bn_diff_counts c;
	char *text = NULL;

	set_verdict(base, "expect.L10", "fail");
	assert_int_equal(diff_ok(base, new_doc, 10, &c, &text), 0);
	assert_int_equal(c.n[BN_DIFF_FIXED], 1);
	assert_has(text, "fixed (1):\n");
	assert_has(text, "expect.L10: fail -> pass");
	assert_has(text, "diff: 0 regressions, 1 fixed\n");
	free(text);
	cJSON_Delete(new_doc);
	cJSON_Delete(base);
}

/* expect.L9: >= 0.9 A, one-sided: the span is 0.9 A. */
static void test_diff__margin_shrunk_20pct(void **state)
{
	cJSON *base = load_base(), *new_doc = cJSON_Duplicate(base, true);
	struct bn_diff_counts c;
	char *text = NULL;

	set_margin(new_doc, "expect.L9", margin(base, "expect.L9") - 0.20 * 0.9);
	assert_int_equal(diff_ok(base, new_doc, 10, &c, &text), 1);
	assert_int_equal(c.n[BN_DIFF_MARGIN], 1);
	assert_has(text, "margins shrunk (1):\n");
	assert_has(text, "expect.L9: pass -> pass, margin 240 mA -> 60 mA, down 180 mA = 20.0% of "
		   "the limit's span 900 mA");
	free(text);
	cJSON_Delete(new_doc);
	cJSON_Delete(base);
}

static void test_diff__margin_shrunk_5pct(void **state)
{
	cJSON *base = load_base(), *new_doc = cJSON_Duplicate(base, true);
	struct bn_diff_counts c;
	char *text = NULL;

	set_margin(new_doc, "expect.L9", margin(base, "expect.L9") - 0.05 * 0.9);
	assert_int_equal(diff_ok(base, new_doc, 10, &c, &text), 0);
	assert_int_equal(c.n[BN_DIFF_MARGIN], 0);
	free(text);
	/* the threshold is the option's: 4 % counts it */
	assert_int_equal(diff_ok(base, new_doc, 4, &c, &text), 1);
	assert_int_equal(c.n[BN_DIFF_MARGIN], 1);
	free(text);
	cJSON_Delete(new_doc);
	cJSON_Delete(base);
}

/* A margin that grew is never a regression. */
static void test_diff__margin_grown(void **state)
{
	cJSON *base = load_base(), *new_doc = cJSON_Duplicate(base, true);
	struct bn_diff_counts c;
	char *text = NULL;

	set_margin(new_doc, "expect.L9", margin(base, "expect.L9") + 0.5);
	assert_int_equal(diff_ok(base, new_doc, 10, &c, &text), 0);
	free(text);
	cJSON_Delete(new_doc);
	cJSON_Delete(base);
}

/* bc12.otg.no_backfeed: >= -2.5 mA: the span is |-2.5 mA|. */
static void test_diff__margin_one_sided_bound(void **state)
{
	cJSON *base = load_base(), *new_doc = cJSON_Duplicate(base, true);
	struct bn_diff_counts c;
	char *text = NULL;

	set_margin(new_doc, "bc12.otg.no_backfeed", 0.0025 - 0.2 * 0.0025);
	assert_int_equal(diff_ok(base, new_doc, 10, &c, &text), 1);
	assert_int_equal(c.n[BN_DIFF_MARGIN], 1);
	assert_has(text, "bc12.otg.no_backfeed: pass -> pass, margin 2.5 mA -> 2 mA, down 500 \xc2\xb5" "A "
		   "= 20.0% of the limit's span 2.5 mA");
	free(text);
	set_margin(new_doc, "bc12.otg.no_backfeed", 0.0025 - 0.05 * 0.0025);
	assert_int_equal(diff_ok(base, new_doc, 10, &c, &text), 0);
	free(text);
	cJSON_Delete(new_doc);
	cJSON_Delete(base);
}

/* bc12.det.idm_sink: 25..175 uA, two-sided: the span is max - min
 * (150 uA), not |max|. A drop of 16 uA is 10.7 % of it (9.1 % of |max|). */
static void test_diff__margin_two_sided_span(void **state)
{
	cJSON *base = load_base(), *new_doc = cJSON_Duplicate(base, true);
	struct bn_diff_counts c;
	char *text = NULL;

	set_margin(new_doc, "bc12.det.idm_sink", margin(base, "bc12.det.idm_sink") - 16e-6);
	assert_int_equal(diff_ok(base, new_doc, 10, &c, &text), 1);
	assert_int_equal(c.n[BN_DIFF_MARGIN], 1);
	assert_has(text, "10.7% of the limit's span 150 \xc2\xb5" "A");
	free(text);
	cJSON_Delete(new_doc);
	cJSON_Delete(base);
}

/* A limit whose only bound is 0 has no span: not compared. */
static void test_diff__margin_no_span(void **state)
{
	cJSON *base = load_base(), *new_doc;
	cJSON *lim = cJSON_GetObjectItemCaseSensitive(result(base, "expect.L10"), "limit");
	struct bn_diff_counts c, c0;
	char *text = NULL;

	set(lim, "max", cJSON_CreateNumber(0));
	new_doc = cJSON_Duplicate(base, true);
	assert_int_equal(diff_ok(base, base, 10, &c0, &text), 0);
	free(text);
	set_margin(new_doc, "expect.L10", margin(base, "expect.L10") / 10);
	assert_int_equal(diff_ok(base, new_doc, 10, &c, &text), 0);
	assert_int_equal(c.margins_no_span, 1);
	assert_int_equal(c.margins_compared, c0.margins_compared);
	free(text);
	cJSON_Delete(new_doc);
	cJSON_Delete(base);
}

static void test_diff__gone(void **state)
{
	cJSON *base = load_base(), *new_doc = cJSON_Duplicate(base, true);
	struct bn_diff_counts c;
	char *text = NULL;

	remove_result(new_doc, "bc12.det.idm_sink");
	assert_int_equal(diff_ok(base, new_doc, 10, &c, &text), 1);
	assert_int_equal(c.n[BN_DIFF_GONE], 1);
	assert_has(text, "gone (1):\n");
	assert_has(text, "bc12.det.idm_sink: pass -> absent");
	free(text);
	/* the other way round it is an added row, not a regression */
	assert_int_equal(diff_ok(new_doc, base, 10, &c, &text), 0);
	assert_int_equal(c.n[BN_DIFF_ADDED], 1);
	assert_has(text, "bc12.det.idm_sink: absent -> pass");
	free(text);
	cJSON_Delete(new_doc);
	cJSON_Delete(base);
}

/* A rule only in NEW that fails is a new failure. */
static void test_diff__added_failing(void **state)
{
	cJSON *base = load_base(), *new_doc = cJSON_Duplicate(base, true);
	cJSON *extra = cJSON_Duplicate(result(base, "expect.L9"), true);
	struct bn_diff_counts c;
	char *text = NULL;

	set(extra, "id", cJSON_CreateString("expect.L30"));
	set(extra, "verdict", cJSON_CreateString("fail"));
	cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(new_doc, "results"), extra);
	assert_int_equal(diff_ok(base, new_doc, 10, &c, &text), 1);
	assert_int_equal(c.n[BN_DIFF_NEW_FAILURE], 1);
	assert_has(text, "expect.L30: absent -> fail");
	free(text);
	cJSON_Delete(new_doc);
	cJSON_Delete(base);
}

/* Sides: a port rule that newly fails in a device record is the port's
 * change, not the record's regression (its line says the port); in a
 * record that judges the port it is a new failure. */
static void test_diff__port_failure_in_a_device_run(void **state)
{
	cJSON *base = load_base(), *new_doc, *port;
	struct bn_diff_counts c;
	char *text = NULL;

	set(base, "schema", cJSON_CreateString("bcbench-report/3"));
	port = cJSON_Duplicate(result(base, "bc12.cur.idev_chg"), true);
	set(port, "id", cJSON_CreateString("bc12.port.vchg"));
	set(port, "side", cJSON_CreateString("port"));
	cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(base, "results"), port);
	new_doc = cJSON_Duplicate(base, true);
	set_verdict(new_doc, "bc12.port.vchg", "fail");
	assert_int_equal(diff_ok(base, new_doc, 10, &c, &text), 0);
	assert_int_equal(c.n[BN_DIFF_NEW_FAILURE], 0);
	assert_int_equal(c.n[BN_DIFF_CHANGED], 1);
	assert_has(text, "bc12.port.vchg [the port]: pass -> fail");
	free(text);
	text = NULL;
	/* and back: not a fix of the record either */
	assert_int_equal(diff_ok(new_doc, base, 10, &c, &text), 0);
	assert_int_equal(c.n[BN_DIFF_FIXED], 0);
	assert_int_equal(c.n[BN_DIFF_CHANGED], 1);
	free(text);
	text = NULL;
	/* a record that judges the port: its regression */
	set(base, "judges", cJSON_CreateString("port"));
	set(new_doc, "judges", cJSON_CreateString("port"));
	assert_int_equal(diff_ok(base, new_doc, 10, &c, &text), 1);
	assert_int_equal(c.n[BN_DIFF_NEW_FAILURE], 1);
	assert_has(text, "new failures (1):\n");
	free(text);
	cJSON_Delete(new_doc);
	cJSON_Delete(base);
}

static void test_diff__new_inconclusive(void **state)
{
	cJSON *base = load_base(), *new_doc = cJSON_Duplicate(base, true);
	struct bn_diff_counts c;
	char *text = NULL;

	set_verdict(new_doc, "bc12.det.idm_sink", "inconclusive");
	cJSON_AddStringToObject(result(new_doc, "bc12.det.idm_sink"), "reason", "no DCD window");
	assert_int_equal(diff_ok(base, new_doc, 10, &c, &text), 1);
	assert_int_equal(c.n[BN_DIFF_NEW_INCONCLUSIVE], 1);
	assert_has(text, "new inconclusive (1):\n");
	assert_has(text, "bc12.det.idm_sink: pass -> inconclusive, measured 101.9 \xc2\xb5" "A "
		   "(limit IDM_SINK 25 \xc2\xb5" "A..175 \xc2\xb5" "A) [no DCD window]");
	free(text);
	cJSON_Delete(new_doc);
	cJSON_Delete(base);
}

static void test_diff__new_error(void **state)
{
	cJSON *base = load_base(), *new_doc = cJSON_Duplicate(base, true);
	struct bn_diff_counts c;
	char *text = NULL;

	set_verdict(new_doc, "expect.L7", "error");
	assert_int_equal(diff_ok(base, new_doc, 10, &c, &text), 1);
	assert_int_equal(c.n[BN_DIFF_NEW_ERROR], 1);
	assert_has(text, "expect.L7: pass -> error, measured dcp (limit == dcp)");
	free(text);
	cJSON_Delete(new_doc);
	cJSON_Delete(base);
}

/* A run that stopped: one new error for the run; the results it did not
 * get to are not each counted gone. */
static void test_diff__run_aborted(void **state)
{
	cJSON *base = load_base(), *new_doc = cJSON_Duplicate(base, true);
	cJSON *status = cJSON_GetObjectItemCaseSensitive(new_doc, "status");
	struct bn_diff_counts c;
	char *text = NULL;

	set(status, "state", cJSON_CreateString("aborted"));
	set(status, "reason", cJSON_CreateString("interrupted by SIGINT"));
	remove_result(new_doc, "bc12.otg.no_backfeed");
	remove_result(new_doc, "bc12.cur.idev_chg");
	assert_int_equal(diff_ok(base, new_doc, 10, &c, &text), 1);
	assert_int_equal(c.n[BN_DIFF_NEW_ERROR], 1);
	assert_int_equal(c.n[BN_DIFF_GONE], 0);
	assert_has(text, "run did not complete: completed -> aborted: interrupted by SIGINT "
		   "(2 results not reported)");
	free(text);
	/* and back: it completes again */
	assert_int_equal(diff_ok(new_doc, base, 10, &c, &text), 0);
	assert_int_equal(c.n[BN_DIFF_FIXED], 1);
	assert_int_equal(c.n[BN_DIFF_ADDED], 2);
	free(text);
	cJSON_Delete(new_doc);
	cJSON_Delete(base);
}

static cJSON *suite_entry(int index, const char *id, const char *outcome, bool as_expected,
			  const cJSON *report)
{
	cJSON *e = cJSON_CreateObject();
	struct bn_err err = { 0 };

	cJSON_AddNumberToObject(e, "index", index);
	cJSON_AddStringToObject(e, "id", id);
	cJSON_AddStringToObject(e, "outcome", outcome);
	cJSON_AddBoolToObject(e, "as_expected", as_expected);
	cJSON_AddItemToObject(e, "unexpected", cJSON_CreateArray());
	cJSON_AddItemToObject(e, "cause", cJSON_CreateNull());
	cJSON_AddItemToObject(e, "report", report ? report_ref(report) : cJSON_CreateNull());
	cJSON_AddItemToObject(e, "rules", bn_suite_rules_of(report, id, &err));
	assert_int_equal(err.code, BN_OK);
	return e;
}

/* Two entries running the base report: dcp (pass) and dcp-strict
 * (expected to fail expect.L10, which fails). */
static cJSON *suite_of(const cJSON *report)
{
	cJSON *doc = cJSON_CreateObject(), *entries, *failing;
	struct bn_err err = { 0 };

	cJSON_AddStringToObject(doc, "schema", BN_SUITE_SCHEMA);
	cJSON_AddItemToObject(cJSON_AddObjectToObject(doc, "suite"), "sha256",
			      cJSON_CreateString("ab12"));
	entries = cJSON_AddArrayToObject(doc, "entries");
	cJSON_AddItemToArray(entries, suite_entry(1, "dcp", "pass", true, report));
	failing = cJSON_Duplicate(report, true);
	set_verdict(failing, "expect.L10", "fail");
	cJSON_AddItemToArray(entries, suite_entry(2, "dcp-strict", "xfail", true, failing));
	cJSON_Delete(failing);
	assert_int_equal(bn_suite_doc_totals(doc, &err), BN_OK);
	return doc;
}

static cJSON *entry_of(cJSON *suite, const char *id)
{
	cJSON *e;

	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(suite, "entries"))
		if (!strcmp(cJSON_GetObjectItemCaseSensitive(e, "id")->valuestring, id))
			return e;
	fail_msg("no entry %s", id);
	return NULL;
}

static void test_diff__suite_self(void **state)
{
	cJSON *rep = load_base(), *s = suite_of(rep);
	struct bn_diff_counts c;
	char *text = NULL;

	assert_int_equal(diff_ok(s, s, 10, &c, &text), 0);
	assert_string_equal(text, "diff: 0 regressions, 0 fixed\n");
	free(text);
	cJSON_Delete(s);
	cJSON_Delete(rep);
}

static void test_diff__suite_entry_error(void **state)
{
	cJSON *rep = load_base(), *base = suite_of(rep), *new_doc = cJSON_Duplicate(base, true);
	cJSON *e = entry_of(new_doc, "dcp");
	struct bn_diff_counts c;
	char *text = NULL;

	set(e, "outcome", cJSON_CreateString("error"));
	set(e, "as_expected", cJSON_CreateFalse());
	set(e, "cause", cJSON_CreateString("killed by SIGSEGV (firmware crashed)"));
	set(e, "report", cJSON_CreateNull());
	cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(e, "unexpected"),
			     cJSON_CreateString("the run did not complete"));
	assert_int_equal(diff_ok(base, new_doc, 10, &c, &text), 2);
	assert_int_equal(c.n[BN_DIFF_NEW_ERROR], 1);
	assert_int_equal(c.n[BN_DIFF_UNEXPECTED], 1);
	assert_int_equal(c.n[BN_DIFF_GONE], 0);
	assert_has(text,
		   "[dcp] run did not complete: completed -> outcome error: killed by SIGSEGV "
		   "(firmware crashed) (7 results not reported)");
	assert_has(text, "[dcp] pass -> error, not as expected: the run did not complete");
	free(text);
	cJSON_Delete(new_doc);
	cJSON_Delete(base);
	cJSON_Delete(rep);
}

/* The expected failure stops failing: fixed as a row, but the entry is
 * now an xpass, not as expected. */
static void test_diff__suite_xpass(void **state)
{
	cJSON *rep = load_base(), *base = suite_of(rep), *new_doc = cJSON_Duplicate(base, true);
	cJSON *e = entry_of(new_doc, "dcp-strict");
	struct bn_diff_counts c;
	char *text = NULL;

	set(e, "outcome", cJSON_CreateString("xpass"));
	set(e, "as_expected", cJSON_CreateFalse());
	set(e, "report", report_ref(rep));
	assert_int_equal(diff_ok(base, new_doc, 10, &c, &text), 1);
	assert_int_equal(c.n[BN_DIFF_UNEXPECTED], 1);
	assert_int_equal(c.n[BN_DIFF_FIXED], 1);
	assert_has(text, "[dcp-strict] expect.L10: fail -> pass");
	assert_has(text, "[dcp-strict] xfail -> xpass, not as expected");
	free(text);
	cJSON_Delete(new_doc);
	cJSON_Delete(base);
	cJSON_Delete(rep);
}

static void test_diff__suite_entry_missing(void **state)
{
	cJSON *rep = load_base(), *base = suite_of(rep), *new_doc = cJSON_Duplicate(base, true);
	struct bn_diff_counts c;
	char *text = NULL;

	cJSON_DeleteItemFromArray(cJSON_GetObjectItemCaseSensitive(new_doc, "entries"), 1);
	assert_int_equal(diff_ok(base, new_doc, 10, &c, &text), 1);
	assert_int_equal(c.n[BN_DIFF_GONE], 1);
	assert_has(text, "[dcp-strict] entry missing from new (was xfail, 7 results)");
	free(text);
	assert_int_equal(diff_ok(new_doc, base, 10, &c, &text), 0);
	assert_int_equal(c.n[BN_DIFF_ADDED], 1);
	assert_has(text, "[dcp-strict] new entry, xfail");
	free(text);
	cJSON_Delete(new_doc);
	cJSON_Delete(base);
	cJSON_Delete(rep);
}

static void test_diff__report_vs_suite(void **state)
{
	cJSON *rep = load_base(), *s = suite_of(rep);
	struct bn_diff_counts c;
	struct bn_err err = { 0 };
	char *text = NULL;

	assert_int_equal(run_diff(rep, s, 10, &c, &text, &err), BN_ERR_DATA);
	assert_msg_has(&err, "base is a report (bcbench-report/3) and new is a suite record");
	assert_int_equal(c.regressions, 0);
	free(text);
	bn_err_clear(&err);
	assert_int_equal(run_diff(s, rep, 10, &c, &text, &err), BN_ERR_DATA);
	free(text);
	cJSON_Delete(s);
	cJSON_Delete(rep);
}

static void test_diff__not_a_record(void **state)
{
	static const char *const bad[] = {
		"{\"a\": 1}",
		"[1, 2]",
		"{\"schema\": \"bcbench-report/2\", \"results\": []}",
		"{\"schema\": \"bcbench-report/1\", \"results\": {}}",
		("{\"schema\": \"bcbench-report/1\", \"results\": [{\"id\": \"x\", \"verdict\": "
		 "\"maybe\"}], \"status\": {\"state\": \"completed\"}}"),
		"{\"schema\": \"bcbench-report/1\", \"results\": []}",
		"{\"schema\": \"bcbench-suite/2\", \"entries\": [{\"index\": 1}]}",
		"{\"schema\": \"bcbench-suite/2\", \"entries\": [{\"index\": 1, \"id\": \"a\"}]}",
		/* the older format, every report embedded: refused */
		"{\"schema\": \"bcbench-suite/1\", \"entries\": []}",
	};
	cJSON *rep = load_base();

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cJSON *doc = cJSON_Parse(bad[i]);
		struct bn_diff_counts c;
		struct bn_err err = { 0 };
		enum bn_diff_kind kind;
		char *text = NULL;

		assert_non_null(doc);
		assert_int_equal(bn_diff_doc_kind(doc, "x.json", &kind, &err), BN_ERR_DATA);
		assert_int_equal(strncmp(err.msg, "x.json: ", 8), 0);
		bn_err_clear(&err);
		assert_int_equal(run_diff(rep, doc, 10, &c, &text, &err), BN_ERR_DATA);
		assert_msg_has(&err, "new: ");
		free(text);
		cJSON_Delete(doc);
	}
	cJSON_Delete(rep);
}

/* A file that is not JSON fails to load, naming the file. */
static void test_diff__garbage_json(void **state)
{
	const char *tmp = getenv("TMPDIR");
	struct bn_err err = { 0 };
	char path[512];
	cJSON *doc = NULL;

	snprintf(path, sizeof(path), "%s/bn_test_diff.%d.json", tmp && *tmp ? tmp : "/tmp",
		 (int)getpid());
	assert_int_equal(bn_file_write_atomic(path, "{\"schema\": garbage", 18, &err), BN_OK);
	assert_int_equal(bn_json_load(path, &doc, &err), BN_ERR_DATA);
	assert_null(doc);
	assert_msg_has(&err, path);
	assert_msg_has(&err, "invalid JSON");
	unlink(path);
	bn_err_clear(&err);
	assert_int_equal(bn_json_load(path, &doc, &err), BN_ERR_IO);
}

static void test_diff__bad_margin_drop(void **state)
{
	static const double bad[] = { 0, -5, 100.5, NAN };
	cJSON *rep = load_base();

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct bn_diff_counts c;
		struct bn_err err = { 0 };

		assert_int_equal(bn_diff_docs(rep, "b.json", rep, "n.json", bad[i], NULL, &c, &err),
				 BN_ERR_ARG);
	}
	cJSON_Delete(rep);
}

/* Several categories at once: each counted, regressions summed, the
 * totals line naming each. Nothing printed with out NULL. */
static void test_diff__totals(void **state)
{
	cJSON *base = load_base(), *new_doc = cJSON_Duplicate(base, true);
	struct bn_diff_counts c;
	struct bn_err err = { 0 };
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	set_verdict(new_doc, "expect.L9", "fail");
	set_verdict(new_doc, "bc12.cur.idev_chg", "fail");
	set_verdict(new_doc, "bc12.det.idm_sink", "inconclusive");
	set_verdict(base, "expect.L10", "fail");
	assert_int_equal(bn_diff_docs(base, "b.json", new_doc, "n.json", 10, NULL, &c, &err),
			 BN_OK);
	assert_int_equal(c.regressions, 3);
	f = open_memstream(&text, &len);
	bn_diff_print_totals(f, &c);
	fclose(f);
	assert_string_equal(text, "diff: 3 regressions (2 new failures, 1 new inconclusive), "
			    "1 fixed\n");
	free(text);
	cJSON_Delete(new_doc);
	cJSON_Delete(base);
}

/* A suite entry's report is read from the path its record names, when
 * the entry is compared: changed since (another sha256) or gone, the diff
 * is refused naming the file, not run on what is left. */
static void test_diff__suite_report_changed_or_gone(void **state)
{
	cJSON *rep = load_base(), *base = suite_of(rep), *new_doc = cJSON_Duplicate(base, true);
	const cJSON *ref = cJSON_GetObjectItemCaseSensitive(entry_of(new_doc, "dcp"), "report");
	char dir[512], path[1024], *text = NULL;
	struct bn_diff_counts c;
	struct bn_err err = { 0 };

	snprintf(path, sizeof(path), "%s/%s", scratch(dir, sizeof(dir)),
		 cJSON_GetObjectItemCaseSensitive(ref, "path")->valuestring);
	assert_int_equal(bn_file_write_atomic(path, "{}", 2, &err), BN_OK);
	assert_int_equal(run_diff(base, new_doc, 10, &c, &text, &err), BN_ERR_DATA);
	assert_msg_has(&err, path);
	assert_msg_has(&err, "sha256");
	assert_int_equal(c.regressions, 0);
	free(text);
	text = NULL;
	unlink(path);
	bn_err_clear(&err);
	assert_int_equal(run_diff(base, new_doc, 10, &c, &text, &err), BN_ERR_DATA);
	assert_msg_has(&err, path);
	assert_msg_has(&err, "cannot read");
	free(text);
	cJSON_Delete(new_doc);
	cJSON_Delete(base);
	cJSON_Delete(rep);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_diff__self),
		cmocka_unit_test(test_diff__new_failure),
		cmocka_unit_test(test_diff__new_warning),
		cmocka_unit_test(test_diff__fixed),
		cmocka_unit_test(test_diff__margin_shrunk_20pct),
		cmocka_unit_test(test_diff__margin_shrunk_5pct),
		cmocka_unit_test(test_diff__margin_grown),
		cmocka_unit_test(test_diff__margin_one_sided_bound),
		cmocka_unit_test(test_diff__margin_two_sided_span),
		cmocka_unit_test(test_diff__margin_no_span),
		cmocka_unit_test(test_diff__gone),
		cmocka_unit_test(test_diff__added_failing),
		cmocka_unit_test(test_diff__new_inconclusive),
		cmocka_unit_test(test_diff__port_failure_in_a_device_run),
		cmocka_unit_test(test_diff__new_error),
		cmocka_unit_test(test_diff__run_aborted),
		cmocka_unit_test(test_diff__suite_self),
		cmocka_unit_test(test_diff__suite_entry_error),
		cmocka_unit_test(test_diff__suite_xpass),
		cmocka_unit_test(test_diff__suite_entry_missing),
		cmocka_unit_test(test_diff__report_vs_suite),
		cmocka_unit_test(test_diff__not_a_record),
		cmocka_unit_test(test_diff__garbage_json),
		cmocka_unit_test(test_diff__bad_margin_drop),
		cmocka_unit_test(test_diff__totals),
		cmocka_unit_test(test_diff__suite_report_changed_or_gone),
	};

	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests_name("diff", tests, NULL, scratch_remove);
}
