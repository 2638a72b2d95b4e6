/* Suite records (report/suite_doc.c: check, totals, the reports they
 * name) and the merge of shards (report/merge.c), on suite documents
 * built here: nine entries of every outcome, whole and split into three
 * shards by index % 3. Entries name their reports by path and sha256
 * (bcbench-suite/2) and carry their verdict counts ("rules"). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "lib/harness.h"
#include "core/err.h"
#include "core/file.h"
#include "core/json.h"
#include "report/merge.h"
#include "report/suite_doc.h"

#define N_ENTRIES 9
#define SUITE_SHA "5e1f0a9c2b7d4e6f8a1b3c5d7e9f0a2b4c6d8e0f1a3b5c7d9e1f2a4b6c8d0e2f"

static const char *const shard_paths[] = {
	"/nonexistent-bn/ci/s1/suite.json",
	"/nonexistent-bn/ci/s2/suite.json",
	"/nonexistent-bn/ci/s3/suite.json",
};

/* Entry i (1-based): its outcome, whether as expected, the verdicts of
 * its report's results ("" : no report). */
static const struct {
	const char *outcome;
	bool as_expected;
	const char *verdicts; /* p pass, f fail, i inconclusive, s skipped, e error */
} plan[N_ENTRIES + 1] = {
	[1] = { "pass", true, "ppps" },
	[2] = { "xfail", true, "pfps" },
	[3] = { "pass", true, "ppis" },
	[4] = { "fail", false, "fpps" },
	[5] = { "pass", true, "pppp" },
	[6] = { "xpass", false, "ppps" },
	[7] = { "error", true, "" },
	[8] = { "pass", true, "ppss" },
	[9] = { "xfail", true, "ffpe" },
};

static cJSON *report(const char *verdicts)
{
	static const char *const names[] = { "pass", "fail", "inconclusive", "skipped", "error" };
	cJSON *r = cJSON_CreateObject(), *results;

	cJSON_AddStringToObject(r, "schema", "bcbench-report/1");
	results = cJSON_AddArrayToObject(r, "results");
	for (int i = 0; verdicts[i]; i++) {
		cJSON *res = cJSON_CreateObject();
		char id[32];

		snprintf(id, sizeof(id), "rule.%d", i);
		cJSON_AddStringToObject(res, "id", id);
		cJSON_AddStringToObject(res, "verdict",
					names[strchr("pfise", verdicts[i]) - "pfise"]);
		cJSON_AddItemToArray(results, res);
	}
	cJSON_AddStringToObject(cJSON_AddObjectToObject(r, "status"), "state", "completed");
	return r;
}

static cJSON *entry(int index, const char *outcome, bool as_expected, const char *verdicts)
{
	cJSON *e = cJSON_CreateObject(), *rep = verdicts[0] ? report(verdicts) : NULL, *ref, *other;
	struct bn_err err = { 0 };
	char id[32], dir[64], path[80];

	snprintf(id, sizeof(id), "e%d", index);
	snprintf(dir, sizeof(dir), "entries/%04d-%s", index, id);
	cJSON_AddNumberToObject(e, "index", index);
	cJSON_AddStringToObject(e, "id", id);
	cJSON_AddStringToObject(e, "outcome", outcome);
	cJSON_AddBoolToObject(e, "as_expected", as_expected);
	cJSON_AddNumberToObject(e, "wall_s", 0.5);
	cJSON_AddStringToObject(e, "dir", dir);
	if (rep) {
		/* the sides an entry records (suite/judge.c): merged as they are
		 * (test_merge__three_shards compares whole entries) */
		cJSON_AddStringToObject(e, "judges", "device");
		other = cJSON_AddArrayToObject(e, "other_side");
		if (index == 2)
			cJSON_AddItemToArray(other, cJSON_CreateString(
				"bc12.port.vchg failed (the port's; the entry judges the device: "
				"not counted)"));
		snprintf(path, sizeof(path), "%s/report.json", dir);
		ref = cJSON_AddObjectToObject(e, "report");
		cJSON_AddStringToObject(ref, "path", path);
		cJSON_AddStringToObject(ref, "sha256", SUITE_SHA);
	} else {
		cJSON_AddNullToObject(e, "report");
	}
	cJSON_AddItemToObject(e, "rules", bn_suite_rules_of(rep, id, &err));
	assert_int_equal(err.code, BN_OK);
	cJSON_Delete(rep);
	return e;
}

/* The suite with the entries whose index % count == shard % count (all
 * when count is 0), its totals computed. */
