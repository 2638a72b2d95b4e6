/* Unit tests: sim/world with an outside USB host (bn_world_cfg
 * host_external, as the bench twin's fake kernel plays it): the world
 * still sees the host see the device's D+ pull-up and lose it, but never
 * configures nor suspends by itself; bn_world_host_config and
 * bn_world_bus_suspend reach the firmware as the world's own host's
 * choice does. A firmware that pulls D+ up at reset and reports what the
 * host tells it drives the world. */
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
#include "sim/port.h"
#include "sim/world.h"

struct tfw {
	const struct bcfw_hal *hal;
};

static int tfw_init(void *ctx, const struct bcfw_hal *hal, const struct bcfw_decl *decl)
{
	static const struct bcfw_config cfgs[] = { { .value = 1, .max_power_ma = 100 },
						   { .value = 2, .max_power_ma = 500 } };

	((struct tfw *)ctx)->hal = hal;
	hal->advertise(hal->bench, cfgs, 2);
	return 0;
}

/* Connects at reset (D+ pull-up); says each configuration and bus state
 * the host gives it. */
static void tfw_wake(void *ctx, uint32_t ev)
{
	const struct bcfw_hal *h = ((struct tfw *)ctx)->hal;

	if (ev & BCFW_EV_RESET)
		h->phy_set(h->bench, BCFW_PHY_RDP_UP);
	if (ev & BCFW_EV_CONFIG)
		h->telemetry_int(h->bench, "config", h->host_config(h->bench));
	if (ev & (BCFW_EV_SUSPEND | BCFW_EV_RESUME))
		h->telemetry_int(h->bench, "suspended", h->bus_suspended(h->bench));
}

static const struct bcfw_firmware fw_conn = {
	.abi_version = BCFW_ABI_VERSION, .name = "conn", .version = "1",
	.ctx_size = sizeof(struct tfw), .init = tfw_init, .wake = tfw_wake,
};

/* What the checks hear, in order. */
struct rec {
	int n;
	struct bn_cev ev[64];
};

static void rec_cev(void *user, const struct bn_cev *ev)
{
	struct rec *r = user;

	if (ev->kind == BN_CEV_TELEMETRY || ev->kind == BN_CEV_DATA_CONTACT ||
	    ev->kind == BN_CEV_VBUS_ON || ev->kind == BN_CEV_VBUS_OFF || r->n == 64)
		return;
	r->ev[r->n] = *ev;
	r->ev[r->n].key = r->ev[r->n].text = NULL;
	r->n++;
}

/* The kinds heard, as letters: C connect, G config, S suspend, R resume,
 * D disconnect. */
static const char *kinds(const struct rec *r, char *buf)
{
	int k = 0;

	for (int i = 0; i < r->n; i++) {
		switch (r->ev[i].kind) {
		case BN_CEV_CONNECT: buf[k++] = 'C'; break;
		case BN_CEV_CONFIG: buf[k++] = 'G'; break;
		case BN_CEV_SUSPEND: buf[k++] = 'S'; break;
		case BN_CEV_RESUME: buf[k++] = 'R'; break;
		case BN_CEV_DISCONNECT: buf[k++] = 'D'; break;
		default: buf[k++] = '?'; break;
		}
	}
	buf[k] = 0;
	return buf;
}

struct rig {
	struct bn_port_profile port;
	struct bn_charger charger;
	struct bn_host_profile host;
	struct bn_dut_decl dut;
	struct bn_world_cfg cfg;
	struct rec rec;
	struct bn_world *w;
};

/* An SDP behind an ideal 5 V source, the root-500ma host profile (it
 * would configure 100 ms after the pull-up), the dongle. */
static void rig_init(struct rig *g, bool external)
{
	struct bn_err err = { 0 };
	char path[512];

	memset(g, 0, sizeof(*g));
	bn_test_path("profiles/ports/sdp.json", path, sizeof(path));
	if (bn_port_load(path, &bn_test_lim, &g->port, &err))
		fail_msg("%s", err.msg);
	bn_test_path("profiles/duts/dongle.json", path, sizeof(path));
	if (bn_dut_load(path, &bn_test_lim, &g->dut, &err))
		fail_msg("%s", err.msg);
	bn_test_path("profiles/hosts/root-500ma.json", path, sizeof(path));
	if (bn_host_load(path, &bn_test_lim, &g->host, &err))
		fail_msg("%s", err.msg);
	snprintf(g->charger.name, sizeof(g->charger.name), "flat");
	g->charger.n_points = 2;
	g->charger.i_a[0] = 0.0, g->charger.v_v[0] = 5.0;
	g->charger.i_a[1] = 3.0, g->charger.v_v[1] = 5.0;
	g->cfg = (struct bn_world_cfg){
		.lim = &bn_test_lim, .port = &g->port, .charger = &g->charger, .host = &g->host,
		.dut = &g->dut, .fw = &fw_conn, .battery_v = NAN, .data_delay_us = -1,
		.sample_rate_hz = 1000, .host_external = external,
		.sink = { .user = &g->rec, .cev = rec_cev },
	};
	if (bn_world_new(&g->cfg, &g->w, &err))
		fail_msg("bn_world_new: %s", err.msg);
}

