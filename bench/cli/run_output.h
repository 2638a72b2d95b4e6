/* What run and replay do with a finished report: write report.json (and
 * report.html), print the summary, give the exit code. */
#ifndef BN_CLI_RUN_OUTPUT_H
#define BN_CLI_RUN_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>

#include "report/report.h"
#include "scenario/runner.h"

/* What a run or replay does with its record beyond report.json. */
struct bn_cli_record_opts {
	bool no_html;
	bool require_verdicts;
	/* the run's watcher: hashing a long capture and drawing its page
	 * take a while without a sample, and are not a hang */
	struct bn_run_beacon *beacon;
	/* report.json renamed into place without an fsync: the caller (a
	 * suite, before suite.json) makes the directory durable later */
	bool defer_sync;
};

void bn_cli_print_summary(const struct bn_report *rep, const char *report_path);
/* report.html beside report.json; exit_code, or 6 when the page cannot be
 * written on a run that would otherwise exit 0. */
int bn_cli_write_html(const char *report_path, const char *out_dir, int exit_code);
/* The interrupt (if any) in the reason, OUT/report.json written
 * atomically (with report.html unless told not), the summary printed,
 * the report freed: the exit code. */
int bn_cli_write_record(struct bn_report *rep, const char *out_dir, const char *where,
			const struct bn_cli_record_opts *ro);
/* A capture path that is not there, in a run directory whose report says
 * no capture was written (--no-capture, `capture off`): true, with the
 * report's path and why in buf ("DIR/report.json: --no-capture"). PATH
 * may be the directory itself. false otherwise (the caller's own error). */
bool bn_cli_capture_not_written(const char *path, char *buf, size_t len);
/* dir/name.ext -> "name" */
void bn_cli_file_stem(const char *path, char *out, size_t len);

#endif
