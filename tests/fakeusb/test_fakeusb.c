/* The fake libusb-1.0 on its own, linked against it (no libsigrok): the
 * quantisation both sides share, the device it shows, the requests it
 * takes and refuses, and the transfers: filled from a sample source this
 * test plays, completed full, on time-out, on cancel, and with the device
 * gone when the source closes (last: a gone scope stays gone). */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <libusb.h>

#include "scope_proto.h"

static const float ranges_v[] = { 1.0f, 2.5f, 5.0f, 10.0f };

static void proto_code_round_trip(void **state)
{
	(void)state;
	for (size_t r = 0; r < sizeof(ranges_v) / sizeof(ranges_v[0]); r++)
		for (int c = 0; c < 256; c++)
			assert_int_equal(scope_proto_code(scope_proto_volts((uint8_t)c, ranges_v[r]),
							  ranges_v[r]),
					 c);
}

static void proto_code_clips(void **state)
{
	(void)state;
	assert_int_equal(scope_proto_code(100.0f, 5.0f), 255);
	assert_int_equal(scope_proto_code(2.5f, 5.0f), 255);
	assert_int_equal(scope_proto_code(-2.5f, 5.0f), 0);
	assert_int_equal(scope_proto_code(-100.0f, 5.0f), 0);
	assert_int_equal(scope_proto_code(NAN, 5.0f), 128);
	/* half an LSB either side of a code's volts goes to that code */
	assert_int_equal(scope_proto_code(scope_proto_volts(100, 5.0f) + 0.009f, 5.0f), 100);
	assert_int_equal(scope_proto_code(scope_proto_volts(100, 5.0f) - 0.009f, 5.0f), 100);
	assert_int_equal(scope_proto_code(scope_proto_volts(100, 5.0f) + 0.011f, 5.0f), 101);
	/* the driver's volts: 0 -> -range/2, 255 -> +range/2 */
	assert_float_equal(scope_proto_volts(0, 10.0f), -5.0f, 1e-6);
	assert_float_equal(scope_proto_volts(255, 10.0f), 5.0f, 1e-5);
}

static void proto_start_lines(void **state)
{
	struct scope_start in = { 100000, { 2.5f, 10.0f } }, out;
	char line[SCOPE_PROTO_LINE_MAX];
	static const char *const bad[] = {
		"start 0 5 5\n",      "start 100000 5\n", "start 100000 5 -1\n",
		"stop\n",             "start 100000 5 5 x\n", "start 100000 5 5x",
		"start 5000000000 5 5",
	};

	(void)state;
	assert_int_equal(scope_proto_format_start(line, sizeof(line), &in), 20);
	assert_string_equal(line, "start 100000 2.5 10\n");
	assert_int_equal(scope_proto_parse_start(line, &out), 0);
	assert_int_equal(out.rate_hz, 100000);
	assert_float_equal(out.range_v[0], 2.5f, 0);
	assert_float_equal(out.range_v[1], 10.0f, 0);
	assert_int_equal(scope_proto_parse_start("start 48000000 1 5", &out), 0);
	assert_int_equal(out.rate_hz, 48000000);
	/* too short a buffer (volatile: gcc would see the truncation) */
	{
		volatile size_t small = 10;

		assert_int_equal(scope_proto_format_start(line, small, &in), -1);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		print_message("bad start line \"%s\"\n", bad[i]);
		assert_int_equal(scope_proto_parse_start(bad[i], &out), -1);
	}
}

/* The sample source's side, played by the test. */
struct source {
	char dir[64];
	char path[96];
	int listen_fd;
	int fd; /* the accepted acquisition */
};

static struct source src;

static int setup_source(void **state)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	(void)state;
	snprintf(src.dir, sizeof(src.dir), "/tmp/test_fakeusb.XXXXXX");
	if (!mkdtemp(src.dir))
		return -1;
	snprintf(src.path, sizeof(src.path), "%s/scope.sock", src.dir);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", src.path);
	src.listen_fd = socket(AF_UNIX, SOCK_STREAM, 0);
	src.fd = -1;
	if (src.listen_fd < 0 || bind(src.listen_fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(src.listen_fd, 4) < 0)
		return -1;
	setenv(SCOPE_PROTO_ENV, src.path, 1);
	return 0;
}

