/* bcbench devices: what this machine can reach (hil/devices.c), and the
 * device under test bench.conf names (dut_usb), with what it advertises. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/exit.h"
#include "cli/common.h"
#include "cli/hw_exec.h"
#include "core/json.h"
#include "core/log.h"
#include "core/text.h"
#include "hil/devices.h"
#include "hil/sigrok_cap.h"
#include "hil/usb_dev.h"

const char bn_cli_devices_usage[] =
	"Usage: bcbench devices [--conf FILE] [--json]\n"
	"List what this machine can reach, asking each library itself: FTDI devices\n"
	"(libftdi1: the fixture), serial ports (libserialport: SCPI instruments, device\n"
	"consoles), sigrok drivers (libsigrok: capture devices) and USB devices (libusb).\n"
	"Each section says plainly when it found none, and why when a library could not\n"
	"look (no /dev/bus/usb in a container; a device that cannot be opened lacks\n"
	"permission: see fixtures/udev/60-bcbench.rules). When bench.conf names the\n"
	"device under test (dut_usb = VID:PID[:SERIAL]), its descriptors are read and\n"
	"its configurations listed (bMaxPower, self or bus powered). When it names a\n"
	"capture device (capture = sigrok:...), the device is found and opened and\n"
	"what it can do is listed: its analog channels and the rates it takes.\n"
	"\n"
	"  -c, --conf FILE   bench configuration (default ./bench.conf if present)\n"
	"      --json        one JSON document on stdout instead of the text (schema\n"
	"                    bcbench-devices/1; its keys in bcbench(1)); same exit codes\n"
	"  -h, --help        this help\n"
	"\n"
	"Exit codes (bcbench help has the table): 0 listed (whether or not anything\n"
	"was found), 2 bad usage or bench.conf, 5 the dut_usb device or the capture\n"
	"device is not there or cannot be read (a bench fault).\n";

static int print_dut(const char *text)
{
	struct bn_usb_spec spec;
	struct bn_usb_desc d;
	struct bn_usb_seen seen;
	struct bn_err err = { 0 };
	char id[200];

	printf("\nDevice under test (bench.conf dut_usb = %s):\n", text);
	if (bn_usb_spec_parse(text, &spec, &err) < 0) {
		printf("  %s\n", err.msg);
		return 2;
	}
	if (bn_usb_read(&spec, &d, &seen, &err) < 0) {
		printf("  not found: %s\n", err.msg);
		return BN_EXIT_BENCH_FAULT;
	}
	printf("  %s  bus %03u address %03u  %s %s  USB %x.%02x\n", bn_usb_spec_str(&spec, id, sizeof(id)),
	       seen.bus, seen.address, seen.manufacturer, seen.product, d.dev.bcd_usb >> 8,
	       d.dev.bcd_usb & 0xff);
	for (int i = 0; i < d.n_configs; i++)
		printf("  configuration %u: bMaxPower %u mA, %s-powered%s, %d interface%s\n",
		       d.cfg[i].value, d.cfg[i].max_power_ma, d.cfg[i].self_powered ? "self" : "bus",
		       d.cfg[i].remote_wakeup ? ", remote wake-up" : "", d.cfg[i].n_ifaces,
		       d.cfg[i].n_ifaces == 1 ? "" : "s");
	return 0;
}

/* The capture device bench.conf names, found and opened through
 * libsigrok: what it can do (its analog channels, the rates it takes),
 * so a map or a rate it cannot satisfy is seen before a run. */
static int print_capture(const struct bn_conf *conf)
{
	struct bn_sigrok_cap_opts o;
	struct bn_sigrok_limits lim;
	struct bn_err err = { 0 };
	char text[600];

	printf("\nCapture device (bench.conf capture = sigrok:%s%s%s):\n", conf->capture_driver,
	       conf->capture_conn[0] ? ":conn=" : "", conf->capture_conn);
	if (bn_cli_capture_opts(conf, &o, &err) < 0 || bn_sigrok_dev_limits(&o, &lim, &err) < 0) {
		printf("  %s\n", err.msg);
		return 1;
	}
	bn_sigrok_limits_text(&lim, text, sizeof(text));
	printf("  %s\n  %s\n", lim.desc, text);
	return 0;
}

static void add_clean(cJSON *o, const char *key, const char *s)
{
	char *clean = bn_utf8_sanitize(s, strlen(s));

	cJSON_AddStringToObject(o, key, clean ? clean : "");
	free(clean);
}

/* The device under test as JSON: {"spec", "found", "error", "bus",
 * "address", "manufacturer", "product", "usb", "configurations": [{
 * "value", "max_power_ma", "self_powered", "remote_wakeup",
 * "interfaces"}]}. The exit code as print_dut's. */
