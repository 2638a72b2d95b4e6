/* The "measured" block of a charger profile, as curve sweep and curve
 * import both write it: the keys they share are built here, so a reader
 * (report/curve_html.c, a person) reads one shape whoever measured.
 *
 *   "by":          "sweep" | "import"
 *   "utc":         when it was measured (ISO 8601, UTC)
 *   "complete":    true when the measurement ran to its end
 *   "vchg":        {"min_v", "max_v", "limits"}: the VCHG band from the
 *                  limits file named (the knee's level, a reader's plot)
 *   "uncertainty": what each point's u_v holds (type A only, or with the
 *                  instrument's stated accuracy)
 *   "settings":    how it was measured (the writer's own keys)
 *   "points":      [{"a", "v", "n", "u_v", ...}]: current (A), VBUS at the
 *                  receptacle (V), readings averaged, standard uncertainty
 *                  of v (V); a writer may add keys of its own
 *   "knee":        {"a", "v", "limit": "VCHG min", "at_least", "what"}
 *                  (bn_profile_knee; import adds "between_a")
 *   "collapses":   [{"at_a", "v", "after_s", "recover_s", "shutdown", "why"}]:
 *                  each time VBUS left valid under load (null: not seen)
 *   "shutdown":    {"above_a", "at_a", "after_s", "recover_s"}: the
 *                  shutdown rule it saw; absent when none */
#ifndef BN_CURVE_MEASURED_H
#define BN_CURVE_MEASURED_H

#include <cjson/cJSON.h>
#include <stdbool.h>

#include "core/meas.h"
#include "sim/charger.h"

/* The knee of a charger profile (the one meaning sweep and import share):
 * the largest current the profile's curve delivers with the receptacle
 * (the curve less its cable's drop, as bn_charger_vbus) at or above
 * vchg_min_v, capped at the current its shutdown rule trips above (a
 * current it does not hold). *at_least (may be NULL): the curve's last
 * point is still at or above vchg_min_v, so the knee lies at or beyond
 * the largest current measured. NAN when the profile has no points or
 * is below vchg_min_v already at 0 A. */
double bn_profile_knee(const struct bn_charger *c, double vchg_min_v, bool *at_least);

struct bn_measured_head {
	const char *by;          /* "sweep", "import" */
	const char *utc;
	bool complete;
	double vchg_min_v, vchg_max_v;
	const char *limits_path;
	const char *uncertainty; /* what u_v holds (bn_measured_u_text) */
};

/* A new block with the head's keys and an empty "points" array; NULL
 * when out of memory. */
cJSON *bn_measured_new(const struct bn_measured_head *h);

/* Append a point to m's "points"; the point's object (for the writer's
 * own keys), NULL when out of memory. Non-finite numbers are null. */
cJSON *bn_measured_point(cJSON *m, double a, double v, long n, double u_v);

/* Set m's "knee" from the profile (bn_profile_knee at vchg_min_v); the
 * knee's object, NULL when out of memory. */
cJSON *bn_measured_knee(cJSON *m, const struct bn_charger *c, double vchg_min_v);

/* Append a collapse to m's "collapses" (why: NULL for a shutdown);
 * its object, NULL when out of memory. */
cJSON *bn_measured_collapse(cJSON *m, double at_a, double v, double after_s, double recover_s,
			    bool shutdown, const char *why);

/* Set m's "shutdown". */
void bn_measured_shutdown(cJSON *m, double above_a, double at_a, double after_s,
			  double recover_s);

/* The standard uncertainty the instrument's stated accuracy adds to a
 * reading x (offset and gain as rectangular bounds, the step as uniform
 * quantisation); 0 for NULL (an ideal meter). */
double bn_measured_u_inst(const struct bn_meas *m, double x);

/* The "uncertainty" statement: the readings' scatter (type A) alone, or
 * with the instrument's accuracy (known: stated somewhere; ideal: stated
 * exact, the simulated bench). */
const char *bn_measured_u_text(bool known, bool ideal);

/* A number as JSON: null when not finite. */
cJSON *bn_measured_num(double x);

#endif
