/* Task 3: obey the host's choice. On an SDP the device draws at most ISUSP
 * unconnected or suspended (and is at ISUSP within TSUSP_ENTER of bus
 * idle), IUNIT unconfigured and the chosen configuration's bMaxPower
 * (ICFG_MAX at most) configured; on an SDP or a CDP it connects within
 * TSVLD_CON_PWD of VBUS valid. docs/rules-host-choice.md states each
 * rule's window, persistence, uncertainty and what excuses it.
 *
 * Where they apply: the ISUSP, IUNIT and bMaxPower rules are judged on an
 * SDP only. BC-1.2 also makes them ACA-C rules as far as the host's share
 * goes, but an ACA supplies the charging current itself (IDEV_CHG), which
 * the reference firmware draws on ACA-C; a capture cannot tell the host's
 * share from the ACA's, so these rules do not judge an ACA-C.
 *
 * Measured values and their uncertainty: every current is an average (the
 * limits are averages: ISUSP over TSUSP_AVG, IUNIT and bMaxPower over
 * TVBUS_AVG), so no single noisy sample decides anything; its expanded
 * uncertainty U comes from the IBUS channel's measurement for an average
 * of that many samples (offset and gain stay, noise shrinks). Times carry
 * the sample period, the noise over the edge's slew and the persistence's
 * dating. Verdicts follow the decision rule (bn_result_judge_u).
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
#include "checks/level.h"
#include "checks/rules.h"
#include "core/text.h"

/* The testers sample every 1 ms (TVBUS_AVG note in the limits file); the
 * current windows below (TVBUS_AVG, TSUSP_AVG, TSUSP_ENTER) need that
 * resolution. A bench requirement, not a BC-1.2 limit. */
#define HOST_MIN_RATE_HZ 1000.0

/* The compliance testers judge the unconfigured draw as a TVBUS_AVG
 * average that starts 150 ms after D+ rises (USB-IF BC-1.2 Compliance
 * Plan 6.8, SDP detection, as the public re-implementation of the
 * compliance scripts does it; docs/bc12-limits.md, "The device's detection
 * sequence", step 6). Not a BC-1.2 limit, so not in the limits file. */
#define UNCONF_TESTER_DELAY_US (150 * BN_US_PER_MS)

/* The suspend entry time is read off 1 ms means of IBUS (the testers'
 * 1 ms sample), and the draw counts as fallen once BN_PERSIST_MIN_SAMPLES
 * such means in a row are below ISUSP: at 2 mA rms of noise a single
 * sample of a draw 1 mA below ISUSP crosses it one time in four, a 1 ms
 * mean at 10 kHz one time in fifty, three in a row almost never. */
#define SENTRY_BIN_US BN_PERSIST_LEVEL_US
#define SENTRY_BINS BN_PERSIST_MIN_SAMPLES

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

/* The rule does not apply here, for this reason. */
static void skip(struct bn_result *res, const char *why)
{
	res->verdict = BN_VERDICT_SKIPPED;
	bn_str_copy(res->reason, sizeof(res->reason), why);
}

/* A rule that needs a host: skipped where there is none. */
static bool skip_no_host(const struct bn_check_ctx *ctx, struct bn_result *res)
{
	if (!no_host(ctx))
		return false;
	skip(res, "no host on this port (no D+ pull-down): nothing connects, configures or suspends");
	return true;
}

static bool limit_missing(double v, const char *name, struct bn_result *res)
{
	if (!isnan(v))
		return false;
	bn_result_inconclusive(res, "the limits file gives no bound for %s", name);
	return true;
}

/* ---- blame: what the host did, and which rule it excuses ---- */

/* What a host may do that is not the device's doing, read from the
 * events: it saw the connect and never chose a configuration (no
 * configuration event at all), or it enumerated the device and left it
 * in configuration 0. */
enum host_fault {
	HOST_NEVER_ENUMERATED = 1u << 0,
	HOST_NEVER_CONFIGURED = 1u << 1,
};

enum host_rule {
	HR_UNCONNECTED,
	HR_SUSPEND,
	HR_SUSPEND_ENTRY,
	HR_UNCONFIGURED,
	HR_CONFIGURED,
	HR_CONNECT_TIME,
	HR_COUNT
};

/* Which host misbehaviour excuses which rule: a rule is excused only by
 * what takes away the phase it judges (docs/rules-host-choice.md says
 * why, rule by rule). An excused rule is inconclusive naming the host
 * and what it did, never failed. */
static const unsigned host_excuses[HR_COUNT] = {
	/* the device's own draw before any host sees it */
	[HR_UNCONNECTED] = 0,
	/* bus idle binds an attached device in any state (USB 2.0 7.1.7.6):
	 * judged whenever the bus suspends, enumerated or not */
	[HR_SUSPEND] = 0,
	[HR_SUSPEND_ENTRY] = 0,
	/* the state such a host leaves the device in: judged */
	[HR_UNCONFIGURED] = 0,
	/* needs a configuration the host chose */
	[HR_CONFIGURED] = HOST_NEVER_ENUMERATED | HOST_NEVER_CONFIGURED,
	/* the device connects whatever the host does next */
	[HR_CONNECT_TIME] = 0,
};

struct host_watch {
	bool connected, seen_connect;
	bn_time_us t_connect;  /* the first connect */
	bn_time_us t_since;    /* the current connect */
	bn_time_us conn_us;    /* connected, in all (the stretches closed so far) */
	bool seen_config;      /* a configuration event while connected */
	bool configured;       /* one with a configuration > 0 */
	bn_time_us t_config0;  /* the first, when it set configuration 0 */
};

static void host_watch_event(struct host_watch *h, const struct bn_cev *ev)
{
	switch (ev->kind) {
	case BN_CEV_CONNECT:
		if (!h->seen_connect)
			h->t_connect = ev->t_us;
		if (!h->connected)
			h->t_since = ev->t_us;
		h->seen_connect = h->connected = true;
		break;
	case BN_CEV_CONFIG:
		if (!h->connected)
			break;
		if (ev->value > 0)
			h->configured = true;
		else if (!h->seen_config)
			h->t_config0 = ev->t_us;
		h->seen_config = true;
		break;
	case BN_CEV_DISCONNECT:
	case BN_CEV_VBUS_OFF:
		if (h->connected)
			h->conn_us += ev->t_us - h->t_since;
		h->connected = false;
		break;
	default:
		break;
	}
}

static unsigned host_faults(const struct host_watch *h)
{
	if (!h->seen_connect || h->configured)
		return 0;
	return h->seen_config ? HOST_NEVER_CONFIGURED : HOST_NEVER_ENUMERATED;
}

/* If what the host did excuses rule, say so in res (inconclusive). */
static bool host_excuse(const struct host_watch *h, enum host_rule rule, bn_time_us t_end,
			struct bn_result *res)
{
	unsigned f = host_faults(h) & host_excuses[rule];

	if (f & HOST_NEVER_ENUMERATED) {
		bn_time_us conn_us = h->conn_us + (h->connected ? t_end - h->t_since : 0);

		bn_result_inconclusive(res, "the host never enumerated the device: it saw the connect at "
				       "%.3f s and, in %.3f s connected, chose no configuration; the rule "
				       "needs a configuration the host chose (not the device's fault)",
				       bn_time_to_s(h->t_connect), bn_time_to_s(conn_us));
		return true;
	}
	if (f & HOST_NEVER_CONFIGURED) {
		bn_result_inconclusive(res, "the host never configured the device: it enumerated it and set "
				       "configuration 0 at %.3f s, and no other; the rule needs a "
				       "configuration the host chose (not the device's fault)",
				       bn_time_to_s(h->t_config0));
		return true;
	}
	return false;
}

/* ---- the worst of many measured values, each with its U ---- */

/* One judged value: a window's mean current, or a time. */
struct cand {
	bool have;
	double v, lim;      /* measured; its upper bound */
	long n;             /* samples averaged */
	double level;       /* the level an edge was read at (A) */
	double slew;        /* the edge's slew (unit/s); 0: a step */
	double gap_s;       /* a time known only inside an interval this wide */
	bn_time_us t0, t1;
	int tag, kind;      /* the rule's own: configuration value, which window, ... */
	double decl;        /* a configuration's bMaxPower, A */
	double key;         /* the ranking it was kept for */
	bn_time_us doubt_t0; /* an event it may straddle came no sooner than this */
};

/* The expanded uncertainty U of a candidate's value, from the channel's
 * measurement as the context has it now. */
typedef double (*u_fn)(const struct bn_check_ctx *ctx, const struct cand *c);

/* The decision needs three of them: the smallest margin (simple
 * acceptance), the smallest margin + U (the likeliest fail) and the
 * smallest margin - U (the least certain pass). U is computed as the
 * values come (a channel whose noise the engine estimates has it only at
 * end(): then the ranking goes by offset, gain and resolution alone) and
 * again at the end for the ones kept. */
