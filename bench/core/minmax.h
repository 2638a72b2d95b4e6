/* core/minmax.h: fmin and fmax as inline comparisons.
 *
 * gcc keeps fmin/fmax as calls into libm (their NaN rule needs more than
 * one instruction without -ffast-math), and the per-sample trackers call
 * them millions of times a run. These give the same result as glibc's
 * x86-64 fmin/fmax for every input, NaN included (a NaN argument yields
 * the other; two NaNs a NaN; of two equal values, -0 and +0 among them,
 * the second, as its minsd/maxsd does), but for a signaling NaN, which no
 * arithmetic makes (libm answers a NaN; these, the other value);
 * tests/unit/test_minmax.c compares
 * them bit for bit with libm's on edge and random inputs. */
#ifndef BN_CORE_MINMAX_H
#define BN_CORE_MINMAX_H

static inline double bn_fmin(double a, double b)
{
	/* b == b: b is not a NaN; a NaN a makes a < b false */
	return a < b ? a : b == b ? b : a;
}

static inline double bn_fmax(double a, double b)
{
	return a > b ? a : b == b ? b : a;
}

#endif
