/* Capture tick times: the simulator, a capture device and a replay must
 * put tick k at the same microsecond. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>

#include "core/time.h"

static const double rates[] = { 1, 3, 7, 999, 1000, 5000, 10000, 44100, 1e6, 2.5, 1234.5 };

static void test_time__tick_is_rounded_k_over_rate(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++)
		for (int64_t k = 0; k < 200000; k++)
			assert_int_equal(bn_tick_time(k, rates[i]),
					 (bn_time_us)llround((double)k * 1e6 / rates[i]));
	/* Halves round up: 1 tick at 2 MHz is 0.5 us. */
	assert_int_equal(bn_tick_time(1, 2e6), 1);
	assert_int_equal(bn_tick_time(3, 2e6), 2);
}

static void test_time__ticker_matches_tick_time(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		static const int64_t starts[] = { 0, 1, 12345, INT64_C(9000000000) };

		for (size_t s = 0; s < sizeof(starts) / sizeof(starts[0]); s++) {
			struct bn_ticker tk;

			bn_ticker_init(&tk, rates[i], starts[s]);
			for (int64_t k = starts[s]; k < starts[s] + 100000; k++)
				assert_int_equal(bn_ticker_next(&tk), bn_tick_time(k, rates[i]));
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_time__tick_is_rounded_k_over_rate),
		cmocka_unit_test(test_time__ticker_matches_tick_time),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
