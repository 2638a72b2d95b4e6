/* Unit tests: sim/charger (V-I curve, cable, shutdown rule, loader).
 * Run from the repo root or set BN_SRCDIR. Optional argument: a cmocka
 * test-name filter (e.g. "test_charger__shutdown*"). */
#define _XOPEN_SOURCE 700
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <dirent.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/file.h"
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

/* ---- profile v2: loader and writer ---- */

/* A scratch directory of its own under $TMPDIR. */
static void scratch(char *dir, size_t len)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(dir, len, "%s/bn-charger-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
	assert_non_null(mkdtemp(dir));
}

static int rm_one(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	return remove(p);
}

static void rm_scratch(const char *dir)
{
	nftw(dir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
}

static void put(const char *dir, const char *name, const char *text, char *path, size_t len)
{
	FILE *f;

	snprintf(path, len, "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* Curve points with their units, and values no USB charger gives
 * refused with the file, the point and what was likely meant. */
static void test_charger__curve_units(void **state)
{
	static const struct {
		const char *text, *want; /* want NULL: loads */
	} cases[] = {
		{ "{\"curve\": [[\"0mA\", \"5.05V\"], [\"800mA\", \"4.4V\"], [1.0, 2]], \"cable\": \"0.1ohm\"}", NULL },
		{ "{\"curve\": [[0, 5.05], [800, 4.4]], \"cable\": \"0.1ohm\"}",
		  "key \"curve\": point 1: current 800 A is more than USB carries (at most 10 A): "
		  "did you write mA? write 0.8 or \"800mA\"" },
		{ "{\"curve\": [[0, 5050], [0.8, 4.4]], \"cable\": \"0.1ohm\"}",
		  "point 0: voltage 5050 V is more than USB carries (at most 50 V): did you write mV?" },
		{ "{\"curve\": [[\"0A\", \"5V\"], [\"800A\", \"4.4V\"]], \"cable\": \"0.1ohm\"}",
		  "point 1: current 800 A is more than USB carries (at most 10 A): did you mean \"800mA\"?" },
		{ "{\"curve\": [[\"0A\", \"5V\"], [\"0.8V\", \"4.4V\"]], \"cable\": \"0.1ohm\"}",
		  "point 1: current: expected a current" },
		{ "{\"curve\": [[0, 5], [1, 4]], \"cable\": \"0.1ohm\", \"rated\": 1500}",
		  "key \"rated\": 1500 A is more than USB carries (at most 10 A): did you write mA? write 1.5" },
		{ "{\"curve\": [[0, 5], [1, 4]], \"cable\": \"0.1ohm\", \"shutdown\": {\"above\": 1200, "
		  "\"after\": \"5ms\", \"recover\": \"1s\"}}", "key \"above\": 1200 A" },
	};
	char dir[512], path[700];

	scratch(dir, sizeof(dir));
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct bn_charger c;
		struct bn_err err = { 0 };
		int rc;

		put(dir, "u.json", cases[k].text, path, sizeof(path));
		rc = bn_charger_load(path, &c, &err);
		if (!cases[k].want) {
			if (rc != BN_OK)
				fail_msg("case %zu: %s", k, err.msg);
			assert_int_equal(c.n_points, 3);
			assert_near(c.i_a[1], 0.8, 1e-12);
			assert_near(c.v_v[0], 5.05, 1e-12);
			continue;
		}
		if (rc == BN_OK)
			fail_msg("case %zu loaded, expected: %s", k, cases[k].want);
		assert_msg_has(&err, path);
		assert_msg_has(&err, cases[k].want);
	}
	rm_scratch(dir);
}

static const char v2_text[] =
	"{\n"
	"  \"schema\": \"bcbench-charger/2\",\n"
	"  \"name\": \"v2-all\",\n"
	"  \"description\": \"every v2 key\",\n"
	"  \"compliant\": false,\n"
	"  \"breaks\": [\"bc12.port.undershoot\", \"bc12.port.shutdown\"],\n"
	"  \"curve\": [[0, 5.1], [0.5, 5.03], [1.0, 4.95], [1.3, 0]],\n"
	"  \"cable\": \"0.15ohm\", \"rated\": \"1.5A\", \"output_cap\": \"120uF\",\n"
	"  \"shutdown\": {\"above\": \"1.2A\", \"after\": \"5ms\", \"recover\": \"1s\"},\n"
	"  \"transient\": {\"r\": \"0.8ohm\", \"tau\": \"15ms\"},\n"
	"  \"power_up\": {\"peak\": \"6.3V\", \"tau\": \"2ms\"},\n"
	"  \"schedule\": [{\"from\": \"30s\", \"curve\": [[0, 5.0], [0.8, 4.8], [1.0, 0]]},\n"
	"               {\"from\": \"90s\", \"curve\": [[0, 4.9], [2.0, 4.7]]}],\n"
	"  \"vbus_t\": {\"samples\": [[0, 5.0, 0.1], [0.001, 4.9, 0.5], [0.0105, 4.95, 0.3]],\n"
	"             \"r_out\": \"0.15ohm\", \"repeat\": true},\n"
	"  \"measured\": {\"by\": \"sweep\", \"points\": [{\"a\": 0.5, \"v\": 5.03, \"n\": 250}]}\n"
	"}\n";

static void load_at(const char *path, struct bn_charger *c)
{
	struct bn_err err = { 0 };

	if (bn_charger_load(path, c, &err) != BN_OK)
		fail_msg("loading %s: %s", path, err.msg);
}

/* load -> write -> load: the same struct, byte for byte (the path aside). */
static void round_trip(const char *src, const char *dst)
{
	static struct bn_charger a, b; /* a captured series makes them large */
	struct bn_err err = { 0 };
	cJSON *m = NULL, *m2 = NULL;

	load_at(src, &a);
	assert_int_equal(bn_charger_load_measured(src, &m, &err), BN_OK);
	assert_int_equal(bn_charger_write(dst, &a, m, &err), BN_OK);
	load_at(dst, &b);
	assert_int_equal(bn_charger_load_measured(dst, &m2, &err), BN_OK);
	assert_true(cJSON_Compare(m, m2, 1) || (!m && !m2));
	memcpy(b.path, a.path, sizeof(a.path));
	if (memcmp(&a, &b, sizeof(a)))
		fail_msg("%s -> %s: the struct read back differs", src, dst);
	cJSON_Delete(m);
	cJSON_Delete(m2);
}

static void test_charger__v2_keys(void **state)
{
	static struct bn_charger c;
	char dir[256], path[512];

	scratch(dir, sizeof(dir));
	put(dir, "v2.json", v2_text, path, sizeof(path));
	load_at(path, &c);
	assert_string_equal(c.name, "v2-all");
	assert_string_equal(c.description, "every v2 key");
	assert_int_equal(c.compliant, 0);
	assert_int_equal(c.n_breaks, 2);
	assert_string_equal(c.breaks[1], "bc12.port.shutdown");
	assert_true(c.has_measured);
	assert_true(c.has_transient);
	assert_near(c.transient_r_ohm, 0.8, 1e-15);
	assert_near(c.transient_tau_s, 0.015, 1e-15);
	assert_true(c.has_power_up);
	assert_near(c.power_up_peak_v, 6.3, 1e-15);
	assert_near(c.power_up_tau_s, 0.002, 1e-15);
	assert_int_equal(c.n_phases, 2);
	assert_int_equal(c.phases[0].from_us, 30 * BN_US_PER_S);
	assert_int_equal(c.phases[1].n_points, 2);
	assert_near(c.phases[1].v_v[1], 4.7, 0.0);
	assert_int_equal(c.vbus_t.n, 3);
	assert_true(c.vbus_t.has_i);
	assert_true(c.vbus_t.repeat);
	assert_near(c.vbus_t.t_s[2], 0.0105, 0.0);
	assert_near(c.vbus_t.i_a[1], 0.5, 0.0);
	assert_near(c.vbus_t.r_out_ohm, 0.15, 1e-15);
	assert_string_equal(c.vbus_t.file, "");

	/* a v1 profile with the v2 meta keys, nothing in time */
	load_ok("profiles/chargers/dcp-weak-cap.json", &c);
	assert_int_equal(c.compliant, 0);
	assert_int_equal(c.n_breaks, 1);
	assert_false(c.has_measured || c.has_transient || c.has_power_up);
	assert_int_equal(c.n_phases + c.vbus_t.n, 0);
	rm_scratch(dir);
}

static void test_charger__write_round_trip(void **state)
{
	char dir[256], src[512], dst[512], *text = NULL;
	size_t len;
	struct bn_err err = { 0 };

	scratch(dir, sizeof(dir));
	put(dir, "v2.json", v2_text, src, sizeof(src));
	snprintf(dst, sizeof(dst), "%s/out.json", dir);
	round_trip(src, dst);
	/* units as the v1 files write them */
	assert_int_equal(bn_file_read(dst, &text, &len, &err), BN_OK);
	assert_non_null(strstr(text, "\"schema\":\t\"bcbench-charger/2\""));
	assert_non_null(strstr(text, "\"0.15ohm\""));
	assert_non_null(strstr(text, "\"120uF\""));
	assert_non_null(strstr(text, "\"1.5A\""));
	assert_non_null(strstr(text, "\"5ms\""));
	assert_non_null(strstr(text, "\"1s\""));
	assert_non_null(strstr(text, "\"15ms\""));
	assert_non_null(strstr(text, "\"6.3V\""));
	assert_non_null(strstr(text, "\"30s\""));
	free(text);
	rm_scratch(dir);
}

static void test_charger__write_round_trip_shipped(void **state)
{
	static const char *const names[] = {
		"cdp-1a5", "dcp-1a", "dcp-shutdown-1a2", "dcp-soft-fold",
		"dcp-weak-cap", "dcp-weak", "host-500ma", "ideal-5a",
	};
	char dir[256], src[512], dst[512];

	scratch(dir, sizeof(dir));
	for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
		char rel[128];

		snprintf(rel, sizeof(rel), "profiles/chargers/%s.json", names[k]);
		bn_test_path(rel, src, sizeof(src));
		snprintf(dst, sizeof(dst), "%s/%s.json", dir, names[k]);
		round_trip(src, dst);
	}
	rm_scratch(dir);
}

/* A series from a CSV file beside the profile: read, and written back
 * beside the new profile under the same name. */
static void test_charger__vbus_t_csv(void **state)
{
	static struct bn_charger c;
	char dir[256], dir2[256], path[512], csv[512], dst[512];
	struct bn_err err = { 0 };
	char *text = NULL;
	size_t len;

	scratch(dir, sizeof(dir));
	put(dir, "cap.csv", "t_s,v_V,i_A\r\n0,5.0,0.1\n0.5, 4.8 ,0.9\n\n1.25,4.9,0.5\n", csv,
	    sizeof(csv));
	put(dir, "p.json",
	    "{\"curve\": [[0, 5], [1, 4.9]], \"cable\": \"0.1ohm\","
	    " \"vbus_t\": {\"file\": \"cap.csv\", \"r_out\": \"0.2ohm\"}}",
	    path, sizeof(path));
	load_at(path, &c);
	assert_int_equal(c.vbus_t.n, 3);
	assert_string_equal(c.vbus_t.file, "cap.csv");
	assert_near(c.vbus_t.v_v[1], 4.8, 0.0);
	assert_near(c.vbus_t.t_s[2], 1.25, 0.0);
	assert_false(c.vbus_t.repeat);
	scratch(dir2, sizeof(dir2));
	snprintf(dst, sizeof(dst), "%s/q.json", dir2);
	round_trip(path, dst);
	snprintf(csv, sizeof(csv), "%s/cap.csv", dir2);
	assert_int_equal(bn_file_read(csv, &text, &len, &err), BN_OK);
	assert_int_equal(strncmp(text, "t_s,v_V,i_A\n0,5,0.10000000000000001\n", 36), 0);
	free(text);
	rm_scratch(dir);
	rm_scratch(dir2);
}

struct bad_text {
	const char *json;
	const char *csv;  /* written as bad.csv beside, when not NULL */
	const char *want; /* in the message */
};

static void test_charger__v2_rejects_broken(void **state)
{
#define C "\"curve\": [[0, 5], [1, 4.9]], \"cable\": \"0.1ohm\", "
#define VT(x) "{" C "\"vbus_t\": {" x "}}"
	static const struct bad_text cases[] = {
		{ "{" C "\"schema\": \"bcbench-charger/3\"}", NULL, "schema \"bcbench-charger/3\"" },
		{ "{" C "\"compliant\": \"yes\"}", NULL, "\"compliant\"" },
		{ "{" C "\"compliant\": true, \"breaks\": [\"bc12.port.vchg\"]}", NULL,
		  "breaks none" },
		{ "{" C "\"breaks\": [\"bc12.cur.droop\"]}", NULL, "\"breaks\": item 0" },
		{ "{" C "\"breaks\": [\"bc12.port.vchg\", \"bc12.port.vchg\"]}", NULL, "given twice" },
		{ "{" C "\"measured\": [1]}", NULL, "\"measured\": expected an object" },
		{ "{" C "\"transient\": {\"r\": \"0.8ohm\"}}", NULL, "transient: missing key \"tau\"" },
		{ "{" C "\"transient\": {\"r\": \"0.8ohm\", \"tau\": \"0s\"}}", NULL,
		  "\"tau\": expected a time > 0 and up to" },
		{ "{" C "\"power_up\": {\"peak\": \"6A\", \"tau\": \"2ms\"}}", NULL, "\"peak\"" },
		{ "{" C "\"schedule\": [{\"from\": \"2s\", \"curve\": [[0, 5], [1, 4]]},"
		  " {\"from\": \"1s\", \"curve\": [[0, 5], [1, 4]]}]}",
		  NULL, "schedule[1]: key \"from\": 1 s is not after" },
		{ "{" C "\"schedule\": [{\"from\": \"2s\", \"curve\": [[0, 5]]}]}", NULL,
		  "schedule[0]: key \"curve\": needs at least 2 points" },
		{ VT("\"samples\": [[0, 5], [1, 5]]"), NULL, "missing key \"r_out\"" },
		{ VT("\"samples\": [[0, 5]], \"file\": \"bad.csv\", \"r_out\": \"0ohm\""), NULL,
		  "exactly one of" },
		{ VT("\"samples\": [[0, 5], [0, 4.9]], \"r_out\": \"0ohm\""), NULL,
		  "samples[1]: time 0 s not after" },
		{ VT("\"samples\": [[0, 5, 1], [1, 4.9]], \"r_out\": \"0ohm\""), NULL,
		  "samples[1]: expected [t_s, v_V, i_A]" },
		{ VT("\"file\": \"/etc/passwd\", \"r_out\": \"0ohm\""), NULL, "relative to the profile" },
		{ VT("\"file\": \"missing.csv\", \"r_out\": \"0ohm\""), NULL, "missing.csv" },
		{ VT("\"file\": \"bad.csv\", \"r_out\": \"0ohm\""), "t,v\n0,5\n", "bad.csv:1: expected the header" },
		{ VT("\"file\": \"bad.csv\", \"r_out\": \"0ohm\""), "t_s,v_V\n0,5\n1,4.9,0.2\n",
		  "bad.csv:3: expected 2 numbers" },
		{ VT("\"file\": \"bad.csv\", \"r_out\": \"0ohm\""), "t_s,v_V\n0,5\n0.5,x\n",
		  "bad.csv:3: expected 2 numbers" },
		{ VT("\"file\": \"bad.csv\", \"r_out\": \"0ohm\""), "t_s,v_V\n0,5\n", "needs at least 2 samples" },
		/* times past 1e6 s: llround of t * 1e6 would leave bn_time_us */
		{ VT("\"file\": \"bad.csv\", \"r_out\": \"0ohm\""), "t_s,v_V\n0,5\n1e300,4.9\n",
		  "bad.csv:3: time 1e+300 s: expected at most 1e+06 s" },
		{ VT("\"samples\": [[0, 5], [2e6, 4.9]], \"r_out\": \"0ohm\""), NULL,
		  "samples[1]: time 2000000 s: expected at most" },
		{ "{" C "\"schedule\": [{\"from\": \"1e300s\", \"curve\": [[0, 5], [1, 4]]}]}", NULL,
		  "schedule[0]: key \"from\": expected a time from 0 to 1e+06 s" },
		/* a time constant past 1e6 s: the world's steps of tau would leave bn_time_us */
		{ "{" C "\"transient\": {\"r\": \"0.8ohm\", \"tau\": \"1e14s\"}}", NULL,
		  "\"tau\": expected a time > 0 and up to 1e+06 s" },
		{ "{" C "\"power_up\": {\"peak\": \"6V\", \"tau\": \"2e6s\"}}", NULL,
		  "\"tau\": expected a time > 0 and up to 1e+06 s" },
	};
#undef VT
#undef C
	static struct bn_charger c;
	char dir[256], path[512], csv[512];

	scratch(dir, sizeof(dir));
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct bn_err err = { 0 };
		int rc;

		snprintf(csv, sizeof(csv), "%s/bad.csv", dir);
		remove(csv);
		if (cases[k].csv)
			put(dir, "bad.csv", cases[k].csv, csv, sizeof(csv));
		put(dir, "bad.json", cases[k].json, path, sizeof(path));
		memset(&c, 0x5a, sizeof(c));
		c.n_points = -7;
		rc = bn_charger_load(path, &c, &err);
		if (rc == BN_OK)
			fail_msg("case %zu: loaded, expected a rejection", k);
		assert_int_equal(err.code, rc);
		if (!strstr(err.msg, cases[k].want))
			fail_msg("case %zu: message \"%s\" lacks \"%s\"", k, err.msg, cases[k].want);
		assert_int_equal(c.n_points, -7);
	}
	rm_scratch(dir);
}

