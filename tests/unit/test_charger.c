/* Unit tests: sim/charger (V-I curve, cable, shutdown rule, loader).
 * Run from the repo root or set BN_SRCDIR. Optional argument: a cmocka
 * test-name filter (e.g. "test_charger__shutdown*"). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/harness.h"
#include "sim/charger.h"

static void load_ok(const char *rel, struct bn_charger *c)
{
	struct bn_err err = { 0 };
	char path[512];
	int rc;

	bn_test_path(rel, path, sizeof(path));
	rc = bn_charger_load(path, c, &err);
	if (rc != BN_OK)
		fail_msg("loading %s: %s", path, err.msg);
}

/* A hand-made curve: 5.0 V at 0 A, 4.8 V at 1 A, 4.0 V at 1.5 A, 0.2 ohm. */
static void small_curve(struct bn_charger *c)
{
	memset(c, 0, sizeof(*c));
	c->n_points = 3;
	c->i_a[0] = 0.0, c->v_v[0] = 5.0;
	c->i_a[1] = 1.0, c->v_v[1] = 4.8;
	c->i_a[2] = 1.5, c->v_v[2] = 4.0;
	c->cable_ohm = 0.2;
}

static void shutdown_charger(struct bn_charger *c)
{
	memset(c, 0, sizeof(*c));
	c->n_points = 2;
	c->i_a[0] = 0.0, c->v_v[0] = 5.0;
	c->i_a[1] = 2.0, c->v_v[1] = 5.0;
	c->has_shutdown = true;
	c->shutdown_above_a = 1.2;
	c->shutdown_after_us = 5 * BN_US_PER_MS;
	c->recover_us = BN_US_PER_S;
}

static void test_charger__v_out_at_points(void **state)
{
	struct bn_charger c;

	small_curve(&c);
	assert_near(bn_charger_v_out(&c, 0.0), 5.0, 1e-12);
	assert_near(bn_charger_v_out(&c, 1.0), 4.8, 1e-12);
	assert_near(bn_charger_v_out(&c, 1.5), 4.0, 1e-12);
}

static void test_charger__v_out_between_points(void **state)
{
	struct bn_charger c;

	small_curve(&c);
	assert_near(bn_charger_v_out(&c, 0.5), 4.9, 1e-12);
	assert_near(bn_charger_v_out(&c, 1.25), 4.4, 1e-12);
	assert_near(bn_charger_v_out(&c, 1.125), 4.6, 1e-12);
}

static void test_charger__v_out_before_first_point(void **state)
{
	struct bn_charger c;

	small_curve(&c);
	c.i_a[0] = 0.2; /* first point above 0 A: flat below it */
	assert_near(bn_charger_v_out(&c, 0.0), 5.0, 1e-12);
	assert_near(bn_charger_v_out(&c, 0.1), 5.0, 1e-12);
}

static void test_charger__collapse_past_last_point(void **state)
{
	struct bn_charger c;
	struct bn_charger_state s;

	small_curve(&c);
	bn_charger_state_init(&s);
	assert_near(bn_charger_v_out(&c, 1.5001), 0.0, 0.0);
	assert_near(bn_charger_v_out(&c, 3.0), 0.0, 0.0);
	assert_near(bn_charger_vbus(&c, &s, 1.5001), 0.0, 0.0);
	/* at the last point it still delivers */
	assert_near(bn_charger_vbus(&c, &s, 1.5), 4.0 - 1.5 * 0.2, 1e-12);
}

static void test_charger__cable_drop(void **state)
{
	struct bn_charger c;
	struct bn_charger_state s;

	small_curve(&c);
	bn_charger_state_init(&s);
	assert_near(bn_charger_vbus(&c, &s, 0.0), 5.0, 1e-12);
	assert_near(bn_charger_vbus(&c, &s, 0.5), 4.9 - 0.1, 1e-12);
	assert_near(bn_charger_vbus(&c, &s, 1.0), 4.8 - 0.2, 1e-12);
	assert_near(bn_charger_vbus(&c, NULL, 1.0), 4.6, 1e-12);
}

static void test_charger__vbus_zero_when_off(void **state)
{
	struct bn_charger c;
	struct bn_charger_state s;

	small_curve(&c);
	bn_charger_state_init(&s);
	s.off = true;
	s.off_until_us = BN_US_PER_S;
	assert_near(bn_charger_vbus(&c, &s, 0.0), 0.0, 0.0);
	assert_near(bn_charger_vbus(&c, &s, 0.5), 0.0, 0.0);
}

