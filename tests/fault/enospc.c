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
 * every file system: the pre-run estimate meets a small disk without one.
 *
 * The capture's spool is a shared mapping of its pending file, and two
 * more seams fail it (both off unless set):
 * $BN_FAULT_MMAP_PATH: a shared mapping of a file whose path contains
 *   it fails with ENODEV (a file system without them);
 * $BN_FAULT_MREMAP_AFTER=N: the calls to mremap after the first N fail
 *   with ENOMEM (an address space that is full). glibc's own malloc
 *   reaches mremap inside libc, not through here: only bcbench's calls
 *   (the spool's growth) count. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
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

/* fd is a regular file whose path contains $var */
static int matches_var(int fd, const char *var)
{
	const char *pat = getenv(var);
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

static int matches(int fd)
{
	return matches_var(fd, "BN_FAULT_PATH");
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

/* A shared mapping of a file that $BN_FAULT_MMAP_PATH names: refused, as
 * a file system without them refuses it (errno set). */
static int map_refused(int flags, int fd)
{
	if (!(flags & MAP_SHARED) || !matches_var(fd, "BN_FAULT_MMAP_PATH"))
		return 0;
	errno = ENODEV;
	return 1;
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	if (map_refused(flags, fd))
		return MAP_FAILED;
	return REAL("mmap", void *(*)(void *, size_t, int, int, int, off_t))(addr, len, prot, flags,
									  fd, off);
}

/* what a program built with _FILE_OFFSET_BITS=64 calls */
void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off64_t off)
{
	if (map_refused(flags, fd))
		return MAP_FAILED;
	return REAL("mmap64", void *(*)(void *, size_t, int, int, int, off64_t))(addr, len, prot,
									      flags, fd, off);
}

static long mremap_calls;

void *mremap(void *old, size_t old_len, size_t new_len, int flags, ...)
{
	const char *after = getenv("BN_FAULT_MREMAP_AFTER");
	void *new_addr = NULL;
	va_list ap;

	if (flags & MREMAP_FIXED) {
		va_start(ap, flags);
		new_addr = va_arg(ap, void *);
		va_end(ap);
	}
	if (after && __atomic_add_fetch(&mremap_calls, 1, __ATOMIC_RELAXED) > atol(after)) {
		errno = ENOMEM;
		return MAP_FAILED;
	}
	return REAL("mremap", void *(*)(void *, size_t, size_t, int, ...))(old, old_len, new_len,
									   flags, new_addr);
}
