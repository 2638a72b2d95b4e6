/* curve import: each shipped sim charger is captured on the simulated
 * bench (the reference firmware's ramp plus an e-load staircase up past
 * the curve's end and back down), imported, and compared with the
 * charger's own curve; the same under realistic measurement; a lab-named
 * capture through a map; bad input; the fit's numerics.
 *
 * Tolerances (stated in docs/power-curves.md "## Import"):
 * - clean: each point's fitted VBUS lies within the original's range over
 *   the currents its bin held (a bin's mean of a falling curve can lie
 *   nowhere else), +-2 mV; the written curve (<= 32 points) within that
 *   plus its stated simplification error.
 * - realistic (profiles/conditions/realistic.json: 10 mV noise, 10 mV
 *   offset, 0.5 % gain, 12 bits on VBUS; 2 mA, 0.5 % on IBUS): the range
 *   over the bin's currents widened by 0.6 % + 2 mA, then +-45 mV (the
 *   offset and gain make 35.5 mV at 5.1 V), and each u_v holds them.
 * - knee: within the covered points around it, plus one bin.
 * - dcp-shutdown-1a2: a shutdown seen with the current before it in
 *   (1.2 A, 1.2 A + one ramp step + one load step], recovery 1 s +- 2 ms,
 *   the profile's threshold within 100 mA below 1.2 A. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture/srzip_read.h"
#include "capture/srzip_write.h"
#include "core/conditions.h"
#include "core/file.h"
#include "core/json.h"
#include "curve/import.h"
#include "curve/measured.h"
#include "core/limits.h"
#include "lib/harness.h"
#include "report/curve_html.h"
#include "report/report.h"
#include "scenario/runner.h"
#include "sim/charger.h"

#define STEP_A 0.025
#define RAMP_STEP_A 0.064

static char tmpdir[256];

static int setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/bn_test_import_XXXXXX");
	if (bn_test_setup_limits(state) < 0)
		return -1;
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[400];

	bn_test_teardown_limits(state);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static void load_charger(const char *name, struct bn_charger *c)
{
	char path[1024];
	struct bn_err err = { 0 };

	snprintf(path, sizeof(path), "%s/profiles/chargers/%s.json", bn_test_srcdir(), name);
	if (bn_charger_load(path, c, &err) < 0)
		fail_msg("%s", err.msg);
}

/* A capture of charger name into dir: the reference firmware on a DCP
 * ramps, then the e-load steps up by STEP_A every 60 ms to past the
 * curve's last point and back down. */
static void capture_file(const char *chg_path, const struct bn_conditions *cond, const char *dir)
{
	char scn[512], chg[1024];
	struct bn_charger c;
	struct bn_report rep;
	struct bn_err err = { 0 };
	struct bn_run_opts o = { 0 };
	const char *name = chg_path;
	FILE *f;
	int top;

	if (bn_charger_load(chg_path, &c, &err) < 0)
		fail_msg("%s", err.msg);
	top = (int)ceil((c.i_a[c.n_points - 1] + 0.1) / STEP_A);
	snprintf(scn, sizeof(scn), "%s/%s.scn", tmpdir, dir);
	snprintf(chg, sizeof(chg), "%s", chg_path);
	f = fopen(scn, "w");
	assert_non_null(f);
	fprintf(f, "name \"import %s\"\nport dcp\ncharger \"%s\"\ncapture vbus ibus at 10kHz\n"
		   "vbus on\nwait 2s\n", name, chg);
	for (int k = 1; k <= top; k++)
		fprintf(f, "load %.0fmA\nwait 60ms\n", k * STEP_A * 1e3);
	for (int k = top - 1; k >= 0; k--)
		fprintf(f, "load %.0fmA\nwait 60ms\n", k * STEP_A * 1e3);
	fprintf(f, "load off\nwait 500ms\n");
	fclose(f);
	snprintf(chg, sizeof(chg), "%s/%s", tmpdir, dir);
	o.scenario_path = scn;
	o.datadir = bn_test_srcdir();
	o.out_dir = chg;
	o.conditions = cond;
	bn_report_init(&rep);
	if (bn_run_scenario(&o, &rep, &err) != BN_OK)
		fail_msg("%s: %s", name, err.msg);
	assert_int_equal(rep.status, BN_RUN_COMPLETED);
	bn_report_free(&rep);
}

