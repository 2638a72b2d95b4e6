#include "core/time.h"

#include <errno.h>
#include <math.h>
#include <time.h>

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

double bn_mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int64_t bn_deadline_ms(int timeout_ms)
{
	return mono_ms() + (timeout_ms > 0 ? timeout_ms : 0);
}

int bn_ms_left(int64_t deadline_ms)
{
	int64_t d = deadline_ms - mono_ms();

	return d <= 0 ? 0 : d > INT32_MAX ? INT32_MAX : (int)d;
}

void bn_sleep_us(int64_t us)
{
	struct timespec ts = { .tv_sec = (time_t)(us / 1000000), .tv_nsec = (long)(us % 1000000) * 1000L };

	while (us > 0 && clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
		;
}

bn_time_us bn_time_from_s(double s)
{
	return (bn_time_us)llround(s * 1e6);
}

double bn_time_to_s(bn_time_us t)
{
	return (double)t / 1e6;
}

double bn_time_to_ms(bn_time_us t)
{
	return (double)t / 1e3;
}

static bool whole_hz(double rate_hz)
{
	return rate_hz >= 1.0 && rate_hz <= 2e9 && rate_hz == floor(rate_hz);
}

bn_time_us bn_tick_time(int64_t k, double rate_hz)
{
	if (whole_hz(rate_hz) && k >= 0 && k < INT64_C(4000000000000)) {
		int64_t r = (int64_t)rate_hz;

		return (2 * BN_US_PER_S * k + r) / (2 * r);
	}
	return (bn_time_us)llround((double)k * 1e6 / rate_hz);
}

void bn_ticker_init(struct bn_ticker *tk, double rate_hz, int64_t k0)
{
	tk->k = k0;
	tk->rate_hz = rate_hz;
	tk->exact = whole_hz(rate_hz) && k0 >= 0;
	if (tk->exact) {
		int64_t r = (int64_t)rate_hz, num = 2 * BN_US_PER_S * k0 + r;

		tk->den = 2 * r;
		tk->q = num / tk->den;
		tk->r = num % tk->den;
		tk->dq = 2 * BN_US_PER_S / tk->den;
		tk->dr = 2 * BN_US_PER_S % tk->den;
	}
}
