/* bcbench curve import: three passes over the capture (import.h): the
 * noise and VBUS's collapses, the steady bins, then what the fit does
 * not explain. The file is streamed each time, so memory does not grow
 * with the capture (but for the unexplained span, bounded). */
#define BN_LOG_MODULE "import"
#include "curve/import.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/chanmap.h"
#include "core/channel.h"
#include "capture/events.h"
#include "capture/srzip_read.h"
#include "core/file.h"
#include "core/limits.h"
#include "curve/measured.h"
#include "core/log.h"
#include "core/text.h"
#include "core/time.h"

#define BLOCK_FRAMES 65536
/* |successive difference| histogram for the noise: log bins from 1e-9. */
#define HIST_BINS 600
#define HIST_LO 1e-9
#define HIST_PER_DECADE 50.0
/* Samples in a row off the fit before they count as unexplained: one
 * noise tail is not a phenomenon. */
#define RESID_RUN 3
/* The fewest frames worth importing. */
#define MIN_FRAMES 16

void bn_import_opts_default(struct bn_import_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->bin_a = 0.025;
	o->min_samples = 20;
	o->settle_s = 0.020;
	o->cable_ohm = NAN;
	o->monotone = true;
	o->resid_factor = 4.0;
	o->series_tol_v = 0.005;
	o->series_tol_a = 0.005;
	o->inline_max = BN_IMPORT_INLINE_MAX;
}

/* ---- reading the capture: VBUS and IBUS in SI, with the port's current ---- */

struct src {
	const struct bn_import_opts *o;
	struct bn_srr *srr;
	int sel[2];                /* file channel indexes of VBUS, IBUS */
	double gain[2];
	struct bn_evrec ev;
	bool have_ev;
	bn_time_us t0_us;
	double rate_hz;
	float *col[2];
};

/* VBUS and IBUS through the map, as replay maps them (scenario/replay.c). */
static int map_two(struct src *s, struct bn_import *r, struct bn_err *err)
{
	const char *path = s->o->capture_path;
	const struct bn_srr_info *in = bn_srr_info(s->srr);
	static const int want[2] = { BN_CH_VBUS, BN_CH_IBUS };
	struct bn_chanmap map;
	char have[600];
	int rc;

	bn_srr_list_channels(in, have, sizeof(have));
	bn_chanmap_default(&map);
	if (s->o->map) {
		rc = bn_chanmap_parse(s->o->map, &map, "--map", err);
		if (rc < 0)
			return rc;
	}
	for (int k = 0; k < 2; k++) {
		const struct bn_chanmap_entry *e = &map.e[want[k]];
		int idx = bn_srr_find(s->srr, e->src);
		const char *funit;

		if (idx < 0)
			return bn_err_set(err, BN_ERR_DATA,
					  "%s: error: no %s channel%s%s%s (the file has: %s; curve import "
					  "needs VBUS and IBUS: name them with --map VBUS=...,IBUS=...)",
					  path, bn_chan_label(want[k]), e->set ? " \"" : "",
					  e->set ? e->src : "", e->set ? "\" as --map names it" : "", have);
		if (!in->ch[idx].analog)
			return bn_err_set(err, BN_ERR_DATA,
					  "%s: error: %s <- %s: a logic channel (expected an analog one)",
					  path, bn_chan_label(want[k]), e->src);
		funit = in->ch[idx].unit;
		if (funit[0] && !(e->set && e->scale != 1.0) && strcasecmp(funit, e->unit) &&
		    !(strlen(funit) == 2 && tolower((unsigned char)funit[0]) == 'm' &&
		      !strcasecmp(funit + 1, e->unit)))
			return bn_err_set(err, BN_ERR_DATA,
					  "%s: error: %s <- %s: the file says it is in %s, but %s is in %s "
					  "(give --map %s=%s:scale=...:unit=%s)",
					  path, bn_chan_label(want[k]), e->src, funit,
					  bn_chan_label(want[k]), bn_chan_unit(want[k]),
					  bn_chan_label(want[k]), e->src, bn_chan_unit(want[k]));
		s->sel[k] = idx;
		s->gain[k] = e->scale * e->to_si;
		bn_str_copy(r->chan_src[k], sizeof(r->chan_src[k]), in->ch[idx].name);
		r->chan_gain[k] = s->gain[k];
		if (k == 1)
			r->shunt_ohm = e->shunt_ohm;
	}
	return bn_srr_select(s->srr, 2, s->sel, err);
}

static int src_open(struct src *s, struct bn_import *r, struct bn_err *err)
{
	int rc;

	rc = bn_srr_open(s->o->capture_path, &s->srr, err);
	if (rc < 0)
		return rc;
	rc = map_two(s, r, err);
	if (rc < 0)
		return rc;
	s->rate_hz = bn_srr_info(s->srr)->rate_hz;
	return BN_OK;
}

static void src_close(struct src *s)
{
	if (s->srr)
		bn_srr_close(s->srr);
	s->srr = NULL;
}

/* What the bench did, sample by sample: the e-load's setpoint and
 * whether it applied VBUS. */
struct bench_state {
	int next;
	double load_a;
	bool vbus_on;
};

static void bench_init(const struct src *s, struct bench_state *b)
{
	b->next = 0;
	b->load_a = 0.0;
	/* Without a record nothing says the bench ever turned VBUS off. */
	b->vbus_on = !(s->have_ev && (s->ev.ctx.events & BN_CEV_BIT(BN_CEV_VBUS_ON)));
}

static void bench_advance(const struct src *s, struct bench_state *b, bn_time_us t)
{
	if (!s->have_ev)
		return;
	while (b->next < s->ev.n && s->ev.ev[b->next].t_us <= t) {
		const struct bn_cev *e = &s->ev.ev[b->next++];

		if (e->kind == BN_CEV_LOAD)
			b->load_a = e->num;
		else if (e->kind == BN_CEV_VBUS_ON)
			b->vbus_on = true;
		else if (e->kind == BN_CEV_VBUS_OFF)
			b->vbus_on = false;
	}
}

