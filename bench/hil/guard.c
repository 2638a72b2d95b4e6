#include "hil/guard.h"

static const char *origin(const struct bn_guard *g)
{
	return g->origin ? g->origin : "bench.conf";
}

int bn_guard_load(const struct bn_guard *g, double amps, double vbus_v, struct bn_err *err)
{
	double v;

	if (!g)
		return BN_OK;
	v = vbus_v > 0 ? vbus_v : g->max_vbus_v;
	if (!(amps >= 0.0))
		return bn_err_set(err, BN_ERR_ARG, "refused: load %.3f A is not a sink current (not sent)",
				  amps);
	if (g->max_load_a > 0 && amps > g->max_load_a)
		return bn_err_set(err, BN_ERR_ARG,
				  "refused: load %.3f A exceeds %s max_load = %.3f A (not sent)", amps,
				  origin(g), g->max_load_a);
	if (g->max_power_w > 0 && v > 0 && amps * v > g->max_power_w)
		return bn_err_set(err, BN_ERR_ARG,
				  "refused: load %.3f A at %.2f V is %.2f W, over %s max_power = %.2f W (not sent)",
				  amps, v, amps * v, origin(g), g->max_power_w);
	return BN_OK;
}

int bn_guard_supply(const struct bn_guard *g, double volts, double ilim_a, struct bn_err *err)
{
	if (!g)
		return BN_OK;
	if (!(volts >= 0.0))
		return bn_err_set(err, BN_ERR_ARG, "refused: supply %.3f V (not sent)", volts);
	if (g->max_vbus_v > 0 && volts > g->max_vbus_v)
		return bn_err_set(err, BN_ERR_ARG,
				  "refused: supply %.3f V exceeds %s max_vbus = %.3f V (not sent)", volts,
				  origin(g), g->max_vbus_v);
	if (g->max_power_w > 0 && ilim_a > 0 && volts * ilim_a > g->max_power_w)
		return bn_err_set(err, BN_ERR_ARG,
				  "refused: supply %.3f V with a %.3f A limit is %.2f W, over %s max_power = %.2f W (not sent)",
				  volts, ilim_a, volts * ilim_a, origin(g), g->max_power_w);
	return BN_OK;
}
