/* Host profiles (profiles/hosts/<name>.json): what the sim host behind an
 * SDP, CDP or ACA-C port grants a device that connects. */
#include "sim/host.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/json.h"

/* Not a BC-1.2 number: from D+ pull-up to the host's configuration choice
 * when the profile gives none (a real host's reset and descriptor reads). */
#define HOST_ENUM_DELAY_DEFAULT_S 0.1
#define HOST_DEFAULT_NAME "root-500ma"
/* Only when no limits are at hand: ICFG_MAX max and TSVLD_CON_PWD max. */
#define HOST_FALLBACK_BUDGET_A 0.5
#define HOST_FALLBACK_IDLE_S 1.0

static const char *const host_keys[] = {
	"name", "description", "budget", "enumerates", "enum_delay", "idle_suspend", NULL,
};

void bn_host_default(const struct bn_limits *lim, struct bn_host_profile *out)
{
	double budget = lim ? bn_limits_max(lim, "ICFG_MAX") : NAN;
	double idle = lim ? bn_limits_max(lim, "TSVLD_CON_PWD") : NAN;

	memset(out, 0, sizeof(*out));
	strcpy(out->name, HOST_DEFAULT_NAME);
	/* a root port grants a configured device ICFG_MAX (500 mA) */
	out->budget_a = isfinite(budget) ? budget : HOST_FALLBACK_BUDGET_A;
	out->enumerates = true;
	out->enum_delay_us = bn_time_from_s(HOST_ENUM_DELAY_DEFAULT_S);
	out->idle_suspend_us = bn_time_from_s(isfinite(idle) ? idle : HOST_FALLBACK_IDLE_S);
}

/* A quantity written with its unit (bare numbers refused), >= 0. */
static int qty(const cJSON *obj, const char *key, bool required, enum bn_dim dim, double *out,
	       const char *path, struct bn_err *err)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);
	double v = 0;
	int rc;

	if (!it && !required)
		return BN_OK;
	if (it && cJSON_IsNumber(it) && dim == BN_DIM_A && it->valuedouble > BN_PLAUSIBLE_USB_A)
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: key \"%s\": write a current with its unit: %g looks like mA, "
				  "write \"%gmA\" (or \"%gA\")", path, key, it->valuedouble,
				  it->valuedouble, it->valuedouble / 1000.0);
	if (it && cJSON_IsNumber(it))
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: key \"%s\": write %s with its unit, e.g. \"%g%s\"", path, key,
				  bn_dim_name(dim), it->valuedouble, bn_dim_unit(dim));
	rc = bn_json_quantity(obj, key, required, dim, 1.0, &v, path, err);
	if (rc)
		return rc;
	if (!(v >= 0))
		return bn_err_set(err, BN_ERR_DATA, "%s: key \"%s\": must be >= 0", path, key);
	*out = v;
	return BN_OK;
}

static int load_host(const cJSON *root, const char *path, const struct bn_limits *lim,
		     struct bn_host_profile *h, struct bn_err *err)
{
	const cJSON *o;
	double s;
	char why[200];
	int rc;

	rc = bn_json_check_keys(root, host_keys, path, err);
	if (rc)
		return rc;
	bn_json_stem(path, h->name, sizeof(h->name));
	rc = bn_json_str(root, "name", false, h->name, sizeof(h->name), path, err);
	if (rc)
		return rc;
	if (!h->name[0])
		return bn_err_set(err, BN_ERR_DATA, "%s: key \"name\": empty", path);
	o = cJSON_GetObjectItemCaseSensitive(root, "description");
	if (o && !cJSON_IsString(o))
		return bn_err_set(err, BN_ERR_DATA, "%s: key \"description\": expected a string",
				  path);
	rc = qty(root, "budget", true, BN_DIM_A, &h->budget_a, path, err);
	if (!rc && bn_plausible_max(h->budget_a, BN_DIM_A, BN_PLAUSIBLE_USB_A,
				  cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(root, "budget")), why,
				  sizeof(why)) != BN_OK)
		rc = bn_err_set(err, BN_ERR_DATA, "%s: key \"budget\": %s", path, why);
	if (rc)
		return rc;
	rc = bn_json_bool(root, "enumerates", false, &h->enumerates, path, err);
	if (rc)
		return rc;
	s = bn_time_to_s(h->enum_delay_us);
	rc = qty(root, "enum_delay", false, BN_DIM_S, &s, path, err);
	if (rc)
		return rc;
	h->enum_delay_us = bn_time_from_s(s);
	s = bn_time_to_s(h->idle_suspend_us);
	rc = qty(root, "idle_suspend", false, BN_DIM_S, &s, path, err);
	if (rc)
		return rc;
	h->idle_suspend_us = bn_time_from_s(s);
	return BN_OK;
}

int bn_host_load(const char *path, const struct bn_limits *lim, struct bn_host_profile *out, struct bn_err *err)
{
	return bn_host_load_sha(path, lim, out, NULL, err);
}

int bn_host_load_sha(const char *path, const struct bn_limits *lim, struct bn_host_profile *out, char sha256[65], struct bn_err *err)
{
	struct bn_host_profile h;
	cJSON *root = NULL;
	double idle;
	int rc;

	if (!path || !lim || !out)
		return bn_err_set(err, BN_ERR_ARG, "host profile: bad arguments");
	idle = bn_limits_max(lim, "TSVLD_CON_PWD");
	if (!isfinite(idle))
		return bn_err_set(err, BN_ERR_DATA, "%s: the limits file lacks TSVLD_CON_PWD max",
				  path);
	memset(&h, 0, sizeof(h));
	if (strlen(path) >= sizeof(h.path))
		return bn_err_set(err, BN_ERR_ARG, "%s: path too long", path);
	strcpy(h.path, path);
	h.enumerates = true;
	h.enum_delay_us = bn_time_from_s(HOST_ENUM_DELAY_DEFAULT_S);
	h.idle_suspend_us = bn_time_from_s(idle);
	rc = bn_json_load_sha(path, &root, sha256, err);
	if (rc)
		return rc;
	rc = load_host(root, path, lim, &h, err);
	cJSON_Delete(root);
	if (rc)
		return rc;
	*out = h;
	return BN_OK;
}
