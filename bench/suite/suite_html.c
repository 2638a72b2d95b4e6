/* A suite's report.html: the overall verdict, the totals, the matrix of
 * entries by rule, the entries not as expected and the diff against a
 * baseline. Two passes over the entries' reports, each report read from
 * its file, checked, used and let go before the next: the first collects
 * the rule ids (the matrix's columns) and the overall verdict, the second
 * writes the rows. */
#include "suite/suite_html.h"

#include <glib.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/check.h"
#include "core/file.h"
#include "core/json.h"
#include "core/text.h"
#include "core/units.h"
#include "report/diff.h"
#include "report/html_base.h"
#include "report/report.h"
#include "report/suite_doc.h"

/* What a cell shows, worst last: an entry with two results for one rule
 * shows the worse. */
enum cell {
	CELL_NONE,      /* no result for the rule in the entry's report */
	CELL_SKIPPED,
	CELL_PASS,
	CELL_WARN,      /* failed as a warning: does not fail the entry */
	CELL_INCONCLUSIVE,
	CELL_ERROR,
	CELL_FAIL,
	CELL_XFAIL,     /* shown only: a fail the entry lists as expected */
};

static const struct {
	const char *verdict; /* data-verdict */
	const char *word;    /* what prints in black and white */
	const char *meaning; /* the legend */
} cells[] = {
	[CELL_NONE] = { "none", "", "not judged in this entry (its report has no result for the rule)" },
	[CELL_SKIPPED] = { "skipped", "\xe2\x80\x93", "skipped: not applicable to this entry" },
	[CELL_PASS] = { "pass", "PASS", "passed" },
	[CELL_WARN] = { "fail", "WARN", "failed as a warning: counted, does not fail the entry" },
	[CELL_INCONCLUSIVE] = { "inconclusive", "INC", "inconclusive: could not be decided" },
	[CELL_ERROR] = { "error", "ERR", "error: the check could not run" },
	[CELL_FAIL] = { "fail", "FAIL", "failed, and the suite does not expect it to" },
	[CELL_XFAIL] = { "xfail", "XFAIL", "failed as the suite expects (the entry lists the rule)" },
};

/* The diff's categories as data-cat values. */
static const char *const diff_cat_ids[BN_DIFF_CAT_COUNT] = {
	[BN_DIFF_NEW_FAILURE] = "new-failure",
	[BN_DIFF_NEW_ERROR] = "new-error",
	[BN_DIFF_NEW_INCONCLUSIVE] = "new-inconclusive",
	[BN_DIFF_GONE] = "gone",
	[BN_DIFF_MARGIN] = "margin",
	[BN_DIFF_UNEXPECTED] = "unexpected",
	[BN_DIFF_FIXED] = "fixed",
	[BN_DIFF_ADDED] = "added",
	[BN_DIFF_CHANGED] = "changed",
};

struct page {
	const cJSON *doc;
	const char *suite_path;
	GHashTable *order;    /* rule id (static) -> its report order + 1 */
	GHashTable *seen;     /* rule id (owned) -> its title (owned, "" when none) */
	GPtrArray *cols;      /* rule ids (seen's keys), sorted */
	int n_not_compliant;  /* entries with a failure the suite does not expect */
	int n_not_demonstrated;
	int n_compliant;
};

