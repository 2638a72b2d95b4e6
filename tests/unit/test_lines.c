/* The data lines and ID for each port type and PHY state, against node
 * voltages computed by hand. The port profiles here are built in C with
 * the values of the shipped profiles/ports/<name>.json; the PHY is built by
 * hand too (typ values, RDM_DWN 20 kohm for round numbers).
 *
 * Common values: leakage RL = 300 kohm on each line; pull-downs 15 kohm,
 * so 15k || 300k = 15000 * 300000 / 315000 = 14285.714 ohm. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "firmware/bcfw.h"
#include "sim/lines.h"

#define EPS_V 1e-6

#define PHY_DCD (BCFW_PHY_IDP_SRC | BCFW_PHY_RDM_DWN)
#define PHY_PRIMARY (BCFW_PHY_VDP_SRC | BCFW_PHY_IDM_SINK)
#define PHY_SECONDARY (BCFW_PHY_VDM_SRC | BCFW_PHY_IDP_SINK)

static void assert_near(double got, double want, double eps)
{
	if (fabs(got - want) > eps)
		fail_msg("got %.9g V, want %.9g V (+-%g)", got, want, eps);
}

static struct bn_dut_phy phy_ref(void)
{
	struct bn_dut_phy p = {
		.idp_src_a = 10e-6, .vdp_src_v = 0.6, .vdm_src_v = 0.6, .src_r_ohm = 100,
		.idm_sink_a = 100e-6, .idp_sink_a = 100e-6, .rdm_dwn_ohm = 20e3,
		.rdp_up_ohm = 1500, .pullup_v = 3.3,
		.id_pullup_ohm = 100e3, .id_pullup_v = 3.3,
		.vdat_ref_v = 0.325, .vlgc_v = 1.4, .sess_vld_v = 4.0,
		.otg_v = 5.0, .otg_r_ohm = 0.2, .src_compliance_v = 3.3,
	};
	return p;
}

static struct bn_port_profile port_base(const char *name)
{
	struct bn_port_profile p;

	memset(&p, 0, sizeof(p));
	strcpy(p.name, name);
	p.leakage_ohm = 300e3;
	return p;
}

static struct bn_port_profile port_sdp(void)
{
	struct bn_port_profile p = port_base("sdp");

	p.expect = BN_PORT_SDP;
	p.dp_pulldown_ohm = 15e3;
	p.dm_pulldown_ohm = 15e3;
	return p;
}

static struct bn_port_profile port_cdp(void)
{
	struct bn_port_profile p = port_sdp();

	strcpy(p.name, "cdp");
	p.expect = BN_PORT_CDP;
	p.has_vdm_responder = true;
	p.resp_v = 0.6;
	p.resp_r_ohm = 200;
	p.resp_i_limit_a = 250e-6;
	p.resp_dp_low_v = 0.4;
	p.resp_dp_high_v = 0.8;
	return p;
}

static struct bn_port_profile port_dcp(void)
{
	struct bn_port_profile p = port_base("dcp");

	p.expect = BN_PORT_DCP;
	p.dp_dm_short_ohm = 200;
	return p;
}

static struct bn_lines_v solve(const struct bn_port_profile *port, uint32_t phy_bits,
			       bool contact, bool responder)
{
	struct bn_dut_phy phy = phy_ref();
	struct bn_lines_state st = { .data_contact = contact, .phy = phy_bits,
				     .responder_on = responder };
	struct bn_lines_v v = { NAN, NAN, NAN };
	struct bn_err err = { 0 };
	int rc = bn_lines_solve(port, &phy, &st, &v, &err);

	if (rc != BN_OK)
		fail_msg("bn_lines_solve: %d %s", rc, err.msg);
	return v;
}

/* SDP, DCD: IDP_SRC 10 uA into D+ with RDP_DWN || RL:
 * D+ = 10 uA x 14285.714 ohm = 0.142857 V (< VDAT_REF: contact).
 * D-: RDM_DWN, RDM_DWN-of-port and RL, nothing drives it: 0 V. */
