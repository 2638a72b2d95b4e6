/* The libsigrok datafeed handling (hil/sigrok_feed.c) fed synthetic
 * packets, as drivers send them, on a clock the test sets: a scope's
 * frames (no libsigrok 0.5.2 driver makes gaps without hardware), a
 * polled supply's readings, what channels report measuring and changes of
 * it, a device that ends or goes quiet. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>
#include <libsigrok/libsigrok.h>

#include "lib/harness.h"

#include "core/chanmap.h"
#include "hil/sigrok_feed.h"

struct fx {
	struct sr_channel a0, a1, a2;
	struct bn_chanmap map;
	struct bn_sigrok_feed *f;
	int64_t now_us; /* the host's clock as the feed sees it */
	struct bn_err err;
};

static int64_t fx_now(void *user)
{
	return ((struct fx *)user)->now_us;
}

static int setup(void **state)
{
	struct fx *x = calloc(1, sizeof(*x));

	x->a0 = (struct sr_channel){ .index = 0, .type = SR_CHANNEL_ANALOG, .enabled = TRUE, .name = "A0" };
	x->a1 = (struct sr_channel){ .index = 1, .type = SR_CHANNEL_ANALOG, .enabled = TRUE, .name = "A1" };
	x->a2 = (struct sr_channel){ .index = 2, .type = SR_CHANNEL_ANALOG, .enabled = TRUE, .name = "A2" };
	x->now_us = 1000000;
	*state = x;
	return 0;
}

static int teardown(void **state)
{
	struct fx *x = *state;

	bn_sigrok_feed_free(x->f);
	free(x);
	return 0;
}

/* A feed for VBUS <- A0 and IBUS <- A1 with map spec, at rate_hz (0:
 * polled). */
static void feed_new(struct fx *x, const char *spec, double rate_hz, size_t queue)
{
	struct bn_sigrok_feed_cfg cfg = {
		.driver = "fake", .map = &x->map, .rate_hz = rate_hz, .queue_frames = queue,
		.stall_us = 500000, .now_us = fx_now, .now_user = x,
	};

	bn_chanmap_default(&x->map);
	if (bn_chanmap_parse(spec, &x->map, "test", &x->err) < 0)
		fail_msg("map %s: %s", spec, x->err.msg);
	cfg.chan[BN_CH_VBUS] = &x->a0;
	cfg.chan[BN_CH_IBUS] = &x->a1;
	assert_int_equal(bn_sigrok_feed_new(&cfg, &x->f, &x->err), BN_OK);
}

static void send_type(struct fx *x, int type)
{
	struct sr_datafeed_packet p = { .type = (uint16_t)type };

	bn_sigrok_feed_packet(x->f, &p);
}

/* One analog packet of channel ch: n float samples. */
static void send_analog_mq(struct fx *x, struct sr_channel *ch, const float *v, unsigned n, int mq,
			   int unit, uint64_t flags)
{
	struct sr_analog_encoding enc = {
		.unitsize = sizeof(float), .is_signed = TRUE, .is_float = TRUE,
		.is_bigendian = G_BYTE_ORDER == G_BIG_ENDIAN, .digits = 3,
		.is_digits_decimal = TRUE, .scale = { 1, 1 }, .offset = { 0, 1 },
	};
	struct sr_analog_meaning mn = { .mq = mq, .unit = unit, .mqflags = flags };
	struct sr_analog_spec spec = { .spec_digits = 3 };
	struct sr_datafeed_analog a = {
		.data = (void *)v, .num_samples = n, .encoding = &enc, .meaning = &mn, .spec = &spec,
	};
	struct sr_datafeed_packet p = { .type = SR_DF_ANALOG, .payload = &a };

	mn.channels = g_slist_append(NULL, ch);
	bn_sigrok_feed_packet(x->f, &p);
	g_slist_free(mn.channels);
}

static void send_v(struct fx *x, struct sr_channel *ch, const float *v, unsigned n)
{
	send_analog_mq(x, ch, v, n, SR_MQ_VOLTAGE, SR_UNIT_VOLT, SR_MQFLAG_DC);
}

static long read_all(struct fx *x, struct bn_cap_frame *out, long max)
{
	long n = bn_sigrok_feed_read(x->f, out, max, &x->err);

	if (n < 0)
		fail_msg("read: %s", x->err.msg);
	return n;
}

