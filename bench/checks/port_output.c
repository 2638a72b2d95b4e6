/* The charging port's output (side port): VBUS within VCHG as TVBUS_AVG
 * averages at load plateaus up to the cap (bc12.port.vchg), no overshoot
 * above VCHG_OVRSHT (bc12.port.overshoot), no undershoot below
 * VCHG_UNDSHT and back into VCHG within TDCP_UNDSHT after a load step
 * (bc12.port.undershoot), the output off under load only below
 * VDCP_SHTDWN (bc12.port.shutdown), and back within TSHTDWN_REC
 * (bc12.port.recovery).
 *
 * The port's current is IBUS plus the e-load's setpoint (BN_CEV_LOAD): the
 * e-load sits on the port's side of the IBUS sense, so IBUS carries only
 * the device's draw. The port's voltage is VBUS at the receptacle referred
 * back through the cable: V + I * R (ctx->cable_ohm). Without a known
 * cable the receptacle's reading is a lower bound of the port's (current
 * flows out of it): it can fail a high bound and pass a low one, and
 * no more; at no load (I <= ISUSP max) it is the port's.
 *
 * The cap: a port is judged at loads up to min(its declared rating,
 * IDEV_CHG max); with no declared rating, up to IDCP min on a DCP and ICDP
 * min on a CDP, the least any such port must carry. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "checks/level.h"
#include "checks/persist.h"
#include "checks/port_rules.h"
#include "checks/rules.h"
#include "core/minmax.h"

#define OUT_MIN_RATE_HZ 1000.0
#define OUT_SESSION (BN_CEV_BIT(BN_CEV_VBUS_ON) | BN_CEV_BIT(BN_CEV_VBUS_OFF))
#define OUT_EVENTS (OUT_SESSION | BN_CEV_BIT(BN_CEV_LOAD))
#define OUT_CHANNELS ((1u << BN_CH_VBUS) | (1u << BN_CH_IBUS))
#define OUT_PORTS (BN_PORT_BIT(BN_PORT_DCP) | BN_PORT_BIT(BN_PORT_CDP))
/* The e-load's setpoint error, as a standard uncertainty: relative and
 * absolute (a bench's electronic load states about 0.1 % + a few mA; the
 * simulated one is exact, so this only widens U). */
#define OUT_LOAD_U_REL 0.001
#define OUT_LOAD_U_A 0.002
/* A plateau: the port's current, as 1 ms block means, stays within this
 * of the window's first block (or this fraction of it). */
#define OUT_PLATEAU_A 0.02
#define OUT_PLATEAU_REL 0.02
/* Two 1 ms block means of VBUS this close are a held level, not a fall. */
#define OUT_STEADY_V 0.05
#define OUT_KS BN_PERSIST_MIN_SAMPLES /* samples an instantaneous excursion needs */
#define OUT_MAX_STEPS 32            /* steps and off episodes kept; older ones fold into a summary */

/* An extreme of the port's voltage: its value, the current then, the
 * samples it is a mean of, and when. */
struct ext {
	bool set;
	double v, i;
	long n;
	bn_time_us t0, t1;
};

static void ext_max(struct ext *e, double v, double i, long n, bn_time_us t0, bn_time_us t1)
{
	if (e->set && !(v > e->v))
		return;
	*e = (struct ext){ true, v, i, n, t0, t1 };
}

static void ext_min(struct ext *e, double v, double i, long n, bn_time_us t0, bn_time_us t1)
{
	if (e->set && !(v < e->v))
		return;
	*e = (struct ext){ true, v, i, n, t0, t1 };
}

/* The four extremes a range is judged on: the port's voltage has a lower
 * bound (lo) and an upper bound (hi); lo == hi with a known cable. */
struct range {
	struct ext lo_min, hi_min, lo_max, hi_max;
	struct ext ub_max;     /* the highest lo whose hi is not bounded */
	long n;
	bool unbounded;        /* some hi was infinite: the cable is not known */
	/* the last range_put's bounds: the same again (a held sample, once a
	 * sample) changes no extreme, as each moves only on a strictly lower
	 * or higher value (its current and times go with it); false when
	 * zeroed */
	bool last_set;
	double last_lo, last_hi;
};

static void range_put(struct range *r, double lo, double hi, double i, long n, bn_time_us t0,
		      bn_time_us t1)
{
	r->n++;
	/* == (a NaN never equal): each extreme's compare comes out as it
	 * did for the bounds last put, which it already holds or passed */
	if (r->last_set && lo == r->last_lo && hi == r->last_hi)
		return;
	r->last_set = true;
	r->last_lo = lo;
	r->last_hi = hi;
	ext_min(&r->lo_min, lo, i, n, t0, t1);
	ext_max(&r->lo_max, lo, i, n, t0, t1);
	if (isinf(hi)) {
		r->unbounded = true;
		ext_max(&r->ub_max, lo, i, n, t0, t1);
		return;
	}
	ext_min(&r->hi_min, hi, i, n, t0, t1);
	ext_max(&r->hi_max, hi, i, n, t0, t1);
}

/* range_put of one sample each at t[0..n-1] (n >= 1), all at (lo, hi, i):
 * after the first, the rest only count (range_put's own shortcut) */
static void range_put_run(struct range *r, double lo, double hi, double i, const bn_time_us *t, long n)
{
	long k = 0;

	range_put(r, lo, hi, i, 1, t[0], t[0]);
	if (r->last_set && lo == r->last_lo && hi == r->last_hi) {
		r->n += n - 1;
		return;
	}
	while (++k < n)
		range_put(r, lo, hi, i, 1, t[k], t[k]);
}

static void ext_merge(struct ext *d, const struct ext *e, bool max)
{
	if (e->set)
		(max ? ext_max : ext_min)(d, e->v, e->i, e->n, e->t0, e->t1);
}

static void range_merge(struct range *d, const struct range *r)
{
	d->last_set = false; /* its extremes move */
	d->n += r->n;
	d->unbounded |= r->unbounded;
	ext_merge(&d->lo_min, &r->lo_min, false);
	ext_merge(&d->hi_min, &r->hi_min, false);
	ext_merge(&d->lo_max, &r->lo_max, true);
	ext_merge(&d->hi_max, &r->hi_max, true);
	ext_merge(&d->ub_max, &r->ub_max, true);
}

