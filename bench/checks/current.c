/* Task 4: the device keeps its draw within the port's range (BC-1.2
 * section 6 of the compliance plan: 6.6 DCP, 6.7 CDP, 6.9-6.12 ACA).
 *
 * Every rule here judges only the samples and the bench's events. "VBUS on"
 * is the stretch between the bench's vbus_on and vbus_off events. Memory is
 * fixed: running extremes, and one sliding average made of TVBUS_AVG / 25
 * bins (at most 25 bin sums, whatever the rate or the run's length).
 *
 * Readings:
 *   idev_chg     the strict reading: every instantaneous IBUS sample while
 *                VBUS is on is <= IDEV_CHG max; the highest TVBUS_AVG
 *                average is reported as a figure.
 *   droop        the TVBUS_AVG sliding average of VBUS (updated every bin),
 *                counted as "held below" while it is under the declared
 *                droop threshold and the device's own TVBUS_AVG average
 *                current is above ISUSP max (a charger that shut down is
 *                not the device's doing). A spell below may last at most
 *                the settle time CUR_SETTLE = 2 x TVBUS_AVG max: one window
 *                for the device to see the sag, one ramp step to react.
 *   vdcp_shtdwn  instantaneous: no sample with IBUS > ISUSP max has VBUS
 *                below VDCP_SHTDWN max.
 *   dcp_dp_hold  instantaneous: from TSVLD_CON_PWD max (1 s) after vbus_on,
 *                every sample with IBUS > ISUSP max has D+ >= VDP_SRC min. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "checks/check.h"
#include "checks/hold.h"
#include "checks/rules.h"

/* Testers sample every 1 ms (TVBUS_AVG, pet-scripts): below that a 250 ms
 * average and a 1 ms excursion cannot be judged as they judge them. */
#define CUR_MIN_RATE_HZ 1000.0
/* Bins of the sliding TVBUS_AVG average. */
#define CUR_AVG_BINS 25
/* One step of a cros-ec style ramp (charge_ramp_sw: +64 mA every 500 ms;
 * bc12-limits.md "Current ramping"). A device-policy figure, not a BC-1.2
 * limit: used only for the figures of bc12.cur.droop, never for a verdict. */
#define CUR_RAMP_STEP_A 0.064

#define CHARGING_PORTS                                                                           \
	(BN_PORT_BIT(BN_PORT_DCP) | BN_PORT_BIT(BN_PORT_CDP) | BN_PORT_BIT(BN_PORT_ACA_A) |      \
	 BN_PORT_BIT(BN_PORT_ACA_B) | BN_PORT_BIT(BN_PORT_ACA_C) | BN_PORT_BIT(BN_PORT_ACA_DOCK))

#define SESSION_EVENTS (BN_CEV_BIT(BN_CEV_VBUS_ON) | BN_CEV_BIT(BN_CEV_VBUS_OFF))

static double tvbus_avg_s(const struct bn_limits *lim)
{
	return bn_limits_max(lim, "TVBUS_AVG");
}


/* ---- a sliding average over a fixed window of bins ---- */

struct slide {
	bn_time_us t0, bin_us;
	long long bin_idx;      /* the bin being filled */
	struct bn_rsum cur[2];
	long cur_n;
	double sum[CUR_AVG_BINS][2];
	long n[CUR_AVG_BINS];
	int filled;             /* complete bins in the ring, <= CUR_AVG_BINS */
	int head;
	double tot[2];
	long tot_n;
	bool started;
};

static void slide_start(struct slide *s, bn_time_us t0, double window_s)
{
	memset(s, 0, sizeof(*s));
	s->t0 = t0;
	s->bin_us = bn_time_from_s(window_s / CUR_AVG_BINS);
	if (s->bin_us < 1)
		s->bin_us = 1;
	s->started = true;
}

/* Push the bin being filled into the ring. */
static void slide_close_bin(struct slide *s)
{
	int h = s->head;
	double c0 = bn_rsum_total(&s->cur[0]), c1 = bn_rsum_total(&s->cur[1]);

	if (s->filled == CUR_AVG_BINS) {
		s->tot[0] -= s->sum[h][0];
		s->tot[1] -= s->sum[h][1];
		s->tot_n -= s->n[h];
	} else {
		s->filled++;
	}
	s->sum[h][0] = c0;
	s->sum[h][1] = c1;
	s->n[h] = s->cur_n;
	s->tot[0] += c0;
	s->tot[1] += c1;
	s->tot_n += s->cur_n;
	s->head = (h + 1) % CUR_AVG_BINS;
	s->cur[0] = s->cur[1] = (struct bn_rsum){ 0 };
	s->cur_n = 0;
	s->bin_idx++;
}

