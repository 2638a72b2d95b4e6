/* Files: atomic replace, whole reads, SHA-256, mkdir -p. */
#include "core/file.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <nettle/sha2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#define FILE_CHUNK_BYTES 65536

/* write() until all of it is out. */
static int write_all(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The directory part of path, malloc'ed: "a/b/c" -> "a/b", "c" -> ".",
 * "/c" -> "/". */
static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return strdup(".");
	while (slash > path && slash[-1] == '/')
		slash--;
	if (slash == path)
		return strdup("/");
	return strndup(path, (size_t)(slash - path));
}

static int write_atomic(const char *path, const void *data, size_t len, bool durable,
			struct bn_err *err);

int bn_fsync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int rc = 0;

	if (fd < 0)
		return -1;
	/* Some file systems cannot sync a directory; the rename stands. */
	if (fsync(fd) != 0 && errno != EINVAL && errno != ENOTSUP)
		rc = -1;
	close(fd);
	return rc;
}

int bn_file_write_atomic(const char *path, const void *data, size_t len,
			 struct bn_err *err)
{
	return write_atomic(path, data, len, true, err);
}

int bn_file_write_atomic_nosync(const char *path, const void *data, size_t len,
				struct bn_err *err)
{
	return write_atomic(path, data, len, false, err);
}

static int write_atomic(const char *path, const void *data, size_t len, bool durable,
			struct bn_err *err)
{
	const char *base;
	char *dir = NULL, *tmp = NULL;
	struct stat st;
	mode_t mode = 0644; /* new files; an existing file keeps its mode */
	size_t tmp_len;
	char why[160];
	int fd = -1, e, rc;

	if (!path || !path[0] || (len > 0 && !data))
		return bn_err_set(err, BN_ERR_ARG, "write: bad arguments");
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if (!base[0])
		return bn_err_set(err, BN_ERR_ARG, "%s: not a file name", path);

	dir = dir_of(path);
	if (!dir)
		goto nomem;
	tmp_len = strlen(dir) + strlen(base) + sizeof("/..tmp-XXXXXX");
	tmp = malloc(tmp_len);
	if (!tmp)
		goto nomem;
	snprintf(tmp, tmp_len, "%s/.%s.tmp-XXXXXX", dir, base);
	if (stat(path, &st) == 0)
		mode = st.st_mode & 07777;

	fd = mkstemp(tmp);
	if (fd < 0) {
		e = errno;
		rc = bn_err_set(err, bn_err_from_write_errno(e),
				"%s: cannot create a temporary file in %s: %s", path, dir,
				bn_errno_text(e, why, sizeof(why)));
		free(tmp);
		free(dir);
		return rc;
	}
	if (fchmod(fd, mode) != 0 || write_all(fd, data, len) != 0 ||
	    (durable && fsync(fd) != 0)) {
		e = errno;
		rc = bn_err_set(err, bn_err_from_write_errno(e), "%s: write failed: %s", path,
				bn_errno_text(e, why, sizeof(why)));
		goto fail;
	}
	if (close(fd) != 0) {
		e = errno;
		fd = -1;
		rc = bn_err_set(err, bn_err_from_write_errno(e), "%s: write failed: %s", path,
				bn_errno_text(e, why, sizeof(why)));
		goto fail;
	}
	fd = -1;
	if (rename(tmp, path) != 0) {
		e = errno;
		rc = bn_err_set(err, bn_err_from_write_errno(e), "%s: cannot replace: %s", path,
				bn_errno_text(e, why, sizeof(why)));
		goto fail;
	}
	if (durable && bn_fsync_dir(dir) != 0) {
		/* The new file is in place; only durability is in doubt. */
		e = errno;
		rc = bn_err_set(err, bn_err_from_write_errno(e), "%s: cannot sync directory %s: %s",
				path, dir, bn_errno_text(e, why, sizeof(why)));
		free(tmp);
		free(dir);
		return rc;
	}
	free(tmp);
	free(dir);
	return BN_OK;

fail:
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	free(tmp);
	free(dir);
	return rc;
nomem:
	free(tmp);
	free(dir);
	return bn_err_set(err, BN_ERR_NOMEM, "%s: out of memory", path);
}

