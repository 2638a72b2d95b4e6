/* Task 3: obey the host's choice. On an SDP the device draws at most ISUSP
 * unconnected or suspended, IUNIT unconfigured and the chosen
 * configuration's bMaxPower (ICFG_MAX at most) configured; on an SDP or a
 * CDP it connects within TSVLD_CON_PWD of VBUS valid.
 *
 * Where they apply: the ISUSP, IUNIT and bMaxPower rules are judged on an
 * SDP only. BC-1.2 also makes them ACA-C rules as far as the host's share
 * goes, but an ACA supplies the charging current itself (IDEV_CHG), which
 * the reference firmware draws on ACA-C; a capture cannot tell the host's
 * share from the ACA's, so these rules do not judge an ACA-C.
 *
 * Every rule judges from IBUS/VBUS samples and the bench's events only.
 * Memory is fixed: running sums, and for sliding averages a ring of
 * WAVG_BINS bins whose width is the window divided by WAVG_BINS (whatever
 * the sample rate). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "checks/check.h"
#include "checks/hold.h"
#include "checks/rules.h"

/* The testers sample every 1 ms (TVBUS_AVG note in the limits file); the
 * current windows below (TVBUS_AVG, TSUSP_AVG, TSUSP_ENTER) need that
 * resolution. A bench requirement, not a BC-1.2 limit. */
#define HOST_MIN_RATE_HZ 1000.0

/* The compliance testers judge the unconfigured draw as a TVBUS_AVG
 * average that starts 150 ms after D+ rises (USB-IF BC-1.2 Compliance
 * Plan 6.8, SDP detection, as the public re-implementation of the
 * compliance scripts does it; docs/limits.md, "The device's detection
 * sequence", step 6). Not a BC-1.2 limit, so not in the limits file. */
#define UNCONF_TESTER_DELAY_US (150 * BN_US_PER_MS)

#define SDP_BIT BN_PORT_BIT(BN_PORT_SDP)

/* ---- shared helpers ---- */

/* excludes_decl means "any of these bits"; the DBP exemption needs both
 * DBP and a dead battery, so the rules test it themselves. */
static bool dbp_dead(const struct bn_check_ctx *ctx)
{
	return (ctx->decl & (BN_DECL_DBP | BN_DECL_DEAD_BATTERY)) ==
	       (BN_DECL_DBP | BN_DECL_DEAD_BATTERY);
}

/* A port with no D+ pull-down (RDP_DWN) has no host behind it (the
 * float port: data lines open): nothing can see the device connect, so
 * the connect rules have nothing to judge. bn_check_ctx says 0 for
 * "not fitted" and "unknown" alike. */
static bool no_host(const struct bn_check_ctx *ctx)
{
	return !(ctx->dp_pulldown_ohm > 0);
}

/* A mean current, rounded to 1 nA (far below any bench's resolution) so
 * that a draw exactly at a limit is not failed by rounding in the sum. */
static double mean_a(double sum, long n)
{
	return round(sum / (double)n * 1e9) / 1e9;
}

static bool ibus_of(const struct bn_sample *s, double *i)
{
	*i = s->v[BN_CH_IBUS];
	return !isnan(*i);
}

/* A sliding average of window win_us over one phase (a stretch of the run
 * where one limit holds), at bin resolution: the phase is cut into bins of
 * win_us / WAVG_BINS from its start; every window of WAVG_BINS whole bins
 * inside the phase is judged. A phase shorter than the window is averaged
 * whole; the last, partial bin of a longer phase closes a last window of
 * WAVG_BINS - 1 whole bins plus that part. The phase result is the
 * highest window average and where it was. */
#define WAVG_BINS 50

struct wavg {
	bool ok;            /* the window came from the limits file */
	bn_time_us win_us, bin_us;
	bool active;
	bn_time_us t_start;
	long bin;           /* index of the open bin */
	struct bn_rsum cur;
	long cur_n;
	double sum[WAVG_BINS];
	long n[WAVG_BINS];
	long closed;        /* bins closed in this phase */
	/* the last min(closed, WAVG_BINS) bins: kept as a running sum, summed
	 * afresh every WAVG_BINS closes so that rounding cannot pile up */
	double win_sum;
	long win_n;
	/* the phase's worst window */
	bool have;
	double max;
	bn_time_us w0, w1;
};

static void wavg_init(struct wavg *w, double win_s)
{
	w->ok = !isnan(win_s) && win_s > 0;
	w->win_us = w->ok ? bn_time_from_s(win_s) : BN_US_PER_S;
	w->bin_us = w->win_us / WAVG_BINS;
	if (w->bin_us < 1)
		w->bin_us = 1;
}

