#include "checks/check.h"
#include "checks/estimate.h"
#include "checks/logbin.h"
#include "core/text.h"
#include "core/units.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *bn_side_name(enum bn_side s)
{
	return s == BN_SIDE_PORT ? "port" : "device";
}

/* ---- uncertainty of a channel ---- */

double bn_ctx_u_level(const struct bn_check_ctx *ctx, enum bn_chan ch, double v, long n)
{
	return bn_meas_u_level(&ctx->meas[ch], v, n);
}

double bn_ctx_u_delta(const struct bn_check_ctx *ctx, enum bn_chan ch, double dv, long n)
{
	return bn_meas_u_delta(&ctx->meas[ch], dv, n);
}

double bn_ctx_u_edge(const struct bn_check_ctx *ctx, enum bn_chan ch, double slew_per_s)
{
	return bn_meas_u_edge(&ctx->meas[ch], ctx->rate_hz, slew_per_s);
}

/* ---- result helpers ---- */

void bn_result_measured(struct bn_result *res, double v, const char *unit)
{
	res->has_measured = true;
	res->measured = v;
	snprintf(res->unit, sizeof(res->unit), "%s", unit);
}

void bn_result_judge(struct bn_result *res, double v, double min, double max, const char *unit)
{
	double m = INFINITY;

	bn_result_measured(res, v, unit);
	res->limit_min = min;
	res->limit_max = max;
	if (!isnan(min))
		m = fmin(m, v - min);
	if (!isnan(max))
		m = fmin(m, max - v);
	res->has_margin = !isinf(m);
	res->margin = res->has_margin ? m : NAN;
	res->verdict = (isnan(min) || v >= min) && (isnan(max) || v <= max) ? BN_VERDICT_PASS
									     : BN_VERDICT_FAIL;
}

static void fmt_value(char *buf, size_t len, double v, const char *unit)
{
	double a = fabs(v);

	if (a != 0 && a < 1e-3)
		snprintf(buf, len, "%.4g u%s", v * 1e6, unit);
	else if (a != 0 && a < 1)
		snprintf(buf, len, "%.4g m%s", v * 1e3, unit);
	else
		snprintf(buf, len, "%.4g %s", v, unit);
}

void bn_result_judge_u(struct bn_result *res, double v, double u, double min, double max,
		       const char *unit)
{
	char vs[32], us[32], ms[32];

	bn_result_judge(res, v, min, max, unit);
	res->has_u = true;
	res->u = isfinite(u) && u > 0 ? u : 0;
	if (!res->decision[0])
		snprintf(res->decision, sizeof(res->decision), "%s", bn_acceptance_name(BN_ACCEPT_GUARDED));
	if (!strcmp(res->decision, "simple") || res->u == 0 || !res->has_margin)
		return;
	if (res->margin > res->u) {
		res->verdict = BN_VERDICT_PASS;
		return;
	}
	if (res->margin < -res->u) {
		res->verdict = BN_VERDICT_FAIL;
		return;
	}
	fmt_value(vs, sizeof(vs), v, unit);
	fmt_value(us, sizeof(us), res->u, unit);
	fmt_value(ms, sizeof(ms), fabs(res->margin), unit);
	bn_result_inconclusive(res, "within measurement uncertainty (U = %s): measured %s, %s the "
			       "limit by %s", us, vs, res->margin >= 0 ? "inside" : "outside", ms);
}

void bn_result_window(struct bn_result *res, bn_time_us t0_us, bn_time_us t1_us)
{
	res->t0_us = t0_us;
	res->t1_us = t1_us;
}

void bn_result_figure(struct bn_result *res, const char *name, double v, const char *unit)
{
	int k = res->n_figures;

	if (k >= (int)(sizeof(res->figures) / sizeof(res->figures[0])))
		return;
	snprintf(res->figures[k].name, sizeof(res->figures[k].name), "%s", name);
	res->figures[k].value = v;
	snprintf(res->figures[k].unit, sizeof(res->figures[k].unit), "%s", unit);
	res->n_figures = k + 1;
}

void bn_result_inconclusive(struct bn_result *res, const char *fmt, ...)
{
	va_list ap;

	res->verdict = BN_VERDICT_INCONCLUSIVE;
	va_start(ap, fmt);
	bn_str_vfmt(res->reason, sizeof(res->reason), fmt, ap);
	va_end(ap);
}

void bn_result_fail(struct bn_result *res, const char *fmt, ...)
{
	va_list ap;

	res->verdict = BN_VERDICT_FAIL;
	va_start(ap, fmt);
	bn_str_vfmt(res->reason, sizeof(res->reason), fmt, ap);
	va_end(ap);
}

