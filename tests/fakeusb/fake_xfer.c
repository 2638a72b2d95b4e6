/* Asynchronous transfers and event handling. The only endpoint with data
 * is the scope's bulk IN 0x86: a submitted transfer fills from the sample
 * stream and completes, from libusb_handle_events*(), when it is full
 * (the scope sends whole 512-byte packets, never a short one), when its
 * time-out passes (with what it got, LIBUSB_TRANSFER_TIMED_OUT), when it
 * is cancelled, or when the source goes (LIBUSB_TRANSFER_NO_DEVICE).
 *
 * What the caller polls (libusb_get_pollfds) is one epoll fd per context:
 * readable while the stream has data for a pending transfer or a cancel
 * waits, so a GLib source such as libsigrok's usb.c sleeps in poll() until
 * a transfer can complete; time-outs come from libusb_get_next_timeout. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "fake.h"

/* Transfers pending when their context or handle went: still the
 * caller's (their buffers are), kept reachable as libusb would keep them. */
static struct fk_xfer *orphans;

static struct fk_xfer *xfer_of(struct libusb_transfer *t)
{
	return (struct fk_xfer *)((char *)t - offsetof(struct fk_xfer, t));
}

struct libusb_transfer *LIBUSB_CALL libusb_alloc_transfer(int iso_packets)
{
	struct fk_xfer *x;

	if (iso_packets < 0)
		return NULL;
	x = calloc(1, sizeof(*x) + (size_t)iso_packets * sizeof(struct libusb_iso_packet_descriptor));
	if (!x)
		return NULL;
	x->t.num_iso_packets = iso_packets;
	return &x->t;
}

static void unlink_pending(struct fk_xfer *x)
{
	struct fk_xfer **p = &x->ctx->pending;

	while (*p && *p != x)
		p = &(*p)->next;
	if (*p)
		*p = x->next;
	x->next = NULL;
}

static void unorphan(struct fk_xfer *x)
{
	struct fk_xfer **p = &orphans;

	if (!x->orphaned)
		return;
	while (*p && *p != x)
		p = &(*p)->next;
	if (*p)
		*p = x->next;
	x->next = NULL;
	x->orphaned = false;
}

void LIBUSB_CALL libusb_free_transfer(struct libusb_transfer *transfer)
{
	struct fk_xfer *x;

	if (!transfer)
		return;
	x = xfer_of(transfer);
	pthread_mutex_lock(&fk_lock);
	if (x->submitted && x->ctx) { /* a caller's bug; do not leave it linked */
		unlink_pending(x);
		fk_xfer_rewatch(x->ctx);
	}
	unorphan(x);
	pthread_mutex_unlock(&fk_lock);
	if (transfer->flags & LIBUSB_TRANSFER_FREE_BUFFER)
		free(transfer->buffer);
	free(x);
}

void fk_xfer_rewatch(libusb_context *ctx)
{
	bool want = false;

	for (struct fk_xfer *x = ctx->pending; x && !want; x = x->next)
		want = !x->cancelled;
	fk_scope_watch(ctx, want);
}

int LIBUSB_CALL libusb_submit_transfer(struct libusb_transfer *transfer)
{
	struct fk_xfer *x = xfer_of(transfer), **p;
	libusb_device_handle *h = transfer->dev_handle;
	int rc = LIBUSB_SUCCESS;

	pthread_mutex_lock(&fk_lock);
	if (!h || !h->dev->ctx || transfer->length < 0)
		rc = LIBUSB_ERROR_INVALID_PARAM;
	else if (x->submitted)
		rc = LIBUSB_ERROR_BUSY;
	else if (fk_scope_gone())
		rc = LIBUSB_ERROR_NO_DEVICE;
	else if (transfer->type != LIBUSB_TRANSFER_TYPE_BULK || transfer->endpoint != FK_EP_IN)
		rc = LIBUSB_ERROR_NOT_SUPPORTED;
	if (rc == LIBUSB_SUCCESS) {
		unorphan(x);
		x->ctx = h->dev->ctx;
		x->submitted = true;
		x->cancelled = false;
		x->deadline_us = transfer->timeout ? fk_now_us() + 1000 * (int64_t)transfer->timeout : 0;
		x->next = NULL;
		transfer->actual_length = 0;
		transfer->status = LIBUSB_TRANSFER_COMPLETED;
		for (p = &x->ctx->pending; *p; p = &(*p)->next)
			;
		*p = x;
		fk_xfer_rewatch(x->ctx);
	}
	pthread_mutex_unlock(&fk_lock);
	return rc;
}

