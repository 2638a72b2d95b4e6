/* The twin's fixture: its FTDI chip (twin_chip.h) behind a unix socket
 * (ftdi_wire.h) that bcbench-twin-host's libftdi1 talks to, and what the
 * chip's pins say applied to the world (twin_world_fixture).
 *
 * One host holds the chip at a time, as one process holds a USB device;
 * another's open is refused as busy. A host that goes away without
 * closing leaves the pins as they are (a chip keeps driving them after
 * its USB handle is gone).
 *
 * The log has a line per decoded state ("T state port=sdp vbus=on
 * load=off SIGNALS"; a state that lasted only inside one write is marked
 * "within-write"), per open and close, and per violation of the fixture
 * file's rules or release time ("T VIOLATION ..."). */
#ifndef BN_TWIN_FIXTURE_H
#define BN_TWIN_FIXTURE_H

#include <poll.h>
#include <stdio.h>
#include <sys/un.h>

#include "hil/fixture_def.h"
#include "twin_chip.h"
#include "twin_world.h"

#define TWIN_FX_CONNS 4

struct twin_fixture {
	struct bn_fixture_def def;
	struct twin_chip chip;
	struct twin_world *tw;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	int lfd;
	int cfd[TWIN_FX_CONNS];
	int holder;              /* the connection that opened the chip; -1: none */
	FILE *log;
	bn_time_us first_open_t; /* -1: never opened */
	long states, violations, requests;
};

/* Load the fixture file (the twin's own reading of its pins starts from
 * it); nothing listens yet. */
int twin_fixture_load(struct twin_fixture *f, const char *fixture_file, struct bn_err *err);
int twin_fixture_listen(struct twin_fixture *f, struct twin_world *tw, const char *sock_path,
			FILE *log, struct bn_err *err);
int twin_fixture_fds(const struct twin_fixture *f, struct pollfd *p, int max);
void twin_fixture_service(struct twin_fixture *f, const struct pollfd *p, int n, bn_time_us t);
void twin_fixture_close(struct twin_fixture *f);

#endif
