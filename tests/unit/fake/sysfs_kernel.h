/* A fake of the part of Linux's USB core a bench host talks to, played on
 * a directory tree: WORLD/sys is the sysfs hil/usb_host.c reads (the path
 * it is given as its root), WORLD/dev/bus/usb holds the usbfs nodes the
 * fake libusb (usb_fake.h) opens. The unit tests and the bench twin
 * describe one world with it, and both sides read the same files.
 *
 * What it plays, after drivers/usb/core (sysfs.c, message.c, hub.c,
 * generic.c, devio.c) and Documentation/driver-api/usb/power-management.rst:
 *  - enumeration (sysfs_kernel_plug): the device directory with idVendor,
 *    idProduct, serial, busnum, devnum, speed, bNumConfigurations and the
 *    raw `descriptors`; then the kernel's own configuration, of those
 *    whose bMaxPower the port can give the first whose first interface is
 *    not vendor-specific, else the first (none: unconfigured), its interface
 *    directories "NAME:C.I" and the drivers bound to them (a table by
 *    interface class; supports_autosuspend per driver);
 *  - a write of bConfigurationValue: the new configuration (its interfaces
 *    rebuilt, drivers rebound); 0 or -1 unconfigures; a value the
 *    descriptors do not have is put back (a file cannot return EINVAL);
 *  - runtime PM: power/control "auto" with power/autosuspend_delay_ms >= 0,
 *    no usage (power/runtime_usage: usbfs opens) and every bound driver
 *    supporting autosuspend makes power/runtime_status "suspended" once
 *    the delay (plus suspend_latency_us) has passed idle; anything else
 *    makes it "active" again;
 *  - the synchronous usbfs requests the fake libusb forwards: open/close
 *    (usage, an open resumes), detach a driver, set a configuration.
 *
 * The kernel reacts to user-space writes when sysfs_kernel_step() is
 * called (a test's thread, the twin's loop): it reads the tree, compares
 * with what it last applied (kept in each device's hidden ".kernel"
 * directory, so a kernel in another process sees the same) and acts.
 * Every change it makes to a file is atomic (a rename), and every
 * operation holds WORLD/.kernel.lock (flock), so a reader never sees half
 * a file or half a device. Functions return 0 or -errno. */
#ifndef BN_TEST_SYSFS_KERNEL_H
#define BN_TEST_SYSFS_KERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SK_PATH_LEN 1024
#define SK_MAX_DRIVERS 8

/* The driver the kernel binds to interfaces of one class. */
struct sysfs_kernel_driver {
	uint8_t iface_class;
	char name[32];
	bool supports_autosuspend;
};

struct sysfs_kernel {
	char world[SK_PATH_LEN];
	unsigned port_budget_ma;       /* what the port gives: enumeration skips configurations over it */
	int64_t suspend_latency_us;    /* idle to suspended, beyond autosuspend_delay_ms */
	bool refuse_config;            /* every bConfigurationValue write is put back */
	int node_mode;                 /* the usbfs nodes' mode at plug (0664, devtmpfs's) */
	struct sysfs_kernel_driver drivers[SK_MAX_DRIVERS];
	int n_drivers;
};

/* One device to plug. */
struct sysfs_kernel_dev {
	const char *name;              /* "1-1", "1-1.2" */
	unsigned busnum, devnum;
	const char *speed;             /* "480", "12", "5000" */
	const char *serial, *manufacturer, *product;  /* NULL: the device has no such string */
	const uint8_t *desc;           /* device descriptor + every configuration's full set */
	size_t desc_len;
};

/* Defaults (500 mA, no latency, nodes 0664, no drivers) and the empty
 * tree: WORLD/sys/bus/usb/devices, .../drivers, WORLD/sys/devices,
 * WORLD/dev/bus/usb. */
int sysfs_kernel_init(struct sysfs_kernel *k, const char *world);
int sysfs_kernel_add_driver(struct sysfs_kernel *k, uint8_t iface_class, const char *name,
			    bool supports_autosuspend);
/* WORLD/sys: the root hil/usb_host.c is given. */
void sysfs_kernel_sys(const struct sysfs_kernel *k, char *buf, size_t len);
/* WORLD/sys/bus/usb/devices/NAME/REL (REL may be ""). */
void sysfs_kernel_path(const struct sysfs_kernel *k, const char *name, const char *rel, char *buf,
		       size_t len);
/* WORLD/dev/bus/usb/BBB/DDD. */
void sysfs_kernel_node(const struct sysfs_kernel *k, unsigned busnum, unsigned devnum, char *buf,
		       size_t len);

/* Enumerate a device (it appears whole; then the kernel configures it,
 * as the real one does just after the device appears) / take it away. */
int sysfs_kernel_plug(const struct sysfs_kernel *k, const struct sysfs_kernel_dev *d);
int sysfs_kernel_unplug(const struct sysfs_kernel *k, const char *name);

/* React to what user space wrote since the last step; the number of
 * changes made (0: nothing to do) or -errno. */
int sysfs_kernel_step(const struct sysfs_kernel *k);

/* usbfs's synchronous requests (devio.c): SET_CONFIGURATION (value 0:
 * unconfigured; -EINVAL when no configuration has that value), the
 * release of an interface from its driver (-ENODATA when it has none),
 * an open (+1, resumes the device) or close (-1) of the device's node. */
int sysfs_kernel_configure(const struct sysfs_kernel *k, const char *name, int value);
int sysfs_kernel_unbind(const struct sysfs_kernel *k, const char *iface);
int sysfs_kernel_usage(const struct sysfs_kernel *k, const char *name, int delta);

/* Remove the whole world (the tests' teardown). */
int sysfs_kernel_remove(const struct sysfs_kernel *k);

#endif
