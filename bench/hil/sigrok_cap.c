#define _GNU_SOURCE /* strtok_r, pthread_condattr_setclock */
/* A capture device through libsigrok 0.5.2 (see sigrok_cap.h).
 *
 * Threads: open, start, read, stop and close run in the caller's thread.
 * sr_session_run runs in a thread of ours (pthreads, as are the locks,
 * so ThreadSanitizer can check them: GLib's futex GMutex is opaque to it),
 * on a GLib main context of this capture's own (pushed as thread-default
 * around sr_session_start, so libsigrok attaches the driver's event
 * sources to it instead of the process's global default context). The
 * datafeed callback runs in the session thread, except the packets
 * sr_session_start sends from the caller's thread (SR_DF_HEADER, and a
 * first SR_DF_FRAME_BEGIN from some drivers). sr_session_stop is safe from
 * another thread: it queues the stop on the session's context, the driver
 * sends SR_DF_END, and sr_session_run returns once the driver's sources
 * are gone. A session runs again after it stopped (libsigrok 0.5.2's
 * session.c sets its main context anew at each start): open's channel
 * check is one acquisition, the run another.
 *
 * The packets go to sigrok_feed.c, which aligns, times and queues them. */
#define BN_LOG_MODULE "sigrok"
#include "hil/sigrok_cap.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <signal.h>
#include <strings.h>
#include <time.h>

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
/* Highest samplerate we pass on (uint64 Hz in libsigrok). */
#define SRC_RATE_MAX_HZ 1e12
/* Characters of driver names listed in an unknown-driver message. */
#define SRC_DRIVER_LIST_BUDGET 520
#define SRC_STALL_MS_DEFAULT 3000
/* A session thread not back this long after a stop is stuck in the
 * driver (libsigrok 0.5.2's tcp-raw SCPI reads block without a time-out
 * on an instrument that stopped answering): the capture is abandoned. */
#define SRC_STOP_MS 2000
/* Scan options ("key=value") one spec may carry. */
#define SRC_SCAN_OPTS_MAX 16

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
	GSList *inited;    /* drivers passed to sr_driver_init */
	GSList *abandoned; /* captures whose session thread would not stop */
};
static struct src_lib src_lib = { .lock = PTHREAD_MUTEX_INITIALIZER };

enum src_state { SRC_OPEN = 0, SRC_RUNNING, SRC_STOPPED };

struct bn_sigrok_cap {
	/* Set by open, read-only afterwards. */
	char driver[64];
	char desc[192];
	struct bn_chanmap map;
	struct bn_sigrok_limits lim;
	double rate_hz; /* 0: polled */
	unsigned mask;
	bn_time_us stall_us;
	struct sr_context *ctx;
	struct sr_dev_driver *drv;
	struct sr_dev_inst *sdi;
	bool dev_open;
	struct sr_session *sess;
	struct sr_channel *chan[BN_CH_COUNT]; /* NULL: not mapped */
	struct bn_sigrok_feed *feed;

	/* The caller's. */
	enum src_state state;
	GMainContext *mc;
	pthread_t thread;
	bool thread_live;

