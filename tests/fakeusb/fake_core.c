/* Contexts, the one device, handles and synchronous control transfers of
 * the fake libusb-1.0. The device is there while $BCBENCH_FAKEUSB_SCOPE
 * names a sample source (scope_proto.h) and that source has not gone. */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "fake.h"
#include "scope_proto.h"

pthread_mutex_t fk_lock = PTHREAD_MUTEX_INITIALIZER;

/* libusb's default context (a NULL ctx), as in the real library. */
static libusb_context *default_ctx;
static int open_handles;

static void vlog(const char *fmt, va_list ap)
{
	char msg[512];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	fprintf(stderr, "fakeusb: %s\n", msg);
}

void fk_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(fmt, ap);
	va_end(ap);
}

void fk_dbg(const char *fmt, ...)
{
	const char *d = getenv("BCBENCH_FAKEUSB_DEBUG");
	va_list ap;

	if (!d || strcmp(d, "1") != 0)
		return;
	va_start(ap, fmt);
	vlog(fmt, ap);
	va_end(ap);
}

int64_t fk_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

bool fk_present(void)
{
	const char *path = getenv(SCOPE_PROTO_ENV);

	return path && *path && !fk_scope_gone();
}

static libusb_context *ctx_new(void)
{
	libusb_context *c = calloc(1, sizeof(*c));
	struct epoll_event ev = { .events = EPOLLIN };

	if (!c)
		return NULL;
	c->epfd = epoll_create1(EPOLL_CLOEXEC);
	c->kickfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (c->epfd < 0 || c->kickfd < 0 || epoll_ctl(c->epfd, EPOLL_CTL_ADD, c->kickfd, &ev) < 0) {
		fk_warn("cannot set up a context: %s", strerror(errno));
		if (c->epfd >= 0)
			close(c->epfd);
		if (c->kickfd >= 0)
			close(c->kickfd);
		free(c);
		return NULL;
	}
	c->pfd.fd = c->epfd;
	c->pfd.events = POLLIN;
	return c;
}

static void ctx_free(libusb_context *c)
{
	fk_xfer_orphan(c, NULL);
	fk_scope_watch(c, false);
	if (c->dev) {
		/* a device the caller still holds outlives its context */
		c->dev->ctx = NULL;
		if (--c->dev->refs == 0)
			free(c->dev);
	}
	close(c->kickfd);
	close(c->epfd);
	free(c);
}

libusb_context *fk_ctx(libusb_context *ctx)
{
	if (ctx)
		return ctx;
	if (!default_ctx) {
		default_ctx = ctx_new();
		if (default_ctx) {
			default_ctx->is_default = true;
			default_ctx->default_refs = 1;
		}
	}
	return default_ctx;
}

int LIBUSB_CALL libusb_init(libusb_context **ctx)
{
	libusb_context *c;

	pthread_mutex_lock(&fk_lock);
	if (ctx) {
		c = ctx_new();
		*ctx = c;
	} else if (default_ctx) {
		c = default_ctx;
		c->default_refs++;
	} else {
		c = fk_ctx(NULL);
	}
	pthread_mutex_unlock(&fk_lock);
	return c ? LIBUSB_SUCCESS : LIBUSB_ERROR_NO_MEM;
}

void LIBUSB_CALL libusb_exit(libusb_context *ctx)
{
	pthread_mutex_lock(&fk_lock);
	if (!ctx) {
		if (default_ctx && --default_ctx->default_refs <= 0) {
			ctx_free(default_ctx);
			default_ctx = NULL;
		}
	} else {
		ctx_free(ctx);
	}
	pthread_mutex_unlock(&fk_lock);
}

ssize_t LIBUSB_CALL libusb_get_device_list(libusb_context *ctx, libusb_device ***list)
{
	libusb_device **l = calloc(2, sizeof(*l));
	ssize_t n = 0;

	if (!l)
		return LIBUSB_ERROR_NO_MEM;
	pthread_mutex_lock(&fk_lock);
	ctx = fk_ctx(ctx);
	if (ctx && fk_present()) {
		if (!ctx->dev && (ctx->dev = calloc(1, sizeof(*ctx->dev)))) {
			ctx->dev->ctx = ctx;
			ctx->dev->refs = 1; /* the context's */
		}
		if (ctx->dev) {
			ctx->dev->refs++;
			l[n++] = ctx->dev;
		}
	}
	pthread_mutex_unlock(&fk_lock);
	*list = l;
	return n;
}

