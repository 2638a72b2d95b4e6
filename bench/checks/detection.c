/* Task 1: learn the attached port type (DCD, primary and secondary
 * detection, ACA by ID, OTG). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "checks/check.h"
#include "checks/hold.h"
#include "checks/rules.h"

/* ---- bc12.det.port_type: the detected type equals the profile's ---- */

struct port_type_priv {
	enum bn_port_type expect;
	char reported[32];
	bn_time_us t_us;
	bool seen;
};

static void port_type_begin(void *priv, const struct bn_check_ctx *ctx)
{
	((struct port_type_priv *)priv)->expect = ctx->port;
}

static void port_type_event(void *priv, const struct bn_cev *ev)
{
	struct port_type_priv *p = priv;

	if (ev->kind != BN_CEV_TELEMETRY || strcmp(ev->key, "port") || !strcmp(ev->text, "none"))
		return;
	snprintf(p->reported, sizeof(p->reported), "%s", ev->text);
	p->t_us = ev->t_us;
	p->seen = true;
}

static void port_type_end(void *priv, bn_time_us t_end_us, struct bn_result *res)
{
	struct port_type_priv *p = priv;

	snprintf(res->limit, sizeof(res->limit), "== %s", bn_port_name(p->expect));
	if (!p->seen) {
		bn_result_fail(res, "the device never reported a detected port type");
		bn_result_window(res, 0, t_end_us);
		return;
	}
	snprintf(res->measured_str, sizeof(res->measured_str), "%s", p->reported);
	bn_result_window(res, p->t_us, p->t_us);
	if (bn_port_from_name(p->reported) == p->expect)
		res->verdict = BN_VERDICT_PASS;
	else
		bn_result_fail(res, "reported %s on a port a correct device sees as %s", p->reported,
			       bn_port_name(p->expect));
}

static const struct bn_rule rule_port_type = {
	.id = "bc12.det.port_type",
	.task = BN_TASK_DETECT,
	.title = "the detected port type is the one a correct device reaches on this port",
	.clause = "CP 6.6-6.13",
	.needs_events = BN_CEV_BIT(BN_CEV_TELEMETRY),
	.uses_port = true,
	.priv_size = sizeof(struct port_type_priv),
	.begin = port_type_begin,
	.event = port_type_event,
	.end = port_type_end,
};


/* ==== The device's detection sequence, segmented from the samples ====
 *
 * Every rule below runs its own copy of one tracker that sees only VBUS,
 * D+ and D- (and the port's known network from the context). Per attach
 * (VBUS rising through VOTG_SESS_VLD min, where testers start the clock;
 * VBUS falling below it closes the attach) it finds:
 *
 *   DCD      before primary detection. D+ is "low" below VLGC min. A
 *            contacted line under IDP_SRC shows D+ at a "DCD level":
 *            between IDP_SRC min x min(RDP_DWN min, RDM_DWN min) / 2
 *            (half the smallest legal drop, about 50 mV; below it no
 *            current source is resolved: no DCD) and VDAT_REF max.
 *   primary  D+ rises into the window a port sees as "D+ at VDP_SRC":
 *            above VDAT_REF max, below VLGC min (the CDP responder's
 *            window), for at least 2 samples. It ends when D+ leaves the
 *            window; on a port with a known D+/D- short (a DCP, where D+
 *            stays near 0.6 V through every phase) also when the sign of
 *            V(D+)-V(D-) turns (D- now sourced: secondary) or when the
 *            drop V(D+)-V(D-) across the short falls below half its value
 *            at the start of primary detection (IDM_SINK released).
 *   secondary right after primary: D- in the same window while D+ is
 *            below VDAT_REF min (CDP: D+ sunk by IDP_SINK), or, on a
 *            shorted port, V(D-)-V(D+) > IDP_SINK min x R_short / 2.
 *
 * The capture's voltage resolution is estimated from the stream with
 * constant memory: the approximate greatest common divisor of the nonzero
 * sample-to-sample steps of D+ and D- and of the nonzero V(D+)-V(D-)
 * values (an ADC's codes are multiples of its LSB; float samples collapse
 * the estimate to ~0). It can only over-estimate the LSB, so rules that
 * need a resolution go inconclusive rather than guess.
 *
 * Attaches are judged one by one; a rule reports the first attach that
 * failed, else the first that passed, else the first inconclusive one. */

