/* Port enum, port profiles (the shipped ones, one written only in JSON
 * with hand-computed voltages, broken ones), and host profiles.
 * Data is found relative to $BN_SRCDIR, else the current directory (run
 * from the repo root). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/limits.h"
#include "firmware/bcfw.h"
#include "sim/host.h"
#include "sim/lines.h"
#include "sim/port.h"

#define EPS_V 1e-6

struct fixture {
	struct bn_limits lim;
	char scratch[256];
};

static const char *srcdir(void)
{
	const char *d = getenv("BN_SRCDIR");

	return d && d[0] ? d : ".";
}

static void src_path(char *buf, size_t len, const char *rel)
{
	snprintf(buf, len, "%s/%s", srcdir(), rel);
}

static void assert_near(double got, double want, double eps)
{
	if (fabs(got - want) > eps)
		fail_msg("got %.12g, want %.12g (+-%g)", got, want, eps);
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct bn_err err = { 0 };
	char path[512];
	const char *tmp = getenv("TMPDIR");

	if (!f)
		return -1;
	src_path(path, sizeof(path), "profiles/limits/bc12.json");
	if (bn_limits_load(path, &f->lim, &err) != BN_OK) {
		fprintf(stderr, "cannot load limits: %s\n", err.msg);
		free(f);
		return -1;
	}
	snprintf(f->scratch, sizeof(f->scratch), "%s/bn-test-port-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
	if (!mkdtemp(f->scratch)) {
		bn_limits_free(&f->lim);
		free(f);
		return -1;
	}
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	rmdir(f->scratch);
	bn_limits_free(&f->lim);
	free(f);
	return 0;
}

static void write_file(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	assert_non_null(fp);
	assert_true(fputs(text, fp) >= 0);
	assert_int_equal(fclose(fp), 0);
}

static void test_port__names(void **state)
{
	static const char *const names[] = {
		"sdp", "cdp", "dcp", "aca-a", "aca-b", "aca-c", "aca-dock", "otg", "float",
	};

	assert_int_equal(BN_PORT_COUNT - 1, sizeof(names) / sizeof(names[0]));
	for (int t = BN_PORT_SDP; t < BN_PORT_COUNT; t++) {
		assert_string_equal(bn_port_name((enum bn_port_type)t), names[t - 1]);
		assert_int_equal(bn_port_from_name(names[t - 1]), t);
	}
	assert_string_equal(bn_port_name(BN_PORT_UNKNOWN), "unknown");
	assert_string_equal(bn_port_name(BN_PORT_COUNT), "unknown");
	assert_string_equal(bn_port_name((enum bn_port_type)-1), "unknown");
	assert_int_equal(bn_port_from_name("unknown"), BN_PORT_UNKNOWN);
	assert_int_equal(bn_port_from_name("SDP"), BN_PORT_UNKNOWN);
	assert_int_equal(bn_port_from_name("aca"), BN_PORT_UNKNOWN);
	assert_int_equal(bn_port_from_name(""), BN_PORT_UNKNOWN);
	assert_int_equal(bn_port_from_name(NULL), BN_PORT_UNKNOWN);
}

static void load_port(struct fixture *f, const char *rel, struct bn_port_profile *p)
{
	struct bn_err err = { 0 };
	char path[512];
	int rc;

	src_path(path, sizeof(path), rel);
	rc = bn_port_load(path, &f->lim, p, &err);
	if (rc != BN_OK)
		fail_msg("%s: %d %s", rel, rc, err.msg);
	assert_string_equal(p->path, path);
}

/* Every shipped profile loads and says what a correct device concludes. */
static void test_port__shipped_profiles(void **state)
{
	static const struct {
		const char *file;
		enum bn_port_type expect;
		enum bn_port_enum enumeration;
		enum bn_port_vbus vbus;
		double id_ohm;
	} cases[] = {
		{ "sdp", BN_PORT_SDP, BN_PORT_ENUM_HOST, BN_PORT_VBUS_EXTERNAL, 0 },
		{ "cdp", BN_PORT_CDP, BN_PORT_ENUM_HOST, BN_PORT_VBUS_EXTERNAL, 0 },
		{ "dcp", BN_PORT_DCP, BN_PORT_ENUM_NONE, BN_PORT_VBUS_EXTERNAL, 0 },
		{ "aca-a", BN_PORT_ACA_A, BN_PORT_ENUM_DEVICE, BN_PORT_VBUS_EXTERNAL, 124e3 },
		{ "aca-b", BN_PORT_ACA_B, BN_PORT_ENUM_NONE, BN_PORT_VBUS_EXTERNAL, 68e3 },
		{ "aca-c", BN_PORT_ACA_C, BN_PORT_ENUM_HOST, BN_PORT_VBUS_EXTERNAL, 36.5e3 },
		{ "aca-dock", BN_PORT_ACA_DOCK, BN_PORT_ENUM_DEVICE, BN_PORT_VBUS_EXTERNAL, 124e3 },
		{ "otg", BN_PORT_OTG, BN_PORT_ENUM_DEVICE, BN_PORT_VBUS_NONE, 100 },
		{ "float", BN_PORT_SDP, BN_PORT_ENUM_NONE, BN_PORT_VBUS_EXTERNAL, 0 },
	};
	struct fixture *f = *state;
	double rdp_min = bn_limits_min(&f->lim, "RDP_DWN"), rdp_max = bn_limits_max(&f->lim, "RDP_DWN");

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct bn_port_profile p;
		char rel[128];

		snprintf(rel, sizeof(rel), "profiles/ports/%s.json", cases[i].file);
		load_port(f, rel, &p);
		assert_string_equal(p.name, cases[i].file);
		assert_int_equal(p.expect, cases[i].expect);
		assert_int_equal(p.enumeration, cases[i].enumeration);
		assert_int_equal(p.vbus, cases[i].vbus);
		assert_near(p.id_ohm, cases[i].id_ohm, 1e-9);
		/* leakage defaults to RDAT_LKG min (300 kohm) */
		assert_near(p.leakage_ohm, bn_limits_min(&f->lim, "RDAT_LKG"), 1e-9);
		assert_near(p.leakage_ohm, 300e3, 1e-9);
		if (p.dp_pulldown_ohm > 0) {
			assert_true(p.dp_pulldown_ohm >= rdp_min && p.dp_pulldown_ohm <= rdp_max);
			assert_true(p.dm_pulldown_ohm >= rdp_min && p.dm_pulldown_ohm <= rdp_max);
		}
		if (p.dp_dm_short_ohm > 0)
			assert_true(p.dp_dm_short_ohm <= bn_limits_max(&f->lim, "RDCP_DAT"));
		if (p.enumeration == BN_PORT_ENUM_DEVICE)
			assert_true(p.peripheral[0] != '\0');
		/* "capacitance" is the part's figure; the simulated lines
		 * carry none unless line_cap says so */
		assert_near(p.line_cap_f, 0.0, 0.0);
	}
}

