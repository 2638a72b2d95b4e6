/* The dedicated charging port's data lines (side port): the D+/D- short
 * (bc12.port.rdcp_dat) and the lines' leakage (bc12.port.leakage).
 *
 * Both are resistances, so both need a known current into the lines: a
 * capture shows only voltages. The bench's probe (ctx->probe, a port
 * scenario) knows its own: IDM_SINK through the short in primary
 * detection, IDP_SRC against RDM_DWN in data contact. On a device run the
 * device's currents are known only within their limits: the short is
 * bounded with IDM_SINK min and max (usually inconclusive), the leakage
 * is not judged.
 *
 *   rdcp_dat  primary detection on a DCP: D+ in the VDP_SRC window with
 *             V(D+) - V(D-) > 0, as 1 ms block means; the longest such
 *             run (>= 10 blocks) is primary (a device holding VDP_SRC
 *             after detection sinks nothing: its runs are short and near
 *             0). R = dV / I, where I is IDM_SINK plus what D- may leak
 *             to ground (at most V(D-) / RDAT_LKG min). The two lines'
 *             offsets cancel against their idle difference when the
 *             capture has one (both below VDAT_REF min). The short is
 *             across the lines only while they touch: with the bench's
 *             data-contact events known, a run counts only if the lines
 *             made contact before it began and stayed made through it (a
 *             device may begin primary detection on open lines, and a
 *             bounce opens them); without those events a short too
 *             large may be open lines, so it is inconclusive, not a fail.
 *   leakage   the probe's phases (its telemetry "state"): idle lines sit
 *             at the leakage's open-circuit voltage V0 (judged against
 *             VDAT_LKG); in data contact IDP_SRC into D+ against the
 *             probe's RDM_DWN on D- (joined by the short) gives V1, so
 *             the lines' Thevenin resistance is (V1 - V0) / (IDP_SRC -
 *             V1 / RDM_DWN). The short joins the lines: that is both in
 *             parallel, so each line has at least it, and one at most
 *             twice it: pass when it reaches RDAT_LKG min, fail when
 *             twice it does not. Both phases count only with the lines
 *             made (each from 5 ms after they made contact again). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "checks/level.h"
#include "checks/persist.h"
#include "checks/port_rules.h"
#include "checks/rules.h"

#define LN_MIN_RATE_HZ 1000.0
#define LN_SESSION (BN_CEV_BIT(BN_CEV_VBUS_ON) | BN_CEV_BIT(BN_CEV_VBUS_OFF) | BN_CEV_BIT(BN_CEV_DATA_CONTACT))
#define LN_LINES ((1u << BN_CH_DP) | (1u << BN_CH_DM))
#define LN_PRI_MIN_BLOCKS 10        /* a primary run: at least 10 ms */
#define LN_SETTLE_US 5000           /* a probe phase's first 5 ms: the lines settle (RC) */

/* A run of 1 ms blocks. */
struct ln_run {
	long n_blk, n;
	struct bn_rsum d, dp, dm;
	bn_time_us t0, t1;
	bool open;   /* some of it with the lines open, or a contact change within it */
};

enum ln_phase { LP_NONE, LP_IDLE, LP_DCD, LP_OTHER };

struct ln_priv {
	const struct bn_check_ctx *ctx;
	const struct bn_limits *lim;
	double vdp_lo, vdp_hi, zero_hi;
	double sh[2];
	bool gnd_unknown;
	struct bn_block b;
	bn_time_us blk_us;
	struct ln_run cur, best, zero;
	/* the probe's phases */
	enum ln_phase ph;
	bn_time_us ph_t0;
	long n_idle, n_dcd;
	struct bn_rsum idle_dp, dcd_dp;
	bn_time_us idle_t0, idle_t1, dcd_t0, dcd_t1;
	bool tel_seen;
	/* the lines' contact (the bench's BN_CEV_DATA_CONTACT) */
	bool ct_known, ct_made, ct_moved;   /* moved: a change within the block being filled */
	bn_time_us ct_t;                    /* the last change */
	long n_open_runs;                   /* primary runs void for open lines */
	bn_time_us open_t0;                 /* the first of them */
};

