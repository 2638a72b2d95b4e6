/* Port scenarios and the port golden matrix.
 *
 * 1. The physics: the bench's probe (firmware "probe", dut bench-probe)
 *    drives each shipped port and charger in the simulated world, and each
 *    faulty one does on D+, D- and VBUS what its profile says it breaks
 *    (the late-release CDP still holds D- at VDM_SRC 40 ms after D+ drops,
 *    the 300 ohm short reads 300 ohm, ...), while the compliant ones stay
 *    inside their limits. These hold whatever the port rules say.
 * 2. The matrix (tests/golden-port/port.tsv, PORT CHARGER RULES... or -):
 *    each row runs the port scenario of the port's type (port-dcp.scn,
 *    port-cdp.scn) with that port and charger; the port rules that FAIL are
 *    exactly the row's, both ways. Every shipped charger and every
 *    charging-port profile has a row; a charger's "compliant" and "breaks"
 *    agree with its rows. Needs the port rules: skipped (saying so) while
 *    the registry has none of the rules the file names.
 * 3. The reference firmware on each faulty port and charger (the device
 *    scenarios dcp.scn, cdp.scn): no device rule FAILs.
 * Optional argument: a cmocka test-name filter. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/harness.h"
#include "checks/check.h"
#include "core/json.h"
#include "firmware/probe_fw.h"
#include "report/report.h"
#include "scenario/runner.h"
#include "sim/charger.h"
#include "sim/dut.h"
#include "sim/host.h"
#include "sim/port.h"
#include "sim/world.h"

/* ---- a recording bench ---- */

#define REC_MAX_TEL 128

struct rec {
	int n, cap;
	bn_time_us *t;
	struct bn_sample *s;
	int n_tel;
	struct {
		bn_time_us t;
		char key[32], val[32];
	} tel[REC_MAX_TEL];
};

static void rec_sample(void *user, bn_time_us t, const struct bn_sample *s)
{
	struct rec *r = user;

	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 8192;
		r->t = realloc(r->t, sizeof(*r->t) * (size_t)r->cap);
		r->s = realloc(r->s, sizeof(*r->s) * (size_t)r->cap);
		assert_non_null(r->t);
		assert_non_null(r->s);
	}
	r->t[r->n] = t;
	r->s[r->n++] = *s;
}

static void rec_event(void *user, bn_time_us t, const char *kind, const char *detail)
{
	struct rec *r = user;
	const char *eq = strchr(detail, '=');

	if (strcmp(kind, "telemetry") || !eq || r->n_tel == REC_MAX_TEL)
		return;
	r->tel[r->n_tel].t = t;
	snprintf(r->tel[r->n_tel].key, sizeof(r->tel[0].key), "%.*s", (int)(eq - detail), detail);
	snprintf(r->tel[r->n_tel].val, sizeof(r->tel[0].val), "%s", eq + 1);
	r->n_tel++;
}

/* When the probe first reported key=val; fails if it never did. */
static bn_time_us tel_at(const struct rec *r, const char *key, const char *val)
{
	for (int i = 0; i < r->n_tel; i++)
		if (!strcmp(r->tel[i].key, key) && !strcmp(r->tel[i].val, val))
			return r->tel[i].t;
	fail_msg("the probe never reported %s=%s", key, val);
	return 0;
}

/* The probe's last value of key ("" never). */
static const char *tel_last(const struct rec *r, const char *key)
{
	const char *v = "";

	for (int i = 0; i < r->n_tel; i++)
		if (!strcmp(r->tel[i].key, key))
			v = r->tel[i].val;
	return v;
}

/* The first sample at or after t. */
static const struct bn_sample *at(const struct rec *r, bn_time_us t)
{
	for (int k = 0; k < r->n; k++)
		if (r->t[k] >= t)
			return &r->s[k];
	fail_msg("no sample at or after %lld us", (long long)t);
	return NULL;
}

/* The first time in [t0, t1) channel ch is at or above level; -1 never. */
static bn_time_us first_above(const struct rec *r, int ch, double level, bn_time_us t0,
			      bn_time_us t1)
{
	for (int k = 0; k < r->n; k++)
		if (r->t[k] >= t0 && r->t[k] < t1 && r->s[k].v[ch] >= level)
			return r->t[k];
	return -1;
}

/* The mean of channel ch over [t0, t1). */
static double mean(const struct rec *r, int ch, bn_time_us t0, bn_time_us t1)
{
	double sum = 0;
	int n = 0;

	for (int k = 0; k < r->n; k++)
		if (r->t[k] >= t0 && r->t[k] < t1) {
			sum += r->s[k].v[ch];
			n++;
		}
	assert_true(n > 0);
	return sum / n;
}

/* ---- the rig: the probe on a port behind a charger ---- */

struct rig {
	struct bn_port_profile port;
	struct bn_charger charger;
	struct bn_host_profile host;
	struct bn_dut_decl dut;
	struct bn_world_cfg cfg;
	struct rec rec;
	struct bn_world *w;
};

