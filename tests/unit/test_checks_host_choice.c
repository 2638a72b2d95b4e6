/* Task 3 rules (bench/checks/host_choice.c) on synthetic streams: for each
 * rule a stream that passes, one that fails, and one with an input removed
 * (a channel, an event kind, or the rate) that must be inconclusive. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/harness.h"
#include "checks/check.h"
#include "report/report.h"

/* ---- a synthetic stream: events, a piecewise-constant IBUS and VBUS ---- */

#define MS(x) ((bn_time_us)((x) * 1000.0))

struct ev {
	double t_ms;
	enum bn_cev_kind kind;
	int value;
	double num;   /* CONNECT, SUSPEND, RESUME: a real host's window (bn_cev.win_s) */
};

static bool windowed(enum bn_cev_kind k)
{
	return k == BN_CEV_CONNECT || k == BN_CEV_SUSPEND || k == BN_CEV_RESUME;
}

struct seg {
	double from_ms;
	double amps;
};

struct vseg {
	double from_ms;
	double volts;
};

struct stream {
	const struct ev *ev;
	int n_ev;
	const struct seg *seg;  /* IBUS = amps of the last segment with from_ms <= t */
	int n_seg;
	double end_ms;
	/* VBUS the same way; NULL: 5 V from a VBUS_ON event to a VBUS_OFF */
	const struct vseg *vbus;
	int n_vbus;
	double dp_v;            /* D+ throughout */
	unsigned inferred;      /* BN_CEV_BIT()s of the kinds given as replay infers them */
};

/* The ordinary SDP session: VBUS at 0, detection draws nothing, connect at
 * 63 ms, 100 mA unconfigured, configuration 1 (500 mA) at 163 ms, suspend
 * 1.5-1.8 s at 2 mA (reached 5 ms after bus idle), VBUS off at 2 s. */
static const struct ev ev_session[] = {
	{ 0, BN_CEV_VBUS_ON, 0, 0 },
	{ 63, BN_CEV_CONNECT, 0, 0 },
	{ 163, BN_CEV_CONFIG, 1, 0.5 },
	{ 1500, BN_CEV_SUSPEND, 0, 0 },
	{ 1800, BN_CEV_RESUME, 0, 0 },
	{ 2000, BN_CEV_VBUS_OFF, 0, 0 },
	{ 2000, BN_CEV_DISCONNECT, 0, 0 },
};
static const struct seg seg_good[] = {
	{ 0, 0 }, { 63, 0.1 }, { 163, 0.5 }, { 1505, 0.002 }, { 1800, 0.5 }, { 2000, 0 },
};

/* A good product's session, with the reference firmware's margins (90 %
 * of IUNIT and of bMaxPower, 1 mA suspended): what realistic measurement
 * must pass. */
static const struct seg seg_product[] = {
	{ 0, 0 }, { 63, 0.09 }, { 163, 0.45 }, { 1500, 0.001 }, { 1800, 0.45 }, { 2000, 0 },
};

struct opts {
	enum bn_port_type port;
	double rate_hz;
	unsigned channels;
	unsigned events;
	unsigned decl;
	double dp_pulldown_ohm;
	const char *conditions;  /* profiles/conditions/NAME.json's measurement, or NULL: ideal */
	unsigned long long seed; /* of its noise (0: 1) */
	enum bn_acceptance acceptance;
	bool no_hold;
	const char *ibus_meas;   /* IBUS's measurement (core/meas.h text), over the conditions */
	double data_until_ms;    /* no samples from here on, events still (0: to the end) */
	double config_win_s;     /* a real host's window of a CONFIG to a configuration (> 0) */
};

static struct opts sdp(void)
{
	return (struct opts){
		.port = BN_PORT_SDP,
		.rate_hz = 2000,
		.channels = (1u << BN_CH_VBUS) | (1u << BN_CH_IBUS) | (1u << BN_CH_DP) | (1u << BN_CH_DM),
		/* a source that does not report data contact (the tests of a
		 * slow plug add it) */
		.events = BN_CEV_ALL & ~BN_CEV_BIT(BN_CEV_DATA_CONTACT),
		.dp_pulldown_ohm = 15000,
	};
}

/* The same at 10 kHz under realistic measurement (12-bit, 2 mA rms on
 * IBUS, 10 mV rms on VBUS, offsets and gain error). */
static struct opts sdp_real(void)
{
	struct opts o = sdp();

	o.rate_hz = 10000;
	o.conditions = "realistic";
	return o;
}

static double level_at(const struct seg *seg, int n, bn_time_us t, double dflt)
{
	double v = dflt;

	for (int g = 0; g < n && MS(seg[g].from_ms) <= t; g++)
		v = seg[g].amps;
	return v;
}

static double vbus_at(const struct vseg *vs, int n, bn_time_us t)
{
	double v = 0;

	for (int g = 0; g < n && MS(vs[g].from_ms) <= t; g++)
		v = vs[g].volts;
	return v;
}

/* Run every rule over the stream; return the named rule's result. */
static struct bn_result run(const struct opts *o, const struct stream *s, const char *id)
{
	struct bn_check_ctx ctx = {
		.lim = &bn_test_lim,
		.port = o->port,
		.port_name = bn_port_name(o->port),
		.dp_pulldown_ohm = o->dp_pulldown_ohm,
		.dm_pulldown_ohm = o->dp_pulldown_ohm,
		.decl = o->decl,
		.rate_hz = o->rate_hz,
		.channels = o->channels,
		.events = o->events,
		.acceptance = o->acceptance,
		.no_hold = o->no_hold,
	};
	struct bn_checks *c = NULL;
	struct bn_err err = { 0 };
	struct bn_report rep;
	struct bn_result out;
	struct bn_rng rng;
	bool vbus = false, found = false;
	int e = 0;
	bn_time_us dt = (bn_time_us)llround(1e6 / o->rate_hz), t;

	if (o->conditions)
		bn_test_ctx_conditions(&ctx, o->conditions);
	if (o->ibus_meas) {
		char why[200];

		bn_meas_ideal(&ctx.meas[BN_CH_IBUS]);
		assert_int_equal(bn_meas_parse(o->ibus_meas, BN_DIM_A, &ctx.meas[BN_CH_IBUS], why, sizeof(why)),
				 BN_OK);
		ctx.meas_src[BN_CH_IBUS] = BN_MEAS_SRC_SIM;
	}
	bn_rng_seed(&rng, o->seed ? o->seed : 1);
	assert_int_equal(bn_checks_new(&ctx, &c, &err), BN_OK);
	for (long k = 0; (t = k * dt) < MS(s->end_ms); k++) {
		struct bn_sample smp;

		while (e < s->n_ev && MS(s->ev[e].t_ms) <= t) {
			struct bn_cev ev = { .kind = s->ev[e].kind, .t_us = MS(s->ev[e].t_ms),
					     .value = s->ev[e].value, .num = windowed(s->ev[e].kind) ? 0 : s->ev[e].num,
					     .win_s = windowed(s->ev[e].kind) ? s->ev[e].num
						      : s->ev[e].kind == BN_CEV_CONFIG && s->ev[e].value > 0 ? o->config_win_s : 0,
					     .inferred = (s->inferred & BN_CEV_BIT(s->ev[e].kind)) != 0 };

			if (ev.kind == BN_CEV_VBUS_ON)
				vbus = true;
			if (ev.kind == BN_CEV_VBUS_OFF)
				vbus = false;
			bn_checks_event(c, &ev);
			e++;
		}
		smp.v[BN_CH_VBUS] = s->vbus ? vbus_at(s->vbus, s->n_vbus, t) : vbus ? 5.0 : 0.0;
		smp.v[BN_CH_IBUS] = level_at(s->seg, s->n_seg, t, 0.0);
		smp.v[BN_CH_DP] = s->dp_v;
		smp.v[BN_CH_DM] = 0.0;
		smp.v[BN_CH_ID] = NAN;
		bn_test_measure(&ctx, &rng, &smp);
		for (int ch = 0; ch < BN_CH_COUNT; ch++)
			if (!(o->channels & (1u << ch)))
				smp.v[ch] = NAN;
		if (o->data_until_ms <= 0 || t < MS(o->data_until_ms))
			bn_checks_sample(c, t, &smp);
	}
	bn_report_init(&rep);
	bn_checks_end(c, MS(s->end_ms), &rep);
	for (int i = 0; i < rep.n_results; i++)
		if (!strcmp(rep.results[i].id, id)) {
			out = rep.results[i];
			found = true;
		}
	bn_report_free(&rep);
	bn_checks_free(c);
	if (!found)
		fail_msg("no result %s", id);
	return out;
}

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))
#define STREAM(evs, segs) \
	((struct stream){ .ev = evs, .n_ev = N(evs), .seg = segs, .n_seg = N(segs), .end_ms = 2100 })

static void expect_verdict(const struct bn_result *r, enum bn_verdict v)
{
	if (r->verdict != v)
		fail_msg("%s: %s, expected %s (%s)", r->id, bn_verdict_name(r->verdict), bn_verdict_name(v),
			 r->reason);
}

static void expect_inconclusive(const struct bn_result *r)
{
	expect_verdict(r, BN_VERDICT_INCONCLUSIVE);
	assert_true(r->reason[0] != '\0');
}

