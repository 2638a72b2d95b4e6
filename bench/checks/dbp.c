/* Task 5: Dead Battery Provision on an SDP (CP 6.16; docs/bc12-limits.md, the
 * device's detection sequence, step 8). Applies to a device that declares
 * DBP and whose battery starts dead.
 *
 * Terms, from the samples and events only:
 *   VBUS on       between the bench's vbus_on and vbus_off events.
 *   attach        VBUS measured valid in it: above VOTG_SESS_VLD max (where
 *                 every device sees a session) by more than one sample's U
 *                 for the level persistence (1 ms, 3 samples), dated at its
 *                 first sample. The times the spec counts from attach
 *                 (TDBP_ATT_VDPSRC, TSVLD_CON_WKB) start there, not at the
 *                 bench's command.
 *   connected     between the host's connect and disconnect events.
 *   at VDP_SRC    D+ (in the device's ground: VDP_SRC is the device's
 *                 source) within [VDP_SRC min, VDP_SRC max]; it comes on and
 *                 goes off only once the new state held the level
 *                 persistence, dated at its first sample.
 *   VDP_SRC on    at VDP_SRC for at least TVDPSRC_ON min (the shortest time
 *                 a device holds VDP_SRC): D+ passing through the range on
 *                 its way to a pull-up, or falling at a disconnect, is not.
 *   1 s average   consecutive TSUSP_AVG max (1 s) windows of IBUS, aligned to
 *                 VBUS on (or to the disconnect that ends a connection), as
 *                 testers average suspend current. A window cut short by a
 *                 connect is dropped. Its U: the noise of its samples shrinks,
 *                 the converter's offset and gain do not.
 *   isusp_unless_vdp judges, per window, the 1 s average of the current drawn
 *                 while D+ is NOT at VDP_SRC (samples at VDP_SRC count as 0):
 *                 above ISUSP max in two consecutive windows fails. A device
 *                 at VDP_SRC all second is judged 0; one never at VDP_SRC is
 *                 judged by its plain 1 s average, as the tester does.
 *   iunit         an instant bound: judged on the mean of each block of the
 *                 level persistence (1 ms and at least 3 samples: 3 ms at
 *                 1 kHz) while unconnected, aligned to VBUS on or to the
 *                 event that began the unconnected stretch. The highest of
 *                 many blocks passes with one block's U and fails only beyond
 *                 the U of the largest of their noises (bn_judge_extreme); so
 *                 does the worst pair of 1 s averages.
 *   con_wkb       at ISUSP: a 1 s average below ISUSP max by more than its U;
 *                 above it by more than U is drawing; between, the verdict at
 *                 TSVLD_CON_WKB is inconclusive.
 * Blame: no misbehaviour of the host excuses these rules: the host's part
 * in them is to see the pull-up (connect), which a host that never
 * enumerates still does (docs/rules-current-dbp.md).
 * Memory is a handful of running values per rule. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "checks/check.h"
#include "checks/hold.h"
#include "checks/level.h"
#include "checks/rules.h"

/* Testers sample every 1 ms. */
#define DBP_MIN_RATE_HZ 1000.0

#define SESSION_EVENTS (BN_CEV_BIT(BN_CEV_VBUS_ON) | BN_CEV_BIT(BN_CEV_VBUS_OFF))
#define CONNECT_EVENTS (BN_CEV_BIT(BN_CEV_CONNECT) | BN_CEV_BIT(BN_CEV_DISCONNECT))

/* What every DBP rule tracks. */
struct dbp_state {
	const struct bn_check_ctx *ctx;
	double vdp_min, vdp_max;
	bn_time_us hold_us;        /* TVDPSRC_ON min */
	double gnd_v;              /* subtracted from D+ for the device's ground */
	bool gnd_unknown;
	bool on, connected;
	bn_time_us t_on;
	struct bn_vvalid vv;       /* its first valid in a session is the attach */
	bool attached;
	bn_time_us t_att;
	/* VBUS was valid from the session's first sample, which came later
	 * than the bench's vbus_on: attach was not seen, it lies between
	 * t_on and t_att (a capture that starts after attach). */
	bool att_unseen;
	bool seen_first;
	bn_time_us t_first_s, period_us;
	struct bn_persist rng;     /* D+ at VDP_SRC */
	bn_time_us range_since, range_off;
};

static void st_begin(struct dbp_state *st, const struct bn_check_ctx *ctx)
{
	st->ctx = ctx;
	st->vdp_min = bn_limits_min(ctx->lim, "VDP_SRC");
	st->vdp_max = bn_limits_max(ctx->lim, "VDP_SRC");
	st->hold_us = bn_time_from_s(bn_limits_min(ctx->lim, "TVDPSRC_ON"));
	/* VBUS going off is the bench's event here: no draw keeps it on */
	bn_vvalid_init(&st->vv, ctx, INFINITY);
	st->gnd_unknown = bn_gnd_unknown(ctx, BN_CH_DP);
	st->gnd_v = bn_gnd_shift_v(ctx, BN_CH_DP);
	bn_persist_init(&st->rng, BN_PERSIST_LEVEL_US, BN_PERSIST_MIN_SAMPLES, false);
	st->period_us = ctx->rate_hz > 0 ? (bn_time_us)ceil(1e6 / ctx->rate_hz) : 0;
}