libusb_device *LIBUSB_CALL libusb_ref_device(libusb_device *dev)
{
	pthread_mutex_lock(&fk_lock);
	dev->refs++;
	pthread_mutex_unlock(&fk_lock);
	return dev;
}

static void unref_locked(libusb_device *dev)
{
	if (--dev->refs == 0) {
		if (dev->ctx && dev->ctx->dev == dev)
			dev->ctx->dev = NULL;
		free(dev);
	}
}

void LIBUSB_CALL libusb_unref_device(libusb_device *dev)
{
	if (!dev)
		return;
	pthread_mutex_lock(&fk_lock);
	unref_locked(dev);
	pthread_mutex_unlock(&fk_lock);
}

void LIBUSB_CALL libusb_free_device_list(libusb_device **list, int unref_devices)
{
	if (!list)
		return;
	if (unref_devices)
		for (int i = 0; list[i]; i++)
			libusb_unref_device(list[i]);
	free(list);
}

uint8_t LIBUSB_CALL libusb_get_bus_number(libusb_device *dev)
{
	(void)dev;
	return FK_BUS;
}

uint8_t LIBUSB_CALL libusb_get_port_number(libusb_device *dev)
{
	(void)dev;
	return FK_PORT;
}

int LIBUSB_CALL libusb_get_port_numbers(libusb_device *dev, uint8_t *port_numbers,
					int port_numbers_len)
{
	(void)dev;
	if (port_numbers_len < 1)
		return LIBUSB_ERROR_OVERFLOW;
	port_numbers[0] = FK_PORT;
	return 1;
}

int LIBUSB_CALL libusb_get_port_path(libusb_context *ctx, libusb_device *dev, uint8_t *path,
				     uint8_t path_length)
{
	(void)ctx;
	return libusb_get_port_numbers(dev, path, path_length);
}

libusb_device *LIBUSB_CALL libusb_get_parent(libusb_device *dev)
{
	(void)dev;
	return NULL; /* its hub is not listed */
}

uint8_t LIBUSB_CALL libusb_get_device_address(libusb_device *dev)
{
	(void)dev;
	return FK_ADDRESS;
}

int LIBUSB_CALL libusb_get_device_speed(libusb_device *dev)
{
	(void)dev;
	return LIBUSB_SPEED_HIGH;
}

int LIBUSB_CALL libusb_get_max_packet_size(libusb_device *dev, unsigned char endpoint)
{
	(void)dev;
	return endpoint == FK_EP_IN ? FK_EP_IN_MAXPACKET : LIBUSB_ERROR_NOT_FOUND;
}

int LIBUSB_CALL libusb_get_max_iso_packet_size(libusb_device *dev, unsigned char endpoint)
{
	return libusb_get_max_packet_size(dev, endpoint);
}

int LIBUSB_CALL libusb_get_device_descriptor(libusb_device *dev,
					     struct libusb_device_descriptor *desc)
{
	(void)dev;
	fk_desc_device(desc);
	return LIBUSB_SUCCESS;
}

int LIBUSB_CALL libusb_get_config_descriptor(libusb_device *dev, uint8_t config_index,
					     struct libusb_config_descriptor **config)
{
	(void)dev;
	return config_index == 0 ? fk_desc_config(config) : LIBUSB_ERROR_NOT_FOUND;
}

int LIBUSB_CALL libusb_get_active_config_descriptor(libusb_device *dev,
						    struct libusb_config_descriptor **config)
{
	return libusb_get_config_descriptor(dev, 0, config);
}

int LIBUSB_CALL libusb_get_config_descriptor_by_value(libusb_device *dev, uint8_t value,
						      struct libusb_config_descriptor **config)
{
	(void)dev;
	return value == 1 ? fk_desc_config(config) : LIBUSB_ERROR_NOT_FOUND;
}

void LIBUSB_CALL libusb_free_config_descriptor(struct libusb_config_descriptor *config)
{
	free(config); /* the first member of fake_desc.c's one block */
}

