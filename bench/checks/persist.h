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
 * changed and when. bn_persist_run takes a run with all its times and
 * says at which sample the change came, for a rule whose hold() must
 * treat the samples before it in the old state and the rest in the new.
 * Memory: O(1). */
#ifndef BN_CHECKS_PERSIST_H
#define BN_CHECKS_PERSIST_H

#include <stdbool.h>

#include "checks/hold.h"
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

/* bn_persist_feed() over a run of n equal samples at t[0..n-1], as n
 * calls of one sample each: the index of the sample that confirmed a
 * change (*t_change: the change's first sample), n if none. */
static inline long bn_persist_run(struct bn_persist *p, bool raw, const bn_time_us *t, long n,
				  bn_time_us *t_change)
{
	long need, k;

	if (raw == p->state) {
		p->pending = false;
		return n;
	}
	if (!p->pending) {
		p->pending = true;
		p->t_first = t[0];
		p->n = 0;
	}
	/* sample k confirms once p->n + k + 1 >= min_n and it is hold_us on */
	need = p->min_n - p->n - 1;
	k = bn_first_at(t, need > 0 ? need : 0, n, p->t_first + p->hold_us);
	if (k >= n) {
		p->n += n;
		return n;
	}
	p->state = raw;
	p->pending = false;
	*t_change = p->t_first;
	return k;
}

/* A change still pending when the data ends: it never held long enough. */
static inline bool bn_persist_pending(const struct bn_persist *p)
{
	return p->pending;
}

#endif
