/* A suite's report.html (suite/suite_html.c) from suite records built
 * here on disk, as bcbench suite writes them: each entry's report.json
 * under DIR/entries/NNNN-ID/, named by suite.json by path and sha256. The
 * page's DOM contract (suite/suite_html.h) is read back from the text:
 * the rows, each (entry, rule) cell's verdict, the links, the overall
 * verdict, the diff section, escaping and byte-identical re-rendering. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "lib/harness.h"
#include "core/err.h"
#include "core/file.h"
#include "report/suite_doc.h"
#include "suite/suite_html.h"

#define NASTY_ID "a<b>&c"

#define assert_has(text, s)                                                         \
	do {                                                                        \
		if (!strstr((text), (s)))                                           \
			fail_msg("page lacks \"%s\"", (s));                         \
	} while (0)

#define assert_lacks(text, s)                                                       \
	do {                                                                        \
		if (strstr((text), (s)))                                            \
			fail_msg("page has \"%s\"", (s));                           \
	} while (0)

struct scratch {
	char dir[256];
	char suite[320]; /* DIR/suite.json */
};

static int scratch_setup(void **state)
{
	struct scratch *s = calloc(1, sizeof(*s));
	const char *tmp = getenv("TMPDIR");

	if (!s)
		return -1;
	snprintf(s->dir, sizeof(s->dir), "%s/bn_test_suite_html.XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(s->dir)) {
		free(s);
		return -1;
	}
	snprintf(s->suite, sizeof(s->suite), "%s/suite.json", s->dir);
	*state = s;
	return 0;
}

static int scratch_teardown(void **state)
{
	struct scratch *s = *state;
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", s->dir);
	free(s);
	return system(cmd) == 0 ? 0 : -1;
}

/* One result: a current check with a measured value, a limit and a
 * margin; severity "warning" when warning. */
static cJSON *result(const char *id, const char *verdict, bool warning)
{
	cJSON *r = cJSON_CreateObject(), *lim;

	cJSON_AddStringToObject(r, "id", id);
	cJSON_AddStringToObject(r, "kind", strncmp(id, "expect.", 7) ? "check" : "expect");
	cJSON_AddStringToObject(r, "verdict", verdict);
	if (warning)
		cJSON_AddStringToObject(r, "severity", "warning");
	cJSON_AddStringToObject(r, "title", "what the rule says");
	cJSON_AddStringToObject(r, "text", id);
	cJSON_AddNumberToObject(r, "measured", !strcmp(verdict, "fail") ? 0.85 : 1.14);
	cJSON_AddStringToObject(r, "unit", "A");
	lim = cJSON_AddObjectToObject(r, "limit");
	cJSON_AddStringToObject(lim, "name", ">= 0.9 A");
	cJSON_AddNumberToObject(lim, "min", 0.9);
	cJSON_AddNullToObject(lim, "max");
	cJSON_AddNumberToObject(r, "margin", !strcmp(verdict, "fail") ? -0.05 : 0.24);
	if (!strcmp(verdict, "inconclusive"))
		cJSON_AddStringToObject(r, "reason", "the window is shorter than the rule needs");
	return r;
}

/* A completed run's report with results "ID=VERDICT" ("ID=fail!" a
 * warning), NULL-terminated. */
static cJSON *report_v(const char *const *res)
{
	cJSON *rep = cJSON_CreateObject(), *arr, *st;

	cJSON_AddStringToObject(rep, "schema", "bcbench-report/1");
	cJSON_AddStringToObject(cJSON_AddObjectToObject(rep, "scenario"), "name", "test");
	arr = cJSON_AddArrayToObject(rep, "results");
	for (int i = 0; res[i]; i++) {
		char id[64], verdict[32];
		const char *eq = strchr(res[i], '=');
		size_t n;

		assert_non_null(eq);
		snprintf(id, sizeof(id), "%.*s", (int)(eq - res[i]), res[i]);
		snprintf(verdict, sizeof(verdict), "%s", eq + 1);
		n = strlen(verdict);
		if (n && verdict[n - 1] == '!') {
			verdict[n - 1] = '\0';
			cJSON_AddItemToArray(arr, result(id, verdict, true));
		} else {
			cJSON_AddItemToArray(arr, result(id, verdict, false));
		}
	}
	st = cJSON_AddObjectToObject(rep, "status");
	cJSON_AddStringToObject(st, "state", "completed");
	return rep;
}

