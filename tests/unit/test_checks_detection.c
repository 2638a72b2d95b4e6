/* The detection rules of bench/checks/detection.c on synthetic streams:
 * for each rule a stream that passes, one that fails, and one with an
 * input removed (or a capture too coarse) that is inconclusive, never pass.
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
#include "core/err.h"
#include "core/limits.h"
#include "report/report.h"

/* A piecewise-constant stream: each segment lasts ms at these levels. */
struct seg {
	double ms, vbus, dp, dm;
};

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

/* Levels rounded to q volts (0: as given), as an ADC with that LSB would. */
static double quant(double v, double q)
{
	return q > 0 ? round(v / q) * q : v;
}

/* Run every rule over the stream, return the verdict of rule id (and the
 * result in *out). */
static enum bn_verdict run(const struct bn_check_ctx *ctx, const struct seg *s, int n, double q,
			   const char *id, struct bn_result *out)
{
	struct bn_checks *c = NULL;
	struct bn_err err = { 0 };
	struct bn_report rep;
	struct bn_cev ev = { .kind = BN_CEV_VBUS_ON };
	bn_time_us t0 = 0;
	long k = 0;
	enum bn_verdict v = BN_VERDICT_ERROR;

	assert_int_equal(bn_checks_new(ctx, &c, &err), BN_OK);
	bn_checks_event(c, &ev);
	for (int i = 0; i < n; i++) {
		bn_time_us t1 = t0 + (bn_time_us)llround(s[i].ms * 1000.0);

		for (;; k++) {
			bn_time_us t = (bn_time_us)llround((double)k * 1e6 / ctx->rate_hz);
			struct bn_sample smp = { { 0 } };

			if (t >= t1)
				break;
			smp.v[BN_CH_VBUS] = quant(s[i].vbus, q);
			smp.v[BN_CH_DP] = quant(s[i].dp, q);
			smp.v[BN_CH_DM] = quant(s[i].dm, q);
			bn_checks_sample(c, t, &smp);
		}
		t0 = t1;
	}
	bn_report_init(&rep);
	bn_checks_end(c, t0, &rep);
	for (int i = 0; i < rep.n_results; i++)
		if (!strcmp(rep.results[i].id, id)) {
			v = rep.results[i].verdict;
			if (out)
				*out = rep.results[i];
			print_message("    %s: %s %g %s (%s)\n", id, bn_verdict_name(v),
				      rep.results[i].measured, rep.results[i].unit, rep.results[i].reason);
		}
	bn_report_free(&rep);
	bn_checks_free(c);
	assert_int_not_equal(v, BN_VERDICT_ERROR); /* the rule exists */
	return v;
}

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
/* A 2 ms debounce. */
static const struct seg sdp_dbnc_short[] = {
	{ 5, 5.1, 3.1234, 0.0 },   { 2, 5.1, 0.14287, 0.0 }, { 1, 5.1, 0.0, 0.0 },
	{ 45, 5.1, 0.59613, 0.0 }, { 200, 5.1, 3.0017, 0.0 },
};
/* No DCD: primary 1 ms after attach. */
static const struct seg sdp_no_dcd[] = {
	{ 1, 5.1, 0.0, 0.0 }, { 45, 5.1, 0.59613, 0.0 }, { 200, 5.1, 3.0017, 0.0 },
};
/* No DCD, but primary after 350 ms: legal. */
static const struct seg sdp_no_dcd_late[] = {
	{ 350, 5.1, 0.0, 0.0 }, { 45, 5.1, 0.59613, 0.0 }, { 200, 5.1, 3.0017, 0.0 },
};
/* DCD never sees contact; primary at 1.2 s. */
static const struct seg float_late[] = {
	{ 1200, 5.1, 3.1234, 0.0 }, { 1, 5.1, 0.0, 0.0 }, { 45, 5.1, 0.59613, 0.0 },
	{ 200, 5.1, 3.0017, 0.0 },
};
/* VDP_SRC held 20 ms. */
static const struct seg sdp_vdp_short[] = {
	{ 5, 5.1, 3.1234, 0.0 },   { 12, 5.1, 0.14287, 0.0 }, { 1, 5.1, 0.0, 0.0 },
	{ 20, 5.1, 0.59613, 0.0 }, { 200, 5.1, 3.0017, 0.0 },
};
/* VDP_SRC held long enough, at 0.75 V. */
static const struct seg sdp_vdp_high[] = {
	{ 5, 5.1, 3.1234, 0.0 },   { 12, 5.1, 0.14287, 0.0 }, { 1, 5.1, 0.0, 0.0 },
	{ 45, 5.1, 0.75113, 0.0 }, { 200, 5.1, 3.0017, 0.0 },
};

