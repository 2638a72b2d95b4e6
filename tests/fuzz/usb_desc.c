/* USB standard descriptors (bench/hil/usb_desc.c) on any bytes, as a
 * device sends them: the device descriptor, then its configurations one
 * after another (each wTotalLength long), parsed as the real path does. */
#include "lib/fuzz.h"

#include "hil/usb_desc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bn_usb_device_desc dev;
	struct bn_usb_config_desc cfg;
	struct bn_err err = { 0 };
	unsigned unit = 2;
	size_t off = 0;

	bn_fuzz_quiet();
	if (bn_usb_parse_device(data, size, &dev, &err) == 0) {
		unit = bn_usb_power_unit_ma(&dev);
		off = BN_USB_DEVICE_DESC_LEN;
	}
	for (int i = 0; i < BN_USB_MAX_CONFIGS && off < size; i++) {
		struct bn_err e = { 0 };

		if (bn_usb_parse_config(data + off, size - off, unit, &cfg, &e) < 0)
			break;
		off += cfg.total_length;
	}
	return 0;
}
