/* bench.conf: which backends and files a bench uses. Lines "key = value",
 * '#' comments. Keys:
 *   backend = sim          the bench backend (sim is the only one so far)
 *   limits  = FILE         default limits file (a scenario's own wins)
 *   datadir = DIR          where profiles/ live (default: the conf's directory)
 *   out     = DIR          where reports go (default: reports)
 * Errors read "FILE:LINE: error: ..." and name what was expected. */
#ifndef BN_CORE_CONF_H
#define BN_CORE_CONF_H

#include "core/err.h"

struct bn_conf {
	char path[512];
	char backend[32];
	char limits[512];
	char datadir[512];
	char out[512];
};

void bn_conf_defaults(struct bn_conf *c);
int bn_conf_load(const char *path, struct bn_conf *c, struct bn_err *err);

#endif
