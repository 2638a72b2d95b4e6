#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "cli/isolate.h"

#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/pidfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/common.h"
#include "core/err.h"
#include "core/exit.h"
#include "core/time.h"

/* How often the parent looks at the beacon and its stop flag. The
 * child's end wakes it at once through a pidfd; without one (a kernel
 * before 5.3) it polls at ISOLATE_POLL_MS so a short run does not wait. */
#define ISOLATE_WATCH_MS 50
#define ISOLATE_POLL_MS 5

struct bn_run_beacon *bn_isolate_beacon_new(void)
{
	void *p = mmap(NULL, sizeof(struct bn_run_beacon), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	memset(p, 0, sizeof(struct bn_run_beacon));
	return p;
}

void bn_isolate_beacon_free(struct bn_run_beacon *b)
{
	if (b)
		munmap(b, sizeof(*b));
}

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

const char *bn_isolate_lost_reason(int lost)
{
	switch (lost) {
	case BN_LOST_PARENT: return "the bcbench process that started this run is gone (killed?)";
	case BN_LOST_SUITE: return "the bcbench suite that started this run is gone (killed?)";
	default: return NULL;
	}
}

static void snap(const struct bn_run_beacon *b, struct bn_run_beacon *out)
{
	out->beats = __atomic_load_n(&b->beats, __ATOMIC_RELAXED);
	out->sim_t_us = __atomic_load_n(&b->sim_t_us, __ATOMIC_RELAXED);
	out->line = __atomic_load_n(&b->line, __ATOMIC_RELAXED);
	out->started = __atomic_load_n(&b->started, __ATOMIC_RELAXED);
	out->finished = __atomic_load_n(&b->finished, __ATOMIC_RELAXED);
	out->finishing = __atomic_load_n(&b->finishing, __ATOMIC_RELAXED);
	out->lost = __atomic_load_n(&b->lost, __ATOMIC_RELAXED);
	out->in_fw_call = __atomic_load_n(&b->in_fw_call, __ATOMIC_RELAXED);
}

/* ---- in the child: is the run's parent still there? ---- */

struct watch {
	const struct bn_isolate *iso;
	void *user;
	pid_t parent;   /* saved before the fork */
	int fd;         /* the read end of a pipe only the parent writes to */
};

/* The parent is gone when its end of the pipe closes (the kernel closes
 * it whatever killed the parent) or the child has another parent now. */
static bool parent_gone(const struct watch *w, int timeout_ms)
{
	struct pollfd pfd = { .fd = w->fd, .events = POLLIN };

	if (poll(&pfd, 1, timeout_ms) > 0 && (pfd.revents & (POLLHUP | POLLERR | POLLIN)))
		return true;
	return getppid() != w->parent;
}

static void *watch_parent(void *arg)
{
	const struct watch *w = arg;
	struct bn_run_beacon *b = w->iso->beacon;
	double deadline = 0;
	bool orphan = false, stopping = false;

	for (;;) {
		double t;
		int lost;

		/* once the pipe has hung up, poll on it would return at once */
		if (orphan) {
			poll(NULL, 0, ISOLATE_WATCH_MS);
		} else if (parent_gone(w, ISOLATE_WATCH_MS)) {
			int expected = BN_LOST_NONE;

			__atomic_compare_exchange_n(&b->lost, &expected, BN_LOST_PARENT, false,
						    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
			orphan = true;
			deadline = mono_s() + w->iso->grace_s;
		}
		lost = __atomic_load_n(&b->lost, __ATOMIC_RELAXED);
		/* The main path stops as on SIGHUP (no one is left to hang up
		 * on) and reads beacon.lost for its reason. A lost suite alone
		 * (BN_LOST_SUITE) is the living parent's to enforce. */
		if (lost && !stopping && w->iso->stop_flag) {
			__atomic_store_n(w->iso->stop_flag, SIGHUP, __ATOMIC_RELAXED);
			stopping = true;
		}
		if (!orphan)
			continue;
		t = mono_s();
		if (__atomic_load_n(&b->finishing, __ATOMIC_RELAXED) ||
		    __atomic_load_n(&b->finished, __ATOMIC_RELAXED))
			deadline = t + w->iso->grace_s;
		if (t >= deadline) {
			char cause[400];

			snprintf(cause, sizeof(cause),
				 "%s, and the run did not stop within %.3g s (the firmware does not "
				 "return?)",
				 bn_isolate_lost_reason(lost), w->iso->grace_s);
			if (w->iso->orphaned)
				w->iso->orphaned(w->user, cause);
			_exit(BN_EXIT_INTERRUPTED(SIGHUP));
		}
	}
	return NULL;
}

/* The child's watcher; without it (no thread) the run goes on unwatched. */
static void start_watch(struct watch *w)
{
	pthread_attr_t a;
	pthread_t th;

	if (pthread_attr_init(&a) != 0)
		return;
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&th, &a, watch_parent, w) != 0)
		fprintf(stderr, "bcbench: warning: cannot watch the run's parent: the run would "
				"outlive it\n");
	pthread_attr_destroy(&a);
}

