/* The isolated run: a child that returns, crashes, hangs, exits behind
 * the runner's back, keeps making progress, or is told to stop; what the
 * parent makes of each. Bodies stand in for bcbench run's. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli/isolate.h"
#include "core/err.h"

struct body_arg {
	struct bn_run_beacon *b;
	int code;
	double beat_for_s;   /* make progress this long, then return */
};

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static void at_line(struct bn_run_beacon *b, int line, int64_t t_us)
{
	b->started = 1;
	b->line = line;
	b->sim_t_us = t_us;
	b->beats++;
}

static int body_returns(void *user)
{
	struct body_arg *a = user;

	at_line(a->b, 3, 1000);
	a->b->finished = 1;
	return a->code;
}

static int body_aborts(void *user)
{
	struct body_arg *a = user;

	at_line(a->b, 7, 250000);
	abort();
}

static int body_hangs(void *user)
{
	struct body_arg *a = user;

	at_line(a->b, 9, 300000);
	for (;;)
		sleep_ms(1000);
	return 0;
}

static int body_exits(void *user)
{
	struct body_arg *a = user;

	at_line(a->b, 4, 300000);
	exit(0);
}

static int body_beats(void *user)
{
	struct body_arg *a = user;
	int n = (int)(a->beat_for_s * 100);

	for (int i = 0; i < n; i++) {
		at_line(a->b, 5, i * 10000);
		sleep_ms(10);
	}
	a->b->finished = 1;
	return 0;
}

/* Waits for a stop it never honours (no handler: the default action). */
static int body_ignores_stop(void *user)
{
	struct body_arg *a = user;

	signal(SIGTERM, SIG_DFL);
	at_line(a->b, 6, 100000);
	for (;;)
		sleep_ms(1000);
	return 0;
}

/* Ignores the stop altogether: only SIGKILL after the grace ends it. */
static int body_deaf(void *user)
{
	struct body_arg *a = user;

	at_line(a->b, 8, 200000);
	for (;;) {
		sleep_ms(10);
		a->b->beats++; /* busy, and making progress: not a hang */
	}
	return 0;
}

static void run(int (*body)(void *), struct body_arg *a, double watchdog_s,
		volatile sig_atomic_t *stop, struct bn_isolate_end *end)
{
	struct bn_isolate iso = {
		.watchdog_s = watchdog_s,
		.grace_s = 0.3,
		.stop_flag = stop,
		.beacon = bn_isolate_beacon_new(),
	};

	assert_non_null(iso.beacon);
	a->b = iso.beacon;
	assert_int_equal(bn_isolate_run(&iso, body, a, end), BN_OK);
	bn_isolate_beacon_free(iso.beacon);
}

static void test_isolate__return_code_passes_through(void **state)
{
	struct body_arg a = { .code = 1 };
	struct bn_isolate_end end;

	(void)state;
	run(body_returns, &a, 5, NULL, &end);
	assert_false(end.abnormal);
	assert_int_equal(end.exit_code, 1);
	assert_string_equal(end.cause, "");
	assert_int_equal(end.last.line, 3);
}

static void test_isolate__crash_is_a_fault_with_its_signal(void **state)
{
	struct body_arg a = { 0 };
	struct bn_isolate_end end;

	(void)state;
	run(body_aborts, &a, 5, NULL, &end);
	assert_true(end.abnormal);
	assert_int_equal(end.exit_code, 3);
	assert_int_equal(end.signal, SIGABRT);
	assert_non_null(strstr(end.cause, "crashed: killed by SIGABRT at t=0.250 s, in the step on "
					  "scenario line 7"));
}

static void test_isolate__hang_is_killed_by_the_watchdog(void **state)
{
	struct body_arg a = { 0 };
	struct bn_isolate_end end;

	(void)state;
	run(body_hangs, &a, 0.2, NULL, &end);
	assert_true(end.abnormal);
	assert_int_equal(end.exit_code, 3);
	assert_int_equal(end.signal, SIGKILL);
	assert_non_null(strstr(end.cause, "watchdog: no progress for 0.2 s at t=0.300 s, in the "
					  "step on scenario line 9"));
}

static void test_isolate__exit_behind_the_runner_is_a_fault(void **state)
{
	struct body_arg a = { 0 };
	struct bn_isolate_end end;

	(void)state;
	run(body_exits, &a, 5, NULL, &end);
	assert_true(end.abnormal);
	assert_int_equal(end.exit_code, 3);
	assert_non_null(strstr(end.cause, "exited with status 0 at t=0.300 s"));
}

static void test_isolate__progress_keeps_the_watchdog_away(void **state)
{
	struct body_arg a = { .beat_for_s = 0.6 };
	struct bn_isolate_end end;

	(void)state;
	/* three times the watchdog in all, never a watchdog without a beat */
	run(body_beats, &a, 0.2, NULL, &end);
	assert_false(end.abnormal);
	assert_int_equal(end.exit_code, 0);
	assert_true(end.last.beats >= 50);
}

static void test_isolate__stop_is_passed_on_then_enforced(void **state)
{
	static volatile sig_atomic_t stop = SIGTERM;
	struct body_arg a = { 0 };
	struct bn_isolate_end end;

	(void)state;
	run(body_ignores_stop, &a, 5, &stop, &end);
	assert_true(end.abnormal);
	assert_int_equal(end.exit_code, 3);
	/* SIGTERM's default action ended it: said as an interrupt, not a crash */
	assert_non_null(strstr(end.cause, "interrupted by SIGTERM"));
	assert_null(strstr(end.cause, "crashed"));
}

static void test_isolate__stop_ignored_is_killed_after_the_grace(void **state)
{
	static volatile sig_atomic_t stop = SIGTERM;
	struct body_arg a = { 0 };
	struct bn_isolate_end end;

	(void)state;
	/* ignored from before the fork: the stop may be passed on at once */
	signal(SIGTERM, SIG_IGN);
	run(body_deaf, &a, 5, &stop, &end);
	signal(SIGTERM, SIG_DFL);
	assert_true(end.abnormal);
	assert_int_equal(end.signal, SIGKILL);
	assert_non_null(strstr(end.cause, "interrupted by SIGTERM, and the run did not stop within "
					  "0.3 s at t=0.200 s, in the step on scenario line 8"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_isolate__return_code_passes_through),
		cmocka_unit_test(test_isolate__crash_is_a_fault_with_its_signal),
		cmocka_unit_test(test_isolate__hang_is_killed_by_the_watchdog),
		cmocka_unit_test(test_isolate__exit_behind_the_runner_is_a_fault),
		cmocka_unit_test(test_isolate__progress_keeps_the_watchdog_away),
		cmocka_unit_test(test_isolate__stop_is_passed_on_then_enforced),
		cmocka_unit_test(test_isolate__stop_ignored_is_killed_after_the_grace),
	};

	return cmocka_run_group_tests_name("isolate", tests, NULL, NULL);
}
