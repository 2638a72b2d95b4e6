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

#include "scenario/replay.h"
#include "checks/check.h"
#include "checks/rules.h"
#include "core/limits.h"
#include "core/meas.h"
#include "report/report.h"
#include "scenario/runner.h"
#include "lib/gen_stream.h"
#include "lib/harness.h"

#define MAX_EV 48

/* calloc, failing once when asked (test_checks_port.mk wraps the
 * library's calls): the engine's results at the end of a run */
void *__real_calloc(size_t n, size_t size);
void *__wrap_calloc(size_t n, size_t size);
static size_t calloc_fail_size;

void *__wrap_calloc(size_t n, size_t size)
{
	if (calloc_fail_size && size == calloc_fail_size) {
		calloc_fail_size = 0;
		return NULL;
	}
	return __real_calloc(n, size);
}

struct pev {
	enum bn_cev_kind kind;
	double t_s, num;
};

/* A stream for a port rule: gen's samples, VBUS on at 0, the data lines
 * made at 0 (unless the events list data contact: then exactly the listed
 * ones), VBUS off at the end. */
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
	unsigned seed;          /* the measurement noise's (0: 1) */
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
	bool lists_ct = false;
	struct pev evs[MAX_EV];

	/* the events in time order (a case may list them in any) */
	while (ne < MAX_EV && pc->ev[ne].t_s > 0) {
		int k = ne++;

		lists_ct |= pc->ev[k].kind == BN_CEV_DATA_CONTACT;
		for (; k > 0 && evs[k - 1].t_s > pc->ev[ne - 1].t_s; k--)
			evs[k] = evs[k - 1];
		evs[k] = pc->ev[ne - 1];
	}
	bn_rng_seed(&rng, pc->seed ? pc->seed : 1);
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
	if (!lists_ct && (ctx.events & BN_CEV_BIT(BN_CEV_DATA_CONTACT))) {
		struct bn_cev e = { .kind = BN_CEV_DATA_CONTACT, .num = 1 };

		bn_checks_event(c, &e);
	}
	for (long i = 0; i < n; i++) {
		double t = (double)i / rate;
		struct bn_sample s = { { 0 } };

		while (next < ne && evs[next].t_s <= t) {
			static const char *const states[] = { "idle", "dcd", "primary", "release", "secondary",
							       "done" };
			struct bn_cev e = { .kind = evs[next].kind, .t_us = bn_time_from_s(evs[next].t_s),
					    .num = evs[next].num };

			/* the probe's telemetry: num is the index of its state */
			if (e.kind == BN_CEV_TELEMETRY) {
				e.key = "state";
				e.text = states[(int)e.num];
			}

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

#define CT_EV BN_CEV_BIT(BN_CEV_DATA_CONTACT)

/* The port sees D+ only through made lines: primary detection begun
 * before they touched, or across a bounce, asks the port nothing; without
 * the bench's contact events a port that never answered may have had
 * open lines. */
static const struct pcase cdp_contact_cases[] = {
	CDPX("bc12.port.tvdmsrc_en", "lines made 10 ms into primary, no answer", g_cdp_mute, BN_VERDICT_INCONCLUSIVE,
	     .ev = { { BN_CEV_DATA_CONTACT, 0.21, 1 } }),
	CDPX("bc12.port.tvdmsrc_en", "lines never made", g_cdp_mute, BN_VERDICT_INCONCLUSIVE,
	     .ev = { { BN_CEV_DATA_CONTACT, 0.55, 1 } }),
	CDPX("bc12.port.tvdmsrc_en", "a bounce during primary, no answer", g_cdp_mute, BN_VERDICT_INCONCLUSIVE,
	     .ev = { { BN_CEV_DATA_CONTACT, 0.001, 1 }, { BN_CEV_DATA_CONTACT, 0.21, 0 },
		     { BN_CEV_DATA_CONTACT, 0.211, 1 } }),
	CDPX("bc12.port.tvdmsrc_en", "made before primary, no answer", g_cdp_mute, BN_VERDICT_FAIL,
	     .ev = { { BN_CEV_DATA_CONTACT, 0.1, 1 } }),
	CDPX("bc12.port.tvdmsrc_en", "no contact events, no answer", g_cdp_mute, BN_VERDICT_INCONCLUSIVE,
	     .drop_events = CT_EV),
	CDPX("bc12.port.tvdmsrc_en", "no contact events, answer after 30 ms", g_cdp_late, BN_VERDICT_FAIL,
	     .drop_events = CT_EV),
	CDPX("bc12.port.vdm_src", "0.45 V, lines made 10 ms into primary", g_cdp_low, BN_VERDICT_INCONCLUSIVE,
	     .ev = { { BN_CEV_DATA_CONTACT, 0.21, 1 } }),
	CDPX("bc12.port.tvdmsrc_dis", "probe: held 35 ms, lines open 10 ms into the release", g_cdp_sticky,
	     BN_VERDICT_INCONCLUSIVE, .tweak = probe_no_sec,
	     .ev = { { BN_CEV_DATA_CONTACT, 0.001, 1 }, { BN_CEV_DATA_CONTACT, 0.25, 0 } }),
	CDPX("bc12.port.tvdmsrc_dis", "probe: held 35 ms, lines made through it", g_cdp_sticky, BN_VERDICT_FAIL,
	     .tweak = probe_no_sec, .ev = { { BN_CEV_DATA_CONTACT, 0.001, 1 }, { BN_CEV_DATA_CONTACT, 0.5, 0 } }),
	/* a CDP may hold VDM_SRC off for TCP_VDM_EN max (200 ms) after a
	 * device went away: primary detection 150 ms after a disconnect is
	 * owed no answer in TVDMSRC_EN, yet an answer in time still passes */
	CDPX("bc12.port.tvdmsrc_en", "answer after 30 ms, 150 ms after a disconnect", g_cdp_late,
	     BN_VERDICT_INCONCLUSIVE, .ev = { { BN_CEV_DISCONNECT, 0.05, 0 } }),
	CDPX("bc12.port.tvdmsrc_en", "never answered, 150 ms after a disconnect", g_cdp_mute,
	     BN_VERDICT_INCONCLUSIVE, .ev = { { BN_CEV_DISCONNECT, 0.05, 0 } }),
	CDPX("bc12.port.tvdmsrc_en", "answer after 5 ms, 150 ms after a disconnect", g_cdp_ok, BN_VERDICT_PASS,
	     .ev = { { BN_CEV_DISCONNECT, 0.05, 0 } }),
};

static void test_checks_port__cdp_contact(void **state)
{
	struct bn_result r = { 0 };

	(void)state;
	assert_int_equal(run_pcases(cdp_contact_cases, sizeof(cdp_contact_cases) / sizeof(cdp_contact_cases[0])), 0);
	run_pcase(&cdp_contact_cases[0], &r);
	assert_non_null(strstr(r.reason, "not in contact"));
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

/* ==== the port's output ==== */

/* A DCP behind a 0.1 ohm cable: the port's own VBUS is v0 - rs * I; a load
 * step dI moves it by -r_tr * dI relaxing with tau (undershoot on a step
 * up, overshoot on a release); at power-up it peaks pk above, relaxing in
 * 2 ms. The e-load's plan (its BN_CEV_LOAD events, LOADS below): 0 A at
 * 0.1 s, 0.25, 0.5, 0.75, 1 A every 0.3 s from 0.4 s, off at 1.6 s. */
struct pmodel {
	double v0, rs, r_tr, tau, pk;
	double off_t, off_v, back_t;  /* output off at off_t (after VBUS off_v just before), back at back_t */
	double fold_t, fold_v;        /* from fold_t until off_t, the port folds to fold_v */
	double step_t, step_a;        /* an extra load step (to step_a at step_t; 0: none) */
	double rs_off_t, rs_off_dur;  /* an unloaded restart: off for rs_off_dur from rs_off_t */
};

#define CABLE_OHM 0.1

static double load_at(const struct pmodel *m, double t, double *t_step, double *di)
{
	static const double ts[] = { 0.1, 0.4, 0.7, 1.0, 1.3, 1.6 };
	static const double ia[] = { 0.0, 0.25, 0.5, 0.75, 1.0, 0.0 };
	double i = 0, prev = 0;

	*t_step = -1;
	*di = 0;
	for (int k = 0; k < 6; k++)
		if (t >= ts[k]) {
			prev = i;
			i = ia[k];
			*t_step = ts[k];
			*di = i - prev;
		}
	if (m->step_a > 0 && t >= m->step_t) {
		*di = m->step_a - i;
		*t_step = m->step_t;
		i = m->step_a;
	}
	return i;
}

static void out_model(double t, struct bn_sample *s, const struct pmodel *m)
{
	double ts, di, i = load_at(m, t, &ts, &di), v;

	v = m->v0 - m->rs * i + m->pk * exp(-t / 0.002);
	if (ts >= 0 && m->tau > 0)
		v -= m->r_tr * di * exp(-(t - ts) / m->tau);
	if (m->fold_t > 0 && t >= m->fold_t)
		v = m->fold_v;
	if ((m->off_t > 0 && t >= m->off_t && (m->back_t <= 0 || t < m->back_t)) ||
	    (m->rs_off_t > 0 && t >= m->rs_off_t && t < m->rs_off_t + m->rs_off_dur)) {
		v = 0;
		i = 0;
	}
	s->v[BN_CH_VBUS] = v - i * CABLE_OHM;
	s->v[BN_CH_IBUS] = 0.0;  /* the bench's probe draws nothing: the e-load is on the port's side */
	s->v[BN_CH_DP] = s->v[BN_CH_DM] = 0.0;
}

#define PM(name, ...) \
	static void name(double t, struct bn_sample *s) \
	{ \
		static const struct pmodel m = { .v0 = 5.05, .rs = 0.05, .r_tr = 0.4, .tau = 0.001, __VA_ARGS__ }; \
		out_model(t, s, &m); \
	}

#define PMX(name, ...) \
	static void name(double t, struct bn_sample *s) \
	{ \
		static const struct pmodel m = { __VA_ARGS__ }; \
		out_model(t, s, &m); \
	}

PM(g_out_ok)
PMX(g_out_low, .v0 = 5.0, .rs = 0.4, .r_tr = 0.4, .tau = 0.001)                 /* 4.6 V at 1 A */
PMX(g_out_high, .v0 = 5.45, .rs = 0.05, .r_tr = 0.4, .tau = 0.001)              /* 5.4 V */
PMX(g_out_ovr, .v0 = 5.05, .rs = 0.05, .r_tr = 1.4, .tau = 0.001)               /* 6.4 V on the release */
PMX(g_out_pwrup, .v0 = 5.05, .rs = 0.05, .r_tr = 0.4, .tau = 0.001, .pk = 1.3)  /* 6.35 V at power-up */
PMX(g_out_dip, .v0 = 5.05, .rs = 0.05, .r_tr = 8.0, .tau = 0.001)               /* 2 V dip on 0.25 A: 3.0 V */
PMX(g_out_slow, .v0 = 5.05, .rs = 0.05, .r_tr = 2.0, .tau = 0.025)              /* 0.5 V dip relaxing in 25 ms */
/* shuts down at 1.31 s (1 A, 4.95 V at the port), back at 1.5 s */
PM(g_out_shut, .off_t = 1.31, .back_t = 1.5)
/* the same, never back before the capture ends */
PM(g_out_shut_cut, .off_t = 1.31)
/* an extra step to 1.5 A at 1.45 s: folds to 1.5 V, off 8 ms later, back at 1.55 s (compliant) */
PM(g_out_fold_shut, .step_t = 1.45, .step_a = 1.5, .fold_t = 1.45, .fold_v = 1.5, .off_t = 1.458, .back_t = 1.55)
/* a DCP's auto mode: discharges and restarts once with no load (at 0.2 s for 50 ms) */
PM(g_out_restart, .rs_off_t = 0.2, .rs_off_dur = 0.05)

/* the 1 A step (within its 1 A rating) pulls it to 0 V at once until the release */
PM(g_out_fold_in_cap, .fold_t = 1.3, .fold_v = 0.0, .off_t = 1.3, .back_t = 1.6)

/* the 1 A step (within its rating) folds it to 3 V until the release:
 * below VCHG_UNDSHT min, as a tester's comparator sees it */
PM(g_out_fold3v, .fold_t = 1.3, .fold_v = 3.0, .off_t = 1.6, .back_t = 1.6)

/* the 1 A step pulls it down over 6 ms (its output capacitance), off until the release */
static void g_out_pulled(double t, struct bn_sample *s)
{
	g_out_ok(t, s);
	if (t >= 1.3 && t < 1.306)
		s->v[BN_CH_VBUS] = 4.9 * (1.306 - t) / 0.006;
	else if (t >= 1.306 && t < 1.6)
		s->v[BN_CH_VBUS] = 0.0;
}

/* ... shut down at 1.31 s, back after 125 s (TSHTDWN_REC max: 2 min) */
PM(g_out_shut_slow, .off_t = 1.31, .back_t = 126.31)

static void known_charger(struct bn_check_ctx *ctx)
{
	ctx->charger_name = "test-dcp";
	ctx->charger_rated_a = 1.0;
	ctx->cable_ohm = CABLE_OHM;
	ctx->cable_u_ohm = 0.002;
}

static void unrated_charger(struct bn_check_ctx *ctx)
{
	known_charger(ctx);
	ctx->charger_rated_a = 0;
}

static void half_amp_charger(struct bn_check_ctx *ctx)
{
	known_charger(ctx);
	ctx->charger_rated_a = 0.5;
}

static void unknown_cable(struct bn_check_ctx *ctx)
{
	known_charger(ctx);
	ctx->cable_ohm = NAN;
}

#define LOADS .ev = { { BN_CEV_LOAD, 0.1, 0.0 }, { BN_CEV_LOAD, 0.4, 0.25 }, { BN_CEV_LOAD, 0.7, 0.5 }, \
		      { BN_CEV_LOAD, 1.0, 0.75 }, { BN_CEV_LOAD, 1.3, 1.0 }, { BN_CEV_LOAD, 1.6, 0.0 } }
#define LOADS_X(t, a) .ev = { { BN_CEV_LOAD, 0.1, 0.0 }, { BN_CEV_LOAD, 0.4, 0.25 }, { BN_CEV_LOAD, 0.7, 0.5 }, \
		      { BN_CEV_LOAD, 1.0, 0.75 }, { BN_CEV_LOAD, 1.3, 1.0 }, { BN_CEV_LOAD, t, a }, \
		      { BN_CEV_LOAD, 1.6, 0.0 } }
#define OUT(r, n, g, v, ...) { .rule = r, .name = n, .port = BN_PORT_DCP, .gen = g, .dur_s = 1.9, .expect = v, \
			       .tweak = known_charger, LOADS, __VA_ARGS__ }
