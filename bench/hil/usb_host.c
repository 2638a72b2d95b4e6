/* The host side of a run through sysfs (Documentation/ABI/testing/
 * sysfs-bus-usb and Documentation/driver-api/usb/power-management.rst in
 * the kernel tree). Attributes are read and written whole with one
 * read() or write(), as sysfs expects; O_TRUNC keeps a regular file (the
 * tests' tree) from keeping a longer old value's tail and means nothing
 * to sysfs. */
#define BN_LOG_MODULE "usb"
#include "hil/usb_host.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/log.h"
#include "core/text.h"
#include "core/time.h"

#define DEVICES_DIR "/bus/usb/devices"
#define DESC_MAX (BN_USB_DEVICE_DESC_LEN + BN_USB_MAX_CONFIGS * 65535)
#define UDEV_RULE "fixtures/udev/61-bcbench-dut.rules"

int64_t bn_usb_host_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* dir/rel into buf; false when it does not fit. */
static bool path_of(char *buf, size_t len, const char *dir, const char *rel)
{
	return bn_str_fmt(buf, len, "%s/%s", dir, rel);
}

/* One attribute's text without its trailing newline and blanks: its
 * length, or -errno. */
static int attr_read(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC), e;

	buf[0] = 0;
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	e = errno;
	close(fd);
	if (n < 0)
		return -e;
	while (n > 0 && isspace((unsigned char)buf[n - 1]))
		n--;
	buf[n] = 0;
	return (int)n;
}

static int attr_write(const char *path, const char *text)
{
	size_t len = strlen(text);
	ssize_t n;
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC), e = 0;

	if (fd < 0)
		return -errno;
	n = write(fd, text, len);
	if (n < 0)
		e = errno;
	else if ((size_t)n != len)
		e = EIO;
	/* sysfs reports a store's error at write(); close() adds nothing */
	close(fd);
	return -e;
}

static int dev_read(const struct bn_usb_host *h, const char *rel, char *buf, size_t len)
{
	char p[BN_USB_HOST_PATH_LEN];

	if (!path_of(p, sizeof(p), h->dir, rel))
		return -ENAMETOOLONG;
	return attr_read(p, buf, len);
}

/* An integer attribute; def when missing or not a number. */
static long dev_read_long(const struct bn_usb_host *h, const char *rel, long def)
{
	char buf[32], *end;
	long v;

	if (dev_read(h, rel, buf, sizeof(buf)) <= 0)
		return def;
	errno = 0;
	v = strtol(buf, &end, 10);
	return errno || *end ? def : v;
}

/* bConfigurationValue: empty while unconfigured (the kernel shows
 * nothing then). -errno when it cannot be read; -EAGAIN for a value the
 * kernel never shows (a write of -1 not yet acted on, in a tree where
 * something else plays the kernel). */
static int read_config(const struct bn_usb_host *h)
{
	char buf[16];
	int n = dev_read(h, "bConfigurationValue", buf, sizeof(buf)), v;

	if (n < 0)
		return n;
	v = n == 0 ? 0 : atoi(buf);
	return v < 0 ? -EAGAIN : v;
}

static bool read_failed(int c)
{
	return c < 0 && c != -EAGAIN;
}

static const char *what(const struct bn_usb_host *h, char *buf, size_t len)
{
	char s[200];

	snprintf(buf, len, "USB device %s (%s)", bn_usb_spec_str(&h->spec, s, sizeof(s)), h->name);
	return buf;
}

/* The errno's likely cause on a sysfs write. */
static const char *write_cause(int e)
{
	switch (e) {
	case EACCES:
	case EPERM:
	case EROFS:
		return "writing it needs root, or the udev rule " UDEV_RULE
		       " (group write for the bench user)";
	case ENOENT:
	case ENODEV:
		return "the device went away";
	case EINVAL:
		return "the kernel refused the value";
	default:
		return "";
	}
}

static int write_err(struct bn_err *err, const struct bn_usb_host *h, const char *rel, int e,
		     const char *cause)
{
	char w[300], et[128];

	if (!cause || !*cause)
		cause = write_cause(e);
	return bn_err_set(err,
			  e == EACCES || e == EPERM || e == EROFS ? BN_ERR_ENV :
			  e == ENOENT || e == ENODEV		  ? BN_ERR_FAULT :
								    BN_ERR_IO,
			  "%s: %s/%s: cannot write: %s%s%s", what(h, w, sizeof(w)), h->dir, rel,
			  bn_errno_text(e, et, sizeof(et)), *cause ? ": " : "", cause);
}

static void ev_init(struct bn_usb_host_ev *ev, enum bn_usb_host_act act, const struct bn_usb_host *h)
{
	memset(ev, 0, sizeof(*ev));
	ev->act = act;
	ev->t_cmd_us = ev->t_cmd_end_us = ev->t_seen_us = -1;
	ev->poll_us = h->poll_us;
	ev->config_before = ev->config_after = ev->config_asked = -1;
}

