/* Task 1, accessory and OTG rules: ACA by ID resistance, the device as
 * A-device, and sourcing VBUS on a grounded ID.
 *
 * Each rule judges only samples (VBUS, IBUS, DP) and bench events; every
 * BC-1.2 number comes from the limits file. Memory is a fixed struct per
 * rule. docs/rules-aca-otg.md states, per rule, its window, persistence,
 * uncertainty and what excuses it.
 *
 * Real signals. A level counts only once it has held BN_PERSIST_LEVEL_US
 * and BN_PERSIST_MIN_SAMPLES (checks/persist.h), dated at its first
 * sample; where a limit is a steady level (an output voltage, a current
 * that must not flow) the rule judges means over a stated window. Every
 * verdict on a measured value goes through bn_result_judge_u with the U of
 * what the rule measured, computed in end() from ctx->meas (the engine
 * estimates an unknown instrument's noise before end()).
 *
 * VBUS valid, measured. The ACA rules and the back-feed rule do not trust
 * the bench's VBUS-on command: a charger may shut down and come back, and
 * a channel map may be wrong. VBUS counts as valid while it is above
 * VOTG_SESS_VLD max (the highest session-valid threshold a device may
 * have: by then every device sees VBUS) with persistence, and as lost
 * once it is below it with persistence (some device may then have seen
 * its session end). Graces start when VBUS is measured valid and re-arm
 * when it comes back. A VBUS channel that never shows a valid VBUS makes
 * these rules inconclusive (a wrong channel map?), never pass.
 *
 * The detection grace. While a device runs its detection sequence its
 * own sources drive D+: IDP_SRC during Data Contact Detect (on an ACA's
 * open data lines that reaches its compliance voltage, about 3 V, until
 * DCD times out at up to TDCD_TIMEOUT max), VDP_SRC during primary
 * detection. Voltage alone cannot tell that from a pull-up. A powered
 * device has finished detection by TSVLD_CON_PWD max after VBUS valid (it
 * would have connected by then on an SDP), so the D+ rules judge D+ from
 * TSVLD_CON_PWD max after VBUS valid until VBUS is lost.
 *
 * Levels a device drives (its D+, its OTG VBUS) are judged in the
 * device's own ground: a channel measured against the port's ground reads
 * them shifted by ctx->gnd_offset_v. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "checks/check.h"
#include "checks/hold.h"
#include "checks/level.h"
#include "checks/rules.h"
#include "core/minmax.h"

/* The capture rate below which a rule that times D+ or IBUS excursions
 * will not judge: compliance testers are described as sampling every 1 ms
 * (TVBUS_AVG; unverified). A measurement resolution, not a limit. */
#define ACA_OTG_MIN_RATE_HZ 1000.0

/* The OTG VBUS output is judged as means over 1 ms (the level
 * persistence), stepped by a quarter of it: a boost's switching ripple and
 * the converter's noise average out, a dropout the peripheral would see
 * (its session-valid comparator needs it to last) does not. */
#define VOUT_BLOCK_US (BN_PERSIST_LEVEL_US / 4)
#define VOUT_BLOCKS 4

/* IBUS is judged for back-feed as means over 10 ms stepped by 1 ms:
 * 2 mA rms of converter noise averages to 0.2 mA at 10 kHz, well inside
 * ISUSP, while a boost that pushes current into the supply (hundreds of
 * mA, for as long as it runs) is seen in the first window. */
#define BF_BLOCK_US BN_PERSIST_LEVEL_US
#define BF_BLOCKS 10

#define WM_BLOCKS_MAX 16

/* ---- who else may misbehave, and which rule that excuses ----
 * The rules judge the device. Where a verdict depends on another party
 * (the charger behind the port keeping VBUS up, the host enumerating),
 * the party's misbehaviour, inferred from the data, makes the part it
 * touches not judged or inconclusive naming the party, never a fail. The
 * table is the data: a rule consults it before excusing; a misbehaviour
 * absent from a rule's row is judged against the device. */
enum aca_party_fault {
	/* VBUS fell below VOTG_SESS_VLD max and came back while the bench
	 * kept it on (a charger that shut down and recovered, a port that
	 * dropped it): the device rightly runs detection again. */
	PARTY_VBUS_DROPOUT = 1u << 0,
	/* The device pulled D+ up, and the host never set a configuration
	 * in the time it had (a host that never enumerates). */
	PARTY_HOST_NO_ENUM = 1u << 1,
	/* The handling, not a party: the data lines touched later than
	 * TDCD_TIMEOUT min after VBUS valid (a slow plug). A device's DCD may
	 * have timed out by then, and BC-1.2 lets it classify the port on
	 * open lines (ID unread, an ACA taken for an SDP): what it then does
	 * on D+ is the handling's doing. */
	HANDLING_LATE_CONTACT = 1u << 2,
};

static const struct {
	const char *rule;
	unsigned excused_by;
} aca_excuses[] = {
	{ "bc12.aca.b_no_connect", PARTY_VBUS_DROPOUT | HANDLING_LATE_CONTACT },
	{ "bc12.aca.c_connect", PARTY_VBUS_DROPOUT | PARTY_HOST_NO_ENUM | HANDLING_LATE_CONTACT },
	{ "bc12.aca.a_no_pullup", PARTY_VBUS_DROPOUT | HANDLING_LATE_CONTACT },
	/* The OTG rules (the device supplies VBUS itself) and the back-feed
	 * rule are excused by nothing: the back-feed rule judges only while
	 * VBUS is supplied and measured valid, whoever dropped it. */
	{ "bc12.otg.sources_vbus", 0 },
	{ "bc12.otg.vbus_output", 0 },
	{ "bc12.otg.no_backfeed", 0 },
};

static bool aca_excused(const char *rule, unsigned fault)
{
	for (size_t i = 0; i < sizeof(aca_excuses) / sizeof(aca_excuses[0]); i++)
		if (!strcmp(aca_excuses[i].rule, rule))
			return (aca_excuses[i].excused_by & fault) == fault;
	return false;
}

/* ---- the device's ground ---- */

/* A level the device drives, in the device's ground (NAN when the ground
 * offset is unknown and the channel is measured against the port's). */
static double dev_level(const struct bn_check_ctx *ctx, enum bn_chan ch, double v)
{
	return bn_gnd_unknown(ctx, ch) ? NAN : v - bn_gnd_shift_v(ctx, ch);
}

/* The reading behind a device-ground level (the gain acts on it). */
static double chan_reading(const struct bn_check_ctx *ctx, enum bn_chan ch, double v_dev)
{
	return v_dev + bn_gnd_shift_v(ctx, ch);
}

/* ---- excursions of a level beyond a threshold, with persistence ----
 * The longest excursion (from its dated start to its dated end) and the
 * mean level over it (to weigh how far past the threshold it was). */
struct lexc {
	struct bn_persist p;
	bn_time_us t0;           /* the excursion in progress started here */
	struct bn_rsum sum, pend;
	long sum_n, pend_n;
	int count;
	bn_time_us longest, longest_t0;
	double longest_mean;
	long longest_n;
};

static void lexc_init(struct lexc *e)
{
	memset(e, 0, sizeof(*e));
	bn_persist_init(&e->p, BN_PERSIST_LEVEL_US, BN_PERSIST_MIN_SAMPLES, false);
	e->longest = -1;
}

static void lexc_account(struct lexc *e, bn_time_us t1)
{
	bn_time_us d = t1 - e->t0;

	if (d <= e->longest)
		return;
	e->longest = d;
	e->longest_t0 = e->t0;
	e->longest_n = e->sum_n;
	e->longest_mean = e->sum_n ? bn_rsum_total(&e->sum) / (double)e->sum_n : NAN;
}

static void rsum_move(struct bn_rsum *to, long *to_n, struct bn_rsum *from, long *from_n)
{
	to->done = bn_rsum_total(to) + bn_rsum_total(from);
	to->v = 0;
	to->n = 0;
	*to_n += *from_n;
	memset(from, 0, sizeof(*from));
	*from_n = 0;
}

/* n samples of level v (raw condition: beyond the threshold) at t[]. */
static void lexc_feed(struct lexc *e, bool raw, double v, const bn_time_us *t, long n)
{
	bool was_pending = e->p.pending;
	bn_time_us tc;
	long j = bn_persist_run(&e->p, raw, t, n, &tc);

	if (raw == e->p.state && j == n) {
		/* no change: a dip back cancelled is part of the excursion */
		if (was_pending && e->p.state)
			rsum_move(&e->sum, &e->sum_n, &e->pend, &e->pend_n);
		else if (was_pending)
			memset(&e->pend, 0, sizeof(e->pend)), e->pend_n = 0;
		if (e->p.state) {
			bn_rsum_add(&e->sum, v, n);
			e->sum_n += n;
		}
		return;
	}
	if (j == n) {
		/* pending: these samples belong to the change, if it comes */
		bn_rsum_add(&e->pend, v, n);
		e->pend_n += n;
		return;
	}
	bn_rsum_add(&e->pend, v, j + 1);
	e->pend_n += j + 1;
	if (e->p.state) {
		/* an excursion starts, dated at its first sample */
		e->t0 = tc;
		e->count++;
		memset(&e->sum, 0, sizeof(e->sum));
		e->sum_n = 0;
		rsum_move(&e->sum, &e->sum_n, &e->pend, &e->pend_n);
		if (n - j - 1 > 0) {
			bn_rsum_add(&e->sum, v, n - j - 1);
			e->sum_n += n - j - 1;
		}
	} else {
		/* it ends at the first sample back */
		lexc_account(e, tc);
		memset(&e->pend, 0, sizeof(e->pend));
		e->pend_n = 0;
	}
}

