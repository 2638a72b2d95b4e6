/* JUnit XML from a suite document: the mapping of entries and verdicts
 * (xfail, xpass, warnings, skips, bench faults), escaping, counts that match
 * the elements written, refusal of documents that are not bcbench-suite/2,
 * and validation with xmllint against the Jenkins xUnit plugin's JUnit
 * schema (tests/data/junit/junit-10.xsd). Each test works in its own
 * scratch directory under $TMPDIR. The documents are built here with each
 * report inline, for the tests to change; render() writes the reports out
 * to the scratch directory and names them by path and sha256, as
 * suite.json does, before rendering. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "lib/harness.h"
#include "core/err.h"
#include "core/file.h"
#include "report/junit.h"

#define JUNIT_XSD "tests/data/junit/junit-10.xsd"

/* The text of the result whose escaping is checked: XML specials, a
 * control byte, a byte that is not UTF-8, and UTF-8 that must survive. */
#define NASTY_TEXT "I <&\"'> 100 \xc2\xb5" "A\x01 \xff!"
#define NASTY_ESCAPED "I &lt;&amp;&quot;&apos;&gt; 100 \xc2\xb5" "A\xef\xbf\xbd \xef\xbf\xbd!"

struct scratch {
	char dir[256];
};

static int scratch_setup(void **state)
{
	struct scratch *s = calloc(1, sizeof(*s));
	const char *tmp = getenv("TMPDIR");

	if (!s)
		return -1;
	snprintf(s->dir, sizeof(s->dir), "%s/bn_test_junit.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(s->dir)) {
		free(s);
		return -1;
	}
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

static void path_in(const struct scratch *s, const char *name, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", s->dir, name);
}

/* doc as suite.json holds it (bcbench-suite/2): a copy whose entries'
 * inline reports are written to DIR/rN.json and named by path and
 * sha256. NULL for NULL. */
static cJSON *externalize(const struct scratch *s, const cJSON *doc)
{
	cJSON *out = cJSON_Duplicate(doc, true), *e;
	int n = 0;

	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(out, "entries")) {
		cJSON *rep = cJSON_GetObjectItemCaseSensitive(e, "report"), *ref;
		char name[32], path[512], sha[65], *text;
		struct bn_err err = { 0 };

		if (!cJSON_IsObject(rep))
			continue;
		text = cJSON_Print(rep);
		assert_non_null(text);
		snprintf(name, sizeof(name), "r%d.json", n++);
		path_in(s, name, path, sizeof(path));
		assert_int_equal(bn_file_write_atomic(path, text, strlen(text), &err), BN_OK);
		bn_sha256_hex(text, strlen(text), sha);
		free(text);
		ref = cJSON_CreateObject();
		cJSON_AddStringToObject(ref, "path", name);
		cJSON_AddStringToObject(ref, "sha256", sha);
		cJSON_ReplaceItemInObjectCaseSensitive(e, "report", ref);
	}
	return out;
}

/* bn_junit_render of doc as suite.json names its reports. */
static char *render(void **state, const cJSON *doc, struct bn_err *err)
{
	const struct scratch *s = *state;
	cJSON *ext = externalize(s, doc);
	char suite_path[512], *xml;

	path_in(s, "suite.json", suite_path, sizeof(suite_path));
	xml = bn_junit_render(ext, suite_path, err);
	cJSON_Delete(ext);
	return xml;
}

static int write_xml(void **state, const cJSON *doc, const char *path, struct bn_err *err)
{
	const struct scratch *s = *state;
	cJSON *ext = externalize(s, doc);
	char suite_path[512];
	int rc;

	path_in(s, "suite.json", suite_path, sizeof(suite_path));
	rc = bn_junit_write(ext, suite_path, path, err);
	cJSON_Delete(ext);
	return rc;
}

/* ---- building a suite document ---- */

static cJSON *get(const cJSON *o, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(o, key);
}

static void set_str(cJSON *o, const char *key, const char *value)
{
	if (cJSON_GetObjectItemCaseSensitive(o, key))
		cJSON_ReplaceItemInObjectCaseSensitive(o, key, cJSON_CreateString(value));
	else
		cJSON_AddStringToObject(o, key, value);
}

static cJSON *entry_at(const cJSON *doc, int i)
{
	return cJSON_GetArrayItem(get(doc, "entries"), i);
}

static cJSON *results_of(const cJSON *doc, int i)
{
	return get(get(entry_at(doc, i), "report"), "results");
}

static cJSON *add_result(cJSON *results, const char *id, const char *verdict, const char *text)
{
	cJSON *r = cJSON_CreateObject(), *lim;

	cJSON_AddStringToObject(r, "id", id);
	cJSON_AddStringToObject(r, "kind", strncmp(id, "expect.", 7) == 0 ? "expect" : "check");
	cJSON_AddNullToObject(r, "task");
	cJSON_AddStringToObject(r, "verdict", verdict);
	cJSON_AddStringToObject(r, "text", text);
	cJSON_AddNullToObject(r, "measured");
	cJSON_AddStringToObject(r, "unit", "");
	lim = cJSON_AddObjectToObject(r, "limit");
	cJSON_AddStringToObject(lim, "name", "");
	cJSON_AddNullToObject(lim, "min");
	cJSON_AddNullToObject(lim, "max");
	cJSON_AddNullToObject(r, "margin");
	cJSON_AddNullToObject(r, "window");
	cJSON_AddItemToArray(results, r);
	return r;
}

