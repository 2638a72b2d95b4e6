/* SCPI dialect files and the client that speaks them over a serial line
 * (hil/scpi.h). The dialect is data: this file knows the shape of a
 * dialect file, not any instrument's command strings. */
#define BN_LOG_MODULE "scpi"
#include "hil/scpi.h"
#include "hil/scpi_link.h"

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/json.h"
#include "core/log.h"

#define DEFAULT_TIMEOUT_MS 1000
#define DEFAULT_RETRIES 2
#define DEFAULT_BAUD 9600
#define REPLY_LEN 256

/* ---- templates ---- */

/* One conversion at t (just after a '%'): "%g", "%f", "%e", with an
 * optional precision ".N" (N < 10). Returns its length after the '%', or
 * 0 when it is not one of those. */
static size_t conv_len(const char *t, int *prec, char *conv)
{
	size_t i = 0;

	*prec = -1;
	if (t[i] == '.') {
		i++;
		if (!isdigit((unsigned char)t[i]) || isdigit((unsigned char)t[i + 1]))
			return 0;
		*prec = t[i++] - '0';
	}
	if (t[i] != 'g' && t[i] != 'f' && t[i] != 'e')
		return 0;
	*conv = t[i];
	return i + 1;
}

/* Count a template's number placeholders; -1 when one is not allowed. */
static int count_values(const char *t)
{
	int n = 0, prec;
	char conv;

	for (const char *p = t; *p; p++) {
		size_t l;

		if (*p != '%')
			continue;
		if (p[1] == '%') {
			p++;
			continue;
		}
		l = conv_len(p + 1, &prec, &conv);
		if (!l)
			return -1;
		n++;
		p += l;
	}
	return n;
}

/* The template with its placeholder (if any) replaced by value. */
static int format_cmd(const char *t, double value, char *out, size_t len)
{
	size_t o = 0;

	for (const char *p = t; *p; p++) {
		char num[64];
		int prec, w;
		char conv;
		size_t l;

		if (*p != '%') {
			num[0] = *p;
			num[1] = '\0';
		} else if (p[1] == '%') {
			strcpy(num, "%");
			p++;
		} else {
			char fmt[8] = "%.*";

			l = conv_len(p + 1, &prec, &conv);
			if (!l)
				return -1;
			p += l;
			fmt[prec >= 0 ? 3 : 1] = conv;
			fmt[prec >= 0 ? 4 : 2] = '\0';
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
			if (prec >= 0)
				w = snprintf(num, sizeof(num), fmt, prec, value);
			else
				w = snprintf(num, sizeof(num), fmt, value);
#pragma GCC diagnostic pop
			if (w < 0 || (size_t)w >= sizeof(num))
				return -1;
		}
		w = (int)strlen(num);
		if (o + (size_t)w >= len)
			return -1;
		memcpy(out + o, num, (size_t)w);
		o += (size_t)w;
	}
	out[o] = '\0';
	return 0;
}

/* ---- the dialect file ---- */

struct cmd_key {
	const char *key;
	enum bn_scpi_cmd cmd;
	int values;
	bool load, supply; /* required for that kind */
};

static const struct cmd_key cmd_keys[] = {
	{ "set_current", BN_SCPI_SET_CURRENT, 1, true, false },
	{ "set_voltage", BN_SCPI_SET_VOLTAGE, 1, false, true },
	{ "set_current_limit", BN_SCPI_SET_CURRENT_LIMIT, 1, false, true },
	{ "on", BN_SCPI_ON, 0, true, true },
	{ "off", BN_SCPI_OFF, 0, true, true },
};

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static int load_query(const cJSON *parent, const char *key, bool required,
		      struct bn_scpi_query *q, const char *file, struct bn_err *err)
{
	static const char *const known[] = { "query", "prefix", "unit", NULL };
	const cJSON *obj = cJSON_GetObjectItemCaseSensitive(parent, key);
	char what[BN_SCPI_PATH_LEN + 64];
	int rc;