/* One load step: when, to what, and the undershoot after it. */
struct step {
	bn_time_us t;
	double i_after;    /* the port's current after it (setpoint + IBUS then) */
	bool judged;       /* within the cap both sides */
	bool back;         /* VBUS back in VCHG (persisted) */
	bn_time_us t_back;
	bool settled_in;   /* the plateau after it averaged inside VCHG */
	bool settled_known;
	bn_time_us t_end;  /* the next step, VBUS off or the capture's end */
	bool went_off;     /* the output went off meanwhile: the shutdown rule's */
	struct range und;  /* the instantaneous level after it */
};

/* An output-off episode in a session. */
struct off_ep {
	bn_time_us t_off;
	double v_before, i_before;
	long n_before;
	bool loaded, loaded_known;
	bool at_step;      /* it fell with a load step or was falling: the load pulled it down */
	bool back;
	bn_time_us t_back;
	bool cut;          /* the bench removed VBUS or the capture ended first */
	bn_time_us t_cut;
};

/* What the closed steps no longer kept say, as und_end judges them. */
struct step_sum {
	struct range und;        /* the judged steps that did not go off */
	int judged;              /* settled in VCHG: their time is judged */
	double d, lower;         /* the slowest back, the longest not seen back (-1: none) */
	bool has_worst, has_cut, has_unsettled;
	struct step worst, worst_cut;
};

/* What the closed off episodes no longer kept say, as shut_end and
 * rec_end judge them. */
struct off_sum {
	int loaded, unloaded, folds;
	bool has_shut, has_back, has_cut;
	struct off_ep shut;      /* loaded: the highest port voltage before (shut_lo) */
	double shut_lo;
	struct off_ep back;      /* loaded and back: the slowest (back_s) */
	double back_s;
	struct off_ep cut;       /* loaded, not seen back: the longest */
};

struct out_priv {
	const struct bn_check_ctx *ctx;
	const struct bn_limits *lim;
	double vchg_lo, vchg_hi, ovr_hi, und_lo, shut_hi, isusp, i_cap, sess_lo, sess_hi;
	bn_time_us avg_us, und_us, rec_us, blk_us;
	bool cable_known;
	double r_ohm, r_u;
	bool rated_known;
	double load_a;
	bool on;                       /* between the bench's VBUS_ON and VBUS_OFF */
	bool seen_on;                  /* the output was on this session (above VOTG_SESS_VLD max) */
	struct bn_persist up, down;    /* VBUS above VOTG_SESS_VLD max / below its min */
	/* 1 ms blocks of VBUS and the port's current */
	struct bn_block b;
	double blk_v[4], blk_i[4];     /* the last blocks, newest first */
	long blk_n[4];
	bn_time_us blk_t0[4];
	bn_time_us t_step;             /* the last load step (or VBUS on) */
	int n_blk;
	/* the current TVBUS_AVG window */
	bool w_on;
	bn_time_us w_t0, w_from;
	long w_n;
	struct bn_rsum w_v, w_i;
	double w_i0, w_i_max;
	struct range vchg;
	long vchg_over_cap;            /* windows not judged: above the cap */
	double max_i;
	/* the last OUT_KS samples (instantaneous excursions) */
	double kv[OUT_KS], ki[OUT_KS];
	int k_n, k_at;
	struct range ovr;
	/* load steps */
	struct step st[OUT_MAX_STEPS];
	int n_st;
	struct step_sum st_sum;        /* the steps folded out of st[] */
	struct bn_persist inv;         /* VBUS (lower bound) inside VCHG */
	/* output-off episodes */
	struct off_ep off[OUT_MAX_STEPS];
	int n_off;
	struct off_sum off_sum;        /* the episodes folded out of off[] */
	bool off_open;
	bool in_shutdown;              /* a judged shutdown, until the output is back */
};

static double lim_s(const struct bn_limits *l, const char *name)
{
	return bn_limits_max(l, name);
}

static void out_begin(void *priv, const struct bn_check_ctx *ctx)
{
	struct out_priv *p = priv;
	const struct bn_limits *l = ctx->lim;
	double rated = ctx->charger_name && ctx->charger_rated_a > 0 ? ctx->charger_rated_a : 0;

	p->ctx = ctx;
	p->lim = l;
	p->vchg_lo = bn_limits_min(l, "VCHG");
	p->vchg_hi = bn_limits_max(l, "VCHG");
	p->ovr_hi = bn_limits_max(l, "VCHG_OVRSHT");
	p->und_lo = bn_limits_min(l, "VCHG_UNDSHT");
	p->shut_hi = bn_limits_max(l, "VDCP_SHTDWN");
	p->isusp = bn_limits_max(l, "ISUSP");
	p->sess_lo = bn_limits_min(l, "VOTG_SESS_VLD");
	p->sess_hi = bn_limits_max(l, "VOTG_SESS_VLD");
	p->avg_us = bn_time_from_s(lim_s(l, "TVBUS_AVG"));
	p->und_us = bn_time_from_s(lim_s(l, "TDCP_UNDSHT"));
	p->rec_us = bn_time_from_s(lim_s(l, "TSHTDWN_REC"));
	p->blk_us = bn_block_len_us(ctx);
	p->cable_known = ctx->charger_name && !isnan(ctx->cable_ohm) && ctx->cable_ohm >= 0;
	p->r_ohm = p->cable_known ? ctx->cable_ohm : 0.0;
	p->r_u = p->cable_known && ctx->cable_u_ohm > 0 ? ctx->cable_u_ohm : 0.0;
	p->rated_known = rated > 0;
	if (rated > 0)
		p->i_cap = bn_fmin(rated, bn_limits_max(l, "IDEV_CHG"));
	else
		p->i_cap = bn_limits_min(l, ctx->port == BN_PORT_CDP ? "ICDP" : "IDCP");
	bn_persist_init(&p->up, BN_PERSIST_LEVEL_US, BN_PERSIST_MIN_SAMPLES, false);
	bn_persist_init(&p->down, BN_PERSIST_LEVEL_US, BN_PERSIST_MIN_SAMPLES, false);
	bn_persist_init(&p->inv, BN_PERSIST_LEVEL_US, BN_PERSIST_MIN_SAMPLES, false);
	bn_block_start(&p->b, 0, p->blk_us);
	p->b.t0 = BN_TIME_NEVER;
	p->st_sum.d = p->st_sum.lower = -1;
}

/* The port's voltage from the receptacle's: [lo, hi]. */
static void port_v(const struct out_priv *p, double v, double i, double *lo, double *hi)
{
	double ip = i > 0 ? i : 0;

	if (p->cable_known) {
		*lo = *hi = v + ip * p->r_ohm;
		return;
	}
	*lo = v;
	*hi = ip <= p->isusp ? v : INFINITY;
}

