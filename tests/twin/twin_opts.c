/* bcbench-twin's command line (twin_opts.h). */
#include "twin_opts.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"Usage: bcbench-twin [OPTIONS]\n"
	"The bench twin: the simulated world (port, charger, host, device and its\n"
	"firmware) behind emulated instruments, so `bcbench run` with a real bench.conf\n"
	"drives every real backend: the FTDI fixture (through bcbench-twin-host's\n"
	"libftdi1), an SCPI load on a pseudo-terminal, an SCPI supply on a local TCP\n"
	"port, a capture device libsigrok drives (see --capture), and the device's\n"
	"telemetry console on a pseudo-terminal. Once ready it prints the bench.conf\n"
	"lines a run needs; it runs until SIGTERM or \"quit\" on its control socket.\n"
	"\n"
	"  --datadir DIR            where profiles/ and fixtures/ are (default .)\n"
	"  --fixture-file FILE      the fixture's wiring (default\n"
	"                           DATADIR/fixtures/bcbench-fixture-a.json)\n"
	"  --port-types LIST        the fixture's port types to emulate, each with the\n"
	"                           port profile of its name or NAME=PROFILE, e.g.\n"
	"                           sdp,dcp,cdp=cdp-late (default: every port type with\n"
	"                           a profile of its name)\n"
	"  --charger NAME           the source the supply stands for (default ideal-5a)\n"
	"  --host NAME, --dut NAME  host and device profiles (default: built-in host,\n"
	"                           phone)\n"
	"  --firmware SPEC          the device's firmware (default: the dut's)\n"
	"  --battery V              the device's battery at the start, as a scenario's\n"
	"                           `battery` says (default: the dut's)\n"
	"  --limits NAME            limits file (default bc12)\n"
	"  --run-dir DIR            where its sockets go (default: a new\n"
	"                           /tmp/bcbench-twin.XXXXXX, removed at exit)\n"
	"  --log DIR                logs for a reader: fixture.log (decoded states),\n"
	"                           load.log, supply.log, capture.log (SCPI dialogues),\n"
	"                           capture-samples.tsv (values served to libsigrok),\n"
	"                           scope.log, scope-samples.tsv (the scope's\n"
	"                           acquisitions, every 100th frame with its time),\n"
	"                           console.log, world.log, usbhost.log, twin.log\n"
	"  --conf-out FILE          also write the bench.conf lines to FILE (atomically)\n"
	"  --supply-port P, --capture-port Q   TCP ports (default: free ones)\n"
	"  --without LIST           leave instruments out: load,supply,console,capture\n"
	"                           (without the supply, VBUS follows the fixture alone)\n"
	"  --capture pps|scope|none the capture device (default pps):\n"
	"                           pps: a Rigol DP711 for libsigrok's scpi-pps driver\n"
	"                           on a local TCP port, polled (about 48 frames/s);\n"
	"                           scope: the sample source of the fake Hantek 6022BE\n"
	"                           (tests/fakeusb) that libsigrok's hantek-6xxx driver\n"
	"                           drives in the run's process, on RUNDIR/scope.sock:\n"
	"                           CH1 = VBUS / 10 (a 10:1 probe), CH2 = IBUS x 1 ohm\n"
	"                           (a shunt); CONF.env gets BCBENCH_FAKEUSB_SCOPE and\n"
	"                           the LD_LIBRARY_PATH that loads the fake\n"
	"  --scope-rate HZ          the scope's rate, the world's sample clock:\n"
	"                           100k, 200k, 500k or 1M (default 100k)\n"
	"  --scope-shunt OHM        CH2's shunt (default 1): 5 ohm resolves 3.9 mA a\n"
	"                           step up to 0.5 A\n"
	"  --fakeusb DIR            where the fake libusb-1.0.so.0 is (default:\n"
	"                           ../fakeusb beside the twin's own program)\n"
	"The bench PC's kernel as the device's USB host (a fake USB core on a sysfs tree\n"
	"under the run dir; the conf gets dut_usb, and BCBENCH_SYSFS_ROOT=DIR is printed\n"
	"and written to CONF.env beside --conf-out; --log keeps usbhost.log):\n"
	"  --usb-host on|off        play it (default on); off: the host profile\n"
	"                           enumerates and suspends by itself, no dut_usb\n"
	"  --usb-port-ma MA         what the kernel's port gives at enumeration\n"
	"                           (default 500, a root port's)\n"
	"  --usb-driver NAME[:no-autosuspend]\n"
	"                           the driver the kernel binds to the device's\n"
	"                           interface (default none); :no-autosuspend: one\n"
	"                           that keeps the device from suspending\n"
	"Faults (counted in lines received; seconds from the fixture's first open,\n"
	"the capture's from its first value served):\n"
	"  --load-stall-after N, --load-vanish-after N\n"
	"  --supply-stall-after N, --supply-vanish-after N\n"
	"  --console-hangup-after-s S, --capture-stop-after-s S (the scope: from its\n"
	"  first frame sent; it is unplugged)\n"
	"Exit codes: 0 stopped as asked, 2 bad usage or input, 3 the world failed or\n"
	"the environment refused (sockets, ptys).\n";

