/* Unit tests: sim/dut (device declarations, PHY defaults from the limits).
 * Run from the repo root or set BN_SRCDIR. Optional argument: a cmocka
 * test-name filter. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/harness.h"
#include "core/limits.h"
#include "sim/dut.h"

static int setup_limits(void **state)
{
	struct bn_limits *lim = calloc(1, sizeof(*lim));
	struct bn_err err = { 0 };
	char path[512];

	if (!lim)
		return -1;
	bn_test_path("profiles/limits/bc12.json", path, sizeof(path));
	if (bn_limits_load(path, lim, &err) != BN_OK) {
		fprintf(stderr, "loading %s: %s\n", path, err.msg);
		free(lim);
		return -1;
	}
	*state = lim;
	return 0;
}

static int teardown_limits(void **state)
{
	struct bn_limits *lim = *state;

	bn_limits_free(lim);
	free(lim);
	return 0;
}

static void load_ok(const char *rel, const struct bn_limits *lim, struct bn_dut_decl *d)
{
	struct bn_err err = { 0 };
	char path[512];

	bn_test_path(rel, path, sizeof(path));
	if (bn_dut_load(path, lim, d, &err) != BN_OK)
		fail_msg("loading %s: %s", path, err.msg);
}

static void test_dut__phy_defaults_from_limits(void **state)
{
	const struct bn_limits *lim = *state;
	struct bn_dut_phy phy;

	bn_dut_phy_defaults(lim, &phy);
	assert_near(phy.idp_src_a, bn_limits_typ(lim, "IDP_SRC"), 0.0);
	assert_near(phy.vdp_src_v, bn_limits_typ(lim, "VDP_SRC"), 0.0);
	assert_near(phy.vdm_src_v, bn_limits_typ(lim, "VDM_SRC"), 0.0);
	assert_near(phy.idm_sink_a, bn_limits_typ(lim, "IDM_SINK"), 0.0);
	assert_near(phy.idp_sink_a, bn_limits_typ(lim, "IDP_SINK"), 0.0);
	assert_near(phy.rdm_dwn_ohm, bn_limits_typ(lim, "RDM_DWN"), 0.0);
	assert_near(phy.rdp_up_ohm, bn_limits_typ(lim, "RDP_UP"), 0.0);
	assert_near(phy.vdat_ref_v, bn_limits_typ(lim, "VDAT_REF"), 0.0);
	assert_near(phy.vlgc_v, bn_limits_typ(lim, "VLGC"), 0.0);
	assert_near(phy.sess_vld_v, bn_limits_max(lim, "VOTG_SESS_VLD"), 0.0);
	/* and those land inside the spec's ranges, in SI units */
	assert_true(phy.idp_src_a >= 7e-6 && phy.idp_src_a <= 13e-6);
	assert_true(phy.vdp_src_v >= 0.5 && phy.vdp_src_v <= 0.7);
	assert_true(phy.vdat_ref_v >= 0.25 && phy.vdat_ref_v <= 0.4);
	assert_true(phy.rdm_dwn_ohm >= 14.25e3 && phy.rdm_dwn_ohm <= 24.8e3);
	assert_near(phy.sess_vld_v, 4.0, 1e-12);
	/* device-design defaults */
	assert_near(phy.src_r_ohm, 100.0, 0.0);
	assert_near(phy.pullup_v, 3.3, 0.0);
	assert_near(phy.id_pullup_ohm, 100e3, 0.0);
	assert_near(phy.id_pullup_v, 3.3, 0.0);
	assert_near(phy.otg_v, 5.0, 0.0);
	assert_near(phy.otg_r_ohm, 0.2, 0.0);
	assert_near(phy.src_compliance_v, 3.3, 0.0);
}

