/* bcbench with the fake FTDI chip in its own process, for integration
 * scripts that drive the real FTDI fixture backend from the command line
 * (tests/integration/curve.sh). Linked with the fake libftdi1's --wrap
 * seam (tests/unit/test_sweep.mk). Before main the fake is installed as
 * the chip the next ftdi_new finds, reading the pins as
 * $BN_FAKE_FTDI_FIXTURE (a fixture file) says; the board's inputs are
 * fixture A's: VBUS_SENSE (ACBUS6) follows VBUS_EN, RELAY_PWR_OK
 * (ACBUS7) is high. $BN_FAKE_FTDI_LOG gets one line per change of the
 * signals ("t_us NAMES"), then at exit "close: NAMES" (the signals when
 * the USB handle went), "end: NAMES" and "violation: ..." when the
 * backend broke a rule of the chip. Without $BN_FAKE_FTDI_FIXTURE no
 * chip is there. */
#include <stdio.h>
#include <stdlib.h>

#include "fake/ftdi_fake.h"
#include "hil/fixture_def.h"

static struct bn_fixture_def g_def;
static struct ftdi_fake g_fk;
static FILE *g_log;
static int g_vbus_bit = -1;

static void on_state(void *user, uint32_t old_state, uint32_t new_state)
{
	char names[512];

	g_fk.input_levels = (uint16_t)(0x8000 | (g_vbus_bit >= 0 && (new_state >> g_vbus_bit & 1)
						 ? 0x4000 : 0));
	if (!g_log)
		return;
	ftdi_fake_names(&g_fk, new_state, names, sizeof(names));
	fprintf(g_log, "%lld %s\n", (long long)ftdi_fake_now_us(&g_fk), names[0] ? names : "-");
	fflush(g_log);
}

__attribute__((constructor)) static void fake_install(void)
{
	const char *file = getenv("BN_FAKE_FTDI_FIXTURE"), *log = getenv("BN_FAKE_FTDI_LOG");
	struct bn_err err = { 0 };

	if (!file)
		return;
	if (bn_fixture_def_load(&g_def, file, &err) < 0) {
		fprintf(stderr, "fake ftdi: %s\n", err.msg);
		exit(70);
	}
	ftdi_fake_install(&g_fk, &g_def);
	g_vbus_bit = bn_fixture_def_signal(&g_def, "VBUS_EN");
	g_fk.input_levels = 0x8000;
	g_fk.on_state = on_state;
	if (log)
		g_log = fopen(log, "a");
}

__attribute__((destructor)) static void fake_report(void)
{
	char names[512];

	if (!g_log)
		return;
	ftdi_fake_names(&g_fk, g_fk.state_at_close, names, sizeof(names));
	fprintf(g_log, "close: %s\n", names[0] ? names : "-");
	ftdi_fake_names(&g_fk, ftdi_fake_decode(&g_fk), names, sizeof(names));
	fprintf(g_log, "end: %s\n", names[0] ? names : "-");
	if (g_fk.violation[0])
		fprintf(g_log, "violation: %s\n", g_fk.violation);
	fclose(g_log);
}
