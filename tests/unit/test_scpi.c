#define _GNU_SOURCE /* pipe2 */
/* The SCPI load and supply backends against the instrument emulator
 * (tests/emu/instr_emu.c, $BN_EMUDIR) on a pseudo-terminal, through the
 * shipped dialect files: what each family is sent, what is measured, and
 * the faults (a stalled, babbling or vanished instrument, the wrong
 * dialect, broken dialect files). The emulator answers from its own code,
 * so a wrong dialect file fails here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "lib/harness.h"
#include "hil/backend.h"
#include "hil/scpi.h"

#define T_MS 200   /* query time-out in these tests */
#define RETRIES 1
#define MAX_LOG 64

/* ---- the emulator ---- */

struct emu {
	pid_t pid;
	char path[64];     /* the pty it serves */
	char log[1100];    /* every line it received */
	int status;        /* exit status once reaped */
};

enum link { LINK_SERIAL, LINK_TCP, LINK_USBTMC };

struct fx {
	char dir[64];      /* scratch: the log, dialect files written here */
	enum link link;    /* how the emulator is reached (hil/scpi_link.h) */
	struct emu e;
	struct bn_err err;
	char lines[MAX_LOG][96];
	int n_lines;
};

static void sleep_ms(int ms)
{
	struct timespec ts = { 0, ms * 1000000L };

	nanosleep(&ts, NULL);
}

/* Start instr_emu --family FAMILY [extra args...] and read its pty path. */
static void emu_start(struct fx *f, const char *family, const char *opt, const char *val)
{
	const char *dir = getenv("BN_EMUDIR");
	char exe[1024], line[128] = "";
	int pfd[2];
	size_t n = 0;

	snprintf(exe, sizeof(exe), "%s/instr_emu", dir && *dir ? dir : "build/emu");
	if (access(exe, X_OK) < 0)
		fail_msg("%s: not built (make units; BN_EMUDIR names the emulator's folder)", exe);
	snprintf(f->e.log, sizeof(f->e.log), "%s/emu.log", f->dir);
	assert_int_equal(pipe2(pfd, O_CLOEXEC), 0);
	f->e.pid = fork();
	assert_true(f->e.pid >= 0);
	if (f->e.pid == 0) {
		const char *argv[] = { exe, "--family", family, "--log", f->e.log,
				       f->link == LINK_TCP ? "--tcp" : opt,
				       f->link == LINK_TCP ? "0" : val,
				       f->link == LINK_TCP ? opt : NULL, val, NULL };

		dup2(pfd[1], 1);
		execv(exe, (char *const *)argv);
		_exit(127);
	}
	close(pfd[1]);
	while (n < sizeof(line) - 1) {
		struct pollfd p = { .fd = pfd[0], .events = POLLIN };
		ssize_t r;

		if (poll(&p, 1, 5000) <= 0)
			break;
		r = read(pfd[0], line + n, 1);
		if (r <= 0 || line[n] == '\n')
			break;
		n++;
	}
	line[n] = '\0';
	close(pfd[0]);
	if (strncmp(line, f->link == LINK_TCP ? "tcp-raw/" : "/dev/", f->link == LINK_TCP ? 8 : 5))
		fail_msg("instr_emu --family %s printed \"%s\", not a %s", family, line,
			 f->link == LINK_TCP ? "TCP connection string" : "pty path");
	snprintf(f->e.path, sizeof(f->e.path), "%s", line);
}

/* Reap the emulator: it exits once the client closed the port. Bounded;
 * then SIGTERM, then SIGKILL. Returns true when it left by itself. */
static bool emu_reap(struct fx *f, int wait_ms)
{
	bool self = true;

	if (f->e.pid <= 0)
		return true;
	for (int t = 0; t < wait_ms; t += 10) {
		if (waitpid(f->e.pid, &f->e.status, WNOHANG) == f->e.pid) {
			f->e.pid = 0;
			return true;
		}
		sleep_ms(10);
	}
	self = false;
	kill(f->e.pid, SIGTERM);
	for (int t = 0; t < 2000; t += 10) {
		if (waitpid(f->e.pid, &f->e.status, WNOHANG) == f->e.pid) {
			f->e.pid = 0;
			return self;
		}
		sleep_ms(10);
	}
	kill(f->e.pid, SIGKILL);
	waitpid(f->e.pid, &f->e.status, 0);
	f->e.pid = 0;
	return self;
}

static void read_log(struct fx *f)
{
	FILE *fp = fopen(f->e.log, "r");

	f->n_lines = 0;
	assert_non_null(fp);
	while (f->n_lines < MAX_LOG && fgets(f->lines[f->n_lines], sizeof(f->lines[0]), fp)) {
		f->lines[f->n_lines][strcspn(f->lines[f->n_lines], "\n")] = '\0';
		f->n_lines++;
	}
	fclose(fp);
}