#define OUTT(r, n, g, v, tw, ...) { .rule = r, .name = n, .port = BN_PORT_DCP, .gen = g, .dur_s = 1.9, \
				    .expect = v, .tweak = tw, LOADS, __VA_ARGS__ }
#define LOAD_EV (BN_CEV_BIT(BN_CEV_LOAD))

static const struct pcase out_cases[] = {
	OUT("bc12.port.vchg", "reference", g_out_ok, BN_VERDICT_PASS),
	OUT("bc12.port.vchg", "4.6 V at 1 A", g_out_low, BN_VERDICT_FAIL),
	OUT("bc12.port.vchg", "5.4 V", g_out_high, BN_VERDICT_FAIL),
	OUTT("bc12.port.vchg", "4.6 V at 1 A, no rating: judged to IDCP min", g_out_low, BN_VERDICT_PASS,
	     unrated_charger),
	OUTT("bc12.port.vchg", "4.6 V at 1 A, rated 0.5 A", g_out_low, BN_VERDICT_PASS, half_amp_charger),
	OUTT("bc12.port.vchg", "reference, cable unknown", g_out_ok, BN_VERDICT_INCONCLUSIVE, unknown_cable),
	OUTT("bc12.port.vchg", "5.4 V, cable unknown", g_out_high, BN_VERDICT_FAIL, unknown_cable),
	OUT("bc12.port.vchg", "no ibus channel", g_out_low, BN_VERDICT_INCONCLUSIVE, NO_CH(BN_CH_IBUS)),
	OUT("bc12.port.vchg", "no load events", g_out_low, BN_VERDICT_INCONCLUSIVE, .drop_events = LOAD_EV),
	OUT("bc12.port.vchg", "an unloaded restart", g_out_restart, BN_VERDICT_PASS),
	OUT("bc12.port.vchg", "realistic: reference", g_out_ok, BN_VERDICT_PASS, REAL),
	OUT("bc12.port.vchg", "realistic: 4.6 V at 1 A", g_out_low, BN_VERDICT_FAIL, REAL),
	OUT("bc12.port.vchg", "realistic: an unloaded restart", g_out_restart, BN_VERDICT_PASS, REAL),
	OUT("bc12.port.vchg", "pulled to 0 V by the 1 A step", g_out_fold_in_cap, BN_VERDICT_FAIL),
	OUT("bc12.port.vchg", "pulled down over 6 ms by the 1 A step", g_out_pulled, BN_VERDICT_FAIL),
	OUT("bc12.port.vchg", "shut down at 1 A (the shutdown rule's)", g_out_shut, BN_VERDICT_PASS),
	OUT("bc12.port.vchg", "realistic: shut down at 1 A", g_out_shut, BN_VERDICT_PASS, REAL),

	OUT("bc12.port.overshoot", "reference", g_out_ok, BN_VERDICT_PASS),
	OUT("bc12.port.overshoot", "6.4 V on the release", g_out_ovr, BN_VERDICT_FAIL),
	OUT("bc12.port.overshoot", "6.35 V at power-up", g_out_pwrup, BN_VERDICT_FAIL),
	OUTT("bc12.port.overshoot", "6.4 V, cable unknown", g_out_ovr, BN_VERDICT_FAIL, unknown_cable),
	OUT("bc12.port.overshoot", "no vbus channel", g_out_ovr, BN_VERDICT_INCONCLUSIVE, NO_CH(BN_CH_VBUS)),
	OUT("bc12.port.overshoot", "realistic: reference", g_out_ok, BN_VERDICT_PASS, REAL),
	OUT("bc12.port.overshoot", "realistic: an unloaded restart", g_out_restart, BN_VERDICT_PASS, REAL),
	OUT("bc12.port.overshoot", "realistic: 6.4 V on the release", g_out_ovr, BN_VERDICT_FAIL, REAL),

	OUT("bc12.port.undershoot", "reference", g_out_ok, BN_VERDICT_PASS),
	OUT("bc12.port.undershoot", "3.0 V dip", g_out_dip, BN_VERDICT_FAIL),
	OUT("bc12.port.undershoot", "out of VCHG for 17 ms", g_out_slow, BN_VERDICT_FAIL),
	OUT("bc12.port.undershoot", "shut down under load", g_out_shut, BN_VERDICT_PASS),
	OUT("bc12.port.undershoot", "weak port (4.6 V at 1 A: never in VCHG, above VCHG_UNDSHT)", g_out_low,
	    BN_VERDICT_PASS),
	OUT("bc12.port.undershoot", "pulled to 0 V by the 1 A step", g_out_fold_in_cap, BN_VERDICT_PASS),
	OUT("bc12.port.undershoot", "folds to 3 V at the 1 A step", g_out_fold3v, BN_VERDICT_FAIL),
	OUT("bc12.port.undershoot", "no load events", g_out_dip, BN_VERDICT_INCONCLUSIVE, .drop_events = LOAD_EV),
	OUT("bc12.port.undershoot", "realistic: reference", g_out_ok, BN_VERDICT_PASS, REAL),
	OUT("bc12.port.undershoot", "realistic: 3.0 V dip", g_out_dip, BN_VERDICT_FAIL, REAL),
	OUT("bc12.port.undershoot", "realistic: out of VCHG for 17 ms", g_out_slow, BN_VERDICT_FAIL, REAL),

	OUT("bc12.port.shutdown", "reference", g_out_ok, BN_VERDICT_PASS),
	OUT("bc12.port.shutdown", "off at 1 A from 4.85 V", g_out_shut, BN_VERDICT_FAIL),
	{ .rule = "bc12.port.shutdown", .name = "folds to 1.5 V, then off", .port = BN_PORT_DCP, .gen = g_out_fold_shut,
	  .dur_s = 1.9, .expect = BN_VERDICT_PASS, .tweak = known_charger, LOADS_X(1.45, 1.5) },
	OUT("bc12.port.shutdown", "an unloaded restart", g_out_restart, BN_VERDICT_PASS),
	OUT("bc12.port.shutdown", "pulled to 0 V by the 1 A step", g_out_fold_in_cap, BN_VERDICT_PASS),
	OUT("bc12.port.shutdown", "pulled down over 6 ms by the 1 A step", g_out_pulled, BN_VERDICT_PASS),
	OUT("bc12.port.shutdown", "realistic: pulled down over 6 ms", g_out_pulled, BN_VERDICT_PASS, REAL),
	OUTT("bc12.port.shutdown", "off at 1 A, cable unknown", g_out_shut, BN_VERDICT_FAIL, unknown_cable),
	OUT("bc12.port.shutdown", "no session events", g_out_shut, BN_VERDICT_INCONCLUSIVE,
	    .drop_events = BN_CEV_BIT(BN_CEV_VBUS_ON) | BN_CEV_BIT(BN_CEV_VBUS_OFF)),
	OUT("bc12.port.shutdown", "realistic: reference", g_out_ok, BN_VERDICT_PASS, REAL),
	OUT("bc12.port.shutdown", "realistic: an unloaded restart", g_out_restart, BN_VERDICT_PASS, REAL),
	OUT("bc12.port.shutdown", "realistic: off at 1 A", g_out_shut, BN_VERDICT_FAIL, REAL),
	{ .rule = "bc12.port.shutdown", .name = "realistic: folds to 1.5 V, then off", .port = BN_PORT_DCP,
	  .gen = g_out_fold_shut, .dur_s = 1.9, .expect = BN_VERDICT_PASS, .tweak = known_charger, LOADS_X(1.45, 1.5),
	  REAL },

	OUT("bc12.port.recovery", "back after 0.19 s", g_out_shut, BN_VERDICT_PASS),
	OUT("bc12.port.recovery", "not back when the capture ends", g_out_shut_cut, BN_VERDICT_INCONCLUSIVE),
	OUT("bc12.port.recovery", "never shut down", g_out_ok, BN_VERDICT_INCONCLUSIVE),
	OUT("bc12.port.recovery", "an unloaded restart", g_out_restart, BN_VERDICT_INCONCLUSIVE),
	{ .rule = "bc12.port.recovery", .name = "back after 125 s", .port = BN_PORT_DCP, .gen = g_out_shut_slow,
	  .dur_s = 127.0, .rate_hz = 1000.0, .expect = BN_VERDICT_FAIL, .tweak = known_charger, LOADS },
	{ .rule = "bc12.port.recovery", .name = "not back after 125 s", .port = BN_PORT_DCP, .gen = g_out_shut_cut,
	  .dur_s = 126.0, .rate_hz = 1000.0, .expect = BN_VERDICT_FAIL, .tweak = known_charger, LOADS },
	OUT("bc12.port.recovery", "realistic: back after 0.19 s", g_out_shut, BN_VERDICT_PASS, REAL),

	{ .rule = "bc12.port.vchg", .name = "on an SDP", .port = BN_PORT_SDP, .gen = g_out_low, .dur_s = 1.9,
	  .expect = BN_VERDICT_SKIPPED, .tweak = known_charger, LOADS },
	{ .rule = "bc12.port.vchg", .name = "on a CDP (cap ICDP min)", .port = BN_PORT_CDP, .gen = g_out_low,
	  .dur_s = 1.9, .expect = BN_VERDICT_FAIL, .tweak = unrated_charger, LOADS },
};

