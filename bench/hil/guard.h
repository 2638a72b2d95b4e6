/* The bench's hard limits (bench.conf max_load_a, max_vbus_v,
 * max_power_w): a command beyond them is refused before it reaches an
 * instrument, whichever backend would carry it. 0 means "no limit". */
#ifndef BN_HIL_GUARD_H
#define BN_HIL_GUARD_H

#include "core/err.h"

struct bn_guard {
	double max_load_a;
	double max_vbus_v;
	double max_power_w;
	const char *origin;   /* where the limits come from, for messages ("bench.conf") */
};

/* A load setpoint of amps with VBUS at up to vbus_v (0: unknown, then
 * max_vbus_v stands in for the power check). BN_ERR_ARG when refused. */
int bn_guard_load(const struct bn_guard *g, double amps, double vbus_v, struct bn_err *err);
/* A supply set to volts with a current limit of ilim_a (0: not set). */
int bn_guard_supply(const struct bn_guard *g, double volts, double ilim_a, struct bn_err *err);

#endif
