/* The ACA and OTG rules (bench/checks/aca_otg.c) over synthetic streams:
 * for each rule, under the realistic measurement
 * (profiles/conditions/realistic.json: 12-bit, noise, offset, gain), a
 * stream of a good device that passes, streams that break the rule and
 * fail, and a borderline one that is inconclusive "within measurement
 * uncertainty"; the blame cases (a charger that shuts down and recovers,
 * a host that never enumerates, a slow plug, a wrong channel map); and
 * streams with an input removed (a channel, an event kind, the sample
 * rate) that must be inconclusive, never pass. Streams are explicit
 * tables: channel segments (value over [t0, t1), 0 elsewhere, the later
 * row winning) and events. Limits come from
 * $BN_SRCDIR/profiles/limits/bc12.json (default ./). */
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
#include "lib/harness.h"
#include "lib/seg_stream.h"

/* A context under the realistic measurement. */
static struct bn_check_ctx real_ctx(enum bn_port_type port)
{
	struct bn_check_ctx ctx = base_ctx(port);

	bn_test_ctx_conditions(&ctx, "realistic");
	return ctx;
}

static struct bn_result run_real(enum bn_port_type port, const struct stream *st, const char *id)
{
	struct bn_check_ctx ctx = real_ctx(port);

	return run(&ctx, st, id);
}

#define assert_reason_has(r, s)                                                               \
	do {                                                                                  \
		if (!strstr((r).reason, (s)))                                                 \
			fail_msg("%s: reason \"%s\" lacks \"%s\"", (r).id, (r).reason, (s));  \
	} while (0)

#define assert_within_u(r)                                                                    \
	do {                                                                                  \
		assert_verdict(r, BN_VERDICT_INCONCLUSIVE);                                   \
		assert_reason_has(r, "within measurement uncertainty");                       \
	} while (0)

/* The figure name of a result, NAN if absent. */
static double figure(const struct bn_result *r, const char *name)
{
	for (int i = 0; i < r->n_figures; i++)
		if (!strcmp(r->figures[i].name, name))
			return r->figures[i].value;
	return NAN;
}

/* A clean pass: not inconclusive, with a U, and a margin beyond it. */
#define assert_clean_pass(r)                                                                  \
	do {                                                                                  \
		assert_verdict(r, BN_VERDICT_PASS);                                           \
		assert_true((r).has_u);                                                       \
		assert_true((r).margin > (r).u);                                              \
	} while (0)

/* ---- bc12.aca.b_no_connect ---- */

/* DCD's IDP_SRC lifts the open lines to 3 V for 600 ms (inside the
 * detection grace); the lines touch at 5 ms; later a 5 ms SRP pulse. */
static const struct seg b_good_segs[] = {
	{ 0, 3000, BN_CH_VBUS, 5.0 },
	{ 0, 600, BN_CH_DP, 3.0 },
	{ 1500, 1505, BN_CH_DP, 1.0 },
};
static const struct ev b_evs[] = {
	{ 0, BN_CEV_VBUS_ON, 0, 0 },
	{ 5, BN_CEV_DATA_CONTACT, 0, 1.0 },
	{ 3000, BN_CEV_VBUS_OFF, 0, 0 },
};

static void test_checks_aca_otg__b_no_connect_pass(void **state)
{
	struct bn_result r = run_real(BN_PORT_ACA_B, &STREAM(b_good_segs, b_evs, 3200), "bc12.aca.b_no_connect");

	(void)state;
	assert_clean_pass(r);
	assert_near(r.measured, 0.005, 2e-4);
	assert_string_equal(r.unit, "s");
	assert_near(r.limit_max, bn_limits_max(&bn_test_lim, "TSRP_PULSE"), 1e-12);
	assert_non_null(strstr(r.persistence, "VDAT_REF min"));
}

static void test_checks_aca_otg__b_no_connect_pass_ideal(void **state)
{
	struct bn_check_ctx ctx = base_ctx(BN_PORT_ACA_B);
	struct bn_result r = run(&ctx, &STREAM(b_good_segs, b_evs, 3200), "bc12.aca.b_no_connect");

	(void)state;
	assert_verdict(r, BN_VERDICT_PASS);
	assert_near(r.measured, 0.005, 1e-9);
}

static const struct seg b_pullup_segs[] = {
	{ 0, 3000, BN_CH_VBUS, 5.0 },
	{ 0, 600, BN_CH_DP, 3.0 },
	{ 700, 3000, BN_CH_DP, 3.0 },
};

static void test_checks_aca_otg__b_no_connect_fail_pullup(void **state)
{
	struct bn_result r = run_real(BN_PORT_ACA_B, &STREAM(b_pullup_segs, b_evs, 3200), "bc12.aca.b_no_connect");

	(void)state;
	assert_verdict(r, BN_VERDICT_FAIL);
	assert_true(r.measured > 1.9);
	assert_reason_has(r, "VDAT_REF min");
}

/* A 20 ms pulse is longer than an SRP pulse. */
static const struct seg b_long_pulse_segs[] = {
	{ 0, 3000, BN_CH_VBUS, 5.0 },
	{ 2000, 2020, BN_CH_DP, 0.6 },
};

static void test_checks_aca_otg__b_no_connect_fail_long_pulse(void **state)
{
	struct bn_result r =
		run_real(BN_PORT_ACA_B, &STREAM(b_long_pulse_segs, b_evs, 3200), "bc12.aca.b_no_connect");

	(void)state;
	assert_verdict(r, BN_VERDICT_FAIL);
	assert_near(r.measured, 0.020, 2e-4);
}

/* D+ at 0.3 V: above VDAT_REF min (the compliance plan's threshold),
 * below VDAT_REF max. */
static const struct seg b_mid_segs[] = {
	{ 0, 3000, BN_CH_VBUS, 5.0 },
	{ 1200, 3000, BN_CH_DP, 0.3 },
};

static void test_checks_aca_otg__b_no_connect_fail_above_vdat_ref_min(void **state)
{
	struct bn_result r = run_real(BN_PORT_ACA_B, &STREAM(b_mid_segs, b_evs, 3200), "bc12.aca.b_no_connect");

	(void)state;
	assert_verdict(r, BN_VERDICT_FAIL);
}

/* A pulse of exactly TSRP_PULSE max: inside by less than U. */
static const struct seg b_border_segs[] = {
	{ 0, 3000, BN_CH_VBUS, 5.0 },
	{ 1500, 1510, BN_CH_DP, 1.0 },
};

static void test_checks_aca_otg__b_no_connect_inconclusive_borderline_pulse(void **state)
{
	struct bn_result r =
		run_real(BN_PORT_ACA_B, &STREAM(b_border_segs, b_evs, 3200), "bc12.aca.b_no_connect");

	(void)state;
	assert_within_u(r);
	assert_true(r.u > 0);
}

/* D+ held where the instrument reads about 1 mV above VDAT_REF min (the
 * channel adds 2 mV and 0.5 %): long, but not past the threshold by more
 * than the U of its level. */
static const struct seg b_border_level_segs[] = {
	{ 0, 3000, BN_CH_VBUS, 5.0 },
	{ 1200, 1400, BN_CH_DP, 0.248 },
};

static void test_checks_aca_otg__b_no_connect_inconclusive_borderline_level(void **state)
{
	struct bn_result r =
		run_real(BN_PORT_ACA_B, &STREAM(b_border_level_segs, b_evs, 3200), "bc12.aca.b_no_connect");

	(void)state;
	assert_within_u(r);
}

/* The charger shuts down at 1.5 s and comes back at 2.5 s, the bench's
 * VBUS on all along: the device rightly runs DCD again (D+ at 3 V for
 * 600 ms). The grace re-arms when VBUS is measured valid again. */
