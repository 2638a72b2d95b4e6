/* What the rules' hold() callbacks share: a sum that comes out the same
 * whether a run of equal values is added one sample at a time (sample())
 * or at once (hold()), and a search for a time inside a held run. */
#ifndef BN_CHECKS_HOLD_H
#define BN_CHECKS_HOLD_H

#include "core/time.h"

/* Each run of equal values is added as count x value, in both paths, so
 * the two give the same bits: a threshold on an average (a draw of exactly
 * ISUSP, a ramp step of exactly 64 mA) cannot flip on rounding. */
struct bn_rsum {
	double done; /* the runs before the current one */
	double v;
	long n;      /* samples in the current run */
};

static inline void bn_rsum_add(struct bn_rsum *r, double v, long n)
{
	if (r->n && v == r->v) {
		r->n += n;
		return;
	}
	if (r->n)
		r->done += (double)r->n * r->v;
	r->v = v;
	r->n = n;
}

static inline double bn_rsum_total(const struct bn_rsum *r)
{
	return r->n ? r->done + (double)r->n * r->v : r->done;
}

/* The first index in [lo, n) with t[idx] >= lim, n if none (t[] increases).
 * Galloping from lo: O(log) of the distance to it. */
static inline long bn_first_at(const bn_time_us *t, long lo, long n, bn_time_us lim)
{
	long step = 1, hi;

	if (lo >= n)
		return n;
	if (t[lo] >= lim)
		return lo;
	while (lo + step < n && t[lo + step] < lim) {
		lo += step;
		step *= 2;
	}
	/* t[lo] < lim, and hi == n or t[hi] >= lim */
	hi = lo + step < n ? lo + step : n;
	while (hi - lo > 1) {
		long mid = lo + (hi - lo) / 2;

		if (t[mid] < lim)
			lo = mid;
		else
			hi = mid;
	}
	return hi;
}

#endif