/* Standard uncertainty of the port's current (IBUS and the load). */
static double u_i(const struct out_priv *p, double i, long n)
{
	double ul = OUT_LOAD_U_REL * p->load_a + OUT_LOAD_U_A;

	(void)i;
	return hypot(bn_ctx_u_level(p->ctx, BN_CH_IBUS, i - p->load_a, n), p->load_a > 0 ? ul : 0.0);
}

/* Expanded U of the port's voltage from a mean of n samples at current i. */
static double u_port(const struct out_priv *p, double v, double i, long n)
{
	double u[3] = { bn_ctx_u_level(p->ctx, BN_CH_VBUS, v, n), i > 0 ? i * p->r_u : 0.0,
			p->cable_known ? p->r_ohm * bn_ctx_u_level(p->ctx, BN_CH_IBUS, i, n) : 0.0 };

	return bn_u_expand(3, u);
}

/* ---- the closed steps and off episodes, folded as they are judged ---- */

static void step_fold(struct step_sum *sm, const struct step *s)
{
	double dk;

	if (s->judged && !s->went_off && s->und.n)
		range_merge(&sm->und, &s->und);
	if (!s->judged || isnan(s->i_after) || s->went_off)
		return;
	if (!s->settled_known || !s->settled_in) {
		sm->has_unsettled = true;
		return;
	}
	sm->judged++;
	if (s->back) {
		dk = bn_time_to_s(s->t_back - s->t);
		if (dk > sm->d) {
			sm->d = dk;
			sm->worst = *s;
			sm->has_worst = true;
		}
	} else {
		dk = bn_time_to_s(s->t_end - s->t);
		if (dk > sm->lower) {
			sm->lower = dk;
			sm->worst_cut = *s;
			sm->has_cut = true;
		}
	}
}

static void off_fold(const struct out_priv *p, struct off_sum *sm, const struct off_ep *o)
{
	double lo, hi;

	if (!o->loaded_known) {
		sm->folds += o->at_step; /* pulled down by a load step: a fold, not a shutdown */
		return;
	}
	if (!(o->i_before > p->isusp + 2.0 * u_i(p, o->i_before, o->n_before))) {
		sm->unloaded++;  /* a restart with no load (a DCP's auto mode): not a shutdown */
		return;
	}
	sm->loaded++;
	/* the port's voltages compared, not the receptacle's: the same VBUS
	 * at a larger current is a higher port voltage */
	port_v(p, o->v_before, o->i_before, &lo, &hi);
	if (!sm->has_shut || lo > sm->shut_lo) {
		sm->shut = *o;
		sm->shut_lo = lo;
		sm->has_shut = true;
	}
	if (o->back) {
		double d = bn_time_to_s(o->t_back - o->t_off);

		if (!sm->has_back || d > sm->back_s) {
			sm->back = *o;
			sm->back_s = d;
			sm->has_back = true;
		}
	} else if (!sm->has_cut || o->t_cut - o->t_off > sm->cut.t_cut - sm->cut.t_off) {
		sm->cut = *o;
		sm->has_cut = true;
	}
}

/* ---- sessions ---- */

static void steps_close(struct out_priv *p, bn_time_us t)
{
	if (p->n_st && !p->st[p->n_st - 1].t_end)
		p->st[p->n_st - 1].t_end = t;
}

static void off_cut(struct out_priv *p, bn_time_us t)
{
	if (p->off_open) {
		struct off_ep *o = &p->off[p->n_off - 1];

		o->cut = true;
		o->t_cut = t;
		p->off_open = false;
	}
}

static void out_event(void *priv, const struct bn_cev *ev)
{
	struct out_priv *p = priv;

	switch (ev->kind) {
	case BN_CEV_VBUS_ON:
		off_cut(p, ev->t_us);
		p->in_shutdown = false;
		p->on = true;
		p->seen_on = false;
		p->w_on = false;
		p->t_step = ev->t_us;
		bn_persist_init(&p->up, BN_PERSIST_LEVEL_US, BN_PERSIST_MIN_SAMPLES, false);
		bn_persist_init(&p->down, BN_PERSIST_LEVEL_US, BN_PERSIST_MIN_SAMPLES, false);
		break;
	case BN_CEV_VBUS_OFF:
		off_cut(p, ev->t_us);
		steps_close(p, ev->t_us);
		p->on = false;
		p->w_on = false;
		break;
	case BN_CEV_LOAD:
		p->load_a = ev->num > 0 ? ev->num : 0.0;
		steps_close(p, ev->t_us);
		p->t_step = ev->t_us;
		if (p->n_st == OUT_MAX_STEPS) {
			/* every kept step is closed (above): the oldest folds
			 * into the summary, nothing of it is dropped */
			step_fold(&p->st_sum, &p->st[0]);
			memmove(&p->st[0], &p->st[1], (OUT_MAX_STEPS - 1) * sizeof(p->st[0]));
			p->n_st--;
		}
		{
			struct step *s = &p->st[p->n_st++];

			memset(s, 0, sizeof(*s));
			s->t = ev->t_us;
			s->i_after = NAN;  /* set by the first block after it */
		}
		/* a new plateau: the window starts again after the step's undershoot */
		p->w_on = false;
		p->w_from = ev->t_us + p->und_us;
		bn_persist_init(&p->inv, BN_PERSIST_LEVEL_US, BN_PERSIST_MIN_SAMPLES, false);
		break;
	default:
		break;
	}
}

/* ---- blocks: VCHG windows, the output's state before it goes off ---- */

static void win_close(struct out_priv *p, bn_time_us t1)
{
	double v, i, lo, hi;

	if (!p->w_on)
		return;
	p->w_on = false;
	if (p->w_n < BN_PERSIST_MIN_SAMPLES)
		return;
	v = bn_rsum_mean(&p->w_v, p->w_n);
	i = bn_rsum_mean(&p->w_i, p->w_n);
	/* the step's plateau settled in VCHG or not (the undershoot's) */
	if (p->n_st) {
		struct step *s = &p->st[p->n_st - 1];

		port_v(p, v, i, &lo, &hi);
		/* the plateau's last window says where it settled */
		if (p->w_t0 >= s->t && !s->t_end) {
			s->settled_known = true;
			s->settled_in = lo >= p->vchg_lo && hi <= p->vchg_hi;
		}
	}
	if (p->w_i_max > p->i_cap + 2.0 * u_i(p, p->w_i_max, 1)) {
		p->vchg_over_cap++;
		return;
	}
	port_v(p, v, i, &lo, &hi);
	range_put(&p->vchg, lo, hi, i, p->w_n, p->w_t0, t1);
}