/* The judged window closes at t (dated): an excursion in progress ends
 * there, or where a pending return began; one that began after t is no
 * excursion of this window. */
static void lexc_close(struct lexc *e, bn_time_us t)
{
	if (e->p.state && e->t0 < t)
		lexc_account(e, e->p.pending && e->p.t_first < t ? e->p.t_first : t);
	bn_persist_init(&e->p, BN_PERSIST_LEVEL_US, BN_PERSIST_MIN_SAMPLES, false);
	memset(&e->pend, 0, sizeof(e->pend));
	e->pend_n = 0;
}

/* ---- means over a sliding window of k blocks ----
 * Fixed memory whatever the rate; the window steps by one block. Each
 * block's sum is a bn_rsum, so a held run and the same samples one by one
 * give the same bits. */
struct wmean {
	bn_time_us block_us;
	int k;
	bool open;
	bn_time_us t_blk;        /* the current block's start */
	struct bn_rsum cur;
	long cur_n;
	double sum[WM_BLOCKS_MAX];
	long cnt[WM_BLOCKS_MAX];
	int head, filled;
	/* the extremes over complete windows */
	long windows;
	double lo, hi;
	long lo_n, hi_n;
	bn_time_us lo_t0, hi_t0;
	double lo_tag, hi_tag;    /* the caller's tag (a load) at each */
	double tag;
};

static void wm_init(struct wmean *w, bn_time_us block_us, int k)
{
	memset(w, 0, sizeof(*w));
	w->block_us = block_us;
	w->k = k < WM_BLOCKS_MAX ? k : WM_BLOCKS_MAX;
	w->lo = INFINITY;
	w->hi = -INFINITY;
}

/* A gap in what is judged: no window spans it. */
static void wm_break(struct wmean *w)
{
	w->open = false;
	w->filled = 0;
	w->head = 0;
	memset(&w->cur, 0, sizeof(w->cur));
	w->cur_n = 0;
}

static void wm_push(struct wmean *w)
{
	double s = 0, m;
	long n = 0;

	w->sum[w->head] = bn_rsum_total(&w->cur);
	w->cnt[w->head] = w->cur_n;
	w->head = (w->head + 1) % w->k;
	if (w->filled < w->k)
		w->filled++;
	memset(&w->cur, 0, sizeof(w->cur));
	w->cur_n = 0;
	if (w->filled < w->k)
		return;
	for (int i = 0; i < w->k; i++) {
		s += w->sum[i];
		n += w->cnt[i];
	}
	if (!n)
		return;
	m = s / (double)n;
	w->windows++;
	if (m < w->lo) {
		w->lo = m;
		w->lo_n = n;
		w->lo_t0 = w->t_blk - (bn_time_us)(w->k - 1) * w->block_us;
		w->lo_tag = w->tag;
	}
	if (m > w->hi) {
		w->hi = m;
		w->hi_n = n;
		w->hi_t0 = w->t_blk - (bn_time_us)(w->k - 1) * w->block_us;
		w->hi_tag = w->tag;
	}
}

static void wm_feed(struct wmean *w, double v, const bn_time_us *t, long n)
{
	long i = 0;

	while (i < n) {
		long j;

		if (w->open && t[i] - w->t_blk >= (bn_time_us)(w->k + 1) * w->block_us)
			wm_break(w); /* samples missing for longer than a window */
		if (!w->open) {
			w->open = true;
			w->t_blk = t[i];
		}
		while (t[i] >= w->t_blk + w->block_us) {
			wm_push(w);
			w->t_blk += w->block_us;
		}
		j = bn_first_at(t, i, n, w->t_blk + w->block_us);
		bn_rsum_add(&w->cur, v, j - i);
		w->cur_n += j - i;
		i = j;
	}
}

/* ---- VBUS valid, measured ----
 * Windows of VBUS above VOTG_SESS_VLD max with persistence; whether the
 * first one was already valid at the capture's first sample (its start is
 * then unknown); what ended each (the bench's VBUS_OFF, or a dropout). */
struct vvalid {
	const char *rule;
	double thr;
	bn_time_us period_us;    /* one sample */
	struct bn_persist p;
	bool have_first;
	bn_time_us t_first_sample;
	bn_time_us t_valid, t_lost;
	/* Where the rule's grace or timing starts: t_valid of the window that
	 * began the attach. A return after a dropout re-arms it only if the
	 * rule's row of aca_excuses says a dropout excuses it. */
	bn_time_us t_from;
	bool at_start;           /* t_from is the capture's first sample, and VBUS may have been valid before */
	bool rearmed;            /* the window in progress re-armed t_from after a dropout */
	int windows, dropouts;
	bn_time_us t_dropout;    /* the first dropout */
	bool lost_by_bench;      /* the last loss followed the bench's VBUS_OFF */
	bool bench_off;          /* the bench removed VBUS (a VBUS_OFF event) since the window began */
	bool bench_on_seen;
	bn_time_us t_bench_on;   /* the bench's last VBUS_ON */
	bool ever_valid;
	double max_v;            /* the highest VBUS seen (for a wrong map's message) */
};

static void vv_init(struct vvalid *vv, const struct bn_check_ctx *ctx, const char *rule)
{
	memset(vv, 0, sizeof(*vv));
	vv->rule = rule;
	vv->thr = bn_limits_max(ctx->lim, "VOTG_SESS_VLD");
	vv->period_us = ctx->rate_hz > 0 ? (bn_time_us)llround(1e6 / ctx->rate_hz) : 0;
	bn_persist_init(&vv->p, BN_PERSIST_LEVEL_US, BN_PERSIST_MIN_SAMPLES, false);
	vv->max_v = -INFINITY;
}

/* Feed a run of VBUS (device ground); returns the index at which the
 * valid state changed (n if none), *opened true when it became valid. */
static long vv_feed(struct vvalid *vv, double vbus, const bn_time_us *t, long n, bool *opened)
{
	bn_time_us tc;
	long j;

	*opened = false;
	if (!vv->have_first) {
		vv->have_first = true;
		vv->t_first_sample = t[0];
	}
	if (isnan(vbus))
		return n;
	vv->max_v = bn_fmax(vv->max_v, vbus);
	j = bn_persist_run(&vv->p, vbus > vv->thr, t, n, &tc);
	if (j == n)
		return n;
	if (vv->p.state) {
		bool dropout_before = vv->windows && !vv->lost_by_bench;

		vv->t_valid = tc;
		vv->rearmed = false;
		if (!dropout_before || aca_excused(vv->rule, PARTY_VBUS_DROPOUT)) {
			vv->rearmed = dropout_before;
			vv->t_from = tc;
			/* Valid at the first sample: when it became valid is
			 * known only if the bench turned VBUS on right then. */
			vv->at_start = tc == vv->t_first_sample &&
				       !(vv->bench_on_seen && vv->t_bench_on <= tc &&
					 vv->t_bench_on >= tc - vv->period_us);
		}
		vv->ever_valid = true;
		vv->bench_off = false;
		vv->windows++;
		*opened = true;
	} else {
		vv->t_lost = tc;
		vv->lost_by_bench = vv->bench_off;
		if (!vv->bench_off && !vv->dropouts++)
			vv->t_dropout = tc;
	}
	return j;
}

static void vv_event(struct vvalid *vv, const struct bn_cev *ev)
{
	if (ev->inferred)
		return;
	if (ev->kind == BN_CEV_VBUS_OFF) {
		vv->bench_off = true;
	} else if (ev->kind == BN_CEV_VBUS_ON) {
		vv->bench_on_seen = true;
		vv->t_bench_on = ev->t_us;
	}
}

static void vv_never_valid(const struct vvalid *vv, struct bn_result *res)
{
	if (!vv->have_first || isinf(vv->max_v))
		bn_result_inconclusive(res, "no VBUS sample: nothing judged");
	else
		bn_result_inconclusive(res,
				       "the VBUS channel never showed a supplied VBUS (above VOTG_SESS_VLD "
				       "max, %.2f V, for %.0f ms; highest %.3f V): a wrong channel map?",
				       vv->thr, bn_time_to_ms(BN_PERSIST_LEVEL_US), vv->max_v);
}

/* ---- D+ after the detection grace, within VBUS-valid windows ----
 * What bc12.aca.b_no_connect and bc12.aca.a_no_pullup share: D+
 * excursions above a threshold, judged from TSVLD_CON_PWD max after VBUS
 * valid to VBUS lost, the grace re-armed at each return. */
struct dpg {
	const struct bn_check_ctx *ctx;
	const char *rule;
	double dp_thr;
	bn_time_us grace_us;
	struct vvalid vv;
	struct lexc hi;          /* windows whose lines touched in time */
	struct lexc hi_late;     /* windows with a late contact (excused, see aca_excuses) */
	long n_judged, n_late;
	bn_time_us j0, j1;
	double max_dp;
	int long_windows;        /* valid windows that outlasted the grace */
	bool excused_rearm;      /* the grace was re-armed after a dropout */
	bool gnd_unknown;
	/* The data lines' contact, when the source reports it: D+ is judged
	 * only while the lines touch, and the grace runs from the later of
	 * VBUS valid and contact (a slow plug delays detection). */
	bool contact_known, contact;
	bn_time_us t_contact;
	bn_time_us late_us;      /* TDCD_TIMEOUT min */
	bool win_contact_seen, win_late;
	int late_windows;
	bn_time_us first_late_us; /* VBUS valid to contact, in the first late window */
};