static cJSON *suite(int shard, int count)
{
	cJSON *doc = cJSON_CreateObject(), *o, *entries;
	struct bn_err err = { 0 };

	cJSON_AddStringToObject(doc, "schema", BN_SUITE_SCHEMA);
	o = cJSON_AddObjectToObject(doc, "suite");
	cJSON_AddStringToObject(o, "name", "regression");
	cJSON_AddStringToObject(o, "sha256", SUITE_SHA);
	if (count) {
		o = cJSON_AddObjectToObject(doc, "shard");
		cJSON_AddNumberToObject(o, "index", shard);
		cJSON_AddNumberToObject(o, "count", count);
	} else {
		cJSON_AddNullToObject(doc, "shard");
	}
	cJSON_AddNullToObject(doc, "filter");
	cJSON_AddNumberToObject(doc, "entries_in_suite", N_ENTRIES);
	entries = cJSON_AddArrayToObject(doc, "entries");
	for (int i = 1; i <= N_ENTRIES; i++)
		if (!count || i % count == shard % count)
			cJSON_AddItemToArray(entries, entry(i, plan[i].outcome, plan[i].as_expected,
							    plan[i].verdicts));
	o = cJSON_AddObjectToObject(doc, "timing");
	cJSON_AddNumberToObject(o, "wall_s", count ? 1.0 + shard : 4.0);
	cJSON_AddNumberToObject(o, "entries_wall_s", 0.5 * cJSON_GetArraySize(entries));
	assert_int_equal(bn_suite_doc_totals(doc, &err), BN_OK);
	return doc;
}

static double num(const cJSON *o, const char *key)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);

	if (!cJSON_IsNumber(it))
		fail_msg("no number \"%s\"", key);
	return it->valuedouble;
}

static void merge_ok(cJSON *const *docs, const char *const *paths, int n,
		     const struct bn_merge_opts *opts, cJSON **out)
{
	struct bn_err err = { 0 };

	if (bn_suite_merge(docs, paths, n, opts, out, &err) < 0)
		fail_msg("%s", err.msg);
}

static void free_docs(cJSON **docs, int n)
{
	for (int i = 0; i < n; i++)
		cJSON_Delete(docs[i]);
}

static void test_merge__totals(void **state)
{
	cJSON *whole = suite(0, 0);
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(whole, "totals");
	const cJSON *r = cJSON_GetObjectItemCaseSensitive(t, "rules");

	assert_int_equal(num(t, "entries"), 9);
	assert_int_equal(num(t, "pass"), 4);
	assert_int_equal(num(t, "xfail"), 2);
	assert_int_equal(num(t, "fail"), 1);
	assert_int_equal(num(t, "xpass"), 1);
	assert_int_equal(num(t, "error"), 1);
	assert_int_equal(num(t, "unexpected"), 2);
	assert_int_equal(num(r, "pass"), 19);
	assert_int_equal(num(r, "fail"), 4);
	assert_int_equal(num(r, "inconclusive"), 1);
	assert_int_equal(num(r, "skipped"), 7);
	assert_int_equal(num(r, "error"), 1);
	/* an unexpected fail and xpass, the error expected: 1 */
	assert_int_equal(num(whole, "exit_code"), 1);
	cJSON_Delete(whole);
}

/* Totals are replaced, not trusted: stale values are overwritten. */
static void test_merge__totals_replaced(void **state)
{
	cJSON *doc = suite(0, 0), *t;
	struct bn_err err = { 0 };

	cJSON_ReplaceItemInObjectCaseSensitive(doc, "totals", cJSON_CreateString("stale"));
	cJSON_ReplaceItemInObjectCaseSensitive(doc, "exit_code", cJSON_CreateNumber(0));
	assert_int_equal(bn_suite_doc_totals(doc, &err), BN_OK);
	t = cJSON_GetObjectItemCaseSensitive(doc, "totals");
	assert_int_equal(num(t, "entries"), 9);
	assert_int_equal(num(doc, "exit_code"), 1);
	/* keys added when absent */
	cJSON_DeleteItemFromObjectCaseSensitive(doc, "totals");
	cJSON_DeleteItemFromObjectCaseSensitive(doc, "exit_code");
	assert_int_equal(bn_suite_doc_totals(doc, &err), BN_OK);
	assert_int_equal(num(doc, "exit_code"), 1);
	assert_int_equal(num(cJSON_GetObjectItemCaseSensitive(doc, "totals"), "unexpected"), 2);
	cJSON_Delete(doc);
}

/* Keys that differ only in case are different keys: a stray "Totals" or
 * "Exit_Code" (a hand-edited or hostile file) is neither replaced nor
 * taken for the real one, and nothing leaks (ASan in make check SAN=1). */