static void test_lines__sdp_dcd(void **state)
{
	struct bn_port_profile port = port_sdp();
	struct bn_lines_v v = solve(&port, PHY_DCD, true, false);

	assert_near(v.dp_v, 0.142857143, EPS_V);
	assert_near(v.dm_v, 0.0, EPS_V);
	assert_true(v.dp_v < phy_ref().vdat_ref_v);
}

/* Floating D+ (float port, or any port before the data pins touch):
 * 10 uA x 300 kohm = 3.0 V (below the 3.3 V compliance), above VLGC.
 * With 1 Mohm leakage it would be 10 V: clamped at the 3.3 V compliance. */
static void test_lines__float_dcd(void **state)
{
	struct bn_port_profile port = port_base("float");
	struct bn_port_profile sdp = port_sdp();
	struct bn_lines_v v;

	v = solve(&port, PHY_DCD, true, false);
	assert_near(v.dp_v, 3.0, EPS_V);
	assert_true(v.dp_v > 2.0); /* above VLGC max: DCD never sees contact */

	v = solve(&sdp, PHY_DCD, false, false); /* SDP, data pins not yet touching */
	assert_near(v.dp_v, 3.0, EPS_V);

	port.leakage_ohm = 1e6;
	v = solve(&port, PHY_DCD, true, false);
	assert_near(v.dp_v, 3.3, EPS_V);
}

/* DCP, DCD: IDP_SRC into D+; D+ to D- through 200 ohm; D- has the
 * device's RDM_DWN 20k and RL; D+ has RL.
 * D- to ground: 20k || 300k = 18750 ohm; through the short 18950 ohm;
 * D+ sees 18950 || 300k = 17824.110 ohm -> D+ = 10 uA x 17824.110 = 0.178241 V;
 * D- = D+ x 18750 / 18950 = 0.176360 V. Both low: contact. */
static void test_lines__dcp_dcd(void **state)
{
	struct bn_port_profile port = port_dcp();
	struct bn_lines_v v = solve(&port, PHY_DCD, true, false);

	assert_near(v.dp_v, 0.178241104, EPS_V);
	assert_near(v.dm_v, 0.176359931, EPS_V);
	assert_true(v.dp_v < phy_ref().vdat_ref_v);
}

/* DCP, primary: VDP_SRC 0.6 V / 100 ohm on D+, IDM_SINK 100 uA from D-.
 * The short carries the sink plus D-'s leakage: 100 uA + V- / 300k.
 * Nodes (G = 1/R):
 *   D+: (0.6 - V+)/100 = (V+ - V-)/200 + V+/300k
 *   D-: (V+ - V-)/200 = 100e-6 + V-/300k
 * -> V+ = 0.5896137 V, V- = 0.5692342 V: D- above VDAT_REF (a charging
 * port), and V+ - V- = 200 x 101.897 uA = +20.38 mV: current flows D+ -> D-. */
static void test_lines__dcp_primary(void **state)
{
	struct bn_port_profile port = port_dcp();
	struct bn_lines_v v = solve(&port, PHY_PRIMARY, true, false);

	assert_near(v.dp_v, 0.589613717, EPS_V);
	assert_near(v.dm_v, 0.569234228, EPS_V);
	assert_true(v.dm_v > 0.4); /* above VDAT_REF max */
	assert_true(v.dp_v - v.dm_v > 0.019);
}

/* DCP, secondary: the mirror image (VDM_SRC on D-, IDP_SINK on D+):
 * V+ = 0.5692342 V > VDAT_REF: DCP; V+ - V- = -20.38 mV. */
