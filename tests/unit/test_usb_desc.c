/* The USB descriptor parser on real device shapes (a phone in MTP mode, a
 * bus-powered two-configuration device), on each malformed or hostile
 * input it must refuse (with the offset and what was wrong), on every
 * truncation and on seeded random byte flips (never a crash: run with
 * SAN=1 so an over-read is caught; inputs sit in exactly sized heap
 * buffers so ASan sees one), and the sim device's builder round trip. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/harness.h"
#include "hil/usb_desc.h"

/* A phone in MTP mode (18d1:4ee1): one still-image interface, bulk in,
 * bulk out, interrupt in; bus-powered, 500 mA. */
static const uint8_t mtp_dev[] = {
	0x12, 0x01, 0x00, 0x02, 0x00, 0x00, 0x00, 0x40, 0xd1, 0x18,
	0xe1, 0x4e, 0x40, 0x04, 0x01, 0x02, 0x03, 0x01,
};
static const uint8_t mtp_cfg[] = {
	0x09, 0x02, 0x27, 0x00, 0x01, 0x01, 0x00, 0x80, 0xfa,
	0x09, 0x04, 0x00, 0x00, 0x03, 0x06, 0x01, 0x01, 0x05,
	0x07, 0x05, 0x81, 0x02, 0x00, 0x02, 0x00,
	0x07, 0x05, 0x01, 0x02, 0x00, 0x02, 0x00,
	0x07, 0x05, 0x82, 0x03, 0x1c, 0x00, 0x06,
};

/* A bus-powered battery device (1234:5678) with two configurations:
 * 500 mA (HID, remote wake-up) and 100 mA (CDC with an IAD, plus a
 * vendor interface with two alternate settings). */
static const uint8_t two_dev[] = {
	0x12, 0x01, 0x00, 0x02, 0x00, 0x00, 0x00, 0x40, 0x34, 0x12,
	0x78, 0x56, 0x00, 0x01, 0x01, 0x02, 0x00, 0x02,
};
static const uint8_t two_cfg1[] = {
	0x09, 0x02, 0x22, 0x00, 0x01, 0x01, 0x00, 0xa0, 0xfa,
	0x09, 0x04, 0x00, 0x00, 0x01, 0x03, 0x01, 0x02, 0x00,
	0x09, 0x21, 0x11, 0x01, 0x00, 0x01, 0x22, 0x34, 0x00,
	0x07, 0x05, 0x81, 0x03, 0x08, 0x00, 0x0a,
};
static const uint8_t two_cfg2[] = {
	0x09, 0x02, 0x46, 0x00, 0x02, 0x02, 0x00, 0x80, 0x32,
	0x08, 0x0b, 0x00, 0x02, 0x02, 0x02, 0x01, 0x00,
	0x09, 0x04, 0x00, 0x00, 0x01, 0x02, 0x02, 0x01, 0x00,
	0x05, 0x24, 0x00, 0x10, 0x01,
	0x07, 0x05, 0x83, 0x03, 0x08, 0x00, 0x10,
	0x09, 0x04, 0x01, 0x00, 0x02, 0x0a, 0x00, 0x00, 0x00,
	0x07, 0x05, 0x02, 0x02, 0x40, 0x00, 0x00,
	0x07, 0x05, 0x84, 0x02, 0x40, 0x00, 0x00,
	0x09, 0x04, 0x01, 0x01, 0x00, 0x0a, 0x00, 0x00, 0x00,
};

/* An exactly sized heap copy, so reading one byte past it is an ASan
 * error rather than a silent read of the next array. */
static uint8_t *dup_exact(const uint8_t *p, size_t n)
{
	uint8_t *q = malloc(n ? n : 1);

	assert_non_null(q);
	if (n)
		memcpy(q, p, n);
	return q;
}

static int parse_cfg(const uint8_t *p, size_t n, struct bn_usb_config_desc *c, struct bn_err *err)
{
	uint8_t *q = dup_exact(p, n);
	int rc = bn_usb_parse_config(q, n, 2, c, err);

	free(q);
	return rc;
}

static int parse_dev(const uint8_t *p, size_t n, struct bn_usb_device_desc *d, struct bn_err *err)
{
	uint8_t *q = dup_exact(p, n);
	int rc = bn_usb_parse_device(q, n, d, err);

	free(q);
	return rc;
}

