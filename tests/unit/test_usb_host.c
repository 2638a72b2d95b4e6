/* The bench as the device's USB host against one fake world: a sysfs tree
 * in a temporary directory played by a fake kernel (fake/sysfs_kernel.h,
 * in a thread where the kernel must react while the host waits), and a
 * fake libusb serving the same devices (fake/usb_fake.h). Finding the
 * device among several, its descriptors from sysfs and through libusb,
 * choosing a configuration (sysfs, usbfs where sysfs refuses, refusals
 * named), suspend and resume by runtime PM with their times and the
 * reasons a suspend does not come, and waiting for the device through
 * libusb hotplug or polling.
 *
 * Times are checked as orderings and "not before" bounds only: how fast a
 * machine is must not fail a test. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>
#include <libusb.h>
#include <linux/capability.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "fake/sysfs_kernel.h"
#include "fake/usb_fake.h"
#include "hil/usb_dev.h"
#include "hil/usb_host.h"
#include "lib/harness.h"

#define CLASS_CDC 0x02
#define CLASS_DATA 0x0a
#define CLASS_VENDOR 0xff

/* ---- the world ---- */

struct world {
	struct sysfs_kernel k;
	struct usb_fake f;
	char sys[SK_PATH_LEN];
	pthread_t kthread;
	bool krunning;
	atomic_bool kstop;
};

static struct world *W;

static int setup(void **state)
{
	char tmpl[] = "/tmp/bn-usbhost-XXXXXX";

	W = calloc(1, sizeof(*W));
	if (!W || !mkdtemp(tmpl) || sysfs_kernel_init(&W->k, tmpl) < 0)
		return -1;
	sysfs_kernel_sys(&W->k, W->sys, sizeof(W->sys));
	usb_fake_install(&W->f, &W->k);
	*state = W;
	return 0;
}

static void *kernel_loop(void *p)
{
	struct world *w = p;
	struct timespec ts = { 0, 300000 };

	while (!atomic_load(&w->kstop)) {
		sysfs_kernel_step(&w->k);
		nanosleep(&ts, NULL);
	}
	return NULL;
}

/* The kernel reacts from now on, beside the host. */
static void kernel_start(void)
{
	atomic_store(&W->kstop, false);
	assert_int_equal(pthread_create(&W->kthread, NULL, kernel_loop, W), 0);
	W->krunning = true;
}

static void kernel_stop(void)
{
	if (!W->krunning)
		return;
	atomic_store(&W->kstop, true);
	pthread_join(W->kthread, NULL);
	W->krunning = false;
}

static int teardown(void **state)
{
	kernel_stop();
	usb_fake_uninstall();
	sysfs_kernel_remove(&W->k);
	free(W);
	W = NULL;
	return 0;
}

struct tcfg {
	uint8_t value, attributes, max_power_raw;
	int n_if;
	uint8_t if_class[4];
};

/* A device descriptor (strings 1, 2, 3) and each configuration's full
 * set: interfaces with one interrupt endpoint, a CDC header functional
 * descriptor after a CDC interface. */
static size_t build_desc(uint8_t *b, uint16_t vid, uint16_t pid, uint16_t bcd_usb,
			 const struct tcfg *c, int n)
{
	size_t off = 18;
	const uint8_t dev[18] = { 18, 1, bcd_usb & 0xff, bcd_usb >> 8, 0, 0, 0, 64,
				  vid & 0xff, vid >> 8, pid & 0xff, pid >> 8, 0x00, 0x01, 1, 2, 3,
				  (uint8_t)n };

	memcpy(b, dev, 18);
	for (int i = 0; i < n; i++) {
		size_t start = off;

		b[off++] = 9;
		b[off++] = 2;
		off += 2; /* wTotalLength below */
		b[off++] = (uint8_t)c[i].n_if;
		b[off++] = c[i].value;
		b[off++] = 0;
		b[off++] = c[i].attributes;
		b[off++] = c[i].max_power_raw;
		for (int j = 0; j < c[i].n_if; j++) {
			const uint8_t ifd[9] = { 9, 4, (uint8_t)j, 0, 1, c[i].if_class[j], 0, 0, 0 };
			const uint8_t ep[7] = { 7, 5, (uint8_t)(0x81 + j), 3, 8, 0, 10 };

			memcpy(b + off, ifd, 9);
			off += 9;
			if (c[i].if_class[j] == CLASS_CDC) {
				const uint8_t hdr[5] = { 5, 0x24, 0x00, 0x10, 0x01 };

				memcpy(b + off, hdr, 5);
				off += 5;
			}
			memcpy(b + off, ep, 7);
			off += 7;
		}
		b[start + 2] = (uint8_t)((off - start) & 0xff);
		b[start + 3] = (uint8_t)((off - start) >> 8);
	}
	return off;
}

/* The DUT of most tests: configuration 1 (100 mA, bus-powered, one CDC
 * interface), configuration 2 (500 mA, self-powered, remote wakeup, CDC
 * and data interfaces). */
