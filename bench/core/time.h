/* Virtual time: integer microseconds since the start of a run. */
#ifndef BN_CORE_TIME_H
#define BN_CORE_TIME_H

#include <stdbool.h>
#include <stdint.h>

typedef int64_t bn_time_us;

#define BN_TIME_NEVER INT64_MAX
#define BN_US_PER_MS INT64_C(1000)
#define BN_US_PER_S INT64_C(1000000)

/* Real-time deadlines for instrument and device I/O, on the monotonic
 * clock in milliseconds (virtual time above is the simulator's). */
int64_t bn_deadline_ms(int timeout_ms);  /* now + timeout_ms (a negative one: now) */
int bn_ms_left(int64_t deadline_ms);     /* 0 once it has passed */
/* Seconds on CLOCK_MONOTONIC: wall time between two points of a process
 * (time-outs, watchdogs, progress, benchmarks), never the simulated time. */
double bn_mono_s(void);
/* Sleep us microseconds of CLOCK_MONOTONIC in full: a signal does not
 * shorten it (relay release times and settling waits are physics). */
void bn_sleep_us(int64_t us);

/* Seconds (double) to microseconds, rounded to nearest. */
bn_time_us bn_time_from_s(double s);
double bn_time_to_s(bn_time_us t);
double bn_time_to_ms(bn_time_us t);

/* The time of capture tick k at rate_hz: k / rate rounded to the nearest
 * microsecond (halves up). Exact in integers for a whole-Hz rate, so the
 * simulator, a capture device and a replay agree on every tick. */
bn_time_us bn_tick_time(int64_t k, double rate_hz);

/* The same for k, k+1, k+2, ... without a division per tick. */
struct bn_ticker {
	bool exact;
	int64_t q, r, dq, dr, den; /* exact: t = q, r the remainder over den */
	int64_t k;
	double rate_hz;
};

void bn_ticker_init(struct bn_ticker *tk, double rate_hz, int64_t k0);
/* The current tick's time, without stepping. */
static inline bn_time_us bn_ticker_peek(const struct bn_ticker *tk)
{
	return tk->exact ? tk->q : bn_tick_time(tk->k, tk->rate_hz);
}

/* The current tick's time, then step to the next tick. */
static inline bn_time_us bn_ticker_next(struct bn_ticker *tk)
{
	bn_time_us t;

	if (!tk->exact) {
		t = bn_tick_time(tk->k, tk->rate_hz);
		tk->k++;
		return t;
	}
	t = tk->q;
	tk->q += tk->dq;
	tk->r += tk->dr;
	if (tk->r >= tk->den) {
		tk->r -= tk->den;
		tk->q++;
	}
	tk->k++;
	return t;
}

#endif