static void capture(const char *name, const struct bn_conditions *cond, const char *dir)
{
	char chg[1024];

	snprintf(chg, sizeof(chg), "%s/profiles/chargers/%s.json", bn_test_srcdir(), name);
	capture_file(chg, cond, dir);
}

static void import_dir(const char *dir, const char *map, const char *capname, struct bn_import *r)
{
	static char cap[600], ev[600], lim[1024];
	struct bn_import_opts o;
	struct bn_err err = { 0 };

	bn_import_opts_default(&o);
	snprintf(cap, sizeof(cap), "%s/%s/%s", tmpdir, dir, capname);
	snprintf(ev, sizeof(ev), "%s/%s/events.json", tmpdir, dir);
	bn_test_path("profiles/limits/bc12.json", lim, sizeof(lim));
	o.capture_path = cap;
	o.events_path = ev;
	o.limits_path = lim;
	o.map = map;
	o.name = dir;
	if (bn_curve_import(&o, r, &err) != BN_OK)
		fail_msg("%s: %s", dir, err.msg);
}

/* The original's receptacle VBUS over [lo, hi]: its range. */
static void orig_range(const struct bn_charger *c, double lo, double hi, double *vmin, double *vmax)
{
	*vmin = INFINITY;
	*vmax = -INFINITY;
	for (int k = 0; k <= 200; k++) {
		double v = bn_charger_vbus(c, NULL, lo + (hi - lo) * k / 200.0);

		*vmin = fmin(*vmin, v);
		*vmax = fmax(*vmax, v);
	}
}

struct figures {
	double worst_v;      /* largest distance outside the bracket */
	double knee_err_a;
};

static void compare_tol(const char *name, const struct bn_import *r, const struct bn_charger *c,
			bool realistic, double clean_tol_v, struct figures *fig)
{
	double v_knee = 4.75, knee = bn_charger_i_at_v(c, v_knee);

	fig->worst_v = 0.0;
	assert_true(r->n_points >= 5);
	for (int k = 0; k < r->n_points; k++) {
		const struct bn_import_point *p = &r->pt[k];
		double lo = p->i_lo_a, hi = p->i_hi_a, vmin, vmax, tol, d, dc, vw;

		if (realistic) {
			/* the instrument's own errors (10 mV offset, 0.5 % gain:
			 * 35.5 mV at 5.1 V) plus 10 mV; u_v carries them as
			 * rectangular bounds from the record */
			lo = lo * (1 - 0.006) - 0.002;
			hi = hi * (1 + 0.006) + 0.002;
			tol = 0.045;
			assert_true(p->u_v >= 0.010 / sqrt(3.0));
		} else {
			tol = clean_tol_v;
		}
		orig_range(c, fmax(lo, 0), hi, &vmin, &vmax);
		d = fmax(vmin - p->v_fit_v, p->v_fit_v - vmax);
		vw = bn_charger_vbus(&r->ch, NULL, p->i_a);
		dc = fmax(vmin - vw, vw - vmax);
		fig->worst_v = fmax(fig->worst_v, d);
		if (d > tol || dc > tol + r->curve_dev_v)
			fail_msg("%s: point %d at %.4f A (%.4f..%.4f A, n %ld): fit %.4f V, written %.4f V, "
				 "original %.4f..%.4f V (+-%.3f V)",
				 name, k, p->i_a, p->i_lo_a, p->i_hi_a, p->n, p->v_fit_v,
				 bn_charger_vbus(&r->ch, NULL, p->i_a), vmin, vmax, tol);
	}
	/* the uncovered ranges are where no point is, and up to what was drawn */
	for (int u = 0; u < r->n_uncovered; u++)
		for (int k = 0; k < r->n_points; k++)
			assert_false(r->pt[k].i_a > r->unc[u].from_a + 1e-9 &&
				     r->pt[k].i_a < r->unc[u].to_a - 1e-9);
	fig->knee_err_a = NAN;
	if (r->knee_reached) {
		double span = r->knee_hi_a - r->knee_lo_a;

		double tol = span + STEP_A;

		/* a VBUS error moves the knee by itself over the slope there */
		if (realistic) {
			double slope = (bn_charger_vbus(c, NULL, knee - 0.01) -
					bn_charger_vbus(c, NULL, knee + 0.01)) / 0.02;

			tol += 0.045 / fmax(fabs(slope), 1e-3);
		}
		fig->knee_err_a = r->knee_a - knee;
		if (fabs(r->knee_a - knee) > tol)
			fail_msg("%s: knee %.4f A (between %.4f and %.4f), original %.4f A (+-%.3f A)",
				 name, r->knee_a, r->knee_lo_a, r->knee_hi_a, knee, tol);
		/* the staircase covers the knee closely */
		assert_true(span <= 3 * STEP_A + (realistic ? 0.02 : 0));
	} else {
		/* not reached: the original's knee is past the last covered point */
		assert_true(knee >= r->pt[r->n_points - 1].i_a - STEP_A);
	}
	print_message("%-17s %s: %2d points, %2d uncovered, worst %.1f mV off the original's "
		      "bracket, knee %.4f A (orig %.4f, %s), vbus_t %ld\n",
		      name, realistic ? "realistic" : "clean    ", r->n_points, r->n_uncovered,
		      fig->worst_v * 1e3, r->knee_a, knee, r->knee_reached ? "reached" : "not reached",
		      r->series.n);
}