static const struct tcfg DUT_CFGS[] = {
	{ .value = 1, .attributes = 0x80, .max_power_raw = 50, .n_if = 1, .if_class = { CLASS_CDC } },
	{ .value = 2, .attributes = 0xe0, .max_power_raw = 250, .n_if = 2,
	  .if_class = { CLASS_CDC, CLASS_DATA } },
};

static void plug(const char *name, unsigned devnum, uint16_t vid, uint16_t pid, const char *serial,
		 const char *speed, uint16_t bcd_usb, const struct tcfg *c, int n)
{
	uint8_t desc[1024];
	struct sysfs_kernel_dev d = {
		.name = name, .busnum = 1, .devnum = devnum, .speed = speed, .serial = serial,
		.manufacturer = "bcbench", .product = "DUT", .desc = desc,
	};

	d.desc_len = build_desc(desc, vid, pid, bcd_usb, c, n);
	assert_int_equal(sysfs_kernel_plug(&W->k, &d), 0);
}

static void plug_dut(void)
{
	plug("1-1", 5, 0x1209, 0x0001, "BBB", "480", 0x0200, DUT_CFGS, 2);
}

static struct bn_usb_spec spec_of(const char *text)
{
	struct bn_usb_spec s;
	struct bn_err err = { 0 };

	assert_int_equal(bn_usb_spec_parse(text, &s, &err), BN_OK);
	return s;
}

static void open_dut(struct bn_usb_host *h)
{
	struct bn_usb_spec s = spec_of("1209:0001:BBB");
	struct bn_err err = { 0 };

	if (bn_usb_host_open(h, W->sys, &s, NULL, &err) != BN_OK)
		fail_msg("%s", err.msg);
}

/* A device attribute as sysfs shows it (no trailing newline). */
static const char *attr(const char *name, const char *rel)
{
	static char buf[128];
	char p[SK_PATH_LEN];
	FILE *f;
	size_t n;

	sysfs_kernel_path(&W->k, name, rel, p, sizeof(p));
	buf[0] = 0;
	f = fopen(p, "r");
	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		n--;
	buf[n] = 0;
	return buf;
}

static bool exists(const char *name, const char *rel)
{
	char p[SK_PATH_LEN];

	sysfs_kernel_path(&W->k, name, rel, p, sizeof(p));
	return access(p, F_OK) == 0;
}

static void set_attr(const char *name, const char *rel, const char *text)
{
	char p[SK_PATH_LEN];
	FILE *f;

	sysfs_kernel_path(&W->k, name, rel, p, sizeof(p));
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void chmod_attr(const char *name, const char *rel, mode_t mode)
{
	char p[SK_PATH_LEN];

	sysfs_kernel_path(&W->k, name, rel, p, sizeof(p));
	assert_int_equal(chmod(p, mode), 0);
}

/* No libusb state left behind: every context ended, every handle closed
 * (an open usbfs file keeps a device awake), every device freed. */
static void assert_fake_clean(void)
{
	assert_int_equal(W->f.n_init, W->f.n_exit);
	assert_int_equal(W->f.n_open, W->f.n_close);
	assert_int_equal(W->f.n_devs, 0);
}

/* As root, file modes do not stop a write: take CAP_DAC_OVERRIDE out of
 * this thread's effective set so a mode refuses as it refuses the bench
 * user (the fake kernel's thread keeps its own). False where that cannot
 * be done. */
static bool dac_override(bool on)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2];

	if (geteuid() != 0)
		return true;
	if (syscall(SYS_capget, &hdr, data) < 0)
		return false;
	if (on)
		data[0].effective |= 1u << CAP_DAC_OVERRIDE;
	else
		data[0].effective &= ~(1u << CAP_DAC_OVERRIDE);
	return syscall(SYS_capset, &hdr, data) == 0;
}

static int64_t now_us(void)
{
	return bn_usb_host_now_us();
}

/* ---- finding the device and its descriptors ---- */

