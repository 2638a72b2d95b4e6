/* Files: atomic writes, reads, SHA-256, mkdir -p. Each test works in its
 * own scratch directory under $TMPDIR. */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/err.h"
#include "core/file.h"

struct scratch {
	char dir[256];
};

static int scratch_setup(void **state)
{
	struct scratch *s = calloc(1, sizeof(*s));
	const char *tmp = getenv("TMPDIR");

	if (!s)
		return -1;
	snprintf(s->dir, sizeof(s->dir), "%s/bn_test_file.XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(s->dir)) {
		free(s);
		return -1;
	}
	*state = s;
	return 0;
}

/* rm -r of the scratch directory (two levels deep is all tests make). */
static void remove_tree(const char *path)
{
	struct dirent *de;
	struct stat st;
	char sub[512];
	DIR *d = opendir(path);

	if (!d) {
		unlink(path);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name);
		if (lstat(sub, &st) == 0 && S_ISDIR(st.st_mode))
			remove_tree(sub);
		else
			unlink(sub);
	}
	closedir(d);
	rmdir(path);
}

static int scratch_teardown(void **state)
{
	struct scratch *s = *state;

	remove_tree(s->dir);
	free(s);
	return 0;
}

static void path_in(const struct scratch *s, const char *name, char *buf,
		    size_t len)
{
	snprintf(buf, len, "%s/%s", s->dir, name);
}

static int count_entries(const char *dir)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			n++;
	closedir(d);
	return n;
}

static void assert_file_is(const char *path, const char *want)
{
	struct bn_err err = { 0 };
	char *text = NULL;
	size_t len = 0;

	assert_int_equal(bn_file_read(path, &text, &len, &err), BN_OK);
	assert_int_equal(len, strlen(want));
	assert_string_equal(text, want);
	free(text);
}

static void test_file__write_atomic_creates(void **state)
{
	struct scratch *s = *state;
	struct bn_err err = { 0 };
	char path[512];
	struct stat st;

	path_in(s, "report.json", path, sizeof(path));
	assert_int_equal(bn_file_write_atomic(path, "{}\n", 3, &err), BN_OK);
	assert_int_equal(err.code, BN_OK);
	assert_file_is(path, "{}\n");
	assert_int_equal(count_entries(s->dir), 1); /* no temp file left */
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644); /* not mkstemp's 0600 */
}

static void test_file__write_atomic_replaces(void **state)
{
	struct scratch *s = *state;
	struct bn_err err = { 0 };
	char path[512];
	struct stat st;

	path_in(s, "a.txt", path, sizeof(path));
	assert_int_equal(bn_file_write_atomic(path, "old contents, longer", 20, &err),
			 BN_OK);
	assert_int_equal(chmod(path, 0600), 0);
	assert_int_equal(bn_file_write_atomic(path, "new", 3, &err), BN_OK);
	assert_file_is(path, "new");
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600); /* mode kept */
	assert_int_equal(bn_file_write_atomic(path, NULL, 0, &err), BN_OK);
	assert_file_is(path, "");
	assert_int_equal(count_entries(s->dir), 1);
}

static void test_file__write_atomic_missing_dir(void **state)
{
	struct scratch *s = *state;
	struct bn_err err = { 0 };
	char path[512];

	path_in(s, "no/such/dir/out.json", path, sizeof(path));
	/* an output that cannot be written is the environment's fault (exit 3) */
	assert_int_equal(bn_file_write_atomic(path, "x", 1, &err), BN_ERR_ENV);
	assert_int_equal(err.code, BN_ERR_ENV);
	assert_non_null(strstr(err.msg, path));
	assert_int_equal(count_entries(s->dir), 0);
}

static void test_file__write_atomic_onto_directory(void **state)
{
	struct scratch *s = *state;
	struct bn_err err = { 0 };
	char path[512];

	/* rename() onto a directory fails: the temp file must go */
	path_in(s, "sub", path, sizeof(path));
	assert_int_equal(mkdir(path, 0755), 0);
	assert_int_equal(bn_file_write_atomic(path, "x", 1, &err), BN_ERR_ENV);
	assert_non_null(strstr(err.msg, "sub"));
	assert_int_equal(count_entries(s->dir), 1);
	assert_int_equal(count_entries(path), 0);
}

