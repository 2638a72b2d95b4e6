/* The real device under test on USB, through libusb-1.0: found by
 * bench.conf's dut_usb = VID:PID[:SERIAL], its descriptors read raw
 * (GET_DESCRIPTOR) and parsed by hil/usb_desc.c, the same parser the sim
 * device's configurations go through. Also the machine's USB devices for
 * `bcbench devices`, and waiting for the device to attach or detach
 * (hotplug events where libusb has them, else polling).
 *
 * Each call makes and ends its own libusb context: no state between
 * calls. A machine without a USB bus (a container without /dev/bus/usb)
 * answers "not found" (or BN_ERR_IO naming libusb's reason when libusb
 * cannot start at all), never a crash. */
#ifndef BN_HIL_USB_DEV_H
#define BN_HIL_USB_DEV_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/err.h"
#include "hil/usb_desc.h"

#define BN_USB_STR_LEN 128

/* What dut_usb names: VID and PID (4 hex digits each) and an optional
 * serial number (the rest of the text after the second ':'). */
struct bn_usb_spec {
	uint16_t vid, pid;
	bool has_serial;
	char serial[BN_USB_STR_LEN];
};

/* Strict: "18d1:4ee1" or "18d1:4ee1:0A1B2C"; anything else is BN_ERR_ARG
 * quoting the text. */
int bn_usb_spec_parse(const char *text, struct bn_usb_spec *out, struct bn_err *err);
/* "18d1:4ee1" or "18d1:4ee1 (serial 0A1B2C)" into buf. */
const char *bn_usb_spec_str(const struct bn_usb_spec *s, char *buf, size_t len);

/* One device on the bus. The strings are read only when the device
 * could be opened (permissions); else empty. */
struct bn_usb_seen {
	uint16_t vid, pid;
	uint8_t bus, address;
	char manufacturer[BN_USB_STR_LEN];
	char product[BN_USB_STR_LEN];
	char serial[BN_USB_STR_LEN];
	bool opened;                     /* the strings could be asked for */
};

typedef void (*bn_usb_seen_fn)(void *user, const struct bn_usb_seen *s);

/* Calls fn (may be NULL) for each device; returns their number (>= 0)
 * or a negative error. */
int bn_usb_list(bn_usb_seen_fn fn, void *user, struct bn_err *err);

/* Find the device, read its device descriptor and every configuration's
 * descriptor set, parse them. Not there: BN_ERR_IO "no USB device
 * VID:PID (serial S) found; N USB devices seen". seen (may be NULL)
 * gets where it is. */
int bn_usb_read(const struct bn_usb_spec *spec, struct bn_usb_desc *out,
		struct bn_usb_seen *seen, struct bn_err *err);

/* Wait until the device is attached (present), or detached (absent).
 * Returns BN_OK at once when it already is; BN_ERR_TIMEOUT after
 * timeout_ms; BN_ERR_INTR as soon as *stop is set (stop may be NULL).
 * seen (may be NULL) gets the attached device. */
int bn_usb_wait_attach(const struct bn_usb_spec *spec, int timeout_ms,
		       volatile const sig_atomic_t *stop, struct bn_usb_seen *seen,
		       struct bn_err *err);
int bn_usb_wait_detach(const struct bn_usb_spec *spec, int timeout_ms,
		       volatile const sig_atomic_t *stop, struct bn_err *err);

#endif
