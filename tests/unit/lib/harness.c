#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>

#include "harness.h"

struct bn_limits bn_test_lim;

const char *bn_test_srcdir(void)
{
	const char *d = getenv("BN_SRCDIR");

	return d && *d ? d : ".";
}

void bn_test_path(const char *rel, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", bn_test_srcdir(), rel);
}

int bn_test_setup_limits(void **state)
{
	char path[1024];
	struct bn_err err = { 0 };

	(void)state;
	snprintf(path, sizeof(path), "%s/profiles/limits/bc12.json", bn_test_srcdir());
	if (bn_limits_load(path, &bn_test_lim, &err) < 0) {
		print_error("%s: %s\n", path, err.msg);
		return -1;
	}
	return 0;
}

int bn_test_teardown_limits(void **state)
{
	(void)state;
	bn_limits_free(&bn_test_lim);
	return 0;
}
