/* suite.json documents: the check that a document is one, its totals and
 * exit code recomputed from its entries, and the entries' reports read
 * from the files they name (docs/suite-report.md). */
#include "report/suite_doc.h"

#include "core/exit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/file.h"
#include "core/json.h"

static const char *const outcome_names[BN_OUTCOME_COUNT] = {
	"pass", "xfail", "fail", "xpass", "error",
};

const char *bn_outcome_name(enum bn_outcome o)
{
	return (unsigned)o < BN_OUTCOME_COUNT ? outcome_names[o] : "?";
}

int bn_outcome_parse(const char *name)
{
	for (int o = 0; name && o < BN_OUTCOME_COUNT; o++)
		if (!strcmp(name, outcome_names[o]))
			return o;
	return -1;
}

static int verdict_parse(const char *name)
{
	for (int v = 0; name && v < BN_VERDICT_COUNT; v++)
		if (!strcmp(name, bn_verdict_name(v)))
			return v;
	return -1;
}

static bool is_sha256(const char *s)
{
	size_t n = strspn(s, "0123456789abcdef");

	return n == 64 && !s[n];
}

/* {"path": "entries/.../report.json", "sha256": "..."} */
static bool report_ref_ok(const cJSON *ref)
{
	const cJSON *p = cJSON_GetObjectItemCaseSensitive(ref, "path");
	const cJSON *h = cJSON_GetObjectItemCaseSensitive(ref, "sha256");

	return cJSON_IsObject(ref) && cJSON_IsString(p) && p->valuestring[0] &&
	       cJSON_IsString(h) && is_sha256(h->valuestring);
}

int bn_suite_doc_check(const cJSON *doc, const char *path, struct bn_err *err)
{
	const cJSON *schema, *entries, *e;
	int i = 0;

	if (!cJSON_IsObject(doc))
		return bn_err_set(err, BN_ERR_DATA, "%s: not a suite record (not a JSON object)",
				  path);
	schema = cJSON_GetObjectItemCaseSensitive(doc, "schema");
	if (!cJSON_IsString(schema))
		return bn_err_set(err, BN_ERR_DATA, "%s: not a suite record: no \"schema\"", path);
	if (!strcmp(schema->valuestring, BN_SUITE_SCHEMA_V1))
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: schema \"%s\" is the older suite record that embeds every "
				  "entry's report; this bcbench reads \"%s\" (reports by path): run "
				  "the suite again",
				  path, BN_SUITE_SCHEMA_V1, BN_SUITE_SCHEMA);
	if (strcmp(schema->valuestring, BN_SUITE_SCHEMA))
		return bn_err_set(err, BN_ERR_DATA, "%s: schema \"%s\", expected \"%s\"", path,
				  schema->valuestring, BN_SUITE_SCHEMA);
	entries = cJSON_GetObjectItemCaseSensitive(doc, "entries");
	if (!cJSON_IsArray(entries))
		return bn_err_set(err, BN_ERR_DATA, "%s: \"entries\" is not an array", path);
	cJSON_ArrayForEach(e, entries) {
		const cJSON *idx = cJSON_GetObjectItemCaseSensitive(e, "index");
		const cJSON *id = cJSON_GetObjectItemCaseSensitive(e, "id");
		const cJSON *it;

		if (!cJSON_IsObject(e))
			return bn_err_set(err, BN_ERR_DATA, "%s: entries[%d] is not an object",
					  path, i);
		if (!cJSON_IsNumber(idx))
			return bn_err_set(err, BN_ERR_DATA, "%s: entries[%d]: no number \"index\"",
					  path, i);
		if (!cJSON_IsString(id))
			return bn_err_set(err, BN_ERR_DATA, "%s: entries[%d]: no string \"id\"",
					  path, i);
		it = cJSON_GetObjectItemCaseSensitive(e, "outcome");
		if (it && (!cJSON_IsString(it) || bn_outcome_parse(it->valuestring) < 0))
			return bn_err_set(
			    err, BN_ERR_DATA,
			    "%s: entries[%d] \"%s\": \"outcome\" is not one of pass, xfail, "
			    "fail, xpass, error",
			    path, i, id->valuestring);
		it = cJSON_GetObjectItemCaseSensitive(e, "as_expected");
		if (it && !cJSON_IsBool(it))
			return bn_err_set(
			    err, BN_ERR_DATA,
			    "%s: entries[%d] \"%s\": \"as_expected\" is not true or false", path, i,
			    id->valuestring);
		it = cJSON_GetObjectItemCaseSensitive(e, "report");
		if (it && !cJSON_IsNull(it) && !report_ref_ok(it))
			return bn_err_set(
			    err, BN_ERR_DATA,
			    "%s: entries[%d] \"%s\": \"report\" is not null or {\"path\": "
			    "FILE, \"sha256\": 64 hex digits}",
			    path, i, id->valuestring);
		it = cJSON_GetObjectItemCaseSensitive(e, "rules");
		if (it && !cJSON_IsObject(it))
			return bn_err_set(err, BN_ERR_DATA,
					  "%s: entries[%d] \"%s\": \"rules\" is not an object",
					  path, i, id->valuestring);
		i++;
	}
	return BN_OK;
}

