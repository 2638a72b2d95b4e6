/* The datafeed side of a libsigrok capture (see sigrok_feed.h).
 *
 * Every analog packet is one channel. Its samples go to a pending buffer
 * per mapped bench channel (with each reading's arrival time, for a polled
 * device); whenever every mapped channel has sample k, frame k is built
 * and queued. Within a scope frame the index restarts at 0; at the frame's
 * end the samples of channels that ran past the shortest are dropped
 * (counted): a frame is never joined to the next.
 *
 * Threads: begin() runs before the session starts and after its thread
 * was joined; packets come in the session's thread. The queue, the timing,
 * the channel records and the error are shared with the reader under the
 * lock; the time of the last packet is an atomic (read by the stall check
 * without the lock). */
#define BN_LOG_MODULE "sigrok"
#include "hil/sigrok_feed.h"

#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <glib.h>
#include <libsigrok/libsigrok.h>

#include "core/log.h"

/* A channel this many samples ahead of the slowest one means the slowest
 * delivers nothing: alignment is impossible, the capture fails. */
#define FEED_PENDING_MAX (1 << 22)

struct feed_chan {
	struct sr_channel *sc; /* NULL: not mapped */
	float *v;              /* pending samples */
	int64_t *t;            /* polled: each pending reading's arrival, us */
	size_t n, cap, tcap;
	int64_t got;           /* samples received this acquisition */
};

struct bn_sigrok_feed {
	/* Set by new, read-only afterwards. */
	char driver[64];
	struct bn_chanmap map;
	size_t ring_cap;
	bn_time_us stall_us;
	int64_t (*now_us)(void *user);
	void *now_user;
	bool polled;

	/* The packets' thread (the caller's between acquisitions). */
	struct feed_chan ch[BN_CH_COUNT];
	float *scratch;
	size_t scratch_cap;
	bool probe;
	bool failed;         /* stop aligning */
	bool framed;         /* the device sends scope frames (kept across
			      * acquisitions: it is the device's way) */
	bool in_frame;
	bool gap_next;       /* the next frame queued starts a scope frame */
	double rate_hz;      /* as the device runs now */
	double next_rate_hz; /* a scope's new rate, from its next frame on */
	/* A stream whose start was lost before its first packet (that packet
	 * came later than its own span after the start: libsigrok 0.5.2's
	 * hantek-6xxx gives the first transfer of an acquisition that follows
	 * another to the earlier one's pending transfer): its frames are
	 * dated back from that packet's arrival, approximately. */
	bool anchored;
	bn_time_us k_off_us;
	/* Until frozen (bn_sigrok_feed_freeze_clock: the run begins), each
	 * later packet bounds the offset too (its last sample was taken
	 * before it arrived): the smallest bound is kept, so the dating is
	 * late only by the quickest packet's delivery. */
	atomic_bool clock_frozen;
	int64_t k;           /* frames aligned in the stream, or in the scope
			      * frame */
	bn_time_us frame_t0; /* the scope frame's start */
	bn_time_us last_t;   /* the last aligned frame's time; -1: none */
	int64_t t0_us;       /* the host's clock at begin */

	/* Shared, under lock. */
	pthread_mutex_t lock;
	struct bn_cap_frame *ring;
	size_t head, n;
	struct bn_sigrok_timing tm;
	struct bn_sigrok_chan_info info[BN_CH_COUNT];
	bool seen[BN_CH_COUNT]; /* reported in this acquisition */
	struct bn_err err;
	bool running;           /* begun, not stopping, not ended */

	_Atomic int64_t last_packet_us;
};

