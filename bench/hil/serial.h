/* A serial line to an instrument or a device console, through
 * libserialport: open by path, write with a time-out, read a line with a
 * time-out. Pseudo-terminals (the tests' instrument emulator) go through
 * the same calls, on termios underneath: libserialport 0.1.1 cannot open a
 * pty (hil/serial.c and docs/instruments.md say what was measured).
 * Errors name the port: "/dev/ttyUSB0: read: timed out after 1000 ms". */
#ifndef BN_HIL_SERIAL_H
#define BN_HIL_SERIAL_H

#include <stdbool.h>
#include <stddef.h>

#include "core/err.h"

struct bn_serial;

/* path: "/dev/ttyUSB0", a pty, or a libserialport port name; baud 0: 9600.
 * 8N1, no flow control. */
int bn_serial_open(const char *path, int baud, struct bn_serial **out, struct bn_err *err);
/* The same line layer on a descriptor opened otherwise (a TCP socket, a
 * USB-TMC character device: hil/scpi_link.c), named name in messages;
 * the serial line takes fd (closes it on error and at close). message:
 * the descriptor returns a whole reply per read() and has no poll()
 * readiness (the Linux usbtmc driver), so reads block on it, bounded by
 * its own time-out. A device node is taken exclusively as a serial port
 * is; a socket is not (a LAN instrument serves whoever connects). */
int bn_serial_wrap_fd(const char *name, int fd, bool message, struct bn_serial **out,
		      struct bn_err *err);
/* Write all of buf (BN_ERR_TIMEOUT when it does not drain in time,
 * BN_ERR_IO when the other end is gone). */
int bn_serial_write(struct bn_serial *s, const void *buf, size_t len, int timeout_ms,
		    struct bn_err *err);
/* Read one line ending in "\n" (a "\r\n" or lone "\r" end is accepted),
 * without its end, NUL-terminated, into line (cap bytes). Returns its
 * length, BN_ERR_TIMEOUT when no whole line came in time, BN_ERR_DATA when
 * it is longer than cap - 1 (the rest of that line is dropped), BN_ERR_IO
 * when the other end is gone. Bytes after the line stay buffered. */
int bn_serial_read_line(struct bn_serial *s, char *line, size_t cap, int timeout_ms,
			struct bn_err *err);
/* Drop whatever is buffered or waiting (before a query, after a time-out). */
void bn_serial_flush_input(struct bn_serial *s);
const char *bn_serial_path(const struct bn_serial *s);
/* bench.conf's "PORT[@BAUD]": the port into path (cap bytes), the rate
 * into *baud when one is given (else *baud is left as it is). Errors read
 * 'WHO "SPEC": ...; expected USAGE' (the form and an example). */
int bn_serial_parse_spec(const char *who, const char *usage, const char *spec, char *path,
			 size_t cap, int *baud, struct bn_err *err);
void bn_serial_close(struct bn_serial *s);

#endif