static void test_usb_desc__mtp_phone(void **state)
{
	struct bn_usb_device_desc d;
	struct bn_usb_config_desc c;
	struct bn_err err = { 0 };

	(void)state;
	assert_int_equal(parse_dev(mtp_dev, sizeof(mtp_dev), &d, &err), BN_OK);
	assert_int_equal(d.vid, 0x18d1);
	assert_int_equal(d.pid, 0x4ee1);
	assert_int_equal(d.bcd_usb, 0x0200);
	assert_int_equal(d.bcd_device, 0x0440);
	assert_int_equal(d.i_serial, 3);
	assert_int_equal(d.num_configs, 1);
	assert_int_equal(bn_usb_power_unit_ma(&d), 2);
	assert_int_equal(parse_cfg(mtp_cfg, sizeof(mtp_cfg), &c, &err), BN_OK);
	assert_int_equal(c.total_length, sizeof(mtp_cfg));
	assert_int_equal(c.value, 1);
	assert_int_equal(c.max_power_raw, 0xfa);
	assert_int_equal(c.max_power_ma, 500);
	assert_false(c.self_powered);
	assert_false(c.remote_wakeup);
	assert_int_equal(c.n_ifaces, 1);
	assert_int_equal(c.iface[0].iface_class, 6);
	assert_int_equal(c.iface[0].num_endpoints, 3);
	assert_int_equal(c.n_endpoints, 3);
	assert_int_equal(c.n_other, 0);
}

static void test_usb_desc__two_configs(void **state)
{
	struct bn_usb_device_desc d;
	struct bn_usb_config_desc c1, c2;
	struct bn_err err = { 0 };

	(void)state;
	assert_int_equal(parse_dev(two_dev, sizeof(two_dev), &d, &err), BN_OK);
	assert_int_equal(d.num_configs, 2);
	assert_int_equal(parse_cfg(two_cfg1, sizeof(two_cfg1), &c1, &err), BN_OK);
	assert_int_equal(parse_cfg(two_cfg2, sizeof(two_cfg2), &c2, &err), BN_OK);
	assert_int_equal(c1.value, 1);
	assert_int_equal(c1.max_power_ma, 500);
	assert_true(c1.remote_wakeup);
	assert_false(c1.self_powered);
	assert_int_equal(c1.n_other, 1);          /* the HID descriptor */
	assert_int_equal(c2.value, 2);
	assert_int_equal(c2.max_power_ma, 100);
	assert_false(c2.remote_wakeup);
	assert_int_equal(c2.n_ifaces, 2);
	assert_int_equal(c2.iface[1].number, 1);
	assert_int_equal(c2.iface[1].n_alt, 2);
	assert_int_equal(c2.iface[1].num_endpoints, 2); /* alternate setting 0's */
	assert_int_equal(c2.n_endpoints, 3);
	assert_int_equal(c2.n_other, 2);          /* IAD + CDC header */
	/* A longer read than wTotalLength: the rest is not parsed. */
	{
		uint8_t buf[sizeof(two_cfg1) + 5];

		memcpy(buf, two_cfg1, sizeof(two_cfg1));
		memset(buf + sizeof(two_cfg1), 0, 5);
		assert_int_equal(parse_cfg(buf, sizeof(buf), &c1, &err), BN_OK);
		assert_int_equal(c1.total_length, sizeof(two_cfg1));
	}
}

static void test_usb_desc__superspeed_unit(void **state)
{
	uint8_t dev[sizeof(mtp_dev)];
	struct bn_usb_device_desc d;
	struct bn_usb_config_desc c;
	struct bn_err err = { 0 };

	(void)state;
	memcpy(dev, mtp_dev, sizeof(dev));
	dev[2] = 0x10;
	dev[3] = 0x03;      /* bcdUSB 3.1 */
	dev[7] = 9;         /* 512-byte EP0 */
	assert_int_equal(parse_dev(dev, sizeof(dev), &d, &err), BN_OK);
	assert_int_equal(bn_usb_power_unit_ma(&d), 8);
	{
		uint8_t *q = dup_exact(mtp_cfg, sizeof(mtp_cfg));

		q[8] = 0x70;
		assert_int_equal(bn_usb_parse_config(q, sizeof(mtp_cfg), 8, &c, &err), BN_OK);
		free(q);
	}
	assert_int_equal(c.max_power_ma, 896);
}

/* ---- refused input: one edit of a valid set, the message it must give ---- */

struct bad {
	const char *name;
	int at;            /* byte to overwrite, -1: none */
	uint8_t val;
	int at2;
	uint8_t val2;
	size_t len;        /* 0: the whole set */
	const char *msg;
};