/* Returns true for a vbus_on that starts a session. */
static bool st_event(struct dbp_state *st, const struct bn_cev *ev)
{
	switch (ev->kind) {
	case BN_CEV_VBUS_ON:
		if (st->on)
			return false;
		st->on = true;
		st->t_on = ev->t_us;
		st->connected = false;
		st->attached = false;
		st->seen_first = false;
		bn_vvalid_restart(&st->vv);
		bn_persist_init(&st->rng, st->rng.hold_us, st->rng.min_n, false);
		return true;
	case BN_CEV_VBUS_OFF:
		st->on = false;
		st->connected = false;
		break;
	case BN_CEV_CONNECT:
		st->connected = true;
		break;
	case BN_CEV_DISCONNECT:
		st->connected = false;
		break;
	default:
		break;
	}
	return false;
}

/* One sample's VBUS and D+: attach and the VDP_SRC range move with it. */
static void st_sample(struct dbp_state *st, bn_time_us t, const struct bn_sample *s)
{
	double dp = s->v[BN_CH_DP] - st->gnd_v;
	bool changed = bn_vvalid_run(&st->vv, s->v[BN_CH_VBUS], s->v[BN_CH_IBUS], &t, 1) < 1;
	bn_time_us tc;

	if (!st->seen_first) {
		st->seen_first = true;
		st->t_first_s = t;
	}
	if (changed && st->vv.valid && !st->attached) {
		st->attached = true;
		st->t_att = st->vv.t_valid;
		/* valid from the first sample, and that sample more than a
		 * period or two after the command: the rise was not captured */
		st->att_unseen = st->t_att == st->t_first_s && st->t_att - st->t_on > 2 * st->period_us;
	}
	if (bn_persist_feed(&st->rng, dp >= st->vdp_min && dp <= st->vdp_max, t, t, 1, &tc)) {
		if (st->rng.state)
			st->range_since = tc;
		else
			st->range_off = tc;
	}
}

/* The same over a run of n equal D+ samples: the index at which the range
 * state changed, n if none. */
static long st_dp_run(struct dbp_state *st, const bn_time_us *t, long n, double dp_raw)
{
	double dp = dp_raw - st->gnd_v;
	bn_time_us tc = 0;
	long k = bn_persist_run(&st->rng, dp >= st->vdp_min && dp <= st->vdp_max, t, n, &tc);

	if (k < n) {
		if (st->rng.state)
			st->range_since = tc;
		else
			st->range_off = tc;
	}
	return k;
}

/* VDP_SRC on at t: at VDP_SRC, and for TVDPSRC_ON. */
static bool st_held(const struct dbp_state *st, bn_time_us t)
{
	return st->rng.state && t - st->range_since >= st->hold_us;
}

/* After a sample s at t: every later sample equal to s leaves st as it
 * is, and st_held() as it is at t. Each persistence already holds the
 * state s's raw condition gives (so feeding s again changes nothing), and
 * D+'s range is either off or on for TVDPSRC_ON already. */
static bool st_steady(const struct dbp_state *st, bn_time_us t, const struct bn_sample *s)
{
	double vbus = s->v[BN_CH_VBUS], dp = s->v[BN_CH_DP] - st->gnd_v;
	bool off = vbus < st->vv.off_v && !(s->v[BN_CH_IBUS] > st->vv.draw_a);

	return st->seen_first && st->vv.above.state == (vbus > st->vv.on_v) &&
	       !st->vv.above.pending && st->vv.below.state == off && !st->vv.below.pending &&
	       st->rng.state == (dp >= st->vdp_min && dp <= st->vdp_max) && !st->rng.pending &&
	       (!st->rng.state || t - st->range_since >= st->hold_us);
}

/* A time d counted from attach passed: if attach was not seen, it counted
 * from the latest it can have been; counted from the earliest (the bench's
 * vbus_on) it must pass too, else the rule is inconclusive. */
static void st_att_check(const struct dbp_state *st, struct bn_result *res, double d, double lim)
{
	double early = d + bn_time_to_s(st->t_att - st->t_on);

	if (res->verdict != BN_VERDICT_PASS || !st->att_unseen || early + res->u < lim)
		return;
	bn_result_inconclusive(res, "VBUS was already valid when the capture began (%.3f s after the "
			       "bench's VBUS on): attach not seen; %.3f s to %.3f s after it",
			       bn_time_to_s(st->t_att - st->t_on), d, early);
}

/* The rules timed from attach cannot without one (session_seen: the
 * bench turned VBUS on). */
static bool st_unattached(const struct dbp_state *st, bool session_seen, bn_time_us t_end_us,
			  struct bn_result *res)
{
	if (session_seen && st->attached)
		return false;
	bn_result_inconclusive(res, session_seen ? "VBUS was never measured valid (above %.3f V)"
						 : "VBUS was never on (above %.3f V)",
			       st->vv.on_v);
	bn_result_window(res, 0, t_end_us);
	return true;
}

/* The rules that judge D+ levels cannot when the device's ground is not
 * known against the port's (D+ measured against the port's). */
