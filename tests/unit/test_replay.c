/* Replay: every scenario's capture, replayed with its sidecar, gives the
 * live run's verdicts (except where the live margin is inside the stated
 * tolerance: float32 storage, one sample period in time), and measured
 * values agree within those tolerances. Cut down to what a real bench
 * knows, no verdict flips between pass and fail. Every faulty firmware of
 * the golden matrix still fails its rules when its capture is replayed.
 * Broken and foreign captures end as bad input, never as a pass. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zip.h>

#include "lib/harness.h"
#include "capture/events.h"
#include "scenario/replay.h"
#include "capture/srzip_write.h"
#include "checks/check.h"
#include "core/file.h"
#include "report/report.h"
#include "scenario/runner.h"

static char tmpdir[256];
/* Verdicts that differed, but only where the live margin was inside the
 * tolerance (reported, not failed). */
static int n_within_tolerance;

static int setup_tmp(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/bn-replay-XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown_tmp(void **state)
{
	char cmd[300];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static const char *fwdir(void)
{
	const char *d = getenv("BN_FWDIR");

	return d ? d : "build/fw";
}

/* The stated per-unit tolerance of a replayed figure: float32 keeps 24
 * bits (relative 6e-8; 1e-6 leaves room for sums and differences of
 * stored values), and times move by at most one sample period. */
static double tolerance(const char *unit, double v, double rate_hz)
{
	if (!strcmp(unit, "s"))
		return 1.0 / rate_hz + 1e-6;
	if (!strcmp(unit, "V") || !strcmp(unit, "A"))
		return 1e-6 * fmax(fabs(v), 1.0);
	return 1e-5 * fmax(fabs(v), 1.0);
}

static void run_live(const char *scn, const char *fw, const char *out, struct bn_report *rep)
{
	char path[512];
	struct bn_err err = { 0 };
	struct bn_run_opts o = { .datadir = bn_test_srcdir(), .out_dir = out };

	snprintf(path, sizeof(path), "%s/scripts/scenarios/%s.scn", bn_test_srcdir(), scn);
	o.scenario_path = path;
	o.firmware_override = fw;
	bn_report_init(rep);
	if (bn_run_scenario(&o, rep, &err) != BN_OK)
		fail_msg("%s: %s", scn, err.msg);
	if (rep->status != BN_RUN_COMPLETED)
		fail_msg("%s: the live run did not complete: %s", scn, rep->reason);
}

static int replay(const char *dir, unsigned origins, const char *port, const char *dut,
		  bool with_events, struct bn_report *rep, struct bn_err *err)
{
	char cap[512], ev[512];
	struct bn_replay_opts o = { .datadir = bn_test_srcdir(), .origins = origins,
				    .port = port, .dut = dut };

	snprintf(cap, sizeof(cap), "%s/capture.sr", dir);
	snprintf(ev, sizeof(ev), "%s/events.json", dir);
	o.capture_path = cap;
	o.events_path = with_events ? ev : NULL;
	bn_report_init(rep);
	return bn_replay(&o, rep, err);
}

static const struct bn_result *find(const struct bn_report *rep, const char *id)
{
	for (int i = 0; i < rep->n_results; i++)
		if (!strcmp(rep->results[i].id, id))
			return &rep->results[i];
	return NULL;
}

/* Same verdicts (or a live margin inside the tolerance), same figures. */
static int compare_exact(const char *scn, const struct bn_report *live,
			 const struct bn_report *rp)
{
	int bad = 0;

	for (int i = 0; i < live->n_results; i++) {
		const struct bn_result *a = &live->results[i], *b;

		if (strcmp(a->kind, "check"))
			continue;
		b = find(rp, a->id);
		if (!b) {
			print_error("%s: %s missing from the replay\n", scn, a->id);
			bad++;
			continue;
		}
		if (a->verdict != b->verdict) {
			if (a->has_margin && fabs(a->margin) <= tolerance(a->unit, a->margin, live->rate_hz)) {
				print_message("%s: %s live %s, replay %s: the live margin %g %s is inside the "
					      "tolerance\n",
					      scn, a->id, bn_verdict_name(a->verdict),
					      bn_verdict_name(b->verdict), a->margin, a->unit);
				n_within_tolerance++;
				continue;
			}
			print_error("%s: %s live %s, replay %s (live margin %g %s; replay: %s)\n", scn,
				    a->id, bn_verdict_name(a->verdict), bn_verdict_name(b->verdict),
				    a->has_margin ? a->margin : NAN, a->unit, b->reason);
			bad++;
			continue;
		}
		if (a->has_measured != b->has_measured ||
		    (a->has_measured &&
		     !(fabs(a->measured - b->measured) <= tolerance(a->unit, a->measured, live->rate_hz)))) {
			print_error("%s: %s measured %.9g %s live, %.9g replayed\n", scn, a->id,
				    a->measured, a->unit, b->measured);
			bad++;
		}
	}
	return bad;
}

/* No verdict turns from pass to fail or back; counts the ones that
 * became inconclusive in *lost. */
static int compare_no_flip(const char *scn, const char *how, const struct bn_report *live,
			   const struct bn_report *rp, int *lost)
{
	int bad = 0;

	for (int i = 0; i < live->n_results; i++) {
		const struct bn_result *a = &live->results[i], *b;

		if (strcmp(a->kind, "check"))
			continue;
		b = find(rp, a->id);
		assert_non_null(b);
		if ((a->verdict == BN_VERDICT_PASS && b->verdict == BN_VERDICT_FAIL) ||
		    (a->verdict == BN_VERDICT_FAIL && b->verdict == BN_VERDICT_PASS)) {
			if (a->has_margin && fabs(a->margin) <= tolerance(a->unit, a->margin, live->rate_hz))
				continue;
			print_error("%s (%s): %s flipped from %s to %s (%s)\n", scn, how, a->id,
				    bn_verdict_name(a->verdict), bn_verdict_name(b->verdict), b->reason);
			bad++;
		}
		if (a->verdict != BN_VERDICT_INCONCLUSIVE && b->verdict == BN_VERDICT_INCONCLUSIVE)
			(*lost)++;
	}
	return bad;
}

static void test_replay__every_scenario_round_trips(void **state)
{
	char names[64][64], dir[512];
	int n = bn_test_scenario_names(names, 64), bad = 0, judged = 0, lost_host = 0, lost_fix = 0;

	(void)state;
	assert_true(n >= 15);
	for (int i = 0; i < n; i++) {
		struct bn_report live, rp;
		struct bn_err err = { 0 };

		snprintf(dir, sizeof(dir), "%s/%.63s", tmpdir, names[i]);
		run_live(names[i], NULL, dir, &live);
		assert_int_equal(live.n_artifacts, 2);
		if (replay(dir, 0, NULL, NULL, true, &rp, &err) != BN_OK)
			fail_msg("%s: replay: %s", names[i], err.msg);
		assert_int_equal(rp.status, BN_RUN_COMPLETED);
		assert_int_equal(rp.n_samples, live.n_samples);
		bad += compare_exact(names[i], &live, &rp);
		for (int k = 0; k < rp.n_results; k++)
			judged += rp.results[k].verdict == BN_VERDICT_PASS ||
				  rp.results[k].verdict == BN_VERDICT_FAIL;
		bn_report_free(&rp);

		/* What a real bench knows: no device console... */
		if (replay(dir, (1u << BN_ORIGIN_FIXTURE) | (1u << BN_ORIGIN_HOST), NULL, NULL, true, &rp,
			   &err) != BN_OK)
			fail_msg("%s: replay: %s", names[i], err.msg);
		bad += compare_no_flip(names[i], "fixture+host", &live, &rp, &lost_host);
		bn_report_free(&rp);
		/* ...and a bench with no USB host side either. */
		if (replay(dir, 1u << BN_ORIGIN_FIXTURE, NULL, NULL, true, &rp, &err) != BN_OK)
			fail_msg("%s: replay: %s", names[i], err.msg);
		bad += compare_no_flip(names[i], "fixture", &live, &rp, &lost_fix);
		bn_report_free(&rp);
		bn_report_free(&live);
	}
	print_message("%d scenarios; %d verdicts judged on replay (%d differing only inside the "
		      "tolerance); without the device's console %d became inconclusive, with the "
		      "fixture's events only %d\n",
		      n, judged, n_within_tolerance, lost_host, lost_fix);
	assert_true(judged > 100);
	assert_true(lost_host > 0);
	assert_true(lost_fix > lost_host);
	assert_int_equal(bad, 0);
}

/* Each golden row: the faulty firmware's capture, replayed, still fails
 * the rules the live run failed. */
static void test_replay__faulty_captures_still_fail(void **state)
{
	char pattern[512], line[1024], dir[512], fw[512];
	glob_t g;
	int rows = 0, bad = 0;

	(void)state;
	snprintf(pattern, sizeof(pattern), "%s/tests/golden/*.tsv", bn_test_srcdir());
	assert_int_equal(glob(pattern, 0, NULL, &g), 0);
	for (size_t i = 0; i < g.gl_pathc; i++) {
		FILE *f = fopen(g.gl_pathv[i], "r");

		assert_non_null(f);
		while (fgets(line, sizeof(line), f)) {
			char *save = NULL, *fwname, *scn, *rule, *hash = strchr(line, '#');
			struct bn_report live, rp;
			struct bn_err err = { 0 };

			if (hash)
				*hash = '\0';
			fwname = strtok_r(line, " \t\r\n", &save);
			scn = fwname ? strtok_r(NULL, " \t\r\n", &save) : NULL;
			if (!scn)
				continue;
			snprintf(fw, sizeof(fw), "%s/%s.so", fwdir(), fwname);
			snprintf(dir, sizeof(dir), "%s/golden-%d", tmpdir, rows++);
			run_live(scn, fw, dir, &live);
			if (replay(dir, 0, NULL, NULL, true, &rp, &err) != BN_OK)
				fail_msg("%s on %s: replay: %s", fwname, scn, err.msg);
			while ((rule = strtok_r(NULL, " \t\r\n", &save))) {
				const struct bn_result *a = find(&live, rule), *b = find(&rp, rule);

				assert_non_null(a);
				assert_non_null(b);
				if (a->verdict == BN_VERDICT_FAIL && b->verdict != BN_VERDICT_FAIL) {
					print_error("%s on %s: %s fails live, %s on replay (%s)\n", fwname,
						    scn, rule, bn_verdict_name(b->verdict), b->reason);
					bad++;
				}
			}
			bad += compare_exact(scn, &live, &rp);
			bn_report_free(&rp);
			bn_report_free(&live);
		}
		fclose(f);
	}
	globfree(&g);
	assert_true(rows >= 20);
	assert_int_equal(bad, 0);
}

/* A child opens path's events, adds three (the last at last_t_us) and is
 * killed before close. */
static void events_then_die(const char *path, bn_time_us last_t_us)
{
	struct bn_check_ctx ctx = { .port = BN_PORT_DCP, .port_name = "dcp", .rate_hz = 10e3,
				    .channels = 3, .events = BN_CEV_ALL };
	struct bn_evlog_meta meta = { .capture_file = "capture.sr", .port_profile = "dcp",
				      .dut_name = "phone", .scenario = "crash" };
	struct bn_err err = { 0 };
	int status;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		struct bn_evlog *l = NULL;

		if (bn_evlog_open(path, &ctx, &meta, &l, &err) != BN_OK)
			_exit(1);
		bn_evlog_add(l, &(struct bn_cev){ .kind = BN_CEV_VBUS_ON, .t_us = 0 });
		bn_evlog_add(l, &(struct bn_cev){ .kind = BN_CEV_TELEMETRY, .t_us = 1200,
						  .key = "port", .text = "dcp, \"quoted\"\n" });
		bn_evlog_add(l, &(struct bn_cev){ .kind = BN_CEV_LOAD, .t_us = last_t_us, .num = 0.5 });
		kill(getpid(), SIGKILL);
		_exit(2);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
}

/* A writer that dies mid-run: the salvage keeps every whole event, drops
 * a line cut short, and writes a file the loader takes. */
static void test_replay__events_salvage(void **state)
{
	char path[512], tmp_pattern[600];
	struct bn_evrec rec;
	struct bn_err err = { 0 };
	bn_time_us t_end;
	int n = -1;
	glob_t g;
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "%s/ev-salvage/events.json", tmpdir);
	assert_int_equal(bn_mkdir_p(path, &err), BN_OK);
	rmdir(path);
	/* nothing there yet */
	t_end = 0;
	assert_int_equal(bn_evlog_salvage(path, &t_end, 0, "error", &n, &err), BN_ERR_NA);
	events_then_die(path, 250000);
	/* the process died writing a fourth event */
	snprintf(tmp_pattern, sizeof(tmp_pattern), "%s/ev-salvage/.events.json.tmp-*", tmpdir);
	assert_int_equal(glob(tmp_pattern, 0, NULL, &g), 0);
	assert_int_equal(g.gl_pathc, 1);
	f = fopen(g.gl_pathv[0], "a");
	assert_non_null(f);
	fputs(",\n\t\t{\"t_us\":260000,\"kind\":\"vbus_o", f);
	fclose(f);
	t_end = 300000;
	assert_int_equal(bn_evlog_salvage(path, &t_end, 3000, "error", &n, &err), BN_OK);
	assert_int_equal(t_end, 300000);
	assert_int_equal(n, 3);
	assert_int_equal(access(g.gl_pathv[0], F_OK), -1);
	globfree(&g);
	if (bn_evrec_load(path, &rec, &err) != BN_OK)
		fail_msg("the salvaged events do not load: %s", err.msg);
	assert_int_equal(rec.n, 3);
	assert_int_equal(rec.ev[2].kind, BN_CEV_LOAD);
	assert_int_equal(rec.ev[2].t_us, 250000);
	assert_string_equal(rec.ev[1].text, "dcp, \"quoted\"\n");
	assert_int_equal(rec.t_end_us, 300000);
	assert_string_equal(rec.status, "error");
	bn_evrec_free(&rec);

	/* no capture to end it by (--no-capture, killed): the record ends at
	 * its last event, not at 0 */
	events_then_die(path, 420000);
	t_end = 0;
	assert_int_equal(bn_evlog_salvage(path, &t_end, 0, "error", &n, &err), BN_OK);
	assert_int_equal(n, 3);
	assert_int_equal(t_end, 420000); /* what the report's sim_s takes */
	if (bn_evrec_load(path, &rec, &err) != BN_OK)
		fail_msg("the salvaged events do not load: %s", err.msg);
	assert_int_equal(rec.t_end_us, 420000);
	bn_evrec_free(&rec);
}

/* A real bench's device advertises its configurations only when it
 * enumerates: the record keeps them in its trailer, and a load takes them
 * when the header's dut has none (a header's own stay first). */
static void test_replay__enumerated_configurations(void **state)
{
	char path[512];
	struct bn_check_ctx ctx = { .port = BN_PORT_SDP, .port_name = "sdp", .rate_hz = 1e3,
				    .channels = 3, .events = BN_CEV_ALL };
	struct bn_evlog_meta meta = { .capture_file = "capture.sr", .port_profile = "sdp",
				      .dut_name = "real device", .scenario = "enumerate" };
	static const int val[] = { 1, 2 };
	static const double mp[] = { 0.5, 0.1 };
	struct bn_evlog *l = NULL;
	struct bn_evrec rec;
	struct bn_err err = { 0 };

	(void)state;
	snprintf(path, sizeof(path), "%s/ev-enum/events.json", tmpdir);
	assert_int_equal(bn_mkdir_p(path, &err), BN_OK);
	rmdir(path);
	/* none: the record says nothing of configurations */
	assert_int_equal(bn_evlog_open(path, &ctx, &meta, &l, &err), BN_OK);
	assert_int_equal(bn_evlog_close(l, 1000, 1, "completed", &err), BN_OK);
	assert_int_equal(bn_evrec_load(path, &rec, &err), BN_OK);
	assert_false(rec.ctx.configs_known);
	bn_evrec_free(&rec);
	/* enumerated during the run */
	assert_int_equal(bn_evlog_open(path, &ctx, &meta, &l, &err), BN_OK);
	bn_evlog_add(l, &(struct bn_cev){ .kind = BN_CEV_CONNECT, .t_us = 180000, .win_s = 0.18 });
	bn_evlog_configs(l, 2, val, mp);
	assert_int_equal(bn_evlog_close(l, 2000000, 2000, "completed", &err), BN_OK);
	if (bn_evrec_load(path, &rec, &err) != BN_OK)
		fail_msg("%s", err.msg);
	assert_true(rec.ctx.configs_known);
	assert_int_equal(rec.ctx.n_configs, 2);
	assert_int_equal(rec.ctx.config_value[1], 2);
	assert_true(rec.ctx.config_max_power_a[1] == 0.1);
	assert_int_equal(rec.n, 1);
	bn_evrec_free(&rec);
}

/* Rewrite the recorded run's status (the trailer's, the last "status"). */
static void set_status(const char *path, const char *status)
{
	static const char key[] = "\"status\": \"";
	struct bn_err err = { 0 };
	char *text, *at = NULL, *p, *end;
	size_t len;
	FILE *f;

	assert_int_equal(bn_file_read(path, &text, &len, &err), BN_OK);
	for (p = text; (p = strstr(p, key)); p++)
		at = p;
	assert_non_null(at);
	at += strlen(key);
	end = strchr(at, '"');
	assert_non_null(end);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "%.*s%s%s", (int)(at - text), text, status, end);
	fclose(f);
	free(text);
}

