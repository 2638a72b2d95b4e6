/* Unit tests: sim/battery (OCV and inverse, thresholds, integration,
 * time to a voltage, parser). Run from the repo root or set BN_SRCDIR.
 * Optional argument: a cmocka test-name filter. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/harness.h"
#include "core/json.h"
#include "sim/battery.h"

/* 1 Ah; 3.0 V empty, 3.7 V half, 4.2 V full; dead 3.1, weak 3.4; 1 A max. */
static void simple_profile(struct bn_battery_profile *p)
{
	memset(p, 0, sizeof(*p));
	p->capacity_ah = 1.0;
	p->n_points = 3;
	p->soc[0] = 0.0, p->ocv_v[0] = 3.0;
	p->soc[1] = 0.5, p->ocv_v[1] = 3.7;
	p->soc[2] = 1.0, p->ocv_v[2] = 4.2;
	p->dead_v = 3.1;
	p->weak_v = 3.4;
	p->max_charge_a = 1.0;
	p->efficiency = 0.9;
}

static void test_battery__voltage_from_soc(void **state)
{
	struct bn_battery_profile p;
	struct bn_battery b;

	simple_profile(&p);
	bn_battery_init(&b, &p, 0.0);
	assert_near(bn_battery_voltage(&b), 3.0, 1e-12);
	bn_battery_init(&b, &p, 0.25);
	assert_near(bn_battery_voltage(&b), 3.35, 1e-12);
	bn_battery_init(&b, &p, 0.5);
	assert_near(bn_battery_voltage(&b), 3.7, 1e-12);
	bn_battery_init(&b, &p, 0.75);
	assert_near(bn_battery_voltage(&b), 3.95, 1e-12);
	bn_battery_init(&b, &p, 1.0);
	assert_near(bn_battery_voltage(&b), 4.2, 1e-12);
	bn_battery_init(&b, &p, 1.7); /* clamped */
	assert_near(b.soc, 1.0, 0.0);
}

static void test_battery__soc_from_voltage(void **state)
{
	struct bn_battery_profile p;
	struct bn_battery b;

	simple_profile(&p);
	bn_battery_init(&b, &p, 0.5);
	bn_battery_set_voltage(&b, 3.35);
	assert_near(b.soc, 0.25, 1e-12);
	bn_battery_set_voltage(&b, 4.0);
	assert_near(b.soc, 0.8, 1e-12);
	bn_battery_set_voltage(&b, 3.7);
	assert_near(b.soc, 0.5, 1e-12);
	/* clamped to the curve's ends */
	bn_battery_set_voltage(&b, 2.0);
	assert_near(b.soc, 0.0, 0.0);
	bn_battery_set_voltage(&b, 5.0);
	assert_near(b.soc, 1.0, 0.0);
	/* round trip */
	for (double v = 3.0; v <= 4.2; v += 0.05) {
		bn_battery_set_voltage(&b, v);
		assert_near(bn_battery_voltage(&b), v, 1e-12);
	}
}

static void test_battery__dead_weak_full(void **state)
{
	struct bn_battery_profile p;
	struct bn_battery b;

	simple_profile(&p);
	bn_battery_init(&b, &p, 0.5);
	bn_battery_set_voltage(&b, 3.05);
	assert_true(bn_battery_is_dead(&b));
	assert_true(bn_battery_is_weak(&b));
	bn_battery_set_voltage(&b, 3.2);
	assert_false(bn_battery_is_dead(&b));
	assert_true(bn_battery_is_weak(&b));
	bn_battery_set_voltage(&b, 3.5);
	assert_false(bn_battery_is_dead(&b));
	assert_false(bn_battery_is_weak(&b));
	assert_false(bn_battery_is_full(&b));
	bn_battery_init(&b, &p, 0.999);
	assert_false(bn_battery_is_full(&b));
	bn_battery_init(&b, &p, 1.0);
	assert_true(bn_battery_is_full(&b));
}

static void test_battery__integrate_charges(void **state)
{
	struct bn_battery_profile p;
	struct bn_battery b;
	double i;

	simple_profile(&p);
	bn_battery_init(&b, &p, 0.5);
	/* (2.5 W * 0.9 - 0.5 W) / 3.7 V = 0.472973 A into the cell */
	i = bn_battery_integrate(&b, 2.5, 0.5, 1.0);
	assert_near(i, 1.75 / 3.7, 1e-9);
	assert_near(b.soc, 0.5 + 1.75 / 3.7 / 3600.0, 1e-12);
	assert_true(bn_battery_voltage(&b) > 3.7);
}

