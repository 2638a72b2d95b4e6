/* The fixture selftest (hil/selftest.h). */
#include "hil/selftest.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "core/time.h"

struct st {
	FILE *out;
	struct bn_selftest_result *res;
};

static void verdict(struct st *s, const char *v, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void verdict(struct st *s, const char *v, const char *fmt, ...)
{
	char line[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (s->out)
		fprintf(s->out, "%-4s  %s\n", v, line);
	if (!strcmp(v, "PASS")) {
		s->res->pass++;
	} else if (!strcmp(v, "FAIL")) {
		if (!s->res->fail++)
			snprintf(s->res->first_fail, sizeof(s->res->first_fail), "%s", line);
	} else if (!strcmp(v, "SKIP")) {
		s->res->skip++;
	} /* NOTE: said, not counted */
}

/* Each input against its expectation; vbus_on is what VBUS_EN is now. */
static int check_inputs(struct st *s, struct bn_fixture *fx, const struct bn_fixture_def *d,
			const char *port, uint32_t state, struct bn_err *err)
{
	unsigned bits = 0;
	int rc;

	if (!d->ninputs || !fx->ops->inputs)
		return BN_OK;
	rc = fx->ops->inputs(fx->priv, &bits, err);
	if (rc < 0)
		return rc;
	for (int i = 0; i < d->ninputs; i++) {
		const struct bn_fx_input *in = &d->inputs[i];
		int got = !!(bits & (1u << i)), want;
		char why[96];

		if (in->follows >= 0) {
			want = !!(state & (1u << in->follows));
			snprintf(why, sizeof(why), "follows %s", d->signals[in->follows].name);
		} else if (in->expect >= 0) {
			want = in->expect;
			snprintf(why, sizeof(why), "always");
		} else {
			continue;
		}
		verdict(s, got == want ? "PASS" : "FAIL", "%s: input %s reads %d, expected %d (%s)",
			port, in->name, got, want, why);
	}
	return BN_OK;
}

static void check_meter(struct st *s, const struct bn_selftest_meter *meter,
			const struct bn_fx_port *p, bool vbus_on)
{
	double v[BN_CH_COUNT];
	struct bn_err e = { 0 };

	if (!p->expect_mask)
		return;
	if (!meter) {
		verdict(s, "SKIP", "%s: network not measured (no capture device in bench.conf)",
			p->name);
		return;
	}
	for (int ch = 0; ch < BN_CH_COUNT; ch++)
		v[ch] = NAN;
	if (meter->measure(meter->user, v, &e) < 0) {
		verdict(s, "FAIL", "%s: measuring: %s", p->name, e.msg);
		return;
	}
	for (int ch = 0; ch < BN_CH_COUNT; ch++) {
		const char *unit = bn_chan_unit((enum bn_chan)ch);

		if (!(p->expect_mask & (1u << ch)))
			continue;
		if (isnan(v[ch])) {
			verdict(s, "SKIP", "%s: %s not captured (capture_map)", p->name,
				bn_chan_label((enum bn_chan)ch));
			continue;
		}
		verdict(s, v[ch] >= p->expect_lo[ch] && v[ch] <= p->expect_hi[ch] ? "PASS" : "FAIL",
			"%s: %s = %.3f %s with VBUS %s, expected %.3f to %.3f %s", p->name,
			bn_chan_label((enum bn_chan)ch), v[ch], unit, vbus_on ? "on" : "off",
			p->expect_lo[ch], p->expect_hi[ch], unit);
	}
}

static bool stopped(volatile const sig_atomic_t *stop)
{
	return stop && *stop;
}

int bn_selftest_run(struct bn_fixture *fx, const struct bn_fixture_def *d,
		    const struct bn_selftest_meter *meter, volatile const sig_atomic_t *stop,
		    FILE *out, struct bn_selftest_result *res, struct bn_err *err)
{
	struct st s = { .out = out, .res = res };
	uint32_t vbus_bit = 1u << d->vbus_signal;
	struct bn_err e2 = { 0 };
	int rc = BN_OK;

	memset(res, 0, sizeof(*res));
	for (int i = 0; rc == BN_OK && i < d->nports; i++) {
		const struct bn_fx_port *p = &d->ports[i];
		bool vbus = bn_fixture_def_legal(d, p->on | vbus_bit, NULL, 0) == BN_OK;
		uint32_t state = p->on;

		if (stopped(stop))
			break;
		rc = fx->ops->connect(fx->priv, p->name, err);
		if (rc < 0)
			break;
		if (vbus) {
			rc = fx->ops->vbus(fx->priv, true, err);
			if (rc < 0)
				break;
			state |= vbus_bit;
		}
		bn_sleep_us((int64_t)d->settle_ms * 1000);
		rc = check_inputs(&s, fx, d, p->name, state, err);
		if (rc < 0)
			break;
		check_meter(&s, meter, p, vbus);
		if (vbus) {
			rc = fx->ops->vbus(fx->priv, false, err);
			if (rc < 0)
				break;
			bn_sleep_us((int64_t)d->settle_ms * 1000);
			rc = check_inputs(&s, fx, d, p->name, p->on, err);
		} else {
			verdict(&s, "NOTE", "%s: VBUS not switched on (the fixture's rules forbid it "
				"with this network)", p->name);
		}
	}
	/* The safe state whatever happened, and its own check. */
	if (fx->ops->safe(fx->priv, rc < 0 ? &e2 : err) < 0) {
		if (rc == BN_OK)
			rc = err->code;
		else if (out) /* the first error is the one returned; this one is said */
			fprintf(out, "FAIL  safe state not reached: %s\n", e2.msg);
	}
	if (rc == BN_OK && !stopped(stop)) {
		bn_sleep_us((int64_t)d->settle_ms * 1000);
		rc = check_inputs(&s, fx, d, "safe state", d->safe, err);
	}
	if (rc == BN_OK && stopped(stop))
		rc = bn_err_set(err, BN_ERR_INTR, "selftest interrupted; the fixture is in its safe state");
	return rc;
}
