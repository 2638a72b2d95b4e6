/* The detection rules of bench/checks/detection.c on synthetic streams:
 * for each rule a stream that passes, one that fails, and one with an
 * input removed (or a capture too coarse) that is inconclusive, never pass;
 * under the realistic measurement (profiles/conditions/realistic.json
 * applied to the samples: 12-bit, noise, offset, gain) a good stream
 * passes, a breaking one fails and a borderline one is inconclusive
 * "within measurement uncertainty"; the handling and party cases (a slow
 * plug, a bounce, a late CDP, a ground offset) are inconclusive naming
 * the cause. The last tests run the simulated bench (a late CDP port, a
 * slow plug) with the reference firmware.
 * Limits from $BN_SRCDIR/profiles/limits/bc12.json (default: ./). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lib/harness.h"
#include "checks/check.h"
#include "core/conditions.h"
#include "core/err.h"
#include "core/limits.h"
#include "core/meas.h"
#include "report/report.h"
#include "scenario/runner.h"

/* A piecewise-constant stream: each segment lasts ms at these levels. */
struct seg {
	double ms, vbus, dp, dm;
};

/* An event at ms (DATA_CONTACT: num 1 made, 0 open; TELEMETRY: key, text). */
struct tev {
	double ms;
	enum bn_cev_kind kind;
	double num;
	const char *key, *text;
};

struct strm {
	const struct seg *s;
	int n;
	double contact_ms; /* a data_contact (made) event then; < 0: none */
};

/* How a stream is run. */
struct opt {
	double q;                 /* round levels to this LSB (0: as given) */
	bool noisy;               /* apply ctx's measurement (bn_test_ctx_conditions) */
	unsigned long long seed;  /* of the noise; 0: 1 */
	const struct tev *evs;    /* more events, in time order */
	int n_evs;
};

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))
#define STRM(a, c) ((struct strm){ (a), N(a), (c) })
#define ALL_CH ((1u << BN_CH_VBUS) | (1u << BN_CH_IBUS) | (1u << BN_CH_DP) | (1u << BN_CH_DM))

static struct bn_check_ctx ctx_for(enum bn_port_type port)
{
	struct bn_check_ctx c = {
		.lim = &bn_test_lim,
		.port = port,
		.port_name = bn_port_name(port),
		.rate_hz = 10000,
		.channels = ALL_CH,
		.events = BN_CEV_ALL,
		.decl = BN_DECL_BATTERY | BN_DECL_SECONDARY,
	};

	if (port == BN_PORT_SDP || port == BN_PORT_CDP)
		c.dp_pulldown_ohm = c.dm_pulldown_ohm = 15000;
	if (port == BN_PORT_DCP)
		c.dp_dm_short_ohm = 200;
	return c;
}

static struct bn_check_ctx ctx_real(enum bn_port_type port)
{
	struct bn_check_ctx c = ctx_for(port);

	bn_test_ctx_conditions(&c, "realistic");
	return c;
}

static double quant(double v, double q)
{
	return q > 0 ? round(v / q) * q : v;
}

static void send(struct bn_checks *c, const struct tev *e)
{
	struct bn_cev ev = { .kind = e->kind, .t_us = (bn_time_us)llround(e->ms * 1000.0),
			     .num = e->num, .key = e->key, .text = e->text };

	bn_checks_event(c, &ev);
}

/* Run every rule over the stream (VBUS_ON at 0); the result of rule id. */
static struct bn_result run(const struct bn_check_ctx *ctx, struct strm st, const struct opt *o,
			    const char *id)
{
	static const struct opt plain = { 0 };
	struct bn_checks *c = NULL;
	struct bn_err err = { 0 };
	struct bn_report rep;
	struct bn_result out = { .verdict = BN_VERDICT_ERROR };
	struct tev on = { 0, BN_CEV_VBUS_ON, 0, NULL, NULL };
	struct tev ct = { st.contact_ms, BN_CEV_DATA_CONTACT, 1, NULL, NULL };
	struct bn_rng rng;
	bn_time_us t0 = 0;
	long k = 0;
	int ei = 0;
	bool ct_sent = st.contact_ms < 0;

	if (!o)
		o = &plain;
	bn_rng_seed(&rng, o->seed ? o->seed : 1);
	assert_int_equal(bn_checks_new(ctx, &c, &err), BN_OK);
	send(c, &on);
	for (int i = 0; i < st.n; i++) {
		bn_time_us t1 = t0 + (bn_time_us)llround(st.s[i].ms * 1000.0);

		for (;; k++) {
			bn_time_us t = (bn_time_us)llround((double)k * 1e6 / ctx->rate_hz);
			struct bn_sample smp = { { 0 } };

			if (t >= t1)
				break;
			if (!ct_sent && (bn_time_us)llround(st.contact_ms * 1000.0) <= t) {
				send(c, &ct);
				ct_sent = true;
			}
			while (ei < o->n_evs && (bn_time_us)llround(o->evs[ei].ms * 1000.0) <= t)
				send(c, &o->evs[ei++]);
			smp.v[BN_CH_VBUS] = quant(st.s[i].vbus, o->q);
			smp.v[BN_CH_DP] = quant(st.s[i].dp, o->q);
			smp.v[BN_CH_DM] = quant(st.s[i].dm, o->q);
			if (o->noisy)
				bn_test_measure(ctx, &rng, &smp);
			for (int ch = 0; ch < BN_CH_COUNT; ch++)
				if (!(ctx->channels & (1u << ch)))
					smp.v[ch] = NAN;
			bn_checks_sample(c, t, &smp);
		}
		t0 = t1;
	}
	if (!ct_sent)
		send(c, &ct);
	while (ei < o->n_evs)
		send(c, &o->evs[ei++]);
	bn_report_init(&rep);
	bn_checks_end(c, t0, &rep);
	for (int i = 0; i < rep.n_results; i++)
		if (!strcmp(rep.results[i].id, id)) {
			out = rep.results[i];
			print_message("    %s: %s %g %s U=%g (%s)\n", id, bn_verdict_name(out.verdict),
				      out.measured, out.unit, out.u, out.reason);
		}
	bn_report_free(&rep);
	bn_checks_free(c);
	assert_int_not_equal(out.verdict, BN_VERDICT_ERROR); /* the rule exists */
	return out;
}

static enum bn_verdict verdict(const struct bn_check_ctx *ctx, struct strm st, const struct opt *o,
			       const char *id)
{
	return run(ctx, st, o, id).verdict;
}

#define assert_reason_has(r, s)                                                       \
	do {                                                                          \
		if (!strstr((r).reason, (s)))                                         \
			fail_msg("reason \"%s\" lacks \"%s\"", (r).reason, (s));      \
	} while (0)

#define assert_within_u(r)                                                            \
	do {                                                                          \
		assert_int_equal((r).verdict, BN_VERDICT_INCONCLUSIVE);               \
		assert_reason_has(r, "within measurement uncertainty");               \
	} while (0)

/* A pass that holds its margin against U (what the reference must show). */
#define assert_clear_pass(r)                                                          \
	do {                                                                          \
		assert_int_equal((r).verdict, BN_VERDICT_PASS);                       \
		assert_true((r).has_u);                                               \
	} while (0)

static const struct opt noisy = { .noisy = true };

/* ---- streams (levels as the sim produces them, not round numbers) ---- */

/* SDP: no contact 5 ms (IDP_SRC into leakage), contact, 12 ms debounce,
 * 1 ms idle, 45 ms VDP_SRC, connect. */
static const struct seg sdp_ok[] = {
	{ 5, 5.1, 3.1234, 0.0 },   { 12, 5.1, 0.14287, 0.0 }, { 1, 5.1, 0.0, 0.0 },
	{ 45, 5.1, 0.59613, 0.0 }, { 200, 5.1, 3.0017, 0.0 }, { 10, 0.0, 0.0, 0.0 },
};
/* A 20 uA DCD current. */
static const struct seg sdp_idp_high[] = {
	{ 5, 5.1, 3.1234, 0.0 },   { 12, 5.1, 0.28571, 0.0 }, { 1, 5.1, 0.0, 0.0 },
	{ 45, 5.1, 0.59613, 0.0 }, { 200, 5.1, 3.0017, 0.0 },
};
/* IDP_SRC at 13 uA as the realistic measurement reads it (gain +0.5 %,
 * offset +2 mV): on the limit. */
