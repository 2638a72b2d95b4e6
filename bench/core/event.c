/* The event kinds' names, as events.json and the reports write them. */
#include "core/event.h"

#include <string.h>

static const char *const cev_names[BN_CEV_COUNT] = {
	"vbus_on", "vbus_off", "data_contact", "connect", "disconnect", "config",
	"suspend", "resume", "peripheral", "load", "telemetry", "mark",
};

const char *bn_cev_name(enum bn_cev_kind k)
{
	return (unsigned)k < BN_CEV_COUNT ? cev_names[k] : "?";
}

int bn_cev_from_name(const char *name)
{
	for (int k = 0; k < BN_CEV_COUNT; k++)
		if (!strcmp(name, bn_cev_name(k)))
			return k;
	return -1;
}
