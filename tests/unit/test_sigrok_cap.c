#define _GNU_SOURCE /* pipe2 */
/* The libsigrok capture backend against libsigrok's demo driver, really
 * acquiring (paced to wall time, so each acquisition takes 0.2-0.75 s),
 * and against its scpi-pps driver talking to the instrument emulator
 * (tests/emu/instr_emu.c, $BN_EMUDIR) over TCP as a Rigol DP832.
 *
 * The demo's analog channels start at phase 0 with each acquisition and
 * never skip: A0 a square wave +-10 of period 10 samples (low first), A1 a
 * sine of amplitude 10 and period 20, A2 a triangle +-10 of period 20,
 * A3 a sawtooth, A4 random values in +-10, all reported as voltage in V
 * (DC). Frame k can thus be checked value by value, which proves
 * alignment across channels and that no frame is lost or repeated. With
 * its scan option limit_frames the demo sends its data in frames of 1000
 * samples between SR_DF_FRAME_BEGIN and _END, as a scope does, and ends
 * the acquisition after that many. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <libsigrok/libsigrok.h>

#include "lib/harness.h"

#include "core/chanmap.h"
#include "hil/sigrok_cap.h"
#include "core/time.h"

#define RATE_HZ 20000.0
#define POLL_MAX 4096

static void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	nanosleep(&ts, NULL);
}

static int open_demo_opts(const char *spec, const char *scan, double rate_hz,
			  struct bn_sigrok_cap **c, struct bn_err *err)
{
	struct bn_sigrok_cap_opts o = { .driver = "demo", .rate_hz = rate_hz, .scan_opts = scan };

	bn_chanmap_default(&o.map);
	if (spec && bn_chanmap_parse(spec, &o.map, "test", err) < 0)
		return err->code;
	return bn_sigrok_cap_open(&o, c, err);
}

static int open_demo(const char *spec, double rate_hz, struct bn_sigrok_cap **c,
		     struct bn_err *err)
{
	return open_demo_opts(spec, NULL, rate_hz, c, err);
}

static double demo_square(int64_t k)
{
	return k % 10 < 5 ? -10.0 : 10.0;
}

static double demo_sine(int64_t k)
{
	return 10.0 * sin(2.0 * M_PI * (double)(k % 20) / 20.0);
}

static double demo_triangle(int64_t k)
{
	int p = (int)(k % 20);

	return p <= 5 ? 2.0 * p : p <= 15 ? 20.0 - 2.0 * p : 2.0 * p - 40.0;
}

/* What each acquisition checks frame by frame. */
struct expect {
	int64_t k;         /* frames seen so far = index of the next */
	double vbus_scale; /* VBUS = A0 square * scale */
	double ibus_scale; /* IBUS = A1 sine * scale */
	int mapped;        /* bits of enum bn_chan */
	double rate_hz;    /* a stream's: frame k at k / rate */
	bool framed;       /* demo frames of 1000: gap before each */
	bn_time_us last_t; /* the previous frame's time (framed) */
	int gaps;          /* frames with gap_before */
};

static void check_frames(struct expect *x, const struct bn_cap_frame *f, long n)
{
	for (long i = 0; i < n; i++, x->k++) {
		const struct bn_sample *s = &f[i].s;

		for (int ch = 0; ch < BN_CH_COUNT; ch++)
			if (!(x->mapped & (1 << ch)) && !isnan(s->v[ch]))
				fail_msg("frame %lld: unmapped %s = %g, expected NAN",
					 (long long)x->k, bn_chan_label(ch), s->v[ch]);
		if (x->framed) {
			/* A new frame every 1000 samples, after an unknown gap;
			 * 1 / rate within one. */
			bool first = x->k % 1000 == 0;

			if (f[i].gap_before != first)
				fail_msg("frame %lld: gap_before %d, expected %d", (long long)x->k,
					 f[i].gap_before, first);
			assert_true(f[i].t_approx);
			if (x->k && !first)
				assert_int_equal(f[i].t_us - x->last_t,
						 bn_tick_time(1, x->rate_hz));
			if (x->k && first && f[i].t_us <= x->last_t)
				fail_msg("frame %lld at %lld us, not after the last one's %lld us",
					 (long long)x->k, (long long)f[i].t_us,
					 (long long)x->last_t);
			x->gaps += first;
			x->last_t = f[i].t_us;
		} else {
			assert_false(f[i].gap_before);
			assert_false(f[i].t_approx);
			assert_int_equal(f[i].t_us, bn_tick_time(x->k, x->rate_hz));
		}
		if (x->mapped & (1 << BN_CH_VBUS))
			assert_near(s->v[BN_CH_VBUS], demo_square(x->k) * x->vbus_scale, 1e-9);
		if (x->mapped & (1 << BN_CH_IBUS))
			assert_near(s->v[BN_CH_IBUS], demo_sine(x->k) * x->ibus_scale,
				    1e-5 * fabs(x->ibus_scale));
		if (x->mapped & (1 << BN_CH_DP))
			assert_near(s->v[BN_CH_DP], demo_triangle(x->k), 1e-5);
		if (x->mapped & (1 << BN_CH_DM)) {
			assert_true(isfinite(s->v[BN_CH_DM]));
			assert_true(fabs(s->v[BN_CH_DM]) <= 10.001);
		}
		if (x->mapped & (1 << BN_CH_ID)) {
			assert_true(isfinite(s->v[BN_CH_ID]));
			assert_true(fabs(s->v[BN_CH_ID]) <= 10.001);
		}
	}
}

