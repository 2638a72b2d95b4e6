/* A serial line through libserialport, with a termios fallback for
 * pseudo-terminals.
 *
 * What libserialport 0.1.1 (Debian 12) does with a pty, measured with
 * strace on /dev/pts/N:
 *  - sp_get_port_by_name("/dev/pts/N") lstat()s "/sys/class/tty/pts/N",
 *    which does not exist (ptys have no sysfs entry), and fails with
 *    SP_ERR_ARG. No struct sp_port can be had for a pty, so sp_open (whose
 *    get_config also issues TIOCMGET, ENOTTY on a pty) is never reached.
 *    There is no public call that wraps an fd we opened ourselves.
 *  - The same check refuses any name not of the form "/dev/X" with
 *    /sys/class/tty/X present, so "/dev/serial/by-id/usb-..." fails too:
 *    we hand it the realpath() ("/dev/ttyUSB0"), which passes.
 *  - sp_open opens without O_CLOEXEC and raises RTS and DTR; we set
 *    FD_CLOEXEC on its fd so emulators and shims we fork do not hold it.
 *  - sp_nonblocking_read returns 0 both for "nothing yet" and for EOF, and
 *    sp_blocking_read loops on EOF until its time-out, so a vanished
 *    device would look like a silent one. Hang-up is detected here with
 *    poll() on the port's fd (sp_get_port_handle): POLLHUP/POLLERR, or
 *    POLLIN with nothing to read. On a pty whose master closed, poll gives
 *    POLLIN|POLLERR|POLLHUP, read() 0 and write() EIO.
 *
 * One program at a time: a second program writing to an instrument mid-run
 * (a terminal left open, another bench) would corrupt both dialogues. The
 * port is taken with flock (every bcbench, root included) and TIOCEXCL
 * (any other program's open() then fails with EBUSY; root is exempt from
 * TIOCEXCL, which is why the test of it runs unprivileged).
 *
 * So: a path libserialport accepts goes through libserialport (open,
 * 8N1 and no flow control set field by field, read, write, flush). A path
 * it refuses that is nevertheless a terminal (a pty, the tests' instrument
 * emulator) is opened with open() + termios (raw, 8N1, CLOCAL). Above the
 * two raw transports, line assembly, time-outs and hang-up detection are
 * one code path, which the pty tests exercise. */
#define BN_LOG_MODULE "serial"
#include "hil/serial.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <libserialport.h>
#include <poll.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include "core/log.h"
#include "core/time.h"

#define IN_USE_MSG "in use by another program; a port serves one program at a time"

#define SERIAL_BUF 4096
#define DEFAULT_BAUD 9600

struct bn_serial {
	char path[PATH_MAX];
	struct sp_port *port; /* NULL: the termios transport on fd */
	int fd;
	unsigned char buf[SERIAL_BUF];
	size_t len;       /* bytes in buf */
	bool skip_lf;     /* the last line ended in '\r': drop a '\n' next */
	bool drop_to_eol; /* the last line was too long: drop to its end */
	bool message;     /* blocking reads, one reply each (bn_serial_wrap_fd) */
	bool socket;      /* a LAN instrument: send() without SIGPIPE */
	bool excl;        /* TIOCEXCL set: cleared again before the close */
};

/* ---- the two raw transports ---- */

/* > 0 bytes read, 0 none (or EOF: the caller tells them apart by poll),
 * BN_ERR_IO failed (errno kept). */
