/* checks/logbin.h: the noise estimate's bins without a log10 a sample. */
#include "checks/logbin.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* Relative distance to an edge inside which the formula decides: far
 * above log10's error (a few ulps), far below a bin's width (15 %). */
#define LOGBIN_NEAR 1e-12
/* ulps walked from pow()'s guess to the formula's edge before giving up */
#define LOGBIN_WALK 256

int bn_logbin_formula(double a)
{
	int b = (int)floor((log10(a) - BN_LOGBIN_LO_EXP) * BN_LOGBIN_PER_DECADE);

	return b < 0 ? 0 : b >= BN_LOGBIN_BINS ? BN_LOGBIN_BINS - 1 : b;
}

/* The least double x with formula(x) >= b, walking from pow()'s guess;
 * 0 when the walk does not end (then the table is not used). */
static double find_edge(int b)
{
	double x = pow(10.0, BN_LOGBIN_LO_EXP + (double)b / BN_LOGBIN_PER_DECADE);
	int i;

	for (i = 0; i < LOGBIN_WALK && bn_logbin_formula(x) < b; i++)
		x = nextafter(x, INFINITY);
	for (; i < LOGBIN_WALK && bn_logbin_formula(nextafter(x, 0)) >= b; i++)
		x = nextafter(x, 0);
	return i < LOGBIN_WALK ? x : 0;
}

void bn_logbin_init(struct bn_logbin *lb)
{
	memset(lb, 0, sizeof(*lb));
	lb->ok = true;
	lb->edge[0] = 0;
	for (int b = 1; b < BN_LOGBIN_BINS; b++) {
		lb->edge[b] = find_edge(b);
		if (!(lb->edge[b] > lb->edge[b - 1]))
			lb->ok = false;
	}
	lb->edge[BN_LOGBIN_BINS] = INFINITY;
	for (int e = BN_LOGBIN_E_LO; e <= BN_LOGBIN_E_HI; e++) {
		double x = ldexp(0.5, e); /* frexp's mantissa is in [0.5, 1) */
		int b = x < 1e-9 ? 0 : bn_logbin_formula(x);

		lb->first[e - BN_LOGBIN_E_LO] = (short)b;
	}
}

int bn_logbin_of(const struct bn_logbin *lb, double a)
{
	int e, b;

	if (!lb->ok || !(a >= 1e-9 && a < 1e3))
		return bn_logbin_formula(a);
	{
		uint64_t bits;

		memcpy(&bits, &a, sizeof(bits));
		e = (int)((bits >> 52) & 0x7ff) - 1022; /* frexp's, for a normal a */
	}
	/* 2^(e-1) <= a < 2^e: an octave spans under 5 bins */
	b = lb->first[e - BN_LOGBIN_E_LO];
	while (a >= lb->edge[b + 1])
		b++;
	if (fabs(a - lb->edge[b]) <= LOGBIN_NEAR * a || fabs(lb->edge[b + 1] - a) <= LOGBIN_NEAR * a)
		return bn_logbin_formula(a);
	return b;
}