static void test_battery__integrate_caps_at_max_charge(void **state)
{
	struct bn_battery_profile p;
	struct bn_battery b;
	double i;

	simple_profile(&p);
	bn_battery_init(&b, &p, 0.5);
	/* 10 W in would be 2.3 A: capped at 1 A */
	i = bn_battery_integrate(&b, 10.0, 0.5, 36.0);
	assert_near(i, 1.0, 1e-9);
	assert_near(b.soc, 0.51, 1e-9);
}

static void test_battery__integrate_discharges_when_load_exceeds_input(void **state)
{
	struct bn_battery_profile p;
	struct bn_battery b;
	double i;

	simple_profile(&p);
	bn_battery_init(&b, &p, 0.5);
	/* 0.5 W * 0.9 = 0.45 W in, 1.0 W out: -0.55 W / 3.7 V */
	i = bn_battery_integrate(&b, 0.5, 1.0, 1.0);
	assert_near(i, -0.55 / 3.7, 1e-9);
	assert_true(b.soc < 0.5);
	assert_true(bn_battery_voltage(&b) < 3.7);
	/* no input at all */
	i = bn_battery_integrate(&b, 0.0, 0.37, 1.0);
	assert_true(i < 0.0);
}

static void test_battery__integrate_stops_full_and_empty(void **state)
{
	struct bn_battery_profile p;
	struct bn_battery b;
	double i;

	simple_profile(&p);
	bn_battery_init(&b, &p, 1.0);
	i = bn_battery_integrate(&b, 5.0, 0.0, 60.0);
	assert_near(i, 0.0, 0.0);
	/* dt 0 gives the current now: a full cell takes none */
	assert_near(bn_battery_integrate(&b, 5.0, 0.0, 0.0), 0.0, 0.0);
	bn_battery_init(&b, &p, 0.5);
	assert_near(bn_battery_integrate(&b, 2.5, 0.5, 0.0), 1.75 / 3.7, 1e-12);
	bn_battery_init(&b, &p, 1.0);
	assert_near(b.soc, 1.0, 0.0);
	/* charging through full: stops at 1 */
	bn_battery_init(&b, &p, 0.999);
	bn_battery_integrate(&b, 10.0, 0.0, 3600.0);
	assert_near(b.soc, 1.0, 0.0);
	assert_true(bn_battery_is_full(&b));
	/* discharging through empty: stops at 0 */
	bn_battery_init(&b, &p, 0.001);
	bn_battery_integrate(&b, 0.0, 3.0, 3600.0);
	assert_near(b.soc, 0.0, 0.0);
}

static void test_battery__integrate_long_step_matches_short_steps(void **state)
{
	struct bn_battery_profile p;
	struct bn_battery a, b;
	double i_avg;

	simple_profile(&p);
	bn_battery_init(&a, &p, 0.1);
	bn_battery_init(&b, &p, 0.1);
	i_avg = bn_battery_integrate(&a, 2.0, 0.3, 1800.0);
	for (int k = 0; k < 18000; k++)
		bn_battery_integrate(&b, 2.0, 0.3, 0.1);
	assert_near(a.soc, b.soc, 1e-5);
	/* the returned average current is the charge moved */
	assert_near(i_avg * 1800.0 / 3600.0, a.soc - 0.1, 1e-12);
}

static void test_battery__time_to_voltage(void **state)
{
	struct bn_battery_profile p;
	struct bn_battery b;

	simple_profile(&p);
	bn_battery_init(&b, &p, 0.25); /* 3.35 V */
	/* 0.25 of 1 Ah at 0.5 A: 1800 s */
	assert_near(bn_battery_time_to_voltage(&b, 0.5, 3.7), 1800.0, 1e-6);
	/* across a curve point: 3.35 -> 3.95 V is soc 0.25 -> 0.75 */
	assert_near(bn_battery_time_to_voltage(&b, 1.0, 3.95), 1800.0, 1e-6);
	bn_battery_init(&b, &p, 0.5);
	assert_near(bn_battery_time_to_voltage(&b, -0.5, 3.35), 1800.0, 1e-6);
	assert_near(bn_battery_time_to_voltage(&b, 0.5, 3.7), 0.0, 0.0);
	/* never: wrong direction, no current, off the curve */
	assert_true(bn_battery_time_to_voltage(&b, 0.5, 3.35) < 0.0);
	assert_true(bn_battery_time_to_voltage(&b, -0.5, 3.9) < 0.0);
	assert_true(bn_battery_time_to_voltage(&b, 0.0, 3.9) < 0.0);
	assert_true(bn_battery_time_to_voltage(&b, 0.5, 4.5) < 0.0);
	assert_true(bn_battery_time_to_voltage(&b, -0.5, 2.9) < 0.0);
	/* scales with the capacity */
	p.capacity_ah = 0.1;
	bn_battery_init(&b, &p, 0.25);
	assert_near(bn_battery_time_to_voltage(&b, 0.5, 3.7), 180.0, 1e-6);
}

