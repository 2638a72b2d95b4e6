/* Two reports, or two suite records, compared row by row (bcbench diff). */
#include "report/diff.h"

#include "core/units.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "core/text.h"
#include "report/suite_doc.h"

#define DIFF_RULE_LEN 96

static const struct {
	const char *title, *one, *many;
} cat_names[BN_DIFF_CAT_COUNT] = {
	[BN_DIFF_NEW_FAILURE] = { "new failures", "new failure", "new failures" },
	[BN_DIFF_NEW_ERROR] = { "new errors", "new error", "new errors" },
	[BN_DIFF_NEW_INCONCLUSIVE] = { "new inconclusive", "new inconclusive", "new inconclusive" },
	[BN_DIFF_GONE] = { "gone", "gone", "gone" },
	[BN_DIFF_MARGIN] = { "margins shrunk", "margin shrunk", "margins shrunk" },
	[BN_DIFF_UNEXPECTED] = { "now unexpected", "now unexpected", "now unexpected" },
	[BN_DIFF_FIXED] = { "fixed", "fixed", "fixed" },
	[BN_DIFF_ADDED] = { "added", "added", "added" },
	[BN_DIFF_CHANGED] = { "other changes", "other change", "other changes" },
};

/* One result of one entry. */
struct row {
	char rule[DIFF_RULE_LEN]; /* its id; "ID#2" for a second result with that id */
	const cJSON *res;
	int verdict;
	bool warning;
	/* the side it judges, and whether the record judges the other one
	 * (a port's rule in a device run: its failure is not the record's) */
	const char *side;
	bool other;
};

/* A report, or a suite entry. A suite entry's report is read from its
 * file only while the entry is compared (entry_open), so a diff holds at
 * most two reports at a time, however many entries the suites have. */
struct entry {
	const char *id;       /* "" for a lone report */
	const char *label;    /* what lines call it: the id, or the scenario name */
	const cJSON *ent;     /* suites: the entry's record */
	const cJSON *report;  /* NULL when the entry has none, or it is not open */
	cJSON *owned;         /* the report read from its file, while open */
	bool completed;
	bool suite;
	int outcome;          /* suites */
	bool as_expected;     /* suites */
	int n_results;        /* suites: of its "rules" counts */
	char state[300];      /* "completed", "aborted: why", "error (why)" */
	int first, n;         /* its rows in side.rows, while open */
};

struct side {
	enum bn_diff_kind kind;
	const char *path;     /* the file the record is, to find the reports */
	struct entry *e;
	int n_e;
	struct row *rows;     /* of the open entry */
	int n_rows, cap_rows;
};

const char *bn_diff_cat_name(enum bn_diff_cat c)
{
	return (unsigned)c < BN_DIFF_CAT_COUNT ? cat_names[c].title : "?";
}

bool bn_diff_cat_is_regression(enum bn_diff_cat c)
{
	return c < BN_DIFF_FIXED;
}

static const cJSON *get(const cJSON *o, const char *key)
{
	return cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
}

static const char *get_str(const cJSON *o, const char *key)
{
	const cJSON *it = get(o, key);

	return cJSON_IsString(it) ? it->valuestring : NULL;
}

static bool is_warning(const cJSON *res)
{
	const char *sev = get_str(res, "severity");

	return sev && !strcmp(sev, "warning");
}

/* A report.json: schema, results with ids and known verdicts, a status. */
static int check_report(const cJSON *doc, const char *what, struct bn_err *err)
{
	const char *schema = get_str(doc, "schema");
	const cJSON *results = get(doc, "results"), *res;
	int i = 0;

	if (!cJSON_IsObject(doc))
		return bn_err_set(err, BN_ERR_DATA, "%s: not a JSON object", what);
	if (!bn_report_schema_known(schema))
		return bn_err_set(err, BN_ERR_DATA, "%s: schema %s%s%s, expected \"%s\"", what,
				  schema ? "\"" : "", schema ? schema : "missing",
				  schema ? "\"" : "", BN_REPORT_SCHEMA);
	if (!cJSON_IsArray(results))
		return bn_err_set(err, BN_ERR_DATA, "%s: \"results\" is not an array", what);
	cJSON_ArrayForEach(res, results) {
		const char *id = get_str(res, "id");

		if (!id || !id[0])
			return bn_err_set(err, BN_ERR_DATA, "%s: results[%d]: no \"id\"", what, i);
		if (bn_verdict_parse(get_str(res, "verdict")) < 0)
			return bn_err_set(err, BN_ERR_DATA, "%s: results[%d] \"%s\": no known "
					  "\"verdict\"", what, i, id);
		i++;
	}
	if (!get_str(get(doc, "status"), "state"))
		return bn_err_set(err, BN_ERR_DATA, "%s: no \"status\": {\"state\"}", what);
	return BN_OK;
}

