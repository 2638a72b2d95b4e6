/* End-to-end runs on the simulated bench: every shipped scenario with the
 * reference firmware, detection against each port profile's stated
 * result, the ramp against the charger curves, faults and bad input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <dirent.h>
#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/harness.h"
#include "checks/check.h"
#include "core/limits.h"
#include "report/report.h"
#include "scenario/runner.h"
#include "sim/charger.h"
#include "sim/dut.h"

static const char *fwdir(void)
{
	const char *d = getenv("BN_FWDIR");

	return d ? d : "build/fw";
}

struct run {
	struct bn_report rep;
	struct bn_err err;
	int rc;
};

static void run_file(const char *path, struct run *r, volatile sig_atomic_t *stop)
{
	struct bn_run_opts o = {
		.scenario_path = path,
		.datadir = bn_test_srcdir(),
		.stop_flag = stop,
	};

	memset(r, 0, sizeof(*r));
	bn_report_init(&r->rep);
	r->rc = bn_run_scenario(&o, &r->rep, &r->err);
}

static const struct bn_result *find_result(const struct bn_report *rep, const char *id)
{
	for (int i = 0; i < rep->n_results; i++)
		if (!strcmp(rep->results[i].id, id))
			return &rep->results[i];
	return NULL;
}

static const char *telemetry(const struct bn_report *rep, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(rep->telemetry, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static bool has_event(const struct bn_report *rep, const char *kind)
{
	const cJSON *ev;

	cJSON_ArrayForEach(ev, rep->events) {
		const cJSON *k = cJSON_GetObjectItemCaseSensitive(ev, "kind");

		if (cJSON_IsString(k) && !strcmp(k->valuestring, kind))
			return true;
	}
	return false;
}

/* Write a scenario with the firmware directory filled in. */
static void write_scn(char *path, size_t len, const char *fmt, ...)
{
	va_list ap;
	FILE *f;
	int fd;

	snprintf(path, len, "/tmp/bn_test_run_XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fclose(f);
}

static void test_run__every_scenario_passes_and_detects_its_port(void **state)
{
	char pattern[1024];
	glob_t g;

	(void)state;
	snprintf(pattern, sizeof(pattern), "%s/scripts/scenarios/*.scn", bn_test_srcdir());
	assert_int_equal(glob(pattern, 0, NULL, &g), 0);
	assert_true(g.gl_pathc >= 15);
	for (size_t i = 0; i < g.gl_pathc; i++) {
		struct run r;
		const struct bn_result *det;
		int totals[BN_VERDICT_COUNT], n_checks = 0;

		/* A deliberately faulty device is the golden matrix's business. */
		if (strstr(g.gl_pathv[i], "/faulty-"))
			continue;
		/* A port scenario judges the port (tests/unit/test_golden_port.c). */
		if (strstr(g.gl_pathv[i], "/port-"))
			continue;
		run_file(g.gl_pathv[i], &r, NULL);
		if (r.rc != BN_OK)
			fail_msg("%s: %s", g.gl_pathv[i], r.err.msg);
		bn_report_totals(&r.rep, totals);
		/* A port rule failing on a faulty charger is the port's verdict,
		 * reported beside the device's, not the device's. */
		for (int k = 0; k < r.rep.n_results; k++)
			if (!strcmp(r.rep.results[k].side, "port") &&
			    r.rep.results[k].verdict == BN_VERDICT_FAIL)
				totals[BN_VERDICT_FAIL]--;
		if (r.rep.status != BN_RUN_COMPLETED || totals[BN_VERDICT_FAIL] ||
		    totals[BN_VERDICT_ERROR]) {
			for (int k = 0; k < r.rep.n_results; k++)
				if (r.rep.results[k].verdict == BN_VERDICT_FAIL &&
				    strcmp(r.rep.results[k].side, "port"))
					print_error("  %s: FAIL %s (%s) %s\n", g.gl_pathv[i],
						    r.rep.results[k].text, r.rep.results[k].measured_str,
						    r.rep.results[k].reason);
			fail_msg("%s: status %d, %d failed, %d errors (%s)", g.gl_pathv[i],
				 r.rep.status, totals[BN_VERDICT_FAIL], totals[BN_VERDICT_ERROR],
				 r.rep.reason);
		}
		assert_true(totals[BN_VERDICT_PASS] >= 2);
		det = find_result(&r.rep, "bc12.det.port_type");
		assert_non_null(det);
		assert_int_equal(det->verdict, BN_VERDICT_PASS);
		assert_string_equal(det->measured_str, r.rep.port_expect);
		assert_int_equal(bn_report_exit_code(&r.rep), 0);
		/* Every rule is in every report, with its verdict. */
		for (int k = 0; k < r.rep.n_results; k++)
			n_checks += !strcmp(r.rep.results[k].kind, "check");
		assert_int_equal(n_checks, bn_rules_count());
		bn_report_free(&r.rep);
	}
	globfree(&g);
}

static void test_run__json_only_port_with_odd_values_detects_right(void **state)
{
	char path[1024];
	struct run r;
	const struct bn_result *det;

	(void)state;
	snprintf(path, sizeof(path), "%s/tests/data/scenarios/odd-port.scn", bn_test_srcdir());
	run_file(path, &r, NULL);
	assert_int_equal(r.rc, BN_OK);
	assert_int_equal(r.rep.status, BN_RUN_COMPLETED);
	det = find_result(&r.rep, "bc12.det.port_type");
	assert_non_null(det);
	assert_string_equal(r.rep.port_expect, "dcp");
	assert_string_equal(det->measured_str, "dcp");
	assert_int_equal(det->verdict, BN_VERDICT_PASS);
	bn_report_free(&r.rep);
}

/* The ramp on the weak DCP settles within one step of the knee: the
 * largest current at which the receptacle stays at the droop threshold. */
static void test_run__weak_dcp_settles_within_one_step_of_the_knee(void **state)
{
	char path[1024];
	struct bn_charger ch;
	struct bn_limits lim;
	struct bn_dut_decl dut;
	struct bn_err err = { 0 };
	struct run r;
	double knee_a, ilim_a;
	const char *ilim, *backoffs;

	(void)state;
	snprintf(path, sizeof(path), "%s/profiles/limits/bc12.json", bn_test_srcdir());
	assert_int_equal(bn_limits_load(path, &lim, &err), BN_OK);
	snprintf(path, sizeof(path), "%s/profiles/duts/phone.json", bn_test_srcdir());
	assert_int_equal(bn_dut_load(path, &lim, &dut, &err), BN_OK);
	snprintf(path, sizeof(path), "%s/profiles/chargers/dcp-weak.json", bn_test_srcdir());
	assert_int_equal(bn_charger_load(path, &ch, &err), BN_OK);
	knee_a = bn_charger_i_at_v(&ch, dut.droop_threshold_v);
	assert_true(knee_a > 0.6 && knee_a < 0.8);

	snprintf(path, sizeof(path), "%s/scripts/scenarios/dcp-weak.scn", bn_test_srcdir());
	run_file(path, &r, NULL);
	assert_int_equal(r.rc, BN_OK);
	ilim = telemetry(&r.rep, "ilim_ma");
	backoffs = telemetry(&r.rep, "backoffs");
	assert_non_null(ilim);
	assert_non_null(backoffs);
	ilim_a = atof(ilim) / 1000.0;
	print_message("weak DCP: knee %.3f A, settled at %.3f A after %s back-off(s)\n", knee_a,
		      ilim_a, backoffs ? backoffs : "?");
	assert_true(atoi(backoffs) >= 1);
	assert_true(ilim_a <= knee_a);
	assert_true(ilim_a >= knee_a - 0.064);
	assert_string_equal(telemetry(&r.rep, "ramp"), "settled");
	bn_report_free(&r.rep);
	bn_limits_free(&lim);
}

static void test_run__shutdown_dcp_recovers_and_settles_below_trip(void **state)
{
	char path[1024];
	struct run r;
	const char *ilim;

	(void)state;
	snprintf(path, sizeof(path), "%s/scripts/scenarios/dcp-shutdown.scn", bn_test_srcdir());
	run_file(path, &r, NULL);
	assert_int_equal(r.rc, BN_OK);
	assert_true(has_event(&r.rep, "charger_shutdown"));
	assert_true(has_event(&r.rep, "charger_recover"));
	ilim = telemetry(&r.rep, "ilim_ma");
	assert_non_null(ilim);
	assert_true(atoi(ilim) < 1200);
	assert_true(atoi(ilim) >= 1000);
	assert_string_equal(telemetry(&r.rep, "port"), "dcp");
	bn_report_free(&r.rep);
}

static void test_run__dead_battery_runs_45_minutes_then_enumerates(void **state)
{
	char path[1024];
	struct run r;

	(void)state;
	snprintf(path, sizeof(path), "%s/scripts/scenarios/dbp.scn", bn_test_srcdir());
	run_file(path, &r, NULL);
	assert_int_equal(r.rc, BN_OK);
	assert_int_equal(r.rep.status, BN_RUN_COMPLETED);
	assert_true(r.rep.sim_s >= 45 * 60);
	/* 1 kHz for the whole run: the samples were really produced. */
	assert_true(r.rep.n_samples >= 45L * 60 * 1000);
	assert_string_equal(telemetry(&r.rep, "dbp"), "battery good");
	assert_true(has_event(&r.rep, "connect"));
	assert_true(has_event(&r.rep, "config"));
	bn_report_free(&r.rep);
}

static void test_run__firmware_from_shared_object_matches_builtin(void **state)
{
	char path[1024], ref_path[1024];
	struct run a, b;

	(void)state;
	write_scn(path, sizeof(path),
		  "name \"by path\"\nport dcp\ncharger dcp-weak\nfirmware %s/reference.so\n"
		  "vbus on\nwait 8s\nexpect dut.port == dcp\n",
		  fwdir());
	write_scn(ref_path, sizeof(ref_path),
		  "name \"built in\"\nport dcp\ncharger dcp-weak\nfirmware reference\n"
		  "vbus on\nwait 8s\nexpect dut.port == dcp\n");
	run_file(path, &a, NULL);
	if (a.rc != BN_OK)
		fail_msg("%s", a.err.msg);
	run_file(ref_path, &b, NULL);
	assert_int_equal(b.rc, BN_OK);
	assert_int_equal(a.rep.status, BN_RUN_COMPLETED);
	assert_string_equal(telemetry(&a.rep, "ilim_ma"), telemetry(&b.rep, "ilim_ma"));
	assert_int_equal(a.rep.n_samples, b.rep.n_samples);
	assert_int_equal(a.rep.fw_wakes, b.rep.fw_wakes);
	unlink(path);
	unlink(ref_path);
	bn_report_free(&a.rep);
	bn_report_free(&b.rep);
}

static void test_run__livelocked_firmware_is_stopped_as_a_fault(void **state)
{
	char path[1024];
	struct run r;

	(void)state;
	write_scn(path, sizeof(path),
		  "name \"livelock\"\nport sdp\ncharger ideal-5a\nfirmware %s/livelock.so\n"
		  "vbus on\nwait 1s\nexpect dut.port == sdp\n",
		  fwdir());
	run_file(path, &r, NULL);
	unlink(path);
	if (r.rc != BN_OK)
		fail_msg("%s", r.err.msg);
	assert_int_equal(r.rep.status, BN_RUN_ERROR);
	assert_non_null(strstr(r.rep.reason, "livelocked virtual time"));
	/* the device broke the run, not the bench */
	assert_int_equal(bn_report_exit_code(&r.rep), 3);
	/* The expect after the fault never ran, and no rule claims a verdict
	 * on the broken stream. */
	for (int i = 0; i < r.rep.n_results; i++) {
		assert_string_equal(r.rep.results[i].kind, "check");
		assert_true(r.rep.results[i].verdict == BN_VERDICT_ERROR ||
			    r.rep.results[i].verdict == BN_VERDICT_SKIPPED);
	}
	assert_true(has_event(&r.rep, "safe_state"));
	bn_report_free(&r.rep);
}

static void test_run__stop_flag_aborts_with_partial_report(void **state)
{
	char path[1024];
	struct run r;
	volatile sig_atomic_t stop = SIGINT;

	(void)state;
	snprintf(path, sizeof(path), "%s/tests/data/scenarios/long.scn", bn_test_srcdir());
	run_file(path, &r, &stop);
	assert_int_equal(r.rc, BN_OK);
	assert_int_equal(r.rep.status, BN_RUN_ABORTED);
	/* the signal that stopped it: 128 + SIGINT */
	assert_int_equal(bn_report_exit_code(&r.rep), 130);
	assert_true(has_event(&r.rep, "safe_state"));
	bn_report_free(&r.rep);
}

struct bad_case {
	const char *file;
	const char *prefix; /* expected start of the message */
	const char *part;   /* and something it must say */
};

static void test_run__bad_input_is_refused_before_the_bench_runs(void **state)
{
	static const struct bad_case cases[] = {
		{ "bad-step.scn", "tests/data/scenarios/bad-step.scn:4:1: error:", "unknown step \"wiat\"" },
		{ "bad-unit.scn", "tests/data/scenarios/bad-unit.scn:4:6: error:", "3qs" },
		{ "missing-profile.scn", "tests/data/scenarios/missing-profile.scn:3:1: error:",
		  "no-such-charger.json" },
		{ "bad-limits.scn", "tests/data/limits/min_gt_max.json", "min 0.7 > max 0.5" },
	};

	(void)state;
	if (strcmp(bn_test_srcdir(), "."))
		skip();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char path[512];
		struct run r;

		snprintf(path, sizeof(path), "tests/data/scenarios/%s", cases[i].file);
		run_file(path, &r, NULL);
		assert_int_equal(r.rc, BN_ERR_DATA);
		if (strncmp(r.err.msg, cases[i].prefix, strlen(cases[i].prefix)) ||
		    !strstr(r.err.msg, cases[i].part))
			fail_msg("%s: got \"%s\"", cases[i].file, r.err.msg);
		/* Nothing ran and nothing is claimed. */
		assert_int_equal(r.rep.n_results, 0);
		assert_int_equal(r.rep.n_samples, 0);
		bn_report_free(&r.rep);
	}
}

