/* Suite files: the matrix a block expands to, ids, expectations, errors
 * with file:line:col; shard selection; an entry's outcome from its
 * report. Tests run from the repository root (profiles/, scripts/). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lib/harness.h"
#include "suite/judge.h"
#include "suite/suite.h"

static struct bn_suite_opts opts = { .datadir = ".", .fwdir = NULL };

static void parse_ok(const char *text, struct bn_suite *s)
{
	struct bn_err err = { 0 };

	if (bn_suite_parse_text("t.suite", text, &opts, s, &err) != BN_OK)
		fail_msg("parse failed: %s", err.msg);
}

static void parse_bad(const char *text, const char *where, const char *what)
{
	struct bn_err err = { 0 };
	struct bn_suite s;

	assert_int_equal(bn_suite_parse_text("t.suite", text, &opts, &s, &err), BN_ERR_DATA);
	assert_msg_has(&err, where);
	assert_msg_has(&err, what);
	assert_null(s.entries);
}

/* A suite with no entries parses: running it is nothing to run (exit 7,
 * the command's to say), not bad input. */
static void test_suite__empty_parses(void **state)
{
	struct bn_suite s;

	(void)state;
	parse_ok("# nothing yet\nsuite \"empty\"\n", &s);
	assert_int_equal(s.n_entries, 0);
	assert_string_equal(s.name, "empty");
	bn_suite_free(&s);
}

static void test_suite__block_is_the_product_of_its_axes(void **state)
{
	struct bn_suite s;

	(void)state;
	parse_ok("suite \"m\"\n"
		 "scenario scripts/scenarios/detect.scn\n"
		 "  port sdp dcp\n"
		 "  charger dcp-1a\n"
		 "  charger ideal-5a   # a second line adds values\n"
		 "  firmware reference\n",
		 &s);
	assert_string_equal(s.name, "m");
	assert_int_equal(s.n_entries, 4);
	/* ports outermost, in the order written */
	assert_string_equal(s.entries[0].id, "detect/sdp/dcp-1a/reference");
	assert_string_equal(s.entries[1].id, "detect/sdp/ideal-5a/reference");
	assert_string_equal(s.entries[2].id, "detect/dcp/dcp-1a/reference");
	assert_string_equal(s.entries[3].id, "detect/dcp/ideal-5a/reference");
	for (int i = 0; i < 4; i++) {
		assert_int_equal(s.entries[i].index, i);
		assert_int_equal(s.entries[i].expect, BN_SUITE_EXPECT_PASS);
	}
	assert_string_equal(s.entries[2].param_path[BN_AXIS_PORT], "./profiles/ports/dcp.json");
	assert_string_equal(s.entries[3].param[BN_AXIS_CHARGER], "ideal-5a");
	assert_string_equal(s.entries[0].param[BN_AXIS_HOST], "");
	bn_suite_free(&s);
}

static void test_suite__firmware_lines_carry_expectations(void **state)
{
	struct bn_suite s;

	(void)state;
	parse_ok("scenario scripts/scenarios/dcp.scn\n"
		 "  xfail expect.L7\n"
		 "  firmware reference\n"
		 "  firmware livelock xfail bc12.det.port_type bc12.cur.droop\n",
		 &s);
	assert_string_equal(s.name, "t");
	assert_int_equal(s.n_entries, 2);
	/* the block's xfail applies to every entry */
	assert_int_equal(s.entries[0].expect, BN_SUITE_EXPECT_FAIL);
	assert_int_equal(s.entries[0].n_rules, 1);
	assert_string_equal(s.entries[0].rules[0], "expect.L7");
	assert_int_equal(s.entries[1].n_rules, 3);
	assert_string_equal(s.entries[1].rules[0], "bc12.det.port_type");
	assert_string_equal(s.entries[1].rules[2], "expect.L7");
	assert_int_equal(s.entries[1].line, 4);
	bn_suite_free(&s);
}