#define DET_RES_TOL 1e-9   /* numerical tolerance of the float gcd (V) */
#define DET_RES_FLOOR 1e-7 /* below this the estimate is "fine enough for anything" */

enum det_state { DS_IDLE, DS_PRE, DS_PRI, DS_SECWAIT, DS_SEC, DS_DONE };


struct det_session {
	enum det_state st;
	bn_time_us t_attach;
	/* DCD: the current run of D+ low, and whether it held a DCD level */
	bool low, low_dcd;
	bn_time_us low_since;
	long dcd_n;
	struct bn_rsum dcd_sum;
	double dcd_min, dcd_max;
	bn_time_us dcd_t0, dcd_t1;
	/* primary */
	bool pri_seen, pri_ended;
	bn_time_us pri_t0, pri_t1; /* t1: first sample after the phase (or the close) */
	long pri_n;
	double pri_dp_min, pri_dp_max, diff0;
	struct bn_rsum diff_sum;
	bool contact;              /* D+ was held low at a DCD level right up to primary */
	bn_time_us contact_t;      /* start of that low run */
	/* secondary */
	bool sec_seen, sec_ended;
	bn_time_us sec_t0, sec_t1;
	long sec_n;
	double sec_dm_min, sec_dm_max;
	/* resolution */
	double res;
	bool have_prev;
	double prev_dp, prev_dm;
	bn_time_us t_close;
};

struct det_cfg {
	double sess_v, low_v, win_lo, win_hi, dat_lo, dcd_floor;
	double r_short, r_pd, sign_thr;
	double period_s;
};

struct det_priv;
typedef void (*det_judge_fn)(const struct det_priv *p, const struct det_session *s,
			     struct bn_result *r);

struct det_priv {
	const struct bn_limits *lim;
	struct det_cfg c;
	det_judge_fn judge;
	struct det_session s;
	bool skip;           /* the port lacks what the rule computes from */
	char skip_why[120];
	bool have;
	int n_attach;
	struct bn_result best;
};


static double fgcd(double a, double b)
{
	a = fabs(a);
	b = fabs(b);
	if (a < b) {
		double t = a;

		a = b;
		b = t;
	}
	while (b > DET_RES_TOL) {
		double r = fmod(a, b);

		if (b - r < DET_RES_TOL)
			r = 0.0;
		a = b;
		b = r;
	}
	return a;
}

static void det_res_add(struct det_session *s, double x)
{
	if (x == 0.0 || (s->res > 0.0 && s->res < DET_RES_FLOOR))
		return;
	/* Almost every step is a multiple of the estimate already: a division
	 * tells so far cheaper than fmod, and the gcd would return res. */
	if (s->res > 0.0 && fabs(x - nearbyint(x / s->res) * s->res) < DET_RES_TOL)
		return;
	s->res = s->res > 0.0 ? fgcd(s->res, x) : fabs(x);
}

/* The estimated LSB, INFINITY when nothing was seen. */
static double det_resolution(const struct det_session *s)
{
	return s->res > 0.0 ? s->res : INFINITY;
}

static void det_begin(struct det_priv *p, const struct bn_check_ctx *ctx, det_judge_fn judge)
{
	const struct bn_limits *l = ctx->lim;

	p->lim = l;
	p->judge = judge;
	p->c.sess_v = bn_limits_min(l, "VOTG_SESS_VLD");
	p->c.low_v = bn_limits_min(l, "VLGC");
	p->c.win_lo = bn_limits_max(l, "VDAT_REF");
	p->c.win_hi = bn_limits_min(l, "VLGC");
	p->c.dat_lo = bn_limits_min(l, "VDAT_REF");
	p->c.dcd_floor = bn_limits_min(l, "IDP_SRC") *
			 fmin(bn_limits_min(l, "RDP_DWN"), bn_limits_min(l, "RDM_DWN")) / 2.0;
	p->c.r_short = ctx->dp_dm_short_ohm > 0 ? ctx->dp_dm_short_ohm : 0.0;
	p->c.r_pd = ctx->dp_pulldown_ohm > 0 ? ctx->dp_pulldown_ohm : 0.0;
	p->c.sign_thr = bn_limits_min(l, "IDP_SINK") * p->c.r_short / 2.0;
	p->c.period_s = ctx->rate_hz > 0 ? 1.0 / ctx->rate_hz : 0.0;
	p->s.st = DS_IDLE;
}

