/* Task 4: the device keeps its draw within the port's range (BC-1.2
 * section 6 of the compliance plan: 6.6 DCP, 6.7 CDP, 6.9-6.12 ACA).
 *
 * Every rule here judges only the samples and the bench's events, and every
 * verdict on a level weighs it against its expanded uncertainty U (the
 * decision rule of checks/check.h). The session is the stretch between the
 * bench's vbus_on and vbus_off events; inside it, "VBUS valid" is measured:
 * VBUS above VOTG_SESS_VLD max (where every device sees a session) by more
 * than one sample's U for the level persistence (1 ms, 3 samples), until it
 * is below VBUS_LKG max (VBUS counts as off) by more than U as long with
 * nothing drawn (a port that still delivers current has folded back, not
 * shut down). Graces start when VBUS is measured valid, and start again
 * when it comes back after a charger shut down. Memory is fixed: running extremes, a block
 * being filled, and one sliding average of TVBUS_AVG / 25 bins.
 *
 * An instant bound is judged on blocks: consecutive blocks of the level
 * persistence (1 ms and at least 3 samples: 3 ms at 1 kHz) aligned to VBUS
 * on. A block's mean is the level of the excursion (its U shrinks with the
 * block's samples; offset and gain do not): an excursion of two blocks
 * always counts, one shorter than a block never. The extreme of many
 * blocks passes with one block's U and fails only beyond the U of the
 * largest of their noises (bn_judge_extreme). "Drawing more than ISUSP"
 * is decided with its uncertainty: every IBUS sample of the block above
 * ISUSP max by more than one sample's U (2 mA rms of noise on a true 0 A
 * passes that in 7e-4 of the samples: a block of 3 once in 3e9).
 *
 * Readings:
 *   idev_chg     the highest block mean of IBUS while VBUS is on is at most
 *                IDEV_CHG max; the highest TVBUS_AVG average is a figure.
 *   droop        the TVBUS_AVG sliding average of VBUS (updated every bin),
 *                "held below" while it is under the declared droop threshold
 *                and the TVBUS_AVG average current is above ISUSP max. A
 *                spell below may last at most CUR_SETTLE = 2 x TVBUS_AVG
 *                max: one window for the device to see the sag, one ramp
 *                step to react. The average is judged with its U: a spell is
 *                measured three times (clearly below, below, possibly below)
 *                and the spread is the duration's U.
 *   vdcp_shtdwn  the lowest block mean of VBUS among the blocks drawing more
 *                than ISUSP is at least VDCP_SHTDWN max.
 *   dcp_dp_hold  from TSVLD_CON_PWD max (1 s) after VBUS valid, the lowest
 *                block mean of D+ (in the device's ground) among the blocks
 *                drawing more than ISUSP is at least VDP_SRC min.
 *
 * Blame: no misbehaviour of the port excuses these rules. A weak charger
 * that sags or folds back is what droop and vdcp_shtdwn exist for; a charger
 * that shuts down takes VBUS and the draw away together (no block draws),
 * and the graces start again when VBUS returns
 * (docs/rules-current-dbp.md). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "checks/check.h"
#include "checks/hold.h"
#include "checks/level.h"
#include "checks/rules.h"

/* Testers are described as sampling every 1 ms (TVBUS_AVG; unverified):
 * below that a 250 ms average and a 1 ms excursion cannot be judged as
 * they judge them. */
#define CUR_MIN_RATE_HZ 1000.0
/* Bins of the sliding TVBUS_AVG average. */
#define CUR_AVG_BINS 25
/* One step of a cros-ec style ramp (charge_ramp_sw: +64 mA every 500 ms;
 * docs/bc12-limits.md). A device-policy figure, not a BC-1.2
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
 * time, the two averages, the samples in the window). */
typedef void (*slide_fn)(void *user, bn_time_us t_end, double a0, double a1, long n);