/* A stream at 1 kHz: channels in packets of different lengths align into
 * frames k at k ms, scaled by the map (IBUS across a 0.5 ohm shunt). */
static void test_sigrok_feed__stream(void **state)
{
	struct fx *x = *state;
	const float a[5] = { 1, 2, 3, 4, 5 }, b[3] = { 0.5f, 1.0f, 1.5f }, b2[2] = { 2.0f, 2.5f };
	struct bn_cap_frame out[8];
	struct bn_sigrok_timing tm;

	feed_new(x, "VBUS=A0:scale=2,IBUS=A1:shunt=0.5", 1000, 64);
	bn_sigrok_feed_begin(x->f, false);
	send_v(x, &x->a0, a, 5);
	assert_int_equal(bn_sigrok_feed_read(x->f, out, 8, &x->err), 0); /* IBUS not in yet */
	send_v(x, &x->a1, b, 3);
	send_v(x, &x->a1, b2, 2);
	assert_int_equal(read_all(x, out, 8), 5);
	for (int k = 0; k < 5; k++) {
		assert_int_equal(out[k].t_us, k * 1000);
		assert_false(out[k].gap_before);
		assert_false(out[k].t_approx);
		assert_near(out[k].s.v[BN_CH_VBUS], 2.0 * (k + 1), 1e-6);
		assert_near(out[k].s.v[BN_CH_IBUS], (0.5 * (k + 1)) / 0.5, 1e-6);
		assert_true(isnan(out[k].s.v[BN_CH_DP]));
	}
	bn_sigrok_feed_timing(x->f, &tm);
	assert_int_equal(tm.clock, BN_SIGROK_CLOCK_RATE);
	assert_int_equal(tm.start_mono_us, 1000000); /* the clock at begin */
	assert_int_equal(tm.frames, 5);
	assert_near(tm.mean_rate_hz, 1000.0, 1e-9);
	assert_int_equal(tm.max_interval_us, 1000);
	assert_int_equal(tm.scope_frames, 0);
	assert_int_equal(tm.start_lost_us, 0);
}

/* A packet of the 5 samples 1..5 on both mapped channels, dt_us after
 * the last one, and its frames read back into out (5 of them). */
static void feed_packet5(struct fx *x, bn_time_us dt_us, struct bn_cap_frame *out)
{
	static const float a[5] = { 1, 2, 3, 4, 5 };

	x->now_us += dt_us;
	send_v(x, &x->a0, a, 5);
	send_v(x, &x->a1, a, 5);
	assert_int_equal(read_all(x, out, 8), 5);
}

/* A stream whose start was lost: its first packet (5 samples at 1 kHz, a
 * 5 ms span) arrives long after the start (libsigrok 0.5.2's hantek-6xxx
 * gives a following acquisition's first transfer to the earlier one's
 * pending transfer). Its frames are dated back from the arrival, marked
 * approximate, and the timing says how late the stream starts (a packet
 * within its span's reach is dated from the start as usual: the stream
 * test). (0.4 s here:
 * the fixture's stall time is 0.5 s.) */
static void test_sigrok_feed__stream_start_lost(void **state)
{
	struct fx *x = *state;
	struct bn_cap_frame out[8];
	struct bn_sigrok_timing tm;

	feed_new(x, "VBUS=A0,IBUS=A1:shunt=1", 1000, 64);
	bn_sigrok_feed_begin(x->f, false);
	feed_packet5(x, 400000, out);
	for (int k = 0; k < 5; k++) {
		assert_int_equal(out[k].t_us, 395000 + k * 1000);
		assert_true(out[k].t_approx);
	}
	bn_sigrok_feed_timing(x->f, &tm);
	assert_int_equal(tm.start_lost_us, 395000);
}

/* A lost start dated from the first packet's arrival is bounded tighter
 * by each later packet until the clock is frozen (the run begins): the
 * quickest delivery wins, and nothing moves afterwards. */
