/* The isolated run: a child that returns, crashes, hangs, exits behind
 * the runner's back, keeps making progress, or is told to stop; what the
 * parent makes of each. Bodies stand in for bcbench run's. And the other
 * way round: a child whose parent is killed stops by itself. And a suite's
 * supervised entries: several watched by one loop, and an entry that
 * stops by itself when its suite is killed. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli/isolate.h"
#include "core/err.h"
#include "core/exit.h"

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

/* Hangs inside a firmware call (the world marks the beacon around them). */
static int body_hangs_in_firmware(void *user)
{
	struct body_arg *a = user;

	at_line(a->b, 9, 300000);
	a->b->in_fw_call = 1;
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
	assert_int_equal(end.exit_code, BN_EXIT_DUT_BROKE);
	assert_int_equal(end.signal, SIGABRT);
	assert_non_null(strstr(end.cause, "crashed: killed by SIGABRT at t=0.250 s, in the step on "
					  "scenario line 7"));
}

/* Outside a firmware call the run waits on the bench (an instrument that
 * does not answer): a bench fault, 5. */
static void test_isolate__hang_is_killed_by_the_watchdog(void **state)
{
	struct body_arg a = { 0 };
	struct bn_isolate_end end;

	(void)state;
	run(body_hangs, &a, 0.2, NULL, &end);
	assert_true(end.abnormal);
	assert_int_equal(end.exit_code, BN_EXIT_BENCH_FAULT);
	assert_int_equal(end.signal, SIGKILL);
	assert_non_null(strstr(end.cause, "watchdog: no progress for 0.2 s at t=0.300 s, in the "
					  "step on scenario line 9 (outside the firmware: an "
					  "instrument that does not answer?); killed"));
}

/* In a firmware call the device broke the run: 3. */
static void test_isolate__hang_in_firmware_is_the_device_s(void **state)
{
	struct body_arg a = { 0 };
	struct bn_isolate_end end;

	(void)state;
	run(body_hangs_in_firmware, &a, 0.2, NULL, &end);
	assert_true(end.abnormal);
	assert_int_equal(end.exit_code, BN_EXIT_DUT_BROKE);
	assert_non_null(strstr(end.cause, "(the firmware hangs in a call); killed"));
}

static void test_isolate__exit_behind_the_runner_is_a_fault(void **state)
{
	struct body_arg a = { 0 };
	struct bn_isolate_end end;

	(void)state;
	run(body_exits, &a, 5, NULL, &end);
	assert_true(end.abnormal);
	assert_int_equal(end.exit_code, BN_EXIT_DUT_BROKE);
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
	assert_int_equal(end.exit_code, BN_EXIT_INTERRUPTED(SIGTERM));
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
	assert_int_equal(end.exit_code, BN_EXIT_INTERRUPTED(SIGTERM));
	assert_non_null(strstr(end.cause, "interrupted by SIGTERM, and the run did not stop within "
					  "0.3 s at t=0.200 s, in the step on scenario line 8"));
}

/* ---- the parent is gone ---- */

/* Memory every process of a test shares: what the bodies and the
 * orphaned hook saw, for the test to read after they are gone. */
struct shared {
	struct bn_run_beacon beacon;
	volatile sig_atomic_t stop;   /* the run's stop flag (a copy per process) */
	int stopped;                  /* the body saw the stop flag */
	int end_abnormal, end_code;   /* what the watched parent's bn_isolate_run said */
	char orphan_cause[400];       /* the orphaned hook's cause */
	pid_t child, run_parent;      /* for the clean-up of a test that failed */
};

