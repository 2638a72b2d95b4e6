/* A run in a child process under a wall-clock watchdog, so a firmware
 * that crashes the process or hangs inside a call cannot take the
 * command (or a suite) down with it, and still leaves a report.
 *
 * The child runs body() and exits with its return value. The parent
 * watches the run's beacon (shared memory the runner bumps for every
 * sample and step): no progress for watchdog_s and the child is killed.
 * A stop signal (the parent's flag) is passed on to the child, which
 * gets grace_s to reach its safe state and write its report before it is
 * killed. While the runner finishes the record (beacon.finishing: the
 * capture zipped) neither the watchdog nor the grace runs.
 *
 * The child does not outlive the run's parent, whatever ends it (SIGKILL
 * included): a thread in the child watches a pipe from the parent and
 * getppid() against the parent's pid saved before the fork (a parent's
 * death may hand the child to a subreaper, not to pid 1, and
 * PR_SET_PDEATHSIG fires on the death of the forking thread, not of the
 * process). On the loss it sets beacon.lost and the stop flag: the run
 * stops as on SIGTERM, from its own code (safe state, partial report).
 * A run that has not stopped grace_s later (a firmware that does not
 * return) gets orphaned() from that thread, then _exit(129) (SIGHUP's).
 *
 * A suite's entries are supervised instead: the suite forks each entry's
 * run and is its watcher itself (bn_isolate_start, bn_isolate_step for
 * each running entry, bn_isolate_wait on all of them), so an entry is one
 * process, not a watching parent and a run. Such a child has no pipe and
 * no thread (a second thread makes every later page-table change of the
 * run's process cost an interrupt of the other core): it asks the kernel
 * for SIGHUP when the suite dies (PR_SET_PDEATHSIG; the suite forks from
 * its only thread) and, from that handler, marks beacon.lost and starts a
 * grace_s alarm. A run that has not stopped by then (a firmware that does
 * not return) _exits 129 leaving its provisional report and spool, which
 * the next run into the directory or `bcbench salvage` finishes: with
 * the suite gone there is no process left to finish them sooner. On a
 * real bench (hardware to put in its safe state) the entry keeps the
 * watcher thread instead (bn_isolate_watch_parent), whose cost is
 * nothing next to an instrument's. */
#ifndef BN_CLI_ISOLATE_H
#define BN_CLI_ISOLATE_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "scenario/runner.h"

/* beacon.lost: which process the run belonged to is gone. */
enum bn_lost {
	BN_LOST_NONE = 0,
	BN_LOST_PARENT = 1,   /* the process that forked the run (bcbench run) */
	BN_LOST_SUITE = 2,    /* the suite that forked the run (its entry) */
};

struct bn_isolate {
	double watchdog_s;                 /* > 0 */
	double grace_s;                    /* > 0 */
	volatile sig_atomic_t *stop_flag;  /* the parent's; may be NULL */
	struct bn_run_beacon *beacon;      /* from bn_isolate_beacon_new() */
	/* In the child, from its watcher thread, when its parent is gone and
	 * the run did not stop within grace_s (a parent still there kills and
	 * salvages the child itself): put the bench in its safe state and
	 * finish the record without the stuck main path (cause says why).
	 * NULL: none. The child then _exits 129 (SIGHUP's). */
	void (*orphaned)(void *user, const char *cause);
	/* The caller watches the child itself, from its only thread (a
	 * suite): no pipe, no watcher thread in the child; the child's body
	 * calls bn_isolate_orphan_watch(). orphaned unused. */
	bool supervised;
};

/* How the child ended. */
struct bn_isolate_end {
	bool abnormal;         /* killed by a signal or by the watchdog */
	/* The child's exit code; when abnormal, why (core/exit.h): 3 a crash
	 * (a signal the run raised), an exit before the run finished, or the
	 * watchdog in a firmware call; 5 the watchdog anywhere else; 128+N a
	 * stop signal passed on (a lost parent: SIGHUP's) or a SIGKILL. */
	int exit_code;
	int signal;            /* the signal that ended it, 0 if none */
	char cause[512];       /* abnormal: what happened, for the report */
	struct bn_run_beacon last;  /* the beacon when it ended */
};

/* Why the run stopped, for its report: "the bcbench process that started
 * this run is gone (killed?)"; NULL for BN_LOST_NONE. */
