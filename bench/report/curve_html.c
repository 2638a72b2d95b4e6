/* A charger profile's swept curve as an inline SVG: see curve_html.h. */
#include "report/curve_html.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/file.h"
#include "core/json.h"
#include "core/units.h"
#include "report/html_base.h"

#define W 640.0
#define H 300.0
#define ML 56.0  /* left margin: the volt ticks */
#define MR 16.0
#define MT 12.0
#define MB 34.0  /* bottom: the ampere ticks and the axis name */

struct axes {
	double i0, i1, v0, v1;
};

static double px(const struct axes *a, double i)
{
	return ML + (i - a->i0) / (a->i1 - a->i0) * (W - ML - MR);
}

static double py(const struct axes *a, double v)
{
	double y = MT + (a->v1 - v) / (a->v1 - a->v0) * (H - MT - MB);

	return y < MT ? MT : y > H - MB ? H - MB : y;
}

/* 1, 2 or 5 times a power of ten: about n ticks over span. */
static double tick_step(double span, int n)
{
	double raw = span / n, p = pow(10.0, floor(log10(raw))), f = raw / p;

	return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * p;
}

static void ticks(GString *s, const struct axes *a)
{
	double st = tick_step(a->i1 - a->i0, 8), sv = tick_step(a->v1 - a->v0, 6);
	char q[48];

	g_string_append(s, "<path class=\"grid\" d=\"");
	for (double i = ceil(a->i0 / st) * st; i <= a->i1 + st * 1e-9; i += st)
		g_string_append_printf(s, "M%.1f %.1fV%.1f", px(a, i), MT, H - MB);
	for (double v = ceil(a->v0 / sv) * sv; v <= a->v1 + sv * 1e-9; v += sv)
		g_string_append_printf(s, "M%.1f %.1fH%.1f", ML, py(a, v), W - MR);
	g_string_append(s, "\"/>\n");
	g_string_append_printf(s, "<rect class=\"axis\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>\n",
			       ML, MT, W - ML - MR, H - MT - MB);
	for (double i = ceil(a->i0 / st) * st; i <= a->i1 + st * 1e-9; i += st) {
		bn_qty_format(fabs(i) < st * 1e-9 ? 0.0 : i, "A", q, sizeof(q));
		g_string_append_printf(s, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", px(a, i),
				       H - MB + 12);
		bn_html_esc(s, q);
		g_string_append(s, "</text>\n");
	}
	for (double v = ceil(a->v0 / sv) * sv; v <= a->v1 + sv * 1e-9; v += sv) {
		bn_qty_format(fabs(v) < sv * 1e-9 ? 0.0 : v, "V", q, sizeof(q));
		g_string_append_printf(s, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", ML - 4,
				       py(a, v) + 3);
		bn_html_esc(s, q);
		g_string_append(s, "</text>\n");
	}
	g_string_append_printf(s, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">load current</text>\n",
			       (ML + W - MR) / 2, H - 4);
	g_string_append_printf(s, "<text x=\"12\" y=\"%.1f\" transform=\"rotate(-90 12 %.1f)\" "
			       "text-anchor=\"middle\">VBUS</text>\n", (MT + H - MB) / 2, (MT + H - MB) / 2);
}

static void band(GString *s, const struct axes *a, double lo, double hi)
{
	if (!isfinite(lo) || !isfinite(hi))
		return;
	g_string_append_printf(s, "<g class=\"band\" data-band=\"VCHG\" data-lo=\"%.6g\" data-hi=\"%.6g\">"
			       "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>"
			       "<text x=\"%.1f\" y=\"%.1f\">VCHG</text></g>\n",
			       lo, hi, ML, py(a, hi), W - ML - MR, py(a, lo) - py(a, hi), ML + 4,
			       py(a, hi) + 10);
}

/* How the points were taken: a sweep's steps, an import's bins. */
static void how_taken(GString *s, const cJSON *m)
{
	const cJSON *set = bn_jget(m, "settings"), *ins = bn_jget(m, "instruments");
	const char *by = bn_jstr(m, "by");

	if (by && !strcmp(by, "import")) {
		const char *cap = bn_jstr(bn_jget(m, "source"), "capture");

		bn_html_escf(s, "Binned every %.4g A from capture %s, at least %d steady samples a "
			     "bin (steady for %.4g s); bars: 2u of each mean.", bn_jnum(set, "bin_a"),
			     cap ? cap : "–", (int)bn_jnum(set, "min_samples"), bn_jnum(set, "settle_s"));
		return;
	}
	bn_html_escf(s, "Steps of %.4g A from %.4g A to %.4g A, %.4g s each, averaged after %.4g s; "
		     "bars: 2u of each mean. Load: %s; fixture: %s.", bn_jnum(set, "step_a"),
		     bn_jnum(set, "from_a"), bn_jnum(set, "to_a"), bn_jnum(set, "dwell_s"),
		     bn_jnum(set, "settle_s"), bn_jstr(ins, "load") ? bn_jstr(ins, "load") : "–",
		     bn_jstr(ins, "fixture") ? bn_jstr(ins, "fixture") : "–");
}