static void expect_bad_cfg(const uint8_t *base, size_t n, const struct bad *b)
{
	uint8_t buf[256];
	struct bn_usb_config_desc c;
	struct bn_err err = { 0 };
	size_t len = b->len ? b->len : n;

	memcpy(buf, base, n);
	if (b->at >= 0)
		buf[b->at] = b->val;
	if (b->at2 >= 0)
		buf[b->at2] = b->val2;
	if (parse_cfg(buf, len, &c, &err) != BN_ERR_DATA)
		fail_msg("%s: accepted (or wrong code)", b->name);
	if (!strstr(err.msg, b->msg))
		fail_msg("%s: message \"%s\" lacks \"%s\"", b->name, err.msg, b->msg);
}

static void test_usb_desc__hostile_config(void **state)
{
	static const struct bad mtp[] = {
		{ "bLength 0 inside", 9, 0x00, -1, 0, 0, "offset 9: bLength 0" },
		{ "bLength 1 inside", 18, 0x01, -1, 0, 0, "offset 18: bLength 1" },
		{ "bLength overruns", 32, 0x20, -1, 0, 0,
		  "offset 32: bLength 32 runs past wTotalLength 39 (7 bytes left)" },
		{ "wTotalLength past buffer", 2, 0x40, -1, 0, 0,
		  "offset 2: wTotalLength 64 runs past the 39 bytes read" },
		{ "wTotalLength 65535", 2, 0xff, 3, 0xff, 0, "wTotalLength 65535 runs past" },
		{ "wTotalLength < 9", 2, 0x05, -1, 0, 0, "offset 2: wTotalLength 5, smaller than" },
		{ "wTotalLength 0", 2, 0x00, -1, 0, 0, "offset 2: wTotalLength 0, smaller than" },
		{ "wrong type", 1, 0x03, -1, 0, 0, "offset 1: bDescriptorType 0x03, expected 0x02" },
		{ "config bLength short", 0, 0x05, -1, 0, 0, "offset 0: bLength 5" },
		{ "interfaces claimed > found", 4, 0x03, -1, 0, 0,
		  "bNumInterfaces 3, but 1 interface found" },
		{ "interfaces huge", 4, 0xc8, -1, 0, 0, "offset 4: bNumInterfaces 200, more than 32" },
		{ "endpoints huge", 13, 0xc8, -1, 0, 0, "bNumEndpoints 200, more than 30" },
		{ "nested past wTotalLength", 2, 0x23, -1, 0, 0,
		  "offset 32: bLength 7 runs past wTotalLength 35" },
		{ "one byte left", 2, 0x21, -1, 0, 0, "offset 32: 1 byte left" },
		{ "bit 7 clear", 7, 0x40, -1, 0, 0, "offset 7: bmAttributes 0x40: bit 7" },
		{ "short interface", 9, 0x07, 16, 0x05, 0, "interface descriptor bLength 7" },
		{ "short endpoint", 18, 0x06, -1, 0, 0, "offset 18: endpoint descriptor bLength 6" },
		{ "endpoint first", 10, 0x05, -1, 0, 0, "offset 9: endpoint descriptor before any" },
		{ "config inside", 19, 0x02, -1, 0, 0, "offset 18: a second configuration" },
		{ "truncated header", -1, 0, -1, 0, 8, "offset 8: truncated: 8 bytes" },
	};
	struct bn_usb_config_desc c;
	struct bn_err err = { 0 };

	(void)state;
	for (size_t i = 0; i < sizeof(mtp) / sizeof(mtp[0]); i++)
		expect_bad_cfg(mtp_cfg, sizeof(mtp_cfg), &mtp[i]);
	assert_int_equal(bn_usb_parse_config(NULL, 0, 2, &c, &err), BN_ERR_DATA);
	assert_msg_has(&err, "truncated: 0 bytes");
}

static void expect_bad_dev(int at, uint8_t val, const char *msg)
{
	uint8_t buf[sizeof(two_dev)];
	struct bn_usb_device_desc d;
	struct bn_err err = { 0 };

	memcpy(buf, two_dev, sizeof(buf));
	buf[at] = val;
	assert_int_equal(parse_dev(buf, sizeof(buf), &d, &err), BN_ERR_DATA);
	assert_msg_has(&err, msg);
}

