/* The strict fake libftdi1 (ftdi_fake.h). One chip per test, found
 * through the installed fake: ftdi_new takes no argument, so there is no
 * other way to reach it. */
#include "fake/ftdi_fake.h"

#include <errno.h>
#include <libftdi1/ftdi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static struct ftdi_fake *g_fake;

void ftdi_fake_install(struct ftdi_fake *fk, const struct bn_fixture_def *def)
{
	memset(fk, 0, sizeof(*fk));
	fk->def = def;
	fk->last_break_us = -1;
	fk->mode = BITMODE_RESET;
	g_fake = fk;
}

void ftdi_fake_left_driving(struct ftdi_fake *fk, uint32_t state)
{
	fk->mode = BITMODE_MPSSE;
	fk->dir = fk->def->out_pins;
	fk->level = 0;
	for (int i = 0; i < fk->def->nsignals; i++) {
		const struct bn_fx_signal *s = &fk->def->signals[i];

		if (!!(state & (1u << i)) == s->active_high)
			fk->level |= (uint16_t)(1u << s->pin);
	}
	fk->state = ftdi_fake_decode(fk);
}

void ftdi_fake_uninstall(void)
{
	g_fake = NULL;
}

static void violate(struct ftdi_fake *fk, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void violate(struct ftdi_fake *fk, const char *fmt, ...)
{
	va_list ap;

	if (fk->violation[0])
		return;
	va_start(ap, fmt);
	vsnprintf(fk->violation, sizeof(fk->violation), fmt, ap);
	va_end(ap);
}

uint32_t ftdi_fake_decode(const struct ftdi_fake *fk)
{
	uint32_t on = 0;

	for (int i = 0; i < fk->def->nsignals; i++) {
		const struct bn_fx_signal *s = &fk->def->signals[i];
		bool driven = fk->dir & (1u << s->pin);
		bool high = driven ? (fk->level >> s->pin) & 1u : s->undriven_high;

		if (high == s->active_high)
			on |= 1u << i;
	}
	return on;
}

void ftdi_fake_names(const struct ftdi_fake *fk, uint32_t state, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (int i = 0; i < fk->def->nsignals; i++)
		if (state & (1u << i)) {
			int w = snprintf(buf + o, len - o, "%s%s", o ? "+" : "", fk->def->signals[i].name);

			if (w < 0 || (size_t)w >= len - o)
				return;
			o += (size_t)w;
		}
}

/* The fake's own reading of the file's rules. */
static const char *broken_rule(const struct ftdi_fake *fk, uint32_t state)
{
	for (int i = 0; i < fk->def->nrules; i++) {
		const struct bn_fx_rule *r = &fk->def->rules[i];
		uint32_t hit = state & r->set;
		int n = 0;

		for (uint32_t v = hit; v; v &= v - 1)
			n++;
		if (r->kind == BN_FX_ALL ? hit == r->set : n > 1)
			return r->why;
	}
	return NULL;
}

/* The pins changed (inside one write, maybe between two commands). */
static void pins_changed(struct ftdi_fake *fk, uint32_t *made, uint32_t *broken)
{
	uint32_t now = ftdi_fake_decode(fk), old = fk->state;
	const char *why;
	char names[256];

	if (now == old)
		return;
	*made |= now & ~old;
	*broken |= old & ~now;
	why = broken_rule(fk, now);
	if (why) {
		ftdi_fake_names(fk, now, names, sizeof(names));
		violate(fk, "write %d: illegal state on the wires: %s (%s)", fk->writes, names, why);
	}
	if (now & ~old && fk->last_break_us >= 0 &&
	    ftdi_fake_now_us(fk) - fk->last_break_us < (int64_t)fk->def->release_ms * 1000) {
		ftdi_fake_names(fk, now & ~old, names, sizeof(names));
		violate(fk, "write %d: made %s %lld us after a break (release time %d ms)", fk->writes,
			names, (long long)(ftdi_fake_now_us(fk) - fk->last_break_us), fk->def->release_ms);
	}
	if (old & ~now)
		fk->last_break_us = ftdi_fake_now_us(fk);
	if (fk->nsteps < FAKE_MAX_STEPS)
		fk->steps[fk->nsteps++] = (struct ftdi_fake_step){ now, ftdi_fake_now_us(fk), fk->writes };
	fk->state = now;
}

static struct ftdi_fake *chip(struct ftdi_context *ctx, const char *call)
{
	if (!g_fake || !ctx) {
		fprintf(stderr, "ftdi_fake: %s without a fake chip\n", call);
		abort();
	}
	if (!g_fake->opened)
		violate(g_fake, "%s on a context that is not open", call);
	return g_fake;
}

/* The injected failure of one call, with libftdi's kind of message. */
static bool fails(struct ftdi_context *ctx, const char *call)
{
	if (!g_fake || !g_fake->fail_call || strcmp(g_fake->fail_call, call))
		return false;
	ctx->error_str = "USB transfer failed (injected)";
	return true;
}

struct ftdi_context *__wrap_ftdi_new(void);
struct ftdi_context *__wrap_ftdi_new(void)
{
	struct ftdi_context *ctx;

	if (!g_fake)
		return NULL;
	ctx = calloc(1, sizeof(*ctx));
	if (ctx) {
		ctx->error_str = "no error";
		g_fake->n_new++;
	}
	return ctx;
}

void __wrap_ftdi_free(struct ftdi_context *ctx);
void __wrap_ftdi_free(struct ftdi_context *ctx)
{
	if (!ctx)
		return;
	if (g_fake) {
		g_fake->n_free++;
		if (g_fake->opened) { /* libftdi closes in ftdi_deinit */
			g_fake->state_at_close = g_fake->state;
			g_fake->opened = false;
			g_fake->n_close++;
		}
	}
	free(ctx);
}

int __wrap_ftdi_set_interface(struct ftdi_context *ctx, enum ftdi_interface itf);
int __wrap_ftdi_set_interface(struct ftdi_context *ctx, enum ftdi_interface itf)
{
	if (g_fake && g_fake->opened)
		violate(g_fake, "ftdi_set_interface after open");
	return fails(ctx, "ftdi_set_interface") ? -1 : 0;
}

int __wrap_ftdi_usb_open_desc_index(struct ftdi_context *ctx, int vendor, int product,
				    const char *description, const char *serial, unsigned int index);
int __wrap_ftdi_usb_open_desc_index(struct ftdi_context *ctx, int vendor, int product,
				    const char *description, const char *serial, unsigned int index)
{
	struct ftdi_fake *fk = g_fake;

	fk->open_vid = vendor;
	fk->open_pid = product;
	snprintf(fk->open_desc, sizeof(fk->open_desc), "%s", description ? description : "");
	snprintf(fk->open_serial, sizeof(fk->open_serial), "%s", serial ? serial : "");
	if (fk->open_rc < 0) {
		ctx->error_str = fk->open_rc == -3 ? "device not found" : "unable to claim usb device. "
							     "Make sure the default FTDI driver is not in use";
		return fk->open_rc;
	}
	fk->opened = true;
	fk->n_open++;
	return 0;
}

int __wrap_ftdi_usb_close(struct ftdi_context *ctx);
int __wrap_ftdi_usb_close(struct ftdi_context *ctx)
{
	struct ftdi_fake *fk = chip(ctx, "ftdi_usb_close");

	/* The chip keeps its mode and pins: only the handle goes. */
	fk->state_at_close = fk->state;
	fk->opened = false;
	fk->n_close++;
	return 0;
}

int __wrap_ftdi_usb_reset(struct ftdi_context *ctx);
int __wrap_ftdi_usb_reset(struct ftdi_context *ctx)
{
	chip(ctx, "ftdi_usb_reset");
	return fails(ctx, "ftdi_usb_reset") ? -1 : 0;
}

int __wrap_ftdi_tcioflush(struct ftdi_context *ctx);
int __wrap_ftdi_tcioflush(struct ftdi_context *ctx)
{
	chip(ctx, "ftdi_tcioflush");
	return fails(ctx, "ftdi_tcioflush") ? -1 : 0;
}

int __wrap_ftdi_tciflush(struct ftdi_context *ctx);
int __wrap_ftdi_tciflush(struct ftdi_context *ctx)
{
	struct ftdi_fake *fk = chip(ctx, "ftdi_tciflush");

	if (fails(ctx, "ftdi_tciflush"))
		return -1;
	fk->nreadq = 0;
	return 0;
}

int __wrap_ftdi_set_latency_timer(struct ftdi_context *ctx, unsigned char latency);
int __wrap_ftdi_set_latency_timer(struct ftdi_context *ctx, unsigned char latency)
{
	struct ftdi_fake *fk = chip(ctx, "ftdi_set_latency_timer");

	if (fails(ctx, "ftdi_set_latency_timer"))
		return -1;

	if (latency < 1) {
		ctx->error_str = "latency out of range. Only valid for 1-255";
		return -1;
	}
	fk->latency_ms = latency;
	return 0;
}

int __wrap_ftdi_set_bitmode(struct ftdi_context *ctx, unsigned char bitmask, unsigned char mode);
int __wrap_ftdi_set_bitmode(struct ftdi_context *ctx, unsigned char bitmask, unsigned char mode)
{
	struct ftdi_fake *fk = chip(ctx, "ftdi_set_bitmode");
	uint32_t made = 0, broken = 0;

	if (fails(ctx, "ftdi_set_bitmode"))
		return -1;
	if (fk->fail_bitmode && mode != BITMODE_RESET) {
		ctx->error_str = "unable to configure bitbang mode. Perhaps not a BM/2232C type chip?";
		return -1;
	}
	fk->mode = mode;
	switch (mode) {
	case BITMODE_RESET: /* UART mode: TXD, RTS#, DTR# driven high (idle) */
		fk->dir = 0x15;
		fk->level |= 0x15;
		fk->n_reset_mode++;
		break;
	case BITMODE_BITBANG: /* bitmask is the direction of D0-D7 */
		fk->dir = bitmask;
		break;
	case BITMODE_MPSSE: /* inputs until 0x80/0x82 say otherwise */
		fk->dir = 0;
		break;
	default:
		violate(fk, "ftdi_set_bitmode: mode 0x%02x is not one a GPIO fixture uses", mode);
	}
	{
		uint32_t old = fk->state;

		pins_changed(fk, &made, &broken);
		if (fk->on_state && old != fk->state)
			fk->on_state(fk->user, old, fk->state);
	}
	return 0;
}

int __wrap_ftdi_write_data(struct ftdi_context *ctx, const unsigned char *buf, int size);
int __wrap_ftdi_write_data(struct ftdi_context *ctx, const unsigned char *buf, int size)
{
	struct ftdi_fake *fk = chip(ctx, "ftdi_write_data");
	uint32_t made = 0, broken = 0, old = fk->state;
	int no = fk->writes + 1, call = ++fk->write_calls;
	char names[256];

	if (fk->fail_writes_from && call >= fk->fail_writes_from &&
	    (!fk->fail_writes_until || call <= fk->fail_writes_until)) {
		ctx->error_str = "usb bulk write failed";
		return -1;
	}
	fk->writes = no;
	fk->last_write_len = size;
	if (size <= 0)
		violate(fk, "write %d: empty write", no);
	if (fk->mode == BITMODE_RESET) {
		violate(fk, "write %d: %d bytes in reset mode go out of the UART", no, size);
		return size;
	}
	if (fk->mode == BITMODE_BITBANG) {
		for (int i = 0; i < size; i++) { /* each byte: the pins, in turn */
			fk->level = (uint16_t)((fk->level & 0xff00) | buf[i]);
			pins_changed(fk, &made, &broken);
		}
	} else {
		for (int i = 0; i < size;) {
			switch (buf[i]) {
			case 0x80:
			case 0x82: {
				int shift = buf[i] == 0x82 ? 8 : 0;

				if (i + 3 > size) {
					violate(fk, "write %d: MPSSE 0x%02x cut short", no, buf[i]);
					return size;
				}
				fk->level = (uint16_t)((fk->level & ~(0xffu << shift)) | buf[i + 1] << shift);
				fk->dir = (uint16_t)((fk->dir & ~(0xffu << shift)) | buf[i + 2] << shift);
				pins_changed(fk, &made, &broken);
				i += 3;
				break;
			}
			case 0x81:
			case 0x83: {
				int shift = buf[i] == 0x83 ? 8 : 0;
				uint16_t pins = (uint16_t)((fk->level & fk->dir) | (fk->input_levels & ~fk->dir));

				if (fk->nreadq < (int)sizeof(fk->readq) && !fk->reads_stall)
					fk->readq[fk->nreadq++] = (uint8_t)(pins >> shift);
				i++;
				break;
			}
			case 0x87:
				i++;
				break;
			default:
				violate(fk, "write %d: unknown MPSSE command 0x%02x at byte %d", no, buf[i], i);
				return size;
			}
		}
	}
	if (made && broken) {
		ftdi_fake_names(fk, made, names, sizeof(names));
		violate(fk, "write %d: made %s in the same write as a break", no, names);
	}
	/* The world sees a write whole: its commands are microseconds apart. */
	if (fk->on_state && old != fk->state)
		fk->on_state(fk->user, old, fk->state);
	return size;
}

int __wrap_ftdi_read_data(struct ftdi_context *ctx, unsigned char *buf, int size);
int __wrap_ftdi_read_data(struct ftdi_context *ctx, unsigned char *buf, int size)
{
	struct ftdi_fake *fk = chip(ctx, "ftdi_read_data");
	int n = size < fk->nreadq ? size : fk->nreadq;

	memcpy(buf, fk->readq, (size_t)n);
	memmove(fk->readq, fk->readq + n, (size_t)(fk->nreadq - n));
	fk->nreadq -= n;
	return n;
}

int __wrap_ftdi_read_pins(struct ftdi_context *ctx, unsigned char *pins);
int __wrap_ftdi_read_pins(struct ftdi_context *ctx, unsigned char *pins)
{
	struct ftdi_fake *fk = chip(ctx, "ftdi_read_pins");

	*pins = (unsigned char)((fk->level & fk->dir) | (fk->input_levels & ~fk->dir));
	return 0;
}

const char *__wrap_ftdi_get_error_string(struct ftdi_context *ctx);
const char *__wrap_ftdi_get_error_string(struct ftdi_context *ctx)
{
	return ctx ? ctx->error_str : "no context";
}

/* The fake clock: the real one plus every sleep skipped, so whatever
 * measures time in the backend or the runner sees the sleeps as taken. */
int __real_clock_gettime(clockid_t clk, struct timespec *ts);
int __wrap_clock_gettime(clockid_t clk, struct timespec *ts);
int __wrap_clock_gettime(clockid_t clk, struct timespec *ts)
{
	int rc = __real_clock_gettime(clk, ts);
	int64_t ns;

	if (rc || !g_fake || clk != CLOCK_MONOTONIC)
		return rc;
	ns = (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec + g_fake->skipped_us * 1000;
	ts->tv_sec = (time_t)(ns / 1000000000);
	ts->tv_nsec = (long)(ns % 1000000000);
	return 0;
}

int64_t ftdi_fake_now_us(const struct ftdi_fake *fk)
{
	struct timespec ts;

	__real_clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000 + fk->skipped_us;
}

int __wrap_clock_nanosleep(clockid_t clk, int flags, const struct timespec *req,
			   struct timespec *rem);
int __wrap_clock_nanosleep(clockid_t clk, int flags, const struct timespec *req,
			   struct timespec *rem)
{
	if (!g_fake || flags || clk != CLOCK_MONOTONIC) {
		fprintf(stderr, "ftdi_fake: clock_nanosleep(%d, %d): only relative monotonic sleeps "
				"are faked\n", (int)clk, flags);
		abort();
	}
	g_fake->skipped_us += (int64_t)req->tv_sec * 1000000 + req->tv_nsec / 1000;
	if (rem)
		*rem = (struct timespec){ 0 };
	return 0;
}