static bool st_gnd_inconclusive(const struct dbp_state *st, struct bn_result *res)
{
	if (!st->gnd_unknown)
		return false;
	bn_result_inconclusive(res, "D+ is measured against the port's ground and the device's ground "
			       "offset is not known: VDP_SRC cannot be told");
	return true;
}

/* Consecutive fixed windows of IBUS, summed over the samples with D+ not
 * at VDP_SRC (the rest count as exact zeros). */
struct win1s {
	bn_time_us len_us, t0;
	struct bn_rsum sum_off;
	long n, n_off;
	bool open;
};

static void win_start(struct win1s *w, bn_time_us t0)
{
	w->t0 = t0;
	w->sum_off = (struct bn_rsum){ 0 };
	w->n = w->n_off = 0;
	w->open = true;
}

/* ---- bc12.dbp.vdp_src_on ---- */

struct vdpon_priv {
	struct dbp_state st;
	bn_time_us deadline_us;
	bool session_seen, decided, missed;
	bn_time_us onset;
	double dp_at_deadline;
	bool conn_at_deadline;
	bn_time_us t_last;
};

static void vdpon_begin(void *priv, const struct bn_check_ctx *ctx)
{
	struct vdpon_priv *p = priv;

	st_begin(&p->st, ctx);
	p->deadline_us = bn_time_from_s(bn_limits_max(ctx->lim, "TDBP_ATT_VDPSRC"));
}

static void vdpon_event(void *priv, const struct bn_cev *ev)
{
	struct vdpon_priv *p = priv;

	/* The first attach is the one judged. */
	if (p->session_seen && ev->kind == BN_CEV_VBUS_ON)
		return;
	if (st_event(&p->st, ev))
		p->session_seen = true;
}

static void vdpon_sample(void *priv, bn_time_us t, const struct bn_sample *s)
{
	struct vdpon_priv *p = priv;

	if (!p->st.on || p->decided)
		return;
	p->t_last = t;
	st_sample(&p->st, t, s);
	/* Judged at TDBP_ATT_VDPSRC after attach: VDP_SRC must be on then
	 * (a primary detection's VDP_SRC that ended before is not DBP). */
	if (!p->st.attached || t < p->st.t_att + p->deadline_us)
		return;
	if (st_held(&p->st, t)) {
		p->decided = true;
		p->onset = p->st.range_since;
	} else if (!p->st.rng.state && !p->missed) {
		p->missed = true;
		p->dp_at_deadline = s->v[BN_CH_DP] - p->st.gnd_v;
		p->conn_at_deadline = p->st.connected;
	}
}

/* Until it decides, sample by sample (a second or so, unless VDP_SRC never
 * comes); then nothing. */
static void vdpon_hold(void *priv, const bn_time_us *t, long n, const struct bn_sample *s)
{
	struct vdpon_priv *p = priv;

	for (long k = 0; k < n && p->st.on && !p->decided; k++)
		vdpon_sample(p, t[k], s);
}

static void vdpon_end(void *priv, bn_time_us t_end_us, struct bn_result *res)
{
	struct vdpon_priv *p = priv;
	double lim = bn_time_to_s(p->deadline_us);

	if (st_unattached(&p->st, p->session_seen, t_end_us, res))
		return;
	if (st_gnd_inconclusive(&p->st, res)) {
		bn_result_window(res, p->st.t_att, p->st.t_att + p->deadline_us);
		return;
	}
	bn_result_window(res, p->st.t_att, p->st.t_att + p->deadline_us);
	if (p->decided) {
		double d = bn_time_to_s(p->onset - p->st.t_att);

		bn_result_judge_u(res, d, bn_span_U(p->st.ctx, BN_CH_VBUS, BN_CH_DP), NAN, lim, "s");
		st_att_check(&p->st, res, d, lim);
		if (res->verdict == BN_VERDICT_FAIL)
			bn_result_fail(res, "VDP_SRC came on only %.3f s after VBUS valid (D+ was %.3f V%s at %.3f s)",
				       d, p->dp_at_deadline, p->conn_at_deadline ? ", connected" : "", lim);
		return;
	}
	if (p->missed && p->st.att_unseen) {
		bn_result_inconclusive(res, "D+ was not at VDP_SRC %.3f s after VBUS was first seen valid, but "
				       "VBUS was already valid when the capture began: attach not seen", lim);
		return;
	}
	if (p->missed) {
		/* an event, not a level: D+ was not at VDP_SRC (with persistence) */
		bn_result_fail(res, "D+ was not at VDP_SRC %.3f s after VBUS valid (%.3f V%s), and VDP_SRC never came on later",
			       lim, p->dp_at_deadline,
			       p->conn_at_deadline ? ", the device had connected" : "");
		return;
	}
	bn_result_inconclusive(res, "the capture (%.3f s after VBUS valid) ends before VDP_SRC could be judged at %.3f s",
			       bn_time_to_s(p->t_last - p->st.t_att), lim);
}

