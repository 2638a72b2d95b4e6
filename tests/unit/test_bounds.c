/* What a run may ask for and what it does when its outputs cannot be
 * written, as pure functions: the scenario's bounds (steps, words on a
 * line, waits, windows, file size), the disk and memory estimate, the
 * capture rate bound, the exit code of every error, errno as a reader
 * needs it. Explicit tables; each figure worked out by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "capture/srzip_write.h"
#include "core/err.h"
#include "scenario/runner.h"
#include "scenario/scenario.h"

/* ---- the exit code of every error: one table ---- */

static void test_bounds__exit_codes(void **state)
{
	static const struct {
		int code, exit;
	} table[] = {
		{ BN_OK, 0 },
		{ BN_ERR_ARG, 2 },     { BN_ERR_DATA, 2 }, { BN_ERR_IO, 2 },  { BN_ERR_NA, 2 },
		{ BN_ERR_DUT, 3 },
		{ BN_ERR_TIMEOUT, 5 }, { BN_ERR_FAULT, 5 },
		{ BN_ERR_NOMEM, 6 }, { BN_ERR_BUG, 6 },
		/* an output that cannot be written: never the input's fault */
		{ BN_ERR_ENV, 6 },
		/* no signal known: SIGINT's */
		{ BN_ERR_INTR, 130 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		if (bn_err_exit_code(table[i].code) != table[i].exit)
			print_error("code %d (%s): exit %d, want %d\n", table[i].code,
				    bn_strerror(table[i].code), bn_err_exit_code(table[i].code),
				    table[i].exit);
		assert_int_equal(bn_err_exit_code(table[i].code), table[i].exit);
	}
	assert_string_equal(bn_strerror(BN_ERR_ENV), "output cannot be written");
	/* every errno of a failed write is the environment's, but memory */
	assert_int_equal(bn_err_from_write_errno(ENOSPC), BN_ERR_ENV);
	assert_int_equal(bn_err_from_write_errno(EFBIG), BN_ERR_ENV);
	assert_int_equal(bn_err_from_write_errno(EACCES), BN_ERR_ENV);
	assert_int_equal(bn_err_from_write_errno(EROFS), BN_ERR_ENV);
	assert_int_equal(bn_err_from_write_errno(EIO), BN_ERR_ENV);
	assert_int_equal(bn_err_from_write_errno(ENOMEM), BN_ERR_NOMEM);
}

static void test_bounds__errno_text_names_the_file_size_limit(void **state)
{
	struct rlimit old, lim;
	char buf[160];

	(void)state;
	assert_string_equal(bn_errno_text(ENOSPC, buf, sizeof(buf)), strerror(ENOSPC));
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	lim = old;
	lim.rlim_cur = 4096000;
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	bn_errno_text(EFBIG, buf, sizeof(buf));
	setrlimit(RLIMIT_FSIZE, &old);
	assert_non_null(strstr(buf, strerror(EFBIG)));
	assert_non_null(strstr(buf, "the file size limit (ulimit -f) is 4096000 bytes"));
	/* cut, never overrun */
	assert_string_equal(bn_errno_text(ENOSPC, buf, 5), "No s");
}

/* ---- the disk a capture needs ---- */

static void test_bounds__srw_estimate(void **state)
{
	/* frames x channels x 4 bytes once (the zip, stored at worst), 200
	 * bytes a member (one per channel per 65,536 frames), 4 KiB for
	 * version and metadata, and the pending file: 64 bytes and up to two
	 * chunks of frames (4 KiB at least) */
	static const struct {
		double rate_hz;
		int n_ch;
		double dur_s, bytes;
	} table[] = {
		/* dcp-weak: 80,000 frames, 4 ch, 2 chunks: 1,280,000 + 8 x 200 + 4096 + 64 + 1,280,000 */
		{ 10e3, 4, 8.0, 1280000.0 + 1600 + 4096 + 64 + 1280000 },
		/* 1 MHz x 45 min x 5 ch: 2.7e9 frames, 41,199 members a channel */
		{ 1e6, 5, 2700.0, 2.7e9 * 5 * 4 + 5 * 41199 * 200.0 + 4096 + 64 + 131072 * 5 * 4.0 },
		/* nothing captured: one empty member per channel, the first 4 KiB */
		{ 1e3, 2, 0.0, 400 + 4096 + 4096.0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		double got = bn_srw_estimate_bytes(table[i].rate_hz, table[i].n_ch, table[i].dur_s);

		if (fabs(got - table[i].bytes) > 0.5)
			print_error("row %zu: %.0f bytes, want %.0f\n", i, got, table[i].bytes);
		assert_true(fabs(got - table[i].bytes) <= 0.5);
	}
	assert_true(bn_srw_estimate_bytes(0, 4, 1) == 0);
	assert_true(bn_srw_estimate_bytes(1e3, 0, 1) == 0);
	assert_true(bn_srw_estimate_bytes(1e3, 4, -1) == 0);
	assert_true(bn_srw_estimate_bytes(1e3, 4, NAN) == 0);
}

static void parse_ok(const char *text, struct bn_scenario *scn)
{
	struct bn_err err = { 0 };
	int rc = bn_scenario_parse_text("e.scn", text, scn, &err);

	if (rc != BN_OK)
		print_error("%s\n", err.msg);
	assert_int_equal(rc, BN_OK);
}

static void test_bounds__run_estimate(void **state)
{
	struct bn_scenario scn;
	struct bn_run_estimate e;

	(void)state;
	parse_ok("capture vbus ibus dp at 20kHz\n"
		 "vbus on\nwait 2s\nexpect avg(ibus, 500ms) > 0A\n"
		 "move cdp\nwait 1500ms\nexpect max(vbus, 2s) < 6V\nunplug\nwait 250ms\n",
		 &scn);
	/* waits 3.75 s and one move away 0.5 s */
	assert_int_equal(bn_scenario_duration_us(&scn, 500000), 4250000);
	assert_int_equal(bn_scenario_duration_us(&scn, 0), 3750000);
	assert_int_equal(bn_run_estimate(&scn, 20e3, scn.capture_mask, 0.5, &e), BN_OK);
	assert_int_equal(e.n_ch, 3);
	assert_true(e.dur_s == 4.25);
	assert_true(e.rate_hz == 20e3);
	assert_true(e.disk_bytes == bn_srw_estimate_bytes(20e3, 3, 4.25) + BN_RUN_ESTIMATE_SLACK);
	/* the longest window, 2 s: 40,002 samples of every channel in doubles */
	assert_true(e.window_bytes == 40002.0 * BN_CH_COUNT * 8);
	bn_scenario_free(&scn);

	/* wait 1000h's neighbour within the parser's bound, 100 h, at 1 MHz
	 * on 5 channels: 3.6e11 frames, 7.2 TB (the zip stored at worst) and
	 * 0.2 % of headers, more than any bench's disk */
	parse_ok("capture vbus ibus dp dm id at 1MHz\nvbus on\nwait 100h\n", &scn);
	bn_run_estimate(&scn, scn.capture_rate_hz, scn.capture_mask, 0.1, &e);
	assert_true(e.disk_bytes > 7.2e12 && e.disk_bytes < 7.3e12);
	bn_scenario_free(&scn);

	/* 45 min windows at 100 kHz: 5 GiB of window, above the bound */
	parse_ok("capture vbus ibus at 100kHz\nvbus on\nwait 45min\nexpect avg(ibus, 45min) > 0A\n",
		 &scn);
	bn_run_estimate(&scn, scn.capture_rate_hz, scn.capture_mask, 0.1, &e);
	assert_true(e.window_bytes > BN_RUN_MAX_WINDOW_BYTES);
	bn_scenario_free(&scn);
}

static void test_bounds__rate_check(void **state)
{
	struct bn_scn_loc loc = { 4, 1 }, none = { 0, 0 };
	struct bn_err err = { 0 };

	(void)state;
	assert_int_equal(bn_run_rate_check("a.scn", &loc, 1e6, 1e6, "the sim", &err), BN_OK);
	assert_int_equal(bn_run_rate_check("a.scn", &loc, 10e3, 1e6, "the sim", &err), BN_OK);
	assert_int_equal(bn_run_rate_check("a.scn", &loc, 1e9, 1e6, "the sim", &err), BN_ERR_DATA);
	assert_string_equal(err.msg,
			    "a.scn:4:1: error: capture rate 1e+09 Hz is above the maximum of the sim, "
			    "1e+06 Hz");
	bn_err_clear(&err);
	/* the default rate (no capture statement): the file's first line */
	assert_int_equal(bn_run_rate_check("b.scn", &none, 2e6, 1e6, "x", &err), BN_ERR_DATA);
	assert_non_null(strstr(err.msg, "b.scn:1:1: error:"));
}

/* ---- the scenario's bounds, each an error at its place ---- */

static void expect_error(const char *text, const char *msg_part)
{
	struct bn_scenario scn;
	struct bn_err err = { 0 };
	int rc = bn_scenario_parse_text("x.scn", text, &scn, &err);

	if (rc != BN_ERR_DATA || !strstr(err.msg, msg_part))
		print_error("rc %d, message:\n  %s\nwanted:\n  %s\n", rc, err.msg, msg_part);
	assert_int_equal(rc, BN_ERR_DATA);
	assert_non_null(strstr(err.msg, msg_part));
	assert_null(scn.steps);
}

static char *repeat(const char *head, const char *line, int n)
{
	size_t len = strlen(head) + strlen(line) * (size_t)n + 1;
	char *s = malloc(len), *p = s;

	assert_non_null(s);
	p += sprintf(p, "%s", head);
	for (int i = 0; i < n; i++)
		p += sprintf(p, "%s", line);
	return s;
}

static void test_bounds__scenario_limits(void **state)
{
	struct bn_scenario scn;
	char *text;

	(void)state;
	/* waits: 168 h each and together */
	parse_ok("vbus on\nwait 168h\n", &scn);
	bn_scenario_free(&scn);
	expect_error("vbus on\nwait 1000h\n", "x.scn:2:6: error: wait of \"1000h\" is longer than 168 h");
	expect_error("vbus on\nwait 100h\nwait 68h\nwait 1s\n",
		     "x.scn:4:6: error: the waits add up to more than 168 h");
	expect_error("vbus on\nwait 1s\nexpect avg(ibus, 200h) > 0A\n",
		     "x.scn:3:18: error: window of \"200h\" is longer than 168 h");

	/* actions: 10000 */
	text = repeat("vbus on\n", "wait 1ms\n", BN_SCN_MAX_STEPS - 1);
	parse_ok(text, &scn);
	assert_int_equal(scn.n_steps, BN_SCN_MAX_STEPS);
	bn_scenario_free(&scn);
	free(text);
	text = repeat("vbus on\n", "wait 1ms\n", BN_SCN_MAX_STEPS);
	expect_error(text, "x.scn:10001:1: error: more than 10000 actions in one scenario");
	free(text);

	/* words on a line: 64 */
	text = repeat("vbus on\ncheck", " bc12.det.port_type", 16);
	parse_ok(text, &scn);
	bn_scenario_free(&scn);
	free(text);
	text = repeat("vbus on\ncheck", " x", BN_SCN_MAX_TOKENS);
	expect_error(text, "x.scn:2:133: error: more than 64 words on one line");
	free(text);
}

static void test_bounds__scenario_file_size(void **state)
{
	char path[] = "/tmp/bn_test_bounds.XXXXXX";
	struct bn_scenario scn;
	struct bn_err err = { 0 };
	int fd = mkstemp(path);
	char *text = repeat("vbus on\n", "# a comment line of forty bytes.......\n",
			    BN_SCN_MAX_BYTES / 39 + 1);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	assert_int_equal(bn_scenario_parse_file(path, &scn, &err), BN_ERR_DATA);
	assert_non_null(strstr(err.msg, "more than a scenario may have (1048576)"));
	unlink(path);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bounds__exit_codes),
		cmocka_unit_test(test_bounds__errno_text_names_the_file_size_limit),
		cmocka_unit_test(test_bounds__srw_estimate),
		cmocka_unit_test(test_bounds__run_estimate),
		cmocka_unit_test(test_bounds__rate_check),
		cmocka_unit_test(test_bounds__scenario_limits),
		cmocka_unit_test(test_bounds__scenario_file_size),
	};

	return cmocka_run_group_tests_name("bounds", tests, NULL, NULL);
}