static void rig_init(struct rig *g, const char *port, const char *charger, double rate_hz)
{
	struct bn_err err = { 0 };
	char path[512], rel[128];

	memset(g, 0, sizeof(*g));
	snprintf(rel, sizeof(rel), "profiles/ports/%s.json", port);
	bn_test_path(rel, path, sizeof(path));
	if (bn_port_load(path, &bn_test_lim, &g->port, &err))
		fail_msg("%s", err.msg);
	snprintf(rel, sizeof(rel), "profiles/chargers/%s.json", charger);
	bn_test_path(rel, path, sizeof(path));
	if (bn_charger_load(path, &g->charger, &err))
		fail_msg("%s", err.msg);
	bn_test_path("profiles/duts/bench-probe.json", path, sizeof(path));
	if (bn_dut_load(path, &bn_test_lim, &g->dut, &err))
		fail_msg("%s", err.msg);
	assert_string_equal(g->dut.firmware, "probe");
	bn_host_default(&bn_test_lim, &g->host);
	g->cfg = (struct bn_world_cfg){
		.lim = &bn_test_lim, .port = &g->port, .charger = &g->charger, .host = &g->host,
		.dut = &g->dut, .fw = probe_fw_get(), .battery_v = NAN, .data_delay_us = -1,
		.sample_rate_hz = rate_hz,
		.sink = { .user = &g->rec, .sample = rec_sample, .event = rec_event },
	};
}

static void rig_run(struct rig *g, bn_time_us t_end)
{
	struct bn_err err = { 0 };

	if (!g->w) {
		if (bn_world_new(&g->cfg, &g->w, &err))
			fail_msg("bn_world_new: %s", err.msg);
		bn_world_plug(g->w);
	}
	if (bn_world_run_until(g->w, t_end, &err))
		fail_msg("bn_world_run_until: %s", err.msg);
}

static void rig_free(struct rig *g)
{
	bn_world_free(g->w);
	free(g->rec.t);
	free(g->rec.s);
}

static double lim_min(const char *n)
{
	double v = bn_limits_min(&bn_test_lim, n);

	assert_false(isnan(v));
	return v;
}

static double lim_max(const char *n)
{
	double v = bn_limits_max(&bn_test_lim, n);

	assert_false(isnan(v));
	return v;
}

#define MS(x) ((bn_time_us)(x) * 1000)

/* The probe's detection, run to its end (idle, DCD, primary, release,
 * secondary: well inside 600 ms) at 100 kHz. */
static void detect(struct rig *g, const char *port, const char *charger)
{
	rig_init(g, port, charger, 100e3);
	rig_run(g, MS(600));
}

/* ---- 1. the physics ---- */

/* The probe walks a device's detection in order, reaches the port's
 * type, and draws nothing: IBUS stays 0 all the way. */
static void test_golden_port__probe_detects_and_draws_nothing(void **state)
{
	static const char *const ports[][2] = { { "dcp", "dcp-1a" }, { "cdp", "cdp-1a5" } };

	(void)state;
	for (int i = 0; i < 2; i++) {
		struct rig g;
		bn_time_us t_idle, t_dcd, t_pri, t_rel, t_sec;
		double ibus_max = 0;

		detect(&g, ports[i][0], ports[i][1]);
		t_idle = tel_at(&g.rec, "state", "idle");
		t_dcd = tel_at(&g.rec, "state", "dcd");
		t_pri = tel_at(&g.rec, "state", "primary");
		t_rel = tel_at(&g.rec, "state", "release");
		t_sec = tel_at(&g.rec, "state", "secondary");
		assert_true(t_idle < t_dcd && t_dcd < t_pri && t_pri < t_rel && t_rel < t_sec);
		/* each phase held what probe_fw_timing says, to the poll */
		assert_true(t_dcd - t_idle >= probe_fw_timing.idle_us);
		assert_true(t_rel - t_pri >= probe_fw_timing.primary_us);
		assert_true(t_sec - t_rel >= probe_fw_timing.release_us);
		/* primary held past TVDMSRC_EN max: a late answer is timed */
		assert_true(probe_fw_timing.primary_us >= 2 * lim_max("TVDMSRC_EN") * 1e6);
		assert_true(probe_fw_timing.release_us >= 2 * lim_max("TVDMSRC_DIS") * 1e6);
		assert_true(probe_fw_timing.secondary_us >= lim_min("TVDMSRC_ON") * 1e6);
		assert_true(probe_fw_timing.dcd_dbnc_us >= lim_min("TDCD_DBNC") * 1e6);
		assert_string_equal(tel_last(&g.rec, "dcd"), "contact");
		assert_string_equal(tel_last(&g.rec, "primary"), "charging");
		assert_string_equal(tel_last(&g.rec, "port"), ports[i][0]);
		for (int k = 0; k < g.rec.n; k++)
			ibus_max = fmax(ibus_max, fabs(g.rec.s[k].v[BN_CH_IBUS]));
		assert_true(ibus_max == 0.0);
		rig_free(&g);
	}
}

/* The DCP's short as the probe's primary detection reads it: VDP_SRC on
 * D+, IDM_SINK and the parts' leakage out of D-, so R = (D+ - D-) / I.
 * The compliant one is RDCP_DAT max; dcp-short-300 is above it. */
static double short_ohm(const char *port)
{
	struct rig g;
	bn_time_us t;
	const struct bn_sample *s;
	double i_a, r;

	detect(&g, port, "dcp-1a");
	t = tel_at(&g.rec, "state", "primary") + MS(50);
	s = at(&g.rec, t);
	i_a = g.dut.phy.idm_sink_a + s->v[BN_CH_DM] / g.port.leakage_ohm;
	r = (s->v[BN_CH_DP] - s->v[BN_CH_DM]) / i_a;
	rig_free(&g);
	return r;
}