static bool count(const char *opt, const char *arg, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(arg, &end, 10);
	if (end == arg || *end || errno || *out < 0) {
		fprintf(stderr, "bcbench-twin: %s \"%s\": expected a count (0 or more)\n", opt, arg);
		return false;
	}
	return true;
}

static bool seconds(const char *opt, const char *arg, double *out)
{
	char *end;

	*out = strtod(arg, &end);
	if (end == arg || *end || !isfinite(*out) || *out < 0) {
		fprintf(stderr, "bcbench-twin: %s \"%s\": expected seconds (0 or more)\n", opt, arg);
		return false;
	}
	return true;
}

/* "3.0V" or "3.0": a cell's open-circuit voltage. */
static bool battery(const char *arg, double *out)
{
	char *end;

	*out = strtod(arg, &end);
	if (*end == 'V')
		end++;
	if (end == arg || *end || !isfinite(*out) || *out <= 0 || *out > 20) {
		fprintf(stderr, "bcbench-twin: --battery \"%s\": expected volts (e.g. 3.0V)\n", arg);
		return false;
	}
	return true;
}

static bool shunt(const char *arg, double *out)
{
	char *end;

	*out = strtod(arg, &end);
	if (end == arg || *end || !isfinite(*out) || *out < 0.01 || *out > 1000) {
		fprintf(stderr, "bcbench-twin: --scope-shunt \"%s\": expected ohms (0.01 to 1000)\n", arg);
		return false;
	}
	return true;
}

static bool port(const char *opt, const char *arg, int *out)
{
	long v;

	if (!count(opt, arg, &v) || v > 65535) {
		fprintf(stderr, "bcbench-twin: %s \"%s\": expected a TCP port (0 to 65535)\n", opt, arg);
		return false;
	}
	*out = (int)v;
	return true;
}

static bool usb_host(const char *arg, struct twin_opts *o)
{
	if (strcmp(arg, "on") && strcmp(arg, "off")) {
		fprintf(stderr, "bcbench-twin: --usb-host \"%s\": expected on or off\n", arg);
		return false;
	}
	o->no_usb_host = !strcmp(arg, "off");
	return true;
}

static bool usb_port_ma(const char *arg, struct twin_opts *o)
{
	long v;

	if (!count("--usb-port-ma", arg, &v))
		return false;
	if (v < 1 || v > 2000) {
		fprintf(stderr, "bcbench-twin: --usb-port-ma \"%s\": expected mA (1 to 2000)\n", arg);
		return false;
	}
	o->usb_port_ma = (unsigned)v;
	return true;
}

/* NAME or NAME:no-autosuspend, a driver name as sysfs shows it. */
static bool usb_driver(char *arg, struct twin_opts *o)
{
	char *colon = strchr(arg, ':');
	size_t n = colon ? (size_t)(colon - arg) : strlen(arg);

	o->usb_driver_autosuspend = true;
	if (colon && strcmp(colon, ":no-autosuspend")) {
		fprintf(stderr, "bcbench-twin: --usb-driver \"%s\": expected NAME or "
				"NAME:no-autosuspend\n", arg);
		return false;
	}
	if (!n || n > 31 || strspn(arg, "abcdefghijklmnopqrstuvwxyz0123456789_-") < n) {
		fprintf(stderr, "bcbench-twin: --usb-driver \"%s\": a driver name is 1 to 31 of "
				"a-z 0-9 _ -\n", arg);
		return false;
	}
	if (colon) {
		*colon = '\0';
		o->usb_driver_autosuspend = false;
	}
	o->usb_driver = arg;
	return true;
}