/* DCP (200 ohm short): DCD, primary with a 100 uA IDM_SINK (D+ above D-),
 * secondary (D- above D+), then charging with D+ at VDP_SRC. */
#define DCP_PRE { 5, 5.1, 3.1234, 0.0001 }, { 12, 5.1, 0.19711, 0.19513 }, { 1, 5.1, 0.0, 0.0 }
#define DCP_CHARGE { 300, 5.1, 0.59983, 0.59943 }
static const struct seg dcp_ok[] = {
	DCP_PRE, { 45, 5.1, 0.59003, 0.56965 }, { 45, 5.1, 0.57971, 0.59013 }, DCP_CHARGE,
};
/* A 10 uA IDM_SINK: 2.4 mV across the short. */
static const struct seg dcp_weak_sink[] = {
	DCP_PRE, { 45, 5.1, 0.59903, 0.59663 }, { 45, 5.1, 0.57971, 0.59013 }, DCP_CHARGE,
};
/* VDM_SRC held 20 ms. */
static const struct seg dcp_vdm_short[] = {
	DCP_PRE, { 45, 5.1, 0.59003, 0.56965 }, { 20, 5.1, 0.57971, 0.59013 }, DCP_CHARGE,
};
/* VDM_SRC at 0.45 V. */
static const struct seg dcp_vdm_low[] = {
	DCP_PRE, { 45, 5.1, 0.59003, 0.56965 }, { 45, 5.1, 0.43011, 0.45023 }, DCP_CHARGE,
};
/* CDP: primary (the responder lifts D- after 20 ms), secondary with D+ sunk. */
static const struct seg cdp_ok[] = {
	{ 5, 5.1, 3.1234, 0.0 },    { 12, 5.1, 0.14287, 0.0 },   { 1, 5.1, 0.0, 0.0 },
	{ 20, 5.1, 0.59613, 0.0 },  { 25, 5.1, 0.59613, 0.57012 }, { 45, 5.1, 0.0, 0.59521 },
	{ 200, 5.1, 3.0017, 0.0 },
};
/* The device connects right after primary: no secondary detection. */
static const struct seg cdp_no_secondary[] = {
	{ 5, 5.1, 3.1234, 0.0 },   { 12, 5.1, 0.14287, 0.0 },   { 1, 5.1, 0.0, 0.0 },
	{ 20, 5.1, 0.59613, 0.0 }, { 25, 5.1, 0.59613, 0.57012 }, { 200, 5.1, 3.0017, 0.0 },
};

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* ---- bc12.dcd.idp_src ---- */

static void test_checks_detection__idp_src_passes_at_10uA(void **state)
{
	struct bn_check_ctx c = ctx_for(BN_PORT_SDP);
	struct bn_result r;

	(void)state;
	assert_int_equal(run(&c, sdp_ok, N(sdp_ok), 0, "bc12.dcd.idp_src", &r), BN_VERDICT_PASS);
	assert_true(fabs(r.measured - 0.14287 / 15000) < 1e-9);
	assert_string_equal(r.unit, "A");
}

static void test_checks_detection__idp_src_fails_at_19uA(void **state)
{
	struct bn_check_ctx c = ctx_for(BN_PORT_SDP);

	(void)state;
	assert_int_equal(run(&c, sdp_idp_high, N(sdp_idp_high), 0, "bc12.dcd.idp_src", NULL),
			 BN_VERDICT_FAIL);
}

static void test_checks_detection__idp_src_inconclusive_without_dcd_or_rate(void **state)
{
	struct bn_check_ctx c = ctx_for(BN_PORT_SDP);

	(void)state;
	assert_int_equal(run(&c, sdp_no_dcd_late, N(sdp_no_dcd_late), 0, "bc12.dcd.idp_src", NULL),
			 BN_VERDICT_INCONCLUSIVE);
	c.rate_hz = 500;
	assert_int_equal(run(&c, sdp_idp_high, N(sdp_idp_high), 0, "bc12.dcd.idp_src", NULL),
			 BN_VERDICT_INCONCLUSIVE);
	c = ctx_for(BN_PORT_SDP);
	c.channels &= ~(1u << BN_CH_DP);
	assert_int_equal(run(&c, sdp_idp_high, N(sdp_idp_high), 0, "bc12.dcd.idp_src", NULL),
			 BN_VERDICT_INCONCLUSIVE);
}