static int count_of(const char *s, const char *what)
{
	int n = 0;

	for (const char *p = strstr(s, what); p; p = strstr(p + 1, what))
		n++;
	return n;
}

/* The profile as written reads back as the import's charger, with its
 * measured block. */
static void write_and_load(const char *name, const struct bn_import *r)
{
	struct bn_import_opts o;
	struct bn_charger *c = malloc(sizeof(*c));
	struct bn_err err = { 0 };
	char path[600], lim[1024];
	cJSON *m = NULL;

	assert_non_null(c);
	bn_import_opts_default(&o);
	bn_test_path("profiles/limits/bc12.json", lim, sizeof(lim));
	o.capture_path = "capture.sr";
	o.limits_path = lim;
	snprintf(path, sizeof(path), "%s/%s.json", tmpdir, name);
	if (bn_import_write(path, r, &o, &err) != BN_OK)
		fail_msg("%s", err.msg);
	if (bn_charger_load(path, c, &err) != BN_OK)
		fail_msg("%s", err.msg);
	assert_int_equal(c->n_points, r->ch.n_points);
	for (int k = 0; k < c->n_points; k++) {
		if (c->i_a[k] != r->ch.i_a[k] || c->v_v[k] != r->ch.v_v[k])
			fail_msg("%s: point %d: %.17g %.17g read back as %.17g %.17g", name, k,
				 r->ch.i_a[k], r->ch.v_v[k], c->i_a[k], c->v_v[k]);
	}
	assert_int_equal(c->has_shutdown, r->ch.has_shutdown);
	assert_int_equal(c->vbus_t.n, r->ch.vbus_t.n);
	assert_int_equal(c->compliant, -1);
	assert_true(c->has_measured);
	assert_int_equal(bn_charger_load_measured(path, &m, &err), BN_OK);
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(m, "by")->valuestring, "import");
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(m, "points")),
			 r->n_points);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(m, "uncovered")),
			 r->n_uncovered);
	/* the keys a sweep writes too (curve/measured.h) */
	{
		const cJSON *k = bn_jget(m, "knee"), *v = bn_jget(m, "vchg");
		double want = bn_profile_knee(c, bn_limits_min(&bn_test_lim, "VCHG"), NULL);

		assert_true(cJSON_IsBool(bn_jget(m, "complete")));
		assert_non_null(bn_jstr(m, "utc"));
		assert_near(bn_jnum(v, "min_v"), bn_limits_min(&bn_test_lim, "VCHG"), 1e-12);
		assert_near(bn_jnum(v, "max_v"), bn_limits_max(&bn_test_lim, "VCHG"), 1e-12);
		assert_string_equal(bn_jstr(k, "limit"), "VCHG min");
		assert_true(cJSON_IsBool(bn_jget(k, "at_least")));
		/* one knee: the profile's, as written and read back */
		if (isfinite(want))
			assert_near(bn_jnum(k, "a"), want, 1e-6);
		assert_true(cJSON_IsArray(bn_jget(m, "collapses")));
		assert_non_null(strstr(bn_jstr(m, "uncertainty"), "u_v"));
	}
	/* report.html's figure of an imported profile: the VCHG band from
	 * the block, the import's own caption, no number left unknown */
	{
		GString *g = g_string_new("");
		char band[96];

		assert_int_equal(bn_curve_html(g, path), 1);
		snprintf(band, sizeof(band), "data-band=\"VCHG\" data-lo=\"%.6g\" data-hi=\"%.6g\"",
			 bn_limits_min(&bn_test_lim, "VCHG"), bn_limits_max(&bn_test_lim, "VCHG"));
		if (!strstr(g->str, band))
			fail_msg("%s: no VCHG band in the figure", name);
		assert_non_null(strstr(g->str, "data-by=\"import\""));
		assert_non_null(strstr(g->str, "Binned every"));
		if (strstr(g->str, "nan"))
			fail_msg("%s: the figure says nan: %s", name, strstr(g->str, "nan") - 40);
		assert_int_equal(count_of(g->str, "<g class=\"pt\""), r->n_points);
		g_string_free(g, TRUE);
	}
	cJSON_Delete(m);
	free(c);
}

