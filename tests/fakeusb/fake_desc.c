/* The Hantek 6022BE as it enumerates once fx2lafw's firmware is loaded:
 * the ids libsigrok 0.5.2's hantek-6xxx profile table expects after the
 * upload (fw_vid 1d50, fw_pid 608e, bcdDevice 0x0001), so its scan takes
 * the device as ready and uploads nothing. One configuration (1), one
 * vendor interface (0), one bulk IN endpoint (0x86, 512 bytes: high
 * speed), which the driver reads the samples from. The strings are ours:
 * the driver reads none. */
#include <stdlib.h>
#include <string.h>

#include "fake.h"

static const unsigned char dev_desc[18] = {
	18, LIBUSB_DT_DEVICE, 0x00, 0x02, /* USB 2.0 */
	0x00, 0x00, 0x00, 64,             /* class per interface, ep0 64 bytes */
	0x50, 0x1d, 0x8e, 0x60,           /* 1d50:608e */
	0x01, 0x00,                       /* bcdDevice 0x0001: the 6022BE's */
	1, 2, 3, 1,                       /* strings; one configuration */
};

#define CFG_LEN (LIBUSB_DT_CONFIG_SIZE + LIBUSB_DT_INTERFACE_SIZE + LIBUSB_DT_ENDPOINT_SIZE)
static const unsigned char cfg_desc[CFG_LEN] = {
	LIBUSB_DT_CONFIG_SIZE, LIBUSB_DT_CONFIG, CFG_LEN, 0x00,
	1, 1, 0, 0x80, 250,                              /* bus powered, 500 mA */
	LIBUSB_DT_INTERFACE_SIZE, LIBUSB_DT_INTERFACE, 0, 0,
	1, LIBUSB_CLASS_VENDOR_SPEC, 0, 0, 0,
	LIBUSB_DT_ENDPOINT_SIZE, LIBUSB_DT_ENDPOINT, FK_EP_IN, LIBUSB_TRANSFER_TYPE_BULK,
	FK_EP_IN_MAXPACKET & 0xff, FK_EP_IN_MAXPACKET >> 8, 0,
};

static const char *const strings[] = { NULL, "Hantek", "6022BE", "fakeusb" };

void fk_desc_device(struct libusb_device_descriptor *d)
{
	d->bLength = dev_desc[0];
	d->bDescriptorType = dev_desc[1];
	d->bcdUSB = (uint16_t)(dev_desc[2] | dev_desc[3] << 8);
	d->bDeviceClass = dev_desc[4];
	d->bDeviceSubClass = dev_desc[5];
	d->bDeviceProtocol = dev_desc[6];
	d->bMaxPacketSize0 = dev_desc[7];
	d->idVendor = (uint16_t)(dev_desc[8] | dev_desc[9] << 8);
	d->idProduct = (uint16_t)(dev_desc[10] | dev_desc[11] << 8);
	d->bcdDevice = (uint16_t)(dev_desc[12] | dev_desc[13] << 8);
	d->iManufacturer = dev_desc[14];
	d->iProduct = dev_desc[15];
	d->iSerialNumber = dev_desc[16];
	d->bNumConfigurations = dev_desc[17];
}

const char *fk_desc_string(uint8_t index)
{
	return index > 0 && index < sizeof(strings) / sizeof(strings[0]) ? strings[index] : NULL;
}

static int put(unsigned char *buf, int len, const unsigned char *src, int n)
{
	if (n > len)
		n = len;
	memcpy(buf, src, (size_t)n);
	return n;
}

int fk_desc_raw(uint8_t type, uint8_t index, uint16_t langid, unsigned char *buf, int len)
{
	unsigned char s[2 + 2 * 32];
	const char *text;
	int n;

	switch (type) {
	case LIBUSB_DT_DEVICE:
		return index == 0 ? put(buf, len, dev_desc, sizeof(dev_desc)) : LIBUSB_ERROR_PIPE;
	case LIBUSB_DT_CONFIG:
		return index == 0 ? put(buf, len, cfg_desc, sizeof(cfg_desc)) : LIBUSB_ERROR_PIPE;
	case LIBUSB_DT_STRING:
		if (index == 0) { /* the languages: US English */
			const unsigned char langs[4] = { 4, LIBUSB_DT_STRING, 0x09, 0x04 };

			return put(buf, len, langs, sizeof(langs));
		}
		text = fk_desc_string(index);
		if (!text || langid != 0x0409)
			return LIBUSB_ERROR_PIPE;
		n = (int)strlen(text);
		s[0] = (unsigned char)(2 + 2 * n);
		s[1] = LIBUSB_DT_STRING;
		for (int i = 0; i < n; i++) {
			s[2 + 2 * i] = (unsigned char)text[i];
			s[3 + 2 * i] = 0;
		}
		return put(buf, len, s, s[0]);
	default:
		return LIBUSB_ERROR_PIPE; /* no BOS, no qualifier: a USB 2.0 device stalls */
	}
}

/* One block holds the whole tree, so free() frees it. */
struct cfg_tree {
	struct libusb_config_descriptor cfg;
	struct libusb_interface itf;
	struct libusb_interface_descriptor alt;
	struct libusb_endpoint_descriptor ep;
};

int fk_desc_config(struct libusb_config_descriptor **out)
{
	struct cfg_tree *t = calloc(1, sizeof(*t));
	const unsigned char *c = cfg_desc, *i = c + LIBUSB_DT_CONFIG_SIZE,
			    *e = i + LIBUSB_DT_INTERFACE_SIZE;

	if (!t)
		return LIBUSB_ERROR_NO_MEM;
	t->cfg = (struct libusb_config_descriptor){
		.bLength = c[0], .bDescriptorType = c[1], .wTotalLength = (uint16_t)(c[2] | c[3] << 8),
		.bNumInterfaces = c[4], .bConfigurationValue = c[5], .iConfiguration = c[6],
		.bmAttributes = c[7], .MaxPower = c[8], .interface = &t->itf,
	};
	t->itf = (struct libusb_interface){ .altsetting = &t->alt, .num_altsetting = 1 };
	t->alt = (struct libusb_interface_descriptor){
		.bLength = i[0], .bDescriptorType = i[1], .bInterfaceNumber = i[2],
		.bAlternateSetting = i[3], .bNumEndpoints = i[4], .bInterfaceClass = i[5],
		.bInterfaceSubClass = i[6], .bInterfaceProtocol = i[7], .iInterface = i[8],
		.endpoint = &t->ep,
	};
	t->ep = (struct libusb_endpoint_descriptor){
		.bLength = e[0], .bDescriptorType = e[1], .bEndpointAddress = e[2],
		.bmAttributes = e[3], .wMaxPacketSize = (uint16_t)(e[4] | e[5] << 8),
		.bInterval = e[6],
	};
	*out = &t->cfg;
	return LIBUSB_SUCCESS;
}
