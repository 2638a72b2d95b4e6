/* The charger's behaviour in time (profile v2): the keys transient,
 * power_up, schedule and vbus_t, read from a profile (and a captured
 * series from its CSV file), and evaluated at a time since the output
 * turned on. See charger.h. */
#include "sim/charger.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/file.h"
#include "core/json.h"

/* The latest time a schedule entry or a captured sample may name: 1e6 s
 * (11.6 days) is past any run or capture, and keeps t_s * 1e6 (us) an
 * exact integer in a double (< 2^53) and far inside bn_time_us, so
 * llround never sees a value it cannot represent (undefined past
 * INT64_MAX, and NaN/inf are refused the same way). */
#define CHARGER_MAX_T_S 1e6

static const char *const transient_keys[] = { "r", "tau", NULL };
static const char *const power_up_keys[] = { "peak", "tau", NULL };
static const char *const phase_keys[] = { "from", "curve", NULL };
static const char *const vbus_t_keys[] = { "samples", "file", "r_out", "repeat", NULL };

/* An object of two quantities, both required, the second a time > 0. */
static int parse_pair(const cJSON *root, const char *key, const char *const *keys,
		      enum bn_dim dim0, double *v0, double *tau_s, bool *has, const char *path,
		      struct bn_err *err)
{
	const cJSON *o = cJSON_GetObjectItemCaseSensitive(root, key);
	char what[320];
	int rc;

	if (!o)
		return BN_OK;
	snprintf(what, sizeof(what), "%s: %s", path, key);
	if (!cJSON_IsObject(o))
		return bn_err_set(err, BN_ERR_DATA, "%s: key \"%s\": expected an object", path, key);
	rc = bn_json_check_keys(o, keys, what, err);
	if (!rc)
		rc = bn_json_quantity(o, keys[0], true, dim0, 1.0, v0, what, err);
	if (!rc)
		rc = bn_json_quantity(o, keys[1], true, BN_DIM_S, 1.0, tau_s, what, err);
	if (rc)
		return rc;
	if (!(*v0 >= 0.0) || !isfinite(*v0))
		return bn_err_set(err, BN_ERR_DATA, "%s: key \"%s\": expected a value >= 0", what,
				  keys[0]);
	if (!(*tau_s > 0.0 && *tau_s <= CHARGER_MAX_T_S))
		return bn_err_set(err, BN_ERR_DATA, "%s: key \"%s\": expected a time > 0 and up to %g s",
				  what, keys[1], CHARGER_MAX_T_S);
	*has = true;
	return BN_OK;
}

static int parse_schedule(const cJSON *root, struct bn_charger *c, const char *path,
			  struct bn_err *err)
{
	const cJSON *sch = cJSON_GetObjectItemCaseSensitive(root, "schedule");
	const cJSON *ph;

	if (!sch)
		return BN_OK;
	if (!cJSON_IsArray(sch))
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: key \"schedule\": expected an array of {\"from\", \"curve\"}",
				  path);
	cJSON_ArrayForEach(ph, sch) {
		struct bn_charger_phase *p;
		char what[320];
		double from_s = 0.0;
		int rc;

		snprintf(what, sizeof(what), "%s: schedule[%d]", path, c->n_phases);
		if (c->n_phases >= BN_CHARGER_MAX_PHASES)
			return bn_err_set(err, BN_ERR_DATA, "%s: key \"schedule\": more than %d entries",
					  path, BN_CHARGER_MAX_PHASES);
		if (!cJSON_IsObject(ph))
			return bn_err_set(err, BN_ERR_DATA, "%s: expected an object", what);
		p = &c->phases[c->n_phases];
		rc = bn_json_check_keys(ph, phase_keys, what, err);
		if (!rc)
			rc = bn_json_quantity(ph, "from", true, BN_DIM_S, 1.0, &from_s, what, err);
		if (rc)
			return rc;
		if (!cJSON_GetObjectItemCaseSensitive(ph, "curve"))
			return bn_err_set(err, BN_ERR_DATA, "%s: missing key \"curve\"", what);
		rc = bn_charger_parse_curve(cJSON_GetObjectItemCaseSensitive(ph, "curve"), p->i_a,
					    p->v_v, &p->n_points, what, err);
		if (rc)
			return rc;
		if (!(from_s >= 0.0 && from_s <= CHARGER_MAX_T_S))
			return bn_err_set(err, BN_ERR_DATA, "%s: key \"from\": expected a time from 0 "
					  "to %g s, got %g s", what, CHARGER_MAX_T_S, from_s);
		p->from_us = bn_time_from_s(from_s);
		if (c->n_phases > 0 && !(p->from_us > c->phases[c->n_phases - 1].from_us))
			return bn_err_set(err, BN_ERR_DATA,
					  "%s: key \"from\": %g s is not after the entry before it", what,
					  from_s);
		c->n_phases++;
	}
	return BN_OK;
}

