/* Task 1: learn the attached port type (DCD, primary and secondary
 * detection, ACA by ID, OTG). docs/rules-detection.md says, per rule, the
 * window it judges, its persistence, the uncertainty it carries and what
 * excuses a device. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "checks/check.h"
#include "checks/hold.h"
#include "checks/persist.h"
#include "checks/rules.h"
#include "core/text.h"

/* ==== The device's detection sequence, segmented from the samples ====
 *
 * Every rule below runs its own copy of one tracker that sees VBUS, D+ and
 * D- (and the port's known network from the context). Every condition it
 * reads off a level counts only once it held BN_PERSIST_LEVEL_US and
 * BN_PERSIST_MIN_SAMPLES (checks/persist.h), and is dated at its first
 * sample: noise on the lines never starts or ends a phase.
 *
 *   attach   VBUS above VOTG_SESS_VLD max (VBUS valid, where the device's
 *            clock starts whatever its own threshold): the attach time.
 *            VBUS below VOTG_SESS_VLD min closes the attach.
 *   DCD      D+ "low" is below VLGC min; a low run at a "DCD level" (D+
 *            between IDP_SRC min x the smaller pull-down / 2 and VDAT_REF
 *            max, in the frame of the pull-down under IDP_SRC: the port's
 *            ground, or the device's on a DCP, whose only pull-down is the
 *            device's RDM_DWN through the short) shows data contact as the
 *            device's DCD sees it.
 *   primary  D+ (against the device's ground) in VDAT_REF max..VLGC min,
 *            the window a port reads as "D+ at VDP_SRC". It ends when D+
 *            leaves it; on a port with a known D+/D- short (a DCP, where
 *            both lines sit near 0.6 V through every phase) also when
 *            V(D+)-V(D-) turns below -IDP_SINK min x R_short / 2 (D-
 *            sourced: secondary), or falls below half its mean so far
 *            (IDM_SINK released) once that half stands clear of the
 *            phase's own noise.
 *            With the device's ground below the port's, a DCD level on a
 *            port's pull-down lies in this window too: a level there, in
 *            a low run and at a DCD level, is primary only tentatively; a
 *            step within the window (> DET_STEP_SD of its noise) or a
 *            return into it after leaving it shows it was DCD, and
 *            primary begins there (docs/rules-detection.md).
 *   secondary D- in the same window while D+ is below VDAT_REF min (CDP:
 *            D+ sunk), or on a shorted port V(D+)-V(D-) below -IDP_SINK
 *            min x R_short / 2; it ends when D- leaves the window, D+
 *            rises, or on a short V(D+)-V(D-) rises above half its mean.
 *
 * A change pending its persistence keeps its samples apart: they join the
 * next phase if it holds, the current one if not. Levels are judged at the
 * end (checks/check.h: the channels' noise may be estimated from the whole
 * capture), each attach apart: a rule reports the first attach that
 * failed, else the first that passed, else the first inconclusive one.
 *
 * The bench's data-contact events (BN_CEV_DATA_CONTACT) say whether the
 * lines touched before primary detection began; without them the data
 * must show it (a DCD level, a port's answer on D-, the short across the
 * lines). Detection that ran on open lines (a slow plug: BC-1.2 lets a
 * device whose DCD timed out take any port for an SDP), and a CDP that
 * answers VDM_SRC later than TVDMSRC_EN max, excuse the device: the rules
 * they affect are inconclusive naming the handling or the port. */

#define DET_MAX_SESS 16     /* attaches kept for the judgement (the last overwrites the 16th) */
#define DET_CT_RING 16      /* data-contact events remembered */
#define DET_FREEZE_MIN 16   /* samples over which a phase's own noise is taken */
/* A step out of the DCD level, in its own noise (on V(D+)-V(D-), so
 * larger than D+'s alone): a persisted run of 3 samples beyond 6 sigma
 * is not noise (p < 1e-27). */
#define DET_STEP_SD 6.0
/* The relative uncertainty of a noise estimated from the data (the
 * engine's step histogram has 16 bins a decade: about 15 %). */
#define DET_SIGMA_EST_REL 0.15

enum det_state { DS_IDLE, DS_PRE, DS_PRI, DS_SECWAIT, DS_SEC, DS_DONE };

/* What ended (or began) a phase. */
enum det_end {
	DE_NONE = 0,
	DE_LEVEL,   /* a line left its window: a large step */
	DE_SIGN,    /* on a short: V(D+)-V(D-) turned negative (secondary began) */
	DE_RELEASE, /* on a short: V(D+)-V(D-) fell below half its mean (IDM_SINK off) */
	DE_HALF,    /* on a short: V(D-)-V(D+) fell below half its mean (secondary over) */
	DE_VBUS,    /* VBUS was lost: cut short */
	DE_CAPTURE, /* the capture ended: cut short */
};

/* One sample as the tracker reads it. */
struct det_in {
	double vbus;
	double dp, dm;    /* against the device's ground */
	double dpp, dmp;  /* against the port's ground */
	double rdp, rdm;  /* as captured */
	double diff;      /* dp - dm */
};

/* A phase's samples. Sums are bn_rsum, so a held run adds the same bits
 * as its samples one by one. */
struct det_acc {
	long n;
	struct bn_rsum dp, dm, diff, diff2;
	bn_time_us t0, t1;
	/* Its first TVDPSRC_ON min (t < wlim; wlim 0: not kept): IDM_SINK's
	 * window, as captured (the auto-zero works on raw values). */
	bn_time_us wlim;
	long wn;
	struct bn_rsum wrdiff, wrdm;
	/* the phase's own noise on V(D+)-V(D-), from its first samples */
	bool frozen;
	double sd;
};

/* A level run (an excursion out of a source's band). */
struct det_run {
	long n;
	struct bn_rsum v;
	bn_time_us t0, t1;
};

struct det_phase {
	bool seen, ended;  /* ended: by the device, not cut by VBUS or the capture's end */
	bn_time_us t0, t1;
	enum det_end start_by, end_by;
	double thr_end;    /* the V(D+)-V(D-) threshold that ended it (DE_SIGN, DE_RELEASE, DE_HALF) */
	struct det_acc acc;
	/* the worst excursion out of the source's band that held the persistence */
	bool exc;
	double exc_mean;
	struct det_run exc_run;
};

struct det_session {
	enum det_state st;
	bool tentative;           /* VBUS above VOTG_SESS_VLD max, not held yet */
	bool started_on;          /* the capture starts with VBUS valid: attach time not known */
	struct bn_persist vbus, exit, low, exc, ans;
	struct det_acc cur, pend; /* the current phase's samples; those of its pending exit */
	bn_time_us t_attach, t_close;
	enum det_end closed_by;
	/* DCD: the current run of D+ low, its DCD-level samples (pending too) */
	bn_time_us low_since, glitch_t;
	struct det_acc dcd, dcd_pend;
	bool contact;             /* the data show it: a DCD level right up to primary */
	/* dcd_overlap: primary began at a level that may be DCD's (it turns
	 * DCD if a step within the window follows: pri_from_dcd) */
	bool pri_tent, pri_from_dcd;
	/* its pending exit's last samples back in the window (from tail_t):
	 * primary's first, if the exit holds */
	long tail_n;
	bn_time_us tail_t;
	bn_time_us contact_t;
	/* data contact as the bench reports it */
	int ct_pri;               /* at primary's start: 1 made, 0 open, -1 not known */
	bn_time_us ct_make_t;     /* the make in place then, or the first after (NEVER: none) */
	bool ct_broke;            /* opened again during detection */
	bn_time_us ct_break_t;
	struct det_run exc_run;   /* the current excursion */
	bool ans_seen;            /* a CDP lifted D- to VDM_SRC during primary */
	bn_time_us ans_t;
	struct det_phase pri, sec;
};

struct det_cfg {
	double sess_lo, sess_hi;
	double low_v, win_lo, win_hi, dat_lo, dcd_floor;
	double r_short, r_pd, sign_thr, r_lkg;
	/* The DCD level's frame: the device's on a port whose only pull-down
	 * is the device's own RDM_DWN through a D+/D- short (a DCP), else
	 * the port's (its pull-downs). */
	bool dcd_dev;
	/* A known ground offset (the device's below the port's) lifts the
	 * DCD level on the port's pull-down (its frame) into the primary
	 * window (the device's): a level there may be either phase. */
	bool dcd_overlap;
	double vdp_lo, vdp_hi, vdm_lo, vdm_hi;
	double rate_hz;
	bn_time_us ton_us;        /* TVDPSRC_ON min */
	long n_persist;           /* samples a persisted change takes at this rate */
	/* v - sh: D+ [0] and D- [1] against the device's and the port's ground */
	double dev_sh[2], port_sh[2];
	bool dev_unknown[2], port_unknown[2];
	double z_floor[2];        /* the converter's lowest code, for the auto-zero */
	bool cdp;
};

struct det_priv;
typedef void (*det_judge_fn)(const struct det_priv *p, const struct det_session *s,
			     struct bn_result *r);

struct det_priv {
	const struct bn_check_ctx *ctx;
	const struct bn_limits *lim;
	struct det_cfg c;
	det_judge_fn judge;
	bool skip;          /* the port lacks what the rule computes from */
	char skip_why[120];
	bool any_sample;
	bool changed;       /* the last sample changed the tracker (hold() steps one by one) */
	bn_time_us vbus_on_t; /* the bench's first VBUS_ON event (BN_TIME_NEVER: none) */
	/* idle lines (both near 0 V against the port's ground) on a shorted
	 * port: the auto-zero of bc12.det.idm_sink (here, before the
	 * sessions' arrays: read every sample) */
	bool zero_on;       /* the rule reads the auto-zero (idm_sink alone) */
	/* The session's shared tracker (checks/check.h): a rule that is not
	 * its leader tracks nothing and copies the leader's state at end(). */
	struct bn_check_share *sh;
	long z_n, z_clip[2], z_below[2];
	struct bn_rsum z_raw[2];
	struct det_session s;
	struct det_session done[DET_MAX_SESS];
	int n_done, n_attach;
	/* the bench's data-contact events */
	bool ct_known;
	long ct_n;
	struct {
		bn_time_us t;
		bool made;
	} ct[DET_CT_RING];
	/* bc12.det.port_type */
	bool rep_seen;
	char reported[32];
	bn_time_us rep_t;
};

/* ---- accumulators ---- */

static void rsum_merge(struct bn_rsum *a, const struct bn_rsum *b)
{
	a->done = bn_rsum_total(a) + bn_rsum_total(b);
	a->n = 0;
	a->v = 0;
}

