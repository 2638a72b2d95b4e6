/* checks/logbin.h: the noise estimate's bins without a log10 a sample. */
#include "checks/logbin.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

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
	int b = 0;

	memset(lb, 0, sizeof(*lb));
	lb->ok = true;
	lb->edge[0] = 0;
	for (int k = 1; k < BN_LOGBIN_BINS; k++) {
		lb->edge[k] = find_edge(k);
		if (!(lb->edge[k] > lb->edge[k - 1]))
			lb->ok = false;
	}
	lb->edge[BN_LOGBIN_BINS] = INFINITY;
	for (int k = 0; k < BN_LOGBIN_BINS; k++) {
		lb->near_lo[k] = lb->edge[k] * (1 + BN_LOGBIN_NEAR);
		lb->near_hi[k] = lb->edge[k + 1] * (1 - BN_LOGBIN_NEAR);
	}
	for (int i = 0; i < BN_LOGBIN_SLICES; i++) {
		uint64_t bits = ((uint64_t)(BN_LOGBIN_EXP_LO << 8) + (uint64_t)i) << 44;
		double lo;

		memcpy(&lo, &bits, sizeof(lo));
		while (b + 1 < BN_LOGBIN_BINS && lo >= lb->edge[b + 1])
			b++;
		lb->slice[i] = (uint16_t)b;
		{
			uint64_t nb = bits + (1ull << 44);
			double hi; /* the next slice's least value */

			memcpy(&hi, &nb, sizeof(hi));
			/* it must not pass two edges */
			if (i + 1 < BN_LOGBIN_SLICES && b + 2 < BN_LOGBIN_BINS && hi > lb->edge[b + 2])
				lb->ok = false;
			/* [lo, hi) inside [near_lo, near_hi]: no value of it is
			 * near an edge or past the next */
			if (lo >= lb->near_lo[b] && hi <= lb->near_hi[b])
				lb->slice[i] |= BN_LOGBIN_WHOLE;
		}
	}
}
