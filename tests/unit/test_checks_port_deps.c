/* The engine's port dependencies (bn_rule.port_deps, checks/engine.c):
 * a device rule's fail (a warning too) where a port rule it rests on
 * failed in the same session becomes inconclusive naming the port and
 * the port rule; a pass stays; a rule resting on nothing, or on a port
 * rule that passed, keeps its fail; a port failure in another session
 * excuses nothing. The device rules come first in the table and the port
 * rules last (as in the real one), so this also shows the port rules end
 * before their dependants are decided.
 *
 * The rule table here is the test's own: it defines the registry's
 * functions (checks/registry.c), so the linker takes these and not the
 * library's, and the engine runs over rules whose verdicts the stream
 * sets: a port rule fails when VBUS (or D+) goes high, a device rule when
 * IBUS does. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "checks/check.h"
#include "checks/rules.h"
#include "report/report.h"

/* ---- the fake rules ---- */

struct hi_priv {
	double max;
};

static void hi_begin(void *priv, const struct bn_check_ctx *ctx)
{
	struct hi_priv *p = priv;

	(void)ctx;
	p->max = -INFINITY;
}

#define HI_RULE(NAME, CH, LIMIT, WARN)                                                  \
	static void NAME##_sample(void *priv, bn_time_us t, const struct bn_sample *s) \
	{                                                                              \
		struct hi_priv *p = priv;                                              \
		(void)t;                                                               \
		p->max = fmax(p->max, s->v[CH]);                                       \
	}                                                                              \
	static void NAME##_end(void *priv, bn_time_us t, struct bn_result *res)        \
	{                                                                              \
		const struct hi_priv *p = priv;                                        \
		(void)t;                                                               \
		bn_result_judge(res, p->max, NAN, LIMIT, CH == BN_CH_IBUS ? "A" : "V"); \
		res->warning = WARN && res->verdict == BN_VERDICT_FAIL;                \
	}

HI_RULE(draw, BN_CH_IBUS, 1.0, false)
HI_RULE(draw_warn, BN_CH_IBUS, 1.0, true)
HI_RULE(vbus_hi, BN_CH_VBUS, 5.5, false)
HI_RULE(dp_hi, BN_CH_DP, 1.0, false)

static const char *const on_vbus[] = { "bc12.port.vbus_hi", NULL };
static const char *const on_dp[] = { "bc12.port.dp_hi", NULL };
static const char *const on_both[] = { "bc12.port.dp_hi", "bc12.port.vbus_hi", NULL };
/* a dependency on a port rule the table does not have is no excuse */
static const char *const on_none[] = { "bc12.port.not_in_table", NULL };

#define RULE(ID, SIDE, DEPS, NAME)                                                      \
	{ .id = ID, .task = SIDE == BN_SIDE_PORT ? BN_TASK_PORT_OUTPUT : BN_TASK_CURRENT, \
	  .side = SIDE, .port_deps = DEPS, .title = ID " (test)",                     \
	  .needs_channels = (1u << BN_CH_VBUS) | (1u << BN_CH_IBUS) | (1u << BN_CH_DP), \
	  .priv_size = sizeof(struct hi_priv), .begin = hi_begin, .sample = NAME##_sample, \
	  .end = NAME##_end }

static const struct bn_rule rules[] = {
	RULE("bc12.dev.on_vbus", BN_SIDE_DEVICE, on_vbus, draw),
	RULE("bc12.dev.warn_on_vbus", BN_SIDE_DEVICE, on_vbus, draw_warn),
	RULE("bc12.dev.on_dp", BN_SIDE_DEVICE, on_dp, draw),
	RULE("bc12.dev.on_both", BN_SIDE_DEVICE, on_both, draw),
	RULE("bc12.dev.on_none", BN_SIDE_DEVICE, on_none, draw),
	RULE("bc12.dev.free", BN_SIDE_DEVICE, NULL, draw),
	RULE("bc12.port.vbus_hi", BN_SIDE_PORT, NULL, vbus_hi),
	RULE("bc12.port.dp_hi", BN_SIDE_PORT, NULL, dp_hi),
};

#define N_RULES ((int)(sizeof(rules) / sizeof(rules[0])))

/* ---- the registry the engine sees ---- */

int bn_rules_count(void)
{
	return N_RULES;
}

const struct bn_rule *bn_rule_at(int idx)
{
	return idx >= 0 && idx < N_RULES ? &rules[idx] : NULL;
}

const struct bn_rule *bn_rule_find(const char *id)
{
	for (int i = 0; i < N_RULES; i++)
		if (!strcmp(rules[i].id, id))
			return &rules[i];
	return NULL;
}

bool bn_rule_name_known(const char *name)
{
	return bn_rule_find(name) != NULL;
}

/* ---- running them ---- */

struct sess {
	double vbus_v, ibus_a, dp_v;
};

static void ctx_init(struct bn_check_ctx *ctx, const char *port_name)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->port = BN_PORT_DCP;
	ctx->port_name = port_name;
	ctx->rate_hz = 1000;
	ctx->channels = (1u << BN_CH_VBUS) | (1u << BN_CH_IBUS) | (1u << BN_CH_DP) | (1u << BN_CH_DM);
	ctx->gnd_offset_v = 0;
}