	memset(q, 0, sizeof(*q));
	if (!obj) {
		if (!required)
			return BN_OK;
		return bn_err_set(err, BN_ERR_DATA, "%s: queries: missing key \"%s\"", file, key);
	}
	snprintf(what, sizeof(what), "%s: queries.%s", file, key);
	rc = bn_json_check_keys(obj, known, what, err);
	if (rc == BN_OK)
		rc = bn_json_str(obj, "query", true, q->query, sizeof(q->query), what, err);
	if (rc == BN_OK)
		rc = bn_json_str(obj, "prefix", false, q->prefix, sizeof(q->prefix), what, err);
	if (rc == BN_OK)
		rc = bn_json_str(obj, "unit", false, q->suffix, sizeof(q->suffix), what, err);
	if (rc == BN_OK && !q->query[0])
		rc = bn_err_set(err, BN_ERR_DATA, "%s: key \"query\": empty", what);
	return rc;
}

static int load_seq(const cJSON *root, const char *key, char seq[][BN_SCPI_LINE_LEN], int *n,
		    bool required, const char *file, struct bn_err *err)
{
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(root, key);
	const cJSON *it;
	int i = 0;

	*n = 0;
	if (!arr) {
		if (!required)
			return BN_OK;
		return bn_err_set(err, BN_ERR_DATA, "%s: missing key \"%s\"", file, key);
	}
	if (!cJSON_IsArray(arr))
		return bn_err_set(err, BN_ERR_DATA, "%s: key \"%s\": expected an array of commands",
				  file, key);
	cJSON_ArrayForEach(it, arr)
	{
		if (!cJSON_IsString(it) || !it->valuestring || !it->valuestring[0])
			return bn_err_set(err, BN_ERR_DATA,
					  "%s: key \"%s\"[%d]: expected a non-empty string", file,
					  key, i);
		if (i >= BN_SCPI_SEQ_MAX)
			return bn_err_set(err, BN_ERR_DATA, "%s: key \"%s\": more than %d commands",
					  file, key, BN_SCPI_SEQ_MAX);
		if (strlen(it->valuestring) >= BN_SCPI_LINE_LEN)
			return bn_err_set(err, BN_ERR_DATA,
					  "%s: key \"%s\"[%d]: longer than %d bytes", file, key, i,
					  BN_SCPI_LINE_LEN - 1);
		if (count_values(it->valuestring) != 0)
			return bn_err_set(err, BN_ERR_DATA,
					  "%s: key \"%s\"[%d]: \"%s\": a sequence command takes no "
					  "value (write %%%% for a %%)",
					  file, key, i, it->valuestring);
		strcpy(seq[i++], it->valuestring);
	}
	*n = i;
	if (required && i == 0)
		return bn_err_set(err, BN_ERR_DATA, "%s: key \"%s\": empty", file, key);
	return BN_OK;
}

static int load_commands(const cJSON *root, struct bn_scpi_dialect *d, const char *file,
			 struct bn_err *err)
{
	static const char *const known[] = { "set_current", "set_voltage", "set_current_limit",
					     "on", "off", NULL };
	const cJSON *obj = cJSON_GetObjectItemCaseSensitive(root, "commands");
	char what[BN_SCPI_PATH_LEN + 32];
	int rc;

	if (!obj)
		return bn_err_set(err, BN_ERR_DATA, "%s: missing key \"commands\"", file);
	snprintf(what, sizeof(what), "%s: commands", file);
	rc = bn_json_check_keys(obj, known, what, err);
	for (size_t i = 0; rc == BN_OK && i < N_OF(cmd_keys); i++) {
		const struct cmd_key *k = &cmd_keys[i];
		bool req = d->kind == BN_SCPI_LOAD ? k->load : k->supply;
		char *t = d->cmd[k->cmd];
		int n;

		rc = bn_json_str(obj, k->key, req, t, BN_SCPI_LINE_LEN, what, err);
		if (rc < 0 || !t[0])
			continue;
		n = count_values(t);
		if (n != k->values)
			rc = bn_err_set(err, BN_ERR_DATA,
					"%s: key \"%s\": \"%s\": expected %s (%%g, %%f or %%e, "
					"e.g. %%.3f; %%%% for a %%)",
					what, k->key, t,
					k->values ? "one number placeholder" : "no placeholder");
	}
	return rc;
}

