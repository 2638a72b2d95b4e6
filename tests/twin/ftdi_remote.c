/* bcbench-twin-host's libftdi1: the calls the FTDI fixture backend makes
 * (hil/ftdi_fixture.c), linked in with -Wl,--wrap (tests/twin/twin.mk),
 * each forwarded to the bench twin's emulated chip over ftdi_wire.h. No
 * pin logic here: the chip (mode, directions, levels, MPSSE parsing, what
 * the inputs read) is the twin's, so what the backend writes is judged by
 * the same code that drives the simulated world.
 *
 * Failures come back as libftdi1 reports them: no twin is "device not
 * found" (-3), a twin that does not answer or went away is a failed USB
 * transfer, each with its error string. */
#include <errno.h>
#include <libftdi1/ftdi.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "ftdi_wire.h"

/* The context libftdi1 callers see, with the link to the twin behind it:
 * ftdi_new hands out &ctx, every other call gets it back. */
struct remote {
	struct ftdi_context ctx;
	int fd;                     /* -1: not open */
	bool inited;                /* ftdi_init worked: ftdi_deinit at free */
	unsigned char rq[256];      /* chip answers not yet read */
	int nrq;
	char err[320];
};

static struct remote *remote_of(struct ftdi_context *ctx)
{
	return (struct remote *)ctx; /* ctx is the first member */
}

static int fail(struct remote *r, int rc, const char *fmt, const char *arg)
{
	snprintf(r->err, sizeof(r->err), fmt, arg);
	r->ctx.error_str = r->err;
	return rc;
}

/* One request, its reply in reply (NUL-terminated). < 0: the link broke
 * (the message says how), else 0. */
static int call(struct remote *r, const char *req, char *reply, size_t cap)
{
	struct pollfd p = { .fd = r->fd, .events = POLLIN };
	ssize_t n;
	int rc;

	if (r->fd < 0)
		return fail(r, -1, "%s", "USB device unavailable (the twin's chip is not open)");
	if (send(r->fd, req, strlen(req), MSG_NOSIGNAL) < 0)
		return fail(r, -1, "USB transfer failed: the twin went away (%s)", strerror(errno));
	do
		rc = poll(&p, 1, TWIN_FTDI_REPLY_MS);
	while (rc < 0 && errno == EINTR);
	if (rc == 0)
		return fail(r, -1, "%s", "USB transfer failed: the twin did not answer");
	n = recv(r->fd, reply, cap - 1, 0);
	if (n <= 0)
		return fail(r, -1, "USB transfer failed: the twin went away (%s)",
			    n == 0 ? "connection closed" : strerror(errno));
	reply[n] = '\0';
	return 0;
}

static int unhex(const char *s, unsigned char *out, int max)
{
	int n = 0;
	unsigned v;

	while (n < max && sscanf(s, "%2x", &v) == 1) {
		out[n++] = (unsigned char)v;
		s += 2;
	}
	return n;
}

/* A request whose reply is OK [HEX] (into data, when given) or ERR RC TEXT. */
static int simple(struct remote *r, const char *req, unsigned char *data, int *ndata)
{
	char reply[TWIN_FTDI_MSG_LEN];
	int rc = call(r, req, reply, sizeof(reply));

	if (rc < 0)
		return rc;
	if (!strncmp(reply, "OK", 2)) {
		if (data && reply[2] == ' ')
			*ndata = unhex(reply + 3, data, *ndata);
		else if (data)
			*ndata = 0;
		return 0;
	}
	if (!strncmp(reply, "ERR ", 4)) {
		char *text = NULL;
		long code = strtol(reply + 4, &text, 10);

		while (text && *text == ' ')
			text++;
		return fail(r, code < 0 ? (int)code : -1, "%s", text && *text ? text : "error");
	}
	return fail(r, -1, "USB transfer failed: the twin answered \"%.200s\"", reply);
}