static int teardown_source(void **state)
{
	(void)state;
	if (src.fd >= 0)
		close(src.fd);
	close(src.listen_fd);
	unlink(src.path);
	rmdir(src.dir);
	return 0;
}

/* One line from the fake, '\n' included. */
static void read_line(int fd, char *buf, size_t len)
{
	size_t n = 0;

	while (n < len - 1) {
		ssize_t r = read(fd, buf + n, 1);

		assert_true(r == 1);
		if (buf[n++] == '\n')
			break;
	}
	buf[n] = '\0';
}

static void send_frames(const struct scope_frame *f, size_t bytes)
{
	assert_int_equal(write(src.fd, f, bytes), (ssize_t)bytes);
}

struct opened {
	libusb_context *ctx;
	libusb_device_handle *h;
};

static void open_scope(struct opened *o)
{
	libusb_device **list;

	assert_int_equal(libusb_init(&o->ctx), 0);
	assert_int_equal(libusb_get_device_list(o->ctx, &list), 1);
	assert_int_equal(libusb_open(list[0], &o->h), 0);
	libusb_free_device_list(list, 1);
	assert_int_equal(libusb_claim_interface(o->h, 0), 0);
}

static void close_scope(struct opened *o)
{
	assert_int_equal(libusb_release_interface(o->h, 0), 0);
	libusb_close(o->h);
	libusb_exit(o->ctx);
}

static int reg(libusb_device_handle *h, uint8_t r, uint8_t v)
{
	return libusb_control_transfer(h, LIBUSB_REQUEST_TYPE_VENDOR | LIBUSB_ENDPOINT_OUT, r, 0, 0,
				       &v, 1, 100);
}

static void no_device_without_a_source(void **state)
{
	libusb_context *ctx;
	libusb_device **list;

	(void)state;
	unsetenv(SCOPE_PROTO_ENV);
	assert_int_equal(libusb_init(&ctx), 0);
	assert_int_equal(libusb_get_device_list(ctx, &list), 0);
	assert_null(list[0]);
	libusb_free_device_list(list, 1);
	libusb_exit(ctx);
	setenv(SCOPE_PROTO_ENV, src.path, 1);
}

static void the_6022be_fx2lafw_loaded(void **state)
{
	struct opened o;
	struct libusb_device_descriptor d;
	struct libusb_config_descriptor *cfg;
	const struct libusb_interface_descriptor *alt;
	unsigned char buf[64];
	uint8_t ports[4];
	libusb_device *dev;

	(void)state;
	open_scope(&o);
	dev = libusb_get_device(o.h);
	assert_int_equal(libusb_get_device_descriptor(dev, &d), 0);
	assert_int_equal(d.idVendor, 0x1d50);
	assert_int_equal(d.idProduct, 0x608e);
	assert_int_equal(d.bcdDevice, 0x0001);
	assert_int_equal(libusb_get_bus_number(dev), 1);
	assert_int_equal(libusb_get_device_address(dev), 4);
	assert_int_equal(libusb_get_port_numbers(dev, ports, 4), 1);
	assert_int_equal(ports[0], 2);
	assert_int_equal(libusb_get_device_speed(dev), LIBUSB_SPEED_HIGH);
	assert_int_equal(libusb_get_config_descriptor(dev, 0, &cfg), 0);
	assert_int_equal(cfg->bConfigurationValue, 1);
	assert_int_equal(cfg->bNumInterfaces, 1);
	alt = &cfg->interface[0].altsetting[0];
	assert_int_equal(alt->bNumEndpoints, 1);
	assert_int_equal(alt->endpoint[0].bEndpointAddress, 0x86);
	assert_int_equal(alt->endpoint[0].bmAttributes, LIBUSB_TRANSFER_TYPE_BULK);
	assert_int_equal(alt->endpoint[0].wMaxPacketSize, 512);
	libusb_free_config_descriptor(cfg);
	assert_int_equal(libusb_get_config_descriptor(dev, 1, &cfg), LIBUSB_ERROR_NOT_FOUND);
	/* the same descriptors over ep0, as libusb_get_descriptor() reads them */
	assert_int_equal(libusb_get_descriptor(o.h, LIBUSB_DT_DEVICE, 0, buf, sizeof(buf)), 18);
	assert_int_equal(buf[8] | buf[9] << 8, 0x1d50);
	assert_int_equal(libusb_get_descriptor(o.h, LIBUSB_DT_CONFIG, 0, buf, sizeof(buf)), 25);
	assert_int_equal(buf[18 + 2], 0x86);
	assert_int_equal(libusb_get_descriptor(o.h, LIBUSB_DT_BOS, 0, buf, sizeof(buf)),
			 LIBUSB_ERROR_PIPE);
	assert_int_equal(libusb_get_string_descriptor_ascii(o.h, d.iProduct, buf, sizeof(buf)), 6);
	assert_string_equal((char *)buf, "6022BE");
	assert_int_equal(libusb_claim_interface(o.h, 1), LIBUSB_ERROR_NOT_FOUND);
	close_scope(&o);
}

