/* The fake libusb-1.0 (usb_fake.h): each __wrap_libusb_X stands for
 * libusb_X in the code under test. The opaque libusb types are this
 * file's own. */
#define _GNU_SOURCE
#include "fake/usb_fake.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libusb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_DEVS 64
#define MAX_CBS 4
#define NAME_LEN 64

static struct usb_fake *g_fake;

struct known {
	char name[NAME_LEN];
	uint8_t desc[18];
};

struct hotplug_cb {
	bool used;
	int events, vid, pid;
	libusb_hotplug_callback_fn fn;
	void *user;
};

struct libusb_context {
	struct hotplug_cb cb[MAX_CBS];
	struct known seen[MAX_DEVS];    /* the devices at the last look */
	int n_seen;
};

struct libusb_device {
	int refs;
	char name[NAME_LEN];
	uint8_t bus, address;
	uint8_t desc[18];               /* libusb caches the device descriptor */
	char speed[16];
};

struct libusb_device_handle {
	struct libusb_device *dev;
	int fd;                         /* the usbfs node */
};

void usb_fake_install(struct usb_fake *f, const struct sysfs_kernel *k)
{
	memset(f, 0, sizeof(*f));
	f->k = k;
	f->last_set_config = -2;
	g_fake = f;
}

void usb_fake_uninstall(void)
{
	g_fake = NULL;
}

static void dev_path(const char *name, const char *rel, char *buf, size_t len)
{
	sysfs_kernel_path(g_fake->k, name, rel, buf, len);
}

static int read_file(const char *name, const char *rel, void *buf, size_t len)
{
	char p[SK_PATH_LEN];
	ssize_t n;
	int fd;

	dev_path(name, rel, p, sizeof(p));
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len);
	close(fd);
	return n < 0 ? -EIO : (int)n;
}

static int read_text(const char *name, const char *rel, char *buf, size_t len)
{
	int n = read_file(name, rel, buf, len - 1);

	if (n < 0) {
		buf[0] = 0;
		return n;
	}
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		n--;
	buf[n] = 0;
	return n;
}

static int cmp_known(const void *a, const void *b)
{
	return strcmp(((const struct known *)a)->name, ((const struct known *)b)->name);
}

/* The devices there now, sorted by name. */
static int look(struct known *out, int max)
{
	char base[SK_PATH_LEN];
	struct dirent *de;
	DIR *d;
	int n = 0;

	if (snprintf(base, sizeof(base), "%s/sys/bus/usb/devices", g_fake->k->world) >= (int)sizeof(base))
		return 0;
	d = opendir(base);
	if (!d)
		return 0;
	while ((de = readdir(d)) && n < max) {
		if (de->d_name[0] == '.' || strchr(de->d_name, ':') || strlen(de->d_name) >= NAME_LEN)
			continue;
		snprintf(out[n].name, NAME_LEN, "%s", de->d_name);
		if (read_file(de->d_name, "descriptors", out[n].desc, 18) == 18)
			n++;
	}
	closedir(d);
	qsort(out, (size_t)n, sizeof(*out), cmp_known);
	return n;
}

static struct libusb_device *new_dev(const struct known *kn)
{
	struct libusb_device *dev = calloc(1, sizeof(*dev));
	char buf[16];

	if (!dev)
		abort();
	dev->refs = 1;
	memcpy(dev->name, kn->name, NAME_LEN);
	memcpy(dev->desc, kn->desc, 18);
	read_text(kn->name, "busnum", buf, sizeof(buf));
	dev->bus = (uint8_t)atoi(buf);
	read_text(kn->name, "devnum", buf, sizeof(buf));
	dev->address = (uint8_t)atoi(buf);
	read_text(kn->name, "speed", dev->speed, sizeof(dev->speed));
	g_fake->n_devs++;
	return dev;
}

static void unref(struct libusb_device *dev)
{
	if (dev && --dev->refs == 0) {
		free(dev);
		g_fake->n_devs--;
	}
}

int __wrap_libusb_init(libusb_context **ctx)
{
	if (g_fake->init_rc < 0)
		return g_fake->init_rc;
	*ctx = calloc(1, sizeof(**ctx));
	if (!*ctx)
		return LIBUSB_ERROR_NO_MEM;
	g_fake->n_init++;
	return 0;
}

void __wrap_libusb_exit(libusb_context *ctx)
{
	free(ctx);
	g_fake->n_exit++;
}

