/* bc12.cur rules (checks/current.c) on synthetic streams through the whole
 * engine: for each rule a stream that passes, one that fails, one with an
 * input removed (inconclusive, never pass); and memory that does not grow
 * with the run's length. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/check.h"
#include "core/limits.h"
#include "core/asan.h"
#include "report/report.h"
#include "lib/gen_stream.h"
#include "lib/harness.h"


/* ---- generators: a DCP charge at 1 A, and faults in it ---- */

static void g_steady(double t, struct bn_sample *s)
{
	(void)t;
	s->v[BN_CH_VBUS] = 5.0;
	s->v[BN_CH_IBUS] = 1.0;
	s->v[BN_CH_DP] = 0.6;
	s->v[BN_CH_DM] = 0.6;
}

static void g_over_idev(double t, struct bn_sample *s)
{
	g_steady(t, s);
	if (t >= 2.0 && t < 2.002)
		s->v[BN_CH_IBUS] = 1.6;   /* a 2 ms excursion: instantaneous reading */
}

static void g_sag_long(double t, struct bn_sample *s)
{
	g_steady(t, s);
	if (t >= 2.0 && t < 3.0)
		s->v[BN_CH_VBUS] = 4.3;   /* 1 s below 4.5 V while drawing 1 A */
}

static void g_sag_short(double t, struct bn_sample *s)
{
	g_steady(t, s);
	if (t >= 2.0 && t < 2.25)
		s->v[BN_CH_VBUS] = 4.3;   /* one window: the device backs off in time */
}

static void g_charger_off(double t, struct bn_sample *s)
{
	g_steady(t, s);
	if (t >= 2.0 && t < 3.5) {    /* the port shut down: no draw, no VBUS */
		s->v[BN_CH_VBUS] = 0.0;
		s->v[BN_CH_IBUS] = 0.0;
	}
}

static void g_collapse(double t, struct bn_sample *s)
{
	g_steady(t, s);
	if (t >= 2.0 && t < 2.01) {   /* the device pulls VBUS to 1.5 V drawing 0.9 A */
		s->v[BN_CH_VBUS] = 1.5;
		s->v[BN_CH_IBUS] = 0.9;
	}
}

static void g_dp_late_drop(double t, struct bn_sample *s)
{
	g_steady(t, s);
	if (t >= 1.5)
		s->v[BN_CH_DP] = 0.0;
}

static void g_dp_early_low(double t, struct bn_sample *s)
{
	g_steady(t, s);
	if (t < 0.9)
		s->v[BN_CH_DP] = 0.0;     /* detection: inside the 1 s grace */
}

/* ---- under realistic measurement (profiles/conditions/realistic.json) ---- */

/* A good device on a weak DCP: 0.7 A at 4.6 V. */
static void g_good(double t, struct bn_sample *s)
{
	g_steady(t, s);
	s->v[BN_CH_VBUS] = 4.6;
	s->v[BN_CH_IBUS] = 0.7;
}

/* 10 ms at 1.492 A: 8 mA under IDEV_CHG, inside the U of a 1 ms mean
 * (the 0.5 % gain alone is 7.5 mA). */
static void g_idev_edge(double t, struct bn_sample *s)
{
	g_steady(t, s);
	if (t >= 2.0 && t < 2.01)
		s->v[BN_CH_IBUS] = 1.492;
}

/* 0.63 s at 4.3 V: the TVBUS_AVG average stays below 4.5 V for about
 * 0.5 s, the settle time, within the time its own U moves it. */
static void g_sag_edge(double t, struct bn_sample *s)
{
	g_steady(t, s);
	if (t >= 2.0 && t < 2.63)
		s->v[BN_CH_VBUS] = 4.3;
}

/* 10 ms at 1.99 V drawing 0.9 A: a 1 ms mean within U of VDCP_SHTDWN. */
static void g_collapse_edge(double t, struct bn_sample *s)
{
	g_steady(t, s);
	if (t >= 2.0 && t < 2.01) {
		s->v[BN_CH_VBUS] = 1.99;
		s->v[BN_CH_IBUS] = 0.9;
	}
}