/* measured, unit, limit (NAN: open), margin, reason of a result. */
static void set_measure(cJSON *r, double measured, const char *unit, const char *limit,
			double min, double max, double margin, const char *reason)
{
	cJSON *lim = cJSON_GetObjectItemCaseSensitive(r, "limit");

	cJSON_ReplaceItemInObjectCaseSensitive(r, "measured", cJSON_CreateNumber(measured));
	cJSON_ReplaceItemInObjectCaseSensitive(r, "unit", cJSON_CreateString(unit));
	cJSON_ReplaceItemInObjectCaseSensitive(lim, "name", cJSON_CreateString(limit));
	if (!isnan(min))
		cJSON_ReplaceItemInObjectCaseSensitive(lim, "min", cJSON_CreateNumber(min));
	if (!isnan(max))
		cJSON_ReplaceItemInObjectCaseSensitive(lim, "max", cJSON_CreateNumber(max));
	cJSON_ReplaceItemInObjectCaseSensitive(r, "margin", cJSON_CreateNumber(margin));
	if (reason)
		cJSON_AddStringToObject(r, "reason", reason);
}

static cJSON *add_report(cJSON *entry, const char *state, const char *firmware)
{
	cJSON *rep = cJSON_CreateObject(), *o, *files, *f;

	cJSON_AddStringToObject(rep, "schema", "bcbench-report/1");
	o = cJSON_AddObjectToObject(rep, "bench");
	cJSON_AddStringToObject(o, "backend", "sim");
	o = cJSON_AddObjectToObject(rep, "scenario");
	cJSON_AddStringToObject(o, "name", "dcp-weak");
	o = cJSON_AddObjectToObject(rep, "dut");
	cJSON_AddStringToObject(o, "firmware", firmware);
	files = cJSON_AddArrayToObject(rep, "files");
	f = cJSON_CreateObject();
	cJSON_AddStringToObject(f, "role", "limits");
	cJSON_AddStringToObject(f, "path", "profiles/limits/bc12.json");
	cJSON_AddStringToObject(f, "sha256", "ab12");
	cJSON_AddItemToArray(files, f);
	cJSON_AddArrayToObject(rep, "results");
	o = cJSON_AddObjectToObject(rep, "status");
	cJSON_AddStringToObject(o, "state", state);
	cJSON_AddNullToObject(o, "reason");
	cJSON_AddNumberToObject(o, "exit_code", 0);
	cJSON_ReplaceItemInObjectCaseSensitive(entry, "report", rep);
	return cJSON_GetObjectItemCaseSensitive(rep, "results");
}

/* An entry with the expectation (rules: NULL-terminated, or NULL) and the
 * outcome; its report is null until add_report. */
static cJSON *add_entry(cJSON *doc, const char *id, const char *expect, const char *const *rules,
			const char *outcome, int exit_code)
{
	cJSON *entries = cJSON_GetObjectItemCaseSensitive(doc, "entries");
	cJSON *e = cJSON_CreateObject(), *p, *x, *a;

	cJSON_AddNumberToObject(e, "index", cJSON_GetArraySize(entries));
	cJSON_AddStringToObject(e, "id", id);
	cJSON_AddStringToObject(e, "scenario", "scripts/scenarios/dcp-weak.scn");
	cJSON_AddNumberToObject(e, "line", 3 + cJSON_GetArraySize(entries));
	p = cJSON_AddObjectToObject(e, "params");
	cJSON_AddStringToObject(p, "port", "dcp");
	cJSON_AddStringToObject(p, "charger", "dcp-weak");
	cJSON_AddNullToObject(p, "host");
	cJSON_AddNullToObject(p, "dut");
	cJSON_AddStringToObject(p, "firmware", "from_params");
	x = cJSON_AddObjectToObject(e, "expect");
	cJSON_AddStringToObject(x, "outcome", expect);
	a = cJSON_AddArrayToObject(x, "rules");
	for (int i = 0; rules && rules[i]; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(rules[i]));
	cJSON_AddStringToObject(e, "outcome", outcome);
	cJSON_AddBoolToObject(e, "as_expected",
			      strcmp(outcome, "fail") != 0 && strcmp(outcome, "xpass") != 0);
	cJSON_AddArrayToObject(e, "unexpected");
	cJSON_AddNumberToObject(e, "exit_code", exit_code);
	cJSON_AddNullToObject(e, "cause");
	cJSON_AddNumberToObject(e, "wall_s", 0.25);
	cJSON_AddStringToObject(e, "dir", "entries/0000-x");
	cJSON_AddNullToObject(e, "report");
	cJSON_AddItemToArray(entries, e);
	return e;
}

/* Six entries: pass (with a warning and a skipped rule), xfail, xpass, an
 * unexpected fail (with an inconclusive rule and the nasty text), an
 * unexpected error without a report, an expected error. 11 testcases:
 * 2 failures, 1 error, 2 skipped. */
