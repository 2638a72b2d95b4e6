/* An LD_PRELOAD seam for the fault matrix (tests/integration/faults.sh):
 * writes to files whose path contains $BN_FAULT_PATH fail with
 * $BN_FAULT_ERRNO (ENOSPC, EFBIG or EIO; default ENOSPC) once
 * $BN_FAULT_AFTER bytes (default 0) have gone to such files: a disk that
 * fills up mid-run, on any machine, without root or a small file system.
 *
 * Interposes what bcbench's writers call through the PLT: write, pwrite,
 * pwrite64, fwrite, posix_fallocate, posix_fallocate64 (the capture's spool, its frame
 * buffer and libzip's output). Other files (stdout, stderr, sockets,
 * paths that do not match) pass through untouched.
 *
 * $BN_FAULT_FREE (bytes), when set, is the free space statvfs reports for
 * every file system: the pre-run estimate meets a small disk without one. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/types.h>
#include <unistd.h>

static long long used_bytes;

static int fault_errno(void)
{
	const char *e = getenv("BN_FAULT_ERRNO");

	if (e && !strcmp(e, "EFBIG"))
		return EFBIG;
	if (e && !strcmp(e, "EIO"))
		return EIO;
	return ENOSPC;
}

static int matches(int fd)
{
	const char *pat = getenv("BN_FAULT_PATH");
	char link[64], path[4096];
	struct stat st;
	ssize_t n;

	if (!pat || !*pat || fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
		return 0;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, sizeof(path) - 1);
	if (n <= 0)
		return 0;
	path[n] = '\0';
	return strstr(path, pat) != NULL;
}

/* 0: let len bytes through; else the errno to fail with. */
static int charge(int fd, size_t len)
{
	const char *after = getenv("BN_FAULT_AFTER");
	long long limit = after ? atoll(after) : 0;

	if (!matches(fd))
		return 0;
	if (__atomic_add_fetch(&used_bytes, (long long)len, __ATOMIC_RELAXED) > limit)
		return fault_errno();
	return 0;
}

#define REAL(name, type) ((type)dlsym(RTLD_NEXT, name))

ssize_t write(int fd, const void *buf, size_t len)
{
	int e = charge(fd, len);

	if (e) {
		errno = e;
		return -1;
	}
	return REAL("write", ssize_t (*)(int, const void *, size_t))(fd, buf, len);
}

ssize_t pwrite(int fd, const void *buf, size_t len, off_t off)
{
	int e = charge(fd, len);

	if (e) {
		errno = e;
		return -1;
	}
	return REAL("pwrite", ssize_t (*)(int, const void *, size_t, off_t))(fd, buf, len, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t len, off64_t off)
{
	int e = charge(fd, len);

	if (e) {
		errno = e;
		return -1;
	}
	return REAL("pwrite64", ssize_t (*)(int, const void *, size_t, off64_t))(fd, buf, len, off);
}

size_t fwrite(const void *buf, size_t size, size_t n, FILE *f)
{
	int e = charge(fileno(f), size * n);

	if (e) {
		errno = e;
		return 0;
	}
	return REAL("fwrite", size_t (*)(const void *, size_t, size_t, FILE *))(buf, size, n, f);
}

int posix_fallocate(int fd, off_t off, off_t len)
{
	int e = charge(fd, (size_t)len);

	if (e)
		return e;
	return REAL("posix_fallocate", int (*)(int, off_t, off_t))(fd, off, len);
}

/* what a program built with _FILE_OFFSET_BITS=64 calls */
int posix_fallocate64(int fd, off64_t off, off64_t len)
{
	int e = charge(fd, (size_t)len);

	if (e)
		return e;
	return REAL("posix_fallocate64", int (*)(int, off64_t, off64_t))(fd, off, len);
}

static void fake_free(struct statvfs *v)
{
	const char *f = getenv("BN_FAULT_FREE");

	if (f && v->f_frsize)
		v->f_bavail = v->f_bfree = (fsblkcnt_t)(atoll(f) / (long long)v->f_frsize);
}

int statvfs(const char *path, struct statvfs *v)
{
	int rc = REAL("statvfs", int (*)(const char *, struct statvfs *))(path, v);

	if (rc == 0)
		fake_free(v);
	return rc;
}

int statvfs64(const char *path, struct statvfs64 *v)
{
	int rc = REAL("statvfs64", int (*)(const char *, struct statvfs64 *))(path, v);

	const char *f = getenv("BN_FAULT_FREE");

	if (rc == 0 && f && v->f_frsize)
		v->f_bavail = v->f_bfree = (fsblkcnt64_t)(atoll(f) / (long long)v->f_frsize);
	return rc;
}