static const struct seg b_dropout_segs[] = {
	{ 0, 1500, BN_CH_VBUS, 5.0 },
	{ 2500, 5000, BN_CH_VBUS, 5.0 },
	{ 0, 600, BN_CH_DP, 3.0 },
	{ 2500, 3100, BN_CH_DP, 3.0 },
};
static const struct ev b_dropout_evs[] = {
	{ 0, BN_CEV_VBUS_ON, 0, 0 },
	{ 5, BN_CEV_DATA_CONTACT, 0, 1.0 },
	{ 5000, BN_CEV_VBUS_OFF, 0, 0 },
};

static void test_checks_aca_otg__b_no_connect_pass_charger_dropout(void **state)
{
	struct bn_result r =
		run_real(BN_PORT_ACA_B, &STREAM(b_dropout_segs, b_dropout_evs, 5200), "bc12.aca.b_no_connect");

	(void)state;
	assert_clean_pass(r);
	assert_near(figure(&r, "vbus_dropouts"), 1, 0);
}

/* A slow plug: the lines touch 1.5 s after VBUS; the device's DCD timed
 * out, it read no ID, took the ACA for an SDP and pulled D+ up (as
 * BC-1.2 allows on open lines). The handling's doing, not the device's. */
static const struct seg b_slow_segs[] = {
	{ 0, 3000, BN_CH_VBUS, 5.0 },
	{ 0, 600, BN_CH_DP, 3.3 },
	{ 650, 3000, BN_CH_DP, 3.3 },
};
static const struct ev b_slow_evs[] = {
	{ 0, BN_CEV_VBUS_ON, 0, 0 },
	{ 1500, BN_CEV_DATA_CONTACT, 0, 1.0 },
	{ 3000, BN_CEV_VBUS_OFF, 0, 0 },
};

static void test_checks_aca_otg__b_no_connect_inconclusive_slow_plug(void **state)
{
	struct bn_result r =
		run_real(BN_PORT_ACA_B, &STREAM(b_slow_segs, b_slow_evs, 3200), "bc12.aca.b_no_connect");

	(void)state;
	assert_verdict(r, BN_VERDICT_INCONCLUSIVE);
	assert_reason_has(r, "slow plug");
}

/* A 0-3.3 V logic line mapped as VBUS: never a supplied VBUS. */
static const struct seg b_logic_segs[] = {
	{ 0, 3000, BN_CH_VBUS, 3.3 },
	{ 1200, 3000, BN_CH_DP, 3.0 },
};

static void test_checks_aca_otg__b_no_connect_inconclusive_wrong_map(void **state)
{
	struct bn_result r = run_real(BN_PORT_ACA_B, &STREAM(b_logic_segs, b_evs, 3200), "bc12.aca.b_no_connect");

	(void)state;
	assert_verdict(r, BN_VERDICT_INCONCLUSIVE);
	assert_reason_has(r, "wrong channel map");
}

/* The device's ground 0.375 V above the port's (CP 6.14): its D+ at 0 V
 * in its own ground reads 0.375 V on a port-ground channel, above
 * VDAT_REF min, yet the device does not drive it. */
static const struct seg b_gnd_segs[] = {
	{ 0, 3000, BN_CH_VBUS, 5.375 },
	{ 0, 600, BN_CH_DP, 3.375 },
	{ 600, 3000, BN_CH_DP, 0.375 },
};

static void test_checks_aca_otg__b_no_connect_pass_ground_offset(void **state)
{
	struct bn_check_ctx ctx = real_ctx(BN_PORT_ACA_B);
	struct bn_result r;

	(void)state;
	ctx.gnd_offset_v = 0.375;
	r = run(&ctx, &STREAM(b_gnd_segs, b_evs, 3200), "bc12.aca.b_no_connect");
	assert_clean_pass(r);
}

static void test_checks_aca_otg__b_no_connect_inconclusive_ground_unknown(void **state)
{
	struct bn_check_ctx ctx = real_ctx(BN_PORT_ACA_B);
	struct bn_result r;

	(void)state;
	ctx.gnd_offset_v = NAN;
	r = run(&ctx, &STREAM(b_gnd_segs, b_evs, 3200), "bc12.aca.b_no_connect");
	assert_verdict(r, BN_VERDICT_INCONCLUSIVE);
	assert_reason_has(r, "ground");
}

static const struct ev b_connect_evs[] = {
	{ 0, BN_CEV_VBUS_ON, 0, 0 },
	{ 5, BN_CEV_DATA_CONTACT, 0, 1.0 },
	{ 300, BN_CEV_CONNECT, 0, 0 },
	{ 400, BN_CEV_DISCONNECT, 0, 0 },
	{ 3000, BN_CEV_VBUS_OFF, 0, 0 },
};

static void test_checks_aca_otg__b_no_connect_fail_connect_event(void **state)
{
	struct bn_check_ctx ctx = base_ctx(BN_PORT_ACA_B);
	struct bn_result r = run(&ctx, &STREAM(b_good_segs, b_connect_evs, 3200), "bc12.aca.b_no_connect");

	(void)state;
	assert_verdict(r, BN_VERDICT_FAIL);
	assert_reason_has(r, "connected");
}

static void test_checks_aca_otg__b_no_connect_inconclusive_no_dp(void **state)
{
	struct bn_check_ctx ctx = base_ctx(BN_PORT_ACA_B);
	struct bn_result r;

	(void)state;
	ctx.channels &= ~(1u << BN_CH_DP);
	r = run(&ctx, &STREAM(b_pullup_segs, b_evs, 3200), "bc12.aca.b_no_connect");
	assert_verdict(r, BN_VERDICT_INCONCLUSIVE);
}

static void test_checks_aca_otg__b_no_connect_inconclusive_no_vbus(void **state)
{
	struct bn_check_ctx ctx = base_ctx(BN_PORT_ACA_B);
	struct bn_result r;

	(void)state;
	ctx.channels &= ~(1u << BN_CH_VBUS);
	r = run(&ctx, &STREAM(b_pullup_segs, b_evs, 3200), "bc12.aca.b_no_connect");
	assert_verdict(r, BN_VERDICT_INCONCLUSIVE);
}

/* VBUS valid for less than the detection grace: nothing judged. */
static const struct seg b_short_segs[] = {
	{ 0, 800, BN_CH_VBUS, 5.0 },
	{ 700, 800, BN_CH_DP, 3.0 },
};
static const struct ev b_short_evs[] = {
	{ 0, BN_CEV_VBUS_ON, 0, 0 },
	{ 5, BN_CEV_DATA_CONTACT, 0, 1.0 },
	{ 800, BN_CEV_VBUS_OFF, 0, 0 },
};

static void test_checks_aca_otg__b_no_connect_inconclusive_short_attach(void **state)
{
	struct bn_result r =
		run_real(BN_PORT_ACA_B, &STREAM(b_short_segs, b_short_evs, 1500), "bc12.aca.b_no_connect");

	(void)state;
	assert_verdict(r, BN_VERDICT_INCONCLUSIVE);
}

static void test_checks_aca_otg__b_no_connect_skipped_elsewhere(void **state)
{
	struct bn_check_ctx ctx = base_ctx(BN_PORT_ACA_C);
	struct bn_result r = run(&ctx, &STREAM(b_pullup_segs, b_evs, 3200), "bc12.aca.b_no_connect");

	(void)state;
	assert_verdict(r, BN_VERDICT_SKIPPED);
}

/* ---- bc12.aca.c_connect ---- */

/* DCD's IDP_SRC holds the open D+ at 3 V until the lines touch at 5 ms
 * (no pull-up: the host's 15 kohm then pulls it to 0.15 V); the pull-up
 * at 18 ms; the host configures 100 ms later. */
