/* Channel maps: defaults, good specs, and every error naming the origin,
 * the entry and what was expected. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "lib/harness.h"

#include "core/chanmap.h"

static void expect_error(const char *spec, const char *want1, const char *want2)
{
	struct bn_chanmap m, before;
	struct bn_err err = { 0 };

	bn_chanmap_default(&m);
	memcpy(&before, &m, sizeof(m));
	assert_int_equal(bn_chanmap_parse(spec, &m, "bench.conf:7", &err), BN_ERR_DATA);
	assert_int_equal(err.code, BN_ERR_DATA);
	assert_msg_has(&err, "bench.conf:7");
	assert_msg_has(&err, want1);
	if (want2)
		assert_msg_has(&err, want2);
	/* A failed parse leaves the map as it was. */
	assert_memory_equal(&m, &before, sizeof(m));
}

static void test_chanmap__defaults(void **state)
{
	struct bn_chanmap m;

	(void)state;
	bn_chanmap_default(&m);
	for (int ch = 0; ch < BN_CH_COUNT; ch++) {
		assert_false(m.e[ch].set);
		assert_string_equal(m.e[ch].src, bn_chan_label(ch));
		assert_string_equal(m.e[ch].unit, bn_chan_unit(ch));
		assert_near(m.e[ch].scale, 1.0, 0);
		assert_near(m.e[ch].to_si, 1.0, 0);
		assert_near(bn_chanmap_apply(&m, ch, 4.5), 4.5, 0);
	}
	assert_string_equal(m.e[BN_CH_IBUS].unit, "A");
	assert_string_equal(m.e[BN_CH_DP].unit, "V");
}

static void test_chanmap__spec(void **state)
{
	struct bn_chanmap m;
	struct bn_err err = { 0 };

	(void)state;
	bn_chanmap_default(&m);
	assert_int_equal(bn_chanmap_parse("VBUS=A0,IBUS=A1:scale=0.1:unit=A,DP=A2", &m, "--map", &err),
			 BN_OK);
	assert_int_equal(err.code, BN_OK);
	assert_true(m.e[BN_CH_VBUS].set);
	assert_string_equal(m.e[BN_CH_VBUS].src, "A0");
	assert_near(bn_chanmap_apply(&m, BN_CH_VBUS, 5.0), 5.0, 0);
	assert_true(m.e[BN_CH_IBUS].set);
	assert_string_equal(m.e[BN_CH_IBUS].src, "A1");
	assert_string_equal(m.e[BN_CH_IBUS].unit, "A");
	assert_near(bn_chanmap_apply(&m, BN_CH_IBUS, 15.0), 1.5, 1e-12);
	assert_true(m.e[BN_CH_DP].set);
	assert_string_equal(m.e[BN_CH_DP].src, "A2");
	/* Not named: its own label, not set. */
	assert_false(m.e[BN_CH_DM].set);
	assert_string_equal(m.e[BN_CH_DM].src, "DM");
	assert_false(m.e[BN_CH_ID].set);
}

static void test_chanmap__units_and_case(void **state)
{
	struct bn_chanmap m;
	struct bn_err err = { 0 };

	(void)state;
	bn_chanmap_default(&m);
	assert_int_equal(bn_chanmap_parse("dp=CH3:unit=mV, Dm=probe 4:scale=-2:unit=V,"
					  "ibus=shunt:scale=10:unit=A,id=x:unit=mV:scale=1e3",
					  &m, "--map", &err),
			 BN_OK);
	assert_string_equal(m.e[BN_CH_DP].src, "CH3");
	assert_string_equal(m.e[BN_CH_DP].unit, "mV");
	assert_near(bn_chanmap_apply(&m, BN_CH_DP, 600.0), 0.6, 1e-12);
	assert_string_equal(m.e[BN_CH_DM].src, "probe 4"); /* spaces inside a name stay */
	assert_near(bn_chanmap_apply(&m, BN_CH_DM, 0.3), -0.6, 1e-12);
	/* A 0.1 ohm shunt's voltage as IBUS: scale=10:unit=A. */
	assert_near(bn_chanmap_apply(&m, BN_CH_IBUS, 0.05), 0.5, 1e-12);
	assert_near(bn_chanmap_apply(&m, BN_CH_ID, 2.0), 2.0, 1e-12);

	bn_chanmap_default(&m);
	assert_int_equal(bn_chanmap_parse("IBUS=I:unit=mA", &m, "--map", &err), BN_OK);
	assert_string_equal(m.e[BN_CH_IBUS].unit, "mA");
	assert_true(m.e[BN_CH_IBUS].unit_set);
	assert_near(bn_chanmap_apply(&m, BN_CH_IBUS, 500.0), 0.5, 1e-12);
	assert_true(bn_chanmap_source_is_current(&m, BN_CH_IBUS));
	assert_false(bn_chanmap_source_is_current(&m, BN_CH_VBUS));
}