static int ev_done(struct bn_usb_host_ev *ev, int rc)
{
	ev->rc = rc < 0 ? rc : BN_OK;
	return ev->rc;
}

/* A device directory's name: "1-1", "1-1.2", "usb1"; not an interface
 * ("1-1:1.0") nor a hidden entry. */
static bool device_name(const char *n)
{
	return n[0] != '.' && !strchr(n, ':') && strlen(n) < BN_USB_HOST_NAME_LEN;
}

static unsigned hex_attr(const char *dir, const char *rel, bool *ok)
{
	char p[BN_USB_HOST_PATH_LEN], buf[16], *end;
	unsigned long v;

	*ok = false;
	if (!path_of(p, sizeof(p), dir, rel) || attr_read(p, buf, sizeof(buf)) <= 0)
		return 0;
	v = strtoul(buf, &end, 16);
	*ok = !*end && v <= 0xffff;
	return (unsigned)v;
}

static bool dir_matches(const char *dir, const struct bn_usb_spec *spec)
{
	char p[BN_USB_HOST_PATH_LEN], serial[BN_USB_STR_LEN];
	bool ok_v, ok_p;
	unsigned vid = hex_attr(dir, "idVendor", &ok_v), pid = hex_attr(dir, "idProduct", &ok_p);

	if (!ok_v || !ok_p || vid != spec->vid || pid != spec->pid)
		return false;
	if (!spec->has_serial)
		return true;
	/* no serial file: the device has no serial string */
	return path_of(p, sizeof(p), dir, "serial") && attr_read(p, serial, sizeof(serial)) >= 0 &&
	       !strcmp(serial, spec->serial);
}

/* The device's directory name into h->name. */
static int find_dir(struct bn_usb_host *h, struct bn_err *err)
{
	char base[BN_USB_HOST_PATH_LEN], s[200], names[200] = "";
	struct dirent *de;
	DIR *d;
	int n_dev = 0, n_match = 0;

	snprintf(base, sizeof(base), "%s" DEVICES_DIR, h->root);
	d = opendir(base);
	if (!d) {
		char et[128];
		int e = errno;

		return bn_err_set(err, BN_ERR_FAULT, "%s: cannot list: %s (is this Linux sysfs?)", base,
				  bn_errno_text(e, et, sizeof(et)));
	}
	while ((de = readdir(d))) {
		char dir[BN_USB_HOST_PATH_LEN];

		if (!device_name(de->d_name) || !path_of(dir, sizeof(dir), base, de->d_name))
			continue;
		n_dev++;
		if (!dir_matches(dir, &h->spec))
			continue;
		/* readdir order is the directory's: keep the smallest name, so
		 * the choice does not depend on it */
		if (!n_match++ || strcmp(de->d_name, h->name) < 0)
			bn_str_copy(h->name, sizeof(h->name), de->d_name);
		if (strlen(names) + strlen(de->d_name) + 3 < sizeof(names))
			bn_str_fmt(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
				   n_match > 1 ? ", " : "", de->d_name);
	}
	closedir(d);
	bn_usb_spec_str(&h->spec, s, sizeof(s));
	if (n_match == 0)
		return bn_err_set(err, BN_ERR_FAULT,
				  "no USB device %s under %s (%d USB device%s there): is it plugged "
				  "in and enumerated?",
				  s, base, n_dev, n_dev == 1 ? "" : "s");
	if (n_match > 1)
		return bn_err_set(err, BN_ERR_ARG,
				  "%d USB devices match %s under %s (%s): give dut_usb the serial "
				  "(VID:PID:SERIAL)",
				  n_match, s, base, names);
	return BN_OK;
}

/* bMaxPower's unit from the link speed the kernel shows: 8 mA on a
 * SuperSpeed link, 2 mA below (a USB 3 device on a USB 2 port too). */
static unsigned power_unit(const struct bn_usb_host *h)
{
	double mbps = atof(h->speed);

	if (mbps <= 0)
		return bn_usb_power_unit_ma(&h->desc.dev);
	return mbps >= 5000 ? 8 : 2;
}

/* The descriptors file: the device descriptor, then every configuration's
 * full set, each wTotalLength long, in index order. */
