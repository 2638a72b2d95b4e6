/* The FTDI fixture backend: the fixture file's signals on an FTDI chip's
 * GPIO through libftdi1, in MPSSE (FT232H, FT2232H: "set data bits low
 * byte" 0x80 and "high byte" 0x82, each value and direction in one
 * command, so a pin never glitches through a wrong direction) or
 * asynchronous bitbang (FT232R and friends: each byte written is the
 * pins' state).
 *
 * Every change of state is one USB write, checked against the file's
 * illegal combinations before it is sent. A write only makes signals or
 * only breaks them: a change of port type breaks the data-line signals
 * the new network does not keep, waits release_ms (the relays' release
 * time), then makes the new ones, so no mixture of two networks ever
 * exists on the wires; any make waits release_ms after any break. Relay state is known only after a successful
 * write; after a failed one the next write is whole, never a delta.
 *
 * Spec (after "ftdi:" in bench.conf): empty (the file's vid, pid and
 * description), VID:PID[:SERIAL], or desc=TEXT / serial=TEXT. */
#define BN_LOG_MODULE "ftdi"
#include <errno.h>
#include <libftdi1/ftdi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/log.h"
#include "core/time.h"
#include "hil/backend.h"
#include "hil/fixture_def.h"

#define MPSSE_SET_LOW 0x80
#define MPSSE_GET_LOW 0x81
#define MPSSE_SET_HIGH 0x82
#define MPSSE_GET_HIGH 0x83
#define MPSSE_SEND_IMMEDIATE 0x87
#define READ_TIMEOUT_MS 500

struct ftdi_fixture {
	struct bn_fixture_def def;
	struct ftdi_context *ftdi;
	char who[400];          /* "fixture \"ftdi\" (bcbench-fixture-a, 0403:6014)" */
	uint32_t state;         /* signals on the wires, valid when known */
	bool known;
	uint16_t levels;        /* the last levels written, valid when levels_valid */
	bool levels_valid;
	int64_t break_us;       /* when data signals last opened, valid when broke */
	bool broke;
};

static int ftdi_fail(struct ftdi_fixture *f, const char *doing, int code, struct bn_err *err)
{
	return bn_err_set(err, code, "%s: %s: %s", f->who, doing,
			  f->ftdi ? ftdi_get_error_string(f->ftdi) : "no context");
}

static int64_t mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static int refuse(struct ftdi_fixture *f, uint32_t state, struct bn_err *err)
{
	char why[400], names[256];

	if (bn_fixture_def_legal(&f->def, state, why, sizeof(why)) == BN_OK)
		return BN_OK;
	bn_fixture_def_state_str(&f->def, state, names, sizeof(names));
	return bn_err_set(err, BN_ERR_ARG, "%s: refusing %s: %s (%s)", f->who, names, why,
			  f->def.path);
}

/* One USB write that puts state on the pins; none when nothing changes.
 * A write that closes any relay waits until the last one that opened has
 * had its release time, whenever that break was: a relay commanded open
 * is still closed for up to release_ms, and the rules (VBUS_EN with
 * ID_GND) are about contacts, not commands. */
static int write_state(struct ftdi_fixture *f, uint32_t state, struct bn_err *err)
{
	const struct bn_fixture_def *d = &f->def;
	uint16_t levels = bn_fixture_def_levels(d, state);
	uint32_t was = f->known ? f->state : ~0u; /* unknown: anything may have been on */
	unsigned char buf[6];
	char names[256];
	int n = 0, rc;

	rc = refuse(f, state, err);
	if (rc < 0)
		return rc;
	if (f->known && f->levels_valid && levels == f->levels)
		return BN_OK;
	if (state & ~was && f->broke) {
		int64_t left = f->break_us + (int64_t)d->release_ms * 1000 - mono_us();

		if (left > 0)
			bn_sleep_us(left); /* the release wait: a signal does not shorten it */
	}
	if (d->mode == BN_FX_BITBANG) {
		buf[n++] = (unsigned char)(levels & 0xff);
	} else {
		bool lo = !f->levels_valid || ((levels ^ f->levels) & 0x00ff);
		bool hi = !f->levels_valid || ((levels ^ f->levels) & 0xff00);

		if (lo) {
			buf[n++] = MPSSE_SET_LOW;
			buf[n++] = (unsigned char)(levels & 0xff);
			buf[n++] = (unsigned char)(d->out_pins & 0xff);
		}
		if (hi) {
			buf[n++] = MPSSE_SET_HIGH;
			buf[n++] = (unsigned char)(levels >> 8);
			buf[n++] = (unsigned char)(d->out_pins >> 8);
		}
	}
	f->known = f->levels_valid = false;
	rc = ftdi_write_data(f->ftdi, buf, n);
	if (rc != n) {
		bn_fixture_def_state_str(d, state, names, sizeof(names));
		return bn_err_set(err, BN_ERR_FAULT, "%s: writing %s: %s", f->who, names,
				  rc < 0 ? ftdi_get_error_string(f->ftdi) : "short write");
	}
	if (was & ~state) {
		f->break_us = mono_us();
		f->broke = true;
	}
	f->state = state;
	f->levels = levels;
	f->known = f->levels_valid = true;
	bn_dbg("%s: wrote %d bytes, state 0x%04x", f->who, n, (unsigned)state);
	return BN_OK;
}