static int json_dut(cJSON *root, const char *text)
{
	cJSON *o = cJSON_AddObjectToObject(root, "dut"), *cfgs;
	struct bn_usb_spec spec;
	struct bn_usb_desc d;
	struct bn_usb_seen seen;
	struct bn_err err = { 0 };
	char usb[16];

	add_clean(o, "spec", text);
	if (bn_usb_spec_parse(text, &spec, &err) < 0) {
		cJSON_AddBoolToObject(o, "found", false);
		add_clean(o, "error", err.msg);
		return 2;
	}
	if (bn_usb_read(&spec, &d, &seen, &err) < 0) {
		cJSON_AddBoolToObject(o, "found", false);
		add_clean(o, "error", err.msg);
		return BN_EXIT_BENCH_FAULT;
	}
	cJSON_AddBoolToObject(o, "found", true);
	cJSON_AddNullToObject(o, "error");
	cJSON_AddNumberToObject(o, "bus", seen.bus);
	cJSON_AddNumberToObject(o, "address", seen.address);
	add_clean(o, "manufacturer", seen.manufacturer);
	add_clean(o, "product", seen.product);
	snprintf(usb, sizeof(usb), "%x.%02x", d.dev.bcd_usb >> 8, d.dev.bcd_usb & 0xff);
	cJSON_AddStringToObject(o, "usb", usb);
	cfgs = cJSON_AddArrayToObject(o, "configurations");
	for (int i = 0; i < d.n_configs; i++) {
		cJSON *c = cJSON_CreateObject();

		cJSON_AddNumberToObject(c, "value", d.cfg[i].value);
		cJSON_AddNumberToObject(c, "max_power_ma", d.cfg[i].max_power_ma);
		cJSON_AddBoolToObject(c, "self_powered", d.cfg[i].self_powered);
		cJSON_AddBoolToObject(c, "remote_wakeup", d.cfg[i].remote_wakeup);
		cJSON_AddNumberToObject(c, "interfaces", d.cfg[i].n_ifaces);
		cJSON_AddItemToArray(cfgs, c);
	}
	return 0;
}

/* The capture device as JSON: {"driver", "conn", "found", "error",
 * "description", "can"}. 0, or 1 when it is not there. */
static int json_capture(cJSON *root, const struct bn_conf *conf)
{
	cJSON *o = cJSON_AddObjectToObject(root, "capture");
	struct bn_sigrok_cap_opts opts;
	struct bn_sigrok_limits lim;
	struct bn_err err = { 0 };
	char text[600];

	add_clean(o, "driver", conf->capture_driver);
	add_clean(o, "conn", conf->capture_conn);
	if (bn_cli_capture_opts(conf, &opts, &err) < 0 || bn_sigrok_dev_limits(&opts, &lim, &err) < 0) {
		cJSON_AddBoolToObject(o, "found", false);
		add_clean(o, "error", err.msg);
		return 1;
	}
	bn_sigrok_limits_text(&lim, text, sizeof(text));
	cJSON_AddBoolToObject(o, "found", true);
	cJSON_AddNullToObject(o, "error");
	add_clean(o, "description", lim.desc);
	add_clean(o, "can", text);
	return 0;
}

static int devices_json(const struct bn_conf *conf)
{
	cJSON *root = bn_devices_json();
	int rc = 0;

	if (!root) {
		fprintf(stderr, "bcbench devices: out of memory\n");
		return BN_EXIT_ENVIRONMENT;
	}
	cJSON_AddStringToObject(root, "schema", "bcbench-devices/1");
	if (conf->dut_usb[0])
		rc = json_dut(root, conf->dut_usb);
	else
		cJSON_AddNullToObject(root, "dut");
	if (conf->capture_driver[0]) {
		if (json_capture(root, conf) && !rc)
			rc = BN_EXIT_BENCH_FAULT;
	} else {
		cJSON_AddNullToObject(root, "capture");
	}
	return bn_cli_print_json("devices", root, rc);
}

int bn_cli_devices(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "conf", required_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'J' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *conf_path = NULL;
	struct bn_conf conf;
	int c, n, rc = 0, json = 0;

	optind = 1;
	while ((c = getopt_long(argc, argv, "c:h", opts, NULL)) != -1) {
		switch (c) {
		case 'c': conf_path = optarg; break;
		case 'J': json = 1; break;
		case 'h': fputs(bn_cli_devices_usage, stdout); return 0;
		default: fputs(bn_cli_devices_usage, stderr); return 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "bcbench devices: takes no arguments\n%s", bn_cli_devices_usage);
		return 2;
	}
	if (bn_cli_conf(&conf_path, &conf))
		return 2;
	/* every section asks a hardware library */
	rc = bn_cli_hw_exec("bcbench devices", &conf, true);
	if (rc)
		return rc;
	bn_log_set_level(BN_LOG_ERR);
	if (json)
		return devices_json(&conf);
	n = bn_devices_print(stdout);
	printf("\n%d device%s found.%s\n", n, n == 1 ? "" : "s",
	       n ? "" : " The simulated bench (fixture = sim, the default) needs none.");
	if (conf.dut_usb[0])
		rc = print_dut(conf.dut_usb);
	if (conf.capture_driver[0] && print_capture(&conf) && !rc)
		rc = BN_EXIT_BENCH_FAULT;
	return rc;
}