/* One pass: f(user, k, t_us, vbus_v, port_a, ibus_a, bench) per frame. */
typedef int (*frame_fn)(void *user, int64_t k, bn_time_us t, double v, double i, double ibus,
			const struct bench_state *b);

static int pass(struct src *s, struct bn_import *r, frame_fn f, void *user, struct bn_err *err)
{
	struct bench_state b;
	struct bn_ticker tk;
	int64_t k = 0;
	long n;
	int rc;

	src_close(s);
	rc = src_open(s, r, err);
	if (rc < 0)
		return rc;
	bench_init(s, &b);
	bn_ticker_init(&tk, s->rate_hz, 0);
	while ((n = bn_srr_read_cols(s->srr, s->col, BLOCK_FRAMES, err)) > 0) {
		if (s->o->stop_flag && *s->o->stop_flag)
			return bn_err_set(err, BN_ERR_INTR, "%s: interrupted", s->o->capture_path);
		for (long j = 0; j < n; j++, k++) {
			bn_time_us t = s->t0_us + bn_ticker_next(&tk);
			double v = s->col[0][j] * s->gain[0];
			double ib = s->col[1][j] * s->gain[1];

			bench_advance(s, &b, t);
			/* a sample the instrument did not give (NaN, infinity) is a gap */
			if (!isfinite(v) || !isfinite(ib))
				continue;
			rc = f(user, k, t, v, ib + (r->used_load ? b.load_a : 0.0), ib, &b);
			if (rc < 0)
				return rc;
		}
	}
	return n < 0 ? (int)n : BN_OK;
}

/* ---- pass 0: noise, range, VBUS on ---- */

struct hist {
	long c[HIST_BINS];
	long n, zero;
};

static void hist_add(struct hist *h, double d)
{
	int b;

	d = fabs(d);
	h->n++;
	if (!(d >= HIST_LO)) {
		h->zero++;
		return;
	}
	b = (int)(log10(d / HIST_LO) * HIST_PER_DECADE);
	h->c[b < 0 ? 0 : b >= HIST_BINS ? HIST_BINS - 1 : b]++;
}

/* sigma of white noise from the median |successive difference|: robust
 * to the signal's own steps, which are rare next to the samples. */
static double hist_sigma(const struct hist *h)
{
	long half = h->n / 2, acc = h->zero;

	if (h->n == 0 || acc > half)
		return 0.0;
	for (int b = 0; b < HIST_BINS; b++) {
		acc += h->c[b];
		if (acc > half)
			return HIST_LO * pow(10.0, (b + 0.5) / HIST_PER_DECADE) / (0.6745 * sqrt(2.0));
	}
	return 0.0;
}

/* The port's current held: a run of samples all within 2 tol of each
 * other, since start. */
struct run {
	bool in;
	int64_t start;
	double lo, hi;
};

static void run_step(struct run *u, int64_t k, double i, double tol_a)
{
	if (!u->in || fmax(u->hi, i) - fmin(u->lo, i) > 2.0 * tol_a) {
		u->in = true;
		u->start = k;
		u->lo = u->hi = i;
	} else {
		u->lo = fmin(u->lo, i);
		u->hi = fmax(u->hi, i);
	}
}

struct p0 {
	struct bn_import *r;
	struct hist hv, hi;
	double prev_v, prev_ib;
	bool have_prev;
	bool on_seen;
};

static int p0_frame(void *user, int64_t k, bn_time_us t, double v, double i, double ib,
		    const struct bench_state *b)
{
	struct p0 *p = user;
	struct bn_import *r = p->r;

	(void)k;
	if (p->have_prev) {
		hist_add(&p->hv, v - p->prev_v);
		hist_add(&p->hi, ib - p->prev_ib);
	}
	p->prev_v = v;
	p->prev_ib = ib;
	p->have_prev = true;
	if (b->vbus_on && i > r->max_seen_a)
		r->max_seen_a = i;
	if (!p->on_seen && v >= r->v_valid_v) {
		p->on_seen = true;
		r->t_on_s = (double)t / 1e6;
	}
	return BN_OK;
}

/* ---- the collapses ---- */

#define RING 64

struct pc {
	struct bn_import *r;
	struct run run;
	int cap_col;
	int state;                 /* 0 never valid, 1 valid or sagging, 2 collapsed */
	int64_t k_leave;           /* the last valid sample */
	bn_time_us t_leave;
	int64_t held_n;            /* samples the current was held at k_leave */
	double ring_i[RING], ring_v[RING]; /* the last valid samples */
	int ring_n, ring_i0, ring_len;
	bool bench_off;            /* the bench turned VBUS off since k_leave */
	double last_i;             /* the port's current at k_leave */
	double leave_i;            /* and at the sample after it */
};

static int add_collapse(struct bn_import *r, int *cap, const struct bn_import_collapse *c)
{
	if (r->n_collapses == *cap) {
		int nc = *cap ? *cap * 2 : 8;
		void *p = realloc(r->col, sizeof(*r->col) * (size_t)nc);

		if (!p)
			return BN_ERR_NOMEM;
		r->col = p;
		*cap = nc;
	}
	r->col[r->n_collapses++] = *c;
	return BN_OK;
}

/* A shutdown: the bench did not cause it, current was drawn, that
 * current had been held (at least 1 ms, 2 samples) with VBUS steady, so
 * neither a step of the draw past the curve's end (the fold-back) nor a
 * sag sliding down explains it. */