static void out_blk(void *user, const struct bn_block *b)
{
	struct out_priv *p = user;
	double v = bn_block_mean(b, 0), i = bn_block_mean(b, 1);

	if (!bn_block_full(b))
		return;
	for (int k = 3; k > 0; k--) {
		p->blk_v[k] = p->blk_v[k - 1];
		p->blk_i[k] = p->blk_i[k - 1];
		p->blk_n[k] = p->blk_n[k - 1];
		p->blk_t0[k] = p->blk_t0[k - 1];
	}
	p->blk_v[0] = v;
	p->blk_i[0] = i;
	p->blk_n[0] = b->n;
	p->blk_t0[0] = b->t0;
	if (p->n_blk < 4)
		p->n_blk++;
	if (i > p->max_i && p->on && v > p->sess_hi)
		p->max_i = i;
	if (p->n_st) {
		struct step *s = &p->st[p->n_st - 1];

		if (isnan(s->i_after) && b->t0 >= s->t) {
			double before = p->n_blk > 1 ? p->blk_i[1] : 0.0;

			s->i_after = i;
			s->judged = bn_fmax(i, before) <= p->i_cap;
		}
	}
	/* the VCHG window: on a plateau, after a step's undershoot; an
	 * output off with no load (a DCP's restart), or turned off after
	 * holding its level (a shutdown: bc12.port.shutdown judges it), is
	 * not judged; one pulled down by a load within the cap is: the port
	 * did not hold VCHG at a load it must carry */
	if (!p->on || p->in_shutdown || b->t0 < p->w_from ||
	    (v < p->shut_hi && !(i > p->isusp + 2.0 * u_i(p, i, b->n)))) {
		p->w_on = false;
		return;
	}
	if (p->w_on && fabs(i - p->w_i0) > bn_fmax(OUT_PLATEAU_A, OUT_PLATEAU_REL * fabs(p->w_i0))) {
		/* the current moved: a new plateau, after the same settling */
		p->w_on = false;
		p->w_from = b->t0 + p->und_us;
		return;
	}
	if (!p->w_on) {
		p->w_on = true;
		p->w_t0 = b->t0;
		p->w_n = 0;
		p->w_v = p->w_i = (struct bn_rsum){ 0 };
		p->w_i0 = i;
		p->w_i_max = i;
	}
	p->w_n += b->n;
	bn_rsum_add(&p->w_v, v, b->n);
	bn_rsum_add(&p->w_i, i, b->n);
	if (i > p->w_i_max)
		p->w_i_max = i;
	if (b->t0 + b->len_us - p->w_t0 >= p->avg_us)
		win_close(p, b->t0 + b->len_us);
}

/* ---- samples ---- */

static void k_push(struct out_priv *p, double v, double i, bn_time_us t)
{
	double vmin = INFINITY, vmax = -INFINITY, imin = INFINITY, imax = -INFINITY, lo, hi;

	p->kv[p->k_at] = v;
	p->ki[p->k_at] = i;
	p->k_at = (p->k_at + 1) % OUT_KS;
	if (p->k_n < OUT_KS)
		p->k_n++;
	/* from the bench's VBUS on: a power-up overshoot comes before VBUS
	 * is measured up */
	if (p->k_n < OUT_KS || !p->on)
		return;
	for (int k = 0; k < OUT_KS; k++) {
		vmin = bn_fmin(vmin, p->kv[k]);
		vmax = bn_fmax(vmax, p->kv[k]);
		imin = bn_fmin(imin, p->ki[k]);
		imax = bn_fmax(imax, p->ki[k]);
	}
	/* an overshoot counts if all k samples are above: their least; the
	 * port's voltage of it at the least current (lo) and the most (hi) */
	port_v(p, vmin, imin, &lo, &hi);
	{
		double lo2, hi2;

		port_v(p, vmin, imax, &lo2, &hi2);
		range_put(&p->ovr, lo, hi2, imax, 1, t, t);
	}
	/* an undershoot counts if all k samples are below: their most; only
	 * after a load step with the output up (its turning on or off is not
	 * an undershoot) */
	if (p->n_st && !p->st[p->n_st - 1].t_end && p->up.state && vmax > p->shut_hi) {
		double lo2, hi2;

		port_v(p, vmax, imin, &lo, &hi);
		port_v(p, vmax, imax, &lo2, &hi2);
		range_put(&p->st[p->n_st - 1].und, lo, hi2, imax, 1, t, t);
	}
}

static void out_one(struct out_priv *p, bn_time_us t, double v, double ibus)
{
	double i = ibus + p->load_a, lo, hi;
	bn_time_us tc;

	if (p->b.t0 == BN_TIME_NEVER)
		bn_block_start(&p->b, t, p->blk_us);
	bn_block_run(&p->b, &t, 1, v, i, true, out_blk, p);
	if (bn_persist_feed(&p->up, p->on && v > p->sess_hi, t, t, 1, &tc) && p->up.state) {
		p->seen_on = true;
		if (p->off_open) {
			struct off_ep *o = &p->off[p->n_off - 1];

			o->back = true;
			o->t_back = tc;
			p->off_open = false;
			if (p->in_shutdown) {
				p->in_shutdown = false;
				p->w_on = false;
				p->w_from = tc + p->und_us;
			}
		}
	}
	if (bn_persist_feed(&p->down, p->on && v < p->sess_lo, t, t, 1, &tc) && p->down.state &&
	    p->seen_on && !p->off_open) {
		struct off_ep *o;

		if (p->n_off == OUT_MAX_STEPS) {
			/* every kept episode is closed (a new one opens only then) */
			off_fold(p, &p->off_sum, &p->off[0]);
			memmove(&p->off[0], &p->off[1], (OUT_MAX_STEPS - 1) * sizeof(p->off[0]));
			p->n_off--;
		}
		{
			o = &p->off[p->n_off++];
			memset(o, 0, sizeof(*o));
			o->t_off = tc;
			/* VBUS just before: the lower of the two newest full
			 * blocks that ended before its first sample below (a
			 * slower discharge reads lower: never a false fail), both
			 * at the load in force then, and the current then; none
			 * such: the load step itself pulled it down */
			int a = -1, b2 = -1;

			for (int k = 0; k < p->n_blk; k++) {
				if (p->blk_t0[k] + p->blk_us > tc || p->blk_t0[k] < p->t_step)
					continue;
				if (a < 0)
					a = k;
				else if (b2 < 0)
					b2 = k;
			}
			/* and steady: a level still falling was being pulled
			 * down by the load, wherever it would have ended */
			if (a >= 0 && b2 == a + 1 && fabs(p->blk_v[a] - p->blk_v[b2]) <= OUT_STEADY_V) {
				int k = p->blk_v[a] < p->blk_v[b2] ? a : b2;

				o->v_before = p->blk_v[k];
				o->i_before = bn_fmin(p->blk_i[a], p->blk_i[b2]);
				o->n_before = p->blk_n[k];
				o->loaded_known = true;
				/* its window is the shutdown rule's */
				p->in_shutdown = o->i_before > p->isusp;
				if (p->in_shutdown)
					p->w_on = false;
			} else {
				o->at_step = true;
			}
			p->off_open = true;
			p->seen_on = false;
			if (p->n_st && !p->st[p->n_st - 1].t_end)
				p->st[p->n_st - 1].went_off = true;
		}
	}
	k_push(p, v, i, t);
	/* after a step: VBUS back above VCHG min (its lower bound: an
	 * overshoot on a release is bc12.port.overshoot's, not timed here) */
	if (p->n_st) {
		struct step *s = &p->st[p->n_st - 1];

		port_v(p, v, i, &lo, &hi);
		if (!s->back && !s->t_end &&
		    bn_persist_feed(&p->inv, lo >= p->vchg_lo, t, t, 1, &tc) && p->inv.state) {
			s->back = true;
			s->t_back = tc > s->t ? tc : s->t;
		}
	}
}

