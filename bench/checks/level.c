/* The level helpers of checks/level.h. */
#include <math.h>
#include <string.h>

#include "checks/level.h"

double bn_level_U(const struct bn_check_ctx *ctx, enum bn_chan ch, double v, long n)
{
	double u = bn_ctx_u_level(ctx, ch, v, n);

	return bn_u_expand(1, &u);
}

double bn_span_U(const struct bn_check_ctx *ctx, enum bn_chan a, enum bn_chan b)
{
	double u[2] = { bn_ctx_u_edge(ctx, a, 0), bn_ctx_u_edge(ctx, b, 0) };

	return bn_u_expand(2, u);
}

/* ---- consecutive blocks ---- */

bn_time_us bn_block_len_us(const struct bn_check_ctx *ctx)
{
	bn_time_us n_us = ctx->rate_hz > 0 ? (bn_time_us)ceil(BN_PERSIST_MIN_SAMPLES * 1e6 / ctx->rate_hz) : 0;

	return n_us > BN_PERSIST_LEVEL_US ? n_us : BN_PERSIST_LEVEL_US;
}

void bn_block_start(struct bn_block *b, bn_time_us t0, bn_time_us len_us)
{
	memset(b, 0, sizeof(*b));
	b->t0 = t0;
	b->len_us = len_us > 0 ? len_us : 1;
	b->ok = true;
}

void bn_block_to(struct bn_block *b, bn_time_us t, bn_block_fn fn, void *user)
{
	if (t < b->t0 + b->len_us)
		return;
	if (b->n && fn)
		fn(user, b);
	b->t0 += (t - b->t0) / b->len_us * b->len_us;
	b->sum[0] = b->sum[1] = (struct bn_rsum){ 0 };
	b->n = 0;
	b->ok = true;
}

/* ---- the extreme of many block means ---- */

/* The coverage factor for the largest of n_blk independent noises: the k
 * with P(all n_blk below k sigma) = P(one below BN_MEAS_K sigma). 2 for one
 * block, about 4.6 for 1e4, 5.3 for 4e5. */
static double k_extreme(long n_blk)
{
	double q = -expm1(log(1.0 - 0.5 * erfc(BN_MEAS_K / sqrt(2.0))) / (double)(n_blk > 1 ? n_blk : 1));
	double lo = BN_MEAS_K, hi = 40.0;

	/* the upper tail 0.5 erfc(k / sqrt 2) falls with k: bisect for q */
	for (int i = 0; i < 60; i++) {
		double mid = 0.5 * (lo + hi);

		if (0.5 * erfc(mid / sqrt(2.0)) > q)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

void bn_judge_extreme(struct bn_result *res, const struct bn_check_ctx *ctx, enum bn_chan ch, double v,
		      double scale, long n, long n_blk, double min, double max, const char *unit)
{
	double u = scale * bn_ctx_u_level(ctx, ch, v / scale, n);
	/* what no average removes: offset, gain (and an undithered step) */
	double u_sys = scale * bn_ctx_u_level(ctx, ch, v / scale, 1L << 40);
	double u_rnd2 = u * u - u_sys * u_sys, k = k_extreme(n_blk), u_fail;

	bn_result_judge_u(res, v, BN_MEAS_K * u, min, max, unit);
	if (res->verdict != BN_VERDICT_FAIL || !strcmp(res->decision, "simple"))
		return;
	u_fail = sqrt(BN_MEAS_K * BN_MEAS_K * u_sys * u_sys + k * k * (u_rnd2 > 0 ? u_rnd2 : 0));
	if (-res->margin > u_fail)
		return;
	bn_result_inconclusive(res, "within measurement uncertainty (U = %.4g %s as the %s of %ld block "
			       "means): measured %.4g %s, outside the limit by %.4g %s", u_fail, unit,
			       isnan(min) ? "highest" : "lowest", n_blk, v, unit, -res->margin, unit);
}

/* ---- VBUS valid, as measured ---- */

void bn_vvalid_init(struct bn_vvalid *vv, const struct bn_check_ctx *ctx, double draw_a)
{
	double on = bn_limits_max(ctx->lim, "VOTG_SESS_VLD"), off = bn_limits_max(ctx->lim, "VBUS_LKG");

	memset(vv, 0, sizeof(*vv));
	vv->draw_a = draw_a;
	vv->on_v = on + bn_level_U(ctx, BN_CH_VBUS, on, 1);
	vv->off_v = off - bn_level_U(ctx, BN_CH_VBUS, off, 1);
	bn_persist_init(&vv->above, BN_PERSIST_LEVEL_US, BN_PERSIST_MIN_SAMPLES, false);
	bn_persist_init(&vv->below, BN_PERSIST_LEVEL_US, BN_PERSIST_MIN_SAMPLES, false);
}

void bn_vvalid_restart(struct bn_vvalid *vv)
{
	vv->valid = false;
	bn_persist_init(&vv->above, vv->above.hold_us, vv->above.min_n, false);
	bn_persist_init(&vv->below, vv->below.hold_us, vv->below.min_n, false);
}

long bn_vvalid_run(struct bn_vvalid *vv, double vbus, double ibus, const bn_time_us *t, long n)
{
	bn_time_us tc = 0;
	long ka = bn_persist_run(&vv->above, vbus > vv->on_v, t, n, &tc);
	bool off = vbus < vv->off_v && !(ibus > vv->draw_a);
	long kb;

	if (ka < n && vv->above.state && !vv->valid) {
		vv->valid = true;
		vv->t_valid = tc;
		vv->n_valid++;
		bn_persist_run(&vv->below, off, t, n, &tc);
		return ka;
	}
	kb = bn_persist_run(&vv->below, off, t, n, &tc);
	if (kb < n && vv->below.state && vv->valid) {
		vv->valid = false;
		return kb;
	}
	return n;
}
