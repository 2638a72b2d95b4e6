/* The telemetry console: the line parser on every record type, unknown
 * keys and tags, and each kind of malformed line; then the backend on a
 * pseudo-terminal, fed by a child process in pieces (a record split
 * across writes, CRLF, a lone CR, a long garbage line, a log line): the
 * records come out in order, bad lines are counted, silence is a
 * time-out and a vanished device is BN_ERR_IO. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/harness.h"
#include "hil/console.h"

static int parse(const char *line, struct bn_con_rec *r, struct bn_err *err)
{
	bn_err_clear(err);
	memset(r, 0x5a, sizeof(*r));
	return bn_console_parse_line(line, r, err);
}

static void test_console__records(void **state)
{
	struct bn_con_rec r;
	struct bn_err err = { 0 };

	(void)state;
	assert_int_equal(parse("bc12 port=DCP ilim_ma=1500 vbus_mv=4920", &r, &err), 1);
	assert_int_equal(r.kind, BN_CON_PORT);
	assert_int_equal(r.port, BN_PORT_DCP);
	assert_int_equal(r.ilim_ma, 1500);
	assert_int_equal(r.vbus_mv, 4920);
	assert_string_equal(r.state, "");
	assert_int_equal(r.bat_mv, BN_CON_ABSENT);

	assert_int_equal(parse("bc12 port=aca_a state=charging\r\n", &r, &err), 1);
	assert_int_equal(r.port, BN_PORT_ACA_A);
	assert_string_equal(r.state, "charging");
	assert_int_equal(r.ilim_ma, BN_CON_ABSENT);
	assert_int_equal(parse("bc12 port=unknown", &r, &err), 1);
	assert_int_equal(r.port, BN_PORT_UNKNOWN);

	assert_int_equal(parse("bc12 state=primary_detect", &r, &err), 1);
	assert_int_equal(r.kind, BN_CON_STATE);
	assert_string_equal(r.state, "primary_detect");

	assert_int_equal(parse("bat mv=3810 ma=-120 soc_pct=42", &r, &err), 1);
	assert_int_equal(r.kind, BN_CON_BAT);
	assert_int_equal(r.bat_mv, 3810);
	assert_int_equal(r.bat_ma, -120);
	assert_int_equal(r.soc_pct, 42);

	assert_int_equal(parse("cfg\tvalue=1   max_power_ma=500", &r, &err), 1);
	assert_int_equal(r.kind, BN_CON_CFG);
	assert_int_equal(r.cfg_value, 1);
	assert_int_equal(r.max_power_ma, 500);
	assert_int_equal(parse("cfg value=0", &r, &err), 1);
	assert_int_equal(r.cfg_value, 0);
	assert_int_equal(r.max_power_ma, BN_CON_ABSENT);
}

/* Forward compatible: what this bench does not know is ignored. */
static void test_console__unknown_ignored(void **state)
{
	struct bn_con_rec r;
	struct bn_err err = { 0 };

	(void)state;
	assert_int_equal(parse("bc12 port=cdp hvdcp=none ilim_ma=1500 rev=2", &r, &err), 1);
	assert_int_equal(r.port, BN_PORT_CDP);
	assert_int_equal(r.ilim_ma, 1500);
	assert_int_equal(parse("pd contract=9000mV", &r, &err), 0);    /* an unknown record */
	assert_int_equal(parse("[   12.345] charger: bc12 done", &r, &err), 0); /* a log */
	assert_int_equal(parse("bc12x port=dcp", &r, &err), 0);       /* not the tag */
	assert_int_equal(parse("", &r, &err), 0);
	assert_int_equal(parse(" bc12 port=dcp", &r, &err), 0);       /* tags start the line */
	assert_int_equal(err.code, 0);
}

static void expect_bad(const char *line, const char *msg)
{
	struct bn_con_rec r;
	struct bn_err err = { 0 };
	char quoted[600];

	if (parse(line, &r, &err) != BN_ERR_DATA)
		fail_msg("\"%s\" was not refused", line);
	snprintf(quoted, sizeof(quoted), "console line \"%.40s", line);
	assert_msg_has(&err, quoted);
	assert_msg_has(&err, msg);
}

static void test_console__malformed(void **state)
{
	char long_line[700];

	(void)state;
	expect_bad("bc12 port=DCP ilim_ma=15x0", "ilim_ma \"15x0\": not a number");
	expect_bad("bc12 port=DCP ilim_ma=", "ilim_ma \"\": not a number");
	expect_bad("bc12 port=DCP ilim_ma=+5", "not a number");
	expect_bad("bc12 port=DCP ilim_ma=99999", "ilim_ma 99999: out of range 0..10000");
	expect_bad("bc12 port=DCP vbus_mv=-1", "vbus_mv -1: out of range");
	expect_bad("bc12 port=DCP ilim_ma=99999999999999999999", "not a number");
	expect_bad("bc12 ilim_ma=1500 vbus_mv=4920", "bc12: missing port=");
	expect_bad("bc12", "bc12: missing port=");
	expect_bad("bc12 port=USB3", "port \"USB3\": not a port type");
	expect_bad("bc12 port=dcp garbage", "token \"garbage\" is not key=value");
	expect_bad("bc12 port=dcp =5", "token \"=5\" is not key=value");
	expect_bad("bc12 state=a/b", "state \"a/b\": expected a word");
	expect_bad("bat ma=100", "bat: missing mv=");
	expect_bad("bat mv=3800 soc_pct=101", "soc_pct 101: out of range 0..100");
	expect_bad("cfg max_power_ma=500", "cfg: missing value=");
	expect_bad("cfg value=256", "value 256: out of range 0..255");
	memset(long_line, 'x', sizeof(long_line));
	memcpy(long_line, "bc12 port=dcp junk=", 19);
	long_line[sizeof(long_line) - 1] = 0;
	expect_bad(long_line, "longer than 511 bytes");
}

