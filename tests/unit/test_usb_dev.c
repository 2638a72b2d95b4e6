/* The real USB path, as far as it can run on a machine with no device
 * under test (and often no USB bus at all): dut_usb parsing, the
 * not-found message from the real libusb (nothing answers to ffff:fffe),
 * listing, waiting for attach/detach (time-out, stop flag), and the
 * `bcbench devices` listing. Reading a device's descriptors, setting its
 * configuration and hotplug arrival are tested against a fake libusb and
 * a fake sysfs world in test_usb_host; the parser they feed is
 * test_usb_desc's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/harness.h"
#include "hil/devices.h"
#include "hil/usb_dev.h"

static void test_usb_dev__spec_good(void **state)
{
	struct bn_usb_spec s;
	struct bn_err err = { 0 };
	char buf[200];

	(void)state;
	assert_int_equal(bn_usb_spec_parse("18d1:4ee1", &s, &err), BN_OK);
	assert_int_equal(s.vid, 0x18d1);
	assert_int_equal(s.pid, 0x4ee1);
	assert_false(s.has_serial);
	assert_string_equal(bn_usb_spec_str(&s, buf, sizeof(buf)), "18d1:4ee1");
	assert_int_equal(bn_usb_spec_parse("FFFF:00aB:0A1B-2C:x", &s, &err), BN_OK);
	assert_int_equal(s.vid, 0xffff);
	assert_int_equal(s.pid, 0x00ab);
	assert_true(s.has_serial);
	assert_string_equal(s.serial, "0A1B-2C:x");
	assert_string_equal(bn_usb_spec_str(&s, buf, sizeof(buf)), "ffff:00ab (serial 0A1B-2C:x)");
}

static void test_usb_dev__spec_bad(void **state)
{
	static const char *const bad[] = {
		"", "18d1", "18d1:", "18d1:4ee", "8d1:4ee1", "18d1:4ee1:", "18d1:4ee1x",
		"18d1-4ee1", "0x18d1:4ee1", "18d1:4ee1:has space", "g8d1:4ee1", " 18d1:4ee1",
		"18d1:4ee1 ", "18d1:4ee12",
	};
	struct bn_usb_spec s;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct bn_err err = { 0 };
		char want[64];

		if (bn_usb_spec_parse(bad[i], &s, &err) != BN_ERR_ARG)
			fail_msg("\"%s\" accepted", bad[i]);
		snprintf(want, sizeof(want), "dut_usb \"%s\": expected VID:PID[:SERIAL]", bad[i]);
		assert_msg_has(&err, want);
	}
	{
		struct bn_err err = { 0 };

		assert_int_equal(bn_usb_spec_parse(NULL, &s, &err), BN_ERR_ARG);
	}
}

static void count_seen(void *user, const struct bn_usb_seen *s)
{
	(*(int *)user)++;
	/* Strings are only read from a device that could be opened. */
	if (!s->opened)
		assert_string_equal(s->product, "");
}

static void test_usb_dev__list(void **state)
{
	struct bn_err err = { 0 };
	int calls = 0;
	int n = bn_usb_list(count_seen, &calls, &err);

	(void)state;
	/* No bus here is fine; a crash or a negative without a message is not. */
	if (n < 0) {
		assert_true(strlen(err.msg) > 0);
		return;
	}
	assert_int_equal(calls, n);
	assert_true(bn_usb_list(NULL, NULL, &err) >= 0);
}

static void test_usb_dev__not_found(void **state)
{
	struct bn_usb_spec s;
	struct bn_usb_desc d;
	struct bn_err err = { 0 };
	int n = bn_usb_list(NULL, NULL, &err);
	char want[96];

	(void)state;
	assert_int_equal(bn_usb_spec_parse("ffff:fffe:NOPE1", &s, &err), BN_OK);
	if (n < 0)
		skip(); /* libusb cannot start here: test_usb_dev__list checked the message */
	assert_int_equal(bn_usb_read(&s, &d, NULL, &err), BN_ERR_IO);
	snprintf(want, sizeof(want), "no USB device ffff:fffe (serial NOPE1) found; %d USB device%s seen",
		 n, n == 1 ? "" : "s");
	assert_msg_has(&err, want);
	bn_err_clear(&err);
	s.has_serial = false;
	assert_int_equal(bn_usb_read(&s, &d, NULL, &err), BN_ERR_IO);
	assert_msg_has(&err, "no USB device ffff:fffe found;");
}

/* The calls that name a bus and address find nothing there, through the
 * real libusb (test_usb_host has them against a fake world). */