/* line_cap: simulated on each data line while they touch. */
static void test_port__line_cap(void **state)
{
	struct fixture *f = *state;
	struct bn_port_profile p;
	struct bn_err err = { 0 };
	char path[512];

	snprintf(path, sizeof(path), "%s/line-cap.json", f->scratch);
	write_file(path, "{\"expect\":\"sdp\",\"enumeration\":\"host\",\"dp_pulldown\":\"15kohm\","
			 "\"dm_pulldown\":\"15kohm\",\"capacitance\":\"100pF\",\"line_cap\":\"150pF\"}");
	assert_int_equal(bn_port_load(path, &f->lim, &p, &err), BN_OK);
	unlink(path);
	assert_near(p.line_cap_f, 150e-12, 1e-21);
	assert_near(p.capacitance_f, 100e-12, 1e-21);
}

/* The CDP's responder: written v, r, i_limit; the rest from the limits:
 * dp_low VDAT_REF max 0.4 V, dp_high VLGC min 0.8 V, on TVDMSRC_EN max 20 ms,
 * off TVDMSRC_DIS max / 2 = 10 ms, re-enable TCP_VDM_EN max 200 ms. */
static void test_port__cdp_responder_defaults(void **state)
{
	struct fixture *f = *state;
	struct bn_port_profile p;

	load_port(f, "profiles/ports/cdp.json", &p);
	assert_true(p.has_vdm_responder);
	assert_near(p.resp_v, 0.6, 1e-12);
	assert_near(p.resp_r_ohm, 200, 1e-9);
	assert_near(p.resp_i_limit_a, 250e-6, 1e-15);
	assert_near(p.resp_dp_low_v, 0.4, 1e-12);
	assert_near(p.resp_dp_high_v, 0.8, 1e-12);
	assert_int_equal(p.resp_on_delay_us, 20000);
	assert_int_equal(p.resp_off_delay_us, 10000);
	assert_int_equal(p.resp_reenable_us, 200000);
	assert_near(p.dp_pulldown_ohm, 15e3, 1e-9);

	load_port(f, "profiles/ports/dcp.json", &p);
	assert_false(p.has_vdm_responder);
	assert_near(p.dp_dm_short_ohm, 200, 1e-9);
	assert_near(p.dp_pulldown_ohm, 0, 0);

	load_port(f, "profiles/ports/aca-dock.json", &p);
	assert_true(p.has_dm_idle_source);
	assert_near(p.dm_idle_v, 0.6, 1e-12);
	assert_near(p.dm_idle_r_ohm, 1e3, 1e-9);
	assert_string_equal(p.peripheral, "dock");
}