/* ---- the backend on a pty ---- */

static double mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void put(int fd, const char *s)
{
	size_t n = strlen(s);

	while (n) {
		ssize_t w = write(fd, s, n);

		if (w <= 0)
			_exit(3);
		s += w;
		n -= (size_t)w;
	}
	usleep(20 * 1000); /* let the reader see the pieces apart */
}

/* The device: writes its console in pieces, then waits for the test to
 * let it go (so nothing is lost by a hang-up before it was read). */
static void device(int master, int go)
{
	char garbage[1500];
	char c;

	memset(garbage, '#', sizeof(garbage));
	garbage[sizeof(garbage) - 1] = 0;
	put(master, "boot: fw 1.2 starting\r\n");
	put(master, "bc12 st");
	put(master, "ate=dcd\r\n");
	put(master, garbage);
	put(master, garbage);
	put(master, "\n");
	put(master, "bc12 port=DCP ilim_ma=15x0\n");
	put(master, "bc12 port=DCP ilim_ma=1500 vbus_mv=4920 future=1\r\n");
	put(master, "bat mv=3810 ma=-120\r");
	put(master, "\ncfg value=1 max_power_ma=500\n");
	(void)read(go, &c, 1);
	_exit(0);
}

static void test_console__pty_backend(void **state)
{
	int master, slave, go[2];
	char name[256], spec[300];
	struct bn_console *con;
	struct bn_con_rec r;
	struct bn_err err = { 0 };
	const char *last;
	double t0;
	pid_t pid;
	int st;

	(void)state;
	assert_int_equal(openpty(&master, &slave, name, NULL, NULL), 0);
	snprintf(spec, sizeof(spec), "%s@115200", name);
	assert_int_equal(bn_console_open(spec, &con, &err), BN_OK);
	close(slave); /* the console holds its own */
	assert_int_equal(pipe(go), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(go[1]);
		device(master, go[0]);
	}
	close(go[0]);
	close(master);

	assert_int_equal(bn_console_next(con, &r, 5000, &err), BN_OK);
	assert_int_equal(r.kind, BN_CON_STATE);
	assert_string_equal(r.state, "dcd");
	assert_int_equal(bn_console_skipped(con), 1);
	assert_int_equal(bn_console_next(con, &r, 5000, &err), BN_OK);
	assert_int_equal(r.kind, BN_CON_PORT);
	assert_int_equal(r.port, BN_PORT_DCP);
	assert_int_equal(r.ilim_ma, 1500);
	assert_int_equal(r.vbus_mv, 4920);
	/* The garbage line and the bad number before it: counted, not fatal. */
	assert_int_equal(bn_console_malformed(con, &last), 2);
	assert_non_null(strstr(last, "ilim_ma \"15x0\": not a number"));
	assert_int_equal(bn_console_next(con, &r, 5000, &err), BN_OK);
	assert_int_equal(r.kind, BN_CON_BAT);
	assert_int_equal(r.bat_ma, -120);
	assert_int_equal(bn_console_next(con, &r, 5000, &err), BN_OK);
	assert_int_equal(r.kind, BN_CON_CFG);
	assert_int_equal(r.max_power_ma, 500);

	/* Silence: a time-out, not before its time. */
	t0 = mono_ms();
	assert_int_equal(bn_console_next(con, &r, 200, &err), BN_ERR_TIMEOUT);
	assert_true(mono_ms() - t0 >= 199);
	assert_msg_has(&err, "no telemetry within 200 ms");

	/* The device goes away: the console says so. */
	close(go[1]);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	bn_err_clear(&err);
	assert_int_equal(bn_console_next(con, &r, 2000, &err), BN_ERR_IO);
	assert_msg_has(&err, name);
	bn_console_close(con);
}

static void test_console__open_errors(void **state)
{
	struct bn_console *con;
	struct bn_err err = { 0 };

	(void)state;
	assert_int_equal(bn_console_open("/dev/ttyACM0@fast", &con, &err), BN_ERR_ARG);
	assert_msg_has(&err, "console \"/dev/ttyACM0@fast\": baud \"fast\"");
	assert_null(con);
	bn_err_clear(&err);
	assert_int_equal(bn_console_open("@9600", &con, &err), BN_ERR_ARG);
	assert_msg_has(&err, "expected PORT[@BAUD]");
	bn_err_clear(&err);
	assert_int_equal(bn_console_open("/nonexistent/ttyX", &con, &err), BN_ERR_FAULT);
	assert_msg_has(&err, "/nonexistent/ttyX");
	assert_null(con);
	bn_console_close(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_console__records),
		cmocka_unit_test(test_console__unknown_ignored),
		cmocka_unit_test(test_console__malformed),
		cmocka_unit_test(test_console__pty_backend),
		cmocka_unit_test(test_console__open_errors),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