static void test_dut__load_phone(void **state)
{
	const struct bn_limits *lim = *state;
	struct bn_dut_decl d;
	struct bn_dut_phy phy;

	load_ok("profiles/duts/phone.json", lim, &d);
	assert_string_equal(d.name, "phone-ref");
	assert_string_equal(d.firmware, "reference");
	assert_true(d.battery_powered);
	assert_near(d.droop_threshold_v, 4.5, 1e-12);
	assert_true(d.dbp);
	assert_true(d.secondary_detection);
	assert_near(d.otg_rating_a, 0.5, 1e-12);
	assert_near(d.system_load_a, 0.15, 1e-12);
	assert_near(d.uvlo_v, 3.6, 1e-12);
	assert_int_equal(d.uvlo_restart_us, 50000);
	assert_int_equal(d.data_contact_delay_us, 5000);
	assert_true(d.has_battery);
	assert_near(d.battery.capacity_ah, 1.0, 1e-12);
	assert_near(d.battery.dead_v, 3.1, 1e-12);
	assert_near(d.battery.weak_v, 3.4, 1e-12);
	assert_near(d.battery.max_charge_a, 1.5, 1e-12);
	assert_near(d.battery.efficiency, 0.9, 1e-12);
	assert_true(strstr(d.path, "profiles/duts/phone.json") != NULL);
	/* ideal unless declared: no capacitance, a lockout without hysteresis
	 * or deglitch (the shipped runs stay as they were) */
	assert_near(d.vbus_cap_f, 0.0, 0.0);
	assert_near(d.uvlo_hyst_v, 0.0, 0.0);
	assert_int_equal(d.uvlo_deglitch_us, 0);
	assert_near(d.vbus_bleed_ohm, 100e3, 1e-9);
	assert_near(d.phy.line_cap_f, 0.0, 0.0);
	bn_dut_phy_defaults(lim, &phy);
	assert_memory_equal(&d.phy, &phy, sizeof(phy));
}

static void test_dut__load_phone_dbp_small(void **state)
{
	const struct bn_limits *lim = *state;
	struct bn_dut_decl d;

	load_ok("profiles/duts/phone-dbp-small.json", lim, &d);
	assert_true(d.battery_powered && d.dbp && d.has_battery);
	assert_near(d.battery.capacity_ah, 0.1, 1e-12);
	assert_near(d.battery.dead_v, 3.1, 1e-12);
	assert_near(d.battery.weak_v, 3.4, 1e-12);
}

static void test_dut__load_dongle(void **state)
{
	const struct bn_limits *lim = *state;
	struct bn_dut_decl d;

	load_ok("profiles/duts/dongle.json", lim, &d);
	assert_string_equal(d.name, "dongle");
	assert_false(d.battery_powered);
	assert_false(d.has_battery);
	assert_false(d.dbp);
	assert_near(d.otg_rating_a, 0.0, 0.0);
}

static void test_dut__defaults_and_phy_override(void **state)
{
	const struct bn_limits *lim = *state;
	struct bn_dut_decl d;
	struct bn_dut_phy phy;

	load_ok("tests/data/duts/phy-override.json", lim, &d);
	assert_string_equal(d.name, "phy-override"); /* from the file name */
	assert_string_equal(d.firmware, "reference");
	assert_true(d.secondary_detection);
	assert_false(d.dbp);
	assert_near(d.uvlo_v, 3.6, 1e-12);
	assert_int_equal(d.uvlo_restart_us, 50 * BN_US_PER_MS);
	assert_int_equal(d.data_contact_delay_us, 5 * BN_US_PER_MS);
	assert_near(d.system_load_a, 0.100, 1e-12);
	assert_near(d.otg_rating_a, 0.0, 0.0);
	assert_near(d.droop_threshold_v, 4.6, 1e-12);
	/* overridden */
	assert_near(d.phy.vdp_src_v, 0.55, 1e-12);
	assert_near(d.phy.rdp_up_ohm, 1300.0, 1e-9);
	assert_near(d.phy.src_compliance_v, 3.0, 0.0);
	/* the rest as the defaults */
	bn_dut_phy_defaults(lim, &phy);
	assert_near(d.phy.vdm_src_v, phy.vdm_src_v, 0.0);
	assert_near(d.phy.idp_src_a, phy.idp_src_a, 0.0);
	assert_near(d.phy.rdm_dwn_ohm, phy.rdm_dwn_ohm, 0.0);
	assert_near(d.phy.sess_vld_v, phy.sess_vld_v, 0.0);
}

