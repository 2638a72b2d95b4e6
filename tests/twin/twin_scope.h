/* The twin's fast capture device: the sample source behind the fake
 * Hantek 6022BE of tests/fakeusb (a fake libusb-1.0 that libsigrok 0.5.2's
 * own hantek-6xxx driver drives in the process under test, run with
 * LD_LIBRARY_PATH=BUILD/tests/fakeusb and BCBENCH_FAKEUSB_SCOPE naming this
 * socket). The protocol is tests/fakeusb/scope_proto.h: one connection per
 * acquisition, "start RATE R1 R2\n", then frames of the scope's two
 * inputs in real time, until "stop\n".
 *
 * What the scope's inputs see, as on a bench:
 *   CH1 = VBUS / 10        VBUS at the device through a 10:1 probe
 *   CH2 = IBUS x R         the device's current through a shunt of R ohm
 *                          (1 unless told; the shunt's voltage)
 * so bench.conf maps them back with VBUS=CH1:scale=10,IBUS=CH2:shunt=R.
 *
 * The frames are the world's own samples: the world's sample clock runs at
 * the scope's rate (twin_world_opts.sample_rate_hz) and hands every tick to
 * twin_scope_sample. Frame 0 of an acquisition is the first tick at or
 * after the start line was read (within one tick of it), frame k is at
 * frame 0 + k / RATE and shows the world at the latest tick not after
 * that (the tick itself when RATE is the world's rate). The world only
 * reaches a tick once real time has passed it, so no frame leaves before
 * its time; frames wait in a queue (the scope's FIFO) and go in batches of
 * TWIN_SCOPE_BATCH_US, without blocking the twin's loop. A queue that
 * overflows (nobody reads for TWIN_SCOPE_FIFO_S) drops the newest frames,
 * as a scope's FIFO does, and says how many.
 *
 * --log keeps scope.log (each acquisition's start and end, with what was
 * sent, dropped and the longest backlog) and scope-samples.tsv (every
 * TWIN_SCOPE_LOG_EVERY-th frame with its time: the world's VBUS and IBUS,
 * the volts at the inputs and the 8-bit codes the scope makes of them). */
#ifndef BN_TWIN_SCOPE_H
#define BN_TWIN_SCOPE_H

#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/channel.h"
#include "core/err.h"
#include "core/time.h"

#include "../fakeusb/scope_proto.h"

#define TWIN_SCOPE_PROBE 10.0     /* CH1's probe: 10:1 */
#define TWIN_SCOPE_SHUNT_OHM 1.0  /* CH2 across a 1 ohm shunt, unless told */
#define TWIN_SCOPE_BATCH_US 2000
#define TWIN_SCOPE_FIFO_S 4.0
#define TWIN_SCOPE_LOG_EVERY 100

struct twin_scope {
	char path[108];
	int lfd, fd;               /* listening socket, the acquisition's (-1: none) */
	FILE *log, *samples;       /* may be NULL */
	uint32_t world_rate_hz;
	double shunt_ohm;
	bn_time_us tick_us;        /* the world's sample period */
	bool gone;                 /* unplugged for good (a fault) */
	/* the acquisition on fd */
	bool started;
	char line[SCOPE_PROTO_LINE_MAX];
	size_t line_len;
	struct scope_start st;
	bn_time_us start_t;        /* when its start line was read */
	bn_time_us frame0_t;       /* -1: no tick yet */
	uint64_t k;                /* the next frame */
	uint64_t sent_bytes, dropped; /* this acquisition's (then in the totals) */
	size_t max_backlog;        /* frames */
	bn_time_us last_send_t;
	bool want_out;             /* the socket was full: wait until it is writable */
	/* the FIFO: bytes of frames made, not yet sent (a frame may go in
	 * parts: a stream socket takes what fits) */
	unsigned char *q;
	size_t q_cap, q_head, q_len;
	/* totals */
	long acquisitions;
	uint64_t frames_sent, frames_dropped;
	bn_time_us first_sent_t;   /* -1: none yet */
	bn_time_us now;
};

/* Listen on the unix socket path (replacing a stale one); rate_hz is the
 * world's sample rate (1e6 divisible by it: its clock ticks in whole
 * microseconds). */
int twin_scope_open(struct twin_scope *s, const char *path, uint32_t rate_hz, double shunt_ohm,
		    FILE *log, FILE *samples, struct bn_err *err);
/* The world's sink: each tick of its sample clock. */
void twin_scope_sample(struct twin_scope *s, bn_time_us t, const struct bn_sample *smp);
int twin_scope_fds(const struct twin_scope *s, struct pollfd *p, int max);
/* After the world reached now: connections, start and stop lines, and the
 * frames due sent. */
void twin_scope_service(struct twin_scope *s, const struct pollfd *p, int n, bn_time_us now);
/* The scope unplugged for good (a fault): the fake's pending transfer
 * ends with LIBUSB_TRANSFER_NO_DEVICE. */
void twin_scope_unplug(struct twin_scope *s, bn_time_us now, const char *why);
void twin_scope_close(struct twin_scope *s, bn_time_us now);

#endif