static bool without(const char *arg, struct twin_opts *o)
{
	char buf[128], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", arg);
	for (char *it = strtok_r(buf, ",", &save); it; it = strtok_r(NULL, ",", &save)) {
		if (!strcmp(it, "load"))
			o->no_load = true;
		else if (!strcmp(it, "supply"))
			o->no_supply = true;
		else if (!strcmp(it, "console"))
			o->no_console = true;
		else if (!strcmp(it, "capture"))
			o->capture = TWIN_CAP_NONE;
		else {
			fprintf(stderr, "bcbench-twin: --without \"%s\": expected load, supply, console "
					"or capture\n", it);
			return false;
		}
	}
	return true;
}

static bool capture(const char *arg, struct twin_opts *o)
{
	if (!strcmp(arg, "pps"))
		o->capture = TWIN_CAP_PPS;
	else if (!strcmp(arg, "scope"))
		o->capture = TWIN_CAP_SCOPE;
	else if (!strcmp(arg, "none"))
		o->capture = TWIN_CAP_NONE;
	else {
		fprintf(stderr, "bcbench-twin: --capture \"%s\": expected pps, scope or none\n", arg);
		return false;
	}
	return true;
}

/* The hantek-6xxx driver's rates the world's microsecond clock can tick
 * at (1 MHz divisible by them). */
static bool scope_rate(const char *arg, struct twin_opts *o)
{
	static const struct { const char *name; uint32_t hz; } rates[] = {
		{ "100k", 100000 }, { "200k", 200000 }, { "500k", 500000 }, { "1M", 1000000 },
		{ "100000", 100000 }, { "200000", 200000 }, { "500000", 500000 }, { "1000000", 1000000 },
	};

	for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++)
		if (!strcmp(arg, rates[i].name)) {
			o->scope_rate_hz = rates[i].hz;
			return true;
		}
	fprintf(stderr, "bcbench-twin: --scope-rate \"%s\": expected 100k, 200k, 500k or 1M (the "
			"6022BE's rates the world's microsecond clock can keep)\n", arg);
	return false;
}

