/* core/meas: the measurement text form, the simulated instrument, the
 * uncertainty it implies; checks' decision rule (ISO 14253-1 guarded
 * acceptance, and simple acceptance): one test per outcome. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "checks/check.h"
#include "core/meas.h"
#include "lib/harness.h"

static void test_meas__parse_every_item(void **state)
{
	struct bn_meas m;
	char why[200] = "";

	(void)state;
	assert_int_equal(bn_meas_parse("noise=3mV,offset=-2mV,gain=0.5%,bits=12,range=-1V..6V,"
				       "jitter=1us,gnd=dut", BN_DIM_V, &m, why, sizeof(why)), BN_OK);
	assert_near(m.noise_rms, 3e-3, 1e-12);
	assert_near(m.offset, -2e-3, 1e-12);
	assert_near(m.gain, 0.005, 1e-12);
	assert_int_equal(m.bits, 12);
	assert_near(m.range_lo, -1, 1e-12);
	assert_near(m.range_hi, 6, 1e-12);
	assert_near(m.jitter_s, 1e-6, 1e-15);
	assert_int_equal(m.gnd, BN_GND_DUT);
	assert_near(bn_meas_lsb(&m), 7.0 / 4096.0, 1e-12);
	assert_int_equal(bn_meas_parse("gain=0.002", BN_DIM_A, &m, why, sizeof(why)), BN_OK);
	assert_near(m.gain, 0.002, 1e-12);
	assert_int_equal(bn_meas_parse("ideal", BN_DIM_V, &m, why, sizeof(why)), BN_OK);
	assert_true(bn_meas_is_ideal(&m));
}

static void test_meas__parse_errors_say_what_was_expected(void **state)
{
	static const struct {
		const char *text;
		enum bn_dim dim;
		const char *why;
	} bad[] = {
		{ "noise=3mA", BN_DIM_V, "noise" },
		{ "noise=-3mV", BN_DIM_V, "noise >= 0" },
		{ "bits=12", BN_DIM_V, "needs range" },
		{ "bits=40,range=0V..5V", BN_DIM_V, "1..32" },
		{ "range=5V..0V", BN_DIM_V, "LO < HI" },
		{ "range=5V", BN_DIM_V, "LO..HI" },
		{ "gain=big", BN_DIM_V, "relative error" },
		{ "gain=80%", BN_DIM_V, "below 50%" },
		{ "gnd=chassis", BN_DIM_V, "port or dut" },
		{ "nosie=3mV", BN_DIM_V, "unknown item \"nosie\"" },
		{ "noise", BN_DIM_V, "KEY=VALUE" },
		{ "jitter=3V", BN_DIM_V, "jitter" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct bn_meas m;
		char why[200] = "";

		if (bn_meas_parse(bad[i].text, bad[i].dim, &m, why, sizeof(why)) != BN_ERR_DATA)
			fail_msg("\"%s\" was accepted", bad[i].text);
		if (!strstr(why, bad[i].why))
			fail_msg("\"%s\": \"%s\" lacks \"%s\"", bad[i].text, why, bad[i].why);
	}
}

static void test_meas__format_parses_back(void **state)
{
	struct bn_meas m, back;
	char buf[200], why[200];

	(void)state;
	assert_int_equal(bn_meas_parse("noise=2mA,offset=0.2mA,gain=-1%,bits=12,range=-3A..3A",
				       BN_DIM_A, &m, why, sizeof(why)), BN_OK);
	bn_meas_format(&m, BN_DIM_A, buf, sizeof(buf));
	assert_int_equal(bn_meas_parse(buf, BN_DIM_A, &back, why, sizeof(why)), BN_OK);
	assert_near(back.noise_rms, m.noise_rms, 1e-12);
	assert_near(back.offset, m.offset, 1e-12);
	assert_near(back.gain, m.gain, 1e-12);
	assert_int_equal(back.bits, m.bits);
	assert_near(back.range_lo, m.range_lo, 1e-12);
	bn_meas_ideal(&m);
	bn_meas_format(&m, BN_DIM_V, buf, sizeof(buf));
	assert_string_equal(buf, "ideal");
}

/* The simulated instrument: offset and gain as written, noise of the
 * stated rms (within 2 % over 200 000 samples), values on the ADC grid,
 * the same sequence for the same seed. */