int bn_scpi_dialect_load(const char *path, struct bn_scpi_dialect *d, struct bn_err *err)
{
	static const char *const known[] = { "name",     "kind",  "description", "baud",
					     "line_end", "identify", "init",    "commands",
					     "queries",  "safe",  "error_query", NULL };
	static const char *const idn_keys[] = { "query", "expect", NULL };
	static const char *const errq_keys[] = { "query", "ok", NULL };
	static const char *const q_keys[] = { "voltage", "current", NULL };
	char what[BN_SCPI_PATH_LEN + 32];
	char kind[16] = "";
	double baud = DEFAULT_BAUD;
	const cJSON *obj;
	cJSON *root = NULL;
	int rc;

	memset(d, 0, sizeof(*d));
	if (strlen(path) >= sizeof(d->file))
		return bn_err_set(err, BN_ERR_ARG, "dialect file path too long: \"%.64s...\"",
				  path);
	strcpy(d->file, path);
	rc = bn_json_load(path, &root, err);
	if (rc < 0)
		return rc;
	rc = bn_json_check_keys(root, known, path, err);
	if (rc == BN_OK)
		rc = bn_json_str(root, "name", true, d->name, sizeof(d->name), path, err);
	if (rc == BN_OK)
		rc = bn_json_str(root, "kind", true, kind, sizeof(kind), path, err);
	if (rc == BN_OK) {
		if (!strcmp(kind, "load"))
			d->kind = BN_SCPI_LOAD;
		else if (!strcmp(kind, "supply"))
			d->kind = BN_SCPI_SUPPLY;
		else
			rc = bn_err_set(err, BN_ERR_DATA,
					"%s: key \"kind\": \"%s\": expected \"load\" or \"supply\"",
					path, kind);
	}
	if (rc == BN_OK)
		rc = bn_json_num(root, "baud", false, &baud, path, err);
	if (rc == BN_OK && (baud < 50 || baud > 4000000 || baud != floor(baud)))
		rc = bn_err_set(err, BN_ERR_DATA, "%s: key \"baud\": %g is not a baud rate", path,
				baud);
	if (rc == BN_OK) /* out of int's range before the check: undefined */
		d->baud = (int)baud;
	strcpy(d->line_end, "\n");
	if (rc == BN_OK)
		rc = bn_json_str(root, "line_end", false, d->line_end, sizeof(d->line_end), path,
				 err);
	if (rc == BN_OK && strcmp(d->line_end, "\n") && strcmp(d->line_end, "\r\n") &&
	    strcmp(d->line_end, "\r"))
		rc = bn_err_set(err, BN_ERR_DATA,
				"%s: key \"line_end\": expected \"\\n\", \"\\r\\n\" or \"\\r\"",
				path);

	/* identify */
	snprintf(what, sizeof(what), "%s: identify", path);
	obj = cJSON_GetObjectItemCaseSensitive(root, "identify");
	if (rc == BN_OK && !obj)
		rc = bn_err_set(err, BN_ERR_DATA, "%s: missing key \"identify\"", path);
	if (rc == BN_OK)
		rc = bn_json_check_keys(obj, idn_keys, what, err);
	if (rc == BN_OK)
		rc = bn_json_str(obj, "query", true, d->idn_query, sizeof(d->idn_query), what, err);
	if (rc == BN_OK)
		rc = bn_json_str(obj, "expect", true, d->idn_expect, sizeof(d->idn_expect), what,
				 err);

	if (rc == BN_OK)
		rc = load_commands(root, d, path, err);

	/* queries */
	obj = cJSON_GetObjectItemCaseSensitive(root, "queries");
	snprintf(what, sizeof(what), "%s: queries", path);
	if (rc == BN_OK && !obj)
		rc = bn_err_set(err, BN_ERR_DATA, "%s: missing key \"queries\"", path);
	if (rc == BN_OK)
		rc = bn_json_check_keys(obj, q_keys, what, err);
	if (rc == BN_OK)
		rc = load_query(obj, "voltage", true, &d->voltage, path, err);
	if (rc == BN_OK)
		rc = load_query(obj, "current", true, &d->current, path, err);

	if (rc == BN_OK)
		rc = load_seq(root, "init", d->init, &d->n_init, false, path, err);
	if (rc == BN_OK)
		rc = load_seq(root, "safe", d->safe, &d->n_safe, true, path, err);

	/* error_query (optional) */
	obj = cJSON_GetObjectItemCaseSensitive(root, "error_query");
	snprintf(what, sizeof(what), "%s: error_query", path);
	if (rc == BN_OK && obj) {
		rc = bn_json_check_keys(obj, errq_keys, what, err);
		if (rc == BN_OK)
			rc = bn_json_str(obj, "query", true, d->err_query, sizeof(d->err_query),
					 what, err);
		if (rc == BN_OK)
			rc = bn_json_str(obj, "ok", true, d->err_ok, sizeof(d->err_ok), what, err);
	}
	cJSON_Delete(root);
	return rc;
}

