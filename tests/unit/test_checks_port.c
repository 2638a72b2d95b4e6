/* bc12.port rules (checks/port_*.c) on synthetic streams through the
 * whole engine: each rule fails on a stream that breaks it, passes on
 * the reference port, is inconclusive when its input is missing; under
 * realistic measurement (profiles/conditions/realistic.json) a compliant
 * port never fails. */
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
#include "core/meas.h"
#include "report/report.h"
#include "lib/gen_stream.h"
#include "lib/harness.h"

#define MAX_EV 24

struct pev {
	enum bn_cev_kind kind;
	double t_s, num;
};

/* A stream for a port rule: gen's samples, VBUS on at 0 (unless the
 * events say otherwise: then exactly the listed ones), VBUS off at the end. */
struct pcase {
	const char *rule, *name;
	enum bn_port_type port;
	void (*gen)(double t, struct bn_sample *s);
	double dur_s, rate_hz;
	const char *conditions;
	unsigned drop_channels, drop_events;
	void (*tweak)(struct bn_check_ctx *ctx);
	struct pev ev[MAX_EV];
	enum bn_verdict expect;
};

static enum bn_verdict run_pcase(const struct pcase *pc, struct bn_result *out)
{
	struct bn_check_ctx ctx;
	struct bn_checks *c = NULL;
	struct bn_err err = { 0 };
	struct bn_report rep;
	double rate = pc->rate_hz > 0 ? pc->rate_hz : 10000.0;
	long n = (long)(pc->dur_s * rate);
	enum bn_verdict v = BN_VERDICT_ERROR;
	struct bn_rng rng;
	int ne = 0, next = 0;

	while (ne < MAX_EV && pc->ev[ne].t_s > 0)
		ne++;
	bn_rng_seed(&rng, 1);
	ctx_init(&ctx, pc->port, BN_DECL_BATTERY, rate);
	ctx.cable_ohm = NAN;
	ctx.charger_compliant = -1;
	if (pc->conditions)
		bn_test_ctx_conditions(&ctx, pc->conditions);
	ctx.channels &= ~pc->drop_channels;
	ctx.events &= ~pc->drop_events;
	if (pc->tweak)
		pc->tweak(&ctx);
	assert_int_equal(bn_checks_new(&ctx, &c, &err), BN_OK);
	ev_at(c, BN_CEV_VBUS_ON, 0.0);
	for (long i = 0; i < n; i++) {
		double t = (double)i / rate;
		struct bn_sample s = { { 0 } };

		while (next < ne && pc->ev[next].t_s <= t) {
			struct bn_cev e = { .kind = pc->ev[next].kind, .t_us = bn_time_from_s(pc->ev[next].t_s),
					    .num = pc->ev[next].num };

			if (ctx.events & BN_CEV_BIT(e.kind))
				bn_checks_event(c, &e);
			next++;
		}
		pc->gen(t, &s);
		bn_test_measure(&ctx, &rng, &s);
		bn_checks_sample(c, bn_time_from_s(t), &s);
	}
	ev_at(c, BN_CEV_VBUS_OFF, pc->dur_s);
	bn_report_init(&rep);
	bn_checks_end(c, bn_time_from_s(pc->dur_s), &rep);
	for (int k = 0; k < rep.n_results; k++)
		if (!strcmp(rep.results[k].id, pc->rule)) {
			v = rep.results[k].verdict;
			if (out)
				*out = rep.results[k];
		}
	bn_report_free(&rep);
	bn_checks_free(c);
	return v;
}

static int run_pcases(const struct pcase *pc, size_t n)
{
	int bad = 0;

	for (size_t i = 0; i < n; i++) {
		struct bn_result r = { 0 };
		enum bn_verdict v = run_pcase(&pc[i], &r);

		if (v != pc[i].expect) {
			print_error("%s / %s: %s, expected %s (%s)\n", pc[i].rule, pc[i].name, bn_verdict_name(v),
				    bn_verdict_name(pc[i].expect), r.reason);
			bad++;
		}
	}
	return bad;
}

#define NO_CH(ch) .drop_channels = 1u << (ch)
#define REAL .conditions = "realistic"

/* ==== the CDP's handshake ==== */

/* A device's primary detection on a CDP: D+ at VDP_SRC (0.6 V) from
 * 200 ms for 40 ms (TVDPSRC_ON), sinking IDM_SINK on D-; the port answers
 * on D- (0.6 V) en_ms after D+ arrived and drops it dis_ms after D+ left;
 * then (sec) the device's own secondary detection drives D- to VDM_SRC
 * from 10 ms after D+ left, for 40 ms. */
