/* Acceptance: a captured power curve replayed as a charger gives the
 * device the same VBUS(t) and the same verdicts.
 *
 * Run a shipped scenario with the reference firmware on a charger whose
 * VBUS moves with the device's draw, capturing VBUS and IBUS; turn the
 * capture into a time-varying charger profile (vbus_t from a CSV file
 * beside it, written by bn_charger_write); run the same scenario on that
 * profile; compare VBUS sample by sample and every result's verdict.
 *
 * The profile's static curve is flat (5.0 V to 5 A), not the captured
 * charger's: only the series can give the capture back. The series keeps
 * the samples where VBUS or IBUS changes (the ends of
 * each constant run, at most BN_CHARGER_MAX_VBUS_T): between them the
 * world interpolates linearly, and the simulated capture is constant
 * there. r_out is the static curve's slope where the ramp settles (0.5 to
 * 0.8 A: 0.55 V / 0.3 A = 1.833 ohm) plus the cable's 0.1 ohm: a draw the
 * capture did not see moves VBUS as the charger would there.
 *
 * Run from the repo root or set BN_SRCDIR (BN_FWDIR: the firmware
 * directory, build/fw by default). */
#define _XOPEN_SOURCE 700
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/harness.h"
#include "capture/srzip_read.h"
#include "core/json.h"
#include "report/report.h"
#include "scenario/runner.h"
#include "sim/charger.h"

/* What a replay may differ by, sample by sample (V): measured 0 V on
 * both scenarios with the runs' ends kept (the replayed device draws
 * what the captured one drew, at the same instants, and between two kept
 * samples nothing changed; docs/simulator.md states the figures). */
#define REPLAY_VBUS_TOL_V 1e-6
/* Decimated to 2 ms: measured 0.776 V on 19 samples (the 2 ms around the
 * first 0.5 A step, where the curve's slope below 0.5 A, 0.3 ohm with the
 * cable, is not r_out), every other sample exact. */
#define REPLAY_DECIMATED_TOL_V 0.8

struct cap {
	long n;
	double rate_hz;
	float *vbus, *ibus;
};

static void cap_free(struct cap *c)
{
	free(c->vbus);
	free(c->ibus);
	memset(c, 0, sizeof(*c));
}

static void read_cap(const char *path, struct cap *c)
{
	struct bn_err err = { 0 };
	struct bn_srr *r = NULL;
	const struct bn_srr_info *inf;
	int idx[2];
	float *cols[2];
	long got;

	if (bn_srr_open(path, &r, &err))
		fail_msg("%s", err.msg);
	inf = bn_srr_info(r);
	idx[0] = bn_srr_find(r, "VBUS");
	idx[1] = bn_srr_find(r, "IBUS");
	assert_true(idx[0] >= 0 && idx[1] >= 0);
	assert_int_equal(bn_srr_select(r, 2, idx, &err), BN_OK);
	c->rate_hz = inf->rate_hz;
	c->n = (long)inf->n_frames;
	c->vbus = malloc(sizeof(float) * (size_t)c->n);
	c->ibus = malloc(sizeof(float) * (size_t)c->n);
	assert_non_null(c->vbus);
	assert_non_null(c->ibus);
	cols[0] = c->vbus, cols[1] = c->ibus;
	got = bn_srr_read_cols(r, cols, c->n, &err);
	if (got != c->n)
		fail_msg("%s: read %ld of %ld frames: %s", path, got, c->n, err.msg);
	bn_srr_close(r);
}

static int rm_one(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	return remove(p);
}

static void run(const char *scn, const char *charger, const char *out_dir, struct bn_report *rep)
{
	struct bn_err err = { 0 };
	struct bn_run_opts o = {
		.scenario_path = scn,
		.datadir = bn_test_srcdir(),
		.out_dir = out_dir,
		.charger_override = charger,
	};

	bn_report_init(rep);
	if (bn_run_scenario(&o, rep, &err) != BN_OK)
		fail_msg("%s on %s: %s", scn, charger ? charger : "its charger", err.msg);
	assert_int_equal(rep->status, BN_RUN_COMPLETED);
}