/* ---- time behaviour, at the charger ---- */

static void test_charger__time_offset(void **state)
{
	struct bn_charger c;
	struct bn_charger_state s;

	small_curve(&c);
	assert_false(bn_charger_timed(&c));
	c.has_transient = true;
	c.transient_r_ohm = 0.8;
	c.transient_tau_s = 0.015;
	c.has_power_up = true;
	c.power_up_peak_v = 6.3;
	c.power_up_tau_s = 0.002;
	assert_true(bn_charger_timed(&c));
	bn_charger_state_init(&s);
	/* off: the plain curve, nothing to replan */
	assert_near(bn_charger_vbus_at(&c, &s, 5000, 0.5), bn_charger_vbus(&c, NULL, 0.5), 0.0);
	assert_int_equal(bn_charger_next_change(&c, &s, 5000, true), BN_TIME_NEVER);
	bn_charger_output(&c, &s, true, 1000);
	assert_near(bn_charger_vbus_at(&c, &s, 1000, 0.0), 6.3, 1e-12);
	assert_near(bn_charger_vbus_at(&c, &s, 3000, 0.0), 5.0 + 1.3 * exp(-1.0), 1e-12);
	/* turning on again changes nothing; a step of the draw at 3 ms:
	 * what is left of the overshoot, less r dI, relaxing with 15 ms */
	bn_charger_output(&c, &s, true, 2000);
	bn_charger_draw(&c, &s, 3000, 0.5);
	assert_near(s.offset_v, 1.3 * exp(-1.0) - 0.4, 1e-12);
	assert_near(bn_charger_offset_v(&c, &s, 18000, 0.5), (1.3 * exp(-1.0) - 0.4) * exp(-1.0),
		    1e-12);
	assert_near(bn_charger_vbus_at(&c, &s, 18000, 0.5),
		    bn_charger_vbus(&c, NULL, 0.5) + (1.3 * exp(-1.0) - 0.4) * exp(-1.0), 1e-12);
	/* held by a caller: a tenth of tau (1.5 ms) at a time */
	assert_int_equal(bn_charger_next_change(&c, &s, 18000, true), 19500);
	assert_int_equal(bn_charger_next_change(&c, &s, 18000, false), BN_TIME_NEVER);
	/* settled within a microvolt: exactly the curve */
	assert_near(bn_charger_offset_v(&c, &s, 3000 + 300000, 0.5), 0.0, 0.0);
	assert_int_equal(bn_charger_next_change(&c, &s, 303000, true), BN_TIME_NEVER);
	bn_charger_output(&c, &s, false, 400000);
	assert_int_equal(s.on_since_us, BN_TIME_NEVER);
	assert_near(bn_charger_offset_v(&c, &s, 400000, 1.0), 0.0, 0.0);
}

