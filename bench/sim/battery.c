/* A battery: OCV curve, thresholds, charge integration. See battery.h. */
#include "sim/battery.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/units.h"
#include "core/json.h"

/* Device-design default, not a BC-1.2 number: VBUS power to battery power. */
#define BN_BATTERY_DEFAULT_EFFICIENCY 0.9
/* Integration sub-step: the OCV changes little in a second at any sane
 * charge rate, so a 45-minute step costs 2700 interpolations. */
#define BN_BATTERY_MAX_STEP_S 1.0
/* ...and at most this many sub-steps however long the step. */
#define BN_BATTERY_MAX_STEPS 10000.0
/* A state of charge this close to 1 counts as full. */
#define BN_BATTERY_FULL_EPS 1e-9

static double ocv_at(const struct bn_battery_profile *p, double soc)
{
	int n = p->n_points;

	if (n <= 0)
		return 0.0;
	if (soc <= p->soc[0])
		return p->ocv_v[0];
	for (int k = 1; k < n; k++) {
		if (soc <= p->soc[k]) {
			double f = (soc - p->soc[k - 1]) / (p->soc[k] - p->soc[k - 1]);

			return p->ocv_v[k - 1] + f * (p->ocv_v[k] - p->ocv_v[k - 1]);
		}
	}
	return p->ocv_v[n - 1];
}

/* Inverse of ocv_at (the curve is strictly ascending in both). Clamped. */
static double soc_at(const struct bn_battery_profile *p, double v)
{
	int n = p->n_points;

	if (n <= 0)
		return 0.0;
	if (v <= p->ocv_v[0])
		return p->soc[0];
	for (int k = 1; k < n; k++) {
		if (v <= p->ocv_v[k]) {
			double f = (v - p->ocv_v[k - 1]) / (p->ocv_v[k] - p->ocv_v[k - 1]);

			return p->soc[k - 1] + f * (p->soc[k] - p->soc[k - 1]);
		}
	}
	return p->soc[n - 1];
}

static double clamp01(double x)
{
	return x < 0.0 ? 0.0 : x > 1.0 ? 1.0 : x;
}

void bn_battery_init(struct bn_battery *b, const struct bn_battery_profile *p, double soc)
{
	b->p = *p;
	b->soc = clamp01(soc);
}

void bn_battery_set_voltage(struct bn_battery *b, double v)
{
	b->soc = clamp01(soc_at(&b->p, v));
}

double bn_battery_voltage(const struct bn_battery *b)
{
	return ocv_at(&b->p, b->soc);
}

bool bn_battery_is_dead(const struct bn_battery *b)
{
	return bn_battery_voltage(b) < b->p.dead_v;
}

bool bn_battery_is_weak(const struct bn_battery *b)
{
	return bn_battery_voltage(b) < b->p.weak_v;
}

bool bn_battery_is_full(const struct bn_battery *b)
{
	return b->soc >= 1.0 - BN_BATTERY_FULL_EPS;
}

/* Battery current now for the given power flows (A, > 0 charging). */
static double battery_current(const struct bn_battery *b, double p_in_w, double p_sys_w)
{
	double v = bn_battery_voltage(b);
	double i;

	if (!(v > 0.0))
		return 0.0;
	i = (p_in_w * b->p.efficiency - p_sys_w) / v;
	if (i > b->p.max_charge_a)
		i = b->p.max_charge_a;
	if (i > 0.0 && bn_battery_is_full(b))
		i = 0.0; /* the charger IC terminates */
	if (i < 0.0 && b->soc <= 0.0)
		i = 0.0; /* empty: nothing left to give */
	return i;
}

double bn_battery_integrate(struct bn_battery *b, double p_in_w, double p_sys_w, double dt_s)
{
	double soc0 = b->soc, left = dt_s;
	double coulomb_per_soc = b->p.capacity_ah * 3600.0;
	double step = dt_s / BN_BATTERY_MAX_STEPS;

	if (!(dt_s > 0.0) || !(coulomb_per_soc > 0.0))
		return battery_current(b, p_in_w, p_sys_w);
	if (step < BN_BATTERY_MAX_STEP_S)
		step = BN_BATTERY_MAX_STEP_S;
	while (left > 0.0) {
		double h = left < step ? left : step;
		double i = battery_current(b, p_in_w, p_sys_w);

		if (i == 0.0)
			break; /* full or empty: nothing changes any more */
		b->soc = clamp01(b->soc + i * h / coulomb_per_soc);
		left -= h;
	}
	return (b->soc - soc0) * coulomb_per_soc / dt_s;
}

double bn_battery_time_to_voltage(const struct bn_battery *b, double i_a, double v)
{
	const struct bn_battery_profile *p = &b->p;
	double v_now = bn_battery_voltage(b);
	double soc_t;

	if (p->n_points < 2 || !(p->capacity_ah > 0.0))
		return -1.0;
	if (v == v_now)
		return 0.0;
	if (v < p->ocv_v[0] || v > p->ocv_v[p->n_points - 1])
		return -1.0;
	if ((v > v_now && !(i_a > 0.0)) || (v < v_now && !(i_a < 0.0)))
		return -1.0;
	soc_t = soc_at(p, v);
	return (soc_t - b->soc) * p->capacity_ah * 3600.0 / i_a;
}

/* ---- parser ---- */

static const char *const battery_keys[] = {
	"capacity", "ocv", "dead", "weak", "max_charge", "efficiency", NULL
};