static void test_sigrok_feed__stream_start_refined(void **state)
{
	struct fx *x = *state;
	struct bn_cap_frame out[8];
	struct bn_sigrok_timing tm;

	feed_new(x, "VBUS=A0,IBUS=A1:shunt=1", 1000, 64);
	bn_sigrok_feed_begin(x->f, false);
	feed_packet5(x, 400000, out);    /* frames 0-4 arrive late: dated from 395 ms */
	/* frames 5-9 arrive at 403 ms: frame 9 was taken by then, so the
	 * start is at most 403 - 9 = 394 ms (1 ms sooner than the first said) */
	feed_packet5(x, 3000, out);
	assert_true(llabs(out[0].t_us - (394000 + 5 * 1000)) <= 1);
	bn_sigrok_feed_timing(x->f, &tm);
	assert_true(llabs(tm.start_lost_us - 394000) <= 1);
	assert_int_equal(tm.start_packets, 2);
	assert_true(llabs(tm.start_refined_us - 1000) <= 1);
	/* frozen: a quicker packet no longer moves the frames */
	bn_sigrok_feed_freeze_clock(x->f);
	feed_packet5(x, 1000, out);
	assert_true(llabs(out[0].t_us - (394000 + 10 * 1000)) <= 1);
	bn_sigrok_feed_timing(x->f, &tm);
	assert_true(llabs(tm.start_lost_us - 394000) <= 1);
	assert_int_equal(tm.start_packets, 2);
}

/* Scope frames at 1 kHz: each starts at the host's clock at its
 * FRAME_BEGIN, kept after the previous frame's last sample; its first
 * sample has gap_before; samples past the shortest channel at its end are
 * dropped, never carried into the next frame. */
static void test_sigrok_feed__scope_frames(void **state)
{
	struct fx *x = *state;
	const float a[6] = { 1, 2, 3, 4, 5, 6 }, b[4] = { 10, 20, 30, 40 };
	struct bn_cap_frame out[16];
	struct bn_sigrok_timing tm;
	long n;

	feed_new(x, "VBUS=A0,IBUS=A1:shunt=1", 1000, 64);
	bn_sigrok_feed_begin(x->f, false);
	/* Frame 1 begins 10 ms into the acquisition: VBUS has 6 samples,
	 * IBUS 4; 2 of VBUS's are trimmed at its end. */
	x->now_us += 10000;
	send_type(x, SR_DF_FRAME_BEGIN);
	send_v(x, &x->a0, a, 6);
	send_v(x, &x->a1, b, 4);
	send_type(x, SR_DF_FRAME_END);
	/* Frame 2's BEGIN comes 1 ms later by the host's clock, before frame
	 * 1's last sample (10 + 3 ms): its start is kept after it. */
	x->now_us += 1000;
	send_type(x, SR_DF_FRAME_BEGIN);
	send_v(x, &x->a1, b, 3);
	send_v(x, &x->a0, a, 3);
	send_type(x, SR_DF_FRAME_END);
	/* Frame 3 a second later. */
	x->now_us += 1000000;
	send_type(x, SR_DF_FRAME_BEGIN);
	send_v(x, &x->a0, a, 2);
	send_v(x, &x->a1, b, 2);
	send_type(x, SR_DF_FRAME_END);

	n = read_all(x, out, 16);
	assert_int_equal(n, 4 + 3 + 2);
	/* Frame 1: 10 ms + i ms. */
	for (int i = 0; i < 4; i++) {
		assert_int_equal(out[i].t_us, 10000 + i * 1000);
		assert_int_equal(out[i].gap_before, i == 0);
		assert_true(out[i].t_approx);
		assert_near(out[i].s.v[BN_CH_VBUS], a[i], 1e-6);
		assert_near(out[i].s.v[BN_CH_IBUS], b[i], 1e-6);
	}
	/* Frame 2: from its own first samples (not frame 1's leftovers),
	 * starting 1 us after frame 1's last. */
	for (int i = 0; i < 3; i++) {
		assert_int_equal(out[4 + i].t_us, 13001 + i * 1000);
		assert_int_equal(out[4 + i].gap_before, i == 0);
		assert_near(out[4 + i].s.v[BN_CH_VBUS], a[i], 1e-6);
		assert_near(out[4 + i].s.v[BN_CH_IBUS], b[i], 1e-6);
	}
	/* Frame 3: at the host's clock, 1.011 s in. */
	assert_int_equal(out[7].t_us, 1011000);
	assert_true(out[7].gap_before);
	assert_int_equal(out[8].t_us, 1012000);
	assert_false(out[8].gap_before);

	bn_sigrok_feed_timing(x->f, &tm);
	assert_int_equal(tm.clock, BN_SIGROK_CLOCK_FRAMES);
	assert_int_equal(tm.scope_frames, 3);
	assert_int_equal(tm.trimmed, 2);
	assert_int_equal(tm.frames, 9);
	assert_int_equal(tm.max_interval_us, 1011000 - 15001);
	/* The device's way is kept: the next acquisition says frames too. */
	bn_sigrok_feed_begin(x->f, false);
	bn_sigrok_feed_timing(x->f, &tm);
	assert_int_equal(tm.clock, BN_SIGROK_CLOCK_FRAMES);
	assert_int_equal(tm.frames, 0);
}