static void requests_taken_and_refused(void **state)
{
	struct opened o;
	uint8_t v = 0;

	(void)state;
	open_scope(&o);
	assert_int_equal(reg(o.h, 0xe2, 10), 1);  /* 100 kHz */
	assert_int_equal(reg(o.h, 0xe2, 48), 1);  /* 48 MHz */
	assert_int_equal(reg(o.h, 0xe2, 7), LIBUSB_ERROR_PIPE);
	assert_int_equal(reg(o.h, 0xe0, 5), 1);   /* 250 mV a division */
	assert_int_equal(reg(o.h, 0xe1, 3), LIBUSB_ERROR_PIPE);
	assert_int_equal(reg(o.h, 0xe3, 2), LIBUSB_ERROR_PIPE);
	assert_int_equal(reg(o.h, 0xe4, 3), LIBUSB_ERROR_PIPE);
	assert_int_equal(reg(o.h, 0xa0, 0), LIBUSB_ERROR_PIPE); /* no firmware upload */
	assert_int_equal(libusb_control_transfer(o.h, LIBUSB_REQUEST_TYPE_VENDOR | LIBUSB_ENDPOINT_IN,
						 0xe2, 0, 0, &v, 1, 100),
			 LIBUSB_ERROR_PIPE);
	/* only bulk IN 0x86 carries data */
	{
		unsigned char b[4];
		int n;

		assert_int_equal(libusb_bulk_transfer(o.h, 0x02, b, 4, &n, 100),
				 LIBUSB_ERROR_NOT_SUPPORTED);
	}
	close_scope(&o);
}

struct done {
	int calls;
	enum libusb_transfer_status status;
	int length;
};

static void LIBUSB_CALL on_done(struct libusb_transfer *t)
{
	struct done *d = t->user_data;

	d->calls++;
	d->status = t->status;
	d->length = t->actual_length;
}

static int readable(libusb_context *ctx)
{
	const struct libusb_pollfd **fds = libusb_get_pollfds(ctx);
	struct pollfd p = { .fd = fds[0]->fd, .events = fds[0]->events };
	int n = poll(&p, 1, 0);

	assert_null(fds[1]);
	libusb_free_pollfds(fds);
	return n;
}

static void events_now(libusb_context *ctx)
{
	struct timeval tv = { 0, 0 };

	assert_int_equal(libusb_handle_events_timeout(ctx, &tv), 0);
}

/* Trigger a start with these registers and take the connection. */
static void start(struct opened *o, uint8_t rate, uint8_t g1, uint8_t g2, const char *want)
{
	char line[SCOPE_PROTO_LINE_MAX];

	assert_int_equal(reg(o->h, 0xe2, rate), 1);
	assert_int_equal(reg(o->h, 0xe0, g1), 1);
	assert_int_equal(reg(o->h, 0xe1, g2), 1);
	assert_int_equal(reg(o->h, 0xe3, 1), 1);
	src.fd = accept(src.listen_fd, NULL, NULL);
	assert_true(src.fd >= 0);
	read_line(src.fd, line, sizeof(line));
	assert_string_equal(line, want);
}