static void test_charger__vbus_never_negative(void **state)
{
	struct bn_charger c;
	struct bn_charger_state s;

	small_curve(&c);
	c.cable_ohm = 5.0; /* 1.5 A * 5 ohm > 4.0 V */
	bn_charger_state_init(&s);
	assert_near(bn_charger_vbus(&c, &s, 1.5), 0.0, 0.0);
}

static void test_charger__i_at_v_weak_dcp(void **state)
{
	struct bn_charger c;

	load_ok("profiles/chargers/dcp-weak.json", &c);
	/* Receptacle: 4.95-0.05 = 4.90 V at 0.5 A, 4.40-0.08 = 4.32 V at 0.8 A;
	 * 4.5 V lies 0.40 of 0.58 V down that segment:
	 * i = 0.5 + 0.3 * 0.40 / 0.58 = 0.70690 A. */
	assert_near(bn_charger_i_at_v(&c, 4.5), 0.5 + 0.3 * 0.40 / 0.58, 1e-9);
	assert_near(bn_charger_i_at_v(&c, 4.5), 0.706897, 1e-6);
	/* and the answer really is the knee */
	assert_near(bn_charger_vbus(&c, NULL, bn_charger_i_at_v(&c, 4.5)), 4.5, 1e-9);
}

static void test_charger__i_at_v_ends(void **state)
{
	struct bn_charger c;

	small_curve(&c);
	/* above the open-circuit voltage: nothing */
	assert_near(bn_charger_i_at_v(&c, 5.1), 0.0, 0.0);
	/* low threshold: the last point (3.7 V at 1.5 A) */
	assert_near(bn_charger_i_at_v(&c, 3.0), 1.5, 1e-12);
	assert_near(bn_charger_i_at_v(&c, 3.7), 1.5, 1e-12);
	/* first segment: 5.0 - 0.4 i = 4.8 -> 0.5 A (5.0-0.2i curve, 0.2 ohm) */
	assert_near(bn_charger_i_at_v(&c, 4.8), 0.5, 1e-12);
}

static void test_charger__shutdown_fires_after_time(void **state)
{
	struct bn_charger c;
	struct bn_charger_state s;
	bn_time_us t0 = 10 * BN_US_PER_MS;

	shutdown_charger(&c);
	bn_charger_state_init(&s);
	assert_false(bn_charger_update(&c, &s, 0, 1.0));
	assert_false(bn_charger_update(&c, &s, t0, 1.5)); /* over: timer starts */
	assert_false(s.off);
	assert_int_equal(bn_charger_next_event(&c, &s, 1.5), t0 + 5000);
	assert_false(bn_charger_update(&c, &s, t0 + 4999, 1.5));
	assert_false(s.off);
	assert_near(bn_charger_vbus(&c, &s, 1.5), 5.0, 1e-12);
	assert_true(bn_charger_update(&c, &s, t0 + 5000, 1.5));
	assert_true(s.off);
	assert_near(bn_charger_vbus(&c, &s, 0.0), 0.0, 0.0);
}

static void test_charger__shutdown_recovers(void **state)
{
	struct bn_charger c;
	struct bn_charger_state s;
	bn_time_us t_off = 5 * BN_US_PER_MS;

	shutdown_charger(&c);
	bn_charger_state_init(&s);
	bn_charger_update(&c, &s, 0, 1.5);
	assert_true(bn_charger_update(&c, &s, t_off, 1.5));
	/* stays off for "recover" whatever is drawn */
	assert_int_equal(bn_charger_next_event(&c, &s, 0.0), t_off + BN_US_PER_S);
	assert_false(bn_charger_update(&c, &s, t_off + 1, 0.0));
	assert_false(bn_charger_update(&c, &s, t_off + BN_US_PER_S - 1, 0.0));
	assert_true(s.off);
	assert_near(bn_charger_vbus(&c, &s, 0.0), 0.0, 0.0);
	/* then back on */
	assert_true(bn_charger_update(&c, &s, t_off + BN_US_PER_S, 0.0));
	assert_false(s.off);
	assert_near(bn_charger_vbus(&c, &s, 0.0), 5.0, 1e-12);
	assert_int_equal(bn_charger_next_event(&c, &s, 0.0), BN_TIME_NEVER);
}