static int read_descriptors(struct bn_usb_host *h, struct bn_err *err)
{
	char p[BN_USB_HOST_PATH_LEN], w[300], et[128];
	struct bn_err e = { 0 };
	uint8_t *buf = malloc(DESC_MAX);
	size_t len = 0, off;
	int fd, rc = BN_OK;

	if (!buf)
		return bn_err_set(err, BN_ERR_NOMEM, "out of memory for descriptors");
	what(h, w, sizeof(w));
	if (!path_of(p, sizeof(p), h->dir, "descriptors")) {
		free(buf);
		return bn_err_set(err, BN_ERR_ARG, "%s: path too long", h->dir);
	}
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int en = errno;

		free(buf);
		return bn_err_set(err, BN_ERR_IO, "%s: %s: cannot open: %s", w, p,
				  bn_errno_text(en, et, sizeof(et)));
	}
	for (;;) {
		ssize_t n = read(fd, buf + len, DESC_MAX - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int en = errno;

			rc = bn_err_set(err, BN_ERR_IO, "%s: %s: cannot read: %s", w, p,
					bn_errno_text(en, et, sizeof(et)));
			break;
		}
		if (n == 0 || (len += (size_t)n) == DESC_MAX)
			break;
	}
	close(fd);
	memset(&h->desc, 0, sizeof(h->desc));
	if (rc == BN_OK) {
		rc = bn_usb_parse_device(buf, len, &h->desc.dev, &e);
		if (rc < 0)
			rc = bn_err_set(err, rc, "%s: %s: %s", w, p, e.msg);
	}
	off = BN_USB_DEVICE_DESC_LEN;
	for (int i = 0; rc == BN_OK && i < h->desc.dev.num_configs; i++) {
		size_t total;

		if (len - off < 4) {
			rc = bn_err_set(err, BN_ERR_DATA,
					"%s: %s: %zu bytes, configuration index %d of %u missing", w, p,
					len, i, h->desc.dev.num_configs);
			break;
		}
		rc = bn_usb_parse_config(buf + off, len - off, power_unit(h), &h->desc.cfg[i], &e);
		if (rc < 0) {
			rc = bn_err_set(err, rc, "%s: %s: configuration index %d (offset %zu): %s", w, p,
					i, off, e.msg);
			break;
		}
		total = h->desc.cfg[i].total_length;
		off += total;
		h->desc.n_configs = i + 1;
	}
	free(buf);
	return rc;
}

int bn_usb_host_open(struct bn_usb_host *h, const char *sysfs_root, const struct bn_usb_spec *spec,
		     struct bn_usb_host_ev *ev, struct bn_err *err)
{
	struct bn_usb_host_ev dummy;
	char w[300], buf[32];
	int rc;

	if (!ev)
		ev = &dummy;
	memset(h, 0, sizeof(*h));
	h->poll_us = BN_USB_HOST_POLL_US;
	ev_init(ev, BN_USB_HOST_FOUND, h);
	if (!sysfs_root || strlen(sysfs_root) >= sizeof(h->root))
		return ev_done(ev, bn_err_set(err, BN_ERR_ARG, "sysfs root \"%.100s\": missing or too long",
					      sysfs_root ? sysfs_root : ""));
	bn_str_copy(h->root, sizeof(h->root), sysfs_root);
	h->spec = *spec;
	rc = find_dir(h, err);
	if (rc < 0)
		return ev_done(ev, rc);
	snprintf(h->dir, sizeof(h->dir), "%s" DEVICES_DIR "/%s", h->root, h->name);
	h->busnum = (unsigned)dev_read_long(h, "busnum", 0);
	h->devnum = (unsigned)dev_read_long(h, "devnum", 0);
	if (dev_read(h, "speed", buf, sizeof(buf)) > 0)
		bn_str_copy(h->speed, sizeof(h->speed), buf);
	/* for the record: who the device says it is (absent files: none) */
	if (dev_read(h, "manufacturer", h->manufacturer, sizeof(h->manufacturer)) < 0)
		h->manufacturer[0] = '\0';
	if (dev_read(h, "product", h->product, sizeof(h->product)) < 0)
		h->product[0] = '\0';
	if (dev_read(h, "serial", h->serial, sizeof(h->serial)) < 0)
		h->serial[0] = '\0';
	h->num_configs = (int)dev_read_long(h, "bNumConfigurations", -1);
	rc = read_descriptors(h, err);
	if (rc == BN_OK && h->num_configs != h->desc.dev.num_configs)
		rc = bn_err_set(err, BN_ERR_DATA,
				"%s: %s/bNumConfigurations reads %d, its descriptors say %u", what(h, w, sizeof(w)),
				h->dir, h->num_configs, h->desc.dev.num_configs);
	if (rc < 0)
		return ev_done(ev, rc);
	h->config = read_config(h);
	ev->t_seen_us = bn_usb_host_now_us();
	ev->config_after = h->config < 0 ? -1 : h->config;
	if (h->config < 0)
		h->config = 0;
	dev_read(h, "power/runtime_status", ev->state, sizeof(ev->state));
	bn_dbg("%s: bus %u device %u, speed %s, %d configuration%s, in %d", what(h, w, sizeof(w)),
	       h->busnum, h->devnum, h->speed, h->desc.n_configs, h->desc.n_configs == 1 ? "" : "s",
	       h->config);
	return ev_done(ev, BN_OK);
}