/* Calls back once per window that completed before a sample at t (end
 * time, the two averages). */
typedef void (*slide_fn)(void *user, bn_time_us t_end, double a0, double a1);

/* Close the bins that end at or before t. */
static void slide_to(struct slide *s, bn_time_us t, slide_fn fn, void *user)
{
	long long idx = t >= s->t0 ? (t - s->t0) / s->bin_us : 0;

	while (s->bin_idx < idx) {
		slide_close_bin(s);
		if (s->filled == CUR_AVG_BINS && s->tot_n > 0 && fn)
			fn(user, s->t0 + (bn_time_us)s->bin_idx * s->bin_us, s->tot[0] / s->tot_n,
			   s->tot[1] / s->tot_n);
	}
}

/* Add a sample of two quantities. */
static void slide_add(struct slide *s, bn_time_us t, double x0, double x1, slide_fn fn, void *user)
{
	slide_to(s, t, fn, user);
	bn_rsum_add(&s->cur[0], x0, 1);
	bn_rsum_add(&s->cur[1], x1, 1);
	s->cur_n++;
}


/* n samples of the same two quantities: one step per bin. */
static void slide_hold(struct slide *s, const bn_time_us *t, long n, double x0, double x1,
		       slide_fn fn, void *user)
{
	for (long k = 0, j; k < n; k = j) {
		slide_to(s, t[k], fn, user);
		j = bn_first_at(t, k + 1, n, s->t0 + (bn_time_us)(s->bin_idx + 1) * s->bin_us);
		bn_rsum_add(&s->cur[0], x0, j - k);
		bn_rsum_add(&s->cur[1], x1, j - k);
		s->cur_n += j - k;
	}
}

/* ---- bc12.cur.idev_chg ---- */

struct idev_priv {
	double imax_a;
	bn_time_us lim_us;
	bool on;
	bool any;
	double max_i;
	bn_time_us t_max, t_first, t_last;
	struct slide avg;
	double max_avg;
};

static void idev_begin(void *priv, const struct bn_check_ctx *ctx)
{
	struct idev_priv *p = priv;

	p->imax_a = bn_limits_max(ctx->lim, "IDEV_CHG");
	p->lim_us = bn_time_from_s(tvbus_avg_s(ctx->lim));
	p->max_i = -INFINITY;
	p->max_avg = -INFINITY;
}

static void idev_avg(void *user, bn_time_us t_end, double i, double unused)
{
	struct idev_priv *p = user;

	(void)t_end;
	(void)unused;
	if (i > p->max_avg)
		p->max_avg = i;
}

static void idev_event(void *priv, const struct bn_cev *ev)
{
	struct idev_priv *p = priv;

	if (ev->kind == BN_CEV_VBUS_ON && !p->on) {
		p->on = true;
		slide_start(&p->avg, ev->t_us, bn_time_to_s(p->lim_us));
	} else if (ev->kind == BN_CEV_VBUS_OFF) {
		p->on = false;
	}
}

static void idev_sample(void *priv, bn_time_us t, const struct bn_sample *s)
{
	struct idev_priv *p = priv;
	double i = s->v[BN_CH_IBUS];

	if (!p->on)
		return;
	if (!p->any)
		p->t_first = t;
	p->any = true;
	p->t_last = t;
	if (i > p->max_i) {
		p->max_i = i;
		p->t_max = t;
	}
	slide_add(&p->avg, t, i, 0.0, idev_avg, p);
}

static void idev_hold(void *priv, const bn_time_us *t, long n, const struct bn_sample *s)
{
	struct idev_priv *p = priv;
	double i = s->v[BN_CH_IBUS];

	if (!p->on)
		return;
	if (!p->any)
		p->t_first = t[0];
	p->any = true;
	p->t_last = t[n - 1];
	if (i > p->max_i) {
		p->max_i = i;
		p->t_max = t[0];
	}
	slide_hold(&p->avg, t, n, i, 0.0, idev_avg, p);
}