/* The caption's facts: how it ended and where it was measured. */
static void caption(GString *s, const cJSON *m, const char *name, int n)
{
	const char *how = cJSON_IsTrue(bn_jget(m, "complete")) ? bn_jstr(m, "end") : bn_jstr(m, "why");

	g_string_append(s, "<figcaption>");
	bn_html_escf(s, "Charger %s: VBUS against the load's current, %d point%s (%s by %s%s)", name, n,
		     n == 1 ? "" : "s", bn_jstr(m, "utc") ? bn_jstr(m, "utc") : "time not recorded",
		     bn_jstr(m, "by") ? bn_jstr(m, "by") : "?",
		     cJSON_IsFalse(bn_jget(m, "complete")) ? ", CUT SHORT" : "");
	g_string_append(s, "</figcaption>\n<p class=\"how\">");
	if (how) {
		bn_html_esc(s, how);
		g_string_append(s, ". ");
	}
	how_taken(s, m);
	if (bn_jstr(m, "uncertainty")) {
		g_string_append(s, " ");
		bn_html_esc(s, bn_jstr(m, "uncertainty"));
		g_string_append(s, ".");
	}
	g_string_append(s, "</p>\n");
}

int bn_curve_html(GString *out, const char *profile_path)
{
	cJSON *root = NULL;
	struct bn_err err = { 0 };
	const cJSON *m, *p, *vchg, *knee, *sd, *col;
	const char *name;
	struct axes a = { 0.0, 0.0, 0.0, 0.0 };
	int n = 0;
	GString *s;

	if (!profile_path || bn_json_load(profile_path, &root, &err) < 0)
		return 0;
	m = bn_jget(root, "measured");
	cJSON_ArrayForEach(p, bn_jget(m, "points")) {
		double i = bn_jnum(p, "a"), v = bn_jnum(p, "v"), u = bn_jnum(p, "u_v");

		if (!isfinite(i) || !isfinite(v))
			continue;
		a.i1 = fmax(a.i1, i);
		a.v1 = fmax(a.v1, v + 2 * (isfinite(u) ? u : 0.0));
		n++;
	}
	if (!n) {
		cJSON_Delete(root);
		return 0;
	}
	vchg = bn_jget(m, "vchg");
	knee = bn_jget(m, "knee");
	sd = bn_jget(m, "shutdown");
	cJSON_ArrayForEach(col, bn_jget(m, "collapses"))
		if (isfinite(bn_jnum(col, "at_a")))
			a.i1 = fmax(a.i1, bn_jnum(col, "at_a"));
	a.i1 = a.i1 > 0 ? a.i1 * 1.05 : 1.0;
	/* the band when the block states it, else the points alone */
	if (isfinite(bn_jnum(vchg, "max_v")))
		a.v1 = fmax(a.v1, bn_jnum(vchg, "max_v"));
	a.v1 = a.v1 > 0 ? a.v1 * 1.04 : 1.0;
	name = bn_jstr(root, "name") ? bn_jstr(root, "name") : "?";
	s = out;
	g_string_append(s, "<figure class=\"plot curve\" id=\"charger-curve\" data-profile=\"");
	bn_html_esc(s, name);
	g_string_append(s, "\" data-by=\"");
	bn_html_esc(s, bn_jstr(m, "by") ? bn_jstr(m, "by") : "");
	g_string_append_printf(s, "\" data-complete=\"%s\">\n", cJSON_IsTrue(bn_jget(m, "complete")) ?
			       "true" : "false");
	g_string_append_printf(s, "<svg class=\"curve-svg\" viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" "
			       "height=\"%.0f\" data-i0=\"%.6g\" data-i1=\"%.6g\" data-v0=\"%.6g\" "
			       "data-v1=\"%.6g\">\n", W, H, W, H, a.i0, a.i1, a.v0, a.v1);
	ticks(s, &a);
	band(s, &a, bn_jnum(vchg, "min_v"), bn_jnum(vchg, "max_v"));
	g_string_append(s, "<polyline class=\"trace\" points=\"");
	n = 0;
	cJSON_ArrayForEach(p, bn_jget(m, "points")) {
		double i = bn_jnum(p, "a"), v = bn_jnum(p, "v");

		if (isfinite(i) && isfinite(v))
			g_string_append_printf(s, "%s%.1f,%.1f", n++ ? " " : "", px(&a, i), py(&a, v));
	}
	g_string_append(s, "\"/>\n");
	cJSON_ArrayForEach(p, bn_jget(m, "points")) {
		double i = bn_jnum(p, "a"), v = bn_jnum(p, "v"), u = bn_jnum(p, "u_v");

		if (!isfinite(i) || !isfinite(v))
			continue;
		u = isfinite(u) ? u : 0.0;
		g_string_append_printf(s, "<g class=\"pt\" data-a=\"%.6g\" data-v=\"%.6g\" data-u=\"%.6g\" "
				       "data-n=\"%d\"><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
				       "stroke=\"#1f4e9c\"/><circle cx=\"%.1f\" cy=\"%.1f\" r=\"2\" "
				       "fill=\"#1f4e9c\"/></g>\n", i, v, u, (int)bn_jnum(p, "n"),
				       px(&a, i), py(&a, v + 2 * u), px(&a, i), py(&a, v - 2 * u),
				       px(&a, i), py(&a, v));
	}
	if (isfinite(bn_jnum(knee, "a"))) {
		double k = bn_jnum(knee, "a");

		g_string_append_printf(s, "<g class=\"knee\" data-a=\"%.6g\"><line x1=\"%.1f\" y1=\"%.1f\" "
				       "x2=\"%.1f\" y2=\"%.1f\" stroke=\"#b35900\" stroke-dasharray=\"4 2\"/>"
				       "<text x=\"%.1f\" y=\"%.1f\">knee %.4g A</text></g>\n", k, px(&a, k), MT,
				       px(&a, k), H - MB, px(&a, k) + 3, MT + 20, k);
	}
	if (cJSON_IsObject(sd)) {
		double ab = bn_jnum(sd, "above_a"), rs = bn_jnum(sd, "recover_s"), at = bn_jnum(sd, "at_a");
		double x = px(&a, isfinite(at) ? at : ab);

		g_string_append_printf(s, "<g class=\"shutdown\" data-above-a=\"%.6g\" data-recover-s=\"%.6g\">"
				       "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e0402a\"/>"
				       "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">shutdown above %.4g A, "
				       "back after %.4g s</text></g>\n", ab, rs, x, MT, x, H - MB, x - 3,
				       H - MB - 6, ab, rs);
	}
	g_string_append(s, "</svg>\n");
	caption(s, m, name, n);
	g_string_append(s, "</figure>\n");
	cJSON_Delete(root);
	return 1;
}

