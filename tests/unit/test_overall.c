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
	assert_true(bn_report_schema_known("bcbench-report/3"));
	assert_false(bn_report_schema_known("bcbench-suite/2"));
	assert_false(bn_report_schema_known(NULL));
}

/* ---- sides: a record judges the device or the port ---- */

struct side_spec {
	const char *kind, *side;
	enum bn_verdict v;
	bool warning;
};

static void build_sides(struct bn_report *r, const char *judges, const struct side_spec *rs, int n)
{
	bn_report_init(r);
	r->status = BN_RUN_COMPLETED;
	snprintf(r->judges, sizeof(r->judges), "%s", judges);
	for (int i = 0; i < n; i++) {
		struct bn_result *res = bn_report_add(r);

		snprintf(res->id, sizeof(res->id), "%s.%d", rs[i].kind[0] == 'e' ? "expect.L" : "bc12.test", i);
		snprintf(res->kind, sizeof(res->kind), "%s", rs[i].kind);
		snprintf(res->side, sizeof(res->side), "%s", rs[i].side);
		res->verdict = rs[i].v;
		res->warning = rs[i].warning;
	}
}

static const char *jstr(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsString(v) ? v->valuestring : cJSON_IsNull(v) ? "null" : "?";
}

/* The struct, its document, and the document read back agree on each
 * side's verdict (NULL: null) and the exit code. */
static void check_sides(const char *judges, const struct side_spec *rs, int n, const char *device,
			const char *port, int exit_code)
{
	struct bn_report r;
	cJSON *doc;
	const cJSON *vs;
	int totals[BN_VERDICT_COUNT];
	struct bn_err err = { 0 };
	const char *mine = !strcmp(judges, "port") ? port : device;

	build_sides(&r, judges, rs, n);
	assert_int_equal(bn_report_exit_code(&r), exit_code);
	assert_string_equal(bn_overall_id(bn_report_overall(&r)), mine);
	doc = bn_report_to_json(&r);
	assert_string_equal(jstr(doc, "judges"), judges[0] ? judges : "device");
	assert_string_equal(jstr(doc, "verdict"), mine);
	vs = cJSON_GetObjectItemCaseSensitive(doc, "verdicts");
	assert_string_equal(jstr(vs, "device"), device ? device : "null");
	assert_string_equal(jstr(vs, "port"), port ? port : "null");
	assert_string_equal(bn_overall_id(bn_report_json_overall(doc)), mine);
	assert_true(bn_report_json_verdict(doc, "r.json", totals, &err) >= 0);
	/* a record whose stored side verdict its results contradict is refused */
	cJSON_ReplaceItemInObjectCaseSensitive((cJSON *)vs, "port",
					       cJSON_CreateString(port && !strcmp(port, "compliant")
								  ? "not-compliant" : "compliant"));
	assert_int_equal(bn_report_json_verdict(doc, "r.json", totals, &err), BN_ERR_DATA);
	assert_non_null(strstr(err.msg, "\"verdicts\": {\"port\"}"));
	cJSON_Delete(doc);
	bn_report_free(&r);
}

/* A device run on a port that failed: the device's verdict and the exit
 * code are the device's; the port's failure is reported beside them. */
static void test_overall__a_port_failure_is_not_the_devices(void **state)
{
	const struct side_spec rs[] = { { "expect", "", BN_VERDICT_PASS, false },
					{ "check", "device", BN_VERDICT_PASS, false },
					{ "check", "device", BN_VERDICT_INCONCLUSIVE, false },
					{ "check", "port", BN_VERDICT_FAIL, false } };
	const struct side_spec clean[] = { { "check", "device", BN_VERDICT_PASS, false },
					   { "check", "port", BN_VERDICT_PASS, false } };

	(void)state;
	check_sides("device", rs, 4, "not-demonstrated", "not-compliant", 0);
	check_sides("", rs + 1, 1, "compliant", NULL, 0);
	check_sides("device", clean, 2, "compliant", "compliant", 0);
	/* a device failure is still the device's, beside the port's */
	{
		const struct side_spec both[] = { { "check", "device", BN_VERDICT_FAIL, false },
						  { "check", "port", BN_VERDICT_FAIL, false } };

		check_sides("device", both, 2, "not-compliant", "not-compliant", 1);
	}
}