static const struct bn_rule rule_vdp_src_on = {
	.id = "bc12.dbp.vdp_src_on",
	.judges_late_capture = true,
	.task = BN_TASK_DBP,
	.title = "Dead Battery Provision: VDP_SRC on D+ within TDBP_ATT_VDPSRC of attach",
	.clause = "CP 6.16",
	.limit = "TDBP_ATT_VDPSRC",
	.persistence = "D+ in VDP_SRC (device ground) for 1 ms (3 samples) and held TVDPSRC_ON; from "
		       "VBUS valid (1 ms, 3 samples)",
	.needs_channels = (1u << BN_CH_VBUS) | (1u << BN_CH_DP),
	.needs_events = SESSION_EVENTS | CONNECT_EVENTS,
	.min_rate_hz = DBP_MIN_RATE_HZ,
	.ports = BN_PORT_BIT(BN_PORT_SDP),
	.needs_decl = BN_DECL_DBP | BN_DECL_DEAD_BATTERY,
	.priv_size = sizeof(struct vdpon_priv),
	.begin = vdpon_begin,
	.sample = vdpon_sample,
	.hold = vdpon_hold,
	.event = vdpon_event,
	.end = vdpon_end,
};

/* ---- bc12.dbp.iunit ---- */

struct iunit_priv {
	struct dbp_state st;
	double imax;
	bn_time_us blk_us;
	struct bn_block b;
	bool any;
	long n_blk;
	double max_i;
	long max_n;
	bn_time_us t_max, t_first, t_last;
};

static void iunit_begin(void *priv, const struct bn_check_ctx *ctx)
{
	struct iunit_priv *p = priv;

	st_begin(&p->st, ctx);
	p->imax = bn_limits_max(ctx->lim, "IUNIT");
	p->blk_us = bn_block_len_us(ctx);
	p->max_i = -INFINITY;
}

static void iunit_event(void *priv, const struct bn_cev *ev)
{
	struct iunit_priv *p = priv;

	st_event(&p->st, ev);
	/* A new unconnected stretch (or none): the block cut short is
	 * dropped, it never held long enough. */
	if (ev->kind == BN_CEV_VBUS_ON || ev->kind == BN_CEV_VBUS_OFF || ev->kind == BN_CEV_CONNECT ||
	    ev->kind == BN_CEV_DISCONNECT)
		bn_block_start(&p->b, ev->t_us, p->blk_us);
}

static void iunit_blk(void *user, const struct bn_block *b)
{
	struct iunit_priv *p = user;
	double i = bn_block_mean(b, 0);

	if (!bn_block_full(b))
		return;
	if (!p->any)
		p->t_first = b->t0;
	p->any = true;
	p->n_blk++;
	p->t_last = b->t0 + b->len_us;
	if (i > p->max_i) {
		p->max_i = i;
		p->max_n = b->n;
		p->t_max = b->t0;
	}
}

static void iunit_hold(void *priv, const bn_time_us *t, long n, const struct bn_sample *s)
{
	struct iunit_priv *p = priv;

	if (!p->st.on || p->st.connected)
		return;
	bn_block_run(&p->b, t, n, s->v[BN_CH_IBUS], 0.0, true, iunit_blk, p);
}

static void iunit_sample(void *priv, bn_time_us t, const struct bn_sample *s)
{
	iunit_hold(priv, &t, 1, s);
}

static void iunit_end(void *priv, bn_time_us t_end_us, struct bn_result *res)
{
	struct iunit_priv *p = priv;

	if (!p->any) {
		bn_result_inconclusive(res, "the device was never unconnected with VBUS on for a full "
				       "%.1f ms block", bn_time_to_s(p->blk_us) * 1e3);
		bn_result_window(res, 0, t_end_us);
		return;
	}
	bn_judge_extreme(res, p->st.ctx, BN_CH_IBUS, p->max_i, 1.0, p->max_n, p->n_blk, NAN, p->imax, "A");
	bn_result_window(res, p->t_first, p->t_last);
	if (res->verdict == BN_VERDICT_FAIL) {
		bn_result_window(res, p->t_max, p->t_max + p->blk_us);
		bn_result_fail(res, "drew %.1f mA unconnected at %.3f s (mean of %.1f ms, U = %.1f mA), "
			       "above IUNIT max %.0f mA", p->max_i * 1e3, bn_time_to_s(p->t_max),
			       bn_time_to_s(p->blk_us) * 1e3, res->u * 1e3, p->imax * 1e3);
	}
}

static const struct bn_rule rule_iunit = {
	.id = "bc12.dbp.iunit",
	.judges_late_capture = true,
	.task = BN_TASK_DBP,
	.title = "Dead Battery Provision: at most IUNIT while unconnected (1 ms blocks)",
	.clause = "CP 6.16",
	.limit = "IUNIT",
	.persistence = "IBUS as the mean of 1 ms blocks (>= 3 samples) while unconnected: 2 ms over "
		       "counts, < 1 ms never",
	.needs_channels = 1u << BN_CH_IBUS,
	.needs_events = SESSION_EVENTS | CONNECT_EVENTS,
	.min_rate_hz = DBP_MIN_RATE_HZ,
	.ports = BN_PORT_BIT(BN_PORT_SDP),
	.needs_decl = BN_DECL_DBP | BN_DECL_DEAD_BATTERY,
	.priv_size = sizeof(struct iunit_priv),
	.begin = iunit_begin,
	.sample = iunit_sample,
	.hold = iunit_hold,
	.event = iunit_event,
	.end = iunit_end,
};