static void test_charger__time_schedule_and_series(void **state)
{
	static struct bn_charger c, eff;
	struct bn_charger_state s;

	small_curve(&c);
	c.n_phases = 1;
	c.phases[0] = (struct bn_charger_phase){
		.from_us = 30000, .n_points = 2, .i_a = { 0.0, 1.0 }, .v_v = { 4.9, 4.5 },
	};
	/* samples off the microsecond grid: 10.4 us and 20.6 us replan at 10
	 * and 21, and a segment starts where its replan is */
	c.vbus_t.n = 3;
	c.vbus_t.t_s[0] = 0.0, c.vbus_t.v_v[0] = 5.0, c.vbus_t.i_a[0] = 0.0;
	c.vbus_t.t_s[1] = 10.4e-6, c.vbus_t.v_v[1] = 4.0, c.vbus_t.i_a[1] = 1.0;
	c.vbus_t.t_s[2] = 20.6e-6, c.vbus_t.v_v[2] = 4.5, c.vbus_t.i_a[2] = 0.5;
	c.vbus_t.has_i = true;
	c.vbus_t.r_out_ohm = 0.5;
	bn_charger_state_init(&s);
	bn_charger_output(&c, &s, true, 1000);
	assert_int_equal(bn_charger_next_change(&c, &s, 1000, false), 1010);
	assert_int_equal(bn_charger_next_change(&c, &s, 1010, false), 1021);
	assert_int_equal(bn_charger_next_change(&c, &s, 1021, false), 31000);
	assert_int_equal(bn_charger_next_change(&c, &s, 31000, false), BN_TIME_NEVER);
	/* at 5 us: v 4.519, i 0.481; a draw of 1 A sees 0.5 ohm x 0.519 less */
	assert_near(bn_charger_vbus_at(&c, &s, 1005, 1.0),
		    5.0 - 5.0 / 10.4 - 0.5 * (1.0 - 5.0 / 10.4), 1e-9);
	assert_near(bn_charger_vbus_slope(&c, &s, 1005, 1.0), -1.0 / 10.4e-6 + 0.5 / 10.4e-6, 1e-3);
	/* the series' segment 1 from its replan on */
	assert_near(bn_charger_vbus_slope(&c, &s, 1010, 1.0),
		    (0.5 - 0.5 * 0.5) / 10.2e-6, 1e-3);
	bn_charger_curve_now(&c, &s, 1005, &eff);
	assert_int_equal(eff.n_points, 2);
	assert_near(eff.v_v[0] - 1.0 * c.cable_ohm - (eff.v_v[0] - eff.v_v[1]) / eff.i_a[1] * 1.0,
		    bn_charger_vbus_at(&c, &s, 1005, 1.0), 1e-9);
	/* after the series: the static curve, then the schedule's */
	assert_near(bn_charger_vbus_at(&c, &s, 1021, 0.5), bn_charger_vbus(&c, NULL, 0.5), 1e-12);
	assert_near(bn_charger_vbus_slope(&c, &s, 1021, 0.5), 0.0, 0.0);
	assert_near(bn_charger_vbus_at(&c, &s, 31000, 0.5), 4.7 - 0.1, 1e-12);
	assert_near(bn_charger_vbus_at(&c, &s, 31000, 1.1), 0.0, 0.0); /* past its last point */
	bn_charger_curve_now(&c, &s, 31000, &eff);
	assert_near(eff.v_v[1], 4.5, 0.0);
	/* repeated: the series again from its first sample, 21 us a period */
	c.vbus_t.repeat = true;
	assert_int_equal(bn_charger_next_change(&c, &s, 1021, false), 1031);
	assert_near(bn_charger_vbus_at(&c, &s, 1021 + 5, 1.0),
		    bn_charger_vbus_at(&c, &s, 1005, 1.0), 1e-9);
}