/* ---- the engine ---- */

struct rule_inst {
	const struct bn_rule *rule;
	struct bn_result *worst; /* the worst of the sessions before the last move */
	unsigned inferred;    /* kinds of the inferred events it was given */
	bn_time_us inferred_t[BN_CEV_COUNT];
	enum bn_verdict pre;  /* SKIPPED / INCONCLUSIVE decided up front, or PASS = active */
	char why[240];
	void *priv;
};

/* Samples equal to the previous one are held back and handed to the
 * rules as one run (bn_rule.hold), up to this many at a time. */
#define HOLD_MAX 4096

/* The estimate's histogram: |step| from 1e-9 to 1e3 (V or A), 16 bins a
 * decade (checks/logbin.h). */
#define EST_BINS BN_LOGBIN_BINS
#define EST_LO_EXP BN_LOGBIN_LO_EXP
#define EST_PER_DECADE BN_LOGBIN_PER_DECADE

struct active_rule {
	void (*sample)(void *priv, bn_time_us t_us, const struct bn_sample *s);
	void (*hold)(void *priv, const bn_time_us *t, long n, const struct bn_sample *s);
	void *priv;
};

struct bn_checks {
	struct bn_check_ctx ctx;
	int n;
	struct rule_inst *v;
	/* the active ones with a sample(), for the per-sample loop */
	int n_active;
	struct active_rule *active;
	int n_evented;
	struct rule_inst **evented;
	bool have_prev;
	struct bn_sample prev;
	/* Each channel's extremes, and where they fall outside what a port
	 * can show (the CAPTURE_* entries of the limits file). */
	double plaus_lo[BN_CH_COUNT], plaus_hi[BN_CH_COUNT];
	bn_time_us bad_t[BN_CH_COUNT];
	double bad_v[BN_CH_COUNT];
	unsigned implausible;
	long hold_n;
	bn_time_us hold_t[HOLD_MAX];
	/* Channels measured by an instrument of unknown accuracy: the
	 * sample-to-sample steps, in a log histogram, give the noise (their
	 * median) and the resolution (the smallest step that recurs). */
	int session;          /* moves so far */
	/* The capture's first sample, and the first attach the bench reported
	 * (or inferred): an attach before the capture starts means the rules
	 * that watch what follows an attach cannot see it. */
	bool have_first;
	bn_time_us t_first;
	bool have_on;
	bn_time_us t_on;
	bool on_inferred;
	struct bn_check_share share;  /* the session's (ctx.share points here) */
	unsigned estimate;
	unsigned est_here;       /* the ones whose steps the engine counts itself */
	struct bn_est est;
	struct bn_logbin est_lb; /* set up only when a channel is estimated */
};

static void list_bits(char *buf, size_t len, unsigned bits, int n, const char *(*name)(int))
{
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; i < n; i++)
		if (bits & (1u << i))
			used += (size_t)snprintf(buf + used, used < len ? len - used : 0, "%s%s",
						 used ? ", " : "", name(i));
}

static const char *chan_name_i(int i)
{
	return bn_chan_name((enum bn_chan)i);
}

static const char *cev_name_i(int i)
{
	return bn_cev_name((enum bn_cev_kind)i);
}

static const char *port_name_i(int i)
{
	return bn_port_name((enum bn_port_type)i);
}

static const char *decl_name_i(int i)
{
	static const char *const names[] = { "battery powered", "Dead Battery Provision",
					    "a dead battery", "an OTG output rating",
					    "secondary detection", "a droop threshold" };

	return (size_t)i < sizeof(names) / sizeof(names[0]) ? names[i] : "?";
}

