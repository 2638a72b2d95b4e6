/* BC-1.2 limits as data (profiles/limits/bc12.json). The only way code
 * reads a BC-1.2 number. Every value is stored in SI base units.
 *
 * File format:
 *   { "schema": "bcbench-limits/1",
 *     "sources": { "short-name": "what it is", ... },
 *     "limits": [ { "name": "VDP_SRC", "min": 0.5, "typ": 0.6, "max": 0.7,
 *                   "unit": "V", "meaning": "...", "source": "tps2549",
 *                   "spec": "Table 5-x" }, ... ] }
 * min/typ/max are optional each, but at least one of min/max is present;
 * a missing one is NAN. The loader rejects: unparsable JSON (file:line:col),
 * a limit without name or unit, an unknown unit, min > max, typ outside
 * [min, max], a duplicate name, a source not listed in "sources", and a
 * file that lacks any of the names bcbench needs (bn_limits_required). */
#ifndef BN_CORE_LIMITS_H
#define BN_CORE_LIMITS_H

#include <stddef.h>

#include "core/err.h"
#include "core/units.h"

struct bn_limit {
	char name[40];
	double min, typ, max; /* SI units; NAN when absent */
	enum bn_dim dim;
	char unit[12];   /* as written in the file */
	char *meaning;
	char *source;
	char *spec;      /* may be NULL */
};

struct bn_limits {
	struct bn_limit *v;
	size_t n;
	char *path;
	char sha256[65]; /* hex digest of the file's bytes */
};

int bn_limits_load(const char *path, struct bn_limits *out, struct bn_err *err);
void bn_limits_free(struct bn_limits *lim);

/* NULL when the name is absent. */
const struct bn_limit *bn_limits_find(const struct bn_limits *lim, const char *name);

/* For names in bn_limits_required() these never fail after a successful
 * load. typ falls back to the midpoint of min and max, or to whichever is
 * present. A missing bound returns NAN. */
double bn_limits_min(const struct bn_limits *lim, const char *name);
double bn_limits_max(const struct bn_limits *lim, const char *name);
double bn_limits_typ(const struct bn_limits *lim, const char *name);

/* NULL-terminated list of names every limits file must define. */
const char *const *bn_limits_required(void);

#endif