static void dpg_begin(struct dpg *d, const struct bn_check_ctx *ctx, const char *rule, double dp_thr)
{
	d->ctx = ctx;
	d->rule = rule;
	d->dp_thr = dp_thr;
	d->grace_us = bn_time_from_s(bn_limits_max(ctx->lim, "TSVLD_CON_PWD"));
	vv_init(&d->vv, ctx, rule);
	lexc_init(&d->hi);
	lexc_init(&d->hi_late);
	d->late_us = bn_time_from_s(bn_limits_min(ctx->lim, "TDCD_TIMEOUT"));
	d->max_dp = -INFINITY;
	d->gnd_unknown = bn_gnd_unknown(ctx, BN_CH_DP) || bn_gnd_unknown(ctx, BN_CH_VBUS);
	d->contact_known = ctx->events & BN_CEV_BIT(BN_CEV_DATA_CONTACT);
}

static bn_time_us dpg_grace_end(const struct dpg *d)
{
	bn_time_us t0 = d->vv.t_from;

	if (d->contact_known && d->t_contact > t0)
		t0 = d->t_contact;
	return t0 + d->grace_us;
}

/* The first contact of a window: late if later than TDCD_TIMEOUT min
 * after VBUS valid and the rule's row excuses that. */
static void dpg_contact_seen(struct dpg *d, bn_time_us t)
{
	d->win_contact_seen = true;
	if (t - d->vv.t_from > d->late_us && aca_excused(d->rule, HANDLING_LATE_CONTACT)) {
		d->win_late = true;
		if (!d->late_windows++)
			d->first_late_us = t - d->vv.t_from;
	}
}

static void dpg_event(struct dpg *d, const struct bn_cev *ev)
{
	vv_event(&d->vv, ev);
	if (ev->kind != BN_CEV_DATA_CONTACT || ev->inferred)
		return;
	if (ev->num > 0.5 && !d->contact) {
		d->contact = true;
		d->t_contact = ev->t_us;
		if (d->vv.p.state && !d->win_contact_seen)
			dpg_contact_seen(d, ev->t_us);
	} else if (ev->num <= 0.5 && d->contact) {
		d->contact = false;
		lexc_close(&d->hi, ev->t_us);
		lexc_close(&d->hi_late, ev->t_us);
	}
}

/* D+ samples t[a..b), VBUS valid or not. */
static void dpg_judge(struct dpg *d, const bn_time_us *t, long a, long b, double dp, bool valid)
{
	long k;

	if (!valid || a >= b || isnan(dp) || (d->contact_known && !d->contact))
		return;
	k = bn_first_at(t, a, b, dpg_grace_end(d));
	if (k >= b)
		return;
	if (!d->n_judged && !d->n_late)
		d->j0 = t[k];
	if (d->win_late)
		d->n_late += b - k;
	else
		d->n_judged += b - k;
	d->j1 = t[b - 1];
	d->max_dp = bn_fmax(d->max_dp, dp);
	lexc_feed(d->win_late ? &d->hi_late : &d->hi, dp > d->dp_thr, dp, t + k, b - k);
}

static void dpg_close(struct dpg *d, bn_time_us t)
{
	if (t > dpg_grace_end(d) && !d->win_late)
		d->long_windows++;
	lexc_close(&d->hi, t);
	lexc_close(&d->hi_late, t);
}

static void dpg_run(struct dpg *d, const bn_time_us *t, long n, const struct bn_sample *s)
{
	double vbus = dev_level(d->ctx, BN_CH_VBUS, s->v[BN_CH_VBUS]);
	double dp = dev_level(d->ctx, BN_CH_DP, s->v[BN_CH_DP]);
	bool opened;
	long j = vv_feed(&d->vv, vbus, t, n, &opened);

	/* the samples before the one that confirmed a change, in the old
	 * state; from it on, in the new one (as one sample at a time) */
	if (j == n) {
		dpg_judge(d, t, 0, n, dp, d->vv.p.state);
		return;
	}
	dpg_judge(d, t, 0, j, dp, !d->vv.p.state);
	if (opened) {
		d->excused_rearm |= d->vv.rearmed;
		if (d->vv.t_from == d->vv.t_valid) {
			/* a new attach: its contact is judged afresh */
			d->win_late = d->win_contact_seen = false;
			if (d->contact || !d->contact_known)
				d->win_contact_seen = true;
		}
	} else {
		dpg_close(d, d->vv.t_lost);
	}
	dpg_judge(d, t, j, n, dp, d->vv.p.state);
}

static void dpg_end(struct dpg *d, bn_time_us t_end)
{
	if (d->vv.p.state)
		dpg_close(d, t_end);
}

/* Common inconclusives; true when one was given. */
static bool dpg_unjudged(const struct dpg *d, struct bn_result *res)
{
	if (d->gnd_unknown) {
		bn_result_inconclusive(res, "the device's ground against the port's is not known: D+ "
					    "and VBUS cannot be judged in the device's reference");
		return true;
	}
	if (!d->vv.ever_valid) {
		vv_never_valid(&d->vv, res);
		return true;
	}
	if (!d->n_judged && !d->n_late) {
		bn_result_inconclusive(res,
				       "VBUS was never valid with the data lines in contact for longer "
				       "than the detection grace (TSVLD_CON_PWD max, %.0f ms); no D+ "
				       "sample judged",
				       bn_time_to_ms(d->grace_us));
		return true;
	}
	return false;
}

static void dpg_late_inconclusive(const struct dpg *d, struct bn_result *res, const char *what)
{
	bn_result_inconclusive(res,
			       "%s after a slow plug: the data lines touched %.0f ms after VBUS valid, "
			       "later than TDCD_TIMEOUT min (%.0f ms), so the device may rightly have "
			       "classified the port without them (the handling's doing); not judged",
			       what, bn_time_to_ms(d->first_late_us), bn_time_to_ms(d->late_us));
}

/* Judge the longest D+ excursion against max_s: the time with the U of
 * its two edges; a fail also needs the excursion's mean level past the
 * threshold by more than its own U. Returns the verdict. */
static enum bn_verdict dpg_judge_longest(const struct dpg *d, struct bn_result *res, double max_s)
{
	double longest_s = d->hi.longest > 0 ? bn_time_to_s(d->hi.longest) : 0.0;
	double late_s = d->hi_late.longest > 0 ? bn_time_to_s(d->hi_late.longest) : 0.0;
	double u_t = bn_span_U(d->ctx, BN_CH_DP, BN_CH_DP);

	if (!d->n_judged)
		longest_s = late_s; /* only late windows: a pass stands, a fail is excused below */
	bn_result_judge_u(res, longest_s, u_t, NAN, max_s, "s");
	if (d->late_windows)
		bn_result_figure(res, "late_contact_windows", d->late_windows, "");
	if ((!d->n_judged && res->verdict != BN_VERDICT_PASS) ||
	    (res->verdict == BN_VERDICT_PASS && late_s > max_s - u_t)) {
		dpg_late_inconclusive(d, res, "D+ was held high");
		return res->verdict;
	}
	bn_result_figure(res, "max_dp", d->max_dp, "V");
	bn_result_figure(res, "dp_excursions", d->hi.count, "");
	if (res->verdict == BN_VERDICT_FAIL && d->hi.longest_n > 0) {
		double m = d->hi.longest_mean;
		double u_v = bn_level_U(d->ctx, BN_CH_DP, chan_reading(d->ctx, BN_CH_DP, m), d->hi.longest_n);

		bn_result_figure(res, "longest_mean_dp", m, "V");
		if (m - d->dp_thr <= u_v) {
			bn_result_inconclusive(res,
					       "within measurement uncertainty (U = %.1f mV) of the threshold "
					       "%.3f V: D+ held %.1f ms at a mean %.4f V",
					       u_v * 1000.0, d->dp_thr, bn_time_to_ms(d->hi.longest), m);
		}
	}
	return res->verdict;
}

/* ---- bc12.aca.b_no_connect (CP 6.11, [PD24]) ----
 * On RID_B the device charges but must not connect: after the detection
 * grace D+ stays below VDAT_REF min, the compliance plan's threshold as CP
 * 6.11 [PD24] is described to check it (unverified: docs/bc12-limits.md),
 * except
 * for SRP pulses no longer than TSRP_PULSE max. A connect the bench
 * reports (not one inferred from D+, which this rule judges itself) fails
 * it. Measured: the longest D+ excursion above VDAT_REF min. */

#define B_RULE_ID "bc12.aca.b_no_connect"

struct b_priv {
	struct dpg d;
	bn_time_us pulse_us;
	bool connected;
	bn_time_us t_connect;
};

static void b_begin(void *priv, const struct bn_check_ctx *ctx)
{
	struct b_priv *p = priv;

	dpg_begin(&p->d, ctx, B_RULE_ID, bn_limits_min(ctx->lim, "VDAT_REF"));
	p->pulse_us = bn_time_from_s(bn_limits_max(ctx->lim, "TSRP_PULSE"));
}

static void b_sample(void *priv, bn_time_us t, const struct bn_sample *s)
{
	struct b_priv *p = priv;

	dpg_run(&p->d, &t, 1, s);
}

static void b_hold(void *priv, const bn_time_us *t, long n, const struct bn_sample *s)
{
	struct b_priv *p = priv;

	dpg_run(&p->d, t, n, s);
}

static void b_event(void *priv, const struct bn_cev *ev)
{
	struct b_priv *p = priv;

	dpg_event(&p->d, ev);
	if (ev->kind == BN_CEV_CONNECT && !ev->inferred && !p->connected) {
		p->connected = true;
		p->t_connect = ev->t_us;
	}
}