/* Read all there is; the read's result (0, or < 0 for a failure). */
static long read_some(struct bn_sigrok_cap *c, struct expect *x, struct bn_err *err)
{
	struct bn_cap_frame *frames = malloc(POLL_MAX * sizeof(*frames));
	long n;

	assert_non_null(frames);
	while ((n = bn_sigrok_cap_read(c, frames, POLL_MAX, err)) > 0)
		check_frames(x, frames, n);
	free(frames);
	return n;
}

static void poll_all(struct bn_sigrok_cap *c, struct expect *x)
{
	struct bn_err err = { 0 };

	if (read_some(c, x, &err) < 0)
		fail_msg("read: %s", err.msg);
}

static void assert_sane_count(int64_t frames, double rate_hz, double elapsed_s)
{
	double want = rate_hz * elapsed_s;

	if (!((double)frames >= 0.25 * want && (double)frames <= 2.0 * want))
		fail_msg("%lld frames in %.3f s at %g Hz: expected 25%%..200%% of %.0f",
			 (long long)frames, elapsed_s, rate_hz, want);
}

static void test_sigrok_cap__acquire(void **state)
{
	struct bn_sigrok_cap *c = NULL;
	struct bn_err err = { 0 };
	/* IBUS across a 1000 ohm "shunt": A1's volts / 1000. */
	struct expect x = { .vbus_scale = 2.0, .ibus_scale = 1e-3, .rate_hz = RATE_HZ };
	struct bn_sigrok_timing tm;
	double t0, t1;

	(void)state;
	x.mapped = (1 << BN_CH_VBUS) | (1 << BN_CH_IBUS) | (1 << BN_CH_DP) | (1 << BN_CH_DM);
	if (open_demo("VBUS=A0:scale=2,IBUS=A1:shunt=1000,DP=A2,DM=A3", RATE_HZ, &c, &err) < 0)
		fail_msg("open: %s", err.msg);
	assert_non_null(strstr(bn_sigrok_cap_describe(c), "Demo device"));
	assert_non_null(strstr(bn_sigrok_cap_describe(c), "demo"));
	assert_int_equal(bn_sigrok_cap_channels(c), (unsigned)x.mapped);
	assert_near(bn_sigrok_cap_rate(c), RATE_HZ, 0);
	/* Nothing before start. */
	assert_int_equal(bn_sigrok_cap_read(c, NULL, 0, &err), 0);

	t0 = bn_mono_s();
	assert_int_equal(bn_sigrok_cap_start(c, &err), BN_OK);
	assert_int_equal(bn_sigrok_cap_start(c, &err), BN_ERR_ARG);
	assert_msg_has(&err, "already started");
	bn_err_clear(&err);
	while (bn_mono_s() - t0 < 0.3) {
		poll_all(c, &x);
		sleep_s(0.01);
	}
	assert_int_equal(bn_sigrok_cap_stop(c, &err), BN_OK);
	t1 = bn_mono_s();
	poll_all(c, &x); /* frames aligned before the stop stay */
	assert_int_equal(bn_sigrok_cap_stop(c, &err), BN_OK); /* again: nothing to do */
	assert_sane_count(x.k, RATE_HZ, t1 - t0);
	assert_int_equal(bn_sigrok_cap_dropped(c), 0);
	bn_sigrok_cap_timing(c, &tm);
	assert_int_equal(tm.clock, BN_SIGROK_CLOCK_RATE);
	assert_int_equal(tm.frames, x.k);
	assert_near(tm.mean_rate_hz, RATE_HZ, 1e-6);
	assert_int_equal(tm.max_interval_us, 50);
	assert_int_equal(tm.scope_frames, 0);
	bn_sigrok_cap_close(c);
}

/* Two captures in one process (one libsigrok context shared): a partial
 * map each, one closed while the other still runs. */