/* A scope that sends data outside FRAME_BEGIN..END, or a BEGIN without
 * the END before: each run of data is a frame of its own. */
static void test_sigrok_feed__frame_without_markers(void **state)
{
	struct fx *x = *state;
	const float a[3] = { 1, 2, 3 };
	struct bn_cap_frame out[8];

	feed_new(x, "VBUS=A0,IBUS=A1:shunt=1", 1000, 64);
	bn_sigrok_feed_begin(x->f, false);
	send_type(x, SR_DF_FRAME_BEGIN);
	send_v(x, &x->a0, a, 2);
	send_v(x, &x->a1, a, 3);
	x->now_us += 500000;
	send_type(x, SR_DF_FRAME_BEGIN); /* no END: frame 1 is over */
	send_v(x, &x->a0, a, 1);
	send_v(x, &x->a1, a, 1);
	send_type(x, SR_DF_FRAME_END);
	x->now_us += 500000;
	send_v(x, &x->a0, a, 1); /* outside any frame */
	send_v(x, &x->a1, a, 1);
	assert_int_equal(read_all(x, out, 8), 4);
	assert_true(out[0].gap_before);
	assert_false(out[1].gap_before);
	assert_true(out[2].gap_before);
	assert_int_equal(out[2].t_us, 500000);
	assert_near(out[2].s.v[BN_CH_IBUS], 1.0, 1e-6); /* not frame 1's third */
	assert_true(out[3].gap_before);
	assert_int_equal(out[3].t_us, 1000000);
}

/* A polled device (no samplerate): one reading per channel per cycle,
 * each frame at its first reading's arrival; the achieved rate, the
 * longest interval and the channels' spread are measured. */
static void test_sigrok_feed__polled(void **state)
{
	struct fx *x = *state;
	struct bn_cap_frame out[8];
	struct bn_sigrok_timing tm;
	float v, i;

	feed_new(x, "VBUS=A0,IBUS=A1", 0, 64);
	bn_sigrok_feed_begin(x->f, false);
	for (int cyc = 0; cyc < 4; cyc++) {
		/* Cycles 100 ms apart, but the third 250 ms after the second;
		 * IBUS read 30 ms after VBUS, 45 ms in the last cycle. */
		x->now_us += cyc == 2 ? 250000 : 100000;
		v = 5.0f + (float)cyc;
		send_v(x, &x->a0, &v, 1);
		x->now_us += cyc == 3 ? 45000 : 30000;
		i = 0.1f * (float)cyc;
		send_analog_mq(x, &x->a1, &i, 1, SR_MQ_CURRENT, SR_UNIT_AMPERE, SR_MQFLAG_DC);
		x->now_us -= cyc == 3 ? 45000 : 30000;
	}
	assert_int_equal(read_all(x, out, 8), 4);
	assert_int_equal(out[0].t_us, 100000);
	assert_int_equal(out[1].t_us, 200000);
	assert_int_equal(out[2].t_us, 450000);
	assert_int_equal(out[3].t_us, 550000);
	for (int k = 0; k < 4; k++) {
		assert_true(out[k].t_approx);
		assert_false(out[k].gap_before);
		assert_near(out[k].s.v[BN_CH_VBUS], 5.0 + k, 1e-6);
		assert_near(out[k].s.v[BN_CH_IBUS], 0.1 * k, 1e-6);
	}
	bn_sigrok_feed_timing(x->f, &tm);
	assert_int_equal(tm.clock, BN_SIGROK_CLOCK_POLLED);
	assert_near(tm.rate_hz, 0, 0);
	assert_near(tm.mean_rate_hz, 3 / 0.45, 1e-9);
	assert_int_equal(tm.max_interval_us, 250000);
	assert_int_equal(tm.max_skew_us, 45000);

	/* Two readings stamped alike still go forward in time. */
	x->now_us += 100000;
	send_v(x, &x->a0, &v, 1);
	send_v(x, &x->a0, &v, 1);
	send_analog_mq(x, &x->a1, &i, 1, SR_MQ_CURRENT, SR_UNIT_AMPERE, SR_MQFLAG_DC);
	send_analog_mq(x, &x->a1, &i, 1, SR_MQ_CURRENT, SR_UNIT_AMPERE, SR_MQFLAG_DC);
	assert_int_equal(read_all(x, out, 8), 2);
	assert_int_equal(out[0].t_us, 650000);
	assert_int_equal(out[1].t_us, 650001);
}