static void b_end(void *priv, bn_time_us t_end, struct bn_result *res)
{
	struct b_priv *p = priv;
	struct dpg *d = &p->d;

	dpg_end(d, t_end);
	if (p->connected) {
		bn_result_fail(res, "the device connected on ACA-B: the bench saw its D+ pull-up at "
				    "%.3f s (an event, no measured value)",
			       bn_time_to_s(p->t_connect));
		bn_result_window(res, p->t_connect, p->t_connect);
		return;
	}
	if (dpg_unjudged(d, res))
		return;
	if (d->excused_rearm)
		bn_result_figure(res, "vbus_dropouts", d->vv.dropouts, "");
	if (dpg_judge_longest(d, res, bn_time_to_s(p->pulse_us)) == BN_VERDICT_FAIL) {
		bn_result_fail(res,
			       "D+ above VDAT_REF min (%.3f V) for %.1f ms from %.3f s (mean %.3f V): "
			       "longer than an SRP pulse (TSRP_PULSE max %.1f ms); the device connected "
			       "or drove D+",
			       d->dp_thr, bn_time_to_ms(d->hi.longest), bn_time_to_s(d->hi.longest_t0),
			       d->hi.longest_mean, bn_time_to_ms(p->pulse_us));
		bn_result_window(res, d->hi.longest_t0, d->hi.longest_t0 + d->hi.longest);
	} else {
		bn_result_window(res, d->j0, d->j1);
	}
}

static const struct bn_rule rule_b_no_connect = {
	.id = B_RULE_ID,
	.task = BN_TASK_DETECT,
	.title = "on ACA-B the device does not connect: D+ below VDAT_REF min but for SRP pulses",
	.clause = "CP 6.11 [PD24]",
	.limit = "TSRP_PULSE",
	.persistence = "D+ > VDAT_REF min held >= 1 ms (3 samples); judged from VBUS valid (and contact) + "
		       "TSVLD_CON_PWD to VBUS lost",
	.needs_channels = (1u << BN_CH_DP) | (1u << BN_CH_VBUS),
	.uses_events = BN_CEV_BIT(BN_CEV_DATA_CONTACT),
	.min_rate_hz = ACA_OTG_MIN_RATE_HZ,
	.ports = BN_PORT_BIT(BN_PORT_ACA_B),
	.priv_size = sizeof(struct b_priv),
	.begin = b_begin,
	.sample = b_sample,
	.hold = b_hold,
	.event = b_event,
	.end = b_end,
};

/* ---- bc12.aca.c_connect (CP 6.12) ----
 * On RID_C the device connects (its D+ pull-up, measured on DP: D+ above
 * VLGC_HI min, a logic high to any receiver) within TSVLD_CON_PWD max of
 * VBUS valid, in every VBUS-valid window; the host then enumerates it (a
 * BN_CEV_CONFIG after the pull-up, any value: which configuration fits is
 * the host's choice). The enumeration is the host's part: a host that
 * never sets a configuration makes the rule inconclusive naming it.
 * Measured: the worst time from VBUS valid to the pull-up over the
 * windows. A window that ends (VBUS lost) before TSVLD_CON_PWD max without
 * a pull-up is not judged; an enumeration is waited for TSVLD_CON_PWD max
 * after the pull-up (the bench's hosts enumerate in well under that). */

#define C_RULE_ID "bc12.aca.c_connect"

struct c_priv {
	const struct bn_check_ctx *ctx;
	bn_time_us tcon_us, tdcd_us; /* TSVLD_CON_PWD max, TDCD_TIMEOUT min */
	double up_v, maybe_v;    /* VLGC_HI min, VLGC min */
	struct vvalid vv;
	struct lexc up, maybe;   /* D+ above up_v; above maybe_v */
	bool gnd_unknown;
	/* A connect is a D+ rise, after D+ was low (below VLGC min, held)
	 * with the data lines in contact: before contact DCD's IDP_SRC lifts
	 * open lines to its compliance voltage, which is no pull-up. */
	struct bn_persist low;
	bool low_seen;
	bool contact_known, contact;
	bn_time_us t_contact;
	/* the window in progress */
	bool connected, configured, maybe_up;
	bn_time_us t_conn, t_maybe;
	bn_time_us win_contact;  /* contact in this window (BN_TIME_NEVER: none yet) */
	int late_contacts;       /* windows whose contact came too late to connect in time */
	bn_time_us late_contact_us;
	/* over the windows */
	bool judged, never, not_enum, enum_short, cfg_any;
	int short_windows, short_dropouts, start_windows;
	bn_time_us worst_us, w0, w1;
	bn_time_us ne0, ne1;
	bool never_maybe;        /* a never-connected window had D+ between VLGC min and VLGC_HI min */
	bn_time_us t_never_maybe;
	double t_enum_s;
	bool start_late;         /* a window valid from the capture's start with no pull-up in time */
	bn_time_us start_late_us, start_late_t0;
};

static void c_begin(void *priv, const struct bn_check_ctx *ctx)
{
	struct c_priv *p = priv;

	p->ctx = ctx;
	p->tcon_us = bn_time_from_s(bn_limits_max(ctx->lim, "TSVLD_CON_PWD"));
	p->tdcd_us = bn_time_from_s(bn_limits_min(ctx->lim, "TDCD_TIMEOUT"));
	p->up_v = bn_limits_min(ctx->lim, "VLGC_HI");
	p->maybe_v = bn_limits_min(ctx->lim, "VLGC");
	vv_init(&p->vv, ctx, C_RULE_ID);
	lexc_init(&p->up);
	lexc_init(&p->maybe);
	p->worst_us = -1;
	p->t_enum_s = NAN;
	p->gnd_unknown = bn_gnd_unknown(ctx, BN_CH_DP) || bn_gnd_unknown(ctx, BN_CH_VBUS);
	p->contact_known = ctx->events & BN_CEV_BIT(BN_CEV_DATA_CONTACT);
	p->win_contact = BN_TIME_NEVER;
}

static void c_low_reset(struct c_priv *p)
{
	p->low_seen = false;
	bn_persist_init(&p->low, BN_PERSIST_LEVEL_US, BN_PERSIST_MIN_SAMPLES, false);
}

static void c_open(struct c_priv *p)
{
	/* a window that did not re-arm (an unexcused dropout) carries on */
	if (p->vv.t_from != p->vv.t_valid)
		return;
	p->connected = p->configured = p->maybe_up = false;
	lexc_init(&p->up);
	lexc_init(&p->maybe);
	c_low_reset(p);
	p->win_contact = !p->contact_known || p->contact ? p->vv.t_from : BN_TIME_NEVER;
}

static void c_close(struct c_priv *p, bn_time_us t)
{
	bn_time_us t0 = p->vv.t_from;

	lexc_close(&p->up, t);
	lexc_close(&p->maybe, t);
	if (p->connected && p->t_conn >= t)
		p->connected = false; /* the pull-up came after VBUS was lost */
	if (p->contact_known && aca_excused(C_RULE_ID, HANDLING_LATE_CONTACT) &&
	    (p->win_contact == BN_TIME_NEVER || p->win_contact - t0 > p->tdcd_us) &&
	    !(p->connected && p->t_conn - t0 <= p->tcon_us) && (p->connected || t - t0 > p->tcon_us)) {
		/* A slow plug: the device may have classified the port on
		 * open lines; unless it connected in time anyway, the
		 * handling decided what it did. */
		if (!p->late_contacts++)
			p->late_contact_us = p->win_contact == BN_TIME_NEVER ? -1 : p->win_contact - t0;
		return;
	}
	if (p->vv.at_start) {
		/* When VBUS became valid is unknown: only a device that had not
		 * pulled up TSVLD_CON_PWD max after the first sample is known
		 * late (it had at least that long). */
		bn_time_us d = p->connected ? p->t_conn - t0 : t - t0;

		if (d > p->tcon_us && (!p->maybe_up || p->t_maybe - t0 > p->tcon_us)) {
			p->start_late = true;
			p->start_late_us = d;
			p->start_late_t0 = t0;
		} else {
			p->start_windows++;
		}
		return;
	}
	if (p->connected) {
		bn_time_us d = p->t_conn - t0;

		p->judged = true;
		if (d > p->worst_us) {
			p->worst_us = d;
			p->w0 = t0;
			p->w1 = p->t_conn;
		}
		if (p->configured) {
			p->cfg_any = true;
		} else if (t - p->t_conn > p->tcon_us) {
			if (!p->not_enum) {
				p->ne0 = p->t_conn;
				p->ne1 = t;
			}
			p->not_enum = true;
		} else {
			p->enum_short = true;
		}
	} else if (t - t0 > p->tcon_us) {
		p->judged = p->never = true;
		if (p->maybe_up && !p->never_maybe) {
			p->never_maybe = true;
			p->t_never_maybe = p->t_maybe;
		}
		if (t - t0 > p->worst_us) {
			p->worst_us = t - t0;
			p->w0 = t0;
			p->w1 = t;
		}
	} else {
		p->short_windows++;
		if (!p->vv.lost_by_bench)
			p->short_dropouts++;
	}
}