struct ftdi_context *__wrap_ftdi_new(void);
struct ftdi_context *__wrap_ftdi_new(void)
{
	struct remote *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->fd = -1;
	/* A real context behind it (libusb's), for the calls that are not
	 * wrapped (`bcbench-twin-host devices` lists what libftdi1 sees);
	 * the twin needs none of it. */
	r->inited = ftdi_init(&r->ctx) == 0;
	r->ctx.error_str = "no error";
	return &r->ctx;
}

void __wrap_ftdi_free(struct ftdi_context *ctx);
void __wrap_ftdi_free(struct ftdi_context *ctx)
{
	struct remote *r;

	if (!ctx)
		return;
	r = remote_of(ctx);
	if (r->fd >= 0) /* libftdi1 closes the device in ftdi_deinit */
		close(r->fd);
	if (r->inited)
		ftdi_deinit(&r->ctx);
	free(r);
}

int __wrap_ftdi_set_interface(struct ftdi_context *ctx, enum ftdi_interface itf);
int __wrap_ftdi_set_interface(struct ftdi_context *ctx, enum ftdi_interface itf)
{
	struct remote *r = remote_of(ctx);
	char req[32];

	if (r->fd < 0)
		return 0; /* before open, as libftdi1: remembered for the open */
	snprintf(req, sizeof(req), "ITF %d", (int)itf);
	return simple(r, req, NULL, NULL);
}

/* The twin's socket: the description's "twin:PATH", else the environment. */
static const char *twin_path(const char *desc)
{
	size_t n = strlen(TWIN_FTDI_DESC_PREFIX);

	if (desc && !strncmp(desc, TWIN_FTDI_DESC_PREFIX, n))
		return desc + n;
	return getenv(TWIN_FTDI_ENV);
}

int __wrap_ftdi_usb_open_desc_index(struct ftdi_context *ctx, int vendor, int product,
				    const char *description, const char *serial, unsigned int index);