static void test_sigrok_cap__two_at_once(void **state)
{
	struct bn_sigrok_cap *a = NULL, *b = NULL;
	struct bn_err err = { 0 };
	struct expect xa = { .ibus_scale = 1.0, .mapped = 1 << BN_CH_IBUS, .rate_hz = RATE_HZ };
	struct expect xb = { .vbus_scale = -1.0, .mapped = (1 << BN_CH_VBUS) | (1 << BN_CH_ID),
			     .rate_hz = RATE_HZ / 2 };
	double t0, ta, tb;

	(void)state;
	if (open_demo("IBUS=A1:shunt=1", RATE_HZ, &a, &err) < 0)
		fail_msg("open a: %s", err.msg);
	if (open_demo("vbus=a0:scale=-1:unit=V,ID=A4", RATE_HZ / 2, &b, &err) < 0)
		fail_msg("open b: %s", err.msg);
	assert_int_equal(bn_sigrok_cap_channels(a), 1u << BN_CH_IBUS);
	assert_int_equal(bn_sigrok_cap_channels(b), (1u << BN_CH_VBUS) | (1u << BN_CH_ID));
	t0 = bn_mono_s();
	assert_int_equal(bn_sigrok_cap_start(a, &err), BN_OK);
	assert_int_equal(bn_sigrok_cap_start(b, &err), BN_OK);
	while (bn_mono_s() - t0 < 0.2) {
		poll_all(a, &xa);
		poll_all(b, &xb);
		sleep_s(0.01);
	}
	/* Close a while running: stops it, b keeps going. */
	bn_sigrok_cap_close(a);
	ta = bn_mono_s();
	assert_sane_count(xa.k, RATE_HZ, ta - t0);
	while (bn_mono_s() - ta < 0.15) {
		poll_all(b, &xb);
		sleep_s(0.01);
	}
	assert_int_equal(bn_sigrok_cap_stop(b, &err), BN_OK);
	tb = bn_mono_s();
	poll_all(b, &xb);
	assert_sane_count(xb.k, RATE_HZ / 2, tb - t0);
	bn_sigrok_cap_close(b);
}

/* A consumer that does not poll loses the frames the queue (1.5 s of
 * acquisition) cannot hold: counted, and the frames kept are whole. */
static void test_sigrok_cap__drops_counted(void **state)
{
	struct bn_sigrok_cap *c = NULL;
	struct bn_err err = { 0 };
	struct expect x = { .vbus_scale = 1.0, .mapped = 1 << BN_CH_VBUS, .rate_hz = RATE_HZ };
	double t0, t1;

	(void)state;
	if (open_demo("VBUS=A0", RATE_HZ, &c, &err) < 0)
		fail_msg("open: %s", err.msg);
	t0 = bn_mono_s();
	assert_int_equal(bn_sigrok_cap_start(c, &err), BN_OK);
	sleep_s(1.75);
	assert_int_equal(bn_sigrok_cap_stop(c, &err), BN_OK);
	t1 = bn_mono_s();
	poll_all(c, &x);
	assert_true(bn_sigrok_cap_dropped(c) > 0);
	assert_true(x.k <= (int64_t)(RATE_HZ * 1.5)); /* the queue's length */
	assert_sane_count(x.k + bn_sigrok_cap_dropped(c), RATE_HZ, t1 - t0);
	bn_sigrok_cap_close(c);
}

/* What each mapped channel measures is known at open, from the device:
 * the demo's analog channels say voltage in V (DC). */
static void test_sigrok_cap__units_reported(void **state)
{
	struct bn_sigrok_cap *c = NULL;
	struct bn_err err = { 0 };
	struct bn_sigrok_chan_info in;

	(void)state;
	if (open_demo("VBUS=A0:scale=11,IBUS=A2:shunt=0.05", RATE_HZ, &c, &err) < 0)
		fail_msg("open: %s", err.msg);
	assert_true(bn_sigrok_cap_chan_info(c, BN_CH_VBUS, &in));
	assert_true(in.reported);
	assert_string_equal(in.dev_chan, "A0");
	assert_int_equal(in.mq, SR_MQ_VOLTAGE);
	assert_int_equal(in.unit, SR_UNIT_VOLT);
	assert_string_equal(in.mq_name, "voltage");
	assert_string_equal(in.unit_name, "V");
	assert_string_equal(in.flags_text, "DC");
	assert_near(in.scale, 11, 0);
	assert_near(in.shunt_ohm, 0, 0);
	assert_true(bn_sigrok_cap_chan_info(c, BN_CH_IBUS, &in));
	assert_string_equal(in.dev_chan, "A2");
	assert_string_equal(in.unit_name, "V");
	assert_near(in.shunt_ohm, 0.05, 0);
	assert_string_equal(in.map_unit, "V");
	assert_int_equal(in.changes, 0);
	assert_false(bn_sigrok_cap_chan_info(c, BN_CH_DP, &in));
	bn_sigrok_cap_close(c);
}

/* The demo's channels report volts: as IBUS they need shunt=, and the
 * refusal says which channel, what it reports and how to map it. */