static void test_usb_desc__hostile_device(void **state)
{
	(void)state;
	expect_bad_dev(0, 0x00, "device descriptor: offset 0: bLength 0, expected 18");
	expect_bad_dev(0, 0xff, "offset 0: bLength 255, expected 18");
	expect_bad_dev(1, 0x02, "offset 1: bDescriptorType 0x02, expected 0x01");
	expect_bad_dev(17, 0x00, "offset 17: bNumConfigurations 0");
	expect_bad_dev(17, 0x09, "offset 17: bNumConfigurations 9, more than 8");
	expect_bad_dev(17, 0xff, "bNumConfigurations 255");
	expect_bad_dev(7, 0x07, "offset 7: bMaxPacketSize0 7");
}

/* Every prefix shorter than the set is refused, never read past. */
static void truncations(const uint8_t *p, size_t n, bool dev)
{
	for (size_t len = 0; len < n; len++) {
		struct bn_usb_device_desc d;
		struct bn_usb_config_desc c;
		struct bn_err err = { 0 };
		int rc = dev ? parse_dev(p, len, &d, &err) : parse_cfg(p, len, &c, &err);

		if (rc != BN_ERR_DATA)
			fail_msg("prefix of %zu of %zu bytes: rc %d, expected BN_ERR_DATA", len, n, rc);
		if (!strstr(err.msg, "offset "))
			fail_msg("prefix of %zu bytes: message \"%s\" gives no offset", len, err.msg);
	}
}

static void test_usb_desc__every_truncation(void **state)
{
	(void)state;
	truncations(mtp_dev, sizeof(mtp_dev), true);
	truncations(two_dev, sizeof(two_dev), true);
	truncations(mtp_cfg, sizeof(mtp_cfg), false);
	truncations(two_cfg1, sizeof(two_cfg1), false);
	truncations(two_cfg2, sizeof(two_cfg2), false);
}

static uint32_t xorshift(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

/* Seeded random byte flips on a valid set: OK or BN_ERR_DATA, never a
 * crash or an over-read; what is accepted is self-consistent. Both
 * outcomes must occur, or the loop is not testing anything. */
static void test_usb_desc__mutation_fuzz(void **state)
{
	uint32_t seed = 0x5eed1234u;
	int n_ok = 0, n_bad = 0;

	(void)state;
	for (int it = 0; it < 20000; it++) {
		const uint8_t *base = (it & 1) ? two_cfg2 : mtp_cfg;
		size_t n = (it & 1) ? sizeof(two_cfg2) : sizeof(mtp_cfg);
		uint8_t *q = dup_exact(base, n);
		int flips = 1 + (int)(xorshift(&seed) % 4);
		struct bn_usb_config_desc c;
		struct bn_usb_device_desc d;
		struct bn_err err = { 0 };
		int rc;

		for (int k = 0; k < flips; k++)
			q[xorshift(&seed) % n] = (uint8_t)xorshift(&seed);
		rc = bn_usb_parse_config(q, n, 2, &c, &err);
		if (rc == BN_OK) {
			n_ok++;
			assert_true(c.total_length <= n);
			assert_true(c.n_ifaces >= c.num_interfaces);
			assert_true(c.n_ifaces <= BN_USB_MAX_IFACES);
		} else {
			assert_int_equal(rc, BN_ERR_DATA);
			assert_true(strlen(err.msg) > 0);
			n_bad++;
		}
		free(q);
		q = dup_exact(two_dev, sizeof(two_dev));
		q[xorshift(&seed) % sizeof(two_dev)] = (uint8_t)xorshift(&seed);
		err.code = 0;
		err.msg[0] = 0;
		rc = bn_usb_parse_device(q, sizeof(two_dev), &d, &err);
		assert_true(rc == BN_OK || rc == BN_ERR_DATA);
		if (rc == BN_OK)
			assert_true(d.num_configs >= 1 && d.num_configs <= BN_USB_MAX_CONFIGS);
		free(q);
	}
	assert_true(n_ok > 100);
	assert_true(n_bad > 100);
}

/* ---- the sim device: builder -> parser gives back the firmware's set ---- */

static void test_usb_desc__sim_round_trip(void **state)
{
	const struct bcfw_config cfgs[] = {
		{ .value = 1, .max_power_ma = 500 },
		{ .value = 2, .max_power_ma = 100, .self_powered = 1 },
		{ .value = 7, .max_power_ma = 0 },
	};
	struct bn_usb_raw raw;
	struct bn_usb_desc d;
	struct bn_err err = { 0 };

	(void)state;
	assert_int_equal(bn_usb_sim_configs(cfgs, 3, &d, &err), BN_OK);
	assert_int_equal(d.dev.vid, BN_USB_SIM_VID);
	assert_int_equal(d.dev.bcd_usb, 0x0200);
	assert_int_equal(d.n_configs, 3);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(d.cfg[i].value, cfgs[i].value);
		assert_int_equal(d.cfg[i].max_power_ma, cfgs[i].max_power_ma);
		assert_int_equal(d.cfg[i].self_powered, !!cfgs[i].self_powered);
		assert_int_equal(d.cfg[i].n_ifaces, 1);
	}
	/* The bytes are what a USB 2.0 device sends. */
	assert_int_equal(bn_usb_build_sim(cfgs, 3, &raw, &err), BN_OK);
	assert_int_equal(raw.dev[17], 3);
	assert_int_equal(raw.cfg[0][8], 0xfa);
	assert_int_equal(raw.cfg[1][7], 0xc0);
	assert_int_equal(raw.cfg_len[0], 18);
}