static const struct seg sdp_idp_edge[] = {
	{ 5, 5.1, 3.1234, 0.0 },   { 12, 5.1, 0.187307, 0.0 }, { 1, 5.1, 0.0, 0.0 },
	{ 45, 5.1, 0.59613, 0.0 }, { 200, 5.1, 3.0017, 0.0 },
};
/* A 2 ms debounce. */
static const struct seg sdp_dbnc_short[] = {
	{ 5, 5.1, 3.1234, 0.0 },   { 2, 5.1, 0.14287, 0.0 }, { 1, 5.1, 0.0, 0.0 },
	{ 45, 5.1, 0.59613, 0.0 }, { 200, 5.1, 3.0017, 0.0 },
};
/* A debounce of exactly TDCD_DBNC min (10 ms). */
static const struct seg sdp_dbnc_edge[] = {
	{ 5, 5.1, 3.1234, 0.0 },   { 9, 5.1, 0.14287, 0.0 }, { 1, 5.1, 0.0, 0.0 },
	{ 45, 5.1, 0.59613, 0.0 }, { 200, 5.1, 3.0017, 0.0 },
};
/* 12 ms debounce, but D+ glitched above VLGC for 0.5 ms 8 ms into it. */
static const struct seg sdp_dbnc_glitch[] = {
	{ 5, 5.1, 3.1234, 0.0 },   { 8, 5.1, 0.14287, 0.0 },  { 0.5, 5.1, 3.1234, 0.0 },
	{ 3.5, 5.1, 0.14287, 0.0 }, { 1, 5.1, 0.0, 0.0 },     { 45, 5.1, 0.59613, 0.0 },
	{ 200, 5.1, 3.0017, 0.0 },
};
/* No DCD: primary 1 ms after attach. */
static const struct seg sdp_no_dcd[] = {
	{ 1, 5.1, 0.0, 0.0 }, { 45, 5.1, 0.59613, 0.0 }, { 200, 5.1, 3.0017, 0.0 },
};
/* No DCD, but primary after 350 ms: legal. */
static const struct seg sdp_no_dcd_late[] = {
	{ 350, 5.1, 0.0, 0.0 }, { 45, 5.1, 0.59613, 0.0 }, { 200, 5.1, 3.0017, 0.0 },
};
/* No DCD, primary at exactly TDCD_TIMEOUT min. */
static const struct seg sdp_no_dcd_edge[] = {
	{ 300, 5.1, 0.0, 0.0 }, { 45, 5.1, 0.59613, 0.0 }, { 200, 5.1, 3.0017, 0.0 },
};
/* DCD never sees contact; primary at 1.2 s. */
static const struct seg float_late[] = {
	{ 1200, 5.1, 3.1234, 0.0 }, { 1, 5.1, 0.0, 0.0 }, { 45, 5.1, 0.59613, 0.0 },
	{ 200, 5.1, 3.0017, 0.0 },
};
/* VBUS rising over 8 ms (valid, above 4.0 V, from 6 ms), then as sdp_no_dcd_late. */
static const struct seg sdp_slow_vbus[] = {
	{ 2, 1.0, 0.0, 0.0 },   { 2, 2.0, 0.0, 0.0 },      { 2, 3.9, 0.0, 0.0 },
	{ 2, 4.4, 0.0, 0.0 },   { 348, 5.1, 0.0, 0.0 },    { 45, 5.1, 0.59613, 0.0 },
	{ 200, 5.1, 3.0017, 0.0 },
};
/* VDP_SRC held 20 ms. */
static const struct seg sdp_vdp_short[] = {
	{ 5, 5.1, 3.1234, 0.0 },   { 12, 5.1, 0.14287, 0.0 }, { 1, 5.1, 0.0, 0.0 },
	{ 20, 5.1, 0.59613, 0.0 }, { 200, 5.1, 3.0017, 0.0 },
};
/* VDP_SRC held exactly TVDPSRC_ON min (40 ms). */
static const struct seg sdp_vdp_edge[] = {
	{ 5, 5.1, 3.1234, 0.0 },   { 12, 5.1, 0.14287, 0.0 }, { 1, 5.1, 0.0, 0.0 },
	{ 40, 5.1, 0.59613, 0.0 }, { 200, 5.1, 3.0017, 0.0 },
};
/* VDP_SRC held long enough, at 0.75 V. */
static const struct seg sdp_vdp_high[] = {
	{ 5, 5.1, 3.1234, 0.0 },   { 12, 5.1, 0.14287, 0.0 }, { 1, 5.1, 0.0, 0.0 },
	{ 45, 5.1, 0.75113, 0.0 }, { 200, 5.1, 3.0017, 0.0 },
};
/* VDP_SRC at 0.7 V as the realistic measurement reads it: on the limit. */
static const struct seg sdp_vdp_level_edge[] = {
	{ 5, 5.1, 3.1234, 0.0 },   { 12, 5.1, 0.14287, 0.0 }, { 1, 5.1, 0.0, 0.0 },
	{ 45, 5.1, 0.694527, 0.0 }, { 200, 5.1, 3.0017, 0.0 },
};
/* 45 ms at VDP_SRC, but 5 ms of it at 0.45 V (an excursion below VDP_SRC min). */
static const struct seg sdp_vdp_dip[] = {
	{ 5, 5.1, 3.1234, 0.0 },   { 12, 5.1, 0.14287, 0.0 }, { 1, 5.1, 0.0, 0.0 },
	{ 20, 5.1, 0.59613, 0.0 }, { 5, 5.1, 0.45, 0.0 },     { 20, 5.1, 0.59613, 0.0 },
	{ 200, 5.1, 3.0017, 0.0 },
};
/* 45 ms at VDP_SRC with a 0.5 ms dropout: shorter than the persistence. */
static const struct seg sdp_vdp_dropout[] = {
	{ 5, 5.1, 3.1234, 0.0 },    { 12, 5.1, 0.14287, 0.0 }, { 1, 5.1, 0.0, 0.0 },
	{ 20, 5.1, 0.59613, 0.0 },  { 0.5, 5.1, 0.0, 0.0 },    { 24.5, 5.1, 0.59613, 0.0 },
	{ 200, 5.1, 3.0017, 0.0 },
};

/* DCP (200 ohm short): DCD, primary with a 100 uA IDM_SINK (D+ above D-),
 * secondary (D- above D+), then charging with D+ at VDP_SRC; VBUS off at
 * the end with the lines idle (the auto-zero's window). */
#define DCP_PRE { 5, 5.1, 3.1234, 0.0001 }, { 12, 5.1, 0.19711, 0.19513 }, { 1, 5.1, 0.0, 0.0 }
#define DCP_CHARGE { 300, 5.1, 0.59983, 0.59943 }, { 100, 0.0, 0.0, 0.0 }
static const struct seg dcp_ok[] = {
	DCP_PRE, { 45, 5.1, 0.59003, 0.56965 }, { 45, 5.1, 0.57971, 0.59013 }, DCP_CHARGE,
};
/* A 10 uA IDM_SINK: 2.4 mV across the short. */
static const struct seg dcp_weak_sink[] = {
	DCP_PRE, { 45, 5.1, 0.59903, 0.59663 }, { 45, 5.1, 0.57971, 0.59013 }, DCP_CHARGE,
};
/* IDM_SINK at 25 uA (with D-'s leakage bound taken off): on the limit. */
static const struct seg dcp_sink_edge[] = {
	DCP_PRE, { 45, 5.1, 0.58500, 0.5798067 }, { 45, 5.1, 0.57971, 0.59013 }, DCP_CHARGE,
};
/* A 25 uA IDM_SINK and a 25 uA IDP_SINK (5 mV each way across the short),
 * secondary exactly 45 ms: noise of 4 mV on the difference must not cut it. */
static const struct seg dcp_min_sinks[] = {
	DCP_PRE, { 45, 5.1, 0.59500, 0.5900 }, { 45, 5.1, 0.5850, 0.5900 }, DCP_CHARGE,
};
/* VDM_SRC held 20 ms. */
static const struct seg dcp_vdm_short[] = {
	DCP_PRE, { 45, 5.1, 0.59003, 0.56965 }, { 20, 5.1, 0.57971, 0.59013 }, DCP_CHARGE,
};
/* VDM_SRC at 0.45 V. */
static const struct seg dcp_vdm_low[] = {
	DCP_PRE, { 45, 5.1, 0.59003, 0.56965 }, { 45, 5.1, 0.43011, 0.45023 }, DCP_CHARGE,
};
/* A slow plug on a DCP: the lines are open until 1.5 s; DCD times out at
 * 0.6 s, primary detection on open lines (D- at 0), the device takes an
 * SDP and connects. */
static const struct seg dcp_open[] = {
	{ 600, 5.1, 3.1234, 0.0 }, { 1, 5.1, 0.0, 0.0 }, { 50, 5.1, 0.59613, 0.0 },
	{ 849, 5.1, 3.0017, 0.0 }, { 300, 5.1, 3.0017, 2.9 }, { 100, 0.0, 0.0, 0.0 },
};

/* No DCD: primary detection 1 ms after VBUS, on lines that touch only at
 * 5 ms (D- at 0 V, the short not yet across), then an SDP's connect. */
static const struct seg dcp_open_early[] = {
	{ 1, 5.1, 0.0, 0.0 }, { 50, 5.1, 0.59613, 0.0 }, { 300, 5.1, 3.0017, 2.9 },
	{ 100, 0.0, 0.0, 0.0 },
};

