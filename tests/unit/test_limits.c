/* The limits loader against the shipped profiles/limits/bc12.json and the
 * broken files under tests/data/limits/, plus the JSON helpers under it.
 * Data is found relative to the repo root (the current directory), or to
 * $BN_SRCDIR when set. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "lib/harness.h"
#include "core/err.h"
#include "core/file.h"
#include "core/json.h"
#include "core/limits.h"

#define assert_close(a, b)                                                    \
	do {                                                                  \
		double a_ = (a), b_ = (b);                                    \
		if (!(fabs(a_ - b_) <= 1e-12 * fmax(fabs(a_), fabs(b_)))) {   \
			print_error("%s = %.17g, expected %.17g\n", #a, a_, b_); \
			fail();                                               \
		}                                                             \
	} while (0)

#define assert_contains(hay, needle)                                          \
	do {                                                                  \
		if (!strstr((hay), (needle))) {                               \
			print_error("\"%s\" does not contain \"%s\"\n", (hay), \
				    (needle));                                \
			fail();                                               \
		}                                                             \
	} while (0)

static void load_shipped(struct bn_limits *lim)
{
	struct bn_err err = { 0 };
	char path[1024];
	int rc;

	bn_test_path("profiles/limits/bc12.json", path, sizeof(path));
	rc = bn_limits_load(path, lim, &err);
	if (rc != BN_OK) {
		print_error("%s\n", err.msg);
		fail();
	}
}

/* Load a broken file; it must fail with BN_ERR_DATA, the message must
 * start with its path and contain each of the given substrings. */
static void expect_rejected(const char *name, const char *const *subs)
{
	struct bn_limits lim;
	struct bn_err err = { 0 };
	char rel[256], path[1024];

	snprintf(rel, sizeof(rel), "tests/data/limits/%s", name);
	bn_test_path(rel, path, sizeof(path));
	memset(&lim, 0xa5, sizeof(lim));
	assert_int_equal(bn_limits_load(path, &lim, &err), BN_ERR_DATA);
	assert_int_equal(err.code, BN_ERR_DATA);
	assert_int_equal(strncmp(err.msg, path, strlen(path)), 0);
	assert_contains(err.msg, name);
	for (; *subs; subs++)
		assert_contains(err.msg, *subs);
	/* the output is left empty and safe to free */
	assert_null(lim.v);
	assert_int_equal(lim.n, 0);
	bn_limits_free(&lim);
}

static void test_limits__shipped_loads(void **state)
{
	struct bn_limits lim;

	load_shipped(&lim);
	assert_true(bn_limits_max(&lim, "IUNIT") == 0.1);
	assert_true(bn_limits_min(&lim, "TDCD_TIMEOUT") == 0.3);
	assert_true(bn_limits_max(&lim, "TDCD_TIMEOUT") == 0.9);
	assert_true(bn_limits_min(&lim, "VDP_SRC") == 0.5);
	assert_true(bn_limits_max(&lim, "VDP_SRC") == 0.7);
	assert_true(isnan(bn_limits_min(&lim, "IUNIT")));
	assert_true(isnan(bn_limits_max(&lim, "NO_SUCH_LIMIT")));
	assert_null(bn_limits_find(&lim, "NO_SUCH_LIMIT"));
	assert_non_null(strstr(lim.path, "bc12.json"));
	assert_int_equal(strlen(lim.sha256), 64);
	bn_limits_free(&lim);
	assert_null(lim.v);
}

