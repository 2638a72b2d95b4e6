/* curve import's output: the charger profile (bcbench-charger/2) and its
 * "measured" block. */
#include "curve/import.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/file.h"
#include "core/json.h"
#include "report/report.h"

#define CHARGER_SCHEMA "bcbench-charger/2"

/* A number rounded to what it means (1 uV, 1 uA, 1 us), for a diff-able file. */
static double r6(double x)
{
	return isfinite(x) ? round(x * 1e6) / 1e6 : x;
}

static cJSON *num_or_null(double x)
{
	return isfinite(x) ? cJSON_CreateNumber(r6(x)) : cJSON_CreateNull();
}

static void add_qty(cJSON *o, const char *key, double x, const char *unit)
{
	char buf[48];

	snprintf(buf, sizeof(buf), "%.6g%s", x, unit);
	cJSON_AddStringToObject(o, key, buf);
}

static cJSON *settings(const struct bn_import_opts *o, const struct bn_import *r)
{
	cJSON *s = cJSON_CreateObject();

	cJSON_AddNumberToObject(s, "bin_a", r6(o->bin_a));
	cJSON_AddNumberToObject(s, "min_samples", o->min_samples);
	cJSON_AddNumberToObject(s, "settle_s", r6(o->settle_s));
	cJSON_AddNumberToObject(s, "steady_tol_a", r6(r->tol_a));
	cJSON_AddStringToObject(s, "steady",
				"the port's current within +-steady_tol_a (a quarter bin, or 4 sigma of "
				"IBUS's noise if more) for settle_s");
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

static cJSON *points(const struct bn_import *r)
{
	cJSON *a = cJSON_CreateArray();

	for (int k = 0; k < r->n_points; k++) {
		const struct bn_import_point *p = &r->pt[k];
		cJSON *e = cJSON_CreateObject();

		cJSON_AddNumberToObject(e, "a", r6(p->i_a));
		cJSON_AddNumberToObject(e, "v", r6(p->v_v));
		cJSON_AddNumberToObject(e, "v_fit", r6(p->v_fit_v));
		cJSON_AddNumberToObject(e, "n", (double)p->n);
		cJSON_AddNumberToObject(e, "u_v", r6(p->u_v));
		cJSON_AddNumberToObject(e, "sd_v", r6(p->sd_v));
		cJSON_AddItemToArray(a, e);
	}
	return a;
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

static cJSON *knee(const struct bn_import *r)
{
	cJSON *k = cJSON_CreateObject();

	cJSON_AddNumberToObject(k, "a", r6(r->knee_a));
	cJSON_AddNumberToObject(k, "v", r6(r->knee_v));
	cJSON_AddNumberToObject(k, "at_v", r6(r->vchg_min_v));
	cJSON_AddStringToObject(k, "what", "the largest current with VBUS >= VCHG min on the fit");
	cJSON_AddBoolToObject(k, "reached", r->knee_reached);
	{
		cJSON *b = cJSON_CreateArray();

		cJSON_AddItemToArray(b, num_or_null(r->knee_lo_a));
		cJSON_AddItemToArray(b, num_or_null(r->knee_hi_a));
		cJSON_AddItemToObject(k, "between_a", b);
	}
	return k;
}

static cJSON *collapses(const struct bn_import *r)
{
	cJSON *a = cJSON_CreateArray();

	for (int k = 0; k < r->n_collapses; k++) {
		const struct bn_import_collapse *c = &r->col[k];
		cJSON *e = cJSON_CreateObject();

		cJSON_AddNumberToObject(e, "t_s", r6(c->t_s));
		cJSON_AddNumberToObject(e, "before_a", r6(c->before_a));
		cJSON_AddItemToObject(e, "held_s", c->held_s >= 0 ? cJSON_CreateNumber(r6(c->held_s))
								  : cJSON_CreateNull());
		cJSON_AddItemToObject(e, "recover_s", c->recover_s >= 0
							      ? cJSON_CreateNumber(r6(c->recover_s))
							      : cJSON_CreateNull());
		cJSON_AddBoolToObject(e, "shutdown", c->shutdown);
		if (!c->shutdown)
			cJSON_AddStringToObject(e, "why", c->why);
		cJSON_AddItemToArray(a, e);
	}
	return a;
}

cJSON *bn_import_measured(const struct bn_import *r, const struct bn_import_opts *o, const char *utc)
{
	cJSON *m = cJSON_CreateObject(), *src = cJSON_CreateObject();
	char cur[200];

	if (!m || !src) {
		cJSON_Delete(m);
		cJSON_Delete(src);
		return NULL;
	}
	cJSON_AddStringToObject(m, "by", "import");
	cJSON_AddStringToObject(m, "utc", utc);
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
	cJSON_AddStringToObject(m, "uncertainty",
				r->inst_known ? "u_v: the mean's statistical part and the record's "
						"instrument (offset, gain, step)"
					      : "u_v: the mean's statistical part only (the instrument's "
						"accuracy is not in the record)");
	cJSON_AddItemToObject(m, "settings", settings(o, r));
	{
		cJSON *n = cJSON_CreateObject();

		cJSON_AddNumberToObject(n, "vbus_v", r6(r->sigma_v));
		cJSON_AddNumberToObject(n, "ibus_a", r6(r->sigma_a));
		cJSON_AddNumberToObject(n, "steady_samples", (double)r->n_steady);
		cJSON_AddItemToObject(m, "noise", n);
	}
	cJSON_AddItemToObject(m, "points", points(r));
	cJSON_AddNumberToObject(m, "curve_dev_v", r6(r->curve_dev_v));
	cJSON_AddItemToObject(m, "uncovered", uncovered(r));
	cJSON_AddItemToObject(m, "knee", knee(r));
	cJSON_AddItemToObject(m, "collapses", collapses(r));
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

static int write_csv(const char *path, const struct bn_import_series *s, struct bn_err *err)
{
	struct bn_afile a;
	int rc = bn_afile_open(&a, path, err);

	if (rc < 0)
		return rc;
	fprintf(a.f, "t_s,v_V,i_A\n");
	for (long k = 0; k < s->n; k++)
		fprintf(a.f, "%.7f,%.6f,%.6f\n", s->t_s[k], s->v_v[k], s->i_a[k]);
	return bn_afile_commit(&a, err);
}

int bn_import_write(const char *path, const struct bn_import *r, const struct bn_import_opts *o,
		    struct bn_err *err)
{
	cJSON *root = cJSON_CreateObject(), *curve, *measured;
	char utc[40], desc[400], *text;
	int rc;

	if (!root)
		return bn_err_set(err, BN_ERR_NOMEM, "out of memory");
	bn_report_utc_now(utc, sizeof(utc));
	cJSON_AddStringToObject(root, "schema", CHARGER_SCHEMA);
	cJSON_AddStringToObject(root, "name", r->ch.name);
	snprintf(desc, sizeof(desc),
		 "Imported from %s by bcbench curve import (%s): %d steady points from %.3f A to "
		 "%.3f A at the %s.",
		 o->capture_path, utc, r->n_points, r->pt[0].i_a, r->pt[r->n_points - 1].i_a,
		 isnan(o->cable_ohm) ? "receptacle" : "charger's output");
	cJSON_AddStringToObject(root, "description", desc);
	curve = cJSON_AddArrayToObject(root, "curve");
	for (int k = 0; k < r->ch.n_points; k++) {
		cJSON *p = cJSON_CreateArray();

		cJSON_AddItemToArray(p, cJSON_CreateNumber(r6(r->ch.i_a[k])));
		cJSON_AddItemToArray(p, cJSON_CreateNumber(r6(r->ch.v_v[k])));
		cJSON_AddItemToArray(curve, p);
	}
	add_qty(root, "cable", r->ch.cable_ohm, "ohm");
	if (r->ch.rated_a > 0)
		add_qty(root, "rated", r->ch.rated_a, "A");
	if (r->ch.has_shutdown) {
		cJSON *s = cJSON_AddObjectToObject(root, "shutdown");

		add_qty(s, "above", r6(r->ch.shutdown_above_a), "A");
		add_qty(s, "after", (double)r->ch.shutdown_after_us / 1e3, "ms");
		add_qty(s, "recover", (double)r->ch.recover_us / 1e6, "s");
	}
	if (r->series.n) {
		cJSON *v = cJSON_AddObjectToObject(root, "vbus_t");

		if (r->series.n <= BN_IMPORT_INLINE_MAX) {
			cJSON *a = cJSON_AddArrayToObject(v, "samples");

			for (long k = 0; k < r->series.n; k++) {
				cJSON *p = cJSON_CreateArray();

				cJSON_AddItemToArray(p, cJSON_CreateNumber(round(r->series.t_s[k] * 1e7) / 1e7));
				cJSON_AddItemToArray(p, cJSON_CreateNumber(r6(r->series.v_v[k])));
				cJSON_AddItemToArray(p, cJSON_CreateNumber(r6(r->series.i_a[k])));
				cJSON_AddItemToArray(a, p);
			}
		} else {
			char dir[1024], base[512], csv[1600], *dot;

			snprintf(dir, sizeof(dir), "%s", path);
			snprintf(base, sizeof(base), "%s", path);
			snprintf(base, sizeof(base), "%s", basename(base));
			dot = strrchr(base, '.');
			if (dot && !strcmp(dot, ".json"))
				*dot = '\0';
			snprintf(csv, sizeof(csv), "%s/%s.vbus_t.csv", dirname(dir), base);
			rc = write_csv(csv, &r->series, err);
			if (rc < 0) {
				cJSON_Delete(root);
				return rc;
			}
			snprintf(csv, sizeof(csv), "%s.vbus_t.csv", base);
			cJSON_AddStringToObject(v, "file", csv);
		}
		add_qty(v, "r_out", r6(r->series.r_out_ohm), "ohm");
		cJSON_AddBoolToObject(v, "repeat", false);
	}
	measured = bn_import_measured(r, o, utc);
	if (!measured) {
		cJSON_Delete(root);
		return bn_err_set(err, BN_ERR_NOMEM, "out of memory");
	}
	cJSON_AddItemToObject(root, "measured", measured);
	text = bn_json_print(root);
	cJSON_Delete(root);
	if (!text)
		return bn_err_set(err, BN_ERR_NOMEM, "out of memory");
	rc = bn_file_write_atomic(path, text, strlen(text), err);
	free(text);
	return rc;
}
