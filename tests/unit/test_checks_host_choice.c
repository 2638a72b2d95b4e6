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

/* ---- a synthetic stream: events and a piecewise-constant IBUS ---- */

#define MS(x) ((bn_time_us)((x) * 1000.0))

struct ev {
	double t_ms;
	enum bn_cev_kind kind;
	int value;
	double num;
};

struct seg {
	double from_ms;
	double amps;
};

struct stream {
	const struct ev *ev;
	int n_ev;
	const struct seg *seg;  /* IBUS = amps of the last segment with from_ms <= t */
	int n_seg;
	double end_ms;
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

struct opts {
	enum bn_port_type port;
	double rate_hz;
	unsigned channels;
	unsigned events;
	unsigned decl;
	double dp_pulldown_ohm;
};

static struct opts sdp(void)
{
	return (struct opts){
		.port = BN_PORT_SDP,
		.rate_hz = 2000,
		.channels = (1u << BN_CH_VBUS) | (1u << BN_CH_IBUS) | (1u << BN_CH_DP) | (1u << BN_CH_DM),
		.events = BN_CEV_ALL,
		.dp_pulldown_ohm = 15000,
	};
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
	};
	struct bn_checks *c = NULL;
	struct bn_err err = { 0 };
	struct bn_report rep;
	struct bn_result out;
	bool vbus = false, found = false;
	int e = 0, g = 0;
	bn_time_us dt = (bn_time_us)llround(1e6 / o->rate_hz), t;

	assert_int_equal(bn_checks_new(&ctx, &c, &err), BN_OK);
	for (long k = 0; (t = k * dt) < MS(s->end_ms); k++) {
		struct bn_sample smp;

		while (e < s->n_ev && MS(s->ev[e].t_ms) <= t) {
			struct bn_cev ev = { .kind = s->ev[e].kind, .t_us = MS(s->ev[e].t_ms),
					     .value = s->ev[e].value, .num = s->ev[e].num };

			if (ev.kind == BN_CEV_VBUS_ON)
				vbus = true;
			if (ev.kind == BN_CEV_VBUS_OFF)
				vbus = false;
			bn_checks_event(c, &ev);
			e++;
		}
		while (g + 1 < s->n_seg && MS(s->seg[g + 1].from_ms) <= t)
			g++;
		smp.v[BN_CH_VBUS] = vbus ? 5.0 : 0.0;
		smp.v[BN_CH_IBUS] = s->n_seg ? s->seg[g].amps : 0.0;
		smp.v[BN_CH_DP] = smp.v[BN_CH_DM] = 0.0;
		smp.v[BN_CH_ID] = NAN;
		for (int ch = 0; ch < BN_CH_COUNT; ch++)
			if (!(o->channels & (1u << ch)))
				smp.v[ch] = NAN;
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
#define STREAM(evs, segs) ((struct stream){ evs, N(evs), segs, N(segs), 2100 })

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
	static const struct ev ev[] = { { 0, BN_CEV_VBUS_ON, 0, 0 }, { 6000, BN_CEV_VBUS_OFF, 0, 0 } };
	static const struct seg seg[] = { { 0, 0 }, { 3000, 0.004 }, { 4000, 0 } };
	struct opts o = sdp();
	struct stream s = { ev, N(ev), seg, N(seg), 6100 };
	struct bn_result r = run(&o, &s, "bc12.host.unconnected_isusp");

	(void)state;
	expect_verdict(&r, BN_VERDICT_FAIL);
	assert_true(fabs(r.measured - 0.004) < 1e-6);
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

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_checks_host_choice__unconnected_pass),
		cmocka_unit_test(test_checks_host_choice__unconnected_fail_draw_while_detecting),
		cmocka_unit_test(test_checks_host_choice__unconnected_fail_sliding_window),
		cmocka_unit_test(test_checks_host_choice__unconnected_inconclusive_without_ibus),
		cmocka_unit_test(test_checks_host_choice__unconnected_skipped_dead_battery_dbp),
		cmocka_unit_test(test_checks_host_choice__suspend_pass),
		cmocka_unit_test(test_checks_host_choice__suspend_fail_slow_to_enter),
		cmocka_unit_test(test_checks_host_choice__suspend_fail_ignored),
		cmocka_unit_test(test_checks_host_choice__suspend_inconclusive_without_suspend_events),
		cmocka_unit_test(test_checks_host_choice__suspend_inconclusive_never_suspended),
		cmocka_unit_test(test_checks_host_choice__unconfigured_pass),
		cmocka_unit_test(test_checks_host_choice__unconfigured_testers_window),
		cmocka_unit_test(test_checks_host_choice__unconfigured_fail),
		cmocka_unit_test(test_checks_host_choice__unconfigured_inconclusive_low_rate),
		cmocka_unit_test(test_checks_host_choice__configured_pass),
		cmocka_unit_test(test_checks_host_choice__configured_fail_above_bmaxpower),
		cmocka_unit_test(test_checks_host_choice__configured_fail_above_icfg_max),
		cmocka_unit_test(test_checks_host_choice__configured_inconclusive_without_config_events),
		cmocka_unit_test(test_checks_host_choice__configured_not_judged_on_cdp),
		cmocka_unit_test(test_checks_host_choice__connect_time_pass),
		cmocka_unit_test(test_checks_host_choice__connect_time_fail_late),
		cmocka_unit_test(test_checks_host_choice__connect_time_fail_never),
		cmocka_unit_test(test_checks_host_choice__connect_time_inconclusive_without_vbus),
		cmocka_unit_test(test_checks_host_choice__connect_time_dbp_exemption),
		cmocka_unit_test(test_checks_host_choice__connect_time_skipped_without_host),
	};

	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, bn_test_setup_limits, bn_test_teardown_limits);
}