static cJSON *make_doc(void)
{
	static const char *const droop[] = { "bc12.cur.droop", NULL };
	static const char *const cdp[] = { "bc12.det.cdp", NULL };
	cJSON *doc = cJSON_CreateObject(), *o, *e, *res, *r, *w;

	cJSON_AddStringToObject(doc, "schema", "bcbench-suite/2");
	o = cJSON_AddObjectToObject(doc, "tool");
	cJSON_AddStringToObject(o, "name", "bcbench");
	o = cJSON_AddObjectToObject(doc, "suite");
	cJSON_AddStringToObject(o, "name", "BC-1.2 regression");
	o = cJSON_AddObjectToObject(doc, "bench");
	cJSON_AddStringToObject(o, "backend", "sim");
	o = cJSON_AddObjectToObject(doc, "limits");
	cJSON_AddStringToObject(o, "path", "profiles/limits/suite.json");
	cJSON_AddStringToObject(o, "sha256", "cd34");
	cJSON_AddArrayToObject(doc, "entries");

	e = add_entry(doc, "pass/dcp/ref", "pass", NULL, "pass", 0);
	res = add_report(e, "completed", "reference");
	r = add_result(res, "bc12.det.port_type", "pass", "port type DCP");
	w = cJSON_CreateObject();
	cJSON_AddNumberToObject(w, "t0_s", 0.1);
	cJSON_AddNumberToObject(w, "t1_s", 0.35);
	cJSON_ReplaceItemInObjectCaseSensitive(r, "window", w);
	add_result(res, "expect.L12", "pass", "expect vbus >= 4.75V");
	r = add_result(res, "bc12.cur.ripple", "fail", "ripple");
	cJSON_AddStringToObject(r, "severity", "warning");
	r = add_result(res, "bc12.aca.rid", "skipped", "ACA resistance");
	cJSON_AddStringToObject(r, "reason", "no ACA on this port");

	e = add_entry(doc, "xfail/dcp-weak/ignore_droop", "fail", droop, "xfail", 1);
	res = add_report(e, "completed", "ignore_droop");
	r = add_result(res, "bc12.cur.droop", "fail", "current under droop");
	set_measure(r, 0.42, "A", "i_droop", 0.5, NAN, -0.08, NULL);
	add_result(res, "bc12.det.port_type", "pass", "port type DCP");

	e = add_entry(doc, "xpass/cdp/good", "fail", cdp, "xpass", 0);
	res = add_report(e, "completed", "reference");
	add_result(res, "bc12.det.cdp", "pass", "CDP detected");

	e = add_entry(doc, "fail/sdp/unconfigured_500", "pass", NULL, "fail", 1);
	res = add_report(e, "completed", "unconfigured_500");
	r = add_result(res, "bc12.cur.unconfigured", "fail", NASTY_TEXT);
	set_measure(r, 0.5, "A", "i_unconfigured", NAN, 0.1, -0.4, "drew 500 mA unconfigured");
	r = add_result(res, "bc12.dbp.t", "inconclusive", "dead battery provision");
	cJSON_AddStringToObject(r, "reason", "no DBP seen in the capture");

	e = add_entry(doc, "error/dcp/livelock", "pass", NULL, "error", -1);
	set_str(e, "cause", "killed by SIGSEGV (firmware crashed)");

	e = add_entry(doc, "error-expected/dcp/hang", "error", NULL, "error", -1);
	set_str(e, "cause", "watchdog: no progress for 10 s");
	return doc;
}

/* ---- reading the XML back ---- */

static int count_in(const char *from, const char *to, const char *needle)
{
	int n = 0;
	size_t len = strlen(needle);

	for (const char *p = strstr(from, needle); p && (!to || p < to);
	     p = strstr(p + len, needle))
		n++;
	return n;
}

static int attr_int(const char *tag, const char *name)
{
	char key[64];
	const char *p, *end = strchr(tag, '>');

	snprintf(key, sizeof(key), " %s=\"", name);
	p = strstr(tag, key);
	if (!p || p > end)
		return -1;
	return atoi(p + strlen(key));
}

/* The <testcase> element named name, from its start to its end. */
static char *testcase(const char *xml, const char *classname, const char *name)
{
	char key[300];
	const char *p, *end;
	char *out;

	snprintf(key, sizeof(key), "<testcase classname=\"%s\" name=\"%s\"", classname, name);
	p = strstr(xml, key);
	if (!p)
		fail_msg("no testcase %s %s", classname, name);
	end = strstr(p, "\n    <testcase");
	if (!end)
		end = strstr(p, "</testsuite>");
	out = strndup(p, (size_t)(end - p));
	assert_non_null(out);
	return out;
}

#define assert_has(hay, needle)                                                             \
	do {                                                                                \
		if (!strstr((hay), (needle)))                                               \
			fail_msg("\"%s\" lacks \"%s\"", (hay), (needle));                   \
	} while (0)

#define assert_lacks(hay, needle)                                                           \
	do {                                                                                \
		if (strstr((hay), (needle)))                                                \
			fail_msg("\"%s\" has \"%s\"", (hay), (needle));                     \
	} while (0)

/* xmllint --schema on path: its exit status (0: valid), its messages
 * printed on failure when show. */
static int xmllint_schema(const struct scratch *s, const char *path, int show)
{
	char xsd[512], log[512], cmd[2048];
	int rc;

	assert_int_equal(system("command -v xmllint >/dev/null 2>&1"), 0);
	bn_test_path(JUNIT_XSD, xsd, sizeof(xsd));
	path_in(s, "xmllint.log", log, sizeof(log));
	snprintf(cmd, sizeof(cmd), "xmllint --noout --schema '%s' '%s' >'%s' 2>&1", xsd, path, log);
	rc = system(cmd);
	if (rc != 0 && show) {
		snprintf(cmd, sizeof(cmd), "cat '%s' >&2", log);
		if (system(cmd) != 0)
			print_error("cannot show %s\n", log);
	}
	return rc == -1 ? -1 : WIFEXITED(rc) ? WEXITSTATUS(rc) : 128;
}

/* ---- tests ---- */

static void test_junit__render_validates(void **state)
{
	struct scratch *s = *state;
	struct bn_err err = { 0 };
	cJSON *doc = make_doc();
	char path[512], *text = NULL;
	size_t len;

	path_in(s, "junit.xml", path, sizeof(path));
	assert_int_equal(write_xml(state, doc, path, &err), BN_OK);
	assert_int_equal(err.code, BN_OK);
	assert_int_equal(xmllint_schema(s, path, 1), 0);
	/* The file is what render gives. */
	assert_int_equal(bn_file_read(path, &text, &len, &err), BN_OK);
	{
		char *again = render(state, doc, &err);

		assert_non_null(again);
		assert_string_equal(text, again);
		free(again);
	}
	assert_has(text, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
			 "<testsuites name=\"BC-1.2 regression\"");
	free(text);
	cJSON_Delete(doc);
}

