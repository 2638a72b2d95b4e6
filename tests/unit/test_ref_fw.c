/* The reference firmware's own numbers against the BC-1.2 limits file,
 * and its ramp policy against synthetic chargers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/harness.h"
#include "core/limits.h"
#include "firmware/ref_fw.h"
#include "firmware/ref_ramp.h"

static double us(uint64_t t)
{
	return (double)t / 1e6;
}

static void test_ref_fw__tunables_inside_bc12_limits(void **state)
{
	const struct ref_fw_tunables *t = &ref_fw_tunables;

	(void)state;
	assert_true(us(t->dcd_dbnc_us) >= bn_limits_min(&bn_test_lim, "TDCD_DBNC"));
	assert_true(us(t->dcd_timeout_us) >= bn_limits_min(&bn_test_lim, "TDCD_TIMEOUT"));
	/* DCD time-out plus the last poll stays inside the max */
	assert_true(us(t->dcd_timeout_us + t->dcd_poll_us) <= bn_limits_max(&bn_test_lim, "TDCD_TIMEOUT"));
	assert_true(us(t->vdpsrc_on_us) >= bn_limits_min(&bn_test_lim, "TVDPSRC_ON"));
	assert_true(us(t->vdmsrc_on_us) >= bn_limits_min(&bn_test_lim, "TVDMSRC_ON"));
	/* the CDP must have answered within TVDMSRC_EN before D- is read */
	assert_true(us(t->vdpsrc_on_us) > bn_limits_max(&bn_test_lim, "TVDMSRC_EN"));
	assert_true(t->iunit_ma / 1000.0 <= bn_limits_max(&bn_test_lim, "IUNIT"));
	assert_true(t->isusp_ma / 1000.0 <= bn_limits_max(&bn_test_lim, "ISUSP"));
	assert_true(t->idev_chg_ma / 1000.0 <= bn_limits_max(&bn_test_lim, "IDEV_CHG"));
	assert_true(t->dcp_start_ma / 1000.0 >= bn_limits_min(&bn_test_lim, "IDCP"));
	assert_true(t->cdp_start_ma <= t->idev_chg_ma);
	/* the margins the source states: a current 10 % below its limit */
	assert_true(t->iunit_ma / 1000.0 <= 0.9 * bn_limits_max(&bn_test_lim, "IUNIT") + 1e-9);
	assert_true(t->dbp_ma / 1000.0 <= 0.9 * bn_limits_max(&bn_test_lim, "IUNIT") + 1e-9);
	assert_true(t->isusp_ma / 1000.0 <= 0.5 * bn_limits_max(&bn_test_lim, "ISUSP"));
	assert_true(t->cfg_draw_pct > 0 && t->cfg_draw_pct <= 90);
	assert_true(us(t->vdpsrc_on_us) >= bn_limits_min(&bn_test_lim, "TVDPSRC_ON") + 0.01 - 1e-9);
	assert_true(t->cfg_high_ma / 1000.0 <= bn_limits_max(&bn_test_lim, "ICFG_MAX"));
	assert_true(t->cfg_low_ma / 1000.0 <= bn_limits_max(&bn_test_lim, "IUNIT"));
	assert_true(us(t->dbp_attach_us) <= bn_limits_max(&bn_test_lim, "TDBP_ATT_VDPSRC"));
	assert_true((double)t->dbp_give_up_us / 1e6 < bn_limits_max(&bn_test_lim, "TSVLD_CON_WKB"));
	/* 10 x 25 ms: the averaging window is TVBUS_AVG */
	assert_true(fabs(us(RAMP_AVG_N * RAMP_SAMPLE_US) - bn_limits_max(&bn_test_lim, "TVBUS_AVG")) < 1e-9);
	/* ID windows: each RID range falls inside its window */
	assert_true(bn_limits_max(&bn_test_lim, "RID_GND") < t->rid_gnd_max_ohm);
	assert_true(bn_limits_min(&bn_test_lim, "RID_C") > t->rid_gnd_max_ohm);
	assert_true(bn_limits_max(&bn_test_lim, "RID_C") < t->rid_c_max_ohm);
	assert_true(bn_limits_min(&bn_test_lim, "RID_B") > t->rid_c_max_ohm);
	assert_true(bn_limits_max(&bn_test_lim, "RID_B") < t->rid_b_max_ohm);
	assert_true(bn_limits_min(&bn_test_lim, "RID_A") > t->rid_b_max_ohm);
	assert_true(bn_limits_max(&bn_test_lim, "RID_A") < t->rid_a_max_ohm);
	assert_true(bn_limits_min(&bn_test_lim, "RID_FLOAT") > t->rid_a_max_ohm);
}

