/* bcbench selftest's checks (hil/selftest.c) on the FTDI backend and the
 * fake libftdi1, with a board model behind the fake: the inputs and a
 * meter computed from the decoded switch states. A healthy board passes
 * every check; each fault a lab meets (no relay supply, a dead VBUS
 * sense, a dead dock source, a lost chip, Ctrl-C) fails the check that
 * covers it and leaves the fixture safe. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/harness.h"
#include "fake/ftdi_fake.h"
#include "hil/backend.h"
#include "hil/fixture_def.h"
#include "hil/selftest.h"

/* What is wrong with the board. */
struct board {
	struct bn_fixture_def def;
	struct ftdi_fake fk;
	struct bn_fixture fx;
	bool no_relay_power, vbus_sense_dead, dock_source_dead;
	int stop_at_state;            /* raise the "signal" at this change */
	int changes;
	volatile sig_atomic_t stop;
	char *text;
	size_t text_len;
};

static bool on(const struct board *b, uint32_t state, const char *sig)
{
	return state & (1u << bn_fixture_def_signal(&b->def, sig));
}

/* ACBUS6 VBUS_SENSE, ACBUS7 RELAY_PWR_OK */
static void board_inputs(void *user, uint32_t old_state, uint32_t now)
{
	struct board *b = user;

	b->fk.input_levels = (uint16_t)((on(b, now, "VBUS_EN") && !b->vbus_sense_dead ? 0x4000 : 0) |
					(b->no_relay_power ? 0 : 0x8000));
	if (++b->changes == b->stop_at_state)
		b->stop = SIGINT;
}

static int board_meter(void *user, double v[BN_CH_COUNT], struct bn_err *err)
{
	struct board *b = user;
	uint32_t s = ftdi_fake_decode(&b->fk);

	v[BN_CH_VBUS] = on(b, s, "VBUS_EN") ? 5.02 : 0.01;
	v[BN_CH_DP] = 0.0;
	v[BN_CH_DM] = on(b, s, "DOCK_VDM_SRC") && !b->dock_source_dead ? 0.6 : 0.0;
	v[BN_CH_IBUS] = NAN;
	return BN_OK;
}

static struct board *board_new(void)
{
	struct board *b = calloc(1, sizeof(*b));
	struct bn_backend_open bo = { 0 };
	struct bn_err err = { 0 };
	char path[1024];

	bn_test_path("fixtures/bcbench-fixture-a.json", path, sizeof(path));
	if (bn_fixture_def_load(&b->def, path, &err) < 0)
		fail_msg("%s", err.msg);
	ftdi_fake_install(&b->fk, &b->def);
	b->fk.on_state = board_inputs;
	b->fk.user = b;
	board_inputs(b, 0, 0);
	bo.file = path;
	if (bn_fixture_open(&b->fx, "ftdi", &bo, &err) < 0)
		fail_msg("%s", err.msg);
	return b;
}

static int board_run(struct board *b, bool with_meter, struct bn_selftest_result *res,
		     struct bn_err *err)
{
	struct bn_selftest_meter m = { .measure = board_meter, .user = b };
	FILE *out = open_memstream(&b->text, &b->text_len);
	int rc;

	assert_non_null(out);
	rc = bn_selftest_run(&b->fx, &b->def, with_meter ? &m : NULL, &b->stop, out, res, err);
	fclose(out);
	return rc;
}

static void has_line(const struct board *b, const char *line)
{
	if (!strstr(b->text, line))
		fail_msg("selftest output lacks \"%s\":\n%s", line, b->text);
}

static void board_free(struct board *b)
{
	if (b->fk.violation[0])
		fail_msg("fake libftdi: %s", b->fk.violation);
	/* whatever happened, the pins show the safe state */
	assert_int_equal(ftdi_fake_decode(&b->fk), 0);
	bn_fixture_close(&b->fx);
	ftdi_fake_uninstall();
	free(b->text);
	free(b);
}

