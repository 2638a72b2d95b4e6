/* A run's fixed cost, by what it does rather than how long it takes: the
 * limits a caller parsed are borrowed, not read again; --no-capture
 * judges the same samples and writes no capture; the capture writer's
 * threads follow the cores a run may use; a suite's entry leaves the
 * fsyncs to its suite (fsync counted through a link seam). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/harness.h"
#include "cli/cli.h"
#include "cli/isolate.h"
#include "core/file.h"
#include "core/limits.h"
#include "report/report.h"
#include "scenario/runner.h"

/* fsync through the link seam (tests/unit/test_run_fixed.mk): counted. */
static int fsyncs;
int __real_fsync(int fd);
int __wrap_fsync(int fd)
{
	fsyncs++;
	return __real_fsync(fd);
}

static void scenario_path(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/scripts/scenarios/%s.scn", bn_test_srcdir(), name);
}

static const struct bn_file_ref *file_of(const struct bn_report *rep, const char *role)
{
	for (int i = 0; i < rep->n_files; i++)
		if (!strcmp(rep->files[i].role, role))
			return &rep->files[i];
	return NULL;
}

/* A copy of the limits is parsed, then broken on disk: a run given the
 * parse judges with it (the file is not read again) and records its
 * digest; a run without it reads the broken file and is refused. */
static void test_run_fixed__parsed_limits_are_borrowed_not_read_again(void **state)
{
	char src[1024], copy[64] = "/tmp/bn_limits_XXXXXX", scn[1024];
	struct bn_limits lim;
	struct bn_report rep;
	struct bn_err err = { 0 };
	struct bn_run_opts o = { .datadir = bn_test_srcdir() };
	const struct bn_file_ref *f;
	char *text;
	size_t len;
	int fd;

	(void)state;
	snprintf(src, sizeof(src), "%s/profiles/limits/bc12.json", bn_test_srcdir());
	assert_int_equal(bn_file_read(src, &text, &len, &err), BN_OK);
	fd = mkstemp(copy);
	assert_true(fd >= 0);
	assert_true(write(fd, text, len) == (ssize_t)len);
	close(fd);
	free(text);
	assert_int_equal(bn_limits_load(copy, &lim, &err), BN_OK);
	fd = open(copy, O_WRONLY | O_TRUNC);
	assert_true(fd >= 0);
	assert_true(write(fd, "not json", 8) == 8);
	close(fd);

	scenario_path(scn, sizeof(scn), "dcp");
	o.scenario_path = scn;
	o.limits_override = copy;
	o.limits_parsed = &lim;
	bn_report_init(&rep);
	assert_int_equal(bn_run_scenario(&o, &rep, &err), BN_OK);
	assert_int_equal(rep.status, BN_RUN_COMPLETED);
	f = file_of(&rep, "limits");
	assert_non_null(f);
	assert_string_equal(f->sha256, lim.sha256);
	bn_report_free(&rep);
	/* the run borrowed it: still the caller's, whole */
	assert_non_null(lim.path);
	assert_true(lim.n > 0);

	o.limits_parsed = NULL;
	bn_report_init(&rep);
	assert_int_equal(bn_run_scenario(&o, &rep, &err), BN_ERR_DATA);
	assert_non_null(strstr(err.msg, copy));
	bn_report_free(&rep);
	bn_limits_free(&lim);
	unlink(copy);
}

/* The limits file's digest is of the bytes parsed, the same as hashing
 * the file. */
static void test_run_fixed__limits_digest_is_the_files(void **state)
{
	char src[1024], hex[65];
	struct bn_limits lim;
	struct bn_err err = { 0 };

	(void)state;
	snprintf(src, sizeof(src), "%s/profiles/limits/bc12.json", bn_test_srcdir());
	assert_int_equal(bn_limits_load(src, &lim, &err), BN_OK);
	assert_int_equal(bn_file_sha256(src, hex, &err), BN_OK);
	assert_string_equal(lim.sha256, hex);
	bn_limits_free(&lim);
}

/* Every input file's digest in the record is of its bytes, though each
 * is now read once (the loader's bytes hashed): the same as hashing the
 * file again. */
