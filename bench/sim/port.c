/* Port profiles (profiles/ports/<name>.json). */
#include "sim/port.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/units.h"
#include "core/json.h"

/* Not a BC-1.2 limit: the current a CDP's VDM_SRC holds its voltage at
 * (the limits file's VDM_SRC: 0.5-0.7 V while sourcing 0-250 uA; the 250 uA
 * is unverified, docs/bc12-limits.md), used when the profile gives none. */
#define PORT_RESP_I_LIMIT_DEFAULT_A 250e-6
/* The responder's output resistance when the profile gives none. */
#define PORT_RESP_R_DEFAULT_OHM 200.0

static const char *const top_keys[] = {
	"name", "description", "expect", "vbus", "enumeration", "dp_pulldown",
	"dm_pulldown", "dp_dm_short", "leakage", "id_leakage", "capacitance", "line_cap", "id",
	"dm_idle_source", "leak_source", "vdm_responder", "peripheral", NULL,
};
static const char *const idle_keys[] = { "v", "r", NULL };
static const char *const resp_keys[] = {
	"v", "r", "i_limit", "dp_low", "dp_high", "on_delay", "off_delay",
	"reenable_delay", NULL,
};

/* A quantity written with its unit; *present tells whether the key was
 * there. Bare numbers are refused: the key names carry no unit. */
static int qty(const cJSON *obj, const char *key, enum bn_dim dim, double *out, bool *present,
	       const char *what, struct bn_err *err)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);

	*present = it != NULL;
	if (!it)
		return BN_OK;
	if (cJSON_IsNumber(it))
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: key \"%s\": write %s with its unit, e.g. \"%g%s\"", what,
				  key, bn_dim_name(dim), it->valuedouble, bn_dim_unit(dim));
	return bn_json_quantity(obj, key, true, dim, 1.0, out, what, err);
}

/* An optional resistance that must be > 0 when given (absent = not fitted). */
static int res_opt(const cJSON *obj, const char *key, double *out, const char *what,
		   struct bn_err *err)
{
	bool present;
	double r = 0;
	int rc = qty(obj, key, BN_DIM_OHM, &r, &present, what, err);

	if (rc || !present)
		return rc;
	if (!(r > 0))
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: key \"%s\": resistance must be > 0, got %g ohm (omit the key when not fitted)",
				  what, key, r);
	*out = r;
	return BN_OK;
}

static int need_limit(const struct bn_limits *lim, const char *name, double v, const char *path,
		      struct bn_err *err)
{
	if (isfinite(v))
		return BN_OK;
	return bn_err_set(err, BN_ERR_DATA, "%s: the limits file %s lacks the %s needed for a default",
			  path, lim && lim->path ? lim->path : "(none)", name);
}

static int time_opt(const cJSON *obj, const char *key, bn_time_us *out, const char *what,
		    struct bn_err *err)
{
	bool present;
	double s = 0;
	int rc = qty(obj, key, BN_DIM_S, &s, &present, what, err);

	if (rc || !present)
		return rc;
	if (!(s >= 0))
		return bn_err_set(err, BN_ERR_DATA, "%s: key \"%s\": time must be >= 0", what, key);
	*out = bn_time_from_s(s);
	return BN_OK;
}

static int load_idle(const cJSON *o, const char *path, struct bn_port_profile *p,
		     struct bn_err *err)
{
	char what[300];
	bool present;
	int rc;

	snprintf(what, sizeof(what), "%s: dm_idle_source", path);
	rc = bn_json_check_keys(o, idle_keys, what, err);
	if (rc)
		return rc;
	rc = bn_json_quantity(o, "v", true, BN_DIM_V, 1.0, &p->dm_idle_v, what, err);
	if (rc)
		return rc;
	rc = qty(o, "r", BN_DIM_OHM, &p->dm_idle_r_ohm, &present, what, err);
	if (rc)
		return rc;
	if (!present)
		return bn_err_set(err, BN_ERR_DATA, "%s: missing key \"r\"", what);
	if (!(p->dm_idle_r_ohm > 0))
		return bn_err_set(err, BN_ERR_DATA, "%s: key \"r\": resistance must be > 0", what);
	p->has_dm_idle_source = true;
	return BN_OK;
}

/* A faulty port's leakage to a voltage (VDAT_LKG through RDAT_LKG, or
 * worse): same form as dm_idle_source, on both lines. */
static int load_leak(const cJSON *o, const char *path, struct bn_port_profile *p,
		     struct bn_err *err)
{
	char what[300];
	bool present;
	int rc;

	snprintf(what, sizeof(what), "%s: leak_source", path);
	rc = bn_json_check_keys(o, idle_keys, what, err);
	if (rc)
		return rc;
	rc = qty(o, "v", BN_DIM_V, &p->leak_v, &present, what, err);
	if (rc)
		return rc;
	if (!present)
		return bn_err_set(err, BN_ERR_DATA, "%s: missing key \"v\"", what);
	rc = qty(o, "r", BN_DIM_OHM, &p->leak_r_ohm, &present, what, err);
	if (rc)
		return rc;
	if (!present)
		return bn_err_set(err, BN_ERR_DATA, "%s: missing key \"r\"", what);
	if (!(p->leak_r_ohm > 0))
		return bn_err_set(err, BN_ERR_DATA, "%s: key \"r\": resistance must be > 0", what);
	p->has_leak_source = true;
	return BN_OK;
}

