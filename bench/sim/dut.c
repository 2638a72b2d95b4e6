/* Device declarations (profiles/duts/<name>.json) and PHY defaults. See dut.h. */
#include "sim/dut.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "core/json.h"

/* Device-design defaults where BC-1.2 says nothing (not spec numbers). */
#define BN_DUT_DEFAULT_FIRMWARE "reference"
#define BN_DUT_DEFAULT_UVLO_V 3.6
#define BN_DUT_DEFAULT_UVLO_RESTART_S 0.050
#define BN_DUT_DEFAULT_DATA_CONTACT_DELAY_S 0.005
#define BN_DUT_DEFAULT_SYSTEM_LOAD_A 0.100
#define BN_DUT_PHY_SRC_R_OHM 100.0
#define BN_DUT_PHY_PULLUP_V 3.3
#define BN_DUT_PHY_ID_PULLUP_OHM 100e3
#define BN_DUT_PHY_ID_PULLUP_V 3.3
#define BN_DUT_PHY_OTG_V 5.0
#define BN_DUT_PHY_OTG_R_OHM 0.2
#define BN_DUT_PHY_SRC_COMPLIANCE_V 3.3
/* A charger IC's input in high impedance draws some tens of microamps:
 * with an input capacitance and nothing else, VBUS must still decay. */
#define BN_DUT_DEFAULT_VBUS_BLEED_OHM 100e3

/* The limits name that bounds a device's droop threshold. */
#define BN_DUT_DROOP_LIMIT "VDROOP_DEV"

void bn_dut_phy_defaults(const struct bn_limits *lim, struct bn_dut_phy *phy)
{
	memset(phy, 0, sizeof(*phy));
	phy->idp_src_a = bn_limits_typ(lim, "IDP_SRC");
	phy->vdp_src_v = bn_limits_typ(lim, "VDP_SRC");
	phy->vdm_src_v = bn_limits_typ(lim, "VDM_SRC");
	phy->idm_sink_a = bn_limits_typ(lim, "IDM_SINK");
	phy->idp_sink_a = bn_limits_typ(lim, "IDP_SINK");
	phy->rdm_dwn_ohm = bn_limits_typ(lim, "RDM_DWN");
	phy->rdp_up_ohm = bn_limits_typ(lim, "RDP_UP");
	phy->vdat_ref_v = bn_limits_typ(lim, "VDAT_REF");
	phy->vlgc_v = bn_limits_typ(lim, "VLGC");
	phy->sess_vld_v = bn_limits_max(lim, "VOTG_SESS_VLD");
	phy->src_r_ohm = BN_DUT_PHY_SRC_R_OHM;
	phy->pullup_v = BN_DUT_PHY_PULLUP_V;
	phy->id_pullup_ohm = BN_DUT_PHY_ID_PULLUP_OHM;
	phy->id_pullup_v = BN_DUT_PHY_ID_PULLUP_V;
	phy->otg_v = BN_DUT_PHY_OTG_V;
	phy->otg_r_ohm = BN_DUT_PHY_OTG_R_OHM;
	phy->src_compliance_v = BN_DUT_PHY_SRC_COMPLIANCE_V;
}

static const char *const dut_keys[] = {
	"name", "description", "firmware", "battery_powered", "droop_threshold", "dbp",
	"secondary_detection", "otg_rating", "system_load", "uvlo", "uvlo_restart",
	"data_contact_delay", "battery", "phy", "uvlo_hysteresis", "uvlo_deglitch", "vbus_cap",
	"vbus_bleed", NULL
};

struct phy_key {
	const char *key;
	enum bn_dim dim;
	size_t off;
};

