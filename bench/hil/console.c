/* Telemetry console: the line parser (pure) and the backend over
 * hil/serial.h. Format: docs/console-telemetry.md. */
#define BN_LOG_MODULE "console"
#include "hil/console.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/text.h"
#include "core/time.h"
#include "hil/serial.h"

#define LINE_MAX_LEN 512        /* longer lines are malformed (and dropped by the serial layer) */
#define QUOTE_LEN 160           /* how much of a bad line a message quotes */
#define QUOTE_VAL_LEN 40        /* and of a bad value */
#define DEFAULT_BAUD 115200     /* what device consoles use; bench.conf can say otherwise */
#define MAX_TOKENS 32

/* Ranges wide enough for any USB charging device; outside them a value is
 * line noise, not a measurement. */
#define ILIM_MA_MAX 10000
#define VBUS_MV_MAX 30000
#define BAT_MV_MAX 20000
#define BAT_MA_MAX 20000
#define CFG_VALUE_MAX 255
#define MAX_POWER_MA_MAX 2040   /* bMaxPower 255 x 8 mA (SuperSpeed) */

struct tok {
	char *key, *val;
};

struct pctx {
	const char *line;
	struct bn_err *err;
};

static int bad(const struct pctx *p, const char *fmt, const char *a, long v)
{
	char what[200];

	snprintf(what, sizeof(what), fmt, a, v);
	return bn_err_set(p->err, BN_ERR_DATA, "console line \"%.*s%s\": %s",
			  bn_utf8_prec(p->line, QUOTE_LEN), p->line,
			  strlen(p->line) > QUOTE_LEN ? "..." : "", what);
}

static int get_int(const struct pctx *p, const struct tok *t, long lo, long hi, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(t->val, &end, 10);
	if (!*t->val || *end || errno || isspace((unsigned char)*t->val) || *t->val == '+') {
		char what[64];

		bn_str_fmt(what, sizeof(what), "%s \"%.*s\": not a number", t->key,
			   bn_utf8_prec(t->val, QUOTE_VAL_LEN), t->val);
		return bad(p, "%s", what, 0);
	}
	if (v < lo || v > hi) {
		char what[128];

		bn_str_fmt(what, sizeof(what), "%s %ld: out of range %ld..%ld", t->key, v, lo, hi);
		return bad(p, "%s", what, 0);
	}
	*out = (int)v;
	return BN_OK;
}

static int get_port(const struct pctx *p, const struct tok *t, enum bn_port_type *out)
{
	char low[32], shown[QUOTE_VAL_LEN + 1];
	size_t i;

	for (i = 0; t->val[i] && i < sizeof(low) - 1; i++)
		low[i] = t->val[i] == '_' ? '-' : (char)tolower((unsigned char)t->val[i]);
	low[i] = 0;
	if (!t->val[i] && (!strcmp(low, "unknown") || !strcmp(low, "none"))) {
		*out = BN_PORT_UNKNOWN;
		return BN_OK;
	}
	*out = t->val[i] ? BN_PORT_UNKNOWN : bn_port_from_name(low);
	if (*out == BN_PORT_UNKNOWN)
		return bad(p, "port \"%s\": not a port type (sdp, cdp, dcp, aca-a, aca-b, aca-c, "
			      "aca-dock, otg, float, unknown)",
			   bn_str_copy(shown, sizeof(shown), t->val) ? shown : "", 0);
	return BN_OK;
}

static int get_state(const struct pctx *p, const struct tok *t, char *out)
{
	size_t n = strlen(t->val);
	char shown[QUOTE_VAL_LEN + 1];

	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)t->val[i]) && !strchr("_-.", t->val[i]))
			n = 0;
	if (n == 0 || n >= BN_CON_STATE_LEN)
		return bad(p, "state \"%s\": expected a word of 1 to 31 letters, digits, _ - .",
			   bn_str_copy(shown, sizeof(shown), t->val) ? shown : "", 0);
	memcpy(out, t->val, n + 1);
	return BN_OK;
}