static int load_responder(const cJSON *o, const char *path, const struct bn_limits *lim,
			  struct bn_port_profile *p, struct bn_err *err)
{
	char what[300];
	bool present;
	int rc;

	snprintf(what, sizeof(what), "%s: vdm_responder", path);
	rc = bn_json_check_keys(o, resp_keys, what, err);
	if (rc)
		return rc;
	p->resp_v = bn_limits_typ(lim, "VDM_SRC");
	p->resp_r_ohm = PORT_RESP_R_DEFAULT_OHM;
	p->resp_i_limit_a = PORT_RESP_I_LIMIT_DEFAULT_A;
	p->resp_dp_low_v = bn_limits_max(lim, "VDAT_REF");
	p->resp_dp_high_v = bn_limits_min(lim, "VLGC");
	p->resp_on_delay_us = bn_time_from_s(bn_limits_max(lim, "TVDMSRC_EN"));
	p->resp_off_delay_us = bn_time_from_s(bn_limits_max(lim, "TVDMSRC_DIS") / 2);
	p->resp_reenable_us = bn_time_from_s(bn_limits_max(lim, "TCP_VDM_EN"));
	rc = need_limit(lim, "VDM_SRC", p->resp_v, path, err);
	rc = rc ? rc : need_limit(lim, "VDAT_REF max", p->resp_dp_low_v, path, err);
	rc = rc ? rc : need_limit(lim, "VLGC min", p->resp_dp_high_v, path, err);
	rc = rc ? rc : need_limit(lim, "TVDMSRC_EN max", bn_limits_max(lim, "TVDMSRC_EN"), path, err);
	rc = rc ? rc : need_limit(lim, "TVDMSRC_DIS max", bn_limits_max(lim, "TVDMSRC_DIS"), path, err);
	rc = rc ? rc : need_limit(lim, "TCP_VDM_EN max", bn_limits_max(lim, "TCP_VDM_EN"), path, err);
	if (rc)
		return rc;

	rc = qty(o, "v", BN_DIM_V, &p->resp_v, &present, what, err);
	rc = rc ? rc : res_opt(o, "r", &p->resp_r_ohm, what, err);
	rc = rc ? rc : qty(o, "i_limit", BN_DIM_A, &p->resp_i_limit_a, &present, what, err);
	if (!rc && !(p->resp_i_limit_a >= 0))
		rc = bn_err_set(err, BN_ERR_DATA, "%s: key \"i_limit\": must be >= 0 (0 = none)", what);
	if (!rc) {
		char why[200];

		if (bn_plausible_max(p->resp_i_limit_a, BN_DIM_A, BN_PLAUSIBLE_USB_A, 0, why,
				     sizeof(why)) != BN_OK)
			rc = bn_err_set(err, BN_ERR_DATA, "%s: key \"i_limit\": %s", what, why);
	}
	rc = rc ? rc : qty(o, "dp_low", BN_DIM_V, &p->resp_dp_low_v, &present, what, err);
	rc = rc ? rc : qty(o, "dp_high", BN_DIM_V, &p->resp_dp_high_v, &present, what, err);
	if (!rc && !(p->resp_dp_low_v < p->resp_dp_high_v))
		rc = bn_err_set(err, BN_ERR_DATA,
				"%s: key \"dp_high\": %g V must be above dp_low %g V", what,
				p->resp_dp_high_v, p->resp_dp_low_v);
	rc = rc ? rc : time_opt(o, "on_delay", &p->resp_on_delay_us, what, err);
	rc = rc ? rc : time_opt(o, "off_delay", &p->resp_off_delay_us, what, err);
	rc = rc ? rc : time_opt(o, "reenable_delay", &p->resp_reenable_us, what, err);
	if (rc)
		return rc;
	p->has_vdm_responder = true;
	return BN_OK;
}

static int load_words(const cJSON *root, const char *path, struct bn_port_profile *p,
		      struct bn_err *err)
{
	char word[32];
	int rc;