static void compare(const char *name, const struct bn_import *r, const struct bn_charger *c,
		    bool realistic, struct figures *fig)
{
	compare_tol(name, r, c, realistic, 0.002, fig);
}

static const char *const chargers[] = { "cdp-1a5", "dcp-1a", "dcp-shutdown-1a2", "dcp-soft-fold",
					"dcp-weak", "dcp-weak-cap", "host-500ma", "ideal-5a" };

static void check_shutdown(const struct bn_import *r, bool want)
{
	int n_sd = 0;
	double first = INFINITY;

	for (int k = 0; k < r->n_collapses; k++) {
		const struct bn_import_collapse *c = &r->col[k];

		if (!c->shutdown)
			continue;
		n_sd++;
		/* never at or below the threshold; again and again above it as
		 * the staircase climbs during the second it is off */
		if (!(c->before_a > 1.2))
			fail_msg("shutdown at %.3f s: %.4f A before it", c->t_s, c->before_a);
		first = fmin(first, c->before_a);
		/* off for 1 s, or a whole number of them: back into the
		 * overload it may trip again before a sample sees it on */
		if (c->recover_s >= 0 &&
		    !(fabs(c->recover_s - round(c->recover_s)) < 0.002 + 0.006 * round(c->recover_s) &&
		      c->recover_s > 0.998))
			fail_msg("shutdown at %.3f s: back after %.4f s", c->t_s, c->recover_s);
	}
	if (!want) {
		assert_int_equal(n_sd, 0);
		assert_false(r->ch.has_shutdown);
		return;
	}
	assert_true(n_sd >= 1);
	if (!(first <= 1.2 + RAMP_STEP_A + STEP_A + 0.003))
		fail_msg("the lowest current a shutdown came at: %.4f A", first);
	assert_true(r->ch.has_shutdown);
	assert_true(r->ch.shutdown_above_a <= 1.2 + 1e-6 && r->ch.shutdown_above_a >= 1.1);
	assert_near((double)r->ch.recover_us / 1e6, 1.0, 0.002);
	/* the static curve cannot explain VBUS at 0 while 1.2 A was asked */
	assert_true(r->series.n >= 2);
	print_message("dcp-shutdown-1a2: %d shutdowns, threshold %.4f A, after %.1f ms, recover %.4f s\n",
		      n_sd, r->ch.shutdown_above_a, r->ch.shutdown_after_us / 1e3,
		      r->ch.recover_us / 1e6);
}