static void det_fold(struct det_priv *p, const struct bn_result *r)
{
	bool take = !p->have || (r->verdict == BN_VERDICT_FAIL && p->best.verdict != BN_VERDICT_FAIL) ||
		    (r->verdict == BN_VERDICT_PASS && p->best.verdict == BN_VERDICT_INCONCLUSIVE);

	if (take) {
		p->best = *r;
		p->have = true;
	}
}

static void det_close(struct det_priv *p, bn_time_us t)
{
	struct det_session *s = &p->s;
	struct bn_result r;

	if (s->st == DS_IDLE)
		return;
	s->t_close = t;
	if (s->st == DS_PRI)
		s->pri_t1 = t;
	if (s->st == DS_SEC)
		s->sec_t1 = t;
	memset(&r, 0, sizeof(r));
	r.verdict = BN_VERDICT_INCONCLUSIVE;
	r.limit_min = r.limit_max = NAN;
	p->judge(p, s, &r);
	p->n_attach++;
	det_fold(p, &r);
	memset(s, 0, sizeof(*s));
	s->st = DS_IDLE;
}

static bool in_win(const struct det_cfg *c, double v)
{
	return v > c->win_lo && v < c->win_hi;
}

static bool sec_cond(const struct det_cfg *c, double dp, double dm)
{
	return in_win(c, dm) && (dp < c->dat_lo || (c->r_short > 0 && dm - dp > c->sign_thr));
}

static bool pri_ends(const struct det_cfg *c, const struct det_session *s, double dp, double diff)
{
	if (!in_win(c, dp))
		return true;
	return c->r_short > 0 && s->pri_n > 0 &&
	       (-diff > c->sign_thr || (s->diff0 > 0 && diff < s->diff0 / 2.0));
}

static void det_step(struct det_priv *p, bn_time_us t, double dp, double dm)
{
	struct det_session *s = &p->s;
	const struct det_cfg *c = &p->c;
	double diff = dp - dm;

	switch (s->st) {
	case DS_IDLE:
	case DS_DONE:
		return;
	case DS_PRE:
		if (dp < c->low_v) {
			if (!s->low) {
				s->low = true;
				s->low_dcd = false;
				s->low_since = t;
			}
		} else {
			s->low = false;
			s->low_dcd = false;
		}
		if (in_win(c, dp)) {
			s->st = DS_PRI;
			s->pri_t0 = t;
			s->pri_n = 0;
			s->contact = s->low && s->low_dcd;
			s->contact_t = s->low_since;
			break; /* judged as primary below */
		}
		if (s->low && dp >= c->dcd_floor) {
			s->low_dcd = true;
			if (!s->dcd_n) {
				s->dcd_min = s->dcd_max = dp;
				s->dcd_t0 = t;
			}
			s->dcd_n++;
			bn_rsum_add(&s->dcd_sum, dp, 1);
			s->dcd_min = fmin(s->dcd_min, dp);
			s->dcd_max = fmax(s->dcd_max, dp);
			s->dcd_t1 = t;
		}
		return;
	default:
		break;
	}
	if (s->st == DS_PRI) {
		if (pri_ends(c, s, dp, diff)) {
			if (s->pri_n < 2) {
				/* A glitch through the window, not primary detection. */
				s->st = DS_PRE;
				det_step(p, t, dp, dm);
				return;
			}
			s->pri_seen = s->pri_ended = true;
			s->pri_t1 = t;
			s->st = DS_SECWAIT;
		} else {
			if (!s->pri_n) {
				s->diff0 = diff;
				s->pri_dp_min = s->pri_dp_max = dp;
			}
			s->pri_n++;
			s->pri_dp_min = fmin(s->pri_dp_min, dp);
			s->pri_dp_max = fmax(s->pri_dp_max, dp);
			bn_rsum_add(&s->diff_sum, diff, 1);
			if (s->pri_n >= 2)
				s->pri_seen = true;
			return;
		}
	}
	if (s->st == DS_SECWAIT) {
		if (sec_cond(c, dp, dm)) {
			s->st = DS_SEC;
			s->sec_seen = true;
			s->sec_t0 = t;
		} else {
			if (dp > c->win_lo)
				s->st = DS_DONE; /* D+ sourced or pulled up again: no secondary */
			return;
		}
	}
	if (s->st == DS_SEC) {
		if (!sec_cond(c, dp, dm)) {
			s->sec_ended = true;
			s->sec_t1 = t;
			s->st = DS_DONE;
			return;
		}
		if (!s->sec_n)
			s->sec_dm_min = s->sec_dm_max = dm;
		s->sec_n++;
		s->sec_dm_min = fmin(s->sec_dm_min, dm);
		s->sec_dm_max = fmax(s->sec_dm_max, dm);
	}
}

