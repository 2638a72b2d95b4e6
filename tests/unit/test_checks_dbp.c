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

/* ---- under realistic measurement (profiles/conditions/realistic.json) ---- */

/* A good product: 90 mA under DBP, 10 % below IUNIT. */
static void g_good(double t, struct bn_sample *s)
{
	g_dbp(t, s);
	if (t >= 0.065 && t < DBP_END_S)
		s->v[BN_CH_IBUS] = 0.09;
}

/* VDP_SRC comes on exactly at TDBP_ATT_VDPSRC (1 s after VBUS valid):
 * within the sample period's U of the limit. */
static void g_vdp_at_deadline(double t, struct bn_sample *s)
{
	g_good(t, s);
	if (t >= 0.065 && t < 1.0)
		s->v[BN_CH_DP] = 0.0;
}

/* 99.5 mA under DBP all along: the highest of ~1600 3 ms means is over
 * IUNIT by more than one mean's U (its noise is the largest of ~1600),
 * but not by more than the U of that largest noise. */
static void g_iunit_edge(double t, struct bn_sample *s)
{
	g_dbp(t, s);
	if (t >= 0.065 && t < DBP_END_S)
		s->v[BN_CH_IBUS] = 0.0995;
}

/* D+ low and 2.3 mA unconnected: a 1 s average within U of ISUSP (the
 * 0.2 mA offset alone moves it to 2.5 mA). */
static void g_isusp_edge(double t, struct bn_sample *s)
{
	g_dbp(t, s);
	if (t >= 0.065 && t < DBP_END_S) {
		s->v[BN_CH_DP] = 0.0;
		s->v[BN_CH_IBUS] = 0.0023;
	}
}

/* Falls to 2.3 mA at 3 s, never connects. */
static void g_quiet_edge(double t, struct bn_sample *s)
{
	g_dbp_quiet(t, s);
	if (t >= 3.0)
		s->v[BN_CH_IBUS] = 0.0023;
}

/* VBUS comes 0.5 s after the bench's vbus_on (a slow supply); VDP_SRC from
 * 0.55 s: TDBP_ATT_VDPSRC counts from VBUS valid. */
