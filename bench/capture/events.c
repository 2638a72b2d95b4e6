#include "capture/events.h"

#include <errno.h>

#include <glib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/channel.h"
#include "core/file.h"
#include "core/json.h"

static const enum bn_cev_origin kind_origin[BN_CEV_COUNT] = {
	[BN_CEV_VBUS_ON] = BN_ORIGIN_FIXTURE,    [BN_CEV_VBUS_OFF] = BN_ORIGIN_FIXTURE,
	[BN_CEV_DATA_CONTACT] = BN_ORIGIN_FIXTURE, [BN_CEV_CONNECT] = BN_ORIGIN_HOST,
	[BN_CEV_DISCONNECT] = BN_ORIGIN_HOST,    [BN_CEV_CONFIG] = BN_ORIGIN_HOST,
	[BN_CEV_SUSPEND] = BN_ORIGIN_HOST,       [BN_CEV_RESUME] = BN_ORIGIN_HOST,
	[BN_CEV_PERIPHERAL] = BN_ORIGIN_HOST,    [BN_CEV_LOAD] = BN_ORIGIN_FIXTURE,
	[BN_CEV_TELEMETRY] = BN_ORIGIN_DUT,      [BN_CEV_MARK] = BN_ORIGIN_FIXTURE,
};

static const char *const origin_names[BN_ORIGIN_COUNT] = { "fixture", "host", "dut" };

/* Declaration bits by name, in enum bn_decl_bit order. */
static const char *const decl_names[] = { "battery", "dbp", "dead_battery",
					  "otg", "secondary_detection", "droop" };
#define N_DECL ((int)(sizeof(decl_names) / sizeof(decl_names[0])))

enum bn_cev_origin bn_cev_origin(enum bn_cev_kind k)
{
	return (unsigned)k < BN_CEV_COUNT ? kind_origin[k] : BN_ORIGIN_DUT;
}

const char *bn_origin_name(enum bn_cev_origin o)
{
	return (unsigned)o < BN_ORIGIN_COUNT ? origin_names[o] : "?";
}

unsigned bn_origin_kinds(unsigned origin_mask)
{
	unsigned kinds = 0;

	for (int k = 0; k < BN_CEV_COUNT; k++)
		if (origin_mask & (1u << kind_origin[k]))
			kinds |= BN_CEV_BIT(k);
	return kinds;
}

int bn_origins_parse(const char *list, unsigned *mask, const char *what, struct bn_err *err)
{
	char buf[256], *save = NULL, *tok;

	*mask = 0;
	snprintf(buf, sizeof(buf), "%s", list);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int o;

		for (o = 0; o < BN_ORIGIN_COUNT; o++)
			if (!strcmp(tok, origin_names[o]))
				break;
		if (o == BN_ORIGIN_COUNT)
			return bn_err_set(err, BN_ERR_ARG,
					  "%s: unknown event origin \"%s\" (expected fixture, host "
					  "or dut, comma-separated)",
					  what, tok);
		*mask |= 1u << o;
	}
	if (!*mask)
		return bn_err_set(err, BN_ERR_ARG, "%s: expected fixture, host or dut", what);
	return BN_OK;
}

/* ---- writer ---- */

struct bn_evlog {
	struct bn_afile af;
	long n;
	unsigned known;
	int io_errno; /* sticky: the first write that failed, 0 none */
	/* what a real device advertised when it enumerated (bn_evlog_configs) */
	int n_cfg;    /* -1: it did not */
	int cfg_value[8];
	double cfg_max_power_a[8];
};

/* The stream's first write error, kept with its errno (fflush says it;
 * by commit time errno is long gone). */
static void note_io(struct bn_evlog *l, int failed)
{
	if (failed && !l->io_errno)
		l->io_errno = errno ? errno : EIO;
}

static const char *chan_where(int ch)
{
	switch (ch) {
	case BN_CH_VBUS: return "device receptacle, after the cable";
	case BN_CH_IBUS: return "device input current, signed (negative when the device sources VBUS)";
	default: return "device receptacle, to GND";
	}
}

static cJSON *kinds_json(unsigned kinds)
{
	cJSON *a = cJSON_CreateArray();

	for (int k = 0; k < BN_CEV_COUNT; k++)
		if (kinds & BN_CEV_BIT(k))
			cJSON_AddItemToArray(a, cJSON_CreateString(bn_cev_name(k)));
	return a;
}

/* The port as the header and a move record it: profile name, type and
 * the network a replay rebuilds. */
static void add_port(cJSON *parent, const char *profile, const struct bn_check_ctx *ctx)
{
	cJSON *port = cJSON_AddObjectToObject(parent, "port");

	cJSON_AddStringToObject(port, "profile", profile ? profile : "");
	cJSON_AddStringToObject(port, "type", bn_port_name(ctx->port));
	cJSON_AddNumberToObject(port, "dp_pulldown_ohm", ctx->dp_pulldown_ohm);
	cJSON_AddNumberToObject(port, "dm_pulldown_ohm", ctx->dm_pulldown_ohm);
	cJSON_AddNumberToObject(port, "dp_dm_short_ohm", ctx->dp_dm_short_ohm);
}

/* The charger behind the port, as the port rules knew it (absent when
 * not known). */