/* Break, then make: from the present state to target. Signals of
 * switched (the data lines' port-side signals, the device side's, or
 * both) that target does not keep open first; VBUS and the load change
 * in the make. From an unknown state (after a failed write) everything
 * is opened first, since any relay may be closed. */
static int transition_of(struct ftdi_fixture *f, uint32_t target, uint32_t switched,
			 struct bn_err *err)
{
	uint32_t brk;
	int rc;

	/* Refuse before the first write, so a refused change leaves the
	 * old network in place rather than half of it. */
	rc = refuse(f, target, err);
	if (rc < 0)
		return rc;
	brk = f->known ? f->state & ~(switched & ~target) : 0;
	if (!f->known || brk != f->state) {
		rc = write_state(f, brk, err);
		if (rc < 0)
			return rc;
	}
	return write_state(f, target, err);
}

static int transition(struct ftdi_fixture *f, uint32_t target, struct bn_err *err)
{
	return transition_of(f, target, f->def.data_mask, err);
}

static int parse_spec(struct ftdi_fixture *f, const char *spec, int *vid, int *pid,
		      const char **desc, const char **serial, char *buf, size_t len,
		      struct bn_err *err)
{
	const struct bn_fixture_def *d = &f->def;
	unsigned v, p;
	int used = 0;

	*vid = d->vid;
	*pid = d->pid;
	*desc = d->usb_description[0] ? d->usb_description : NULL;
	*serial = d->usb_serial[0] ? d->usb_serial : NULL;
	if (!spec || !spec[0])
		goto check;
	if (strlen(spec) >= len)
		return bn_err_set(err, BN_ERR_ARG, "fixture \"ftdi:%.40s...\": longer than %zu characters",
				  spec, len - 1);
	snprintf(buf, len, "%s", spec);
	if (!strncmp(buf, "desc=", 5)) {
		*desc = buf + 5;
		goto check;
	}
	if (!strncmp(buf, "serial=", 7)) {
		*serial = buf + 7;
		goto check;
	}
	if (strspn(buf, "0123456789abcdefABCDEF") != 4 || buf[4] != ':' ||
	    strspn(buf + 5, "0123456789abcdefABCDEF") != 4 ||
	    sscanf(buf, "%4x:%4x%n", &v, &p, &used) != 2 || used != 9 ||
	    (buf[used] && buf[used] != ':'))
		return bn_err_set(err, BN_ERR_ARG,
				  "fixture \"ftdi:%s\": expected VID:PID[:SERIAL] (four hex digits "
				  "each, e.g. 0403:6014:FT1234AB), desc=TEXT or serial=TEXT",
				  spec);
	*vid = (int)v;
	*pid = (int)p;
	*desc = NULL; /* an explicit id wins over the file's description */
	if (buf[used] == ':' && buf[used + 1])
		*serial = buf + used + 1;
check:
	if (!*vid || !*pid)
		return bn_err_set(err, BN_ERR_ARG,
				  "fixture \"ftdi\": no USB ids: give ftdi:VID:PID in bench.conf or "
				  "\"ftdi\": {\"vid\", \"pid\"} in %s",
				  d->path);
	return BN_OK;
}

static int ftdifx_safe(void *priv, struct bn_err *err);

/* The last resort when writing states fails: every pin an input, within
 * the mode (0x80/0x82 with direction 0; bitbang with mask 0), then reset
 * mode, which drives only TXD, RTS# and DTR# (no signal may sit on those:
 * hil/fixture_def.h). Errors are ignored: there is nothing left to try. */