static void c_judge(struct c_priv *p, const bn_time_us *t, long a, long b, double dp, bool valid)
{
	if (!valid || a >= b || isnan(dp) || (p->contact_known && !p->contact))
		return;
	if (!p->low_seen) {
		bn_time_us tc;
		long j = bn_persist_run(&p->low, dp < p->maybe_v, t + a, b - a, &tc);

		if (j == b - a)
			return;
		p->low_seen = true;
		a += j + 1;
		if (a >= b)
			return;
	}
	lexc_feed(&p->up, dp > p->up_v, dp, t + a, b - a);
	lexc_feed(&p->maybe, dp > p->maybe_v, dp, t + a, b - a);
	if (!p->connected && p->up.count) {
		p->connected = true;
		p->t_conn = p->up.p.state ? p->up.t0 : p->up.longest_t0;
	}
	if (!p->maybe_up && p->maybe.count) {
		p->maybe_up = true;
		p->t_maybe = p->maybe.p.state ? p->maybe.t0 : p->maybe.longest_t0;
	}
}

static void c_run(struct c_priv *p, const bn_time_us *t, long n, const struct bn_sample *s)
{
	double vbus = dev_level(p->ctx, BN_CH_VBUS, s->v[BN_CH_VBUS]);
	double dp = dev_level(p->ctx, BN_CH_DP, s->v[BN_CH_DP]);
	bool opened;
	long j = vv_feed(&p->vv, vbus, t, n, &opened);

	if (j == n) {
		c_judge(p, t, 0, n, dp, p->vv.p.state);
		return;
	}
	c_judge(p, t, 0, j, dp, !p->vv.p.state);
	if (opened)
		c_open(p);
	else
		c_close(p, p->vv.t_lost);
	c_judge(p, t, j, n, dp, p->vv.p.state);
}

static void c_sample(void *priv, bn_time_us t, const struct bn_sample *s)
{
	c_run(priv, &t, 1, s);
}

static void c_hold(void *priv, const bn_time_us *t, long n, const struct bn_sample *s)
{
	c_run(priv, t, n, s);
}

static void c_event(void *priv, const struct bn_cev *ev)
{
	struct c_priv *p = priv;

	vv_event(&p->vv, ev);
	if (ev->kind == BN_CEV_DATA_CONTACT && !ev->inferred) {
		if (ev->num > 0.5 && !p->contact) {
			p->contact = true;
			p->t_contact = ev->t_us;
			if (p->vv.p.state && p->win_contact == BN_TIME_NEVER)
				p->win_contact = ev->t_us;
			c_low_reset(p);
		} else if (ev->num <= 0.5 && p->contact) {
			p->contact = false;
			lexc_close(&p->up, ev->t_us);
			lexc_close(&p->maybe, ev->t_us);
			c_low_reset(p);
		}
	}
	if (ev->kind == BN_CEV_CONFIG && p->vv.p.state && p->connected && !p->configured) {
		p->configured = true;
		if (isnan(p->t_enum_s))
			p->t_enum_s = bn_time_to_s(ev->t_us - p->t_conn);
	}
}

static void c_end(void *priv, bn_time_us t_end, struct bn_result *res)
{
	struct c_priv *p = priv;
	double u_t;

	if (p->vv.p.state)
		c_close(p, t_end);
	if (p->gnd_unknown) {
		bn_result_inconclusive(res, "the device's ground against the port's is not known: its "
					    "D+ pull-up cannot be judged in its reference");
		return;
	}
	if (!p->vv.ever_valid) {
		vv_never_valid(&p->vv, res);
		return;
	}
	if (p->start_late) {
		/* known late: it had at least this long */
		bn_result_judge_u(res, bn_time_to_s(p->start_late_us), bn_span_U(p->ctx, BN_CH_DP, BN_CH_DP), NAN,
				  bn_time_to_s(p->tcon_us), "s");
		bn_result_window(res, p->start_late_t0, p->start_late_t0 + p->start_late_us);
		if (res->verdict == BN_VERDICT_FAIL)
			bn_result_fail(res,
				       "no D+ pull-up in the %.3f s from the capture's start (VBUS was "
				       "already valid): later than TSVLD_CON_PWD max (%.0f ms)",
				       bn_time_to_s(p->start_late_us), bn_time_to_ms(p->tcon_us));
		return;
	}
	if (!p->judged) {
		if (p->late_contacts && p->late_contact_us < 0)
			bn_result_inconclusive(res, "the data lines never touched while VBUS was valid (the "
						    "plug's handling): no connect to judge");
		else if (p->late_contacts)
			bn_result_inconclusive(res,
					       "the data lines touched %.0f ms after VBUS valid, later than "
					       "TDCD_TIMEOUT min (%.0f ms): after a slow plug the device may "
					       "rightly have classified the port without them (the handling's "
					       "doing); not judged",
					       bn_time_to_ms(p->late_contact_us), bn_time_to_ms(p->tdcd_us));
		else if (p->start_windows)
			bn_result_inconclusive(res, "VBUS was already valid at the capture's start: when it "
						    "became valid, so the connect time, is unknown");
		else if (p->short_dropouts && aca_excused(C_RULE_ID, PARTY_VBUS_DROPOUT))
			bn_result_inconclusive(res,
					       "VBUS dropped out (not removed by the bench: the charger or "
					       "port) at %.3f s before TSVLD_CON_PWD max (%.0f ms) had passed; "
					       "no window long enough to judge",
					       bn_time_to_s(p->vv.t_dropout), bn_time_to_ms(p->tcon_us));
		else
			bn_result_inconclusive(res,
					       "VBUS was never valid for TSVLD_CON_PWD max (%.0f ms) and the "
					       "device did not pull D+ up in the time it had (%d short "
					       "window(s))",
					       bn_time_to_ms(p->tcon_us), p->short_windows);
		return;
	}
	u_t = bn_span_U(p->ctx, BN_CH_VBUS, BN_CH_DP);
	bn_result_judge_u(res, bn_time_to_s(p->worst_us), u_t, NAN, bn_time_to_s(p->tcon_us), "s");
	bn_result_window(res, p->w0, p->w1);
	if (!isnan(p->t_enum_s))
		bn_result_figure(res, "connect_to_config", p->t_enum_s, "s");
	if (p->vv.dropouts)
		bn_result_figure(res, "vbus_dropouts", p->vv.dropouts, "");
	if (p->late_contacts)
		bn_result_figure(res, "late_contact_windows", p->late_contacts, "");
	if (res->verdict == BN_VERDICT_FAIL && p->never && p->never_maybe &&
	    p->t_never_maybe - p->w0 <= p->tcon_us) {
		bn_result_inconclusive(res,
				       "D+ rose above VLGC min at %.3f s but never above VLGC_HI min "
				       "(%.1f V) in the %.3f s VBUS was valid: whether a host sees that "
				       "as a connect is not known",
				       bn_time_to_s(p->t_never_maybe), p->up_v, bn_time_to_s(p->worst_us));
		return;
	}
	if (res->verdict == BN_VERDICT_FAIL && p->never) {
		bn_result_fail(res,
			       "the device never pulled D+ up (above VLGC_HI min, %.1f V) in the %.3f s "
			       "VBUS was valid (from %.3f s)",
			       p->up_v, bn_time_to_s(p->worst_us), bn_time_to_s(p->w0));
		return;
	}
	if (res->verdict == BN_VERDICT_FAIL) {
		bn_result_fail(res, "D+ pull-up %.1f ms after VBUS valid: later than TSVLD_CON_PWD max "
				    "(%.0f ms)",
			       bn_time_to_ms(p->worst_us), bn_time_to_ms(p->tcon_us));
		return;
	}
	if (res->verdict != BN_VERDICT_PASS)
		return;
	if (p->not_enum) {
		if (aca_excused(C_RULE_ID, PARTY_HOST_NO_ENUM)) {
			bn_result_inconclusive(res,
					       "the host never enumerated the device: no configuration set "
					       "in the %.3f s after its D+ pull-up at %.3f s (the host's "
					       "part; the pull-up came in time)",
					       bn_time_to_s(p->ne1 - p->ne0), bn_time_to_s(p->ne0));
		} else {
			bn_result_fail(res, "connected in time, but never enumerated in the %.3f s after "
					    "the pull-up at %.3f s",
				       bn_time_to_s(p->ne1 - p->ne0), bn_time_to_s(p->ne0));
		}
		bn_result_window(res, p->ne0, p->ne1);
		return;
	}
	if (p->enum_short && !p->cfg_any)
		bn_result_inconclusive(res, "pulled D+ up in time, but VBUS went off before the host "
					    "could enumerate the device");
}

static const struct bn_rule rule_c_connect = {
	.id = C_RULE_ID,
	.task = BN_TASK_DETECT,
	.title = "on ACA-C the device pulls D+ up within TSVLD_CON_PWD of VBUS valid; the host "
		 "enumerates it",
	.clause = "CP 6.12",
	.limit = "TSVLD_CON_PWD",
	.persistence = "VBUS > VOTG_SESS_VLD max, D+ low then > VLGC_HI min, each held >= 1 ms (3 "
		       "samples); per VBUS-valid window",
	.needs_channels = (1u << BN_CH_DP) | (1u << BN_CH_VBUS),
	.needs_events = BN_CEV_BIT(BN_CEV_CONFIG),
	.uses_events = BN_CEV_BIT(BN_CEV_DATA_CONTACT),
	.min_rate_hz = ACA_OTG_MIN_RATE_HZ,
	.ports = BN_PORT_BIT(BN_PORT_ACA_C),
	.priv_size = sizeof(struct c_priv),
	.begin = c_begin,
	.sample = c_sample,
	.hold = c_hold,
	.event = c_event,
	.end = c_end,
};