static double acc_mean(const struct bn_rsum *r, long n)
{
	return n > 0 ? bn_rsum_total(r) / (double)n : NAN;
}

static void acc_freeze(struct det_acc *a)
{
	double m, var;

	if (a->frozen || a->n < DET_FREEZE_MIN)
		return;
	m = bn_rsum_total(&a->diff) / (double)a->n;
	var = (bn_rsum_total(&a->diff2) - (double)a->n * m * m) / (double)(a->n - 1);
	a->sd = var > 0 ? sqrt(var) : 0.0;
	a->frozen = true;
}

/* m equal samples at the times t[0..m-1]. */
static void acc_add(struct det_acc *a, const struct det_in *in, long m, const bn_time_us *t)
{
	if (!a->n)
		a->t0 = t[0];
	a->n += m;
	a->t1 = t[m - 1];
	bn_rsum_add(&a->dp, in->dp, m);
	bn_rsum_add(&a->dm, in->dm, m);
	bn_rsum_add(&a->diff, in->diff, m);
	bn_rsum_add(&a->diff2, in->diff * in->diff, m);
	if (a->wlim) {
		long k = bn_first_at(t, 0, m, a->wlim);

		if (k) {
			a->wn += k;
			bn_rsum_add(&a->wrdiff, in->rdp - in->rdm, k);
			bn_rsum_add(&a->wrdm, in->rdm, k);
		}
	}
	acc_freeze(a);
}

static void acc_merge(struct det_acc *a, const struct det_acc *b)
{
	if (!b->n)
		return;
	if (!a->n)
		a->t0 = b->t0;
	a->n += b->n;
	a->t1 = b->t1;
	rsum_merge(&a->dp, &b->dp);
	rsum_merge(&a->dm, &b->dm);
	rsum_merge(&a->diff, &b->diff);
	rsum_merge(&a->diff2, &b->diff2);
	a->wn += b->wn;
	rsum_merge(&a->wrdiff, &b->wrdiff);
	rsum_merge(&a->wrdm, &b->wrdm);
	acc_freeze(a);
}

static void run_add(struct det_run *r, double v, long m, bn_time_us t0, bn_time_us t1)
{
	if (!r->n)
		r->t0 = t0;
	r->n += m;
	r->t1 = t1;
	bn_rsum_add(&r->v, v, m);
}

/* ---- the tracker ---- */

static bool in_win(const struct det_cfg *c, double v)
{
	return v > c->win_lo && v < c->win_hi;
}

static bool sec_cond(const struct det_cfg *c, double dp, double dm, double diff)
{
	return in_win(c, dm) && (dp < c->dat_lo || (c->r_short > 0 && diff < -c->sign_thr));
}

/* D+ at a DCD level, read in the frame of the pull-down that makes it:
 * IDP_SRC into the port's pull-down against the port's ground, or into
 * the device's own RDM_DWN (through a DCP's short) against the device's. */
static bool dcd_band(const struct det_cfg *c, double dp, double dpp)
{
	double v = c->dcd_dev ? dp : dpp;

	return dp < c->low_v && v >= c->dcd_floor && v <= c->win_lo;
}

static bool dcd_level(const struct det_cfg *c, const struct det_in *in)
{
	return dcd_band(c, in->dp, in->dpp);
}


static void det_input(const struct det_priv *p, const struct bn_sample *smp, struct det_in *in)
{
	const struct det_cfg *c = &p->c;

	in->vbus = smp->v[BN_CH_VBUS];
	in->rdp = smp->v[BN_CH_DP];
	in->rdm = smp->v[BN_CH_DM];
	in->dp = in->rdp - c->dev_sh[0];
	in->dm = in->rdm - c->dev_sh[1];
	in->dpp = in->rdp - c->port_sh[0];
	in->dmp = in->rdm - c->port_sh[1];
	in->diff = in->dp - in->dm;
}

/* Not the leader: the tracker's inputs are the leader's to follow. */
static bool det_follows(const struct det_priv *p)
{
	return p->sh && p->sh->det_leader != p;
}

static bool det_no_samples(const void *priv)
{
	return det_follows(priv);
}

static void zero_add(struct det_priv *p, const struct det_in *in, long m)
{
	const struct det_cfg *c = &p->c;
	const double raw[2] = { in->rdp, in->rdm };

	/* Both lines near 0 V: nothing can source or sink on them (the
	 * device's sinks comply to 0 V), so they are equal. */
	if (!(p->sh ? p->sh->det_zero : p->zero_on) || !(c->r_short > 0) || c->port_unknown[0] || c->port_unknown[1] ||
	    !(in->dpp < c->dcd_floor && in->dmp < c->dcd_floor))
		return;
	p->z_n += m;
	for (int k = 0; k < 2; k++) {
		bn_rsum_add(&p->z_raw[k], raw[k], m);
		/* without branches: on a noisy line they would go either way */
		p->z_clip[k] += (raw[k] == c->z_floor[k]) * m;
		p->z_below[k] += (raw[k] < c->z_floor[k]) * m;
	}
}

/* The state of the data contact at t, from the events remembered. */
static bool ct_at(const struct det_priv *p, bn_time_us t, bn_time_us *make_t)
{
	long kept = p->ct_n < DET_CT_RING ? p->ct_n : DET_CT_RING;

	*make_t = BN_TIME_NEVER;
	for (long k = 0; k < kept; k++) {
		long i = (p->ct_n - 1 - k) % DET_CT_RING;

		if (p->ct[i].t <= t) {
			if (p->ct[i].made)
				*make_t = p->ct[i].t;
			return p->ct[i].made;
		}
	}
	/* before every event kept: open at the start of a capture, else the
	 * opposite of the oldest kept */
	return kept == DET_CT_RING ? !p->ct[p->ct_n % DET_CT_RING].made : false;
}

static bool ct_ever_made(const struct det_priv *p)
{
	for (long k = 0; k < p->ct_n && k < DET_CT_RING; k++)
		if (p->ct[k].made)
			return true;
	return p->ct_n > DET_CT_RING; /* many events: some were makes */
}

static void det_persist_init(struct bn_persist *ps)
{
	bn_persist_init(ps, BN_PERSIST_LEVEL_US, BN_PERSIST_MIN_SAMPLES, false);
}

static void session_start(struct det_priv *p, bn_time_us t)
{
	struct det_session *s = &p->s;

	memset(s, 0, sizeof(*s));
	s->st = DS_PRE;
	s->tentative = true;
	s->started_on = !p->any_sample;
	s->t_attach = t;
	s->ct_pri = -1;
	s->ct_make_t = BN_TIME_NEVER;
	det_persist_init(&s->vbus);
	det_persist_init(&s->exit);
	det_persist_init(&s->low);
	det_persist_init(&s->exc);
	det_persist_init(&s->ans);
	p->changed = true;
}

static void run_finish(struct det_priv *p, struct det_phase *ph, double lo, double hi)
{
	struct det_run *r = &p->s.exc_run;
	double mean, d, dw;

	if (!r->n)
		return;
	mean = bn_rsum_total(&r->v) / (double)r->n;
	d = fmax(mean - hi, lo - mean);
	dw = ph->exc ? fmax(ph->exc_mean - hi, lo - ph->exc_mean) : -INFINITY;
	if (d > dw) {
		ph->exc = true;
		ph->exc_mean = mean;
		ph->exc_run = *r;
	}
}

static void phase_end(struct det_priv *p, struct det_phase *ph, bn_time_us t, enum det_end by,
		      double thr)
{
	struct det_session *s = &p->s;
	bool pri = ph == &s->pri;

	ph->seen = true;
	ph->ended = by != DE_VBUS && by != DE_CAPTURE;
	ph->t1 = t;
	ph->end_by = by;
	ph->thr_end = thr;
	ph->acc = s->cur;
	if (s->exc.state)
		run_finish(p, ph, pri ? p->c.vdp_lo : p->c.vdm_lo, pri ? p->c.vdp_hi : p->c.vdm_hi);
}

/* The state's samples start with those of the exit that led to it. */
static void phase_begin(struct det_priv *p, enum det_state st)
{
	struct det_session *s = &p->s;

	s->st = st;
	s->cur = s->pend;
	memset(&s->pend, 0, sizeof(s->pend));
	memset(&s->exc_run, 0, sizeof(s->exc_run));
	det_persist_init(&s->exit);
	det_persist_init(&s->exc);
	p->changed = true;
}

static void det_close(struct det_priv *p, bn_time_us t, enum det_end by)
{
	struct det_session *s = &p->s;

	if (s->st == DS_IDLE)
		return;
	p->changed = true;
	if (s->tentative) {
		/* VBUS never held valid: no attach */
		memset(s, 0, sizeof(*s));
		return;
	}
	if (s->st == DS_PRI)
		phase_end(p, &s->pri, t, by, 0);
	if (s->st == DS_SEC)
		phase_end(p, &s->sec, t, by, 0);
	s->t_close = t;
	s->closed_by = by;
	p->done[p->n_done < DET_MAX_SESS ? p->n_done++ : DET_MAX_SESS - 1] = *s;
	p->n_attach++;
	memset(s, 0, sizeof(*s));
}

/* Feed the state's exit condition; the sample joins the pending exit's
 * samples or the phase's. True when the exit held: *tc is its first
 * sample, s->pend holds the samples since. */
static bool exit_feed(struct det_priv *p, bn_time_us t, const struct det_in *in, bool raw,
		      bn_time_us wlim, bn_time_us *tc)
{
	struct det_session *s = &p->s;
	bool was = s->exit.pending, chg = bn_persist_feed(&s->exit, raw, t, t, 1, tc);

	if (!was && (s->exit.pending || chg)) {
		memset(&s->pend, 0, sizeof(s->pend));
		s->pend.wlim = wlim;
	} else if (was && !s->exit.pending && !chg) {
		acc_merge(&s->cur, &s->pend);
		memset(&s->pend, 0, sizeof(s->pend));
	}
	acc_add(s->exit.pending || chg ? &s->pend : &s->cur, in, 1, &t);
	if (chg)
		p->changed = true;
	return chg;
}

static void exc_feed(struct det_priv *p, bn_time_us t, double v, double lo, double hi,
		     struct det_phase *ph)
{
	struct det_session *s = &p->s;
	bool raw = v < lo || v > hi, was = s->exc.pending, chg;
	bn_time_us tc;

	chg = bn_persist_feed(&s->exc, raw, t, t, 1, &tc);
	if (!was && s->exc.pending && !s->exc.state)
		memset(&s->exc_run, 0, sizeof(s->exc_run)); /* an excursion may begin */
	if (was && !s->exc.pending && !chg && !s->exc.state)
		memset(&s->exc_run, 0, sizeof(s->exc_run)); /* noise, not an excursion */
	if (chg) {
		p->changed = true;
		if (!s->exc.state) {
			run_finish(p, ph, lo, hi); /* back in the band */
			memset(&s->exc_run, 0, sizeof(s->exc_run));
		}
	}
	if (raw && (s->exc.state || s->exc.pending))
		run_add(&s->exc_run, v, 1, t, t);
}

