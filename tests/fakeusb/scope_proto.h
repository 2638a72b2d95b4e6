/* What flows between the fake Hantek 6022BE (tests/fakeusb, a fake
 * libusb-1.0) and the process that makes its samples (the bench twin, or
 * tests/fakeusb/scope_feed.c). The fake is the client; the sample source
 * listens on a unix stream socket whose path is in $BCBENCH_FAKEUSB_SCOPE.
 *
 * One connection per acquisition:
 *  1. When libsigrok's hantek-6xxx driver starts acquiring (it writes 1 to
 *     the scope's trigger register, 0xe3), the fake connects and sends one
 *     line, at most SCOPE_PROTO_LINE_MAX bytes with its '\n':
 *         "start RATE_HZ RANGE1_V RANGE2_V\n"     e.g. "start 100000 5 5\n"
 *     RATE_HZ: the samplerate, an integer (100000 ... 48000000).
 *     RANGEn_V: channel n's full-scale span in volts (1, 2.5, 5 or 10: ten
 *     divisions of 100 mV, 250 mV, 500 mV or 1 V), centred on 0 V: the
 *     scope reads -RANGE/2 .. +RANGE/2. For information only: the fake
 *     quantises (below).
 *  2. The source answers with frames, struct scope_frame, back to back,
 *     nothing else: frame k is the two inputs at k / RATE_HZ after the
 *     source read the start line, and the source sends it no earlier than
 *     that (real time: the fake does not pace, the source does). A source
 *     that falls behind catches up by sending what is due at once; the
 *     fake reads only while the driver has a transfer pending, so the
 *     socket's buffer is the scope's FIFO and nothing is dropped.
 *  3. When the driver stops (trigger register 0), the fake sends "stop\n"
 *     and closes. The source stops on that line, on end of file, or on an
 *     error (ECONNRESET when the fake closed with samples unread, EPIPE on
 *     send: send with MSG_NOSIGNAL), and waits for the next connection.
 *  A source that closes first is a scope unplugged: the driver's pending
 *  transfer ends with LIBUSB_TRANSFER_NO_DEVICE and the device is gone
 *  until the process restarts.
 *
 * Volts are at the scope's input (its BNC): the probe tip's with a 1:1
 * probe. A bench with a 10:1 probe divides by 10 at the source (the scope
 * does not know its probe), and bench.conf's capture_map multiplies back
 * (VBUS=CH1:scale=10). The 6022BE's 8-bit quantisation and clipping are
 * scope_proto_code(); what libsigrok 0.5.2's driver makes of a code is
 * scope_proto_volts() (hantek-6xxx/api.c, send_chunk), so a source can
 * predict what a capture will hold.
 *
 * libsigrok 0.5.2's driver discards the first 1024 bytes it reads after
 * the start (512 frames, "flushing needed for filtering glitch away"): the
 * first sample a capture holds is frame 512 of the stream. */
#ifndef BN_FAKEUSB_SCOPE_PROTO_H
#define BN_FAKEUSB_SCOPE_PROTO_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>

#define SCOPE_PROTO_ENV "BCBENCH_FAKEUSB_SCOPE"
#define SCOPE_PROTO_LINE_MAX 64
/* Frames the driver discards after each start (FLUSH_PACKET_SIZE / 2). */
#define SCOPE_PROTO_FLUSH_FRAMES 512

/* Host byte order, IEEE 754 single precision (little-endian on x86-64). */
struct scope_frame {
	float ch_v[2]; /* CH1, CH2 at the scope's input */
};

struct scope_start {
	uint32_t rate_hz;
	float range_v[2];
};

/* "start RATE R1 R2\n" into buf; the length written, or -1 if it does not
 * fit. */
static inline int scope_proto_format_start(char *buf, size_t len, const struct scope_start *s)
{
	int n = snprintf(buf, len, "start %lu %g %g\n", (unsigned long)s->rate_hz,
			 (double)s->range_v[0], (double)s->range_v[1]);

	return n > 0 && (size_t)n < len ? n : -1;
}

/* Parse a start line (with or without its '\n'); 0, or -1 when it is not
 * one (a rate of 0, a span not above 0). */
static inline int scope_proto_parse_start(const char *line, struct scope_start *s)
{
	unsigned long rate;
	float r1, r2;
	char end = 0;

	if (sscanf(line, "start %lu %f %f%c", &rate, &r1, &r2, &end) < 3 ||
	    (end && end != '\n') || rate == 0 || rate > UINT32_MAX || !(r1 > 0) || !(r2 > 0))
		return -1;
	s->rate_hz = (uint32_t)rate;
	s->range_v[0] = r1;
	s->range_v[1] = r2;
	return 0;
}

/* The 6022BE's 8-bit code for v volts at an input spanning range_v: 0 is
 * -range_v/2, 255 is +range_v/2, the nearest code (a half up), clipped at
 * both ends. NaN (nothing connected) reads as the middle code. */
static inline uint8_t scope_proto_code(float v, float range_v)
{
	float c = (v + range_v / 2) * 255.0f / range_v;

	if (isnan(c))
		return 128;
	if (c <= 0)
		return 0;
	if (c >= 255)
		return 255;
	return (uint8_t)(c + 0.5f); /* nearest, halves up; no libm */
}

/* What libsigrok 0.5.2's hantek-6xxx driver reports for a code: the same
 * float arithmetic as its send_chunk(). */
static inline float scope_proto_volts(uint8_t code, float range_v)
{
	float bit = range_v / 255, centre = range_v / 2;

	return bit * code - centre;
}

#endif