static void tristate(struct ftdi_fixture *f)
{
	static const unsigned char inputs[] = { MPSSE_SET_LOW, 0, 0, MPSSE_SET_HIGH, 0, 0 };

	if (f->def.mode == BN_FX_MPSSE)
		(void)ftdi_write_data(f->ftdi, inputs, (int)sizeof(inputs));
	else
		(void)ftdi_set_bitmode(f->ftdi, 0, BITMODE_BITBANG);
	(void)ftdi_set_bitmode(f->ftdi, 0, BITMODE_RESET);
	f->known = f->levels_valid = false;
}

static int ftdifx_open(void *priv, const struct bn_backend_open *o, struct bn_err *err)
{
	struct ftdi_fixture *f = priv;
	const struct bn_fixture_def *d = &f->def;
	char spec[128];
	const char *desc, *serial;
	int vid, pid, rc;

	if (!o || !o->file)
		return bn_err_set(err, BN_ERR_ARG,
				  "fixture \"ftdi\": needs fixture_file (the fixture's wiring)");
	rc = bn_fixture_def_load(&f->def, o->file, err);
	if (rc < 0)
		return rc;
	rc = parse_spec(f, o->spec, &vid, &pid, &desc, &serial, spec, sizeof(spec), err);
	if (rc < 0)
		return rc;
	snprintf(f->who, sizeof(f->who), "fixture \"ftdi\" (%s, %04x:%04x%s%s%s%s%s)", d->name, vid,
		 pid, serial ? ":" : "", serial ? serial : "", desc ? " \"" : "", desc ? desc : "",
		 desc ? "\"" : "");
	f->ftdi = ftdi_new();
	if (!f->ftdi)
		return bn_err_set(err, BN_ERR_NOMEM, "%s: ftdi_new failed", f->who);
	if (d->interface && ftdi_set_interface(f->ftdi, (enum ftdi_interface)d->interface) < 0) {
		rc = ftdi_fail(f, "selecting the interface", BN_ERR_FAULT, err);
		goto fail;
	}
	rc = ftdi_usb_open_desc_index(f->ftdi, vid, pid, desc, serial, 0);
	if (rc < 0) {
		/* libftdi: -3 no such device, -4/-5/-8 it is there but cannot be
		 * opened or claimed (permissions, another driver) */
		bn_err_set(err, BN_ERR_FAULT, "%s: %s; %s", f->who, ftdi_get_error_string(f->ftdi),
			   rc == -3 ? "is the fixture plugged in? `bcbench devices` lists the FTDI "
				      "devices it can see"
				    : "check the udev rules (fixtures/udev/60-bcbench.rules) and that "
				      "no other program holds it");
		rc = BN_ERR_FAULT; /* the bench is not there: exit 5, not bad input */
		goto fail_free;
	}
	/* From here the chip is ours: start from reset (every pin an input,
	 * so the board's pull-downs hold the relays open), then take the
	 * pins. A short latency timer makes input reads quick. */
	if (ftdi_usb_reset(f->ftdi) < 0) {
		rc = ftdi_fail(f, "USB reset", BN_ERR_FAULT, err);
		goto fail;
	}
	if (ftdi_set_bitmode(f->ftdi, 0, BITMODE_RESET) < 0) {
		rc = ftdi_fail(f, "resetting the bit mode", BN_ERR_FAULT, err);
		goto fail;
	}
	/* Every relay dropped out just now. */
	f->state = 0;
	f->known = f->broke = true;
	f->levels_valid = false;
	f->break_us = mono_us();
	if (ftdi_set_latency_timer(f->ftdi, 1) < 0) {
		rc = ftdi_fail(f, "setting the latency timer", BN_ERR_FAULT, err);
		goto fail;
	}
	if (ftdi_tcioflush(f->ftdi) < 0) {
		rc = ftdi_fail(f, "flushing the buffers", BN_ERR_FAULT, err);
		goto fail;
	}
	if (d->mode == BN_FX_MPSSE) {
		/* 0x80/0x82 give value and direction together */
		if (ftdi_set_bitmode(f->ftdi, 0, BITMODE_MPSSE) < 0) {
			rc = ftdi_fail(f, "entering MPSSE mode", BN_ERR_FAULT, err);
			goto fail;
		}
	} else {
		/* Bitbang drives the output latch the moment a pin becomes an
		 * output, and the latch starts at 0: every active-low relay
		 * would close. So latch "everything off" with every pin still an
		 * input, then turn the outputs on; the safe network (if it has
		 * relays on) is made by safe() after the release time. */
		unsigned char safe_levels = (unsigned char)(bn_fixture_def_levels(d, 0) & 0xff);

		if (ftdi_set_bitmode(f->ftdi, 0, BITMODE_BITBANG) < 0 ||
		    ftdi_write_data(f->ftdi, &safe_levels, 1) != 1 ||
		    ftdi_set_bitmode(f->ftdi, (unsigned char)(d->out_pins & 0xff), BITMODE_BITBANG) < 0) {
			rc = ftdi_fail(f, "entering bitbang mode", BN_ERR_FAULT, err);
			goto fail;
		}
		f->levels = safe_levels;
		f->levels_valid = true;
	}
	rc = ftdifx_safe(f, err);
	if (rc < 0)
		goto fail;
	bn_info("%s: open, %d signals, %d port types", f->who, d->nsignals, d->nports);
	return BN_OK;
fail:
	/* Back to reset: tri-stated pins are the hardware's safe state. */
	ftdi_set_bitmode(f->ftdi, 0, BITMODE_RESET);
	ftdi_usb_close(f->ftdi);
fail_free:
	ftdi_free(f->ftdi);
	f->ftdi = NULL;
	return rc;
}

