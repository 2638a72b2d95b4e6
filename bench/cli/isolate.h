/* A run in a child process under a wall-clock watchdog, so a firmware
 * that crashes the process or hangs inside a call cannot take the
 * command (or a suite) down with it, and still leaves a report.
 *
 * The child runs body() and exits with its return value. The parent
 * watches the run's beacon (shared memory the runner bumps for every
 * sample and step): no progress for watchdog_s and the child is killed.
 * A stop signal (the parent's flag) is passed on to the child, which
 * gets grace_s to reach its safe state and write its report before it is
 * killed. */
#ifndef BN_CLI_ISOLATE_H
#define BN_CLI_ISOLATE_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "scenario/runner.h"

struct bn_isolate {
	double watchdog_s;                 /* > 0 */
	double grace_s;                    /* > 0 */
	volatile sig_atomic_t *stop_flag;  /* the parent's; may be NULL */
	struct bn_run_beacon *beacon;      /* from bn_isolate_beacon_new() */
};

/* How the child ended. */
struct bn_isolate_end {
	bool abnormal;         /* killed by a signal or by the watchdog */
	int exit_code;         /* the child's exit code; 3 when abnormal */
	int signal;            /* the signal that ended it, 0 if none */
	char cause[512];       /* abnormal: what happened, for the report */
	struct bn_run_beacon last;  /* the beacon when it ended */
};

/* A beacon in memory shared with children forked later; NULL on failure. */
struct bn_run_beacon *bn_isolate_beacon_new(void);
void bn_isolate_beacon_free(struct bn_run_beacon *b);

/* Fork, run body(user) in the child, watch it. body must set the
 * beacon's finished before it returns: a child that exits without it
 * ended abnormally. Returns 0 with *end
 * filled, or a negative error (fork failed: nothing ran). */
int bn_isolate_run(const struct bn_isolate *iso, int (*body)(void *user), void *user,
		   struct bn_isolate_end *end);

#endif