static void test_checks_port__output(void **state)
{
	(void)state;
	assert_int_equal(run_pcases(out_cases, sizeof(out_cases) / sizeof(out_cases[0])), 0);
}

/* The measured values are the generated ones: the port's voltage referred
 * back through the cable, the undershoot's time, VBUS before the shutdown. */
static void test_checks_port__output_values(void **state)
{
	const struct pcase low = OUT("bc12.port.vchg", "4.6 V at 1 A", g_out_low, BN_VERDICT_FAIL);
	const struct pcase slow = OUT("bc12.port.undershoot", "17 ms", g_out_slow, BN_VERDICT_FAIL);
	const struct pcase shut = OUT("bc12.port.shutdown", "off at 1 A", g_out_shut, BN_VERDICT_FAIL);
	const struct pcase ovr = OUT("bc12.port.overshoot", "6.4 V", g_out_ovr, BN_VERDICT_FAIL);
	struct bn_result r = { 0 };

	(void)state;
	assert_int_equal(run_pcase(&low, &r), BN_VERDICT_FAIL);
	assert_near(r.measured, 4.6, 1e-6);       /* 4.5 V at the receptacle + 1 A x 0.1 ohm */
	assert_string_equal(r.side, "port");
	assert_true(r.t0_us >= bn_time_from_s(1.3) && r.t1_us <= bn_time_from_s(1.6));
	assert_int_equal(run_pcase(&slow, &r), BN_VERDICT_FAIL);
	assert_near(r.measured, 0.025 * log(0.5 / (5.0 - 4.75)), 2e-4);
	assert_int_equal(run_pcase(&shut, &r), BN_VERDICT_FAIL);
	assert_near(r.measured, 5.0, 1e-4);
	assert_int_equal(run_pcase(&ovr, &r), BN_VERDICT_FAIL);
	assert_true(r.measured > 6.0 && r.measured < 5.05 + 1.4);
}

