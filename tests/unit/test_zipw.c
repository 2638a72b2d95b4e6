/* capture/zipw: the zip writer against libzip's reader (with its
 * consistency checks and CRCs), `unzip -t` when it is installed, and its
 * own recovery of a file whose writer died; ZIP64 records through the
 * test-only threshold, without writing 4 GB. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <libdeflate.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zip.h>

#include "capture/zipw.h"

struct scratch {
	char dir[256];
	char path[512];
};

static int setup(void **state)
{
	struct scratch *s = calloc(1, sizeof(*s));
	const char *tmp = getenv("TMPDIR");

	if (!s)
		return -1;
	snprintf(s->dir, sizeof(s->dir), "%s/bn_test_zipw.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(s->dir)) {
		free(s);
		return -1;
	}
	snprintf(s->path, sizeof(s->path), "%s/t.zip", s->dir);
	*state = s;
	return 0;
}

static int teardown(void **state)
{
	struct scratch *s = *state;

	unlink(s->path);
	rmdir(s->dir);
	free(s);
	return 0;
}

/* Member i's content: n bytes, compressible or not. */
static unsigned char *content(int i, size_t n)
{
	unsigned char *b = malloc(n ? n : 1);
	uint32_t x = 2463534242u + (uint32_t)i;

	assert_non_null(b);
	for (size_t k = 0; k < n; k++) {
		x ^= x << 13, x ^= x >> 17, x ^= x << 5;
		b[k] = i % 2 ? (unsigned char)x : (unsigned char)(k / 100 + (size_t)i);
	}
	return b;
}

static size_t member_size(int i)
{
	return i % 7 == 0 ? 0 : (size_t)(i * 37 % 5000);
}

/* n members, deflated (level) or stored; the threshold as given (0: the
 * default). */
static void write_zip(const char *path, int n, int level, uint64_t zip64_from)
{
	struct libdeflate_compressor *c = libdeflate_alloc_compressor(level > 0 ? level : 1);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	struct bn_zipw *z;

	assert_true(fd >= 0);
	assert_non_null(c);
	z = bn_zipw_new(fd, 0);
	assert_non_null(z);
	if (zip64_from)
		bn_zipw_set_zip64_from(z, zip64_from);
	for (int i = 0; i < n; i++) {
		size_t len = member_size(i), clen = 0;
		unsigned char *d = content(i, len), *out = malloc(len + 64);
		char name[32];
		uint32_t crc = (uint32_t)libdeflate_crc32(0, d, len);

		assert_non_null(out);
		snprintf(name, sizeof(name), "m-%d", i);
		if (level > 0 && len)
			clen = libdeflate_deflate_compress(c, d, len, out, len + 64);
		if (clen)
			assert_int_equal(bn_zipw_add(z, name, BN_ZIPW_DEFLATE, crc, len, out, clen), 0);
		else
			assert_int_equal(bn_zipw_add(z, name, BN_ZIPW_STORE, crc, len, d, len), 0);
		free(d);
		free(out);
	}
	assert_int_equal(bn_zipw_count(z), (uint64_t)n);
	assert_int_equal(bn_zipw_finish(z), 0);
	bn_zipw_free(z);
	libdeflate_free_compressor(c);
	close(fd);
}

/* libzip reads every member back byte for byte, CRCs checked. */
static void check_libzip(const char *path, int n)
{
	int zerr = 0;
	zip_t *za = zip_open(path, ZIP_RDONLY | ZIP_CHECKCONS, &zerr);

	if (!za)
		fail_msg("libzip cannot open %s: error %d", path, zerr);
	assert_int_equal(zip_get_num_entries(za, 0), n);
	for (int i = 0; i < n; i++) {
		size_t len = member_size(i);
		unsigned char *want = content(i, len), *got = malloc(len + 1);
		char name[32];
		zip_file_t *zf;

		snprintf(name, sizeof(name), "m-%d", i);
		zf = zip_fopen(za, name, 0);
		if (!zf)
			fail_msg("%s: %s", name, zip_strerror(za));
		assert_int_equal(zip_fread(zf, got, len + 1), (zip_int64_t)len);
		assert_int_equal(zip_fread(zf, got, 1), 0); /* the CRC is checked at the end */
		assert_int_equal(zip_fclose(zf), 0);
		assert_memory_equal(got, want, len);
		free(want);
		free(got);
	}
	zip_discard(za);
}

