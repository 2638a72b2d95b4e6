/* The charger's behaviour in time (profile v2): the keys transient,
 * power_up, schedule and vbus_t, read from a profile (and a captured
 * series from its CSV file), and evaluated at a time since the output
 * turned on. See charger.h. */
#include "sim/charger.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/file.h"
#include "core/json.h"

static const char *const transient_keys[] = { "r", "tau", NULL };
static const char *const power_up_keys[] = { "peak", "tau", NULL };
static const char *const phase_keys[] = { "from", "curve", NULL };
static const char *const vbus_t_keys[] = { "samples", "file", "r_out", "repeat", NULL };

/* An object of two quantities, both required, the second a time > 0. */
static int parse_pair(const cJSON *root, const char *key, const char *const *keys,
		      enum bn_dim dim0, double *v0, double *tau_s, bool *has, const char *path,
		      struct bn_err *err)
{
	const cJSON *o = cJSON_GetObjectItemCaseSensitive(root, key);
	char what[320];
	int rc;

	if (!o)
		return BN_OK;
	snprintf(what, sizeof(what), "%s: %s", path, key);
	if (!cJSON_IsObject(o))
		return bn_err_set(err, BN_ERR_DATA, "%s: key \"%s\": expected an object", path, key);
	rc = bn_json_check_keys(o, keys, what, err);
	if (!rc)
		rc = bn_json_quantity(o, keys[0], true, dim0, 1.0, v0, what, err);
	if (!rc)
		rc = bn_json_quantity(o, keys[1], true, BN_DIM_S, 1.0, tau_s, what, err);
	if (rc)
		return rc;
	if (!(*v0 >= 0.0) || !isfinite(*v0))
		return bn_err_set(err, BN_ERR_DATA, "%s: key \"%s\": expected a value >= 0", what,
				  keys[0]);
	if (!(*tau_s > 0.0) || !isfinite(*tau_s))
		return bn_err_set(err, BN_ERR_DATA, "%s: key \"%s\": expected a time > 0", what,
				  keys[1]);
	*has = true;
	return BN_OK;
}

static int parse_schedule(const cJSON *root, struct bn_charger *c, const char *path,
			  struct bn_err *err)
{
	const cJSON *sch = cJSON_GetObjectItemCaseSensitive(root, "schedule");
	const cJSON *ph;

	if (!sch)
		return BN_OK;
	if (!cJSON_IsArray(sch))
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: key \"schedule\": expected an array of {\"from\", \"curve\"}",
				  path);
	cJSON_ArrayForEach(ph, sch) {
		struct bn_charger_phase *p;
		char what[320];
		double from_s = 0.0;
		int rc;

		snprintf(what, sizeof(what), "%s: schedule[%d]", path, c->n_phases);
		if (c->n_phases >= BN_CHARGER_MAX_PHASES)
			return bn_err_set(err, BN_ERR_DATA, "%s: key \"schedule\": more than %d entries",
					  path, BN_CHARGER_MAX_PHASES);
		if (!cJSON_IsObject(ph))
			return bn_err_set(err, BN_ERR_DATA, "%s: expected an object", what);
		p = &c->phases[c->n_phases];
		rc = bn_json_check_keys(ph, phase_keys, what, err);
		if (!rc)
			rc = bn_json_quantity(ph, "from", true, BN_DIM_S, 1.0, &from_s, what, err);
		if (rc)
			return rc;
		if (!cJSON_GetObjectItemCaseSensitive(ph, "curve"))
			return bn_err_set(err, BN_ERR_DATA, "%s: missing key \"curve\"", what);
		rc = bn_charger_parse_curve(cJSON_GetObjectItemCaseSensitive(ph, "curve"), p->i_a,
					    p->v_v, &p->n_points, what, err);
		if (rc)
			return rc;
		if (!(from_s >= 0.0) || !isfinite(from_s))
			return bn_err_set(err, BN_ERR_DATA, "%s: key \"from\": expected a time >= 0",
					  what);
		p->from_us = bn_time_from_s(from_s);
		if (c->n_phases > 0 && !(p->from_us > c->phases[c->n_phases - 1].from_us))
			return bn_err_set(err, BN_ERR_DATA,
					  "%s: key \"from\": %g s is not after the entry before it", what,
					  from_s);
		c->n_phases++;
	}
	return BN_OK;
}