static void pri_started(struct det_priv *p, bn_time_us tc);

static void step_pre(struct det_priv *p, bn_time_us t, const struct det_in *in)
{
	struct det_session *s = &p->s;
	const struct det_cfg *c = &p->c;
	bool raw_low = in->dp < c->low_v, was = s->low.pending;
	bn_time_us tc;

	if (bn_persist_feed(&s->low, raw_low, t, t, 1, &tc)) {
		p->changed = true;
		memset(&s->dcd, 0, sizeof(s->dcd));
		if (s->low.state) {
			s->low_since = tc;
			s->glitch_t = 0;
			s->dcd = s->dcd_pend;
		}
		memset(&s->dcd_pend, 0, sizeof(s->dcd_pend));
	} else if (was && !s->low.pending) {
		/* D+ rose above VLGC min for less than the persistence */
		if (s->low.state)
			s->glitch_t = t;
		memset(&s->dcd_pend, 0, sizeof(s->dcd_pend));
	}
	/* a level in the window belongs to the phase it starts (below) */
	if (dcd_level(c, in) && !in_win(c, in->dp)) {
		if (s->low.state)
			acc_add(&s->dcd, in, 1, &t);
		else if (s->low.pending)
			acc_add(&s->dcd_pend, in, 1, &t);
	}
	if (!exit_feed(p, t, in, in_win(c, in->dp) || in->vbus < c->sess_lo, t + c->ton_us, &tc))
		return;
	if (in->vbus < c->sess_lo) {
		det_close(p, tc, DE_VBUS);
		return;
	}
	pri_started(p, tc);
	/* a level at a DCD level in the port's frame (the pending samples'
	 * mean) that the offset put in the window */
	if (c->dcd_overlap && s->low.state) {
		double pdp = acc_mean(&s->pend.dp, s->pend.n);

		s->pri_tent = dcd_band(c, pdp, pdp + c->dev_sh[0] - c->port_sh[0]);
	}
	phase_begin(p, DS_PRI);
}

/* Primary detection began at tc: what the data and the bench's events
 * say of the contact then. */
static void pri_started(struct det_priv *p, bn_time_us tc)
{
	struct det_session *s = &p->s;
	bn_time_us make_t;

	s->pri.t0 = tc;
	s->pri.start_by = DE_LEVEL;
	s->contact = s->low.state && s->dcd.n > 0;
	s->contact_t = s->low_since;
	s->ct_broke = false;
	s->ct_make_t = BN_TIME_NEVER;
	if (p->ct_known) {
		s->ct_pri = ct_at(p, tc, &make_t);
		s->ct_make_t = make_t;
		/* events that came between tc and now */
		for (long k = p->ct_n - 1; k >= 0 && k >= p->ct_n - DET_CT_RING; k--) {
			long i = k % DET_CT_RING;

			if (p->ct[i].t <= tc)
				break;
			if (!p->ct[i].made && s->ct_pri == 1) {
				s->ct_broke = true;
				s->ct_break_t = p->ct[i].t;
			}
			if (p->ct[i].made && s->ct_make_t == BN_TIME_NEVER)
				s->ct_make_t = p->ct[i].t;
		}
	}
}

/* The tentative primary was DCD: its samples (tent) join the DCD run,
 * and primary detection begins at tc, with the samples since. */
static void pri_redate(struct det_priv *p, bn_time_us tc, const struct det_acc *tent)
{
	struct det_session *s = &p->s;

	acc_merge(&s->dcd, tent);
	memset(&s->pri, 0, sizeof(s->pri));
	s->pri_tent = false;
	s->pri_from_dcd = true;
	s->ans_seen = false;
	det_persist_init(&s->ans);
	pri_started(p, tc);
	phase_begin(p, DS_PRI);
}

static void step_pri(struct det_priv *p, bn_time_us t, const struct det_in *in)
{
	struct det_session *s = &p->s;
	const struct det_cfg *c = &p->c;
	double dmean = acc_mean(&s->cur.diff, s->cur.n);
	bool rel = c->r_short > 0 && s->cur.frozen && dmean / 2 > s->cur.sd;
	/* a tentative primary (DCD's level?) turns DCD at a step of D+
	 * within the window beyond DET_STEP_SD of its own noise */
	bool step = s->pri_tent && s->cur.frozen && in_win(c, in->dp) &&
		    fabs(in->dp - acc_mean(&s->cur.dp, s->cur.n)) > DET_STEP_SD * s->cur.sd;
	bool raw = !in_win(c, in->dp) || in->vbus < c->sess_lo ||
		   (c->r_short > 0 && in->diff < -c->sign_thr) || (rel && in->diff < dmean / 2) || step;
	bn_time_us tc;

	if (exit_feed(p, t, in, raw, s->pri_tent ? t + c->ton_us : s->cur.wlim, &tc)) {
		/* what the pending samples show, not one of them */
		double pdp = acc_mean(&s->pend.dp, s->pend.n), pdm = acc_mean(&s->pend.dm, s->pend.n);
		double pdiff = acc_mean(&s->pend.diff, s->pend.n);
		bool out = !in_win(c, pdp), sign = c->r_short > 0 && pdiff < -c->sign_thr;

		if (!in_win(c, in->dp))
			s->tail_n = 0;
		else if (!s->tail_n++)
			s->tail_t = t;
		if (in->vbus < c->sess_lo) {
			det_close(p, tc, DE_VBUS);
			return;
		}
		if (s->pri_tent && !out) {
			pri_redate(p, tc, &s->cur);
			return;
		}
		phase_end(p, &s->pri, tc, out ? DE_LEVEL : sign ? DE_SIGN : DE_RELEASE,
			  rel ? dmean / 2 : -c->sign_thr);
		if (sec_cond(c, pdp, pdm, pdiff)) {
			s->sec.t0 = tc;
			s->sec.start_by = out ? DE_LEVEL : DE_SIGN;
			phase_begin(p, DS_SEC);
		} else {
			phase_begin(p, DS_SECWAIT);
			/* D+ already back in the window as the exit held: the
			 * next level began there, not at the next sample */
			if (s->pri_tent && s->tail_n > 0)
				bn_persist_feed(&s->exit, true, s->tail_t, t, s->tail_n, NULL);
		}
		s->tail_n = 0;
		return;
	}
	if (s->pri_tent && s->exit.pending) {
		if (!in_win(c, in->dp))
			s->tail_n = 0;
		else if (!s->tail_n++)
			s->tail_t = t;
	} else {
		s->tail_n = 0;
	}
	exc_feed(p, t, in->dp, c->vdp_lo, c->vdp_hi, &s->pri);
	if (c->cdp && !s->ans_seen &&
	    bn_persist_feed(&s->ans, in_win(c, in->dmp), t, t, 1, &tc)) {
		s->ans_seen = true;
		s->ans_t = tc;
		p->changed = true;
	}
}

static void step_secwait(struct det_priv *p, bn_time_us t, const struct det_in *in)
{
	struct det_session *s = &p->s;
	const struct det_cfg *c = &p->c;
	bool raw = sec_cond(c, in->dp, in->dm, in->diff) || in->dp > c->win_lo ||
		   in->vbus < c->sess_lo;
	bn_time_us tc;

	if (!exit_feed(p, t, in, raw, s->pri_tent ? t + c->ton_us : 0, &tc))
		return;
	if (in->vbus < c->sess_lo) {
		det_close(p, tc, DE_VBUS);
	} else if (sec_cond(c, acc_mean(&s->pend.dp, s->pend.n), acc_mean(&s->pend.dm, s->pend.n),
			    acc_mean(&s->pend.diff, s->pend.n))) {
		s->pri_tent = false;
		s->sec.t0 = tc;
		s->sec.start_by = DE_LEVEL;
		phase_begin(p, DS_SEC);
	} else if (s->pri_tent && in_win(c, acc_mean(&s->pend.dp, s->pend.n))) {
		/* D+ back in the window, still low: the tentative primary
		 * was DCD, and this is primary detection */
		pri_redate(p, tc, &s->pri.acc);
	} else {
		s->pri_tent = false;
		phase_begin(p, DS_DONE); /* D+ sourced or pulled up again: no secondary */
	}
}

static void step_sec(struct det_priv *p, bn_time_us t, const struct det_in *in)
{
	struct det_session *s = &p->s;
	const struct det_cfg *c = &p->c;
	double dmean = acc_mean(&s->cur.diff, s->cur.n);
	bool stay = in_win(c, in->dm) &&
		    (c->r_short > 0 ? in->diff < dmean / 2 : in->dp < c->dat_lo);
	bn_time_us tc;

	if (exit_feed(p, t, in, !stay || in->vbus < c->sess_lo, 0, &tc)) {
		bool out = !in_win(c, acc_mean(&s->pend.dm, s->pend.n));

		if (in->vbus < c->sess_lo) {
			det_close(p, tc, DE_VBUS);
			return;
		}
		phase_end(p, &s->sec, tc, out || !(c->r_short > 0) ? DE_LEVEL : DE_HALF, dmean / 2);
		phase_begin(p, DS_DONE);
		return;
	}
	exc_feed(p, t, in->dm, c->vdm_lo, c->vdm_hi, &s->sec);
}

static void det_step(struct det_priv *p, bn_time_us t, const struct det_in *in)
{
	struct det_session *s = &p->s;
	bn_time_us tc;

	if (s->st == DS_IDLE) {
		if (!(in->vbus > p->c.sess_hi))
			return;
		session_start(p, t);
	}
	if (s->tentative) {
		if (bn_persist_feed(&s->vbus, in->vbus > p->c.sess_hi, t, t, 1, &tc)) {
			s->tentative = false;
			p->changed = true;
		} else if (!s->vbus.pending) {
			det_close(p, t, DE_VBUS); /* fell back before it held */
			return;
		}
	}
	switch (s->st) {
	case DS_PRE:
		step_pre(p, t, in);
		break;
	case DS_PRI:
		step_pri(p, t, in);
		break;
	case DS_SECWAIT:
		step_secwait(p, t, in);
		break;
	case DS_SEC:
		step_sec(p, t, in);
		break;
	case DS_DONE:
		if (exit_feed(p, t, in, in->vbus < p->c.sess_lo, 0, &tc))
			det_close(p, tc, DE_VBUS);
		break;
	default:
		break;
	}
}