void bn_scpi_dialect_path(const char *file, const char *datadir, char *buf, size_t len)
{
	const char *base = strrchr(file, '/');
	size_t n;

	base = base ? base + 1 : file;
	n = strlen(base);
	if (access(file, R_OK) == 0 || (n > 5 && !strcmp(base + n - 5, ".json"))) {
		snprintf(buf, len, "%s", file);
		return;
	}
	snprintf(buf, len, "%s/profiles/instruments/%s.json", datadir && *datadir ? datadir : ".",
		 base);
}

/* ---- replies ---- */

/* s as a quoted-safe excerpt: printable ASCII kept, the rest \xNN. */
static void excerpt(const char *s, char *out, size_t len)
{
	size_t o = 0;

	for (; *s && o + 5 < len; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch >= 0x20 && ch < 0x7f && ch != '"' && ch != '\\')
			out[o++] = (char)ch;
		else
			o += (size_t)snprintf(out + o, len - o, "\\x%02x", ch);
	}
	if (*s && o + 4 <= len) {
		memcpy(out + o, "...", 3);
		o += 3;
	}
	out[o] = '\0';
}

int bn_scpi_parse_num(const struct bn_scpi_query *q, const char *reply, double *out,
		      const char *what, struct bn_err *err)
{
	char buf[REPLY_LEN], ex[REPLY_LEN];
	char *p = buf, *end;
	size_t n, pl = strlen(q->prefix), sl = strlen(q->suffix);
	bool ok = false;
	double v = 0;

	snprintf(buf, sizeof(buf), "%s", reply);
	while (*p == ' ' || *p == '\t')
		p++;
	n = strlen(p);
	while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t'))
		p[--n] = '\0';
	if (pl && !strncasecmp(p, q->prefix, pl)) {
		p += pl;
		n -= pl;
	} else if (pl) {
		goto done;
	}
	if (sl && n >= sl && !strcasecmp(p + n - sl, q->suffix))
		p[n -= sl] = '\0';
	else if (sl)
		goto done;
	while (*p == ' ')
		p++;
	errno = 0;
	v = strtod(p, &end);
	while (*end == ' ')
		end++;
	ok = end != p && *end == '\0' && errno == 0 && isfinite(v);
done:
	if (ok) {
		*out = v;
		return BN_OK;
	}
	excerpt(reply, ex, 80);
	if (sl)
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: expected a number with unit \"%s\", got \"%s\"", what,
				  q->suffix, ex);
	return bn_err_set(err, BN_ERR_DATA, "%s: expected a number, got \"%s\"", what, ex);
}

/* ---- the client ---- */

static const char *port_of(const struct bn_scpi *c)
{
	return bn_serial_path(c->ser);
}

/* The serial layer's error, restated for a command or query: its message
 * already names the port. A vanished instrument is a bench fault. */
static int lost_or(struct bn_scpi *c, const char *line, int rc, const struct bn_err *e,
		   struct bn_err *err)
{
	const char *port = port_of(c);
	const char *why = e->msg;
	size_t n = strlen(port);

	if (!strncmp(why, port, n) && !strncmp(why + n, ": ", 2))
		why += n + 2;
	if (rc == BN_ERR_IO)
		return bn_err_set(err, BN_ERR_FAULT, "%s: %s: instrument lost (%s)", port, line,
				  why);
	return bn_err_set(err, rc, "%s: %s: %s", port, line, why);
}

static int write_line(struct bn_scpi *c, const char *line, struct bn_err *err)
{
	char buf[BN_SCPI_LINE_LEN + 8];
	struct bn_err e = { 0 };
	int n = snprintf(buf, sizeof(buf), "%s%s", line, c->d.line_end);
	int rc;

	if (n < 0 || (size_t)n >= sizeof(buf))
		return bn_err_set(err, BN_ERR_ARG, "%s: %.40s...: command too long", port_of(c),
				  line);
	bn_dbg("%s: > %s", port_of(c), line);
	rc = bn_serial_write(c->ser, buf, (size_t)n, c->timeout_ms, &e);
	if (rc < 0)
		return lost_or(c, line, rc, &e, err);
	return BN_OK;
}

