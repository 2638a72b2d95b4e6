/* The charging port's declared rating (side port): at least IDCP min on a
 * DCP, ICDP min on a CDP (bc12.port.rating). A declared figure, judged
 * exactly; what the port delivers at its rating is bc12.port.vchg's. */
#include <math.h>
#include <stdio.h>

#include "checks/port_rules.h"
#include "checks/rules.h"

struct rating_priv {
	const struct bn_check_ctx *ctx;
};

static void rating_begin(void *priv, const struct bn_check_ctx *ctx)
{
	((struct rating_priv *)priv)->ctx = ctx;
}

static void rating_end(void *priv, bn_time_us t_end_us, struct bn_result *res)
{
	const struct bn_check_ctx *ctx = ((struct rating_priv *)priv)->ctx;
	bool cdp = ctx->port == BN_PORT_CDP;
	const char *name = cdp ? "ICDP" : "IDCP";
	const struct bn_limit *l = bn_limits_find(ctx->lim, name);

	(void)t_end_us;
	/* the limit is the port type's: the engine named the rule's own */
	snprintf(res->limit, sizeof(res->limit), "%s", name);
	snprintf(res->limit_source, sizeof(res->limit_source), "%s", l && l->source ? l->source : "");
	if (!ctx->charger_name || !(ctx->charger_rated_a > 0)) {
		bn_result_inconclusive(res, "the port's rating is not declared (%s): give a charger profile "
				       "with \"rated\" (a scenario's charger, or replay --charger)",
				       ctx->charger_name ? "its charger profile has no \"rated\""
							 : "no charger profile is known");
		return;
	}
	bn_result_judge(res, ctx->charger_rated_a, bn_limits_min(ctx->lim, name), bn_limits_max(ctx->lim, name),
			"A");
	if (res->verdict == BN_VERDICT_FAIL)
		bn_result_fail(res, "the port (%s, charger %s) is rated %.3f A: outside %s %.2f-%.2f A",
			       ctx->port_name ? ctx->port_name : bn_port_name(ctx->port), ctx->charger_name,
			       ctx->charger_rated_a, name, res->limit_min, res->limit_max);
}

const struct bn_rule bn_port_rating = {
	.id = "bc12.port.rating",
	.task = BN_TASK_PORT_RATING,
	.side = BN_SIDE_PORT,
	.title = "the port's declared rating lies within IDCP (a DCP) or ICDP (a CDP)",
	.clause = NULL,
	.limit = "IDCP",
	.ports = BN_PORT_BIT(BN_PORT_DCP) | BN_PORT_BIT(BN_PORT_CDP),
	.uses_port = true,
	.judges_late_capture = true,
	.priv_size = sizeof(struct rating_priv),
	.begin = rating_begin,
	.end = rating_end,
};
