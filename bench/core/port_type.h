/* The kinds of port a device may be plugged into, as BC-1.2 names them:
 * what a scenario expects, a device's telemetry reports, a rule applies
 * to, and a report and the CLI print. The port profiles that build one
 * in the simulator are sim/port.h's. */
#ifndef BN_CORE_PORT_TYPE_H
#define BN_CORE_PORT_TYPE_H

/* The one port enum used by scenarios, telemetry, reports and the CLI. */
enum bn_port_type {
	BN_PORT_UNKNOWN = 0,
	BN_PORT_SDP,
	BN_PORT_CDP,
	BN_PORT_DCP,
	BN_PORT_ACA_A,
	BN_PORT_ACA_B,
	BN_PORT_ACA_C,
	BN_PORT_ACA_DOCK,
	BN_PORT_OTG,
	BN_PORT_FLOAT,
	BN_PORT_COUNT
};

/* "sdp", "aca-dock", ...; "unknown" for BN_PORT_UNKNOWN. */
const char *bn_port_name(enum bn_port_type t);
/* BN_PORT_UNKNOWN when the name is not one of the enum's. */
enum bn_port_type bn_port_from_name(const char *name);

#endif