static const char *bn_jstr_test(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsString(v) ? v->valuestring : "";
}

#define REPORT(...) report_v((const char *const[]){ __VA_ARGS__, NULL })

/* The entry as bcbench suite records it, its report (if any) written to
 * DIR/entries/NNNN-ID/report.json and named by path and sha256. rules:
 * the rules expect.outcome "fail" lists (NULL: expect pass). */
static cJSON *entry(const struct scratch *s, int index, const char *id, cJSON *report,
		    const char *outcome, bool as_expected, const char *const *rules,
		    const char *cause)
{
	cJSON *e = cJSON_CreateObject(), *ex, *arr;
	struct bn_err err = { 0 };

	cJSON_AddNumberToObject(e, "index", index);
	cJSON_AddStringToObject(e, "id", id);
	cJSON_AddStringToObject(e, "scenario", "scripts/scenarios/dcp.scn");
	ex = cJSON_AddObjectToObject(e, "expect");
	cJSON_AddStringToObject(ex, "outcome", rules ? "fail" : "pass");
	arr = cJSON_AddArrayToObject(ex, "rules");
	for (int i = 0; rules && rules[i]; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(rules[i]));
	cJSON_AddStringToObject(e, "outcome", outcome);
	cJSON_AddBoolToObject(e, "as_expected", as_expected);
	arr = cJSON_AddArrayToObject(e, "unexpected");
	if (!as_expected)
		cJSON_AddItemToArray(arr, cJSON_CreateString("bc12.det.port_type failed: measured "
							      "sdp, limit == dcp"));
	if (cause)
		cJSON_AddStringToObject(e, "cause", cause);
	else
		cJSON_AddNullToObject(e, "cause");
	if (report) {
		char rel[256], dir[600], path[700], sha[65], *text = cJSON_Print(report);
		cJSON *ref;

		assert_non_null(text);
		snprintf(rel, sizeof(rel), "entries/%04d-%s", index, id);
		snprintf(dir, sizeof(dir), "%s/%s", s->dir, rel);
		assert_int_equal(bn_mkdir_p(dir, &err), BN_OK);
		snprintf(path, sizeof(path), "%s/report.json", dir);
		assert_int_equal(bn_file_write_atomic(path, text, strlen(text), &err), BN_OK);
		bn_sha256_hex(text, strlen(text), sha);
		cJSON_AddStringToObject(e, "dir", rel);
		ref = cJSON_AddObjectToObject(e, "report");
		snprintf(path, sizeof(path), "%s/report.json", rel);
		cJSON_AddStringToObject(ref, "path", path);
		cJSON_AddStringToObject(ref, "sha256", sha);
		cJSON_AddItemToObject(e, "rules", bn_suite_rules_of(report, id, &err));
		cJSON_Delete(report);
		free(text);
	} else {
		cJSON_AddNullToObject(e, "report");
	}
	return e;
}

static cJSON *suite_of(const char *name, cJSON *entries[], int n)
{
	cJSON *doc = cJSON_CreateObject(), *su, *arr;
	struct bn_err err = { 0 };

	cJSON_AddStringToObject(doc, "schema", BN_SUITE_SCHEMA);
	su = cJSON_AddObjectToObject(doc, "suite");
	cJSON_AddStringToObject(su, "name", name);
	cJSON_AddStringToObject(su, "path", "scripts/suites/test.suite");
	cJSON_AddStringToObject(su, "sha256",
				"0000000000000000000000000000000000000000000000000000000000000000");
	arr = cJSON_AddArrayToObject(doc, "entries");
	for (int i = 0; i < n; i++)
		cJSON_AddItemToArray(arr, entries[i]);
	assert_int_equal(bn_suite_doc_totals(doc, &err), BN_OK);
	return doc;
}

