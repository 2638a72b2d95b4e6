/* The record's overall verdict (report/report.h): compliant only when the
 * run completed, something was judged and every applicable result
 * passed; a failure (not a warning) is not compliant; anything else is
 * "compliance not demonstrated". The struct and the report.json document
 * must agree, since a page rendered later reads the document. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "report/report.h"

struct res_spec {
	enum bn_verdict v;
	bool warning;
};

static void build(struct bn_report *r, enum bn_run_status st, const struct res_spec *rs, int n)
{
	bn_report_init(r);
	r->status = st;
	for (int i = 0; i < n; i++) {
		struct bn_result *res = bn_report_add(r);

		snprintf(res->id, sizeof(res->id), "bc12.test.%d", i);
		snprintf(res->kind, sizeof(res->kind), "check");
		res->verdict = rs[i].v;
		res->warning = rs[i].warning;
	}
}

/* The struct's verdict, and the same from its JSON document. */
static void check(enum bn_run_status st, const struct res_spec *rs, int n, enum bn_overall want)
{
	struct bn_report r;
	cJSON *doc;

	build(&r, st, rs, n);
	assert_int_equal(bn_report_overall(&r), want);
	doc = bn_report_to_json(&r);
	assert_non_null(doc);
	assert_int_equal(bn_report_json_overall(doc), (int)want);
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(doc, "verdict")->valuestring,
			    bn_overall_id(want));
	/* a record without its "verdict" (the format before) gives the same */
	cJSON_DeleteItemFromObjectCaseSensitive(doc, "verdict");
	assert_int_equal(bn_report_json_overall(doc), (int)want);
	cJSON_Delete(doc);
	bn_report_free(&r);
}

static void test_overall__all_pass_is_compliant(void **state)
{
	const struct res_spec rs[] = { { BN_VERDICT_PASS, false }, { BN_VERDICT_SKIPPED, false },
				       { BN_VERDICT_PASS, false } };

	(void)state;
	check(BN_RUN_COMPLETED, rs, 3, BN_OVERALL_COMPLIANT);
}

static void test_overall__a_failure_is_not_compliant(void **state)
{
	const struct res_spec rs[] = { { BN_VERDICT_PASS, false }, { BN_VERDICT_FAIL, false },
				       { BN_VERDICT_INCONCLUSIVE, false } };

	(void)state;
	check(BN_RUN_COMPLETED, rs, 3, BN_OVERALL_NOT_COMPLIANT);
	/* a failure seen before an abort is still a failure */
	check(BN_RUN_ABORTED, rs, 2, BN_OVERALL_NOT_COMPLIANT);
}

static void test_overall__a_warning_does_not_fail(void **state)
{
	const struct res_spec rs[] = { { BN_VERDICT_PASS, false }, { BN_VERDICT_FAIL, true } };

	(void)state;
	check(BN_RUN_COMPLETED, rs, 2, BN_OVERALL_COMPLIANT);
}

static void test_overall__open_results_are_not_demonstrated(void **state)
{
	const struct res_spec inc[] = { { BN_VERDICT_PASS, false }, { BN_VERDICT_INCONCLUSIVE, false } };
	const struct res_spec err[] = { { BN_VERDICT_PASS, false }, { BN_VERDICT_ERROR, false } };
	const struct res_spec skipped[] = { { BN_VERDICT_SKIPPED, false }, { BN_VERDICT_SKIPPED, false } };
	const struct res_spec pass[] = { { BN_VERDICT_PASS, false } };

	(void)state;
	check(BN_RUN_COMPLETED, inc, 2, BN_OVERALL_NOT_DEMONSTRATED);
	check(BN_RUN_COMPLETED, err, 2, BN_OVERALL_NOT_DEMONSTRATED);
	/* nothing judged is never a pass */
	check(BN_RUN_COMPLETED, skipped, 2, BN_OVERALL_NOT_DEMONSTRATED);
	check(BN_RUN_COMPLETED, NULL, 0, BN_OVERALL_NOT_DEMONSTRATED);
	/* a run that did not complete shows nothing for what it did not reach */
	check(BN_RUN_ABORTED, pass, 1, BN_OVERALL_NOT_DEMONSTRATED);
	check(BN_RUN_ERROR, pass, 1, BN_OVERALL_NOT_DEMONSTRATED);
}

static void test_overall__names_and_bad_documents(void **state)
{
	cJSON *doc = cJSON_Parse("{\"results\": [{\"verdict\": 3}], \"status\": {\"state\": \"completed\"}}");

	(void)state;
	assert_string_equal(bn_overall_name(BN_OVERALL_NOT_DEMONSTRATED), "compliance not demonstrated");
	assert_int_equal(bn_overall_parse("not-compliant"), BN_OVERALL_NOT_COMPLIANT);
	assert_int_equal(bn_overall_parse("pass"), -1);
	assert_int_equal(bn_overall_parse(NULL), -1);
	/* a result without a verdict word: not a record to judge */
	assert_int_equal(bn_report_json_overall(doc), -1);
	cJSON_Delete(doc);
	assert_int_equal(bn_report_json_overall(NULL), -1);
	assert_true(bn_report_schema_known("bcbench-report/1"));
	assert_true(bn_report_schema_known("bcbench-report/2"));
	assert_false(bn_report_schema_known("bcbench-suite/2"));
	assert_false(bn_report_schema_known(NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_overall__all_pass_is_compliant),
		cmocka_unit_test(test_overall__a_failure_is_not_compliant),
		cmocka_unit_test(test_overall__a_warning_does_not_fail),
		cmocka_unit_test(test_overall__open_results_are_not_demonstrated),
		cmocka_unit_test(test_overall__names_and_bad_documents),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