/* tests/data/ports/odd.json exists only as JSON: its values, and the
 * voltages they give with a hand-built PHY (IDP_SRC 10 uA, VDP_SRC 0.6 V /
 * 100 ohm, IDM_SINK 100 uA, RDM_DWN 20 kohm, ID pull-up 100 kohm to 3.3 V).
 * Rg = 22k || 1M = 21526.419 ohm on each line. */
static void test_port__odd_profile_voltages(void **state)
{
	struct fixture *f = *state;
	struct bn_port_profile p;
	struct bn_dut_phy phy = {
		.idp_src_a = 10e-6, .vdp_src_v = 0.6, .vdm_src_v = 0.6, .src_r_ohm = 100,
		.idm_sink_a = 100e-6, .idp_sink_a = 100e-6, .rdm_dwn_ohm = 20e3,
		.rdp_up_ohm = 1500, .pullup_v = 3.3, .id_pullup_ohm = 100e3, .id_pullup_v = 3.3,
		.src_compliance_v = 3.3,
	};
	struct bn_lines_state st = { .data_contact = true };
	struct bn_lines_v v;
	struct bn_err err = { 0 };

	load_port(f, "tests/data/ports/odd.json", &p);
	assert_string_equal(p.name, "odd");
	assert_int_equal(p.expect, BN_PORT_DCP);
	assert_near(p.dp_pulldown_ohm, 22e3, 1e-9);
	assert_near(p.dm_pulldown_ohm, 22e3, 1e-9);
	assert_near(p.dp_dm_short_ohm, 150, 1e-9);
	assert_near(p.leakage_ohm, 1e6, 1e-6);
	assert_near(p.id_ohm, 470e3, 1e-9);
	assert_near(p.id_leakage_ohm, 10e6, 1e-6); /* the ID default, not the data-line leakage */
	assert_near(p.capacitance_f, 2.2e-9, 1e-21);
	assert_true(p.has_vdm_responder);
	assert_near(p.resp_v, 0.55, 1e-12);
	assert_near(p.resp_r_ohm, 330, 1e-9);
	assert_near(p.resp_i_limit_a, 150e-6, 1e-15);
	assert_near(p.resp_dp_low_v, 0.3, 1e-12);
	assert_near(p.resp_dp_high_v, 0.9, 1e-12);
	assert_int_equal(p.resp_on_delay_us, 5000);
	assert_int_equal(p.resp_off_delay_us, 3000);
	assert_int_equal(p.resp_reenable_us, 50000);
	assert_string_equal(p.peripheral, "none-really");

	/* DCD: D- to ground 22k || 20k || 1M = 10367.578; through the short
	 * 10517.578; D+ sees 21526.419 || 10517.578 = 7065.466 ohm:
	 * D+ = 10 uA x 7065.466 = 0.0706547 V; D- = D+ x 10367.578 / 10517.578 = 0.0696470 V. */
	st.phy = BCFW_PHY_IDP_SRC | BCFW_PHY_RDM_DWN;
	assert_int_equal(bn_lines_solve(&p, &phy, &st, &v, &err), BN_OK);
	assert_near(v.dp_v, 0.070654665, EPS_V);
	assert_near(v.dm_v, 0.069646999, EPS_V);

	/* Primary: G+ = G- = 1/Rg = 46.4545 uS, Gs = 1/150, Gsrc = 1/100:
	 *   D+: (G+ + Gs + Gsrc) V+ - Gs V- = 0.6 Gsrc
	 *   D-: -Gs V+ + (G- + Gs) V- = -100 uA
	 * -> V+ = 0.5846560 V, V- = 0.5657140 V (above VDAT_REF; +18.94 mV across the short). */
	st.phy = BCFW_PHY_VDP_SRC | BCFW_PHY_IDM_SINK;
	assert_int_equal(bn_lines_solve(&p, &phy, &st, &v, &err), BN_OK);
	assert_near(v.dp_v, 0.584656008, EPS_V);
	assert_near(v.dm_v, 0.565714010, EPS_V);

	/* Responder on, PHY idle: D- to ground Rg || (150 + Rg) = 10800.579;
	 * D- = 0.55 x 10800.579 / (330 + 10800.579) = 0.5336936 V (49.4 uA,
	 * under the 150 uA limit); D+ = D- x Rg / (150 + Rg) = 0.5300004 V. */
	st.phy = 0;
	st.responder_on = true;
	assert_int_equal(bn_lines_solve(&p, &phy, &st, &v, &err), BN_OK);
	assert_near(v.dm_v, 0.533693571, EPS_V);
	assert_near(v.dp_v, 0.530000432, EPS_V);

	/* ID: 470k || 10M (ID's own leakage) = 448901.624
	 *   -> 3.3 x 448901.624 / 548901.624 = 2.6987994 V: above RID_FLOAT, no ACA */
	st.responder_on = false;
	st.phy = BCFW_PHY_ID_PULLUP;
	assert_int_equal(bn_lines_solve(&p, &phy, &st, &v, &err), BN_OK);
	assert_near(v.id_v, 2.698799374, EPS_V);
}