static void test_meas__apply_is_the_stated_instrument(void **state)
{
	struct bn_meas m;
	struct bn_rng r, r2;
	char why[200];
	double sum = 0, sum2 = 0, q;
	const long n = 200000;

	(void)state;
	assert_int_equal(bn_meas_parse("noise=10mV,offset=5mV,gain=1%,bits=16,range=0V..25V",
				       BN_DIM_V, &m, why, sizeof(why)), BN_OK);
	q = bn_meas_lsb(&m);
	bn_rng_seed(&r, 7);
	bn_rng_seed(&r2, 7);
	for (long i = 0; i < n; i++) {
		double v = bn_meas_apply(&m, &r, 5.0, 0);
		double k = (v - m.range_lo) / q;

		if (fabs(k - round(k)) > 1e-6)
			fail_msg("%.9f is not on the ADC grid", v);
		assert_true(v == bn_meas_apply(&m, &r2, 5.0, 0));
		sum += v;
		sum2 += v * v;
	}
	sum /= (double)n;
	assert_near(sum, 5.0 * 1.01 + 0.005, 1e-3);
	assert_near(sqrt(sum2 / (double)n - sum * sum), 10e-3, 0.2e-3);
	/* clipped to the range */
	assert_true(bn_meas_apply(&m, &r, 30.0, 0) <= 25.0);
	assert_true(bn_meas_apply(&m, &r, -3.0, 0) >= 0.0);
}

/* What averages down and what does not. */
static void test_meas__uncertainty_of_levels_and_edges(void **state)
{
	struct bn_meas m;
	char why[200];
	double u1, u100;

	(void)state;
	assert_int_equal(bn_meas_parse("noise=3mV", BN_DIM_V, &m, why, sizeof(why)), BN_OK);
	u1 = bn_meas_u_level(&m, 0.6, 1);
	u100 = bn_meas_u_level(&m, 0.6, 100);
	assert_near(u1, 3e-3, 1e-12);
	assert_near(u100, 0.3e-3, 1e-12); /* noise shrinks over an average */
	assert_int_equal(bn_meas_parse("offset=5mV,gain=1%", BN_DIM_V, &m, why, sizeof(why)), BN_OK);
	/* offset and gain do not */
	assert_near(bn_meas_u_level(&m, 2.0, 1), bn_meas_u_level(&m, 2.0, 10000), 1e-15);
	assert_near(bn_meas_u_level(&m, 2.0, 1),
		    sqrt(pow(5e-3 / sqrt(3), 2) + pow(0.02 / sqrt(3), 2)), 1e-12);
	/* a difference on one channel: the offset cancels */
	assert_near(bn_meas_u_delta(&m, 0, 1), 0, 1e-15);
	/* a resolution-limited channel: the step stays however many samples */
	assert_int_equal(bn_meas_parse("bits=8,range=0V..2.56V", BN_DIM_V, &m, why, sizeof(why)), BN_OK);
	assert_near(bn_meas_u_level(&m, 1, 1000), 0.01 / sqrt(12), 1e-12);
	/* an edge: the sample period, rectangular; the noise over the slew */
	bn_meas_ideal(&m);
	assert_near(bn_meas_u_edge(&m, 1000, 0), 1e-3 / sqrt(12), 1e-12);
	m.noise_rms = 1e-3;
	assert_near(bn_meas_u_edge(&m, 1e9, 1.0), 1e-3, 1e-6); /* 1 mV over 1 V/s: 1 ms */
	assert_near(bn_u_expand(2, (double[]){ 3, 4 }), 10, 1e-12);
}

/* ---- the decision rule, one test per outcome ---- */

static struct bn_result judged(const char *decision, double v, double u, double min, double max)
{
	struct bn_result r;