/* Close the bins that end at or before t. */
static void slide_to(struct slide *s, bn_time_us t, slide_fn fn, void *user)
{
	long long idx = t >= s->t0 ? (t - s->t0) / s->bin_us : 0;

	while (s->bin_idx < idx) {
		slide_close_bin(s);
		if (s->filled == CUR_AVG_BINS && s->tot_n > 0 && fn)
			fn(user, s->t0 + (bn_time_us)s->bin_idx * s->bin_us, s->tot[0] / s->tot_n,
			   s->tot[1] / s->tot_n, s->tot_n);
	}
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
	const struct bn_check_ctx *ctx;
	double imax_a;
	bn_time_us lim_us;
	bool on;
	bool any;
	struct bn_block b;
	long n_blk;
	double max_i;
	long max_n;
	bn_time_us t_max, t_first, t_last;
	struct slide avg;
	double max_avg;
};

static void idev_begin(void *priv, const struct bn_check_ctx *ctx)
{
	struct idev_priv *p = priv;

	p->ctx = ctx;
	p->imax_a = bn_limits_max(ctx->lim, "IDEV_CHG");
	p->lim_us = bn_time_from_s(tvbus_avg_s(ctx->lim));
	p->max_i = -INFINITY;
	p->max_avg = -INFINITY;
}

static void idev_avg(void *user, bn_time_us t_end, double i, double unused, long n)
{
	struct idev_priv *p = user;

	(void)t_end;
	(void)unused;
	(void)n;
	if (i > p->max_avg)
		p->max_avg = i;
}

static void idev_blk(void *user, const struct bn_block *b)
{
	struct idev_priv *p = user;
	double i = bn_block_mean(b, 0);

	if (!bn_block_full(b))
		return;
	p->n_blk++;
	if (i > p->max_i) {
		p->max_i = i;
		p->max_n = b->n;
		p->t_max = b->t0;
	}
}

static void idev_event(void *priv, const struct bn_cev *ev)
{
	struct idev_priv *p = priv;

	if (ev->kind == BN_CEV_VBUS_ON && !p->on) {
		p->on = true;
		slide_start(&p->avg, ev->t_us, bn_time_to_s(p->lim_us));
		bn_block_start(&p->b, ev->t_us, bn_block_len_us(p->ctx));
	} else if (ev->kind == BN_CEV_VBUS_OFF && p->on) {
		/* the block cut short by the end of the session never held long enough */
		p->on = false;
	}
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
	bn_block_run(&p->b, t, n, i, 0.0, true, idev_blk, p);
	slide_hold(&p->avg, t, n, i, 0.0, idev_avg, p);
}

static void idev_sample(void *priv, bn_time_us t, const struct bn_sample *s)
{
	idev_hold(priv, &t, 1, s);
}

static void idev_end(void *priv, bn_time_us t_end_us, struct bn_result *res)
{
	struct idev_priv *p = priv;

	if (!p->any) {
		bn_result_inconclusive(res, "VBUS was never on: no draw to judge");
		bn_result_window(res, 0, t_end_us);
		return;
	}
	if (!p->n_blk) {
		bn_result_inconclusive(res, "VBUS was never on for a full %.1f ms block",
				       bn_time_to_s(p->b.len_us) * 1e3);
		bn_result_window(res, p->t_first, p->t_last);
		return;
	}
	bn_judge_extreme(res, p->ctx, BN_CH_IBUS, p->max_i, 1.0, p->max_n, p->n_blk, NAN, p->imax_a, "A");
	bn_result_window(res, p->t_first, p->t_last);
	if (!isinf(p->max_avg))
		bn_result_figure(res, "max_avg_tvbus_avg", p->max_avg, "A");
	if (res->verdict == BN_VERDICT_FAIL) {
		bn_result_window(res, p->t_max, p->t_max + p->b.len_us);
		bn_result_fail(res, "drew %.3f A (mean of %.1f ms, %ld samples) at %.3f s, above IDEV_CHG "
			       "max %.3f A by more than U = %.1f mA",
			       p->max_i, bn_time_to_s(p->b.len_us) * 1e3, p->max_n, bn_time_to_s(p->t_max),
			       p->imax_a, res->u * 1e3);
	}
}