/* ---- bc12.dbp.isusp_unless_vdp ---- */

struct isusp_priv {
	struct dbp_state st;
	double isusp;
	struct win1s w;
	bool prev_valid;
	double prev_a, prev_f;
	long prev_n;
	long windows;
	double worst;           /* highest lesser of two consecutive off-VDP_SRC averages */
	double worst_f;         /* of that average: the fraction of samples off VDP_SRC */
	long worst_n;           /* and their count */
	bn_time_us worst_t0, worst_t1;
	long violations;
};

static void isusp_begin(void *priv, const struct bn_check_ctx *ctx)
{
	struct isusp_priv *p = priv;

	st_begin(&p->st, ctx);
	p->isusp = bn_limits_max(ctx->lim, "ISUSP");
	p->w.len_us = bn_time_from_s(bn_limits_max(ctx->lim, "TSUSP_AVG"));
	p->worst = -INFINITY;
}

static void isusp_event(void *priv, const struct bn_cev *ev)
{
	struct isusp_priv *p = priv;

	st_event(&p->st, ev);
	switch (ev->kind) {
	case BN_CEV_VBUS_ON:
	case BN_CEV_DISCONNECT:
		if (p->st.on && !p->st.connected) {
			win_start(&p->w, ev->t_us);
			p->prev_valid = false;
		}
		break;
	case BN_CEV_VBUS_OFF:
	case BN_CEV_CONNECT:
		p->w.open = false;  /* a partial window is dropped */
		p->prev_valid = false;
		break;
	default:
		break;
	}
}

static void isusp_close(struct isusp_priv *p)
{
	double a = bn_rsum_mean(&p->w.sum_off, p->w.n);
	/* The average counts the samples at VDP_SRC as exact zeros: it is the
	 * fraction f of the samples off VDP_SRC times their own mean, and so
	 * is its U (bn_judge_extreme). */
	double f = (double)p->w.n_off / (double)p->w.n;

	p->windows++;
	if (p->prev_valid) {
		bool cur_lesser = a <= p->prev_a;
		double m = cur_lesser ? a : p->prev_a;

		if (m > p->worst) {
			p->worst = m;
			p->worst_f = cur_lesser ? f : p->prev_f;
			p->worst_n = cur_lesser ? p->w.n_off : p->prev_n;
			p->worst_t0 = p->w.t0 - p->w.len_us;
			p->worst_t1 = p->w.t0 + p->w.len_us;
		}
		if (m > p->isusp)
			p->violations++;
	}
	p->prev_a = a;
	p->prev_f = f;
	p->prev_n = p->w.n_off;
	p->prev_valid = true;
}

/* Close the windows that end at or before t. */
static void isusp_windows_to(struct isusp_priv *p, bn_time_us t)
{
	while (t >= p->w.t0 + p->w.len_us) {
		if (p->w.n > 0)
			isusp_close(p);
		else
			p->prev_valid = false;
		win_start(&p->w, p->w.t0 + p->w.len_us);
	}
}

/* n equal samples, D+ at VDP_SRC or not all along. */
static void isusp_run(struct isusp_priv *p, const bn_time_us *t, long n, double i)
{
	if (!p->w.open || p->st.connected)
		return;
	for (long k = 0, j; k < n; k = j) {
		isusp_windows_to(p, t[k]);
		j = bn_first_at(t, k + 1, n, p->w.t0 + p->w.len_us);
		p->w.n += j - k;
		if (!p->st.rng.state) {
			bn_rsum_add(&p->w.sum_off, i, j - k);
			p->w.n_off += j - k;
		}
	}
}

static void isusp_hold(void *priv, const bn_time_us *t, long n, const struct bn_sample *s)
{
	struct isusp_priv *p = priv;
	long k;

	if (!p->st.on)
		return;
	/* the sample that confirms a change of the range sees the new state */
	k = st_dp_run(&p->st, t, n, s->v[BN_CH_DP]);
	isusp_run(p, t, k, s->v[BN_CH_IBUS]);
	isusp_run(p, t + k, n - k, s->v[BN_CH_IBUS]);
}

static void isusp_sample(void *priv, bn_time_us t, const struct bn_sample *s)
{
	isusp_hold(priv, &t, 1, s);
}

static void isusp_end(void *priv, bn_time_us t_end_us, struct bn_result *res)
{
	struct isusp_priv *p = priv;

	if (p->windows < 2) {
		bn_result_inconclusive(res, "fewer than two full %.0f s windows unconnected with VBUS on",
				       bn_time_to_s(p->w.len_us));
		bn_result_window(res, 0, t_end_us);
		return;
	}
	if (st_gnd_inconclusive(&p->st, res)) {
		bn_result_window(res, 0, t_end_us);
		return;
	}
	bn_result_figure(res, "windows", (double)p->windows, "");
	if (p->worst_n > 0)
		bn_judge_extreme(res, p->st.ctx, BN_CH_IBUS, p->worst, p->worst_f, p->worst_n, p->windows - 1, NAN,
			      p->isusp, "A");
	else	/* at VDP_SRC all along: exact zeros */
		bn_result_judge_u(res, p->worst, 0, NAN, p->isusp, "A");
	bn_result_window(res, p->worst_t0, p->worst_t1);
	if (res->verdict == BN_VERDICT_FAIL)
		bn_result_fail(res, "the 1 s average stayed above ISUSP max twice in a row (%.2f mA, "
				    "U = %.2f mA) unconnected with D+ not at VDP_SRC (%ld time(s))",
			       p->worst * 1e3, res->u * 1e3, p->violations);
}