static void test_junit__counts(void **state)
{
	struct bn_err err = { 0 };
	cJSON *doc = make_doc();
	char *xml = render(state, doc, &err);
	const char *p, *end;
	int suites = 0, tests = 0, failures = 0, errors = 0, skipped = 0;

	(void)state;
	assert_non_null(xml);
	/* Every <testsuite>'s attributes are the elements inside it. */
	for (p = strstr(xml, "<testsuite "); p; p = strstr(end, "<testsuite ")) {
		end = strstr(p, "</testsuite>");
		assert_non_null(end);
		assert_int_equal(attr_int(p, "tests"), count_in(p, end, "<testcase "));
		assert_int_equal(attr_int(p, "failures"), count_in(p, end, "<failure "));
		assert_int_equal(attr_int(p, "errors"), count_in(p, end, "<error "));
		assert_int_equal(attr_int(p, "skipped"), count_in(p, end, "<skipped "));
		suites++;
	}
	assert_int_equal(suites, 6);
	/* And the document implies 11 testcases: 2 failures (the unexpected
	 * fail, the xpass), 1 error (the crash), 2 skipped. */
	tests = count_in(xml, NULL, "<testcase ");
	failures = count_in(xml, NULL, "<failure ");
	errors = count_in(xml, NULL, "<error ");
	skipped = count_in(xml, NULL, "<skipped ");
	assert_int_equal(tests, 11);
	assert_int_equal(failures, 2);
	assert_int_equal(errors, 1);
	assert_int_equal(skipped, 2);
	p = strstr(xml, "<testsuites ");
	assert_int_equal(attr_int(p, "tests"), tests);
	assert_int_equal(attr_int(p, "failures"), failures);
	assert_int_equal(attr_int(p, "errors"), errors);
	assert_has(xml, "<testsuite name=\"xpass/cdp/good\" tests=\"1\" failures=\"1\" "
			"errors=\"0\" skipped=\"0\" time=\"0.250\">");
	assert_has(xml, "<testsuite name=\"pass/dcp/ref\" tests=\"4\" failures=\"0\" errors=\"0\" "
			"skipped=\"1\"");
	free(xml);
	cJSON_Delete(doc);
}

/* A rule listed as xfail that fired only as a warning did what the suite
 * expects (suite/judge.c judges it so): no failure. */
static void test_junit__listed_warning_is_xfail(void **state)
{
	struct bn_err err = { 0 };
	cJSON *doc = make_doc(), *e, *ex, *rules;
	char *xml, *tc;

	(void)state;
	e = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "entries"), 0);
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(e, "id")->valuestring, "pass/dcp/ref");
	ex = cJSON_GetObjectItemCaseSensitive(e, "expect");
	cJSON_ReplaceItemInObjectCaseSensitive(ex, "outcome", cJSON_CreateString("fail"));
	rules = cJSON_CreateArray();
	cJSON_AddItemToArray(rules, cJSON_CreateString("bc12.cur.ripple"));
	cJSON_ReplaceItemInObjectCaseSensitive(ex, "rules", rules);
	cJSON_ReplaceItemInObjectCaseSensitive(e, "outcome", cJSON_CreateString("xfail"));
	xml = render(state, doc, &err);
	assert_non_null(xml);
	tc = testcase(xml, "bcbench.pass.dcp.ref", "bc12.cur.ripple: ripple");
	assert_lacks(tc, "<failure");
	assert_has(tc, "expected failure (xfail)");
	free(tc);
	free(xml);
	cJSON_Delete(doc);
}

static void test_junit__failure_message(void **state)
{
	struct bn_err err = { 0 };
	cJSON *doc = make_doc();
	char *xml = render(state, doc, &err), *tc;

	(void)state;
	assert_non_null(xml);
	tc = testcase(xml, "bcbench.fail.sdp.unconfigured_500",
		      "bc12.cur.unconfigured: " NASTY_ESCAPED);
	assert_has(tc, "<failure message=\"");
	/* the cause string of its exit code (core/exit.h) */
	assert_has(tc, "type=\"rule-failed\"");
	assert_has(tc, "measured 0.5 A");
	assert_has(tc, "limit i_unconfigured (max 0.1 A)");
	assert_has(tc, "margin -0.4 A");
	assert_has(tc, "drew 500 mA unconfigured");
	assert_has(tc, "<system-out>");
	free(tc);
	/* No time of its own (its window is bench time, not the test's);
	 * a warning passes and says so. */
	tc = testcase(xml, "bcbench.pass.dcp.ref", "bc12.det.port_type: port type DCP");
	assert_has(tc, "time=\"0.000\">");
	/* a pass says what was measured against which limit */
	assert_has(tc, "<system-out>");
	assert_lacks(tc, "<failure");
	free(tc);
	tc = testcase(xml, "bcbench.pass.dcp.ref", "bc12.cur.ripple: ripple");
	assert_lacks(tc, "<failure");
	assert_has(tc, "<system-out>warning");
	free(tc);
	tc = testcase(xml, "bcbench.pass.dcp.ref", "bc12.aca.rid: ACA resistance");
	assert_has(tc, "<skipped message=\"not applicable: no ACA on this port\" "
		       "type=\"not-applicable\">not applicable: no ACA on this port</skipped>");
	free(tc);
	tc = testcase(xml, "bcbench.fail.sdp.unconfigured_500", "bc12.dbp.t: dead battery provision");
	assert_has(tc, "<skipped message=\"inconclusive: no DBP seen in the capture\" "
		       "type=\"inconclusive\">inconclusive: no DBP seen in the capture</skipped>");
	free(tc);
	/* A warning given as "warning": true instead of "severity". */
	{
		cJSON *r = cJSON_GetArrayItem(results_of(doc, 0), 2);
		char *x2;

		cJSON_DeleteItemFromObjectCaseSensitive(r, "severity");
		cJSON_AddTrueToObject(r, "warning");
		x2 = render(state, doc, &err);
		assert_non_null(x2);
		tc = testcase(x2, "bcbench.pass.dcp.ref", "bc12.cur.ripple: ripple");
		assert_lacks(tc, "<failure");
		assert_has(tc, "<system-out>warning");
		free(tc);
		free(x2);
	}
	/* Properties: the report's firmware and limits before the params' and
	 * the suite's. */
	assert_has(xml, "<property name=\"dut.firmware\" value=\"unconfigured_500\"/>");
	assert_has(xml, "<property name=\"limits.sha256\" value=\"ab12\"/>");
	assert_has(xml, "<property name=\"expect.outcome\" value=\"fail\"/>");
	free(xml);
	cJSON_Delete(doc);
}

