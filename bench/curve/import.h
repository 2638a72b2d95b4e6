/* bcbench curve import: a charger profile from a capture holding VBUS and
 * IBUS (this tool's capture.sr, or any sigrok file through a channel
 * map).
 *
 * The port's current is IBUS, plus the e-load's setpoints when the
 * capture's events.json has load events (the e-load sits on the port's
 * side of the IBUS sense). A sample is steady when that current has
 * stayed within +-tol (the larger of a quarter bin and 4 sigma of the
 * IBUS noise) for the settle time, and VBUS has moved no more than 5 mV
 * (or 3 sqrt 2 sigma of its noise) over it. Steady samples are binned over the
 * current; per bin: the mean current and VBUS, their count n, the
 * spread sd and the standard uncertainty of the mean u. A bin with fewer
 * than min_samples is left out. VBUS is made non-increasing in the
 * current by pool-adjacent-violators (weights n): a charger's output
 * does not rise with its load (--no-monotone for one that compensates
 * its cable). The capture measures at the receptacle: the curve is the
 * receptacle's, cable 0, unless a cable resistance is given (then the
 * charger's output is VBUS + R*I).
 *
 * Collapses: VBUS falling from at least VBUS valid (VOTG_SESS_VLD max)
 * to below VBUS_LKG max. One the bench did not cause (no vbus_off), with
 * current drawn before it, that came back while the e-load still drew
 * the same (no setpoint released) is a shutdown: the current before it,
 * how long that current was held, and the time to recovery. Its samples
 * are not the static curve's. Samples with no output and nothing drawn
 * (VBUS off) are nobody's.
 *
 * What the static curve does not explain: samples whose VBUS is off the
 * fit by more than factor * sd of the bin plus the series tolerance, for
 * at least 3 samples in a row. Their span, from VBUS on, becomes the
 * profile's vbus_t series, decimated by Ramer-Douglas-Peucker to the
 * series tolerance (on VBUS, and on the current) and bounded in size.
 *
 * Bad input (no VBUS or IBUS, too short, nothing steady) is BN_ERR_DATA
 * naming the file and what was missing. */
#ifndef BN_CURVE_IMPORT_H
#define BN_CURVE_IMPORT_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/err.h"
#include "core/meas.h"
#include "sim/charger.h"

struct cJSON;

/* Bins beyond this many are refused (bin too small for the range). */
#define BN_IMPORT_MAX_BINS 8192
/* A series this long or shorter goes inline in the profile, else in a
 * CSV file beside it (STEM.vbus_t.csv). */
#define BN_IMPORT_INLINE_MAX 2000
/* The series never has more points than this: the tolerance is doubled
 * until it fits (and the profile says which was used). */
#define BN_IMPORT_SERIES_MAX BN_CHARGER_MAX_VBUS_T
/* Samples held for the series before decimation; beyond, pairs are
 * averaged (the profile says so). */
#define BN_IMPORT_RAW_MAX 2000000L

struct bn_import_opts {
	const char *capture_path;
	const char *events_path;   /* NULL: none (the caller looks beside the capture) */
	const char *map;           /* channel map (core/chanmap.h); NULL: by name */
	const char *limits_path;   /* VCHG, VOTG_SESS_VLD, VBUS_LKG from here */
	const char *name;          /* the profile's name; NULL: the capture's stem */
	double bin_a;              /* 25 mA */
	int min_samples;           /* 20 */
	double settle_s;           /* 20 ms */
	double to_a;               /* coverage asked up to; 0: rated, else the largest seen */
	double rated_a;            /* 0: not stated */
	double cable_ohm;          /* NAN: not given (the curve is at the receptacle) */
	bool monotone;             /* true */
	double resid_factor;       /* 4 */
	double series_tol_v;       /* 5 mV (raised to 3 sigma of VBUS noise) */
	double series_tol_a;       /* 5 mA (raised to 3 sigma of IBUS noise) */
	int inline_max;            /* a longer series goes to a CSV file: BN_IMPORT_INLINE_MAX */
	/* --uncertainty vbus=SPEC: the VBUS instrument's accuracy (wins over
	 * the record's); its offset, gain and step enter each point's u. */
	bool vbus_meas_given;
	struct bn_meas vbus_meas;
	volatile const sig_atomic_t *stop_flag;
};

void bn_import_opts_default(struct bn_import_opts *o);