static void add_charger(cJSON *parent, const struct bn_check_ctx *ctx)
{
	cJSON *o;

	if (!ctx->charger_name)
		return;
	o = cJSON_AddObjectToObject(parent, "charger");
	cJSON_AddStringToObject(o, "name", ctx->charger_name);
	cJSON_AddNumberToObject(o, "rated_a", ctx->charger_rated_a);
	if (!isnan(ctx->cable_ohm))
		cJSON_AddNumberToObject(o, "cable_ohm", ctx->cable_ohm);
	cJSON_AddNumberToObject(o, "cable_u_ohm", ctx->cable_u_ohm);
	if (ctx->charger_compliant >= 0)
		cJSON_AddBoolToObject(o, "compliant", ctx->charger_compliant == 1);
}

/* ... and the bench's probe network (a port scenario's). */
static void add_charger_probe(cJSON *root, const struct bn_check_ctx *ctx)
{
	const struct bn_probe *p = &ctx->probe;
	cJSON *o;

	add_charger(root, ctx);
	if (!p->present)
		return;
	o = cJSON_AddObjectToObject(root, "probe");
	cJSON_AddNumberToObject(o, "idp_src_a", p->idp_src_a);
	cJSON_AddNumberToObject(o, "vdp_src_v", p->vdp_src_v);
	cJSON_AddNumberToObject(o, "idm_sink_a", p->idm_sink_a);
	cJSON_AddNumberToObject(o, "vdm_src_v", p->vdm_src_v);
	cJSON_AddNumberToObject(o, "idp_sink_a", p->idp_sink_a);
	cJSON_AddNumberToObject(o, "rdm_dwn_ohm", p->rdm_dwn_ohm);
	cJSON_AddNumberToObject(o, "i_u_rel", p->i_u_rel);
	if (isinf(p->sec_after_s))
		cJSON_AddStringToObject(o, "sec_after_s", "never");
	else if (!isnan(p->sec_after_s))
		cJSON_AddNumberToObject(o, "sec_after_s", p->sec_after_s);
}

static cJSON *header_json(const struct bn_check_ctx *ctx, const struct bn_evlog_meta *m)
{
	cJSON *root = cJSON_CreateObject(), *o, *a, *dut;

	cJSON_AddStringToObject(root, "schema", BN_EVENTS_SCHEMA);
	if (m->scenario)
		cJSON_AddStringToObject(root, "scenario", m->scenario);
	o = cJSON_AddObjectToObject(root, "capture");
	if (m->capture_file)
		cJSON_AddStringToObject(o, "file", m->capture_file);
	else
		cJSON_AddNullToObject(o, "file");
	cJSON_AddNumberToObject(o, "rate_hz", ctx->rate_hz);
	cJSON_AddNumberToObject(o, "t0_us", (double)ctx->t_start_us);
	a = cJSON_AddArrayToObject(o, "channels");
	for (int ch = 0; ch < BN_CH_COUNT; ch++) {
		cJSON *c;

		if (!(ctx->channels & (1u << ch)))
			continue;
		c = cJSON_CreateObject();
		cJSON_AddStringToObject(c, "name", bn_chan_label(ch));
		cJSON_AddStringToObject(c, "unit", bn_chan_unit(ch));
		cJSON_AddStringToObject(c, "where", chan_where(ch));
		/* How it was measured, so a replay judges with the same
		 * uncertainty; an estimated one is left to the replay's own. */
		if (ctx->meas_src[ch] != BN_MEAS_SRC_ESTIMATED) {
			char spec[200];

			bn_meas_format(&ctx->meas[ch], ch == BN_CH_IBUS ? BN_DIM_A : BN_DIM_V, spec,
				       sizeof(spec));
			cJSON_AddStringToObject(c, "measurement", spec);
		}
		cJSON_AddItemToArray(a, c);
	}
	add_port(root, m->port_profile, ctx);
	add_charger_probe(root, ctx);
	dut = cJSON_AddObjectToObject(root, "dut");
	cJSON_AddStringToObject(dut, "name", m->dut_name ? m->dut_name : "");
	a = cJSON_AddArrayToObject(dut, "declares");
	for (int i = 0; i < N_DECL; i++)
		if (ctx->decl & (1u << i))
			cJSON_AddItemToArray(a, cJSON_CreateString(decl_names[i]));
	cJSON_AddNumberToObject(dut, "droop_threshold_v", ctx->droop_threshold_v);
	cJSON_AddNumberToObject(dut, "otg_rating_a", ctx->otg_rating_a);
	if (ctx->configs_known) {
		a = cJSON_AddArrayToObject(dut, "configurations");
		for (int i = 0; i < ctx->n_configs; i++) {
			cJSON *c = cJSON_CreateObject();

			cJSON_AddNumberToObject(c, "value", ctx->config_value[i]);
			cJSON_AddNumberToObject(c, "max_power_a", ctx->config_max_power_a[i]);
			cJSON_AddItemToArray(a, c);
		}
	}
	cJSON_AddItemToObject(root, "known", kinds_json(ctx->events));
	return root;
}

int bn_evlog_open(const char *path, const struct bn_check_ctx *ctx, const struct bn_evlog_meta *m,
		  struct bn_evlog **out, struct bn_err *err)
{
	struct bn_evlog *l = calloc(1, sizeof(*l));
	cJSON *h;
	char *text;
	size_t len;
	int rc;

