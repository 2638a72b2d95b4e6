/* Where the data and the firmware are (core/datadir.h), and bench.conf's
 * datadir key: the candidates beside the running binary, in the order the
 * messages list them, none of them the working directory; a relative
 * datadir is the conf's folder's, wherever the command runs from. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/conf.h"
#include "core/datadir.h"

/* The binary's directory and its parent and grandparent, from
 * /proc/self/exe, independently of the code under test. */
static void exe_dirs(char bin[PATH_MAX], char up[PATH_MAX], char up2[PATH_MAX])
{
	char exe[PATH_MAX], buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	assert_true(n > 0);
	exe[n] = '\0';
	snprintf(bin, PATH_MAX, "%s", dirname(exe));
	snprintf(buf, sizeof(buf), "%s", bin);
	snprintf(up, PATH_MAX, "%s", dirname(buf));
	snprintf(buf, sizeof(buf), "%s", up);
	snprintf(up2, PATH_MAX, "%s", dirname(buf));
}

static char *scratch(void)
{
	static const char tmpl[] = "/bcbench-datadir.XXXXXX";
	const char *t = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char *d = malloc(strlen(t) + sizeof(tmpl));

	assert_non_null(d);
	sprintf(d, "%s%s", t, tmpl);
	assert_non_null(mkdtemp(d));
	return d;
}

static void test_datadir__beside_the_binary_not_the_cwd(void **state)
{
	char bin[PATH_MAX], up[PATH_MAX], up2[PATH_MAX], want[4 * PATH_MAX + 64], cwd[PATH_MAX];
	char got[BN_DATADIR_LEN], got2[BN_DATADIR_LEN], tried[BN_DATADIR_TRIED_LEN], p[PATH_MAX + 32];
	char *d = scratch();
	int rc, rc2;

	(void)state;
	exe_dirs(bin, up, up2);
	assert_int_equal(bn_exe_dir(got, sizeof(got)), BN_OK);
	assert_string_equal(got, bin);
	rc = bn_datadir_beside_exe(got, sizeof(got), tried, sizeof(tried));
	snprintf(want, sizeof(want), "%s/share/bcbench, %s, %s, %s", up, bin, up, up2);
	assert_string_equal(tried, want);
	if (rc == BN_OK) {
		struct stat st;

		snprintf(p, sizeof(p), "%s/profiles", got);
		assert_int_equal(stat(p, &st), 0);
		assert_true(S_ISDIR(st.st_mode));
	} else {
		assert_int_equal(rc, BN_ERR_IO);
		assert_string_equal(got, "");
	}
	/* A working directory with a profiles/ of its own changes nothing. */
	snprintf(p, sizeof(p), "%s/profiles", d);
	assert_int_equal(mkdir(p, 0755), 0);
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(d), 0);
	rc2 = bn_datadir_beside_exe(got2, sizeof(got2), tried, sizeof(tried));
	assert_int_equal(chdir(cwd), 0);
	assert_int_equal(rc2, rc);
	assert_string_equal(got2, got);
	assert_string_equal(tried, want);
	rmdir(p);
	rmdir(d);
	free(d);
}

static void test_datadir__fwdir_installed_then_build_tree(void **state)
{
	char bin[PATH_MAX], up[PATH_MAX], up2[PATH_MAX], want[3 * PATH_MAX + 64];
	char got[BN_DATADIR_LEN], tried[BN_DATADIR_TRIED_LEN];
	int rc;

	(void)state;
	exe_dirs(bin, up, up2);
	rc = bn_fwdir_beside_exe(got, sizeof(got), tried, sizeof(tried));
	snprintf(want, sizeof(want), "%s/lib/bcbench/firmware, %s/fw", up, bin);
	assert_string_equal(tried, want);
	if (rc == BN_OK)
		assert_true(strncmp(want, got, strlen(got)) == 0 || strstr(want, got) != NULL);
	else
		assert_string_equal(got, "");
}

static void write_file(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

static void test_datadir__conf_key_relative_to_the_conf(void **state)
{
	char path[PATH_MAX], want[PATH_MAX + 16];
	struct bn_conf c;
	struct bn_err err = { 0 };
	char *d = scratch();

	(void)state;
	snprintf(path, sizeof(path), "%s/bench.conf", d);
	write_file(path, "# a bench\ndatadir = data\n");
	bn_conf_defaults(&c);
	assert_int_equal(bn_conf_load(path, &c, &err), BN_OK);
	snprintf(want, sizeof(want), "%s/data", d);
	assert_string_equal(c.datadir, want);
	assert_int_equal(c.datadir_line, 2);

	write_file(path, "datadir = /srv/bcbench\n");
	bn_conf_defaults(&c);
	assert_int_equal(bn_conf_load(path, &c, &err), BN_OK);
	assert_string_equal(c.datadir, "/srv/bcbench");

	bn_conf_defaults(&c);
	write_file(path, "backend = sim\n");
	assert_int_equal(bn_conf_load(path, &c, &err), BN_OK);
	assert_string_equal(c.datadir, "");
	unlink(path);
	rmdir(d);
	free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_datadir__beside_the_binary_not_the_cwd),
		cmocka_unit_test(test_datadir__fwdir_installed_then_build_tree),
		cmocka_unit_test(test_datadir__conf_key_relative_to_the_conf),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