#define PHY_KEY(k, d, f) { k, d, offsetof(struct bn_dut_phy, f) }
static const struct phy_key phy_keys[] = {
	PHY_KEY("idp_src", BN_DIM_A, idp_src_a),
	PHY_KEY("vdp_src", BN_DIM_V, vdp_src_v),
	PHY_KEY("vdm_src", BN_DIM_V, vdm_src_v),
	PHY_KEY("src_r", BN_DIM_OHM, src_r_ohm),
	PHY_KEY("idm_sink", BN_DIM_A, idm_sink_a),
	PHY_KEY("idp_sink", BN_DIM_A, idp_sink_a),
	PHY_KEY("rdm_dwn", BN_DIM_OHM, rdm_dwn_ohm),
	PHY_KEY("rdp_up", BN_DIM_OHM, rdp_up_ohm),
	PHY_KEY("pullup_v", BN_DIM_V, pullup_v),
	PHY_KEY("id_pullup", BN_DIM_OHM, id_pullup_ohm),
	PHY_KEY("id_pullup_v", BN_DIM_V, id_pullup_v),
	PHY_KEY("vdat_ref", BN_DIM_V, vdat_ref_v),
	PHY_KEY("vlgc", BN_DIM_V, vlgc_v),
	PHY_KEY("sess_vld", BN_DIM_V, sess_vld_v),
	PHY_KEY("otg_v", BN_DIM_V, otg_v),
	PHY_KEY("otg_r", BN_DIM_OHM, otg_r_ohm),
	PHY_KEY("src_compliance", BN_DIM_V, src_compliance_v),
	PHY_KEY("line_cap", BN_DIM_F, line_cap_f),
};
#define N_PHY_KEYS (sizeof(phy_keys) / sizeof(phy_keys[0]))

static int parse_phy(const cJSON *obj, struct bn_dut_phy *phy, const char *path,
		     struct bn_err *err)
{
	char what[300];
	const cJSON *it;
	int rc;

	snprintf(what, sizeof(what), "%s: phy", path);
	if (!cJSON_IsObject(obj))
		return bn_err_set(err, BN_ERR_DATA, "%s: key \"phy\": expected an object", path);
	cJSON_ArrayForEach(it, obj) {
		const struct phy_key *pk = NULL;
		double *dst;

		for (size_t k = 0; k < N_PHY_KEYS; k++)
			if (it->string && !strcmp(it->string, phy_keys[k].key))
				pk = &phy_keys[k];
		if (!pk)
			return bn_err_set(err, BN_ERR_DATA, "%s: unknown key \"%s\"", what,
					  it->string ? it->string : "?");
		dst = (double *)((char *)phy + pk->off);
		rc = bn_json_quantity(obj, pk->key, true, pk->dim, 1.0, dst, what, err);
		if (rc)
			return rc;
		/* a capacitance may be 0 (none); every other value must be > 0 */
		if (pk->dim == BN_DIM_F ? !(*dst >= 0.0 && *dst <= 1e-6)
					: !(*dst > 0.0) || !isfinite(*dst))
			return bn_err_set(err, BN_ERR_DATA, "%s: key \"%s\": must be %s", what,
					  pk->key, pk->dim == BN_DIM_F ? "from 0 to 1 uF" : "positive");
	}
	return BN_OK;
}

static int check_droop(const struct bn_limits *lim, double v, const char *path,
		       struct bn_err *err)
{
	double lo = bn_limits_min(lim, BN_DUT_DROOP_LIMIT);
	double hi = bn_limits_max(lim, BN_DUT_DROOP_LIMIT);

	if (isnan(lo) && isnan(hi))
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: key \"droop_threshold\": limits file %s has no %s", path,
				  lim->path ? lim->path : "?", BN_DUT_DROOP_LIMIT);
	/* The lower bound is exclusive: a device may not pull a port down to
	 * VDCP_SHTDWN (> 2.0 V). */
	if ((!isnan(lo) && !(v > lo)) || (!isnan(hi) && !(v <= hi)))
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: key \"droop_threshold\": %g V outside %s (> %g V, <= %g V)",
				  path, v, BN_DUT_DROOP_LIMIT, lo, hi);
	return BN_OK;
}

/* The charger IC's lockout beyond its threshold, and the VBUS input's
 * capacitance: each defaults to the ideal (no hysteresis, no deglitch,
 * no capacitance). */
static int parse_vbus_node(const cJSON *root, struct bn_dut_decl *d, const char *path,
			   struct bn_err *err)
{
	double t_s = 0.0;
	int rc;