/* Broken files: each refused with BN_ERR_DATA and a message naming the
 * file and the key (or the position, for a syntax error). */
static void test_port__broken_rejected(void **state)
{
	static const struct {
		const char *file, *text, *want1, *want2;
	} cases[] = {
		{ "unknown-key.json",
		  "{\"expect\":\"sdp\",\"enumeration\":\"host\",\"pulldown\":\"15kohm\"}",
		  "unknown key \"pulldown\"", NULL },
		{ "bad-expect.json", "{\"expect\":\"usb\",\"enumeration\":\"host\"}", "\"expect\"",
		  "\"usb\"" },
		{ "no-expect.json", "{\"enumeration\":\"host\"}", "\"expect\"", NULL },
		{ "neg-res.json",
		  "{\"expect\":\"sdp\",\"enumeration\":\"host\",\"dp_pulldown\":\"-15kohm\"}",
		  "\"dp_pulldown\"", NULL },
		{ "zero-id.json", "{\"expect\":\"sdp\",\"enumeration\":\"none\",\"id\":\"0ohm\"}",
		  "\"id\"", NULL },
		{ "bare-number.json", "{\"expect\":\"sdp\",\"enumeration\":\"none\",\"id\":124000}",
		  "\"id\"", "unit" },
		{ "bad-unit.json",
		  "{\"expect\":\"sdp\",\"enumeration\":\"none\",\"dm_pulldown\":\"15k\"}",
		  "\"dm_pulldown\"", NULL },
		{ "wrong-dim.json", "{\"expect\":\"sdp\",\"enumeration\":\"none\",\"leakage\":\"1MHz\"}",
		  "\"leakage\"", NULL },
		{ "bad-vbus.json", "{\"expect\":\"otg\",\"enumeration\":\"device\",\"vbus\":\"off\"}",
		  "\"vbus\"", NULL },
		{ "bad-enum.json", "{\"expect\":\"sdp\",\"enumeration\":\"yes\"}", "\"enumeration\"",
		  NULL },
		{ "resp-key.json",
		  "{\"expect\":\"cdp\",\"enumeration\":\"host\",\"vdm_responder\":{\"delay\":\"1ms\"}}",
		  "vdm_responder", "\"delay\"" },
		{ "resp-levels.json",
		  "{\"expect\":\"cdp\",\"enumeration\":\"host\",\"vdm_responder\":{\"dp_low\":\"0.9V\",\"dp_high\":\"0.8V\"}}",
		  "vdm_responder", "\"dp_high\"" },
		{ "resp-time.json",
		  "{\"expect\":\"cdp\",\"enumeration\":\"host\",\"vdm_responder\":{\"on_delay\":\"-1ms\"}}",
		  "vdm_responder", "\"on_delay\"" },
		{ "idle-no-r.json",
		  "{\"expect\":\"aca-dock\",\"enumeration\":\"device\",\"dm_idle_source\":{\"v\":\"0.6V\"}}",
		  "dm_idle_source", "\"r\"" },
		{ "desc.json", "{\"expect\":\"sdp\",\"enumeration\":\"host\",\"description\":7}",
		  "\"description\"", NULL },
		{ "line-cap.json",
		  "{\"expect\":\"sdp\",\"enumeration\":\"none\",\"line_cap\":\"-1pF\"}",
		  "\"line_cap\"", "0 to 1 uF" },
		{ "line-cap-big.json",
		  "{\"expect\":\"sdp\",\"enumeration\":\"none\",\"line_cap\":\"2uF\"}",
		  "\"line_cap\"", "0 to 1 uF" },
		{ "syntax.json", "{\"expect\":\"sdp\",\n  \"enumeration\" \"host\"}", ":2:", "invalid JSON" },
		{ "resp-ilimit-big.json",
		  "{\"expect\":\"cdp\",\"enumeration\":\"host\",\"vdm_responder\":{\"i_limit\":\"250A\"}}",
		  "\"i_limit\"", "more than USB carries" },
	};
	struct fixture *f = *state;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct bn_port_profile p;
		struct bn_err err = { 0 };
		char path[512];
		int rc;

		snprintf(path, sizeof(path), "%s/%s", f->scratch, cases[i].file);
		write_file(path, cases[i].text);
		rc = bn_port_load(path, &f->lim, &p, &err);
		unlink(path);
		if (rc != BN_ERR_DATA)
			fail_msg("%s: rc %d (%s)", cases[i].file, rc, err.msg);
		if (!strstr(err.msg, path) || !strstr(err.msg, cases[i].want1) ||
		    (cases[i].want2 && !strstr(err.msg, cases[i].want2)))
			fail_msg("%s: message lacks the file or key: %s", cases[i].file, err.msg);
	}
	{
		struct bn_port_profile p;
		struct bn_err err = { 0 };
		char path[512];

		snprintf(path, sizeof(path), "%s/missing.json", f->scratch);
		assert_int_equal(bn_port_load(path, &f->lim, &p, &err), BN_ERR_IO);
		assert_non_null(strstr(err.msg, "missing.json"));
	}
}

