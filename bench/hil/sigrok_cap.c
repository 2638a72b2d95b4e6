/* A capture device through libsigrok 0.5.2 (see sigrok_cap.h).
 *
 * Threads: open, start, poll, stop and close run in the caller's thread.
 * sr_session_run runs in a thread of ours (pthreads, as are the locks,
 * so ThreadSanitizer can check them: GLib's futex GMutex is opaque to it), on a GLib main context of this
 * capture's own (pushed as thread-default around sr_session_start, so
 * libsigrok attaches the driver's event sources to it instead of the
 * process's global default context). The datafeed callback runs in the
 * session thread, except the SR_DF_HEADER packet, which sr_session_start
 * sends from the caller's thread. sr_session_stop is safe from another
 * thread: it queues the stop on the session's context, the driver sends
 * SR_DF_END, and sr_session_run returns once the driver's sources are gone.
 *
 * Data: every analog packet is one channel. Its samples go to a pending
 * buffer per mapped bench channel; whenever every mapped channel has sample
 * k, frame k is built (bn_chanmap_apply, NAN for the unmapped) and queued in
 * a bounded ring under a mutex. poll() copies from the ring. */
#define BN_LOG_MODULE "sigrok"
#include "hil/sigrok_cap.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <strings.h>

#include <glib.h>
#include <libsigrok/libsigrok.h>

#include "core/log.h"

/* The queue holds this much acquisition time, within these bounds: more
 * than one packet of libsigrok 0.5.2's hantek-6xxx driver, which reads the
 * next power of two above a second of samples in one USB transfer (up to
 * 1.31 s, 131072 frames at 100 kHz) and sends it as one packet a channel. */
#define SRC_QUEUE_S 1.5
#define SRC_QUEUE_MIN_FRAMES 1024
#define SRC_QUEUE_MAX_FRAMES (1 << 20)
/* A channel this many samples ahead of the slowest one means the slowest
 * delivers nothing: alignment is impossible, the capture fails. */
#define SRC_PENDING_MAX (1 << 22)
/* Highest samplerate we pass on (uint64 Hz in libsigrok). */
#define SRC_RATE_MAX_HZ 1e12
/* Characters of driver names listed in an unknown-driver message. */
#define SRC_DRIVER_LIST_BUDGET 520

/* libsigrok's drivers are process-global tables: sr_driver_init stores the
 * driver's state in the table itself, and sr_exit cleans up every driver,
 * freeing the devices of any other context. Two captures with their own
 * sr_context would free each other's devices. So there is one sr_context
 * per process, shared by reference count: the one mutable file-scope value
 * here, mirroring libsigrok's own process-wide state. */
struct src_lib {
	pthread_mutex_t lock;
	struct sr_context *ctx;
	int refs;
	GSList *inited; /* drivers passed to sr_driver_init */
};
static struct src_lib src_lib = { .lock = PTHREAD_MUTEX_INITIALIZER };

enum src_state { SRC_OPEN = 0, SRC_RUNNING, SRC_STOPPED };

struct bn_sigrok_cap {
	/* Set by open, read-only afterwards. */
	char driver[64];
	char desc[192];
	struct bn_chanmap map;
	double rate_hz;
	unsigned mask;
	struct sr_context *ctx;
	struct sr_dev_driver *drv;
	struct sr_dev_inst *sdi;
	bool dev_open;
	struct sr_session *sess;
	struct sr_channel *chan[BN_CH_COUNT]; /* NULL: not mapped */

	/* The session thread's (the caller's once joined). */
	float *pend[BN_CH_COUNT];
	size_t pend_n[BN_CH_COUNT], pend_cap[BN_CH_COUNT];
	float *scratch;
	size_t scratch_cap;
	int64_t aligned;
	bool failed;

	/* Shared between the threads, under lock. */
	pthread_mutex_t lock;
	struct bn_sample *ring;
	size_t ring_cap, ring_head, ring_n;
	int64_t dropped;
	bool stop_requested;
	struct bn_err async_err;

	/* The caller's. */
	enum src_state state;
	GMainContext *mc;
	pthread_t thread;
	bool thread_live;
};

