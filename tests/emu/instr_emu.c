/* An instrument on a pseudo-terminal, for the SCPI tests: it prints the
 * slave's path (one line on stdout), then answers one family's commands
 * from its own code. It never reads profiles/instruments/, so a wrong
 * dialect file shows up as a failed test.
 *
 *   instr_emu --family NAME [--log FILE] [--delay-ms MS]
 *             [--stall-after N | --garbage-after N | --vanish-after N]
 *
 * Families: rigol-dl3000, itech-it8500, bk-8600 (loads), rigol-dp800,
 * tti-cpx (supplies). A load in constant current reads V = 5.0 - 0.1 * I
 * (I = its setpoint) when its input is on, 5.0 V and 0 A when off. A
 * supply feeds a 20 ohm resistor: I = min(V / 20, limit), V = 20 * I when
 * on, 0 and 0 when off. An unknown command queues an error, which the
 * family's error query reports.
 *
 * Faults, counted in received lines (the first N are served normally; a
 * query sent again at once is the client's retry after a time-out on a
 * loaded machine, and counts once):
 * --stall-after N answers nothing more; --garbage-after N answers every
 * query with "#?garbage\x01"; --vanish-after N closes the master and exits
 * when line N+1 comes. --log FILE gets every received line. It exits when
 * the client closes the port (after it had written something), or on
 * SIGTERM.
 *
 * --tcp PORT serves on a local TCP port instead (127.0.0.1, 0: any free
 * one), as a LAN instrument does on 5025: it prints the connection string
 * "tcp-raw/127.0.0.1/PORT", takes one client, and exits when it closes.
 * --clients N serves N clients in turn (0: until SIGTERM), the state kept
 * between them as an instrument keeps it: libsigrok connects once to scan
 * and again to open.
 *
 * rigol-dp800 answers both the bench's dialect (profiles/instruments/
 * rigol-dp800.json: ":SOUR1:VOLT", ":MEAS:VOLT? CH1", ...) and what
 * libsigrok 0.5.2's scpi-pps driver sends a DP832 (src/hardware/scpi-pps/
 * profiles.c, rigol_dp800_cmd; api.c): SYST:REMOTE and SYST:LOCAL,
 * SYST:BEEP:STAT? and SYST:BEEP:STAT ON|OFF, ":INST:NSEL N" then
 * ":MEAS:VOLT?", ":MEAS:CURR?", ":MEAS:POWE?" of the selected output. Its
 * three outputs each feed their own 20 ohm resistor. --on VOLTS starts
 * output 1 on at VOLTS with a 1 A limit (a test then reads VOLTS / 20 A
 * without commanding the supply).
 *
 * A supply's load can step: --ohms R changes its resistor (0: none), and
 * --sink-file FILE adds a constant-current sink whose amperes it reads
 * from FILE at every reading (missing or unreadable: 0 A). A load's
 * --sink-out FILE writes its sunk current there whenever it changes, so
 * a load and a supply on the same FILE share one port: the load's step
 * is the supply's. Past its limit the supply is in constant current:
 * I = limit, V what the resistor then sees (0 with none). */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

enum family { F_DL3000, F_IT8500, F_BK8600, F_DP800, F_CPX };

static const struct {
	const char *name;
	enum family f;
	const char *idn;
} families[] = {
	{ "rigol-dl3000", F_DL3000, "RIGOL TECHNOLOGIES,DL3021,DL3A000000001,00.01.02.00.01" },
	{ "itech-it8500", F_IT8500, "ITECH Ltd., IT8511A+, 800000000000000001, 1.20-1.05" },
	{ "bk-8600", F_BK8600, "B&K Precision, 8600, 800000000000000002, 1.20-1.05" },
	{ "rigol-dp800", F_DP800, "RIGOL TECHNOLOGIES,DP832,DP8C000000001,00.01.14" },
	{ "tti-cpx", F_CPX, "THURLBY THANDAR, CPX400DP, 000001, 1.00-1.00-1.00" },
};

/* A DP832's outputs; the other families use output 0 only. */
#define OUTPUTS 3

