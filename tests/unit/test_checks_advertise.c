/* The advertised-configuration rules (bench/checks/advertise.c) over
 * explicit configuration tables: for each rule a table that passes, one
 * that fails, and one with the input removed (configurations unknown, or
 * none advertised) that must be inconclusive, never pass. What they judge
 * is declared (bMaxPower), an exact value: every result carries U = 0 and
 * says so, a realistic measurement of the stream changes nothing, and a
 * value at the limit passes while the next bMaxPower step (2 mA) fails:
 * these rules have no "within measurement uncertainty" band. Limits come
 * from $BN_SRCDIR/profiles/limits/bc12.json (default ./). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/check.h"
#include "core/limits.h"
#include "report/report.h"
#include "lib/harness.h"
#include "lib/seg_stream.h"

/* A short SDP attach; these rules do not look at it. */
static const struct seg sdp_segs[] = {
	{ 0, 500, BN_CH_VBUS, 5.0 },
};
static const struct ev sdp_evs[] = {
	{ 0, BN_CEV_VBUS_ON, 0, 0 },
	{ 500, BN_CEV_VBUS_OFF, 0, 0 },
};

struct cfg_table {
	int n;
	int value[8];
	double max_power_a[8];
};

static struct bn_result run_cfgs_in(const struct cfg_table *t, bool known, unsigned decl,
				    enum bn_port_type port, const char *id, const char *conditions)
{
	struct bn_check_ctx ctx = base_ctx(port);

	if (conditions)
		bn_test_ctx_conditions(&ctx, conditions);

	ctx.configs_known = known;
	ctx.decl = decl;
	ctx.n_configs = t->n;
	for (int i = 0; i < 8; i++) {
		ctx.config_value[i] = t->value[i];
		ctx.config_max_power_a[i] = t->max_power_a[i];
	}
	return run(&ctx, &STREAM(sdp_segs, sdp_evs, 600), id);
}

/* Under the realistic measurement, which these rules do not depend on. */
static struct bn_result run_cfgs(const struct cfg_table *t, bool known, unsigned decl,
				 enum bn_port_type port, const char *id)
{
	return run_cfgs_in(t, known, decl, port, id, "realistic");
}

/* An exact value: U = 0, said in the result. */
#define assert_exact(r)                                                                       \
	do {                                                                                  \
		assert_true((r).has_u);                                                       \
		assert_true((r).u == 0.0);                                                    \
		assert_non_null(strstr((r).persistence, "U = 0"));                            \
		assert_null(strstr((r).reason, "within measurement uncertainty"));           \
	} while (0)

#define BATT (BN_DECL_BATTERY | BN_DECL_SECONDARY)

static const struct cfg_table ref_cfgs = { 2, { 1, 2 }, { 0.5, 0.1 } };
static const struct cfg_table high_cfgs = { 2, { 1, 2 }, { 0.9, 0.1 } };
static const struct cfg_table only_high_cfgs = { 2, { 1, 2 }, { 0.5, 0.5 } };
static const struct cfg_table one_low_cfg = { 1, { 1 }, { 0.1 } };
static const struct cfg_table no_cfgs = { 0, { 0 }, { 0 } };
/* At ICFG_MAX and IUNIT exactly, and one bMaxPower step (2 mA) above. */
static const struct cfg_table at_limit_cfgs = { 2, { 1, 2 }, { 0.5, 0.1 } };
static const struct cfg_table step_over_cfgs = { 2, { 1, 2 }, { 0.502, 0.102 } };

/* ---- bc12.adv.max_power ---- */

static void test_checks_advertise__max_power_pass(void **state)
{
	struct bn_result r = run_cfgs(&ref_cfgs, true, BATT, BN_PORT_SDP, "bc12.adv.max_power");

	(void)state;
	assert_verdict(r, BN_VERDICT_PASS);
	assert_exact(r);
	assert_true(fabs(r.measured - 0.5) < 1e-12);
	assert_string_equal(r.unit, "A");
	assert_true(fabs(r.limit_max - bn_limits_max(&bn_test_lim, "ICFG_MAX")) < 1e-12);
}

static void test_checks_advertise__max_power_fail(void **state)
{
	struct bn_result r = run_cfgs(&high_cfgs, true, BATT, BN_PORT_SDP, "bc12.adv.max_power");

	(void)state;
	assert_verdict(r, BN_VERDICT_FAIL);
	assert_exact(r);
	assert_false(r.warning);
	assert_true(fabs(r.measured - 0.9) < 1e-12);
	assert_non_null(strstr(r.reason, "configuration 1"));
}

