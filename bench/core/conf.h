/* bench.conf: which backends and files a bench uses. Lines "key = value",
 * '#' comments. Keys:
 *   backend = sim          the bench backend (sim is the only one so far)
 *   limits  = FILE         default limits file (a scenario's own wins)
 *   datadir = DIR          where profiles/ live; relative: to the conf's folder
 *                          (default: beside the binary, core/datadir.h)
 *   out     = DIR          where reports go (default: reports)
 *   capture = sim          the samples the checks judge: the simulated bench's own
 *                          (default), or sigrok:DRIVER[:conn=SPEC], a capture device
 *                          through libsigrok acquiring alongside the scenario (which
 *                          then runs in real time)
 *   capture_map  = MAP     bench channel <- device channel, e.g.
 *                          VBUS=A0,IBUS=A1:shunt=0.1 (core/chanmap.h)
 *   capture_rate = RATE    the device's samplerate, e.g. 20kHz (default: the
 *                          scenario's capture rate)
 *   fixture = sim          the port-emulation fixture: sim, or ftdi[:VID:PID[:SERIAL]]
 *                          or ftdi:DESCRIPTION (default: the fixture file's match)
 *   fixture_file = FILE    the fixture's wiring (a JSON file under fixtures/)
 *   load = sim             the electronic load: sim, or scpi:PORT[@BAUD]
 *   load_dialect = NAME    profiles/instruments/NAME.json (or a path)
 *   supply = sim           the supply behind the port: sim, or scpi:PORT[@BAUD]
 *   supply_dialect = NAME
 *   supply_mode = fixed|follow  a real supply sits at the charger profile's
 *                          open-circuit voltage (fixed, the default) or follows
 *                          its curve at the current it reads (hil/supply_follow.h)
 *   instrument_timeout = TIME   query time-out (default 1s)
 *   instrument_retries = N      retries after a time-out (default 2)
 *   max_load = CURRENT     hard limits: a command beyond them is refused
 *   max_vbus = VOLTAGE     before it is sent (e.g. 3A, 5.5V, 15W)
 *   max_power = POWER
 *   dut_usb = VID:PID[:SERIAL]  the real device under test, found through libusb
 *   console = PORT[@BAUD]  the device's telemetry console
 *   lock = auto|yes|no     the bench lock (auto: only when an instrument is real)
 *   lock_dir = DIR         where lock files live (default /run/lock, else /tmp)
 *   meas_vbus, meas_ibus, meas_dp, meas_dm, meas_id = SPEC
 *                          how the channel is measured (core/meas.h): the simulated
 *                          bench's conditions, or a capture device's stated accuracy
 * Errors read "FILE:LINE: error: ..." and name what was expected. */
#ifndef BN_CORE_CONF_H
#define BN_CORE_CONF_H

#include "core/err.h"
#include "core/meas.h"

/* The meas_* keys, in the order of the capture channels (enum bn_chan). */
#define BN_CONF_MEAS_N 5

struct bn_conf {
	char path[512];
	char backend[32];
	char limits[512];
	char datadir[512];          /* as the conf's folder makes it; "": not given */
	int datadir_line;
	char out[512];
	char capture_driver[64];    /* "" : the simulated bench's samples */
	char capture_conn[256];
	char capture_map[512];
	int capture_map_line;
	double capture_rate_hz;     /* 0: the scenario's */
	char fixture[256];          /* "sim" or "ftdi[:SPEC]" */
	char fixture_file[512];
	char load[256];
	char load_dialect[512];
	char supply[256];
	char supply_dialect[512];
	char supply_mode[8];        /* "fixed" or "follow" */
	int instrument_timeout_ms;  /* 0: the backend's default */
	int instrument_retries;     /* < 0: the backend's default */
	double max_load_a, max_vbus_v, max_power_w; /* 0: no limit */
	char dut_usb[128];
	char console[256];
	char lock[8];               /* "auto", "yes", "no" */
	char lock_dir[512];
	unsigned meas_set;          /* bits: meas_* given */
	struct bn_meas meas[BN_CONF_MEAS_N];
	int meas_line[BN_CONF_MEAS_N];
};

/* Whether any instrument is a real one (not sim). */
int bn_conf_has_hardware(const struct bn_conf *c);
/* The first key that names a real instrument (fixture, load, supply,
 * capture, dut_usb, console), for a message; NULL: the simulated bench
 * only. */
const char *bn_conf_hardware_key(const struct bn_conf *c);

void bn_conf_defaults(struct bn_conf *c);
int bn_conf_load(const char *path, struct bn_conf *c, struct bn_err *err);

#endif