/* D+ sags to 0.5 V (VDP_SRC min) at 1.5 s while drawing 1 A. */
static void g_dp_edge(double t, struct bn_sample *s)
{
	g_steady(t, s);
	if (t >= 1.5)
		s->v[BN_CH_DP] = 0.5;
}

/* The charger shuts down at 2 s and comes back at 3.5 s; the device runs
 * detection again (D+ low, drawing) for 0.6 s: inside the grace that
 * starts again when VBUS returns. */
static void g_shutdown_redetect(double t, struct bn_sample *s)
{
	g_charger_off(t, s);
	if (t >= 3.5 && t < 4.1)
		s->v[BN_CH_DP] = 0.0;
}

/* The same, but D+ drops again at 4.6 s: more than 1 s after VBUS returned. */
static void g_shutdown_drop_late(double t, struct bn_sample *s)
{
	g_shutdown_redetect(t, s);
	if (t >= 4.6)
		s->v[BN_CH_DP] = 0.0;
}

/* VBUS comes 0.5 s after the bench's vbus_on (a slow supply); the device
 * detects (D+ low, drawing) until 1.3 s: inside the second from VBUS
 * valid, though not from the command. */
static void g_late_vbus(double t, struct bn_sample *s)
{
	g_steady(t, s);
	if (t < 0.5) {
		s->v[BN_CH_VBUS] = 0.0;
		s->v[BN_CH_IBUS] = 0.0;
	}
	if (t < 1.3)
		s->v[BN_CH_DP] = 0.0;
}

/* A weak charger folds back to 0.5 V under the device's 0.9 A for 1 s: it
 * has not shut down (it still delivers), and excuses nothing. */
static void g_fold_back(double t, struct bn_sample *s)
{
	g_steady(t, s);
	if (t >= 2.0 && t < 3.0) {
		s->v[BN_CH_VBUS] = 0.5;
		s->v[BN_CH_IBUS] = 0.9;
	}
}

#define MS_US(ms) ((bn_time_us)(ms) * 1000)
#define STX(g, dur, rate, ...) { .dur_s = dur, .rate_hz = rate, .gen = g, .connect_s = -1, .disconnect_s = -1, __VA_ARGS__ }
#define ST(g, ...) STX(g, 5.0, 10000.0, __VA_ARGS__)
#define NO_CH(ch) .drop_channels = 1u << (ch)
#define SESSION (BN_CEV_BIT(BN_CEV_VBUS_ON) | BN_CEV_BIT(BN_CEV_VBUS_OFF))

