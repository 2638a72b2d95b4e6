/* Unit tests: sim/world's physics as a capture shows it: VBUS and data-line
 * capacitance (an RC, or a ramp where a current limit feeds the node), the
 * charger IC's lockout with hysteresis and deglitch, a bouncing VBUS pin
 * and the device's ground offset; and that without them (the defaults)
 * VBUS and the lines step at once, as they always did.
 * Tiny firmwares drive the world: a constant draw, DCD's current source,
 * a probe that reports the comparators. Run from the repo root or set
 * BN_SRCDIR. Optional argument: a cmocka test-name filter. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/harness.h"
#include "firmware/bcfw.h"
#include "sim/charger.h"
#include "sim/dut.h"
#include "sim/host.h"
#include "sim/lines.h"
#include "sim/port.h"
#include "sim/world.h"

/* ---- firmwares ---- */

struct tfw {
	const struct bcfw_hal *hal;
};

static int tfw_init(void *ctx, const struct bcfw_hal *hal, const struct bcfw_decl *decl)
{
	((struct tfw *)ctx)->hal = hal;
	return 0;
}

/* Opens its input to 3 A at reset: the device draws its system load. */
static void draw_wake(void *ctx, uint32_t ev)
{
	const struct bcfw_hal *h = ((struct tfw *)ctx)->hal;

	if (ev & BCFW_EV_RESET)
		h->set_input_limit_ma(h->bench, 3000);
}

/* DCD from reset: IDP_SRC on D+, RDM_DWN on D-; draws nothing. */
static void dcd_wake(void *ctx, uint32_t ev)
{
	const struct bcfw_hal *h = ((struct tfw *)ctx)->hal;

	if (ev & BCFW_EV_RESET)
		h->phy_set(h->bench, BCFW_PHY_IDP_SRC | BCFW_PHY_RDM_DWN);
}

/* Primary detection and the ID pull-up from reset; every millisecond it
 * reports what its comparators and its ID converter read. */
static void probe_wake(void *ctx, uint32_t ev)
{
	const struct bcfw_hal *h = ((struct tfw *)ctx)->hal;

	if (ev & BCFW_EV_RESET)
		h->phy_set(h->bench, BCFW_PHY_VDP_SRC | BCFW_PHY_IDM_SINK | BCFW_PHY_ID_PULLUP);
	h->telemetry_int(h->bench, "cmp", (long)h->comparators(h->bench));
	h->telemetry_int(h->bench, "id_mv", (long)h->id_mv(h->bench));
	h->wake_at(h->bench, h->now_us(h->bench) + 1000);
}

#define TFW(var, nm, wk) \
	static const struct bcfw_firmware var = { \
		.abi_version = BCFW_ABI_VERSION, .name = nm, .version = "1", \
		.ctx_size = sizeof(struct tfw), .init = tfw_init, .wake = wk, \
	}
TFW(fw_draw, "draw", draw_wake);
TFW(fw_dcd, "dcd", dcd_wake);
TFW(fw_probe, "probe", probe_wake);

/* ---- a recording bench ---- */

struct rec {
	int n, cap;
	bn_time_us *t;
	struct bn_sample *s;
	int n_uvlo, n_vbus_on, n_vbus_break;
	int n_lost, n_valid;
	bn_time_us t_lost, t_valid; /* the last of each */
};

static void rec_sample(void *user, bn_time_us t, const struct bn_sample *s)
{
	struct rec *r = user;

	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 4096;
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

	if (!strcmp(kind, "uvlo"))
		r->n_uvlo++;
	if (!strcmp(kind, "vbus_break"))
		r->n_vbus_break++;
	if (!strcmp(kind, "vbus_lost"))
		r->n_lost++, r->t_lost = t;
	if (!strcmp(kind, "vbus_valid"))
		r->n_valid++, r->t_valid = t;
}

static void rec_cev(void *user, const struct bn_cev *ev)
{
	struct rec *r = user;

	if (ev->kind == BN_CEV_VBUS_ON)
		r->n_vbus_on++;
}

static void rec_free(struct rec *r)
{
	free(r->t);
	free(r->s);
	memset(r, 0, sizeof(*r));
}

/* The sample at time t (the rate divides it). */
static const struct bn_sample *at(const struct rec *r, bn_time_us t)
{
	for (int k = 0; k < r->n; k++)
		if (r->t[k] == t)
			return &r->s[k];
	fail_msg("no sample at %lld us", (long long)t);
	return NULL;
}

/* ---- the rig ---- */

struct rig {
	struct bn_port_profile port;
	struct bn_charger charger;
	struct bn_host_profile host;
	struct bn_dut_decl dut;
	struct bn_world_cfg cfg;
	struct rec rec;
	struct bn_world *w;
};

/* A DCP (or the named port) behind a charger of 5.0 V at 0 A falling to
 * 4.0 V at 2 A through 0.1 ohm, and the bus-powered dongle drawing
 * load_a; no capacitance anywhere: the defaults. */
