/* The bin of a step in the engine's noise estimate (engine.c): 16 bins a
 * decade from 1e-9, i.e. floor((log10(a) + 9) * 16), clamped to 0..191,
 * without a log10 per sample. The bins' lower edges are found once, by
 * that same formula, so the bin is the formula's to the last bit; a value
 * within a hair of an edge, and anything outside 1e-9..1e3, takes the
 * formula itself. */
#ifndef BN_CHECKS_LOGBIN_H
#define BN_CHECKS_LOGBIN_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define BN_LOGBIN_BINS 192
#define BN_LOGBIN_LO_EXP (-9)
#define BN_LOGBIN_PER_DECADE 16
/* 1e-9 .. 1e3 lie in the binary octaves 2^-30 .. 2^10 (biased exponents
 * 993 .. 1032), each cut in 256 slices by its top 8 mantissa bits: a
 * slice (0.4 %) is far narrower than a bin (15 %), so it holds one edge
 * at most, and a slice's bin and one compare give the bin. */
#define BN_LOGBIN_EXP_LO 993
#define BN_LOGBIN_SLICES (40 * 256)

struct bn_logbin {
	bool ok;                             /* the edges were found: else the formula always */
	double edge[BN_LOGBIN_BINS + 1];     /* edge[b]: the least a in bin >= b (1 <= b < BINS) */
	/* bin b's bands next to its edges, BN_LOGBIN_NEAR wide, where the
	 * formula decides: a < near_lo[b] or a > near_hi[b] */
	double near_lo[BN_LOGBIN_BINS], near_hi[BN_LOGBIN_BINS];
	/* the bin of a slice's least value, with BN_LOGBIN_WHOLE when the
	 * whole slice lies in that bin, clear of its edges' bands: most do
	 * (a bin spans some 40 slices), and need no compare */
	uint16_t slice[BN_LOGBIN_SLICES];
};

#define BN_LOGBIN_WHOLE 0x100

/* The formula: the bin of a > 0 (NaN: not called). */
int bn_logbin_formula(double a);

void bn_logbin_init(struct bn_logbin *lb);

/* Relative distance to an edge inside which the formula decides: far
 * above log10's error (a few ulps), far below a bin's width (15 %). */
#define BN_LOGBIN_NEAR 1e-12

/* The bin of a > 0, equal to bn_logbin_formula(a). Inline: the engine
 * asks once a sample a channel. */
static inline int bn_logbin_of(const struct bn_logbin *lb, double a)
{
	uint64_t bits;
	int b;

	if (!lb->ok || !(a >= 1e-9 && a < 1e3))
		return bn_logbin_formula(a);
	memcpy(&bits, &a, sizeof(bits));
	b = lb->slice[(int)((bits >> 44) & 0x7ffff) - (BN_LOGBIN_EXP_LO << 8)];
	if (b & BN_LOGBIN_WHOLE)
		return b & 0xff;
	b += a >= lb->edge[b + 1];
	/* near an edge log10's last bit decides: ask it */
	if (a < lb->near_lo[b] || a > lb->near_hi[b])
		return bn_logbin_formula(a);
	return b;
}

#endif