struct emu {
	enum family f;
	const char *idn;
	/* instrument state */
	bool on[OUTPUTS], remote, cc_mode, beeper;
	double set_a, set_v[OUTPUTS], limit_a[OUTPUTS];
	int sel; /* the output ":INST:NSEL" selected, 0-based */
	int err; /* queued error: 0 none */
	/* faults */
	long stall_after, garbage_after, vanish_after;
	int delay_ms;
	long lines;
	double ohms;          /* the supply's resistor; 0: none */
	const char *sink_in;  /* the supply's extra sink, amperes read from here */
	const char *sink_out; /* the load's current, written here */
	char prev[256];  /* the last line: its immediate repeat is a retry */
	FILE *log;
};

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static void load_vi(const struct emu *e, double *v, double *i)
{
	*i = e->on[0] ? e->set_a : 0.0;
	*v = 5.0 - 0.1 * *i;
}

/* The amperes in FILE; 0 when it cannot be read. */
static double sink_read(const char *file)
{
	FILE *fp = file ? fopen(file, "r") : NULL;
	double a = 0.0;

	if (fp) {
		if (fscanf(fp, "%lf", &a) != 1 || !(a > 0))
			a = 0.0;
		fclose(fp);
	}
	return a;
}

/* The load's current where a supply on the same file reads it. */
static void sink_write(const struct emu *e)
{
	char tmp[1100];
	FILE *fp;

	if (!e->sink_out)
		return;
	snprintf(tmp, sizeof(tmp), "%s.tmp", e->sink_out);
	fp = fopen(tmp, "w");
	if (!fp)
		return;
	fprintf(fp, "%.6f\n", e->on[0] ? e->set_a : 0.0);
	fclose(fp);
	rename(tmp, e->sink_out);
}

static void supply_vi(const struct emu *e, int out, double *v, double *i)
{
	double sink = out == 0 ? sink_read(e->sink_in) : 0.0;
	double want;

	*v = *i = 0.0;
	if (!e->on[out])
		return;
	want = (e->ohms > 0 ? e->set_v[out] / e->ohms : 0.0) + sink;
	if (want <= e->limit_a[out]) {
		*i = want;
		*v = e->set_v[out];
		return;
	}
	*i = e->limit_a[out]; /* constant current */
	*v = e->ohms > 0 ? fmax(0.0, (*i - sink) * e->ohms) : 0.0;
}


/* SCPI's SYST:ERR?: the oldest error, then "no error". */
static void syst_err(struct emu *e, char *reply, size_t len)
{
	snprintf(reply, len, e->err ? "%d,\"Undefined header\"" : "0,\"No error\"", e->err);
	e->err = 0;
}

/* "ON"/"1" -> 1, "OFF"/"0" -> 0, else -1. */
static int onoff(const char *s)
{
	if (!strcasecmp(s, "ON") || !strcmp(s, "1"))
		return 1;
	if (!strcasecmp(s, "OFF") || !strcmp(s, "0"))
		return 0;
	return -1;
}

static bool number(const char *s, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	return end != s && *end == '\0' && errno == 0;
}

/* "CH1".."CH3" (or "1".."3" after a prefix already taken off) -> 0..2,
 * else -1. */
static int output_no(const char *s)
{
	if (!strncasecmp(s, "CH", 2))
		s += 2;
	if (s[0] >= '1' && s[0] < '1' + OUTPUTS && s[1] == '\0')
		return s[0] - '1';
	return -1;
}

