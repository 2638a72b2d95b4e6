/* curve import's output: the charger profile (bcbench-charger/2) and its
 * "measured" block. */
#include "curve/import.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/file.h"
#include "core/json.h"
#include "curve/measured.h"
#include "report/report.h"

/* A number rounded to what it means (1 uV, 1 uA, 1 us), for a diff-able file. */
static double r6(double x)
{
	return isfinite(x) ? round(x * 1e6) / 1e6 : x;
}

static cJSON *num_or_null(double x)
{
	return isfinite(x) ? cJSON_CreateNumber(r6(x)) : cJSON_CreateNull();
}

static cJSON *settings(const struct bn_import_opts *o, const struct bn_import *r)
{
	cJSON *s = cJSON_CreateObject();

	cJSON_AddNumberToObject(s, "bin_a", r6(o->bin_a));
	cJSON_AddNumberToObject(s, "min_samples", o->min_samples);
	cJSON_AddNumberToObject(s, "settle_s", r6(o->settle_s));
	cJSON_AddNumberToObject(s, "steady_tol_a", r6(r->tol_a));
	cJSON_AddNumberToObject(s, "settled_tol_v", r6(r->settled_tol_v));
	cJSON_AddStringToObject(s, "steady",
				"the port's current within +-steady_tol_a (a quarter bin, or 4 sigma of "
				"IBUS's noise if more) for settle_s, and VBUS within settled_tol_v of "
				"where it was settle_s before");
	cJSON_AddBoolToObject(s, "monotone", o->monotone);
	cJSON_AddStringToObject(s, "fit",
				o->monotone ? "VBUS non-increasing in the current (pool-adjacent-"
					      "violators, weights n): a charger's output does not rise "
					      "with its load"
					    : "bin means as measured (--no-monotone)");
	cJSON_AddNumberToObject(s, "to_a", r6(r->to_a));
	cJSON_AddNumberToObject(s, "residual_factor", o->resid_factor);
	cJSON_AddNumberToObject(s, "series_tol_v", r6(o->series_tol_v));
	cJSON_AddNumberToObject(s, "series_tol_a", r6(o->series_tol_a));
	return s;
}

static cJSON *channels(const struct bn_import *r, const struct bn_import_opts *o)
{
	cJSON *c = cJSON_CreateObject();
	static const char *const label[2] = { "VBUS", "IBUS" };

	for (int k = 0; k < 2; k++) {
		cJSON *e = cJSON_CreateObject();

		cJSON_AddStringToObject(e, "source_channel", r->chan_src[k]);
		cJSON_AddNumberToObject(e, "gain", r->chan_gain[k]);
		if (k == 1 && r->shunt_ohm > 0)
			cJSON_AddNumberToObject(e, "shunt_ohm", r->shunt_ohm);
		cJSON_AddItemToObject(c, label[k], e);
	}
	if (o->map)
		cJSON_AddStringToObject(c, "map", o->map);
	return c;
}

static void points(cJSON *m, const struct bn_import *r)
{
	for (int k = 0; k < r->n_points; k++) {
		const struct bn_import_point *p = &r->pt[k];
		cJSON *e = bn_measured_point(m, r6(p->i_a), r6(p->v_v), p->n, r6(p->u_v));

		if (!e)
			continue;
		cJSON_AddNumberToObject(e, "v_fit", r6(p->v_fit_v));
		cJSON_AddNumberToObject(e, "sd_v", r6(p->sd_v));
	}
}

static cJSON *uncovered(const struct bn_import *r)
{
	cJSON *a = cJSON_CreateArray();

	for (int k = 0; k < r->n_uncovered; k++) {
		cJSON *e = cJSON_CreateObject();

		cJSON_AddNumberToObject(e, "from_a", r6(r->unc[k].from_a));
		cJSON_AddNumberToObject(e, "to_a", r6(r->unc[k].to_a));
		cJSON_AddStringToObject(e, "why", r->unc[k].reached ? "too few steady samples"
								     : "not reached");
		cJSON_AddItemToArray(a, e);
	}
	return a;
}