static struct shared *shared_new(void)
{
	void *p = mmap(NULL, sizeof(struct shared), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	assert_true(p != MAP_FAILED);
	memset(p, 0, sizeof(struct shared));
	return p;
}

/* Beats until the stop flag is set, then stops as a run does: code 3. */
static int body_until_stop(void *user)
{
	struct shared *sh = user;

	sh->child = getpid();
	at_line(&sh->beacon, 5, 0);
	while (!sh->stop) {
		sh->beacon.beats++;
		sleep_ms(10);
	}
	sh->stopped = 1;
	sh->beacon.finished = 1;
	return 3;
}

/* Hangs as a firmware that never returns: no beats, no look at the flag. */
static int body_stuck(void *user)
{
	struct shared *sh = user;

	sh->child = getpid();
	at_line(&sh->beacon, 9, 400000);
	for (;;)
		sleep_ms(1000);
	return 0;
}

static void orphaned(void *user, const char *cause)
{
	struct shared *sh = user;

	snprintf(sh->orphan_cause, sizeof(sh->orphan_cause), "%s", cause);
}

/* Zipping a long capture: no beats for longer than the watchdog and the
 * grace, then a normal end. */
static int body_finishes_slowly(void *user)
{
	struct shared *sh = user;

	at_line(&sh->beacon, 12, 500000);
	if (sh->end_code) { /* first wait for the stop (the grace case) */
		while (!sh->stop)
			sleep_ms(10);
	}
	sh->beacon.finishing = 1;
	sleep_ms(800);
	sh->beacon.finishing = 0;
	sh->beacon.beats++;
	sh->beacon.finished = 1;
	return sh->end_code;
}

/* The run's parent (bcbench run): isolates body, records how it ended. */
static void be_run_parent(struct shared *sh, int (*body)(void *))
{
	struct bn_isolate iso = {
		.watchdog_s = 5,
		.grace_s = 0.3,
		.stop_flag = &sh->stop,
		.beacon = &sh->beacon,
		.orphaned = orphaned,
	};
	struct bn_isolate_end end;

	sh->run_parent = getpid();
	if (bn_isolate_run(&iso, body, sh, &end) == BN_OK) {
		sh->end_abnormal = end.abnormal;
		sh->end_code = end.exit_code;
	}
	_exit(0);
}

static void wait_started(struct shared *sh)
{
	for (int i = 0; i < 300 && !sh->beacon.beats; i++)
		sleep_ms(10);
	assert_true(sh->beacon.beats > 0);
	sleep_ms(100);
}

/* Every descendant this test process adopted (it is their subreaper)
 * gone within timeout_ms: their count, -1 when some are still there (then
 * killed, so a failing test does not leave them running). */
static int reap_all_of(struct shared *sh, int timeout_ms, int *last_status);
#define reap_all(ms, st) reap_all_of(sh, ms, st)
static int reap_all_of(struct shared *sh, int timeout_ms, int *last_status)
{
	int n = 0, status;

	for (int t = 0; t < timeout_ms; t += 10) {
		pid_t w;

		while ((w = waitpid(-1, &status, WNOHANG)) > 0) {
			n++;
			if (last_status)
				*last_status = status;
		}
		if (w < 0)
			return n; /* ECHILD: no one left */
		sleep_ms(10);
	}
	if (sh->child > 0)
		kill(sh->child, SIGKILL);
	if (sh->run_parent > 0)
		kill(sh->run_parent, SIGKILL);
	while (waitpid(-1, NULL, 0) > 0)
		;
	return -1;
}

/* The run's parent killed with SIGKILL; the child was adopted by a
 * subreaper (this test process), not by pid 1: it still stops, by its own
 * path (the body sees the stop flag), with code 3. */
static void test_isolate__parent_killed_the_run_stops(void **state)
{
	struct shared *sh = shared_new();
	int status = 0;
	pid_t p;

	(void)state;
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	p = fork();
	assert_true(p >= 0);
	if (p == 0)
		be_run_parent(sh, body_until_stop);
	wait_started(sh);
	kill(p, SIGKILL);
	assert_int_equal(waitpid(p, NULL, 0), p);
	assert_int_equal(reap_all(3000, &status), 1);
	assert_int_equal(sh->beacon.lost, BN_LOST_PARENT);
	assert_int_equal(sh->stopped, 1);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 3);
	assert_string_equal(sh->orphan_cause, "");
	munmap(sh, sizeof(*sh));
}

/* A child stuck in the firmware when its parent is killed: after the
 * grace its watcher finishes the record (the hook) and ends it, 129 (as
 * the SIGHUP of a lost parent). */
/* parent (a run's parent, a suite) killed once its child, stuck in the
 * firmware, started: the child, adopted by this test process, alone ends
 * within timeout_ms, 129 (SIGHUP's). */
static void kill_parent_of_a_stuck_run(struct shared *sh, pid_t parent, int timeout_ms)
{
	int status = 0;

	for (int i = 0; i < 300 && !sh->beacon.started; i++)
		sleep_ms(10);
	sleep_ms(50);
	kill(parent, SIGKILL);
	assert_int_equal(waitpid(parent, NULL, 0), parent);
	assert_int_equal(reap_all(timeout_ms, &status), 1);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), BN_EXIT_INTERRUPTED(SIGHUP));
}

