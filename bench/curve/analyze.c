/* Pure functions over (I, V, t) readings: see analyze.h. */
#include "curve/analyze.h"

#include <math.h>
#include <string.h>

int bn_curve_mean(const struct bn_curve_pt *p, int n, double *i_a, double *v_v, double *u_i_a,
		  double *u_v_v, struct bn_err *err)
{
	double si = 0.0, sv = 0.0, qi = 0.0, qv = 0.0, mi, mv;

	if (n < 1)
		return bn_err_set(err, BN_ERR_ARG, "curve: no reading to average (expected at least 1)");
	for (int k = 0; k < n; k++) {
		si += p[k].i_a;
		sv += p[k].v_v;
	}
	mi = si / n;
	mv = sv / n;
	for (int k = 0; k < n; k++) {
		qi += (p[k].i_a - mi) * (p[k].i_a - mi);
		qv += (p[k].v_v - mv) * (p[k].v_v - mv);
	}
	*i_a = mi;
	*v_v = mv;
	*u_i_a = n > 1 ? sqrt(qi / (n - 1) / n) : 0.0;
	*u_v_v = n > 1 ? sqrt(qv / (n - 1) / n) : 0.0;
	return BN_OK;
}

double bn_curve_knee(const double *i_a, const double *v_v, int n, double v_min,
		     double v_collapse)
{
	int last = -1;

	for (int k = 0; k < n; k++) {
		if (v_v[k] < v_min)
			break;
		last = k;
	}
	if (last < 0)
		return NAN;
	if (last == n - 1 || v_v[last + 1] < v_collapse || v_v[last] == v_v[last + 1])
		return i_a[last];
	return i_a[last] + (i_a[last + 1] - i_a[last]) * (v_v[last] - v_min) /
				   (v_v[last] - v_v[last + 1]);
}

void bn_curve_shutdown(const struct bn_curve_pt *after, int n, double t_collapse_s,
		       double t_release_s, double settle_s, double v_valid,
		       struct bn_curve_shutdown *out)
{
	memset(out, 0, sizeof(*out));
	out->recover_s = NAN;
	for (int k = 0; k < n; k++) {
		if (after[k].t_s < t_release_s)
			continue;
		if (after[k].v_v >= v_valid) {
			out->recovered = true;
			out->recover_s = after[k].t_s - t_collapse_s;
			/* back before the output had time to follow: it folded back */
			out->latched = after[k].t_s - t_release_s > settle_s;
			return;
		}
	}
	/* never back: off for at least as long as we watched */
	out->latched = n > 0 && after[n - 1].t_s - t_release_s > settle_s;
}

int bn_curve_cable_ohm(const double *i_a, const double *v_src, const double *v_rx, int n,
		       double *r_ohm, double *u_ohm, struct bn_err *err)
{
	double mi = 0.0, md = 0.0, sxx = 0.0, sxy = 0.0, ss = 0.0, b, a;

	for (int k = 0; k < n; k++) {
		mi += i_a[k];
		md += v_src[k] - v_rx[k];
	}
	if (n < 2)
		return bn_err_set(err, BN_ERR_DATA, "curve: cable resistance needs readings at 2 "
				  "currents or more (got %d)", n);
	mi /= n;
	md /= n;
	for (int k = 0; k < n; k++) {
		sxx += (i_a[k] - mi) * (i_a[k] - mi);
		sxy += (i_a[k] - mi) * (v_src[k] - v_rx[k] - md);
	}
	if (!(sxx > 0.0))
		return bn_err_set(err, BN_ERR_DATA, "curve: cable resistance needs readings at 2 "
				  "distinct currents (all at %.4g A)", mi);
	b = sxy / sxx;
	a = md - b * mi;
	for (int k = 0; k < n; k++) {
		double r = v_src[k] - v_rx[k] - (a + b * i_a[k]);

		ss += r * r;
	}
	*r_ohm = b;
	*u_ohm = n > 2 ? sqrt(ss / (n - 2) / sxx) : NAN;
	return BN_OK;
}

/* Distance in V of point k from the line through points a and b. */
static double off_line(const double *i_a, const double *v_v, int a, int b, int k)
{
	double f = i_a[b] == i_a[a] ? 0.0 : (i_a[k] - i_a[a]) / (i_a[b] - i_a[a]);

	return fabs(v_v[k] - (v_v[a] + f * (v_v[b] - v_v[a])));
}

int bn_curve_reduce(const double *i_a, const double *v_v, int n, int max_keep, double tol_v,
		    bool *keep)
{
	int kept = 0;

	for (int k = 0; k < n; k++)
		keep[k] = false;
	if (n <= 0 || max_keep <= 0)
		return 0;
	keep[0] = true;
	kept = 1;
	if (n > 1 && max_keep > 1) {
		keep[n - 1] = true;
		kept = 2;
	}
	while (kept < max_keep) {
		int best = -1, a = 0;
		double worst = tol_v;

		for (int k = 1; k < n; k++) {
			if (keep[k]) {
				a = k;
				continue;
			}
			int b = k + 1;

			while (b < n && !keep[b])
				b++;
			if (b >= n)
				break;
			double d = off_line(i_a, v_v, a, b, k);

			if (d > worst) {
				worst = d;
				best = k;
			}
		}
		if (best < 0)
			break;
		keep[best] = true;
		kept++;
	}
	return kept;
}