/* A record of a run that did not complete (a crash's salvaged capture, an
 * interrupted run): no verdict stands, each says what it would be. The
 * same record marked completed keeps its failure. */
static void test_replay__partial_record_is_inconclusive(void **state)
{
	static const char *const statuses[] = { "error", "aborted" };
	char dir[512], ev[600], fw[512];
	struct bn_report live, rp;
	struct bn_err err = { 0 };
	const struct bn_result *r;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/partial", tmpdir);
	snprintf(fw, sizeof(fw), "%s/ramp_past_idev.so", fwdir());
	run_live("dcp-strong", fw, dir, &live);
	assert_int_equal(find(&live, "bc12.cur.idev_chg")->verdict, BN_VERDICT_FAIL);
	assert_int_equal(replay(dir, 0, NULL, NULL, true, &rp, &err), BN_OK);
	assert_int_equal(find(&rp, "bc12.cur.idev_chg")->verdict, BN_VERDICT_FAIL);
	assert_string_equal(rp.reason, "");
	bn_report_free(&rp);
	snprintf(ev, sizeof(ev), "%s/events.json", dir);
	for (int k = 0; k < 2; k++) {
		set_status(ev, statuses[k]);
		assert_int_equal(replay(dir, 0, NULL, NULL, true, &rp, &err), BN_OK);
		assert_int_equal(rp.status, BN_RUN_COMPLETED);
		assert_non_null(strstr(rp.reason, "the recorded run did not complete"));
		assert_non_null(strstr(rp.reason, statuses[k]));
		for (int i = 0; i < rp.n_results; i++)
			if (rp.results[i].verdict != BN_VERDICT_SKIPPED &&
			    rp.results[i].verdict != BN_VERDICT_INCONCLUSIVE)
				fail_msg("%s: %s is %s on a partial record", statuses[k], rp.results[i].id,
					 bn_verdict_name(rp.results[i].verdict));
		r = find(&rp, "bc12.cur.idev_chg");
		assert_non_null(r);
		assert_non_null(strstr(r->reason, "would be fail"));
		bn_report_free(&rp);
	}
	bn_report_free(&live);
}

