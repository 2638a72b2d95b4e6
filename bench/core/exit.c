#include "core/exit.h"

#include <signal.h>
#include <stddef.h>
#include <string.h>

#include "core/err.h"

static const char *const causes[] = {
	[BN_EXIT_OK] = BN_CAUSE_OK,
	[BN_EXIT_FAILED] = BN_CAUSE_FAILED,
	[BN_EXIT_BAD_INPUT] = BN_CAUSE_BAD_INPUT,
	[BN_EXIT_DUT_BROKE] = BN_CAUSE_DUT_BROKE,
	[BN_EXIT_NOT_DEMONSTRATED] = BN_CAUSE_NOT_DEMONSTRATED,
	[BN_EXIT_BENCH_FAULT] = BN_CAUSE_BENCH_FAULT,
	[BN_EXIT_ENVIRONMENT] = BN_CAUSE_ENVIRONMENT,
	[BN_EXIT_NOTHING_TO_RUN] = BN_CAUSE_NOTHING_TO_RUN,
};

static int is_signal_code(int code)
{
	return code >= BN_EXIT_SIGNAL_MIN && code <= BN_EXIT_SIGNAL_MAX;
}

const char *bn_exit_cause(int code)
{
	if (code >= 0 && (size_t)code < sizeof(causes) / sizeof(causes[0]))
		return causes[code];
	return is_signal_code(code) ? BN_CAUSE_INTERRUPTED : NULL;
}

int bn_exit_from_cause(const char *cause, int signo)
{
	if (!cause)
		return -1;
	for (size_t i = 0; i < sizeof(causes) / sizeof(causes[0]); i++)
		if (!strcmp(cause, causes[i]))
			return (int)i;
	if (!strcmp(cause, BN_CAUSE_INTERRUPTED))
		return BN_EXIT_INTERRUPTED(signo > 0 ? signo : SIGINT);
	return -1;
}

/* Higher is more urgent (the order of exit.h). */
static int rank(int code)
{
	switch (code) {
	case BN_EXIT_OK: return 0;
	case BN_EXIT_NOTHING_TO_RUN: return 1;
	case BN_EXIT_NOT_DEMONSTRATED: return 2;
	case BN_EXIT_BENCH_FAULT: return 3;
	case BN_EXIT_FAILED: return 4;
	case BN_EXIT_DUT_BROKE: return 5;
	case BN_EXIT_ENVIRONMENT: return 6;
	case BN_EXIT_BAD_INPUT: return 7;
	default: return is_signal_code(code) ? 8 : 6;
	}
}

/* A code outside the table (a bug's) ranks and is given as environment:
 * nothing to retry, and not taken for a device's verdict. */
int bn_exit_most_urgent(int a, int b)
{
	if (a != BN_EXIT_OK && !bn_exit_cause(a))
		a = BN_EXIT_ENVIRONMENT;
	if (b != BN_EXIT_OK && !bn_exit_cause(b))
		b = BN_EXIT_ENVIRONMENT;
	return rank(b) > rank(a) ? b : a;
}

int bn_exit_of_err(int err_code, int signo)
{
	switch (err_code) {
	case BN_OK:
		return BN_EXIT_OK;
	case BN_ERR_ARG:
	case BN_ERR_DATA:
	case BN_ERR_IO:
	case BN_ERR_NA:
		return BN_EXIT_BAD_INPUT;
	case BN_ERR_DUT:
		return BN_EXIT_DUT_BROKE;
	case BN_ERR_FAULT:
	case BN_ERR_TIMEOUT:
		return BN_EXIT_BENCH_FAULT;
	case BN_ERR_INTR:
		return BN_EXIT_INTERRUPTED(signo > 0 ? signo : SIGINT);
	default: /* ENV, NOMEM, BUG: a retry would repeat it */
		return BN_EXIT_ENVIRONMENT;
	}
}