static void wavg_start(struct wavg *w, bn_time_us t)
{
	w->active = true;
	w->t_start = t;
	w->bin = 0;
	w->cur = (struct bn_rsum){ 0 };
	w->cur_n = 0;
	memset(w->sum, 0, sizeof(w->sum));
	memset(w->n, 0, sizeof(w->n));
	w->closed = 0;
	w->win_sum = 0;
	w->win_n = 0;
	w->have = false;
	w->max = -INFINITY;
}

/* Judge the last m closed bins (the window sum), ending at t1. */
static void wavg_eval(struct wavg *w, long m, bn_time_us t1)
{
	double a;

	if (!w->win_n)
		return;
	a = mean_a(w->win_sum, w->win_n);
	if (a <= w->max)
		return;
	w->have = true;
	w->max = a;
	w->w1 = t1;
	w->w0 = w->t_start + (w->closed - m) * w->bin_us;
}

/* Store the open bin in the ring, the window's oldest dropping out. */
static void wavg_push(struct wavg *w)
{
	long idx = w->closed % WAVG_BINS;
	double s = bn_rsum_total(&w->cur);

	if (w->closed >= WAVG_BINS) {
		w->win_sum -= w->sum[idx];
		w->win_n -= w->n[idx];
	}
	w->sum[idx] = s;
	w->n[idx] = w->cur_n;
	w->win_sum += s;
	w->win_n += w->cur_n;
	w->closed++;
	if (w->closed % WAVG_BINS == 0) {
		w->win_sum = 0;
		for (long k = WAVG_BINS - 1; k >= 0; k--)
			w->win_sum += w->sum[k];
	}
	w->cur = (struct bn_rsum){ 0 };
	w->cur_n = 0;
}

static void wavg_close(struct wavg *w)
{
	wavg_push(w);
	w->bin++;
	if (w->closed >= WAVG_BINS)
		wavg_eval(w, WAVG_BINS, w->t_start + w->closed * w->bin_us);
}

/* Make bin k (>= the open one) the open bin. */
static void wavg_to_bin(struct wavg *w, long k)
{
	if (k - w->bin > WAVG_BINS + 1) {
		/* a long gap without samples: the ring empties */
		wavg_close(w);
		memset(w->sum, 0, sizeof(w->sum));
		memset(w->n, 0, sizeof(w->n));
		w->win_sum = 0;
		w->win_n = 0;
		w->closed += k - w->bin;
		w->bin = k;
	}
	while (w->bin < k)
		wavg_close(w);
}

static void wavg_sample(struct wavg *w, bn_time_us t, double v)
{
	if (!w->active || t < w->t_start)
		return;
	wavg_to_bin(w, (long)((t - w->t_start) / w->bin_us));
	bn_rsum_add(&w->cur, v, 1);
	w->cur_n++;
}

/* n samples of v at t[0..n-1]: one step per bin they fall in. */
static void wavg_hold(struct wavg *w, const bn_time_us *t, long n, double v)
{
	if (!w->active)
		return;
	for (long k = bn_first_at(t, 0, n, w->t_start), j; k < n; k = j) {
		wavg_to_bin(w, (long)((t[k] - w->t_start) / w->bin_us));
		j = bn_first_at(t, k + 1, n, w->t_start + (bn_time_us)(w->bin + 1) * w->bin_us);
		bn_rsum_add(&w->cur, v, j - k);
		w->cur_n += j - k;
	}
}

/* End the phase at t; true if it judged anything. */
static bool wavg_stop(struct wavg *w, bn_time_us t)
{
	if (!w->active)
		return false;
	w->active = false;
	if (w->cur_n || w->closed < WAVG_BINS) {
		wavg_push(w);
		wavg_eval(w, w->closed < WAVG_BINS ? w->closed : WAVG_BINS, t);
	}
	return w->have;
}

/* The worst phase of a run, for an upper limit that may change per phase. */
struct worst {
	bool have;
	double v, lim, margin;
	bn_time_us t0, t1;
};

static void worst_add(struct worst *r, double v, double lim, bn_time_us t0, bn_time_us t1)
{
	double m = lim - v;

	if (r->have && m >= r->margin)
		return;
	r->have = true;
	r->v = v;
	r->lim = lim;
	r->margin = m;
	r->t0 = t0;
	r->t1 = t1;
}