int bn_diff_doc_kind(const cJSON *doc, const char *what, enum bn_diff_kind *kind,
		     struct bn_err *err)
{
	const char *schema = get_str(doc, "schema");
	const cJSON *e;
	int i = 0;

	if (!cJSON_IsObject(doc))
		return bn_err_set(err, BN_ERR_DATA, "%s: not a bcbench report or suite record "
				  "(not a JSON object)", what);
	/* bcbench-suite/1 goes on to the suite check, which says why it is refused */
	if (!schema || (!bn_report_schema_known(schema) && strcmp(schema, BN_SUITE_SCHEMA) &&
			strcmp(schema, BN_SUITE_SCHEMA_V1)))
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: not a bcbench report or suite record "
				  "(schema %s%s%s, expected \"%s\" or \"%s\")",
				  what, schema ? "\"" : "", schema ? schema : "missing",
				  schema ? "\"" : "", BN_REPORT_SCHEMA, BN_SUITE_SCHEMA);
	if (bn_report_schema_known(schema)) {
		*kind = BN_DIFF_REPORT;
		return check_report(doc, what, err);
	}
	*kind = BN_DIFF_SUITE;
	if (bn_suite_doc_check(doc, what, err) < 0)
		return err->code;
	cJSON_ArrayForEach(e, get(doc, "entries")) {
		const char *id = get_str(e, "id");

		if (!get_str(e, "outcome") || !cJSON_IsBool(get(e, "as_expected")))
			return bn_err_set(err, BN_ERR_DATA,
					  "%s: entries[%d] \"%s\": no \"outcome\" "
					  "or \"as_expected\"",
					  what, i, id);
		for (const cJSON *o = get(doc, "entries")->child; o != e; o = o->next)
			if (!strcmp(get_str(o, "id"), id))
				return bn_err_set(err, BN_ERR_DATA, "%s: entry id \"%s\" is there "
						  "twice", what, id);
		i++;
	}
	return BN_OK;
}

static void entry_close(struct side *s, struct entry *en)
{
	cJSON_Delete(en->owned);
	en->owned = NULL;
	if (en->suite)
		en->report = NULL;
	s->n_rows = 0;
	en->first = en->n = 0;
}

static void side_free(struct side *s)
{
	for (int i = 0; i < s->n_e; i++)
		cJSON_Delete(s->e[i].owned);
	free(s->e);
	free(s->rows);
	memset(s, 0, sizeof(*s));
}

/* The entry's rows from its report (if any). */
static int add_rows(struct side *s, struct entry *en, struct bn_err *err)
{
	int n = cJSON_GetArraySize(get(en->report, "results"));
	const cJSON *res;

	en->first = s->n_rows;
	en->n = 0;
	if (s->n_rows + n > s->cap_rows) {
		struct row *r = realloc(s->rows, (size_t)(s->n_rows + n) * sizeof(*r));

		if (!r)
			return bn_err_set(err, BN_ERR_NOMEM, "diff: out of memory");
		s->rows = r;
		s->cap_rows = s->n_rows + n;
	}
	cJSON_ArrayForEach(res, get(en->report, "results")) {
		struct row *r = &s->rows[s->n_rows];
		const char *id = get_str(res, "id");
		int dup = 1;

		for (int i = en->first; i < s->n_rows; i++)
			if (!strcmp(get_str(s->rows[i].res, "id"), id))
				dup++;
		if (dup > 1)
			snprintf(r->rule, sizeof(r->rule), "%s#%d", id, dup);
		else
			snprintf(r->rule, sizeof(r->rule), "%s", id);
		r->res = res;
		r->verdict = bn_verdict_parse(get_str(res, "verdict"));
		r->warning = is_warning(res);
		r->side = bn_result_side_in(get_str(res, "kind"), get_str(res, "side"),
					    bn_report_json_judges(en->report));
		r->other = strcmp(r->side, bn_report_json_judges(en->report)) != 0;
		s->n_rows++;
		en->n++;
	}
	return BN_OK;
}