static void out_sample(void *priv, bn_time_us t, const struct bn_sample *s)
{
	out_one(priv, t, s->v[BN_CH_VBUS], s->v[BN_CH_IBUS]);
}

/* bits-equal: a held run repeats the stored bits (-0 and 0 differ) */
static bool same_bits(double a, double b)
{
	return !memcmp(&a, &b, sizeof(a));
}

/* Whether the samples to come, all (v, i) with no event between, can
 * change nothing but the blocks, the ranges' counts and the persists'
 * pending flags: the last OUT_KS samples are these bits (not NaN), and
 * each persist fed one already holds the state these give. What can
 * change that (an event, another value) ends the held run first. */
static bool out_steady(const struct out_priv *p, double v, double i)
{
	double lo, hi;

	if (!(v == v && i == i) || p->k_n < OUT_KS)
		return false;
	for (int k = 0; k < OUT_KS; k++)
		if (!same_bits(p->kv[k], v) || !same_bits(p->ki[k], i))
			return false;
	if ((p->on && v > p->sess_hi) != p->up.state || (p->on && v < p->sess_lo) != p->down.state)
		return false;
	if (p->n_st && !p->st[p->n_st - 1].back && !p->st[p->n_st - 1].t_end) {
		port_v(p, v, i, &lo, &hi);
		if ((lo >= p->vchg_lo) != p->inv.state)
			return false;
	}
	return true;
}

/* n samples equal to the last at t[0..n-1]: out_one each, as the sample
 * path does, until out_steady; then what out_one would do for the rest,
 * its blocks at once (out_blk touches nothing the rest reads) */
static void out_hold(void *priv, const bn_time_us *t, long n, const struct bn_sample *s)
{
	struct out_priv *p = priv;
	double v = s->v[BN_CH_VBUS], ibus = s->v[BN_CH_IBUS], i = ibus + p->load_a, lo, hi;
	struct step *st = p->n_st ? &p->st[p->n_st - 1] : NULL;
	long k = 0;

	while (k < n && !out_steady(p, v, i))
		out_one(p, t[k++], v, ibus);
	if (k == n)
		return;
	bn_block_run(&p->b, t + k, n - k, v, i, true, out_blk, p);
	/* each persist fed the state it holds: only its pending flag drops */
	p->up.pending = false;
	p->down.pending = false;
	if (st && !st->back && !st->t_end)
		p->inv.pending = false;
	/* k_push: the window keeps its bits; its least and most are (v, i) */
	p->k_at = (int)((p->k_at + (n - k)) % OUT_KS);
	if (!p->on)
		return;
	port_v(p, v, i, &lo, &hi);
	range_put_run(&p->ovr, lo, hi, i, t + k, n - k);
	if (st && !st->t_end && p->up.state && v > p->shut_hi)
		range_put_run(&st->und, lo, hi, i, t + k, n - k);
}

static void out_end_common(struct out_priv *p, bn_time_us t_end)
{
	win_close(p, t_end);
	steps_close(p, t_end);
	off_cut(p, t_end);
}

/* ---- judging a range ---- */

static double eff_U(const struct bn_result *res, double u)
{
	return !strcmp(res->decision, "simple") ? 0.0 : u;
}

/* Judge the port's voltage range r against [min, max] (NAN: open). */
static void range_judge(const struct out_priv *p, const struct range *r, struct bn_result *res, double min,
			double max, const char *what)
{
	const struct ext *e;
	double u;
	bool lo_in, hi_in;

	/* a fail on a bound that holds whatever the cable */
	if (!isnan(min) && r->hi_min.set &&
	    r->hi_min.v < min - eff_U(res, u_port(p, r->hi_min.v, r->hi_min.i, r->hi_min.n))) {
		e = &r->hi_min;
		goto judge;
	}
	if (!isnan(max) && r->lo_max.set &&
	    r->lo_max.v > max + eff_U(res, u_port(p, r->lo_max.v, r->lo_max.i, r->lo_max.n))) {
		e = &r->lo_max;
		goto judge;
	}
	if (r->unbounded && !isnan(max)) {
		e = &r->ub_max;
		u = u_port(p, e->v, e->i, e->n);
		bn_result_measured(res, e->v, "V");
		bn_result_inconclusive(res, "%s: under load the receptacle's VBUS (highest %.3f V, U = %.3f V, at "
				       "%.3f A) is only a lower bound of the port's: the cable's resistance is not "
				       "known (a charger profile or --charger gives it)", what, e->v, u, e->i);
		bn_result_window(res, e->t0, e->t1);
		return;
	}
	/* a pass needs both bounds inside with their U; a fail comes only
	 * from the two tests above: a bound the port may not be at (the
	 * receptacle's VBUS with the cable unknown, a current that moved
	 * within the samples at a load step) never fails it */
	lo_in = isnan(min) || (r->lo_min.set &&
			       r->lo_min.v >= min + eff_U(res, u_port(p, r->lo_min.v, r->lo_min.i, r->lo_min.n)));
	hi_in = isnan(max) || (r->hi_max.set && !r->unbounded &&
			       r->hi_max.v <= max - eff_U(res, u_port(p, r->hi_max.v, r->hi_max.i, r->hi_max.n)));
	/* the bound nearer its limit is the one reported */
	if (isnan(max) || (!isnan(min) && r->lo_min.v - min < max - r->hi_max.v))
		e = &r->lo_min;
	else
		e = &r->hi_max;
	if (lo_in && hi_in)
		goto judge;
	e = !lo_in ? &r->lo_min : &r->hi_max;
	u = u_port(p, e->v, e->i, e->n);
	bn_result_judge_u(res, e->v, u, min, max, "V");
	bn_result_window(res, e->t0, e->t1);
	bn_result_figure(res, "port_current", e->i, "A");
	if (res->verdict == BN_VERDICT_INCONCLUSIVE)
		return; /* within measurement uncertainty, said by the judge */
	bn_result_inconclusive(res, "%s: the port's %s bound reaches %.3f V (at %.3f A, U = %.3f V), past %.2f V, "
			       "but its %s bound does not: the port may be on either side (the cable's "
			       "resistance, or a current that moved within the samples, leaves it that wide)",
			       what, !lo_in ? "lower" : "upper", e->v, e->i, u, !lo_in ? min : max,
			       !lo_in ? "upper" : "lower");
	return;
judge:
	u = u_port(p, e->v, e->i, e->n);
	bn_result_judge_u(res, e->v, u, min, max, "V");
	bn_result_window(res, e->t0, e->t1);
	bn_result_figure(res, "port_current", e->i, "A");
}