static const struct bn_rule rule_idev_chg = {
	.id = "bc12.cur.idev_chg",
	.judges_late_capture = true,
	.task = BN_TASK_CURRENT,
	.title = "on a DCP, CDP or ACA the draw never exceeds IDEV_CHG (1 ms blocks)",
	.clause = "CP 6.6, 6.7",
	.limit = "IDEV_CHG",
	.persistence = "IBUS as the mean of 1 ms blocks (>= 3 samples) from VBUS on: 2 ms over counts, "
		       "< 1 ms never; VBUS on to off",
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

/* A spell of TVBUS_AVG averages below the threshold while drawing. */
struct spell {
	bool below;
	bn_time_us since, last;
	double min_v;
	bn_time_us worst_us, worst_t0, worst_t1;
	double worst_min_v;
};

static void spell_close(struct spell *s, bn_time_us t_end)
{
	bn_time_us d = t_end - s->since;

	if (d > s->worst_us) {
		s->worst_us = d;
		s->worst_t0 = s->since;
		s->worst_t1 = t_end;
		s->worst_min_v = s->min_v;
	}
	s->below = false;
}

static void spell_feed(struct spell *s, bool low, bn_time_us t_end, double v)
{
	if (low) {
		if (!s->below) {
			s->below = true;
			s->since = t_end;
			s->min_v = v;
		}
		s->last = t_end;
		if (v < s->min_v)
			s->min_v = v;
	} else if (s->below) {
		spell_close(s, t_end);
	}
}

/* The session ended (VBUS off): a spell ends one bin after its last window. */
static void spell_end(struct spell *s, bn_time_us bin_us)
{
	if (s->below)
		spell_close(s, s->last + bin_us);
}

/* The spells: clearly below (the average and its U under the threshold,
 * clearly drawing), below (the plain comparison) and possibly below. */
enum { SP_LO, SP_MID, SP_HI, SP_N };

struct droop_priv {
	const struct bn_check_ctx *ctx;
	double thr_v, isusp_a, window_s;
	bn_time_us settle_us, block_us;
	bool session, on;            /* the bench's session; VBUS measured valid in it */
	struct bn_vvalid vv;
	struct slide avg;            /* VBUS, IBUS over TVBUS_AVG, sliding */
	bool any_eval;
	bn_time_us t_first, t_last;
	struct spell sp[SP_N];
	double min_avg_v;            /* lowest average while drawing */
	/* figures: consecutive TVBUS_AVG blocks of IBUS from the bench's VBUS on */
	bn_time_us t_on;
	struct bn_block fig;
	bool have_blk;
	double last_blk, anchor, peak;
	bn_time_us t_change;
	int backoffs;
	bool any_blk;
};

static void droop_begin(void *priv, const struct bn_check_ctx *ctx)
{
	struct droop_priv *p = priv;

	p->ctx = ctx;
	p->thr_v = ctx->droop_threshold_v;
	p->isusp_a = bn_limits_max(ctx->lim, "ISUSP");
	p->window_s = tvbus_avg_s(ctx->lim);
	p->block_us = bn_time_from_s(p->window_s);
	/* CUR_SETTLE: one TVBUS_AVG window to see the sag, one more for the
	 * device to step back (a ramp reacts on its next averaged reading). */
	p->settle_us = 2 * p->block_us;
	for (int k = 0; k < SP_N; k++)
		p->sp[k].worst_us = -1;
	p->min_avg_v = INFINITY;
	bn_vvalid_init(&p->vv, ctx, p->isusp_a + bn_level_U(ctx, BN_CH_IBUS, p->isusp_a, 1));
}

static void droop_avg(void *user, bn_time_us t_end, double v, double i, long n)
{
	struct droop_priv *p = user;
	/* The average's U: noise shrinks over the window's samples, the
	 * offset and gain of the converter do not. */
	double uv = bn_level_U(p->ctx, BN_CH_VBUS, v, n), ui = bn_level_U(p->ctx, BN_CH_IBUS, i, n);

	if (!p->any_eval)
		p->t_first = t_end;
	p->any_eval = true;
	p->t_last = t_end;
	for (int k = 0; k < SP_N; k++)
		if (p->sp[k].worst_us < 0)
			p->sp[k].worst_us = 0;
	spell_feed(&p->sp[SP_LO], v + uv < p->thr_v && i - ui > p->isusp_a, t_end, v);
	spell_feed(&p->sp[SP_MID], v < p->thr_v && i > p->isusp_a, t_end, v);
	spell_feed(&p->sp[SP_HI], v - uv < p->thr_v && i + ui > p->isusp_a, t_end, v);
	if (i > p->isusp_a && v < p->min_avg_v)
		p->min_avg_v = v;
}

static void droop_block_done(void *user, const struct bn_block *b)
{
	struct droop_priv *p = user;
	bn_time_us t_end = b->t0 + b->len_us;
	double a = bn_rsum_total(&b->sum[0]) / (double)b->n;

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

/* VBUS is no longer valid or the session ended: the spells end, the
 * average starts again when VBUS is back. */
static void droop_stop(struct droop_priv *p)
{
	if (!p->on)
		return;
	p->on = false;
	for (int k = 0; k < SP_N; k++)
		spell_end(&p->sp[k], p->avg.bin_us);
}

static void droop_event(void *priv, const struct bn_cev *ev)
{
	struct droop_priv *p = priv;

	if (ev->kind == BN_CEV_VBUS_ON && !p->session) {
		p->session = true;
		bn_vvalid_restart(&p->vv);
		p->t_on = ev->t_us;
		bn_block_start(&p->fig, ev->t_us, p->block_us);
		p->any_blk = p->have_blk = false;
		p->backoffs = 0;
	} else if (ev->kind == BN_CEV_VBUS_OFF && p->session) {
		p->session = false;
		droop_stop(p);
	}
}

/* n equal samples with VBUS validity constant over them. */
static void droop_run(struct droop_priv *p, const bn_time_us *t, long n, const struct bn_sample *s)
{
	if (!p->on)
		return;
	slide_hold(&p->avg, t, n, s->v[BN_CH_VBUS], s->v[BN_CH_IBUS], droop_avg, p);
}

static void droop_hold(void *priv, const bn_time_us *t, long n, const struct bn_sample *s)
{
	struct droop_priv *p = priv;
	double i = s->v[BN_CH_IBUS];
	bool was;
	long k;

	if (!p->session)
		return;
	/* the figures: every sample of the session */
	bn_block_run(&p->fig, t, n, i, 0.0, true, droop_block_done, p);
	/* the verdict: from VBUS measured valid; the average starts at the
	 * sample that confirms it */
	was = p->vv.valid;
	k = bn_vvalid_run(&p->vv, s->v[BN_CH_VBUS], i, t, n);
	droop_run(p, t, k, s);
	if (k == n)
		return;
	if (!was && p->vv.valid) {
		p->on = true;
		slide_start(&p->avg, t[k], p->window_s);
	} else {
		droop_stop(p);
	}
	droop_run(p, t + k, n - k, s);
}

static void droop_sample(void *priv, bn_time_us t, const struct bn_sample *s)
{
	droop_hold(priv, &t, 1, s);
}

static void droop_end(void *priv, bn_time_us t_end_us, struct bn_result *res)
{
	struct droop_priv *p = priv;
	const struct spell *mid = &p->sp[SP_MID];
	double d_s, u_spread, u_bin, u;

	droop_stop(p);
	if (!p->any_eval) {
		bn_result_inconclusive(res, "VBUS was never measured valid for a full TVBUS_AVG window "
				       "(%.0f ms)", p->window_s * 1e3);
		bn_result_window(res, 0, t_end_us);
		return;
	}
	snprintf(res->limit, sizeof(res->limit), "TVBUS_AVG avg >= %.3g V, settle <= %.3g s",
		 p->thr_v, bn_time_to_s(p->settle_us));
	/* The duration's U: how much the longest spell moves when the
	 * averages move by their U (the spells clearly and possibly below),
	 * and the bins the spell is dated by (start and end, each uniform
	 * over one bin). */
	d_s = bn_time_to_s(mid->worst_us);
	u_spread = fmax(bn_time_to_s(p->sp[SP_HI].worst_us) - d_s, d_s - bn_time_to_s(p->sp[SP_LO].worst_us));
	u_bin = BN_MEAS_K * bn_time_to_s(p->avg.bin_us) / sqrt(6.0);
	u = sqrt(u_spread * u_spread + u_bin * u_bin);
	bn_result_judge_u(res, d_s, u, NAN, bn_time_to_s(p->settle_us), "s");
	if (mid->worst_us > 0)
		bn_result_window(res, mid->worst_t0, mid->worst_t1);
	else
		bn_result_window(res, p->t_first, p->t_last);
	if (p->have_blk) {
		bn_result_figure(res, "time_to_settle", bn_time_to_s(p->t_change - p->t_on), "s");
		bn_result_figure(res, "settled_current", p->last_blk, "A");
		bn_result_figure(res, "backoffs", p->backoffs, "");
	}
	/* the lowest average while drawing (a result holds four figures) */
	if (!isinf(p->min_avg_v))
		bn_result_figure(res, "min_avg_vbus_drawing", p->min_avg_v, "V");
	if (res->verdict == BN_VERDICT_FAIL)
		bn_result_fail(res,
			       "the %.0f ms average of VBUS stayed below the declared %.3g V for %.3f s "
			       "(U = %.3f s; from %.3f s, down to %.3f V) while drawing; settle time is "
			       "2 x TVBUS_AVG = %.3f s",
			       p->window_s * 1e3, p->thr_v, d_s, res->u, bn_time_to_s(mid->worst_t0),
			       mid->worst_min_v, bn_time_to_s(p->settle_us));
}

static const struct bn_rule rule_droop = {
	.id = "bc12.cur.droop",
	.judges_late_capture = true,
	.task = BN_TASK_CURRENT,
	.title = "the device does not hold VBUS below its declared droop threshold (TVBUS_AVG "
		 "average) longer than 2 x TVBUS_AVG",
	.clause = "CP 6.6, 6.7",
	.limit = "TVBUS_AVG",
	.persistence = "TVBUS_AVG sliding average (25 bins) while drawing > ISUSP; a spell below may last "
		       "2 x TVBUS_AVG; from VBUS valid",
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

/* ---- blocks drawing more than ISUSP: what vdcp_shtdwn and dcp_dp_hold share ---- */

/* The lowest block mean of a level among the blocks in which every IBUS
 * sample was above ISUSP max by more than one sample's U. */
struct draw_low {
	const struct bn_check_ctx *ctx;
	double isusp_a, draw_a;    /* ISUSP max, and the threshold a sample must pass */
	struct bn_block b;              /* sum[0]: the level, sum[1]: IBUS */
	bool any;
	long n_blk;
	double min_v, i_at_min;
	long n_at_min;
	bn_time_us t_min, t_first, t_last;
};

static void dl_begin(struct draw_low *d, const struct bn_check_ctx *ctx)
{
	d->ctx = ctx;
	d->isusp_a = bn_limits_max(ctx->lim, "ISUSP");
	/* The meter's stated accuracy (conditions, bench.conf, --uncertainty);
	 * a channel whose accuracy is estimated from the data has it only at
	 * the end: its threshold is then plain ISUSP, and dl_judge checks the
	 * block it found with the estimate. */
	d->draw_a = d->isusp_a + bn_level_U(ctx, BN_CH_IBUS, d->isusp_a, 1);
	d->min_v = INFINITY;
}

static void dl_blk(void *user, const struct bn_block *b)
{
	struct draw_low *d = user;
	double v = bn_block_mean(b, 0);

	if (!bn_block_full(b))
		return;
	if (!d->any)
		d->t_first = b->t0;
	d->any = true;
	d->n_blk++;
	d->t_last = b->t0 + b->len_us;
	if (v < d->min_v) {
		d->min_v = v;
		d->i_at_min = bn_block_mean(b, 1);
		d->n_at_min = b->n;
		d->t_min = b->t0;
	}
}

/* The lowest level against min on channel ch: false if that block turns
 * out not to draw more than ISUSP within U (the verdict is then set). */
static bool dl_judge(struct draw_low *d, struct bn_result *res, enum bn_chan ch, double min, const char *unit)
{
	bn_judge_extreme(res, d->ctx, ch, d->min_v, 1.0, d->n_at_min, d->n_blk, min, NAN, unit);
	bn_result_window(res, d->t_first, d->t_last);
	if (res->verdict == BN_VERDICT_FAIL &&
	    !(d->i_at_min - bn_level_U(d->ctx, BN_CH_IBUS, d->i_at_min, d->n_at_min) > d->isusp_a)) {
		bn_result_window(res, d->t_min, d->t_min + d->b.len_us);
		bn_result_inconclusive(res, "%.3f %s at %.3f s, but the draw then (%.2f mA) is not above "
				       "ISUSP max by more than its U", d->min_v, unit,
				       bn_time_to_s(d->t_min), d->i_at_min * 1e3);
		return false;
	}
	return true;
}

/* ---- bc12.cur.vdcp_shtdwn ---- */

struct shtdwn_priv {
	struct draw_low d;
	double vmin_lim;
	bool on;
};

static void shtdwn_begin(void *priv, const struct bn_check_ctx *ctx)
{
	struct shtdwn_priv *p = priv;

	dl_begin(&p->d, ctx);
	p->vmin_lim = bn_limits_max(ctx->lim, "VDCP_SHTDWN");
}

static void shtdwn_event(void *priv, const struct bn_cev *ev)
{
	struct shtdwn_priv *p = priv;

	if (ev->kind == BN_CEV_VBUS_ON && !p->on) {
		p->on = true;
		bn_block_start(&p->d.b, ev->t_us, bn_block_len_us(p->d.ctx));
	} else if (ev->kind == BN_CEV_VBUS_OFF) {
		p->on = false;
	}
}

static void shtdwn_hold(void *priv, const bn_time_us *t, long n, const struct bn_sample *s)
{
	struct shtdwn_priv *p = priv;

	if (!p->on)
		return;
	bn_block_run(&p->d.b, t, n, s->v[BN_CH_VBUS], s->v[BN_CH_IBUS], s->v[BN_CH_IBUS] > p->d.draw_a,
		dl_blk, &p->d);
}

static void shtdwn_sample(void *priv, bn_time_us t, const struct bn_sample *s)
{
	shtdwn_hold(priv, &t, 1, s);
}

static void shtdwn_end(void *priv, bn_time_us t_end_us, struct bn_result *res)
{
	struct shtdwn_priv *p = priv;

	if (!p->d.any) {
		bn_result_inconclusive(res, "the device never drew more than ISUSP max (by more than U) "
				       "with VBUS on");
		bn_result_window(res, 0, t_end_us);
		return;
	}
	if (!dl_judge(&p->d, res, BN_CH_VBUS, p->vmin_lim, "V"))
		return;
	if (res->verdict == BN_VERDICT_FAIL) {
		bn_result_window(res, p->d.t_min, p->d.t_min + p->d.b.len_us);
		bn_result_fail(res, "VBUS %.3f V (mean of %.1f ms, U = %.3f V) at %.3f s while the device "
			       "drew %.1f mA", p->d.min_v, bn_time_to_s(p->d.b.len_us) * 1e3, res->u,
			       bn_time_to_s(p->d.t_min), p->d.i_at_min * 1e3);
	}
}

static const struct bn_rule rule_vdcp_shtdwn = {
	.id = "bc12.cur.vdcp_shtdwn",
	.judges_late_capture = true,
	.task = BN_TASK_CURRENT,
	.title = "while drawing more than ISUSP the device never pulls VBUS below VDCP_SHTDWN",
	.clause = "CP 6.6, 6.7",
	.limit = "VDCP_SHTDWN",
	.persistence = "VBUS as the mean of 1 ms blocks (>= 3 samples) each IBUS sample of which is > "
		       "ISUSP + U; VBUS on to off",
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
	struct draw_low d;
	double vdp_min;
	double gnd_v;              /* subtracted from D+ for the device's ground */
	bool gnd_unknown;
	bn_time_us grace_us;
	bool on;
	struct bn_vvalid vv;
};

static void dphold_begin(void *priv, const struct bn_check_ctx *ctx)
{
	struct dphold_priv *p = priv;

	dl_begin(&p->d, ctx);
	p->vdp_min = bn_limits_min(ctx->lim, "VDP_SRC");
	/* "from 1 s after VBUS on" (CP 6.6): the second a device has to
	 * finish detection, the same TSVLD_CON_PWD, from VBUS valid. */
	p->grace_us = bn_time_from_s(bn_limits_max(ctx->lim, "TSVLD_CON_PWD"));
	/* VDP_SRC is the device's source: judged in its own ground. */
	p->gnd_unknown = bn_gnd_unknown(ctx, BN_CH_DP);
	p->gnd_v = bn_gnd_shift_v(ctx, BN_CH_DP);
	bn_vvalid_init(&p->vv, ctx, p->d.draw_a);
}

static void dphold_event(void *priv, const struct bn_cev *ev)
{
	struct dphold_priv *p = priv;

	if (ev->kind == BN_CEV_VBUS_ON && !p->on) {
		p->on = true;
		bn_vvalid_restart(&p->vv);
		bn_block_start(&p->d.b, ev->t_us, bn_block_len_us(p->d.ctx));
	} else if (ev->kind == BN_CEV_VBUS_OFF) {
		p->on = false;
	}
}

/* n equal samples with VBUS validity constant over them: the ones inside
 * the grace (or with VBUS not valid) spoil their blocks. */
static void dphold_run(struct dphold_priv *p, const bn_time_us *t, long n, const struct bn_sample *s)
{
	double dp = s->v[BN_CH_DP] - p->gnd_v, i = s->v[BN_CH_IBUS];
	bool draw = i > p->d.draw_a;
	long k = p->vv.valid ? bn_first_at(t, 0, n, p->vv.t_valid + p->grace_us) : n;

	bn_block_run(&p->d.b, t, k, dp, i, false, dl_blk, &p->d);
	bn_block_run(&p->d.b, t + k, n - k, dp, i, draw, dl_blk, &p->d);
}

static void dphold_hold(void *priv, const bn_time_us *t, long n, const struct bn_sample *s)
{
	struct dphold_priv *p = priv;
	long k;

	if (!p->on)
		return;
	k = bn_vvalid_run(&p->vv, s->v[BN_CH_VBUS], s->v[BN_CH_IBUS], t, n);
	/* the sample that confirms a change sees the new state */
	dphold_run(p, t, k, s);
	dphold_run(p, t + k, n - k, s);
}

static void dphold_sample(void *priv, bn_time_us t, const struct bn_sample *s)
{
	dphold_hold(priv, &t, 1, s);
}

static void dphold_end(void *priv, bn_time_us t_end_us, struct bn_result *res)
{
	struct dphold_priv *p = priv;

	if (!p->vv.n_valid) {
		bn_result_inconclusive(res, "VBUS was never measured valid (above %.3f V)", p->vv.on_v);
		bn_result_window(res, 0, t_end_us);
		return;
	}
	if (!p->d.any) {
		bn_result_inconclusive(res, "the device never drew more than ISUSP max (by more than U) "
				       "from %.1f s after VBUS valid", bn_time_to_s(p->grace_us));
		bn_result_window(res, 0, t_end_us);
		return;
	}
	if (p->gnd_unknown) {
		bn_result_inconclusive(res, "D+ is measured against the port's ground and the device's "
				       "ground offset is not known: VDP_SRC cannot be judged");
		bn_result_window(res, p->d.t_first, p->d.t_last);
		return;
	}
	if (!dl_judge(&p->d, res, BN_CH_DP, p->vdp_min, "V"))
		return;
	if (p->vv.n_valid > 1)
		bn_result_figure(res, "vbus_returns", p->vv.n_valid - 1, "");
	if (res->verdict == BN_VERDICT_FAIL) {
		bn_result_window(res, p->d.t_min, p->d.t_min + p->d.b.len_us);
		bn_result_fail(res, "D+ at %.3f V (mean of %.1f ms, U = %.3f V) at %.3f s while drawing "
			       "%.1f mA on a DCP", p->d.min_v, bn_time_to_s(p->d.b.len_us) * 1e3, res->u,
			       bn_time_to_s(p->d.t_min), p->d.i_at_min * 1e3);
	}
}

static const struct bn_rule rule_dcp_dp_hold = {
	.id = "bc12.cur.dcp_dp_hold",
	.judges_late_capture = true,
	.task = BN_TASK_CURRENT,
	.title = "on a DCP, while drawing more than ISUSP (from 1 s after VBUS valid), D+ stays at "
		 "or above VDP_SRC min",
	.clause = "CP 6.6 [PD17]",
	.limit = "VDP_SRC",
	.persistence = "D+ as the mean of 1 ms blocks (>= 3 samples) each drawing > ISUSP + U; from "
		       "1 s after VBUS valid (again on return)",
	.needs_channels = (1u << BN_CH_VBUS) | (1u << BN_CH_IBUS) | (1u << BN_CH_DP),
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