static void test_import__every_shipped_charger(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(chargers) / sizeof(chargers[0]); i++) {
		struct bn_charger c;
		struct bn_import r;
		struct figures fig;

		load_charger(chargers[i], &c);
		capture(chargers[i], NULL, chargers[i]);
		import_dir(chargers[i], NULL, "capture.sr", &r);
		assert_true(r.used_load);
		compare(chargers[i], &r, &c, false, &fig);
		check_shutdown(&r, !strcmp(chargers[i], "dcp-shutdown-1a2"));
		write_and_load(chargers[i], &r);
		/* the clean static model leaves nothing unexplained but shutdowns */
		if (strcmp(chargers[i], "dcp-shutdown-1a2") && strcmp(chargers[i], "dcp-weak-cap"))
			assert_int_equal(r.series.n, 0);
		bn_import_free(&r);
	}
}

/* A charger whose regulation loop is slow (dcp-1a with a 0.8 ohm, 15 ms
 * transient): VBUS still moving after a step is not the static curve
 * (a sample counts once VBUS moved no more than 5 mV over the settle
 * time: what remains of the transient then is 5 mV / (1 - e^(-20/15)),
 * under 7 mV), and the transients are what the curve cannot explain. */
static void test_import__slow_regulation_loop(void **state)
{
	char path[600];
	struct bn_charger c;
	struct bn_import r;
	struct figures fig;
	FILE *f;

	(void)state;
	load_charger("dcp-1a", &c);
	snprintf(path, sizeof(path), "%s/dcp-1a-slow.json", tmpdir);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "{ \"schema\": \"bcbench-charger/2\", \"name\": \"dcp-1a-slow\", \"curve\": [");
	for (int k = 0; k < c.n_points; k++)
		fprintf(f, "%s[%.17g, %.17g]", k ? ", " : "", c.i_a[k], c.v_v[k]);
	fprintf(f, "], \"cable\": \"0.1ohm\",\n"
		   "\"transient\": { \"r\": \"0.8ohm\", \"tau\": \"15ms\" } }\n");
	fclose(f);
	capture_file(path, NULL, "slow");
	import_dir("slow", NULL, "capture.sr", &r);
	compare_tol("dcp-1a-slow", &r, &c, false, 0.007, &fig);
	check_shutdown(&r, false);
	assert_true(r.series.n >= 2);
	assert_true(r.series.unexplained > 1000);
	/* the series in a CSV file beside the profile, read back whole */
	{
		struct bn_import_opts o;
		struct bn_charger *back = malloc(sizeof(*back));
		struct bn_err err = { 0 };
		char lim[1024], csv[700];

		assert_non_null(back);
		bn_import_opts_default(&o);
		bn_test_path("profiles/limits/bc12.json", lim, sizeof(lim));
		o.capture_path = "capture.sr";
		o.limits_path = lim;
		o.inline_max = 10;
		snprintf(path, sizeof(path), "%s/slow-imported.json", tmpdir);
		snprintf(csv, sizeof(csv), "%s/slow-imported.vbus_t.csv", tmpdir);
		if (bn_import_write(path, &r, &o, &err) != BN_OK)
			fail_msg("%s", err.msg);
		assert_int_equal(access(csv, R_OK), 0);
		if (bn_charger_load(path, back, &err) != BN_OK)
			fail_msg("%s", err.msg);
		assert_string_equal(back->vbus_t.file, "slow-imported.vbus_t.csv");
		assert_int_equal(back->vbus_t.n, r.ch.vbus_t.n);
		for (int k = 0; k < back->vbus_t.n; k++) {
			assert_true(back->vbus_t.t_s[k] == r.ch.vbus_t.t_s[k]);
			assert_true(back->vbus_t.v_v[k] == r.ch.vbus_t.v_v[k]);
			assert_true(back->vbus_t.i_a[k] == r.ch.vbus_t.i_a[k]);
		}
		assert_true(back->vbus_t.r_out_ohm == r.ch.vbus_t.r_out_ohm);
		free(back);
	}
	bn_import_free(&r);
}