static void decide(struct rule_inst *ri, const struct bn_check_ctx *ctx)
{
	const struct bn_rule *r = ri->rule;
	char list[160];
	unsigned missing;

	ri->pre = BN_VERDICT_PASS;
	if (ctx->probe.present && r->side == BN_SIDE_DEVICE) {
		/* a port run: the bench's own networks play the device, so a
		 * device rule would judge the bench */
		ri->pre = BN_VERDICT_SKIPPED;
		snprintf(ri->why, sizeof(ri->why),
			 "the bench's probe plays the device in this port run: no device to judge");
		return;
	}
	if ((r->ports || r->uses_port) && ctx->port_unknown) {
		ri->pre = BN_VERDICT_INCONCLUSIVE;
		snprintf(ri->why, sizeof(ri->why),
			 "depends on the port type, which is not known (give --port)");
		return;
	}
	if ((r->needs_decl || r->excludes_decl || r->uses_decl) && ctx->decl_unknown) {
		ri->pre = BN_VERDICT_INCONCLUSIVE;
		snprintf(ri->why, sizeof(ri->why),
			 "depends on the device's declaration, which is not known (give --dut)");
		return;
	}
	if (r->ports && !(r->ports & BN_PORT_BIT(ctx->port))) {
		list_bits(list, sizeof(list), r->ports, BN_PORT_COUNT, port_name_i);
		ri->pre = BN_VERDICT_SKIPPED;
		snprintf(ri->why, sizeof(ri->why), "applies on %s; this port is %s", list,
			 bn_port_name(ctx->port));
		return;
	}
	missing = r->needs_decl & ~ctx->decl;
	if (missing) {
		list_bits(list, sizeof(list), missing, 6, decl_name_i);
		ri->pre = BN_VERDICT_SKIPPED;
		snprintf(ri->why, sizeof(ri->why), "applies to a device with %s", list);
		return;
	}
	if (r->excludes_decl & ctx->decl) {
		list_bits(list, sizeof(list), r->excludes_decl & ctx->decl, 6, decl_name_i);
		ri->pre = BN_VERDICT_SKIPPED;
		snprintf(ri->why, sizeof(ri->why), "does not apply to a device with %s", list);
		return;
	}
	missing = r->needs_channels & ~ctx->channels;
	if (missing) {
		list_bits(list, sizeof(list), missing, BN_CH_COUNT, chan_name_i);
		ri->pre = BN_VERDICT_INCONCLUSIVE;
		snprintf(ri->why, sizeof(ri->why), "needs channel(s) %s, not captured%s%s", list,
			 ctx->chan_why[__builtin_ctz(missing)] ? ": " : "",
			 ctx->chan_why[__builtin_ctz(missing)] ? ctx->chan_why[__builtin_ctz(missing)] : "");
		return;
	}
	missing = r->needs_events & ~ctx->events;
	if (missing) {
		list_bits(list, sizeof(list), missing, BN_CEV_COUNT, cev_name_i);
		ri->pre = BN_VERDICT_INCONCLUSIVE;
		snprintf(ri->why, sizeof(ri->why), "needs event(s) %s, not known to this source%s%s",
			 list, ctx->event_why[__builtin_ctz(missing)] ? ": " : "",
			 ctx->event_why[__builtin_ctz(missing)] ? ctx->event_why[__builtin_ctz(missing)] : "");
		return;
	}
	if (r->min_rate_hz > 0 && ctx->rate_hz < r->min_rate_hz) {
		ri->pre = BN_VERDICT_INCONCLUSIVE;
		snprintf(ri->why, sizeof(ri->why), "needs a sample rate of at least %g Hz, captured at %g Hz%s%s",
			 r->min_rate_hz, ctx->rate_hz, ctx->rate_why ? ": " : "",
			 ctx->rate_why ? ctx->rate_why : "");
	}
}

static double est_bin_value(int b)
{
	return pow(10.0, EST_LO_EXP + (b + 0.5) / EST_PER_DECADE);
}

/* White noise of rms s gives steps with median |d| = 0.6745 * sqrt(2) * s;
 * edges are few and do not move a median. */
static void est_finish(struct bn_checks *c)
{
	for (int ch = 0; ch < BN_CH_COUNT; ch++) {
		struct bn_meas *m = &c->ctx.meas[ch];
		long half, acc;
		int b;

		if (!(c->estimate & (1u << ch)) || c->est.n[ch] < 2)
			continue;
		half = c->est.n[ch] / 2;
		acc = c->est.zero[ch];
		m->noise_rms = 0;
		if (acc <= half) {
			for (b = 0; b < EST_BINS && acc + c->est.bin[ch][b] <= half; b++)
				acc += c->est.bin[ch][b];
			m->noise_rms = est_bin_value(b < EST_BINS ? b : EST_BINS - 1) / (0.6745 * sqrt(2.0));
		}
		/* the smallest step seen in at least 1 % of the samples */
		for (b = 0; b < EST_BINS; b++)
			if (c->est.bin[ch][b] * 100 >= c->est.n[ch])
				break;
		if (b < EST_BINS && m->noise_rms < est_bin_value(b)) {
			/* a resolution-limited channel: one step, as a range of 1 step */
			m->bits = 1;
			m->range_lo = 0;
			m->range_hi = 2.0 * est_bin_value(b);
		}
	}
}

/* Decide each rule for the context and begin the ones that judge; the
 * start of a run and of each session after a move. */
