/* The charger behind a port: V-I curve, cable drop, shutdown rule, and the
 * profile loader (profiles/chargers/<name>.json). See charger.h. */
#include "sim/charger.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json.h"

double bn_charger_curve_v(const double *i_pts, const double *v_pts, int n, double i_a)
{
	if (n <= 0)
		return 0.0;
	if (i_a <= i_pts[0])
		return v_pts[0];
	if (i_a > i_pts[n - 1])
		return 0.0;
	for (int k = 1; k < n; k++) {
		if (i_a <= i_pts[k]) {
			double i0 = i_pts[k - 1], i1 = i_pts[k];
			double f = (i_a - i0) / (i1 - i0);

			return v_pts[k - 1] + f * (v_pts[k] - v_pts[k - 1]);
		}
	}
	return v_pts[n - 1];
}

double bn_charger_v_out(const struct bn_charger *c, double i_a)
{
	return bn_charger_curve_v(c->i_a, c->v_v, c->n_points, i_a);
}

double bn_charger_vbus(const struct bn_charger *c, const struct bn_charger_state *s,
		       double i_a)
{
	double v;

	if (s && s->off)
		return 0.0;
	if (c->n_points <= 0 || i_a > c->i_a[c->n_points - 1])
		return 0.0;
	if (i_a < 0.0)
		i_a = 0.0; /* the charger cannot sink: treat reverse draw as none */
	v = bn_charger_v_out(c, i_a) - i_a * c->cable_ohm;
	return v > 0.0 ? v : 0.0;
}

/* Receptacle voltage at i_a ignoring the clamp at 0 (linear per segment). */
static double rx_v(const struct bn_charger *c, double i_a)
{
	return bn_charger_v_out(c, i_a) - i_a * c->cable_ohm;
}

/* Largest i in [lo, hi] with f(i) >= v_min, f linear on the interval
 * (f(lo)=flo, f(hi)=fhi). Returns -1 if none. */
static double seg_max_i(double lo, double hi, double flo, double fhi, double v_min)
{
	if (fhi >= v_min)
		return hi;
	if (flo < v_min)
		return -1.0;
	/* flo >= v_min > fhi: the crossing lies inside */
	return lo + (flo - v_min) / (flo - fhi) * (hi - lo);
}

double bn_charger_i_at_v(const struct bn_charger *c, double v_min)
{
	int n = c->n_points;
	double best;

	if (n <= 0)
		return 0.0;
	/* Scan segments from the highest current down: the first segment that
	 * holds a point at or above v_min gives the largest such current. */
	for (int k = n - 1; k >= 1; k--) {
		double lo = c->i_a[k - 1], hi = c->i_a[k];

		if (hi <= 0.0)
			break;
		if (lo < 0.0)
			lo = 0.0;
		best = seg_max_i(lo, hi, rx_v(c, lo), rx_v(c, hi), v_min);
		if (best >= 0.0)
			return best;
	}
	/* Below the first point the output is flat at v[0]; only the cable
	 * drop varies. */
	if (c->i_a[0] > 0.0) {
		best = seg_max_i(0.0, c->i_a[0], c->v_v[0], rx_v(c, c->i_a[0]), v_min);
		if (best >= 0.0)
			return best;
	}
	return 0.0;
}

/* The receptacle characteristic's breakpoints (current ascending,
 * voltage strictly falling by at least BN_CHARGER_MIN_S_OHM per ampere):
 * (0, open-circuit voltage), the end of a flat start when the curve's
 * first point is above 0 A, then every later point. Returns the count. */
static int rx_points(const struct bn_charger *c, double *i_a, double *v_v)
{
	int n = 0;

	if (c->n_points <= 0)
		return 0;
	i_a[n] = 0.0;
	v_v[n++] = c->v_v[0];
	for (int k = c->i_a[0] > 0.0 ? 0 : 1; k < c->n_points; k++) {
		double v = rx_v(c, c->i_a[k]);
		double v_max = v_v[n - 1] - BN_CHARGER_MIN_S_OHM * (c->i_a[k] - i_a[n - 1]);

		i_a[n] = c->i_a[k];
		v_v[n++] = v < v_max ? v : v_max;
	}
	return n;
}

void bn_charger_piece_at(const struct bn_charger *c, double v, int dir,
			 struct bn_charger_piece *p)
{
	double i_a[BN_CHARGER_MAX_POINTS + 1], v_v[BN_CHARGER_MAX_POINTS + 1];
	int n = rx_points(c, i_a, v_v);