static void report_state(struct entry *en)
{
	const cJSON *st = get(en->report, "status");
	const char *state = get_str(st, "state"), *reason = get_str(st, "reason");

	en->completed = state && !strcmp(state, "completed");
	snprintf(en->state, sizeof(en->state), "%s%s%s", state ? state : "no report",
		 reason ? ": " : "", reason ? reason : "");
}

/* A suite entry's completion as its record says: an outcome other than
 * error completed (the suite judges a run that did not as error). */
static void entry_state(struct entry *en)
{
	const char *cause = get_str(en->ent, "cause");

	if (en->report) {
		report_state(en);
	} else {
		en->completed = en->outcome != BN_OUTCOME_ERROR;
		snprintf(en->state, sizeof(en->state), "%s",
			 en->completed ? "completed" : "no report");
	}
	if (en->outcome == BN_OUTCOME_ERROR) {
		en->completed = false;
		snprintf(en->state, sizeof(en->state), "outcome error%s%s", cause ? ": " : "",
			 cause ? cause : "");
	}
}

/* Read a suite entry's report (checked against its sha256 and as a
 * report) and build its rows; a lone report's rows. */
static int entry_open(struct side *s, struct entry *en, const char *what, struct bn_err *err)
{
	if (en->suite) {
		char sub[600];

		if (bn_suite_report_load(en->ent, s->path, &en->owned, err) < 0)
			return err->code;
		en->report = en->owned;
		snprintf(sub, sizeof(sub), "%s: entry \"%s\": report", what, en->id);
		if (en->report && check_report(en->report, sub, err) < 0)
			return err->code;
		entry_state(en);
	}
	return add_rows(s, en, err);
}

static int rules_total(const cJSON *ent)
{
	const cJSON *r = get(ent, "rules");
	int n = 0;

	for (int v = 0; v < BN_VERDICT_COUNT; v++) {
		const cJSON *c = get(r, bn_verdict_name(v));

		if (cJSON_IsNumber(c))
			n += c->valueint;
	}
	return n;
}

static int side_build(const cJSON *doc, const char *what, const char *path, struct side *s,
		      struct bn_err *err)
{
	const cJSON *e;
	int n_e = 0;

	memset(s, 0, sizeof(*s));
	s->path = path ? path : what;
	if (bn_diff_doc_kind(doc, what, &s->kind, err) < 0)
		return err->code;
	if (s->kind == BN_DIFF_REPORT)
		n_e = 1;
	else
		n_e = cJSON_GetArraySize(get(doc, "entries"));
	s->e = calloc((size_t)n_e + 1, sizeof(*s->e));
	if (!s->e) {
		side_free(s);
		return bn_err_set(err, BN_ERR_NOMEM, "diff: out of memory");
	}
	if (s->kind == BN_DIFF_REPORT) {
		struct entry *en = &s->e[s->n_e++];
		const char *name = get_str(get(doc, "scenario"), "name");

		en->id = "";
		en->label = name && name[0] ? name : "report";
		en->report = doc;
		en->n_results = cJSON_GetArraySize(get(doc, "results"));
		report_state(en);
		return BN_OK;
	}
	cJSON_ArrayForEach(e, get(doc, "entries")) {
		struct entry *en = &s->e[s->n_e++];

		en->id = en->label = get_str(e, "id");
		en->ent = e;
		en->suite = true;
		en->outcome = bn_outcome_parse(get_str(e, "outcome"));
		en->as_expected = cJSON_IsTrue(get(e, "as_expected"));
		en->n_results = rules_total(e);
		entry_state(en);
	}
	return BN_OK;
}

static void fmt_qty(char *buf, size_t len, double v, const char *unit)
{
	bn_qty_format(v, unit, buf, len);
}