static void test_import__realistic_measurement(void **state)
{
	struct bn_conditions cond;
	struct bn_err err = { 0 };
	char path[1024];

	(void)state;
	bn_test_path("profiles/conditions/realistic.json", path, sizeof(path));
	assert_int_equal(bn_conditions_load(path, &cond, &err), BN_OK);
	for (size_t i = 0; i < sizeof(chargers) / sizeof(chargers[0]); i++) {
		struct bn_charger c;
		struct bn_import r;
		struct figures fig;
		char dir[96];

		snprintf(dir, sizeof(dir), "real-%s", chargers[i]);
		load_charger(chargers[i], &c);
		capture(chargers[i], &cond, dir);
		import_dir(dir, NULL, "capture.sr", &r);
		assert_true(r.sigma_v > 0.005 && r.sigma_v < 0.02);
		compare(dir, &r, &c, true, &fig);
		if (!strcmp(chargers[i], "dcp-shutdown-1a2"))
			check_shutdown(&r, true);
		write_and_load(dir, &r);
		/* noise alone is not something the curve fails to explain */
		if (!strcmp(chargers[i], "dcp-1a") || !strcmp(chargers[i], "ideal-5a"))
			assert_int_equal(r.series.n, 0);
		bn_import_free(&r);
	}
}

/* The dcp-1a capture renamed as a lab's: CH1 for VBUS, CH2 the volts
 * across a 0.1 ohm shunt, no units in the file. */
static void test_import__lab_capture_through_a_map(void **state)
{
	char in[600], out[600];
	struct bn_srr *rd;
	struct bn_srw *w;
	struct bn_srw_opts wo = { .n_ch = 2, .names = { "CH1", "CH2" } };
	struct bn_err err = { 0 };
	struct bn_import a, b;
	float v[2][4096];
	float *cols[2] = { v[0], v[1] };
	int sel[2];
	long n;

	(void)state;
	capture("dcp-1a", NULL, "lab");
	snprintf(in, sizeof(in), "%s/lab/capture.sr", tmpdir);
	snprintf(out, sizeof(out), "%s/lab/lab.sr", tmpdir);
	assert_int_equal(bn_srr_open(in, &rd, &err), BN_OK);
	sel[0] = bn_srr_find(rd, "VBUS");
	sel[1] = bn_srr_find(rd, "IBUS");
	assert_int_equal(bn_srr_select(rd, 2, sel, &err), BN_OK);
	wo.rate_hz = bn_srr_info(rd)->rate_hz;
	assert_int_equal(bn_srw_open(out, &wo, &w, &err), BN_OK);
	while ((n = bn_srr_read_cols(rd, cols, 4096, &err)) > 0)
		for (long k = 0; k < n; k++) {
			double f[2] = { v[0][k], v[1][k] * 0.1 };

			assert_int_equal(bn_srw_frame(w, f), BN_OK);
		}
	assert_int_equal(n, 0);
	bn_srr_close(rd);
	assert_int_equal(bn_srw_close(w, &err), BN_OK);

	/* without the map: IBUS is missing, named */
	{
		struct bn_import_opts o;
		char lim[1024];

		bn_import_opts_default(&o);
		bn_test_path("profiles/limits/bc12.json", lim, sizeof(lim));
		o.capture_path = out;
		o.limits_path = lim;
		assert_int_equal(bn_curve_import(&o, &a, &err), BN_ERR_DATA);
		assert_msg_has(&err, "lab.sr");
		assert_msg_has(&err, "no VBUS channel");
		assert_msg_has(&err, "CH1, CH2");
	}
	import_dir("lab", NULL, "capture.sr", &a);
	import_dir("lab", "VBUS=CH1,IBUS=CH2:shunt=0.1", "lab.sr", &b);
	assert_string_equal(b.chan_src[0], "CH1");
	assert_string_equal(b.chan_src[1], "CH2");
	assert_near(b.shunt_ohm, 0.1, 1e-12);
	assert_int_equal(a.n_points, b.n_points);
	for (int k = 0; k < a.n_points; k++) {
		/* float32 of the shunt's volts, read back: a few uA */
		assert_near(a.pt[k].i_a, b.pt[k].i_a, 1e-5);
		assert_near(a.pt[k].v_fit_v, b.pt[k].v_fit_v, 1e-6);
		assert_int_equal(a.pt[k].n, b.pt[k].n);
	}
	assert_near(a.knee_a, b.knee_a, 1e-4);
	bn_import_free(&a);
	bn_import_free(&b);
}