	*p = (struct bn_charger_piece){ .v_lo = -INFINITY, .v_hi = INFINITY, .s_ohm = INFINITY,
					 .r_out_ohm = INFINITY };
	if (n == 0)
		return;
	/* above the open-circuit voltage: nothing */
	if (v > v_v[0] || (v == v_v[0] && dir >= 0)) {
		p->v_lo = v_v[0];
		return;
	}
	for (int j = 1; j < n; j++) {
		if (v > v_v[j] || (v == v_v[j] && dir >= 0)) {
			double s = (v_v[j - 1] - v_v[j]) / (i_a[j] - i_a[j - 1]);

			p->v_lo = v_v[j];
			p->v_hi = v_v[j - 1];
			p->s_ohm = s;
			p->g_v = v_v[j - 1] + s * i_a[j - 1];
			p->r_out_ohm = s > c->cable_ohm ? s - c->cable_ohm : 0.0;
			return;
		}
	}
	/* below the last point: its current, the charger's limit */
	p->v_hi = v_v[n - 1];
	p->i_a = i_a[n - 1];
}

double bn_charger_i_src(const struct bn_charger *c, double v)
{
	struct bn_charger_piece p;

	bn_charger_piece_at(c, v, 1, &p);
	if (isinf(p.s_ohm))
		return p.i_a;
	return (p.g_v - v) / p.s_ohm;
}

static int check_falling(const struct bn_charger *c, const double *i_a, const double *v_v, int n,
			 const char *which, struct bn_err *err)
{
	for (int k = 1; k < n; k++)
		if (bn_charger_curve_v(i_a, v_v, n, i_a[k]) - i_a[k] * c->cable_ohm >
		    bn_charger_curve_v(i_a, v_v, n, i_a[k - 1]) - i_a[k - 1] * c->cable_ohm)
			return bn_err_set(err, BN_ERR_DATA,
					  "charger %s%s: the receptacle voltage rises from [%g A, %g V] to "
					  "[%g A, %g V] (the curve less the cable's %g ohm): a VBUS "
					  "capacitance needs a curve that does not rise",
					  c->name, which, i_a[k - 1], v_v[k - 1], i_a[k], v_v[k],
					  c->cable_ohm);
	return BN_OK;
}

int bn_charger_check_falling(const struct bn_charger *c, struct bn_err *err)
{
	int rc = check_falling(c, c->i_a, c->v_v, c->n_points, "", err);

	for (int k = 0; !rc && k < c->n_phases; k++) {
		char which[32];

		snprintf(which, sizeof(which), " (schedule[%d])", k);
		rc = check_falling(c, c->phases[k].i_a, c->phases[k].v_v, c->phases[k].n_points, which,
				   err);
	}
	return rc;
}

void bn_charger_state_init(struct bn_charger_state *s)
{
	s->off = false;
	s->off_until_us = BN_TIME_NEVER;
	s->over_since_us = BN_TIME_NEVER;
	s->on_since_us = BN_TIME_NEVER;
	s->offset_t_us = 0;
	s->offset_v = 0.0;
	s->offset_tau_s = 0.0;
	s->i_last_a = 0.0;
}

/* The draw i_a is taken as the current at 'now', held since the previous
 * call while the over-threshold timer runs. The event loop calls this at
 * every change of the draw and at bn_charger_next_event(). */
bool bn_charger_update(const struct bn_charger *c, struct bn_charger_state *s,
		       bn_time_us now, double i_a)
{
	bool changed = false;

	if (s->off) {
		if (now < s->off_until_us)
			return false;
		s->off = false;
		s->off_until_us = BN_TIME_NEVER;
		s->over_since_us = BN_TIME_NEVER;
		changed = true;
		/* fall through: time the new draw from the recovery */
	}
	if (!c->has_shutdown)
		return changed;
	if (!(i_a > c->shutdown_above_a)) {
		s->over_since_us = BN_TIME_NEVER;
		return changed;
	}
	if (s->over_since_us == BN_TIME_NEVER) {
		s->over_since_us = now;
		if (c->shutdown_after_us > 0)
			return changed;
	}
	if (now - s->over_since_us >= c->shutdown_after_us) {
		bn_time_us fired = s->over_since_us + c->shutdown_after_us;

		s->off = true;
		s->off_until_us = fired + c->recover_us;
		s->over_since_us = BN_TIME_NEVER;
		changed = true;
	}
	return changed;
}