static void test_suite__errors_name_file_line_col(void **state)
{
	(void)state;
	parse_bad("scenario scripts/scenarios/dcp.scn\n  prot sdp\n", "t.suite:2:3: error:",
		  "unknown statement \"prot\"");
	parse_bad("port sdp\n", "t.suite:1:1: error:", "outside a scenario block");
	parse_bad("scenario scripts/scenarios/detect.scn\n  port sdp usb4\n", "t.suite:2:12: error:",
		  "no port profile \"usb4\"");
	parse_bad("scenario scripts/scenarios/dcp.scn\n  firmware reference xfail bc12.nope\n",
		  "t.suite:2:28: error:", "not a rule id");
	parse_bad("scenario scripts/scenarios/dcp.scn\n  firmware reference xfail\n",
		  "t.suite:2:22: error:", "needs the rule ids");
	parse_bad("scenario scripts/scenarios/dcp.scn\n  firmware reference xerror bc12.det\n",
		  "t.suite:2:29: error:", "takes no rules");
	parse_bad("scenario scripts/scenarios/dcp.scn\n  firmware reference maybe\n",
		  "t.suite:2:22: error:", "expected \"xfail RULE...\" or \"xerror\"");
	parse_bad("scenario scripts/scenarios/dcp.scn\n  firmware no_such_fw_build\n",
		  "t.suite:2:12: error:", "no firmware \"no_such_fw_build\"");
	parse_bad("scenario no/such.scn\n", "t.suite:1:10: error:", "cannot open scenario");
	parse_bad("scenario tests/data/scenarios/bad-step.scn\n", "t.suite:1:10: error: in scenario",
		  "bad-step.scn:4:1: error:");
	parse_bad("scenario scripts/scenarios/dcp.scn\nwatchdog 5s\n", "t.suite:2:1: error:",
		  "before the first scenario");
	parse_bad("watchdog 5V\nscenario scripts/scenarios/dcp.scn\n", "t.suite:1:10: error:",
		  "bad watchdog");
	parse_bad("scenario scripts/scenarios/dcp.scn\nscenario scripts/scenarios/dcp.scn\n",
		  "t.suite:2:1: error:", "repeats the one from line 1");
	parse_bad("scenario scripts/scenarios/detect.scn\n  port sdp sdp\n", "t.suite:2:12: error:",
		  "given twice");
}

static void test_suite__shards_deal_every_entry_once_longest_first(void **state)
{
	struct bn_suite s;
	struct bn_err err = { 0 };
	int seen[64] = { 0 }, pick[64], n_match, total = 0;

	(void)state;
	/* dbp.scn is a 45-minute scenario at a lower rate: the most samples */
	parse_ok("scenario scripts/scenarios/detect.scn\n  port sdp cdp dcp float\n"
		 "scenario scripts/scenarios/dbp.scn\n"
		 "scenario scripts/scenarios/dcp.scn\n",
		 &s);
	assert_int_equal(s.n_entries, 6);
	assert_int_equal(bn_suite_select(&s, NULL, 1, 1, pick, &n_match), 6);
	assert_int_equal(n_match, 6);
	assert_string_equal(s.entries[pick[0]].id, "dbp");
	for (int i = 1; i < 6; i++)
		assert_true(s.entries[pick[i - 1]].cost >= s.entries[pick[i]].cost);
	for (int k = 1; k <= 4; k++) {
		int n = bn_suite_select(&s, NULL, k, 4, pick, &n_match);

		for (int i = 0; i < n; i++)
			seen[pick[i]]++;
		total += n;
	}
	assert_int_equal(total, 6);
	for (int i = 0; i < 6; i++)
		assert_int_equal(seen[i], 1);
	/* filters: globs, comma-separated */
	assert_int_equal(bn_suite_select(&s, "detect/*", 1, 1, pick, &n_match), 4);
	assert_int_equal(bn_suite_select(&s, "detect/dcp,dbp", 1, 1, pick, &n_match), 2);
	assert_int_equal(bn_suite_select(&s, "nothing*", 1, 1, pick, &n_match), 0);
	bn_suite_free(&s);

	int k, n;

	assert_int_equal(bn_suite_parse_shard("2/4", &k, &n, &err), BN_OK);
	assert_int_equal(k, 2);
	assert_int_equal(n, 4);
	assert_int_equal(bn_suite_parse_shard("0/4", &k, &n, &err), BN_ERR_ARG);
	assert_int_equal(bn_suite_parse_shard("5/4", &k, &n, &err), BN_ERR_ARG);
	assert_int_equal(bn_suite_parse_shard("1/4x", &k, &n, &err), BN_ERR_ARG);
	assert_int_equal(bn_suite_parse_shard("-1/4", &k, &n, &err), BN_ERR_ARG);
}

#define SHA "5e1f0a9c2b7d4e6f8a1b3c5d7e9f0a2b4c6d8e0f1a3b5c7d9e1f2a4b6c8d0e2f"