static void test_limits__shipped_units(void **state)
{
	struct bn_limits lim;
	const struct bn_limit *l;

	load_shipped(&lim);
	assert_close(bn_limits_max(&lim, "ISUSP"), 2.5e-3);
	assert_close(bn_limits_min(&lim, "IDP_SRC"), 7e-6);
	assert_close(bn_limits_max(&lim, "IDM_SINK"), 175e-6);
	assert_close(bn_limits_min(&lim, "RDP_DWN"), 14250.0);
	assert_close(bn_limits_max(&lim, "RDM_DWN"), 24800.0);
	assert_close(bn_limits_max(&lim, "TSVLD_CON_WKB"), 45 * 60.0);
	assert_close(bn_limits_max(&lim, "TSHTDWN_REC"), 120.0);
	assert_close(bn_limits_max(&lim, "ICFG_MAX"), 0.5);
	assert_close(bn_limits_max(&lim, "ICFG_MAX_SS"), 0.9);
	assert_close(bn_limits_max(&lim, "IUNIT_SS"), 0.15);
	assert_close(bn_limits_min(&lim, "VDROOP_DEV"), 2.0);
	assert_close(bn_limits_max(&lim, "VDROOP_DEV"), 4.75);
	assert_close(bn_limits_max(&lim, "VGND_OFFSET"), 0.375);
	assert_close(bn_limits_min(&lim, "ILINUX_SDP"), 2e-3);
	assert_close(bn_limits_max(&lim, "ILINUX_ACA"), 5.0);
	l = bn_limits_find(&lim, "ISUSP");
	assert_non_null(l);
	assert_string_equal(l->unit, "mA");
	assert_int_equal(l->dim, BN_DIM_A);
	assert_non_null(l->meaning);
	assert_non_null(l->source);
	bn_limits_free(&lim);
}

static void test_limits__shipped_typ(void **state)
{
	struct bn_limits lim;

	load_shipped(&lim);
	assert_close(bn_limits_typ(&lim, "VDP_SRC"), 0.6);
	assert_close(bn_limits_typ(&lim, "VDM_SRC"), 0.6);
	assert_close(bn_limits_typ(&lim, "VDAT_REF"), 0.325);
	assert_close(bn_limits_typ(&lim, "VLGC"), 1.4);
	assert_close(bn_limits_typ(&lim, "IDP_SRC"), 10e-6);
	assert_close(bn_limits_typ(&lim, "IDM_SINK"), 100e-6);
	assert_close(bn_limits_typ(&lim, "IDP_SINK"), 100e-6);
	assert_close(bn_limits_typ(&lim, "RDP_DWN"), 19525.0);
	assert_close(bn_limits_typ(&lim, "RDM_DWN"), 19525.0);
	assert_close(bn_limits_typ(&lim, "RDP_UP"), 1500.0);
	/* fallbacks: midpoint, then whichever bound exists */
	assert_close(bn_limits_typ(&lim, "VOTG_SESS_VLD"), 2.4);
	assert_close(bn_limits_typ(&lim, "IUNIT"), 0.1);
	assert_close(bn_limits_typ(&lim, "TDCD_DBNC"), 0.01);
	assert_true(isnan(bn_limits_typ(&lim, "NO_SUCH_LIMIT")));
	bn_limits_free(&lim);
}

static void test_limits__shipped_has_required(void **state)
{
	const char *const *req = bn_limits_required();
	struct bn_limits lim;
	const struct bn_limit *l;
	size_t n = 0, i;

	load_shipped(&lim);
	for (; *req; req++, n++) {
		l = bn_limits_find(&lim, *req);
		if (!l) {
			print_error("required limit %s missing\n", *req);
			fail();
		}
		assert_true(!isnan(l->min) || !isnan(l->max));
		assert_true(l->meaning && l->meaning[0]);
		assert_true(l->source && l->source[0]);
	}
	assert_int_equal(n, 57); /* 14 V, 11 I, 10 R, 22 T */
	/* the Linux defaults are shipped but not required */
	for (req = bn_limits_required(); *req; req++)
		assert_true(strncmp(*req, "ILINUX_", 7) != 0);
	assert_non_null(bn_limits_find(&lim, "ILINUX_CDP"));
	/* every shipped limit is sane */
	for (i = 0; i < lim.n; i++) {
		l = &lim.v[i];
		assert_false(l->min > l->max);
	}
	bn_limits_free(&lim);
}