static const struct seg c_segs[] = {
	{ 0, 3000, BN_CH_VBUS, 5.0 },
	{ 0, 5, BN_CH_DP, 3.0 },
	{ 5, 18, BN_CH_DP, 0.15 },
	{ 18, 3000, BN_CH_DP, 3.0 },
};
static const struct ev c_good_evs[] = {
	{ 0, BN_CEV_VBUS_ON, 0, 0 },
	{ 5, BN_CEV_DATA_CONTACT, 0, 1.0 },
	{ 18, BN_CEV_CONNECT, 0, 0 },
	{ 118, BN_CEV_CONFIG, 1, 0.5 },
	{ 3000, BN_CEV_VBUS_OFF, 0, 0 },
};

static void test_checks_aca_otg__c_connect_pass(void **state)
{
	struct bn_result r = run_real(BN_PORT_ACA_C, &STREAM(c_segs, c_good_evs, 3200), "bc12.aca.c_connect");

	(void)state;
	assert_clean_pass(r);
	assert_near(r.measured, 0.018, 2e-4);
	assert_near(r.limit_max, bn_limits_max(&bn_test_lim, "TSVLD_CON_PWD"), 1e-12);
}

static void test_checks_aca_otg__c_connect_pass_ideal(void **state)
{
	struct bn_check_ctx ctx = base_ctx(BN_PORT_ACA_C);
	struct bn_result r = run(&ctx, &STREAM(c_segs, c_good_evs, 3200), "bc12.aca.c_connect");

	(void)state;
	assert_verdict(r, BN_VERDICT_PASS);
	assert_near(r.measured, 0.018, 1e-9);
}

static const struct seg c_late_segs[] = {
	{ 0, 3000, BN_CH_VBUS, 5.0 },
	{ 0, 5, BN_CH_DP, 3.0 },
	{ 5, 1500, BN_CH_DP, 0.15 },
	{ 1500, 3000, BN_CH_DP, 3.0 },
};
static const struct ev c_late_evs[] = {
	{ 0, BN_CEV_VBUS_ON, 0, 0 },
	{ 5, BN_CEV_DATA_CONTACT, 0, 1.0 },
	{ 1500, BN_CEV_CONNECT, 0, 0 },
	{ 1600, BN_CEV_CONFIG, 1, 0.5 },
	{ 3000, BN_CEV_VBUS_OFF, 0, 0 },
};

static void test_checks_aca_otg__c_connect_fail_late(void **state)
{
	struct bn_result r = run_real(BN_PORT_ACA_C, &STREAM(c_late_segs, c_late_evs, 3200), "bc12.aca.c_connect");

	(void)state;
	assert_verdict(r, BN_VERDICT_FAIL);
	assert_near(r.measured, 1.5, 2e-4);
}

/* D+ high only from DCD on the open lines: not a connect. */
static const struct seg c_never_segs[] = {
	{ 0, 3000, BN_CH_VBUS, 5.0 },
	{ 0, 5, BN_CH_DP, 3.0 },
	{ 5, 3000, BN_CH_DP, 0.15 },
};
static const struct ev c_never_evs[] = {
	{ 0, BN_CEV_VBUS_ON, 0, 0 },
	{ 5, BN_CEV_DATA_CONTACT, 0, 1.0 },
	{ 3000, BN_CEV_VBUS_OFF, 0, 0 },
};

static void test_checks_aca_otg__c_connect_fail_never(void **state)
{
	struct bn_result r = run_real(BN_PORT_ACA_C, &STREAM(c_never_segs, c_never_evs, 3200), "bc12.aca.c_connect");

	(void)state;
	assert_verdict(r, BN_VERDICT_FAIL);
	assert_reason_has(r, "never pulled D+ up");
}

/* The pull-up exactly TSVLD_CON_PWD max after VBUS valid. */
static const struct seg c_border_segs[] = {
	{ 0, 3000, BN_CH_VBUS, 5.0 },
	{ 0, 5, BN_CH_DP, 3.0 },
	{ 5, 1000, BN_CH_DP, 0.15 },
	{ 1000, 3000, BN_CH_DP, 3.0 },
};
static const struct ev c_border_evs[] = {
	{ 0, BN_CEV_VBUS_ON, 0, 0 },
	{ 5, BN_CEV_DATA_CONTACT, 0, 1.0 },
	{ 1100, BN_CEV_CONFIG, 1, 0.5 },
	{ 3000, BN_CEV_VBUS_OFF, 0, 0 },
};

static void test_checks_aca_otg__c_connect_inconclusive_borderline(void **state)
{
	struct bn_result r =
		run_real(BN_PORT_ACA_C, &STREAM(c_border_segs, c_border_evs, 3200), "bc12.aca.c_connect");

	(void)state;
	assert_within_u(r);
}

/* A host that never enumerates (profiles/hosts/no-enum.json): the device
 * pulled D+ up in time; the missing configuration is the host's. */
static const struct ev c_no_enum_evs[] = {
	{ 0, BN_CEV_VBUS_ON, 0, 0 },
	{ 5, BN_CEV_DATA_CONTACT, 0, 1.0 },
	{ 18, BN_CEV_CONNECT, 0, 0 },
	{ 1018, BN_CEV_SUSPEND, 0, 0 },
	{ 3000, BN_CEV_VBUS_OFF, 0, 0 },
};

static void test_checks_aca_otg__c_connect_inconclusive_host_never_enumerates(void **state)
{
	struct bn_result r = run_real(BN_PORT_ACA_C, &STREAM(c_segs, c_no_enum_evs, 3200), "bc12.aca.c_connect");

	(void)state;
	assert_verdict(r, BN_VERDICT_INCONCLUSIVE);
	assert_reason_has(r, "host never enumerated");
}

/* ... but a device that never pulled up behind it is still failed. */
static void test_checks_aca_otg__c_connect_fail_never_behind_no_enum_host(void **state)
{
	struct bn_result r =
		run_real(BN_PORT_ACA_C, &STREAM(c_never_segs, c_no_enum_evs, 3200), "bc12.aca.c_connect");

	(void)state;
	assert_verdict(r, BN_VERDICT_FAIL);
}

/* The charger shuts down at 1.5 s and recovers at 2.5 s: the device
 * disconnects, runs detection again and reconnects 18 ms after VBUS is
 * valid again; the host configures it each time. */
static const struct seg c_dropout_segs[] = {
	{ 0, 1500, BN_CH_VBUS, 5.0 },
	{ 2500, 5000, BN_CH_VBUS, 5.0 },
	{ 0, 5, BN_CH_DP, 3.0 },
	{ 5, 18, BN_CH_DP, 0.15 },
	{ 18, 1500, BN_CH_DP, 3.0 },
	{ 2500, 2518, BN_CH_DP, 0.15 },
	{ 2518, 5000, BN_CH_DP, 3.0 },
};
static const struct ev c_dropout_evs[] = {
	{ 0, BN_CEV_VBUS_ON, 0, 0 },
	{ 5, BN_CEV_DATA_CONTACT, 0, 1.0 },
	{ 18, BN_CEV_CONNECT, 0, 0 },
	{ 118, BN_CEV_CONFIG, 1, 0.5 },
	{ 1500, BN_CEV_DISCONNECT, 0, 0 },
	{ 2518, BN_CEV_CONNECT, 0, 0 },
	{ 2618, BN_CEV_CONFIG, 1, 0.5 },
	{ 5000, BN_CEV_VBUS_OFF, 0, 0 },
};

