/* The golden matrix (the .tsv files in tests/golden): every faulty firmware fails
 * exactly the rules its rows name, in the scenarios named; the reference
 * fails none. Prints the matrix, rules by firmwares. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <ctype.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/harness.h"
#include "checks/check.h"
#include "report/report.h"
#include "scenario/runner.h"

#define MAX_ROWS 256
#define MAX_RULES_PER_ROW 16

struct row {
	char file[256];
	int line;
	char fw[64];
	char scn[64];
	int n_rules;
	char rules[MAX_RULES_PER_ROW][64];
};

struct matrix {
	int n;
	struct row rows[MAX_ROWS];
};

static const char *fwdir(void)
{
	const char *d = getenv("BN_FWDIR");

	return d ? d : "build/fw";
}

static void load_matrix(struct matrix *m)
{
	char pattern[512], line[1024];
	glob_t g;

	m->n = 0;
	snprintf(pattern, sizeof(pattern), "%s/tests/golden/*.tsv", bn_test_srcdir());
	if (glob(pattern, 0, NULL, &g))
		fail_msg("no golden files under %s", pattern);
	for (size_t i = 0; i < g.gl_pathc; i++) {
		FILE *f = fopen(g.gl_pathv[i], "r");
		int lineno = 0;

		assert_non_null(f);
		while (fgets(line, sizeof(line), f)) {
			struct row *r;
			char *tok, *save = NULL, *hash = strchr(line, '#');

			lineno++;
			if (hash)
				*hash = '\0';
			tok = strtok_r(line, " \t\r\n", &save);
			if (!tok)
				continue;
			assert_true(m->n < MAX_ROWS);
			r = &m->rows[m->n++];
			memset(r, 0, sizeof(*r));
			snprintf(r->file, sizeof(r->file), "%s", g.gl_pathv[i]);
			r->line = lineno;
			snprintf(r->fw, sizeof(r->fw), "%s", tok);
			tok = strtok_r(NULL, " \t\r\n", &save);
			if (!tok)
				fail_msg("%s:%d: expected FIRMWARE SCENARIO RULE...", r->file, lineno);
			snprintf(r->scn, sizeof(r->scn), "%s", tok);
			while ((tok = strtok_r(NULL, " \t\r\n", &save))) {
				assert_true(r->n_rules < MAX_RULES_PER_ROW);
				if (!bn_rule_find(tok))
					fail_msg("%s:%d: no rule \"%s\"", r->file, lineno, tok);
				snprintf(r->rules[r->n_rules++], 64, "%s", tok);
			}
			if (!r->n_rules)
				fail_msg("%s:%d: a row names at least one rule", r->file, lineno);
		}
		fclose(f);
	}
	globfree(&g);
}

/* Run scenario scn with firmware fw (NULL: the scenario's own). */
static void run(const char *scn, const char *fw, struct bn_report *rep)
{
	char path[512];
	struct bn_err err = { 0 };
	struct bn_run_opts o = { .datadir = bn_test_srcdir() };

	snprintf(path, sizeof(path), "%s/scripts/scenarios/%s.scn", bn_test_srcdir(), scn);
	o.scenario_path = path;
	o.firmware_override = fw;
	bn_report_init(rep);
	if (bn_run_scenario(&o, rep, &err) != BN_OK)
		fail_msg("%s with %s: %s", scn, fw ? fw : "its firmware", err.msg);
	if (rep->status != BN_RUN_COMPLETED)
		fail_msg("%s with %s: run did not complete: %s", scn, fw ? fw : "its firmware",
			 rep->reason);
}

static bool listed(const struct row *r, const char *id)
{
	for (int i = 0; i < r->n_rules; i++)
		if (!strcmp(r->rules[i], id))
			return true;
	return false;
}

static void test_golden__faulty_firmware_fails_exactly_its_rules(void **state)
{
	struct matrix *m = calloc(1, sizeof(*m));
	int bad = 0;

	(void)state;
	assert_non_null(m);
	load_matrix(m);
	for (int i = 0; i < m->n; i++) {
		const struct row *r = &m->rows[i];
		char fw[512];
		struct bn_report rep;

		snprintf(fw, sizeof(fw), "%s/%s.so", fwdir(), r->fw);
		run(r->scn, fw, &rep);
		for (int k = 0; k < rep.n_results; k++) {
			const struct bn_result *res = &rep.results[k];
			bool failed = res->verdict == BN_VERDICT_FAIL;

			if (strcmp(res->kind, "check"))
				continue;
			if (failed && !listed(r, res->id)) {
				print_error("%s:%d: %s on %s also fails %s (%s)\n", r->file, r->line, r->fw,
					    r->scn, res->id, res->reason);
				bad++;
			}
			if (!failed && listed(r, res->id)) {
				print_error("%s:%d: %s on %s does not fail %s: %s (%s)\n", r->file, r->line,
					    r->fw, r->scn, res->id, bn_verdict_name(res->verdict),
					    res->reason);
				bad++;
			}
		}
		for (int j = 0; j < r->n_rules; j++) {
			bool present = false;

			for (int k = 0; k < rep.n_results; k++)
				present |= !strcmp(rep.results[k].id, r->rules[j]);
			assert_true(present);
		}
		bn_report_free(&rep);
	}
	free(m);
	assert_int_equal(bad, 0);
}