static void test_charger__shutdown_late_update_uses_fire_time(void **state)
{
	struct bn_charger c;
	struct bn_charger_state s;

	shutdown_charger(&c);
	bn_charger_state_init(&s);
	bn_charger_update(&c, &s, 0, 1.5);
	/* the loop called late: the output went off at 5 ms all the same */
	assert_true(bn_charger_update(&c, &s, 8 * BN_US_PER_MS, 1.5));
	assert_int_equal(s.off_until_us, 5 * BN_US_PER_MS + BN_US_PER_S);
}

static void test_charger__shutdown_timer_resets_below_threshold(void **state)
{
	struct bn_charger c;
	struct bn_charger_state s;

	shutdown_charger(&c);
	bn_charger_state_init(&s);
	bn_charger_update(&c, &s, 0, 1.5);
	assert_false(bn_charger_update(&c, &s, 4000, 1.0)); /* back under: reset */
	assert_int_equal(s.over_since_us, BN_TIME_NEVER);
	assert_false(bn_charger_update(&c, &s, 4500, 1.5)); /* over again from 4.5 ms */
	assert_false(bn_charger_update(&c, &s, 9000, 1.5));
	assert_false(s.off);
	assert_int_equal(bn_charger_next_event(&c, &s, 1.5), 9500);
	assert_true(bn_charger_update(&c, &s, 9500, 1.5));
	/* exactly at the threshold is not "more than" */
	bn_charger_state_init(&s);
	bn_charger_update(&c, &s, 0, 1.2);
	assert_false(bn_charger_update(&c, &s, BN_US_PER_S, 1.2));
	assert_int_equal(bn_charger_next_event(&c, &s, 1.2), BN_TIME_NEVER);
}

static void test_charger__next_event_none(void **state)
{
	struct bn_charger c;
	struct bn_charger_state s;

	small_curve(&c); /* no shutdown rule */
	bn_charger_state_init(&s);
	assert_false(bn_charger_update(&c, &s, 0, 1.4));
	assert_int_equal(bn_charger_next_event(&c, &s, 1.4), BN_TIME_NEVER);
	shutdown_charger(&c);
	bn_charger_state_init(&s);
	bn_charger_update(&c, &s, 0, 0.5);
	assert_int_equal(bn_charger_next_event(&c, &s, 0.5), BN_TIME_NEVER);
}

static void test_charger__load_shipped(void **state)
{
	static const char *const files[] = {
		"profiles/chargers/ideal-5a.json",    "profiles/chargers/dcp-1a.json",
		"profiles/chargers/dcp-weak.json",    "profiles/chargers/dcp-shutdown-1a2.json",
		"profiles/chargers/host-500ma.json",  "profiles/chargers/cdp-1a5.json",
	};
	struct bn_charger c;

	for (size_t k = 0; k < sizeof(files) / sizeof(files[0]); k++) {
		load_ok(files[k], &c);
		assert_true(c.n_points >= 2);
		assert_near(c.cable_ohm, 0.1, 1e-12);
		assert_true(c.name[0] != '\0');
	}
}

static void test_charger__load_values(void **state)
{
	struct bn_charger c;
	struct bn_charger_state s;

	load_ok("profiles/chargers/dcp-1a.json", &c);
	assert_string_equal(c.name, "dcp-1a");
	assert_near(c.rated_a, 1.0, 1e-12);
	assert_false(c.has_shutdown);
	bn_charger_state_init(&s);
	/* VCHG (4.75..5.25 V) holds at the port at 0 and 1.0 A */
	assert_true(bn_charger_vbus(&c, &s, 0.0) <= 5.25);
	assert_true(bn_charger_vbus(&c, &s, 1.0) >= 4.75);
	assert_near(bn_charger_vbus(&c, &s, 1.35), 0.0, 0.0);

	load_ok("profiles/chargers/dcp-shutdown-1a2.json", &c);
	assert_true(c.has_shutdown);
	assert_near(c.shutdown_above_a, 1.2, 1e-12);
	assert_int_equal(c.shutdown_after_us, 5000);
	assert_int_equal(c.recover_us, 1000000);

	load_ok("profiles/chargers/host-500ma.json", &c);
	assert_true(bn_charger_i_at_v(&c, 4.75) > 0.5);
	assert_true(bn_charger_i_at_v(&c, 4.75) < 0.7);
}

/* The receptacle curve read the other way round: the current the charger
 * delivers at a node voltage is the current at which the curve less the
 * cable gives that voltage. */