static void det_sample(void *priv, bn_time_us t, const struct bn_sample *smp)
{
	struct det_priv *p = priv;
	struct det_session *s = &p->s;
	double vbus = smp->v[BN_CH_VBUS], dp = smp->v[BN_CH_DP], dm = smp->v[BN_CH_DM];

	if (s->st == DS_IDLE) {
		if (!(vbus >= p->c.sess_v))
			return;
		memset(s, 0, sizeof(*s));
		s->st = DS_PRE;
		s->t_attach = t;
	} else if (!(vbus >= p->c.sess_v)) {
		det_close(p, t);
		return;
	}
	/* A repeated sample adds nothing the estimate has not seen (the
	 * divisor already divides dp - dm): skip the gcd on the hot path. */
	if (s->res > 0.0 && s->res < DET_RES_FLOOR) {
		/* the estimate is final: nothing to add */
	} else if (!s->have_prev) {
		det_res_add(s, dp - dm);
	} else if (dp != s->prev_dp || dm != s->prev_dm) {
		det_res_add(s, dp - s->prev_dp);
		det_res_add(s, dm - s->prev_dm);
		det_res_add(s, dp - dm);
	}
	s->have_prev = true;
	s->prev_dp = dp;
	s->prev_dm = dm;
	det_step(p, t, dp, dm);
}

/* After two equal samples in a row (the one sample() saw and t[0]) the
 * tracker is in a steady phase: whatever the first of them changed (an
 * attach, entering or leaving a phase, a glitch through the window), the
 * second leaves only per-sample counts and times to change, and the
 * resolution estimate has seen the repeat. */
static void det_hold(void *priv, const bn_time_us *t, long n, const struct bn_sample *smp)
{
	struct det_priv *p = priv;
	struct det_session *s = &p->s;
	const struct det_cfg *c = &p->c;
	double dp = smp->v[BN_CH_DP], dm = smp->v[BN_CH_DM], diff = dp - dm;
	long m = n - 1;

	det_sample(p, t[0], smp);
	if (m <= 0)
		return;
	switch (s->st) {
	case DS_PRE:
		if (s->low && dp >= c->dcd_floor) {
			s->dcd_n += m;
			bn_rsum_add(&s->dcd_sum, dp, m);
			s->dcd_t1 = t[n - 1];
		}
		break;
	case DS_PRI:
		if (!pri_ends(c, s, dp, diff)) {
			s->pri_n += m;
			bn_rsum_add(&s->diff_sum, diff, m);
			if (s->pri_n >= 2)
				s->pri_seen = true;
		} else if (s->pri_n == 1 && in_win(c, dp)) {
			/* D- above D+ on a short ends each one-sample "primary"
			 * as a glitch, and the same sample starts the next. */
			s->pri_t0 = t[n - 1];
			bn_rsum_add(&s->diff_sum, diff, m);
		} else {
			for (long k = 1; k < n; k++) /* not reached: see above */
				det_sample(p, t[k], smp);
		}
		break;
	case DS_SEC:
		s->sec_n += m;
		break;
	default:
		break;
	}
}

