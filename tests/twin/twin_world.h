/* The twin's simulated world: the same port, charger, host and device
 * profiles and firmware the simulated bench loads (bench/sim/world.h),
 * run in real time, driven by what the emulated instruments are told and
 * answering what they measure.
 *
 * The fixture's decoded signals become the world's plug, port and VBUS
 * switch: the data-line network of port type X (one port profile loaded
 * per port type of the fixture file, switched with bn_world_move while
 * unplugged), VBUS_EN, LOAD_EN. The supply stands for the charger's
 * output: its output switch gates the source with VBUS_EN, and its
 * voltage setpoint and current limit reshape the charger profile's curve
 * (the open-circuit voltage moved to the setpoint, the curve cut at the
 * limit); setpoints equal to the charger's own (what a run sets) leave the
 * curve as it is. A new curve takes effect while the world is unplugged
 * (bn_world_move), so a change while plugged waits for the next unplug.
 * The load sinks its setpoint while its input is on and the load path is
 * closed. */
#ifndef BN_TWIN_WORLD_H
#define BN_TWIN_WORLD_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/err.h"
#include "core/limits.h"
#include "firmware/fw_load.h"
#include "hil/fixture_def.h"
#include "sim/charger.h"
#include "sim/dut.h"
#include "sim/host.h"
#include "sim/port.h"
#include "sim/world.h"

struct twin_world_opts {
	const char *datadir;
	/* "sdp,dcp,cdp=cdp-late": the fixture's port types to emulate, each
	 * with the port profile of its own name or the one after "=". NULL:
	 * every port type of the fixture that has a profile of its name. */
	const char *ports;
	const char *charger, *host, *dut, *firmware, *limits; /* NULL: defaults */
	double battery_v;        /* the battery at the start; NAN: the dut's */
	const struct bn_fixture_def *fx;
	bool supply_gates;       /* VBUS needs the supply's output on */
	/* The host profile does not enumerate nor suspend: twin_usbhost,
	 * the bench PC's kernel, does (bn_world_cfg.host_external). */
	bool host_external;
	volatile const sig_atomic_t *stop;
	FILE *log;               /* the world's events, may be NULL */
	/* The firmware reported key=val (console telemetry). */
	void (*on_telemetry)(void *user, bn_time_us t, const char *key, const char *val);
	/* Each tick of the world's sample clock at sample_rate_hz (the
	 * scope's source, twin_scope.h); NULL: nothing takes samples, and
	 * the clock runs slow. */
	void (*on_sample)(void *user, bn_time_us t, const struct bn_sample *s);
	double sample_rate_hz;
	void *user;
};

struct twin_port {
	char fx_name[BN_FX_NAME_LEN];
	uint32_t on;              /* its network: data signals on */
	struct bn_port_profile prof;
};

struct twin_world {
	struct twin_world_opts o;
	struct bn_limits lim;
	bool have_lim;
	struct twin_port ports[BN_FX_MAX_PORTS];
	int nports;
	struct bn_charger base, chg[2];
	int chg_cur;
	bool chg_pending;
	struct bn_host_profile host;
	struct bn_dut_decl dut;
	struct bn_fw_handle fw;
	struct bn_world *w;
	/* what the instruments say */
	uint32_t fx_state;
	const struct twin_port *net;    /* the network on the data lines; NULL: none */
	bool vbus_en, load_en;
	bool sup_on;
	double sup_v, sup_ilim_a;
	bool load_on;
	double load_set_a;
};

int twin_world_open(struct twin_world *tw, const struct twin_world_opts *o, struct bn_err *err);
void twin_world_close(struct twin_world *tw);
/* Run the world to t (twin time, us since start). */
int twin_world_advance(struct twin_world *tw, bn_time_us t, struct bn_err *err);

/* The fixture's signals now (bit i: signal i of the fixture file on).
 * what gets a line for the log: "port=sdp vbus=on load=off". */
void twin_world_fixture(struct twin_world *tw, uint32_t state, char *what, size_t len);
void twin_world_supply(struct twin_world *tw, bool on, double v, double ilim_a);
void twin_world_load(struct twin_world *tw, bool on, double set_a);

/* What the instruments measure now. */
double twin_world_vbus_v(const struct twin_world *tw);   /* at the device */
double twin_world_ibus_a(const struct twin_world *tw);   /* the device's own */
double twin_world_load_v(const struct twin_world *tw);   /* at the load's terminals */
double twin_world_load_a(const struct twin_world *tw);   /* what the load sinks */
double twin_world_supply_v(const struct twin_world *tw);
double twin_world_supply_a(const struct twin_world *tw);
/* The level the board drives on each input pin of the fixture. */
uint16_t twin_world_inputs(const struct twin_world *tw);

#endif