struct worst {
	struct cand plain, hi, lo;
};

static void worst_add(struct worst *w, const struct bn_check_ctx *ctx, u_fn u, struct cand c)
{
	double m = c.lim - c.v, uu = u(ctx, &c);

	c.have = true;
	if (!w->plain.have || m < w->plain.key) {
		w->plain = c;
		w->plain.key = m;
	}
	if (!w->hi.have || m + uu < w->hi.key) {
		w->hi = c;
		w->hi.key = m + uu;
	}
	if (!w->lo.have || m - uu < w->lo.key) {
		w->lo = c;
		w->lo.key = m - uu;
	}
}

static bool simple(const struct bn_check_ctx *ctx)
{
	return ctx->acceptance == BN_ACCEPT_SIMPLE;
}

/* A value known only as a lower bound (a time that had not ended when
 * its stretch did) can prove a fail, never a pass: kept in lb once it
 * reaches the limit within U, else counted in *n_below (it says
 * nothing). */
static void bound_add(struct worst *lb, int *n_below, const struct bn_check_ctx *ctx, u_fn u,
		      struct cand c)
{
	if (c.v <= c.lim - (simple(ctx) ? 0 : u(ctx, &c))) {
		(*n_below)++;
		return;
	}
	worst_add(lb, ctx, u, c);
}

/* The candidate that decides, from measured values r and lower bounds lb
 * (either may be empty), under the context's decision rule; *U its U.
 * A clear fail first; then a lower bound near the limit (not a pass);
 * then the least certain pass. NULL: nothing was judged. */
static const struct cand *decide(const struct worst *r, const struct worst *lb,
				 const struct bn_check_ctx *ctx, u_fn u, double *U)
{
	const struct cand *a = NULL, *b = NULL;
	double ua = 0, ub = 0;
	bool sa = simple(ctx), fa, fb;

	if (r && r->plain.have) {
		a = sa ? &r->plain : &r->hi;
		ua = sa ? 0 : u(ctx, a);
	}
	if (lb && lb->plain.have) {
		b = sa ? &lb->plain : &lb->hi;
		ub = sa ? 0 : u(ctx, b);
	}
	fa = a && a->lim - a->v + ua < 0;
	fb = b && b->lim - b->v + ub < 0;
	if (fa && (!fb || a->lim - a->v + ua <= b->lim - b->v + ub)) {
		*U = u(ctx, a);
		return a;
	}
	if (b) {
		*U = u(ctx, b);
		return b;
	}
	if (!a)
		return NULL;
	if (!sa)
		a = &r->lo;
	*U = u(ctx, a);
	return a;
}

/* Judge the deciding candidate (upper limit); false if there is none. */
static bool judge(const struct worst *r, const struct worst *lb, const struct bn_check_ctx *ctx, u_fn u,
		  const char *unit, struct bn_result *res, const struct cand **out)
{
	double U = 0;
	const struct cand *c = decide(r, lb, ctx, u, &U);

	*out = c;
	if (!c)
		return false;
	bn_result_judge_u(res, c->v, U, NAN, c->lim, unit);
	bn_result_window(res, c->t0, c->t1);
	/* a lower bound inside the limit says nothing (its U cannot have
	 * shrunk since it was kept, but a pass on it would be a guess) */
	if (lb && (c == &lb->plain || c == &lb->hi || c == &lb->lo) && res->verdict == BN_VERDICT_PASS)
		bn_result_inconclusive(res, "only a lower bound was measured (%.4g %s), inside the limit", c->v,
				       unit);
	return true;
}

/* U of a mean current over c->n samples. */
static double u_avg_ibus(const struct bn_check_ctx *ctx, const struct cand *c)
{
	return bn_level_U(ctx, BN_CH_IBUS, c->v, c->n);
}

/* A sliding average of window win_us over one phase (a stretch of the run
 * where one limit holds), at bin resolution: the phase is cut into bins of
 * win_us / WAVG_BINS from its start; every window of WAVG_BINS whole bins
 * inside the phase is judged. A phase shorter than the window is averaged
 * whole; the last, partial bin of a longer phase closes a last window of
 * WAVG_BINS - 1 whole bins plus that part. Every window judged goes to
 * out, with its sample count for its U. */
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
	/* where the windows go, and what this phase's bound is */
	const struct bn_check_ctx *ctx;
	struct worst *out;
	double lim, decl;
	int tag, kind;
	bool have;          /* the phase judged a window */
};

static void wavg_init(struct wavg *w, double win_s, const struct bn_check_ctx *ctx, struct worst *out)
{
	w->ok = !isnan(win_s) && win_s > 0;
	w->win_us = w->ok ? bn_time_from_s(win_s) : BN_US_PER_S;
	w->bin_us = w->win_us / WAVG_BINS;
	if (w->bin_us < 1)
		w->bin_us = 1;
	w->ctx = ctx;
	w->out = out;
}

static void wavg_start(struct wavg *w, bn_time_us t, double lim)
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
	w->lim = lim;
	w->tag = w->kind = 0;
	w->decl = NAN;
}