static void det_end(void *priv, bn_time_us t_end_us, struct bn_result *res)
{
	struct det_priv *p = priv;

	det_close(p, t_end_us);
	if (p->skip) {
		res->verdict = BN_VERDICT_SKIPPED;
		snprintf(res->reason, sizeof(res->reason), "%s", p->skip_why);
		return;
	}
	if (!p->have) {
		bn_result_inconclusive(res, "VBUS never rose above VOTG_SESS_VLD min (%.2f V): no attach",
				       p->c.sess_v);
		bn_result_window(res, 0, t_end_us);
		return;
	}
	res->verdict = p->best.verdict;
	res->has_measured = p->best.has_measured;
	res->measured = p->best.measured;
	snprintf(res->unit, sizeof(res->unit), "%s", p->best.unit);
	res->limit_min = p->best.limit_min;
	res->limit_max = p->best.limit_max;
	res->has_margin = p->best.has_margin;
	res->margin = p->best.margin;
	res->t0_us = p->best.t0_us;
	res->t1_us = p->best.t1_us;
	snprintf(res->reason, sizeof(res->reason), "%s", p->best.reason);
	if (p->n_attach > 1 && res->verdict != BN_VERDICT_PASS) {
		size_t n = strlen(res->reason);

		snprintf(res->reason + n, sizeof(res->reason) - n, " (the worst of %d attaches)",
			 p->n_attach);
	}
}

/* ---- bc12.dcd.idp_src ---- */

static void idp_src_judge(const struct det_priv *p, const struct det_session *s, struct bn_result *r)
{
	double lo = bn_limits_min(p->lim, "IDP_SRC"), hi = bn_limits_max(p->lim, "IDP_SRC");
	double i_mean, i_min, i_max, v;

	if (!s->dcd_n) {
		bn_result_inconclusive(r, "no DCD phase seen: D+ never sat between %.0f mV and "
				       "VDAT_REF max with the line low before primary detection "
				       "(a device without DCD, or the line never made contact)",
				       p->c.dcd_floor * 1e3);
		bn_result_window(r, s->t_attach, s->t_close);
		return;
	}
	i_mean = bn_rsum_total(&s->dcd_sum) / (double)s->dcd_n / p->c.r_pd;
	i_min = s->dcd_min / p->c.r_pd;
	i_max = s->dcd_max / p->c.r_pd;
	v = i_max > hi ? i_max : i_min < lo ? i_min : i_mean;
	bn_result_judge(r, v, lo, hi, "A");
	bn_result_window(r, s->dcd_t0, s->dcd_t1);
	if (r->verdict == BN_VERDICT_FAIL)
		bn_result_fail(r, "IDP_SRC %.2f uA (D+ %.1f..%.1f mV over the port's %.0f ohm D+ "
			       "pull-down) outside %.0f..%.0f uA", v * 1e6, s->dcd_min * 1e3,
			       s->dcd_max * 1e3, p->c.r_pd, lo * 1e6, hi * 1e6);
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
	.title = "DCD current source IDP_SRC = V(D+) / the port's D+ pull-down while the data "
		 "lines make contact (assumes nothing else loads D+: the port's leakage, "
		 ">= RDAT_LKG min, would add < V(D+)/RDAT_LKG min, about 5 %)",
	.clause = "CP 6.4",
	.limit = "IDP_SRC",
	.needs_channels = (1u << BN_CH_VBUS) | (1u << BN_CH_DP),
	.min_rate_hz = 1000,
	.ports = BN_PORT_BIT(BN_PORT_SDP) | BN_PORT_BIT(BN_PORT_CDP) | BN_PORT_BIT(BN_PORT_ACA_C),
	.priv_size = sizeof(struct det_priv),
	.begin = idp_src_begin,
	.sample = det_sample,
	.hold = det_hold,
	.end = det_end,
};

/* ---- bc12.dcd.debounce ---- */