static void cdp_lines(double t, struct bn_sample *s, double en_ms, double dis_ms, double dm_v, bool sec)
{
	double t0 = 0.2, t1 = 0.24;

	s->v[BN_CH_VBUS] = 5.0;
	s->v[BN_CH_IBUS] = 0.05;
	s->v[BN_CH_DP] = t >= t0 && t < t1 ? 0.6 : 0.0;
	s->v[BN_CH_DM] = en_ms >= 0 && t >= t0 + en_ms * 1e-3 && t < t1 + dis_ms * 1e-3 ? dm_v : 0.0;
	if (sec && t >= t1 + 0.010 && t < t1 + 0.050)
		s->v[BN_CH_DM] = 0.6;
	if (t >= 0.4)
		s->v[BN_CH_DP] = 3.3;     /* connected: the pull-up */
}

static void g_cdp_ok(double t, struct bn_sample *s) { cdp_lines(t, s, 5, 3, 0.6, false); }
static void g_cdp_ok_sec(double t, struct bn_sample *s) { cdp_lines(t, s, 5, 3, 0.6, true); }
static void g_cdp_late(double t, struct bn_sample *s) { cdp_lines(t, s, 30, 3, 0.6, false); }
static void g_cdp_edge(double t, struct bn_sample *s) { cdp_lines(t, s, 19.6, 3, 0.6, false); }
static void g_cdp_mute(double t, struct bn_sample *s) { cdp_lines(t, s, -1, 0, 0.6, false); }
static void g_cdp_sticky(double t, struct bn_sample *s) { cdp_lines(t, s, 5, 35, 0.6, false); }
static void g_cdp_low(double t, struct bn_sample *s) { cdp_lines(t, s, 5, 3, 0.45, false); }
static void g_cdp_low_edge(double t, struct bn_sample *s) { cdp_lines(t, s, 5, 3, 0.497, false); }

/* D+ held only 15 ms and no answer: too short to say anything */
static void g_cdp_short_mute(double t, struct bn_sample *s)
{
	cdp_lines(t, s, -1, 0, 0.6, false);
	if (t >= 0.215 && t < 0.4)
		s->v[BN_CH_DP] = 0.0;
}

/* The bench plays the device: no secondary detection of its own. */
static void probe_no_sec(struct bn_check_ctx *ctx)
{
	ctx->probe.present = true;
	ctx->probe.sec_after_s = INFINITY;
}

/* ... or its secondary starts 10 ms after primary: before TVDMSRC_DIS max. */
static void probe_sec_early(struct bn_check_ctx *ctx)
{
	ctx->probe.present = true;
	ctx->probe.sec_after_s = 0.010;
}

#define CDP(r, n, g, ...) { .rule = r, .name = n, .port = BN_PORT_CDP, .gen = g, .dur_s = 0.6, .rate_hz = 10000.0, \
			    .expect = __VA_ARGS__ }
#define CDPX(r, n, g, v, ...) { .rule = r, .name = n, .port = BN_PORT_CDP, .gen = g, .dur_s = 0.6, \
				.expect = v, __VA_ARGS__ }