static int pc_close(struct pc *p, double recover_s)
{
	struct bn_import *r = p->r;
	struct bn_import_collapse c = { 0 };
	double si = 0.0, vlo = INFINITY, vhi = -INFINITY;
	int64_t min_held = (int64_t)fmax(2.0, ceil(r->rate_hz * 1e-3));

	for (int j = 0; j < p->ring_n; j++) {
		si += p->ring_i[j];
		vlo = fmin(vlo, p->ring_v[j]);
		vhi = fmax(vhi, p->ring_v[j]);
	}
	c.t_s = (double)p->t_leave / 1e6;
	c.before_a = p->ring_n ? si / p->ring_n : 0.0;
	c.held_s = (double)p->held_n / r->rate_hz;
	c.recover_s = recover_s;
	if (p->bench_off)
		snprintf(c.why, sizeof(c.why), "the bench turned VBUS off");
	else if (!(c.before_a > r->tol_a))
		snprintf(c.why, sizeof(c.why), "nothing was drawn before it (%.3f A)", c.before_a);
	else if (p->leave_i > p->last_i + r->tol_a)
		snprintf(c.why, sizeof(c.why),
			 "it came with a step up of the current (%.3f A to %.3f A): the curve's "
			 "fold-back", p->last_i, p->leave_i);
	else if (p->held_n < min_held)
		snprintf(c.why, sizeof(c.why), "the current had not been held before it");
	else if (p->ring_n < 2 || vhi - vlo > fmax(0.05, 6.0 * r->sigma_v))
		snprintf(c.why, sizeof(c.why), "VBUS was sliding down before it (%.3f V in %d samples)",
			 vhi - vlo, p->ring_n);
	else
		c.shutdown = true;
	return add_collapse(r, &p->cap_col, &c);
}

static int pc_frame(void *user, int64_t k, bn_time_us t, double v, double i, double ib,
		    const struct bench_state *b)
{
	struct pc *p = user;
	struct bn_import *r = p->r;
	int64_t held_before = p->run.in ? k - p->run.start : 0;

	(void)ib;
	run_step(&p->run, k, i, r->tol_a);
	if (!b->vbus_on)
		p->bench_off = true;
	if (p->state == 2) {
		if (v >= r->v_valid_v) {
			int rc = pc_close(p, (double)(t - p->t_leave) / 1e6);

			if (rc < 0)
				return rc;
			p->state = 1;
			p->ring_n = 0;
		} else {
			return BN_OK;
		}
	}
	if (v >= r->v_valid_v) {
		p->state = 1;
		p->k_leave = k;
		p->t_leave = t;
		p->held_n = held_before;
		p->last_i = i;
		p->leave_i = i;
		p->bench_off = !b->vbus_on;
		p->ring_i[p->ring_i0] = i;
		p->ring_v[p->ring_i0] = v;
		p->ring_i0 = (p->ring_i0 + 1) % p->ring_len;
		if (p->ring_n < p->ring_len)
			p->ring_n++;
	} else if (p->state == 1) {
		if (k == p->k_leave + 1)
			p->leave_i = i;
		if (v < r->v_off_v)
			p->state = 2;
	}
	return BN_OK;
}

/* ---- pass 1: steady samples into bins ---- */

struct bin {
	long n;
	double si;       /* sum of currents */
	double lo, hi;   /* their range */
	double mv, m2;   /* Welford: mean and sum of squares of VBUS */
};

struct p1 {
	struct bn_import *r;
	const struct bn_import_opts *o;
	struct bin *bins;
	int n_bins;
	long settle_n;
	double *vring;             /* VBUS of the last settle_n + 1 samples */
	double vtol;               /* how far VBUS may move over settle_n when settled */
	struct run run;
	int next_col;              /* the next collapse (shutdowns are excluded) */
	long *drawn;               /* per bin: drawn at all (steady or not) */
};

static bool excluded(struct p1 *p, bn_time_us t)
{
	struct bn_import *r = p->r;
	double ts = (double)t / 1e6;

	while (p->next_col < r->n_collapses) {
		const struct bn_import_collapse *c = &r->col[p->next_col];
		double end = c->recover_s >= 0 ? c->t_s + c->recover_s : INFINITY;

		if (ts < c->t_s)
			return false;
		if (ts <= end)
			return c->shutdown;
		p->next_col++;
	}
	return false;
}

static int p1_frame(void *user, int64_t k, bn_time_us t, double v, double i, double ib,
		    const struct bench_state *b)
{
	struct p1 *p = user;
	struct bn_import *r = p->r;
	double v_then;
	int bi;

	(void)ib;
	/* No output and nothing drawn (VBUS off), or a shutdown: no point
	 * of the static curve. */
	if (!b->vbus_on || (v < r->v_off_v && fabs(i) <= r->tol_a) || excluded(p, t)) {
		p->run.in = false;
		return BN_OK;
	}
	run_step(&p->run, k, i, r->tol_a);
	{
		long slot = (long)(k % (p->settle_n + 1));

		v_then = p->vring[slot];
		p->vring[slot] = v;
	}
	/* a current a charger delivers */
	if (i < -p->o->bin_a / 2)
		return BN_OK;
	/* bins centred on multiples of the width: a staircase of such
	 * steps lands mid-bin, not on an edge its rounding flips */
	if (floor(i / p->o->bin_a + 0.5) >= p->n_bins)
		return BN_OK;
	bi = (int)floor(i / p->o->bin_a + 0.5);
	p->drawn[bi]++;
	/* Settled: the current held for the settle time, and VBUS no
	 * further over it than its noise allows (a slow regulation loop or
	 * an output capacitance still moving it is not the static curve). */
	if (k - p->run.start < p->settle_n || fabs(v - v_then) > p->vtol)
		return BN_OK;
	{
		struct bin *q = &p->bins[bi];
		double d = v - q->mv;

		if (q->n == 0 || i < q->lo)
			q->lo = i;
		if (q->n == 0 || i > q->hi)
			q->hi = i;
		q->n++;
		q->si += i;
		q->mv += d / (double)q->n;
		q->m2 += d * (v - q->mv);
		r->n_steady++;
	}
	return BN_OK;
}

