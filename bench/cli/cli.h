/* The commands (bench/main.c dispatches to them): each takes the
 * command's argv (argv[0] the command name) and returns the exit code. */
#ifndef BN_CLI_CLI_H
#define BN_CLI_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/err.h"

int bn_cli_run(int argc, char **argv);     /* cmd_run.c */
/* What a suite hands the entries it forks (cmd_suite.c): they inherit
 * it instead of working it out again each. */
struct bn_limits;
struct bn_run_beacon;
struct bn_conf;
struct bn_isolate_end;
struct bn_cli_run_inherit {
	const struct bn_limits *limits; /* parsed once by the suite; NULL: none */
	int capture_threads;            /* bn_srw_opts.threads of each entry */
	/* The suite forked this process and watches it through this beacon
	 * (cli/isolate.h, supervised): the run is not forked again. NULL: the
	 * run isolates itself. */
	struct bn_run_beacon *beacon;
	int suite_pid;                  /* the suite: when it is gone, the run stops */
	/* report.json and capture.sr are not fsynced: the suite syncs its
	 * output once, before suite.json names them */
	bool defer_sync;
};
/* After SIGINT/SIGTERM, how long a run may take to reach its safe state
 * and write its report before it is killed. */
#define BN_CLI_RUN_GRACE_S 5.0
/* bn_cli_run of a suite's entry; in NULL: a standalone run. */
int bn_cli_run_entry(int argc, char **argv, const struct bn_cli_run_inherit *in);
int bn_cli_replay(int argc, char **argv);  /* cmd_replay.c */
int bn_cli_devices(int argc, char **argv);
int bn_cli_selftest(int argc, char **argv);
int bn_cli_suite(int argc, char **argv);   /* cmd_suite.c */
int bn_cli_diff(int argc, char **argv);    /* cmd_diff.c */
int bn_cli_merge(int argc, char **argv);   /* cmd_merge.c */
int bn_cli_salvage(int argc, char **argv); /* cmd_salvage.c */
int bn_cli_report(int argc, char **argv);  /* cmd_report.c */
int bn_cli_curve(int argc, char **argv);   /* cmd_curve.c: dispatches to the two below */
int bn_cli_curve_sweep(int argc, char **argv);  /* cmd_curve_sweep.c */
int bn_cli_curve_import(int argc, char **argv); /* cmd_curve_import.c */
extern const char bn_cli_run_usage[];
extern const char bn_cli_replay_usage[];
extern const char bn_cli_devices_usage[];
extern const char bn_cli_selftest_usage[];
extern const char bn_cli_suite_usage[];
extern const char bn_cli_diff_usage[];
extern const char bn_cli_merge_usage[];
extern const char bn_cli_salvage_usage[];
extern const char bn_cli_report_usage[];
extern const char bn_cli_curve_usage[];
extern const char bn_cli_curve_sweep_usage[];
extern const char bn_cli_curve_import_usage[];

/* What a run that died or was killed left in out_dir, finished by the
 * process that watched it (cmd_run.c: a run's own parent, or the suite):
 * the bench put in its safe state when bench.conf names hardware, the
 * record salvaged saying end->cause, report.html unless no_html. What it
 * says goes to out and err. The exit code to report. */
struct bn_cli_run_salvage {
	const char *out_dir, *scenario, *datadir;
	const struct bn_conf *conf;
	const char *keep;   /* bn_run_temps(out_dir) before the run: not its own */
	bool no_html;
	FILE *out, *err;
};
int bn_cli_run_salvage(const struct bn_cli_run_salvage *rs, const struct bn_isolate_end *end);

/* ---- an unfinished record (cmd_salvage.c) ---- */

/* The reason of the report a run writes when the bench starts, replaced by
 * its final one: still there, the run's processes died. */
#define BN_PROVISIONAL_REASON \
	"the run did not finish: its process ended before writing the final report"

/* A name in a report directory that a run's writers create and remove:
 * the capture's spool (.capture.sr.XXXXXX/), libzip's temporary capture
 * (capture.sr.XXXXXX), an atomic write's temporary (.NAME.tmp-XXXXXX). */
bool bn_run_temp_name(const char *name);
/* Those names in dir now, each between '\n's ("\n" when none); NULL when
 * out of memory. */
char *bn_run_temps(const char *dir);
/* Remove them from dir (spool directories with their files), except the
 * names in keep (bn_run_temps before the run; NULL: none kept): a run
 * removes only what it created; and except the capture's spools when
 * spare_spools (a salvage that could not finish the capture). */
void bn_run_temps_remove(const char *dir, const char *keep, bool spare_spools);
/* dir holds an unfinished record: a spool, a temporary file, or a
 * provisional report. */
bool bn_salvage_needed(const char *dir);

struct bn_salvage {
	const char *dir;
	const char *scenario;  /* for a report made from nothing; NULL: none known */
	const char *cause;     /* why the record is unfinished: the reason's start */
	int64_t sim_t_us;      /* where the run was; < 0: the capture's length */
	const char *keep;      /* bn_run_temps before the run: not removed */
	/* why, as the record's exit code (core/exit.h); 0: not known (a
	 * process killed from outside: 137, interrupted by SIGKILL) */
	int exit_code;
};
/* Finish dir's record: capture.sr from the spool, events.json from its
 * temporary file, report.json (the provisional one, else a new one) marked
 * error, its exit code s->exit_code, its reason cause plus what was kept (also in
 * reason); a temporary that cannot be finished is removed. BN_OK, or the
 * error writing the report. */
int bn_salvage_record(const struct bn_salvage *s, char *reason, size_t len, struct bn_err *err);
/* For a new run into dir (holding its lock): an unfinished record there is
 * finished and moved into dir/interrupted-YYYYmmdd-HHMMSS/, said on
 * stderr unless quiet. 0 nothing found, 1 moved, < 0 an error (err). */
int bn_salvage_move_aside(const char *dir, bool quiet, struct bn_err *err);
/* The same for each of a suite's dir/entries/ NAME: how many, or < 0. */
int bn_salvage_suite_entries(const char *dir, bool quiet, struct bn_err *err);

#endif