static void test_junit__xfail_xpass(void **state)
{
	struct bn_err err = { 0 };
	cJSON *doc = make_doc();
	char *xml = render(state, doc, &err), *tc;

	(void)state;
	assert_non_null(xml);
	tc = testcase(xml, "bcbench.xfail.dcp-weak.ignore_droop", "bc12.cur.droop: current under droop");
	assert_lacks(tc, "<failure");
	assert_lacks(tc, "<error");
	assert_has(tc, "<system-out>expected failure (xfail): current under droop: "
		       "measured 0.42 A; limit i_droop (min 0.5 A); margin -0.08 A</system-out>");
	free(tc);
	tc = testcase(xml, "bcbench.xpass.cdp.good", "bc12.det.cdp: CDP detected");
	assert_has(tc, "<failure message=\"expected to fail (xfail) but was pass");
	assert_has(tc, "type=\"rule-failed\"");
	free(tc);
	/* A listed rule with no result at all is an xpass too. */
	{
		cJSON *rules = get(get(entry_at(doc, 2), "expect"), "rules");
		char *x2;

		cJSON_AddItemToArray(rules, cJSON_CreateString("bc12.det.gone"));
		x2 = render(state, doc, &err);
		assert_non_null(x2);
		tc = testcase(x2, "bcbench.xpass.cdp.good", "bc12.det.gone");
		assert_has(tc, "type=\"rule-failed\"");
		free(tc);
		free(x2);
	}
	free(xml);
	cJSON_Delete(doc);
}

static void test_junit__run_error(void **state)
{
	struct bn_err err = { 0 };
	cJSON *doc = make_doc();
	char *xml = render(state, doc, &err), *tc;

	(void)state;
	assert_non_null(xml);
	tc = testcase(xml, "bcbench.error.dcp.livelock", "run");
	/* a record from before exit_cause: the device's */
	assert_has(tc, "<error message=\"killed by SIGSEGV (firmware crashed)\" "
		       "type=\"device-broke-run\">killed by SIGSEGV (firmware crashed)</error>");
	assert_has(tc, "exit code -1");
	free(tc);
	tc = testcase(xml, "bcbench.error-expected.dcp.hang", "run");
	assert_lacks(tc, "<error");
	assert_has(tc, "<system-out>expected error: watchdog: no progress for 10 s");
	free(tc);
	/* A report that did not complete: its status reason. */
	{
		cJSON *e = add_entry(doc, "aborted/dcp/ref", "pass", NULL, "error", 130);
		cJSON *b = add_entry(doc, "busy/dcp/ref", "error", NULL, "error", 5);
		cJSON *st;
		char *x2;

		add_report(e, "aborted", "reference");
		st = get(get(e, "report"), "status");
		set_str(st, "reason", "interrupted by SIGINT");
		set_str(e, "exit_cause", "interrupted");
		/* an expected error that is the bench's, not the device's */
		set_str(b, "exit_cause", "bench-fault");
		set_str(b, "cause", "not run: bench in use");
		cJSON_ReplaceItemInObjectCaseSensitive(b, "as_expected", cJSON_CreateFalse());
		x2 = render(state, doc, &err);
		assert_non_null(x2);
		tc = testcase(x2, "bcbench.aborted.dcp.ref", "run");
		assert_has(tc, "<error message=\"interrupted by SIGINT\" type=\"interrupted\">"
			       "interrupted by SIGINT</error>");
		free(tc);
		tc = testcase(x2, "bcbench.busy.dcp.ref", "run");
		assert_has(tc, "<error message=\"not run: bench in use\" type=\"bench-fault\">");
		assert_lacks(tc, "expected error");
		free(tc);
		free(x2);
	}
	/* Completed runs have no "run" testcase. */
	assert_null(strstr(xml, "classname=\"bcbench.pass.dcp.ref\" name=\"run\""));
	assert_int_equal(count_in(xml, NULL, "name=\"run\""), 2);
	free(xml);
	cJSON_Delete(doc);
}

/* Every testcase's name in the <testsuite> starting at p: none twice. */
static void assert_names_unique(const char *p)
{
	const char *end = strstr(p, "</testsuite>"), *q;

	assert_non_null(end);
	for (q = strstr(p, "<testcase "); q && q < end; q = strstr(q + 1, "<testcase ")) {
		const char *name = strstr(q, " name=\""), *close;
		char key[600];

		assert_non_null(name);
		close = strchr(name + 7, '"');
		assert_non_null(close);
		snprintf(key, sizeof(key), "%.*s\"", (int)(close - name), name);
		if (count_in(close, end, key) != 0)
			fail_msg("testcase%s is there twice", key);
	}
}