/* ---- a bound the port may not be at never fails it ---- */

/* VBUS at the receptacle 5.912 V for the 3 samples around the load step
 * at 1.3 s (0.75 -> 1 A): through the 0.1 ohm cable 5.987 V at the
 * current before it, 6.012 V at the one after. Which held is not known. */
static void g_out_spike_at_step(double t, struct bn_sample *s)
{
	g_out_ok(t, s);
	if (t >= 1.29975 && t < 1.30005)
		s->v[BN_CH_VBUS] = 5.912;
}

static void test_checks_port__output_bounds(void **state)
{
	static const struct pcase cases[] = {
		/* the receptacle's 3 V dip with the cable unknown: the port's own
		 * VBUS may be higher (it passes a low bound, no more) */
		OUTT("bc12.port.undershoot", "3.0 V dip, cable unknown", g_out_dip, BN_VERDICT_INCONCLUSIVE,
		     unknown_cable),
		OUTT("bc12.port.undershoot", "reference, cable unknown", g_out_ok, BN_VERDICT_PASS, unknown_cable),
		OUT("bc12.port.overshoot", "5.99-6.01 V across a load step", g_out_spike_at_step,
		    BN_VERDICT_INCONCLUSIVE),
	};
	struct bn_result r = { 0 };

	(void)state;
	assert_int_equal(run_pcases(cases, sizeof(cases) / sizeof(cases[0])), 0);
	run_pcase(&cases[2], &r);
	assert_non_null(strstr(r.reason, "may be on either side"));
	assert_near(r.measured, 5.912 + 0.1, 1e-6);
}

/* ---- more than 32 load steps and output-off episodes ---- */

#define MANY 40

/* A load toggling 0 <-> 0.25 A every 40 ms from 0.1 s (40 steps); the
 * 38th (up, at 1.58 s) dips VBUS to 3.0 V for 2 ms. */
static double many_t(int k) { return 0.1 + 0.04 * k; }

static void g_many_steps(double t, struct bn_sample *s)
{
	double i = 0;

	for (int k = 0; k < MANY; k++)
		if (t >= many_t(k))
			i = k % 2 ? 0.25 : 0.0;
	s->v[BN_CH_VBUS] = 5.0 - 0.05 * i - i * CABLE_OHM;
	if (t >= many_t(37) && t < many_t(37) + 0.002)
		s->v[BN_CH_VBUS] = 3.0;
	s->v[BN_CH_IBUS] = 0.0;
	s->v[BN_CH_DP] = s->v[BN_CH_DM] = 0.0;
}

/* 34 restarts with no load (off 10 ms every 40 ms from 0.05 s), then a
 * 1 A load at 1.45 s and a shutdown from 4.85 V at 1.6 s, back at 1.7 s. */
static void g_many_restarts(double t, struct bn_sample *s)
{
	double i = t >= 1.45 && t < 1.75 ? 1.0 : 0.0, v = 5.0 - 0.05 * i;

	for (int k = 0; k < 34; k++)
		if (t >= 0.05 + 0.04 * k && t < 0.06 + 0.04 * k)
			v = 0;
	if (t >= 1.6 && t < 1.7) {
		v = 0;
		i = 0;
	}
	s->v[BN_CH_VBUS] = v - i * CABLE_OHM;
	s->v[BN_CH_IBUS] = 0.0;
	s->v[BN_CH_DP] = s->v[BN_CH_DM] = 0.0;
}

static void test_checks_port__output_many(void **state)
{
	struct pcase und = { .rule = "bc12.port.undershoot", .name = "a dip on the 38th step", .port = BN_PORT_DCP,
			     .gen = g_many_steps, .dur_s = 1.9, .expect = BN_VERDICT_FAIL, .tweak = known_charger };
	struct pcase sh = { .rule = "bc12.port.shutdown", .name = "shut down after 34 restarts", .port = BN_PORT_DCP,
			    .gen = g_many_restarts, .dur_s = 1.9, .expect = BN_VERDICT_FAIL, .tweak = known_charger,
			    .ev = { { BN_CEV_LOAD, 0.01, 0.0 }, { BN_CEV_LOAD, 1.45, 1.0 }, { BN_CEV_LOAD, 1.75, 0.0 } } };
	struct pcase rec = sh;
	struct bn_result r = { 0 };

	(void)state;
	for (int k = 0; k < MANY; k++)
		und.ev[k] = (struct pev){ BN_CEV_LOAD, many_t(k), k % 2 ? 0.25 : 0.0 };
	assert_int_equal(run_pcase(&und, &r), BN_VERDICT_FAIL);
	assert_near(r.measured, 3.0 + 0.25 * CABLE_OHM, 1e-6);
	assert_int_equal(run_pcase(&sh, &r), BN_VERDICT_FAIL);
	assert_near(r.measured, 4.95, 1e-4);
	rec.rule = "bc12.port.recovery";
	rec.expect = BN_VERDICT_PASS;
	assert_int_equal(run_pcase(&rec, &r), BN_VERDICT_PASS);
	assert_near(r.measured, 0.1, 2e-3);
}

