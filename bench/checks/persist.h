/* Levels judged with persistence. A capture from a real bench has noise,
 * so one sample outside a band says nothing: a condition changes only
 * once it has held for a stated time (and a stated number of samples),
 * and the change is then dated at its first sample, so a time measured
 * between two changes carries no bias from the persistence itself.
 * Every rule that compares a level with a band uses this, and states its
 * persistence in its result (bn_rule.persistence).
 *
 * Feed it every sample (or a run of n equal samples at once, with the
 * times of the run's first and last); it says when the debounced state
 * changed and when. Memory: O(1). */
#ifndef BN_CHECKS_PERSIST_H
#define BN_CHECKS_PERSIST_H

#include <stdbool.h>

#include "core/time.h"

/* The persistences the rules use (the times a level must hold). Long
 * enough that 3-sigma noise does not fake a change at the noise levels of
 * docs/uncertainty.md, short against every BC-1.2 time they bracket. */
#define BN_PERSIST_LEVEL_US 1000      /* a data-line or VBUS level: 1 ms */
#define BN_PERSIST_MIN_SAMPLES 3      /* and at least this many samples */

struct bn_persist {
	bn_time_us hold_us;
	long min_n;
	bool state;          /* the debounced condition */
	bool pending;        /* the raw condition differs from state */
	bn_time_us t_first;  /* first sample of the pending change */
	long n;              /* samples in the pending change */
};

static inline void bn_persist_init(struct bn_persist *p, bn_time_us hold_us, long min_n, bool state)
{
	p->hold_us = hold_us;
	p->min_n = min_n;
	p->state = state;
	p->pending = false;
	p->t_first = 0;
	p->n = 0;
}

/* The raw condition of n (>= 1) equal samples from t0 to t1 (t0 == t1
 * for one). True when the debounced state changed with them; *t_change
 * is then the time of the change's first sample. */
static inline bool bn_persist_feed(struct bn_persist *p, bool raw, bn_time_us t0, bn_time_us t1,
				   long n, bn_time_us *t_change)
{
	if (raw == p->state) {
		p->pending = false;
		return false;
	}
	if (!p->pending) {
		p->pending = true;
		p->t_first = t0;
		p->n = 0;
	}
	p->n += n;
	if (p->n >= p->min_n && t1 - p->t_first >= p->hold_us) {
		p->state = raw;
		p->pending = false;
		if (t_change)
			*t_change = p->t_first;
		return true;
	}
	return false;
}

/* A change still pending when the data ends: it never held long enough. */
static inline bool bn_persist_pending(const struct bn_persist *p)
{
	return p->pending;
}

#endif