static void test_checks_detection__idp_src_skipped_without_pulldown(void **state)
{
	struct bn_check_ctx c = ctx_for(BN_PORT_SDP);

	(void)state;
	c.dp_pulldown_ohm = 0; /* a floating port, classified sdp */
	assert_int_equal(run(&c, sdp_idp_high, N(sdp_idp_high), 0, "bc12.dcd.idp_src", NULL),
			 BN_VERDICT_SKIPPED);
}

/* ---- bc12.dcd.debounce ---- */

static void test_checks_detection__debounce_passes_at_13ms(void **state)
{
	struct bn_check_ctx c = ctx_for(BN_PORT_SDP);
	struct bn_result r;

	(void)state;
	assert_int_equal(run(&c, sdp_ok, N(sdp_ok), 0, "bc12.dcd.debounce", &r), BN_VERDICT_PASS);
	assert_true(fabs(r.measured - 0.013) < 1e-6);
}

static void test_checks_detection__debounce_fails_at_3ms(void **state)
{
	struct bn_check_ctx c = ctx_for(BN_PORT_SDP);

	(void)state;
	assert_int_equal(run(&c, sdp_dbnc_short, N(sdp_dbnc_short), 0, "bc12.dcd.debounce", NULL),
			 BN_VERDICT_FAIL);
}

static void test_checks_detection__debounce_inconclusive_without_dp_or_contact(void **state)
{
	struct bn_check_ctx c = ctx_for(BN_PORT_SDP);

	(void)state;
	assert_int_equal(run(&c, float_late, N(float_late), 0, "bc12.dcd.debounce", NULL),
			 BN_VERDICT_INCONCLUSIVE);
	c.channels &= ~(1u << BN_CH_DP);
	assert_int_equal(run(&c, sdp_dbnc_short, N(sdp_dbnc_short), 0, "bc12.dcd.debounce", NULL),
			 BN_VERDICT_INCONCLUSIVE);
}

/* ---- bc12.det.primary_start ---- */

static void test_checks_detection__primary_start_passes(void **state)
{
	struct bn_check_ctx c = ctx_for(BN_PORT_SDP);

	(void)state;
	assert_int_equal(run(&c, sdp_ok, N(sdp_ok), 0, "bc12.det.primary_start", NULL),
			 BN_VERDICT_PASS);
	assert_int_equal(run(&c, sdp_no_dcd_late, N(sdp_no_dcd_late), 0, "bc12.det.primary_start",
			     NULL),
			 BN_VERDICT_PASS);
}

static void test_checks_detection__primary_start_fails_early_and_late(void **state)
{
	struct bn_check_ctx c = ctx_for(BN_PORT_SDP);

	(void)state;
	assert_int_equal(run(&c, sdp_no_dcd, N(sdp_no_dcd), 0, "bc12.det.primary_start", NULL),
			 BN_VERDICT_FAIL);
	assert_int_equal(run(&c, float_late, N(float_late), 0, "bc12.det.primary_start", NULL),
			 BN_VERDICT_FAIL);
}

static void test_checks_detection__primary_start_inconclusive_without_vbus(void **state)
{
	struct bn_check_ctx c = ctx_for(BN_PORT_SDP);

	(void)state;
	c.channels &= ~(1u << BN_CH_VBUS);
	assert_int_equal(run(&c, sdp_no_dcd, N(sdp_no_dcd), 0, "bc12.det.primary_start", NULL),
			 BN_VERDICT_INCONCLUSIVE);
}

/* ---- bc12.det.vdp_src ---- */

