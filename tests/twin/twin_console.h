/* The device's telemetry console on a pseudo-terminal: what the firmware
 * running in the twin reports (bn_world_telemetry's keys), as lines of
 * docs/console-telemetry.md at the moment it reports them:
 *
 *   port, state, ilim_ma   bc12 port=P state=S ilim_ma=N vbus_mv=N (the
 *                          latest of each; "bc12 state=S" alone before the
 *                          firmware named a port)
 *   config                 cfg value=N
 *   anything else          fw KEY=VALUE (a firmware log line: skipped by
 *                          bcbench, kept for a reader)
 *
 * Lines go out whether anyone reads or not (a run drops what came before
 * it); once the pty's buffer is full they are dropped and counted. */
#ifndef BN_TWIN_CONSOLE_H
#define BN_TWIN_CONSOLE_H

#include <stdio.h>

#include "twin_link.h"
#include "twin_world.h"

struct twin_console {
	struct twin_link link;
	const struct twin_world *tw;
	FILE *log;
	char port[24], state[32];
	long ilim_ma;            /* -1: not reported */
	long sent, dropped;
};

int twin_console_open(struct twin_console *c, const struct twin_world *tw, FILE *log,
		      struct bn_err *err);
void twin_console_telemetry(struct twin_console *c, bn_time_us t, const char *key, const char *val);
void twin_console_service(struct twin_console *c, const struct pollfd *p, int n, bn_time_us t);
/* The device's USB-CDC port went away: the pty closes for good. */
void twin_console_hangup(struct twin_console *c, bn_time_us t);
void twin_console_close(struct twin_console *c);

#endif