static void test_sigrok_cap__volts_as_ibus_refused(void **state)
{
	struct bn_sigrok_cap *c = (struct bn_sigrok_cap *)&c;
	struct bn_err err = { 0 };
	struct expect x = { .ibus_scale = 10.0, .mapped = (1 << BN_CH_IBUS), .rate_hz = RATE_HZ };
	double t0;

	(void)state;
	assert_int_equal(open_demo("VBUS=A0,IBUS=A1", RATE_HZ, &c, &err), BN_ERR_ARG);
	assert_null(c);
	assert_msg_has(&err, "sigrok demo: IBUS=A1: the device reports A1 as voltage in V (DC), and IBUS is a current");
	assert_msg_has(&err, "IBUS=A1:shunt=OHMS");
	bn_err_clear(&err);
	/* The old way of saying a shunt: refused, with the same said right. */
	assert_int_equal(open_demo("IBUS=A1:scale=10:unit=A", RATE_HZ, &c, &err), BN_ERR_ARG);
	assert_msg_has(&err, "scale=10:unit=A reads volts as amperes");
	assert_msg_has(&err, "IBUS=A1:shunt=0.1 (ohms) says the same");
	bn_err_clear(&err);
	/* libsigrok's volts are volts. */
	assert_int_equal(open_demo("VBUS=A0:unit=mV", RATE_HZ, &c, &err), BN_ERR_ARG);
	assert_msg_has(&err, "VBUS=A0:unit=mV: the device reports A0 as voltage in V (DC), not in mV");
	bn_err_clear(&err);

	/* With the shunt: accepted, and scaled (0.1 ohm: 10 A per V). */
	if (open_demo("IBUS=A1:shunt=0.1", RATE_HZ, &c, &err) < 0)
		fail_msg("open: %s", err.msg);
	t0 = bn_mono_s();
	assert_int_equal(bn_sigrok_cap_start(c, &err), BN_OK);
	while (bn_mono_s() - t0 < 0.2) {
		poll_all(c, &x);
		sleep_s(0.01);
	}
	assert_true(x.k > 1000);
	bn_sigrok_cap_close(c);
}

static void expect_open_error(const struct bn_sigrok_cap_opts *o, int code, const char *want1,
			      const char *want2)
{
	struct bn_sigrok_cap *c = (struct bn_sigrok_cap *)&c;
	struct bn_err err = { 0 };

	assert_int_equal(bn_sigrok_cap_open(o, &c, &err), code);
	assert_null(c);
	assert_int_equal(err.code, code);
	assert_msg_has(&err, want1);
	if (want2)
		assert_msg_has(&err, want2);
}

static void expect_map_error(const char *spec, const char *scan, double rate_hz, int code,
			     const char *want1, const char *want2)
{
	struct bn_sigrok_cap_opts o = { .driver = "demo", .rate_hz = rate_hz, .scan_opts = scan };
	struct bn_err err = { 0 };

	bn_chanmap_default(&o.map);
	if (bn_chanmap_parse(spec, &o.map, "test", &err) < 0)
		fail_msg("%s: %s", spec, err.msg);
	expect_open_error(&o, code, want1, want2);
}

static void test_sigrok_cap__unknown_driver(void **state)
{
	struct bn_sigrok_cap_opts o = { .driver = "nosuchdriver", .rate_hz = RATE_HZ };

	(void)state;
	bn_chanmap_default(&o.map);
	expect_open_error(&o, BN_ERR_ARG, "unknown driver \"nosuchdriver\"", "demo");
	o.driver = "";
	expect_open_error(&o, BN_ERR_ARG, "no driver given", NULL);
}

static void test_sigrok_cap__unknown_channel(void **state)
{
	(void)state;
	expect_map_error("VBUS=A0,DP=X9", NULL, RATE_HZ, BN_ERR_ARG, "DP=X9",
			 "A0, A1, A2, A3, A4");
	expect_map_error("VBUS=D0", NULL, RATE_HZ, BN_ERR_ARG, "\"D0\" is a logic channel", "A0, A1");
	/* The defaults name VBUS..ID, which the demo does not have. */
	expect_map_error("", NULL, RATE_HZ, BN_ERR_ARG, "no bench channel is mapped", "A0, A1");
	/* One device channel for two bench channels. */
	expect_map_error("DP=A2,DM=a2", NULL, RATE_HZ, BN_ERR_ARG,
			 "DP and DM both read device channel A2", "A0, A1, A2, A3, A4");
}

/* A device with 2 analog channels (the demo's scan option): a map of 3 is
 * refused at open, listing the 2. */
static void test_sigrok_cap__too_many_channels(void **state)
{
	(void)state;
	expect_map_error("VBUS=A0,IBUS=A1:shunt=1,DP=A2", "analog_channels=2", RATE_HZ, BN_ERR_ARG,
			 "the map names 3 channels (VBUS=A0, IBUS=A1, DP=A2), but the device has 2 analog channels",
			 "expected at most 2 of A0, A1");
	expect_map_error("VBUS=A0,DP=A2", "analog_channels=2", RATE_HZ, BN_ERR_ARG,
			 "DP=A2: the device has no channel \"A2\"", "A0, A1");
	/* Scan options the driver does not take, or cannot parse. */
	expect_map_error("VBUS=A0", "nosuch=1", RATE_HZ, BN_ERR_ARG,
			 "the driver takes no scan option \"nosuch\"", "analog_channels");
	expect_map_error("VBUS=A0", "analog_channels=two", RATE_HZ, BN_ERR_ARG,
			 "option \"analog_channels=two\": expected a whole number", NULL);
	expect_map_error("VBUS=A0", "limit_frames=-1", RATE_HZ, BN_ERR_ARG,
			 "expected a whole number of 0 or more", NULL);
	expect_map_error("VBUS=A0", "analog_channels", RATE_HZ, BN_ERR_ARG,
			 "option \"analog_channels\": expected key=value", NULL);
}

