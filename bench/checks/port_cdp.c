/* The charging downstream port's handshake (side port): when a device's
 * D+ sits at VDP_SRC, a CDP answers with VDM_SRC on D- (bc12.port.vdm_src,
 * its level), within TVDMSRC_EN (bc12.port.tvdmsrc_en), and drops it
 * within TVDMSRC_DIS after D+ leaves (bc12.port.tvdmsrc_dis).
 *
 * One tracker reads both lines against the port's ground (the port sees
 * them so), each through the level persistence: D+ "at VDP_SRC" is D+
 * inside the VDP_SRC window, the port's answer is D- where a device's
 * comparator reads one (above VDAT_REF max, below VLGC min: an answer
 * whose level misses VDM_SRC is still on time or late, and its level is
 * vdm_src's to judge, so a level within U of VDM_SRC's edge never reads
 * as no answer), its release D- leaving the VDM_SRC window; each change
 * is dated at its first sample (checks/persist.h),
 * so a time between two of them has no bias from the persistence.
 *
 * An episode opens when D+ enters VDP_SRC and closes when it leaves, VBUS
 * goes off or the capture ends. Times are judged at the end (the noise of
 * a channel may be estimated from the whole capture) with the U of two
 * edge datings (bn_span_U); the worst episode is reported.
 *
 * On a device run the device's own secondary detection drives D- to
 * VDM_SRC too, after D+ left VDP_SRC: a release that is not seen may be
 * the device's, so tvdmsrc_dis fails only when the bench plays the device
 * (ctx->probe) and says when its own VDM_SRC starts.
 *
 * The port sees D+ only through made lines: with the bench's data-contact
 * events known, an episode that began before the lines made contact, or
 * saw them open or bounce, is void (a device may begin primary detection
 * on open lines: no answer is due); a release counts only if the lines
 * stayed made through it. Without those events a port that never answered
 * may have had open lines: that is inconclusive, not a fail. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "checks/level.h"
#include "checks/persist.h"
#include "checks/rules.h"
#include "checks/port_rules.h"

#define CDP_MIN_RATE_HZ 1000.0
#define CDP_SESSION (BN_CEV_BIT(BN_CEV_VBUS_ON) | BN_CEV_BIT(BN_CEV_VBUS_OFF) | BN_CEV_BIT(BN_CEV_DATA_CONTACT))
#define CDP_LINES ((1u << BN_CH_DP) | (1u << BN_CH_DM))

/* The worst of a kind of measurement over the episodes. */
struct cdp_worst {
	long n;              /* episodes measured */
	double d_s;          /* the largest */
	bn_time_us t0, t1;   /* its window */
	bool cut;            /* it ended by VBUS off or the capture's end */
};

struct cdp_priv {
	const struct bn_check_ctx *ctx;
	const struct bn_limits *lim;
	double vdp_lo, vdp_hi, vdm_lo, vdm_hi, wide_lo, wide_hi;
	double sh[2];               /* add to a reading for the port's ground: D+, D- */
	bool gnd_unknown;
	struct bn_persist dp_in, dm_in, dm_wide;
	/* the open episode */
	bool ep;
	bn_time_us ep_t0;
	bool answered;
	bn_time_us ans_t;
	/* the open release (D+ left after an answer) */
	bool rel;
	bn_time_us rel_t0;
	/* the answer's level: D- in the comparator window with D+ at VDP_SRC,
	 * from one persistence after it got there */
	bn_time_us lvl_from;
	long lvl_n;
	struct bn_rsum lvl;
	bn_time_us lvl_t0, lvl_t1;
	/* samples while a change of D+ or D- is pending: they join the level
	 * if it does not hold (a release must not pull the mean down) */
	long lvl_pn;
	struct bn_rsum lvl_p;
	/* the debounced states as the transitions apply them */
	bool cur_dp, cur_w;
	/* results */
	struct cdp_worst en, mute, dis, stuck;
	long episodes;
	/* vdm_src: the episode whose mean lies furthest out */
	long lv_eps;
	double lv_mean, lv_margin;
	long lv_n;
	bn_time_us lv_t0, lv_t1;
	/* the lines' contact (the bench's BN_CEV_DATA_CONTACT) */
	bool ct_known, ct_made;
	bn_time_us ct_t;            /* the last change */
	bool ep_void, rel_void;     /* the open episode, release: lines open or moved */
	/* A CDP may keep VDM_SRC off for TCP_VDM_EN max after a device went
	 * away (its pull-up gone, VBUS off, the lines open): an episode begun
	 * within that of the last such moment is owed no answer in
	 * TVDMSRC_EN; it passes on an answer in time, else is not judged. */
	bn_time_us disc_t;
	double cp_vdm_en_s;
	bool ep_grace;
	long n_grace;               /* episodes late or mute inside that grace */
	long n_void;                /* episodes void */
	bn_time_us void_t0;         /* the first of them */
};

