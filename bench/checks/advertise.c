/* Task 2: the USB configurations the device advertises (bMaxPower), as
 * the bench read them (bn_check_ctx.config_*: before the run from the
 * simulated device, or when the real one enumerated: read at end()). These
 * rules need neither samples nor events; they apply where a host reads
 * the descriptors: an SDP, a CDP, an ACA-C.
 *
 * What they judge is declared, not measured: bMaxPower is an exact
 * number in the descriptor (in 2 mA units), so its uncertainty is 0. The
 * verdicts still go through bn_result_judge_u with U = 0, so that every
 * result carries its U and says where it came from (the persistence
 * text); a bMaxPower exactly at the limit passes, as the limit allows. */
#include <math.h>
#include <stdio.h>

#include "checks/check.h"
#include "checks/rules.h"

#define ADV_PORTS (BN_PORT_BIT(BN_PORT_SDP) | BN_PORT_BIT(BN_PORT_CDP) | BN_PORT_BIT(BN_PORT_ACA_C))

/* Said in every result of these rules. */
#define ADV_PERSISTENCE "none: bMaxPower as the descriptors declare it, an exact value (U = 0)"

struct adv_priv {
	const struct bn_check_ctx *ctx;
	bool known;
	int n;
	int value[8];
	double max_power_a[8];
	double icfg_max, iunit;
	bn_time_us t0;
};

static void adv_begin(void *priv, const struct bn_check_ctx *ctx)
{
	struct adv_priv *p = priv;

	p->ctx = ctx;
	p->t0 = ctx->t_start_us;
	p->icfg_max = bn_limits_max(ctx->lim, "ICFG_MAX");
	p->iunit = bn_limits_max(ctx->lim, "IUNIT");
}

/* The configurations as the engine knows them now. */
static void adv_take(struct adv_priv *p)
{
	const struct bn_check_ctx *ctx = p->ctx;
	int n = ctx->n_configs;

	if (n < 0)
		n = 0;
	if (n > 8)
		n = 8;
	p->known = ctx->configs_known;
	p->n = n;
	for (int i = 0; i < n; i++) {
		p->value[i] = ctx->config_value[i];
		p->max_power_a[i] = ctx->config_max_power_a[i];
	}
}

/* Index of the configuration with the highest (hi) or lowest bMaxPower. */
static int adv_extreme(const struct adv_priv *p, bool hi)
{
	int k = 0;

	for (int i = 1; i < p->n; i++)
		if (hi ? p->max_power_a[i] > p->max_power_a[k] : p->max_power_a[i] < p->max_power_a[k])
			k = i;
	return k;
}

static bool adv_ready(struct adv_priv *p, struct bn_result *res)
{
	adv_take(p);
	if (!p->known) {
		bn_result_inconclusive(res, "the advertised configurations are not known to this "
					    "source");
		return false;
	}
	if (!p->n) {
		bn_result_inconclusive(res, "the device advertised no configuration");
		return false;
	}
	return true;
}

/* ---- bc12.adv.max_power (CP 6.8) ----
 * Every advertised configuration's bMaxPower <= ICFG_MAX max (the USB 2.0
 * value: the bench does not know the device's speed; a SuperSpeed lab
 * passes a limits file with its own ICFG_MAX). Measured: the highest
 * bMaxPower advertised. */

static void max_power_end(void *priv, bn_time_us t_end, struct bn_result *res)
{
	struct adv_priv *p = priv;
	int k;

	if (!adv_ready(p, res))
		return;
	k = adv_extreme(p, true);
	bn_result_judge_u(res, p->max_power_a[k], 0.0, NAN, p->icfg_max, "A");
	bn_result_window(res, p->t0, p->t0);
	bn_result_figure(res, "configurations", p->n, "");
	if (res->verdict == BN_VERDICT_FAIL)
		bn_result_fail(res, "configuration %d advertises bMaxPower %.0f mA, above ICFG_MAX max "
				    "(%.0f mA)",
			       p->value[k], p->max_power_a[k] * 1000.0, p->icfg_max * 1000.0);
}

static const struct bn_rule rule_max_power = {
	.id = "bc12.adv.max_power",
	.task = BN_TASK_ADVERTISE,
	.title = "every advertised configuration's bMaxPower is within ICFG_MAX",
	.clause = "CP 6.8",
	.limit = "ICFG_MAX",
	.persistence = ADV_PERSISTENCE,
	.ports = ADV_PORTS,
	.priv_size = sizeof(struct adv_priv),
	.begin = adv_begin,
	.end = max_power_end,
};

/* ---- bc12.adv.low_power_config ----
 * A battery-powered device offers a configuration at <= IUNIT max beside
 * its high-power one, so a host with a unit-load budget (a bus-powered
 * hub) can still configure it. Not a compliance-plan test: a device
 * without one gets a warning (verdict fail, warning set: counted, does
 * not fail the run). Measured: the lowest bMaxPower advertised. */

static void low_power_end(void *priv, bn_time_us t_end, struct bn_result *res)
{
	struct adv_priv *p = priv;
	int k;

	if (!adv_ready(p, res))
		return;
	k = adv_extreme(p, false);
	bn_result_judge_u(res, p->max_power_a[k], 0.0, NAN, p->iunit, "A");
	bn_result_window(res, p->t0, p->t0);
	if (res->verdict == BN_VERDICT_FAIL) {
		res->warning = true;
		bn_result_fail(res,
			       "warning: no configuration at or below IUNIT max (%.0f mA); the lowest "
			       "of %d is configuration %d at %.0f mA: a unit-load host cannot "
			       "configure this battery-powered device",
			       p->iunit * 1000.0, p->n, p->value[k], p->max_power_a[k] * 1000.0);
	}
}

static const struct bn_rule rule_low_power_config = {
	.id = "bc12.adv.low_power_config",
	.task = BN_TASK_ADVERTISE,
	.title = "a battery-powered device also offers a configuration within IUNIT (warning)",
	.clause = "advisory (no CP test)",
	.limit = "IUNIT",
	.persistence = ADV_PERSISTENCE,
	.ports = ADV_PORTS,
	.needs_decl = BN_DECL_BATTERY,
	.priv_size = sizeof(struct adv_priv),
	.begin = adv_begin,
	.end = low_power_end,
};

const struct bn_rule *const bn_rules_advertise[] = {
	&rule_max_power,
	&rule_low_power_config,
	NULL,
};
