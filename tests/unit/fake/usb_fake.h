/* A fake libusb-1.0 for the calls hil/usb_dev.c makes, linked in with
 * -Wl,--wrap (tests/unit/test_usb_host.mk; LD_PRELOAD shims clash with
 * ASan). It serves the devices of a sysfs_kernel world (sysfs_kernel.h):
 * the device list is WORLD/sys/bus/usb/devices, a device's descriptor and
 * GET_DESCRIPTOR answers are its `descriptors` file, its strings its
 * manufacturer/product/serial files, libusb_open opens its usbfs node
 * WORLD/dev/bus/usb/BBB/DDD read-write as libusb does (the node's mode
 * decides LIBUSB_ERROR_ACCESS) and counts as a usage for the kernel
 * (an open device cannot suspend), and set_configuration and
 * detach_kernel_driver are forwarded to the fake kernel as devio.c would
 * do them (SET_CONFIGURATION refused with LIBUSB_ERROR_BUSY while an
 * interface has a driver). So a test, and the bench twin, describe one
 * world for sysfs and libusb.
 *
 * Hotplug: arrival and departure are a device directory appearing or
 * going, noticed by polling the tree inside
 * libusb_handle_events_timeout_completed (and reported from there, as
 * libusb does). no_hotplug makes libusb_has_capability deny hotplug. */
#ifndef BN_TEST_USB_FAKE_H
#define BN_TEST_USB_FAKE_H

#include <stdbool.h>
#include <stdint.h>

#include "fake/sysfs_kernel.h"

struct usb_fake {
	const struct sysfs_kernel *k;     /* the world served */
	bool no_hotplug;                  /* LIBUSB_CAP_HAS_HOTPLUG answers 0 */
	int init_rc;                      /* < 0: libusb_init fails so */
	/* what the code under test did */
	int n_init, n_exit;
	int n_open, n_close;              /* successful opens, closes */
	int n_open_refused;               /* opens answered LIBUSB_ERROR_ACCESS */
	int n_devs;                       /* libusb_device objects alive */
	int n_events;                     /* libusb_handle_events_timeout_completed calls */
	int n_hotplug_fired;              /* callbacks called */
	int n_detach, n_set_config;
	int last_set_config;              /* the value of the last SET_CONFIGURATION */
};

/* Reset f and serve k's world until uninstall. */
void usb_fake_install(struct usb_fake *f, const struct sysfs_kernel *k);
void usb_fake_uninstall(void);

#endif