/* rigol-dp800: the bench's dialect and libsigrok scpi-pps's. */
static bool handle_dp800(struct emu *e, const char *line, const char *arg, char *reply,
			 size_t len)
{
	double v, i, x;
	int b, out;

	if (!strcasecmp(line, ":SYST:ERR?") && !*arg) {
		syst_err(e, reply, len);
		return true;
	}
	if (!strcasecmp(line, "SYST:REMOTE") && !*arg) {
		e->remote = true;
		return true;
	}
	if (!strcasecmp(line, "SYST:LOCAL") && !*arg) {
		e->remote = false;
		return true;
	}
	if (!strcasecmp(line, "SYST:BEEP:STAT?") && !*arg) {
		snprintf(reply, len, "%s", e->beeper ? "ON" : "OFF");
		return true;
	}
	if (!strcasecmp(line, "SYST:BEEP:STAT") && (b = onoff(arg)) >= 0) {
		e->beeper = b;
		return true;
	}
	if (!strcasecmp(line, ":INST:NSEL") && (out = output_no(arg)) >= 0) {
		e->sel = out;
		return true;
	}
	/* ":SOUR1:VOLT 5.000" */
	if (!strncasecmp(line, ":SOUR", 5) && line[5] >= '1' && line[5] < '1' + OUTPUTS &&
	    line[6] == ':' && number(arg, &x)) {
		out = line[5] - '1';
		if (!strcasecmp(line + 7, "VOLT")) {
			e->set_v[out] = x;
			return true;
		}
		if (!strcasecmp(line + 7, "CURR")) {
			e->limit_a[out] = x;
			return true;
		}
		return false;
	}
	/* ":OUTP CH1,ON" */
	if (!strcasecmp(line, ":OUTP") && !strncasecmp(arg, "CH", 2) && arg[2] &&
	    arg[3] == ',') {
		char ch[4] = { arg[0], arg[1], arg[2], '\0' };

		out = output_no(ch);
		if (out >= 0 && (b = onoff(arg + 4)) >= 0) {
			e->on[out] = b;
			return true;
		}
		return false;
	}
	/* ":MEAS:VOLT? CH1" (the bench), ":MEAS:VOLT?" (the selected output) */
	out = *arg ? output_no(arg) : e->sel;
	if (out < 0)
		return false;
	supply_vi(e, out, &v, &i);
	if (!strcasecmp(line, ":MEAS:VOLT?")) {
		snprintf(reply, len, "%.3f", v);
		return true;
	}
	if (!strcasecmp(line, ":MEAS:CURR?")) {
		snprintf(reply, len, "%.3f", i);
		return true;
	}
	if (!strcasecmp(line, ":MEAS:POWE?") && !*arg) {
		snprintf(reply, len, "%.3f", v * i);
		return true;
	}
	return false;
}

/* The reply to one line, or "" for none. */
static void handle(struct emu *e, char *line, char *reply, size_t len)
{
	char *arg = strchr(line, ' ');
	double v, i, x;
	int b;

	reply[0] = '\0';
	if (arg)
		*arg++ = '\0';
	else
		arg = line + strlen(line);
	if (!strcmp(line, "*IDN?")) {
		snprintf(reply, len, "%s", e->idn);
		return;
	}
	if (!strcmp(line, "*CLS") && !*arg) {
		e->err = 0;
		return;
	}
	switch (e->f) {
	case F_DL3000:
		if (!strcasecmp(line, ":SYST:ERR?") && !*arg) {
			syst_err(e, reply, len);
			return;
		}
		if (!strcasecmp(line, ":SOUR:FUNC") && !strcasecmp(arg, "CURR")) {
			e->cc_mode = true;
			return;
		}
		if (!strcasecmp(line, ":SOUR:CURR:LEV") && number(arg, &x)) {
			e->set_a = x;
			sink_write(e);
			return;
		}
		if (!strcasecmp(line, ":SOUR:INP:STAT") && (b = onoff(arg)) >= 0) {
			e->on[0] = b;
			sink_write(e);
			return;
		}
		load_vi(e, &v, &i);
		if (!strcasecmp(line, ":MEAS:VOLT?") && !*arg) {
			snprintf(reply, len, "%.4f", v);
			return;
		}
		if (!strcasecmp(line, ":MEAS:CURR?") && !*arg) {
			snprintf(reply, len, "%.4f", i);
			return;
		}
		break;
	case F_IT8500:
	case F_BK8600:
		if (!strcasecmp(line, "SYST:ERR?") && !*arg) {
			syst_err(e, reply, len);
			return;
		}
		if (!strcasecmp(line, "SYST:REM") && !*arg) {
			e->remote = true;
			return;
		}
		if (!strcasecmp(line, "SYST:LOC") && !*arg) {
			e->remote = false;
			return;
		}
		/* In local mode the front panel owns the load: refuse. */
		if (!e->remote)
			break;
		if (!strcasecmp(line, "FUNC") && !strcasecmp(arg, "CURR")) {
			e->cc_mode = true;
			return;
		}
		if (!strcasecmp(line, "CURR") && number(arg, &x)) {
			e->set_a = x;
			sink_write(e);
			return;
		}
		if (!strcasecmp(line, "INP") && (b = onoff(arg)) >= 0) {
			e->on[0] = b;
			sink_write(e);
			return;
		}
		load_vi(e, &v, &i);
		if (!strcasecmp(line, "MEAS:VOLT?") && !*arg) {
			snprintf(reply, len, "%.4f", v);
			return;
		}
		if (!strcasecmp(line, "MEAS:CURR?") && !*arg) {
			snprintf(reply, len, "%.4f", i);
			return;
		}
		break;
	case F_DP800:
		if (handle_dp800(e, line, arg, reply, len))
			return;
		break;
	case F_CPX:
		if (!strcmp(line, "EER?") && !*arg) {
			snprintf(reply, len, "%d", e->err);
			e->err = 0;
			return;
		}
		if (!strcmp(line, "V1") && number(arg, &x)) {
			e->set_v[0] = x;
			return;
		}
		if (!strcmp(line, "I1") && number(arg, &x)) {
			e->limit_a[0] = x;
			return;
		}
		if (!strcmp(line, "OP1") && (!strcmp(arg, "0") || !strcmp(arg, "1"))) {
			e->on[0] = arg[0] == '1';
			return;
		}
		supply_vi(e, 0, &v, &i);
		if (!strcmp(line, "V1O?") && !*arg) {
			snprintf(reply, len, "%.3fV", v);
			return;
		}
		if (!strcmp(line, "I1O?") && !*arg) {
			snprintf(reply, len, "%.3fA", i);
			return;
		}
		if (!strcmp(line, "V1?") && !*arg) {
			snprintf(reply, len, "V1 %.3f", e->set_v[0]);
			return;
		}
		break;
	}
	/* Unknown: SCPI instruments queue an error and answer nothing. */
	e->err = e->f == F_CPX ? 100 : -113;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR && !stop)
		;
}