/* A charger that holds 5.0 V up to knee_ma and sags 4 mV per mA past it. */
static uint32_t sag_vbus_mv(uint32_t ilim_ma, uint32_t knee_ma)
{
	return ilim_ma <= knee_ma ? 5000 : 5000 - 4 * (ilim_ma - knee_ma);
}

static void run_ramp(struct ref_ramp *r, uint32_t knee_ma, uint64_t t_end_us)
{
	for (uint64_t t = RAMP_SAMPLE_US; t < t_end_us; t += RAMP_SAMPLE_US)
		ref_ramp_sample(r, sag_vbus_mv(r->ilim_ma, knee_ma), t);
}

static void test_ref_ramp__settles_at_last_level_that_held(void **state)
{
	struct ref_ramp r;

	(void)state;
	/* droop 4.5 V: VBUS falls below it past knee + 125 mA */
	ref_ramp_start(&r, 500, 1500, 0, 4500, 0);
	assert_int_equal(r.ilim_ma, 500);
	run_ramp(&r, 800, 20000000);
	assert_true(r.settled);
	assert_int_equal(r.backoffs, 1);
	/* steps are 500 + 64k mA: 884 gives 5000 - 4 x 84 = 4664 mV and holds;
	 * 948 gives 5000 - 4 x 148 = 4408 mV and sags: back to 884 */
	assert_int_equal(r.ilim_ma, 884);
	assert_true(sag_vbus_mv(r.ilim_ma, 800) >= 4500);
	assert_true(sag_vbus_mv(r.ilim_ma + RAMP_STEP_MA, 800) < 4500);
}

static void test_ref_ramp__stops_at_the_range_maximum(void **state)
{
	struct ref_ramp r;

	(void)state;
	ref_ramp_start(&r, 500, 1500, 0, 4500, 0);
	run_ramp(&r, 5000, 30000000);
	assert_true(r.settled);
	assert_int_equal(r.backoffs, 0);
	assert_true(r.ilim_ma <= 1500);
	assert_true(r.ilim_ma + RAMP_STEP_MA > 1500);
}

static void test_ref_ramp__steps_no_faster_than_the_interval(void **state)
{
	struct ref_ramp r;

	(void)state;
	ref_ramp_start(&r, 500, 1500, 0, 4500, 0);
	/* 2 s: at most 2 s / 500 ms = 4 steps */
	run_ramp(&r, 5000, 2000000);
	assert_true(r.ilim_ma <= 500 + 4 * RAMP_STEP_MA);
	assert_true(r.ilim_ma >= 500 + 2 * RAMP_STEP_MA);
}

static void test_ref_ramp__ceiling_caps_the_next_ramp(void **state)
{
	struct ref_ramp r;
	uint32_t ceiling;

	(void)state;
	ref_ramp_start(&r, 500, 1500, 0, 4500, 0);
	run_ramp(&r, 5000, 3000000);
	/* VBUS lost right after a step up: an over-current */
	ceiling = ref_ramp_trip_ceiling(&r, r.t_last_up_us + 10000);
	assert_int_equal(ceiling, r.ilim_ma - RAMP_STEP_MA);
	/* long after the last step it is not */
	assert_int_equal(ref_ramp_trip_ceiling(&r, r.t_last_up_us + 2 * RAMP_TRIP_WINDOW_US), 0);
	ref_ramp_start(&r, 500, 1500, ceiling, 4500, 0);
	run_ramp(&r, 5000, 30000000);
	assert_true(r.ilim_ma <= ceiling);
	assert_true(r.ilim_ma + RAMP_STEP_MA > ceiling);
}

static void test_ref_ramp__never_backs_off_below_a_unit_load(void **state)
{
	struct ref_ramp r;

	(void)state;
	ref_ramp_start(&r, 500, 1500, 0, 4500, 0);
	for (uint64_t t = RAMP_SAMPLE_US; t < 60000000; t += RAMP_SAMPLE_US)
		ref_ramp_sample(&r, 4000, t); /* always sagging */
	assert_int_equal(r.ilim_ma, RAMP_FLOOR_MA);
	assert_true(r.backoffs >= 6);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ref_fw__tunables_inside_bc12_limits),
		cmocka_unit_test(test_ref_ramp__settles_at_last_level_that_held),
		cmocka_unit_test(test_ref_ramp__stops_at_the_range_maximum),
		cmocka_unit_test(test_ref_ramp__steps_no_faster_than_the_interval),
		cmocka_unit_test(test_ref_ramp__ceiling_caps_the_next_ramp),
		cmocka_unit_test(test_ref_ramp__never_backs_off_below_a_unit_load),
	};

	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, bn_test_setup_limits, bn_test_teardown_limits);
}