static const char *unit_of(const struct row *r)
{
	const char *u = r ? get_str(r->res, "unit") : NULL;

	return u ? u : "";
}

static void fmt_measured(char *buf, size_t len, const struct row *r)
{
	const cJSON *m = r ? get(r->res, "measured") : NULL;

	if (cJSON_IsNumber(m))
		fmt_qty(buf, len, m->valuedouble, unit_of(r));
	else if (cJSON_IsString(m))
		snprintf(buf, len, "%s", m->valuestring);
	else
		snprintf(buf, len, "-");
}

static void fmt_limit(char *buf, size_t len, const struct row *r)
{
	const cJSON *lim = get(r->res, "limit");
	const cJSON *mn = get(lim, "min"), *mx = get(lim, "max");

	bn_limit_format(get_str(lim, "name"), cJSON_IsNumber(mn) ? mn->valuedouble : NAN,
			cJSON_IsNumber(mx) ? mx->valuedouble : NAN, unit_of(r), buf, len);
}

static const char *verdict_str(const struct row *r, char *buf, size_t len)
{
	if (!r)
		return "absent";
	snprintf(buf, len, "%s%s", bn_verdict_name(r->verdict), r->warning ? " (warning)" : "");
	return buf;
}

/* "  [LABEL] RULE: pass -> fail, measured 1.14 A -> 960 mA (limit >= 0.9 A) [why]" */
static void print_row(FILE *f, const struct entry *en, const struct row *b, const struct row *n)
{
	const struct row *r = n ? n : b;
	const char *reason = n ? get_str(n->res, "reason") : NULL;
	char vb[40], vn[40], mb[64], mn[64], lim[160];

	fmt_measured(mb, sizeof(mb), b);
	fmt_measured(mn, sizeof(mn), n);
	fmt_limit(lim, sizeof(lim), r);
	bn_term_printf(f, "  [%s] %s%s: %s -> %s", en->label, r->rule,
		!strcmp(r->side, BN_SIDE_NAME_PORT) ? " [the port]" : "", verdict_str(b, vb, sizeof(vb)),
		verdict_str(n, vn, sizeof(vn)));
	if (b && n && strcmp(mb, mn))
		bn_term_printf(f, ", measured %s -> %s", mb, mn);
	else if (strcmp(b ? mb : mn, "-"))
		bn_term_printf(f, ", measured %s", b ? mb : mn);
	if (lim[0])
		bn_term_printf(f, " (limit %s)", lim);
	if (reason && reason[0] && n->verdict != BN_VERDICT_PASS &&
	    n->verdict != BN_VERDICT_SKIPPED)
		bn_term_printf(f, " [%s]", reason);
	fputc('\n', f);
}

struct diff_ctx {
	FILE *sec[BN_DIFF_CAT_COUNT];
	char *buf[BN_DIFF_CAT_COUNT];
	size_t len[BN_DIFF_CAT_COUNT];
	struct bn_diff_counts *c;
	double pct;
};

static FILE *count(struct diff_ctx *x, enum bn_diff_cat cat)
{
	x->c->n[cat]++;
	if (bn_diff_cat_is_regression(cat))
		x->c->regressions++;
	return x->sec[cat];
}

static bool fails(const struct row *r)
{
	return r && r->verdict == BN_VERDICT_FAIL && !r->warning;
}

static bool num(const cJSON *o, const char *key, double *v)
{
	const cJSON *it = get(o, key);

	if (!cJSON_IsNumber(it) || !isfinite(it->valuedouble))
		return false;
	*v = it->valuedouble;
	return true;
}