static void det_sample(void *priv, bn_time_us t, const struct bn_sample *smp)
{
	struct det_priv *p = priv;
	struct det_in in;

	if (det_follows(p))
		return;
	det_input(p, smp, &in);
	p->changed = false;
	zero_add(p, &in, 1);
	det_step(p, t, &in);
	p->any_sample = true;
}

/* Nothing pending and nothing changed by the last sample: more samples
 * equal to it only add to the sums. */
static bool det_steady(const struct det_priv *p)
{
	const struct det_session *s = &p->s;

	if (p->changed || !p->any_sample)
		return false;
	switch (s->st) {
	case DS_IDLE:
		return true;
	case DS_PRE:
		return !s->tentative && !s->exit.pending && !s->low.pending;
	case DS_PRI:
	case DS_SEC:
		return !s->tentative && !s->exit.pending && !s->exc.pending && !s->ans.pending &&
		       s->cur.frozen;
	default:
		return !s->tentative && !s->exit.pending;
	}
}

static void det_bulk(struct det_priv *p, const bn_time_us *t, long m, const struct det_in *in)
{
	struct det_session *s = &p->s;
	const struct det_cfg *c = &p->c;

	zero_add(p, in, m);
	if (s->st == DS_IDLE)
		return;
	acc_add(&s->cur, in, m, t);
	if (s->st == DS_PRE && s->low.state && dcd_level(c, in) && !in_win(c, in->dp))
		acc_add(&s->dcd, in, m, t);
	if (s->st == DS_PRI && s->exc.state && (in->dp < c->vdp_lo || in->dp > c->vdp_hi))
		run_add(&s->exc_run, in->dp, m, t[0], t[m - 1]);
	if (s->st == DS_SEC && s->exc.state && (in->dm < c->vdm_lo || in->dm > c->vdm_hi))
		run_add(&s->exc_run, in->dm, m, t[0], t[m - 1]);
}

static void det_hold(void *priv, const bn_time_us *t, long n, const struct bn_sample *smp)
{
	struct det_priv *p = priv;

	if (det_follows(p))
		return;
	for (long k = 0; k < n; k++) {
		if (det_steady(p)) {
			struct det_in in;

			det_input(p, smp, &in);
			det_bulk(p, t + k, n - k, &in);
			return;
		}
		det_sample(p, t[k], smp);
	}
}

static void det_event(void *priv, const struct bn_cev *ev)
{
	struct det_priv *p = priv;
	struct det_session *s = &p->s;
	bool made = ev->num > 0.5;

	if (det_follows(p))
		return;
	if (ev->kind == BN_CEV_VBUS_ON && p->vbus_on_t == BN_TIME_NEVER)
		p->vbus_on_t = ev->t_us;
	if (ev->kind != BN_CEV_DATA_CONTACT)
		return;
	p->ct[p->ct_n % DET_CT_RING].t = ev->t_us;
	p->ct[p->ct_n % DET_CT_RING].made = made;
	p->ct_n++;
	if (s->st == DS_PRI || s->st == DS_SECWAIT || s->st == DS_SEC || s->st == DS_DONE) {
		if (made && s->ct_make_t == BN_TIME_NEVER)
			s->ct_make_t = ev->t_us;
		if (!made && s->ct_pri == 1 && !s->ct_broke && s->st != DS_DONE) {
			s->ct_broke = true;
			s->ct_break_t = ev->t_us;
		}
	}
}

static void det_begin(struct det_priv *p, const struct bn_check_ctx *ctx, det_judge_fn judge)
{
	const struct bn_limits *l = ctx->lim;
	struct det_cfg *c = &p->c;
	static const enum bn_chan ch[2] = { BN_CH_DP, BN_CH_DM };

	p->ctx = ctx;
	p->lim = l;
	p->judge = judge;
	c->sess_lo = bn_limits_min(l, "VOTG_SESS_VLD");
	c->sess_hi = bn_limits_max(l, "VOTG_SESS_VLD");
	c->low_v = bn_limits_min(l, "VLGC");
	c->win_lo = bn_limits_max(l, "VDAT_REF");
	c->win_hi = bn_limits_min(l, "VLGC");
	c->dat_lo = bn_limits_min(l, "VDAT_REF");
	c->dcd_floor = bn_limits_min(l, "IDP_SRC") *
		       fmin(bn_limits_min(l, "RDP_DWN"), bn_limits_min(l, "RDM_DWN")) / 2.0;
	c->r_short = ctx->dp_dm_short_ohm > 0 ? ctx->dp_dm_short_ohm : 0.0;
	c->r_pd = ctx->dp_pulldown_ohm > 0 ? ctx->dp_pulldown_ohm : 0.0;
	c->sign_thr = bn_limits_min(l, "IDP_SINK") * c->r_short / 2.0;
	c->r_lkg = bn_limits_min(l, "RDAT_LKG");
	c->vdp_lo = bn_limits_min(l, "VDP_SRC");
	c->vdp_hi = bn_limits_max(l, "VDP_SRC");
	c->vdm_lo = bn_limits_min(l, "VDM_SRC");
	c->vdm_hi = bn_limits_max(l, "VDM_SRC");
	c->rate_hz = ctx->rate_hz;
	c->ton_us = bn_time_from_s(bn_limits_min(l, "TVDPSRC_ON"));
	c->n_persist = ctx->rate_hz > 0 ? (long)floor(BN_PERSIST_LEVEL_US * 1e-6 * ctx->rate_hz) + 1 : 1;
	if (c->n_persist < BN_PERSIST_MIN_SAMPLES)
		c->n_persist = BN_PERSIST_MIN_SAMPLES;
	c->cdp = ctx->port == BN_PORT_CDP;
	c->dcd_dev = c->r_short > 0 && !(c->r_pd > 0);
	for (int k = 0; k < 2; k++) {
		const struct bn_meas *m = &ctx->meas[ch[k]];
		bool port_ref = m->gnd == BN_GND_PORT;
		double off = ctx->gnd_offset_v;

		/* v against the device's ground is v - offset for a channel
		 * referred to the port's, and v + offset against the port's for
		 * one referred to the device's. Unknown: segment as if 0, and
		 * the levels that need it are inconclusive. */
		c->dev_unknown[k] = port_ref && isnan(off);
		c->port_unknown[k] = !port_ref && isnan(off);
		c->dev_sh[k] = port_ref && !isnan(off) ? off : 0.0;
		c->port_sh[k] = !port_ref && !isnan(off) ? -off : 0.0;
		c->z_floor[k] = m->bits > 0 && ctx->meas_src[ch[k]] != BN_MEAS_SRC_ESTIMATED ? m->range_lo
											  : 0.0;
	}
	/* the DCD band against the device's ground is shifted by -offset */
	c->dcd_overlap = c->r_pd > 0 && !c->dcd_dev && ctx->gnd_offset_v < 0;
	p->ct_known = (ctx->events & BN_CEV_BIT(BN_CEV_DATA_CONTACT)) != 0;
	p->vbus_on_t = BN_TIME_NEVER;
	/* the last detection rule to begin leads */
	p->sh = ctx->share;
	if (p->sh)
		p->sh->det_leader = p;
}

/* At end(), before the leader's own end() closes its state: the tracker
 * as the leader has it, with this rule's own settings kept. */
static void det_adopt(struct det_priv *p)
{
	det_judge_fn judge = p->judge;
	bool skip = p->skip, zero_on = p->zero_on, rep_seen = p->rep_seen;
	char skip_why[sizeof(p->skip_why)], reported[sizeof(p->reported)];
	bn_time_us rep_t = p->rep_t;

	if (!det_follows(p) || !p->sh->det_leader)
		return;
	memcpy(skip_why, p->skip_why, sizeof(skip_why));
	memcpy(reported, p->reported, sizeof(reported));
	*p = *(const struct det_priv *)p->sh->det_leader;
	p->judge = judge;
	p->skip = skip;
	memcpy(p->skip_why, skip_why, sizeof(p->skip_why));
	p->zero_on = zero_on;
	p->rep_seen = rep_seen;
	memcpy(p->reported, reported, sizeof(p->reported));
	p->rep_t = rep_t;
	p->sh = NULL; /* judged on its own copy from here */
}

/* ==== judging ==== */

static const char *det_closed_how(enum det_end by)
{
	return by == DE_VBUS ? "VBUS was lost" : "the capture ended";
}

/* Standard uncertainty of the noise and resolution alone of an average of
 * n samples on ch (offset and gain apart). */
static double u_nq(const struct det_priv *p, enum bn_chan ch, long n)
{
	struct bn_meas m = p->ctx->meas[ch];

	m.offset = 0;
	m.gain = 0;
	return bn_meas_u_level(&m, 0, n);
}

/* An edge of height step_v on ch, within one sample period. */
static double u_edge(const struct det_priv *p, enum bn_chan ch, double step_v)
{
	double s = fabs(step_v) * p->c.rate_hz;

	return bn_ctx_u_edge(p->ctx, ch, s > 0 ? s : INFINITY);
}

/* The dating of a change on V(D+)-V(D-) to a level gap_v beyond its
 * threshold: each sample after it still falls on the old side with the
 * probability pw of the noise; the change is dated at the first of
 * n_persist samples in a row on the new side, which comes late by
 * E[D] = ((1 - pw)^-n - 1) / pw - n samples. That delay is taken as a
 * standard uncertainty. Infinite when the noise hides the change. */
static double u_dating(const struct det_priv *p, double gap_v)
{
	double sd = hypot(u_nq(p, BN_CH_DP, 1), u_nq(p, BN_CH_DM, 1)), pw, d;
	long n = p->c.n_persist;

	if (!(sd > 0))
		return 0;
	if (!(gap_v > 0))
		return INFINITY;
	pw = 0.5 * erfc(gap_v / (sd * M_SQRT2));
	if (pw >= 0.5)
		return INFINITY;
	if (pw < 1e-300)
		return 0;
	d = expm1(-(double)n * log1p(-pw)) / pw - (double)n;
	return fmax(d, 0.0) / p->c.rate_hz;
}

static double phase_mean_v(const struct det_phase *ph, bool dm)
{
	return acc_mean(dm ? &ph->acc.dm : &ph->acc.dp, ph->acc.n);
}

