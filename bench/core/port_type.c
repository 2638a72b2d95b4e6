/* The port kinds' names, as profiles, scenarios and reports write them. */
#include "core/port_type.h"

#include <string.h>

static const char *const port_names[BN_PORT_COUNT] = {
	[BN_PORT_UNKNOWN] = "unknown",
	[BN_PORT_SDP] = "sdp",
	[BN_PORT_CDP] = "cdp",
	[BN_PORT_DCP] = "dcp",
	[BN_PORT_ACA_A] = "aca-a",
	[BN_PORT_ACA_B] = "aca-b",
	[BN_PORT_ACA_C] = "aca-c",
	[BN_PORT_ACA_DOCK] = "aca-dock",
	[BN_PORT_OTG] = "otg",
	[BN_PORT_FLOAT] = "float",
};

const char *bn_port_name(enum bn_port_type t)
{
	if ((unsigned)t >= BN_PORT_COUNT)
		return port_names[BN_PORT_UNKNOWN];
	return port_names[t];
}

enum bn_port_type bn_port_from_name(const char *name)
{
	if (!name)
		return BN_PORT_UNKNOWN;
	for (int i = BN_PORT_UNKNOWN + 1; i < BN_PORT_COUNT; i++)
		if (!strcmp(name, port_names[i]))
			return (enum bn_port_type)i;
	return BN_PORT_UNKNOWN;
}
