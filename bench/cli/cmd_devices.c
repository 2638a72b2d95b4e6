/* bcbench devices: what this machine can reach (hil/devices.c). */
#include <getopt.h>
#include <stdio.h>

#include "cli/cli.h"
#include "core/log.h"
#include "hil/devices.h"

const char bn_cli_devices_usage[] =
	"Usage: bcbench devices\n"
	"List what this machine can reach, asking each library itself: FTDI devices\n"
	"(libftdi1: the fixture), serial ports (libserialport: SCPI instruments, device\n"
	"consoles), sigrok drivers (libsigrok: capture devices) and USB devices (libusb:\n"
	"the device under test). Each section says plainly when it found none, and why\n"
	"when a library could not look (no /dev/bus/usb in a container; a device that\n"
	"cannot be opened lacks permission: see fixtures/udev/60-bcbench.rules).\n"
	"\n"
	"  -h, --help    this help\n"
	"\n"
	"Exit codes: 0 listed (whether or not anything was found), 2 bad usage.\n";

int bn_cli_devices(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, n;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'h': fputs(bn_cli_devices_usage, stdout); return 0;
		default: fputs(bn_cli_devices_usage, stderr); return 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "bcbench devices: takes no arguments\n%s", bn_cli_devices_usage);
		return 2;
	}
	bn_log_set_level(BN_LOG_ERR);
	n = bn_devices_print(stdout);
	printf("\n%d device%s found.%s\n", n, n == 1 ? "" : "s",
	       n ? "" : " The simulated bench (fixture = sim, the default) needs none.");
	return 0;
}