static void test_golden_port__dcp_short_as_probed(void **state)
{
	double r_max = lim_max("RDCP_DAT");

	(void)state;
	/* the compliant one is at the limit itself, to the solver's rounding */
	assert_near(short_ohm("dcp"), r_max, 1e-3);
	assert_near(short_ohm("dcp-short-300"), 300.0, 1e-3);
	assert_true(short_ohm("dcp-short-300") > r_max + 50.0);
}

/* With nothing of the probe's on them, a compliant DCP's lines sit at
 * 0 V; dcp-leaky's sit where its 2 V through 150 kohm meets the parts'
 * leakage to ground: a Thevenin source far stronger than RDAT_LKG min. */
static void test_golden_port__leaky_lines_idle(void **state)
{
	struct rig g;
	bn_time_us t;
	double v_expect;

	(void)state;
	detect(&g, "dcp", "dcp-1a");
	t = tel_at(&g.rec, "state", "idle") + MS(40);
	assert_true(fabs(at(&g.rec, t)->v[BN_CH_DP]) < 1e-6);
	assert_true(fabs(at(&g.rec, t)->v[BN_CH_DM]) < 1e-6);
	rig_free(&g);

	detect(&g, "dcp-leaky", "dcp-1a");
	assert_true(g.port.has_leak_source);
	assert_true(g.port.leak_r_ohm < lim_min("RDAT_LKG"));
	v_expect = g.port.leak_v * g.port.leakage_ohm / (g.port.leakage_ohm + g.port.leak_r_ohm);
	t = tel_at(&g.rec, "state", "idle") + MS(40);
	assert_near(at(&g.rec, t)->v[BN_CH_DP], v_expect, 1e-3);
	assert_near(at(&g.rec, t)->v[BN_CH_DM], v_expect, 1e-3);
	assert_near(v_expect, 4.0 / 3.0, 1e-3);
	/* the probe still finds the DCP */
	assert_string_equal(tel_last(&g.rec, "port"), "dcp");
	rig_free(&g);
}

/* leak_source is read with its units, and refused, naming the key,
 * without a resistance, with one <= 0, or with a key it does not know. */
static void test_golden_port__leak_source_key(void **state)
{
	static const char *const bad[][2] = {
		{ "{\"v\": \"2V\"}", "missing key \"r\"" },
		{ "{\"v\": \"2V\", \"r\": \"0ohm\"}", "key \"r\"" },
		{ "{\"v\": \"2V\", \"r\": \"1kohm\", \"i\": \"1A\"}", "\"i\"" },
		{ "{\"v\": 2, \"r\": \"1kohm\"}", "\"v\"" },
	};
	char dir[] = "/tmp/bn-leak-XXXXXX", path[256];
	struct bn_port_profile p;
	struct bn_err err = { 0 };
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/p.json", dir);
	for (int i = -1; i < (int)(sizeof(bad) / sizeof(bad[0])); i++) {
		f = fopen(path, "w");
		assert_non_null(f);
		fprintf(f, "{\"expect\": \"dcp\", \"enumeration\": \"none\", \"leak_source\": %s}",
			i < 0 ? "{\"v\": \"3.6V\", \"r\": \"250kohm\"}" : bad[i][0]);
		fclose(f);
		memset(&err, 0, sizeof(err));
		if (i < 0) {
			if (bn_port_load(path, &bn_test_lim, &p, &err))
				fail_msg("%s", err.msg);
			assert_true(p.has_leak_source);
			assert_near(p.leak_v, 3.6, 1e-12);
			assert_near(p.leak_r_ohm, 250e3, 1e-6);
			continue;
		}
		assert_int_equal(bn_port_load(path, &bn_test_lim, &p, &err), BN_ERR_DATA);
		assert_msg_has(&err, "leak_source");
		assert_msg_has(&err, bad[i][1]);
	}
	remove(path);
	rmdir(dir);
}

/* When D- reaches VDM_SRC min after the probe's VDP_SRC went on, in ms;
 * -1: not within the probe's primary detection. */
static double answer_ms(const char *port, double *dm_end_v, const char **found)
{
	static char port_found[32];
	struct rig g;
	bn_time_us t0, t1, ta;

	detect(&g, port, "cdp-1a5");
	t0 = tel_at(&g.rec, "state", "primary");
	t1 = t0 + probe_fw_timing.primary_us;
	ta = first_above(&g.rec, BN_CH_DM, lim_min("VDM_SRC"), t0, t1);
	*dm_end_v = at(&g.rec, t1 - MS(1))->v[BN_CH_DM];
	snprintf(port_found, sizeof(port_found), "%s", tel_last(&g.rec, "port"));
	*found = port_found;
	rig_free(&g);
	return ta < 0 ? -1.0 : (double)(ta - t0) / 1000.0;
}

static void test_golden_port__cdp_answer_as_probed(void **state)
{
	double en_ms = lim_max("TVDMSRC_EN") * 1e3, dm_v;
	const char *found;

	(void)state;
	/* on time: at TVDMSRC_EN max, to the 10 us sample */
	assert_near(answer_ms("cdp", &dm_v, &found), en_ms, 0.02);
	assert_true(dm_v >= lim_min("VDM_SRC") && dm_v <= lim_max("VDM_SRC"));
	assert_string_equal(found, "cdp");
	/* late: 60 ms, measured inside the probe's 100 ms */
	assert_near(answer_ms("cdp-late", &dm_v, &found), 60.0, 0.02);
	assert_string_equal(found, "cdp");
	/* mute: never, D- stays near 0 */
	assert_true(answer_ms("cdp-mute", &dm_v, &found) < 0);
	assert_true(dm_v < lim_min("VDAT_REF"));
	assert_string_equal(found, "sdp");
	/* on time, but D- above VDM_SRC max */
	assert_near(answer_ms("cdp-vdm-high", &dm_v, &found), en_ms, 0.02);
	assert_true(dm_v > lim_max("VDM_SRC") + 0.04);
	assert_true(dm_v < lim_min("VLGC") - 0.04);
	assert_string_equal(found, "cdp");
}

