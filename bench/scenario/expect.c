#include "scenario/expect.h"
#include "core/text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bn_time_us bn_scenario_longest_window(const struct bn_scenario *s)
{
	bn_time_us longest = 0;

	for (int i = 0; i < s->n_steps; i++)
		if (s->steps[i].kind == BN_STEP_EXPECT && s->steps[i].expect.kind == BN_EXPECT_STAT &&
		    s->steps[i].expect.window_us > longest)
			longest = s->steps[i].expect.window_us;
	return longest;
}

int bn_ring_init(struct bn_sample_ring *w, bn_time_us longest_us, double rate_hz)
{
	memset(w, 0, sizeof(*w));
	w->cap = (long)ceil(bn_time_to_s(longest_us) * rate_hz) + 2;
	for (int ch = 0; ch < BN_CH_COUNT; ch++) {
		w->v[ch] = calloc((size_t)w->cap, sizeof(double));
		if (!w->v[ch])
			return BN_ERR_NOMEM;
	}
	return BN_OK;
}

void bn_ring_push(struct bn_sample_ring *w, const struct bn_sample *s)
{
	for (int ch = 0; ch < BN_CH_COUNT; ch++)
		w->v[ch][w->head] = s->v[ch];
	w->head = (w->head + 1) % w->cap;
	if (w->n < w->cap)
		w->n++;
}

void bn_ring_free(struct bn_sample_ring *w)
{
	for (int ch = 0; ch < BN_CH_COUNT; ch++)
		free(w->v[ch]);
	memset(w, 0, sizeof(*w));
}

void bn_expect_result_init(struct bn_result *r, int line, const char *text)
{
	snprintf(r->id, sizeof(r->id), "expect.L%d", line);
	snprintf(r->kind, sizeof(r->kind), "expect");
	snprintf(r->text, sizeof(r->text), "%s", text);
	r->line = line;
}

static bool compare(double a, enum bn_cmp_op op, double b)
{
	switch (op) {
	case BN_OP_EQ: return a == b;
	case BN_OP_NE: return a != b;
	case BN_OP_LT: return a < b;
	case BN_OP_LE: return a <= b;
	case BN_OP_GT: return a > b;
	case BN_OP_GE: return a >= b;
	}
	return false;
}

static void set_limit(struct bn_result *r, const struct bn_expect *ex, double v, const char *unit)
{
	snprintf(r->limit, sizeof(r->limit), "%s %g%s%s", bn_cmp_op_str(ex->op), v, unit[0] ? " " : "",
		 unit);
	if (ex->op == BN_OP_GE || ex->op == BN_OP_GT) {
		r->limit_min = v;
		r->has_margin = true;
		r->margin = r->measured - v;
	} else if (ex->op == BN_OP_LE || ex->op == BN_OP_LT) {
		r->limit_max = v;
		r->has_margin = true;
		r->margin = v - r->measured;
	} else {
		r->limit_min = r->limit_max = v;
	}
}

void bn_expect_judge_stat(const struct bn_expect *ex, const struct bn_sample_ring *w,
			  double rate_hz, bool captured, bn_time_us now, struct bn_result *r)
{
	long n = (long)llround(bn_time_to_s(ex->window_us) * rate_hz);
	double acc = 0.0;

	if (n < 1)
		n = 1;
	snprintf(r->unit, sizeof(r->unit), "%s", bn_chan_unit(ex->chan));
	r->t0_us = now - ex->window_us;
	r->t1_us = now;
	if (!captured) {
		r->verdict = BN_VERDICT_INCONCLUSIVE;
		snprintf(r->reason, sizeof(r->reason), "channel %s is not captured",
			 bn_chan_name(ex->chan));
		return;
	}
	if (n > w->n) {
		r->verdict = BN_VERDICT_INCONCLUSIVE;
		snprintf(r->reason, sizeof(r->reason),
			 "window of %ld samples but only %ld captured so far", n, w->n);
		return;
	}
	for (long i = 0; i < n; i++) {
		double x = w->v[ex->chan][(w->head - 1 - i + w->cap) % w->cap];

		if (i == 0 || ex->stat == BN_STAT_AVG)
			acc = ex->stat == BN_STAT_AVG ? acc + x : x;
		else if (ex->stat == BN_STAT_MIN)
			acc = fmin(acc, x);
		else
			acc = fmax(acc, x);
	}
	if (ex->stat == BN_STAT_AVG)
		acc /= (double)n;
	r->has_measured = true;
	r->measured = acc;
	set_limit(r, ex, ex->value, r->unit);
	r->verdict = compare(acc, ex->op, ex->value) ? BN_VERDICT_PASS : BN_VERDICT_FAIL;
}

