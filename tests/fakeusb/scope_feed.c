/* A sample source for the fake Hantek 6022BE (scope_proto.h) serving a
 * known waveform, so the path through libsigrok can be tested without the
 * bench twin. Volts at the scope's input, t = k / RATE after the start:
 *   CH1  0.5 V, stepping to 0.4 V at 10 ms (a 5 V VBUS falling to 4 V,
 *        seen through a 10:1 probe)
 *   CH2  a 1 kHz square, +0.5 V for the first half of each period, then
 *        -0.5 V
 * Usage: scope_feed [-n COUNT] SOCKET
 * Listens on the unix socket SOCKET (replacing a stale one) and serves
 * every acquisition in turn, in real time; with -n, exits after COUNT.
 * Prints "start RATE R1 R2" and "stop after N frames (M late)" per
 * acquisition on stdout, "late" counting the frames it sent more than
 * 10 ms after they were due (it could not keep up, or the reader did not).
 * Exit 0; 2 on bad usage; 3 when the socket cannot be served. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "scope_proto.h"

#define STEP_S 0.010
#define CH1_BEFORE_V 0.5f
#define CH1_AFTER_V 0.4f
#define SQUARE_HZ 1000
#define SQUARE_V 0.5f
#define CHUNK_FRAMES 8192
#define LATE_US 10000

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void frame_at(uint64_t k, uint32_t rate_hz, struct scope_frame *f)
{
	uint64_t step_k = (uint64_t)(STEP_S * rate_hz + 0.5);

	f->ch_v[0] = k < step_k ? CH1_BEFORE_V : CH1_AFTER_V;
	f->ch_v[1] = (k * 2 * SQUARE_HZ / rate_hz) % 2 == 0 ? SQUARE_V : -SQUARE_V;
}

/* The start line, read byte by byte so nothing past it is taken. */
static int read_start(int fd, struct scope_start *st)
{
	char line[SCOPE_PROTO_LINE_MAX];
	size_t n = 0;

	while (n < sizeof(line) - 1) {
		ssize_t r = read(fd, line + n, 1);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		if (line[n++] == '\n')
			break;
	}
	line[n] = '\0';
	if (scope_proto_parse_start(line, st) < 0) {
		fprintf(stderr, "scope_feed: not a start line: \"%.*s\"\n", (int)strcspn(line, "\n"),
			line);
		return -1;
	}
	return 0;
}

static int send_all(int fd, const void *p, size_t n)
{
	const char *c = p;

	while (n) {
		ssize_t w = send(fd, c, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Serve one acquisition until "stop", end of file or a broken pipe. */
static void serve(int fd)
{
	static struct scope_frame buf[CHUNK_FRAMES];
	struct scope_start st;
	uint64_t sent = 0, late = 0;
	double t0;

	if (read_start(fd, &st) < 0)
		return;
	t0 = now_s();
	printf("start %lu %g %g\n", (unsigned long)st.rate_hz, (double)st.range_v[0],
	       (double)st.range_v[1]);
	fflush(stdout);
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		double el = now_s() - t0;
		uint64_t due = (uint64_t)(el * st.rate_hz) + 1;
		char cmd[16];

		while (sent < due) {
			uint64_t n = due - sent < CHUNK_FRAMES ? due - sent : CHUNK_FRAMES;

			if ((el - (double)sent / st.rate_hz) * 1e6 > LATE_US)
				late += n;
			for (uint64_t i = 0; i < n; i++)
				frame_at(sent + i, st.rate_hz, &buf[i]);
			if (send_all(fd, buf, n * sizeof(buf[0])) < 0)
				goto out;
			sent += n;
		}
		if (poll(&p, 1, 1) > 0) {
			ssize_t r = read(fd, cmd, sizeof(cmd));

			if (r <= 0 || memchr(cmd, '\n', (size_t)r))
				goto out; /* "stop\n" is all the fake says */
		}
	}
out:
	printf("stop after %llu frames (%llu late)\n", (unsigned long long)sent,
	       (unsigned long long)late);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	long count = -1;
	int opt, ls;

	while ((opt = getopt(argc, argv, "n:")) != -1) {
		if (opt == 'n' && (count = strtol(optarg, NULL, 10)) > 0)
			continue;
		fprintf(stderr, "usage: scope_feed [-n COUNT] SOCKET\n");
		return 2;
	}
	if (optind != argc - 1 || strlen(argv[optind]) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "usage: scope_feed [-n COUNT] SOCKET (a path shorter than %zu bytes)\n",
			sizeof(sa.sun_path));
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	memcpy(sa.sun_path, argv[optind], strlen(argv[optind]) + 1);
	unlink(sa.sun_path);
	ls = socket(AF_UNIX, SOCK_STREAM, 0);
	if (ls < 0 || bind(ls, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(ls, 4) < 0) {
		fprintf(stderr, "scope_feed: %s: %s\n", sa.sun_path, strerror(errno));
		return 3;
	}
	while (count < 0 || count-- > 0) {
		int fd = accept(ls, NULL, NULL);

		if (fd < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "scope_feed: accept: %s\n", strerror(errno));
			return 3;
		}
		serve(fd);
		close(fd);
	}
	close(ls);
	unlink(sa.sun_path);
	return 0;
}
