/* The twin's FTDI chip: an FT232H (MPSSE) or FT232R (bitbang) as the
 * fixture file says, with its bit mode, pin directions and levels, what an
 * undriven pin reads (the board's pull), and the fixture's signals decoded
 * from the pins with the twin's own reading of the file (pin, polarity,
 * undriven level), not bcbench's encoder.
 *
 * It also judges what it is told, as the hardware would suffer it: an
 * illegal combination on the wires (the file's rules), a relay made
 * sooner than release_ms after one broke, a write that makes and breaks
 * at once, bytes written in reset (UART) mode. Each is a violation line
 * for the log; the chip does what it was told regardless. */
#ifndef BN_TWIN_CHIP_H
#define BN_TWIN_CHIP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hil/fixture_def.h"

#define TWIN_CHIP_MAX_STEPS 16

struct twin_chip {
	const struct bn_fixture_def *def;
	bool open;               /* a host holds the chip */
	int mode;                /* BITMODE_RESET, _BITBANG, _MPSSE */
	uint16_t dir, level;
	int latency_ms;
	uint32_t state;          /* the signals the pins show now */
	int64_t last_break_us;   /* a relay last opened (twin clock); -1: never */
	int writes;
};

/* What one request did: the signals after each pin change inside it (a
 * write of two MPSSE commands changes the pins twice), and what it broke. */
struct twin_chip_result {
	uint32_t steps[TWIN_CHIP_MAX_STEPS];
	int nsteps;
	char violation[400];     /* "" when none */
};

/* As at power-up: reset (UART) mode, TXD, RTS# and DTR# driven high. */
void twin_chip_init(struct twin_chip *c, const struct bn_fixture_def *def);
/* One ftdi_wire.h request at twin time now_us; board is the level the
 * board drives on each input pin (bit = pin). reply gets the wire reply. */
void twin_chip_request(struct twin_chip *c, const char *req, int64_t now_us, uint16_t board,
		       char *reply, size_t cap, struct twin_chip_result *res);
uint32_t twin_chip_decode(const struct twin_chip *c);
/* "DP_PULLDOWN+DM_PULLDOWN", "(none)". */
void twin_chip_names(const struct bn_fixture_def *d, uint32_t state, char *buf, size_t len);

#endif