bn_time_us bn_charger_next_event(const struct bn_charger *c,
				 const struct bn_charger_state *s, double i_a)
{
	if (s->off)
		return s->off_until_us;
	if (!c->has_shutdown || !(i_a > c->shutdown_above_a))
		return BN_TIME_NEVER;
	if (s->over_since_us == BN_TIME_NEVER)
		return BN_TIME_NEVER; /* timer starts at the next update */
	return s->over_since_us + c->shutdown_after_us;
}

/* ---- loader ---- */

static const char *const charger_keys[] = {
	"schema", "name", "description", "compliant", "breaks", "measured", "curve", "cable",
	"shutdown", "rated", "output_cap", "transient", "power_up", "schedule", "vbus_t", NULL
};
static const char *const shutdown_keys[] = { "above", "after", "recover", NULL };

/* One coordinate of a curve point: a number in A or V, or a string with
 * its unit ("800mA", "5.1V"); a value no USB charger gives is refused
 * with what was likely meant. */
static int point_value(const cJSON *it, enum bn_dim dim, double max_si, int k, const char *coord,
		       double *out, const char *what, struct bn_err *err)
{
	char why[200];

	if (cJSON_IsNumber(it)) {
		*out = it->valuedouble;
	} else if (cJSON_IsString(it) && it->valuestring) {
		if (bn_quantity_parse(it->valuestring, dim, out, why, sizeof(why)) != BN_OK)
			return bn_err_set(err, BN_ERR_DATA, "%s: key \"curve\": point %d: %s: %s", what, k,
					  coord, why);
	} else {
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: key \"curve\": point %d: expected [A, V]: numbers (0.8, 5.1) "
				  "or quantities (\"800mA\", \"5.1V\")", what, k);
	}
	if (isfinite(*out) && bn_plausible_max(*out, dim, max_si, cJSON_IsNumber(it), why,
					       sizeof(why)) != BN_OK)
		return bn_err_set(err, BN_ERR_DATA, "%s: key \"curve\": point %d: %s %s", what, k, coord,
				  why);
	return BN_OK;
}

int bn_charger_parse_curve(const cJSON *curve, double *i_a, double *v_v, int *n_out,
			   const char *what, struct bn_err *err)
{
	const cJSON *pt;
	int n = 0, rc;

	if (!cJSON_IsArray(curve))
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: key \"curve\": expected an array of [A, V] points", what);
	cJSON_ArrayForEach(pt, curve) {
		if (n >= BN_CHARGER_MAX_POINTS)
			return bn_err_set(err, BN_ERR_DATA,
					  "%s: key \"curve\": more than %d points", what,
					  BN_CHARGER_MAX_POINTS);
		if (!cJSON_IsArray(pt) || cJSON_GetArraySize(pt) != 2)
			return bn_err_set(err, BN_ERR_DATA,
					  "%s: key \"curve\": point %d: expected [A, V] numbers",
					  what, n);
		rc = point_value(cJSON_GetArrayItem(pt, 0), BN_DIM_A, BN_PLAUSIBLE_USB_A, n, "current",
				 &i_a[n], what, err);
		if (rc == BN_OK)
			rc = point_value(cJSON_GetArrayItem(pt, 1), BN_DIM_V, BN_PLAUSIBLE_USB_V, n,
					 "voltage", &v_v[n], what, err);
		if (rc != BN_OK)
			return rc;
		if (!isfinite(i_a[n]) || !isfinite(v_v[n]) || i_a[n] < 0.0 || v_v[n] < 0.0)
			return bn_err_set(err, BN_ERR_DATA,
					  "%s: key \"curve\": point %d: negative value [%g, %g]",
					  what, n, i_a[n], v_v[n]);
		if (n > 0 && !(i_a[n] > i_a[n - 1]))
			return bn_err_set(err, BN_ERR_DATA,
					  "%s: key \"curve\": point %d: currents not ascending "
					  "(%g A after %g A)",
					  what, n, i_a[n], i_a[n - 1]);
		n++;
	}
	if (n < 2)
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: key \"curve\": needs at least 2 points, has %d", what, n);
	*n_out = n;
	return BN_OK;
}

/* A current key (rated, shutdown above) a USB charger could have. */
static int plausible_key(const cJSON *obj, const char *key, double v, const char *what,
			 struct bn_err *err)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);
	char why[200];

	if (it && bn_plausible_max(v, BN_DIM_A, BN_PLAUSIBLE_USB_A, cJSON_IsNumber(it), why,
				   sizeof(why)) != BN_OK)
		return bn_err_set(err, BN_ERR_DATA, "%s: key \"%s\": %s", what, key, why);
	return BN_OK;
}