/* Each interface of the active configuration: "NAME:C.I" entries of the
 * device directory. Returns how many (at most max). */
static int list_ifaces(const struct bn_usb_host *h, struct bn_usb_host_iface *ifs, int max)
{
	struct dirent *de;
	size_t nl = strlen(h->name);
	DIR *d = opendir(h->dir);
	int n = 0;

	if (!d)
		return 0;
	while (n < max && (de = readdir(d))) {
		char p[BN_USB_HOST_PATH_LEN], link[BN_USB_HOST_PATH_LEN], buf[8];
		struct bn_usb_host_iface *f = &ifs[n];
		ssize_t ln;

		if (strncmp(de->d_name, h->name, nl) || de->d_name[nl] != ':' ||
		    strlen(de->d_name) >= sizeof(f->name))
			continue;
		memset(f, 0, sizeof(*f));
		bn_str_copy(f->name, sizeof(f->name), de->d_name);
		bn_str_fmt(p, sizeof(p), "%s/%s/driver", h->dir, de->d_name);
		ln = readlink(p, link, sizeof(link) - 1);
		if (ln > 0) {
			const char *base;

			link[ln] = 0;
			base = strrchr(link, '/');
			bn_str_copy(f->driver, sizeof(f->driver), base ? base + 1 : link);
		}
		bn_str_fmt(p, sizeof(p), "%s/%s/supports_autosuspend", h->dir, de->d_name);
		f->supports_autosuspend = attr_read(p, buf, sizeof(buf)) > 0 ? atoi(buf) : -1;
		n++;
	}
	closedir(d);
	/* readdir order is the directory's: the report should not depend on it */
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && strcmp(ifs[j - 1].name, ifs[j].name) > 0; j--) {
			struct bn_usb_host_iface t = ifs[j];

			ifs[j] = ifs[j - 1];
			ifs[j - 1] = t;
		}
	return n;
}


static const struct bn_usb_config_desc *cfg_of(const struct bn_usb_host *h, int value)
{
	for (int i = 0; i < h->desc.n_configs; i++)
		if (h->desc.cfg[i].value == value)
			return &h->desc.cfg[i];
	return NULL;
}

/* The configuration the kernel has the device in: bConfigurationValue,
 * confirmed by the interface directories the kernel makes for it (one
 * NAME:V.I per bNumInterfaces, of V only). Real sysfs is consistent once
 * a write returns; whatever else plays the kernel may still be at work:
 * -EAGAIN while the two disagree. -errno when bConfigurationValue cannot
 * be read. */
static int settled_config(const struct bn_usb_host *h, int *file_value)
{
	struct bn_usb_host_iface ifs[BN_USB_MAX_IFACES];
	const struct bn_usb_config_desc *cfg;
	int c = read_config(h), n;
	size_t nl = strlen(h->name);

	*file_value = c;
	if (c < 0)
		return c;
	n = list_ifaces(h, ifs, BN_USB_MAX_IFACES);
	for (int i = 0; i < n; i++)
		if (atoi(ifs[i].name + nl + 1) != c)
			return -EAGAIN;
	cfg = cfg_of(h, c);
	if (c > 0 && cfg && n != cfg->num_interfaces)
		return -EAGAIN;
	return c;
}

static bool stopped(volatile const sig_atomic_t *stop)
{
	return stop && *stop;
}

int bn_usb_host_wait_configured(struct bn_usb_host *h, int timeout_ms,
				volatile const sig_atomic_t *stop, struct bn_usb_host_ev *ev,
				struct bn_err *err)
{
	struct bn_usb_host_ev dummy;
	int64_t deadline = bn_deadline_ms(timeout_ms);
	char w[300];
	bool first = true;

	if (!ev)
		ev = &dummy;
	ev_init(ev, BN_USB_HOST_KERNEL_CONFIG, h);
	for (;;) {
		int f, c = settled_config(h, &f);

		if (read_failed(f)) {
			char et[128];

			return ev_done(ev, bn_err_set(err, BN_ERR_FAULT,
						      "%s: %s/bConfigurationValue: cannot read: %s (the "
						      "device went away?)",
						      what(h, w, sizeof(w)), h->dir,
						      bn_errno_text(-f, et, sizeof(et))));
		}
		ev->config_after = h->config = f < 0 ? 0 : f;
		if (c > 0) {
			ev->t_seen_us = bn_usb_host_now_us();
			ev->already = first;
			return ev_done(ev, BN_OK);
		}
		first = false;
		if (stopped(stop))
			return ev_done(ev, bn_err_set(err, BN_ERR_INTR,
						      "%s: waiting for the kernel to configure it: "
						      "interrupted",
						      what(h, w, sizeof(w))));
		if (bn_ms_left(deadline) <= 0)
			return ev_done(
				ev, bn_err_set(err, BN_ERR_TIMEOUT,
					       "%s: still unconfigured after %d ms (%s/bConfigurationValue "
					       "empty): the kernel chose no configuration; it rejects "
					       "those whose bMaxPower exceeds what the port can give "
					       "(\"insufficient available bus power\" in the kernel log)",
					       what(h, w, sizeof(w)), timeout_ms, h->dir));
		bn_sleep_us(h->poll_us);
	}
}