static void test_merge__case_keys(void **state)
{
	cJSON *docs[3], *out = NULL;
	struct bn_merge_opts opts = { 0 };

	for (int k = 0; k < 3; k++) {
		docs[k] = suite(k + 1, 3);
		cJSON_DeleteItemFromObjectCaseSensitive(docs[k], "totals");
		cJSON_DeleteItemFromObjectCaseSensitive(docs[k], "exit_code");
		cJSON_AddStringToObject(docs[k], "Totals", "stray");
		cJSON_AddStringToObject(docs[k], "Exit_Code", "stray");
		cJSON_AddStringToObject(docs[k], "TIMING", "stray");
	}
	merge_ok(docs, shard_paths, 3, &opts, &out);
	assert_int_equal(num(cJSON_GetObjectItemCaseSensitive(out, "totals"), "entries"), 9);
	assert_int_equal(num(out, "exit_code"), 1);
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(out, "Exit_Code") ?
			    cJSON_GetObjectItemCaseSensitive(out, "Exit_Code")->valuestring : "gone",
			    "stray");
	cJSON_Delete(out);
	free_docs(docs, 3);
}

/* Exit code by docs/suite-report.md: 3 for an unexpected error entry, else
 * 1 for any unexpected entry, else 0. */
static void test_merge__exit_code(void **state)
{
	static const struct {
		const char *outcome;
		bool as_expected;
		int exit_code;
	} cases[] = {
		{ "pass", true, 0 },   { "xfail", true, 0 },  { "error", true, 0 },
		{ "fail", false, 1 },  { "xpass", false, 1 }, { "error", false, 3 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cJSON *doc = cJSON_CreateObject(), *entries;
		struct bn_err err = { 0 };

		cJSON_AddStringToObject(doc, "schema", BN_SUITE_SCHEMA);
		entries = cJSON_AddArrayToObject(doc, "entries");
		cJSON_AddItemToArray(entries, entry(1, "pass", true, "pp"));
		cJSON_AddItemToArray(entries,
				     entry(2, cases[i].outcome, cases[i].as_expected, "p"));
		cJSON_AddItemToArray(entries, entry(3, "xfail", true, "f"));
		assert_int_equal(bn_suite_doc_totals(doc, &err), BN_OK);
		assert_int_equal(num(doc, "exit_code"), cases[i].exit_code);
		cJSON_Delete(doc);
	}
}

/* Entries with their exit_cause: the most urgent not as expected, in the
 * order interrupted > 2 > 6 > 3 > 1 > 5 > 4 > 7 > 0; none at all is 7. */
static void test_merge__exit_code_most_urgent(void **state)
{
	static const struct {
		const char *a, *b; /* the two entries' exit_cause, not as expected */
		int code_b;        /* b's exit_code */
		int want;
	} cases[] = {
		{ "bench-fault", "device-broke-run", 3, 3 },
		{ "bench-fault", NULL, 0, 5 },
		{ "rule-failed", "bench-fault", 5, 1 },
		{ "device-broke-run", "environment", 6, 6 },
		{ "environment", "bad-input", 2, 2 },
		{ "bad-input", "interrupted", 143, 143 },
		{ "bench-fault", "interrupted", -1, 130 }, /* not run: its signal unknown */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cJSON *doc = cJSON_CreateObject(), *entries, *e;
		struct bn_err err = { 0 };

		cJSON_AddStringToObject(doc, "schema", BN_SUITE_SCHEMA);
		entries = cJSON_AddArrayToObject(doc, "entries");
		e = entry(1, "error", false, "");
		cJSON_AddStringToObject(e, "exit_cause", cases[i].a);
		cJSON_AddItemToArray(entries, e);
		if (cases[i].b) {
			e = entry(2, strcmp(cases[i].b, "rule-failed") ? "error" : "fail", false, "");
			cJSON_AddStringToObject(e, "exit_cause", cases[i].b);
			cJSON_AddNumberToObject(e, "exit_code", cases[i].code_b);
			cJSON_AddItemToArray(entries, e);
		}
		cJSON_AddItemToArray(entries, entry(3, "xfail", true, ""));
		assert_int_equal(bn_suite_doc_totals(doc, &err), BN_OK);
		if (num(doc, "exit_code") != cases[i].want)
			fail_msg("%s + %s: exit %d, want %d", cases[i].a, cases[i].b ? cases[i].b : "-",
				 (int)num(doc, "exit_code"), cases[i].want);
		cJSON_Delete(doc);
	}
	/* an expected error (xerror) counts as 0 */
	{
		cJSON *doc = cJSON_CreateObject(), *entries, *e;
		struct bn_err err = { 0 };

		cJSON_AddStringToObject(doc, "schema", BN_SUITE_SCHEMA);
		entries = cJSON_AddArrayToObject(doc, "entries");
		e = entry(1, "error", true, "");
		cJSON_AddStringToObject(e, "exit_cause", "device-broke-run");
		cJSON_AddItemToArray(entries, e);
		assert_int_equal(bn_suite_doc_totals(doc, &err), BN_OK);
		assert_int_equal(num(doc, "exit_code"), 0);
		cJSON_Delete(doc);
		/* nothing selected */
		doc = cJSON_CreateObject();
		cJSON_AddStringToObject(doc, "schema", BN_SUITE_SCHEMA);
		cJSON_AddArrayToObject(doc, "entries");
		assert_int_equal(bn_suite_doc_totals(doc, &err), BN_OK);
		assert_int_equal(num(doc, "exit_code"), 7);
		cJSON_Delete(doc);
	}
}

static void test_merge__totals_bad_entry(void **state)
{
	cJSON *doc = suite(0, 0), *e;
	struct bn_err err = { 0 };

	e = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "entries"), 3);
	cJSON_ReplaceItemInObjectCaseSensitive(e, "outcome", cJSON_CreateString("flaky"));
	assert_int_equal(bn_suite_doc_totals(doc, &err), BN_ERR_DATA);
	assert_msg_has(&err, "\"e4\"");
	assert_msg_has(&err, "outcome");
	assert_int_equal(num(cJSON_GetObjectItemCaseSensitive(doc, "totals"), "entries"), 9);
	cJSON_Delete(doc);
}