/* The VBUS input's physics as declared. */
static void test_dut__load_vbus_input(void **state)
{
	const struct bn_limits *lim = *state;
	struct bn_dut_decl d;

	load_ok("profiles/duts/phone-uvlo-cycle.json", lim, &d);
	assert_near(d.vbus_cap_f, 10e-6, 1e-15);
	assert_near(d.uvlo_v, 3.6, 1e-12);
	assert_near(d.uvlo_hyst_v, 0.2, 1e-12);
	assert_int_equal(d.uvlo_deglitch_us, 1000);
	assert_int_equal(d.uvlo_restart_us, 50000);
	assert_near(d.vbus_bleed_ohm, 100e3, 1e-9);
	assert_near(d.phy.sess_vld_v, 0.8, 1e-12);
	load_ok("tests/data/duts/vbus-input.json", lim, &d);
	assert_near(d.vbus_cap_f, 4.7e-6, 1e-15);
	assert_near(d.vbus_bleed_ohm, 22e3, 1e-9);
	assert_near(d.phy.line_cap_f, 50e-12, 1e-18);
}

struct bad_case {
	const char *file;
	const char *msg; /* must appear in the message, after the file's path */
};

static void test_dut__load_rejects_broken(void **state)
{
	static const struct bad_case cases[] = {
		{ "unknown-key.json", ": unknown key \"secondary_detect\"" },
		{ "droop-low.json", ": key \"droop_threshold\": 2 V outside VDROOP_DEV" },
		{ "droop-high.json", ": key \"droop_threshold\": 4.8 V outside VDROOP_DEV" },
		{ "droop-missing.json", ": missing key \"droop_threshold\"" },
		{ "droop-unit.json", ": key \"droop_threshold\"" },
		{ "phy-unknown-key.json", ": phy: unknown key \"idp_srcc\"" },
		{ "phy-unit.json", ": phy: key \"vdp_src\"" },
		{ "phy-negative.json", ": phy: key \"rdm_dwn\": must be positive" },
		{ "battery-missing.json", ": key \"battery\": missing" },
		{ "battery-unexpected.json", ": key \"battery\": given but battery_powered is false" },
		{ "dbp-no-battery.json", ": key \"dbp\"" },
		{ "battery-bad.json", ": battery: unknown key \"chemistry\"" },
		{ "dbp-type.json", ": key \"dbp\": expected true or false" },
		{ "uvlo-unit.json", ": key \"uvlo\"" },
		{ "uvlo-hyst-negative.json", ": key \"uvlo_hysteresis\": expected a voltage" },
		{ "uvlo-deglitch-long.json", ": key \"uvlo_deglitch\": expected a time" },
		{ "vbus-cap-unit.json", ": key \"vbus_cap\"" },
		{ "vbus-bleed-zero.json", ": key \"vbus_bleed\": must be positive" },
		{ "phy-line-cap-negative.json", ": phy: key \"line_cap\": must be from 0 to 1 uF" },
		{ "does-not-exist.json", "does-not-exist.json" },
	};
	const struct bn_limits *lim = *state;

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct bn_dut_decl d;
		struct bn_err err = { 0 };
		char rel[256], path[512], want[700];
		int rc;

		snprintf(rel, sizeof(rel), "tests/data/duts/%s", cases[k].file);
		bn_test_path(rel, path, sizeof(path));
		memset(&d, 0, sizeof(d));
		d.uvlo_v = -42.0;
		rc = bn_dut_load(path, lim, &d, &err);
		if (rc == BN_OK)
			fail_msg("%s: loaded, expected a rejection", rel);
		assert_int_equal(err.code, rc);
		snprintf(want, sizeof(want), "%s%s", path, cases[k].msg);
		if (strcmp(cases[k].file, "does-not-exist.json"))
			assert_msg_has(&err, want);
		else
			assert_msg_has(&err, path);
		assert_near(d.uvlo_v, -42.0, 0.0); /* output untouched on failure */
	}
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dut__phy_defaults_from_limits),
		cmocka_unit_test(test_dut__load_phone),
		cmocka_unit_test(test_dut__load_phone_dbp_small),
		cmocka_unit_test(test_dut__load_dongle),
		cmocka_unit_test(test_dut__defaults_and_phy_override),
		cmocka_unit_test(test_dut__load_vbus_input),
		cmocka_unit_test(test_dut__load_rejects_broken),
	};

	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests_name("dut", tests, setup_limits, teardown_limits);
}