int twin_opts_parse(int argc, char **argv, struct twin_opts *o)
{
	enum { O_DATADIR = 256, O_FIXTURE, O_PORTS, O_CHARGER, O_HOST, O_DUT, O_FW, O_LIMITS,
	       O_RUNDIR, O_LOG, O_CONF, O_SPORT, O_CPORT, O_WITHOUT, O_LSTALL, O_LVANISH,
	       O_SSTALL, O_SVANISH, O_CHANGUP, O_CSTOP, O_USBHOST, O_USBMA, O_USBDRV, O_CAPTURE,
	       O_SRATE, O_FAKEUSB, O_BATTERY, O_SHUNT, O_HELP };
	static const struct option longs[] = {
		{ "datadir", required_argument, NULL, O_DATADIR },
		{ "fixture-file", required_argument, NULL, O_FIXTURE },
		{ "port-types", required_argument, NULL, O_PORTS },
		{ "charger", required_argument, NULL, O_CHARGER },
		{ "host", required_argument, NULL, O_HOST },
		{ "dut", required_argument, NULL, O_DUT },
		{ "firmware", required_argument, NULL, O_FW },
		{ "battery", required_argument, NULL, O_BATTERY },
		{ "limits", required_argument, NULL, O_LIMITS },
		{ "run-dir", required_argument, NULL, O_RUNDIR },
		{ "log", required_argument, NULL, O_LOG },
		{ "conf-out", required_argument, NULL, O_CONF },
		{ "supply-port", required_argument, NULL, O_SPORT },
		{ "capture-port", required_argument, NULL, O_CPORT },
		{ "without", required_argument, NULL, O_WITHOUT },
		{ "load-stall-after", required_argument, NULL, O_LSTALL },
		{ "load-vanish-after", required_argument, NULL, O_LVANISH },
		{ "supply-stall-after", required_argument, NULL, O_SSTALL },
		{ "supply-vanish-after", required_argument, NULL, O_SVANISH },
		{ "console-hangup-after-s", required_argument, NULL, O_CHANGUP },
		{ "capture-stop-after-s", required_argument, NULL, O_CSTOP },
		{ "usb-host", required_argument, NULL, O_USBHOST },
		{ "usb-port-ma", required_argument, NULL, O_USBMA },
		{ "usb-driver", required_argument, NULL, O_USBDRV },
		{ "capture", required_argument, NULL, O_CAPTURE },
		{ "scope-rate", required_argument, NULL, O_SRATE },
		{ "fakeusb", required_argument, NULL, O_FAKEUSB },
		{ "scope-shunt", required_argument, NULL, O_SHUNT },
		{ "help", no_argument, NULL, O_HELP },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	bool ok = true;

	memset(o, 0, sizeof(*o));
	o->datadir = ".";
	o->load_stall_after = o->load_vanish_after = -1;
	o->supply_stall_after = o->supply_vanish_after = -1;
	o->console_hangup_after_s = o->capture_stop_after_s = -1;
	o->capture = TWIN_CAP_PPS;
	o->scope_rate_hz = 100000;
	o->battery_v = NAN;
	opterr = 0;
	while (ok && (c = getopt_long(argc, argv, "", longs, NULL)) != -1) {
		switch (c) {
		case O_DATADIR: o->datadir = optarg; break;
		case O_FIXTURE: o->fixture_file = optarg; break;
		case O_PORTS: o->port_types = optarg; break;
		case O_CHARGER: o->charger = optarg; break;
		case O_HOST: o->host = optarg; break;
		case O_DUT: o->dut = optarg; break;
		case O_FW: o->firmware = optarg; break;
		case O_BATTERY: ok = battery(optarg, &o->battery_v); break;
		case O_LIMITS: o->limits = optarg; break;
		case O_RUNDIR: o->run_dir = optarg; break;
		case O_LOG: o->log_dir = optarg; break;
		case O_CONF: o->conf_out = optarg; break;
		case O_SPORT: ok = port("--supply-port", optarg, &o->supply_port); break;
		case O_CPORT: ok = port("--capture-port", optarg, &o->capture_port); break;
		case O_WITHOUT: ok = without(optarg, o); break;
		case O_LSTALL: ok = count("--load-stall-after", optarg, &o->load_stall_after); break;
		case O_LVANISH: ok = count("--load-vanish-after", optarg, &o->load_vanish_after); break;
		case O_SSTALL: ok = count("--supply-stall-after", optarg, &o->supply_stall_after); break;
		case O_SVANISH: ok = count("--supply-vanish-after", optarg, &o->supply_vanish_after); break;
		case O_CHANGUP:
			ok = seconds("--console-hangup-after-s", optarg, &o->console_hangup_after_s);
			break;
		case O_CSTOP:
			ok = seconds("--capture-stop-after-s", optarg, &o->capture_stop_after_s);
			break;
		case O_USBHOST: ok = usb_host(optarg, o); break;
		case O_USBMA: ok = usb_port_ma(optarg, o); break;
		case O_USBDRV: ok = usb_driver(optarg, o); break;
		case O_CAPTURE: ok = capture(optarg, o); break;
		case O_SRATE: ok = scope_rate(optarg, o); break;
		case O_FAKEUSB: o->fakeusb_dir = optarg; break;
		case O_SHUNT: ok = shunt(optarg, &o->scope_shunt_ohm); break;
		case O_HELP: fputs(usage, stdout); return 1;
		default:
			fprintf(stderr, "bcbench-twin: unknown option or missing value: %s\n%s",
				argv[optind - 1], usage);
			return 2;
		}
	}
	if (!ok)
		return 2;
	if (optind < argc) {
		fprintf(stderr, "bcbench-twin: unexpected argument \"%s\"\n%s", argv[optind], usage);
		return 2;
	}
	return 0;
}
