/* bcbench curve sweep: the analysis functions on synthetic readings
 * (clean and noisy), the sweep on the simulated bench against every
 * shipped charger's own curve (through the "sim" load, the instrument
 * path a real bench takes), the profile it writes read back, and a sweep
 * cut short (a load that stops answering, a signal, a hard limit): the
 * bench in its safe state, the result not complete. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/harness.h"
#include "core/channel.h"
#include "core/conditions.h"
#include "core/json.h"
#include "core/meas.h"
#include "curve/analyze.h"
#include "curve/measured.h"
#include "core/file.h"
#include "curve/sweep.h"
#include "curve/sweep_out.h"
#include "curve/sweep_sim.h"
#include "report/curve_html.h"
#include "hil/guard.h"
#include "sim/charger.h"
#include "sim/world.h"

/* The stated tolerances. A swept point is the receptacle's VBUS at the
 * step's current within TOL_V of the profile's own bn_charger_vbus (the
 * simulated load reads the world exactly; the charger with output
 * capacitance settles in well under --settle). The recovery of
 * dcp-shutdown-1a2 is 1 s within two readings (the collapse and the
 * return are each seen at the next reading). */
#define TOL_V 1e-3
#define STEP_A 0.05
#define POLL_S 0.001
#define TOL_RECOVER_S (2 * POLL_S)

static void cfg_default(struct bn_sweep_cfg *c, double to_a)
{
	memset(c, 0, sizeof(*c));
	c->from_a = 0.0;
	c->step_a = STEP_A;
	c->to_a = to_a;
	c->dwell_us = 100 * BN_US_PER_MS;
	c->settle_us = 20 * BN_US_PER_MS;
	c->poll_us = bn_time_from_s(POLL_S);
	c->valid_v = bn_limits_max(&bn_test_lim, "VOTG_SESS_VLD");
	c->recover_wait_us = 3 * BN_US_PER_S;
	c->port_type = "dcp";
}

/* ---- a load in front of another one: noise, a stall, a signal ---- */

struct wrap_load {
	struct bn_load *inner;
	const struct bn_meas *mv, *mi;   /* NULL: exact */
	struct bn_rng rng;
	int measures, fail_after;        /* fail_after < 0: never */
	volatile sig_atomic_t *raise_on; /* set to SIGINT at fail_after instead */
	int safes, enables_off;
	bool on;
	bool safe_fails;                 /* its safe() answers BN_ERR_IO */
	bool safe_retried;               /* its safe() fails once, then succeeds on a retry */
};

static int wl_set(void *p, double a, struct bn_err *e)
{
	struct wrap_load *w = p;

	return w->inner->ops->set_current(w->inner->priv, a, e);
}

static int wl_enable(void *p, bool on, struct bn_err *e)
{
	struct wrap_load *w = p;

	w->on = on;
	w->enables_off += !on;
	return w->inner->ops->enable(w->inner->priv, on, e);
}

static int wl_measure(void *p, double *v, double *i, struct bn_err *e)
{
	struct wrap_load *w = p;
	int rc;

	if (w->fail_after >= 0 && w->measures++ >= w->fail_after) {
		if (w->raise_on) {
			*w->raise_on = 2;
		} else {
			return bn_err_set(e, BN_ERR_TIMEOUT, "load \"wrap\": no answer to MEAS:VOLT?");
		}
	}
	rc = w->inner->ops->measure(w->inner->priv, v, i, e);
	if (rc == BN_OK && w->mv)
		*v = bn_meas_apply(w->mv, &w->rng, *v, 0.0);
	if (rc == BN_OK && w->mi)
		*i = bn_meas_apply(w->mi, &w->rng, *i, 0.0);
	return rc;
}

static int wl_safe(void *p, struct bn_err *e)
{
	struct wrap_load *w = p;

	w->safes++;
	w->on = false;
	if (w->safe_fails) {
		w->inner->ops->safe(w->inner->priv, e);
		return bn_err_set(e, BN_ERR_IO, "load \"wrap\": INPUT OFF not acknowledged");
	}
	if (w->safe_retried) /* the message of the try that failed stays behind */
		bn_err_set(e, BN_ERR_TIMEOUT, "load \"wrap\": first INPUT OFF unanswered, retried");
	return w->inner->ops->safe(w->inner->priv, e);
}

static const struct bn_load_ops wrap_load_ops = {
	.name = "wrap", .set_current = wl_set, .enable = wl_enable, .measure = wl_measure,
	.safe = wl_safe,
};

struct wrap_fx {
	struct bn_fixture *inner;
	int safes;
	bool safe_fails;
};

static int wf_safe(void *p, struct bn_err *e)
{
	struct wrap_fx *w = p;
	int rc;

	w->safes++;
	rc = w->inner->ops->safe(w->inner->priv, e);
	if (w->safe_fails)
		return bn_err_set(e, BN_ERR_TIMEOUT, "fixture \"wrapfx\": no answer to its safe state");
	return rc;
}

static int wf_connect(void *p, const char *t, struct bn_err *e)
{
	struct wrap_fx *w = p;

	return w->inner->ops->connect(w->inner->priv, t, e);
}

static int wf_vbus(void *p, bool on, struct bn_err *e)
{
	struct wrap_fx *w = p;

	return w->inner->ops->vbus(w->inner->priv, on, e);
}

static const struct bn_fixture_ops wrap_fx_ops = {
	.name = "wrapfx", .connect = wf_connect, .vbus = wf_vbus, .safe = wf_safe,
};

/* ---- analysis ---- */

