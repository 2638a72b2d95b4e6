/* The twin's fixture server (twin_fixture.h). */
#define _GNU_SOURCE
#include "twin_fixture.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ftdi_wire.h"

int twin_fixture_load(struct twin_fixture *f, const char *fixture_file, struct bn_err *err)
{
	memset(f, 0, sizeof(*f));
	f->lfd = -1;
	f->holder = -1;
	f->first_open_t = -1;
	for (int i = 0; i < TWIN_FX_CONNS; i++)
		f->cfd[i] = -1;
	if (bn_fixture_def_load(&f->def, fixture_file, err) < 0)
		return err->code;
	twin_chip_init(&f->chip, &f->def);
	return BN_OK;
}

int twin_fixture_listen(struct twin_fixture *f, struct twin_world *tw, const char *sock_path,
			FILE *log, struct bn_err *err)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	char what[64];

	f->tw = tw;
	f->log = log;
	if (strlen(sock_path) >= sizeof(a.sun_path))
		return bn_err_set(err, BN_ERR_ARG, "fixture socket path too long: %s", sock_path);
	snprintf(f->path, sizeof(f->path), "%s", sock_path);
	strcpy(a.sun_path, sock_path);
	unlink(sock_path);
	f->lfd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (f->lfd < 0 || bind(f->lfd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(f->lfd, 4) < 0)
		return bn_err_set(err, BN_ERR_IO, "fixture socket %s: %s", sock_path, strerror(errno));
	/* The world starts as the chip's pins say: every relay open. */
	twin_world_fixture(tw, f->chip.state, what, sizeof(what));
	return BN_OK;
}

int twin_fixture_fds(const struct twin_fixture *f, struct pollfd *p, int max)
{
	int n = 0;

	if (f->lfd >= 0 && n < max)
		p[n++] = (struct pollfd){ .fd = f->lfd, .events = POLLIN };
	for (int i = 0; i < TWIN_FX_CONNS && n < max; i++)
		if (f->cfd[i] >= 0)
			p[n++] = (struct pollfd){ .fd = f->cfd[i], .events = POLLIN };
	return n;
}

static void log_line(struct twin_fixture *f, bn_time_us t, const char *kind, const char *a,
		     const char *b)
{
	if (!f->log)
		return;
	fprintf(f->log, "%.6f\t%s\t%s%s%s\n", bn_time_to_s(t), kind, a, b ? "\t" : "", b ? b : "");
	fflush(f->log);
}

static void record(struct twin_fixture *f, bn_time_us t, const struct twin_chip_result *res)
{
	char names[300], what[160];

	for (int s = 0; s < res->nsteps; s++) {
		twin_chip_names(&f->def, res->steps[s], names, sizeof(names));
		f->states++;
		if (s + 1 < res->nsteps) {
			log_line(f, t, "state", "within-write", names);
			continue;
		}
		twin_world_fixture(f->tw, res->steps[s], what, sizeof(what));
		log_line(f, t, "state", what, names);
	}
	if (res->violation[0]) {
		f->violations++;
		log_line(f, t, "VIOLATION", res->violation, NULL);
	}
}

static void request(struct twin_fixture *f, int i, char *req, bn_time_us t)
{
	char reply[TWIN_FTDI_MSG_LEN];
	struct twin_chip_result res;
	bool opening = !strncmp(req, "OPEN ", 5);

	f->requests++;
	if (opening && f->holder >= 0 && f->holder != i) {
		snprintf(reply, sizeof(reply),
			 "ERR -5 unable to claim usb device (busy: another program holds the twin's chip)");
		log_line(f, t, "refused", "open while another host holds the chip", NULL);
	} else if (!opening && f->holder != i) {
		snprintf(reply, sizeof(reply), "ERR -1 USB device unavailable (not opened by this host)");
	} else {
		twin_chip_request(&f->chip, req, t, twin_world_inputs(f->tw), reply, sizeof(reply),
				  &res);
		if (opening && !strncmp(reply, "OK", 2)) {
			f->holder = i;
			if (f->first_open_t < 0)
				f->first_open_t = t;
			log_line(f, t, "open", req + 5, NULL);
		} else if (!strcmp(req, "CLOSE")) {
			f->holder = -1;
			log_line(f, t, "close", "the chip keeps its pins", NULL);
		}
		record(f, t, &res);
	}
	if (send(f->cfd[i], reply, strlen(reply), MSG_NOSIGNAL) < 0)
		log_line(f, t, "lost", "the host went away before the reply", NULL);
}

static void drop_conn(struct twin_fixture *f, int i, bn_time_us t)
{
	close(f->cfd[i]);
	f->cfd[i] = -1;
	if (f->holder == i) {
		f->holder = -1;
		f->chip.open = false;
		log_line(f, t, "close", "the host went away without closing; the chip keeps its pins",
			 NULL);
	}
}

void twin_fixture_service(struct twin_fixture *f, const struct pollfd *p, int n, bn_time_us t)
{
	for (int k = 0; k < n; k++) {
		char req[TWIN_FTDI_MSG_LEN];
		ssize_t got;
		int i;

		if (!p[k].revents)
			continue;
		if (p[k].fd == f->lfd) {
			int fd = accept4(f->lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

			for (i = 0; fd >= 0 && i < TWIN_FX_CONNS && f->cfd[i] >= 0; i++)
				;
			if (fd >= 0 && i == TWIN_FX_CONNS)
				close(fd);
			else if (fd >= 0)
				f->cfd[i] = fd;
			continue;
		}
		for (i = 0; i < TWIN_FX_CONNS && f->cfd[i] != p[k].fd; i++)
			;
		if (i == TWIN_FX_CONNS)
			continue;
		got = recv(f->cfd[i], req, sizeof(req) - 1, 0);
		if (got < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (got <= 0) {
			drop_conn(f, i, t);
			continue;
		}
		req[got] = '\0';
		request(f, i, req, t);
	}
}

void twin_fixture_close(struct twin_fixture *f)
{
	for (int i = 0; i < TWIN_FX_CONNS; i++)
		if (f->cfd[i] >= 0)
			close(f->cfd[i]);
	if (f->lfd >= 0) {
		close(f->lfd);
		unlink(f->path);
	}
	f->lfd = -1;
}