static void worst_put(struct cdp_worst *w, double d_s, bn_time_us t0, bn_time_us t1, bool cut)
{
	if (!w->n++ || d_s > w->d_s) {
		w->d_s = d_s;
		w->t0 = t0;
		w->t1 = t1;
		w->cut = cut;
	}
}

static void cdp_begin(void *priv, const struct bn_check_ctx *ctx)
{
	struct cdp_priv *p = priv;
	const struct bn_limits *l = ctx->lim;
	static const enum bn_chan ch[2] = { BN_CH_DP, BN_CH_DM };
	long min_n = BN_PERSIST_MIN_SAMPLES;

	p->ctx = ctx;
	p->lim = l;
	p->vdp_lo = bn_limits_min(l, "VDP_SRC");
	p->vdp_hi = bn_limits_max(l, "VDP_SRC");
	p->vdm_lo = bn_limits_min(l, "VDM_SRC");
	p->vdm_hi = bn_limits_max(l, "VDM_SRC");
	/* what a device's comparator takes for an answer: above VDAT_REF max,
	 * below VLGC min (the level rule judges it against VDM_SRC) */
	p->wide_lo = bn_limits_max(l, "VDAT_REF");
	p->wide_hi = bn_limits_min(l, "VLGC");
	for (int k = 0; k < 2; k++) {
		bool dut_ref = ctx->meas[ch[k]].gnd == BN_GND_DUT;

		if (dut_ref && isnan(ctx->gnd_offset_v))
			p->gnd_unknown = true;
		/* a reading against the device's ground is v + offset against the port's */
		p->sh[k] = dut_ref && !isnan(ctx->gnd_offset_v) ? ctx->gnd_offset_v : 0.0;
	}
	bn_persist_init(&p->dp_in, BN_PERSIST_LEVEL_US, min_n, false);
	bn_persist_init(&p->dm_in, BN_PERSIST_LEVEL_US, min_n, false);
	bn_persist_init(&p->dm_wide, BN_PERSIST_LEVEL_US, min_n, false);
	p->lvl_from = BN_TIME_NEVER;
	p->ct_known = (ctx->events & BN_CEV_BIT(BN_CEV_DATA_CONTACT)) != 0;
	p->ct_t = BN_TIME_NEVER;
	p->disc_t = BN_TIME_NEVER;
	p->cp_vdm_en_s = bn_limits_max(l, "TCP_VDM_EN");
	if (isnan(p->cp_vdm_en_s))
		p->cp_vdm_en_s = 0.0;
}

/* ---- the episode's transitions ---- */

static void lvl_close(struct cdp_priv *p)
{
	double m, margin;

	p->lvl_pn = 0;
	p->lvl_p = (struct bn_rsum){ 0 };
	if (p->lvl_n < BN_PERSIST_MIN_SAMPLES || p->ep_void) {
		p->lvl_n = 0;
		p->lvl = (struct bn_rsum){ 0 };
		p->lvl_from = BN_TIME_NEVER;
		return;
	}
	m = bn_rsum_mean(&p->lvl, p->lvl_n);
	margin = fmin(m - p->vdm_lo, p->vdm_hi - m);
	if (!p->lv_eps++ || margin < p->lv_margin) {
		p->lv_mean = m;
		p->lv_margin = margin;
		p->lv_n = p->lvl_n;
		p->lv_t0 = p->lvl_t0;
		p->lv_t1 = p->lvl_t1;
	}
	p->lvl_n = 0;
	p->lvl = (struct bn_rsum){ 0 };
	p->lvl_from = BN_TIME_NEVER;
}

