/* The engine hands runs of equal samples to a rule's hold() at once; a
 * rule must end exactly where n calls of sample() would take it. Every
 * scenario, with its own firmware and with each faulty firmware of the
 * golden matrix, is run twice (runs held, and sample by sample) and every
 * result must agree: verdict, reason, window, measured value, margin and
 * figures (values within 1e-9 relative: a held sum may be n * v). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/harness.h"
#include "report/report.h"
#include "scenario/runner.h"

static const char *fwdir(void)
{
	const char *d = getenv("BN_FWDIR");

	return d ? d : "build/fw";
}

static void run(const char *scn, const char *fw, bool no_hold, struct bn_report *rep)
{
	char path[512];
	struct bn_err err = { 0 };
	struct bn_run_opts o = { .datadir = bn_test_srcdir(), .checks_no_hold = no_hold };

	snprintf(path, sizeof(path), "%s/scripts/scenarios/%s.scn", bn_test_srcdir(), scn);
	o.scenario_path = path;
	o.firmware_override = fw;
	bn_report_init(rep);
	if (bn_run_scenario(&o, rep, &err) != BN_OK)
		fail_msg("%s: %s", scn, err.msg);
}

static bool same_value(double a, double b)
{
	if (a == b)
		return true; /* infinities too */
	if (isnan(a) || isnan(b))
		return isnan(a) && isnan(b);
	return fabs(a - b) <= 1e-9 * fmax(fabs(a), 1e-3);
}

static int compare(const char *what, const struct bn_report *a, const struct bn_report *b)
{
	int bad = 0;

	if (a->n_results != b->n_results) {
		print_error("%s: %d results held, %d sample by sample\n", what, a->n_results,
			    b->n_results);
		return 1;
	}
	for (int i = 0; i < a->n_results; i++) {
		const struct bn_result *x = &a->results[i], *y = &b->results[i];
		bool ok = x->verdict == y->verdict && !strcmp(x->reason, y->reason) &&
			  x->t0_us == y->t0_us && x->t1_us == y->t1_us &&
			  x->has_measured == y->has_measured && x->has_margin == y->has_margin &&
			  x->n_figures == y->n_figures && !strcmp(x->measured_str, y->measured_str);

		if (ok && x->has_measured)
			ok = same_value(x->measured, y->measured);
		if (ok && x->has_margin)
			ok = same_value(x->margin, y->margin);
		for (int f = 0; ok && f < x->n_figures; f++)
			ok = same_value(x->figures[f].value, y->figures[f].value);
		if (!ok) {
			print_error("%s: %s held %s (%.12g, %lld..%lld, \"%s\"), sample by sample %s "
				    "(%.12g, %lld..%lld, \"%s\")\n",
				    what, x->id, bn_verdict_name(x->verdict), x->measured,
				    (long long)x->t0_us, (long long)x->t1_us, x->reason,
				    bn_verdict_name(y->verdict), y->measured, (long long)y->t0_us,
				    (long long)y->t1_us, y->reason);
			bad++;
		}
	}
	return bad;
}

static int check_one(const char *scn, const char *fw)
{
	struct bn_report held, each;
	char what[256];
	int bad;

	snprintf(what, sizeof(what), "%s with %s", scn, fw ? fw : "its firmware");
	run(scn, fw, false, &held);
	run(scn, fw, true, &each);
	bad = compare(what, &held, &each);
	bn_report_free(&held);
	bn_report_free(&each);
	return bad;
}

static void test_hold__every_scenario_agrees(void **state)
{
	char names[64][64];
	int n = bn_test_scenario_names(names, 64), bad = 0;

	(void)state;
	for (int i = 0; i < n; i++) {
		const char *scn = names[i];

		bad += check_one(scn, NULL);
	}
	assert_true(n >= 15);
	assert_int_equal(bad, 0);
}

static void test_hold__every_faulty_firmware_agrees(void **state)
{
	char pattern[512], line[1024], fw[512];
	glob_t g;
	int bad = 0, rows = 0;

	(void)state;
	snprintf(pattern, sizeof(pattern), "%s/tests/golden/*.tsv", bn_test_srcdir());
	assert_int_equal(glob(pattern, 0, NULL, &g), 0);
	for (size_t i = 0; i < g.gl_pathc; i++) {
		FILE *f = fopen(g.gl_pathv[i], "r");

		assert_non_null(f);
		while (fgets(line, sizeof(line), f)) {
			char *save = NULL, *name, *scn, *hash = strchr(line, '#');

			if (hash)
				*hash = '\0';
			name = strtok_r(line, " \t\r\n", &save);
			scn = name ? strtok_r(NULL, " \t\r\n", &save) : NULL;
			if (!scn)
				continue;
			snprintf(fw, sizeof(fw), "%s/%s.so", fwdir(), name);
			bad += check_one(scn, fw);
			rows++;
		}
		fclose(f);
	}
	globfree(&g);
	assert_true(rows >= 20);
	assert_int_equal(bad, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hold__every_scenario_agrees),
		cmocka_unit_test(test_hold__every_faulty_firmware_agrees),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