/* Host profiles (host.c): shipped ones, defaults, a broken one. */
static void test_host__profiles(void **state)
{
	struct fixture *f = *state;
	struct bn_host_profile h;
	struct bn_err err = { 0 };
	char path[512];

	src_path(path, sizeof(path), "profiles/hosts/root-500ma.json");
	assert_int_equal(bn_host_load(path, &f->lim, &h, &err), BN_OK);
	assert_string_equal(h.name, "root-500ma");
	assert_near(h.budget_a, 0.5, 1e-12);
	assert_true(h.enumerates);
	assert_int_equal(h.enum_delay_us, 100000);
	assert_int_equal(h.idle_suspend_us, 1000000);

	src_path(path, sizeof(path), "profiles/hosts/hub-100ma.json");
	assert_int_equal(bn_host_load(path, &f->lim, &h, &err), BN_OK);
	assert_near(h.budget_a, 0.1, 1e-12);
	assert_true(h.enumerates);
	/* idle_suspend absent: TSVLD_CON_PWD max */
	assert_int_equal(h.idle_suspend_us, bn_time_from_s(bn_limits_max(&f->lim, "TSVLD_CON_PWD")));

	src_path(path, sizeof(path), "profiles/hosts/no-enum.json");
	assert_int_equal(bn_host_load(path, &f->lim, &h, &err), BN_OK);
	assert_false(h.enumerates);
	assert_near(h.budget_a, 0.0, 0);
	/* enum_delay absent: 100 ms */
	assert_int_equal(h.enum_delay_us, 100000);

	bn_host_default(&f->lim, &h);
	assert_string_equal(h.name, "root-500ma");
	assert_near(h.budget_a, bn_limits_max(&f->lim, "ICFG_MAX"), 1e-12);
	assert_true(h.enumerates);
	assert_int_equal(h.enum_delay_us, 100000);
	assert_int_equal(h.idle_suspend_us, 1000000);
}

