/* USB standard descriptors as the bench reads them from a device under
 * test: the device descriptor and each configuration's full descriptor
 * set (configuration, interfaces, endpoints, class-specific ones), as raw
 * bytes. One parser serves the real device (hil/usb_dev.c reads the
 * bytes with GET_DESCRIPTOR) and the simulated one (its firmware's
 * advertised configurations are built into bytes and parsed back), so
 * both paths yield the same struct.
 *
 * The parser never trusts a length: every bLength and wTotalLength is
 * checked against the buffer before a byte is read. Malformed input is
 * BN_ERR_DATA with the byte offset and what was wrong. */
#ifndef BN_HIL_USB_DESC_H
#define BN_HIL_USB_DESC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "firmware/bcfw.h"

/* Linux's limit too (USB_MAXCONFIG): more is a hostile device. */
#define BN_USB_MAX_CONFIGS 8
/* Interfaces (alternate setting 0) kept per configuration. */
#define BN_USB_MAX_IFACES 32
/* 15 IN + 15 OUT besides endpoint 0. */
#define BN_USB_MAX_ENDPOINTS 30

#define BN_USB_DEVICE_DESC_LEN 18
#define BN_USB_CONFIG_DESC_LEN 9

struct bn_usb_device_desc {
	uint16_t bcd_usb;
	uint8_t dev_class, dev_subclass, dev_protocol;
	uint8_t max_packet0;
	uint16_t vid, pid, bcd_device;
	uint8_t i_manufacturer, i_product, i_serial;
	uint8_t num_configs;                 /* bNumConfigurations, 1..BN_USB_MAX_CONFIGS */
};

struct bn_usb_iface {
	uint8_t number;                      /* bInterfaceNumber */
	uint8_t n_alt;                       /* alternate settings seen */
	uint8_t iface_class, iface_subclass, iface_protocol; /* of alternate setting 0 */
	uint8_t num_endpoints;               /* bNumEndpoints of alternate setting 0 */
};

struct bn_usb_config_desc {
	uint16_t total_length;               /* wTotalLength */
	uint8_t num_interfaces;              /* bNumInterfaces */
	uint8_t value;                       /* bConfigurationValue */
	uint8_t i_config;
	uint8_t attributes;                  /* bmAttributes */
	bool self_powered;                   /* bmAttributes bit 6 */
	bool remote_wakeup;                  /* bmAttributes bit 5 */
	uint8_t max_power_raw;               /* bMaxPower as sent */
	uint16_t max_power_ma;               /* bMaxPower x the unit (2 mA; 8 mA at SuperSpeed) */
	int n_ifaces;                        /* distinct interfaces found */
	struct bn_usb_iface iface[BN_USB_MAX_IFACES];
	int n_endpoints;                     /* endpoint descriptors, all settings */
	int n_other;                         /* class-specific, IAD, BOS-less extras */
};

/* What a device advertises: its device descriptor and every
 * configuration, in descriptor index order. */
struct bn_usb_desc {
	struct bn_usb_device_desc dev;
	int n_configs;
	struct bn_usb_config_desc cfg[BN_USB_MAX_CONFIGS];
};

/* The device descriptor: exactly its 18 bytes at buf (len may be more;
 * the rest is not read). */
int bn_usb_parse_device(const uint8_t *buf, size_t len, struct bn_usb_device_desc *out,
			struct bn_err *err);
/* bMaxPower's unit for a device descriptor: 8 mA for a SuperSpeed device
 * (bcdUSB >= 3.0), else 2 mA. The real path may know the speed better. */
unsigned bn_usb_power_unit_ma(const struct bn_usb_device_desc *dev);
/* One configuration's full descriptor set (wTotalLength bytes from the
 * configuration descriptor on; len is what was read and may be more). */
int bn_usb_parse_config(const uint8_t *buf, size_t len, unsigned power_unit_ma,
			struct bn_usb_config_desc *out, struct bn_err *err);

/* The simulated device's descriptors as bytes. */
#define BN_USB_SIM_CFG_LEN (9 + 9)   /* configuration + one interface */
struct bn_usb_raw {
	uint8_t dev[BN_USB_DEVICE_DESC_LEN];
	int n_configs;
	uint8_t cfg[BN_USB_MAX_CONFIGS][BN_USB_SIM_CFG_LEN];
	size_t cfg_len[BN_USB_MAX_CONFIGS];
};

/* The sim device's identity (pid.codes test VID/PID). */
#define BN_USB_SIM_VID 0x1209
#define BN_USB_SIM_PID 0x0001

/* Build a USB 2.0 device descriptor and one configuration set (one
 * vendor interface, no endpoints) per firmware configuration. bMaxPower
 * (2 mA units) is rounded up, so a demand is never under-reported; above
 * 510 mA it saturates at 0xff (510 mA, still above ICFG_MAX) with a
 * warning: a USB 2.0 descriptor cannot say more. No configuration or
 * more than BN_USB_MAX_CONFIGS is BN_ERR_DATA. */
int bn_usb_build_sim(const struct bcfw_config *cfgs, int n, struct bn_usb_raw *raw,
		     struct bn_err *err);
/* Parse a device's raw descriptors (built or read) into out. */
int bn_usb_parse_raw(const struct bn_usb_raw *raw, struct bn_usb_desc *out, struct bn_err *err);
/* The sim device's configurations through the real path's parser: build
 * the bytes, parse them back. n == 0 (a firmware that advertised
 * nothing) yields no configurations and no device descriptor. */
int bn_usb_sim_configs(const struct bcfw_config *cfgs, int n, struct bn_usb_desc *out,
		       struct bn_err *err);

#endif
