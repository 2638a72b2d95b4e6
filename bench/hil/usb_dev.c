/* The device under test over libusb-1.0. Descriptors are read as bytes
 * with GET_DESCRIPTOR (libusb_get_descriptor) and parsed by
 * hil/usb_desc.c rather than taken from libusb's parsed structs, so the
 * real and the simulated device go through one parser. */
#define BN_LOG_MODULE "usb"
#include "hil/usb_dev.h"

#include <errno.h>
#include <libusb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/log.h"
#include "core/time.h"

#define POLL_MS 100          /* re-scan period without hotplug events */
#define CTRL_TIMEOUT_MS 1000 /* one GET_DESCRIPTOR */
#define CFG_MAX_LEN 65535    /* wTotalLength is 16 bits */

static int usb_start(libusb_context **ctx, struct bn_err *err)
{
	int rc = libusb_init(ctx);

	if (rc < 0) {
		*ctx = NULL;
		return bn_err_set(err, BN_ERR_IO,
				  "libusb: cannot start: %s (%s); is there a USB bus here "
				  "(/dev/bus/usb)?",
				  libusb_error_name(rc), libusb_strerror(rc));
	}
	return BN_OK;
}

static void get_string(libusb_device_handle *h, uint8_t idx, char *buf, size_t len)
{
	int n;

	buf[0] = 0;
	if (!h || !idx)
		return;
	n = libusb_get_string_descriptor_ascii(h, idx, (unsigned char *)buf, (int)len);
	if (n < 0)
		buf[0] = 0;
}

/* Fill s from dev; open it for the strings when it lets us. h_out (may
 * be NULL) keeps the handle open for the caller. */
static void describe(libusb_device *dev, struct bn_usb_seen *s, libusb_device_handle **h_out)
{
	struct libusb_device_descriptor dd;
	libusb_device_handle *h = NULL;

	memset(s, 0, sizeof(*s));
	s->bus = libusb_get_bus_number(dev);
	s->address = libusb_get_device_address(dev);
	/* The cached copy (no I/O) is enough to match VID:PID. */
	if (libusb_get_device_descriptor(dev, &dd) < 0)
		return;
	s->vid = dd.idVendor;
	s->pid = dd.idProduct;
	if (libusb_open(dev, &h) < 0)
		h = NULL;
	s->opened = h != NULL;
	get_string(h, dd.iManufacturer, s->manufacturer, sizeof(s->manufacturer));
	get_string(h, dd.iProduct, s->product, sizeof(s->product));
	get_string(h, dd.iSerialNumber, s->serial, sizeof(s->serial));
	if (h_out)
		*h_out = h;
	else if (h)
		libusb_close(h);
}

static bool matches(const struct bn_usb_spec *spec, const struct bn_usb_seen *s)
{
	if (s->vid != spec->vid || s->pid != spec->pid)
		return false;
	return !spec->has_serial || !strcmp(s->serial, spec->serial);
}

/* Where a device must be (bus 0: anywhere). */
struct usb_at {
	uint8_t bus, address;
};

static bool at_place(libusb_device *dev, const struct usb_at *at)
{
	return !at || !at->bus ||
	       (libusb_get_bus_number(dev) == at->bus && libusb_get_device_address(dev) == at->address);
}

/* One scan: the number of devices, the match (an open handle in *h when
 * h is not NULL), or none. */
static int scan_at(libusb_context *ctx, const struct bn_usb_spec *spec, const struct usb_at *at,
		   bn_usb_seen_fn fn, void *user, struct bn_usb_seen *found, bool *present,
		   libusb_device_handle **h, struct bn_err *err)
{
	libusb_device **list = NULL;
	ssize_t n = libusb_get_device_list(ctx, &list);

	if (present)
		*present = false;
	if (n < 0)
		return bn_err_set(err, BN_ERR_IO, "libusb: cannot list USB devices: %s",
				  libusb_error_name((int)n));
	for (ssize_t i = 0; i < n; i++) {
		struct bn_usb_seen s;
		libusb_device_handle *dh = NULL;

		/* A VID:PID mismatch needs no open: cheap first test. */
		if (spec && !fn) {
			struct libusb_device_descriptor dd;

			if (libusb_get_device_descriptor(list[i], &dd) < 0 ||
			    dd.idVendor != spec->vid || dd.idProduct != spec->pid ||
			    !at_place(list[i], at))
				continue;
		}
		describe(list[i], &s, h ? &dh : NULL);
		if (fn)
			fn(user, &s);
		/* at a known place the serial is not needed (nor readable from a
		 * device that cannot be opened) */
		if (spec && present && !*present &&
		    (at && at->bus ? s.vid == spec->vid && s.pid == spec->pid : matches(spec, &s))) {
			*present = true;
			if (found)
				*found = s;
			if (h)
				*h = dh;
			dh = NULL;
		}
		if (dh)
			libusb_close(dh);
	}
	libusb_free_device_list(list, 1);
	return (int)n;
}