static int start_rules(struct bn_checks *c, struct bn_err *err)
{
	c->n_active = 0;
	c->n_evented = 0;
	memset(&c->share, 0, sizeof(c->share));
	c->ctx.share = &c->share;
	for (int i = 0; i < c->n; i++) {
		struct rule_inst *ri = &c->v[i];
		const struct bn_rule *rule = ri->rule;

		ri->inferred = 0;
		decide(ri, &c->ctx);
		if (ri->pre != BN_VERDICT_PASS)
			continue;
		ri->priv = calloc(1, rule->priv_size ? rule->priv_size : 1);
		if (!ri->priv)
			return bn_err_set(err, BN_ERR_NOMEM, "checks: out of memory");
		if (rule->begin)
			rule->begin(ri->priv, &c->ctx);
		if (rule->event)
			c->evented[c->n_evented++] = ri;
	}
	/* Which take samples is known once all have begun (the last
	 * detection rule to begin leads the others): the rest are not called
	 * for each sample, as every sample of a replay would call them. */
	for (int i = 0; i < c->n; i++) {
		const struct rule_inst *ri = &c->v[i];
		const struct bn_rule *rule = ri->rule;

		if (ri->pre != BN_VERDICT_PASS || !rule->sample ||
		    (rule->no_samples && rule->no_samples(ri->priv)))
			continue;
		c->active[c->n_active++] = (struct active_rule){
			.sample = rule->sample, .hold = rule->hold, .priv = ri->priv
		};
	}
	return BN_OK;
}

int bn_checks_new(const struct bn_check_ctx *ctx, struct bn_checks **out, struct bn_err *err)
{
	struct bn_checks *c = calloc(1, sizeof(*c));
	int n = bn_rules_count();

	if (!c)
		return bn_err_set(err, BN_ERR_NOMEM, "checks: out of memory");
	c->ctx = *ctx;
	c->v = calloc((size_t)n + 1, sizeof(*c->v));
	c->active = calloc((size_t)n + 1, sizeof(*c->active));
	c->evented = calloc((size_t)n + 1, sizeof(*c->evented));
	if (!c->v || !c->active || !c->evented) {
		bn_checks_free(c);
		return bn_err_set(err, BN_ERR_NOMEM, "checks: out of memory");
	}
	c->n = n;
	for (int ch = 0; ch < BN_CH_COUNT; ch++)
		if (c->ctx.meas_src[ch] == BN_MEAS_SRC_ESTIMATED && (c->ctx.channels & (1u << ch)))
			c->estimate |= 1u << ch;
	c->est_here = c->estimate;
	if (c->estimate)
		bn_logbin_init(&c->est_lb);
	for (int ch = 0; ch < BN_CH_COUNT; ch++) {
		const char *name = ch == BN_CH_VBUS ? "CAPTURE_VBUS"
				   : ch == BN_CH_IBUS ? "CAPTURE_IBUS" : "CAPTURE_DATA_LINE";
		const struct bn_limit *l = ctx->lim ? bn_limits_find(ctx->lim, name) : NULL;

		/* A limits file without them (a lab's older copy) gates nothing. */
		c->plaus_lo[ch] = l && !isnan(l->min) ? l->min : -INFINITY;
		c->plaus_hi[ch] = l && !isnan(l->max) ? l->max : INFINITY;
	}
	for (int i = 0; i < n; i++)
		c->v[i].rule = bn_rule_at(i);
	if (start_rules(c, err) < 0) {
		bn_checks_free(c);
		return err->code;
	}
	*out = c;
	return BN_OK;
}

static void flush_hold(struct bn_checks *c)
{
	if (!c->hold_n)
		return;
	bn_est_repeat(&c->est, c->est_here, c->hold_n);
	for (int i = 0; i < c->n_active; i++) {
		const struct active_rule *a = &c->active[i];

		if (a->hold) {
			a->hold(a->priv, c->hold_t, c->hold_n, &c->prev);
		} else {
			for (long k = 0; k < c->hold_n; k++)
				a->sample(a->priv, c->hold_t[k], &c->prev);
		}
	}
	c->hold_n = 0;
}