/* `unzip -t` when installed: 0 for a good archive. */
static void check_unzip(const char *path)
{
	char cmd[700];
	int st;

	if (system("command -v unzip >/dev/null 2>&1") != 0)
		return;
	snprintf(cmd, sizeof(cmd), "unzip -tqq '%s' >/dev/null 2>&1", path);
	st = system(cmd);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		fail_msg("unzip -t %s failed (status %d)", path, st);
}

static void test_zipw__deflated_and_stored(void **state)
{
	struct scratch *s = *state;

	write_zip(s->path, 60, 6, 0);
	check_libzip(s->path, 60);
	check_unzip(s->path);
	write_zip(s->path, 20, 0, 0);
	check_libzip(s->path, 20);
	check_unzip(s->path);
	/* no members: the end record alone */
	write_zip(s->path, 0, 1, 0);
	check_libzip(s->path, 0);
}

/* Every size and offset from 1000 on in ZIP64 form: the extra fields of
 * local and central headers and the ZIP64 end records, read by libzip
 * and unzip as a 4 GB archive's would be. */
static void test_zipw__zip64_records(void **state)
{
	struct scratch *s = *state;
	unsigned char tail[98];
	struct stat st;
	FILE *f;

	write_zip(s->path, 200, 6, 1000);
	check_libzip(s->path, 200);
	check_unzip(s->path);
	/* the ZIP64 end record, its locator, then the end record */
	assert_int_equal(stat(s->path, &st), 0);
	f = fopen(s->path, "rb");
	assert_non_null(f);
	assert_int_equal(fseek(f, (long)st.st_size - 98, SEEK_SET), 0);
	assert_int_equal(fread(tail, 1, 98, f), 98);
	fclose(f);
	assert_memory_equal(tail, "PK\x06\x06", 4);
	assert_memory_equal(tail + 56, "PK\x06\x07", 4);
	assert_memory_equal(tail + 76, "PK\x05\x06", 4);
	/* offsets in ZIP64 form only: sizes stay small */
	write_zip(s->path, 200, 6, 100000);
	check_libzip(s->path, 200);
	check_unzip(s->path);
}

