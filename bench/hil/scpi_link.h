/* The ways to an SCPI instrument other than a serial line, each giving
 * the same line layer (hil/serial.h) to the dialect client (hil/scpi.c):
 *
 *   tcp-raw/HOST/PORT   a LAN instrument's raw SCPI socket (port 5025 on
 *                       most), written as libsigrok writes it
 *   usbtmc:PATH         a USB-TMC instrument through the Linux usbtmc
 *                       driver's character device, e.g. usbtmc:/dev/usbtmc0
 *                       (or a udev symlink to it); a bare /dev/usbtmcN is
 *                       taken as this too. Not libsigrok's "usbtmc/BUS.ADDR",
 *                       which names a libusb address and detaches the
 *                       kernel driver: here the kernel driver does the
 *                       USB-TMC framing and the device stays usable by
 *                       other tools between runs.
 *
 * Anything else is a serial port (PORT[@BAUD]). */
#ifndef BN_HIL_SCPI_LINK_H
#define BN_HIL_SCPI_LINK_H

#include "core/err.h"
#include "hil/serial.h"

enum bn_scpi_link_kind { BN_LINK_SERIAL, BN_LINK_TCP, BN_LINK_USBTMC };

/* Which kind spec names; for TCP and USB-TMC, also the part after the
 * prefix checked (BN_ERR_ARG naming spec and the expected form). */
int bn_scpi_link_kind(const char *spec, enum bn_scpi_link_kind *kind, struct bn_err *err);

/* Open a TCP or USB-TMC link, connect or open within timeout_ms. Not
 * there (refused, no route, no such device): BN_ERR_IO naming it. */
int bn_scpi_link_open(const char *spec, int timeout_ms, struct bn_serial **out,
		      struct bn_err *err);

#endif