static void ln_begin(void *priv, const struct bn_check_ctx *ctx)
{
	struct ln_priv *p = priv;
	static const enum bn_chan ch[2] = { BN_CH_DP, BN_CH_DM };

	p->ctx = ctx;
	p->lim = ctx->lim;
	p->vdp_lo = bn_limits_min(p->lim, "VDP_SRC");
	p->vdp_hi = bn_limits_max(p->lim, "VDP_SRC");
	p->zero_hi = bn_limits_min(p->lim, "VDAT_REF");
	for (int k = 0; k < 2; k++) {
		bool dut_ref = ctx->meas[ch[k]].gnd == BN_GND_DUT;

		if (dut_ref && isnan(ctx->gnd_offset_v))
			p->gnd_unknown = true;
		p->sh[k] = dut_ref && !isnan(ctx->gnd_offset_v) ? ctx->gnd_offset_v : 0.0;
	}
	p->ct_known = (ctx->events & BN_CEV_BIT(BN_CEV_DATA_CONTACT)) != 0;
	p->ct_t = BN_TIME_NEVER;
	p->blk_us = bn_block_len_us(ctx);
	bn_block_start(&p->b, 0, p->blk_us);
	p->b.t0 = BN_TIME_NEVER;
}

static void run_add(struct ln_run *r, const struct bn_block *b)
{
	double dp = bn_block_mean(b, 0), dm = bn_block_mean(b, 1);

	if (!r->n_blk)
		r->t0 = b->t0;
	r->t1 = b->t0 + b->len_us;
	r->n_blk++;
	r->n += b->n;
	bn_rsum_add(&r->d, dp - dm, b->n);
	bn_rsum_add(&r->dp, dp, b->n);
	bn_rsum_add(&r->dm, dm, b->n);
}

static double run_mean(const struct ln_run *r, const struct bn_rsum *s)
{
	return bn_rsum_mean(s, r->n);
}

static void run_close(struct ln_priv *p)
{
	if (p->cur.n_blk >= LN_PRI_MIN_BLOCKS && p->cur.open) {
		if (!p->n_open_runs++)
			p->open_t0 = p->cur.t0;
		memset(&p->cur, 0, sizeof(p->cur));
		return;
	}
	if (p->cur.n_blk >= LN_PRI_MIN_BLOCKS &&
	    (!p->best.n_blk || run_mean(&p->cur, &p->cur.d) > run_mean(&p->best, &p->best.d)))
		p->best = p->cur;
	memset(&p->cur, 0, sizeof(p->cur));
}

static void ln_blk(void *user, const struct bn_block *b)
{
	struct ln_priv *p = user;
	double dp, dm;
	/* the lines made through the whole block (a change reported after
	 * it ended but before it closed voids it too: on the safe side) */
	bool open = p->ct_known && (!p->ct_made || p->ct_moved);

	p->ct_moved = false;
	if (b->n < BN_PERSIST_MIN_SAMPLES)
		return;
	dp = bn_block_mean(b, 0);
	dm = bn_block_mean(b, 1);
	if (dp < p->zero_hi && dm < p->zero_hi) {
		run_close(p);
		run_add(&p->zero, b);
		return;
	}
	/* primary: every sample of the block with D+ in VDP_SRC, the mean
	 * difference positive (IDM_SINK pulls D- below D+) */
	if (b->ok && dp - dm > 0) {
		run_add(&p->cur, b);
		if (open)
			p->cur.open = true;
		return;
	}
	run_close(p);
}

static void ln_sample(void *priv, bn_time_us t, const struct bn_sample *s)
{
	struct ln_priv *p = priv;
	double dp = s->v[BN_CH_DP] + p->sh[0], dm = s->v[BN_CH_DM] + p->sh[1];
	bool in = dp >= p->vdp_lo && dp <= p->vdp_hi;

	if (p->b.t0 == BN_TIME_NEVER)
		bn_block_start(&p->b, t, p->blk_us);
	/* a block whose D+ left the window is not primary's; the zero
	 * test reads its means */
	bn_block_run(&p->b, &t, 1, dp, dm, in, ln_blk, p);
	if (p->ct_known && (!p->ct_made || t < p->ct_t + LN_SETTLE_US))
		return; /* the probe's phases see the port only through made lines */
	if (p->ph == LP_IDLE && t >= p->ph_t0 + LN_SETTLE_US) {
		if (!p->n_idle)
			p->idle_t0 = t;
		p->n_idle++;
		p->idle_t1 = t;
		bn_rsum_add(&p->idle_dp, dp, 1);
	} else if (p->ph == LP_DCD && t >= p->ph_t0 + LN_SETTLE_US) {
		if (!p->n_dcd)
			p->dcd_t0 = t;
		p->n_dcd++;
		p->dcd_t1 = t;
		bn_rsum_add(&p->dcd_dp, dp, 1);
	}
}