/* One sample [t, v] or [t, v, i] into the series; where names it. */
static int add_sample(struct bn_charger_vbus_t *vt, const double *x, int nx, const char *where,
		      struct bn_err *err)
{
	if (vt->n >= BN_CHARGER_MAX_VBUS_T)
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: more than %d samples (decimate the capture)", where,
				  BN_CHARGER_MAX_VBUS_T);
	for (int k = 0; k < nx; k++)
		if (!isfinite(x[k]))
			return bn_err_set(err, BN_ERR_DATA, "%s: not a finite number", where);
	if (x[0] < 0.0 || x[1] < 0.0)
		return bn_err_set(err, BN_ERR_DATA, "%s: negative time or voltage", where);
	if (x[0] > CHARGER_MAX_T_S)
		return bn_err_set(err, BN_ERR_DATA, "%s: time %.9g s: expected at most %g s", where,
				  x[0], CHARGER_MAX_T_S);
	if (vt->n > 0 && !(x[0] > vt->t_s[vt->n - 1]))
		return bn_err_set(err, BN_ERR_DATA, "%s: time %.9g s not after %.9g s", where, x[0],
				  vt->t_s[vt->n - 1]);
	vt->t_s[vt->n] = x[0];
	vt->v_v[vt->n] = x[1];
	vt->i_a[vt->n] = nx > 2 ? x[2] : 0.0;
	vt->n++;
	return BN_OK;
}

static int parse_samples(const cJSON *arr, struct bn_charger_vbus_t *vt, const char *what,
			 struct bn_err *err)
{
	const cJSON *row;
	int arity = 0;

	if (!cJSON_IsArray(arr))
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: key \"samples\": expected an array of [t_s, v_V, i_A]", what);
	cJSON_ArrayForEach(row, arr) {
		char where[400];
		double x[3];
		int n = cJSON_GetArraySize(row);

		snprintf(where, sizeof(where), "%s: samples[%d]", what, vt->n);
		if (!cJSON_IsArray(row) || n < 2 || n > 3 || (arity && n != arity))
			return bn_err_set(err, BN_ERR_DATA, "%s: expected [t_s, v_V%s] numbers", where,
					  arity == 2 ? "" : ", i_A");
		arity = n;
		for (int k = 0; k < n; k++) {
			const cJSON *e = cJSON_GetArrayItem(row, k);

			if (!cJSON_IsNumber(e))
				return bn_err_set(err, BN_ERR_DATA, "%s: expected numbers", where);
			x[k] = e->valuedouble;
		}
		int rc = add_sample(vt, x, n, where, err);

		if (rc)
			return rc;
	}
	vt->has_i = arity == 3;
	return BN_OK;
}

/* The profile's directory joined with name. */
static int beside(const char *profile, const char *name, char *buf, size_t len,
		  struct bn_err *err)
{
	const char *slash = strrchr(profile, '/');
	int dir = slash ? (int)(slash - profile + 1) : 0;

	if ((size_t)snprintf(buf, len, "%.*s%s", dir, profile, name) >= len)
		return bn_err_set(err, BN_ERR_DATA, "%s: vbus_t file name too long", profile);
	return BN_OK;
}

