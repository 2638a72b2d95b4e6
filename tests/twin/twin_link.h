/* A line link the twin serves an instrument on: a pseudo-terminal (the
 * slave's path goes in bench.conf) or a TCP port on 127.0.0.1 (a LAN
 * instrument's raw SCPI socket, "tcp-raw/127.0.0.1/PORT"), for as many
 * runs in a row as come.
 *
 * A pty: the twin keeps the slave open itself, so a client closing it is
 * not the end of the master; and since bcbench takes a port with flock and
 * TIOCEXCL and never clears the latter, the twin clears it whenever no
 * process holds a flock on the slave (/proc/locks), so the next run (an
 * unprivileged one too) can open it again.
 * TCP: a few clients at once (libsigrok scans on one connection and
 * acquires on another). A unix stream socket is served the same way. */
#ifndef BN_TWIN_LINK_H
#define BN_TWIN_LINK_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

#define TWIN_LINK_CONNS 4
#define TWIN_LINK_LINE 1024

enum twin_link_kind { TWIN_LINK_PTY, TWIN_LINK_TCP };

struct twin_link_conn {
	int fd;                  /* -1: free */
	char buf[TWIN_LINK_LINE];
	size_t len;
};

struct twin_link {
	char name[16];
	enum twin_link_kind kind;
	int master, slave;       /* pty */
	char pts[64];
	int lfd, port;           /* tcp, unix */
	char path[108];          /* unix: removed at close */
	struct twin_link_conn conn[TWIN_LINK_CONNS]; /* pty: conn[0] is the master */
	bool gone;               /* closed for good (a fault) */
	int64_t next_excl_us;
};

typedef void (*twin_line_fn)(void *user, struct twin_link *l, int conn, char *line);
/* A client connected (event 1) or went (0); TCP only. */
typedef void (*twin_conn_fn)(void *user, struct twin_link *l, int conn, int event);

int twin_link_pty(struct twin_link *l, const char *name, struct bn_err *err);
/* port 0: any free one (l->port says which). */
int twin_link_tcp(struct twin_link *l, const char *name, int port, struct bn_err *err);
/* A unix stream socket at path (the twin's control socket); served as TCP. */
int twin_link_unix(struct twin_link *l, const char *name, const char *path, struct bn_err *err);
/* Append the fds to poll; returns how many. */
int twin_link_fds(const struct twin_link *l, struct pollfd *p, int max);
/* Serve what poll found on this link's fds: each complete line (CR and
 * blanks at the end dropped, empty lines skipped) to on_line. */
void twin_link_service(struct twin_link *l, const struct pollfd *p, int n, twin_line_fn on_line,
		       twin_conn_fn on_conn, void *user);
/* Write text to a client; false when it could not take it (the pty's
 * buffer is full: nobody reads) or is gone. */
bool twin_link_send(struct twin_link *l, int conn, const char *text);
/* Close every client and stop listening: the instrument went away. */
void twin_link_drop(struct twin_link *l);
/* A pty's TIOCEXCL cleared when nobody holds it (every 5 ms at most). */
void twin_link_housekeep(struct twin_link *l, int64_t now_us);
void twin_link_close(struct twin_link *l);

#endif