static int ftdifx_connect(void *priv, const char *port_type, struct bn_err *err)
{
	struct ftdi_fixture *f = priv;
	const struct bn_fixture_def *d = &f->def;
	const struct bn_fx_port *p = bn_fixture_def_port(d, port_type);
	uint32_t keep = f->known ? f->state & ~d->data_mask : 0;

	if (!p) {
		char names[BN_FX_MAX_PORTS * (BN_FX_NAME_LEN + 2)] = "";

		for (int i = 0; i < d->nports; i++)
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
				 i ? ", " : "", d->ports[i].name);
		return bn_err_set(err, BN_ERR_ARG, "%s: no port type \"%s\" in %s (it has: %s)", f->who,
				  port_type, d->path, names);
	}
	return transition(f, keep | p->on, err);
}

/* The device goes with the plug: the device side's networks open too. */
static int ftdifx_disconnect(void *priv, struct bn_err *err)
{
	struct ftdi_fixture *f = priv;
	uint32_t lines = f->def.data_mask | f->def.dev_mask;
	uint32_t keep = f->known ? f->state & ~lines : 0;

	return transition_of(f, keep | f->def.safe, lines, err);
}

static unsigned ftdifx_device_nets(void *priv)
{
	return ((struct ftdi_fixture *)priv)->def.dev_nets;
}

/* Exactly nets of the device side on the lines, the port's network
 * kept (the bench plays the device against it): the device side's
 * signals that go open first, the release time, then those that come. */
static int ftdifx_device_side(void *priv, unsigned nets, struct bn_err *err)
{
	struct ftdi_fixture *f = priv;
	const struct bn_fixture_def *d = &f->def;
	uint32_t keep = f->known ? f->state & ~d->dev_mask : d->safe;

	if (nets & ~d->dev_nets) {
		char want[160];

		bn_fx_dev_nets_str(nets & ~d->dev_nets, want, sizeof(want));
		return bn_err_set(err, BN_ERR_NA, "%s: %s has no device-side network %s", f->who,
				  d->path, want);
	}
	return transition_of(f, keep | bn_fixture_def_dev_state(d, nets), d->dev_mask, err);
}

static const char *ftdifx_wiring(void *priv)
{
	return ((struct ftdi_fixture *)priv)->def.name;
}

static int switch_one(struct ftdi_fixture *f, int sig, bool on, struct bn_err *err)
{
	uint32_t bit = 1u << sig;
	uint32_t now = f->known ? f->state : f->def.safe;

	return transition(f, on ? now | bit : now & ~bit, err);
}

static int ftdifx_vbus(void *priv, bool on, struct bn_err *err)
{
	struct ftdi_fixture *f = priv;

	return switch_one(f, f->def.vbus_signal, on, err);
}

static int ftdifx_load_path(void *priv, bool on, struct bn_err *err)
{
	struct ftdi_fixture *f = priv;

	if (f->def.load_signal < 0)
		return on ? bn_err_set(err, BN_ERR_NA, "%s: %s has no load relay (role \"load\")",
				       f->who, f->def.path)
			  : BN_OK;
	return switch_one(f, f->def.load_signal, on, err);
}

