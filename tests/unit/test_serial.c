#define _GNU_SOURCE /* posix_openpt, ptsname */
/* The serial line (hil/serial.h) on a pseudo-terminal made here: line
 * ends, buffering, over-long lines, time-outs, flushing, and the other
 * end going away, each with the port named in the message. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <fcntl.h>
#include <sys/ioctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/harness.h"
#include "hil/serial.h"

#define T_MS 50

struct pty {
	int master;
	char path[64];
	struct bn_serial *s;
	struct bn_err err;
};

static int setup(void **state)
{
	struct pty *p = calloc(1, sizeof(*p));

	if (!p)
		return -1;
	p->master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (p->master < 0 || grantpt(p->master) < 0 || unlockpt(p->master) < 0)
		return -1;
	snprintf(p->path, sizeof(p->path), "%s", ptsname(p->master));
	if (bn_serial_open(p->path, 115200, &p->s, &p->err) < 0) {
		print_error("%s\n", p->err.msg);
		return -1;
	}
	*state = p;
	return 0;
}

static int teardown(void **state)
{
	struct pty *p = *state;

	bn_serial_close(p->s);
	if (p->master >= 0)
		close(p->master);
	free(p);
	return 0;
}

static void feed(struct pty *p, const char *s)
{
	assert_int_equal(write(p->master, s, strlen(s)), (ssize_t)strlen(s));
}

static int line(struct pty *p, char *buf, size_t cap)
{
	bn_err_clear(&p->err);
	return bn_serial_read_line(p->s, buf, cap, T_MS, &p->err);
}

static void test_serial__line_ends(void **state)
{
	struct pty *p = *state;
	char buf[64];

	assert_string_equal(bn_serial_path(p->s), p->path);
	feed(p, "one\r\ntwo\nthree\rfour\r");
	assert_int_equal(line(p, buf, sizeof(buf)), 3);
	assert_string_equal(buf, "one");
	assert_int_equal(line(p, buf, sizeof(buf)), 3);
	assert_string_equal(buf, "two");
	assert_int_equal(line(p, buf, sizeof(buf)), 5);
	assert_string_equal(buf, "three");
	assert_int_equal(line(p, buf, sizeof(buf)), 4);
	assert_string_equal(buf, "four");
	/* The '\n' of a "\r\n" that comes in a later write is not a line. */
	feed(p, "\nfive\n");
	assert_int_equal(line(p, buf, sizeof(buf)), 4);
	assert_string_equal(buf, "five");
	/* An empty line is a line. */
	feed(p, "\n");
	assert_int_equal(line(p, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
}

static void test_serial__partial_line_waits(void **state)
{
	struct pty *p = *state;
	char buf[64];

	feed(p, "5.0");
	assert_int_equal(line(p, buf, sizeof(buf)), BN_ERR_TIMEOUT);
	assert_msg_has(&p->err, p->path);
	assert_msg_has(&p->err, "read: timed out after 50 ms");
	assert_msg_has(&p->err, "3 bytes without a line end");
	/* What came before the time-out is kept. */
	feed(p, "00V\r\n");
	assert_int_equal(line(p, buf, sizeof(buf)), 6);
	assert_string_equal(buf, "5.000V");
	assert_int_equal(line(p, buf, sizeof(buf)), BN_ERR_TIMEOUT);
	assert_msg_has(&p->err, "read: timed out after 50 ms");
}

static void test_serial__too_long(void **state)
{
	struct pty *p = *state;
	char buf[8];

	feed(p, "0123456789\nok\n");
	assert_int_equal(line(p, buf, sizeof(buf)), BN_ERR_DATA);
	assert_msg_has(&p->err, p->path);
	assert_msg_has(&p->err, "longer than 7 bytes");
	assert_int_equal(line(p, buf, sizeof(buf)), 2);
	assert_string_equal(buf, "ok");
	/* Too long before its end has come: the rest is dropped when it does. */
	feed(p, "abcdefghij");
	assert_int_equal(line(p, buf, sizeof(buf)), BN_ERR_DATA);
	feed(p, "klm\nnext\n");
	assert_int_equal(line(p, buf, sizeof(buf)), 4);
	assert_string_equal(buf, "next");
}

static void test_serial__flush_input(void **state)
{
	struct pty *p = *state;
	char buf[64];

	/* One write arrives as one chunk: once its first line is read, the
	 * rest is in the buffer or the kernel's queue. */
	feed(p, "stale\nstale too\npart");
	assert_int_equal(line(p, buf, sizeof(buf)), 5);
	bn_serial_flush_input(p->s);
	feed(p, "fresh\n");
	assert_int_equal(line(p, buf, sizeof(buf)), 5);
	assert_string_equal(buf, "fresh");
}

static void test_serial__write(void **state)
{
	struct pty *p = *state;
	char got[16] = { 0 };
	ssize_t n;

	assert_int_equal(bn_serial_write(p->s, "*IDN?\n", 6, T_MS, &p->err), BN_OK);
	n = read(p->master, got, sizeof(got) - 1);
	assert_int_equal(n, 6);
	assert_string_equal(got, "*IDN?\n");
}

/* Nobody reads the other end: the pty's buffer fills, the write times out. */
static void test_serial__write_times_out(void **state)
{
	struct pty *p = *state;
	static char big[1 << 20];

	memset(big, 'x', sizeof(big));
	assert_int_equal(bn_serial_write(p->s, big, sizeof(big), T_MS, &p->err), BN_ERR_TIMEOUT);
	assert_msg_has(&p->err, p->path);
	assert_msg_has(&p->err, "write: timed out after 50 ms");
}

static void test_serial__hang_up(void **state)
{
	struct pty *p = *state;
	char buf[64];

	close(p->master);
	p->master = -1;
	assert_int_equal(line(p, buf, sizeof(buf)), BN_ERR_IO);
	assert_msg_has(&p->err, p->path);
	assert_msg_has(&p->err, "read: the other end is gone");
	bn_err_clear(&p->err);
	assert_int_equal(bn_serial_write(p->s, "x\n", 2, T_MS, &p->err), BN_ERR_IO);
	assert_msg_has(&p->err, "write: the other end is gone");
}

/* A name for the pty that is not under /dev (as /dev/serial/by-id/...
 * names are symlinks) opens the same port and keeps its own name. */
static void test_serial__symlink(void **state)
{
	struct pty *p = *state;
	char dir[] = "/tmp/bn-serial-XXXXXX", link[64], buf[16];
	struct bn_serial *s = NULL;

	/* the port serves one program at a time: the fixture's open first */
	bn_serial_close(p->s);
	p->s = NULL;
	assert_non_null(mkdtemp(dir));
	snprintf(link, sizeof(link), "%s/ttyINSTR", dir);
	assert_int_equal(symlink(p->path, link), 0);
	assert_int_equal(bn_serial_open(link, 0, &s, &p->err), BN_OK);
	assert_string_equal(bn_serial_path(s), link);
	feed(p, "hi\n");
	assert_int_equal(bn_serial_read_line(s, buf, sizeof(buf), T_MS, &p->err), 2);
	bn_serial_close(s);
	unlink(link);
	rmdir(dir);
}

/* A second open of a port that is open is refused, naming the port, as a
 * bench fault (exit 3), root or not (flock); the first keeps working, and
 * the port is free again once closed. TIOCEXCL against other programs is
 * tested unprivileged in tests/integration/faults.sh. */
static void test_serial__exclusive(void **state)
{
	struct pty *p = *state;
	struct bn_serial *s = (struct bn_serial *)p; /* must come back NULL */
	struct bn_err err = { 0 };
	char buf[16];

	assert_int_equal(bn_serial_open(p->path, 0, &s, &err), BN_ERR_FAULT);
	assert_null(s);
	assert_msg_has(&err, p->path);
	assert_msg_has(&err, "in use by another program");
	feed(p, "still\n");
	assert_int_equal(line(p, buf, sizeof(buf)), 5);
	bn_serial_close(p->s);
	p->s = NULL;
	bn_err_clear(&err);
	assert_int_equal(bn_serial_open(p->path, 0, &s, &err), BN_OK);
	bn_serial_close(s);
}

/* TIOCEXCL is the port's while it is open, and cleared at the close: a
 * tty that stays open elsewhere (a pseudo-terminal's slave while its
 * master lives, as an instrument emulator holds it) keeps the flag, and
 * the next unprivileged bcbench would be refused the port (EBUSY). */
static void test_serial__exclusive_cleared_at_close(void **state)
{
	int master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC), held, excl = -1;
	struct bn_serial *s = NULL;
	struct bn_err err = { 0 };

	(void)state;
	assert_true(master >= 0 && grantpt(master) == 0 && unlockpt(master) == 0);
	held = open(ptsname(master), O_RDWR | O_NOCTTY | O_CLOEXEC); /* before the flag */
	assert_true(held >= 0);
	assert_int_equal(bn_serial_open(ptsname(master), 115200, &s, &err), BN_OK);
	assert_int_equal(ioctl(held, TIOCGEXCL, &excl), 0);
	assert_int_equal(excl, 1);
	bn_serial_close(s);
	assert_int_equal(ioctl(held, TIOCGEXCL, &excl), 0);
	assert_int_equal(excl, 0);
	close(held);
	close(master);
}

