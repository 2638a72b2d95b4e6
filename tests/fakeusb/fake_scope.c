/* The scope behind the descriptors: the vendor requests libsigrok 0.5.2's
 * hantek-6xxx driver sends (protocol.c: one byte OUT each, request =
 * register) and the sample stream of scope_proto.h.
 *   0xe0, 0xe1  CH1, CH2 gain: 10, 5, 2, 1 = 100 mV, 250 mV, 500 mV, 1 V
 *               a division, ten divisions full scale
 *   0xe2        samplerate: 48, 30, 24, 16, 8, 4, 1 MHz; 50, 20, 10 =
 *               500, 200, 100 kHz
 *   0xe3        trigger: 1 starts sampling (the fake connects to the
 *               source), 0 stops it
 *   0xe4        channels sampled (1 or 2; the driver keeps to 2)
 *   0xe5        coupling (not on the 6022BE; kept)
 * A value outside these tables stalls (LIBUSB_ERROR_PIPE), as the
 * firmware's unknown requests do. The device sends CH1, CH2 interleaved,
 * one unsigned byte each per frame. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "fake.h"
#include "scope_proto.h"

enum { REG_VDIV1 = 0xe0, REG_VDIV2, REG_RATE, REG_TRIGGER, REG_CHANNELS, REG_COUPLING };

static const struct {
	uint8_t reg;
	uint32_t hz;
} rates[] = {
	{ 48, 48000000 }, { 30, 30000000 }, { 24, 24000000 }, { 16, 16000000 }, { 8, 8000000 },
	{ 4, 4000000 },   { 1, 1000000 },   { 50, 500000 },   { 20, 200000 },   { 10, 100000 },
};

/* The volts a division as the driver's table has them (num / den). */
static const struct {
	uint8_t reg;
	uint16_t num, den;
} gains[] = { { 10, 100, 1000 }, { 5, 250, 1000 }, { 2, 500, 1000 }, { 1, 1, 1 } };

/* Frames read from the socket at a time. */
#define CHUNK_FRAMES 4096

struct scope {
	uint8_t rate_reg, vdiv_reg[2], chan_reg, coupling_reg;
	bool running;
	bool gone;
	int sock;
	libusb_context *watcher;
	unsigned char carry[sizeof(struct scope_frame)];
	size_t carry_n;
	uint64_t frames;
	int64_t idle_since_us, idle_max_us; /* since the start, or 0 */
};

/* The one scope of this process, as the hardware is one. */
static struct scope sc = {
	.rate_reg = 8, .vdiv_reg = { 2, 2 }, .chan_reg = 2, .sock = -1,
};

static uint32_t rate_hz(uint8_t reg)
{
	for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++)
		if (rates[i].reg == reg)
			return rates[i].hz;
	return 0;
}

/* The span in volts, computed as the driver's RANGE() does. */
static float range_v(uint8_t reg)
{
	for (size_t i = 0; i < sizeof(gains) / sizeof(gains[0]); i++)
		if (gains[i].reg == reg)
			return ((float)gains[i].num / gains[i].den) * 10;
	return 0;
}

static void unwatch(void)
{
	if (sc.watcher)
		epoll_ctl(sc.watcher->epfd, EPOLL_CTL_DEL, sc.sock, NULL);
	sc.watcher = NULL;
}

/* The time the host leaves the scope with no transfer to fill: the real
 * 6022BE's FIFO (a few KiB of the FX2's endpoint buffers, about 10 ms at
 * 100 kHz) overflows and loses samples when this is long. The fake's
 * FIFO is the socket's buffer and loses nothing; it only says how long. */
static void idle(bool on)
{
	int64_t now = fk_now_us();

	if (!sc.running)
		return;
	if (on && !sc.idle_since_us) {
		sc.idle_since_us = now;
	} else if (!on && sc.idle_since_us) {
		if (now - sc.idle_since_us > sc.idle_max_us)
			sc.idle_max_us = now - sc.idle_since_us;
		sc.idle_since_us = 0;
	}
}

void fk_scope_watch(libusb_context *ctx, bool on)
{
	struct epoll_event ev = { .events = EPOLLIN };

	if (on || sc.watcher == ctx)
		idle(!on);
	if (on && sc.running && sc.watcher != ctx) {
		unwatch();
		if (epoll_ctl(ctx->epfd, EPOLL_CTL_ADD, sc.sock, &ev) == 0)
			sc.watcher = ctx;
		else
			fk_warn("cannot watch the sample stream: %s", strerror(errno));
	} else if (!on && sc.watcher == ctx) {
		unwatch();
	}
}

