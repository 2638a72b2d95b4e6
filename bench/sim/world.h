/* The simulated bench: port, charger, cable, the device's PHY, charger IC
 * and battery, the sim host, and the device's firmware under the HAL.
 *
 * Event driven on an integer-microsecond clock: bn_world_run_until()
 * steps from event to event (firmware wake-ups, data-contact and bounce
 * timers, the port's VDM responder, host enumeration and suspend, charger
 * shutdown and recovery, charger-IC restart), integrates the battery in
 * between, and hands a sample to the sink at every capture tick. The state
 * is piecewise constant between events, so a sample costs a copy.
 * A sample at time t shows the state after every event at t.
 *
 * With capacitance (the device's vbus_cap, the charger's output_cap, a
 * data line's line_cap) a quantity relaxes toward its steady state on an
 * exponential (or a ramp, where a current limit feeds it) computed in
 * closed form: the world replans it at every event and when it reaches a
 * level something watches, and each sample while it moves shows it at the
 * sample's own time. Settled (within a microvolt) it snaps to the steady
 * state, and samples are copies again. docs/simulator.md has the physics. */
#ifndef BN_SIM_WORLD_H
#define BN_SIM_WORLD_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "capture/channel.h"
#include "checks/event.h"
#include "core/err.h"
#include "core/limits.h"
#include "core/time.h"
#include "firmware/bcfw.h"
#include "sim/charger.h"
#include "sim/dut.h"
#include "sim/host.h"
#include "sim/port.h"

struct bn_world;

struct bn_world_sink {
	void *user;
	/* Every capture tick. */
	void (*sample)(void *user, bn_time_us t, const struct bn_sample *s);
	/* Something happened: kind is a short word ("attach", "data_contact",
	 * "connect", "config", "suspend", "telemetry", ...), detail free text. */
	void (*event)(void *user, bn_time_us t, const char *kind, const char *detail);
	/* The same, structured, for the checks: only what a bench can know. */
	void (*cev)(void *user, const struct bn_cev *ev);
};

struct bn_world_cfg {
	const struct bn_limits *lim;
	const struct bn_port_profile *port;
	const struct bn_charger *charger;   /* may be NULL when the port has no VBUS */
	const struct bn_host_profile *host;
	const struct bn_dut_decl *dut;
	const struct bcfw_firmware *fw;
	double battery_v;                  /* NAN: the battery starts full-ish (3.9 V) */
	bn_time_us data_delay_us;          /* < 0: the dut's default */
	int bounce_n;
	bn_time_us bounce_us;
	/* The VBUS pin bounces too: after it makes contact at the plug it
	 * breaks and makes vbus_bounce_n times, each vbus_bounce_us. */
	int vbus_bounce_n;
	bn_time_us vbus_bounce_us;
	/* The device's ground above the port's (V): the device's sources and
	 * comparators work in its own reference, the port's network and the
	 * measured channels in the port's. */
	double gnd_offset_v;
	/* Added to each of D+ and D- while the data lines touch: the
	 * fixture's and cable's capacitance (F). */
	double line_cap_f;
	double sample_rate_hz;
	/* The device's USB host is someone else (the bench twin's fake
	 * kernel): the world still sees the host see the D+ pull-up and lose
	 * it (bn_world_host_attached, the connect and disconnect events), but
	 * never chooses a configuration nor suspends the bus by itself; that
	 * host does, through bn_world_host_config and bn_world_bus_suspend. */
	bool host_external;
	struct bn_world_sink sink;
	/* Stop a firmware that asks to wake at the same instant this many times. */
	int livelock_wakes;                /* 0: default 10000 */
	volatile const sig_atomic_t *stop_flag; /* set by a signal handler: abort */
	/* 1 while the firmware runs (its init or a wake), 0 otherwise, for a
	 * watcher in another process that must tell a firmware hanging in a
	 * call from a bench that does not answer. NULL: none. */
	int32_t *in_fw_call;
};

/* The highest capture rate the model can sample: its clock ticks in
 * microseconds, so a faster rate would repeat instants. */
#define BN_WORLD_MAX_RATE_HZ 1e6

int bn_world_new(const struct bn_world_cfg *cfg, struct bn_world **out, struct bn_err *err);
void bn_world_free(struct bn_world *w);

/* Scenario actions, effective at the current time. */
void bn_world_plug(struct bn_world *w);
/* While unplugged: the next plug goes into another port (with its charger
 * and host; NULL keeps the current one), with its own contact timing
 * (data_delay_us < 0, bounce_n < 0: keep). The profiles must outlive the
 * world. The port's, host's and accessory's state start afresh; the
 * device (firmware, battery) keeps its own. BN_ERR_ARG while plugged. */
int bn_world_move(struct bn_world *w, const struct bn_port_profile *port,
		  const struct bn_charger *charger, const struct bn_host_profile *host,
		  bn_time_us data_delay_us, int bounce_n, bn_time_us bounce_us, struct bn_err *err);
void bn_world_unplug(struct bn_world *w);
void bn_world_vbus(struct bn_world *w, bool on);
void bn_world_load(struct bn_world *w, double load_a);
void bn_world_bus_suspend(struct bn_world *w, bool suspended);
/* The host puts the device in configuration value (0: unconfigured), as
 * the world's own host does at enumeration: a config event, a bus reset
 * and the configuration to the firmware. The configuration's bMaxPower is
 * taken from what the device advertises (0 when it has no such value).
 * Ignored (with an event saying so) while no host sees the device. */
void bn_world_host_config(struct bn_world *w, int value);
/* Whether the host sees the device (its D+ pull-up, under VBUS). */
bool bn_world_host_attached(const struct bn_world *w);
/* VBUS off, load off, data lines open: what the fixture does on any exit. */
void bn_world_safe_state(struct bn_world *w);

/* Stop the run from a sink (the capture could not be written): the
 * current and every later bn_world_run_until returns code with msg. */
void bn_world_fail(struct bn_world *w, int code, const char *msg);

/* Advance to t_end (events before t_end are processed; samples with
 * tick < t_end are emitted). BN_ERR_DUT on a firmware livelock, with
 * the cause in err; BN_ERR_INTR when stop_flag was set. */
int bn_world_run_until(struct bn_world *w, bn_time_us t_end, struct bn_err *err);
bn_time_us bn_world_now(const struct bn_world *w);
/* The port profile the world emulates. */
const struct bn_port_profile *bn_world_port(const struct bn_world *w);
/* What the bench would measure now (the next capture tick's sample). */
const struct bn_sample *bn_world_sample_now(const struct bn_world *w);
/* The load the bench sinks now (A). */
double bn_world_load_a(const struct bn_world *w);
/* Whether the plug is in and the fixture's VBUS switch closed. */
bool bn_world_plugged(const struct bn_world *w);
bool bn_world_vbus_switch(const struct bn_world *w);
/* The simulated device's PHY switches now (enum bcfw_phy bits): what a
 * real bench's fixture plays on the data lines in a port run. */
uint32_t bn_world_phy(const struct bn_world *w);

/* Last value the firmware reported for key, NULL if never. */
const char *bn_world_telemetry(const struct bn_world *w, const char *key);
/* Count of firmware wake() calls (for benchmarks). */
long bn_world_wakes(const struct bn_world *w);
/* Advertised configurations (for reports). */
int bn_world_configs(const struct bn_world *w, const struct bcfw_config **cfg);

#endif