static void test_checks_aca_otg__c_connect_pass_charger_dropout(void **state)
{
	struct bn_result r =
		run_real(BN_PORT_ACA_C, &STREAM(c_dropout_segs, c_dropout_evs, 5200), "bc12.aca.c_connect");

	(void)state;
	assert_clean_pass(r);
	assert_near(r.measured, 0.018, 2e-4);
	assert_near(figure(&r, "vbus_dropouts"), 1, 0);
}

/* A slow plug: the data lines touch 1.5 s after VBUS, later than the
 * device has to connect. */
static const struct seg c_slow_segs[] = {
	{ 0, 3000, BN_CH_VBUS, 5.0 },
	{ 0, 1500, BN_CH_DP, 3.0 },
	{ 1500, 1520, BN_CH_DP, 0.15 },
	{ 1520, 3000, BN_CH_DP, 3.0 },
};
static const struct ev c_slow_evs[] = {
	{ 0, BN_CEV_VBUS_ON, 0, 0 },
	{ 1500, BN_CEV_DATA_CONTACT, 0, 1.0 },
	{ 1620, BN_CEV_CONFIG, 1, 0.5 },
	{ 3000, BN_CEV_VBUS_OFF, 0, 0 },
};

static void test_checks_aca_otg__c_connect_inconclusive_slow_plug(void **state)
{
	struct bn_result r = run_real(BN_PORT_ACA_C, &STREAM(c_slow_segs, c_slow_evs, 3200), "bc12.aca.c_connect");

	(void)state;
	assert_verdict(r, BN_VERDICT_INCONCLUSIVE);
	assert_reason_has(r, "data lines touched");
}

static void test_checks_aca_otg__c_connect_inconclusive_no_config_events(void **state)
{
	struct bn_check_ctx ctx = base_ctx(BN_PORT_ACA_C);
	struct bn_result r;

	(void)state;
	ctx.events &= ~BN_CEV_BIT(BN_CEV_CONFIG);
	r = run(&ctx, &STREAM(c_segs, c_good_evs, 3200), "bc12.aca.c_connect");
	assert_verdict(r, BN_VERDICT_INCONCLUSIVE);
}

static const struct seg c_short_segs[] = {
	{ 0, 500, BN_CH_VBUS, 5.0 },
	{ 5, 500, BN_CH_DP, 0.15 },
};
static const struct ev c_short_evs[] = {
	{ 0, BN_CEV_VBUS_ON, 0, 0 },
	{ 5, BN_CEV_DATA_CONTACT, 0, 1.0 },
	{ 500, BN_CEV_VBUS_OFF, 0, 0 },
};

static void test_checks_aca_otg__c_connect_inconclusive_short_attach(void **state)
{
	struct bn_result r = run_real(BN_PORT_ACA_C, &STREAM(c_short_segs, c_short_evs, 800), "bc12.aca.c_connect");

	(void)state;
	assert_verdict(r, BN_VERDICT_INCONCLUSIVE);
}

/* VBUS already valid at the capture's first sample, with no bench event
 * saying when it came: the connect time is unknown. */
static const struct ev c_bare_evs[] = {
	{ 5, BN_CEV_DATA_CONTACT, 0, 1.0 },
	{ 118, BN_CEV_CONFIG, 1, 0.5 },
};

static void test_checks_aca_otg__c_connect_inconclusive_vbus_on_at_start(void **state)
{
	struct bn_result r = run_real(BN_PORT_ACA_C, &STREAM(c_segs, c_bare_evs, 3000), "bc12.aca.c_connect");

	(void)state;
	assert_verdict(r, BN_VERDICT_INCONCLUSIVE);
	assert_reason_has(r, "already valid");
}

/* ---- bc12.aca.a_no_pullup ---- */

static const struct seg a_good_segs[] = {
	{ 0, 3000, BN_CH_VBUS, 5.0 },
	{ 0, 600, BN_CH_DP, 3.0 },
	{ 2000, 2005, BN_CH_DP, 3.0 }, /* a 5 ms glitch: shorter than TDCD_DBNC min */
};
static const struct ev a_good_evs[] = {
	{ 0, BN_CEV_VBUS_ON, 0, 0 },
	{ 5, BN_CEV_DATA_CONTACT, 0, 1.0 },
	{ 701, BN_CEV_PERIPHERAL, 0, 0 },
	{ 3000, BN_CEV_VBUS_OFF, 0, 0 },
};

static void test_checks_aca_otg__a_no_pullup_pass(void **state)
{
	struct bn_result r = run_real(BN_PORT_ACA_A, &STREAM(a_good_segs, a_good_evs, 3200), "bc12.aca.a_no_pullup");

	(void)state;
	assert_clean_pass(r);
	assert_near(r.measured, 0.005, 2e-4);
	assert_near(r.limit_max, bn_limits_min(&bn_test_lim, "TDCD_DBNC"), 1e-12);
}

static void test_checks_aca_otg__a_no_pullup_pass_dock(void **state)
{
	struct bn_result r =
		run_real(BN_PORT_ACA_DOCK, &STREAM(a_good_segs, a_good_evs, 3200), "bc12.aca.a_no_pullup");

	(void)state;
	assert_clean_pass(r);
}

/* Pull-up (with the host pull-downs: about 3.0 V) from the end of DCD on. */
static const struct seg a_pullup_segs[] = {
	{ 0, 3000, BN_CH_VBUS, 5.0 },
	{ 0, 3000, BN_CH_DP, 3.0 },
};

static void test_checks_aca_otg__a_no_pullup_fail_pullup(void **state)
{
	struct bn_result r =
		run_real(BN_PORT_ACA_A, &STREAM(a_pullup_segs, a_good_evs, 3200), "bc12.aca.a_no_pullup");

	(void)state;
	assert_verdict(r, BN_VERDICT_FAIL);
	assert_true(r.measured > 1.9);
	assert_reason_has(r, "pull-up");
}

/* A glitch of exactly TDCD_DBNC min. */
static const struct seg a_border_segs[] = {
	{ 0, 3000, BN_CH_VBUS, 5.0 },
	{ 2000, 2010, BN_CH_DP, 3.0 },
};

static void test_checks_aca_otg__a_no_pullup_inconclusive_borderline(void **state)
{
	struct bn_result r =
		run_real(BN_PORT_ACA_A, &STREAM(a_border_segs, a_good_evs, 3200), "bc12.aca.a_no_pullup");

	(void)state;
	assert_within_u(r);
}

static const struct ev a_no_periph_evs[] = {
	{ 0, BN_CEV_VBUS_ON, 0, 0 },
	{ 5, BN_CEV_DATA_CONTACT, 0, 1.0 },
	{ 3000, BN_CEV_VBUS_OFF, 0, 0 },
};

static void test_checks_aca_otg__a_no_pullup_fail_no_peripheral(void **state)
{
	struct bn_result r =
		run_real(BN_PORT_ACA_A, &STREAM(a_good_segs, a_no_periph_evs, 3200), "bc12.aca.a_no_pullup");

	(void)state;
	assert_verdict(r, BN_VERDICT_FAIL);
	assert_reason_has(r, "never enumerated");
}

/* The charger behind ACA-A shuts down and recovers: DCD again after the
 * return, and the accessory enumerated again. */
static const struct seg a_dropout_segs[] = {
	{ 0, 1500, BN_CH_VBUS, 5.0 },
	{ 2500, 5000, BN_CH_VBUS, 5.0 },
	{ 0, 600, BN_CH_DP, 3.0 },
	{ 2500, 3100, BN_CH_DP, 3.0 },
};
static const struct ev a_dropout_evs[] = {
	{ 0, BN_CEV_VBUS_ON, 0, 0 },
	{ 5, BN_CEV_DATA_CONTACT, 0, 1.0 },
	{ 701, BN_CEV_PERIPHERAL, 0, 0 },
	{ 3201, BN_CEV_PERIPHERAL, 0, 0 },
	{ 5000, BN_CEV_VBUS_OFF, 0, 0 },
};