static void test_usb_desc__sim_unrepresentable(void **state)
{
	const struct bcfw_config odd[] = { { .value = 1, .max_power_ma = 101 } };
	const struct bcfw_config high[] = { { .value = 1, .max_power_ma = 900 },
					    { .value = 2, .max_power_ma = 100 } };
	struct bcfw_config many[BN_USB_MAX_CONFIGS + 1];
	struct bn_usb_raw raw;
	struct bn_usb_desc d;
	struct bn_err err = { 0 };

	(void)state;
	/* Rounded up to the 2 mA unit: a demand is never under-reported. */
	assert_int_equal(bn_usb_sim_configs(odd, 1, &d, &err), BN_OK);
	assert_int_equal(d.cfg[0].max_power_ma, 102);
	/* Above 510 mA a USB 2.0 bMaxPower saturates; the other
	 * configurations keep their exact values. */
	assert_int_equal(bn_usb_build_sim(high, 2, &raw, &err), BN_OK);
	assert_int_equal(raw.cfg[0][8], 0xff);
	assert_int_equal(bn_usb_sim_configs(high, 2, &d, &err), BN_OK);
	assert_int_equal(d.dev.bcd_usb, 0x0200);
	assert_int_equal(d.cfg[0].max_power_ma, 510);
	assert_int_equal(d.cfg[1].max_power_ma, 100);
	memset(many, 0, sizeof(many));
	assert_int_equal(bn_usb_sim_configs(many, BN_USB_MAX_CONFIGS + 1, &d, &err), BN_ERR_DATA);
	assert_msg_has(&err, "9 configurations advertised");
	/* A firmware that advertised nothing: no descriptors, no error. */
	bn_err_clear(&err);
	assert_int_equal(bn_usb_sim_configs(odd, 0, &d, &err), BN_OK);
	assert_int_equal(d.n_configs, 0);
	assert_int_equal(bn_usb_build_sim(odd, 0, &raw, &err), BN_ERR_DATA);
}

static void test_usb_desc__raw_count_mismatch(void **state)
{
	const struct bcfw_config cfgs[] = { { .value = 1, .max_power_ma = 500 },
					    { .value = 2, .max_power_ma = 100 } };
	struct bn_usb_raw raw;
	struct bn_usb_desc d;
	struct bn_err err = { 0 };

	(void)state;
	assert_int_equal(bn_usb_build_sim(cfgs, 2, &raw, &err), BN_OK);
	raw.n_configs = 1;
	assert_int_equal(bn_usb_parse_raw(&raw, &d, &err), BN_ERR_DATA);
	assert_msg_has(&err, "bNumConfigurations 2, but 1 configuration sets were read");
	bn_err_clear(&err);
	raw.n_configs = 2;
	raw.cfg[1][9] = 0;
	assert_int_equal(bn_usb_parse_raw(&raw, &d, &err), BN_ERR_DATA);
	assert_msg_has(&err, "configuration index 1: configuration descriptors: offset 9: bLength 0");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_usb_desc__mtp_phone),
		cmocka_unit_test(test_usb_desc__two_configs),
		cmocka_unit_test(test_usb_desc__superspeed_unit),
		cmocka_unit_test(test_usb_desc__hostile_config),
		cmocka_unit_test(test_usb_desc__hostile_device),
		cmocka_unit_test(test_usb_desc__every_truncation),
		cmocka_unit_test(test_usb_desc__mutation_fuzz),
		cmocka_unit_test(test_usb_desc__sim_round_trip),
		cmocka_unit_test(test_usb_desc__sim_unrepresentable),
		cmocka_unit_test(test_usb_desc__raw_count_mismatch),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