/* The release: after the probe takes VDP_SRC off D+, a compliant CDP
 * drops D- within TVDMSRC_DIS max; cdp-sticky still holds it at VDM_SRC
 * 40 ms after D+ dropped, and lets go at 60 ms. */
static void test_golden_port__cdp_release_as_probed(void **state)
{
	double dis_s = lim_max("TVDMSRC_DIS");
	struct rig g;
	bn_time_us t0;
	double dm;

	(void)state;
	detect(&g, "cdp", "cdp-1a5");
	t0 = tel_at(&g.rec, "state", "release");
	assert_true(at(&g.rec, t0 + 10)->v[BN_CH_DP] < lim_min("VDAT_REF"));
	assert_true(at(&g.rec, t0 + bn_time_from_s(dis_s))->v[BN_CH_DM] < lim_min("VDAT_REF"));
	rig_free(&g);

	detect(&g, "cdp-sticky", "cdp-1a5");
	t0 = tel_at(&g.rec, "state", "release");
	assert_true(at(&g.rec, t0 + 10)->v[BN_CH_DP] < lim_min("VDAT_REF"));
	dm = at(&g.rec, t0 + MS(40))->v[BN_CH_DM];
	assert_true(dm >= lim_min("VDM_SRC") && dm <= lim_max("VDM_SRC"));
	assert_true(at(&g.rec, t0 + MS(59))->v[BN_CH_DM] >= lim_min("VDM_SRC"));
	assert_true(at(&g.rec, t0 + MS(61))->v[BN_CH_DM] < lim_min("VDAT_REF"));
	/* the probe's own comparator reading agrees, to its 1 ms poll */
	assert_true(atol(tel_last(&g.rec, "vdm_off_us")) >= 60000 &&
		    atol(tel_last(&g.rec, "vdm_off_us")) <= 61000 + (long)probe_fw_timing.poll_us);
	rig_free(&g);
}

/* The load plan of port-dcp.scn / port-cdp.scn at the world's level:
 * after detection, plateaus of 300 ms at each step; VBUS's mean over the
 * last TVBUS_AVG of each plateau into v_avg. Returns the plateaus' start
 * times in t_step. */
static void load_plan(struct rig *g, const double *steps_a, int n, double *v_avg,
		      bn_time_us *t_step)
{
	bn_time_us t = MS(500), avg = bn_time_from_s(lim_max("TVBUS_AVG"));

	rig_run(g, t);
	for (int i = 0; i < n; i++) {
		bn_world_load(g->w, steps_a[i]);
		t_step[i] = t;
		t += MS(300);
		rig_run(g, t);
		v_avg[i] = mean(&g->rec, BN_CH_VBUS, t - avg, t);
	}
}

/* port-dcp.scn's plan to the overload, and port-cdp.scn's. */
static const double dcp_plan[] = { 0.0, 0.5, 1.0, 0.0, 1.5, 0.0 };
static const double cdp_plan[] = { 0.0, 0.5, 1.0, 1.5, 0.0 };

/* The extremes of VBUS over [t0, t1). */
static void vbus_range(const struct rec *r, bn_time_us t0, bn_time_us t1, double *lo, double *hi)
{
	*lo = INFINITY;
	*hi = -INFINITY;
	for (int k = 0; k < r->n; k++)
		if (r->t[k] >= t0 && r->t[k] < t1) {
			*lo = fmin(*lo, r->s[k].v[BN_CH_VBUS]);
			*hi = fmax(*hi, r->s[k].v[BN_CH_VBUS]);
		}
}

static void test_golden_port__charger_vchg_as_loaded(void **state)
{
	double lo = lim_min("VCHG"), hi = lim_max("VCHG"), v[8], vmin, vmax;
	bn_time_us ts[8];
	struct rig g;

	(void)state;
	/* compliant: every plateau up to the rating inside VCHG, and no
	 * excursion out of it at any step inside the rating */
	rig_init(&g, "dcp", "dcp-1a", 10e3);
	load_plan(&g, dcp_plan, 4, v, ts);
	for (int i = 0; i < 4; i++)
		if (!(v[i] >= lo && v[i] <= hi))
			fail_msg("dcp-1a at %g A: %g V outside VCHG", dcp_plan[i], v[i]);
	vbus_range(&g.rec, MS(100), ts[3] + MS(300), &vmin, &vmax);
	assert_true(vmin >= lo && vmax <= hi);
	rig_free(&g);
	rig_init(&g, "cdp", "cdp-1a5", 10e3);
	load_plan(&g, cdp_plan, 5, v, ts);
	for (int i = 0; i < 5; i++)
		if (!(v[i] >= lo && v[i] <= hi))
			fail_msg("cdp-1a5 at %g A: %g V outside VCHG", cdp_plan[i], v[i]);
	rig_free(&g);
	/* cdp-vchg-low: inside VCHG to 1 A, under it at its 1.5 A rating */
	rig_init(&g, "cdp", "cdp-vchg-low", 10e3);
	assert_near(g.charger.rated_a, 1.5, 1e-12);
	load_plan(&g, cdp_plan, 4, v, ts);
	for (int i = 0; i < 3; i++)
		assert_true(v[i] >= lo && v[i] <= hi);
	assert_true(v[3] < lo - 0.1);
	/* under VCHG at the charger's own output too, not only after the cable */
	assert_true(bn_charger_v_out(&g.charger, 1.5) < lo);
	rig_free(&g);
	/* dcp-sag: good at 0.5 A in its first second, under VCHG at 1 A after */
	rig_init(&g, "dcp", "dcp-sag", 10e3);
	load_plan(&g, dcp_plan, 4, v, ts);
	assert_true(v[1] >= lo && v[1] <= hi && ts[2] >= MS(1000));
	assert_true(v[2] < lo - 0.1);
	assert_true(v[3] >= lo && v[3] <= hi);
	rig_free(&g);
	/* dcp-rated-0a4: a good output, a rating below IDCP min */
	rig_init(&g, "dcp", "dcp-rated-0a4", 10e3);
	assert_true(g.charger.rated_a < lim_min("IDCP"));
	load_plan(&g, dcp_plan, 4, v, ts);
	for (int i = 0; i < 4; i++)
		assert_true(v[i] >= lo && v[i] <= hi);
	rig_free(&g);
}