static void test_host__broken_rejected(void **state)
{
	static const struct {
		const char *file, *text, *want;
	} cases[] = {
		{ "h-unknown.json", "{\"budget\":\"500mA\",\"speed\":\"full\"}", "\"speed\"" },
		{ "h-no-budget.json", "{\"enumerates\":true}", "\"budget\"" },
		{ "h-neg.json", "{\"budget\":\"-1mA\"}", "\"budget\"" },
		{ "h-dim.json", "{\"budget\":\"5V\"}", "\"budget\"" },
		{ "h-bool.json", "{\"budget\":\"1mA\",\"enumerates\":\"yes\"}", "\"enumerates\"" },
		{ "h-bare.json", "{\"budget\":\"1mA\",\"enum_delay\":100}", "\"enum_delay\"" },
	};
	struct fixture *f = *state;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct bn_host_profile h;
		struct bn_err err = { 0 };
		char path[512];
		int rc;

		snprintf(path, sizeof(path), "%s/%s", f->scratch, cases[i].file);
		write_file(path, cases[i].text);
		rc = bn_host_load(path, &f->lim, &h, &err);
		unlink(path);
		if (rc != BN_ERR_DATA || !strstr(err.msg, path) || !strstr(err.msg, cases[i].want))
			fail_msg("%s: rc %d, message: %s", cases[i].file, rc, err.msg);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_port__names),
		cmocka_unit_test(test_port__shipped_profiles),
		cmocka_unit_test(test_port__cdp_responder_defaults),
		cmocka_unit_test(test_port__odd_profile_voltages),
		cmocka_unit_test(test_port__line_cap),
		cmocka_unit_test(test_port__broken_rejected),
		cmocka_unit_test(test_host__profiles),
		cmocka_unit_test(test_host__broken_rejected),
	};

	return cmocka_run_group_tests_name("port", tests, setup, teardown);
}