/* The borderline of an exact value: at the limit passes, a step over fails. */
static void test_checks_advertise__max_power_at_limit_passes_step_over_fails(void **state)
{
	struct bn_result at = run_cfgs(&at_limit_cfgs, true, BATT, BN_PORT_SDP, "bc12.adv.max_power");
	struct bn_result over = run_cfgs(&step_over_cfgs, true, BATT, BN_PORT_SDP, "bc12.adv.max_power");

	(void)state;
	assert_verdict(at, BN_VERDICT_PASS);
	assert_exact(at);
	assert_true(at.margin == 0.0);
	assert_verdict(over, BN_VERDICT_FAIL);
	assert_exact(over);
}

static void test_checks_advertise__max_power_same_ideal_and_realistic(void **state)
{
	struct bn_result id = run_cfgs_in(&high_cfgs, true, BATT, BN_PORT_CDP, "bc12.adv.max_power", NULL);
	struct bn_result re = run_cfgs(&high_cfgs, true, BATT, BN_PORT_CDP, "bc12.adv.max_power");

	(void)state;
	assert_int_equal(id.verdict, re.verdict);
	assert_true(id.measured == re.measured);
	assert_true(id.u == re.u);
}

static void test_checks_advertise__max_power_inconclusive_unknown(void **state)
{
	struct bn_result r = run_cfgs(&high_cfgs, false, BATT, BN_PORT_SDP, "bc12.adv.max_power");

	(void)state;
	assert_verdict(r, BN_VERDICT_INCONCLUSIVE);
}

static void test_checks_advertise__max_power_inconclusive_none(void **state)
{
	struct bn_result r = run_cfgs(&no_cfgs, true, BATT, BN_PORT_SDP, "bc12.adv.max_power");

	(void)state;
	assert_verdict(r, BN_VERDICT_INCONCLUSIVE);
}

static void test_checks_advertise__max_power_skipped_on_dcp(void **state)
{
	struct bn_result r = run_cfgs(&high_cfgs, true, BATT, BN_PORT_DCP, "bc12.adv.max_power");

	(void)state;
	assert_verdict(r, BN_VERDICT_SKIPPED);
}

/* ---- bc12.adv.low_power_config ---- */

static void test_checks_advertise__low_power_config_pass(void **state)
{
	struct bn_result r = run_cfgs(&ref_cfgs, true, BATT, BN_PORT_SDP, "bc12.adv.low_power_config");

	(void)state;
	assert_verdict(r, BN_VERDICT_PASS);
	assert_exact(r);
	assert_true(fabs(r.measured - 0.1) < 1e-12);
	assert_true(fabs(r.limit_max - bn_limits_max(&bn_test_lim, "IUNIT")) < 1e-12);
}

static void test_checks_advertise__low_power_config_at_limit_passes_step_over_warns(void **state)
{
	struct bn_result at = run_cfgs(&at_limit_cfgs, true, BATT, BN_PORT_SDP, "bc12.adv.low_power_config");
	struct bn_result over =
		run_cfgs(&step_over_cfgs, true, BATT, BN_PORT_SDP, "bc12.adv.low_power_config");

	(void)state;
	assert_verdict(at, BN_VERDICT_PASS);
	assert_exact(at);
	assert_verdict(over, BN_VERDICT_FAIL);
	assert_true(over.warning);
	assert_exact(over);
}

static void test_checks_advertise__low_power_config_pass_low_only(void **state)
{
	struct bn_result r =
		run_cfgs(&one_low_cfg, true, BATT, BN_PORT_ACA_C, "bc12.adv.low_power_config");

	(void)state;
	assert_verdict(r, BN_VERDICT_PASS);
}

static void test_checks_advertise__low_power_config_fail_is_warning(void **state)
{
	struct bn_result r =
		run_cfgs(&only_high_cfgs, true, BATT, BN_PORT_SDP, "bc12.adv.low_power_config");

	(void)state;
	assert_verdict(r, BN_VERDICT_FAIL);
	assert_exact(r);
	assert_true(r.warning);
	assert_true(fabs(r.measured - 0.5) < 1e-12);
	assert_non_null(strstr(r.reason, "warning"));
}

static void test_checks_advertise__low_power_config_warning_does_not_fail_run(void **state)
{
	struct bn_result r =
		run_cfgs(&only_high_cfgs, true, BATT, BN_PORT_SDP, "bc12.adv.low_power_config");
	struct bn_report rep;
	struct bn_result *slot;

	(void)state;
	bn_report_init(&rep);
	rep.status = BN_RUN_COMPLETED;
	slot = bn_report_add(&rep);
	assert_non_null(slot);
	*slot = r;
	assert_int_equal(bn_report_exit_code(&rep), 0);
	bn_report_free(&rep);
}