/* Every shipped charger says whether it is meant to pass the port rules,
 * and a faulty one names what it breaks. */
static void test_charger__shipped_state_compliance(void **state)
{
	char dir[512], path[1024];
	struct dirent *e;
	DIR *d;
	int n = 0;

	bn_test_path("profiles/chargers", dir, sizeof(dir));
	d = opendir(dir);
	assert_non_null(d);
	while ((e = readdir(d))) {
		static struct bn_charger c;
		size_t len = strlen(e->d_name);

		if (len < 6 || strcmp(e->d_name + len - 5, ".json"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		load_at(path, &c);
		if (c.compliant < 0)
			fail_msg("%s: does not state \"compliant\"", path);
		if (c.compliant == 0 && c.n_breaks == 0)
			fail_msg("%s: not compliant but \"breaks\" names no port rule", path);
		if (!strcmp(c.name, "dcp-shutdown-1a2"))
			assert_string_equal(c.breaks[0], "bc12.port.shutdown");
		n++;
	}
	closedir(d);
	assert_int_equal(n, 17);
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
		cmocka_unit_test(test_charger__curve_units),
		cmocka_unit_test(test_charger__i_src_inverts_the_receptacle_curve),
		cmocka_unit_test(test_charger__pieces),
		cmocka_unit_test(test_charger__pieces_flat),
		cmocka_unit_test(test_charger__check_falling),
		cmocka_unit_test(test_charger__output_cap),
		cmocka_unit_test(test_charger__v2_keys),
		cmocka_unit_test(test_charger__write_round_trip),
		cmocka_unit_test(test_charger__write_round_trip_shipped),
		cmocka_unit_test(test_charger__vbus_t_csv),
		cmocka_unit_test(test_charger__v2_rejects_broken),
		cmocka_unit_test(test_charger__shipped_state_compliance),
		cmocka_unit_test(test_charger__time_offset),
		cmocka_unit_test(test_charger__time_schedule_and_series),
	};

	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests_name("charger", tests, NULL, NULL);
}