static void test_golden__reference_fails_nothing_anywhere(void **state)
{
	char pattern[512];
	glob_t g;
	int bad = 0;

	(void)state;
	snprintf(pattern, sizeof(pattern), "%s/scripts/scenarios/*.scn", bn_test_srcdir());
	assert_int_equal(glob(pattern, 0, NULL, &g), 0);
	for (size_t i = 0; i < g.gl_pathc; i++) {
		char scn[128], *base = strrchr(g.gl_pathv[i], '/'), *dot;
		struct bn_report rep;
		int judged = 0;

		snprintf(scn, sizeof(scn), "%s", base ? base + 1 : g.gl_pathv[i]);
		dot = strrchr(scn, '.');
		if (dot)
			*dot = '\0';
		/* Scenarios with a deliberately faulty device have golden rows. */
		if (!strncmp(scn, "faulty-", 7))
			continue;
		run(scn, "reference", &rep);
		for (int k = 0; k < rep.n_results; k++) {
			const struct bn_result *res = &rep.results[k];

			if (strcmp(res->kind, "check"))
				continue;
			judged += res->verdict == BN_VERDICT_PASS;
			if (res->verdict == BN_VERDICT_FAIL || res->verdict == BN_VERDICT_ERROR) {
				print_error("reference on %s: %s %s (%s)\n", scn, res->id,
					    bn_verdict_name(res->verdict), res->reason);
				bad++;
			}
		}
		if (!judged) {
			print_error("reference on %s: no rule passed at all\n", scn);
			bad++;
		}
		bn_report_free(&rep);
	}
	globfree(&g);
	assert_int_equal(bad, 0);
}

static void test_golden__print_matrix(void **state)
{
	struct matrix *m = calloc(1, sizeof(*m));
	char fws[64][64];
	int n_fw = 0;

	(void)state;
	assert_non_null(m);
	load_matrix(m);
	for (int i = 0; i < m->n; i++) {
		int j;

		for (j = 0; j < n_fw; j++)
			if (!strcmp(fws[j], m->rows[i].fw))
				break;
		if (j == n_fw && n_fw < 64)
			snprintf(fws[n_fw++], 64, "%s", m->rows[i].fw);
	}
	print_message("golden matrix: rows are rules, columns firmware variants; X = must fail\n");
	for (int j = 0; j < n_fw; j++)
		print_message("  %c = %s\n", j < 26 ? 'a' + j : 'A' + j - 26, fws[j]);
	print_message("  %-34s ", "rule");
	for (int j = 0; j < n_fw; j++)
		print_message("%c", j < 26 ? 'a' + j : 'A' + j - 26);
	print_message("\n");
	for (int i = 0, n = bn_rules_count(); i < n; i++) {
		const char *id = bn_rule_at(i)->id;
		int caught = 0;

		print_message("  %-34s ", id);
		for (int j = 0; j < n_fw; j++) {
			bool x = false;

			for (int k = 0; k < m->n; k++)
				x |= !strcmp(m->rows[k].fw, fws[j]) && listed(&m->rows[k], id);
			caught += x;
			print_message("%c", x ? 'X' : '.');
		}
		print_message("%s\n", caught ? "" : "   <- no variant proves this rule");
	}
	free(m);
}

/* Every rule is proven by at least one variant. */
static void test_golden__every_rule_has_a_variant_that_breaks_it(void **state)
{
	struct matrix *m = calloc(1, sizeof(*m));
	int missing = 0;

	(void)state;
	assert_non_null(m);
	load_matrix(m);
	for (int i = 0, n = bn_rules_count(); i < n; i++) {
		bool x = false;

		/* a port rule is proven by a faulty port: tests/golden-port */
		if (bn_rule_at(i)->side == BN_SIDE_PORT)
			continue;
		for (int k = 0; k < m->n; k++)
			x |= listed(&m->rows[k], bn_rule_at(i)->id);
		if (!x) {
			print_error("rule %s: no faulty firmware in tests/golden proves it\n",
				    bn_rule_at(i)->id);
			missing++;
		}
	}
	free(m);
	assert_int_equal(missing, 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_golden__print_matrix),
		cmocka_unit_test(test_golden__faulty_firmware_fails_exactly_its_rules),
		cmocka_unit_test(test_golden__reference_fails_nothing_anywhere),
		cmocka_unit_test(test_golden__every_rule_has_a_variant_that_breaks_it),
	};

	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