/* Testcase names say what they are: "expect: STATEMENT (line N)" and
 * "RULE: TITLE", the title cut at a word near 100 characters; a name
 * given twice in an entry is told apart by " #2"; the classname stays the
 * entry's. */
static void test_junit__names(void **state)
{
	struct scratch *s = *state;
	struct bn_err err = { 0 };
	/* 12 words of 9 characters, 119 characters: cut after the 10th word
	 * (its 100th character the comma, dropped) */
	static const char long_title[] = "abcdefgh1 abcdefgh2 abcdefgh3 abcdefgh4 abcdefgh5 "
					 "abcdefgh6 abcdefgh7 abcdefgh8 abcdefgh9 abcdefg10, "
					 "abcdefg11 abcdefg12";
	cJSON *doc = make_doc(), *res = results_of(doc, 0), *r;
	char path[512], *xml, *tc, word[160];
	const char *p;

	/* a statement as written, aligned with spaces, its line given */
	r = add_result(res, "expect.L8", "pass", "expect   dut.port ==\tdcp");
	cJSON_AddNumberToObject(r, "line", 8);
	/* a rule's title over its text */
	r = add_result(res, "bc12.det.dcd", "pass", "the text");
	cJSON_AddStringToObject(r, "title", "Data contact detect: D+ pulled up within TDCD_TIMEOUT");
	r = add_result(res, "bc12.cur.long", "pass", long_title);
	/* one word longer than the cut */
	memset(word, 'w', 120);
	word[120] = '\0';
	add_result(res, "bc12.cur.word", "pass", word);
	/* the same rule and title three times */
	add_result(res, "bc12.det.port_type", "pass", "port type DCP");
	add_result(res, "bc12.det.port_type", "fail", "port type DCP");
	/* nothing to name it by but its id */
	add_result(res, "bc12.det.bare", "pass", "");

	xml = render(state, doc, &err);
	assert_non_null(xml);
	tc = testcase(xml, "bcbench.pass.dcp.ref", "expect: dut.port == dcp (line 8)");
	free(tc);
	/* without "line": the id's */
	tc = testcase(xml, "bcbench.pass.dcp.ref", "expect: vbus &gt;= 4.75V (line 12)");
	free(tc);
	tc = testcase(xml, "bcbench.pass.dcp.ref",
		      "bc12.det.dcd: Data contact detect: D+ pulled up within TDCD_TIMEOUT");
	free(tc);
	tc = testcase(xml, "bcbench.pass.dcp.ref",
		      "bc12.cur.long: abcdefgh1 abcdefgh2 abcdefgh3 abcdefgh4 abcdefgh5 "
		      "abcdefgh6 abcdefgh7 abcdefgh8 abcdefgh9 abcdefg10\xe2\x80\xa6");
	free(tc);
	memset(word, 'w', 100);
	memcpy(word + 100, "\xe2\x80\xa6", 4);
	{
		char name[200];

		snprintf(name, sizeof(name), "bc12.cur.word: %s", word);
		tc = testcase(xml, "bcbench.pass.dcp.ref", name);
		free(tc);
	}
	tc = testcase(xml, "bcbench.pass.dcp.ref", "bc12.det.port_type: port type DCP");
	assert_lacks(tc, "<failure");
	free(tc);
	tc = testcase(xml, "bcbench.pass.dcp.ref", "bc12.det.port_type: port type DCP #2");
	assert_lacks(tc, "<failure");
	free(tc);
	tc = testcase(xml, "bcbench.pass.dcp.ref", "bc12.det.port_type: port type DCP #3");
	assert_has(tc, "<failure");
	free(tc);
	tc = testcase(xml, "bcbench.pass.dcp.ref", "bc12.det.bare");
	free(tc);
	/* the other entries' names too: a listed rule with no result, "run" */
	tc = testcase(xml, "bcbench.error.dcp.livelock", "run");
	free(tc);
	for (p = strstr(xml, "<testsuite "); p; p = strstr(p + 1, "<testsuite "))
		assert_names_unique(p);
	path_in(s, "names.xml", path, sizeof(path));
	assert_int_equal(write_xml(state, doc, path, &err), BN_OK);
	assert_int_equal(xmllint_schema(s, path, 1), 0);
	free(xml);
	cJSON_Delete(doc);
}

static void test_junit__escaping(void **state)
{
	struct bn_err err = { 0 };
	cJSON *doc = make_doc();
	char *xml, *tc;

	(void)state;
	/* The nasty text in names and properties too. */
	set_str(get(doc, "suite"), "name", "s <&\"'>\x02\ttab\nline");
	xml = render(state, doc, &err);
	assert_non_null(xml);
	tc = testcase(xml, "bcbench.fail.sdp.unconfigured_500",
		      "bc12.cur.unconfigured: " NASTY_ESCAPED);
	assert_has(tc, "<failure message=\"" NASTY_ESCAPED ": measured 0.5 A");
	assert_has(tc, "<system-out>I &lt;&amp;&quot;&apos;&gt; 100 \xc2\xb5" "A\xef\xbf\xbd");
	free(tc);
	assert_has(xml, "<testsuites name=\"s &lt;&amp;&quot;&apos;&gt;\xef\xbf\xbd"
			"&#9;tab&#10;line\"");
	for (const unsigned char *p = (const unsigned char *)xml; *p; p++)
		if (*p < 0x20 && *p != '\n' && *p != '\t')
			fail_msg("control byte 0x%02x at %td", *p, (const char *)p - xml);
	assert_null(strchr(xml, '\xff'));
	free(xml);
	cJSON_Delete(doc);
}