static void test_merge__check(void **state)
{
	static const struct {
		const char *json, *says;
	} bad[] = {
	    {"[]", "not a suite record"},
	    {"{\"entries\": []}", "no \"schema\""},
	    {"{\"schema\": \"bcbench-report/1\", \"entries\": []}", "schema \"bcbench-report/1\""},
	    /* the older format, reports embedded: refused, saying so */
	    {"{\"schema\": \"bcbench-suite/1\", \"entries\": []}",
	     "older suite record that embeds every entry's report"},
	    {"{\"schema\": \"bcbench-suite/2\", \"entries\": [{\"index\": 1, \"id\": \"a\", "
	     "\"report\": {\"results\": []}}]}",
	     "\"report\" is not null or {\"path\""},
	    {"{\"schema\": \"bcbench-suite/2\", \"entries\": [{\"index\": 1, \"id\": \"a\", "
	     "\"report\": {\"path\": \"r.json\", \"sha256\": \"abc\"}}]}",
	     "64 hex digits"},
	    {"{\"schema\": \"bcbench-suite/2\", \"entries\": [{\"index\": 1, \"id\": \"a\", "
	     "\"rules\": 3}]}",
	     "\"rules\" is not an object"},
	    {"{\"schema\": \"bcbench-suite/2\"}", "\"entries\" is not an array"},
	    {"{\"schema\": \"bcbench-suite/2\", \"entries\": [3]}", "entries[0] is not an object"},
	    {"{\"schema\": \"bcbench-suite/2\", \"entries\": [{\"id\": \"a\"}]}",
	     "entries[0]: no number \"index\""},
	    {"{\"schema\": \"bcbench-suite/2\", \"entries\": [{\"index\": 1, \"id\": 2}]}",
	     "entries[0]: no string \"id\""},
	    {"{\"schema\": \"bcbench-suite/2\", \"entries\": [{\"index\": 1, \"id\": \"a\", "
	     "\"outcome\": \"meh\"}]}",
	     "\"outcome\" is not one of"},
	    {"{\"schema\": \"bcbench-suite/2\", \"entries\": [{\"index\": 1, \"id\": \"a\", "
	     "\"as_expected\": 1}]}",
	     "\"as_expected\" is not true or false"},
	};
	cJSON *good = suite(0, 0);
	struct bn_err err = { 0 };

	assert_int_equal(bn_suite_doc_check(good, "s.json", &err), BN_OK);
	cJSON_Delete(good);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cJSON *doc = cJSON_Parse(bad[i].json);

		bn_err_clear(&err);
		assert_non_null(doc);
		assert_int_equal(bn_suite_doc_check(doc, "s.json", &err), BN_ERR_DATA);
		assert_int_equal(strncmp(err.msg, "s.json: ", 8), 0);
		assert_msg_has(&err, bad[i].says);
		cJSON_Delete(doc);
	}
}

