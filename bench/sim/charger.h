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
 * "above" for longer than "after" turns the output off for "recover".
 *
 * Version 2 (schema "bcbench-charger/2"; a file without "schema" is v1 and
 * may use every key below too), all optional:
 *   "compliant": true|false       meant to pass every port rule
 *   "breaks": ["bc12.port.X"]     the port rules a faulty one is meant to fail
 *   "measured": {...}             written by curve sweep/import; kept, never
 *                                 judged (bn_charger_load_measured re-reads it)
 *   "transient": {"r": "0.8ohm", "tau": "15ms"}   a slow regulation loop: a
 *                                 load change dI moves the output by -r*dI,
 *                                 relaxing with tau
 *   "power_up": {"peak": "6.3V", "tau": "2ms"}    the output starts at peak
 *                                 when it turns on and relaxes with tau
 *   "schedule": [{"from": "30s", "curve": [[A, V], ...]}, ...]  the curve in
 *                                 force from that time after the output
 *                                 turned on ("curve" before the first)
 *   "vbus_t": {"samples": [[t_s, v_V, i_A], ...] | "file": "NAME.csv",
 *              "r_out": "0.15ohm", "repeat": false}  a captured receptacle
 *                                 VBUS while i flowed (i optional: 0); a draw
 *                                 I at t sees v(t) - r_out*(I - i(t)); after
 *                                 the series (unless repeat) the static
 *                                 curve applies. The CSV beside the profile
 *                                 has a header line "t_s,v_V[,i_A]". */
#ifndef BN_SIM_CHARGER_H
#define BN_SIM_CHARGER_H

#include <cjson/cJSON.h>
#include <stdbool.h>

#include "core/err.h"
#include "core/time.h"

#define BN_CHARGER_MAX_POINTS 32
#define BN_CHARGER_MAX_BREAKS 12
#define BN_CHARGER_MAX_PHASES 8
/* A captured series is decimated to this many samples (each one is a
 * point where the world replans: the bound on its events per series). */
#define BN_CHARGER_MAX_VBUS_T 4096
#define BN_CHARGER_SCHEMA "bcbench-charger/2"

/* One entry of "schedule": the curve in force from from_us after the
 * output turned on. */
struct bn_charger_phase {
	bn_time_us from_us;
	int n_points;
	double i_a[BN_CHARGER_MAX_POINTS];
	double v_v[BN_CHARGER_MAX_POINTS];
};

struct bn_charger_vbus_t {
	int n;                   /* 0 = none */
	double t_s[BN_CHARGER_MAX_VBUS_T];  /* ascending, from the output turning on */
	double v_v[BN_CHARGER_MAX_VBUS_T];  /* receptacle VBUS */
	double i_a[BN_CHARGER_MAX_VBUS_T];  /* the draw it was captured at */
	bool has_i;              /* the source gave a current column */
	double r_out_ohm;
	bool repeat;
	char file[128];          /* the CSV the profile named, "" = inline samples */
};

struct bn_charger {
	char name[64];
	char path[256];
	char description[1024];
	int compliant;           /* -1 not stated, 0, 1 */
	int n_breaks;
	char breaks[BN_CHARGER_MAX_BREAKS][48];
	bool has_measured;       /* the file carries "measured" */
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
	bool has_transient;
	double transient_r_ohm;
	double transient_tau_s;
	bool has_power_up;
	double power_up_peak_v;
	double power_up_tau_s;
	int n_phases;
	struct bn_charger_phase phases[BN_CHARGER_MAX_PHASES];
	struct bn_charger_vbus_t vbus_t;
};

struct bn_charger_state {
	bool off;                /* shut down */
	bn_time_us off_until_us; /* when it recovers */
	bn_time_us over_since_us;/* BN_TIME_NEVER when not over the threshold */
	/* time behaviour (charger_time.c) */
	bn_time_us on_since_us;  /* the output turned on; BN_TIME_NEVER while off */
	bn_time_us offset_t_us;  /* offset_v is the regulation loop's offset then */
	double offset_v;
	double offset_tau_s;     /* it relaxes with this */
	double i_last_a;         /* the draw the loop last saw */
};

/* v1 and v2 files. compliant is -1 when the file does not state it. */
int bn_charger_load(const char *path, struct bn_charger *out, struct bn_err *err);
/* The same, with the SHA-256 (hex) of the bytes parsed (NULL: none): the
 * file is read once for both the profile and its record. */
int bn_charger_load_sha(const char *path, struct bn_charger *out, char sha256[65], struct bn_err *err);
/* The file's "measured" object, a copy the caller frees with cJSON_Delete
 * (*out NULL when the file has none): the struct keeps only that it is
 * there, so a charger stays a plain value that copies. */