static void test_sigrok_cap__bad_samplerate(void **state)
{
	(void)state;
	/* Rounds to 0 Hz, which the device's steps do not include. */
	expect_map_error("VBUS=A0", NULL, 0.4, BN_ERR_ARG,
			 "samplerate 0.4 Hz (sent as 0 Hz): the device cannot run at it",
			 "expected 1 Hz to 1000000000 Hz in steps of 1 Hz");
	/* None given, and the device sets one. */
	expect_map_error("VBUS=A0", NULL, 0, BN_ERR_ARG,
			 "no samplerate given, and the device sets one", "1 Hz to 1000000000 Hz");
	expect_map_error("VBUS=A0", NULL, NAN, BN_ERR_ARG, "samplerate nan Hz", "above 0");
	expect_map_error("VBUS=A0", NULL, -5, BN_ERR_ARG, "samplerate -5 Hz", "above 0");
	/* Above the device's maximum (the demo's steps end at 1 GHz). */
	expect_map_error("VBUS=A0", NULL, 2e9, BN_ERR_ARG,
			 "samplerate 2e+09 Hz (sent as 2000000000 Hz): the device cannot run at it",
			 "1000000000 Hz");
}

/* What the device can do, for "bcbench devices" and the report. */
static void test_sigrok_cap__limits(void **state)
{
	struct bn_sigrok_cap_opts o = { .driver = "demo" };
	struct bn_sigrok_limits l;
	struct bn_sigrok_cap *c = NULL;
	struct bn_err err = { 0 };
	char text[600];

	(void)state;
	assert_int_equal(bn_sigrok_dev_limits(&o, &l, &err), BN_OK);
	assert_int_equal(l.n_analog, 5);
	assert_string_equal(l.analog[0], "A0");
	assert_string_equal(l.analog[4], "A4");
	assert_true(l.rate_get && l.rate_set);
	assert_int_equal(l.rates, BN_SIGROK_RATES_RANGE);
	assert_near(l.rate_min_hz, 1, 0);
	assert_near(l.rate_max_hz, 1e9, 0);
	assert_near(l.rate_step_hz, 1, 0);
	assert_true(l.rate_hz > 0);
	assert_non_null(strstr(l.desc, "Demo device"));
	bn_sigrok_limits_text(&l, text, sizeof(text));
	assert_non_null(strstr(text, "analog channels A0, A1, A2, A3, A4 (5); samplerate settable, 1 Hz to 1000000000 Hz in steps of 1 Hz"));

	o.scan_opts = "analog_channels=2";
	assert_int_equal(bn_sigrok_dev_limits(&o, &l, &err), BN_OK);
	assert_int_equal(l.n_analog, 2);

	/* An open capture states them too, at the rate it set. */
	if (open_demo("VBUS=A0", 12345, &c, &err) < 0)
		fail_msg("open: %s", err.msg);
	assert_int_equal(bn_sigrok_cap_limits(c)->n_analog, 5);
	assert_near(bn_sigrok_cap_limits(c)->rate_hz, 12345, 0);
	bn_sigrok_cap_close(c);

	o.driver = "nosuchdriver";
	assert_int_equal(bn_sigrok_dev_limits(&o, &l, &err), BN_ERR_ARG);
	assert_msg_has(&err, "unknown driver");
}

/* The demo in frames of 1000 samples, as a scope sends them: each frame
 * starts after an unknown gap (gap_before, approximate start, strictly
 * after the last one's end), 1 / rate within it; the waveform carries on
 * across frames (the demo's phase does), so no sample is lost or
 * repeated. */
static void test_sigrok_cap__scope_frames(void **state)
{
	struct bn_sigrok_cap *c = NULL;
	struct bn_err err = { 0 };
	struct expect x = { .vbus_scale = 1.0, .ibus_scale = 1.0, .rate_hz = RATE_HZ, .framed = true,
			    .mapped = (1 << BN_CH_VBUS) | (1 << BN_CH_IBUS) };
	struct bn_sigrok_timing tm;
	double t0;

	(void)state;
	if (open_demo_opts("VBUS=A0,IBUS=A1:shunt=1", "limit_frames=1000000", RATE_HZ, &c, &err) < 0)
		fail_msg("open: %s", err.msg);
	bn_sigrok_cap_timing(c, &tm);
	assert_int_equal(tm.clock, BN_SIGROK_CLOCK_FRAMES); /* seen on open's check */
	t0 = bn_mono_s();
	assert_int_equal(bn_sigrok_cap_start(c, &err), BN_OK);
	while (bn_mono_s() - t0 < 0.35) {
		poll_all(c, &x);
		sleep_s(0.01);
	}
	assert_int_equal(bn_sigrok_cap_stop(c, &err), BN_OK);
	poll_all(c, &x);
	assert_true(x.gaps >= 3);
	bn_sigrok_cap_timing(c, &tm);
	assert_int_equal(tm.clock, BN_SIGROK_CLOCK_FRAMES);
	assert_int_equal(tm.frames, x.k);
	assert_true(tm.scope_frames >= x.gaps);
	bn_sigrok_cap_close(c);
}

