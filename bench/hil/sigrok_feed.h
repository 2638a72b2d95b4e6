/* The datafeed side of a libsigrok capture: packets in, timed frames out.
 *
 * libsigrok delivers analog packets of one channel each, in no fixed
 * channel order, and says in each what it measured (meaning: mq, unit,
 * mqflags). The feed records that per mapped channel and checks it against
 * the channel map (VBUS, DP, DM, ID and IBUS across a shunt are voltages;
 * IBUS is otherwise a current), aligns the channels into frames (VBUS,
 * IBUS, DP, DM, ID; NAN for a channel not mapped), scaled by the map, and
 * dates each frame by one of three clocks:
 *
 *  - a stream at the device's samplerate: frame k at k / rate, exact;
 *  - scope frames (SR_DF_FRAME_BEGIN .. SR_DF_FRAME_END around each
 *    acquisition, no time stamp on either): 1 / rate within a frame; a
 *    frame starts at the host's monotonic clock at its FRAME_BEGIN, kept
 *    strictly after the previous frame's last sample, approximate, and its
 *    first sample carries gap_before: the time between two frames is
 *    unknown, so nothing may be judged across it;
 *  - polled devices without a samplerate (scpi-pps, scpi-dmm): one reading
 *    per channel per packet; each frame is one poll cycle, dated by the
 *    host's clock at the arrival of its first reading (approximate).
 *
 * Frames go to a bounded queue; a consumer that falls behind loses frames,
 * counted. The packets come in libsigrok's session thread, the reads in
 * the caller's: the queue, the timing and the channel records are shared
 * under a lock. This is apart from sigrok_cap.c so that tests can feed it
 * synthetic packets (a scope's frames without a scope). */
#ifndef BN_HIL_SIGROK_FEED_H
#define BN_HIL_SIGROK_FEED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/channel.h"
#include "core/chanmap.h"
#include "core/err.h"
#include "core/time.h"

struct sr_channel;
struct sr_datafeed_packet;

/* One aligned frame: every bench channel at one instant. */
struct bn_cap_frame {
	bn_time_us t_us; /* since the acquisition started */
	bool gap_before; /* unknown time passed since the frame before (a new
			  * scope frame): judge nothing across it */
	bool t_approx;   /* t_us is from the host's clock (a scope frame's
			  * start, a polled reading's arrival), not from the
			  * device's sample clock */
	struct bn_sample s;
};

enum bn_sigrok_clock {
	BN_SIGROK_CLOCK_RATE = 0, /* a stream at the samplerate: exact times */
	BN_SIGROK_CLOCK_FRAMES,   /* scope frames: unknown gaps between them */
	BN_SIGROK_CLOCK_POLLED,   /* no samplerate: time-stamped on arrival */
};

/* What a mapped channel is, as the device reports it and as the map reads
 * it: for the report. */
struct bn_sigrok_chan_info {
	bool mapped;
	char dev_chan[32];   /* the device's channel name: "A1", "V1" */
	char dev_group[32];  /* its channel group ("CH1", "1"), "" for none */
	bool reported;       /* an analog packet has said what it measures */
	int mq;              /* enum sr_mq, as reported (first packet, or
			      * the latest change) */
	int unit;            /* enum sr_unit */
	uint64_t mqflags;    /* enum sr_mqflag bits */
	char mq_name[32];    /* "voltage", "current", ... */
	char unit_name[16];  /* "V", "A", ... */
	char flags_text[64]; /* "DC", "AC RMS", "" */
	int changes;         /* times it changed after the first report */
	double scale;        /* the map's */
	double shunt_ohm;    /* the map's shunt; 0: none */
	char map_unit[8];    /* the unit the map reads raw * scale in */
};

/* How the frames are timed and how fast they came: for the report (a
 * polled device's achieved rate is all there is to say about its rate). */