static int parse_ocv(const cJSON *obj, struct bn_battery_profile *p, const char *what,
		     struct bn_err *err)
{
	const cJSON *ocv = cJSON_GetObjectItemCaseSensitive(obj, "ocv");
	const cJSON *pt;
	int n = 0;

	if (!ocv)
		return bn_err_set(err, BN_ERR_DATA, "%s: missing key \"ocv\"", what);
	if (!cJSON_IsArray(ocv))
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: key \"ocv\": expected an array of [soc, V] points", what);
	cJSON_ArrayForEach(pt, ocv) {
		const cJSON *js, *jv;

		if (n >= BN_BATTERY_MAX_POINTS)
			return bn_err_set(err, BN_ERR_DATA, "%s: key \"ocv\": more than %d points",
					  what, BN_BATTERY_MAX_POINTS);
		js = cJSON_GetArrayItem(pt, 0);
		jv = cJSON_GetArrayItem(pt, 1);
		if (!cJSON_IsArray(pt) || cJSON_GetArraySize(pt) != 2 || !cJSON_IsNumber(js) ||
		    !cJSON_IsNumber(jv))
			return bn_err_set(err, BN_ERR_DATA,
					  "%s: key \"ocv\": point %d: expected [soc, V] numbers",
					  what, n);
		p->soc[n] = js->valuedouble;
		p->ocv_v[n] = jv->valuedouble;
		if (!(p->soc[n] >= 0.0 && p->soc[n] <= 1.0))
			return bn_err_set(err, BN_ERR_DATA,
					  "%s: key \"ocv\": point %d: soc %g outside 0..1", what, n,
					  p->soc[n]);
		if (!(p->ocv_v[n] > 0.0) || !isfinite(p->ocv_v[n]))
			return bn_err_set(err, BN_ERR_DATA,
					  "%s: key \"ocv\": point %d: voltage %g must be positive",
					  what, n, p->ocv_v[n]);
		if (n > 0 && !(p->soc[n] > p->soc[n - 1]))
			return bn_err_set(err, BN_ERR_DATA,
					  "%s: key \"ocv\": point %d: soc not ascending", what, n);
		if (n > 0 && !(p->ocv_v[n] > p->ocv_v[n - 1]))
			return bn_err_set(err, BN_ERR_DATA,
					  "%s: key \"ocv\": point %d: voltage not ascending", what, n);
		n++;
	}
	if (n < 2)
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: key \"ocv\": needs at least 2 points, has %d", what, n);
	if (p->soc[0] != 0.0 || p->soc[n - 1] != 1.0)
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: key \"ocv\": the curve must run from soc 0 to soc 1", what);
	p->n_points = n;
	return BN_OK;
}

int bn_battery_parse(const cJSON *obj, struct bn_battery_profile *out,
		     const char *what, struct bn_err *err)
{
	struct bn_battery_profile p;
	const cJSON *it;
	int rc;

	if (!what)
		what = "battery";
	if (!cJSON_IsObject(obj))
		return bn_err_set(err, BN_ERR_DATA, "%s: expected an object", what);
	cJSON_ArrayForEach(it, obj) {
		bool known = false;

		for (int k = 0; battery_keys[k]; k++)
			if (it->string && !strcmp(it->string, battery_keys[k]))
				known = true;
		if (!known)
			return bn_err_set(err, BN_ERR_DATA, "%s: unknown key \"%s\"", what,
					  it->string ? it->string : "?");
	}
	memset(&p, 0, sizeof(p));
	p.efficiency = BN_BATTERY_DEFAULT_EFFICIENCY;
	rc = bn_json_quantity(obj, "capacity", true, BN_DIM_AH, 1.0, &p.capacity_ah, what, err);
	if (!rc)
		rc = parse_ocv(obj, &p, what, err);
	if (!rc)
		rc = bn_json_quantity(obj, "dead", true, BN_DIM_V, 1.0, &p.dead_v, what, err);
	if (!rc)
		rc = bn_json_quantity(obj, "weak", true, BN_DIM_V, 1.0, &p.weak_v, what, err);
	if (!rc)
		rc = bn_json_quantity(obj, "max_charge", true, BN_DIM_A, 1.0, &p.max_charge_a,
				      what, err);
	if (!rc) {
		char why[200];

		/* a charge current past what USB carries was written in mA */
		if (bn_plausible_max(p.max_charge_a, BN_DIM_A, BN_PLAUSIBLE_USB_A,
				     cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(obj, "max_charge")),
				     why, sizeof(why)) != BN_OK)
			rc = bn_err_set(err, BN_ERR_DATA, "%s: key \"max_charge\": %s", what, why);
	}
	if (!rc)
		rc = bn_json_num(obj, "efficiency", false, &p.efficiency, what, err);
	if (rc)
		return rc;
	if (!(p.capacity_ah > 0.0))
		return bn_err_set(err, BN_ERR_DATA, "%s: key \"capacity\": must be positive", what);
	if (!(p.dead_v > 0.0))
		return bn_err_set(err, BN_ERR_DATA, "%s: key \"dead\": must be positive", what);
	if (!(p.weak_v >= p.dead_v))
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: key \"weak\": %g V is below \"dead\" (%g V)", what,
				  p.weak_v, p.dead_v);
	if (!(p.max_charge_a > 0.0))
		return bn_err_set(err, BN_ERR_DATA, "%s: key \"max_charge\": must be positive",
				  what);
	if (!(p.efficiency > 0.0 && p.efficiency <= 1.0))
		return bn_err_set(err, BN_ERR_DATA, "%s: key \"efficiency\": %g outside (0, 1]",
				  what, p.efficiency);
	*out = p;
	return BN_OK;
}