/* Both pass: has the margin shrunk by more than pct of the span? */
static void compare_margin(struct diff_ctx *x, const struct entry *en, const struct row *b,
			   const struct row *n)
{
	const cJSON *lim = get(b->res, "limit");
	double bm = 0, nm = 0, lo = 0, hi = 0, span = 0, drop;
	bool has_lo = num(lim, "min", &lo), has_hi = num(lim, "max", &hi);
	char sb[48], sn[48], sd[48], ss[48], mb[64], mn[64], l[160];

	if (!num(b->res, "margin", &bm) || !num(n->res, "margin", &nm))
		return;
	if (has_lo && has_hi)
		span = hi - lo;
	else if (has_lo || has_hi)
		span = fabs(has_lo ? lo : hi);
	if (!(span > 0)) {
		x->c->margins_no_span++;
		return;
	}
	x->c->margins_compared++;
	drop = bm - nm;
	if (!(drop > x->pct / 100.0 * span))
		return;
	fmt_qty(sb, sizeof(sb), bm, unit_of(b));
	fmt_qty(sn, sizeof(sn), nm, unit_of(n));
	fmt_qty(sd, sizeof(sd), drop, unit_of(b));
	fmt_qty(ss, sizeof(ss), span, unit_of(b));
	fmt_measured(mb, sizeof(mb), b);
	fmt_measured(mn, sizeof(mn), n);
	fmt_limit(l, sizeof(l), b);
	fprintf(count(x, BN_DIFF_MARGIN),
		"  [%s] %s: pass -> pass, margin %s -> %s, down %s = %.1f%% of the limit's span %s "
		"(measured %s%s%s, limit %s)\n",
		en->label, n->rule, sb, sn, sd, 100.0 * drop / span, ss, mb,
		strcmp(mb, mn) ? " -> " : "", strcmp(mb, mn) ? mn : "", l);
}

static void compare_row(struct diff_ctx *x, const struct entry *en, const struct row *b,
			const struct row *n)
{
	enum bn_diff_cat cat;

	/* The other side's failing or passing again is not the record's
	 * regression or fix (a port's failure in a device run): a change. */
	if (n->other && b && (fails(n) != fails(b)))
		cat = BN_DIFF_CHANGED;
	else if (n->other && !b && fails(n))
		cat = BN_DIFF_ADDED;
	else if (fails(n) && !fails(b))
		cat = BN_DIFF_NEW_FAILURE;
	else if (n->verdict == BN_VERDICT_ERROR && (!b || b->verdict != BN_VERDICT_ERROR))
		cat = BN_DIFF_NEW_ERROR;
	else if (!b)
		cat = BN_DIFF_ADDED;
	else if (n->verdict == BN_VERDICT_INCONCLUSIVE &&
		 (b->verdict == BN_VERDICT_PASS || b->verdict == BN_VERDICT_FAIL))
		cat = BN_DIFF_NEW_INCONCLUSIVE;
	else if (fails(b) && n->verdict == BN_VERDICT_PASS)
		cat = BN_DIFF_FIXED;
	else if (b->verdict == BN_VERDICT_PASS && n->verdict == BN_VERDICT_PASS) {
		compare_margin(x, en, b, n);
		return;
	} else if (b->verdict != n->verdict || b->warning != n->warning)
		cat = BN_DIFF_CHANGED;
	else
		return;
	print_row(count(x, cat), en, b, n);
}

static struct entry *find_entry(const struct side *s, const char *id)
{
	if (s->kind == BN_DIFF_REPORT)
		return s->n_e ? &s->e[0] : NULL;
	for (int i = 0; i < s->n_e; i++)
		if (!strcmp(s->e[i].id, id))
			return &s->e[i];
	return NULL;
}

static const struct row *find_row(const struct side *s, const struct entry *en, const char *rule,
				  bool *matched)
{
	for (int i = en->first; i < en->first + en->n; i++)
		if (!strcmp(s->rows[i].rule, rule)) {
			matched[i] = true;
			return &s->rows[i];
		}
	return NULL;
}

static const char *outcome_str(const struct entry *en)
{
	if (en->suite)
		return bn_outcome_name(en->outcome);
	return en->completed ? "completed" : "not completed";
}

/* The unexpected[] lines of a suite entry, "; "-joined. */
static void unexpected_lines(const cJSON *doc, const char *id, char *buf, size_t len)
{
	const cJSON *e, *l;
	size_t o = 0;

	buf[0] = '\0';
	cJSON_ArrayForEach(e, get(doc, "entries")) {
		const char *eid = get_str(e, "id");

		if (!eid || strcmp(eid, id))
			continue;
		cJSON_ArrayForEach(l, get(e, "unexpected")) {
			int w;

			if (!cJSON_IsString(l))
				continue;
			w = snprintf(buf + o, len - o, "%s%s", o ? "; " : "", l->valuestring);
			if (w < 0 || (size_t)w >= len - o)
				return;
			o += (size_t)w;
		}
	}
}