/* CDP: primary (the responder lifts D- after 20 ms), secondary with D+ sunk. */
static const struct seg cdp_ok[] = {
	{ 5, 5.1, 3.1234, 0.0 },    { 12, 5.1, 0.14287, 0.0 },   { 1, 5.1, 0.0, 0.0 },
	{ 20, 5.1, 0.59613, 0.0 },  { 25, 5.1, 0.59613, 0.57012 }, { 45, 5.1, 0.0, 0.59521 },
	{ 200, 5.1, 3.0017, 0.0 },
};
/* Secondary held exactly TVDMSRC_ON min (40 ms). */
static const struct seg cdp_vdm_edge[] = {
	{ 5, 5.1, 3.1234, 0.0 },    { 12, 5.1, 0.14287, 0.0 },   { 1, 5.1, 0.0, 0.0 },
	{ 20, 5.1, 0.59613, 0.0 },  { 25, 5.1, 0.59613, 0.57012 }, { 40, 5.1, 0.0, 0.59521 },
	{ 200, 5.1, 3.0017, 0.0 },
};
/* The device connects right after primary: no secondary detection. */
static const struct seg cdp_no_secondary[] = {
	{ 5, 5.1, 3.1234, 0.0 },   { 12, 5.1, 0.14287, 0.0 },   { 1, 5.1, 0.0, 0.0 },
	{ 20, 5.1, 0.59613, 0.0 }, { 25, 5.1, 0.59613, 0.57012 }, { 200, 5.1, 3.0017, 0.0 },
};
/* A late CDP: it lifts D- only 35 ms into primary; the device (which
 * looked earlier) took an SDP and connects. */
static const struct seg cdp_late_35[] = {
	{ 5, 5.1, 3.1234, 0.0 },   { 12, 5.1, 0.14287, 0.0 },   { 1, 5.1, 0.0, 0.0 },
	{ 35, 5.1, 0.59613, 0.0 }, { 10, 5.1, 0.59613, 0.57012 }, { 200, 5.1, 3.0017, 0.0 },
};
/* A CDP that never answers in the device's 45 ms of VDP_SRC. */
static const struct seg cdp_silent[] = {
	{ 5, 5.1, 3.1234, 0.0 },   { 12, 5.1, 0.14287, 0.0 }, { 1, 5.1, 0.0, 0.0 },
	{ 45, 5.1, 0.59613, 0.0 }, { 200, 5.1, 3.0017, 0.0 },
};
/* A device that looks at D- 5 ms into primary and drops VDP_SRC: the port
 * had no time to answer, the device is to blame. */
static const struct seg cdp_device_early[] = {
	{ 5, 5.1, 3.1234, 0.0 },  { 12, 5.1, 0.14287, 0.0 }, { 1, 5.1, 0.0, 0.0 },
	{ 5, 5.1, 0.59613, 0.0 }, { 200, 5.1, 3.0017, 0.0 },
};

static const struct tev tel_sdp[] = { { 80, BN_CEV_TELEMETRY, 0, "port", "sdp" } };
static const struct tev tel_dcp[] = { { 120, BN_CEV_TELEMETRY, 0, "port", "dcp" } };
static const struct tev tel_cdp[] = { { 120, BN_CEV_TELEMETRY, 0, "port", "cdp" } };
static const struct opt o_sdp = { .evs = tel_sdp, .n_evs = 1 };
static const struct opt o_dcp = { .evs = tel_dcp, .n_evs = 1 };
static const struct opt o_cdp = { .evs = tel_cdp, .n_evs = 1 };

/* ---- bc12.dcd.idp_src ---- */

static void test_checks_detection__idp_src_passes_at_10uA(void **state)
{
	struct bn_check_ctx c = ctx_for(BN_PORT_SDP);
	struct bn_result r;

	(void)state;
	r = run(&c, STRM(sdp_ok, 5), NULL, "bc12.dcd.idp_src");
	assert_int_equal(r.verdict, BN_VERDICT_PASS);
	/* over the pull-down, plus half the port leakage's most */
	assert_near(r.measured, 0.14287 / 15000 + 0.14287 / 300e3 / 2, 1e-12);
	assert_string_equal(r.unit, "A");
}

static void test_checks_detection__idp_src_fails_at_19uA(void **state)
{
	struct bn_check_ctx c = ctx_for(BN_PORT_SDP);

	(void)state;
	assert_int_equal(verdict(&c, STRM(sdp_idp_high, 5), NULL, "bc12.dcd.idp_src"), BN_VERDICT_FAIL);
}

static void test_checks_detection__idp_src_inconclusive_without_dcd_or_rate(void **state)
{
	struct bn_check_ctx c = ctx_for(BN_PORT_SDP);

	(void)state;
	assert_int_equal(verdict(&c, STRM(sdp_no_dcd_late, 0), NULL, "bc12.dcd.idp_src"),
			 BN_VERDICT_INCONCLUSIVE);
	c.rate_hz = 500;
	assert_int_equal(verdict(&c, STRM(sdp_idp_high, 5), NULL, "bc12.dcd.idp_src"),
			 BN_VERDICT_INCONCLUSIVE);
	c = ctx_for(BN_PORT_SDP);
	c.channels &= ~(1u << BN_CH_DP);
	assert_int_equal(verdict(&c, STRM(sdp_idp_high, 5), NULL, "bc12.dcd.idp_src"),
			 BN_VERDICT_INCONCLUSIVE);
}

static void test_checks_detection__idp_src_skipped_without_pulldown(void **state)
{
	struct bn_check_ctx c = ctx_for(BN_PORT_SDP);

	(void)state;
	c.dp_pulldown_ohm = 0; /* a floating port, classified sdp */
	assert_int_equal(verdict(&c, STRM(sdp_idp_high, 5), NULL, "bc12.dcd.idp_src"),
			 BN_VERDICT_SKIPPED);
}

static void test_checks_detection__idp_src_realistic(void **state)
{
	struct bn_check_ctx c = ctx_real(BN_PORT_SDP);
	struct bn_result r;

	(void)state;
	assert_clear_pass(run(&c, STRM(sdp_ok, 5), &noisy, "bc12.dcd.idp_src"));
	assert_int_equal(verdict(&c, STRM(sdp_idp_high, 5), &noisy, "bc12.dcd.idp_src"),
			 BN_VERDICT_FAIL);
	r = run(&c, STRM(sdp_idp_edge, 5), &noisy, "bc12.dcd.idp_src");
	assert_within_u(r);
	/* U: the offset (2 mV) and gain (0.5 %) bounds over 15 kohm, the
	 * leakage bound, the noise of 120 samples: about 0.4 uA */
	assert_true(r.u > 0.2e-6 && r.u < 0.6e-6);
}

/* ---- bc12.dcd.debounce ---- */

static void test_checks_detection__debounce_passes_at_13ms(void **state)
{
	struct bn_check_ctx c = ctx_for(BN_PORT_SDP);
	struct bn_result r;

	(void)state;
	r = run(&c, STRM(sdp_ok, 5), NULL, "bc12.dcd.debounce");
	assert_int_equal(r.verdict, BN_VERDICT_PASS);
	assert_near(r.measured, 0.013, 1e-6);
}

static void test_checks_detection__debounce_fails_at_3ms(void **state)
{
	struct bn_check_ctx c = ctx_for(BN_PORT_SDP);

	(void)state;
	assert_int_equal(verdict(&c, STRM(sdp_dbnc_short, 5), NULL, "bc12.dcd.debounce"),
			 BN_VERDICT_FAIL);
}

static void test_checks_detection__debounce_inconclusive_without_dp_or_contact(void **state)
{
	struct bn_check_ctx c = ctx_for(BN_PORT_SDP);

	(void)state;
	assert_int_equal(verdict(&c, STRM(float_late, 5), NULL, "bc12.dcd.debounce"),
			 BN_VERDICT_INCONCLUSIVE);
	c.channels &= ~(1u << BN_CH_DP);
	assert_int_equal(verdict(&c, STRM(sdp_dbnc_short, 5), NULL, "bc12.dcd.debounce"),
			 BN_VERDICT_INCONCLUSIVE);
}

static void test_checks_detection__debounce_realistic(void **state)
{
	struct bn_check_ctx c = ctx_real(BN_PORT_SDP);

	(void)state;
	assert_clear_pass(run(&c, STRM(sdp_ok, 5), &noisy, "bc12.dcd.debounce"));
	assert_int_equal(verdict(&c, STRM(sdp_dbnc_short, 5), &noisy, "bc12.dcd.debounce"),
			 BN_VERDICT_FAIL);
	assert_within_u(run(&c, STRM(sdp_dbnc_edge, 5), &noisy, "bc12.dcd.debounce"));
}

/* A glitch shorter than the persistence does not end the low run, but
 * the device may have restarted its debounce there: 12.5 ms from the run's
 * start, 4 ms from the glitch. Neither pass nor fail. */