static void test_serial__open_errors(void **state)
{
	struct pty *p = *state;
	struct bn_serial *s = (struct bn_serial *)p; /* must come back NULL */
	struct bn_err err = { 0 };

	assert_int_equal(bn_serial_open("/dev/bn-no-such-port", 9600, &s, &err), BN_ERR_IO);
	assert_null(s);
	assert_msg_has(&err, "/dev/bn-no-such-port: open:");
	bn_err_clear(&err);
	assert_int_equal(bn_serial_open("/dev/null", 9600, &s, &err), BN_ERR_ARG);
	assert_msg_has(&err, "/dev/null: not a serial port");
	bn_err_clear(&err);
	assert_int_equal(bn_serial_open(p->path, 12345, &s, &err), BN_ERR_ARG);
	assert_msg_has(&err, p->path);
	assert_msg_has(&err, "baud rate 12345");
	bn_err_clear(&err);
	assert_int_equal(bn_serial_open("", 9600, &s, &err), BN_ERR_ARG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_serial__line_ends, setup, teardown),
		cmocka_unit_test_setup_teardown(test_serial__partial_line_waits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_serial__too_long, setup, teardown),
		cmocka_unit_test_setup_teardown(test_serial__flush_input, setup, teardown),
		cmocka_unit_test_setup_teardown(test_serial__write, setup, teardown),
		cmocka_unit_test_setup_teardown(test_serial__write_times_out, setup, teardown),
		cmocka_unit_test_setup_teardown(test_serial__hang_up, setup, teardown),
		cmocka_unit_test_setup_teardown(test_serial__symlink, setup, teardown),
		cmocka_unit_test(test_serial__exclusive_cleared_at_close),
		cmocka_unit_test_setup_teardown(test_serial__exclusive, setup, teardown),
		cmocka_unit_test_setup_teardown(test_serial__open_errors, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
