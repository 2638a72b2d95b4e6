#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "cli/isolate.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/common.h"
#include "core/asan.h"
#include "core/err.h"
#include "core/exit.h"
#include "core/heap.h"
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
	int fd;         /* the read end of a pipe only the parent writes to; -1: none */
	int lost_as;    /* enum bn_lost: which process the parent is */
};

/* The parent is gone when its end of the pipe closes (the kernel closes
 * it whatever killed the parent) or the child has another parent now. */
static bool parent_gone(const struct watch *w, int timeout_ms)
{
	/* (no pipe, fd -1: poll only sleeps, and getppid() tells) */
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

			__atomic_compare_exchange_n(&b->lost, &expected, w->lost_as, false,
						    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
			orphan = true;
			deadline = bn_mono_s() + w->iso->grace_s;
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
		t = bn_mono_s();
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
static int start_watch(struct watch *w)
{
	pthread_attr_t a;
	pthread_t th;
	int rc = BN_OK;

	if (pthread_attr_init(&a) != 0)
		return BN_ERR_NOMEM;
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&th, &a, watch_parent, w) != 0) {
		fprintf(stderr, "bcbench: warning: cannot watch the run's parent: the run would "
				"outlive it\n");
		rc = BN_ERR_NOMEM;
	}
	pthread_attr_destroy(&a);
	return rc;
}

int bn_isolate_watch_parent(const struct bn_isolate *iso, void *user, pid_t parent, int lost_as)
{
	/* the thread reads it until the process ends */
	struct watch *w = malloc(sizeof(*w));

	if (!w)
		return BN_ERR_NOMEM;
	*w = (struct watch){ .iso = iso, .user = user, .parent = parent, .fd = -1,
			     .lost_as = lost_as };
	return start_watch(w);
}

/* ---- in a supervised child: its parent (a suite) is its watcher ---- */

/* What the two handlers below read: set once, in the child, before they
 * are installed (a signal handler has nowhere else to look). */
static struct orphan_state {
	struct bn_run_beacon *beacon;
	volatile sig_atomic_t *stop_flag;
	pid_t parent;
	unsigned grace_s;
} orphan;

/* grace_s after the parent went, the run has not stopped: a firmware that
 * does not return. No thread is left to finish the record (the next run
 * into the directory, or `bcbench salvage`, does); the process ends as a
 * lost parent's would. Finishing the record is progress: another grace. */
static void on_orphan_alarm(int sig)
{
	(void)sig;
	if (__atomic_load_n(&orphan.beacon->finishing, __ATOMIC_RELAXED) ||
	    __atomic_load_n(&orphan.beacon->finished, __ATOMIC_RELAXED)) {
		alarm(orphan.grace_s);
		return;
	}
	_exit(BN_EXIT_INTERRUPTED(SIGHUP));
}

/* SIGHUP: a hang-up as always, or (PR_SET_PDEATHSIG) the parent is gone. */
static void on_orphan_hup(int sig)
{
	if (getppid() != orphan.parent) {
		int expected = BN_LOST_NONE;

		if (__atomic_compare_exchange_n(&orphan.beacon->lost, &expected, BN_LOST_SUITE, false,
						__ATOMIC_RELAXED, __ATOMIC_RELAXED))
			alarm(orphan.grace_s);
	}
	if (orphan.stop_flag)
		*orphan.stop_flag = sig;
}