static void test_charger__i_src_inverts_the_receptacle_curve(void **state)
{
	struct bn_charger c;

	small_curve(&c);
	for (int k = 0; k <= 150; k++) {
		double i = k * 0.01, v = bn_charger_vbus(&c, NULL, i);

		assert_near(bn_charger_i_src(&c, v), i, 1e-9);
	}
	/* above the open-circuit voltage it cannot sink: nothing */
	assert_near(bn_charger_i_src(&c, 5.2), 0.0, 0.0);
	/* below the last point's receptacle voltage (4.0 - 1.5 * 0.2): its limit */
	assert_near(bn_charger_i_src(&c, 3.0), 1.5, 0.0);
	assert_near(bn_charger_i_src(&c, 0.0), 1.5, 0.0);
}

static void test_charger__pieces(void **state)
{
	struct bn_charger c;
	struct bn_charger_piece p;

	small_curve(&c);
	/* 0..1 A: 5.0 -> 4.8 V, the receptacle 5.0 -> 4.6 V */
	bn_charger_piece_at(&c, 4.8, 1, &p);
	assert_near(p.v_lo, 4.6, 1e-12);
	assert_near(p.v_hi, 5.0, 1e-12);
	assert_near(p.s_ohm, 0.4, 1e-12);
	assert_near(p.r_out_ohm, 0.2, 1e-12);
	assert_near((p.g_v - 4.8) / p.s_ohm, 0.5, 1e-12);
	/* at a boundary the direction picks the side */
	bn_charger_piece_at(&c, 4.6, 1, &p);
	assert_near(p.v_lo, 4.6, 1e-12);
	bn_charger_piece_at(&c, 4.6, -1, &p);
	assert_near(p.v_hi, 4.6, 1e-12);
	assert_near(p.v_lo, 3.7, 1e-12);
	assert_near(p.r_out_ohm, 1.6, 1e-12);
	/* the current limit below the last point, nothing above the top */
	bn_charger_piece_at(&c, 1.0, -1, &p);
	assert_true(isinf(p.s_ohm));
	assert_true(isinf(p.r_out_ohm));
	assert_near(p.i_a, 1.5, 0.0);
	assert_near(p.v_hi, 3.7, 1e-12);
	bn_charger_piece_at(&c, 5.0, 1, &p);
	assert_true(isinf(p.s_ohm));
	assert_near(p.i_a, 0.0, 0.0);
	assert_near(p.v_lo, 5.0, 0.0);
}

/* A curve that starts above 0 A is flat before it; an ideal flat curve
 * behind no cable still charges through BN_CHARGER_MIN_S_OHM. */
static void test_charger__pieces_flat(void **state)
{
	struct bn_charger c;
	struct bn_charger_piece p;

	memset(&c, 0, sizeof(c));
	c.n_points = 2;
	c.i_a[0] = 0.5, c.v_v[0] = 5.0;
	c.i_a[1] = 1.0, c.v_v[1] = 4.5;
	c.cable_ohm = 0.1;
	bn_charger_piece_at(&c, 4.97, 1, &p);
	assert_near(p.s_ohm, 0.1, 1e-12);
	assert_near(p.r_out_ohm, 0.0, 1e-12);
	assert_near(bn_charger_i_src(&c, 4.97), 0.3, 1e-9);
	assert_near(bn_charger_i_src(&c, bn_charger_vbus(&c, NULL, 0.8)), 0.8, 1e-9);

	c.i_a[0] = 0.0, c.v_v[0] = 5.0;
	c.i_a[1] = 5.0, c.v_v[1] = 5.0;
	c.cable_ohm = 0.0;
	bn_charger_piece_at(&c, 4.999, 1, &p);
	assert_near(p.s_ohm, BN_CHARGER_MIN_S_OHM, 1e-15);
	assert_near(bn_charger_i_src(&c, 5.0 - 2.0 * BN_CHARGER_MIN_S_OHM), 2.0, 1e-9);
	assert_near(bn_charger_i_src(&c, 1.0), 5.0, 0.0);
}