/* ---- bc12.aca.a_no_pullup (CP 6.9, 6.10) ----
 * On RID_A (ACA-A, ACA-Dock) the device is the A-device: after the
 * detection grace it has no D+ pull-up (D+ never above VLGC min for longer
 * than the glitch time), and it enumerates the accessory or dock
 * (BN_CEV_PERIPHERAL) in every VBUS-valid window that outlasts the grace.
 * The glitch time is TDCD_DBNC min: the shortest line state BC-1.2 asks a
 * detector to trust; a shorter spike is not a pull-up anyone would see.
 * Measured: the longest D+ excursion above VLGC min, against it. */

#define A_RULE_ID "bc12.aca.a_no_pullup"

struct a_priv {
	struct dpg d;
	bn_time_us glitch_us;
	bool periph, any_periph;
	bn_time_us t_periph_first;
	int missing, missing_late;
	bn_time_us m0, m1;
};

static void a_begin(void *priv, const struct bn_check_ctx *ctx)
{
	struct a_priv *p = priv;

	dpg_begin(&p->d, ctx, A_RULE_ID, bn_limits_min(ctx->lim, "VLGC"));
	p->glitch_us = bn_time_from_s(bn_limits_min(ctx->lim, "TDCD_DBNC"));
}

static void a_window_closed(struct a_priv *p, bn_time_us t)
{
	struct dpg *d = &p->d;

	if (t > dpg_grace_end(d) && !p->periph) {
		if (d->win_late) {
			p->missing_late++;
		} else if (!p->missing++) {
			p->m0 = d->vv.t_from;
			p->m1 = t;
		}
	}
	p->periph = false;
}

static void a_run(struct a_priv *p, const bn_time_us *t, long n, const struct bn_sample *s)
{
	bool was = p->d.vv.p.state;

	dpg_run(&p->d, t, n, s);
	if (was && !p->d.vv.p.state)
		a_window_closed(p, p->d.vv.t_lost);
}

static void a_sample(void *priv, bn_time_us t, const struct bn_sample *s)
{
	a_run(priv, &t, 1, s);
}

static void a_hold(void *priv, const bn_time_us *t, long n, const struct bn_sample *s)
{
	a_run(priv, t, n, s);
}

static void a_event(void *priv, const struct bn_cev *ev)
{
	struct a_priv *p = priv;

	dpg_event(&p->d, ev);
	if (ev->kind == BN_CEV_PERIPHERAL && p->d.vv.p.state) {
		if (!p->any_periph)
			p->t_periph_first = ev->t_us - p->d.vv.t_from;
		p->periph = p->any_periph = true;
	}
}

static void a_end(void *priv, bn_time_us t_end, struct bn_result *res)
{
	struct a_priv *p = priv;
	struct dpg *d = &p->d;

	if (d->vv.p.state)
		a_window_closed(p, t_end);
	dpg_end(d, t_end);
	if (dpg_unjudged(d, res))
		return;
	if (p->any_periph)
		bn_result_figure(res, "vbus_to_peripheral", bn_time_to_s(p->t_periph_first), "s");
	if (d->excused_rearm)
		bn_result_figure(res, "vbus_dropouts", d->vv.dropouts, "");
	if (dpg_judge_longest(d, res, bn_time_to_s(p->glitch_us)) == BN_VERDICT_FAIL) {
		bn_result_fail(res,
			       "D+ above VLGC min (%.2f V) for %.1f ms from %.3f s (mean %.3f V; glitch "
			       "time TDCD_DBNC min %.0f ms): a D+ pull-up while the device is the A-device",
			       d->dp_thr, bn_time_to_ms(d->hi.longest), bn_time_to_s(d->hi.longest_t0),
			       d->hi.longest_mean, bn_time_to_ms(p->glitch_us));
		bn_result_window(res, d->hi.longest_t0, d->hi.longest_t0 + d->hi.longest);
		return;
	}
	if (res->verdict != BN_VERDICT_PASS)
		return;
	bn_result_window(res, d->j0, d->j1);
	if (!p->missing && p->missing_late) {
		dpg_late_inconclusive(d, res, "no accessory enumerated");
		return;
	}
	if (p->missing) {
		bn_result_fail(res,
			       "the device never enumerated the accessory (no peripheral event) in %d "
			       "of %d VBUS-valid window(s) past the grace; first: %.3f s to %.3f s "
			       "(an event, no measured value)",
			       p->missing, d->long_windows, bn_time_to_s(p->m0), bn_time_to_s(p->m1));
		bn_result_window(res, p->m0, p->m1);
	}
}

static const struct bn_rule rule_a_no_pullup = {
	.id = A_RULE_ID,
	.task = BN_TASK_DETECT,
	.title = "on ACA-A and ACA-Dock the device is the A-device: no D+ pull-up, it enumerates "
		 "the accessory",
	.clause = "CP 6.9, 6.10",
	.limit = "TDCD_DBNC",
	.persistence = "D+ > VLGC min held >= 1 ms (3 samples); judged from VBUS valid (and contact) + "
		       "TSVLD_CON_PWD to VBUS lost",
	.needs_channels = (1u << BN_CH_DP) | (1u << BN_CH_VBUS),
	.needs_events = BN_CEV_BIT(BN_CEV_PERIPHERAL),
	.uses_events = BN_CEV_BIT(BN_CEV_DATA_CONTACT),
	.min_rate_hz = ACA_OTG_MIN_RATE_HZ,
	.ports = BN_PORT_BIT(BN_PORT_ACA_A) | BN_PORT_BIT(BN_PORT_ACA_DOCK),
	.priv_size = sizeof(struct a_priv),
	.begin = a_begin,
	.sample = a_sample,
	.hold = a_hold,
	.event = a_event,
	.end = a_end,
};

/* ---- the device's OTG VBUS, shared by the two OTG output rules ----
 * On a grounded ID (the OTG port; the plug is in while the data lines are
 * in contact) the device raises VBUS: the rise is VBUS above
 * VOTG_SESS_VLD max with persistence, dated at its first sample. From
 * t_from after the rise until unplug, VBUS is judged as 1 ms means while
 * the e-load draws no more than max_load_a (the windows break at every
 * load step: a mean never straddles two loads). A plug-in without a rise
 * is judged only if it lasted longer than TDCD_TIMEOUT max: in BC-1.2's
 * sequence the device reads ID after Data Contact Detect, which ends by
 * TDCD_TIMEOUT max even when it times out, so by then any device has seen
 * the grounded ID. */
struct otgv {
	const struct bn_check_ctx *ctx;
	double thr, max_load_a;
	bn_time_us act_us, from_us;
	bool gnd_unknown;
	bool plugged, rose;
	bn_time_us t_plug, t_rose;
	double load;
	struct bn_persist p;
	struct wmean wm;         /* after the rise (+ from_us), load within max_load_a */
	struct wmean never_wm;   /* plug-ins without a rise */
	int windows, never, short_windows;
	bn_time_us nv0, nv1;
	double max_load_judged;
	double rise_s;
};

static void otgv_begin(struct otgv *o, const struct bn_check_ctx *ctx, double max_load_a,
		       bn_time_us from_us)
{
	o->ctx = ctx;
	o->thr = bn_limits_max(ctx->lim, "VOTG_SESS_VLD");
	o->act_us = bn_time_from_s(bn_limits_max(ctx->lim, "TDCD_TIMEOUT"));
	o->max_load_a = max_load_a;
	o->from_us = from_us;
	o->gnd_unknown = bn_gnd_unknown(ctx, BN_CH_VBUS);
	o->rise_s = NAN;
	wm_init(&o->wm, VOUT_BLOCK_US, VOUT_BLOCKS);
	wm_init(&o->never_wm, VOUT_BLOCK_US, VOUT_BLOCKS);
}

static bool otgv_load_ok(const struct otgv *o)
{
	/* a relative 1e-9 for rounding */
	return o->load <= o->max_load_a * (1.0 + 1e-9);
}

static void otgv_run(struct otgv *o, const bn_time_us *t, long n, const struct bn_sample *s)
{
	double v = dev_level(o->ctx, BN_CH_VBUS, s->v[BN_CH_VBUS]);
	long k = 0;

	if (!o->plugged || isnan(v))
		return;
	if (!o->rose) {
		bn_time_us tc;
		long j = bn_persist_run(&o->p, v > o->thr, t, n, &tc);

		wm_feed(&o->never_wm, v, t, j);
		if (j == n)
			return;
		o->rose = true;
		o->t_rose = tc;
		if (isnan(o->rise_s))
			o->rise_s = bn_time_to_s(tc - o->t_plug);
		k = j;
	}
	if (!otgv_load_ok(o))
		return;
	k = bn_first_at(t, k, n, o->t_rose + o->from_us);
	if (k >= n)
		return;
	o->max_load_judged = bn_fmax(o->max_load_judged, o->load);
	wm_feed(&o->wm, v, t + k, n - k);
}

static void otgv_close(struct otgv *o, bn_time_us t)
{
	if (!o->plugged)
		return;
	o->plugged = false;
	wm_break(&o->wm);
	wm_break(&o->never_wm);
	if (o->rose) {
		o->windows++;
	} else if (t - o->t_plug > o->act_us) {
		o->windows++;
		if (!o->never++) {
			o->nv0 = o->t_plug;
			o->nv1 = t;
		}
	} else {
		o->short_windows++;
	}
}