static void on_answer(struct cdp_priv *p, bn_time_us t)
{
	double d;

	if (!p->ep || p->answered)
		return;
	p->answered = true;
	p->ans_t = t > p->ep_t0 ? t : p->ep_t0;
	d = bn_time_to_s(p->ans_t - p->ep_t0);
	if (p->ep_grace && d > bn_limits_max(p->lim, "TVDMSRC_EN")) {
		p->n_grace++;
		return;
	}
	if (!p->ep_void)
		worst_put(&p->en, d, p->ep_t0, p->ans_t, false);
}

static void on_dp_in(struct cdp_priv *p, bn_time_us t)
{
	p->ep = true;
	p->episodes++;
	p->ep_t0 = t;
	p->answered = false;
	/* D+ dated before the lines' last change (it is confirmed a
	 * persistence later) began on other lines than the port's */
	p->ep_void = p->ct_known && (!p->ct_made || (p->ct_t != BN_TIME_NEVER && p->ct_t > t));
	p->ep_grace = p->disc_t != BN_TIME_NEVER &&
		      t < p->disc_t + bn_time_from_s(p->cp_vdm_en_s);
	/* a release still open ends where primary detection begins again */
	if (p->rel) {
		if (!p->rel_void)
			worst_put(&p->stuck, bn_time_to_s(t - p->rel_t0), p->rel_t0, t, false);
		p->rel = false;
	}
	if (p->dm_wide.state)
		on_answer(p, t);
	if (p->dm_wide.state)
		p->lvl_from = t + BN_PERSIST_LEVEL_US;
}

/* D+ left VDP_SRC (cut: VBUS went off, or the capture ended). */
static void on_dp_out(struct cdp_priv *p, bn_time_us t, bool cut)
{
	if (!p->ep)
		return;
	p->ep = false;
	lvl_close(p);
	if (p->ep_void) {
		if (!p->n_void++)
			p->void_t0 = p->ep_t0;
		return;
	}
	if (!p->answered) {
		if (p->ep_grace)
			p->n_grace++;
		else
			worst_put(&p->mute, bn_time_to_s(t - p->ep_t0), p->ep_t0, t, cut);
		return;
	}
	if (cut)
		return;
	if (!p->dm_in.state) {
		/* the answer was gone before D+ left: released in time */
		worst_put(&p->dis, 0.0, t, t, false);
		return;
	}
	p->rel = true;
	p->rel_t0 = t;
	p->rel_void = false;
}

static void on_dm_out(struct cdp_priv *p, bn_time_us t)
{
	if (!p->rel)
		return;
	p->rel = false;
	if (p->rel_void)
		return;
	worst_put(&p->dis, t > p->rel_t0 ? bn_time_to_s(t - p->rel_t0) : 0.0, p->rel_t0,
		  t > p->rel_t0 ? t : p->rel_t0, false);
}

static void close_all(struct cdp_priv *p, bn_time_us t)
{
	on_dp_out(p, t, true);
	if (p->rel && !p->rel_void) {
		worst_put(&p->stuck, bn_time_to_s(t - p->rel_t0), p->rel_t0, t, true);
		p->rel = false;
	}
}

/* ---- samples ---- */

static bool win(double v, double lo, double hi)
{
	return v >= lo && v <= hi;
}

static void lvl_add(struct cdp_priv *p, double dm, bool pend, const bn_time_us *t, long n)
{
	long k;

	if (!p->ep || !p->cur_w || p->lvl_from == BN_TIME_NEVER)
		return;
	k = bn_first_at(t, 0, n, p->lvl_from);
	if (k >= n)
		return;
	if (pend) {
		p->lvl_pn += n - k;
		bn_rsum_add(&p->lvl_p, dm, n - k);
		return;
	}
	if (p->lvl_pn) {
		/* the pending change did not hold: its samples were the level's */
		if (!p->lvl_n)
			p->lvl_t0 = p->lvl_from;
		p->lvl_n += p->lvl_pn;
		p->lvl.done = bn_rsum_total(&p->lvl) + bn_rsum_total(&p->lvl_p);
		p->lvl.n = 0;
		p->lvl.v = 0;
		p->lvl_pn = 0;
		p->lvl_p = (struct bn_rsum){ 0 };
	}
	if (!p->lvl_n)
		p->lvl_t0 = t[k];
	p->lvl_t1 = t[n - 1];
	p->lvl_n += n - k;
	bn_rsum_add(&p->lvl, dm, n - k);
}