int __wrap_libusb_has_capability(uint32_t cap)
{
	if (cap == LIBUSB_CAP_HAS_HOTPLUG)
		return !g_fake->no_hotplug;
	return cap == LIBUSB_CAP_HAS_CAPABILITY;
}

ssize_t __wrap_libusb_get_device_list(libusb_context *ctx, libusb_device ***list)
{
	struct known kn[MAX_DEVS];
	int n = look(kn, MAX_DEVS);

	*list = calloc((size_t)n + 1, sizeof(**list));
	if (!*list)
		return LIBUSB_ERROR_NO_MEM;
	for (int i = 0; i < n; i++)
		(*list)[i] = new_dev(&kn[i]);
	return n;
}

void __wrap_libusb_free_device_list(libusb_device **list, int unref_devices)
{
	for (int i = 0; list && list[i]; i++)
		if (unref_devices)
			unref(list[i]);
	free(list);
}

int __wrap_libusb_get_device_descriptor(libusb_device *dev, struct libusb_device_descriptor *dd)
{
	const uint8_t *d = dev->desc;

	dd->bLength = d[0];
	dd->bDescriptorType = d[1];
	dd->bcdUSB = (uint16_t)(d[2] | d[3] << 8);
	dd->bDeviceClass = d[4];
	dd->bDeviceSubClass = d[5];
	dd->bDeviceProtocol = d[6];
	dd->bMaxPacketSize0 = d[7];
	dd->idVendor = (uint16_t)(d[8] | d[9] << 8);
	dd->idProduct = (uint16_t)(d[10] | d[11] << 8);
	dd->bcdDevice = (uint16_t)(d[12] | d[13] << 8);
	dd->iManufacturer = d[14];
	dd->iProduct = d[15];
	dd->iSerialNumber = d[16];
	dd->bNumConfigurations = d[17];
	return 0;
}

uint8_t __wrap_libusb_get_bus_number(libusb_device *dev)
{
	return dev->bus;
}

uint8_t __wrap_libusb_get_device_address(libusb_device *dev)
{
	return dev->address;
}

int __wrap_libusb_get_device_speed(libusb_device *dev)
{
	double mbps = atof(dev->speed);

	if (mbps >= 10000)
		return LIBUSB_SPEED_SUPER_PLUS;
	if (mbps >= 5000)
		return LIBUSB_SPEED_SUPER;
	if (mbps >= 480)
		return LIBUSB_SPEED_HIGH;
	if (mbps >= 12)
		return LIBUSB_SPEED_FULL;
	return mbps > 0 ? LIBUSB_SPEED_LOW : LIBUSB_SPEED_UNKNOWN;
}

libusb_device *__wrap_libusb_get_device(libusb_device_handle *h)
{
	return h->dev;
}

int __wrap_libusb_open(libusb_device *dev, libusb_device_handle **out)
{
	char node[SK_PATH_LEN];
	libusb_device_handle *h;
	int fd;

	sysfs_kernel_node(g_fake->k, dev->bus, dev->address, node, sizeof(node));
	/* libusb opens the node read-write (os/linux_usbfs.c) */
	fd = open(node, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;

		if (e == EACCES || e == EPERM) {
			g_fake->n_open_refused++;
			return LIBUSB_ERROR_ACCESS;
		}
		return e == ENOENT ? LIBUSB_ERROR_NO_DEVICE : LIBUSB_ERROR_IO;
	}
	h = calloc(1, sizeof(*h));
	if (!h)
		abort();
	h->fd = fd;
	h->dev = dev;
	dev->refs++;
	sysfs_kernel_usage(g_fake->k, dev->name, +1);
	g_fake->n_open++;
	*out = h;
	return 0;
}

void __wrap_libusb_close(libusb_device_handle *h)
{
	if (!h)
		return;
	sysfs_kernel_usage(g_fake->k, h->dev->name, -1);
	close(h->fd);
	unref(h->dev);
	free(h);
	g_fake->n_close++;
}

/* The device still there under its name (not a new one at its place). */
static bool still_there(const libusb_device *dev)
{
	uint8_t d[18];

	return read_file(dev->name, "descriptors", d, sizeof(d)) == 18 && !memcmp(d, dev->desc, 18);
}

