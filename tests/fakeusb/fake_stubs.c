/* The rest of libusb-1.0's exports, so that anything linked against the
 * real library loads against the fake: hotplug, USB 3 streams and
 * descriptors, device memory, wrapped fds. The fake serves none of it:
 * LIBUSB_ERROR_NOT_SUPPORTED (a 2.0 device has no BOS: it stalls). */
#include <stdlib.h>

#include "fake.h"

int LIBUSB_CALL libusb_get_bos_descriptor(libusb_device_handle *dev_handle,
					  struct libusb_bos_descriptor **bos)
{
	(void)dev_handle;
	(void)bos;
	return LIBUSB_ERROR_PIPE;
}

void LIBUSB_CALL libusb_free_bos_descriptor(struct libusb_bos_descriptor *bos)
{
	free(bos);
}

int LIBUSB_CALL libusb_get_usb_2_0_extension_descriptor(
	libusb_context *ctx, struct libusb_bos_dev_capability_descriptor *dev_cap,
	struct libusb_usb_2_0_extension_descriptor **usb_2_0_extension)
{
	(void)ctx;
	(void)dev_cap;
	(void)usb_2_0_extension;
	return LIBUSB_ERROR_NOT_SUPPORTED;
}

void LIBUSB_CALL libusb_free_usb_2_0_extension_descriptor(
	struct libusb_usb_2_0_extension_descriptor *usb_2_0_extension)
{
	free(usb_2_0_extension);
}

int LIBUSB_CALL libusb_get_ss_usb_device_capability_descriptor(
	libusb_context *ctx, struct libusb_bos_dev_capability_descriptor *dev_cap,
	struct libusb_ss_usb_device_capability_descriptor **ss_usb_device_cap)
{
	(void)ctx;
	(void)dev_cap;
	(void)ss_usb_device_cap;
	return LIBUSB_ERROR_NOT_SUPPORTED;
}

void LIBUSB_CALL libusb_free_ss_usb_device_capability_descriptor(
	struct libusb_ss_usb_device_capability_descriptor *ss_usb_device_cap)
{
	free(ss_usb_device_cap);
}

int LIBUSB_CALL libusb_get_container_id_descriptor(
	libusb_context *ctx, struct libusb_bos_dev_capability_descriptor *dev_cap,
	struct libusb_container_id_descriptor **container_id)
{
	(void)ctx;
	(void)dev_cap;
	(void)container_id;
	return LIBUSB_ERROR_NOT_SUPPORTED;
}

void LIBUSB_CALL libusb_free_container_id_descriptor(
	struct libusb_container_id_descriptor *container_id)
{
	free(container_id);
}

int LIBUSB_CALL libusb_get_ss_endpoint_companion_descriptor(
	libusb_context *ctx, const struct libusb_endpoint_descriptor *endpoint,
	struct libusb_ss_endpoint_companion_descriptor **ep_comp)
{
	(void)ctx;
	(void)endpoint;
	(void)ep_comp;
	return LIBUSB_ERROR_NOT_SUPPORTED;
}

void LIBUSB_CALL libusb_free_ss_endpoint_companion_descriptor(
	struct libusb_ss_endpoint_companion_descriptor *ep_comp)
{
	free(ep_comp);
}

int LIBUSB_CALL libusb_alloc_streams(libusb_device_handle *dev_handle, uint32_t num_streams,
				     unsigned char *endpoints, int num_endpoints)
{
	(void)dev_handle;
	(void)num_streams;
	(void)endpoints;
	(void)num_endpoints;
	return LIBUSB_ERROR_NOT_SUPPORTED;
}

int LIBUSB_CALL libusb_free_streams(libusb_device_handle *dev_handle, unsigned char *endpoints,
				    int num_endpoints)
{
	(void)dev_handle;
	(void)endpoints;
	(void)num_endpoints;
	return LIBUSB_ERROR_NOT_SUPPORTED;
}

void LIBUSB_CALL libusb_transfer_set_stream_id(struct libusb_transfer *transfer,
					       uint32_t stream_id)
{
	(void)transfer;
	(void)stream_id;
}

uint32_t LIBUSB_CALL libusb_transfer_get_stream_id(struct libusb_transfer *transfer)
{
	(void)transfer;
	return 0;
}

unsigned char *LIBUSB_CALL libusb_dev_mem_alloc(libusb_device_handle *dev_handle, size_t length)
{
	(void)dev_handle;
	(void)length;
	return NULL; /* the caller falls back to its own memory */
}

int LIBUSB_CALL libusb_dev_mem_free(libusb_device_handle *dev_handle, unsigned char *buffer,
				    size_t length)
{
	(void)dev_handle;
	(void)buffer;
	(void)length;
	return LIBUSB_ERROR_NOT_SUPPORTED;
}

int LIBUSB_CALL libusb_wrap_sys_device(libusb_context *ctx, intptr_t sys_dev,
				       libusb_device_handle **dev_handle)
{
	(void)ctx;
	(void)sys_dev;
	(void)dev_handle;
	return LIBUSB_ERROR_NOT_SUPPORTED;
}

/* No hotplug (libusb_has_capability says so): callers poll the list. */
int LIBUSB_CALL libusb_hotplug_register_callback(libusb_context *ctx, int events, int flags,
						 int vendor_id, int product_id, int dev_class,
						 libusb_hotplug_callback_fn cb_fn, void *user_data,
						 libusb_hotplug_callback_handle *callback_handle)
{
	(void)ctx;
	(void)events;
	(void)flags;
	(void)vendor_id;
	(void)product_id;
	(void)dev_class;
	(void)cb_fn;
	(void)user_data;
	(void)callback_handle;
	return LIBUSB_ERROR_NOT_SUPPORTED;
}

void LIBUSB_CALL libusb_hotplug_deregister_callback(libusb_context *ctx,
						    libusb_hotplug_callback_handle callback_handle)
{
	(void)ctx;
	(void)callback_handle;
}

void *LIBUSB_CALL libusb_hotplug_get_user_data(libusb_context *ctx,
					       libusb_hotplug_callback_handle callback_handle)
{
	(void)ctx;
	(void)callback_handle;
	return NULL;
}
