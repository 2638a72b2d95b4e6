/* Task 1, accessory and OTG rules: ACA by ID resistance, the device as
 * A-device, and sourcing VBUS on a grounded ID.
 *
 * Each rule judges only samples (VBUS, IBUS, DP) and bench events; every
 * number comes from the limits file. Memory is a fixed struct per rule.
 *
 * The detection grace. While a device runs its detection sequence its
 * own sources drive D+: IDP_SRC during Data Contact Detect (on an ACA's
 * open data lines that reaches its compliance voltage, about 3 V, until
 * DCD times out at up to TDCD_TIMEOUT max), VDP_SRC during primary
 * detection. Voltage alone cannot tell that from a pull-up. A powered
 * device has finished detection by TSVLD_CON_PWD max after VBUS (it would
 * have connected by then on an SDP), so the D+ rules judge D+ from
 * TSVLD_CON_PWD max after VBUS on until VBUS off. A connect the host sees
 * (BN_CEV_CONNECT) is judged from the first instant. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "checks/check.h"
#include "checks/rules.h"

/* The capture rate below which a rule that times D+ or IBUS excursions
 * will not judge: compliance testers sample every 1 ms (TVBUS_AVG note in
 * the limits file, pet-scripts). A measurement resolution, not a limit. */
#define ACA_OTG_MIN_RATE_HZ 1000.0

/* The longest run of a condition over the samples (its start: the first
 * sample that met it; its end: the first that did not, or the window's
 * end). */
struct excursion {
	bool in;
	bn_time_us since;
	int count;
	bn_time_us longest, longest_t0;
};

static void exc_close(struct excursion *e, bn_time_us t)
{
	if (!e->in)
		return;
	e->in = false;
	if (t - e->since > e->longest) {
		e->longest = t - e->since;
		e->longest_t0 = e->since;
	}
}

static void exc_step(struct excursion *e, bool cond, bn_time_us t)
{
	if (cond && !e->in) {
		e->in = true;
		e->since = t;
		e->count++;
	} else if (!cond && e->in) {
		exc_close(e, t);
	}
}