/* A device that ends the acquisition by itself (the demo after its
 * limit_frames): the read fails naming it, after the frames before. */
static void test_sigrok_cap__device_ends(void **state)
{
	struct bn_sigrok_cap *c = NULL;
	struct bn_err err = { 0 };
	struct expect x = { .vbus_scale = 1.0, .rate_hz = RATE_HZ, .framed = true,
			    .mapped = 1 << BN_CH_VBUS };
	double t0;
	long rc = 0;

	(void)state;
	/* Open's check takes a frame or two of the five. */
	if (open_demo_opts("VBUS=A0", "limit_frames=5", RATE_HZ, &c, &err) < 0)
		fail_msg("open: %s", err.msg);
	t0 = bn_mono_s();
	assert_int_equal(bn_sigrok_cap_start(c, &err), BN_OK);
	while (rc == 0 && bn_mono_s() - t0 < 3.0) {
		rc = read_some(c, &x, &err);
		sleep_s(0.01);
	}
	assert_int_equal(rc, BN_ERR_FAULT);
	assert_msg_has(&err, "sigrok demo: the device ended the acquisition after ");
	assert_msg_has(&err, "expected it to run until stopped");
	assert_true(x.k >= 1000 && x.k <= 4000);
	assert_true(x.k % 1000 == 0);
	bn_sigrok_cap_close(c);
}

/* A serial conn= that does not exist: no device, whatever is plugged in.
 * (rigol-ds: its failed scan frees what it allocated; agilent-dmm's, for
 * one, leaks in libsigrok 0.5.2.) */
static void test_sigrok_cap__no_device(void **state)
{
	struct bn_sigrok_cap_opts o = { .driver = "rigol-ds", .rate_hz = RATE_HZ,
					.conn = "/nonexistent/ttyBN0" };

	(void)state;
	bn_chanmap_default(&o.map);
	expect_open_error(&o, BN_ERR_IO, "no device found at conn=/nonexistent/ttyBN0", NULL);
	o.driver = "demo";
	expect_open_error(&o, BN_ERR_ARG, "takes no conn= option", NULL);
}

/* ---- scpi-pps against the emulator, as a Rigol DP832 over TCP ---- */

struct emu {
	pid_t pid;
	char conn[64]; /* tcp-raw/127.0.0.1/PORT */
};

/* instr_emu --family rigol-dp800 --tcp 0 --clients 0 --on 5 [extra...]:
 * output 1 on at 5 V into its 20 ohm resistor, 0.25 A. */
static void emu_start(struct emu *e, const char *opt, const char *val)
{
	const char *dir = getenv("BN_EMUDIR");
	char exe[1024], line[128] = "";
	int pfd[2];
	size_t n = 0;

	snprintf(exe, sizeof(exe), "%s/instr_emu", dir && *dir ? dir : "build/emu");
	if (access(exe, X_OK) < 0)
		fail_msg("%s: not built (make units; BN_EMUDIR names the emulator's folder)", exe);
	assert_int_equal(pipe2(pfd, O_CLOEXEC), 0);
	e->pid = fork();
	assert_true(e->pid >= 0);
	if (e->pid == 0) {
		const char *argv[] = { exe, "--family", "rigol-dp800", "--tcp", "0", "--clients", "0",
				       "--on", "5", opt, val, NULL };

		dup2(pfd[1], 1);
		execv(exe, (char *const *)argv);
		_exit(127);
	}
	close(pfd[1]);
	while (n < sizeof(line) - 1) {
		struct pollfd p = { .fd = pfd[0], .events = POLLIN };

		if (poll(&p, 1, 5000) <= 0 || read(pfd[0], line + n, 1) <= 0 || line[n] == '\n')
			break;
		n++;
	}
	line[n] = '\0';
	close(pfd[0]);
	if (strncmp(line, "tcp-raw/127.0.0.1/", 18))
		fail_msg("instr_emu printed \"%s\", not a TCP connection string", line);
	snprintf(e->conn, sizeof(e->conn), "%s", line);
}

static void emu_stop(struct emu *e)
{
	if (e->pid <= 0)
		return;
	kill(e->pid, SIGTERM);
	waitpid(e->pid, NULL, 0);
	e->pid = 0;
}