static void test_mean(void **state)
{
	struct bn_curve_pt p[4] = { { 1.0, 5.0, 0 }, { 1.0, 5.2, 0 }, { 1.0, 4.8, 0 }, { 1.0, 5.0, 0 } };
	double i, v, ui, uv;
	struct bn_err err = { 0 };

	assert_int_equal(bn_curve_mean(p, 4, &i, &v, &ui, &uv, &err), BN_OK);
	assert_near(i, 1.0, 1e-12);
	assert_near(v, 5.0, 1e-12);
	assert_near(ui, 0.0, 1e-12);
	/* s = sqrt(0.08 / 3), u = s / 2 */
	assert_near(uv, sqrt(0.08 / 3) / 2, 1e-12);
	assert_int_equal(bn_curve_mean(p, 0, &i, &v, &ui, &uv, &err), BN_ERR_ARG);
}

static void test_knee(void **state)
{
	double i[] = { 0.0, 0.5, 1.0, 1.1, 1.2 }, v[] = { 5.1, 5.0, 4.8, 4.6, 0.0 };

	/* between 1.0 A (4.8 V) and 1.1 A (4.6 V): 4.75 V at 1.025 A */
	assert_near(bn_curve_knee(i, v, 5, 4.75, 4.0), 1.025, 1e-12);
	/* the next point collapsed: the last good one, not a line into 0 V */
	assert_near(bn_curve_knee(i, v, 5, 4.6, 4.0), 1.1, 1e-12);
	/* never below: the last point */
	assert_near(bn_curve_knee(i, v, 4, 4.5, 4.0), 1.1, 1e-12);
	/* already below at the first point */
	assert_true(isnan(bn_curve_knee(i, v, 5, 5.2, 4.0)));
}

static void test_shutdown(void **state)
{
	struct bn_curve_pt fold[] = { { 0, 4.9, 10.001 } };
	struct bn_curve_pt latch[] = { { 0, 0.0, 10.001 }, { 0, 0.0, 10.5 }, { 0, 5.0, 11.004 } };
	struct bn_curve_pt never[] = { { 0, 0.0, 10.001 }, { 0, 0.0, 13.0 } };
	struct bn_curve_shutdown sd;

	/* back at the first reading after the release: folded back */
	bn_curve_shutdown(fold, 1, 9.999, 10.0, 0.02, 4.0, &sd);
	assert_false(sd.latched);
	assert_true(sd.recovered);
	assert_near(sd.recover_s, 0.002, 1e-9);
	/* off for a second after the release: shut down, recovered */
	bn_curve_shutdown(latch, 3, 10.0, 10.0, 0.02, 4.0, &sd);
	assert_true(sd.latched);
	assert_true(sd.recovered);
	assert_near(sd.recover_s, 1.004, 1e-9);
	/* never back */
	bn_curve_shutdown(never, 2, 10.0, 10.0, 0.02, 4.0, &sd);
	assert_true(sd.latched);
	assert_false(sd.recovered);
	assert_true(isnan(sd.recover_s));
}

/* Two meters 5 mV apart and noisy (realistic.json's VBUS noise on each):
 * the cable's 0.1 ohm comes back within 3 u, and u is honest (not 0). */
static void test_cable_noisy(void **state)
{
	struct bn_conditions cond;
	struct bn_err err = { 0 };
	struct bn_rng rng;
	double i[40], vs[40], vr[40], r, u;
	char path[512];

	bn_test_path("profiles/conditions/realistic.json", path, sizeof(path));
	assert_int_equal(bn_conditions_load(path, &cond, &err), BN_OK);
	bn_rng_seed(&rng, 7);
	for (int k = 0; k < 40; k++) {
		i[k] = 0.05 * k;
		/* each a mean of 80 readings: the noise / sqrt(80) */
		vs[k] = 5.0 + 0.005 + cond.meas[BN_CH_VBUS].noise_rms / sqrt(80) * bn_rng_gauss(&rng);
		vr[k] = 5.0 - 0.1 * i[k] + cond.meas[BN_CH_VBUS].noise_rms / sqrt(80) * bn_rng_gauss(&rng);
	}
	assert_int_equal(bn_curve_cable_ohm(i, vs, vr, 40, &r, &u, &err), BN_OK);
	assert_true(u > 0.0 && u < 0.01);
	assert_near(r, 0.1, 3 * u);
	/* one current only says nothing of a resistance */
	for (int k = 0; k < 40; k++)
		i[k] = 1.0;
	assert_int_equal(bn_curve_cable_ohm(i, vs, vr, 40, &r, &u, &err), BN_ERR_DATA);
}

static void test_reduce(void **state)
{
	double i[100], v[100];
	bool keep[100];
	int n;

	/* two straight pieces: three points draw it */
	for (int k = 0; k < 100; k++) {
		i[k] = 0.01 * k;
		v[k] = k < 60 ? 5.0 - 0.1 * i[k] : 4.94 - 2.0 * (i[k] - 0.6);
	}
	n = bn_curve_reduce(i, v, 100, 32, 1e-6, keep);
	assert_int_equal(n, 3);
	assert_true(keep[0] && keep[60] && keep[99]);
	/* a curve needing more than 32: 32 kept, the worst first */
	for (int k = 0; k < 100; k++)
		v[k] = 5.0 - 0.5 * i[k] * i[k];
	assert_int_equal(bn_curve_reduce(i, v, 100, 32, 1e-9, keep), 32);
}

/* ---- the sweep on the simulated bench ---- */

struct swept {
	struct bn_charger orig;
	struct bn_sweep_cfg cfg;
	struct bn_sweep_result res;
	int rc;
	struct bn_err err;
};

/* Sweep charger file path behind a dcp port, through the sim load (or
 * a wrapper around it when wl is given). */