/* n sessions of 10 samples each, the i-th at its levels, each on its own
 * port (port-1, port-2, ...), into rep. */
static void run(const struct sess *ss, int n, struct bn_report *rep)
{
	static const char *const names[] = { "port-1", "port-2", "port-3" };
	struct bn_check_ctx ctx;
	struct bn_checks *c = NULL;
	struct bn_err err = { 0 };
	long k = 0;

	ctx_init(&ctx, names[0]);
	assert_int_equal(bn_checks_new(&ctx, &c, &err), BN_OK);
	for (int i = 0; i < n; i++) {
		struct bn_sample s;

		memset(&s, 0, sizeof(s));
		s.v[BN_CH_VBUS] = ss[i].vbus_v;
		s.v[BN_CH_IBUS] = ss[i].ibus_a;
		s.v[BN_CH_DP] = ss[i].dp_v;
		if (i > 0) {
			struct bn_check_ctx next;

			ctx_init(&next, names[i]);
			assert_int_equal(bn_checks_move(c, bn_time_from_s(k * 1e-3), &next, &err), BN_OK);
		}
		for (int j = 0; j < 10; j++, k++)
			bn_checks_sample(c, bn_time_from_s(k * 1e-3), &s);
	}
	bn_report_init(rep);
	bn_checks_end(c, bn_time_from_s(k * 1e-3), rep);
	rep->status = BN_RUN_COMPLETED;
	bn_checks_free(c);
}

static const struct bn_result *find(const struct bn_report *rep, const char *id)
{
	for (int i = 0; i < rep->n_results; i++)
		if (!strcmp(rep->results[i].id, id))
			return &rep->results[i];
	fail_msg("no result %s", id);
	return NULL;
}

static void assert_has(const char *s, const char *part)
{
	if (!strstr(s, part))
		fail_msg("\"%s\" does not say \"%s\"", s, part);
}

/* The port fails VBUS: the device rules resting on it are inconclusive
 * naming the port, the port rule and what it measured; the rest keep
 * their fail. */