static void worst_add_wavg(struct worst *r, const struct wavg *w, double lim)
{
	if (w->have)
		worst_add(r, w->max, lim, w->w0, w->w1);
}

/* Judge r; fill an inconclusive reason if nothing was judged. */
static bool worst_judge(const struct worst *r, struct bn_result *res, const char *what)
{
	if (!r->have) {
		bn_result_inconclusive(res, "%s", what);
		return false;
	}
	bn_result_judge(res, r->v, NAN, r->lim, "A");
	bn_result_window(res, r->t0, r->t1);
	return true;
}

static bool limit_missing(double v, const char *name, struct bn_result *res)
{
	if (!isnan(v))
		return false;
	bn_result_inconclusive(res, "the limits file gives no bound for %s", name);
	return true;
}

/* ---- bc12.host.unconnected_isusp ---- */

struct unconn_priv {
	bool skip_dbp, skip_no_host;
	double isusp;
	bool vbus, connected;
	struct wavg w;
	struct worst r;
};

static void unconn_begin(void *priv, const struct bn_check_ctx *ctx)
{
	struct unconn_priv *p = priv;

	p->skip_dbp = dbp_dead(ctx);
	p->skip_no_host = no_host(ctx);
	p->isusp = bn_limits_max(ctx->lim, "ISUSP");
	/* ISUSP is an average current: the testers average over TSUSP_AVG. */
	wavg_init(&p->w, bn_limits_max(ctx->lim, "TSUSP_AVG"));
}

static void unconn_phase_end(struct unconn_priv *p, bn_time_us t)
{
	if (wavg_stop(&p->w, t))
		worst_add_wavg(&p->r, &p->w, p->isusp);
}

static void unconn_event(void *priv, const struct bn_cev *ev)
{
	struct unconn_priv *p = priv;

	switch (ev->kind) {
	case BN_CEV_VBUS_ON:
		unconn_phase_end(p, ev->t_us);
		p->vbus = true;
		p->connected = false;
		wavg_start(&p->w, ev->t_us);
		break;
	case BN_CEV_VBUS_OFF:
		unconn_phase_end(p, ev->t_us);
		p->vbus = false;
		p->connected = false;
		break;
	case BN_CEV_CONNECT:
		unconn_phase_end(p, ev->t_us);
		p->connected = true;
		break;
	case BN_CEV_DISCONNECT:
		p->connected = false;
		if (p->vbus && !p->w.active)
			wavg_start(&p->w, ev->t_us);
		break;
	default:
		break;
	}
}

static void unconn_sample(void *priv, bn_time_us t, const struct bn_sample *s)
{
	struct unconn_priv *p = priv;
	double i;

	if (p->vbus && !p->connected && ibus_of(s, &i))
		wavg_sample(&p->w, t, i);
}

static void unconn_hold(void *priv, const bn_time_us *t, long n, const struct bn_sample *s)
{
	struct unconn_priv *p = priv;
	double i;

	if (p->vbus && !p->connected && ibus_of(s, &i))
		wavg_hold(&p->w, t, n, i);
}

static void unconn_end(void *priv, bn_time_us t_end_us, struct bn_result *res)
{
	struct unconn_priv *p = priv;

	if (p->skip_dbp) {
		res->verdict = BN_VERDICT_SKIPPED;
		snprintf(res->reason, sizeof(res->reason),
			 "a dead-battery device under Dead Battery Provision: judged by the DBP rules");
		return;
	}
	if (p->skip_no_host) {
		res->verdict = BN_VERDICT_SKIPPED;
		snprintf(res->reason, sizeof(res->reason),
			 "no host on this port (no D+ pull-down): a connect cannot be seen");
		return;
	}
	if (limit_missing(p->isusp, "ISUSP", res) || limit_missing(p->w.ok ? 0 : NAN, "TSUSP_AVG", res))
		return;
	unconn_phase_end(p, t_end_us);
	if (worst_judge(&p->r, res, "VBUS was never on while the device was unconnected") &&
	    res->verdict == BN_VERDICT_FAIL)
		bn_result_fail(res, "drew %.2f mA on average while attached but not connected (ISUSP max %.2f mA)",
			       p->r.v * 1e3, p->r.lim * 1e3);
}