void bn_checks_sample(struct bn_checks *c, bn_time_us t_us, const struct bn_sample *s)
{
	if (!c->have_first) {
		c->have_first = true;
		c->t_first = t_us;
	}
	if (c->have_prev && !memcmp(s, &c->prev, sizeof(*s)) && !c->ctx.no_hold) {
		c->hold_t[c->hold_n++] = t_us;
		if (c->hold_n == HOLD_MAX)
			flush_hold(c);
		return;
	}
	flush_hold(c);
	if (c->est_here && c->have_prev)
		for (int ch = 0; ch < BN_CH_COUNT; ch++)
			if (c->est_here & (1u << ch))
				bn_est_add(&c->est, &c->est_lb, ch, s->v[ch] - c->prev.v[ch], 1);
	for (int ch = 0; ch < BN_CH_COUNT; ch++) {
		double v = s->v[ch];

		/* NaN on a captured channel is a hole in the data, not a value */
		if (!(v >= c->plaus_lo[ch] && v <= c->plaus_hi[ch]) &&
		    (!isnan(v) || (c->ctx.channels & (1u << ch))) &&
		    !(c->implausible & (1u << ch))) {
			c->implausible |= 1u << ch;
			c->bad_t[ch] = t_us;
			c->bad_v[ch] = v;
		}
	}
	for (int i = 0; i < c->n_active; i++)
		c->active[i].sample(c->active[i].priv, t_us, s);
	c->prev = *s;
	c->have_prev = true;
}

void bn_checks_sample_again(struct bn_checks *c, bn_time_us t_us)
{
	if (!c->have_prev || c->ctx.no_hold) {
		struct bn_sample s = c->prev;

		if (c->have_prev)
			bn_checks_sample(c, t_us, &s);
		return;
	}
	c->hold_t[c->hold_n++] = t_us;
	if (c->hold_n == HOLD_MAX)
		flush_hold(c);
}

void bn_checks_sample_again_n(struct bn_checks *c, const bn_time_us *t, long n)
{
	if (!c->have_prev || c->ctx.no_hold) {
		for (long i = 0; i < n; i++)
			bn_checks_sample_again(c, t[i]);
		return;
	}
	while (n > 0) {
		long m = HOLD_MAX - c->hold_n < n ? HOLD_MAX - c->hold_n : n;

		memcpy(&c->hold_t[c->hold_n], t, (size_t)m * sizeof(*t));
		c->hold_n += m;
		t += m;
		n -= m;
		if (c->hold_n == HOLD_MAX)
			flush_hold(c);
	}
}

unsigned bn_checks_estimate_outside(struct bn_checks *c)
{
	c->est_here = 0;
	return c->estimate;
}

void bn_checks_add_estimate(struct bn_checks *c, const struct bn_est *e)
{
	bn_est_merge(&c->est, e);
}

void bn_checks_event(struct bn_checks *c, const struct bn_cev *ev)
{
	if (ev->kind == BN_CEV_VBUS_ON && !c->have_on && (c->ctx.events & BN_CEV_BIT(ev->kind))) {
		c->have_on = true;
		c->t_on = ev->t_us;
		c->on_inferred = ev->inferred;
	}
	if (!(c->ctx.events & BN_CEV_BIT(ev->kind)))
		return;
	/* Events fall between samples: the held ones come first. */
	flush_hold(c);
	for (int i = 0; i < c->n_evented; i++) {
		struct rule_inst *ri = c->evented[i];

		if (ev->inferred && !(ri->inferred & BN_CEV_BIT(ev->kind))) {
			ri->inferred |= BN_CEV_BIT(ev->kind);
			ri->inferred_t[ev->kind] = ev->t_us;
		}
		ri->rule->event(ri->priv, ev);
	}
}

/* The report's "measurement": each captured channel's measurement and
 * where it came from, and the decision rule. */
static void measurement_json(const struct bn_checks *c, struct bn_report *rep)
{
	cJSON *m = cJSON_CreateObject(), *chs;

	if (!m)
		return;
	cJSON_AddStringToObject(m, "decision_rule", bn_acceptance_name(c->ctx.acceptance));
	cJSON_AddNumberToObject(m, "coverage_factor", BN_MEAS_K);
	chs = cJSON_AddObjectToObject(m, "channels");
	for (int ch = 0; ch < BN_CH_COUNT; ch++) {
		cJSON *o;
		char spec[200];

		if (!(c->ctx.channels & (1u << ch)))
			continue;
		o = cJSON_AddObjectToObject(chs, bn_chan_label(ch));
		bn_meas_format(&c->ctx.meas[ch], ch == BN_CH_IBUS ? BN_DIM_A : BN_DIM_V, spec, sizeof(spec));
		cJSON_AddStringToObject(o, "spec", spec);
		cJSON_AddStringToObject(o, "source", bn_meas_src_name(c->ctx.meas_src[ch]));
		cJSON_AddStringToObject(o, "ground", c->ctx.meas[ch].gnd == BN_GND_DUT ? "dut" : "port");
	}
	cJSON_Delete(rep->measurement);
	rep->measurement = m;
}