static void test_lines__dcp_secondary(void **state)
{
	struct bn_port_profile port = port_dcp();
	struct bn_lines_v v = solve(&port, PHY_SECONDARY, true, false);

	assert_near(v.dp_v, 0.569234228, EPS_V);
	assert_near(v.dm_v, 0.589613717, EPS_V);
	assert_true(v.dp_v - v.dm_v < -0.019);
}

/* SDP, primary: D+ = 0.6 x 14285.714 / (100 + 14285.714) = 0.595829 V;
 * D- has only the pull-down and RL against the 100 uA sink: the sink
 * stops at its 0 V compliance, D- = 0 < VDAT_REF. */
static void test_lines__sdp_primary(void **state)
{
	struct bn_port_profile port = port_sdp();
	struct bn_lines_v v = solve(&port, PHY_PRIMARY, true, false);

	assert_near(v.dp_v, 0.595829196, EPS_V);
	assert_near(v.dm_v, 0.0, EPS_V);
}

/* CDP, primary, responder on: D- has the responder 0.6 V / 200 ohm
 * (limit 250 uA), 15k, RL and the 100 uA sink:
 *   V- = (0.6/200 - 100e-6) / (1/200 + 1/15k + 1/300k) = 0.0029 / 0.00507 = 0.571992 V;
 *   responder current (0.6 - 0.571992)/200 = 140 uA < 250 uA: not limited.
 * D+ as for the SDP: 0.595829 V. Responder still off: D- = 0 as on an SDP. */
static void test_lines__cdp_primary(void **state)
{
	struct bn_port_profile port = port_cdp();
	struct bn_lines_v v;

	v = solve(&port, PHY_PRIMARY, true, true);
	assert_near(v.dm_v, 0.571992110, EPS_V);
	assert_near(v.dp_v, 0.595829196, EPS_V);
	assert_true(v.dm_v > 0.4);

	v = solve(&port, PHY_PRIMARY, true, false);
	assert_near(v.dm_v, 0.0, EPS_V);
}

/* CDP, primary, with a sink large enough to hit the responder's limit:
 * 1 mA sink: linear V- = (0.003 - 0.001)/0.00507 = 0.394 V needs
 * (0.6 - 0.394)/200 = 1.03 mA > 250 uA, so the responder gives 250 uA and
 * the sink pulls D- to its 0 V compliance. */
static void test_lines__cdp_responder_limit(void **state)
{
	struct bn_port_profile port = port_cdp();
	struct bn_dut_phy phy = phy_ref();
	struct bn_lines_state st = { .data_contact = true, .phy = PHY_PRIMARY, .responder_on = true };
	struct bn_lines_v v;
	struct bn_err err = { 0 };

	phy.idm_sink_a = 1e-3;
	assert_int_equal(bn_lines_solve(&port, &phy, &st, &v, &err), BN_OK);
	assert_near(v.dm_v, 0.0, EPS_V);
}

/* CDP, secondary (responder off: D+ is low): IDP_SINK against 15k || RL
 * stops at 0 V: D+ = 0 < VDAT_REF -> CDP.
 * D- = 0.6 x 14285.714 / 14385.714 = 0.595829 V. */
static void test_lines__cdp_secondary(void **state)
{
	struct bn_port_profile port = port_cdp();
	struct bn_lines_v v = solve(&port, PHY_SECONDARY, true, false);

	assert_near(v.dp_v, 0.0, EPS_V);
	assert_near(v.dm_v, 0.595829196, EPS_V);
}

/* Connect (RDP_UP 1.5 kohm to 3.3 V) on an SDP:
 * D+ = 3.3 x 14285.714 / (1500 + 14285.714) = 2.986425 V.
 * On a CDP whose responder has not yet dropped: D- = 0.003 / 0.00507 = 0.591716 V
 * (41 uA, unlimited); D+ unchanged. */