static int64_t mono_us(void *user)
{
	struct timespec ts;

	(void)user;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static int64_t now_us(const struct bn_sigrok_feed *f)
{
	return f->now_us(f->now_user);
}

/* ---- names of what libsigrok reports ---- */

struct code_name {
	uint64_t code;
	const char *name;
};

static const struct code_name mq_names[] = {
	{ SR_MQ_VOLTAGE, "voltage" },
	{ SR_MQ_CURRENT, "current" },
	{ SR_MQ_RESISTANCE, "resistance" },
	{ SR_MQ_CAPACITANCE, "capacitance" },
	{ SR_MQ_TEMPERATURE, "temperature" },
	{ SR_MQ_FREQUENCY, "frequency" },
	{ SR_MQ_DUTY_CYCLE, "duty cycle" },
	{ SR_MQ_CONTINUITY, "continuity" },
	{ SR_MQ_PULSE_WIDTH, "pulse width" },
	{ SR_MQ_CONDUCTANCE, "conductance" },
	{ SR_MQ_POWER, "power" },
	{ SR_MQ_GAIN, "gain" },
	{ SR_MQ_TIME, "time" },
	{ SR_MQ_PHASE_ANGLE, "phase angle" },
	{ SR_MQ_DIFFERENCE, "difference" },
	{ SR_MQ_COUNT, "count" },
	{ SR_MQ_POWER_FACTOR, "power factor" },
	{ SR_MQ_APPARENT_POWER, "apparent power" },
};

static const struct code_name unit_names[] = {
	{ SR_UNIT_VOLT, "V" },
	{ SR_UNIT_AMPERE, "A" },
	{ SR_UNIT_OHM, "ohm" },
	{ SR_UNIT_FARAD, "F" },
	{ SR_UNIT_KELVIN, "K" },
	{ SR_UNIT_CELSIUS, "degC" },
	{ SR_UNIT_FAHRENHEIT, "degF" },
	{ SR_UNIT_HERTZ, "Hz" },
	{ SR_UNIT_PERCENTAGE, "%" },
	{ SR_UNIT_BOOLEAN, "boolean" },
	{ SR_UNIT_SECOND, "s" },
	{ SR_UNIT_SIEMENS, "S" },
	{ SR_UNIT_DECIBEL_MW, "dBm" },
	{ SR_UNIT_DECIBEL_VOLT, "dBV" },
	{ SR_UNIT_UNITLESS, "(unitless)" },
	{ SR_UNIT_VOLT_AMPERE, "VA" },
	{ SR_UNIT_WATT, "W" },
	{ SR_UNIT_WATT_HOUR, "Wh" },
	{ SR_UNIT_DEGREE, "deg" },
	{ SR_UNIT_HENRY, "H" },
};

static const struct code_name flag_names[] = {
	{ SR_MQFLAG_AC, "AC" },
	{ SR_MQFLAG_DC, "DC" },
	{ SR_MQFLAG_RMS, "RMS" },
	{ SR_MQFLAG_DIODE, "diode" },
	{ SR_MQFLAG_HOLD, "hold" },
	{ SR_MQFLAG_MAX, "max" },
	{ SR_MQFLAG_MIN, "min" },
	{ SR_MQFLAG_AUTORANGE, "autorange" },
	{ SR_MQFLAG_RELATIVE, "relative" },
	{ SR_MQFLAG_DURATION, "duration" },
	{ SR_MQFLAG_AVG, "average" },
	{ SR_MQFLAG_REFERENCE, "reference" },
	{ SR_MQFLAG_UNSTABLE, "unstable" },
	{ SR_MQFLAG_FOUR_WIRE, "4-wire" },
};

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static void code_name(const struct code_name *t, size_t n, uint64_t code, const char *what,
		      char *buf, size_t len)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].code == code) {
			snprintf(buf, len, "%s", t[i].name);
			return;
		}
	snprintf(buf, len, "%s %" PRIu64, what, code);
}

static void flags_text(uint64_t flags, char *buf, size_t len)
{
	size_t at = 0;
	uint64_t known = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < N_OF(flag_names) && at < len; i++) {
		known |= flag_names[i].code;
		if (flags & flag_names[i].code)
			at += (size_t)snprintf(buf + at, len - at, "%s%s", at ? " " : "",
					       flag_names[i].name);
	}
	if ((flags & ~known) && at < len)
		snprintf(buf + at, len - at, "%sflags 0x%" PRIx64, at ? " " : "", flags & ~known);
}

/* "voltage in V (DC)" */
static void meaning_text(int mq, int unit, uint64_t flags, char *buf, size_t len)
{
	char m[32], u[16], fl[64];

	code_name(mq_names, N_OF(mq_names), (uint64_t)mq, "quantity", m, sizeof(m));
	code_name(unit_names, N_OF(unit_names), (uint64_t)unit, "unit", u, sizeof(u));
	flags_text(flags, fl, sizeof(fl));
	snprintf(buf, len, "%s in %s%s%s%s", m, u, fl[0] ? " (" : "", fl, fl[0] ? ")" : "");
}

/* ---- the map against what the device reports ---- */