static void expect_reason(const struct bn_result *r, const char *part)
{
	if (!strstr(r->reason, part))
		fail_msg("%s: reason \"%s\" lacks \"%s\"", r->id, r->reason, part);
}

/* Judged with U, by the decision rule: a pass is inside by more than U,
 * a fail outside by more than U. */
static void expect_judged(const struct bn_result *r, enum bn_verdict v)
{
	expect_verdict(r, v);
	assert_true(r->has_u && r->u > 0);
	if (v == BN_VERDICT_PASS && !(r->margin > r->u))
		fail_msg("%s: passes with margin %g inside U %g", r->id, r->margin, r->u);
	if (v == BN_VERDICT_FAIL && !(r->margin < -r->u))
		fail_msg("%s: fails with margin %g inside U %g", r->id, r->margin, r->u);
}

/* Inconclusive "within measurement uncertainty", on the side of the limit
 * given (inside: margin >= 0). */
static void expect_within_u(const struct bn_result *r, bool inside)
{
	expect_verdict(r, BN_VERDICT_INCONCLUSIVE);
	expect_reason(r, "within measurement uncertainty");
	assert_true(r->has_u && fabs(r->margin) <= r->u);
	if (inside != (r->margin >= 0))
		fail_msg("%s: margin %g, expected %s the limit", r->id, r->margin, inside ? "inside" : "outside");
}

/* ---- bc12.host.unconnected_isusp ---- */

static void test_checks_host_choice__unconnected_pass(void **state)
{
	struct opts o = sdp();
	struct stream s = STREAM(ev_session, seg_good);
	struct bn_result r = run(&o, &s, "bc12.host.unconnected_isusp");

	(void)state;
	expect_verdict(&r, BN_VERDICT_PASS);
	assert_true(r.has_measured && r.measured <= bn_limits_max(&bn_test_lim, "ISUSP"));
	assert_int_equal(r.t0_us, 0);
	assert_int_equal(r.t1_us, MS(63));
}

static void test_checks_host_choice__unconnected_fail_draw_while_detecting(void **state)
{
	static const struct seg seg[] = { { 0, 0.05 }, { 20, 0 }, { 63, 0.1 }, { 163, 0.5 },
					  { 1505, 0.002 }, { 1800, 0.5 }, { 2000, 0 } };
	struct opts o = sdp();
	struct stream s = STREAM(ev_session, seg);
	struct bn_result r = run(&o, &s, "bc12.host.unconnected_isusp");

	(void)state;
	expect_verdict(&r, BN_VERDICT_FAIL);
	/* 50 mA for 20 of the 63 unconnected ms */
	assert_true(fabs(r.measured - 0.05 * 20 / 63) < 1e-3);
	assert_true(r.reason[0] != '\0');
}

/* Longer than TSUSP_AVG unconnected: a sliding 1 s window finds a burst
 * that the whole-stretch average would dilute. */
static void test_checks_host_choice__unconnected_fail_sliding_window(void **state)
{
	static const struct ev ev[] = { { 0, BN_CEV_VBUS_ON, 0, 0 }, { 5, BN_CEV_DATA_CONTACT, 0, 1 },
					{ 6000, BN_CEV_VBUS_OFF, 0, 0 } };
	static const struct seg seg[] = { { 0, 0 }, { 3000, 0.004 }, { 4000, 0 } };
	struct opts o = sdp();
	struct stream s = { .ev = ev, .n_ev = N(ev), .seg = seg, .n_seg = N(seg), .end_ms = 6100 };
	struct bn_result r = run(&o, &s, "bc12.host.unconnected_isusp");

	(void)state;
	expect_verdict(&r, BN_VERDICT_FAIL);
	assert_true(fabs(r.measured - 0.004) < 1e-6);
}

/* A real host sees the device only once it enumerated: its connect lies
 * in [t - before, t]. A burst that may be the connected device's is not
 * charged to the unconnected one; one that ended before the window is. */
static void test_checks_host_choice__unconnected_connect_window(void **state)
{
	struct ev ev[] = { { 0, BN_CEV_VBUS_ON, 0, 0 }, { 5, BN_CEV_DATA_CONTACT, 0, 1 },
			   { 5000, BN_CEV_CONNECT, 0, 4.5 }, { 6000, BN_CEV_VBUS_OFF, 0, 0 } };
	static const struct seg seg[] = { { 0, 0 }, { 3000, 0.004 }, { 4000, 0 } };
	struct opts o = sdp();
	struct stream s = { .ev = ev, .n_ev = N(ev), .seg = seg, .n_seg = N(seg), .end_ms = 6100 };
	struct bn_result r = run(&o, &s, "bc12.host.unconnected_isusp");

	(void)state;
	expect_inconclusive(&r);
	expect_reason(&r, "may include the connected device's draw");
	ev[2].num = 0.5;
	r = run(&o, &s, "bc12.host.unconnected_isusp");
	expect_verdict(&r, BN_VERDICT_FAIL);
}

static void test_checks_host_choice__unconnected_inconclusive_without_ibus(void **state)
{
	struct opts o = sdp();
	struct stream s = STREAM(ev_session, seg_good);
	struct bn_result r;

	(void)state;
	o.channels &= ~(1u << BN_CH_IBUS);
	r = run(&o, &s, "bc12.host.unconnected_isusp");
	expect_inconclusive(&r);
}

static void test_checks_host_choice__unconnected_skipped_dead_battery_dbp(void **state)
{
	struct opts o = sdp();
	struct stream s = STREAM(ev_session, seg_good);
	struct bn_result r;

	(void)state;
	o.decl = BN_DECL_DBP | BN_DECL_DEAD_BATTERY | BN_DECL_BATTERY;
	r = run(&o, &s, "bc12.host.unconnected_isusp");
	expect_verdict(&r, BN_VERDICT_SKIPPED);
	/* a dead battery without DBP is still judged */
	o.decl = BN_DECL_DEAD_BATTERY | BN_DECL_BATTERY;
	r = run(&o, &s, "bc12.host.unconnected_isusp");
	expect_verdict(&r, BN_VERDICT_PASS);
}

/* A slow plug: the data lines touch 1.5 s after VBUS. A correct device
 * gives up Data Contact Detect, connects unseen and draws IUNIT; only the
 * draw before its earliest possible connect (TDCD_TIMEOUT + TVDPSRC_ON
 * min after VBUS on) is its own to answer for. */
static void test_checks_host_choice__unconnected_slow_plug(void **state)
{
	static const struct ev ev[] = { { 0, BN_CEV_VBUS_ON, 0, 0 },	  { 1500, BN_CEV_DATA_CONTACT, 0, 1 },
					{ 1500, BN_CEV_CONNECT, 0, 0 },   { 1502, BN_CEV_DATA_CONTACT, 0, 0 },
					{ 1502, BN_CEV_DISCONNECT, 0, 0 }, { 1504, BN_CEV_DATA_CONTACT, 0, 1 },
					{ 1504, BN_CEV_CONNECT, 0, 0 },   { 2000, BN_CEV_VBUS_OFF, 0, 0 } };
	static const struct seg good[] = { { 0, 0 }, { 650, 0.09 }, { 2000, 0 } };
	/* 90 mA from 100 ms: before any correct device could have connected */
	static const struct seg early[] = { { 0, 0 }, { 100, 0.09 }, { 2000, 0 } };
	struct opts o = sdp_real();
	struct stream s = STREAM(ev, good);
	struct bn_result r;
	double grace = bn_limits_min(&bn_test_lim, "TDCD_TIMEOUT") + bn_limits_min(&bn_test_lim, "TVDPSRC_ON");

	(void)state;
	o.events |= BN_CEV_BIT(BN_CEV_DATA_CONTACT);
	r = run(&o, &s, "bc12.host.unconnected_isusp");
	expect_judged(&r, BN_VERDICT_PASS);
	assert_int_equal(r.t1_us, bn_time_from_s(grace));
	assert_int_equal(r.n_figures, 1);
	assert_near(r.figures[0].value, 1.5 - grace, 1e-9);
	s = STREAM(ev, early);
	r = run(&o, &s, "bc12.host.unconnected_isusp");
	expect_judged(&r, BN_VERDICT_FAIL);
	/* the same capture where the source does not report data contact:
	 * the whole stretch is judged */
	s = STREAM(ev, good);
	o.events &= ~BN_CEV_BIT(BN_CEV_DATA_CONTACT);
	r = run(&o, &s, "bc12.host.unconnected_isusp");
	expect_judged(&r, BN_VERDICT_FAIL);
}

/* ---- bc12.host.suspend_isusp ---- */

static void test_checks_host_choice__suspend_pass(void **state)
{
	struct opts o = sdp();
	struct stream s = STREAM(ev_session, seg_good);
	struct bn_result r = run(&o, &s, "bc12.host.suspend_isusp");

	(void)state;
	expect_verdict(&r, BN_VERDICT_PASS);
	assert_true(fabs(r.measured - 0.002) < 1e-9);
	/* judged from TSUSP_ENTER after bus idle */
	assert_int_equal(r.t0_us, MS(1500) + bn_time_from_s(bn_limits_max(&bn_test_lim, "TSUSP_ENTER")));
	assert_int_equal(r.t1_us, MS(1800));
}