/* Without a sidecar: attach and connect are inferred; port and
 * declaration from the options. Nothing flips; what needs the device's
 * console or the host's configuration is inconclusive, not passed. */
static void test_replay__inferred_events_never_flip(void **state)
{
	static const struct {
		const char *scn, *port, *dut;
	} cases[] = { { "sdp-root", "sdp", "phone" }, { "dcp", "dcp", "phone" },
		      { "cdp", "cdp", "phone" } };
	char dir[512];
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct bn_report live, rp;
		struct bn_err err = { 0 };
		const struct bn_result *r;
		int lost = 0;

		snprintf(dir, sizeof(dir), "%s/infer-%s", tmpdir, cases[i].scn);
		run_live(cases[i].scn, NULL, dir, &live);
		if (replay(dir, 0, cases[i].port, cases[i].dut, false, &rp, &err) != BN_OK)
			fail_msg("%s: %s", cases[i].scn, err.msg);
		bad += compare_no_flip(cases[i].scn, "inferred", &live, &rp, &lost);
		assert_true(lost > 0);
		/* The detected port type comes only from the device's console. */
		r = find(&rp, "bc12.det.port_type");
		assert_non_null(r);
		assert_int_equal(r->verdict, BN_VERDICT_INCONCLUSIVE);
		bn_report_free(&rp);

		/* No port, no declaration: the rules that depend on them are
		 * inconclusive, and say why. */
		if (replay(dir, 0, NULL, NULL, false, &rp, &err) != BN_OK)
			fail_msg("%s: %s", cases[i].scn, err.msg);
		r = find(&rp, "bc12.det.port_type");
		assert_int_equal(r->verdict, BN_VERDICT_INCONCLUSIVE);
		assert_non_null(strstr(r->reason, "port"));
		for (int k = 0; k < rp.n_results; k++)
			assert_int_not_equal(rp.results[k].verdict, BN_VERDICT_SKIPPED);
		bn_report_free(&rp);
		bn_report_free(&live);
	}
	assert_int_equal(bad, 0);
}