static void kick(libusb_context *ctx)
{
	uint64_t one = 1;

	if (write(ctx->kickfd, &one, sizeof(one)) < 0) {
		/* the counter is already set: the wake-up is pending anyway */
	}
}

int LIBUSB_CALL libusb_cancel_transfer(struct libusb_transfer *transfer)
{
	struct fk_xfer *x = xfer_of(transfer);
	int rc = LIBUSB_SUCCESS;

	pthread_mutex_lock(&fk_lock);
	if (!x->submitted || x->cancelled) {
		rc = LIBUSB_ERROR_NOT_FOUND;
	} else {
		x->cancelled = true;
		kick(x->ctx);
	}
	pthread_mutex_unlock(&fk_lock);
	return rc;
}

/* Take off ctx's list, in order, what has completed. */
static struct fk_xfer *collect(libusb_context *ctx)
{
	struct fk_xfer *done = NULL, **tail = &done, **p = &ctx->pending;
	int64_t now = fk_now_us();
	bool filling = true; /* transfers fill in submission order */
	uint64_t drained;

	if (read(ctx->kickfd, &drained, sizeof(drained)) < 0) {
		/* nothing to drain */
	}
	while (*p) {
		struct fk_xfer *x = *p;
		int status = -1;

		if (x->cancelled) {
			status = LIBUSB_TRANSFER_CANCELLED;
		} else if (filling) {
			int r = fk_scope_fill(&x->t);

			if (r > 0)
				status = LIBUSB_TRANSFER_COMPLETED;
			else if (r < 0)
				status = LIBUSB_TRANSFER_NO_DEVICE;
			else
				filling = false;
		} else if (fk_scope_gone()) {
			status = LIBUSB_TRANSFER_NO_DEVICE;
		}
		if (status < 0 && x->deadline_us && now >= x->deadline_us)
			status = LIBUSB_TRANSFER_TIMED_OUT;
		if (status < 0) {
			p = &x->next;
			continue;
		}
		*p = x->next;
		x->next = NULL;
		x->submitted = false;
		x->t.status = (enum libusb_transfer_status)status;
		*tail = x;
		tail = &x->next;
	}
	fk_xfer_rewatch(ctx);
	return done;
}

static void run_callbacks(struct fk_xfer *done)
{
	while (done) {
		struct fk_xfer *next = done->next;
		struct libusb_transfer *t = &done->t;
		bool free_it = t->flags & LIBUSB_TRANSFER_FREE_TRANSFER;

		done->next = NULL;
		if (t->callback)
			t->callback(t); /* may submit t again, or free it */
		if (free_it)
			libusb_free_transfer(t);
		done = next;
	}
}

/* Microseconds until ctx's earliest time-out (0: one is due), or limit. */
static int64_t until_timeout(libusb_context *ctx, int64_t now, int64_t limit)
{
	for (struct fk_xfer *x = ctx->pending; x; x = x->next) {
		if (x->cancelled)
			return 0;
		if (x->deadline_us && x->deadline_us - now < limit)
			limit = x->deadline_us > now ? x->deadline_us - now : 0;
	}
	return limit;
}