/* One rule's result over the current session (since the start or the
 * last move), into res: the rule's own end() and what the engine knows
 * about its inputs. */
/* What a result of rule ri says whatever its verdict: its id, title,
 * clause, limit and how it decides. */
static void rule_meta(const struct bn_checks *c, const struct rule_inst *ri, struct bn_result *res)
{
	const struct bn_rule *r = ri->rule;
	const struct bn_limit *lim = r->limit ? bn_limits_find(c->ctx.lim, r->limit) : NULL;

	memset(res, 0, sizeof(*res));
	res->limit_min = res->limit_max = NAN;
	res->t0_us = res->t1_us = -1;
	snprintf(res->id, sizeof(res->id), "%s", r->id);
	snprintf(res->kind, sizeof(res->kind), "check");
	snprintf(res->task, sizeof(res->task), "%s", r->task);
	snprintf(res->side, sizeof(res->side), "%s", bn_side_name(r->side));
	snprintf(res->title, sizeof(res->title), "%s", r->title);
	snprintf(res->text, sizeof(res->text), "%s", r->title);
	if (r->clause)
		snprintf(res->clause, sizeof(res->clause), "%s", r->clause);
	if (r->limit)
		snprintf(res->limit, sizeof(res->limit), "%s", r->limit);
	if (lim && lim->source)
		snprintf(res->limit_source, sizeof(res->limit_source), "%s", lim->source);
	if (r->persistence)
		snprintf(res->persistence, sizeof(res->persistence), "%s", r->persistence);
	snprintf(res->decision, sizeof(res->decision), "%s", bn_acceptance_name(c->ctx.acceptance));
}

static void judge_rule(struct bn_checks *c, struct rule_inst *ri, bn_time_us t_end_us,
		       struct bn_result *res)
{
	const struct bn_rule *r = ri->rule;

	rule_meta(c, ri, res);
	if (ri->pre != BN_VERDICT_PASS) {
		res->verdict = ri->pre;
		bn_str_copy(res->reason, sizeof(res->reason), ri->why);
		return;
	}
	/* A rule that says nothing has judged nothing. */
	res->verdict = BN_VERDICT_INCONCLUSIVE;
	snprintf(res->reason, sizeof(res->reason), "the rule reached no verdict");
	r->end(ri->priv, t_end_us, res);
	if (res->verdict != BN_VERDICT_INCONCLUSIVE && !strcmp(res->reason, "the rule reached no verdict"))
		res->reason[0] = '\0';
	/* Nothing passes on a guess. */
	if (res->verdict == BN_VERDICT_PASS && (ri->inferred & (r->needs_events | r->uses_events))) {
		int k = __builtin_ctz(ri->inferred & (r->needs_events | r->uses_events));

		bn_result_inconclusive(res, "would pass, but rests on a %s at %.6f s inferred from "
				       "the samples, not reported by the bench (give the capture's "
				       "events)", bn_cev_name(k), bn_time_to_s(ri->inferred_t[k]));
	}
	/* The attach came before the capture did (a capture started late, or
	 * one that begins with VBUS already on): what follows an attach on the
	 * data lines, and every time counted from it, is not in the data. */
	if (c->session == 0 && c->have_on && c->have_first &&
	    (c->t_on < c->t_first || (c->on_inferred && c->t_on == c->t_first)) &&
	    ((r->needs_channels & (1u << BN_CH_DP)) || ((r->needs_events | r->uses_events) &
							 BN_CEV_BIT(BN_CEV_DATA_CONTACT))) &&
	    !r->judges_late_capture &&
	    (res->verdict == BN_VERDICT_PASS || res->verdict == BN_VERDICT_FAIL)) {
		char was[sizeof(res->reason)];

		snprintf(was, sizeof(was), "%s", res->reason);
		res->warning = false;
		if (c->t_on < c->t_first)
			bn_result_inconclusive(res, "the capture starts at %.3f s, after the attach at "
					       "%.3f s: what follows the attach is not in it (would be %s%s%.120s)",
					       bn_time_to_s(c->t_first), bn_time_to_s(c->t_on),
					       bn_verdict_name(res->verdict), was[0] ? ": " : "", was);
		else
			bn_result_inconclusive(res, "the capture starts with VBUS already on: the attach "
					       "is not in it (would be %s%s%.120s)",
					       bn_verdict_name(res->verdict), was[0] ? ": " : "", was);
	}
	if ((r->needs_channels & c->implausible) &&
	    (res->verdict == BN_VERDICT_PASS || res->verdict == BN_VERDICT_FAIL)) {
		int ch = __builtin_ctz(r->needs_channels & c->implausible);

		res->verdict = BN_VERDICT_INCONCLUSIVE;
		res->warning = false;
		if (isnan(c->bad_v[ch]))
			snprintf(res->reason, sizeof(res->reason),
				 "the capture is not plausible: %s is not a number at %.6f s "
				 "(a hole in the data)", bn_chan_label(ch), bn_time_to_s(c->bad_t[ch]));
		else
			snprintf(res->reason, sizeof(res->reason),
				 "the capture is not plausible: %s %.4g %s at %.6f s, outside what a USB "
				 "port shows (%g .. %g %s): a wrong channel map or scale?",
				 bn_chan_label(ch), c->bad_v[ch], bn_chan_unit(ch), bn_time_to_s(c->bad_t[ch]),
				 c->plaus_lo[ch], c->plaus_hi[ch], bn_chan_unit(ch));
	}
}

