/* core/conditions: the shipped profiles load, with what they say; bad
 * files are refused naming the file, the key and what was expected. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "core/conditions.h"
#include "lib/harness.h"

static void test_conditions__shipped_profiles(void **state)
{
	struct bn_conditions c;
	struct bn_err err = { 0 };
	char path[512];

	(void)state;
	bn_test_path("profiles/conditions/realistic.json", path, sizeof(path));
	assert_int_equal(bn_conditions_load(path, &c, &err), BN_OK);
	assert_string_equal(c.name, "realistic");
	assert_int_equal(c.meas_set, 0x1f);
	assert_int_equal(c.meas[0].bits, 12);      /* VBUS 12-bit */
	assert_near(c.meas[1].noise_rms, 2e-3, 1e-12); /* IBUS 2 mA rms */
	assert_near(c.meas[2].noise_rms, 3e-3, 1e-12); /* D+ 3 mV rms */
	assert_near(c.meas[0].noise_rms, 10e-3, 1e-12); /* VBUS 10 mV rms */
	assert_int_equal(c.data_delay_us, -1);
	assert_int_equal(c.bounce_n, -1);
	bn_test_path("profiles/conditions/slow-plug.json", path, sizeof(path));
	assert_int_equal(bn_conditions_load(path, &c, &err), BN_OK);
	assert_int_equal(c.data_delay_us, 1500000);
	assert_int_equal(c.bounce_n, 5);
	assert_int_equal(c.bounce_us, 2000);
	bn_test_path("profiles/conditions/late-capture.json", path, sizeof(path));
	assert_int_equal(bn_conditions_load(path, &c, &err), BN_OK);
	assert_int_equal(c.capture_start_us, 300000);
	assert_int_equal(c.meas_set, 0x1f);
	bn_test_path("profiles/conditions/ideal.json", path, sizeof(path));
	assert_int_equal(bn_conditions_load(path, &c, &err), BN_OK);
	assert_int_equal(c.meas_set, 0);
	/* no physics unless a file says so */
	assert_false(c.has_gnd_offset);
	assert_int_equal(c.vbus_bounce_n, -1);
	assert_true(c.line_cap_f < 0);
}

/* The ground-offset pair of the compliance plan (6.14, 6.15: VGND_OFFSET
 * either way) on realistic measurement, and a bouncing VBUS pin. */
static void test_conditions__physics_profiles(void **state)
{
	struct bn_conditions c, real;
	struct bn_err err = { 0 };
	char path[512];

	(void)state;
	bn_test_path("profiles/conditions/realistic.json", path, sizeof(path));
	assert_int_equal(bn_conditions_load(path, &real, &err), BN_OK);
	bn_test_path("profiles/conditions/gnd-plus.json", path, sizeof(path));
	assert_int_equal(bn_conditions_load(path, &c, &err), BN_OK);
	assert_true(c.has_gnd_offset);
	assert_near(c.gnd_offset_v, 0.375, 1e-12);
	assert_int_equal(c.meas_set, 0x1f);
	assert_memory_equal(c.meas, real.meas, sizeof(c.meas));
	assert_int_equal(c.data_delay_us, -1);
	bn_test_path("profiles/conditions/gnd-minus.json", path, sizeof(path));
	assert_int_equal(bn_conditions_load(path, &c, &err), BN_OK);
	assert_near(c.gnd_offset_v, -0.375, 1e-12);
	assert_memory_equal(c.meas, real.meas, sizeof(c.meas));
	bn_test_path("profiles/conditions/vbus-bounce.json", path, sizeof(path));
	assert_int_equal(bn_conditions_load(path, &c, &err), BN_OK);
	assert_int_equal(c.vbus_bounce_n, 3);
	assert_int_equal(c.vbus_bounce_us, 1000);
	assert_int_equal(c.bounce_n, 3);
	assert_false(c.has_gnd_offset);
}

static void test_conditions__bad_files(void **state)
{
	static const struct {
		const char *file, *msg;
	} bad[] = {
		{ "bad-unit.json", "measure: key \"vbus\": noise" },
		{ "bad-channel.json", "unknown key \"vbs\"" },
		{ "bad-schema.json", "expected \"bcbench-conditions/1\"" },
		{ "bad-delay.json", "data_delay" },
		{ "bad-bounce.json", "\"each\"" },
		{ "bad-seed.json", "whole number" },
		{ "bad-key.json", "unknown key \"noise\"" },
		{ "bad-json.json", "bad-json.json:" },
		{ "bad-capture-start.json", "capture_start" },
		{ "bad-gnd-offset.json", "\"gnd_offset\": expected a voltage from -1 V to 1 V" },
		{ "bad-gnd-unit.json", "\"gnd_offset\"" },
		{ "bad-vbus-bounce.json", "vbus_bounce: expected count" },
		{ "bad-line-cap.json", "\"line_cap\"" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct bn_conditions c;
		struct bn_err err = { 0 };
		char path[512], rel[128];

		snprintf(rel, sizeof(rel), "tests/data/conditions/%s", bad[i].file);
		bn_test_path(rel, path, sizeof(path));
		if (bn_conditions_load(path, &c, &err) >= 0)
			fail_msg("%s was accepted", bad[i].file);
		if (!strstr(err.msg, bad[i].file) || !strstr(err.msg, bad[i].msg))
			fail_msg("%s: \"%s\" lacks \"%s\"", bad[i].file, err.msg, bad[i].msg);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_conditions__shipped_profiles),
		cmocka_unit_test(test_conditions__physics_profiles),
		cmocka_unit_test(test_conditions__bad_files),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