static bool advertised(const struct bn_usb_host *h, int value)
{
	for (int i = 0; i < h->desc.n_configs; i++)
		if (h->desc.cfg[i].value == value)
			return true;
	return false;
}

static void list_values(const struct bn_usb_host *h, char *buf, size_t len)
{
	buf[0] = 0;
	for (int i = 0; i < h->desc.n_configs; i++)
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%u", i ? ", " : "",
			 h->desc.cfg[i].value);
}

int bn_usb_host_set_config(struct bn_usb_host *h, int value, int timeout_ms,
			   struct bn_usb_host_ev *ev, struct bn_err *err)
{
	struct bn_usb_host_ev dummy;
	int64_t deadline;
	char w[300], text[16];
	int e, c;

	if (!ev)
		ev = &dummy;
	ev_init(ev, BN_USB_HOST_SET_CONFIG, h);
	ev->config_asked = value;
	what(h, w, sizeof(w));
	if (value < 0 || value > 255 || (value > 0 && !advertised(h, value))) {
		char vals[64];

		list_values(h, vals, sizeof(vals));
		return ev_done(ev, bn_err_set(err, BN_ERR_ARG,
					      "%s: no configuration %d: its descriptors advertise %s "
					      "(%s/descriptors)",
					      w, value, vals, h->dir));
	}
	c = read_config(h);
	ev->config_before = c < 0 ? -1 : c;
	/* -1 unconfigures; 0 would install a (non-conforming) configuration 0 */
	snprintf(text, sizeof(text), "%d", value == 0 ? -1 : value);
	{
		char p[BN_USB_HOST_PATH_LEN];

		if (!path_of(p, sizeof(p), h->dir, "bConfigurationValue"))
			return ev_done(ev, bn_err_set(err, BN_ERR_ARG, "%s: path too long", h->dir));
		ev->t_cmd_us = bn_usb_host_now_us();
		e = -attr_write(p, text);
		ev->t_cmd_end_us = bn_usb_host_now_us();
	}
	if (e == 0) {
		ev->route = BN_USB_ROUTE_SYSFS;
	} else if (e == EACCES || e == EPERM || e == EROFS) {
		struct bn_err ue = { 0 };
		char et[128];

		/* usbfs asks only for the device node (a udev rule for the
		 * bench user), not for root */
		ev->t_cmd_us = bn_usb_host_now_us();
		if (bn_usb_set_config_at(&h->spec, (uint8_t)h->busnum, (uint8_t)h->devnum, value, &ue) < 0) {
			ev->t_cmd_end_us = bn_usb_host_now_us();
			return ev_done(ev, bn_err_set(err, ue.code == BN_ERR_FAULT ? BN_ERR_FAULT : BN_ERR_ENV,
						      "%s: %s/bConfigurationValue: cannot write: %s: %s; "
						      "nor through usbfs: %s",
						      w, h->dir, bn_errno_text(e, et, sizeof(et)),
						      write_cause(e), ue.msg));
		}
		ev->t_cmd_end_us = bn_usb_host_now_us();
		ev->route = BN_USB_ROUTE_USBFS;
		bn_info("%s: bConfigurationValue is not writable here (%s): configuration %d set "
			"through usbfs",
			w, bn_errno_text(e, et, sizeof(et)), value);
	} else {
		return ev_done(ev, write_err(err, h, "bConfigurationValue", e,
					     e == EINVAL ? "the kernel knows no such configuration" : NULL));
	}
	/* Both routes are synchronous in the kernel; the read-back waits
	 * only for whatever else plays the kernel. */
	deadline = bn_deadline_ms(timeout_ms);
	for (;;) {
		int settled = settled_config(h, &c);

		ev->config_after = c < 0 ? -1 : c;
		if (settled == value) {
			ev->t_seen_us = bn_usb_host_now_us();
			h->config = c;
			return ev_done(ev, BN_OK);
		}
		if (read_failed(c) || bn_ms_left(deadline) <= 0)
			break;
		bn_sleep_us(h->poll_us);
	}
	if (c >= 0)
		h->config = c;
	if (read_failed(c)) {
		char et[128];

		return ev_done(ev, bn_err_set(err, BN_ERR_FAULT,
					      "%s: %s/bConfigurationValue: cannot read back: %s (the "
					      "device went away?)",
					      w, h->dir, bn_errno_text(-c, et, sizeof(et))));
	}
	{
		char got[48];

		if (c < 0)
			bn_str_copy(got, sizeof(got), "-1 (the kernel has not acted)");
		else
			snprintf(got, sizeof(got), "%d", c);
		return ev_done(ev, bn_err_set(err, BN_ERR_FAULT,
					      "%s: configuration %d asked (%s), but "
					      "%s/bConfigurationValue reads %s after %d ms%s",
					      w, value, bn_usb_host_route_name(ev->route), h->dir, got,
					      timeout_ms,
					      c == value ? " and its interface directories are another "
							   "configuration's" :
							   ""));
	}
}