static void sweep_sim(const char *path, double to_a, struct wrap_load *wl, struct wrap_fx *wf,
		      const struct bn_guard *guard, struct swept *s)
{
	struct bn_sweep_sim sim;
	struct bn_sweep_bench b;
	struct bn_load wrapped;
	struct bn_fixture wfx;
	char port[512];

	memset(s, 0, sizeof(*s));
	assert_int_equal(bn_charger_load(path, &s->orig, &s->err), BN_OK);
	cfg_default(&s->cfg, to_a);
	s->cfg.guard = guard;
	if (wl && wl->raise_on)
		s->cfg.stop = wl->raise_on;
	bn_test_path("profiles/ports/dcp.json", port, sizeof(port));
	assert_int_equal(bn_sweep_sim_open(&sim, &bn_test_lim, port, &s->orig, s->cfg.stop, &s->err),
			 BN_OK);
	bn_sweep_sim_bench(&sim, &b);
	if (wl) {
		wl->inner = b.ld;
		wrapped = (struct bn_load){ &wrap_load_ops, wl };
		b.ld = &wrapped;
	}
	if (wf) {
		wf->inner = b.fx;
		wfx = (struct bn_fixture){ &wrap_fx_ops, wf };
		b.fx = &wfx;
	}
	s->rc = bn_sweep_run(&s->cfg, &b, &s->res, &s->err);
	/* the world is in its safe state: no load, VBUS off */
	assert_near(bn_world_load_a(sim.w), 0.0, 0.0);
	assert_false(bn_world_vbus_switch(sim.w));
	bn_sweep_sim_close(&sim);
}

/* What the sweep's caller knows, as the knee needs it: VCHG from the
 * limits, no cable given. */
static struct bn_sweep_meta knee_meta(void)
{
	return (struct bn_sweep_meta){ .name = "swept", .vchg_min_v = bn_limits_min(&bn_test_lim, "VCHG"),
				       .vchg_max_v = bn_limits_max(&bn_test_lim, "VCHG"),
				       .cable_given_ohm = NAN };
}

static double last_current(const struct bn_charger *c)
{
	return c->i_a[c->n_points - 1];
}

/* The knee the original has: the largest current with the receptacle
 * at or above VCHG min, and no more than a shutdown lets through. */
static double expected_knee(const struct bn_charger *c, double vchg_min)
{
	double k = bn_charger_i_at_v(c, vchg_min);

	if (c->has_shutdown && c->shutdown_above_a < k)
		k = c->shutdown_above_a;
	return k;
}

static void check_against(const struct swept *s, const char *name)
{
	struct bn_charger_state st;
	double vchg = bn_limits_min(&bn_test_lim, "VCHG"), knee, worst = 0.0;

	bn_charger_state_init(&st);
	if (s->rc != BN_OK)
		fail_msg("%s: sweep cut short: %s", name, s->err.msg);
	assert_true(s->res.complete);
	assert_true(s->res.n >= 2);
	for (int k = 0; k < s->res.n; k++) {
		const struct bn_sweep_point *p = &s->res.pts[k];
		double want = bn_charger_vbus(&s->orig, &st, p->set_a);

		worst = fmax(worst, fabs(p->v_v - want));
		if (!(fabs(p->v_v - want) <= TOL_V))
			fail_msg("%s: at %.3f A VBUS %.5f V, the profile says %.5f V (+-%g)", name,
				 p->set_a, p->v_v, want, TOL_V);
		assert_true(p->n >= 70);
	}
	{
		struct bn_sweep_meta meta_for_knee = knee_meta();

		knee = bn_sweep_knee(&s->res, &s->cfg, &meta_for_knee, NULL);
	}
	/* the figures docs/power-curves.md quotes */
	print_message("%-18s %3d points, worst |V - profile| %.2g V, knee %.4f A (profile's %.4f A)\n",
		      name, s->res.n, worst, knee, expected_knee(&s->orig, vchg));
	if (!(fabs(knee - expected_knee(&s->orig, vchg)) <= STEP_A))
		fail_msg("%s: knee %.4f A, the profile's %.4f A (+-%g)", name, knee,
			 expected_knee(&s->orig, vchg), STEP_A);
}

/* Every shipped charger: swept, the points on its curve, the knee within
 * a step, the profile written and read back by bn_charger_load giving
 * the same VBUS at every swept point. */