static const struct bn_rule rule_unconnected_isusp = {
	.id = "bc12.host.unconnected_isusp",
	.task = BN_TASK_HOST_CHOICE,
	.title = "SDP, attached but not connected: at most ISUSP (TSUSP_AVG sliding average)",
	.clause = "CP 6.8",
	.limit = "ISUSP",
	.needs_channels = 1u << BN_CH_IBUS,
	.needs_events = BN_CEV_BIT(BN_CEV_VBUS_ON) | BN_CEV_BIT(BN_CEV_VBUS_OFF) |
			BN_CEV_BIT(BN_CEV_CONNECT) | BN_CEV_BIT(BN_CEV_DISCONNECT),
	.min_rate_hz = HOST_MIN_RATE_HZ,
	.ports = SDP_BIT,
	.uses_decl = true,
	.priv_size = sizeof(struct unconn_priv),
	.begin = unconn_begin,
	.event = unconn_event,
	.sample = unconn_sample,
	.hold = unconn_hold,
	.end = unconn_end,
};

/* ---- bc12.host.suspend_isusp ---- */

struct susp_priv {
	double isusp;
	bn_time_us enter_us;
	bool suspended;
	bn_time_us t_from;   /* suspend start + TSUSP_ENTER */
	int n_short;         /* suspends that ended before TSUSP_ENTER */
	struct wavg w;
	struct worst r;
};

static void susp_begin(void *priv, const struct bn_check_ctx *ctx)
{
	struct susp_priv *p = priv;
	double enter = bn_limits_max(ctx->lim, "TSUSP_ENTER");

	p->isusp = bn_limits_max(ctx->lim, "ISUSP");
	p->enter_us = isnan(enter) ? -1 : bn_time_from_s(enter);
	wavg_init(&p->w, bn_limits_max(ctx->lim, "TSUSP_AVG"));
}

static void susp_stop(struct susp_priv *p, bn_time_us t)
{
	if (!p->suspended)
		return;
	p->suspended = false;
	if (!p->w.active) {
		p->n_short++;
		return;
	}
	if (wavg_stop(&p->w, t))
		worst_add_wavg(&p->r, &p->w, p->isusp);
}

static void susp_event(void *priv, const struct bn_cev *ev)
{
	struct susp_priv *p = priv;

	switch (ev->kind) {
	case BN_CEV_SUSPEND:
		if (p->suspended)
			break;
		p->suspended = true;
		p->t_from = ev->t_us + p->enter_us;
		break;
	case BN_CEV_RESUME:
	case BN_CEV_DISCONNECT:
	case BN_CEV_VBUS_OFF:
		susp_stop(p, ev->t_us);
		break;
	default:
		break;
	}
}

static void susp_sample(void *priv, bn_time_us t, const struct bn_sample *s)
{
	struct susp_priv *p = priv;
	double i;

	if (!p->suspended || t < p->t_from || !ibus_of(s, &i))
		return;
	if (!p->w.active)
		wavg_start(&p->w, p->t_from);
	wavg_sample(&p->w, t, i);
}

static void susp_hold(void *priv, const bn_time_us *t, long n, const struct bn_sample *s)
{
	struct susp_priv *p = priv;
	long k;
	double i;

	if (!p->suspended || !ibus_of(s, &i))
		return;
	k = bn_first_at(t, 0, n, p->t_from);
	if (k == n)
		return;
	if (!p->w.active)
		wavg_start(&p->w, p->t_from);
	wavg_hold(&p->w, t + k, n - k, i);
}

static void susp_end(void *priv, bn_time_us t_end_us, struct bn_result *res)
{
	struct susp_priv *p = priv;

	if (limit_missing(p->isusp, "ISUSP", res) ||
	    limit_missing(p->enter_us < 0 ? NAN : 0, "TSUSP_ENTER", res) ||
	    limit_missing(p->w.ok ? 0 : NAN, "TSUSP_AVG", res))
		return;
	susp_stop(p, t_end_us);
	if (!p->r.have) {
		bn_result_inconclusive(res, p->n_short ? "the bus never stayed suspended longer than TSUSP_ENTER"
						       : "the bus never suspended");
		return;
	}
	worst_judge(&p->r, res, "");
	if (res->verdict == BN_VERDICT_FAIL)
		bn_result_fail(res, "drew %.2f mA on average while suspended, from TSUSP_ENTER after bus idle "
				    "(ISUSP max %.2f mA)",
			       p->r.v * 1e3, p->r.lim * 1e3);
}

