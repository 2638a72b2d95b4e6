/* The twin's scope: the fake Hantek 6022BE's sample source (twin_scope.h). */
#define _GNU_SOURCE /* accept4 */
#include "twin_scope.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#define FIFO_MIN_FRAMES 65536
#define FIFO_MAX_FRAMES (1u << 22) /* 32 MiB */

static void note(struct twin_scope *s, const char *kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void note(struct twin_scope *s, const char *kind, const char *fmt, ...)
{
	va_list ap;

	if (!s->log)
		return;
	fprintf(s->log, "%.6f\t%s\t", bn_time_to_s(s->now), kind);
	va_start(ap, fmt);
	vfprintf(s->log, fmt, ap);
	va_end(ap);
	fputc('\n', s->log);
	fflush(s->log);
}

int twin_scope_open(struct twin_scope *s, const char *path, uint32_t rate_hz, double shunt_ohm,
		    FILE *log, FILE *samples, struct bn_err *err)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };

	memset(s, 0, sizeof(*s));
	s->lfd = s->fd = -1;
	s->log = log;
	s->samples = samples;
	s->first_sent_t = -1;
	if (!rate_hz || 1000000 % rate_hz)
		return bn_err_set(err, BN_ERR_ARG, "scope: the world's sample rate %lu Hz does not divide "
				  "1 MHz (its clock ticks in microseconds)", (unsigned long)rate_hz);
	s->world_rate_hz = rate_hz;
	s->shunt_ohm = shunt_ohm > 0 ? shunt_ohm : TWIN_SCOPE_SHUNT_OHM;
	s->tick_us = 1000000 / rate_hz;
	if (strlen(path) >= sizeof(a.sun_path) || strlen(path) >= sizeof(s->path))
		return bn_err_set(err, BN_ERR_ARG, "scope: socket path %s: longer than %zu bytes", path,
				  sizeof(a.sun_path) - 1);
	memcpy(a.sun_path, path, strlen(path) + 1);
	unlink(path);
	s->lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (s->lfd < 0 || bind(s->lfd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(s->lfd, 4) < 0)
		return bn_err_set(err, BN_ERR_IO, "scope: listen on %s: %s", path, strerror(errno));
	snprintf(s->path, sizeof(s->path), "%s", path);
	if (samples)
		fprintf(samples, "t_s\tacq\tframe\tvbus_v\tibus_a\tch1_v\tch2_v\tch1_code\tch2_code\n");
	note(s, "listen", "%s; the world's sample clock %lu Hz; CH1 = VBUS / %g (a 10:1 probe), "
	     "CH2 = IBUS x %g ohm (a shunt's voltage)", path, (unsigned long)rate_hz,
	     TWIN_SCOPE_PROBE, s->shunt_ohm);
	return BN_OK;
}

static bn_time_us frame_t(const struct twin_scope *s, uint64_t k)
{
	return s->frame0_t + (bn_time_us)(k * 1000000u / s->st.rate_hz);
}

/* false: the FIFO is full */
static bool push(struct twin_scope *s, const struct scope_frame *f)
{
	size_t n = sizeof(*f), tail, first;

	if (s->q_cap - s->q_len < n)
		return false;
	tail = (s->q_head + s->q_len) % s->q_cap;
	first = n < s->q_cap - tail ? n : s->q_cap - tail;
	memcpy(s->q + tail, f, first);
	memcpy(s->q, (const unsigned char *)f + first, n - first);
	s->q_len += n;
	if (s->q_len / n > s->max_backlog)
		s->max_backlog = s->q_len / n;
	return true;
}

