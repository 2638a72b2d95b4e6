/* What a sweep writes: the charger profile its points make (curve at the
 * charger's output, cable, shutdown it saw, rated when given) and the
 * profile's "measured" block (by, utc, complete and how it ended, the
 * bench and its instruments, every setting, the points with n and u,
 * knee, collapse, shutdown, cable). */
#ifndef BN_CURVE_SWEEP_OUT_H
#define BN_CURVE_SWEEP_OUT_H

#include <cjson/cJSON.h>
#include <stdbool.h>

#include "core/err.h"
#include "curve/sweep.h"
#include "sim/charger.h"

/* What the sweep's caller knows beyond the sweep. */
struct bn_sweep_meta {
	const char *name;          /* the profile's name */
	const char *bench_name;    /* bench.conf's bench (its lock name) */
	const char *conf_path;     /* NULL: none */
	bool simulated;
	const char *charger_swept; /* the sim charger swept (its path); NULL on a real bench */
	double to_asked_a;         /* --to as given */
	const char *to_capped_by;  /* "max_load in bench.conf", ...; NULL: not capped */
	double vchg_min_v;         /* the knee's level (VCHG min from the limits) */
	double vchg_max_v;         /* VCHG max, for a reader's plot */
	const char *limits_path;
	double cable_given_ohm;    /* --cable; NAN: not given */
	double rated_a;            /* --rated; 0: not given */
};

/* The knee of the profile the sweep writes (bn_sweep_charger, then
 * curve/measured.h's bn_profile_knee: one meaning with curve import's);
 * NAN when it has no curve. *at_least (may be NULL): VBUS was still at or
 * above VCHG min at the last current. */
double bn_sweep_knee(const struct bn_sweep_result *r, const struct bn_sweep_cfg *c,
		     const struct bn_sweep_meta *m, bool *at_least);

/* The cable: given, else from the two sense points when the sweep read
 * them, else unknown (0 in the profile, whose curve is then the
 * receptacle's). *from says which ("given", "two sense points", "unknown"). */
void bn_sweep_cable(const struct bn_sweep_result *r, const struct bn_sweep_meta *m,
		    double *ohm, double *u_ohm, const char **from);

/* The profile: at most BN_CHARGER_MAX_POINTS curve points chosen from
 * the swept ones (analyze.h's reduce), at the charger's output (the
 * receptacle's reading plus the cable's drop). BN_ERR_DATA when fewer
 * than 2 points were swept. */
int bn_sweep_charger(const struct bn_sweep_result *r, const struct bn_sweep_cfg *c,
		     const struct bn_sweep_meta *m, struct bn_charger *out, struct bn_err *err);

/* The measured block (caller frees); NULL when out of memory. */
cJSON *bn_sweep_measured(const struct bn_sweep_result *r, const struct bn_sweep_cfg *c,
			 const struct bn_sweep_meta *m);

/* PROFILE.json -> PROFILE.partial.json (any other name: NAME.partial.json). */
void bn_sweep_partial_path(const char *path, char *buf, size_t len);

/* Write the profile (atomic): bn_charger_write with the measured block.
 * A sweep with fewer than 2 points has no curve: the file then holds
 * the measured block alone (a partial profile, never loadable as a
 * charger). */
int bn_sweep_write(const char *path, const struct bn_charger *c, bool has_curve,
		   const cJSON *measured, struct bn_err *err);

#endif
