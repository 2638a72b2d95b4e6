/* A real capture device through libsigrok, acquiring alongside a run:
 * bench.conf "capture = sigrok:DRIVER[:conn=...]" with a channel map and
 * a samplerate. Tested with libsigrok's demo driver (no hardware) and its
 * scpi-pps driver against tests/emu/instr_emu.c over TCP.
 *
 * Open states the device's limits (its analog channels, whether it can
 * set a samplerate and which) and refuses, before any run, a map or a rate
 * the device cannot do, listing what it can. It then acquires briefly to
 * learn what each mapped channel measures (libsigrok says so in every
 * analog packet) and refuses a map that reads it as something else: a
 * voltage channel as IBUS without shunt=, a current as VBUS, an AC
 * measurement. The frames (VBUS, IBUS, DP, DM, ID, NAN for a channel not
 * mapped), scaled to SI, are timed as sigrok_feed.h explains: exact at the
 * samplerate for a stream, approximate with gaps for a scope's frames,
 * time-stamped on arrival for a polled device without a samplerate. The
 * libsigrok session runs in its own thread; the run's thread reads. A
 * device that ends the acquisition, changes what a channel measures, or
 * sends nothing for stall_ms makes the read fail (BN_ERR_FAULT). */
#ifndef BN_HIL_SIGROK_CAP_H
#define BN_HIL_SIGROK_CAP_H

#include <stdbool.h>
#include <stdint.h>

#include "core/channel.h"
#include "core/chanmap.h"
#include "core/err.h"
#include "hil/sigrok_feed.h"

struct bn_sigrok_cap_opts {
	const char *driver;    /* "demo", "rigol-ds", "scpi-pps", ... */
	const char *conn;      /* NULL or the driver's conn= string */
	/* NULL or the driver's other scan options as sigrok-cli takes them
	 * after the driver: "key=value[:key=value]..." (demo:
	 * "analog_channels=2", "limit_frames=100"). */
	const char *scan_opts;
	/* The samplerate to set. 0: none asked, which only a device that
	 * cannot set one accepts. A device that cannot set one (a scope whose
	 * timebase sets it, a polled supply or meter) refuses any other rate,
	 * unless rate_advisory: the rate is then the scenario's wish, not the
	 * bench's demand, and the device runs at its own (bn_sigrok_cap_rate,
	 * bn_sigrok_cap_timing say which). */
	double rate_hz;
	bool rate_advisory;
	/* No packet for this long while acquiring: the device stopped (and
	 * open's channel check gives up). 0: 3000. */
	int stall_ms;
	struct bn_chanmap map; /* bench channel <- device channel name */
};

/* What a device can do, from libsigrok, before anything is asked of it. */
#define BN_SIGROK_MAX_CHANNELS 32
#define BN_SIGROK_MAX_RATES 32

enum bn_sigrok_rates {
	BN_SIGROK_RATES_NONE = 0, /* the driver lists none */
	BN_SIGROK_RATES_LIST,     /* rates_hz[] */
	BN_SIGROK_RATES_RANGE,    /* min to max in steps of step */
};

struct bn_sigrok_limits {
	char desc[192];      /* "Rigol DP832 00.01.14 at ... (sigrok driver scpi-pps)" */
	int n_analog;        /* analog channels the device has */
	char analog[BN_SIGROK_MAX_CHANNELS][32]; /* the first ones' names */
	bool rate_get;       /* it states its samplerate */
	bool rate_set;       /* it can be set one */
	double rate_hz;      /* the one it states now; 0: none (polled) */
	enum bn_sigrok_rates rates;
	double rate_min_hz, rate_max_hz, rate_step_hz; /* RANGE */
	int n_rates;                                   /* LIST */
	double rates_hz[BN_SIGROK_MAX_RATES];
	bool rates_cut;      /* the list had more than BN_SIGROK_MAX_RATES */
};

struct bn_sigrok_cap;

/* Init libsigrok, find the driver, scan, open the first device, state its
 * limits, enable the mapped channels (and only those), set the
 * samplerate, and check what the mapped channels measure (a short
 * acquisition: up to a packet per channel, bounded by stall_ms). Errors
 * name the driver and what the device can do: BN_ERR_ARG for a driver,
 * option, map or rate it cannot take (unknown driver or scan option, a
 * channel it lacks, more channels than it has, one device channel mapped
 * twice, a rate it cannot run at, a channel that measures something else
 * than the map says); BN_ERR_IO for no device found or one that cannot be
 * opened; BN_ERR_FAULT for a device that does not deliver on the check. */
int bn_sigrok_cap_open(const struct bn_sigrok_cap_opts *o, struct bn_sigrok_cap **out,
		       struct bn_err *err);
/* The device's description ("Demo device (sigrok driver demo)"). */
const char *bn_sigrok_cap_describe(const struct bn_sigrok_cap *c);
/* How long the device may send nothing before a read fails: a frame
 * can arrive up to this late (a packet of the device's whole transfer). */
bn_time_us bn_sigrok_cap_stall_us(const struct bn_sigrok_cap *c);
/* The run begins: the stream's dating stops being refined
 * (bn_sigrok_feed_freeze_clock). */
void bn_sigrok_cap_freeze_clock(struct bn_sigrok_cap *c);
/* Bits of enum bn_chan that are mapped to a device channel. */
unsigned bn_sigrok_cap_channels(const struct bn_sigrok_cap *c);
/* The samplerate the device runs at; 0 for a polled device (the rate it
 * achieves is in bn_sigrok_cap_timing). */
double bn_sigrok_cap_rate(const struct bn_sigrok_cap *c);
const struct bn_sigrok_limits *bn_sigrok_cap_limits(const struct bn_sigrok_cap *c);
/* What bench channel ch reads: the device's channel, what it reports
 * measuring, the map's scale and shunt. false for a channel not mapped. */
bool bn_sigrok_cap_chan_info(struct bn_sigrok_cap *c, enum bn_chan ch,
			     struct bn_sigrok_chan_info *out);
/* How the frames are timed, how many came, the achieved rate. */
void bn_sigrok_cap_timing(struct bn_sigrok_cap *c, struct bn_sigrok_timing *out);

int bn_sigrok_cap_start(struct bn_sigrok_cap *c, struct bn_err *err);
/* Up to max frames since the last read, each with its time since start
 * and its gap flag. Never blocks. < 0: the device failed or stopped
 * (BN_ERR_FAULT; the message says how), reported once the frames before
 * the failure are read. */
long bn_sigrok_cap_read(struct bn_sigrok_cap *c, struct bn_cap_frame *frames, long max,
			struct bn_err *err);
/* Stop the acquisition and join the thread; frames already aligned stay
 * available to read. */
int bn_sigrok_cap_stop(struct bn_sigrok_cap *c, struct bn_err *err);
/* Frames dropped because the queue was full. */
int64_t bn_sigrok_cap_dropped(struct bn_sigrok_cap *c);
void bn_sigrok_cap_close(struct bn_sigrok_cap *c);

/* For "bcbench devices": find and open the device of o (driver, conn,
 * scan_opts; the rest is ignored), state its limits, close it. */
int bn_sigrok_dev_limits(const struct bn_sigrok_cap_opts *o, struct bn_sigrok_limits *out,
			 struct bn_err *err);
/* "analog channels A0, A1 (2); samplerate settable, 1 Hz to 1000000000 Hz
 * in steps of 1 Hz, now 200000 Hz" */
void bn_sigrok_limits_text(const struct bn_sigrok_limits *l, char *buf, size_t len);

#endif