static void test_limits__required_names(void **state)
{
	static const char *const must[] = {
		"VDP_SRC", "VDROOP_DEV", "IUNIT_SS", "ICFG_MAX_SS", "RDP_UP",
		"TDCD_TIMEOUT", "TSUSP_IDLE", "TSUSP_ENTER", "TSUSP_AVG",
		"TSRP_PULSE", "TSECDET_MIN", "VGND_OFFSET", NULL,
	};
	const char *const *m, *const *req;
	bool found;

	for (m = must; *m; m++) {
		found = false;
		for (req = bn_limits_required(); *req; req++)
			if (strcmp(*req, *m) == 0)
				found = true;
		if (!found) {
			print_error("%s not in bn_limits_required()\n", *m);
			fail();
		}
	}
}

static void test_limits__min_gt_max(void **state)
{
	static const char *const subs[] = {
		"limits[3] \"VDP_SRC\"", "min 0.7 > max 0.5", NULL,
	};

	expect_rejected("min_gt_max.json", subs);
}

static void test_limits__unknown_unit(void **state)
{
	static const char *const subs[] = {
		"limits[5] \"X\"", "unknown unit \"mQ\"", "expected V, A, ohm, s", NULL,
	};

	expect_rejected("unknown_unit.json", subs);
}

static void test_limits__duplicate(void **state)
{
	static const char *const subs[] = {
		"limits[4]", "duplicate name \"VLGC\" (first at limits[2])", NULL,
	};

	expect_rejected("duplicate.json", subs);
}

static void test_limits__missing_name(void **state)
{
	static const char *const subs[] = { "missing limit \"TDCD_TIMEOUT\"", NULL };

	expect_rejected("missing_name.json", subs);
}

static void test_limits__no_unit(void **state)
{
	static const char *const subs[] = {
		"limits[1] \"ISUSP\"", "missing key \"unit\"", NULL,
	};

	expect_rejected("no_unit.json", subs);
}

static void test_limits__bad_syntax(void **state)
{
	static const char *const subs[] = { "error: invalid JSON near", NULL };
	struct bn_limits lim;
	struct bn_err err = { 0 };
	char path[1024], prefix[1100];

	expect_rejected("bad_syntax.json", subs);
	/* the exact position: line 6, the "unit" after 2.0 with no comma */
	bn_test_path("tests/data/limits/bad_syntax.json", path, sizeof(path));
	assert_int_equal(bn_limits_load(path, &lim, &err), BN_ERR_DATA);
	snprintf(prefix, sizeof(prefix), "%s:6:46: error: invalid JSON near '\"unit\"", path);
	if (strncmp(err.msg, prefix, strlen(prefix)) != 0) {
		print_error("got \"%s\"\nwant prefix \"%s\"\n", err.msg, prefix);
		fail();
	}
}

static void test_limits__typ_outside(void **state)
{
	static const char *const subs[] = {
		"limits[1] \"IDM_SINK\"", "typ 200 outside [min 25, max 175]", NULL,
	};

	expect_rejected("typ_outside.json", subs);
}

static void test_limits__unknown_source(void **state)
{
	static const char *const subs[] = {
		"limits[1] \"TDCD_DBNC\"", "unknown source \"zephyr-bc13-h\"", NULL,
	};

	expect_rejected("unknown_source.json", subs);
}

static void test_limits__missing_file(void **state)
{
	struct bn_limits lim;
	struct bn_err err = { 0 };

	assert_int_equal(bn_limits_load("tests/data/limits/no_such_file.json", &lim, &err),
			 BN_ERR_IO);
	assert_contains(err.msg, "no_such_file.json");
}

/* Write text to a scratch file and return its path in buf. */
static void scratch_file(const char *name, const char *text, char *buf,
			 size_t len)
{
	struct bn_err err = { 0 };
	const char *tmp = getenv("TMPDIR");

	snprintf(buf, len, "%s/bn_test_limits_%ld_%s", tmp && *tmp ? tmp : "/tmp",
		 (long)getpid(), name);
	assert_int_equal(bn_file_write_atomic(buf, text, strlen(text), &err), BN_OK);
}

