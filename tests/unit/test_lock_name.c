/* The bench lock's name (hil/lock.c, bn_lock_bench_name): the fixture's
 * serial when bench.conf names one, else bench.conf's absolute path
 * hashed, so two identical benches on one host do not share a lock. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "hil/lock.h"

static void test_lock_name__serial(void **state)
{
	char name[200];

	bn_lock_bench_name("bcbench-fixture-a", "ftdi:0403:6014:FT1234AB", "/nonexistent/bench.conf",
			   name, sizeof(name));
	assert_string_equal(name, "bcbench-fixture-a-FT1234AB");
	bn_lock_bench_name("fx", "ftdi:serial=A/B C", NULL, name, sizeof(name));
	assert_string_equal(name, "fx-A_B_C"); /* no slash or blank in a file name */
	/* a VID:PID alone, or a description, names no serial */
	bn_lock_bench_name("fx", "ftdi:0403:6014", NULL, name, sizeof(name));
	assert_string_equal(name, "fx");
	bn_lock_bench_name("fx", "ftdi:desc=Bench A", NULL, name, sizeof(name));
	assert_string_equal(name, "fx");
	bn_lock_bench_name("bench", "sim", "", name, sizeof(name));
	assert_string_equal(name, "bench");
}

static void test_lock_name__conf_path(void **state)
{
	char dir[256], a[300], b[300], other[300], n1[200], n2[200], n3[200];
	FILE *f;

	snprintf(dir, sizeof(dir), "%s/bn-lockname-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	assert_non_null(mkdtemp(dir));
	snprintf(a, sizeof(a), "%s/a.conf", dir);
	snprintf(other, sizeof(other), "%s/b.conf", dir);
	assert_non_null(f = fopen(a, "w"));
	fclose(f);
	assert_non_null(f = fopen(other, "w"));
	fclose(f);
	snprintf(b, sizeof(b), "%s/./a.conf", dir);

	bn_lock_bench_name("bench", "sim", a, n1, sizeof(n1));
	bn_lock_bench_name("bench", "sim", b, n2, sizeof(n2));
	bn_lock_bench_name("bench", "sim", other, n3, sizeof(n3));
	assert_int_equal(strlen(n1), strlen("bench-") + 8);
	assert_int_equal(strncmp(n1, "bench-", 6), 0);
	assert_string_equal(n1, n2);       /* one conf, however written */
	assert_string_not_equal(n1, n3);   /* two confs, two locks */
	/* a serial wins over the path */
	bn_lock_bench_name("fx", "ftdi:0403:6014:S1", a, n1, sizeof(n1));
	assert_string_equal(n1, "fx-S1");
	/* a conf that is not there: the base alone */
	snprintf(b, sizeof(b), "%s/none.conf", dir);
	bn_lock_bench_name("bench", "sim", b, n1, sizeof(n1));
	assert_string_equal(n1, "bench");

	unlink(a);
	unlink(other);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lock_name__serial),
		cmocka_unit_test(test_lock_name__conf_path),
	};

	return cmocka_run_group_tests_name("lock_name", tests, NULL, NULL);
}