/* ---- the shutdown compares the port's voltages ---- */

/* Two folds then off: 1.95 V at the receptacle drawing 1 A (2.05 V at the
 * port), then 1.98 V drawing 50 mA (1.985 V at the port). The first is
 * above VDCP_SHTDWN max 2 V; the second's receptacle VBUS is higher. */
static void g_two_shutdowns(double t, struct bn_sample *s)
{
	double v = 5.0;

	if (t >= 0.2 && t < 0.25)
		v = 1.95;
	else if (t >= 0.25 && t < 0.35)
		v = 0.0;
	else if (t >= 0.5 && t < 0.55)
		v = 1.98;
	else if (t >= 0.55 && t < 0.65)
		v = 0.0;
	s->v[BN_CH_VBUS] = v;
	s->v[BN_CH_IBUS] = 0.0;
	s->v[BN_CH_DP] = s->v[BN_CH_DM] = 0.0;
}

static void test_checks_port__shutdown_port_voltage(void **state)
{
	const struct pcase pc = { .rule = "bc12.port.shutdown", .name = "two shutdowns", .port = BN_PORT_DCP,
				  .gen = g_two_shutdowns, .dur_s = 0.9, .expect = BN_VERDICT_FAIL,
				  .tweak = known_charger,
				  .ev = { { BN_CEV_LOAD, 0.2, 1.0 }, { BN_CEV_LOAD, 0.3, 0.0 }, { BN_CEV_LOAD, 0.5, 0.05 },
					  { BN_CEV_LOAD, 0.6, 0.0 } } };
	struct bn_result r = { 0 };

	(void)state;
	assert_int_equal(run_pcase(&pc, &r), BN_VERDICT_FAIL);
	assert_near(r.measured, 1.95 + 1.0 * CABLE_OHM, 1e-6);
}

/* ---- the overshoot's reach: from the bench's VBUS on ---- */

/* A port that never reaches VOTG_SESS_VLD max (3.5 V) but spikes to 6.5 V
 * for 1 ms at 0.5 s: judged all the same (the rule does not wait for VBUS
 * measured up, or a power-up overshoot would be missed). */
static void g_out_low_spike(double t, struct bn_sample *s)
{
	g_out_ok(t, s);
	s->v[BN_CH_VBUS] = t >= 0.5 && t < 0.501 ? 6.5 : 3.5;
}

static void test_checks_port__overshoot_from_vbus_on(void **state)
{
	const struct pcase spike = OUT("bc12.port.overshoot", "6.5 V spike, never up", g_out_low_spike, BN_VERDICT_FAIL);
	const struct pcase brief = { .rule = "bc12.port.overshoot", .name = "VBUS applied for 2 samples",
				     .port = BN_PORT_DCP, .gen = g_out_ok, .dur_s = 0.1, .expect = BN_VERDICT_INCONCLUSIVE,
				     .tweak = known_charger, .ev = { { BN_CEV_VBUS_OFF, 0.00015, 0 } } };
	struct bn_result r = { 0 };

	(void)state;
	assert_int_equal(run_pcase(&spike, &r), BN_VERDICT_FAIL);
	assert_int_equal(run_pcase(&brief, &r), BN_VERDICT_INCONCLUSIVE);
	assert_non_null(strstr(r.reason, "never applied VBUS for 3 samples"));
}

/* ==== the DCP's data lines ==== */

/* The bench's probe on a DCP (its telemetry "state" as events, below):
 * idle 0-50 ms, data contact (IDP_SRC 10 uA into D+, RDM_DWN 19.5 kohm on
 * D-) 50-70 ms, primary (VDP_SRC 0.6 V on D+, IDM_SINK 100 uA from D-)
 * 70-170 ms, release, secondary (VDM_SRC on D-, IDP_SINK 100 uA from D+)
 * 270-320 ms, done. The port: a short r_short between the lines, both
 * together leaking to v_th through r_th. */
struct lmodel {
	double r_short, v_th, r_th;
};

#define I_SRC 10e-6
#define R_DWN 19.5e3
#define I_SINK 100e-6

static void lines_model(double t, struct bn_sample *s, const struct lmodel *m)
{
	double dp = m->v_th, dm;

	if (t >= 0.05 && t < 0.07)
		dp = (m->v_th / m->r_th + I_SRC) / (1.0 / m->r_th + 1.0 / R_DWN);
	dm = dp;
	if (t >= 0.07 && t < 0.17) {
		dp = 0.6;
		dm = 0.6 - (I_SINK + 0.6 / m->r_th) * m->r_short;
	}
	if (t >= 0.27 && t < 0.32) {
		dm = 0.6;
		dp = 0.6 - I_SINK * m->r_short;
	}
	s->v[BN_CH_VBUS] = 5.0;
	s->v[BN_CH_IBUS] = 0.0;
	s->v[BN_CH_DP] = dp;
	s->v[BN_CH_DM] = dm;
}

#define LM(name, ...) \
	static void name(double t, struct bn_sample *s) \
	{ \
		static const struct lmodel m = { __VA_ARGS__ }; \
		lines_model(t, s, &m); \
	}

LM(g_dcp_ok, .r_short = 125, .v_th = 0, .r_th = 500e3)
LM(g_dcp_short_300, .r_short = 300, .v_th = 0, .r_th = 500e3)
LM(g_dcp_short_1k5, .r_short = 1500, .v_th = 0, .r_th = 500e3)
LM(g_dcp_leaky, .r_short = 125, .v_th = 2.0 * 300.0 / 450.0, .r_th = 50e3)  /* 2 V through 150k, 300k to ground, each line */
LM(g_dcp_lkg_high, .r_short = 125, .v_th = 4.0, .r_th = 1e6)              /* the lines idle at 4 V */

static void probe_dcp(struct bn_check_ctx *ctx)
{
	ctx->probe.present = true;
	ctx->probe.idp_src_a = I_SRC;
	ctx->probe.vdp_src_v = 0.6;
	ctx->probe.idm_sink_a = I_SINK;
	ctx->probe.vdm_src_v = 0.6;
	ctx->probe.idp_sink_a = I_SINK;
	ctx->probe.rdm_dwn_ohm = R_DWN;
	ctx->probe.i_u_rel = 0.005;
	ctx->probe.sec_after_s = 0.1;
}

#define PROBE_STATES .ev = { { BN_CEV_TELEMETRY, 1e-6, 0 }, { BN_CEV_TELEMETRY, 0.05, 1 }, \
			     { BN_CEV_TELEMETRY, 0.07, 2 }, { BN_CEV_TELEMETRY, 0.17, 3 }, \
			     { BN_CEV_TELEMETRY, 0.27, 4 }, { BN_CEV_TELEMETRY, 0.32, 5 } }
#define LN(r, n, g, v, ...) { .rule = r, .name = n, .port = BN_PORT_DCP, .gen = g, .dur_s = 0.5, .expect = v, \
			      .tweak = probe_dcp, PROBE_STATES, __VA_ARGS__ }
#define LND(r, n, g, v, ...) { .rule = r, .name = n, .port = BN_PORT_DCP, .gen = g, .dur_s = 0.5, .expect = v, \
			       PROBE_STATES, __VA_ARGS__ }