static void test_junit__bad_doc(void **state)
{
	struct scratch *s = *state;
	struct bn_err err = { 0 };
	cJSON *doc = make_doc();
	char path[512];
	struct stat st;

	path_in(s, "junit.xml", path, sizeof(path));

	set_str(doc, "schema", "bcbench-report/1");
	assert_null(render(state, doc, &err));
	assert_int_equal(err.code, BN_ERR_DATA);
	assert_msg_has(&err, "schema");
	assert_msg_has(&err, "bcbench-suite/2");
	bn_err_clear(&err);
	assert_int_equal(write_xml(state, doc, path, &err), BN_ERR_DATA);
	assert_int_not_equal(stat(path, &st), 0);

	set_str(doc, "schema", "bcbench-suite/2");
	cJSON_ReplaceItemInObjectCaseSensitive(doc, "entries", cJSON_CreateObject());
	bn_err_clear(&err);
	assert_int_equal(write_xml(state, doc, path, &err), BN_ERR_DATA);
	assert_msg_has(&err, "\"entries\"");
	assert_msg_has(&err, "array");
	assert_int_not_equal(stat(path, &st), 0);

	cJSON_DeleteItemFromObjectCaseSensitive(doc, "schema");
	bn_err_clear(&err);
	assert_null(render(state, doc, &err));
	assert_int_equal(err.code, BN_ERR_DATA);
	assert_msg_has(&err, "\"schema\"");
	cJSON_Delete(doc);

	/* An entry without an id, a result with an unknown verdict. */
	doc = make_doc();
	cJSON_DeleteItemFromObjectCaseSensitive(entry_at(doc, 1), "id");
	bn_err_clear(&err);
	assert_null(render(state, doc, &err));
	assert_int_equal(err.code, BN_ERR_DATA);
	assert_msg_has(&err, "entries[1]");
	assert_msg_has(&err, "\"id\"");
	cJSON_Delete(doc);
	doc = make_doc();
	set_str(cJSON_GetArrayItem(results_of(doc, 0), 1), "verdict", "maybe");
	bn_err_clear(&err);
	assert_null(render(state, doc, &err));
	assert_int_equal(err.code, BN_ERR_DATA);
	assert_msg_has(&err, "\"maybe\"");
	cJSON_Delete(doc);

	bn_err_clear(&err);
	assert_null(render(state, NULL, &err));
	assert_int_equal(err.code, BN_ERR_DATA);
	assert_int_not_equal(stat(path, &st), 0);
}

/* An empty suite is valid JUnit with zero counts. */
static void test_junit__empty_suite(void **state)
{
	struct scratch *s = *state;
	struct bn_err err = { 0 };
	cJSON *doc = make_doc();
	char path[512], *xml;

	cJSON_ReplaceItemInObjectCaseSensitive(doc, "entries", cJSON_CreateArray());
	xml = render(state, doc, &err);
	assert_non_null(xml);
	assert_has(xml, "<testsuites name=\"BC-1.2 regression\" tests=\"0\" failures=\"0\" "
			"errors=\"0\"");
	free(xml);
	path_in(s, "empty.xml", path, sizeof(path));
	assert_int_equal(write_xml(state, doc, path, &err), BN_OK);
	assert_int_equal(xmllint_schema(s, path, 1), 0);
	cJSON_Delete(doc);
}

/* The validation is not vacuous: the schema refuses a testcase without a
 * name, and a "skipped" count on <testsuites> (why the root has none). */
static void test_junit__schema_rejects(void **state)
{
	struct scratch *s = *state;
	struct bn_err err = { 0 };
	static const char no_name[] =
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<testsuites tests=\"1\">\n"
		"  <testsuite name=\"a\" tests=\"1\">\n"
		"    <testcase classname=\"bcbench.a\"/>\n"
		"  </testsuite>\n"
		"</testsuites>\n";
	static const char root_skipped[] =
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<testsuites tests=\"1\" skipped=\"0\">\n"
		"  <testsuite name=\"a\" tests=\"1\">\n"
		"    <testcase classname=\"bcbench.a\" name=\"x\"/>\n"
		"  </testsuite>\n"
		"</testsuites>\n";
	static const char good[] =
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<testsuites tests=\"1\">\n"
		"  <testsuite name=\"a\" tests=\"1\" failures=\"0\" errors=\"0\" time=\"0.047\">\n"
		"    <testcase classname=\"bcbench.a\" name=\"x\"/>\n"
		"  </testsuite>\n"
		"</testsuites>\n";
	char path[512];

	path_in(s, "broken.xml", path, sizeof(path));
	assert_int_equal(bn_file_write_atomic(path, no_name, strlen(no_name), &err), BN_OK);
	assert_int_not_equal(xmllint_schema(s, path, 0), 0);
	assert_int_equal(bn_file_write_atomic(path, root_skipped, strlen(root_skipped), &err),
			 BN_OK);
	assert_int_not_equal(xmllint_schema(s, path, 0), 0);
	assert_int_equal(bn_file_write_atomic(path, good, strlen(good), &err), BN_OK);
	assert_int_equal(xmllint_schema(s, path, 1), 0);
	/* the current schema's times: at most 3 decimals */
	{
		char seven[sizeof(good) + 8];
		char *at;

		memcpy(seven, good, sizeof(good));
		at = strstr(seven, "0.047\"");
		assert_non_null(at);
		memmove(at + 9, at + 5, strlen(at + 5) + 1);
		memcpy(at, "0.0474340", 9);
		assert_int_equal(bn_file_write_atomic(path, seven, strlen(seven), &err), BN_OK);
		assert_int_not_equal(xmllint_schema(s, path, 0), 0);
	}
}

/* The reports are read from the paths suite.json names: one changed
 * since the suite ran, or gone, is refused naming it, and nothing is
 * written. */