static void test_run_fixed__input_digests_are_the_files(void **state)
{
	char scn[1024], hex[65];
	struct bn_run_opts o = { .datadir = bn_test_srcdir() };
	struct bn_report rep;
	struct bn_err err = { 0 };

	(void)state;
	scenario_path(scn, sizeof(scn), "cdp");
	o.scenario_path = scn;
	bn_report_init(&rep);
	assert_int_equal(bn_run_scenario(&o, &rep, &err), BN_OK);
	assert_true(rep.n_files >= 5); /* limits, scenario, port, charger, dut */
	for (int i = 0; i < rep.n_files; i++) {
		assert_int_equal(bn_file_sha256(rep.files[i].path, hex, &err), BN_OK);
		assert_string_equal(rep.files[i].sha256, hex);
	}
	bn_report_free(&rep);
}

static void run_into_opts(const char *scn, const char *dir, bool no_capture, bool defer_sync,
			  struct bn_report *rep)
{
	struct bn_run_opts o = { .datadir = bn_test_srcdir(), .scenario_path = scn, .out_dir = dir,
				 .no_capture = no_capture, .defer_sync = defer_sync };
	struct bn_err err = { 0 };

	bn_report_init(rep);
	assert_int_equal(bn_run_scenario(&o, rep, &err), BN_OK);
	assert_int_equal(rep->status, BN_RUN_COMPLETED);
}

static void run_into(const char *scn, const char *dir, bool no_capture, struct bn_report *rep)
{
	run_into_opts(scn, dir, no_capture, false, rep);
}

/* A standalone run syncs its capture (file and directory) and its report;
 * a suite's entry (defer_sync) syncs neither, the same bytes written: the
 * suite syncs its output once, before suite.json. */
static void test_run_fixed__a_suite_entry_leaves_the_fsyncs_to_its_suite(void **state)
{
	char dir[64] = "/tmp/bn_sync_XXXXXX", a_dir[128], b_dir[128], path[256], scn[1024];
	char *a_text, *b_text;
	size_t a_len, b_len;
	struct bn_report a, b;
	struct bn_err err = { 0 };
	int before;

	(void)state;
	assert_non_null(mkdtemp(dir));
	scenario_path(scn, sizeof(scn), "dcp");
	snprintf(a_dir, sizeof(a_dir), "%s/standalone", dir);
	snprintf(b_dir, sizeof(b_dir), "%s/entry", dir);
	before = fsyncs;
	run_into_opts(scn, a_dir, false, false, &a);
	assert_true(fsyncs - before >= 2); /* capture.sr, then its directory */
	before = fsyncs;
	run_into_opts(scn, b_dir, false, true, &b);
	assert_int_equal(fsyncs - before, 0);
	/* the capture is there and whole either way */
	snprintf(path, sizeof(path), "%s/capture.sr", b_dir);
	assert_int_equal(bn_file_read(path, &b_text, &b_len, &err), BN_OK);
	snprintf(path, sizeof(path), "%s/capture.sr", a_dir);
	assert_int_equal(bn_file_read(path, &a_text, &a_len, &err), BN_OK);
	assert_int_equal(a_len, b_len);
	free(a_text);
	free(b_text);
	before = fsyncs;
	snprintf(path, sizeof(path), "%s/report.json", a_dir);
	assert_int_equal(bn_report_write_json(&a, path, &err), BN_OK);
	assert_true(fsyncs - before >= 2); /* the file, then its directory */
	before = fsyncs;
	snprintf(path, sizeof(path), "%s/report.json", b_dir);
	assert_int_equal(bn_report_write_json_nosync(&b, path, &err), BN_OK);
	assert_int_equal(fsyncs - before, 0);
	assert_int_equal(access(path, F_OK), 0);
	bn_report_free(&a);
	bn_report_free(&b);
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	assert_int_equal(system(path), 0);
}

