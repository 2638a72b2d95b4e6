/* The nearest name (core/suggest.c): edit distance, what counts as near,
 * the text of a suggestion, and the profiles a data dir holds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/suggest.h"

static void test_suggest__distance(void **state)
{
	assert_int_equal(bn_edit_distance("", ""), 0);
	assert_int_equal(bn_edit_distance("port", "port"), 0);
	assert_int_equal(bn_edit_distance("prot", "port"), 1);       /* a swap */
	assert_int_equal(bn_edit_distance("dcp-wek", "dcp-weak"), 1); /* an insertion */
	assert_int_equal(bn_edit_distance("dcpp", "dcp"), 1);        /* a deletion */
	assert_int_equal(bn_edit_distance("sdp", "cdp"), 1);         /* a substitution */
	assert_int_equal(bn_edit_distance("kitten", "sitting"), 3);
	assert_int_equal(bn_edit_distance("", "abc"), 3);
	assert_int_equal(bn_edit_distance("abc", ""), 3);
	assert_int_equal(bn_edit_distance("ca", "abc"), 3); /* OSA: no edit of a swapped pair */
	{
		char big[100];

		memset(big, 'a', sizeof(big) - 1);
		big[sizeof(big) - 1] = '\0';
		assert_int_equal(bn_edit_distance(big, "a"), 64);
	}
}

static void test_suggest__near(void **state)
{
	assert_true(bn_suggest_near("prot", "port"));
	assert_false(bn_suggest_near("ab", "cd"));     /* 2 edits for a short word */
	assert_false(bn_suggest_near("x", "y"));       /* as many edits as bytes */
	assert_true(bn_suggest_near("dcp-wek", "dcp-weak"));
	assert_false(bn_suggest_near("quote", "state")); /* 3 edits for 5 bytes */
	assert_true(bn_suggest_near("bc12.dettt", "bc12.det"));
}

static void test_suggest__nearest_and_text(void **state)
{
	static const char *const names[] = { "dcp", "dcp-weak", "dcp-weak-cap", "sdp" };
	char buf[200];

	assert_string_equal(bn_suggest_nearest("dcp-wek", names, 4), "dcp-weak");
	assert_string_equal(bn_suggest_nearest("dcpp", names, 4), "dcp");
	assert_string_equal(bn_suggest_nearest("sdp", names, 4), "sdp");
	assert_null(bn_suggest_nearest("frobnicate", names, 4));
	assert_null(bn_suggest_nearest("dcp", names, 0));
	bn_suggest_text("dcp-wek", names, 4, buf, sizeof(buf));
	assert_string_equal(buf, "dcp, dcp-weak, dcp-weak-cap, sdp; did you mean dcp-weak?");
	bn_suggest_text("zzzzzz", names, 4, buf, sizeof(buf));
	assert_string_equal(buf, "dcp, dcp-weak, dcp-weak-cap, sdp");
	bn_suggest_text("x", names, 0, buf, sizeof(buf));
	assert_string_equal(buf, "none");
	bn_suggest_text("dcp-wek", names, 4, buf, 10); /* cut, terminated */
	assert_int_equal(strlen(buf), 9);
}

static void put(const char *path)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs("{}\n", f);
	fclose(f);
}

static void test_suggest__profiles(void **state)
{
	char dir[256], sub[300], p[400], buf[600];
	char **names = NULL;
	int n = -1;

	snprintf(dir, sizeof(dir), "%s/bn-suggest-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	assert_non_null(mkdtemp(dir));
	snprintf(sub, sizeof(sub), "%s/profiles", dir);
	assert_int_equal(mkdir(sub, 0700), 0);
	snprintf(sub, sizeof(sub), "%s/profiles/chargers", dir);
	assert_int_equal(mkdir(sub, 0700), 0);
	snprintf(p, sizeof(p), "%s/dcp-weak.json", sub);
	put(p);
	snprintf(p, sizeof(p), "%s/cdp-1a5.json", sub);
	put(p);
	snprintf(p, sizeof(p), "%s/notes.txt", sub); /* not a profile */
	put(p);
	snprintf(p, sizeof(p), "%s/.hidden.json", sub);
	put(p);

	assert_int_equal(bn_profile_names(dir, "chargers", &names, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(names[0], "cdp-1a5");
	assert_string_equal(names[1], "dcp-weak");
	free(names);
	assert_int_equal(bn_profile_names(dir, "ports", &names, &n), -1);
	assert_null(names);
	assert_int_equal(n, 0);

	bn_suggest_profile(dir, "chargers", "dcp-wek", buf, sizeof(buf));
	assert_non_null(strstr(buf, "/profiles/chargers/: cdp-1a5, dcp-weak; did you mean dcp-weak?; another data dir: give --datadir"));
	bn_suggest_profile(dir, "ports", "dcp", buf, sizeof(buf));
	assert_non_null(strstr(buf, "/profiles/ports/ cannot be read; to use another data dir, give --datadir"));

	snprintf(p, sizeof(p), "rm -rf '%s'", dir);
	assert_int_equal(system(p), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_suggest__distance),
		cmocka_unit_test(test_suggest__near),
		cmocka_unit_test(test_suggest__nearest_and_text),
		cmocka_unit_test(test_suggest__profiles),
	};

	return cmocka_run_group_tests_name("suggest", tests, NULL, NULL);
}