static void test_checks_detection__debounce_glitch_or_bounce_bounds_it(void **state)
{
	struct bn_check_ctx c = ctx_for(BN_PORT_SDP);
	static const struct tev bounce[] = {
		{ 10, BN_CEV_DATA_CONTACT, 0, NULL, NULL },
		{ 14, BN_CEV_DATA_CONTACT, 1, NULL, NULL },
	};
	struct opt o = { .evs = bounce, .n_evs = 2 };
	struct bn_result r;

	(void)state;
	r = run(&c, STRM(sdp_dbnc_glitch, 5), NULL, "bc12.dcd.debounce");
	assert_int_equal(r.verdict, BN_VERDICT_INCONCLUSIVE);
	assert_reason_has(r, "glitched above VLGC at 0.013");
	/* a bounce the bench reported (not seen on D+): the same */
	r = run(&c, STRM(sdp_ok, 5), &o, "bc12.dcd.debounce");
	assert_int_equal(r.verdict, BN_VERDICT_INCONCLUSIVE);
	assert_reason_has(r, "bounced at 0.014");
}

/* ---- bc12.det.primary_start ---- */

static void test_checks_detection__primary_start_passes(void **state)
{
	struct bn_check_ctx c = ctx_for(BN_PORT_SDP);

	(void)state;
	assert_int_equal(verdict(&c, STRM(sdp_ok, 5), NULL, "bc12.det.primary_start"), BN_VERDICT_PASS);
	assert_int_equal(verdict(&c, STRM(sdp_no_dcd_late, 0), NULL, "bc12.det.primary_start"),
			 BN_VERDICT_PASS);
}

static void test_checks_detection__primary_start_fails_early_and_late(void **state)
{
	struct bn_check_ctx c = ctx_for(BN_PORT_SDP);

	(void)state;
	assert_int_equal(verdict(&c, STRM(sdp_no_dcd, 0), NULL, "bc12.det.primary_start"),
			 BN_VERDICT_FAIL);
	assert_int_equal(verdict(&c, STRM(float_late, 5), NULL, "bc12.det.primary_start"),
			 BN_VERDICT_FAIL);
}

static void test_checks_detection__primary_start_inconclusive_without_vbus(void **state)
{
	struct bn_check_ctx c = ctx_for(BN_PORT_SDP);

	(void)state;
	c.channels &= ~(1u << BN_CH_VBUS);
	assert_int_equal(verdict(&c, STRM(sdp_no_dcd, 0), NULL, "bc12.det.primary_start"),
			 BN_VERDICT_INCONCLUSIVE);
}

static void test_checks_detection__primary_start_realistic(void **state)
{
	struct bn_check_ctx c = ctx_real(BN_PORT_SDP);

	(void)state;
	assert_clear_pass(run(&c, STRM(sdp_ok, 5), &noisy, "bc12.det.primary_start"));
	assert_int_equal(verdict(&c, STRM(sdp_no_dcd, 0), &noisy, "bc12.det.primary_start"),
			 BN_VERDICT_FAIL);
	assert_within_u(run(&c, STRM(sdp_no_dcd_edge, 0), &noisy, "bc12.det.primary_start"));
}

/* The clock starts when VBUS is measured valid (above VOTG_SESS_VLD max),
 * not at the bench's VBUS_ON: here 6 ms later, so primary detection at
 * 356 ms is 350 ms after the attach. */
static void test_checks_detection__primary_start_from_vbus_valid(void **state)
{
	struct bn_check_ctx c = ctx_for(BN_PORT_SDP);
	struct bn_result r;

	(void)state;
	r = run(&c, STRM(sdp_slow_vbus, 0), NULL, "bc12.det.primary_start");
	assert_int_equal(r.verdict, BN_VERDICT_PASS);
	assert_near(r.measured, 0.350, 1e-9);
	assert_int_equal(r.t0_us, 6000);
}

/* ---- bc12.det.vdp_src ---- */

static void test_checks_detection__vdp_src_passes_45ms(void **state)
{
	struct bn_check_ctx c = ctx_for(BN_PORT_SDP);
	struct bn_check_ctx d = ctx_for(BN_PORT_DCP);
	struct bn_result r;

	(void)state;
	r = run(&c, STRM(sdp_ok, 5), NULL, "bc12.det.vdp_src");
	assert_int_equal(r.verdict, BN_VERDICT_PASS);
	assert_near(r.measured, 0.045, 1e-6);
	/* On a DCP D+ stays near 0.6 V: the sign of V(D+)-V(D-) ends primary. */
	r = run(&d, STRM(dcp_ok, 5), NULL, "bc12.det.vdp_src");
	assert_int_equal(r.verdict, BN_VERDICT_PASS);
	assert_near(r.measured, 0.045, 1e-6);
}

static void test_checks_detection__vdp_src_fails_short_high_or_dipping(void **state)
{
	struct bn_check_ctx c = ctx_for(BN_PORT_SDP);
	struct bn_result r;

	(void)state;
	assert_int_equal(verdict(&c, STRM(sdp_vdp_short, 5), NULL, "bc12.det.vdp_src"),
			 BN_VERDICT_FAIL);
	assert_int_equal(verdict(&c, STRM(sdp_vdp_high, 5), NULL, "bc12.det.vdp_src"),
			 BN_VERDICT_FAIL);
	/* the mean (0.58 V) is inside; 5 ms at 0.45 V is not */
	r = run(&c, STRM(sdp_vdp_dip, 5), NULL, "bc12.det.vdp_src");
	assert_int_equal(r.verdict, BN_VERDICT_FAIL);
	assert_reason_has(r, "sat at 0.450 V for 5.0 ms");
}

static void test_checks_detection__vdp_src_inconclusive_without_dm(void **state)
{
	struct bn_check_ctx c = ctx_for(BN_PORT_SDP);

	(void)state;
	c.channels &= ~(1u << BN_CH_DM);
	assert_int_equal(verdict(&c, STRM(sdp_vdp_short, 5), NULL, "bc12.det.vdp_src"),
			 BN_VERDICT_INCONCLUSIVE);
}

/* A dropout shorter than the persistence does not end the phase. */
static void test_checks_detection__vdp_src_dropout_under_persistence(void **state)
{
	struct bn_check_ctx c = ctx_for(BN_PORT_SDP);
	struct bn_result r;

	(void)state;
	r = run(&c, STRM(sdp_vdp_dropout, 5), NULL, "bc12.det.vdp_src");
	assert_int_equal(r.verdict, BN_VERDICT_PASS);
	assert_near(r.measured, 0.045, 1e-6);
}

static void test_checks_detection__vdp_src_realistic(void **state)
{
	struct bn_check_ctx c = ctx_real(BN_PORT_SDP), d = ctx_real(BN_PORT_DCP);
	struct bn_result r;

	(void)state;
	/* The DCP: both lines near 0.6 V, 4 mV of noise on their difference,
	 * the phases told apart by 20 mV; every seed holds the 45 ms. */
	for (unsigned long long seed = 1; seed <= 8; seed++) {
		struct opt o = { .noisy = true, .seed = seed };

		r = run(&d, STRM(dcp_ok, 5), &o, "bc12.det.vdp_src");
		assert_clear_pass(r);
		assert_near(r.measured, 0.045, 0.0002);
		r = run(&d, STRM(dcp_min_sinks, 5), &o, "bc12.det.vdp_src");
		assert_int_not_equal(r.verdict, BN_VERDICT_FAIL);
	}
	assert_clear_pass(run(&c, STRM(sdp_ok, 5), &noisy, "bc12.det.vdp_src"));
	assert_int_equal(verdict(&c, STRM(sdp_vdp_short, 5), &noisy, "bc12.det.vdp_src"),
			 BN_VERDICT_FAIL);
	assert_int_equal(verdict(&c, STRM(sdp_vdp_high, 5), &noisy, "bc12.det.vdp_src"),
			 BN_VERDICT_FAIL);
	assert_within_u(run(&c, STRM(sdp_vdp_edge, 5), &noisy, "bc12.det.vdp_src"));
	r = run(&c, STRM(sdp_vdp_level_edge, 5), &noisy, "bc12.det.vdp_src");
	assert_within_u(r);
	assert_reason_has(r, "VDP_SRC level");
}

/* The device's VDP_SRC is judged against its own ground: D+ measured
 * against the port's reads 0.375 V more when the device's ground sits
 * 0.375 V above (compliance plan 6.14/6.15). */