static void cdp_hold(void *priv, const bn_time_us *t, long n, const struct bn_sample *s)
{
	struct cdp_priv *p = priv;
	double dp = s->v[BN_CH_DP] + p->sh[0], dm = s->v[BN_CH_DM] + p->sh[1];
	bool r_dp = win(dp, p->vdp_lo, p->vdp_hi), r_dm = win(dm, p->vdm_lo, p->vdm_hi);
	bool r_wide = dm > p->wide_lo && dm < p->wide_hi;
	bn_time_us tc_dp = 0, tc_dm = 0, tc_w = 0;
	long k_dp = bn_persist_run(&p->dp_in, r_dp, t, n, &tc_dp);
	long k_dm = bn_persist_run(&p->dm_in, r_dm, t, n, &tc_dm);
	long k_w = bn_persist_run(&p->dm_wide, r_wide, t, n, &tc_w);
	long at = 0;
	bool pend;

	/* the samples before the first change in the old state, then each
	 * change in the order it was confirmed (D+ first on a tie: the
	 * order sample() would see them in) */
	for (int step = 0; step < 3; step++) {
		long k = n;
		int which = -1;

		if (k_dp < n && k_dp <= k) {
			k = k_dp;
			which = 0;
		}
		if (k_dm < n && (k_dm < k || which < 0)) {
			k = k_dm;
			which = 1;
		}
		if (k_w < n && (k_w < k || which < 0)) {
			k = k_w;
			which = 2;
		}
		if (which < 0)
			break;
		if (k > at) {
			pend = r_dp != p->cur_dp || r_wide != p->cur_w;
			lvl_add(p, dm, pend, t + at, k - at);
			at = k;
		}
		if (which == 0) {
			k_dp = n;
			p->cur_dp = p->dp_in.state;
			if (p->dp_in.state)
				on_dp_in(p, tc_dp);
			else
				on_dp_out(p, tc_dp, false);
		} else if (which == 1) {
			k_dm = n;
			if (!p->dm_in.state)
				on_dm_out(p, tc_dm);
		} else {
			k_w = n;
			p->cur_w = p->dm_wide.state;
			if (p->dm_wide.state)
				on_answer(p, tc_w);
			if (p->dm_wide.state && p->ep)
				p->lvl_from = tc_w + BN_PERSIST_LEVEL_US;
			else if (!p->dm_wide.state)
				lvl_close(p);
		}
	}
	if (n > at)
		lvl_add(p, dm, r_dp != p->cur_dp || r_wide != p->cur_w, t + at, n - at);
}

static void cdp_sample(void *priv, bn_time_us t, const struct bn_sample *s)
{
	cdp_hold(priv, &t, 1, s);
}

static void cdp_event(void *priv, const struct bn_cev *ev)
{
	struct cdp_priv *p = priv;

	if (!ev->inferred && (ev->kind == BN_CEV_VBUS_OFF || ev->kind == BN_CEV_DISCONNECT ||
			      (ev->kind == BN_CEV_DATA_CONTACT && ev->num < 0.5)))
		p->disc_t = ev->t_us;
	if (ev->kind == BN_CEV_DATA_CONTACT && p->ct_known && !ev->inferred) {
		p->ct_made = ev->num > 0.5;
		p->ct_t = ev->t_us;
		if (p->ep)
			p->ep_void = true;
		if (p->rel)
			p->rel_void = true;
		return;
	}
	if (ev->kind != BN_CEV_VBUS_OFF && ev->kind != BN_CEV_VBUS_ON)
		return;
	close_all(p, ev->t_us);
	bn_persist_init(&p->dp_in, BN_PERSIST_LEVEL_US, BN_PERSIST_MIN_SAMPLES, false);
	bn_persist_init(&p->dm_in, BN_PERSIST_LEVEL_US, BN_PERSIST_MIN_SAMPLES, false);
	bn_persist_init(&p->dm_wide, BN_PERSIST_LEVEL_US, BN_PERSIST_MIN_SAMPLES, false);
	p->cur_dp = p->cur_w = false;
}

static const char *port_of(const struct cdp_priv *p)
{
	return p->ctx->port_name ? p->ctx->port_name : "cdp";
}