static int replay_file_on(const char *path, const char *map, const char *port, const char *dut,
			  struct bn_report *rep, struct bn_err *err);

/* A bare capture from a lab instrument: VBUS, IBUS, DP, DM at 10 kHz from
 * a function of time. */
static void write_bare(const char *path, double dur_s, void (*gen)(double t, double v[4]))
{
	struct bn_srw_opts o = { .rate_hz = 10e3, .n_ch = 4,
				 .names = { "VBUS", "IBUS", "DP", "DM" }, .units = { "V", "A", "V", "V" } };
	struct bn_srw *w;
	struct bn_err err = { 0 };
	double v[BN_SRW_MAX_CH] = { 0 };

	if (bn_srw_open(path, &o, &w, &err) < 0)
		fail_msg("%s", err.msg);
	for (long k = 0; k < (long)(dur_s * 10e3); k++) {
		gen((double)k / 10e3, v);
		assert_int_equal(bn_srw_frame(w, v), BN_OK);
	}
	assert_int_equal(bn_srw_close(w, &err), BN_OK);
}

/* D+ sits high (a floating probe) from the plug on, the device pulls it
 * up for real at 1.5 s: no falling edge, so no data contact is seen. */
static void gen_dp_high_early(double t, double v[4])
{
	v[0] = t < 0.1 ? 0 : 5.0;
	v[1] = t < 0.1 ? 0 : 0.05;
	v[2] = t < 0.1 ? 0 : 3.3;
	v[3] = 0;
}