#define TEL_EV BN_CEV_BIT(BN_CEV_TELEMETRY)

static const struct pcase line_cases[] = {
	LN("bc12.port.rdcp_dat", "125 ohm", g_dcp_ok, BN_VERDICT_PASS),
	LN("bc12.port.rdcp_dat", "300 ohm", g_dcp_short_300, BN_VERDICT_FAIL),
	LN("bc12.port.rdcp_dat", "realistic: 125 ohm", g_dcp_ok, BN_VERDICT_PASS, REAL),
	LN("bc12.port.rdcp_dat", "realistic: 300 ohm", g_dcp_short_300, BN_VERDICT_FAIL, REAL),
	LN("bc12.port.rdcp_dat", "realistic: leaky lines, 125 ohm", g_dcp_leaky, BN_VERDICT_PASS, REAL),
	LN("bc12.port.rdcp_dat", "no dm channel", g_dcp_short_300, BN_VERDICT_INCONCLUSIVE, NO_CH(BN_CH_DM)),
	LND("bc12.port.rdcp_dat", "device run: 125 ohm", g_dcp_ok, BN_VERDICT_INCONCLUSIVE),
	LND("bc12.port.rdcp_dat", "device run: 300 ohm", g_dcp_short_300, BN_VERDICT_INCONCLUSIVE),
	LND("bc12.port.rdcp_dat", "device run: 1.5 kohm", g_dcp_short_1k5, BN_VERDICT_FAIL),

	LN("bc12.port.leakage", "500 kohm to ground", g_dcp_ok, BN_VERDICT_PASS),
	LN("bc12.port.leakage", "150 kohm to 2 V", g_dcp_leaky, BN_VERDICT_FAIL),
	LN("bc12.port.leakage", "idle at 4 V", g_dcp_lkg_high, BN_VERDICT_FAIL),
	LN("bc12.port.leakage", "realistic: 500 kohm to ground", g_dcp_ok, BN_VERDICT_PASS, REAL),
	LN("bc12.port.leakage", "realistic: 150 kohm to 2 V", g_dcp_leaky, BN_VERDICT_FAIL, REAL),
	LN("bc12.port.leakage", "realistic: 300 ohm short", g_dcp_short_300, BN_VERDICT_PASS, REAL),
	LND("bc12.port.leakage", "device run", g_dcp_leaky, BN_VERDICT_INCONCLUSIVE),
	LN("bc12.port.leakage", "no probe states", g_dcp_leaky, BN_VERDICT_INCONCLUSIVE, .drop_events = TEL_EV),
	LN("bc12.port.leakage", "no dp channel", g_dcp_leaky, BN_VERDICT_INCONCLUSIVE, NO_CH(BN_CH_DP)),
	{ .rule = "bc12.port.leakage", .name = "on a CDP", .port = BN_PORT_CDP, .gen = g_dcp_leaky, .dur_s = 0.5,
	  .expect = BN_VERDICT_SKIPPED, .tweak = probe_dcp, PROBE_STATES },
};

static void test_checks_port__lines(void **state)
{
	(void)state;
	assert_int_equal(run_pcases(line_cases, sizeof(line_cases) / sizeof(line_cases[0])), 0);
}

/* Primary detection begun on lines not yet made: D- at 0 V, the short not
 * across them, until they touch at 0.1 s (the cases' contact event). */
static void g_dcp_open(double t, struct bn_sample *s)
{
	g_dcp_ok(t, s);
	if (t < 0.1)
		s->v[BN_CH_DM] = 0.0;
}

#define PROBE_STATES_CT(...) .ev = { { BN_CEV_TELEMETRY, 1e-6, 0 }, { BN_CEV_TELEMETRY, 0.05, 1 }, \
				     { BN_CEV_TELEMETRY, 0.07, 2 }, { BN_CEV_TELEMETRY, 0.17, 3 }, \
				     { BN_CEV_TELEMETRY, 0.27, 4 }, { BN_CEV_TELEMETRY, 0.32, 5 }, __VA_ARGS__ }
#define LNC(r, n, g, v, ...) { .rule = r, .name = n, .port = BN_PORT_DCP, .gen = g, .dur_s = 0.5, .expect = v, \
			       .tweak = probe_dcp, PROBE_STATES_CT(__VA_ARGS__) }
#define LNDC(r, n, g, v, ...) { .rule = r, .name = n, .port = BN_PORT_DCP, .gen = g, .dur_s = 0.5, .expect = v, \
				PROBE_STATES_CT(__VA_ARGS__) }

static const struct pcase line_contact_cases[] = {
	LNC("bc12.port.rdcp_dat", "lines made 30 ms into primary", g_dcp_open, BN_VERDICT_INCONCLUSIVE,
	    { BN_CEV_DATA_CONTACT, 0.1, 1 }),
	LNDC("bc12.port.rdcp_dat", "device run: lines made 30 ms into primary", g_dcp_open, BN_VERDICT_INCONCLUSIVE,
	     { BN_CEV_DATA_CONTACT, 0.1, 1 }),
	LNC("bc12.port.rdcp_dat", "lines never made", g_dcp_short_300, BN_VERDICT_INCONCLUSIVE,
	    { BN_CEV_DATA_CONTACT, 0.45, 1 }),
	LNC("bc12.port.rdcp_dat", "300 ohm, a bounce in primary", g_dcp_short_300, BN_VERDICT_INCONCLUSIVE,
	    { BN_CEV_DATA_CONTACT, 0.001, 1 }, { BN_CEV_DATA_CONTACT, 0.1, 0 }, { BN_CEV_DATA_CONTACT, 0.1005, 1 }),
	LNC("bc12.port.rdcp_dat", "300 ohm, made before primary", g_dcp_short_300, BN_VERDICT_FAIL,
	    { BN_CEV_DATA_CONTACT, 0.001, 1 }),
	LN("bc12.port.rdcp_dat", "no contact events: 300 ohm", g_dcp_short_300, BN_VERDICT_INCONCLUSIVE,
	   .drop_events = CT_EV),
	LN("bc12.port.rdcp_dat", "no contact events: 125 ohm", g_dcp_ok, BN_VERDICT_PASS, .drop_events = CT_EV),
	LNC("bc12.port.leakage", "150 kohm to 2 V, lines made in data contact", g_dcp_leaky, BN_VERDICT_INCONCLUSIVE,
	    { BN_CEV_DATA_CONTACT, 0.052, 1 }),
	LNC("bc12.port.leakage", "150 kohm to 2 V, lines open in data contact", g_dcp_leaky, BN_VERDICT_INCONCLUSIVE,
	    { BN_CEV_DATA_CONTACT, 0.001, 1 }, { BN_CEV_DATA_CONTACT, 0.05, 0 }),
	LNC("bc12.port.leakage", "150 kohm to 2 V, made throughout", g_dcp_leaky, BN_VERDICT_FAIL,
	    { BN_CEV_DATA_CONTACT, 0.001, 1 }),
};

static void test_checks_port__lines_contact(void **state)
{
	struct bn_result r = { 0 };

	(void)state;
	assert_int_equal(run_pcases(line_contact_cases, sizeof(line_contact_cases) / sizeof(line_contact_cases[0])),
			 0);
	run_pcase(&line_contact_cases[0], &r);
	assert_non_null(strstr(r.reason, "not in contact"));
}

/* A short just under RDCP_DAT max measured with the probe's own sink: the
 * current through it is known only to 100 uA -0.5 %..+2.4 % (the sink's
 * accuracy, and what D- may leak), so 195-202 ohm straddles 200 ohm: not
 * a fail on the top of the range. */
LM(g_dcp_short_198, .r_short = 198, .v_th = 0, .r_th = 500e3)