static int read_levels(struct ftdi_fixture *f, uint16_t *levels, struct bn_err *err)
{
	if (f->def.mode == BN_FX_BITBANG) {
		unsigned char pins;

		if (ftdi_read_pins(f->ftdi, &pins) < 0)
			return ftdi_fail(f, "reading the pins", BN_ERR_FAULT, err);
		*levels = pins;
		return BN_OK;
	}
	{
		static const unsigned char cmd[] = { MPSSE_GET_LOW, MPSSE_GET_HIGH,
						     MPSSE_SEND_IMMEDIATE };
		unsigned char in[2];
		int got = 0;
		int64_t deadline = bn_deadline_ms(READ_TIMEOUT_MS);

		/* a late answer to an earlier read must not pass for this one */
		if (ftdi_tciflush(f->ftdi) < 0)
			return ftdi_fail(f, "flushing the input", BN_ERR_FAULT, err);
		if (ftdi_write_data(f->ftdi, cmd, (int)sizeof(cmd)) != (int)sizeof(cmd))
			return ftdi_fail(f, "asking for the pins", BN_ERR_FAULT, err);
		while (got < 2) {
			int rc = ftdi_read_data(f->ftdi, in + got, 2 - got);

			if (rc < 0)
				return ftdi_fail(f, "reading the pins", BN_ERR_FAULT, err);
			got += rc;
			if (got < 2 && !bn_ms_left(deadline))
				return bn_err_set(err, BN_ERR_TIMEOUT,
						  "%s: reading the pins: no answer in %d ms", f->who,
						  READ_TIMEOUT_MS);
		}
		*levels = (uint16_t)(in[0] | in[1] << 8);
	}
	return BN_OK;
}

static int ftdifx_inputs(void *priv, unsigned *bits, struct bn_err *err)
{
	struct ftdi_fixture *f = priv;
	uint16_t levels = 0;
	int rc;

	*bits = 0;
	if (!f->def.ninputs)
		return bn_err_set(err, BN_ERR_NA, "%s: %s has no inputs", f->who, f->def.path);
	rc = read_levels(f, &levels, err);
	if (rc < 0)
		return rc;
	for (int i = 0; i < f->def.ninputs; i++) {
		const struct bn_fx_input *in = &f->def.inputs[i];
		bool high = levels & (1u << in->pin);

		if (high == in->active_high)
			*bits |= 1u << i;
	}
	return BN_OK;
}

/* Load and VBUS open with the data lines as they are (only breaks), then
 * the safe network (after the release time if it makes anything). From
 * an unknown state everything opens first (transition). */
static int ftdifx_safe(void *priv, struct bn_err *err)
{
	struct ftdi_fixture *f = priv;

	if (!f->ftdi)
		return BN_OK;
	/* A failed first write leaves the state unknown: transition() then
	 * opens everything in one write, the last chance before giving up. */
	if (f->known)
		(void)write_state(f, f->state & (f->def.data_mask | f->def.dev_mask), err);
	return transition_of(f, f->def.safe, f->def.data_mask | f->def.dev_mask, err);
}

static void ftdifx_close(void *priv)
{
	struct ftdi_fixture *f = priv;
	struct bn_err e = { 0 };

	if (!f->ftdi)
		return;
	/* The chip keeps driving its pins after the USB handle goes: the
	 * safe state is written first, and only if that worked is the mode
	 * left alone; otherwise every pin is made an input (the board's
	 * pull-downs open the relays). */
	if (ftdifx_safe(f, &e) < 0) {
		bn_err_log("%s", e.msg);
		tristate(f);
	}
	ftdi_usb_close(f->ftdi);
	ftdi_free(f->ftdi);
	f->ftdi = NULL;
}

/* The device as it was opened: VID:PID, serial and description from the
 * spec or the fixture file, and the wiring's name. */
static void ftdifx_identity(void *priv, char *buf, size_t len)
{
	const struct ftdi_fixture *f = priv;
	const char *w = strchr(f->who, '(');

	snprintf(buf, len, "FTDI %.*s", w ? (int)strcspn(w + 1, ")") : 0, w ? w + 1 : "");
}

const struct bn_fixture_ops bn_fixture_ftdi_ops = {
	.name = "ftdi",
	.priv_size = sizeof(struct ftdi_fixture),
	.open = ftdifx_open,
	.connect = ftdifx_connect,
	.disconnect = ftdifx_disconnect,
	.vbus = ftdifx_vbus,
	.load_path = ftdifx_load_path,
	.inputs = ftdifx_inputs,
	.safe = ftdifx_safe,
	.close = ftdifx_close,
	.identity = ftdifx_identity,
	.device_nets = ftdifx_device_nets,
	.device_side = ftdifx_device_side,
	.wiring = ftdifx_wiring,
};