	if (!l)
		return bn_err_set(err, BN_ERR_NOMEM, "%s: out of memory", path);
	l->n_cfg = -1;
	rc = bn_afile_open(&l->af, path, err);
	if (rc < 0) {
		free(l);
		return rc;
	}
	l->known = ctx->events;
	h = header_json(ctx, m);
	text = h ? bn_json_print(h) : NULL;
	cJSON_Delete(h);
	if (!text) {
		bn_afile_discard(&l->af);
		free(l);
		return bn_err_set(err, BN_ERR_NOMEM, "%s: out of memory", path);
	}
	/* The header object, left open for the streamed events. */
	len = strlen(text);
	while (len > 0 && text[len - 1] != '}')
		len--;
	errno = 0;
	note_io(l, fwrite(text, 1, len ? len - 1 : 0, l->af.f) != (len ? len - 1 : 0) ||
			   fputs(",\n\t\"events\": [", l->af.f) < 0 || fflush(l->af.f) != 0);
	free(text);
	if (l->io_errno) {
		rc = bn_evlog_error(l, err);
		bn_evlog_discard(l);
		return rc;
	}
	*out = l;
	return BN_OK;
}

static void write_line(struct bn_evlog *l, cJSON *o);

void bn_evlog_expect(struct bn_evlog *l, bn_time_us t_us, int line, const char *text)
{
	cJSON *o;

	if (!l)
		return;
	o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "t_us", (double)t_us);
	cJSON_AddStringToObject(o, "kind", "expect");
	cJSON_AddNumberToObject(o, "line", line);
	cJSON_AddStringToObject(o, "text", text);
	write_line(l, o);
}

void bn_evlog_move(struct bn_evlog *l, bn_time_us t_us, const struct bn_check_ctx *next)
{
	cJSON *o;

	if (!l)
		return;
	o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "t_us", (double)t_us);
	cJSON_AddStringToObject(o, "kind", "move");
	add_port(o, next->port_name, next);
	add_charger(o, next);
	write_line(l, o);
}

void bn_evlog_add(struct bn_evlog *l, const struct bn_cev *ev)
{
	cJSON *o;

	if (!l || !(l->known & BN_CEV_BIT(ev->kind)))
		return;
	o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "t_us", (double)ev->t_us);
	cJSON_AddStringToObject(o, "kind", bn_cev_name(ev->kind));
	cJSON_AddStringToObject(o, "origin", bn_origin_name(bn_cev_origin(ev->kind)));
	switch (ev->kind) {
	case BN_CEV_CONFIG:
		cJSON_AddNumberToObject(o, "value", ev->value);
		cJSON_AddNumberToObject(o, "max_power_a", ev->num);
		if (ev->win_s > 0)
			cJSON_AddNumberToObject(o, "before_s", ev->win_s);
		break;
	case BN_CEV_LOAD:
		cJSON_AddNumberToObject(o, "load_a", ev->num);
		break;
	case BN_CEV_DATA_CONTACT:
		cJSON_AddBoolToObject(o, "made", ev->num != 0.0);
		break;
	case BN_CEV_TELEMETRY:
		cJSON_AddStringToObject(o, "key", ev->key ? ev->key : "");
		cJSON_AddStringToObject(o, "value", ev->text ? ev->text : "");
		break;
	case BN_CEV_MARK:
		cJSON_AddStringToObject(o, "text", ev->text ? ev->text : "");
		break;
	case BN_CEV_SUSPEND:
	case BN_CEV_RESUME:
		/* a real host's: known only within [t_us, t_us + window_s] */
		if (ev->win_s > 0)
			cJSON_AddNumberToObject(o, "window_s", ev->win_s);
		break;
	case BN_CEV_CONNECT:
		/* a real host's: known only within [t_us - before_s, t_us] */
		if (ev->win_s > 0)
			cJSON_AddNumberToObject(o, "before_s", ev->win_s);
		break;
	default:
		break;
	}
	write_line(l, o);
}

/* One record of the events array, on disk at once. */
static void write_line(struct bn_evlog *l, cJSON *o)
{
	char *text = bn_json_print_line(o);

	cJSON_Delete(o);
	if (text) {
		errno = 0;
		note_io(l, fprintf(l->af.f, "%s\n\t\t%s", l->n ? "," : "", text) < 0);
		/* on disk at once: a process that dies mid-run leaves every
		 * event for bn_evlog_salvage */
		note_io(l, fflush(l->af.f) != 0);
		l->n++;
		free(text);
	}
}

int bn_evlog_close(struct bn_evlog *l, bn_time_us t_end_us, int64_t frames, const char *status,
		   struct bn_err *err)
{
	int rc;

	if (!l)
		return BN_OK;
	if (l->io_errno) {
		rc = bn_evlog_error(l, err);
		bn_evlog_discard(l);
		return rc;
	}
	fputs("\n\t],", l->af.f);
	if (l->n_cfg >= 0) {
		fputs("\n\t\"enumerated\": {\"configurations\": [", l->af.f);
		for (int i = 0; i < l->n_cfg; i++)
			fprintf(l->af.f, "%s{\"value\": %d, \"max_power_a\": %.15g}", i ? ", " : "",
				l->cfg_value[i], l->cfg_max_power_a[i]);
		fputs("]},", l->af.f);
	}
	fprintf(l->af.f, "\n\t\"t_end_us\": %lld,\n\t\"frames\": %lld,\n\t\"status\": \"%s\"\n}\n",
		(long long)t_end_us, (long long)frames, status ? status : "completed");
	l->af.no_sync = true; /* the durable report holds its digest (core/file.h) */
	rc = bn_afile_commit(&l->af, err);
	free(l);
	return rc;
}