static void test_checks_detection__vdp_src_in_the_devices_ground(void **state)
{
	static const struct seg shifted[] = {
		{ 5, 5.1, 3.1234, 0.0 },   { 12, 5.1, 0.14287, 0.0 }, { 1, 5.1, 0.0, 0.0 },
		{ 45, 5.1, 0.97113, 0.0 }, { 200, 5.1, 3.3017, 0.0 },
	};
	static const struct seg dut_ref[] = {
		{ 5, 5.1, 3.1234, -0.1 },   { 12, 5.1, 0.14287, -0.1 }, { 1, 5.1, -0.1, -0.1 },
		{ 45, 5.1, 0.59613, -0.1 }, { 200, 5.1, 3.0017, -0.1 },
	};
	struct bn_check_ctx c = ctx_for(BN_PORT_SDP);
	struct bn_result r;

	(void)state;
	c.gnd_offset_v = 0.375;
	r = run(&c, STRM(shifted, 5), NULL, "bc12.det.vdp_src");
	assert_int_equal(r.verdict, BN_VERDICT_PASS);
	assert_near(r.figures[0].value, 0.59613, 1e-9);
	/* a channel measured against the device's ground needs no shift */
	c.gnd_offset_v = 0.375;
	c.meas[BN_CH_DP].gnd = c.meas[BN_CH_DM].gnd = BN_GND_DUT;
	r = run(&c, STRM(sdp_ok, 5), NULL, "bc12.det.vdp_src");
	assert_int_equal(r.verdict, BN_VERDICT_PASS);
	/* ...but IDP_SRC, across the port's pull-down, does: with the device's
	 * ground 0.1 V up, D+ at 0.143 V against it is 0.243 V across 15 kohm
	 * (and idle lines read -0.1 V) */
	c.gnd_offset_v = 0.1;
	r = run(&c, STRM(dut_ref, 5), NULL, "bc12.dcd.idp_src");
	assert_int_equal(r.verdict, BN_VERDICT_FAIL);
	assert_near(r.figures[0].value, 0.24287, 1e-9);
	c.gnd_offset_v = NAN;
	r = run(&c, STRM(sdp_ok, 5), NULL, "bc12.dcd.idp_src");
	assert_int_equal(r.verdict, BN_VERDICT_INCONCLUSIVE);
	assert_reason_has(r, "not known");
	/* D+ against the port's ground, the offset not known */
	c = ctx_for(BN_PORT_SDP);
	c.gnd_offset_v = NAN;
	r = run(&c, STRM(sdp_ok, 5), NULL, "bc12.det.vdp_src");
	assert_int_equal(r.verdict, BN_VERDICT_INCONCLUSIVE);
	assert_reason_has(r, "ground against it is not known");
}

/* ---- a ground offset (compliance plan 6.14/6.15), D+/D- measured against
 * the port's ground ---- */

/* dcp_ok with the device's ground 0.375 V above the port's: every level the
 * device makes reads 0.375 V more. DCD's level (IDP_SRC into the device's own
 * RDM_DWN through the short) is 0.572 V against the port's ground, above
 * VDAT_REF max: it must be read against the device's. */
#define UP(v) ((v) + 0.375)
static const struct seg dcp_gnd_plus[] = {
	{ 5, 5.1, UP(3.1234), UP(0.0001) }, { 12, 5.1, UP(0.19711), UP(0.19513) },
	{ 1, 5.1, UP(0.0), UP(0.0) },       { 45, 5.1, UP(0.59003), UP(0.56965) },
	{ 45, 5.1, UP(0.57971), UP(0.59013) }, { 300, 5.1, UP(0.59983), UP(0.59943) },
	{ 100, 0.0, 0.0, 0.0 },
};
/* ...with a 2 ms debounce */
static const struct seg dcp_gnd_plus_dbnc_short[] = {
	{ 5, 5.1, UP(3.1234), UP(0.0001) }, { 2, 5.1, UP(0.19711), UP(0.19513) },
	{ 1, 5.1, UP(0.0), UP(0.0) },       { 45, 5.1, UP(0.59003), UP(0.56965) },
	{ 45, 5.1, UP(0.57971), UP(0.59013) }, { 300, 5.1, UP(0.59983), UP(0.59943) },
	{ 100, 0.0, 0.0, 0.0 },
};
#undef UP

/* sdp_ok with the device's ground 0.375 V below the port's: the DCD level
 * across the port's pull-down still reads 0.143 V (the port's frame), but
 * 0.518 V against the device's ground, inside the window of primary
 * detection; VDP_SRC (0.596 V against the device's) reads 0.221 V. */
#define DN(v) ((v) - 0.375)
static const struct seg sdp_gnd_minus[] = {
	{ 5, 5.1, DN(3.1234), 0.0 }, { 12, 5.1, 0.14287, 0.0 }, { 1, 5.1, 0.0, 0.0 },
	{ 45, 5.1, DN(0.59613), 0.0 }, { 200, 5.1, DN(3.0017), 0.0 }, { 10, 0.0, 0.0, 0.0 },
};
/* ...from DCD straight to VDP_SRC (no idle between): a step within the window */
static const struct seg sdp_gnd_minus_step[] = {
	{ 5, 5.1, DN(3.1234), 0.0 }, { 12, 5.1, 0.14287, 0.0 },
	{ 45, 5.1, DN(0.59613), 0.0 }, { 200, 5.1, DN(3.0017), 0.0 }, { 10, 0.0, 0.0, 0.0 },
};
/* ...a 2 ms debounce */
static const struct seg sdp_gnd_minus_dbnc_short[] = {
	{ 5, 5.1, DN(3.1234), 0.0 }, { 2, 5.1, 0.14287, 0.0 }, { 1, 5.1, 0.0, 0.0 },
	{ 45, 5.1, DN(0.59613), 0.0 }, { 200, 5.1, DN(3.0017), 0.0 }, { 10, 0.0, 0.0, 0.0 },
};
/* ...a 20 uA DCD current (0.286 V, 0.661 V against the device's: a level
 * VDP_SRC could have), then VDP_SRC below it */
static const struct seg sdp_gnd_minus_idp_high[] = {
	{ 5, 5.1, DN(3.1234), 0.0 }, { 12, 5.1, 0.28571, 0.0 }, { 1, 5.1, 0.0, 0.0 },
	{ 45, 5.1, DN(0.59613), 0.0 }, { 200, 5.1, DN(3.0017), 0.0 }, { 10, 0.0, 0.0, 0.0 },
};
/* ...no DCD: VDP_SRC 1 ms after VBUS, then the connect */
static const struct seg sdp_gnd_minus_no_dcd[] = {
	{ 1, 5.1, 0.0, 0.0 }, { 45, 5.1, DN(0.59613), 0.0 }, { 200, 5.1, DN(3.0017), 0.0 },
	{ 10, 0.0, 0.0, 0.0 },
};
#undef DN

/* On a DCP the DCD level is read against the device's ground (the
 * pull-down is the device's RDM_DWN): with the device's ground up, it is
 * seen, the debounce judged, primary detection not early. */
static void test_checks_detection__gnd_plus_dcp_dcd_in_the_devices_frame(void **state)
{
	struct bn_check_ctx c = ctx_real(BN_PORT_DCP);
	struct bn_result r;

	(void)state;
	c.gnd_offset_v = 0.375;
	r = run(&c, STRM(dcp_gnd_plus, 5), &noisy, "bc12.dcd.debounce");
	assert_clear_pass(r);
	assert_near(r.measured, 0.013, 2e-4);
	assert_clear_pass(run(&c, STRM(dcp_gnd_plus, 5), &noisy, "bc12.det.primary_start"));
	assert_clear_pass(run(&c, STRM(dcp_gnd_plus, 5), &noisy, "bc12.det.vdp_src"));
	assert_clear_pass(run(&c, STRM(dcp_gnd_plus, 5), &noisy, "bc12.det.vdm_src"));
	r = run(&c, STRM(dcp_gnd_plus_dbnc_short, 5), &noisy, "bc12.dcd.debounce");
	assert_int_equal(r.verdict, BN_VERDICT_FAIL);
	assert_near(r.measured, 0.003, 2e-4);
	/* the same stream without its offset: the level sits above VDAT_REF
	 * max against the port's ground, no DCD */
	c.gnd_offset_v = 0;
	assert_int_equal(verdict(&c, STRM(dcp_gnd_plus, 5), &noisy, "bc12.dcd.debounce"),
			 BN_VERDICT_INCONCLUSIVE);
}

/* With the device's ground down, DCD's level lies in primary detection's
 * window: primary begins where D+ comes back into the window after DCD, or
 * steps within it; a level with no step after it stays primary. */