int __wrap_libusb_get_string_descriptor_ascii(libusb_device_handle *h, uint8_t idx,
					      unsigned char *data, int length)
{
	const char *file = idx == h->dev->desc[14] ? "manufacturer" :
			   idx == h->dev->desc[15] ? "product" :
			   idx == h->dev->desc[16] ? "serial" :
						     NULL;
	char buf[256];
	int n;

	if (!still_there(h->dev))
		return LIBUSB_ERROR_NO_DEVICE;
	/* no such string: the device stalls the request */
	if (!idx || !file || read_text(h->dev->name, file, buf, sizeof(buf)) < 0)
		return LIBUSB_ERROR_PIPE;
	n = (int)strlen(buf);
	if (n > length - 1)
		n = length - 1;
	memcpy(data, buf, (size_t)n);
	data[n] = 0;
	return n;
}

/* GET_DESCRIPTOR (device, configuration by index) only. */
int __wrap_libusb_control_transfer(libusb_device_handle *h, uint8_t type, uint8_t req,
				   uint16_t value, uint16_t index, unsigned char *data,
				   uint16_t length, unsigned int timeout)
{
	static uint8_t buf[18 + 8 * 65536];
	uint8_t dt = (uint8_t)(value >> 8), di = (uint8_t)(value & 0xff);
	size_t off = 18, n;
	int got;

	if (type != LIBUSB_ENDPOINT_IN || req != LIBUSB_REQUEST_GET_DESCRIPTOR)
		return LIBUSB_ERROR_PIPE;
	if (!still_there(h->dev))
		return LIBUSB_ERROR_NO_DEVICE;
	got = read_file(h->dev->name, "descriptors", buf, sizeof(buf));
	if (got < 18)
		return LIBUSB_ERROR_IO;
	if (dt == LIBUSB_DT_DEVICE) {
		n = length < 18 ? length : 18;
		memcpy(data, buf, n);
		return (int)n;
	}
	if (dt != LIBUSB_DT_CONFIG || di >= buf[17])
		return LIBUSB_ERROR_PIPE;
	for (int i = 0;; i++) {
		size_t total;

		if ((size_t)got < off + 4)
			return LIBUSB_ERROR_IO;
		total = (size_t)(buf[off + 2] | buf[off + 3] << 8);
		if (i == di) {
			n = total < length ? total : length;
			if (off + n > (size_t)got)
				n = (size_t)got - off;
			memcpy(data, buf + off, n);
			return (int)n;
		}
		off += total;
	}
}

int __wrap_libusb_hotplug_register_callback(libusb_context *ctx, int events, int flags, int vid,
					    int pid, int dev_class, libusb_hotplug_callback_fn fn,
					    void *user, libusb_hotplug_callback_handle *handle)
{
	for (int i = 0; i < MAX_CBS; i++)
		if (!ctx->cb[i].used) {
			ctx->cb[i] = (struct hotplug_cb){ .used = true, .events = events, .vid = vid,
							  .pid = pid, .fn = fn, .user = user };
			/* as libusb: only later changes are reported (no
			 * LIBUSB_HOTPLUG_ENUMERATE here) */
			ctx->n_seen = look(ctx->seen, MAX_DEVS);
			if (handle)
				*handle = i + 1;
			return LIBUSB_SUCCESS;
		}
	return LIBUSB_ERROR_NO_MEM;
}

void __wrap_libusb_hotplug_deregister_callback(libusb_context *ctx,
					       libusb_hotplug_callback_handle handle)
{
	if (handle >= 1 && handle <= MAX_CBS)
		ctx->cb[handle - 1].used = false;
}

static bool in(const struct known *set, int n, const struct known *k)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(set[i].name, k->name) && !memcmp(set[i].desc, k->desc, 18))
			return true;
	return false;
}

static int fire(libusb_context *ctx, const struct known *kn, libusb_hotplug_event ev)
{
	int vid = kn->desc[8] | kn->desc[9] << 8, pid = kn->desc[10] | kn->desc[11] << 8, n = 0;

	for (int i = 0; i < MAX_CBS; i++) {
		struct hotplug_cb *cb = &ctx->cb[i];
		struct libusb_device *dev;

		if (!cb->used || !(cb->events & ev) ||
		    (cb->vid != LIBUSB_HOTPLUG_MATCH_ANY && cb->vid != vid) ||
		    (cb->pid != LIBUSB_HOTPLUG_MATCH_ANY && cb->pid != pid))
			continue;
		dev = new_dev(kn);
		if (cb->fn(ctx, dev, ev, cb->user))
			cb->used = false;
		unref(dev);
		g_fake->n_hotplug_fired++;
		n++;
	}
	return n;
}