static void test_isolate__parent_killed_a_stuck_run_is_salvaged_and_ends(void **state)
{
	struct shared *sh = shared_new();
	pid_t p;

	(void)state;
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	p = fork();
	assert_true(p >= 0);
	if (p == 0)
		be_run_parent(sh, body_stuck);
	kill_parent_of_a_stuck_run(sh, p, 3000);
	assert_string_equal(sh->orphan_cause,
			    "the bcbench process that started this run is gone (killed?), and the "
			    "run did not stop within 0.3 s (the firmware does not return?)");
	munmap(sh, sizeof(*sh));
}

/* A shell whose child is a run parent running body_until_stop; this test
 * process is the subreaper that adopts what is left when it dies.
 * Returns its pid. */
static pid_t fork_grandparent(struct shared *sh)
{
	pid_t gp;

	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	sh->end_code = -1;
	gp = fork();
	assert_true(gp >= 0);
	if (gp == 0) {
		if (fork() == 0)
			be_run_parent(sh, body_until_stop);
		for (;;)
			pause();
	}
	return gp;
}

/* bcbench run under nohup: its shell (the parent's parent) goes, which
 * is not ours to watch: the run goes on to its end. */
static void test_isolate__a_parent_s_parent_not_watched_is_not_a_loss(void **state)
{
	struct shared *sh = shared_new();
	pid_t shell;

	(void)state;
	shell = fork_grandparent(sh);
	wait_started(sh);
	kill(shell, SIGKILL);
	assert_int_equal(waitpid(shell, NULL, 0), shell);
	sleep_ms(400);
	assert_int_equal(sh->beacon.lost, BN_LOST_NONE);
	assert_int_equal(sh->stopped, 0);
	sh->stop = SIGTERM; /* now end it as a user would */
	assert_true(reap_all(3000, NULL) >= 1); /* the run parent (it reaped its child) */
	/* the body's own end (it saw the flag), or the SIGTERM passed on
	 * ending it first (143): whichever came first, never a loss */
	assert_true(sh->end_code == 3 || sh->end_code == BN_EXIT_INTERRUPTED(SIGTERM));
	munmap(sh, sizeof(*sh));
}

static void run_finishing(int code, volatile sig_atomic_t *stop, struct bn_isolate_end *end,
			  struct shared *sh)
{
	struct bn_isolate iso = {
		.watchdog_s = 0.2,
		.grace_s = 0.2,
		.stop_flag = stop,
		.beacon = &sh->beacon,
	};

	sh->end_code = code;
	assert_int_equal(bn_isolate_run(&iso, body_finishes_slowly, sh, end), BN_OK);
}

/* Four times the watchdog without a beat while the record is finished:
 * not a hang. */
static void test_isolate__finishing_pauses_the_watchdog(void **state)
{
	struct shared *sh = shared_new();
	struct bn_isolate_end end;

	(void)state;
	run_finishing(0, NULL, &end, sh);
	assert_false(end.abnormal);
	assert_int_equal(end.exit_code, 0);
	munmap(sh, sizeof(*sh));
}

/* Stopped, then four times the grace finishing the record: not killed. */
static void test_isolate__finishing_pauses_the_grace(void **state)
{
	static volatile sig_atomic_t stop = SIGTERM;
	struct shared *sh = shared_new();
	struct bn_isolate_end end;

	(void)state;
	signal(SIGTERM, SIG_IGN); /* the body reads the flag, not the signal */
	sh->stop = SIGTERM;
	run_finishing(3, &stop, &end, sh);
	signal(SIGTERM, SIG_DFL);
	assert_false(end.abnormal);
	assert_int_equal(end.exit_code, 3);
	munmap(sh, sizeof(*sh));
}

/* ---- supervised: a suite watches its entries itself ---- */

/* Three children at once, each with its own beacon, watched by one loop
 * of steps and waits as a suite's: one returns, one crashes, one hangs;
 * each end is told apart and none waits for another's. */
