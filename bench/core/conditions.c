#include "core/conditions.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/json.h"

static const char *const ch_keys[BN_COND_CH] = { "vbus", "ibus", "dp", "dm", "id" };

void bn_conditions_init(struct bn_conditions *c)
{
	memset(c, 0, sizeof(*c));
	c->data_delay_us = -1;
	c->bounce_n = -1;
	c->vbus_bounce_n = -1;
	c->line_cap_f = -1;
}

/* {"count": N, "each": "2ms"}: N from 0 to 10000, each > 0 and at most 1 s. */
static int load_bounce(const cJSON *root, const char *key, int *n_out, bn_time_us *each_us,
		       const char *path, struct bn_err *err)
{
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(root, key);
	char what[600];
	double n = -1, each = 0;
	int rc;

	if (!m)
		return BN_OK;
	snprintf(what, sizeof(what), "%s: %s", path, key);
	if ((rc = bn_json_check_keys(m, (const char *const[]){ "count", "each", NULL }, what, err)) < 0 ||
	    (rc = bn_json_num(m, "count", true, &n, what, err)) < 0 ||
	    (rc = bn_json_quantity(m, "each", true, BN_DIM_S, 1.0, &each, what, err)) < 0)
		return rc;
	if (!(n >= 0) || n > 10000 || n != floor(n) || !(each > 0) || each > 1)
		return bn_err_set(err, BN_ERR_DATA, "%s: expected count 0 to 10000 and each > 0 (at most 1s)", what);
	*n_out = (int)n;
	*each_us = bn_time_from_s(each);
	return BN_OK;
}

/* The physics a conditions file may add: the grounds' offset and the
 * lines' capacitance. */
static int load_physics(const cJSON *root, struct bn_conditions *c, const char *path,
			struct bn_err *err)
{
	double v;
	int rc;

	if (cJSON_GetObjectItemCaseSensitive(root, "gnd_offset")) {
		rc = bn_json_quantity(root, "gnd_offset", true, BN_DIM_V, 1.0, &v, path, err);
		if (rc < 0)
			return rc;
		if (!(fabs(v) <= 1.0))
			return bn_err_set(err, BN_ERR_DATA,
					  "%s: key \"gnd_offset\": expected a voltage from -1 V to 1 V", path);
		c->has_gnd_offset = true;
		c->gnd_offset_v = v;
	}
	if (cJSON_GetObjectItemCaseSensitive(root, "line_cap")) {
		rc = bn_json_quantity(root, "line_cap", true, BN_DIM_F, 1.0, &v, path, err);
		if (rc < 0)
			return rc;
		if (!(v >= 0 && v <= 1e-6))
			return bn_err_set(err, BN_ERR_DATA,
					  "%s: key \"line_cap\": expected a capacitance from 0 to 1 uF", path);
		c->line_cap_f = v;
	}
	if (cJSON_GetObjectItemCaseSensitive(root, "capture_start")) {
		rc = bn_json_quantity(root, "capture_start", true, BN_DIM_S, 1.0, &v, path, err);
		if (rc < 0)
			return rc;
		if (!(v >= 0 && v <= 3600))
			return bn_err_set(err, BN_ERR_DATA,
					  "%s: key \"capture_start\": expected a time from 0 to 1h", path);
		c->capture_start_us = bn_time_from_s(v);
	}
	return BN_OK;
}

static int load_measure(const cJSON *m, struct bn_conditions *c, const char *path,
			struct bn_err *err)
{
	char what[600], why[200];
	int rc;

	snprintf(what, sizeof(what), "%s: measure", path);
	if (!cJSON_IsObject(m))
		return bn_err_set(err, BN_ERR_DATA, "%s: expected an object of channel: \"SPEC\"", what);
	rc = bn_json_check_keys(m, (const char *const[]){ "vbus", "ibus", "dp", "dm", "id", NULL },
				what, err);
	if (rc < 0)
		return rc;
	for (int ch = 0; ch < BN_COND_CH; ch++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(m, ch_keys[ch]);

		if (!v)
			continue;
		if (!cJSON_IsString(v))
			return bn_err_set(err, BN_ERR_DATA, "%s: key \"%s\": expected a string such as "
					  "\"noise=3mV,bits=12,range=0V..5V\"", what, ch_keys[ch]);
		if (bn_meas_parse(v->valuestring, ch == 1 ? BN_DIM_A : BN_DIM_V, &c->meas[ch], why,
				  sizeof(why)) < 0)
			return bn_err_set(err, BN_ERR_DATA, "%s: key \"%s\": %s", what, ch_keys[ch], why);
		c->meas_set |= 1u << ch;
	}
	return BN_OK;
}

int bn_conditions_load(const char *path, struct bn_conditions *c, struct bn_err *err)
{
	static const char *const keys[] = { "schema", "name", "description", "measure", "seed",
					    "data_delay", "bounce", "vbus_bounce", "gnd_offset",
					    "line_cap", "capture_start", NULL };
	cJSON *root = NULL;
	const cJSON *m;
	double seed = -1;
	int rc;

	bn_conditions_init(c);
	bn_json_stem(path, c->name, sizeof(c->name));
	rc = bn_json_load_schema(path, keys, BN_CONDITIONS_SCHEMA, &root, err);
	if (rc < 0)
		return rc;
	if ((rc = bn_json_str(root, "name", false, c->name, sizeof(c->name), path, err)) < 0 ||
	    (rc = bn_json_str(root, "description", false, c->description, sizeof(c->description),
			      path, err)) < 0 ||
	    (rc = bn_json_num(root, "seed", false, &seed, path, err)) < 0)
		goto out;
	if (cJSON_GetObjectItemCaseSensitive(root, "seed")) {
		if (!(seed >= 0) || seed > 9007199254740992.0 || seed != floor(seed)) {
			rc = bn_err_set(err, BN_ERR_DATA, "%s: key \"seed\": expected a whole number >= 0", path);
			goto out;
		}
		c->has_seed = true;
		c->seed = (unsigned long long)seed;
	}
	m = cJSON_GetObjectItemCaseSensitive(root, "measure");
	if (m && (rc = load_measure(m, c, path, err)) < 0)
		goto out;
	if (cJSON_GetObjectItemCaseSensitive(root, "data_delay")) {
		double s;

		rc = bn_json_quantity(root, "data_delay", true, BN_DIM_S, 1.0, &s, path, err);
		if (rc < 0)
			goto out;
		if (!(s >= 0) || s > 3600) {
			rc = bn_err_set(err, BN_ERR_DATA, "%s: key \"data_delay\": expected a time from 0 to 1h", path);
			goto out;
		}
		c->data_delay_us = bn_time_from_s(s);
	}
	if ((rc = load_bounce(root, "bounce", &c->bounce_n, &c->bounce_us, path, err)) < 0 ||
	    (rc = load_bounce(root, "vbus_bounce", &c->vbus_bounce_n, &c->vbus_bounce_us, path,
			      err)) < 0 ||
	    (rc = load_physics(root, c, path, err)) < 0)
		goto out;
	rc = BN_OK;
out:
	cJSON_Delete(root);
	return rc;
}