void bn_evlog_configs(struct bn_evlog *l, int n, const int *value, const double *max_power_a)
{
	if (!l)
		return;
	l->n_cfg = n < 0 ? 0 : n > 8 ? 8 : n;
	for (int i = 0; i < l->n_cfg; i++) {
		l->cfg_value[i] = value[i];
		l->cfg_max_power_a[i] = max_power_a[i];
	}
}

int bn_evlog_error(const struct bn_evlog *l, struct bn_err *err)
{
	char why[160];

	if (!l || !l->io_errno)
		return BN_OK;
	return bn_err_set(err, bn_err_from_write_errno(l->io_errno), "%s: error: writing: %s",
			  l->af.path, bn_errno_text(l->io_errno, why, sizeof(why)));
}

int bn_evlog_salvage(const char *path, bn_time_us *t_end_us, int64_t frames, const char *status,
		     int *n_events, struct bn_err *err)
{
	static const char open_events[] = ",\n\t\"events\": [";
	/* bn_afile's temporary file: DIR/.NAME.tmp-XXXXXX */
	char *tmp = bn_file_leftover(path, ".tmp-", NULL), *text = NULL, *start, *p, *out = NULL;
	size_t len = 0, keep;
	bn_time_us end_us = *t_end_us;
	int n = 0, rc;

	if (n_events)
		*n_events = 0;
	if (!tmp)
		return bn_err_set(err, BN_ERR_NA, "%s: no events to salvage beside it", path);
	rc = bn_file_read(tmp, &text, &len, err);
	if (rc < 0)
		goto out;
	start = strstr(text, open_events);
	if (!start || strncmp(text, "{", 1)) {
		rc = bn_err_set(err, BN_ERR_DATA, "%s: error: %s is not an events file bcbench wrote",
				path, tmp);
		goto out;
	}
	/* Whole events only: each is one line "\n\t\t{...}", written with
	 * fflush; a line cut short by the process's death is dropped. */
	keep = (size_t)(start - text) + strlen(open_events);
	for (p = strstr(text + keep, "\n\t\t{"); p;) {
		char *next = strstr(p + 3, "\n\t\t{");
		size_t line = next ? (size_t)(next - p) : strlen(p);
		cJSON *ev;

		if (line > 3 && p[line - 1] == ',')
			line--;
		ev = cJSON_ParseWithLength(p + 3, line - 3);
		if (!cJSON_IsObject(ev)) {
			cJSON_Delete(ev);
			break;
		}
		/* the record reaches at least its last event: a run without a
		 * capture has no other clock to end it by */
		{
			const cJSON *t = cJSON_GetObjectItemCaseSensitive(ev, "t_us");

			if (cJSON_IsNumber(t) && t->valuedouble > (double)end_us &&
			    t->valuedouble < 9e18)
				end_us = (bn_time_us)t->valuedouble;
		}
		cJSON_Delete(ev);
		keep = (size_t)(p + line - text);
		n++;
		p = next;
	}
	out = g_strdup_printf("%.*s\n\t],\n\t\"t_end_us\": %lld,\n\t\"frames\": %lld,\n\t\"status\": "
			      "\"%s\"\n}\n",
			      (int)keep, text, (long long)end_us, (long long)frames,
			      status ? status : "error");
	/* not synced: the durable report holds its digest (core/file.h) */
	rc = bn_file_write_atomic_nosync(path, out, strlen(out), err);
	if (rc == BN_OK) {
		unlink(tmp);
		if (n_events)
			*n_events = n;
		*t_end_us = end_us;
	}
out:
	g_free(out);
	free(text);
	free(tmp);
	return rc;
}

void bn_evlog_discard(struct bn_evlog *l)
{
	if (!l)
		return;
	bn_afile_discard(&l->af);
	free(l);
}

/* ---- reader ---- */

static int keep_string(struct bn_evrec *r, const char *s, const char **out)
{
	char **v = realloc(r->strings, (size_t)(r->n_strings + 1) * sizeof(*v));

	if (!v)
		return BN_ERR_NOMEM;
	r->strings = v;
	v[r->n_strings] = strdup(s);
	if (!v[r->n_strings])
		return BN_ERR_NOMEM;
	*out = v[r->n_strings++];
	return BN_OK;
}

static int load_port(const cJSON *root, struct bn_evrec *r, const char *path, struct bn_err *err)
{
	static const char *const keys[] = { "profile", "type", "dp_pulldown_ohm", "dm_pulldown_ohm",
					    "dp_dm_short_ohm", NULL };
	const cJSON *port = cJSON_GetObjectItemCaseSensitive(root, "port");
	char what[600], type[32] = "";
	int rc;

	snprintf(what, sizeof(what), "%s: port", path);
	if (!port) {
		r->ctx.port_unknown = true;
		return BN_OK;
	}
	if ((rc = bn_json_check_keys(port, keys, what, err)) < 0 ||
	    (rc = bn_json_str(port, "profile", false, r->port_profile, sizeof(r->port_profile), what,
			      err)) < 0 ||
	    (rc = bn_json_str(port, "type", true, type, sizeof(type), what, err)) < 0 ||
	    (rc = bn_json_num(port, "dp_pulldown_ohm", false, &r->ctx.dp_pulldown_ohm, what, err)) < 0 ||
	    (rc = bn_json_num(port, "dm_pulldown_ohm", false, &r->ctx.dm_pulldown_ohm, what, err)) < 0 ||
	    (rc = bn_json_num(port, "dp_dm_short_ohm", false, &r->ctx.dp_dm_short_ohm, what, err)) < 0)
		return rc;
	r->ctx.port = bn_port_from_name(type);
	if (r->ctx.port == BN_PORT_UNKNOWN && strcmp(type, "unknown"))
		return bn_err_set(err, BN_ERR_DATA, "%s: key \"type\": unknown port type \"%s\"", what,
				  type);
	r->ctx.port_unknown = r->ctx.port == BN_PORT_UNKNOWN;
	return BN_OK;
}