static int open_pps(const struct emu *e, const char *spec, double rate_hz, bool advisory,
		    int stall_ms, struct bn_sigrok_cap **c, struct bn_err *err)
{
	struct bn_sigrok_cap_opts o = { .driver = "scpi-pps", .conn = e->conn, .rate_hz = rate_hz,
					.rate_advisory = advisory, .stall_ms = stall_ms };

	bn_chanmap_default(&o.map);
	if (bn_chanmap_parse(spec, &o.map, "test", err) < 0)
		return err->code;
	return bn_sigrok_cap_open(&o, c, err);
}

/* libsigrok's scpi-pps polls the supply, one reading per channel per
 * packet, no samplerate: frames by poll cycle, time-stamped on arrival,
 * the achieved rate measured; units from the driver (V, A). */
static void test_sigrok_cap__scpi_pps_polled(void **state)
{
	struct emu e = { 0 };
	struct bn_sigrok_cap *c = NULL;
	struct bn_err err = { 0 };
	struct bn_cap_frame f[64];
	struct bn_sigrok_chan_info in;
	struct bn_sigrok_timing tm;
	const struct bn_sigrok_limits *l;
	bn_time_us last = -1;
	int64_t k = 0;
	double t0;
	long n;

	(void)state;
	emu_start(&e, NULL, NULL);
	if (open_pps(&e, "VBUS=V1,IBUS=I1", 0, false, 0, &c, &err) < 0)
		fail_msg("open: %s", err.msg);
	assert_non_null(strstr(bn_sigrok_cap_describe(c), "Rigol DP832"));
	assert_near(bn_sigrok_cap_rate(c), 0, 0);
	l = bn_sigrok_cap_limits(c);
	assert_false(l->rate_set);
	assert_false(l->rate_get);
	assert_int_equal(l->n_analog, 9); /* V, I, P of 3 outputs */
	assert_true(bn_sigrok_cap_chan_info(c, BN_CH_VBUS, &in));
	assert_string_equal(in.dev_chan, "V1");
	assert_string_equal(in.dev_group, "1");
	assert_string_equal(in.mq_name, "voltage");
	assert_string_equal(in.unit_name, "V");
	assert_string_equal(in.flags_text, "DC");
	assert_true(bn_sigrok_cap_chan_info(c, BN_CH_IBUS, &in));
	assert_string_equal(in.dev_chan, "I1");
	assert_string_equal(in.mq_name, "current");
	assert_string_equal(in.unit_name, "A");

	t0 = bn_mono_s();
	assert_int_equal(bn_sigrok_cap_start(c, &err), BN_OK);
	while (bn_mono_s() - t0 < 0.6) {
		while ((n = bn_sigrok_cap_read(c, f, 64, &err)) > 0)
			for (long i = 0; i < n; i++, k++) {
				assert_near(f[i].s.v[BN_CH_VBUS], 5.0, 1e-6);
				assert_near(f[i].s.v[BN_CH_IBUS], 0.25, 1e-6);
				assert_true(isnan(f[i].s.v[BN_CH_DP]));
				assert_true(f[i].t_approx);
				assert_false(f[i].gap_before);
				assert_true(f[i].t_us > last);
				assert_true(f[i].t_us < (bn_time_us)((bn_mono_s() - t0 + 0.1) * 1e6));
				last = f[i].t_us;
			}
		if (n < 0)
			fail_msg("read: %s", err.msg);
		sleep_s(0.01);
	}
	assert_int_equal(bn_sigrok_cap_stop(c, &err), BN_OK);
	assert_true(k >= 3);
	bn_sigrok_cap_timing(c, &tm);
	assert_int_equal(tm.clock, BN_SIGROK_CLOCK_POLLED);
	assert_true(tm.frames >= k);
	assert_true(tm.mean_rate_hz > 0);
	assert_true(tm.max_interval_us > 0);
	assert_true(tm.max_interval_us < 600000);
	/* The rate measured agrees with the frames' times. */
	assert_near(tm.mean_rate_hz, (double)(tm.frames - 1) * 1e6 / (double)(tm.last_us - tm.first_us),
		    1e-9);
	bn_sigrok_cap_close(c);
	emu_stop(&e);
}

/* A polled supply has no samplerate to set: a rate is refused, unless it
 * is only the scenario's wish; its channels are what the map says or it
 * is refused. */