/* The same device with the lines touching at 0.3 s: D+ low, then the
 * pull-up at 1.5 s, 1.4 s after VBUS: too late. */
static void gen_dp_contact_late_connect(double t, double v[4])
{
	gen_dp_high_early(t, v);
	if (t >= 0.3 && t < 1.5)
		v[2] = 0.0;
}

/* Contact at 0.3 s, a timely pull-up at 0.6 s. */
static void gen_dp_timely_connect(double t, double v[4])
{
	gen_dp_high_early(t, v);
	if (t >= 0.3 && t < 0.6)
		v[2] = 0.0;
}

/* A capture that starts with VBUS on and the device connected at once. */
static void gen_starts_on(double t, double v[4])
{
	(void)t;
	v[0] = 5.0;
	v[1] = 0.05;
	v[2] = 3.3;
	v[3] = 0;
}

static void test_replay__bare_capture_never_passes_on_a_guess(void **state)
{
	char path[512];
	struct bn_report rep;
	struct bn_err err = { 0 };
	const struct bn_result *r;

	(void)state;
	/* 1: D+ high before the pins touch is not a connect at t = 0 */
	snprintf(path, sizeof(path), "%s/bare-early.sr", tmpdir);
	write_bare(path, 2.5, gen_dp_high_early);
	assert_int_equal(replay_file_on(path, NULL, "sdp", "phone", &rep, &err), BN_OK);
	r = find(&rep, "bc12.host.connect_time");
	assert_non_null(r);
	if (r->verdict == BN_VERDICT_PASS)
		fail_msg("connect_time passed on a D+ that was high before contact: %s", r->reason);
	bn_report_free(&rep);
	/* 2: a D+ rise after contact is a connect, 1.4 s after VBUS: not a pass */
	snprintf(path, sizeof(path), "%s/bare-late.sr", tmpdir);
	write_bare(path, 2.5, gen_dp_contact_late_connect);
	assert_int_equal(replay_file_on(path, NULL, "sdp", "phone", &rep, &err), BN_OK);
	r = find(&rep, "bc12.host.connect_time");
	assert_non_null(r);
	assert_int_not_equal(r->verdict, BN_VERDICT_PASS);
	if (r->has_measured)
		assert_true(r->measured > 1.3 && r->measured < 1.5);
	bn_report_free(&rep);
	/* 4: a timely connect read off D+ would pass, but it is a guess */
	snprintf(path, sizeof(path), "%s/bare-timely.sr", tmpdir);
	write_bare(path, 2.5, gen_dp_timely_connect);
	assert_int_equal(replay_file_on(path, NULL, "sdp", "phone", &rep, &err), BN_OK);
	r = find(&rep, "bc12.host.connect_time");
	assert_non_null(r);
	assert_int_equal(r->verdict, BN_VERDICT_INCONCLUSIVE);
	if (!strstr(r->reason, "inferred from the samples"))
		fail_msg("reason: %s", r->reason);
	bn_report_free(&rep);
	/* 3: VBUS on from the first sample: the attach is not in the capture */
	snprintf(path, sizeof(path), "%s/bare-on.sr", tmpdir);
	write_bare(path, 2.5, gen_starts_on);
	assert_int_equal(replay_file_on(path, NULL, "sdp", "phone", &rep, &err), BN_OK);
	for (int k = 0; k < rep.n_results; k++)
		if (rep.results[k].verdict == BN_VERDICT_PASS &&
		    (!strcmp(rep.results[k].id, "bc12.host.connect_time") ||
		     !strcmp(rep.results[k].id, "bc12.det.primary_start")))
			fail_msg("%s passed with no attach in the capture", rep.results[k].id);
	bn_report_free(&rep);
}

/* A capture written with only some channels, foreign names, a map. */
static void write_capture(const char *path, int n_ch, const char *const names[],
			  const char *const units[], double rate_hz, long frames)
{
	struct bn_srw_opts o = { .rate_hz = rate_hz, .n_ch = n_ch };
	struct bn_srw *w;
	struct bn_err err = { 0 };
	double v[BN_SRW_MAX_CH];

	for (int i = 0; i < n_ch; i++) {
		o.names[i] = names[i];
		o.units[i] = units ? units[i] : NULL;
	}
	if (bn_srw_open(path, &o, &w, &err) < 0)
		fail_msg("%s", err.msg);
	for (long k = 0; k < frames; k++) {
		for (int i = 0; i < n_ch; i++)
			v[i] = k < frames / 10 ? 0.0 : 5.0;
		assert_int_equal(bn_srw_frame(w, v), BN_OK);
	}
	assert_int_equal(bn_srw_close(w, &err), BN_OK);
}

static int replay_file_on(const char *path, const char *map, const char *port, const char *dut,
			  struct bn_report *rep, struct bn_err *err)
{
	struct bn_replay_opts o = { .datadir = bn_test_srcdir(), .capture_path = path, .map = map,
				    .port = port, .dut = dut };