static void test_checks_detection__gnd_minus_sdp_dcd_then_primary(void **state)
{
	struct bn_check_ctx c = ctx_real(BN_PORT_SDP), ci = ctx_for(BN_PORT_SDP);
	struct bn_result r;

	(void)state;
	c.gnd_offset_v = ci.gnd_offset_v = -0.375;
	r = run(&c, STRM(sdp_gnd_minus, 5), &noisy, "bc12.dcd.debounce");
	assert_clear_pass(r);
	assert_near(r.measured, 0.013, 2e-4);
	assert_clear_pass(run(&c, STRM(sdp_gnd_minus, 5), &noisy, "bc12.det.primary_start"));
	assert_clear_pass(run(&c, STRM(sdp_gnd_minus, 5), &noisy, "bc12.dcd.idp_src"));
	r = run(&c, STRM(sdp_gnd_minus, 5), &noisy, "bc12.det.vdp_src");
	assert_clear_pass(r);
	assert_near(r.measured, 0.045, 2e-4);
	/* the step route, noisy and ideal */
	r = run(&c, STRM(sdp_gnd_minus_step, 5), &noisy, "bc12.dcd.debounce");
	assert_clear_pass(r);
	assert_near(r.measured, 0.012, 2e-4);
	r = run(&ci, STRM(sdp_gnd_minus_step, 5), NULL, "bc12.dcd.debounce");
	assert_int_equal(r.verdict, BN_VERDICT_PASS);
	assert_near(r.measured, 0.012, 1e-6);
	assert_int_equal(verdict(&ci, STRM(sdp_gnd_minus_step, 5), NULL, "bc12.det.vdp_src"),
			 BN_VERDICT_PASS);
	/* faults stay caught */
	r = run(&c, STRM(sdp_gnd_minus_dbnc_short, 5), &noisy, "bc12.dcd.debounce");
	assert_int_equal(r.verdict, BN_VERDICT_FAIL);
	assert_near(r.measured, 0.003, 2e-4);
	r = run(&c, STRM(sdp_gnd_minus_idp_high, 5), &noisy, "bc12.dcd.idp_src");
	assert_int_equal(r.verdict, BN_VERDICT_FAIL);
	r = run(&c, STRM(sdp_gnd_minus_no_dcd, 0), &noisy, "bc12.det.primary_start");
	assert_int_equal(r.verdict, BN_VERDICT_FAIL);
	assert_reason_has(r, "no data contact seen");
	assert_clear_pass(run(&c, STRM(sdp_gnd_minus_no_dcd, 0), &noisy, "bc12.det.vdp_src"));
}

/* ---- bc12.det.idm_sink ---- */

static void test_checks_detection__idm_sink_passes_at_100uA(void **state)
{
	struct bn_check_ctx c = ctx_for(BN_PORT_DCP);
	struct bn_result r;

	(void)state;
	r = run(&c, STRM(dcp_ok, 5), NULL, "bc12.det.idm_sink");
	assert_int_equal(r.verdict, BN_VERDICT_PASS);
	/* over the short, less half of D-'s leakage at its most */
	assert_near(r.measured, (0.59003 - 0.56965) / 200 - 0.56965 / 300e3 / 2, 1e-12);
}

static void test_checks_detection__idm_sink_fails_at_12uA(void **state)
{
	struct bn_check_ctx c = ctx_for(BN_PORT_DCP);

	(void)state;
	assert_int_equal(verdict(&c, STRM(dcp_weak_sink, 5), NULL, "bc12.det.idm_sink"),
			 BN_VERDICT_FAIL);
}

static void test_checks_detection__idm_sink_inconclusive_coarse_or_slow(void **state)
{
	struct bn_check_ctx c = ctx_for(BN_PORT_DCP);
	struct opt coarse = { .q = 0.01 };
	struct bn_result r;

	(void)state;
	/* A 10 mV step, stated: its quantization (+-5 mV on each line, 25 uA
	 * across 200 ohm) leaves a weak sink inside U. */
	c.meas[BN_CH_DP].bits = c.meas[BN_CH_DM].bits = 9;
	c.meas[BN_CH_DP].range_lo = c.meas[BN_CH_DM].range_lo = 0;
	c.meas[BN_CH_DP].range_hi = c.meas[BN_CH_DM].range_hi = 5.12;
	c.meas_src[BN_CH_DP] = c.meas_src[BN_CH_DM] = BN_MEAS_SRC_CONF;
	r = run(&c, STRM(dcp_weak_sink, 5), &coarse, "bc12.det.idm_sink");
	assert_within_u(r);
	c = ctx_for(BN_PORT_DCP);
	c.rate_hz = 500;
	assert_int_equal(verdict(&c, STRM(dcp_weak_sink, 5), NULL, "bc12.det.idm_sink"),
			 BN_VERDICT_INCONCLUSIVE);
	c = ctx_for(BN_PORT_DCP);
	c.channels &= ~(1u << BN_CH_DM);
	assert_int_equal(verdict(&c, STRM(dcp_weak_sink, 5), NULL, "bc12.det.idm_sink"),
			 BN_VERDICT_INCONCLUSIVE);
}

static void test_checks_detection__idm_sink_realistic(void **state)
{
	struct bn_check_ctx c = ctx_real(BN_PORT_DCP);
	struct bn_result r;

	(void)state;
	r = run(&c, STRM(dcp_ok, 5), &noisy, "bc12.det.idm_sink");
	assert_clear_pass(r);
	/* auto-zeroed: U is the noise of the averages, gain, the leakage bound */
	assert_true(r.u < 4e-6);
	r = run(&c, STRM(dcp_weak_sink, 5), &noisy, "bc12.det.idm_sink");
	assert_int_equal(r.verdict, BN_VERDICT_FAIL);
	assert_near(r.measured, 11e-6, 2e-6);
	assert_within_u(run(&c, STRM(dcp_sink_edge, 5), &noisy, "bc12.det.idm_sink"));
}

/* D+ and D- with different offsets (+4 mV, +1 mV: 15 uA across 200 ohm).
 * The idle lines at VBUS off null them even where the converter clips the
 * noise at 0 V; without that window the offsets' bounds widen U. */
static void test_checks_detection__idm_sink_auto_zero(void **state)
{
	static const struct seg no_idle[] = {
		{ 5, 5.1, 3.1234, 0.0001 }, { 12, 5.1, 0.19711, 0.19513 },
		{ 45, 5.1, 0.59003, 0.56965 }, { 45, 5.1, 0.57971, 0.59013 },
		{ 300, 5.1, 0.59983, 0.59943 },
	};
	struct bn_check_ctx c = ctx_real(BN_PORT_DCP);
	double truth = (0.59003 - 0.56965) / 200 - 0.56965 / 300e3 / 2;
	struct bn_result r;

	(void)state;
	c.meas[BN_CH_DP].offset = 0.004;
	c.meas[BN_CH_DM].offset = 0.001;
	r = run(&c, STRM(dcp_ok, 5), &noisy, "bc12.det.idm_sink");
	assert_clear_pass(r);
	assert_near(r.measured, truth, 1.5e-6);
	assert_true(r.u < 4e-6);
	assert_string_equal(r.figures[1].name, "auto-zero");
	r = run(&c, STRM(no_idle, 5), &noisy, "bc12.det.idm_sink");
	assert_clear_pass(r);
	assert_string_equal(r.figures[1].name, "offset bound");
	assert_true(r.u > 20e-6);
}

/* A slow plug: primary detection ran before the lines touched, the short
 * was not across them. */
static void test_checks_detection__idm_sink_open_lines(void **state)
{
	struct bn_check_ctx c = ctx_real(BN_PORT_DCP);
	struct bn_result r;

	(void)state;
	r = run(&c, STRM(dcp_open, 1500), &noisy, "bc12.det.idm_sink");
	assert_int_equal(r.verdict, BN_VERDICT_INCONCLUSIVE);
	assert_reason_has(r, "data contact at 1.500 s, after TDCD_TIMEOUT max 0.9 s");
	/* without the bench's contact events, the data (0.6 V across a 200
	 * ohm short) say the lines were open */
	c.events &= ~BN_CEV_BIT(BN_CEV_DATA_CONTACT);
	r = run(&c, STRM(dcp_open, 1500), &noisy, "bc12.det.idm_sink");
	assert_int_equal(r.verdict, BN_VERDICT_INCONCLUSIVE);
	assert_reason_has(r, "no data-contact events");
	/* ...and where they show the short, a weak sink still fails */
	assert_int_equal(verdict(&c, STRM(dcp_weak_sink, -1), &noisy, "bc12.det.idm_sink"),
			 BN_VERDICT_FAIL);
}

/* ---- bc12.det.vdm_src ---- */

static void test_checks_detection__vdm_src_passes_on_dcp_and_cdp(void **state)
{
	struct bn_check_ctx d = ctx_for(BN_PORT_DCP), c = ctx_for(BN_PORT_CDP);
	struct bn_result r;

	(void)state;
	r = run(&d, STRM(dcp_ok, 5), NULL, "bc12.det.vdm_src");
	assert_int_equal(r.verdict, BN_VERDICT_PASS);
	assert_near(r.measured, 0.045, 1e-6);
	r = run(&c, STRM(cdp_ok, 5), NULL, "bc12.det.vdm_src");
	assert_int_equal(r.verdict, BN_VERDICT_PASS);
	assert_near(r.measured, 0.045, 1e-6);
}