/* Three shards merge into what one unsharded run records. */
static void test_merge__three_shards(void **state)
{
	cJSON *docs[3] = { suite(1, 3), suite(2, 3), suite(3, 3) };
	cJSON *whole = suite(0, 0), *out = NULL, *e, *from;
	const cJSON *timing;
	int i = 1;

	merge_ok(docs, shard_paths, 3, NULL, &out);
	assert_true(cJSON_Compare(cJSON_GetObjectItemCaseSensitive(out, "totals"),
				  cJSON_GetObjectItemCaseSensitive(whole, "totals"), true));
	assert_int_equal(num(out, "exit_code"), num(whole, "exit_code"));
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(out, "entries")) {
		assert_int_equal(num(e, "index"), i);
		assert_true(cJSON_Compare(e, cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(
						     whole, "entries"), i - 1), true));
		i++;
	}
	assert_int_equal(i, N_ENTRIES + 1);
	assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(out, "shard")));
	from = cJSON_GetObjectItemCaseSensitive(out, "merged_from");
	assert_int_equal(cJSON_GetArraySize(from), 3);
	for (int k = 0; k < 3; k++) {
		const cJSON *m = cJSON_GetArrayItem(from, k);

		assert_string_equal(cJSON_GetObjectItemCaseSensitive(m, "path")->valuestring,
				    shard_paths[k]);
		assert_int_equal(num(cJSON_GetObjectItemCaseSensitive(m, "shard"), "index"), k + 1);
	}
	timing = cJSON_GetObjectItemCaseSensitive(out, "timing");
	assert_near(num(timing, "wall_s"), 4.0, 1e-12);
	assert_near(num(timing, "entries_wall_s"), 4.5, 1e-12);
	/* the inputs are left as they were */
	assert_true(cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(docs[0], "shard")));
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(docs[0], "entries")),
			 3);
	cJSON_Delete(out);
	cJSON_Delete(whole);
	free_docs(docs, 3);
}

/* The order the files are given in does not change the record. */
static void test_merge__any_order(void **state)
{
	cJSON *docs[3] = { suite(1, 3), suite(2, 3), suite(3, 3) };
	cJSON *shuffled[3] = { docs[2], docs[0], docs[1] };
	const char *paths[3] = { shard_paths[2], shard_paths[0], shard_paths[1] };
	cJSON *a = NULL, *b = NULL;

	merge_ok(docs, shard_paths, 3, NULL, &a);
	merge_ok(shuffled, paths, 3, NULL, &b);
	assert_true(cJSON_Compare(cJSON_GetObjectItemCaseSensitive(a, "entries"),
				  cJSON_GetObjectItemCaseSensitive(b, "entries"), true));
	assert_true(cJSON_Compare(cJSON_GetObjectItemCaseSensitive(a, "totals"),
				  cJSON_GetObjectItemCaseSensitive(b, "totals"), true));
	cJSON_Delete(a);
	cJSON_Delete(b);
	free_docs(docs, 3);
}

static void test_merge__duplicate_index(void **state)
{
	cJSON *docs[3] = { suite(1, 3), suite(2, 3), suite(3, 3) };
	cJSON *out = NULL;
	struct bn_err err = { 0 };

	cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(docs[2], "entries"),
			     entry(4, "pass", true, "p"));
	assert_int_equal(bn_suite_merge(docs, shard_paths, 3, NULL, &out, &err), BN_ERR_DATA);
	assert_null(out);
	assert_msg_has(&err, "entry index 4");
	assert_msg_has(&err, shard_paths[0]);
	assert_msg_has(&err, shard_paths[2]);
	free_docs(docs, 3);
}

static void test_merge__shard_twice(void **state)
{
	cJSON *docs[3] = { suite(1, 3), suite(2, 3), suite(2, 3) };
	cJSON *out = NULL;
	struct bn_err err = { 0 };

	assert_int_equal(bn_suite_merge(docs, shard_paths, 3, NULL, &out, &err), BN_ERR_DATA);
	assert_msg_has(&err, "both shard 2/3");
	assert_msg_has(&err, shard_paths[1]);
	assert_msg_has(&err, shard_paths[2]);
	free_docs(docs, 3);
}

static void test_merge__missing_shard(void **state)
{
	cJSON *docs[2] = { suite(1, 3), suite(3, 3) };
	const char *paths[2] = { shard_paths[0], shard_paths[2] };
	struct bn_merge_opts opts = { .partial = true };
	cJSON *out = NULL;
	struct bn_err err = { 0 };

	assert_int_equal(bn_suite_merge(docs, paths, 2, NULL, &out, &err), BN_ERR_DATA);
	assert_null(out);
	assert_msg_has(&err, "shard 2/3 is missing");
	assert_msg_has(&err, "--partial");
	merge_ok(docs, paths, 2, &opts, &out);
	assert_int_equal(num(cJSON_GetObjectItemCaseSensitive(out, "totals"), "entries"), 6);
	cJSON_Delete(out);
	free_docs(docs, 2);
}