static void test_usb_dev__at_absent(void **state)
{
	struct bn_usb_spec s;
	struct bn_usb_desc d;
	struct bn_err err = { 0 };

	(void)state;
	assert_int_equal(bn_usb_spec_parse("ffff:fffe", &s, &err), BN_OK);
	if (bn_usb_list(NULL, NULL, &err) < 0)
		skip(); /* libusb cannot start here */
	assert_int_equal(bn_usb_read_at(&s, 250, 1, &d, &err), BN_ERR_IO);
	assert_msg_has(&err, "no USB device ffff:fffe on bus 250 address 1");
	bn_err_clear(&err);
	assert_int_equal(bn_usb_set_config_at(&s, 250, 1, 2, &err), BN_ERR_IO);
	assert_msg_has(&err, "no USB device ffff:fffe on bus 250 address 1");
}

static double mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Times are checked as "not before the time-out" only: how fast a
 * machine is must not fail a test. */
static void test_usb_dev__wait_attach_times_out(void **state)
{
	struct bn_usb_spec s;
	struct bn_err err = { 0 };
	double t0;
	int rc;

	(void)state;
	assert_int_equal(bn_usb_spec_parse("ffff:fffe", &s, &err), BN_OK);
	t0 = mono_ms();
	rc = bn_usb_wait_attach(&s, 300, NULL, NULL, &err);
	if (rc == BN_ERR_IO && strstr(err.msg, "libusb: cannot start"))
		skip();
	assert_int_equal(rc, BN_ERR_TIMEOUT);
	assert_true(mono_ms() - t0 >= 299);
	assert_msg_has(&err, "USB device ffff:fffe did not attach within 300 ms");
	/* the timed variant: the same wait, when untouched on a time-out */
	{
		struct bn_usb_when when = { .t_us = -7 };

		bn_err_clear(&err);
		assert_int_equal(bn_usb_wait_attach_at(&s, 100, NULL, NULL, &when, &err),
				 BN_ERR_TIMEOUT);
		assert_int_equal(when.t_us, -7);
	}
}

static void test_usb_dev__wait_stop_flag(void **state)
{
	struct bn_usb_spec s;
	struct bn_err err = { 0 };
	volatile sig_atomic_t stop = 1;
	int rc;

	(void)state;
	assert_int_equal(bn_usb_spec_parse("ffff:fffe", &s, &err), BN_OK);
	/* An hour's time-out: only the stop flag ends this wait. */
	rc = bn_usb_wait_attach(&s, 3600 * 1000, &stop, NULL, &err);
	if (rc == BN_ERR_IO && strstr(err.msg, "libusb: cannot start"))
		skip();
	assert_int_equal(rc, BN_ERR_INTR);
	assert_msg_has(&err, "waiting for USB device ffff:fffe to attach: interrupted");
}

static void test_usb_dev__wait_detach_absent(void **state)
{
	struct bn_usb_spec s;
	struct bn_err err = { 0 };
	int rc;

	(void)state;
	assert_int_equal(bn_usb_spec_parse("ffff:fffe", &s, &err), BN_OK);
	/* Not there: already detached. */
	rc = bn_usb_wait_detach(&s, 3600 * 1000, NULL, &err);
	if (rc == BN_ERR_IO && strstr(err.msg, "libusb: cannot start"))
		skip();
	assert_int_equal(rc, BN_OK);
	{
		struct bn_usb_when when;

		assert_int_equal(bn_usb_wait_detach_at(&s, 3600 * 1000, NULL, &when, &err), BN_OK);
		assert_true(when.at_start);
		assert_false(when.hotplug);
		assert_true(when.t_us > 0);
	}
}

static void test_usb_dev__devices_listing(void **state)
{
	static const char *const heads[] = {
		"FTDI devices (libftdi1):\n", "Serial ports (libserialport):\n",
		"sigrok drivers (libsigrok):\n", "USB devices (libusb):\n",
	};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	const char *prev = NULL;
	int n;

	(void)state;
	assert_non_null(f);
	n = bn_devices_print(f);
	fclose(f);
	assert_true(n >= 0);
	for (size_t i = 0; i < 4; i++) {
		const char *h = strstr(buf, heads[i]);
		const char *body, *next;

		if (!h)
			fail_msg("no \"%s\" in:\n%s", heads[i], buf);
		/* In order, and each section says "none" or lists something. */
		assert_true(!prev || h > prev);
		prev = h;
		body = h + strlen(heads[i]);
		next = i < 3 ? strstr(body, heads[i + 1]) : buf + len;
		assert_non_null(next);
		assert_true(next - body > 2);
		assert_true(strncmp(body, "  ", 2) == 0);
	}
	/* The demo driver is always built into Debian's libsigrok. */
	assert_non_null(strstr(buf, "demo"));
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_usb_dev__spec_good),
		cmocka_unit_test(test_usb_dev__spec_bad),
		cmocka_unit_test(test_usb_dev__list),
		cmocka_unit_test(test_usb_dev__not_found),
		cmocka_unit_test(test_usb_dev__at_absent),
		cmocka_unit_test(test_usb_dev__wait_attach_times_out),
		cmocka_unit_test(test_usb_dev__wait_stop_flag),
		cmocka_unit_test(test_usb_dev__wait_detach_absent),
		cmocka_unit_test(test_usb_dev__devices_listing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