static const struct bn_rule rule_isusp_unless_vdp = {
	.id = "bc12.dbp.isusp_unless_vdp",
	.judges_late_capture = true,
	.task = BN_TASK_DBP,
	.title = "Dead Battery Provision: unconnected, a 1 s average above ISUSP twice in a row "
		 "only while D+ is at VDP_SRC",
	.clause = "CP 6.16",
	.limit = "ISUSP",
	.persistence = "two consecutive TSUSP_AVG (1 s) averages from VBUS on; D+ at VDP_SRC changes "
		       "after 1 ms (3 samples)",
	.needs_channels = (1u << BN_CH_IBUS) | (1u << BN_CH_DP),
	.needs_events = SESSION_EVENTS | CONNECT_EVENTS,
	.min_rate_hz = DBP_MIN_RATE_HZ,
	.ports = BN_PORT_BIT(BN_PORT_SDP),
	.needs_decl = BN_DECL_DBP | BN_DECL_DEAD_BATTERY,
	.priv_size = sizeof(struct isusp_priv),
	.begin = isusp_begin,
	.sample = isusp_sample,
	.hold = isusp_hold,
	.event = isusp_event,
	.end = isusp_end,
};

/* ---- bc12.dbp.con_wkb ---- */

/* A 1 s average against ISUSP: clearly at or below it, clearly above, or
 * within its U. */
enum quiet { Q_NONE = 0, Q_QUIET, Q_LOUD, Q_UNSURE };

struct wkb_priv {
	struct dbp_state st;
	double isusp;
	bn_time_us deadline_us;
	bool session_seen, decided, late;
	bn_time_us win_us;      /* TSUSP_AVG max */
	struct bn_block w;      /* its windows of IBUS, from VBUS on */
	enum quiet q;           /* the last full window */
	double q_a, q_u;
	bn_time_us quiet_since, t_connect, t_last;
	double measured, u_s;
	const char *how;
};

static void wkb_begin(void *priv, const struct bn_check_ctx *ctx)
{
	struct wkb_priv *p = priv;

	st_begin(&p->st, ctx);
	p->isusp = bn_limits_max(ctx->lim, "ISUSP");
	p->deadline_us = bn_time_from_s(bn_limits_max(ctx->lim, "TSVLD_CON_WKB"));
	p->win_us = bn_time_from_s(bn_limits_max(ctx->lim, "TSUSP_AVG"));
}

static void wkb_event(void *priv, const struct bn_cev *ev)
{
	struct wkb_priv *p = priv;

	if (p->session_seen && ev->kind == BN_CEV_VBUS_ON)
		return;
	if (p->decided)
		return;
	if (st_event(&p->st, ev)) {
		p->session_seen = true;
		bn_block_start(&p->w, ev->t_us, p->win_us);
	}
	if (ev->kind == BN_CEV_CONNECT && p->st.on)
		p->t_connect = ev->t_us;
}

static bool wkb_ok_now(struct wkb_priv *p)
{
	double u_att = bn_ctx_u_edge(p->st.ctx, BN_CH_VBUS, 0);

	if (p->st.connected) {
		/* the connect is the host's event; attach is dated by a sample */
		p->measured = bn_time_to_s(p->t_connect - p->st.t_att);
		p->u_s = bn_u_expand(1, &u_att);
		p->how = "connected";
		return true;
	}
	if (p->q == Q_QUIET) {
		/* the draw fell somewhere in the window before the first quiet one */
		double u[2] = { u_att, bn_time_to_s(p->w.len_us) / sqrt(12.0) };

		p->measured = bn_time_to_s(p->quiet_since - p->st.t_att);
		p->u_s = bn_u_expand(2, u);
		p->how = "at ISUSP";
		return true;
	}
	return false;
}

/* Judge a window that ended. */
static void wkb_window(void *user, const struct bn_block *w)
{
	struct wkb_priv *p = user;
	double a = bn_block_mean(w, 0);
	double u = bn_level_U(p->st.ctx, BN_CH_IBUS, a, w->n);
	enum quiet q = a + u < p->isusp ? Q_QUIET : a - u > p->isusp ? Q_LOUD : Q_UNSURE;

	if (q == Q_QUIET && p->q != Q_QUIET)
		p->quiet_since = w->t0;
	p->q = q;
	p->q_a = a;
	p->q_u = u;
}

/* The sample at t, past the deadline, decides. */
static void wkb_decide(struct wkb_priv *p, bn_time_us t)
{
	p->decided = true;
	if (!wkb_ok_now(p)) {
		p->late = true;
		p->measured = bn_time_to_s(t - p->st.t_att);
	}
}

/* n equal samples after attach. */
static void wkb_run(struct wkb_priv *p, const bn_time_us *t, long n, double i)
{
	long due, last;

	/* Samples after the one at the deadline are not seen. */
	due = bn_first_at(t, 0, n, p->st.t_att + p->deadline_us);
	last = due < n ? due + 1 : n;
	bn_block_run(&p->w, t, last, i, 0.0, true, wkb_window, p);
	p->t_last = t[last - 1];
	if (due < n)
		wkb_decide(p, t[due]);
}

