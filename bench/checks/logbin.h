/* The bin of a step in the engine's noise estimate (engine.c): 16 bins a
 * decade from 1e-9, i.e. floor((log10(a) + 9) * 16), clamped to 0..191,
 * without a log10 per sample. The bins' lower edges are found once, by
 * that same formula, so the bin is the formula's to the last bit; a value
 * within a hair of an edge, and anything outside 1e-9..1e3, takes the
 * formula itself. */
#ifndef BN_CHECKS_LOGBIN_H
#define BN_CHECKS_LOGBIN_H

#include <stdbool.h>

#define BN_LOGBIN_BINS 192
#define BN_LOGBIN_LO_EXP (-9)
#define BN_LOGBIN_PER_DECADE 16
/* binary exponents (frexp) of 1e-9 .. 1e3 */
#define BN_LOGBIN_E_LO (-30)
#define BN_LOGBIN_E_HI 11

struct bn_logbin {
	bool ok;                           /* the edges were found: else the formula always */
	double edge[BN_LOGBIN_BINS + 1];   /* edge[b]: the least a in bin >= b (1 <= b < BINS) */
	short first[BN_LOGBIN_E_HI - BN_LOGBIN_E_LO + 1]; /* the bin of 2^(e-1), by exponent */
};

/* The formula: the bin of a > 0 (NaN: not called). */
int bn_logbin_formula(double a);

void bn_logbin_init(struct bn_logbin *lb);

/* The bin of a > 0, equal to bn_logbin_formula(a). */
int bn_logbin_of(const struct bn_logbin *lb, double a);

#endif