/* A completed report with results (id, verdict, severity or NULL). */
static cJSON *report(const char *state, const char *const rows[][3], int n)
{
	cJSON *r = cJSON_CreateObject(), *res = cJSON_AddArrayToObject(r, "results"), *st;

	for (int i = 0; i < n; i++) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "id", rows[i][0]);
		cJSON_AddStringToObject(o, "verdict", rows[i][1]);
		if (rows[i][2])
			cJSON_AddStringToObject(o, "severity", rows[i][2]);
		cJSON_AddNumberToObject(o, "measured", 0.5);
		cJSON_AddStringToObject(o, "unit", "A");
		cJSON_AddItemToArray(res, o);
	}
	st = cJSON_AddObjectToObject(r, "status");
	cJSON_AddStringToObject(st, "state", state);
	cJSON_AddStringToObject(st, "reason", "the reason");
	return r;
}

static const char *outcome_of(const struct bn_suite_entry *e, cJSON *rep, const char *cause,
			      int *as_expected)
{
	static char buf[16];
	cJSON *o = bn_suite_judge(e, rep, SHA, rep ? 0 : 3, cause, "entries/x", 0.1);

	cJSON_Delete(rep);
	assert_non_null(o);
	snprintf(buf, sizeof(buf), "%s", cJSON_GetObjectItemCaseSensitive(o, "outcome")->valuestring);
	*as_expected = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "as_expected"));
	cJSON_Delete(o);
	return buf;
}

static void test_suite__judge_outcomes(void **state)
{
	static const char *const passing[][3] = { { "bc12.det.port_type", "pass", NULL },
						  { "bc12.cur.droop", "pass", NULL } };
	static const char *const droop[][3] = { { "bc12.det.port_type", "pass", NULL },
						{ "bc12.cur.droop", "fail", NULL } };
	static const char *const warn[][3] = { { "bc12.adv.low_power_config", "fail", "warning" } };
	struct bn_suite_entry e = { .expect = BN_SUITE_EXPECT_PASS, .id = "x" };
	int ok;

	(void)state;
	assert_string_equal(outcome_of(&e, report("completed", passing, 2), NULL, &ok), "pass");
	assert_true(ok);
	assert_string_equal(outcome_of(&e, report("completed", droop, 2), NULL, &ok), "fail");
	assert_false(ok);
	/* a warning does not fail an entry that should pass */
	assert_string_equal(outcome_of(&e, report("completed", warn, 1), NULL, &ok), "pass");
	assert_true(ok);
	assert_string_equal(outcome_of(&e, report("error", passing, 2), NULL, &ok), "error");
	assert_false(ok);
	assert_string_equal(outcome_of(&e, NULL, "crashed: killed by SIGSEGV", &ok), "error");
	assert_false(ok);

	e.expect = BN_SUITE_EXPECT_FAIL;
	e.n_rules = 1;
	snprintf(e.rules[0], sizeof(e.rules[0]), "bc12.cur.droop");
	assert_string_equal(outcome_of(&e, report("completed", droop, 2), NULL, &ok), "xfail");
	assert_true(ok);
	assert_string_equal(outcome_of(&e, report("completed", passing, 2), NULL, &ok), "xpass");
	assert_false(ok);
	/* a rule that fired as a warning satisfies its xfail */
	snprintf(e.rules[0], sizeof(e.rules[0]), "bc12.adv.low_power_config");
	assert_string_equal(outcome_of(&e, report("completed", warn, 1), NULL, &ok), "xfail");
	assert_true(ok);
	/* listed, but not judged at all: xpass, not silently xfail */
	snprintf(e.rules[0], sizeof(e.rules[0]), "bc12.dbp.iunit");
	assert_string_equal(outcome_of(&e, report("completed", passing, 2), NULL, &ok), "xpass");
	/* another rule failing as well: fail */
	e.n_rules = 1;
	snprintf(e.rules[0], sizeof(e.rules[0]), "bc12.det.port_type");
	assert_string_equal(outcome_of(&e, report("completed", droop, 2), NULL, &ok), "fail");
	assert_false(ok);

	e.expect = BN_SUITE_EXPECT_ERROR;
	e.n_rules = 0;
	assert_string_equal(outcome_of(&e, NULL, "watchdog: no progress", &ok), "error");
	assert_true(ok);
	assert_string_equal(outcome_of(&e, report("completed", passing, 2), NULL, &ok), "pass");
	assert_false(ok);
}