static const struct tcase current_cases[] = {
	{ "bc12.cur.idev_chg", "steady 1 A", ST(g_steady), BN_VERDICT_PASS },
	{ "bc12.cur.idev_chg", "2 ms at 1.6 A", ST(g_over_idev), BN_VERDICT_FAIL },
	{ "bc12.cur.idev_chg", "no ibus channel", ST(g_over_idev, NO_CH(BN_CH_IBUS)), BN_VERDICT_INCONCLUSIVE },
	{ "bc12.cur.idev_chg", "500 Hz capture", STX(g_steady, 5.0, 500.0), BN_VERDICT_INCONCLUSIVE },
	{ "bc12.cur.droop", "steady 5 V", ST(g_steady), BN_VERDICT_PASS },
	{ "bc12.cur.droop", "250 ms sag", ST(g_sag_short), BN_VERDICT_PASS },
	{ "bc12.cur.droop", "charger shut down", ST(g_charger_off), BN_VERDICT_PASS },
	{ "bc12.cur.droop", "1 s sag", ST(g_sag_long), BN_VERDICT_FAIL },
	{ "bc12.cur.droop", "no vbus channel", ST(g_sag_long, NO_CH(BN_CH_VBUS)), BN_VERDICT_INCONCLUSIVE },
	{ "bc12.cur.droop", "no session events", ST(g_sag_long, .drop_events = SESSION), BN_VERDICT_INCONCLUSIVE },
	{ "bc12.cur.vdcp_shtdwn", "steady", ST(g_steady), BN_VERDICT_PASS },
	{ "bc12.cur.vdcp_shtdwn", "charger shut down", ST(g_charger_off), BN_VERDICT_PASS },
	{ "bc12.cur.vdcp_shtdwn", "pulled to 1.5 V", ST(g_collapse), BN_VERDICT_FAIL },
	{ "bc12.cur.vdcp_shtdwn", "500 Hz capture", STX(g_collapse, 5.0, 500.0), BN_VERDICT_INCONCLUSIVE },
	{ "bc12.cur.vdcp_shtdwn", "no ibus channel", ST(g_collapse, NO_CH(BN_CH_IBUS)), BN_VERDICT_INCONCLUSIVE },
	{ "bc12.cur.dcp_dp_hold", "D+ held", ST(g_steady), BN_VERDICT_PASS },
	{ "bc12.cur.dcp_dp_hold", "D+ low in the grace second", ST(g_dp_early_low), BN_VERDICT_PASS },
	{ "bc12.cur.dcp_dp_hold", "D+ drops at 1.5 s", ST(g_dp_late_drop), BN_VERDICT_FAIL },
	{ "bc12.cur.dcp_dp_hold", "no session events", ST(g_dp_late_drop, .drop_events = SESSION), BN_VERDICT_INCONCLUSIVE },
	{ "bc12.cur.dcp_dp_hold", "no dp channel", ST(g_dp_late_drop, NO_CH(BN_CH_DP)), BN_VERDICT_INCONCLUSIVE },
};

static void test_checks_current__table(void **state)
{
	(void)state;
	run_table(current_cases, sizeof(current_cases) / sizeof(current_cases[0]), BN_PORT_DCP,
		  BN_DECL_BATTERY | BN_DECL_DROOP | BN_DECL_SECONDARY);
}

#define REAL .conditions = "realistic"

/* Under realistic measurement: a good device passes, a fault fails, and a
 * level within U of its limit is inconclusive "within measurement
 * uncertainty" (checked by reason). */
static const struct tcase realistic_cases[] = {
	{ "bc12.cur.idev_chg", "good", ST(g_good, REAL), BN_VERDICT_PASS },
	{ "bc12.cur.idev_chg", "2 ms at 1.6 A", ST(g_over_idev, REAL), BN_VERDICT_FAIL },
	{ "bc12.cur.idev_chg", "10 ms at 1.492 A", ST(g_idev_edge, REAL), BN_VERDICT_INCONCLUSIVE },
	{ "bc12.cur.droop", "good", ST(g_good, REAL), BN_VERDICT_PASS },
	{ "bc12.cur.droop", "charger shut down", ST(g_charger_off, REAL), BN_VERDICT_PASS },
	{ "bc12.cur.droop", "1 s sag", ST(g_sag_long, REAL), BN_VERDICT_FAIL },
	{ "bc12.cur.droop", "folded back to 0.5 V while drawing", ST(g_fold_back, REAL), BN_VERDICT_FAIL },
	{ "bc12.cur.droop", "0.63 s sag", ST(g_sag_edge, REAL), BN_VERDICT_INCONCLUSIVE },
	{ "bc12.cur.vdcp_shtdwn", "good", ST(g_good, REAL), BN_VERDICT_PASS },
	{ "bc12.cur.vdcp_shtdwn", "charger shut down", ST(g_charger_off, REAL), BN_VERDICT_PASS },
	{ "bc12.cur.vdcp_shtdwn", "pulled to 1.5 V", ST(g_collapse, REAL), BN_VERDICT_FAIL },
	{ "bc12.cur.vdcp_shtdwn", "folded back to 0.5 V while drawing", ST(g_fold_back, REAL), BN_VERDICT_FAIL },
	{ "bc12.cur.vdcp_shtdwn", "pulled to 1.99 V", ST(g_collapse_edge, REAL), BN_VERDICT_INCONCLUSIVE },
	{ "bc12.cur.dcp_dp_hold", "good", ST(g_good, REAL), BN_VERDICT_PASS },
	{ "bc12.cur.dcp_dp_hold", "charger shut down", ST(g_charger_off, REAL), BN_VERDICT_PASS },
	{ "bc12.cur.dcp_dp_hold", "D+ drops at 1.5 s", ST(g_dp_late_drop, REAL), BN_VERDICT_FAIL },
	{ "bc12.cur.dcp_dp_hold", "D+ at 0.5 V", ST(g_dp_edge, REAL), BN_VERDICT_INCONCLUSIVE },
};