/* The lines take no current that can be told from zero (D+ at IDP_SRC x
 * RDM_DWN in data contact), their voltage moves by 1.2 V, with a D+ gain
 * known only to 30 %: the move may be 0.78-1.62 V, over at most 3.5 uA
 * their resistance is at least 226 kohm, not the 465 kohm that adding the
 * move's uncertainty gives. */
static void g_lkg_no_current(double t, struct bn_sample *s)
{
	g_dcp_ok(t, s);
	if (t < 0.05)
		s->v[BN_CH_DP] = s->v[BN_CH_DM] = 1.395;
	else if (t < 0.07)
		s->v[BN_CH_DP] = s->v[BN_CH_DM] = I_SRC * R_DWN;
}

static void probe_dcp_dp_gain(struct bn_check_ctx *ctx)
{
	probe_dcp(ctx);
	ctx->meas[BN_CH_DP].gain = 0.3;  /* known to the rule, not applied to the samples (ideal source) */
}

static void test_checks_port__lines_bounds(void **state)
{
	const struct pcase sh = LN("bc12.port.rdcp_dat", "198 ohm", g_dcp_short_198, BN_VERDICT_INCONCLUSIVE);
	const struct pcase lk = { .rule = "bc12.port.leakage", .name = "no current", .port = BN_PORT_DCP,
				  .gen = g_lkg_no_current, .dur_s = 0.5, .expect = BN_VERDICT_INCONCLUSIVE,
				  .tweak = probe_dcp_dp_gain, PROBE_STATES };
	struct bn_result r = { 0 };

	(void)state;
	assert_int_equal(run_pcase(&lk, &r), BN_VERDICT_INCONCLUSIVE);
	assert_true(r.measured > 200e3 && r.measured < 250e3);
	/* the range, not its top judged as if it were the value */
	r = (struct bn_result){ 0 };
	assert_int_equal(run_pcase(&sh, &r), BN_VERDICT_INCONCLUSIVE);
	assert_false(r.has_margin);
	assert_near(r.measured, 198.0 * 101.2 / 99.0, 0.05);
	assert_non_null(strstr(r.reason, "the short measures 195-202 ohm"));
}

/* The short and the leakage measured are the generated ones. */
static void test_checks_port__lines_values(void **state)
{
	const struct pcase sh = LN("bc12.port.rdcp_dat", "300 ohm", g_dcp_short_300, BN_VERDICT_FAIL);
	const struct pcase ok = LN("bc12.port.leakage", "500 kohm", g_dcp_ok, BN_VERDICT_PASS);
	const struct pcase lk = LN("bc12.port.leakage", "leaky", g_dcp_leaky, BN_VERDICT_FAIL);
	struct bn_result r = { 0 };

	(void)state;
	assert_int_equal(run_pcase(&sh, &r), BN_VERDICT_FAIL);
	/* the lower bound: 300 ohm x 100 uA over 100 uA + the leakage allowed to D- */
	assert_true(r.measured > 290 && r.measured <= 300);
	assert_int_equal(run_pcase(&ok, &r), BN_VERDICT_PASS);
	assert_near(r.measured, 500e3, 1e3);
	assert_int_equal(run_pcase(&lk, &r), BN_VERDICT_FAIL);
	assert_near(r.measured, 2 * 50e3, 1e3);   /* twice both lines together */
}

/* ==== the rating ==== */

static void rated_0a4(struct bn_check_ctx *ctx)
{
	known_charger(ctx);
	ctx->charger_rated_a = 0.4;
}

static void rated_1a5(struct bn_check_ctx *ctx)
{
	known_charger(ctx);
	ctx->charger_rated_a = 1.5;
}

static void no_charger(struct bn_check_ctx *ctx)
{
	ctx->charger_name = NULL;
	ctx->charger_rated_a = 2.0; /* not known without its charger: ignored */
}

#define RT(n, port_, tw, v) { .rule = "bc12.port.rating", .name = n, .port = port_, .gen = g_out_ok, .dur_s = 0.1, \
			      .expect = v, .tweak = tw }

static const struct pcase rating_cases[] = {
	RT("DCP rated 1 A", BN_PORT_DCP, known_charger, BN_VERDICT_PASS),
	RT("DCP rated 0.4 A", BN_PORT_DCP, rated_0a4, BN_VERDICT_FAIL),
	RT("DCP, no rating", BN_PORT_DCP, unrated_charger, BN_VERDICT_INCONCLUSIVE),
	RT("DCP, no charger", BN_PORT_DCP, no_charger, BN_VERDICT_INCONCLUSIVE),
	RT("CDP rated 1 A", BN_PORT_CDP, known_charger, BN_VERDICT_FAIL),
	RT("CDP rated 1.5 A", BN_PORT_CDP, rated_1a5, BN_VERDICT_PASS),
	RT("SDP", BN_PORT_SDP, known_charger, BN_VERDICT_SKIPPED),
};

static void test_checks_port__rating(void **state)
{
	const struct pcase cdp = RT("CDP rated 1 A", BN_PORT_CDP, known_charger, BN_VERDICT_FAIL);
	struct bn_result r = { 0 };

	(void)state;
	assert_int_equal(run_pcases(rating_cases, sizeof(rating_cases) / sizeof(rating_cases[0])), 0);
	assert_int_equal(run_pcase(&cdp, &r), BN_VERDICT_FAIL);
	assert_string_equal(r.limit, "ICDP");
	assert_near(r.limit_min, 1.5, 1e-12);
	assert_near(r.margin, -0.5, 1e-12);
	assert_false(r.has_u);
}

/* The compliant references under realistic measurement, noise drawn 16
 * ways: no rule ever fails them (the guarded decision widens nothing it
 * should not), and most pass. */
static void test_checks_port__compliant_never_fails_under_noise(void **state)
{
	static const struct pcase refs[] = {
		OUT("bc12.port.vchg", "reference", g_out_ok, BN_VERDICT_PASS, REAL),
		OUT("bc12.port.overshoot", "reference", g_out_ok, BN_VERDICT_PASS, REAL),
		OUT("bc12.port.undershoot", "reference", g_out_ok, BN_VERDICT_PASS, REAL),
		OUT("bc12.port.shutdown", "reference", g_out_ok, BN_VERDICT_PASS, REAL),
		OUT("bc12.port.shutdown", "an unloaded restart", g_out_restart, BN_VERDICT_PASS, REAL),
		OUT("bc12.port.shutdown", "pulled down over 6 ms", g_out_pulled, BN_VERDICT_PASS, REAL),
		OUT("bc12.port.recovery", "back after 0.19 s", g_out_shut, BN_VERDICT_PASS, REAL),
		{ .rule = "bc12.port.shutdown", .name = "folds to 1.5 V, then off", .port = BN_PORT_DCP,
		  .gen = g_out_fold_shut, .dur_s = 1.9, .expect = BN_VERDICT_PASS, .tweak = known_charger,
		  LOADS_X(1.45, 1.5), REAL },
		LN("bc12.port.rdcp_dat", "125 ohm", g_dcp_ok, BN_VERDICT_PASS, REAL),
		LN("bc12.port.leakage", "500 kohm", g_dcp_ok, BN_VERDICT_PASS, REAL),
		CDPX("bc12.port.tvdmsrc_en", "5 ms", g_cdp_ok, BN_VERDICT_PASS, REAL),
		CDPX("bc12.port.tvdmsrc_dis", "3 ms", g_cdp_ok, BN_VERDICT_PASS, REAL, .tweak = probe_no_sec),
		CDPX("bc12.port.vdm_src", "0.6 V", g_cdp_ok, BN_VERDICT_PASS, REAL),
		CDPX("bc12.port.vdm_src", "0.6 V then secondary", g_cdp_ok_sec, BN_VERDICT_PASS, REAL),
	};
	int fails = 0, passes = 0, runs = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(refs) / sizeof(refs[0]); i++)
		for (unsigned seed = 1; seed <= 16; seed++) {
			struct pcase pc = refs[i];
			struct bn_result r = { 0 };
			enum bn_verdict v;

			pc.seed = seed;
			v = run_pcase(&pc, &r);
			runs++;
			passes += v == BN_VERDICT_PASS;
			if (v == BN_VERDICT_FAIL || v == BN_VERDICT_ERROR) {
				print_error("%s / %s, seed %u: %s (%s)\n", pc.rule, pc.name, seed, bn_verdict_name(v),
					    r.reason);
				fails++;
			}
		}
	assert_int_equal(fails, 0);
	assert_true(passes >= runs * 9 / 10);
}