const char *bn_isolate_lost_reason(int lost);

/* A beacon in memory shared with children forked later; NULL on failure. */
/* End a forked process (a suite's entry, a run's child) with code: its
 * stdio flushed, without the libraries' exit-time destructors and
 * atexit handlers (bcbench registers none; the two dozen libraries'
 * destructors only touch pages the process is about to drop, each a
 * copy-on-write fault). A sanitizer build exits normally, for its leak
 * report. */
_Noreturn void bn_isolate_exit(int code);
/* The cores this process may run on (sched_getaffinity; at least 1). */
int bn_isolate_cores_allowed(void);
/* The capture writer's compression threads beside a run's own thread
 * (bn_srw_opts.threads), on `cores` allowed: a standalone run (jobs 0)
 * keeps one core for the simulation and may use the rest, cores - 1. An
 * entry of a suite (jobs > 0, whatever its -j) compresses on its own
 * thread, 0: a suite spreads over the cores by -j, entry by entry, and a
 * thread beside each entry would make the entries fight for the cores
 * (and cost each entry a thread's start and the other core's page-table
 * interrupts for the short captures a suite's entries mostly are). */
int bn_isolate_capture_threads(int cores, int jobs);
struct bn_run_beacon *bn_isolate_beacon_new(void);
void bn_isolate_beacon_free(struct bn_run_beacon *b);

/* A child being watched, between bn_isolate_start and the
 * bn_isolate_step that sees it end. */
struct bn_isolate_child {
	pid_t pid;                  /* 0: none (ended) */
	int pidfd;                  /* -1 without pidfd_open (a kernel before 5.3) */
	int pipe_w;                 /* the parent's end of the child's watch pipe */
	struct bn_run_beacon seen;  /* the beacon when it last moved */
	double last_move, stop_at;  /* CLOCK_MONOTONIC s */
	int forwarded, killed_by;   /* the stop passed on; SIGKILL once killed */
	struct bn_isolate_end end;  /* why it was killed, when it was */
};

/* Fork and run body(user) in the child (which exits with its value).
 * 0, or a negative error (fork failed: nothing ran). */
int bn_isolate_start(const struct bn_isolate *iso, int (*body)(void *user), void *user,
		     struct bn_isolate_child *ch);
/* One look at the child, without waiting: its beacon against the
 * watchdog, the stop flag passed on, the grace after it. 1 when it has
 * ended (*end filled, ch->pid 0), 0 while it runs, < 0 on an error. */
int bn_isolate_step(const struct bn_isolate *iso, struct bn_isolate_child *ch,
		    struct bn_isolate_end *end);
/* Sleep until one of the n children (NULL or ended ones skipped) ends, a
 * signal comes, or the next look is due (50 ms). */
void bn_isolate_wait(struct bn_isolate_child *const *ch, int n);
/* In a supervised child, once its own signal handlers are set: SIGHUP
 * when parent (the pid that forked it) is gone, which marks beacon.lost
 * BN_LOST_SUITE, sets *stop_flag and gives the run grace_s to stop before
 * the process _exits 129. SIGHUP from anyone else stops the run as
 * always. 0, or BN_ERR_IO when the kernel refuses PR_SET_PDEATHSIG. */
int bn_isolate_orphan_watch(struct bn_run_beacon *beacon, pid_t parent, double grace_s,
			    volatile sig_atomic_t *stop_flag);
/* In a supervised child on a real bench: the watcher thread of an
 * isolated run instead (getppid() against parent, every 50 ms), so a run
 * stuck in its firmware when the suite is gone still gets iso->orphaned
 * (the bench's safe state, the record) before it _exits 129. lost_as:
 * the beacon's enum bn_lost on the loss. iso must outlive the process. */
int bn_isolate_watch_parent(const struct bn_isolate *iso, void *user, pid_t parent, int lost_as);

/* Fork, run body(user) in the child, watch it. body must set the
 * beacon's finished before it returns: a child that exits without it
 * ended abnormally. Returns 0 with *end
 * filled, or a negative error (fork failed: nothing ran). */
int bn_isolate_run(const struct bn_isolate *iso, int (*body)(void *user), void *user,
		   struct bn_isolate_end *end);

#endif