/* Add the verdicts of report's results to rules[]. */
static int count_rules(const cJSON *report, const char *id, int rules[BN_VERDICT_COUNT],
		       struct bn_err *err)
{
	const cJSON *results, *res;
	int i = 0;

	if (!cJSON_IsObject(report))
		return BN_OK;
	results = cJSON_GetObjectItemCaseSensitive(report, "results");
	if (!results)
		return BN_OK;
	if (!cJSON_IsArray(results))
		return bn_err_set(err, BN_ERR_DATA,
				  "suite entry \"%s\": report \"results\" is not an array", id);
	cJSON_ArrayForEach(res, results) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(res, "verdict");
		int verdict = cJSON_IsString(v) ? verdict_parse(v->valuestring) : -1;

		if (verdict < 0)
			return bn_err_set(
			    err, BN_ERR_DATA,
			    "suite entry \"%s\": report results[%d]: no known \"verdict\"", id, i);
		rules[verdict]++;
		i++;
	}
	return BN_OK;
}

cJSON *bn_suite_rules_of(const cJSON *report, const char *id, struct bn_err *err)
{
	int rules[BN_VERDICT_COUNT] = { 0 };
	cJSON *o;

	if (count_rules(report, id, rules, err) < 0)
		return NULL;
	o = cJSON_CreateObject();
	for (int v = 0; o && v < BN_VERDICT_COUNT; v++)
		if (!cJSON_AddNumberToObject(o, bn_verdict_name(v), rules[v])) {
			cJSON_Delete(o);
			o = NULL;
		}
	if (!o)
		bn_err_set(err, BN_ERR_NOMEM, "suite entry \"%s\": out of memory", id);
	return o;
}

/* Add an entry's "rules" counts (absent: none) to rules[]. */
static int add_entry_rules(const cJSON *e, const char *id, int rules[BN_VERDICT_COUNT],
			   struct bn_err *err)
{
	const cJSON *r = cJSON_GetObjectItemCaseSensitive(e, "rules");

	if (!r)
		return BN_OK;
	for (int v = 0; v < BN_VERDICT_COUNT; v++) {
		const cJSON *n = cJSON_GetObjectItemCaseSensitive(r, bn_verdict_name(v));

		if (!n)
			continue;
		if (!cJSON_IsNumber(n) || n->valuedouble < 0 || n->valuedouble != n->valueint)
			return bn_err_set(err, BN_ERR_DATA,
					  "suite entry \"%s\": \"rules\": \"%s\" is not a count",
					  id, bn_verdict_name(v));
		rules[v] += n->valueint;
	}
	return BN_OK;
}

/* Set doc[key] to item, replacing an existing value in place. */
static void put(cJSON *doc, const char *key, cJSON *item)
{
	bn_json_set(doc, key, item);
}

/* What an entry that is not as expected (outcome o) gives the suite's exit
 * code: its "exit_cause" (an interrupt's signal from its "exit_code");
 * without one (a record written before), 3 for an error, else 1. */
static int entry_code(const cJSON *e, int o)
{
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(e, "exit_cause");
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(e, "exit_code");
	int signo = cJSON_IsNumber(x) && x->valueint > 128 ? x->valueint - 128 : 0;
	int code = bn_exit_from_cause(cJSON_IsString(c) ? c->valuestring : NULL, signo);

	if (code == BN_EXIT_OK)
		code = BN_EXIT_FAILED; /* not as expected, whatever it says */
	if (code < 0)
		code = o == BN_OUTCOME_ERROR ? BN_EXIT_DUT_BROKE : BN_EXIT_FAILED;
	return code;
}

int bn_suite_doc_totals(cJSON *doc, struct bn_err *err)
{
	int outcomes[BN_OUTCOME_COUNT] = { 0 }, rules[BN_VERDICT_COUNT] = { 0 };
	int n = 0, unexpected = 0, code = BN_EXIT_OK;
	const cJSON *entries = cJSON_GetObjectItemCaseSensitive(doc, "entries");
	const cJSON *e;
	cJSON *totals, *r;

	if (!cJSON_IsArray(entries))
		return bn_err_set(err, BN_ERR_DATA, "suite record: \"entries\" is not an array");
	cJSON_ArrayForEach(e, entries) {
		const cJSON *id = cJSON_GetObjectItemCaseSensitive(e, "id");
		const cJSON *oc = cJSON_GetObjectItemCaseSensitive(e, "outcome");
		const cJSON *ax = cJSON_GetObjectItemCaseSensitive(e, "as_expected");
		const char *name = cJSON_IsString(id) ? id->valuestring : "?";
		int o = cJSON_IsString(oc) ? bn_outcome_parse(oc->valuestring) : -1;

		if (o < 0)
			return bn_err_set(err, BN_ERR_DATA,
					  "suite entry \"%s\": no known \"outcome\"", name);
		if (!cJSON_IsBool(ax))
			return bn_err_set(err, BN_ERR_DATA,
					  "suite entry \"%s\": no \"as_expected\"", name);
		if (add_entry_rules(e, name, rules, err) < 0)
			return err->code;
		n++;
		outcomes[o]++;
		if (cJSON_IsFalse(ax)) {
			unexpected++;
			code = bn_exit_most_urgent(code, entry_code(e, o));
		}
	}
	totals = cJSON_CreateObject();
	if (!totals)
		return bn_err_set(err, BN_ERR_NOMEM, "suite record: out of memory");
	cJSON_AddNumberToObject(totals, "entries", n);
	for (int o = 0; o < BN_OUTCOME_COUNT; o++)
		cJSON_AddNumberToObject(totals, outcome_names[o], outcomes[o]);
	cJSON_AddNumberToObject(totals, "unexpected", unexpected);
	r = cJSON_AddObjectToObject(totals, "rules");
	for (int v = 0; r && v < BN_VERDICT_COUNT; v++)
		cJSON_AddNumberToObject(r, bn_verdict_name(v), rules[v]);
	put(doc, "totals", totals);
	put(doc, "exit_code", cJSON_CreateNumber(n ? code : BN_EXIT_NOTHING_TO_RUN));
	return BN_OK;
}