struct bn_sigrok_timing {
	enum bn_sigrok_clock clock;
	int64_t start_mono_us;       /* the host's CLOCK_MONOTONIC, in us, at
				      * which t_us is 0 (the acquisition's
				      * start) */
	double rate_hz;              /* the samplerate; 0: none (polled) */
	int64_t frames;              /* aligned this acquisition */
	int64_t dropped;             /* lost to a full queue */
	int64_t scope_frames;        /* FRAME_BEGIN seen this acquisition */
	int64_t trimmed;             /* samples past the shortest channel at a
				      * scope frame's end, dropped */
	bn_time_us first_us;         /* the first frame's time; -1: none */
	bn_time_us last_us;          /* the last frame's time; -1: none */
	double mean_rate_hz;         /* (frames - 1) / (last - first); 0
				      * before two frames */
	bn_time_us max_interval_us;  /* longest time between two consecutive
				      * frames (across scope-frame gaps too) */
	bn_time_us max_skew_us;      /* polled: longest spread of one frame's
				      * readings' arrivals */
	bn_time_us start_lost_us;    /* a stream whose start was lost: its first
				      * frame dated this late, from its packet's
				      * arrival (approximate); 0: none */
	long start_packets;          /* the packets of one channel that bounded
				      * it (the first and those before the
				      * clock was frozen) */
	bn_time_us start_refined_us; /* how much earlier the later ones put it
				      * than the first (the first's extra
				      * delivery time) */
};

struct bn_sigrok_feed_cfg {
	const char *driver;                  /* for messages */
	const struct bn_chanmap *map;
	struct sr_channel *chan[BN_CH_COUNT]; /* NULL: not mapped */
	double rate_hz;                      /* 0: polled (no samplerate) */
	size_t queue_frames;
	bn_time_us stall_us;                 /* no packet this long while
					      * acquiring: the device stopped */
	/* The host's monotonic clock in us; NULL: CLOCK_MONOTONIC. */
	int64_t (*now_us)(void *user);
	void *now_user;
};

struct bn_sigrok_feed;

int bn_sigrok_feed_new(const struct bn_sigrok_feed_cfg *cfg, struct bn_sigrok_feed **out,
		       struct bn_err *err);
void bn_sigrok_feed_free(struct bn_sigrok_feed *f);
/* A new acquisition, before sr_session_start: queue, alignment, timing
 * and errors reset, its time 0 now. What the channels reported is kept,
 * so a change from one acquisition to the next is seen. probe: only
 * record and check what the channels report, queue nothing; a mismatch
 * with the map is then BN_ERR_ARG (the map is wrong); found in a later
 * acquisition, a change is BN_ERR_FAULT (the device changed under us). */
void bn_sigrok_feed_begin(struct bn_sigrok_feed *f, bool probe);
/* A stream whose start was lost is dated back from its first packet's
 * arrival, and each later packet may bound that tighter, until this (the
 * run begins: from then on the dating must not move). */
void bn_sigrok_feed_freeze_clock(struct bn_sigrok_feed *f);
/* Every datafeed packet of the device, in the session's thread (or the
 * caller's, for those sr_session_start sends). */
void bn_sigrok_feed_packet(struct bn_sigrok_feed *f, const struct sr_datafeed_packet *p);
/* The bench stops the acquisition: its SR_DF_END is no failure, and no
 * packet is expected any more. */
void bn_sigrok_feed_stopping(struct bn_sigrok_feed *f);
/* A failure found outside the packets; the first one is kept. */
void bn_sigrok_feed_fail(struct bn_sigrok_feed *f, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Every mapped channel has reported what it measures. */
bool bn_sigrok_feed_all_reported(struct bn_sigrok_feed *f);
/* The failure so far (BN_OK: none), copied to err. */
int bn_sigrok_feed_error(struct bn_sigrok_feed *f, struct bn_err *err);
/* Up to max frames, oldest first. Never blocks. 0: none yet. < 0: the
 * acquisition failed (reported once the frames before the failure are
 * read): the device ended it, stopped sending for stall_us, changed what
 * a channel measures, or the session failed. */
long bn_sigrok_feed_read(struct bn_sigrok_feed *f, struct bn_cap_frame *out, long max,
			 struct bn_err *err);
void bn_sigrok_feed_timing(struct bn_sigrok_feed *f, struct bn_sigrok_timing *out);
/* false (and *out zeroed) for a bench channel that is not mapped. */
bool bn_sigrok_feed_chan_info(struct bn_sigrok_feed *f, enum bn_chan ch,
			      struct bn_sigrok_chan_info *out);

#endif
