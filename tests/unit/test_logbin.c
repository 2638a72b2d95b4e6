/* The noise estimate's bins (checks/logbin.h) by table must be the
 * formula's, floor((log10(a) + 9) * 16) clamped, for every value: at each
 * edge and the ulps around it, across the range and outside it, and on
 * noise-like steps of float32 samples. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "checks/logbin.h"

static int mismatches(const struct bn_logbin *lb, double a)
{
	int f = bn_logbin_formula(a), t = bn_logbin_of(lb, a);

	if (f != t)
		print_error("a=%.17g: formula %d, table %d\n", a, f, t);
	return f != t;
}

static void test_logbin__table_built(void **state)
{
	struct bn_logbin lb;

	(void)state;
	bn_logbin_init(&lb);
	assert_true(lb.ok);
	for (int b = 2; b < BN_LOGBIN_BINS; b++)
		assert_true(lb.edge[b] > lb.edge[b - 1]);
	/* the edge of bin 16 is 1e-8, give or take log10's rounding */
	assert_true(fabs(lb.edge[16] / 1e-8 - 1) < 1e-14);
}

static void test_logbin__every_edge_and_its_neighbours(void **state)
{
	struct bn_logbin lb;
	int bad = 0;

	(void)state;
	bn_logbin_init(&lb);
	for (int b = 1; b < BN_LOGBIN_BINS; b++) {
		double lo = lb.edge[b], hi = lb.edge[b];

		for (int k = 0; k < 64; k++) {
			bad += mismatches(&lb, lo);
			bad += mismatches(&lb, hi);
			lo = nextafter(lo, 0);
			hi = nextafter(hi, INFINITY);
		}
		/* just outside the near-edge band, where the table decides */
		bad += mismatches(&lb, lb.edge[b] * (1 + 2e-12));
		bad += mismatches(&lb, lb.edge[b] * (1 - 2e-12));
	}
	assert_int_equal(bad, 0);
}

static void test_logbin__across_and_outside_the_range(void **state)
{
	static const double odd[] = { 1e-300, 1e-12, 9.9999999999999e-10, 1e-9, 1e3,
				      1.0000000000001e3, 1e6, 1e300,
				      4.9406564584124654e-324 };
	struct bn_logbin lb;
	uint64_t x = 88172645463325252ull;
	int bad = 0;

	(void)state;
	bn_logbin_init(&lb);
	for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++)
		bad += mismatches(&lb, odd[i]);
	/* log-uniform over 1e-11 .. 1e5 */
	for (int i = 0; i < 2000000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		bad += mismatches(&lb, pow(10.0, -11.0 + 16.0 * (double)(x >> 11) / 9007199254740992.0));
	}
	/* steps between float32 samples of a few volts, as the engine sees them */
	for (int i = 0; i < 2000000; i++) {
		float u, v;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		u = (float)(5.0 + (double)(x & 0xffff) * 1e-7);
		v = (float)(5.0 + (double)((x >> 16) & 0xffff) * 1e-7);
		if (u != v)
			bad += mismatches(&lb, fabs((double)u - (double)v));
	}
	assert_int_equal(bad, 0);
}

/* A slice marked whole is answered without a compare: every value in it
 * must be the formula's, its least and its greatest too; and most slices
 * are whole, or the mark saves nothing. */
static void test_logbin__whole_slices(void **state)
{
	struct bn_logbin lb;
	int bad = 0, whole = 0;

	(void)state;
	bn_logbin_init(&lb);
	assert_true(lb.ok);
	for (int i = 0; i < BN_LOGBIN_SLICES; i++) {
		uint64_t bits = ((uint64_t)(BN_LOGBIN_EXP_LO << 8) + (uint64_t)i) << 44;
		uint64_t next = bits + (1ull << 44);
		double lo, hi;

		if (!(lb.slice[i] & BN_LOGBIN_WHOLE))
			continue;
		whole++;
		memcpy(&lo, &bits, sizeof(lo));
		memcpy(&hi, &next, sizeof(hi));
		hi = nextafter(hi, 0);
		for (int k = 0; k <= 8; k++) {
			double a = lo + (hi - lo) * k / 8;

			if (a >= 1e-9 && a < 1e3)
				bad += mismatches(&lb, a);
		}
		if (lo >= 1e-9 && hi < 1e3)
			bad += (lb.slice[i] & 0xff) != bn_logbin_formula(lo) ||
			       (lb.slice[i] & 0xff) != bn_logbin_formula(hi);
	}
	assert_int_equal(bad, 0);
	assert_true(whole > BN_LOGBIN_SLICES * 9 / 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_logbin__table_built),
		cmocka_unit_test(test_logbin__every_edge_and_its_neighbours),
		cmocka_unit_test(test_logbin__across_and_outside_the_range),
		cmocka_unit_test(test_logbin__whole_slices),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