/* shunt=OHMS: IBUS from the voltage across a shunt, in V by default or
 * in mV, scale applied first (an amplified shunt); the source is then a
 * voltage. */
static void test_chanmap__shunt(void **state)
{
	static const struct {
		const char *spec;
		double raw, want_a, to_si;
		const char *unit;
	} cases[] = {
		{ "IBUS=CH2:shunt=0.1", 0.05, 0.5, 10.0, "V" },
		{ "IBUS=CH2:shunt=0.1:unit=mV", 50.0, 0.5, 1e-2, "mV" },
		{ "IBUS=CH2:unit=mV:shunt=0.1", 50.0, 0.5, 1e-2, "mV" },
		{ "IBUS=CH2:shunt=0.01:scale=0.02", 1.0, 2.0, 100.0, "V" },
		{ "IBUS=CH2:shunt=2.5:unit=V:scale=-1", 5.0, -2.0, 0.4, "V" },
	};
	struct bn_chanmap m;
	struct bn_err err = { 0 };

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		bn_chanmap_default(&m);
		if (bn_chanmap_parse(cases[i].spec, &m, "--map", &err) < 0)
			fail_msg("%s: %s", cases[i].spec, err.msg);
		assert_false(bn_chanmap_source_is_current(&m, BN_CH_IBUS));
		assert_string_equal(m.e[BN_CH_IBUS].unit, cases[i].unit);
		assert_near(m.e[BN_CH_IBUS].to_si, cases[i].to_si, 1e-12);
		assert_near(bn_chanmap_apply(&m, BN_CH_IBUS, cases[i].raw), cases[i].want_a, 1e-12);
	}
	/* A later spec without shunt= starts again: a current. */
	assert_int_equal(bn_chanmap_parse("IBUS=CH3", &m, "--map", &err), BN_OK);
	assert_near(m.e[BN_CH_IBUS].shunt_ohm, 0.0, 0);
	assert_true(bn_chanmap_source_is_current(&m, BN_CH_IBUS));
	assert_near(bn_chanmap_apply(&m, BN_CH_IBUS, 0.3), 0.3, 0);
}

static void test_chanmap__bad_shunt(void **state)
{
	(void)state;
	expect_error("IBUS=CH2:shunt=0", "shunt \"0\"", "ohms above 0");
	expect_error("IBUS=CH2:shunt=-0.1", "shunt \"-0.1\"", "ohms above 0");
	expect_error("IBUS=CH2:shunt=", "shunt \"\"", "ohms above 0");
	expect_error("IBUS=CH2:shunt=inf", "shunt \"inf\"", "ohms above 0");
	expect_error("IBUS=CH2:shunt=0.1:unit=A", "unit \"A\"", "voltage across the shunt, expected V or mV");
	expect_error("IBUS=CH2:unit=mA:shunt=0.1", "unit \"mA\"", "expected V or mV");
	expect_error("VBUS=CH1:shunt=0.1", "\"VBUS=CH1:shunt=0.1\"", "shunt= is for IBUS");
}

/* A second parse (--map over bench.conf) overrides the entries it names
 * and keeps the others; the options restart from the defaults. */
static void test_chanmap__parse_over(void **state)
{
	struct bn_chanmap m;
	struct bn_err err = { 0 };

	(void)state;
	bn_chanmap_default(&m);
	assert_int_equal(bn_chanmap_parse("VBUS=A0:scale=2,IBUS=A1:unit=mA", &m, "bench.conf:3", &err),
			 BN_OK);
	assert_int_equal(bn_chanmap_parse("IBUS=A3", &m, "--map", &err), BN_OK);
	assert_true(m.e[BN_CH_VBUS].set);
	assert_near(m.e[BN_CH_VBUS].scale, 2.0, 0);
	assert_string_equal(m.e[BN_CH_IBUS].src, "A3");
	assert_string_equal(m.e[BN_CH_IBUS].unit, "A");
	assert_near(m.e[BN_CH_IBUS].to_si, 1.0, 0);
	/* An empty spec changes nothing. */
	assert_int_equal(bn_chanmap_parse("", &m, "--map", &err), BN_OK);
	assert_string_equal(m.e[BN_CH_IBUS].src, "A3");
}