/* A side that judged nothing (only skipped or inconclusive results) has
 * no verdict, unless the record judges it. */
static void test_overall__a_side_that_judged_nothing_is_null(void **state)
{
	const struct side_spec rs[] = { { "check", "device", BN_VERDICT_PASS, false },
					{ "check", "port", BN_VERDICT_SKIPPED, false },
					{ "check", "port", BN_VERDICT_INCONCLUSIVE, false } };
	const struct side_spec port_run[] = { { "check", "device", BN_VERDICT_SKIPPED, false },
					      { "check", "port", BN_VERDICT_INCONCLUSIVE, false } };

	(void)state;
	check_sides("device", rs, 3, "compliant", NULL, 0);
	check_sides("port", port_run, 2, NULL, "not-demonstrated", 0);
}

/* A record that judges the port: the port's failures and the
 * expectations fail it; a device rule's does not. */
static void test_overall__a_port_run_judges_the_port(void **state)
{
	const struct side_spec dev_fails[] = { { "expect", "", BN_VERDICT_PASS, false },
					       { "check", "device", BN_VERDICT_FAIL, false },
					       { "check", "port", BN_VERDICT_PASS, false } };
	const struct side_spec exp_fails[] = { { "expect", "", BN_VERDICT_FAIL, false },
					       { "check", "port", BN_VERDICT_PASS, false } };
	const struct side_spec warn[] = { { "check", "port", BN_VERDICT_PASS, false },
					  { "check", "port", BN_VERDICT_FAIL, true } };

	(void)state;
	check_sides("port", dev_fails, 3, "not-compliant", "compliant", 0);
	/* an expectation belongs to the run, so to the side it judges */
	check_sides("port", exp_fails, 2, NULL, "not-compliant", 1);
	check_sides("device", exp_fails, 2, "not-compliant", "compliant", 1);
	check_sides("port", warn, 2, NULL, "compliant", 0);
}

/* Records before sides (/1, /2): a check without a side judged the
 * device, and a record without "judges" judged the device. */
static void test_overall__records_before_sides(void **state)
{
	cJSON *doc = cJSON_Parse("{\"schema\": \"bcbench-report/2\", \"verdict\": \"not-compliant\", "
				 "\"results\": [{\"kind\": \"expect\", \"verdict\": \"pass\"}, "
				 "{\"kind\": \"check\", \"verdict\": \"fail\"}], "
				 "\"status\": {\"state\": \"completed\"}}");
	int totals[BN_VERDICT_COUNT];
	struct bn_err err = { 0 };
	bool judged = true;

	(void)state;
	assert_non_null(doc);
	assert_string_equal(bn_report_json_judges(doc), "device");
	assert_int_equal(bn_report_json_overall(doc), BN_OVERALL_NOT_COMPLIANT);
	assert_int_equal(bn_report_json_verdict(doc, "v2.json", totals, &err), BN_OVERALL_NOT_COMPLIANT);
	assert_int_equal(bn_report_json_overall_side(doc, "port", &judged), BN_OVERALL_NOT_DEMONSTRATED);
	assert_false(judged);
	cJSON_Delete(doc);
	assert_string_equal(bn_result_side_in("check", "", "port"), "device");
	assert_string_equal(bn_result_side_in("expect", "", "port"), "port");
	assert_string_equal(bn_result_side_in("bench", NULL, NULL), "device");
	assert_string_equal(bn_result_side_in("check", "port", "device"), "port");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_overall__all_pass_is_compliant),
		cmocka_unit_test(test_overall__a_failure_is_not_compliant),
		cmocka_unit_test(test_overall__a_warning_does_not_fail),
		cmocka_unit_test(test_overall__open_results_are_not_demonstrated),
		cmocka_unit_test(test_overall__names_and_bad_documents),
		cmocka_unit_test(test_overall__a_port_failure_is_not_the_devices),
		cmocka_unit_test(test_overall__a_side_that_judged_nothing_is_null),
		cmocka_unit_test(test_overall__a_port_run_judges_the_port),
		cmocka_unit_test(test_overall__records_before_sides),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
