#include "core/dirlock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/file.h"

void bn_lock_holder_read(int fd, char *buf, size_t len)
{
	ssize_t n = pread(fd, buf, len - 1, 0);
	char *nl;

	buf[n > 0 ? n : 0] = '\0';
	nl = strchr(buf, '\n');
	if (nl)
		*nl = '\0';
	if (!buf[0])
		snprintf(buf, len, "a process that has not said who it is yet");
}

void bn_lock_holder_write(int fd, const char *who)
{
	char line[700], when[64];
	time_t now = time(NULL);
	struct tm tm;
	int n;

	gmtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm);
	n = snprintf(line, sizeof(line), "pid %ld (%s, since %s)\n", (long)getpid(),
		     who && who[0] ? who : "bcbench", when);
	if (ftruncate(fd, 0) == 0 && n > 0)
		(void)!pwrite(fd, line, (size_t)n, 0);
}

int bn_dirlock_take(struct bn_dirlock *l, const char *dir, const char *who, struct bn_err *err)
{
	char holder[700];
	int rc;

	l->fd = -1;
	rc = bn_mkdir_p(dir, err);
	if (rc < 0)
		return rc;
	snprintf(l->path, sizeof(l->path), "%s/%s", dir, BN_DIRLOCK_NAME);
	/* The holder removes the file when it is done: a file taken from an
	 * unlinked path is no lock, so the path is checked after flock and the
	 * whole is tried again (a bounded number of times: each retry means
	 * another writer came and went). */
	for (int tries = 0; tries < 50; tries++) {
		struct stat by_fd, by_path;
		int fd = open(l->path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);

		if (fd < 0) /* read-only, not ours: an output, never the input's fault */
			return bn_err_set(err, bn_err_from_write_errno(errno),
					  "%s: cannot write to the output directory: %s", dir,
					  strerror(errno));
		if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
			int e = errno;

			if (e != EWOULDBLOCK) {
				close(fd);
				return bn_err_set(err, BN_ERR_ENV, "%s: cannot lock: %s", l->path,
						  strerror(e));
			}
			bn_lock_holder_read(fd, holder, sizeof(holder));
			close(fd);
			return bn_err_set(err, BN_ERR_FAULT,
					  "%s is in use by %s: one writer per output directory "
					  "(lock %s)",
					  dir, holder, l->path);
		}
		if (fstat(fd, &by_fd) == 0 && stat(l->path, &by_path) == 0 &&
		    by_fd.st_dev == by_path.st_dev && by_fd.st_ino == by_path.st_ino) {
			bn_lock_holder_write(fd, who);
			l->fd = fd;
			return BN_OK;
		}
		close(fd);
	}
	return bn_err_set(err, BN_ERR_FAULT, "%s: the lock file %s keeps changing under us", dir,
			  l->path);
}

void bn_dirlock_release(struct bn_dirlock *l)
{
	if (l->fd < 0)
		return;
	/* unlinked while held: a writer that opened it meanwhile sees the
	 * path gone after its flock and starts again */
	unlink(l->path);
	flock(l->fd, LOCK_UN);
	close(l->fd);
	l->fd = -1;
}
