#define BN_LOG_MODULE "scpi"
#include "hil/scpi_link.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/usb/tmc.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <termios.h>
#include <unistd.h>

#include "core/log.h"

#define TCP_PREFIX "tcp-raw/"
#define USBTMC_PREFIX "usbtmc:"
#define TCP_FORM "tcp-raw/HOST/PORT, e.g. tcp-raw/192.168.1.50/5025"
#define USBTMC_FORM "usbtmc:PATH, e.g. usbtmc:/dev/usbtmc0"

/* "tcp-raw/HOST/PORT" into host and port. */
static int parse_tcp(const char *spec, char *host, size_t cap, char *port, size_t pcap,
		     struct bn_err *err)
{
	const char *h = spec + strlen(TCP_PREFIX), *slash = strrchr(h, '/');
	char *end;
	long p;

	if (!slash || slash == h || (size_t)(slash - h) >= cap)
		return bn_err_set(err, BN_ERR_ARG, "scpi \"%.200s\": %s; expected %s", spec,
				  !slash ? "no port" : slash == h ? "no host" : "host name too long",
				  TCP_FORM);
	errno = 0;
	p = strtol(slash + 1, &end, 10);
	if (!slash[1] || *end || errno || p < 1 || p > 65535)
		return bn_err_set(err, BN_ERR_ARG,
				  "scpi \"%.200s\": port \"%.20s\" is not a TCP port (1 to 65535); "
				  "expected %s",
				  spec, slash + 1, TCP_FORM);
	memcpy(host, h, (size_t)(slash - h));
	host[slash - h] = '\0';
	snprintf(port, pcap, "%ld", p);
	return BN_OK;
}

int bn_scpi_link_kind(const char *spec, enum bn_scpi_link_kind *kind, struct bn_err *err)
{
	*kind = BN_LINK_SERIAL;
	if (!strncmp(spec, TCP_PREFIX, strlen(TCP_PREFIX))) {
		char host[256], port[8];

		*kind = BN_LINK_TCP;
		return parse_tcp(spec, host, sizeof(host), port, sizeof(port), err);
	}
	if (!strncmp(spec, USBTMC_PREFIX, strlen(USBTMC_PREFIX))) {
		*kind = BN_LINK_USBTMC;
		if (!spec[strlen(USBTMC_PREFIX)])
			return bn_err_set(err, BN_ERR_ARG, "scpi \"%.200s\": no device path; "
					  "expected %s", spec, USBTMC_FORM);
		return BN_OK;
	}
	if (!strncmp(spec, "/dev/usbtmc", 11))
		*kind = BN_LINK_USBTMC;
	return BN_OK;
}

/* Connect within timeout_ms to one of the host's addresses. */
static int connect_tcp(const char *spec, int timeout_ms, int *fd_out, struct bn_err *err)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *res, *a;
	char host[256], port[8];
	int rc, e = 0;

	rc = parse_tcp(spec, host, sizeof(host), port, sizeof(port), err);
	if (rc < 0)
		return rc;
	rc = getaddrinfo(host, port, &hints, &res);
	if (rc != 0)
		return bn_err_set(err, BN_ERR_IO, "%s: cannot resolve \"%s\": %s", spec, host,
				  gai_strerror(rc));
	for (a = res; a; a = a->ai_next) {
		int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK,
				a->ai_protocol);
		struct pollfd p;
		socklen_t len = sizeof(e);

		if (fd < 0) {
			e = errno;
			continue;
		}
		if (connect(fd, a->ai_addr, a->ai_addrlen) < 0 && errno != EINPROGRESS) {
			e = errno;
			close(fd);
			continue;
		}
		p = (struct pollfd){ .fd = fd, .events = POLLOUT };
		rc = poll(&p, 1, timeout_ms);
		if (rc <= 0) {
			e = rc == 0 ? ETIMEDOUT : errno;
			close(fd);
			continue;
		}
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &len) < 0 || e != 0) {
			close(fd);
			continue;
		}
		/* Each command is a short line: send it now, not with the next. */
		(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &(int){ 1 }, sizeof(int));
		freeaddrinfo(res);
		*fd_out = fd;
		return BN_OK;
	}
	freeaddrinfo(res);
	return bn_err_set(err, BN_ERR_IO, "%s: cannot connect: %s", spec,
			  e ? strerror(e) : "no address");
}

int bn_scpi_link_open(const char *spec, int timeout_ms, struct bn_serial **out,
		      struct bn_err *err)
{
	enum bn_scpi_link_kind kind;
	const char *path;
	bool message;
	int rc, fd = -1;

	*out = NULL;
	rc = bn_scpi_link_kind(spec, &kind, err);
	if (rc < 0)
		return rc;
	if (kind == BN_LINK_TCP) {
		rc = connect_tcp(spec, timeout_ms, &fd, err);
		if (rc < 0)
			return rc;
		return bn_serial_wrap_fd(spec, fd, false, out, err);
	}
	if (kind != BN_LINK_USBTMC)
		return bn_err_set(err, BN_ERR_BUG, "scpi \"%.200s\": not a TCP or USB-TMC link", spec);
	path = strncmp(spec, USBTMC_PREFIX, strlen(USBTMC_PREFIX)) ? spec :
								      spec + strlen(USBTMC_PREFIX);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return bn_err_set(err, BN_ERR_IO, "%s: open: %s", path, strerror(errno));
	/* The driver frames each reply as one read() and has no readiness to
	 * poll: its read blocks, bounded by its own time-out, set to ours. A
	 * descriptor that is not the driver's (a test's pseudo-terminal) is
	 * read as a stream, with poll. */
	message = ioctl(fd, USBTMC_IOCTL_SET_TIMEOUT, &(__u32){ (__u32)timeout_ms }) == 0;
	if (!message) {
		struct termios t;

		bn_dbg("%s: not a usbtmc device (%s): read as a stream", path, strerror(errno));
		(void)fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
		if (tcgetattr(fd, &t) == 0) { /* no echo, no line editing */
			cfmakeraw(&t);
			(void)tcsetattr(fd, TCSANOW, &t);
		}
	}
	return bn_serial_wrap_fd(path, fd, message, out, err);
}
