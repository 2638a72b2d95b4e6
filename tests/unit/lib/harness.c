#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <glob.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"

#include "core/conditions.h"

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

void bn_test_ctx_conditions(struct bn_check_ctx *ctx, const char *name)
{
	struct bn_conditions c;
	struct bn_err err = { 0 };
	char path[1024];

	snprintf(path, sizeof(path), "%s/profiles/conditions/%s.json", bn_test_srcdir(), name);
	if (bn_conditions_load(path, &c, &err) < 0)
		fail_msg("%s", err.msg);
	for (int ch = 0; ch < BN_CH_COUNT && ch < BN_COND_CH; ch++)
		if (c.meas_set & (1u << ch)) {
			ctx->meas[ch] = c.meas[ch];
			ctx->meas_src[ch] = BN_MEAS_SRC_SIM;
		}
}

void bn_test_measure(const struct bn_check_ctx *ctx, struct bn_rng *rng, struct bn_sample *s)
{
	for (int ch = 0; ch < BN_CH_COUNT; ch++)
		if (ctx->meas_src[ch] == BN_MEAS_SRC_SIM)
			s->v[ch] = bn_meas_apply(&ctx->meas[ch], rng, s->v[ch], 0);
}

int bn_test_scenario_names(char names[][64], int max)
{
	char pattern[512];
	glob_t g;
	int n = 0;

	snprintf(pattern, sizeof(pattern), "%s/scripts/scenarios/*.scn", bn_test_srcdir());
	if (glob(pattern, 0, NULL, &g) != 0)
		fail_msg("%s: no scenarios", pattern);
	for (size_t i = 0; i < g.gl_pathc && n < max; i++) {
		const char *base = strrchr(g.gl_pathv[i], '/');
		char *dot;

		snprintf(names[n], 64, "%s", base ? base + 1 : g.gl_pathv[i]);
		dot = strrchr(names[n], '.');
		if (dot)
			*dot = '\0';
		n++;
	}
	globfree(&g);
	return n;
}