static const char *port_of(const struct out_priv *p)
{
	return p->ctx->port_name ? p->ctx->port_name : bn_port_name(p->ctx->port);
}

static const char *cable_said(const struct out_priv *p)
{
	return p->cable_known ? "referred to the port through the cable" : "at the receptacle";
}

/* ---- bc12.port.vchg ---- */

static void vchg_end(void *priv, bn_time_us t_end_us, struct bn_result *res)
{
	struct out_priv *p = priv;
	char what[96];

	out_end_common(p, t_end_us);
	if (!p->vchg.n) {
		if (p->vchg_over_cap)
			bn_result_inconclusive(res, "every %.0f ms plateau drew more than the cap %.3f A (%s): "
					       "none to judge", bn_time_to_s(p->avg_us) * 1e3, p->i_cap,
					       p->rated_known ? "min(declared rating, IDEV_CHG max)"
							      : "no declared rating: the least the port type carries");
		else
			bn_result_inconclusive(res, "no %.0f ms plateau of the port's current with VBUS up (after "
					       "TDCP_UNDSHT max from each step): nothing to average",
					       bn_time_to_s(p->avg_us) * 1e3);
		bn_result_window(res, 0, t_end_us);
		return;
	}
	snprintf(what, sizeof(what), "VCHG %s", cable_said(p));
	range_judge(p, &p->vchg, res, p->vchg_lo, p->vchg_hi, what);
	bn_result_figure(res, "windows", (double)p->vchg.n, "");
	bn_result_figure(res, "cap", p->i_cap, "A");
	if (res->verdict == BN_VERDICT_FAIL)
		bn_result_fail(res, "the port (%s) held VBUS at %.3f V (%s; U = %.3f V) over %.0f ms drawing "
			       "%.3f A from %.3f s: outside VCHG %.2f-%.2f V", port_of(p), res->measured,
			       cable_said(p), res->u, bn_time_to_s(res->t1_us - res->t0_us) * 1e3,
			       res->figures[0].value, bn_time_to_s(res->t0_us), p->vchg_lo, p->vchg_hi);
}

const struct bn_rule bn_port_vchg = {
	.id = "bc12.port.vchg",
	.task = BN_TASK_PORT_OUTPUT,
	.side = BN_SIDE_PORT,
	.title = "the port holds VBUS within VCHG at load plateaus up to min(its rating, IDEV_CHG max)",
	.clause = "CP 7.2, 8.2",
	.limit = "VCHG",
	.persistence = "VBUS + I x R_cable as TVBUS_AVG max (250 ms) means of 1 ms blocks on plateaus of the "
		       "port's current (IBUS + e-load), from TDCP_UNDSHT max after each load step; the "
		       "window furthest out",
	.needs_channels = OUT_CHANNELS,
	.needs_events = OUT_EVENTS,
	.min_rate_hz = OUT_MIN_RATE_HZ,
	.ports = OUT_PORTS,
	.uses_port = true,
	.judges_late_capture = true,
	.priv_size = sizeof(struct out_priv),
	.begin = out_begin,
	.sample = out_sample,
	.hold = out_hold,
	.event = out_event,
	.end = vchg_end,
};

/* ---- bc12.port.overshoot ---- */

static void ovr_end(void *priv, bn_time_us t_end_us, struct bn_result *res)
{
	struct out_priv *p = priv;
	char what[96];

	out_end_common(p, t_end_us);
	if (!p->ovr.n) {
		bn_result_inconclusive(res, "the bench never applied VBUS for %d samples in a row (its VBUS_ON to "
				       "VBUS_OFF): no overshoot to look for", OUT_KS);
		bn_result_window(res, 0, t_end_us);
		return;
	}
	snprintf(what, sizeof(what), "VCHG_OVRSHT %s", cable_said(p));
	range_judge(p, &p->ovr, res, NAN, p->ovr_hi, what);
	if (res->verdict == BN_VERDICT_FAIL)
		bn_result_fail(res, "the port (%s) overshot to %.3f V (%d samples, %s; U = %.3f V) at %.3f s: "
			       "above VCHG_OVRSHT max %.2f V", port_of(p), res->measured, OUT_KS, cable_said(p),
			       res->u, bn_time_to_s(res->t0_us), p->ovr_hi);
}

const struct bn_rule bn_port_overshoot = {
	.id = "bc12.port.overshoot",
	.task = BN_TASK_PORT_OUTPUT,
	.side = BN_SIDE_PORT,
	.title = "the port's VBUS never exceeds VCHG_OVRSHT max (power-up, load steps)",
	.clause = "CP 7.2, 8.2",
	.limit = "VCHG_OVRSHT",
	.persistence = "instantaneous: 3 consecutive samples all above, VBUS + I x R_cable, while the bench "
		       "applies VBUS (from its VBUS_ON, not from VBUS measured up: a power-up overshoot comes "
		       "first)",
	.needs_channels = OUT_CHANNELS,
	.needs_events = OUT_EVENTS,
	.min_rate_hz = OUT_MIN_RATE_HZ,
	.ports = OUT_PORTS,
	.judges_late_capture = true,
	.priv_size = sizeof(struct out_priv),
	.begin = out_begin,
	.sample = out_sample,
	.hold = out_hold,
	.event = out_event,
	.end = ovr_end,
};