static void test_checks_host_choice__suspend_fail_slow_to_enter(void **state)
{
	/* reaches 2 mA only 30 ms after bus idle: past TSUSP_ENTER */
	static const struct seg seg[] = { { 0, 0 }, { 63, 0.1 }, { 163, 0.5 }, { 1530, 0.002 },
					  { 1800, 0.5 }, { 2000, 0 } };
	struct opts o = sdp();
	struct stream s = STREAM(ev_session, seg);
	struct bn_result r = run(&o, &s, "bc12.host.suspend_isusp");

	(void)state;
	expect_verdict(&r, BN_VERDICT_FAIL);
	assert_true(r.measured > bn_limits_max(&bn_test_lim, "ISUSP"));
}

static void test_checks_host_choice__suspend_fail_ignored(void **state)
{
	static const struct seg seg[] = { { 0, 0 }, { 63, 0.1 }, { 163, 0.5 }, { 2000, 0 } };
	struct opts o = sdp();
	struct stream s = STREAM(ev_session, seg);
	struct bn_result r = run(&o, &s, "bc12.host.suspend_isusp");

	(void)state;
	expect_verdict(&r, BN_VERDICT_FAIL);
	assert_true(fabs(r.measured - 0.5) < 1e-9);
}

static void test_checks_host_choice__suspend_inconclusive_without_suspend_events(void **state)
{
	struct opts o = sdp();
	struct stream s = STREAM(ev_session, seg_good);
	struct bn_result r;

	(void)state;
	o.events &= ~BN_CEV_BIT(BN_CEV_SUSPEND);
	r = run(&o, &s, "bc12.host.suspend_isusp");
	expect_inconclusive(&r);
}

static void test_checks_host_choice__suspend_inconclusive_never_suspended(void **state)
{
	static const struct ev ev[] = { { 0, BN_CEV_VBUS_ON, 0, 0 }, { 63, BN_CEV_CONNECT, 0, 0 },
					{ 163, BN_CEV_CONFIG, 1, 0.5 }, { 2000, BN_CEV_VBUS_OFF, 0, 0 } };
	struct opts o = sdp();
	struct stream s = STREAM(ev, seg_good);
	struct bn_result r = run(&o, &s, "bc12.host.suspend_isusp");

	(void)state;
	expect_inconclusive(&r);
}

/* ---- bc12.host.unconfigured_iunit ---- */

static void test_checks_host_choice__unconfigured_pass(void **state)
{
	struct opts o = sdp();
	struct stream s = STREAM(ev_session, seg_good);
	struct bn_result r = run(&o, &s, "bc12.host.unconfigured_iunit");

	(void)state;
	/* exactly IUNIT is inside */
	expect_verdict(&r, BN_VERDICT_PASS);
	assert_true(r.measured <= bn_limits_max(&bn_test_lim, "IUNIT"));
}

/* A host that never configures: the testers' window, 150 ms after D+
 * rises, TVBUS_AVG long. An inrush before it does not count. */
static void test_checks_host_choice__unconfigured_testers_window(void **state)
{
	static const struct ev ev[] = { { 0, BN_CEV_VBUS_ON, 0, 0 }, { 63, BN_CEV_CONNECT, 0, 0 },
					{ 2000, BN_CEV_VBUS_OFF, 0, 0 } };
	static const struct seg inrush[] = { { 0, 0 }, { 63, 0.4 }, { 163, 0.1 }, { 2000, 0 } };
	static const struct seg late[] = { { 0, 0 }, { 63, 0.1 }, { 300, 0.2 }, { 2000, 0 } };
	struct opts o = sdp();
	struct stream s = STREAM(ev, inrush);
	struct bn_result r = run(&o, &s, "bc12.host.unconfigured_iunit");

	(void)state;
	expect_verdict(&r, BN_VERDICT_PASS);
	assert_int_equal(r.t0_us, MS(213));
	assert_int_equal(r.t1_us, MS(463));
	s = STREAM(ev, late);
	r = run(&o, &s, "bc12.host.unconfigured_iunit");
	expect_verdict(&r, BN_VERDICT_FAIL);
	/* 87 ms at 100 mA and 163 ms at 200 mA */
	assert_true(fabs(r.measured - (0.087 * 0.1 + 0.163 * 0.2) / 0.25) < 1e-3);
}

static void test_checks_host_choice__unconfigured_fail(void **state)
{
	static const struct seg seg[] = { { 0, 0 }, { 63, 0.5 }, { 163, 0.5 }, { 1505, 0.002 },
					  { 1800, 0.5 }, { 2000, 0 } };
	struct opts o = sdp();
	struct stream s = STREAM(ev_session, seg);
	struct bn_result r = run(&o, &s, "bc12.host.unconfigured_iunit");

	(void)state;
	expect_verdict(&r, BN_VERDICT_FAIL);
	assert_true(fabs(r.measured - 0.5) < 1e-9);
	assert_int_equal(r.t0_us, MS(63));
	assert_int_equal(r.t1_us, MS(163));
}

/* A real host that configured the device at a moment known only within a
 * window, then unconfigured it (the bench playing a host that never
 * configures): the stretch before the configuration may hold the
 * configured draw and proves nothing above IUNIT, but the stretch after
 * the unconfiguration is judged: 500 mA there fails, 90 mA passes. */
static void test_checks_host_choice__unconfigured_after_deconfig(void **state)
{
	static const struct ev ev[] = { { 0, BN_CEV_VBUS_ON, 0, 0 },	{ 63, BN_CEV_CONNECT, 0, 0 },
					{ 163, BN_CEV_CONFIG, 1, 0.5 }, { 400, BN_CEV_CONFIG, 0, 0 },
					{ 2000, BN_CEV_VBUS_OFF, 0, 0 } };
	static const struct seg bad[] = { { 0, 0 }, { 63, 0.5 }, { 2000, 0 } };
	static const struct seg good[] = { { 0, 0 }, { 63, 0.09 }, { 163, 0.45 }, { 400, 0.09 }, { 2000, 0 } };
	static const struct ev ev_once[] = { { 0, BN_CEV_VBUS_ON, 0, 0 }, { 63, BN_CEV_CONNECT, 0, 0 },
					     { 163, BN_CEV_CONFIG, 1, 0.5 }, { 2000, BN_CEV_VBUS_OFF, 0, 0 } };
	struct opts o = sdp();
	struct stream s = STREAM(ev, bad);
	struct bn_result r;

	(void)state;
	o.config_win_s = 0.1; /* configuration 1 came in [63, 163] ms */
	r = run(&o, &s, "bc12.host.unconfigured_iunit");
	expect_verdict(&r, BN_VERDICT_FAIL);
	assert_true(r.t0_us >= MS(400));
	s = STREAM(ev, good);
	r = run(&o, &s, "bc12.host.unconfigured_iunit");
	expect_verdict(&r, BN_VERDICT_PASS);
	/* the doubtful stretch alone: inconclusive, naming the window */
	s = STREAM(ev_once, bad);
	r = run(&o, &s, "bc12.host.unconfigured_iunit");
	expect_inconclusive(&r);
	expect_reason(&r, "may include the configured device's draw");
}

static void test_checks_host_choice__unconfigured_inconclusive_low_rate(void **state)
{
	struct opts o = sdp();
	struct stream s = STREAM(ev_session, seg_good);
	struct bn_result r;

	(void)state;
	o.rate_hz = 500;
	r = run(&o, &s, "bc12.host.unconfigured_iunit");
	expect_inconclusive(&r);
}

/* ---- bc12.host.configured_bmaxpower ---- */

static void test_checks_host_choice__configured_pass(void **state)
{
	struct opts o = sdp();
	struct stream s = STREAM(ev_session, seg_good);
	struct bn_result r = run(&o, &s, "bc12.host.configured_bmaxpower");

	(void)state;
	expect_verdict(&r, BN_VERDICT_PASS);
	assert_true(fabs(r.measured - 0.5) < 1e-9);
	assert_true(fabs(r.limit_max - 0.5) < 1e-9);
}

static void test_checks_host_choice__configured_fail_above_bmaxpower(void **state)
{
	static const struct ev ev[] = { { 0, BN_CEV_VBUS_ON, 0, 0 }, { 63, BN_CEV_CONNECT, 0, 0 },
					{ 213, BN_CEV_CONFIG, 2, 0.1 }, { 2000, BN_CEV_VBUS_OFF, 0, 0 } };
	static const struct seg seg[] = { { 0, 0 }, { 63, 0.1 }, { 213, 0.5 }, { 2000, 0 } };
	struct opts o = sdp();
	struct stream s = STREAM(ev, seg);
	struct bn_result r = run(&o, &s, "bc12.host.configured_bmaxpower");

	(void)state;
	expect_verdict(&r, BN_VERDICT_FAIL);
	assert_true(fabs(r.limit_max - 0.1) < 1e-9);
}