static void g_late_vbus(double t, struct bn_sample *s)
{
	g_good(t, s);
	if (t < 0.5) {
		s->v[BN_CH_VBUS] = 0.0;
		s->v[BN_CH_DP] = 0.0;
		s->v[BN_CH_IBUS] = 0.0;
	} else if (t < 0.55) {
		s->v[BN_CH_DP] = 0.15;
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

#define REAL .conditions = "realistic"
#define DBP_DECL (BN_DECL_BATTERY | BN_DECL_DBP | BN_DECL_DEAD_BATTERY)

/* Each case must reach its verdict; an inconclusive one "within
 * measurement uncertainty", a pass or fail with its U. */
static void run_realistic(const struct tcase *tc, size_t n)
{
	int bad = 0;

	for (size_t k = 0; k < n; k++) {
		struct bn_result r = { 0 };
		enum bn_verdict v = run_stream(&tc[k].st, BN_PORT_SDP, DBP_DECL, tc[k].rule, &r);

		if (v != tc[k].expect ||
		    (v == BN_VERDICT_INCONCLUSIVE && !strstr(r.reason, "within measurement uncertainty"))) {
			print_error("%s / %s: %s, expected %s (%s)\n", tc[k].rule, tc[k].name,
				    bn_verdict_name(v), bn_verdict_name(tc[k].expect), r.reason);
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}

/* Under realistic measurement: a good device passes, a fault fails, and a
 * value within U of its limit is inconclusive. */
static void test_checks_dbp__realistic(void **state)
{
	static const struct tcase cases[] = {
		{ "bc12.dbp.vdp_src_on", "good", ST(g_good, REAL), BN_VERDICT_PASS },
		{ "bc12.dbp.vdp_src_on", "VDP_SRC only at 1.5 s", ST(g_dbp_late_vdp, REAL), BN_VERDICT_FAIL },
		{ "bc12.dbp.vdp_src_on", "VDP_SRC at 1 s", ST(g_vdp_at_deadline, REAL), BN_VERDICT_INCONCLUSIVE },
		{ "bc12.dbp.iunit", "90 mA", ST(g_good, REAL), BN_VERDICT_PASS },
		{ "bc12.dbp.iunit", "200 mA", ST(g_dbp_200ma, REAL), BN_VERDICT_FAIL },
		{ "bc12.dbp.iunit", "99.5 mA", ST(g_iunit_edge, REAL), BN_VERDICT_INCONCLUSIVE },
		{ "bc12.dbp.isusp_unless_vdp", "90 mA at VDP_SRC", ST(g_good, REAL), BN_VERDICT_PASS },
		{ "bc12.dbp.isusp_unless_vdp", "100 mA with D+ low", ST(g_dbp_no_vdp, REAL), BN_VERDICT_FAIL },
		{ "bc12.dbp.isusp_unless_vdp", "2.3 mA with D+ low", ST(g_isusp_edge, REAL), BN_VERDICT_INCONCLUSIVE },
		{ "bc12.dbp.vdpsrc_con", "connect with VDP_SRC off", ST(g_good, REAL), BN_VERDICT_PASS },
		{ "bc12.dbp.vdpsrc_con", "connect 2 s after", STX(g_dbp_slow, 8.0, 1000.0, DBP_END_S + 2.0, REAL),
		  BN_VERDICT_FAIL },
		{ "bc12.dbp.vdpsrc_con", "connect 1 s after", STX(g_dbp_slow, 8.0, 1000.0, DBP_END_S + 1.0, REAL),
		  BN_VERDICT_INCONCLUSIVE },
	};

	(void)state;
	run_realistic(cases, sizeof(cases) / sizeof(cases[0]));
}

/* bc12.dbp.con_wkb under realistic measurement, with TSVLD_CON_WKB
 * shortened to 10 s as in test_checks_dbp__con_wkb. */
static void test_checks_dbp__con_wkb_realistic(void **state)
{
	struct bn_limit *l = (struct bn_limit *)bn_limits_find(&bn_test_lim, "TSVLD_CON_WKB");
	double saved;
	static const struct tcase cases[] = {
		{ "bc12.dbp.con_wkb", "connects at 5 s", STX(g_good, 12.0, 1000.0, DBP_END_S, REAL), BN_VERDICT_PASS },
		{ "bc12.dbp.con_wkb", "falls to 1 mA at 3 s", STX(g_dbp_quiet, 12.0, 1000.0, -1, REAL), BN_VERDICT_PASS },
		{ "bc12.dbp.con_wkb", "still drawing at 10 s", STX(g_dbp_forever, 12.0, 1000.0, -1, REAL), BN_VERDICT_FAIL },
		{ "bc12.dbp.con_wkb", "falls to 2.3 mA at 3 s", STX(g_quiet_edge, 12.0, 1000.0, -1, REAL),
		  BN_VERDICT_INCONCLUSIVE },
	};

	(void)state;
	assert_non_null(l);
	saved = l->max;
	l->max = 10.0;
	run_realistic(cases, sizeof(cases) / sizeof(cases[0]));
	l->max = saved;
}

/* Attach is VBUS measured valid, not the bench's command: VDP_SRC 1.05 s
 * after the command but 0.55 s after VBUS came is in time; measured from
 * VBUS valid. */
static void test_checks_dbp__attach_is_vbus_valid(void **state)
{
	const struct stream st = ST(g_late_vbus, REAL);
	struct bn_result r;

	(void)state;
	assert_int_equal(run_stream(&st, BN_PORT_SDP, DBP_DECL, "bc12.dbp.vdp_src_on", &r), BN_VERDICT_PASS);
	assert_true(fabs(r.measured - 0.05) < 3e-3);
	assert_true(r.has_u && r.u > 0 && r.u < 2e-3);
	assert_true(r.t0_us >= 500000 && r.t0_us < 505000);
}

/* A capture that starts start_s after the bench's vbus_on, with VBUS
 * already valid and D+ at VDP_SRC: the verdict of vdp_src_on. */
static enum bn_verdict vdp_src_on_late_capture(double start_s)
{
	struct bn_check_ctx ctx;
	struct bn_checks *c = NULL;
	struct bn_err err = { 0 };
	struct bn_report rep;
	enum bn_verdict v = BN_VERDICT_ERROR;

	ctx_init(&ctx, BN_PORT_SDP, DBP_DECL, 1000.0);
	assert_int_equal(bn_checks_new(&ctx, &c, &err), BN_OK);
	ev_at(c, BN_CEV_VBUS_ON, 0.0);
	for (long i = 0; i < 3000; i++) {
		struct bn_sample s = { { 0 } };

		g_good(1.0, &s);
		bn_checks_sample(c, bn_time_from_s(start_s) + (bn_time_us)i * 1000, &s);
	}
	ev_at(c, BN_CEV_VBUS_OFF, start_s + 3.0);
	bn_report_init(&rep);
	bn_checks_end(c, bn_time_from_s(start_s + 3.0), &rep);
	for (int k = 0; k < rep.n_results; k++)
		if (!strcmp(rep.results[k].id, "bc12.dbp.vdp_src_on"))
			v = rep.results[k].verdict;
	bn_report_free(&rep);
	bn_checks_free(c);
	return v;
}

/* Attach not seen (VBUS valid from the capture's first sample, which
 * came after the bench's command): a time from attach passes only if it
 * passes counted from the command too. */
static void test_checks_dbp__attach_not_seen(void **state)
{
	(void)state;
	assert_int_equal(vdp_src_on_late_capture(0.0), BN_VERDICT_PASS);
	assert_int_equal(vdp_src_on_late_capture(0.3), BN_VERDICT_PASS);
	assert_int_equal(vdp_src_on_late_capture(2.0), BN_VERDICT_INCONCLUSIVE);
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

/* bc12.dbp.vdpsrc_con takes the rest of a run of equal samples at once
 * when nothing in it can change (vcon_hold): the same result as sample by
 * sample, on realistic noise quantised to a coarse step so that runs of
 * equal samples and changes alternate, at several steps. */
static void held_vs_each(const struct stream *st, double step_v, bool no_hold, struct bn_result *out)
{
	struct bn_check_ctx ctx;
	struct bn_checks *c = NULL;
	struct bn_err err = { 0 };
	struct bn_report rep;
	struct bn_rng rng;
	long n = (long)(st->dur_s * st->rate_hz);
	bool conn = false;

	bn_rng_seed(&rng, 1);
	ctx_init(&ctx, BN_PORT_SDP, DBP_DECL, st->rate_hz);
	bn_test_ctx_conditions(&ctx, "realistic");
	ctx.no_hold = no_hold;
	assert_int_equal(bn_checks_new(&ctx, &c, &err), BN_OK);
	ev_at(c, BN_CEV_VBUS_ON, 0.0);
	for (long i = 0; i < n; i++) {
		double t = (double)i / st->rate_hz;
		struct bn_sample s = { { 0 } };

		if (!conn && t >= st->connect_s) {
			ev_at(c, BN_CEV_CONNECT, st->connect_s);
			conn = true;
		}
		st->gen(t, &s);
		bn_test_measure(&ctx, &rng, &s);
		for (int ch = 0; ch < BN_CH_COUNT; ch++)
			s.v[ch] = round(s.v[ch] / step_v) * step_v;
		bn_checks_sample(c, bn_time_from_s(t), &s);
	}
	ev_at(c, BN_CEV_VBUS_OFF, st->dur_s);
	bn_report_init(&rep);
	bn_checks_end(c, bn_time_from_s(st->dur_s), &rep);
	memset(out, 0, sizeof(*out));
	for (int k = 0; k < rep.n_results; k++)
		if (!strcmp(rep.results[k].id, "bc12.dbp.vdpsrc_con"))
			*out = rep.results[k];
	bn_report_free(&rep);
	bn_checks_free(c);
}

static void test_checks_dbp__vdpsrc_con_held_is_sample_by_sample(void **state)
{
	static const struct stream st[] = {
		ST(g_good), STX(g_dbp_slow, 8.0, 1000.0, DBP_END_S + 2.0),
		STX(g_dbp_slow, 8.0, 1000.0, DBP_END_S + 1.0), STX(g_dbp_slow, 8.0, 5000.0, DBP_END_S + 1.0),
	};
	static const double step_v[] = { 0.002, 0.01, 0.05, 0.2 };
	int bad = 0, judged = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(st) / sizeof(st[0]); i++)
		for (size_t k = 0; k < sizeof(step_v) / sizeof(step_v[0]); k++) {
			struct bn_result a, b;

			held_vs_each(&st[i], step_v[k], false, &a);
			held_vs_each(&st[i], step_v[k], true, &b);
			judged += a.verdict == BN_VERDICT_PASS || a.verdict == BN_VERDICT_FAIL;
			if (a.verdict != b.verdict || strcmp(a.reason, b.reason) || a.t0_us != b.t0_us ||
			    a.t1_us != b.t1_us || a.has_measured != b.has_measured ||
			    (a.has_measured && a.measured != b.measured)) {
				print_error("stream %zu, step %g V: held %s (%s, %lld..%lld), sample by "
					    "sample %s (%s, %lld..%lld)\n", i, step_v[k],
					    bn_verdict_name(a.verdict), a.reason, (long long)a.t0_us,
					    (long long)a.t1_us, bn_verdict_name(b.verdict), b.reason,
					    (long long)b.t0_us, (long long)b.t1_us);
				bad++;
			}
		}
	assert_int_equal(bad, 0);
	assert_true(judged >= 4); /* the rule judged, not only skipped */
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_checks_dbp__table),
		cmocka_unit_test(test_checks_dbp__con_wkb),
		cmocka_unit_test(test_checks_dbp__applicability),
		cmocka_unit_test(test_checks_dbp__measured),
		cmocka_unit_test(test_checks_dbp__realistic),
		cmocka_unit_test(test_checks_dbp__con_wkb_realistic),
		cmocka_unit_test(test_checks_dbp__attach_is_vbus_valid),
		cmocka_unit_test(test_checks_dbp__attach_not_seen),
		cmocka_unit_test(test_checks_dbp__vdpsrc_con_held_is_sample_by_sample),
	};

	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, bn_test_setup_limits, bn_test_teardown_limits);
}