static int compare_entry(struct diff_ctx *x, struct side *bs, struct side *ns,
			 const cJSON *new_doc, struct entry *ne, bool *e_matched, struct bn_err *err)
{
	struct entry *be = find_entry(bs, ne->id);
	int unreported = 0, rc = BN_OK;
	bool fixed = false, *b_matched = NULL;
	char why[600];

	if (!be) {
		if (ne->suite && !ne->as_expected) {
			unexpected_lines(new_doc, ne->id, why, sizeof(why));
			bn_term_printf(count(x, BN_DIFF_UNEXPECTED),
				"  [%s] absent -> %s, not as expected%s%s\n", ne->label,
				outcome_str(ne), why[0] ? ": " : "", why);
		} else {
			bn_term_printf(count(x, BN_DIFF_ADDED), "  [%s] new entry, %s\n", ne->label,
				outcome_str(ne));
		}
		return BN_OK;
	}
	e_matched[be - bs->e] = true;
	if (entry_open(ns, ne, "new", err) < 0 || entry_open(bs, be, "base", err) < 0) {
		rc = err->code;
		goto out;
	}
	b_matched = calloc((size_t)bs->n_rows + 1, sizeof(*b_matched));
	if (!b_matched) {
		rc = bn_err_set(err, BN_ERR_NOMEM, "diff: out of memory");
		goto out;
	}
	for (int i = ne->first; i < ne->first + ne->n; i++)
		compare_row(x, ne, find_row(bs, be, ns->rows[i].rule, b_matched), &ns->rows[i]);
	for (int i = be->first; i < be->first + be->n; i++) {
		if (b_matched[i])
			continue;
		if (!ne->completed)
			unreported++;
		else
			print_row(count(x, BN_DIFF_GONE), ne, &bs->rows[i], NULL);
	}
	if (be->completed && !ne->completed) {
		bn_term_printf(count(x, BN_DIFF_NEW_ERROR), "  [%s] run did not complete: %s -> %s",
			ne->label, be->state, ne->state);
		if (unreported)
			fprintf(x->sec[BN_DIFF_NEW_ERROR], " (%d result%s not reported)",
				unreported, unreported == 1 ? "" : "s");
		fputc('\n', x->sec[BN_DIFF_NEW_ERROR]);
	} else if (!be->completed && ne->completed) {
		bn_term_printf(count(x, BN_DIFF_FIXED), "  [%s] run completes again: %s -> %s\n",
			ne->label, be->state, ne->state);
		fixed = true;
	}
	if (!ne->suite)
		goto out;
	if (be->as_expected && !ne->as_expected) {
		unexpected_lines(new_doc, ne->id, why, sizeof(why));
		bn_term_printf(count(x, BN_DIFF_UNEXPECTED), "  [%s] %s -> %s, not as expected%s%s\n",
			ne->label, outcome_str(be), outcome_str(ne), why[0] ? ": " : "", why);
	} else if (!be->as_expected && ne->as_expected && !fixed) {
		bn_term_printf(count(x, BN_DIFF_FIXED), "  [%s] %s -> %s, as expected again\n", ne->label,
			outcome_str(be), outcome_str(ne));
	}
out:
	free(b_matched);
	entry_close(ns, ne);
	entry_close(bs, be);
	return rc;
}

int bn_diff_docs(const cJSON *base, const char *base_path, const cJSON *new_doc,
		 const char *new_path, double margin_drop_pct, FILE *out,
		 struct bn_diff_counts *counts, struct bn_err *err)
{
	static const char *const kind_names[] = { "a report (" BN_REPORT_SCHEMA ")",
						  "a suite record (" BN_SUITE_SCHEMA ")" };
	struct diff_ctx x = { 0 };
	struct side bs, ns;
	bool *e_matched = NULL;
	int rc = BN_OK;