int LIBUSB_CALL libusb_open(libusb_device *dev, libusb_device_handle **dev_handle)
{
	libusb_device_handle *h;
	int rc = LIBUSB_SUCCESS;

	pthread_mutex_lock(&fk_lock);
	if (!fk_present()) {
		rc = LIBUSB_ERROR_NO_DEVICE;
	} else if (!(h = calloc(1, sizeof(*h)))) {
		rc = LIBUSB_ERROR_NO_MEM;
	} else {
		dev->refs++;
		h->dev = dev;
		h->config = 1;
		open_handles++;
		*dev_handle = h;
	}
	pthread_mutex_unlock(&fk_lock);
	return rc;
}

libusb_device_handle *LIBUSB_CALL libusb_open_device_with_vid_pid(libusb_context *ctx,
								  uint16_t vendor_id,
								  uint16_t product_id)
{
	libusb_device **list;
	libusb_device_handle *h = NULL;
	struct libusb_device_descriptor d;

	if (libusb_get_device_list(ctx, &list) < 0)
		return NULL;
	for (int i = 0; list[i] && !h; i++)
		if (libusb_get_device_descriptor(list[i], &d) == 0 && d.idVendor == vendor_id &&
		    d.idProduct == product_id && libusb_open(list[i], &h) < 0)
			h = NULL;
	libusb_free_device_list(list, 1);
	return h;
}

void LIBUSB_CALL libusb_close(libusb_device_handle *dev_handle)
{
	if (!dev_handle)
		return;
	pthread_mutex_lock(&fk_lock);
	if (dev_handle->dev->ctx)
		fk_xfer_orphan(dev_handle->dev->ctx, dev_handle);
	/* nobody left to read the scope: the source may stop */
	if (--open_handles == 0)
		fk_scope_reset();
	unref_locked(dev_handle->dev);
	pthread_mutex_unlock(&fk_lock);
	free(dev_handle);
}

libusb_device *LIBUSB_CALL libusb_get_device(libusb_device_handle *dev_handle)
{
	return dev_handle->dev;
}

int LIBUSB_CALL libusb_get_configuration(libusb_device_handle *dev, int *config)
{
	*config = dev->config;
	return fk_scope_gone() ? LIBUSB_ERROR_NO_DEVICE : LIBUSB_SUCCESS;
}

int LIBUSB_CALL libusb_set_configuration(libusb_device_handle *dev, int configuration)
{
	if (configuration != 1 && configuration != -1)
		return LIBUSB_ERROR_NOT_FOUND;
	if (dev->claimed)
		return LIBUSB_ERROR_BUSY;
	dev->config = configuration == 1 ? 1 : 0;
	return fk_scope_gone() ? LIBUSB_ERROR_NO_DEVICE : LIBUSB_SUCCESS;
}

int LIBUSB_CALL libusb_claim_interface(libusb_device_handle *dev, int interface_number)
{
	if (fk_scope_gone())
		return LIBUSB_ERROR_NO_DEVICE;
	if (interface_number != 0 || dev->config != 1)
		return LIBUSB_ERROR_NOT_FOUND;
	dev->claimed |= 1u;
	return LIBUSB_SUCCESS;
}

int LIBUSB_CALL libusb_release_interface(libusb_device_handle *dev, int interface_number)
{
	if (interface_number != 0 || !(dev->claimed & 1u))
		return LIBUSB_ERROR_NOT_FOUND;
	dev->claimed &= ~1u;
	return LIBUSB_SUCCESS;
}

int LIBUSB_CALL libusb_set_interface_alt_setting(libusb_device_handle *dev, int interface_number,
						 int alternate_setting)
{
	if (interface_number != 0 || !(dev->claimed & 1u) || alternate_setting != 0)
		return LIBUSB_ERROR_NOT_FOUND;
	return LIBUSB_SUCCESS;
}

int LIBUSB_CALL libusb_clear_halt(libusb_device_handle *dev, unsigned char endpoint)
{
	(void)dev;
	return endpoint == FK_EP_IN ? LIBUSB_SUCCESS : LIBUSB_ERROR_NOT_FOUND;
}

int LIBUSB_CALL libusb_reset_device(libusb_device_handle *dev)
{
	(void)dev;
	pthread_mutex_lock(&fk_lock);
	fk_scope_reset(); /* the firmware stays (it is in RAM, not reset) */
	pthread_mutex_unlock(&fk_lock);
	return fk_scope_gone() ? LIBUSB_ERROR_NOT_FOUND : LIBUSB_SUCCESS;
}

/* A vendor interface: no kernel driver binds it. */
int LIBUSB_CALL libusb_kernel_driver_active(libusb_device_handle *dev, int interface_number)
{
	(void)dev;
	return interface_number == 0 ? 0 : LIBUSB_ERROR_NOT_FOUND;
}