static void test_port_deps__fail_becomes_inconclusive(void **state)
{
	const struct sess s[] = { { 6.0, 1.5, 0.5 } };
	struct bn_report rep;
	const struct bn_result *r;

	(void)state;
	run(s, 1, &rep);
	assert_int_equal(rep.n_results, N_RULES);
	/* in table order, as always */
	for (int i = 0; i < N_RULES; i++)
		assert_string_equal(rep.results[i].id, rules[i].id);
	assert_int_equal(find(&rep, "bc12.port.vbus_hi")->verdict, BN_VERDICT_FAIL);
	assert_string_equal(find(&rep, "bc12.port.vbus_hi")->side, "port");
	assert_int_equal(find(&rep, "bc12.port.dp_hi")->verdict, BN_VERDICT_PASS);

	r = find(&rep, "bc12.dev.on_vbus");
	assert_int_equal(r->verdict, BN_VERDICT_INCONCLUSIVE);
	assert_string_equal(r->side, "device");
	assert_has(r->reason, "the port (port-1) failed bc12.port.vbus_hi: measured 6 V");
	assert_has(r->reason, "would be fail");
	/* a warning likewise, and no longer a warning */
	r = find(&rep, "bc12.dev.warn_on_vbus");
	assert_int_equal(r->verdict, BN_VERDICT_INCONCLUSIVE);
	assert_false(r->warning);
	assert_has(r->reason, "the port (port-1) failed bc12.port.vbus_hi");
	/* any one of its port rules failing is enough */
	r = find(&rep, "bc12.dev.on_both");
	assert_int_equal(r->verdict, BN_VERDICT_INCONCLUSIVE);
	assert_has(r->reason, "failed bc12.port.vbus_hi");
	/* resting on a port rule that passed, on none, or on one not in the table */
	assert_int_equal(find(&rep, "bc12.dev.on_dp")->verdict, BN_VERDICT_FAIL);
	assert_int_equal(find(&rep, "bc12.dev.on_none")->verdict, BN_VERDICT_FAIL);
	assert_int_equal(find(&rep, "bc12.dev.free")->verdict, BN_VERDICT_FAIL);
	bn_report_free(&rep);
}

/* A pass stays a pass, whatever the port did; a port that passes excuses
 * nothing. */
static void test_port_deps__pass_stays_and_good_port_excuses_nothing(void **state)
{
	const struct sess good_dev[] = { { 6.0, 0.5, 1.5 } };
	const struct sess good_port[] = { { 5.0, 1.5, 0.5 } };
	struct bn_report rep;

	(void)state;
	run(good_dev, 1, &rep);
	for (int i = 0; i < 6; i++)
		assert_int_equal(rep.results[i].verdict, BN_VERDICT_PASS);
	assert_int_equal(find(&rep, "bc12.port.vbus_hi")->verdict, BN_VERDICT_FAIL);
	assert_int_equal(find(&rep, "bc12.port.dp_hi")->verdict, BN_VERDICT_FAIL);
	bn_report_free(&rep);

	run(good_port, 1, &rep);
	for (int i = 0; i < 6; i++)
		assert_int_equal(rep.results[i].verdict, BN_VERDICT_FAIL);
	assert_int_equal(find(&rep, "bc12.port.vbus_hi")->verdict, BN_VERDICT_PASS);
	bn_report_free(&rep);
}

/* Sessions: the port's failure in one session excuses the device's in
 * that session only. */
static void test_port_deps__per_session(void **state)
{
	/* session 1: the port fails, the device does not; session 2: the
	 * device fails on a port that does not */
	const struct sess apart[] = { { 6.0, 0.5, 0.5 }, { 5.0, 1.5, 0.5 } };
	/* session 1: both fail; session 2: both pass */
	const struct sess together[] = { { 6.0, 1.5, 0.5 }, { 5.0, 0.5, 0.5 } };
	struct bn_report rep;
	const struct bn_result *r;

	(void)state;
	run(apart, 2, &rep);
	r = find(&rep, "bc12.dev.on_vbus");
	assert_int_equal(r->verdict, BN_VERDICT_FAIL);
	assert_has(r->reason, "session 2 of the run: port port-2");
	bn_report_free(&rep);

	run(together, 2, &rep);
	r = find(&rep, "bc12.dev.on_vbus");
	assert_int_equal(r->verdict, BN_VERDICT_INCONCLUSIVE);
	assert_has(r->reason, "the port (port-1) failed bc12.port.vbus_hi");
	assert_has(r->reason, "session 1 of the run: port port-1");
	bn_report_free(&rep);
}

/* The record: a device run on a port that failed, where every device rule
 * that failed rested on it, is not the device's failure: exit code 0,
 * the device's verdict not demonstrated, the port's not compliant. A
 * device rule failing on its own still fails the run. */