/* 65,535 members and more: the count needs the ZIP64 end record. */
static void test_zipw__many_members(void **state)
{
	struct scratch *s = *state;
	int fd = open(s->path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	struct bn_zipw *z = bn_zipw_new(fd, 0);
	const int n = 70000;
	int zerr = 0;
	zip_t *za;

	assert_non_null(z);
	for (int i = 0; i < n; i++) {
		char name[32];

		snprintf(name, sizeof(name), "e%d", i);
		assert_int_equal(bn_zipw_add(z, name, BN_ZIPW_STORE, libdeflate_crc32(0, name, 2), 2,
					     name, 2),
				 0);
	}
	assert_int_equal(bn_zipw_finish(z), 0);
	bn_zipw_free(z);
	close(fd);
	za = zip_open(s->path, ZIP_RDONLY | ZIP_CHECKCONS, &zerr);
	assert_non_null(za);
	assert_int_equal(zip_get_num_entries(za, 0), n);
	assert_int_equal(zip_name_locate(za, "e69999", 0), 69999);
	zip_discard(za);
	check_unzip(s->path);
}

/* Members from .. to - 1, stored. */
static void add_stored(struct bn_zipw *z, int from, int to)
{
	for (int i = from; i < to; i++) {
		char name[32];
		size_t len = member_size(i);
		unsigned char *d = content(i, len);

		snprintf(name, sizeof(name), "m-%d", i);
		assert_int_equal(bn_zipw_add(z, name, BN_ZIPW_STORE, libdeflate_crc32(0, d, len), len,
					     d, len),
				 0);
		free(d);
	}
}

/* A writer that died: recover continues after the last complete member,
 * cuts off the partial one, and the finished file is whole. */
static void test_zipw__recover(void **state)
{
	struct scratch *s = *state;
	int fd = open(s->path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	struct bn_zipw *z = bn_zipw_new(fd, 0);
	uint64_t complete;
	unsigned char *d;

	assert_non_null(z);
	bn_zipw_set_zip64_from(z, 3000); /* recovery reads ZIP64 local sizes too */
	add_stored(z, 0, 10);
	complete = bn_zipw_bytes(z);
	/* half of the next member, then the process is gone */
	d = content(10, 3000);
	assert_int_equal(bn_zipw_add(z, "m-10", BN_ZIPW_STORE, 0, 3000, d, 3000), 0);
	free(d);
	assert_int_equal(ftruncate(fd, (off_t)complete + 1500), 0);
	bn_zipw_free(z);

	z = bn_zipw_recover(fd, complete);
	assert_non_null(z);
	assert_int_equal(bn_zipw_count(z), 10);
	assert_int_equal(bn_zipw_bytes(z), complete);
	add_stored(z, 10, 12);
	assert_int_equal(bn_zipw_finish(z), 0);
	bn_zipw_free(z);
	close(fd);
	check_libzip(s->path, 12);
	check_unzip(s->path);

	/* bytes that are not local headers: refused */
	fd = open(s->path, O_RDWR | O_TRUNC);
	assert_int_equal(write(fd, "not a zip file at all, no", 25), 25);
	errno = 0;
	assert_null(bn_zipw_recover(fd, 25));
	assert_int_equal(errno, EINVAL);
	close(fd);
}

/* A local header whose name and extra fields run past end (the writer
 * died inside them): refused, not taken as a member past end. */
static void test_zipw__recover_truncated_header(void **state)
{
	struct scratch *s = *state;
	int fd = open(s->path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	unsigned char f[30 + 4 + 40] = {0x50, 0x4b, 0x03, 0x04, 20};
	const uint64_t ends[] = {40, 32, 30 + 4 + 39};

	assert_true(fd >= 0);
	/* csize = usize = 0, crc 0, stored; name "m-01", 40 bytes of extra */
	f[26] = 4;
	f[28] = 40;
	memcpy(f + 30, "m-01", 4);
	assert_int_equal(write(fd, f, sizeof(f)), (ssize_t)sizeof(f));
	for (size_t i = 0; i < sizeof(ends) / sizeof(ends[0]); i++) {
		errno = 0;
		assert_null(bn_zipw_recover(fd, ends[i]));
		assert_int_equal(errno, EINVAL);
	}
	/* the whole header inside end: one empty member */
	{
		struct bn_zipw *z = bn_zipw_recover(fd, sizeof(f));

		assert_non_null(z);
		assert_int_equal(bn_zipw_count(z), 1);
		bn_zipw_free(z);
	}
	close(fd);
}

/* Misuse: refused with EINVAL, the writer still good after it. */
static void test_zipw__bad_members(void **state)
{
	struct scratch *s = *state;
	int fd = open(s->path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	struct bn_zipw *z = bn_zipw_new(fd, 0);
	char longname[300];

	assert_non_null(z);
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	assert_int_equal(bn_zipw_add(z, "", BN_ZIPW_STORE, 0, 0, NULL, 0), EINVAL);
	assert_int_equal(bn_zipw_add(z, longname, BN_ZIPW_STORE, 0, 0, NULL, 0), EINVAL);
	assert_int_equal(bn_zipw_add(z, "x", 12, 0, 0, NULL, 0), EINVAL);
	assert_int_equal(bn_zipw_add(z, "x", BN_ZIPW_STORE, 0, 5, "abc", 3), EINVAL);
	assert_int_equal(bn_zipw_add(z, "x", BN_ZIPW_STORE, 0, 3, NULL, 3), EINVAL);
	assert_int_equal(bn_zipw_count(z), 0);
	assert_int_equal(bn_zipw_add(z, "x", BN_ZIPW_STORE, libdeflate_crc32(0, "abc", 3), 3, "abc",
				     3),
			 0);
	assert_int_equal(bn_zipw_finish(z), 0);
	bn_zipw_free(z);
	bn_zipw_free(NULL);
	close(fd);
	check_unzip(s->path);
}

/* A write error sticks: every later call returns it. */
static void test_zipw__write_error_sticks(void **state)
{
	struct scratch *s = *state;
	int fd = open(s->path, O_RDONLY | O_CREAT, 0644);
	struct bn_zipw *z = bn_zipw_new(fd, 0);

	assert_non_null(z);
	assert_int_equal(bn_zipw_add(z, "x", BN_ZIPW_STORE, 0, 1, "x", 1), EBADF);
	assert_int_equal(bn_zipw_add(z, "y", BN_ZIPW_STORE, 0, 1, "y", 1), EBADF);
	assert_int_equal(bn_zipw_finish(z), EBADF);
	bn_zipw_free(z);
	close(fd);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
	    T(test_zipw__deflated_and_stored),
	    T(test_zipw__zip64_records),
	    T(test_zipw__many_members),
	    T(test_zipw__recover),
	    T(test_zipw__recover_truncated_header),
	    T(test_zipw__bad_members),
	    T(test_zipw__write_error_sticks),
#undef T
	};

	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests_name("zipw", tests, NULL, NULL);
}