static void test_battery__time_to_voltage_agrees_with_integrate(void **state)
{
	struct bn_battery_profile p;
	struct bn_battery b;
	double t;

	simple_profile(&p);
	bn_battery_init(&b, &p, 0.0);
	bn_battery_set_voltage(&b, 3.05);
	/* at the 1 A cap the current is constant */
	t = bn_battery_time_to_voltage(&b, 1.0, p.weak_v);
	assert_true(t > 0.0);
	bn_battery_integrate(&b, 20.0, 0.0, t * 0.999);
	assert_true(bn_battery_is_weak(&b));
	bn_battery_integrate(&b, 20.0, 0.0, t * 0.002);
	assert_false(bn_battery_is_weak(&b));
}

static cJSON *parse_text(const char *text)
{
	cJSON *j = cJSON_Parse(text);

	if (!j)
		fail_msg("test JSON does not parse: %s", text);
	return j;
}

static void test_battery__parse_phone(void **state)
{
	struct bn_battery_profile p;
	struct bn_err err = { 0 };
	char path[512];
	cJSON *root = NULL;
	int rc;

	bn_test_path("profiles/duts/phone.json", path, sizeof(path));
	rc = bn_json_load(path, &root, &err);
	if (rc)
		fail_msg("%s", err.msg);
	rc = bn_battery_parse(cJSON_GetObjectItemCaseSensitive(root, "battery"), &p, "phone: battery", &err);
	cJSON_Delete(root);
	if (rc)
		fail_msg("%s", err.msg);
	assert_near(p.capacity_ah, 1.0, 1e-12);
	assert_near(p.dead_v, 3.1, 1e-12);
	assert_near(p.weak_v, 3.4, 1e-12);
	assert_near(p.max_charge_a, 1.5, 1e-12);
	assert_near(p.efficiency, 0.9, 1e-12);
	assert_true(p.n_points >= 5);
	assert_near(p.soc[0], 0.0, 0.0);
	assert_near(p.soc[p.n_points - 1], 1.0, 0.0);
}

static void test_battery__parse_default_efficiency(void **state)
{
	struct bn_battery_profile p;
	struct bn_err err = { 0 };
	cJSON *j = parse_text("{\"capacity\": \"500mAh\", \"ocv\": [[0, 3.0], [1, 4.2]],"
			      " \"dead\": \"3.1V\", \"weak\": \"3.4V\", \"max_charge\": 0.5}");
	int rc = bn_battery_parse(j, &p, "inline", &err);

	cJSON_Delete(j);
	if (rc)
		fail_msg("%s", err.msg);
	assert_near(p.capacity_ah, 0.5, 1e-12);
	assert_near(p.max_charge_a, 0.5, 1e-12);
	assert_true(p.efficiency > 0.0 && p.efficiency <= 1.0);
}