static const struct bn_rule rule_suspend_isusp = {
	.id = "bc12.host.suspend_isusp",
	.task = BN_TASK_HOST_CHOICE,
	.title = "SDP, suspended: at most ISUSP from TSUSP_ENTER after bus idle (TSUSP_AVG sliding average)",
	.clause = "USB 2.0 7.1.7.6; CP 6.8",
	.limit = "ISUSP",
	.needs_channels = 1u << BN_CH_IBUS,
	.needs_events = BN_CEV_BIT(BN_CEV_SUSPEND) | BN_CEV_BIT(BN_CEV_RESUME) |
			BN_CEV_BIT(BN_CEV_DISCONNECT) | BN_CEV_BIT(BN_CEV_VBUS_OFF),
	.min_rate_hz = HOST_MIN_RATE_HZ,
	.ports = SDP_BIT,
	.priv_size = sizeof(struct susp_priv),
	.begin = susp_begin,
	.event = susp_event,
	.sample = susp_sample,
	.hold = susp_hold,
	.end = susp_end,
};

/* ---- bc12.host.unconfigured_iunit ---- */

struct unconf_priv {
	double iunit;
	bn_time_us avg_us;
	bool connected, configured, suspended;
	bool active;          /* an unconfigured phase is open */
	bn_time_us t_start, t_last;
	struct bn_rsum all_sum;
	long all_n;
	struct bn_rsum win_sum;
	long win_n;
	bool win_done;
	struct worst r;
	bool fallback_worst;  /* the worst came from a phase too short for the testers' window */
};

static void unconf_begin(void *priv, const struct bn_check_ctx *ctx)
{
	struct unconf_priv *p = priv;
	double avg = bn_limits_max(ctx->lim, "TVBUS_AVG");

	p->iunit = bn_limits_max(ctx->lim, "IUNIT");
	p->avg_us = isnan(avg) ? -1 : bn_time_from_s(avg);
}

static void unconf_add(struct unconf_priv *p, double v, bn_time_us t0, bn_time_us t1, bool fallback)
{
	bool had = p->r.have;
	double m = p->r.margin;

	worst_add(&p->r, v, p->iunit, t0, t1);
	if (!had || p->r.margin < m)
		p->fallback_worst = fallback;
}

static void unconf_start(struct unconf_priv *p, bn_time_us t)
{
	p->active = true;
	p->t_start = t;
	p->all_sum = p->win_sum = (struct bn_rsum){ 0 };
	p->all_n = p->win_n = 0;
	p->win_done = false;
}

static void unconf_stop(struct unconf_priv *p, bn_time_us t)
{
	if (!p->active)
		return;
	p->active = false;
	if (p->win_done)
		return;
	if (p->win_n)  /* the phase ended inside the testers' window */
		unconf_add(p, mean_a(bn_rsum_total(&p->win_sum), p->win_n),
			   p->t_start + UNCONF_TESTER_DELAY_US, t, false);
	else if (p->all_n)  /* configured (or suspended) before the window began */
		unconf_add(p, mean_a(bn_rsum_total(&p->all_sum), p->all_n), p->t_start, t, true);
}

static void unconf_event(void *priv, const struct bn_cev *ev)
{
	struct unconf_priv *p = priv;

	switch (ev->kind) {
	case BN_CEV_CONNECT:
		p->connected = true;
		p->configured = p->suspended = false;
		unconf_start(p, ev->t_us);
		break;
	case BN_CEV_CONFIG:
		if (!p->connected)
			break;
		if (ev->value > 0) {
			unconf_stop(p, ev->t_us);
			p->configured = true;
		} else if (p->configured) {
			/* deconfigured: unconfigured again */
			p->configured = false;
			if (!p->suspended)
				unconf_start(p, ev->t_us);
		}
		break;
	case BN_CEV_SUSPEND:
		p->suspended = true;
		unconf_stop(p, ev->t_us);
		break;
	case BN_CEV_RESUME:
		p->suspended = false;
		if (p->connected && !p->configured)
			unconf_start(p, ev->t_us);
		break;
	case BN_CEV_DISCONNECT:
	case BN_CEV_VBUS_OFF:
		unconf_stop(p, ev->t_us);
		p->connected = p->configured = p->suspended = false;
		break;
	default:
		break;
	}
}

static void unconf_sample(void *priv, bn_time_us t, const struct bn_sample *s)
{
	struct unconf_priv *p = priv;
	bn_time_us w0, w1;
	double i;

	if (!p->active || !ibus_of(s, &i))
		return;
	bn_rsum_add(&p->all_sum, i, 1);
	p->all_n++;
	if (p->win_done)
		return;
	w0 = p->t_start + UNCONF_TESTER_DELAY_US;
	w1 = w0 + p->avg_us;
	if (t >= w1) {
		p->win_done = true;
		if (p->win_n)
			unconf_add(p, mean_a(bn_rsum_total(&p->win_sum), p->win_n), w0, w1, false);
		return;
	}
	if (t >= w0) {
		bn_rsum_add(&p->win_sum, i, 1);
		p->win_n++;
	}
}