static bool streq(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

static const char *entry_id(const cJSON *e)
{
	const char *id = bn_jstr(e, "id");

	return id ? id : "?";
}

static bool is_warning(const cJSON *res)
{
	return cJSON_IsTrue(bn_jget(res, "warning")) || streq(bn_jstr(res, "severity"), "warning");
}

/* The entry lists rule as one it expects to fail (xfail RULE...): its
 * "expect": {"outcome": "fail", "rules": [...]}, as the suite judges. */
static bool expects_fail(const cJSON *entry, const char *rule)
{
	const cJSON *ex = bn_jget(entry, "expect"), *r;

	if (!streq(bn_jstr(ex, "outcome"), "fail"))
		return false;
	cJSON_ArrayForEach(r, bn_jget(ex, "rules"))
		if (cJSON_IsString(r) && streq(r->valuestring, rule))
			return true;
	return false;
}

/* A report the page can be drawn from: its schema, results with ids and
 * known verdicts, a status. */
static int check_report(const cJSON *rep, const cJSON *entry, const char *suite_path,
			struct bn_err *err)
{
	const char *schema = bn_jstr(rep, "schema");
	const cJSON *res;
	char path[4096];
	bool has;
	int i = 0;

	if (bn_suite_report_path(entry, suite_path, path, sizeof(path), &has, err) < 0)
		return err->code;
	if (!bn_report_schema_known(schema))
		return bn_err_set(err, BN_ERR_DATA, "%s: entry \"%s\": report %s: schema %s, expected "
				  "\"%s\"", suite_path, entry_id(entry), path,
				  schema ? schema : "missing", BN_REPORT_SCHEMA);
	if (!cJSON_IsArray(bn_jget(rep, "results")))
		return bn_err_set(err, BN_ERR_DATA, "%s: entry \"%s\": report %s: \"results\" is "
				  "not an array", suite_path, entry_id(entry), path);
	cJSON_ArrayForEach(res, bn_jget(rep, "results")) {
		const char *id = bn_jstr(res, "id");

		if (!id || !id[0])
			return bn_err_set(err, BN_ERR_DATA, "%s: entry \"%s\": report %s: "
					  "results[%d]: no \"id\"", suite_path, entry_id(entry),
					  path, i);
		if (bn_verdict_parse(bn_jstr(res, "verdict")) < 0)
			return bn_err_set(err, BN_ERR_DATA, "%s: entry \"%s\": report %s: "
					  "results[%d] \"%s\": no known \"verdict\"", suite_path,
					  entry_id(entry), path, i, id);
		i++;
	}
	if (!bn_jstr(bn_jget(rep, "status"), "state"))
		return bn_err_set(err, BN_ERR_DATA, "%s: entry \"%s\": report %s: no \"status\": "
				  "{\"state\"}", suite_path, entry_id(entry), path);
	return BN_OK;
}

/* The entry's report (NULL when it has none), read, its sha256 and its
 * form checked. The caller deletes it. */
static int load(const struct page *p, const cJSON *entry, cJSON **rep, struct bn_err *err)
{
	if (bn_suite_report_load(entry, p->suite_path, rep, err) < 0)
		return err->code;
	if (*rep && check_report(*rep, entry, p->suite_path, err) < 0) {
		cJSON_Delete(*rep);
		*rep = NULL;
		return err->code;
	}
	return BN_OK;
}

/* The entry's report as a lab reads it within the suite: an expected
 * failure is the suite's expectation met, judged like a pass; anything
 * else as the report's own overall verdict. */
static int entry_overall(const cJSON *entry, const cJSON *rep, struct bn_err *err)
{
	cJSON *view = cJSON_CreateObject(), *arr = cJSON_CreateArray();
	const cJSON *res;
	bool ok = view && arr &&
		  cJSON_AddItemReferenceToObject(view, "status", (cJSON *)bn_jget(rep, "status"));
	int ov;

	cJSON_ArrayForEach(res, bn_jget(rep, "results")) {
		cJSON *met;

		if (!ok)
			break;
		if (!streq(bn_jstr(res, "verdict"), "fail") ||
		    !expects_fail(entry, bn_jstr(res, "id"))) {
			ok = cJSON_AddItemReferenceToArray(arr, (cJSON *)res);
			continue;
		}
		met = cJSON_CreateObject();
		ok = met && cJSON_AddStringToObject(met, "verdict", "pass") &&
		     cJSON_AddItemToArray(arr, met);
		if (!ok)
			cJSON_Delete(met);
	}
	if (ok) {
		ok = cJSON_AddItemToObject(view, "results", arr);
		if (ok)
			arr = NULL;
	}
	ov = ok ? bn_report_json_overall(view) : -1;
	cJSON_Delete(view);
	cJSON_Delete(arr);
	if (!ok)
		return bn_err_set(err, BN_ERR_NOMEM, "suite page: out of memory");
	/* a checked report always has a verdict; keep the page honest if not */
	return ov < 0 ? BN_OVERALL_NOT_DEMONSTRATED : ov;
}

/* Column order: the rules' report order, other bc12 rules by name, other
 * ids by name, scenario expectations last by line (expect.L9 before
 * expect.L10). */
static void col_key(const struct page *p, const char *id, int *group, long *n)
{
	gpointer v = g_hash_table_lookup(p->order, id);
	int line;
	char rest;

	*n = 0;
	if (v) {
		*group = 0;
		*n = GPOINTER_TO_INT(v);
	} else if (!strncmp(id, "bc12.", 5)) {
		*group = 1;
	} else if (strncmp(id, "expect.", 7)) {
		*group = 2;
	} else if (sscanf(id, "expect.L%d%c", &line, &rest) == 1 && line > 0) {
		*group = 3;
		*n = line;
	} else {
		*group = 4;
	}
}

static gint col_cmp(gconstpointer a, gconstpointer b, gpointer data)
{
	const char *ia = *(const char *const *)a, *ib = *(const char *const *)b;
	int ga, gb;
	long na, nb;

	col_key(data, ia, &ga, &na);
	col_key(data, ib, &gb, &nb);
	if (ga != gb)
		return ga < gb ? -1 : 1;
	if (na != nb)
		return na < nb ? -1 : 1;
	return strcmp(ia, ib);
}

/* First pass: the columns, and each entry's verdict counted. */
static int collect(struct page *p, struct bn_err *err)
{
	const cJSON *e;

	for (int i = 0, n = bn_rules_count(); i < n; i++)
		g_hash_table_insert(p->order, (gpointer)bn_rule_at(i)->id, GINT_TO_POINTER(i + 1));
	cJSON_ArrayForEach(e, bn_jget(p->doc, "entries")) {
		cJSON *rep = NULL;
		const cJSON *res;
		int ov;

		if (load(p, e, &rep, err) < 0)
			return err->code;
		if (!rep) {
			/* nothing was judged: never reads as a pass */
			p->n_not_demonstrated++;
			continue;
		}
		cJSON_ArrayForEach(res, bn_jget(rep, "results")) {
			const char *id = bn_jstr(res, "id"), *title = bn_jstr(res, "title");
			const char *had = g_hash_table_lookup(p->seen, id);

			if (!had) {
				char *own = g_strdup(id);

				g_hash_table_insert(p->seen, own, g_strdup(title ? title : ""));
				g_ptr_array_add(p->cols, own);
			} else if (!had[0] && title && title[0]) {
				g_hash_table_insert(p->seen, g_strdup(id), g_strdup(title));
			}
		}
		ov = entry_overall(e, rep, err);
		cJSON_Delete(rep);
		if (ov < 0)
			return ov;
		p->n_not_compliant += ov == BN_OVERALL_NOT_COMPLIANT;
		p->n_not_demonstrated += ov == BN_OVERALL_NOT_DEMONSTRATED;
		p->n_compliant += ov == BN_OVERALL_COMPLIANT;
	}
	g_ptr_array_sort_with_data(p->cols, col_cmp, p);
	return BN_OK;
}

static enum bn_overall suite_overall(const struct page *p)
{
	if (p->n_not_compliant)
		return BN_OVERALL_NOT_COMPLIANT;
	if (p->n_not_demonstrated || !p->n_compliant)
		return BN_OVERALL_NOT_DEMONSTRATED;
	return BN_OVERALL_COMPLIANT;
}

static void put_count(GString *s, const cJSON *o, const char *key)
{
	const cJSON *n = bn_jget(o, key);

	if (cJSON_IsNumber(n))
		g_string_append_printf(s, "%d", n->valueint);
	else
		g_string_append(s, "\xe2\x80\x93");
}

static void meta_row(GString *s, const char *dt, const char *dd, const char *sha)
{
	if (!dd)
		return;
	g_string_append(s, "<dt>");
	bn_html_esc(s, dt);
	g_string_append(s, "</dt><dd>");
	bn_html_esc(s, dd);
	if (sha) {
		g_string_append(s, " <span class=\"mono\">sha256 ");
		bn_html_esc(s, sha);
		g_string_append(s, "</span>");
	}
	g_string_append(s, "</dd>\n");
}

static void header(GString *s, const struct page *p, const char *baseline_path)
{
	const cJSON *doc = p->doc, *suite = bn_jget(doc, "suite"), *tool = bn_jget(doc, "tool");
	const cJSON *shard = bn_jget(doc, "shard"), *lim = bn_jget(doc, "limits");
	enum bn_overall ov = suite_overall(p);
	const char *name = bn_jstr(suite, "name");
	char buf[160];

	g_string_append(s, "<h1>Suite: ");
	bn_html_esc(s, name ? name : bn_jstr(suite, "path"));
	g_string_append(s, "</h1>\n");
	g_string_append_printf(s, "<div id=\"verdict\" data-verdict=\"%s\" class=\"banner verdict %s\">"
			       "Overall: %s</div>\n", bn_overall_id(ov),
			       bn_html_verdict_class(bn_overall_id(ov)), bn_overall_name(ov));
	g_string_append(s, "<p class=\"why\">");
	if (ov == BN_OVERALL_NOT_COMPLIANT)
		g_string_append_printf(s, "%d entr%s failed a rule or expectation the suite does "
				       "not expect to fail.", p->n_not_compliant,
				       p->n_not_compliant == 1 ? "y" : "ies");
	else if (ov == BN_OVERALL_NOT_DEMONSTRATED && p->n_not_demonstrated)
		g_string_append_printf(s, "No unexpected failure, but %d entr%s could not show "
				       "compliance (a result inconclusive or in error, a run that "
				       "did not complete, or nothing judged).",
				       p->n_not_demonstrated, p->n_not_demonstrated == 1 ? "y" : "ies");
	else if (ov == BN_OVERALL_NOT_DEMONSTRATED)
		g_string_append(s, "The suite has no entry that was judged.");
	else
		g_string_append(s, "Every entry completed and every applicable rule passed, "
				"or failed where the suite expects it to.");
	g_string_append(s, "</p>\n<dl class=\"meta\">\n");
	meta_row(s, "Suite", name, NULL);
	meta_row(s, "Suite file", bn_jstr(suite, "path"), bn_jstr(suite, "sha256"));
	/* its name, not the path it was rendered from: the same bytes anywhere */
	{
		const char *base = strrchr(p->suite_path, '/');

		meta_row(s, "Record", base ? base + 1 : p->suite_path, NULL);
	}
	if (bn_jstr(tool, "name")) {
		snprintf(buf, sizeof(buf), "%s %s", bn_jstr(tool, "name"),
			 bn_jstr(tool, "version") ? bn_jstr(tool, "version") : "");
		meta_row(s, "Tool", buf, NULL);
	}
	meta_row(s, "Bench", bn_jstr(bn_jget(doc, "bench"), "backend"), NULL);
	meta_row(s, "Limits", bn_jstr(lim, "path"), bn_jstr(lim, "sha256"));
	if (cJSON_IsNumber(bn_jget(shard, "index")) && cJSON_IsNumber(bn_jget(shard, "count"))) {
		snprintf(buf, sizeof(buf), "%d of %d", bn_jget(shard, "index")->valueint,
			 bn_jget(shard, "count")->valueint);
		meta_row(s, "Shard", buf, NULL);
	}
	meta_row(s, "Filter", bn_jstr(doc, "filter"), NULL);
	meta_row(s, "Baseline", baseline_path, NULL);
	g_string_append(s, "</dl>\n");
}

static void totals(GString *s, const cJSON *doc)
{
	static const struct {
		const char *key, *label;
	} cols[] = {
		{ "entries", "Entries" }, { "pass", "Pass" }, { "xfail", "Xfail" },
		{ "fail", "Fail" }, { "xpass", "Xpass" }, { "error", "Error" },
		{ "unexpected", "Not as expected" },
	};
	const cJSON *t = bn_jget(doc, "totals"), *r = bn_jget(t, "rules");

	g_string_append(s, "<h2>Totals</h2>\n<table id=\"totals\">\n<tr>");
	for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++)
		g_string_append_printf(s, "<th>%s</th>", cols[i].label);
	g_string_append(s, "<th>Exit code</th></tr>\n<tr>");
	for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++) {
		g_string_append_printf(s, "<td class=\"num\" data-total=\"%s\">", cols[i].key);
		put_count(s, t, cols[i].key);
		g_string_append(s, "</td>");
	}
	g_string_append(s, "<td class=\"num\" data-total=\"exit_code\">");
	put_count(s, doc, "exit_code");
	g_string_append(s, "</td></tr>\n</table>\n");
	if (!cJSON_IsObject(r))
		return;
	g_string_append(s, "<table id=\"rule-totals\">\n<tr><th>Results</th>");
	for (int v = 0; v < BN_VERDICT_COUNT; v++)
		g_string_append_printf(s, "<th>%s</th>", bn_verdict_name(v));
	g_string_append(s, "</tr>\n<tr><td>all entries</td>");
	for (int v = 0; v < BN_VERDICT_COUNT; v++) {
		g_string_append_printf(s, "<td class=\"num\" data-total=\"%s\">",
				       bn_verdict_name(v));
		put_count(s, r, bn_verdict_name(v));
		g_string_append(s, "</td>");
	}
	g_string_append(s, "</tr>\n</table>\n");
}