	memset(counts, 0, sizeof(*counts));
	if (!(margin_drop_pct > 0 && margin_drop_pct <= 100))
		return bn_err_set(err, BN_ERR_ARG, "diff: margin drop %g%%: expected a percentage "
				  "in (0, 100]", margin_drop_pct);
	if (side_build(base, "base", base_path, &bs, err) < 0)
		return err->code;
	if (side_build(new_doc, "new", new_path, &ns, err) < 0) {
		side_free(&bs);
		return err->code;
	}
	if (bs.kind != ns.kind) {
		rc = bn_err_set(err, BN_ERR_DATA, "base is %s and new is %s: diff compares reports "
				"with reports and suite records with suite records",
				kind_names[bs.kind], kind_names[ns.kind]);
		goto out;
	}
	x.c = counts;
	x.pct = margin_drop_pct;
	e_matched = calloc((size_t)bs.n_e + 1, sizeof(*e_matched));
	for (int c = 0; c < BN_DIFF_CAT_COUNT; c++)
		x.sec[c] = open_memstream(&x.buf[c], &x.len[c]);
	for (int c = 0; c < BN_DIFF_CAT_COUNT; c++)
		if (!x.sec[c])
			rc = BN_ERR_NOMEM;
	if (rc < 0 || !e_matched) {
		rc = bn_err_set(err, BN_ERR_NOMEM, "diff: out of memory");
		goto out;
	}

	for (int i = 0; i < ns.n_e && rc == BN_OK; i++)
		rc = compare_entry(&x, &bs, &ns, new_doc, &ns.e[i], e_matched, err);
	if (rc < 0)
		goto out;
	for (int i = 0; i < bs.n_e; i++)
		if (!e_matched[i])
			bn_term_printf(count(&x, BN_DIFF_GONE),
				"  [%s] entry missing from new (was %s, %d "
				"result%s)\n",
				bs.e[i].label, outcome_str(&bs.e[i]), bs.e[i].n_results,
				bs.e[i].n_results == 1 ? "" : "s");

	if (out && bs.kind == BN_DIFF_REPORT && strcmp(bs.e[0].label, ns.e[0].label))
		bn_term_printf(out, "note: the reports are of different scenarios: \"%s\" and \"%s\"\n",
			bs.e[0].label, ns.e[0].label);
	if (out && bs.kind == BN_DIFF_SUITE) {
		const char *sb = get_str(get(base, "suite"), "sha256");
		const char *sn = get_str(get(new_doc, "suite"), "sha256");

		if (sb && sn && strcmp(sb, sn))
			fprintf(out, "note: the suite files differ (suite.sha256 %.12s... and "
				"%.12s...)\n", sb, sn);
	}
	for (int c = 0; c < BN_DIFF_CAT_COUNT; c++) {
		fclose(x.sec[c]);
		x.sec[c] = NULL;
		if (out && counts->n[c])
			fprintf(out, "%s (%d):\n%s", cat_names[c].title, counts->n[c], x.buf[c]);
	}
out:
	for (int c = 0; c < BN_DIFF_CAT_COUNT; c++) {
		if (x.sec[c])
			fclose(x.sec[c]);
		free(x.buf[c]);
	}
	free(e_matched);
	side_free(&bs);
	side_free(&ns);
	if (rc < 0)
		memset(counts, 0, sizeof(*counts));
	return rc;
}

void bn_diff_print_totals(FILE *f, const struct bn_diff_counts *c)
{
	bool first = true;

	fprintf(f, "diff: %d regression%s", c->regressions, c->regressions == 1 ? "" : "s");
	for (int k = 0; k < BN_DIFF_CAT_COUNT; k++) {
		if (!bn_diff_cat_is_regression(k) || !c->n[k])
			continue;
		fprintf(f, "%s%d %s", first ? " (" : ", ", c->n[k],
			c->n[k] == 1 ? cat_names[k].one : cat_names[k].many);
		first = false;
	}
	fprintf(f, "%s, %d fixed", first ? "" : ")", c->n[BN_DIFF_FIXED]);
	if (c->n[BN_DIFF_ADDED])
		fprintf(f, ", %d added", c->n[BN_DIFF_ADDED]);
	if (c->n[BN_DIFF_CHANGED])
		fprintf(f, ", %d other change%s", c->n[BN_DIFF_CHANGED],
			c->n[BN_DIFF_CHANGED] == 1 ? "" : "s");
	fputc('\n', f);
}