static void debounce_judge(const struct det_priv *p, const struct det_session *s, struct bn_result *r)
{
	double lo = bn_limits_min(p->lim, "TDCD_DBNC"), d;

	if (!s->pri_seen) {
		bn_result_inconclusive(r, "no primary detection seen after the attach at %.1f ms",
				       bn_time_to_ms(s->t_attach));
		bn_result_window(r, s->t_attach, s->t_close);
		return;
	}
	if (!s->contact) {
		bn_result_inconclusive(r, "DCD saw no data contact: D+ was not held low at a DCD level "
				       "up to primary detection at %.1f ms (DCD timed out, or no DCD)",
				       bn_time_to_ms(s->pri_t0));
		bn_result_window(r, s->t_attach, s->pri_t0);
		return;
	}
	d = bn_time_to_s(s->pri_t0 - s->contact_t);
	bn_result_judge(r, d, lo, NAN, "s");
	bn_result_window(r, s->contact_t, s->pri_t0);
	if (r->verdict == BN_VERDICT_FAIL)
		bn_result_fail(r, "primary detection started %.1f ms after D+ went low (data contact "
			       "at %.1f ms): debounce shorter than %.0f ms (+-1 sample)",
			       d * 1e3, bn_time_to_ms(s->contact_t), lo * 1e3);
}

static void debounce_begin(void *priv, const struct bn_check_ctx *ctx)
{
	det_begin(priv, ctx, debounce_judge);
}

static const struct bn_rule rule_debounce = {
	.id = "bc12.dcd.debounce",
	.task = BN_TASK_DETECT,
	.title = "after data contact (D+ under IDP_SRC pulled low) D+ stays low for >= TDCD_DBNC "
		 "min before primary detection",
	.clause = "CP 6.4",
	.limit = "TDCD_DBNC",
	.needs_channels = (1u << BN_CH_VBUS) | (1u << BN_CH_DP),
	.min_rate_hz = 1000,
	.ports = BN_PORT_BIT(BN_PORT_SDP) | BN_PORT_BIT(BN_PORT_CDP) | BN_PORT_BIT(BN_PORT_DCP),
	.priv_size = sizeof(struct det_priv),
	.begin = debounce_begin,
	.sample = det_sample,
	.hold = det_hold,
	.end = det_end,
};

/* ---- bc12.det.primary_start ---- */

static void primary_start_judge(const struct det_priv *p, const struct det_session *s,
				struct bn_result *r)
{
	double lo = bn_limits_min(p->lim, "TDCD_TIMEOUT"), hi = bn_limits_max(p->lim, "TDCD_TIMEOUT");
	double d;