/* ---- pass 2: what the fit does not explain ---- */

struct p2 {
	struct bn_import *r;
	const struct bn_import_opts *o;
	int run;                   /* samples in a row off the fit */
	int64_t first_k, last_k;   /* of the unexplained samples, -1 none */
	/* the held series: from the first unexplained sample on */
	double *t, *v, *i;
	long n, cap;
	int avg;                   /* samples per stored one */
	double acc_t, acc_v, acc_i;
	int acc_n;
	long n_at_last;            /* stored count when the last unexplained one was seen */
	double tol_v;
	int64_t pend_k[RESID_RUN]; /* the run's first samples, before it counts */
	double pend_t[RESID_RUN], pend_v[RESID_RUN], pend_i[RESID_RUN];
};

static int store(struct p2 *p, double t, double v, double i)
{
	p->acc_t += t;
	p->acc_v += v;
	p->acc_i += i;
	if (++p->acc_n < p->avg)
		return BN_OK;
	if (p->n == p->cap) {
		if (p->cap >= BN_IMPORT_RAW_MAX) {
			/* halve: average pairs, and store twice as many per point */
			long m = p->n / 2;

			for (long j = 0; j < m; j++) {
				p->t[j] = (p->t[2 * j] + p->t[2 * j + 1]) / 2;
				p->v[j] = (p->v[2 * j] + p->v[2 * j + 1]) / 2;
				p->i[j] = (p->i[2 * j] + p->i[2 * j + 1]) / 2;
			}
			p->n_at_last = p->n_at_last / 2;
			p->n = m;
			p->avg *= 2;
		} else {
			long nc = p->cap ? p->cap * 2 : 65536;
			double *a = realloc(p->t, sizeof(double) * (size_t)nc);

			if (!a)
				return BN_ERR_NOMEM;
			p->t = a;
			a = realloc(p->v, sizeof(double) * (size_t)nc);
			if (!a)
				return BN_ERR_NOMEM;
			p->v = a;
			a = realloc(p->i, sizeof(double) * (size_t)nc);
			if (!a)
				return BN_ERR_NOMEM;
			p->i = a;
			p->cap = nc;
		}
	}
	p->t[p->n] = p->acc_t / p->acc_n;
	p->v[p->n] = p->acc_v / p->acc_n;
	p->i[p->n] = p->acc_i / p->acc_n;
	p->n++;
	p->acc_t = p->acc_v = p->acc_i = 0.0;
	p->acc_n = 0;
	return BN_OK;
}

static int p2_frame(void *user, int64_t k, bn_time_us t, double v, double i, double ib,
		    const struct bench_state *b)
{
	struct p2 *p = user;
	struct bn_import *r = p->r;
	double ts = (double)t / 1e6, sd = 0.0, vf;
	bool off = false;
	int rc;

	(void)ib;
	if (ts < r->t_on_s)
		return BN_OK;
	if (!b->vbus_on || (v < r->v_off_v && fabs(i) <= r->tol_a)) {
		p->run = 0;
	} else {
		vf = bn_import_v_fit(r, i, &sd);
		if (!isnan(vf)) {
			/* the current's own noise moves the fit on a steep piece */
			double d = bn_import_v_fit(r, i + r->sigma_a, NULL), slope_v;

			slope_v = isnan(d) ? 0.0 : fabs(d - vf);
			off = fabs(v - vf) > p->o->resid_factor * sqrt(sd * sd + slope_v * slope_v) + p->tol_v;
		}
	}
	if (off) {
		if (p->run < RESID_RUN) {
			p->pend_k[p->run] = k;
			p->pend_t[p->run] = ts;
			p->pend_v[p->run] = v;
			p->pend_i[p->run] = i;
		}
		p->run++;
	} else {
		p->run = 0;
	}
	if (p->first_k < 0) {
		if (p->run < RESID_RUN)
			return BN_OK;
		/* the series starts with the run's first sample */
		p->first_k = p->pend_k[0];
		for (int j = 0; j < RESID_RUN; j++) {
			rc = store(p, p->pend_t[j], p->pend_v[j], p->pend_i[j]);
			if (rc < 0)
				return rc;
		}
		r->series.unexplained += RESID_RUN;
		p->last_k = k;
		p->n_at_last = p->n;
		return BN_OK;
	}
	rc = store(p, ts, v, i);
	if (rc < 0)
		return rc;
	if (p->run >= RESID_RUN) {
		r->series.unexplained += p->run == RESID_RUN ? RESID_RUN : 1;
		p->last_k = k;
		p->n_at_last = p->n;
	}
	return BN_OK;
}

double bn_import_v_fit(const struct bn_import *r, double i_a, double *sd_v)
{
	int n = r->n_points;

	if (sd_v)
		*sd_v = 0.0;
	if (n <= 0 || isnan(i_a))
		return NAN;
	/* Beyond the last covered current (by more than the steady
	 * tolerance) nothing is known. */
	if (i_a > r->pt[n - 1].i_hi_a + r->tol_a)
		return NAN;
	/* A point holds over the currents its bin held (a bin's mean of a
	 * curve that drops at once inside it is no value between), and the
	 * fit is linear between those plateaus. */
	for (int k = 0; k < n; k++) {
		const struct bn_import_point *b = &r->pt[k];

		if (i_a <= b->i_hi_a) {
			const struct bn_import_point *a = k ? &r->pt[k - 1] : NULL;
			double f;

			if (i_a >= b->i_lo_a || !a) {
				if (sd_v)
					*sd_v = b->sd_v;
				return b->v_fit_v;
			}
			f = b->i_lo_a > a->i_hi_a ? (i_a - a->i_hi_a) / (b->i_lo_a - a->i_hi_a) : 1.0;
			if (sd_v)
				*sd_v = fmax(a->sd_v, b->sd_v);
			return a->v_fit_v + f * (b->v_fit_v - a->v_fit_v);
		}
	}
	if (sd_v)
		*sd_v = r->pt[n - 1].sd_v;
	return r->pt[n - 1].v_fit_v;
}