/* Sides: a port's failure in an entry that judges the device is shown
 * (other_side), not counted; the same rule listed as expected to fail is
 * the suite's business and satisfies it; in an entry that judges the port
 * the device's failures are the ones shown. */
static void test_suite__judge_sides(void **state)
{
	static const char *const rows[][3] = { { "bc12.det.port_type", "inconclusive", NULL },
					       { "bc12.port.tvdmsrc_en", "fail", NULL } };
	struct bn_suite_entry e = { .expect = BN_SUITE_EXPECT_PASS, .id = "x" };
	cJSON *rep = report("completed", rows, 2), *o;
	const cJSON *res, *other;
	int i = 0;

	(void)state;
	cJSON_AddStringToObject(rep, "schema", "bcbench-report/3");
	res = cJSON_GetObjectItemCaseSensitive(rep, "results");
	cJSON_ArrayForEach(o, res) {
		cJSON_AddStringToObject(o, "kind", "check");
		cJSON_AddStringToObject(o, "side", i++ ? "port" : "device");
	}
	o = bn_suite_judge(&e, rep, SHA, 0, NULL, "entries/x", 0.1);
	assert_non_null(o);
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(o, "outcome")->valuestring, "pass");
	assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "as_expected")));
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(o, "judges")->valuestring, "device");
	other = cJSON_GetObjectItemCaseSensitive(o, "other_side");
	assert_int_equal(cJSON_GetArraySize(other), 1);
	assert_non_null(strstr(cJSON_GetArrayItem(other, 0)->valuestring,
			       "bc12.port.tvdmsrc_en failed (the port's; the entry judges the device: "
			       "not counted)"));
	cJSON_Delete(o);

	/* listed as expected to fail: xfail, not "other" */
	e.expect = BN_SUITE_EXPECT_FAIL;
	e.n_rules = 1;
	snprintf(e.rules[0], sizeof(e.rules[0]), "bc12.port.tvdmsrc_en");
	o = bn_suite_judge(&e, rep, SHA, 0, NULL, "entries/x", 0.1);
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(o, "outcome")->valuestring, "xfail");
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(o, "other_side")), 0);
	cJSON_Delete(o);

	/* a record judging the port: its failure counts */
	e.expect = BN_SUITE_EXPECT_PASS;
	e.n_rules = 0;
	cJSON_AddStringToObject(rep, "judges", "port");
	o = bn_suite_judge(&e, rep, SHA, 1, NULL, "entries/x", 0.1);
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(o, "outcome")->valuestring, "fail");
	assert_false(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "as_expected")));
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(o, "judges")->valuestring, "port");
	cJSON_Delete(o);
	cJSON_Delete(rep);
}

static const char *str_at(const cJSON *o, const char *a, const char *b)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(o, a), b);

	assert_true(cJSON_IsString(it));
	return it->valuestring;
}

static int num_at(const cJSON *o, const char *a, const char *b)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(o, a), b);

	assert_true(cJSON_IsNumber(it));
	return it->valueint;
}

/* The entry's record names its report by path and sha256 and keeps its
 * verdict counts: the report itself is not in it (suite.json must not
 * grow with the reports, bcbench-suite/2). */
