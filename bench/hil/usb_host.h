/* The bench PC as the device's USB host, through Linux sysfs: the device
 * that dut_usb names found under ROOT/bus/usb/devices, its advertised
 * configurations read from the kernel's copy of its descriptors, the
 * configuration chosen (bConfigurationValue, or usbfs where sysfs is
 * refused), and the bus suspended and resumed through runtime power
 * management (power/control, power/autosuspend_delay_ms,
 * power/runtime_status). docs/usb-host.md says what Linux allows and why.
 *
 * ROOT is the caller's: "/sys" on a bench, a temporary tree in the tests
 * (tests/unit/fake/sysfs_kernel.h writes one and plays the kernel).
 *
 * Every action fills a struct bn_usb_host_ev for the run's event record:
 * what was asked, what the device is really in afterwards, and two
 * CLOCK_MONOTONIC times, when the command was written and when sysfs first
 * showed its effect. Neither is the electrical moment (a suspend begins
 * when the port stops sending SOFs; the capture shows the current fall):
 * the runner takes that from the capture and records these beside it.
 *
 * No state is kept outside struct bn_usb_host, and no usbfs handle is kept
 * open between calls: an open usbfs file keeps a device from suspending. */
#ifndef BN_HIL_USB_HOST_H
#define BN_HIL_USB_HOST_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/err.h"
#include "hil/usb_desc.h"
#include "hil/usb_dev.h"

#define BN_USB_HOST_ROOT_LEN 256
#define BN_USB_HOST_NAME_LEN 32  /* "1-1.2.3.4" */
#define BN_USB_HOST_PATH_LEN 512
#define BN_USB_HOST_DRIVER_LEN 64
#define BN_USB_HOST_POLL_US 1000 /* sysfs re-read period while waiting */

enum bn_usb_host_act {
	BN_USB_HOST_FOUND,          /* bn_usb_host_open */
	BN_USB_HOST_KERNEL_CONFIG,  /* bn_usb_host_wait_configured: the kernel's own choice */
	BN_USB_HOST_SET_CONFIG,     /* bn_usb_host_set_config */
	BN_USB_HOST_SUSPEND,
	BN_USB_HOST_RESUME,
};

/* How a configuration was set. */
enum bn_usb_host_route {
	BN_USB_ROUTE_NONE,          /* nothing written */
	BN_USB_ROUTE_SYSFS,         /* bConfigurationValue written */
	BN_USB_ROUTE_USBFS,         /* sysfs refused: USBDEVFS_SETCONFIGURATION through libusb */
};

/* Why a suspend did not come, as far as sysfs shows it. */
enum bn_usb_host_block {
	BN_USB_BLOCK_NONE,
	BN_USB_BLOCK_CONTROL_ON,    /* power/control reads "on" again: something wrote it back */
	BN_USB_BLOCK_DELAY,         /* power/autosuspend_delay_ms is negative */
	BN_USB_BLOCK_DRIVER,        /* an interface's driver has no autosuspend support */
	BN_USB_BLOCK_USAGE,         /* power/runtime_usage > 0: a usbfs handle or a driver holds it */
	BN_USB_BLOCK_KIDS,          /* power/runtime_active_kids > 0: an interface is busy */
	BN_USB_BLOCK_RPM_OFF,       /* power/runtime_status "unsupported" or "error" */
	BN_USB_BLOCK_WAKEUP,        /* drivers bound, and the configuration has no remote wakeup */
	BN_USB_BLOCK_UNKNOWN,       /* sysfs shows no reason */
};

/* What one action did, for the run's event record. Times are
 * CLOCK_MONOTONIC microseconds (bn_usb_host_now_us), -1 for "not so". */
struct bn_usb_host_ev {
	enum bn_usb_host_act act;
	int rc;                     /* BN_OK or the error returned (the message is in bn_err) */
	int64_t t_cmd_us;           /* just before the command was written; -1: nothing written */
	int64_t t_cmd_end_us;       /* the write returned (sysfs stores run synchronously) */
	int64_t t_seen_us;          /* the first read that showed the state; -1: never */
	int poll_us;                /* t_seen_us is late by at most this */
	bool already;               /* the device was in that state before any write */
	enum bn_usb_host_route route;
	int config_before;          /* bConfigurationValue before (0 unconfigured, -1 unknown) */
	int config_asked;           /* -1: not a configuration action */
	int config_after;           /* what the device is really in at the end */
	char state[16];             /* power/runtime_status last read ("suspended", "active", ...) */
	enum bn_usb_host_block block;
	char block_iface[BN_USB_HOST_NAME_LEN];     /* "1-1:1.0" (BN_USB_BLOCK_DRIVER) */
	char block_driver[BN_USB_HOST_DRIVER_LEN];  /* "cdc_acm" */
	long block_count;           /* runtime_usage or runtime_active_kids */
};

/* One interface of the active configuration as sysfs shows it. */
struct bn_usb_host_iface {
	char name[BN_USB_HOST_NAME_LEN];            /* "1-1:1.0" */
	char driver[BN_USB_HOST_DRIVER_LEN];        /* "" when unbound */
	int supports_autosuspend;                   /* 1, 0, or -1 (no such file) */
};