static void wkb_hold(void *priv, const bn_time_us *t, long n, const struct bn_sample *s)
{
	struct wkb_priv *p = priv;
	double i = s->v[BN_CH_IBUS];
	long k = 0;

	if (!p->st.on || p->decided)
		return;
	/* Before attach, sample by sample (a few ms): the windows run from
	 * VBUS on, the deadline from attach. */
	for (; k < n && !p->st.attached; k++) {
		st_sample(&p->st, t[k], s);
		if (p->st.attached)
			break;
		p->t_last = t[k];
		bn_block_run(&p->w, &t[k], 1, i, 0.0, true, wkb_window, p);
	}
	if (k < n)
		wkb_run(p, t + k, n - k, i);
}

static void wkb_sample(void *priv, bn_time_us t, const struct bn_sample *s)
{
	wkb_hold(priv, &t, 1, s);
}

static void wkb_end(void *priv, bn_time_us t_end_us, struct bn_result *res)
{
	struct wkb_priv *p = priv;
	double lim = bn_time_to_s(p->deadline_us);

	if (st_unattached(&p->st, p->session_seen, t_end_us, res))
		return;
	bn_result_window(res, p->st.t_att, p->t_last);
	if (!p->decided && !wkb_ok_now(p)) {
		bn_result_inconclusive(res, "the capture (%.1f s after VBUS valid) is shorter than TSVLD_CON_WKB "
					    "(%.0f s) and the device neither connected nor fell to ISUSP",
				       bn_time_to_s(p->t_last - p->st.t_att), lim);
		return;
	}
	if (p->late && p->q == Q_UNSURE) {
		bn_result_measured(res, p->measured, "s");
		bn_result_inconclusive(res, "within measurement uncertainty: %.0f s after VBUS valid the device "
				       "had not connected and its 1 s average (%.2f mA, U = %.2f mA) is within U "
				       "of ISUSP max", lim, p->q_a * 1e3, p->q_u * 1e3);
		return;
	}
	if (p->late) {
		/* an event, not a level: at the deadline it was neither (the
		 * measured value is the deadline itself at the sample rate) */
		bn_result_judge(res, p->measured, NAN, lim, "s");
		bn_result_fail(res, "%.0f s after VBUS valid the device had neither connected nor fallen to "
			       "ISUSP (1 s average %.2f mA, U = %.2f mA)", lim, p->q_a * 1e3, p->q_u * 1e3);
		return;
	}
	bn_result_judge_u(res, p->measured, p->u_s, NAN, lim, "s");
	st_att_check(&p->st, res, p->measured, lim);
	if (res->verdict == BN_VERDICT_FAIL)
		bn_result_fail(res, "the device %s only %.1f s after VBUS valid", p->how, p->measured);
}

static const struct bn_rule rule_con_wkb = {
	.id = "bc12.dbp.con_wkb",
	.judges_late_capture = true,
	.task = BN_TASK_DBP,
	.title = "Dead Battery Provision: connect, or fall to ISUSP, by TSVLD_CON_WKB after attach",
	.clause = "CP 6.16",
	.limit = "TSVLD_CON_WKB",
	.persistence = "TSUSP_AVG (1 s) averages of IBUS below ISUSP by more than U; from VBUS valid "
		       "(1 ms, 3 samples)",
	.needs_channels = (1u << BN_CH_VBUS) | (1u << BN_CH_IBUS),
	.needs_events = SESSION_EVENTS | CONNECT_EVENTS,
	.min_rate_hz = DBP_MIN_RATE_HZ,
	.ports = BN_PORT_BIT(BN_PORT_SDP),
	.needs_decl = BN_DECL_DBP | BN_DECL_DEAD_BATTERY,
	.priv_size = sizeof(struct wkb_priv),
	.begin = wkb_begin,
	.sample = wkb_sample,
	.hold = wkb_hold,
	.event = wkb_event,
	.end = wkb_end,
};

/* ---- bc12.dbp.vdpsrc_con ---- */

struct vcon_priv {
	struct dbp_state st;
	bn_time_us lim_us;
	bool held;              /* the current D+ stretch is VDP_SRC */
	bool pending;
	bn_time_us t_off;
	long judged;
	bn_time_us worst_us, worst_t0, worst_t1;
	bool worst_open;        /* the worst had no connect at all */
	bn_time_us t_last;
};

static void vcon_begin(void *priv, const struct bn_check_ctx *ctx)
{
	struct vcon_priv *p = priv;

	st_begin(&p->st, ctx);
	p->lim_us = bn_time_from_s(bn_limits_max(ctx->lim, "TDBP_VDPSRC_CON"));
	p->worst_us = -1;
}

static void vcon_judge(struct vcon_priv *p, bn_time_us d, bn_time_us t0, bool open)
{
	p->judged++;
	if (d > p->worst_us) {
		p->worst_us = d;
		p->worst_t0 = t0;
		p->worst_t1 = t0 + d;
		p->worst_open = open;
	}
}

