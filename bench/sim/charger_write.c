/* Writing a charger profile (bcbench-charger/2), the counterpart of
 * bn_charger_load: what sweep and import produce. See charger.h. */
#include "sim/charger.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/file.h"
#include "core/json.h"
#include "core/units.h"

struct unit {
	const char *sym;
	double scale;
};

/* The symbols a quantity of each dimension is written with, largest
 * first, as the shipped files write them ("0.1ohm", "120uF", "1.2A"). */
static const struct unit *units_of(enum bn_dim dim, int *n)
{
	static const struct unit v[] = { { "V", 1.0 }, { "mV", 1e-3 }, { "uV", 1e-6 } };
	static const struct unit a[] = { { "A", 1.0 }, { "mA", 1e-3 }, { "uA", 1e-6 } };
	static const struct unit ohm[] = { { "Mohm", 1e6 }, { "kohm", 1e3 }, { "ohm", 1.0 } };
	static const struct unit s[] = { { "s", 1.0 }, { "ms", 1e-3 }, { "us", 1e-6 } };
	static const struct unit f[] = { { "F", 1.0 }, { "uF", 1e-6 }, { "nF", 1e-9 }, { "pF", 1e-12 } };

	switch (dim) {
	case BN_DIM_V: *n = 3; return v;
	case BN_DIM_A: *n = 3; return a;
	case BN_DIM_OHM: *n = 3; return ohm;
	case BN_DIM_S: *n = 3; return s;
	case BN_DIM_F: *n = 4; return f;
	default: *n = 0; return NULL;
	}
}

/* text with sym and the fewest digits that read back to exactly v. */
static bool exact(double v, const struct unit *u, enum bn_dim dim, int digits, char *buf,
		  size_t len)
{
	double back;

	snprintf(buf, len, "%.*g%s", digits, v / u->scale, u->sym);
	return bn_quantity_parse(buf, dim, &back, NULL, 0) == BN_OK && back == v;
}

/* v (SI) as "<number><unit>", the unit the one whose number is at least 1
 * (the smallest for smaller values), exact to the bit. */
static int fmt_qty(double v, enum bn_dim dim, char *buf, size_t len, struct bn_err *err)
{
	int n, pick, first;
	double m;
	const struct unit *u = units_of(dim, &n);

	if (!u || !isfinite(v))
		return bn_err_set(err, BN_ERR_BUG, "charger writer: cannot write %g", v);
	for (pick = 0; pick < n - 1 && !(v == 0.0 && u[pick].scale == 1.0); pick++)
		if (fabs(v) / u[pick].scale >= 1.0)
			break;
	/* at least the number's whole digits: %g must not switch to an exponent */
	m = fabs(v) / u[pick].scale;
	first = m >= 1.0 ? (int)floor(log10(m)) + 1 : 1;
	for (int digits = first < 17 ? first : 17; digits <= 17; digits++)
		if (exact(v, &u[pick], dim, digits, buf, len))
			return BN_OK;
	for (int k = 0; k < n; k++)
		if (exact(v, &u[k], dim, 17, buf, len))
			return BN_OK;
	return bn_err_set(err, BN_ERR_BUG, "charger writer: %.17g does not read back in any unit", v);
}

/* A whole number of microseconds in the largest unit that keeps it whole. */
static void fmt_time_us(bn_time_us t, char *buf, size_t len)
{
	if (t % BN_US_PER_S == 0)
		snprintf(buf, len, "%" PRId64 "s", (int64_t)(t / BN_US_PER_S));
	else if (t % BN_US_PER_MS == 0)
		snprintf(buf, len, "%" PRId64 "ms", (int64_t)(t / BN_US_PER_MS));
	else
		snprintf(buf, len, "%" PRId64 "us", (int64_t)t);
}

static int add_qty(cJSON *o, const char *key, double v, enum bn_dim dim, struct bn_err *err)
{
	char buf[64];
	int rc = fmt_qty(v, dim, buf, sizeof(buf), err);

	if (!rc)
		cJSON_AddItemToObject(o, key, cJSON_CreateString(buf));
	return rc;
}

static void add_time(cJSON *o, const char *key, bn_time_us t)
{
	char buf[64];

	fmt_time_us(t, buf, sizeof(buf));
	cJSON_AddItemToObject(o, key, cJSON_CreateString(buf));
}

static cJSON *curve_json(const double *i_a, const double *v_v, int n)
{
	cJSON *arr = cJSON_CreateArray();

	for (int k = 0; k < n; k++) {
		cJSON *pt = cJSON_CreateArray();

		cJSON_AddItemToArray(pt, cJSON_CreateNumber(i_a[k]));
		cJSON_AddItemToArray(pt, cJSON_CreateNumber(v_v[k]));
		cJSON_AddItemToArray(arr, pt);
	}
	return arr;
}

static int add_pair(cJSON *root, const char *key, const char *k0, double v0, enum bn_dim dim0,
		    double tau_s, struct bn_err *err)
{
	cJSON *o = cJSON_AddObjectToObject(root, key);
	int rc = add_qty(o, k0, v0, dim0, err);

	return rc ? rc : add_qty(o, "tau", tau_s, BN_DIM_S, err);
}

/* The series as CSV text (malloc'ed). %.17g: every double reads back. */
static char *csv_text(const struct bn_charger_vbus_t *vt, size_t *len)
{
	size_t cap = 32 + (size_t)vt->n * 80, n;
	char *buf = malloc(cap);

	if (!buf)
		return NULL;
	n = (size_t)snprintf(buf, cap, vt->has_i ? "t_s,v_V,i_A\n" : "t_s,v_V\n");
	for (int k = 0; k < vt->n; k++) {
		if (vt->has_i)
			n += (size_t)snprintf(buf + n, cap - n, "%.17g,%.17g,%.17g\n", vt->t_s[k],
					      vt->v_v[k], vt->i_a[k]);
		else
			n += (size_t)snprintf(buf + n, cap - n, "%.17g,%.17g\n", vt->t_s[k],
					      vt->v_v[k]);
	}
	*len = n;
	return buf;
}

