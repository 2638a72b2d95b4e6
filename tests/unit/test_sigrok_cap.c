/* The libsigrok capture backend against libsigrok's demo driver, really
 * acquiring (paced to wall time, so each acquisition takes 0.2-0.75 s).
 *
 * The demo's analog channels start at phase 0 with the acquisition and
 * never skip: A0 a square wave +-10 of period 10 samples (low first), A1 a
 * sine of amplitude 10 and period 20, A2 a triangle +-10 of period 20,
 * A3 a sawtooth, A4 random values in +-10. Frame k can thus be checked
 * value by value, which proves alignment across channels and that no
 * frame is lost or repeated. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "lib/harness.h"

#include "capture/chanmap.h"
#include "hil/sigrok_cap.h"

#define RATE_HZ 20000.0
#define POLL_MAX 4096

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	nanosleep(&ts, NULL);
}

static int open_demo(const char *spec, double rate_hz, struct bn_sigrok_cap **c,
		     struct bn_err *err)
{
	struct bn_sigrok_cap_opts o = { .driver = "demo", .rate_hz = rate_hz };

	bn_chanmap_default(&o.map);
	if (spec && bn_chanmap_parse(spec, &o.map, "test", err) < 0)
		return err->code;
	return bn_sigrok_cap_open(&o, c, err);
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
};

static void check_frames(struct expect *x, const struct bn_sample *f, long n)
{
	for (long i = 0; i < n; i++, x->k++) {
		for (int ch = 0; ch < BN_CH_COUNT; ch++)
			if (!(x->mapped & (1 << ch)) && !isnan(f[i].v[ch]))
				fail_msg("frame %lld: unmapped %s = %g, expected NAN",
					 (long long)x->k, bn_chan_label(ch), f[i].v[ch]);
		if (x->mapped & (1 << BN_CH_VBUS))
			assert_near(f[i].v[BN_CH_VBUS], demo_square(x->k) * x->vbus_scale, 1e-9);
		if (x->mapped & (1 << BN_CH_IBUS))
			assert_near(f[i].v[BN_CH_IBUS], demo_sine(x->k) * x->ibus_scale,
				    1e-5 * x->ibus_scale);
		if (x->mapped & (1 << BN_CH_DP))
			assert_near(f[i].v[BN_CH_DP], demo_triangle(x->k), 1e-5);
		if (x->mapped & (1 << BN_CH_DM)) {
			assert_true(isfinite(f[i].v[BN_CH_DM]));
			assert_true(fabs(f[i].v[BN_CH_DM]) <= 10.001);
		}
		if (x->mapped & (1 << BN_CH_ID)) {
			assert_true(isfinite(f[i].v[BN_CH_ID]));
			assert_true(fabs(f[i].v[BN_CH_ID]) <= 10.001);
		}
	}
}

static void poll_all(struct bn_sigrok_cap *c, struct expect *x)
{
	struct bn_sample *frames = malloc(POLL_MAX * sizeof(*frames));
	struct bn_err err = { 0 };
	long n;

	assert_non_null(frames);
	while ((n = bn_sigrok_cap_poll(c, frames, POLL_MAX, &err)) > 0)
		check_frames(x, frames, n);
	free(frames);
	if (n < 0)
		fail_msg("poll: %s", err.msg);
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
	struct expect x = { .vbus_scale = 2.0, .ibus_scale = 1e-3 };
	double t0, t1;

	(void)state;
	x.mapped = (1 << BN_CH_VBUS) | (1 << BN_CH_IBUS) | (1 << BN_CH_DP) | (1 << BN_CH_DM);
	if (open_demo("VBUS=A0:scale=2,IBUS=A1:unit=mA,DP=A2,DM=A3", RATE_HZ, &c, &err) < 0)
		fail_msg("open: %s", err.msg);
	assert_non_null(strstr(bn_sigrok_cap_describe(c), "Demo device"));
	assert_non_null(strstr(bn_sigrok_cap_describe(c), "demo"));
	assert_int_equal(bn_sigrok_cap_channels(c), (unsigned)x.mapped);
	assert_near(bn_sigrok_cap_rate(c), RATE_HZ, 0);
	/* Nothing before start. */
	assert_int_equal(bn_sigrok_cap_poll(c, NULL, 0, &err), 0);

	t0 = now_s();
	assert_int_equal(bn_sigrok_cap_start(c, &err), BN_OK);
	assert_int_equal(bn_sigrok_cap_start(c, &err), BN_ERR_ARG);
	assert_msg_has(&err, "already started");
	bn_err_clear(&err);
	while (now_s() - t0 < 0.3) {
		poll_all(c, &x);
		sleep_s(0.01);
	}
	assert_int_equal(bn_sigrok_cap_stop(c, &err), BN_OK);
	t1 = now_s();
	poll_all(c, &x); /* frames aligned before the stop stay */
	assert_int_equal(bn_sigrok_cap_stop(c, &err), BN_OK); /* again: nothing to do */
	assert_sane_count(x.k, RATE_HZ, t1 - t0);
	assert_int_equal(bn_sigrok_cap_dropped(c), 0);
	bn_sigrok_cap_close(c);
}

/* Two captures in one process (one libsigrok context shared): a partial
 * map each, one closed while the other still runs. */