static void test_every_shipped_charger(void **state)
{
	char pat[512], dir[] = "/tmp/bn-sweep-XXXXXX", out[600];
	glob_t g;
	int n = 0;

	assert_non_null(mkdtemp(dir));
	bn_test_path("profiles/chargers/*.json", pat, sizeof(pat));
	assert_int_equal(glob(pat, 0, NULL, &g), 0);
	for (size_t f = 0; f < g.gl_pathc; f++) {
		struct swept s;
		struct bn_sweep_meta m = { 0 };
		struct bn_charger prof, back;
		struct bn_charger_state st;
		struct bn_err err = { 0 };
		cJSON *meas;

		sweep_sim(g.gl_pathv[f], 0, NULL, NULL, NULL, &s);
		bn_sweep_result_free(&s.res);
		sweep_sim(g.gl_pathv[f], last_current(&s.orig) + 0.2, NULL, NULL, NULL, &s);
		/* a charger whose output moves in time (a schedule, a series, a
		 * slow loop) gives a sweep a snapshot of the curve in force at
		 * each step, not its first curve: only its read-back is held */
		if (bn_charger_timed(&s.orig))
			print_message("%-18s moves in time: not compared with its first curve\n",
				      s.orig.name);
		else
			check_against(&s, s.orig.name);
		m.name = s.orig.name;
		m.bench_name = "simulated";
		m.simulated = true;
		m.vchg_min_v = bn_limits_min(&bn_test_lim, "VCHG");
		m.cable_given_ohm = NAN;
		assert_int_equal(bn_sweep_charger(&s.res, &s.cfg, &m, &prof, &err), BN_OK);
		meas = bn_sweep_measured(&s.res, &s.cfg, &m);
		assert_non_null(meas);
		snprintf(out, sizeof(out), "%s/%s.json", dir, s.orig.name);
		assert_int_equal(bn_sweep_write(out, &prof, true, meas, &err), BN_OK);
		cJSON_Delete(meas);
		if (bn_charger_load(out, &back, &err) != BN_OK)
			fail_msg("%s: the swept profile does not load: %s", s.orig.name, err.msg);
		bn_charger_state_init(&st);
		for (int k = 0; k < s.res.n; k++) {
			double v = bn_charger_vbus(&back, &st, s.res.pts[k].i_a);

			if (!(fabs(v - s.res.pts[k].v_v) <= TOL_V))
				fail_msg("%s read back: at %.4f A %.5f V, swept %.5f V (+-%g)",
					 s.orig.name, s.res.pts[k].i_a, v, s.res.pts[k].v_v, TOL_V);
		}
		/* a fold-back's collapse reading ends the curve where the original is */
		if (s.res.collapsed && !s.res.shutdown && !bn_charger_timed(&s.orig))
			assert_near(bn_charger_vbus(&back, &st, s.res.collapse_a),
				    bn_charger_vbus(&s.orig, &st, s.res.collapse_a), TOL_V);
		unlink(out);
		bn_sweep_result_free(&s.res);
		n++;
	}
	globfree(&g);
	rmdir(dir);
	assert_true(n >= 8);
}

/* dcp-shutdown-1a2: off above 1.2 A, back after 1 s. */
static void test_shutdown_charger(void **state)
{
	char path[512];
	struct swept s;

	bn_test_path("profiles/chargers/dcp-shutdown-1a2.json", path, sizeof(path));
	sweep_sim(path, 2.5, NULL, NULL, NULL, &s);
	check_against(&s, "dcp-shutdown-1a2");
	assert_true(s.res.collapsed);
	assert_true(s.res.shutdown);
	assert_near(s.res.shutdown_above_a, 1.2, STEP_A);
	assert_true(s.res.recovered);
	assert_near(s.res.recover_s, 1.0, TOL_RECOVER_S);
	print_message("dcp-shutdown-1a2: shutdown above %.3f A, recovery %.4f s\n",
		      s.res.shutdown_above_a, s.res.recover_s);
	bn_sweep_result_free(&s.res);
	/* a fold-back is not a shutdown: dcp-weak is back at once */
	bn_test_path("profiles/chargers/dcp-weak.json", path, sizeof(path));
	sweep_sim(path, 2.0, NULL, NULL, NULL, &s);
	assert_true(s.res.collapsed);
	assert_false(s.res.shutdown);
	/* back at the first reading after the release, which follows the
	 * collapse by the settle time the load is held for */
	assert_true(s.res.recovered);
	assert_true(s.res.recover_s <= bn_time_to_s(s.cfg.settle_us) + TOL_RECOVER_S);
	bn_sweep_result_free(&s.res);
}

/* Through a load that reads as realistic.json's front end does (noise,
 * offset, gain, on VBUS and on the current): every point within the
 * offset and gain error plus 4 u of the truth, and the knee within a
 * step plus what that error moves it along the curve. */
static void test_noisy_load(void **state)
{
	const char *names[] = { "dcp-1a", "dcp-weak", "cdp-1a5", "host-500ma" };
	double vchg = bn_limits_min(&bn_test_lim, "VCHG");
	struct bn_conditions cond;
	struct bn_err err = { 0 };
	char path[512];

	bn_test_path("profiles/conditions/realistic.json", path, sizeof(path));
	assert_int_equal(bn_conditions_load(path, &cond, &err), BN_OK);
	for (size_t c = 0; c < sizeof(names) / sizeof(names[0]); c++) {
		const struct bn_meas *mv = &cond.meas[BN_CH_VBUS], *mi = &cond.meas[BN_CH_IBUS];
		struct wrap_load wl = { .mv = mv, .mi = mi, .fail_after = -1 };
		struct bn_charger_state st;
		struct swept s;
		double knee, k0, slope, dv;

		bn_rng_seed(&wl.rng, 11);
		snprintf(path, sizeof(path), "%s/profiles/chargers/%s.json", bn_test_srcdir(), names[c]);
		sweep_sim(path, 2.0, &wl, NULL, NULL, &s);
		assert_int_equal(s.rc, BN_OK);
		bn_charger_state_init(&st);
		for (int k = 0; k < s.res.n; k++) {
			const struct bn_sweep_point *p = &s.res.pts[k];
			double truth = bn_charger_vbus(&s.orig, &st, p->set_a);
			double tol = fabs(mv->offset) + fabs(mv->gain) * truth + bn_meas_lsb(mv) +
				     4 * p->u_v_v;

			assert_true(p->u_v_v > 0.0);
			if (!(fabs(p->v_v - truth) <= tol))
				fail_msg("%s at %.2f A: %.4f V, truth %.4f V (+-%.4f)", names[c],
					 p->set_a, p->v_v, truth, tol);
		}
		/* the reading's error moves the knee by error / slope */
		k0 = expected_knee(&s.orig, vchg);
		slope = (bn_charger_vbus(&s.orig, &st, k0 - 0.02) - bn_charger_vbus(&s.orig, &st, k0 + 0.02)) /
			0.04;
		dv = fabs(mv->offset) + fabs(mv->gain) * vchg + bn_meas_lsb(mv);
		{
			struct bn_sweep_meta meta_for_knee = knee_meta();

			knee = bn_sweep_knee(&s.res, &s.cfg, &meta_for_knee, NULL);
		}
		assert_near(knee, k0, STEP_A + dv / slope + fabs(mi->gain) * k0 + fabs(mi->offset));
		bn_sweep_result_free(&s.res);
	}
}