/* Look at the tree every millisecond until something matching came or
 * went, or tv has passed. */
int __wrap_libusb_handle_events_timeout_completed(libusb_context *ctx, struct timeval *tv,
						  int *completed)
{
	struct timespec t0, t;
	int64_t wait_us = (int64_t)tv->tv_sec * 1000000 + tv->tv_usec;

	g_fake->n_events++;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		struct known now[MAX_DEVS];
		int n = look(now, MAX_DEVS), fired = 0;
		struct timespec ms = { 0, 1000000 };

		for (int i = 0; i < n; i++)
			if (!in(ctx->seen, ctx->n_seen, &now[i]))
				fired += fire(ctx, &now[i], LIBUSB_HOTPLUG_EVENT_DEVICE_ARRIVED);
		for (int i = 0; i < ctx->n_seen; i++)
			if (!in(now, n, &ctx->seen[i]))
				fired += fire(ctx, &ctx->seen[i], LIBUSB_HOTPLUG_EVENT_DEVICE_LEFT);
		memcpy(ctx->seen, now, sizeof(now[0]) * (size_t)n);
		ctx->n_seen = n;
		if (fired)
			return 0;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((t.tv_sec - t0.tv_sec) * 1000000 + (t.tv_nsec - t0.tv_nsec) / 1000 >= wait_us)
			return 0;
		nanosleep(&ms, NULL);
	}
}

/* The active configuration's interface I as a directory name. */
static int iface_name(libusb_device_handle *h, int i, char *buf, size_t len)
{
	char cfg[16], p[SK_PATH_LEN];

	if (read_text(h->dev->name, "bConfigurationValue", cfg, sizeof(cfg)) <= 0)
		return LIBUSB_ERROR_NOT_FOUND;
	if (snprintf(buf, len, "%s:%s.%d", h->dev->name, cfg, i) >= (int)len)
		return LIBUSB_ERROR_NOT_FOUND;
	dev_path(h->dev->name, buf, p, sizeof(p));
	return access(p, F_OK) == 0 ? 0 : LIBUSB_ERROR_NOT_FOUND;
}

static bool has_driver(libusb_device_handle *h, const char *iface)
{
	char rel[128], p[SK_PATH_LEN], link[SK_PATH_LEN];

	if (snprintf(rel, sizeof(rel), "%s/driver", iface) >= (int)sizeof(rel))
		return false;
	dev_path(h->dev->name, rel, p, sizeof(p));
	return readlink(p, link, sizeof(link)) > 0;
}

int __wrap_libusb_kernel_driver_active(libusb_device_handle *h, int i)
{
	char iface[64];
	int rc;

	if (!still_there(h->dev))
		return LIBUSB_ERROR_NO_DEVICE;
	rc = iface_name(h, i, iface, sizeof(iface));
	if (rc < 0)
		return rc;
	return has_driver(h, iface);
}

int __wrap_libusb_detach_kernel_driver(libusb_device_handle *h, int i)
{
	char iface[64];
	int rc;

	if (!still_there(h->dev))
		return LIBUSB_ERROR_NO_DEVICE;
	rc = iface_name(h, i, iface, sizeof(iface));
	if (rc < 0)
		return rc;
	if (sysfs_kernel_unbind(g_fake->k, iface) < 0)
		return LIBUSB_ERROR_NOT_FOUND;
	g_fake->n_detach++;
	return 0;
}

int __wrap_libusb_set_configuration(libusb_device_handle *h, int value)
{
	char cfg[16];
	int rc;

	if (!still_there(h->dev))
		return LIBUSB_ERROR_NO_DEVICE;
	/* devio.c proc_setconfig: not while any interface is claimed */
	if (read_text(h->dev->name, "bConfigurationValue", cfg, sizeof(cfg)) > 0)
		for (int i = 0; i < 32; i++) {
			char iface[64];

			if (iface_name(h, i, iface, sizeof(iface)) == 0 && has_driver(h, iface))
				return LIBUSB_ERROR_BUSY;
		}
	rc = sysfs_kernel_configure(g_fake->k, h->dev->name, value < 0 ? 0 : value);
	if (rc == -EINVAL)
		return LIBUSB_ERROR_NOT_FOUND;
	if (rc < 0)
		return rc == -ENOENT ? LIBUSB_ERROR_NO_DEVICE : LIBUSB_ERROR_IO;
	g_fake->n_set_config++;
	g_fake->last_set_config = value;
	return 0;
}