int LIBUSB_CALL libusb_handle_events_timeout_completed(libusb_context *ctx, struct timeval *tv,
						       int *completed)
{
	int64_t end = fk_now_us() + (tv ? (int64_t)tv->tv_sec * 1000000 + tv->tv_usec : 0);
	struct fk_xfer *done;

	pthread_mutex_lock(&fk_lock);
	ctx = fk_ctx(ctx);
	if (!ctx) {
		pthread_mutex_unlock(&fk_lock);
		return LIBUSB_ERROR_NO_MEM;
	}
	for (;;) {
		struct epoll_event ev[4];
		int64_t now, wait_us;

		done = collect(ctx);
		if (done || (completed && *completed))
			break;
		now = fk_now_us();
		wait_us = until_timeout(ctx, now, end - now);
		if (wait_us <= 0 && now >= end)
			break;
		pthread_mutex_unlock(&fk_lock);
		if (epoll_wait(ctx->epfd, ev, 4, (int)((wait_us + 999) / 1000)) < 0 && errno != EINTR)
			fk_warn("epoll_wait: %s", strerror(errno));
		pthread_mutex_lock(&fk_lock);
	}
	pthread_mutex_unlock(&fk_lock);
	run_callbacks(done);
	return LIBUSB_SUCCESS;
}

int LIBUSB_CALL libusb_handle_events_timeout(libusb_context *ctx, struct timeval *tv)
{
	return libusb_handle_events_timeout_completed(ctx, tv, NULL);
}

int LIBUSB_CALL libusb_handle_events_completed(libusb_context *ctx, int *completed)
{
	struct timeval tv = { 60, 0 };

	return libusb_handle_events_timeout_completed(ctx, &tv, completed);
}

int LIBUSB_CALL libusb_handle_events(libusb_context *ctx)
{
	return libusb_handle_events_completed(ctx, NULL);
}

int LIBUSB_CALL libusb_handle_events_locked(libusb_context *ctx, struct timeval *tv)
{
	return libusb_handle_events_timeout_completed(ctx, tv, NULL);
}

int LIBUSB_CALL libusb_get_next_timeout(libusb_context *ctx, struct timeval *tv)
{
	int64_t us;

	pthread_mutex_lock(&fk_lock);
	ctx = fk_ctx(ctx);
	us = ctx ? until_timeout(ctx, fk_now_us(), INT64_MAX) : INT64_MAX;
	pthread_mutex_unlock(&fk_lock);
	if (us == INT64_MAX)
		return 0;
	tv->tv_sec = (time_t)(us / 1000000);
	tv->tv_usec = (suseconds_t)(us % 1000000);
	return 1;
}

const struct libusb_pollfd **LIBUSB_CALL libusb_get_pollfds(libusb_context *ctx)
{
	const struct libusb_pollfd **l = calloc(2, sizeof(*l));

	pthread_mutex_lock(&fk_lock);
	ctx = fk_ctx(ctx);
	if (l && ctx)
		l[0] = &ctx->pfd;
	pthread_mutex_unlock(&fk_lock);
	if (l && !l[0]) {
		free(l);
		l = NULL;
	}
	return l;
}

void LIBUSB_CALL libusb_free_pollfds(const struct libusb_pollfd **pollfds)
{
	free(pollfds);
}

/* The fd never changes while the context lives: nothing to notify. */
void LIBUSB_CALL libusb_set_pollfd_notifiers(libusb_context *ctx, libusb_pollfd_added_cb added_cb,
					     libusb_pollfd_removed_cb removed_cb, void *user_data)
{
	(void)ctx;
	(void)added_cb;
	(void)removed_cb;
	(void)user_data;
}

/* Time-outs do not wake the fd: callers ask libusb_get_next_timeout. */
int LIBUSB_CALL libusb_pollfds_handle_timeouts(libusb_context *ctx)
{
	(void)ctx;
	return 0;
}

void LIBUSB_CALL libusb_interrupt_event_handler(libusb_context *ctx)
{
	pthread_mutex_lock(&fk_lock);
	ctx = fk_ctx(ctx);
	if (ctx)
		kick(ctx);
	pthread_mutex_unlock(&fk_lock);
}

/* Event handling is done under fk_lock alone: the locks libusb offers for
 * it are there, and always granted. */
int LIBUSB_CALL libusb_try_lock_events(libusb_context *ctx)
{
	(void)ctx;
	return 0;
}

void LIBUSB_CALL libusb_lock_events(libusb_context *ctx)
{
	(void)ctx;
}

