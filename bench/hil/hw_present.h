/* Whether this binary has the hardware backends (docs/design.md, "Two
 * binaries"): true in bcbench-hw (hil/hw_present.c, linked with the files
 * that call libsigrok, libftdi1, libserialport and libusb), false in
 * bcbench (hil/absent.c, their stand-ins). Settled at link time. */
#ifndef BN_HIL_HW_PRESENT_H
#define BN_HIL_HW_PRESENT_H

#include <stdbool.h>

extern const bool bn_hw_present;

#endif