/* The same results, sample for sample, with and without the file. */
static void test_run_fixed__no_capture_judges_the_same(void **state)
{
	static const char *const names[] = { "dcp", "cdp", "sdp-root" };
	char dir[64] = "/tmp/bn_nocap_XXXXXX", on[128], off[128], path[256], scn[1024];
	struct bn_report a, b;

	(void)state;
	assert_non_null(mkdtemp(dir));
	for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
		scenario_path(scn, sizeof(scn), names[k]);
		snprintf(on, sizeof(on), "%s/on-%s", dir, names[k]);
		snprintf(off, sizeof(off), "%s/off-%s", dir, names[k]);
		run_into(scn, on, false, &a);
		run_into(scn, off, true, &b);
		assert_int_equal(a.n_results, b.n_results);
		assert_true(a.n_results > 0);
		assert_int_equal(a.n_samples, b.n_samples);
		for (int i = 0; i < a.n_results; i++) {
			assert_string_equal(a.results[i].id, b.results[i].id);
			assert_int_equal(a.results[i].verdict, b.results[i].verdict);
			assert_memory_equal(&a.results[i].measured, &b.results[i].measured,
					    sizeof(a.results[i].measured));
		}
		assert_string_equal(a.capture_off, "");
		assert_string_equal(b.capture_off, "--no-capture");
		snprintf(path, sizeof(path), "%s/capture.sr", on);
		assert_int_equal(access(path, F_OK), 0);
		snprintf(path, sizeof(path), "%s/capture.sr", off);
		assert_int_not_equal(access(path, F_OK), 0);
		snprintf(path, sizeof(path), "%s/events.json", off);
		assert_int_equal(access(path, F_OK), 0);
		bn_report_free(&a);
		bn_report_free(&b);
	}
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	assert_int_equal(system(path), 0);
}

static void test_run_fixed__capture_threads_share_the_cores(void **state)
{
	(void)state;
	/* a standalone run: every core but the simulation's */
	assert_int_equal(bn_isolate_capture_threads(1, 0), 0);
	assert_int_equal(bn_isolate_capture_threads(2, 0), 1);
	assert_int_equal(bn_isolate_capture_threads(8, 0), 7);
	/* a suite's entry at any -j: its own thread only (-j spreads the
	 * suite over the cores) */
	assert_int_equal(bn_isolate_capture_threads(2, 1), 0);
	assert_int_equal(bn_isolate_capture_threads(2, 2), 0);
	assert_int_equal(bn_isolate_capture_threads(8, 1), 0);
	assert_int_equal(bn_isolate_capture_threads(8, 3), 0);
	assert_true(bn_isolate_cores_allowed() >= 1);
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* A directory with a report is salvaged only when that report is the
 * provisional one (found without parsing a final report: its reason's
 * words are looked for first), never for a final report that merely
 * quotes those words elsewhere. */
static void test_run_fixed__a_provisional_report_is_told_from_a_final_one(void **state)
{
	char dir[64] = "/tmp/bn_prov_XXXXXX", path[128], text[1024];

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/report.json", dir);
	assert_false(bn_salvage_needed(dir)); /* empty */
	write_text(path, "{\"status\": {\"state\": \"completed\", \"reason\": \"passed\"}}");
	assert_false(bn_salvage_needed(dir));
	snprintf(text, sizeof(text), "{\"status\": {\"state\": \"aborted\", \"reason\": \"%s\"}}",
		 BN_PROVISIONAL_REASON);
	write_text(path, text);
	assert_true(bn_salvage_needed(dir));
	snprintf(text, sizeof(text),
		 "{\"note\": \"%s\", \"status\": {\"state\": \"completed\", \"reason\": \"passed\"}}",
		 BN_PROVISIONAL_REASON);
	write_text(path, text);
	assert_false(bn_salvage_needed(dir));
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	assert_int_equal(system(path), 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_run_fixed__parsed_limits_are_borrowed_not_read_again),
		cmocka_unit_test(test_run_fixed__limits_digest_is_the_files),
		cmocka_unit_test(test_run_fixed__input_digests_are_the_files),
		cmocka_unit_test(test_run_fixed__no_capture_judges_the_same),
		cmocka_unit_test(test_run_fixed__capture_threads_share_the_cores),
		cmocka_unit_test(test_run_fixed__a_suite_entry_leaves_the_fsyncs_to_its_suite),
		cmocka_unit_test(test_run_fixed__a_provisional_report_is_told_from_a_final_one),
	};

	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