static void otgv_event(struct otgv *o, const struct bn_cev *ev)
{
	switch (ev->kind) {
	case BN_CEV_DATA_CONTACT:
		if (ev->num > 0.5 && !o->plugged) {
			o->plugged = true;
			o->rose = false;
			o->t_plug = ev->t_us;
			bn_persist_init(&o->p, BN_PERSIST_LEVEL_US, BN_PERSIST_MIN_SAMPLES, false);
		} else if (ev->num <= 0.5) {
			otgv_close(o, ev->t_us);
		}
		break;
	case BN_CEV_LOAD:
		o->load = ev->num;
		o->wm.tag = ev->num;
		wm_break(&o->wm);
		break;
	default:
		break;
	}
}

/* Common inconclusives and the never-rose fail; true when one was given. */
static bool otgv_unjudged(struct otgv *o, bn_time_us t_end, double lo, double hi,
			  struct bn_result *res)
{
	otgv_close(o, t_end);
	if (o->gnd_unknown) {
		bn_result_inconclusive(res, "the device's ground against the port's is not known: its "
					    "VBUS cannot be judged in its reference");
		return true;
	}
	if (!o->windows) {
		if (o->short_windows)
			bn_result_inconclusive(res,
					       "the OTG plug was never in for TDCD_TIMEOUT max (%.0f ms) "
					       "and VBUS did not rise meanwhile",
					       bn_time_to_ms(o->act_us));
		else
			bn_result_inconclusive(res, "the OTG plug never made contact (no data_contact "
						    "event)");
		return true;
	}
	if (o->never) {
		double v = o->never_wm.windows ? o->never_wm.hi : 0.0;
		long nn = o->never_wm.windows ? o->never_wm.hi_n : 1;

		bn_result_judge_u(res, v, bn_level_U(o->ctx, BN_CH_VBUS, chan_reading(o->ctx, BN_CH_VBUS, v), nn),
				  lo, hi, "V");
		bn_result_window(res, o->nv0, o->nv1);
		if (res->verdict == BN_VERDICT_FAIL)
			bn_result_fail(res,
				       "the device never raised VBUS above VOTG_SESS_VLD max (%.2f V; "
				       "highest 1 ms mean %.3f V) on a grounded ID (%d of %d plug-ins; "
				       "first %.3f s to %.3f s)",
				       o->thr, v, o->never, o->windows, bn_time_to_s(o->nv0),
				       bn_time_to_s(o->nv1));
		return true;
	}
	if (!o->wm.windows) {
		bn_result_inconclusive(res, "VBUS rose, but never for a full 1 ms window within the "
					    "judged loads and time: nothing judged");
		return true;
	}
	return false;
}

/* ---- bc12.otg.sources_vbus (CP 6.13) ----
 * The device sources VBUS above VOTG_SESS_VLD max on a grounded ID, and
 * once it has raised it, holds it there while the e-load draws up to the
 * declared OTG rating (loads above the rating are not judged).
 * Why VOTG_SESS_VLD max and not an output limit: CP 6.13 checks VBUS >
 * VOTG_SESS_VLD; below it the peripheral's session ends, which is the
 * failure that matters. The output limits an A-device must meet at its
 * rated current are judged under their own name by
 * bc12.otg.vbus_output. Measured: the lowest 1 ms mean of VBUS after the
 * rise (or, if VBUS never rose, the highest), against VOTG_SESS_VLD max
 * as a minimum. */

struct otg_priv {
	struct otgv o;
};

static void otg_begin(void *priv, const struct bn_check_ctx *ctx)
{
	struct otg_priv *p = priv;

	otgv_begin(&p->o, ctx, ctx->otg_rating_a, 0);
}

static void otg_sample(void *priv, bn_time_us t, const struct bn_sample *s)
{
	struct otg_priv *p = priv;

	otgv_run(&p->o, &t, 1, s);
}

static void otg_hold(void *priv, const bn_time_us *t, long n, const struct bn_sample *s)
{
	struct otg_priv *p = priv;

	otgv_run(&p->o, t, n, s);
}

static void otg_event(void *priv, const struct bn_cev *ev)
{
	struct otg_priv *p = priv;

	otgv_event(&p->o, ev);
}

static void otg_end(void *priv, bn_time_us t_end, struct bn_result *res)
{
	struct otg_priv *p = priv;
	struct otgv *o = &p->o;
	double v;

	if (otgv_unjudged(o, t_end, o->thr, NAN, res))
		return;
	v = o->wm.lo;
	bn_result_judge_u(res, v, bn_level_U(o->ctx, BN_CH_VBUS, chan_reading(o->ctx, BN_CH_VBUS, v), o->wm.lo_n),
			  o->thr, NAN, "V");
	bn_result_window(res, o->wm.lo_t0, o->wm.lo_t0 + (bn_time_us)VOUT_BLOCKS * VOUT_BLOCK_US);
	bn_result_figure(res, "max_load_judged", o->max_load_judged, "A");
	bn_result_figure(res, "otg_rating", o->max_load_a, "A");
	if (!isnan(o->rise_s))
		bn_result_figure(res, "contact_to_vbus", o->rise_s, "s");
	if (res->verdict == BN_VERDICT_FAIL)
		bn_result_fail(res,
			       "VBUS fell to a 1 ms mean of %.3f V at %.3f s (load %.0f mA, rating %.0f "
			       "mA): below VOTG_SESS_VLD max (%.2f V) after the device had raised it",
			       v, bn_time_to_s(o->wm.lo_t0), o->wm.lo_tag * 1000.0, o->max_load_a * 1000.0,
			       o->thr);
}

static const struct bn_rule rule_otg_sources_vbus = {
	.id = "bc12.otg.sources_vbus",
	.task = BN_TASK_DETECT,
	.title = "on a grounded ID the device sources VBUS above VOTG_SESS_VLD, up to its rated load",
	.clause = "CP 6.13",
	.limit = "VOTG_SESS_VLD",
	.persistence = "VBUS as 1 ms means (0.25 ms steps) from its rise (> VOTG_SESS_VLD max held 1 ms) "
		       "to unplug, load <= rating",
	.needs_channels = 1u << BN_CH_VBUS,
	.needs_events = BN_CEV_BIT(BN_CEV_DATA_CONTACT) | BN_CEV_BIT(BN_CEV_LOAD),
	.min_rate_hz = ACA_OTG_MIN_RATE_HZ,
	.ports = BN_PORT_BIT(BN_PORT_OTG),
	.needs_decl = BN_DECL_OTG,
	.priv_size = sizeof(struct otg_priv),
	.begin = otg_begin,
	.sample = otg_sample,
	.hold = otg_hold,
	.event = otg_event,
	.end = otg_end,
};

/* ---- bc12.otg.vbus_output ----
 * The device's VBUS output as an A-device, at its declared rating and any
 * load up to it, against the OTG supplement's A-device output limits for
 * that rating: VA_VBUS_OUT for a rating within IA_VBUS_OUT_LP,
 * VA_VBUS_OUT_HP above (both as the limits file's source quotes them; it
 * says which supplement revision). The source states them up to
 * IA_VBUS_OUT_HP max: loads above that are not judged even when the
 * rating is higher, and the result says so. VBUS is judged from
 * TA_VBUS_RISE max after its rise (the time an A-device has to bring
 * VBUS into regulation) until unplug. Measured: the lowest and the
 * highest 1 ms means; the one nearer its limit is judged. */

struct vo_priv {
	struct otgv o;
	const char *band;
	double lo, hi, rating, band_max;
};

static void vo_begin(void *priv, const struct bn_check_ctx *ctx)
{
	struct vo_priv *p = priv;

	p->rating = ctx->otg_rating_a;
	p->band_max = bn_limits_max(ctx->lim, "IA_VBUS_OUT_HP");
	p->band = p->rating > bn_limits_max(ctx->lim, "IA_VBUS_OUT_LP") ? "VA_VBUS_OUT_HP" : "VA_VBUS_OUT";
	p->lo = bn_limits_min(ctx->lim, p->band);
	p->hi = bn_limits_max(ctx->lim, p->band);
	otgv_begin(&p->o, ctx, fmin(p->rating, p->band_max),
		   bn_time_from_s(bn_limits_max(ctx->lim, "TA_VBUS_RISE")));
}

static void vo_sample(void *priv, bn_time_us t, const struct bn_sample *s)
{
	struct vo_priv *p = priv;

	otgv_run(&p->o, &t, 1, s);
}

static void vo_hold(void *priv, const bn_time_us *t, long n, const struct bn_sample *s)
{
	struct vo_priv *p = priv;

	otgv_run(&p->o, t, n, s);
}

static void vo_event(void *priv, const struct bn_cev *ev)
{
	struct vo_priv *p = priv;

	otgv_event(&p->o, ev);
}