static void unconf_hold(void *priv, const bn_time_us *t, long n, const struct bn_sample *s)
{
	struct unconf_priv *p = priv;
	bn_time_us w0, w1;
	long a, b;
	double i;

	if (!p->active || !ibus_of(s, &i))
		return;
	bn_rsum_add(&p->all_sum, i, n);
	p->all_n += n;
	if (p->win_done)
		return;
	w0 = p->t_start + UNCONF_TESTER_DELAY_US;
	w1 = w0 + p->avg_us;
	/* [a, b) falls in the window; b, if in the run, closes it */
	b = bn_first_at(t, 0, n, w1);
	a = bn_first_at(t, 0, b, w0);
	if (b > a)
		bn_rsum_add(&p->win_sum, i, b - a);
	p->win_n += b - a;
	if (b < n) {
		p->win_done = true;
		if (p->win_n)
			unconf_add(p, mean_a(bn_rsum_total(&p->win_sum), p->win_n), w0, w1, false);
	}
}

static void unconf_end(void *priv, bn_time_us t_end_us, struct bn_result *res)
{
	struct unconf_priv *p = priv;

	if (limit_missing(p->iunit, "IUNIT", res) ||
	    limit_missing(p->avg_us < 0 ? NAN : 0, "TVBUS_AVG", res))
		return;
	unconf_stop(p, t_end_us);
	if (!worst_judge(&p->r, res, "the device was never connected and unconfigured"))
		return;
	if (res->verdict == BN_VERDICT_FAIL)
		bn_result_fail(res, "drew %.1f mA on average connected but unconfigured (%s; IUNIT max %.0f mA)",
			       p->r.v * 1e3,
			       p->fallback_worst ? "whole unconfigured stretch: the host configured the device "
						   "before the testers' window"
						 : "the testers' TVBUS_AVG window from 150 ms after D+ rose",
			       p->r.lim * 1e3);
}

static const struct bn_rule rule_unconfigured_iunit = {
	.id = "bc12.host.unconfigured_iunit",
	.task = BN_TASK_HOST_CHOICE,
	.title = "SDP, connected but unconfigured: at most IUNIT (TVBUS_AVG average from 150 ms after D+ rises)",
	.clause = "CP 6.8",
	.limit = "IUNIT",
	.needs_channels = 1u << BN_CH_IBUS,
	.needs_events = BN_CEV_BIT(BN_CEV_CONNECT) | BN_CEV_BIT(BN_CEV_DISCONNECT) |
			BN_CEV_BIT(BN_CEV_CONFIG) | BN_CEV_BIT(BN_CEV_SUSPEND) |
			BN_CEV_BIT(BN_CEV_RESUME) | BN_CEV_BIT(BN_CEV_VBUS_OFF),
	.min_rate_hz = HOST_MIN_RATE_HZ,
	.ports = SDP_BIT,
	.priv_size = sizeof(struct unconf_priv),
	.begin = unconf_begin,
	.event = unconf_event,
	.sample = unconf_sample,
	.hold = unconf_hold,
	.end = unconf_end,
};

/* ---- bc12.host.configured_bmaxpower ---- */

struct cfg_priv {
	double icfg;
	bool configured, suspended;
	int value;
	double lim;           /* this configuration's bound */
	struct wavg w;
	struct worst r;
	int worst_value;
};

static void cfg_begin(void *priv, const struct bn_check_ctx *ctx)
{
	struct cfg_priv *p = priv;

	p->icfg = bn_limits_max(ctx->lim, "ICFG_MAX");
	/* The same TVBUS_AVG window the testers use for the unconfigured draw. */
	wavg_init(&p->w, bn_limits_max(ctx->lim, "TVBUS_AVG"));
}

static void cfg_stop(struct cfg_priv *p, bn_time_us t)
{
	if (!wavg_stop(&p->w, t))
		return;
	if (!p->r.have || p->lim - p->w.max < p->r.margin)
		p->worst_value = p->value;
	worst_add_wavg(&p->r, &p->w, p->lim);
}