int LIBUSB_CALL libusb_detach_kernel_driver(libusb_device_handle *dev, int interface_number)
{
	(void)dev;
	(void)interface_number;
	return LIBUSB_ERROR_NOT_FOUND;
}

int LIBUSB_CALL libusb_attach_kernel_driver(libusb_device_handle *dev, int interface_number)
{
	(void)dev;
	(void)interface_number;
	return LIBUSB_ERROR_NOT_FOUND;
}

int LIBUSB_CALL libusb_set_auto_detach_kernel_driver(libusb_device_handle *dev, int enable)
{
	(void)dev;
	(void)enable;
	return LIBUSB_SUCCESS;
}

static int standard_request(libusb_device_handle *h, uint8_t type, uint8_t req,
			    uint16_t value, uint16_t index, unsigned char *data, uint16_t len)
{
	bool in = type & LIBUSB_ENDPOINT_IN;

	if (in && req == LIBUSB_REQUEST_GET_DESCRIPTOR)
		return fk_desc_raw((uint8_t)(value >> 8), (uint8_t)value, index, data, len);
	if (in && req == LIBUSB_REQUEST_GET_STATUS && len >= 2) {
		data[0] = data[1] = 0; /* bus powered, no remote wake-up */
		return 2;
	}
	if (in && req == LIBUSB_REQUEST_GET_CONFIGURATION && len >= 1) {
		data[0] = h->config;
		return 1;
	}
	if (!in && req == LIBUSB_REQUEST_SET_CONFIGURATION && value <= 1) {
		h->config = (uint8_t)value;
		return 0;
	}
	return LIBUSB_ERROR_PIPE;
}

int LIBUSB_CALL libusb_control_transfer(libusb_device_handle *dev_handle, uint8_t request_type,
					uint8_t bRequest, uint16_t wValue, uint16_t wIndex,
					unsigned char *data, uint16_t wLength, unsigned int timeout)
{
	int rc;

	(void)timeout; /* every request is answered at once */
	pthread_mutex_lock(&fk_lock);
	if (fk_scope_gone())
		rc = LIBUSB_ERROR_NO_DEVICE;
	else if ((request_type & 0x60) == LIBUSB_REQUEST_TYPE_STANDARD)
		rc = standard_request(dev_handle, request_type, bRequest, wValue, wIndex, data,
				      wLength);
	else if (request_type == (LIBUSB_REQUEST_TYPE_VENDOR | LIBUSB_ENDPOINT_OUT))
		rc = fk_scope_control(bRequest, wValue, wIndex, data, wLength);
	else
		rc = LIBUSB_ERROR_PIPE;
	if (dev_handle->dev->ctx)
		fk_xfer_rewatch(dev_handle->dev->ctx);
	pthread_mutex_unlock(&fk_lock);
	return rc;
}

int LIBUSB_CALL libusb_get_string_descriptor_ascii(libusb_device_handle *dev, uint8_t desc_index,
						   unsigned char *data, int length)
{
	const char *s = fk_desc_string(desc_index);
	int n = 0;

	(void)dev;
	if (desc_index == 0 || length < 1)
		return LIBUSB_ERROR_INVALID_PARAM;
	if (fk_scope_gone())
		return LIBUSB_ERROR_NO_DEVICE;
	if (!s)
		return LIBUSB_ERROR_PIPE;
	for (; s[n] && n < length - 1; n++)
		data[n] = (unsigned char)s[n];
	data[n] = 0;
	return n;
}

const struct libusb_version *LIBUSB_CALL libusb_get_version(void)
{
	static const struct libusb_version v = { 1, 0, 26, 0, "", "bcbench tests/fakeusb" };

	return &v;
}

int LIBUSB_CALL libusb_has_capability(uint32_t capability)
{
	switch (capability) {
	case LIBUSB_CAP_HAS_CAPABILITY:
	case LIBUSB_CAP_SUPPORTS_DETACH_KERNEL_DRIVER:
		return 1;
	default:
		return 0; /* no hotplug, no HID access */
	}
}