static void test_checks_detection__vdm_src_fails_short_low_or_missing(void **state)
{
	struct bn_check_ctx d = ctx_for(BN_PORT_DCP), c = ctx_for(BN_PORT_CDP);

	(void)state;
	assert_int_equal(verdict(&d, STRM(dcp_vdm_short, 5), NULL, "bc12.det.vdm_src"),
			 BN_VERDICT_FAIL);
	assert_int_equal(verdict(&d, STRM(dcp_vdm_low, 5), NULL, "bc12.det.vdm_src"), BN_VERDICT_FAIL);
	assert_int_equal(verdict(&c, STRM(cdp_no_secondary, 5), NULL, "bc12.det.vdm_src"),
			 BN_VERDICT_FAIL);
}

static void test_checks_detection__vdm_src_inconclusive_or_skipped(void **state)
{
	struct bn_check_ctx d = ctx_for(BN_PORT_DCP);

	(void)state;
	d.channels &= ~(1u << BN_CH_DM);
	assert_int_equal(verdict(&d, STRM(dcp_vdm_short, 5), NULL, "bc12.det.vdm_src"),
			 BN_VERDICT_INCONCLUSIVE);
	d = ctx_for(BN_PORT_DCP);
	d.decl &= ~BN_DECL_SECONDARY;
	assert_int_equal(verdict(&d, STRM(dcp_vdm_short, 5), NULL, "bc12.det.vdm_src"),
			 BN_VERDICT_SKIPPED);
}

static void test_checks_detection__vdm_src_realistic(void **state)
{
	struct bn_check_ctx d = ctx_real(BN_PORT_DCP), c = ctx_real(BN_PORT_CDP);
	struct bn_result r;

	(void)state;
	for (unsigned long long seed = 1; seed <= 8; seed++) {
		struct opt o = { .noisy = true, .seed = seed };

		r = run(&d, STRM(dcp_ok, 5), &o, "bc12.det.vdm_src");
		assert_clear_pass(r);
		/* a 52 uA IDP_SINK, 10 mV across the short: its end's dating
		 * under 4 mV of noise is in U */
		assert_near(r.measured, 0.045, r.u);
	}
	assert_clear_pass(run(&c, STRM(cdp_ok, 5), &noisy, "bc12.det.vdm_src"));
	assert_int_equal(verdict(&d, STRM(dcp_vdm_short, 5), &noisy, "bc12.det.vdm_src"),
			 BN_VERDICT_FAIL);
	assert_int_equal(verdict(&d, STRM(dcp_vdm_low, 5), &noisy, "bc12.det.vdm_src"),
			 BN_VERDICT_FAIL);
	assert_within_u(run(&c, STRM(cdp_vdm_edge, 5), &noisy, "bc12.det.vdm_src"));
}

/* ---- blame: a slow plug, a bounce, a late CDP ---- */

static void test_checks_detection__slow_plug_excuses_the_device(void **state)
{
	struct bn_check_ctx d = ctx_real(BN_PORT_DCP);
	static const char *const ids[] = { "bc12.det.port_type", "bc12.det.vdm_src",
					   "bc12.det.idm_sink", "bc12.dcd.debounce" };
	struct opt o = { .noisy = true, .evs = tel_sdp, .n_evs = 1 };
	struct bn_result r;

	(void)state;
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		r = run(&d, STRM(dcp_open, 1500), &o, ids[i]);
		assert_int_equal(r.verdict, BN_VERDICT_INCONCLUSIVE);
		assert_reason_has(r, "data contact at 1.500 s");
	}
	/* what the handling does not touch still passes */
	assert_clear_pass(run(&d, STRM(dcp_open, 1500), &o, "bc12.det.primary_start"));
	assert_clear_pass(run(&d, STRM(dcp_open, 1500), &o, "bc12.det.vdp_src"));
	/* the same report with the lines in contact from 5 ms: the device's fault */
	assert_int_equal(verdict(&d, STRM(dcp_ok, 5), &o, "bc12.det.port_type"), BN_VERDICT_FAIL);
	/* a device that began primary detection 1 ms after VBUS, before the
	 * lines touched at 5 ms, did not wait for them: its report is its own
	 * fault, only the sink across the absent short is void */
	r = run(&d, STRM(dcp_open_early, 5), &o, "bc12.det.port_type");
	assert_int_equal(r.verdict, BN_VERDICT_FAIL);
	assert_int_equal(verdict(&d, STRM(dcp_open_early, 5), &o, "bc12.det.primary_start"),
			 BN_VERDICT_FAIL);
	r = run(&d, STRM(dcp_open_early, 5), &o, "bc12.det.idm_sink");
	assert_int_equal(r.verdict, BN_VERDICT_INCONCLUSIVE);
	assert_reason_has(r, "data contact at 0.005 s");
}

static void test_checks_detection__bounce_during_detection_excuses(void **state)
{
	static const struct tev bounce[] = {
		{ 30, BN_CEV_DATA_CONTACT, 0, NULL, NULL },
		{ 32, BN_CEV_DATA_CONTACT, 1, NULL, NULL },
	};
	struct bn_check_ctx c = ctx_for(BN_PORT_CDP);
	struct opt o = { .evs = bounce, .n_evs = 2 };
	struct bn_result r;

	(void)state;
	r = run(&c, STRM(cdp_no_secondary, 5), &o, "bc12.det.vdm_src");
	assert_int_equal(r.verdict, BN_VERDICT_INCONCLUSIVE);
	assert_reason_has(r, "bounced open at 0.030 s");
}

static void test_checks_detection__late_cdp_blamed(void **state)
{
	struct bn_check_ctx c = ctx_real(BN_PORT_CDP);
	struct opt o = { .noisy = true, .evs = tel_sdp, .n_evs = 1 };
	struct bn_result r;

	(void)state;
	c.port_name = "cdp-late";
	r = run(&c, STRM(cdp_late_35, 5), &o, "bc12.det.port_type");
	assert_int_equal(r.verdict, BN_VERDICT_INCONCLUSIVE);
	assert_reason_has(r, "the port (cdp-late) answered VDM_SRC 35.0 ms after D+ reached VDP_SRC, "
			     "later than TVDMSRC_EN max 20 ms");
	r = run(&c, STRM(cdp_late_35, 5), &o, "bc12.det.vdm_src");
	assert_int_equal(r.verdict, BN_VERDICT_INCONCLUSIVE);
	assert_reason_has(r, "answered VDM_SRC 35.0 ms");
	r = run(&c, STRM(cdp_silent, 5), &o, "bc12.det.vdm_src");
	assert_int_equal(r.verdict, BN_VERDICT_INCONCLUSIVE);
	assert_reason_has(r, "never answered VDM_SRC in the 45.0 ms");
	/* a port answering in time leaves the device's mistake its own */
	assert_int_equal(verdict(&c, STRM(cdp_no_secondary, 5), &o, "bc12.det.port_type"),
			 BN_VERDICT_FAIL);
	/* a device that looked after 5 ms gave the port no time: its fault */
	assert_int_equal(verdict(&c, STRM(cdp_device_early, 5), &o, "bc12.det.port_type"),
			 BN_VERDICT_FAIL);
	assert_int_equal(verdict(&c, STRM(cdp_device_early, 5), &o, "bc12.det.vdm_src"),
			 BN_VERDICT_FAIL);
	/* a late answer excuses nothing when the device got it right */
	assert_int_equal(verdict(&c, STRM(cdp_ok, 5), &o_cdp, "bc12.det.port_type"), BN_VERDICT_PASS);
}

/* ---- bc12.det.port_type ---- */

static void test_checks_detection__port_type(void **state)
{
	struct bn_check_ctx d = ctx_for(BN_PORT_DCP);
	struct bn_result r;

	(void)state;
	assert_int_equal(verdict(&d, STRM(dcp_ok, 5), &o_dcp, "bc12.det.port_type"), BN_VERDICT_PASS);
	r = run(&d, STRM(dcp_ok, 5), &o_cdp, "bc12.det.port_type");
	assert_int_equal(r.verdict, BN_VERDICT_FAIL);
	assert_string_equal(r.measured_str, "cdp");
	assert_int_equal(verdict(&d, STRM(dcp_ok, 5), NULL, "bc12.det.port_type"), BN_VERDICT_FAIL);
	/* no report, and the lines never touched: nothing to detect */
	r = run(&d, STRM(dcp_ok, -1), NULL, "bc12.det.port_type");
	assert_int_equal(r.verdict, BN_VERDICT_INCONCLUSIVE);
	assert_reason_has(r, "never made contact");
	d.events &= ~BN_CEV_BIT(BN_CEV_TELEMETRY);
	assert_int_equal(verdict(&d, STRM(dcp_ok, 5), &o_dcp, "bc12.det.port_type"),
			 BN_VERDICT_INCONCLUSIVE);
	(void)o_sdp;
}

/* ---- all rules ---- */