/* A "charger" object of parent into ctx (its name into name[64]); none:
 * no charger known. */
static int load_charger(const cJSON *parent, struct bn_check_ctx *ctx, char *name, const char *what_in,
			struct bn_err *err)
{
	static const char *const ckeys[] = { "name", "rated_a", "cable_ohm", "cable_u_ohm", "compliant", NULL };
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(parent, "charger"), *it;
	char what[700];
	int rc;

	ctx->charger_name = NULL;
	ctx->charger_rated_a = 0;
	ctx->cable_ohm = NAN;
	ctx->cable_u_ohm = 0;
	ctx->charger_compliant = -1;
	if (!c)
		return BN_OK;
	snprintf(what, sizeof(what), "%s: charger", what_in);
	if ((rc = bn_json_check_keys(c, ckeys, what, err)) < 0 ||
	    (rc = bn_json_str(c, "name", true, name, 64, what, err)) < 0 ||
	    (rc = bn_json_num(c, "rated_a", false, &ctx->charger_rated_a, what, err)) < 0 ||
	    (rc = bn_json_num(c, "cable_ohm", false, &ctx->cable_ohm, what, err)) < 0 ||
	    (rc = bn_json_num(c, "cable_u_ohm", false, &ctx->cable_u_ohm, what, err)) < 0)
		return rc;
	it = cJSON_GetObjectItemCaseSensitive(c, "compliant");
	if (it && !cJSON_IsBool(it))
		return bn_err_set(err, BN_ERR_DATA, "%s: key \"compliant\": expected true or false", what);
	if (it)
		ctx->charger_compliant = cJSON_IsTrue(it) ? 1 : 0;
	ctx->charger_name = name;
	return BN_OK;
}

static int load_charger_probe(const cJSON *root, struct bn_evrec *r, const char *path, struct bn_err *err)
{
	static const char *const pkeys[] = { "idp_src_a", "vdp_src_v", "idm_sink_a", "vdm_src_v", "idp_sink_a",
					     "rdm_dwn_ohm", "i_u_rel", "sec_after_s", NULL };
	const cJSON *p = cJSON_GetObjectItemCaseSensitive(root, "probe"), *it;
	struct bn_probe *pr = &r->ctx.probe;
	char what[600];
	int rc;

	if ((rc = load_charger(root, &r->ctx, r->charger_name, path, err)) < 0)
		return rc;
	if (!p)
		return BN_OK;
	snprintf(what, sizeof(what), "%s: probe", path);
	pr->present = true;
	pr->sec_after_s = NAN;
	if ((rc = bn_json_check_keys(p, pkeys, what, err)) < 0 ||
	    (rc = bn_json_num(p, "idp_src_a", false, &pr->idp_src_a, what, err)) < 0 ||
	    (rc = bn_json_num(p, "vdp_src_v", false, &pr->vdp_src_v, what, err)) < 0 ||
	    (rc = bn_json_num(p, "idm_sink_a", false, &pr->idm_sink_a, what, err)) < 0 ||
	    (rc = bn_json_num(p, "vdm_src_v", false, &pr->vdm_src_v, what, err)) < 0 ||
	    (rc = bn_json_num(p, "idp_sink_a", false, &pr->idp_sink_a, what, err)) < 0 ||
	    (rc = bn_json_num(p, "rdm_dwn_ohm", false, &pr->rdm_dwn_ohm, what, err)) < 0 ||
	    (rc = bn_json_num(p, "i_u_rel", false, &pr->i_u_rel, what, err)) < 0)
		return rc;
	it = cJSON_GetObjectItemCaseSensitive(p, "sec_after_s");
	if (cJSON_IsString(it) && !strcmp(it->valuestring, "never"))
		pr->sec_after_s = INFINITY;
	else if (it && (rc = bn_json_num(p, "sec_after_s", false, &pr->sec_after_s, what, err)) < 0)
		return rc;
	return BN_OK;
}