static void legend(GString *s)
{
	static const enum cell order[] = {
		CELL_PASS, CELL_FAIL, CELL_XFAIL, CELL_WARN, CELL_INCONCLUSIVE, CELL_ERROR,
		CELL_SKIPPED, CELL_NONE,
	};

	g_string_append(s, "<table id=\"legend\">\n<tr><th>Cell</th><th>Meaning</th></tr>\n");
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		enum cell c = order[i];

		g_string_append_printf(s, "<tr><td class=\"cell v-%s\" data-verdict=\"%s\">%s</td>"
				       "<td>%s</td></tr>\n", cells[c].verdict, cells[c].verdict,
				       cells[c].word[0] ? cells[c].word : "(blank)",
				       cells[c].meaning);
	}
	g_string_append(s, "</table>\n");
}

/* The href of the entry's report.html: its report.json's path as the
 * suite record stores it (relative to suite.json, beside which the page
 * is), ".json" made ".html", percent-encoded. */
static void href_of(GString *s, const char *report_path)
{
	size_t n = strlen(report_path), keep = n;

	if (n >= 5 && !strcmp(report_path + n - 5, ".json"))
		keep = n - 5;
	for (size_t i = 0; i < keep; i++) {
		unsigned char c = (unsigned char)report_path[i];

		if (g_ascii_isalnum(c) || strchr("-._~/", c))
			g_string_append_c(s, (char)c);
		else
			g_string_append_printf(s, "%%%02X", c);
	}
	g_string_append(s, ".html");
}