void twin_scope_sample(struct twin_scope *s, bn_time_us t, const struct bn_sample *smp)
{
	double vbus_v = smp->v[BN_CH_VBUS], ibus_a = smp->v[BN_CH_IBUS];
	struct scope_frame f;

	if (!s->started || t < s->start_t)
		return;
	if (s->frame0_t < 0)
		s->frame0_t = t;
	f.ch_v[0] = (float)(vbus_v / TWIN_SCOPE_PROBE);
	f.ch_v[1] = (float)(ibus_a * s->shunt_ohm);
	/* the frames from this tick to the next hold this tick's values */
	for (bn_time_us ft; (ft = frame_t(s, s->k)) < t + s->tick_us; s->k++) {
		if (!push(s, &f))
			s->dropped++;
		if (s->samples && s->k % TWIN_SCOPE_LOG_EVERY == 0)
			fprintf(s->samples, "%.6f\t%ld\t%llu\t%.6f\t%.6f\t%.6f\t%.6f\t%u\t%u\n",
				bn_time_to_s(ft), s->acquisitions, (unsigned long long)s->k, vbus_v,
				ibus_a, (double)f.ch_v[0], (double)f.ch_v[1],
				scope_proto_code(f.ch_v[0], s->st.range_v[0]),
				scope_proto_code(f.ch_v[1], s->st.range_v[1]));
	}
}

int twin_scope_fds(const struct twin_scope *s, struct pollfd *p, int max)
{
	int n = 0;

	if (s->fd >= 0 && n < max)
		p[n++] = (struct pollfd){ .fd = s->fd, .events = POLLIN | (s->want_out ? POLLOUT : 0) };
	if (s->lfd >= 0 && n < max)
		p[n++] = (struct pollfd){ .fd = s->lfd, .events = POLLIN };
	return n;
}

static short revents_of(const struct pollfd *p, int n, int fd)
{
	for (int i = 0; i < n; i++)
		if (p[i].fd == fd)
			return p[i].revents;
	return 0;
}

/* The acquisition on fd is over (why: "stop", end of file, an error). */
static void end(struct twin_scope *s, const char *why)
{
	const size_t fsz = sizeof(struct scope_frame);

	if (s->started)
		note(s, "stop", "acquisition %ld: %s after %.3f s; %llu frames made, %llu sent, "
		     "%llu dropped (the FIFO full), %zu unsent; the longest backlog %.3f s",
		     s->acquisitions, why, bn_time_to_s(s->now - s->start_t), (unsigned long long)s->k,
		     (unsigned long long)(s->sent_bytes / fsz), (unsigned long long)s->dropped,
		     s->q_len / fsz, (double)s->max_backlog / s->st.rate_hz);
	else
		note(s, "close", "a connection without a start line: %s", why);
	s->frames_sent += s->sent_bytes / fsz;
	s->frames_dropped += s->dropped;
	s->sent_bytes = s->dropped = 0; /* counted in the totals */
	if (s->samples)
		fflush(s->samples);
	close(s->fd);
	s->fd = -1;
	s->started = s->want_out = false;
	s->q_head = s->q_len = 0;
}

static void start(struct twin_scope *s)
{
	size_t frames;

	s->line[s->line_len] = '\0';
	if (scope_proto_parse_start(s->line, &s->st) < 0) {
		s->line[strcspn(s->line, "\n")] = '\0';
		end(s, "not a start line");
		note(s, "error", "\"%s\" is not \"start RATE_HZ RANGE1_V RANGE2_V\"", s->line);
		return;
	}
	frames = (size_t)(s->st.rate_hz * TWIN_SCOPE_FIFO_S);
	frames = frames < FIFO_MIN_FRAMES ? FIFO_MIN_FRAMES
		 : frames > FIFO_MAX_FRAMES ? FIFO_MAX_FRAMES : frames;
	if (s->q_cap != frames * sizeof(struct scope_frame)) {
		free(s->q);
		s->q_cap = frames * sizeof(struct scope_frame);
		s->q = malloc(s->q_cap);
		if (!s->q) {
			s->q_cap = 0;
			end(s, "no memory for the FIFO");
			return;
		}
	}
	s->started = true;
	s->acquisitions++;
	s->start_t = s->now;
	s->frame0_t = -1;
	s->k = s->sent_bytes = s->dropped = 0;
	s->max_backlog = 0;
	s->q_head = s->q_len = 0;
	s->last_send_t = s->now;
	note(s, "start", "acquisition %ld: %lu Hz, CH1 %g V span, CH2 %g V span", s->acquisitions,
	     (unsigned long)s->st.rate_hz, (double)s->st.range_v[0], (double)s->st.range_v[1]);
	if (s->st.rate_hz != s->world_rate_hz)
		note(s, "note", "acquisition %ld asks %lu Hz, the world's clock ticks at %lu Hz: each "
		     "frame holds the world's latest tick", s->acquisitions,
		     (unsigned long)s->st.rate_hz, (unsigned long)s->world_rate_hz);
}

