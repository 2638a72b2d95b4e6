/* A host profile (profiles/hosts/<name>.json): how the sim host behind an SDP,
 * CDP or ACA-C port treats a device that connects.
 * {
 *   "name": "root-500ma",
 *   "budget": "500mA",         // what it may grant: picks the device's highest
 *                              // configuration whose bMaxPower fits; "0mA": none
 *   "enumerates": true,        // false: never enumerates (bus stays idle)
 *   "enum_delay": "100ms",     // from D+ pull-up to the configuration choice
 *   "idle_suspend": "1s"       // a port that sees no enumeration suspends after this;
 *                              // default TSVLD_CON_PWD max from the limits
 * } */
#ifndef BN_SIM_HOST_H
#define BN_SIM_HOST_H

#include <stdbool.h>

#include "core/err.h"
#include "core/limits.h"
#include "core/time.h"

struct bn_host_profile {
	char name[48];
	char path[256];
	double budget_a;
	bool enumerates;
	bn_time_us enum_delay_us;
	bn_time_us idle_suspend_us;
};

int bn_host_load(const char *path, const struct bn_limits *lim,
		 struct bn_host_profile *out, struct bn_err *err);
/* The same, with the SHA-256 (hex) of the bytes parsed (NULL: none): the
 * file is read once for both the profile and its record. */
int bn_host_load_sha(const char *path, const struct bn_limits *lim, struct bn_host_profile *out, char sha256[65], struct bn_err *err);
/* The default when a scenario names none: a 500 mA root port. */
void bn_host_default(const struct bn_limits *lim, struct bn_host_profile *out);

#endif