/* How bad a verdict is, for the worst of a rule's sessions. */
static int severity(const struct bn_result *r)
{
	switch (r->verdict) {
	case BN_VERDICT_ERROR: return 5;
	case BN_VERDICT_FAIL: return r->warning ? 3 : 4;
	case BN_VERDICT_INCONCLUSIVE: return 2;
	case BN_VERDICT_PASS: return 1;
	default: return 0;
	}
}

/* Keep the worse of the rule's sessions so far and this one, saying which
 * session it is. */
static void keep_worst(struct bn_checks *c, struct rule_inst *ri, struct bn_result *res)
{
	char tag[96];
	size_t n;

	snprintf(tag, sizeof(tag), " [session %d of the run: port %s]", c->session + 1,
		 c->ctx.port_name ? c->ctx.port_name : bn_port_name(c->ctx.port));
	n = strlen(res->reason);
	snprintf(res->reason + n, sizeof(res->reason) - n, "%s", tag);
	if (!ri->worst) {
		ri->worst = malloc(sizeof(*ri->worst));
		if (ri->worst)
			*ri->worst = *res;
		return;
	}
	if (severity(res) > severity(ri->worst))
		*ri->worst = *res;
}

void bn_checks_set_configs(struct bn_checks *c, int n, const int *value,
			   const double *max_power_a)
{
	if (!c)
		return;
	n = n < 0 ? 0 : n > 8 ? 8 : n;
	for (int i = 0; i < n; i++) {
		c->ctx.config_value[i] = value[i];
		c->ctx.config_max_power_a[i] = max_power_a[i];
	}
	c->ctx.n_configs = n;
	c->ctx.configs_known = true;
}

/* The port rule of id, by its index in the table; -1: none. */
static int port_rule_index(const struct bn_checks *c, const char *id)
{
	for (int i = 0; i < c->n; i++)
		if (c->v[i].rule->side == BN_SIDE_PORT && !strcmp(c->v[i].rule->id, id))
			return i;
	return -1;
}

/* A device rule that failed where a port rule it rests on failed in the
 * same session is inconclusive, naming the port: the port broke what the
 * device was judged on. res[] holds one session's results in table order,
 * every rule ended (the port's first, whatever the order). */
static void blame_port(const struct bn_checks *c, struct bn_result *res)
{
	for (int i = 0; i < c->n; i++) {
		const struct bn_rule *r = c->v[i].rule;
		const struct bn_result *pr = NULL;
		char what[200], was[sizeof(res[i].reason)];

		if (r->side != BN_SIDE_DEVICE || !r->port_deps || res[i].verdict != BN_VERDICT_FAIL)
			continue;
		for (int k = 0; r->port_deps[k] && !pr; k++) {
			int j = port_rule_index(c, r->port_deps[k]);

			if (j >= 0 && res[j].verdict == BN_VERDICT_FAIL)
				pr = &res[j];
		}
		if (!pr)
			continue;
		if (pr->reason[0]) {
			bn_str_copy(what, sizeof(what), pr->reason);
		} else if (pr->has_measured) {
			char q[64], lim[120];

			bn_qty_format(pr->measured, pr->unit, q, sizeof(q));
			bn_limit_format(pr->limit, pr->limit_min, pr->limit_max, pr->unit, lim, sizeof(lim));
			snprintf(what, sizeof(what), "measured %s, limit %s", q, lim);
		} else {
			bn_str_copy(what, sizeof(what), pr->title);
		}
		snprintf(was, sizeof(was), "%s", res[i].reason);
		res[i].warning = false;
		bn_result_inconclusive(&res[i], "the port (%s) failed %s: %.*s (would be fail%s%.*s)",
				       c->ctx.port_name ? c->ctx.port_name : bn_port_name(c->ctx.port),
				       pr->id, bn_utf8_prec(what, 110), what, was[0] ? ": " : "",
				       bn_utf8_prec(was, 60), was);
	}
}

