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

#endif