/* A bMaxPower above ICFG_MAX does not lift the bound. */
static void test_checks_host_choice__configured_fail_above_icfg_max(void **state)
{
	static const struct ev ev[] = { { 0, BN_CEV_VBUS_ON, 0, 0 }, { 63, BN_CEV_CONNECT, 0, 0 },
					{ 163, BN_CEV_CONFIG, 1, 0.9 }, { 2000, BN_CEV_VBUS_OFF, 0, 0 } };
	static const struct seg seg[] = { { 0, 0 }, { 63, 0.1 }, { 163, 0.6 }, { 2000, 0 } };
	struct opts o = sdp();
	struct stream s = STREAM(ev, seg);
	struct bn_result r = run(&o, &s, "bc12.host.configured_bmaxpower");

	(void)state;
	expect_verdict(&r, BN_VERDICT_FAIL);
	assert_true(fabs(r.limit_max - bn_limits_max(&bn_test_lim, "ICFG_MAX")) < 1e-9);
}

static void test_checks_host_choice__configured_inconclusive_without_config_events(void **state)
{
	struct opts o = sdp();
	struct stream s = STREAM(ev_session, seg_good);
	struct bn_result r;

	(void)state;
	o.events &= ~BN_CEV_BIT(BN_CEV_CONFIG);
	r = run(&o, &s, "bc12.host.configured_bmaxpower");
	expect_inconclusive(&r);
}

static void test_checks_host_choice__configured_not_judged_on_cdp(void **state)
{
	struct opts o = sdp();
	struct stream s = STREAM(ev_session, seg_good);
	struct bn_result r;

	(void)state;
	o.port = BN_PORT_CDP;
	r = run(&o, &s, "bc12.host.configured_bmaxpower");
	expect_verdict(&r, BN_VERDICT_SKIPPED);
}

/* ---- bc12.host.connect_time ---- */

static void test_checks_host_choice__connect_time_pass(void **state)
{
	struct opts o = sdp();
	struct stream s = STREAM(ev_session, seg_good);
	struct bn_result r = run(&o, &s, "bc12.host.connect_time");

	(void)state;
	expect_verdict(&r, BN_VERDICT_PASS);
	assert_true(fabs(r.measured - 0.063) < 1e-9);
	assert_string_equal(r.unit, "s");
	/* on a CDP too */
	o.port = BN_PORT_CDP;
	r = run(&o, &s, "bc12.host.connect_time");
	expect_verdict(&r, BN_VERDICT_PASS);
}

static void test_checks_host_choice__connect_time_fail_late(void **state)
{
	static const struct ev ev[] = { { 0, BN_CEV_VBUS_ON, 0, 0 }, { 1200, BN_CEV_CONNECT, 0, 0 },
					{ 2000, BN_CEV_VBUS_OFF, 0, 0 } };
	struct opts o = sdp();
	struct stream s = STREAM(ev, seg_good);
	struct bn_result r = run(&o, &s, "bc12.host.connect_time");

	(void)state;
	expect_verdict(&r, BN_VERDICT_FAIL);
	assert_true(fabs(r.measured - 1.2) < 1e-9);
}

/* The same connect known only within a window: dated at its middle,
 * the width in U; late from the window's start but not from its end is
 * neither; in time from its end passes; late from its start fails. */
static void test_checks_host_choice__connect_time_window(void **state)
{
	struct ev ev[] = { { 0, BN_CEV_VBUS_ON, 0, 0 }, { 1200, BN_CEV_CONNECT, 0, 0.5 },
			   { 2000, BN_CEV_VBUS_OFF, 0, 0 } };
	struct opts o = sdp();
	struct stream s = STREAM(ev, seg_good);
	struct bn_result r = run(&o, &s, "bc12.host.connect_time");

	(void)state;
	expect_inconclusive(&r);
	assert_true(fabs(r.measured - 0.95) < 1e-9);
	ev[1].t_ms = 900;
	ev[1].num = 0.8;
	r = run(&o, &s, "bc12.host.connect_time");
	expect_verdict(&r, BN_VERDICT_PASS);
	ev[1].t_ms = 1600;
	ev[1].num = 0.3;
	r = run(&o, &s, "bc12.host.connect_time");
	expect_verdict(&r, BN_VERDICT_FAIL);
}

static void test_checks_host_choice__connect_time_fail_never(void **state)
{
	static const struct ev ev[] = { { 0, BN_CEV_VBUS_ON, 0, 0 }, { 2000, BN_CEV_VBUS_OFF, 0, 0 } };
	struct opts o = sdp();
	struct stream s = STREAM(ev, seg_good);
	struct bn_result r = run(&o, &s, "bc12.host.connect_time");

	(void)state;
	expect_verdict(&r, BN_VERDICT_FAIL);
	/* VBUS removed shorter than the limit, unconnected: not judged */
	static const struct ev short_ev[] = { { 0, BN_CEV_VBUS_ON, 0, 0 }, { 500, BN_CEV_VBUS_OFF, 0, 0 } };
	s = STREAM(short_ev, seg_good);
	r = run(&o, &s, "bc12.host.connect_time");
	expect_inconclusive(&r);
}

static void test_checks_host_choice__connect_time_inconclusive_without_vbus(void **state)
{
	struct opts o = sdp();
	struct stream s = STREAM(ev_session, seg_good);
	struct bn_result r;

	(void)state;
	o.channels &= ~(1u << BN_CH_VBUS);
	r = run(&o, &s, "bc12.host.connect_time");
	expect_inconclusive(&r);
}

static void test_checks_host_choice__connect_time_dbp_exemption(void **state)
{
	static const struct ev ev[] = { { 0, BN_CEV_VBUS_ON, 0, 0 }, { 2000, BN_CEV_VBUS_OFF, 0, 0 } };
	struct opts o = sdp();
	struct stream s = STREAM(ev, seg_good);
	struct bn_result r;

	(void)state;
	o.decl = BN_DECL_BATTERY | BN_DECL_DBP | BN_DECL_DEAD_BATTERY;
	r = run(&o, &s, "bc12.host.connect_time");
	expect_verdict(&r, BN_VERDICT_SKIPPED);
	/* DBP with a good battery, or a dead battery without DBP: judged */
	o.decl = BN_DECL_BATTERY | BN_DECL_DBP;
	r = run(&o, &s, "bc12.host.connect_time");
	expect_verdict(&r, BN_VERDICT_FAIL);
	o.decl = BN_DECL_BATTERY | BN_DECL_DEAD_BATTERY;
	r = run(&o, &s, "bc12.host.connect_time");
	expect_verdict(&r, BN_VERDICT_FAIL);
}

static void test_checks_host_choice__connect_time_skipped_without_host(void **state)
{
	static const struct ev ev[] = { { 0, BN_CEV_VBUS_ON, 0, 0 }, { 2000, BN_CEV_VBUS_OFF, 0, 0 } };
	struct opts o = sdp();
	struct stream s = STREAM(ev, seg_good);
	struct bn_result r;

	(void)state;
	o.dp_pulldown_ohm = 0;
	r = run(&o, &s, "bc12.host.connect_time");
	expect_verdict(&r, BN_VERDICT_SKIPPED);
}

/* ---- under realistic measurement: a clear pass, a clear fail, and a
 * draw at the limit that is inconclusive "within measurement
 * uncertainty" (realistic.json: +0.2 mA offset and +0.5 % gain on IBUS,
 * 2 mA rms noise, 12 bits over 6 A) ---- */

static void test_checks_host_choice__realistic_unconnected(void **state)
{
	/* 50 mA for the first 20 ms of detection: 16 mA over the 63 ms */
	static const struct seg bad[] = { { 0, 0.05 }, { 20, 0 }, { 63, 0.09 }, { 163, 0.45 },
					  { 1500, 0.001 }, { 1800, 0.45 }, { 2000, 0 } };
	/* 2.3 mA reads 2.51 mA: 10 uA outside, U about 0.3 mA */
	static const struct seg edge[] = { { 0, 0.0023 }, { 63, 0.09 }, { 163, 0.45 },
					   { 1500, 0.001 }, { 1800, 0.45 }, { 2000, 0 } };
	struct opts o = sdp_real();
	struct stream s = STREAM(ev_session, seg_product);
	struct bn_result r = run(&o, &s, "bc12.host.unconnected_isusp");

	(void)state;
	expect_judged(&r, BN_VERDICT_PASS);
	assert_true(r.persistence[0] != '\0');
	s = STREAM(ev_session, bad);
	r = run(&o, &s, "bc12.host.unconnected_isusp");
	expect_judged(&r, BN_VERDICT_FAIL);
	s = STREAM(ev_session, edge);
	r = run(&o, &s, "bc12.host.unconnected_isusp");
	expect_within_u(&r, false);
}

static void test_checks_host_choice__realistic_suspend_isusp(void **state)
{
	static const struct seg bad[] = { { 0, 0 }, { 63, 0.09 }, { 163, 0.45 }, { 1500, 0.005 },
					  { 1800, 0.45 }, { 2000, 0 } };
	/* 2.2 mA reads 2.41 mA: 90 uA inside, U about 0.27 mA */
	static const struct seg edge[] = { { 0, 0 }, { 63, 0.09 }, { 163, 0.45 }, { 1500, 0.0022 },
					   { 1800, 0.45 }, { 2000, 0 } };
	struct opts o = sdp_real();
	struct stream s = STREAM(ev_session, seg_product);
	struct bn_result r = run(&o, &s, "bc12.host.suspend_isusp");

	(void)state;
	expect_judged(&r, BN_VERDICT_PASS);
	s = STREAM(ev_session, bad);
	r = run(&o, &s, "bc12.host.suspend_isusp");
	expect_judged(&r, BN_VERDICT_FAIL);
	s = STREAM(ev_session, edge);
	r = run(&o, &s, "bc12.host.suspend_isusp");
	expect_within_u(&r, true);
}