static void test_checks_current__realistic(void **state)
{
	int bad = 0;

	(void)state;
	for (size_t k = 0; k < sizeof(realistic_cases) / sizeof(realistic_cases[0]); k++) {
		const struct tcase *tc = &realistic_cases[k];
		struct bn_result r = { 0 };
		enum bn_verdict v = run_stream(&tc->st, BN_PORT_DCP, BN_DECL_BATTERY | BN_DECL_DROOP,
					       tc->rule, &r);

		if (v != tc->expect ||
		    (v == BN_VERDICT_INCONCLUSIVE && !strstr(r.reason, "within measurement uncertainty")) ||
		    (v != BN_VERDICT_INCONCLUSIVE && !r.has_u)) {
			print_error("%s / %s: %s, expected %s (%s)\n", tc->rule, tc->name,
				    bn_verdict_name(v), bn_verdict_name(tc->expect), r.reason);
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}

/* Graces start when VBUS is measured valid, and again when it returns
 * after a charger shut down; a charger that shuts down excuses nothing,
 * and needs no excuse: no block draws while VBUS is off. */
static void test_checks_current__grace_from_vbus_valid(void **state)
{
	static const struct tcase cases[] = {
		{ "bc12.cur.dcp_dp_hold", "re-detection after the charger came back",
		  ST(g_shutdown_redetect, REAL), BN_VERDICT_PASS },
		{ "bc12.cur.dcp_dp_hold", "D+ drops 1.1 s after the charger came back",
		  ST(g_shutdown_drop_late, REAL), BN_VERDICT_FAIL },
		{ "bc12.cur.dcp_dp_hold", "VBUS 0.5 s after the command", ST(g_late_vbus, REAL), BN_VERDICT_PASS },
		{ "bc12.cur.dcp_dp_hold", "ideal: re-detection after the charger came back",
		  ST(g_shutdown_redetect), BN_VERDICT_PASS },
		{ "bc12.cur.dcp_dp_hold", "ideal: VBUS 0.5 s after the command", ST(g_late_vbus), BN_VERDICT_PASS },
		{ "bc12.cur.vdcp_shtdwn", "re-detection after the charger came back",
		  ST(g_shutdown_redetect, REAL), BN_VERDICT_PASS },
		{ "bc12.cur.droop", "re-detection after the charger came back",
		  ST(g_shutdown_redetect, REAL), BN_VERDICT_PASS },
	};
	struct bn_result r;

	(void)state;
	run_table(cases, sizeof(cases) / sizeof(cases[0]), BN_PORT_DCP, BN_DECL_BATTERY | BN_DECL_DROOP);
	/* the failure is dated after the second grace */
	assert_int_equal(run_stream(&cases[1].st, BN_PORT_DCP, BN_DECL_DROOP, "bc12.cur.dcp_dp_hold", &r),
			 BN_VERDICT_FAIL);
	assert_true(r.t0_us >= MS_US(4500));
	assert_true(r.figures[0].value == 1); /* vbus_returns */
}

/* D+ held at VDP_SRC by the device, measured against the port's ground
 * while the device's sits gnd_v above it (CP 6.14, 6.15): the verdict of
 * dcp_dp_hold. */
static enum bn_verdict dp_hold_with_ground(double gnd_v, double dp_dev_v)
{
	struct bn_check_ctx ctx;
	struct bn_checks *c = NULL;
	struct bn_err err = { 0 };
	struct bn_report rep;
	enum bn_verdict v = BN_VERDICT_ERROR;

	ctx_init(&ctx, BN_PORT_DCP, BN_DECL_BATTERY, 10000.0);
	ctx.gnd_offset_v = gnd_v;
	assert_int_equal(bn_checks_new(&ctx, &c, &err), BN_OK);
	ev_at(c, BN_CEV_VBUS_ON, 0.0);
	for (long i = 0; i < 30000; i++) {
		struct bn_sample s = { { 0 } };

		g_steady(0.0, &s);
		s.v[BN_CH_DP] = dp_dev_v + (isnan(gnd_v) ? 0.375 : gnd_v);
		bn_checks_sample(c, (bn_time_us)i * 100, &s);
	}
	ev_at(c, BN_CEV_VBUS_OFF, 3.0);
	bn_report_init(&rep);
	bn_checks_end(c, 3000000, &rep);
	for (int k = 0; k < rep.n_results; k++)
		if (!strcmp(rep.results[k].id, "bc12.cur.dcp_dp_hold"))
			v = rep.results[k].verdict;
	bn_report_free(&rep);
	bn_checks_free(c);
	return v;
}

/* VDP_SRC is the device's source: judged in the device's ground, and not
 * at all when that ground is not known against the port's. */
static void test_checks_current__dp_hold_in_device_ground(void **state)
{
	(void)state;
	/* 0.6 V in the device's ground reads 0.975 V on the port's: passes */
	assert_int_equal(dp_hold_with_ground(0.375, 0.6), BN_VERDICT_PASS);
	/* 0.2 V in the device's ground reads 0.575 V on the port's: fails */
	assert_int_equal(dp_hold_with_ground(0.375, 0.2), BN_VERDICT_FAIL);
	/* -0.375 V: 0.6 V reads 0.225 V, still a pass in the device's ground */
	assert_int_equal(dp_hold_with_ground(-0.375, 0.6), BN_VERDICT_PASS);
	assert_int_equal(dp_hold_with_ground(NAN, 0.6), BN_VERDICT_INCONCLUSIVE);
}

/* Ports and declarations: the rules apply on DCP, CDP and the ACA ports;
 * droop needs a declared threshold. */
static void test_checks_current__applicability(void **state)
{
	const struct stream st = ST(g_steady);

	(void)state;
	assert_int_equal(run_stream(&st, BN_PORT_SDP, BN_DECL_DROOP, "bc12.cur.idev_chg", NULL),
			 BN_VERDICT_SKIPPED);
	assert_int_equal(run_stream(&st, BN_PORT_ACA_DOCK, BN_DECL_DROOP, "bc12.cur.idev_chg", NULL),
			 BN_VERDICT_PASS);
	assert_int_equal(run_stream(&st, BN_PORT_CDP, BN_DECL_DROOP, "bc12.cur.dcp_dp_hold", NULL),
			 BN_VERDICT_SKIPPED);
	assert_int_equal(run_stream(&st, BN_PORT_DCP, 0, "bc12.cur.droop", NULL), BN_VERDICT_SKIPPED);
}

/* The measured values, the settle-time limit and the figures. */
static void ramp_gen(double t, struct bn_sample *s)
{
	/* 0.5 A, +64 mA every 500 ms to 0.756 A at 2 s, back to 0.692 A at 2.25 s */
	double i = t < 2.0 ? 0.5 + 0.064 * floor(t / 0.5) : t < 2.25 ? 0.756 : 0.692;

	s->v[BN_CH_VBUS] = i > 0.75 ? 4.4 : 4.6;
	s->v[BN_CH_IBUS] = i;
	s->v[BN_CH_DP] = s->v[BN_CH_DM] = 0.6;
}

static void test_checks_current__droop_figures(void **state)
{
	const struct stream st = STX(ramp_gen, 6.0, 1000.0);
	struct bn_result r;
	double settle = -1, current = -1, backoffs = -1;

	(void)state;
	assert_int_equal(run_stream(&st, BN_PORT_DCP, BN_DECL_DROOP, "bc12.cur.droop", &r),
			 BN_VERDICT_PASS);
	assert_true(r.has_measured);
	assert_string_equal(r.unit, "s");
	assert_true(fabs(r.limit_max - 2 * bn_limits_max(&bn_test_lim, "TVBUS_AVG")) < 1e-9);
	for (int i = 0; i < r.n_figures; i++) {
		if (!strcmp(r.figures[i].name, "time_to_settle"))
			settle = r.figures[i].value;
		if (!strcmp(r.figures[i].name, "settled_current"))
			current = r.figures[i].value;
		if (!strcmp(r.figures[i].name, "backoffs"))
			backoffs = r.figures[i].value;
	}
	assert_true(fabs(current - 0.692) < 1e-6);
	assert_true(backoffs == 1);
	assert_true(settle > 0.9 && settle <= 2.5);
}

/* ---- memory does not depend on the run's length ---- */

static void test_checks_current__memory_flat_over_10m_samples(void **state)
{
	struct bn_check_ctx ctx;
	struct bn_checks *c = NULL;
	struct bn_err err = { 0 };
	struct bn_report rep;
	const double rate = 10000.0;
	const long n = 10 * 1000 * 1000;
	size_t at_1m = 0, at_10m = 0;

	(void)state;
	ctx_init(&ctx, BN_PORT_DCP, BN_DECL_BATTERY | BN_DECL_DROOP | BN_DECL_SECONDARY, rate);
	assert_int_equal(bn_checks_new(&ctx, &c, &err), BN_OK);
	ev_at(c, BN_CEV_VBUS_ON, 0.0);
	for (long i = 0; i < n; i++) {
		struct bn_sample s = { { 0 } };
		bn_time_us t = (bn_time_us)i * 100; /* 10 kHz */

		g_steady(0.0, &s);
		s.v[BN_CH_IBUS] = 1.0 + 1e-3 * (double)(i % 7); /* not quite constant */
		bn_checks_sample(c, t, &s);
		if (i == n / 10 - 1)
			at_1m = mallinfo2().uordblks;
	}
	at_10m = mallinfo2().uordblks;
	ev_at(c, BN_CEV_VBUS_OFF, (double)n / rate);
	bn_report_init(&rep);
	bn_checks_end(c, (bn_time_us)n * 100, &rep);
	for (int k = 0; k < rep.n_results; k++)
		if (!strncmp(rep.results[k].id, "bc12.cur.", 9))
			assert_int_equal(rep.results[k].verdict, BN_VERDICT_PASS);
	bn_report_free(&rep);
	bn_checks_free(c);
	print_message("allocated: %zu bytes after 1 M samples, %zu after 10 M\n", at_1m, at_10m);
	if (BN_ASAN) {
		print_message("(ASan replaces malloc: the comparison is skipped)\n");
		return;
	}
	/* within 4 KiB: nothing per sample */
	assert_true(at_10m <= at_1m + 4096 && at_1m <= at_10m + 4096);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_checks_current__table),
		cmocka_unit_test(test_checks_current__applicability),
		cmocka_unit_test(test_checks_current__droop_figures),
		cmocka_unit_test(test_checks_current__realistic),
		cmocka_unit_test(test_checks_current__grace_from_vbus_valid),
		cmocka_unit_test(test_checks_current__dp_hold_in_device_ground),
		cmocka_unit_test(test_checks_current__memory_flat_over_10m_samples),
	};

	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, bn_test_setup_limits, bn_test_teardown_limits);
}