static void test_lines__rdp_up_connect(void **state)
{
	struct bn_port_profile sdp = port_sdp();
	struct bn_port_profile cdp = port_cdp();
	struct bn_lines_v v;

	v = solve(&sdp, BCFW_PHY_RDP_UP, true, false);
	assert_near(v.dp_v, 2.986425339, EPS_V);
	assert_near(v.dm_v, 0.0, EPS_V);

	v = solve(&cdp, BCFW_PHY_RDP_UP, true, true);
	assert_near(v.dp_v, 2.986425339, EPS_V);
	assert_near(v.dm_v, 0.591715976, EPS_V);
}

/* ID with the device's 100 kohm pull-up to 3.3 V: V = 3.3 x R / (R + 100k),
 * R = RID || 300k leakage:
 *   RID_A 124k:   R = 87735.85 -> 1.542211 V
 *   RID_B 68k:    R = 55434.78 -> 1.176923 V
 *   RID_C 36.5k:  R = 32540.86 -> 0.810202 V
 *   RID_GND 100:  R = 99.967   -> 0.003296 V
 *   float:        R = 300k     -> 2.475 V
 * Without the pull-up ID is 0 V. */
static void test_lines__id_voltages(void **state)
{
	static const struct {
		double rid_ohm, want_v;
	} cases[] = {
		{ 124e3, 1.542211055 },
		{ 68e3, 1.176923077 },
		{ 36.5e3, 0.810201794 },
		{ 100, 0.003295606 },
		{ 0, 2.475 },
	};
	struct bn_port_profile port = port_base("aca");
	struct bn_lines_v v;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		port.id_ohm = cases[i].rid_ohm;
		v = solve(&port, BCFW_PHY_ID_PULLUP, true, false);
		assert_near(v.id_v, cases[i].want_v, EPS_V);
	}
	port.id_ohm = 124e3;
	v = solve(&port, 0, true, false);
	assert_near(v.id_v, 0.0, EPS_V);
	/* before contact the ID resistor is not there: float */
	v = solve(&port, BCFW_PHY_ID_PULLUP, false, false);
	assert_near(v.id_v, 2.475, EPS_V);
	/* ID's own leakage (10 Mohm, the port default): RID_A 124k || 10M =
	 * 122481.4 ohm -> 3.3 x 122481.4 / 222481.4 = 1.816729 V. */
	port.id_leakage_ohm = 10e6;
	v = solve(&port, BCFW_PHY_ID_PULLUP, true, false);
	assert_near(v.id_v, 1.816729, 1e-5);
}

/* ACA-Dock, idle (no PHY source): VDM_SRC 0.6 V through 1 kohm on D-,
 * RL: D- = 0.6 x 300k / 301k = 0.598007 V > VDAT_REF. */
static void test_lines__aca_dock_idle(void **state)
{
	struct bn_port_profile port = port_base("aca-dock");
	struct bn_lines_v v;

	port.id_ohm = 124e3;
	port.has_dm_idle_source = true;
	port.dm_idle_v = 0.6;
	port.dm_idle_r_ohm = 1e3;
	v = solve(&port, 0, true, false);
	assert_near(v.dm_v, 0.598006645, EPS_V);
	assert_near(v.dp_v, 0.0, EPS_V);
	assert_true(v.dm_v > 0.4);
}

/* HOST_PD (device as A-device): 20k on both lines. With the ACA-Dock's
 * idle source: D- = 0.6 x (20k || 300k) / (1k + 18750) = 0.6 x 18750 / 19750
 * = 0.569620 V. */
static void test_lines__host_pulldowns(void **state)
{
	struct bn_port_profile port = port_base("aca-dock");
	struct bn_lines_v v;

	port.has_dm_idle_source = true;
	port.dm_idle_v = 0.6;
	port.dm_idle_r_ohm = 1e3;
	v = solve(&port, BCFW_PHY_HOST_PD, true, false);
	assert_near(v.dm_v, 0.569620253, EPS_V);
}

