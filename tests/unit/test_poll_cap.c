/* Polled instrument readings as a capture (hil/poll_cap.h): which reading
 * makes which channel, the device's current as the supply's less the
 * load's while the load is on, the grid chosen from the probed cycle, a
 * bench with nothing to read, and an instrument failing mid-run. The
 * instruments are tables of function pointers answering from a struct,
 * so each figure is known. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>
#include <time.h>

#include "lib/harness.h"

#include "hil/poll_cap.h"

struct fake_instr {
	double v, a;
	int delay_ms;          /* each measure takes this long */
	int fail_after;        /* measure fails after this many (0: never) */
	int n;
	char id[64];
};

static int fake_measure(void *priv, double *volts, double *amps, struct bn_err *err)
{
	struct fake_instr *f = priv;

	if (f->fail_after && ++f->n > f->fail_after)
		return bn_err_set(err, BN_ERR_FAULT, "%s: :MEAS:VOLT?: instrument lost", f->id);
	if (f->delay_ms) {
		struct timespec ts = { 0, f->delay_ms * 1000000L };

		nanosleep(&ts, NULL);
	}
	*volts = f->v;
	*amps = f->a;
	return BN_OK;
}

static void fake_identity(void *priv, char *buf, size_t len)
{
	snprintf(buf, len, "%s", ((struct fake_instr *)priv)->id);
}

static const struct bn_supply_ops sp_ops = { .name = "scpi", .measure = fake_measure,
					     .identity = fake_identity };
static const struct bn_load_ops ld_ops = { .name = "scpi", .measure = fake_measure,
					   .identity = fake_identity };

static void test_poll_cap__supply_and_load(void **state)
{
	struct fake_instr fs = { .v = 5.05, .a = 1.2, .id = "PSU-1 on /dev/ttyUSB0" };
	struct fake_instr fl = { .v = 5.0, .a = 0.5, .id = "LOAD-1 on /dev/ttyUSB1" };
	struct bn_supply sp = { &sp_ops, &fs };
	struct bn_load ld = { &ld_ops, &fl };
	struct bn_poll_cap p;
	struct bn_sample s;
	struct bn_err err = { 0 };

	(void)state;
	assert_int_equal(bn_poll_cap_open(&p, &sp, &ld, 0, &err), BN_OK);
	assert_int_equal(p.channels, (1u << BN_CH_VBUS) | (1u << BN_CH_IBUS));
	assert_non_null(strstr(p.src[BN_CH_VBUS], "PSU-1 on /dev/ttyUSB0"));
	assert_non_null(strstr(p.src[BN_CH_VBUS], "output voltage"));
	assert_non_null(strstr(p.src[BN_CH_IBUS], "less the load's"));
	assert_string_equal(p.src[BN_CH_DP], "");
	/* load off: the supply's current is the device's */
	assert_int_equal(bn_poll_cap_read(&p, &s, &err), BN_OK);
	assert_float_equal(s.v[BN_CH_VBUS], 5.05, 1e-12);
	assert_float_equal(s.v[BN_CH_IBUS], 1.2, 1e-12);
	assert_true(isnan(s.v[BN_CH_DP]) && isnan(s.v[BN_CH_DM]) && isnan(s.v[BN_CH_ID]));
	/* load on: what the load sinks is not the device's */
	bn_poll_cap_load(&p, true);
	assert_int_equal(bn_poll_cap_read(&p, &s, &err), BN_OK);
	assert_float_equal(s.v[BN_CH_IBUS], 0.7, 1e-12);
	assert_int_equal(p.polls, 2);
	/* fast instruments: the fastest grid allowed */
	assert_float_equal(bn_poll_cap_rate(&p), BN_POLL_MAX_RATE_HZ, 1e-9);
}

static void test_poll_cap__load_only(void **state)
{
	struct fake_instr fl = { .v = 4.9, .a = 0.3, .id = "LOAD-1" };
	struct bn_load ld = { &ld_ops, &fl };
	struct bn_poll_cap p;
	struct bn_sample s;
	struct bn_err err = { 0 };

	(void)state;
	assert_int_equal(bn_poll_cap_open(&p, NULL, &ld, 0, &err), BN_OK);
	/* without a supply nothing measures the device's current */
	assert_int_equal(p.channels, 1u << BN_CH_VBUS);
	assert_int_equal(bn_poll_cap_read(&p, &s, &err), BN_OK);
	assert_float_equal(s.v[BN_CH_VBUS], 4.9, 1e-12);
	assert_true(isnan(s.v[BN_CH_IBUS]));
	assert_non_null(strstr(p.src[BN_CH_VBUS], "load scpi (LOAD-1): its input voltage"));
}

/* A slow instrument sets a slower grid: 1.5x its cycle, up in 10 ms. */
static void test_poll_cap__grid_from_cycle(void **state)
{
	struct fake_instr fs = { .v = 5, .a = 0.1, .delay_ms = 40, .id = "SLOW" };
	struct bn_supply sp = { &sp_ops, &fs };
	struct bn_poll_cap p;
	struct bn_err err = { 0 };

	(void)state;
	assert_int_equal(bn_poll_cap_open(&p, &sp, NULL, 0, &err), BN_OK);
	assert_true(p.cycle_s >= 0.040);
	assert_true(p.period_s >= 0.06 - 1e-9);
	assert_float_equal(p.period_s * 100, round(p.period_s * 100), 1e-9);
	assert_true(bn_poll_cap_rate(&p) < BN_POLL_MAX_RATE_HZ);
	/* the probe cycles are not the run's */
	assert_int_equal(p.polls, 0);
}

static void test_poll_cap__nothing_to_read(void **state)
{
	static const struct bn_load_ops blind = { .name = "blind" };
	struct bn_load ld = { &blind, NULL };
	struct bn_poll_cap p;
	struct bn_err err = { 0 };

	(void)state;
	assert_int_equal(bn_poll_cap_open(&p, NULL, NULL, 0, &err), BN_ERR_ARG);
	assert_int_equal(bn_poll_cap_open(&p, NULL, &ld, 0, &err), BN_ERR_ARG);
	assert_msg_has(&err, "no instrument");
}

static void test_poll_cap__instrument_lost(void **state)
{
	struct fake_instr fs = { .v = 5, .a = 0.1, .fail_after = 4, .id = "PSU-2" };
	struct bn_supply sp = { &sp_ops, &fs };
	struct bn_poll_cap p;
	struct bn_sample s;
	struct bn_err err = { 0 };

	(void)state;
	assert_int_equal(bn_poll_cap_open(&p, &sp, NULL, 0, &err), BN_OK); /* 3 probe cycles */
	assert_int_equal(bn_poll_cap_read(&p, &s, &err), BN_OK);
	assert_int_equal(bn_poll_cap_read(&p, &s, &err), BN_ERR_FAULT);
	assert_msg_has(&err, "PSU-2: :MEAS:VOLT?: instrument lost");
	/* and an instrument failing while probed fails the open */
	fs.n = 0;
	fs.fail_after = 1;
	assert_int_equal(bn_poll_cap_open(&p, &sp, NULL, 0, &err), BN_ERR_FAULT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_poll_cap__supply_and_load),
		cmocka_unit_test(test_poll_cap__load_only),
		cmocka_unit_test(test_poll_cap__grid_from_cycle),
		cmocka_unit_test(test_poll_cap__nothing_to_read),
		cmocka_unit_test(test_poll_cap__instrument_lost),
	};

	return cmocka_run_group_tests_name("poll_cap", tests, NULL, NULL);
}