/* One sample [t, v] or [t, v, i] into the series; where names it. */
static int add_sample(struct bn_charger_vbus_t *vt, const double *x, int nx, const char *where,
		      struct bn_err *err)
{
	if (vt->n >= BN_CHARGER_MAX_VBUS_T)
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: more than %d samples (decimate the capture)", where,
				  BN_CHARGER_MAX_VBUS_T);
	for (int k = 0; k < nx; k++)
		if (!isfinite(x[k]))
			return bn_err_set(err, BN_ERR_DATA, "%s: not a finite number", where);
	if (x[0] < 0.0 || x[1] < 0.0)
		return bn_err_set(err, BN_ERR_DATA, "%s: negative time or voltage", where);
	if (vt->n > 0 && !(x[0] > vt->t_s[vt->n - 1]))
		return bn_err_set(err, BN_ERR_DATA, "%s: time %.9g s not after %.9g s", where, x[0],
				  vt->t_s[vt->n - 1]);
	vt->t_s[vt->n] = x[0];
	vt->v_v[vt->n] = x[1];
	vt->i_a[vt->n] = nx > 2 ? x[2] : 0.0;
	vt->n++;
	return BN_OK;
}

static int parse_samples(const cJSON *arr, struct bn_charger_vbus_t *vt, const char *what,
			 struct bn_err *err)
{
	const cJSON *row;
	int arity = 0;

	if (!cJSON_IsArray(arr))
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: key \"samples\": expected an array of [t_s, v_V, i_A]", what);
	cJSON_ArrayForEach(row, arr) {
		char where[400];
		double x[3];
		int n = cJSON_GetArraySize(row);

		snprintf(where, sizeof(where), "%s: samples[%d]", what, vt->n);
		if (!cJSON_IsArray(row) || n < 2 || n > 3 || (arity && n != arity))
			return bn_err_set(err, BN_ERR_DATA, "%s: expected [t_s, v_V%s] numbers", where,
					  arity == 2 ? "" : ", i_A");
		arity = n;
		for (int k = 0; k < n; k++) {
			const cJSON *e = cJSON_GetArrayItem(row, k);

			if (!cJSON_IsNumber(e))
				return bn_err_set(err, BN_ERR_DATA, "%s: expected numbers", where);
			x[k] = e->valuedouble;
		}
		int rc = add_sample(vt, x, n, where, err);

		if (rc)
			return rc;
	}
	vt->has_i = arity == 3;
	return BN_OK;
}

/* The profile's directory joined with name. */
static int beside(const char *profile, const char *name, char *buf, size_t len,
		  struct bn_err *err)
{
	const char *slash = strrchr(profile, '/');
	int dir = slash ? (int)(slash - profile + 1) : 0;

	if ((size_t)snprintf(buf, len, "%.*s%s", dir, profile, name) >= len)
		return bn_err_set(err, BN_ERR_DATA, "%s: vbus_t file name too long", profile);
	return BN_OK;
}

int bn_charger_vbus_t_csv_path(const char *profile, const char *name, char *buf, size_t len,
			       struct bn_err *err)
{
	return beside(profile, name, buf, len, err);
}

/* Strip trailing blanks and a CR. */
static void rstrip(char *s)
{
	size_t n = strlen(s);

	while (n > 0 && (s[n - 1] == '\r' || s[n - 1] == ' ' || s[n - 1] == '\t'))
		s[--n] = '\0';
}