static void test_checks_detection__no_attach_is_inconclusive(void **state)
{
	static const struct seg off[] = { { 500, 0.0, 0.0, 0.0 } };
	/* VBUS at 3.5 V: above VOTG_SESS_VLD min, not valid for every device */
	static const struct seg low[] = { { 500, 3.5, 0.0, 0.0 } };
	static const char *const ids[] = { "bc12.dcd.idp_src", "bc12.dcd.debounce",
					   "bc12.det.primary_start", "bc12.det.vdp_src" };
	struct bn_check_ctx c = ctx_for(BN_PORT_SDP);

	(void)state;
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		assert_int_equal(verdict(&c, STRM(off, -1), NULL, ids[i]), BN_VERDICT_INCONCLUSIVE);
		assert_int_equal(verdict(&c, STRM(low, -1), NULL, ids[i]), BN_VERDICT_INCONCLUSIVE);
	}
}

/* A capture that starts with VBUS already valid, without the bench's
 * VBUS_ON: the attach time is not in it. */
static void test_checks_detection__capture_after_attach(void **state)
{
	struct bn_check_ctx c = ctx_for(BN_PORT_SDP);
	struct bn_result r;

	(void)state;
	c.events &= ~BN_CEV_BIT(BN_CEV_VBUS_ON);
	r = run(&c, STRM(sdp_no_dcd, -1), NULL, "bc12.det.primary_start");
	assert_int_equal(r.verdict, BN_VERDICT_INCONCLUSIVE);
	assert_reason_has(r, "starts with VBUS already valid");
}

/* ---- the simulated bench: a late CDP and a slow plug, reference firmware ---- */

static void sim_run(const char *scn, const char *port, const char *cond, struct bn_report *rep)
{
	char path[1024], cpath[1024];
	struct bn_err err = { 0 };
	struct bn_run_opts o = { .datadir = bn_test_srcdir() };
	struct bn_conditions cc;

	snprintf(path, sizeof(path), "%s/scripts/scenarios/%s.scn", bn_test_srcdir(), scn);
	o.scenario_path = path;
	o.port_override = port;
	if (cond) {
		bn_test_path(cond, cpath, sizeof(cpath));
		if (bn_conditions_load(cpath, &cc, &err) < 0)
			fail_msg("%s", err.msg);
		o.conditions = &cc;
	}
	bn_report_init(rep);
	if (bn_run_scenario(&o, rep, &err) != BN_OK)
		fail_msg("%s: %s", scn, err.msg);
}

static const struct bn_result *find(const struct bn_report *rep, const char *id)
{
	for (int i = 0; i < rep->n_results; i++)
		if (!strcmp(rep->results[i].id, id))
			return &rep->results[i];
	fail_msg("%s: not in the report", id);
	return NULL;
}

/* No detection rule fails; the listed ones are inconclusive with why. */
static void assert_excused(const struct bn_report *rep, const char *const *ids, int n,
			   const char *why)
{
	for (int i = 0; i < rep->n_results; i++) {
		const struct bn_result *r = &rep->results[i];

		if (!strncmp(r->id, "bc12.det", 8) || !strncmp(r->id, "bc12.dcd", 8))
			if (r->verdict == BN_VERDICT_FAIL)
				fail_msg("%s failed: %s", r->id, r->reason);
	}
	for (int i = 0; i < n; i++) {
		const struct bn_result *r = find(rep, ids[i]);

		assert_int_equal(r->verdict, BN_VERDICT_INCONCLUSIVE);
		if (!strstr(r->reason, why))
			fail_msg("%s: \"%s\" lacks \"%s\"", ids[i], r->reason, why);
	}
}

static void test_checks_detection__sim_late_cdp(void **state)
{
	static const char *const ids[] = { "bc12.det.port_type", "bc12.det.vdm_src" };
	static const char *const conds[] = { NULL, "profiles/conditions/realistic.json" };
	struct bn_report rep;

	(void)state;
	for (int k = 0; k < 2; k++) {
		sim_run("cdp", "cdp-late", conds[k], &rep);
		assert_excused(&rep, ids, 2, "the port (cdp-late) never answered VDM_SRC");
		assert_int_equal(find(&rep, "bc12.det.vdp_src")->verdict, BN_VERDICT_PASS);
		bn_report_free(&rep);
	}
	/* the same scenario on the good CDP: everything passes */
	sim_run("cdp", NULL, conds[1], &rep);
	assert_int_equal(find(&rep, "bc12.det.port_type")->verdict, BN_VERDICT_PASS);
	assert_int_equal(find(&rep, "bc12.det.vdm_src")->verdict, BN_VERDICT_PASS);
	bn_report_free(&rep);
}

static void test_checks_detection__sim_slow_plug(void **state)
{
	static const char *const dcp_ids[] = { "bc12.det.port_type", "bc12.det.idm_sink",
					       "bc12.det.vdm_src", "bc12.dcd.debounce" };
	static const char *const cdp_ids[] = { "bc12.det.port_type", "bc12.det.vdm_src",
					       "bc12.dcd.idp_src", "bc12.dcd.debounce" };
	const char *why = "data contact at 1.500 s, after TDCD_TIMEOUT max 0.9 s";
	struct bn_report rep;

	(void)state;
	sim_run("dcp", NULL, "profiles/conditions/slow-plug.json", &rep);
	assert_excused(&rep, dcp_ids, 4, why);
	assert_int_equal(find(&rep, "bc12.det.primary_start")->verdict, BN_VERDICT_PASS);
	assert_int_equal(find(&rep, "bc12.det.vdp_src")->verdict, BN_VERDICT_PASS);
	bn_report_free(&rep);
	sim_run("cdp", NULL, "profiles/conditions/slow-plug.json", &rep);
	assert_excused(&rep, cdp_ids, 4, why);
	bn_report_free(&rep);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_checks_detection__idp_src_passes_at_10uA),
		cmocka_unit_test(test_checks_detection__idp_src_fails_at_19uA),
		cmocka_unit_test(test_checks_detection__idp_src_inconclusive_without_dcd_or_rate),
		cmocka_unit_test(test_checks_detection__idp_src_skipped_without_pulldown),
		cmocka_unit_test(test_checks_detection__idp_src_realistic),
		cmocka_unit_test(test_checks_detection__debounce_passes_at_13ms),
		cmocka_unit_test(test_checks_detection__debounce_fails_at_3ms),
		cmocka_unit_test(test_checks_detection__debounce_inconclusive_without_dp_or_contact),
		cmocka_unit_test(test_checks_detection__debounce_realistic),
		cmocka_unit_test(test_checks_detection__debounce_glitch_or_bounce_bounds_it),
		cmocka_unit_test(test_checks_detection__primary_start_passes),
		cmocka_unit_test(test_checks_detection__primary_start_fails_early_and_late),
		cmocka_unit_test(test_checks_detection__primary_start_inconclusive_without_vbus),
		cmocka_unit_test(test_checks_detection__primary_start_realistic),
		cmocka_unit_test(test_checks_detection__primary_start_from_vbus_valid),
		cmocka_unit_test(test_checks_detection__vdp_src_passes_45ms),
		cmocka_unit_test(test_checks_detection__vdp_src_fails_short_high_or_dipping),
		cmocka_unit_test(test_checks_detection__vdp_src_inconclusive_without_dm),
		cmocka_unit_test(test_checks_detection__vdp_src_dropout_under_persistence),
		cmocka_unit_test(test_checks_detection__vdp_src_realistic),
		cmocka_unit_test(test_checks_detection__vdp_src_in_the_devices_ground),
		cmocka_unit_test(test_checks_detection__gnd_plus_dcp_dcd_in_the_devices_frame),
		cmocka_unit_test(test_checks_detection__gnd_minus_sdp_dcd_then_primary),
		cmocka_unit_test(test_checks_detection__idm_sink_passes_at_100uA),
		cmocka_unit_test(test_checks_detection__idm_sink_fails_at_12uA),
		cmocka_unit_test(test_checks_detection__idm_sink_inconclusive_coarse_or_slow),
		cmocka_unit_test(test_checks_detection__idm_sink_realistic),
		cmocka_unit_test(test_checks_detection__idm_sink_auto_zero),
		cmocka_unit_test(test_checks_detection__idm_sink_open_lines),
		cmocka_unit_test(test_checks_detection__vdm_src_passes_on_dcp_and_cdp),
		cmocka_unit_test(test_checks_detection__vdm_src_fails_short_low_or_missing),
		cmocka_unit_test(test_checks_detection__vdm_src_inconclusive_or_skipped),
		cmocka_unit_test(test_checks_detection__vdm_src_realistic),
		cmocka_unit_test(test_checks_detection__slow_plug_excuses_the_device),
		cmocka_unit_test(test_checks_detection__bounce_during_detection_excuses),
		cmocka_unit_test(test_checks_detection__late_cdp_blamed),
		cmocka_unit_test(test_checks_detection__port_type),
		cmocka_unit_test(test_checks_detection__no_attach_is_inconclusive),
		cmocka_unit_test(test_checks_detection__capture_after_attach),
		cmocka_unit_test(test_checks_detection__sim_late_cdp),
		cmocka_unit_test(test_checks_detection__sim_slow_plug),
	};

	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, bn_test_setup_limits, bn_test_teardown_limits);
}
