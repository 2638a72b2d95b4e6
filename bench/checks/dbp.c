/* Task 5: Dead Battery Provision on an SDP (CP 6.16; bc12-limits.md, the
 * device's detection sequence, step 8). Applies to a device that declares
 * DBP and whose battery starts dead.
 *
 * Terms, from the samples and events only:
 *   VBUS on       between the bench's vbus_on and vbus_off events.
 *   connected     between the host's connect and disconnect events.
 *   VDP_SRC on    D+ within [VDP_SRC min, VDP_SRC max], held for at least
 *                 TVDPSRC_ON min (the shortest time a device holds VDP_SRC):
 *                 D+ passing through the range on its way to a pull-up, or
 *                 falling at a disconnect, is not VDP_SRC.
 *   1 s average   consecutive TSUSP_AVG max (1 s) windows of IBUS, aligned to
 *                 VBUS on (or to the disconnect that ends a connection), as
 *                 testers average suspend current. A window cut short by a
 *                 connect is dropped.
 *   isusp_unless_vdp judges, per window, the 1 s average of the current drawn
 *                 while D+ is NOT at VDP_SRC (samples at VDP_SRC count as 0):
 *                 above ISUSP max in two consecutive windows fails. A device
 *                 at VDP_SRC all second is judged 0; one never at VDP_SRC is
 *                 judged by its plain 1 s average, as the tester does.
 * Memory is a handful of running values per rule. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "checks/check.h"
#include "checks/hold.h"
#include "checks/rules.h"

/* Testers sample every 1 ms. */
#define DBP_MIN_RATE_HZ 1000.0

#define SESSION_EVENTS (BN_CEV_BIT(BN_CEV_VBUS_ON) | BN_CEV_BIT(BN_CEV_VBUS_OFF))
#define CONNECT_EVENTS (BN_CEV_BIT(BN_CEV_CONNECT) | BN_CEV_BIT(BN_CEV_DISCONNECT))

/* What every DBP rule tracks. */
struct dbp_state {
	double vdp_min, vdp_max;
	bn_time_us hold_us;
	bool on, connected;
	bn_time_us t_on;
	bool in_range;
	bn_time_us range_since;
};