static void test_checks_host_choice__realistic_unconfigured(void **state)
{
	/* a host that configures late: the testers' window is judged */
	static const struct ev ev[] = { { 0, BN_CEV_VBUS_ON, 0, 0 }, { 63, BN_CEV_CONNECT, 0, 0 },
					{ 1000, BN_CEV_CONFIG, 1, 0.5 }, { 2000, BN_CEV_VBUS_OFF, 0, 0 } };
	static const struct seg good[] = { { 0, 0 }, { 63, 0.09 }, { 1000, 0.45 }, { 2000, 0 } };
	static const struct seg bad[] = { { 0, 0 }, { 63, 0.15 }, { 1000, 0.45 }, { 2000, 0 } };
	/* 99.0 mA reads 99.7 mA: inside by 0.3 mA; 99.6 mA reads 100.3 mA:
	 * outside by 0.3 mA; U about 0.6 mA (mostly the gain error) */
	static const struct seg in[] = { { 0, 0 }, { 63, 0.099 }, { 1000, 0.45 }, { 2000, 0 } };
	static const struct seg out[] = { { 0, 0 }, { 63, 0.0996 }, { 1000, 0.45 }, { 2000, 0 } };
	struct opts o = sdp_real();
	struct stream s = STREAM(ev, good);
	struct bn_result r = run(&o, &s, "bc12.host.unconfigured_iunit");

	(void)state;
	expect_judged(&r, BN_VERDICT_PASS);
	assert_int_equal(r.t0_us, MS(213));
	s = STREAM(ev, bad);
	r = run(&o, &s, "bc12.host.unconfigured_iunit");
	expect_judged(&r, BN_VERDICT_FAIL);
	s = STREAM(ev, in);
	r = run(&o, &s, "bc12.host.unconfigured_iunit");
	expect_within_u(&r, true);
	s = STREAM(ev, out);
	r = run(&o, &s, "bc12.host.unconfigured_iunit");
	expect_within_u(&r, false);
	/* simple acceptance: the plain limit decides, U is still reported */
	o.acceptance = BN_ACCEPT_SIMPLE;
	r = run(&o, &s, "bc12.host.unconfigured_iunit");
	expect_verdict(&r, BN_VERDICT_FAIL);
	assert_true(r.has_u && r.u > 0);
	s = STREAM(ev, in);
	r = run(&o, &s, "bc12.host.unconfigured_iunit");
	expect_verdict(&r, BN_VERDICT_PASS);
}

static void test_checks_host_choice__realistic_configured(void **state)
{
	static const struct ev ev2[] = { { 0, BN_CEV_VBUS_ON, 0, 0 }, { 63, BN_CEV_CONNECT, 0, 0 },
					 { 213, BN_CEV_CONFIG, 2, 0.1 }, { 2000, BN_CEV_VBUS_OFF, 0, 0 } };
	static const struct seg bad[] = { { 0, 0 }, { 63, 0.09 }, { 213, 0.45 }, { 2000, 0 } };
	/* 497.3 mA reads 500.0 mA: within U (about 2.9 mA) of bMaxPower */
	static const struct seg edge[] = { { 0, 0 }, { 63, 0.09 }, { 163, 0.4973 }, { 1500, 0.001 },
					   { 1800, 0.4973 }, { 2000, 0 } };
	struct opts o = sdp_real();
	struct stream s = STREAM(ev_session, seg_product);
	struct bn_result r = run(&o, &s, "bc12.host.configured_bmaxpower");

	(void)state;
	expect_judged(&r, BN_VERDICT_PASS);
	s = STREAM(ev2, bad);
	r = run(&o, &s, "bc12.host.configured_bmaxpower");
	expect_judged(&r, BN_VERDICT_FAIL);
	s = STREAM(ev_session, edge);
	r = run(&o, &s, "bc12.host.configured_bmaxpower");
	expect_verdict(&r, BN_VERDICT_INCONCLUSIVE);
	expect_reason(&r, "within measurement uncertainty");
}

static void test_checks_host_choice__realistic_connect_time(void **state)
{
	static const struct ev late[] = { { 0, BN_CEV_VBUS_ON, 0, 0 }, { 1200, BN_CEV_CONNECT, 0, 0 },
					  { 2000, BN_CEV_VBUS_OFF, 0, 0 } };
	/* 0.05 ms past TSVLD_CON_PWD: U is about 0.06 ms (the 10 kHz sample) */
	static const struct ev edge[] = { { 0, BN_CEV_VBUS_ON, 0, 0 }, { 1000.05, BN_CEV_CONNECT, 0, 0 },
					  { 2000, BN_CEV_VBUS_OFF, 0, 0 } };
	struct opts o = sdp_real();
	struct stream s = STREAM(ev_session, seg_product);
	struct bn_result r = run(&o, &s, "bc12.host.connect_time");

	(void)state;
	expect_judged(&r, BN_VERDICT_PASS);
	assert_near(r.measured, 0.063, 1e-9);
	s = STREAM(late, seg_product);
	r = run(&o, &s, "bc12.host.connect_time");
	expect_judged(&r, BN_VERDICT_FAIL);
	s = STREAM(edge, seg_product);
	r = run(&o, &s, "bc12.host.connect_time");
	expect_within_u(&r, false);
}

/* ---- bc12.host.suspend_entry ---- */

/* The product's session with the draw falling to 1 mA fall_ms after bus
 * idle (1.5 s), the suspend lasting to end_ms. */
static struct bn_result sentry_run(const struct opts *o, double fall_ms, double resume_ms)
{
	const struct ev ev[] = {
		{ 0, BN_CEV_VBUS_ON, 0, 0 },	{ 63, BN_CEV_CONNECT, 0, 0 },
		{ 163, BN_CEV_CONFIG, 1, 0.5 }, { 1500, BN_CEV_SUSPEND, 0, 0 },
		{ resume_ms, BN_CEV_RESUME, 0, 0 }, { 2000, BN_CEV_VBUS_OFF, 0, 0 },
	};
	const struct seg seg[] = { { 0, 0 }, { 63, 0.09 }, { 163, 0.45 }, { 1500 + fall_ms, 0.0005 },
				   { resume_ms, 0.45 }, { 2000, 0 } };
	struct stream s = STREAM(ev, seg);

	return run(o, &s, "bc12.host.suspend_entry");
}

static void test_checks_host_choice__suspend_entry_pass(void **state)
{
	struct opts o = sdp_real();
	struct bn_result r = sentry_run(&o, 0, 1800);

	(void)state;
	/* already below in the first 1 ms mean: 0 */
	expect_judged(&r, BN_VERDICT_PASS);
	assert_near(r.measured, 0, 1e-9);
	assert_string_equal(r.unit, "s");
	assert_int_equal(r.t0_us, MS(1500));
	/* 4 ms: the first mean below starts at 4 ms, dated half a bin before */
	r = sentry_run(&o, 4, 1800);
	expect_judged(&r, BN_VERDICT_PASS);
	assert_near(r.measured, 0.0035, 1e-9);
	/* 4.4 ms: the mean over 4-5 ms is still above ISUSP */
	r = sentry_run(&o, 4.4, 1800);
	assert_near(r.measured, 0.0045, 1e-9);
	assert_true(r.u < 1e-3);
}

static void test_checks_host_choice__suspend_entry_fail_late(void **state)
{
	struct opts o = sdp_real();
	struct bn_result r = sentry_run(&o, 20, 1800);

	(void)state;
	expect_judged(&r, BN_VERDICT_FAIL);
	assert_near(r.measured, 0.0195, 1e-9);
	expect_reason(&r, "fell below ISUSP");
	/* the 1 s average from TSUSP_ENTER does not see 10 ms of 450 mA in a
	 * long suspend as clearly: the time does */
	r = sentry_run(&o, 12, 1999);
	expect_judged(&r, BN_VERDICT_FAIL);
}

/* Never below ISUSP: a lower bound, the suspend's length, fails once past
 * TSUSP_ENTER; a suspend shorter than that says nothing. */
static void test_checks_host_choice__suspend_entry_never_falls(void **state)
{
	struct opts o = sdp_real();
	struct bn_result r = sentry_run(&o, 400, 1800);

	(void)state;
	expect_judged(&r, BN_VERDICT_FAIL);
	assert_near(r.measured, 0.3, 1e-9);
	expect_reason(&r, "still above ISUSP");
	r = sentry_run(&o, 400, 1506);
	expect_inconclusive(&r);
	expect_reason(&r, "never stayed suspended long enough");
}

static void test_checks_host_choice__suspend_entry_within_u(void **state)
{
	struct opts o = sdp_real();
	/* below from 10 ms: read as 9.5 ms, U about 0.6 ms */
	struct bn_result r = sentry_run(&o, 10, 1800);

	(void)state;
	expect_within_u(&r, true);
	/* from 10.6 ms: the mean over 10-11 ms is above, read as 10.5 ms */
	r = sentry_run(&o, 10.6, 1800);
	expect_within_u(&r, false);
}

