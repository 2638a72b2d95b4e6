/* The twin as the bench PC's kernel (twin_usbhost.h). */
#define _GNU_SOURCE
#include "twin_usbhost.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hil/usb_desc.h"

#define USB_CLASS_VENDOR 0xff
#define TWIN_USB_BUS 1
#define TWIN_USB_SPEED "480"  /* a USB 2.0 high-speed device, as BC 1.2's */
/* The device descriptor's string indices (bn_usb_build_sim leaves them
 * 0): a kernel shows a serial file only for a device that names one. */
#define STR_MANUFACTURER 1
#define STR_PRODUCT 2
#define STR_SERIAL 3

static void note(struct twin_usbhost *u, bn_time_us t, const char *kind, const char *f, ...)
	__attribute__((format(printf, 4, 5)));
static void note(struct twin_usbhost *u, bn_time_us t, const char *kind, const char *f, ...)
{
	va_list ap;

	if (!u->log)
		return;
	fprintf(u->log, "%.6f\t%s\t", bn_time_to_s(t), kind);
	va_start(ap, f);
	vfprintf(u->log, f, ap);
	va_end(ap);
	fputc('\n', u->log);
	fflush(u->log);
}

/* A sysfs attribute of the device, without its newline; false when it
 * cannot be read (the device is going). */
static bool attr(const struct twin_usbhost *u, const char *rel, char *buf, size_t len)
{
	char p[SK_PATH_LEN];
	ssize_t n;
	int fd;

	sysfs_kernel_path(&u->k, TWIN_USB_NAME, rel, p, sizeof(p));
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return false;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		n--;
	buf[n] = 0;
	return true;
}

int twin_usbhost_open(struct twin_usbhost *u, struct twin_world *tw, const char *run_dir,
		      const struct twin_usbhost_opts *o, FILE *log, struct bn_err *err)
{
	char world[SK_PATH_LEN];
	int rc;

	memset(u, 0, sizeof(*u));
	u->tw = tw;
	u->log = log;
	u->vid = BN_USB_SIM_VID;
	u->pid = BN_USB_SIM_PID;
	u->enum_at = BN_TIME_NEVER;
	u->devnum = 1; /* the root hub's; the device's first address is 2 */
	snprintf(world, sizeof(world), "%s/usb", run_dir);
	rc = sysfs_kernel_init(&u->k, world);
	if (rc < 0)
		return bn_err_set(err, BN_ERR_IO, "the USB host's sysfs tree %s: %s", world,
				  strerror(-rc));
	u->have_k = true;
	u->k.port_budget_ma = o->port_ma ? o->port_ma : 500;
	if (o->driver[0] &&
	    sysfs_kernel_add_driver(&u->k, USB_CLASS_VENDOR, o->driver, o->driver_autosuspend) < 0)
		return bn_err_set(err, BN_ERR_ARG, "--usb-driver %s: name too long", o->driver);
	sysfs_kernel_sys(&u->k, u->sys, sizeof(u->sys));
	note(u, 0, "kernel", "sysfs root %s; port gives %u mA; the device's interface binds %s%s",
	     u->sys, u->k.port_budget_ma, o->driver[0] ? o->driver : "no driver",
	     !o->driver[0] ? "" : o->driver_autosuspend ? " (autosuspend)" : " (no autosuspend)");
	return BN_OK;
}

/* The simulated device's descriptors as the kernel reads them at
 * enumeration: the device descriptor, then each configuration's set. */
static int device_bytes(struct twin_usbhost *u, uint8_t *buf, size_t *len, char *cfgs_text,
			size_t tlen, struct bn_err *err)
{
	const struct bcfw_config *c;
	int n = bn_world_configs(u->tw->w, &c);
	const struct bcfw_config none = { .value = 1 };
	struct bn_usb_raw raw;
	size_t off = BN_USB_DEVICE_DESC_LEN, o = 0;
	int rc;

	/* a firmware that advertised nothing: a device with no configuration */
	rc = bn_usb_build_sim(n > 0 ? c : &none, n > 0 ? n : 1, &raw, err);
	if (rc < 0)
		return rc;
	if (n <= 0) {
		raw.n_configs = 0;
		raw.dev[17] = 0;
	}
	raw.dev[14] = STR_MANUFACTURER;
	raw.dev[15] = STR_PRODUCT;
	raw.dev[16] = STR_SERIAL;
	memcpy(buf, raw.dev, BN_USB_DEVICE_DESC_LEN);
	cfgs_text[0] = 0;
	for (int i = 0; i < raw.n_configs; i++) {
		memcpy(buf + off, raw.cfg[i], raw.cfg_len[i]);
		off += raw.cfg_len[i];
		o += (size_t)snprintf(cfgs_text + o, o < tlen ? tlen - o : 0, "%s%u (bMaxPower %u mA)",
				      i ? ", " : "", (unsigned)raw.cfg[i][5], raw.cfg[i][8] * 2u);
	}
	if (!raw.n_configs)
		snprintf(cfgs_text, tlen, "none");
	*len = off;
	return BN_OK;
}

