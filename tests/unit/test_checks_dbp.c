/* bc12.dbp rules (checks/dbp.c) on synthetic streams through the whole
 * engine: for each rule a stream that passes, one that fails, one with an
 * input removed (inconclusive, never pass). A stream is a dead-battery
 * device on an SDP: detection, Dead Battery Provision (D+ at VDP_SRC,
 * 100 mA unconnected), then a connect. */
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
#include "lib/gen_stream.h"
#include "lib/harness.h"

/* The DBP ends at DBP_END_S: D+ goes to the pull-up and the host sees a
 * connect then. */
#define DBP_END_S 5.0

static void g_dbp(double t, struct bn_sample *s)
{
	s->v[BN_CH_VBUS] = 5.0;
	s->v[BN_CH_DM] = 0.0;
	if (t < 0.02) {                 /* DCD */
		s->v[BN_CH_DP] = 0.15;
		s->v[BN_CH_IBUS] = 0.0;
	} else if (t < DBP_END_S) {     /* primary detection, then DBP */
		s->v[BN_CH_DP] = 0.6;
		s->v[BN_CH_IBUS] = t < 0.065 ? 0.0 : 0.1;
	} else {                        /* connected, enumerated */
		s->v[BN_CH_DP] = 3.3;
		s->v[BN_CH_IBUS] = 0.3;
	}
}

static void g_dbp_late_vdp(double t, struct bn_sample *s)
{
	g_dbp(t, s);
	if (t >= 0.065 && t < 1.5)      /* VDP_SRC only from 1.5 s */
		s->v[BN_CH_DP] = 0.0;
}

static void g_dbp_200ma(double t, struct bn_sample *s)
{
	g_dbp(t, s);
	if (t >= 0.065 && t < DBP_END_S)
		s->v[BN_CH_IBUS] = 0.2;
}

static void g_dbp_no_vdp(double t, struct bn_sample *s)
{
	g_dbp(t, s);
	if (t >= 0.065 && t < DBP_END_S)
		s->v[BN_CH_DP] = 0.0;   /* drawing 100 mA unconnected, D+ low */
}

/* Drops VDP_SRC at DBP_END_S, connects 2 s later, at ISUSP meanwhile. */
static void g_dbp_slow(double t, struct bn_sample *s)
{
	g_dbp(t, s);
	if (t >= DBP_END_S && t < DBP_END_S + 2.0) {
		s->v[BN_CH_DP] = 0.0;
		s->v[BN_CH_IBUS] = 0.002;
	}
}

/* Never ends DBP. */
static void g_dbp_forever(double t, struct bn_sample *s)
{
	g_dbp(t < DBP_END_S ? t : DBP_END_S - 0.001, s);
}

/* Falls to ISUSP at 3 s, never connects. */
static void g_dbp_quiet(double t, struct bn_sample *s)
{
	g_dbp_forever(t, s);
	if (t >= 3.0) {
		s->v[BN_CH_DP] = 0.0;
		s->v[BN_CH_IBUS] = 0.001;
	}
}

#define STX(g, dur, rate, con, ...) { .dur_s = dur, .rate_hz = rate, .gen = g, .connect_s = con, .disconnect_s = -1, __VA_ARGS__ }
#define ST(g, ...) STX(g, 8.0, 1000.0, DBP_END_S, __VA_ARGS__)
#define NO_CH(ch) .drop_channels = 1u << (ch)
#define CONN_EVENTS (BN_CEV_BIT(BN_CEV_CONNECT) | BN_CEV_BIT(BN_CEV_DISCONNECT))

static const struct tcase dbp_cases[] = {
	{ "bc12.dbp.vdp_src_on", "DBP at 20 ms", ST(g_dbp), BN_VERDICT_PASS },
	{ "bc12.dbp.vdp_src_on", "VDP_SRC only at 1.5 s", ST(g_dbp_late_vdp), BN_VERDICT_FAIL },
	{ "bc12.dbp.vdp_src_on", "no dp channel", ST(g_dbp_late_vdp, NO_CH(BN_CH_DP)), BN_VERDICT_INCONCLUSIVE },
	{ "bc12.dbp.vdp_src_on", "capture of 0.5 s", STX(g_dbp, 0.5, 1000.0, -1), BN_VERDICT_INCONCLUSIVE },
	{ "bc12.dbp.iunit", "100 mA", ST(g_dbp), BN_VERDICT_PASS },
	{ "bc12.dbp.iunit", "200 mA", ST(g_dbp_200ma), BN_VERDICT_FAIL },
	{ "bc12.dbp.iunit", "500 Hz capture", STX(g_dbp_200ma, 8.0, 500.0, DBP_END_S), BN_VERDICT_INCONCLUSIVE },
	{ "bc12.dbp.iunit", "no connect events", ST(g_dbp_200ma, .drop_events = CONN_EVENTS), BN_VERDICT_INCONCLUSIVE },
	{ "bc12.dbp.isusp_unless_vdp", "100 mA at VDP_SRC", ST(g_dbp), BN_VERDICT_PASS },
	{ "bc12.dbp.isusp_unless_vdp", "slow connect at ISUSP", STX(g_dbp_slow, 8.0, 1000.0, DBP_END_S + 2.0), BN_VERDICT_PASS },
	{ "bc12.dbp.isusp_unless_vdp", "100 mA with D+ low", ST(g_dbp_no_vdp), BN_VERDICT_FAIL },
	{ "bc12.dbp.isusp_unless_vdp", "no connect events", ST(g_dbp_no_vdp, .drop_events = CONN_EVENTS), BN_VERDICT_INCONCLUSIVE },
	{ "bc12.dbp.isusp_unless_vdp", "no dp channel", ST(g_dbp_no_vdp, NO_CH(BN_CH_DP)), BN_VERDICT_INCONCLUSIVE },
	{ "bc12.dbp.vdpsrc_con", "connect with VDP_SRC off", ST(g_dbp), BN_VERDICT_PASS },
	{ "bc12.dbp.vdpsrc_con", "connect 2 s after", STX(g_dbp_slow, 8.0, 1000.0, DBP_END_S + 2.0), BN_VERDICT_FAIL },
	{ "bc12.dbp.vdpsrc_con", "no dp channel", STX(g_dbp_slow, 8.0, 1000.0, DBP_END_S + 2.0, NO_CH(BN_CH_DP)), BN_VERDICT_INCONCLUSIVE },
	{ "bc12.dbp.vdpsrc_con", "VDP_SRC never off", STX(g_dbp_forever, 8.0, 1000.0, -1), BN_VERDICT_INCONCLUSIVE },
};