/* " at t=1.234 s (scenario line 12)" or "" before the bench ran. */
static void where(const struct bn_run_beacon *b, char *buf, size_t len)
{
	if (!b->started)
		snprintf(buf, len, " before the bench started");
	else if (b->line)
		snprintf(buf, len, " at t=%.3f s, in the step on scenario line %d",
			 bn_time_to_s(b->sim_t_us), b->line);
	else
		snprintf(buf, len, " at t=%.3f s", bn_time_to_s(b->sim_t_us));
}

int bn_isolate_run(const struct bn_isolate *iso, int (*body)(void *user), void *user,
		   struct bn_isolate_end *end)
{
	struct bn_run_beacon seen;
	double last_move, stop_at = 0;
	int forwarded = 0, lost = 0, killed_by = 0, status, pidfd, pipefd[2];
	char at[160];
	pid_t pid, w, me = getpid();

	memset(end, 0, sizeof(*end));
	if (pipe(pipefd) < 0)
		return BN_ERR_IO;
	fcntl(pipefd[0], F_SETFD, FD_CLOEXEC);
	fcntl(pipefd[1], F_SETFD, FD_CLOEXEC);
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		close(pipefd[0]);
		close(pipefd[1]);
		return BN_ERR_IO;
	}
	if (pid == 0) {
		struct watch wt = { .iso = iso, .user = user, .parent = me, .fd = pipefd[0] };
		int code;

		close(pipefd[1]);
		start_watch(&wt);
		code = body(user);
		bn_isolate_exit(code);
	}
	close(pipefd[0]);
	pidfd = pidfd_open(pid, 0);
	snap(iso->beacon, &seen);
	last_move = mono_s();
	for (;;) {
		struct timespec ts = { 0, ISOLATE_POLL_MS * 1000000L };
		struct bn_run_beacon now;
		double t;

		w = waitpid(pid, &status, WNOHANG);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR)
			return BN_ERR_IO;
		t = mono_s();
		snap(iso->beacon, &now);
		if (now.beats != seen.beats || now.started != seen.started) {
			seen = now;
			last_move = t;
		}
		if (iso->stop_flag && *iso->stop_flag && !forwarded && !lost) {
			forwarded = *iso->stop_flag;
			kill(pid, forwarded);
			stop_at = t + iso->grace_s;
		}
		/* A suite's entry whose suite is gone: the child's watcher reads
		 * the beacon and stops the run. */
		if (iso->watch_pid > 0 && !lost && !forwarded && getppid() != iso->watch_pid) {
			lost = BN_LOST_SUITE;
			__atomic_store_n(&iso->beacon->lost, lost, __ATOMIC_RELAXED);
			stop_at = t + iso->grace_s;
		}
		/* Finishing the record is progress without beats: neither the
		 * watchdog nor the grace runs meanwhile. */
		if (now.finishing) {
			last_move = t;
			if (forwarded || lost)
				stop_at = t + iso->grace_s;
		}
		if (!killed_by && (forwarded || lost) && t >= stop_at) {
			where(&now, at, sizeof(at));
			end->exit_code = BN_EXIT_INTERRUPTED(lost ? SIGHUP : forwarded);
			if (lost)
				snprintf(end->cause, sizeof(end->cause),
					 "%s, and the run did not stop within %.3g s%s "
					 "(the firmware does not return?); killed",
					 bn_isolate_lost_reason(lost), iso->grace_s, at);
			else
				snprintf(end->cause, sizeof(end->cause),
					 "interrupted by %s, and the run did not stop within %.3g s%s "
					 "(the firmware does not return?); killed",
					 bn_cli_signal_name(forwarded), iso->grace_s, at);
			killed_by = SIGKILL;
			kill(pid, SIGKILL);
		} else if (!killed_by && t - last_move >= iso->watchdog_s) {
			/* In a firmware call the device broke the run; anywhere
			 * else the bench did (an instrument that does not answer
			 * blocks the run outside the firmware). */
			bool in_fw = __atomic_load_n(&iso->beacon->in_fw_call, __ATOMIC_RELAXED);

			where(&now, at, sizeof(at));
			end->exit_code = in_fw ? BN_EXIT_DUT_BROKE : BN_EXIT_BENCH_FAULT;
			snprintf(end->cause, sizeof(end->cause),
				 "watchdog: no progress for %.3g s%s (%s); killed", iso->watchdog_s, at,
				 in_fw ? "the firmware hangs in a call"
				       : "outside the firmware: an instrument that does not answer?");
			killed_by = SIGKILL;
			kill(pid, SIGKILL);
		}
		if (pidfd >= 0) {
			struct pollfd pfd = { .fd = pidfd, .events = POLLIN };

			/* A signal (the stop flag) ends the wait early: EINTR. */
			poll(&pfd, 1, ISOLATE_WATCH_MS);
		} else {
			nanosleep(&ts, NULL);
		}
	}
	if (pidfd >= 0)
		close(pidfd);
	close(pipefd[1]);
	snap(iso->beacon, &end->last);
	if (killed_by) {
		end->abnormal = true;
		end->signal = killed_by;
	} else if (WIFSIGNALED(status)) {
		const char *name = bn_cli_signal_name(WTERMSIG(status));

		where(&end->last, at, sizeof(at));
		end->abnormal = true;
		end->signal = WTERMSIG(status);
		/* a signal from outside (ours passed on, a kill -9) interrupted
		 * the run; any other the run raised itself: a crash */
		end->exit_code = (forwarded && WTERMSIG(status) == forwarded) ||
					 WTERMSIG(status) == SIGKILL
				 ? BN_EXIT_INTERRUPTED(WTERMSIG(status))
				 : BN_EXIT_DUT_BROKE;
		if (forwarded && WTERMSIG(status) == forwarded)
			snprintf(end->cause, sizeof(end->cause),
				 "interrupted by %s%s, before the run could stop cleanly", name, at);
		else if (WTERMSIG(status) == SIGKILL)
			snprintf(end->cause, sizeof(end->cause),
				 "killed by SIGKILL%s, from outside the run (kill -9? the OOM killer?)",
				 at);
		else if (name)
			snprintf(end->cause, sizeof(end->cause),
				 "crashed: killed by %s%s (the firmware, or the bench model under it)",
				 name, at);
		else
			snprintf(end->cause, sizeof(end->cause), "crashed: killed by signal %d%s",
				 WTERMSIG(status), at);
	} else if (!end->last.finished) {
		/* Exited, but not through the end of body(): something in the
		 * run called exit() (a firmware, or a sanitizer's report). */
		where(&end->last, at, sizeof(at));
		end->abnormal = true;
		end->exit_code = BN_EXIT_DUT_BROKE;
		snprintf(end->cause, sizeof(end->cause),
			 "the run's process exited with status %d%s without finishing the run "
			 "(the firmware called exit()?)",
			 WEXITSTATUS(status), at);
	} else {
		end->exit_code = WEXITSTATUS(status);
	}
	return BN_OK;
}

int bn_isolate_cores_allowed(void)
{
	cpu_set_t set;
	int n;

	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return 1;
	n = CPU_COUNT(&set);
	return n > 0 ? n : 1;
}

int bn_isolate_capture_threads(int cores, int jobs)
{
	int t = jobs > 0 ? cores / jobs - 1 : cores - 1;

	return t > 0 ? t : 0;
}

#if defined(__SANITIZE_ADDRESS__)
#define ISOLATE_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ISOLATE_SANITIZED 1
#endif
#endif

_Noreturn void bn_isolate_exit(int code)
{
#ifdef ISOLATE_SANITIZED
	exit(code);
#else
	fflush(NULL);
	_exit(code);
#endif
}