/* power/control and autosuspend_delay_ms as they were, once. */
static int save_pm(struct bn_usb_host *h, struct bn_err *err)
{
	char w[300], et[128];
	int n;

	if (h->pm_saved)
		return BN_OK;
	n = dev_read(h, "power/control", h->saved_control, sizeof(h->saved_control));
	if (n <= 0)
		return bn_err_set(err, n == -ENOENT ? BN_ERR_NA : BN_ERR_IO,
				  "%s: %s/power/control: cannot read: %s: no runtime power "
				  "management for it (a kernel without CONFIG_PM?)",
				  what(h, w, sizeof(w)), h->dir,
				  n < 0 ? bn_errno_text(-n, et, sizeof(et)) : "empty");
	if (dev_read(h, "power/autosuspend_delay_ms", h->saved_delay, sizeof(h->saved_delay)) <= 0)
		h->saved_delay[0] = 0;
	h->pm_saved = true;
	return BN_OK;
}

static const struct bn_usb_config_desc *active_cfg(const struct bn_usb_host *h)
{
	return cfg_of(h, h->config);
}

/* Why the kernel keeps it active, from what sysfs shows, most specific
 * first; the sentence into why. */
static void diagnose(struct bn_usb_host *h, struct bn_usb_host_ev *ev, char *why, size_t len)
{
	struct bn_usb_host_iface ifs[BN_USB_MAX_IFACES];
	char control[16] = "";
	long delay = dev_read_long(h, "power/autosuspend_delay_ms", 0);
	long usage = dev_read_long(h, "power/runtime_usage", -1);
	long kids = dev_read_long(h, "power/runtime_active_kids", -1);
	int n = list_ifaces(h, ifs, BN_USB_MAX_IFACES), bound = 0, c = read_config(h);
	const struct bn_usb_host_iface *nopm = NULL;
	const struct bn_usb_config_desc *cfg;

	h->config = c > 0 ? c : 0;
	cfg = active_cfg(h);
	dev_read(h, "power/control", control, sizeof(control));
	for (int i = 0; i < n; i++) {
		bound += ifs[i].driver[0] != 0;
		if (ifs[i].driver[0] && ifs[i].supports_autosuspend == 0 && !nopm)
			nopm = &ifs[i];
	}
	if (!strcmp(ev->state, "unsupported") || !strcmp(ev->state, "error")) {
		ev->block = BN_USB_BLOCK_RPM_OFF;
		bn_str_fmt(why, len,
			 "power/runtime_status reads \"%s\": runtime power management is %s for it",
			 ev->state, !strcmp(ev->state, "error") ? "in error" : "disabled");
	} else if (strcmp(control, "auto")) {
		ev->block = BN_USB_BLOCK_CONTROL_ON;
		bn_str_fmt(why, len,
			 "power/control reads \"%s\" again: something wrote it back (a udev rule, a "
			 "power tool, a driver calling usb_disable_autosuspend)",
			 control);
	} else if (delay < 0) {
		ev->block = BN_USB_BLOCK_DELAY;
		ev->block_count = delay;
		bn_str_fmt(why, len, "power/autosuspend_delay_ms reads %ld: negative means never", delay);
	} else if (nopm) {
		ev->block = BN_USB_BLOCK_DRIVER;
		bn_str_copy(ev->block_iface, sizeof(ev->block_iface), nopm->name);
		bn_str_copy(ev->block_driver, sizeof(ev->block_driver), nopm->driver);
		bn_str_fmt(why, len,
			 "interface %s is bound to driver \"%s\", which does not support autosuspend "
			 "(%s/supports_autosuspend 0): the kernel never suspends a device while such "
			 "a driver is bound; unbind it (write %s to %s/bus/usb/drivers/%s/unbind) or "
			 "use a firmware whose interfaces have drivers that support it",
			 ev->block_iface, ev->block_driver, ev->block_iface, ev->block_iface, h->root,
			 ev->block_driver);
	} else if (usage > 0) {
		ev->block = BN_USB_BLOCK_USAGE;
		ev->block_count = usage;
		bn_str_fmt(why, len,
			 "power/runtime_usage reads %ld: the device is held busy (an open usbfs "
			 "file, e.g. a libusb program, or a driver)",
			 usage);
	} else if (kids > 0) {
		ev->block = BN_USB_BLOCK_KIDS;
		ev->block_count = kids;
		bn_str_fmt(why, len,
			 "power/runtime_active_kids reads %ld: an interface is busy (its driver holds "
			 "it, e.g. an open tty)",
			 kids);
	} else if (bound && cfg && !cfg->remote_wakeup) {
		ev->block = BN_USB_BLOCK_WAKEUP;
		bn_str_fmt(why, len,
			 "%d interface%s bound to drivers, and configuration %d offers no remote "
			 "wakeup (bmAttributes bit 5): a driver that needs it (cdc_acm with its tty "
			 "open, usbhid) keeps the device active",
			 bound, bound == 1 ? " is" : "s are", h->config);
	} else {
		ev->block = BN_USB_BLOCK_UNKNOWN;
		bn_str_fmt(why, len,
			 "sysfs shows no reason (power/runtime_usage is shown only by kernels with "
			 "CONFIG_PM_ADVANCED_DEBUG; another program with the device's usbfs file open "
			 "keeps it active)");
	}
}