static int scan(libusb_context *ctx, const struct bn_usb_spec *spec, bn_usb_seen_fn fn,
		void *user, struct bn_usb_seen *found, bool *present, libusb_device_handle **h,
		struct bn_err *err)
{
	return scan_at(ctx, spec, NULL, fn, user, found, present, h, err);
}

int bn_usb_list(bn_usb_seen_fn fn, void *user, struct bn_err *err)
{
	libusb_context *ctx;
	int rc = usb_start(&ctx, err);

	if (rc < 0)
		return rc;
	rc = scan(ctx, NULL, fn, user, NULL, NULL, NULL, err);
	libusb_exit(ctx);
	return rc;
}

static int not_found(const struct bn_usb_spec *spec, int n_seen, struct bn_err *err)
{
	char what[200];

	return bn_err_set(err, BN_ERR_IO, "no USB device %s found; %d USB device%s seen",
			  bn_usb_spec_str(spec, what, sizeof(what)), n_seen, n_seen == 1 ? "" : "s");
}

static int get_desc(libusb_device_handle *h, const struct bn_usb_spec *spec, uint8_t type,
		    uint8_t idx, uint8_t *buf, int len, struct bn_err *err)
{
	char what[200];
	int n = libusb_get_descriptor(h, type, idx, buf, len);

	if (n < 0)
		return bn_err_set(err, n == LIBUSB_ERROR_TIMEOUT ? BN_ERR_TIMEOUT : BN_ERR_IO,
				  "USB device %s: GET_DESCRIPTOR %s %u: %s",
				  bn_usb_spec_str(spec, what, sizeof(what)),
				  type == LIBUSB_DT_DEVICE ? "device" : "configuration", idx,
				  libusb_error_name(n));
	return n;
}

/* The descriptors through the shared parser; the parser's message gets
 * the device in front. */
static int read_descs(libusb_device_handle *h, const struct bn_usb_spec *spec,
		      struct bn_usb_desc *out, struct bn_err *err)
{
	struct bn_err e = { 0 };
	char what[200];
	uint8_t head[BN_USB_CONFIG_DESC_LEN];
	uint8_t *buf;
	unsigned unit;
	int n, rc;

	bn_usb_spec_str(spec, what, sizeof(what));
	memset(out, 0, sizeof(*out));
	{
		uint8_t dev[BN_USB_DEVICE_DESC_LEN];

		n = get_desc(h, spec, LIBUSB_DT_DEVICE, 0, dev, sizeof(dev), err);
		if (n < 0)
			return n;
		rc = bn_usb_parse_device(dev, (size_t)n, &out->dev, &e);
		if (rc < 0)
			return bn_err_set(err, rc, "USB device %s: %s", what, e.msg);
	}
	unit = bn_usb_power_unit_ma(&out->dev);
	switch (libusb_get_device_speed(libusb_get_device(h))) {
	case LIBUSB_SPEED_LOW:
	case LIBUSB_SPEED_FULL:
	case LIBUSB_SPEED_HIGH: unit = 2; break; /* a USB 3 device on a USB 2 link */
	case LIBUSB_SPEED_SUPER:
	case LIBUSB_SPEED_SUPER_PLUS: unit = 8; break;
	default: break;
	}
	buf = malloc(CFG_MAX_LEN);
	if (!buf)
		return bn_err_set(err, BN_ERR_NOMEM, "out of memory for descriptors");
	for (int i = 0; i < out->dev.num_configs; i++) {
		size_t total;

		/* The header first for wTotalLength, then the whole set. */
		n = get_desc(h, spec, LIBUSB_DT_CONFIG, (uint8_t)i, head, sizeof(head), err);
		if (n < 0)
			goto out;
		total = n >= 4 ? (size_t)(head[2] | head[3] << 8) : (size_t)n;
		if (total < (size_t)n)
			total = (size_t)n;
		n = get_desc(h, spec, LIBUSB_DT_CONFIG, (uint8_t)i, buf, (int)total, err);
		if (n < 0)
			goto out;
		rc = bn_usb_parse_config(buf, (size_t)n, unit, &out->cfg[i], &e);
		if (rc < 0) {
			n = bn_err_set(err, rc, "USB device %s: configuration index %d: %s", what, i,
				       e.msg);
			goto out;
		}
		out->n_configs = i + 1;
	}
	n = BN_OK;
out:
	free(buf);
	return n < 0 ? n : BN_OK;
}