/* The record's line instead of a figure. */
static int note(GString *out, const char *fmt, ...)
{
	char buf[1400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	g_string_append(out, "<p class=\"curve-note\" id=\"charger-profile-note\">No charger curve: ");
	bn_html_esc(out, buf);
	g_string_append(out, "</p>\n");
	return 2;
}

int bn_curve_html_record(GString *out, const char *record_dir, const char *path,
			 const char *want_sha256)
{
	char full[1200], got[65];
	struct bn_err err = { 0 };

	if (!path || !path[0])
		return 0;
	/* absolute as it is; a relative one beside the record, else as the
	 * run named it (a run records its profiles as it found them, from
	 * its own directory): either is taken only with the record's hash,
	 * so another directory never shows another curve */
	if (path[0] == '/' || !record_dir)
		snprintf(full, sizeof(full), "%s", path);
	else
		snprintf(full, sizeof(full), "%s/%s", record_dir, path);
	if (access(full, R_OK) != 0 && path[0] != '/')
		snprintf(full, sizeof(full), "%s", path);
	if (access(full, R_OK) != 0)
		return note(out, "the charger profile %s is not there.", path);
	if (!want_sha256 || !want_sha256[0])
		return note(out, "the record holds no SHA-256 of the charger profile %s: its curve "
			    "could be another's.", path);
	if (bn_file_sha256(full, got, &err) < 0)
		return note(out, "the charger profile %s could not be read.", path);
	if (strcmp(got, want_sha256))
		return note(out, "the charger profile %s has SHA-256 %s, the record says %s: it is not "
			    "the profile this run used.", path, got, want_sha256);
	return bn_curve_html(out, full);
}
