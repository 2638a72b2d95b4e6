/* Polled instrument readings as a capture (hil/poll_cap.h). */
#include "hil/poll_cap.h"
#include "core/time.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define PROBE_CYCLES 3

static void describe(char *buf, size_t len, const char *role, const char *name,
		     void (*identity)(void *, char *, size_t), void *priv, const char *what)
{
	char id[160] = "";

	if (identity)
		identity(priv, id, sizeof(id));
	snprintf(buf, len, "%s %s (%s): %s", role, name, id[0] ? id : "no identity", what);
}

/* The grid's period up to one that is both whole 10 ms and a whole number
 * of Hz (the capture file stores an integer samplerate): 10, 20, 40, 50,
 * 100, 200, 250, 500 or 1000 ms. */
static double whole_hz_period(double period_s)
{
	static const int ms[] = { 10, 20, 40, 50, 100, 200, 250, 500, 1000 };

	for (size_t i = 0; i < sizeof(ms) / sizeof(ms[0]); i++)
		if (ms[i] * 1e-3 >= period_s - 1e-9)
			return ms[i] * 1e-3;
	return 1.0;
}

int bn_poll_cap_open(struct bn_poll_cap *p, struct bn_supply *sp, struct bn_load *ld,
		     double max_rate_hz, struct bn_err *err)
{
	struct bn_sample s;
	double min_period_s = 1.0 / (max_rate_hz > 0 ? max_rate_hz : BN_POLL_MAX_RATE_HZ);

	memset(p, 0, sizeof(*p));
	p->sp = sp && sp->ops && sp->ops->measure ? sp : NULL;
	p->ld = ld && ld->ops && ld->ops->measure ? ld : NULL;
	if (!p->sp && !p->ld)
		return bn_err_set(err, BN_ERR_ARG, "no instrument on this bench can measure a channel");
	if (p->sp) {
		p->channels = (1u << BN_CH_VBUS) | (1u << BN_CH_IBUS);
		describe(p->src[BN_CH_VBUS], BN_POLL_SRC_LEN, "supply", sp->ops->name,
			 sp->ops->identity, sp->priv, "its output voltage reading");
		describe(p->src[BN_CH_IBUS], BN_POLL_SRC_LEN, "supply", sp->ops->name,
			 sp->ops->identity, sp->priv,
			 p->ld ? "its output current reading, less the load's current reading "
				 "while the load's input is on"
			       : "its output current reading");
	} else {
		p->channels = 1u << BN_CH_VBUS;
		describe(p->src[BN_CH_VBUS], BN_POLL_SRC_LEN, "load", ld->ops->name,
			 ld->ops->identity, ld->priv, "its input voltage reading");
	}
	p->period_s = 1.0; /* until probed */
	for (int i = 0; i < PROBE_CYCLES; i++) {
		double t0 = bn_mono_s(), d;
		int rc = bn_poll_cap_read(p, &s, err);

		if (rc < 0)
			return rc;
		d = bn_mono_s() - t0;
		if (d > p->cycle_s)
			p->cycle_s = d;
	}
	p->period_s = ceil(p->cycle_s * 1.5 / 0.01) * 0.01;
	if (p->period_s < min_period_s)
		p->period_s = min_period_s;
	if (p->period_s > 1.0)
		p->period_s = 1.0;
	p->period_s = whole_hz_period(p->period_s);
	p->polls = p->late_polls = 0;
	p->max_cycle_s = 0;
	return BN_OK;
}

int bn_poll_cap_read(struct bn_poll_cap *p, struct bn_sample *s, struct bn_err *err)
{
	double sv = NAN, si = NAN, lv = NAN, li = NAN, t0 = bn_mono_s(), d;
	int rc = BN_OK;

	for (int ch = 0; ch < BN_CH_COUNT; ch++)
		s->v[ch] = NAN;
	if (p->sp)
		rc = p->sp->ops->measure(p->sp->priv, &sv, &si, err);
	if (rc == BN_OK && p->ld && (!p->sp || p->load_on))
		rc = p->ld->ops->measure(p->ld->priv, &lv, &li, err);
	if (rc < 0)
		return rc;
	if (p->sp) {
		s->v[BN_CH_VBUS] = sv;
		s->v[BN_CH_IBUS] = p->ld && p->load_on ? si - li : si;
	} else {
		s->v[BN_CH_VBUS] = lv;
	}
	d = bn_mono_s() - t0;
	if (d > p->max_cycle_s)
		p->max_cycle_s = d;
	p->polls++;
	return BN_OK;
}