int bn_isolate_orphan_watch(struct bn_run_beacon *beacon, pid_t parent, double grace_s,
			    volatile sig_atomic_t *stop_flag)
{
	struct sigaction sa;

	orphan = (struct orphan_state){ .beacon = beacon, .stop_flag = stop_flag, .parent = parent,
					.grace_s = grace_s >= 1 ? (unsigned)ceil(grace_s) : 1 };
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_orphan_alarm;
	sigaction(SIGALRM, &sa, NULL);
	sa.sa_handler = on_orphan_hup;
	sigaction(SIGHUP, &sa, NULL);
	if (prctl(PR_SET_PDEATHSIG, SIGHUP) != 0)
		return BN_ERR_IO;
	/* gone before the line above: no signal would come */
	if (getppid() != parent)
		raise(SIGHUP);
	return BN_OK;
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

int bn_isolate_start(const struct bn_isolate *iso, int (*body)(void *user), void *user,
		     struct bn_isolate_child *ch)
{
	int pipefd[2] = { -1, -1 };
	pid_t pid, me = getpid();

	memset(ch, 0, sizeof(*ch));
	ch->pidfd = -1;
	ch->pipe_w = -1;
	if (!iso->supervised) {
		if (pipe(pipefd) < 0)
			return BN_ERR_IO;
		fcntl(pipefd[0], F_SETFD, FD_CLOEXEC);
		fcntl(pipefd[1], F_SETFD, FD_CLOEXEC);
	}
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		if (pipefd[0] >= 0) {
			close(pipefd[0]);
			close(pipefd[1]);
		}
		return BN_ERR_IO;
	}
	if (pid == 0) {
		struct watch wt = { .iso = iso, .user = user, .parent = me, .fd = pipefd[0],
				    .lost_as = BN_LOST_PARENT };
		int code;

		/* a run allocates its few MiB at once: backed in one call
		 * rather than a fault a page (core/heap.h) */
		bn_heap_warm(BN_HEAP_WARM_RUN_BYTES);
		/* supervised: the body arms bn_isolate_orphan_watch() itself,
		 * once its own signal handlers are in place */
		if (!iso->supervised) {
			close(pipefd[1]);
			start_watch(&wt);
		}
		code = body(user);
		bn_isolate_exit(code);
	}
	if (pipefd[0] >= 0)
		close(pipefd[0]);
	ch->pid = pid;
	ch->pipe_w = pipefd[1];
	ch->pidfd = pidfd_open(pid, 0);
	snap(iso->beacon, &ch->seen);
	ch->last_move = bn_mono_s();
	return BN_OK;
}

/* The child is gone: how it ended, in *end; its descriptors closed. */
static void ended(const struct bn_isolate *iso, struct bn_isolate_child *ch, int status,
		  struct bn_isolate_end *end)
{
	char at[160];

	if (ch->pidfd >= 0)
		close(ch->pidfd);
	if (ch->pipe_w >= 0)
		close(ch->pipe_w);
	ch->pidfd = ch->pipe_w = -1;
	ch->pid = 0;
	snap(iso->beacon, &end->last);
	if (ch->killed_by) {
		end->abnormal = true;
		end->signal = ch->killed_by;
	} else if (WIFSIGNALED(status)) {
		const char *name = bn_cli_signal_name(WTERMSIG(status));
		int fwd = ch->forwarded;

		where(&end->last, at, sizeof(at));
		end->abnormal = true;
		end->signal = WTERMSIG(status);
		/* a signal from outside (ours passed on, a kill -9) interrupted
		 * the run; any other the run raised itself: a crash */
		end->exit_code = (fwd && WTERMSIG(status) == fwd) || WTERMSIG(status) == SIGKILL
					 ? BN_EXIT_INTERRUPTED(WTERMSIG(status))
					 : BN_EXIT_DUT_BROKE;
		if (fwd && WTERMSIG(status) == fwd)
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
}

int bn_isolate_step(const struct bn_isolate *iso, struct bn_isolate_child *ch,
		    struct bn_isolate_end *end)
{
	struct bn_run_beacon now;
	char at[160];
	int status;
	double t;
	pid_t w;