static const struct pcase cdp_cases[] = {
	CDP("bc12.port.tvdmsrc_en", "answer after 5 ms", g_cdp_ok, BN_VERDICT_PASS),
	CDP("bc12.port.tvdmsrc_en", "answer after 30 ms", g_cdp_late, BN_VERDICT_FAIL),
	CDP("bc12.port.tvdmsrc_en", "never answered in 40 ms", g_cdp_mute, BN_VERDICT_FAIL),
	CDP("bc12.port.tvdmsrc_en", "no answer, D+ held 15 ms", g_cdp_short_mute, BN_VERDICT_INCONCLUSIVE),
	CDPX("bc12.port.tvdmsrc_en", "no dm channel", g_cdp_late, BN_VERDICT_INCONCLUSIVE, NO_CH(BN_CH_DM)),
	CDPX("bc12.port.tvdmsrc_en", "500 Hz", g_cdp_late, BN_VERDICT_INCONCLUSIVE, .rate_hz = 500.0),
	{ .rule = "bc12.port.tvdmsrc_en", .name = "on a DCP", .port = BN_PORT_DCP, .gen = g_cdp_late, .dur_s = 0.6,
	  .expect = BN_VERDICT_SKIPPED },
	CDPX("bc12.port.tvdmsrc_en", "realistic: answer after 5 ms", g_cdp_ok, BN_VERDICT_PASS, REAL),
	CDPX("bc12.port.tvdmsrc_en", "realistic: answer after 30 ms", g_cdp_late, BN_VERDICT_FAIL, REAL),
	CDPX("bc12.port.tvdmsrc_en", "realistic: never answered", g_cdp_mute, BN_VERDICT_FAIL, REAL),
	CDPX("bc12.port.tvdmsrc_en", "500 Hz", g_cdp_late, BN_VERDICT_INCONCLUSIVE, .rate_hz = 500.0),
	CDPX("bc12.port.tvdmsrc_en", "answer after 19.6 ms, 1 kHz", g_cdp_edge, BN_VERDICT_INCONCLUSIVE,
	     .rate_hz = 1000.0, REAL),

	CDP("bc12.port.tvdmsrc_dis", "release after 3 ms", g_cdp_ok, BN_VERDICT_PASS),
	CDPX("bc12.port.tvdmsrc_dis", "release after 3 ms, then secondary", g_cdp_ok_sec, BN_VERDICT_PASS, REAL),
	CDPX("bc12.port.tvdmsrc_dis", "probe: held 35 ms", g_cdp_sticky, BN_VERDICT_FAIL, .tweak = probe_no_sec),
	CDPX("bc12.port.tvdmsrc_dis", "probe: held 35 ms, realistic", g_cdp_sticky, BN_VERDICT_FAIL,
	     .tweak = probe_no_sec, REAL),
	CDP("bc12.port.tvdmsrc_dis", "device run: held 35 ms", g_cdp_sticky, BN_VERDICT_INCONCLUSIVE),
	CDPX("bc12.port.tvdmsrc_dis", "probe's secondary at 10 ms: held 35 ms", g_cdp_sticky,
	     BN_VERDICT_INCONCLUSIVE, .tweak = probe_sec_early),
	CDP("bc12.port.tvdmsrc_dis", "never answered", g_cdp_mute, BN_VERDICT_INCONCLUSIVE),
	CDPX("bc12.port.tvdmsrc_dis", "no dp channel", g_cdp_sticky, BN_VERDICT_INCONCLUSIVE, NO_CH(BN_CH_DP),
	     .tweak = probe_no_sec),

	CDP("bc12.port.vdm_src", "0.6 V", g_cdp_ok, BN_VERDICT_PASS),
	CDPX("bc12.port.vdm_src", "0.6 V, realistic", g_cdp_ok, BN_VERDICT_PASS, REAL),
	CDPX("bc12.port.vdm_src", "0.6 V then secondary, realistic", g_cdp_ok_sec, BN_VERDICT_PASS, REAL),
	CDP("bc12.port.vdm_src", "0.45 V", g_cdp_low, BN_VERDICT_FAIL),
	CDPX("bc12.port.vdm_src", "0.45 V, realistic", g_cdp_low, BN_VERDICT_FAIL, REAL),
	CDPX("bc12.port.vdm_src", "0.497 V, realistic", g_cdp_low_edge, BN_VERDICT_INCONCLUSIVE, REAL),
	CDP("bc12.port.vdm_src", "never answered", g_cdp_mute, BN_VERDICT_INCONCLUSIVE),
	CDPX("bc12.port.vdm_src", "no dm channel", g_cdp_low, BN_VERDICT_INCONCLUSIVE, NO_CH(BN_CH_DM)),
};

static void test_checks_port__cdp(void **state)
{
	(void)state;
	assert_int_equal(run_pcases(cdp_cases, sizeof(cdp_cases) / sizeof(cdp_cases[0])), 0);
}

/* The measured answer time is the one generated, within a sample. */
static void test_checks_port__tvdmsrc_en_value(void **state)
{
	const struct pcase pc = CDP("bc12.port.tvdmsrc_en", "30 ms", g_cdp_late, BN_VERDICT_FAIL);
	struct bn_result r = { 0 };

	(void)state;
	assert_int_equal(run_pcase(&pc, &r), BN_VERDICT_FAIL);
	assert_string_equal(r.side, "port");
	assert_string_equal(r.unit, "s");
	assert_near(r.measured, 0.030, 2e-4);
	assert_near(r.limit_max, bn_limits_max(&bn_test_lim, "TVDMSRC_EN"), 1e-12);
	assert_true(r.margin < 0);
	assert_non_null(strstr(r.reason, "the port (cdp)"));
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_checks_port__cdp),
		cmocka_unit_test(test_checks_port__tvdmsrc_en_value),
	};

	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, bn_test_setup_limits, bn_test_teardown_limits);
}