/* The shared knee (curve/measured.h) and where the covered points
 * bracket it. */
static void knee(cJSON *m, const struct bn_import *r)
{
	cJSON *k = bn_measured_knee(m, &r->ch, r->vchg_min_v), *b, *a;

	if (!k)
		return;
	/* the file's numbers rounded as the rest of it */
	a = cJSON_GetObjectItemCaseSensitive(k, "a");
	if (cJSON_IsNumber(a))
		cJSON_SetNumberValue(a, r6(a->valuedouble));
	a = cJSON_GetObjectItemCaseSensitive(k, "v");
	if (cJSON_IsNumber(a))
		cJSON_SetNumberValue(a, r6(a->valuedouble));
	cJSON_AddBoolToObject(k, "reached", r->knee_reached);
	b = cJSON_AddArrayToObject(k, "between_a");
	if (b) {
		cJSON_AddItemToArray(b, num_or_null(r->knee_lo_a));
		cJSON_AddItemToArray(b, num_or_null(r->knee_hi_a));
	}
}

/* Each collapse in the shared shape (at_a: the current before it,
 * after_s: how long it was held), with when in the capture. */
static void collapses(cJSON *m, const struct bn_import *r)
{
	double at_a = INFINITY;

	cJSON_AddArrayToObject(m, "collapses");
	for (int k = 0; k < r->n_collapses; k++) {
		const struct bn_import_collapse *c = &r->col[k];
		cJSON *e = bn_measured_collapse(m, r6(c->before_a), NAN,
						c->held_s >= 0 ? r6(c->held_s) : NAN,
						c->recover_s >= 0 ? r6(c->recover_s) : NAN, c->shutdown,
						c->why);

		if (e)
			cJSON_AddNumberToObject(e, "t_s", r6(c->t_s));
		if (c->shutdown && c->before_a < at_a)
			at_a = c->before_a;
	}
	if (r->ch.has_shutdown)
		bn_measured_shutdown(m, r6(r->ch.shutdown_above_a), isfinite(at_a) ? r6(at_a) : NAN,
				     r6(bn_time_to_s(r->ch.shutdown_after_us)),
				     r6(bn_time_to_s(r->ch.recover_us)));
}

