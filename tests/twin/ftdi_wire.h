/* The wire between bcbench-twin-host's libftdi1 stand-in (ftdi_remote.c)
 * and the twin's emulated FTDI chip (twin_chip.c): a unix SOCK_SEQPACKET
 * socket, one datagram per libftdi1 call, text, one reply each, so a call
 * returns only once the twin has put its effect on the pins.
 *
 * Where the socket is: the fixture's description in bench.conf,
 * "fixture = ftdi:desc=twin:PATH" (so the conf the twin prints is all a
 * run needs), else the environment variable BCBENCH_TWIN_FTDI.
 *
 * Requests (host to twin):
 *   OPEN VVVV PPPP\tDESC\tSERIAL   ftdi_usb_open_desc_index ("-" for none)
 *   ITF N                          ftdi_set_interface
 *   RESET                          ftdi_usb_reset
 *   LATENCY N                      ftdi_set_latency_timer
 *   FLUSH | IFLUSH                 ftdi_tcioflush | ftdi_tciflush
 *   BITMODE MASK MODE              ftdi_set_bitmode (decimal)
 *   WRITE HEX                      ftdi_write_data (the bytes in hex)
 *   PINS                           ftdi_read_pins
 *   CLOSE                          ftdi_usb_close
 * Replies: "OK", "OK HEX" (WRITE: the bytes the chip answered, MPSSE
 * 0x81/0x83; PINS: the pins), or "ERR RC TEXT" (RC libftdi1's return code
 * for the call, TEXT its error string). */
#ifndef BN_TWIN_FTDI_WIRE_H
#define BN_TWIN_FTDI_WIRE_H

#define TWIN_FTDI_ENV "BCBENCH_TWIN_FTDI"
#define TWIN_FTDI_DESC_PREFIX "twin:"
/* The largest write the backend makes is 6 bytes; room for far more. */
#define TWIN_FTDI_MAX_WRITE 1024
#define TWIN_FTDI_MSG_LEN (16 + 2 * TWIN_FTDI_MAX_WRITE)
/* A call the twin does not answer within this is a failed USB transfer. */
#define TWIN_FTDI_REPLY_MS 3000

#endif
