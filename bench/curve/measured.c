/* The shared keys of a profile's "measured" block: see measured.h. */
#include "curve/measured.h"

#include <math.h>
#include <stdlib.h>

cJSON *bn_measured_num(double x)
{
	return isfinite(x) ? cJSON_CreateNumber(x) : cJSON_CreateNull();
}

static void add_str(cJSON *o, const char *k, const char *s)
{
	if (s && s[0])
		cJSON_AddStringToObject(o, k, s);
	else
		cJSON_AddNullToObject(o, k);
}

double bn_profile_knee(const struct bn_charger *c, double vchg_min_v, bool *at_least)
{
	double k;

	if (at_least)
		*at_least = false;
	if (!c || c->n_points < 1 || !isfinite(vchg_min_v) ||
	    !(bn_charger_vbus(c, NULL, 0.0) >= vchg_min_v))
		return NAN;
	/* at the last point itself: past it the curve gives 0 V */
	if (at_least)
		*at_least = bn_charger_vbus(c, NULL, c->i_a[c->n_points - 1]) >= vchg_min_v;
	k = bn_charger_i_at_v(c, vchg_min_v);
	if (c->has_shutdown && c->shutdown_above_a < k)
		k = c->shutdown_above_a;
	return k;
}

cJSON *bn_measured_new(const struct bn_measured_head *h)
{
	cJSON *m = cJSON_CreateObject(), *b;

	if (!m)
		return NULL;
	cJSON_AddStringToObject(m, "by", h->by);
	add_str(m, "utc", h->utc);
	cJSON_AddBoolToObject(m, "complete", h->complete);
	b = cJSON_AddObjectToObject(m, "vchg");
	if (b) {
		cJSON_AddItemToObject(b, "min_v", bn_measured_num(h->vchg_min_v));
		cJSON_AddItemToObject(b, "max_v", bn_measured_num(h->vchg_max_v));
		add_str(b, "limits", h->limits_path);
	}
	add_str(m, "uncertainty", h->uncertainty);
	if (!b || !cJSON_AddArrayToObject(m, "points")) {
		cJSON_Delete(m);
		return NULL;
	}
	return m;
}

cJSON *bn_measured_point(cJSON *m, double a, double v, long n, double u_v)
{
	cJSON *arr = cJSON_GetObjectItemCaseSensitive(m, "points"), *x = cJSON_CreateObject();

	if (!arr || !x) {
		cJSON_Delete(x);
		return NULL;
	}
	cJSON_AddItemToObject(x, "a", bn_measured_num(a));
	cJSON_AddItemToObject(x, "v", bn_measured_num(v));
	cJSON_AddNumberToObject(x, "n", (double)n);
	cJSON_AddItemToObject(x, "u_v", bn_measured_num(u_v));
	cJSON_AddItemToArray(arr, x);
	return x;
}

cJSON *bn_measured_knee(cJSON *m, const struct bn_charger *c, double vchg_min_v)
{
	bool at_least;
	double a = bn_profile_knee(c, vchg_min_v, &at_least);
	cJSON *k = cJSON_CreateObject();

	if (!k)
		return NULL;
	cJSON_AddItemToObject(k, "a", bn_measured_num(a));
	cJSON_AddItemToObject(k, "v", bn_measured_num(isfinite(a) ? bn_charger_vbus(c, NULL, a) : NAN));
	cJSON_AddStringToObject(k, "limit", "VCHG min");
	cJSON_AddBoolToObject(k, "at_least", at_least);
	cJSON_AddStringToObject(k, "what", "the largest current the profile's curve delivers with the "
				"receptacle at or above VCHG min, no more than its shutdown lets through");
	cJSON_DeleteItemFromObjectCaseSensitive(m, "knee");
	cJSON_AddItemToObject(m, "knee", k);
	return k;
}

cJSON *bn_measured_collapse(cJSON *m, double at_a, double v, double after_s, double recover_s,
			    bool shutdown, const char *why)
{
	cJSON *arr = cJSON_GetObjectItemCaseSensitive(m, "collapses"), *x;

	if (!arr)
		arr = cJSON_AddArrayToObject(m, "collapses");
	x = cJSON_CreateObject();
	if (!arr || !x) {
		cJSON_Delete(x);
		return NULL;
	}
	cJSON_AddItemToObject(x, "at_a", bn_measured_num(at_a));
	cJSON_AddItemToObject(x, "v", bn_measured_num(v));
	cJSON_AddItemToObject(x, "after_s", bn_measured_num(after_s));
	cJSON_AddItemToObject(x, "recover_s", bn_measured_num(recover_s));
	cJSON_AddBoolToObject(x, "shutdown", shutdown);
	if (!shutdown)
		add_str(x, "why", why);
	cJSON_AddItemToArray(arr, x);
	return x;
}

void bn_measured_shutdown(cJSON *m, double above_a, double at_a, double after_s,
			  double recover_s)
{
	cJSON *x = cJSON_CreateObject();

	if (!x)
		return;
	cJSON_AddItemToObject(x, "above_a", bn_measured_num(above_a));
	cJSON_AddItemToObject(x, "at_a", bn_measured_num(at_a));
	cJSON_AddItemToObject(x, "after_s", bn_measured_num(after_s));
	cJSON_AddItemToObject(x, "recover_s", bn_measured_num(recover_s));
	cJSON_DeleteItemFromObjectCaseSensitive(m, "shutdown");
	cJSON_AddItemToObject(m, "shutdown", x);
}

double bn_measured_u_inst(const struct bn_meas *m, double x)
{
	double lsb;

	if (!m)
		return 0.0;
	lsb = bn_meas_lsb(m);
	return sqrt(m->offset * m->offset / 3.0 + m->gain * x * m->gain * x / 3.0 + lsb * lsb / 12.0);
}

const char *bn_measured_u_text(bool known, bool ideal)
{
	if (known && ideal)
		return "u_v: the scatter of the readings (type A); the instrument is stated ideal "
		       "(the simulated bench reads exactly)";
	return known ? "u_v: the scatter of the readings (type A) and the instrument's stated "
		       "accuracy (offset, gain, step)"
		     : "u_v: type A only, the scatter of the readings (no instrument's accuracy "
		       "is stated on this bench)";
}