/* Transients: dcp-overshoot turns on above VCHG_OVRSHT and settles;
 * dcp-undershoot's 1 A step stays under VCHG min past TDCP_UNDSHT max but
 * above VCHG_UNDSHT, its releases stay under VCHG_OVRSHT and its averages
 * inside VCHG. */
static void test_golden_port__transients_as_loaded(void **state)
{
	double lo = lim_min("VCHG"), hi = lim_max("VCHG"), ovr = lim_max("VCHG_OVRSHT");
	double und = lim_min("VCHG_UNDSHT"), v[8], vmin, vmax;
	bn_time_us ts[8], below_us = 0, dt = 10;
	struct rig g;

	(void)state;
	rig_init(&g, "dcp", "dcp-overshoot", 100e3);
	load_plan(&g, dcp_plan, 4, v, ts);
	vbus_range(&g.rec, 0, MS(1), &vmin, &vmax);
	assert_true(vmax > ovr + 0.3);
	vbus_range(&g.rec, MS(20), ts[3] + MS(300), &vmin, &vmax);
	assert_true(vmin >= lo && vmax <= hi);
	rig_free(&g);

	rig_init(&g, "dcp", "dcp-undershoot", 100e3);
	load_plan(&g, dcp_plan, 6, v, ts);
	vbus_range(&g.rec, ts[2], ts[2] + MS(300), &vmin, &vmax);
	assert_true(vmin < lo - 0.1 && vmin > und + 0.3);
	for (int k = 0; k < g.rec.n; k++)
		if (g.rec.t[k] >= ts[2] && g.rec.t[k] < ts[2] + MS(300) &&
		    g.rec.s[k].v[BN_CH_VBUS] < lo)
			below_us += dt;
	assert_true(below_us > 2 * bn_time_from_s(lim_max("TDCP_UNDSHT")));
	vbus_range(&g.rec, MS(100), ts[5] + MS(300), &vmin, &vmax);
	assert_true(vmax < ovr - 0.1);
	for (int i = 0; i < 4; i++)
		assert_true(v[i] >= lo && v[i] <= hi);
	rig_free(&g);
}

/* A shutdown is the output going off with VBUS still high: dcp-shutdown-high
 * inside its rating (at the 1 A step), dcp-shutdown-1a2 on port-dcp's
 * overload (and back within TSHTDWN_REC); dcp-1a on the overload folds
 * back, VBUS below VDCP_SHTDWN from the step on. */
static void test_golden_port__shutdown_as_loaded(void **state)
{
	double shtdwn = lim_max("VDCP_SHTDWN"), v[8];
	bn_time_us ts[8];
	struct rig g;

	(void)state;
	rig_init(&g, "dcp", "dcp-shutdown-high", 100e3);
	assert_true(1.0 <= g.charger.rated_a);
	load_plan(&g, dcp_plan, 3, v, ts);
	assert_true(at(&g.rec, ts[1] + MS(100))->v[BN_CH_VBUS] > lim_min("VCHG"));
	assert_true(at(&g.rec, ts[2] + MS(4))->v[BN_CH_VBUS] > lim_min("VCHG"));
	assert_true(at(&g.rec, ts[2] + MS(6))->v[BN_CH_VBUS] < 0.1);
	rig_free(&g);

	rig_init(&g, "dcp", "dcp-shutdown-1a2", 100e3);
	load_plan(&g, dcp_plan, 6, v, ts);
	assert_true(at(&g.rec, ts[4] + MS(4))->v[BN_CH_VBUS] > shtdwn + 2.0);
	assert_true(at(&g.rec, ts[4] + MS(6))->v[BN_CH_VBUS] < 0.1);
	rig_run(&g, ts[4] + MS(1100));
	assert_true(at(&g.rec, ts[4] + MS(1090))->v[BN_CH_VBUS] > lim_min("VCHG"));
	assert_true(bn_time_from_s(1.1) < bn_time_from_s(lim_max("TSHTDWN_REC")));
	rig_free(&g);

	rig_init(&g, "dcp", "dcp-1a", 100e3);
	load_plan(&g, dcp_plan, 6, v, ts);
	for (int k = 0; k < g.rec.n; k++)
		if (g.rec.t[k] >= ts[4] && g.rec.t[k] < ts[5] && !(g.rec.s[k].v[BN_CH_VBUS] < shtdwn))
			fail_msg("dcp-1a at 1.5 A: VBUS %g V at %lld us, not below VDCP_SHTDWN",
				 g.rec.s[k].v[BN_CH_VBUS], (long long)g.rec.t[k]);
	assert_true(at(&g.rec, ts[5] + MS(100))->v[BN_CH_VBUS] > lim_min("VCHG"));
	rig_free(&g);
}