static const char *const weak_rules[] = { "bc12.cur.droop", NULL };

/* dcp passes (with a warning), weak fails the rule it is expected to. */
static void add_good(const struct scratch *s, cJSON *e[], int *n)
{
	e[(*n)++] = entry(s, 0, "dcp",
			  REPORT("bc12.det.port_type=pass", "bc12.cur.idev_chg=pass",
				 "bc12.host.connect_time=fail!", "expect.L12=pass",
				 "expect.L9=pass"),
			  "pass", true, NULL, NULL);
	e[(*n)++] = entry(s, 1, "weak", REPORT("bc12.det.port_type=pass", "bc12.cur.droop=fail"),
			  "xfail", true, weak_rules, NULL);
}

/* The failing suite: good entries, one that fails unexpectedly, one
 * without a report. */
static cJSON *failing_suite(const struct scratch *s)
{
	cJSON *e[8];
	int n = 0;

	add_good(s, e, &n);
	e[n++] = entry(s, 2, "broken",
		       REPORT("bc12.det.port_type=fail", "expect.L9=pass", "bc12.aaa.unknown=pass"),
		       "fail", false, NULL, NULL);
	e[n++] = entry(s, 3, "crash", NULL, "error", false, NULL,
		       "killed by SIGSEGV (firmware crashed)");
	return suite_of("failing", e, n);
}

static char *render(const struct scratch *s, const cJSON *doc, const cJSON *base,
		    const char *base_path)
{
	struct bn_err err = { 0 };
	char *html = bn_suite_html_render(doc, s->suite, base, base_path, &err);

	if (!html)
		fail_msg("render: %s", err.msg);
	return html;
}

/* The text of entry id's row (a copy; free it). */
static char *row_of(const char *html, const char *id_attr)
{
	char key[256];
	const char *a, *b;

	snprintf(key, sizeof(key), "<tr class=\"entry\" data-entry=\"%s\"", id_attr);
	a = strstr(html, key);
	if (!a) {
		fail_msg("no row for entry %s", id_attr);
		return NULL;
	}
	if (strstr(a + 1, key))
		fail_msg("two rows for entry %s", id_attr);
	b = strstr(a, "</tr>");
	assert_non_null(b);
	return strndup(a, (size_t)(b - a));
}

/* The row of entry id has the cell (rule, verdict), once. */
static void assert_cell(const char *html, const char *id, const char *rule, const char *verdict)
{
	char *row = row_of(html, id), want[256], any[160];
	const char *hit;

	snprintf(want, sizeof(want), "<td class=\"cell v-%s\" data-rule=\"%s\" data-verdict=\"%s\"",
		 verdict, rule, verdict);
	snprintf(any, sizeof(any), "data-rule=\"%s\"", rule);
	hit = strstr(row, any);
	if (!hit || strstr(hit + 1, any))
		fail_msg("entry %s: not one cell for %s", id, rule);
	if (!strstr(row, want))
		fail_msg("entry %s: cell %s is not %s", id, rule, verdict);
	free(row);
}

static int count_of(const char *text, const char *s)
{
	int n = 0;

	for (const char *p = strstr(text, s); p; p = strstr(p + 1, s))
		n++;
	return n;
}