static void stream_stop(void)
{
	if (sc.sock < 0)
		return;
	unwatch();
	send(sc.sock, "stop\n", 5, MSG_DONTWAIT | MSG_NOSIGNAL);
	close(sc.sock);
	sc.sock = -1;
	sc.running = false;
	fk_dbg("stopped after %llu frames; at most %.1f ms without a transfer to fill",
	       (unsigned long long)sc.frames, sc.idle_max_us / 1e3);
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static int stream_start(void)
{
	const char *path = getenv(SCOPE_PROTO_ENV);
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct scope_start st = {
		.rate_hz = rate_hz(sc.rate_reg),
		.range_v = { range_v(sc.vdiv_reg[0]), range_v(sc.vdiv_reg[1]) },
	};
	char line[SCOPE_PROTO_LINE_MAX];
	int n = scope_proto_format_start(line, sizeof(line), &st);

	stream_stop();
	if (!path || !*path || strlen(path) >= sizeof(sa.sun_path) || n < 0) {
		fk_warn("no sample source: expected %s=PATH of a unix socket (shorter than %zu bytes)",
			SCOPE_PROTO_ENV, sizeof(sa.sun_path));
		return LIBUSB_ERROR_IO;
	}
	memcpy(sa.sun_path, path, strlen(path) + 1);
	sc.sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (sc.sock < 0 || connect(sc.sock, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    write_all(sc.sock, line, (size_t)n) < 0 ||
	    fcntl(sc.sock, F_SETFL, fcntl(sc.sock, F_GETFL) | O_NONBLOCK) < 0) {
		fk_warn("cannot reach the sample source %s=%s: %s", SCOPE_PROTO_ENV, path,
			strerror(errno));
		if (sc.sock >= 0)
			close(sc.sock);
		sc.sock = -1;
		return LIBUSB_ERROR_IO;
	}
	sc.running = true;
	sc.carry_n = 0;
	sc.frames = 0;
	sc.idle_since_us = fk_now_us(); /* till the driver's first transfer */
	sc.idle_max_us = 0;
	fk_dbg("%.*s", n - 1, line);
	return 0;
}

int fk_scope_control(uint8_t req, uint16_t value, uint16_t index, const unsigned char *data,
		     uint16_t len)
{
	uint8_t v;

	if (sc.gone)
		return LIBUSB_ERROR_NO_DEVICE;
	if (len < 1 || value != 0 || index != 0)
		return LIBUSB_ERROR_PIPE;
	v = data[0];
	switch (req) {
	case REG_VDIV1:
	case REG_VDIV2:
		if (!range_v(v))
			return LIBUSB_ERROR_PIPE;
		sc.vdiv_reg[req - REG_VDIV1] = v;
		break;
	case REG_RATE:
		if (!rate_hz(v))
			return LIBUSB_ERROR_PIPE;
		sc.rate_reg = v;
		break;
	case REG_TRIGGER:
		if (v > 1)
			return LIBUSB_ERROR_PIPE;
		if (v == 0)
			stream_stop();
		else if (stream_start() < 0)
			return LIBUSB_ERROR_IO;
		break;
	case REG_CHANNELS:
		if (v != 1 && v != 2)
			return LIBUSB_ERROR_PIPE;
		sc.chan_reg = v;
		break;
	case REG_COUPLING:
		sc.coupling_reg = v;
		break;
	default:
		return LIBUSB_ERROR_PIPE;
	}
	return 1;
}

void fk_scope_reset(void)
{
	stream_stop();
}

bool fk_scope_gone(void)
{
	return sc.gone;
}

static void source_gone(const char *why)
{
	fk_warn("the sample source %s after %llu frames: the scope is unplugged", why,
	       (unsigned long long)sc.frames);
	unwatch();
	close(sc.sock);
	sc.sock = -1;
	sc.running = false;
	sc.gone = true;
}

int fk_scope_fill(struct libusb_transfer *t)
{
	struct scope_frame buf[CHUNK_FRAMES];
	float r1 = range_v(sc.vdiv_reg[0]), r2 = range_v(sc.vdiv_reg[1]);

	if (!sc.running)
		return sc.gone ? -1 : 0;
	while (t->length - t->actual_length >= 2) {
		size_t frames = (size_t)(t->length - t->actual_length) / 2, have;
		unsigned char *out = t->buffer + t->actual_length;
		ssize_t n;

		if (frames > CHUNK_FRAMES)
			frames = CHUNK_FRAMES;
		memcpy(buf, sc.carry, sc.carry_n);
		n = recv(sc.sock, (unsigned char *)buf + sc.carry_n,
			 frames * sizeof(buf[0]) - sc.carry_n, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n <= 0) {
			source_gone(n == 0 ? "closed the stream" : "failed");
			return -1;
		}
		have = sc.carry_n + (size_t)n;
		frames = have / sizeof(buf[0]);
		for (size_t i = 0; i < frames; i++) {
			out[2 * i] = scope_proto_code(buf[i].ch_v[0], r1);
			out[2 * i + 1] = scope_proto_code(buf[i].ch_v[1], r2);
		}
		sc.carry_n = have % sizeof(buf[0]);
		memcpy(sc.carry, (unsigned char *)buf + frames * sizeof(buf[0]), sc.carry_n);
		t->actual_length += (int)(2 * frames);
		sc.frames += frames;
	}
	return 1;
}