	bn_report_init(rep);
	memset(err, 0, sizeof(*err));
	return bn_replay(&o, rep, err);
}

static int replay_file(const char *path, const char *map, struct bn_report *rep,
		       struct bn_err *err)
{
	return replay_file_on(path, map, NULL, NULL, rep, err);
}

static void test_replay__minimum_channels_and_maps(void **state)
{
	static const char *const only_vbus[] = { "VBUS" };
	static const char *const foreign[] = { "A0", "A1", "A2" };
	char path[512];
	struct bn_report rep;
	struct bn_err err;

	(void)state;
	snprintf(path, sizeof(path), "%s/vbus-only.sr", tmpdir);
	write_capture(path, 1, only_vbus, NULL, 1000, 500);
	assert_int_equal(replay_file(path, NULL, &rep, &err), BN_ERR_DATA);
	assert_msg_has(&err, path);
	assert_msg_has(&err, "IBUS or DP");
	bn_report_free(&rep);

	snprintf(path, sizeof(path), "%s/foreign.sr", tmpdir);
	write_capture(path, 3, foreign, NULL, 1000, 500);
	/* Nothing named VBUS: the message lists what the file has. */
	assert_int_equal(replay_file(path, NULL, &rep, &err), BN_ERR_DATA);
	assert_msg_has(&err, "VBUS");
	assert_msg_has(&err, "A0, A1, A2");
	bn_report_free(&rep);
	/* A map naming a channel the file lacks. */
	assert_int_equal(replay_file(path, "VBUS=A7", &rep, &err), BN_ERR_DATA);
	assert_msg_has(&err, "A7");
	bn_report_free(&rep);
	/* Mapped: it runs; IBUS through a 0.1 ohm shunt is scale 10. */
	assert_int_equal(replay_file(path, "VBUS=A0,IBUS=A1:scale=10:unit=A", &rep, &err), BN_OK);
	assert_int_equal(rep.status, BN_RUN_COMPLETED);
	assert_int_equal(rep.n_samples, 500);
	assert_int_equal(rep.channel_mask, (1u << BN_CH_VBUS) | (1u << BN_CH_IBUS));
	for (int k = 0; k < rep.n_results; k++)
		assert_int_not_equal(rep.results[k].verdict, BN_VERDICT_SKIPPED);
	bn_report_free(&rep);
	/* A wrong scale (50 V on VBUS): nothing that reads VBUS is judged. */
	assert_int_equal(replay_file_on(path, "VBUS=A0:scale=10,IBUS=A1:scale=10:unit=A", "dcp",
					"phone", &rep, &err),
			 BN_OK);
	{
		int gated = 0;

		for (int k = 0; k < rep.n_results; k++) {
			const struct bn_result *r = &rep.results[k];
			const struct bn_rule *rule = bn_rule_find(r->id);

			if (!rule || !(rule->needs_channels & (1u << BN_CH_VBUS)))
				continue;
			assert_int_not_equal(r->verdict, BN_VERDICT_PASS);
			assert_int_not_equal(r->verdict, BN_VERDICT_FAIL);
			gated += strstr(r->reason, "not plausible: VBUS 50") != NULL;
		}
		assert_true(gated > 0);
	}
	bn_report_free(&rep);
}

/* A hand-made srzip: version 2, the metadata given, one member. */
static void make_zip(const char *path, const char *metadata, const char *member, const void *data,
		     size_t len)
{
	int zerr = 0;
	zip_t *z = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &zerr);
	zip_source_t *src;

	assert_non_null(z);
	src = zip_source_buffer(z, "2", 1, 0);
	assert_true(zip_file_add(z, "version", src, ZIP_FL_OVERWRITE) >= 0);
	src = zip_source_buffer(z, metadata, strlen(metadata), 0);
	assert_true(zip_file_add(z, "metadata", src, ZIP_FL_OVERWRITE) >= 0);
	src = zip_source_buffer(z, data, len, 0);
	assert_true(zip_file_add(z, member, src, ZIP_FL_OVERWRITE) >= 0);
	assert_int_equal(zip_close(z), 0);
}

/* A stored capture with bytes flipped halfway through VBUS's data: the
 * replay stops at the CRC check with the member named, no verdicts. */
/* Two channels of unequal length, and NaN samples. */
static void test_replay__unequal_channels_and_nans(void **state)
{
	static const char *const names[] = { "VBUS", "IBUS", "DP", "DM" };
	static const char *const units[] = { "V", "A", "V", "V" };
	char path[512];
	struct bn_report rep;
	struct bn_err err = { 0 };
	float shorter[100], *nans;
	int zerr = 0;
	zip_t *z;
	zip_source_t *src;
	long gated = 0;

	(void)state;
	/* IBUS's member cut to 100 frames of VBUS's 3000 */
	snprintf(path, sizeof(path), "%s/unequal.sr", tmpdir);
	write_capture(path, 4, names, units, 1000, 3000);
	for (int i = 0; i < 100; i++)
		shorter[i] = 0.1f;
	z = zip_open(path, 0, &zerr);
	assert_non_null(z);
	src = zip_source_buffer(z, shorter, sizeof(shorter), 0);
	assert_true(zip_file_add(z, "analog-1-2-1", src, ZIP_FL_OVERWRITE) >= 0);
	assert_int_equal(zip_close(z), 0);
	assert_int_equal(replay_file_on(path, NULL, "dcp", "phone", &rep, &err), BN_ERR_DATA);
	assert_msg_has(&err, path);
	assert_msg_has(&err, "IBUS");
	bn_report_free(&rep);

	/* NaN samples on IBUS: what reads IBUS is not judged */
	snprintf(path, sizeof(path), "%s/nans.sr", tmpdir);
	write_capture(path, 4, names, units, 1000, 3000);
	nans = malloc(3000 * sizeof(*nans));
	assert_non_null(nans);
	for (int i = 0; i < 3000; i++)
		nans[i] = i % 7 ? 0.1f : NAN;
	z = zip_open(path, 0, &zerr);
	assert_non_null(z);
	src = zip_source_buffer(z, nans, 3000 * sizeof(*nans), 0);
	assert_true(zip_file_add(z, "analog-1-2-1", src, ZIP_FL_OVERWRITE) >= 0);
	assert_int_equal(zip_close(z), 0);
	free(nans);
	assert_int_equal(replay_file_on(path, NULL, "dcp", "phone", &rep, &err), BN_OK);
	for (int k = 0; k < rep.n_results; k++) {
		const struct bn_result *r = &rep.results[k];
		const struct bn_rule *rule = bn_rule_find(r->id);

		if (!rule || !(rule->needs_channels & (1u << BN_CH_IBUS)))
			continue;
		assert_int_not_equal(r->verdict, BN_VERDICT_PASS);
		assert_int_not_equal(r->verdict, BN_VERDICT_FAIL);
		gated += strstr(r->reason, "not a number") != NULL;
	}
	assert_true(gated > 0);
	bn_report_free(&rep);
}