static void test_suite_html__matrix(void **state)
{
	const struct scratch *s = *state;
	cJSON *doc = failing_suite(s);
	char *html = render(s, doc, NULL, NULL), *row;

	/* every entry a row, every row a cell per column (7 rules seen) */
	assert_int_equal(count_of(html, "<tr class=\"entry\""), 4);
	assert_int_equal(count_of(html, "<th class=\"rule\""), 7);
	assert_cell(html, "dcp", "bc12.det.port_type", "pass");
	assert_cell(html, "dcp", "bc12.cur.idev_chg", "pass");
	assert_cell(html, "dcp", "expect.L9", "pass");
	assert_cell(html, "dcp", "bc12.cur.droop", "none");
	assert_cell(html, "weak", "bc12.cur.droop", "xfail");
	assert_cell(html, "weak", "bc12.det.port_type", "pass");
	assert_cell(html, "weak", "expect.L9", "none");
	assert_cell(html, "broken", "bc12.det.port_type", "fail");
	assert_cell(html, "broken", "bc12.cur.droop", "none");
	/* a warning stays a fail, marked, and reads WARN */
	row = row_of(html, "dcp");
	assert_has(row, "data-rule=\"bc12.host.connect_time\" data-verdict=\"fail\" "
			"data-warning=\"true\"");
	assert_has(row, ">WARN</td>");
	assert_int_equal(count_of(row, "class=\"cell "), 7);
	free(row);
	/* words for black and white */
	row = row_of(html, "weak");
	assert_has(row, ">XFAIL</td>");
	assert_has(row, "data-outcome=\"xfail\">XFAIL</td>");
	free(row);
	/* the links to each entry's page, relative as the record stores them */
	row = row_of(html, "dcp");
	assert_has(row, "<a href=\"entries/0000-dcp/report.html\">dcp</a>");
	free(row);
	row = row_of(html, "broken");
	assert_has(row, "<a href=\"entries/0002-broken/report.html\">broken</a>");
	assert_has(row, "data-outcome=\"fail\" data-as-expected=\"false\"");
	free(row);
	/* no report: its outcome and cause across the rules, no link */
	row = row_of(html, "crash");
	assert_has(row, "data-outcome=\"error\"");
	assert_has(row, "colspan=\"7\">no report: killed by SIGSEGV (firmware crashed)");
	assert_lacks(row, "<a ");
	assert_lacks(row, "class=\"cell ");
	free(row);
	/* the doc's totals and exit code; the legend; the entries not as expected */
	assert_has(html, "data-total=\"xfail\">1</td>");
	assert_has(html, "data-total=\"fail\">1</td>");
	assert_has(html, "data-total=\"error\">1</td>");
	assert_has(html, "data-total=\"unexpected\">2</td>");
	assert_has(html, "data-total=\"exit_code\">3</td>");
	assert_has(html, "<table id=\"legend\">");
	assert_has(html, "<li data-entry=\"broken\">");
	assert_has(html, "<li data-entry=\"crash\">");
	assert_lacks(html, "<li data-entry=\"weak\">");
	free(html);
	cJSON_Delete(doc);
}

/* Columns: the rules' report order (detection, host choice, current),
 * then a bc12 id this bcbench does not know, expectations last by line
 * (L9 before L12). */
static void test_suite_html__column_order(void **state)
{
	const struct scratch *s = *state;
	cJSON *doc = failing_suite(s);
	char *html = render(s, doc, NULL, NULL);
	const char *order[] = { "bc12.det.port_type", "bc12.host.connect_time",
				"bc12.cur.idev_chg", "bc12.cur.droop", "bc12.aaa.unknown",
				"expect.L9", "expect.L12" };
	const char *prev = NULL;

	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		char key[128];
		const char *at;

		snprintf(key, sizeof(key), "<th class=\"rule\" data-rule=\"%s\"", order[i]);
		at = strstr(html, key);
		if (!at)
			fail_msg("no column %s", order[i]);
		if (prev && at < prev)
			fail_msg("column %s before %s", order[i], order[i - 1]);
		prev = at;
	}
	free(html);
	cJSON_Delete(doc);
}

static void test_suite_html__verdict_not_compliant(void **state)
{
	const struct scratch *s = *state;
	cJSON *doc = failing_suite(s);
	char *html = render(s, doc, NULL, NULL);

	assert_has(html, "<div id=\"verdict\" data-verdict=\"not-compliant\" "
			 "class=\"banner verdict v-not-compliant\">Overall: not compliant</div>");
	free(html);
	cJSON_Delete(doc);
}

/* No failure the suite does not expect; one rule inconclusive. The
 * expected failure of weak does not make the suite not compliant. */