static void test_port_deps__record_and_exit_code(void **state)
{
	const struct sess s[] = { { 6.0, 1.5, 0.5 } };
	struct bn_report rep;
	cJSON *doc;
	const cJSON *vs;

	(void)state;
	run(s, 1, &rep);
	assert_int_equal(bn_report_exit_code(&rep), 1); /* on_dp, on_none, free fail */
	/* only what rests on the port failed */
	for (int i = 0; i < rep.n_results; i++)
		if (!strcmp(rep.results[i].side, "device") && rep.results[i].verdict == BN_VERDICT_FAIL)
			rep.results[i].verdict = BN_VERDICT_PASS;
	assert_int_equal(bn_report_exit_code(&rep), 0);
	assert_int_equal(bn_report_overall(&rep), BN_OVERALL_NOT_DEMONSTRATED);
	doc = bn_report_to_json(&rep);
	assert_string_equal(cJSON_GetObjectItem(doc, "judges")->valuestring, "device");
	assert_string_equal(cJSON_GetObjectItem(doc, "verdict")->valuestring, "not-demonstrated");
	vs = cJSON_GetObjectItem(doc, "verdicts");
	assert_string_equal(cJSON_GetObjectItem(vs, "device")->valuestring, "not-demonstrated");
	assert_string_equal(cJSON_GetObjectItem(vs, "port")->valuestring, "not-compliant");
	assert_int_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "status"), "exit_code")->valueint, 0);
	cJSON_Delete(doc);
	bn_report_free(&rep);
}

/* The real tables (checks/rules.h, not through the registry): every
 * dependency a device rule names is a port rule of the contract's list,
 * and one the port family has is a port rule; the rules that judge the
 * device on weak chargers rest on nothing (docs/port-dependencies.md). */
static void test_port_deps__the_real_tables(void **state)
{
	static const char *const port_ids[] = {
		"bc12.port.vchg", "bc12.port.overshoot", "bc12.port.undershoot", "bc12.port.shutdown",
		"bc12.port.recovery", "bc12.port.rdcp_dat", "bc12.port.leakage", "bc12.port.vdm_src",
		"bc12.port.tvdmsrc_en", "bc12.port.tvdmsrc_dis", "bc12.port.rating", NULL,
	};
	const struct bn_rule *const *const fams[] = { bn_rules_detection, bn_rules_aca_otg,
						      bn_rules_advertise, bn_rules_host_choice,
						      bn_rules_current, bn_rules_dbp };
	int n_deps = 0;

	(void)state;
	for (size_t f = 0; f < sizeof(fams) / sizeof(fams[0]); f++)
		for (int i = 0; fams[f][i]; i++) {
			const struct bn_rule *r = fams[f][i];

			assert_int_equal(r->side, BN_SIDE_DEVICE);
			if (!strcmp(r->id, "bc12.cur.droop") || !strcmp(r->id, "bc12.cur.vdcp_shtdwn") ||
			    !strcmp(r->id, "bc12.cur.idev_chg"))
				assert_null(r->port_deps);
			for (int k = 0; r->port_deps && r->port_deps[k]; k++, n_deps++) {
				bool listed = false;

				for (int j = 0; port_ids[j]; j++)
					listed = listed || !strcmp(port_ids[j], r->port_deps[k]);
				if (!listed)
					fail_msg("%s rests on %s, not a port rule", r->id, r->port_deps[k]);
				for (int j = 0; bn_rules_port[j]; j++)
					if (!strcmp(bn_rules_port[j]->id, r->port_deps[k]))
						assert_int_equal(bn_rules_port[j]->side, BN_SIDE_PORT);
			}
		}
	assert_true(n_deps >= 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_port_deps__fail_becomes_inconclusive),
		cmocka_unit_test(test_port_deps__pass_stays_and_good_port_excuses_nothing),
		cmocka_unit_test(test_port_deps__per_session),
		cmocka_unit_test(test_port_deps__record_and_exit_code),
		cmocka_unit_test(test_port_deps__the_real_tables),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