/* Standard uncertainty of a phase's end time. */
static double u_phase_end(const struct det_priv *p, const struct det_session *s,
			  const struct det_phase *ph)
{
	bool is_sec = ph == &s->sec;
	double up = u_edge(p, BN_CH_DP, 0), after;

	switch (ph->end_by) {
	case DE_SIGN:
		/* the secondary's level, beyond the threshold */
		after = s->sec.seen && s->sec.acc.n ? acc_mean(&s->sec.acc.diff, s->sec.acc.n)
						   : -2.0 * p->c.sign_thr;
		return hypot(up, u_dating(p, ph->thr_end - after));
	case DE_RELEASE:
		return hypot(up, u_dating(p, ph->thr_end)); /* to about 0 V across the short */
	case DE_HALF:
		return hypot(up, u_dating(p, -ph->thr_end));
	default:
		return u_edge(p, is_sec ? BN_CH_DM : BN_CH_DP, phase_mean_v(ph, is_sec));
	}
}

static double u_phase_start(const struct det_priv *p, const struct det_session *s,
			    const struct det_phase *ph)
{
	if (ph == &s->sec && ph->start_by == DE_SIGN)
		return u_phase_end(p, s, &s->pri);
	/* under an offset that puts the DCD level in the window, primary's
	 * edge is the step from that level */
	if (ph == &s->pri && s->pri_from_dcd)
		return u_edge(p, BN_CH_DP, phase_mean_v(ph, false) - acc_mean(&s->dcd.dp, s->dcd.n));
	return ph == &s->sec ? u_edge(p, BN_CH_DM, phase_mean_v(ph, true))
			     : u_edge(p, BN_CH_DP, phase_mean_v(ph, false));
}

/* VBUS valid at the capture's first sample: the attach is in the capture
 * only if the bench says it switched VBUS on by then. */
static bool attach_known(const struct det_priv *p, const struct det_session *s)
{
	return !s->started_on || p->vbus_on_t <= s->t_attach;
}

/* The data show the lines touched before primary detection. */
static bool contact_in_data(const struct det_priv *p, const struct det_session *s)
{
	double d = acc_mean(&s->pri.acc.diff, s->pri.acc.n);

	return s->contact || s->ans_seen ||
	       (p->c.r_short > 0 && s->pri.acc.n && fabs(d) < p->c.vdp_lo / 2);
}

/* Detection did not see the port: the lines were open when primary
 * detection began, or opened during it. */
static bool excuse_contact(const struct det_priv *p, const struct det_session *s, bool meas,
			   char *why, size_t len)
{
	double tmin = bn_limits_min(p->lim, "TDCD_TIMEOUT");
	double u = 2.0 * hypot(u_edge(p, BN_CH_VBUS, p->c.sess_hi), u_edge(p, BN_CH_DP, p->c.vdp_lo));
	/* A device that waited TDCD_TIMEOUT min before primary detection had
	 * the right to give up on contact; one that did not is to blame for
	 * what it detected on open lines (bc12.det.primary_start says so).
	 * A measurement across the port's network (meas) is void either way. */
	bool waited = !attach_known(p, s) || bn_time_to_s(s->pri.t0 - s->t_attach) >= tmin - u;

	if (!s->pri.seen)
		return false;
	if (s->ct_pri == 0 && (waited || meas)) {
		double tmax = bn_limits_max(p->lim, "TDCD_TIMEOUT");

		if (s->ct_make_t != BN_TIME_NEVER && s->ct_make_t > s->t_attach + bn_time_from_s(tmax))
			snprintf(why, len, "data contact at %.3f s, after TDCD_TIMEOUT max %.1f s from VBUS "
				 "valid at %.3f s: primary detection (at %.3f s) ran on open lines, where "
				 "BC-1.2 lets a device take any port for an SDP", bn_time_to_s(s->ct_make_t),
				 tmax, bn_time_to_s(s->t_attach), bn_time_to_s(s->pri.t0));
		else if (s->ct_make_t != BN_TIME_NEVER)
			snprintf(why, len, "data contact at %.3f s, after primary detection began at %.3f s: "
				 "detection ran on open lines, where BC-1.2 lets a device take any port for "
				 "an SDP", bn_time_to_s(s->ct_make_t), bn_time_to_s(s->pri.t0));
		else
			snprintf(why, len, "no data contact before primary detection began at %.3f s "
				 "(no data_contact event): detection ran on open lines",
				 bn_time_to_s(s->pri.t0));
		return true;
	}
	if (s->ct_pri == 1 && s->ct_broke) {
		snprintf(why, len, "the data lines bounced open at %.3f s, during detection (primary "
			 "began at %.3f s)", bn_time_to_s(s->ct_break_t), bn_time_to_s(s->pri.t0));
		return true;
	}
	if (s->ct_pri < 0 && (waited || meas) && !contact_in_data(p, s)) {
		snprintf(why, len, "no data-contact events, and no DCD level, port answer or short "
			 "shows contact before primary detection at %.3f s", bn_time_to_s(s->pri.t0));
		return true;
	}
	return false;
}

/* A CDP that answered VDM_SRC later than TVDMSRC_EN max (by more than U),
 * or not at all while D+ sat at VDP_SRC that long. */
static bool excuse_port(const struct det_priv *p, const struct det_session *s, char *why,
			size_t len)
{
	double emax = bn_limits_max(p->lim, "TVDMSRC_EN"), u, d;

	if (!p->c.cdp || !s->pri.seen)
		return false;
	u = 2.0 * hypot(u_phase_start(p, s, &s->pri), u_edge(p, BN_CH_DM, p->c.vdm_lo));
	if (s->ans_seen) {
		d = bn_time_to_s(s->ans_t - s->pri.t0);
		if (!(d > emax + u))
			return false;
		snprintf(why, len, "the port (%s) answered VDM_SRC %.1f ms after D+ reached VDP_SRC, "
			 "later than TVDMSRC_EN max %.0f ms", p->ctx->port_name ? p->ctx->port_name : "cdp",
			 d * 1e3, emax * 1e3);
		return true;
	}
	d = bn_time_to_s(s->pri.t1 - s->pri.t0);
	if (!(d > emax + 2.0 * hypot(u_phase_start(p, s, &s->pri), u_phase_end(p, s, &s->pri))))
		return false;
	snprintf(why, len, "the port (%s) never answered VDM_SRC in the %.1f ms D+ sat at VDP_SRC "
		 "(TVDMSRC_EN max %.0f ms)", p->ctx->port_name ? p->ctx->port_name : "cdp", d * 1e3,
		 emax * 1e3);
	return true;
}

static void no_primary(const struct det_session *s, struct bn_result *r)
{
	bn_result_inconclusive(r, "no primary detection (D+ at VDP_SRC for >= 1 ms) after VBUS valid "
			       "at %.3f s", bn_time_to_s(s->t_attach));
	bn_result_window(r, s->t_attach, s->t_close);
}

static int verdict_rank(enum bn_verdict v)
{
	return v == BN_VERDICT_FAIL ? 2 : v == BN_VERDICT_INCONCLUSIVE ? 1 : 0;
}

/* A source's level during a phase whose hold passed (r): its mean, and
 * its worst excursion out of the band, each judged with U for its own
 * average, against the device's ground. The worst verdict stands. */
static void level_judge(const struct det_priv *p, const struct det_phase *ph, bool dm,
			struct bn_result *r)
{
	const char *name = dm ? "VDM_SRC" : "VDP_SRC", *line = dm ? "D-" : "D+";
	enum bn_chan ch = dm ? BN_CH_DM : BN_CH_DP;
	const struct bn_limit *l = bn_limits_find(p->lim, name);
	double lo = l ? l->min : NAN, hi = l ? l->max : NAN, mean = phase_mean_v(ph, dm);
	double hold_ms = r->measured * 1e3;
	struct bn_result lr = *r, er = *r, *w = &lr;
	char sub[240];

	if (p->c.dev_unknown[dm]) {
		bn_result_inconclusive(r, "held %.1f ms; %s is measured against the port's ground and the "
				       "device's ground against it is not known: %s (against the "
				       "device's own) cannot be judged", hold_ms, line, name);
		return;
	}
	bn_result_judge_u(&lr, mean, 2.0 * bn_ctx_u_level(p->ctx, ch, mean, ph->acc.n), lo, hi, "V");
	if (ph->exc) {
		double m = ph->exc_mean;

		bn_result_judge_u(&er, m, 2.0 * bn_ctx_u_level(p->ctx, ch, m, ph->exc_run.n), lo, hi, "V");
		if (verdict_rank(er.verdict) > verdict_rank(lr.verdict))
			w = &er;
	}
	bn_result_figure(r, name, mean, "V");
	if (w->verdict == BN_VERDICT_PASS)
		return;
	snprintf(w->limit, sizeof(w->limit), "%s", name);
	snprintf(w->limit_source, sizeof(w->limit_source), "%s", l && l->source ? l->source : "");
	bn_result_window(w, w == &er ? ph->exc_run.t0 : ph->t0, w == &er ? ph->exc_run.t1 : ph->t1);
	if (w->verdict == BN_VERDICT_FAIL && w == &er)
		bn_result_fail(w, "held %.1f ms, but %s sat at %.3f V for %.1f ms from %.3f s, outside "
			       "%s %.2f..%.2f V (U = %.1f mV)", hold_ms, line, ph->exc_mean,
			       (double)ph->exc_run.n / p->c.rate_hz * 1e3, bn_time_to_s(ph->exc_run.t0),
			       name, lo, hi, w->u * 1e3);
	else if (w->verdict == BN_VERDICT_FAIL)
		bn_result_fail(w, "held %.1f ms, but %s averaged %.3f V, outside %s %.2f..%.2f V "
			       "(U = %.1f mV)", hold_ms, line, mean, name, lo, hi, w->u * 1e3);
	else {
		snprintf(sub, sizeof(sub), "%s", w->reason);
		bn_result_inconclusive(w, "%s level%s: %s", name, w == &er ? " (an excursion)" : "", sub);
	}
	w->n_figures = r->n_figures;
	memcpy(w->figures, r->figures, sizeof(r->figures));
	*r = *w;
}

/* ---- one verdict from every attach ---- */

static void result_fresh(struct bn_result *r)
{
	r->verdict = BN_VERDICT_INCONCLUSIVE;
	r->reason[0] = '\0';
	r->has_measured = false;
	r->measured = NAN;
	r->measured_str[0] = '\0';
	r->unit[0] = '\0';
	r->limit_min = r->limit_max = NAN;
	r->has_margin = false;
	r->margin = NAN;
	r->has_u = false;
	r->u = 0;
	r->n_figures = 0;
	r->t0_us = r->t1_us = -1;
}