cJSON *bn_import_measured(const struct bn_import *r, const struct bn_import_opts *o,
			  const char *utc)
{
	struct bn_measured_head h = {
		.by = "import", .utc = utc, .complete = true,
		.vchg_min_v = r->vchg_min_v, .vchg_max_v = r->vchg_max_v,
		.limits_path = o->limits_path, .uncertainty = bn_measured_u_text(r->inst_known, false),
	};
	cJSON *m = bn_measured_new(&h), *src = cJSON_CreateObject();
	char cur[200];

	if (!m || !src) {
		cJSON_Delete(m);
		cJSON_Delete(src);
		return NULL;
	}
	cJSON_AddStringToObject(m, "tool", "bcbench " BN_VERSION);
	cJSON_AddStringToObject(src, "capture", o->capture_path);
	cJSON_AddStringToObject(src, "capture_sha256", r->capture_sha256);
	if (o->events_path) {
		cJSON_AddStringToObject(src, "events", o->events_path);
		cJSON_AddStringToObject(src, "events_sha256", r->events_sha256);
	} else {
		cJSON_AddNullToObject(src, "events");
	}
	cJSON_AddNumberToObject(src, "rate_hz", r->rate_hz);
	cJSON_AddNumberToObject(src, "frames", (double)r->n_frames);
	cJSON_AddItemToObject(m, "source", src);
	cJSON_AddItemToObject(m, "channels", channels(r, o));
	if (r->used_load)
		snprintf(cur, sizeof(cur), "IBUS plus the e-load's setpoints (events.json, %d load events)",
			 r->n_load_events);
	else
		snprintf(cur, sizeof(cur), "IBUS (no e-load events in the record)");
	cJSON_AddStringToObject(m, "current", cur);
	cJSON_AddStringToObject(m, "at", isnan(o->cable_ohm)
						 ? "receptacle: the curve is VBUS as captured, cable 0"
						 : "charger output: VBUS as captured plus the given cable's "
						   "drop");
	cJSON_AddNumberToObject(m, "cable_ohm", isnan(o->cable_ohm) ? 0.0 : o->cable_ohm);
	cJSON_AddItemToObject(m, "settings", settings(o, r));
	{
		cJSON *n = cJSON_CreateObject();

		cJSON_AddNumberToObject(n, "vbus_v", r6(r->sigma_v));
		cJSON_AddNumberToObject(n, "ibus_a", r6(r->sigma_a));
		cJSON_AddNumberToObject(n, "steady_samples", (double)r->n_steady);
		cJSON_AddItemToObject(m, "noise", n);
	}
	points(m, r);
	cJSON_AddNumberToObject(m, "curve_dev_v", r6(r->curve_dev_v));
	cJSON_AddItemToObject(m, "uncovered", uncovered(r));
	knee(m, r);
	collapses(m, r);
	if (r->series.n) {
		cJSON *s = cJSON_CreateObject();

		cJSON_AddNumberToObject(s, "points", (double)r->series.n);
		cJSON_AddNumberToObject(s, "from_s", r6(r->series.from_s));
		cJSON_AddNumberToObject(s, "to_s", r6(r->series.to_s));
		cJSON_AddNumberToObject(s, "t_zero_s", r6(r->t_on_s));
		cJSON_AddNumberToObject(s, "unexplained_samples", (double)r->series.unexplained);
		cJSON_AddNumberToObject(s, "tol_v", r6(r->series.tol_v));
		cJSON_AddNumberToObject(s, "tol_a", r6(r->series.tol_a));
		cJSON_AddNumberToObject(s, "averaged", r->series.averaged);
		cJSON_AddStringToObject(s, "what",
					"VBUS off the fit by more than residual_factor x the bin's sd "
					"plus tol_v, 3 samples in a row; from the first to the last such "
					"sample, decimated (Ramer-Douglas-Peucker) to tol_v and tol_a; t "
					"from VBUS on (t_zero_s in the capture)");
		cJSON_AddItemToObject(m, "series", s);
	}
	return m;
}

int bn_import_write(const char *path, const struct bn_import *r, const struct bn_import_opts *o,
		    struct bn_err *err)
{
	struct bn_charger *c = malloc(sizeof(*c));
	cJSON *measured;
	char utc[40];
	int rc;

	if (!c)
		return bn_err_set(err, BN_ERR_NOMEM, "out of memory");
	*c = r->ch;
	bn_report_utc_now(utc, sizeof(utc));
	snprintf(c->description, sizeof(c->description),
		 "Imported from %s by bcbench curve import (%s): %d steady points from %.3f A to "
		 "%.3f A at the %s.",
		 o->capture_path, utc, r->n_points, r->pt[0].i_a, r->pt[r->n_points - 1].i_a,
		 isnan(o->cable_ohm) ? "receptacle (cable 0)" : "charger's output");
	c->vbus_t.file[0] = '\0';
	if (c->vbus_t.n > o->inline_max) {
		const char *slash = strrchr(path, '/');
		char base[512], *dot;

		/* the file name alone: the series sits next to the profile */
		snprintf(base, sizeof(base), "%s", slash ? slash + 1 : path);
		dot = strrchr(base, '.');
		if (dot && !strcmp(dot, ".json"))
			*dot = '\0';
		if ((size_t)snprintf(c->vbus_t.file, sizeof(c->vbus_t.file), "%s.vbus_t.csv", base) >=
		    sizeof(c->vbus_t.file))
			snprintf(c->vbus_t.file, sizeof(c->vbus_t.file), "vbus_t.csv");
	}
	measured = bn_import_measured(r, o, utc);
	if (!measured) {
		free(c);
		return bn_err_set(err, BN_ERR_NOMEM, "out of memory");
	}
	rc = bn_charger_write(path, c, measured, err);
	cJSON_Delete(measured);
	free(c);
	return rc;
}