	rc = bn_json_str(root, "expect", true, word, sizeof(word), path, err);
	if (rc)
		return rc;
	p->expect = bn_port_from_name(word);
	if (p->expect == BN_PORT_UNKNOWN)
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: key \"expect\": \"%s\" is not a port type (sdp cdp dcp aca-a aca-b aca-c aca-dock otg float)",
				  path, word);

	strcpy(word, "external");
	rc = bn_json_str(root, "vbus", false, word, sizeof(word), path, err);
	if (rc)
		return rc;
	if (!strcmp(word, "external"))
		p->vbus = BN_PORT_VBUS_EXTERNAL;
	else if (!strcmp(word, "none"))
		p->vbus = BN_PORT_VBUS_NONE;
	else
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: key \"vbus\": \"%s\" is not \"external\" or \"none\"", path, word);

	rc = bn_json_str(root, "enumeration", true, word, sizeof(word), path, err);
	if (rc)
		return rc;
	if (!strcmp(word, "host"))
		p->enumeration = BN_PORT_ENUM_HOST;
	else if (!strcmp(word, "device"))
		p->enumeration = BN_PORT_ENUM_DEVICE;
	else if (!strcmp(word, "none"))
		p->enumeration = BN_PORT_ENUM_NONE;
	else
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: key \"enumeration\": \"%s\" is not \"host\", \"device\" or \"none\"",
				  path, word);
	return BN_OK;
}

static int load_profile(const cJSON *root, const char *path, const struct bn_limits *lim,
			struct bn_port_profile *p, struct bn_err *err)
{
	const cJSON *o;
	bool present;
	int rc;

	rc = bn_json_check_keys(root, top_keys, path, err);
	if (rc)
		return rc;
	bn_json_stem(path, p->name, sizeof(p->name));
	rc = bn_json_str(root, "name", false, p->name, sizeof(p->name), path, err);
	if (rc)
		return rc;
	if (!p->name[0])
		return bn_err_set(err, BN_ERR_DATA, "%s: key \"name\": empty", path);
	/* only its type is checked: any length */
	o = cJSON_GetObjectItemCaseSensitive(root, "description");
	if (o && !cJSON_IsString(o))
		return bn_err_set(err, BN_ERR_DATA, "%s: key \"description\": expected a string",
				  path);
	rc = load_words(root, path, p, err);
	if (rc)
		return rc;

	p->leakage_ohm = bn_limits_min(lim, "RDAT_LKG");
	rc = need_limit(lim, "RDAT_LKG min", p->leakage_ohm, path, err);
	rc = rc ? rc : res_opt(root, "dp_pulldown", &p->dp_pulldown_ohm, path, err);
	rc = rc ? rc : res_opt(root, "dm_pulldown", &p->dm_pulldown_ohm, path, err);
	rc = rc ? rc : res_opt(root, "dp_dm_short", &p->dp_dm_short_ohm, path, err);
	rc = rc ? rc : res_opt(root, "leakage", &p->leakage_ohm, path, err);
	p->id_leakage_ohm = BN_PORT_ID_LEAKAGE_OHM;
	rc = rc ? rc : res_opt(root, "id_leakage", &p->id_leakage_ohm, path, err);
	rc = rc ? rc : res_opt(root, "id", &p->id_ohm, path, err);
	rc = rc ? rc : qty(root, "capacitance", BN_DIM_F, &p->capacitance_f, &present, path, err);
	if (!rc && !(p->capacitance_f >= 0))
		rc = bn_err_set(err, BN_ERR_DATA, "%s: key \"capacitance\": must be >= 0", path);
	rc = rc ? rc : qty(root, "line_cap", BN_DIM_F, &p->line_cap_f, &present, path, err);
	if (!rc && !(p->line_cap_f >= 0 && p->line_cap_f <= 1e-6))
		rc = bn_err_set(err, BN_ERR_DATA, "%s: key \"line_cap\": expected 0 to 1 uF", path);
	if (rc)
		return rc;

	o = cJSON_GetObjectItemCaseSensitive(root, "dm_idle_source");
	if (o) {
		rc = load_idle(o, path, p, err);
		if (rc)
			return rc;
	}
	o = cJSON_GetObjectItemCaseSensitive(root, "leak_source");
	if (o) {
		rc = load_leak(o, path, p, err);
		if (rc)
			return rc;
	}
	o = cJSON_GetObjectItemCaseSensitive(root, "vdm_responder");
	if (o) {
		rc = load_responder(o, path, lim, p, err);
		if (rc)
			return rc;
	}
	return bn_json_str(root, "peripheral", false, p->peripheral, sizeof(p->peripheral), path,
			   err);
}

int bn_port_load(const char *path, const struct bn_limits *lim, struct bn_port_profile *out, struct bn_err *err)
{
	return bn_port_load_sha(path, lim, out, NULL, err);
}

int bn_port_load_sha(const char *path, const struct bn_limits *lim, struct bn_port_profile *out, char sha256[65], struct bn_err *err)
{
	struct bn_port_profile p;
	cJSON *root = NULL;
	int rc;

	if (!path || !lim || !out)
		return bn_err_set(err, BN_ERR_ARG, "port profile: bad arguments");
	memset(&p, 0, sizeof(p));
	if (strlen(path) >= sizeof(p.path))
		return bn_err_set(err, BN_ERR_ARG, "%s: path too long", path);
	strcpy(p.path, path);
	rc = bn_json_load_sha(path, &root, sha256, err);
	if (rc)
		return rc;
	rc = load_profile(root, path, lim, &p, err);
	cJSON_Delete(root);
	if (rc)
		return rc;
	*out = p;
	return BN_OK;
}
