/* The twin plays the bench PC's kernel as the device's USB host: a fake
 * USB core on a sysfs tree (tests/unit/fake/sysfs_kernel.h) in the run
 * dir, WORLD = RUNDIR/usb, whose WORLD/sys bcbench reads as its sysfs root
 * (BCBENCH_SYSFS_ROOT). The world's own host profile leaves enumeration to
 * it (bn_world_cfg.host_external):
 *
 *  - the world's host sees the device's D+ pull-up: after the host
 *    profile's enumeration delay (reset, address, descriptors) the device
 *    is plugged into the fake kernel as "1-1", its descriptors the bytes
 *    the simulated bench parses (hil/usb_desc.h bn_usb_build_sim of what
 *    the firmware advertises), a new device address each time; the kernel
 *    configures it at once, as Linux does. The pull-up gone: unplugged;
 *  - every service: the fake kernel reacts to what bcbench wrote
 *    (sysfs_kernel_step), then what the kernel did reaches the world:
 *    the configuration it applied (its own choice at plug, or a
 *    bConfigurationValue write) through bn_world_host_config, and
 *    power/runtime_status suspended or active through
 *    bn_world_bus_suspend.
 *
 * Every action is a line of the log (usbhost.log): twin time in seconds,
 * a word, what happened. */
#ifndef BN_TWIN_USBHOST_H
#define BN_TWIN_USBHOST_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/err.h"
#include "core/time.h"
#include "fake/sysfs_kernel.h"
#include "twin_world.h"

#define TWIN_USB_NAME "1-1"
#define TWIN_USB_SERIAL "BCTWIN0001"

struct twin_usbhost_opts {
	unsigned port_ma;             /* what the kernel's port gives (bus_mA); 0: 500 */
	/* The driver the kernel binds to the device's (vendor-specific)
	 * interface; "" none (an interface without a driver never holds a
	 * suspend off). */
	char driver[32];
	bool driver_autosuspend;
};

struct twin_usbhost {
	struct sysfs_kernel k;
	bool have_k;
	char sys[SK_PATH_LEN];        /* WORLD/sys: bcbench's sysfs root */
	struct twin_world *tw;
	FILE *log;
	uint16_t vid, pid;
	bool attached;                /* the world's host sees the device */
	bn_time_us enum_at;           /* plug then; BN_TIME_NEVER: nothing pending */
	bool plugged;                 /* in the fake kernel */
	unsigned devnum;
	int config;                   /* what the world was last told */
	bool suspended;
	char control[16], delay[16];  /* power/control, autosuspend_delay_ms as last seen */
	long plugs, configs, suspends, resumes;
	int64_t last_err_log_us;
};

/* The kernel's tree under run_dir/usb, empty. */
int twin_usbhost_open(struct twin_usbhost *u, struct twin_world *tw, const char *run_dir,
		      const struct twin_usbhost_opts *o, FILE *log, struct bn_err *err);
/* Each loop, after the world was run to now. */
void twin_usbhost_service(struct twin_usbhost *u, bn_time_us now);
/* The device unplugged, the tree removed. */
void twin_usbhost_close(struct twin_usbhost *u, bn_time_us now);

#endif