/* ---- 2. the matrix ---- */

#define MAX_ROWS 64
#define MAX_RULES 12

struct prow {
	int line;
	char port[48], charger[64];
	int n_rules;
	char rules[MAX_RULES][64];
};

struct pmatrix {
	char file[512];
	int n;
	struct prow rows[MAX_ROWS];
	int n_unknown;       /* rule ids the registry does not know */
	char unknown[64];    /* the first of them */
};

static void load_pmatrix(struct pmatrix *m)
{
	char line[1024];
	FILE *f;
	int lineno = 0;

	memset(m, 0, sizeof(*m));
	bn_test_path("tests/golden-port/port.tsv", m->file, sizeof(m->file));
	f = fopen(m->file, "r");
	if (!f)
		fail_msg("cannot open %s", m->file);
	while (fgets(line, sizeof(line), f)) {
		char *tok, *save = NULL, *hash = strchr(line, '#');
		struct prow *r;

		lineno++;
		if (hash)
			*hash = '\0';
		tok = strtok_r(line, " \t\r\n", &save);
		if (!tok)
			continue;
		assert_true(m->n < MAX_ROWS);
		r = &m->rows[m->n++];
		r->line = lineno;
		snprintf(r->port, sizeof(r->port), "%s", tok);
		tok = strtok_r(NULL, " \t\r\n", &save);
		if (!tok)
			fail_msg("%s:%d: expected PORT CHARGER RULE... (or -)", m->file, lineno);
		snprintf(r->charger, sizeof(r->charger), "%s", tok);
		while ((tok = strtok_r(NULL, " \t\r\n", &save))) {
			if (!strcmp(tok, "-"))
				continue;
			assert_true(r->n_rules < MAX_RULES);
			if (strncmp(tok, "bc12.port.", 10))
				fail_msg("%s:%d: \"%s\" is not a port rule id", m->file, lineno, tok);
			if (!bn_rule_find(tok) && !m->n_unknown++)
				snprintf(m->unknown, sizeof(m->unknown), "%s", tok);
			snprintf(r->rules[r->n_rules++], 64, "%s", tok);
		}
	}
	fclose(f);
	assert_true(m->n > 0);
}

static bool row_lists(const struct prow *r, const char *id)
{
	for (int i = 0; i < r->n_rules; i++)
		if (!strcmp(r->rules[i], id))
			return true;
	return false;
}

/* The port profile's type ("dcp", "cdp", ...). */
static enum bn_port_type port_type(const char *port)
{
	struct bn_port_profile p;
	struct bn_err err = { 0 };
	char path[512], rel[128];

	snprintf(rel, sizeof(rel), "profiles/ports/%s.json", port);
	bn_test_path(rel, path, sizeof(path));
	if (bn_port_load(path, &bn_test_lim, &p, &err))
		fail_msg("%s", err.msg);
	return p.expect;
}

/* Run scripts/scenarios/SCN.scn with the port and charger (NULL: the
 * scenario's) and the firmware (NULL: the dut's). */
static void run_scn(const char *scn, const char *port, const char *charger, const char *fw,
		    struct bn_report *rep)
{
	char path[512], rel[128];
	struct bn_err err = { 0 };
	struct bn_run_opts o = { .datadir = bn_test_srcdir() };

	snprintf(rel, sizeof(rel), "scripts/scenarios/%s.scn", scn);
	bn_test_path(rel, path, sizeof(path));
	o.scenario_path = path;
	o.port_override = port;
	o.charger_override = charger;
	o.firmware_override = fw;
	bn_report_init(rep);
	if (bn_run_scenario(&o, rep, &err) != BN_OK)
		fail_msg("%s on %s/%s: %s", scn, port ? port : "-", charger ? charger : "-", err.msg);
	if (rep->status != BN_RUN_COMPLETED)
		fail_msg("%s on %s/%s: did not complete: %s", scn, port ? port : "-",
			 charger ? charger : "-", rep->reason);
}

static const char *port_scenario(const char *port)
{
	switch (port_type(port)) {
	case BN_PORT_DCP: return "port-dcp";
	case BN_PORT_CDP: return "port-cdp";
	default: fail_msg("port %s: no port scenario for its type", port);
	}
	return NULL;
}

/* Both port scenarios judge the port and their expectations hold on the
 * compliant ports: the probe found what the port is. */
