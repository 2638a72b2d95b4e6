/* A battery: open-circuit voltage from state of charge, dead and weak
 * thresholds, charged by what the device gets minus its system load.
 * Its parameters come from the device declaration (profiles/duts/).
 *
 * "battery": {
 *   "capacity": "1000mAh",
 *   "ocv": [ [0.0, 3.0], [0.05, 3.3], [0.5, 3.7], [1.0, 4.2] ],  // [soc, V], soc ascending, V ascending
 *   "dead": "3.1V",              // below: too weak to run the system (Dead Battery Provision)
 *   "weak": "3.4V",              // below: may not be able to enumerate quickly
 *   "max_charge": "1A",          // charge current limit of the charger IC
 *   "efficiency": 0.9            // VBUS power to battery power
 * } */
#ifndef BN_SIM_BATTERY_H
#define BN_SIM_BATTERY_H

#include <stdbool.h>

#include "cjson/cJSON.h"
#include "core/err.h"

#define BN_BATTERY_MAX_POINTS 16

struct bn_battery_profile {
	double capacity_ah;
	int n_points;
	double soc[BN_BATTERY_MAX_POINTS];
	double ocv_v[BN_BATTERY_MAX_POINTS];
	double dead_v, weak_v;
	double max_charge_a;
	double efficiency;
};

struct bn_battery {
	struct bn_battery_profile p;
	double soc; /* 0..1 */
};

/* Parse the "battery" object; what names it in messages. */
int bn_battery_parse(const cJSON *obj, struct bn_battery_profile *out,
		     const char *what, struct bn_err *err);

void bn_battery_init(struct bn_battery *b, const struct bn_battery_profile *p, double soc);
/* Set the state of charge that gives open-circuit voltage v (clamped to
 * the curve's ends). */
void bn_battery_set_voltage(struct bn_battery *b, double v);
double bn_battery_voltage(const struct bn_battery *b);
bool bn_battery_is_dead(const struct bn_battery *b);
bool bn_battery_is_weak(const struct bn_battery *b);
bool bn_battery_is_full(const struct bn_battery *b);
/* Integrate dt_s seconds with the device drawing p_in_w from VBUS and the
 * system using p_sys_w: the battery gets (p_in*eff - p_sys)/V_bat, capped
 * at max_charge_a (discharges when negative). Returns the battery current. */
double bn_battery_integrate(struct bn_battery *b, double p_in_w, double p_sys_w, double dt_s);
/* Seconds until the voltage crosses v at constant battery current i_a
 * (> 0 charging), or a negative number if it never does. For the event
 * loop to wake exactly at a threshold. */
double bn_battery_time_to_voltage(const struct bn_battery *b, double i_a, double v);

#endif