static void rig_init(struct rig *g, const char *port, double load_a, double rate_hz)
{
	struct bn_err err = { 0 };
	char path[512], rel[128];

	memset(g, 0, sizeof(*g));
	snprintf(rel, sizeof(rel), "profiles/ports/%s.json", port);
	bn_test_path(rel, path, sizeof(path));
	if (bn_port_load(path, &bn_test_lim, &g->port, &err))
		fail_msg("%s", err.msg);
	bn_test_path("profiles/duts/dongle.json", path, sizeof(path));
	if (bn_dut_load(path, &bn_test_lim, &g->dut, &err))
		fail_msg("%s", err.msg);
	g->dut.system_load_a = load_a;
	bn_host_default(&bn_test_lim, &g->host);
	snprintf(g->charger.name, sizeof(g->charger.name), "linear");
	g->charger.n_points = 2;
	g->charger.i_a[0] = 0.0, g->charger.v_v[0] = 5.0;
	g->charger.i_a[1] = 2.0, g->charger.v_v[1] = 4.0;
	g->charger.cable_ohm = 0.1;
	g->cfg = (struct bn_world_cfg){
		.lim = &bn_test_lim, .port = &g->port, .charger = &g->charger, .host = &g->host,
		.dut = &g->dut, .fw = &fw_draw, .battery_v = NAN, .data_delay_us = -1,
		.sample_rate_hz = rate_hz,
		.sink = { .user = &g->rec, .sample = rec_sample, .event = rec_event,
			  .cev = rec_cev },
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
	rec_free(&g->rec);
}

/* ---- VBUS ---- */

/* No capacitance: VBUS is the curve less the cable at the draw from the
 * first sample on, and IBUS the draw. */
static void test_world__ideal_vbus_steps_at_once(void **state)
{
	struct rig g;

	rig_init(&g, "dcp", 0.5, 100e3);
	rig_run(&g, 2000);
	assert_near(at(&g.rec, 0)->v[BN_CH_VBUS], bn_charger_vbus(&g.charger, NULL, 0.5), 0.0);
	assert_near(at(&g.rec, 0)->v[BN_CH_IBUS], 0.5, 0.0);
	assert_near(at(&g.rec, 1990)->v[BN_CH_VBUS], 4.7, 1e-12);
	rig_free(&g);
}

/* 100 uF at the device, whose IC draws 0.5 A once its input is up. Below
 * the curve's last point (2 A at 3.8 V at the receptacle) the charger is
 * a 2 A current limit: VBUS ramps at 2 A / 100 uF (less the bleed's share)
 * until the IC starts at its 3.6 V threshold (the world sees the crossing
 * at the next whole microsecond), at 1.5 A / 100 uF to 3.8 V, then the
 * piece 5.0 V - 0.6 ohm x I makes an RC of 0.6 ohm x 100 uF toward
 * 4.7 V. Settled, the samples repeat exactly. */
static void test_world__vbus_ramp_then_rc(void **state)
{
	struct rig g;
	double b = 1.0 / 100e3, c = 100e-6;
	double bb = 1.0 / 0.6 + b, v_inf = (5.0 / 0.6 - 0.5) / bb, tau = c / bb;
	double t_on = -c / b * log1p(-3.6 * b / 2.0), v_on, t1;

	rig_init(&g, "dcp", 0.5, 1e6);
	g.dut.vbus_cap_f = c;
	rig_run(&g, 3000);
	/* the IC off: v = (2/b) (1 - exp(-t b / c)), IBUS what charges C
	 * (and the bleed), 2 A, averaged over the microsecond before */
	for (bn_time_us t = 0; t <= 150; t += 50)
		assert_near(at(&g.rec, t)->v[BN_CH_VBUS], 2.0 / b * -expm1(-t * 1e-6 * b / c), 1e-9);
	assert_near(at(&g.rec, 100)->v[BN_CH_IBUS], 2.0, 1e-6);
	/* the IC on from the microsecond after the crossing */
	t_on = (1.0 + floor(t_on * 1e6)) * 1e-6;
	v_on = 2.0 / b * -expm1(-t_on * b / c);
	t1 = t_on - c / b * log((1.5 / b - 3.8) / (1.5 / b - v_on));
	assert_near(at(&g.rec, 190)->v[BN_CH_VBUS],
		    1.5 / b + (v_on - 1.5 / b) * exp(-(190e-6 - t_on) * b / c), 1e-9);
	assert_near(at(&g.rec, 190)->v[BN_CH_IBUS], 2.0, 1e-6);
	/* the replan at the whole microsecond after the piece ends costs at
	 * most (1/2) v'' (1 us)^2 = 0.13 mV there, decaying with the RC */
	for (bn_time_us t = 300; t <= 1000; t += 100) {
		double want = v_inf + (3.8 - v_inf) * exp(-(t * 1e-6 - t1) / tau);

		assert_near(at(&g.rec, t)->v[BN_CH_VBUS], want, 1.3e-4 * exp(-(t * 1e-6 - t1) / tau));
	}
	/* settled: the static answer (with the bleed), repeated exactly */
	assert_near(at(&g.rec, 2999)->v[BN_CH_VBUS], v_inf, 2e-6);
	assert_near(at(&g.rec, 2999)->v[BN_CH_IBUS], 0.5 + v_inf * b, 1e-6);
	assert_memory_equal(at(&g.rec, 2500), at(&g.rec, 2999), sizeof(struct bn_sample));
	rig_free(&g);
}

/* The plug-in inrush on a stiff charger (flat 5.0 V to 5 A, 0.1 ohm,
 * 100 uF at its output) into 10 uF: the 5 A limit fills 110 uF in about
 * 100 us, the device's share 10/110 of it. Sampled at 10 kHz, IBUS
 * carries the charge the input took (10 uF x 5 V = 50 uC) over the
 * samples after, never more than 50 uC in one period (0.5 A); at 1 MHz
 * the samples follow the current itself. */
static void test_world__ibus_carries_the_inrush_charge(void **state)
{
	struct rig g;
	double q_c = 0.0, peak = 0.0;

	rig_init(&g, "dcp", 0.0, 10e3);
	g.charger.i_a[1] = 5.0, g.charger.v_v[1] = 5.0;
	g.charger.output_cap_f = 100e-6;
	g.dut.vbus_cap_f = 10e-6;
	rig_run(&g, 10000);
	for (int k = 0; k < g.rec.n; k++) {
		/* less what the 100 kohm bleed takes */
		q_c += (g.rec.s[k].v[BN_CH_IBUS] - g.rec.s[k].v[BN_CH_VBUS] / 100e3) * 100e-6;
		peak = fmax(peak, g.rec.s[k].v[BN_CH_IBUS]);
	}
	/* within what the bleed took while VBUS rose (a few nC) */
	assert_near(q_c, 10e-6 * at(&g.rec, 9900)->v[BN_CH_VBUS], 5e-9);
	assert_in_range(lround(peak * 1000.0), 400, 500);
	assert_near(at(&g.rec, 0)->v[BN_CH_IBUS], 0.0, 0.0);
	rig_free(&g);

	rig_init(&g, "dcp", 0.0, 1e6);
	g.charger.i_a[1] = 5.0, g.charger.v_v[1] = 5.0;
	g.charger.output_cap_f = 100e-6;
	g.dut.vbus_cap_f = 10e-6;
	rig_run(&g, 1000);
	assert_near(at(&g.rec, 50)->v[BN_CH_IBUS], 5.0 * 10.0 / 110.0, 1e-3);
	rig_free(&g);
}

/* The charger's output capacitance counts through the curve's output
 * resistance: a load step settles with the ladder's Elmore delay
 * r_out (C_out + C_in) + R_cable C_in = 0.5 x 110 uF + 0.1 x 10 uF = 56 us. */
static void test_world__vbus_load_step_elmore(void **state)
{
	struct rig g;
	double v0, v_inf, v_tau;

	rig_init(&g, "dcp", 0.2, 1e6);
	g.dut.vbus_cap_f = 10e-6;
	g.charger.output_cap_f = 100e-6;
	rig_run(&g, 5000);
	v0 = at(&g.rec, 4999)->v[BN_CH_VBUS];
	bn_world_load(g.w, 0.5);
	rig_run(&g, 10000);
	v_inf = at(&g.rec, 9999)->v[BN_CH_VBUS];
	v_tau = at(&g.rec, 5056)->v[BN_CH_VBUS];
	assert_near(v0 - v_inf, 0.5 * 0.6, 1e-3);
	/* one time constant: 1/e of the step left (the bleed shifts it by ppm) */
	assert_near((v_tau - v_inf) / (v0 - v_inf), exp(-1.0), 0.01);
	/* and not the lumped 0.6 ohm x 110 uF = 66 us */
	assert_true(fabs((at(&g.rec, 5066)->v[BN_CH_VBUS] - v_inf) / (v0 - v_inf) - exp(-1.0)) > 0.03);
	rig_free(&g);
}

/* Only the charger's capacitance, behind a curve that is flat to 1 A (an
 * ideal source there, 0.1 ohm of cable: no RC of its own) and falls 1 V
 * per ampere beyond (an RC of 1.1 ohm x 100 uF x 1/1.1 = 100 us). A step
 * from 0.5 A to 1.5 A crosses the flat piece at once and relaxes on the
 * sloped one to 5.0 - 0.5 - 1.5 x 0.1 V; back to 0.5 A it relaxes up to
 * the sloped piece's end (4.9 V) and crosses the flat one at once. */
static void test_world__vbus_piece_without_capacitance(void **state)
{
	struct rig g;

	rig_init(&g, "dcp", 0.5, 1e6);
	g.charger.n_points = 3;
	g.charger.i_a[1] = 1.0, g.charger.v_v[1] = 5.0;
	g.charger.i_a[2] = 2.0, g.charger.v_v[2] = 4.0;
	g.charger.output_cap_f = 100e-6;
	rig_run(&g, 1000);
	assert_near(at(&g.rec, 999)->v[BN_CH_VBUS], 5.0 - 0.05, 1e-4);
	bn_world_load(g.w, 1.0);
	rig_run(&g, 6000);
	assert_near(at(&g.rec, 1000)->v[BN_CH_VBUS], 4.9, 1e-9);
	assert_near(at(&g.rec, 1100)->v[BN_CH_VBUS], 4.35 + 0.55 * exp(-1.0), 1e-3);
	assert_near(at(&g.rec, 5999)->v[BN_CH_VBUS], 4.35, 1e-4);
	bn_world_load(g.w, 0.0);
	rig_run(&g, 12000);
	assert_true(at(&g.rec, 6010)->v[BN_CH_VBUS] < 4.9);
	assert_near(at(&g.rec, 11999)->v[BN_CH_VBUS], 5.0 - 0.05, 1e-4);
	rig_free(&g);
}

/* A charger IC that draws past what a weak DCP gives (dcp-weak-cap: 1.0 A
 * at most, 120 uF at its output) with 10 uF at its input, locking out
 * below 3.6 V after 1 ms, releasing above 3.8 V, retrying after 50 ms:
 * each cycle VBUS sags, holds under 3.6 V for the deglitch time while the
 * draw goes on, and recovers once the draw stops. */
static void test_world__uvlo_cycles_with_capacitance(void **state)
{
	struct rig g;
	struct bn_err err = { 0 };
	char path[512];
	int dips = 0, run = 0, max_run = 0, trips = 0;
	bool was_drawing = false;

	rig_init(&g, "dcp", 1.2, 10e3);
	bn_test_path("profiles/chargers/dcp-weak-cap.json", path, sizeof(path));
	if (bn_charger_load(path, &g.charger, &err))
		fail_msg("%s", err.msg);
	g.dut.vbus_cap_f = 10e-6;
	g.dut.uvlo_v = 3.6;
	g.dut.uvlo_hyst_v = 0.2;
	g.dut.uvlo_deglitch_us = 1000;
	g.dut.uvlo_restart_us = 50000;
	rig_run(&g, 300000);
	/* a trip about every restart time plus the sag and the deglitch */
	assert_in_range(g.rec.n_uvlo, 5, 6);
	for (int k = 0; k < g.rec.n; k++) {
		const struct bn_sample *s = &g.rec.s[k];
		bool drawing = s->v[BN_CH_IBUS] > 1.0;

		if (s->v[BN_CH_VBUS] < 3.6 && drawing) {
			if (!run)
				dips++;
			run++;
			max_run = run > max_run ? run : max_run;
		} else {
			run = 0;
		}
		if (was_drawing && !drawing)
			trips++;
		was_drawing = drawing;
		if (g.rec.t[k] > 5000)
			assert_true(s->v[BN_CH_VBUS] > 1.0); /* it never collapses */
	}
	/* every lockout shows: about 1 ms (10 samples) under 3.6 V drawing */
	assert_int_equal(dips, g.rec.n_uvlo);
	assert_int_equal(trips, g.rec.n_uvlo);
	assert_in_range(max_run, 9, 11);
	rig_free(&g);
}

/* The same device without capacitance (and without deglitch) locks out
 * as often, but in the instant: no sample shows the draw or the sag.
 * With a deglitch and still no capacitance, the sag at the draw's static
 * VBUS lasts the deglitch time. */
static void test_world__uvlo_without_capacitance(void **state)
{
	struct rig g;
	int sag = 0;

	rig_init(&g, "dcp", 1.9, 10e3);
	g.dut.uvlo_v = 4.0;
	rig_run(&g, 300000);
	assert_in_range(g.rec.n_uvlo, 6, 6);
	for (int k = 0; k < g.rec.n; k++) {
		assert_true(g.rec.s[k].v[BN_CH_VBUS] > 4.0);
		assert_true(g.rec.s[k].v[BN_CH_IBUS] < 1e-9);
	}
	rig_free(&g);

	rig_init(&g, "dcp", 1.9, 10e3);
	g.dut.uvlo_v = 4.0;
	g.dut.uvlo_deglitch_us = 2000;
	rig_run(&g, 300000);
	assert_in_range(g.rec.n_uvlo, 6, 6);
	for (int k = 0; k < g.rec.n; k++)
		if (g.rec.s[k].v[BN_CH_VBUS] < 4.0) {
			sag++;
			assert_near(g.rec.s[k].v[BN_CH_VBUS], bn_charger_vbus(&g.charger, NULL, 1.9),
				    1e-12);
			assert_near(g.rec.s[k].v[BN_CH_IBUS], 1.9, 1e-12);
		}
	assert_int_equal(sag, 6 * 20); /* 2 ms at 10 kHz, every lockout */
	rig_free(&g);
}

/* Hysteresis: once locked, the IC releases only above uvlo + hysteresis.
 * The bench load holds VBUS at 3.7 V with the IC off: between 3.6 V and
 * 3.8 V it stays locked; without hysteresis it retries every 50 ms. */
static void test_world__uvlo_hysteresis(void **state)
{
	struct rig g;

	for (int hyst = 0; hyst <= 1; hyst++) {
		rig_init(&g, "dcp", 0.5, 1e3);
		g.dut.uvlo_v = 3.6;
		g.dut.uvlo_hyst_v = hyst ? 0.2 : 0.0;
		/* 5.0 - 0.6 x I = 3.7 V at I = 2.1667 A: past 2 A the curve ends,
		 * so a flatter curve: 5.0 V to 3.0 V at 4 A, 0.6 ohm in all */
		g.charger.i_a[1] = 4.0, g.charger.v_v[1] = 5.0 - 4.0 * 0.5;
		rig_run(&g, 1000);
		bn_world_load(g.w, 1.3 / 0.6);
		rig_run(&g, 301000);
		if (hyst)
			assert_int_equal(g.rec.n_uvlo, 1);
		else
			assert_in_range(g.rec.n_uvlo, 6, 7);
		rig_free(&g);
	}
}

/* A rising curve has no inverse: refused when capacitance needs one. */
static void test_world__rising_curve_refused_with_capacitance(void **state)
{
	struct rig g;
	struct bn_err err = { 0 };

	rig_init(&g, "dcp", 0.1, 1e3);
	g.charger.v_v[1] = 5.5;
	assert_int_equal(bn_world_new(&g.cfg, &g.w, &err), BN_OK);
	bn_world_free(g.w);
	g.w = NULL;
	g.dut.vbus_cap_f = 1e-6;
	assert_int_equal(bn_world_new(&g.cfg, &g.w, &err), BN_ERR_DATA);
	assert_msg_has(&err, "rises");
	g.w = NULL;
	rig_free(&g);
}

/* ---- the VBUS pin bounces ---- */

/* VBUS makes at the plug, breaks at 1, 3 and 5 ms and makes at 2, 4 and
 * 6 ms. Without capacitance the device's VBUS drops to 0 in each break;
 * with 10 uF the input holds it, sagging at the draw's rate. The bench
 * applied VBUS once: one vbus_on. */
static void test_world__vbus_bounce(void **state)
{
	struct rig g;

	rig_init(&g, "dcp", 0.05, 100e3);
	g.cfg.vbus_bounce_n = 3;
	g.cfg.vbus_bounce_us = 1000;
	rig_run(&g, 10000);
	assert_int_equal(g.rec.n_vbus_on, 1);
	assert_int_equal(g.rec.n_vbus_break, 3);
	for (bn_time_us t = 0; t < 8000; t += 500) {
		bool open = (t / 1000) % 2 == 1 && t < 6000;

		if (open)
			assert_near(at(&g.rec, t)->v[BN_CH_VBUS], 0.0, 0.0);
		else
			assert_true(at(&g.rec, t)->v[BN_CH_VBUS] > 4.9);
	}
	rig_free(&g);

	rig_init(&g, "dcp", 0.05, 100e3);
	g.cfg.vbus_bounce_n = 3;
	g.cfg.vbus_bounce_us = 1000;
	g.dut.vbus_cap_f = 10e-6;
	rig_run(&g, 10000);
	/* 50 mA out of 10 uF for 1 ms: 5 V down, but the IC locks out at
	 * 3.6 V and the input holds there */
	assert_true(at(&g.rec, 1500)->v[BN_CH_VBUS] < 4.0);
	assert_true(at(&g.rec, 1990)->v[BN_CH_VBUS] > 3.0);
	/* no current through the open contact */
	assert_near(at(&g.rec, 1500)->v[BN_CH_IBUS], 0.0, 0.0);
	assert_true(at(&g.rec, 9990)->v[BN_CH_VBUS] > 4.9);
	rig_free(&g);
}

/* ---- data lines ---- */

/* DCD's 10 uA on D+ with 50 pF in the PHY, 1 nF more from the fixture
 * while the lines touch (at 5 ms): before, D+ climbs toward 10 uA x
 * 300 kohm leakage = 3.0 V with 300 kohm x 50 pF = 15 us; at contact it
 * falls toward 10 uA x (15 k || 300 k) with (15 k || 300 k) x 1.05 nF.
 * Settled, it is the network solver's value exactly. */
static void test_world__line_rc(void **state)
{
	struct rig g;
	struct bn_lines_v ss;
	struct bn_lines_state st = { .data_contact = true,
				     .phy = BCFW_PHY_IDP_SRC | BCFW_PHY_RDM_DWN };
	double r = 1 / (1 / 15e3 + 1 / 300e3), tau = r * 1.05e-9, v_hi;

	rig_init(&g, "sdp", 0.0, 1e6);
	g.cfg.fw = &fw_dcd;
	g.dut.phy.line_cap_f = 50e-12;
	g.cfg.line_cap_f = 1e-9;
	rig_run(&g, 7000);
	assert_near(at(&g.rec, 0)->v[BN_CH_DP], 0.0, 0.0);
	assert_near(at(&g.rec, 15)->v[BN_CH_DP], 3.0 * (1 - exp(-1.0)), 1e-3);
	v_hi = at(&g.rec, 4999)->v[BN_CH_DP];
	assert_near(v_hi, 3.0, 1e-6);
	assert_int_equal(bn_lines_solve(&g.port, &g.dut.phy, &st, &ss, NULL), BN_OK);
	for (int k = 1; k <= 3; k++) {
		bn_time_us t = 5000 + (bn_time_us)lround(k * tau * 1e6);
		double want = ss.dp_v + (v_hi - ss.dp_v) * exp(-(t - 5000) * 1e-6 / tau);

		assert_near(at(&g.rec, t)->v[BN_CH_DP], want, 1e-6);
	}
	assert_near(at(&g.rec, 6999)->v[BN_CH_DP], ss.dp_v, 0.0);
	assert_near(at(&g.rec, 6999)->v[BN_CH_DM], ss.dm_v, 0.0);
	rig_free(&g);

	/* no capacitance: D+ is there at the contact's own sample */
	rig_init(&g, "sdp", 0.0, 1e6);
	g.cfg.fw = &fw_dcd;
	rig_run(&g, 6000);
	assert_near(at(&g.rec, 5000)->v[BN_CH_DP], ss.dp_v, 0.0);
	rig_free(&g);
}

/* ---- ground offset ---- */

/* The device's ground 0.375 V above or below the port's: the capture (the
 * port's reference) shows VDP_SRC shifted by the offset, the device's
 * comparators and ID converter read against its own ground. */
static void test_world__gnd_offset(void **state)
{
	static const double offs[] = { 0.375, -0.375, 0.0 };

	for (size_t i = 0; i < sizeof(offs) / sizeof(offs[0]); i++) {
		struct rig g;
		double g_v = offs[i], dp = (0.6 + g_v) * 14285.714286 / 14385.714286;
		double id_port = (3.3 + g_v) * 10e6 / (10e6 + 100e3);
		long cmp;

		rig_init(&g, "sdp", 0.0, 10e3);
		g.cfg.fw = &fw_probe;
		g.cfg.gnd_offset_v = g_v;
		rig_run(&g, 20000);
		assert_near(at(&g.rec, 19000)->v[BN_CH_DP], dp, 1e-6);
		assert_near(at(&g.rec, 19000)->v[BN_CH_ID], id_port, 1e-6);
		cmp = atol(bn_world_telemetry(g.w, "cmp"));
		/* D+ at VDP_SRC against the device's ground: above VDAT_REF,
		 * below VLGC; D- (the port's 0 V, or the sink at the device's
		 * ground) not above VDAT_REF */
		assert_true(cmp & BCFW_CMP_DP_VDAT_REF);
		assert_false(cmp & BCFW_CMP_DP_VLGC);
		assert_false(cmp & BCFW_CMP_DM_VDAT_REF);
		assert_in_range(atol(bn_world_telemetry(g.w, "id_mv")),
				lround((id_port - g_v) * 1000.0) - 1, lround((id_port - g_v) * 1000.0) + 1);
		rig_free(&g);
	}
}

/* ---- the charger in time (profile v2) ---- */

/* A slow regulation loop (transient r = 0.8 ohm, tau = 15 ms) on the
 * rig's linear charger, no capacitance: the bench load's step of 0.5 A
 * undershoots by r x dI = 0.4 V and recovers with tau; its release
 * overshoots as much. Each sample shows the closed form at its own time;
 * settled, the samples are copies again. */
static void test_world__charger_transient_load_step(void **state)
{
	struct rig g;
	double v1, v0;

	rig_init(&g, "dcp", 0.5, 10e3);
	g.charger.has_transient = true;
	g.charger.transient_r_ohm = 0.8;
	g.charger.transient_tau_s = 0.015;
	rig_run(&g, 300000);
	v0 = bn_charger_vbus(&g.charger, NULL, 0.5);
	v1 = bn_charger_vbus(&g.charger, NULL, 1.0);
	/* the IC's own 0.5 A at reset stepped it too: settled by now */
	assert_near(at(&g.rec, 299900)->v[BN_CH_VBUS], v0, 0.0);
	assert_memory_equal(at(&g.rec, 290000), at(&g.rec, 299900), sizeof(struct bn_sample));
	bn_world_load(g.w, 0.5);
	rig_run(&g, 600000);
	assert_near(at(&g.rec, 300000)->v[BN_CH_VBUS], v1 - 0.4, 1e-12);
	for (bn_time_us t = 300000; t < 450000; t += 700)
		assert_near(at(&g.rec, t)->v[BN_CH_VBUS],
			    v1 - 0.4 * exp(-(t - 300000) * 1e-6 / 0.015), 1e-9);
	assert_near(at(&g.rec, 315000)->v[BN_CH_VBUS], v1 - 0.4 * exp(-1.0), 1e-9);
	assert_near(at(&g.rec, 599900)->v[BN_CH_VBUS], v1, 0.0);
	assert_near(at(&g.rec, 315000)->v[BN_CH_IBUS], 0.5, 0.0); /* the device's draw */
	bn_world_load(g.w, 0.0);
	rig_run(&g, 700000);
	assert_near(at(&g.rec, 600000)->v[BN_CH_VBUS], v0 + 0.4, 1e-12);
	assert_near(at(&g.rec, 630000)->v[BN_CH_VBUS], v0 + 0.4 * exp(-2.0), 1e-9);
	rig_free(&g);

	/* without the loop the same steps are steps */
	rig_init(&g, "dcp", 0.5, 10e3);
	rig_run(&g, 1000);
	bn_world_load(g.w, 0.5);
	rig_run(&g, 2000);
	assert_near(at(&g.rec, 1000)->v[BN_CH_VBUS], v1, 0.0);
	rig_free(&g);
}

/* An undershoot below the PHY's session-valid level (4.0 V): the world
 * replans where the exponential crosses it, not at the next event. A
 * 1.0 V undershoot from 4.7 V (r = 2 ohm) is back above 4.0 V after
 * tau ln(1.0 / 0.7) = 5.35 ms. */
static void test_world__charger_transient_crosses_session_valid(void **state)
{
	struct rig g;
	double v1, t_up;

	rig_init(&g, "dcp", 0.0, 1e3);
	g.charger.has_transient = true;
	g.charger.transient_r_ohm = 2.0;
	g.charger.transient_tau_s = 0.015;
	rig_run(&g, 10000);
	bn_world_load(g.w, 0.5);
	rig_run(&g, 100000);
	v1 = bn_charger_vbus(&g.charger, NULL, 0.5);
	t_up = 10000 + 0.015 * log(1.0 / (v1 - g.dut.phy.sess_vld_v)) * 1e6;
	assert_int_equal(g.rec.n_lost, 1);
	assert_int_equal(g.rec.t_lost, 10000);
	assert_int_equal(g.rec.n_valid, 2); /* at the plug, and back */
	assert_int_equal(g.rec.t_valid, 1 + (bn_time_us)floor(t_up));
	rig_free(&g);
}

/* power_up: the output turns on at 6.3 V and relaxes to the curve with
 * its 2 ms; a replug turns it on again. */
static void test_world__charger_power_up(void **state)
{
	struct rig g;

	rig_init(&g, "dcp", 0.0, 100e3);
	g.charger.has_power_up = true;
	g.charger.power_up_peak_v = 6.3;
	g.charger.power_up_tau_s = 0.002;
	rig_run(&g, 50000);
	assert_near(at(&g.rec, 0)->v[BN_CH_VBUS], 6.3, 1e-12);
	assert_near(at(&g.rec, 2000)->v[BN_CH_VBUS], 5.0 + 1.3 * exp(-1.0), 1e-9);
	assert_near(at(&g.rec, 49990)->v[BN_CH_VBUS], 5.0, 0.0);
	bn_world_unplug(g.w);
	rig_run(&g, 60000);
	bn_world_plug(g.w);
	rig_run(&g, 70000);
	assert_near(at(&g.rec, 60000)->v[BN_CH_VBUS], 6.3, 1e-12);
	assert_near(at(&g.rec, 61000)->v[BN_CH_VBUS], 5.0 + 1.3 * exp(-0.5), 1e-9);
	rig_free(&g);
}

/* With capacitance the loop's offset is held over tenths of its time
 * constant at its value in the middle: VBUS follows the closed form
 * within 5 % of the offset once the node's own RC (0.5 ohm x 10 uF)
 * is over. */
static void test_world__charger_transient_with_capacitance(void **state)
{
	struct rig g;
	double v1, worst = 0.0;

	rig_init(&g, "dcp", 0.5, 10e3);
	g.dut.vbus_cap_f = 10e-6;
	g.charger.has_transient = true;
	g.charger.transient_r_ohm = 0.8;
	g.charger.transient_tau_s = 0.015;
	rig_run(&g, 300000);
	bn_world_load(g.w, 0.5);
	rig_run(&g, 450000);
	v1 = bn_charger_vbus(&g.charger, NULL, 1.0); /* the bleed's share: tens of uV */
	for (bn_time_us t = 300500; t < 450000; t += 500) {
		double d = 0.4 * exp(-(t - 300000) * 1e-6 / 0.015);
		double err = fabs(at(&g.rec, t)->v[BN_CH_VBUS] - (v1 - d));

		assert_true(err <= 0.05 * d + 1e-4);
		if (d > 1e-3)
			worst = fmax(worst, err / d);
	}
	print_message("transient with capacitance: worst %.2f %% of the offset\n", worst * 100.0);
	rig_free(&g);
}

/* A schedule: from 50 ms after the output turns on the charger gives
 * 4.8 V falling to 3.8 V at 2 A; the clock restarts at a replug. */
static void test_world__charger_schedule(void **state)
{
	struct rig g;

	rig_init(&g, "dcp", 0.5, 10e3);
	g.charger.n_phases = 1;
	g.charger.phases[0] = (struct bn_charger_phase){
		.from_us = 50000, .n_points = 2, .i_a = { 0.0, 2.0 }, .v_v = { 4.8, 3.8 },
	};
	rig_run(&g, 100000);
	assert_near(at(&g.rec, 49900)->v[BN_CH_VBUS], 4.7, 1e-12);
	assert_near(at(&g.rec, 50000)->v[BN_CH_VBUS], 4.5, 1e-12);
	bn_world_unplug(g.w);
	rig_run(&g, 120000);
	bn_world_plug(g.w);
	rig_run(&g, 200000);
	assert_near(at(&g.rec, 120000)->v[BN_CH_VBUS], 4.7, 1e-12);
	assert_near(at(&g.rec, 169900)->v[BN_CH_VBUS], 4.7, 1e-12);
	assert_near(at(&g.rec, 170000)->v[BN_CH_VBUS], 4.5, 1e-12);
	rig_free(&g);
}

/* A captured VBUS(t) behind 0.2 ohm: 5.0 V, 4.6 V at 10 ms, 4.9 V at
 * 20 ms, captured at no draw; the device's 0.5 A sees 0.1 V less,
 * linear between the samples; after the series the static curve. */
static void test_world__charger_vbus_t(void **state)
{
	static const double t_s[] = { 0.0, 0.010, 0.020 }, v_v[] = { 5.0, 4.6, 4.9 };
	struct rig g;

	for (int repeat = 0; repeat <= 1; repeat++) {
		rig_init(&g, "dcp", 0.5, 10e3);
		g.charger.vbus_t.n = 3;
		memcpy(g.charger.vbus_t.t_s, t_s, sizeof(t_s));
		memcpy(g.charger.vbus_t.v_v, v_v, sizeof(v_v));
		g.charger.vbus_t.r_out_ohm = 0.2;
		g.charger.vbus_t.repeat = repeat;
		rig_run(&g, 40000);
		assert_near(at(&g.rec, 0)->v[BN_CH_VBUS], 4.9, 1e-12);
		assert_near(at(&g.rec, 5000)->v[BN_CH_VBUS], 4.7, 1e-12);
		assert_near(at(&g.rec, 12500)->v[BN_CH_VBUS], 4.575, 1e-12);
		assert_near(at(&g.rec, 19900)->v[BN_CH_VBUS], 4.797, 1e-12);
		if (repeat) {
			assert_near(at(&g.rec, 25000)->v[BN_CH_VBUS], 4.7, 1e-12);
		} else {
			assert_near(at(&g.rec, 25000)->v[BN_CH_VBUS], 4.7, 1e-12);
			assert_near(at(&g.rec, 22500)->v[BN_CH_VBUS], 4.7, 1e-12);
			assert_memory_equal(at(&g.rec, 30000), at(&g.rec, 39900),
					    sizeof(struct bn_sample));
		}
		if (repeat)
			assert_near(at(&g.rec, 32500)->v[BN_CH_VBUS], 4.575, 1e-12);
		rig_free(&g);
	}
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_world__ideal_vbus_steps_at_once),
		cmocka_unit_test(test_world__vbus_ramp_then_rc),
		cmocka_unit_test(test_world__ibus_carries_the_inrush_charge),
		cmocka_unit_test(test_world__vbus_load_step_elmore),
		cmocka_unit_test(test_world__vbus_piece_without_capacitance),
		cmocka_unit_test(test_world__uvlo_cycles_with_capacitance),
		cmocka_unit_test(test_world__uvlo_without_capacitance),
		cmocka_unit_test(test_world__uvlo_hysteresis),
		cmocka_unit_test(test_world__rising_curve_refused_with_capacitance),
		cmocka_unit_test(test_world__charger_transient_load_step),
		cmocka_unit_test(test_world__charger_transient_crosses_session_valid),
		cmocka_unit_test(test_world__charger_power_up),
		cmocka_unit_test(test_world__charger_transient_with_capacitance),
		cmocka_unit_test(test_world__charger_schedule),
		cmocka_unit_test(test_world__charger_vbus_t),
		cmocka_unit_test(test_world__vbus_bounce),
		cmocka_unit_test(test_world__line_rc),
		cmocka_unit_test(test_world__gnd_offset),
	};

	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests_name("world", tests, bn_test_setup_limits,
					   bn_test_teardown_limits);
}