/* What each channel reports is recorded; one that does not fit the map
 * is refused: found on the first acquisition (open's check) it is the
 * map's fault, BN_ERR_ARG. */
static void test_sigrok_feed__units_checked(void **state)
{
	static const struct {
		const char *spec;
		int ch; /* 0: A0, 1: A1 */
		int mq, unit;
		uint64_t flags;
		const char *want1, *want2;
	} cases[] = {
		{ "VBUS=A0,IBUS=A1", 1, SR_MQ_VOLTAGE, SR_UNIT_VOLT, SR_MQFLAG_DC,
		  "IBUS=A1: the device reports A1 as voltage in V (DC), and IBUS is a current",
		  "IBUS=A1:shunt=OHMS" },
		{ "VBUS=A0,IBUS=A1:scale=10:unit=A", 1, SR_MQ_VOLTAGE, SR_UNIT_VOLT, 0,
		  "scale=10:unit=A reads volts as amperes", "IBUS=A1:shunt=0.1 (ohms)" },
		{ "VBUS=A0,IBUS=A1:shunt=0.1", 1, SR_MQ_CURRENT, SR_UNIT_AMPERE, 0,
		  "IBUS=A1:shunt=0.1: the device reports A1 as current in A",
		  "expected IBUS=A1 without shunt=" },
		{ "VBUS=A0,IBUS=A1", 0, SR_MQ_CURRENT, SR_UNIT_AMPERE, 0,
		  "VBUS=A0: the device reports A0 as current in A", "expected a channel measuring voltage in V" },
		{ "VBUS=A0,IBUS=A1", 0, SR_MQ_VOLTAGE, SR_UNIT_VOLT, SR_MQFLAG_AC | SR_MQFLAG_RMS,
		  "A0 as voltage in V (AC RMS)", "the bench needs DC levels" },
		{ "VBUS=A0:unit=mV,IBUS=A1", 0, SR_MQ_VOLTAGE, SR_UNIT_VOLT, 0,
		  "VBUS=A0:unit=mV: the device reports A0 as voltage in V, not in mV", "unit=V or no unit=" },
		{ "VBUS=A0,IBUS=A1", 0, SR_MQ_RESISTANCE, SR_UNIT_OHM, 0,
		  "A0 as resistance in ohm", "VBUS is a voltage" },
	};
	struct fx *x = *state;
	const float v = 1.0f;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		bn_err_clear(&x->err);
		bn_sigrok_feed_free(x->f);
		x->f = NULL;
		feed_new(x, cases[i].spec, 1000, 64);
		bn_sigrok_feed_begin(x->f, true);
		send_analog_mq(x, cases[i].ch ? &x->a1 : &x->a0, &v, 1, cases[i].mq, cases[i].unit,
			       cases[i].flags);
		assert_int_equal(bn_sigrok_feed_error(x->f, &x->err), BN_ERR_ARG);
		assert_msg_has(&x->err, "sigrok fake: ");
		assert_msg_has(&x->err, cases[i].want1);
		assert_msg_has(&x->err, cases[i].want2);
	}
}

/* A probe that fits records what the device says, per channel; a change
 * later that still fits is counted; one that does not ends the
 * acquisition as a bench fault naming both. */