static void test_selftest__healthy_board_passes(void **state)
{
	struct board *b = board_new();
	struct bn_selftest_result res;
	struct bn_err err = { 0 };

	(void)state;
	assert_int_equal(board_run(b, true, &res, &err), BN_OK);
	if (res.fail)
		fail_msg("%d failed, first: %s\n%s", res.fail, res.first_fail, b->text);
	assert_int_equal(res.skip, 0);
	/* 8 ports with VBUS: 2 inputs on + 2 off; otg: 2 inputs (VBUS kept
	 * off is a note, not a check); 2 inputs in the safe state; plus one
	 * per expected channel (17) */
	assert_int_equal(res.pass, 8 * 4 + 2 + 2 + 17);
	has_line(b, "PASS  aca-dock: DM = 0.600 V with VBUS on, expected 0.500 to 0.700 V");
	has_line(b, "NOTE  otg: VBUS not switched on");
	has_line(b, "PASS  otg: VBUS = 0.010 V with VBUS off, expected 0.000 to 0.800 V");
	has_line(b, "PASS  sdp: input VBUS_SENSE reads 1, expected 1 (follows VBUS_EN)");
	has_line(b, "PASS  safe state: input RELAY_PWR_OK reads 1, expected 1 (always)");
	board_free(b);
}

static void test_selftest__no_meter_skips(void **state)
{
	struct board *b = board_new();
	struct bn_selftest_result res;
	struct bn_err err = { 0 };

	(void)state;
	assert_int_equal(board_run(b, false, &res, &err), BN_OK);
	assert_int_equal(res.fail, 0);
	assert_int_equal(res.skip, 9);
	has_line(b, "SKIP  cdp: network not measured (no capture device in bench.conf)");
	board_free(b);
}

static void test_selftest__faults_fail_their_check(void **state)
{
	struct bn_selftest_result res;
	struct bn_err err = { 0 };
	struct board *b;

	(void)state;
	b = board_new();
	b->no_relay_power = true;
	board_inputs(b, 0, 0);
	assert_int_equal(board_run(b, true, &res, &err), BN_OK);
	assert_int_equal(res.fail, 8 * 2 + 1 + 1);
	has_line(b, "FAIL  sdp: input RELAY_PWR_OK reads 0, expected 1 (always)");
	board_free(b);

	b = board_new();
	b->vbus_sense_dead = true;
	assert_int_equal(board_run(b, true, &res, &err), BN_OK);
	assert_int_equal(res.fail, 8);
	assert_non_null(strstr(res.first_fail, "input VBUS_SENSE reads 0, expected 1 (follows VBUS_EN)"));
	board_free(b);

	b = board_new();
	b->dock_source_dead = true;
	assert_int_equal(board_run(b, true, &res, &err), BN_OK);
	assert_int_equal(res.fail, 1);
	has_line(b, "FAIL  aca-dock: DM = 0.000 V with VBUS on, expected 0.500 to 0.700 V");
	board_free(b);
}

static void test_selftest__interrupted(void **state)
{
	struct board *b = board_new();
	struct bn_selftest_result res;
	struct bn_err err = { 0 };

	(void)state;
	b->stop_at_state = 3;
	assert_int_equal(board_run(b, true, &res, &err), BN_ERR_INTR);
	assert_msg_has(&err, "interrupted; the fixture is in its safe state");
	assert_true(res.pass < 10);
	board_free(b);
}

static void test_selftest__chip_lost(void **state)
{
	struct board *b = board_new();
	struct bn_selftest_result res;
	struct bn_err err = { 0 };

	(void)state;
	b->fk.fail_writes_from = b->fk.write_calls + 4;
	b->fk.fail_writes_until = b->fk.write_calls + 4;
	assert_int_equal(board_run(b, true, &res, &err), BN_ERR_FAULT);
	assert_msg_has(&err, "usb bulk write failed");
	board_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_selftest__healthy_board_passes),
		cmocka_unit_test(test_selftest__no_meter_skips),
		cmocka_unit_test(test_selftest__faults_fail_their_check),
		cmocka_unit_test(test_selftest__interrupted),
		cmocka_unit_test(test_selftest__chip_lost),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
