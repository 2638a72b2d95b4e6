/* The fake libusb-1.0's insides, shared by its files (see README.md):
 *   fake_core.c   contexts, the device list, handles, synchronous control
 *   fake_desc.c   the Hantek 6022BE's descriptors (fx2lafw firmware loaded)
 *   fake_scope.c  the scope: its vendor registers and the sample stream
 *   fake_xfer.c   asynchronous transfers, event handling, poll fds
 *   fake_stubs.c  what the fake does not serve: LIBUSB_ERROR_NOT_SUPPORTED
 *
 * One lock (fk_lock) guards everything; transfer callbacks run without
 * it, so a callback may submit again. */
#ifndef BN_FAKEUSB_FAKE_H
#define BN_FAKEUSB_FAKE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <libusb.h>

/* Where the one device sits (libsigrok's connection id: "usb/1-2"). */
#define FK_BUS 1
#define FK_PORT 2
#define FK_ADDRESS 4
#define FK_EP_IN 0x86
#define FK_EP_IN_MAXPACKET 512

struct fk_xfer;

struct libusb_context {
	int epfd;                  /* polled by the caller: readable when a
				    * transfer may complete */
	int kickfd;                /* an eventfd in epfd: a cancel to handle */
	struct libusb_pollfd pfd;  /* { epfd, POLLIN } */
	struct fk_xfer *pending;   /* submitted, oldest first */
	struct libusb_device *dev; /* the scope as this context sees it */
	bool is_default;
	int default_refs;
};

struct libusb_device {
	libusb_context *ctx;
	int refs;
};

struct libusb_device_handle {
	libusb_device *dev;
	unsigned claimed; /* bit per interface */
	uint8_t config;
};

struct fk_xfer {
	struct fk_xfer *next;
	libusb_context *ctx;
	bool submitted;
	bool cancelled;
	bool orphaned; /* on fake_xfer.c's orphans list */
	int64_t deadline_us; /* CLOCK_MONOTONIC; 0: none */
	struct libusb_transfer t; /* last: its iso packet array follows */
};

extern pthread_mutex_t fk_lock;

/* fake_core.c */
libusb_context *fk_ctx(libusb_context *ctx); /* NULL: the default one */
bool fk_present(void);                        /* the scope is plugged in */
int64_t fk_now_us(void);
/* "fakeusb: ..." on stderr: warnings always, debug with
 * BCBENCH_FAKEUSB_DEBUG=1 */
void fk_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void fk_dbg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* fake_desc.c */
void fk_desc_device(struct libusb_device_descriptor *d);
/* GET_DESCRIPTOR: bytes written to buf, or LIBUSB_ERROR_PIPE (a stall). */
int fk_desc_raw(uint8_t type, uint8_t index, uint16_t langid, unsigned char *buf, int len);
int fk_desc_config(struct libusb_config_descriptor **out);
/* ASCII of string descriptor index, or NULL */
const char *fk_desc_string(uint8_t index);

/* fake_scope.c, under fk_lock */
int fk_scope_control(uint8_t req, uint16_t value, uint16_t index, const unsigned char *data,
		     uint16_t len);
void fk_scope_reset(void);
bool fk_scope_gone(void);
/* Fill t from the stream: 1 full, 0 nothing more now, -1 the source is
 * gone (t keeps what it got). */
int fk_scope_fill(struct libusb_transfer *t);
/* Watch the stream in ctx's epfd (moving it from another context), or
 * stop watching it there. */
void fk_scope_watch(libusb_context *ctx, bool on);

/* fake_xfer.c, under fk_lock */
/* Watch the stream from ctx while it has a transfer pending, so that an
 * idle stream never keeps the caller's poll awake. */
void fk_xfer_rewatch(libusb_context *ctx);
/* Drop ctx's pending transfers at libusb_exit, or a handle's at
 * libusb_close, keeping them reachable (the caller still owns their
 * buffers; a leak checker should see the caller's leak, not ours). */
void fk_xfer_orphan(libusb_context *ctx, libusb_device_handle *h);

#endif
