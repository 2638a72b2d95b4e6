/* USB 2.0 descriptor parser (chapter 9.6) and the sim device's builder.
 * Every read is bounds-checked against the smaller of what was read and
 * what the descriptor claims; each step advances by a bLength of at least
 * 2, so no input loops or over-reads. */
#define BN_LOG_MODULE "usb"
#include "hil/usb_desc.h"

#include <stdio.h>
#include <string.h>

#include "core/log.h"

#define DT_DEVICE 0x01
#define DT_CONFIG 0x02
#define DT_INTERFACE 0x04
#define DT_ENDPOINT 0x05
#define IFACE_DESC_LEN 9
#define EP_DESC_LEN 7
#define ATTR_ONE 0x80            /* bmAttributes D7: reserved, set to one */
#define ATTR_SELF_POWERED 0x40
#define ATTR_REMOTE_WAKEUP 0x20
#define UNIT_HS_MA 2             /* bMaxPower unit, USB 2.0 */
#define UNIT_SS_MA 8             /* bMaxPower unit, SuperSpeed */
#define BCD_USB_SS 0x0300

static uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (p[1] << 8));
}

static void put_le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v & 0xff);
	p[1] = (uint8_t)(v >> 8);
}

#define DEV_FAIL(...) bn_err_set(err, BN_ERR_DATA, "device descriptor: " __VA_ARGS__)

int bn_usb_parse_device(const uint8_t *buf, size_t len, struct bn_usb_device_desc *out,
			struct bn_err *err)
{
	struct bn_usb_device_desc d = { 0 };

	if (!buf)
		len = 0;
	if (len < 2)
		return DEV_FAIL("offset %zu: truncated: %zu bytes, needs %d", len, len,
				BN_USB_DEVICE_DESC_LEN);
	if (buf[1] != DT_DEVICE)
		return DEV_FAIL("offset 1: bDescriptorType 0x%02x, expected 0x01 (device)", buf[1]);
	if (buf[0] != BN_USB_DEVICE_DESC_LEN)
		return DEV_FAIL("offset 0: bLength %u, expected %d", buf[0], BN_USB_DEVICE_DESC_LEN);
	if (len < BN_USB_DEVICE_DESC_LEN)
		return DEV_FAIL("offset %zu: truncated: %zu bytes, needs %d", len, len,
				BN_USB_DEVICE_DESC_LEN);
	d.bcd_usb = le16(buf + 2);
	d.dev_class = buf[4];
	d.dev_subclass = buf[5];
	d.dev_protocol = buf[6];
	d.max_packet0 = buf[7];
	d.vid = le16(buf + 8);
	d.pid = le16(buf + 10);
	d.bcd_device = le16(buf + 12);
	d.i_manufacturer = buf[14];
	d.i_product = buf[15];
	d.i_serial = buf[16];
	d.num_configs = buf[17];
	/* 9 is SuperSpeed's exponent (512 bytes). */
	if (d.max_packet0 != 8 && d.max_packet0 != 16 && d.max_packet0 != 32 &&
	    d.max_packet0 != 64 && d.max_packet0 != 9)
		return DEV_FAIL("offset 7: bMaxPacketSize0 %u, expected 8, 16, 32 or 64 (9 at "
				"SuperSpeed)",
				d.max_packet0);
	if (d.num_configs == 0)
		return DEV_FAIL("offset 17: bNumConfigurations 0: the device has no configuration "
				"to choose");
	if (d.num_configs > BN_USB_MAX_CONFIGS)
		return DEV_FAIL("offset 17: bNumConfigurations %u, more than %d (a broken or "
				"hostile device)",
				d.num_configs, BN_USB_MAX_CONFIGS);
	*out = d;
	return BN_OK;
}

unsigned bn_usb_power_unit_ma(const struct bn_usb_device_desc *dev)
{
	return dev->bcd_usb >= BCD_USB_SS ? UNIT_SS_MA : UNIT_HS_MA;
}

static struct bn_usb_iface *find_iface(struct bn_usb_config_desc *c, uint8_t number)
{
	for (int i = 0; i < c->n_ifaces; i++)
		if (c->iface[i].number == number)
			return &c->iface[i];
	return NULL;
}

#define CFG_FAIL(...) bn_err_set(err, BN_ERR_DATA, "configuration descriptors: " __VA_ARGS__)

/* One descriptor inside the set at offset off; its bLength (>= 2) is
 * already known to fit. */