static void plug(struct twin_usbhost *u, bn_time_us now)
{
	uint8_t buf[BN_USB_DEVICE_DESC_LEN + BN_USB_MAX_CONFIGS * BN_USB_SIM_CFG_LEN];
	char cfgs[300];
	size_t len;
	struct bn_err e = { 0 };
	struct sysfs_kernel_dev d;
	int rc;

	u->enum_at = BN_TIME_NEVER;
	if (device_bytes(u, buf, &len, cfgs, sizeof(cfgs), &e) < 0) {
		note(u, now, "error", "enumeration failed: %s", e.msg);
		return;
	}
	u->devnum = u->devnum >= 127 ? 2 : u->devnum + 1;
	d = (struct sysfs_kernel_dev){
		.name = TWIN_USB_NAME, .busnum = TWIN_USB_BUS, .devnum = u->devnum,
		.speed = TWIN_USB_SPEED, .serial = TWIN_USB_SERIAL, .manufacturer = "bcbench",
		.product = "bench twin device", .desc = buf, .desc_len = len,
	};
	rc = sysfs_kernel_plug(&u->k, &d);
	if (rc < 0) {
		note(u, now, "error", "plug %s: %s", TWIN_USB_NAME, strerror(-rc));
		return;
	}
	u->plugged = true;
	u->plugs++;
	u->config = -1; /* the kernel's own choice, even "none", is told */
	u->suspended = false;
	u->control[0] = u->delay[0] = 0;
	note(u, now, "enumerate", "%s at bus %d device %u: %04x:%04x serial %s, configurations: %s",
	     TWIN_USB_NAME, TWIN_USB_BUS, u->devnum, u->vid, u->pid, TWIN_USB_SERIAL, cfgs);
}

static void unplug(struct twin_usbhost *u, bn_time_us now, const char *why)
{
	int rc;

	if (!u->plugged)
		return;
	rc = sysfs_kernel_unplug(&u->k, TWIN_USB_NAME);
	u->plugged = false;
	u->config = 0;
	u->suspended = false;
	if (rc < 0)
		note(u, now, "error", "unplug %s: %s", TWIN_USB_NAME, strerror(-rc));
	else
		note(u, now, "disconnect", "%s removed: %s", TWIN_USB_NAME, why);
}

/* User space's power settings as they change (bcbench's runtime PM). */
static void watch_power(struct twin_usbhost *u, bn_time_us now)
{
	char control[16], delay[16];

	/* empty: bcbench's write is between its O_TRUNC and its text (sysfs
	 * never reads empty; this tree's regular files do) */
	if (attr(u, "power/control", control, sizeof(control)) && control[0] &&
	    strcmp(control, u->control)) {
		if (u->control[0])
			note(u, now, "control", "power/control %s (was %s)", control, u->control);
		snprintf(u->control, sizeof(u->control), "%s", control);
	}
	if (attr(u, "power/autosuspend_delay_ms", delay, sizeof(delay)) && delay[0] &&
	    strcmp(delay, u->delay)) {
		if (u->delay[0])
			note(u, now, "control", "power/autosuspend_delay_ms %s (was %s)", delay, u->delay);
		snprintf(u->delay, sizeof(u->delay), "%s", delay);
	}
}

/* The driver the kernel bound to the configuration's interface (the
 * simulated device has one, number 0). */