static int raw_read(struct bn_serial *s, void *buf, size_t n)
{
	if (s->port) {
		int r = sp_nonblocking_read(s->port, buf, n);

		if (r < 0)
			return BN_ERR_IO;
		return r;
	}
	ssize_t r = read(s->fd, buf, n);

	if (r < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : BN_ERR_IO;
	return (int)r;
}

static int raw_write(struct bn_serial *s, const void *buf, size_t n)
{
	if (s->port) {
		int r = sp_nonblocking_write(s->port, buf, n);

		return r < 0 ? BN_ERR_IO : r;
	}
	/* A peer gone mid-run is an instrument lost, not a SIGPIPE that kills
	 * the process before it reaches the safe state. */
	ssize_t r = s->socket ? send(s->fd, buf, n, MSG_NOSIGNAL) : write(s->fd, buf, n);

	if (r < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : BN_ERR_IO;
	return (int)r;
}

/* ---- open ---- */

static speed_t baud_speed(int baud)
{
	static const struct {
		int baud;
		speed_t speed;
	} tab[] = {
		{ 1200, B1200 },     { 2400, B2400 },     { 4800, B4800 },     { 9600, B9600 },
		{ 19200, B19200 },   { 38400, B38400 },   { 57600, B57600 },   { 115200, B115200 },
		{ 230400, B230400 }, { 460800, B460800 }, { 921600, B921600 },
	};

	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (tab[i].baud == baud)
			return tab[i].speed;
	return (speed_t)-1;
}

static int open_termios(struct bn_serial *s, int baud, struct bn_err *err)
{
	struct termios t;
	speed_t sp = baud_speed(baud);

	if (sp == (speed_t)-1)
		return bn_err_set(err, BN_ERR_ARG, "%s: baud rate %d is not supported", s->path,
				  baud);
	s->fd = open(s->path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (s->fd < 0 && errno == EBUSY)
		return bn_err_set(err, BN_ERR_FAULT, "%s: " IN_USE_MSG " (it was opened "
				  "exclusively)", s->path);
	if (s->fd < 0)
		return bn_err_set(err, BN_ERR_IO, "%s: open: %s", s->path, strerror(errno));
	if (!isatty(s->fd) || tcgetattr(s->fd, &t) < 0)
		return bn_err_set(err, BN_ERR_ARG, "%s: not a serial port or terminal", s->path);
	cfmakeraw(&t);
	t.c_cflag &= ~(CSTOPB | PARENB | CRTSCTS);
	t.c_cflag |= CLOCAL | CREAD | CS8;
	t.c_iflag &= ~(IXON | IXOFF | IXANY);
	t.c_cc[VMIN] = 0;
	t.c_cc[VTIME] = 0;
	if (cfsetispeed(&t, sp) < 0 || cfsetospeed(&t, sp) < 0 || tcsetattr(s->fd, TCSANOW, &t) < 0)
		return bn_err_set(err, BN_ERR_IO, "%s: set 8N1 at %d baud: %s", s->path, baud,
				  strerror(errno));
	return BN_OK;
}

static int lsp_fail(struct bn_serial *s, const char *what, struct bn_err *err)
{
	char *m = sp_last_error_message();
	int rc = bn_err_set(err, BN_ERR_IO, "%s: %s: %s", s->path, what, m ? m : "failed");

	sp_free_error_message(m);
	return rc;
}

static int open_lsp(struct bn_serial *s, struct sp_port *port, int baud, struct bn_err *err)
{
	int fd = -1;

	s->port = port;
	if (sp_open(port, SP_MODE_READ_WRITE) != SP_OK) {
		/* A tty driver without modem lines (TIOCMGET: ENOTTY) gets
		 * termios, as a pty does. */
		int rc = errno == ENOTTY ? 1 :
			 errno == EBUSY ? bn_err_set(err, BN_ERR_FAULT, "%s: " IN_USE_MSG " (it was "
						     "opened exclusively)", s->path) :
			 lsp_fail(s, "open", err);

		sp_free_port(port);
		s->port = NULL;
		return rc;
	}
	if (sp_get_port_handle(port, &fd) != SP_OK || fd < 0)
		return lsp_fail(s, "get handle", err);
	s->fd = fd;
	(void)fcntl(fd, F_SETFD, FD_CLOEXEC);
	/* Field by field: sp_set_config would also touch DTR/RTS/DSR/CTS,
	 * which USB CDC adapters may refuse. */
	if (sp_set_baudrate(port, baud) != SP_OK)
		return lsp_fail(s, "set baud rate", err);
	if (sp_set_bits(port, 8) != SP_OK || sp_set_parity(port, SP_PARITY_NONE) != SP_OK ||
	    sp_set_stopbits(port, 1) != SP_OK)
		return lsp_fail(s, "set 8N1", err);
	if (sp_set_flowcontrol(port, SP_FLOWCONTROL_NONE) != SP_OK)
		return lsp_fail(s, "set no flow control", err);
	return BN_OK;
}

/* The port is ours alone while it is open (see the top of this file). */
static int take_exclusive(struct bn_serial *s, struct bn_err *err)
{
	if (flock(s->fd, LOCK_EX | LOCK_NB) < 0) {
		if (errno == EWOULDBLOCK)
			return bn_err_set(err, BN_ERR_FAULT, "%s: " IN_USE_MSG " (another bcbench "
					  "holds it)", s->path);
		return bn_err_set(err, BN_ERR_IO, "%s: flock: %s", s->path, strerror(errno));
	}
	/* Not every tty driver has it; the flock still holds among us. */
	if (ioctl(s->fd, TIOCEXCL) < 0)
		bn_dbg("%s: TIOCEXCL: %s", s->path, strerror(errno));
	else
		s->excl = true;
	return BN_OK;
}

int bn_serial_open(const char *path, int baud, struct bn_serial **out, struct bn_err *err)
{
	struct bn_serial *s;
	struct sp_port *port = NULL;
	char real[PATH_MAX];
	int rc;

	*out = NULL;
	if (!path || !*path)
		return bn_err_set(err, BN_ERR_ARG, "serial: empty port path");
	if (strlen(path) >= sizeof(s->path))
		return bn_err_set(err, BN_ERR_ARG, "serial: port path too long: \"%.64s...\"",
				  path);
	if (baud <= 0)
		baud = DEFAULT_BAUD;
	s = calloc(1, sizeof(*s));
	if (!s)
		return bn_err_set(err, BN_ERR_NOMEM, "%s: out of memory", path);
	strcpy(s->path, path);
	s->fd = -1;
	/* libserialport wants "/dev/X" with a /sys/class/tty/X entry. */
	if (realpath(path, real) && sp_get_port_by_name(real, &port) == SP_OK)
		rc = open_lsp(s, port, baud, err); /* 1: use termios */
	else if (access(path, F_OK) < 0)
		rc = bn_err_set(err, BN_ERR_IO, "%s: open: %s", path, strerror(errno));
	else
		rc = 1; /* a pty: see the top of this file */
	if (rc == 1)
		rc = open_termios(s, baud, err);
	if (rc < 0) {
		bn_serial_close(s);
		return rc;
	}
	rc = take_exclusive(s, err);
	if (rc < 0) {
		bn_serial_close(s);
		return rc;
	}
	bn_dbg("%s: open at %d baud (%s)", path, baud, s->port ? "libserialport" : "termios");
	*out = s;
	return BN_OK;
}

int bn_serial_wrap_fd(const char *name, int fd, bool message, struct bn_serial **out,
		      struct bn_err *err)
{
	struct bn_serial *s;
	struct stat st;
	int rc;

	*out = NULL;
	if (strlen(name) >= sizeof(s->path)) {
		close(fd);
		return bn_err_set(err, BN_ERR_ARG, "instrument name too long: \"%.64s...\"", name);
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		close(fd);
		return bn_err_set(err, BN_ERR_NOMEM, "%s: out of memory", name);
	}
	strcpy(s->path, name);
	s->fd = fd;
	s->message = message;
	s->socket = fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode);
	/* A LAN instrument serves whoever connects: nothing to take. */
	rc = s->socket ? BN_OK : take_exclusive(s, err);
	if (rc < 0) {
		bn_serial_close(s);
		return rc;
	}
	*out = s;
	return BN_OK;
}

int bn_serial_parse_spec(const char *who, const char *usage, const char *spec, char *path,
			 size_t cap, int *baud, struct bn_err *err)
{
	const char *at = strrchr(spec, '@');
	size_t n = at ? (size_t)(at - spec) : strlen(spec);

	if (at) {
		char *end;
		long b;

		errno = 0;
		b = strtol(at + 1, &end, 10);
		if (!isdigit((unsigned char)at[1]) || *end || errno || b < 50 || b > 4000000)
			return bn_err_set(err, BN_ERR_ARG,
					  "%s \"%.200s\": baud \"%.20s\" is not a baud rate in bit/s; "
					  "expected %s",
					  who, spec, at + 1, usage);
		*baud = (int)b;
	}
	if (n == 0 || n >= cap)
		return bn_err_set(err, BN_ERR_ARG,
				  "%s \"%.200s\": %s; expected %s", who,
				  spec, n ? "port name too long" : "no serial port given", usage);
	memcpy(path, spec, n);
	path[n] = '\0';
	return BN_OK;
}

/* ---- I/O ---- */

/* Wait up to ms for events on the port. Returns the revents (0 on a
 * time-out), or BN_ERR_IO when poll itself fails. */
static int wait_fd(struct bn_serial *s, short events, int ms)
{
	struct pollfd p = { .fd = s->fd, .events = events };
	int r = poll(&p, 1, ms);

	if (r < 0)
		return errno == EINTR ? 0 : BN_ERR_IO;
	return r == 0 ? 0 : p.revents;
}

static int gone(struct bn_serial *s, const char *op, struct bn_err *err)
{
	return bn_err_set(err, BN_ERR_IO, "%s: %s: the other end is gone (%s)", s->path, op,
			  errno == EIO || errno == 0 ? "hang-up" : strerror(errno));
}

int bn_serial_write(struct bn_serial *s, const void *buf, size_t len, int timeout_ms,
		    struct bn_err *err)
{
	const unsigned char *p = buf;
	int64_t deadline = bn_deadline_ms(timeout_ms);
	size_t done = 0;

	while (done < len) {
		int r;

		errno = 0;
		r = raw_write(s, p + done, len - done);
		if (r < 0)
			return gone(s, "write", err);
		done += (size_t)r;
		if (done == len)
			break;
		int ev = wait_fd(s, POLLOUT, bn_ms_left(deadline));

		if (ev < 0 || (ev & (POLLERR | POLLHUP | POLLNVAL))) {
			errno = EIO;
			return gone(s, "write", err);
		}
		if (ev == 0 && bn_ms_left(deadline) == 0)
			return bn_err_set(
			    err, BN_ERR_TIMEOUT,
			    "%s: write: timed out after %d ms (%zu of %zu bytes sent)", s->path,
			    timeout_ms, done, len);
	}
	return BN_OK;
}

/* Drop bytes of an over-long line up to its end. True once the end is
 * found (and consumed). */
static bool drop_rest(struct bn_serial *s)
{
	for (size_t i = 0; i < s->len; i++) {
		if (s->buf[i] == '\n' || s->buf[i] == '\r') {
			s->skip_lf = s->buf[i] == '\r';
			memmove(s->buf, s->buf + i + 1, s->len - i - 1);
			s->len -= i + 1;
			s->drop_to_eol = false;
			return true;
		}
	}
	s->len = 0;
	return false;
}

/* A whole line in buf: its length (end excluded) and the bytes to consume
 * with its end; -1 when none yet. */
static long find_line(struct bn_serial *s, size_t *consume)
{
	if (s->skip_lf && s->len > 0) {
		if (s->buf[0] == '\n') {
			memmove(s->buf, s->buf + 1, s->len - 1);
			s->len--;
		}
		s->skip_lf = false;
	}
	for (size_t i = 0; i < s->len; i++) {
		if (s->buf[i] == '\n' || s->buf[i] == '\r') {
			*consume = i + 1;
			if (s->buf[i] == '\r') {
				if (i + 1 < s->len && s->buf[i + 1] == '\n')
					*consume = i + 2;
				else if (i + 1 == s->len)
					s->skip_lf = true; /* its '\n' may still come */
			}
			return (long)i;
		}
	}
	return -1;
}

/* Read what is there now into buf. BN_OK, or BN_ERR_IO when gone. */
static int fill(struct bn_serial *s, int ms, struct bn_err *err)
{
	int ev, r;

	if (s->message) {
		ssize_t got = read(s->fd, s->buf + s->len, sizeof(s->buf) - s->len);

		/* the driver's own time-out (set to the caller's when opened) */
		if (got < 0 && (errno == ETIMEDOUT || errno == EINTR || errno == EAGAIN))
			return BN_OK;
		if (got <= 0) {
			if (got == 0)
				errno = EIO;
			return gone(s, "read", err);
		}
		s->len += (size_t)got;
		return BN_OK;
	}
	ev = wait_fd(s, POLLIN, ms);

	if (ev < 0)
		return gone(s, "read", err);
	if (ev == 0)
		return BN_OK;
	errno = 0;
	r = raw_read(s, s->buf + s->len, sizeof(s->buf) - s->len);
	if (r < 0)
		return gone(s, "read", err);
	/* poll said readable (or hung up) and there is nothing: the other
	 * end closed (EOF reads as 0 through both transports). */
	if (r == 0) {
		errno = EIO;
		return gone(s, "read", err);
	}
	s->len += (size_t)r;
	return BN_OK;
}

int bn_serial_read_line(struct bn_serial *s, char *line, size_t cap, int timeout_ms,
			struct bn_err *err)
{
	int64_t deadline = bn_deadline_ms(timeout_ms);
	bool looked = false;  /* a time-out of 0 still takes what has arrived */

	if (cap == 0)
		return bn_err_set(err, BN_ERR_ARG, "%s: read: no room for a line", s->path);
	line[0] = '\0';
	for (;;) {
		size_t consume = 0;
		long n = -1;
		int rc;

		if (!s->drop_to_eol || drop_rest(s))
			n = find_line(s, &consume);
		if (n >= 0) {
			bool fits = (size_t)n < cap;

			if (fits) {
				memcpy(line, s->buf, (size_t)n);
				line[n] = '\0';
			}
			memmove(s->buf, s->buf + consume, s->len - consume);
			s->len -= consume;
			if (fits)
				return (int)n;
			return bn_err_set(err, BN_ERR_DATA,
					  "%s: read: line longer than %zu bytes (%ld bytes)",
					  s->path, cap - 1, n);
		}
		/* No end yet, but already too long: drop it up to its end. */
		if (!s->drop_to_eol && (s->len >= cap || s->len == sizeof(s->buf))) {
			size_t had = s->len;

			s->len = 0;
			s->drop_to_eol = true;
			return bn_err_set(err, BN_ERR_DATA,
					  "%s: read: line longer than %zu bytes (%zu so far)",
					  s->path, cap - 1, had);
		}
		if (bn_ms_left(deadline) == 0 && !looked) {
			looked = true;
			rc = fill(s, 0, err);
			if (rc < 0)
				return rc;
			continue;
		}
		if (bn_ms_left(deadline) == 0) {
			if (s->len)
				return bn_err_set(
				    err, BN_ERR_TIMEOUT,
				    "%s: read: timed out after %d ms (%zu bytes without "
				    "a line end)",
				    s->path, timeout_ms, s->len);
			return bn_err_set(err, BN_ERR_TIMEOUT, "%s: read: timed out after %d ms",
					  s->path, timeout_ms);
		}
		rc = fill(s, bn_ms_left(deadline), err);
		if (rc < 0)
			return rc;
	}
}

void bn_serial_flush_input(struct bn_serial *s)
{
	unsigned char junk[256];

	if (!s)
		return;
	/* A message device holds nothing unasked: a read would ask. */
	if (s->message)
		goto clear;
	if (s->port)
		(void)sp_flush(s->port, SP_BUF_INPUT);
	else
		(void)tcflush(s->fd, TCIFLUSH);
	/* What arrived between the flush and now, bounded. */
	for (int i = 0; i < 16 && raw_read(s, junk, sizeof(junk)) > 0; i++)
		;
clear:
	s->len = 0;
	s->skip_lf = false;
	s->drop_to_eol = false;
}

const char *bn_serial_path(const struct bn_serial *s)
{
	return s ? s->path : "(no port)";
}

void bn_serial_close(struct bn_serial *s)
{
	if (!s)
		return;
	/* The flag outlives the close where the tty stays open elsewhere (a
	 * pseudo-terminal's slave while its master lives): the next bcbench,
	 * unprivileged, would be refused the port with EBUSY. */
	if (s->excl && s->fd >= 0)
		(void)ioctl(s->fd, TIOCNXCL);
	if (s->port) {
		(void)sp_close(s->port);
		sp_free_port(s->port);
	} else if (s->fd >= 0) {
		close(s->fd);
	}
	free(s);
}
