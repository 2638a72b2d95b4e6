/* One writer per output directory: a run or a suite holds an exclusive
 * flock on DIR/.bcbench.lock while it writes there, so a second run into
 * the same directory is refused (naming the holder) instead of mixing its
 * files with the first's, or cleaning up the first's spool. The holder
 * writes "pid N (COMMAND, since WHEN)" into the file for that message.
 * The kernel drops the lock when the last process holding the descriptor
 * dies, even on SIGKILL: a run's isolated child, which inherits it, keeps
 * the directory until it too is gone. */
#ifndef BN_CORE_DIRLOCK_H
#define BN_CORE_DIRLOCK_H

#include <stddef.h>

#include "core/err.h"

#define BN_DIRLOCK_NAME ".bcbench.lock"

struct bn_dirlock {
	int fd;            /* -1: not held */
	char path[1200];
};

/* Create dir if needed and take its lock, without waiting. Held by
 * another: BN_ERR_FAULT, "DIR is in use by pid 123 (bcbench run x.scn,
 * since ...): one writer per output directory". A directory that cannot
 * be created or a lock file that cannot be written: BN_ERR_IO naming it. */
int bn_dirlock_take(struct bn_dirlock *l, const char *dir, const char *who, struct bn_err *err);
/* The holder's line in a lock file ("pid N (WHO, since WHEN)"), shared
 * with the bench lock (hil/lock.c): read (a placeholder while the holder
 * has not written it yet) and write (replacing the content). */
void bn_lock_holder_read(int fd, char *buf, size_t len);
void bn_lock_holder_write(int fd, const char *who);
/* Remove the lock file and drop the lock (nothing when not held). */
void bn_dirlock_release(struct bn_dirlock *l);

#endif