/* "measured 960 mA; limit >= 0.9 A; margin ...; reason" for a cell's title. */
static void result_detail(GString *s, const cJSON *res)
{
	const cJSON *m = bn_jget(res, "measured"), *lim = bn_jget(res, "limit");
	const cJSON *mn = bn_jget(lim, "min"), *mx = bn_jget(lim, "max"), *mg = bn_jget(res, "margin");
	const char *unit = bn_jstr(res, "unit"), *reason = bn_jstr(res, "reason");
	char buf[200];
	const char *sep = "";

	if (!unit)
		unit = "";
	if (cJSON_IsNumber(m)) {
		bn_qty_format(m->valuedouble, unit, buf, sizeof(buf));
		g_string_append(s, "measured ");
		bn_html_esc(s, buf);
		sep = "; ";
	} else if (cJSON_IsString(m)) {
		g_string_append(s, "measured ");
		bn_html_esc(s, m->valuestring);
		sep = "; ";
	}
	bn_limit_format(bn_jstr(lim, "name"), cJSON_IsNumber(mn) ? mn->valuedouble : NAN,
			cJSON_IsNumber(mx) ? mx->valuedouble : NAN, unit, buf, sizeof(buf));
	if (buf[0]) {
		g_string_append_printf(s, "%slimit ", sep);
		bn_html_esc(s, buf);
		sep = "; ";
	}
	if (cJSON_IsNumber(mg)) {
		bn_qty_format(mg->valuedouble, unit, buf, sizeof(buf));
		g_string_append_printf(s, "%smargin ", sep);
		bn_html_esc(s, buf);
		sep = "; ";
	}
	if (reason && reason[0]) {
		g_string_append(s, sep);
		bn_html_esc(s, reason);
	}
}