/* true when channel ch's report fits the map; else why not, in why. */
static bool meaning_fits(const struct bn_sigrok_feed *f, int ch, const char *dev_chan, int mq,
			 int unit, uint64_t flags, char *why, size_t len)
{
	const struct bn_chanmap_entry *e = &f->map.e[ch];
	bool want_current = bn_chanmap_source_is_current(&f->map, ch);
	int want_mq = want_current ? SR_MQ_CURRENT : SR_MQ_VOLTAGE;
	int want_unit = want_current ? SR_UNIT_AMPERE : SR_UNIT_VOLT;
	const char *label = bn_chan_label(ch);
	char got[128];

	meaning_text(mq, unit, flags, got, sizeof(got));
	if (mq == want_mq && unit == want_unit) {
		if (flags & SR_MQFLAG_AC) {
			snprintf(why, len,
				 "%s=%s: the device measures %s as %s: the bench needs DC levels: expected the channel in DC mode",
				 label, dev_chan, dev_chan, got);
			return false;
		}
		/* libsigrok reports V and A, never mV or mA. */
		if (e->unit_set && strcmp(e->unit, want_current ? "A" : "V") != 0) {
			snprintf(why, len,
				 "%s=%s:unit=%s: the device reports %s as %s, not in %s: expected unit=%s or no unit=",
				 label, dev_chan, e->unit, dev_chan, got, e->unit,
				 want_current ? "A" : "V");
			return false;
		}
		return true;
	}
	if (ch == BN_CH_IBUS && want_current && mq == SR_MQ_VOLTAGE && unit == SR_UNIT_VOLT) {
		double per_a = e->scale * e->to_si;

		if (e->scale != 1.0 || e->unit_set) {
			char opts[64] = "";

			if (e->scale != 1.0)
				snprintf(opts, sizeof(opts), "scale=%g", e->scale);
			if (e->unit_set)
				snprintf(opts + strlen(opts), sizeof(opts) - strlen(opts),
					 "%sunit=%s", opts[0] ? ":" : "", e->unit);
			snprintf(why, len,
				 "IBUS=%s: the device reports %s as %s, and %s reads volts as amperes: "
				 "expected a current channel, or the shunt the voltage is across: IBUS=%s:shunt=%g (ohms) says the same",
				 dev_chan, dev_chan, got, opts, dev_chan, per_a > 0 ? 1.0 / per_a : 0.1);
		} else
			snprintf(why, len,
				 "IBUS=%s: the device reports %s as %s, and IBUS is a current: expected a current channel, "
				 "or IBUS=%s:shunt=OHMS if %s measures the voltage across a shunt (e.g. shunt=0.1 for 0.1 ohm)",
				 dev_chan, dev_chan, got, dev_chan, dev_chan);
		return false;
	}
	if (ch == BN_CH_IBUS && !want_current && mq == SR_MQ_CURRENT) {
		snprintf(why, len,
			 "IBUS=%s:shunt=%g: the device reports %s as %s, but shunt= says it measures a voltage: expected IBUS=%s without shunt=",
			 dev_chan, e->shunt_ohm, dev_chan, got, dev_chan);
		return false;
	}
	snprintf(why, len, "%s=%s: the device reports %s as %s: %s%s is %s, expected a channel measuring %s in %s",
		 label, dev_chan, dev_chan, got, label, ch == BN_CH_IBUS ? " (across its shunt)" : "",
		 want_current ? "a current" : "a voltage", want_current ? "current" : "voltage",
		 want_current ? "A" : "V");
	return false;
}

/* ---- errors ---- */

static void set_err(struct bn_sigrok_feed *f, int code, const char *msg)
{
	pthread_mutex_lock(&f->lock);
	bn_err_set(&f->err, code, "%s", msg);
	pthread_mutex_unlock(&f->lock);
}