/* The first time the bench applied VBUS (events.json's vbus_on). */
static double vbus_on_s(const char *out_dir)
{
	struct bn_err err = { 0 };
	char path[400];
	cJSON *root = NULL;
	const cJSON *ev;
	double t = NAN;

	snprintf(path, sizeof(path), "%s/events.json", out_dir);
	if (bn_json_load(path, &root, &err))
		fail_msg("%s", err.msg);
	cJSON_ArrayForEach(ev, bn_jget(root, "events")) {
		const char *k = bn_jstr(ev, "kind");

		if (k && !strcmp(k, "vbus_on")) {
			t = bn_jnum(ev, "t_us") / 1e6;
			break;
		}
	}
	cJSON_Delete(root);
	if (isnan(t))
		fail_msg("%s: no vbus_on event", path);
	return t;
}

/* The report names the charger profile the run loaded. */
static bool ran_on(const struct bn_report *rep, const char *name)
{
	for (int i = 0; i < rep->n_files; i++)
		if (!strcmp(rep->files[i].role, "charger") && !strcmp(rep->files[i].name, name))
			return true;
	return false;
}

/* A sample where VBUS or IBUS differs from a neighbour: a run's end. */
static bool keep(const struct cap *c, long k)
{
	if (k == 0 || k == c->n - 1)
		return true;
	return c->vbus[k] != c->vbus[k - 1] || c->ibus[k] != c->ibus[k - 1] ||
	       c->vbus[k] != c->vbus[k + 1] || c->ibus[k] != c->ibus[k + 1];
}

/* base's curve and cable, with the capture as its series from t_on on. */
static int make_profile(const char *base_rel, const struct cap *c, double t_on_s, double r_out,
			long every, const char *path, struct bn_charger *p)
{
	struct bn_err err = { 0 };
	char base[512];
	long k0 = (long)ceil(t_on_s * c->rate_hz - 1e-9);

	bn_test_path(base_rel, base, sizeof(base));
	if (bn_charger_load(base, p, &err))
		fail_msg("%s", err.msg);
	/* a flat static curve, not the captured one: only the series can
	 * give the capture back (it covers the whole run) */
	p->n_points = 2;
	p->i_a[0] = 0.0, p->v_v[0] = 5.0;
	p->i_a[1] = 5.0, p->v_v[1] = 5.0;
	p->n_phases = 0;
	p->has_shutdown = p->has_transient = p->has_power_up = false;
	snprintf(p->name, sizeof(p->name), "replay");
	snprintf(p->description, sizeof(p->description), "%s as captured", base_rel);
	p->vbus_t = (struct bn_charger_vbus_t){ .has_i = true, .r_out_ohm = r_out };
	snprintf(p->vbus_t.file, sizeof(p->vbus_t.file), "replay.csv");
	for (long k = k0; k < c->n; k++) {
		if (every ? (k - k0) % every != 0 : !keep(c, k))
			continue;
		if (p->vbus_t.n == BN_CHARGER_MAX_VBUS_T - 1)
			fail_msg("more than %d runs in the capture", BN_CHARGER_MAX_VBUS_T);
		p->vbus_t.t_s[p->vbus_t.n] = (double)k / c->rate_hz - t_on_s;
		p->vbus_t.v_v[p->vbus_t.n] = c->vbus[k];
		p->vbus_t.i_a[p->vbus_t.n] = c->ibus[k];
		p->vbus_t.n++;
	}
	/* the series holds to the capture's end, one period past its last sample */
	p->vbus_t.t_s[p->vbus_t.n] = (double)c->n / c->rate_hz - t_on_s;
	p->vbus_t.v_v[p->vbus_t.n] = c->vbus[c->n - 1];
	p->vbus_t.i_a[p->vbus_t.n] = c->ibus[c->n - 1];
	p->vbus_t.n++;
	if (bn_charger_write(path, p, NULL, &err))
		fail_msg("%s", err.msg);
	return p->vbus_t.n;
}

/* every: keep every that many samples; 0: the ends of the constant runs.
 * tol_v: what VBUS may differ by, sample by sample; max_off: how many
 * samples may differ by more than 1 mV. */