static void det_end(void *priv, bn_time_us t_end_us, struct bn_result *res)
{
	struct det_priv *p = priv;
	struct bn_result best, r;
	bool have = false;

	det_adopt(p);
	det_close(p, t_end_us, DE_CAPTURE);
	if (p->skip) {
		res->verdict = BN_VERDICT_SKIPPED;
		bn_str_copy(res->reason, sizeof(res->reason), p->skip_why);
		return;
	}
	if (!p->n_done) {
		bn_result_inconclusive(res, "VBUS never held above VOTG_SESS_VLD max (%.1f V) for >= 1 ms: "
				       "no attach", p->c.sess_hi);
		bn_result_window(res, 0, t_end_us);
		return;
	}
	for (int i = 0; i < p->n_done; i++) {
		r = *res;
		result_fresh(&r);
		p->judge(p, &p->done[i], &r);
		if (!have || (r.verdict == BN_VERDICT_FAIL && best.verdict != BN_VERDICT_FAIL) ||
		    (r.verdict == BN_VERDICT_PASS && best.verdict == BN_VERDICT_INCONCLUSIVE)) {
			best = r;
			have = true;
		}
	}
	*res = best;
	if (p->n_attach > 1 && res->verdict != BN_VERDICT_PASS) {
		size_t n = strlen(res->reason);

		snprintf(res->reason + n, sizeof(res->reason) - n, " (the worst of %d attaches)",
			 p->n_attach);
	}
}

/* ---- bc12.det.port_type: the detected type equals the profile's ---- */

static void port_type_begin(void *priv, const struct bn_check_ctx *ctx)
{
	det_begin(priv, ctx, NULL); /* judged on the report: the tracker only excuses */
}

static void port_type_event(void *priv, const struct bn_cev *ev)
{
	struct det_priv *p = priv;

	det_event(p, ev);
	if (ev->kind != BN_CEV_TELEMETRY || !ev->key || strcmp(ev->key, "port") || !ev->text ||
	    !strcmp(ev->text, "none"))
		return;
	snprintf(p->reported, sizeof(p->reported), "%s", ev->text);
	p->rep_t = ev->t_us;
	p->rep_seen = true;
}

static void port_type_end(void *priv, bn_time_us t_end_us, struct bn_result *res)
{
	struct det_priv *p = priv;
	enum bn_port_type expect = p->ctx->port;
	const struct det_session *s = NULL;
	char why[200];

	det_adopt(p);
	det_close(p, t_end_us, DE_CAPTURE);
	snprintf(res->limit, sizeof(res->limit), "== %s", bn_port_name(expect));
	if (!p->rep_seen) {
		bn_result_window(res, 0, t_end_us);
		/* the lines (ID with them) never touched: nothing to detect */
		if (p->ct_known && !ct_ever_made(p))
			bn_result_inconclusive(res, "the device never reported a detected port type, but "
					       "the data lines never made contact (no data_contact event)");
		else
			bn_result_fail(res, "the device never reported a detected port type");
		return;
	}
	bn_str_copy(res->measured_str, sizeof(res->measured_str), p->reported);
	bn_result_window(res, p->rep_t, p->rep_t);
	if (bn_port_from_name(p->reported) == expect) {
		res->verdict = BN_VERDICT_PASS;
		return;
	}
	/* the attach the report belongs to */
	for (int i = 0; i < p->n_done; i++)
		if (p->done[i].t_attach <= p->rep_t && p->rep_t <= p->done[i].t_close)
			s = &p->done[i];
	if (s && (excuse_contact(p, s, false, why, sizeof(why)) ||
		  excuse_port(p, s, why, sizeof(why)))) {
		bn_result_inconclusive(res, "reported %s, not %s, but %s", p->reported,
				       bn_port_name(expect), why);
		return;
	}
	bn_result_fail(res, "reported %s on a port a correct device sees as %s", p->reported,
		       bn_port_name(expect));
}

static const struct bn_rule rule_port_type = {
	.id = "bc12.det.port_type",
	.task = BN_TASK_DETECT,
	.port_deps = (const char *const[]){ "bc12.port.tvdmsrc_en", "bc12.port.vdm_src", "bc12.port.rdcp_dat", NULL },
	.title = "the detected port type is the one a correct device reaches on this port",
	.clause = "CP 6.6-6.13",
	.persistence = "the device's report; excused by a late data contact or CDP answer, read "
		       "from levels held >= 1 ms, 3 samples",
	.needs_events = BN_CEV_BIT(BN_CEV_TELEMETRY),
	.uses_port = true,
	.priv_size = sizeof(struct det_priv),
	.begin = port_type_begin,
	.sample = det_sample,
	.hold = det_hold,
	.no_samples = det_no_samples,
	.event = port_type_event,
	.end = port_type_end,
};

/* ---- bc12.dcd.idp_src ---- */

static void idp_src_judge(const struct det_priv *p, const struct det_session *s, struct bn_result *r)
{
	double lo = bn_limits_min(p->lim, "IDP_SRC"), hi = bn_limits_max(p->lim, "IDP_SRC");
	double v, i, i_lkg, u;
	char why[200];

	if (!s->dcd.n) {
		if (excuse_contact(p, s, false, why, sizeof(why)))
			bn_result_inconclusive(r, "no DCD phase seen: %s", why);
		else
			bn_result_inconclusive(r, "no DCD phase seen: D+ never sat between %.0f mV and "
					       "VDAT_REF max in a low run before primary detection (a "
					       "device without DCD, or the lines never made contact)",
					       p->c.dcd_floor * 1e3);
		bn_result_window(r, s->t_attach, s->t_close);
		return;
	}
	bn_result_window(r, s->dcd.t0, s->dcd.t1);
	if (p->c.port_unknown[0]) {
		bn_result_inconclusive(r, "D+ is measured against the device's ground and the port's "
				       "ground against it is not known: the voltage across the port's "
				       "pull-down cannot be read");
		return;
	}
	/* The port's leakage (>= RDAT_LKG min) takes a part of the current
	 * beside the pull-down: take half its most, +- half as a bound. */
	v = acc_mean(&s->dcd.dp, s->dcd.n) + p->c.dev_sh[0] - p->c.port_sh[0];
	i_lkg = fabs(v) / p->c.r_lkg;
	i = v / p->c.r_pd + i_lkg / 2;
	u = hypot(bn_ctx_u_level(p->ctx, BN_CH_DP, v, s->dcd.n) / p->c.r_pd, i_lkg / 2 / sqrt(3.0));
	bn_result_judge_u(r, i, 2.0 * u, lo, hi, "A");
	bn_result_figure(r, "V(D+)", v, "V");
	if (r->verdict == BN_VERDICT_FAIL)
		bn_result_fail(r, "IDP_SRC %.2f uA (D+ at %.1f mV over %ld samples across the port's %.0f "
			       "ohm pull-down) outside %.0f..%.0f uA (U = %.2f uA)", i * 1e6, v * 1e3,
			       s->dcd.n, p->c.r_pd, lo * 1e6, hi * 1e6, r->u * 1e6);
}

static void idp_src_begin(void *priv, const struct bn_check_ctx *ctx)
{
	struct det_priv *p = priv;

	det_begin(p, ctx, idp_src_judge);
	if (!(ctx->dp_pulldown_ohm > 0)) {
		p->skip = true;
		snprintf(p->skip_why, sizeof(p->skip_why),
			 "port %s has no known D+ pull-down to turn D+ into a current",
			 ctx->port_name ? ctx->port_name : "?");
	}
}

static const struct bn_rule rule_idp_src = {
	.id = "bc12.dcd.idp_src",
	.task = BN_TASK_DETECT,
	.port_deps = (const char *const[]){ "bc12.port.leakage", NULL },
	.title = "DCD current source IDP_SRC = V(D+) / the port's D+ pull-down during data contact "
		 "(plus the port's leakage as a bound)",
	.clause = "CP 6.4",
	.limit = "IDP_SRC",
	.persistence = "mean of D+ at a DCD level in the low run before primary (D+ < VLGC min "
		       "held >= 1 ms, 3 samples)",
	.needs_channels = (1u << BN_CH_VBUS) | (1u << BN_CH_DP),
	.min_rate_hz = 1000,
	.ports = BN_PORT_BIT(BN_PORT_SDP) | BN_PORT_BIT(BN_PORT_CDP) | BN_PORT_BIT(BN_PORT_ACA_C),
	.priv_size = sizeof(struct det_priv),
	.begin = idp_src_begin,
	.sample = det_sample,
	.hold = det_hold,
	.no_samples = det_no_samples,
	.event = det_event,
	.end = det_end,
};

/* ---- bc12.dcd.debounce ---- */

static void debounce_judge(const struct det_priv *p, const struct det_session *s, struct bn_result *r)
{
	double lo = bn_limits_min(p->lim, "TDCD_DBNC"), d_long, d_short, u;
	bn_time_us t_short = s->contact_t;
	struct bn_result rs;
	char why[200];

	if (!s->pri.seen) {
		no_primary(s, r);
		return;
	}
	if (!s->contact) {
		if (excuse_contact(p, s, false, why, sizeof(why)))
			bn_result_inconclusive(r, "DCD saw no data contact: %s", why);
		else
			bn_result_inconclusive(r, "DCD saw no data contact: D+ was not held low at a DCD "
					       "level up to primary detection at %.3f s (DCD timed out, "
					       "or no DCD)", bn_time_to_s(s->pri.t0));
		bn_result_window(r, s->t_attach, s->pri.t0);
		return;
	}
	/* The device's debounce restarts where the lines last opened: a
	 * glitch of D+ above VLGC shorter than the persistence, or a bounce
	 * the bench reported. The debounce lies between the two times. */
	if (s->glitch_t > t_short)
		t_short = s->glitch_t;
	if (s->ct_pri == 1 && s->ct_make_t != BN_TIME_NEVER && s->ct_make_t > t_short &&
	    s->ct_make_t < s->pri.t0)
		t_short = s->ct_make_t;
	d_long = bn_time_to_s(s->pri.t0 - s->contact_t);
	d_short = bn_time_to_s(s->pri.t0 - t_short);
	u = 2.0 * hypot(u_edge(p, BN_CH_DP, p->c.low_v), u_phase_start(p, s, &s->pri));
	rs = *r;
	bn_result_judge_u(&rs, d_short, u, lo, NAN, "s");
	bn_result_window(&rs, t_short, s->pri.t0);
	if (rs.verdict == BN_VERDICT_PASS || t_short == s->contact_t) {
		*r = rs;
		if (r->verdict == BN_VERDICT_FAIL)
			bn_result_fail(r, "primary detection began %.1f ms after D+ went low (data contact "
				       "at %.3f s): debounce shorter than TDCD_DBNC min %.0f ms (U = %.2f ms)",
				       d_short * 1e3, bn_time_to_s(t_short), lo * 1e3, r->u * 1e3);
		return;
	}
	bn_result_judge_u(r, d_long, u, lo, NAN, "s");
	bn_result_window(r, s->contact_t, s->pri.t0);
	if (r->verdict == BN_VERDICT_FAIL) {
		bn_result_fail(r, "primary detection began %.1f ms after D+ went low at %.3f s: debounce "
			       "shorter than TDCD_DBNC min %.0f ms (U = %.2f ms)", d_long * 1e3,
			       bn_time_to_s(s->contact_t), lo * 1e3, r->u * 1e3);
		return;
	}
	bn_result_inconclusive(r, "debounce %.1f ms from D+ low at %.3f s, but the lines %s at %.3f s, "
			       "%.1f ms before primary detection (TDCD_DBNC min %.0f ms)", d_long * 1e3,
			       bn_time_to_s(s->contact_t),
			       t_short == s->glitch_t ? "glitched above VLGC" : "bounced",
			       bn_time_to_s(t_short), d_short * 1e3, lo * 1e3);
}