static void vcon_event(void *priv, const struct bn_cev *ev)
{
	struct vcon_priv *p = priv;
	bool was_on = p->st.on;

	if (ev->kind == BN_CEV_CONNECT && was_on) {
		if (p->pending)
			vcon_judge(p, ev->t_us - p->t_off, p->t_off, false);
		else if (p->held)
			/* The pull-up came while D+ was still at VDP_SRC (its
			 * leaving it had not held the persistence yet). */
			vcon_judge(p, 0, ev->t_us, false);
		p->pending = false;
	}
	if (ev->kind == BN_CEV_VBUS_OFF && p->pending) {
		/* The session ended: judged only if the time had already run out. */
		if (ev->t_us - p->t_off > p->lim_us)
			vcon_judge(p, ev->t_us - p->t_off, p->t_off, true);
		p->pending = false;
	}
	st_event(&p->st, ev);
	if (ev->kind == BN_CEV_VBUS_ON || ev->kind == BN_CEV_VBUS_OFF)
		p->held = false;
}

static void vcon_sample(void *priv, bn_time_us t, const struct bn_sample *s)
{
	struct vcon_priv *p = priv;
	bool held;

	if (!p->st.on)
		return;
	p->t_last = t;
	st_sample(&p->st, t, s);
	held = st_held(&p->st, t);
	if (p->held && !p->st.rng.state && !p->st.connected && !p->pending) {
		/* VDP_SRC went off: dated at D+'s first sample out of the range */
		p->pending = true;
		p->t_off = p->st.range_off;
	}
	p->held = held;
}

/* Sample by sample: a run can hold the range's change, and its TVDPSRC_ON. */
static void vcon_hold(void *priv, const bn_time_us *t, long n, const struct bn_sample *s)
{
	struct vcon_priv *p = priv;

	if (!p->st.on)
		return;
	for (long k = 0; k < n; k++) {
		vcon_sample(p, t[k], s);
		/* the rest of the run changes nothing but the last time seen
		 * (test_checks_dbp: the same as sample by sample on noise) */
		if (k + 1 < n && st_steady(&p->st, t[k], s) && p->held == st_held(&p->st, t[k])) {
			p->t_last = t[n - 1];
			return;
		}
	}
}

static void vcon_end(void *priv, bn_time_us t_end_us, struct bn_result *res)
{
	struct vcon_priv *p = priv;
	double u;

	if (p->pending && p->t_last - p->t_off > p->lim_us) {
		vcon_judge(p, p->t_last - p->t_off, p->t_off, true);
		p->pending = false;
	}
	if (!p->judged) {
		if (p->pending)
			bn_result_inconclusive(res, "the capture ends %.3f s after VDP_SRC went off, before a connect",
					       bn_time_to_s(p->t_last - p->t_off));
		else
			bn_result_inconclusive(res, "VDP_SRC never went off with VBUS on and the device unconnected");
		bn_result_window(res, 0, t_end_us);
		return;
	}
	if (st_gnd_inconclusive(&p->st, res)) {
		bn_result_window(res, 0, t_end_us);
		return;
	}
	/* VDP_SRC's end is dated by a D+ sample; the connect is the host's event. */
	u = bn_ctx_u_edge(p->st.ctx, BN_CH_DP, 0);
	bn_result_judge_u(res, bn_time_to_s(p->worst_us), bn_u_expand(1, &u), NAN, bn_time_to_s(p->lim_us), "s");
	bn_result_window(res, p->worst_t0, p->worst_t1);
	if (res->verdict == BN_VERDICT_FAIL)
		bn_result_fail(res, p->worst_open ? "VDP_SRC went off at %.3f s and the device had not connected %.3f s later"
						  : "VDP_SRC went off at %.3f s and the device connected only %.3f s later",
			       bn_time_to_s(p->worst_t0), bn_time_to_s(p->worst_us));
}

static const struct bn_rule rule_vdpsrc_con = {
	.id = "bc12.dbp.vdpsrc_con",
	.judges_late_capture = true,
	.task = BN_TASK_DBP,
	.title = "Dead Battery Provision: connect within TDBP_VDPSRC_CON after VDP_SRC goes off",
	.clause = "CP 6.16",
	.limit = "TDBP_VDPSRC_CON",
	.persistence = "D+ leaves VDP_SRC (device ground) for 1 ms (3 samples), dated at its first "
		       "sample; VBUS on to off",
	.needs_channels = 1u << BN_CH_DP,
	.needs_events = SESSION_EVENTS | CONNECT_EVENTS,
	.min_rate_hz = DBP_MIN_RATE_HZ,
	.ports = BN_PORT_BIT(BN_PORT_SDP),
	.needs_decl = BN_DECL_DBP | BN_DECL_DEAD_BATTERY,
	.priv_size = sizeof(struct vcon_priv),
	.begin = vcon_begin,
	.sample = vcon_sample,
	.hold = vcon_hold,
	.event = vcon_event,
	.end = vcon_end,
};

const struct bn_rule *const bn_rules_dbp[] = {
	&rule_vdp_src_on,
	&rule_iunit,
	&rule_isusp_unless_vdp,
	&rule_con_wkb,
	&rule_vdpsrc_con,
	NULL,
};
