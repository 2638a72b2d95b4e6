/* What a device declares (profiles/duts/<name>.json), and its PHY's physical
 * values. The declaration is what the checks may rely on; the PHY values
 * are the sim's model of the device's silicon.
 * {
 *   "name": "phone-ref",
 *   "firmware": "reference",            // built-in name or path to a .so
 *   "battery_powered": true,
 *   "droop_threshold": "4.5V",          // VBUS the ramp keeps above (250 ms average)
 *   "dbp": true,                        // Dead Battery Provision supported
 *   "secondary_detection": true,
 *   "otg_rating": "500mA",              // VBUS it can source as A-device; 0 = none
 *   "system_load": "150mA",             // at the battery voltage... taken as VBUS-side
 *   "uvlo": "3.6V",                     // charger IC input undervoltage lockout (falling)
 *   "uvlo_restart": "50ms",             // charger IC restart after UVLO
 *   "uvlo_hysteresis": "0.2V",          // releases above uvlo + this (default 0)
 *   "uvlo_deglitch": "1ms",             // trips when below uvlo this long (default 0)
 *   "vbus_cap": "10uF",                 // capacitance at the VBUS input (default 0)
 *   "vbus_bleed": "100kohm",            // the input's discharge path with vbus_cap
 *                                       // (default 100 kohm; unused without it)
 *   "data_contact_delay": "5ms",        // default for plug events
 *   "battery": { ... },                 // see battery.h
 *   "phy": {                            // optional: defaults are typ values from the limits
 *     "idp_src": "10uA", "vdp_src": "0.6V", "vdm_src": "0.6V", "src_r": "100ohm",
 *     "idm_sink": "100uA", "idp_sink": "100uA", "rdm_dwn": "19.5kohm",
 *     "rdp_up": "1.5kohm", "pullup_v": "3.3V",
 *     "id_pullup": "100kohm", "id_pullup_v": "3.3V",
 *     "vdat_ref": "0.325V", "vlgc": "1.4V", "sess_vld": "4.0V", "otg_v": "5.0V", "otg_r": "0.2ohm",
 *     "line_cap": "50pF"                // on each of D+ and D- (default 0)
 *   }
 * } */
#ifndef BN_SIM_DUT_H
#define BN_SIM_DUT_H

#include <stdbool.h>

#include "core/err.h"
#include "core/limits.h"
#include "core/time.h"
#include "sim/battery.h"

struct bn_dut_phy {
	double idp_src_a, vdp_src_v, vdm_src_v, src_r_ohm;
	double idm_sink_a, idp_sink_a, rdm_dwn_ohm;
	double rdp_up_ohm, pullup_v;
	double id_pullup_ohm, id_pullup_v;
	double vdat_ref_v, vlgc_v, sess_vld_v;
	double otg_v, otg_r_ohm;
	double src_compliance_v; /* IDP_SRC compliance, default 3.3 V */
	double line_cap_f;       /* the PHY's capacitance on each of D+ and D-, default 0 */
};

struct bn_dut_decl {
	char name[64];
	char path[256];
	char firmware[256];
	bool battery_powered;
	double droop_threshold_v;
	bool dbp;
	bool secondary_detection;
	double otg_rating_a;
	double system_load_a;
	double uvlo_v;
	bn_time_us uvlo_restart_us;
	double uvlo_hyst_v;
	bn_time_us uvlo_deglitch_us;
	double vbus_cap_f;
	double vbus_bleed_ohm;
	bn_time_us data_contact_delay_us;
	bool has_battery;
	struct bn_battery_profile battery;
	struct bn_dut_phy phy;
};

int bn_dut_load(const char *path, const struct bn_limits *lim,
		struct bn_dut_decl *out, struct bn_err *err);
/* The same, with the SHA-256 (hex) of the bytes parsed (NULL: none): the
 * file is read once for both the profile and its record. */
int bn_dut_load_sha(const char *path, const struct bn_limits *lim, struct bn_dut_decl *out, char sha256[65], struct bn_err *err);
/* The PHY defaults from the limits (typ values). */
void bn_dut_phy_defaults(const struct bn_limits *lim, struct bn_dut_phy *phy);

#endif
