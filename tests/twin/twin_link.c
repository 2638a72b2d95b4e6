/* The twin's line links (twin_link.h). */
#define _GNU_SOURCE
#include "twin_link.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <termios.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>

/* Often enough that the next run, even a suite's next job, finds the flag
 * cleared; /proc/locks is read only while the flag is set. */
#define EXCL_CHECK_US 5000

static void conns_init(struct twin_link *l)
{
	for (int i = 0; i < TWIN_LINK_CONNS; i++) {
		l->conn[i].fd = -1;
		l->conn[i].len = 0;
	}
}

int twin_link_pty(struct twin_link *l, const char *name, struct bn_err *err)
{
	struct termios t;

	memset(l, 0, sizeof(*l));
	snprintf(l->name, sizeof(l->name), "%s", name);
	l->kind = TWIN_LINK_PTY;
	l->lfd = l->slave = -1;
	conns_init(l);
	l->master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
	if (l->master < 0 || grantpt(l->master) < 0 || unlockpt(l->master) < 0)
		return bn_err_set(err, BN_ERR_IO, "%s: posix_openpt: %s", name, strerror(errno));
	snprintf(l->pts, sizeof(l->pts), "%s", ptsname(l->master));
	l->slave = open(l->pts, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (l->slave < 0 || tcgetattr(l->slave, &t) < 0)
		return bn_err_set(err, BN_ERR_IO, "%s: %s: %s", name, l->pts, strerror(errno));
	cfmakeraw(&t);
	tcsetattr(l->slave, TCSANOW, &t);
	l->conn[0].fd = l->master;
	return BN_OK;
}

int twin_link_tcp(struct twin_link *l, const char *name, int port, struct bn_err *err)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	socklen_t alen = sizeof(a);
	int one = 1;

	memset(l, 0, sizeof(*l));
	snprintf(l->name, sizeof(l->name), "%s", name);
	l->kind = TWIN_LINK_TCP;
	l->master = l->slave = -1;
	conns_init(l);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	l->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (l->lfd < 0 || setsockopt(l->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(l->lfd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(l->lfd, 4) < 0 ||
	    getsockname(l->lfd, (struct sockaddr *)&a, &alen) < 0)
		return bn_err_set(err, BN_ERR_IO, "%s: listen on 127.0.0.1:%d: %s", name, port,
				  strerror(errno));
	l->port = ntohs(a.sin_port);
	return BN_OK;
}

int twin_link_unix(struct twin_link *l, const char *name, const char *path, struct bn_err *err)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };

	memset(l, 0, sizeof(*l));
	snprintf(l->name, sizeof(l->name), "%s", name);
	l->kind = TWIN_LINK_TCP;
	l->master = l->slave = -1;
	conns_init(l);
	if (strlen(path) >= sizeof(a.sun_path) || strlen(path) >= sizeof(l->path))
		return bn_err_set(err, BN_ERR_ARG, "%s: socket path too long: %s", name, path);
	strcpy(a.sun_path, path);
	unlink(path);
	l->lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (l->lfd < 0 || bind(l->lfd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(l->lfd, 4) < 0)
		return bn_err_set(err, BN_ERR_IO, "%s: listen on %s: %s", name, path, strerror(errno));
	strcpy(l->path, path);
	return BN_OK;
}

int twin_link_fds(const struct twin_link *l, struct pollfd *p, int max)
{
	int n = 0;

	if (l->gone)
		return 0;
	if (l->lfd >= 0 && n < max)
		p[n++] = (struct pollfd){ .fd = l->lfd, .events = POLLIN };
	for (int i = 0; i < TWIN_LINK_CONNS && n < max; i++)
		if (l->conn[i].fd >= 0)
			p[n++] = (struct pollfd){ .fd = l->conn[i].fd, .events = POLLIN };
	return n;
}

static short revents_of(const struct pollfd *p, int n, int fd)
{
	for (int i = 0; i < n; i++)
		if (p[i].fd == fd)
			return p[i].revents;
	return 0;
}

static void conn_close(struct twin_link *l, int i, twin_conn_fn on_conn, void *user)
{
	if (l->kind == TWIN_LINK_PTY || l->conn[i].fd < 0)
		return;
	close(l->conn[i].fd);
	l->conn[i].fd = -1;
	l->conn[i].len = 0;
	if (on_conn)
		on_conn(user, l, i, 0);
}

static void take_lines(struct twin_link *l, int i, twin_line_fn on_line, void *user)
{
	struct twin_link_conn *c = &l->conn[i];

	for (char *nl; (nl = memchr(c->buf, '\n', c->len));) {
		size_t used = (size_t)(nl - c->buf) + 1, n = used - 1;

		*nl = '\0';
		while (n > 0 && (c->buf[n - 1] == '\r' || c->buf[n - 1] == ' '))
			c->buf[--n] = '\0';
		if (n > 0)
			on_line(user, l, i, c->buf);
		if (l->gone || c->fd < 0)
			return; /* the line made the instrument go away */
		memmove(c->buf, c->buf + used, c->len - used);
		c->len -= used;
	}
	if (c->len == sizeof(c->buf))
		c->len = 0; /* a line too long for any instrument: dropped */
}

void twin_link_service(struct twin_link *l, const struct pollfd *p, int n, twin_line_fn on_line,
		       twin_conn_fn on_conn, void *user)
{
	if (l->gone)
		return;
	if (l->lfd >= 0 && (revents_of(p, n, l->lfd) & POLLIN)) {
		int fd = accept4(l->lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		int i;

		for (i = 0; fd >= 0 && i < TWIN_LINK_CONNS && l->conn[i].fd >= 0; i++)
			;
		if (fd >= 0 && i == TWIN_LINK_CONNS) {
			close(fd); /* as many clients as an instrument takes */
		} else if (fd >= 0) {
			l->conn[i].fd = fd;
			l->conn[i].len = 0;
			if (on_conn)
				on_conn(user, l, i, 1);
		}
	}
	for (int i = 0; i < TWIN_LINK_CONNS && !l->gone; i++) {
		struct twin_link_conn *c = &l->conn[i];
		short re;
		ssize_t got;

		if (c->fd < 0 || !(re = revents_of(p, n, c->fd)))
			continue;
		got = read(c->fd, c->buf + c->len, sizeof(c->buf) - c->len);
		if (got < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (got <= 0) {
			conn_close(l, i, on_conn, user);
			continue;
		}
		c->len += (size_t)got;
		take_lines(l, i, on_line, user);
	}
}

bool twin_link_send(struct twin_link *l, int conn, const char *text)
{
	size_t n = strlen(text), off = 0;
	int fd;

	if (l->gone || conn < 0 || conn >= TWIN_LINK_CONNS || (fd = l->conn[conn].fd) < 0)
		return false;
	while (off < n) {
		ssize_t w = l->kind == TWIN_LINK_TCP ? send(fd, text + off, n - off, MSG_NOSIGNAL)
						     : write(fd, text + off, n - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		off += (size_t)w;
	}
	return true;
}

void twin_link_drop(struct twin_link *l)
{
	for (int i = 0; i < TWIN_LINK_CONNS; i++)
		if (l->conn[i].fd >= 0 && l->conn[i].fd != l->master)
			close(l->conn[i].fd);
	conns_init(l);
	if (l->lfd >= 0)
		close(l->lfd);
	if (l->path[0])
		unlink(l->path);
	l->path[0] = '\0';
	if (l->slave >= 0)
		close(l->slave);
	if (l->master >= 0)
		close(l->master); /* the client's reads and writes now fail: a hang-up */
	l->lfd = l->slave = l->master = -1;
	l->gone = true;
}

/* Whether any process holds a flock on the file with this device and
 * inode (/proc/locks: "1: FLOCK ADVISORY WRITE PID MAJ:MIN:INODE ..."). */
static bool flocked(dev_t dev, ino_t ino)
{
	FILE *f = fopen("/proc/locks", "r");
	char line[256];
	bool held = false;

	if (!f)
		return true; /* unknown: leave the flag alone */
	while (!held && fgets(line, sizeof(line), f)) {
		unsigned maj, min;
		unsigned long inode;
		char *tok, *save = NULL;

		if (!strstr(line, "FLOCK"))
			continue;
		for (tok = strtok_r(line, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save))
			if (sscanf(tok, "%x:%x:%lu", &maj, &min, &inode) == 3 &&
			    makedev(maj, min) == dev && inode == (unsigned long)ino)
				held = true;
	}
	fclose(f);
	return held;
}

void twin_link_housekeep(struct twin_link *l, int64_t now_us)
{
	struct stat st;
	int excl = 0;

	if (l->kind != TWIN_LINK_PTY || l->gone || now_us < l->next_excl_us)
		return;
	l->next_excl_us = now_us + EXCL_CHECK_US;
	if (ioctl(l->slave, TIOCGEXCL, &excl) < 0 || !excl || fstat(l->slave, &st) < 0)
		return;
	if (!flocked(st.st_dev, st.st_ino))
		(void)ioctl(l->slave, TIOCNXCL);
}

void twin_link_close(struct twin_link *l)
{
	if (!l->gone)
		twin_link_drop(l);
}