static void test_usb_host__find_among_several(void **state)
{
	static const struct tcfg one[] = { { .value = 1, .attributes = 0x80, .max_power_raw = 50,
					     .n_if = 1, .if_class = { CLASS_VENDOR } } };
	struct bn_usb_host h;
	struct bn_usb_host_ev ev;
	struct bn_usb_spec s;
	struct bn_err err = { 0 };

	(void)state;
	plug("1-1", 2, 0x1209, 0x0001, "AAA", "480", 0x0200, one, 1);
	plug("1-2", 7, 0x1209, 0x0001, "BBB", "480", 0x0200, DUT_CFGS, 2);
	plug("1-3.4", 9, 0x18d1, 0x4ee1, NULL, "12", 0x0200, one, 1);
	/* interface entries sit in bus/usb/devices too: they are not devices */
	assert_true(exists("1-2:1.0", ""));

	s = spec_of("1209:0001:BBB");
	assert_int_equal(bn_usb_host_open(&h, W->sys, &s, &ev, &err), BN_OK);
	assert_string_equal(h.name, "1-2");
	assert_int_equal(h.busnum, 1);
	assert_int_equal(h.devnum, 7);
	assert_int_equal(h.config, 1);
	assert_int_equal(ev.act, BN_USB_HOST_FOUND);
	assert_int_equal(ev.rc, BN_OK);
	assert_int_equal(ev.config_after, 1);
	assert_true(ev.t_seen_us > 0);
	assert_string_equal(ev.state, "active");

	s = spec_of("18d1:4ee1");
	assert_int_equal(bn_usb_host_open(&h, W->sys, &s, NULL, &err), BN_OK);
	assert_string_equal(h.name, "1-3.4");

	s = spec_of("1209:0001");
	assert_int_equal(bn_usb_host_open(&h, W->sys, &s, &ev, &err), BN_ERR_ARG);
	assert_int_equal(ev.rc, BN_ERR_ARG);
	assert_msg_has(&err, "2 USB devices match 1209:0001");
	assert_msg_has(&err, "(1-1, 1-2)");
	assert_msg_has(&err, "VID:PID:SERIAL");

	bn_err_clear(&err);
	s = spec_of("1209:0001:CCC");
	assert_int_equal(bn_usb_host_open(&h, W->sys, &s, NULL, &err), BN_ERR_FAULT);
	assert_msg_has(&err, "no USB device 1209:0001 (serial CCC) under ");
	assert_msg_has(&err, "/sys/bus/usb/devices (3 USB devices there)");
}

static void test_usb_host__descriptors(void **state)
{
	struct bn_usb_host h;
	struct bn_usb_desc d;
	struct bn_err err = { 0 };

	(void)state;
	plug_dut();
	open_dut(&h);
	assert_int_equal(h.num_configs, 2);
	assert_string_equal(h.speed, "480");
	assert_int_equal(h.desc.dev.vid, 0x1209);
	assert_int_equal(h.desc.n_configs, 2);
	assert_int_equal(h.desc.cfg[0].value, 1);
	assert_int_equal(h.desc.cfg[0].max_power_ma, 100);
	assert_false(h.desc.cfg[0].self_powered);
	assert_false(h.desc.cfg[0].remote_wakeup);
	assert_int_equal(h.desc.cfg[0].n_other, 1); /* the CDC header */
	assert_int_equal(h.desc.cfg[1].value, 2);
	assert_int_equal(h.desc.cfg[1].max_power_ma, 500);
	assert_true(h.desc.cfg[1].self_powered);
	assert_true(h.desc.cfg[1].remote_wakeup);
	assert_int_equal(h.desc.cfg[1].n_ifaces, 2);
	assert_int_equal(h.desc.cfg[1].iface[1].iface_class, CLASS_DATA);

	/* The same bytes through libusb (GET_DESCRIPTOR), at that address,
	 * and no handle left open. */
	assert_int_equal(bn_usb_read_at(&h.spec, (uint8_t)h.busnum, (uint8_t)h.devnum, &d, &err), BN_OK);
	assert_int_equal(d.n_configs, 2);
	assert_int_equal(d.cfg[0].max_power_ma, 100);
	assert_int_equal(d.cfg[1].max_power_ma, 500);
	assert_true(d.cfg[1].self_powered);
	assert_int_equal(d.cfg[1].total_length, h.desc.cfg[1].total_length);
	assert_fake_clean();
	assert_int_equal(bn_usb_read_at(&h.spec, 1, 6, &d, &err), BN_ERR_IO);
	assert_msg_has(&err, "no USB device 1209:0001 (serial BBB) on bus 1 address 6");
	assert_fake_clean();
}

/* bMaxPower counts 8 mA on a SuperSpeed link, as the kernel's speed file
 * says the link is. */
static void test_usb_host__superspeed_unit(void **state)
{
	static const struct tcfg ss[] = { { .value = 1, .attributes = 0x80, .max_power_raw = 112,
					    .n_if = 1, .if_class = { CLASS_VENDOR } } };
	struct bn_usb_host h;

	(void)state;
	plug("2-1", 3, 0x1209, 0x0001, "BBB", "5000", 0x0320, ss, 1);
	open_dut(&h);
	assert_string_equal(h.name, "2-1");
	assert_int_equal(h.desc.cfg[0].max_power_ma, 896);
}

static void test_usb_host__descriptors_bad(void **state)
{
	struct bn_usb_host h;
	struct bn_usb_spec s = spec_of("1209:0001:BBB");
	struct bn_err err = { 0 };
	char p[SK_PATH_LEN];

	(void)state;
	plug_dut();
	/* cut inside configuration 2's set */
	sysfs_kernel_path(&W->k, "1-1", "descriptors", p, sizeof(p));
	assert_int_equal(truncate(p, 18 + 9 + 9 + 5 + 7 + 12), 0);
	assert_int_equal(bn_usb_host_open(&h, W->sys, &s, NULL, &err), BN_ERR_DATA);
	assert_msg_has(&err, "/1-1/descriptors: configuration index 1 (offset 48): configuration "
			     "descriptors: offset 2: wTotalLength");
	assert_msg_has(&err, "(truncated)");
}