/* Poll runtime_status until it reads want. */
static int wait_state(struct bn_usb_host *h, const char *want, int timeout_ms,
		      volatile const sig_atomic_t *stop, struct bn_usb_host_ev *ev, struct bn_err *err)
{
	int64_t deadline = bn_deadline_ms(timeout_ms);
	char w[300];

	what(h, w, sizeof(w));
	for (;;) {
		int n = dev_read(h, "power/runtime_status", ev->state, sizeof(ev->state));

		if (n < 0) {
			char et[128];

			return bn_err_set(err, n == -ENOENT || n == -ENODEV ? BN_ERR_FAULT : BN_ERR_IO,
					  "%s: %s/power/runtime_status: cannot read: %s", w, h->dir,
					  bn_errno_text(-n, et, sizeof(et)));
		}
		if (!strcmp(ev->state, want)) {
			ev->t_seen_us = bn_usb_host_now_us();
			return BN_OK;
		}
		if (stopped(stop))
			return bn_err_set(err, BN_ERR_INTR, "%s: waiting for power/runtime_status \"%s\": "
							    "interrupted",
					  w, want);
		if (bn_ms_left(deadline) <= 0)
			return BN_ERR_TIMEOUT; /* the caller says why */
		bn_sleep_us(h->poll_us);
	}
}

/* power/control = value, the command's times in ev: the moment a suspend
 * or resume was asked. */
static int write_control(struct bn_usb_host *h, const char *value, struct bn_usb_host_ev *ev,
			 struct bn_err *err)
{
	char p[BN_USB_HOST_PATH_LEN];
	int e;

	if (!path_of(p, sizeof(p), h->dir, "power/control"))
		return bn_err_set(err, BN_ERR_ARG, "%s: path too long", h->dir);
	ev->t_cmd_us = bn_usb_host_now_us();
	e = -attr_write(p, value);
	ev->t_cmd_end_us = bn_usb_host_now_us();
	return e ? write_err(err, h, "power/control", e, NULL) : BN_OK;
}

int bn_usb_host_suspend(struct bn_usb_host *h, int timeout_ms, volatile const sig_atomic_t *stop,
			struct bn_usb_host_ev *ev, struct bn_err *err)
{
	struct bn_usb_host_ev dummy;
	char p[BN_USB_HOST_PATH_LEN], w[300];
	int rc, e;

	if (!ev)
		ev = &dummy;
	ev_init(ev, BN_USB_HOST_SUSPEND, h);
	rc = save_pm(h, err);
	if (rc < 0)
		return ev_done(ev, rc);
	if (dev_read(h, "power/runtime_status", ev->state, sizeof(ev->state)) >= 0 &&
	    !strcmp(ev->state, "suspended")) {
		/* suspended before we asked: when is not known */
		ev->already = true;
		ev->t_seen_us = bn_usb_host_now_us();
		return ev_done(ev, BN_OK);
	}
	/* the delay first: "auto" with the default 2 s would suspend late */
	if (!path_of(p, sizeof(p), h->dir, "power/autosuspend_delay_ms"))
		return ev_done(ev, bn_err_set(err, BN_ERR_ARG, "%s: path too long", h->dir));
	e = -attr_write(p, "0");
	if (e)
		return ev_done(ev, write_err(err, h, "power/autosuspend_delay_ms", e, NULL));
	rc = write_control(h, "auto", ev, err);
	if (rc < 0)
		return ev_done(ev, rc);
	rc = wait_state(h, "suspended", timeout_ms, stop, ev, err);
	if (rc == BN_ERR_TIMEOUT) {
		char why[600];

		diagnose(h, ev, why, sizeof(why));
		/* What the bench PC is set up to do (a driver without autosuspend,
		 * runtime PM off, a rule writing power/control back) a retry only
		 * repeats: the environment's (exit 6). A device held busy for a
		 * while, or no reason shown, may pass on a retry: a bench fault. */
		rc = bn_err_set(err,
				ev->block == BN_USB_BLOCK_USAGE || ev->block == BN_USB_BLOCK_KIDS ||
						ev->block == BN_USB_BLOCK_UNKNOWN
					? BN_ERR_TIMEOUT
					: BN_ERR_ENV,
				"%s: not suspended within %d ms of power/control \"auto\" "
				"(power/runtime_status \"%s\"): %s",
				what(h, w, sizeof(w)), timeout_ms, ev->state, why);
	}
	return ev_done(ev, rc);
}