int bn_charger_vbus_t_csv_path(const char *profile, const char *name, char *buf, size_t len,
			       struct bn_err *err)
{
	return beside(profile, name, buf, len, err);
}

/* Strip trailing blanks and a CR. */
static void rstrip(char *s)
{
	size_t n = strlen(s);

	while (n > 0 && (s[n - 1] == '\r' || s[n - 1] == ' ' || s[n - 1] == '\t'))
		s[--n] = '\0';
}

static int parse_csv(const char *file, struct bn_charger_vbus_t *vt, struct bn_err *err)
{
	char *text = NULL, *line, *next;
	size_t len;
	int rc, lineno = 0, arity = 0;

	rc = bn_file_read(file, &text, &len, err);
	if (rc)
		return rc;
	for (line = text; line; line = next) {
		char where[1300];
		double x[3];
		int n = 0;
		char *p;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		rstrip(line);
		snprintf(where, sizeof(where), "%s:%d", file, lineno);
		if (!arity) {
			if (!strcmp(line, "t_s,v_V"))
				arity = 2;
			else if (!strcmp(line, "t_s,v_V,i_A"))
				arity = 3;
			else {
				rc = bn_err_set(err, BN_ERR_DATA,
						"%s: expected the header \"t_s,v_V\" or \"t_s,v_V,i_A\"",
						where);
				break;
			}
			continue;
		}
		if (!line[0])
			continue;
		for (p = line; n < 3;) {
			char *end;

			errno = 0;
			x[n] = strtod(p, &end);
			if (end == p || errno) {
				n = -1;
				break;
			}
			n++;
			while (*end == ' ' || *end == '\t')
				end++;
			if (*end != ',') {
				p = end;
				break;
			}
			p = end + 1;
		}
		if (n != arity || *p) {
			rc = bn_err_set(err, BN_ERR_DATA, "%s: expected %d numbers (%s)", where, arity,
					arity == 2 ? "t_s,v_V" : "t_s,v_V,i_A");
			break;
		}
		rc = add_sample(vt, x, n, where, err);
		if (rc)
			break;
	}
	if (!rc && !arity)
		rc = bn_err_set(err, BN_ERR_DATA, "%s:1: empty: expected the header \"t_s,v_V\"",
				file);
	vt->has_i = arity == 3;
	free(text);
	return rc;
}

static int parse_vbus_t(const cJSON *root, struct bn_charger *c, const char *path,
			struct bn_err *err)
{
	const cJSON *o = cJSON_GetObjectItemCaseSensitive(root, "vbus_t");
	struct bn_charger_vbus_t *vt = &c->vbus_t;
	const cJSON *samples, *file;
	char what[320];
	int rc;

	if (!o)
		return BN_OK;
	snprintf(what, sizeof(what), "%s: vbus_t", path);
	if (!cJSON_IsObject(o))
		return bn_err_set(err, BN_ERR_DATA, "%s: key \"vbus_t\": expected an object", path);
	rc = bn_json_check_keys(o, vbus_t_keys, what, err);
	if (!rc)
		rc = bn_json_quantity(o, "r_out", true, BN_DIM_OHM, 1.0, &vt->r_out_ohm, what, err);
	if (!rc)
		rc = bn_json_bool(o, "repeat", false, &vt->repeat, what, err);
	if (rc)
		return rc;
	if (!(vt->r_out_ohm >= 0.0) || !isfinite(vt->r_out_ohm))
		return bn_err_set(err, BN_ERR_DATA, "%s: key \"r_out\": negative resistance", what);
	samples = cJSON_GetObjectItemCaseSensitive(o, "samples");
	file = cJSON_GetObjectItemCaseSensitive(o, "file");
	if (!samples == !file)
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: expected exactly one of \"samples\" and \"file\"", what);
	if (samples) {
		rc = parse_samples(samples, vt, what, err);
	} else {
		char csv[1200];

		rc = bn_json_str(o, "file", true, vt->file, sizeof(vt->file), what, err);
		if (rc)
			return rc;
		if (!vt->file[0] || vt->file[0] == '/' || strstr(vt->file, ".."))
			return bn_err_set(err, BN_ERR_DATA,
					  "%s: key \"file\": expected a file name relative to the profile",
					  what);
		rc = beside(path, vt->file, csv, sizeof(csv), err);
		if (!rc)
			rc = parse_csv(csv, vt, err);
	}
	if (!rc && vt->n < 2)
		rc = bn_err_set(err, BN_ERR_DATA, "%s: needs at least 2 samples, has %d", what, vt->n);
	if (!rc && vt->repeat && !(vt->t_s[vt->n - 1] > vt->t_s[0]))
		rc = bn_err_set(err, BN_ERR_DATA, "%s: a repeated series needs a duration", what);
	return rc;
}