static void test_chanmap__unknown_channel(void **state)
{
	(void)state;
	expect_error("VBUS=A0,VBAT=A1", "\"VBAT=A1\"", "VBUS, IBUS, DP, DM, ID");
	expect_error("=A1", "unknown channel \"\"", "VBUS, IBUS, DP, DM, ID");
}

static void test_chanmap__duplicate(void **state)
{
	(void)state;
	expect_error("VBUS=A0,vbus=A1", "\"vbus=A1\"", "VBUS mapped twice");
}

static void test_chanmap__empty_source(void **state)
{
	(void)state;
	expect_error("VBUS=,DP=A2", "\"VBUS=\"", "empty source");
	expect_error("IBUS=:scale=2", "\"IBUS=:scale=2\"", "empty source");
	expect_error("VBUS", "\"VBUS\"", "expected CHANNEL=SOURCE");
	expect_error("VBUS=A0,,DP=A2", "empty entry", "between commas");
	expect_error("VBUS=A0,", "trailing comma", NULL);
}

static void test_chanmap__bad_number(void **state)
{
	(void)state;
	expect_error("IBUS=A1:scale=abc", "\"IBUS=A1:scale=abc\"", "finite non-zero number");
	expect_error("IBUS=A1:scale=0", "scale \"0\"", "finite non-zero");
	expect_error("IBUS=A1:scale=", "scale \"\"", "finite non-zero");
	expect_error("IBUS=A1:scale=1.5x", "scale \"1.5x\"", "finite non-zero");
	expect_error("IBUS=A1:scale=inf", "scale \"inf\"", "finite");
	expect_error("IBUS=A1:scale=nan", "scale \"nan\"", "finite");
	expect_error("IBUS=A1:scale=1e999", "scale \"1e999\"", "finite");
}

static void test_chanmap__bad_unit(void **state)
{
	(void)state;
	expect_error("VBUS=A0:unit=A", "\"VBUS=A0:unit=A\"", "VBUS is a voltage, expected V or mV");
	expect_error("IBUS=A1:unit=V", "unit \"V\"",
		     "IBUS is a current, expected A or mA (or shunt=OHMS for the voltage across a shunt)");
	expect_error("DP=A2:unit=kV", "unit \"kV\"", "expected V or mV");
	expect_error("DP=A2:unit=", "unit \"\"", "expected V or mV");
}

static void test_chanmap__unknown_option(void **state)
{
	(void)state;
	expect_error("VBUS=A0:offset=1", "unknown option \"offset\"", "scale=, unit= or shunt=");
	expect_error("VBUS=A0:scale", "option \"scale\"", "scale=NUMBER, unit=UNIT or shunt=OHMS");
	expect_error("VBUS=A0:", "\"VBUS=A0:\"", "option \"\"");
}

static void test_chanmap__too_long(void **state)
{
	char spec[400];

	(void)state;
	memset(spec, 'x', sizeof(spec));
	memcpy(spec, "VBUS=", 5);
	spec[69] = '\0'; /* a 64-character source name */
	expect_error(spec, "source name too long", "at most 63");
	spec[69] = 'x';
	spec[sizeof(spec) - 1] = '\0';
	expect_error(spec, "too long", "at most 255");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_chanmap__defaults),
		cmocka_unit_test(test_chanmap__spec),
		cmocka_unit_test(test_chanmap__units_and_case),
		cmocka_unit_test(test_chanmap__shunt),
		cmocka_unit_test(test_chanmap__bad_shunt),
		cmocka_unit_test(test_chanmap__parse_over),
		cmocka_unit_test(test_chanmap__unknown_channel),
		cmocka_unit_test(test_chanmap__duplicate),
		cmocka_unit_test(test_chanmap__empty_source),
		cmocka_unit_test(test_chanmap__bad_number),
		cmocka_unit_test(test_chanmap__bad_unit),
		cmocka_unit_test(test_chanmap__unknown_option),
		cmocka_unit_test(test_chanmap__too_long),
	};

	return cmocka_run_group_tests_name("chanmap", tests, NULL, NULL);
}