static void test_suite_html__verdict_not_demonstrated(void **state)
{
	const struct scratch *s = *state;
	cJSON *e[4], *doc;
	int n = 0;
	char *html;

	add_good(s, e, &n);
	e[n++] = entry(s, 2, "incon", REPORT("bc12.det.port_type=inconclusive", "expect.L9=pass"),
		       "pass", true, NULL, NULL);
	doc = suite_of("inconclusive", e, n);
	html = render(s, doc, NULL, NULL);
	assert_has(html, "<div id=\"verdict\" data-verdict=\"not-demonstrated\" "
			 "class=\"banner verdict v-not-demonstrated\">Overall: compliance not "
			 "demonstrated</div>");
	assert_cell(html, "incon", "bc12.det.port_type", "inconclusive");
	assert_has(html, ">INC</td>");
	free(html);
	cJSON_Delete(doc);
}

/* Every entry as expected: a pass (with a warning) and an expected
 * failure. */
static void test_suite_html__verdict_compliant(void **state)
{
	const struct scratch *s = *state;
	cJSON *e[4], *doc;
	int n = 0;
	char *html;

	add_good(s, e, &n);
	doc = suite_of("good", e, n);
	html = render(s, doc, NULL, NULL);
	assert_has(html, "<div id=\"verdict\" data-verdict=\"compliant\" "
			 "class=\"banner verdict v-compliant\">Overall: compliant</div>");
	assert_has(html, "<p>Every entry did what the suite expects.</p>");
	assert_lacks(html, "id=\"diff\"");
	free(html);
	cJSON_Delete(doc);
}

/* A device entry whose port failed: the port's failure is shown (its cell
 * says its side, the other side's section lists it) and does not make the
 * entry, or the suite, not compliant. */
static void test_suite_html__other_side(void **state)
{
	const struct scratch *s = *state;
	cJSON *e[4], *doc, *rep, *r;
	int n = 0;
	char *html, *row;

	add_good(s, e, &n);
	rep = REPORT("bc12.det.port_type=pass", "bc12.port.tvdmsrc_en=fail");
	cJSON_ReplaceItemInObjectCaseSensitive(rep, "schema", cJSON_CreateString("bcbench-report/3"));
	cJSON_AddStringToObject(rep, "judges", "device");
	cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(rep, "results"))
		cJSON_AddStringToObject(r, "side", strncmp(bn_jstr_test(r, "id"), "bc12.port.", 10)
							   ? "device" : "port");
	e[n] = entry(s, n, "late", rep, "pass", true, NULL, NULL);
	cJSON_AddStringToObject(e[n], "judges", "device");
	cJSON_AddItemToArray(cJSON_AddArrayToObject(e[n], "other_side"),
			     cJSON_CreateString("bc12.port.tvdmsrc_en failed (the port's; the entry "
						"judges the device: not counted)"));
	n++;
	doc = suite_of("late", e, n);
	html = render(s, doc, NULL, NULL);
	assert_has(html, "data-verdict=\"compliant\" class=\"banner verdict v-compliant\"");
	assert_has(html, "<p>Every entry did what the suite expects.</p>");
	assert_cell(html, "late", "bc12.port.tvdmsrc_en", "fail");
	row = row_of(html, "late");
	assert_has(row, "data-judges=\"device\"");
	assert_has(row, "data-side=\"port\" data-other-side=\"true\" title=\"port side: fail");
	assert_has(row, "data-side=\"device\" title=\"device side: pass");
	free(row);
	assert_has(html, "<section id=\"other-side\">");
	assert_has(html, "<li data-entry=\"late\"><b>late</b> (judges the device)<ul><li>"
			 "bc12.port.tvdmsrc_en failed (the port&#39;s; the entry judges the device: "
			 "not counted)</li>");
	free(html);
	cJSON_Delete(doc);

	/* no other side's failure: no section */
	n = 0;
	add_good(s, e, &n);
	doc = suite_of("good", e, n);
	html = render(s, doc, NULL, NULL);
	assert_lacks(html, "id=\"other-side\"");
	free(html);
	cJSON_Delete(doc);
}

