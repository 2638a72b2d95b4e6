/* D+, D- and ID as a bn_net: the port profile's parts (while the plug's data
 * contacts touch) and the device's PHY switches. See lines.h. */
#include "sim/lines.h"

#include <math.h>

#include "firmware/bcfw.h"

/* Each add returns an index or BN_ERR_ARG; keep the first failure. */
static void chk(int *rc, int idx)
{
	if (idx < 0 && *rc == BN_OK)
		*rc = idx;
}

static void add_port(struct bn_net *net, const struct bn_port_profile *port, int *rc)
{
	if (port->dp_pulldown_ohm > 0)
		chk(rc, bn_net_add_res(net, BN_LINE_DP, BN_NET_GND, port->dp_pulldown_ohm,
				       "port dp_pulldown"));
	if (port->dm_pulldown_ohm > 0)
		chk(rc, bn_net_add_res(net, BN_LINE_DM, BN_NET_GND, port->dm_pulldown_ohm,
				       "port dm_pulldown"));
	if (port->dp_dm_short_ohm > 0)
		chk(rc, bn_net_add_res(net, BN_LINE_DP, BN_LINE_DM, port->dp_dm_short_ohm,
				       "port dp_dm_short"));
	if (port->has_dm_idle_source)
		chk(rc, bn_net_add_vsrc(net, BN_LINE_DM, port->dm_idle_v, port->dm_idle_r_ohm, 0,
					"port dm_idle_source"));
	if (port->id_ohm > 0)
		chk(rc, bn_net_add_res(net, BN_LINE_ID, BN_NET_GND, port->id_ohm, "port id"));
	if (port->has_leak_source) {
		chk(rc, bn_net_add_vsrc(net, BN_LINE_DP, port->leak_v, port->leak_r_ohm, 0,
					"port leak_source D+"));
		chk(rc, bn_net_add_vsrc(net, BN_LINE_DM, port->leak_v, port->leak_r_ohm, 0,
					"port leak_source D-"));
	}
}

static void add_vdm_responder(struct bn_net *net, const struct bn_port_profile *port, int *rc)
{
	chk(rc, bn_net_add_vsrc(net, BN_LINE_DM, port->resp_v, port->resp_r_ohm,
				port->resp_i_limit_a, "port vdm_responder"));
}

/* A device resistor to the device's ground: a plain resistor when the
 * grounds agree, else a source of the offset behind it. */
static void add_dut_res(struct bn_net *net, int node, double r_ohm, double gnd_v,
			const char *label, int *rc)
{
	if (gnd_v == 0.0)
		chk(rc, bn_net_add_res(net, node, BN_NET_GND, r_ohm, label));
	else
		chk(rc, bn_net_add_vsrc(net, node, gnd_v, r_ohm, 0, label));
}

static void add_dut(struct bn_net *net, const struct bn_dut_phy *phy, uint32_t bits, double gnd_v,
		    int *rc)
{
	if (bits & BCFW_PHY_IDP_SRC) {
		if (!(phy->src_compliance_v > 0))
			chk(rc, BN_ERR_ARG);
		chk(rc, bn_net_add_isrc(net, BN_LINE_DP, phy->idp_src_a,
					phy->src_compliance_v + gnd_v, 0, "dut IDP_SRC"));
	}
	if (bits & BCFW_PHY_RDM_DWN)
		add_dut_res(net, BN_LINE_DM, phy->rdm_dwn_ohm, gnd_v, "dut RDM_DWN", rc);
	if (bits & BCFW_PHY_VDP_SRC)
		chk(rc, bn_net_add_vsrc(net, BN_LINE_DP, phy->vdp_src_v + gnd_v, phy->src_r_ohm, 0,
					"dut VDP_SRC"));
	if (bits & BCFW_PHY_IDM_SINK)
		chk(rc, bn_net_add_isrc(net, BN_LINE_DM, -phy->idm_sink_a, gnd_v, 0, "dut IDM_SINK"));
	if (bits & BCFW_PHY_VDM_SRC)
		chk(rc, bn_net_add_vsrc(net, BN_LINE_DM, phy->vdm_src_v + gnd_v, phy->src_r_ohm, 0,
					"dut VDM_SRC"));
	if (bits & BCFW_PHY_IDP_SINK)
		chk(rc, bn_net_add_isrc(net, BN_LINE_DP, -phy->idp_sink_a, gnd_v, 0, "dut IDP_SINK"));
	if (bits & BCFW_PHY_RDP_UP)
		chk(rc, bn_net_add_vsrc(net, BN_LINE_DP, phy->pullup_v + gnd_v, phy->rdp_up_ohm, 0,
					"dut RDP_UP"));
	if (bits & BCFW_PHY_ID_PULLUP)
		chk(rc, bn_net_add_vsrc(net, BN_LINE_ID, phy->id_pullup_v + gnd_v,
					phy->id_pullup_ohm, 0, "dut ID_PULLUP"));
	if (bits & BCFW_PHY_HOST_PD) {
		add_dut_res(net, BN_LINE_DP, phy->rdm_dwn_ohm, gnd_v, "dut HOST_PD D+", rc);
		add_dut_res(net, BN_LINE_DM, phy->rdm_dwn_ohm, gnd_v, "dut HOST_PD D-", rc);
	}
}