/* An 8-bit scope's IBUS (19.5 mA a step over +-2.5 A, no noise to dither
 * it): a suspended draw of 1 mA reads 0, which proves nothing either way
 * against ISUSP's 2.5 mA (neither the fall nor a draw still above), while
 * a draw that stays at 450 mA fails as it would on any instrument. */
static void test_checks_host_choice__suspend_entry_coarse(void **state)
{
	struct opts o = sdp();
	struct bn_result r;

	(void)state;
	o.rate_hz = 10000;
	o.ibus_meas = "bits=8,range=-2.5A..2.5A";
	r = sentry_run(&o, 0, 1800);
	expect_inconclusive(&r);
	r = sentry_run(&o, 400, 1800);
	expect_judged(&r, BN_VERDICT_FAIL);
	expect_reason(&r, "still above ISUSP");
}

/* A capture that ends before the resume (a device's frames still in
 * flight, one that stopped): the draw is bounded only as far as the data
 * goes, so a fall after the data is never a fail, and a draw above ISUSP
 * through more than TSUSP_ENTER of data still is. */
static void test_checks_host_choice__suspend_entry_data_ends(void **state)
{
	struct opts o = sdp();
	struct bn_result r;

	(void)state;
	o.data_until_ms = 1503;   /* 3 ms of the suspend, the fall at 5 ms */
	r = sentry_run(&o, 5, 1800);
	assert_int_not_equal(r.verdict, BN_VERDICT_FAIL);
	assert_int_not_equal(r.verdict, BN_VERDICT_PASS);
	o.data_until_ms = 1530;   /* 30 ms of the suspend, all above ISUSP */
	r = sentry_run(&o, 400, 1800);
	expect_judged(&r, BN_VERDICT_FAIL);
	assert_near(r.measured, 0.030, 1e-9);
}

/* A real host knows bus idle only within a window (when it asked, when
 * sysfs showed the state): [1500, 1500 + w] ms. Dated at its middle, its
 * width in U: a fall that is late from the window's start but not from
 * its end is neither pass nor fail; one late even from its end fails;
 * one in time even from its start passes; and the same fall judged as if
 * the moment were exact fails. */
static struct bn_result sentry_window_run(const struct opts *o, double fall_ms, double w_s)
{
	const struct ev ev[] = {
		{ 0, BN_CEV_VBUS_ON, 0, 0 },	{ 63, BN_CEV_CONNECT, 0, 0 },
		{ 163, BN_CEV_CONFIG, 1, 0.5 }, { 1500, BN_CEV_SUSPEND, 0, w_s },
		{ 1800, BN_CEV_RESUME, 0, 0 }, { 2000, BN_CEV_VBUS_OFF, 0, 0 },
	};
	const struct seg seg[] = { { 0, 0 }, { 63, 0.09 }, { 163, 0.45 }, { 1500 + fall_ms, 0.0005 },
				   { 1800, 0.45 }, { 2000, 0 } };
	struct stream s = STREAM(ev, seg);

	return run(o, &s, "bc12.host.suspend_entry");
}

static void test_checks_host_choice__suspend_entry_window(void **state)
{
	struct opts o = sdp_real();
	struct bn_result r = sentry_window_run(&o, 13, 0);

	(void)state;
	expect_judged(&r, BN_VERDICT_FAIL);          /* exact: 12.5 ms, late */
	r = sentry_window_run(&o, 13, 0.008);
	expect_inconclusive(&r);                     /* 5 to 13 ms after idle began */
	assert_true(r.u > 0.008 / 2);
	assert_near(r.measured, 0.0085, 1e-9);
	r = sentry_window_run(&o, 30, 0.008);
	expect_judged(&r, BN_VERDICT_FAIL);          /* 22 ms even from the window's end */
	r = sentry_window_run(&o, 3, 0.004);
	expect_judged(&r, BN_VERDICT_PASS);          /* 2.5 ms even from its start */
}

/* A slow fall: U grows with the noise over the slew between the last
 * 1 ms mean above ISUSP and the first below. */
static void test_checks_host_choice__suspend_entry_slew(void **state)
{
	static const struct ev ev[] = { { 0, BN_CEV_VBUS_ON, 0, 0 },	  { 63, BN_CEV_CONNECT, 0, 0 },
					{ 163, BN_CEV_CONFIG, 1, 0.5 },   { 1500, BN_CEV_SUSPEND, 0, 0 },
					{ 1800, BN_CEV_RESUME, 0, 0 },    { 2000, BN_CEV_VBUS_OFF, 0, 0 } };
	/* 450 mA to 7 mA at bus idle, then 1 mA less every ms to 1 mA at 7 ms:
	 * it reads 3.2 mA at 5-6 ms, 2.2 mA at 6-7 ms */
	static const struct seg seg[] = { { 0, 0 },	    { 63, 0.09 },     { 163, 0.45 },
					  { 1500, 0.007 },  { 1502, 0.006 },  { 1503, 0.005 },
					  { 1504, 0.004 },  { 1505, 0.003 },  { 1506, 0.002 },
					  { 1507, 0.001 },  { 1800, 0.45 },   { 2000, 0 } };
	struct opts o = sdp_real();
	struct stream s = STREAM(ev, seg);
	struct bn_result r = run(&o, &s, "bc12.host.suspend_entry"), step;

	(void)state;
	step = sentry_run(&o, 6, 1800);
	expect_judged(&r, BN_VERDICT_PASS);
	expect_judged(&step, BN_VERDICT_PASS);
	/* about 0.65 mA at ISUSP over 1 mA/ms: 0.65 ms more, in quadrature */
	assert_true(r.u > 1.5 * step.u);
}

/* hold() and sample() agree: the same stream fed one sample at a time. */
static void test_checks_host_choice__suspend_entry_hold(void **state)
{
	struct opts o = sdp();
	struct bn_result a, b;
	const double falls[] = { 0, 3.3, 9.9, 15, 400 };

	(void)state;
	o.rate_hz = 10000;
	for (size_t i = 0; i < sizeof(falls) / sizeof(falls[0]); i++) {
		o.no_hold = false;
		a = sentry_run(&o, falls[i], 1800);
		o.no_hold = true;
		b = sentry_run(&o, falls[i], 1800);
		assert_int_equal(a.verdict, b.verdict);
		assert_true(a.measured == b.measured && a.u == b.u);
		assert_int_equal(a.t1_us, b.t1_us);
	}
}

static void test_checks_host_choice__suspend_entry_inconclusive(void **state)
{
	static const struct ev ev[] = { { 0, BN_CEV_VBUS_ON, 0, 0 }, { 63, BN_CEV_CONNECT, 0, 0 },
					{ 163, BN_CEV_CONFIG, 1, 0.5 }, { 2000, BN_CEV_VBUS_OFF, 0, 0 } };
	struct opts o = sdp();
	struct stream s = STREAM(ev, seg_good);
	struct bn_result r = run(&o, &s, "bc12.host.suspend_entry");

	(void)state;
	expect_inconclusive(&r);
	expect_reason(&r, "never suspended");
	s = STREAM(ev_session, seg_good);
	o.events &= ~BN_CEV_BIT(BN_CEV_SUSPEND);
	r = run(&o, &s, "bc12.host.suspend_entry");
	expect_inconclusive(&r);
	o = sdp();
	o.port = BN_PORT_DCP;
	r = run(&o, &s, "bc12.host.suspend_entry");
	expect_verdict(&r, BN_VERDICT_SKIPPED);
}

/* ---- the configured draw's bound, by name ---- */

static void test_checks_host_choice__configured_limit_named(void **state)
{
	static const struct ev ev2[] = { { 0, BN_CEV_VBUS_ON, 0, 0 }, { 63, BN_CEV_CONNECT, 0, 0 },
					 { 213, BN_CEV_CONFIG, 2, 0.1 }, { 2000, BN_CEV_VBUS_OFF, 0, 0 } };
	static const struct ev ev9[] = { { 0, BN_CEV_VBUS_ON, 0, 0 }, { 63, BN_CEV_CONNECT, 0, 0 },
					 { 163, BN_CEV_CONFIG, 1, 0.9 }, { 2000, BN_CEV_VBUS_OFF, 0, 0 } };
	static const struct seg seg[] = { { 0, 0 }, { 63, 0.09 }, { 213, 0.09 }, { 2000, 0 } };
	struct opts o = sdp();
	struct stream s = STREAM(ev2, seg);
	struct bn_result r = run(&o, &s, "bc12.host.configured_bmaxpower");

	(void)state;
	expect_verdict(&r, BN_VERDICT_PASS);
	assert_string_equal(r.limit, "bMaxPower of configuration 2 (100 mA)");
	assert_near(r.limit_max, 0.1, 1e-12);
	expect_reason(&r, "");
	assert_non_null(strstr(r.limit_source, "9.6.3"));
	s = STREAM(ev9, seg);
	r = run(&o, &s, "bc12.host.configured_bmaxpower");
	assert_string_equal(r.limit, "ICFG_MAX (configuration 1 declares 900 mA)");
	assert_near(r.limit_max, bn_limits_max(&bn_test_lim, "ICFG_MAX"), 1e-12);
}

/* A configuration that declares 0 mA is judged against ISUSP, by that
 * name, not as "ICFG_MAX with max 0". */
