/* `bcbench devices`: what this machine can reach, by library: FTDI
 * devices (libftdi1), serial ports (libserialport), sigrok drivers
 * (libsigrok), USB devices (libusb). Each section says plainly when it
 * found none, and why when a library could not look. */
#ifndef BN_HIL_DEVICES_H
#define BN_HIL_DEVICES_H

#include <stdio.h>

/* Prints the sections to out; returns the number of devices found
 * (sigrok drivers are not devices and do not count). */
int bn_devices_print(FILE *out);

struct cJSON;
/* The same as one JSON object (bcbench(1), "devices --json"): "ftdi",
 * "serial", "usb": {"devices": [...], "error": null or why the library
 * could not look}; "sigrok": {"drivers": [...], "error"};
 * "usb_visible"; "found" (as bn_devices_print returns). NULL when out of
 * memory. */
struct cJSON *bn_devices_json(void);

#endif