static void write_all(int fd, const char *s, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, s, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

/* One received line; false: vanish now. */
static bool serve(struct emu *e, int master, char *line)
{
	char reply[256];
	size_t n = strlen(line);

	while (n > 0 && (line[n - 1] == '\r' || line[n - 1] == ' '))
		line[--n] = '\0';
	if (n == 0)
		return true;
	if (!(line[n - 1] == '?' && !strcmp(line, e->prev)))
		e->lines++;
	snprintf(e->prev, sizeof(e->prev), "%s", line);
	if (e->log) {
		fprintf(e->log, "%s\n", line);
		fflush(e->log);
	}
	if (e->vanish_after >= 0 && e->lines > e->vanish_after)
		return false;
	if (e->stall_after >= 0 && e->lines > e->stall_after)
		return true;
	handle(e, line, reply, sizeof(reply));
	if (!reply[0])
		return true;
	if (e->garbage_after >= 0 && e->lines > e->garbage_after)
		snprintf(reply, sizeof(reply), "#?garbage\x01");
	if (e->delay_ms > 0)
		sleep_ms(e->delay_ms);
	strcat(reply, "\n");
	write_all(master, reply, strlen(reply));
	return true;
}

static int usage(void)
{
	fprintf(stderr, "usage: instr_emu --family NAME [--log FILE] [--delay-ms MS] "
			"[--stall-after N] [--garbage-after N] [--vanish-after N] [--tcp PORT] "
			"[--clients N] [--on VOLTS] [--ohms R] [--sink-file FILE] [--sink-out FILE]\n");
	return 2;
}

/* Listen on 127.0.0.1:port and print the connection string; -1 on
 * failure. */
static int tcp_listen(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	socklen_t alen = sizeof(a);
	int one = 1, ls = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (ls < 0 || setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(ls, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(ls, 1) < 0 ||
	    getsockname(ls, (struct sockaddr *)&a, &alen) < 0) {
		perror("instr_emu: listen");
		return -1;
	}
	printf("tcp-raw/127.0.0.1/%d\n", ntohs(a.sin_port));
	fflush(stdout);
	return ls;
}

/* The next client's socket; -1 on a stop before one came. */
static int tcp_accept(int ls)
{
	int c = -1;

	while (!stop && c < 0) {
		struct pollfd p = { .fd = ls, .events = POLLIN };

		if (poll(&p, 1, 200) > 0)
			c = accept4(ls, NULL, NULL, SOCK_CLOEXEC);
	}
	return c;
}

/* Serve one connection until the client closes it (or a stop); false:
 * the instrument vanished (the descriptor is closed). A pty's slave is
 * closed once the client has spoken. */
static bool serve_conn(struct emu *e, int fd, int *slave)
{
	char buf[1024];
	size_t len = 0;

	while (!stop) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int r = poll(&p, 1, 200);
		ssize_t got;

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			continue;
		got = read(fd, buf + len, sizeof(buf) - 1 - len);
		if (got < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (got <= 0)
			break; /* the client closed the port */
		if (*slave >= 0) {
			close(*slave);
			*slave = -1;
		}
		len += (size_t)got;
		buf[len] = '\0';
		for (char *nl; (nl = strchr(buf, '\n'));) {
			*nl = '\0';
			if (!serve(e, fd, buf)) {
				close(fd);
				return false;
			}
			len -= (size_t)(nl + 1 - buf);
			memmove(buf, nl + 1, len + 1);
		}
		if (len == sizeof(buf) - 1)
			len = 0; /* a line too long for anyone: drop it */
	}
	return true;
}

int main(int argc, char **argv)
{
	struct emu e = { .stall_after = -1, .garbage_after = -1, .vanish_after = -1,
			 .beeper = true, .ohms = 20.0 };
	const char *family = NULL;
	int master, slave = -1, tcp_port = -1, clients = 1;
	double on_v = -1;
	struct termios t;
	struct sigaction sa = { .sa_handler = on_term };

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!v)
			return usage();
		i++;
		if (!strcmp(a, "--family"))
			family = v;
		else if (!strcmp(a, "--log"))
			e.log = fopen(v, "w");
		else if (!strcmp(a, "--delay-ms"))
			e.delay_ms = atoi(v);
		else if (!strcmp(a, "--stall-after"))
			e.stall_after = atol(v);
		else if (!strcmp(a, "--garbage-after"))
			e.garbage_after = atol(v);
		else if (!strcmp(a, "--vanish-after"))
			e.vanish_after = atol(v);
		else if (!strcmp(a, "--tcp"))
			tcp_port = atoi(v);
		else if (!strcmp(a, "--clients"))
			clients = atoi(v);
		else if (!strcmp(a, "--on"))
			on_v = atof(v);
		else if (!strcmp(a, "--ohms"))
			e.ohms = atof(v);
		else if (!strcmp(a, "--sink-file"))
			e.sink_in = v;
		else if (!strcmp(a, "--sink-out"))
			e.sink_out = v;
		else
			return usage();
	}
	for (size_t i = 0; family && i < sizeof(families) / sizeof(families[0]); i++)
		if (!strcmp(families[i].name, family)) {
			e.f = families[i].f;
			e.idn = families[i].idn;
		}
	if (!e.idn) {
		fprintf(stderr, "instr_emu: unknown --family \"%s\"\n", family ? family : "");
		return usage();
	}
	if (on_v >= 0) {
		e.on[0] = true;
		e.set_v[0] = on_v;
		e.limit_a[0] = 1.0;
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	if (tcp_port >= 0) {
		int ls = tcp_listen(tcp_port);

		if (ls < 0)
			return 1;
		for (int n = 0; !stop && (clients <= 0 || n < clients); n++) {
			master = tcp_accept(ls);
			if (master < 0)
				break;
			if (!serve_conn(&e, master, &slave)) {
				close(ls);
				return 0; /* vanished */
			}
			close(master);
		}
		close(ls);
	} else {
		master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
		if (master < 0 || grantpt(master) < 0 || unlockpt(master) < 0) {
			perror("instr_emu: posix_openpt");
			return 1;
		}
		/* Hold the slave open, raw, until the client has spoken: with no
		 * slave open the master reads EIO, which is how the client's close
		 * is seen later. */
		slave = open(ptsname(master), O_RDWR | O_NOCTTY | O_CLOEXEC);
		if (slave < 0 || tcgetattr(slave, &t) < 0) {
			perror("instr_emu: open slave");
			return 1;
		}
		cfmakeraw(&t);
		tcsetattr(slave, TCSANOW, &t);
		printf("%s\n", ptsname(master));
		fflush(stdout);
		if (!serve_conn(&e, master, &slave))
			return 0; /* vanished */
		if (slave >= 0)
			close(slave);
		close(master);
	}
	if (e.log)
		fclose(e.log);
	return 0;
}