static void test_limits__wrong_dimension_for_required(void **state)
{
	static const char text[] =
		"{\"schema\": \"bcbench-limits/1\", \"sources\": {\"s\": \"x\"},\n"
		" \"limits\": [{\"name\": \"VDP_SRC\", \"min\": 500, \"max\": 700,"
		" \"unit\": \"mA\", \"meaning\": \"m\", \"source\": \"s\"}]}\n";
	struct bn_limits lim;
	struct bn_err err = { 0 };
	char path[512];

	scratch_file("dim.json", text, path, sizeof(path));
	assert_int_equal(bn_limits_load(path, &lim, &err), BN_ERR_DATA);
	assert_contains(err.msg, "limits[0] \"VDP_SRC\"");
	assert_contains(err.msg, "expected a voltage");
	unlink(path);
}

static void test_limits__string_values_and_unknown_key(void **state)
{
	static const char good[] =
		"{\"schema\": \"bcbench-limits/1\", \"sources\": {\"s\": \"x\"},\n"
		" \"limits\": [{\"name\": \"EXTRA\", \"min\": \"2mA\", \"max\": 0.5,"
		" \"unit\": \"A\", \"meaning\": \"m\", \"source\": \"s\"}]}\n";
	static const char typo[] =
		"{\"schema\": \"bcbench-limits/1\", \"sources\": {\"s\": \"x\"},\n"
		" \"limits\": [{\"name\": \"EXTRA\", \"mx\": 1,"
		" \"unit\": \"A\", \"meaning\": \"m\", \"source\": \"s\"}]}\n";
	struct bn_limits lim;
	struct bn_err err = { 0 };
	char path[512];

	/* a file without the required names fails only on those */
	scratch_file("str.json", good, path, sizeof(path));
	assert_int_equal(bn_limits_load(path, &lim, &err), BN_ERR_DATA);
	assert_contains(err.msg, "missing limit \"VDP_SRC\"");
	unlink(path);

	bn_err_clear(&err);
	scratch_file("typo.json", typo, path, sizeof(path));
	assert_int_equal(bn_limits_load(path, &lim, &err), BN_ERR_DATA);
	assert_contains(err.msg, "limits[0] \"EXTRA\": unknown key \"mx\"");
	unlink(path);
}

static void test_json__syntax_position(void **state)
{
	struct bn_err err = { 0 };
	cJSON *root = (cJSON *)1;
	char path[512], want[600];

	scratch_file("pos.json", "{\n  \"a\": 1,\n  \"b\": tru\n}\n", path, sizeof(path));
	assert_int_equal(bn_json_load(path, &root, &err), BN_ERR_DATA);
	assert_null(root);
	snprintf(want, sizeof(want), "%s:3:8: error: invalid JSON", path);
	assert_int_equal(strncmp(err.msg, want, strlen(want)), 0);
	unlink(path);

	bn_err_clear(&err);
	scratch_file("empty.json", "", path, sizeof(path));
	assert_int_equal(bn_json_load(path, &root, &err), BN_ERR_DATA);
	snprintf(want, sizeof(want), "%s:1:1: error: invalid JSON", path);
	assert_int_equal(strncmp(err.msg, want, strlen(want)), 0);
	unlink(path);

	bn_err_clear(&err);
	scratch_file("trailing.json", "{}\n{}\n", path, sizeof(path));
	assert_int_equal(bn_json_load(path, &root, &err), BN_ERR_DATA);
	snprintf(want, sizeof(want), "%s:2:1: error: invalid JSON near '{}'", path);
	assert_int_equal(strncmp(err.msg, want, strlen(want)), 0);
	unlink(path);
}