/* ---- configurations ---- */

/* The kernel's own choice is read, not assumed: here it passes over a
 * vendor-specific first configuration for configuration 2. */
static void test_usb_host__kernel_choice(void **state)
{
	static const struct tcfg cfgs[] = {
		{ .value = 1, .attributes = 0x80, .max_power_raw = 50, .n_if = 1,
		  .if_class = { CLASS_VENDOR } },
		{ .value = 2, .attributes = 0x80, .max_power_raw = 50, .n_if = 1,
		  .if_class = { CLASS_CDC } },
	};
	struct bn_usb_host h;
	struct bn_usb_host_ev ev;
	struct bn_err err = { 0 };

	(void)state;
	plug("1-1", 5, 0x1209, 0x0001, "BBB", "480", 0x0200, cfgs, 2);
	open_dut(&h);
	assert_int_equal(bn_usb_host_wait_configured(&h, 1000, NULL, &ev, &err), BN_OK);
	assert_int_equal(ev.act, BN_USB_HOST_KERNEL_CONFIG);
	assert_int_equal(ev.config_after, 2);
	assert_int_equal(h.config, 2);
	assert_true(ev.already);
	assert_true(ev.t_seen_us > 0);
	assert_int_equal(ev.t_cmd_us, -1);
}

/* A port that cannot power any configuration: the kernel leaves the
 * device unconfigured, and the wait says why. */
static void test_usb_host__kernel_leaves_unconfigured(void **state)
{
	struct bn_usb_host h;
	struct bn_usb_host_ev ev;
	struct bn_err err = { 0 };
	int64_t t0;

	(void)state;
	W->k.port_budget_ma = 50;
	plug_dut();
	open_dut(&h);
	assert_int_equal(h.config, 0);
	assert_string_equal(attr("1-1", "bConfigurationValue"), "");
	t0 = now_us();
	assert_int_equal(bn_usb_host_wait_configured(&h, 100, NULL, &ev, &err), BN_ERR_TIMEOUT);
	assert_true(now_us() - t0 >= 99000);
	assert_int_equal(ev.config_after, 0);
	assert_int_equal(ev.t_seen_us, -1);
	assert_msg_has(&err, "still unconfigured after 100 ms");
	assert_msg_has(&err, "insufficient available bus power");
}

static void test_usb_host__set_config(void **state)
{
	struct bn_usb_host h;
	struct bn_usb_host_ev ev;
	struct bn_err err = { 0 };

	(void)state;
	sysfs_kernel_add_driver(&W->k, CLASS_CDC, "acm_pm", true);
	plug_dut();
	open_dut(&h);
	assert_true(exists("1-1", "1-1:1.0/driver"));
	kernel_start();
	if (bn_usb_host_set_config(&h, 2, 1000, &ev, &err) != BN_OK)
		fail_msg("%s", err.msg);
	assert_int_equal(ev.act, BN_USB_HOST_SET_CONFIG);
	assert_int_equal(ev.route, BN_USB_ROUTE_SYSFS);
	assert_int_equal(ev.config_before, 1);
	assert_int_equal(ev.config_asked, 2);
	assert_int_equal(ev.config_after, 2);
	assert_true(ev.t_cmd_us > 0);
	assert_true(ev.t_cmd_us <= ev.t_cmd_end_us);
	assert_true(ev.t_cmd_end_us <= ev.t_seen_us);
	assert_int_equal(h.config, 2);
	/* what the kernel made of it: configuration 2's interfaces, bound */
	assert_string_equal(attr("1-1", "bConfigurationValue"), "2");
	assert_false(exists("1-1", "1-1:1.0"));
	assert_true(exists("1-1", "1-1:2.0/driver"));
	assert_true(exists("1-1", "1-1:2.1"));
	assert_string_equal(attr("1-1", "bMaxPower"), "500mA");

	/* unconfigured: -1 is written (0 would install a configuration 0) */
	assert_int_equal(bn_usb_host_set_config(&h, 0, 1000, &ev, &err), BN_OK);
	assert_int_equal(ev.config_before, 2);
	assert_int_equal(ev.config_after, 0);
	assert_string_equal(attr("1-1", "bConfigurationValue"), "");
	assert_false(exists("1-1", "1-1:2.0"));
	assert_fake_clean();
}

static void test_usb_host__set_config_not_advertised(void **state)
{
	struct bn_usb_host h;
	struct bn_usb_host_ev ev;
	struct bn_err err = { 0 };

	(void)state;
	plug_dut();
	open_dut(&h);
	assert_int_equal(bn_usb_host_set_config(&h, 3, 100, &ev, &err), BN_ERR_ARG);
	assert_msg_has(&err, "no configuration 3: its descriptors advertise 1, 2 (");
	assert_int_equal(ev.t_cmd_us, -1);
	assert_int_equal(ev.route, BN_USB_ROUTE_NONE);
	assert_string_equal(attr("1-1", "bConfigurationValue"), "1");
}