	memset(&r, 0, sizeof(r));
	snprintf(r.decision, sizeof(r.decision), "%s", decision);
	r.verdict = BN_VERDICT_INCONCLUSIVE;
	bn_result_judge_u(&r, v, u, min, max, "A");
	return r;
}

static void test_decision__clear_pass(void **state)
{
	/* 2.0 mA against ISUSP 2.5 mA with U = 0.3 mA: inside by 0.5 > U */
	struct bn_result r = judged("guarded", 2.0e-3, 0.3e-3, NAN, 2.5e-3);

	(void)state;
	assert_int_equal(r.verdict, BN_VERDICT_PASS);
	assert_true(r.has_u);
	assert_near(r.u, 0.3e-3, 1e-15);
	assert_near(r.margin, 0.5e-3, 1e-15);
}

static void test_decision__clear_fail(void **state)
{
	struct bn_result r = judged("guarded", 3.0e-3, 0.3e-3, NAN, 2.5e-3);

	(void)state;
	assert_int_equal(r.verdict, BN_VERDICT_FAIL);
}

static void test_decision__inconclusive_inside_u_on_the_pass_side(void **state)
{
	struct bn_result r = judged("guarded", 2.3e-3, 0.3e-3, NAN, 2.5e-3);

	(void)state;
	assert_int_equal(r.verdict, BN_VERDICT_INCONCLUSIVE);
	if (!strstr(r.reason, "within measurement uncertainty (U = 300 uA)") ||
	    !strstr(r.reason, "inside the limit by 200 uA"))
		fail_msg("reason: %s", r.reason);
}

static void test_decision__inconclusive_inside_u_on_the_fail_side(void **state)
{
	/* a two-sided limit: just below the low bound */
	struct bn_result r = judged("guarded", 0.49, 0.02, 0.5, 0.7);

	(void)state;
	assert_int_equal(r.verdict, BN_VERDICT_INCONCLUSIVE);
	if (!strstr(r.reason, "within measurement uncertainty (U = 20 mA)") ||
	    !strstr(r.reason, "outside the limit by 10 mA"))
		fail_msg("reason: %s", r.reason);
}

static void test_decision__simple_acceptance_uses_the_plain_limit(void **state)
{
	struct bn_result in = judged("simple", 2.3e-3, 0.3e-3, NAN, 2.5e-3);
	struct bn_result out = judged("simple", 2.6e-3, 0.3e-3, NAN, 2.5e-3);

	(void)state;
	assert_int_equal(in.verdict, BN_VERDICT_PASS);
	assert_int_equal(out.verdict, BN_VERDICT_FAIL);
	assert_near(in.u, 0.3e-3, 1e-15); /* U still said */
	assert_string_equal(in.decision, "simple");
}

static void test_decision__zero_u_is_the_plain_limit(void **state)
{
	/* an exact measurement (the ideal simulator): a value on the limit passes */
	struct bn_result r = judged("guarded", 2.5e-3, 0, NAN, 2.5e-3);

	(void)state;
	assert_int_equal(r.verdict, BN_VERDICT_PASS);
	r = judged("guarded", 2.5000001e-3, 0, NAN, 2.5e-3);
	assert_int_equal(r.verdict, BN_VERDICT_FAIL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_meas__parse_every_item),
		cmocka_unit_test(test_meas__parse_errors_say_what_was_expected),
		cmocka_unit_test(test_meas__format_parses_back),
		cmocka_unit_test(test_meas__apply_is_the_stated_instrument),
		cmocka_unit_test(test_meas__uncertainty_of_levels_and_edges),
		cmocka_unit_test(test_decision__clear_pass),
		cmocka_unit_test(test_decision__clear_fail),
		cmocka_unit_test(test_decision__inconclusive_inside_u_on_the_pass_side),
		cmocka_unit_test(test_decision__inconclusive_inside_u_on_the_fail_side),
		cmocka_unit_test(test_decision__simple_acceptance_uses_the_plain_limit),
		cmocka_unit_test(test_decision__zero_u_is_the_plain_limit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