	if (ch->pid <= 0)
		return BN_ERR_ARG;
	w = waitpid(ch->pid, &status, WNOHANG);
	if (w == ch->pid) {
		*end = ch->end; /* the cause a kill below wrote stays */
		ended(iso, ch, status, end);
		return 1;
	}
	if (w < 0 && errno != EINTR)
		return BN_ERR_IO;
	t = bn_mono_s();
	snap(iso->beacon, &now);
	if (now.beats != ch->seen.beats || now.started != ch->seen.started) {
		ch->seen = now;
		ch->last_move = t;
	}
	if (iso->stop_flag && *iso->stop_flag && !ch->forwarded) {
		ch->forwarded = *iso->stop_flag;
		kill(ch->pid, ch->forwarded);
		ch->stop_at = t + iso->grace_s;
	}
	/* Finishing the record is progress without beats: neither the
	 * watchdog nor the grace runs meanwhile. */
	if (now.finishing) {
		ch->last_move = t;
		if (ch->forwarded)
			ch->stop_at = t + iso->grace_s;
	}
	if (!ch->killed_by && ch->forwarded && t >= ch->stop_at) {
		where(&now, at, sizeof(at));
		ch->end.exit_code = BN_EXIT_INTERRUPTED(ch->forwarded);
		snprintf(ch->end.cause, sizeof(ch->end.cause),
			 "interrupted by %s, and the run did not stop within %.3g s%s "
			 "(the firmware does not return?); killed",
			 bn_cli_signal_name(ch->forwarded), iso->grace_s, at);
		ch->killed_by = SIGKILL;
		kill(ch->pid, SIGKILL);
	} else if (!ch->killed_by && t - ch->last_move >= iso->watchdog_s) {
		/* In a firmware call the device broke the run; anywhere
		 * else the bench did (an instrument that does not answer
		 * blocks the run outside the firmware). */
		bool in_fw = __atomic_load_n(&iso->beacon->in_fw_call, __ATOMIC_RELAXED);

		where(&now, at, sizeof(at));
		ch->end.exit_code = in_fw ? BN_EXIT_DUT_BROKE : BN_EXIT_BENCH_FAULT;
		snprintf(ch->end.cause, sizeof(ch->end.cause),
			 "watchdog: no progress for %.3g s%s (%s); killed", iso->watchdog_s, at,
			 in_fw ? "the firmware hangs in a call"
			       : "outside the firmware: an instrument that does not answer?");
		ch->killed_by = SIGKILL;
		kill(ch->pid, SIGKILL);
	}
	return 0;
}

void bn_isolate_wait(struct bn_isolate_child *const *ch, int n)
{
	struct pollfd pfd[64];
	int k = 0;
	bool all = true;

	for (int i = 0; i < n && k < 64; i++) {
		if (!ch[i] || !ch[i]->pid)
			continue;
		if (ch[i]->pidfd < 0)
			all = false;
		else
			pfd[k++] = (struct pollfd){ .fd = ch[i]->pidfd, .events = POLLIN };
	}
	if (all && k) {
		/* A signal (the stop flag) ends the wait early: EINTR. */
		poll(pfd, (nfds_t)k, ISOLATE_WATCH_MS);
	} else {
		struct timespec ts = { 0, ISOLATE_POLL_MS * 1000000L };

		nanosleep(&ts, NULL);
	}
}

int bn_isolate_run(const struct bn_isolate *iso, int (*body)(void *user), void *user,
		   struct bn_isolate_end *end)
{
	struct bn_isolate_child ch, *chp = &ch;
	int rc;

	memset(end, 0, sizeof(*end));
	rc = bn_isolate_start(iso, body, user, &ch);
	if (rc < 0)
		return rc;
	while ((rc = bn_isolate_step(iso, &ch, end)) == 0)
		bn_isolate_wait(&chp, 1);
	return rc < 0 ? rc : BN_OK;
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
	if (jobs > 0)
		return 0;
	return cores > 1 ? cores - 1 : 0;
}

_Noreturn void bn_isolate_exit(int code)
{
#if BN_ASAN
	exit(code);
#else
	fflush(NULL);
	_exit(code);
#endif
}