static void test_sigrok_cap__two_at_once(void **state)
{
	struct bn_sigrok_cap *a = NULL, *b = NULL;
	struct bn_err err = { 0 };
	struct expect xa = { .ibus_scale = 1.0, .mapped = 1 << BN_CH_IBUS };
	struct expect xb = { .vbus_scale = -1.0, .mapped = (1 << BN_CH_VBUS) | (1 << BN_CH_ID) };
	double t0, ta, tb;

	(void)state;
	if (open_demo("IBUS=A1", RATE_HZ, &a, &err) < 0)
		fail_msg("open a: %s", err.msg);
	if (open_demo("vbus=a0:scale=-1:unit=V,ID=A4", RATE_HZ / 2, &b, &err) < 0)
		fail_msg("open b: %s", err.msg);
	assert_int_equal(bn_sigrok_cap_channels(a), 1u << BN_CH_IBUS);
	assert_int_equal(bn_sigrok_cap_channels(b), (1u << BN_CH_VBUS) | (1u << BN_CH_ID));
	t0 = now_s();
	assert_int_equal(bn_sigrok_cap_start(a, &err), BN_OK);
	assert_int_equal(bn_sigrok_cap_start(b, &err), BN_OK);
	while (now_s() - t0 < 0.2) {
		poll_all(a, &xa);
		poll_all(b, &xb);
		sleep_s(0.01);
	}
	/* Close a while running: stops it, b keeps going. */
	bn_sigrok_cap_close(a);
	ta = now_s();
	assert_sane_count(xa.k, RATE_HZ, ta - t0);
	while (now_s() - ta < 0.15) {
		poll_all(b, &xb);
		sleep_s(0.01);
	}
	assert_int_equal(bn_sigrok_cap_stop(b, &err), BN_OK);
	tb = now_s();
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
	struct expect x = { .vbus_scale = 1.0, .mapped = 1 << BN_CH_VBUS };
	double t0, t1;

	(void)state;
	if (open_demo("VBUS=A0", RATE_HZ, &c, &err) < 0)
		fail_msg("open: %s", err.msg);
	t0 = now_s();
	assert_int_equal(bn_sigrok_cap_start(c, &err), BN_OK);
	sleep_s(1.75);
	assert_int_equal(bn_sigrok_cap_stop(c, &err), BN_OK);
	t1 = now_s();
	poll_all(c, &x);
	assert_true(bn_sigrok_cap_dropped(c) > 0);
	assert_true(x.k <= (int64_t)(RATE_HZ * 1.5)); /* the queue's length */
	assert_sane_count(x.k + bn_sigrok_cap_dropped(c), RATE_HZ, t1 - t0);
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
	struct bn_sigrok_cap_opts o = { .driver = "demo", .rate_hz = RATE_HZ };
	struct bn_err err = { 0 };

	(void)state;
	bn_chanmap_default(&o.map);
	assert_int_equal(bn_chanmap_parse("VBUS=A0,DP=X9", &o.map, "test", &err), BN_OK);
	expect_open_error(&o, BN_ERR_ARG, "DP=X9", "A0, A1, A2, A3, A4");

	bn_chanmap_default(&o.map);
	assert_int_equal(bn_chanmap_parse("VBUS=D0", &o.map, "test", &err), BN_OK);
	expect_open_error(&o, BN_ERR_ARG, "\"D0\" is a logic channel", "A0, A1");

	/* The defaults name VBUS..ID, which the demo does not have. */
	bn_chanmap_default(&o.map);
	expect_open_error(&o, BN_ERR_ARG, "no bench channel is mapped", "A0, A1");
}

static void test_sigrok_cap__bad_samplerate(void **state)
{
	struct bn_sigrok_cap_opts o = { .driver = "demo", .rate_hz = 0.4 };
	struct bn_err err = { 0 };

	(void)state;
	bn_chanmap_default(&o.map);
	assert_int_equal(bn_chanmap_parse("VBUS=A0", &o.map, "test", &err), BN_OK);
	/* Rounds to 0 Hz, which the device itself rejects. */
	expect_open_error(&o, BN_ERR_ARG, "samplerate 0.4 Hz (sent as 0 Hz) rejected",
			  "1 Hz to 1000000000 Hz");
	o.rate_hz = 0;
	expect_open_error(&o, BN_ERR_ARG, "samplerate 0 Hz", "above 0");
	o.rate_hz = NAN;
	expect_open_error(&o, BN_ERR_ARG, "samplerate nan Hz", "above 0");
	/* Above the maximum the device states (the demo's steps end at 1 GHz):
	 * refused before it is set, naming both. */
	o.rate_hz = 2e9;
	expect_open_error(&o, BN_ERR_ARG, "samplerate 2e+09 Hz is above the device's maximum",
			  "1000000000 Hz");
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sigrok_cap__acquire),
		cmocka_unit_test(test_sigrok_cap__two_at_once),
		cmocka_unit_test(test_sigrok_cap__drops_counted),
		cmocka_unit_test(test_sigrok_cap__unknown_driver),
		cmocka_unit_test(test_sigrok_cap__unknown_channel),
		cmocka_unit_test(test_sigrok_cap__bad_samplerate),
		cmocka_unit_test(test_sigrok_cap__no_device),
	};

	return cmocka_run_group_tests_name("sigrok_cap", tests, NULL, NULL);
}