int bn_scpi_query(struct bn_scpi *c, const char *query, char *reply, size_t cap,
		  struct bn_err *err)
{
	struct bn_err e = { 0 };
	int rc = BN_ERR_TIMEOUT;

	if (!c->ser)
		return bn_err_set(err, BN_ERR_ARG, "scpi: %s: not open", query);
	for (int attempt = 0; attempt <= c->retries; attempt++) {
		bn_serial_flush_input(c->ser);
		rc = write_line(c, query, err);
		if (rc < 0)
			return rc;
		bn_err_clear(&e);
		rc = bn_serial_read_line(c->ser, reply, cap, c->timeout_ms, &e);
		if (rc >= 0) {
			bn_dbg("%s: < %s", port_of(c), reply);
			return BN_OK;
		}
		if (rc != BN_ERR_TIMEOUT)
			return lost_or(c, query, rc, &e, err);
		bn_dbg("%s: %s: no answer in %d ms (attempt %d)", port_of(c), query, c->timeout_ms,
		       attempt + 1);
	}
	return bn_err_set(err, BN_ERR_TIMEOUT, "%s: %s: no answer in %d ms (%d retries)",
			  port_of(c), query, c->timeout_ms, c->retries);
}

int bn_scpi_query_num(struct bn_scpi *c, const struct bn_scpi_query *q, double *out,
		      struct bn_err *err)
{
	char reply[REPLY_LEN], what[BN_SCPI_PATH_LEN + BN_SCPI_LINE_LEN];
	int rc = bn_scpi_query(c, q->query, reply, sizeof(reply), err);

	if (rc < 0)
		return rc;
	snprintf(what, sizeof(what), "%s: %s", port_of(c), q->query);
	return bn_scpi_parse_num(q, reply, out, what, err);
}

int bn_scpi_send(struct bn_scpi *c, const char *line, struct bn_err *err)
{
	char reply[REPLY_LEN], ex[REPLY_LEN];
	int rc;

	if (!c->ser)
		return bn_err_set(err, BN_ERR_ARG, "scpi: %s: not open", line);
	rc = write_line(c, line, err);
	if (rc < 0 || !c->d.err_query[0])
		return rc;
	rc = bn_scpi_query(c, c->d.err_query, reply, sizeof(reply), err);
	if (rc < 0)
		return rc;
	if (fnmatch(c->d.err_ok, reply, 0) != 0) {
		excerpt(reply, ex, 80);
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: %s: the instrument reports an error: %s gave \"%s\"",
				  port_of(c), line, c->d.err_query, ex);
	}
	return BN_OK;
}

static const char *const cmd_names[BN_SCPI_N_CMD] = {
	[BN_SCPI_SET_CURRENT] = "set_current",
	[BN_SCPI_SET_VOLTAGE] = "set_voltage",
	[BN_SCPI_SET_CURRENT_LIMIT] = "set_current_limit",
	[BN_SCPI_ON] = "on",
	[BN_SCPI_OFF] = "off",
};

int bn_scpi_command(struct bn_scpi *c, enum bn_scpi_cmd cmd, double value, struct bn_err *err)
{
	char line[BN_SCPI_LINE_LEN];

	if ((unsigned)cmd >= BN_SCPI_N_CMD)
		return bn_err_set(err, BN_ERR_BUG, "scpi: command %d out of range", (int)cmd);
	if (!c->d.cmd[cmd][0])
		return bn_err_set(err, BN_ERR_NA, "%s: the dialect has no command \"%s\"",
				  c->d.file, cmd_names[cmd]);
	if (!isfinite(value) || format_cmd(c->d.cmd[cmd], value, line, sizeof(line)) < 0)
		return bn_err_set(err, BN_ERR_ARG, "%s: %s: cannot write %g into \"%s\"",
				  port_of(c), cmd_names[cmd], value, c->d.cmd[cmd]);
	return bn_scpi_send(c, line, err);
}

int bn_scpi_safe(struct bn_scpi *c, struct bn_err *err)
{
	int first = BN_OK;

	if (!c->ser)
		return BN_OK;
	for (int i = 0; i < c->d.n_safe; i++) {
		struct bn_err e = { 0 };
		int rc = bn_scpi_send(c, c->d.safe[i], &e);

		if (rc < 0 && first == BN_OK)
			first = bn_err_set(err, rc, "%s", e.msg);
		else if (rc < 0)
			bn_warn("%s", e.msg);
	}
	return first;
}