static void test_sigrok_feed__units_recorded_and_changed(void **state)
{
	struct fx *x = *state;
	struct bn_sigrok_chan_info in;
	struct bn_cap_frame out[4];
	const float v = 2.0f;

	feed_new(x, "VBUS=A0:scale=3,IBUS=A1", 1000, 64);
	bn_sigrok_feed_begin(x->f, true);
	send_v(x, &x->a0, &v, 1);
	assert_false(bn_sigrok_feed_all_reported(x->f));
	send_analog_mq(x, &x->a1, &v, 1, SR_MQ_CURRENT, SR_UNIT_AMPERE, SR_MQFLAG_DC);
	assert_true(bn_sigrok_feed_all_reported(x->f));
	assert_int_equal(bn_sigrok_feed_error(x->f, &x->err), BN_OK);
	assert_int_equal(bn_sigrok_feed_read(x->f, out, 4, &x->err), 0); /* a probe queues nothing */

	assert_true(bn_sigrok_feed_chan_info(x->f, BN_CH_VBUS, &in));
	assert_true(in.mapped && in.reported);
	assert_string_equal(in.dev_chan, "A0");
	assert_int_equal(in.mq, SR_MQ_VOLTAGE);
	assert_string_equal(in.mq_name, "voltage");
	assert_string_equal(in.unit_name, "V");
	assert_string_equal(in.flags_text, "DC");
	assert_near(in.scale, 3.0, 0);
	assert_string_equal(in.map_unit, "V");
	assert_true(bn_sigrok_feed_chan_info(x->f, BN_CH_IBUS, &in));
	assert_string_equal(in.mq_name, "current");
	assert_string_equal(in.unit_name, "A");
	assert_false(bn_sigrok_feed_chan_info(x->f, BN_CH_DP, &in));
	assert_false(in.mapped);

	/* The run: IBUS starts autoranging (fits), then VBUS turns into a
	 * current. */
	bn_sigrok_feed_begin(x->f, false);
	send_v(x, &x->a0, &v, 1);
	send_analog_mq(x, &x->a1, &v, 1, SR_MQ_CURRENT, SR_UNIT_AMPERE,
		       SR_MQFLAG_DC | SR_MQFLAG_AUTORANGE);
	assert_true(bn_sigrok_feed_chan_info(x->f, BN_CH_IBUS, &in));
	assert_int_equal(in.changes, 1);
	assert_string_equal(in.flags_text, "DC autorange");
	assert_int_equal(bn_sigrok_feed_read(x->f, out, 4, &x->err), 1);
	assert_near(out[0].s.v[BN_CH_VBUS], 6.0, 1e-6);
	send_analog_mq(x, &x->a0, &v, 1, SR_MQ_CURRENT, SR_UNIT_AMPERE, SR_MQFLAG_DC);
	send_analog_mq(x, &x->a1, &v, 1, SR_MQ_CURRENT, SR_UNIT_AMPERE, SR_MQFLAG_DC);
	assert_int_equal(bn_sigrok_feed_read(x->f, out, 4, &x->err), BN_ERR_FAULT);
	assert_msg_has(&x->err, "A0 (VBUS) changed from voltage in V (DC) to current in A (DC) while acquiring");
	assert_msg_has(&x->err, "VBUS is a voltage");
}

/* A device that ends the acquisition by itself, or goes quiet, fails the
 * read (after the frames before it); the stop the bench asks for does
 * not. */
static void test_sigrok_feed__device_stops(void **state)
{
	struct fx *x = *state;
	const float a[2] = { 1, 2 };
	struct bn_cap_frame out[4];

	feed_new(x, "VBUS=A0,IBUS=A1:shunt=1", 1000, 64);
	bn_sigrok_feed_begin(x->f, false);
	send_v(x, &x->a0, a, 2);
	send_v(x, &x->a1, a, 2);
	send_type(x, SR_DF_END);
	assert_int_equal(bn_sigrok_feed_read(x->f, out, 4, &x->err), 2);
	assert_int_equal(bn_sigrok_feed_read(x->f, out, 4, &x->err), BN_ERR_FAULT);
	assert_msg_has(&x->err, "sigrok fake: the device ended the acquisition after 2 frames");

	/* Asked for: no error. */
	bn_err_clear(&x->err);
	bn_sigrok_feed_begin(x->f, false);
	bn_sigrok_feed_stopping(x->f);
	send_type(x, SR_DF_END);
	assert_int_equal(bn_sigrok_feed_read(x->f, out, 4, &x->err), 0);

	/* Quiet for longer than stall_us (0.5 s) while acquiring. */
	bn_sigrok_feed_begin(x->f, false);
	x->now_us += 400000;
	send_v(x, &x->a0, a, 1);
	x->now_us += 400000;
	assert_int_equal(bn_sigrok_feed_read(x->f, out, 4, &x->err), 0);
	x->now_us += 200000;
	assert_int_equal(bn_sigrok_feed_read(x->f, out, 4, &x->err), BN_ERR_FAULT);
	assert_msg_has(&x->err, "sigrok fake: no data for 0.6 s while acquiring (after 0 frames)");
	/* Once stopping, quiet is expected. */
	bn_err_clear(&x->err);
	bn_sigrok_feed_begin(x->f, false);
	bn_sigrok_feed_stopping(x->f);
	x->now_us += 5000000;
	assert_int_equal(bn_sigrok_feed_read(x->f, out, 4, &x->err), 0);
}