static void debounce_begin(void *priv, const struct bn_check_ctx *ctx)
{
	det_begin(priv, ctx, debounce_judge);
}

static const struct bn_rule rule_debounce = {
	.id = "bc12.dcd.debounce",
	.task = BN_TASK_DETECT,
	.port_deps = (const char *const[]){ "bc12.port.rdcp_dat", NULL },
	.title = "after data contact (D+ under IDP_SRC pulled low) D+ stays low for >= TDCD_DBNC "
		 "min before primary detection",
	.clause = "CP 6.4",
	.limit = "TDCD_DBNC",
	.persistence = "D+ low (< VLGC min) to D+ at VDP_SRC, each held >= 1 ms, 3 samples; shorter "
		       "glitches and bounces bound it",
	.needs_channels = (1u << BN_CH_VBUS) | (1u << BN_CH_DP),
	.uses_events = BN_CEV_BIT(BN_CEV_DATA_CONTACT),
	.min_rate_hz = 1000,
	.ports = BN_PORT_BIT(BN_PORT_SDP) | BN_PORT_BIT(BN_PORT_CDP) | BN_PORT_BIT(BN_PORT_DCP),
	.priv_size = sizeof(struct det_priv),
	.begin = debounce_begin,
	.sample = det_sample,
	.hold = det_hold,
	.no_samples = det_no_samples,
	.event = det_event,
	.end = det_end,
};

/* ---- bc12.det.primary_start ---- */

static void primary_start_judge(const struct det_priv *p, const struct det_session *s,
				struct bn_result *r)
{
	double lo = bn_limits_min(p->lim, "TDCD_TIMEOUT"), hi = bn_limits_max(p->lim, "TDCD_TIMEOUT");
	double d, u;

	if (!attach_known(p, s)) {
		bn_result_inconclusive(r, "the capture starts with VBUS already valid: the attach, from "
				       "which primary detection is timed, is not in it");
		bn_result_window(r, s->t_attach, s->t_close);
		return;
	}
	u = 2.0 * hypot(u_edge(p, BN_CH_VBUS, p->c.sess_hi),
			s->pri.seen ? u_phase_start(p, s, &s->pri) : u_edge(p, BN_CH_VBUS, p->c.sess_hi));
	if (!s->pri.seen) {
		d = bn_time_to_s(s->t_close - s->t_attach);
		bn_result_window(r, s->t_attach, s->t_close);
		if (d > hi + u) {
			bn_result_judge_u(r, d, u, NAN, hi, "s");
			bn_result_fail(r, "no primary detection (D+ at VDP_SRC for >= 1 ms) within "
				       "TDCD_TIMEOUT max %.0f ms of VBUS valid at %.3f s", hi * 1e3,
				       bn_time_to_s(s->t_attach));
		} else {
			bn_result_inconclusive(r, "the attach at %.3f s lasted %.1f ms (%s), without "
					       "primary detection", bn_time_to_s(s->t_attach), d * 1e3,
					       det_closed_how(s->closed_by));
		}
		return;
	}
	d = bn_time_to_s(s->pri.t0 - s->t_attach);
	bn_result_judge_u(r, d, u, s->contact ? NAN : lo, hi, "s");
	bn_result_window(r, s->t_attach, s->pri.t0);
	if (r->verdict != BN_VERDICT_FAIL)
		return;
	if (d > hi)
		bn_result_fail(r, "primary detection began %.1f ms after VBUS valid, later than "
			       "TDCD_TIMEOUT max %.0f ms", d * 1e3, hi * 1e3);
	else
		bn_result_fail(r, "primary detection began %.1f ms after VBUS valid with no data "
			       "contact seen: without DCD contact it must wait >= %.0f ms",
			       d * 1e3, lo * 1e3);
}

static void primary_start_begin(void *priv, const struct bn_check_ctx *ctx)
{
	det_begin(priv, ctx, primary_start_judge);
}

static const struct bn_rule rule_primary_start = {
	.id = "bc12.det.primary_start",
	.task = BN_TASK_DETECT,
	.port_deps = (const char *const[]){ "bc12.port.rdcp_dat", NULL },
	.title = "primary detection starts within TDCD_TIMEOUT max of VBUS valid, not before "
		 "TDCD_TIMEOUT min unless DCD saw contact",
	.clause = "CP 6.4, 6.5 [PD6]",
	.limit = "TDCD_TIMEOUT",
	/* a capture that starts with VBUS valid: the attach rests on the bench's VBUS_ON */
	.uses_events = BN_CEV_BIT(BN_CEV_VBUS_ON),
	.persistence = "from VBUS > VOTG_SESS_VLD max to D+ at VDP_SRC, each held >= 1 ms, 3 samples, "
		       "dated at their first sample",
	.needs_channels = (1u << BN_CH_VBUS) | (1u << BN_CH_DP),
	.min_rate_hz = 1000,
	.ports = BN_PORT_BIT(BN_PORT_SDP) | BN_PORT_BIT(BN_PORT_CDP) | BN_PORT_BIT(BN_PORT_DCP),
	.priv_size = sizeof(struct det_priv),
	.begin = primary_start_begin,
	.sample = det_sample,
	.hold = det_hold,
	.no_samples = det_no_samples,
	.event = det_event,
	.end = det_end,
};

/* ---- bc12.det.vdp_src ---- */

static void vdp_src_judge(const struct det_priv *p, const struct det_session *s, struct bn_result *r)
{
	double ton = bn_limits_min(p->lim, "TVDPSRC_ON"), hold, u;

	if (!s->pri.seen) {
		no_primary(s, r);
		return;
	}
	hold = bn_time_to_s(s->pri.t1 - s->pri.t0);
	u = 2.0 * hypot(u_phase_start(p, s, &s->pri), u_phase_end(p, s, &s->pri));
	bn_result_judge_u(r, hold, u, ton, NAN, "s");
	bn_result_window(r, s->pri.t0, s->pri.t1);
	if (r->verdict == BN_VERDICT_FAIL) {
		if (!s->pri.ended)
			bn_result_inconclusive(r, "VDP_SRC held %.1f ms when %s: cut short", hold * 1e3,
					       det_closed_how(s->pri.end_by));
		else
			bn_result_fail(r, "VDP_SRC held %.1f ms, less than TVDPSRC_ON min %.0f ms "
				       "(U = %.2f ms)", hold * 1e3, ton * 1e3, r->u * 1e3);
		return;
	}
	if (r->verdict == BN_VERDICT_PASS)
		level_judge(p, &s->pri, false, r);
}

static void vdp_src_begin(void *priv, const struct bn_check_ctx *ctx)
{
	det_begin(priv, ctx, vdp_src_judge);
}

static const struct bn_rule rule_vdp_src = {
	.id = "bc12.det.vdp_src",
	.task = BN_TASK_DETECT,
	.port_deps = (const char *const[]){ "bc12.port.rdcp_dat", NULL },
	.title = "primary detection holds D+ at VDP_SRC (level within VDP_SRC) for >= TVDPSRC_ON min",
	.clause = "CP 6.6, 6.7",
	.limit = "TVDPSRC_ON",
	.persistence = "D+ in VDAT_REF max..VLGC min (on a short: V(D+)-V(D-) too) held >= 1 ms, 3 "
		       "samples; level: mean, excursions",
	.needs_channels = (1u << BN_CH_VBUS) | (1u << BN_CH_DP) | (1u << BN_CH_DM),
	.min_rate_hz = 1000,
	.ports = BN_PORT_BIT(BN_PORT_SDP) | BN_PORT_BIT(BN_PORT_CDP) | BN_PORT_BIT(BN_PORT_DCP),
	.priv_size = sizeof(struct det_priv),
	.begin = vdp_src_begin,
	.sample = det_sample,
	.hold = det_hold,
	.no_samples = det_no_samples,
	.event = det_event,
	.end = det_end,
};

/* ---- bc12.det.idm_sink ---- */

/* The level an idle channel reads (its offset, with the ground's), from
 * the auto-zero's samples: their mean, or where the converter clipped the
 * noise at its lowest code, the mean of a normal censored there (known
 * noise sigma), solved for its centre. False when the lines were never
 * idle, or clipped more than half the time. */
static bool zero_level(const struct det_priv *p, int k, double *mu, double *u)
{
	enum bn_chan ch = k ? BN_CH_DM : BN_CH_DP;
	double m, lo_c, sg = u_nq(p, ch, 1), a, b;

	if (!p->z_n)
		return false;
	m = bn_rsum_total(&p->z_raw[k]) / (double)p->z_n;
	*u = u_nq(p, ch, p->z_n);
	if (!(p->z_clip[k] > 0 && p->z_below[k] == 0)) {
		*mu = m;
		return true;
	}
	lo_c = p->c.z_floor[k];
	if (!(sg > 0))
		return false;
	/* E[max(X, L)] = L + (mu - L) Phi(z) + sigma phi(z), z = (mu - L) / sigma:
	 * increasing in mu */
	a = lo_c - 10 * sg;
	b = fmax(m, lo_c) + 10 * sg;
	for (int it = 0; it < 200; it++) {
		double c = (a + b) / 2, z = (c - lo_c) / sg;
		double g = lo_c + (c - lo_c) * 0.5 * erfc(-z / M_SQRT2) + sg * exp(-z * z / 2) / sqrt(2 * M_PI);

		if (g < m)
			a = c;
		else
			b = c;
	}
	*mu = (a + b) / 2;
	{
		double z = (*mu - lo_c) / sg, phi_big = 0.5 * erfc(-z / M_SQRT2);
		double phi = exp(-z * z / 2) / sqrt(2 * M_PI);

		if (phi_big < 0.5)
			return false;
		*u /= phi_big;
		if (p->ctx->meas_src[ch] == BN_MEAS_SRC_ESTIMATED)
			*u = hypot(*u, DET_SIGMA_EST_REL * sg * phi / phi_big);
	}
	return true;
}