static bool cdp_common_end(struct cdp_priv *p, bn_time_us t_end_us, struct bn_result *res)
{
	close_all(p, t_end_us);
	if (p->gnd_unknown) {
		bn_result_inconclusive(res, "D+ or D- is measured against the device's ground and its offset "
				       "from the port's is not known: the port's levels cannot be read");
		bn_result_window(res, 0, t_end_us);
		return false;
	}
	if (!p->episodes) {
		bn_result_inconclusive(res, "D+ never held the VDP_SRC window (%.2f-%.2f V) for the level "
				       "persistence: no primary detection asked the port to answer",
				       p->vdp_lo, p->vdp_hi);
		bn_result_window(res, 0, t_end_us);
		return false;
	}
	if (p->n_void == p->episodes) {
		bn_result_inconclusive(res, "primary detection (D+ at VDP_SRC, from %.3f s) ran while the data lines "
				       "were not in contact%s: the port could not see it", bn_time_to_s(p->void_t0),
				       p->ct_t == BN_TIME_NEVER ? " (the bench never reported them made)"
								: " or across a contact change");
		bn_result_window(res, 0, t_end_us);
		return false;
	}
	return true;
}

/* ---- bc12.port.tvdmsrc_en ---- */

static void en_end(void *priv, bn_time_us t_end_us, struct bn_result *res)
{
	struct cdp_priv *p = priv;
	double emax = bn_limits_max(p->lim, "TVDMSRC_EN"), u;

	if (!cdp_common_end(p, t_end_us, res))
		return;
	u = bn_span_U(p->ctx, BN_CH_DP, BN_CH_DM);
	/* an answer that never came, while D+ sat at VDP_SRC longer than the
	 * limit, speaks against the port whatever the answered episodes say */
	if (p->mute.n && p->mute.d_s > emax - u) {
		struct bn_result m = *res;

		bn_result_judge_u(&m, p->mute.d_s, bn_span_U(p->ctx, BN_CH_DP, BN_CH_DP), NAN, emax, "s");
		if (m.verdict != BN_VERDICT_PASS &&
		    (m.verdict == BN_VERDICT_FAIL || !p->en.n || p->en.d_s <= emax)) {
			*res = m;
			bn_result_window(res, p->mute.t0, p->mute.t1);
			bn_result_figure(res, "episodes", (double)p->episodes, "");
			if (res->verdict == BN_VERDICT_FAIL && !p->ct_known)
				bn_result_inconclusive(res, "the port never answered VDM_SRC on D- in the %.1f ms D+ "
						       "held VDP_SRC from %.3f s, but the capture does not say the data "
						       "lines were in contact (no data-contact events): open lines look "
						       "the same", p->mute.d_s * 1e3, bn_time_to_s(p->mute.t0));
			else if (res->verdict == BN_VERDICT_FAIL)
				bn_result_fail(res, "the port (%s) never answered VDM_SRC on D- in the %.1f ms D+ "
					       "held VDP_SRC from %.3f s%s (TVDMSRC_EN max %.0f ms, U = %.2f ms)",
					       port_of(p), p->mute.d_s * 1e3, bn_time_to_s(p->mute.t0),
					       p->mute.cut ? ", until VBUS went off or the capture ended" : "",
					       emax * 1e3, res->u * 1e3);
			return;
		}
	}
	if (!p->en.n && p->n_grace) {
		bn_result_inconclusive(res, "the port answered late or not at all only in primary detections begun "
				       "within TCP_VDM_EN max (%.0f ms) of a disconnect, where a CDP may still "
				       "hold VDM_SRC off (%ld episode(s))", p->cp_vdm_en_s * 1e3, p->n_grace);
		bn_result_window(res, 0, t_end_us);
		return;
	}
	if (!p->en.n) {
		bn_result_inconclusive(res, "the port did not answer VDM_SRC, but D+ never held VDP_SRC longer "
				       "than TVDMSRC_EN max %.0f ms (longest %.1f ms)", emax * 1e3,
				       p->mute.d_s * 1e3);
		bn_result_window(res, p->mute.t0, p->mute.t1);
		return;
	}
	bn_result_judge_u(res, p->en.d_s, u, NAN, emax, "s");
	bn_result_window(res, p->en.t0, p->en.t1);
	bn_result_figure(res, "episodes", (double)p->episodes, "");
	bn_result_figure(res, "answers", (double)p->en.n, "");
	if (res->verdict == BN_VERDICT_FAIL)
		bn_result_fail(res, "the port (%s) answered VDM_SRC on D- %.1f ms after D+ reached VDP_SRC at "
			       "%.3f s: later than TVDMSRC_EN max %.0f ms (U = %.2f ms)", port_of(p),
			       p->en.d_s * 1e3, bn_time_to_s(p->en.t0), emax * 1e3, res->u * 1e3);
}