void LIBUSB_CALL libusb_unlock_events(libusb_context *ctx)
{
	(void)ctx;
}

int LIBUSB_CALL libusb_event_handling_ok(libusb_context *ctx)
{
	(void)ctx;
	return 1;
}

int LIBUSB_CALL libusb_event_handler_active(libusb_context *ctx)
{
	(void)ctx;
	return 0;
}

void LIBUSB_CALL libusb_lock_event_waiters(libusb_context *ctx)
{
	(void)ctx;
}

void LIBUSB_CALL libusb_unlock_event_waiters(libusb_context *ctx)
{
	(void)ctx;
}

int LIBUSB_CALL libusb_wait_for_event(libusb_context *ctx, struct timeval *tv)
{
	struct epoll_event ev[4];
	int ms = tv ? (int)(tv->tv_sec * 1000 + (tv->tv_usec + 999) / 1000) : -1;

	pthread_mutex_lock(&fk_lock);
	ctx = fk_ctx(ctx);
	pthread_mutex_unlock(&fk_lock);
	if (!ctx)
		return 1;
	return epoll_wait(ctx->epfd, ev, 4, ms) > 0 ? 0 : 1;
}

void fk_xfer_orphan(libusb_context *ctx, libusb_device_handle *h)
{
	struct fk_xfer **p = &ctx->pending;

	while (*p) {
		struct fk_xfer *x = *p;

		if (h && x->t.dev_handle != h) {
			p = &x->next;
			continue;
		}
		*p = x->next;
		x->submitted = false;
		x->ctx = NULL;
		x->orphaned = true;
		x->next = orphans;
		orphans = x;
	}
	fk_xfer_rewatch(ctx);
}

/* Synchronous transfers, as the real library does them: one asynchronous
 * transfer and events handled until it completes. */
static void LIBUSB_CALL sync_done(struct libusb_transfer *t)
{
	*(int *)t->user_data = 1;
}

static int sync_transfer(libusb_device_handle *h, unsigned char endpoint, unsigned char *data,
			 int length, int *transferred, unsigned int timeout, unsigned char type)
{
	struct libusb_transfer *t = libusb_alloc_transfer(0);
	int done = 0, rc;

	if (!t)
		return LIBUSB_ERROR_NO_MEM;
	libusb_fill_bulk_transfer(t, h, endpoint, data, length, sync_done, &done, timeout);
	t->type = type;
	rc = libusb_submit_transfer(t);
	if (rc < 0) {
		libusb_free_transfer(t);
		return rc;
	}
	while (!done)
		libusb_handle_events_completed(h->dev->ctx, &done);
	if (transferred)
		*transferred = t->actual_length;
	switch (t->status) {
	case LIBUSB_TRANSFER_COMPLETED: rc = 0; break;
	case LIBUSB_TRANSFER_TIMED_OUT: rc = LIBUSB_ERROR_TIMEOUT; break;
	case LIBUSB_TRANSFER_STALL: rc = LIBUSB_ERROR_PIPE; break;
	case LIBUSB_TRANSFER_NO_DEVICE: rc = LIBUSB_ERROR_NO_DEVICE; break;
	case LIBUSB_TRANSFER_OVERFLOW: rc = LIBUSB_ERROR_OVERFLOW; break;
	default: rc = LIBUSB_ERROR_IO; break;
	}
	libusb_free_transfer(t);
	return rc;
}

int LIBUSB_CALL libusb_bulk_transfer(libusb_device_handle *dev_handle, unsigned char endpoint,
				     unsigned char *data, int length, int *actual_length,
				     unsigned int timeout)
{
	return sync_transfer(dev_handle, endpoint, data, length, actual_length, timeout,
			     LIBUSB_TRANSFER_TYPE_BULK);
}

int LIBUSB_CALL libusb_interrupt_transfer(libusb_device_handle *dev_handle, unsigned char endpoint,
					  unsigned char *data, int length, int *actual_length,
					  unsigned int timeout)
{
	return sync_transfer(dev_handle, endpoint, data, length, actual_length, timeout,
			     LIBUSB_TRANSFER_TYPE_INTERRUPT);
}