static enum cell cell_of(const cJSON *res)
{
	switch (bn_verdict_parse(bn_jstr(res, "verdict"))) {
	case BN_VERDICT_PASS: return CELL_PASS;
	case BN_VERDICT_FAIL: return is_warning(res) ? CELL_WARN : CELL_FAIL;
	case BN_VERDICT_INCONCLUSIVE: return CELL_INCONCLUSIVE;
	case BN_VERDICT_ERROR: return CELL_ERROR;
	case BN_VERDICT_SKIPPED: return CELL_SKIPPED;
	default: return CELL_NONE;
	}
}

static void outcome_cell(GString *s, const cJSON *e)
{
	const char *oc = bn_jstr(e, "outcome");
	bool known = bn_outcome_parse(oc) >= 0;

	g_string_append_printf(s, "<td class=\"outcome %s\" data-outcome=\"%s\">",
			       bn_html_verdict_class(known ? oc : NULL), known ? oc : "");
	if (known) {
		for (const char *c = oc; *c; c++)
			g_string_append_c(s, g_ascii_toupper(*c));
	} else {
		g_string_append(s, "?");
	}
	if (cJSON_IsFalse(bn_jget(e, "as_expected")))
		g_string_append(s, " <span class=\"unexpected\">(not as expected)</span>");
	g_string_append(s, "</td>");
}

