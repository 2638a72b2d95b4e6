/* The fake USB core on a directory tree (sysfs_kernel.h). Its own reading
 * of the descriptors (a few lines, not hil/usb_desc.c): the fake must not
 * share the bench's parser, or a parser bug would agree with itself. */
#define _GNU_SOURCE
#include "fake/sysfs_kernel.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define DEVICES "sys/bus/usb/devices"
#define DRIVERS "sys/bus/usb/drivers"
#define MEM ".kernel"          /* the kernel's memory inside a device directory */
#define MAX_CFGS 8
#define MAX_IFS 32

struct sk_cfg {
	int value;
	unsigned max_power_raw;
	uint8_t attributes;
	int n_if;
	uint8_t if_num[MAX_IFS], if_class[MAX_IFS];
};

struct sk_desc {
	uint16_t vid, pid;
	uint8_t dev_class;
	int n_cfg;
	struct sk_cfg cfg[MAX_CFGS];
};

static int64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static int fmt(char *buf, size_t len, const char *f, ...) __attribute__((format(printf, 3, 4)));
static int fmt(char *buf, size_t len, const char *f, ...)
{
	va_list ap;
	int n;

	va_start(ap, f);
	n = vsnprintf(buf, len, f, ap);
	va_end(ap);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

/* Device descriptor, then each configuration's set; interfaces are the
 * alternate setting 0 ones. */
static int parse_desc(const uint8_t *d, size_t len, struct sk_desc *out)
{
	size_t off = 18;
	int n;

	memset(out, 0, sizeof(*out));
	if (len < 18 || d[0] != 18 || d[1] != 1)
		return -EINVAL;
	out->vid = le16(d + 8);
	out->pid = le16(d + 10);
	out->dev_class = d[4];
	n = d[17];
	if (n > MAX_CFGS)
		return -EINVAL;
	for (int i = 0; i < n; i++) {
		struct sk_cfg *c = &out->cfg[i];
		size_t total, p;

		if (len - off < 9 || d[off + 1] != 2)
			return -EINVAL;
		total = le16(d + off + 2);
		if (total < 9 || total > len - off)
			return -EINVAL;
		c->value = d[off + 5];
		c->attributes = d[off + 7];
		c->max_power_raw = d[off + 8];
		for (p = off + d[off]; p + 2 <= off + total && d[p] >= 2; p += d[p])
			if (d[p + 1] == 4 && d[p] >= 9 && d[p + 3] == 0 && c->n_if < MAX_IFS) {
				c->if_num[c->n_if] = d[p + 2];
				c->if_class[c->n_if++] = d[p + 5];
			}
		off += total;
		out->n_cfg = i + 1;
	}
	return 0;
}

/* ---- files ---- */

static int put_bytes(const char *path, const void *data, size_t len)
{
	char tmp[SK_PATH_LEN + 32];
	const char *slash = strrchr(path, '/');
	struct stat st;
	int fd, e = 0;

	if (!slash || fmt(tmp, sizeof(tmp), "%.*s/.sk.%s.%d", (int)(slash - path), path, slash + 1,
			  (int)getpid()) < 0)
		return -ENAMETOOLONG;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	/* the file keeps its mode: permissions are part of the world */
	if (stat(path, &st) == 0)
		fchmod(fd, st.st_mode & 07777);
	if (write(fd, data, len) != (ssize_t)len)
		e = errno ? errno : EIO;
	close(fd);
	if (!e && rename(tmp, path) < 0)
		e = errno;
	if (e)
		unlink(tmp);
	return -e;
}

static int put(const char *path, const char *text)
{
	return put_bytes(path, text, strlen(text));
}

static int putf(const char *dir, const char *rel, const char *f, ...)
	__attribute__((format(printf, 3, 4)));
static int putf(const char *dir, const char *rel, const char *f, ...)
{
	char p[SK_PATH_LEN], text[128];
	va_list ap;

	va_start(ap, f);
	vsnprintf(text, sizeof(text), f, ap);
	va_end(ap);
	if (fmt(p, sizeof(p), "%s/%s", dir, rel) < 0)
		return -ENAMETOOLONG;
	return put(p, text);
}

/* A file's text without trailing blanks; -errno. */
static int get(const char *dir, const char *rel, char *buf, size_t len)
{
	char p[SK_PATH_LEN];
	ssize_t n;
	int fd, e;

	buf[0] = 0;
	if (fmt(p, sizeof(p), "%s/%s", dir, rel) < 0)
		return -ENAMETOOLONG;
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	e = errno;
	close(fd);
	if (n < 0)
		return -e;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		n--;
	buf[n] = 0;
	return (int)n;
}

/* An integer file; def when missing or not exactly a number. */
static long get_long(const char *dir, const char *rel, long def, bool *ok)
{
	char buf[64], *end;
	long v;

	if (ok)
		*ok = false;
	if (get(dir, rel, buf, sizeof(buf)) <= 0)
		return def;
	errno = 0;
	v = strtol(buf, &end, 10);
	if (errno || *end)
		return def;
	if (ok)
		*ok = true;
	return v;
}

static int read_all(const char *dir, const char *rel, uint8_t *buf, size_t len, size_t *got)
{
	char p[SK_PATH_LEN];
	ssize_t n;
	int fd;

	*got = 0;
	if (fmt(p, sizeof(p), "%s/%s", dir, rel) < 0)
		return -ENAMETOOLONG;
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (*got < len && (n = read(fd, buf + *got, len - *got)) > 0)
		*got += (size_t)n;
	close(fd);
	return 0;
}

static int mkdirs(const char *path)
{
	char p[SK_PATH_LEN];

	if (fmt(p, sizeof(p), "%s", path) < 0)
		return -ENAMETOOLONG;
	for (char *s = p + 1; *s; s++)
		if (*s == '/') {
			*s = 0;
			if (mkdir(p, 0755) < 0 && errno != EEXIST)
				return -errno;
			*s = '/';
		}
	return mkdir(p, 0755) < 0 && errno != EEXIST ? -errno : 0;
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	return remove(p) < 0 ? -1 : 0;
}

static int rm_rf(const char *path)
{
	return nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS) < 0 && errno != ENOENT ? -errno : 0;
}