/* Frame k of a capture whose frames repeat, step and hole in every way
 * the reading thread folds and counts: noise; a run of every channel
 * longer than a block; NaN holes; -0 and 0; floats that differ but come
 * back as the same value on the 1e-8 grid (1e-9 and 2e-9 are both 0),
 * also in frames that differ from the one before only so.
 * The noise estimate takes the median step: VBUS steps by 0 one step
 * more than half the time, DP exactly half the time, so one step
 * counted wrong on either moves its estimate. */
static void gen_awkward(long k, double v[4])
{
	double noise = (double)((k * 919) % 1000 + 1) * 1e-6; /* never 0, never twice in a row */
	bool run = k >= 30000 && k < 100000;

	v[0] = k < 100001 ? 5.0 : 5.0 + noise;
	v[1] = run || k < 10000 ? 0.1 : k % 997 == 0 ? NAN : 0.1 + noise;
	v[2] = k < 30000 ? (const double[]){ 1e-9, 2e-9, -0.0, 0.0 }[k % 4] : run ? 0.0 : 0.6 + noise;
	v[3] = k < 30000 ? (k % 2 ? -0.0 : 0.0) : run ? 0.3 : 0.3 + noise;
}

/* The noise estimate counted by the reading thread ahead of the rules
 * (checks/estimate.h) is the engine's own: the same capture replayed
 * with a --perturb that changes nothing (on a channel it does not have),
 * which leaves the estimate to the engine, gives the same measurement
 * and the same results. */
static void test_replay__estimate_off_the_judging_thread(void **state)
{
	static const char *const names[] = { "VBUS", "IBUS", "DP", "DM" };
	static const char *const units[] = { "V", "A", "V", "V" };
	struct bn_srw_opts so = { .rate_hz = 20000, .n_ch = 4 };
	struct bn_replay_opts o = { .datadir = bn_test_srcdir(), .port = "dcp", .dut = "phone" };
	struct bn_report a, b;
	struct bn_err err = { 0 };
	struct bn_srw *w;
	char path[512], *ja, *jb;
	double v[BN_SRW_MAX_CH];

	(void)state;
	snprintf(path, sizeof(path), "%s/awkward.sr", tmpdir);
	for (int i = 0; i < 4; i++) {
		so.names[i] = names[i];
		so.units[i] = units[i];
	}
	if (bn_srw_open(path, &so, &w, &err) < 0)
		fail_msg("%s", err.msg);
	for (long k = 0; k < 200000; k++) {
		gen_awkward(k, v);
		assert_int_equal(bn_srw_frame(w, v), BN_OK);
	}
	assert_int_equal(bn_srw_close(w, &err), BN_OK);

	o.capture_path = path;
	bn_report_init(&a);
	assert_int_equal(bn_replay(&o, &a, &err), BN_OK);
	o.perturb_set = 1u << BN_CH_ID;
	bn_report_init(&b);
	assert_int_equal(bn_replay(&o, &b, &err), BN_OK);

	ja = cJSON_PrintUnformatted(a.measurement);
	jb = cJSON_PrintUnformatted(b.measurement);
	assert_non_null(ja);
	assert_non_null(jb);
	/* every channel estimated, from its steps */
	for (int i = 0; i < 4; i++)
		assert_non_null(strstr(ja, names[i]));
	assert_non_null(strstr(ja, "noise="));
	assert_string_equal(ja, jb);
	free(ja);
	free(jb);
	assert_int_equal(a.n_samples, 200000);
	assert_int_equal(a.n_results, b.n_results);
	for (int k = 0; k < a.n_results; k++) {
		assert_string_equal(a.results[k].id, b.results[k].id);
		assert_int_equal(a.results[k].verdict, b.results[k].verdict);
		assert_string_equal(a.results[k].reason, b.results[k].reason);
		assert_true(a.results[k].measured == b.results[k].measured ||
			    (isnan(a.results[k].measured) && isnan(b.results[k].measured)));
	}
	bn_report_free(&a);
	bn_report_free(&b);
}