static void test_battery__parse_rejects(void **state)
{
	static const struct {
		const char *json;
		const char *msg;
	} cases[] = {
		{ "{\"capacity\": \"1Ah\", \"ocv\": [[0, 3.0], [1, 4.2]], \"dead\": \"3.1V\","
		  " \"weak\": \"3.4V\", \"max_charge\": \"1A\", \"colour\": 1}",
		  "bat: unknown key \"colour\"" },
		{ "{\"ocv\": [[0, 3.0], [1, 4.2]], \"dead\": \"3.1V\", \"weak\": \"3.4V\","
		  " \"max_charge\": \"1A\"}",
		  "bat: missing key \"capacity\"" },
		{ "{\"capacity\": \"1000mA\", \"ocv\": [[0, 3.0], [1, 4.2]], \"dead\": \"3.1V\","
		  " \"weak\": \"3.4V\", \"max_charge\": \"1A\"}",
		  "bat: key \"capacity\"" },
		{ "{\"capacity\": \"1Ah\", \"ocv\": [[0, 3.0], [0.6, 3.9], [0.5, 4.0], [1, 4.2]],"
		  " \"dead\": \"3.1V\", \"weak\": \"3.4V\", \"max_charge\": \"1A\"}",
		  "bat: key \"ocv\": point 2: soc not ascending" },
		{ "{\"capacity\": \"1Ah\", \"ocv\": [[0, 3.0], [0.5, 3.0], [1, 4.2]],"
		  " \"dead\": \"3.1V\", \"weak\": \"3.4V\", \"max_charge\": \"1A\"}",
		  "bat: key \"ocv\": point 1: voltage not ascending" },
		{ "{\"capacity\": \"1Ah\", \"ocv\": [[0, 3.0]], \"dead\": \"3.1V\","
		  " \"weak\": \"3.4V\", \"max_charge\": \"1A\"}",
		  "bat: key \"ocv\": needs at least 2 points" },
		{ "{\"capacity\": \"1Ah\", \"ocv\": [[0, 3.0], [1, 4.2]], \"dead\": \"3.1V\","
		  " \"weak\": \"3.4V\", \"max_charge\": 1500}",
		  "bat: key \"max_charge\": 1500 A is more than USB carries (at most 10 A): did you write mA? write 1.5" },
		{ "{\"capacity\": \"1Ah\", \"ocv\": [[0.1, 3.0], [1, 4.2]], \"dead\": \"3.1V\","
		  " \"weak\": \"3.4V\", \"max_charge\": \"1A\"}",
		  "bat: key \"ocv\": the curve must run from soc 0 to soc 1" },
		{ "{\"capacity\": \"1Ah\", \"ocv\": [[0, 3.0], [1, 4.2]], \"dead\": \"3.5V\","
		  " \"weak\": \"3.4V\", \"max_charge\": \"1A\"}",
		  "bat: key \"weak\"" },
		{ "{\"capacity\": \"1Ah\", \"ocv\": [[0, 3.0], [1, 4.2]], \"dead\": \"3.1V\","
		  " \"weak\": \"3.4V\", \"max_charge\": \"1A\", \"efficiency\": 1.2}",
		  "bat: key \"efficiency\"" },
		{ "{\"capacity\": \"-1Ah\", \"ocv\": [[0, 3.0], [1, 4.2]], \"dead\": \"3.1V\","
		  " \"weak\": \"3.4V\", \"max_charge\": \"1A\"}",
		  "bat: key \"capacity\"" },
		{ "[1, 2]", "bat: expected an object" },
	};

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct bn_battery_profile p;
		struct bn_err err = { 0 };
		cJSON *j = parse_text(cases[k].json);
		int rc;

		p.n_points = -3;
		rc = bn_battery_parse(j, &p, "bat", &err);
		cJSON_Delete(j);
		if (rc == BN_OK)
			fail_msg("case %zu accepted: %s", k, cases[k].json);
		assert_int_equal(rc, BN_ERR_DATA);
		assert_msg_has(&err, cases[k].msg);
		assert_int_equal(p.n_points, -3);
	}
}

/* The small-battery phone: DBP at 100 mA from 5 V, the system off, brings
 * a dead cell to the weak threshold in 10..30 minutes. */
static void test_battery__small_cell_dbp_recovery_time(void **state)
{
	struct bn_battery_profile p;
	struct bn_battery b;
	struct bn_err err = { 0 };
	char path[512];
	cJSON *root = NULL;
	int rc, t_s = 0;

	bn_test_path("profiles/duts/phone-dbp-small.json", path, sizeof(path));
	rc = bn_json_load(path, &root, &err);
	if (rc)
		fail_msg("%s", err.msg);
	rc = bn_battery_parse(cJSON_GetObjectItemCaseSensitive(root, "battery"), &p, "small", &err);
	cJSON_Delete(root);
	if (rc)
		fail_msg("%s", err.msg);
	assert_near(p.capacity_ah, 0.1, 1e-12);
	bn_battery_init(&b, &p, 0.0);
	bn_battery_set_voltage(&b, p.dead_v - 0.01);
	assert_true(bn_battery_is_dead(&b));
	while (bn_battery_is_weak(&b) && t_s < 3 * 3600) {
		bn_battery_integrate(&b, 5.0 * 0.100, 0.0, 1.0);
		t_s++;
	}
	if (t_s < 10 * 60 || t_s > 30 * 60)
		fail_msg("dead to weak took %d s, expected 10..30 min", t_s);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_battery__voltage_from_soc),
		cmocka_unit_test(test_battery__soc_from_voltage),
		cmocka_unit_test(test_battery__dead_weak_full),
		cmocka_unit_test(test_battery__integrate_charges),
		cmocka_unit_test(test_battery__integrate_caps_at_max_charge),
		cmocka_unit_test(test_battery__integrate_discharges_when_load_exceeds_input),
		cmocka_unit_test(test_battery__integrate_stops_full_and_empty),
		cmocka_unit_test(test_battery__integrate_long_step_matches_short_steps),
		cmocka_unit_test(test_battery__time_to_voltage),
		cmocka_unit_test(test_battery__time_to_voltage_agrees_with_integrate),
		cmocka_unit_test(test_battery__parse_phone),
		cmocka_unit_test(test_battery__parse_default_efficiency),
		cmocka_unit_test(test_battery__parse_rejects),
		cmocka_unit_test(test_battery__small_cell_dbp_recovery_time),
	};

	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests_name("battery", tests, NULL, NULL);
}