static int not_at(const struct bn_usb_spec *spec, const struct usb_at *at, struct bn_err *err)
{
	char what[200];

	return bn_err_set(err, BN_ERR_IO, "no USB device %s on bus %u address %u",
			  bn_usb_spec_str(spec, what, sizeof(what)), at->bus, at->address);
}

/* The device found and opened (closed by the caller), or an error. */
static int find_open(libusb_context *ctx, const struct bn_usb_spec *spec, const struct usb_at *at,
		     struct bn_usb_seen *s, libusb_device_handle **h, struct bn_err *err)
{
	bool present;
	int rc = scan_at(ctx, spec, at, NULL, NULL, s, &present, h, err);

	if (rc >= 0 && !present)
		rc = at && at->bus ? not_at(spec, at, err) : not_found(spec, rc, err);
	if (rc >= 0 && !*h) {
		char what[200];

		rc = bn_err_set(err, BN_ERR_IO,
				"USB device %s on bus %u address %u: cannot open it (permissions? a "
				"udev rule for the bench user)",
				bn_usb_spec_str(spec, what, sizeof(what)), s->bus, s->address);
	}
	return rc;
}

static int read_at(const struct bn_usb_spec *spec, const struct usb_at *at,
		   struct bn_usb_desc *out, struct bn_usb_seen *seen, struct bn_err *err)
{
	libusb_context *ctx;
	libusb_device_handle *h = NULL;
	struct bn_usb_seen s;
	int rc = usb_start(&ctx, err);

	if (rc < 0)
		return rc;
	rc = find_open(ctx, spec, at, &s, &h, err);
	if (rc >= 0)
		rc = read_descs(h, spec, out, err);
	if (rc >= 0 && seen)
		*seen = s;
	if (h)
		libusb_close(h);
	libusb_exit(ctx);
	return rc < 0 ? rc : BN_OK;
}

int bn_usb_read(const struct bn_usb_spec *spec, struct bn_usb_desc *out,
		struct bn_usb_seen *seen, struct bn_err *err)
{
	return read_at(spec, NULL, out, seen, err);
}

int bn_usb_read_at(const struct bn_usb_spec *spec, uint8_t bus, uint8_t address,
		   struct bn_usb_desc *out, struct bn_err *err)
{
	struct usb_at at = { .bus = bus, .address = address };

	return read_at(spec, &at, out, NULL, err);
}

int bn_usb_set_config_at(const struct bn_usb_spec *spec, uint8_t bus, uint8_t address, int value,
			 struct bn_err *err)
{
	struct usb_at at = { .bus = bus, .address = address };
	libusb_context *ctx;
	libusb_device_handle *h = NULL;
	struct bn_usb_seen s;
	char what[200];
	int rc = usb_start(&ctx, err);

	if (rc < 0)
		return rc;
	bn_usb_spec_str(spec, what, sizeof(what));
	rc = find_open(ctx, spec, &at, &s, &h, err);
	/* The interfaces are those of the active configuration; a number
	 * with no interface just answers "no driver". */
	for (int i = 0; rc >= 0 && i < BN_USB_MAX_IFACES; i++) {
		int a = libusb_kernel_driver_active(h, i);

		if (a == LIBUSB_ERROR_NO_DEVICE)
			rc = bn_err_set(err, BN_ERR_FAULT, "USB device %s went away", what);
		if (a != 1)
			continue;
		a = libusb_detach_kernel_driver(h, i);
		if (a < 0 && a != LIBUSB_ERROR_NOT_FOUND)
			rc = bn_err_set(err, BN_ERR_IO,
					"USB device %s on bus %u address %u: cannot detach the kernel "
					"driver of interface %d: %s",
					what, bus, address, i, libusb_error_name(a));
	}
	if (rc >= 0) {
		/* libusb's -1 is "unconfigured" */
		int u = libusb_set_configuration(h, value == 0 ? -1 : value);

		if (u < 0)
			rc = bn_err_set(err, u == LIBUSB_ERROR_NO_DEVICE ? BN_ERR_FAULT : BN_ERR_IO,
					"USB device %s on bus %u address %u: SET_CONFIGURATION %d "
					"through usbfs: %s%s",
					what, bus, address, value, libusb_error_name(u),
					u == LIBUSB_ERROR_BUSY ? " (an interface is still claimed)" :
					u == LIBUSB_ERROR_NOT_FOUND ? " (no such configuration)" :
								      "");
	}
	if (h)
		libusb_close(h);
	libusb_exit(ctx);
	return rc < 0 ? rc : BN_OK;
}

static int64_t mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

struct hotplug_seen {
	bool changed;     /* re-scan */
	int64_t t_us;     /* the last event's time; -1 none yet */
};