static void test_charger__check_falling(void **state)
{
	struct bn_charger c;
	struct bn_err err = { 0 };

	small_curve(&c);
	assert_int_equal(bn_charger_check_falling(&c, &err), BN_OK);
	/* rises 50 mV over 1 A behind a 0.1 ohm cable: the receptacle falls */
	c.n_points = 2;
	c.i_a[1] = 1.0, c.v_v[1] = 5.05;
	c.cable_ohm = 0.1;
	assert_int_equal(bn_charger_check_falling(&c, &err), BN_OK);
	/* rises 300 mV: the receptacle rises */
	c.v_v[1] = 5.3;
	snprintf(c.name, sizeof(c.name), "riser");
	assert_int_equal(bn_charger_check_falling(&c, &err), BN_ERR_DATA);
	assert_msg_has(&err, "charger riser");
	assert_msg_has(&err, "[1 A, 5.3 V]");
}

static void test_charger__output_cap(void **state)
{
	struct bn_charger c;

	load_ok("tests/data/chargers/output-cap.json", &c);
	assert_near(c.output_cap_f, 120e-6, 1e-15);
	/* absent: none */
	load_ok("profiles/chargers/dcp-weak.json", &c);
	assert_near(c.output_cap_f, 0.0, 0.0);
	load_ok("profiles/chargers/dcp-weak-cap.json", &c);
	assert_near(c.output_cap_f, 120e-6, 1e-15);
}

struct bad_case {
	const char *file;
	const char *key; /* must appear in the message */
};

static void test_charger__load_rejects_broken(void **state)
{
	static const struct bad_case cases[] = {
		{ "tests/data/chargers/one-point.json", "\"curve\"" },
		{ "tests/data/chargers/not-ascending.json", "\"curve\": point 2" },
		{ "tests/data/chargers/negative.json", "\"curve\": point 1" },
		{ "tests/data/chargers/negative-cable.json", "\"cable\"" },
		{ "tests/data/chargers/unknown-key.json", "\"shutdwn\"" },
		{ "tests/data/chargers/shutdown-unknown-key.json", "shutdown: unknown key \"recovery\"" },
		{ "tests/data/chargers/cable-unit.json", "\"cable\"" },
		{ "tests/data/chargers/no-cable.json", "\"cable\"" },
		{ "tests/data/chargers/bad-json.json", "bad-json.json:3:3: error: invalid JSON" },
		{ "tests/data/chargers/output-cap-negative.json", "\"output_cap\": expected a capacitance" },
		{ "tests/data/chargers/output-cap-unit.json", "\"output_cap\"" },
		{ "tests/data/chargers/does-not-exist.json", "does-not-exist.json" },
	};
	struct bn_charger c;

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct bn_err err = { 0 };
		char path[512];
		int rc;

		bn_test_path(cases[k].file, path, sizeof(path));
		memset(&c, 0x5a, sizeof(c));
		c.n_points = -7;
		rc = bn_charger_load(path, &c, &err);
		if (rc == BN_OK)
			fail_msg("%s: loaded, expected a rejection", cases[k].file);
		assert_int_equal(err.code, rc);
		assert_msg_has(&err, path);
		assert_msg_has(&err, cases[k].key);
		assert_int_equal(c.n_points, -7); /* output untouched on failure */
	}
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_charger__v_out_at_points),
		cmocka_unit_test(test_charger__v_out_between_points),
		cmocka_unit_test(test_charger__v_out_before_first_point),
		cmocka_unit_test(test_charger__collapse_past_last_point),
		cmocka_unit_test(test_charger__cable_drop),
		cmocka_unit_test(test_charger__vbus_zero_when_off),
		cmocka_unit_test(test_charger__vbus_never_negative),
		cmocka_unit_test(test_charger__i_at_v_weak_dcp),
		cmocka_unit_test(test_charger__i_at_v_ends),
		cmocka_unit_test(test_charger__shutdown_fires_after_time),
		cmocka_unit_test(test_charger__shutdown_recovers),
		cmocka_unit_test(test_charger__shutdown_late_update_uses_fire_time),
		cmocka_unit_test(test_charger__shutdown_timer_resets_below_threshold),
		cmocka_unit_test(test_charger__next_event_none),
		cmocka_unit_test(test_charger__load_shipped),
		cmocka_unit_test(test_charger__load_values),
		cmocka_unit_test(test_charger__load_rejects_broken),
		cmocka_unit_test(test_charger__i_src_inverts_the_receptacle_curve),
		cmocka_unit_test(test_charger__pieces),
		cmocka_unit_test(test_charger__pieces_flat),
		cmocka_unit_test(test_charger__check_falling),
		cmocka_unit_test(test_charger__output_cap),
	};

	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests_name("charger", tests, NULL, NULL);
}
