/* The hardware modules as absent: what `bcbench` (the binary users run)
 * links in place of the files that call libsigrok, libftdi1,
 * libserialport and libusb (the Makefile's HW_SRC), so it neither needs
 * nor loads those libraries (docs/design.md, "Two binaries"). bcbench
 * starts bcbench-hw, which has the real ones, before a command touches
 * hardware (cli/hw_exec.h); reaching any function here means that
 * decision was missed, so each one that can fail says so (BN_ERR_ENV,
 * exit 6) instead of pretending the device is not there.
 *
 * Only what the rest of the tool calls is here: a new call into a
 * hardware module from a file outside HW_SRC fails to link bcbench,
 * which is the point. Never part of libbcbench.a (the tests link the
 * real modules). */
#include <stdio.h>

#include "hil/backend.h"
#include "hil/devices.h"
#include "hil/hw_present.h"
#include "hil/serial.h"
#include "hil/sigrok_cap.h"
#include "hil/usb_dev.h"

const bool bn_hw_present = false;

static int absent(struct bn_err *err, const char *what)
{
	return bn_err_set(err, BN_ERR_ENV,
			  "%s: this bcbench is built without the hardware libraries "
			  "(libsigrok, libftdi1, libserialport, libusb); bcbench-hw has them, "
			  "and bcbench should have started it (a bug: please report it)",
			  what);
}

/* ---- hil/ftdi_fixture.c ---- */

static int ftdi_open(void *priv, const struct bn_backend_open *o, struct bn_err *err)
{
	return absent(err, "fixture ftdi");
}

static int ftdi_safe(void *priv, struct bn_err *err)
{
	return BN_OK;
}

static void ftdi_close(void *priv)
{
}

const struct bn_fixture_ops bn_fixture_ftdi_ops = {
	.name = "ftdi",
	.open = ftdi_open,
	.safe = ftdi_safe,
	.close = ftdi_close,
};

/* ---- hil/serial.c ---- */

int bn_serial_open(const char *path, int baud, struct bn_serial **out, struct bn_err *err)
{
	*out = NULL;
	return absent(err, path);
}

int bn_serial_wrap_fd(const char *name, int fd, bool message, struct bn_serial **out,
		      struct bn_err *err)
{
	*out = NULL;
	return absent(err, name);
}

int bn_serial_write(struct bn_serial *s, const void *buf, size_t len, int timeout_ms,
		    struct bn_err *err)
{
	return absent(err, "serial write");
}

int bn_serial_read_line(struct bn_serial *s, char *line, size_t cap, int timeout_ms,
			struct bn_err *err)
{
	return absent(err, "serial read");
}

void bn_serial_flush_input(struct bn_serial *s)
{
}

const char *bn_serial_path(const struct bn_serial *s)
{
	return "(no serial port)";
}

int bn_serial_parse_spec(const char *who, const char *usage, const char *spec, char *path,
			 size_t cap, int *baud, struct bn_err *err)
{
	if (cap)
		path[0] = '\0';
	return absent(err, who);
}

void bn_serial_close(struct bn_serial *s)
{
}

/* ---- hil/sigrok_cap.c ---- */

int bn_sigrok_cap_open(const struct bn_sigrok_cap_opts *o, struct bn_sigrok_cap **out,
		       struct bn_err *err)
{
	*out = NULL;
	return absent(err, "capture device");
}

const char *bn_sigrok_cap_describe(const struct bn_sigrok_cap *c)
{
	return "(no capture device)";
}

bn_time_us bn_sigrok_cap_stall_us(const struct bn_sigrok_cap *c)
{
	return 0;
}

void bn_sigrok_cap_freeze_clock(struct bn_sigrok_cap *c)
{
}

unsigned bn_sigrok_cap_channels(const struct bn_sigrok_cap *c)
{
	return 0;
}

double bn_sigrok_cap_rate(const struct bn_sigrok_cap *c)
{
	return 0;
}

bool bn_sigrok_cap_chan_info(struct bn_sigrok_cap *c, enum bn_chan ch,
			     struct bn_sigrok_chan_info *out)
{
	return false;
}

void bn_sigrok_cap_timing(struct bn_sigrok_cap *c, struct bn_sigrok_timing *out)
{
	*out = (struct bn_sigrok_timing){ 0 };
}

int bn_sigrok_cap_start(struct bn_sigrok_cap *c, struct bn_err *err)
{
	return absent(err, "capture device");
}

long bn_sigrok_cap_read(struct bn_sigrok_cap *c, struct bn_cap_frame *frames, long max,
			struct bn_err *err)
{
	return absent(err, "capture device");
}

int bn_sigrok_cap_stop(struct bn_sigrok_cap *c, struct bn_err *err)
{
	return BN_OK;
}

int64_t bn_sigrok_cap_dropped(struct bn_sigrok_cap *c)
{
	return 0;
}

void bn_sigrok_cap_close(struct bn_sigrok_cap *c)
{
}

int bn_sigrok_dev_limits(const struct bn_sigrok_cap_opts *o, struct bn_sigrok_limits *out,
			 struct bn_err *err)
{
	*out = (struct bn_sigrok_limits){ 0 };
	return absent(err, "capture device");
}

void bn_sigrok_limits_text(const struct bn_sigrok_limits *l, char *buf, size_t len)
{
	snprintf(buf, len, "(unknown: no libsigrok)");
}

/* ---- hil/usb_dev.c ---- */

int bn_usb_read(const struct bn_usb_spec *spec, struct bn_usb_desc *out,
		struct bn_usb_seen *seen, struct bn_err *err)
{
	return absent(err, "dut_usb");
}

int bn_usb_set_config_at(const struct bn_usb_spec *spec, uint8_t bus, uint8_t address, int value,
			 struct bn_err *err)
{
	return absent(err, "dut_usb");
}

/* ---- hil/devices.c ---- */

int bn_devices_print(FILE *out)
{
	fprintf(out, "bcbench: devices: this bcbench is built without the hardware "
		     "libraries; bcbench-hw lists them\n");
	return 0;
}

struct cJSON *bn_devices_json(void)
{
	return NULL;
}