/* The write is accepted but the device does not end in the configuration
 * (here: the kernel puts the old one back): named with both values. */
static void test_usb_host__set_config_not_taken(void **state)
{
	struct bn_usb_host h;
	struct bn_usb_host_ev ev;
	struct bn_err err = { 0 };

	(void)state;
	W->k.refuse_config = true;
	plug_dut();
	open_dut(&h);
	kernel_start();
	assert_int_equal(bn_usb_host_set_config(&h, 2, 200, &ev, &err), BN_ERR_FAULT);
	assert_int_equal(ev.rc, BN_ERR_FAULT);
	assert_int_equal(ev.config_after, 1);
	assert_int_equal(ev.t_seen_us, -1);
	assert_msg_has(&err, "configuration 2 asked (sysfs), but ");
	assert_msg_has(&err, "/1-1/bConfigurationValue reads 1 after 200 ms");
}

/* sysfs refuses the bench user (bConfigurationValue is root's): the
 * usbfs route, the interfaces' drivers detached first, the handle closed
 * after. */
static void test_usb_host__set_config_usbfs(void **state)
{
	struct bn_usb_host h;
	struct bn_usb_host_ev ev;
	struct bn_err err = { 0 };
	int rc;

	(void)state;
	sysfs_kernel_add_driver(&W->k, CLASS_CDC, "acm_pm", true);
	plug_dut();
	open_dut(&h);
	kernel_start();
	chmod_attr("1-1", "bConfigurationValue", 0444);
	if (!dac_override(false))
		skip();
	rc = bn_usb_host_set_config(&h, 2, 1000, &ev, &err);
	dac_override(true);
	if (rc != BN_OK)
		fail_msg("%s", err.msg);
	assert_int_equal(ev.route, BN_USB_ROUTE_USBFS);
	assert_int_equal(ev.config_after, 2);
	assert_int_equal(W->f.n_detach, 1);       /* 1-1:1.0's driver */
	assert_int_equal(W->f.n_set_config, 1);
	assert_int_equal(W->f.last_set_config, 2);
	assert_true(exists("1-1", "1-1:2.0/driver"));
	assert_fake_clean();
}

/* Neither route is open: refused, naming the file, errno and the cure,
 * and usbfs's answer. */
static void test_usb_host__set_config_refused(void **state)
{
	struct bn_usb_host h;
	struct bn_usb_host_ev ev;
	struct bn_err err = { 0 };
	char node[SK_PATH_LEN], want[SK_PATH_LEN + 200];
	int rc;

	(void)state;
	plug_dut();
	open_dut(&h);
	chmod_attr("1-1", "bConfigurationValue", 0444);
	sysfs_kernel_node(&W->k, 1, 5, node, sizeof(node));
	assert_int_equal(chmod(node, 0444), 0);
	if (!dac_override(false))
		skip();
	rc = bn_usb_host_set_config(&h, 2, 100, &ev, &err);
	dac_override(true);
	assert_int_equal(rc, BN_ERR_ENV);
	assert_int_equal(ev.rc, BN_ERR_ENV);
	snprintf(want, sizeof(want), "%s/bus/usb/devices/1-1/bConfigurationValue: cannot write: "
				     "Permission denied: writing it needs root, or the udev rule ",
		 W->sys);
	assert_msg_has(&err, want);
	assert_msg_has(&err, "nor through usbfs: USB device 1209:0001 (serial BBB) on bus 1 address "
			     "5: cannot open it");
	assert_true(W->f.n_open_refused >= 1);
	assert_string_equal(attr("1-1", "bConfigurationValue"), "1");
	assert_fake_clean();
}

static void test_usb_host__choose(void **state)
{
	struct bn_usb_host h;

	(void)state;
	plug_dut();
	open_dut(&h);
	assert_int_equal(bn_usb_host_choose(&h.desc, 500), 2);
	assert_int_equal(bn_usb_host_choose(&h.desc, 499), 1);
	assert_int_equal(bn_usb_host_choose(&h.desc, 100), 1);
	assert_int_equal(bn_usb_host_choose(&h.desc, 99), 0);
}

/* ---- suspend and resume ---- */

