/* bcbench-twin's command line. */
#ifndef BN_TWIN_OPTS_H
#define BN_TWIN_OPTS_H

#include <stdbool.h>
#include <stdint.h>

/* The capture device the twin serves: libsigrok's scpi-pps driver on TCP
 * (polled, about 48 frames a second), the fake Hantek 6022BE's sample
 * source (twin_scope.h; libsigrok's hantek-6xxx driver at 100 kHz), or
 * none. */
enum twin_capture { TWIN_CAP_PPS, TWIN_CAP_SCOPE, TWIN_CAP_NONE };

struct twin_opts {
	const char *datadir;       /* default "." */
	const char *fixture_file;  /* default DATADIR/fixtures/bcbench-fixture-a.json */
	const char *port_types, *charger, *host, *dut, *firmware, *limits;
	double battery_v;          /* NAN: the dut's */
	const char *run_dir;       /* sockets; default a fresh /tmp/bcbench-twin.XXXXXX */
	const char *log_dir;
	const char *conf_out;
	int supply_port, capture_port; /* 0: any free one */
	bool no_load, no_supply, no_console;
	enum twin_capture capture;                    /* default pps */
	uint32_t scope_rate_hz;                       /* the scope's rate: 0, 100 kHz */
	double scope_shunt_ohm;                       /* CH2's shunt; 0: 1 ohm */
	const char *fakeusb_dir;  /* the fake libusb-1.0's directory; NULL: beside the twin's */
	long load_stall_after, load_vanish_after;     /* < 0: never */
	long supply_stall_after, supply_vanish_after;
	double console_hangup_after_s;                /* < 0: never */
	double capture_stop_after_s;
	/* The bench PC's kernel as the device's USB host (twin_usbhost.h). */
	bool no_usb_host;
	unsigned usb_port_ma;                         /* 0: 500 */
	const char *usb_driver;                       /* NULL: none bound */
	bool usb_driver_autosuspend;
};

/* 0: parsed; 1: --help printed; 2: bad usage (message on stderr). */
int twin_opts_parse(int argc, char **argv, struct twin_opts *o);

#endif