int bn_file_read(const char *path, char **out, size_t *len, struct bn_err *err)
{
	char *buf = NULL, *nbuf;
	size_t cap = 0, used = 0;
	struct stat st;
	int fd, e;

	if (!path || !out)
		return bn_err_set(err, BN_ERR_ARG, "read: bad arguments");
	*out = NULL;
	if (len)
		*len = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		e = errno;
		return bn_err_set(err, BN_ERR_IO, "%s: cannot open: %s", path,
				  strerror(e));
	}
	if (fstat(fd, &st) < 0)
		st.st_mode = 0; /* size unknown: read in chunks */
	if (S_ISDIR(st.st_mode)) {
		close(fd);
		return bn_err_set(err, BN_ERR_IO, "%s: is a directory", path);
	}
	/* Read to EOF rather than trusting st_size (pipes, /proc, growth);
	 * st_size only sizes the first buffer, so a small file is one small
	 * allocation (room for its NUL and the read that sees EOF). */
	for (;;) {
		ssize_t n;

		if (cap - used < 2) {
			if (cap)
				cap *= 2;
			else if (S_ISREG(st.st_mode) && st.st_size > 0 && st.st_size < FILE_CHUNK_BYTES)
				cap = (size_t)st.st_size + 2;
			else
				cap = FILE_CHUNK_BYTES + 1;
			nbuf = realloc(buf, cap);
			if (!nbuf) {
				free(buf);
				close(fd);
				return bn_err_set(err, BN_ERR_NOMEM, "%s: out of memory",
						  path);
			}
			buf = nbuf;
		}
		n = read(fd, buf + used, cap - used - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			e = errno;
			free(buf);
			close(fd);
			return bn_err_set(err, BN_ERR_IO, "%s: read failed: %s", path,
					  strerror(e));
		}
		if (n == 0)
			break;
		used += (size_t)n;
	}
	close(fd);
	buf[used] = '\0';
	*out = buf;
	if (len)
		*len = used;
	return BN_OK;
}

/* SHA-256 through nettle: its x86-64 build uses the SHA extensions when
 * the CPU has them (measured 7x GLib's GChecksum on a 153 MB capture). */
static void digest_to_hex(struct sha256_ctx *ck, char hex[65])
{
	static const char digits[] = "0123456789abcdef";
	uint8_t d[SHA256_DIGEST_SIZE];

	sha256_digest(ck, sizeof(d), d);
	for (int i = 0; i < SHA256_DIGEST_SIZE; i++) {
		hex[2 * i] = digits[d[i] >> 4];
		hex[2 * i + 1] = digits[d[i] & 15];
	}
	hex[64] = '\0';
}

void bn_sha256_hex(const void *data, size_t len, char hex[65])
{
	struct sha256_ctx ck;

	sha256_init(&ck);
	sha256_update(&ck, len, data);
	digest_to_hex(&ck, hex);
}

int bn_file_sha256(const char *path, char hex[65], struct bn_err *err)
{
	static const size_t chunk = 4 * FILE_CHUNK_BYTES;
	uint8_t *buf;
	struct sha256_ctx ck;
	int fd, e;

	if (!path || !hex)
		return bn_err_set(err, BN_ERR_ARG, "sha256: bad arguments");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		e = errno;
		return bn_err_set(err, BN_ERR_IO, "%s: cannot open: %s", path,
				  strerror(e));
	}
	buf = malloc(chunk);
	if (!buf) {
		close(fd);
		return bn_err_set(err, BN_ERR_NOMEM, "%s: out of memory", path);
	}
	sha256_init(&ck);
	for (;;) {
		ssize_t n = read(fd, buf, chunk);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			e = errno;
			free(buf);
			close(fd);
			return bn_err_set(err, BN_ERR_IO, "%s: read failed: %s", path,
					  strerror(e));
		}
		if (n == 0)
			break;
		sha256_update(&ck, (size_t)n, buf);
	}
	free(buf);
	close(fd);
	digest_to_hex(&ck, hex);
	return BN_OK;
}

/* mkdir one component; an existing directory is fine. */
static int mkdir_one(const char *path, const char *whole, struct bn_err *err)
{
	struct stat st;
	char why[160];
	int e;

	if (mkdir(path, 0777) == 0)
		return BN_OK;
	e = errno;
	if (e == EEXIST) {
		if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
			return BN_OK;
		return bn_err_set(err, BN_ERR_ENV, "%s: cannot create directory: %s exists and is not a directory",
				  whole, path);
	}
	return bn_err_set(err, bn_err_from_write_errno(e), "%s: cannot create directory %s: %s",
			  whole, path, bn_errno_text(e, why, sizeof(why)));
}