static void test_isolate__supervised_children_are_watched_together(void **state)
{
	int (*bodies[3])(void *) = { body_returns, body_aborts, body_hangs };
	struct bn_isolate iso[3];
	struct bn_isolate_child ch[3], *w[3];
	struct bn_isolate_end end[3];
	struct body_arg a[3];
	bool done[3] = { false, false, false };
	int left = 3;

	(void)state;
	for (int i = 0; i < 3; i++) {
		iso[i] = (struct bn_isolate){ .watchdog_s = 0.4, .grace_s = 0.3,
					      .beacon = bn_isolate_beacon_new(), .supervised = true };
		assert_non_null(iso[i].beacon);
		a[i] = (struct body_arg){ .b = iso[i].beacon, .code = 1 };
		assert_int_equal(bn_isolate_start(&iso[i], bodies[i], &a[i], &ch[i]), BN_OK);
		assert_true(ch[i].pid > 0);
		assert_int_equal(ch[i].pipe_w, -1); /* no watch pipe: the suite is the watcher */
		memset(&end[i], 0, sizeof(end[i]));
	}
	for (int rounds = 0; left && rounds < 400; rounds++) {
		for (int i = 0; i < 3; i++) {
			int rc;

			if (done[i])
				continue;
			rc = bn_isolate_step(&iso[i], &ch[i], &end[i]);
			assert_true(rc >= 0);
			if (rc == 1) {
				done[i] = true;
				left--;
				assert_int_equal(ch[i].pid, 0);
			}
		}
		for (int i = 0; i < 3; i++)
			w[i] = done[i] ? NULL : &ch[i];
		if (left)
			bn_isolate_wait(w, 3);
	}
	assert_int_equal(left, 0);
	assert_false(end[0].abnormal);
	assert_int_equal(end[0].exit_code, 1);
	assert_true(end[1].abnormal);
	assert_int_equal(end[1].signal, SIGABRT);
	assert_int_equal(end[1].exit_code, BN_EXIT_DUT_BROKE);
	assert_non_null(strstr(end[1].cause, "crashed: killed by SIGABRT at t=0.250 s"));
	assert_true(end[2].abnormal);
	assert_int_equal(end[2].signal, SIGKILL);
	assert_non_null(strstr(end[2].cause, "watchdog: no progress for 0.4 s"));
	/* a step on a child already taken is an error, not a second end */
	assert_true(bn_isolate_step(&iso[0], &ch[0], &end[0]) < 0);
	for (int i = 0; i < 3; i++)
		bn_isolate_beacon_free(iso[i].beacon);
}

/* The entry's body: arms the orphan watch, then runs until its stop flag
 * (body_until_stop) or never returns (stuck). */
static int entry_until_stop(void *user)
{
	struct shared *sh = user;

	assert_int_equal(bn_isolate_orphan_watch(&sh->beacon, getppid(), 1.0, &sh->stop), BN_OK);
	return body_until_stop(sh);
}

static int entry_stuck(void *user)
{
	struct shared *sh = user;

	assert_int_equal(bn_isolate_orphan_watch(&sh->beacon, getppid(), 1.0, &sh->stop), BN_OK);
	return body_stuck(sh);
}

/* A suite (this test's child) that starts one supervised entry and then
 * waits to be killed; this test process adopts the entry. */
static pid_t fork_suite(struct shared *sh, int (*body)(void *))
{
	pid_t suite;

	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	suite = fork();
	assert_true(suite >= 0);
	if (suite == 0) {
		static struct bn_isolate iso;
		struct bn_isolate_child ch;

		iso = (struct bn_isolate){ .watchdog_s = 30, .grace_s = 1, .beacon = &sh->beacon,
					   .supervised = true };
		sh->run_parent = getpid();
		if (bn_isolate_start(&iso, body, sh, &ch) < 0)
			_exit(1);
		for (;;)
			pause();
	}
	return suite;
}

/* The suite killed with SIGKILL: the entry learns it from the kernel
 * (SIGHUP), marks the loss and stops by its own path, with its own code. */
static void test_isolate__supervised_suite_killed_its_entry_stops(void **state)
{
	struct shared *sh = shared_new();
	int status = 0;
	pid_t suite;

	(void)state;
	suite = fork_suite(sh, entry_until_stop);
	wait_started(sh);
	assert_int_equal(sh->beacon.lost, BN_LOST_NONE);
	kill(suite, SIGKILL);
	assert_int_equal(waitpid(suite, NULL, 0), suite);
	assert_int_equal(reap_all(3000, &status), 1);
	assert_int_equal(sh->beacon.lost, BN_LOST_SUITE);
	assert_int_equal(sh->stopped, 1);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 3);
	munmap(sh, sizeof(*sh));
}

/* A suite whose entry (body) is stuck in its firmware, killed: the entry
 * ends 129 with the suite's loss marked. */
static void kill_suite_of_a_stuck_entry(struct shared *sh, int (*body)(void *), int timeout_ms)
{
	kill_parent_of_a_stuck_run(sh, fork_suite(sh, body), timeout_ms);
	assert_int_equal(sh->beacon.lost, BN_LOST_SUITE);
}