static void idev_end(void *priv, bn_time_us t_end_us, struct bn_result *res)
{
	struct idev_priv *p = priv;

	if (!p->any) {
		bn_result_inconclusive(res, "VBUS was never on: no draw to judge");
		bn_result_window(res, 0, t_end_us);
		return;
	}
	bn_result_judge(res, p->max_i, NAN, p->imax_a, "A");
	bn_result_window(res, p->t_first, p->t_last);
	if (!isinf(p->max_avg))
		bn_result_figure(res, "max_avg_tvbus_avg", p->max_avg, "A");
	if (res->verdict == BN_VERDICT_FAIL) {
		bn_result_window(res, p->t_max, p->t_max);
		bn_result_fail(res,
			       "drew %.3f A at %.3f s (instantaneous sample), above IDEV_CHG max %.3f A",
			       p->max_i, bn_time_to_s(p->t_max), p->imax_a);
	}
}

static const struct bn_rule rule_idev_chg = {
	.id = "bc12.cur.idev_chg",
	.task = BN_TASK_CURRENT,
	.title = "on a DCP, CDP or ACA the draw never exceeds IDEV_CHG (every sample)",
	.clause = "CP 6.6, 6.7",
	.limit = "IDEV_CHG",
	.needs_channels = 1u << BN_CH_IBUS,
	.needs_events = SESSION_EVENTS,
	.min_rate_hz = CUR_MIN_RATE_HZ,
	.ports = CHARGING_PORTS,
	.priv_size = sizeof(struct idev_priv),
	.begin = idev_begin,
	.sample = idev_sample,
	.hold = idev_hold,
	.event = idev_event,
	.end = idev_end,
};

/* ---- bc12.cur.droop ---- */

struct droop_priv {
	double thr_v, isusp_a, window_s;
	bn_time_us settle_us, block_us;
	bool on;
	struct slide avg;            /* VBUS, IBUS over TVBUS_AVG, sliding */
	bool any_eval;
	bn_time_us t_first, t_last;
	bool below;
	bn_time_us below_since, below_last;
	bn_time_us worst_us, worst_t0, worst_t1;
	double worst_min_v;
	double spell_min_v;
	/* figures: consecutive TVBUS_AVG blocks of IBUS */
	bn_time_us t_on, blk_t0;
	struct bn_rsum blk_sum;
	long blk_n;
	bool have_blk;
	double last_blk, anchor, peak;
	bn_time_us t_change;
	int backoffs;
	bool any_blk;
};

static void droop_begin(void *priv, const struct bn_check_ctx *ctx)
{
	struct droop_priv *p = priv;

	p->thr_v = ctx->droop_threshold_v;
	p->isusp_a = bn_limits_max(ctx->lim, "ISUSP");
	p->window_s = tvbus_avg_s(ctx->lim);
	p->block_us = bn_time_from_s(p->window_s);
	/* CUR_SETTLE: one TVBUS_AVG window to see the sag, one more for the
	 * device to step back (a ramp reacts on its next averaged reading). */
	p->settle_us = 2 * p->block_us;
	p->worst_us = -1;
}

static void droop_close_spell(struct droop_priv *p, bn_time_us t_end)
{
	bn_time_us d = t_end - p->below_since;

	if (d > p->worst_us) {
		p->worst_us = d;
		p->worst_t0 = p->below_since;
		p->worst_t1 = t_end;
		p->worst_min_v = p->spell_min_v;
	}
	p->below = false;
}

static void droop_avg(void *user, bn_time_us t_end, double v, double i)
{
	struct droop_priv *p = user;
	bool low = v < p->thr_v && i > p->isusp_a;

	if (!p->any_eval)
		p->t_first = t_end;
	p->any_eval = true;
	p->t_last = t_end;
	if (p->worst_us < 0)
		p->worst_us = 0;
	if (low) {
		if (!p->below) {
			p->below = true;
			p->below_since = t_end;
			p->spell_min_v = v;
		}
		p->below_last = t_end;
		if (v < p->spell_min_v)
			p->spell_min_v = v;
	} else if (p->below) {
		droop_close_spell(p, t_end);
	}
}

static void droop_block_done(struct droop_priv *p, bn_time_us t_end)
{
	double a = bn_rsum_total(&p->blk_sum) / (double)p->blk_n;

	if (!p->any_blk) {
		p->anchor = p->peak = a;
		p->t_change = t_end;
		p->any_blk = true;
	} else {
		if (fabs(a - p->anchor) > CUR_RAMP_STEP_A) {
			p->anchor = a;
			p->t_change = t_end;
		}
		if (a > p->peak)
			p->peak = a;
		else if (p->peak - a > CUR_RAMP_STEP_A / 2) {
			p->backoffs++;
			p->peak = a;
		}
	}
	p->last_blk = a;
	p->have_blk = true;
}