static int parse_bc12(const struct pctx *p, struct tok *t, int n, struct bn_con_rec *r)
{
	bool have_port = false;
	int rc = BN_OK;

	for (int i = 0; i < n && rc == BN_OK; i++) {
		if (!strcmp(t[i].key, "port")) {
			rc = get_port(p, &t[i], &r->port);
			have_port = true;
		} else if (!strcmp(t[i].key, "state")) {
			rc = get_state(p, &t[i], r->state);
		} else if (!strcmp(t[i].key, "ilim_ma")) {
			rc = get_int(p, &t[i], 0, ILIM_MA_MAX, &r->ilim_ma);
		} else if (!strcmp(t[i].key, "vbus_mv")) {
			rc = get_int(p, &t[i], 0, VBUS_MV_MAX, &r->vbus_mv);
		}
	}
	if (rc < 0)
		return rc;
	if (have_port)
		r->kind = BN_CON_PORT;
	else if (r->state[0] && r->ilim_ma == BN_CON_ABSENT && r->vbus_mv == BN_CON_ABSENT)
		r->kind = BN_CON_STATE;
	else
		return bad(p, "bc12: missing port= (only a state record may leave it out)%s", "", 0);
	return 1;
}

static int parse_bat(const struct pctx *p, struct tok *t, int n, struct bn_con_rec *r)
{
	int rc = BN_OK;

	for (int i = 0; i < n && rc == BN_OK; i++) {
		if (!strcmp(t[i].key, "mv"))
			rc = get_int(p, &t[i], 0, BAT_MV_MAX, &r->bat_mv);
		else if (!strcmp(t[i].key, "ma"))
			rc = get_int(p, &t[i], -BAT_MA_MAX, BAT_MA_MAX, &r->bat_ma);
		else if (!strcmp(t[i].key, "soc_pct"))
			rc = get_int(p, &t[i], 0, 100, &r->soc_pct);
	}
	if (rc < 0)
		return rc;
	if (r->bat_mv == BN_CON_ABSENT)
		return bad(p, "bat: missing mv=%s", "", 0);
	r->kind = BN_CON_BAT;
	return 1;
}

static int parse_cfg(const struct pctx *p, struct tok *t, int n, struct bn_con_rec *r)
{
	int rc = BN_OK;

	for (int i = 0; i < n && rc == BN_OK; i++) {
		if (!strcmp(t[i].key, "value"))
			rc = get_int(p, &t[i], 0, CFG_VALUE_MAX, &r->cfg_value);
		else if (!strcmp(t[i].key, "max_power_ma"))
			rc = get_int(p, &t[i], 0, MAX_POWER_MA_MAX, &r->max_power_ma);
	}
	if (rc < 0)
		return rc;
	if (r->cfg_value == BN_CON_ABSENT)
		return bad(p, "cfg: missing value=%s", "", 0);
	r->kind = BN_CON_CFG;
	return 1;
}

static const struct {
	const char *tag;
	int (*parse)(const struct pctx *p, struct tok *t, int n, struct bn_con_rec *r);
} tags[] = {
	{ "bc12", parse_bc12 },
	{ "bat", parse_bat },
	{ "cfg", parse_cfg },
};

