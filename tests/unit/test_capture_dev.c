/* A run captured by a real sigrok device (libsigrok's demo driver): the
 * plumbing works (the mapped channels are what is judged and written,
 * frames arrive at the device's rate, capture.sr reads back), and since
 * the demo's waveforms have nothing to do with a device, no rule that
 * judges samples passes on them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/harness.h"
#include "capture/srzip_read.h"
#include "checks/check.h"
#include "report/report.h"
#include "scenario/runner.h"

static void test_capture_dev__demo_driver_run(void **state)
{
	char dir[] = "/tmp/bn-capdev-XXXXXX", scn[600], cap[600], cmd[700];
	struct bn_sigrok_cap_opts dev = { .driver = "demo", .rate_hz = 20000 };
	struct bn_run_opts o = { .datadir = bn_test_srcdir(), .capture_dev = &dev };
	struct bn_report rep;
	struct bn_err err = { 0 };
	struct bn_srr *r;
	int judged_on_samples = 0;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(scn, sizeof(scn), "%s/demo.scn", dir);
	f = fopen(scn, "w");
	assert_non_null(f);
	fputs("name \"demo capture\"\nport dcp\ncapture vbus ibus dp dm at 10kHz\n"
	      "vbus on\nwait 500ms\nexpect avg(vbus, 100ms) >= 4.75V\nvbus off\nwait 50ms\n",
	      f);
	fclose(f);
	o.scenario_path = scn;
	o.out_dir = dir;
	bn_chanmap_default(&dev.map);
	assert_int_equal(bn_chanmap_parse("VBUS=A0,IBUS=A1:shunt=1,DP=A2,DM=A3", &dev.map, "test", &err),
			 BN_OK);

	bn_report_init(&rep);
	assert_int_equal(bn_run_scenario(&o, &rep, &err), BN_OK);
	assert_int_equal(rep.status, BN_RUN_COMPLETED);
	assert_non_null(strstr(rep.capture_source, "sigrok:demo"));
	/* The device's rate and channels, not the scenario's. */
	assert_true(rep.rate_hz == 20000);
	assert_int_equal(rep.channel_mask, 0xfu);
	/* Paced to wall time: about 0.55 s of frames (the demo catches up in
	 * 100 ms steps, so allow a wide margin). */
	assert_true(rep.n_samples > 2000);
	assert_true(rep.n_samples < 40000);
	for (int i = 0; i < rep.n_results; i++) {
		const struct bn_result *res = &rep.results[i];
		const struct bn_rule *rule = bn_rule_find(res->id);

		if (strcmp(res->kind, "check") || !rule || !rule->needs_channels)
			continue;
		if (res->verdict == BN_VERDICT_PASS)
			fail_msg("%s passed on the demo driver's waveforms", res->id);
		judged_on_samples += res->verdict != BN_VERDICT_SKIPPED;
	}
	assert_true(judged_on_samples > 3);

	/* capture.sr holds the same frames, with the bench's names. */
	snprintf(cap, sizeof(cap), "%s/capture.sr", dir);
	assert_int_equal(bn_srr_open(cap, &r, &err), BN_OK);
	assert_int_equal(bn_srr_info(r)->n_analog, 4);
	assert_true(bn_srr_find(r, "VBUS") >= 0 && bn_srr_find(r, "DM") >= 0);
	assert_int_equal(bn_srr_info(r)->n_frames, rep.n_samples);
	assert_true(bn_srr_info(r)->rate_hz == 20000);
	bn_srr_close(r);
	bn_report_free(&rep);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

static void test_capture_dev__unknown_driver_is_refused(void **state)
{
	struct bn_sigrok_cap_opts dev = { .driver = "no-such-driver", .rate_hz = 1000 };
	struct bn_run_opts o = { .datadir = bn_test_srcdir(), .capture_dev = &dev };
	char scn[600];
	struct bn_report rep;
	struct bn_err err = { 0 };

	(void)state;
	bn_chanmap_default(&dev.map);
	snprintf(scn, sizeof(scn), "%s/scripts/scenarios/float.scn", bn_test_srcdir());
	o.scenario_path = scn;
	bn_report_init(&rep);
	assert_true(bn_run_scenario(&o, &rep, &err) < 0);
	assert_msg_has(&err, "no-such-driver");
	bn_report_free(&rep);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_capture_dev__demo_driver_run),
		cmocka_unit_test(test_capture_dev__unknown_driver_is_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
