/* A programmable supply playing a charger profile, quasi-statically: each
 * step reads the supply's output current, asks the profile for the
 * voltage at that current (and time), and sets it. The supply holds its
 * last setpoint between steps, so what the bench reproduces is the
 * profile's voltage at the current drawn, up to one loop period late: an
 * edge faster than the period (a load step's undershoot, a regulation
 * loop's recovery, a power-up overshoot, a captured VBUS(t)'s ripple) is
 * not reproduced, only the curve it settles on. The supply's own current
 * limit (the profile's last delivering point) still acts at once.
 *
 * Every setpoint passes the bench's hard limits (hil/guard.h) before it
 * is sent; the highest voltage the profile's static curves can ask is
 * checked when the loop starts, so a profile beyond them is refused
 * before the supply is switched on, and a setpoint above it (a power-up
 * or release overshoot of a profile in time) is capped there and
 * counted. An instrument error is returned as it is: the caller puts
 * the bench in its safe state (a supply that stops answering ends the
 * run as a bench fault).
 *
 * The loop runs as fast as it is called and the instrument answers
 * (min_period_s bounds it), and counts what it achieved: steps per
 * second, the longest time between two steps (the edge it cannot follow),
 * the instrument operations per second. */
#ifndef BN_HIL_SUPPLY_FOLLOW_H
#define BN_HIL_SUPPLY_FOLLOW_H

#include <stdbool.h>
#include <stddef.h>

#include "core/err.h"
#include "hil/backend.h"
#include "hil/guard.h"
#include "sim/charger.h"

/* The profile: the voltage to set when i_a flows, t_s after the supply
 * turned on. Returns NAN when it has nothing to say (then the setpoint
 * stays). */
typedef double (*bn_follow_v_fn)(void *user, double t_s, double i_a);

/* A setpoint within this of the last is not sent again (an SCPI supply
 * sets in 1 mV steps at 5 V). */
#define BN_FOLLOW_DEADBAND_V 0.001

struct bn_follow_opts {
	bn_follow_v_fn v_at;
	void *user;
	double ilim_a;        /* the supply's current limit; 0: leave it */
	double v_max_v;       /* the highest voltage v_at can ask (guarded at start) */
	double min_period_s;  /* no step sooner than this after the last; 0: none */
	double deadband_v;    /* 0: BN_FOLLOW_DEADBAND_V */
};

struct bn_follow {
	struct bn_supply *sp;
	const struct bn_guard *g;
	struct bn_follow_opts o;
	bool on;
	double v_set_v;       /* the setpoint the supply holds */
	double v_meas_v, i_meas_a; /* the last reading */
	/* what the loop achieved, in wall time */
	double wall_start_s, wall_prev_s;
	long steps, readings, sets;
	double max_period_s;  /* the longest time between two steps' readings */
	double max_cycle_s;   /* the slowest step (reading and setting) */
	double sum_cycle_s;
	double max_jump_v;    /* the largest setpoint change of one step */
	long capped;          /* setpoints the profile asked above v_max_v, set to it */
};

struct bn_follow_stats {
	long steps, sets;
	double dur_s;          /* wall time from the start to the last step */
	double loop_hz;        /* steps per second */
	double ops_hz;         /* readings and setpoints per second through the link */
	double max_period_s;   /* the longest time the supply held a setpoint unchecked */
	double mean_cycle_s, max_cycle_s;
	double max_jump_v;
	long capped;           /* steps whose voltage was capped at the profile's static maximum */
	double v_max_v;
};

/* Set the supply to the profile's voltage at no current (t = 0), its
 * current limit, switch it on; the loop starts. BN_ERR_ARG when the
 * profile's highest voltage (o->v_max_v, and with o->ilim_a the power)
 * is beyond g: nothing is sent then. */
int bn_follow_start(struct bn_follow *f, struct bn_supply *sp, const struct bn_guard *g,
		    const struct bn_follow_opts *o, struct bn_err *err);
/* Whether a step is due now (min_period_s after the last). */
bool bn_follow_due(const struct bn_follow *f);
/* One step at t_s after the start: read, then set when the profile's
 * voltage at the current read moved by more than the deadband. */
int bn_follow_step(struct bn_follow *f, double t_s, struct bn_err *err);
void bn_follow_stats(const struct bn_follow *f, struct bn_follow_stats *s);
/* One sentence for the report (under 240 bytes): the rate achieved and
 * what it cannot reproduce ("48.2 steps/s (...): the curve's voltage at
 * the current read, up to 31 ms late; edges faster than that ... are not
 * reproduced"). */
void bn_follow_describe(const struct bn_follow_stats *s, char *buf, size_t len);

/* A charger profile as the loop's profile: the voltage at the device's
 * receptacle for the draw (the curve less the cable), its shutdown rule
 * played at the loop's pace, and with time behaviour (sim/charger.h:
 * transient, power_up, schedule, vbus_t) the receptacle voltage at t
 * since the supply turned on, the regulation loop stepping at each of
 * the loop's readings. user: a struct bn_follow_charger. */
struct bn_follow_charger {
	const struct bn_charger *c;
	struct bn_charger_state st;
	bool started;
};
void bn_follow_charger_init(struct bn_follow_charger *fc, const struct bn_charger *c);
double bn_follow_charger_v(void *user, double t_s, double i_a);
/* The highest voltage the profile's static curves (its own, its
 * schedule's, a captured series at no draw) give at the receptacle, and
 * the largest current where one stops delivering (the supply's limit). */
void bn_follow_charger_bounds(const struct bn_charger *c, double *v_max_v, double *ilim_a);

#endif