static void test_checks_detection__vdp_src_passes_45ms(void **state)
{
	struct bn_check_ctx c = ctx_for(BN_PORT_SDP);
	struct bn_check_ctx d = ctx_for(BN_PORT_DCP);
	struct bn_result r;

	(void)state;
	assert_int_equal(run(&c, sdp_ok, N(sdp_ok), 0, "bc12.det.vdp_src", &r), BN_VERDICT_PASS);
	assert_true(fabs(r.measured - 0.045) < 1e-6);
	/* On a DCP D+ stays near 0.6 V: the sign of V(D+)-V(D-) ends primary. */
	assert_int_equal(run(&d, dcp_ok, N(dcp_ok), 0, "bc12.det.vdp_src", &r), BN_VERDICT_PASS);
	assert_true(fabs(r.measured - 0.045) < 1e-6);
}

static void test_checks_detection__vdp_src_fails_short_or_high(void **state)
{
	struct bn_check_ctx c = ctx_for(BN_PORT_SDP);

	(void)state;
	assert_int_equal(run(&c, sdp_vdp_short, N(sdp_vdp_short), 0, "bc12.det.vdp_src", NULL),
			 BN_VERDICT_FAIL);
	assert_int_equal(run(&c, sdp_vdp_high, N(sdp_vdp_high), 0, "bc12.det.vdp_src", NULL),
			 BN_VERDICT_FAIL);
}

static void test_checks_detection__vdp_src_inconclusive_without_dm(void **state)
{
	struct bn_check_ctx c = ctx_for(BN_PORT_SDP);

	(void)state;
	c.channels &= ~(1u << BN_CH_DM);
	assert_int_equal(run(&c, sdp_vdp_short, N(sdp_vdp_short), 0, "bc12.det.vdp_src", NULL),
			 BN_VERDICT_INCONCLUSIVE);
}

/* ---- bc12.det.idm_sink ---- */

static void test_checks_detection__idm_sink_passes_at_100uA(void **state)
{
	struct bn_check_ctx c = ctx_for(BN_PORT_DCP);
	struct bn_result r;

	(void)state;
	assert_int_equal(run(&c, dcp_ok, N(dcp_ok), 0, "bc12.det.idm_sink", &r), BN_VERDICT_PASS);
	assert_true(fabs(r.measured - (0.59003 - 0.56965) / 200) < 1e-9);
}

static void test_checks_detection__idm_sink_fails_at_12uA(void **state)
{
	struct bn_check_ctx c = ctx_for(BN_PORT_DCP);

	(void)state;
	assert_int_equal(run(&c, dcp_weak_sink, N(dcp_weak_sink), 0, "bc12.det.idm_sink", NULL),
			 BN_VERDICT_FAIL);
}

static void test_checks_detection__idm_sink_inconclusive_coarse_or_slow(void **state)
{
	struct bn_check_ctx c = ctx_for(BN_PORT_DCP);

	(void)state;
	/* A 10 mV LSB cannot resolve 10 % of IDM_SINK min x 200 ohm. */
	assert_int_equal(run(&c, dcp_weak_sink, N(dcp_weak_sink), 0.01, "bc12.det.idm_sink", NULL),
			 BN_VERDICT_INCONCLUSIVE);
	c.rate_hz = 500;
	assert_int_equal(run(&c, dcp_weak_sink, N(dcp_weak_sink), 0, "bc12.det.idm_sink", NULL),
			 BN_VERDICT_INCONCLUSIVE);
	c = ctx_for(BN_PORT_DCP);
	c.channels &= ~(1u << BN_CH_DM);
	assert_int_equal(run(&c, dcp_weak_sink, N(dcp_weak_sink), 0, "bc12.det.idm_sink", NULL),
			 BN_VERDICT_INCONCLUSIVE);
}

/* ---- bc12.det.vdm_src ---- */

static void test_checks_detection__vdm_src_passes_on_dcp_and_cdp(void **state)
{
	struct bn_check_ctx d = ctx_for(BN_PORT_DCP), c = ctx_for(BN_PORT_CDP);
	struct bn_result r;

	(void)state;
	assert_int_equal(run(&d, dcp_ok, N(dcp_ok), 0, "bc12.det.vdm_src", &r), BN_VERDICT_PASS);
	assert_true(fabs(r.measured - 0.045) < 1e-6);
	assert_int_equal(run(&c, cdp_ok, N(cdp_ok), 0, "bc12.det.vdm_src", &r), BN_VERDICT_PASS);
	assert_true(fabs(r.measured - 0.045) < 1e-6);
}