/* A load that stops answering mid-sweep: cut short with its error, the
 * load and the fixture sent to their safe state, the points so far kept. */
static void test_load_stalls(void **state)
{
	struct wrap_load wl = { .fail_after = 500 };
	struct wrap_fx wf = { 0 };
	char path[512];
	struct swept s;

	bn_test_path("profiles/chargers/dcp-1a.json", path, sizeof(path));
	sweep_sim(path, 2.0, &wl, &wf, NULL, &s);
	assert_int_equal(s.rc, BN_ERR_TIMEOUT);
	assert_false(s.res.complete);
	assert_int_equal(s.res.cut_code, BN_ERR_TIMEOUT);
	assert_non_null(strstr(s.res.end, "no answer"));
	assert_true(wl.safes >= 1);
	assert_true(wf.safes >= 1);
	assert_false(wl.on);
	assert_true(s.res.n >= 4 && s.res.n <= 7);
	bn_sweep_result_free(&s.res);
}

/* The safe state not confirmed by two instruments: the first failure's
 * code and its message, not the second's message under the first's code. */
static void test_safe_first_failure(void **state)
{
	struct wrap_load wl = { .fail_after = -1, .safe_fails = true };
	struct wrap_fx wf = { .safe_fails = true };
	char path[512];
	struct swept s;

	bn_test_path("profiles/chargers/dcp-1a.json", path, sizeof(path));
	sweep_sim(path, 0.2, &wl, &wf, NULL, &s);
	assert_int_equal(s.rc, BN_ERR_IO);
	assert_false(s.res.complete);
	assert_false(s.res.safe_confirmed);
	assert_msg_has(&s.err, "INPUT OFF");
	assert_null(strstr(s.err.msg, "wrapfx"));
	assert_non_null(strstr(s.res.end, "INPUT OFF"));
	bn_sweep_result_free(&s.res);

	/* a load whose safe() succeeded on a retry: the fixture's failure is
	 * the one told, with its own code */
	wl = (struct wrap_load){ .fail_after = -1, .safe_retried = true };
	wf = (struct wrap_fx){ .safe_fails = true };
	sweep_sim(path, 0.2, &wl, &wf, NULL, &s);
	assert_int_equal(s.rc, BN_ERR_TIMEOUT);
	assert_msg_has(&s.err, "wrapfx");
	assert_null(strstr(s.err.msg, "retried"));
	bn_sweep_result_free(&s.res);
}

/* SIGINT mid-sweep: stopped, safe. */
static void test_interrupted(void **state)
{
	static volatile sig_atomic_t stop;
	struct wrap_load wl = { .fail_after = 300, .raise_on = &stop };
	struct wrap_fx wf = { 0 };
	char path[512];
	struct swept s;

	stop = 0;
	bn_test_path("profiles/chargers/dcp-1a.json", path, sizeof(path));
	sweep_sim(path, 2.0, &wl, &wf, NULL, &s);
	assert_int_equal(s.rc, BN_ERR_INTR);
	assert_false(s.res.complete);
	assert_true(wl.safes >= 1 && wf.safes >= 1);
	bn_sweep_result_free(&s.res);
}

/* A step the bench's hard limits refuse (max_power at the last VBUS):
 * never sent, cut short, safe. */
static void test_guard_refuses(void **state)
{
	struct bn_guard g = { .max_load_a = 0, .max_vbus_v = 5.5, .max_power_w = 2.0,
			      .origin = "bench.conf" };
	struct wrap_load wl = { .fail_after = -1 };
	struct wrap_fx wf = { 0 };
	char path[512];
	struct swept s;

	bn_test_path("profiles/chargers/ideal-5a.json", path, sizeof(path));
	sweep_sim(path, 1.0, &wl, &wf, &g, &s);
	assert_int_equal(s.rc, BN_ERR_ARG);
	assert_false(s.res.complete);
	assert_msg_has(&s.err, "max_power");
	/* 0.4 A at 4.96 V is 1.98 W; 0.45 A would be over 2 W */
	assert_near(s.res.pts[s.res.n - 1].set_a, 0.4, 1e-9);
	assert_true(wl.safes >= 1 && wf.safes >= 1);
	bn_sweep_result_free(&s.res);
}

/* A second sense point at the charger's output: a supply whose meter
 * reads the charger's own voltage at the current the world's load sinks
 * (what a supply playing the charger, or a meter at its end of the
 * cable, reads), 3 mV above the load's meter. */
struct src_meter {
	struct bn_world *w;
	const struct bn_charger *c;
};

static int src_measure(void *p, double *v, double *i, struct bn_err *e)
{
	struct src_meter *m = p;

	*i = bn_world_load_a(m->w);
	*v = bn_charger_v_out(m->c, *i) + 0.003;
	return BN_OK;
}

static const struct bn_supply_ops src_ops = { .name = "src-meter", .measure = src_measure };

/* --sense2: the cable's 0.1 ohm from the two sense points, the profile's
 * curve at the charger's output (the original's own points) and its
 * cable 0.1 ohm, so the receptacle reads as swept. */