/* A broken hand-built profile or PHY is refused, naming the port. */
static struct bn_lines_v solve_gnd(const struct bn_port_profile *port, uint32_t phy_bits,
				   bool contact, double gnd_v)
{
	struct bn_dut_phy phy = phy_ref();
	struct bn_lines_state st = { .data_contact = contact, .phy = phy_bits, .gnd_offset_v = gnd_v };
	struct bn_lines_v v = { NAN, NAN, NAN };
	struct bn_err err = { 0 };

	if (bn_lines_solve(port, &phy, &st, &v, &err) != BN_OK)
		fail_msg("bn_lines_solve: %s", err.msg);
	return v;
}

/* The device's ground 0.375 V above or below the port's (VGND_OFFSET):
 * its sources ride on it, the port's pull-downs do not.
 * SDP, primary, +0.375 V: D+ = 0.975 x 14285.714 / 14385.714 = 0.968222 V
 * at the port (the device sees 0.593222 V); D- stays at the port's 0 V,
 * the sink cannot pull below the device's ground (the device sees
 * -0.375 V: no charging port). -0.375 V: D+ = 0.225 x 0.993049 =
 * 0.223436 V; the sink pulls D- down to its compliance, the device's
 * ground: -0.375 V at the port, 0 V to the device. */
static void test_lines__gnd_offset_sdp(void **state)
{
	struct bn_port_profile port = port_sdp();
	struct bn_lines_v v = solve_gnd(&port, PHY_PRIMARY, true, 0.375);

	assert_near(v.dp_v, 0.975 * 14285.714286 / 14385.714286, EPS_V);
	assert_near(v.dm_v, 0.0, EPS_V);
	v = solve_gnd(&port, PHY_PRIMARY, true, -0.375);
	assert_near(v.dp_v, 0.225 * 14285.714286 / 14385.714286, EPS_V);
	assert_near(v.dm_v, -0.375, EPS_V);
}

/* DCP: nothing of the port's references ground but its leakage, so the
 * lines follow the device's ground: against it they read within a few
 * millivolts of the one-ground values (D- above VDAT_REF either way). */
static void test_lines__gnd_offset_dcp(void **state)
{
	struct bn_port_profile port = port_dcp();
	struct bn_lines_v v0 = solve_gnd(&port, PHY_PRIMARY, true, 0.0);

	for (int s = -1; s <= 1; s += 2) {
		double g = 0.375 * s;
		struct bn_lines_v v = solve_gnd(&port, PHY_PRIMARY, true, g);

		assert_near(v.dp_v - g, v0.dp_v, 3e-3);
		assert_near(v.dm_v - g, v0.dm_v, 3e-3);
		assert_true(v.dm_v - g > 0.4);
	}
}

/* A device resistor to its ground ends at the offset: HOST_PD's 20 kohm
 * against the port's 300 kohm leakage, no contact: D+ = 0.375 x 300/320.
 * ID: the device's 100 kohm pull-up to 3.3 V + 0.375 V against the
 * port's 124 kohm and 300 kohm leakage. */
static void test_lines__gnd_offset_resistors(void **state)
{
	struct bn_port_profile port = port_sdp();
	struct bn_lines_v v = solve_gnd(&port, BCFW_PHY_HOST_PD, false, 0.375);
	double g_id = 1 / 100e3 + 1 / 124e3 + 1 / 300e3;

	assert_near(v.dp_v, 0.375 * 300.0 / 320.0, EPS_V);
	assert_near(v.dm_v, 0.375 * 300.0 / 320.0, EPS_V);
	port.id_ohm = 124e3;
	v = solve_gnd(&port, BCFW_PHY_ID_PULLUP, true, 0.375);
	assert_near(v.id_v, 3.675 / 100e3 / g_id, EPS_V);
	/* no offset: a plain resistor to ground, the same answer as before */
	v = solve_gnd(&port, BCFW_PHY_HOST_PD, false, 0.0);
	assert_near(v.dp_v, 0.0, 0.0);
}