static const char *entry_id(const cJSON *entry)
{
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(entry, "id");

	return cJSON_IsString(id) ? id->valuestring : "?";
}

int bn_suite_report_path(const cJSON *entry, const char *suite_path, char *buf, size_t len,
			 bool *has, struct bn_err *err)
{
	const cJSON *ref = cJSON_GetObjectItemCaseSensitive(entry, "report");
	const char *slash = strrchr(suite_path, '/'), *p;
	int w;

	*has = false;
	if (!ref || cJSON_IsNull(ref))
		return BN_OK;
	if (!report_ref_ok(ref))
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: entry \"%s\": \"report\" is not null or {\"path\", "
				  "\"sha256\"}",
				  suite_path, entry_id(entry));
	p = cJSON_GetObjectItemCaseSensitive(ref, "path")->valuestring;
	if (p[0] == '/' || !slash)
		w = snprintf(buf, len, "%s", p);
	else
		w = snprintf(buf, len, "%.*s/%s", (int)(slash - suite_path), suite_path, p);
	if (w < 0 || (size_t)w >= len)
		return bn_err_set(err, BN_ERR_DATA, "%s: entry \"%s\": report path too long",
				  suite_path, entry_id(entry));
	*has = true;
	return BN_OK;
}

static const char *ref_sha(const cJSON *entry)
{
	return cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(entry, "report"),
						"sha256")
	    ->valuestring;
}

static int sha_mismatch(const cJSON *entry, const char *suite_path, const char *path,
			const char *sha, struct bn_err *err)
{
	return bn_err_set(err, BN_ERR_DATA,
			  "%s: entry \"%s\": report %s has sha256 %.12s..., the record says "
			  "%.12s... (changed since the suite ran)",
			  suite_path, entry_id(entry), path, sha, ref_sha(entry));
}

int bn_suite_report_load(const cJSON *entry, const char *suite_path, cJSON **report,
			 struct bn_err *err)
{
	char path[4096], sha[65];
	struct bn_err e2 = { 0 };
	char *text = NULL;
	size_t len = 0;
	bool has;

	*report = NULL;
	if (bn_suite_report_path(entry, suite_path, path, sizeof(path), &has, err) < 0)
		return err->code;
	if (!has)
		return BN_OK;
	if (bn_file_read(path, &text, &len, &e2) < 0)
		return bn_err_set(err, BN_ERR_DATA, "%s: entry \"%s\": report %s: cannot read it: %s",
				  suite_path, entry_id(entry), path, e2.msg);
	bn_sha256_hex(text, len, sha);
	if (strcmp(sha, ref_sha(entry))) {
		free(text);
		return sha_mismatch(entry, suite_path, path, sha, err);
	}
	*report = cJSON_ParseWithLength(text, len);
	free(text);
	if (!cJSON_IsObject(*report)) {
		cJSON_Delete(*report);
		*report = NULL;
		return bn_err_set(err, BN_ERR_DATA, "%s: entry \"%s\": report %s is not a JSON object",
				  suite_path, entry_id(entry), path);
	}
	return BN_OK;
}

int bn_suite_doc_verify_reports(const cJSON *doc, const char *suite_path, struct bn_err *err)
{
	const cJSON *e;

	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(doc, "entries")) {
		char path[4096], sha[65];
		struct bn_err e2 = { 0 };
		bool has;

		if (bn_suite_report_path(e, suite_path, path, sizeof(path), &has, err) < 0)
			return err->code;
		if (!has)
			continue;
		if (bn_file_sha256(path, sha, &e2) < 0)
			return bn_err_set(err, BN_ERR_DATA,
					  "%s: entry \"%s\": report %s: cannot read it: %s",
					  suite_path, entry_id(e), path, e2.msg);
		if (strcmp(sha, ref_sha(e)))
			return sha_mismatch(e, suite_path, path, sha, err);
	}
	return BN_OK;
}