const struct bn_rule bn_port_tvdmsrc_en = {
	.id = "bc12.port.tvdmsrc_en",
	.task = BN_TASK_PORT_HANDSHAKE,
	.side = BN_SIDE_PORT,
	.title = "a CDP answers D+ at VDP_SRC with VDM_SRC on D- within TVDMSRC_EN max",
	.clause = "BC1.2 Table 5-5",
	.limit = "TVDMSRC_EN",
	.persistence = "D+ in the VDP_SRC window and D- where a comparator reads an answer (above VDAT_REF "
		       "max, below VLGC min; port's ground), each for "
		       ">= 1 ms and >= 3 samples, dated at the first sample; the slowest answer of every "
		       "primary detection, or the longest D+ held VDP_SRC unanswered; only episodes begun with "
		       "the lines made (data contact) and made through them",
	.needs_channels = CDP_LINES,
	.uses_events = CDP_SESSION,
	.min_rate_hz = CDP_MIN_RATE_HZ,
	.ports = BN_PORT_BIT(BN_PORT_CDP),
	.judges_late_capture = true,
	.priv_size = sizeof(struct cdp_priv),
	.begin = cdp_begin,
	.sample = cdp_sample,
	.hold = cdp_hold,
	.event = cdp_event,
	.end = en_end,
};

/* ---- bc12.port.tvdmsrc_dis ---- */

static void dis_end(void *priv, bn_time_us t_end_us, struct bn_result *res)
{
	struct cdp_priv *p = priv;
	const struct bn_probe *pr = &p->ctx->probe;
	double dmax = bn_limits_max(p->lim, "TVDMSRC_DIS"), u, d, seen;
	const struct cdp_worst *w;
	bool sec_known = pr->present && !isnan(pr->sec_after_s), bound;

	if (!cdp_common_end(p, t_end_us, res))
		return;
	/* the slowest release: one seen, or one still open when primary
	 * detection began again, VBUS went off or the capture ended */
	w = p->stuck.n && (!p->dis.n || p->stuck.d_s > p->dis.d_s) ? &p->stuck : &p->dis;
	if (!w->n) {
		bn_result_inconclusive(res, "D+ never left VDP_SRC after an answer while VBUS was on: no "
				       "release to time");
		bn_result_window(res, 0, t_end_us);
		return;
	}
	u = bn_span_U(p->ctx, BN_CH_DP, BN_CH_DM);
	d = w->d_s;
	/* D- is the port's alone until the bench's probe applies its own
	 * VDM_SRC; on a device run, until the device's secondary detection
	 * does, which no capture shows: a release seen in time is the port's,
	 * a late or unseen one may be the device's */
	seen = sec_known ? fmin(d, pr->sec_after_s) : d;
	bound = w == &p->stuck || (sec_known && d >= pr->sec_after_s);
	bn_result_judge_u(res, seen, u, NAN, dmax, "s");
	bn_result_window(res, w->t0, w->t1);
	bn_result_figure(res, "releases", (double)(p->dis.n + p->stuck.n), "");
	if (res->verdict == BN_VERDICT_PASS && !bound)
		return;
	if (res->verdict == BN_VERDICT_FAIL && sec_known) {
		bn_result_fail(res, "the port (%s) held VDM_SRC on D- %s%.1f ms after D+ left VDP_SRC at %.3f s%s: "
			       "later than TVDMSRC_DIS max %.0f ms (U = %.2f ms)", port_of(p),
			       bound ? "at least " : "", seen * 1e3, bn_time_to_s(w->t0),
			       bound && seen < d ? " (when the bench applied its own VDM_SRC)" : "", dmax * 1e3,
			       res->u * 1e3);
		return;
	}
	if (res->verdict == BN_VERDICT_INCONCLUSIVE && !bound && sec_known)
		return; /* within measurement uncertainty, said by the judge */
	bn_result_inconclusive(res, "D- stayed in the VDM_SRC window %s%.1f ms after D+ left VDP_SRC at %.3f s%s: %s",
			       bound ? "at least " : "", seen * 1e3, bn_time_to_s(w->t0),
			       w->cut ? " (until VBUS went off or the capture ended)" : "",
			       !pr->present ? "on a device run the device's own secondary detection drives D- to "
					      "VDM_SRC too, so a late release cannot be told from it (a port "
					      "scenario judges it)"
			       : !sec_known ? "the bench's probe does not say when it applies its own VDM_SRC, so a "
					      "late release cannot be told from it"
					    : "the bench's probe applied its own VDM_SRC before TVDMSRC_DIS max");
}