static void test_sense2_cable(void **state)
{
	struct bn_sweep_sim sim;
	struct bn_sweep_bench b;
	struct bn_sweep_cfg cfg;
	struct bn_sweep_result res;
	struct bn_sweep_meta m = { 0 };
	struct bn_charger orig, prof;
	struct bn_charger_state st;
	struct bn_err err = { 0 };
	struct src_meter sm;
	struct bn_supply sp;
	double ohm, u;
	const char *from;
	char path[512], port[512];

	bn_test_path("profiles/chargers/dcp-1a.json", path, sizeof(path));
	bn_test_path("profiles/ports/dcp.json", port, sizeof(port));
	assert_int_equal(bn_charger_load(path, &orig, &err), BN_OK);
	assert_int_equal(bn_sweep_sim_open(&sim, &bn_test_lim, port, &orig, NULL, &err), BN_OK);
	bn_sweep_sim_bench(&sim, &b);
	sm = (struct src_meter){ sim.w, &sim.charger };
	sp = (struct bn_supply){ &src_ops, &sm };
	b.sp = &sp;
	cfg_default(&cfg, 1.5);
	cfg.sense2 = true;
	assert_int_equal(bn_sweep_run(&cfg, &b, &res, &err), BN_OK);
	bn_sweep_sim_close(&sim);
	m.name = "s2";
	m.vchg_min_v = 4.75;
	m.cable_given_ohm = NAN;
	bn_sweep_cable(&res, &m, &ohm, &u, &from);
	assert_string_equal(from, "two sense points");
	assert_near(ohm, orig.cable_ohm, 1e-6);
	assert_int_equal(bn_sweep_charger(&res, &cfg, &m, &prof, &err), BN_OK);
	assert_near(prof.cable_ohm, orig.cable_ohm, 1e-6);
	bn_charger_state_init(&st);
	for (int k = 0; k < res.n; k++)
		assert_near(bn_charger_vbus(&prof, &st, res.pts[k].i_a), res.pts[k].v_v, TOL_V);
	/* --cable wins over the sense points */
	m.cable_given_ohm = 0.25;
	bn_sweep_cable(&res, &m, &ohm, &u, &from);
	assert_string_equal(from, "given");
	assert_near(ohm, 0.25, 0.0);
	bn_sweep_result_free(&res);
	/* without a supply that measures, a second sense point is refused */
	assert_int_equal(bn_sweep_sim_open(&sim, &bn_test_lim, port, &orig, NULL, &err), BN_OK);
	bn_sweep_sim_bench(&sim, &b);
	bn_err_clear(&err);
	assert_int_equal(bn_sweep_run(&cfg, &b, &res, &err), BN_ERR_ARG);
	assert_msg_has(&err, "second sense point");
	bn_sweep_sim_close(&sim);
	bn_sweep_result_free(&res);
}