/* Make a directory vanish at once: renamed aside, then removed. */
static int vanish(const char *path)
{
	char gone[SK_PATH_LEN + 32];
	const char *slash = strrchr(path, '/');

	if (!slash || fmt(gone, sizeof(gone), "%.*s/.sk.gone.%s", (int)(slash - path), path,
			  slash + 1) < 0)
		return -ENAMETOOLONG;
	if (rename(path, gone) < 0)
		return -errno;
	return rm_rf(gone);
}

/* ---- the lock ---- */

static int lock(const struct sysfs_kernel *k)
{
	char p[SK_PATH_LEN];
	int fd;

	if (fmt(p, sizeof(p), "%s/.kernel.lock", k->world) < 0)
		return -ENAMETOOLONG;
	fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	while (flock(fd, LOCK_EX) < 0)
		if (errno != EINTR) {
			int e = errno;

			close(fd);
			return -e;
		}
	return fd;
}

static void unlock(int fd)
{
	close(fd); /* releases the flock */
}

/* ---- the tree ---- */

int sysfs_kernel_init(struct sysfs_kernel *k, const char *world)
{
	static const char *const dirs[] = { DEVICES, DRIVERS, "sys/devices", "dev/bus/usb" };
	char p[SK_PATH_LEN];

	memset(k, 0, sizeof(*k));
	if (fmt(k->world, sizeof(k->world), "%s", world) < 0)
		return -ENAMETOOLONG;
	k->port_budget_ma = 500;
	k->node_mode = 0664;
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		int rc;

		if (fmt(p, sizeof(p), "%s/%s", world, dirs[i]) < 0)
			return -ENAMETOOLONG;
		rc = mkdirs(p);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int sysfs_kernel_add_driver(struct sysfs_kernel *k, uint8_t iface_class, const char *name,
			    bool supports_autosuspend)
{
	struct sysfs_kernel_driver *d;

	if (k->n_drivers == SK_MAX_DRIVERS || strlen(name) >= sizeof(d->name))
		return -ENOSPC;
	d = &k->drivers[k->n_drivers++];
	d->iface_class = iface_class;
	snprintf(d->name, sizeof(d->name), "%s", name);
	d->supports_autosuspend = supports_autosuspend;
	return 0;
}

void sysfs_kernel_sys(const struct sysfs_kernel *k, char *buf, size_t len)
{
	fmt(buf, len, "%s/sys", k->world);
}

void sysfs_kernel_path(const struct sysfs_kernel *k, const char *name, const char *rel, char *buf,
		       size_t len)
{
	fmt(buf, len, "%s/" DEVICES "/%s%s%s", k->world, name, *rel ? "/" : "", rel);
}

void sysfs_kernel_node(const struct sysfs_kernel *k, unsigned busnum, unsigned devnum, char *buf,
		       size_t len)
{
	fmt(buf, len, "%s/dev/bus/usb/%03u/%03u", k->world, busnum, devnum);
}

static const struct sysfs_kernel_driver *driver_for(const struct sysfs_kernel *k, uint8_t cls)
{
	for (int i = 0; i < k->n_drivers; i++)
		if (k->drivers[i].iface_class == cls)
			return &k->drivers[i];
	return NULL;
}

static const struct sysfs_kernel_driver *driver_named(const struct sysfs_kernel *k, const char *n)
{
	for (int i = 0; i < k->n_drivers; i++)
		if (!strcmp(k->drivers[i].name, n))
			return &k->drivers[i];
	return NULL;
}

static int dev_desc(const char *dir, struct sk_desc *d)
{
	static uint8_t buf[18 + MAX_CFGS * 4096];
	size_t got;
	int rc = read_all(dir, "descriptors", buf, sizeof(buf), &got);

	return rc < 0 ? rc : parse_desc(buf, got, d);
}

/* Each "NAME:..." entry of the device directory. */
typedef int (*iface_fn)(const struct sysfs_kernel *k, const char *dev_dir, const char *iface,
			void *user);

static int each_iface(const struct sysfs_kernel *k, const char *name, iface_fn fn, void *user)
{
	char dir[SK_PATH_LEN], names[MAX_IFS][64];
	struct dirent *de;
	size_t nl = strlen(name);
	int n = 0, rc = 0;
	DIR *d;

	sysfs_kernel_path(k, name, "", dir, sizeof(dir));
	d = opendir(dir);
	if (!d)
		return -errno;
	while ((de = readdir(d)) && n < MAX_IFS)
		if (!strncmp(de->d_name, name, nl) && de->d_name[nl] == ':' &&
		    strlen(de->d_name) < sizeof(names[0]))
			snprintf(names[n++], sizeof(names[0]), "%s", de->d_name);
	closedir(d);
	for (int i = 0; i < n && rc >= 0; i++)
		rc = fn(k, dir, names[i], user);
	return rc;
}

static int drop_iface(const struct sysfs_kernel *k, const char *dev_dir, const char *iface,
		      void *user)
{
	char p[SK_PATH_LEN];

	if (fmt(p, sizeof(p), "%s/" DEVICES "/%s", k->world, iface) == 0)
		unlink(p);
	if (fmt(p, sizeof(p), "%s/%s", dev_dir, iface) < 0)
		return -ENAMETOOLONG;
	return vanish(p);
}

/* An interface directory, built aside and renamed in whole, with the
 * driver its class binds. */
static int add_iface(const struct sysfs_kernel *k, const char *name, const char *dev_dir,
		     int value, uint8_t num, uint8_t cls)
{
	const struct sysfs_kernel_driver *drv = driver_for(k, cls);
	char iface[64], tmp[SK_PATH_LEN], fin[SK_PATH_LEN], p[SK_PATH_LEN];
	int rc;

	if (fmt(iface, sizeof(iface), "%s:%d.%u", name, value, num) < 0 ||
	    fmt(tmp, sizeof(tmp), "%s/.sk.new.%s", dev_dir, iface) < 0 ||
	    fmt(fin, sizeof(fin), "%s/%s", dev_dir, iface) < 0)
		return -ENAMETOOLONG;
	rm_rf(tmp);
	if (mkdir(tmp, 0755) < 0)
		return -errno;
	putf(tmp, "bInterfaceNumber", "%02x\n", num);
	putf(tmp, "bAlternateSetting", " 0\n");
	putf(tmp, "bInterfaceClass", "%02x\n", cls);
	/* usbcore: an interface without a driver never holds a suspend off */
	putf(tmp, "supports_autosuspend", "%d\n", !drv || drv->supports_autosuspend);
	if (drv) {
		if (fmt(p, sizeof(p), "%s/" DRIVERS "/%s", k->world, drv->name) < 0)
			return -ENAMETOOLONG;
		rc = mkdirs(p);
		if (rc < 0)
			return rc;
		if (fmt(tmp + strlen(tmp), sizeof(tmp) - strlen(tmp), "/driver") < 0 ||
		    symlink(p, tmp) < 0)
			return -errno;
		tmp[strlen(tmp) - strlen("/driver")] = 0;
	}
	if (rename(tmp, fin) < 0)
		return -errno;
	if (fmt(p, sizeof(p), "%s/" DEVICES "/%s", k->world, iface) == 0)
		symlink(fin, p);
	return 0;
}

static void mark_busy(const char *dev_dir)
{
	char p[SK_PATH_LEN];

	if (fmt(p, sizeof(p), "%s/" MEM "/idle_since_us", dev_dir) == 0)
		unlink(p);
}

/* usb_set_configuration(): the old interfaces go (their drivers
 * unbound), the new ones come with their drivers; the device is resumed
 * for it. Called with the lock held. */
static int configure_locked(const struct sysfs_kernel *k, const char *name, int value)
{
	const struct sk_cfg *c = NULL;
	struct sk_desc d;
	char dir[SK_PATH_LEN];
	int rc;

	sysfs_kernel_path(k, name, "", dir, sizeof(dir));
	rc = dev_desc(dir, &d);
	if (rc < 0)
		return rc;
	for (int i = 0; value > 0 && i < d.n_cfg; i++)
		if (d.cfg[i].value == value)
			c = &d.cfg[i];
	if (value > 0 && !c)
		return -EINVAL;
	rc = each_iface(k, name, drop_iface, NULL);
	if (rc < 0)
		return rc;
	if (!c) {
		putf(dir, "bConfigurationValue", "%s", "");
		putf(dir, "bMaxPower", "%s", "");
		putf(dir, "bNumInterfaces", "%s", "");
		putf(dir, "bmAttributes", "%s", "");
	} else {
		char speed[16] = "";

		/* message.c: the active configuration first (what
		 * bConfigurationValue and bMaxPower show), then its interfaces
		 * are added */
		get(dir, "speed", speed, sizeof(speed));
		putf(dir, "bConfigurationValue", "%d\n", value);
		putf(dir, "bMaxPower", "%umA\n", c->max_power_raw * (atof(speed) >= 5000 ? 8 : 2));
		putf(dir, "bNumInterfaces", "%2d\n", c->n_if);
		putf(dir, "bmAttributes", "%2x\n", c->attributes);
		for (int i = 0; i < c->n_if; i++) {
			rc = add_iface(k, name, dir, value, c->if_num[i], c->if_class[i]);
			if (rc < 0)
				return rc;
		}
	}
	putf(dir, MEM "/config", "%d\n", value);
	putf(dir, "power/runtime_status", "active\n");
	mark_busy(dir);
	return 0;
}

int sysfs_kernel_configure(const struct sysfs_kernel *k, const char *name, int value)
{
	int fd = lock(k), rc;

	if (fd < 0)
		return fd;
	rc = configure_locked(k, name, value);
	unlock(fd);
	return rc;
}

int sysfs_kernel_plug(const struct sysfs_kernel *k, const struct sysfs_kernel_dev *dv)
{
	struct sk_desc d;
	char bus_dir[SK_PATH_LEN], tmp[SK_PATH_LEN], fin[SK_PATH_LEN], p[SK_PATH_LEN];
	int fd, rc, choice = 0;
	unsigned unit = dv->speed && atof(dv->speed) >= 5000 ? 8 : 2;

	rc = parse_desc(dv->desc, dv->desc_len, &d);
	if (rc < 0)
		return rc;
	if (fmt(bus_dir, sizeof(bus_dir), "%s/sys/devices/usb%u", k->world, dv->busnum) < 0 ||
	    fmt(tmp, sizeof(tmp), "%s/.sk.new.%s", bus_dir, dv->name) < 0 ||
	    fmt(fin, sizeof(fin), "%s/%s", bus_dir, dv->name) < 0)
		return -ENAMETOOLONG;
	fd = lock(k);
	if (fd < 0)
		return fd;
	rc = mkdirs(bus_dir);
	if (rc == 0) {
		char mem[SK_PATH_LEN], power[SK_PATH_LEN];

		rm_rf(tmp);
		fmt(mem, sizeof(mem), "%s/" MEM, tmp);
		fmt(power, sizeof(power), "%s/power", tmp);
		rc = mkdirs(mem) < 0 || mkdirs(power) < 0 ? -EIO : 0;
	}
	if (rc == 0) {
		char pd[SK_PATH_LEN];

		putf(tmp, "idVendor", "%04x\n", d.vid);
		putf(tmp, "idProduct", "%04x\n", d.pid);
		putf(tmp, "busnum", "%u\n", dv->busnum);
		putf(tmp, "devnum", "%u\n", dv->devnum);
		putf(tmp, "speed", "%s\n", dv->speed ? dv->speed : "480");
		putf(tmp, "bNumConfigurations", "%d\n", d.n_cfg);
		putf(tmp, "bConfigurationValue", "%s", "");
		putf(tmp, "authorized", "1\n");
		if (dv->serial)
			putf(tmp, "serial", "%s\n", dv->serial);
		if (dv->manufacturer)
			putf(tmp, "manufacturer", "%s\n", dv->manufacturer);
		if (dv->product)
			putf(tmp, "product", "%s\n", dv->product);
		fmt(pd, sizeof(pd), "%s/descriptors", tmp);
		rc = put_bytes(pd, dv->desc, dv->desc_len);
		/* usbcore's defaults: autosuspend off for all but hubs, 2 s */
		putf(tmp, "power/control", "on\n");
		putf(tmp, "power/autosuspend_delay_ms", "2000\n");
		putf(tmp, "power/runtime_status", "active\n");
		putf(tmp, "power/runtime_usage", "0\n");
		putf(tmp, MEM "/config", "0\n");
	}
	if (rc == 0 && rename(tmp, fin) < 0)
		rc = -errno;
	if (rc == 0) {
		char dir[SK_PATH_LEN];
		int nfd;

		fmt(dir, sizeof(dir), "%s/dev/bus/usb/%03u", k->world, dv->busnum);
		mkdirs(dir);
		sysfs_kernel_node(k, dv->busnum, dv->devnum, p, sizeof(p));
		nfd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (nfd >= 0) {
			fchmod(nfd, (mode_t)k->node_mode);
			close(nfd);
		}
		sysfs_kernel_path(k, dv->name, "", p, sizeof(p));
		if (symlink(fin, p) < 0)
			rc = -errno;
	}
	/* generic.c usb_choose_configuration(): of the configurations the
	 * port can power, the first whose first interface is not
	 * vendor-specific, else the first */
	for (int i = 0, first = 0; rc == 0 && i < d.n_cfg; i++) {
		if (d.cfg[i].max_power_raw * unit > k->port_budget_ma)
			continue;
		if (!first)
			first = choice = d.cfg[i].value;
		if (d.dev_class != 0xff && (!d.cfg[i].n_if || d.cfg[i].if_class[0] != 0xff)) {
			choice = d.cfg[i].value;
			break;
		}
	}
	if (rc == 0 && choice)
		rc = configure_locked(k, dv->name, choice);
	unlock(fd);
	return rc;
}

int sysfs_kernel_unplug(const struct sysfs_kernel *k, const char *name)
{
	char link[SK_PATH_LEN], real[SK_PATH_LEN], node[SK_PATH_LEN];
	long bus, dev;
	int fd = lock(k), rc;

	if (fd < 0)
		return fd;
	sysfs_kernel_path(k, name, "", link, sizeof(link));
	bus = get_long(link, "busnum", 0, NULL);
	dev = get_long(link, "devnum", 0, NULL);
	rc = each_iface(k, name, drop_iface, NULL);
	if (rc == 0 && !realpath(link, real))
		rc = -errno;
	if (rc == 0) {
		unlink(link);
		sysfs_kernel_node(k, (unsigned)bus, (unsigned)dev, node, sizeof(node));
		unlink(node);
		rc = vanish(real);
	}
	unlock(fd);
	return rc;
}

int sysfs_kernel_unbind(const struct sysfs_kernel *k, const char *iface)
{
	char name[64], dir[SK_PATH_LEN], p[SK_PATH_LEN];
	const char *colon = strchr(iface, ':');
	int fd, rc = 0;

	if (!colon || fmt(name, sizeof(name), "%.*s", (int)(colon - iface), iface) < 0)
		return -EINVAL;
	sysfs_kernel_path(k, name, iface, dir, sizeof(dir));
	if (fmt(p, sizeof(p), "%s/driver", dir) < 0)
		return -ENAMETOOLONG;
	fd = lock(k);
	if (fd < 0)
		return fd;
	if (unlink(p) < 0)
		rc = errno == ENOENT ? -ENODATA : -errno;
	else
		putf(dir, "supports_autosuspend", "1\n");
	unlock(fd);
	return rc;
}

int sysfs_kernel_usage(const struct sysfs_kernel *k, const char *name, int delta)
{
	char dir[SK_PATH_LEN], st[32];
	long u;
	int fd = lock(k);

	if (fd < 0)
		return fd;
	sysfs_kernel_path(k, name, "", dir, sizeof(dir));
	u = get_long(dir, "power/runtime_usage", 0, NULL) + delta;
	putf(dir, "power/runtime_usage", "%ld\n", u < 0 ? 0 : u);
	/* usbdev_open(): usb_autoresume_device() */
	if (delta > 0 && get(dir, "power/runtime_status", st, sizeof(st)) >= 0 &&
	    strcmp(st, "active"))
		putf(dir, "power/runtime_status", "active\n");
	mark_busy(dir);
	unlock(fd);
	return 0;
}

/* Bound drivers all support autosuspend (the kernel knows its drivers). */
static int check_driver(const struct sysfs_kernel *k, const char *dev_dir, const char *iface,
			void *user)
{
	char p[SK_PATH_LEN], link[SK_PATH_LEN];
	const struct sysfs_kernel_driver *drv;
	const char *base;
	ssize_t n;

	if (fmt(p, sizeof(p), "%s/%s/driver", dev_dir, iface) < 0)
		return 0;
	n = readlink(p, link, sizeof(link) - 1);
	if (n <= 0)
		return 0;
	link[n] = 0;
	base = strrchr(link, '/');
	drv = driver_named(k, base ? base + 1 : link);
	if (drv && !drv->supports_autosuspend)
		*(bool *)user = false;
	return 0;
}

/* One device's reactions; the number of changes. */
static int step_dev(const struct sysfs_kernel *k, const char *name)
{
	char dir[SK_PATH_LEN], control[16], status[32];
	long applied, delay, usage, v;
	bool parsed, idle, drivers_ok = true;
	int changes = 0;

	sysfs_kernel_path(k, name, "", dir, sizeof(dir));
	applied = get_long(dir, MEM "/config", 0, NULL);
	v = get_long(dir, "bConfigurationValue", 0, &parsed);
	if (parsed && (v < 0 ? 0 : v) != applied) {
		/* a user-space write: an empty or half-written file is none */
		if (k->refuse_config || configure_locked(k, name, v < 0 ? 0 : (int)v) < 0) {
			if (applied)
				putf(dir, "bConfigurationValue", "%ld\n", applied);
			else
				putf(dir, "bConfigurationValue", "%s", "");
		}
		changes++;
	}
	get(dir, "power/control", control, sizeof(control));
	get(dir, "power/runtime_status", status, sizeof(status));
	delay = get_long(dir, "power/autosuspend_delay_ms", 2000, NULL);
	usage = get_long(dir, "power/runtime_usage", 0, NULL);
	each_iface(k, name, check_driver, &drivers_ok);
	idle = !strcmp(control, "auto") && delay >= 0 && usage == 0 && drivers_ok;
	if (!strcmp(status, "suspended")) {
		if (!idle) {
			putf(dir, "power/runtime_status", "active\n");
			mark_busy(dir);
			changes++;
		}
	} else if (idle) {
		bool have;
		long since = get_long(dir, MEM "/idle_since_us", 0, &have);
		int64_t t = now_us();

		if (!have) {
			putf(dir, MEM "/idle_since_us", "%lld\n", (long long)t);
			since = (long)t;
		}
		if (t - since >= delay * 1000 + k->suspend_latency_us) {
			putf(dir, "power/runtime_status", "suspended\n");
			changes++;
		}
	} else {
		mark_busy(dir);
	}
	return changes;
}

int sysfs_kernel_step(const struct sysfs_kernel *k)
{
	char base[SK_PATH_LEN], names[64][64];
	struct dirent *de;
	int n = 0, changes = 0, fd;
	DIR *d;

	if (fmt(base, sizeof(base), "%s/" DEVICES, k->world) < 0)
		return -ENAMETOOLONG;
	fd = lock(k);
	if (fd < 0)
		return fd;
	d = opendir(base);
	if (!d) {
		int e = errno;

		unlock(fd);
		return -e;
	}
	while ((de = readdir(d)) && n < 64)
		if (de->d_name[0] != '.' && !strchr(de->d_name, ':') &&
		    strlen(de->d_name) < sizeof(names[0]))
			snprintf(names[n++], sizeof(names[0]), "%s", de->d_name);
	closedir(d);
	for (int i = 0; i < n; i++)
		changes += step_dev(k, names[i]);
	unlock(fd);
	return changes;
}

int sysfs_kernel_remove(const struct sysfs_kernel *k)
{
	return k->world[0] ? rm_rf(k->world) : 0;
}