static void idm_sink_judge(const struct det_priv *p, const struct det_session *s, struct bn_result *r)
{
	const struct bn_check_ctx *ctx = p->ctx;
	const struct bn_meas *mp = &ctx->meas[BN_CH_DP], *mm = &ctx->meas[BN_CH_DM];
	double lo = bn_limits_min(p->lim, "IDM_SINK"), hi = bn_limits_max(p->lim, "IDM_SINK");
	double r_ohm = p->c.r_short, diff_v, dm_v, zero_v, u_zero_v, u_off_v, u_gain_v, lkg_a, i_a, u2;
	double idle_v[2], u_idle_v[2];
	bool zok, est;
	long n = s->pri.acc.wn;
	char why[200];

	if (!s->pri.seen) {
		no_primary(s, r);
		return;
	}
	/* the averaging window: primary's first TVDPSRC_ON min */
	bn_result_window(r, s->pri.t0, s->pri.t1 < s->pri.t0 + p->c.ton_us ? s->pri.t1
									    : s->pri.t0 + p->c.ton_us);
	if (excuse_contact(p, s, true, why, sizeof(why))) {
		bn_result_inconclusive(r, "the port's short was not across the lines: %s", why);
		return;
	}
	if (n < p->c.n_persist) {
		bn_result_inconclusive(r, "primary detection too short (%ld samples) to average",
				       n);
		return;
	}
	diff_v = bn_rsum_total(&s->pri.acc.wrdiff) / (double)n;
	dm_v = bn_rsum_total(&s->pri.acc.wrdm) / (double)n;
	/* The auto-zero_v: the two channels' reading of idle, equal lines
	 * (same channels, same short) is their offset difference, as a
	 * tester nulls it. Used when it is known better than the offsets'
	 * bounds (always when the instrument's accuracy is not known). */
	zok = zero_level(p, 0, &idle_v[0], &u_idle_v[0]) && zero_level(p, 1, &idle_v[1], &u_idle_v[1]) &&
	      p->z_n >= p->c.n_persist;
	est = ctx->meas_src[BN_CH_DP] == BN_MEAS_SRC_ESTIMATED ||
	      ctx->meas_src[BN_CH_DM] == BN_MEAS_SRC_ESTIMATED;
	u_off_v = hypot(mp->offset, mm->offset) / sqrt(3.0);
	u_zero_v = zok ? hypot(u_idle_v[0], u_idle_v[1]) : INFINITY;
	if (zok && (est || u_zero_v < u_off_v)) {
		zero_v = idle_v[0] - idle_v[1];
		dm_v -= idle_v[1];
	} else {
		if ((p->c.port_unknown[0] || p->c.port_unknown[1]) && mp->gnd != mm->gnd) {
			bn_result_inconclusive(r, "D+ and D- are measured against different grounds, their "
					       "offset is not known, and the lines were never idle to "
					       "null it");
			return;
		}
		zero_v = p->c.port_sh[0] - p->c.port_sh[1];
		dm_v -= p->c.port_sh[1];
		u_zero_v = u_off_v;
		zok = false;
	}
	/* One converter: its gain error is common and applies to the
	 * difference; channels stated apart carry theirs at the lines' level. */
	if (mp->gain == mm->gain)
		u_gain_v = fabs(mp->gain * (diff_v - zero_v)) / sqrt(3.0);
	else
		u_gain_v = fabs(dm_v) * hypot(mp->gain, mm->gain) / sqrt(3.0);
	/* D-'s leakage to the port's ground (>= RDAT_LKG min) draws through
	 * the short beside the sink: half its most, +- half as a bound. */
	lkg_a = fabs(dm_v) / p->c.r_lkg;
	i_a = (diff_v - zero_v) / r_ohm - lkg_a / 2;
	u2 = pow(hypot(u_nq(p, BN_CH_DP, n), u_nq(p, BN_CH_DM, n)), 2) + u_zero_v * u_zero_v +
	     u_gain_v * u_gain_v;
	u2 = u2 / (r_ohm * r_ohm) + pow(lkg_a / 2 / sqrt(3.0), 2);
	bn_result_judge_u(r, i_a, 2.0 * sqrt(u2), lo, hi, "A");
	bn_result_figure(r, "V(D+)-V(D-)", diff_v - zero_v, "V");
	bn_result_figure(r, zok ? "auto-zero" : "offset bound", zok ? zero_v : u_off_v * sqrt(3.0), "V");
	if (r->verdict == BN_VERDICT_FAIL)
		bn_result_fail(r, "IDM_SINK %.1f uA (V(D+)-V(D-) %.2f mV over %ld samples across the "
			       "port's %.0f ohm short, %s) outside %.0f..%.0f uA (U = %.1f uA)", i_a * 1e6,
			       (diff_v - zero_v) * 1e3, n, r_ohm, zok ? "auto-zeroed" : "offsets within their bounds",
			       lo * 1e6, hi * 1e6, r->u * 1e6);
}

static void idm_sink_begin(void *priv, const struct bn_check_ctx *ctx)
{
	struct det_priv *p = priv;

	det_begin(p, ctx, idm_sink_judge);
	p->zero_on = true; /* the other rules never read it: they skip its sums */
	if (p->sh)
		p->sh->det_zero = true;
	if (!(ctx->dp_dm_short_ohm > 0)) {
		p->skip = true;
		snprintf(p->skip_why, sizeof(p->skip_why),
			 "port %s has no known D+/D- short to turn V(D+)-V(D-) into a current",
			 ctx->port_name ? ctx->port_name : "?");
	}
}

static const struct bn_rule rule_idm_sink = {
	.id = "bc12.det.idm_sink",
	.task = BN_TASK_DETECT,
	.port_deps = (const char *const[]){ "bc12.port.rdcp_dat", "bc12.port.leakage", NULL },
	.title = "IDM_SINK = (V(D+)-V(D-)) / the port's D+/D- short in primary detection (less "
		 "D-'s leakage as a bound)",
	.clause = "CP 6.6, 6.7",
	.limit = "IDM_SINK",
	.persistence = "mean over primary's first TVDPSRC_ON min; offsets auto-zeroed on idle lines; "
		       "gain common to D+ and D-",
	.needs_channels = (1u << BN_CH_VBUS) | (1u << BN_CH_DP) | (1u << BN_CH_DM),
	.min_rate_hz = 1000,
	.ports = BN_PORT_BIT(BN_PORT_DCP),
	.priv_size = sizeof(struct det_priv),
	.begin = idm_sink_begin,
	.sample = det_sample,
	.hold = det_hold,
	.no_samples = det_no_samples,
	.event = det_event,
	.end = det_end,
};

/* ---- bc12.det.vdm_src ---- */

static void vdm_src_judge(const struct det_priv *p, const struct det_session *s, struct bn_result *r)
{
	double ton = bn_limits_min(p->lim, "TVDMSRC_ON"), hold, u;
	char why[200];

	if (!s->pri.seen) {
		no_primary(s, r);
		return;
	}
	if (!s->sec.seen) {
		if (!s->pri.ended) {
			bn_result_inconclusive(r, "the attach ended during primary detection (%s)",
					       det_closed_how(s->pri.end_by));
			bn_result_window(r, s->pri.t0, s->t_close);
			return;
		}
		bn_result_judge(r, 0.0, ton, NAN, "s");
		bn_result_window(r, s->pri.t1, s->t_close);
		if (excuse_contact(p, s, false, why, sizeof(why)) ||
		    excuse_port(p, s, why, sizeof(why)))
			bn_result_inconclusive(r, "no VDM_SRC followed primary detection, but %s", why);
		else
			bn_result_fail(r, "declares secondary detection, but no VDM_SRC on D- followed "
				       "primary detection (ended at %.3f s)", bn_time_to_s(s->pri.t1));
		return;
	}
	hold = bn_time_to_s(s->sec.t1 - s->sec.t0);
	u = 2.0 * hypot(u_phase_start(p, s, &s->sec), u_phase_end(p, s, &s->sec));
	bn_result_judge_u(r, hold, u, ton, NAN, "s");
	bn_result_window(r, s->sec.t0, s->sec.t1);
	if (r->verdict == BN_VERDICT_FAIL) {
		if (!s->sec.ended)
			bn_result_inconclusive(r, "VDM_SRC held %.1f ms when %s: cut short", hold * 1e3,
					       det_closed_how(s->sec.end_by));
		else if (excuse_contact(p, s, false, why, sizeof(why)))
			bn_result_inconclusive(r, "VDM_SRC held %.1f ms, but %s", hold * 1e3, why);
		else
			bn_result_fail(r, "VDM_SRC held %.1f ms, less than TVDMSRC_ON min %.0f ms "
				       "(U = %.2f ms)", hold * 1e3, ton * 1e3, r->u * 1e3);
		return;
	}
	if (r->verdict == BN_VERDICT_PASS)
		level_judge(p, &s->sec, true, r);
}

static void vdm_src_begin(void *priv, const struct bn_check_ctx *ctx)
{
	det_begin(priv, ctx, vdm_src_judge);
}

static const struct bn_rule rule_vdm_src = {
	.id = "bc12.det.vdm_src",
	.task = BN_TASK_DETECT,
	.port_deps = (const char *const[]){ "bc12.port.tvdmsrc_en", "bc12.port.vdm_src", "bc12.port.tvdmsrc_dis", "bc12.port.rdcp_dat", NULL },
	.title = "secondary detection holds D- at VDM_SRC (level within VDM_SRC) for >= TVDMSRC_ON min",
	.clause = "CP 6.6, 6.7",
	.limit = "TVDMSRC_ON",
	.persistence = "D- in VDAT_REF max..VLGC min, D+ low (on a short: V(D+)-V(D-)) held >= 1 ms, "
		       "3 samples; level: mean, excursions",
	.needs_channels = (1u << BN_CH_VBUS) | (1u << BN_CH_DP) | (1u << BN_CH_DM),
	.min_rate_hz = 1000,
	.ports = BN_PORT_BIT(BN_PORT_DCP) | BN_PORT_BIT(BN_PORT_CDP),
	.needs_decl = BN_DECL_SECONDARY,
	.priv_size = sizeof(struct det_priv),
	.begin = vdm_src_begin,
	.sample = det_sample,
	.hold = det_hold,
	.no_samples = det_no_samples,
	.event = det_event,
	.end = det_end,
};

const struct bn_rule *const bn_rules_detection[] = {
	&rule_port_type,
	&rule_idp_src,
	&rule_debounce,
	&rule_primary_start,
	&rule_vdp_src,
	&rule_idm_sink,
	&rule_vdm_src,
	NULL,
};