	if (!s->pri_seen) {
		d = bn_time_to_s(s->t_close - s->t_attach);
		bn_result_window(r, s->t_attach, s->t_close);
		if (d > hi) {
			bn_result_judge(r, d, NAN, hi, "s");
			bn_result_fail(r, "no primary detection (D+ at VDP_SRC) within %.0f ms of the "
				       "attach at %.1f ms", hi * 1e3, bn_time_to_ms(s->t_attach));
		} else {
			bn_result_inconclusive(r, "the attach at %.1f ms lasted %.1f ms, without primary "
					       "detection", bn_time_to_ms(s->t_attach), d * 1e3);
		}
		return;
	}
	d = bn_time_to_s(s->pri_t0 - s->t_attach);
	bn_result_judge(r, d, s->contact ? NAN : lo, hi, "s");
	bn_result_window(r, s->t_attach, s->pri_t0);
	if (r->verdict != BN_VERDICT_FAIL)
		return;
	if (d > hi)
		bn_result_fail(r, "primary detection started %.1f ms after the attach, later than "
			       "TDCD_TIMEOUT max %.0f ms", d * 1e3, hi * 1e3);
	else
		bn_result_fail(r, "primary detection started %.1f ms after the attach with no data "
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
	.title = "primary detection starts within TDCD_TIMEOUT max of the attach, and not before "
		 "TDCD_TIMEOUT min unless DCD saw data contact (its debounce: bc12.dcd.debounce)",
	.clause = "CP 6.4, 6.5 [PD6]",
	.limit = "TDCD_TIMEOUT",
	.needs_channels = (1u << BN_CH_VBUS) | (1u << BN_CH_DP),
	.min_rate_hz = 1000,
	.ports = BN_PORT_BIT(BN_PORT_SDP) | BN_PORT_BIT(BN_PORT_CDP) | BN_PORT_BIT(BN_PORT_DCP),
	.priv_size = sizeof(struct det_priv),
	.begin = primary_start_begin,
	.sample = det_sample,
	.hold = det_hold,
	.end = det_end,
};

/* ---- bc12.det.vdp_src ---- */

static void vdp_src_judge(const struct det_priv *p, const struct det_session *s, struct bn_result *r)
{
	double ton = bn_limits_min(p->lim, "TVDPSRC_ON");
	double vlo = bn_limits_min(p->lim, "VDP_SRC"), vhi = bn_limits_max(p->lim, "VDP_SRC");
	double hold;

	if (!s->pri_seen) {
		bn_result_inconclusive(r, "no primary detection seen after the attach at %.1f ms",
				       bn_time_to_ms(s->t_attach));
		bn_result_window(r, s->t_attach, s->t_close);
		return;
	}
	hold = bn_time_to_s(s->pri_t1 - s->pri_t0);
	bn_result_judge(r, hold, ton, NAN, "s");
	bn_result_window(r, s->pri_t0, s->pri_t1);
	if (r->verdict == BN_VERDICT_FAIL) {
		if (!s->pri_ended)
			bn_result_inconclusive(r, "VDP_SRC held %.1f ms when the attach ended: cut short",
					       hold * 1e3);
		else
			bn_result_fail(r, "VDP_SRC held %.1f ms, less than %.0f ms", hold * 1e3,
				       ton * 1e3);
		return;
	}
	if (s->pri_dp_min < vlo || s->pri_dp_max > vhi)
		bn_result_fail(r, "held %.1f ms, but D+ at %.3f..%.3f V outside VDP_SRC %.2f..%.2f V",
			       hold * 1e3, s->pri_dp_min, s->pri_dp_max, vlo, vhi);
}

static void vdp_src_begin(void *priv, const struct bn_check_ctx *ctx)
{
	det_begin(priv, ctx, vdp_src_judge);
}

static const struct bn_rule rule_vdp_src = {
	.id = "bc12.det.vdp_src",
	.task = BN_TASK_DETECT,
	.title = "primary detection holds D+ at VDP_SRC (level within VDP_SRC) for >= TVDPSRC_ON min",
	.clause = "CP 6.6, 6.7",
	.limit = "TVDPSRC_ON",
	.needs_channels = (1u << BN_CH_VBUS) | (1u << BN_CH_DP) | (1u << BN_CH_DM),
	.min_rate_hz = 1000,
	.ports = BN_PORT_BIT(BN_PORT_SDP) | BN_PORT_BIT(BN_PORT_CDP) | BN_PORT_BIT(BN_PORT_DCP),
	.priv_size = sizeof(struct det_priv),
	.begin = vdp_src_begin,
	.sample = det_sample,
	.hold = det_hold,
	.end = det_end,
};

/* ---- bc12.det.idm_sink ---- */

static void idm_sink_judge(const struct det_priv *p, const struct det_session *s, struct bn_result *r)
{
	double lo = bn_limits_min(p->lim, "IDM_SINK"), hi = bn_limits_max(p->lim, "IDM_SINK");
	double need = lo * p->c.r_short / 10.0, res = det_resolution(s), i;

	if (!s->pri_seen) {
		bn_result_inconclusive(r, "no primary detection seen after the attach at %.1f ms",
				       bn_time_to_ms(s->t_attach));
		bn_result_window(r, s->t_attach, s->t_close);
		return;
	}
	bn_result_window(r, s->pri_t0, s->pri_t1);
	if (!(res <= need)) {
		bn_result_inconclusive(r, "needs a D+/D- resolution of %.2f mV (IDM_SINK min x R_short "
				       "/ 10), the capture's steps are %.3g mV", need * 1e3, res * 1e3);
		return;
	}
	i = bn_rsum_total(&s->diff_sum) / (double)s->pri_n / p->c.r_short;
	bn_result_judge(r, i, lo, hi, "A");
	if (r->verdict == BN_VERDICT_FAIL)
		bn_result_fail(r, "IDM_SINK %.1f uA (V(D+)-V(D-) %.2f mV across the port's %.0f ohm "
			       "short) outside %.0f..%.0f uA", i * 1e6, i * p->c.r_short * 1e3,
			       p->c.r_short, lo * 1e6, hi * 1e6);
}

static void idm_sink_begin(void *priv, const struct bn_check_ctx *ctx)
{
	struct det_priv *p = priv;

	det_begin(p, ctx, idm_sink_judge);
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
	.title = "IDM_SINK = (V(D+)-V(D-)) / the port's D+/D- short during primary detection "
		 "(includes D-'s leakage, < V(D-)/RDAT_LKG min, about 2 uA)",
	.clause = "CP 6.6, 6.7",
	.limit = "IDM_SINK",
	.needs_channels = (1u << BN_CH_VBUS) | (1u << BN_CH_DP) | (1u << BN_CH_DM),
	.min_rate_hz = 1000,
	.ports = BN_PORT_BIT(BN_PORT_DCP),
	.priv_size = sizeof(struct det_priv),
	.begin = idm_sink_begin,
	.sample = det_sample,
	.hold = det_hold,
	.end = det_end,
};

/* ---- bc12.det.vdm_src ---- */

static void vdm_src_judge(const struct det_priv *p, const struct det_session *s, struct bn_result *r)
{
	double ton = bn_limits_min(p->lim, "TVDMSRC_ON");
	double vlo = bn_limits_min(p->lim, "VDM_SRC"), vhi = bn_limits_max(p->lim, "VDM_SRC");
	double res = det_resolution(s), hold;

	if (!s->pri_seen) {
		bn_result_inconclusive(r, "no primary detection seen after the attach at %.1f ms",
				       bn_time_to_ms(s->t_attach));
		bn_result_window(r, s->t_attach, s->t_close);
		return;
	}
	if (p->c.r_short > 0 && !(res <= p->c.sign_thr)) {
		bn_result_inconclusive(r, "on a D+/D- short the sign of V(D+)-V(D-) tells primary from "
				       "secondary detection: needs a resolution of %.2f mV "
				       "(IDP_SINK min x R_short / 2), the capture's steps are %.3g mV",
				       p->c.sign_thr * 1e3, res * 1e3);
		bn_result_window(r, s->pri_t0, s->t_close);
		return;
	}
	if (!s->sec_seen) {
		if (!s->pri_ended) {
			bn_result_inconclusive(r, "the attach ended during primary detection");
			bn_result_window(r, s->pri_t0, s->t_close);
			return;
		}
		bn_result_judge(r, 0.0, ton, NAN, "s");
		bn_result_window(r, s->pri_t1, s->t_close);
		bn_result_fail(r, "declares secondary detection, but no VDM_SRC on D- followed primary "
			       "detection (ended at %.1f ms)", bn_time_to_ms(s->pri_t1));
		return;
	}
	hold = bn_time_to_s(s->sec_t1 - s->sec_t0);
	bn_result_judge(r, hold, ton, NAN, "s");
	bn_result_window(r, s->sec_t0, s->sec_t1);
	if (r->verdict == BN_VERDICT_FAIL) {
		if (!s->sec_ended)
			bn_result_inconclusive(r, "VDM_SRC held %.1f ms when the attach ended: cut short",
					       hold * 1e3);
		else
			bn_result_fail(r, "VDM_SRC held %.1f ms, less than %.0f ms", hold * 1e3,
				       ton * 1e3);
		return;
	}
	if (s->sec_dm_min < vlo || s->sec_dm_max > vhi)
		bn_result_fail(r, "held %.1f ms, but D- at %.3f..%.3f V outside VDM_SRC %.2f..%.2f V",
			       hold * 1e3, s->sec_dm_min, s->sec_dm_max, vlo, vhi);
}

static void vdm_src_begin(void *priv, const struct bn_check_ctx *ctx)
{
	det_begin(priv, ctx, vdm_src_judge);
}

static const struct bn_rule rule_vdm_src = {
	.id = "bc12.det.vdm_src",
	.task = BN_TASK_DETECT,
	.title = "secondary detection holds D- at VDM_SRC (level within VDM_SRC) for >= TVDMSRC_ON min",
	.clause = "CP 6.6, 6.7",
	.limit = "TVDMSRC_ON",
	.needs_channels = (1u << BN_CH_VBUS) | (1u << BN_CH_DP) | (1u << BN_CH_DM),
	.min_rate_hz = 1000,
	.ports = BN_PORT_BIT(BN_PORT_DCP) | BN_PORT_BIT(BN_PORT_CDP),
	.needs_decl = BN_DECL_SECONDARY,
	.priv_size = sizeof(struct det_priv),
	.begin = vdm_src_begin,
	.sample = det_sample,
	.hold = det_hold,
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
