/* The charger behind a port: its V-I curve, the cable, and its shutdown
 * rule (profiles/chargers/<name>.json). Independent of the port type.
 *
 * {
 *   "name": "dcp-1a", "description": "...",
 *   "curve": [ [0.0, 5.10], [1.0, 5.00], [1.1, 4.60], [1.2, 0.0] ],  // [A, V] at the charger's output, I ascending
 *   "cable": "0.1ohm",           // round-trip VBUS+GND resistance
 *   "shutdown": { "above": "1.2A", "after": "5ms", "recover": "1s" }  // optional
 *   "rated": "1A",               // optional, informational (IDCP is judged elsewhere)
 *   "output_cap": "100uF"        // optional: capacitance at the charger's output; default 0
 * }
 * Beyond the last point the charger cannot deliver: the open-circuit
 * voltage is 0 (its current limit folds back). Shutdown: drawing more than
 * "above" for longer than "after" turns the output off for "recover". */
#ifndef BN_SIM_CHARGER_H
#define BN_SIM_CHARGER_H

#include <stdbool.h>

#include "core/err.h"
#include "core/time.h"

#define BN_CHARGER_MAX_POINTS 32

struct bn_charger {
	char name[64];
	char path[256];
	int n_points;
	double i_a[BN_CHARGER_MAX_POINTS];
	double v_v[BN_CHARGER_MAX_POINTS];
	double cable_ohm;
	double rated_a;          /* 0 = not stated */
	bool has_shutdown;
	double shutdown_above_a;
	bn_time_us shutdown_after_us;
	bn_time_us recover_us;
	double output_cap_f;     /* 0 = none */
};

struct bn_charger_state {
	bool off;                /* shut down */
	bn_time_us off_until_us; /* when it recovers */
	bn_time_us over_since_us;/* BN_TIME_NEVER when not over the threshold */
};

int bn_charger_load(const char *path, struct bn_charger *out, struct bn_err *err);

/* Charger output voltage at current i_a, from the curve (linear between
 * points; i below the first point uses the first point's voltage; past the
 * last point: 0). */
double bn_charger_v_out(const struct bn_charger *c, double i_a);

/* VBUS at the device's receptacle when the total draw is i_a: output less
 * the cable's drop; 0 if the charger cannot deliver i_a or is off. */
double bn_charger_vbus(const struct bn_charger *c, const struct bn_charger_state *s,
		       double i_a);
/* The largest current the charger can deliver with the receptacle at or
 * above v_min (used by tests to find the knee for a device threshold). */
double bn_charger_i_at_v(const struct bn_charger *c, double v_min);

/* One piece of the charger as a current source into the receptacle's
 * node: for v_lo <= v <= v_hi it delivers (g_v - v) / s_ohm, or i_a
 * whatever the voltage when s_ohm is infinite (above the open-circuit
 * voltage: nothing, the charger cannot sink; below the last point: the
 * last point's current, its limit). r_out_ohm is the charger's own output
 * resistance on the piece, the cable's excluded (INFINITY for a current). */
struct bn_charger_piece {
	double v_lo, v_hi;
	double g_v, s_ohm, i_a;
	double r_out_ohm;
};

/* A piece's receptacle resistance never drops below this: an ideal
 * (flat) curve behind a 0 ohm cable still charges a capacitance through
 * something. */
#define BN_CHARGER_MIN_S_OHM 1e-3

/* The piece holding receptacle voltage v; at a boundary, the piece below
 * it when dir < 0, else the piece above. */
void bn_charger_piece_at(const struct bn_charger *c, double v, int dir,
			 struct bn_charger_piece *p);
/* The current the charger delivers into the receptacle at voltage v. */
double bn_charger_i_src(const struct bn_charger *c, double v);
/* BN_OK when the receptacle voltage does not rise with the current
 * anywhere on the curve; else BN_ERR_DATA naming the two points. */
int bn_charger_check_falling(const struct bn_charger *c, struct bn_err *err);

void bn_charger_state_init(struct bn_charger_state *s);
/* Advance the shutdown rule to time now, given the current drawn since the
 * last call. Returns true if the on/off state changed. */
bool bn_charger_update(const struct bn_charger *c, struct bn_charger_state *s,
		       bn_time_us now, double i_a);
/* The next time bn_charger_update may change state (shutdown firing or
 * recovery), BN_TIME_NEVER if none. */
bn_time_us bn_charger_next_event(const struct bn_charger *c,
				 const struct bn_charger_state *s, double i_a);

#endif
