/* docs/bc12-limits.md stays true: every limit of profiles/limits/bc12.json has
 * a row; the row of a rule's limit names the rule; every rule id the doc
 * names exists; every device test of the compliance plan, 6.4 to 6.16, has
 * a row. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/check.h"
#include "lib/harness.h"

static char *doc;

static int setup(void **state)
{
	char path[1024];
	FILE *f;
	long n;

	if (bn_test_setup_limits(state) < 0)
		return -1;
	bn_test_path("docs/bc12-limits.md", path, sizeof(path));
	f = fopen(path, "rb");
	if (!f)
		return -1;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	doc = calloc(1, (size_t)n + 1);
	if (!doc || fread(doc, 1, (size_t)n, f) != (size_t)n) {
		fclose(f);
		return -1;
	}
	fclose(f);
	return 0;
}

static int teardown(void **state)
{
	free(doc);
	return bn_test_teardown_limits(state);
}

/* The row "| `NAME` | ..." (up to its line end) copied into buf; NULL if none. */
static const char *row(const char *name, char *buf, size_t len)
{
	char key[64];
	const char *p, *e;

	snprintf(key, sizeof(key), "\n| `%s` |", name);
	p = strstr(doc, key);
	if (!p)
		return NULL;
	p++;
	e = strchr(p, '\n');
	snprintf(buf, len, "%.*s", (int)(e ? e - p : (long)strlen(p)), p);
	return buf;
}

static void test_limits_doc__every_limit_has_a_row(void **state)
{
	int missing = 0;
	char buf[1024];

	(void)state;
	for (size_t i = 0; i < bn_test_lim.n; i++)
		if (!row(bn_test_lim.v[i].name, buf, sizeof(buf))) {
			print_error("docs/bc12-limits.md has no row for %s\n", bn_test_lim.v[i].name);
			missing++;
		}
	assert_int_equal(missing, 0);
}

static void test_limits_doc__each_rule_is_in_its_limits_row(void **state)
{
	int bad = 0;
	char buf[1024], id[80];

	(void)state;
	for (int i = 0; i < bn_rules_count(); i++) {
		const struct bn_rule *r = bn_rule_at(i);

		if (!r->limit || !bn_limits_find(&bn_test_lim, r->limit))
			continue;
		snprintf(id, sizeof(id), "`%s`", r->id);
		if (!row(r->limit, buf, sizeof(buf)) || !strstr(buf, id)) {
			print_error("docs/bc12-limits.md: the row of %s does not name %s\n", r->limit, r->id);
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}

static void test_limits_doc__named_rules_exist(void **state)
{
	int bad = 0;

	(void)state;
	for (const char *p = strstr(doc, "`bc12."); p; p = strstr(p + 1, "`bc12.")) {
		char id[80];
		const char *e = strchr(p + 1, '`');

		if (!e || e - p - 1 >= (long)sizeof(id))
			continue;
		snprintf(id, sizeof(id), "%.*s", (int)(e - p - 1), p + 1);
		if (!bn_rule_find(id) && !bn_rule_name_known(id)) {
			print_error("docs/bc12-limits.md names %s, which is no rule\n", id);
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}

static void test_limits_doc__every_device_test_of_the_plan(void **state)
{
	(void)state;
	for (int t = 4; t <= 16; t++) {
		char key[16];

		snprintf(key, sizeof(key), "\n| 6.%d |", t);
		if (!strstr(doc, key))
			fail_msg("docs/bc12-limits.md has no row for compliance plan test 6.%d", t);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_limits_doc__every_limit_has_a_row),
		cmocka_unit_test(test_limits_doc__each_rule_is_in_its_limits_row),
		cmocka_unit_test(test_limits_doc__named_rules_exist),
		cmocka_unit_test(test_limits_doc__every_device_test_of_the_plan),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