/* One row: the entry, its outcome, a cell per column. */
static void entry_row(GString *s, const struct page *p, const cJSON *e, const cJSON *rep)
{
	const char *id = entry_id(e), *oc = bn_jstr(e, "outcome");
	const char *rpath = bn_jstr(bn_jget(e, "report"), "path");
	GHashTable *worst = g_hash_table_new(g_str_hash, g_str_equal);
	const cJSON *res;
	guint n_cols = p->cols->len ? p->cols->len : 1;

	g_string_append(s, "<tr class=\"entry\" data-entry=\"");
	bn_html_esc(s, id);
	g_string_append_printf(s, "\" data-outcome=\"%s\" data-as-expected=\"%s\" data-judges=\"%s\">",
			       bn_outcome_parse(oc) >= 0 ? oc : "",
			       cJSON_IsFalse(bn_jget(e, "as_expected")) ? "false" : "true",
			       bn_report_json_judges(rep));
	g_string_append(s, "<td class=\"id\">");
	if (rep && rpath) {
		g_string_append(s, "<a href=\"");
		href_of(s, rpath);
		g_string_append(s, "\">");
		bn_html_esc(s, id);
		g_string_append(s, "</a>");
	} else {
		bn_html_esc(s, id);
	}
	g_string_append(s, "</td>");
	outcome_cell(s, e);
	if (!rep) {
		const char *cause = bn_jstr(e, "cause");

		g_string_append_printf(s, "<td class=\"noreport %s\" colspan=\"%u\">no report",
				       bn_html_verdict_class(oc), n_cols);
		if (cause && cause[0]) {
			g_string_append(s, ": ");
			bn_html_esc(s, cause);
		}
		g_string_append(s, "</td></tr>\n");
		g_hash_table_destroy(worst);
		return;
	}
	cJSON_ArrayForEach(res, bn_jget(rep, "results")) {
		const char *rid = bn_jstr(res, "id");
		const cJSON *had = g_hash_table_lookup(worst, rid);

		if (!had || cell_of(res) > cell_of(had))
			g_hash_table_insert(worst, (gpointer)rid, (gpointer)res);
	}
	for (guint c = 0; c < p->cols->len; c++) {
		const char *rule = g_ptr_array_index(p->cols, c);
		const cJSON *r = g_hash_table_lookup(worst, rule);
		enum cell k = r ? cell_of(r) : CELL_NONE;

		if ((k == CELL_FAIL || k == CELL_WARN) && expects_fail(e, rule))
			k = CELL_XFAIL;
		g_string_append_printf(s, "<td class=\"cell v-%s\" data-rule=\"", cells[k].verdict);
		bn_html_esc(s, rule);
		g_string_append_printf(s, "\" data-verdict=\"%s\"%s", cells[k].verdict,
				       k == CELL_WARN || (k == CELL_XFAIL && is_warning(r))
					   ? " data-warning=\"true\"" : "");
		if (r) {
			const char *side = bn_result_side_in(bn_jstr(r, "kind"), bn_jstr(r, "side"),
							     bn_report_json_judges(rep));

			/* the other side's verdict is shown, never the entry's */
			g_string_append_printf(s, " data-side=\"%s\"%s title=\"%s%s", side,
					       strcmp(side, bn_report_json_judges(rep))
						   ? " data-other-side=\"true\"" : "",
					       side, " side: ");
			bn_html_esc(s, bn_jstr(r, "verdict"));
			g_string_append(s, ": ");
			result_detail(s, r);
			g_string_append(s, "\"");
		}
		g_string_append_printf(s, ">%s</td>", cells[k].word);
	}
	if (!p->cols->len)
		g_string_append(s, "<td class=\"cell v-none\">no results</td>");
	g_string_append(s, "</tr>\n");
	g_hash_table_destroy(worst);
}

/* Second pass: the matrix, a report at a time. */
static int matrix(GString *s, const struct page *p, struct bn_err *err)
{
	const cJSON *e;

	/* inline styles, the shared sheet being for every page: rule ids
	 * written downwards keep a column as narrow as its words; a matrix
	 * wider than the window scrolls on its own */
	g_string_append(s, "<h2>Entries by rule</h2>\n<div class=\"matrix\" style=\"overflow-x:auto\">\n"
			   "<table id=\"matrix\" style=\"width:auto\">\n<thead><tr>"
			   "<th>Entry</th><th>Outcome</th>");
	for (guint c = 0; c < p->cols->len; c++) {
		const char *rule = g_ptr_array_index(p->cols, c);
		const char *title = g_hash_table_lookup(p->seen, rule);

		g_string_append(s, "<th class=\"rule\" data-rule=\"");
		bn_html_esc(s, rule);
		g_string_append(s, "\" style=\"writing-mode:vertical-rl;vertical-align:bottom;white-space:nowrap");
		if (title && title[0]) {
			g_string_append(s, "\" title=\"");
			bn_html_esc(s, title);
		}
		g_string_append(s, "\"><code>");
		bn_html_esc(s, rule);
		g_string_append(s, "</code></th>");
	}
	if (!p->cols->len)
		g_string_append(s, "<th>Rules</th>");
	g_string_append(s, "</tr></thead>\n<tbody>\n");
	cJSON_ArrayForEach(e, bn_jget(p->doc, "entries")) {
		cJSON *rep = NULL;

		if (load(p, e, &rep, err) < 0)
			return err->code;
		entry_row(s, p, e, rep);
		cJSON_Delete(rep);
	}
	g_string_append(s, "</tbody>\n</table>\n</div>\n");
	return BN_OK;
}

/* The failures of the side an entry does not judge (a port's in a device
 * run): shown, not counted in its outcome. */