/* Telemetry keys carry their unit in the name (ilim_ma, vbus_mv). */
static double key_scale(const char *key, enum bn_dim *dim)
{
	size_t n = strlen(key);

	if (n > 3 && !strcmp(key + n - 3, "_ma")) {
		*dim = BN_DIM_A;
		return 1e-3;
	}
	if (n > 3 && !strcmp(key + n - 3, "_mv")) {
		*dim = BN_DIM_V;
		return 1e-3;
	}
	*dim = BN_DIM_NONE;
	return 1.0;
}

const char *const *bn_telemetry_keys(int *n)
{
	static const char *const keys[] = {
		/* the reference firmware */
		"backoffs", "bus", "config", "dbp", "dcd", "ilim_ma", "peripheral", "port", "ramp",
		"state", "trip_ceiling_ma",
		/* the probe */
		"primary", "vdm_off_us", "vdm_on_us",
		/* a real device's console */
		"bat_ma", "bat_mv", "max_power_ma", "soc_pct", "vbus_mv",
	};

	*n = (int)(sizeof(keys) / sizeof(keys[0]));
	return keys;
}

enum bn_dim bn_expect_key_dim(const char *key)
{
	enum bn_dim d;

	key_scale(key, &d);
	return d;
}

void bn_expect_judge_value(const struct bn_expect *ex, const char *val, const char *where_suffix,
			   bn_time_us now, struct bn_result *r)
{
	enum bn_dim kdim;
	double scale = key_scale(ex->key, &kdim), x, want;
	char *end;

	r->t0_us = r->t1_us = now;
	if (!val) {
		r->verdict = BN_VERDICT_FAIL;
		bn_str_fmt(r->reason, sizeof(r->reason), "the device never reported \"%s\"%s", ex->key,
			 where_suffix ? where_suffix : "");
		return;
	}
	bn_str_copy(r->measured_str, sizeof(r->measured_str), val);
	if (ex->is_word) {
		bool eq = !strcmp(val, ex->word);

		snprintf(r->limit, sizeof(r->limit), "%s %s", bn_cmp_op_str(ex->op), ex->word);
		if (ex->op != BN_OP_EQ && ex->op != BN_OP_NE) {
			r->verdict = BN_VERDICT_ERROR;
			snprintf(r->reason, sizeof(r->reason), "operator %s needs a number",
				 bn_cmp_op_str(ex->op));
			return;
		}
		r->verdict = (ex->op == BN_OP_EQ) == eq ? BN_VERDICT_PASS : BN_VERDICT_FAIL;
		return;
	}
	x = strtod(val, &end);
	if (end == val || *end) {
		r->verdict = BN_VERDICT_FAIL;
		bn_str_fmt(r->reason, sizeof(r->reason), "\"%s\" is \"%s\", not a number", ex->key, val);
		return;
	}
	want = ex->value;
	if (ex->dim != BN_DIM_NONE) {
		if (ex->dim != kdim) {
			r->verdict = BN_VERDICT_ERROR;
			bn_str_fmt(r->reason, sizeof(r->reason), "\"%s\" is not %s", ex->key,
				 bn_dim_name(ex->dim));
			return;
		}
		x *= scale;
		snprintf(r->unit, sizeof(r->unit), "%s", bn_dim_unit(kdim));
	}
	r->measured_str[0] = '\0';
	r->has_measured = true;
	r->measured = x;
	set_limit(r, ex, want, r->unit);
	r->verdict = compare(x, ex->op, want) ? BN_VERDICT_PASS : BN_VERDICT_FAIL;
}