	rc = bn_json_quantity(root, "uvlo_hysteresis", false, BN_DIM_V, 1.0, &d->uvlo_hyst_v, path,
			      err);
	if (!rc && !(d->uvlo_hyst_v >= 0.0 && d->uvlo_hyst_v < 5.0))
		rc = bn_err_set(err, BN_ERR_DATA,
				"%s: key \"uvlo_hysteresis\": expected a voltage from 0 to 5 V", path);
	if (!rc)
		rc = bn_json_quantity(root, "uvlo_deglitch", false, BN_DIM_S, 1.0, &t_s, path, err);
	if (!rc && !(t_s >= 0.0 && t_s <= 1.0))
		rc = bn_err_set(err, BN_ERR_DATA,
				"%s: key \"uvlo_deglitch\": expected a time from 0 to 1 s", path);
	if (rc)
		return rc;
	d->uvlo_deglitch_us = bn_time_from_s(t_s);
	rc = bn_json_quantity(root, "vbus_cap", false, BN_DIM_F, 1.0, &d->vbus_cap_f, path, err);
	if (!rc && !(d->vbus_cap_f >= 0.0 && d->vbus_cap_f <= 1.0))
		rc = bn_err_set(err, BN_ERR_DATA,
				"%s: key \"vbus_cap\": expected a capacitance from 0 to 1 F", path);
	d->vbus_bleed_ohm = BN_DUT_DEFAULT_VBUS_BLEED_OHM;
	if (!rc)
		rc = bn_json_quantity(root, "vbus_bleed", false, BN_DIM_OHM, 1.0, &d->vbus_bleed_ohm,
				      path, err);
	if (!rc && !(d->vbus_bleed_ohm > 0.0 && isfinite(d->vbus_bleed_ohm)))
		rc = bn_err_set(err, BN_ERR_DATA, "%s: key \"vbus_bleed\": must be positive", path);
	return rc;
}