static void test_sigrok_cap__scpi_pps_refusals(void **state)
{
	struct emu e = { 0 };
	struct bn_sigrok_cap *c = NULL;
	struct bn_err err = { 0 };

	(void)state;
	emu_start(&e, NULL, NULL);
	assert_int_equal(open_pps(&e, "VBUS=V1", 10000, false, 0, &c, &err), BN_ERR_ARG);
	assert_msg_has(&err, "sigrok scpi-pps: samplerate 10000 Hz: the device has no samplerate to set (it is polled");
	assert_msg_has(&err, "expected no capture_rate for it");
	bn_err_clear(&err);
	if (open_pps(&e, "VBUS=V1", 10000, true, 0, &c, &err) < 0)
		fail_msg("open advisory: %s", err.msg);
	assert_near(bn_sigrok_cap_rate(c), 0, 0);
	bn_sigrok_cap_close(c);
	c = NULL;
	assert_int_equal(open_pps(&e, "VBUS=I1", 0, false, 0, &c, &err), BN_ERR_ARG);
	assert_msg_has(&err, "VBUS=I1: the device reports I1 as current in A (DC)");
	bn_err_clear(&err);
	assert_int_equal(open_pps(&e, "IBUS=V2", 0, false, 0, &c, &err), BN_ERR_ARG);
	assert_msg_has(&err, "IBUS=V2: the device reports V2 as voltage in V (DC), and IBUS is a current");
	bn_err_clear(&err);
	assert_int_equal(open_pps(&e, "VBUS=P1", 0, false, 0, &c, &err), BN_ERR_ARG);
	assert_msg_has(&err, "VBUS=P1: the device reports P1 as power in W");
	bn_err_clear(&err);
	assert_int_equal(open_pps(&e, "VBUS=V4", 0, false, 0, &c, &err), BN_ERR_ARG);
	assert_msg_has(&err, "V1, I1, P1, V2, I2, P2, V3, I3, P3");
	emu_stop(&e);
}

/* A supply that stops answering mid-run: libsigrok's reads time out, no
 * packet comes, and the read fails within the stall time. */
static void test_sigrok_cap__scpi_pps_stalls(void **state)
{
	struct emu e = { 0 };
	struct bn_sigrok_cap *c = NULL;
	struct bn_err err = { 0 };
	struct bn_cap_frame f[64];
	double t0, t_fail = 0;
	long n = 0, got = 0;

	(void)state;
	/* The scan, the open and the check take some 20 lines; then about
	 * 4 lines a cycle (select, measure, per channel). */
	emu_start(&e, "--stall-after", "60");
	if (open_pps(&e, "VBUS=V1,IBUS=I1", 0, false, 400, &c, &err) < 0)
		fail_msg("open: %s", err.msg);
	t0 = bn_mono_s();
	assert_int_equal(bn_sigrok_cap_start(c, &err), BN_OK);
	while (bn_mono_s() - t0 < 8.0) {
		n = bn_sigrok_cap_read(c, f, 64, &err);
		if (n < 0) {
			t_fail = bn_mono_s();
			break;
		}
		got += n;
		sleep_s(0.01);
	}
	assert_int_equal(n, BN_ERR_FAULT);
	assert_msg_has(&err, "sigrok scpi-pps: no data for ");
	assert_msg_has(&err, "expected a packet at least every 0.4 s");
	assert_true(got > 0);
	assert_true(t_fail - t0 < 5.0);
	/* libsigrok's session thread is blocked in the supply's read (0.5.2
	 * reads a tcp-raw link without a time-out): the stop is bounded and
	 * says so, and close leaves the capture to be freed later. */
	bn_err_clear(&err);
	t0 = bn_mono_s();
	assert_int_equal(bn_sigrok_cap_stop(c, &err), BN_ERR_FAULT);
	assert_msg_has(&err, "did not stop within 2.0 s of being asked");
	assert_true(bn_mono_s() - t0 < 3.0);
	bn_sigrok_cap_close(c);
	/* The supply gone, the read returns, the thread ends; the next use
	 * of the library frees the abandoned capture (ASan would see it). */
	emu_stop(&e);
	sleep_s(0.3);
	{
		struct bn_sigrok_cap_opts o = { .driver = "demo" };
		struct bn_sigrok_limits l;

		assert_int_equal(bn_sigrok_dev_limits(&o, &l, &err), BN_OK);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sigrok_cap__acquire),
		cmocka_unit_test(test_sigrok_cap__two_at_once),
		cmocka_unit_test(test_sigrok_cap__drops_counted),
		cmocka_unit_test(test_sigrok_cap__units_reported),
		cmocka_unit_test(test_sigrok_cap__volts_as_ibus_refused),
		cmocka_unit_test(test_sigrok_cap__unknown_driver),
		cmocka_unit_test(test_sigrok_cap__unknown_channel),
		cmocka_unit_test(test_sigrok_cap__too_many_channels),
		cmocka_unit_test(test_sigrok_cap__bad_samplerate),
		cmocka_unit_test(test_sigrok_cap__limits),
		cmocka_unit_test(test_sigrok_cap__scope_frames),
		cmocka_unit_test(test_sigrok_cap__device_ends),
		cmocka_unit_test(test_sigrok_cap__no_device),
		cmocka_unit_test(test_sigrok_cap__scpi_pps_polled),
		cmocka_unit_test(test_sigrok_cap__scpi_pps_refusals),
		cmocka_unit_test(test_sigrok_cap__scpi_pps_stalls),
	};

	return cmocka_run_group_tests_name("sigrok_cap", tests, NULL, NULL);
}