static void readable(struct twin_scope *s)
{
	char buf[SCOPE_PROTO_LINE_MAX];
	ssize_t r = recv(s->fd, buf, sizeof(buf), MSG_DONTWAIT);

	if (r < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (r <= 0) {
		end(s, r < 0 ? strerror(errno) : "end of file");
		return;
	}
	for (ssize_t i = 0; i < r; i++) {
		if (s->started) {
			if (buf[i] == '\n') { /* "stop\n" is all the fake says */
				end(s, "stop");
				return;
			}
			continue;
		}
		if (s->line_len >= sizeof(s->line) - 1) {
			end(s, "a start line too long");
			return;
		}
		s->line[s->line_len++] = buf[i];
		if (buf[i] == '\n') {
			start(s);
			if (s->fd < 0)
				return;
		}
	}
}

/* Send what the socket takes. */
static void flush(struct twin_scope *s)
{
	while (s->q_len) {
		size_t first = s->q_len < s->q_cap - s->q_head ? s->q_len : s->q_cap - s->q_head;
		struct iovec iov[2] = { { s->q + s->q_head, first }, { s->q, s->q_len - first } };
		struct msghdr m = { .msg_iov = iov, .msg_iovlen = first < s->q_len ? 2 : 1 };
		ssize_t w = sendmsg(s->fd, &m, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			s->want_out = true;
			return;
		}
		if (w <= 0) {
			end(s, w < 0 ? strerror(errno) : "the socket took nothing");
			return;
		}
		if (s->first_sent_t < 0)
			s->first_sent_t = s->now;
		s->q_head = (s->q_head + (size_t)w) % s->q_cap;
		s->q_len -= (size_t)w;
		s->sent_bytes += (uint64_t)w;
	}
	s->want_out = false;
	s->last_send_t = s->now;
	if (s->samples)
		fflush(s->samples);
}

void twin_scope_service(struct twin_scope *s, const struct pollfd *p, int n, bn_time_us now)
{
	size_t batch;

	s->now = now;
	if (s->fd >= 0) {
		short ev = revents_of(p, n, s->fd);

		if (ev & (POLLIN | POLLHUP | POLLERR))
			readable(s);
		if (s->fd >= 0 && s->started && s->q_len) {
			batch = (size_t)(s->st.rate_hz / (1000000 / TWIN_SCOPE_BATCH_US)) *
				sizeof(struct scope_frame);
			if (s->want_out ? (ev & POLLOUT) != 0
					: now - s->last_send_t >= TWIN_SCOPE_BATCH_US || s->q_len >= batch)
				flush(s);
		}
	}
	/* after the old connection's fds: a new one may take its number */
	if (s->lfd >= 0 && (revents_of(p, n, s->lfd) & POLLIN)) {
		int c = accept4(s->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (c >= 0) {
			if (s->fd >= 0)
				end(s, "a new connection came");
			s->fd = c;
			s->line_len = 0;
		}
	}
}

void twin_scope_unplug(struct twin_scope *s, bn_time_us now, const char *why)
{
	s->now = now;
	note(s, "unplug", "%s", why);
	if (s->fd >= 0)
		end(s, "unplugged");
	if (s->lfd >= 0)
		close(s->lfd);
	s->lfd = -1;
	if (s->path[0])
		unlink(s->path);
	s->path[0] = '\0';
	s->gone = true;
}

void twin_scope_close(struct twin_scope *s, bn_time_us now)
{
	s->now = now;
	if (s->fd >= 0)
		end(s, "the twin stopped");
	if (s->lfd >= 0)
		close(s->lfd);
	s->lfd = -1;
	if (s->path[0])
		unlink(s->path);
	s->path[0] = '\0';
	note(s, "closed", "%ld acquisitions, %llu frames sent, %llu dropped", s->acquisitions,
	     (unsigned long long)s->frames_sent, (unsigned long long)s->frames_dropped);
	free(s->q);
	s->q = NULL;
	s->q_cap = 0;
}