static void test_checks_advertise__low_power_config_inconclusive_unknown(void **state)
{
	struct bn_result r =
		run_cfgs(&only_high_cfgs, false, BATT, BN_PORT_SDP, "bc12.adv.low_power_config");

	(void)state;
	assert_verdict(r, BN_VERDICT_INCONCLUSIVE);
}

static void test_checks_advertise__low_power_config_skipped_without_battery(void **state)
{
	struct bn_result r = run_cfgs(&only_high_cfgs, true, BN_DECL_SECONDARY, BN_PORT_SDP,
				      "bc12.adv.low_power_config");

	(void)state;
	assert_verdict(r, BN_VERDICT_SKIPPED);
}

/* A real device's configurations are read when it enumerates, during the
 * run: the engine takes them then (bn_checks_set_configs) and the rules
 * judge them as if known before; unknown until then stays inconclusive. */
static struct bn_result run_learnt(const struct cfg_table *t, bool learn, const char *id)
{
	struct bn_check_ctx ctx = base_ctx(BN_PORT_SDP);
	struct bn_checks *c = NULL;
	struct bn_err err = { 0 };
	struct bn_report rep;
	struct bn_result out = { 0 };
	struct bn_sample smp = { { 5.0, 0.05, 0, 0, 0 } };
	struct bn_cev on = { .kind = BN_CEV_VBUS_ON, .t_us = 0 };

	ctx.configs_known = false;
	ctx.decl = BATT;
	assert_int_equal(bn_checks_new(&ctx, &c, &err), BN_OK);
	bn_checks_event(c, &on);
	for (bn_time_us tt = 0; tt < 300000; tt += 1000) {
		if (learn && tt == 150000)
			bn_checks_set_configs(c, t->n, t->value, t->max_power_a);
		bn_checks_sample(c, tt, &smp);
	}
	bn_report_init(&rep);
	bn_checks_end(c, 300000, &rep);
	for (int i = 0; i < rep.n_results; i++)
		if (!strcmp(rep.results[i].id, id))
			out = rep.results[i];
	bn_report_free(&rep);
	bn_checks_free(c);
	return out;
}

static void test_checks_advertise__learnt_during_run(void **state)
{
	struct bn_result r;

	(void)state;
	r = run_learnt(&ref_cfgs, true, "bc12.adv.max_power");
	assert_verdict(r, BN_VERDICT_PASS);
	assert_float_equal(r.measured, 0.5, 1e-9);
	r = run_learnt(&high_cfgs, true, "bc12.adv.max_power");
	assert_verdict(r, BN_VERDICT_FAIL);
	r = run_learnt(&only_high_cfgs, true, "bc12.adv.low_power_config");
	assert_verdict(r, BN_VERDICT_FAIL);
	r = run_learnt(&ref_cfgs, false, "bc12.adv.max_power");
	assert_verdict(r, BN_VERDICT_INCONCLUSIVE);
	assert_non_null(strstr(r.reason, "not known"));
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_checks_advertise__learnt_during_run),
		cmocka_unit_test(test_checks_advertise__max_power_pass),
		cmocka_unit_test(test_checks_advertise__max_power_fail),
		cmocka_unit_test(test_checks_advertise__max_power_at_limit_passes_step_over_fails),
		cmocka_unit_test(test_checks_advertise__max_power_same_ideal_and_realistic),
		cmocka_unit_test(test_checks_advertise__max_power_inconclusive_unknown),
		cmocka_unit_test(test_checks_advertise__max_power_inconclusive_none),
		cmocka_unit_test(test_checks_advertise__max_power_skipped_on_dcp),
		cmocka_unit_test(test_checks_advertise__low_power_config_pass),
		cmocka_unit_test(test_checks_advertise__low_power_config_at_limit_passes_step_over_warns),
		cmocka_unit_test(test_checks_advertise__low_power_config_pass_low_only),
		cmocka_unit_test(test_checks_advertise__low_power_config_fail_is_warning),
		cmocka_unit_test(test_checks_advertise__low_power_config_warning_does_not_fail_run),
		cmocka_unit_test(test_checks_advertise__low_power_config_inconclusive_unknown),
		cmocka_unit_test(test_checks_advertise__low_power_config_skipped_without_battery),
	};

	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, bn_test_setup_limits, bn_test_teardown_limits);
}
