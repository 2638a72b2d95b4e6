/* The data lines and ID as an electrical network: builds the elements of
 * the port profile and of the device's PHY state into a bn_net and solves
 * it. Node indices: BN_LINE_DP, BN_LINE_DM, BN_LINE_ID.
 *
 * Always present (so the system is never singular): the port profile's
 * leakage_ohm from each line to ground (the RDAT_LKG of the parts).
 * Port side, only while the data lines make contact: dp_pulldown,
 * dm_pulldown, dp_dm_short (D+ to D-), dm_idle_source (a Thevenin source on
 * D-), leak_source (a Thevenin source on each of D+ and D-), the VDM responder's source on D- while st->responder_on (with its
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
 *   HOST_PD  rdm_dwn_ohm from D+ and from D- to ground
 * The device's elements are referred to the device's ground, which sits
 * st->gnd_offset_v above the port's (the compliance plan's tests 6.14 and
 * 6.15 shift it by 0.375 V either way): a device source of v appears as
 * v + gnd_offset_v, a device resistor "to ground" ends at gnd_offset_v,
 * and a sink's 0 V compliance is gnd_offset_v. The port's elements and
 * the solved voltages are in the port's reference: a device comparator
 * sees a line at v - gnd_offset_v. */
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
	double gnd_offset_v; /* the device's ground above the port's (V) */
};

struct bn_lines_v {
	double dp_v, dm_v, id_v;
};

int bn_lines_build(struct bn_net *net, const struct bn_port_profile *port,
		   const struct bn_dut_phy *phy, const struct bn_lines_state *st);
int bn_lines_solve(const struct bn_port_profile *port, const struct bn_dut_phy *phy,
		   const struct bn_lines_state *st, struct bn_lines_v *out,
		   struct bn_err *err);
/* The same, and each line's Thevenin resistance in the solved state
 * (indexed by BN_LINE_*): a line's capacitance charges through it. */
int bn_lines_solve_rth(const struct bn_port_profile *port, const struct bn_dut_phy *phy,
		       const struct bn_lines_state *st, struct bn_lines_v *out,
		       double r_th_ohm[BN_LINE_COUNT], struct bn_err *err);

#endif