struct bn_import_point {
	double i_a, v_v;   /* the bin's mean current and VBUS */
	double i_lo_a, i_hi_a; /* the range of its steady currents */
	double v_fit_v;    /* after the monotone fit */
	double sd_v;       /* VBUS spread in the bin (one sample's) */
	double u_v;        /* standard uncertainty of v_v */
	long n;
};

struct bn_import_range {
	double from_a, to_a;
	bool reached;      /* the capture drew there, but too few steady samples */
};

struct bn_import_collapse {
	double t_s;        /* VBUS left valid, capture time */
	double before_a;   /* port current just before */
	double held_s;     /* how long that current was held before it (-1: unknown) */
	double recover_s;  /* back at VBUS valid after this; < 0: not in the capture */
	bool shutdown;
	char why[120];     /* what it was, when not a shutdown */
};

struct bn_import_series {
	long n;
	double *t_s, *v_v, *i_a;   /* t from VBUS on */
	double r_out_ohm;          /* the fit's local slope, -dV/dI, >= 0 */
	double tol_v, tol_a;       /* the decimation's tolerances, as used */
	double from_s, to_s;       /* capture time span */
	long unexplained;          /* samples off the fit */
	int averaged;              /* samples averaged per stored one (1: none) */
};

struct bn_import {
	char capture_sha256[65];
	char events_sha256[65];
	char chan_src[2][64];      /* file channel feeding VBUS, IBUS */
	double chan_gain[2];
	double shunt_ohm;          /* IBUS from a shunt; 0 */
	bool used_load;            /* port current includes e-load setpoints */
	int n_load_events;
	bool inst_known;           /* the record states the instruments' accuracy */
	double rate_hz;
	int64_t n_frames;
	double t_on_s;             /* VBUS on: the series' zero */
	double sigma_v, sigma_a;   /* noise estimates */
	double tol_a;              /* steady tolerance used */
	double settled_tol_v;      /* VBUS's movement over the settle time allowed */
	long n_steady;
	double vchg_min_v, vchg_max_v, v_valid_v, v_off_v;
	int n_points;
	struct bn_import_point *pt;
	int n_uncovered;
	struct bn_import_range *unc;
	double to_a, max_seen_a;
	/* Knee: bn_profile_knee of the profile written (curve/measured.h,
	 * the meaning curve sweep shares); reached false when the last
	 * covered point is still above VCHG min. It lies between knee_lo_a
	 * and knee_hi_a (the covered points around it). */
	double knee_a, knee_v, knee_lo_a, knee_hi_a;
	bool knee_reached;
	int n_collapses;
	struct bn_import_collapse *col;
	struct bn_import_series series;
	struct bn_charger ch;      /* curve (<= BN_CHARGER_MAX_POINTS), cable, rated,
				    * shutdown, vbus_t (the series) */
	double curve_dev_v;        /* the written curve's largest deviation from the fit */
};

int bn_curve_import(const struct bn_import_opts *o, struct bn_import *r, struct bn_err *err);
void bn_import_free(struct bn_import *r);

/* VBUS on the fit at current i_a (receptacle): a point's value over the
 * currents its bin held, linear between them, flat below the first; NAN
 * beyond the last (not covered). sd: the spread there (may be NULL). */
double bn_import_v_fit(const struct bn_import *r, double i_a, double *sd_v);

/* ---- the numerics (import_fit.c) ---- */

/* Pool-adjacent-violators: v made non-increasing, weighted by w (> 0),
 * in place. */
void bn_import_pava(double *v, const double *w, int n);
/* Ramer-Douglas-Peucker over x ascending: keep[] marks the points kept
 * (first and last always) so that every dropped point is within tol_k of
 * the chord between its kept neighbours on each of the nk value arrays
 * y[k]. Returns how many were kept, < 0 when out of memory. */
long bn_import_rdp(const double *x, const double *const *y, const double *tol, int nk, long n,
		   unsigned char *keep);

/* ---- the profile (import_json.c) ---- */

/* The "measured" block: provenance, settings, points, uncovered ranges,
 * knee, collapses. NULL when out of memory. */
struct cJSON *bn_import_measured(const struct bn_import *r, const struct bn_import_opts *o,
				 const char *utc);
/* Write the charger profile (bcbench-charger/2) to path with
 * bn_charger_write, atomically; a series longer than o->inline_max goes
 * beside it as STEM.vbus_t.csv (t_s,v_V,i_A). */
int bn_import_write(const char *path, const struct bn_import *r, const struct bn_import_opts *o,
		    struct bn_err *err);

#endif