/* ... and an entry stuck in its firmware ends 129 once the grace is over
 * (no thread is left to finish its record: the next run does). */
static void test_isolate__supervised_suite_killed_a_stuck_entry_ends(void **state)
{
	struct shared *sh = shared_new();

	(void)state;
	kill_suite_of_a_stuck_entry(sh, entry_stuck, 5000);
	assert_string_equal(sh->orphan_cause, ""); /* no watcher thread */
	munmap(sh, sizeof(*sh));
}

/* On a real bench the entry keeps a watcher thread: stuck in its firmware
 * when the suite is killed, it still gets the orphaned hook (the bench's
 * safe state, the record) before it ends 129. */
static int entry_stuck_on_hardware(void *user)
{
	static struct bn_isolate iso; /* (this child's copy: the thread reads it) */
	struct shared *sh = user;

	iso = (struct bn_isolate){ .grace_s = 0.3, .stop_flag = &sh->stop, .beacon = &sh->beacon,
				   .orphaned = orphaned };
	assert_int_equal(bn_isolate_watch_parent(&iso, sh, getppid(), BN_LOST_SUITE), BN_OK);
	return body_stuck(sh);
}

static void test_isolate__supervised_on_hardware_a_stuck_entry_is_salvaged(void **state)
{
	struct shared *sh = shared_new();

	(void)state;
	kill_suite_of_a_stuck_entry(sh, entry_stuck_on_hardware, 3000);
	assert_int_equal(sh->stop, SIGHUP);
	assert_string_equal(sh->orphan_cause,
			    "the bcbench suite that started this run is gone (killed?), and the "
			    "run did not stop within 0.3 s (the firmware does not return?)");
	munmap(sh, sizeof(*sh));
}

/* A SIGHUP while the suite is there (a dropped terminal) stops the run as
 * always: no loss is claimed. */
static void test_isolate__supervised_hangup_with_the_suite_there_is_no_loss(void **state)
{
	struct shared *sh = shared_new();
	int status = 0;
	pid_t suite;

	(void)state;
	suite = fork_suite(sh, entry_until_stop);
	wait_started(sh);
	kill(sh->child, SIGHUP);
	for (int i = 0; i < 300 && !sh->stopped; i++)
		sleep_ms(10);
	assert_int_equal(sh->stopped, 1);
	assert_int_equal(sh->stop, SIGHUP);
	assert_int_equal(sh->beacon.lost, BN_LOST_NONE);
	kill(suite, SIGKILL);
	assert_int_equal(waitpid(suite, NULL, 0), suite);
	assert_true(reap_all(3000, &status) >= 0);
	munmap(sh, sizeof(*sh));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_isolate__return_code_passes_through),
		cmocka_unit_test(test_isolate__crash_is_a_fault_with_its_signal),
		cmocka_unit_test(test_isolate__hang_is_killed_by_the_watchdog),
		cmocka_unit_test(test_isolate__hang_in_firmware_is_the_device_s),
		cmocka_unit_test(test_isolate__exit_behind_the_runner_is_a_fault),
		cmocka_unit_test(test_isolate__progress_keeps_the_watchdog_away),
		cmocka_unit_test(test_isolate__stop_is_passed_on_then_enforced),
		cmocka_unit_test(test_isolate__stop_ignored_is_killed_after_the_grace),
		cmocka_unit_test(test_isolate__parent_killed_the_run_stops),
		cmocka_unit_test(test_isolate__parent_killed_a_stuck_run_is_salvaged_and_ends),
		cmocka_unit_test(test_isolate__supervised_children_are_watched_together),
		cmocka_unit_test(test_isolate__supervised_suite_killed_its_entry_stops),
		cmocka_unit_test(test_isolate__supervised_suite_killed_a_stuck_entry_ends),
		cmocka_unit_test(test_isolate__supervised_hangup_with_the_suite_there_is_no_loss),
		cmocka_unit_test(test_isolate__supervised_on_hardware_a_stuck_entry_is_salvaged),
		cmocka_unit_test(test_isolate__a_parent_s_parent_not_watched_is_not_a_loss),
		cmocka_unit_test(test_isolate__finishing_pauses_the_watchdog),
		cmocka_unit_test(test_isolate__finishing_pauses_the_grace),
	};

	return cmocka_run_group_tests_name("isolate", tests, NULL, NULL);
}