int bn_charger_parse_time(const cJSON *root, struct bn_charger *c, const char *path,
			  struct bn_err *err)
{
	int rc;

	rc = parse_pair(root, "transient", transient_keys, BN_DIM_OHM, &c->transient_r_ohm,
			&c->transient_tau_s, &c->has_transient, path, err);
	if (!rc)
		rc = parse_pair(root, "power_up", power_up_keys, BN_DIM_V, &c->power_up_peak_v,
				&c->power_up_tau_s, &c->has_power_up, path, err);
	if (!rc)
		rc = parse_schedule(root, c, path, err);
	if (!rc)
		rc = parse_vbus_t(root, c, path, err);
	return rc;
}

/* ---- evaluation in time ---- */

bool bn_charger_timed(const struct bn_charger *c)
{
	return c->has_transient || c->has_power_up || c->n_phases > 0 || c->vbus_t.n > 0;
}

/* The phase in force rel_us after the output turned on; -1: the base curve. */
static int phase_at(const struct bn_charger *c, bn_time_us rel_us)
{
	int k = -1;

	while (k + 1 < c->n_phases && c->phases[k + 1].from_us <= rel_us)
		k++;
	return k;
}

static void curve_of(const struct bn_charger *c, int phase, const double **i_a,
		     const double **v_v, int *n)
{
	if (phase < 0) {
		*i_a = c->i_a, *v_v = c->v_v, *n = c->n_points;
	} else {
		*i_a = c->phases[phase].i_a, *v_v = c->phases[phase].v_v;
		*n = c->phases[phase].n_points;
	}
}

static bn_time_us us_of(double t_s)
{
	return (bn_time_us)llround(t_s * 1e6);
}

/* Where the series stands rel_us after the output turned on: false when
 * it is not in force; else the segment k (t_k <= t < t_k+1, or the last
 * sample) and the time in seconds on the series' own axis. */
static bool series_at(const struct bn_charger_vbus_t *vt, bn_time_us rel_us, int *k, double *t_s)
{
	bn_time_us u0, un;
	double t;
	int lo, hi;

	if (vt->n < 2 || rel_us < (u0 = us_of(vt->t_s[0])))
		return false;
	un = us_of(vt->t_s[vt->n - 1]);
	if (vt->repeat && un > u0)
		rel_us = u0 + (rel_us - u0) % (un - u0);
	else if (rel_us >= un)
		return false; /* at its end the static curve takes over */
	t = (double)rel_us / 1e6;
	/* the last sample at or before rel_us, on the whole microseconds the
	 * world replans at (series_next): a segment starts where its replan is */
	lo = 0, hi = vt->n - 1;
	while (lo < hi) {
		int mid = (lo + hi + 1) / 2;

		if (us_of(vt->t_s[mid]) <= rel_us)
			lo = mid;
		else
			hi = mid - 1;
	}
	*k = lo;
	*t_s = t;
	return true;
}

/* The series' v and i at t_s in segment k (linear between samples). */
static void series_vi(const struct bn_charger_vbus_t *vt, int k, double t_s, double *v,
		      double *i)
{
	double f;

	if (k >= vt->n - 1) {
		*v = vt->v_v[vt->n - 1], *i = vt->i_a[vt->n - 1];
		return;
	}
	f = (t_s - vt->t_s[k]) / (vt->t_s[k + 1] - vt->t_s[k]);
	*v = vt->v_v[k] + f * (vt->v_v[k + 1] - vt->v_v[k]);
	*i = vt->i_a[k] + f * (vt->i_a[k + 1] - vt->i_a[k]);
}

