/* The exit-code table (core/exit.h): each code's cause string and back,
 * the error codes' exit codes with their signal, and the order a suite or
 * a merge picks its most urgent outcome in. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "core/err.h"
#include "core/exit.h"

static void test_exit__causes_round_trip(void **state)
{
	static const struct {
		int code;
		const char *cause;
	} table[] = {
		{ 0, "ok" },
		{ 1, "rule-failed" },
		{ 2, "bad-input" },
		{ 3, "device-broke-run" },
		{ 4, "not-demonstrated" },
		{ 5, "bench-fault" },
		{ 6, "environment" },
		{ 7, "nothing-to-run" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		assert_string_equal(bn_exit_cause(table[i].code), table[i].cause);
		assert_int_equal(bn_exit_from_cause(table[i].cause, 0), table[i].code);
	}
	assert_string_equal(bn_exit_cause(130), "interrupted");
	assert_string_equal(bn_exit_cause(BN_EXIT_INTERRUPTED(SIGHUP)), "interrupted");
	assert_int_equal(bn_exit_from_cause("interrupted", SIGTERM), 143);
	assert_int_equal(bn_exit_from_cause("interrupted", 0), 130);
	assert_null(bn_exit_cause(8));
	assert_null(bn_exit_cause(-1));
	assert_null(bn_exit_cause(128));
	assert_int_equal(bn_exit_from_cause("bench fault", 0), -1);
	assert_int_equal(bn_exit_from_cause(NULL, 0), -1);
}

static void test_exit__errors_with_their_signal(void **state)
{
	(void)state;
	assert_int_equal(bn_exit_of_err(BN_ERR_INTR, SIGTERM), 143);
	assert_int_equal(bn_exit_of_err(BN_ERR_INTR, SIGHUP), 129);
	assert_int_equal(bn_exit_of_err(BN_ERR_INTR, 0), 130);
	assert_int_equal(bn_exit_of_err(BN_ERR_DUT, SIGTERM), BN_EXIT_DUT_BROKE);
	assert_int_equal(bn_exit_of_err(BN_ERR_FAULT, 0), BN_EXIT_BENCH_FAULT);
	assert_int_equal(bn_exit_of_err(BN_ERR_TIMEOUT, 0), BN_EXIT_BENCH_FAULT);
	assert_int_equal(bn_exit_of_err(BN_ERR_ENV, 0), BN_EXIT_ENVIRONMENT);
	assert_int_equal(bn_exit_of_err(BN_ERR_DATA, 0), BN_EXIT_BAD_INPUT);
	assert_int_equal(bn_exit_of_err(BN_OK, SIGINT), BN_EXIT_OK);
}

/* interrupted > 2 > 6 > 3 > 1 > 5 > 4 > 7 > 0, whichever comes first */
static void test_exit__most_urgent_order(void **state)
{
	static const int order[] = { 143, 2, 6, 3, 1, 5, 4, 7, 0 };
	const size_t n = sizeof(order) / sizeof(order[0]);

	(void)state;
	for (size_t i = 0; i < n; i++)
		for (size_t k = i; k < n; k++) {
			assert_int_equal(bn_exit_most_urgent(order[i], order[k]), order[i]);
			assert_int_equal(bn_exit_most_urgent(order[k], order[i]), order[i]);
		}
	/* a deterministic failure is not retried because a bench also flaked */
	assert_int_equal(bn_exit_most_urgent(BN_EXIT_BENCH_FAULT, BN_EXIT_FAILED), BN_EXIT_FAILED);
	assert_int_equal(bn_exit_most_urgent(BN_EXIT_BENCH_FAULT, BN_EXIT_DUT_BROKE), BN_EXIT_DUT_BROKE);
	/* the first interrupt's signal stays */
	assert_int_equal(bn_exit_most_urgent(130, 143), 130);
	/* a code outside the table ranks as the environment's */
	assert_int_equal(bn_exit_most_urgent(42, BN_EXIT_DUT_BROKE), BN_EXIT_ENVIRONMENT);
	/* either way round: a code outside the table is given as environment */
	assert_int_equal(bn_exit_most_urgent(BN_EXIT_OK, 99), BN_EXIT_ENVIRONMENT);
	assert_int_equal(bn_exit_most_urgent(99, BN_EXIT_OK), BN_EXIT_ENVIRONMENT);
	assert_int_equal(bn_exit_most_urgent(BN_EXIT_ENVIRONMENT, 99), BN_EXIT_ENVIRONMENT);
	assert_int_equal(bn_exit_most_urgent(42, BN_EXIT_BAD_INPUT), BN_EXIT_BAD_INPUT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exit__causes_round_trip),
		cmocka_unit_test(test_exit__errors_with_their_signal),
		cmocka_unit_test(test_exit__most_urgent_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