/* The emulator received exactly these lines (NULL-terminated). */
static void assert_log(struct fx *f, const char *const *want)
{
	int n = 0;

	read_log(f);
	for (; want[n]; n++) {
		if (n >= f->n_lines)
			fail_msg("log line %d: missing, expected \"%s\"", n + 1, want[n]);
		if (strcmp(f->lines[n], want[n]))
			fail_msg("log line %d: \"%s\", expected \"%s\"", n + 1, f->lines[n],
				 want[n]);
	}
	if (f->n_lines != n)
		fail_msg("log has %d lines, expected %d (extra: \"%s\")", f->n_lines, n,
			 f->lines[n]);
}

static int count_log(struct fx *f, const char *line)
{
	int c = 0;

	read_log(f);
	for (int i = 0; i < f->n_lines; i++)
		c += !strcmp(f->lines[i], line);
	return c;
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	snprintf(f->dir, sizeof(f->dir), "/tmp/bn-scpi-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	DIR *d;
	struct dirent *de;

	emu_reap(f, 0);
	d = opendir(f->dir);
	while (d && (de = readdir(d))) {
		char p[1200];

		if (de->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", f->dir, de->d_name);
		unlink(p);
	}
	if (d)
		closedir(d);
	rmdir(f->dir);
	free(f);
	return 0;
}

static struct bn_backend_open opener(char *file, size_t len, const char *dialect)
{
	bn_test_path("profiles/instruments/", file, len);
	strncat(file, dialect, len - strlen(file) - 6);
	strcat(file, ".json");
	return (struct bn_backend_open){ .file = file, .timeout_ms = T_MS, .retries = RETRIES };
}

static int open_load(struct fx *f, struct bn_load *ld, const char *dialect)
{
	char file[1024], spec[96];
	struct bn_backend_open o = opener(file, sizeof(file), dialect);

	snprintf(spec, sizeof(spec), "scpi:%s%s", f->link == LINK_USBTMC ? "usbtmc:" : "",
		 f->e.path);
	bn_err_clear(&f->err);
	return bn_load_open(ld, spec, &o, &f->err);
}

static int open_supply(struct fx *f, struct bn_supply *sp, const char *dialect)
{
	char file[1024], spec[96];
	struct bn_backend_open o = opener(file, sizeof(file), dialect);

	snprintf(spec, sizeof(spec), "scpi:%s@115200", f->e.path);
	bn_err_clear(&f->err);
	return bn_supply_open(sp, spec, &o, &f->err);
}

/* ---- normal operation, one test per family ---- */

static void run_load(struct fx *f, const char *family, double set_a, const char *const *want)
{
	struct bn_load ld = { 0 };
	double v = -1, i = -1;

	/* Also links the table in: backend.c's reference to it is weak. */
	assert_ptr_equal(bn_load_backend("scpi"), &bn_load_scpi_ops);
	emu_start(f, family, NULL, NULL);
	if (open_load(f, &ld, family) < 0)
		fail_msg("%s", f->err.msg);
	assert_string_equal(ld.ops->name, "scpi");
	assert_int_equal(ld.ops->measure(ld.priv, &v, &i, &f->err), BN_OK);
	assert_near(v, 5.0, 1e-9); /* input off: open-circuit voltage, no current */
	assert_near(i, 0.0, 1e-9);
	assert_int_equal(ld.ops->set_current(ld.priv, set_a, &f->err), BN_OK);
	assert_int_equal(ld.ops->enable(ld.priv, true, &f->err), BN_OK);
	assert_int_equal(ld.ops->measure(ld.priv, &v, &i, &f->err), BN_OK);
	assert_near(i, set_a, 1e-4);
	assert_near(v, 5.0 - 0.1 * set_a, 1e-4);
	bn_load_close(&ld); /* the safe sequence, then the port closes */
	assert_null(ld.priv);
	assert_true(emu_reap(f, 3000));
	assert_log(f, want);
}

/* A DL3000 load's dialogue in run_load at 0.5 A, whichever link. */
static const char *const dl3000_want[] = {
	"*IDN?", ":SOUR:FUNC CURR", ":SYST:ERR?",
	":MEAS:VOLT?", ":MEAS:CURR?",
	":SOUR:CURR:LEV 0.500", ":SYST:ERR?",
	":SOUR:INP:STAT ON", ":SYST:ERR?",
	":MEAS:VOLT?", ":MEAS:CURR?",
	":SOUR:INP:STAT OFF", ":SYST:ERR?", NULL,
};

static void test_scpi__load_rigol_dl3000(void **state)
{
	run_load(*state, "rigol-dl3000", 0.5, dl3000_want);
}

static void test_scpi__load_itech_it8500(void **state)
{
	static const char *const want[] = {
		"*IDN?", "SYST:REM", "SYST:ERR?", "FUNC CURR", "SYST:ERR?",
		"MEAS:VOLT?", "MEAS:CURR?",
		"CURR 1.2500", "SYST:ERR?",
		"INP ON", "SYST:ERR?",
		"MEAS:VOLT?", "MEAS:CURR?",
		"INP OFF", "SYST:ERR?", "SYST:LOC", "SYST:ERR?", NULL,
	};

	run_load(*state, "itech-it8500", 1.25, want);
}

static void test_scpi__load_bk_8600(void **state)
{
	static const char *const want[] = {
		"*IDN?", "SYST:REM", "SYST:ERR?", "FUNC CURR", "SYST:ERR?",
		"MEAS:VOLT?", "MEAS:CURR?",
		"CURR 0.1000", "SYST:ERR?",
		"INP ON", "SYST:ERR?",
		"MEAS:VOLT?", "MEAS:CURR?",
		"INP OFF", "SYST:ERR?", "SYST:LOC", "SYST:ERR?", NULL,
	};

	run_load(*state, "bk-8600", 0.1, want);
}

/* The emulated supply feeds 20 ohm: 5 V with a 1 A limit gives 0.25 A;
 * 5 V with a 0.1 A limit is current-limited at 2 V. */
static void run_supply(struct fx *f, const char *family, const char *const *want)
{
	struct bn_supply sp = { 0 };
	double v = -1, i = -1;

	assert_ptr_equal(bn_supply_backend("scpi"), &bn_supply_scpi_ops);
	emu_start(f, family, NULL, NULL);
	if (open_supply(f, &sp, family) < 0)
		fail_msg("%s", f->err.msg);
	assert_string_equal(sp.ops->name, "scpi");
	assert_int_equal(sp.ops->set_voltage(sp.priv, 5.0, &f->err), BN_OK);
	assert_int_equal(sp.ops->set_current_limit(sp.priv, 1.0, &f->err), BN_OK);
	assert_int_equal(sp.ops->enable(sp.priv, true, &f->err), BN_OK);
	assert_int_equal(sp.ops->measure(sp.priv, &v, &i, &f->err), BN_OK);
	assert_near(v, 5.0, 1e-3);
	assert_near(i, 0.25, 1e-3);
	assert_int_equal(sp.ops->set_current_limit(sp.priv, 0.1, &f->err), BN_OK);
	assert_int_equal(sp.ops->measure(sp.priv, &v, &i, &f->err), BN_OK);
	assert_near(v, 2.0, 1e-3);
	assert_near(i, 0.1, 1e-3);
	assert_int_equal(sp.ops->safe(sp.priv, &f->err), BN_OK);
	assert_int_equal(sp.ops->measure(sp.priv, &v, &i, &f->err), BN_OK);
	assert_near(v, 0.0, 1e-9); /* output off */
	bn_supply_close(&sp);
	assert_true(emu_reap(f, 3000));
	assert_log(f, want);
}

static void test_scpi__supply_rigol_dp800(void **state)
{
	static const char *const want[] = {
		"*IDN?", ":OUTP CH1,OFF", ":SYST:ERR?",
		":SOUR1:VOLT 5.000", ":SYST:ERR?",
		":SOUR1:CURR 1.000", ":SYST:ERR?",
		":OUTP CH1,ON", ":SYST:ERR?",
		":MEAS:VOLT? CH1", ":MEAS:CURR? CH1",
		":SOUR1:CURR 0.100", ":SYST:ERR?",
		":MEAS:VOLT? CH1", ":MEAS:CURR? CH1",
		":OUTP CH1,OFF", ":SYST:ERR?",
		":MEAS:VOLT? CH1", ":MEAS:CURR? CH1",
		":OUTP CH1,OFF", ":SYST:ERR?", NULL,
	};

	run_supply(*state, "rigol-dp800", want);
}

static void test_scpi__supply_tti_cpx(void **state)
{
	static const char *const want[] = {
		"*IDN?", "OP1 0", "EER?",
		"V1 5.000", "EER?",
		"I1 1.000", "EER?",
		"OP1 1", "EER?",
		"V1O?", "I1O?",
		"I1 0.100", "EER?",
		"V1O?", "I1O?",
		"OP1 0", "EER?",
		"V1O?", "I1O?",
		"OP1 0", "EER?", NULL,
	};

	run_supply(*state, "tti-cpx", want);
}

/* bench.conf may name a dialect by its stem: found under datadir. */
static void test_scpi__dialect_by_name(void **state)
{
	struct fx *f = *state;
	char spec[96];
	struct bn_backend_open o = { .file = "tti-cpx", .datadir = bn_test_srcdir(),
				     .timeout_ms = T_MS, .retries = RETRIES };
	struct bn_supply sp = { 0 };
	char path[256];

	bn_scpi_dialect_path("tti-cpx", "/x", path, sizeof(path));
	assert_string_equal(path, "/x/profiles/instruments/tti-cpx.json");
	bn_scpi_dialect_path("/elsewhere/my.json", "/x", path, sizeof(path));
	assert_string_equal(path, "/elsewhere/my.json");
	emu_start(f, "tti-cpx", NULL, NULL);
	snprintf(spec, sizeof(spec), "scpi:%s", f->e.path);
	assert_int_equal(bn_supply_open(&sp, spec, &o, &f->err), BN_OK);
	bn_supply_close(&sp);
	assert_true(emu_reap(f, 3000));
	assert_int_equal(count_log(f, "*IDN?"), 1);
}

/* ---- faults ---- */

/* The rigol-dl3000 open sends 3 lines: *IDN?, :SOUR:FUNC CURR, :SYST:ERR?. */
#define DL3000_OPEN_LINES "3"

static void test_scpi__stall_times_out(void **state)
{
	struct fx *f = *state;
	struct bn_load ld = { 0 };
	double v, i;
	char want[160];

	emu_start(f, "rigol-dl3000", "--stall-after", DL3000_OPEN_LINES);
	assert_int_equal(open_load(f, &ld, "rigol-dl3000"), BN_OK);
	assert_int_equal(ld.ops->measure(ld.priv, &v, &i, &f->err), BN_ERR_TIMEOUT);
	snprintf(want, sizeof(want), "%s: :MEAS:VOLT?: no answer in %d ms (%d retries)",
		 f->e.path, T_MS, RETRIES);
	assert_msg_has(&f->err, want);
	/* safe() is still tried on a silent instrument, and says it failed. */
	bn_err_clear(&f->err);
	assert_int_equal(ld.ops->safe(ld.priv, &f->err), BN_ERR_TIMEOUT);
	assert_msg_has(&f->err, ":SYST:ERR?: no answer");
	bn_load_close(&ld);
	assert_true(emu_reap(f, 3000));
	assert_int_equal(count_log(f, ":MEAS:VOLT?"), 1 + RETRIES);
	assert_true(count_log(f, ":SOUR:INP:STAT OFF") >= 1);
}

/* An instrument slower to answer than a pty but within the time-out:
 * answered the first time, no retry sent. */
static void test_scpi__slow_instrument(void **state)
{
	struct fx *f = *state;
	struct bn_load ld = { 0 };
	double v = 0, i = -1;

	emu_start(f, "rigol-dl3000", "--delay-ms", "40");
	assert_int_equal(open_load(f, &ld, "rigol-dl3000"), BN_OK);
	assert_int_equal(ld.ops->measure(ld.priv, &v, &i, &f->err), BN_OK);
	assert_near(v, 5.0, 1e-9);
	assert_near(i, 0.0, 1e-9);
	bn_load_close(&ld);
	assert_true(emu_reap(f, 3000));
	assert_int_equal(count_log(f, "*IDN?"), 1);
	assert_int_equal(count_log(f, ":MEAS:VOLT?"), 1);
}

static void test_scpi__garbage_reply(void **state)
{
	struct fx *f = *state;
	struct bn_load ld = { 0 };
	double v, i;
	char want[160];

	emu_start(f, "rigol-dl3000", "--garbage-after", DL3000_OPEN_LINES);
	assert_int_equal(open_load(f, &ld, "rigol-dl3000"), BN_OK);
	assert_int_equal(ld.ops->measure(ld.priv, &v, &i, &f->err), BN_ERR_DATA);
	snprintf(want, sizeof(want), "%s: :MEAS:VOLT?: expected a number, got \"#?garbage\\x01\"",
		 f->e.path);
	assert_msg_has(&f->err, want);
	bn_err_clear(&f->err);
	/* The error query gets garbage too: safe() sends, then reports it. */
	assert_int_equal(ld.ops->safe(ld.priv, &f->err), BN_ERR_DATA);
	assert_msg_has(&f->err, ":SOUR:INP:STAT OFF: the instrument reports an error");
	bn_load_close(&ld);
	assert_true(emu_reap(f, 3000));
	assert_true(count_log(f, ":SOUR:INP:STAT OFF") >= 1);
}

static void test_scpi__garbage_with_unit(void **state)
{
	struct fx *f = *state;
	struct bn_supply sp = { 0 };
	double v, i;

	/* tti-cpx open: *IDN?, OP1 0, EER? */
	emu_start(f, "tti-cpx", "--garbage-after", "3");
	assert_int_equal(open_supply(f, &sp, "tti-cpx"), BN_OK);
	assert_int_equal(sp.ops->measure(sp.priv, &v, &i, &f->err), BN_ERR_DATA);
	assert_msg_has(&f->err, "V1O?: expected a number with unit \"V\", got \"#?garbage");
	bn_supply_close(&sp);
}

static void test_scpi__vanished(void **state)
{
	struct fx *f = *state;
	struct bn_load ld = { 0 };
	double v, i;
	int rc;

	emu_start(f, "rigol-dl3000", "--vanish-after", DL3000_OPEN_LINES);
	assert_int_equal(open_load(f, &ld, "rigol-dl3000"), BN_OK);
	rc = ld.ops->measure(ld.priv, &v, &i, &f->err);
	assert_true(rc == BN_ERR_FAULT || rc == BN_ERR_IO);
	assert_msg_has(&f->err, f->e.path);
	assert_msg_has(&f->err, "instrument lost");
	assert_true(emu_reap(f, 3000)); /* it left by itself */
	bn_err_clear(&f->err);
	rc = ld.ops->safe(ld.priv, &f->err);
	assert_true(rc == BN_ERR_FAULT || rc == BN_ERR_IO);
	assert_msg_has(&f->err, f->e.path);
	bn_err_clear(&f->err);
	rc = ld.ops->enable(ld.priv, true, &f->err);
	assert_true(rc < 0);
	bn_load_close(&ld);
	assert_null(ld.priv);
}

/* ---- LAN and USB-TMC: the same dialogue over the other links ---- */

/* A LAN load on its raw SCPI socket (the emulator on 127.0.0.1). */
static void test_scpi__load_over_tcp(void **state)
{
	struct fx *f = *state;

	f->link = LINK_TCP;
	run_load(f, "rigol-dl3000", 0.5, dl3000_want);
}

/* usbtmc:PATH on a descriptor that is not the usbtmc driver's (the
 * emulator's pty): read as a stream. The driver's own path (one reply per
 * read, its time-out set by ioctl) needs the device. */
static void test_scpi__load_over_usbtmc_path(void **state)
{
	struct fx *f = *state;

	f->link = LINK_USBTMC;
	run_load(f, "rigol-dl3000", 0.5, dl3000_want);
}

/* A LAN instrument that goes away mid-run: lost, naming its address. */
static void test_scpi__tcp_vanished(void **state)
{
	struct fx *f = *state;
	struct bn_load ld = { 0 };
	double v, i;
	int rc;

	f->link = LINK_TCP;
	emu_start(f, "rigol-dl3000", "--vanish-after", DL3000_OPEN_LINES);
	assert_int_equal(open_load(f, &ld, "rigol-dl3000"), BN_OK);
	rc = ld.ops->measure(ld.priv, &v, &i, &f->err);
	assert_true(rc == BN_ERR_FAULT || rc == BN_ERR_IO);
	assert_msg_has(&f->err, f->e.path);
	assert_msg_has(&f->err, "instrument lost");
	assert_true(emu_reap(f, 3000));
	bn_load_close(&ld);
	assert_null(ld.priv);
}

static void test_scpi__link_errors(void **state)
{
	struct fx *f = *state;
	char file[1024];
	struct bn_backend_open o = opener(file, sizeof(file), "rigol-dl3000");
	struct bn_load ld = { 0 };
	int listener;
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t alen = sizeof(a);
	char spec[96];

	assert_int_equal(bn_load_open(&ld, "scpi:tcp-raw/127.0.0.1", &o, &f->err), BN_ERR_ARG);
	assert_msg_has(&f->err, "expected tcp-raw/HOST/PORT");
	bn_err_clear(&f->err);
	assert_int_equal(bn_load_open(&ld, "scpi:tcp-raw/host/70000", &o, &f->err), BN_ERR_ARG);
	assert_msg_has(&f->err, "\"70000\" is not a TCP port");
	bn_err_clear(&f->err);
	assert_int_equal(bn_load_open(&ld, "scpi:usbtmc:", &o, &f->err), BN_ERR_ARG);
	assert_msg_has(&f->err, "expected usbtmc:PATH");
	bn_err_clear(&f->err);
	assert_int_equal(bn_load_open(&ld, "scpi:usbtmc:/dev/bn-no-such-usbtmc", &o, &f->err),
			 BN_ERR_FAULT);
	assert_msg_has(&f->err, "/dev/bn-no-such-usbtmc: open:");
	bn_err_clear(&f->err);
	/* a port nobody listens on: a free one, bound then closed */
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	listener = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(listener >= 0);
	assert_int_equal(bind(listener, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(getsockname(listener, (struct sockaddr *)&a, &alen), 0);
	close(listener);
	snprintf(spec, sizeof(spec), "scpi:tcp-raw/127.0.0.1/%d", ntohs(a.sin_port));
	assert_int_equal(bn_load_open(&ld, spec, &o, &f->err), BN_ERR_FAULT);
	assert_msg_has(&f->err, spec + 5);
	assert_msg_has(&f->err, "cannot connect: Connection refused");
	assert_null(ld.ops);
}

/* ---- the wrong dialect ---- */

static void test_scpi__wrong_dialect(void **state)
{
	static const char *const only_idn[] = { "*IDN?", NULL };
	struct fx *f = *state;
	struct bn_load ld = { 0 };
	struct bn_supply sp = { 0 };

	/* A load's dialect on the supply's role: refused before any I/O. */
	snprintf(f->e.path, sizeof(f->e.path), "/dev/bn-never-opened");
	assert_int_equal(open_supply(f, &sp, "rigol-dl3000"), BN_ERR_DATA);
	assert_msg_has(&f->err, "rigol-dl3000.json: key \"kind\"");
	assert_msg_has(&f->err, "is a load, not a supply");
	assert_null(sp.ops);
	/* A load's dialect against a supply. */
	emu_start(f, "rigol-dp800", NULL, NULL);
	assert_int_equal(open_load(f, &ld, "rigol-dl3000"), BN_ERR_DATA);
	assert_msg_has(&f->err, f->e.path);
	assert_msg_has(&f->err, "*IDN?: \"RIGOL TECHNOLOGIES,DP832,");
	assert_msg_has(&f->err, "is not a rigol-dl3000");
	assert_msg_has(&f->err, "rigol-dl3000.json expects \"RIGOL TECHNOLOGIES,DL30*\"");
	assert_null(ld.ops);
	assert_true(emu_reap(f, 3000));
	/* Nothing but the identity query reached the foreign instrument. */
	assert_log(f, only_idn);
	/* Another supply family's dialect. */
	emu_start(f, "tti-cpx", NULL, NULL);
	assert_int_equal(open_supply(f, &sp, "rigol-dp800"), BN_ERR_DATA);
	assert_msg_has(&f->err, "\"THURLBY THANDAR, CPX400DP, 000001, 1.00-1.00-1.00\" is not a "
				"rigol-dp800");
	assert_true(emu_reap(f, 3000));
	assert_log(f, only_idn);
}

/* A dialect file whose set command the instrument does not know: the
 * error query catches it. */
static void test_scpi__instrument_error(void **state)
{
	struct fx *f = *state;
	struct bn_load ld = { 0 };
	char src[1024], file[1200], spec[96], *text = NULL, *at;
	size_t len = 0;
	FILE *fp;
	struct bn_backend_open o = { .timeout_ms = T_MS, .retries = RETRIES };

	bn_test_path("profiles/instruments/rigol-dl3000.json", src, sizeof(src));
	fp = fopen(src, "r");
	assert_non_null(fp);
	assert_int_equal(getdelim(&text, &len, '\0', fp) > 0, 1);
	fclose(fp);
	at = strstr(text, ":SOUR:CURR:LEV %");
	assert_non_null(at);
	memcpy(at, ":SOUR:CURR:LVL %", 16);
	snprintf(file, sizeof(file), "%s/typo.json", f->dir);
	fp = fopen(file, "w");
	fputs(text, fp);
	fclose(fp);
	free(text);
	o.file = file;
	emu_start(f, "rigol-dl3000", NULL, NULL);
	snprintf(spec, sizeof(spec), "scpi:%s", f->e.path);
	assert_int_equal(bn_load_open(&ld, spec, &o, &f->err), BN_OK);
	assert_int_equal(ld.ops->set_current(ld.priv, 0.5, &f->err), BN_ERR_DATA);
	assert_msg_has(&f->err, ":SOUR:CURR:LVL 0.500: the instrument reports an error: "
				":SYST:ERR? gave \"-113,");
	bn_load_close(&ld);
}

/* ---- dialect files ---- */

static const char good[] =
	"{ \"name\": \"t\", \"kind\": \"load\", \"identify\": { \"query\": \"*IDN?\", "
	"\"expect\": \"T*\" }, \"commands\": { \"set_current\": \"CURR %.3f\", \"on\": \"INP ON\", "
	"\"off\": \"INP OFF\" }, \"queries\": { \"voltage\": { \"query\": \"MEAS:VOLT?\" }, "
	"\"current\": { \"query\": \"MEAS:CURR?\", \"unit\": \"A\" } }, \"safe\": [\"INP OFF\"] }";

static int load_text(struct fx *f, const char *text, struct bn_scpi_dialect *d, char *file,
		     size_t len)
{
	FILE *fp;

	snprintf(file, len, "%s/d.json", f->dir);
	fp = fopen(file, "w");
	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
	bn_err_clear(&f->err);
	return bn_scpi_dialect_load(file, d, &f->err);
}

/* good with "from" replaced by "to". */
static int load_edit(struct fx *f, const char *from, const char *to, struct bn_scpi_dialect *d,
		     char *file, size_t len)
{
	char text[2048];
	const char *at = strstr(good, from);

	assert_non_null(at);
	snprintf(text, sizeof(text), "%.*s%s%s", (int)(at - good), good, to, at + strlen(from));
	return load_text(f, text, d, file, len);
}

static void test_scpi__dialect_file_errors(void **state)
{
	struct fx *f = *state;
	static struct bn_scpi_dialect d;
	char file[128];
	static const struct {
		const char *from, *to, *msg;
	} cases[] = {
		{ "\"on\": \"INP ON\", ", "", "commands: missing key \"on\"" },
		{ "\"set_current\": \"CURR %.3f\", ", "", "commands: missing key \"set_current\"" },
		{ "CURR %.3f", "CURR %d", "key \"set_current\": \"CURR %d\": expected one number" },
		{ "CURR %.3f", "CURR %g %g", "key \"set_current\"" },
		{ "INP ON", "INP %g", "key \"on\": \"INP %g\": expected no placeholder" },
		{ "\"kind\": \"load\"", "\"kind\": \"meter\"", "key \"kind\": \"meter\"" },
		{ "\"commands\"", "\"comands\"", "unknown key \"comands\"" },
		{ "\"unit\": \"A\"", "\"units\": \"A\"", "queries.current: unknown key \"units\"" },
		{ ", \"expect\": \"T*\" ", " ", "identify: missing key \"expect\"" },
		{ "[\"INP OFF\"]", "[]", "key \"safe\": empty" },
		{ "[\"INP OFF\"]", "\"INP OFF\"", "key \"safe\": expected an array" },
		{ "\"name\": \"t\",", "\"name\": \"t\", \"baud\": 12.5,", "key \"baud\"" },
		{ "\"name\": \"t\",", "\"name\": \"t\", \"line_end\": \";\",", "key \"line_end\"" },
	};

	assert_int_equal(load_text(f, good, &d, file, sizeof(file)), BN_OK);
	assert_int_equal(d.kind, BN_SCPI_LOAD);
	assert_int_equal(d.baud, 9600);
	assert_string_equal(d.line_end, "\n");
	assert_string_equal(d.current.suffix, "A");
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		int rc = load_edit(f, cases[k].from, cases[k].to, &d, file, sizeof(file));

		if (rc != BN_ERR_DATA || !strstr(f->err.msg, cases[k].msg) ||
		    !strstr(f->err.msg, file))
			fail_msg("case %zu (%s -> %s): rc %d, \"%s\", expected \"%s\" naming %s", k,
				 cases[k].from, cases[k].to, rc, f->err.msg, cases[k].msg, file);
	}
	/* Not JSON: the line and column. */
	assert_int_equal(load_text(f, "{ \"name\": \"t\",\n  oops }", &d, file, sizeof(file)),
			 BN_ERR_DATA);
	assert_msg_has(&f->err, file);
	assert_msg_has(&f->err, ":2:");
	assert_msg_has(&f->err, "invalid JSON");
	/* No file. */
	bn_err_clear(&f->err);
	assert_int_equal(bn_scpi_dialect_load("/tmp/bn-no-such-dialect.json", &d, &f->err),
			 BN_ERR_IO);
	assert_msg_has(&f->err, "/tmp/bn-no-such-dialect.json");
}

/* Through the backend: the file's error comes back as it is. */
static void test_scpi__dialect_error_through_open(void **state)
{
	struct fx *f = *state;
	static struct bn_scpi_dialect d;
	char file[128];
	struct bn_load ld = { 0 };
	struct bn_backend_open o = { .timeout_ms = T_MS, .retries = RETRIES };

	load_edit(f, "\"on\": \"INP ON\", ", "", &d, file, sizeof(file));
	o.file = file;
	bn_err_clear(&f->err);
	assert_int_equal(bn_load_open(&ld, "scpi:/dev/bn-never-opened", &o, &f->err), BN_ERR_DATA);
	assert_msg_has(&f->err, file);
	assert_msg_has(&f->err, "missing key \"on\"");
	assert_null(ld.ops);
}

static void test_scpi__open_errors(void **state)
{
	struct fx *f = *state;
	char file[1024];
	struct bn_backend_open o = opener(file, sizeof(file), "rigol-dl3000");
	struct bn_backend_open none = { .timeout_ms = T_MS };
	struct bn_load ld = { 0 };

	assert_int_equal(bn_load_open(&ld, "scpi", &o, &f->err), BN_ERR_ARG);
	assert_msg_has(&f->err, "expected scpi:PORT[@BAUD]");
	bn_err_clear(&f->err);
	assert_int_equal(bn_load_open(&ld, "scpi:/dev/ttyUSB9@fast", &o, &f->err), BN_ERR_ARG);
	assert_msg_has(&f->err, "\"fast\" is not a baud rate");
	bn_err_clear(&f->err);
	assert_int_equal(bn_load_open(&ld, "scpi:/dev/ttyUSB9", &none, &f->err), BN_ERR_ARG);
	assert_msg_has(&f->err, "no dialect given");
	bn_err_clear(&f->err);
	assert_int_equal(bn_load_open(&ld, "scpi:/dev/bn-no-such-port", &o, &f->err), BN_ERR_FAULT);
	assert_msg_has(&f->err, "/dev/bn-no-such-port");
	assert_null(ld.ops);
}

/* Every shipped dialect file loads, and its name is its file's stem. */
static void test_scpi__shipped_dialects(void **state)
{
	struct fx *f = *state;
	static struct bn_scpi_dialect d;
	char dir[1024], file[1400];
	struct dirent *de;
	DIR *dp;
	int n = 0, loads = 0, supplies = 0;

	bn_test_path("profiles/instruments", dir, sizeof(dir));
	dp = opendir(dir);
	assert_non_null(dp);
	while ((de = readdir(dp))) {
		size_t l = strlen(de->d_name);

		if (l < 6 || strcmp(de->d_name + l - 5, ".json"))
			continue;
		snprintf(file, sizeof(file), "%s/%s", dir, de->d_name);
		bn_err_clear(&f->err);
		if (bn_scpi_dialect_load(file, &d, &f->err) < 0)
			fail_msg("%s", f->err.msg);
		if (strncmp(d.name, de->d_name, l - 5) || d.name[l - 5])
			fail_msg("%s: name \"%s\" is not the file's stem", file, d.name);
		assert_true(d.n_safe > 0);
		n++;
		loads += d.kind == BN_SCPI_LOAD;
		supplies += d.kind == BN_SCPI_SUPPLY;
	}
	closedir(dp);
	assert_true(loads >= 2);
	assert_true(supplies >= 2);
	assert_int_equal(n, loads + supplies);
}

static void test_scpi__parse_num(void **state)
{
	struct fx *f = *state;
	struct bn_scpi_query plain = { .query = "Q?" }, volts = { .query = "Q?", .suffix = "V" },
			     pre = { .query = "V1?", .prefix = "V1 " };
	double v = 0;

	assert_int_equal(bn_scpi_parse_num(&plain, " 4.9500 ", &v, "P: Q?", &f->err), BN_OK);
	assert_near(v, 4.95, 1e-12);
	assert_int_equal(bn_scpi_parse_num(&plain, "+1.5E-1", &v, "P: Q?", &f->err), BN_OK);
	assert_near(v, 0.15, 1e-12);
	assert_int_equal(bn_scpi_parse_num(&volts, "5.000V", &v, "P: Q?", &f->err), BN_OK);
	assert_near(v, 5.0, 1e-12);
	assert_int_equal(bn_scpi_parse_num(&pre, "V1 12.5", &v, "P: V1?", &f->err), BN_OK);
	assert_near(v, 12.5, 1e-12);
	assert_int_equal(bn_scpi_parse_num(&volts, "5.000", &v, "P: Q?", &f->err), BN_ERR_DATA);
	assert_msg_has(&f->err, "P: Q?: expected a number with unit \"V\", got \"5.000\"");
	bn_err_clear(&f->err);
	assert_int_equal(bn_scpi_parse_num(&plain, "5.0V", &v, "P: Q?", &f->err), BN_ERR_DATA);
	assert_msg_has(&f->err, "expected a number, got \"5.0V\"");
	bn_err_clear(&f->err);
	assert_int_equal(bn_scpi_parse_num(&plain, "nan", &v, "P: Q?", &f->err), BN_ERR_DATA);
	bn_err_clear(&f->err);
	assert_int_equal(bn_scpi_parse_num(&plain, "", &v, "P: Q?", &f->err), BN_ERR_DATA);
	assert_msg_has(&f->err, "got \"\"");
	assert_near(v, 12.5, 0); /* failures leave the output alone */
}

/* Run last: every emulator reaped, no descriptor left open. */
static int fds_at_start = -1;

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	while (d && readdir(d))
		n++;
	if (d)
		closedir(d);
	return n;
}

static void test_scpi__no_leaks(void **state)
{
	(void)state;
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
	assert_int_equal(count_fds(), fds_at_start);
}

static int group_setup(void **state)
{
	(void)state;
	fds_at_start = count_fds();
	return 0;
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_scpi__load_rigol_dl3000),
		T(test_scpi__load_itech_it8500),
		T(test_scpi__load_bk_8600),
		T(test_scpi__supply_rigol_dp800),
		T(test_scpi__supply_tti_cpx),
		T(test_scpi__dialect_by_name),
		T(test_scpi__stall_times_out),
		T(test_scpi__slow_instrument),
		T(test_scpi__garbage_reply),
		T(test_scpi__garbage_with_unit),
		T(test_scpi__vanished),
		T(test_scpi__load_over_tcp),
		T(test_scpi__load_over_usbtmc_path),
		T(test_scpi__tcp_vanished),
		T(test_scpi__link_errors),
		T(test_scpi__wrong_dialect),
		T(test_scpi__instrument_error),
		T(test_scpi__dialect_file_errors),
		T(test_scpi__dialect_error_through_open),
		T(test_scpi__open_errors),
		T(test_scpi__shipped_dialects),
		T(test_scpi__parse_num),
		cmocka_unit_test(test_scpi__no_leaks),
	};

	return cmocka_run_group_tests(tests, group_setup, NULL);
}