int bn_scpi_open(struct bn_scpi *c, const struct bn_backend_open *o, enum bn_scpi_kind want,
		 struct bn_err *err)
{
	const char *role = want == BN_SCPI_LOAD ? "load" : "supply";
	char port[BN_SCPI_PATH_LEN], file[BN_SCPI_PATH_LEN], reply[REPLY_LEN], ex[REPLY_LEN];
	enum bn_scpi_link_kind link;
	int baud = 0, rc;

	memset(c, 0, sizeof(*c));
	if (!o || !o->file || !o->file[0])
		return bn_err_set(err, BN_ERR_ARG,
				  "%s \"scpi\": no dialect given (%s_dialect = NAME, a file under "
				  "profiles/instruments)",
				  role, role);
	rc = bn_scpi_link_kind(o->spec ? o->spec : "", &link, err);
	if (rc < 0)
		return rc;
	if (link == BN_LINK_SERIAL)
		rc = bn_serial_parse_spec("scpi", "scpi:PORT[@BAUD], e.g. scpi:/dev/ttyUSB0@9600, "
					  "scpi:tcp-raw/HOST/PORT or scpi:usbtmc:/dev/usbtmc0",
					  o->spec ? o->spec : "", port, sizeof(port), &baud, err);
	else if (strlen(o->spec) >= sizeof(port))
		rc = bn_err_set(err, BN_ERR_ARG, "scpi \"%.200s\": too long", o->spec);
	else
		snprintf(port, sizeof(port), "%s", o->spec);
	if (rc < 0)
		return rc;
	bn_scpi_dialect_path(o->file, o->datadir, file, sizeof(file));
	rc = bn_scpi_dialect_load(file, &c->d, err);
	if (rc < 0)
		return rc;
	if (c->d.kind != want)
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: key \"kind\": the dialect \"%s\" is a %s, not a %s", file,
				  c->d.name, want == BN_SCPI_LOAD ? "supply" : "load", role);
	c->timeout_ms = o->timeout_ms > 0 ? o->timeout_ms : DEFAULT_TIMEOUT_MS;
	c->retries = o->retries >= 0 ? o->retries : DEFAULT_RETRIES;
	if (link == BN_LINK_SERIAL)
		rc = bn_serial_open(port, baud ? baud : c->d.baud, &c->ser, err);
	else
		rc = bn_scpi_link_open(port, c->timeout_ms, &c->ser, err);
	if (rc == BN_ERR_IO) /* the instrument is not there: a bench fault, not bad input */
		return err->code = BN_ERR_FAULT;
	if (rc < 0)
		return rc;
	rc = bn_scpi_query(c, c->d.idn_query, reply, sizeof(reply), err);
	if (rc == BN_OK && fnmatch(c->d.idn_expect, reply, 0) != 0) {
		excerpt(reply, ex, 120);
		rc = bn_err_set(err, BN_ERR_DATA,
				"%s: %s: \"%s\" is not a %s (dialect %s expects \"%s\")", port,
				c->d.idn_query, ex, c->d.name, file, c->d.idn_expect);
	}
	if (rc < 0) {
		/* Not ours, or silent: send it nothing else. */
		bn_serial_close(c->ser);
		c->ser = NULL;
		return rc;
	}
	rc = (int)strnlen(reply, sizeof(c->idn) - 1); /* kept for the log, may be cut */
	memcpy(c->idn, reply, (size_t)rc);
	c->idn[rc] = '\0';
	rc = BN_OK;
	bn_info("%s: %s \"%s\" (%s)", port, role, reply, c->d.name);
	for (int i = 0; rc == BN_OK && i < c->d.n_init; i++)
		rc = bn_scpi_send(c, c->d.init[i], err);
	if (rc < 0) {
		bn_scpi_close(c);
		return rc;
	}
	return BN_OK;
}

void bn_scpi_identity(void *priv, char *buf, size_t len)
{
	const struct bn_scpi *c = priv;

	snprintf(buf, len, "%s on %s", c->idn[0] ? c->idn : c->d.name,
		 c->ser ? bn_serial_path(c->ser) : "?");
}

void bn_scpi_close(struct bn_scpi *c)
{
	struct bn_err e = { 0 };

	if (!c || !c->ser)
		return;
	if (bn_scpi_safe(c, &e) < 0)
		bn_err_log("%s", e.msg);
	bn_serial_close(c->ser);
	c->ser = NULL;
}