int bn_lines_build(struct bn_net *net, const struct bn_port_profile *port,
		   const struct bn_dut_phy *phy, const struct bn_lines_state *st)
{
	static const char *const leak_label[BN_LINE_COUNT] = {
		"port leakage D+", "port leakage D-", "port leakage ID"
	};
	int rc = BN_OK;

	if (!net || !port || !phy || !st || !(port->leakage_ohm > 0) || !isfinite(st->gnd_offset_v))
		return BN_ERR_ARG;
	bn_net_init(net, BN_LINE_COUNT);
	for (int k = 0; k < BN_LINE_COUNT; k++) {
		double r = k == BN_LINE_ID && port->id_leakage_ohm > 0 ? port->id_leakage_ohm
									: port->leakage_ohm;

		chk(&rc, bn_net_add_res(net, k, BN_NET_GND, r, leak_label[k]));
	}
	if (st->data_contact) {
		add_port(net, port, &rc);
		if (st->responder_on && port->has_vdm_responder)
			add_vdm_responder(net, port, &rc);
	}
	add_dut(net, phy, st->phy, st->gnd_offset_v, &rc);
	return rc;
}

static int lines_solve(const struct bn_port_profile *port, const struct bn_dut_phy *phy,
		       const struct bn_lines_state *st, struct bn_lines_v *out, double *r_th_ohm,
		       struct bn_err *err)
{
	struct bn_net net;
	struct bn_err e = { 0 };
	double v[BN_LINE_COUNT];
	int rc;

	if (!out)
		return bn_err_set(err, BN_ERR_ARG, "lines: no output");
	rc = bn_lines_build(&net, port, phy, st);
	if (rc)
		return bn_err_set(err, rc,
				  "lines: port '%s' with PHY state 0x%x: a value is out of range "
				  "(resistances and source resistances must be > 0, leakage > 0, "
				  "IDP_SRC compliance > 0, a finite ground offset)",
				  port ? port->name : "?", st ? (unsigned)st->phy : 0u);
	rc = r_th_ohm ? bn_net_solve_rth(&net, v, r_th_ohm, &e) : bn_net_solve(&net, v, &e);
	if (rc)
		return bn_err_set(err, rc, "lines: port '%s', PHY state 0x%x: %s", port->name,
				  (unsigned)st->phy, e.msg);
	out->dp_v = v[BN_LINE_DP];
	out->dm_v = v[BN_LINE_DM];
	out->id_v = v[BN_LINE_ID];
	return BN_OK;
}

int bn_lines_solve(const struct bn_port_profile *port, const struct bn_dut_phy *phy,
		   const struct bn_lines_state *st, struct bn_lines_v *out,
		   struct bn_err *err)
{
	return lines_solve(port, phy, st, out, NULL, err);
}

int bn_lines_solve_rth(const struct bn_port_profile *port, const struct bn_dut_phy *phy,
		       const struct bn_lines_state *st, struct bn_lines_v *out,
		       double r_th_ohm[BN_LINE_COUNT], struct bn_err *err)
{
	if (!r_th_ohm)
		return bn_err_set(err, BN_ERR_ARG, "lines: no output for the resistances");
	return lines_solve(port, phy, st, out, r_th_ohm, err);
}
