/* suite.json documents: the check that a document is one, and its totals
 * and exit code recomputed from its entries (docs/suite-report.md). */
#include "report/suite_doc.h"

#include <string.h>

#include "core/json.h"
#include "report/report.h"

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
		if (it && !cJSON_IsObject(it) && !cJSON_IsNull(it))
			return bn_err_set(
			    err, BN_ERR_DATA,
			    "%s: entries[%d] \"%s\": \"report\" is not an object or null", path, i,
			    id->valuestring);
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

/* Set doc[key] to item, replacing an existing value in place. */
static void put(cJSON *doc, const char *key, cJSON *item)
{
	bn_json_set(doc, key, item);
}

int bn_suite_doc_totals(cJSON *doc, struct bn_err *err)
{
	int outcomes[BN_OUTCOME_COUNT] = { 0 }, rules[BN_VERDICT_COUNT] = { 0 };
	int n = 0, unexpected = 0, unexpected_error = 0;
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
		if (count_rules(cJSON_GetObjectItemCaseSensitive(e, "report"), name, rules, err) <
		    0)
			return err->code;
		n++;
		outcomes[o]++;
		if (cJSON_IsFalse(ax)) {
			unexpected++;
			if (o == BN_OUTCOME_ERROR)
				unexpected_error++;
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
	put(doc, "exit_code", cJSON_CreateNumber(unexpected_error ? 3 : unexpected ? 1 : 0));
	return BN_OK;
}