static int count(const char *hay, const char *needle)
{
	int n = 0;

	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

/* report.html's figure of a swept profile: a point (with its u) per
 * swept point, the VCHG band from the limits, the knee and the
 * shutdown; nothing for a profile nobody measured or no file. */
static void test_curve_html(void **state)
{
	char path[512], dir[] = "/tmp/bn-sweep-XXXXXX", out[600], want[128];
	struct bn_sweep_meta m = { 0 };
	struct bn_charger prof;
	struct bn_err err = { 0 };
	struct swept s;
	GString *g = g_string_new("");
	cJSON *meas;

	assert_non_null(mkdtemp(dir));
	bn_test_path("profiles/chargers/dcp-shutdown-1a2.json", path, sizeof(path));
	sweep_sim(path, 2.0, NULL, NULL, NULL, &s);
	m.name = "sd";
	m.vchg_min_v = bn_limits_min(&bn_test_lim, "VCHG");
	m.vchg_max_v = bn_limits_max(&bn_test_lim, "VCHG");
	m.cable_given_ohm = NAN;
	assert_int_equal(bn_sweep_charger(&s.res, &s.cfg, &m, &prof, &err), BN_OK);
	meas = bn_sweep_measured(&s.res, &s.cfg, &m);
	snprintf(out, sizeof(out), "%s/sd.json", dir);
	assert_int_equal(bn_sweep_write(out, &prof, true, meas, &err), BN_OK);
	cJSON_Delete(meas);
	assert_int_equal(bn_curve_html(g, out), 1);
	assert_int_equal(count(g->str, "<g class=\"pt\""), s.res.n);
	assert_non_null(strstr(g->str, "data-band=\"VCHG\" data-lo=\"4.75\" data-hi=\"5.25\""));
	snprintf(want, sizeof(want), "<g class=\"knee\" data-a=\"%.6g\"",
		 bn_sweep_knee(&s.res, &s.cfg, &m, NULL));
	assert_non_null(strstr(g->str, want));
	snprintf(want, sizeof(want), "<g class=\"shutdown\" data-above-a=\"%.6g\" data-recover-s=\"%.6g\"",
		 s.res.shutdown_above_a, s.res.recover_s);
	assert_non_null(strstr(g->str, want));
	assert_non_null(strstr(g->str, "data-complete=\"true\""));
	/* the same profile, the same bytes */
	{
		GString *g2 = g_string_new("");

		bn_curve_html(g2, out);
		assert_string_equal(g->str, g2->str);
		g_string_free(g2, TRUE);
	}
	g_string_truncate(g, 0);
	assert_int_equal(bn_curve_html(g, path), 0); /* the shipped one: not measured */
	assert_int_equal(bn_curve_html(g, "/nonexistent/x.json"), 0);
	assert_int_equal(bn_curve_html(g, NULL), 0);
	assert_int_equal((int)g->len, 0);
	g_string_free(g, TRUE);
	unlink(out);
	rmdir(dir);
	bn_sweep_result_free(&s.res);
}

/* The figure as report.html asks for it: only the profile the record
 * hashed, found as the record finds it (absolute, or beside the record),
 * else a line saying why and no figure. */
static void test_curve_html_record(void **state)
{
	char path[512], dir[] = "/tmp/bn-sweep-XXXXXX", out[600], sha[65], bad[65];
	struct bn_sweep_meta m = knee_meta();
	struct bn_charger prof;
	struct bn_err err = { 0 };
	struct swept s;
	GString *g = g_string_new("");
	cJSON *meas;
	FILE *f;

	assert_non_null(mkdtemp(dir));
	bn_test_path("profiles/chargers/dcp-1a.json", path, sizeof(path));
	sweep_sim(path, 1.5, NULL, NULL, NULL, &s);
	assert_int_equal(bn_sweep_charger(&s.res, &s.cfg, &m, &prof, &err), BN_OK);
	meas = bn_sweep_measured(&s.res, &s.cfg, &m);
	snprintf(out, sizeof(out), "%s/p.json", dir);
	assert_int_equal(bn_sweep_write(out, &prof, true, meas, &err), BN_OK);
	cJSON_Delete(meas);
	assert_int_equal(bn_file_sha256(out, sha, &err), BN_OK);
	/* absolute, and relative beside the record, whatever the cwd */
	assert_int_equal(bn_curve_html_record(g, "/nonexistent", out, sha), 1);
	assert_non_null(strstr(g->str, "id=\"charger-curve\""));
	g_string_truncate(g, 0);
	assert_int_equal(bn_curve_html_record(g, dir, "p.json", sha), 1);
	g_string_truncate(g, 0);
	/* another hash: a changed profile is not the run's */
	snprintf(bad, sizeof(bad), "%s", sha);
	bad[0] = bad[0] == '0' ? '1' : '0';
	assert_int_equal(bn_curve_html_record(g, dir, "p.json", bad), 2);
	assert_null(strstr(g->str, "charger-curve"));
	assert_non_null(strstr(g->str, "id=\"charger-profile-note\""));
	assert_non_null(strstr(g->str, "the record says"));
	g_string_truncate(g, 0);
	f = fopen(out, "a");
	assert_non_null(f);
	fputs(" ", f);
	fclose(f);
	assert_int_equal(bn_curve_html_record(g, dir, "p.json", sha), 2);
	assert_non_null(strstr(g->str, "not the profile this run used"));
	g_string_truncate(g, 0);
	/* not there beside the record nor from the current directory */
	assert_int_equal(bn_curve_html_record(g, "/nonexistent", "p.json", sha), 2);
	assert_non_null(strstr(g->str, "is not there"));
	g_string_truncate(g, 0);
	/* found from the current directory (as a run names it): the hash
	 * decides, here the changed file's */
	{
		char cwd[1024];

		int changed, same;
		bool said;

		assert_non_null(getcwd(cwd, sizeof(cwd)));
		assert_int_equal(bn_file_sha256(out, bad, &err), BN_OK); /* the changed file's */
		/* back to cwd before any assertion: the other tests need it */
		assert_int_equal(chdir(dir), 0);
		changed = bn_curve_html_record(g, "/nonexistent", "p.json", sha);
		said = strstr(g->str, "not the profile this run used") != NULL;
		g_string_truncate(g, 0);
		same = bn_curve_html_record(g, "/nonexistent", "p.json", bad);
		assert_int_equal(chdir(cwd), 0);
		assert_int_equal(changed, 2);
		assert_true(said);
		assert_int_equal(same, 1);
	}
	g_string_truncate(g, 0);
	assert_int_equal(bn_curve_html_record(g, dir, NULL, sha), 0);
	assert_int_equal((int)g->len, 0);
	g_string_free(g, TRUE);
	unlink(out);
	rmdir(dir);
	bn_sweep_result_free(&s.res);
}

/* One knee: the measured block's is the profile's as written (a
 * fold-back's last segment included), the same function curve import
 * states its knee with. */
static void test_knee_is_the_profiles(void **state)
{
	const char *names[] = { "dcp-weak", "dcp-1a", "dcp-shutdown-1a2" };

	for (size_t c = 0; c < sizeof(names) / sizeof(names[0]); c++) {
		char path[512], dir[] = "/tmp/bn-sweep-XXXXXX", out[600];
		struct bn_sweep_meta m = knee_meta();
		struct bn_charger prof, *back = malloc(sizeof(*back));
		struct bn_err err = { 0 };
		struct swept s;
		cJSON *meas;
		double want;
		bool at_least;

		assert_non_null(back);
		assert_non_null(mkdtemp(dir));
		snprintf(path, sizeof(path), "%s/profiles/chargers/%s.json", bn_test_srcdir(), names[c]);
		sweep_sim(path, 2.0, NULL, NULL, NULL, &s);
		assert_int_equal(bn_sweep_charger(&s.res, &s.cfg, &m, &prof, &err), BN_OK);
		meas = bn_sweep_measured(&s.res, &s.cfg, &m);
		snprintf(out, sizeof(out), "%s/p.json", dir);
		assert_int_equal(bn_sweep_write(out, &prof, true, meas, &err), BN_OK);
		assert_int_equal(bn_charger_load(out, back, &err), BN_OK);
		want = bn_profile_knee(back, m.vchg_min_v, &at_least);
		if (!(fabs(bn_jnum(bn_jget(meas, "knee"), "a") - want) <= 1e-9))
			fail_msg("%s: measured knee %.6f A, the written profile's %.6f A", names[c],
				 bn_jnum(bn_jget(meas, "knee"), "a"), want);
		assert_true(cJSON_IsBool(bn_jget(bn_jget(meas, "knee"), "at_least")));
		assert_int_equal(cJSON_IsTrue(bn_jget(bn_jget(meas, "knee"), "at_least")), at_least);
		assert_near(bn_sweep_knee(&s.res, &s.cfg, &m, NULL), want, 1e-9);
		/* the shared keys */
		assert_near(bn_jnum(bn_jget(meas, "vchg"), "max_v"), m.vchg_max_v, 0.0);
		assert_true(cJSON_IsArray(bn_jget(meas, "points")));
		assert_non_null(bn_jstr(meas, "uncertainty"));
		cJSON_Delete(meas);
		free(back);
		unlink(out);
		rmdir(dir);
		bn_sweep_result_free(&s.res);
	}
}

/* Each point's u: the readings' scatter, plus the load's stated accuracy
 * when the bench gives it; the block says which. */
static void test_u_with_stated_accuracy(void **state)
{
	struct bn_meas mv = { 0 }, mi = { 0 };
	struct bn_sweep_meta m = knee_meta();
	char path[512];
	struct swept s;
	cJSON *meas;

	bn_test_path("profiles/chargers/dcp-1a.json", path, sizeof(path));
	sweep_sim(path, 0.5, NULL, NULL, NULL, &s);
	/* the simulated load reads exactly: u is 0 and says type A only */
	assert_near(s.res.pts[2].u_v_v, 0.0, 1e-9);
	meas = bn_sweep_measured(&s.res, &s.cfg, &m);
	assert_non_null(strstr(bn_jstr(meas, "uncertainty"), "type A only"));
	cJSON_Delete(meas);
	bn_sweep_result_free(&s.res);

	mv.offset = 0.010; /* 10 mV: u = 10 mV / sqrt(3) */
	mi.gain = 0.01;    /* 1 %: u = 0.01 I / sqrt(3) */
	{
		struct bn_sweep_sim sim;
		struct bn_sweep_bench b;
		char port[512];

		memset(&s, 0, sizeof(s));
		assert_int_equal(bn_charger_load(path, &s.orig, &s.err), BN_OK);
		cfg_default(&s.cfg, 0.5);
		s.cfg.meas_v = &mv;
		s.cfg.meas_i = &mi;
		bn_test_path("profiles/ports/dcp.json", port, sizeof(port));
		assert_int_equal(bn_sweep_sim_open(&sim, &bn_test_lim, port, &s.orig, NULL, &s.err),
				 BN_OK);
		bn_sweep_sim_bench(&sim, &b);
		assert_int_equal(bn_sweep_run(&s.cfg, &b, &s.res, &s.err), BN_OK);
		bn_sweep_sim_close(&sim);
	}
	for (int k = 0; k < s.res.n; k++) {
		assert_near(s.res.pts[k].u_v_v, 0.010 / sqrt(3.0), 1e-9);
		assert_near(s.res.pts[k].u_i_a, 0.01 * s.res.pts[k].i_a / sqrt(3.0), 1e-9);
	}
	meas = bn_sweep_measured(&s.res, &s.cfg, &m);
	assert_non_null(strstr(bn_jstr(meas, "uncertainty"), "stated accuracy"));
	assert_near(bn_jnum(cJSON_GetArrayItem(bn_jget(meas, "points"), 1), "u_v"), 0.010 / sqrt(3.0),
		    1e-9);
	cJSON_Delete(meas);
	bn_sweep_result_free(&s.res);
}

static void test_cfg_check(void **state)
{
	struct bn_sweep_cfg c;
	struct bn_err err = { 0 };
	int n;

	cfg_default(&c, 1.0);
	assert_int_equal(bn_sweep_cfg_check(&c, &n, &err), BN_OK);
	assert_int_equal(n, 21);
	c.to_a = 1.02; /* a last, shorter step lands on --to */
	assert_int_equal(bn_sweep_cfg_check(&c, &n, &err), BN_OK);
	assert_int_equal(n, 22);
	c.settle_us = c.dwell_us;
	assert_int_equal(bn_sweep_cfg_check(&c, &n, &err), BN_ERR_ARG);
	assert_msg_has(&err, "--settle");
	cfg_default(&c, 1.0);
	c.step_a = 0.0;
	bn_err_clear(&err);
	assert_int_equal(bn_sweep_cfg_check(&c, &n, &err), BN_ERR_ARG);
	assert_msg_has(&err, "--step");
}

static void test_partial_path(void **state)
{
	char b[64];

	bn_sweep_partial_path("out/dcp.json", b, sizeof(b));
	assert_string_equal(b, "out/dcp.partial.json");
	bn_sweep_partial_path("dcp", b, sizeof(b));
	assert_string_equal(b, "dcp.partial.json");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mean),
		cmocka_unit_test(test_knee),
		cmocka_unit_test(test_shutdown),
		cmocka_unit_test(test_cable_noisy),
		cmocka_unit_test(test_reduce),
		cmocka_unit_test(test_cfg_check),
		cmocka_unit_test(test_partial_path),
		cmocka_unit_test(test_every_shipped_charger),
		cmocka_unit_test(test_shutdown_charger),
		cmocka_unit_test(test_noisy_load),
		cmocka_unit_test(test_load_stalls),
		cmocka_unit_test(test_interrupted),
		cmocka_unit_test(test_safe_first_failure),
		cmocka_unit_test(test_guard_refuses),
		cmocka_unit_test(test_curve_html),
		cmocka_unit_test(test_curve_html_record),
		cmocka_unit_test(test_knee_is_the_profiles),
		cmocka_unit_test(test_u_with_stated_accuracy),
		cmocka_unit_test(test_sense2_cable),
	};

	return cmocka_run_group_tests(tests, bn_test_setup_limits, bn_test_teardown_limits);
}