/* All shards there but one lost an entry: fewer than entries_in_suite. */
static void test_merge__missing_entry(void **state)
{
	cJSON *docs[3] = { suite(1, 3), suite(2, 3), suite(3, 3) };
	struct bn_merge_opts opts = { .partial = true };
	cJSON *out = NULL;
	struct bn_err err = { 0 };

	cJSON_DeleteItemFromArray(cJSON_GetObjectItemCaseSensitive(docs[1], "entries"), 0);
	assert_int_equal(bn_suite_merge(docs, shard_paths, 3, NULL, &out, &err), BN_ERR_DATA);
	assert_msg_has(&err, "8 entries merged of the suite's 9");
	merge_ok(docs, shard_paths, 3, &opts, &out);
	cJSON_Delete(out);
	free_docs(docs, 3);
}

static void test_merge__different_suite(void **state)
{
	cJSON *docs[3] = { suite(1, 3), suite(2, 3), suite(3, 3) };
	cJSON *out = NULL;
	struct bn_err err = { 0 };

	cJSON_ReplaceItemInObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(docs[1], "suite"),
					       "sha256", cJSON_CreateString("0123abcd"));
	assert_int_equal(bn_suite_merge(docs, shard_paths, 3, NULL, &out, &err), BN_ERR_DATA);
	assert_null(out);
	assert_msg_has(&err, "ran different suites");
	assert_msg_has(&err, shard_paths[0]);
	assert_msg_has(&err, shard_paths[1]);
	free_docs(docs, 3);
}

static void set_limits(cJSON *doc, const char *path, const char *sha)
{
	cJSON *l = cJSON_CreateObject();

	cJSON_AddStringToObject(l, "path", path);
	cJSON_AddStringToObject(l, "sha256", sha);
	cJSON_DeleteItemFromObjectCaseSensitive(doc, "limits");
	cJSON_AddItemToObject(doc, "limits", l);
}

/* A shard whose entries wrote no report (its bench was in use: every
 * entry not run) names no limits: it merges with the others, and the
 * merged record takes theirs. Two that name different limits do not. */
static void test_merge__shard_without_limits(void **state)
{
	cJSON *docs[3] = { suite(1, 3), suite(2, 3), suite(3, 3) };
	cJSON *out = NULL;
	struct bn_err err = { 0 };

	set_limits(docs[0], "", "");
	set_limits(docs[1], "profiles/limits/bc12.json", "ab12");
	set_limits(docs[2], "profiles/limits/bc12.json", "ab12");
	merge_ok(docs, shard_paths, 3, NULL, &out);
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(out, "limits"),
							     "sha256")->valuestring, "ab12");
	cJSON_Delete(out);
	out = NULL;
	set_limits(docs[2], "other.json", "cd34");
	assert_int_equal(bn_suite_merge(docs, shard_paths, 3, NULL, &out, &err), BN_ERR_DATA);
	assert_null(out);
	assert_msg_has(&err, "judged against different limits");
	assert_msg_has(&err, shard_paths[1]);
	assert_msg_has(&err, shard_paths[2]);
	free_docs(docs, 3);
}

/* Shards of different runs: another shard count, another filter, one
 * sharded and one not. */
static void test_merge__not_one_run(void **state)
{
	cJSON *docs[2] = { suite(1, 2), suite(2, 3) };
	cJSON *out = NULL;
	struct bn_err err = { 0 };

	assert_int_equal(bn_suite_merge(docs, shard_paths, 2, NULL, &out, &err), BN_ERR_DATA);
	assert_msg_has(&err, "shard 1/2");
	cJSON_Delete(docs[1]);
	docs[1] = suite(2, 2);
	cJSON_ReplaceItemInObjectCaseSensitive(docs[1], "filter", cJSON_CreateString("dcp*"));
	bn_err_clear(&err);
	assert_int_equal(bn_suite_merge(docs, shard_paths, 2, NULL, &out, &err), BN_ERR_DATA);
	assert_msg_has(&err, "differ in \"filter\"");
	cJSON_Delete(docs[1]);
	docs[1] = suite(0, 0);
	bn_err_clear(&err);
	assert_int_equal(bn_suite_merge(docs, shard_paths, 2, NULL, &out, &err), BN_ERR_DATA);
	assert_msg_has(&err, "not sharded");
	free_docs(docs, 2);
}

/* The merged record's exit code is recomputed from all entries. */
static void test_merge__exit_recomputed(void **state)
{
	cJSON *docs[3] = { suite(1, 3), suite(2, 3), suite(3, 3) };
	cJSON *out = NULL, *e;

	/* entry 7 (shard 1) becomes an unexpected error: 3 */
	e = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(docs[0], "entries"), 2);
	assert_int_equal(num(e, "index"), 7);
	cJSON_ReplaceItemInObjectCaseSensitive(e, "as_expected", cJSON_CreateFalse());
	/* a stale exit code in the input is not trusted */
	cJSON_ReplaceItemInObjectCaseSensitive(docs[0], "exit_code", cJSON_CreateNumber(0));
	merge_ok(docs, shard_paths, 3, NULL, &out);
	assert_int_equal(num(out, "exit_code"), 3);
	assert_int_equal(num(cJSON_GetObjectItemCaseSensitive(out, "totals"), "unexpected"), 3);
	cJSON_Delete(out);
	free_docs(docs, 3);
}