static void write_sr(const char *path, int n_ch, const char *const *names, long frames,
		     void (*gen)(long k, double *v))
{
	struct bn_srw_opts o = { .rate_hz = 10e3, .n_ch = n_ch };
	struct bn_srw *w;
	struct bn_err err = { 0 };
	double v[BN_SRW_MAX_CH] = { 0 };

	for (int c = 0; c < n_ch; c++)
		o.names[c] = names[c];
	assert_int_equal(bn_srw_open(path, &o, &w, &err), BN_OK);
	for (long k = 0; k < frames; k++) {
		gen(k, v);
		assert_int_equal(bn_srw_frame(w, v), BN_OK);
	}
	assert_int_equal(bn_srw_close(w, &err), BN_OK);
}

static void gen_flat(long k, double *v)
{
	(void)k;
	v[0] = 5.0;
	v[1] = 0.5;
}

/* A current that never holds: it climbs 0.1 mA every sample, a quarter
 * bin in 6.25 ms, less than the settle time. */
static void gen_jumpy(long k, double *v)
{
	v[1] = 0.1 + 1e-4 * (double)k;
	v[0] = 5.0 - 0.1 * v[1];
}

static void gen_two_levels(long k, double *v)
{
	v[0] = k < 5000 ? 5.0 : 4.9;
	v[1] = k < 5000 ? 0.2 : 0.8;
}

/* two levels with a gap the instrument left (NaN) */
static void gen_two_levels_gap(long k, double *v)
{
	gen_two_levels(k, v);
	if (k == 2500)
		v[0] = v[1] = NAN;
}

/* two levels and one absurd reading of the current */
static void gen_two_levels_spike(long k, double *v)
{
	gen_two_levels(k, v);
	if (k == 2500)
		v[1] = 1e9;
}

static int import_file(const char *path, struct bn_import *r, struct bn_err *err)
{
	struct bn_import_opts o;
	char lim[1024];

	bn_import_opts_default(&o);
	bn_test_path("profiles/limits/bc12.json", lim, sizeof(lim));
	o.capture_path = path;
	o.limits_path = lim;
	return bn_curve_import(&o, r, err);
}