static void test_checks_aca_otg__a_no_pullup_pass_charger_dropout(void **state)
{
	struct bn_result r =
		run_real(BN_PORT_ACA_A, &STREAM(a_dropout_segs, a_dropout_evs, 5200), "bc12.aca.a_no_pullup");

	(void)state;
	assert_clean_pass(r);
	assert_near(figure(&r, "vbus_dropouts"), 1, 0);
}

/* A slow plug on ACA-A: taken for an SDP, pulled up, no accessory. */
static void test_checks_aca_otg__a_no_pullup_inconclusive_slow_plug(void **state)
{
	struct bn_result r = run_real(BN_PORT_ACA_A, &STREAM(b_slow_segs, b_slow_evs, 3200), "bc12.aca.a_no_pullup");

	(void)state;
	assert_verdict(r, BN_VERDICT_INCONCLUSIVE);
	assert_reason_has(r, "slow plug");
}

static void test_checks_aca_otg__a_no_pullup_inconclusive_low_rate(void **state)
{
	struct bn_check_ctx ctx = base_ctx(BN_PORT_ACA_A);
	struct bn_result r;

	(void)state;
	ctx.rate_hz = 100.0;
	r = run(&ctx, &STREAM(a_good_segs, a_good_evs, 3200), "bc12.aca.a_no_pullup");
	assert_verdict(r, BN_VERDICT_INCONCLUSIVE);
}

static void test_checks_aca_otg__a_no_pullup_inconclusive_no_peripheral_events(void **state)
{
	struct bn_check_ctx ctx = base_ctx(BN_PORT_ACA_A);
	struct bn_result r;

	(void)state;
	ctx.events &= ~BN_CEV_BIT(BN_CEV_PERIPHERAL);
	r = run(&ctx, &STREAM(a_good_segs, a_no_periph_evs, 3200), "bc12.aca.a_no_pullup");
	assert_verdict(r, BN_VERDICT_INCONCLUSIVE);
}

/* ---- bc12.otg.sources_vbus and bc12.otg.vbus_output ---- */

/* Plug at 0 (data contact 5 ms), boost on at 20 ms, 500 mA from 500 ms
 * (VBUS 4.9 V), load off and unplug at 1000 ms. */
static const struct seg otg_good_segs[] = {
	{ 20, 500, BN_CH_VBUS, 5.0 },
	{ 500, 1000, BN_CH_VBUS, 4.9 },
	{ 500, 1000, BN_CH_IBUS, -0.5 },
	{ 1000, 1010, BN_CH_VBUS, 5.0 },
};
static const struct ev otg_evs[] = {
	{ 5, BN_CEV_DATA_CONTACT, 0, 1.0 },
	{ 500, BN_CEV_LOAD, 0, 0.5 },
	{ 1000, BN_CEV_LOAD, 0, 0.0 },
	{ 1000, BN_CEV_DATA_CONTACT, 0, 0.0 },
};

static void test_checks_aca_otg__sources_vbus_pass(void **state)
{
	struct bn_result r = run_real(BN_PORT_OTG, &STREAM(otg_good_segs, otg_evs, 1100), "bc12.otg.sources_vbus");

	(void)state;
	assert_clean_pass(r);
	assert_near(r.measured, 4.9 * 1.005 + 0.01, 0.02);
	assert_string_equal(r.unit, "V");
	assert_near(r.limit_min, bn_limits_max(&bn_test_lim, "VOTG_SESS_VLD"), 1e-12);
}

static void test_checks_aca_otg__sources_vbus_pass_ideal(void **state)
{
	struct bn_check_ctx ctx = base_ctx(BN_PORT_OTG);
	struct bn_result r = run(&ctx, &STREAM(otg_good_segs, otg_evs, 1100), "bc12.otg.sources_vbus");

	(void)state;
	assert_verdict(r, BN_VERDICT_PASS);
	assert_near(r.measured, 4.9, 1e-9);
}

/* Above the rating the device may fold: those samples are not judged. */
static const struct seg otg_overload_segs[] = {
	{ 20, 500, BN_CH_VBUS, 5.0 },
	{ 500, 800, BN_CH_VBUS, 2.0 },
	{ 800, 1000, BN_CH_VBUS, 4.95 },
};
static const struct ev otg_overload_evs[] = {
	{ 5, BN_CEV_DATA_CONTACT, 0, 1.0 },
	{ 500, BN_CEV_LOAD, 0, 0.8 },
	{ 800, BN_CEV_LOAD, 0, 0.1 },
	{ 1000, BN_CEV_DATA_CONTACT, 0, 0.0 },
};

static void test_checks_aca_otg__sources_vbus_pass_overload_not_judged(void **state)
{
	struct bn_result r =
		run_real(BN_PORT_OTG, &STREAM(otg_overload_segs, otg_overload_evs, 1100), "bc12.otg.sources_vbus");

	(void)state;
	assert_clean_pass(r);
	assert_true(r.measured > 4.8);
}

static const struct seg otg_fold_segs[] = {
	{ 20, 520, BN_CH_VBUS, 5.0 },
};

static void test_checks_aca_otg__sources_vbus_fail_folds_at_load(void **state)
{
	struct bn_result r = run_real(BN_PORT_OTG, &STREAM(otg_fold_segs, otg_evs, 1100), "bc12.otg.sources_vbus");

	(void)state;
	assert_verdict(r, BN_VERDICT_FAIL);
	assert_true(r.measured < 0.1);
}

static const struct seg otg_none_segs[] = {
	{ 0, 1000, BN_CH_IBUS, 0.0 },
};

static void test_checks_aca_otg__sources_vbus_fail_never(void **state)
{
	struct bn_result r = run_real(BN_PORT_OTG, &STREAM(otg_none_segs, otg_evs, 1100), "bc12.otg.sources_vbus");

	(void)state;
	assert_verdict(r, BN_VERDICT_FAIL);
	assert_reason_has(r, "never raised");
}

/* Under load VBUS sits where the instrument reads it at VOTG_SESS_VLD
 * max (the channel adds 10 mV and 0.5 %). */
static const struct seg otg_border_segs[] = {
	{ 20, 500, BN_CH_VBUS, 5.0 },
	{ 500, 1000, BN_CH_VBUS, 3.97 },
};

static void test_checks_aca_otg__sources_vbus_inconclusive_borderline(void **state)
{
	struct bn_result r =
		run_real(BN_PORT_OTG, &STREAM(otg_border_segs, otg_evs, 1100), "bc12.otg.sources_vbus");

	(void)state;
	assert_within_u(r);
}

static void test_checks_aca_otg__sources_vbus_inconclusive_no_vbus(void **state)
{
	struct bn_check_ctx ctx = base_ctx(BN_PORT_OTG);
	struct bn_result r;

	(void)state;
	ctx.channels &= ~(1u << BN_CH_VBUS);
	r = run(&ctx, &STREAM(otg_good_segs, otg_evs, 1100), "bc12.otg.sources_vbus");
	assert_verdict(r, BN_VERDICT_INCONCLUSIVE);
}

static void test_checks_aca_otg__sources_vbus_inconclusive_no_contact_events(void **state)
{
	struct bn_check_ctx ctx = base_ctx(BN_PORT_OTG);
	struct bn_result r;

	(void)state;
	ctx.events &= ~BN_CEV_BIT(BN_CEV_DATA_CONTACT);
	r = run(&ctx, &STREAM(otg_good_segs, otg_evs, 1100), "bc12.otg.sources_vbus");
	assert_verdict(r, BN_VERDICT_INCONCLUSIVE);
}