static int LIBUSB_CALL on_hotplug(libusb_context *ctx, libusb_device *dev,
				  libusb_hotplug_event ev, void *user)
{
	struct hotplug_seen *hs = user;

	/* re-scan rather than look here: opening a device in a callback is
	 * not allowed, and the serial needs an open */
	hs->changed = true;
	hs->t_us = mono_us();
	return 0;
}

/* Wait for the device to be present (want) or absent (!want). */
static int usb_wait(const struct bn_usb_spec *spec, bool want, int timeout_ms,
		    volatile const sig_atomic_t *stop, struct bn_usb_seen *seen,
		    struct bn_usb_when *when, struct bn_err *err)
{
	libusb_context *ctx;
	libusb_hotplug_callback_handle cb = 0;
	struct hotplug_seen hs = { .changed = true, .t_us = -1 };
	bool have_cb = false, present = false, first = true;
	int64_t deadline = bn_deadline_ms(timeout_ms);
	char what[200];
	int n = 0, rc = usb_start(&ctx, err);

	if (rc < 0)
		return rc;
	if (libusb_has_capability(LIBUSB_CAP_HAS_HOTPLUG))
		have_cb = libusb_hotplug_register_callback(
				  ctx, LIBUSB_HOTPLUG_EVENT_DEVICE_ARRIVED | LIBUSB_HOTPLUG_EVENT_DEVICE_LEFT,
				  0, spec->vid, spec->pid, LIBUSB_HOTPLUG_MATCH_ANY, on_hotplug,
				  &hs, &cb) == LIBUSB_SUCCESS;
	for (;;) {
		int64_t left;

		if (hs.changed || !have_cb) {
			int64_t t_scan = mono_us();

			hs.changed = false;
			rc = scan(ctx, spec, NULL, NULL, seen, &present, NULL, err);
			if (rc < 0)
				break;
			n = rc;
			if (present == want) {
				if (when) {
					when->at_start = first;
					when->hotplug = !first && hs.t_us >= 0;
					when->t_us = when->hotplug ? hs.t_us : t_scan;
				}
				rc = BN_OK;
				break;
			}
			first = false;
		}
		if (stop && *stop) {
			rc = bn_err_set(err, BN_ERR_INTR, "waiting for USB device %s to %s: "
							  "interrupted",
					bn_usb_spec_str(spec, what, sizeof(what)),
					want ? "attach" : "detach");
			break;
		}
		left = bn_ms_left(deadline);
		if (left <= 0) {
			rc = bn_err_set(err, BN_ERR_TIMEOUT,
					"USB device %s did not %s within %d ms; %d USB device%s seen",
					bn_usb_spec_str(spec, what, sizeof(what)),
					want ? "attach" : "detach", timeout_ms, n, n == 1 ? "" : "s");
			break;
		}
		if (left > POLL_MS)
			left = POLL_MS;
		if (have_cb) {
			struct timeval tv = { .tv_sec = 0, .tv_usec = (long)left * 1000 };

			libusb_handle_events_timeout_completed(ctx, &tv, NULL);
		} else {
			struct timespec ts = { .tv_sec = 0, .tv_nsec = (long)left * 1000000L };

			while (nanosleep(&ts, &ts) < 0 && errno == EINTR && !(stop && *stop))
				;
		}
	}
	if (have_cb)
		libusb_hotplug_deregister_callback(ctx, cb);
	libusb_exit(ctx);
	return rc;
}

int bn_usb_wait_attach(const struct bn_usb_spec *spec, int timeout_ms,
		       volatile const sig_atomic_t *stop, struct bn_usb_seen *seen,
		       struct bn_err *err)
{
	return usb_wait(spec, true, timeout_ms, stop, seen, NULL, err);
}

int bn_usb_wait_detach(const struct bn_usb_spec *spec, int timeout_ms,
		       volatile const sig_atomic_t *stop, struct bn_err *err)
{
	return usb_wait(spec, false, timeout_ms, stop, NULL, NULL, err);
}

int bn_usb_wait_attach_at(const struct bn_usb_spec *spec, int timeout_ms,
			  volatile const sig_atomic_t *stop, struct bn_usb_seen *seen,
			  struct bn_usb_when *when, struct bn_err *err)
{
	return usb_wait(spec, true, timeout_ms, stop, seen, when, err);
}

int bn_usb_wait_detach_at(const struct bn_usb_spec *spec, int timeout_ms,
			  volatile const sig_atomic_t *stop, struct bn_usb_when *when,
			  struct bn_err *err)
{
	return usb_wait(spec, false, timeout_ms, stop, NULL, when, err);
}