static bn_time_us rel_of(const struct bn_charger_state *s, bn_time_us t)
{
	return s->on_since_us == BN_TIME_NEVER || t < s->on_since_us ? 0 : t - s->on_since_us;
}

static bool series_on(const struct bn_charger *c, const struct bn_charger_state *s, bn_time_us t)
{
	int k;
	double t_s;

	return s->on_since_us != BN_TIME_NEVER && series_at(&c->vbus_t, rel_of(s, t), &k, &t_s);
}

void bn_charger_output(const struct bn_charger *c, struct bn_charger_state *s, bool on,
		       bn_time_us t)
{
	if (!on) {
		s->on_since_us = BN_TIME_NEVER;
		s->offset_v = 0.0;
		s->i_last_a = 0.0;
		return;
	}
	if (s->on_since_us != BN_TIME_NEVER)
		return;
	s->on_since_us = t;
	s->offset_t_us = t;
	s->offset_v = 0.0;
	s->i_last_a = 0.0;
	if (c->has_power_up && !series_on(c, s, t)) {
		const double *i_a, *v_v;
		int n;

		/* the output starts at the peak, its open-circuit voltage
		 * being the curve's first point */
		curve_of(c, phase_at(c, 0), &i_a, &v_v, &n);
		s->offset_v = c->power_up_peak_v - v_v[0];
		s->offset_tau_s = c->power_up_tau_s;
	}
}

double bn_charger_offset_v(const struct bn_charger *c, const struct bn_charger_state *s,
			   bn_time_us t, double i_a)
{
	double d = s->offset_v;

	if (s->on_since_us == BN_TIME_NEVER || series_on(c, s, t))
		return 0.0;
	if (d != 0.0 && t > s->offset_t_us)
		d *= exp(-(double)(t - s->offset_t_us) / 1e6 / s->offset_tau_s);
	if (fabs(d) <= BN_CHARGER_SETTLE_V)
		d = 0.0;
	if (c->has_transient)
		d -= c->transient_r_ohm * (fmax(i_a, 0.0) - s->i_last_a);
	return d;
}

void bn_charger_draw(const struct bn_charger *c, struct bn_charger_state *s, bn_time_us t,
		     double i_a)
{
	i_a = fmax(i_a, 0.0);
	if (s->on_since_us == BN_TIME_NEVER)
		return;
	s->offset_v = bn_charger_offset_v(c, s, t, i_a);
	s->offset_t_us = t;
	if (c->has_transient && i_a != s->i_last_a)
		s->offset_tau_s = c->transient_tau_s;
	s->i_last_a = i_a;
}

double bn_charger_vbus_at(const struct bn_charger *c, const struct bn_charger_state *s,
			  bn_time_us t, double i_a)
{
	bn_time_us rel = rel_of(s, t);
	const double *ip, *vp;
	double v, t_s;
	int n, k;

	if (s->off)
		return 0.0;
	curve_of(c, phase_at(c, rel), &ip, &vp, &n);
	if (n <= 0 || i_a > ip[n - 1])
		return 0.0;
	if (i_a < 0.0)
		i_a = 0.0; /* the charger cannot sink */
	if (s->on_since_us != BN_TIME_NEVER && series_at(&c->vbus_t, rel, &k, &t_s)) {
		double vs, is;

		series_vi(&c->vbus_t, k, t_s, &vs, &is);
		v = vs - c->vbus_t.r_out_ohm * (i_a - is);
	} else {
		v = bn_charger_curve_v(ip, vp, n, i_a) - i_a * c->cable_ohm +
		    bn_charger_offset_v(c, s, t, i_a);
	}
	return v > 0.0 ? v : 0.0;
}