/* ---- after the passes ---- */

static int make_points(struct bn_import *r, const struct bn_import_opts *o, const struct bin *bins,
		       const long *drawn, int n_bins, const struct bn_meas *mv, struct bn_err *err)
{
	double *w;
	int cap_unc = 0;

	r->pt = calloc((size_t)n_bins, sizeof(*r->pt));
	if (!r->pt)
		return bn_err_set(err, BN_ERR_NOMEM, "out of memory");
	for (int b = 0; b < n_bins; b++) {
		struct bn_import_point *q;
		double u_inst = 0.0;

		if (bins[b].n < o->min_samples)
			continue;
		q = &r->pt[r->n_points++];
		q->n = bins[b].n;
		q->i_a = bins[b].si / (double)bins[b].n;
		q->i_lo_a = bins[b].lo;
		q->i_hi_a = bins[b].hi;
		q->v_v = bins[b].mv;
		q->sd_v = bins[b].n > 1 ? sqrt(bins[b].m2 / (double)(bins[b].n - 1)) : 0.0;
		/* the record's instrument: offset and gain as rectangular
		 * bounds, the step as uniform quantisation */
		if (mv) {
			double lsb = bn_meas_lsb(mv);

			u_inst = sqrt(mv->offset * mv->offset / 3.0 +
				      mv->gain * q->v_v * mv->gain * q->v_v / 3.0 + lsb * lsb / 12.0);
		}
		q->u_v = sqrt(q->sd_v * q->sd_v / (double)q->n + u_inst * u_inst);
		q->v_fit_v = q->v_v;
	}
	/* Uncovered: every bin from 0 up to to_a that is not a point. */
	for (int b = 0; b < n_bins && (b - 0.5) * o->bin_a < r->to_a - 1e-12; b++) {
		bool covered = bins[b].n >= o->min_samples;
		bool reached = drawn[b] > 0;
		double lo = fmax(0.0, (b - 0.5) * o->bin_a), hi = fmin((b + 0.5) * o->bin_a, r->to_a);

		if (covered)
			continue;
		if (r->n_uncovered && fabs(r->unc[r->n_uncovered - 1].to_a - lo) < 1e-9 &&
		    r->unc[r->n_uncovered - 1].reached == reached) {
			r->unc[r->n_uncovered - 1].to_a = hi;
			continue;
		}
		if (r->n_uncovered == cap_unc) {
			int nc = cap_unc ? cap_unc * 2 : 16;
			void *p = realloc(r->unc, sizeof(*r->unc) * (size_t)nc);

			if (!p)
				return bn_err_set(err, BN_ERR_NOMEM, "out of memory");
			r->unc = p;
			cap_unc = nc;
		}
		r->unc[r->n_uncovered++] = (struct bn_import_range){ lo, hi, reached };
	}
	if (r->n_points == 0)
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: error: nothing steady: no current was held within %.1f mA for %g ms "
				  "with at least %d samples in a %g mA bin (%ld steady samples in all; try "
				  "--settle, --bin or --min-samples)",
				  o->capture_path, r->tol_a * 1e3, o->settle_s * 1e3, o->min_samples,
				  o->bin_a * 1e3, r->n_steady);
	if (r->n_points == 1)
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: error: only one steady current level (%.3f A, %.3f V): a curve needs "
				  "at least two (a capture whose current moves, e.g. a ramp or load steps)",
				  o->capture_path, r->pt[0].i_a, r->pt[0].v_v);
	if (o->monotone) {
		double *v = malloc(sizeof(double) * (size_t)r->n_points);

		w = malloc(sizeof(double) * (size_t)r->n_points);
		if (!v || !w) {
			free(v);
			free(w);
			return bn_err_set(err, BN_ERR_NOMEM, "out of memory");
		}
		for (int k = 0; k < r->n_points; k++) {
			v[k] = r->pt[k].v_v;
			w[k] = (double)r->pt[k].n;
		}
		bn_import_pava(v, w, r->n_points);
		for (int k = 0; k < r->n_points; k++)
			r->pt[k].v_fit_v = v[k];
		free(v);
		free(w);
	}
	return BN_OK;
}

/* To the nano-unit: a JSON number of 15 digits reads back exactly (cJSON
 * prints 15 when they read back within an epsilon, not to the bit). */
static double nano(double x)
{
	return round(x * 1e9) / 1e9;
}

/* A point's current as the bench wrote it: a capture stores float32, so
 * a steady 0.756 A comes back as 0.755999982 A, and a curve ending there
 * leaves a device that draws the 0.756 A it drew in the capture past the
 * curve's last point, at 0 V. The shortest decimal that is the same
 * float32 is the value written (within half a float32 step of the mean). */
static double as_written(double x)
{
	float f = (float)x;
	char buf[32];

	if (!isfinite(f))
		return x;
	for (int p = 1; p <= 9; p++) {
		snprintf(buf, sizeof(buf), "%.*g", p, (double)f);
		if (strtof(buf, NULL) == f)
			return strtod(buf, NULL);
	}
	return x;
}

/* The profile's curve: the fit at the charger's output (VBUS + R*I with
 * a cable given), simplified to BN_CHARGER_MAX_POINTS by RDP. */