static int parse_inner(const uint8_t *p, size_t off, struct bn_usb_config_desc *c,
		       bool *in_iface, struct bn_err *err)
{
	uint8_t bl = p[0];
	struct bn_usb_iface *ifc;

	switch (p[1]) {
	case DT_INTERFACE:
		if (bl < IFACE_DESC_LEN)
			return CFG_FAIL("offset %zu: interface descriptor bLength %u, needs %d", off,
					bl, IFACE_DESC_LEN);
		if (p[4] > BN_USB_MAX_ENDPOINTS)
			return CFG_FAIL("offset %zu: interface %u alternate setting %u: "
					"bNumEndpoints %u, more than %d",
					off + 4, p[2], p[3], p[4], BN_USB_MAX_ENDPOINTS);
		ifc = find_iface(c, p[2]);
		if (!ifc) {
			if (c->n_ifaces == BN_USB_MAX_IFACES)
				return CFG_FAIL("offset %zu: more than %d interfaces", off,
						BN_USB_MAX_IFACES);
			ifc = &c->iface[c->n_ifaces++];
			ifc->number = p[2];
		}
		if (p[3] == 0) {
			ifc->iface_class = p[5];
			ifc->iface_subclass = p[6];
			ifc->iface_protocol = p[7];
			ifc->num_endpoints = p[4];
		}
		if (ifc->n_alt < UINT8_MAX)
			ifc->n_alt++;
		*in_iface = true;
		return BN_OK;
	case DT_ENDPOINT:
		if (bl < EP_DESC_LEN)
			return CFG_FAIL("offset %zu: endpoint descriptor bLength %u, needs %d", off,
					bl, EP_DESC_LEN);
		if (!*in_iface)
			return CFG_FAIL("offset %zu: endpoint descriptor before any interface", off);
		c->n_endpoints++;
		return BN_OK;
	case DT_CONFIG:
	case DT_DEVICE:
		return CFG_FAIL("offset %zu: a %s descriptor inside the configuration's "
				"wTotalLength",
				off, p[1] == DT_CONFIG ? "second configuration" : "device");
	default:
		c->n_other++; /* class-specific, IAD, vendor: skipped by bLength */
		return BN_OK;
	}
}

int bn_usb_parse_config(const uint8_t *buf, size_t len, unsigned power_unit_ma,
			struct bn_usb_config_desc *out, struct bn_err *err)
{
	struct bn_usb_config_desc *c = out;
	bool in_iface = false;
	size_t off, total;
	int rc;

	if (!buf)
		len = 0;
	if (len < BN_USB_CONFIG_DESC_LEN)
		return CFG_FAIL("offset %zu: truncated: %zu bytes, a configuration descriptor "
				"needs %d",
				len, len, BN_USB_CONFIG_DESC_LEN);
	if (buf[1] != DT_CONFIG)
		return CFG_FAIL("offset 1: bDescriptorType 0x%02x, expected 0x02 (configuration)",
				buf[1]);
	if (buf[0] < BN_USB_CONFIG_DESC_LEN)
		return CFG_FAIL("offset 0: bLength %u, a configuration descriptor needs %d", buf[0],
				BN_USB_CONFIG_DESC_LEN);
	total = le16(buf + 2);
	if (total < buf[0])
		return CFG_FAIL("offset 2: wTotalLength %zu, smaller than the configuration "
				"descriptor's %u bytes",
				total, buf[0]);
	if (total > len)
		return CFG_FAIL("offset 2: wTotalLength %zu runs past the %zu bytes read "
				"(truncated)",
				total, len);
	if (buf[4] > BN_USB_MAX_IFACES)
		return CFG_FAIL("offset 4: bNumInterfaces %u, more than %d", buf[4],
				BN_USB_MAX_IFACES);
	if (!(buf[7] & ATTR_ONE))
		return CFG_FAIL("offset 7: bmAttributes 0x%02x: bit 7 (reserved, set to one) is "
				"clear",
				buf[7]);
	if (power_unit_ma != UNIT_HS_MA && power_unit_ma != UNIT_SS_MA)
		return bn_err_set(err, BN_ERR_BUG, "bMaxPower unit %u mA: expected 2 or 8",
				  power_unit_ma);
	memset(c, 0, sizeof(*c));
	c->total_length = (uint16_t)total;
	c->num_interfaces = buf[4];
	c->value = buf[5];
	c->i_config = buf[6];
	c->attributes = buf[7];
	c->self_powered = buf[7] & ATTR_SELF_POWERED;
	c->remote_wakeup = buf[7] & ATTR_REMOTE_WAKEUP;
	c->max_power_raw = buf[8];
	c->max_power_ma = (uint16_t)(buf[8] * power_unit_ma);
	for (off = buf[0]; off < total; off += buf[off]) {
		size_t left = total - off;

		if (left < 2)
			return CFG_FAIL("offset %zu: %zu byte left before wTotalLength %zu, too few "
					"for a descriptor",
					off, left, total);
		if (buf[off] < 2)
			return CFG_FAIL("offset %zu: bLength %u (a descriptor is at least 2 bytes)",
					off, buf[off]);
		if (buf[off] > left)
			return CFG_FAIL("offset %zu: bLength %u runs past wTotalLength %zu (%zu "
					"bytes left)",
					off, buf[off], total, left);
		rc = parse_inner(buf + off, off, c, &in_iface, err);
		if (rc < 0)
			return rc;
	}
	if (c->n_ifaces < c->num_interfaces)
		return CFG_FAIL("offset 4: bNumInterfaces %u, but %d interface%s found in "
				"wTotalLength %zu",
				c->num_interfaces, c->n_ifaces, c->n_ifaces == 1 ? "" : "s", total);
	return BN_OK;
}