static int load_dut(const cJSON *root, struct bn_evrec *r, const char *path, struct bn_err *err)
{
	static const char *const keys[] = { "name", "declares", "droop_threshold_v", "otg_rating_a",
					    "configurations", NULL };
	const cJSON *dut = cJSON_GetObjectItemCaseSensitive(root, "dut"), *a, *it;
	char what[600];
	int rc, i = 0;

	snprintf(what, sizeof(what), "%s: dut", path);
	if (!dut) {
		r->ctx.decl_unknown = true;
		return BN_OK;
	}
	if ((rc = bn_json_check_keys(dut, keys, what, err)) < 0 ||
	    (rc = bn_json_str(dut, "name", false, r->dut_name, sizeof(r->dut_name), what, err)) < 0 ||
	    (rc = bn_json_num(dut, "droop_threshold_v", false, &r->ctx.droop_threshold_v, what, err)) < 0 ||
	    (rc = bn_json_num(dut, "otg_rating_a", false, &r->ctx.otg_rating_a, what, err)) < 0)
		return rc;
	a = cJSON_GetObjectItemCaseSensitive(dut, "declares");
	if (!a) {
		r->ctx.decl_unknown = true;
	} else if (!cJSON_IsArray(a)) {
		return bn_err_set(err, BN_ERR_DATA, "%s: key \"declares\": expected an array of names",
				  what);
	}
	cJSON_ArrayForEach(it, a) {
		int b;

		for (b = 0; b < N_DECL; b++)
			if (cJSON_IsString(it) && !strcmp(it->valuestring, decl_names[b]))
				break;
		if (b == N_DECL)
			return bn_err_set(err, BN_ERR_DATA,
					  "%s: declares[%d]: expected one of battery, dbp, "
					  "dead_battery, otg, secondary_detection, droop",
					  what, i);
		r->ctx.decl |= 1u << b;
		i++;
	}
	a = cJSON_GetObjectItemCaseSensitive(dut, "configurations");
	if (!a) {
		/* a real device's, from when it enumerated (the trailer) */
		const cJSON *en = cJSON_GetObjectItemCaseSensitive(root, "enumerated");

		if (!en)
			return BN_OK;
		snprintf(what, sizeof(what), "%s: enumerated", path);
		if (!cJSON_IsObject(en))
			return bn_err_set(err, BN_ERR_DATA, "%s: expected an object", what);
		a = cJSON_GetObjectItemCaseSensitive(en, "configurations");
		if (!a)
			return bn_err_set(err, BN_ERR_DATA, "%s: key \"configurations\" is missing", what);
	}
	if (!cJSON_IsArray(a))
		return bn_err_set(err, BN_ERR_DATA, "%s: key \"configurations\": expected an array",
				  what);
	i = 0;
	cJSON_ArrayForEach(it, a) {
		double v = 0, p = 0;
		char w2[640];

		snprintf(w2, sizeof(w2), "%s: configurations[%d]", what, i);
		if (i >= 8)
			return bn_err_set(err, BN_ERR_DATA, "%s: at most 8 configurations", w2);
		if ((rc = bn_json_num(it, "value", true, &v, w2, err)) < 0 ||
		    (rc = bn_json_num(it, "max_power_a", true, &p, w2, err)) < 0)
			return rc;
		r->ctx.config_value[i] = (int)v;
		r->ctx.config_max_power_a[i] = p;
		i++;
	}
	r->ctx.n_configs = i;
	r->ctx.configs_known = true;
	return BN_OK;
}

static int load_capture(const cJSON *root, struct bn_evrec *r, const char *path, struct bn_err *err)
{
	const cJSON *cap = cJSON_GetObjectItemCaseSensitive(root, "capture"), *a, *it;
	char what[600];
	double t0 = 0;
	int rc, i = 0;

	snprintf(what, sizeof(what), "%s: capture", path);
	if (!cap)
		return BN_OK;
	if ((rc = bn_json_num(cap, "rate_hz", false, &r->ctx.rate_hz, what, err)) < 0 ||
	    (rc = bn_json_num(cap, "t0_us", false, &t0, what, err)) < 0)
		return rc;
	r->ctx.t_start_us = (bn_time_us)llround(t0);
	a = cJSON_GetObjectItemCaseSensitive(cap, "channels");
	cJSON_ArrayForEach(it, a) {
		const cJSON *n = cJSON_GetObjectItemCaseSensitive(it, "name");
		int ch = cJSON_IsString(n) ? bn_chan_from_name(n->valuestring) : -1;

		const cJSON *ms = cJSON_GetObjectItemCaseSensitive(it, "measurement");

		if (ch < 0)
			return bn_err_set(err, BN_ERR_DATA,
					  "%s: channels[%d]: expected a name VBUS, IBUS, DP, DM or ID",
					  what, i);
		r->ctx.channels |= 1u << ch;
		if (ms) {
			char why[200];

			if (!cJSON_IsString(ms) ||
			    bn_meas_parse(ms->valuestring, ch == BN_CH_IBUS ? BN_DIM_A : BN_DIM_V,
					  &r->ctx.meas[ch], why, sizeof(why)) < 0)
				return bn_err_set(err, BN_ERR_DATA, "%s: channels[%d]: measurement: %s",
						  what, i, cJSON_IsString(ms) ? why : "expected a string");
			r->ctx.meas_src[ch] = BN_MEAS_SRC_GIVEN;
			r->meas_known |= 1u << ch;
		}
		i++;
	}
	return BN_OK;
}

static int load_expect(const cJSON *it, double t, struct bn_evrec *r, const char *what,
		       struct bn_err *err)
{
	const cJSON *line = cJSON_GetObjectItemCaseSensitive(it, "line");
	const cJSON *text = cJSON_GetObjectItemCaseSensitive(it, "text");
	struct bn_evrec_expect *e;