/* A stricter limits file really judges: TVDPSRC_ON min 60 ms makes the
 * reference's 45 ms VDP_SRC hold fail bc12.det.vdp_src. */
static void test_run__stricter_limits_file_flips_the_verdict(void **state)
{
	char src[1024], strict[64] = "/tmp/bn_strict_XXXXXX", scn[1024];
	struct bn_run_opts o = { .datadir = bn_test_srcdir() };
	struct bn_report rep;
	struct bn_err err = { 0 };
	const struct bn_result *res;
	cJSON *root, *it;
	char *text;
	FILE *f;
	int fd;
	bool found = false;

	(void)state;
	if (!bn_rule_find("bc12.det.vdp_src"))
		skip();
	snprintf(src, sizeof(src), "%s/profiles/limits/bc12.json", bn_test_srcdir());
	f = fopen(src, "r");
	assert_non_null(f);
	text = calloc(1, 1 << 20);
	assert_non_null(text);
	assert_true(fread(text, 1, (1 << 20) - 1, f) > 0);
	fclose(f);
	root = cJSON_Parse(text);
	free(text);
	assert_non_null(root);
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(root, "limits")) {
		if (strcmp(cJSON_GetObjectItemCaseSensitive(it, "name")->valuestring, "TVDPSRC_ON"))
			continue;
		cJSON_ReplaceItemInObjectCaseSensitive(it, "min", cJSON_CreateNumber(60));
		cJSON_ReplaceItemInObjectCaseSensitive(it, "unit", cJSON_CreateString("ms"));
		cJSON_DeleteItemFromObjectCaseSensitive(it, "typ");
		found = true;
	}
	assert_true(found);
	text = cJSON_Print(root);
	cJSON_Delete(root);
	fd = mkstemp(strict);
	assert_true(fd >= 0);
	assert_true(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
	close(fd);
	free(text);

	snprintf(scn, sizeof(scn), "%s/scripts/scenarios/dcp.scn", bn_test_srcdir());
	o.scenario_path = scn;
	bn_report_init(&rep);
	assert_int_equal(bn_run_scenario(&o, &rep, &err), BN_OK);
	res = find_result(&rep, "bc12.det.vdp_src");
	assert_non_null(res);
	assert_int_equal(res->verdict, BN_VERDICT_PASS);
	bn_report_free(&rep);

	o.limits_override = strict;
	bn_report_init(&rep);
	assert_int_equal(bn_run_scenario(&o, &rep, &err), BN_OK);
	res = find_result(&rep, "bc12.det.vdp_src");
	assert_non_null(res);
	assert_int_equal(res->verdict, BN_VERDICT_FAIL);
	assert_true(res->limit_min > 0.059 && res->limit_min < 0.061);
	bn_report_free(&rep);
	unlink(strict);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_run__every_scenario_passes_and_detects_its_port),
		cmocka_unit_test(test_run__json_only_port_with_odd_values_detects_right),
		cmocka_unit_test(test_run__weak_dcp_settles_within_one_step_of_the_knee),
		cmocka_unit_test(test_run__shutdown_dcp_recovers_and_settles_below_trip),
		cmocka_unit_test(test_run__dead_battery_runs_45_minutes_then_enumerates),
		cmocka_unit_test(test_run__firmware_from_shared_object_matches_builtin),
		cmocka_unit_test(test_run__livelocked_firmware_is_stopped_as_a_fault),
		cmocka_unit_test(test_run__stop_flag_aborts_with_partial_report),
		cmocka_unit_test(test_run__bad_input_is_refused_before_the_bench_runs),
		cmocka_unit_test(test_run__stricter_limits_file_flips_the_verdict),
	};

	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
