/* The bench lock: one run drives one bench. An exclusive flock on
 * DIR/bcbench-NAME.lock, NAME the fixture's (its file's stem, or the
 * conf's name for the bench). The holder writes who it is into the file,
 * so a run that finds the bench taken can name the holder. The kernel
 * drops the lock when the holder dies, even on SIGKILL: no stale locks. */
#ifndef BN_HIL_LOCK_H
#define BN_HIL_LOCK_H

#include <signal.h>

#include "core/err.h"

struct bn_lock {
	int fd;             /* -1: not held */
	int inherited;      /* held by a parent through BN_LOCK_FD_ENV: not ours to drop */
	char path[600];
};

/* A process that holds the lock for its children (`bcbench suite` for its
 * entries) names the descriptor here. A child's bn_lock_take checks that
 * the descriptor is open on the same lock file and that flock on it holds;
 * only then does it share the lock instead of queueing behind its own
 * parent. A stale or foreign number is ignored, so it cannot bypass the
 * lock. */
#define BN_LOCK_FD_ENV "BCBENCH_LOCK_FD"

/* After taking l: let children share it (sets BN_LOCK_FD_ENV). */
void bn_lock_share_with_children(const struct bn_lock *l);

/* The lock's name for one bench: base (the fixture file's stem, or
 * "bench"), then the fixture's USB serial when bench.conf's fixture names
 * one (ftdi:VID:PID:SERIAL, ftdi:serial=SERIAL), else the first 8 hex
 * digits of a hash (FNV-1a) of bench.conf's absolute path: two identical
 * benches on one host (two fixtures of the same design, two confs) do
 * not share a lock, and one bench is one lock whichever way its conf is
 * named. Neither known (no conf file): base alone. Characters a file
 * name should not hold become '_'. */
void bn_lock_bench_name(const char *base, const char *fixture_spec, const char *conf_path,
			char *out, size_t len);

/* The lock directory when bench.conf names none: /run/lock if writable,
 * else /tmp. */
const char *bn_lock_default_dir(void);

/* Take the lock. wait_s 0: try once; > 0: wait up to that long; < 0:
 * forever. who: one line saying who holds it (the command, the
 * scenario). Taken: BN_OK. Held by another: BN_ERR_FAULT (exit 5, a
 * bench fault), "bench \"NAME\" is in use by pid 123 (bcbench run dcp.scn, since
 * 2026-12-04 05:40:02 UTC); lock DIR/bcbench-NAME.lock" (and how long it
 * waited). A signal through stop: BN_ERR_INTR. A lock file that cannot be
 * opened: BN_ERR_IO naming it. Held by a parent that shares it
 * (BN_LOCK_FD_ENV): BN_OK with inherited set. */
int bn_lock_take(struct bn_lock *l, const char *dir, const char *name, double wait_s,
		 const char *who, volatile const sig_atomic_t *stop, struct bn_err *err);
void bn_lock_release(struct bn_lock *l);

#endif