/* A samplerate stated in SR_DF_META: taken before the stream starts,
 * a fault once frames are timed by the old one; a scope takes it from its
 * next frame. */
static void test_sigrok_feed__meta_samplerate(void **state)
{
	struct fx *x = *state;
	struct sr_config cf = { .key = SR_CONF_SAMPLERATE };
	struct sr_datafeed_meta meta = { 0 };
	struct sr_datafeed_packet p = { .type = SR_DF_META, .payload = &meta };
	const float a[2] = { 1, 2 };
	struct bn_cap_frame out[4];
	struct bn_sigrok_timing tm;

	cf.data = g_variant_ref_sink(g_variant_new_uint64(2000));
	meta.config = g_slist_append(NULL, &cf);
	feed_new(x, "VBUS=A0,IBUS=A1:shunt=1", 1000, 64);
	bn_sigrok_feed_begin(x->f, false);
	bn_sigrok_feed_packet(x->f, &p);
	send_v(x, &x->a0, a, 2);
	send_v(x, &x->a1, a, 2);
	assert_int_equal(read_all(x, out, 4), 2);
	assert_int_equal(out[1].t_us, 500); /* at 2 kHz */
	bn_sigrok_feed_timing(x->f, &tm);
	assert_near(tm.rate_hz, 2000, 0);

	g_variant_unref(cf.data);
	cf.data = g_variant_ref_sink(g_variant_new_uint64(4000));
	bn_sigrok_feed_packet(x->f, &p);
	assert_int_equal(bn_sigrok_feed_read(x->f, out, 4, &x->err), BN_ERR_FAULT);
	assert_msg_has(&x->err, "the samplerate changed from 2000 Hz to 4000 Hz after 2 frames");

	/* A scope: the frame under way keeps its rate. */
	bn_err_clear(&x->err);
	bn_sigrok_feed_begin(x->f, false);
	send_type(x, SR_DF_FRAME_BEGIN);
	send_v(x, &x->a0, a, 1);
	bn_sigrok_feed_packet(x->f, &p);
	send_v(x, &x->a0, a + 1, 1);
	send_v(x, &x->a1, a, 2);
	send_type(x, SR_DF_FRAME_END);
	send_type(x, SR_DF_FRAME_BEGIN);
	send_v(x, &x->a0, a, 2);
	send_v(x, &x->a1, a, 2);
	assert_int_equal(read_all(x, out, 4), 4);
	assert_int_equal(out[1].t_us - out[0].t_us, 500);
	assert_int_equal(out[3].t_us - out[2].t_us, 250);
	g_variant_unref(cf.data);
	g_slist_free(meta.config);
}

/* A full queue drops the newest frames and counts them. */
static void test_sigrok_feed__queue_full(void **state)
{
	struct fx *x = *state;
	float a[10];
	struct bn_cap_frame out[10];
	struct bn_sigrok_timing tm;

	for (int i = 0; i < 10; i++)
		a[i] = (float)i;
	feed_new(x, "VBUS=A0,IBUS=A1:shunt=1", 1000, 4);
	bn_sigrok_feed_begin(x->f, false);
	send_v(x, &x->a0, a, 10);
	send_v(x, &x->a1, a, 10);
	assert_int_equal(read_all(x, out, 10), 4);
	assert_near(out[3].s.v[BN_CH_VBUS], 3.0, 0);
	bn_sigrok_feed_timing(x->f, &tm);
	assert_int_equal(tm.dropped, 6);
	assert_int_equal(tm.frames, 10);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_sigrok_feed__stream),
		T(test_sigrok_feed__stream_start_lost),
		T(test_sigrok_feed__stream_start_refined),
		T(test_sigrok_feed__scope_frames),
		T(test_sigrok_feed__frame_without_markers),
		T(test_sigrok_feed__polled),
		T(test_sigrok_feed__units_checked),
		T(test_sigrok_feed__units_recorded_and_changed),
		T(test_sigrok_feed__device_stops),
		T(test_sigrok_feed__meta_samplerate),
		T(test_sigrok_feed__queue_full),
	};

	return cmocka_run_group_tests_name("sigrok_feed", tests, NULL, NULL);
}