static void test_checks_detection__vdm_src_fails_short_low_or_missing(void **state)
{
	struct bn_check_ctx d = ctx_for(BN_PORT_DCP), c = ctx_for(BN_PORT_CDP);

	(void)state;
	assert_int_equal(run(&d, dcp_vdm_short, N(dcp_vdm_short), 0, "bc12.det.vdm_src", NULL),
			 BN_VERDICT_FAIL);
	assert_int_equal(run(&d, dcp_vdm_low, N(dcp_vdm_low), 0, "bc12.det.vdm_src", NULL),
			 BN_VERDICT_FAIL);
	assert_int_equal(run(&c, cdp_no_secondary, N(cdp_no_secondary), 0, "bc12.det.vdm_src", NULL),
			 BN_VERDICT_FAIL);
}

static void test_checks_detection__vdm_src_inconclusive_coarse_or_without_dm(void **state)
{
	struct bn_check_ctx d = ctx_for(BN_PORT_DCP);

	(void)state;
	/* A 10 mV LSB cannot read the sign of 5 mV across the short. */
	assert_int_equal(run(&d, dcp_vdm_short, N(dcp_vdm_short), 0.01, "bc12.det.vdm_src", NULL),
			 BN_VERDICT_INCONCLUSIVE);
	d.channels &= ~(1u << BN_CH_DM);
	assert_int_equal(run(&d, dcp_vdm_short, N(dcp_vdm_short), 0, "bc12.det.vdm_src", NULL),
			 BN_VERDICT_INCONCLUSIVE);
	d = ctx_for(BN_PORT_DCP);
	d.decl &= ~BN_DECL_SECONDARY;
	assert_int_equal(run(&d, dcp_vdm_short, N(dcp_vdm_short), 0, "bc12.det.vdm_src", NULL),
			 BN_VERDICT_SKIPPED);
}

/* ---- all rules: nothing passes without an attach ---- */

static void test_checks_detection__no_attach_is_inconclusive(void **state)
{
	static const struct seg off[] = { { 500, 0.0, 0.0, 0.0 } };
	static const char *const ids[] = { "bc12.dcd.idp_src", "bc12.dcd.debounce",
					   "bc12.det.primary_start", "bc12.det.vdp_src" };
	struct bn_check_ctx c = ctx_for(BN_PORT_SDP);

	(void)state;
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		assert_int_equal(run(&c, off, N(off), 0, ids[i], NULL), BN_VERDICT_INCONCLUSIVE);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_checks_detection__idp_src_passes_at_10uA),
		cmocka_unit_test(test_checks_detection__idp_src_fails_at_19uA),
		cmocka_unit_test(test_checks_detection__idp_src_inconclusive_without_dcd_or_rate),
		cmocka_unit_test(test_checks_detection__idp_src_skipped_without_pulldown),
		cmocka_unit_test(test_checks_detection__debounce_passes_at_13ms),
		cmocka_unit_test(test_checks_detection__debounce_fails_at_3ms),
		cmocka_unit_test(test_checks_detection__debounce_inconclusive_without_dp_or_contact),
		cmocka_unit_test(test_checks_detection__primary_start_passes),
		cmocka_unit_test(test_checks_detection__primary_start_fails_early_and_late),
		cmocka_unit_test(test_checks_detection__primary_start_inconclusive_without_vbus),
		cmocka_unit_test(test_checks_detection__vdp_src_passes_45ms),
		cmocka_unit_test(test_checks_detection__vdp_src_fails_short_or_high),
		cmocka_unit_test(test_checks_detection__vdp_src_inconclusive_without_dm),
		cmocka_unit_test(test_checks_detection__idm_sink_passes_at_100uA),
		cmocka_unit_test(test_checks_detection__idm_sink_fails_at_12uA),
		cmocka_unit_test(test_checks_detection__idm_sink_inconclusive_coarse_or_slow),
		cmocka_unit_test(test_checks_detection__vdm_src_passes_on_dcp_and_cdp),
		cmocka_unit_test(test_checks_detection__vdm_src_fails_short_low_or_missing),
		cmocka_unit_test(test_checks_detection__vdm_src_inconclusive_coarse_or_without_dm),
		cmocka_unit_test(test_checks_detection__no_attach_is_inconclusive),
	};

	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, bn_test_setup_limits, bn_test_teardown_limits);
}