/* A plug-in too short for any device to have read ID. */
static const struct ev otg_short_evs[] = {
	{ 5, BN_CEV_DATA_CONTACT, 0, 1.0 },
	{ 100, BN_CEV_DATA_CONTACT, 0, 0.0 },
};

static void test_checks_aca_otg__sources_vbus_inconclusive_short_plug(void **state)
{
	struct bn_check_ctx ctx = base_ctx(BN_PORT_OTG);
	struct bn_result r = run(&ctx, &STREAM(otg_none_segs, otg_short_evs, 200), "bc12.otg.sources_vbus");

	(void)state;
	assert_verdict(r, BN_VERDICT_INCONCLUSIVE);
}

static void test_checks_aca_otg__sources_vbus_skipped_without_rating(void **state)
{
	struct bn_check_ctx ctx = base_ctx(BN_PORT_OTG);
	struct bn_result r;

	(void)state;
	ctx.decl &= ~BN_DECL_OTG;
	ctx.otg_rating_a = 0.0;
	r = run(&ctx, &STREAM(otg_none_segs, otg_evs, 1100), "bc12.otg.sources_vbus");
	assert_verdict(r, BN_VERDICT_SKIPPED);
}

static void test_checks_aca_otg__vbus_output_pass(void **state)
{
	struct bn_result r = run_real(BN_PORT_OTG, &STREAM(otg_good_segs, otg_evs, 1100), "bc12.otg.vbus_output");

	(void)state;
	assert_clean_pass(r);
	/* rated 500 mA: the band above IA_VBUS_OUT_LP */
	assert_string_equal(r.limit, "VA_VBUS_OUT_HP");
	assert_near(r.limit_min, bn_limits_min(&bn_test_lim, "VA_VBUS_OUT_HP"), 1e-12);
	assert_near(r.limit_max, bn_limits_max(&bn_test_lim, "VA_VBUS_OUT_HP"), 1e-12);
}

/* 4.5 V at the rated 500 mA: a session stays valid (sources_vbus passes),
 * but the output is below what an A-device rated 500 mA must give. */
static const struct seg otg_low_segs[] = {
	{ 20, 500, BN_CH_VBUS, 5.0 },
	{ 500, 1000, BN_CH_VBUS, 4.5 },
};

static void test_checks_aca_otg__vbus_output_fail_low_while_sources_vbus_passes(void **state)
{
	struct bn_result out = run_real(BN_PORT_OTG, &STREAM(otg_low_segs, otg_evs, 1100), "bc12.otg.vbus_output");
	struct bn_result src = run_real(BN_PORT_OTG, &STREAM(otg_low_segs, otg_evs, 1100), "bc12.otg.sources_vbus");

	(void)state;
	assert_verdict(out, BN_VERDICT_FAIL);
	assert_reason_has(out, "VA_VBUS_OUT_HP");
	assert_clean_pass(src);
}

static const struct seg otg_high_segs[] = {
	{ 20, 1000, BN_CH_VBUS, 5.5 },
};

static void test_checks_aca_otg__vbus_output_fail_high(void **state)
{
	struct bn_result r = run_real(BN_PORT_OTG, &STREAM(otg_high_segs, otg_evs, 1100), "bc12.otg.vbus_output");

	(void)state;
	assert_verdict(r, BN_VERDICT_FAIL);
	assert_reason_has(r, "rose to");
}

/* Read at the band's minimum under load. */
static const struct seg otg_out_border_segs[] = {
	{ 20, 500, BN_CH_VBUS, 5.0 },
	{ 500, 1000, BN_CH_VBUS, 4.72 },
};

static void test_checks_aca_otg__vbus_output_inconclusive_borderline(void **state)
{
	struct bn_result r =
		run_real(BN_PORT_OTG, &STREAM(otg_out_border_segs, otg_evs, 1100), "bc12.otg.vbus_output");

	(void)state;
	assert_within_u(r);
}

/* Rated 100 mA: VA_VBUS_OUT's lower minimum applies. */
static const struct seg otg_lp_segs[] = {
	{ 20, 500, BN_CH_VBUS, 5.0 },
	{ 500, 1000, BN_CH_VBUS, 4.6 },
};
static const struct ev otg_lp_evs[] = {
	{ 5, BN_CEV_DATA_CONTACT, 0, 1.0 },
	{ 500, BN_CEV_LOAD, 0, 0.1 },
	{ 1000, BN_CEV_LOAD, 0, 0.0 },
	{ 1000, BN_CEV_DATA_CONTACT, 0, 0.0 },
};

static void test_checks_aca_otg__vbus_output_pass_low_power_band(void **state)
{
	struct bn_check_ctx ctx = real_ctx(BN_PORT_OTG);
	struct bn_result r;

	(void)state;
	ctx.otg_rating_a = 0.1;
	r = run(&ctx, &STREAM(otg_lp_segs, otg_lp_evs, 1100), "bc12.otg.vbus_output");
	assert_clean_pass(r);
	assert_string_equal(r.limit, "VA_VBUS_OUT");
}

/* Rated 1 A: the source states limits up to IA_VBUS_OUT_HP max only. */
static void test_checks_aca_otg__vbus_output_inconclusive_rating_beyond_source(void **state)
{
	struct bn_check_ctx ctx = real_ctx(BN_PORT_OTG);
	struct bn_result r;

	(void)state;
	ctx.otg_rating_a = 1.0;
	r = run(&ctx, &STREAM(otg_good_segs, otg_evs, 1100), "bc12.otg.vbus_output");
	assert_verdict(r, BN_VERDICT_INCONCLUSIVE);
	assert_reason_has(r, "IA_VBUS_OUT_HP");
}

/* ---- bc12.otg.no_backfeed ---- */

static const struct seg bf_good_segs[] = {
	{ 0, 3000, BN_CH_VBUS, 5.0 },
	{ 600, 3000, BN_CH_IBUS, 0.75 },
	{ 3000, 3100, BN_CH_IBUS, -0.5 }, /* after VBUS off: not judged */
};
static const struct ev bf_evs[] = {
	{ 0, BN_CEV_VBUS_ON, 0, 0 },
	{ 3000, BN_CEV_VBUS_OFF, 0, 0 },
};

static void test_checks_aca_otg__no_backfeed_pass(void **state)
{
	struct bn_result r = run_real(BN_PORT_ACA_A, &STREAM(bf_good_segs, bf_evs, 3200), "bc12.otg.no_backfeed");

	(void)state;
	assert_clean_pass(r);
	assert_near(r.limit_min, -bn_limits_max(&bn_test_lim, "ISUSP"), 1e-12);
	assert_true(fabs(r.measured) < 1e-3);
}

static void test_checks_aca_otg__no_backfeed_pass_ideal(void **state)
{
	struct bn_check_ctx ctx = base_ctx(BN_PORT_ACA_A);
	struct bn_result r = run(&ctx, &STREAM(bf_good_segs, bf_evs, 3200), "bc12.otg.no_backfeed");

	(void)state;
	assert_verdict(r, BN_VERDICT_PASS);
	assert_true(fabs(r.measured) < 1e-12);
}

static const struct seg bf_bad_segs[] = {
	{ 0, 3000, BN_CH_VBUS, 5.0 },
	{ 601, 3000, BN_CH_IBUS, -0.5 },
};

static void test_checks_aca_otg__no_backfeed_fail(void **state)
{
	struct bn_result r = run_real(BN_PORT_ACA_A, &STREAM(bf_bad_segs, bf_evs, 3200), "bc12.otg.no_backfeed");

	(void)state;
	assert_verdict(r, BN_VERDICT_FAIL);
	assert_near(r.measured, -0.5, 0.01);
	assert_true(r.t0_us >= MS(601));
}

