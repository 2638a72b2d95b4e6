/* The simulated bench for a sweep: see sweep_sim.h. */
#include "curve/sweep_sim.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sim/world.h"

/* A device that is there but draws nothing: its charger input stays
 * off, its PHY quiet. The sweep measures the charger, not a device. */
static int idle_init(void *ctx, const struct bcfw_hal *hal, const struct bcfw_decl *decl)
{
	*(const struct bcfw_hal **)ctx = hal;
	return 0;
}

static void idle_wake(void *ctx, uint32_t events)
{
	const struct bcfw_hal *hal = *(const struct bcfw_hal **)ctx;

	if (events & BCFW_EV_RESET) {
		hal->set_input_limit_ma(hal->bench, 0);
		hal->system_power(hal->bench, 0);
	}
}

static const struct bcfw_firmware idle_fw = {
	.abi_version = BCFW_ABI_VERSION,
	.name = "sweep-idle",
	.version = "1",
	.ctx_size = sizeof(const struct bcfw_hal *),
	.init = idle_init,
	.wake = idle_wake,
};

static void no_sample(void *user, bn_time_us t, const struct bn_sample *s)
{
}

static void no_event(void *user, bn_time_us t, const char *kind, const char *detail)
{
}

static void no_cev(void *user, const struct bn_cev *ev)
{
}

int bn_sweep_sim_open(struct bn_sweep_sim *s, const struct bn_limits *lim, const char *port_path,
		      const struct bn_charger *charger, volatile sig_atomic_t *stop,
		      struct bn_err *err)
{
	struct bn_world_cfg wc = { 0 };
	struct bn_backend_open bo = { 0 };
	int rc;

	memset(s, 0, sizeof(*s));
	rc = bn_port_load(port_path, lim, &s->port, err);
	if (rc < 0)
		return rc;
	if (s->port.vbus != BN_PORT_VBUS_EXTERNAL)
		return bn_err_set(err, BN_ERR_ARG, "port \"%s\" (%s) has no VBUS of its own: nothing to "
				  "sweep", s->port.name, port_path);
	s->charger = *charger;
	bn_host_default(lim, &s->host);
	snprintf(s->dut.name, sizeof(s->dut.name), "none (the sweep's load alone)");
	snprintf(s->dut.firmware, sizeof(s->dut.firmware), "%s", idle_fw.name);
	bn_dut_phy_defaults(lim, &s->dut.phy);
	s->dut.vbus_bleed_ohm = 100e3;
	wc.lim = lim;
	wc.port = &s->port;
	wc.charger = &s->charger;
	wc.host = &s->host;
	wc.dut = &s->dut;
	wc.fw = &idle_fw;
	wc.battery_v = NAN;
	wc.data_delay_us = 0;
	wc.sample_rate_hz = 1000.0;
	wc.sink = (struct bn_world_sink){ NULL, no_sample, no_event, no_cev };
	wc.stop_flag = stop;
	rc = bn_world_new(&wc, &s->w, err);
	if (rc < 0)
		return rc;
	bo.world = s->w;
	rc = bn_fixture_open(&s->fx, "sim", &bo, err);
	if (rc == BN_OK)
		rc = bn_load_open(&s->ld, "sim", &bo, err);
	if (rc < 0)
		bn_sweep_sim_close(s);
	return rc;
}

static int sim_wait(void *user, bn_time_us dur, struct bn_err *err)
{
	struct bn_world *w = user;

	return bn_world_run_until(w, bn_world_now(w) + dur, err);
}

static bn_time_us sim_now(void *user)
{
	return bn_world_now(user);
}

void bn_sweep_sim_bench(struct bn_sweep_sim *s, struct bn_sweep_bench *b)
{
	*b = (struct bn_sweep_bench){ .fx = &s->fx, .ld = &s->ld, .sp = NULL,
				      .clock = { s->w, sim_wait, sim_now } };
}

void bn_sweep_sim_close(struct bn_sweep_sim *s)
{
	bn_load_close(&s->ld);
	bn_fixture_close(&s->fx);
	bn_world_free(s->w);
	s->w = NULL;
}