static void test_usb_host__suspend_resume(void **state)
{
	struct bn_usb_host h;
	struct bn_usb_host_ev ev;
	struct bn_err err = { 0 };

	(void)state;
	sysfs_kernel_add_driver(&W->k, CLASS_CDC, "acm_pm", true);
	/* the kernel takes 30 ms: the time seen must be the state's, not
	 * the command's */
	W->k.suspend_latency_us = 30000;
	plug_dut();
	open_dut(&h);
	kernel_start();
	if (bn_usb_host_suspend(&h, 2000, NULL, &ev, &err) != BN_OK)
		fail_msg("%s", err.msg);
	assert_int_equal(ev.act, BN_USB_HOST_SUSPEND);
	assert_string_equal(ev.state, "suspended");
	assert_false(ev.already);
	assert_int_equal(ev.block, BN_USB_BLOCK_NONE);
	assert_true(ev.t_cmd_us > 0 && ev.t_cmd_us <= ev.t_cmd_end_us);
	assert_true(ev.t_seen_us - ev.t_cmd_us >= 30000);
	assert_int_equal(ev.poll_us, BN_USB_HOST_POLL_US);
	assert_string_equal(attr("1-1", "power/control"), "auto");
	assert_string_equal(attr("1-1", "power/autosuspend_delay_ms"), "0");

	if (bn_usb_host_resume(&h, 1000, NULL, &ev, &err) != BN_OK)
		fail_msg("%s", err.msg);
	assert_int_equal(ev.act, BN_USB_HOST_RESUME);
	assert_string_equal(ev.state, "active");
	assert_false(ev.already);
	assert_true(ev.t_cmd_us > 0 && ev.t_cmd_us <= ev.t_seen_us);
	assert_string_equal(attr("1-1", "power/control"), "on");

	/* resumed again: already so, nothing wrong */
	assert_int_equal(bn_usb_host_resume(&h, 1000, NULL, &ev, &err), BN_OK);
	assert_true(ev.already);

	/* close puts back what it found (delay first, then control) */
	set_attr("1-1", "power/control", "auto");
	bn_usb_host_close(&h);
	assert_string_equal(attr("1-1", "power/autosuspend_delay_ms"), "2000");
	assert_string_equal(attr("1-1", "power/control"), "on");
	assert_fake_clean();
}

/* A driver bound to an interface that does not support autosuspend (a
 * serial driver without it): the kernel never suspends; the message
 * names the interface and the driver. */
static void test_usb_host__suspend_blocked_by_driver(void **state)
{
	struct bn_usb_host h;
	struct bn_usb_host_ev ev;
	struct bn_err err = { 0 };
	int64_t t0;

	(void)state;
	sysfs_kernel_add_driver(&W->k, CLASS_CDC, "acm_nopm", false);
	plug_dut();
	open_dut(&h);
	kernel_start();
	t0 = now_us();
	assert_int_equal(bn_usb_host_suspend(&h, 150, NULL, &ev, &err), BN_ERR_ENV);
	assert_true(now_us() - t0 >= 149000);
	assert_int_equal(ev.rc, BN_ERR_ENV);
	assert_int_equal(ev.block, BN_USB_BLOCK_DRIVER);
	assert_string_equal(ev.block_iface, "1-1:1.0");
	assert_string_equal(ev.block_driver, "acm_nopm");
	assert_int_equal(ev.t_seen_us, -1);
	assert_true(ev.t_cmd_us > 0);
	assert_string_equal(ev.state, "active");
	assert_msg_has(&err, "not suspended within 150 ms of power/control \"auto\"");
	assert_msg_has(&err, "interface 1-1:1.0 is bound to driver \"acm_nopm\", which does not "
			     "support autosuspend (1-1:1.0/supports_autosuspend 0)");
	assert_msg_has(&err, "/bus/usb/drivers/acm_nopm/unbind");
}

/* Our own usbfs handle open: the kernel counts it as a use. */
static void test_usb_host__suspend_blocked_by_usbfs(void **state)
{
	struct bn_usb_host h;
	struct bn_usb_host_ev ev;
	struct bn_err err = { 0 };
	libusb_context *ctx;
	libusb_device **list;
	libusb_device_handle *dh = NULL;
	ssize_t n;

	(void)state;
	plug_dut();
	open_dut(&h);
	kernel_start();
	assert_int_equal(libusb_init(&ctx), 0);
	n = libusb_get_device_list(ctx, &list);
	assert_int_equal(n, 1);
	assert_int_equal(libusb_open(list[0], &dh), 0);
	libusb_free_device_list(list, 1);

	assert_int_equal(bn_usb_host_suspend(&h, 150, NULL, &ev, &err), BN_ERR_TIMEOUT);
	assert_int_equal(ev.block, BN_USB_BLOCK_USAGE);
	assert_int_equal(ev.block_count, 1);
	assert_msg_has(&err, "power/runtime_usage reads 1: the device is held busy (an open usbfs "
			     "file");

	libusb_close(dh);
	libusb_exit(ctx);
	bn_err_clear(&err);
	if (bn_usb_host_suspend(&h, 2000, NULL, &ev, &err) != BN_OK)
		fail_msg("%s", err.msg);
	assert_string_equal(ev.state, "suspended");
	assert_fake_clean();
}

/* Runtime PM disabled for the device: named. No kernel runs here. */
static void test_usb_host__suspend_rpm_off(void **state)
{
	struct bn_usb_host h;
	struct bn_usb_host_ev ev;
	struct bn_err err = { 0 };

	(void)state;
	plug_dut();
	open_dut(&h);
	set_attr("1-1", "power/runtime_status", "unsupported\n");
	assert_int_equal(bn_usb_host_suspend(&h, 30, NULL, &ev, &err), BN_ERR_ENV);
	assert_int_equal(ev.block, BN_USB_BLOCK_RPM_OFF);
	assert_msg_has(&err, "power/runtime_status reads \"unsupported\": runtime power management "
			     "is disabled for it");
}