static void vo_end(void *priv, bn_time_us t_end, struct bn_result *res)
{
	struct vo_priv *p = priv;
	struct otgv *o = &p->o;
	bool low_side;
	double v, tag;
	long n;
	bn_time_us t0;

	if (otgv_unjudged(o, t_end, p->lo, p->hi, res)) {
		if (res->verdict == BN_VERDICT_FAIL && o->never)
			bn_result_fail(res, "the device never raised VBUS on a grounded ID: no output to "
					    "judge against %s (%.2f-%.2f V)",
				       p->band, p->lo, p->hi);
		return;
	}
	low_side = o->wm.lo - p->lo <= p->hi - o->wm.hi;
	v = low_side ? o->wm.lo : o->wm.hi;
	n = low_side ? o->wm.lo_n : o->wm.hi_n;
	t0 = low_side ? o->wm.lo_t0 : o->wm.hi_t0;
	tag = low_side ? o->wm.lo_tag : o->wm.hi_tag;
	bn_result_judge_u(res, v, bn_level_U(o->ctx, BN_CH_VBUS, chan_reading(o->ctx, BN_CH_VBUS, v), n),
			  p->lo, p->hi, "V");
	snprintf(res->limit, sizeof(res->limit), "%s", p->band);
	bn_result_window(res, t0, t0 + (bn_time_us)VOUT_BLOCKS * VOUT_BLOCK_US);
	bn_result_figure(res, "min_vbus", o->wm.lo, "V");
	bn_result_figure(res, "max_vbus", o->wm.hi, "V");
	bn_result_figure(res, "max_load_judged", o->max_load_judged, "A");
	bn_result_figure(res, "otg_rating", p->rating, "A");
	if (res->verdict == BN_VERDICT_FAIL) {
		bn_result_fail(res,
			       "VBUS %s a 1 ms mean of %.3f V at %.3f s (load %.0f mA): outside %s "
			       "(%.2f-%.2f V) for an A-device rated %.0f mA",
			       low_side ? "fell to" : "rose to", v, bn_time_to_s(t0), tag * 1000.0, p->band,
			       p->lo, p->hi, p->rating * 1000.0);
		return;
	}
	if (res->verdict == BN_VERDICT_PASS && p->rating > p->band_max)
		bn_result_inconclusive(res,
				       "within %s up to %.0f mA, but the declared rating (%.0f mA) is "
				       "above the loads the source states limits for (IA_VBUS_OUT_HP max)",
				       p->band, p->band_max * 1000.0, p->rating * 1000.0);
}

static const struct bn_rule rule_otg_vbus_output = {
	.id = "bc12.otg.vbus_output",
	.task = BN_TASK_DETECT,
	.title = "as an A-device the device's VBUS stays within the OTG output limits for its rating",
	.clause = "OTG supplement VA_VBUS_OUT",
	.limit = "VA_VBUS_OUT",
	.persistence = "VBUS as 1 ms means (0.25 ms steps) from TA_VBUS_RISE max after its rise to "
		       "unplug, load <= rating",
	.needs_channels = 1u << BN_CH_VBUS,
	.needs_events = BN_CEV_BIT(BN_CEV_DATA_CONTACT) | BN_CEV_BIT(BN_CEV_LOAD),
	.min_rate_hz = ACA_OTG_MIN_RATE_HZ,
	.ports = BN_PORT_BIT(BN_PORT_OTG),
	.needs_decl = BN_DECL_OTG,
	.priv_size = sizeof(struct vo_priv),
	.begin = vo_begin,
	.sample = vo_sample,
	.hold = vo_hold,
	.event = vo_event,
	.end = vo_end,
};

/* ---- bc12.otg.no_backfeed ----
 * On every port: while VBUS is supplied from outside the device never
 * sources it. "Supplied from outside": the bench has VBUS on
 * (BN_CEV_VBUS_ON .. BN_CEV_VBUS_OFF) and the VBUS channel shows it valid
 * (above VOTG_SESS_VLD max with persistence); a VBUS channel that never
 * does makes the rule inconclusive (a logic line mapped as VBUS, say),
 * never a pass. IBUS (the device's own current, negative when it
 * sources) is judged as 10 ms means, stepped by 1 ms: a suspended
 * device's leakage is within ISUSP, and below -ISUSP max the device pushes
 * current into the supply. Measured: the lowest 10 ms mean, against
 * -ISUSP max as a minimum, with the U of a mean of that many samples.
 * Who supplies VBUS depends on the port: on the OTG port the VBUS is the
 * device's own (a replay that infers VBUS on from VBUS rising would take
 * it for the port's), so the rule reads the port and cannot judge when it
 * is unknown. */

struct bf_priv {
	const struct bn_check_ctx *ctx;
	bool port_sources;       /* the port ever supplies VBUS (not the OTG port) */
	double lim;
	bool on, any_on;
	struct vvalid vv;
	struct wmean wm;
	long n_judged;
	bn_time_us j0, j1;
	bool gnd_unknown;
};

static void bf_begin(void *priv, const struct bn_check_ctx *ctx)
{
	struct bf_priv *p = priv;

	p->ctx = ctx;
	p->port_sources = ctx->port != BN_PORT_OTG;
	p->lim = -bn_limits_max(ctx->lim, "ISUSP");
	vv_init(&p->vv, ctx, "bc12.otg.no_backfeed");
	wm_init(&p->wm, BF_BLOCK_US, BF_BLOCKS);
	p->gnd_unknown = bn_gnd_unknown(ctx, BN_CH_VBUS);
}

static void bf_judge(struct bf_priv *p, const bn_time_us *t, long a, long b, double i, bool valid)
{
	if (!p->on || !valid || a >= b || isnan(i))
		return;
	if (!p->n_judged)
		p->j0 = t[a];
	p->n_judged += b - a;
	p->j1 = t[b - 1];
	wm_feed(&p->wm, i, t + a, b - a);
}

static void bf_run(struct bf_priv *p, const bn_time_us *t, long n, const struct bn_sample *s)
{
	double vbus = dev_level(p->ctx, BN_CH_VBUS, s->v[BN_CH_VBUS]);
	double i = s->v[BN_CH_IBUS];
	bool opened;
	long j = vv_feed(&p->vv, vbus, t, n, &opened);

	if (j == n) {
		bf_judge(p, t, 0, n, i, p->vv.p.state);
		return;
	}
	bf_judge(p, t, 0, j, i, !p->vv.p.state);
	if (!p->vv.p.state)
		wm_break(&p->wm);
	bf_judge(p, t, j, n, i, p->vv.p.state);
}

static void bf_sample(void *priv, bn_time_us t, const struct bn_sample *s)
{
	bf_run(priv, &t, 1, s);
}

static void bf_hold(void *priv, const bn_time_us *t, long n, const struct bn_sample *s)
{
	bf_run(priv, t, n, s);
}

static void bf_event(void *priv, const struct bn_cev *ev)
{
	struct bf_priv *p = priv;

	vv_event(&p->vv, ev);
	if (ev->kind == BN_CEV_VBUS_ON) {
		p->on = p->any_on = true;
	} else if (ev->kind == BN_CEV_VBUS_OFF) {
		p->on = false;
		wm_break(&p->wm);
	}
}

static void bf_end(void *priv, bn_time_us t_end, struct bn_result *res)
{
	struct bf_priv *p = priv;
	double v;

	(void)t_end;
	if (!p->port_sources) {
		bn_result_inconclusive(res, "the OTG port never supplies VBUS: any VBUS on it is the "
					    "device's own");
		return;
	}
	if (!p->any_on) {
		bn_result_inconclusive(res, "VBUS was never supplied from outside in this run");
		return;
	}
	if (p->gnd_unknown) {
		bn_result_inconclusive(res, "the device's ground against the port's is not known: "
					    "whether VBUS was valid at the device cannot be judged");
		return;
	}
	if (!p->vv.ever_valid) {
		vv_never_valid(&p->vv, res);
		return;
	}
	if (!p->wm.windows) {
		bn_result_inconclusive(res, "no full %.0f ms IBUS window while the bench supplied VBUS "
					    "and it was valid",
				       bn_time_to_ms((bn_time_us)BF_BLOCKS * BF_BLOCK_US));
		return;
	}
	v = p->wm.lo;
	bn_result_judge_u(res, v, bn_level_U(p->ctx, BN_CH_IBUS, v, p->wm.lo_n), p->lim, NAN, "A");
	bn_result_figure(res, "ibus_windows", (double)p->wm.windows, "");
	if (p->vv.dropouts)
		bn_result_figure(res, "vbus_dropouts", p->vv.dropouts, "");
	if (res->verdict == BN_VERDICT_FAIL) {
		bn_result_fail(res,
			       "IBUS averaged %.1f mA over %.0f ms from %.3f s while VBUS was supplied "
			       "and valid: the device sourced VBUS (below -ISUSP max, %.1f mA)",
			       v * 1000.0, bn_time_to_ms((bn_time_us)BF_BLOCKS * BF_BLOCK_US),
			       bn_time_to_s(p->wm.lo_t0), p->lim * 1000.0);
		bn_result_window(res, p->wm.lo_t0, p->wm.lo_t0 + (bn_time_us)BF_BLOCKS * BF_BLOCK_US);
	} else {
		bn_result_window(res, p->j0, p->j1);
	}
}

static const struct bn_rule rule_otg_no_backfeed = {
	.id = "bc12.otg.no_backfeed",
	.task = BN_TASK_DETECT,
	.title = "the device never sources VBUS while VBUS is supplied from outside",
	.clause = "BC 1.2 ACA (RID_GND); CP 6.9-6.13",
	.limit = "ISUSP",
	.persistence = "IBUS as 10 ms means (1 ms steps) while the bench has VBUS on and VBUS > "
		       "VOTG_SESS_VLD max (held 1 ms)",
	.needs_channels = (1u << BN_CH_IBUS) | (1u << BN_CH_VBUS),
	.needs_events = BN_CEV_BIT(BN_CEV_VBUS_ON) | BN_CEV_BIT(BN_CEV_VBUS_OFF),
	.min_rate_hz = ACA_OTG_MIN_RATE_HZ,
	.uses_port = true,
	.priv_size = sizeof(struct bf_priv),
	.begin = bf_begin,
	.sample = bf_sample,
	.hold = bf_hold,
	.event = bf_event,
	.end = bf_end,
};

const struct bn_rule *const bn_rules_aca_otg[] = {
	&rule_b_no_connect,
	&rule_c_connect,
	&rule_a_no_pullup,
	&rule_otg_sources_vbus,
	&rule_otg_vbus_output,
	&rule_otg_no_backfeed,
	NULL,
};
