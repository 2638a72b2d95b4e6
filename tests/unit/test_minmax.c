/* core/minmax.h: bn_fmin/bn_fmax give libm's fmin/fmax, bit for bit
 * (any NaN for a NaN), on edge values and many random pairs. */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "core/minmax.h"

/* volatile: libm's functions are called, not folded by the compiler */
static double (*volatile lib_min)(double, double) = fmin;
static double (*volatile lib_max)(double, double) = fmax;

static uint64_t bits_of(double v)
{
	uint64_t u;

	memcpy(&u, &v, sizeof(u));
	return u;
}

static void same(double got, double want, double a, double b)
{
	if (isnan(want)) {
		if (!isnan(got))
			fail_msg("%a, %a: got %a, want a NaN", a, b, got);
		return;
	}
	if (bits_of(got) != bits_of(want))
		fail_msg("%a, %a: got %a, want %a", a, b, got, want);
}

/* A signaling NaN becomes quiet: no arithmetic makes one (libm's answer
 * to one is a NaN, where bn_fmin/bn_fmax still give the other value). */
static double quiet(double v)
{
	return isnan(v) ? v + 0.0 : v;
}

static void both(double a, double b)
{
	a = quiet(a);
	b = quiet(b);
	same(bn_fmin(a, b), lib_min(a, b), a, b);
	same(bn_fmax(a, b), lib_max(a, b), a, b);
}

static void test_edges(void **state)
{
	const double v[] = { 0.0, -0.0, 1.0, -1.0, 5.05, -3.3, 1e-300, -1e-300, 4.9e-324, -4.9e-324,
			     1.7e308, -1.7e308, INFINITY, -INFINITY, NAN, -NAN };
	const size_t n = sizeof(v) / sizeof(v[0]);

	(void)state;
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++)
			both(v[i], v[j]);
}

static void test_random(void **state)
{
	uint64_t x = 88172645463325252ull;

	(void)state;
	for (int k = 0; k < 200000; k++) {
		double a, b;

		/* xorshift64: raw bit patterns (NaNs, infinities, subnormals
		 * among them), then values near each other as samples are */
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memcpy(&a, &x, sizeof(a));
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memcpy(&b, &x, sizeof(b));
		both(a, b);
		both(a, a);
		both(a, nextafter(a, b));
		b = (double)(x >> 40) / 16777216.0 - 0.5;
		both(b, -b);
		both(b, b * 1.0000001);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_edges),
		cmocka_unit_test(test_random),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
