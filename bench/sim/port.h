/* A port profile (profiles/ports/<name>.json): the data-line network and ID of
 * what the device is plugged into, and what a correct device concludes.
 * Pure data: the world turns it into network elements; nothing here
 * branches on the port's name.
 *
 * {
 *   "name": "cdp", "description": "...",
 *   "expect": "cdp",                 // the detection result a correct device reaches (port enum)
 *   "vbus": "external",              // "external": a charger supplies VBUS; "none": device must source (OTG)
 *   "enumeration": "host",           // "host": the port's host enumerates the device;
 *                                    // "device": the device is A-device and enumerates a peripheral;
 *                                    // "none": nobody enumerates
 *   "dp_pulldown": "15kohm",         // optional, each: absent = not fitted
 *   "dm_pulldown": "15kohm",
 *   "dp_dm_short": "200ohm",
 *   "leakage": "1Mohm",              // D+ and D- to ground; default RDAT_LKG min from the limits
 *   "id_leakage": "10Mohm",          // ID to ground; RDAT_LKG is a data-line figure, and
 *                                    // 300 kohm on ID would read RID_A as RID_B through a
 *                                    // 100 kohm pull-up: default BN_PORT_ID_LEAKAGE_OHM
 *   "capacitance": "1nF",            // informational (the part's datasheet figure)
 *   "line_cap": "150pF",             // simulated: on each of D+ and D- while the data lines
 *                                    // touch, the port's and its cable's; default 0
 *   "id": "124kohm",                 // ID to ground; absent = floating
 *   "dm_idle_source": { "v": "0.6V", "r": "1kohm" },   // ACA-Dock: VDM_SRC on D- while idle
 *   "leak_source": { "v": "2V", "r": "150kohm" },     // a faulty port: each of D+ and D-
 *                                    // leaks to v through r while the lines touch
 *                                    // (besides "leakage" to ground)
 *   "vdm_responder": {               // CDP: drives D- when D+ sits between two levels
 *       "v": "0.6V", "r": "200ohm", "i_limit": "250uA",
 *       "dp_low": "0.4V", "dp_high": "0.8V",        // default: VDAT_REF max, VLGC min
 *       "on_delay": "20ms", "off_delay": "10ms",    // default: TVDMSRC_EN max, TVDMSRC_DIS max / 2
 *       "reenable_delay": "200ms" }                  // after a connect: TCP_VDM_EN max
 *   "peripheral": "dock"             // what the device enumerates when it is A-device
 * } */
#ifndef BN_SIM_PORT_H
#define BN_SIM_PORT_H

#include <stdbool.h>

#include "core/err.h"
#include "core/limits.h"
#include "core/port_type.h"
#include "core/time.h"

#define BN_PORT_ID_LEAKAGE_OHM 10e6

enum bn_port_vbus { BN_PORT_VBUS_EXTERNAL, BN_PORT_VBUS_NONE };
enum bn_port_enum { BN_PORT_ENUM_NONE, BN_PORT_ENUM_HOST, BN_PORT_ENUM_DEVICE };

struct bn_port_profile {
	char name[48];
	char path[256];
	enum bn_port_type expect;
	enum bn_port_vbus vbus;
	enum bn_port_enum enumeration;
	/* 0 = not fitted */
	double dp_pulldown_ohm, dm_pulldown_ohm, dp_dm_short_ohm;
	double leakage_ohm;
	double id_leakage_ohm;   /* 0: use leakage_ohm */
	double capacitance_f;
	double line_cap_f;       /* 0 = none */
	double id_ohm;           /* 0 = floating */
	bool has_dm_idle_source;
	double dm_idle_v, dm_idle_r_ohm;
	bool has_leak_source;    /* a leakage to a voltage on each of D+ and D- */
	double leak_v, leak_r_ohm;
	bool has_vdm_responder;
	double resp_v, resp_r_ohm, resp_i_limit_a;
	double resp_dp_low_v, resp_dp_high_v;
	bn_time_us resp_on_delay_us, resp_off_delay_us, resp_reenable_us;
	char peripheral[32];
};

/* Load and validate; defaults come from lim. Errors name the file and key. */
int bn_port_load(const char *path, const struct bn_limits *lim,
		 struct bn_port_profile *out, struct bn_err *err);
/* The same, with the SHA-256 (hex) of the bytes parsed (NULL: none): the
 * file is read once for both the profile and its record. */
int bn_port_load_sha(const char *path, const struct bn_limits *lim, struct bn_port_profile *out, char sha256[65], struct bn_err *err);

#endif