static void test_checks_dbp__table(void **state)
{
	(void)state;
	run_table(dbp_cases, sizeof(dbp_cases) / sizeof(dbp_cases[0]), BN_PORT_SDP,
		  BN_DECL_BATTERY | BN_DECL_DBP | BN_DECL_DEAD_BATTERY | BN_DECL_DROOP);
}

/* bc12.dbp.con_wkb judged with TSVLD_CON_WKB shortened to 10 s in this
 * process's copy of the limits (45 min of synthetic samples would prove
 * nothing more). */
static void test_checks_dbp__con_wkb(void **state)
{
	struct bn_limit *l = (struct bn_limit *)bn_limits_find(&bn_test_lim, "TSVLD_CON_WKB");
	double saved;
	static const struct tcase cases[] = {
		{ "bc12.dbp.con_wkb", "connects at 5 s", STX(g_dbp, 12.0, 1000.0, DBP_END_S), BN_VERDICT_PASS },
		{ "bc12.dbp.con_wkb", "falls to ISUSP at 3 s", STX(g_dbp_quiet, 12.0, 1000.0, -1), BN_VERDICT_PASS },
		{ "bc12.dbp.con_wkb", "still drawing at 10 s", STX(g_dbp_forever, 12.0, 1000.0, -1), BN_VERDICT_FAIL },
		{ "bc12.dbp.con_wkb", "capture shorter than the limit", STX(g_dbp_forever, 8.0, 1000.0, -1), BN_VERDICT_INCONCLUSIVE },
		{ "bc12.dbp.con_wkb", "no ibus channel", STX(g_dbp_forever, 12.0, 1000.0, -1, NO_CH(BN_CH_IBUS)), BN_VERDICT_INCONCLUSIVE },
		{ "bc12.dbp.con_wkb", "no connect events", STX(g_dbp_forever, 12.0, 1000.0, -1, .drop_events = CONN_EVENTS), BN_VERDICT_INCONCLUSIVE },
	};

	(void)state;
	assert_non_null(l);
	saved = l->max;
	l->max = 10.0;
	run_table(cases, sizeof(cases) / sizeof(cases[0]), BN_PORT_SDP,
		  BN_DECL_BATTERY | BN_DECL_DBP | BN_DECL_DEAD_BATTERY);
	l->max = saved;
}

/* DBP rules apply on an SDP to a device declaring DBP with a dead battery. */
static void test_checks_dbp__applicability(void **state)
{
	const struct stream st = ST(g_dbp);

	(void)state;
	assert_int_equal(run_stream(&st, BN_PORT_SDP, BN_DECL_DBP, "bc12.dbp.iunit", NULL),
			 BN_VERDICT_SKIPPED);
	assert_int_equal(run_stream(&st, BN_PORT_SDP, BN_DECL_DEAD_BATTERY, "bc12.dbp.iunit", NULL),
			 BN_VERDICT_SKIPPED);
	assert_int_equal(run_stream(&st, BN_PORT_DCP, BN_DECL_DBP | BN_DECL_DEAD_BATTERY,
				    "bc12.dbp.iunit", NULL),
			 BN_VERDICT_SKIPPED);
}

/* Measured values and windows. */
static void test_checks_dbp__measured(void **state)
{
	const struct stream st = STX(g_dbp_slow, 8.0, 1000.0, DBP_END_S + 2.0);
	const unsigned decl = BN_DECL_DBP | BN_DECL_DEAD_BATTERY;
	struct bn_result r;

	(void)state;
	assert_int_equal(run_stream(&st, BN_PORT_SDP, decl, "bc12.dbp.vdpsrc_con", &r), BN_VERDICT_FAIL);
	assert_true(fabs(r.measured - 2.0) < 2e-3);
	assert_true(fabs(r.limit_max - bn_limits_max(&bn_test_lim, "TDBP_VDPSRC_CON")) < 1e-9);
	assert_true(r.reason[0]);
	assert_int_equal(run_stream(&st, BN_PORT_SDP, decl, "bc12.dbp.vdp_src_on", &r), BN_VERDICT_PASS);
	assert_true(fabs(r.measured - 0.02) < 2e-3);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_checks_dbp__table),
		cmocka_unit_test(test_checks_dbp__con_wkb),
		cmocka_unit_test(test_checks_dbp__applicability),
		cmocka_unit_test(test_checks_dbp__measured),
	};

	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, bn_test_setup_limits, bn_test_teardown_limits);
}