static void stop(struct opened *o)
{
	char line[16], c;

	assert_int_equal(reg(o->h, 0xe3, 0), 1);
	read_line(src.fd, line, sizeof(line));
	assert_string_equal(line, "stop\n");
	/* and closed: end of file, or a reset when samples were left unread */
	errno = 0;
	assert_true(read(src.fd, &c, 1) == 0 || errno == ECONNRESET);
	close(src.fd);
	src.fd = -1;
}

static void a_transfer_fills_from_the_stream(void **state)
{
	struct opened o;
	struct libusb_transfer *t = libusb_alloc_transfer(0);
	unsigned char buf[8];
	struct done d = { 0 };
	const struct scope_frame f[4] = {
		{ { 4.9f, 0.3f } }, { { -1.0f, -0.6f } }, { { 7.0f, 0.0f } }, { { 0.0f, 0.123f } },
	};

	(void)state;
	open_scope(&o);
	/* 100 kHz; CH1 1 V a division (10 V span), CH2 100 mV (1 V span) */
	start(&o, 10, 1, 10, "start 100000 10 1\n");
	libusb_fill_bulk_transfer(t, o.h, 0x86, buf, sizeof(buf), on_done, &d, 0);
	assert_int_equal(libusb_submit_transfer(t), 0);
	assert_int_equal(libusb_submit_transfer(t), LIBUSB_ERROR_BUSY);
	assert_int_equal(readable(o.ctx), 0); /* nothing sent yet */
	/* two and a half frames: the half waits for the rest */
	send_frames(f, 2 * sizeof(f[0]) + 4);
	assert_int_equal(readable(o.ctx), 1);
	events_now(o.ctx);
	assert_int_equal(d.calls, 0);
	assert_int_equal(readable(o.ctx), 0); /* read: nothing more to wake for */
	send_frames((const struct scope_frame *)((const char *)f + 2 * sizeof(f[0]) + 4),
		    sizeof(f) - 2 * sizeof(f[0]) - 4);
	events_now(o.ctx);
	assert_int_equal(d.calls, 1);
	assert_int_equal(d.status, LIBUSB_TRANSFER_COMPLETED);
	assert_int_equal(d.length, 8);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(buf[2 * i], scope_proto_code(f[i].ch_v[0], 10.0f));
		assert_int_equal(buf[2 * i + 1], scope_proto_code(f[i].ch_v[1], 1.0f));
	}
	assert_int_equal(buf[2 * 2 + 0], 255); /* 7 V clips at +5 V */
	assert_int_equal(buf[2 * 1 + 1], 0);   /* -0.6 V clips at -0.5 V */
	/* no transfer pending: data waiting does not wake the caller */
	send_frames(f, sizeof(f[0]));
	assert_int_equal(readable(o.ctx), 0);
	libusb_free_transfer(t);
	stop(&o);
	close_scope(&o);
}