int bn_mkdir_p(const char *path, struct bn_err *err)
{
	char *buf, *p;
	int rc = BN_OK;

	if (!path || !path[0])
		return bn_err_set(err, BN_ERR_ARG, "mkdir: empty path");
	/* Most calls find the directory there (a run makes its output
	 * directory three times): one stat, not a mkdir and a stat for each
	 * component. */
	{
		struct stat st;

		if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
			return BN_OK;
	}
	buf = strdup(path);
	if (!buf)
		return bn_err_set(err, BN_ERR_NOMEM, "%s: out of memory", path);
	/* Each prefix ending before a '/' (skipping leading and doubled
	 * slashes), then the whole path. */
	for (p = buf + 1; *p && rc == BN_OK; p++) {
		if (*p != '/' || p[-1] == '/')
			continue;
		*p = '\0';
		rc = mkdir_one(buf, path, err);
		*p = '/';
	}
	if (rc == BN_OK)
		rc = mkdir_one(buf, path, err);
	free(buf);
	return rc;
}

int bn_afile_open(struct bn_afile *a, const char *path, struct bn_err *err)
{
	char *dir = dir_of(path);
	const char *slash = strrchr(path, '/');
	int fd;

	memset(a, 0, sizeof(*a));
	if (!dir)
		return bn_err_set(err, BN_ERR_NOMEM, "%s: out of memory", path);
	snprintf(a->path, sizeof(a->path), "%s", path);
	snprintf(a->tmp, sizeof(a->tmp), "%s/.%s.tmp-XXXXXX", dir, slash ? slash + 1 : path);
	free(dir);
	fd = mkstemp(a->tmp);
	if (fd < 0) {
		int e = errno;
		char why[160];

		return bn_err_set(err, bn_err_from_write_errno(e),
				  "%s: cannot create a temporary file: %s", path,
				  bn_errno_text(e, why, sizeof(why)));
	}
	fchmod(fd, 0644);
	a->f = fdopen(fd, "w");
	if (!a->f) {
		close(fd);
		unlink(a->tmp);
		return bn_err_set(err, BN_ERR_NOMEM, "%s: %s", path, strerror(errno));
	}
	return BN_OK;
}

int bn_afile_commit(struct bn_afile *a, struct bn_err *err)
{
	int bad;

	if (!a->f)
		return bn_err_set(err, BN_ERR_BUG, "%s: not open", a->path);
	bad = ferror(a->f) || fflush(a->f) != 0 || (!a->no_sync && fsync(fileno(a->f)) != 0);
	if (fclose(a->f) != 0)
		bad = 1;
	a->f = NULL;
	if (bad) {
		int e = errno ? errno : EIO;
		char why[160];

		unlink(a->tmp);
		return bn_err_set(err, bn_err_from_write_errno(e), "%s: write failed: %s", a->path,
				  bn_errno_text(e, why, sizeof(why)));
	}
	if (rename(a->tmp, a->path) != 0) {
		int e = errno;
		char why[160];

		unlink(a->tmp);
		return bn_err_set(err, bn_err_from_write_errno(e), "%s: cannot replace: %s", a->path,
				  bn_errno_text(e, why, sizeof(why)));
	}
	return BN_OK;
}

void bn_afile_discard(struct bn_afile *a)
{
	if (a->f) {
		fclose(a->f);
		a->f = NULL;
		unlink(a->tmp);
	}
}

char *bn_file_leftover(const char *path, const char *tag, const char *inside)
{
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	char *dir = dir_of(path), *best = NULL, prefix[600], entry[2400];
	time_t best_mtime = 0;
	DIR *d = dir ? opendir(dir) : NULL;
	struct dirent *de;

	snprintf(prefix, sizeof(prefix), ".%s%s", base, tag);
	while (d && (de = readdir(d))) {
		struct stat st;

		if (strncmp(de->d_name, prefix, strlen(prefix)))
			continue;
		if (inside)
			snprintf(entry, sizeof(entry), "%s/%s/%s", dir, de->d_name, inside);
		else
			snprintf(entry, sizeof(entry), "%s/%s", dir, de->d_name);
		if (stat(entry, &st) != 0 || !S_ISREG(st.st_mode) || (best && st.st_mtime < best_mtime))
			continue;
		free(best);
		snprintf(entry, sizeof(entry), "%s/%s", dir, de->d_name);
		best = strdup(entry);
		best_mtime = st.st_mtime;
	}
	if (d)
		closedir(d);
	free(dir);
	return best;
}