	if (!(t >= 0) || t > 9e15)
		return bn_err_set(err, BN_ERR_DATA, "%s: key \"t_us\": expected a time >= 0", what);
	if (!cJSON_IsNumber(line) || line->valuedouble < 1 || line->valuedouble > 1e9 ||
	    !cJSON_IsString(text))
		return bn_err_set(err, BN_ERR_DATA, "%s: an expect needs \"line\" (a number >= 1) and "
				  "\"text\" (a string)", what);
	e = realloc(r->expects, (size_t)(r->n_expects + 1) * sizeof(*e));
	if (!e)
		return bn_err_set(err, BN_ERR_NOMEM, "%s: out of memory", what);
	r->expects = e;
	e = &r->expects[r->n_expects];
	e->t_us = (bn_time_us)llround(t);
	e->line = (int)line->valuedouble;
	e->n_before = r->n;
	if (keep_string(r, text->valuestring, &e->text) < 0)
		return bn_err_set(err, BN_ERR_NOMEM, "%s: out of memory", what);
	r->n_expects++;
	return BN_OK;
}

static int load_move(const cJSON *it, double t, struct bn_evrec *r, const char *what,
		     struct bn_err *err)
{
	const cJSON *port = cJSON_GetObjectItemCaseSensitive(it, "port");
	struct bn_evrec_move *m;
	char type[32] = "", w2[700];
	int rc, pt;

	if (!(t >= 0) || t > 9e15)
		return bn_err_set(err, BN_ERR_DATA, "%s: key \"t_us\": expected a time >= 0", what);
	snprintf(w2, sizeof(w2), "%s: port", what);
	if (!cJSON_IsObject(port))
		return bn_err_set(err, BN_ERR_DATA, "%s: a move needs \"port\" (an object)", what);
	m = realloc(r->moves, (size_t)(r->n_moves + 1) * sizeof(*m));
	if (!m)
		return bn_err_set(err, BN_ERR_NOMEM, "%s: out of memory", what);
	r->moves = m;
	m = &r->moves[r->n_moves];
	memset(m, 0, sizeof(*m));
	if ((rc = bn_json_str(port, "profile", true, m->port_profile, sizeof(m->port_profile), w2, err)) < 0 ||
	    (rc = bn_json_str(port, "type", true, type, sizeof(type), w2, err)) < 0 ||
	    (rc = bn_json_num(port, "dp_pulldown_ohm", false, &m->port.dp_pulldown_ohm, w2, err)) < 0 ||
	    (rc = bn_json_num(port, "dm_pulldown_ohm", false, &m->port.dm_pulldown_ohm, w2, err)) < 0 ||
	    (rc = bn_json_num(port, "dp_dm_short_ohm", false, &m->port.dp_dm_short_ohm, w2, err)) < 0 ||
	    (rc = load_charger(it, &m->port, m->charger_name, what, err)) < 0)
		return rc;
	pt = (int)bn_port_from_name(type);
	if (pt == (int)BN_PORT_UNKNOWN)
		return bn_err_set(err, BN_ERR_DATA, "%s: key \"type\": unknown port type \"%s\"", w2, type);
	m->port.port = (enum bn_port_type)pt;
	m->t_us = (bn_time_us)llround(t);
	m->n_before = r->n;
	r->n_moves++;
	return BN_OK;
}

static int load_event(const cJSON *it, int idx, struct bn_evrec *r, const char *path,
		      struct bn_err *err)
{
	static const char *const keys[] = { "t_us", "kind", "origin", "value", "max_power_a",
					    "load_a", "made", "key", "text", "line", "port", "charger",
					    "window_s", "before_s", NULL };
	struct bn_cev *ev = &r->ev[r->n];
	char what[600], kind[32];
	const cJSON *v;
	double t;
	int rc, k;

	snprintf(what, sizeof(what), "%s: events[%d]", path, idx);
	memset(ev, 0, sizeof(*ev));
	if ((rc = bn_json_check_keys(it, keys, what, err)) < 0 ||
	    (rc = bn_json_num(it, "t_us", true, &t, what, err)) < 0 ||
	    (rc = bn_json_str(it, "kind", true, kind, sizeof(kind), what, err)) < 0)
		return rc;
	if (!strcmp(kind, "expect"))
		return load_expect(it, t, r, what, err);
	if (!strcmp(kind, "move"))
		return load_move(it, t, r, what, err);
	k = bn_cev_from_name(kind);
	if (k < 0)
		return bn_err_set(err, BN_ERR_DATA, "%s: unknown kind \"%s\"", what, kind);
	if (!(t >= 0) || t > 9e15)
		return bn_err_set(err, BN_ERR_DATA, "%s: key \"t_us\": expected a time >= 0", what);
	ev->kind = k;
	ev->t_us = (bn_time_us)llround(t);
	if (r->n > 0 && ev->t_us < r->ev[r->n - 1].t_us)
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: t_us %lld is before the previous event's (expected events in time order)",
				  what, (long long)ev->t_us);
	switch (k) {
	case BN_CEV_CONFIG: {
		double val = 0;

		if ((rc = bn_json_num(it, "value", true, &val, what, err)) < 0 ||
		    (rc = bn_json_num(it, "max_power_a", true, &ev->num, what, err)) < 0 ||
		    (rc = bn_json_num(it, "before_s", false, &ev->win_s, what, err)) < 0)
			return rc;
		if (!(ev->win_s >= 0) || ev->win_s > 3600)
			return bn_err_set(err, BN_ERR_DATA, "%s: key \"before_s\": expected a time "
					  "from 0 to 3600 s", what);
		ev->value = (int)val;
		break;
	}
	case BN_CEV_LOAD:
		if ((rc = bn_json_num(it, "load_a", true, &ev->num, what, err)) < 0)
			return rc;
		break;
	case BN_CEV_SUSPEND:
	case BN_CEV_RESUME:
		if ((rc = bn_json_num(it, "window_s", false, &ev->win_s, what, err)) < 0)
			return rc;
		if (!(ev->win_s >= 0) || ev->win_s > 60)
			return bn_err_set(err, BN_ERR_DATA, "%s: key \"window_s\": expected a time "
					  "from 0 to 60 s", what);
		break;
	case BN_CEV_CONNECT:
		if ((rc = bn_json_num(it, "before_s", false, &ev->win_s, what, err)) < 0)
			return rc;
		if (!(ev->win_s >= 0) || ev->win_s > 3600)
			return bn_err_set(err, BN_ERR_DATA, "%s: key \"before_s\": expected a time "
					  "from 0 to 3600 s", what);
		break;
	case BN_CEV_DATA_CONTACT: {
		bool made = true;

		if ((rc = bn_json_bool(it, "made", false, &made, what, err)) < 0)
			return rc;
		ev->num = made ? 1.0 : 0.0;
		break;
	}
	case BN_CEV_TELEMETRY:
		v = cJSON_GetObjectItemCaseSensitive(it, "key");
		if (!cJSON_IsString(v))
			return bn_err_set(err, BN_ERR_DATA, "%s: key \"key\": expected a string", what);
		if (keep_string(r, v->valuestring, &ev->key) < 0)
			return bn_err_set(err, BN_ERR_NOMEM, "%s: out of memory", what);
		v = cJSON_GetObjectItemCaseSensitive(it, "value");
		if (!cJSON_IsString(v))
			return bn_err_set(err, BN_ERR_DATA, "%s: key \"value\": expected a string", what);
		if (keep_string(r, v->valuestring, &ev->text) < 0)
			return bn_err_set(err, BN_ERR_NOMEM, "%s: out of memory", what);
		break;
	case BN_CEV_MARK:
		v = cJSON_GetObjectItemCaseSensitive(it, "text");
		if (keep_string(r, cJSON_IsString(v) ? v->valuestring : "", &ev->text) < 0)
			return bn_err_set(err, BN_ERR_NOMEM, "%s: out of memory", what);
		break;
	default:
		break;
	}
	r->n++;
	return BN_OK;
}