static void other_side(GString *s, const cJSON *doc)
{
	const cJSON *e;
	int n = 0;

	cJSON_ArrayForEach(e, bn_jget(doc, "entries")) {
		const cJSON *line;
		const char *judges = bn_jstr(e, "judges");

		if (cJSON_GetArraySize(bn_jget(e, "other_side")) <= 0)
			continue;
		if (!n++)
			g_string_append(s, "<section id=\"other-side\">\n<h2>The other side's failures "
					   "(reported, not counted)</h2>\n<p>Failures of the side an "
					   "entry does not judge: a charging port's in a device run "
					   "never make the device's outcome.</p>\n<ul>\n");
		g_string_append(s, "<li data-entry=\"");
		bn_html_esc(s, entry_id(e));
		g_string_append(s, "\"><b>");
		bn_html_esc(s, entry_id(e));
		g_string_append(s, "</b> (judges the ");
		bn_html_esc(s, judges && !strcmp(judges, "port") ? "port" : "device");
		g_string_append(s, ")<ul>");
		cJSON_ArrayForEach(line, bn_jget(e, "other_side")) {
			if (!cJSON_IsString(line))
				continue;
			g_string_append(s, "<li>");
			bn_html_esc(s, line->valuestring);
			g_string_append(s, "</li>");
		}
		g_string_append(s, "</ul></li>\n");
	}
	if (n)
		g_string_append(s, "</ul>\n</section>\n");
}

static void unexpected(GString *s, const cJSON *doc)
{
	const cJSON *e;
	int n = 0;

	g_string_append(s, "<section id=\"unexpected\">\n<h2>Not as expected</h2>\n");
	cJSON_ArrayForEach(e, bn_jget(doc, "entries")) {
		const cJSON *line;
		const char *cause = bn_jstr(e, "cause"), *oc = bn_jstr(e, "outcome");

		if (!cJSON_IsFalse(bn_jget(e, "as_expected")))
			continue;
		g_string_append(s, n++ ? "" : "<ul>\n");
		g_string_append(s, "<li data-entry=\"");
		bn_html_esc(s, entry_id(e));
		g_string_append(s, "\"><b>");
		bn_html_esc(s, entry_id(e));
		g_string_append_printf(s, "</b> <span class=\"verdict %s\">%s</span>",
				       bn_html_verdict_class(oc), bn_outcome_parse(oc) >= 0 ? oc : "?");
		if (cause && cause[0]) {
			g_string_append(s, ": ");
			bn_html_esc(s, cause);
		}
		if (cJSON_GetArraySize(bn_jget(e, "unexpected")) > 0) {
			g_string_append(s, "<ul>");
			cJSON_ArrayForEach(line, bn_jget(e, "unexpected")) {
				if (!cJSON_IsString(line))
					continue;
				g_string_append(s, "<li>");
				bn_html_esc(s, line->valuestring);
				g_string_append(s, "</li>");
			}
			g_string_append(s, "</ul>");
		}
		g_string_append(s, "</li>\n");
	}
	g_string_append(s, n ? "</ul>\n" : "<p>Every entry did what the suite expects.</p>\n");
	g_string_append(s, "</section>\n");
}

/* The category a section title line of bn_diff_docs' text opens
 * ("new failures (2):"), or -1. */
static int diff_cat_of(const char *line)
{
	for (int c = 0; c < BN_DIFF_CAT_COUNT; c++) {
		const char *t = bn_diff_cat_name(c);
		size_t n = strlen(t);

		if (!strncmp(line, t, n) && !strncmp(line + n, " (", 2))
			return c;
	}
	return -1;
}

/* bn_diff_docs' sections as HTML: a title, a list, one item a row. */
static void diff_text_html(GString *s, const char *text)
{
	gchar **lines = g_strsplit(text, "\n", -1);
	bool open = false;

	for (int i = 0; lines[i]; i++) {
		const char *l = lines[i];
		int c;

		if (!l[0])
			continue;
		if (!strncmp(l, "  ", 2)) {
			if (!open) {
				g_string_append(s, "<ul class=\"diff\">\n");
				open = true;
			}
			g_string_append(s, "<li>");
			bn_html_esc(s, l + 2);
			g_string_append(s, "</li>\n");
			continue;
		}
		if (open)
			g_string_append(s, "</ul>\n");
		open = false;
		c = diff_cat_of(l);
		if (c < 0) {
			g_string_append(s, "<p class=\"note\">");
			bn_html_esc(s, l);
			g_string_append(s, "</p>\n");
			continue;
		}
		g_string_append_printf(s, "<h3 class=\"%s\">", bn_diff_cat_is_regression(c) ?
				       "regression" : "change");
		bn_html_esc(s, l);
		g_string_append_printf(s, "</h3>\n<ul class=\"diff\" data-cat=\"%s\">\n",
				       diff_cat_ids[c]);
		open = true;
	}
	if (open)
		g_string_append(s, "</ul>\n");
	g_strfreev(lines);
}