/* The Thevenin resistance a line's capacitance charges through. SDP,
 * DCD: D+ sees 15k || 300k (IDP_SRC delivering adds nothing), D- sees
 * RDM_DWN 20k || 15k || 300k; CDP's responder at its limit adds nothing
 * either. */
static void test_lines__thevenin(void **state)
{
	struct bn_port_profile port = port_sdp();
	struct bn_dut_phy phy = phy_ref();
	struct bn_lines_state st = { .data_contact = true, .phy = PHY_DCD };
	struct bn_lines_v v, v2;
	struct bn_err err = { 0 };
	double r[BN_LINE_COUNT];

	assert_int_equal(bn_lines_solve_rth(&port, &phy, &st, &v, r, &err), BN_OK);
	assert_near(r[BN_LINE_DP], 1 / (1 / 15e3 + 1 / 300e3), 1e-3);
	assert_near(r[BN_LINE_DM], 1 / (1 / 20e3 + 1 / 15e3 + 1 / 300e3), 1e-3);
	/* the same steady state as bn_lines_solve, exactly */
	assert_int_equal(bn_lines_solve(&port, &phy, &st, &v2, &err), BN_OK);
	assert_memory_equal(&v, &v2, sizeof(v));
	/* the data lines open: D+ has the leakage only */
	st.data_contact = false;
	assert_int_equal(bn_lines_solve_rth(&port, &phy, &st, &v, r, &err), BN_OK);
	assert_near(r[BN_LINE_DP], 300e3, 1e-2);
	assert_int_equal(bn_lines_solve_rth(&port, &phy, &st, &v, NULL, &err), BN_ERR_ARG);
}

static void test_lines__bad_values(void **state)
{
	struct bn_port_profile port = port_sdp();
	struct bn_dut_phy phy = phy_ref();
	struct bn_lines_state st = { .data_contact = true, .phy = PHY_PRIMARY };
	struct bn_lines_v v;
	struct bn_err err = { 0 };
	struct bn_net net;

	phy.src_r_ohm = 0;
	assert_int_equal(bn_lines_solve(&port, &phy, &st, &v, &err), BN_ERR_ARG);
	assert_non_null(strstr(err.msg, "sdp"));

	phy = phy_ref();
	port.leakage_ohm = 0;
	assert_int_equal(bn_lines_build(&net, &port, &phy, &st), BN_ERR_ARG);

	port = port_sdp();
	st.gnd_offset_v = NAN;
	assert_int_equal(bn_lines_solve(&port, &phy, &st, &v, &err), BN_ERR_ARG);
	assert_non_null(strstr(err.msg, "ground offset"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines__sdp_dcd),
		cmocka_unit_test(test_lines__float_dcd),
		cmocka_unit_test(test_lines__dcp_dcd),
		cmocka_unit_test(test_lines__dcp_primary),
		cmocka_unit_test(test_lines__dcp_secondary),
		cmocka_unit_test(test_lines__sdp_primary),
		cmocka_unit_test(test_lines__cdp_primary),
		cmocka_unit_test(test_lines__cdp_responder_limit),
		cmocka_unit_test(test_lines__cdp_secondary),
		cmocka_unit_test(test_lines__rdp_up_connect),
		cmocka_unit_test(test_lines__id_voltages),
		cmocka_unit_test(test_lines__aca_dock_idle),
		cmocka_unit_test(test_lines__host_pulldowns),
		cmocka_unit_test(test_lines__gnd_offset_sdp),
		cmocka_unit_test(test_lines__gnd_offset_dcp),
		cmocka_unit_test(test_lines__gnd_offset_resistors),
		cmocka_unit_test(test_lines__thevenin),
		cmocka_unit_test(test_lines__bad_values),
	};

	return cmocka_run_group_tests_name("lines", tests, NULL, NULL);
}