/* libsigrok's own messages: shown with -v (errors, warnings) or at debug
 * level; ours carry the context that matters. */
static int src_log_bridge(void *cb_data, int loglevel, const char *format, va_list args)
{
	char buf[512];
	int level = loglevel <= SR_LOG_WARN ? BN_LOG_INFO : BN_LOG_DBG;

	(void)cb_data;
	if (level > bn_log_get_level())
		return SR_OK;
	vsnprintf(buf, sizeof(buf), format, args);
	bn_log_msg(level, "libsigrok", "%s", buf);
	return SR_OK;
}

static int lib_ref(struct sr_context **ctx, struct bn_err *err)
{
	int ret = SR_OK;

	pthread_mutex_lock(&src_lib.lock);
	if (src_lib.refs == 0) {
		sr_log_loglevel_set(bn_log_get_level() >= BN_LOG_DBG ? SR_LOG_DBG : SR_LOG_WARN);
		sr_log_callback_set(src_log_bridge, NULL);
		ret = sr_init(&src_lib.ctx);
		if (ret != SR_OK) {
			sr_log_callback_set_default();
			src_lib.ctx = NULL;
		}
	}
	if (ret == SR_OK) {
		src_lib.refs++;
		*ctx = src_lib.ctx;
	}
	pthread_mutex_unlock(&src_lib.lock);
	if (ret != SR_OK)
		return bn_err_set(err, BN_ERR_IO, "sigrok: cannot initialise libsigrok: %s",
				  sr_strerror(ret));
	return BN_OK;
}

static void lib_unref(void)
{
	pthread_mutex_lock(&src_lib.lock);
	if (src_lib.refs > 0 && --src_lib.refs == 0) {
		sr_exit(src_lib.ctx);
		src_lib.ctx = NULL;
		g_slist_free(src_lib.inited);
		src_lib.inited = NULL;
		sr_log_callback_set_default();
	}
	pthread_mutex_unlock(&src_lib.lock);
}

/* Call with src_lib.lock held. */
static int lib_driver_init(struct sr_dev_driver *drv)
{
	int ret;

	if (g_slist_find(src_lib.inited, drv))
		return SR_OK;
	ret = sr_driver_init(src_lib.ctx, drv);
	if (ret == SR_OK)
		src_lib.inited = g_slist_prepend(src_lib.inited, drv);
	return ret;
}