static void time_out_cancel_and_close(void **state)
{
	struct opened o;
	struct libusb_transfer *t = libusb_alloc_transfer(0);
	unsigned char buf[1024];
	struct done d = { 0 };
	struct scope_frame f[3] = { { { 1, 1 } }, { { 1, 1 } }, { { 1, 1 } } };
	struct timeval tv;
	struct timespec t0, t1;

	(void)state;
	open_scope(&o);
	start(&o, 1, 2, 2, "start 1000000 5 5\n");
	assert_int_equal(libusb_get_next_timeout(o.ctx, &tv), 0); /* none pending */
	libusb_fill_bulk_transfer(t, o.h, 0x86, buf, sizeof(buf), on_done, &d, 50);
	assert_int_equal(libusb_submit_transfer(t), 0);
	assert_int_equal(libusb_get_next_timeout(o.ctx, &tv), 1);
	assert_true(tv.tv_sec == 0 && tv.tv_usec > 0 && tv.tv_usec <= 50000);
	send_frames(f, sizeof(f));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	tv = (struct timeval){ 1, 0 };
	for (int i = 0; i < 5 && !d.calls; i++) /* bounded: a test must end */
		assert_int_equal(libusb_handle_events_timeout(o.ctx, &tv), 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	assert_int_equal(d.status, LIBUSB_TRANSFER_TIMED_OUT);
	assert_int_equal(d.length, 6); /* what came before the time-out */
	assert_true((t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000 >= 40);

	/* a cancel wakes the caller's poll and completes as cancelled */
	d = (struct done){ 0 };
	t->timeout = 0;
	assert_int_equal(libusb_submit_transfer(t), 0);
	assert_int_equal(libusb_cancel_transfer(t), 0);
	assert_int_equal(libusb_cancel_transfer(t), LIBUSB_ERROR_NOT_FOUND);
	assert_int_equal(readable(o.ctx), 1);
	events_now(o.ctx);
	assert_int_equal(d.calls, 1);
	assert_int_equal(d.status, LIBUSB_TRANSFER_CANCELLED);
	assert_int_equal(libusb_cancel_transfer(t), LIBUSB_ERROR_NOT_FOUND);

	/* closed with a transfer pending (libsigrok's hantek-6xxx does that):
	 * the transfer stays the caller's to free, and is never called back */
	d = (struct done){ 0 };
	assert_int_equal(libusb_submit_transfer(t), 0);
	stop(&o);
	close_scope(&o);
	libusb_free_transfer(t);
	assert_int_equal(d.calls, 0);
}

/* Last: once its source is gone, the scope is unplugged for good. */
static void the_source_goes(void **state)
{
	struct opened o;
	struct libusb_transfer *t = libusb_alloc_transfer(0);
	unsigned char buf[64];
	struct done d = { 0 };
	struct scope_frame f[2] = { { { 0, 0 } }, { { 0, 0 } } };
	libusb_device **list;
	struct timeval tv = { 1, 0 };
	int n;

	(void)state;
	open_scope(&o);
	start(&o, 10, 2, 2, "start 100000 5 5\n");
	libusb_fill_bulk_transfer(t, o.h, 0x86, buf, sizeof(buf), on_done, &d, 0);
	assert_int_equal(libusb_submit_transfer(t), 0);
	send_frames(f, sizeof(f));
	close(src.fd);
	src.fd = -1;
	for (int i = 0; i < 5 && !d.calls; i++) /* bounded: a test must end */
		assert_int_equal(libusb_handle_events_timeout(o.ctx, &tv), 0);
	assert_int_equal(d.status, LIBUSB_TRANSFER_NO_DEVICE);
	assert_int_equal(d.length, 4); /* what it had */
	assert_int_equal(libusb_submit_transfer(t), LIBUSB_ERROR_NO_DEVICE);
	assert_int_equal(reg(o.h, 0xe3, 1), LIBUSB_ERROR_NO_DEVICE);
	assert_int_equal(libusb_bulk_transfer(o.h, 0x86, buf, 2, &n, 10), LIBUSB_ERROR_NO_DEVICE);
	assert_int_equal(libusb_get_device_list(o.ctx, &list), 0);
	libusb_free_device_list(list, 1);
	libusb_free_transfer(t);
	libusb_close(o.h);
	libusb_exit(o.ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(proto_code_round_trip),
		cmocka_unit_test(proto_code_clips),
		cmocka_unit_test(proto_start_lines),
		cmocka_unit_test(no_device_without_a_source),
		cmocka_unit_test(the_6022be_fx2lafw_loaded),
		cmocka_unit_test(requests_taken_and_refused),
		cmocka_unit_test(a_transfer_fills_from_the_stream),
		cmocka_unit_test(time_out_cancel_and_close),
		cmocka_unit_test(the_source_goes),
	};

	return cmocka_run_group_tests(tests, setup_source, teardown_source);
}