/* A report changed since the suite ran: refused, naming the entry and the
 * file; nothing written. */
static void test_suite_html__report_changed(void **state)
{
	const struct scratch *s = *state;
	cJSON *doc = failing_suite(s);
	struct bn_err err = { 0 };
	char path[600], out[600];
	FILE *f;

	snprintf(path, sizeof(path), "%s/entries/0001-weak/report.json", s->dir);
	f = fopen(path, "a");
	assert_non_null(f);
	fputs(" ", f);
	fclose(f);
	assert_null(bn_suite_html_render(doc, s->suite, NULL, NULL, &err));
	assert_int_equal(err.code, BN_ERR_DATA);
	assert_msg_has(&err, "entry \"weak\"");
	assert_msg_has(&err, "entries/0001-weak/report.json");
	assert_msg_has(&err, "changed since the suite ran");

	memset(&err, 0, sizeof(err));
	snprintf(out, sizeof(out), "%s/report.html", s->dir);
	assert_int_equal(bn_suite_html_write(doc, s->suite, NULL, NULL, out, &err), BN_ERR_DATA);
	assert_int_equal(access(out, F_OK), -1);
	cJSON_Delete(doc);
}

/* A report gone: refused too. */
static void test_suite_html__report_gone(void **state)
{
	const struct scratch *s = *state;
	cJSON *doc = failing_suite(s);
	struct bn_err err = { 0 };
	char path[600];

	snprintf(path, sizeof(path), "%s/entries/0002-broken/report.json", s->dir);
	assert_int_equal(unlink(path), 0);
	assert_null(bn_suite_html_render(doc, s->suite, NULL, NULL, &err));
	assert_int_equal(err.code, BN_ERR_DATA);
	assert_msg_has(&err, "entry \"broken\"");
	cJSON_Delete(doc);
}

/* Against a baseline where broken passed: its rule is a new failure. The
 * baseline's reports live in a directory of their own. */
static void test_suite_html__diff(void **state)
{
	struct scratch *s = *state, bs = { 0 };
	cJSON *doc, *base, *e[4];
	char *html, *sect;
	int n = 0;

	snprintf(bs.dir, sizeof(bs.dir), "%.240s/base", s->dir);
	snprintf(bs.suite, sizeof(bs.suite), "%s/suite.json", bs.dir);
	add_good(&bs, e, &n);
	e[n++] = entry(&bs, 2, "broken", REPORT("bc12.det.port_type=pass", "expect.L9=pass"),
		       "pass", true, NULL, NULL);
	e[n++] = entry(&bs, 3, "crash", REPORT("bc12.det.port_type=pass"), "pass", true, NULL,
		       NULL);
	base = suite_of("base", e, n);
	doc = failing_suite(s);
	html = render(s, doc, base, bs.suite);
	sect = strstr(html, "<section id=\"diff\">");
	assert_non_null(sect);
	assert_has(sect, "<ul class=\"diff\" data-cat=\"new-failure\">");
	assert_has(strstr(sect, "data-cat=\"new-failure\""),
		   "<li>[broken] bc12.det.port_type: pass -&gt; fail");
	assert_has(sect, "data-cat=\"new-error\"");
	assert_has(sect, "data-regressions=\"");
	assert_lacks(sect, "data-regressions=\"0\"");
	assert_has(html, "<dt>Baseline</dt>");
	free(html);

	/* the same suite as its own baseline: a diff section without rows */
	html = render(s, doc, doc, s->suite);
	sect = strstr(html, "<section id=\"diff\">");
	assert_non_null(sect);
	assert_has(sect, "data-regressions=\"0\"");
	assert_lacks(sect, "<ul class=\"diff\"");
	free(html);
	cJSON_Delete(base);
	cJSON_Delete(doc);
}

