#include "hil/lock.h"

#include <errno.h>
#include <ctype.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/dirlock.h"
#include "core/time.h"

const char *bn_lock_default_dir(void)
{
	return access("/run/lock", W_OK) == 0 ? "/run/lock" : "/tmp";
}

/* The descriptor a parent shares, if it is open on the same file as fd
 * and holds the lock: flock on a descriptor whose open file already holds
 * it succeeds without waiting. -1 otherwise. */
static int shared_from_parent(int fd)
{
	const char *env = getenv(BN_LOCK_FD_ENV);
	struct stat mine, theirs;
	char *end;
	long v;

	if (!env || !env[0])
		return -1;
	v = strtol(env, &end, 10);
	if (*end || v < 0 || v > 65535 || v == fd)
		return -1;
	if (fstat(fd, &mine) < 0 || fstat((int)v, &theirs) < 0 || mine.st_dev != theirs.st_dev ||
	    mine.st_ino != theirs.st_ino)
		return -1;
	return flock((int)v, LOCK_EX | LOCK_NB) == 0 ? (int)v : -1;
}

void bn_lock_share_with_children(const struct bn_lock *l)
{
	char num[16];

	if (l->fd < 0)
		return;
	snprintf(num, sizeof(num), "%d", l->fd);
	setenv(BN_LOCK_FD_ENV, num, 1);
}

/* The serial in "ftdi:VID:PID:SERIAL" or "ftdi:serial=SERIAL"; "". */
static void fixture_serial(const char *spec, char *out, size_t len)
{
	const char *p = spec ? strchr(spec, ':') : NULL, *s;

	out[0] = '\0';
	if (!p)
		return;
	p++;
	if (!strncmp(p, "serial=", 7)) {
		snprintf(out, len, "%s", p + 7);
		return;
	}
	/* VID:PID:SERIAL: the third field, after two colons */
	s = strchr(p, ':');
	if (s && (s = strchr(s + 1, ':')) && s[1] && !strchr(p, '='))
		snprintf(out, len, "%s", s + 1);
}

void bn_lock_bench_name(const char *base, const char *fixture_spec, const char *conf_path,
			char *out, size_t len)
{
	char serial[128], abs_path[PATH_MAX];
	size_t n;

	fixture_serial(fixture_spec, serial, sizeof(serial));
	if (serial[0]) {
		snprintf(out, len, "%s-%s", base, serial);
	} else if (conf_path && conf_path[0] && realpath(conf_path, abs_path)) {
		uint64_t h = 0xcbf29ce484222325ull;

		for (const unsigned char *c = (const unsigned char *)abs_path; *c; c++)
			h = (h ^ *c) * 0x100000001b3ull;
		snprintf(out, len, "%s-%08x", base, (unsigned)(h >> 32));
	} else {
		snprintf(out, len, "%s", base);
	}
	n = strlen(out);
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)out[i]) && !strchr("-_.", out[i]))
			out[i] = '_';
}

int bn_lock_take(struct bn_lock *l, const char *dir, const char *name, double wait_s,
		 const char *who, volatile const sig_atomic_t *stop, struct bn_err *err)
{
	double t0 = bn_mono_s();
	char holder[700];

	l->fd = -1;
	l->inherited = 0;
	if (!dir || !dir[0])
		dir = bn_lock_default_dir();
	snprintf(l->path, sizeof(l->path), "%s/bcbench-%s.lock", dir, name && name[0] ? name : "bench");
	/* 0666 and no O_TRUNC: every lab user may queue on it; the holder
	 * rewrites the content once it holds the lock. */
	l->fd = open(l->path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
	if (l->fd < 0) {
		int e = errno;

		/* A lock_dir that is not there is a configuration error; one the
		 * user may not write is the environment's. */
		return bn_err_set(err, e == ENOENT || e == ENOTDIR ? BN_ERR_IO : BN_ERR_ENV,
				  "bench lock %s: cannot open: %s", l->path, strerror(e));
	}
	{
		int parent_fd = shared_from_parent(l->fd);

		if (parent_fd >= 0) {
			close(l->fd);
			l->fd = parent_fd;
			l->inherited = 1;
			return BN_OK;
		}
	}
	for (;;) {
		if (flock(l->fd, LOCK_EX | LOCK_NB) == 0) {
			bn_lock_holder_write(l->fd, who);
			return BN_OK;
		}
		if (errno != EWOULDBLOCK && errno != EINTR) {
			int e = errno;

			close(l->fd);
			l->fd = -1;
			return bn_err_set(err, BN_ERR_ENV, "bench lock %s: %s", l->path, strerror(e));
		}
		if (stop && *stop) {
			close(l->fd);
			l->fd = -1;
			return bn_err_set(err, BN_ERR_INTR, "interrupted while waiting for the bench lock %s",
					  l->path);
		}
		if (wait_s >= 0 && bn_mono_s() - t0 >= wait_s)
			break;
		usleep(50000);
	}
	bn_lock_holder_read(l->fd, holder, sizeof(holder));
	close(l->fd);
	l->fd = -1;
	if (wait_s > 0)
		return bn_err_set(err, BN_ERR_FAULT,
				  "bench \"%s\" is still in use after waiting %.0f s: held by %s; lock %s",
				  name, wait_s, holder, l->path);
	return bn_err_set(err, BN_ERR_FAULT,
			  "bench \"%s\" is in use by %s; lock %s (--wait SECONDS queues for it)", name,
			  holder, l->path);
}

void bn_lock_release(struct bn_lock *l)
{
	/* The parent's open file: unlocking it would free the bench under the
	 * parent's feet. */
	if (l->inherited) {
		l->fd = -1;
		l->inherited = 0;
		return;
	}
	if (l->fd >= 0) {
		/* Leave the file (others may be queued on it); say it is free. */
		if (ftruncate(l->fd, 0) != 0) {
			/* nothing to do: the lock goes with the descriptor */
		}
		flock(l->fd, LOCK_UN);
		close(l->fd);
	}
	l->fd = -1;
}