static void test_replay__corrupt_member_mid_stream(void **state)
{
	struct bn_srw_opts o = { .rate_hz = 10000, .n_ch = 2, .names = { "VBUS", "IBUS" },
				 .units = { "V", "A" }, .compression_level = -1,
				 .chunk_samples = 200000 }; /* one member a channel */
	char path[512];
	struct bn_srw *w;
	struct bn_report rep;
	struct bn_err err = { 0 };
	FILE *f;
	long size;

	(void)state;
	snprintf(path, sizeof(path), "%s/corrupt.sr", tmpdir);
	assert_int_equal(bn_srw_open(path, &o, &w, &err), BN_OK);
	for (long k = 0; k < 200000; k++) {
		double v[2] = { 5.0 + 1e-4 * (double)(k % 97), 0.1 + 1e-5 * (double)(k % 13) };

		assert_int_equal(bn_srw_frame(w, v), BN_OK);
	}
	assert_int_equal(bn_srw_close(w, &err), BN_OK);
	f = fopen(path, "r+b");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	fseek(f, size / 4, SEEK_SET); /* inside VBUS's member */
	fwrite("\xde\xad\xbe\xef\xde\xad\xbe\xef", 1, 8, f);
	fclose(f);
	assert_int_equal(replay_file_on(path, NULL, "dcp", "phone", &rep, &err), BN_ERR_DATA);
	assert_msg_has(&err, path);
	assert_msg_has(&err, "analog-1-1");
	bn_report_free(&rep);
}

static void test_replay__logic_only_and_zero_rate_are_bad_input(void **state)
{
	static const unsigned char logic[64] = { 1, 0, 1, 1 };
	static const float vbus[4] = { 5, 5, 5, 5 };
	char path[512];
	struct bn_report rep;
	struct bn_err err;

	(void)state;
	snprintf(path, sizeof(path), "%s/logic.sr", tmpdir);
	make_zip(path,
		 "[global]\nsigrok version=0.5.2\n\n[device 1]\ncapturefile=logic-1\n"
		 "total probes=1\nsamplerate=1 MHz\ntotal analog=0\nprobe1=D0\nunitsize=1\n",
		 "logic-1-1", logic, sizeof(logic));
	assert_int_equal(replay_file(path, NULL, &rep, &err), BN_ERR_DATA);
	assert_msg_has(&err, path);
	assert_msg_has(&err, "no analog channels");
	bn_report_free(&rep);

	snprintf(path, sizeof(path), "%s/zero-rate.sr", tmpdir);
	make_zip(path,
		 "[global]\nsigrok version=0.5.2\n\n[device 1]\ntotal probes=0\n"
		 "samplerate=0\ntotal analog=1\nanalog1=VBUS\n",
		 "analog-1-1-1", vbus, sizeof(vbus));
	assert_int_equal(replay_file(path, NULL, &rep, &err), BN_ERR_DATA);
	assert_msg_has(&err, path);
	assert_msg_has(&err, "samplerate");
	bn_report_free(&rep);
}

static void test_replay__broken_captures_are_bad_input(void **state)
{
	static const char *const names[] = { "VBUS", "IBUS", "DP", "DM" };
	static const char *const units[] = { "V", "A", "V", "V" };
	char good[512], path[512], cmd[2400];
	struct bn_report rep;
	struct bn_err err;
	FILE *f;

	(void)state;
	snprintf(good, sizeof(good), "%s/good.sr", tmpdir);
	write_capture(good, 4, names, units, 10000, 300000);

	/* Truncated to half. */
	snprintf(path, sizeof(path), "%s/truncated.sr", tmpdir);
	snprintf(cmd, sizeof(cmd), "head -c $(( $(stat -c %%s '%s') / 2 )) '%s' > '%s'", good, good,
		 path);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(replay_file(path, NULL, &rep, &err), BN_ERR_DATA);
	assert_msg_has(&err, path);
	bn_report_free(&rep);

	/* Not a zip at all. */
	snprintf(path, sizeof(path), "%s/text.sr", tmpdir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("VBUS,IBUS\n5.0,0.1\n", f);
	fclose(f);
	assert_int_equal(replay_file(path, NULL, &rep, &err), BN_ERR_DATA);
	assert_msg_has(&err, path);
	bn_report_free(&rep);

	/* A file that is not there. */
	snprintf(path, sizeof(path), "%s/absent.sr", tmpdir);
	assert_true(replay_file(path, NULL, &rep, &err) < 0);
	assert_msg_has(&err, path);
	bn_report_free(&rep);

	/* A unit that contradicts the channel. */
	{
		static const char *const bad_units[] = { "V", "V", "V", "V" };

		snprintf(path, sizeof(path), "%s/units.sr", tmpdir);
		write_capture(path, 4, names, bad_units, 1000, 100);
		assert_int_equal(replay_file(path, NULL, &rep, &err), BN_ERR_DATA);
		assert_msg_has(&err, "IBUS");
		assert_msg_has(&err, "scale");
		bn_report_free(&rep);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_replay__every_scenario_round_trips),
		cmocka_unit_test(test_replay__faulty_captures_still_fail),
		cmocka_unit_test(test_replay__partial_record_is_inconclusive),
		cmocka_unit_test(test_replay__events_salvage),
		cmocka_unit_test(test_replay__enumerated_configurations),
		cmocka_unit_test(test_replay__inferred_events_never_flip),
		cmocka_unit_test(test_replay__bare_capture_never_passes_on_a_guess),
		cmocka_unit_test(test_replay__minimum_channels_and_maps),
		cmocka_unit_test(test_replay__broken_captures_are_bad_input),
		cmocka_unit_test(test_replay__logic_only_and_zero_rate_are_bad_input),
		cmocka_unit_test(test_replay__corrupt_member_mid_stream),
		cmocka_unit_test(test_replay__unequal_channels_and_nans),
		cmocka_unit_test(test_replay__estimate_off_the_judging_thread),
	};

	return cmocka_run_group_tests(tests, setup_tmp, teardown_tmp);
}