static void note_driver(struct twin_usbhost *u, bn_time_us now)
{
	char iface[24], rel[64], p[SK_PATH_LEN], link[SK_PATH_LEN], as[8] = "";
	const char *base;
	ssize_t n;

	snprintf(iface, sizeof(iface), "%s:%d.0", TWIN_USB_NAME, u->config);
	snprintf(rel, sizeof(rel), "%s/driver", iface);
	sysfs_kernel_path(&u->k, TWIN_USB_NAME, rel, p, sizeof(p));
	n = readlink(p, link, sizeof(link) - 1);
	if (n <= 0) {
		note(u, now, "driver", "%s: no driver bound", iface);
		return;
	}
	link[n] = 0;
	base = strrchr(link, '/');
	snprintf(rel, sizeof(rel), "%s/supports_autosuspend", iface);
	attr(u, rel, as, sizeof(as));
	note(u, now, "driver", "%s bound to %s (supports_autosuspend %s)", iface,
	     base ? base + 1 : link, as);
}

/* What the kernel did reaches the world, in the order the bus carries
 * it: a resume before a configuration (a suspended device is woken for
 * SET_CONFIGURATION), a suspend after. */
static void reflect(struct twin_usbhost *u, bn_time_us now)
{
	struct bn_world *w = u->tw->w;
	char status[32] = "", text[32], power[16];
	long applied;
	char *end;

	watch_power(u, now);
	attr(u, "power/runtime_status", status, sizeof(status));
	if (!strcmp(status, "active") && u->suspended) {
		u->suspended = false;
		u->resumes++;
		note(u, now, "resume", "power/runtime_status active: the bus resumes");
		bn_world_bus_suspend(w, false);
	}
	/* The configuration the kernel applied (the fake's own record):
	 * bConfigurationValue may hold a write it has yet to act on. */
	if (attr(u, ".kernel/config", text, sizeof(text))) {
		applied = strtol(text, &end, 10);
		if (end != text && !*end && applied != u->config) {
			bool first = u->config < 0;

			attr(u, "bMaxPower", power, sizeof(power));
			note(u, now, "config", "%s: configuration %ld%s%s%s",
			     first ? "the kernel's own choice at enumeration"
				   : "bConfigurationValue written: the kernel sets",
			     applied, applied ? " (bMaxPower " : ", unconfigured",
			     applied ? power : "", applied ? ")" : "");
			u->config = (int)applied;
			u->configs++;
			bn_world_host_config(w, u->config);
			if (u->config)
				note_driver(u, now);
		}
	}
	if (!strcmp(status, "suspended") && !u->suspended) {
		u->suspended = true;
		u->suspends++;
		note(u, now, "suspend", "power/runtime_status suspended: the bus is suspended");
		bn_world_bus_suspend(w, true);
	}
}

void twin_usbhost_service(struct twin_usbhost *u, bn_time_us now)
{
	bool attached;
	int rc;

	if (!u->have_k)
		return;
	rc = sysfs_kernel_step(&u->k);
	if (rc < 0 && now - u->last_err_log_us >= 1000000) {
		note(u, now, "error", "the kernel's step: %s", strerror(-rc));
		u->last_err_log_us = now;
	}
	attached = bn_world_host_attached(u->tw->w);
	if (attached && !u->attached) {
		u->enum_at = now + u->tw->host.enum_delay_us;
		note(u, now, "connect", "the host sees the device's D+ pull-up: enumeration in %.0f ms",
		     u->tw->host.enum_delay_us / 1000.0);
	} else if (!attached && u->attached) {
		u->enum_at = BN_TIME_NEVER;
		if (u->plugged)
			unplug(u, now, "the D+ pull-up is gone");
		else
			note(u, now, "connect", "the D+ pull-up is gone before enumeration");
	}
	u->attached = attached;
	if (attached && !u->plugged && now >= u->enum_at)
		plug(u, now);
	if (u->plugged)
		reflect(u, now);
}

void twin_usbhost_close(struct twin_usbhost *u, bn_time_us now)
{
	if (!u->have_k)
		return;
	unplug(u, now, "the twin stops");
	note(u, now, "stopped", "%ld enumeration%s, %ld configuration%s, %ld suspend%s, %ld resume%s",
	     u->plugs, u->plugs == 1 ? "" : "s", u->configs, u->configs == 1 ? "" : "s", u->suspends,
	     u->suspends == 1 ? "" : "s", u->resumes, u->resumes == 1 ? "" : "s");
	sysfs_kernel_remove(&u->k);
	u->have_k = false;
}