struct meddler {
	pthread_t t;
	atomic_bool stop;
};

/* Someone else (a udev rule, a power tool) puts power/control back to
 * "on" whenever it reads "auto". */
static void *meddle(void *p)
{
	struct meddler *m = p;
	struct timespec ts = { 0, 500000 };

	while (!atomic_load(&m->stop)) {
		char path[SK_PATH_LEN], buf[16] = "";
		FILE *f;

		sysfs_kernel_path(&W->k, "1-1", "power/control", path, sizeof(path));
		f = fopen(path, "r");
		if (f) {
			if (!fgets(buf, sizeof(buf), f))
				buf[0] = 0;
			fclose(f);
		}
		if (!strncmp(buf, "auto", 4) && (f = fopen(path, "w"))) {
			fputs("on\n", f);
			fclose(f);
		}
		nanosleep(&ts, NULL);
	}
	return NULL;
}

static void test_usb_host__suspend_control_written_back(void **state)
{
	struct bn_usb_host h;
	struct bn_usb_host_ev ev;
	struct bn_err err = { 0 };
	struct meddler m = { 0 };
	int rc;

	(void)state;
	/* a kernel slow to suspend: the meddler's "on" is what it finds */
	W->k.suspend_latency_us = 10 * 1000000;
	plug_dut();
	open_dut(&h);
	kernel_start();
	assert_int_equal(pthread_create(&m.t, NULL, meddle, &m), 0);
	rc = bn_usb_host_suspend(&h, 300, NULL, &ev, &err);
	atomic_store(&m.stop, true);
	pthread_join(m.t, NULL);
	assert_int_equal(rc, BN_ERR_ENV);
	assert_int_equal(ev.block, BN_USB_BLOCK_CONTROL_ON);
	assert_msg_has(&err, "power/control reads \"on\" again: something wrote it back");
}

static void test_usb_host__suspend_stop_flag(void **state)
{
	struct bn_usb_host h;
	struct bn_usb_host_ev ev;
	struct bn_err err = { 0 };
	volatile sig_atomic_t stop = 1;
	int64_t t0;

	(void)state;
	plug_dut();
	open_dut(&h);
	t0 = now_us();
	/* an hour: only the flag ends it */
	assert_int_equal(bn_usb_host_suspend(&h, 3600 * 1000, &stop, &ev, &err), BN_ERR_INTR);
	assert_true(now_us() - t0 < 10 * 1000000);
	assert_msg_has(&err, "waiting for power/runtime_status \"suspended\": interrupted");
}

/* ---- attach and detach through libusb ---- */

struct later {
	pthread_t t;
	int delay_ms;
	bool unplug;
	volatile sig_atomic_t *stop;    /* set this instead */
	_Atomic int64_t t_us;           /* when it acted */
};