static void droop_event(void *priv, const struct bn_cev *ev)
{
	struct droop_priv *p = priv;

	if (ev->kind == BN_CEV_VBUS_ON && !p->on) {
		p->on = true;
		p->t_on = p->blk_t0 = ev->t_us;
		p->blk_sum = (struct bn_rsum){ 0 };
		p->blk_n = 0;
		p->any_blk = p->have_blk = false;
		p->backoffs = 0;
		slide_start(&p->avg, ev->t_us, p->window_s);
	} else if (ev->kind == BN_CEV_VBUS_OFF && p->on) {
		p->on = false;
		if (p->below)
			droop_close_spell(p, p->below_last + p->avg.bin_us);
	}
}

/* Close the blocks that end at or before t. */
static void droop_blocks_to(struct droop_priv *p, bn_time_us t)
{
	while (t >= p->blk_t0 + p->block_us) {
		if (p->blk_n > 0)
			droop_block_done(p, p->blk_t0 + p->block_us);
		p->blk_t0 += p->block_us;
		p->blk_sum = (struct bn_rsum){ 0 };
		p->blk_n = 0;
	}
}

static void droop_sample(void *priv, bn_time_us t, const struct bn_sample *s)
{
	struct droop_priv *p = priv;

	if (!p->on)
		return;
	slide_add(&p->avg, t, s->v[BN_CH_VBUS], s->v[BN_CH_IBUS], droop_avg, p);
	droop_blocks_to(p, t);
	bn_rsum_add(&p->blk_sum, s->v[BN_CH_IBUS], 1);
	p->blk_n++;
}

static void droop_hold(void *priv, const bn_time_us *t, long n, const struct bn_sample *s)
{
	struct droop_priv *p = priv;
	double i = s->v[BN_CH_IBUS];

	if (!p->on)
		return;
	/* The sliding average (droop_avg) and the blocks (droop_block_done)
	 * share no state: each can take the whole run in turn. */
	slide_hold(&p->avg, t, n, s->v[BN_CH_VBUS], i, droop_avg, p);
	for (long k = 0, j; k < n; k = j) {
		droop_blocks_to(p, t[k]);
		j = bn_first_at(t, k + 1, n, p->blk_t0 + p->block_us);
		bn_rsum_add(&p->blk_sum, i, j - k);
		p->blk_n += j - k;
	}
}

static void droop_end(void *priv, bn_time_us t_end_us, struct bn_result *res)
{
	struct droop_priv *p = priv;

	if (p->below)
		droop_close_spell(p, p->below_last + p->avg.bin_us);
	if (!p->any_eval) {
		bn_result_inconclusive(res, "VBUS was never on for a full TVBUS_AVG window (%.0f ms)",
				       p->window_s * 1e3);
		bn_result_window(res, 0, t_end_us);
		return;
	}
	snprintf(res->limit, sizeof(res->limit), "TVBUS_AVG avg >= %.3g V, settle <= %.3g s",
		 p->thr_v, bn_time_to_s(p->settle_us));
	bn_result_judge(res, bn_time_to_s(p->worst_us), NAN, bn_time_to_s(p->settle_us), "s");
	if (p->worst_us > 0)
		bn_result_window(res, p->worst_t0, p->worst_t1);
	else
		bn_result_window(res, p->t_first, p->t_last);
	if (p->have_blk) {
		bn_result_figure(res, "time_to_settle", bn_time_to_s(p->t_change - p->t_on), "s");
		bn_result_figure(res, "settled_current", p->last_blk, "A");
		bn_result_figure(res, "backoffs", p->backoffs, "");
	}
	if (res->verdict == BN_VERDICT_FAIL)
		bn_result_fail(res,
			       "the %.0f ms average of VBUS stayed below the declared %.3g V for %.3f s "
			       "(from %.3f s, down to %.3f V) while drawing; settle time is 2 x TVBUS_AVG = %.3f s",
			       p->window_s * 1e3, p->thr_v, bn_time_to_s(p->worst_us),
			       bn_time_to_s(p->worst_t0), p->worst_min_v, bn_time_to_s(p->settle_us));
}

