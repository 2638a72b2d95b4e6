/* The real device under test on USB, through libusb-1.0: found by
 * bench.conf's dut_usb = VID:PID[:SERIAL], its descriptors read raw
 * (GET_DESCRIPTOR) and parsed by hil/usb_desc.c, the same parser the sim
 * device's configurations go through. Also the machine's USB devices for
 * `bcbench devices`, waiting for the device to attach or detach (hotplug
 * events where libusb has them, else polling) and when it did, and the
 * usbfs way to set a configuration.
 *
 * Opening a device (to read its strings, a serial to match, its
 * descriptors) resumes it if it was suspended: no call here belongs
 * between a run's suspend and resume.
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

/* The same for the device at bus/address only (the one a wait found or
 * sysfs names), so another device with the same VID:PID is never read. */
int bn_usb_read_at(const struct bn_usb_spec *spec, uint8_t bus, uint8_t address,
		   struct bn_usb_desc *out, struct bn_err *err);

/* Set configuration value (0: unconfigured) through usbfs, as a libusb
 * program does: the device at bus/address opened (its /dev/bus/usb node:
 * a udev rule for the bench user, not root), each interface's kernel
 * driver detached (the kernel refuses the request while any interface is
 * claimed), SET_CONFIGURATION, the handle closed (an open usbfs file keeps
 * the device from suspending). hil/usb_host.c's way where sysfs is not
 * writable. */
int bn_usb_set_config_at(const struct bn_usb_spec *spec, uint8_t bus, uint8_t address, int value,
			 struct bn_err *err);

/* When and how a wait learnt the device came or went. */
struct bn_usb_when {
	int64_t t_us;            /* CLOCK_MONOTONIC us (hil/usb_host.h's clock): the hotplug
				  * event, else the scan that saw it */
	bool at_start;           /* so already at the first scan: t_us is that scan, not
				  * the arrival or the departure */
	bool hotplug;            /* t_us is a hotplug event's (else a poll's, late by up to
				  * its period) */
};

/* Wait until the device is attached (present), or detached (absent).
 * Returns BN_OK at once when it already is; BN_ERR_TIMEOUT after
 * timeout_ms; BN_ERR_INTR as soon as *stop is set (stop may be NULL).
 * seen (may be NULL) gets the attached device. */
int bn_usb_wait_attach(const struct bn_usb_spec *spec, int timeout_ms,
		       volatile const sig_atomic_t *stop, struct bn_usb_seen *seen,
		       struct bn_err *err);
int bn_usb_wait_detach(const struct bn_usb_spec *spec, int timeout_ms,
		       volatile const sig_atomic_t *stop, struct bn_err *err);
/* The same, saying when (when may be NULL). A hotplug event names no
 * serial: with several devices of one VID:PID the time is the last event
 * before the scan that found the state. */
int bn_usb_wait_attach_at(const struct bn_usb_spec *spec, int timeout_ms,
			  volatile const sig_atomic_t *stop, struct bn_usb_seen *seen,
			  struct bn_usb_when *when, struct bn_err *err);
int bn_usb_wait_detach_at(const struct bn_usb_spec *spec, int timeout_ms,
			  volatile const sig_atomic_t *stop, struct bn_usb_when *when,
			  struct bn_err *err);

#endif