static int parse_csv(const char *file, struct bn_charger_vbus_t *vt, struct bn_err *err)
{
	char *text = NULL, *line, *next;
	size_t len;
	int rc, lineno = 0, arity = 0;

	rc = bn_file_read(file, &text, &len, err);
	if (rc)
		return rc;
	for (line = text; line; line = next) {
		char where[1300];
		double x[3];
		int n = 0;
		char *p;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		rstrip(line);
		snprintf(where, sizeof(where), "%s:%d", file, lineno);
		if (!arity) {
			if (!strcmp(line, "t_s,v_V"))
				arity = 2;
			else if (!strcmp(line, "t_s,v_V,i_A"))
				arity = 3;
			else {
				rc = bn_err_set(err, BN_ERR_DATA,
						"%s: expected the header \"t_s,v_V\" or \"t_s,v_V,i_A\"",
						where);
				break;
			}
			continue;
		}
		if (!line[0])
			continue;
		for (p = line; n < 3;) {
			char *end;

			errno = 0;
			x[n] = strtod(p, &end);
			if (end == p || errno) {
				n = -1;
				break;
			}
			n++;
			while (*end == ' ' || *end == '\t')
				end++;
			if (*end != ',') {
				p = end;
				break;
			}
			p = end + 1;
		}
		if (n != arity || *p) {
			rc = bn_err_set(err, BN_ERR_DATA, "%s: expected %d numbers (%s)", where, arity,
					arity == 2 ? "t_s,v_V" : "t_s,v_V,i_A");
			break;
		}
		rc = add_sample(vt, x, n, where, err);
		if (rc)
			break;
	}
	if (!rc && !arity)
		rc = bn_err_set(err, BN_ERR_DATA, "%s:1: empty: expected the header \"t_s,v_V\"",
				file);
	vt->has_i = arity == 3;
	free(text);
	return rc;
}

static int parse_vbus_t(const cJSON *root, struct bn_charger *c, const char *path,
			struct bn_err *err)
{
	const cJSON *o = cJSON_GetObjectItemCaseSensitive(root, "vbus_t");
	struct bn_charger_vbus_t *vt = &c->vbus_t;
	const cJSON *samples, *file;
	char what[320];
	int rc;

	if (!o)
		return BN_OK;
	snprintf(what, sizeof(what), "%s: vbus_t", path);
	if (!cJSON_IsObject(o))
		return bn_err_set(err, BN_ERR_DATA, "%s: key \"vbus_t\": expected an object", path);
	rc = bn_json_check_keys(o, vbus_t_keys, what, err);
	if (!rc)
		rc = bn_json_quantity(o, "r_out", true, BN_DIM_OHM, 1.0, &vt->r_out_ohm, what, err);
	if (!rc)
		rc = bn_json_bool(o, "repeat", false, &vt->repeat, what, err);
	if (rc)
		return rc;
	if (!(vt->r_out_ohm >= 0.0) || !isfinite(vt->r_out_ohm))
		return bn_err_set(err, BN_ERR_DATA, "%s: key \"r_out\": negative resistance", what);
	samples = cJSON_GetObjectItemCaseSensitive(o, "samples");
	file = cJSON_GetObjectItemCaseSensitive(o, "file");
	if (!samples == !file)
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: expected exactly one of \"samples\" and \"file\"", what);
	if (samples) {
		rc = parse_samples(samples, vt, what, err);
	} else {
		char csv[1200];

		rc = bn_json_str(o, "file", true, vt->file, sizeof(vt->file), what, err);
		if (rc)
			return rc;
		if (!vt->file[0] || vt->file[0] == '/' || strstr(vt->file, ".."))
			return bn_err_set(err, BN_ERR_DATA,
					  "%s: key \"file\": expected a file name relative to the profile",
					  what);
		rc = beside(path, vt->file, csv, sizeof(csv), err);
		if (!rc)
			rc = parse_csv(csv, vt, err);
	}
	if (!rc && vt->n < 2)
		rc = bn_err_set(err, BN_ERR_DATA, "%s: needs at least 2 samples, has %d", what, vt->n);
	if (!rc && vt->repeat && !(vt->t_s[vt->n - 1] > vt->t_s[0]))
		rc = bn_err_set(err, BN_ERR_DATA, "%s: a repeated series needs a duration", what);
	return rc;
}

int bn_charger_parse_time(const cJSON *root, struct bn_charger *c, const char *path,
			  struct bn_err *err)
{
	int rc;

	rc = parse_pair(root, "transient", transient_keys, BN_DIM_OHM, &c->transient_r_ohm,
			&c->transient_tau_s, &c->has_transient, path, err);
	if (!rc)
		rc = parse_pair(root, "power_up", power_up_keys, BN_DIM_V, &c->power_up_peak_v,
				&c->power_up_tau_s, &c->has_power_up, path, err);
	if (!rc)
		rc = parse_schedule(root, c, path, err);
	if (!rc)
		rc = parse_vbus_t(root, c, path, err);
	return rc;
}
