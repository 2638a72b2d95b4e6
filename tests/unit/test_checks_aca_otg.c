/* The ACA and OTG rules (bench/checks/aca_otg.c) over synthetic streams:
 * for each rule a stream that passes, streams that fail, and one with an
 * input removed (a channel, an event kind, the sample rate) that must be
 * inconclusive, never pass. Streams are explicit tables: channel segments
 * (value over [t0, t1), 0 elsewhere) and events. Limits come from
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

/* ---- bc12.aca.b_no_connect ---- */

/* DCD's IDP_SRC lifts the open lines to 3 V for 600 ms (inside the
 * detection grace); later a 5 ms SRP pulse. */
static const struct seg b_good_segs[] = {
	{ 0, 600, BN_CH_DP, 3.0 },
	{ 1500, 1505, BN_CH_DP, 1.0 },
	{ 0, 3000, BN_CH_VBUS, 5.0 },
};
static const struct ev b_evs[] = {
	{ 0, BN_CEV_VBUS_ON, 0, 0 },
	{ 3000, BN_CEV_VBUS_OFF, 0, 0 },
};

static void test_checks_aca_otg__b_no_connect_pass(void **state)
{
	struct bn_check_ctx ctx = base_ctx(BN_PORT_ACA_B);
	struct bn_result r = run(&ctx, &STREAM(b_good_segs, b_evs, 3200), "bc12.aca.b_no_connect");

	(void)state;
	assert_verdict(r, BN_VERDICT_PASS);
	assert_true(r.has_measured);
	assert_true(fabs(r.measured - 0.005) < 1e-6);
	assert_string_equal(r.unit, "s");
	assert_true(fabs(r.limit_max - bn_limits_max(&bn_test_lim, "TSRP_PULSE")) < 1e-12);
}

static const struct seg b_pullup_segs[] = {
	{ 0, 600, BN_CH_DP, 3.0 },
	{ 700, 3000, BN_CH_DP, 3.0 },
};

static void test_checks_aca_otg__b_no_connect_fail_pullup(void **state)
{
	struct bn_check_ctx ctx = base_ctx(BN_PORT_ACA_B);
	struct bn_result r = run(&ctx, &STREAM(b_pullup_segs, b_evs, 3200), "bc12.aca.b_no_connect");

	(void)state;
	assert_verdict(r, BN_VERDICT_FAIL);
	assert_true(r.measured > 1.9);
	assert_non_null(strstr(r.reason, "VDAT_REF"));
}

/* A 20 ms pulse is longer than an SRP pulse. */
static const struct seg b_long_pulse_segs[] = {
	{ 2000, 2020, BN_CH_DP, 0.6 },
};

static void test_checks_aca_otg__b_no_connect_fail_long_pulse(void **state)
{
	struct bn_check_ctx ctx = base_ctx(BN_PORT_ACA_B);
	struct bn_result r =
		run(&ctx, &STREAM(b_long_pulse_segs, b_evs, 3200), "bc12.aca.b_no_connect");

	(void)state;
	assert_verdict(r, BN_VERDICT_FAIL);
	assert_true(fabs(r.measured - 0.020) < 1e-6);
}

static const struct ev b_connect_evs[] = {
	{ 0, BN_CEV_VBUS_ON, 0, 0 },
	{ 300, BN_CEV_CONNECT, 0, 0 },
	{ 400, BN_CEV_DISCONNECT, 0, 0 },
	{ 3000, BN_CEV_VBUS_OFF, 0, 0 },
};