/* A steady -2 mA: read about -1.8 mA, and its lowest 10 ms means lie
 * within U of -ISUSP max. */
static const struct seg bf_border_segs[] = {
	{ 0, 3000, BN_CH_VBUS, 5.0 },
	{ 0, 3000, BN_CH_IBUS, -0.002 },
};

static void test_checks_aca_otg__no_backfeed_inconclusive_borderline(void **state)
{
	struct bn_result r = run_real(BN_PORT_SDP, &STREAM(bf_border_segs, bf_evs, 3200), "bc12.otg.no_backfeed");

	(void)state;
	assert_within_u(r);
}

/* A small negative reading within -ISUSP is not a back-feed. */
static const struct seg bf_leak_segs[] = {
	{ 0, 3000, BN_CH_VBUS, 5.0 },
	{ 0, 3000, BN_CH_IBUS, -0.0005 },
};

static void test_checks_aca_otg__no_backfeed_pass_small_negative(void **state)
{
	struct bn_result r = run_real(BN_PORT_SDP, &STREAM(bf_leak_segs, bf_evs, 3200), "bc12.otg.no_backfeed");

	(void)state;
	assert_clean_pass(r);
}

/* A logic line (0-3.3 V) mapped as VBUS: the rule must not pass. */
static const struct seg bf_logic_segs[] = {
	{ 0, 3000, BN_CH_VBUS, 3.3 },
	{ 0, 3000, BN_CH_IBUS, 0.1 },
};

static void test_checks_aca_otg__no_backfeed_inconclusive_wrong_map(void **state)
{
	struct bn_result r = run_real(BN_PORT_SDP, &STREAM(bf_logic_segs, bf_evs, 3200), "bc12.otg.no_backfeed");

	(void)state;
	assert_verdict(r, BN_VERDICT_INCONCLUSIVE);
	assert_reason_has(r, "wrong channel map");
}

/* The charger drops VBUS for 0.5 s while the bench keeps it on: the
 * device's current then is not judged (VBUS is not supplied). */
static const struct seg bf_dropout_segs[] = {
	{ 0, 1000, BN_CH_VBUS, 5.0 },
	{ 1500, 3000, BN_CH_VBUS, 5.0 },
	{ 0, 3000, BN_CH_IBUS, 0.3 },
	{ 1000, 1500, BN_CH_IBUS, -0.01 },
};

static void test_checks_aca_otg__no_backfeed_pass_not_judged_while_vbus_lost(void **state)
{
	struct bn_result r = run_real(BN_PORT_SDP, &STREAM(bf_dropout_segs, bf_evs, 3200), "bc12.otg.no_backfeed");

	(void)state;
	assert_clean_pass(r);
}

static void test_checks_aca_otg__no_backfeed_inconclusive_no_ibus(void **state)
{
	struct bn_check_ctx ctx = base_ctx(BN_PORT_ACA_A);
	struct bn_result r;

	(void)state;
	ctx.channels &= ~(1u << BN_CH_IBUS);
	r = run(&ctx, &STREAM(bf_bad_segs, bf_evs, 3200), "bc12.otg.no_backfeed");
	assert_verdict(r, BN_VERDICT_INCONCLUSIVE);
}

static void test_checks_aca_otg__no_backfeed_inconclusive_no_vbus_events(void **state)
{
	struct bn_check_ctx ctx = base_ctx(BN_PORT_ACA_A);
	struct bn_result r;

	(void)state;
	ctx.events &= ~BN_CEV_BIT(BN_CEV_VBUS_ON);
	r = run(&ctx, &STREAM(bf_bad_segs, bf_evs, 3200), "bc12.otg.no_backfeed");
	assert_verdict(r, BN_VERDICT_INCONCLUSIVE);
}

/* The OTG port: the bench never supplies VBUS, nothing to judge. */
static const struct ev bf_none_evs[] = {
	{ 5, BN_CEV_DATA_CONTACT, 0, 1.0 },
};

static void test_checks_aca_otg__no_backfeed_inconclusive_never_supplied(void **state)
{
	struct bn_check_ctx ctx = base_ctx(BN_PORT_OTG);
	struct bn_result r = run(&ctx, &STREAM(bf_bad_segs, bf_none_evs, 1000), "bc12.otg.no_backfeed");

	(void)state;
	assert_verdict(r, BN_VERDICT_INCONCLUSIVE);
}

/* A bare replay of an OTG capture infers VBUS on from the device's own
 * VBUS rising: on the OTG port that is no supplied VBUS, never a fail. */
static const struct seg bf_otg_segs[] = {
	{ 20, 1000, BN_CH_VBUS, 4.9 },
	{ 500, 1000, BN_CH_IBUS, -0.5 },
};
static const struct ev bf_otg_evs[] = {
	{ 20, BN_CEV_VBUS_ON, 0, 0 },
	{ 1000, BN_CEV_VBUS_OFF, 0, 0 },
};

static void test_checks_aca_otg__no_backfeed_inconclusive_own_vbus_on_otg(void **state)
{
	struct bn_result r = run_real(BN_PORT_OTG, &STREAM(bf_otg_segs, bf_otg_evs, 1100), "bc12.otg.no_backfeed");

	(void)state;
	assert_verdict(r, BN_VERDICT_INCONCLUSIVE);
	assert_reason_has(r, "device's own");
}

static void test_checks_aca_otg__no_backfeed_inconclusive_port_unknown(void **state)
{
	struct bn_check_ctx ctx = real_ctx(BN_PORT_SDP);
	struct bn_result r;

	(void)state;
	ctx.port_unknown = true;
	r = run(&ctx, &STREAM(bf_otg_segs, bf_otg_evs, 1100), "bc12.otg.no_backfeed");
	assert_verdict(r, BN_VERDICT_INCONCLUSIVE);
}

/* ---- hold() ends where sample() by sample does ---- */

static void same_result(const struct bn_result *a, const struct bn_result *b)
{
	assert_int_equal(a->verdict, b->verdict);
	assert_string_equal(a->reason, b->reason);
	assert_int_equal(a->t0_us, b->t0_us);
	assert_int_equal(a->t1_us, b->t1_us);
	assert_int_equal(a->has_measured, b->has_measured);
	if (a->has_measured)
		assert_near(a->measured, b->measured, 1e-9 * fmax(fabs(a->measured), 1e-3));
}