	/* The session thread says it is done, under th_lock. */
	pthread_mutex_t th_lock;
	pthread_cond_t th_done_cond; /* on CLOCK_MONOTONIC */
	bool th_done;
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

/* ---- scan options ---- */

static void free_scan_opts(GSList *opts)
{
	for (GSList *l = opts; l; l = l->next) {
		struct sr_config *cf = l->data;

		g_variant_unref(cf->data);
		g_free(cf);
	}
	g_slist_free(opts);
}

/* "conn, serialcomm" */
static void scan_opt_names(const struct sr_dev_driver *drv, char *buf, size_t len)
{
	GArray *keys = sr_driver_scan_options_list(drv);
	size_t at = 0;

	buf[0] = '\0';
	for (guint i = 0; keys && i < keys->len && at < len; i++) {
		const struct sr_key_info *ki =
			sr_key_info_get(SR_KEY_CONFIG, g_array_index(keys, uint32_t, i));

		if (ki && ki->id)
			at += (size_t)snprintf(buf + at, len - at, "%s%s", at ? ", " : "", ki->id);
	}
	if (keys)
		g_array_free(keys, TRUE);
	if (!buf[0])
		snprintf(buf, len, "(none)");
}

static bool takes_key(const struct sr_dev_driver *drv, uint32_t key)
{
	GArray *keys = sr_driver_scan_options_list(drv);
	bool found = false;

	for (guint i = 0; keys && i < keys->len; i++)
		found = found || g_array_index(keys, uint32_t, i) == key;
	if (keys)
		g_array_free(keys, TRUE);
	return found;
}

/* One "key=value" as the driver's scan option, its value typed as
 * libsigrok types the key. */
static int scan_opt(struct bn_sigrok_cap *c, const char *pair, GSList **opts, struct bn_err *err)
{
	const char *eq = strchr(pair, '=');
	char key[64], names[256], *end = NULL;
	const struct sr_key_info *ki;
	const char *val;
	GVariant *gv = NULL;
	struct sr_config *cf;

	scan_opt_names(c->drv, names, sizeof(names));
	if (!eq || eq == pair || (size_t)(eq - pair) >= sizeof(key))
		return bn_err_set(err, BN_ERR_ARG,
				  "sigrok %s: option \"%s\": expected key=value, key one of the driver's scan options: %s",
				  c->driver, pair, names);
	memcpy(key, pair, (size_t)(eq - pair));
	key[eq - pair] = '\0';
	val = eq + 1;
	ki = sr_key_info_name_get(SR_KEY_CONFIG, key);
	if (!ki || !takes_key(c->drv, ki->key))
		return bn_err_set(err, BN_ERR_ARG,
				  "sigrok %s: option \"%s\": the driver takes no scan option \"%s\": expected one of %s",
				  c->driver, pair, key, names);
	for (GSList *l = *opts; l; l = l->next)
		if (((struct sr_config *)l->data)->key == ki->key)
			return bn_err_set(err, BN_ERR_ARG,
					  "sigrok %s: option \"%s\": %s given twice: expected it once",
					  c->driver, pair, key);
	errno = 0;
	switch (ki->datatype) {
	case SR_T_STRING:
		gv = g_variant_new_string(val);
		break;
	case SR_T_UINT64: {
		guint64 v = g_ascii_strtoull(val, &end, 10);

		if (*val && *val != '-' && !*end && errno == 0)
			gv = g_variant_new_uint64(v);
		break;
	}
	case SR_T_INT32: {
		long v = strtol(val, &end, 10);

		if (*val && !*end && errno == 0 && v >= INT32_MIN && v <= INT32_MAX)
			gv = g_variant_new_int32((gint32)v);
		break;
	}
	case SR_T_FLOAT: {
		double v = g_ascii_strtod(val, &end);

		if (*val && !*end && errno == 0 && isfinite(v))
			gv = g_variant_new_double(v);
		break;
	}
	case SR_T_BOOL:
		if (!g_ascii_strcasecmp(val, "true") || !strcmp(val, "1") ||
		    !g_ascii_strcasecmp(val, "yes") || !g_ascii_strcasecmp(val, "on"))
			gv = g_variant_new_boolean(TRUE);
		else if (!g_ascii_strcasecmp(val, "false") || !strcmp(val, "0") ||
			 !g_ascii_strcasecmp(val, "no") || !g_ascii_strcasecmp(val, "off"))
			gv = g_variant_new_boolean(FALSE);
		break;
	default:
		return bn_err_set(err, BN_ERR_NA,
				  "sigrok %s: option \"%s\": a %s value is not one the bench can pass: expected a number, text or boolean option",
				  c->driver, pair, key);
	}
	if (!gv)
		return bn_err_set(err, BN_ERR_ARG, "sigrok %s: option \"%s\": expected %s", c->driver,
				  pair,
				  ki->datatype == SR_T_UINT64 ? "a whole number of 0 or more"
				  : ki->datatype == SR_T_INT32 ? "a whole number"
				  : ki->datatype == SR_T_FLOAT ? "a number"
				  : ki->datatype == SR_T_BOOL ? "true or false"
							       : "a value");
	cf = g_new0(struct sr_config, 1);
	cf->key = ki->key;
	cf->data = g_variant_ref_sink(gv);
	*opts = g_slist_append(*opts, cf);
	return BN_OK;
}

/* conn= and the scan_opts "key=value:key=value" as libsigrok's list. */
static int scan_opts(struct bn_sigrok_cap *c, const struct bn_sigrok_cap_opts *o, GSList **opts,
		     struct bn_err *err)
{
	char *copy, *pair, *save = NULL;
	char conn_pair[600];
	int rc = BN_OK, n = 0;