/* n samples equal to the last at t[0..n-1], as n calls of ln_sample: the
 * blocks at once (ln_blk writes nothing the rest reads), then the phase's
 * sums over the samples it takes, a tail of the run (its tests on t only
 * turn from false to true as t grows) */
static void ln_hold(void *priv, const bn_time_us *t, long n, const struct bn_sample *s)
{
	struct ln_priv *p = priv;
	double dp = s->v[BN_CH_DP] + p->sh[0], dm = s->v[BN_CH_DM] + p->sh[1];
	bool in = dp >= p->vdp_lo && dp <= p->vdp_hi;
	long j = 0;

	if (p->b.t0 == BN_TIME_NEVER)
		bn_block_start(&p->b, t[0], p->blk_us);
	bn_block_run(&p->b, t, n, dp, dm, in, ln_blk, p);
	if (p->ct_known) {
		if (!p->ct_made)
			return;
		j = bn_first_at(t, 0, n, p->ct_t + LN_SETTLE_US);
	}
	if (p->ph != LP_IDLE && p->ph != LP_DCD)
		return;
	j = bn_first_at(t, j, n, p->ph_t0 + LN_SETTLE_US);
	if (j >= n)
		return;
	if (p->ph == LP_IDLE) {
		if (!p->n_idle)
			p->idle_t0 = t[j];
		p->n_idle += n - j;
		p->idle_t1 = t[n - 1];
		bn_rsum_add(&p->idle_dp, dp, n - j);
	} else {
		if (!p->n_dcd)
			p->dcd_t0 = t[j];
		p->n_dcd += n - j;
		p->dcd_t1 = t[n - 1];
		bn_rsum_add(&p->dcd_dp, dp, n - j);
	}
}

static void ln_event(void *priv, const struct bn_cev *ev)
{
	struct ln_priv *p = priv;

	if (ev->kind == BN_CEV_VBUS_OFF || ev->kind == BN_CEV_VBUS_ON) {
		run_close(p);
		p->ph = LP_NONE;
		return;
	}
	if (ev->kind == BN_CEV_DATA_CONTACT && p->ct_known && !ev->inferred) {
		p->ct_made = ev->num > 0.5;
		p->ct_t = ev->t_us;
		p->ct_moved = true;
		if (p->cur.n_blk)
			p->cur.open = true;
		return;
	}
	if (ev->kind != BN_CEV_TELEMETRY || !ev->key || strcmp(ev->key, "state") || !ev->text)
		return;
	p->tel_seen = true;
	p->ph = !strcmp(ev->text, "idle") ? LP_IDLE : !strcmp(ev->text, "dcd") ? LP_DCD : LP_OTHER;
	p->ph_t0 = ev->t_us;
}

static double eff_u(const struct bn_result *res, double u)
{
	return !strcmp(res->decision, "simple") ? 0.0 : u;
}

static const char *port_of(const struct ln_priv *p)
{
	return p->ctx->port_name ? p->ctx->port_name : "dcp";
}

static bool ln_common(struct ln_priv *p, bn_time_us t_end_us, struct bn_result *res)
{
	if (p->b.t0 != BN_TIME_NEVER) /* no sample at all: no block to close */
		bn_block_run(&p->b, &t_end_us, 1, 0, 0, false, ln_blk, p); /* closes the last block */
	run_close(p);
	if (p->gnd_unknown) {
		bn_result_inconclusive(res, "D+ or D- is measured against the device's ground and its offset "
				       "from the port's is not known: the port's levels cannot be read");
		bn_result_window(res, 0, t_end_us);
		return false;
	}
	return true;
}

/* Standard uncertainty of the mean of n samples at v on ch, without its
 * offset (cancelled against a zero taken on the same channel). */
static double u_no_offset(const struct bn_check_ctx *ctx, enum bn_chan ch, double v, long n)
{
	struct bn_meas m = ctx->meas[ch];

	m.offset = 0;
	return bn_meas_u_level(&m, v, n);
}

/* ---- bc12.port.rdcp_dat ---- */