static int diff_section(GString *s, const struct page *p, const cJSON *base, const char *base_path,
			struct bn_err *err)
{
	struct bn_diff_counts counts;
	char *text = NULL, *tot = NULL;
	size_t len = 0, tlen = 0;
	FILE *f = open_memstream(&text, &len), *tf = open_memstream(&tot, &tlen);
	int rc;

	if (!f || !tf) {
		if (f)
			fclose(f);
		if (tf)
			fclose(tf);
		free(text);
		free(tot);
		return bn_err_set(err, BN_ERR_NOMEM, "suite page: out of memory");
	}
	rc = bn_diff_docs(base, base_path, p->doc, p->suite_path,
			  BN_SUITE_HTML_MARGIN_DROP_PCT, f, &counts, err);
	if (rc == BN_OK)
		bn_diff_print_totals(tf, &counts);
	fclose(f);
	fclose(tf);
	if (rc == BN_OK) {
		g_string_append(s, "<section id=\"diff\">\n<h2>Against the baseline</h2>\n"
				   "<p>Baseline: <span class=\"mono\">");
		bn_html_esc(s, base_path);
		g_string_append_printf(s, "</span>; a margin counts as shrunk when it is down "
				       "by more than %g%% of its limit's span.</p>\n"
				       "<p class=\"diff-totals\" data-regressions=\"%d\" "
				       "data-fixed=\"%d\">",
				       BN_SUITE_HTML_MARGIN_DROP_PCT, counts.regressions,
				       counts.n[BN_DIFF_FIXED]);
		bn_html_esc(s, g_strstrip(tot));
		g_string_append(s, "</p>\n");
		diff_text_html(s, text);
		g_string_append(s, "</section>\n");
	}
	free(text);
	free(tot);
	return rc;
}

char *bn_suite_html_render(const cJSON *suite_doc, const char *suite_path,
			   const cJSON *baseline_doc, const char *baseline_path,
			   struct bn_err *err)
{
	struct page p = {
		.doc = suite_doc,
		.suite_path = suite_path,
		.order = g_hash_table_new(g_str_hash, g_str_equal),
		.seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free),
		.cols = g_ptr_array_new(),
	};
	GString *s = g_string_sized_new(16384), *diff = g_string_new("");
	const char *name = bn_jstr(bn_jget(suite_doc, "suite"), "name");
	char *title = NULL, *out = NULL;
	int rc;

	rc = bn_suite_doc_check(suite_doc, suite_path, err);
	if (rc == BN_OK)
		rc = collect(&p, err);
	if (rc == BN_OK && baseline_doc)
		rc = diff_section(diff, &p, baseline_doc,
				  baseline_path ? baseline_path : "baseline", err);
	if (rc == BN_OK) {
		title = g_strdup_printf("bcbench suite: %s", name ? name : suite_path);
		bn_html_head(s, title);
		header(s, &p, baseline_doc ? baseline_path : NULL);
		totals(s, suite_doc);
		rc = matrix(s, &p, err);
	}
	if (rc == BN_OK) {
		g_string_append(s, "<h3>Legend</h3>\n");
		legend(s);
		unexpected(s, suite_doc);
		other_side(s, suite_doc);
		g_string_append_len(s, diff->str, (gssize)diff->len);
		bn_html_tail(s);
		out = malloc(s->len + 1);
		if (out)
			memcpy(out, s->str, s->len + 1);
		else
			bn_err_set(err, BN_ERR_NOMEM, "suite page: out of memory");
	}
	g_free(title);
	g_string_free(s, TRUE);
	g_string_free(diff, TRUE);
	g_ptr_array_free(p.cols, TRUE);
	g_hash_table_destroy(p.seen);
	g_hash_table_destroy(p.order);
	return out;
}

int bn_suite_html_write(const cJSON *suite_doc, const char *suite_path,
			const cJSON *baseline_doc, const char *baseline_path,
			const char *out_path, struct bn_err *err)
{
	char *html = bn_suite_html_render(suite_doc, suite_path, baseline_doc, baseline_path, err);
	int rc;

	if (!html)
		return err->code ? err->code : BN_ERR_BUG;
	/* not synced: rendered again from suite.json at will (core/file.h) */
	rc = bn_file_write_atomic_nosync(out_path, html, strlen(html), err);
	free(html);
	return rc;
}