/* The index of the first of t[0..n-1] (increasing) at or after t_us; n if none. */
static long first_from(const bn_time_us *t, long n, bn_time_us t_us)
{
	long lo = 0, hi = n;

	while (lo < hi) {
		long mid = lo + (hi - lo) / 2;

		if (t[mid] < t_us)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* ---- bc12.aca.b_no_connect (CP 6.11, [PD24]) ----
 * On RID_B the device charges but must not connect: after the detection
 * grace D+ stays at or below VDAT_REF max except for SRP pulses no longer
 * than TSRP_PULSE max; and the bench never sees a connect. Measured: the
 * longest D+ excursion above VDAT_REF max, against TSRP_PULSE max. */

struct b_priv {
	double vdat_ref;
	bn_time_us grace_us, pulse_us;
	bool on;
	bn_time_us t_on;
	bool any_on;
	long n_judged;
	bn_time_us j0, j1;
	struct excursion hi;
	double max_dp;
	bool connected;
	bn_time_us t_connect;
};

static void b_begin(void *priv, const struct bn_check_ctx *ctx)
{
	struct b_priv *p = priv;

	p->vdat_ref = bn_limits_max(ctx->lim, "VDAT_REF");
	p->grace_us = bn_time_from_s(bn_limits_max(ctx->lim, "TSVLD_CON_PWD"));
	p->pulse_us = bn_time_from_s(bn_limits_max(ctx->lim, "TSRP_PULSE"));
	p->max_dp = -INFINITY;
}

static void b_sample(void *priv, bn_time_us t, const struct bn_sample *s)
{
	struct b_priv *p = priv;
	double v = s->v[BN_CH_DP];

	if (!p->on || t < p->t_on + p->grace_us || isnan(v))
		return;
	if (!p->n_judged++)
		p->j0 = t;
	p->j1 = t;
	p->max_dp = fmax(p->max_dp, v);
	exc_step(&p->hi, v > p->vdat_ref, t);
}

/* The grace may end inside the run; from the first judged sample on, the
 * rest only count. */
static void b_hold(void *priv, const bn_time_us *t, long n, const struct bn_sample *s)
{
	struct b_priv *p = priv;
	long k;

	if (!p->on || isnan(s->v[BN_CH_DP]))
		return;
	k = first_from(t, n, p->t_on + p->grace_us);
	if (k == n)
		return;
	b_sample(p, t[k], s);
	p->n_judged += n - k - 1;
	p->j1 = t[n - 1];
}

static void b_event(void *priv, const struct bn_cev *ev)
{
	struct b_priv *p = priv;

	switch (ev->kind) {
	case BN_CEV_VBUS_ON:
		p->on = p->any_on = true;
		p->t_on = ev->t_us;
		break;
	case BN_CEV_VBUS_OFF:
		exc_close(&p->hi, ev->t_us);
		p->on = false;
		break;
	case BN_CEV_CONNECT:
		if (!p->connected) {
			p->connected = true;
			p->t_connect = ev->t_us;
		}
		break;
	default:
		break;
	}
}

static void b_end(void *priv, bn_time_us t_end, struct bn_result *res)
{
	struct b_priv *p = priv;

	exc_close(&p->hi, p->on ? t_end : p->j1);
	if (p->connected) {
		bn_result_fail(res, "the device connected on ACA-B: the host saw its D+ pull-up at %.3f s",
			       bn_time_to_s(p->t_connect));
		bn_result_window(res, p->t_connect, p->t_connect);
		if (p->n_judged)
			bn_result_figure(res, "longest_dp_high", bn_time_to_s(p->hi.longest), "s");
		return;
	}
	if (!p->any_on) {
		bn_result_inconclusive(res, "the bench never applied VBUS");
		return;
	}
	if (!p->n_judged) {
		bn_result_inconclusive(res,
				       "VBUS was never on for longer than the detection grace "
				       "(TSVLD_CON_PWD max, %.0f ms); no D+ sample judged",
				       bn_time_to_ms(p->grace_us));
		return;
	}
	bn_result_judge(res, bn_time_to_s(p->hi.longest), NAN, bn_time_to_s(p->pulse_us), "s");
	bn_result_figure(res, "max_dp", p->max_dp, "V");
	bn_result_figure(res, "dp_excursions", p->hi.count, "");
	if (res->verdict == BN_VERDICT_FAIL) {
		bn_result_fail(res,
			       "D+ above VDAT_REF max (%.3f V) for %.1f ms from %.3f s: longer than "
			       "an SRP pulse (TSRP_PULSE max %.1f ms); the device connected or drove D+",
			       p->vdat_ref, bn_time_to_ms(p->hi.longest), bn_time_to_s(p->hi.longest_t0),
			       bn_time_to_ms(p->pulse_us));
		bn_result_window(res, p->hi.longest_t0, p->hi.longest_t0 + p->hi.longest);
	} else {
		bn_result_window(res, p->j0, p->j1);
	}
}

static const struct bn_rule rule_b_no_connect = {
	.id = "bc12.aca.b_no_connect",
	.task = BN_TASK_DETECT,
	.title = "on ACA-B the device does not connect: D+ below VDAT_REF but for SRP pulses",
	.clause = "CP 6.11 [PD24]",
	.limit = "TSRP_PULSE",
	.needs_channels = 1u << BN_CH_DP,
	.needs_events = BN_CEV_BIT(BN_CEV_VBUS_ON) | BN_CEV_BIT(BN_CEV_VBUS_OFF) |
			BN_CEV_BIT(BN_CEV_CONNECT),
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
 * On RID_C the device connects within TSVLD_CON_PWD max of VBUS on and
 * the host enumerates it (a BN_CEV_CONFIG after the connect; any value,
 * since which configuration fits is the host's choice). Measured: the
 * worst time from VBUS on to connect over the run's attaches. An attach
 * shorter than TSVLD_CON_PWD max without a connect is not judged; an
 * enumeration is waited for TSVLD_CON_PWD max after the connect (the
 * bench's hosts enumerate in well under that) before it counts as
 * missing. */

struct c_priv {
	bn_time_us tcon_us;
	bool on, connected, configured;
	bn_time_us t_on, t_conn, t_cfg;
	int cfg_value;
	bool any_on, judged, never, not_enum, enum_short;
	int short_windows;
	bn_time_us worst_us, w0, w1;
	bn_time_us ne0, ne1;
	double t_enum_s;
};

static void c_begin(void *priv, const struct bn_check_ctx *ctx)
{
	struct c_priv *p = priv;

	p->tcon_us = bn_time_from_s(bn_limits_max(ctx->lim, "TSVLD_CON_PWD"));
	p->worst_us = -1;
	p->t_enum_s = NAN;
}

static void c_close(struct c_priv *p, bn_time_us t)
{
	if (!p->on)
		return;
	p->on = false;
	if (p->connected) {
		bn_time_us d = p->t_conn - p->t_on;

		p->judged = true;
		if (d > p->worst_us) {
			p->worst_us = d;
			p->w0 = p->t_on;
			p->w1 = p->t_conn;
		}
		if (p->configured) {
			if (isnan(p->t_enum_s))
				p->t_enum_s = bn_time_to_s(p->t_cfg - p->t_conn);
		} else if (t - p->t_conn > p->tcon_us) {
			if (!p->not_enum) {
				p->ne0 = p->t_conn;
				p->ne1 = t;
			}
			p->not_enum = true;
		} else {
			p->enum_short = true;
		}
	} else if (t - p->t_on > p->tcon_us) {
		p->judged = p->never = true;
		if (t - p->t_on > p->worst_us) {
			p->worst_us = t - p->t_on;
			p->w0 = p->t_on;
			p->w1 = t;
		}
	} else {
		p->short_windows++;
	}
}

static void c_event(void *priv, const struct bn_cev *ev)
{
	struct c_priv *p = priv;

	switch (ev->kind) {
	case BN_CEV_VBUS_ON:
		c_close(p, ev->t_us);
		p->on = p->any_on = true;
		p->t_on = ev->t_us;
		p->connected = p->configured = false;
		break;
	case BN_CEV_VBUS_OFF:
		c_close(p, ev->t_us);
		break;
	case BN_CEV_CONNECT:
		if (p->on && !p->connected) {
			p->connected = true;
			p->t_conn = ev->t_us;
		}
		break;
	case BN_CEV_CONFIG:
		if (p->on && p->connected && !p->configured) {
			p->configured = true;
			p->t_cfg = ev->t_us;
			p->cfg_value = ev->value;
		}
		break;
	default:
		break;
	}
}

static void c_end(void *priv, bn_time_us t_end, struct bn_result *res)
{
	struct c_priv *p = priv;

	c_close(p, t_end);
	if (!p->any_on) {
		bn_result_inconclusive(res, "the bench never applied VBUS");
		return;
	}
	if (!p->judged) {
		bn_result_inconclusive(res,
				       "VBUS was never on for TSVLD_CON_PWD max (%.0f ms) and the device "
				       "did not connect in the time it had (%d short attach(es))",
				       bn_time_to_ms(p->tcon_us), p->short_windows);
		return;
	}
	bn_result_judge(res, bn_time_to_s(p->worst_us), NAN, bn_time_to_s(p->tcon_us), "s");
	bn_result_window(res, p->w0, p->w1);
	if (!isnan(p->t_enum_s))
		bn_result_figure(res, "connect_to_config", p->t_enum_s, "s");
	if (p->never) {
		bn_result_fail(res, "the device never connected in the %.3f s VBUS was on (from %.3f s)",
			       bn_time_to_s(p->worst_us), bn_time_to_s(p->w0));
		return;
	}
	if (res->verdict == BN_VERDICT_FAIL) {
		bn_result_fail(res, "connected %.1f ms after VBUS on: later than TSVLD_CON_PWD max (%.0f ms)",
			       bn_time_to_ms(p->worst_us), bn_time_to_ms(p->tcon_us));
		return;
	}
	if (p->not_enum) {
		bn_result_fail(res,
			       "connected in time, but the host never enumerated the device (no "
			       "configuration set) in the %.3f s after the connect at %.3f s",
			       bn_time_to_s(p->ne1 - p->ne0), bn_time_to_s(p->ne0));
		bn_result_window(res, p->ne0, p->ne1);
		return;
	}
	if (p->enum_short)
		bn_result_inconclusive(res, "connected in time, but VBUS went off before the host "
					    "could enumerate the device");
}

static const struct bn_rule rule_c_connect = {
	.id = "bc12.aca.c_connect",
	.task = BN_TASK_DETECT,
	.title = "on ACA-C the device connects within TSVLD_CON_PWD and the host enumerates it",
	.clause = "CP 6.12",
	.limit = "TSVLD_CON_PWD",
	.needs_events = BN_CEV_BIT(BN_CEV_VBUS_ON) | BN_CEV_BIT(BN_CEV_VBUS_OFF) |
			BN_CEV_BIT(BN_CEV_CONNECT) | BN_CEV_BIT(BN_CEV_CONFIG),
	.ports = BN_PORT_BIT(BN_PORT_ACA_C),
	.priv_size = sizeof(struct c_priv),
	.begin = c_begin,
	.event = c_event,
	.end = c_end,
};

/* ---- bc12.aca.a_no_pullup (CP 6.9, 6.10) ----
 * On RID_A (ACA-A, ACA-Dock) the device is the A-device: after the
 * detection grace it has no D+ pull-up (D+ never above VLGC min for longer
 * than the glitch time), and it enumerates the accessory or dock
 * (BN_CEV_PERIPHERAL) in every attach that outlasts the grace.
 * The glitch time is TDCD_DBNC min: the shortest line state BC-1.2 asks a
 * detector to trust; a shorter spike is not a pull-up anyone would see.
 * Measured: the longest D+ excursion above VLGC min, against it. */

struct a_priv {
	double vlgc;
	bn_time_us grace_us, glitch_us;
	bool on, periph;
	bn_time_us t_on, t_periph_first;
	bool any_on, any_periph;
	long n_judged;
	bn_time_us j0, j1;
	struct excursion hi;
	double max_dp;
	int windows, missing;
	bn_time_us m0, m1;
};

static void a_begin(void *priv, const struct bn_check_ctx *ctx)
{
	struct a_priv *p = priv;

	p->vlgc = bn_limits_min(ctx->lim, "VLGC");
	p->grace_us = bn_time_from_s(bn_limits_max(ctx->lim, "TSVLD_CON_PWD"));
	p->glitch_us = bn_time_from_s(bn_limits_min(ctx->lim, "TDCD_DBNC"));
	p->max_dp = -INFINITY;
}

static void a_sample(void *priv, bn_time_us t, const struct bn_sample *s)
{
	struct a_priv *p = priv;
	double v = s->v[BN_CH_DP];

	if (!p->on || t < p->t_on + p->grace_us || isnan(v))
		return;
	if (!p->n_judged++)
		p->j0 = t;
	p->j1 = t;
	p->max_dp = fmax(p->max_dp, v);
	exc_step(&p->hi, v > p->vlgc, t);
}

/* As b_hold. */
static void a_hold(void *priv, const bn_time_us *t, long n, const struct bn_sample *s)
{
	struct a_priv *p = priv;
	long k;

	if (!p->on || isnan(s->v[BN_CH_DP]))
		return;
	k = first_from(t, n, p->t_on + p->grace_us);
	if (k == n)
		return;
	a_sample(p, t[k], s);
	p->n_judged += n - k - 1;
	p->j1 = t[n - 1];
}

static void a_close(struct a_priv *p, bn_time_us t)
{
	if (!p->on)
		return;
	p->on = false;
	exc_close(&p->hi, t);
	if (t - p->t_on <= p->grace_us)
		return;
	p->windows++;
	if (!p->periph && !p->missing++) {
		p->m0 = p->t_on;
		p->m1 = t;
	}
}

static void a_event(void *priv, const struct bn_cev *ev)
{
	struct a_priv *p = priv;

	switch (ev->kind) {
	case BN_CEV_VBUS_ON:
		a_close(p, ev->t_us);
		p->on = p->any_on = true;
		p->periph = false;
		p->t_on = ev->t_us;
		break;
	case BN_CEV_VBUS_OFF:
		a_close(p, ev->t_us);
		break;
	case BN_CEV_PERIPHERAL:
		if (p->on) {
			if (!p->any_periph)
				p->t_periph_first = ev->t_us - p->t_on;
			p->periph = p->any_periph = true;
		}
		break;
	default:
		break;
	}
}

static void a_end(void *priv, bn_time_us t_end, struct bn_result *res)
{
	struct a_priv *p = priv;

	a_close(p, t_end);
	if (!p->any_on) {
		bn_result_inconclusive(res, "the bench never applied VBUS");
		return;
	}
	if (!p->n_judged || !p->windows) {
		bn_result_inconclusive(res,
				       "VBUS was never on for longer than the detection grace "
				       "(TSVLD_CON_PWD max, %.0f ms)",
				       bn_time_to_ms(p->grace_us));
		return;
	}
	bn_result_judge(res, bn_time_to_s(p->hi.longest), NAN, bn_time_to_s(p->glitch_us), "s");
	bn_result_figure(res, "max_dp", p->max_dp, "V");
	if (p->any_periph)
		bn_result_figure(res, "vbus_to_peripheral", bn_time_to_s(p->t_periph_first), "s");
	if (res->verdict == BN_VERDICT_FAIL) {
		bn_result_fail(res,
			       "D+ above VLGC min (%.2f V) for %.1f ms from %.3f s (glitch time "
			       "TDCD_DBNC min %.0f ms): a D+ pull-up while the device is the A-device",
			       p->vlgc, bn_time_to_ms(p->hi.longest), bn_time_to_s(p->hi.longest_t0),
			       bn_time_to_ms(p->glitch_us));
		bn_result_window(res, p->hi.longest_t0, p->hi.longest_t0 + p->hi.longest);
		return;
	}
	bn_result_window(res, p->j0, p->j1);
	if (p->missing) {
		bn_result_fail(res,
			       "the device never enumerated the accessory (no peripheral event) in %d "
			       "of %d attach(es); first: VBUS on %.3f s to %.3f s",
			       p->missing, p->windows, bn_time_to_s(p->m0), bn_time_to_s(p->m1));
		bn_result_window(res, p->m0, p->m1);
	}
}

static const struct bn_rule rule_a_no_pullup = {
	.id = "bc12.aca.a_no_pullup",
	.task = BN_TASK_DETECT,
	.title = "on ACA-A and ACA-Dock the device is the A-device: no D+ pull-up, it enumerates "
		 "the accessory",
	.clause = "CP 6.9, 6.10",
	.limit = "TDCD_DBNC",
	.needs_channels = 1u << BN_CH_DP,
	.needs_events = BN_CEV_BIT(BN_CEV_VBUS_ON) | BN_CEV_BIT(BN_CEV_VBUS_OFF) |
			BN_CEV_BIT(BN_CEV_PERIPHERAL),
	.min_rate_hz = ACA_OTG_MIN_RATE_HZ,
	.ports = BN_PORT_BIT(BN_PORT_ACA_A) | BN_PORT_BIT(BN_PORT_ACA_DOCK),
	.priv_size = sizeof(struct a_priv),
	.begin = a_begin,
	.sample = a_sample,
	.hold = a_hold,
	.event = a_event,
	.end = a_end,
};

/* ---- bc12.otg.sources_vbus (CP 6.13) ----
 * On a grounded ID (the OTG port; the plug is in while the data lines are
 * in contact) the device sources VBUS above VOTG_SESS_VLD max, and once
 * it has raised it, holds VBUS >= VOTG_SESS_VLD max while the e-load
 * draws up to the declared OTG rating (samples while the load is above
 * the rating are not judged).
 * Why VOTG_SESS_VLD max and not VCHG min (4.75 V): CP 6.13 checks VBUS >
 * VOTG_SESS_VLD; VCHG is a charging port's output limit, not an
 * A-device's, and the OTG supplement's A-device output limits are not
 * sourced here (the limits file says: take the device's declared
 * rating). Below VOTG_SESS_VLD max the peripheral's session ends, which
 * is the failure that matters; a lab wanting 4.75 V passes its own
 * limits file with a higher VOTG_SESS_VLD max.
 * Measured: the lowest VBUS after the rise (or, if VBUS never rose, the
 * highest VBUS seen), against VOTG_SESS_VLD max as a minimum. A plug-in
 * without a rise is judged only if it lasted longer than TDCD_TIMEOUT max:
 * in BC-1.2's sequence the device reads ID after Data Contact Detect, which
 * ends by TDCD_TIMEOUT max even when it times out, so by then any device
 * has seen the grounded ID. */

struct otg_priv {
	double thr, rating;
	bn_time_us act_us;
	bool plugged, rose;
	bn_time_us t_plug, t_rose;
	double load;
	int windows, never, short_windows;
	double never_max_v;
	bn_time_us nv0, nv1;
	bool held_any;
	double min_v;
	bn_time_us t_min;
	double max_load_judged;
	double rise_s;
};

static void otg_begin(void *priv, const struct bn_check_ctx *ctx)
{
	struct otg_priv *p = priv;

	p->thr = bn_limits_max(ctx->lim, "VOTG_SESS_VLD");
	p->act_us = bn_time_from_s(bn_limits_max(ctx->lim, "TDCD_TIMEOUT"));
	p->rating = ctx->otg_rating_a;
	p->min_v = INFINITY;
	p->never_max_v = -INFINITY;
	p->rise_s = NAN;
}

static void otg_sample(void *priv, bn_time_us t, const struct bn_sample *s)
{
	struct otg_priv *p = priv;
	double v = s->v[BN_CH_VBUS];

	if (!p->plugged || isnan(v))
		return;
	if (!p->rose) {
		if (v <= p->thr) {
			p->never_max_v = fmax(p->never_max_v, v);
			return;
		}
		p->rose = true;
		p->t_rose = t;
		if (isnan(p->rise_s))
			p->rise_s = bn_time_to_s(t - p->t_plug);
	}
	/* The load is judged up to the rating (a relative 1e-9 for rounding). */
	if (p->load > p->rating * (1.0 + 1e-9))
		return;
	p->held_any = true;
	if (v < p->min_v) {
		p->min_v = v;
		p->t_min = t;
	}
	p->max_load_judged = fmax(p->max_load_judged, p->load);
}

/* The load only changes on an event: after one step (which may see the
 * rise, or a plug-in since the last sample) a repeat changes nothing. */
static void otg_hold(void *priv, const bn_time_us *t, long n, const struct bn_sample *s)
{
	(void)n;
	otg_sample(priv, t[0], s);
}

static void otg_close(struct otg_priv *p, bn_time_us t)
{
	if (!p->plugged)
		return;
	p->plugged = false;
	if (p->rose) {
		p->windows++;
	} else if (t - p->t_plug > p->act_us) {
		p->windows++;
		if (!p->never++) {
			p->nv0 = p->t_plug;
			p->nv1 = t;
		}
	} else {
		p->short_windows++;
	}
}

static void otg_event(void *priv, const struct bn_cev *ev)
{
	struct otg_priv *p = priv;

	switch (ev->kind) {
	case BN_CEV_DATA_CONTACT:
		if (ev->num > 0.5 && !p->plugged) {
			p->plugged = true;
			p->rose = false;
			p->t_plug = ev->t_us;
		} else if (ev->num <= 0.5) {
			otg_close(p, ev->t_us);
		}
		break;
	case BN_CEV_LOAD:
		p->load = ev->num;
		break;
	default:
		break;
	}
}

static void otg_end(void *priv, bn_time_us t_end, struct bn_result *res)
{
	struct otg_priv *p = priv;

	otg_close(p, t_end);
	if (!p->windows) {
		if (p->short_windows)
			bn_result_inconclusive(res,
					       "the OTG plug was never in for TDCD_TIMEOUT max (%.0f ms) "
					       "and VBUS did not rise meanwhile",
					       bn_time_to_ms(p->act_us));
		else
			bn_result_inconclusive(res, "the OTG plug never made contact (no data_contact "
						    "event)");
		return;
	}
	if (p->never) {
		bn_result_judge(res, isinf(p->never_max_v) ? 0.0 : p->never_max_v, p->thr, NAN, "V");
		bn_result_fail(res,
			       "the device never sourced VBUS above VOTG_SESS_VLD max (%.2f V) on a "
			       "grounded ID (%d of %d plug-ins; first %.3f s to %.3f s)",
			       p->thr, p->never, p->windows, bn_time_to_s(p->nv0), bn_time_to_s(p->nv1));
		bn_result_window(res, p->nv0, p->nv1);
		return;
	}
	if (!p->held_any) {
		bn_result_inconclusive(res, "VBUS rose, but only while the load exceeded the declared "
					    "OTG rating: nothing judged");
		return;
	}
	bn_result_judge(res, p->min_v, p->thr, NAN, "V");
	bn_result_window(res, p->t_rose, p->t_min);
	bn_result_figure(res, "max_load_judged", p->max_load_judged, "A");
	bn_result_figure(res, "otg_rating", p->rating, "A");
	if (!isnan(p->rise_s))
		bn_result_figure(res, "contact_to_vbus", p->rise_s, "s");
	if (res->verdict == BN_VERDICT_FAIL)
		bn_result_fail(res,
			       "VBUS fell to %.3f V at %.3f s (load %.0f mA, rating %.0f mA): below "
			       "VOTG_SESS_VLD max (%.2f V) after the device had raised it",
			       p->min_v, bn_time_to_s(p->t_min), p->max_load_judged * 1000.0,
			       p->rating * 1000.0, p->thr);
}

static const struct bn_rule rule_otg_sources_vbus = {
	.id = "bc12.otg.sources_vbus",
	.task = BN_TASK_DETECT,
	.title = "on a grounded ID the device sources VBUS above VOTG_SESS_VLD, up to its rated load",
	.clause = "CP 6.13",
	.limit = "VOTG_SESS_VLD",
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

/* ---- bc12.otg.no_backfeed ----
 * On every port: while the bench supplies VBUS (BN_CEV_VBUS_ON ..
 * BN_CEV_VBUS_OFF) the device never sources it: IBUS (the device's own
 * current, negative when it sources) never below -ISUSP max. Any
 * sink-side draw is positive; a suspended device's leakage is within
 * ISUSP; below -ISUSP the device pushes current into the supply.
 * Measured: the lowest IBUS while VBUS was supplied, against -ISUSP max
 * as a minimum. */

struct bf_priv {
	double lim;
	bool on, any_on;
	bn_time_us t_on;
	long n_judged;
	bn_time_us j0, j1;
	double min_i;
	bn_time_us t_min;
	struct excursion neg;
};

static void bf_begin(void *priv, const struct bn_check_ctx *ctx)
{
	struct bf_priv *p = priv;

	p->lim = -bn_limits_max(ctx->lim, "ISUSP");
	p->min_i = INFINITY;
}

static void bf_sample(void *priv, bn_time_us t, const struct bn_sample *s)
{
	struct bf_priv *p = priv;
	double i = s->v[BN_CH_IBUS];

	if (!p->on || isnan(i))
		return;
	if (!p->n_judged++)
		p->j0 = t;
	p->j1 = t;
	if (i < p->min_i) {
		p->min_i = i;
		p->t_min = t;
	}
	exc_step(&p->neg, i < p->lim, t);
}

static void bf_hold(void *priv, const bn_time_us *t, long n, const struct bn_sample *s)
{
	struct bf_priv *p = priv;

	bf_sample(p, t[0], s);
	if (!p->on || isnan(s->v[BN_CH_IBUS]))
		return;
	p->n_judged += n - 1;
	p->j1 = t[n - 1];
}

static void bf_event(void *priv, const struct bn_cev *ev)
{
	struct bf_priv *p = priv;

	if (ev->kind == BN_CEV_VBUS_ON) {
		p->on = p->any_on = true;
		p->t_on = ev->t_us;
	} else if (ev->kind == BN_CEV_VBUS_OFF) {
		exc_close(&p->neg, ev->t_us);
		p->on = false;
	}
}

static void bf_end(void *priv, bn_time_us t_end, struct bn_result *res)
{
	struct bf_priv *p = priv;

	exc_close(&p->neg, p->on ? t_end : p->j1);
	if (!p->any_on) {
		bn_result_inconclusive(res, "VBUS was never supplied from outside in this run");
		return;
	}
	if (!p->n_judged) {
		bn_result_inconclusive(res, "no IBUS sample while the bench supplied VBUS");
		return;
	}
	bn_result_judge(res, p->min_i, p->lim, NAN, "A");
	if (res->verdict == BN_VERDICT_FAIL) {
		bn_result_fail(res,
			       "IBUS %.1f mA at %.3f s while the bench supplied VBUS: the device "
			       "sourced VBUS (below -ISUSP max, %.1f mA) for %.1f ms",
			       p->min_i * 1000.0, bn_time_to_s(p->t_min), p->lim * 1000.0,
			       bn_time_to_ms(p->neg.longest));
		bn_result_window(res, p->neg.longest_t0, p->neg.longest_t0 + p->neg.longest);
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
	.needs_channels = 1u << BN_CH_IBUS,
	.needs_events = BN_CEV_BIT(BN_CEV_VBUS_ON) | BN_CEV_BIT(BN_CEV_VBUS_OFF),
	.min_rate_hz = ACA_OTG_MIN_RATE_HZ,
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
	&rule_otg_no_backfeed,
	NULL,
};
