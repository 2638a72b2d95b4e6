/* The twin's FTDI chip (twin_chip.h). The pin model follows the FT232H
 * and FT232R data sheets as the strict unit-test fake does
 * (tests/unit/fake/ftdi_fake.c): reset mode is UART mode with TXD, RTS#
 * and DTR# (bits 0, 2, 4) driven high; MPSSE starts with every pin an
 * input and 0x80/0x82 set a byte's levels and directions together;
 * bitbang drives the output latch on the pins its mask makes outputs. */
#include "twin_chip.h"

#include <libftdi1/ftdi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define UART_PINS 0x15

void twin_chip_init(struct twin_chip *c, const struct bn_fixture_def *def)
{
	memset(c, 0, sizeof(*c));
	c->def = def;
	c->mode = BITMODE_RESET;
	c->dir = UART_PINS;
	c->level = UART_PINS;
	c->last_break_us = -1;
	c->state = twin_chip_decode(c);
}

uint32_t twin_chip_decode(const struct twin_chip *c)
{
	uint32_t on = 0;

	for (int i = 0; i < c->def->nsignals; i++) {
		const struct bn_fx_signal *s = &c->def->signals[i];
		bool driven = c->dir & (1u << s->pin);
		bool high = driven ? (c->level >> s->pin) & 1u : s->undriven_high;

		if (high == s->active_high)
			on |= 1u << i;
	}
	return on;
}

void twin_chip_names(const struct bn_fixture_def *d, uint32_t state, char *buf, size_t len)
{
	size_t o = 0;

	snprintf(buf, len, "(none)");
	for (int i = 0; i < d->nsignals; i++) {
		int w;

		if (!(state & (1u << i)))
			continue;
		w = snprintf(buf + o, len - o, "%s%s", o ? "+" : "", d->signals[i].name);
		if (w < 0 || (size_t)w >= len - o)
			return;
		o += (size_t)w;
	}
}