double bn_charger_vbus_slope(const struct bn_charger *c, const struct bn_charger_state *s,
			     bn_time_us t, double i_a)
{
	const struct bn_charger_vbus_t *vt = &c->vbus_t;
	double t_s, dt;
	int k;

	if (s->off || s->on_since_us == BN_TIME_NEVER || !series_at(vt, rel_of(s, t), &k, &t_s) ||
	    k >= vt->n - 1)
		return 0.0;
	dt = vt->t_s[k + 1] - vt->t_s[k];
	return (vt->v_v[k + 1] - vt->v_v[k]) / dt + vt->r_out_ohm * (vt->i_a[k + 1] - vt->i_a[k]) / dt;
}

/* The first series sample (or its end) after rel_us, relative. */
static bn_time_us series_next(const struct bn_charger_vbus_t *vt, bn_time_us rel_us)
{
	bn_time_us u0, un, base = 0;
	int lo, hi;

	if (vt->n < 2)
		return BN_TIME_NEVER;
	u0 = us_of(vt->t_s[0]);
	un = us_of(vt->t_s[vt->n - 1]);
	if (rel_us < u0)
		return u0;
	if (vt->repeat && un > u0) {
		base = (rel_us - u0) / (un - u0) * (un - u0);
		rel_us -= base;
	} else if (rel_us >= un) {
		return BN_TIME_NEVER;
	}
	/* the first sample strictly after rel_us (one exists: rel_us < un) */
	lo = 0, hi = vt->n - 1;
	while (lo < hi) {
		int mid = (lo + hi) / 2;

		if (us_of(vt->t_s[mid]) > rel_us)
			hi = mid;
		else
			lo = mid + 1;
	}
	return base + us_of(vt->t_s[lo]);
}

bn_time_us bn_charger_next_change(const struct bn_charger *c, const struct bn_charger_state *s,
				  bn_time_us t, bool held)
{
	bn_time_us rel, next = BN_TIME_NEVER;
	int k = -1;

	if (s->off || s->on_since_us == BN_TIME_NEVER)
		return BN_TIME_NEVER;
	rel = rel_of(s, t);
	k = phase_at(c, rel);
	if (k + 1 < c->n_phases)
		next = c->phases[k + 1].from_us;
	if (c->vbus_t.n > 0) {
		bn_time_us sn = series_next(&c->vbus_t, rel);

		next = sn < next ? sn : next;
	}
	if (next != BN_TIME_NEVER)
		next += s->on_since_us;
	if (held && bn_charger_offset_v(c, s, t, s->i_last_a) != 0.0) {
		bn_time_us step = (bn_time_us)ceil(s->offset_tau_s * 1e5);
		bn_time_us th = t + (step > 0 ? step : 1);

		next = th < next ? th : next;
	}
	return next;
}

void bn_charger_curve_now(const struct bn_charger *c, const struct bn_charger_state *s,
			  bn_time_us t, struct bn_charger *eff)
{
	bn_time_us rel = rel_of(s, t);
	const double *ip, *vp;
	double t_s;
	int n, k;

	curve_of(c, phase_at(c, rel), &ip, &vp, &n);
	if (s->on_since_us != BN_TIME_NEVER && series_at(&c->vbus_t, rel, &k, &t_s)) {
		const struct bn_charger_vbus_t *vt = &c->vbus_t;
		double vs, is, a, i_max = ip[n - 1];

		series_vi(vt, k, t_s, &vs, &is);
		a = vs + vt->r_out_ohm * is;
		eff->n_points = 2;
		eff->i_a[0] = 0.0;
		eff->v_v[0] = fmax(a, 0.0);
		eff->i_a[1] = i_max > 0.0 ? i_max : 1e-3;
		eff->v_v[1] = fmax(a - (vt->r_out_ohm - c->cable_ohm) * eff->i_a[1], 0.0);
		return;
	}
	eff->n_points = n;
	memcpy(eff->i_a, ip, sizeof(*ip) * (size_t)n);
	memcpy(eff->v_v, vp, sizeof(*vp) * (size_t)n);
}
