/* Task 1: learn the attached port type (DCD, primary and secondary
 * detection, ACA by ID, OTG). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "checks/check.h"
#include "checks/rules.h"

/* ---- bc12.det.port_type: the detected type equals the profile's ---- */

struct port_type_priv {
	enum bn_port_type expect;
	char reported[32];
	bn_time_us t_us;
	bool seen;
};

static void port_type_begin(void *priv, const struct bn_check_ctx *ctx)
{
	((struct port_type_priv *)priv)->expect = ctx->port;
}

static void port_type_event(void *priv, const struct bn_cev *ev)
{
	struct port_type_priv *p = priv;

	if (ev->kind != BN_CEV_TELEMETRY || strcmp(ev->key, "port") || !strcmp(ev->text, "none"))
		return;
	snprintf(p->reported, sizeof(p->reported), "%s", ev->text);
	p->t_us = ev->t_us;
	p->seen = true;
}

static void port_type_end(void *priv, bn_time_us t_end_us, struct bn_result *res)
{
	struct port_type_priv *p = priv;

	snprintf(res->limit, sizeof(res->limit), "== %s", bn_port_name(p->expect));
	if (!p->seen) {
		bn_result_fail(res, "the device never reported a detected port type");
		bn_result_window(res, 0, t_end_us);
		return;
	}
	snprintf(res->measured_str, sizeof(res->measured_str), "%s", p->reported);
	bn_result_window(res, p->t_us, p->t_us);
	if (bn_port_from_name(p->reported) == p->expect)
		res->verdict = BN_VERDICT_PASS;
	else
		bn_result_fail(res, "reported %s on a port a correct device sees as %s", p->reported,
			       bn_port_name(p->expect));
}

static const struct bn_rule rule_port_type = {
	.id = "bc12.det.port_type",
	.task = BN_TASK_DETECT,
	.title = "the detected port type is the one a correct device reaches on this port",
	.clause = "CP 6.6-6.13",
	.needs_events = BN_CEV_BIT(BN_CEV_TELEMETRY),
	.priv_size = sizeof(struct port_type_priv),
	.begin = port_type_begin,
	.event = port_type_event,
	.end = port_type_end,
};

const struct bn_rule *const bn_rules_detection[] = {
	&rule_port_type,
	NULL,
};