static int parse_shutdown(const cJSON *sd, struct bn_charger *c, const char *path,
			  struct bn_err *err)
{
	char what[300];
	double after_s = 0.0, recover_s = 0.0;
	int rc;

	snprintf(what, sizeof(what), "%s: shutdown", path);
	if (!cJSON_IsObject(sd))
		return bn_err_set(err, BN_ERR_DATA, "%s: key \"shutdown\": expected an object",
				  path);
	rc = bn_json_check_keys(sd, shutdown_keys, what, err);
	if (rc)
		return rc;
	rc = bn_json_quantity(sd, "above", true, BN_DIM_A, 1.0, &c->shutdown_above_a, what, err);
	if (rc == BN_OK)
		rc = plausible_key(sd, "above", c->shutdown_above_a, what, err);
	if (!rc)
		rc = bn_json_quantity(sd, "after", true, BN_DIM_S, 1.0, &after_s, what, err);
	if (!rc)
		rc = bn_json_quantity(sd, "recover", true, BN_DIM_S, 1.0, &recover_s, what, err);
	if (rc)
		return rc;
	if (!(c->shutdown_above_a >= 0.0))
		return bn_err_set(err, BN_ERR_DATA, "%s: key \"above\": negative current", what);
	if (!(after_s >= 0.0))
		return bn_err_set(err, BN_ERR_DATA, "%s: key \"after\": negative time", what);
	if (!(recover_s >= 0.0))
		return bn_err_set(err, BN_ERR_DATA, "%s: key \"recover\": negative time", what);
	c->has_shutdown = true;
	c->shutdown_after_us = bn_time_from_s(after_s);
	c->recover_us = bn_time_from_s(recover_s);
	return BN_OK;
}

/* "schema", "compliant", "breaks", "measured": what the profile says about
 * itself. */
static int parse_meta(const cJSON *root, struct bn_charger *c, const char *path,
		      struct bn_err *err)
{
	const cJSON *j;
	char schema[40] = "";
	bool compliant;
	int rc;

	rc = bn_json_str(root, "schema", false, schema, sizeof(schema), path, err);
	if (rc)
		return rc;
	/* no schema is v1; v1 files may use the v2 keys (a superset) */
	if (schema[0] && strcmp(schema, "bcbench-charger/1") && strcmp(schema, BN_CHARGER_SCHEMA))
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: schema \"%s\" (expected \"" BN_CHARGER_SCHEMA "\")", path,
				  schema);
	rc = bn_json_str(root, "description", false, c->description, sizeof(c->description),
			 path, err);
	if (rc)
		return rc;
	c->compliant = -1;
	j = cJSON_GetObjectItemCaseSensitive(root, "compliant");
	if (j) {
		rc = bn_json_bool(root, "compliant", true, &compliant, path, err);
		if (rc)
			return rc;
		c->compliant = compliant ? 1 : 0;
	}
	j = cJSON_GetObjectItemCaseSensitive(root, "breaks");
	if (j) {
		const cJSON *id;

		if (!cJSON_IsArray(j))
			return bn_err_set(err, BN_ERR_DATA,
					  "%s: key \"breaks\": expected an array of port rule ids",
					  path);
		cJSON_ArrayForEach(id, j) {
			const char *s = cJSON_GetStringValue(id);

			if (!s || strncmp(s, "bc12.port.", 10) || !s[10] ||
			    strlen(s) >= sizeof(c->breaks[0]))
				return bn_err_set(err, BN_ERR_DATA,
						  "%s: key \"breaks\": item %d: expected a port rule id "
						  "such as \"bc12.port.shutdown\" (under %zu characters)",
						  path, c->n_breaks, sizeof(c->breaks[0]));
			if (c->n_breaks >= BN_CHARGER_MAX_BREAKS)
				return bn_err_set(err, BN_ERR_DATA, "%s: key \"breaks\": more than %d ids",
						  path, BN_CHARGER_MAX_BREAKS);
			for (int k = 0; k < c->n_breaks; k++)
				if (!strcmp(c->breaks[k], s))
					return bn_err_set(err, BN_ERR_DATA,
							  "%s: key \"breaks\": \"%s\" given twice", path, s);
			strcpy(c->breaks[c->n_breaks++], s);
		}
	}
	if (c->compliant == 1 && c->n_breaks > 0)
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: \"compliant\": true but \"breaks\" names %s: a charger meant to "
				  "pass every port rule breaks none",
				  path, c->breaks[0]);
	j = cJSON_GetObjectItemCaseSensitive(root, "measured");
	if (j && !cJSON_IsObject(j))
		return bn_err_set(err, BN_ERR_DATA, "%s: key \"measured\": expected an object", path);
	c->has_measured = j != NULL;
	return BN_OK;
}