static const struct bn_rule rule_droop = {
	.id = "bc12.cur.droop",
	.task = BN_TASK_CURRENT,
	.title = "the device does not hold VBUS below its declared droop threshold (TVBUS_AVG "
		 "average) longer than 2 x TVBUS_AVG",
	.clause = "CP 6.6, 6.7",
	.limit = "TVBUS_AVG",
	.needs_channels = (1u << BN_CH_VBUS) | (1u << BN_CH_IBUS),
	.needs_events = SESSION_EVENTS,
	.min_rate_hz = CUR_MIN_RATE_HZ,
	.ports = CHARGING_PORTS,
	.needs_decl = BN_DECL_DROOP,
	.priv_size = sizeof(struct droop_priv),
	.begin = droop_begin,
	.sample = droop_sample,
	.hold = droop_hold,
	.event = droop_event,
	.end = droop_end,
};

/* ---- bc12.cur.vdcp_shtdwn ---- */

struct shtdwn_priv {
	double vmin_lim, isusp_a;
	bool on, any;
	double min_v, i_at_min;
	bn_time_us t_min, t_first, t_last;
};

static void shtdwn_begin(void *priv, const struct bn_check_ctx *ctx)
{
	struct shtdwn_priv *p = priv;

	p->vmin_lim = bn_limits_max(ctx->lim, "VDCP_SHTDWN");
	p->isusp_a = bn_limits_max(ctx->lim, "ISUSP");
	p->min_v = INFINITY;
}

static void session_event(bool *on, const struct bn_cev *ev)
{
	if (ev->kind == BN_CEV_VBUS_ON)
		*on = true;
	else if (ev->kind == BN_CEV_VBUS_OFF)
		*on = false;
}

static void shtdwn_event(void *priv, const struct bn_cev *ev)
{
	session_event(&((struct shtdwn_priv *)priv)->on, ev);
}

static void shtdwn_sample(void *priv, bn_time_us t, const struct bn_sample *s)
{
	struct shtdwn_priv *p = priv;

	if (!p->on || !(s->v[BN_CH_IBUS] > p->isusp_a))
		return;
	if (!p->any)
		p->t_first = t;
	p->any = true;
	p->t_last = t;
	if (s->v[BN_CH_VBUS] < p->min_v) {
		p->min_v = s->v[BN_CH_VBUS];
		p->i_at_min = s->v[BN_CH_IBUS];
		p->t_min = t;
	}
}

/* Equal samples after the first change only t_last. */
static void shtdwn_hold(void *priv, const bn_time_us *t, long n, const struct bn_sample *s)
{
	struct shtdwn_priv *p = priv;

	if (!p->on || !(s->v[BN_CH_IBUS] > p->isusp_a))
		return;
	shtdwn_sample(p, t[0], s);
	p->t_last = t[n - 1];
}

static void shtdwn_end(void *priv, bn_time_us t_end_us, struct bn_result *res)
{
	struct shtdwn_priv *p = priv;

	if (!p->any) {
		bn_result_inconclusive(res, "the device never drew more than ISUSP max with VBUS on");
		bn_result_window(res, 0, t_end_us);
		return;
	}
	bn_result_judge(res, p->min_v, p->vmin_lim, NAN, "V");
	bn_result_window(res, p->t_first, p->t_last);
	if (res->verdict == BN_VERDICT_FAIL) {
		bn_result_window(res, p->t_min, p->t_min);
		bn_result_fail(res, "VBUS %.3f V at %.3f s while the device drew %.1f mA", p->min_v,
			       bn_time_to_s(p->t_min), p->i_at_min * 1e3);
	}
}

static const struct bn_rule rule_vdcp_shtdwn = {
	.id = "bc12.cur.vdcp_shtdwn",
	.task = BN_TASK_CURRENT,
	.title = "while drawing more than ISUSP the device never pulls VBUS below VDCP_SHTDWN",
	.clause = "CP 6.6, 6.7",
	.limit = "VDCP_SHTDWN",
	.needs_channels = (1u << BN_CH_VBUS) | (1u << BN_CH_IBUS),
	.needs_events = SESSION_EVENTS,
	.min_rate_hz = CUR_MIN_RATE_HZ,
	.ports = CHARGING_PORTS,
	.priv_size = sizeof(struct shtdwn_priv),
	.begin = shtdwn_begin,
	.sample = shtdwn_sample,
	.hold = shtdwn_hold,
	.event = shtdwn_event,
	.end = shtdwn_end,
};