static void test_golden_port__scenarios_judge_the_port(void **state)
{
	static const char *const scns[] = { "port-dcp", "port-cdp" };

	(void)state;
	for (int i = 0; i < 2; i++) {
		struct bn_report rep;
		int n_expect = 0;

		run_scn(scns[i], NULL, NULL, NULL, &rep);
		assert_string_equal(rep.judges, "port");
		assert_string_equal(rep.fw_name, "probe");
		for (int k = 0; k < rep.n_results; k++) {
			const struct bn_result *r = &rep.results[k];

			if (strcmp(r->kind, "expect"))
				continue;
			n_expect++;
			if (r->verdict != BN_VERDICT_PASS)
				fail_msg("%s: %s %s (%s)", scns[i], r->id, bn_verdict_name(r->verdict),
					 r->reason);
		}
		assert_int_equal(n_expect, 3);
		bn_report_free(&rep);
	}
	/* and a device's run judges the device */
	{
		struct bn_report rep;

		run_scn("dcp", NULL, NULL, NULL, &rep);
		assert_string_equal(rep.judges, "device");
		bn_report_free(&rep);
	}
}

/* Every charging-port profile and every shipped charger has a row; a
 * charger's compliant flag agrees with its rows: a compliant one appears
 * only in rows whose failures are the port profile's, a faulty one in a
 * row of a compliant port that lists what it "breaks". */
static void test_golden_port__matrix_covers_every_profile(void **state)
{
	static struct pmatrix m;
	char dir[512], path[1024];
	struct dirent *e;
	DIR *d;

	(void)state;
	load_pmatrix(&m);
	bn_test_path("profiles/chargers", dir, sizeof(dir));
	d = opendir(dir);
	assert_non_null(d);
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		char name[64];
		cJSON *root = NULL, *br;
		struct bn_err err = { 0 };
		const cJSON *comp;
		bool in_clean = false, in_faulty = false;

		if (len < 6 || strcmp(e->d_name + len - 5, ".json"))
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)(len - 5), e->d_name);
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (bn_json_load(path, &root, &err))
			fail_msg("%s", err.msg);
		comp = cJSON_GetObjectItemCaseSensitive(root, "compliant");
		br = cJSON_GetObjectItemCaseSensitive(root, "breaks");
		for (int i = 0; i < m.n; i++) {
			const struct prow *r = &m.rows[i];
			bool base_port = !strcmp(r->port, "dcp") || !strcmp(r->port, "cdp");

			if (strcmp(r->charger, name) || !base_port)
				continue;
			if (r->n_rules)
				in_faulty = true;
			else
				in_clean = true;
			for (const cJSON *b = br ? br->child : NULL; b; b = b->next)
				if (cJSON_IsString(b) && !row_lists(r, b->valuestring))
					fail_msg("%s:%d: %s breaks %s, the row does not list it", m.file,
						 r->line, name, b->valuestring);
		}
		if (!cJSON_IsBool(comp))
			fail_msg("%s: no \"compliant\" flag", path);
		if (cJSON_IsTrue(comp) && (!in_clean || in_faulty))
			fail_msg("%s: compliant, but %s", path,
				 in_faulty ? "a row on dcp or cdp lists port rules it fails"
					   : "no row on dcp or cdp shows it failing nothing");
		if (cJSON_IsFalse(comp) && !in_faulty)
			fail_msg("%s: not compliant, but no row on dcp or cdp lists what it fails",
				 path);
		cJSON_Delete(root);
	}
	closedir(d);

	bn_test_path("profiles/ports", dir, sizeof(dir));
	d = opendir(dir);
	assert_non_null(d);
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		char name[48];
		enum bn_port_type t;
		bool found = false;

		if (len < 6 || strcmp(e->d_name + len - 5, ".json"))
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)(len - 5), e->d_name);
		t = port_type(name);
		if (t != BN_PORT_DCP && t != BN_PORT_CDP)
			continue;
		for (int i = 0; i < m.n; i++)
			found |= !strcmp(m.rows[i].port, name);
		if (!found)
			fail_msg("%s: charging port %s has no row", m.file, name);
	}
	closedir(d);
}

static bool port_rules_in_build(void)
{
	for (int i = 0, n = bn_rules_count(); i < n; i++)
		if (!strncmp(bn_rule_at(i)->id, "bc12.port.", 10))
			return true;
	return false;
}

/* Each row: the port rules that FAIL are exactly the row's. */
static void test_golden_port__matrix_both_ways(void **state)
{
	static struct pmatrix m;
	int bad = 0, judged = 0;

	(void)state;
	load_pmatrix(&m);
	if (!port_rules_in_build()) {
		print_message("port matrix skipped: no port rule in this build\n");
		skip();
	}
	/* A row's rule this build lacks is not asked to fail; every rule the
	 * build has is held to the row both ways. */
	if (m.n_unknown)
		print_message("port matrix: %d row rule(s) not in this build yet (first: %s): "
			      "judged on the rules that are\n", m.n_unknown, m.unknown);
	for (int i = 0; i < m.n; i++) {
		const struct prow *r = &m.rows[i];
		const char *scn = port_scenario(r->port);
		struct bn_report rep;

		run_scn(scn, r->port, r->charger, NULL, &rep);
		assert_string_equal(rep.judges, "port");
		for (int k = 0; k < rep.n_results; k++) {
			const struct bn_result *res = &rep.results[k];
			bool failed = res->verdict == BN_VERDICT_FAIL;

			if (strcmp(res->kind, "check") || strncmp(res->id, "bc12.port.", 10))
				continue;
			judged++;
			if (res->verdict == BN_VERDICT_ERROR) {
				print_error("%s:%d: %s/%s on %s: %s errs (%s)\n", m.file, r->line,
					    r->port, r->charger, scn, res->id, res->reason);
				bad++;
			}
			if (failed && !row_lists(r, res->id)) {
				print_error("%s:%d: %s/%s on %s also fails %s (%s)\n", m.file, r->line,
					    r->port, r->charger, scn, res->id, res->reason);
				bad++;
			}
			if (!failed && row_lists(r, res->id)) {
				print_error("%s:%d: %s/%s on %s does not fail %s: %s (%s)\n", m.file,
					    r->line, r->port, r->charger, scn, res->id,
					    bn_verdict_name(res->verdict), res->reason);
				bad++;
			}
		}
		for (int j = 0; j < r->n_rules; j++) {
			bool present = !bn_rule_find(r->rules[j]);

			for (int k = 0; k < rep.n_results; k++)
				present |= !strcmp(rep.results[k].id, r->rules[j]);
			if (!present) {
				print_error("%s:%d: %s not judged at all\n", m.file, r->line, r->rules[j]);
				bad++;
			}
		}
		bn_report_free(&rep);
	}
	assert_true(judged > 0);
	assert_int_equal(bad, 0);
}