static int parse_decl(const cJSON *root, const struct bn_limits *lim, struct bn_dut_decl *d,
		      const char *path, struct bn_err *err)
{
	const cJSON *desc, *bat, *phy;
	double t_s;
	char why[200];
	int rc;

	if (!cJSON_IsObject(root))
		return bn_err_set(err, BN_ERR_DATA, "%s: expected a JSON object", path);
	rc = bn_json_check_keys(root, dut_keys, path, err);
	if (rc)
		return rc;
	rc = bn_json_str(root, "name", false, d->name, sizeof(d->name), path, err);
	if (rc)
		return rc;
	desc = cJSON_GetObjectItemCaseSensitive(root, "description");
	if (desc && !cJSON_IsString(desc))
		return bn_err_set(err, BN_ERR_DATA, "%s: key \"description\": expected a string",
				  path);
	rc = bn_json_str(root, "firmware", false, d->firmware, sizeof(d->firmware), path, err);
	if (!rc)
		rc = bn_json_bool(root, "battery_powered", true, &d->battery_powered, path, err);
	if (!rc)
		rc = bn_json_quantity(root, "droop_threshold", true, BN_DIM_V, 1.0,
				      &d->droop_threshold_v, path, err);
	if (!rc)
		rc = check_droop(lim, d->droop_threshold_v, path, err);
	if (!rc)
		rc = bn_json_bool(root, "dbp", false, &d->dbp, path, err);
	if (!rc)
		rc = bn_json_bool(root, "secondary_detection", false, &d->secondary_detection,
				  path, err);
	if (!rc)
		rc = bn_json_quantity(root, "otg_rating", false, BN_DIM_A, 1.0, &d->otg_rating_a,
				      path, err);
	if (!rc && !(d->otg_rating_a >= 0.0))
		rc = bn_err_set(err, BN_ERR_DATA, "%s: key \"otg_rating\": negative current",
				path);
	if (!rc && bn_plausible_max(d->otg_rating_a, BN_DIM_A, BN_PLAUSIBLE_USB_A,
				  cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(root, "otg_rating")), why,
				  sizeof(why)) != BN_OK)
		rc = bn_err_set(err, BN_ERR_DATA, "%s: key \"otg_rating\": %s", path, why);
	if (!rc)
		rc = bn_json_quantity(root, "system_load", false, BN_DIM_A, 1.0,
				      &d->system_load_a, path, err);
	if (!rc && !(d->system_load_a >= 0.0))
		rc = bn_err_set(err, BN_ERR_DATA, "%s: key \"system_load\": negative current",
				path);
	if (!rc && bn_plausible_max(d->system_load_a, BN_DIM_A, BN_PLAUSIBLE_USB_A,
				  cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(root, "system_load")), why,
				  sizeof(why)) != BN_OK)
		rc = bn_err_set(err, BN_ERR_DATA, "%s: key \"system_load\": %s", path, why);
	if (!rc)
		rc = bn_json_quantity(root, "uvlo", false, BN_DIM_V, 1.0, &d->uvlo_v, path, err);
	if (!rc && !(d->uvlo_v > 0.0))
		rc = bn_err_set(err, BN_ERR_DATA, "%s: key \"uvlo\": must be positive", path);
	if (rc)
		return rc;

	t_s = BN_DUT_DEFAULT_UVLO_RESTART_S;
	rc = bn_json_quantity(root, "uvlo_restart", false, BN_DIM_S, 1.0, &t_s, path, err);
	if (!rc && !(t_s >= 0.0))
		rc = bn_err_set(err, BN_ERR_DATA, "%s: key \"uvlo_restart\": negative time", path);
	if (rc)
		return rc;
	d->uvlo_restart_us = bn_time_from_s(t_s);
	rc = parse_vbus_node(root, d, path, err);
	if (rc)
		return rc;
	t_s = BN_DUT_DEFAULT_DATA_CONTACT_DELAY_S;
	rc = bn_json_quantity(root, "data_contact_delay", false, BN_DIM_S, 1.0, &t_s, path, err);
	if (!rc && !(t_s >= 0.0))
		rc = bn_err_set(err, BN_ERR_DATA, "%s: key \"data_contact_delay\": negative time",
				path);
	if (rc)
		return rc;
	d->data_contact_delay_us = bn_time_from_s(t_s);

	bat = cJSON_GetObjectItemCaseSensitive(root, "battery");
	if (d->battery_powered && !bat)
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: key \"battery\": missing (battery_powered is true)", path);
	if (!d->battery_powered && bat)
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: key \"battery\": given but battery_powered is false", path);
	if (!d->battery_powered && d->dbp)
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: key \"dbp\": Dead Battery Provision needs a battery "
				  "(battery_powered is false)",
				  path);
	if (bat) {
		char what[300];

		snprintf(what, sizeof(what), "%s: battery", path);
		rc = bn_battery_parse(bat, &d->battery, what, err);
		if (rc)
			return rc;
		d->has_battery = true;
	}
	phy = cJSON_GetObjectItemCaseSensitive(root, "phy");
	if (phy)
		return parse_phy(phy, &d->phy, path, err);
	return BN_OK;
}

int bn_dut_load(const char *path, const struct bn_limits *lim, struct bn_dut_decl *out, struct bn_err *err)
{
	return bn_dut_load_sha(path, lim, out, NULL, err);
}

int bn_dut_load_sha(const char *path, const struct bn_limits *lim, struct bn_dut_decl *out, char sha256[65], struct bn_err *err)
{
	struct bn_dut_decl d;
	cJSON *root = NULL;
	int rc;

	if (!path || !lim || !out)
		return bn_err_set(err, BN_ERR_ARG, "bn_dut_load: no path, limits or output");
	memset(&d, 0, sizeof(d));
	if (strlen(path) >= sizeof(d.path))
		return bn_err_set(err, BN_ERR_ARG, "%s: path too long", path);
	strcpy(d.path, path);
	bn_json_stem(path, d.name, sizeof(d.name));
	strcpy(d.firmware, BN_DUT_DEFAULT_FIRMWARE);
	d.secondary_detection = true;
	d.uvlo_v = BN_DUT_DEFAULT_UVLO_V;
	d.system_load_a = BN_DUT_DEFAULT_SYSTEM_LOAD_A;
	bn_dut_phy_defaults(lim, &d.phy);

	rc = bn_json_load_sha(path, &root, sha256, err);
	if (rc)
		return rc;
	rc = parse_decl(root, lim, &d, path, err);
	cJSON_Delete(root);
	if (rc)
		return rc;
	*out = d;
	return BN_OK;
}