static void cfg_event(void *priv, const struct bn_cev *ev)
{
	struct cfg_priv *p = priv;

	switch (ev->kind) {
	case BN_CEV_CONFIG:
		cfg_stop(p, ev->t_us);
		p->configured = ev->value > 0;
		p->value = ev->value;
		p->lim = fmin(ev->num, p->icfg);
		if (p->configured && !p->suspended)
			wavg_start(&p->w, ev->t_us);
		break;
	case BN_CEV_SUSPEND:
		cfg_stop(p, ev->t_us);
		p->suspended = true;
		break;
	case BN_CEV_RESUME:
		p->suspended = false;
		if (p->configured)
			wavg_start(&p->w, ev->t_us);
		break;
	case BN_CEV_CONNECT:
	case BN_CEV_DISCONNECT:
	case BN_CEV_VBUS_OFF:
		cfg_stop(p, ev->t_us);
		p->configured = p->suspended = false;
		break;
	default:
		break;
	}
}

static void cfg_sample(void *priv, bn_time_us t, const struct bn_sample *s)
{
	struct cfg_priv *p = priv;
	double i;

	if (p->configured && !p->suspended && ibus_of(s, &i))
		wavg_sample(&p->w, t, i);
}

static void cfg_hold(void *priv, const bn_time_us *t, long n, const struct bn_sample *s)
{
	struct cfg_priv *p = priv;
	double i;

	if (p->configured && !p->suspended && ibus_of(s, &i))
		wavg_hold(&p->w, t, n, i);
}

static void cfg_end(void *priv, bn_time_us t_end_us, struct bn_result *res)
{
	struct cfg_priv *p = priv;

	if (limit_missing(p->icfg, "ICFG_MAX", res) || limit_missing(p->w.ok ? 0 : NAN, "TVBUS_AVG", res))
		return;
	cfg_stop(p, t_end_us);
	if (!worst_judge(&p->r, res, "the host never configured the device"))
		return;
	if (res->verdict == BN_VERDICT_FAIL)
		bn_result_fail(res, "drew %.1f mA (TVBUS_AVG average) in configuration %d, whose bound is "
				    "%.0f mA (its bMaxPower, ICFG_MAX max %.0f mA)",
			       p->r.v * 1e3, p->worst_value, p->r.lim * 1e3, p->icfg * 1e3);
}

static const struct bn_rule rule_configured_bmaxpower = {
	.id = "bc12.host.configured_bmaxpower",
	.task = BN_TASK_HOST_CHOICE,
	.title = "SDP, configured: at most the chosen bMaxPower, never above ICFG_MAX (TVBUS_AVG sliding average)",
	.clause = "CP 6.8",
	.limit = "ICFG_MAX",
	.needs_channels = 1u << BN_CH_IBUS,
	.needs_events = BN_CEV_BIT(BN_CEV_CONFIG) | BN_CEV_BIT(BN_CEV_SUSPEND) |
			BN_CEV_BIT(BN_CEV_RESUME) | BN_CEV_BIT(BN_CEV_CONNECT) |
			BN_CEV_BIT(BN_CEV_DISCONNECT) | BN_CEV_BIT(BN_CEV_VBUS_OFF),
	.min_rate_hz = HOST_MIN_RATE_HZ,
	.ports = SDP_BIT,
	.priv_size = sizeof(struct cfg_priv),
	.begin = cfg_begin,
	.event = cfg_event,
	.sample = cfg_sample,
	.hold = cfg_hold,
	.end = cfg_end,
};

/* ---- bc12.host.connect_time ---- */

struct conn_priv {
	bool skip_dbp, skip_no_host;
	double tmax_s, vsess;
	bool attached;        /* VBUS_ON seen, VBUS not yet valid */
	bool waiting;         /* VBUS valid, not connected yet */
	bn_time_us t_valid;
	bool have, late_unconnected;
	double worst_s;
	bn_time_us w0, w1;
	int n_short;          /* attaches removed before the deadline, unconnected */
};

static void conn_begin(void *priv, const struct bn_check_ctx *ctx)
{
	struct conn_priv *p = priv;

	p->skip_dbp = dbp_dead(ctx);
	p->skip_no_host = no_host(ctx);
	p->tmax_s = bn_limits_max(ctx->lim, "TSVLD_CON_PWD");
	/* Testers start the clock when VBUS crosses 0.8 V: VOTG_SESS_VLD min,
	 * the lowest voltage a device may take as VBUS valid. */
	p->vsess = bn_limits_min(ctx->lim, "VOTG_SESS_VLD");
}

static void conn_record(struct conn_priv *p, bn_time_us t, bool connected)
{
	double dt = bn_time_to_s(t - p->t_valid);

	p->waiting = false;
	if (!connected && dt <= p->tmax_s) {
		p->n_short++;
		return;
	}
	if (p->have && dt <= p->worst_s)
		return;
	p->have = true;
	p->worst_s = dt;
	p->late_unconnected = !connected;
	p->w0 = p->t_valid;
	p->w1 = t;
}