static void rig_run(struct rig *g, bn_time_us t_end)
{
	struct bn_err err = { 0 };

	if (bn_world_run_until(g->w, t_end, &err))
		fail_msg("bn_world_run_until: %s", err.msg);
}

static long telem(const struct rig *g, const char *key)
{
	const char *v = bn_world_telemetry(g->w, key);

	return v ? strtol(v, NULL, 10) : -1;
}

/* The world's own host configures 100 ms after the pull-up (the largest
 * within 500 mA): what host_external turns off. */
static void test_world_host__own_host_configures(void **state)
{
	struct rig g;
	char k[80];

	(void)state;
	rig_init(&g, false);
	bn_world_vbus(g.w, true);
	rig_run(&g, 500000);
	assert_true(bn_world_host_attached(g.w));
	assert_string_equal(kinds(&g.rec, k), "CG");
	assert_int_equal(g.rec.ev[1].value, 2);
	assert_int_equal(telem(&g, "config"), 2);
	bn_world_free(g.w);
}

/* An outside host: connect seen, then nothing by itself, not in 3 s
 * (past the profile's enumeration and its idle suspend). */
static void test_world_host__external_waits(void **state)
{
	struct rig g;
	char k[80];

	(void)state;
	rig_init(&g, true);
	assert_false(bn_world_host_attached(g.w));
	bn_world_vbus(g.w, true);
	rig_run(&g, 3000000);
	assert_true(bn_world_host_attached(g.w));
	assert_string_equal(kinds(&g.rec, k), "C");
	assert_int_equal(telem(&g, "config"), -1);
	assert_int_equal(telem(&g, "suspended"), -1);
	bn_world_vbus(g.w, false);
	rig_run(&g, 3100000);
	assert_false(bn_world_host_attached(g.w));
	assert_string_equal(kinds(&g.rec, k), "CD");
	bn_world_free(g.w);
}

/* The outside host's configuration and suspend reach the firmware and
 * the checks, at the time they are given. */
static void test_world_host__external_configures_and_suspends(void **state)
{
	struct rig g;
	char k[80];

	(void)state;
	rig_init(&g, true);
	bn_world_host_config(g.w, 2); /* no device yet: ignored */
	bn_world_vbus(g.w, true);
	rig_run(&g, 200000);
	assert_string_equal(kinds(&g.rec, k), "C");
	bn_world_host_config(g.w, 1);
	rig_run(&g, 300000);
	assert_string_equal(kinds(&g.rec, k), "CG");
	assert_int_equal(g.rec.ev[1].value, 1);
	assert_true(fabs(g.rec.ev[1].num - 0.1) < 1e-12);
	assert_int_equal(g.rec.ev[1].t_us, 200000);
	assert_int_equal(telem(&g, "config"), 1);
	bn_world_host_config(g.w, 2);
	rig_run(&g, 400000);
	assert_int_equal(g.rec.ev[2].value, 2);
	assert_true(fabs(g.rec.ev[2].num - 0.5) < 1e-12);
	assert_int_equal(telem(&g, "config"), 2);
	bn_world_bus_suspend(g.w, true);
	rig_run(&g, 500000);
	assert_int_equal(telem(&g, "suspended"), 1);
	bn_world_bus_suspend(g.w, false);
	rig_run(&g, 600000);
	assert_int_equal(telem(&g, "suspended"), 0);
	bn_world_host_config(g.w, 0);
	rig_run(&g, 700000);
	assert_string_equal(kinds(&g.rec, k), "CGGSRG");
	assert_int_equal(g.rec.ev[5].value, 0);
	assert_true(g.rec.ev[5].num == 0.0);
	assert_int_equal(telem(&g, "config"), 0);
	bn_world_free(g.w);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_world_host__own_host_configures),
		cmocka_unit_test(test_world_host__external_waits),
		cmocka_unit_test(test_world_host__external_configures_and_suspends),
	};

	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests_name("world_host", tests, bn_test_setup_limits,
					   bn_test_teardown_limits);
}