/* ---- bc12.port.undershoot ---- */

static void und_end(void *priv, bn_time_us t_end_us, struct bn_result *res)
{
	struct out_priv *p = priv;
	double tmax = lim_s(p->lim, "TDCP_UNDSHT"), u, d, lower;
	const struct step *worst, *worst_cut;
	struct step_sum sm;
	int judged;
	char what[96];

	out_end_common(p, t_end_us);
	sm = p->st_sum;
	for (int k = 0; k < p->n_st; k++)
		step_fold(&sm, &p->st[k]);
	d = sm.d;
	lower = sm.lower;
	judged = sm.judged;
	worst = sm.has_worst ? &sm.worst : NULL;
	worst_cut = sm.has_cut ? &sm.worst_cut : NULL;
	if (!sm.und.n) {
		bn_result_inconclusive(res, "no load step within the cap %.3f A (BN_CEV_LOAD) with the output up "
				       "after it: no undershoot to judge", p->i_cap);
		bn_result_window(res, 0, t_end_us);
		return;
	}
	/* the level: below VCHG_UNDSHT min for 3 samples fails */
	snprintf(what, sizeof(what), "VCHG_UNDSHT %s", cable_said(p));
	range_judge(p, &sm.und, res, p->und_lo, NAN, what);
	if (res->verdict == BN_VERDICT_FAIL) {
		bn_result_fail(res, "the port (%s) undershot to %.3f V (%d samples, %s; U = %.3f V) at %.3f s: "
			       "below VCHG_UNDSHT min %.2f V", port_of(p), res->measured, OUT_KS, cable_said(p),
			       res->u, bn_time_to_s(res->t0_us), p->und_lo);
		return;
	}
	/* the time: back into VCHG within TDCP_UNDSHT max of each load step
	 * within the cap, on a port that settles in VCHG (one that does not
	 * fails bc12.port.vchg, not this): step_fold took the worst */
	if (worst_cut && lower > d) {
		/* never seen back, though its plateau averaged in VCHG: at least that long */
		u = bn_span_U(p->ctx, BN_CH_VBUS, BN_CH_VBUS);
		bn_result_judge_u(res, lower, u, NAN, tmax, "s");
		bn_result_window(res, worst_cut->t, worst_cut->t_end);
		if (res->verdict == BN_VERDICT_FAIL)
			bn_result_fail(res, "after the load step at %.3f s (to %.3f A) the port's VBUS was not "
				       "back in VCHG for the %.1f ms to the next: longer than TDCP_UNDSHT max "
				       "%.0f ms", bn_time_to_s(worst_cut->t), worst_cut->i_after, lower * 1e3,
				       tmax * 1e3);
		else
			bn_result_inconclusive(res, "after the load step at %.3f s VBUS was not seen back in VCHG "
					       "(%s) in the %.1f ms to the next", bn_time_to_s(worst_cut->t),
					       cable_said(p), lower * 1e3);
		return;
	}
	if (!judged) {
		if (sm.has_unsettled)
			bn_result_inconclusive(res, "no undershoot below VCHG_UNDSHT; the load steps' plateaus did "
					       "not settle in VCHG (bc12.port.vchg judges them) or were too short "
					       "for a %.0f ms average: no undershoot time to judge",
					       bn_time_to_s(p->avg_us) * 1e3);
		else
			bn_result_inconclusive(res, "no undershoot below VCHG_UNDSHT, but no load step within the "
					       "cap %.3f A (BN_CEV_LOAD) to time one after", p->i_cap);
		bn_result_window(res, 0, t_end_us);
		return;
	}
	u = bn_span_U(p->ctx, BN_CH_VBUS, BN_CH_VBUS);
	if (res->verdict == BN_VERDICT_PASS || d > 0) {
		struct bn_result lvl = *res;

		bn_result_judge_u(res, d, u, NAN, tmax, "s");
		bn_result_window(res, worst->t, worst->t_back);
		bn_result_figure(res, "steps", judged, "");
		if (res->verdict == BN_VERDICT_FAIL) {
			bn_result_fail(res, "after the load step at %.3f s (to %.3f A) the port's VBUS came back "
				       "into VCHG (%s) only after %.1f ms: longer than TDCP_UNDSHT max %.0f ms "
				       "(U = %.2f ms)", bn_time_to_s(worst->t), worst->i_after, cable_said(p),
				       d * 1e3, tmax * 1e3, res->u * 1e3);
			return;
		}
		/* the level's verdict stands if it was the weaker */
		if (lvl.verdict == BN_VERDICT_INCONCLUSIVE)
			*res = lvl;
	}
}

const struct bn_rule bn_port_undershoot = {
	.id = "bc12.port.undershoot",
	.task = BN_TASK_PORT_OUTPUT,
	.side = BN_SIDE_PORT,
	.title = "on a load step within the cap the port's VBUS stays above VCHG_UNDSHT min and is back in "
		 "VCHG within TDCP_UNDSHT max",
	.clause = "CP 7.2, 8.2",
	.limit = "VCHG_UNDSHT",
	.persistence = "instantaneous: 3 consecutive samples all below VCHG_UNDSHT min (VBUS + I x R_cable, "
		       "output up); back in VCHG: inside for >= 1 ms, dated at its first sample, from the "
		       "load step (BN_CEV_LOAD)",
	.needs_channels = OUT_CHANNELS,
	.needs_events = OUT_EVENTS,
	.min_rate_hz = OUT_MIN_RATE_HZ,
	.ports = OUT_PORTS,
	.uses_port = true,
	.judges_late_capture = true,
	.priv_size = sizeof(struct out_priv),
	.begin = out_begin,
	.sample = out_sample,
	.hold = out_hold,
	.event = out_event,
	.end = und_end,
};

/* ---- bc12.port.shutdown ---- */

