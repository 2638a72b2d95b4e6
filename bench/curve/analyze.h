/* What a charger's V-I readings say, as pure functions over (I, V, t)
 * points: shared by `curve sweep` (its polls) and anything else that
 * holds such readings. No instrument, no file, no global. */
#ifndef BN_CURVE_ANALYZE_H
#define BN_CURVE_ANALYZE_H

#include <stdbool.h>

#include "core/err.h"

/* One reading: the load's current, VBUS, and when (s, any origin). */
struct bn_curve_pt {
	double i_a, v_v, t_s;
};

/* The mean of n readings and the standard uncertainty of each mean
 * (type A: s / sqrt(n); 0 for n == 1, since one reading says nothing
 * about its scatter). BN_ERR_ARG when n < 1. */
int bn_curve_mean(const struct bn_curve_pt *p, int n, double *i_a, double *v_v, double *u_i_a,
		  double *u_v_v, struct bn_err *err);

/* The knee: the largest current whose VBUS is at or above v_min, from
 * points with ascending current. Between the last point at or above
 * v_min and the next one, linear, unless the next one is below
 * v_collapse (a collapse says nothing of the curve before it). NAN when
 * the first point is already below v_min; the last point's current when
 * none is below. */
double bn_curve_knee(const double *i_a, const double *v_v, int n, double v_min,
		     double v_collapse);

/* What the output did after it collapsed under load and the load was
 * released. */
struct bn_curve_shutdown {
	bool latched;     /* still below v_valid settle_s after the release: it shut down */
	bool recovered;   /* came back above v_valid within the readings */
	double recover_s; /* from the collapse to the first reading back above v_valid; NAN if not */
};
/* Readings after the release (ascending t), the collapse's and the
 * release's times, the time the output needs to follow a release
 * (settle_s), and the VBUS-valid level. A fold-back comes back at once;
 * a shutdown stays off. */
void bn_curve_shutdown(const struct bn_curve_pt *after, int n, double t_collapse_s,
		       double t_release_s, double settle_s, double v_valid,
		       struct bn_curve_shutdown *out);

/* The cable's round-trip resistance from two sense points at the same
 * currents: v_src at the charger's side, v_rx at the receptacle's. The
 * slope of (v_src - v_rx) against I by least squares, with an intercept
 * (the two meters' offset), and its standard uncertainty from the
 * residuals (NAN with fewer than 3 points). BN_ERR_DATA when fewer than
 * 2 distinct currents. */
int bn_curve_cable_ohm(const double *i_a, const double *v_src, const double *v_rx, int n,
		       double *r_ohm, double *u_ohm, struct bn_err *err);

/* Choose at most max_keep of n points (ascending current) that draw the
 * curve: both ends, then the point furthest (in V) from the line through
 * its kept neighbours, until max_keep or every point lies within tol_v.
 * keep[i] is set true for a kept point. Returns the count kept. */
int bn_curve_reduce(const double *i_a, const double *v_v, int n, int max_keep, double tol_v,
		    bool *keep);

#endif