	*opts = NULL;
	if (o->conn && *o->conn) {
		if (!takes_key(c->drv, SR_CONF_CONN))
			return bn_err_set(err, BN_ERR_ARG,
					  "sigrok %s: conn=%s given, but the driver takes no conn= option: expected no conn=",
					  c->driver, o->conn);
		snprintf(conn_pair, sizeof(conn_pair), "conn=%s", o->conn);
		rc = scan_opt(c, conn_pair, opts, err);
	}
	if (rc < 0 || !o->scan_opts || !*o->scan_opts)
		return rc;
	copy = g_strdup(o->scan_opts);
	for (pair = strtok_r(copy, ":", &save); pair && rc == BN_OK;
	     pair = strtok_r(NULL, ":", &save)) {
		if (++n > SRC_SCAN_OPTS_MAX)
			rc = bn_err_set(err, BN_ERR_ARG,
					"sigrok %s: more than %d scan options in \"%s\": expected fewer",
					c->driver, SRC_SCAN_OPTS_MAX, o->scan_opts);
		else
			rc = scan_opt(c, pair, opts, err);
	}
	g_free(copy);
	return rc;
}

/* ---- the device and its limits ---- */

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

static void read_rates(struct bn_sigrok_cap *c)
{
	struct bn_sigrok_limits *l = &c->lim;
	GVariant *gv = NULL, *v;
	const uint64_t *r;
	gsize n = 0;

	if (sr_config_list(c->drv, c->sdi, NULL, SR_CONF_SAMPLERATE, &gv) != SR_OK || !gv)
		return;
	if ((v = g_variant_lookup_value(gv, "samplerate-steps", G_VARIANT_TYPE("at")))) {
		r = g_variant_get_fixed_array(v, &n, sizeof(uint64_t));
		if (n >= 2) {
			l->rates = BN_SIGROK_RATES_RANGE;
			l->rate_min_hz = (double)r[0];
			l->rate_max_hz = (double)r[1];
			l->rate_step_hz = n >= 3 ? (double)r[2] : 0;
		}
		g_variant_unref(v);
	} else if ((v = g_variant_lookup_value(gv, "samplerates", G_VARIANT_TYPE("at")))) {
		r = g_variant_get_fixed_array(v, &n, sizeof(uint64_t));
		l->rates = n ? BN_SIGROK_RATES_LIST : BN_SIGROK_RATES_NONE;
		for (gsize i = 0; i < n && i < BN_SIGROK_MAX_RATES; i++)
			l->rates_hz[l->n_rates++] = (double)r[i];
		l->rates_cut = n > BN_SIGROK_MAX_RATES;
		g_variant_unref(v);
	}
	g_variant_unref(gv);
}

static void read_limits(struct bn_sigrok_cap *c)
{
	struct bn_sigrok_limits *l = &c->lim;
	uint32_t caps;
	GVariant *gv = NULL;

	memset(l, 0, sizeof(*l));
	snprintf(l->desc, sizeof(l->desc), "%s", c->desc);
	for (GSList *ch = sr_dev_inst_channels_get(c->sdi); ch; ch = ch->next) {
		struct sr_channel *sc = ch->data;

		if (sc->type != SR_CHANNEL_ANALOG)
			continue;
		if (l->n_analog < BN_SIGROK_MAX_CHANNELS)
			snprintf(l->analog[l->n_analog], sizeof(l->analog[0]), "%s", sc->name);
		l->n_analog++;
	}
	caps = (uint32_t)sr_dev_config_capabilities_list(c->sdi, NULL, SR_CONF_SAMPLERATE);
	l->rate_get = (caps & SR_CONF_GET) != 0;
	l->rate_set = (caps & SR_CONF_SET) != 0;
	if (l->rate_get && sr_config_get(c->drv, c->sdi, NULL, SR_CONF_SAMPLERATE, &gv) == SR_OK &&
	    gv) {
		if (g_variant_is_of_type(gv, G_VARIANT_TYPE_UINT64))
			l->rate_hz = (double)g_variant_get_uint64(gv);
		g_variant_unref(gv);
	}
	if (caps & SR_CONF_LIST)
		read_rates(c);
}

/* What rates the device takes: "1 Hz to 1000000000 Hz in steps of 1 Hz",
 * "one of 1000, 2000 Hz". */
static void rates_text(const struct bn_sigrok_limits *l, char *buf, size_t len)
{
	size_t at;

	switch (l->rates) {
	case BN_SIGROK_RATES_RANGE:
		if (l->rate_step_hz > 0)
			snprintf(buf, len, "%.0f Hz to %.0f Hz in steps of %.0f Hz", l->rate_min_hz,
				 l->rate_max_hz, l->rate_step_hz);
		else
			snprintf(buf, len, "%.0f Hz to %.0f Hz", l->rate_min_hz, l->rate_max_hz);
		return;
	case BN_SIGROK_RATES_LIST:
		at = (size_t)snprintf(buf, len, "one of");
		for (int i = 0; i < l->n_rates && at < len; i++)
			at += (size_t)snprintf(buf + at, len - at, "%s %.0f", i ? "," : "",
					       l->rates_hz[i]);
		if (at < len)
			snprintf(buf + at, len - at, "%s Hz", l->rates_cut ? ", ..." : "");
		return;
	default:
		snprintf(buf, len, "a samplerate it accepts (it lists none)");
		return;
	}
}

void bn_sigrok_limits_text(const struct bn_sigrok_limits *l, char *buf, size_t len)
{
	char rates[320];
	size_t at = (size_t)snprintf(buf, len, "analog channels ");

	for (int i = 0; i < l->n_analog && i < BN_SIGROK_MAX_CHANNELS && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%s", i ? ", " : "", l->analog[i]);
	if (at >= len)
		return;
	at += (size_t)snprintf(buf + at, len - at, "%s%s (%d); ",
			       l->n_analog > BN_SIGROK_MAX_CHANNELS ? ", ..." : "",
			       l->n_analog ? "" : "(none)", l->n_analog);
	if (at >= len)
		return;
	rates_text(l, rates, sizeof(rates));
	if (l->rate_set)
		snprintf(buf + at, len - at, "samplerate settable, %s, now %.0f Hz", rates,
			 l->rate_hz);
	else if (l->rate_get && l->rate_hz > 0)
		snprintf(buf + at, len - at,
			 "samplerate %.0f Hz, set on the device (it cannot be set from here)",
			 l->rate_hz);
	else
		snprintf(buf + at, len - at,
			 "no samplerate: polled, one reading per channel per cycle, time-stamped on arrival");
}

/* Init, find the driver, scan with the options, open the first device. */
static int attach(struct bn_sigrok_cap *c, const struct bn_sigrok_cap_opts *o,
		  struct bn_err *err)
{
	struct sr_dev_driver **list;
	GSList *opts = NULL, *devs;
	int ret = SR_OK, rc;

	snprintf(c->driver, sizeof(c->driver), "%s", o->driver);
	rc = lib_ref(&c->ctx, err);
	if (rc < 0)
		return rc;
	pthread_mutex_lock(&src_lib.lock);
	list = sr_driver_list(c->ctx);
	for (int i = 0; list && list[i]; i++)
		if (strcmp(list[i]->name, o->driver) == 0)
			c->drv = list[i];
	if (!c->drv) {
		pthread_mutex_unlock(&src_lib.lock);
		return unknown_driver(list, o->driver, err);
	}
	ret = lib_driver_init(c->drv);
	if (ret != SR_OK) {
		pthread_mutex_unlock(&src_lib.lock);
		return bn_err_set(err, BN_ERR_IO, "sigrok %s: cannot initialise the driver: %s",
				  c->driver, sr_strerror(ret));
	}
	rc = scan_opts(c, o, &opts, err);
	if (rc < 0) {
		pthread_mutex_unlock(&src_lib.lock);
		free_scan_opts(opts);
		return rc;
	}
	devs = sr_driver_scan(c->drv, opts);
	free_scan_opts(opts);
	if (devs) {
		c->sdi = devs->data;
		g_slist_free(devs);
		ret = sr_dev_open(c->sdi);
		c->dev_open = ret == SR_OK;
	}
	pthread_mutex_unlock(&src_lib.lock);
	if (!c->sdi)
		return bn_err_set(err, BN_ERR_IO,
				  "sigrok %s: no device found%s%s: expected one connected (check the conn= string, the cable and permissions)",
				  c->driver, o->conn && *o->conn ? " at conn=" : "",
				  o->conn && *o->conn ? o->conn : "");
	describe(c);
	if (!c->dev_open)
		return bn_err_set(err, BN_ERR_IO, "sigrok %s: cannot open %s: %s", c->driver, c->desc,
				  sr_strerror(ret));
	read_limits(c);
	return BN_OK;
}

/* Undo attach (and whatever else open set up). */
static void detach(struct bn_sigrok_cap *c)
{
	if (c->sess)
		sr_session_destroy(c->sess);
	c->sess = NULL;
	if (c->dev_open) {
		pthread_mutex_lock(&src_lib.lock);
		sr_dev_close(c->sdi);
		pthread_mutex_unlock(&src_lib.lock);
	}
	c->dev_open = false;
	if (c->ctx)
		lib_unref();
	c->ctx = NULL;
}

/* ---- the map against the device ---- */

static void analog_names(const struct bn_sigrok_limits *l, char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = '\0';
	for (int i = 0; i < l->n_analog && i < BN_SIGROK_MAX_CHANNELS && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%s", i ? ", " : "", l->analog[i]);
	if (l->n_analog > BN_SIGROK_MAX_CHANNELS && at < len)
		snprintf(buf + at, len - at, ", ...");
	if (!buf[0])
		snprintf(buf, len, "(none)");
}

static int resolve_channels(struct bn_sigrok_cap *c, struct bn_err *err)
{
	GSList *chans = sr_dev_inst_channels_get(c->sdi);
	char analog[400], named[200];
	size_t at = 0;
	int n_named = 0;

	analog_names(&c->lim, analog, sizeof(analog));
	named[0] = '\0';
	for (int ch = 0; ch < BN_CH_COUNT; ch++) {
		const struct bn_chanmap_entry *e = &c->map.e[ch];

		if (!e->set)
			continue;
		n_named++;
		if (at < sizeof(named))
			at += (size_t)snprintf(named + at, sizeof(named) - at, "%s%s=%s",
					       at ? ", " : "", bn_chan_label(ch), e->src);
	}
	if (n_named > c->lim.n_analog)
		return bn_err_set(err, BN_ERR_ARG,
				  "sigrok %s: the map names %d channels (%s), but the device has %d analog channel%s: expected at most %d of %s",
				  c->driver, n_named, named, c->lim.n_analog,
				  c->lim.n_analog == 1 ? "" : "s", c->lim.n_analog, analog);
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
	for (int ch = 0; ch < BN_CH_COUNT; ch++)
		for (int o = ch + 1; o < BN_CH_COUNT; o++)
			if (c->chan[ch] && c->chan[ch] == c->chan[o])
				return bn_err_set(err, BN_ERR_ARG,
						  "sigrok %s: %s and %s both read device channel %s: expected one device channel per bench channel, from %s",
						  c->driver, bn_chan_label(ch), bn_chan_label(o),
						  c->chan[ch]->name, analog);
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

/* ---- the samplerate ---- */

static bool rate_possible(const struct bn_sigrok_limits *l, uint64_t want)
{
	switch (l->rates) {
	case BN_SIGROK_RATES_RANGE:
		if ((double)want < l->rate_min_hz || (double)want > l->rate_max_hz)
			return false;
		if (l->rate_step_hz >= 1)
			return ((want - (uint64_t)l->rate_min_hz) % (uint64_t)l->rate_step_hz) == 0;
		return true;
	case BN_SIGROK_RATES_LIST:
		for (int i = 0; i < l->n_rates; i++)
			if ((double)want == l->rates_hz[i])
				return true;
		/* Past the part we kept, the driver judges. */
		return l->rates_cut;
	default:
		return true; /* it lists none: the driver judges */
	}
}

/* A device that sets a rate is set the one asked; one that states its own
 * keeps it; a polled one has none. What it cannot do is refused here: a
 * rate the device does not keep is frames lost or invented. */
static int choose_rate(struct bn_sigrok_cap *c, const struct bn_sigrok_cap_opts *o,
		       struct bn_err *err)
{
	const struct bn_sigrok_limits *l = &c->lim;
	uint64_t want = (uint64_t)llround(o->rate_hz);
	GVariant *gv = NULL;
	char rates[320];
	int ret;

	rates_text(l, rates, sizeof(rates));
	if (l->rate_set) {
		if (!(o->rate_hz > 0))
			return bn_err_set(err, BN_ERR_ARG,
					  "sigrok %s: no samplerate given, and the device sets one: expected capture_rate (or the scenario's capture ... at RATE) of %s",
					  c->driver, rates);
		if (!rate_possible(l, want))
			return bn_err_set(err, BN_ERR_ARG,
					  "sigrok %s: samplerate %g Hz (sent as %" PRIu64
					  " Hz): the device cannot run at it: expected %s",
					  c->driver, o->rate_hz, want, rates);
		ret = sr_config_set(c->sdi, NULL, SR_CONF_SAMPLERATE, g_variant_new_uint64(want));
		if (ret != SR_OK)
			return bn_err_set(err, BN_ERR_ARG,
					  "sigrok %s: samplerate %g Hz (sent as %" PRIu64
					  " Hz) rejected (%s): expected %s",
					  c->driver, o->rate_hz, want, sr_strerror(ret), rates);
		c->rate_hz = (double)want;
		/* The device may round: report what it runs at. */
		if (sr_config_get(c->drv, c->sdi, NULL, SR_CONF_SAMPLERATE, &gv) == SR_OK && gv) {
			if (g_variant_is_of_type(gv, G_VARIANT_TYPE_UINT64) &&
			    g_variant_get_uint64(gv))
				c->rate_hz = (double)g_variant_get_uint64(gv);
			g_variant_unref(gv);
		}
		c->lim.rate_hz = c->rate_hz;
		if (c->rate_hz != o->rate_hz)
			bn_info("%s: samplerate %g Hz requested, device runs at %g Hz", c->driver,
				o->rate_hz, c->rate_hz);
		return BN_OK;
	}
	if (l->rate_get && l->rate_hz > 0) {
		if (o->rate_hz > 0 && !o->rate_advisory && fabs(o->rate_hz - l->rate_hz) >= 0.5)
			return bn_err_set(err, BN_ERR_ARG,
					  "sigrok %s: samplerate %g Hz: the device cannot be set a samplerate; it runs at %.0f Hz (set on the device itself): expected capture_rate = %.0f, or none",
					  c->driver, o->rate_hz, l->rate_hz, l->rate_hz);
		c->rate_hz = l->rate_hz;
		return BN_OK;
	}
	if (o->rate_hz > 0 && !o->rate_advisory)
		return bn_err_set(err, BN_ERR_ARG,
				  "sigrok %s: samplerate %g Hz: the device has no samplerate to set (it is polled: one reading per channel per cycle, time-stamped on arrival; the rate it achieves is measured and reported): expected no capture_rate for it",
				  c->driver, o->rate_hz);
	c->rate_hz = 0;
	return BN_OK;
}

/* ---- acquisitions ---- */

static void on_packet(const struct sr_dev_inst *sdi, const struct sr_datafeed_packet *p,
		      void *cb_data)
{
	struct bn_sigrok_cap *c = cb_data;

	(void)sdi;
	bn_sigrok_feed_packet(c->feed, p);
}

static void *session_thread(void *data)
{
	struct bn_sigrok_cap *c = data;
	int ret = sr_session_run(c->sess);

	if (ret != SR_OK)
		bn_sigrok_feed_fail(c->feed, BN_ERR_FAULT, "sigrok %s: the session failed: %s",
				    c->driver, sr_strerror(ret));
	pthread_mutex_lock(&c->th_lock);
	c->th_done = true;
	pthread_cond_signal(&c->th_done_cond);
	pthread_mutex_unlock(&c->th_lock);
	return NULL;
}

/* Stop an acquisition that runs, and join its thread, waiting at most
 * SRC_STOP_MS: false when it did not come back (it stays live). */
static bool acq_stop(struct bn_sigrok_cap *c, int *sr_ret)
{
	struct timespec until;
	bool done;

	bn_sigrok_feed_stopping(c->feed);
	*sr_ret = sr_session_stop(c->sess);
	if (!c->thread_live)
		return true;
	/* sr_session_run returns once the driver has sent SR_DF_END. */
	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += SRC_STOP_MS / 1000;
	until.tv_nsec += (long)(SRC_STOP_MS % 1000) * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&c->th_lock);
	while (!c->th_done &&
	       pthread_cond_timedwait(&c->th_done_cond, &c->th_lock, &until) != ETIMEDOUT)
		;
	done = c->th_done;
	pthread_mutex_unlock(&c->th_lock);
	if (!done)
		return false;
	pthread_join(c->thread, NULL);
	c->thread_live = false;
	return true;
}

static int acq_start(struct bn_sigrok_cap *c, bool probe, struct bn_err *err)
{
	int ret;

	bn_sigrok_feed_begin(c->feed, probe);
	g_main_context_push_thread_default(c->mc);
	ret = sr_session_start(c->sess);
	g_main_context_pop_thread_default(c->mc);
	if (ret != SR_OK)
		return bn_err_set(err, BN_ERR_IO, "sigrok %s: cannot start acquiring from %s: %s",
				  c->driver, c->desc, sr_strerror(ret));
	c->th_done = false;
	ret = pthread_create(&c->thread, NULL, session_thread, c);
	if (ret != 0) {
		bn_err_set(err, BN_ERR_NOMEM, "sigrok %s: cannot start the session thread: %s",
			   c->driver, strerror(ret));
		/* Run the stop through here, in this thread. */
		bn_sigrok_feed_stopping(c->feed);
		sr_session_stop(c->sess);
		sr_session_run(c->sess);
		return BN_ERR_NOMEM;
	}
	c->thread_live = true;
	return BN_OK;
}

static int stuck(struct bn_sigrok_cap *c, struct bn_err *err)
{
	return bn_err_set(err, BN_ERR_FAULT,
			  "sigrok %s: %s did not stop within %.1f s of being asked: expected the driver to return (it is stuck in the device's I/O, e.g. a read of an instrument that stopped answering); the capture is abandoned",
			  c->driver, c->desc, SRC_STOP_MS / 1000.0);
}

/* What each mapped channel measures, from a short acquisition, checked
 * against the map before any run relies on it. */
static int check_channels(struct bn_sigrok_cap *c, struct bn_err *err)
{
	const struct timespec tick = { 0, 2000000L };
	int64_t give_up = bn_deadline_ms((int)(c->stall_us / 1000));
	bool all = false;
	int ret, rc = acq_start(c, true, err);

	if (rc < 0)
		return rc;
	while (!(all = bn_sigrok_feed_all_reported(c->feed)) &&
	       bn_sigrok_feed_error(c->feed, NULL) == BN_OK && bn_ms_left(give_up) > 0)
		nanosleep(&tick, NULL);
	if (!acq_stop(c, &ret))
		return stuck(c, err);
	rc = bn_sigrok_feed_error(c->feed, err);
	if (rc < 0)
		return rc;
	if (!all) {
		char silent[160] = "";
		size_t at = 0;

		for (int ch = 0; ch < BN_CH_COUNT; ch++) {
			struct bn_sigrok_chan_info in;

			if (bn_sigrok_feed_chan_info(c->feed, ch, &in) && !in.reported &&
			    at < sizeof(silent))
				at += (size_t)snprintf(silent + at, sizeof(silent) - at, "%s%s (%s)",
						       at ? ", " : "", in.dev_chan,
						       bn_chan_label(ch));
		}
		return bn_err_set(err, BN_ERR_FAULT,
				  "sigrok %s: %s sent no data on %s within %.1f s of starting: expected every mapped channel to deliver",
				  c->driver, c->desc, silent, (double)c->stall_us / 1e6);
	}
	return BN_OK;
}

static void cap_free(struct bn_sigrok_cap *c)
{
	detach(c);
	if (c->mc)
		g_main_context_unref(c->mc);
	bn_sigrok_feed_free(c->feed);
	pthread_cond_destroy(&c->th_done_cond);
	pthread_mutex_destroy(&c->th_lock);
	free(c);
}

/* Free the abandoned captures whose session thread has come back since
 * (the device answered, or its link closed). */
static void reap_abandoned(void)
{
	GSList *done = NULL;

	pthread_mutex_lock(&src_lib.lock);
	for (GSList *l = src_lib.abandoned, *next; l; l = next) {
		struct bn_sigrok_cap *c = l->data;
		bool back;

		next = l->next;
		pthread_mutex_lock(&c->th_lock);
		back = c->th_done;
		pthread_mutex_unlock(&c->th_lock);
		if (back) {
			src_lib.abandoned = g_slist_delete_link(src_lib.abandoned, l);
			done = g_slist_prepend(done, c);
		}
	}
	pthread_mutex_unlock(&src_lib.lock);
	for (GSList *l = done; l; l = l->next) {
		struct bn_sigrok_cap *c = l->data;

		pthread_join(c->thread, NULL);
		cap_free(c);
	}
	g_slist_free(done);
}

/* ---- SIGPIPE ---- */

/* libsigrok 0.5.2 writes to a tcp-raw instrument with send() and no
 * MSG_NOSIGNAL: one that went away would end the whole process with
 * SIGPIPE, the run's safe state and report with it. Around our calls into
 * libsigrok SIGPIPE is blocked in the calling thread (and so in the
 * session thread it creates, which inherits the mask), and one raised
 * meanwhile is taken off before the old mask is back: the write fails
 * with EPIPE instead, which the driver reports. */
static void nopipe_begin(sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &set, old);
}

static void nopipe_end(const sigset_t *old)
{
	const struct timespec zero = { 0, 0 };
	sigset_t set;

	if (sigismember(old, SIGPIPE))
		return;
	sigemptyset(&set);
	sigaddset(&set, SIGPIPE);
	while (sigtimedwait(&set, NULL, &zero) == SIGPIPE)
		;
	pthread_sigmask(SIG_SETMASK, old, NULL);
}

static void cap_close(struct bn_sigrok_cap *c);

/* ---- the API ---- */

static int cap_open(const struct bn_sigrok_cap_opts *o, struct bn_sigrok_cap **out,
		    struct bn_err *err)
{
	struct bn_sigrok_feed_cfg fc = { 0 };
	struct bn_sigrok_cap *c;
	pthread_condattr_t ca;
	double frames;
	int ret, rc;

	*out = NULL;
	reap_abandoned();
	if (!o || !o->driver || !*o->driver)
		return bn_err_set(err, BN_ERR_ARG, "sigrok: no driver given: expected a name such as \"demo\"");
	if (strlen(o->driver) >= sizeof(c->driver))
		return bn_err_set(err, BN_ERR_ARG, "sigrok: driver name \"%.40s...\" too long",
				  o->driver);
	if (!(o->rate_hz >= 0) || !(o->rate_hz <= SRC_RATE_MAX_HZ))
		return bn_err_set(err, BN_ERR_ARG,
				  "sigrok %s: samplerate %g Hz: expected a number of Hz above 0 and at most %g (or none)",
				  o->driver, o->rate_hz, SRC_RATE_MAX_HZ);
	if (o->stall_ms < 0)
		return bn_err_set(err, BN_ERR_ARG,
				  "sigrok %s: stall time %d ms: expected 0 (the default) or more",
				  o->driver, o->stall_ms);
	c = calloc(1, sizeof(*c));
	if (!c)
		return bn_err_set(err, BN_ERR_NOMEM, "sigrok %s: out of memory", o->driver);
	pthread_mutex_init(&c->th_lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&c->th_done_cond, &ca);
	pthread_condattr_destroy(&ca);
	c->map = o->map;
	c->stall_us = (bn_time_us)(o->stall_ms ? o->stall_ms : SRC_STALL_MS_DEFAULT) * 1000;
	rc = attach(c, o, err);
	if (rc == BN_OK)
		rc = resolve_channels(c, err);
	if (rc == BN_OK)
		rc = choose_rate(c, o, err);
	if (rc < 0)
		goto fail;

	frames = c->rate_hz * SRC_QUEUE_S;
	fc.driver = c->driver;
	fc.map = &c->map;
	memcpy(fc.chan, c->chan, sizeof(fc.chan));
	fc.rate_hz = c->rate_hz;
	fc.queue_frames = frames < SRC_QUEUE_MIN_FRAMES ? SRC_QUEUE_MIN_FRAMES
			  : frames > SRC_QUEUE_MAX_FRAMES ? SRC_QUEUE_MAX_FRAMES
							   : (size_t)frames;
	fc.stall_us = c->stall_us;
	rc = bn_sigrok_feed_new(&fc, &c->feed, err);
	if (rc < 0)
		goto fail;
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
	c->mc = g_main_context_new();
	rc = check_channels(c, err);
	if (rc < 0)
		goto fail;
	bn_dbg("%s: %zu-frame queue, channel mask 0x%x, %g Hz", c->desc, fc.queue_frames, c->mask,
	       c->rate_hz);
	*out = c;
	return BN_OK;
fail:
	cap_close(c);
	return rc;
}

const char *bn_sigrok_cap_describe(const struct bn_sigrok_cap *c)
{
	return c->desc;
}

void bn_sigrok_cap_freeze_clock(struct bn_sigrok_cap *c)
{
	bn_sigrok_feed_freeze_clock(c->feed);
}

bn_time_us bn_sigrok_cap_stall_us(const struct bn_sigrok_cap *c)
{
	return c->stall_us;
}

unsigned bn_sigrok_cap_channels(const struct bn_sigrok_cap *c)
{
	return c->mask;
}

double bn_sigrok_cap_rate(const struct bn_sigrok_cap *c)
{
	return c->rate_hz;
}

const struct bn_sigrok_limits *bn_sigrok_cap_limits(const struct bn_sigrok_cap *c)
{
	return &c->lim;
}

bool bn_sigrok_cap_chan_info(struct bn_sigrok_cap *c, enum bn_chan ch,
			     struct bn_sigrok_chan_info *out)
{
	return bn_sigrok_feed_chan_info(c->feed, ch, out);
}

void bn_sigrok_cap_timing(struct bn_sigrok_cap *c, struct bn_sigrok_timing *out)
{
	bn_sigrok_feed_timing(c->feed, out);
}

static int cap_start(struct bn_sigrok_cap *c, struct bn_err *err)
{
	int rc;

	if (c->state != SRC_OPEN)
		return bn_err_set(err, BN_ERR_ARG,
				  "sigrok %s: start: the capture was already started: expected one start per open",
				  c->driver);
	rc = acq_start(c, false, err);
	c->state = rc == BN_OK ? SRC_RUNNING : SRC_STOPPED;
	return rc;
}

long bn_sigrok_cap_read(struct bn_sigrok_cap *c, struct bn_cap_frame *frames, long max,
			struct bn_err *err)
{
	if (c->state == SRC_OPEN)
		return 0;
	return bn_sigrok_feed_read(c->feed, frames, max, err);
}

static int cap_stop(struct bn_sigrok_cap *c, struct bn_err *err)
{
	struct bn_sigrok_timing tm;
	int ret;

	if (c->state != SRC_RUNNING)
		return BN_OK;
	c->state = SRC_STOPPED;
	if (!acq_stop(c, &ret))
		return stuck(c, err);
	bn_sigrok_feed_timing(c->feed, &tm);
	if (tm.dropped)
		bn_warn("%s: %" PRId64 " of %" PRId64 " frames lost: the consumer polled too slowly",
			c->driver, tm.dropped, tm.frames);
	if (ret != SR_OK)
		return bn_err_set(err, BN_ERR_IO, "sigrok %s: cannot stop the acquisition: %s",
				  c->driver, sr_strerror(ret));
	return BN_OK;
}

int64_t bn_sigrok_cap_dropped(struct bn_sigrok_cap *c)
{
	struct bn_sigrok_timing tm;

	bn_sigrok_feed_timing(c->feed, &tm);
	return tm.dropped;
}

static void cap_close(struct bn_sigrok_cap *c)
{
	if (!c)
		return;
	if (c->state == SRC_RUNNING)
		cap_stop(c, NULL);
	if (c->thread_live) {
		/* Its thread still uses the session, the device and the feed:
		 * freed once it comes back, never under it. */
		bn_warn("%s: abandoned: its session thread is stuck in the driver", c->desc);
		pthread_mutex_lock(&src_lib.lock);
		src_lib.abandoned = g_slist_prepend(src_lib.abandoned, c);
		pthread_mutex_unlock(&src_lib.lock);
	} else {
		cap_free(c);
	}
	reap_abandoned();
}

static int dev_limits(const struct bn_sigrok_cap_opts *o, struct bn_sigrok_limits *out,
		      struct bn_err *err)
{
	struct bn_sigrok_cap *c;
	int rc;

	memset(out, 0, sizeof(*out));
	reap_abandoned();
	if (!o || !o->driver || !*o->driver)
		return bn_err_set(err, BN_ERR_ARG, "sigrok: no driver given: expected a name such as \"demo\"");
	if (strlen(o->driver) >= sizeof(c->driver))
		return bn_err_set(err, BN_ERR_ARG, "sigrok: driver name \"%.40s...\" too long",
				  o->driver);
	c = calloc(1, sizeof(*c));
	if (!c)
		return bn_err_set(err, BN_ERR_NOMEM, "sigrok %s: out of memory", o->driver);
	pthread_mutex_init(&c->th_lock, NULL);
	pthread_cond_init(&c->th_done_cond, NULL);
	rc = attach(c, o, err);
	if (rc == BN_OK)
		*out = c->lim;
	cap_free(c);
	return rc;
}

/* The API's entries that call into libsigrok, guarded. */

int bn_sigrok_cap_open(const struct bn_sigrok_cap_opts *o, struct bn_sigrok_cap **out,
		       struct bn_err *err)
{
	sigset_t old;
	int rc;

	nopipe_begin(&old);
	rc = cap_open(o, out, err);
	nopipe_end(&old);
	return rc;
}

int bn_sigrok_cap_start(struct bn_sigrok_cap *c, struct bn_err *err)
{
	sigset_t old;
	int rc;

	nopipe_begin(&old);
	rc = cap_start(c, err);
	nopipe_end(&old);
	return rc;
}

int bn_sigrok_cap_stop(struct bn_sigrok_cap *c, struct bn_err *err)
{
	sigset_t old;
	int rc;

	nopipe_begin(&old);
	rc = cap_stop(c, err);
	nopipe_end(&old);
	return rc;
}

void bn_sigrok_cap_close(struct bn_sigrok_cap *c)
{
	sigset_t old;

	nopipe_begin(&old);
	cap_close(c);
	nopipe_end(&old);
}

int bn_sigrok_dev_limits(const struct bn_sigrok_cap_opts *o, struct bn_sigrok_limits *out,
			 struct bn_err *err)
{
	sigset_t old;
	int rc;

	nopipe_begin(&old);
	rc = dev_limits(o, out, err);
	nopipe_end(&old);
	return rc;
}