int bn_charger_load_measured(const char *path, cJSON **out, struct bn_err *err);
/* Write c as a bcbench-charger/2 profile at path, atomically (core/file.h),
 * with measured (may be NULL) as its "measured" object; quantities carry
 * their units as the shipped v1 files write them, each exact to the bit,
 * so bn_charger_load reads back the same struct (path aside). A series
 * that came from a CSV file is written to that name beside path, also
 * atomically; inline samples stay inline. */
int bn_charger_write(const char *path, const struct bn_charger *c, const cJSON *measured,
		     struct bn_err *err);

/* A curve's voltage at i_a (as bn_charger_v_out, for any [A, V] arrays). */
double bn_charger_curve_v(const double *i_pts, const double *v_pts, int n, double i_a);
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

/* For the charger's own files (loader, writer, time behaviour): one
 * "curve" array into i_a/v_v (what names the object in messages), and
 * the v2 time keys (transient, power_up, schedule, vbus_t). */
int bn_charger_parse_curve(const cJSON *curve, double *i_a, double *v_v, int *n_out,
			   const char *what, struct bn_err *err);
/* The CSV file name (as the profile wrote it) joined to the profile's
 * directory. */
int bn_charger_vbus_t_csv_path(const char *profile, const char *name, char *buf, size_t len,
			       struct bn_err *err);
int bn_charger_parse_time(const cJSON *root, struct bn_charger *c, const char *path,
			  struct bn_err *err);

void bn_charger_state_init(struct bn_charger_state *s);
/* Advance the shutdown rule to time now, given the current drawn since the
 * last call. Returns true if the on/off state changed. */
bool bn_charger_update(const struct bn_charger *c, struct bn_charger_state *s,
		       bn_time_us now, double i_a);
/* The next time bn_charger_update may change state (shutdown firing or
 * recovery), BN_TIME_NEVER if none. */
bn_time_us bn_charger_next_event(const struct bn_charger *c,
				 const struct bn_charger_state *s, double i_a);

/* ---- time behaviour (charger_time.c) ----
 * Time runs from the output turning on (bn_charger_output). A series
 * (vbus_t) in force replaces the curve and holds the charger's own
 * dynamics: transient and power_up act only outside it. transient and
 * power_up share one offset of the whole curve, relaxing exponentially
 * with one time constant: a load change during the power-up overshoot
 * carries what is left of it on with the transient's tau. An offset
 * within BN_CHARGER_SETTLE_V of 0 is 0 (settled). */
#define BN_CHARGER_SETTLE_V 1e-6

/* The profile has time behaviour (transient, power_up, schedule, vbus_t):
 * without it none of the functions below change anything. */
bool bn_charger_timed(const struct bn_charger *c);
/* The output is on (the bench applies it and it is not shut down) at t:
 * turning on starts the clock and the power-up overshoot. */
void bn_charger_output(const struct bn_charger *c, struct bn_charger_state *s, bool on,
		       bn_time_us t);
/* The regulation loop's offset at t if the draw is i_a (its step from the
 * draw it last saw included). */
double bn_charger_offset_v(const struct bn_charger *c, const struct bn_charger_state *s,
			   bn_time_us t, double i_a);
/* The draw is i_a from t on: the loop takes its step. */
void bn_charger_draw(const struct bn_charger *c, struct bn_charger_state *s, bn_time_us t,
		     double i_a);
/* Receptacle VBUS at t for a total draw i_a, everything included (the
 * curve in force or the series, the offset, shutdown): the static model. */
double bn_charger_vbus_at(const struct bn_charger *c, const struct bn_charger_state *s,
			  bn_time_us t, double i_a);
/* dVBUS/dt at t at a constant draw i_a where the series is in force
 * (linear between its samples), else 0. */
double bn_charger_vbus_slope(const struct bn_charger *c, const struct bn_charger_state *s,
			     bn_time_us t, double i_a);
/* The next time after t the curve changes: a schedule boundary, a series
 * sample (or its end); with held, also the next step of an offset that a
 * caller holds constant between replans (a tenth of its time constant).
 * BN_TIME_NEVER if none. */
bn_time_us bn_charger_next_change(const struct bn_charger *c, const struct bn_charger_state *s,
				  bn_time_us t, bool held);
/* eff's curve (n_points, i_a, v_v; nothing else) := the charger's output
 * curve in force at t: a schedule entry, the base curve, or the series as
 * a line (v(t) + r_out i(t) less (r_out - cable) per ampere, up to the
 * curve's last current). The offset is not in it. */
void bn_charger_curve_now(const struct bn_charger *c, const struct bn_charger_state *s,
			  bn_time_us t, struct bn_charger *eff);

#endif