/* Every rule's result over the session now ending, into res[c->n], the
 * port's failures applied to the device rules that rest on them. */
static void judge_session(struct bn_checks *c, bn_time_us t_us, struct bn_result *res)
{
	for (int i = 0; i < c->n; i++)
		judge_rule(c, &c->v[i], t_us, &res[i]);
	blame_port(c, res);
}

int bn_checks_move(struct bn_checks *c, bn_time_us t_us, const struct bn_check_ctx *next,
		   struct bn_err *err)
{
	struct bn_result *res = calloc((size_t)c->n + 1, sizeof(*res));

	if (!res)
		return bn_err_set(err, BN_ERR_NOMEM, "checks: out of memory");
	flush_hold(c);
	judge_session(c, t_us, res);
	for (int i = 0; i < c->n; i++) {
		struct rule_inst *ri = &c->v[i];

		keep_worst(c, ri, &res[i]);
		free(ri->priv);
		ri->priv = NULL;
	}
	free(res);
	c->ctx.port = next->port;
	c->ctx.port_unknown = next->port_unknown;
	c->ctx.port_name = next->port_name;
	c->ctx.dp_pulldown_ohm = next->dp_pulldown_ohm;
	c->ctx.dm_pulldown_ohm = next->dm_pulldown_ohm;
	c->ctx.dp_dm_short_ohm = next->dp_dm_short_ohm;
	/* the charger behind the next port (the port rules') */
	c->ctx.charger_name = next->charger_name;
	c->ctx.charger_rated_a = next->charger_rated_a;
	c->ctx.cable_ohm = next->cable_ohm;
	c->ctx.cable_u_ohm = next->cable_u_ohm;
	c->ctx.charger_compliant = next->charger_compliant;
	c->session++;
	return start_rules(c, err);
}

/* One result per rule, unjudged: a rule that does not apply skipped,
 * every other an error saying why: never an absence that reads as a
 * pass. */
static void error_each(const struct bn_checks *c, struct bn_report *rep, const char *why)
{
	for (int i = 0; i < c->n; i++) {
		const struct rule_inst *ri = &c->v[i];
		struct bn_result *res = bn_report_add(rep);

		if (!res)
			return;
		rule_meta(c, ri, res);
		if (ri->pre == BN_VERDICT_SKIPPED) {
			res->verdict = BN_VERDICT_SKIPPED;
			bn_str_copy(res->reason, sizeof(res->reason), ri->why);
		} else {
			res->verdict = BN_VERDICT_ERROR;
			bn_str_copy(res->reason, sizeof(res->reason), why);
		}
	}
}

/* No memory to judge the session's rules together (the port's blame needs
 * them all at once). */
static void unjudged(const struct bn_checks *c, struct bn_report *rep)
{
	char why[160];

	snprintf(why, sizeof(why), "not judged: out of memory for the %d rules' results at the end of the run",
		 c->n);
	error_each(c, rep, why);
}

void bn_checks_end(struct bn_checks *c, bn_time_us t_end_us, struct bn_report *rep)
{
	struct bn_result *res = calloc((size_t)c->n + 1, sizeof(*res));

	flush_hold(c);
	est_finish(c);
	measurement_json(c, rep);
	if (!res) {
		unjudged(c, rep);
		return;
	}
	/* judge all, blame the port, then append in table order */
	judge_session(c, t_end_us, res);
	for (int i = 0; i < c->n; i++) {
		struct rule_inst *ri = &c->v[i];
		struct bn_result *out = bn_report_add(rep);

		if (!out)
			break;
		*out = res[i];
		if (c->session > 0) {
			keep_worst(c, ri, out);
			if (ri->worst)
				*out = *ri->worst;
		}
	}
	free(res);
}

void bn_checks_unfinished(const struct bn_checks *c, struct bn_report *rep, const char *reason)
{
	char why[240];

	snprintf(why, sizeof(why), "the run ended early: %.*s", bn_utf8_prec(reason, 200), reason);
	error_each(c, rep, why);
}

void bn_checks_free(struct bn_checks *c)
{
	if (!c)
		return;
	for (int i = 0; i < c->n && c->v; i++) {
		free(c->v[i].priv);
		free(c->v[i].worst);
	}
	free(c->v);
	free(c->active);
	free(c->evented);
	free(c);
}