static void st_begin(struct dbp_state *st, const struct bn_check_ctx *ctx)
{
	st->vdp_min = bn_limits_min(ctx->lim, "VDP_SRC");
	st->vdp_max = bn_limits_max(ctx->lim, "VDP_SRC");
	st->hold_us = bn_time_from_s(bn_limits_min(ctx->lim, "TVDPSRC_ON"));
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
		st->in_range = false;
		st->connected = false;
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

/* Track the D+ range; returns true while VDP_SRC is on (held). */
static bool st_dp(struct dbp_state *st, bn_time_us t, double dp)
{
	bool inr = dp >= st->vdp_min && dp <= st->vdp_max;

	if (inr && !st->in_range)
		st->range_since = t;
	st->in_range = inr;
	return inr && t - st->range_since >= st->hold_us;
}


/* st_dp() over n samples of the same D+: only the first can move the
 * range state; returns the index from which VDP_SRC is on (n: not in
 * the run). */
static long st_dp_hold(struct dbp_state *st, const bn_time_us *t, long n, double dp)
{
	st_dp(st, t[0], dp);
	if (!st->in_range)
		return n;
	return bn_first_at(t, 0, n, st->range_since + st->hold_us);
}


/* Consecutive fixed windows of IBUS. */
struct win1s {
	bn_time_us len_us, t0;
	struct bn_rsum sum;
	struct bn_rsum sum_off;    /* IBUS summed over the samples with D+ not at VDP_SRC */
	long n;
	bool open;
};

static void win_start(struct win1s *w, bn_time_us t0)
{
	w->t0 = t0;
	w->sum = w->sum_off = (struct bn_rsum){ 0 };
	w->n = 0;
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
	bool held;

	if (!p->st.on || p->decided)
		return;
	p->t_last = t;
	held = st_dp(&p->st, t, s->v[BN_CH_DP]);
	if (t < p->st.t_on + p->deadline_us)
		return;
	if (held) {
		p->decided = true;
		p->onset = p->st.range_since;
	} else if (!p->st.in_range && !p->missed) {
		p->missed = true;
		p->dp_at_deadline = s->v[BN_CH_DP];
		p->conn_at_deadline = p->st.connected;
	}
}

static void vdpon_hold(void *priv, const bn_time_us *t, long n, const struct bn_sample *s)
{
	struct vdpon_priv *p = priv;
	long held, due, k;

	if (!p->st.on || p->decided)
		return;
	held = st_dp_hold(&p->st, t, n, s->v[BN_CH_DP]);
	due = bn_first_at(t, 0, n, p->st.t_on + p->deadline_us);
	/* The first sample both held and due decides; the due ones before it
	 * can only miss. */
	k = held > due ? held : due;
	if (due < k && !p->st.in_range && !p->missed) {
		p->missed = true;
		p->dp_at_deadline = s->v[BN_CH_DP];
		p->conn_at_deadline = p->st.connected;
	}
	if (k < n) {
		p->t_last = t[k];
		p->decided = true;
		p->onset = p->st.range_since;
	} else {
		p->t_last = t[n - 1];
	}
}

static void vdpon_end(void *priv, bn_time_us t_end_us, struct bn_result *res)
{
	struct vdpon_priv *p = priv;
	double lim = bn_time_to_s(p->deadline_us);

	if (!p->session_seen) {
		bn_result_inconclusive(res, "VBUS was never on");
		bn_result_window(res, 0, t_end_us);
		return;
	}
	bn_result_window(res, p->st.t_on, p->st.t_on + p->deadline_us);
	if (p->decided) {
		bn_result_judge(res, bn_time_to_s(p->onset - p->st.t_on), NAN, lim, "s");
		if (res->verdict == BN_VERDICT_FAIL)
			bn_result_fail(res, "VDP_SRC came on only %.3f s after VBUS on (D+ was %.3f V%s at %.3f s)",
				       bn_time_to_s(p->onset - p->st.t_on), p->dp_at_deadline,
				       p->conn_at_deadline ? ", connected" : "", lim);
		return;
	}
	if (p->missed) {
		bn_result_fail(res, "D+ was not at VDP_SRC %.3f s after VBUS on (%.3f V%s), and VDP_SRC never came on later",
			       lim, p->dp_at_deadline,
			       p->conn_at_deadline ? ", the device had connected" : "");
		return;
	}
	bn_result_inconclusive(res, "the capture (%.3f s after VBUS on) ends before VDP_SRC could be judged at %.3f s",
			       bn_time_to_s(p->t_last - p->st.t_on), lim);
}

static const struct bn_rule rule_vdp_src_on = {
	.id = "bc12.dbp.vdp_src_on",
	.task = BN_TASK_DBP,
	.title = "Dead Battery Provision: VDP_SRC on D+ within TDBP_ATT_VDPSRC of attach",
	.clause = "CP 6.16",
	.limit = "TDBP_ATT_VDPSRC",
	.needs_channels = 1u << BN_CH_DP,
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
	bool any;
	double max_i;
	bn_time_us t_max, t_first, t_last;
};

static void iunit_begin(void *priv, const struct bn_check_ctx *ctx)
{
	struct iunit_priv *p = priv;

	st_begin(&p->st, ctx);
	p->imax = bn_limits_max(ctx->lim, "IUNIT");
	p->max_i = -INFINITY;
}

static void iunit_event(void *priv, const struct bn_cev *ev)
{
	st_event(&((struct iunit_priv *)priv)->st, ev);
}

static void iunit_sample(void *priv, bn_time_us t, const struct bn_sample *s)
{
	struct iunit_priv *p = priv;

	if (!p->st.on || p->st.connected)
		return;
	if (!p->any)
		p->t_first = t;
	p->any = true;
	p->t_last = t;
	if (s->v[BN_CH_IBUS] > p->max_i) {
		p->max_i = s->v[BN_CH_IBUS];
		p->t_max = t;
	}
}

/* Equal samples after the first change only t_last. */
static void iunit_hold(void *priv, const bn_time_us *t, long n, const struct bn_sample *s)
{
	struct iunit_priv *p = priv;

	if (!p->st.on || p->st.connected)
		return;
	iunit_sample(p, t[0], s);
	p->t_last = t[n - 1];
}

static void iunit_end(void *priv, bn_time_us t_end_us, struct bn_result *res)
{
	struct iunit_priv *p = priv;

	if (!p->any) {
		bn_result_inconclusive(res, "the device was never unconnected with VBUS on");
		bn_result_window(res, 0, t_end_us);
		return;
	}
	bn_result_judge(res, p->max_i, NAN, p->imax, "A");
	bn_result_window(res, p->t_first, p->t_last);
	if (res->verdict == BN_VERDICT_FAIL) {
		bn_result_window(res, p->t_max, p->t_max);
		bn_result_fail(res, "drew %.1f mA unconnected at %.3f s (instantaneous sample), above IUNIT max %.0f mA",
			       p->max_i * 1e3, bn_time_to_s(p->t_max), p->imax * 1e3);
	}
}

static const struct bn_rule rule_iunit = {
	.id = "bc12.dbp.iunit",
	.task = BN_TASK_DBP,
	.title = "Dead Battery Provision: at most IUNIT while unconnected (every sample)",
	.clause = "CP 6.16",
	.limit = "IUNIT",
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
	double prev_a;
	long windows;
	double worst;           /* highest min of two consecutive off-VDP_SRC averages */
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
	double a = bn_rsum_total(&p->w.sum_off) / (double)p->w.n;

	p->windows++;
	if (p->prev_valid) {
		double m = fmin(p->prev_a, a);

		if (m > p->worst) {
			p->worst = m;
			p->worst_t0 = p->w.t0 - p->w.len_us;
			p->worst_t1 = p->w.t0 + p->w.len_us;
		}
		if (m > p->isusp)
			p->violations++;
	}
	p->prev_a = a;
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

static void isusp_sample(void *priv, bn_time_us t, const struct bn_sample *s)
{
	struct isusp_priv *p = priv;
	bool vdp;

	if (!p->st.on)
		return;
	vdp = st_dp(&p->st, t, s->v[BN_CH_DP]);
	if (!p->w.open || p->st.connected)
		return;
	isusp_windows_to(p, t);
	bn_rsum_add(&p->w.sum, s->v[BN_CH_IBUS], 1);
	p->w.n++;
	/* At VDP_SRC, sample by sample: D+ in the range (what a tester's
	 * comparator sees). */
	(void)vdp;
	if (!p->st.in_range)
		bn_rsum_add(&p->w.sum_off, s->v[BN_CH_IBUS], 1);
}

static void isusp_hold(void *priv, const bn_time_us *t, long n, const struct bn_sample *s)
{
	struct isusp_priv *p = priv;
	double i = s->v[BN_CH_IBUS];

	if (!p->st.on)
		return;
	st_dp(&p->st, t[0], s->v[BN_CH_DP]);  /* the later equal ones move nothing */
	if (!p->w.open || p->st.connected)
		return;
	for (long k = 0, j; k < n; k = j) {
		isusp_windows_to(p, t[k]);
		j = bn_first_at(t, k + 1, n, p->w.t0 + p->w.len_us);
		bn_rsum_add(&p->w.sum, i, j - k);
		p->w.n += j - k;
		if (!p->st.in_range)
			bn_rsum_add(&p->w.sum_off, i, j - k);
	}
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
	bn_result_figure(res, "windows", (double)p->windows, "");
	bn_result_judge(res, p->worst, NAN, p->isusp, "A");
	bn_result_window(res, p->worst_t0, p->worst_t1);
	if (res->verdict == BN_VERDICT_FAIL)
		bn_result_fail(res, "the 1 s average stayed above ISUSP max twice in a row (%.1f mA) "
				    "unconnected with D+ not at VDP_SRC (%ld time(s))",
			       p->worst * 1e3, p->violations);
}

static const struct bn_rule rule_isusp_unless_vdp = {
	.id = "bc12.dbp.isusp_unless_vdp",
	.task = BN_TASK_DBP,
	.title = "Dead Battery Provision: unconnected, a 1 s average above ISUSP twice in a row "
		 "only while D+ is at VDP_SRC",
	.clause = "CP 6.16",
	.limit = "ISUSP",
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

struct wkb_priv {
	struct dbp_state st;
	double isusp;
	bn_time_us deadline_us;
	bool session_seen, decided, late;
	struct win1s w;
	bool have_win, quiet;
	bn_time_us quiet_since, t_connect, t_last;
	double measured;
	const char *how;
};

static void wkb_begin(void *priv, const struct bn_check_ctx *ctx)
{
	struct wkb_priv *p = priv;

	st_begin(&p->st, ctx);
	p->isusp = bn_limits_max(ctx->lim, "ISUSP");
	p->deadline_us = bn_time_from_s(bn_limits_max(ctx->lim, "TSVLD_CON_WKB"));
	p->w.len_us = bn_time_from_s(bn_limits_max(ctx->lim, "TSUSP_AVG"));
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
		win_start(&p->w, ev->t_us);
	}
	if (ev->kind == BN_CEV_CONNECT && p->st.on)
		p->t_connect = ev->t_us;
}

static bool wkb_ok_now(struct wkb_priv *p)
{
	if (p->st.connected) {
		p->measured = bn_time_to_s(p->t_connect - p->st.t_on);
		p->how = "connected";
		return true;
	}
	if (p->have_win && p->quiet) {
		p->measured = bn_time_to_s(p->quiet_since - p->st.t_on);
		p->how = "at ISUSP";
		return true;
	}
	return false;
}

/* Judge the windows that end at or before t. */
static void wkb_windows_to(struct wkb_priv *p, bn_time_us t)
{
	while (t >= p->w.t0 + p->w.len_us) {
		if (p->w.n > 0) {
			bool q = bn_rsum_total(&p->w.sum) / (double)p->w.n <= p->isusp;

			if (q && !p->quiet)
				p->quiet_since = p->w.t0;
			p->quiet = q;
			p->have_win = true;
		}
		win_start(&p->w, p->w.t0 + p->w.len_us);
	}
}

/* The sample at t, past the deadline, decides. */
static void wkb_decide(struct wkb_priv *p, bn_time_us t)
{
	p->decided = true;
	if (!wkb_ok_now(p)) {
		p->late = true;
		p->measured = bn_time_to_s(t - p->st.t_on);
	}
}

static void wkb_sample(void *priv, bn_time_us t, const struct bn_sample *s)
{
	struct wkb_priv *p = priv;

	if (!p->st.on || p->decided)
		return;
	p->t_last = t;
	wkb_windows_to(p, t);
	bn_rsum_add(&p->w.sum, s->v[BN_CH_IBUS], 1);
	p->w.n++;
	if (t >= p->st.t_on + p->deadline_us)
		wkb_decide(p, t);
}

static void wkb_hold(void *priv, const bn_time_us *t, long n, const struct bn_sample *s)
{
	struct wkb_priv *p = priv;
	double i = s->v[BN_CH_IBUS];
	long due, last;

	if (!p->st.on || p->decided)
		return;
	/* Samples after the one at the deadline are not seen. */
	due = bn_first_at(t, 0, n, p->st.t_on + p->deadline_us);
	last = due < n ? due + 1 : n;
	for (long k = 0, j; k < last; k = j) {
		wkb_windows_to(p, t[k]);
		j = bn_first_at(t, k + 1, last, p->w.t0 + p->w.len_us);
		bn_rsum_add(&p->w.sum, i, j - k);
		p->w.n += j - k;
	}
	p->t_last = t[last - 1];
	if (due < n)
		wkb_decide(p, t[due]);
}

static void wkb_end(void *priv, bn_time_us t_end_us, struct bn_result *res)
{
	struct wkb_priv *p = priv;
	double lim = bn_time_to_s(p->deadline_us);

	if (!p->session_seen) {
		bn_result_inconclusive(res, "VBUS was never on");
		bn_result_window(res, 0, t_end_us);
		return;
	}
	bn_result_window(res, p->st.t_on, p->t_last);
	if (!p->decided && !wkb_ok_now(p)) {
		bn_result_inconclusive(res, "the capture (%.1f s after VBUS on) is shorter than TSVLD_CON_WKB "
					    "(%.0f s) and the device neither connected nor fell to ISUSP",
				       bn_time_to_s(p->t_last - p->st.t_on), lim);
		return;
	}
	bn_result_judge(res, p->measured, NAN, lim, "s");
	/* Late: at the deadline it was neither; the measured value is when
	 * that was seen (the deadline itself at the sample rate). */
	if (p->late || res->verdict == BN_VERDICT_FAIL)
		bn_result_fail(res, "%.0f s after VBUS on the device had neither connected nor fallen to ISUSP",
			       lim);
}

static const struct bn_rule rule_con_wkb = {
	.id = "bc12.dbp.con_wkb",
	.task = BN_TASK_DBP,
	.title = "Dead Battery Provision: connect, or fall to ISUSP, by TSVLD_CON_WKB after attach",
	.clause = "CP 6.16",
	.limit = "TSVLD_CON_WKB",
	.needs_channels = 1u << BN_CH_IBUS,
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
			/* The pull-up came while D+ was still at VDP_SRC. */
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
	held = st_dp(&p->st, t, s->v[BN_CH_DP]);
	if (p->held && !p->st.in_range && !p->st.connected && !p->pending) {
		p->pending = true;
		p->t_off = t;
	}
	p->held = held;
}

/* Going off needs a held sample then one out of range: equal samples after
 * the first cannot start a pending wait (held implies in range), and leave
 * held as it is at the last one. So the first and the last say it all. */
static void vcon_hold(void *priv, const bn_time_us *t, long n, const struct bn_sample *s)
{
	vcon_sample(priv, t[0], s);
	if (n > 1)
		vcon_sample(priv, t[n - 1], s);
}

static void vcon_end(void *priv, bn_time_us t_end_us, struct bn_result *res)
{
	struct vcon_priv *p = priv;

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
	bn_result_judge(res, bn_time_to_s(p->worst_us), NAN, bn_time_to_s(p->lim_us), "s");
	bn_result_window(res, p->worst_t0, p->worst_t1);
	if (res->verdict == BN_VERDICT_FAIL)
		bn_result_fail(res, p->worst_open ? "VDP_SRC went off at %.3f s and the device had not connected %.3f s later"
						  : "VDP_SRC went off at %.3f s and the device connected only %.3f s later",
			       bn_time_to_s(p->worst_t0), bn_time_to_s(p->worst_us));
}

static const struct bn_rule rule_vdpsrc_con = {
	.id = "bc12.dbp.vdpsrc_con",
	.task = BN_TASK_DBP,
	.title = "Dead Battery Provision: connect within TDBP_VDPSRC_CON after VDP_SRC goes off",
	.clause = "CP 6.16",
	.limit = "TDBP_VDPSRC_CON",
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