struct bn_usb_host {
	char root[BN_USB_HOST_ROOT_LEN];            /* the sysfs root */
	char name[BN_USB_HOST_NAME_LEN];            /* "1-1.2" */
	char dir[BN_USB_HOST_PATH_LEN];             /* ROOT/bus/usb/devices/NAME */
	struct bn_usb_spec spec;
	unsigned busnum, devnum;
	char speed[16];                             /* "480", "5000", ... ("" unknown) */
	/* the device's strings as the kernel read them ("" when it has none) */
	char manufacturer[BN_USB_STR_LEN], product[BN_USB_STR_LEN], serial[BN_USB_STR_LEN];
	int num_configs;                            /* bNumConfigurations */
	int config;                                 /* bConfigurationValue at the last read */
	struct bn_usb_desc desc;                    /* the descriptors file, parsed */
	int poll_us;                                /* BN_USB_HOST_POLL_US unless changed */
	/* power settings found before our first suspend, put back by close */
	bool pm_saved;
	char saved_control[8];
	char saved_delay[16];
};

/* CLOCK_MONOTONIC in microseconds: the clock of every time in an event. */
int64_t bn_usb_host_now_us(void);

/* Find the device spec names under ROOT/bus/usb/devices (device
 * directories such as "1-1" or "1-1.2"; interfaces "1-1:1.0" are not
 * devices) by idVendor, idProduct and, when given, serial. Reads busnum,
 * devnum, speed, bNumConfigurations, bConfigurationValue and the raw
 * descriptors (device descriptor, then each configuration's full set) into
 * h->desc through hil/usb_desc.c. None: BN_ERR_FAULT "no USB device ...
 * under ROOT/bus/usb/devices (N USB devices there)"; more than one without
 * a serial: BN_ERR_ARG naming them. Touches nothing. ev may be NULL. */
int bn_usb_host_open(struct bn_usb_host *h, const char *sysfs_root, const struct bn_usb_spec *spec,
		     struct bn_usb_host_ev *ev, struct bn_err *err);

/* The kernel configures a device itself right after enumeration (its own
 * choice: the first configuration the port can power). Wait until
 * bConfigurationValue is set (BN_OK at once when it is): ev->config_after
 * and ev->t_seen_us say which and when it was first seen.
 * BN_ERR_TIMEOUT when it stays unconfigured (ev->config_after 0; the
 * message names the likely cause), BN_ERR_INTR on *stop. */
int bn_usb_host_wait_configured(struct bn_usb_host *h, int timeout_ms,
				volatile const sig_atomic_t *stop, struct bn_usb_host_ev *ev,
				struct bn_err *err);

/* Put the device in configuration value (0: unconfigured) as the host
 * would: bConfigurationValue is written (the kernel unbinds the
 * interfaces' drivers, sends SET_CONFIGURATION and binds the new
 * interfaces); where sysfs refuses the write (not root and no udev rule),
 * through usbfs (the interfaces' drivers detached first, the handle
 * closed after). Then bConfigurationValue is read back until it shows the
 * value or timeout_ms passes. A value the descriptors do not advertise is
 * BN_ERR_ARG and nothing is written. Refusals name the file, the errno
 * text and the likely cause (BN_ERR_ENV for permissions); a device that
 * ends in another configuration is BN_ERR_FAULT naming both. Writing the
 * configuration the device is already in is done all the same (the
 * device sees SET_CONFIGURATION again). */
int bn_usb_host_set_config(struct bn_usb_host *h, int value, int timeout_ms,
			   struct bn_usb_host_ev *ev, struct bn_err *err);

/* Suspend the device by runtime PM: power/autosuspend_delay_ms 0, then
 * power/control "auto" (ev->t_cmd_us), then wait for power/runtime_status
 * "suspended" (ev->t_seen_us). The kernel suspends only an idle device:
 * when it does not within timeout_ms, BN_ERR_TIMEOUT with the reason
 * sysfs shows in ev->block (a driver without autosuspend support bound to
 * an interface, named with its driver; a usage count; power/control
 * written back; ...). BN_ERR_INTR on *stop. */
int bn_usb_host_suspend(struct bn_usb_host *h, int timeout_ms, volatile const sig_atomic_t *stop,
			struct bn_usb_host_ev *ev, struct bn_err *err);

/* Resume: power/control "on" (no autosuspend from then on), then wait for
 * power/runtime_status "active". Also the way to hold a device awake
 * before a run's first suspend. */
int bn_usb_host_resume(struct bn_usb_host *h, int timeout_ms, volatile const sig_atomic_t *stop,
		       struct bn_usb_host_ev *ev, struct bn_err *err);

/* Put back power/control and power/autosuspend_delay_ms as open found
 * them (a device gone meanwhile is no error: nothing to put back). */
void bn_usb_host_close(struct bn_usb_host *h);

/* The configuration a host with budget_ma to give picks, as the
 * simulated host does: the largest bMaxPower within the budget, the first
 * of equals; 0 when none fits (the device stays unconfigured). */
int bn_usb_host_choose(const struct bn_usb_desc *d, unsigned budget_ma);

const char *bn_usb_host_act_name(enum bn_usb_host_act a);
const char *bn_usb_host_route_name(enum bn_usb_host_route r);
const char *bn_usb_host_block_name(enum bn_usb_host_block b);

#endif