/* With no memory for the results at the end every rule still reports:
 * an error saying why (a rule missing from the report reads as a pass). */
static void test_checks_port__end_out_of_memory(void **state)
{
	struct bn_check_ctx ctx;
	struct bn_checks *c = NULL;
	struct bn_err err = { 0 };
	struct bn_report rep;
	int errors = 0, skipped = 0;

	(void)state;
	ctx_init(&ctx, BN_PORT_DCP, BN_DECL_BATTERY, 10000.0);
	ctx.cable_ohm = NAN;
	ctx.charger_compliant = -1;
	assert_int_equal(bn_checks_new(&ctx, &c, &err), BN_OK);
	ev_at(c, BN_CEV_VBUS_ON, 0.0);
	for (long i = 0; i < 1000; i++) {
		struct bn_sample s = { { 0 } };

		g_out_ok((double)i / 10000.0, &s);
		bn_checks_sample(c, (bn_time_us)(i * 100), &s);
	}
	ev_at(c, BN_CEV_VBUS_OFF, 0.1);
	bn_report_init(&rep);
	calloc_fail_size = sizeof(struct bn_result);
	bn_checks_end(c, bn_time_from_s(0.1), &rep);
	assert_int_equal(calloc_fail_size, 0);  /* the engine asked, and was refused */
	assert_true(rep.n_results > 10);
	for (int k = 0; k < rep.n_results; k++) {
		errors += rep.results[k].verdict == BN_VERDICT_ERROR;
		skipped += rep.results[k].verdict == BN_VERDICT_SKIPPED;
		if (rep.results[k].verdict == BN_VERDICT_ERROR)
			assert_non_null(strstr(rep.results[k].reason, "out of memory"));
	}
	assert_int_equal(errors + skipped, rep.n_results);
	assert_true(errors > 0);
	bn_report_free(&rep);
	bn_checks_free(c);
}

/* replay --charger takes the profile's cable as the runner does: on a
 * record of the simulated bench, not on a real bench's (its own cable). */
static const struct bn_result *result_of(const struct bn_report *rep, const char *id)
{
	for (int i = 0; i < rep->n_results; i++)
		if (!strcmp(rep->results[i].id, id))
			return &rep->results[i];
	return NULL;
}

static void replay_with_backend(const char *dir, const char *backend, struct bn_report *rep)
{
	char cap[512], ev[512], path[512];
	struct bn_replay_opts o = { .datadir = bn_test_srcdir(), .charger = "dcp-1a" };
	struct bn_err err = { 0 };
	FILE *f;

	snprintf(path, sizeof(path), "%s/report.json", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "{\"bench\": {\"backend\": \"%s\"}}\n", backend);
	fclose(f);
	snprintf(cap, sizeof(cap), "%s/capture.sr", dir);
	snprintf(ev, sizeof(ev), "%s/events.json", dir);
	o.capture_path = cap;
	o.events_path = ev;
	bn_report_init(rep);
	if (bn_replay(&o, rep, &err) != BN_OK)
		fail_msg("replay: %s", err.msg);
}

static void test_checks_port__replay_charger_cable(void **state)
{
	char dir[64] = "/tmp/bn-portfix-XXXXXX", path[512], cmd[128];
	struct bn_run_opts o = { .datadir = bn_test_srcdir() };
	struct bn_err err = { 0 };
	struct bn_report live, sim, real;
	const struct bn_result *r;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/scripts/scenarios/port-dcp.scn", bn_test_srcdir());
	o.scenario_path = path;
	o.out_dir = dir;
	bn_report_init(&live);
	if (bn_run_scenario(&o, &live, &err) != BN_OK)
		fail_msg("port-dcp: %s", err.msg);
	r = result_of(&live, "bc12.port.vchg");
	assert_non_null(r);
	assert_int_equal(r->verdict, BN_VERDICT_PASS);
	replay_with_backend(dir, "sim", &sim);
	r = result_of(&sim, "bc12.port.vchg");
	assert_non_null(r);
	assert_int_equal(r->verdict, BN_VERDICT_PASS);
	replay_with_backend(dir, "real", &real);
	r = result_of(&real, "bc12.port.vchg");
	assert_non_null(r);
	/* the receptacle's VBUS under load is only a lower bound of the port's */
	assert_int_equal(r->verdict, BN_VERDICT_INCONCLUSIVE);
	assert_non_null(strstr(r->reason, "cable's resistance is not known"));
	bn_report_free(&live);
	bn_report_free(&sim);
	bn_report_free(&real);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* A run that ends before its first sample (a firmware that livelocks at
 * 0 s): every port rule ends without a block to close, says nothing it
 * did not see, and never reads a time of BN_TIME_NEVER (the last block's
 * close once overflowed it: caught by UBSan). */
static void test_checks_port__no_samples(void **state)
{
	(void)state;
	for (int i = 0; bn_rules_port[i]; i++) {
		const char *id = bn_rules_port[i]->id;
		bool cdp = !strncmp(id, "bc12.port.tvdmsrc", 17) || !strcmp(id, "bc12.port.vdm_src");
		struct pcase pc = { .rule = id, .name = "no samples", .port = cdp ? BN_PORT_CDP : BN_PORT_DCP,
				    .gen = g_cdp_ok, .dur_s = 0.0, .tweak = cdp ? probe_no_sec : probe_dcp };
		struct bn_result r = { 0 };
		enum bn_verdict v = run_pcase(&pc, &r);

		if (v != BN_VERDICT_INCONCLUSIVE)
			fail_msg("%s over no samples: %s (%s)", id, bn_verdict_name(v), r.reason);
	}
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_checks_port__cdp),
		cmocka_unit_test(test_checks_port__cdp_contact),
		cmocka_unit_test(test_checks_port__no_samples),
		cmocka_unit_test(test_checks_port__tvdmsrc_en_value),
		cmocka_unit_test(test_checks_port__output),
		cmocka_unit_test(test_checks_port__output_values),
		cmocka_unit_test(test_checks_port__output_bounds),
		cmocka_unit_test(test_checks_port__output_many),
		cmocka_unit_test(test_checks_port__shutdown_port_voltage),
		cmocka_unit_test(test_checks_port__overshoot_from_vbus_on),
		cmocka_unit_test(test_checks_port__lines),
		cmocka_unit_test(test_checks_port__lines_contact),
		cmocka_unit_test(test_checks_port__lines_bounds),
		cmocka_unit_test(test_checks_port__lines_values),
		cmocka_unit_test(test_checks_port__rating),
		cmocka_unit_test(test_checks_port__compliant_never_fails_under_noise),
		cmocka_unit_test(test_checks_port__end_out_of_memory),
		cmocka_unit_test(test_checks_port__replay_charger_cable),
	};

	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, bn_test_setup_limits, bn_test_teardown_limits);
}