static void conn_event(void *priv, const struct bn_cev *ev)
{
	struct conn_priv *p = priv;

	switch (ev->kind) {
	case BN_CEV_VBUS_ON:
		p->attached = true;
		p->waiting = false;
		break;
	case BN_CEV_CONNECT:
		if (p->attached) {  /* connected before the VBUS sample showed it valid */
			p->t_valid = ev->t_us;
			p->waiting = true;
			p->attached = false;
		}
		if (p->waiting)
			conn_record(p, ev->t_us, true);
		break;
	case BN_CEV_VBUS_OFF:
		if (p->waiting)
			conn_record(p, ev->t_us, false);
		p->attached = p->waiting = false;
		break;
	default:
		break;
	}
}

static void conn_sample(void *priv, bn_time_us t, const struct bn_sample *s)
{
	struct conn_priv *p = priv;
	double v = s->v[BN_CH_VBUS];

	if (p->attached && !isnan(v) && v >= p->vsess) {
		p->attached = false;
		p->waiting = true;
		p->t_valid = t;
	}
}

/* Only the first sample of a run can turn attached into waiting: the rest
 * find it done. */
static void conn_hold(void *priv, const bn_time_us *t, long n, const struct bn_sample *s)
{
	if (n > 0)
		conn_sample(priv, t[0], s);
}

static void conn_end(void *priv, bn_time_us t_end_us, struct bn_result *res)
{
	struct conn_priv *p = priv;

	if (p->skip_dbp) {
		res->verdict = BN_VERDICT_SKIPPED;
		snprintf(res->reason, sizeof(res->reason),
			 "a dead-battery device under Dead Battery Provision is exempt (TDBP_VDPSRC_CON, "
			 "TSVLD_CON_WKB: the DBP rules)");
		return;
	}
	if (p->skip_no_host) {
		res->verdict = BN_VERDICT_SKIPPED;
		snprintf(res->reason, sizeof(res->reason),
			 "no host on this port (no D+ pull-down): a connect cannot be seen");
		return;
	}
	if (limit_missing(p->tmax_s, "TSVLD_CON_PWD", res) || limit_missing(p->vsess, "VOTG_SESS_VLD", res))
		return;
	if (p->waiting)
		conn_record(p, t_end_us, false);
	if (!p->have) {
		bn_result_inconclusive(res, p->n_short ? "VBUS never stayed valid for TSVLD_CON_PWD without a connect"
						       : "VBUS never became valid");
		return;
	}
	bn_result_judge(res, p->worst_s, NAN, p->tmax_s, "s");
	bn_result_window(res, p->w0, p->w1);
	if (res->verdict != BN_VERDICT_FAIL)
		return;
	if (p->late_unconnected)
		bn_result_fail(res, "no connect within %.3f s of VBUS valid (still unconnected after %.3f s)",
			       p->tmax_s, p->worst_s);
	else
		bn_result_fail(res, "connected %.3f s after VBUS valid (TSVLD_CON_PWD max %.3f s)", p->worst_s,
			       p->tmax_s);
}

static const struct bn_rule rule_connect_time = {
	.id = "bc12.host.connect_time",
	.task = BN_TASK_HOST_CHOICE,
	.title = "SDP or CDP: connect within TSVLD_CON_PWD of VBUS crossing VOTG_SESS_VLD min",
	.clause = "CP 6.7, 6.8",
	.limit = "TSVLD_CON_PWD",
	.needs_channels = 1u << BN_CH_VBUS,
	.needs_events = BN_CEV_BIT(BN_CEV_VBUS_ON) | BN_CEV_BIT(BN_CEV_VBUS_OFF) |
			BN_CEV_BIT(BN_CEV_CONNECT),
	.min_rate_hz = HOST_MIN_RATE_HZ,
	.ports = SDP_BIT | BN_PORT_BIT(BN_PORT_CDP),
	.uses_decl = true,
	.priv_size = sizeof(struct conn_priv),
	.begin = conn_begin,
	.event = conn_event,
	.sample = conn_sample,
	.hold = conn_hold,
	.end = conn_end,
};

const struct bn_rule *const bn_rules_host_choice[] = {
	&rule_unconnected_isusp,
	&rule_suspend_isusp,
	&rule_unconfigured_iunit,
	&rule_configured_bmaxpower,
	&rule_connect_time,
	NULL,
};
