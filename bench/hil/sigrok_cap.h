/* A real capture device through libsigrok, acquiring alongside a run:
 * bench.conf "capture = sigrok:DRIVER[:conn=...]" with a channel map and
 * a samplerate. Tested with libsigrok's demo driver (no hardware).
 *
 * libsigrok delivers packets of one channel each, in no fixed channel
 * order (about 1,020 samples per packet from the demo driver). This
 * backend aligns them into frames (VBUS, IBUS, DP, DM, ID, NAN for a
 * channel not mapped), mapped and scaled to SI, and queues them for the
 * run's thread, which polls. The libsigrok session runs in its own thread.
 * Memory: the queue is bounded; a consumer that falls behind loses frames,
 * and that is counted and reported, never hidden. */
#ifndef BN_HIL_SIGROK_CAP_H
#define BN_HIL_SIGROK_CAP_H

#include <stdint.h>

#include "capture/channel.h"
#include "capture/chanmap.h"
#include "core/err.h"

struct bn_sigrok_cap_opts {
	const char *driver;          /* "demo", ... */
	const char *conn;            /* NULL or the driver's conn= string */
	double rate_hz;              /* samplerate to set */
	struct bn_chanmap map;       /* bench channel <- device channel name */
};

struct bn_sigrok_cap;

/* Init libsigrok, find the driver, scan, open the first device, enable
 * the mapped channels (and only those), set the samplerate. Errors name
 * the driver and what failed: unknown driver, no device found, a mapped
 * channel the device does not have (listing the ones it has). */
int bn_sigrok_cap_open(const struct bn_sigrok_cap_opts *o, struct bn_sigrok_cap **out,
		       struct bn_err *err);
/* The device's description ("Demo device ..."), for the report. */
const char *bn_sigrok_cap_describe(const struct bn_sigrok_cap *c);
/* Bits of enum bn_chan that are mapped to a device channel. */
unsigned bn_sigrok_cap_channels(const struct bn_sigrok_cap *c);
double bn_sigrok_cap_rate(const struct bn_sigrok_cap *c);
int bn_sigrok_cap_start(struct bn_sigrok_cap *c, struct bn_err *err);
/* Up to max aligned frames since the last poll; frame k of the whole
 * acquisition is at t = k / rate. Never blocks. < 0: the device failed
 * (the message says how). */
long bn_sigrok_cap_poll(struct bn_sigrok_cap *c, struct bn_sample *frames, long max,
			struct bn_err *err);
/* Stop the acquisition and join the thread; frames already aligned stay
 * available to poll. */
int bn_sigrok_cap_stop(struct bn_sigrok_cap *c, struct bn_err *err);
/* Frames dropped because the queue was full. */
int64_t bn_sigrok_cap_dropped(const struct bn_sigrok_cap *c);
void bn_sigrok_cap_close(struct bn_sigrok_cap *c);

#endif