static int make_curve(struct bn_import *r, const struct bn_import_opts *o, struct bn_err *err)
{
	int n = r->n_points;
	double cable = isnan(o->cable_ohm) ? 0.0 : o->cable_ohm;
	double *x = malloc(sizeof(double) * (size_t)n), *y = malloc(sizeof(double) * (size_t)n);
	unsigned char *keep = malloc((size_t)n);
	double tol = 0.0005;
	long kept = n;

	if (!x || !y || !keep) {
		free(x);
		free(y);
		free(keep);
		return bn_err_set(err, BN_ERR_NOMEM, "out of memory");
	}
	for (int k = 0; k < n; k++) {
		x[k] = r->pt[k].i_a;
		y[k] = r->pt[k].v_fit_v + cable * r->pt[k].i_a;
	}
	for (;;) {
		const double *ys[1] = { y };

		kept = bn_import_rdp(x, ys, &tol, 1, n, keep);
		if (kept < 0) {
			free(x);
			free(y);
			free(keep);
			return bn_err_set(err, BN_ERR_NOMEM, "out of memory");
		}
		if (kept <= BN_CHARGER_MAX_POINTS)
			break;
		tol *= 1.5;
	}
	memset(&r->ch, 0, sizeof(r->ch));
	r->ch.compliant = -1; /* a capture does not say what the charger was meant to be */
	snprintf(r->ch.name, sizeof(r->ch.name), "%s", o->name ? o->name : "imported");
	r->ch.cable_ohm = cable;
	r->ch.rated_a = o->rated_a;
	for (int k = 0; k < n; k++)
		if (keep[k]) {
			r->ch.i_a[r->ch.n_points] = nano(as_written(x[k]));
			r->ch.v_v[r->ch.n_points] = nano(y[k]);
			r->ch.n_points++;
		}
	/* how far the written curve is from the fit */
	r->curve_dev_v = 0.0;
	for (int k = 0; k < n; k++) {
		double d = fabs(bn_charger_v_out(&r->ch, x[k]) - y[k]);

		if (d > r->curve_dev_v)
			r->curve_dev_v = d;
	}
	free(x);
	free(y);
	free(keep);
	return BN_OK;
}

static void make_knee(struct bn_import *r)
{
	double v_min = r->vchg_min_v;
	int n = r->n_points, last_ok = -1;

	r->knee_reached = false;
	r->knee_lo_a = r->knee_hi_a = NAN;
	for (int k = 0; k < n; k++)
		if (r->pt[k].v_fit_v >= v_min)
			last_ok = k;
	/* the knee of the profile written, as curve sweep states it
	 * (curve/measured.h): after make_shutdown, whose rule caps it */
	r->knee_a = bn_profile_knee(&r->ch, v_min, NULL);
	r->knee_v = isfinite(r->knee_a) ? bn_charger_vbus(&r->ch, NULL, r->knee_a) : NAN;
	if (last_ok < 0) {
		/* below VCHG min from the first covered point on */
		r->knee_reached = true;
		r->knee_lo_a = 0.0;
		r->knee_hi_a = r->pt[0].i_a;
		return;
	}
	r->knee_lo_a = r->pt[last_ok].i_a;
	if (last_ok + 1 < n) {
		r->knee_reached = true;
		r->knee_hi_a = r->pt[last_ok + 1].i_a;
	}
}

/* The profile's shutdown rule, from the shutdowns seen: over the
 * highest current it held without one, for as long as the shortest hold
 * before one, off for the shortest recovery seen (a longer one may hide
 * a trip again at once, too short for a sample to show it on). */
static void make_shutdown(struct bn_import *r)
{
	double before = INFINITY, held = INFINITY, rec = INFINITY, sustained = 0.0;
	int n_sd = 0;

	for (int k = 0; k < r->n_collapses; k++) {
		const struct bn_import_collapse *c = &r->col[k];

		if (!c->shutdown)
			continue;
		n_sd++;
		before = fmin(before, c->before_a);
		if (c->held_s >= 0)
			held = fmin(held, c->held_s);
		if (c->recover_s >= 0 && c->recover_s < rec)
			rec = c->recover_s;
	}
	if (!n_sd)
		return;
	for (int k = 0; k < r->n_points; k++)
		if (r->pt[k].i_a < before - r->tol_a && r->pt[k].i_a > sustained)
			sustained = r->pt[k].i_a;
	r->ch.has_shutdown = true;
	r->ch.shutdown_above_a = nano(sustained > 0 ? sustained : before - r->tol_a);
	r->ch.shutdown_after_us = isfinite(held) ? (bn_time_us)llround(held * 1e6) : 0;
	/* never back within the capture: at least as long as it stayed off */
	if (!isfinite(rec))
		for (int k = 0; k < r->n_collapses; k++)
			if (r->col[k].shutdown)
				rec = (double)r->n_frames / r->rate_hz - r->col[k].t_s;
	r->ch.recover_us = (bn_time_us)llround(rec * 1e6);
}

static int make_series(struct bn_import *r, struct p2 *p, const struct bn_import_opts *o,
		       struct bn_err *err)
{
	struct bn_import_series *s = &r->series;
	long n = p->n_at_last;
	unsigned char *keep;
	double tol[2];
	long kept;