static int cmp_name(gconstpointer a, gconstpointer b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int unknown_driver(struct sr_dev_driver **list, const char *name, struct bn_err *err)
{
	GPtrArray *sorted = g_ptr_array_new();
	GString *names = g_string_new(NULL);
	guint shown = 0;

	for (int i = 0; list && list[i]; i++)
		g_ptr_array_add(sorted, (gpointer)list[i]->name);
	g_ptr_array_sort(sorted, cmp_name);
	for (guint i = 0; i < sorted->len; i++) {
		const char *n = g_ptr_array_index(sorted, i);

		if (names->len + strlen(n) > SRC_DRIVER_LIST_BUDGET)
			break;
		g_string_append_printf(names, "%s%s", shown ? ", " : "", n);
		shown++;
	}
	if (shown < sorted->len)
		g_string_append_printf(names, " and %u more (sigrok-cli -L lists them)",
				       sorted->len - shown);
	bn_err_set(err, BN_ERR_ARG, "sigrok: unknown driver \"%s\": expected one of %s", name,
		   sorted->len ? names->str : "(libsigrok has no drivers)");
	g_string_free(names, TRUE);
	g_ptr_array_free(sorted, TRUE);
	return BN_ERR_ARG;
}

static bool takes_conn(const struct sr_dev_driver *drv)
{
	GArray *keys = sr_driver_scan_options_list(drv);
	bool found = false;

	for (guint i = 0; keys && i < keys->len; i++)
		found = found || g_array_index(keys, uint32_t, i) == SR_CONF_CONN;
	if (keys)
		g_array_free(keys, TRUE);
	return found;
}

static struct sr_channel *find_channel(GSList *chans, const char *name)
{
	struct sr_channel *fold = NULL;

	for (GSList *l = chans; l; l = l->next) {
		struct sr_channel *ch = l->data;

		if (strcmp(ch->name, name) == 0)
			return ch;
		if (!fold && g_ascii_strcasecmp(ch->name, name) == 0)
			fold = ch;
	}
	return fold;
}

/* "A0, A1, ..." of the device's channels of one type. */
static void channel_names(GSList *chans, int type, char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = '\0';
	for (GSList *l = chans; l && at < len; l = l->next) {
		struct sr_channel *ch = l->data;
		int n;

		if (ch->type != type)
			continue;
		n = snprintf(buf + at, len - at, "%s%s", at ? ", " : "", ch->name);
		if (n < 0)
			break;
		at += (size_t)n;
	}
	if (!buf[0])
		snprintf(buf, len, "(none)");
}

static int resolve_channels(struct bn_sigrok_cap *c, struct bn_err *err)
{
	GSList *chans = sr_dev_inst_channels_get(c->sdi);
	char analog[320];

	channel_names(chans, SR_CHANNEL_ANALOG, analog, sizeof(analog));
	for (int ch = 0; ch < BN_CH_COUNT; ch++) {
		const struct bn_chanmap_entry *e = &c->map.e[ch];
		struct sr_channel *sc = find_channel(chans, e->src);

		if (!e->set) {
			/* Not named: used when the device has a channel of the
			 * bench channel's own label, else left unmapped. */
			if (sc && sc->type == SR_CHANNEL_ANALOG) {
				c->chan[ch] = sc;
				c->mask |= 1u << ch;
			}
			continue;
		}
		if (!sc)
			return bn_err_set(err, BN_ERR_ARG,
					  "sigrok %s: %s=%s: the device has no channel \"%s\": expected one of its analog channels %s",
					  c->driver, bn_chan_label(ch), e->src, e->src, analog);
		if (sc->type != SR_CHANNEL_ANALOG)
			return bn_err_set(err, BN_ERR_ARG,
					  "sigrok %s: %s=%s: \"%s\" is a logic channel: expected one of its analog channels %s",
					  c->driver, bn_chan_label(ch), e->src, sc->name, analog);
		c->chan[ch] = sc;
		c->mask |= 1u << ch;
	}
	if (!c->mask)
		return bn_err_set(err, BN_ERR_ARG,
				  "sigrok %s: no bench channel is mapped: expected a map such as VBUS=CHANNEL naming one of the analog channels %s",
				  c->driver, analog);
	for (GSList *l = chans; l; l = l->next) {
		struct sr_channel *sc = l->data;
		bool want = false;
		int ret;

		for (int ch = 0; ch < BN_CH_COUNT; ch++)
			want = want || c->chan[ch] == sc;
		ret = sr_dev_channel_enable(sc, want);
		if (ret != SR_OK)
			return bn_err_set(err, BN_ERR_IO, "sigrok %s: cannot %s channel %s: %s",
					  c->driver, want ? "enable" : "disable", sc->name,
					  sr_strerror(ret));
	}
	return BN_OK;
}

/* What the device accepts, for the rejected-samplerate message. */
static void describe_rates(struct bn_sigrok_cap *c, char *buf, size_t len)
{
	GVariant *gv = NULL, *v;
	const uint64_t *r;
	gsize n = 0;

	snprintf(buf, len, "a samplerate the device supports");
	if (sr_config_list(c->drv, c->sdi, NULL, SR_CONF_SAMPLERATE, &gv) != SR_OK || !gv)
		return;
	if ((v = g_variant_lookup_value(gv, "samplerate-steps", G_VARIANT_TYPE("at")))) {
		r = g_variant_get_fixed_array(v, &n, sizeof(uint64_t));
		if (n >= 3)
			snprintf(buf, len, "%" PRIu64 " Hz to %" PRIu64 " Hz in steps of %" PRIu64 " Hz",
				 r[0], r[1], r[2]);
		g_variant_unref(v);
	} else if ((v = g_variant_lookup_value(gv, "samplerates", G_VARIANT_TYPE("at")))) {
		size_t at;

		r = g_variant_get_fixed_array(v, &n, sizeof(uint64_t));
		at = (size_t)snprintf(buf, len, "one of");
		for (gsize i = 0; i < n && at < len; i++)
			at += (size_t)snprintf(buf + at, len - at, "%s %" PRIu64, i ? "," : "", r[i]);
		if (at < len)
			snprintf(buf + at, len - at, " Hz");
		g_variant_unref(v);
	}
	g_variant_unref(gv);
}

/* The highest samplerate the device states (the end of its steps, or the
 * largest of its list); 0 when it states none. */
static uint64_t max_rate(struct bn_sigrok_cap *c)
{
	GVariant *gv = NULL, *v;
	const uint64_t *r;
	uint64_t max = 0;
	gsize n = 0;

	if (sr_config_list(c->drv, c->sdi, NULL, SR_CONF_SAMPLERATE, &gv) != SR_OK || !gv)
		return 0;
	if ((v = g_variant_lookup_value(gv, "samplerate-steps", G_VARIANT_TYPE("at")))) {
		r = g_variant_get_fixed_array(v, &n, sizeof(uint64_t));
		if (n >= 2)
			max = r[1];
		g_variant_unref(v);
	} else if ((v = g_variant_lookup_value(gv, "samplerates", G_VARIANT_TYPE("at")))) {
		r = g_variant_get_fixed_array(v, &n, sizeof(uint64_t));
		for (gsize i = 0; i < n; i++)
			if (r[i] > max)
				max = r[i];
		g_variant_unref(v);
	}
	g_variant_unref(gv);
	return max;
}

static int set_rate(struct bn_sigrok_cap *c, double rate_hz, struct bn_err *err)
{
	uint64_t want = (uint64_t)llround(rate_hz), max = max_rate(c);
	GVariant *gv = NULL;
	char rates[256];
	int ret;

	/* refused here rather than clamped or accepted by a lenient driver:
	 * a rate the device cannot keep is frames lost or invented */
	if (max && want > max)
		return bn_err_set(err, BN_ERR_ARG,
				  "sigrok %s: samplerate %g Hz is above the device's maximum, %" PRIu64
				  " Hz",
				  c->driver, rate_hz, max);

	ret = sr_config_set(c->sdi, NULL, SR_CONF_SAMPLERATE, g_variant_new_uint64(want));
	if (ret != SR_OK) {
		describe_rates(c, rates, sizeof(rates));
		return bn_err_set(err, BN_ERR_ARG,
				  "sigrok %s: samplerate %g Hz (sent as %" PRIu64 " Hz) rejected (%s): expected %s",
				  c->driver, rate_hz, want, sr_strerror(ret), rates);
	}
	c->rate_hz = (double)want;
	/* The device may round: report what it runs at. */
	if (sr_config_get(c->drv, c->sdi, NULL, SR_CONF_SAMPLERATE, &gv) == SR_OK && gv) {
		if (g_variant_is_of_type(gv, G_VARIANT_TYPE_UINT64) && g_variant_get_uint64(gv))
			c->rate_hz = (double)g_variant_get_uint64(gv);
		g_variant_unref(gv);
	}
	if (c->rate_hz != rate_hz)
		bn_info("%s: samplerate %g Hz requested, device runs at %g Hz", c->driver, rate_hz,
			c->rate_hz);
	return BN_OK;
}

static void describe(struct bn_sigrok_cap *c)
{
	const char *vendor = sr_dev_inst_vendor_get(c->sdi);
	const char *model = sr_dev_inst_model_get(c->sdi);
	const char *version = sr_dev_inst_version_get(c->sdi);
	const char *conn = sr_dev_inst_connid_get(c->sdi);

	snprintf(c->desc, sizeof(c->desc), "%s%s%s%s%s%s%s (sigrok driver %s)",
		 vendor && *vendor ? vendor : "", vendor && *vendor ? " " : "",
		 model && *model ? model : "device", version && *version ? " " : "",
		 version && *version ? version : "", conn && *conn ? " at " : "",
		 conn && *conn ? conn : "", c->driver);
}

/* Session thread: a failure stops the alignment; poll reports it once the
 * frames before it are drained. */
static void fail_async(struct bn_sigrok_cap *c, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void fail_async(struct bn_sigrok_cap *c, int code, const char *fmt, ...)
{
	char msg[BN_ERR_MSG_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	c->failed = true;
	pthread_mutex_lock(&c->lock);
	bn_err_set(&c->async_err, code, "%s", msg);
	pthread_mutex_unlock(&c->lock);
}

static bool grow(float **buf, size_t *cap, size_t need)
{
	size_t n = *cap ? *cap : 4096;
	float *p;

	if (need <= *cap)
		return true;
	while (n < need)
		n *= 2;
	p = realloc(*buf, n * sizeof(float));
	if (!p)
		return false;
	*buf = p;
	*cap = n;
	return true;
}

/* Build and queue every frame all mapped channels have samples for. */
static void emit_frames(struct bn_sigrok_cap *c)
{
	size_t m = SIZE_MAX, keep, slot;

	for (int ch = 0; ch < BN_CH_COUNT; ch++)
		if (c->chan[ch] && c->pend_n[ch] < m)
			m = c->pend_n[ch];
	if (m == 0 || m == SIZE_MAX)
		return;
	pthread_mutex_lock(&c->lock);
	keep = c->ring_cap - c->ring_n;
	if (keep > m)
		keep = m;
	slot = c->ring_head + c->ring_n;
	if (slot >= c->ring_cap)
		slot -= c->ring_cap;
	for (size_t i = 0; i < keep; i++) {
		struct bn_sample *f = &c->ring[slot];

		for (int ch = 0; ch < BN_CH_COUNT; ch++)
			f->v[ch] = c->chan[ch] ? bn_chanmap_apply(&c->map, ch, c->pend[ch][i]) : NAN;
		if (++slot == c->ring_cap)
			slot = 0;
	}
	c->ring_n += keep;
	c->dropped += (int64_t)(m - keep);
	pthread_mutex_unlock(&c->lock);
	c->aligned += (int64_t)m;
	for (int ch = 0; ch < BN_CH_COUNT; ch++) {
		if (!c->chan[ch])
			continue;
		c->pend_n[ch] -= m;
		memmove(c->pend[ch], c->pend[ch] + m, c->pend_n[ch] * sizeof(float));
	}
}

static void on_analog(struct bn_sigrok_cap *c, const struct sr_datafeed_analog *a)
{
	struct sr_channel *sc;
	size_t n = a->num_samples;
	int ret;

	if (!a->meaning || !a->meaning->channels)
		return;
	if (a->meaning->channels->next) {
		fail_async(c, BN_ERR_NA,
			   "sigrok %s: an analog packet covers %u channels: expected one channel per packet",
			   c->driver, g_slist_length(a->meaning->channels));
		return;
	}
	sc = a->meaning->channels->data;
	if (n == 0)
		return;
	if (!grow(&c->scratch, &c->scratch_cap, n)) {
		fail_async(c, BN_ERR_NOMEM, "sigrok %s: out of memory converting %zu samples",
			   c->driver, n);
		return;
	}
	ret = sr_analog_to_float(a, c->scratch);
	if (ret != SR_OK) {
		fail_async(c, BN_ERR_DATA,
			   "sigrok %s: channel %s: cannot convert a packet to float (%s): expected a numeric encoding",
			   c->driver, sc->name, sr_strerror(ret));
		return;
	}
	for (int ch = 0; ch < BN_CH_COUNT; ch++) {
		if (c->chan[ch] != sc)
			continue;
		if (c->pend_n[ch] + n > SRC_PENDING_MAX) {
			int slow = ch;

			for (int o = 0; o < BN_CH_COUNT; o++)
				if (c->chan[o] && c->pend_n[o] < c->pend_n[slow])
					slow = o;
			fail_async(c, BN_ERR_FAULT,
				   "sigrok %s: channel %s (%s) is %zu samples ahead of %s (%s): expected every mapped channel to deliver data",
				   c->driver, sc->name, bn_chan_label(ch), c->pend_n[ch] + n,
				   c->chan[slow]->name, bn_chan_label(slow));
			return;
		}
		if (!grow(&c->pend[ch], &c->pend_cap[ch], c->pend_n[ch] + n)) {
			fail_async(c, BN_ERR_NOMEM, "sigrok %s: out of memory aligning channel %s",
				   c->driver, sc->name);
			return;
		}
		memcpy(c->pend[ch] + c->pend_n[ch], c->scratch, n * sizeof(float));
		c->pend_n[ch] += n;
	}
	emit_frames(c);
}

static void on_packet(const struct sr_dev_inst *sdi, const struct sr_datafeed_packet *p,
		      void *cb_data)
{
	struct bn_sigrok_cap *c = cb_data;
	bool asked;

	(void)sdi;
	if (c->failed)
		return;
	switch (p->type) {
	case SR_DF_ANALOG:
		on_analog(c, p->payload);
		break;
	case SR_DF_END:
		pthread_mutex_lock(&c->lock);
		asked = c->stop_requested;
		pthread_mutex_unlock(&c->lock);
		if (!asked)
			fail_async(c, BN_ERR_FAULT,
				   "sigrok %s: the device ended the acquisition after %" PRId64 " frames: expected it to run until stopped",
				   c->driver, c->aligned);
		break;
	default:
		/* Header, meta, logic, triggers, frame markers: not ours. */
		break;
	}
}

static void *session_thread(void *data)
{
	struct bn_sigrok_cap *c = data;
	int ret = sr_session_run(c->sess);

	if (ret != SR_OK)
		fail_async(c, BN_ERR_IO, "sigrok %s: the session failed: %s", c->driver,
			   sr_strerror(ret));
	return NULL;
}

int bn_sigrok_cap_open(const struct bn_sigrok_cap_opts *o, struct bn_sigrok_cap **out,
		       struct bn_err *err)
{
	struct sr_dev_driver **list;
	struct sr_config conn_opt;
	struct bn_sigrok_cap *c;
	GSList *opts = NULL, *devs;
	double frames;
	int ret, rc;

	*out = NULL;
	if (!o || !o->driver || !*o->driver)
		return bn_err_set(err, BN_ERR_ARG, "sigrok: no driver given: expected a name such as \"demo\"");
	if (strlen(o->driver) >= sizeof(c->driver))
		return bn_err_set(err, BN_ERR_ARG, "sigrok: driver name \"%.40s...\" too long",
				  o->driver);
	if (!(o->rate_hz > 0) || !(o->rate_hz <= SRC_RATE_MAX_HZ))
		return bn_err_set(err, BN_ERR_ARG,
				  "sigrok %s: samplerate %g Hz: expected a number of Hz above 0 and at most %g",
				  o->driver, o->rate_hz, SRC_RATE_MAX_HZ);
	c = calloc(1, sizeof(*c));
	if (!c)
		return bn_err_set(err, BN_ERR_NOMEM, "sigrok %s: out of memory", o->driver);
	pthread_mutex_init(&c->lock, NULL);
	snprintf(c->driver, sizeof(c->driver), "%s", o->driver);
	c->map = o->map;
	rc = lib_ref(&c->ctx, err);
	if (rc < 0) {
		pthread_mutex_destroy(&c->lock);
		free(c);
		return rc;
	}

	pthread_mutex_lock(&src_lib.lock);
	list = sr_driver_list(c->ctx);
	for (int i = 0; list && list[i]; i++)
		if (strcmp(list[i]->name, o->driver) == 0)
			c->drv = list[i];
	if (!c->drv) {
		pthread_mutex_unlock(&src_lib.lock);
		rc = unknown_driver(list, o->driver, err);
		goto fail;
	}
	ret = lib_driver_init(c->drv);
	if (ret != SR_OK) {
		pthread_mutex_unlock(&src_lib.lock);
		rc = bn_err_set(err, BN_ERR_IO, "sigrok %s: cannot initialise the driver: %s",
				c->driver, sr_strerror(ret));
		goto fail;
	}
	if (o->conn && *o->conn && !takes_conn(c->drv)) {
		pthread_mutex_unlock(&src_lib.lock);
		rc = bn_err_set(err, BN_ERR_ARG,
				"sigrok %s: conn=%s given, but the driver takes no conn= option: expected no conn=",
				c->driver, o->conn);
		goto fail;
	}
	if (o->conn && *o->conn) {
		conn_opt.key = SR_CONF_CONN;
		conn_opt.data = g_variant_ref_sink(g_variant_new_string(o->conn));
		opts = g_slist_append(NULL, &conn_opt);
	}
	devs = sr_driver_scan(c->drv, opts);
	if (opts) {
		g_variant_unref(conn_opt.data);
		g_slist_free(opts);
	}
	if (devs) {
		c->sdi = devs->data;
		g_slist_free(devs);
		ret = sr_dev_open(c->sdi);
		c->dev_open = ret == SR_OK;
	}
	pthread_mutex_unlock(&src_lib.lock);
	if (!c->sdi) {
		rc = bn_err_set(err, BN_ERR_IO,
				"sigrok %s: no device found%s%s: expected one connected (check the conn= string, the cable and permissions)",
				c->driver, o->conn && *o->conn ? " at conn=" : "",
				o->conn && *o->conn ? o->conn : "");
		goto fail;
	}
	describe(c);
	if (!c->dev_open) {
		rc = bn_err_set(err, BN_ERR_IO, "sigrok %s: cannot open %s: %s", c->driver, c->desc,
				sr_strerror(ret));
		goto fail;
	}
	rc = resolve_channels(c, err);
	if (rc < 0)
		goto fail;
	rc = set_rate(c, o->rate_hz, err);
	if (rc < 0)
		goto fail;

	frames = c->rate_hz * SRC_QUEUE_S;
	c->ring_cap = frames < SRC_QUEUE_MIN_FRAMES ? SRC_QUEUE_MIN_FRAMES
		      : frames > SRC_QUEUE_MAX_FRAMES ? SRC_QUEUE_MAX_FRAMES
						       : (size_t)frames;
	c->ring = malloc(c->ring_cap * sizeof(*c->ring));
	if (!c->ring) {
		rc = bn_err_set(err, BN_ERR_NOMEM, "sigrok %s: out of memory for a %zu-frame queue",
				c->driver, c->ring_cap);
		goto fail;
	}
	ret = sr_session_new(c->ctx, &c->sess);
	if (ret == SR_OK)
		ret = sr_session_dev_add(c->sess, c->sdi);
	if (ret == SR_OK)
		ret = sr_session_datafeed_callback_add(c->sess, on_packet, c);
	if (ret != SR_OK) {
		rc = bn_err_set(err, BN_ERR_IO, "sigrok %s: cannot set up a session for %s: %s",
				c->driver, c->desc, sr_strerror(ret));
		goto fail;
	}
	bn_dbg("%s: %zu-frame queue, channel mask 0x%x, %g Hz", c->desc, c->ring_cap, c->mask,
	       c->rate_hz);
	*out = c;
	return BN_OK;
fail:
	bn_sigrok_cap_close(c);
	return rc;
}

const char *bn_sigrok_cap_describe(const struct bn_sigrok_cap *c)
{
	return c->desc;
}

unsigned bn_sigrok_cap_channels(const struct bn_sigrok_cap *c)
{
	return c->mask;
}

double bn_sigrok_cap_rate(const struct bn_sigrok_cap *c)
{
	return c->rate_hz;
}

int bn_sigrok_cap_start(struct bn_sigrok_cap *c, struct bn_err *err)
{
	int ret;

	if (c->state != SRC_OPEN)
		return bn_err_set(err, BN_ERR_ARG,
				  "sigrok %s: start: the capture was already started: expected one start per open",
				  c->driver);
	c->mc = g_main_context_new();
	g_main_context_push_thread_default(c->mc);
	ret = sr_session_start(c->sess);
	g_main_context_pop_thread_default(c->mc);
	if (ret != SR_OK)
		return bn_err_set(err, BN_ERR_IO, "sigrok %s: cannot start acquiring from %s: %s",
				  c->driver, c->desc, sr_strerror(ret));
	c->state = SRC_RUNNING;
	ret = pthread_create(&c->thread, NULL, session_thread, c);
	if (ret != 0) {
		bn_err_set(err, BN_ERR_NOMEM, "sigrok %s: cannot start the session thread: %s",
			   c->driver, strerror(ret));
		/* Run the stop through here, in this thread. */
		pthread_mutex_lock(&c->lock);
		c->stop_requested = true;
		pthread_mutex_unlock(&c->lock);
		sr_session_stop(c->sess);
		sr_session_run(c->sess);
		c->state = SRC_STOPPED;
		return BN_ERR_NOMEM;
	}
	c->thread_live = true;
	return BN_OK;
}

long bn_sigrok_cap_poll(struct bn_sigrok_cap *c, struct bn_sample *frames, long max,
			struct bn_err *err)
{
	size_t n, first;
	long rc;

	if (max <= 0)
		return 0;
	pthread_mutex_lock(&c->lock);
	n = c->ring_n < (size_t)max ? c->ring_n : (size_t)max;
	first = c->ring_cap - c->ring_head;
	if (first > n)
		first = n;
	memcpy(frames, c->ring + c->ring_head, first * sizeof(*frames));
	memcpy(frames + first, c->ring, (n - first) * sizeof(*frames));
	c->ring_head += n;
	if (c->ring_head >= c->ring_cap)
		c->ring_head -= c->ring_cap;
	c->ring_n -= n;
	rc = (long)n;
	if (n == 0 && c->async_err.code != BN_OK)
		rc = bn_err_set(err, c->async_err.code, "%s", c->async_err.msg);
	pthread_mutex_unlock(&c->lock);
	return rc;
}

int bn_sigrok_cap_stop(struct bn_sigrok_cap *c, struct bn_err *err)
{
	int ret;

	if (c->state != SRC_RUNNING)
		return BN_OK;
	pthread_mutex_lock(&c->lock);
	c->stop_requested = true;
	pthread_mutex_unlock(&c->lock);
	ret = sr_session_stop(c->sess);
	/* sr_session_run returns once the driver has sent SR_DF_END. */
	if (c->thread_live)
		pthread_join(c->thread, NULL);
	c->thread_live = false;
	c->state = SRC_STOPPED;
	/* Every complete frame was queued as it completed; what is left are
	 * samples of channels that ran ahead of the others. */
	for (int ch = 0; ch < BN_CH_COUNT; ch++)
		if (c->chan[ch] && c->pend_n[ch])
			bn_dbg("%s: %s: %zu samples past the last whole frame dropped at stop",
			       c->driver, bn_chan_label(ch), c->pend_n[ch]);
	if (c->dropped)
		bn_warn("%s: %" PRId64 " of %" PRId64 " frames lost: the consumer polled too slowly",
			c->driver, c->dropped, c->aligned);
	if (ret != SR_OK)
		return bn_err_set(err, BN_ERR_IO, "sigrok %s: cannot stop the acquisition: %s",
				  c->driver, sr_strerror(ret));
	return BN_OK;
}

int64_t bn_sigrok_cap_dropped(const struct bn_sigrok_cap *c)
{
	/* The session thread counts under the lock; c is never a const
	 * object, only a const view of one. */
	pthread_mutex_t *lock = (pthread_mutex_t *)&c->lock;
	int64_t n;

	pthread_mutex_lock(lock);
	n = c->dropped;
	pthread_mutex_unlock(lock);
	return n;
}

void bn_sigrok_cap_close(struct bn_sigrok_cap *c)
{
	if (!c)
		return;
	if (c->state == SRC_RUNNING)
		bn_sigrok_cap_stop(c, NULL);
	if (c->sess)
		sr_session_destroy(c->sess);
	if (c->dev_open) {
		pthread_mutex_lock(&src_lib.lock);
		sr_dev_close(c->sdi);
		pthread_mutex_unlock(&src_lib.lock);
	}
	if (c->ctx)
		lib_unref();
	if (c->mc)
		g_main_context_unref(c->mc);
	for (int ch = 0; ch < BN_CH_COUNT; ch++)
		free(c->pend[ch]);
	free(c->scratch);
	free(c->ring);
	pthread_mutex_destroy(&c->lock);
	free(c);
}
