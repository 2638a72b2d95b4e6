/* The record a run or a replay leaves, and its summary on the terminal. */
#define BN_LOG_MODULE "bcbench"
#include <libgen.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/exit.h"
#include "core/file.h"
#include "core/json.h"
#include "core/text.h"
#include "cli/common.h"
#include "cli/provenance.h"
#include "cli/run_output.h"
#include "report/report_html.h"

/* The counts of one side's results (bn_result_side_in). */
static void side_totals(const struct bn_report *rep, const char *side, int totals[BN_VERDICT_COUNT])
{
	for (int v = 0; v < BN_VERDICT_COUNT; v++)
		totals[v] = 0;
	for (int i = 0; i < rep->n_results; i++) {
		const struct bn_result *r = &rep->results[i];

		if (!strcmp(bn_result_side_in(r->kind, r->side, bn_report_judges(rep)), side))
			totals[r->verdict]++;
	}
}

void bn_cli_print_summary(const struct bn_report *rep, const char *report_path)
{
	int totals[BN_VERDICT_COUNT], other[BN_VERDICT_COUNT];
	static const char *const status_names[] = { "completed", "aborted", "error" };
	const char *judged = bn_report_judges(rep);
	const char *other_side = strcmp(judged, BN_SIDE_NAME_PORT) ? BN_SIDE_NAME_PORT : BN_SIDE_NAME_DEVICE;
	bool other_judged = false;
	enum bn_overall other_o = bn_report_overall_side(rep, other_side, &other_judged);

	/* the counts are the judged side's: a port failing in a device run is
	 * not the device's failure, and is said on a line of its own */
	side_totals(rep, judged, totals);
	side_totals(rep, other_side, other);
	bn_term_printf(stdout, "%s: %s — %d passed, %d failed, %d inconclusive, %d skipped, %d errors "
	       "(the %s; %.1f s %s in %.3f s)\n",
	       rep->scenario_name[0] ? rep->scenario_name : "scenario", status_names[rep->status],
	       totals[BN_VERDICT_PASS], totals[BN_VERDICT_FAIL], totals[BN_VERDICT_INCONCLUSIVE],
	       totals[BN_VERDICT_SKIPPED], totals[BN_VERDICT_ERROR], judged, rep->sim_s,
	       !strcmp(rep->backend, "replay") ? "of capture replayed"
	       : !strcmp(rep->backend, "real") ? "on the real bench" : "simulated", rep->wall_s);
	if (other_judged)
		bn_term_printf(stdout, "  the %s: %s — %d passed, %d failed, %d inconclusive\n", other_side,
			       bn_overall_name(other_o), other[BN_VERDICT_PASS], other[BN_VERDICT_FAIL],
			       other[BN_VERDICT_INCONCLUSIVE]);
	if (rep->reason[0])
		bn_term_printf(stdout, "  reason: %s\n", rep->reason);
	if (rep->capture_off[0])
		bn_term_printf(stdout, "  capture: none written (%s); the rules judged every sample\n",
			       rep->capture_off);
	if (report_path)
		bn_term_printf(stdout, "  report: %s\n", report_path);
}

/* report.html from the report.json just written (the same code as
 * `bcbench report html`, so a later render gives the same bytes). A page
 * that cannot be written loses no verdict (report.json is there) but is
 * an output not written: exit 6 unless the run has a more urgent code. */
int bn_cli_write_html(const char *report_path, const char *out_dir, int exit_code)
{
	struct bn_err err = { 0 };
	char html_path[1400];

	snprintf(html_path, sizeof(html_path), "%s/report.html", out_dir);
	if (bn_report_html_write(report_path, html_path, NULL, &err) < 0) {
		fprintf(stderr, "bcbench: cannot write %s: %s (report.json is complete; "
				"bcbench report html renders it again)\n", html_path, err.msg);
		return bn_exit_most_urgent(exit_code, BN_EXIT_ENVIRONMENT);
	}
	bn_term_printf(stdout, "  page: %s\n", html_path);
	return exit_code;
}

/* The interrupt (if any) in the reason, OUT/report.json written
 * atomically (with report.html unless told not), the summary printed,
 * the report freed: the exit code. */
int bn_cli_write_record(struct bn_report *rep, const char *out_dir, const char *where,
			const struct bn_cli_record_opts *ro)
{
	struct bn_err err = { 0 };
	char report_path[1400];
	int exit_code;

	if (*bn_cli_stop_flag())
		snprintf(rep->reason, sizeof(rep->reason), "interrupted by %s at t=%.3f s%s",
			 bn_cli_signal_name(*bn_cli_stop_flag()), rep->sim_s, where);
	bn_cli_provenance_end(rep);
	/* the record's exit code is the process's: 4 in status too */
	rep->require_verdicts = ro->require_verdicts;
	if (ro->beacon)
		__atomic_store_n(&ro->beacon->finishing, 1, __ATOMIC_RELAXED);
	bn_report_hash_artifacts(rep, out_dir);
	if (!ro->no_html)
		bn_report_artifact(rep, "html", "report.html");
	snprintf(report_path, sizeof(report_path), "%s/report.json", out_dir);
	if (bn_mkdir_p(out_dir, &err) < 0 ||
	    (ro->defer_sync ? bn_report_write_json_nosync(rep, report_path, &err)
			    : bn_report_write_json(rep, report_path, &err)) < 0) {
		fprintf(stderr, "bcbench: cannot write the report: %s\n", err.msg);
		bn_cli_print_summary(rep, NULL);
		bn_report_free(rep);
		return bn_cli_exit_of(err.code);
	}
	bn_cli_print_summary(rep, report_path);
	exit_code = bn_report_exit_code(rep);
	bn_report_free(rep);
	if (exit_code == BN_EXIT_NOT_DEMONSTRATED)
		bn_term_printf(stdout, "  compliance not demonstrated (--require-verdicts): exit 4\n");
	if (!ro->no_html)
		exit_code = bn_cli_write_html(report_path, out_dir, exit_code);
	/* what a CI acts on, said where a person looks (0 and 1 say themselves) */
	if (exit_code >= BN_EXIT_BAD_INPUT && exit_code != BN_EXIT_NOT_DEMONSTRATED)
		bn_term_printf(stdout, "  exit %d (%s)\n", exit_code, bn_exit_cause(exit_code));
	return exit_code;
}

void bn_cli_file_stem(const char *path, char *out, size_t len)
{
	char buf[1024];
	char *base, *dot;

	snprintf(buf, sizeof(buf), "%s", path);
	base = basename(buf);
	dot = strrchr(base, '.');
	if (dot && dot != base)
		*dot = '\0';
	snprintf(out, len, "%s", base);
}


bool bn_cli_capture_not_written(const char *path, char *buf, size_t len)
{
	char dir[1024], report[1100];
	struct bn_err err = { 0 };
	struct stat st;
	cJSON *root = NULL;
	const cJSON *why;
	bool off;

	if (stat(path, &st) == 0 && !S_ISDIR(st.st_mode))
		return false; /* a capture is there: replay it */
	snprintf(dir, sizeof(dir), "%s", path);
	snprintf(report, sizeof(report), "%s/report.json",
		 stat(path, &st) == 0 ? dir : dirname(dir));
	if (access(report, R_OK) != 0 || bn_json_load(report, &root, &err) < 0)
		return false;
	why = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, "capture"),
					       "not_written");
	off = cJSON_IsString(why);
	if (off)
		snprintf(buf, len, "%s: %s", report, why->valuestring);
	cJSON_Delete(root);
	return off;
}