	s->averaged = p->avg;
	if (p->first_k < 0 || n < 2)
		return BN_OK;
	keep = malloc((size_t)n);
	if (!keep)
		return bn_err_set(err, BN_ERR_NOMEM, "out of memory");
	tol[0] = fmax(o->series_tol_v, 3.0 * r->sigma_v);
	tol[1] = fmax(o->series_tol_a, 3.0 * r->sigma_a);
	for (;;) {
		const double *ys[2] = { p->v, p->i };

		kept = bn_import_rdp(p->t, ys, tol, 2, n, keep);
		if (kept < 0) {
			free(keep);
			return bn_err_set(err, BN_ERR_NOMEM, "out of memory");
		}
		if (kept <= BN_IMPORT_SERIES_MAX)
			break;
		tol[0] *= 2;
		tol[1] *= 2;
	}
	s->tol_v = tol[0];
	s->tol_a = tol[1];
	s->from_s = p->t[0];
	s->to_s = p->t[n - 1];
	s->t_s = malloc(sizeof(double) * (size_t)kept);
	s->v_v = malloc(sizeof(double) * (size_t)kept);
	s->i_a = malloc(sizeof(double) * (size_t)kept);
	if (!s->t_s || !s->v_v || !s->i_a) {
		free(keep);
		return bn_err_set(err, BN_ERR_NOMEM, "out of memory");
	}
	for (long j = 0; j < n; j++)
		if (keep[j]) {
			/* a charger's output is never below 0: noise at 0 V is */
			s->t_s[s->n] = nano(p->t[j] - r->t_on_s);
			s->v_v[s->n] = nano(fmax(0.0, p->v[j]));
			s->i_a[s->n] = nano(p->i[j]);
			if (s->n && !(s->t_s[s->n] > s->t_s[s->n - 1]))
				continue;
			s->n++;
		}
	free(keep);
	r->ch.vbus_t.n = (int)s->n;
	r->ch.vbus_t.has_i = true;
	r->ch.vbus_t.repeat = false;
	memcpy(r->ch.vbus_t.t_s, s->t_s, sizeof(double) * (size_t)s->n);
	memcpy(r->ch.vbus_t.v_v, s->v_v, sizeof(double) * (size_t)s->n);
	memcpy(r->ch.vbus_t.i_a, s->i_a, sizeof(double) * (size_t)s->n);
	/* the output's resistance where the series draws: the fit's slope
	 * around the median current of the series */
	{
		double *ic = malloc(sizeof(double) * (size_t)s->n), med, lo, hi;

		if (!ic)
			return bn_err_set(err, BN_ERR_NOMEM, "out of memory");
		memcpy(ic, s->i_a, sizeof(double) * (size_t)s->n);
		for (long a = 1; a < s->n; a++) /* insertion sort: bounded n, once */
			for (long b = a; b > 0 && ic[b - 1] > ic[b]; b--) {
				double tmp = ic[b];

				ic[b] = ic[b - 1];
				ic[b - 1] = tmp;
			}
		med = ic[s->n / 2];
		free(ic);
		lo = fmax(r->pt[0].i_a, med - 2 * o->bin_a);
		hi = fmin(r->pt[r->n_points - 1].i_a, med + 2 * o->bin_a);
		if (hi - lo < o->bin_a) {
			lo = r->pt[0].i_a;
			hi = r->pt[r->n_points - 1].i_a;
		}
		s->r_out_ohm = fmax(0.0, -(bn_import_v_fit(r, hi, NULL) - bn_import_v_fit(r, lo, NULL)) /
						 (hi - lo));
		if (!isfinite(s->r_out_ohm))
			s->r_out_ohm = 0.0;
		r->ch.vbus_t.r_out_ohm = nano(s->r_out_ohm);
	}
	return BN_OK;
}

static double limit_or(const struct bn_limits *lim, const char *name, bool max)
{
	return max ? bn_limits_max(lim, name) : bn_limits_min(lim, name);
}