static void test_checks_aca_otg__hold_matches_samples(void **state)
{
	static const struct {
		enum bn_port_type port;
		const char *id;
		const struct seg *segs;
		int n_segs;
		const struct ev *evs;
		int n_evs;
		double end_ms;
	} cases[] = {
#define N_OF(a) ((int)(sizeof(a) / sizeof((a)[0])))
#define CASE(p, id, s, e, end) { p, id, s, N_OF(s), e, N_OF(e), end }
		CASE(BN_PORT_ACA_B, "bc12.aca.b_no_connect", b_dropout_segs, b_dropout_evs, 5200),
		CASE(BN_PORT_ACA_B, "bc12.aca.b_no_connect", b_pullup_segs, b_evs, 3200),
		CASE(BN_PORT_ACA_C, "bc12.aca.c_connect", c_dropout_segs, c_dropout_evs, 5200),
		CASE(BN_PORT_ACA_C, "bc12.aca.c_connect", c_late_segs, c_late_evs, 3200),
		CASE(BN_PORT_ACA_A, "bc12.aca.a_no_pullup", a_dropout_segs, a_dropout_evs, 5200),
		CASE(BN_PORT_OTG, "bc12.otg.sources_vbus", otg_good_segs, otg_evs, 1100),
		CASE(BN_PORT_OTG, "bc12.otg.vbus_output", otg_low_segs, otg_evs, 1100),
		CASE(BN_PORT_ACA_A, "bc12.otg.no_backfeed", bf_bad_segs, bf_evs, 3200),
		CASE(BN_PORT_SDP, "bc12.otg.no_backfeed", bf_dropout_segs, bf_evs, 3200),
#undef CASE
#undef N_OF
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct stream st = { .segs = cases[i].segs, .n_segs = cases[i].n_segs, .evs = cases[i].evs,
				     .n_evs = cases[i].n_evs, .end_ms = cases[i].end_ms };
		struct bn_check_ctx held = base_ctx(cases[i].port), one = base_ctx(cases[i].port);
		struct bn_result a, b;

		one.no_hold = true;
		a = run(&held, &st, cases[i].id);
		b = run(&one, &st, cases[i].id);
		same_result(&a, &b);
	}
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_checks_aca_otg__b_no_connect_pass),
		cmocka_unit_test(test_checks_aca_otg__b_no_connect_pass_ideal),
		cmocka_unit_test(test_checks_aca_otg__b_no_connect_fail_pullup),
		cmocka_unit_test(test_checks_aca_otg__b_no_connect_fail_long_pulse),
		cmocka_unit_test(test_checks_aca_otg__b_no_connect_fail_above_vdat_ref_min),
		cmocka_unit_test(test_checks_aca_otg__b_no_connect_inconclusive_borderline_pulse),
		cmocka_unit_test(test_checks_aca_otg__b_no_connect_inconclusive_borderline_level),
		cmocka_unit_test(test_checks_aca_otg__b_no_connect_pass_charger_dropout),
		cmocka_unit_test(test_checks_aca_otg__b_no_connect_inconclusive_slow_plug),
		cmocka_unit_test(test_checks_aca_otg__b_no_connect_inconclusive_wrong_map),
		cmocka_unit_test(test_checks_aca_otg__b_no_connect_pass_ground_offset),
		cmocka_unit_test(test_checks_aca_otg__b_no_connect_inconclusive_ground_unknown),
		cmocka_unit_test(test_checks_aca_otg__b_no_connect_fail_connect_event),
		cmocka_unit_test(test_checks_aca_otg__b_no_connect_inconclusive_no_dp),
		cmocka_unit_test(test_checks_aca_otg__b_no_connect_inconclusive_no_vbus),
		cmocka_unit_test(test_checks_aca_otg__b_no_connect_inconclusive_short_attach),
		cmocka_unit_test(test_checks_aca_otg__b_no_connect_skipped_elsewhere),
		cmocka_unit_test(test_checks_aca_otg__c_connect_pass),
		cmocka_unit_test(test_checks_aca_otg__c_connect_pass_ideal),
		cmocka_unit_test(test_checks_aca_otg__c_connect_fail_late),
		cmocka_unit_test(test_checks_aca_otg__c_connect_fail_never),
		cmocka_unit_test(test_checks_aca_otg__c_connect_inconclusive_borderline),
		cmocka_unit_test(test_checks_aca_otg__c_connect_inconclusive_host_never_enumerates),
		cmocka_unit_test(test_checks_aca_otg__c_connect_fail_never_behind_no_enum_host),
		cmocka_unit_test(test_checks_aca_otg__c_connect_pass_charger_dropout),
		cmocka_unit_test(test_checks_aca_otg__c_connect_inconclusive_slow_plug),
		cmocka_unit_test(test_checks_aca_otg__c_connect_inconclusive_no_config_events),
		cmocka_unit_test(test_checks_aca_otg__c_connect_inconclusive_short_attach),
		cmocka_unit_test(test_checks_aca_otg__c_connect_inconclusive_vbus_on_at_start),
		cmocka_unit_test(test_checks_aca_otg__a_no_pullup_pass),
		cmocka_unit_test(test_checks_aca_otg__a_no_pullup_pass_dock),
		cmocka_unit_test(test_checks_aca_otg__a_no_pullup_fail_pullup),
		cmocka_unit_test(test_checks_aca_otg__a_no_pullup_inconclusive_borderline),
		cmocka_unit_test(test_checks_aca_otg__a_no_pullup_fail_no_peripheral),
		cmocka_unit_test(test_checks_aca_otg__a_no_pullup_pass_charger_dropout),
		cmocka_unit_test(test_checks_aca_otg__a_no_pullup_inconclusive_slow_plug),
		cmocka_unit_test(test_checks_aca_otg__a_no_pullup_inconclusive_low_rate),
		cmocka_unit_test(test_checks_aca_otg__a_no_pullup_inconclusive_no_peripheral_events),
		cmocka_unit_test(test_checks_aca_otg__sources_vbus_pass),
		cmocka_unit_test(test_checks_aca_otg__sources_vbus_pass_ideal),
		cmocka_unit_test(test_checks_aca_otg__sources_vbus_pass_overload_not_judged),
		cmocka_unit_test(test_checks_aca_otg__sources_vbus_fail_folds_at_load),
		cmocka_unit_test(test_checks_aca_otg__sources_vbus_fail_never),
		cmocka_unit_test(test_checks_aca_otg__sources_vbus_inconclusive_borderline),
		cmocka_unit_test(test_checks_aca_otg__sources_vbus_inconclusive_no_vbus),
		cmocka_unit_test(test_checks_aca_otg__sources_vbus_inconclusive_no_contact_events),
		cmocka_unit_test(test_checks_aca_otg__sources_vbus_inconclusive_short_plug),
		cmocka_unit_test(test_checks_aca_otg__sources_vbus_skipped_without_rating),
		cmocka_unit_test(test_checks_aca_otg__vbus_output_pass),
		cmocka_unit_test(test_checks_aca_otg__vbus_output_fail_low_while_sources_vbus_passes),
		cmocka_unit_test(test_checks_aca_otg__vbus_output_fail_high),
		cmocka_unit_test(test_checks_aca_otg__vbus_output_inconclusive_borderline),
		cmocka_unit_test(test_checks_aca_otg__vbus_output_pass_low_power_band),
		cmocka_unit_test(test_checks_aca_otg__vbus_output_inconclusive_rating_beyond_source),
		cmocka_unit_test(test_checks_aca_otg__no_backfeed_pass),
		cmocka_unit_test(test_checks_aca_otg__no_backfeed_pass_ideal),
		cmocka_unit_test(test_checks_aca_otg__no_backfeed_fail),
		cmocka_unit_test(test_checks_aca_otg__no_backfeed_inconclusive_borderline),
		cmocka_unit_test(test_checks_aca_otg__no_backfeed_pass_small_negative),
		cmocka_unit_test(test_checks_aca_otg__no_backfeed_inconclusive_wrong_map),
		cmocka_unit_test(test_checks_aca_otg__no_backfeed_pass_not_judged_while_vbus_lost),
		cmocka_unit_test(test_checks_aca_otg__no_backfeed_inconclusive_no_ibus),
		cmocka_unit_test(test_checks_aca_otg__no_backfeed_inconclusive_no_vbus_events),
		cmocka_unit_test(test_checks_aca_otg__no_backfeed_inconclusive_never_supplied),
		cmocka_unit_test(test_checks_aca_otg__no_backfeed_inconclusive_own_vbus_on_otg),
		cmocka_unit_test(test_checks_aca_otg__no_backfeed_inconclusive_port_unknown),
		cmocka_unit_test(test_checks_aca_otg__hold_matches_samples),
	};

	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, bn_test_setup_limits, bn_test_teardown_limits);
}
