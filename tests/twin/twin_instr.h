/* The twin's SCPI instruments, each on its link, answering from the
 * world. Their dialogues are the instruments' own as the dialect files
 * describe them (profiles/instruments/rigol-dl3000.json, rigol-dp800.json),
 * written here from those files' commands, not read from them, so a wrong
 * dialect file shows up as a dialogue the twin refuses:
 *
 *   load    Rigol DL3021 (rigol-dl3000): *IDN?, :SOUR:FUNC CURR,
 *           :SOUR:CURR:LEV A, :SOUR:INP:STAT ON|OFF, :MEAS:VOLT?,
 *           :MEAS:CURR?, :SYST:ERR?. The setpoint is sunk while the input
 *           is on and the fixture's load path closed; it reads the VBUS at
 *           its terminals and the current it sinks.
 *   supply  Rigol DP832 channel 1 (rigol-dp800): :SOUR1:VOLT V,
 *           :SOUR1:CURR A, :OUTP CH1,ON|OFF, :MEAS:VOLT? CH1,
 *           :MEAS:CURR? CH1, :SYST:ERR?. It stands for the charger
 *           (twin_world.h).
 *   pps     a capture device for libsigrok's scpi-pps driver: a Rigol DP711
 *           (one output, so no channel selection), which libsigrok 0.5.2's
 *           profiles know (src/hardware/scpi-pps/profiles.c): channels V1,
 *           I1, P1 answering the device's VBUS, IBUS and their product.
 *           Every value served is a line of the samples log.
 *
 * An unknown command queues SCPI error -113 (the error query reports it);
 * an unknown query of the pps is answered "0" (libsigrok would wait a
 * second for it) and logged as unknown.
 *
 * Faults, counted in received lines (a query sent again at once is the
 * client's retry and counts once): stall_after N answers nothing more;
 * vanish_after N closes the link for good when line N+1 comes. */
#ifndef BN_TWIN_INSTR_H
#define BN_TWIN_INSTR_H

#include <stdbool.h>
#include <stdio.h>

#include "twin_link.h"
#include "twin_world.h"

enum twin_instr_kind { TWIN_LOAD, TWIN_SUPPLY, TWIN_PPS };

struct twin_instr {
	enum twin_instr_kind kind;
	struct twin_link link;
	struct twin_world *tw;
	FILE *log;               /* the dialogue; may be NULL */
	FILE *samples;           /* pps: every value served; may be NULL */
	long lines;
	char prev[TWIN_LINK_LINE];
	long stall_after, vanish_after; /* < 0: never */
	bool stalled;
	int err;                 /* queued SCPI error, 0: none */
	bool on;
	double set_a, set_v, ilim_a;
	long served;             /* pps: values served */
	bn_time_us first_served_t; /* pps: -1 until the first value */
	bn_time_us t;            /* now, twin time */
};

/* Before serving: the time of what poll found. */
void twin_instr_service(struct twin_instr *in, const struct pollfd *p, int n, bn_time_us t);
/* A note in the dialogue log ("!  TEXT"). */
void twin_instr_note(struct twin_instr *in, bn_time_us t, const char *text);

#endif