const char *LIBUSB_CALL libusb_error_name(int errcode)
{
	switch (errcode) {
	case LIBUSB_SUCCESS: return "LIBUSB_SUCCESS / LIBUSB_TRANSFER_COMPLETED";
	case LIBUSB_TRANSFER_ERROR: return "LIBUSB_TRANSFER_ERROR";
	case LIBUSB_TRANSFER_TIMED_OUT: return "LIBUSB_TRANSFER_TIMED_OUT";
	case LIBUSB_TRANSFER_CANCELLED: return "LIBUSB_TRANSFER_CANCELLED";
	case LIBUSB_TRANSFER_STALL: return "LIBUSB_TRANSFER_STALL";
	case LIBUSB_TRANSFER_NO_DEVICE: return "LIBUSB_TRANSFER_NO_DEVICE";
	case LIBUSB_TRANSFER_OVERFLOW: return "LIBUSB_TRANSFER_OVERFLOW";
	case LIBUSB_ERROR_IO: return "LIBUSB_ERROR_IO";
	case LIBUSB_ERROR_INVALID_PARAM: return "LIBUSB_ERROR_INVALID_PARAM";
	case LIBUSB_ERROR_ACCESS: return "LIBUSB_ERROR_ACCESS";
	case LIBUSB_ERROR_NO_DEVICE: return "LIBUSB_ERROR_NO_DEVICE";
	case LIBUSB_ERROR_NOT_FOUND: return "LIBUSB_ERROR_NOT_FOUND";
	case LIBUSB_ERROR_BUSY: return "LIBUSB_ERROR_BUSY";
	case LIBUSB_ERROR_TIMEOUT: return "LIBUSB_ERROR_TIMEOUT";
	case LIBUSB_ERROR_OVERFLOW: return "LIBUSB_ERROR_OVERFLOW";
	case LIBUSB_ERROR_PIPE: return "LIBUSB_ERROR_PIPE";
	case LIBUSB_ERROR_INTERRUPTED: return "LIBUSB_ERROR_INTERRUPTED";
	case LIBUSB_ERROR_NO_MEM: return "LIBUSB_ERROR_NO_MEM";
	case LIBUSB_ERROR_NOT_SUPPORTED: return "LIBUSB_ERROR_NOT_SUPPORTED";
	case LIBUSB_ERROR_OTHER: return "LIBUSB_ERROR_OTHER";
	default: return "**UNKNOWN**";
	}
}

const char *LIBUSB_CALL libusb_strerror(int errcode)
{
	switch (errcode) {
	case LIBUSB_SUCCESS: return "Success";
	case LIBUSB_ERROR_IO: return "Input/Output Error";
	case LIBUSB_ERROR_INVALID_PARAM: return "Invalid parameter";
	case LIBUSB_ERROR_ACCESS: return "Access denied (insufficient permissions)";
	case LIBUSB_ERROR_NO_DEVICE: return "No such device (it may have been disconnected)";
	case LIBUSB_ERROR_NOT_FOUND: return "Entity not found";
	case LIBUSB_ERROR_BUSY: return "Resource busy";
	case LIBUSB_ERROR_TIMEOUT: return "Operation timed out";
	case LIBUSB_ERROR_OVERFLOW: return "Overflow";
	case LIBUSB_ERROR_PIPE: return "Pipe error";
	case LIBUSB_ERROR_INTERRUPTED: return "System call interrupted (perhaps due to signal)";
	case LIBUSB_ERROR_NO_MEM: return "Insufficient memory";
	case LIBUSB_ERROR_NOT_SUPPORTED: return "Operation not supported or unimplemented on this platform";
	default: return "Other error";
	}
}

int LIBUSB_CALL libusb_setlocale(const char *locale)
{
	return locale && strncmp(locale, "en", 2) == 0 ? LIBUSB_SUCCESS : LIBUSB_ERROR_NOT_FOUND;
}

void LIBUSB_CALL libusb_set_debug(libusb_context *ctx, int level)
{
	(void)ctx;
	(void)level;
}

void LIBUSB_CALL libusb_set_log_cb(libusb_context *ctx, libusb_log_cb cb, int mode)
{
	(void)ctx;
	(void)cb;
	(void)mode;
}

int LIBUSB_CALL libusb_set_option(libusb_context *ctx, enum libusb_option option, ...)
{
	(void)ctx;
	switch (option) {
	case LIBUSB_OPTION_LOG_LEVEL:
	case LIBUSB_OPTION_NO_DEVICE_DISCOVERY:
		return LIBUSB_SUCCESS;
	default:
		return LIBUSB_ERROR_NOT_SUPPORTED;
	}
}