static void test_import__bad_input_names_the_file_and_what_is_missing(void **state)
{
	static const char *const vbus_only[] = { "VBUS" };
	static const char *const both[] = { "VBUS", "IBUS" };
	char path[600];
	struct bn_import r;
	struct bn_err err = { 0 };

	(void)state;
	snprintf(path, sizeof(path), "%s/vbus-only.sr", tmpdir);
	write_sr(path, 1, vbus_only, 20000, gen_flat);
	assert_int_equal(import_file(path, &r, &err), BN_ERR_DATA);
	assert_msg_has(&err, "vbus-only.sr");
	assert_msg_has(&err, "no IBUS channel");
	assert_int_equal(bn_err_exit_code(BN_ERR_DATA), 2);

	bn_err_clear(&err);
	snprintf(path, sizeof(path), "%s/short.sr", tmpdir);
	write_sr(path, 2, both, 10, gen_flat);
	assert_int_equal(import_file(path, &r, &err), BN_ERR_DATA);
	assert_msg_has(&err, "short.sr");
	assert_msg_has(&err, "too short");

	bn_err_clear(&err);
	snprintf(path, sizeof(path), "%s/jumpy.sr", tmpdir);
	write_sr(path, 2, both, 20000, gen_jumpy);
	assert_int_equal(import_file(path, &r, &err), BN_ERR_DATA);
	assert_msg_has(&err, "jumpy.sr");
	assert_msg_has(&err, "nothing steady");

	bn_err_clear(&err);
	snprintf(path, sizeof(path), "%s/flat.sr", tmpdir);
	write_sr(path, 2, both, 20000, gen_flat);
	assert_int_equal(import_file(path, &r, &err), BN_ERR_DATA);
	assert_msg_has(&err, "only one steady current level");

	/* two levels make a curve, without events: IBUS alone */
	bn_err_clear(&err);
	snprintf(path, sizeof(path), "%s/two.sr", tmpdir);
	write_sr(path, 2, both, 10000, gen_two_levels);
	if (import_file(path, &r, &err) != BN_OK)
		fail_msg("%s", err.msg);
	assert_false(r.used_load);
	assert_int_equal(r.n_points, 2);
	assert_near(r.pt[0].i_a, 0.2, 1e-6);
	assert_near(r.pt[1].v_v, 4.9, 1e-6);
	/* 25 mA bins up to 0.8 A: all but the two held are uncovered, not reached */
	assert_int_equal(r.n_uncovered, 2);
	assert_near(r.unc[0].from_a, 0.0, 1e-9);
	assert_near(r.unc[0].to_a, 0.1875, 1e-9); /* bins centred on multiples of 25 mA */
	assert_false(r.unc[0].reached);
	/* 4.9 V at 0.8 A is above VCHG min: the knee is not reached */
	assert_false(r.knee_reached);
	bn_import_free(&r);

	/* a gap in the samples is skipped, not a point */
	snprintf(path, sizeof(path), "%s/gap.sr", tmpdir);
	write_sr(path, 2, both, 10000, gen_two_levels_gap);
	if (import_file(path, &r, &err) != BN_OK)
		fail_msg("%s", err.msg);
	assert_int_equal(r.n_points, 2);
	assert_near(r.pt[0].v_v, 5.0, 1e-6);
	bn_import_free(&r);

	/* one absurd current: refused, saying where the bins would go */
	bn_err_clear(&err);
	snprintf(path, sizeof(path), "%s/spike.sr", tmpdir);
	write_sr(path, 2, both, 10000, gen_two_levels_spike);
	assert_int_equal(import_file(path, &r, &err), BN_ERR_DATA);
	assert_msg_has(&err, "spike.sr");
	assert_msg_has(&err, "the largest current the capture draws");
}

static void test_import__pava(void **state)
{
	double v[] = { 5.0, 5.1, 4.9, 4.95, 4.5 };
	double w[] = { 1, 1, 1, 3, 1 };

	(void)state;
	bn_import_pava(v, w, 5);
	assert_near(v[0], 5.05, 1e-12);
	assert_near(v[1], 5.05, 1e-12);
	assert_near(v[2], (4.9 + 3 * 4.95) / 4, 1e-12);
	assert_near(v[3], (4.9 + 3 * 4.95) / 4, 1e-12);
	assert_near(v[4], 4.5, 1e-12);
}

static void test_import__rdp(void **state)
{
	double x[] = { 0, 1, 2, 3, 4, 5 };
	double y[] = { 0, 0.001, 0.0, 1.0, 1.0005, 1.0 };
	const double *ys[1] = { y };
	double tol = 0.002;
	unsigned char keep[6];

	(void)state;
	/* the step survives, the 1 mV wiggles do not */
	assert_int_equal(bn_import_rdp(x, ys, &tol, 1, 6, keep), 4);
	assert_true(keep[0] && keep[2] && keep[3] && keep[5]);
	assert_false(keep[1] || keep[4]);
	tol = 0.0001;
	assert_int_equal(bn_import_rdp(x, ys, &tol, 1, 6, keep), 6);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_import__pava),
		cmocka_unit_test(test_import__rdp),
		cmocka_unit_test(test_import__bad_input_names_the_file_and_what_is_missing),
		cmocka_unit_test(test_import__every_shipped_charger),
		cmocka_unit_test(test_import__slow_regulation_loop),
		cmocka_unit_test(test_import__realistic_measurement),
		cmocka_unit_test(test_import__lab_capture_through_a_map),
	};

	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests_name("curve_import", tests, setup, teardown);
}