int bn_usb_parse_raw(const struct bn_usb_raw *raw, struct bn_usb_desc *out, struct bn_err *err)
{
	struct bn_err e = { 0 };
	unsigned unit;
	int rc = bn_usb_parse_device(raw->dev, sizeof(raw->dev), &out->dev, err);

	if (rc < 0)
		return rc;
	if (raw->n_configs != out->dev.num_configs)
		return bn_err_set(err, BN_ERR_DATA,
				  "device descriptor: bNumConfigurations %u, but %d configuration "
				  "sets were read",
				  out->dev.num_configs, raw->n_configs);
	unit = bn_usb_power_unit_ma(&out->dev);
	for (int i = 0; i < raw->n_configs; i++) {
		rc = bn_usb_parse_config(raw->cfg[i], raw->cfg_len[i], unit, &out->cfg[i], &e);
		if (rc < 0)
			return bn_err_set(err, rc, "configuration index %d: %s", i, e.msg);
	}
	out->n_configs = raw->n_configs;
	return BN_OK;
}

/* bMaxPower for ma, rounded up so a demand is never under-reported (the
 * limits judged, ICFG_MAX and IUNIT, are even: rounding an odd value up
 * cannot carry it across one). More than 510 mA does not fit a USB 2.0
 * descriptor: it saturates at 0xff, which still reads above ICFG_MAX. */
static uint8_t max_power_units(const struct bcfw_config *cfg)
{
	unsigned u = (cfg->max_power_ma + UNIT_HS_MA - 1) / UNIT_HS_MA;

	if (u > UINT8_MAX) {
		bn_warn("sim device: configuration %u: max_power_ma %u does not fit bMaxPower "
			"(USB 2.0: at most %d mA); its descriptor says %d mA",
			cfg->value, cfg->max_power_ma, UINT8_MAX * UNIT_HS_MA, UINT8_MAX * UNIT_HS_MA);
		u = UINT8_MAX;
	}
	return (uint8_t)u;
}

int bn_usb_build_sim(const struct bcfw_config *cfgs, int n, struct bn_usb_raw *raw,
		     struct bn_err *err)
{
	uint8_t *d = raw->dev;

	if (n < 1 || n > BN_USB_MAX_CONFIGS)
		return bn_err_set(err, BN_ERR_DATA,
				  "sim device: %d configurations advertised, descriptors hold 1 to %d",
				  n, BN_USB_MAX_CONFIGS);
	memset(raw, 0, sizeof(*raw));
	d[0] = BN_USB_DEVICE_DESC_LEN;
	d[1] = DT_DEVICE;
	put_le16(d + 2, 0x0200); /* BC 1.2 is a USB 2.0 specification */
	d[7] = 64;
	put_le16(d + 8, BN_USB_SIM_VID);
	put_le16(d + 10, BN_USB_SIM_PID);
	put_le16(d + 12, 0x0100);
	d[17] = (uint8_t)n;
	for (int i = 0; i < n; i++) {
		uint8_t *c = raw->cfg[i];

		c[0] = BN_USB_CONFIG_DESC_LEN;
		c[1] = DT_CONFIG;
		put_le16(c + 2, BN_USB_SIM_CFG_LEN);
		c[4] = 1;
		c[5] = cfgs[i].value;
		c[7] = (uint8_t)(ATTR_ONE | (cfgs[i].self_powered ? ATTR_SELF_POWERED : 0));
		c[8] = max_power_units(&cfgs[i]);
		c += BN_USB_CONFIG_DESC_LEN;
		c[0] = IFACE_DESC_LEN;
		c[1] = DT_INTERFACE;
		c[5] = 0xff; /* vendor-specific: the sim device has no class */
		raw->cfg_len[i] = BN_USB_SIM_CFG_LEN;
	}
	raw->n_configs = n;
	return BN_OK;
}

int bn_usb_sim_configs(const struct bcfw_config *cfgs, int n, struct bn_usb_desc *out,
		       struct bn_err *err)
{
	struct bn_usb_raw raw;
	int rc;

	memset(out, 0, sizeof(*out));
	if (n == 0)
		return BN_OK;
	rc = bn_usb_build_sim(cfgs, n, &raw, err);
	if (rc < 0)
		return rc;
	return bn_usb_parse_raw(&raw, out, err);
}
