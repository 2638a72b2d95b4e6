/* The engine's noise estimate of a channel of unknown accuracy (engine.c,
 * est_finish): the steps from each sample to the next, counted in a log
 * histogram (logbin.h). Here so the counts come out the same whoever
 * takes them: the engine as the samples come, or a replay's reading
 * thread ahead of it (bn_checks_estimate_outside), so that judging does
 * not pay for them. */
#ifndef BN_CHECKS_ESTIMATE_H
#define BN_CHECKS_ESTIMATE_H

#include <math.h>

#include "checks/logbin.h"
#include "core/channel.h"

struct bn_est {
	long zero[BN_CH_COUNT], n[BN_CH_COUNT];
	long bin[BN_CH_COUNT][BN_LOGBIN_BINS];
};

/* n steps of d on channel ch; a NaN step counts for nothing. */
static inline void bn_est_add(struct bn_est *e, const struct bn_logbin *lb, int ch, double d, long n)
{
	double a = fabs(d);

	if (isnan(a))
		return;
	e->n[ch] += n;
	if (a == 0) {
		e->zero[ch] += n;
		return;
	}
	e->bin[ch][bn_logbin_of(lb, a)] += n;
}

/* n samples equal to the one before, bit for bit: the engine holds them
 * back (bn_checks_sample) and counts a zero step on each channel, a NaN
 * channel's too. */
static inline void bn_est_repeat(struct bn_est *e, unsigned chans, long n)
{
	for (int ch = 0; ch < BN_CH_COUNT; ch++)
		if (chans & (1u << ch)) {
			e->n[ch] += n;
			e->zero[ch] += n;
		}
}

static inline void bn_est_merge(struct bn_est *into, const struct bn_est *from)
{
	for (int ch = 0; ch < BN_CH_COUNT; ch++) {
		into->zero[ch] += from->zero[ch];
		into->n[ch] += from->n[ch];
		for (int b = 0; b < BN_LOGBIN_BINS; b++)
			into->bin[ch][b] += from->bin[ch][b];
	}
}

#endif