static void test_checks_host_choice__configured_zero_bmaxpower(void **state)
{
	static const struct ev ev[] = { { 0, BN_CEV_VBUS_ON, 0, 0 }, { 63, BN_CEV_CONNECT, 0, 0 },
					{ 163, BN_CEV_CONFIG, 3, 0 }, { 2000, BN_CEV_VBUS_OFF, 0, 0 } };
	static const struct seg good[] = { { 0, 0 }, { 63, 0.09 }, { 163, 0.001 }, { 2000, 0 } };
	static const struct seg bad[] = { { 0, 0 }, { 63, 0.09 }, { 163, 0.01 }, { 2000, 0 } };
	struct opts o = sdp_real();
	struct stream s = STREAM(ev, good);
	struct bn_result r = run(&o, &s, "bc12.host.configured_bmaxpower");

	(void)state;
	expect_judged(&r, BN_VERDICT_PASS);
	assert_string_equal(r.limit, "bMaxPower of configuration 3 (0 mA): ISUSP");
	assert_near(r.limit_max, bn_limits_max(&bn_test_lim, "ISUSP"), 1e-12);
	s = STREAM(ev, bad);
	r = run(&o, &s, "bc12.host.configured_bmaxpower");
	expect_judged(&r, BN_VERDICT_FAIL);
	expect_reason(&r, "declares 0 mA");
	assert_null(strstr(r.reason, "ICFG_MAX"));
}

/* ---- blame: a host that never enumerates or never configures ---- */

static void test_checks_host_choice__blame_host_never_enumerates(void **state)
{
	static const struct ev ev[] = { { 0, BN_CEV_VBUS_ON, 0, 0 }, { 63, BN_CEV_CONNECT, 0, 0 },
					{ 1063, BN_CEV_SUSPEND, 0, 0 }, { 2000, BN_CEV_VBUS_OFF, 0, 0 } };
	/* the device draws 500 mA unconfigured: its own fault */
	static const struct seg bad[] = { { 0, 0 }, { 63, 0.5 }, { 1063, 0.001 }, { 2000, 0 } };
	static const struct seg good[] = { { 0, 0 }, { 63, 0.09 }, { 1063, 0.001 }, { 2000, 0 } };
	struct opts o = sdp_real();
	struct stream s = STREAM(ev, bad);
	struct bn_result r = run(&o, &s, "bc12.host.configured_bmaxpower");

	(void)state;
	expect_inconclusive(&r);
	expect_reason(&r, "the host never enumerated the device");
	expect_reason(&r, "not the device's fault");
	/* what the device does without the host is still judged */
	r = run(&o, &s, "bc12.host.unconfigured_iunit");
	expect_judged(&r, BN_VERDICT_FAIL);
	r = run(&o, &s, "bc12.host.unconnected_isusp");
	expect_judged(&r, BN_VERDICT_PASS);
	s = STREAM(ev, good);
	r = run(&o, &s, "bc12.host.unconfigured_iunit");
	expect_judged(&r, BN_VERDICT_PASS);
	r = run(&o, &s, "bc12.host.suspend_isusp");
	expect_judged(&r, BN_VERDICT_PASS);
	r = run(&o, &s, "bc12.host.suspend_entry");
	expect_judged(&r, BN_VERDICT_PASS);
	r = run(&o, &s, "bc12.host.connect_time");
	expect_judged(&r, BN_VERDICT_PASS);
}

static void test_checks_host_choice__blame_host_never_configures(void **state)
{
	static const struct ev ev[] = { { 0, BN_CEV_VBUS_ON, 0, 0 }, { 63, BN_CEV_CONNECT, 0, 0 },
					{ 163, BN_CEV_CONFIG, 0, 0 }, { 2000, BN_CEV_VBUS_OFF, 0, 0 } };
	static const struct seg good[] = { { 0, 0 }, { 63, 0.09 }, { 2000, 0 } };
	struct opts o = sdp_real();
	struct stream s = STREAM(ev, good);
	struct bn_result r = run(&o, &s, "bc12.host.configured_bmaxpower");

	(void)state;
	expect_inconclusive(&r);
	expect_reason(&r, "the host never configured the device");
	expect_reason(&r, "configuration 0 at 0.163 s");
	r = run(&o, &s, "bc12.host.unconfigured_iunit");
	expect_judged(&r, BN_VERDICT_PASS);
}

/* The device never connected: not the host's doing, and not judged here. */
static void test_checks_host_choice__blame_device_never_connects(void **state)
{
	static const struct ev ev[] = { { 0, BN_CEV_VBUS_ON, 0, 0 }, { 2000, BN_CEV_VBUS_OFF, 0, 0 } };
	static const struct seg seg[] = { { 0, 0 } };
	struct opts o = sdp();
	struct stream s = STREAM(ev, seg);
	struct bn_result r = run(&o, &s, "bc12.host.configured_bmaxpower");

	(void)state;
	expect_inconclusive(&r);
	expect_reason(&r, "the device never connected");
	assert_null(strstr(r.reason, "host never"));
	r = run(&o, &s, "bc12.host.connect_time");
	expect_verdict(&r, BN_VERDICT_FAIL);
}

/* A slow plug: the host can see no connect before the data lines touch.
 * Lines touching after TSVLD_CON_PWD excuse a late connect (inconclusive,
 * naming the handling); lines touching in time do not. */
static void test_checks_host_choice__connect_time_slow_plug(void **state)
{
	static const struct ev late_lines[] = { { 0, BN_CEV_VBUS_ON, 0, 0 },
						{ 1500, BN_CEV_DATA_CONTACT, 0, 1 },
						{ 1500, BN_CEV_CONNECT, 0, 0 },
						{ 2000, BN_CEV_VBUS_OFF, 0, 0 } };
	static const struct ev lines_in_time[] = { { 0, BN_CEV_VBUS_ON, 0, 0 },
						   { 700, BN_CEV_DATA_CONTACT, 0, 1 },
						   { 1200, BN_CEV_CONNECT, 0, 0 },
						   { 2000, BN_CEV_VBUS_OFF, 0, 0 } };
	static const struct ev never[] = { { 0, BN_CEV_VBUS_ON, 0, 0 }, { 2000, BN_CEV_VBUS_OFF, 0, 0 } };
	struct opts o = sdp_real();
	struct stream s = STREAM(late_lines, seg_product);
	struct bn_result r;

	(void)state;
	o.events |= BN_CEV_BIT(BN_CEV_DATA_CONTACT);
	r = run(&o, &s, "bc12.host.connect_time");
	expect_inconclusive(&r);
	expect_reason(&r, "the data lines touched only 1.500 s after VBUS valid");
	s = STREAM(lines_in_time, seg_product);
	r = run(&o, &s, "bc12.host.connect_time");
	expect_judged(&r, BN_VERDICT_FAIL);
	s = STREAM(never, seg_product);
	r = run(&o, &s, "bc12.host.connect_time");
	expect_inconclusive(&r);
	expect_reason(&r, "never touched");
	/* where the source does not report data contact, a late connect fails */
	o.events &= ~BN_CEV_BIT(BN_CEV_DATA_CONTACT);
	s = STREAM(late_lines, seg_product);
	r = run(&o, &s, "bc12.host.connect_time");
	expect_judged(&r, BN_VERDICT_FAIL);
}

/* ---- bare captures: nothing passes on a guessed attach or connect ---- */

/* A capture that starts with VBUS on and D+ high (the device connected
 * long before), replayed without its events: replay infers the connect
 * from D+ at the first sample. */
