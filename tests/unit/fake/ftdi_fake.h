/* A strict fake of the libftdi1 calls the FTDI fixture backend makes,
 * linked in with -Wl,--wrap (tests/unit/test_ftdi_fixture.mk). It keeps
 * an FT232H's or FT232R's pin state as the chip would (bit mode,
 * direction bits, levels; an undriven pin reads the board's pull), parses
 * every byte written, and decodes the pins into the fixture's signals with
 * its own reading of the fixture file (pin, polarity, undriven level):
 * not the backend's encoder. clock_nanosleep and clock_gettime are
 * wrapped too: a sleep returns at once and moves the fake clock on by its
 * length, so the release gaps are measured and the tests do not sleep.
 *
 * What the backend must never do is recorded as the first violation: a
 * write before open or in reset mode (bytes to the UART), an unknown
 * MPSSE command, an illegal combination even between two commands of one
 * write, a write that makes and breaks relays at once, a make of any
 * relay sooner than release_ms after a break of any. Reset mode is UART
 * mode, as on the chip: TXD, RTS# and DTR# (bits 0, 2, 4) driven high. */
#ifndef BN_TEST_FTDI_FAKE_H
#define BN_TEST_FTDI_FAKE_H

#include <stdbool.h>
#include <stdint.h>

#include "hil/fixture_def.h"

#define FAKE_MAX_STEPS 4096

struct ftdi_fake_step {
	uint32_t state;     /* signals on after this change */
	int64_t t_us;       /* virtual time */
	int write_no;       /* the ftdi_write_data call that made it (1-based) */
};

struct ftdi_fake {
	const struct bn_fixture_def *def;   /* how the fake reads the pins */
	/* the chip */
	bool opened;
	int mode;                           /* BITMODE_RESET, _BITBANG, _MPSSE */
	uint16_t dir, level;
	uint16_t input_levels;              /* what the board drives onto input pins */
	int latency_ms;
	/* what the backend asked for */
	int open_vid, open_pid;
	char open_desc[64], open_serial[64];
	int n_new, n_free, n_open, n_close, n_reset_mode;
	int writes;                         /* ftdi_write_data calls that reached the chip */
	int last_write_len;                 /* bytes in the last one */
	int64_t skipped_us;                 /* virtual sleeps: the fake clock's lead on the real one */
	struct ftdi_fake_step steps[FAKE_MAX_STEPS];
	int nsteps;
	uint32_t state;                     /* decoded now */
	uint32_t state_at_close;            /* decoded when the USB handle went */
	int64_t last_break_us;              /* a relay last went off; -1: never */
	char violation[512];
	/* failures to inject */
	int open_rc;                        /* < 0: ftdi_usb_open_desc_index fails so */
	int write_calls;                    /* every ftdi_write_data call, failed ones too */
	int fail_writes_from;               /* this call (1-based) and all after fail */
	int fail_writes_until;              /* ... until this one (0: for ever) */
	bool fail_bitmode;
	const char *fail_call;              /* this libftdi call fails ("ftdi_usb_reset", ...) */
	bool reads_stall;                   /* MPSSE reads never answer */
	uint8_t readq[64];                  /* MPSSE answers not yet read */
	int nreadq;
	/* a test's view of each write or mode change that changed the
	 * signals (the e2e drives the world with it) */
	void (*on_state)(void *user, uint32_t old_state, uint32_t new_state);
	void *user;
};

/* Reset fk and make it the chip the next ftdi_new finds: in reset
 * (UART) mode, as after power-up. */
void ftdi_fake_install(struct ftdi_fake *fk, const struct bn_fixture_def *def);
void ftdi_fake_uninstall(void);
/* A chip an earlier session left driving: MPSSE, state on its pins. */
void ftdi_fake_left_driving(struct ftdi_fake *fk, uint32_t state);
/* The fake clock (CLOCK_MONOTONIC as the backend sees it), us. */
int64_t ftdi_fake_now_us(const struct ftdi_fake *fk);
/* The signals the pins show now. */
uint32_t ftdi_fake_decode(const struct ftdi_fake *fk);
/* Names of the signals on, "+"-joined, "" for none (the fake's own). */
void ftdi_fake_names(const struct ftdi_fake *fk, uint32_t state, char *buf, size_t len);

#endif