static void test_junit__report_by_path(void **state)
{
	struct scratch *s = *state;
	struct bn_err err = { 0 };
	cJSON *doc = make_doc(), *ext = externalize(s, doc);
	char suite_path[512], rep_path[512], out[512];
	struct stat st;

	path_in(s, "suite.json", suite_path, sizeof(suite_path));
	path_in(s, "r1.json", rep_path, sizeof(rep_path));
	path_in(s, "junit.xml", out, sizeof(out));
	assert_int_equal(bn_file_write_atomic(rep_path, "{}", 2, &err), BN_OK);
	assert_null(bn_junit_render(ext, suite_path, &err));
	assert_int_equal(err.code, BN_ERR_DATA);
	assert_msg_has(&err, rep_path);
	assert_msg_has(&err, "sha256");
	unlink(rep_path);
	bn_err_clear(&err);
	assert_int_equal(bn_junit_write(ext, suite_path, out, &err), BN_ERR_DATA);
	assert_msg_has(&err, rep_path);
	assert_int_not_equal(stat(out, &st), 0);
	cJSON_Delete(ext);
	cJSON_Delete(doc);
}

/* Sides: every result's testcase says the side it judges (group, as the
 * schema allows); a port's failure in an entry that judges the device is
 * reported in its system-out, not a failure of the entry, and the other
 * way round; expectations belong to the side judged. Classnames stay
 * "bcbench." + the entry's id. Valid against the schema. */
static void test_junit__sides(void **state)
{
	struct scratch *s = *state;
	struct bn_err err = { 0 };
	cJSON *doc = make_doc(), *e, *res, *r;
	char *xml, *tc, path[512];

	e = add_entry(doc, "pass/cdp-late/ref", "pass", NULL, "pass", 0);
	res = add_report(e, "completed", "reference");
	set_str(cJSON_GetObjectItemCaseSensitive(e, "report"), "schema", "bcbench-report/3");
	r = add_result(res, "bc12.port.tvdmsrc_en", "fail", "the CDP answers in time");
	set_str(r, "side", "port");
	set_measure(r, 0.06, "s", "TVDMSRC_EN", NAN, 0.02, -0.04, "answered 60 ms late");
	r = add_result(res, "bc12.det.port_type", "inconclusive", "port type");
	set_str(r, "side", "device");
	set_str(r, "reason", "the port (cdp-late) failed bc12.port.tvdmsrc_en: answered 60 ms late");
	r = add_result(res, "expect.L9", "fail", "expect dut.port == cdp");

	e = add_entry(doc, "pass/port/dcp", "pass", NULL, "pass", 0);
	res = add_report(e, "completed", "probe");
	set_str(cJSON_GetObjectItemCaseSensitive(e, "report"), "schema", "bcbench-report/3");
	set_str(cJSON_GetObjectItemCaseSensitive(e, "report"), "judges", "port");
	r = add_result(res, "bc12.det.vdp_src", "fail", "VDP_SRC held");
	set_str(r, "side", "device");
	r = add_result(res, "bc12.port.vchg", "fail", "VBUS within VCHG");
	set_str(r, "side", "port");

	xml = render(state, doc, &err);
	assert_non_null(xml);
	tc = testcase(xml, "bcbench.pass.cdp-late.ref", "bc12.port.tvdmsrc_en: the CDP answers in time");
	assert_has(tc, "group=\"port\"");
	assert_lacks(tc, "<failure");
	assert_has(tc, "failure of the port, reported (the entry judges the device: does not fail it)");
	assert_has(tc, "answered 60 ms late");
	free(tc);
	tc = testcase(xml, "bcbench.pass.cdp-late.ref", "bc12.det.port_type: port type");
	assert_has(tc, "group=\"device\"");
	assert_has(tc, "<skipped");
	free(tc);
	tc = testcase(xml, "bcbench.pass.cdp-late.ref", "expect: dut.port == cdp (line 9)");
	assert_has(tc, "group=\"device\"");
	assert_has(tc, "<failure");
	free(tc);
	assert_has(xml, "<property name=\"judges\" value=\"device\"/>");
	/* the entry that judges the port */
	tc = testcase(xml, "bcbench.pass.port.dcp", "bc12.det.vdp_src: VDP_SRC held");
	assert_has(tc, "group=\"device\"");
	assert_lacks(tc, "<failure");
	assert_has(tc, "failure of the device, reported (the entry judges the port: does not fail it)");
	free(tc);
	tc = testcase(xml, "bcbench.pass.port.dcp", "bc12.port.vchg: VBUS within VCHG");
	assert_has(tc, "group=\"port\"");
	assert_has(tc, "<failure");
	free(tc);
	assert_has(xml, "<property name=\"judges\" value=\"port\"/>");
	free(xml);
	path_in(s, "sides.xml", path, sizeof(path));
	assert_int_equal(write_xml(state, doc, path, &err), BN_OK);
	assert_int_equal(xmllint_schema(s, path, 1), 0);
	cJSON_Delete(doc);
}

#define SCRATCH(t) cmocka_unit_test_setup_teardown(t, scratch_setup, scratch_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		SCRATCH(test_junit__render_validates),
		SCRATCH(test_junit__counts),
		SCRATCH(test_junit__failure_message),
		SCRATCH(test_junit__listed_warning_is_xfail),
		SCRATCH(test_junit__xfail_xpass),
		SCRATCH(test_junit__run_error),
		SCRATCH(test_junit__names),
		SCRATCH(test_junit__escaping),
		SCRATCH(test_junit__report_by_path),
		SCRATCH(test_junit__bad_doc),
		SCRATCH(test_junit__empty_suite),
		SCRATCH(test_junit__schema_rejects),
		SCRATCH(test_junit__sides),
	};

	return cmocka_run_group_tests_name("junit", tests, NULL, NULL);
}