/* ---- bc12.cur.dcp_dp_hold ---- */

struct dphold_priv {
	double vdp_min, isusp_a;
	bn_time_us grace_us, t_on;
	bool on, any;
	double min_dp, i_at_min;
	bn_time_us t_min, t_first, t_last;
};

static void dphold_begin(void *priv, const struct bn_check_ctx *ctx)
{
	struct dphold_priv *p = priv;

	p->vdp_min = bn_limits_min(ctx->lim, "VDP_SRC");
	p->isusp_a = bn_limits_max(ctx->lim, "ISUSP");
	/* "from 1 s after VBUS on" (CP 6.6): the second a device has to
	 * finish detection, the same TSVLD_CON_PWD. */
	p->grace_us = bn_time_from_s(bn_limits_max(ctx->lim, "TSVLD_CON_PWD"));
	p->min_dp = INFINITY;
}

static void dphold_event(void *priv, const struct bn_cev *ev)
{
	struct dphold_priv *p = priv;

	if (ev->kind == BN_CEV_VBUS_ON && !p->on)
		p->t_on = ev->t_us;
	session_event(&p->on, ev);
}

static void dphold_sample(void *priv, bn_time_us t, const struct bn_sample *s)
{
	struct dphold_priv *p = priv;

	if (!p->on || t < p->t_on + p->grace_us || !(s->v[BN_CH_IBUS] > p->isusp_a))
		return;
	if (!p->any)
		p->t_first = t;
	p->any = true;
	p->t_last = t;
	if (s->v[BN_CH_DP] < p->min_dp) {
		p->min_dp = s->v[BN_CH_DP];
		p->i_at_min = s->v[BN_CH_IBUS];
		p->t_min = t;
	}
}

static void dphold_hold(void *priv, const bn_time_us *t, long n, const struct bn_sample *s)
{
	struct dphold_priv *p = priv;
	long k;

	if (!p->on || !(s->v[BN_CH_IBUS] > p->isusp_a))
		return;
	/* The samples of the grace second count for nothing; of the rest,
	 * equal samples after the first change only t_last. */
	k = bn_first_at(t, 0, n, p->t_on + p->grace_us);
	if (k == n)
		return;
	dphold_sample(p, t[k], s);
	p->t_last = t[n - 1];
}

static void dphold_end(void *priv, bn_time_us t_end_us, struct bn_result *res)
{
	struct dphold_priv *p = priv;

	if (!p->any) {
		bn_result_inconclusive(res, "the device never drew more than ISUSP max from %.1f s "
					    "after VBUS on",
				       bn_time_to_s(p->grace_us));
		bn_result_window(res, 0, t_end_us);
		return;
	}
	bn_result_judge(res, p->min_dp, p->vdp_min, NAN, "V");
	bn_result_window(res, p->t_first, p->t_last);
	if (res->verdict == BN_VERDICT_FAIL) {
		bn_result_window(res, p->t_min, p->t_min);
		bn_result_fail(res, "D+ at %.3f V at %.3f s while drawing %.1f mA on a DCP", p->min_dp,
			       bn_time_to_s(p->t_min), p->i_at_min * 1e3);
	}
}

static const struct bn_rule rule_dcp_dp_hold = {
	.id = "bc12.cur.dcp_dp_hold",
	.task = BN_TASK_CURRENT,
	.title = "on a DCP, while drawing more than ISUSP (from 1 s after VBUS on), D+ stays at "
		 "or above VDP_SRC min",
	.clause = "CP 6.6 [PD17]",
	.limit = "VDP_SRC",
	.needs_channels = (1u << BN_CH_IBUS) | (1u << BN_CH_DP),
	.needs_events = SESSION_EVENTS,
	.min_rate_hz = CUR_MIN_RATE_HZ,
	.ports = BN_PORT_BIT(BN_PORT_DCP),
	.priv_size = sizeof(struct dphold_priv),
	.begin = dphold_begin,
	.sample = dphold_sample,
	.hold = dphold_hold,
	.event = dphold_event,
	.end = dphold_end,
};

const struct bn_rule *const bn_rules_current[] = {
	&rule_idev_chg,
	&rule_droop,
	&rule_vdcp_shtdwn,
	&rule_dcp_dp_hold,
	NULL,
};