int bn_usb_host_resume(struct bn_usb_host *h, int timeout_ms, volatile const sig_atomic_t *stop,
		       struct bn_usb_host_ev *ev, struct bn_err *err)
{
	struct bn_usb_host_ev dummy;
	char w[300];
	int rc;

	if (!ev)
		ev = &dummy;
	ev_init(ev, BN_USB_HOST_RESUME, h);
	rc = save_pm(h, err);
	if (rc < 0)
		return ev_done(ev, rc);
	if (dev_read(h, "power/runtime_status", ev->state, sizeof(ev->state)) >= 0)
		ev->already = !strcmp(ev->state, "active");
	rc = write_control(h, "on", ev, err);
	if (rc < 0)
		return ev_done(ev, rc);
	rc = wait_state(h, "active", timeout_ms, stop, ev, err);
	if (rc == BN_ERR_TIMEOUT)
		rc = bn_err_set(err, BN_ERR_TIMEOUT,
				"%s: not active within %d ms of power/control \"on\" "
				"(power/runtime_status \"%s\"): the resume failed (see the kernel log)",
				what(h, w, sizeof(w)), timeout_ms, ev->state);
	return ev_done(ev, rc);
}

void bn_usb_host_close(struct bn_usb_host *h)
{
	char p[BN_USB_HOST_PATH_LEN];

	if (!h->pm_saved)
		return;
	h->pm_saved = false;
	/* the delay before the control: "auto" back with delay 0 would
	 * suspend at once */
	if (h->saved_delay[0] && path_of(p, sizeof(p), h->dir, "power/autosuspend_delay_ms"))
		attr_write(p, h->saved_delay);
	if (h->saved_control[0] && path_of(p, sizeof(p), h->dir, "power/control"))
		attr_write(p, h->saved_control);
}

int bn_usb_host_choose(const struct bn_usb_desc *d, unsigned budget_ma)
{
	const struct bn_usb_config_desc *best = NULL;

	for (int i = 0; i < d->n_configs; i++)
		if (d->cfg[i].max_power_ma <= budget_ma &&
		    (!best || d->cfg[i].max_power_ma > best->max_power_ma))
			best = &d->cfg[i];
	return best ? best->value : 0;
}

const char *bn_usb_host_act_name(enum bn_usb_host_act a)
{
	switch (a) {
	case BN_USB_HOST_FOUND: return "found";
	case BN_USB_HOST_KERNEL_CONFIG: return "kernel_config";
	case BN_USB_HOST_SET_CONFIG: return "set_config";
	case BN_USB_HOST_SUSPEND: return "suspend";
	case BN_USB_HOST_RESUME: return "resume";
	}
	return "?";
}

const char *bn_usb_host_route_name(enum bn_usb_host_route r)
{
	switch (r) {
	case BN_USB_ROUTE_NONE: return "none";
	case BN_USB_ROUTE_SYSFS: return "sysfs";
	case BN_USB_ROUTE_USBFS: return "usbfs";
	}
	return "?";
}

const char *bn_usb_host_block_name(enum bn_usb_host_block b)
{
	switch (b) {
	case BN_USB_BLOCK_NONE: return "none";
	case BN_USB_BLOCK_CONTROL_ON: return "control_on";
	case BN_USB_BLOCK_DELAY: return "delay";
	case BN_USB_BLOCK_DRIVER: return "driver";
	case BN_USB_BLOCK_USAGE: return "usage";
	case BN_USB_BLOCK_KIDS: return "active_kids";
	case BN_USB_BLOCK_RPM_OFF: return "rpm_off";
	case BN_USB_BLOCK_WAKEUP: return "wakeup";
	case BN_USB_BLOCK_UNKNOWN: return "unknown";
	}
	return "?";
}