/* Judge the last m closed bins (the window sum), ending at t1. */
static void wavg_eval(struct wavg *w, long m, bn_time_us t1)
{
	if (!w->win_n)
		return;
	worst_add(w->out, w->ctx, u_avg_ibus,
		  (struct cand){ .v = mean_a(w->win_sum, w->win_n), .lim = w->lim, .n = w->win_n,
				 .t0 = w->t_start + (w->closed - m) * w->bin_us, .t1 = t1,
				 .tag = w->tag, .kind = w->kind, .decl = w->decl });
	w->have = true;
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

/* ---- bc12.host.unconnected_isusp ---- */

/* Open data lines (a slow plug: the data pins touch after VBUS) hide a
 * connect from the host. A correct device that sees no data contact gives
 * up Data Contact Detect after TDCD_TIMEOUT (min), runs primary detection
 * (TVDPSRC_ON min), takes the port for an SDP and connects, and from then
 * on may draw as a connected device while the host cannot see it. So
 * while the data lines are open (the source reports data contact), the
 * draw is judged only up to that earliest connect after VBUS on; the rest
 * of the open stretch is the handling's, and the judging resumes when the
 * lines touch with no connect. A disconnect while the lines are open is
 * the lines opening (contact bounce), not the device leaving. */

struct unconn_priv {
	const struct bn_check_ctx *ctx;
	bool skip_dbp, skip_no_host;
	double isusp;
	bool vbus, connected;
	bool dc_known, contact;    /* data contact reported by the source; made */
	bn_time_us open_grace_us;  /* TDCD_TIMEOUT min + TVDPSRC_ON min */
	bn_time_us t_open_limit;   /* VBUS on + that: judged no later while the lines are open */
	bn_time_us t_opened;       /* the lines last opened (or VBUS came with them open) */
	bn_time_us t_cut;          /* a stretch left to the handling began, or NEVER */
	bn_time_us excused_us;     /* such stretches, in all */
	bn_time_us t_doubt;        /* a connect may have come from here (a real host's); NEVER */
	struct wavg w;
	struct worst r;
	struct host_watch host;
};

static void unconn_begin(void *priv, const struct bn_check_ctx *ctx)
{
	struct unconn_priv *p = priv;
	double dcd = bn_limits_min(ctx->lim, "TDCD_TIMEOUT"), vdp = bn_limits_min(ctx->lim, "TVDPSRC_ON");

	p->ctx = ctx;
	p->skip_dbp = dbp_dead(ctx);
	p->skip_no_host = no_host(ctx);
	p->isusp = bn_limits_max(ctx->lim, "ISUSP");
	p->dc_known = (ctx->events & BN_CEV_BIT(BN_CEV_DATA_CONTACT)) != 0;
	/* without the two limits, open lines excuse nothing */
	p->open_grace_us = isnan(dcd) || isnan(vdp) ? BN_TIME_NEVER : bn_time_from_s(dcd + vdp);
	p->t_open_limit = p->t_cut = p->t_doubt = BN_TIME_NEVER;
	/* ISUSP is an average current: the testers average over TSUSP_AVG. */
	wavg_init(&p->w, bn_limits_max(ctx->lim, "TSUSP_AVG"), ctx, &p->r);
}

static bool unconn_lines_open(const struct unconn_priv *p)
{
	return p->dc_known && !p->contact;
}

/* Open lines past their grace: from then on the stretch is the handling's. */
static void unconn_cut(struct unconn_priv *p, bn_time_us t)
{
	bn_time_us tc;

	if (!p->w.active || !unconn_lines_open(p) || t < p->t_open_limit || p->t_cut != BN_TIME_NEVER)
		return;
	tc = p->t_opened > p->t_open_limit ? p->t_opened : p->t_open_limit;
	wavg_stop(&p->w, tc);
	p->t_cut = tc;
}

/* The handling's stretch ends at t (the lines touch, a connect, VBUS off). */
static void unconn_uncut(struct unconn_priv *p, bn_time_us t)
{
	if (p->t_cut == BN_TIME_NEVER)
		return;
	p->excused_us += t - p->t_cut;
	p->t_cut = BN_TIME_NEVER;
}

static void unconn_start(struct unconn_priv *p, bn_time_us t)
{
	if (!p->w.active)
		wavg_start(&p->w, t, p->isusp);
}

static void unconn_event(void *priv, const struct bn_cev *ev)
{
	struct unconn_priv *p = priv;

	host_watch_event(&p->host, ev);
	unconn_cut(p, ev->t_us);
	switch (ev->kind) {
	case BN_CEV_VBUS_ON:
		wavg_stop(&p->w, ev->t_us);
		p->vbus = true;
		p->connected = false;
		/* from the bench's VBUS-on: VBUS valid comes no sooner, so the
		 * grace never reaches past a correct device's earliest connect */
		p->t_open_limit = p->open_grace_us == BN_TIME_NEVER ? BN_TIME_NEVER
								  : ev->t_us + p->open_grace_us;
		p->t_opened = ev->t_us;
		unconn_start(p, ev->t_us);
		break;
	case BN_CEV_VBUS_OFF:
		unconn_uncut(p, ev->t_us);
		wavg_stop(&p->w, ev->t_us);
		p->vbus = false;
		p->connected = false;
		break;
	case BN_CEV_DATA_CONTACT:
		p->contact = ev->num > 0.5;
		if (!p->contact) {
			p->t_opened = ev->t_us;
			unconn_cut(p, ev->t_us);
		} else if (p->vbus && !p->connected) {
			unconn_uncut(p, ev->t_us);
			unconn_start(p, ev->t_us);
		}
		break;
	case BN_CEV_CONNECT:
		unconn_uncut(p, ev->t_us);
		wavg_stop(&p->w, ev->t_us);
		p->connected = true;
		/* a connect known only as before t_us: the averages since may
		 * already be the connected device's */
		if (ev->win_s > 0 && ev->t_us - bn_time_from_s(ev->win_s) < p->t_doubt)
			p->t_doubt = ev->t_us - bn_time_from_s(ev->win_s);
		break;
	case BN_CEV_DISCONNECT:
		p->connected = false;
		if (p->vbus && !unconn_lines_open(p))
			unconn_start(p, ev->t_us);
		break;
	default:
		break;
	}
}

static void unconn_sample(void *priv, bn_time_us t, const struct bn_sample *s)
{
	struct unconn_priv *p = priv;
	double i;

	unconn_cut(p, t);
	if (p->vbus && !p->connected && ibus_of(s, &i))
		wavg_sample(&p->w, t, i);
}

static void unconn_hold(void *priv, const bn_time_us *t, long n, const struct bn_sample *s)
{
	struct unconn_priv *p = priv;
	long k = n;
	double i;

	if (n <= 0)
		return;
	/* the samples before the open lines' limit, then the cut */
	if (p->w.active && unconn_lines_open(p))
		k = bn_first_at(t, 0, n, p->t_open_limit);
	if (k > 0 && p->vbus && !p->connected && ibus_of(s, &i))
		wavg_hold(&p->w, t, k, i);
	if (k < n)
		unconn_cut(p, t[k]);
}

static void unconn_end(void *priv, bn_time_us t_end_us, struct bn_result *res)
{
	struct unconn_priv *p = priv;
	const struct cand *c;

	if (p->skip_dbp) {
		skip(res, "a dead-battery device under Dead Battery Provision: judged by the DBP rules");
		return;
	}
	if (p->skip_no_host) {
		skip(res, "no host on this port (no D+ pull-down): a connect cannot be seen");
		return;
	}
	if (limit_missing(p->isusp, "ISUSP", res) || limit_missing(p->w.ok ? 0 : NAN, "TSUSP_AVG", res))
		return;
	unconn_cut(p, t_end_us);
	unconn_uncut(p, t_end_us);
	wavg_stop(&p->w, t_end_us);
	if (!judge(&p->r, NULL, p->ctx, u_avg_ibus, "A", res, &c)) {
		if (host_excuse(&p->host, HR_UNCONNECTED, t_end_us, res))
			return;
		if (p->excused_us > 0)
			bn_result_inconclusive(res, "the data lines stayed open past the earliest connect of a "
						    "correct device (TDCD_TIMEOUT + TVDPSRC_ON min): the handling, "
						    "not the device, kept the host from seeing it");
		else
			bn_result_inconclusive(res, "VBUS was never on while the device was unconnected");
		return;
	}
	/* what was left to the handling, for the record */
	if (p->excused_us > 0)
		bn_result_figure(res, "open_lines_not_judged", bn_time_to_s(p->excused_us), "s");
	if (res->verdict == BN_VERDICT_FAIL && c->t1 > p->t_doubt) {
		bn_result_inconclusive(res, "the %.2f mA average ending at %.3f s may include the connected "
					    "device's draw: the host knows the connect only as between %.3f s "
					    "and its sighting",
				       c->v * 1e3, bn_time_to_s(c->t1), bn_time_to_s(p->t_doubt));
		return;
	}
	if (res->verdict == BN_VERDICT_FAIL)
		bn_result_fail(res, "drew %.2f mA on average while attached but not connected (ISUSP max "
				    "%.2f mA, U = %.2f mA)",
			       c->v * 1e3, c->lim * 1e3, res->u * 1e3);
}

static const struct bn_rule rule_unconnected_isusp = {
	.id = "bc12.host.unconnected_isusp",
	.task = BN_TASK_HOST_CHOICE,
	.title = "SDP, attached but not connected: at most ISUSP (TSUSP_AVG sliding average)",
	.clause = "CP 6.8",
	.limit = "ISUSP",
	.persistence = "IBUS as a sliding TSUSP_AVG average, no single sample; from VBUS on (or a "
		       "disconnect) to the connect",
	.needs_channels = 1u << BN_CH_IBUS,
	.needs_events = BN_CEV_BIT(BN_CEV_VBUS_ON) | BN_CEV_BIT(BN_CEV_VBUS_OFF) |
			BN_CEV_BIT(BN_CEV_CONNECT) | BN_CEV_BIT(BN_CEV_DISCONNECT),
	.uses_events = BN_CEV_BIT(BN_CEV_DATA_CONTACT),
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
	const struct bn_check_ctx *ctx;
	double isusp;
	bn_time_us enter_us;
	bool suspended;
	bn_time_us t_from;   /* suspend start + TSUSP_ENTER */
	int n_short;         /* suspends that ended before TSUSP_ENTER */
	struct wavg w;
	struct worst r;
	struct host_watch host;
};

static void susp_begin(void *priv, const struct bn_check_ctx *ctx)
{
	struct susp_priv *p = priv;
	double enter = bn_limits_max(ctx->lim, "TSUSP_ENTER");

	p->ctx = ctx;
	p->isusp = bn_limits_max(ctx->lim, "ISUSP");
	p->enter_us = isnan(enter) ? -1 : bn_time_from_s(enter);
	wavg_init(&p->w, bn_limits_max(ctx->lim, "TSUSP_AVG"), ctx, &p->r);
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
	wavg_stop(&p->w, t);
}

static void susp_event(void *priv, const struct bn_cev *ev)
{
	struct susp_priv *p = priv;

	host_watch_event(&p->host, ev);
	switch (ev->kind) {
	case BN_CEV_SUSPEND:
		if (p->suspended)
			break;
		p->suspended = true;
		/* bus idle at the latest it may have begun */
		p->t_from = ev->t_us + bn_time_from_s(ev->win_s > 0 ? ev->win_s : 0) + p->enter_us;
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
		wavg_start(&p->w, p->t_from, p->isusp);
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
		wavg_start(&p->w, p->t_from, p->isusp);
	wavg_hold(&p->w, t + k, n - k, i);
}

static void susp_end(void *priv, bn_time_us t_end_us, struct bn_result *res)
{
	struct susp_priv *p = priv;
	const struct cand *c;

	if (skip_no_host(p->ctx, res))
		return;
	if (limit_missing(p->isusp, "ISUSP", res) ||
	    limit_missing(p->enter_us < 0 ? NAN : 0, "TSUSP_ENTER", res) ||
	    limit_missing(p->w.ok ? 0 : NAN, "TSUSP_AVG", res))
		return;
	susp_stop(p, t_end_us);
	if (!judge(&p->r, NULL, p->ctx, u_avg_ibus, "A", res, &c)) {
		if (!host_excuse(&p->host, HR_SUSPEND, t_end_us, res))
			bn_result_inconclusive(res, p->n_short ? "the bus never stayed suspended longer than "
								 "TSUSP_ENTER"
							       : "the bus never suspended");
		return;
	}
	if (res->verdict == BN_VERDICT_FAIL)
		bn_result_fail(res, "drew %.2f mA on average while suspended, from TSUSP_ENTER after bus idle "
				    "(ISUSP max %.2f mA, U = %.2f mA)",
			       c->v * 1e3, c->lim * 1e3, res->u * 1e3);
}

static const struct bn_rule rule_suspend_isusp = {
	.id = "bc12.host.suspend_isusp",
	.task = BN_TASK_HOST_CHOICE,
	.title = "SDP, suspended: at most ISUSP from TSUSP_ENTER after bus idle (TSUSP_AVG sliding average)",
	.clause = "USB 2.0 7.1.7.6; CP 6.8",
	.limit = "ISUSP",
	.persistence = "IBUS as a sliding TSUSP_AVG average, no single sample; from TSUSP_ENTER after bus "
		       "idle to the resume",
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

/* ---- bc12.host.suspend_entry ---- */

/* The time from the start of bus idle to the draw below ISUSP, against
 * TSUSP_ENTER: the suspend's 1 ms means of IBUS, in bins from the start
 * of bus idle, and the first of SENTRY_BINS means in a row at or below
 * ISUSP dates the fall. The draw crossed ISUSP in the bin before that one
 * (or in its first part): the time is that bin's boundary less half a
 * bin, 0 when the very first bin is already below. Its U: the bin
 * (rectangular), the sample clock, and the means' uncertainty at ISUSP
 * over the slew between the last mean above and the first below (a bin
 * above ISUSP only by noise gives a small slew, hence a large U). */

enum { SENTRY_FELL = 0, SENTRY_STILL_ABOVE };

/* The time one sample stands for (its period); 0 when unknown. */
static bn_time_us sample_us(const struct bn_check_ctx *ctx)
{
	return ctx->rate_hz > 0 ? bn_time_from_s(1.0 / ctx->rate_hz) : 0;
}

struct sentry_priv {
	const struct bn_check_ctx *ctx;
	double isusp, tmax_s;
	bool suspended, done;   /* in a suspend; its fall was found */
	bn_time_us t_s;         /* the start of bus idle (a window's middle) */
	double gap_s;           /* the width of the window it is known in; 0: exact */
	struct bn_block bin;    /* its bins of IBUS, from t_s */
	struct bn_persist ps;   /* state: the draw is at or below ISUSP */
	bool have_above;        /* a mean above ISUSP in this suspend, the last: */
	double above_a;
	bool run_prev;          /* the run of means below: the mean above before it, */
	double run_prev_a;
	double run_a;           /* its first mean and that mean's samples */
	long run_n;
	double run_sum;         /* the whole run's sum and samples: the level */
	long run_cnt;           /* that proves the fall (sentry_found) */
	bool have_unsure;       /* a mean not clearly above ISUSP, the first's start: */
	bn_time_us t_unsure;
	bn_time_us t_data;      /* the end of the last sample seen in it; -1 none */
	int n_short, n_suspends;
	struct worst r, lb;
	struct host_watch host;
};

static double u_sentry(const struct bn_check_ctx *ctx, const struct cand *c)
{
	double u[4];

	u[0] = bn_time_to_s(SENTRY_BIN_US) / sqrt(12.0);
	u[1] = bn_ctx_u_edge(ctx, BN_CH_IBUS, 0);
	u[2] = c->slew > 0 ? bn_ctx_u_level(ctx, BN_CH_IBUS, c->level, c->n) / c->slew : 0;
	/* bus idle known only within a window (a real host): rectangular */
	u[3] = c->gap_s / sqrt(12.0);
	return bn_u_expand(4, u);
}

static void sentry_begin(void *priv, const struct bn_check_ctx *ctx)
{
	struct sentry_priv *p = priv;

	p->ctx = ctx;
	p->isusp = bn_limits_max(ctx->lim, "ISUSP");
	p->tmax_s = bn_limits_max(ctx->lim, "TSUSP_ENTER");
}

static void sentry_bound(struct sentry_priv *p, bn_time_us t);

static void sentry_found(struct sentry_priv *p, bn_time_us tc)
{
	long k = (long)((tc - p->t_s) / SENTRY_BIN_US);
	double bin_s = bn_time_to_s(SENTRY_BIN_US);
	struct cand c = { .lim = p->tmax_s, .n = p->run_n, .level = p->isusp, .t0 = p->t_s, .t1 = tc,
			  .tag = SENTRY_FELL, .gap_s = p->gap_s };
	double lvl = p->run_sum / (double)p->run_cnt;
	double u = bn_ctx_u_level(p->ctx, BN_CH_IBUS, lvl, p->run_cnt);

	if (lvl + bn_u_expand(1, &u) > p->isusp) {
		/* below by the means, not beyond their U: a fall not proven,
		 * only that the draw was above until the first unsure mean */
		p->ps.pending = false;
		sentry_bound(p, tc);
		p->done = true;
		return;
	}

	c.v = k > 0 ? bn_time_to_s(tc - p->t_s) - bin_s / 2 : 0;
	c.slew = k > 0 && p->run_prev && p->run_prev_a > p->run_a ? (p->run_prev_a - p->run_a) / bin_s : 0;
	worst_add(&p->r, p->ctx, u_sentry, c);
	p->done = true;
}

/* A bin b ends at t1 (its end, or the suspend's). */
static void sentry_feed(struct sentry_priv *p, const struct bn_block *b, bn_time_us t1)
{
	bn_time_us tc;
	double a, u;
	bool below;

	if (!b->n || p->done)
		return;
	a = mean_a(bn_rsum_total(&b->sum[0]), b->n);
	/* the draw counts as above ISUSP only beyond the mean's U (an
	 * instrument's offset or step, an 8-bit scope's 20 mA, must not keep
	 * it "above"); a fall is dated by the means, and proven only if the
	 * run of means below is below beyond its U (sentry_found) */
	u = bn_ctx_u_level(p->ctx, BN_CH_IBUS, a, b->n);
	u = bn_u_expand(1, &u);
	below = a <= p->isusp;
	if (a - u <= p->isusp && !p->have_unsure) {
		p->have_unsure = true;
		p->t_unsure = b->t0;
	}
	if (below && !p->ps.pending) {
		p->run_prev = p->have_above;
		p->run_prev_a = p->above_a;
		p->run_a = a;
		p->run_n = b->n;
		p->run_sum = a * (double)b->n;
		p->run_cnt = b->n;
	} else if (below) {
		p->run_sum += a * (double)b->n;
		p->run_cnt += b->n;
	}
	if (!below) {
		p->have_above = true;
		p->above_a = a;
	}
	if (bn_persist_feed(&p->ps, below, b->t0, t1, 1, &tc))
		sentry_found(p, tc);
}

static void sentry_bin(void *user, const struct bn_block *b)
{
	sentry_feed(user, b, b->t0 + b->len_us);
}

/* Bus idle began in [t, t + w_s]: dated at the middle, the width kept for
 * the time's uncertainty. */
static void sentry_start(struct sentry_priv *p, bn_time_us t, double w_s)
{
	p->suspended = true;
	p->done = false;
	p->gap_s = w_s > 0 ? w_s : 0;
	p->t_s = t + bn_time_from_s(p->gap_s / 2);
	bn_block_start(&p->bin, t, SENTRY_BIN_US);
	p->have_above = p->run_prev = p->have_unsure = false;
	p->t_data = -1;
	/* persistence over bins: one bin is SENTRY_BIN_US long, SENTRY_BINS of them */
	bn_persist_init(&p->ps, SENTRY_BIN_US, SENTRY_BINS, false);
	p->n_suspends++;
}

static void sentry_stop(struct sentry_priv *p, bn_time_us t)
{
	if (!p->suspended)
		return;
	p->suspended = false;
	sentry_feed(p, &p->bin, t);
	if (!p->done)
		sentry_bound(p, t);
}

/* Not (yet) proven below by t: a lower bound of the entry time. */
static void sentry_bound(struct sentry_priv *p, bn_time_us t)
{
	struct cand c;
	bn_time_us tl;

	/* not (yet) below: the entry time is at least the end of the means
	 * clearly above ISUSP (a mean within its U of ISUSP may be the fall) */
	tl = p->ps.pending ? p->ps.t_first : t;
	if (p->have_unsure && p->t_unsure < tl)
		tl = p->t_unsure;
	/* nor beyond the data: a capture that stopped short (a device's
	 * packets still in flight, a gap) says nothing of the time after */
	if (p->t_data < tl)
		tl = p->t_data;
	if (tl <= p->t_s)
		return;
	c = (struct cand){ .v = bn_time_to_s(tl - p->t_s), .lim = p->tmax_s, .level = p->isusp,
			   .t0 = p->t_s, .t1 = tl, .tag = SENTRY_STILL_ABOVE, .gap_s = p->gap_s };
	bound_add(&p->lb, &p->n_short, p->ctx, u_sentry, c);
}

static void sentry_event(void *priv, const struct bn_cev *ev)
{
	struct sentry_priv *p = priv;

	host_watch_event(&p->host, ev);
	switch (ev->kind) {
	case BN_CEV_SUSPEND:
		if (!p->suspended)
			sentry_start(p, ev->t_us, ev->win_s);
		break;
	case BN_CEV_RESUME:
	case BN_CEV_DISCONNECT:
	case BN_CEV_VBUS_OFF:
		sentry_stop(p, ev->t_us);
		break;
	default:
		break;
	}
}

static void sentry_sample(void *priv, bn_time_us t, const struct bn_sample *s)
{
	struct sentry_priv *p = priv;
	double i;

	if (!p->suspended || p->done || t < p->t_s || !ibus_of(s, &i))
		return;
	p->t_data = t + sample_us(p->ctx);
	bn_block_run(&p->bin, &t, 1, i, 0.0, true, sentry_bin, p);
}

/* n samples of i at t[0..n-1]: one step per bin they fall in (once the
 * fall is found the bins say nothing more). */
static void sentry_hold(void *priv, const bn_time_us *t, long n, const struct bn_sample *s)
{
	struct sentry_priv *p = priv;
	long k;
	double i;

	if (!p->suspended || p->done || !ibus_of(s, &i))
		return;
	k = bn_first_at(t, 0, n, p->t_s);
	if (k < n)
		p->t_data = t[n - 1] + sample_us(p->ctx);
	bn_block_run(&p->bin, t + k, n - k, i, 0.0, true, sentry_bin, p);
}

static void sentry_end(void *priv, bn_time_us t_end_us, struct bn_result *res)
{
	struct sentry_priv *p = priv;
	const struct cand *c;

	if (skip_no_host(p->ctx, res))
		return;
	if (limit_missing(p->isusp, "ISUSP", res) || limit_missing(p->tmax_s, "TSUSP_ENTER", res))
		return;
	sentry_stop(p, t_end_us);
	if (!judge(&p->r, &p->lb, p->ctx, u_sentry, "s", res, &c)) {
		if (host_excuse(&p->host, HR_SUSPEND_ENTRY, t_end_us, res))
			return;
		if (p->n_suspends)
			bn_result_inconclusive(res, "the bus never stayed suspended long enough to see the draw "
						    "fall below ISUSP or pass TSUSP_ENTER above it (%d suspend%s)",
					       p->n_suspends, p->n_suspends == 1 ? "" : "s");
		else
			bn_result_inconclusive(res, "the bus never suspended");
		return;
	}
	if (res->verdict != BN_VERDICT_FAIL)
		return;
	if (c->tag == SENTRY_STILL_ABOVE)
		bn_result_fail(res, "the draw was still above ISUSP %.1f ms after bus idle began, when the suspend "
				    "ended (TSUSP_ENTER max %.0f ms)",
			       c->v * 1e3, c->lim * 1e3);
	else
		bn_result_fail(res, "the draw fell below ISUSP %.1f ms after bus idle began (1 ms means; "
				    "TSUSP_ENTER max %.0f ms, U = %.2f ms)",
			       c->v * 1e3, c->lim * 1e3, res->u * 1e3);
}

static const struct bn_rule rule_suspend_entry = {
	.id = "bc12.host.suspend_entry",
	.task = BN_TASK_HOST_CHOICE,
	.title = "SDP, suspended: the draw below ISUSP within TSUSP_ENTER of the start of bus idle",
	.clause = "USB 2.0 7.1.7.6",
	.limit = "TSUSP_ENTER",
	.persistence = "1 ms means of IBUS at or below ISUSP, 3 in a row (3 ms), dated at the first; from "
		       "bus idle to that",
	.needs_channels = 1u << BN_CH_IBUS,
	.needs_events = BN_CEV_BIT(BN_CEV_SUSPEND) | BN_CEV_BIT(BN_CEV_RESUME) |
			BN_CEV_BIT(BN_CEV_DISCONNECT) | BN_CEV_BIT(BN_CEV_VBUS_OFF),
	.min_rate_hz = HOST_MIN_RATE_HZ,
	.ports = SDP_BIT,
	.priv_size = sizeof(struct sentry_priv),
	.begin = sentry_begin,
	.event = sentry_event,
	.sample = sentry_sample,
	.hold = sentry_hold,
	.end = sentry_end,
};

/* ---- bc12.host.unconfigured_iunit ---- */

enum { UNCONF_TESTERS = 0, UNCONF_WHOLE };

struct unconf_priv {
	const struct bn_check_ctx *ctx;
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
	/* the phase's candidate, kept until the phase ends: a real host's
	 * configuration is known only inside a window, and an average that
	 * overlaps it may hold the configured draw */
	struct cand pend;
	struct worst r;
	struct worst r_doubt; /* averages above IUNIT that overlap such a window */
	struct host_watch host;
};

static void unconf_begin(void *priv, const struct bn_check_ctx *ctx)
{
	struct unconf_priv *p = priv;
	double avg = bn_limits_max(ctx->lim, "TVBUS_AVG");

	p->ctx = ctx;
	p->iunit = bn_limits_max(ctx->lim, "IUNIT");
	p->avg_us = isnan(avg) ? -1 : bn_time_from_s(avg);
}

static void unconf_add(struct unconf_priv *p, const struct bn_rsum *sum, long n, bn_time_us t0,
		       bn_time_us t1, int kind)
{
	p->pend = (struct cand){ .have = true, .v = mean_a(bn_rsum_total(sum), n), .lim = p->iunit,
				 .n = n, .t0 = t0, .t1 = t1, .kind = kind };
}

/* The phase ended; the configuration that ended it (if one did) came
 * somewhere in [d0, d1]. An average above IUNIT that overlaps that
 * window proves nothing; one within IUNIT is within it even so. */
static void unconf_commit(struct unconf_priv *p, bn_time_us d0, bn_time_us d1)
{
	bool doubt = d1 > d0 && p->pend.t0 < d1 && p->pend.t1 > d0 && p->pend.v > p->pend.lim;

	if (!p->pend.have)
		return;
	p->pend.have = false;
	p->pend.doubt_t0 = d0;
	worst_add(doubt ? &p->r_doubt : &p->r, p->ctx, u_avg_ibus, p->pend);
}

static void unconf_start(struct unconf_priv *p, bn_time_us t)
{
	p->active = true;
	p->t_start = t;
	p->all_sum = p->win_sum = (struct bn_rsum){ 0 };
	p->all_n = p->win_n = 0;
	p->win_done = false;
}

static void unconf_stop(struct unconf_priv *p, bn_time_us t, bn_time_us d0, bn_time_us d1)
{
	if (!p->active)
		return;
	p->active = false;
	if (p->win_done)
		;
	else if (p->win_n)  /* the phase ended inside the testers' window */
		unconf_add(p, &p->win_sum, p->win_n, p->t_start + UNCONF_TESTER_DELAY_US, t, UNCONF_TESTERS);
	else if (p->all_n)  /* configured (or suspended) before the window began */
		unconf_add(p, &p->all_sum, p->all_n, p->t_start, t, UNCONF_WHOLE);
	unconf_commit(p, d0, d1);
}

static void unconf_event(void *priv, const struct bn_cev *ev)
{
	struct unconf_priv *p = priv;

	host_watch_event(&p->host, ev);
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
			/* known only as in [t_us - win, t_us] (a real host saw it
			 * late): an average in that window may be the configured draw */
			unconf_stop(p, ev->t_us, ev->t_us - bn_time_from_s(ev->win_s > 0 ? ev->win_s : 0),
				    ev->t_us);
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
		unconf_stop(p, ev->t_us, 0, 0);
		break;
	case BN_CEV_RESUME:
		p->suspended = false;
		if (p->connected && !p->configured)
			unconf_start(p, ev->t_us);
		break;
	case BN_CEV_DISCONNECT:
	case BN_CEV_VBUS_OFF:
		unconf_stop(p, ev->t_us, 0, 0);
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
			unconf_add(p, &p->win_sum, p->win_n, w0, w1, UNCONF_TESTERS);
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
			unconf_add(p, &p->win_sum, p->win_n, w0, w1, UNCONF_TESTERS);
	}
}

static void unconf_end(void *priv, bn_time_us t_end_us, struct bn_result *res)
{
	struct unconf_priv *p = priv;
	const struct cand *c;

	if (skip_no_host(p->ctx, res))
		return;
	if (limit_missing(p->iunit, "IUNIT", res) ||
	    limit_missing(p->avg_us < 0 ? NAN : 0, "TVBUS_AVG", res))
		return;
	unconf_stop(p, t_end_us, 0, 0);
	if (!judge(&p->r, NULL, p->ctx, u_avg_ibus, "A", res, &c) || res->verdict == BN_VERDICT_PASS) {
		const struct cand *d = &p->r_doubt.plain;

		if (d->have) {
			bn_result_window(res, d->t0, d->t1);
			bn_result_inconclusive(res, "the %.1f mA average ending at %.3f s may include the "
						    "configured device's draw: the host knows the "
						    "configuration only as between %.3f s and its sighting",
					       d->v * 1e3, bn_time_to_s(d->t1), bn_time_to_s(d->doubt_t0));
			return;
		}
		if (!c && !host_excuse(&p->host, HR_UNCONFIGURED, t_end_us, res))
			bn_result_inconclusive(res, "the device was never connected and unconfigured");
		if (!c)
			return;
	}
	if (res->verdict == BN_VERDICT_FAIL)
		bn_result_fail(res, "drew %.1f mA on average connected but unconfigured (%s; IUNIT max %.0f mA)",
			       c->v * 1e3,
			       c->kind == UNCONF_WHOLE ? "whole unconfigured stretch: the host configured the "
							 "device before the testers' window"
						       : "the testers' TVBUS_AVG window from 150 ms after D+ rose",
			       c->lim * 1e3);
}

static const struct bn_rule rule_unconfigured_iunit = {
	.id = "bc12.host.unconfigured_iunit",
	.task = BN_TASK_HOST_CHOICE,
	.title = "SDP, connected but unconfigured: at most IUNIT (TVBUS_AVG average from 150 ms after D+ rises)",
	.clause = "CP 6.8",
	.limit = "IUNIT",
	.persistence = "IBUS averaged over TVBUS_AVG from 150 ms after the connect (the whole stretch if "
		       "configured sooner)",
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

/* A configured device draws at most its configuration's bMaxPower (USB
 * 2.0 9.6.3), never above ICFG_MAX on an SDP. A configuration that
 * declares 0 mA (bMaxPower is in 2 mA units: 0 says "less than one
 * unit") is judged against ISUSP: every device may draw ISUSP from the
 * bus even suspended (USB 2.0 7.1.7.6), a configured one is allowed no
 * less, and a bound of 0 mA would leave every measured draw (U > 0)
 * inconclusive or failed, a true 0 mA included. */
enum cfg_bound { CFG_BMAX = 0, CFG_ICFG, CFG_ZERO };

struct cfg_priv {
	const struct bn_check_ctx *ctx;
	double icfg, isusp;
	bool configured, suspended;
	int value;
	double decl, lim;     /* this configuration's bMaxPower and bound */
	int kind;             /* enum cfg_bound */
	int n_unknown;        /* configured stretches whose bMaxPower was not known */
	int unknown_value;
	struct wavg w;
	struct worst r;
	struct host_watch host;
};

static void cfg_begin(void *priv, const struct bn_check_ctx *ctx)
{
	struct cfg_priv *p = priv;

	p->ctx = ctx;
	p->icfg = bn_limits_max(ctx->lim, "ICFG_MAX");
	p->isusp = bn_limits_max(ctx->lim, "ISUSP");
	/* The same TVBUS_AVG window the testers use for the unconfigured draw. */
	wavg_init(&p->w, bn_limits_max(ctx->lim, "TVBUS_AVG"), ctx, &p->r);
}

/* The bound of the configuration ev sets: its bMaxPower from the event,
 * else from the device's declared configurations. */
static void cfg_bound(struct cfg_priv *p, const struct bn_cev *ev)
{
	double bmax = ev->num;

	if (!isfinite(bmax) && p->ctx->configs_known)
		for (int i = 0; i < p->ctx->n_configs && i < 8; i++)
			if (p->ctx->config_value[i] == ev->value)
				bmax = p->ctx->config_max_power_a[i];
	p->decl = isfinite(bmax) ? bmax : NAN;
	if (isnan(p->decl)) {
		p->lim = NAN;
	} else if (p->decl <= 0) {
		p->lim = p->isusp;
		p->kind = CFG_ZERO;
	} else if (p->decl > p->icfg) {
		p->lim = p->icfg;
		p->kind = CFG_ICFG;
	} else {
		p->lim = p->decl;
		p->kind = CFG_BMAX;
	}
}

static void cfg_start(struct cfg_priv *p, bn_time_us t)
{
	if (isnan(p->lim)) {
		p->n_unknown++;
		p->unknown_value = p->value;
		return;
	}
	wavg_start(&p->w, t, p->lim);
	p->w.tag = p->value;
	p->w.kind = p->kind;
	p->w.decl = p->decl;
}

static void cfg_event(void *priv, const struct bn_cev *ev)
{
	struct cfg_priv *p = priv;

	host_watch_event(&p->host, ev);
	switch (ev->kind) {
	case BN_CEV_CONFIG:
		wavg_stop(&p->w, ev->t_us);
		p->configured = ev->value > 0;
		p->value = ev->value;
		if (p->configured)
			cfg_bound(p, ev);
		if (p->configured && !p->suspended)
			cfg_start(p, ev->t_us);
		break;
	case BN_CEV_SUSPEND:
		wavg_stop(&p->w, ev->t_us);
		p->suspended = true;
		break;
	case BN_CEV_RESUME:
		p->suspended = false;
		if (p->configured)
			cfg_start(p, ev->t_us);
		break;
	case BN_CEV_CONNECT:
	case BN_CEV_DISCONNECT:
	case BN_CEV_VBUS_OFF:
		wavg_stop(&p->w, ev->t_us);
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

/* The result's limit: this configuration's own bound, by name. */
static void cfg_name_limit(const struct cfg_priv *p, const struct cand *c, struct bn_result *res)
{
	const struct bn_limit *is = bn_limits_find(p->ctx->lim, "ISUSP");

	switch (c->kind) {
	case CFG_ZERO:
		snprintf(res->limit, sizeof(res->limit), "bMaxPower of configuration %d (0 mA): ISUSP",
			 c->tag);
		snprintf(res->limit_source, sizeof(res->limit_source), "ISUSP: %s",
			 is && is->source ? is->source : "the limits file");
		break;
	case CFG_ICFG:
		snprintf(res->limit, sizeof(res->limit), "ICFG_MAX (configuration %d declares %.0f mA)",
			 c->tag, c->decl * 1e3);
		break;
	default:
		snprintf(res->limit, sizeof(res->limit), "bMaxPower of configuration %d (%.0f mA)", c->tag,
			 c->decl * 1e3);
		snprintf(res->limit_source, sizeof(res->limit_source),
			 "the device's configuration descriptor (USB 2.0 9.6.3)");
		break;
	}
}

static void cfg_end(void *priv, bn_time_us t_end_us, struct bn_result *res)
{
	struct cfg_priv *p = priv;
	const struct cand *c;

	if (skip_no_host(p->ctx, res))
		return;
	if (limit_missing(p->icfg, "ICFG_MAX", res) || limit_missing(p->isusp, "ISUSP", res) ||
	    limit_missing(p->w.ok ? 0 : NAN, "TVBUS_AVG", res))
		return;
	wavg_stop(&p->w, t_end_us);
	if (!judge(&p->r, NULL, p->ctx, u_avg_ibus, "A", res, &c)) {
		if (host_excuse(&p->host, HR_CONFIGURED, t_end_us, res))
			return;
		if (p->n_unknown)
			bn_result_inconclusive(res, "the bMaxPower of configuration %d is not known (not in the "
						    "event, no declared configurations)",
					       p->unknown_value);
		else if (!p->host.seen_connect)
			bn_result_inconclusive(res, "the device never connected, so no host could configure it "
						    "(bc12.host.connect_time judges the connect)");
		else
			bn_result_inconclusive(res, "the device was never configured outside suspend");
		return;
	}
	cfg_name_limit(p, c, res);
	if (res->verdict == BN_VERDICT_PASS && p->n_unknown) {
		bn_result_inconclusive(res, "the bMaxPower of configuration %d is not known (not in the event, "
					    "no declared configurations): that stretch is not judged",
				       p->unknown_value);
		return;
	}
	if (res->verdict != BN_VERDICT_FAIL)
		return;
	if (c->kind == CFG_ZERO)
		bn_result_fail(res, "drew %.2f mA (TVBUS_AVG average) in configuration %d, which declares 0 mA "
				    "(judged against ISUSP %.1f mA, U = %.2f mA)",
			       c->v * 1e3, c->tag, c->lim * 1e3, res->u * 1e3);
	else if (c->kind == CFG_ICFG)
		bn_result_fail(res, "drew %.1f mA (TVBUS_AVG average) in configuration %d, above ICFG_MAX "
				    "%.0f mA (it declares %.0f mA; U = %.1f mA)",
			       c->v * 1e3, c->tag, c->lim * 1e3, c->decl * 1e3, res->u * 1e3);
	else
		bn_result_fail(res, "drew %.1f mA (TVBUS_AVG average) in configuration %d, above its bMaxPower "
				    "%.0f mA (U = %.1f mA)",
			       c->v * 1e3, c->tag, c->lim * 1e3, res->u * 1e3);
}

static const struct bn_rule rule_configured_bmaxpower = {
	.id = "bc12.host.configured_bmaxpower",
	.task = BN_TASK_HOST_CHOICE,
	.title = "SDP, configured: at most the chosen configuration's bMaxPower, capped by ICFG_MAX "
		 "(TVBUS_AVG sliding average)",
	.clause = "CP 6.8; USB 2.0 9.6.3",
	.limit = "ICFG_MAX",
	.persistence = "IBUS as a sliding TVBUS_AVG average, no single sample; from the configuration to "
		       "its end or a suspend",
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

/* The clock starts when VBUS is measured valid: at or above VOTG_SESS_VLD
 * min (the lowest voltage a device may take as VBUS valid; testers start
 * at 0.8 V) for BN_PERSIST_LEVEL_US and BN_PERSIST_MIN_SAMPLES samples,
 * dated at the first such sample. That start is known when the samples
 * show VBUS below it first, or when the bench reports applying VBUS (a
 * VBUS-on event it did not infer): VBUS was not valid before that. A
 * capture that starts with VBUS already valid, and no such event, has no
 * attach time: the time to the connect is then only a lower bound, which
 * can fail the rule but never pass it. Its U: the VBUS sample (period,
 * noise over the rise's slew, jitter), the interval between the bench's
 * VBUS-on and the first valid sample when no sample below came between,
 * and a connect read off D+ (replay without events) its sample period. */

enum { CONN_CONNECTED = 1, CONN_INFERRED = 2, CONN_UNKNOWN_ATTACH = 4 };

#define CONN_DP_HIGH_WHY                                                                          \
	"D+ was already high when VBUS came (%.3f s) and stayed high, with no connect reported by " \
	"the bench: a connect before the capture, or a line floating before the data pins touch"

struct conn_priv {
	const struct bn_check_ctx *ctx;
	bool skip_dbp, skip_no_host;
	double tmax_s, vsess;
	struct bn_persist vp;     /* VBUS valid, debounced */
	bool low_seen;            /* a sample below since the last valid stretch (or the start) */
	bool have_last, last_low; /* the previous sample */
	double last_v;
	bn_time_us last_t;
	bool rise_from_low;       /* the pending rise's first sample followed one below, */
	double rise_slew;         /* at this slew (V/s) */
	bool bench_on;            /* the bench applied VBUS; not valid yet */
	bn_time_us t_on;
	bool attached;            /* this stretch of valid VBUS has had its attach */
	bool early, early_inferred; /* a connect before any sample showed VBUS valid */
	/* A connect read off D+ (replay without events) at the attach's
	 * first instant: D+ was high when VBUS came, a connect made before
	 * the capture or a line floating before the data pins touch. It ends
	 * no wait: a disconnect clears it, and a wait it never left is not
	 * judged. */
	bool dp_at_start;
	bn_time_us t_dp_at_start;
	/* The data lines (when the source reports their contact): a host
	 * cannot see a connect before they touch, so the handling, not the
	 * device, is late when they touch only after TSVLD_CON_PWD. */
	bool dc_known, contact;
	bn_time_us t_made;        /* the wait's first contact (its start if made before), or NEVER */
	int n_handling;
	bn_time_us handling_us;   /* the latest such contact after VBUS valid, or NEVER */
	bool waiting;             /* VBUS valid, not connected yet */
	bool known;               /* its start is an attach seen */
	bn_time_us t_valid;
	double slew, gap_s;
	double late_s;            /* the connect being recorded lies in [t - late_s, t] */
	struct worst r, lb;
	int n_short, n_unknown, n_dp_high;
	bn_time_us t_unknown, t_dp_high;
};

static double u_conn(const struct bn_check_ctx *ctx, const struct cand *c)
{
	double u[3];

	u[0] = bn_ctx_u_edge(ctx, BN_CH_VBUS, c->slew);
	u[1] = c->gap_s / sqrt(12.0);
	u[2] = (c->tag & CONN_INFERRED) ? bn_ctx_u_edge(ctx, BN_CH_DP, 0) : 0;
	return bn_u_expand(3, u);
}

static void conn_begin(void *priv, const struct bn_check_ctx *ctx)
{
	struct conn_priv *p = priv;

	p->ctx = ctx;
	p->skip_dbp = dbp_dead(ctx);
	p->skip_no_host = no_host(ctx);
	p->tmax_s = bn_limits_max(ctx->lim, "TSVLD_CON_PWD");
	p->vsess = bn_limits_min(ctx->lim, "VOTG_SESS_VLD");
	p->dc_known = (ctx->events & BN_CEV_BIT(BN_CEV_DATA_CONTACT)) != 0;
	bn_persist_init(&p->vp, BN_PERSIST_LEVEL_US, BN_PERSIST_MIN_SAMPLES, false);
}

static void conn_start(struct conn_priv *p, bn_time_us t_valid, bool known, double slew, double gap_s)
{
	p->waiting = p->attached = true;
	p->dp_at_start = false;
	p->t_made = p->contact ? t_valid : BN_TIME_NEVER;
	p->known = known;
	p->t_valid = t_valid;
	p->slew = slew;
	p->gap_s = gap_s;
	p->bench_on = false;
}

static void conn_record(struct conn_priv *p, bn_time_us t, bool connected, bool inferred)
{
	/* a connect known within [t - late_s, t] (a real host's): dated at
	 * the middle, the window's width in the time's uncertainty */
	double late_s = connected ? p->late_s : 0;
	struct cand c = { .v = bn_time_to_s(t - p->t_valid) - late_s / 2, .lim = p->tmax_s,
			  .slew = p->slew, .gap_s = p->gap_s + late_s, .t0 = p->t_valid, .t1 = t,
			  .tag = (connected ? CONN_CONNECTED : 0) | (inferred ? CONN_INFERRED : 0) |
				 (p->known ? 0 : CONN_UNKNOWN_ATTACH) };

	p->waiting = false;
	if (!connected && p->dp_at_start) {
		/* connected from the first instant, or never: unknown */
		p->dp_at_start = false;
		if (p->known) {
			p->n_dp_high++;
			p->t_dp_high = p->t_dp_at_start;
		} else {
			p->n_unknown++;
			p->t_unknown = p->t_valid;
		}
		return;
	}
	if (p->dc_known && (p->t_made == BN_TIME_NEVER || p->t_made - p->t_valid > bn_time_from_s(p->tmax_s)) &&
	    c.v > c.lim - u_conn(p->ctx, &c)) {
		/* late, but the lines touched only after the time it had */
		p->n_handling++;
		if (p->n_handling == 1 || p->t_made == BN_TIME_NEVER ||
		    (p->handling_us != BN_TIME_NEVER && p->t_made - p->t_valid > p->handling_us))
			p->handling_us = p->t_made == BN_TIME_NEVER ? BN_TIME_NEVER : p->t_made - p->t_valid;
		return;
	}
	if (connected && p->known) {
		worst_add(&p->r, p->ctx, u_conn, c);
	} else if (connected) {
		/* from a capture that starts with VBUS valid: at least this */
		int before = p->n_unknown;

		bound_add(&p->lb, &p->n_unknown, p->ctx, u_conn, c);
		if (p->n_unknown != before)
			p->t_unknown = p->t_valid;
	} else {
		/* VBUS went (or the data ended) before any connect */
		bound_add(&p->lb, &p->n_short, p->ctx, u_conn, c);
	}
}

/* A connect at t during the wait. */
static void conn_connect(struct conn_priv *p, bn_time_us t, bool inferred)
{
	if (inferred && t <= p->t_valid) {
		p->dp_at_start = true;
		p->t_dp_at_start = t;
		return;
	}
	p->dp_at_start = false;
	conn_record(p, t, true, inferred);
}

/* VBUS turned valid at tc (the first sample of the rise). */
static void conn_valid(struct conn_priv *p, bn_time_us tc)
{
	bool known = p->low_seen || p->bench_on;
	bn_time_us tv = tc;
	double gap_s = 0;

	if (!p->rise_from_low && !p->low_seen && p->bench_on && tc > p->t_on) {
		/* no sample between the bench's VBUS-on and the first valid one:
		 * it crossed somewhere in between */
		gap_s = bn_time_to_s(tc - p->t_on);
		tv = p->t_on + (tc - p->t_on) / 2;
	}
	p->low_seen = false;
	if (p->attached) {
		/* the attach began before the persistence confirmed VBUS (the
		 * device connected first): not a new one */
		p->bench_on = false;
		return;
	}
	conn_start(p, tv, known, p->rise_from_low ? p->rise_slew : 0, gap_s);
	if (p->early)  /* connected no later than VBUS turned valid */
		conn_connect(p, tv, p->early_inferred);
	p->early = false;
}

static void conn_invalid(struct conn_priv *p, bn_time_us tc)
{
	if (p->waiting)
		conn_record(p, tc, false, false);
	p->low_seen = true;
	p->attached = p->early = false;
}

static void conn_event(void *priv, const struct bn_cev *ev)
{
	struct conn_priv *p = priv;

	switch (ev->kind) {
	case BN_CEV_VBUS_ON:
		/* A VBUS-on inferred from a capture that starts with VBUS on
		 * says nothing about when it came. */
		if (ev->inferred)
			break;
		if (p->vp.state && !p->attached) {
			/* VBUS never fell in the samples since the last attach */
			conn_start(p, ev->t_us, true, 0, 0);
		} else if (!p->attached) {
			p->bench_on = true;
			p->t_on = ev->t_us;
		}
		break;
	case BN_CEV_VBUS_OFF:
		if (p->waiting)
			conn_record(p, ev->t_us, false, false);
		p->bench_on = p->attached = p->early = false;
		break;
	case BN_CEV_DISCONNECT:
		p->early = p->dp_at_start = false;
		break;
	case BN_CEV_DATA_CONTACT:
		p->contact = ev->num > 0.5;
		if (p->contact && p->waiting && p->t_made == BN_TIME_NEVER)
			p->t_made = ev->t_us;
		break;
	case BN_CEV_CONNECT:
		p->late_s = ev->win_s > 0 ? ev->win_s : 0;
		if (p->attached) {
			/* the first connect of the attach is the one judged */
			if (p->waiting)
				conn_connect(p, ev->t_us, ev->inferred);
			break;
		}
		if (!p->vp.state && p->vp.pending) {
			/* VBUS rose less than the persistence before the connect */
			p->vp.state = true;
			p->vp.pending = false;
			conn_valid(p, p->vp.t_first);
		} else if (p->bench_on) {
			/* connected before any sample showed VBUS valid */
			conn_start(p, ev->t_us, true, 0, 0);
		} else if (!p->vp.state) {
			/* before any VBUS sample at all (a capture's first
			 * instant): counted when VBUS turns out valid */
			p->early = true;
			p->early_inferred = ev->inferred;
		}
		if (p->waiting)
			conn_connect(p, ev->t_us, ev->inferred);
		break;
	default:
		break;
	}
}

static void conn_feed(struct conn_priv *p, bool raw, bn_time_us t0, bn_time_us t1, long n)
{
	bn_time_us tc;

	if (bn_persist_feed(&p->vp, raw, t0, t1, n, &tc)) {
		if (p->vp.state)
			conn_valid(p, tc);
		else
			conn_invalid(p, tc);
	}
	if (!raw && !p->vp.state)
		p->low_seen = true;
}

static void conn_sample(void *priv, bn_time_us t, const struct bn_sample *s)
{
	struct conn_priv *p = priv;
	double v = s->v[BN_CH_VBUS];
	bool raw;

	if (isnan(v))
		return;
	raw = v >= p->vsess;
	if (raw && !p->vp.state && !p->vp.pending) {
		/* a rise may start here: its slew from the sample before */
		p->rise_from_low = p->have_last && p->last_low;
		p->rise_slew = p->rise_from_low && t > p->last_t ? (v - p->last_v) / bn_time_to_s(t - p->last_t)
								 : 0;
	}
	conn_feed(p, raw, t, t, 1);
	p->have_last = true;
	p->last_low = !raw;
	p->last_v = v;
	p->last_t = t;
}

/* n samples equal to the last: no rise can start among them (their raw
 * condition is the last one's), and the persistence dates a change at its
 * first sample, so one feed of the run leaves the rule as n would. */
static void conn_hold(void *priv, const bn_time_us *t, long n, const struct bn_sample *s)
{
	struct conn_priv *p = priv;
	double v = s->v[BN_CH_VBUS];

	if (isnan(v) || n <= 0)
		return;
	conn_feed(p, v >= p->vsess, t[0], t[n - 1], n);
	p->last_t = t[n - 1];
}

/* An attach the handling made late: inconclusive, naming it. */
static bool conn_handling(const struct conn_priv *p, struct bn_result *res)
{
	if (!p->n_handling)
		return false;
	if (p->handling_us == BN_TIME_NEVER)
		bn_result_inconclusive(res, "the data lines never touched while VBUS was valid and the device "
					    "unconnected: the handling, not the device, kept the host from "
					    "seeing a connect");
	else
		bn_result_inconclusive(res, "the data lines touched only %.3f s after VBUS valid, past "
					    "TSVLD_CON_PWD (%.3f s): the handling (a slow plug), not the device, "
					    "kept the host from seeing the connect sooner",
				       bn_time_to_s(p->handling_us), p->tmax_s);
	return true;
}

static void conn_end(void *priv, bn_time_us t_end_us, struct bn_result *res)
{
	struct conn_priv *p = priv;
	const struct cand *c;

	if (p->skip_dbp) {
		skip(res, "a dead-battery device under Dead Battery Provision is exempt (TDBP_VDPSRC_CON, "
			  "TSVLD_CON_WKB: the DBP rules)");
		return;
	}
	if (p->skip_no_host) {
		skip(res, "no host on this port (no D+ pull-down): a connect cannot be seen");
		return;
	}
	if (limit_missing(p->tmax_s, "TSVLD_CON_PWD", res) || limit_missing(p->vsess, "VOTG_SESS_VLD", res))
		return;
	if (p->waiting)
		conn_record(p, t_end_us, false, false);
	if (!judge(&p->r, &p->lb, p->ctx, u_conn, "s", res, &c)) {
		if (conn_handling(p, res))
			return;
		if (p->n_dp_high)
			bn_result_inconclusive(res, CONN_DP_HIGH_WHY, bn_time_to_s(p->t_dp_high));
		else if (p->n_unknown)
			bn_result_inconclusive(res, "the attach time is unknown: the capture starts with VBUS "
						    "already valid (at %.3f s), so the time to the connect is only "
						    "a lower bound",
					       bn_time_to_s(p->t_unknown));
		else
			bn_result_inconclusive(res, p->n_short ? "VBUS never stayed valid for TSVLD_CON_PWD "
								 "without a connect"
							       : "VBUS never became valid");
		return;
	}
	if (res->verdict == BN_VERDICT_FAIL) {
		if (!(c->tag & CONN_CONNECTED))
			bn_result_fail(res, "no connect within %.3f s of VBUS valid (still unconnected after "
					    "%.3f s)",
				       c->lim, c->v);
		else if (c->tag & CONN_UNKNOWN_ATTACH)
			bn_result_fail(res, "connected at least %.3f s after VBUS valid (the capture starts with "
					    "VBUS on; TSVLD_CON_PWD max %.3f s)",
				       c->v, c->lim);
		else
			bn_result_fail(res, "connected %.3f s after VBUS valid (TSVLD_CON_PWD max %.3f s)", c->v,
				       c->lim);
		return;
	}
	if (conn_handling(p, res))
		return;
	if (p->n_dp_high)
		bn_result_inconclusive(res, CONN_DP_HIGH_WHY, bn_time_to_s(p->t_dp_high));
	else if (p->n_unknown)
		bn_result_inconclusive(res, "the attach time is unknown: the capture starts with VBUS already "
					    "valid (at %.3f s), so the time to the connect is only a lower bound",
				       bn_time_to_s(p->t_unknown));
}

static const struct bn_rule rule_connect_time = {
	.id = "bc12.host.connect_time",
	.judges_late_capture = true,
	.task = BN_TASK_HOST_CHOICE,
	.title = "SDP or CDP: connect within TSVLD_CON_PWD of VBUS crossing VOTG_SESS_VLD min",
	.clause = "CP 6.7, 6.8",
	.limit = "TSVLD_CON_PWD",
	.persistence = "VBUS >= VOTG_SESS_VLD min for 1 ms (3 samples) is valid, dated at its first "
		       "sample; from VBUS valid to the connect",
	.needs_channels = 1u << BN_CH_VBUS,
	.needs_events = BN_CEV_BIT(BN_CEV_VBUS_ON) | BN_CEV_BIT(BN_CEV_VBUS_OFF) |
			BN_CEV_BIT(BN_CEV_CONNECT),
	.uses_events = BN_CEV_BIT(BN_CEV_DATA_CONTACT) | BN_CEV_BIT(BN_CEV_DISCONNECT),
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
	&rule_suspend_entry,
	&rule_unconfigured_iunit,
	&rule_configured_bmaxpower,
	&rule_connect_time,
	NULL,
};