static int add_vbus_t(cJSON *root, const struct bn_charger *c, const char *path,
		      struct bn_err *err)
{
	const struct bn_charger_vbus_t *vt = &c->vbus_t;
	cJSON *o = cJSON_AddObjectToObject(root, "vbus_t");
	int rc;

	if (vt->file[0]) {
		char csv[1200], *text;
		size_t len = 0;

		cJSON_AddStringToObject(o, "file", vt->file);
		rc = bn_charger_vbus_t_csv_path(path, vt->file, csv, sizeof(csv), err);
		if (rc)
			return rc;
		text = csv_text(vt, &len);
		if (!text)
			return bn_err_set(err, BN_ERR_NOMEM, "%s: out of memory", csv);
		rc = bn_file_write_atomic(csv, text, len, err);
		free(text);
		if (rc)
			return rc;
	} else {
		cJSON *arr = cJSON_AddArrayToObject(o, "samples");

		for (int k = 0; k < vt->n; k++) {
			cJSON *row = cJSON_CreateArray();

			cJSON_AddItemToArray(row, cJSON_CreateNumber(vt->t_s[k]));
			cJSON_AddItemToArray(row, cJSON_CreateNumber(vt->v_v[k]));
			if (vt->has_i)
				cJSON_AddItemToArray(row, cJSON_CreateNumber(vt->i_a[k]));
			cJSON_AddItemToArray(arr, row);
		}
	}
	rc = add_qty(o, "r_out", vt->r_out_ohm, BN_DIM_OHM, err);
	if (!rc && vt->repeat)
		cJSON_AddTrueToObject(o, "repeat");
	return rc;
}

static int build(cJSON *root, const struct bn_charger *c, const cJSON *measured,
		 const char *path, struct bn_err *err)
{
	int rc;

	cJSON_AddStringToObject(root, "schema", BN_CHARGER_SCHEMA);
	cJSON_AddStringToObject(root, "name", c->name);
	if (c->description[0])
		cJSON_AddStringToObject(root, "description", c->description);
	if (c->compliant >= 0)
		cJSON_AddBoolToObject(root, "compliant", c->compliant == 1);
	if (c->n_breaks > 0) {
		cJSON *b = cJSON_AddArrayToObject(root, "breaks");

		for (int k = 0; k < c->n_breaks; k++)
			cJSON_AddItemToArray(b, cJSON_CreateString(c->breaks[k]));
	}
	if (c->n_points < 2)
		return bn_err_set(err, BN_ERR_ARG, "%s: charger %s has no curve (%d points)", path,
				  c->name, c->n_points);
	cJSON_AddItemToObject(root, "curve", curve_json(c->i_a, c->v_v, c->n_points));
	rc = add_qty(root, "cable", c->cable_ohm, BN_DIM_OHM, err);
	if (!rc && c->rated_a > 0.0)
		rc = add_qty(root, "rated", c->rated_a, BN_DIM_A, err);
	if (!rc && c->output_cap_f > 0.0)
		rc = add_qty(root, "output_cap", c->output_cap_f, BN_DIM_F, err);
	if (rc)
		return rc;
	if (c->has_shutdown) {
		cJSON *sd = cJSON_AddObjectToObject(root, "shutdown");

		rc = add_qty(sd, "above", c->shutdown_above_a, BN_DIM_A, err);
		if (rc)
			return rc;
		add_time(sd, "after", c->shutdown_after_us);
		add_time(sd, "recover", c->recover_us);
	}
	if (c->has_transient &&
	    (rc = add_pair(root, "transient", "r", c->transient_r_ohm, BN_DIM_OHM,
			   c->transient_tau_s, err)))
		return rc;
	if (c->has_power_up &&
	    (rc = add_pair(root, "power_up", "peak", c->power_up_peak_v, BN_DIM_V,
			   c->power_up_tau_s, err)))
		return rc;
	if (c->n_phases > 0) {
		cJSON *sch = cJSON_AddArrayToObject(root, "schedule");

		for (int k = 0; k < c->n_phases; k++) {
			const struct bn_charger_phase *p = &c->phases[k];
			cJSON *o = cJSON_CreateObject();

			cJSON_AddItemToArray(sch, o);
			add_time(o, "from", p->from_us);
			cJSON_AddItemToObject(o, "curve", curve_json(p->i_a, p->v_v, p->n_points));
		}
	}
	if (c->vbus_t.n > 0 && (rc = add_vbus_t(root, c, path, err)))
		return rc;
	if (measured) {
		cJSON *m = cJSON_Duplicate(measured, 1);

		if (!m || !cJSON_IsObject(m)) {
			cJSON_Delete(m);
			return bn_err_set(err, BN_ERR_ARG, "%s: \"measured\" must be an object", path);
		}
		cJSON_AddItemToObject(root, "measured", m);
	}
	return BN_OK;
}

int bn_charger_write(const char *path, const struct bn_charger *c, const cJSON *measured,
		     struct bn_err *err)
{
	cJSON *root;
	int rc;

	if (!path || !c)
		return bn_err_set(err, BN_ERR_ARG, "bn_charger_write: no path or charger");
	root = cJSON_CreateObject();
	if (!root)
		return bn_err_set(err, BN_ERR_NOMEM, "%s: out of memory", path);
	rc = build(root, c, measured, path, err);
	if (rc) {
		cJSON_Delete(root);
		return rc;
	}
	return bn_json_write_atomic(path, root, err);
}