static void test_file__write_atomic_relative(void **state)
{
	struct scratch *s = *state;
	struct bn_err err = { 0 };
	char cwd[512];

	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(s->dir), 0);
	assert_int_equal(bn_file_write_atomic("plain.txt", "abc", 3, &err), BN_OK);
	assert_int_equal(chdir(cwd), 0);
	assert_int_equal(count_entries(s->dir), 1);
}

static void test_file__read_missing(void **state)
{
	struct scratch *s = *state;
	struct bn_err err = { 0 };
	char path[512], *text = (char *)"sentinel";

	path_in(s, "absent.json", path, sizeof(path));
	assert_int_equal(bn_file_read(path, &text, NULL, &err), BN_ERR_IO);
	assert_null(text);
	assert_non_null(strstr(err.msg, "absent.json"));
}

static void test_file__read_large(void **state)
{
	struct scratch *s = *state;
	struct bn_err err = { 0 };
	size_t n = 300000, len = 0, i;
	char path[512], *data = malloc(n), *text = NULL;

	assert_non_null(data);
	for (i = 0; i < n; i++)
		data[i] = (char)('a' + i % 26);
	path_in(s, "big.bin", path, sizeof(path));
	assert_int_equal(bn_file_write_atomic(path, data, n, &err), BN_OK);
	assert_int_equal(bn_file_read(path, &text, &len, &err), BN_OK);
	assert_int_equal(len, n);
	assert_memory_equal(text, data, n);
	assert_int_equal(text[n], '\0');
	free(text);
	free(data);
}

static void test_file__sha256(void **state)
{
	struct scratch *s = *state;
	struct bn_err err = { 0 };
	char hex[65], path[512];

	bn_sha256_hex("abc", 3, hex);
	assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	bn_sha256_hex("", 0, hex);
	assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	path_in(s, "abc.txt", path, sizeof(path));
	assert_int_equal(bn_file_write_atomic(path, "abc", 3, &err), BN_OK);
	memset(hex, 0, sizeof(hex));
	assert_int_equal(bn_file_sha256(path, hex, &err), BN_OK);
	assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	path_in(s, "nope.txt", path, sizeof(path));
	assert_int_equal(bn_file_sha256(path, hex, &err), BN_ERR_IO);
}

static void test_file__mkdir_p(void **state)
{
	struct scratch *s = *state;
	struct bn_err err = { 0 };
	char path[512], file[600];
	struct stat st;

	path_in(s, "a/b//c/", path, sizeof(path));
	assert_int_equal(bn_mkdir_p(path, &err), BN_OK);
	assert_int_equal(stat(path, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(bn_mkdir_p(path, &err), BN_OK); /* again: fine */
	assert_int_equal(bn_mkdir_p(s->dir, &err), BN_OK);

	snprintf(file, sizeof(file), "%s/a/plain", s->dir);
	assert_int_equal(bn_file_write_atomic(file, "x", 1, &err), BN_OK);
	snprintf(file, sizeof(file), "%s/a/plain/deeper", s->dir);
	assert_int_equal(bn_mkdir_p(file, &err), BN_ERR_ENV);
	assert_non_null(strstr(err.msg, "plain"));
	bn_err_clear(&err);
	assert_int_equal(bn_mkdir_p("", &err), BN_ERR_ARG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_file__write_atomic_creates, scratch_setup, scratch_teardown),
		cmocka_unit_test_setup_teardown(test_file__write_atomic_replaces, scratch_setup, scratch_teardown),
		cmocka_unit_test_setup_teardown(test_file__write_atomic_missing_dir, scratch_setup, scratch_teardown),
		cmocka_unit_test_setup_teardown(test_file__write_atomic_onto_directory, scratch_setup, scratch_teardown),
		cmocka_unit_test_setup_teardown(test_file__write_atomic_relative, scratch_setup, scratch_teardown),
		cmocka_unit_test_setup_teardown(test_file__read_missing, scratch_setup, scratch_teardown),
		cmocka_unit_test_setup_teardown(test_file__read_large, scratch_setup, scratch_teardown),
		cmocka_unit_test_setup_teardown(test_file__sha256, scratch_setup, scratch_teardown),
		cmocka_unit_test_setup_teardown(test_file__mkdir_p, scratch_setup, scratch_teardown),
	};

	return cmocka_run_group_tests_name("file", tests, NULL, NULL);
}
