/* The data lines and ID as an electrical network: builds the elements of
 * the port profile and of the device's PHY state into a bn_net and solves
 * it. Node indices: BN_LINE_DP, BN_LINE_DM, BN_LINE_ID.
 *
 * Always present (so the system is never singular): the port profile's
 * leakage_ohm from each line to ground (the RDAT_LKG of the parts).
 * Port side, only while the data lines make contact: dp_pulldown,
 * dm_pulldown, dp_dm_short (D+ to D-), dm_idle_source (a Thevenin source on
 * D-), the VDM responder's source on D- while st->responder_on (with its
 * current limit), and id_ohm from ID to ground.
 * Device side, by the enum bcfw_phy bits in st->phy:
 *   IDP_SRC  current source idp_src_a into D+, compliance src_compliance_v
 *   RDM_DWN  rdm_dwn_ohm from D- to ground
 *   VDP_SRC  vdp_src_v through src_r_ohm on D+
 *   IDM_SINK current sink idm_sink_a from D-, compliance 0 V
 *   VDM_SRC  vdm_src_v through src_r_ohm on D-
 *   IDP_SINK current sink idp_sink_a from D+, compliance 0 V
 *   RDP_UP   rdp_up_ohm from D+ to pullup_v
 *   ID_PULLUP id_pullup_ohm from ID to id_pullup_v
 *   HOST_PD  rdm_dwn_ohm from D+ and from D- to ground */
#ifndef BN_SIM_LINES_H
#define BN_SIM_LINES_H

#include <stdbool.h>
#include <stdint.h>

#include "core/err.h"
#include "sim/dut.h"
#include "sim/network.h"
#include "sim/port.h"

enum { BN_LINE_DP = 0, BN_LINE_DM = 1, BN_LINE_ID = 2, BN_LINE_COUNT = 3 };

struct bn_lines_state {
	bool data_contact;  /* D+, D- and ID of the plug touch the port */
	uint32_t phy;       /* enum bcfw_phy bits */
	bool responder_on;  /* the port's VDM responder drives D- */
};

struct bn_lines_v {
	double dp_v, dm_v, id_v;
};

int bn_lines_build(struct bn_net *net, const struct bn_port_profile *port,
		   const struct bn_dut_phy *phy, const struct bn_lines_state *st);
int bn_lines_solve(const struct bn_port_profile *port, const struct bn_dut_phy *phy,
		   const struct bn_lines_state *st, struct bn_lines_v *out,
		   struct bn_err *err);

#endif