int __wrap_ftdi_usb_open_desc_index(struct ftdi_context *ctx, int vendor, int product,
				    const char *description, const char *serial, unsigned int index)
{
	struct remote *r = remote_of(ctx);
	const char *path = twin_path(description);
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	char req[TWIN_FTDI_MSG_LEN];

	if (!path || !*path)
		return fail(r, -3, "%s", "device not found (no bench twin: give fixture = "
				   "ftdi:desc=twin:SOCKET in bench.conf or set " TWIN_FTDI_ENV ")");
	if (strlen(path) >= sizeof(a.sun_path))
		return fail(r, -3, "device not found (twin socket path too long: %.60s...)", path);
	strcpy(a.sun_path, path);
	r->fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (r->fd < 0)
		return fail(r, -3, "device not found (socket: %s)", strerror(errno));
	if (connect(r->fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		int e = errno;

		close(r->fd);
		r->fd = -1;
		snprintf(r->err, sizeof(r->err), "device not found (no bench twin at %.200s: %s)",
			 path, strerror(e));
		r->ctx.error_str = r->err;
		return -3;
	}
	snprintf(req, sizeof(req), "OPEN %04x %04x\t%s\t%s", vendor & 0xffff, product & 0xffff,
		 description && *description ? description : "-", serial && *serial ? serial : "-");
	(void)index;
	if (simple(r, req, NULL, NULL) < 0) {
		int rc = strstr(r->err, "busy") ? -5 : -3;

		close(r->fd);
		r->fd = -1;
		return rc;
	}
	r->nrq = 0;
	return 0;
}

int __wrap_ftdi_usb_close(struct ftdi_context *ctx);
int __wrap_ftdi_usb_close(struct ftdi_context *ctx)
{
	struct remote *r = remote_of(ctx);
	int rc;

	if (r->fd < 0)
		return 0;
	rc = simple(r, "CLOSE", NULL, NULL);
	close(r->fd);
	r->fd = -1;
	return rc < 0 ? -1 : 0;
}

int __wrap_ftdi_usb_reset(struct ftdi_context *ctx);
int __wrap_ftdi_usb_reset(struct ftdi_context *ctx)
{
	return simple(remote_of(ctx), "RESET", NULL, NULL);
}

int __wrap_ftdi_tcioflush(struct ftdi_context *ctx);
int __wrap_ftdi_tcioflush(struct ftdi_context *ctx)
{
	struct remote *r = remote_of(ctx);

	r->nrq = 0;
	return simple(r, "FLUSH", NULL, NULL);
}

int __wrap_ftdi_tciflush(struct ftdi_context *ctx);
int __wrap_ftdi_tciflush(struct ftdi_context *ctx)
{
	struct remote *r = remote_of(ctx);

	r->nrq = 0;
	return simple(r, "IFLUSH", NULL, NULL);
}

int __wrap_ftdi_set_latency_timer(struct ftdi_context *ctx, unsigned char latency);
int __wrap_ftdi_set_latency_timer(struct ftdi_context *ctx, unsigned char latency)
{
	char req[32];

	snprintf(req, sizeof(req), "LATENCY %u", latency);
	return simple(remote_of(ctx), req, NULL, NULL);
}

int __wrap_ftdi_set_bitmode(struct ftdi_context *ctx, unsigned char bitmask, unsigned char mode);
int __wrap_ftdi_set_bitmode(struct ftdi_context *ctx, unsigned char bitmask, unsigned char mode)
{
	char req[48];

	snprintf(req, sizeof(req), "BITMODE %u %u", bitmask, mode);
	return simple(remote_of(ctx), req, NULL, NULL);
}

int __wrap_ftdi_write_data(struct ftdi_context *ctx, const unsigned char *buf, int size);
int __wrap_ftdi_write_data(struct ftdi_context *ctx, const unsigned char *buf, int size)
{
	struct remote *r = remote_of(ctx);
	char req[TWIN_FTDI_MSG_LEN];
	unsigned char got[sizeof(r->rq)];
	int n = (int)sizeof(got), rc;

	if (size <= 0 || size > TWIN_FTDI_MAX_WRITE)
		return fail(r, -1, "%s", "USB bulk write failed (size out of range for the twin)");
	strcpy(req, "WRITE ");
	for (int i = 0; i < size; i++)
		snprintf(req + 6 + 2 * i, 3, "%02x", buf[i]);
	rc = simple(r, req, got, &n);
	if (rc < 0)
		return rc;
	if (n > (int)sizeof(r->rq) - r->nrq)
		n = (int)sizeof(r->rq) - r->nrq;
	memcpy(r->rq + r->nrq, got, (size_t)n);
	r->nrq += n;
	return size;
}

int __wrap_ftdi_read_data(struct ftdi_context *ctx, unsigned char *buf, int size);
int __wrap_ftdi_read_data(struct ftdi_context *ctx, unsigned char *buf, int size)
{
	struct remote *r = remote_of(ctx);
	int n = size < r->nrq ? size : r->nrq;

	if (r->fd < 0)
		return fail(r, -1, "%s", "USB device unavailable");
	if (n <= 0)
		return 0;
	memcpy(buf, r->rq, (size_t)n);
	memmove(r->rq, r->rq + n, (size_t)(r->nrq - n));
	r->nrq -= n;
	return n;
}

int __wrap_ftdi_read_pins(struct ftdi_context *ctx, unsigned char *pins);
int __wrap_ftdi_read_pins(struct ftdi_context *ctx, unsigned char *pins)
{
	unsigned char got[1];
	int n = 1, rc = simple(remote_of(ctx), "PINS", got, &n);

	if (rc < 0)
		return rc;
	if (n != 1)
		return fail(remote_of(ctx), -1, "%s", "read pins failed (the twin sent no byte)");
	*pins = got[0];
	return 0;
}

const char *__wrap_ftdi_get_error_string(struct ftdi_context *ctx);
const char *__wrap_ftdi_get_error_string(struct ftdi_context *ctx)
{
	return ctx ? ctx->error_str : "no context";
}