const struct bn_rule bn_port_tvdmsrc_dis = {
	.id = "bc12.port.tvdmsrc_dis",
	.task = BN_TASK_PORT_HANDSHAKE,
	.side = BN_SIDE_PORT,
	.title = "a CDP drops VDM_SRC (D- leaves the VDM_SRC window) within TVDMSRC_DIS max after D+ "
		 "leaves VDP_SRC",
	.clause = "BC1.2 Table 5-5",
	.limit = "TVDMSRC_DIS",
	.persistence = "D+ out of the VDP_SRC window and D- out of the VDM_SRC window (port's ground), "
		       "each for >= 1 ms and >= 3 samples, dated at the first sample; the slowest release with "
		       "the lines made through it",
	.needs_channels = CDP_LINES,
	.uses_events = CDP_SESSION,
	.min_rate_hz = CDP_MIN_RATE_HZ,
	.ports = BN_PORT_BIT(BN_PORT_CDP),
	.judges_late_capture = true,
	.priv_size = sizeof(struct cdp_priv),
	.begin = cdp_begin,
	.sample = cdp_sample,
	.hold = cdp_hold,
	.event = cdp_event,
	.end = dis_end,
};

/* ---- bc12.port.vdm_src ---- */

static void lv_end(void *priv, bn_time_us t_end_us, struct bn_result *res)
{
	struct cdp_priv *p = priv;
	double u;

	if (!cdp_common_end(p, t_end_us, res))
		return;
	if (!p->lv_eps) {
		bn_result_inconclusive(res, "D- never held the comparator window (%.2f-%.2f V) for 2 ms while D+ "
				       "held VDP_SRC: no answer to measure", p->wide_lo, p->wide_hi);
		bn_result_window(res, 0, t_end_us);
		return;
	}
	u = bn_level_U(p->ctx, BN_CH_DM, p->lv_mean, p->lv_n);
	bn_result_judge_u(res, p->lv_mean, u, p->vdm_lo, p->vdm_hi, "V");
	bn_result_window(res, p->lv_t0, p->lv_t1);
	bn_result_figure(res, "answers", (double)p->lv_eps, "");
	if (res->verdict == BN_VERDICT_FAIL)
		bn_result_fail(res, "the port (%s) answered with D- at %.3f V (mean of %.1f ms from %.3f s, "
			       "U = %.3f V): outside VDM_SRC %.2f-%.2f V", port_of(p), p->lv_mean,
			       bn_time_to_s(p->lv_t1 - p->lv_t0) * 1e3, bn_time_to_s(p->lv_t0), res->u,
			       p->vdm_lo, p->vdm_hi);
}

const struct bn_rule bn_port_vdm_src = {
	.id = "bc12.port.vdm_src",
	.task = BN_TASK_PORT_HANDSHAKE,
	.side = BN_SIDE_PORT,
	.title = "a CDP's answer on D- lies within VDM_SRC (while the device sinks IDM_SINK)",
	.clause = NULL,
	.limit = "VDM_SRC",
	.persistence = "D- as the mean of each answer (D- above VDAT_REF max and below VLGC min, port's "
		       "ground, for >= 1 ms, while D+ holds VDP_SRC), from 1 ms after it got there; the "
		       "answer furthest from the window's middle; only episodes begun with the lines made "
		       "(data contact) and made through them",
	.needs_channels = CDP_LINES,
	.uses_events = CDP_SESSION,
	.min_rate_hz = CDP_MIN_RATE_HZ,
	.ports = BN_PORT_BIT(BN_PORT_CDP),
	.judges_late_capture = true,
	.priv_size = sizeof(struct cdp_priv),
	.begin = cdp_begin,
	.sample = cdp_sample,
	.hold = cdp_hold,
	.event = cdp_event,
	.end = lv_end,
};