static void rdcp_end(void *priv, bn_time_us t_end_us, struct bn_result *res)
{
	struct ln_priv *p = priv;
	const struct bn_check_ctx *ctx = p->ctx;
	const struct bn_probe *pr = &ctx->probe;
	double rmax = bn_limits_max(p->lim, "RDCP_DAT"), r_lkg = bn_limits_min(p->lim, "RDAT_LKG");
	double d, dp, dm, z = 0, ud, i_lo, i_hi, r_lo, r_hi, u_lo, u_hi;
	bool zero = p->zero.n_blk >= LN_PRI_MIN_BLOCKS, known = pr->present && pr->idm_sink_a > 0;
	double u[3];

	if (!ln_common(p, t_end_us, res))
		return;
	if (!p->best.n_blk && p->n_open_runs) {
		bn_result_inconclusive(res, "primary detection (D+ in the VDP_SRC window above D-, from %.3f s) "
				       "ran while the data lines were not in contact%s: the port's short was not "
				       "across them", bn_time_to_s(p->open_t0),
				       p->ct_t == BN_TIME_NEVER ? " (the bench never reported them made)"
								: " or across a contact change");
		bn_result_window(res, 0, t_end_us);
		return;
	}
	if (!p->best.n_blk) {
		bn_result_inconclusive(res, "no primary detection (D+ in the VDP_SRC window above D- for >= %d "
				       "ms) drove a current through the short", LN_PRI_MIN_BLOCKS);
		bn_result_window(res, 0, t_end_us);
		return;
	}
	dp = run_mean(&p->best, &p->best.dp);
	dm = run_mean(&p->best, &p->best.dm);
	d = run_mean(&p->best, &p->best.d);
	if (zero) {
		z = run_mean(&p->zero, &p->zero.d);
		u[0] = u_no_offset(ctx, BN_CH_DP, dp, p->best.n);
		u[1] = u_no_offset(ctx, BN_CH_DM, dm, p->best.n);
		u[2] = hypot(u_no_offset(ctx, BN_CH_DP, 0, p->zero.n), u_no_offset(ctx, BN_CH_DM, 0, p->zero.n));
	} else {
		u[0] = bn_ctx_u_level(ctx, BN_CH_DP, dp, p->best.n);
		u[1] = bn_ctx_u_level(ctx, BN_CH_DM, dm, p->best.n);
		u[2] = 0;
	}
	d -= z;
	ud = bn_u_expand(3, u);
	/* the current through the short: the sink, and what D- may leak */
	if (known) {
		i_lo = pr->idm_sink_a * (1.0 - 2.0 * pr->i_u_rel);
		i_hi = pr->idm_sink_a * (1.0 + 2.0 * pr->i_u_rel);
	} else {
		i_lo = bn_limits_min(p->lim, "IDM_SINK");
		i_hi = bn_limits_max(p->lim, "IDM_SINK");
	}
	i_hi += dm > 0 && r_lkg > 0 ? dm / r_lkg : 0;
	r_lo = d / i_hi;
	r_hi = d / i_lo;
	u_lo = ud / i_hi;
	u_hi = ud / i_lo;
	bn_result_window(res, p->best.t0, p->best.t1);
	bn_result_figure(res, "v_dp_minus_dm", d, "V");
	if (r_lo - eff_u(res, u_lo) > rmax && !p->ct_known) {
		bn_result_measured(res, r_lo, "ohm");
		bn_result_inconclusive(res, "the short measures at least %.0f ohm (%.1f mV across it), above "
				       "RDCP_DAT max %.0f ohm, but the capture does not say the data lines were in "
				       "contact (no data-contact events): open lines look the same", r_lo, d * 1e3,
				       rmax);
		return;
	}
	if (r_lo - eff_u(res, u_lo) > rmax) {
		bn_result_judge_u(res, r_lo, u_lo, NAN, rmax, "ohm");
		bn_result_fail(res, "the port's (%s) D+/D- short measures at least %.0f ohm (%.1f mV across it "
			       "with at most %.1f uA through it, U = %.0f ohm): above RDCP_DAT max %.0f ohm",
			       port_of(p), r_lo, d * 1e3, i_hi * 1e6, res->u, rmax);
		return;
	}
	if (r_hi + eff_u(res, u_hi) < rmax) {
		bn_result_judge_u(res, r_hi, u_hi, NAN, rmax, "ohm");
		return;
	}
	/* the range straddles the limit: neither end may be judged alone
	 * (r_hi leaves out what D- may leak, r_lo counts all of it) */
	bn_result_measured(res, r_hi, "ohm");
	bn_result_inconclusive(res, "the short measures %.0f-%.0f ohm (%.1f mV across it, U = %.1f mV), against "
			       "RDCP_DAT max %.0f ohm: %s", r_lo, r_hi, d * 1e3, ud * 1e3, rmax,
			       known ? "the probe's sink, the lines' leakage and the measurement leave it that wide"
				     : "the device's IDM_SINK is known only within its limits (a port scenario, "
				       "with the bench's own sink, judges the short)");
}