/* Every port rule is broken by at least one row. */
static void test_golden_port__every_port_rule_has_a_breaker(void **state)
{
	static struct pmatrix m;
	int missing = 0, n_port = 0;

	(void)state;
	load_pmatrix(&m);
	for (int i = 0, n = bn_rules_count(); i < n; i++) {
		const char *id = bn_rule_at(i)->id;
		bool x = false;

		if (strncmp(id, "bc12.port.", 10))
			continue;
		n_port++;
		for (int k = 0; k < m.n; k++)
			x |= row_lists(&m.rows[k], id);
		if (!x) {
			print_error("port rule %s: no faulty port or charger in %s breaks it\n", id,
				    m.file);
			missing++;
		}
	}
	if (!n_port) {
		print_message("no port rules in this build: nothing to cover\n");
		skip();
	}
	assert_int_equal(missing, 0);
}

/* ---- 3. the reference device on faulty ports ---- */

/* Device rules that FAIL today on a faulty port although the device is
 * right, until a device rule lists the port rule it rests on (struct
 * bn_rule port_deps) and the engine turns that FAIL into INCONCLUSIVE
 * naming the port. The test holds each entry to still failing, so the
 * list empties as the rules learn their dependencies. */
static const char *const known_excuse[][3] = {
	/* the leak lifts D+ during DCD to where the rule reads VDP_SRC */
	{ "dcp-leaky", "dcp-1a", "bc12.det.primary_start" },
};

static bool known(const char *port, const char *charger, const char *id)
{
	for (size_t i = 0; i < sizeof(known_excuse) / sizeof(known_excuse[0]); i++)
		if (!strcmp(known_excuse[i][0], port) && !strcmp(known_excuse[i][1], charger) &&
		    !strcmp(known_excuse[i][2], id))
			return true;
	return false;
}

static void test_golden_port__reference_never_fails_on_a_faulty_port(void **state)
{
	static struct pmatrix m;
	int bad = 0, seen_known = 0;

	(void)state;
	load_pmatrix(&m);
	for (int i = 0; i < m.n; i++) {
		const struct prow *r = &m.rows[i];
		enum bn_port_type t = port_type(r->port);
		const char *scn = t == BN_PORT_DCP ? "dcp" : "cdp";
		struct bn_report rep;

		if (!r->n_rules)
			continue;
		run_scn(scn, r->port, r->charger, "reference", &rep);
		for (int k = 0; k < rep.n_results; k++) {
			const struct bn_result *res = &rep.results[k];

			if (strcmp(res->kind, "check") || !strncmp(res->id, "bc12.port.", 10))
				continue;
			if (res->verdict == BN_VERDICT_FAIL && known(r->port, r->charger, res->id)) {
				print_message("known: reference on %s/%s (%s) fails %s: %s\n", r->port,
					      r->charger, scn, res->id, res->reason);
				seen_known++;
				continue;
			}
			if (res->verdict == BN_VERDICT_FAIL || res->verdict == BN_VERDICT_ERROR) {
				print_error("reference on %s/%s (%s): %s %s (%s)\n", r->port, r->charger,
					    scn, res->id, bn_verdict_name(res->verdict), res->reason);
				bad++;
			}
		}
		bn_report_free(&rep);
	}
	assert_int_equal(bad, 0);
	/* an entry that no longer fails is to be taken off the list */
	assert_int_equal(seen_known, (int)(sizeof(known_excuse) / sizeof(known_excuse[0])));
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_golden_port__probe_detects_and_draws_nothing),
		cmocka_unit_test(test_golden_port__dcp_short_as_probed),
		cmocka_unit_test(test_golden_port__leaky_lines_idle),
		cmocka_unit_test(test_golden_port__leak_source_key),
		cmocka_unit_test(test_golden_port__cdp_answer_as_probed),
		cmocka_unit_test(test_golden_port__cdp_release_as_probed),
		cmocka_unit_test(test_golden_port__charger_vchg_as_loaded),
		cmocka_unit_test(test_golden_port__transients_as_loaded),
		cmocka_unit_test(test_golden_port__shutdown_as_loaded),
		cmocka_unit_test(test_golden_port__scenarios_judge_the_port),
		cmocka_unit_test(test_golden_port__matrix_covers_every_profile),
		cmocka_unit_test(test_golden_port__matrix_both_ways),
		cmocka_unit_test(test_golden_port__every_port_rule_has_a_breaker),
		cmocka_unit_test(test_golden_port__reference_never_fails_on_a_faulty_port),
	};

	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, bn_test_setup_limits, bn_test_teardown_limits);
}