/* Only the xpass is unexpected: 1. */
static void test_merge__exit_xpass(void **state)
{
	cJSON *docs[3] = { suite(1, 3), suite(2, 3), suite(3, 3) };
	cJSON *out = NULL, *e;

	e = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(docs[0], "entries"), 1);
	assert_int_equal(num(e, "index"), 4);
	cJSON_ReplaceItemInObjectCaseSensitive(e, "outcome", cJSON_CreateString("pass"));
	cJSON_ReplaceItemInObjectCaseSensitive(e, "as_expected", cJSON_CreateTrue());
	merge_ok(docs, shard_paths, 3, NULL, &out);
	assert_int_equal(num(out, "exit_code"), 1);
	assert_int_equal(num(cJSON_GetObjectItemCaseSensitive(out, "totals"), "xpass"), 1);
	cJSON_Delete(out);
	/* and with the xpass as expected too: 0 */
	e = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(docs[2], "entries"), 1);
	assert_int_equal(num(e, "index"), 6);
	cJSON_ReplaceItemInObjectCaseSensitive(e, "outcome", cJSON_CreateString("pass"));
	cJSON_ReplaceItemInObjectCaseSensitive(e, "as_expected", cJSON_CreateTrue());
	merge_ok(docs, shard_paths, 3, NULL, &out);
	assert_int_equal(num(out, "exit_code"), 0);
	cJSON_Delete(out);
	free_docs(docs, 3);
}

static const char *dir_of(const cJSON *doc, int k)
{
	const cJSON *e = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "entries"), k);

	return cJSON_GetObjectItemCaseSensitive(e, "dir")->valuestring;
}

static const char *report_path_of(const cJSON *doc, int k)
{
	const cJSON *e = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "entries"), k);
	const cJSON *p = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(e, "report"), "path");

	return cJSON_IsString(p) ? p->valuestring : NULL;
}

/* Entries' dirs and report paths, relative to their shard's file, become
 * relative to the merged file's directory. */
static void test_merge__dirs_rebased(void **state)
{
	cJSON *docs[3] = { suite(1, 3), suite(2, 3), suite(3, 3) };
	struct bn_merge_opts opts = { .out_path = "/nonexistent-bn/ci/suite.json" };
	cJSON *out = NULL, *e;

	merge_ok(docs, shard_paths, 3, &opts, &out);
	assert_string_equal(dir_of(out, 0), "s1/entries/0001-e1");
	assert_string_equal(dir_of(out, 1), "s2/entries/0002-e2");
	assert_string_equal(dir_of(out, 8), "s3/entries/0009-e9");
	/* the report paths follow, as the dirs do */
	assert_string_equal(report_path_of(out, 1), "s2/entries/0002-e2/report.json");
	assert_null(report_path_of(out, 6)); /* e7: no report */
	cJSON_Delete(out);

	opts.out_path = "/nonexistent-bn/other/x/merged.json";
	merge_ok(docs, shard_paths, 3, &opts, &out);
	assert_string_equal(dir_of(out, 2), "../../ci/s3/entries/0003-e3");
	assert_string_equal(report_path_of(out, 2), "../../ci/s3/entries/0003-e3/report.json");
	cJSON_Delete(out);

	/* beside the shard's own file: unchanged; absolute dirs are kept */
	e = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(docs[1], "entries"), 0);
	cJSON_ReplaceItemInObjectCaseSensitive(e, "dir", cJSON_CreateString("/data/e2"));
	opts.out_path = "/nonexistent-bn/ci/s1/./merged.json";
	merge_ok(docs, shard_paths, 3, &opts, &out);
	assert_string_equal(dir_of(out, 0), "entries/0001-e1");
	assert_string_equal(dir_of(out, 1), "/data/e2");
	assert_string_equal(dir_of(out, 4), "../s2/entries/0005-e5");
	cJSON_Delete(out);

	/* no out_path: left as they are */
	merge_ok(docs, shard_paths, 3, NULL, &out);
	assert_string_equal(dir_of(out, 4), "entries/0005-e5");
	cJSON_Delete(out);
	free_docs(docs, 3);
}