static void shut_end(void *priv, bn_time_us t_end_us, struct bn_result *res)
{
	struct out_priv *p = priv;
	const struct off_ep *worst;
	struct off_sum sm;
	int loaded, unloaded, folds;
	double lo, hi, u;

	out_end_common(p, t_end_us);
	sm = p->off_sum;
	for (int k = 0; k < p->n_off; k++)
		off_fold(p, &sm, &p->off[k]);
	worst = sm.has_shut ? &sm.shut : NULL;
	loaded = sm.loaded;
	unloaded = sm.unloaded;
	folds = sm.folds;
	if (!worst) {
		if (p->max_i > p->isusp) {
			/* delivered, and never went off under load: nothing broke the rule */
			res->verdict = BN_VERDICT_PASS;
			snprintf(res->measured_str, sizeof(res->measured_str), "no shutdown under load");
			bn_result_figure(res, "restarts_unloaded", unloaded, "");
			bn_result_figure(res, "pulled_down_by_a_step", folds, "");
			bn_result_figure(res, "max_port_current", p->max_i, "A");
			bn_result_window(res, 0, t_end_us);
			return;
		}
		bn_result_inconclusive(res, "the port never delivered more than ISUSP max (%.1f mA) with VBUS "
				       "up: no load to shut down under%s", p->isusp * 1e3,
				       unloaded ? " (its output restarted with no load: not judged)" : "");
		bn_result_window(res, 0, t_end_us);
		return;
	}
	port_v(p, worst->v_before, worst->i_before, &lo, &hi);
	u = u_port(p, worst->v_before, worst->i_before, worst->n_before);
	if (lo > p->shut_hi + eff_U(res, u) || !isinf(hi)) {
		bn_result_judge_u(res, lo, u, NAN, p->shut_hi, "V");
	} else {
		bn_result_measured(res, lo, "V");
		bn_result_inconclusive(res, "the output went off at %.3f s drawing %.3f A from %.3f V at the "
				       "receptacle: the cable's resistance is not known, so the port's own "
				       "voltage may have been above VDCP_SHTDWN max",
				       bn_time_to_s(worst->t_off), worst->i_before, worst->v_before);
	}
	bn_result_window(res, worst->t_off - 2 * p->blk_us, worst->t_off);
	bn_result_figure(res, "port_current", worst->i_before, "A");
	bn_result_figure(res, "shutdowns", loaded, "");
	if (res->verdict == BN_VERDICT_FAIL)
		bn_result_fail(res, "the port (%s) turned its output off at %.3f s while delivering %.3f A with "
			       "VBUS at %.3f V just before (%s; U = %.3f V): a port may shut down only below "
			       "VDCP_SHTDWN max %.2f V", port_of(p), bn_time_to_s(worst->t_off), worst->i_before,
			       lo, cable_said(p), res->u, p->shut_hi);
}

const struct bn_rule bn_port_shutdown = {
	.id = "bc12.port.shutdown",
	.task = BN_TASK_PORT_OUTPUT,
	.side = BN_SIDE_PORT,
	.title = "the port turns its output off under load only once VBUS is below VDCP_SHTDWN max",
	.clause = NULL,
	.limit = "VDCP_SHTDWN",
	.persistence = "off: VBUS below VOTG_SESS_VLD min for >= 1 ms while the bench applies it; before: "
		       "the lower of the two 1 ms block means ending 1 ms before it, drawing > ISUSP + U "
		       "(IBUS + e-load); no load: a restart, not judged",
	.needs_channels = OUT_CHANNELS,
	.needs_events = OUT_EVENTS,
	.min_rate_hz = OUT_MIN_RATE_HZ,
	.ports = OUT_PORTS,
	.judges_late_capture = true,
	.priv_size = sizeof(struct out_priv),
	.begin = out_begin,
	.sample = out_sample,
	.hold = out_hold,
	.event = out_event,
	.end = shut_end,
};

/* ---- bc12.port.recovery ---- */

static void rec_end(void *priv, bn_time_us t_end_us, struct bn_result *res)
{
	struct out_priv *p = priv;
	double rmax = lim_s(p->lim, "TSHTDWN_REC"), d, u = bn_span_U(p->ctx, BN_CH_VBUS, BN_CH_VBUS);
	const struct off_ep *worst, *cut;
	struct off_sum sm;

	out_end_common(p, t_end_us);
	sm = p->off_sum;
	for (int k = 0; k < p->n_off; k++)
		off_fold(p, &sm, &p->off[k]);
	worst = sm.has_back ? &sm.back : NULL;
	cut = sm.has_cut ? &sm.cut : NULL;
	d = sm.back_s;
	if (cut && bn_time_to_s(cut->t_cut - cut->t_off) > rmax + eff_U(res, u)) {
		bn_result_judge_u(res, bn_time_to_s(cut->t_cut - cut->t_off), u, NAN, rmax, "s");
		bn_result_window(res, cut->t_off, cut->t_cut);
		bn_result_fail(res, "the port (%s) shut down at %.3f s and was not back (VBUS above "
			       "VOTG_SESS_VLD max) %.1f s later: longer than TSHTDWN_REC max %.0f s",
			       port_of(p), bn_time_to_s(cut->t_off), bn_time_to_s(cut->t_cut - cut->t_off), rmax);
		return;
	}
	if (worst) {
		bn_result_judge_u(res, d, u, NAN, rmax, "s");
		bn_result_window(res, worst->t_off, worst->t_back);
		if (res->verdict == BN_VERDICT_FAIL)
			bn_result_fail(res, "the port (%s) shut down at %.3f s and came back after %.1f s: longer "
				       "than TSHTDWN_REC max %.0f s", port_of(p), bn_time_to_s(worst->t_off), d, rmax);
		if (!cut || res->verdict == BN_VERDICT_FAIL)
			return;
	}
	if (cut) {
		bn_result_inconclusive(res, "the port shut down under load at %.3f s and %s %.1f s later, before "
				       "TSHTDWN_REC max %.0f s: not seen back", bn_time_to_s(cut->t_off),
				       cut->t_cut >= t_end_us ? "the capture ended" : "the bench removed VBUS",
				       bn_time_to_s(cut->t_cut - cut->t_off), rmax);
		bn_result_window(res, cut->t_off, cut->t_cut);
		return;
	}
	bn_result_inconclusive(res, "the port never shut down under load: no recovery to time");
	bn_result_window(res, 0, t_end_us);
}

const struct bn_rule bn_port_recovery = {
	.id = "bc12.port.recovery",
	.task = BN_TASK_PORT_OUTPUT,
	.side = BN_SIDE_PORT,
	.title = "after shutting down under load the port's output is back within TSHTDWN_REC max",
	.clause = "BC1.2 Table 5-5",
	.limit = "TSHTDWN_REC",
	.persistence = "off and back: VBUS below VOTG_SESS_VLD min / above its max for >= 1 ms, dated at "
		       "the first sample, while the bench applies it",
	.needs_channels = OUT_CHANNELS,
	.needs_events = OUT_EVENTS,
	.min_rate_hz = OUT_MIN_RATE_HZ,
	.ports = OUT_PORTS,
	.judges_late_capture = true,
	.priv_size = sizeof(struct out_priv),
	.begin = out_begin,
	.sample = out_sample,
	.hold = out_hold,
	.event = out_event,
	.end = rec_end,
};