int bn_evrec_load(const char *path, struct bn_evrec *r, struct bn_err *err)
{
	static const char *const keys[] = { "schema", "scenario", "capture", "port", "charger", "probe", "dut",
					    "known", "events", "enumerated", "t_end_us", "frames", "status", NULL };
	cJSON *root = NULL;
	const cJSON *a, *it;
	double t_end = -1;
	int rc, i;

	memset(r, 0, sizeof(*r));
	r->t_end_us = -1;
	rc = bn_json_load_schema(path, keys, BN_EVENTS_SCHEMA, &root, err);
	if (rc < 0)
		return rc;
	if ((rc = bn_json_str(root, "scenario", false, r->scenario, sizeof(r->scenario), path,
			      err)) < 0 ||
	    (rc = bn_json_num(root, "t_end_us", false, &t_end, path, err)) < 0 ||
	    (rc = bn_json_str(root, "status", false, r->status, sizeof(r->status), path, err)) < 0 ||
	    (rc = load_capture(root, r, path, err)) < 0 || (rc = load_port(root, r, path, err)) < 0 ||
	    (rc = load_charger_probe(root, r, path, err)) < 0 || (rc = load_dut(root, r, path, err)) < 0)
		goto out;
	r->t_end_us = t_end >= 0 ? (bn_time_us)llround(t_end) : -1;
	a = cJSON_GetObjectItemCaseSensitive(root, "events");
	if (a && !cJSON_IsArray(a)) {
		rc = bn_err_set(err, BN_ERR_DATA, "%s: key \"events\": expected an array", path);
		goto out;
	}
	r->ev = calloc((size_t)cJSON_GetArraySize(a) + 1, sizeof(*r->ev));
	if (!r->ev) {
		rc = bn_err_set(err, BN_ERR_NOMEM, "%s: out of memory", path);
		goto out;
	}
	i = 0;
	cJSON_ArrayForEach(it, a) {
		rc = load_event(it, i++, r, path, err);
		if (rc < 0)
			goto out;
	}
	/* What the record can say: "known", else the kinds it holds. */
	a = cJSON_GetObjectItemCaseSensitive(root, "known");
	if (a) {
		i = 0;
		cJSON_ArrayForEach(it, a) {
			int k = cJSON_IsString(it) ? bn_cev_from_name(it->valuestring) : -1;

			if (k < 0) {
				rc = bn_err_set(err, BN_ERR_DATA,
						"%s: known[%d]: expected an event kind (vbus_on, "
						"connect, config, telemetry, ...)",
						path, i);
				goto out;
			}
			r->ctx.events |= BN_CEV_BIT(k);
			i++;
		}
	} else {
		for (i = 0; i < r->n; i++)
			r->ctx.events |= BN_CEV_BIT(r->ev[i].kind);
	}
	rc = BN_OK;
out:
	cJSON_Delete(root);
	if (rc < 0)
		bn_evrec_free(r);
	return rc;
}

void bn_evrec_free(struct bn_evrec *r)
{
	for (int i = 0; i < r->n_strings; i++)
		free(r->strings[i]);
	free(r->strings);
	free(r->ev);
	free(r->expects);
	free(r->moves);
	r->strings = NULL;
	r->ev = NULL;
	r->expects = NULL;
	r->moves = NULL;
	r->n = r->n_strings = r->n_expects = r->n_moves = 0;
}