/* A lone unsharded record merges into itself. */
static void test_merge__one_file(void **state)
{
	cJSON *docs[1] = { suite(0, 0) };
	cJSON *out = NULL;

	merge_ok(docs, shard_paths, 1, NULL, &out);
	assert_true(cJSON_Compare(cJSON_GetObjectItemCaseSensitive(out, "entries"),
				  cJSON_GetObjectItemCaseSensitive(docs[0], "entries"), true));
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(out, "merged_from")),
			 1);
	cJSON_Delete(out);
	free_docs(docs, 1);
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* The reports an entry names are read from their path relative to the
 * suite.json, and must be the file of that sha256: a report changed or
 * gone since is bad input naming its path (merge and diff exit 2). */
static void test_merge__reports_by_path(void **state)
{
	static const char text[] = "{\"schema\": \"bcbench-report/1\", \"results\": []}\n";
	char dir[] = "/tmp/bn-test-merge.XXXXXX", suite_path[128], rep_path[160], sha[65];
	cJSON *doc = suite(0, 0), *e, *rep = NULL;
	struct bn_err err = { 0 };

	assert_non_null(mkdtemp(dir));
	snprintf(suite_path, sizeof(suite_path), "%s/suite.json", dir);
	snprintf(rep_path, sizeof(rep_path), "%s/r1.json", dir);
	write_text(rep_path, text);
	bn_sha256_hex(text, strlen(text), sha);
	/* entry e1 names r1.json; the others have no report */
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(doc, "entries"))
		bn_json_set(e, "report", cJSON_CreateNull());
	e = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "entries"), 0);
	bn_json_set(e, "report", cJSON_Parse("{\"path\": \"r1.json\", \"sha256\": \"0\"}"));
	bn_json_set(cJSON_GetObjectItemCaseSensitive(e, "report"), "sha256",
		    cJSON_CreateString(sha));

	assert_int_equal(bn_suite_doc_verify_reports(doc, suite_path, &err), BN_OK);
	assert_int_equal(bn_suite_report_load(e, suite_path, &rep, &err), BN_OK);
	assert_non_null(rep);
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(rep, "schema")->valuestring,
			    "bcbench-report/1");
	cJSON_Delete(rep);
	/* an entry without a report loads as none */
	assert_int_equal(bn_suite_report_load(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(
							  doc, "entries"), 1),
					      suite_path, &rep, &err),
			 BN_OK);
	assert_null(rep);

	/* changed since: one byte more */
	write_text(rep_path, "{\"schema\": \"bcbench-report/1\", \"results\": [] }\n");
	assert_int_equal(bn_suite_doc_verify_reports(doc, suite_path, &err), BN_ERR_DATA);
	assert_msg_has(&err, rep_path);
	assert_msg_has(&err, "\"e1\"");
	assert_msg_has(&err, "sha256");
	bn_err_clear(&err);
	assert_int_equal(bn_suite_report_load(e, suite_path, &rep, &err), BN_ERR_DATA);
	assert_null(rep);
	assert_msg_has(&err, rep_path);

	/* gone */
	unlink(rep_path);
	bn_err_clear(&err);
	assert_int_equal(bn_suite_doc_verify_reports(doc, suite_path, &err), BN_ERR_DATA);
	assert_msg_has(&err, rep_path);
	assert_msg_has(&err, "cannot read");
	bn_err_clear(&err);
	assert_int_equal(bn_suite_report_load(e, suite_path, &rep, &err), BN_ERR_DATA);
	assert_msg_has(&err, rep_path);
	rmdir(dir);
	cJSON_Delete(doc);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_merge__totals),
		cmocka_unit_test(test_merge__totals_replaced),
		cmocka_unit_test(test_merge__exit_code),
		cmocka_unit_test(test_merge__exit_code_most_urgent),
		cmocka_unit_test(test_merge__case_keys),
		cmocka_unit_test(test_merge__totals_bad_entry),
		cmocka_unit_test(test_merge__check),
		cmocka_unit_test(test_merge__three_shards),
		cmocka_unit_test(test_merge__any_order),
		cmocka_unit_test(test_merge__duplicate_index),
		cmocka_unit_test(test_merge__shard_twice),
		cmocka_unit_test(test_merge__missing_shard),
		cmocka_unit_test(test_merge__missing_entry),
		cmocka_unit_test(test_merge__different_suite),
		cmocka_unit_test(test_merge__shard_without_limits),
		cmocka_unit_test(test_merge__not_one_run),
		cmocka_unit_test(test_merge__exit_recomputed),
		cmocka_unit_test(test_merge__exit_xpass),
		cmocka_unit_test(test_merge__dirs_rebased),
		cmocka_unit_test(test_merge__one_file),
		cmocka_unit_test(test_merge__reports_by_path),
	};

	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests_name("merge", tests, NULL, NULL);
}