/* The same records give the same bytes, on screen and on disk. */
static void test_suite_html__deterministic(void **state)
{
	const struct scratch *s = *state;
	cJSON *doc = failing_suite(s);
	char *a = render(s, doc, doc, s->suite), *b = render(s, doc, doc, s->suite), *disk = NULL;
	struct bn_err err = { 0 };
	char out[600];
	size_t len = 0;

	assert_string_equal(a, b);
	snprintf(out, sizeof(out), "%s/report.html", s->dir);
	assert_int_equal(bn_suite_html_write(doc, s->suite, doc, s->suite, out, &err), BN_OK);
	assert_int_equal(bn_file_read(out, &disk, &len, &err), BN_OK);
	assert_int_equal(len, strlen(a));
	assert_memory_equal(disk, a, len);
	/* one file: nothing fetched */
	assert_lacks(a, "<script");
	assert_lacks(a, "<link");
	assert_lacks(a, "http://");
	assert_lacks(a, "https://");
	free(disk);
	free(a);
	free(b);
	cJSON_Delete(doc);
}

/* An entry id with HTML specials: escaped in the attribute, the text and
 * the link (percent-encoded there). */
static void test_suite_html__escaping(void **state)
{
	const struct scratch *s = *state;
	cJSON *e[4], *doc;
	int n = 0;
	char *html, *row;

	add_good(s, e, &n);
	e[n++] = entry(s, 4, NASTY_ID, REPORT("bc12.det.port_type=pass"), "pass", true, NULL,
		       NULL);
	doc = suite_of("nasty <suite>", e, n);
	html = render(s, doc, NULL, NULL);
	assert_lacks(html, NASTY_ID);
	assert_lacks(html, "nasty <suite>");
	assert_has(html, "<title>bcbench suite: nasty &lt;suite&gt;</title>");
	row = row_of(html, "a&lt;b&gt;&amp;c");
	assert_has(row, "<a href=\"entries/0004-a%3Cb%3E%26c/report.html\">a&lt;b&gt;&amp;c</a>");
	free(row);
	assert_cell(html, "a&lt;b&gt;&amp;c", "bc12.det.port_type", "pass");
	free(html);
	cJSON_Delete(doc);
}

/* Not a suite record: refused. */
static void test_suite_html__not_a_suite(void **state)
{
	const struct scratch *s = *state;
	cJSON *doc = cJSON_Parse("{\"schema\": \"bcbench-suite/1\", \"entries\": []}");
	struct bn_err err = { 0 };

	assert_null(bn_suite_html_render(doc, s->suite, NULL, NULL, &err));
	assert_int_equal(err.code, BN_ERR_DATA);
	assert_msg_has(&err, "older suite record");
	cJSON_Delete(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_suite_html__matrix, scratch_setup,
						scratch_teardown),
		cmocka_unit_test_setup_teardown(test_suite_html__column_order, scratch_setup,
						scratch_teardown),
		cmocka_unit_test_setup_teardown(test_suite_html__verdict_not_compliant,
						scratch_setup, scratch_teardown),
		cmocka_unit_test_setup_teardown(test_suite_html__verdict_not_demonstrated,
						scratch_setup, scratch_teardown),
		cmocka_unit_test_setup_teardown(test_suite_html__verdict_compliant, scratch_setup,
						scratch_teardown),
		cmocka_unit_test_setup_teardown(test_suite_html__report_changed, scratch_setup,
						scratch_teardown),
		cmocka_unit_test_setup_teardown(test_suite_html__report_gone, scratch_setup,
						scratch_teardown),
		cmocka_unit_test_setup_teardown(test_suite_html__diff, scratch_setup,
						scratch_teardown),
		cmocka_unit_test_setup_teardown(test_suite_html__deterministic, scratch_setup,
						scratch_teardown),
		cmocka_unit_test_setup_teardown(test_suite_html__escaping, scratch_setup,
						scratch_teardown),
		cmocka_unit_test_setup_teardown(test_suite_html__other_side, scratch_setup,
						scratch_teardown),
		cmocka_unit_test_setup_teardown(test_suite_html__not_a_suite, scratch_setup,
						scratch_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