int bn_charger_load(const char *path, struct bn_charger *out, struct bn_err *err)
{
	return bn_charger_load_sha(path, out, NULL, err);
}

int bn_charger_load_sha(const char *path, struct bn_charger *out, char sha256[65], struct bn_err *err)
{
	/* large (a captured series): static storage would not be reentrant,
	 * the heap keeps it off small thread stacks */
	struct bn_charger *c;
	cJSON *root = NULL;
	const cJSON *sd, *curve;
	int rc;

	if (!path || !out)
		return bn_err_set(err, BN_ERR_ARG, "bn_charger_load: no path or output");
	if (strlen(path) >= sizeof(out->path))
		return bn_err_set(err, BN_ERR_ARG, "%s: path too long", path);
	c = calloc(1, sizeof(*c));
	if (!c)
		return bn_err_set(err, BN_ERR_NOMEM, "%s: out of memory", path);
	strcpy(c->path, path);
	rc = bn_json_load_sha(path, &root, sha256, err);
	if (rc)
		goto out;
	if (!cJSON_IsObject(root)) {
		rc = bn_err_set(err, BN_ERR_DATA, "%s: expected a JSON object", path);
		goto out;
	}
	rc = bn_json_check_keys(root, charger_keys, path, err);
	if (rc)
		goto out;
	bn_json_stem(path, c->name, sizeof(c->name));
	rc = bn_json_str(root, "name", false, c->name, sizeof(c->name), path, err);
	if (!rc)
		rc = parse_meta(root, c, path, err);
	if (rc)
		goto out;
	curve = cJSON_GetObjectItemCaseSensitive(root, "curve");
	if (!curve)
		rc = bn_err_set(err, BN_ERR_DATA, "%s: missing key \"curve\"", path);
	else
		rc = bn_charger_parse_curve(curve, c->i_a, c->v_v, &c->n_points, path, err);
	if (!rc)
		rc = bn_json_quantity(root, "cable", true, BN_DIM_OHM, 1.0, &c->cable_ohm, path, err);
	if (!rc && !(c->cable_ohm >= 0.0))
		rc = bn_err_set(err, BN_ERR_DATA, "%s: key \"cable\": negative resistance", path);
	if (!rc)
		rc = bn_json_quantity(root, "rated", false, BN_DIM_A, 1.0, &c->rated_a, path, err);
	if (!rc && !(c->rated_a >= 0.0))
		rc = bn_err_set(err, BN_ERR_DATA, "%s: key \"rated\": negative current", path);
	if (!rc)
		rc = plausible_key(root, "rated", c->rated_a, path, err);
	if (!rc)
		rc = bn_json_quantity(root, "output_cap", false, BN_DIM_F, 1.0, &c->output_cap_f, path,
				      err);
	if (!rc && !(c->output_cap_f >= 0.0 && c->output_cap_f <= 1.0))
		rc = bn_err_set(err, BN_ERR_DATA,
				"%s: key \"output_cap\": expected a capacitance from 0 to 1 F", path);
	if (rc)
		goto out;
	sd = cJSON_GetObjectItemCaseSensitive(root, "shutdown");
	if (sd) {
		rc = parse_shutdown(sd, c, path, err);
		if (rc)
			goto out;
	}
	rc = bn_charger_parse_time(root, c, path, err);
	if (rc)
		goto out;
	memcpy(out, c, sizeof(*c)); /* padding too: a loaded struct compares with memcmp */
out:
	cJSON_Delete(root);
	free(c);
	return rc;
}

int bn_charger_load_measured(const char *path, cJSON **out, struct bn_err *err)
{
	cJSON *root = NULL;
	cJSON *m;
	int rc;

	*out = NULL;
	rc = bn_json_load(path, &root, err);
	if (rc)
		return rc;
	m = cJSON_IsObject(root) ? cJSON_DetachItemFromObjectCaseSensitive(root, "measured") : NULL;
	cJSON_Delete(root);
	if (m && !cJSON_IsObject(m)) {
		cJSON_Delete(m);
		return bn_err_set(err, BN_ERR_DATA, "%s: key \"measured\": expected an object", path);
	}
	*out = m;
	return BN_OK;
}