static void test_suite__judge_record_says_why(void **state)
{
	static const char *const droop[][3] = { { "bc12.cur.droop", "fail", NULL },
						{ "bc12.det.port_type", "pass", NULL },
						{ "bc12.dcd.timeout", "skipped", NULL } };
	struct bn_suite_entry e = { .expect = BN_SUITE_EXPECT_PASS, .id = "dcp/x", .index = 7 };
	cJSON *o, *u, *rep = report("completed", droop, 3);

	(void)state;
	snprintf(e.param[BN_AXIS_FIRMWARE], sizeof(e.param[0]), "ignore_droop");
	o = bn_suite_judge(&e, rep, SHA, 1, NULL, "entries/0007-dcp-x", 0.2);
	cJSON_Delete(rep);
	assert_int_equal(cJSON_GetObjectItemCaseSensitive(o, "index")->valueint, 7);
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(o, "params"), "firmware")->valuestring,
			    "ignore_droop");
	assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(o, "params"), "port")));
	u = cJSON_GetObjectItemCaseSensitive(o, "unexpected");
	assert_int_equal(cJSON_GetArraySize(u), 1);
	assert_non_null(strstr(cJSON_GetArrayItem(u, 0)->valuestring, "bc12.cur.droop failed: measured 0.5 A"));
	assert_string_equal(str_at(o, "report", "path"), "entries/0007-dcp-x/report.json");
	assert_string_equal(str_at(o, "report", "sha256"), SHA);
	assert_null(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(o, "report"),
						     "results"));
	assert_int_equal(num_at(o, "rules", "fail"), 1);
	assert_int_equal(num_at(o, "rules", "pass"), 1);
	assert_int_equal(num_at(o, "rules", "skipped"), 1);
	assert_int_equal(num_at(o, "rules", "error"), 0);
	cJSON_Delete(o);
	o = bn_suite_judge(&e, NULL, NULL, 3, "crashed: killed by SIGSEGV at t=0.3 s", "entries/x",
			   0.2);
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(o, "cause")->valuestring,
			    "crashed: killed by SIGSEGV at t=0.3 s");
	assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(o, "report")));
	assert_int_equal(num_at(o, "rules", "pass"), 0);
	cJSON_Delete(o);
}

/* An entry's exit_cause: an error's own (from its report, else its run's
 * exit code); an expected error (xerror) is as expected only when the
 * device broke the run. */
static void test_suite__judge_exit_causes(void **state)
{
	struct bn_suite_entry e = { .id = "dcp/x", .scenario = "dcp.scn", .expect = BN_SUITE_EXPECT_ERROR };
	static const char *const none[][3] = { { NULL, NULL, NULL } };
	cJSON *o, *rep;

	(void)state;
	/* a crash: what xerror expects */
	o = bn_suite_judge(&e, NULL, NULL, 3, "crashed: killed by SIGSEGV", "entries/x", 0.1);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "as_expected")));
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(o, "exit_cause")->valuestring,
			    "device-broke-run");
	cJSON_Delete(o);
	/* the bench in use: the device was never tested */
	o = bn_suite_judge(&e, NULL, NULL, 5, "not run: bench \"b\" is in use", "entries/x", 0);
	assert_true(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(o, "as_expected")));
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(o, "exit_cause")->valuestring,
			    "bench-fault");
	assert_non_null(strstr(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(o, "unexpected"),
						  0)->valuestring, "(bench-fault), not one of the device's"));
	cJSON_Delete(o);
	/* the report's cause wins over the run's exit code */
	rep = report("error", none, 0);
	cJSON_AddStringToObject(cJSON_GetObjectItemCaseSensitive(rep, "status"), "cause", "environment");
	o = bn_suite_judge(&e, rep, SHA, 3, NULL, "entries/x", 0.1);
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(o, "exit_cause")->valuestring,
			    "environment");
	assert_true(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(o, "as_expected")));
	cJSON_Delete(o);
	cJSON_Delete(rep);
	/* an entry that completed: ok, or rule-failed when not as expected */
	rep = report("completed", none, 0);
	o = bn_suite_judge(&e, rep, SHA, 0, NULL, "entries/x", 0.1);
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(o, "exit_cause")->valuestring,
			    "rule-failed");
	cJSON_Delete(o);
	e.expect = BN_SUITE_EXPECT_PASS;
	o = bn_suite_judge(&e, rep, SHA, 0, NULL, "entries/x", 0.1);
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(o, "exit_cause")->valuestring, "ok");
	cJSON_Delete(o);
	cJSON_Delete(rep);
}

int main(void)
{
	/* the test firmware builds (make check: BN_FWDIR) */
	opts.fwdir = getenv("BN_FWDIR") ? getenv("BN_FWDIR") : "build/fw";
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_suite__empty_parses),
		cmocka_unit_test(test_suite__block_is_the_product_of_its_axes),
		cmocka_unit_test(test_suite__firmware_lines_carry_expectations),
		cmocka_unit_test(test_suite__errors_name_file_line_col),
		cmocka_unit_test(test_suite__shards_deal_every_entry_once_longest_first),
		cmocka_unit_test(test_suite__judge_outcomes),
		cmocka_unit_test(test_suite__judge_sides),
		cmocka_unit_test(test_suite__judge_record_says_why),
		cmocka_unit_test(test_suite__judge_exit_causes),
	};

	return cmocka_run_group_tests_name("suite", tests, NULL, NULL);
}