static void test_checks_aca_otg__b_no_connect_fail_connect_event(void **state)
{
	struct bn_check_ctx ctx = base_ctx(BN_PORT_ACA_B);
	struct bn_result r =
		run(&ctx, &STREAM(b_good_segs, b_connect_evs, 3200), "bc12.aca.b_no_connect");

	(void)state;
	assert_verdict(r, BN_VERDICT_FAIL);
	assert_non_null(strstr(r.reason, "connected"));
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

static void test_checks_aca_otg__b_no_connect_inconclusive_no_connect_events(void **state)
{
	struct bn_check_ctx ctx = base_ctx(BN_PORT_ACA_B);
	struct bn_result r;

	(void)state;
	ctx.events &= ~BN_CEV_BIT(BN_CEV_CONNECT);
	r = run(&ctx, &STREAM(b_good_segs, b_evs, 3200), "bc12.aca.b_no_connect");
	assert_verdict(r, BN_VERDICT_INCONCLUSIVE);
}

/* VBUS on for less than the detection grace: nothing judged. */
static const struct ev b_short_evs[] = {
	{ 0, BN_CEV_VBUS_ON, 0, 0 },
	{ 800, BN_CEV_VBUS_OFF, 0, 0 },
};

static void test_checks_aca_otg__b_no_connect_inconclusive_short_attach(void **state)
{
	struct bn_check_ctx ctx = base_ctx(BN_PORT_ACA_B);
	struct bn_result r = run(&ctx, &STREAM(b_good_segs, b_short_evs, 1500), "bc12.aca.b_no_connect");

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

static const struct seg c_segs[] = {
	{ 18, 3000, BN_CH_DP, 3.0 },
};
static const struct ev c_good_evs[] = {
	{ 0, BN_CEV_VBUS_ON, 0, 0 },
	{ 18, BN_CEV_CONNECT, 0, 0 },
	{ 118, BN_CEV_CONFIG, 1, 0.5 },
	{ 3000, BN_CEV_VBUS_OFF, 0, 0 },
};

static void test_checks_aca_otg__c_connect_pass(void **state)
{
	struct bn_check_ctx ctx = base_ctx(BN_PORT_ACA_C);
	struct bn_result r = run(&ctx, &STREAM(c_segs, c_good_evs, 3200), "bc12.aca.c_connect");

	(void)state;
	assert_verdict(r, BN_VERDICT_PASS);
	assert_true(fabs(r.measured - 0.018) < 1e-9);
	assert_true(fabs(r.limit_max - bn_limits_max(&bn_test_lim, "TSVLD_CON_PWD")) < 1e-12);
}

static const struct ev c_late_evs[] = {
	{ 0, BN_CEV_VBUS_ON, 0, 0 },
	{ 1500, BN_CEV_CONNECT, 0, 0 },
	{ 1600, BN_CEV_CONFIG, 1, 0.5 },
	{ 3000, BN_CEV_VBUS_OFF, 0, 0 },
};

static void test_checks_aca_otg__c_connect_fail_late(void **state)
{
	struct bn_check_ctx ctx = base_ctx(BN_PORT_ACA_C);
	struct bn_result r = run(&ctx, &STREAM(c_segs, c_late_evs, 3200), "bc12.aca.c_connect");

	(void)state;
	assert_verdict(r, BN_VERDICT_FAIL);
	assert_true(fabs(r.measured - 1.5) < 1e-9);
}

static const struct ev c_never_evs[] = {
	{ 0, BN_CEV_VBUS_ON, 0, 0 },
	{ 3000, BN_CEV_VBUS_OFF, 0, 0 },
};

static void test_checks_aca_otg__c_connect_fail_never(void **state)
{
	struct bn_check_ctx ctx = base_ctx(BN_PORT_ACA_C);
	struct bn_result r = run(&ctx, &STREAM(c_segs, c_never_evs, 3200), "bc12.aca.c_connect");

	(void)state;
	assert_verdict(r, BN_VERDICT_FAIL);
	assert_non_null(strstr(r.reason, "never connected"));
}

static const struct ev c_no_enum_evs[] = {
	{ 0, BN_CEV_VBUS_ON, 0, 0 },
	{ 18, BN_CEV_CONNECT, 0, 0 },
	{ 3000, BN_CEV_VBUS_OFF, 0, 0 },
};

static void test_checks_aca_otg__c_connect_fail_not_enumerated(void **state)
{
	struct bn_check_ctx ctx = base_ctx(BN_PORT_ACA_C);
	struct bn_result r = run(&ctx, &STREAM(c_segs, c_no_enum_evs, 3200), "bc12.aca.c_connect");

	(void)state;
	assert_verdict(r, BN_VERDICT_FAIL);
	assert_non_null(strstr(r.reason, "never enumerated"));
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

static const struct ev c_short_evs[] = {
	{ 0, BN_CEV_VBUS_ON, 0, 0 },
	{ 500, BN_CEV_VBUS_OFF, 0, 0 },
};

static void test_checks_aca_otg__c_connect_inconclusive_short_attach(void **state)
{
	struct bn_check_ctx ctx = base_ctx(BN_PORT_ACA_C);
	struct bn_result r = run(&ctx, &STREAM(c_segs, c_short_evs, 800), "bc12.aca.c_connect");

	(void)state;
	assert_verdict(r, BN_VERDICT_INCONCLUSIVE);
}

/* ---- bc12.aca.a_no_pullup ---- */

static const struct seg a_good_segs[] = {
	{ 0, 600, BN_CH_DP, 3.0 },
	{ 2000, 2005, BN_CH_DP, 3.0 }, /* a 5 ms glitch: shorter than TDCD_DBNC min */
};
static const struct ev a_good_evs[] = {
	{ 0, BN_CEV_VBUS_ON, 0, 0 },
	{ 701, BN_CEV_PERIPHERAL, 0, 0 },
	{ 3000, BN_CEV_VBUS_OFF, 0, 0 },
};

static void test_checks_aca_otg__a_no_pullup_pass(void **state)
{
	struct bn_check_ctx ctx = base_ctx(BN_PORT_ACA_A);
	struct bn_result r = run(&ctx, &STREAM(a_good_segs, a_good_evs, 3200), "bc12.aca.a_no_pullup");

	(void)state;
	assert_verdict(r, BN_VERDICT_PASS);
	assert_true(fabs(r.measured - 0.005) < 1e-6);
	assert_true(fabs(r.limit_max - bn_limits_min(&bn_test_lim, "TDCD_DBNC")) < 1e-12);
}

static void test_checks_aca_otg__a_no_pullup_pass_dock(void **state)
{
	struct bn_check_ctx ctx = base_ctx(BN_PORT_ACA_DOCK);
	struct bn_result r = run(&ctx, &STREAM(a_good_segs, a_good_evs, 3200), "bc12.aca.a_no_pullup");

	(void)state;
	assert_verdict(r, BN_VERDICT_PASS);
}

/* Pull-up (with the host pull-downs: about 3.0 V) from the end of DCD on. */
static const struct seg a_pullup_segs[] = {
	{ 0, 3000, BN_CH_DP, 3.0 },
};

static void test_checks_aca_otg__a_no_pullup_fail_pullup(void **state)
{
	struct bn_check_ctx ctx = base_ctx(BN_PORT_ACA_A);
	struct bn_result r =
		run(&ctx, &STREAM(a_pullup_segs, a_good_evs, 3200), "bc12.aca.a_no_pullup");

	(void)state;
	assert_verdict(r, BN_VERDICT_FAIL);
	assert_true(r.measured > 1.9);
	assert_non_null(strstr(r.reason, "pull-up"));
}

static const struct ev a_no_periph_evs[] = {
	{ 0, BN_CEV_VBUS_ON, 0, 0 },
	{ 3000, BN_CEV_VBUS_OFF, 0, 0 },
};

static void test_checks_aca_otg__a_no_pullup_fail_no_peripheral(void **state)
{
	struct bn_check_ctx ctx = base_ctx(BN_PORT_ACA_A);
	struct bn_result r =
		run(&ctx, &STREAM(a_good_segs, a_no_periph_evs, 3200), "bc12.aca.a_no_pullup");

	(void)state;
	assert_verdict(r, BN_VERDICT_FAIL);
	assert_non_null(strstr(r.reason, "never enumerated"));
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

/* ---- bc12.otg.sources_vbus ---- */

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
	struct bn_check_ctx ctx = base_ctx(BN_PORT_OTG);
	struct bn_result r = run(&ctx, &STREAM(otg_good_segs, otg_evs, 1100), "bc12.otg.sources_vbus");

	(void)state;
	assert_verdict(r, BN_VERDICT_PASS);
	assert_true(fabs(r.measured - 4.9) < 1e-9);
	assert_string_equal(r.unit, "V");
	assert_true(fabs(r.limit_min - bn_limits_max(&bn_test_lim, "VOTG_SESS_VLD")) < 1e-12);
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
	struct bn_check_ctx ctx = base_ctx(BN_PORT_OTG);
	struct bn_result r =
		run(&ctx, &STREAM(otg_overload_segs, otg_overload_evs, 1100), "bc12.otg.sources_vbus");

	(void)state;
	assert_verdict(r, BN_VERDICT_PASS);
	assert_true(fabs(r.measured - 4.95) < 1e-9);
}

static const struct seg otg_fold_segs[] = {
	{ 20, 520, BN_CH_VBUS, 5.0 },
};

static void test_checks_aca_otg__sources_vbus_fail_folds_at_load(void **state)
{
	struct bn_check_ctx ctx = base_ctx(BN_PORT_OTG);
	struct bn_result r = run(&ctx, &STREAM(otg_fold_segs, otg_evs, 1100), "bc12.otg.sources_vbus");

	(void)state;
	assert_verdict(r, BN_VERDICT_FAIL);
	assert_true(r.measured < 0.1);
}

static const struct seg otg_none_segs[] = {
	{ 0, 1000, BN_CH_IBUS, 0.0 },
};

static void test_checks_aca_otg__sources_vbus_fail_never(void **state)
{
	struct bn_check_ctx ctx = base_ctx(BN_PORT_OTG);
	struct bn_result r = run(&ctx, &STREAM(otg_none_segs, otg_evs, 1100), "bc12.otg.sources_vbus");

	(void)state;
	assert_verdict(r, BN_VERDICT_FAIL);
	assert_non_null(strstr(r.reason, "never sourced"));
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
	struct bn_check_ctx ctx = base_ctx(BN_PORT_ACA_A);
	struct bn_result r = run(&ctx, &STREAM(bf_good_segs, bf_evs, 3200), "bc12.otg.no_backfeed");

	(void)state;
	assert_verdict(r, BN_VERDICT_PASS);
	assert_true(fabs(r.measured) < 1e-12);
	assert_true(fabs(r.limit_min + bn_limits_max(&bn_test_lim, "ISUSP")) < 1e-12);
}

static const struct seg bf_bad_segs[] = {
	{ 0, 3000, BN_CH_VBUS, 5.0 },
	{ 601, 3000, BN_CH_IBUS, -0.5 },
};

static void test_checks_aca_otg__no_backfeed_fail(void **state)
{
	struct bn_check_ctx ctx = base_ctx(BN_PORT_ACA_A);
	struct bn_result r = run(&ctx, &STREAM(bf_bad_segs, bf_evs, 3200), "bc12.otg.no_backfeed");

	(void)state;
	assert_verdict(r, BN_VERDICT_FAIL);
	assert_true(fabs(r.measured + 0.5) < 1e-12);
	assert_int_equal(r.t0_us, MS(601));
}

/* A small negative reading within -ISUSP is not a back-feed. */
static const struct seg bf_leak_segs[] = {
	{ 0, 3000, BN_CH_IBUS, -0.001 },
};

static void test_checks_aca_otg__no_backfeed_pass_small_negative(void **state)
{
	struct bn_check_ctx ctx = base_ctx(BN_PORT_SDP);
	struct bn_result r = run(&ctx, &STREAM(bf_leak_segs, bf_evs, 3200), "bc12.otg.no_backfeed");

	(void)state;
	assert_verdict(r, BN_VERDICT_PASS);
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

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_checks_aca_otg__b_no_connect_pass),
		cmocka_unit_test(test_checks_aca_otg__b_no_connect_fail_pullup),
		cmocka_unit_test(test_checks_aca_otg__b_no_connect_fail_long_pulse),
		cmocka_unit_test(test_checks_aca_otg__b_no_connect_fail_connect_event),
		cmocka_unit_test(test_checks_aca_otg__b_no_connect_inconclusive_no_dp),
		cmocka_unit_test(test_checks_aca_otg__b_no_connect_inconclusive_no_connect_events),
		cmocka_unit_test(test_checks_aca_otg__b_no_connect_inconclusive_short_attach),
		cmocka_unit_test(test_checks_aca_otg__b_no_connect_skipped_elsewhere),
		cmocka_unit_test(test_checks_aca_otg__c_connect_pass),
		cmocka_unit_test(test_checks_aca_otg__c_connect_fail_late),
		cmocka_unit_test(test_checks_aca_otg__c_connect_fail_never),
		cmocka_unit_test(test_checks_aca_otg__c_connect_fail_not_enumerated),
		cmocka_unit_test(test_checks_aca_otg__c_connect_inconclusive_no_config_events),
		cmocka_unit_test(test_checks_aca_otg__c_connect_inconclusive_short_attach),
		cmocka_unit_test(test_checks_aca_otg__a_no_pullup_pass),
		cmocka_unit_test(test_checks_aca_otg__a_no_pullup_pass_dock),
		cmocka_unit_test(test_checks_aca_otg__a_no_pullup_fail_pullup),
		cmocka_unit_test(test_checks_aca_otg__a_no_pullup_fail_no_peripheral),
		cmocka_unit_test(test_checks_aca_otg__a_no_pullup_inconclusive_low_rate),
		cmocka_unit_test(test_checks_aca_otg__a_no_pullup_inconclusive_no_peripheral_events),
		cmocka_unit_test(test_checks_aca_otg__sources_vbus_pass),
		cmocka_unit_test(test_checks_aca_otg__sources_vbus_pass_overload_not_judged),
		cmocka_unit_test(test_checks_aca_otg__sources_vbus_fail_folds_at_load),
		cmocka_unit_test(test_checks_aca_otg__sources_vbus_fail_never),
		cmocka_unit_test(test_checks_aca_otg__sources_vbus_inconclusive_no_vbus),
		cmocka_unit_test(test_checks_aca_otg__sources_vbus_inconclusive_no_contact_events),
		cmocka_unit_test(test_checks_aca_otg__sources_vbus_inconclusive_short_plug),
		cmocka_unit_test(test_checks_aca_otg__sources_vbus_skipped_without_rating),
		cmocka_unit_test(test_checks_aca_otg__no_backfeed_pass),
		cmocka_unit_test(test_checks_aca_otg__no_backfeed_fail),
		cmocka_unit_test(test_checks_aca_otg__no_backfeed_pass_small_negative),
		cmocka_unit_test(test_checks_aca_otg__no_backfeed_inconclusive_no_ibus),
		cmocka_unit_test(test_checks_aca_otg__no_backfeed_inconclusive_no_vbus_events),
		cmocka_unit_test(test_checks_aca_otg__no_backfeed_inconclusive_never_supplied),
	};

	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, bn_test_setup_limits, bn_test_teardown_limits);
}