static void *act_later(void *p)
{
	struct later *l = p;
	struct timespec ts = { l->delay_ms / 1000, (long)(l->delay_ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
	atomic_store(&l->t_us, now_us());
	if (l->stop)
		*l->stop = 1;
	else if (l->unplug)
		sysfs_kernel_unplug(&W->k, "1-1");
	else
		plug_dut();
	return NULL;
}

static void later_start(struct later *l, int delay_ms, bool unplug, volatile sig_atomic_t *stop)
{
	memset(l, 0, sizeof(*l));
	l->delay_ms = delay_ms;
	l->unplug = unplug;
	l->stop = stop;
	assert_int_equal(pthread_create(&l->t, NULL, act_later, l), 0);
}

static void attach_later(bool hotplug)
{
	struct bn_usb_spec s = spec_of("1209:0001:BBB");
	struct bn_usb_seen seen;
	struct bn_usb_when when;
	struct bn_err err = { 0 };
	struct later l;
	int rc;

	W->f.no_hotplug = !hotplug;
	later_start(&l, 100, false, NULL);
	rc = bn_usb_wait_attach_at(&s, 5000, NULL, &seen, &when, &err);
	pthread_join(l.t, NULL);
	if (rc != BN_OK)
		fail_msg("%s", err.msg);
	assert_false(when.at_start);
	assert_int_equal(when.hotplug, hotplug);
	assert_true(when.t_us >= atomic_load(&l.t_us));
	assert_int_equal(seen.bus, 1);
	assert_int_equal(seen.address, 5);
	assert_string_equal(seen.serial, "BBB");
	if (hotplug) {
		assert_true(W->f.n_hotplug_fired >= 1);
	} else {
		/* polling: libusb's event loop never ran */
		assert_int_equal(W->f.n_events, 0);
		assert_int_equal(W->f.n_hotplug_fired, 0);
	}
	assert_fake_clean();
}

static void test_usb_host__attach_hotplug(void **state)
{
	(void)state;
	attach_later(true);
}

static void test_usb_host__attach_polling(void **state)
{
	(void)state;
	attach_later(false);
}

static void test_usb_host__attach_already_there(void **state)
{
	struct bn_usb_spec s = spec_of("1209:0001:BBB");
	struct bn_usb_when when;
	struct bn_err err = { 0 };
	int64_t t0 = now_us();

	(void)state;
	plug_dut();
	assert_int_equal(bn_usb_wait_attach_at(&s, 5000, NULL, NULL, &when, &err), BN_OK);
	assert_true(when.at_start);
	assert_false(when.hotplug);
	assert_true(when.t_us >= t0);
	assert_fake_clean();
}

/* Another device of the same VID:PID arrives, ours never does. */
static void test_usb_host__attach_never(void **state)
{
	static const struct tcfg one[] = { { .value = 1, .attributes = 0x80, .max_power_raw = 50,
					     .n_if = 1, .if_class = { CLASS_VENDOR } } };
	struct bn_usb_spec s = spec_of("1209:0001:CCC");
	struct bn_err err = { 0 };
	int64_t t0;

	(void)state;
	plug("1-2", 8, 0x1209, 0x0001, "AAA", "480", 0x0200, one, 1);
	t0 = now_us();
	assert_int_equal(bn_usb_wait_attach_at(&s, 200, NULL, NULL, NULL, &err), BN_ERR_TIMEOUT);
	assert_true(now_us() - t0 >= 199000);
	assert_msg_has(&err, "USB device 1209:0001 (serial CCC) did not attach within 200 ms; 1 USB "
			     "device seen");
	assert_fake_clean();
}

static void test_usb_host__attach_stop_flag(void **state)
{
	struct bn_usb_spec s = spec_of("1209:0001:BBB");
	struct bn_err err = { 0 };
	volatile sig_atomic_t stop = 0;
	struct later l;
	int64_t t0 = now_us();
	int rc;

	(void)state;
	later_start(&l, 50, false, &stop);
	rc = bn_usb_wait_attach_at(&s, 3600 * 1000, &stop, NULL, NULL, &err);
	pthread_join(l.t, NULL);
	assert_int_equal(rc, BN_ERR_INTR);
	assert_true(now_us() - t0 >= 49000);
	assert_true(now_us() - t0 < 10 * 1000000);
	assert_msg_has(&err, "waiting for USB device 1209:0001 (serial BBB) to attach: interrupted");
	assert_fake_clean();
}

static void test_usb_host__detach_hotplug(void **state)
{
	struct bn_usb_spec s = spec_of("1209:0001:BBB");
	struct bn_usb_when when;
	struct bn_err err = { 0 };
	struct later l;
	int rc;

	(void)state;
	plug_dut();
	later_start(&l, 80, true, NULL);
	rc = bn_usb_wait_detach_at(&s, 5000, NULL, &when, &err);
	pthread_join(l.t, NULL);
	if (rc != BN_OK)
		fail_msg("%s", err.msg);
	assert_false(when.at_start);
	assert_true(when.hotplug);
	assert_true(when.t_us >= atomic_load(&l.t_us));
	assert_false(exists("1-1", ""));
	assert_fake_clean();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_usb_host__find_among_several, setup, teardown),
		cmocka_unit_test_setup_teardown(test_usb_host__descriptors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_usb_host__superspeed_unit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_usb_host__descriptors_bad, setup, teardown),
		cmocka_unit_test_setup_teardown(test_usb_host__kernel_choice, setup, teardown),
		cmocka_unit_test_setup_teardown(test_usb_host__kernel_leaves_unconfigured, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_usb_host__set_config, setup, teardown),
		cmocka_unit_test_setup_teardown(test_usb_host__set_config_not_advertised, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_usb_host__set_config_not_taken, setup, teardown),
		cmocka_unit_test_setup_teardown(test_usb_host__set_config_usbfs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_usb_host__set_config_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_usb_host__choose, setup, teardown),
		cmocka_unit_test_setup_teardown(test_usb_host__suspend_resume, setup, teardown),
		cmocka_unit_test_setup_teardown(test_usb_host__suspend_blocked_by_driver, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_usb_host__suspend_blocked_by_usbfs, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_usb_host__suspend_rpm_off, setup, teardown),
		cmocka_unit_test_setup_teardown(test_usb_host__suspend_control_written_back, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_usb_host__suspend_stop_flag, setup, teardown),
		cmocka_unit_test_setup_teardown(test_usb_host__attach_hotplug, setup, teardown),
		cmocka_unit_test_setup_teardown(test_usb_host__attach_polling, setup, teardown),
		cmocka_unit_test_setup_teardown(test_usb_host__attach_already_there, setup, teardown),
		cmocka_unit_test_setup_teardown(test_usb_host__attach_never, setup, teardown),
		cmocka_unit_test_setup_teardown(test_usb_host__attach_stop_flag, setup, teardown),
		cmocka_unit_test_setup_teardown(test_usb_host__detach_hotplug, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