const struct bn_rule bn_port_rdcp_dat = {
	.id = "bc12.port.rdcp_dat",
	.task = BN_TASK_PORT_LINES,
	.side = BN_SIDE_PORT,
	.title = "a DCP shorts D+ to D- through at most RDCP_DAT max",
	.clause = "CP 7.4",
	.limit = "RDCP_DAT",
	.persistence = "V(D+) - V(D-) as the mean of the longest run (>= 10 ms) of 1 ms blocks with D+ in "
		       "the VDP_SRC window and D+ above D- (primary detection), less the idle lines' "
		       "difference; over IDM_SINK (the probe's, else the limits') plus D-'s leakage; only a run "
		       "with the lines made (data contact) before it began and through it",
	.needs_channels = LN_LINES,
	.uses_events = LN_SESSION,
	.min_rate_hz = LN_MIN_RATE_HZ,
	.ports = BN_PORT_BIT(BN_PORT_DCP),
	.judges_late_capture = true,
	.priv_size = sizeof(struct ln_priv),
	.begin = ln_begin,
	.sample = ln_sample,
	.hold = ln_hold,
	.event = ln_event,
	.end = rdcp_end,
};

/* ---- bc12.port.leakage ---- */

static void lkg_end(void *priv, bn_time_us t_end_us, struct bn_result *res)
{
	struct ln_priv *p = priv;
	const struct bn_check_ctx *ctx = p->ctx;
	const struct bn_probe *pr = &ctx->probe;
	double rmin = bn_limits_min(p->lim, "RDAT_LKG"), v0, v1, u0, u1, un, ud, num, den, r, r_lo, r_hi;
	double vmin = bn_limits_min(p->lim, "VDAT_LKG"), vmax = bn_limits_max(p->lim, "VDAT_LKG");
	struct bn_result vr;

	if (!ln_common(p, t_end_us, res))
		return;
	if (!pr->present || !(pr->idp_src_a > 0) || !(pr->rdm_dwn_ohm > 0)) {
		bn_result_inconclusive(res, "the lines' leakage needs a known current into them: the bench's "
				       "probe with its IDP_SRC and RDM_DWN (a port scenario)%s",
				       pr->present ? "; this bench does not declare its probe's network" : "");
		bn_result_window(res, 0, t_end_us);
		return;
	}
	if (p->n_idle < BN_PERSIST_MIN_SAMPLES || p->n_dcd < BN_PERSIST_MIN_SAMPLES) {
		bn_result_inconclusive(res, "the probe's idle and data-contact phases (its telemetry \"state\") "
				       "were %s: no open-circuit and loaded level to compare",
				       p->tel_seen ? "too short or missing" : "not reported");
		bn_result_window(res, 0, t_end_us);
		return;
	}
	v0 = bn_rsum_mean(&p->idle_dp, p->n_idle);
	v1 = bn_rsum_mean(&p->dcd_dp, p->n_dcd);
	/* VDAT_LKG: the open-circuit level */
	vr = *res;
	u0 = bn_level_U(ctx, BN_CH_DP, v0, p->n_idle);
	bn_result_judge_u(&vr, v0, u0, vmin, vmax, "V");
	if (vr.verdict == BN_VERDICT_FAIL) {
		*res = vr;
		snprintf(res->limit, sizeof(res->limit), "VDAT_LKG");
		bn_result_window(res, p->idle_t0, p->idle_t1);
		bn_result_fail(res, "the port's (%s) idle lines sit at %.3f V (U = %.3f V): outside VDAT_LKG "
			       "%.1f-%.1f V", port_of(p), v0, res->u, vmin, vmax);
		return;
	}
	/* RDAT_LKG: the Thevenin resistance of both lines together */
	num = v1 - v0;
	den = pr->idp_src_a - v1 / pr->rdm_dwn_ohm;
	u1 = bn_ctx_u_level(ctx, BN_CH_DP, v1, p->n_dcd);
	un = 2.0 * bn_ctx_u_delta(ctx, BN_CH_DP, num, p->n_dcd < p->n_idle ? p->n_dcd : p->n_idle);
	ud = 2.0 * hypot(hypot(pr->idp_src_a * pr->i_u_rel, v1 / pr->rdm_dwn_ohm * pr->i_u_rel),
			 u1 / pr->rdm_dwn_ohm);
	if (!strcmp(res->decision, "simple"))
		un = ud = 0;
	bn_result_window(res, p->idle_t0, p->dcd_t1);
	bn_result_figure(res, "v_open", v0, "V");
	bn_result_figure(res, "v_loaded", v1, "V");
	if (fabs(den) <= ud || num * den <= 0) {
		/* no current the lines take can be told from zero: at least
		 * the smallest difference their voltage may have over the
		 * largest current they may take */
		r_lo = fmax(0.0, fabs(num) - un) / (fabs(den) + ud);
		bn_result_measured(res, r_lo, "ohm");
		if (r_lo > rmin) {
			bn_result_judge_u(res, r_lo, 0, rmin, NAN, "ohm");
			return;
		}
		bn_result_inconclusive(res, "the lines took no current that can be told from zero (%.2f uA, U = "
				       "%.2f uA): their leakage resistance is at least %.0f kohm", den * 1e6, ud * 1e6,
				       r_lo / 1e3);
		return;
	}
	r = num / den;
	r_lo = (fabs(num) - un) / (fabs(den) + ud);
	r_hi = (fabs(num) + un) / (fabs(den) - ud);
	if (r_lo < 0)
		r_lo = 0;
	if (2.0 * r_hi < rmin) {
		bn_result_judge_u(res, 2.0 * r, 2.0 * (r_hi - r), rmin, NAN, "ohm");
		bn_result_fail(res, "the port's (%s) lines leak through %.0f kohm together (%.0f-%.0f kohm; %.3f V "
			       "open, %.3f V with the probe's IDP_SRC against its RDM_DWN): even one line "
			       "alone at twice that is below RDAT_LKG min %.0f kohm", port_of(p), r / 1e3,
			       r_lo / 1e3, r_hi / 1e3, v0, v1, rmin / 1e3);
		if (res->verdict != BN_VERDICT_FAIL)
			res->verdict = BN_VERDICT_FAIL;
		return;
	}
	if (r_lo >= rmin) {
		bn_result_judge_u(res, r, r - r_lo, rmin, NAN, "ohm");
		return;
	}
	bn_result_measured(res, r, "ohm");
	bn_result_inconclusive(res, "the lines leak through %.0f kohm together (%.0f-%.0f kohm): the DCP's short "
			       "joins them, so each line has at least that and one at most twice it, against "
			       "RDAT_LKG min %.0f kohm", r / 1e3, r_lo / 1e3, r_hi / 1e3, rmin / 1e3);
}

const struct bn_rule bn_port_leakage = {
	.id = "bc12.port.leakage",
	.task = BN_TASK_PORT_LINES,
	.side = BN_SIDE_PORT,
	.title = "a DCP's data lines leak through at least RDAT_LKG min, to a level within VDAT_LKG",
	.clause = "CP 7.4",
	.limit = "RDAT_LKG",
	.persistence = "D+ as the mean of the probe's idle phase (open circuit) and of its data-contact phase "
		       "(IDP_SRC against RDM_DWN), each from 5 ms after it began (its telemetry \"state\"), "
		       "only while the lines are made (from 5 ms after they made contact)",
	.needs_channels = LN_LINES,
	.uses_events = LN_SESSION | BN_CEV_BIT(BN_CEV_TELEMETRY),
	.min_rate_hz = LN_MIN_RATE_HZ,
	.ports = BN_PORT_BIT(BN_PORT_DCP),
	.judges_late_capture = true,
	.priv_size = sizeof(struct ln_priv),
	.begin = ln_begin,
	.sample = ln_sample,
	.hold = ln_hold,
	.event = ln_event,
	.end = lkg_end,
};