int bn_curve_import(const struct bn_import_opts *o, struct bn_import *r, struct bn_err *err)
{
	struct src s = { .o = o };
	struct bn_limits lim = { 0 };
	struct p0 p0 = { 0 };
	struct pc pc = { 0 };
	struct p1 p1 = { 0 };
	struct p2 p2 = { 0 };
	struct bin *bins = NULL;
	long *drawn = NULL;
	const struct bn_meas *mv = NULL;
	int rc, n_bins;

	memset(r, 0, sizeof(*r));
	if (!(o->bin_a > 0) || o->min_samples < 1 || !(o->settle_s >= 0) || !(o->resid_factor > 0))
		return bn_err_set(err, BN_ERR_ARG, "curve import: bad settings (bin %g A, min samples "
				  "%d, settle %g s)", o->bin_a, o->min_samples, o->settle_s);
	rc = bn_limits_load(o->limits_path, &lim, err);
	if (rc < 0)
		return rc;
	r->vchg_min_v = limit_or(&lim, "VCHG", false);
	r->vchg_max_v = limit_or(&lim, "VCHG", true);
	r->v_valid_v = limit_or(&lim, "VOTG_SESS_VLD", true);
	r->v_off_v = limit_or(&lim, "VBUS_LKG", true);
	bn_limits_free(&lim);
	if (isnan(r->vchg_min_v) || isnan(r->v_valid_v) || isnan(r->v_off_v))
		return bn_err_set(err, BN_ERR_DATA, "%s: error: needs VCHG min, VOTG_SESS_VLD max and "
				  "VBUS_LKG max", o->limits_path);
	rc = bn_file_sha256(o->capture_path, r->capture_sha256, err);
	if (rc < 0)
		return rc;
	s.col[0] = malloc(sizeof(float) * BLOCK_FRAMES);
	s.col[1] = malloc(sizeof(float) * BLOCK_FRAMES);
	if (!s.col[0] || !s.col[1]) {
		rc = bn_err_set(err, BN_ERR_NOMEM, "out of memory");
		goto out;
	}
	rc = src_open(&s, r, err);
	if (rc < 0)
		goto out;
	r->rate_hz = s.rate_hz;
	r->n_frames = bn_srr_info(s.srr)->n_frames;
	if (r->n_frames < MIN_FRAMES || r->n_frames / r->rate_hz < 2 * o->settle_s) {
		rc = bn_err_set(err, BN_ERR_DATA,
				"%s: error: too short: %lld frames (%g s) at %g Hz; import needs at least "
				"%d frames and twice the settle time (%g s)",
				o->capture_path, (long long)r->n_frames, r->n_frames / r->rate_hz,
				r->rate_hz, MIN_FRAMES, 2 * o->settle_s);
		goto out;
	}
	if (o->events_path) {
		rc = bn_evrec_load(o->events_path, &s.ev, err);
		if (rc < 0)
			goto out;
		s.have_ev = true;
		if (s.ev.ctx.rate_hz > 0 && fabs(s.ev.ctx.rate_hz - s.rate_hz) > 1e-6 * s.rate_hz) {
			rc = bn_err_set(err, BN_ERR_DATA,
					"%s: error: recorded at %g Hz, but %s is at %g Hz (is it this "
					"capture's sidecar?)",
					o->events_path, s.ev.ctx.rate_hz, o->capture_path, s.rate_hz);
			goto out;
		}
		s.t0_us = s.ev.ctx.t_start_us;
		for (int k = 0; k < s.ev.n; k++)
			r->n_load_events += s.ev.ev[k].kind == BN_CEV_LOAD;
		r->used_load = (s.ev.ctx.events & BN_CEV_BIT(BN_CEV_LOAD)) && r->n_load_events > 0;
		rc = bn_file_sha256(o->events_path, r->events_sha256, err);
		if (rc < 0)
			goto out;
		if ((s.ev.meas_known & (1u << BN_CH_VBUS)) && !bn_meas_is_ideal(&s.ev.ctx.meas[BN_CH_VBUS])) {
			mv = &s.ev.ctx.meas[BN_CH_VBUS];
			r->inst_known = true;
		} else if (s.ev.meas_known & (1u << BN_CH_VBUS)) {
			r->inst_known = true; /* stated ideal: the simulated bench */
		}
	}

	if (o->vbus_meas_given) {
		mv = bn_meas_is_ideal(&o->vbus_meas) ? NULL : &o->vbus_meas;
		r->inst_known = true;
	}

	/* pass 0: noise, range, VBUS on */
	p0.r = r;
	r->t_on_s = NAN;
	rc = pass(&s, r, p0_frame, &p0, err);
	if (rc < 0)
		goto out;
	r->sigma_v = hist_sigma(&p0.hv);
	r->sigma_a = hist_sigma(&p0.hi);
	r->tol_a = fmax(o->bin_a / 4.0, 4.0 * r->sigma_a);
	if (isnan(r->t_on_s)) {
		rc = bn_err_set(err, BN_ERR_DATA,
				"%s: error: VBUS never reaches VBUS valid (%g V): no charger output to "
				"import (is %s VBUS?)",
				o->capture_path, r->v_valid_v, r->chan_src[0]);
		goto out;
	}
	/* the collapses */
	pc.r = r;
	pc.ring_len = (int)fmin(RING, fmax(2.0, ceil(r->rate_hz * 1e-3)));
	rc = pass(&s, r, pc_frame, &pc, err);
	if (rc < 0)
		goto out;
	if (pc.state == 2 && pc_close(&pc, -1.0) < 0) {
		rc = bn_err_set(err, BN_ERR_NOMEM, "out of memory");
		goto out;
	}
	r->to_a = o->to_a > 0 ? o->to_a : o->rated_a > 0 ? fmax(o->rated_a, r->max_seen_a) : r->max_seen_a;
	if (!(fmax(r->to_a, r->max_seen_a) / o->bin_a < BN_IMPORT_MAX_BINS - 1)) {
		rc = bn_err_set(err, BN_ERR_DATA,
				"%s: error: bins of %g mA up to %.6g A (the largest current %s) are "
				"more than %d (give a larger --bin)",
				o->capture_path, o->bin_a * 1e3, fmax(r->to_a, r->max_seen_a),
				r->to_a > r->max_seen_a ? "asked for by --to or --rated"
							: "the capture draws",
				BN_IMPORT_MAX_BINS);
		goto out;
	}

	n_bins = (int)floor(fmax(r->to_a, r->max_seen_a) / o->bin_a + 0.5) + 1;

	/* pass 1 */
	bins = calloc((size_t)n_bins, sizeof(*bins));
	drawn = calloc((size_t)n_bins, sizeof(*drawn));
	if (!bins || !drawn) {
		rc = bn_err_set(err, BN_ERR_NOMEM, "out of memory");
		goto out;
	}
	p1.r = r;
	p1.o = o;
	p1.bins = bins;
	p1.drawn = drawn;
	p1.n_bins = n_bins;
	p1.settle_n = (long)ceil(o->settle_s * r->rate_hz);
	r->settled_tol_v = fmax(o->series_tol_v, 3.0 * sqrt(2.0) * r->sigma_v);
	p1.vtol = r->settled_tol_v;
	p1.vring = calloc((size_t)p1.settle_n + 1, sizeof(double));
	if (!p1.vring) {
		rc = bn_err_set(err, BN_ERR_NOMEM, "out of memory");
		goto out;
	}
	rc = pass(&s, r, p1_frame, &p1, err);
	if (rc < 0)
		goto out;
	rc = make_points(r, o, bins, drawn, n_bins, mv, err);
	if (rc < 0)
		goto out;
	rc = make_curve(r, o, err);
	if (rc < 0)
		goto out;
	/* pass 2 */
	p2.r = r;
	p2.o = o;
	p2.first_k = p2.last_k = -1;
	p2.avg = 1;
	p2.tol_v = fmax(o->series_tol_v, 3.0 * r->sigma_v);
	rc = pass(&s, r, p2_frame, &p2, err);
	if (rc < 0)
		goto out;
	rc = make_series(r, &p2, o, err);
	if (rc < 0)
		goto out;
	make_shutdown(r);
	make_knee(r);
	rc = BN_OK;
out:
	src_close(&s);
	if (s.have_ev)
		bn_evrec_free(&s.ev);
	free(s.col[0]);
	free(s.col[1]);
	free(bins);
	free(drawn);
	free(p1.vring);
	free(p2.t);
	free(p2.v);
	free(p2.i);
	if (rc < 0)
		bn_import_free(r);
	return rc;
}

void bn_import_free(struct bn_import *r)
{
	free(r->pt);
	free(r->unc);
	free(r->col);
	free(r->series.t_s);
	free(r->series.v_v);
	free(r->series.i_a);
	r->pt = NULL;
	r->unc = NULL;
	r->col = NULL;
	r->series.t_s = r->series.v_v = r->series.i_a = NULL;
	r->n_points = r->n_uncovered = r->n_collapses = 0;
	r->series.n = 0;
}