void bn_sigrok_feed_fail(struct bn_sigrok_feed *f, int code, const char *fmt, ...)
{
	char msg[BN_ERR_MSG_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	set_err(f, code, msg);
}

/* From the packets' thread: also stops the alignment. */
static void fail(struct bn_sigrok_feed *f, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void fail(struct bn_sigrok_feed *f, int code, const char *fmt, ...)
{
	char msg[BN_ERR_MSG_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	f->failed = true;
	set_err(f, code, msg);
}

/* ---- life ---- */

int bn_sigrok_feed_new(const struct bn_sigrok_feed_cfg *cfg, struct bn_sigrok_feed **out,
		       struct bn_err *err)
{
	struct bn_sigrok_feed *f;

	*out = NULL;
	f = calloc(1, sizeof(*f));
	if (!f)
		return bn_err_set(err, BN_ERR_NOMEM, "sigrok %s: out of memory", cfg->driver);
	snprintf(f->driver, sizeof(f->driver), "%s", cfg->driver ? cfg->driver : "?");
	f->map = *cfg->map;
	f->ring_cap = cfg->queue_frames ? cfg->queue_frames : 1;
	f->stall_us = cfg->stall_us;
	f->now_us = cfg->now_us ? cfg->now_us : mono_us;
	f->now_user = cfg->now_user;
	f->polled = !(cfg->rate_hz > 0);
	f->rate_hz = f->polled ? 0.0 : cfg->rate_hz;
	f->last_t = -1;
	pthread_mutex_init(&f->lock, NULL);
	f->ring = malloc(f->ring_cap * sizeof(*f->ring));
	if (!f->ring) {
		bn_sigrok_feed_free(f);
		return bn_err_set(err, BN_ERR_NOMEM, "sigrok %s: out of memory for a %zu-frame queue",
				  cfg->driver, cfg->queue_frames);
	}
	for (int ch = 0; ch < BN_CH_COUNT; ch++) {
		struct bn_sigrok_chan_info *in = &f->info[ch];
		const struct bn_chanmap_entry *e = &f->map.e[ch];

		f->ch[ch].sc = cfg->chan[ch];
		if (!cfg->chan[ch])
			continue;
		in->mapped = true;
		snprintf(in->dev_chan, sizeof(in->dev_chan), "%s", cfg->chan[ch]->name);
		in->scale = e->scale;
		in->shunt_ohm = e->shunt_ohm;
		snprintf(in->map_unit, sizeof(in->map_unit), "%s", e->unit);
		/* The group a channel belongs to names it on a scope ("CH1")
		 * or a supply's output ("1"). */
		for (GSList *g = cfg->chan[ch]->sdi
					 ? sr_dev_inst_channel_groups_get(cfg->chan[ch]->sdi)
					 : NULL;
		     g; g = g->next) {
			struct sr_channel_group *cg = g->data;

			if (g_slist_find(cg->channels, cfg->chan[ch]) && cg->name) {
				snprintf(in->dev_group, sizeof(in->dev_group), "%s", cg->name);
				break;
			}
		}
	}
	f->tm.clock = f->polled ? BN_SIGROK_CLOCK_POLLED : BN_SIGROK_CLOCK_RATE;
	f->tm.rate_hz = f->rate_hz;
	f->tm.first_us = f->tm.last_us = -1;
	*out = f;
	return BN_OK;
}

void bn_sigrok_feed_free(struct bn_sigrok_feed *f)
{
	if (!f)
		return;
	for (int ch = 0; ch < BN_CH_COUNT; ch++) {
		free(f->ch[ch].v);
		free(f->ch[ch].t);
	}
	free(f->scratch);
	free(f->ring);
	pthread_mutex_destroy(&f->lock);
	free(f);
}

static int first_mapped(const struct bn_sigrok_feed *f)
{
	int ch = 0;

	while (ch < BN_CH_COUNT - 1 && !f->ch[ch].sc)
		ch++;
	return ch;
}

void bn_sigrok_feed_freeze_clock(struct bn_sigrok_feed *f)
{
	atomic_store(&f->clock_frozen, true);
}

void bn_sigrok_feed_begin(struct bn_sigrok_feed *f, bool probe)
{
	f->probe = probe;
	f->failed = false;
	f->in_frame = false;
	f->gap_next = false;
	f->k = 0;
	f->anchored = false;
	f->k_off_us = 0;
	atomic_store(&f->clock_frozen, false);
	f->last_t = -1;
	if (f->next_rate_hz > 0)
		f->rate_hz = f->next_rate_hz;
	f->next_rate_hz = 0;
	for (int ch = 0; ch < BN_CH_COUNT; ch++)
		f->ch[ch].n = f->ch[ch].got = 0;
	f->t0_us = now_us(f);
	atomic_store(&f->last_packet_us, f->t0_us);
	pthread_mutex_lock(&f->lock);
	f->head = f->n = 0;
	bn_err_clear(&f->err);
	memset(f->seen, 0, sizeof(f->seen));
	f->tm = (struct bn_sigrok_timing){
		.clock = f->polled ? BN_SIGROK_CLOCK_POLLED
			 : f->framed ? BN_SIGROK_CLOCK_FRAMES
				     : BN_SIGROK_CLOCK_RATE,
		.start_mono_us = f->t0_us,
		.rate_hz = f->rate_hz,
		.first_us = -1,
		.last_us = -1,
	};
	f->running = true;
	pthread_mutex_unlock(&f->lock);
}

void bn_sigrok_feed_stopping(struct bn_sigrok_feed *f)
{
	pthread_mutex_lock(&f->lock);
	f->running = false;
	pthread_mutex_unlock(&f->lock);
}

/* ---- alignment ---- */

static bool grow(void **buf, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap ? *cap : 4096;
	void *p;

	if (need <= *cap)
		return true;
	while (n < need)
		n *= 2;
	p = realloc(*buf, n * size);
	if (!p)
		return false;
	*buf = p;
	*cap = n;
	return true;
}

/* Queue every frame all mapped channels have samples for. */
static void align(struct bn_sigrok_feed *f)
{
	size_t m = SIZE_MAX;

	for (int ch = 0; ch < BN_CH_COUNT; ch++)
		if (f->ch[ch].sc && f->ch[ch].n < m)
			m = f->ch[ch].n;
	if (m == 0 || m == SIZE_MAX)
		return;
	pthread_mutex_lock(&f->lock);
	for (size_t i = 0; i < m; i++) {
		struct bn_cap_frame fr = { .t_us = 0 };

		if (f->polled) {
			int64_t lo = INT64_MAX, hi = INT64_MIN;

			for (int ch = 0; ch < BN_CH_COUNT; ch++) {
				if (!f->ch[ch].sc)
					continue;
				lo = f->ch[ch].t[i] < lo ? f->ch[ch].t[i] : lo;
				hi = f->ch[ch].t[i] > hi ? f->ch[ch].t[i] : hi;
			}
			fr.t_us = lo;
			fr.t_approx = true;
			if (hi - lo > f->tm.max_skew_us)
				f->tm.max_skew_us = hi - lo;
		} else if (f->framed) {
			fr.t_us = f->frame_t0 + bn_tick_time(f->k++, f->rate_hz);
			fr.t_approx = true;
			fr.gap_before = f->gap_next;
			f->gap_next = false;
		} else {
			fr.t_us = f->k_off_us + bn_tick_time(f->k++, f->rate_hz);
			fr.t_approx = f->k_off_us > 0;
		}
		/* Time only goes forward, even when the host's clock stamps two
		 * readings alike. */
		if (f->last_t >= 0 && fr.t_us <= f->last_t)
			fr.t_us = f->last_t + 1;
		for (int ch = 0; ch < BN_CH_COUNT; ch++)
			fr.s.v[ch] = f->ch[ch].sc ? bn_chanmap_apply(&f->map, ch, f->ch[ch].v[i])
						  : NAN;
		if (f->err.code != BN_OK)
			break; /* nothing after a failure */
		if (f->n < f->ring_cap) {
			size_t slot = f->head + f->n;

			f->ring[slot >= f->ring_cap ? slot - f->ring_cap : slot] = fr;
			f->n++;
		} else {
			f->tm.dropped++;
		}
		if (f->last_t >= 0 && fr.t_us - f->last_t > f->tm.max_interval_us)
			f->tm.max_interval_us = fr.t_us - f->last_t;
		if (f->tm.first_us < 0)
			f->tm.first_us = fr.t_us;
		f->tm.last_us = fr.t_us;
		f->tm.frames++;
		f->last_t = fr.t_us;
	}
	if (f->tm.frames > 1 && f->tm.last_us > f->tm.first_us)
		f->tm.mean_rate_hz = (double)(f->tm.frames - 1) * 1e6 /
				     (double)(f->tm.last_us - f->tm.first_us);
	pthread_mutex_unlock(&f->lock);
	for (int ch = 0; ch < BN_CH_COUNT; ch++) {
		struct feed_chan *c = &f->ch[ch];

		if (!c->sc)
			continue;
		c->n -= m;
		memmove(c->v, c->v + m, c->n * sizeof(*c->v));
		if (f->polled)
			memmove(c->t, c->t + m, c->n * sizeof(*c->t));
	}
}

/* A scope frame ends: what ran past the shortest channel cannot be
 * aligned with anything and goes. */
static void frame_end(struct bn_sigrok_feed *f)
{
	int64_t trimmed = 0;

	for (int ch = 0; ch < BN_CH_COUNT; ch++) {
		trimmed += (int64_t)f->ch[ch].n;
		f->ch[ch].n = 0;
	}
	f->in_frame = false;
	if (!trimmed)
		return;
	bn_dbg("%s: %" PRId64 " samples past the shortest channel dropped at a frame's end",
	       f->driver, trimmed);
	pthread_mutex_lock(&f->lock);
	f->tm.trimmed += trimmed;
	pthread_mutex_unlock(&f->lock);
}

static void frame_begin(struct bn_sigrok_feed *f)
{
	bn_time_us t = now_us(f) - f->t0_us;

	if (f->in_frame)
		frame_end(f); /* a BEGIN without an END: the last one is over */
	if (f->next_rate_hz > 0) {
		f->rate_hz = f->next_rate_hz;
		f->next_rate_hz = 0;
	}
	/* Strictly after the previous frame's last sample: the host saw this
	 * frame begin after that one ended. */
	if (f->last_t >= 0 && t <= f->last_t)
		t = f->last_t + 1;
	f->frame_t0 = t;
	f->k = 0;
	f->gap_next = true;
	f->in_frame = true;
	pthread_mutex_lock(&f->lock);
	f->tm.scope_frames++;
	f->tm.rate_hz = f->rate_hz;
	pthread_mutex_unlock(&f->lock);
}

/* ---- packets ---- */

/* Record what channel ch says it measures; false: it does not fit the map
 * (the acquisition failed). */
static bool note_meaning(struct bn_sigrok_feed *f, int ch, const struct sr_analog_meaning *mn)
{
	struct bn_sigrok_chan_info *in = &f->info[ch];
	uint64_t flags = (uint64_t)mn->mqflags;
	bool change, fits;
	char why[BN_ERR_MSG_LEN - 96], was[128] = "", now[128];

	/* The packets' thread is the only writer of info: reading it here
	 * needs no lock. */
	if (in->reported && in->mq == (int)mn->mq && in->unit == (int)mn->unit &&
	    in->mqflags == flags) {
		if (!f->seen[ch]) {
			pthread_mutex_lock(&f->lock);
			f->seen[ch] = true;
			pthread_mutex_unlock(&f->lock);
		}
		return true;
	}
	change = in->reported;
	if (change)
		meaning_text(in->mq, in->unit, in->mqflags, was, sizeof(was));
	meaning_text((int)mn->mq, (int)mn->unit, flags, now, sizeof(now));
	fits = meaning_fits(f, ch, in->dev_chan, (int)mn->mq, (int)mn->unit, flags, why,
			    sizeof(why));
	pthread_mutex_lock(&f->lock);
	in->reported = true;
	in->mq = (int)mn->mq;
	in->unit = (int)mn->unit;
	in->mqflags = flags;
	code_name(mq_names, N_OF(mq_names), (uint64_t)in->mq, "quantity", in->mq_name,
		  sizeof(in->mq_name));
	code_name(unit_names, N_OF(unit_names), (uint64_t)in->unit, "unit", in->unit_name,
		  sizeof(in->unit_name));
	flags_text(flags, in->flags_text, sizeof(in->flags_text));
	in->changes += change;
	f->seen[ch] = true;
	pthread_mutex_unlock(&f->lock);
	if (change)
		bn_info("%s: %s (%s) now reports %s (was %s)", f->driver, in->dev_chan,
			bn_chan_label(ch), now, was);
	else
		bn_dbg("%s: %s (%s) reports %s", f->driver, in->dev_chan, bn_chan_label(ch), now);
	if (fits)
		return true;
	if (change && !f->probe)
		fail(f, BN_ERR_FAULT, "sigrok %s: %s (%s) changed from %s to %s while acquiring: %s",
		     f->driver, in->dev_chan, bn_chan_label(ch), was, now, why);
	else
		fail(f, BN_ERR_ARG, "sigrok %s: %s", f->driver, why);
	return false;
}

static void on_analog(struct bn_sigrok_feed *f, const struct sr_datafeed_analog *a)
{
	struct sr_channel *sc;
	size_t n = a->num_samples;
	int ch, ret;
	int64_t t;

	if (!a->meaning || !a->meaning->channels)
		return;
	if (a->meaning->channels->next) {
		fail(f, BN_ERR_NA,
		     "sigrok %s: an analog packet covers %u channels: expected one channel per packet",
		     f->driver, g_slist_length(a->meaning->channels));
		return;
	}
	sc = a->meaning->channels->data;
	for (ch = 0; ch < BN_CH_COUNT && f->ch[ch].sc != sc; ch++)
		;
	if (ch == BN_CH_COUNT)
		return; /* a channel the map does not use */
	if (!note_meaning(f, ch, a->meaning) || f->probe || n == 0)
		return;
	if (!grow((void **)&f->scratch, &f->scratch_cap, n, sizeof(float))) {
		fail(f, BN_ERR_NOMEM, "sigrok %s: out of memory converting %zu samples", f->driver, n);
		return;
	}
	ret = sr_analog_to_float(a, f->scratch);
	if (ret != SR_OK) {
		fail(f, BN_ERR_DATA,
		     "sigrok %s: channel %s: cannot convert a packet to float (%s): expected a numeric encoding",
		     f->driver, sc->name, sr_strerror(ret));
		return;
	}
	if (f->framed && !f->polled && !f->in_frame)
		frame_begin(f); /* data outside a frame: a frame of its own */
	{
		struct feed_chan *c = &f->ch[ch];

		if (c->n + n > FEED_PENDING_MAX) {
			int slow = ch;

			for (int o = 0; o < BN_CH_COUNT; o++)
				if (f->ch[o].sc && f->ch[o].n < f->ch[slow].n)
					slow = o;
			fail(f, BN_ERR_FAULT,
			     "sigrok %s: channel %s (%s) is %zu samples ahead of %s (%s): expected every mapped channel to deliver data",
			     f->driver, sc->name, bn_chan_label(ch), c->n + n, f->ch[slow].sc->name,
			     bn_chan_label(slow));
			return;
		}
		if (!grow((void **)&c->v, &c->cap, c->n + n, sizeof(float)) ||
		    (f->polled && !grow((void **)&c->t, &c->tcap, c->n + n, sizeof(int64_t)))) {
			fail(f, BN_ERR_NOMEM, "sigrok %s: out of memory aligning channel %s", f->driver,
			     sc->name);
			return;
		}
		memcpy(c->v + c->n, f->scratch, n * sizeof(float));
		c->got += (int64_t)n;
		if (!f->polled && !f->framed && f->anchored && f->k_off_us > 0 && f->rate_hz > 0 &&
		    ch == first_mapped(f) && !atomic_load(&f->clock_frozen)) {
			bn_time_us bound = now_us(f) - f->t0_us - bn_tick_time(c->got - 1, f->rate_hz);

			pthread_mutex_lock(&f->lock);
			f->tm.start_packets++;
			if (bound < f->k_off_us) {
				f->tm.start_refined_us += f->k_off_us - bound;
				f->k_off_us = bound;
				f->tm.start_lost_us = bound;
			}
			pthread_mutex_unlock(&f->lock);
		}
		if (!f->polled && !f->framed && !f->anchored && f->rate_hz > 0) {
			bn_time_us arrived = now_us(f) - f->t0_us;
			bn_time_us span = bn_tick_time((int64_t)n, f->rate_hz);

			f->anchored = true;
			/* later than its span, with a margin the size of the
			 * packet for the transfer's own latency */
			if (arrived > 2 * span + 100000) {
				f->k_off_us = arrived - span;
				pthread_mutex_lock(&f->lock);
				f->tm.start_lost_us = f->k_off_us;
				f->tm.start_packets = 1;
				pthread_mutex_unlock(&f->lock);
				bn_warn("%s: the first %zu samples of the stream arrived %.3f s after the start "
					"(their span is %.3f s): the start was lost; the frames are dated back "
					"from their arrival, approximately", f->driver, n,
					bn_time_to_s(arrived), bn_time_to_s(span));
			}
		}
		if (f->polled) {
			/* A polled device's packets carry readings, not a
			 * stream: each is as old as its arrival. */
			t = now_us(f) - f->t0_us;
			for (size_t i = 0; i < n; i++)
				c->t[c->n + i] = t;
		}
		c->n += n;
	}
	align(f);
}

static void on_meta(struct bn_sigrok_feed *f, const struct sr_datafeed_meta *m)
{
	for (GSList *l = m ? m->config : NULL; l; l = l->next) {
		struct sr_config *cf = l->data;
		double r;

		if (cf->key != SR_CONF_SAMPLERATE ||
		    !g_variant_is_of_type(cf->data, G_VARIANT_TYPE_UINT64))
			continue;
		r = (double)g_variant_get_uint64(cf->data);
		if (f->polled || !(r > 0) || r == f->rate_hz)
			continue;
		if (f->framed && f->in_frame) {
			/* A scope's new timebase: from its next frame on. */
			bn_info("%s: samplerate now %g Hz (was %g Hz), from the next frame", f->driver,
				r, f->rate_hz);
			f->next_rate_hz = r;
			continue;
		}
		if (f->framed || f->k == 0) {
			bn_info("%s: the device runs at %g Hz (%g Hz expected)", f->driver, r,
				f->rate_hz);
			f->rate_hz = r;
			pthread_mutex_lock(&f->lock);
			f->tm.rate_hz = r;
			pthread_mutex_unlock(&f->lock);
			continue;
		}
		fail(f, BN_ERR_FAULT,
		     "sigrok %s: the samplerate changed from %g Hz to %g Hz after %" PRId64
		     " frames: expected it constant through a stream (the frames after would be mis-timed)",
		     f->driver, f->rate_hz, r, f->k);
	}
}

void bn_sigrok_feed_packet(struct bn_sigrok_feed *f, const struct sr_datafeed_packet *p)
{
	bool asked;

	atomic_store(&f->last_packet_us, now_us(f));
	if (f->failed)
		return;
	switch (p->type) {
	case SR_DF_ANALOG:
		on_analog(f, p->payload);
		break;
	case SR_DF_FRAME_BEGIN:
		if (!f->framed && !f->polled) {
			f->framed = true;
			pthread_mutex_lock(&f->lock);
			f->tm.clock = BN_SIGROK_CLOCK_FRAMES;
			pthread_mutex_unlock(&f->lock);
		}
		if (!f->probe && !f->polled)
			frame_begin(f);
		break;
	case SR_DF_FRAME_END:
		if (!f->probe && f->in_frame)
			frame_end(f);
		break;
	case SR_DF_META:
		on_meta(f, p->payload);
		break;
	case SR_DF_END:
		pthread_mutex_lock(&f->lock);
		asked = !f->running;
		f->running = false;
		pthread_mutex_unlock(&f->lock);
		if (f->in_frame)
			frame_end(f);
		if (!asked)
			fail(f, BN_ERR_FAULT,
			     "sigrok %s: the device ended the acquisition %s%" PRId64
			     " frames: expected it to run until stopped",
			     f->driver, f->probe ? "while its channels were being checked, after "
						 : "after ",
			     f->tm.frames);
		break;
	default:
		/* Header, logic, triggers: not ours. */
		break;
	}
}

/* ---- the reader's side ---- */

bool bn_sigrok_feed_all_reported(struct bn_sigrok_feed *f)
{
	bool all = true;

	pthread_mutex_lock(&f->lock);
	for (int ch = 0; ch < BN_CH_COUNT; ch++)
		all = all && (!f->ch[ch].sc || f->seen[ch]);
	pthread_mutex_unlock(&f->lock);
	return all;
}

int bn_sigrok_feed_error(struct bn_sigrok_feed *f, struct bn_err *err)
{
	int rc;

	pthread_mutex_lock(&f->lock);
	rc = f->err.code;
	if (rc != BN_OK)
		bn_err_set(err, rc, "%s", f->err.msg);
	pthread_mutex_unlock(&f->lock);
	return rc;
}

long bn_sigrok_feed_read(struct bn_sigrok_feed *f, struct bn_cap_frame *out, long max,
			 struct bn_err *err)
{
	size_t n, first;
	long rc;

	if (max <= 0)
		return 0;
	pthread_mutex_lock(&f->lock);
	n = f->n < (size_t)max ? f->n : (size_t)max;
	first = f->ring_cap - f->head;
	if (first > n)
		first = n;
	memcpy(out, f->ring + f->head, first * sizeof(*out));
	memcpy(out + first, f->ring, (n - first) * sizeof(*out));
	f->head += n;
	if (f->head >= f->ring_cap)
		f->head -= f->ring_cap;
	f->n -= n;
	rc = (long)n;
	if (n == 0 && f->err.code == BN_OK && f->running && f->stall_us > 0) {
		int64_t quiet = now_us(f) - atomic_load(&f->last_packet_us);

		if (quiet > f->stall_us)
			bn_err_set(&f->err, BN_ERR_FAULT,
				   "sigrok %s: no data for %.1f s while acquiring (after %" PRId64
				   " frames): expected a packet at least every %.1f s (the device stopped sending, or its link is gone)",
				   f->driver, (double)quiet / 1e6, f->tm.frames,
				   (double)f->stall_us / 1e6);
	}
	if (n == 0 && f->err.code != BN_OK)
		rc = bn_err_set(err, f->err.code, "%s", f->err.msg);
	pthread_mutex_unlock(&f->lock);
	return rc;
}

void bn_sigrok_feed_timing(struct bn_sigrok_feed *f, struct bn_sigrok_timing *out)
{
	pthread_mutex_lock(&f->lock);
	*out = f->tm;
	pthread_mutex_unlock(&f->lock);
}

bool bn_sigrok_feed_chan_info(struct bn_sigrok_feed *f, enum bn_chan ch,
			      struct bn_sigrok_chan_info *out)
{
	memset(out, 0, sizeof(*out));
	if ((int)ch < 0 || ch >= BN_CH_COUNT || !f->ch[ch].sc)
		return false;
	pthread_mutex_lock(&f->lock);
	*out = f->info[ch];
	pthread_mutex_unlock(&f->lock);
	return true;
}