static void replay_one(const char *scn_rel, const char *charger_rel, long every, double tol_v,
		       long max_off)
{
	static struct bn_charger prof, back;
	struct bn_report a, b;
	struct cap ca = { 0 }, cb = { 0 };
	struct bn_err err = { 0 };
	char dir[256], da[300], db[300], scn[512], path[400], sr[400];
	const char *tmp = getenv("TMPDIR");
	double max_dv = 0.0, t_on, r_out = 0.55 / 0.3 + 0.1;
	long at_max = 0, n_off = 0;
	int n_series, n_same = 0;

	snprintf(dir, sizeof(dir), "%s/bn-replay-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
	assert_non_null(mkdtemp(dir));
	snprintf(da, sizeof(da), "%s/a", dir);
	snprintf(db, sizeof(db), "%s/b", dir);
	bn_test_path(scn_rel, scn, sizeof(scn));

	run(scn, NULL, da, &a);
	snprintf(sr, sizeof(sr), "%s/capture.sr", da);
	read_cap(sr, &ca);
	t_on = vbus_on_s(da);
	snprintf(path, sizeof(path), "%s/replay.json", dir);
	n_series = make_profile(charger_rel, &ca, t_on, r_out, every, path, &prof);
	/* what the run loads is what was built */
	assert_int_equal(bn_charger_load(path, &back, &err), BN_OK);
	assert_int_equal(back.vbus_t.n, n_series);
	assert_string_equal(back.vbus_t.file, "replay.csv");

	run(scn, path, db, &b);
	assert_true(ran_on(&b, "replay"));
	snprintf(sr, sizeof(sr), "%s/capture.sr", db);
	read_cap(sr, &cb);
	assert_int_equal(ca.n, cb.n);
	for (long k = 0; k < ca.n; k++) {
		double dv = fabs((double)ca.vbus[k] - (double)cb.vbus[k]);

		if (dv > max_dv)
			max_dv = dv, at_max = k;
		n_off += dv > 1e-3;
	}
	print_message("%s on %s: %ld samples, series of %d, r_out %.4f ohm: max |dVBUS| %.3g V "
		      "(at %.4f s), %ld samples off by more than 1 mV\n",
		      scn_rel, charger_rel, ca.n, n_series, r_out, max_dv,
		      (double)at_max / ca.rate_hz, n_off);
	assert_true(max_dv <= tol_v);
	assert_true(n_off <= max_off);

	/* the same verdicts, rule by rule and expectation by expectation */
	assert_int_equal(a.n_results, b.n_results);
	for (int i = 0; i < a.n_results; i++) {
		assert_string_equal(a.results[i].id, b.results[i].id);
		if (a.results[i].verdict != b.results[i].verdict)
			fail_msg("%s: %s is %d captured, %d replayed (%s)", scn_rel, a.results[i].id,
				 a.results[i].verdict, b.results[i].verdict, b.results[i].reason);
		n_same++;
	}
	assert_true(n_same > 10);
	assert_int_equal(bn_report_exit_code(&a), bn_report_exit_code(&b));

	if (!every) {
		/* the control: the same profile without its series (the flat
		 * curve) does not give the device what it saw */
		struct bn_report c;
		struct cap cc = { 0 };
		double dv_c = 0.0;

		prof.vbus_t.n = 0;
		if (bn_charger_write(path, &prof, NULL, &err))
			fail_msg("%s", err.msg);
		snprintf(db, sizeof(db), "%s/c", dir);
		run(scn, path, db, &c);
		snprintf(sr, sizeof(sr), "%s/capture.sr", db);
		read_cap(sr, &cc);
		for (long k = 0; k < ca.n && k < cc.n; k++)
			dv_c = fmax(dv_c, fabs((double)ca.vbus[k] - (double)cc.vbus[k]));
		assert_true(dv_c > 0.1);
		cap_free(&cc);
		bn_report_free(&c);
	}

	cap_free(&ca);
	cap_free(&cb);
	bn_report_free(&a);
	bn_report_free(&b);
	nftw(dir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
}

static void test_charger_replay__dcp_weak(void **state)
{
	replay_one("scripts/scenarios/dcp-weak.scn", "profiles/chargers/dcp-weak.json", 0,
		   REPLAY_VBUS_TOL_V, 0);
}

static void test_charger_replay__dcp_soft_fold(void **state)
{
	replay_one("scripts/scenarios/dcp-soft-fold.scn", "profiles/chargers/dcp-soft-fold.json", 0,
		   REPLAY_VBUS_TOL_V, 0);
}

/* Decimated to one sample in 2 ms (4000 samples): across a step of the
 * draw the series interpolates over 2 ms, and the static curve's slope
 * differs from r_out below 0.5 A. */
static void test_charger_replay__dcp_weak_decimated(void **state)
{
	replay_one("scripts/scenarios/dcp-weak.scn", "profiles/chargers/dcp-weak.json", 20,
		   REPLAY_DECIMATED_TOL_V, 20);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_charger_replay__dcp_weak),
		cmocka_unit_test(test_charger_replay__dcp_soft_fold),
		cmocka_unit_test(test_charger_replay__dcp_weak_decimated),
	};

	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests_name("charger_replay", tests, NULL, NULL);
}