static void test_checks_host_choice__bare_capture_vbus_on_from_start(void **state)
{
	static const struct vseg vbus[] = { { 0, 5.0 } };
	static const struct ev at_start[] = { { 0, BN_CEV_VBUS_ON, 0, 0 }, { 0, BN_CEV_CONNECT, 0, 0 } };
	static const struct ev late[] = { { 0, BN_CEV_VBUS_ON, 0, 0 }, { 1500, BN_CEV_CONNECT, 0, 0 } };
	static const struct ev floating[] = { { 0, BN_CEV_VBUS_ON, 0, 0 }, { 0, BN_CEV_CONNECT, 0, 0 },
					      { 5, BN_CEV_DISCONNECT, 0, 0 }, { 1568, BN_CEV_CONNECT, 0, 0 } };
	static const struct ev floating_ok[] = { { 0, BN_CEV_VBUS_ON, 0, 0 }, { 0, BN_CEV_CONNECT, 0, 0 },
						 { 5, BN_CEV_DISCONNECT, 0, 0 }, { 68, BN_CEV_CONNECT, 0, 0 } };
	static const struct seg seg[] = { { 0, 0.09 } };
	struct opts o = sdp_real();
	/* VBUS-on inferred (no sample below came first): no attach time */
	struct stream s = { .ev = at_start, .n_ev = N(at_start), .seg = seg, .n_seg = N(seg),
			    .end_ms = 2100, .vbus = vbus, .n_vbus = N(vbus), .dp_v = 3.3,
			    .inferred = BN_CEV_BIT(BN_CEV_VBUS_ON) | BN_CEV_BIT(BN_CEV_CONNECT) };
	struct bn_result r;

	(void)state;
	o.events = BN_CEV_BIT(BN_CEV_VBUS_ON) | BN_CEV_BIT(BN_CEV_VBUS_OFF) | BN_CEV_BIT(BN_CEV_CONNECT) |
		   BN_CEV_BIT(BN_CEV_DISCONNECT);
	r = run(&o, &s, "bc12.host.connect_time");
	expect_inconclusive(&r);
	expect_reason(&r, "attach time is unknown");
	/* VBUS-on reported as if measured, the connect inferred: D+ was
	 * high from the attach's first instant, a connect from before the
	 * capture or a floating line, never a pass and never a fail */
	s.inferred = BN_CEV_BIT(BN_CEV_CONNECT);
	r = run(&o, &s, "bc12.host.connect_time");
	expect_inconclusive(&r);
	expect_reason(&r, "D+ was already high when VBUS came");
	/* D+ high at the attach (a floating line), low at data contact, high
	 * again 1.568 s on: the device connected late, and the rule says so */
	s.ev = floating;
	s.n_ev = N(floating);
	s.inferred = BN_CEV_BIT(BN_CEV_CONNECT) | BN_CEV_BIT(BN_CEV_DISCONNECT);
	r = run(&o, &s, "bc12.host.connect_time");
	expect_verdict(&r, BN_VERDICT_FAIL);
	assert_near(r.measured, 1.568, 1e-9);
	s.ev = floating_ok;
	s.n_ev = N(floating_ok);
	r = run(&o, &s, "bc12.host.connect_time");
	expect_inconclusive(&r);
	expect_reason(&r, "inferred");
	assert_near(r.measured, 0.068, 1e-9);
	/* the connect seen 1.5 s into the capture: at least 1.5 s late */
	s.inferred = BN_CEV_BIT(BN_CEV_VBUS_ON) | BN_CEV_BIT(BN_CEV_CONNECT);
	s.ev = late;
	s.n_ev = N(late);
	r = run(&o, &s, "bc12.host.connect_time");
	expect_verdict(&r, BN_VERDICT_FAIL);
	expect_reason(&r, "at least");
	assert_near(r.measured, 1.5, 1e-9);
}

/* VBUS seen rising in the samples: the clock starts at the measured
 * crossing, not at the capture's start, with or without a VBUS-on event. */
static void test_checks_host_choice__connect_time_from_measured_vbus(void **state)
{
	static const struct vseg vbus[] = { { 0, 0.02 }, { 300, 5.0 } };
	static const struct ev bench[] = { { 363, BN_CEV_CONNECT, 0, 0 } };
	static const struct ev bare[] = { { 300, BN_CEV_VBUS_ON, 0, 0 }, { 363, BN_CEV_CONNECT, 0, 0 } };
	static const struct seg seg[] = { { 0, 0 } };
	struct opts o = sdp_real();
	struct stream s = { .ev = bench, .n_ev = N(bench), .seg = seg, .n_seg = N(seg), .end_ms = 2100,
			    .vbus = vbus, .n_vbus = N(vbus) };
	struct bn_result r = run(&o, &s, "bc12.host.connect_time");

	(void)state;
	expect_judged(&r, BN_VERDICT_PASS);
	assert_near(r.measured, 0.063, 1e-9);
	assert_int_equal(r.t0_us, MS(300));
	/* replay's own events: the pass rests on a connect read off D+ */
	s.ev = bare;
	s.n_ev = N(bare);
	s.inferred = BN_CEV_BIT(BN_CEV_CONNECT);
	r = run(&o, &s, "bc12.host.connect_time");
	expect_inconclusive(&r);
	expect_reason(&r, "inferred");
	assert_near(r.measured, 0.063, 1e-9);
}

/* hold() and sample() agree on the VBUS persistence. */
static void test_checks_host_choice__connect_time_hold(void **state)
{
	static const struct vseg vbus[] = { { 0, 0.0 }, { 300, 5.0 }, { 300.2, 0.0 }, { 301, 5.0 } };
	static const struct ev ev[] = { { 900, BN_CEV_CONNECT, 0, 0 } };
	static const struct seg seg[] = { { 0, 0 } };
	struct opts o = sdp();
	struct stream s = { .ev = ev, .n_ev = N(ev), .seg = seg, .n_seg = N(seg), .end_ms = 2100,
			    .vbus = vbus, .n_vbus = N(vbus) };
	struct bn_result a, b;

	(void)state;
	o.rate_hz = 10000;
	a = run(&o, &s, "bc12.host.connect_time");
	o.no_hold = true;
	b = run(&o, &s, "bc12.host.connect_time");
	expect_verdict(&a, BN_VERDICT_PASS);
	/* the 0.2 ms blip at 300 ms is shorter than the persistence */
	assert_int_equal(a.t0_us, MS(301));
	assert_int_equal(a.verdict, b.verdict);
	assert_true(a.measured == b.measured && a.u == b.u && a.t0_us == b.t0_us);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_checks_host_choice__unconnected_pass),
		cmocka_unit_test(test_checks_host_choice__unconnected_fail_draw_while_detecting),
		cmocka_unit_test(test_checks_host_choice__unconnected_fail_sliding_window),
		cmocka_unit_test(test_checks_host_choice__unconnected_connect_window),
		cmocka_unit_test(test_checks_host_choice__unconnected_inconclusive_without_ibus),
		cmocka_unit_test(test_checks_host_choice__unconnected_skipped_dead_battery_dbp),
		cmocka_unit_test(test_checks_host_choice__unconnected_slow_plug),
		cmocka_unit_test(test_checks_host_choice__suspend_pass),
		cmocka_unit_test(test_checks_host_choice__suspend_fail_slow_to_enter),
		cmocka_unit_test(test_checks_host_choice__suspend_fail_ignored),
		cmocka_unit_test(test_checks_host_choice__suspend_inconclusive_without_suspend_events),
		cmocka_unit_test(test_checks_host_choice__suspend_inconclusive_never_suspended),
		cmocka_unit_test(test_checks_host_choice__unconfigured_pass),
		cmocka_unit_test(test_checks_host_choice__unconfigured_testers_window),
		cmocka_unit_test(test_checks_host_choice__unconfigured_fail),
		cmocka_unit_test(test_checks_host_choice__unconfigured_after_deconfig),
		cmocka_unit_test(test_checks_host_choice__unconfigured_inconclusive_low_rate),
		cmocka_unit_test(test_checks_host_choice__configured_pass),
		cmocka_unit_test(test_checks_host_choice__configured_fail_above_bmaxpower),
		cmocka_unit_test(test_checks_host_choice__configured_fail_above_icfg_max),
		cmocka_unit_test(test_checks_host_choice__configured_inconclusive_without_config_events),
		cmocka_unit_test(test_checks_host_choice__configured_not_judged_on_cdp),
		cmocka_unit_test(test_checks_host_choice__connect_time_pass),
		cmocka_unit_test(test_checks_host_choice__connect_time_fail_late),
		cmocka_unit_test(test_checks_host_choice__connect_time_window),
		cmocka_unit_test(test_checks_host_choice__connect_time_fail_never),
		cmocka_unit_test(test_checks_host_choice__connect_time_inconclusive_without_vbus),
		cmocka_unit_test(test_checks_host_choice__connect_time_dbp_exemption),
		cmocka_unit_test(test_checks_host_choice__connect_time_skipped_without_host),
		cmocka_unit_test(test_checks_host_choice__realistic_unconnected),
		cmocka_unit_test(test_checks_host_choice__realistic_suspend_isusp),
		cmocka_unit_test(test_checks_host_choice__realistic_unconfigured),
		cmocka_unit_test(test_checks_host_choice__realistic_configured),
		cmocka_unit_test(test_checks_host_choice__realistic_connect_time),
		cmocka_unit_test(test_checks_host_choice__suspend_entry_pass),
		cmocka_unit_test(test_checks_host_choice__suspend_entry_fail_late),
		cmocka_unit_test(test_checks_host_choice__suspend_entry_never_falls),
		cmocka_unit_test(test_checks_host_choice__suspend_entry_within_u),
		cmocka_unit_test(test_checks_host_choice__suspend_entry_window),
		cmocka_unit_test(test_checks_host_choice__suspend_entry_slew),
		cmocka_unit_test(test_checks_host_choice__suspend_entry_coarse),
		cmocka_unit_test(test_checks_host_choice__suspend_entry_data_ends),
		cmocka_unit_test(test_checks_host_choice__suspend_entry_hold),
		cmocka_unit_test(test_checks_host_choice__suspend_entry_inconclusive),
		cmocka_unit_test(test_checks_host_choice__configured_limit_named),
		cmocka_unit_test(test_checks_host_choice__configured_zero_bmaxpower),
		cmocka_unit_test(test_checks_host_choice__blame_host_never_enumerates),
		cmocka_unit_test(test_checks_host_choice__blame_host_never_configures),
		cmocka_unit_test(test_checks_host_choice__blame_device_never_connects),
		cmocka_unit_test(test_checks_host_choice__connect_time_slow_plug),
		cmocka_unit_test(test_checks_host_choice__bare_capture_vbus_on_from_start),
		cmocka_unit_test(test_checks_host_choice__connect_time_from_measured_vbus),
		cmocka_unit_test(test_checks_host_choice__connect_time_hold),
	};

	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, bn_test_setup_limits, bn_test_teardown_limits);
}
