/* bcbench curve sweep: step a constant-current load through a charger
 * and read VBUS and the load's current at each step, through the
 * instrument ops (hil/backend.h), so the same code drives the simulated
 * bench (the "sim" load on a world) and a real one (an SCPI load, the
 * FTDI fixture). Time passes through a clock the caller gives: virtual
 * on the simulated bench, the wall clock on a real one.
 *
 * Per step: the hard limits (hil/guard.h) with the last VBUS, the
 * setpoint, dwell; readings every poll, those after settle averaged.
 * It stops at --to, on a collapse (VBUS below VBUS valid: the charger
 * folded back or shut down), or below the floor. After a collapse the
 * load is held for settle (its last reading is where a fold-back sits at
 * that current, once an output capacitance has let go), then released
 * and VBUS watched up to recover_wait: back at once is a fold-back,
 * still off after settle is a shutdown, and the time from the collapse
 * to its return is its recovery. The bench ends in its safe state
 * (load, supply, fixture) whatever happens. */
#ifndef BN_CURVE_SWEEP_H
#define BN_CURVE_SWEEP_H

#include <signal.h>
#include <stdbool.h>

#include "core/err.h"
#include "core/meas.h"
#include "core/time.h"
#include "hil/backend.h"
#include "hil/guard.h"

/* Readings per step are averaged; steps are at most this many. */
#define BN_SWEEP_MAX_STEPS 1000

struct bn_sweep_cfg {
	double from_a, step_a, to_a;
	bn_time_us dwell_us, settle_us, poll_us;
	double floor_v;            /* stop below it; 0: no floor */
	double valid_v;            /* VBUS valid: below it the output collapsed */
	bn_time_us cool_us;        /* at 0 A at the end */
	bn_time_us cool_between_us;/* at 0 A between steps; 0: none */
	bn_time_us recover_wait_us;/* the longest the recovery probe watches */
	const char *port_type;     /* the fixture's network ("dcp", "cdp", "sdp") */
	const struct bn_guard *guard;
	/* read the supply's voltage as a second sense point (the charger's
	 * side of the cable) beside the load's (the receptacle's) */
	bool sense2;
	volatile sig_atomic_t *stop; /* set by a signal handler: stop, safe; may be NULL */
	/* the stated accuracy of the load's VBUS and current readings
	 * (core/meas.h), added to each point's u; NULL: stated nowhere
	 * (u is then the readings' scatter alone, type A) */
	const struct bn_meas *meas_v, *meas_i;
};

/* How time passes: wait dur (virtual time runs, or the process sleeps),
 * and now. */
struct bn_sweep_clock {
	void *user;
	int (*wait)(void *user, bn_time_us dur, struct bn_err *err);
	bn_time_us (*now)(void *user);
};

struct bn_sweep_bench {
	struct bn_fixture *fx;     /* may have NULL ops entries; fx itself may be NULL */
	struct bn_load *ld;
	struct bn_supply *sp;      /* NULL: none (needed only for sense2) */
	struct bn_sweep_clock clock;
};

struct bn_sweep_point {
	double set_a;              /* the setpoint */
	double i_a, v_v;           /* means over the dwell after settle */
	double u_i_a, u_v_v;       /* their standard uncertainties: type A, and the
				    * stated accuracy when cfg gives it */
	double v_src_v;            /* the second sense point's mean; NAN without */
	int n;                     /* readings averaged */
	double t_s;                /* the step's start since the sweep's */
};

struct bn_sweep_result {
	struct bn_sweep_point *pts;
	int n, cap;
	bool complete;             /* ended as the settings say, not cut short */
	char end[BN_ERR_MSG_LEN + 160]; /* how it ended, or why it was cut short */
	int cut_code;              /* cut short: the error code (BN_ERR_*) */
	bool safe_confirmed;       /* every instrument answered its safe state */
	bool collapsed;
	double collapse_a;         /* the setpoint at which VBUS collapsed */
	double collapse_v;         /* the reading that saw it (below valid) */
	double collapse_after_s;   /* from that step's start to the collapse seen */
	bool shutdown;             /* stayed off after the release */
	double shutdown_above_a;   /* the last setpoint it held */
	bool recovered;
	double recover_s;          /* collapse to VBUS valid again; NAN if not seen */
	double to_a;               /* the last setpoint asked for (after the caps) */
	char id_load[256], id_fixture[256], id_supply[256];
	char utc_start[32], utc_end[32];
};

/* Run the sweep; res is filled whatever happens (free with
 * bn_sweep_result_free). BN_OK when it ran as set (complete), else the
 * error that cut it short (err says why; res->complete false, res->end
 * too): the bench is in its safe state in both cases, or err says it is
 * not confirmed. */
int bn_sweep_run(const struct bn_sweep_cfg *cfg, struct bn_sweep_bench *b,
		 struct bn_sweep_result *res, struct bn_err *err);
void bn_sweep_result_free(struct bn_sweep_result *res);

/* Steps the settings ask for (from, from + step, ... up to to),
 * BN_ERR_ARG naming the option when they make no sweep. */
int bn_sweep_cfg_check(const struct bn_sweep_cfg *cfg, int *n_steps, struct bn_err *err);

#endif