static void violate(struct twin_chip_result *res, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void violate(struct twin_chip_result *res, const char *fmt, ...)
{
	va_list ap;

	if (res->violation[0])
		return;
	va_start(ap, fmt);
	vsnprintf(res->violation, sizeof(res->violation), fmt, ap);
	va_end(ap);
}

/* The twin's own reading of the file's rules. */
static const char *broken_rule(const struct bn_fixture_def *d, uint32_t state)
{
	for (int i = 0; i < d->nrules; i++) {
		const struct bn_fx_rule *r = &d->rules[i];
		uint32_t hit = state & r->set;
		int n = 0;

		for (uint32_t v = hit; v; v &= v - 1)
			n++;
		if (r->kind == BN_FX_ALL ? hit == r->set : n > 1)
			return r->why;
	}
	return NULL;
}

/* The pins may have changed: decode, judge, record the step. */
static void pins_changed(struct twin_chip *c, int64_t now_us, uint32_t *made, uint32_t *broken,
			 struct twin_chip_result *res)
{
	uint32_t now = twin_chip_decode(c), old = c->state;
	const char *why;
	char names[256];

	if (now == old)
		return;
	*made |= now & ~old;
	*broken |= old & ~now;
	why = broken_rule(c->def, now);
	if (why) {
		twin_chip_names(c->def, now, names, sizeof(names));
		violate(res, "illegal state on the wires: %s (%s)", names, why);
	}
	if (now & ~old && c->last_break_us >= 0 &&
	    now_us - c->last_break_us < (int64_t)c->def->release_ms * 1000) {
		twin_chip_names(c->def, now & ~old, names, sizeof(names));
		violate(res, "made %s %lld us after a break (release time %d ms)", names,
			(long long)(now_us - c->last_break_us), c->def->release_ms);
	}
	if (old & ~now)
		c->last_break_us = now_us;
	if (res->nsteps < TWIN_CHIP_MAX_STEPS)
		res->steps[res->nsteps++] = now;
	c->state = now;
}

static uint16_t pins(const struct twin_chip *c, uint16_t board)
{
	return (uint16_t)((c->level & c->dir) | (board & ~c->dir));
}

static void do_open(struct twin_chip *c, const char *args, char *reply, size_t cap)
{
	unsigned vid = 0, pid = 0;

	if (sscanf(args, "%x %x", &vid, &pid) != 2) {
		snprintf(reply, cap, "ERR -3 device not found (the twin did not understand \"%.80s\")",
			 args);
		return;
	}
	/* The chip answers to the file's ids, as a real one to its EEPROM's. */
	if (c->def->vid && c->def->pid && ((int)vid != c->def->vid || (int)pid != c->def->pid)) {
		snprintf(reply, cap, "ERR -3 device not found (the twin's chip is %04x:%04x, not %04x:%04x)",
			 c->def->vid, c->def->pid, vid, pid);
		return;
	}
	c->open = true;
	snprintf(reply, cap, "OK");
}

static void do_bitmode(struct twin_chip *c, const char *args, int64_t now_us, char *reply,
		       size_t cap, struct twin_chip_result *res)
{
	unsigned mask, mode;
	uint32_t made = 0, broken = 0;

	if (sscanf(args, "%u %u", &mask, &mode) != 2) {
		snprintf(reply, cap, "ERR -1 bad BITMODE request");
		return;
	}
	c->mode = (int)mode;
	switch (mode) {
	case BITMODE_RESET:
		c->dir = UART_PINS;
		c->level |= UART_PINS;
		break;
	case BITMODE_BITBANG:
		c->dir = (uint16_t)mask;
		break;
	case BITMODE_MPSSE:
		c->dir = 0;
		break;
	default:
		violate(res, "ftdi_set_bitmode: mode 0x%02x is not one a GPIO fixture uses", mode);
	}
	pins_changed(c, now_us, &made, &broken, res);
	snprintf(reply, cap, "OK");
}

static void do_write(struct twin_chip *c, const char *hex, int64_t now_us, uint16_t board,
		     char *reply, size_t cap, struct twin_chip_result *res)
{
	unsigned char buf[1024], out[64];
	int size = 0, nout = 0;
	uint32_t made = 0, broken = 0;
	unsigned v;
	char names[256];

	while (size < (int)sizeof(buf) && sscanf(hex + 2 * size, "%2x", &v) == 1)
		buf[size++] = (unsigned char)v;
	c->writes++;
	if (size == 0)
		violate(res, "write %d: empty write", c->writes);
	if (c->mode == BITMODE_RESET) {
		violate(res, "write %d: %d bytes in reset mode go out of the UART", c->writes, size);
		size = 0;
	}
	for (int i = 0; i < size && c->mode == BITMODE_BITBANG; i++) {
		c->level = (uint16_t)((c->level & 0xff00) | buf[i]);
		pins_changed(c, now_us, &made, &broken, res);
	}
	for (int i = 0; i < size && c->mode == BITMODE_MPSSE;) {
		int shift = buf[i] == 0x82 || buf[i] == 0x83 ? 8 : 0;

		switch (buf[i]) {
		case 0x80:
		case 0x82:
			if (i + 3 > size) {
				violate(res, "write %d: MPSSE 0x%02x cut short", c->writes, buf[i]);
				i = size;
				break;
			}
			c->level = (uint16_t)((c->level & ~(0xffu << shift)) | buf[i + 1] << shift);
			c->dir = (uint16_t)((c->dir & ~(0xffu << shift)) | buf[i + 2] << shift);
			pins_changed(c, now_us, &made, &broken, res);
			i += 3;
			break;
		case 0x81:
		case 0x83:
			if (nout < (int)sizeof(out))
				out[nout++] = (unsigned char)(pins(c, board) >> shift);
			i++;
			break;
		case 0x87:
			i++;
			break;
		default:
			violate(res, "write %d: unknown MPSSE command 0x%02x at byte %d", c->writes,
				buf[i], i);
			i = size;
		}
	}
	if (made && broken) {
		twin_chip_names(c->def, made, names, sizeof(names));
		violate(res, "write %d: made %s in the same write as a break", c->writes, names);
	}
	snprintf(reply, cap, nout ? "OK " : "OK");
	for (int i = 0; i < nout && 3 + 2 * (size_t)i + 3 <= cap; i++)
		snprintf(reply + 3 + 2 * i, 3, "%02x", out[i]);
}

void twin_chip_request(struct twin_chip *c, const char *req, int64_t now_us, uint16_t board,
		       char *reply, size_t cap, struct twin_chip_result *res)
{
	memset(res, 0, sizeof(*res));
	if (!strncmp(req, "OPEN ", 5)) {
		do_open(c, req + 5, reply, cap);
		return;
	}
	if (!c->open) {
		snprintf(reply, cap, "ERR -1 USB device unavailable (the chip is not open)");
		return;
	}
	if (!strcmp(req, "CLOSE")) {
		c->open = false; /* the chip keeps its mode and pins: only the handle goes */
		snprintf(reply, cap, "OK");
	} else if (!strncmp(req, "ITF ", 4) || !strcmp(req, "RESET") || !strcmp(req, "FLUSH") ||
		   !strcmp(req, "IFLUSH")) {
		snprintf(reply, cap, "OK");
	} else if (!strncmp(req, "LATENCY ", 8)) {
		int ms = atoi(req + 8);

		if (ms < 1 || ms > 255) {
			snprintf(reply, cap, "ERR -1 latency out of range. Only valid for 1-255");
			return;
		}
		c->latency_ms = ms;
		snprintf(reply, cap, "OK");
	} else if (!strncmp(req, "BITMODE ", 8)) {
		do_bitmode(c, req + 8, now_us, reply, cap, res);
	} else if (!strncmp(req, "WRITE ", 6)) {
		do_write(c, req + 6, now_us, board, reply, cap, res);
	} else if (!strcmp(req, "PINS")) {
		snprintf(reply, cap, "OK %02x", pins(c, board) & 0xff);
	} else {
		snprintf(reply, cap, "ERR -1 the twin's chip does not know \"%.60s\"", req);
	}
}