int bn_console_parse_line(const char *line, struct bn_con_rec *rec, struct bn_err *err)
{
	struct pctx p = { .line = line, .err = err };
	struct bn_con_rec r = {
		.ilim_ma = BN_CON_ABSENT, .vbus_mv = BN_CON_ABSENT,
		.bat_mv = BN_CON_ABSENT, .bat_ma = BN_CON_ABSENT, .soc_pct = BN_CON_ABSENT,
		.cfg_value = BN_CON_ABSENT, .max_power_ma = BN_CON_ABSENT,
	};
	char buf[LINE_MAX_LEN];
	struct tok t[MAX_TOKENS];
	size_t len = strlen(line), tl;
	int k = -1, n = 0, rc;
	char *s;

	while (len && (line[len - 1] == '\r' || line[len - 1] == '\n'))
		len--;
	for (size_t i = 0; i < sizeof(tags) / sizeof(tags[0]); i++) {
		tl = strlen(tags[i].tag);
		if (len >= tl && !strncmp(line, tags[i].tag, tl) &&
		    (len == tl || line[tl] == ' ' || line[tl] == '\t'))
			k = (int)i;
	}
	if (k < 0)
		return 0; /* not telemetry: a firmware log line */
	if (len >= sizeof(buf))
		return bad(&p, "longer than %s%ld bytes", "", (long)sizeof(buf) - 1);
	memcpy(buf, line, len);
	buf[len] = 0;
	s = buf + strlen(tags[k].tag);
	for (;;) {
		char *eq;

		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			break;
		if (n == MAX_TOKENS)
			return bad(&p, "more than %s%ld key=value tokens", "", MAX_TOKENS);
		t[n].key = s;
		while (*s && *s != ' ' && *s != '\t')
			s++;
		if (*s)
			*s++ = 0;
		eq = strchr(t[n].key, '=');
		if (!eq || eq == t[n].key)
			return bad(&p, "token \"%.40s\" is not key=value", t[n].key, 0);
		*eq = 0;
		t[n].val = eq + 1;
		n++;
	}
	rc = tags[k].parse(&p, t, n, &r);
	if (rc > 0)
		*rec = r;
	return rc;
}

/* ---- the backend ---- */

struct bn_console {
	struct bn_serial *ser;
	int n_malformed, n_skipped;
	char last_bad[BN_ERR_MSG_LEN];
};

int bn_console_open(const char *spec, struct bn_console **out, struct bn_err *err)
{
	char path[PATH_MAX];
	struct bn_console *c;
	int baud = DEFAULT_BAUD;
	int rc = bn_serial_parse_spec("console", "PORT[@BAUD], e.g. /dev/ttyACM0@115200", spec,
				      path, sizeof(path), &baud, err);

	*out = NULL;
	if (rc < 0)
		return rc;
	c = calloc(1, sizeof(*c));
	if (!c)
		return bn_err_set(err, BN_ERR_NOMEM, "console %s: out of memory", path);
	rc = bn_serial_open(path, baud, &c->ser, err);
	if (rc < 0) {
		free(c);
		/* the device is not there: a bench fault (exit 5), not bad input */
		return rc == BN_ERR_IO ? (err->code = BN_ERR_FAULT) : rc;
	}
	*out = c;
	return BN_OK;
}

static void malformed(struct bn_console *c, const char *msg)
{
	const char *path = bn_serial_path(c->ser);

	c->n_malformed++;
	snprintf(c->last_bad, sizeof(c->last_bad), "%s", msg);
	/* The serial layer's messages name the port already. */
	if (!strncmp(msg, path, strlen(path)))
		bn_warn("%s (line ignored)", msg);
	else
		bn_warn("%s: %s (line ignored)", path, msg);
}

int bn_console_next(struct bn_console *c, struct bn_con_rec *rec, int timeout_ms,
		    struct bn_err *err)
{
	int64_t deadline = bn_deadline_ms(timeout_ms);
	char line[LINE_MAX_LEN];

	for (;;) {
		struct bn_err e = { 0 };
		int rc = bn_serial_read_line(c->ser, line, sizeof(line), bn_ms_left(deadline), &e);
		if (rc == BN_ERR_DATA) {
			malformed(c, e.msg); /* too long: the serial layer dropped the rest */
			continue;
		}
		if (rc == BN_ERR_TIMEOUT)
			return bn_err_set(err, rc, "console %s: no telemetry within %d ms",
					  bn_serial_path(c->ser), timeout_ms);
		if (rc < 0)
			return bn_err_set(err, rc, "%s", e.msg);
		rc = bn_console_parse_line(line, rec, &e);
		if (rc > 0)
			return BN_OK;
		if (rc == 0)
			c->n_skipped++;
		else
			malformed(c, e.msg);
	}
}

int bn_console_malformed(const struct bn_console *c, const char **last)
{
	if (last)
		*last = c->last_bad;
	return c->n_malformed;
}

int bn_console_skipped(const struct bn_console *c)
{
	return c->n_skipped;
}

void bn_console_close(struct bn_console *c)
{
	if (!c)
		return;
	bn_serial_close(c->ser);
	free(c);
}