static void test_json__getters(void **state)
{
	cJSON *o = cJSON_Parse("{\"n\": 2.5, \"b\": true, \"s\": \"hello\","
			       " \"r_ohm\": 15, \"r\": \"15kohm\", \"v\": \"5V\", \"x\": [1]}");
	struct bn_err err = { 0 };
	char buf[6];
	double d = -1;
	bool b = false;

	assert_non_null(o);
	assert_int_equal(bn_json_num(o, "n", true, &d, "f.json", &err), BN_OK);
	assert_close(d, 2.5);
	d = -1;
	assert_int_equal(bn_json_num(o, "absent", false, &d, "f.json", &err), BN_OK);
	assert_close(d, -1);
	assert_int_equal(bn_json_bool(o, "b", true, &b, "f.json", &err), BN_OK);
	assert_true(b);
	assert_int_equal(bn_json_str(o, "s", true, buf, sizeof(buf), "f.json", &err), BN_OK);
	assert_string_equal(buf, "hello");
	assert_int_equal(bn_json_quantity(o, "r_ohm", true, BN_DIM_OHM, 1e3, &d, "f.json", &err),
			 BN_OK);
	assert_close(d, 15e3);
	assert_int_equal(bn_json_quantity(o, "r", true, BN_DIM_OHM, 1, &d, "f.json", &err),
			 BN_OK);
	assert_close(d, 15e3);
	assert_int_equal(bn_json_quantity(o, "n", true, BN_DIM_A, 1e-3, &d, "f.json", &err),
			 BN_OK);
	assert_close(d, 2.5e-3);

	assert_int_equal(bn_json_num(o, "absent", true, &d, "f.json: net", &err), BN_ERR_DATA);
	assert_string_equal(err.msg, "f.json: net: missing key \"absent\"");
	bn_err_clear(&err);
	assert_int_equal(bn_json_num(o, "s", true, &d, "f.json", &err), BN_ERR_DATA);
	assert_string_equal(err.msg, "f.json: key \"s\": expected a number, got a string");
	bn_err_clear(&err);
	assert_int_equal(bn_json_bool(o, "n", true, &b, "f.json", &err), BN_ERR_DATA);
	bn_err_clear(&err);
	/* "hello" + NUL does not fit in 5 bytes */
	assert_int_equal(bn_json_str(o, "s", true, buf, 5, "f.json", &err), BN_ERR_DATA);
	assert_contains(err.msg, "too long");
	bn_err_clear(&err);
	assert_int_equal(bn_json_quantity(o, "v", true, BN_DIM_A, 1, &d, "f.json", &err),
			 BN_ERR_DATA);
	assert_string_equal(err.msg,
			    "f.json: key \"v\": expected a current such as 500mA, got \"5V\"");
	bn_err_clear(&err);
	assert_int_equal(bn_json_quantity(o, "x", true, BN_DIM_A, 1, &d, "f.json", &err),
			 BN_ERR_DATA);
	assert_contains(err.msg, "got an array");
	cJSON_Delete(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_limits__shipped_loads),
		cmocka_unit_test(test_limits__shipped_units),
		cmocka_unit_test(test_limits__shipped_typ),
		cmocka_unit_test(test_limits__shipped_has_required),
		cmocka_unit_test(test_limits__required_names),
		cmocka_unit_test(test_limits__min_gt_max),
		cmocka_unit_test(test_limits__unknown_unit),
		cmocka_unit_test(test_limits__duplicate),
		cmocka_unit_test(test_limits__missing_name),
		cmocka_unit_test(test_limits__no_unit),
		cmocka_unit_test(test_limits__bad_syntax),
		cmocka_unit_test(test_limits__typ_outside),
		cmocka_unit_test(test_limits__unknown_source),
		cmocka_unit_test(test_limits__missing_file),
		cmocka_unit_test(test_limits__wrong_dimension_for_required),
		cmocka_unit_test(test_limits__string_values_and_unknown_key),
		cmocka_unit_test(test_json__syntax_position),
		cmocka_unit_test(test_json__getters),
	};

	return cmocka_run_group_tests_name("limits", tests, NULL, NULL);
}
