/* bcbench suite: a suite's entries, each a `bcbench run` in its own
 * process which the suite watches (cli/isolate.h, supervised), N at a
 * time, longest first; one suite.json and, on request, JUnit XML. */
#define _GNU_SOURCE /* syncfs */
#define BN_LOG_MODULE "suite"
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/common.h"
#include "cli/isolate.h"
#include "core/limits.h"
#include "scenario/runner.h"
#include "core/datadir.h"
#include "core/dirlock.h"
#include "core/exit.h"
#include "core/file.h"
#include "core/json.h"
#include "core/log.h"
#include "core/suggest.h"
#include "core/text.h"
#include "hil/bench_hw.h"
#include "hil/lock.h"
#include "cli/provenance.h"
#include "cli/hw_exec.h"
#include "report/junit.h"
#include "suite/suite_html.h"
#include "report/suite_doc.h"
#include "suite/judge.h"
#include "suite/suite.h"
#include "core/time.h"

const char bn_cli_suite_usage[] =
	"Usage: bcbench suite FILE.suite [-j N] [--out DIR] [--junit FILE] [--shard K/N]\n"
	"                    [--filter PATTERN] [--fwdir DIR] [--watchdog SECONDS]\n"
	"                    [--limits FILE] [--wait SECONDS] [--conf FILE] [--datadir DIR]\n"
	"                    [--baseline SUITE.json] [--operator NAME] [--no-html]\n"
	"                    [--no-capture]\n"
	"                    [--require-verdicts] [--list [--json]] [-v] [-q]\n"
	"Run every entry of a suite (scenarios by ports, chargers, hosts, devices and\n"
	"firmware builds; see bcbench(1), SUITES) and judge each against what the suite\n"
	"expects of it: pass, fail exactly the listed rules (xfail), or end in error.\n"
	"Each entry is a `bcbench run` in its own process under a watchdog: a firmware\n"
	"that crashes or hangs ends that entry as error, with its cause, and the suite\n"
	"goes on. Entries run longest first. Writes DIR/suite.json (every entry's outcome\n"
	"and its report's path and sha256, totals, timings; schema bcbench-suite/2) and\n"
	"DIR/entries/NNNN-ID/ (report.json, report.html, capture.sr, events.json,\n"
	"run.log), and DIR/report.html: the matrix of entries by rule, each linking to\n"
	"its entry's page.\n"
	"\n"
	"  -j, --jobs N         entries at a time on the simulated bench (default: the\n"
	"                       number of CPUs); a real bench runs one at a time\n"
	"  -o, --out DIR        where the suite's reports go (default <out>/suite-<name>)\n"
	"      --junit FILE     also write JUnit XML (a testcase per rule per entry)\n"
	"      --shard K/N      run only shard K of N: the entries sorted longest first and\n"
	"                       dealt round-robin; the N shards run every entry once\n"
	"                       (bcbench merge joins their suite.json files)\n"
	"      --filter PAT     only entries whose id matches a glob (comma-separated\n"
	"                       list), e.g. 'dcp*,*/ignore_droop'\n"
	"      --fwdir DIR      where firmware NAMEs are built (NAME.so); wins over\n"
	"                       $BCBENCH_FWDIR and the suite's fwdir (default: the one\n"
	"                       beside the binary, ../lib/bcbench/firmware or build/fw)\n"
	"      --watchdog S     per entry: no progress this long and it is killed as hung\n"
	"                       (default: the suite's watchdog, else 30)\n"
	"      --limits FILE    judge every entry against this limits file\n"
	"  -w, --wait SECONDS   the suite holds the bench lock from its first entry to\n"
	"                       its last (no other run slips in between); when the\n"
	"                       bench is in use, queue for it this long instead of\n"
	"                       recording every entry as not run and exiting 5\n"
	"      --baseline FILE  report.html also shows the diff against this suite.json\n"
	"      --operator NAME  who ran it, for every entry's record (default\n"
	"                       $BCBENCH_OPERATOR, else the login name)\n"
	"      --no-html        no report.html, the suite's or the entries'\n"
	"      --no-capture     the entries judge as always but write no capture.sr\n"
	"                       (bcbench run --no-capture): verdicts only\n"
	"      --require-verdicts\n"
	"                       exit 4 when every entry did what the suite expects\n"
	"                       but an entry expected to pass did not demonstrate\n"
	"                       compliance (a rule inconclusive or in error)\n"
	"      --list           print the entries (index, id, expectation) and exit\n"
	"      --json           with --list: one JSON document on stdout (schema\n"
	"                       bcbench-suite-list/1; its keys in bcbench(1))\n"
	"  -c, --conf FILE, -d, --datadir DIR, -v, -q, -h: as for run\n"
	"\n"
	"Exit codes (suite.json exit_code; each entry's exit_cause, and the type of\n"
	"its JUnit error or failure, names its own): the most urgent outcome the suite\n"
	"did not expect, in this order:\n"
	"  128+N  interrupted by signal N (130 SIGINT, 143 SIGTERM, 129 SIGHUP)\n"
	"  2      bad input: the suite file, a scenario or profile it names, an option\n"
	"  6      environment: an output that cannot be written (disk full, read-only)\n"
	"  3      device-broke-run: an entry's firmware crashed, hung or livelocked\n"
	"  1      rule-failed: an entry failed unexpectedly, or passed a rule it should\n"
	"         fail (xpass)\n"
	"  5      bench-fault: an instrument lost, the bench in use past --wait (retry)\n"
	"  4      with --require-verdicts: compliance not demonstrated by an entry\n"
	"         expected to pass\n"
	"  7      nothing to run: the suite has no entries, or --filter or --shard\n"
	"         selects none\n"
	"  0      every entry did what the suite expects (pass, xfail, or xerror: the\n"
	"         device broke the run, as expected)\n";

struct job {
	int entry;        /* index into the suite */
	pid_t pid;
	double t0, t1;    /* started, ended (0: not yet seen to end) */
	char dir[1600];   /* DIR/entries/NNNN-ID */
	char rel[300];    /* entries/NNNN-ID */
	/* The suite is the entry's watcher (cli/isolate.h, supervised): the
	 * entry is one process, its run, not a watching parent and a run. */
	struct bn_isolate iso;        /* the slot's beacon, the watchdog */
	struct bn_isolate_child ch;
	struct bn_isolate_end end;    /* how it ended */
	char *keep;       /* the entry directory's temporary files before the run */
	struct slot_shared *shared;   /* the slot's */
	/* the entry's own judging, taken from the slot as the entry ended
	 * (before the slot's next entry starts), and the limits its report
	 * names */
	cJSON *judged;
	char lim_path[1024], lim_sha[65];
};

/* What a slot shares with the entry it forks: the beacon the suite
 * watches, and what an entry that ended normally judged of itself
 * (judge_in_entry): its suite.json record as JSON text, and the limits
 * its report names. */
struct slot_shared {
	struct bn_run_beacon beacon;
	uint32_t ready;   /* 1 once the rest holds the whole record */
	uint32_t len;
	char lim_path[1024], lim_sha[65];
	char text[60 * 1024];
};

/* What the forked entry runs: `bcbench run` in this copy of the suite,
 * without exec (loading libraries again would cost each entry about as
 * much as a short run). */
struct suite_run;
struct entry_body {
	int argc, log_fd;
	char **argv;
	const struct bn_cli_run_inherit *inherit;
	const struct suite_run *r;
	const struct job *j;
};

struct suite_run {
	const struct bn_suite *s;
	const char *out_dir, *conf_path, *datadir, *limits, *operator_name;
	bool no_html, no_capture;
	struct bn_cli_run_inherit inherit; /* what every entry's run takes over */
	const struct bn_conf *conf;
	double watchdog_s;
	int jobs, quiet, tty, real_bench;
	cJSON **done;     /* by suite index: the entries' small records, no reports */
	char limits_path[1024], limits_sha[65]; /* of the first report that names them */
	int n_pick, n_done, n_unexpected, n_error;
	double cost_total, cost_done, t0;
};

/* Ids carry '/' and profile names: the directory name keeps [A-Za-z0-9._-]. */
static void entry_dirname(const struct bn_suite_entry *e, char *buf, size_t len)
{
	size_t n = (size_t)snprintf(buf, len, "%04d-", e->index);

	for (const char *p = e->id; *p && n + 1 < len; p++) {
		char c = *p;

		buf[n++] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
					   c == '.' || c == '_' || c == '-'
				   ? c
				   : '-';
	}
	buf[n] = '\0';
}

static cJSON *judge_entry(const struct suite_run *r, const struct job *j, int status,
			  const char *cause_in, int why_code, char lim_path[1024], char lim_sha[65]);

/* In the entry's process, its run done with code: the entry judged as the
 * suite would judge it (judge_entry, on the report just written), the
 * record left in the slot's shared memory for the suite to take. Nothing
 * there (no memory, a record too long): the suite judges it itself. */
static void judge_in_entry(const struct entry_body *eb, int code)
{
	struct slot_shared *sh = eb->j->shared;
	cJSON *o;
	char *text;

	fflush(stdout);
	fflush(stderr);
	o = judge_entry(eb->r, eb->j, (code & 0xff) << 8, NULL, -1, sh->lim_path, sh->lim_sha);
	text = o ? cJSON_PrintUnformatted(o) : NULL;
	if (text && strlen(text) < sizeof(sh->text)) {
		sh->len = (uint32_t)strlen(text);
		memcpy(sh->text, text, sh->len);
		__atomic_store_n(&sh->ready, 1, __ATOMIC_RELEASE);
	}
	free(text);
	cJSON_Delete(o);
}

static int run_entry_body(void *user)
{
	const struct entry_body *eb = user;
	int code;

	dup2(eb->log_fd, STDOUT_FILENO);
	dup2(eb->log_fd, STDERR_FILENO);
	close(eb->log_fd);
	code = bn_cli_run_entry(eb->argc, eb->argv, eb->inherit);
	/* however the run ended, it ended here, not in an exit() of the
	 * firmware's: the suite takes the exit code as the entry's */
	__atomic_store_n(&eb->j->shared->beacon.finished, 1, __ATOMIC_RELAXED);
	judge_in_entry(eb, code);
	return code;
}

static pid_t launch(struct suite_run *r, struct job *j, struct slot_shared *shared,
		    struct bn_err *err)
{
	const struct bn_suite_entry *e = &r->s->entries[j->entry];
	static const char *const opt[BN_AXIS_COUNT] = { "--port", "--charger", "--host", "--dut",
							"--conditions", "--firmware" };
	char watchdog[32], log_path[1700];
	const char *argv[40];
	struct bn_cli_run_inherit inherit = r->inherit;
	struct entry_body eb;
	int argc = 0, fd, rc;

	entry_dirname(e, j->rel + 8, sizeof(j->rel) - 8);
	memcpy(j->rel, "entries/", 8);
	snprintf(j->dir, sizeof(j->dir), "%s/%s", r->out_dir, j->rel);
	if (bn_mkdir_p(j->dir, err) < 0)
		return -1;
	/* A re-run into the same directory must not read an old report. */
	snprintf(log_path, sizeof(log_path), "%s/report.json", j->dir);
	unlink(log_path);
	snprintf(log_path, sizeof(log_path), "%s/run.log", j->dir);
	fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		bn_err_set(err, BN_ERR_IO, "%s: %s", log_path, strerror(errno));
		return -1;
	}
	snprintf(watchdog, sizeof(watchdog), "%g", r->watchdog_s);
	argv[argc++] = "bcbench";
	argv[argc++] = "run";
	argv[argc++] = "--out";
	argv[argc++] = j->dir;
	argv[argc++] = "--watchdog";
	argv[argc++] = watchdog;
	if (r->conf_path) {
		argv[argc++] = "--conf";
		argv[argc++] = r->conf_path;
	}
	argv[argc++] = "--datadir";
	argv[argc++] = r->datadir;
	argv[argc++] = "--operator";
	argv[argc++] = r->operator_name;
	if (r->no_html)
		argv[argc++] = "--no-html";
	if (r->no_capture)
		argv[argc++] = "--no-capture";
	if (r->limits) {
		argv[argc++] = "--limits";
		argv[argc++] = r->limits;
	}
	for (int a = 0; a < BN_AXIS_COUNT; a++)
		if (e->param_path[a][0]) {
			argv[argc++] = opt[a];
			argv[argc++] = e->param_path[a];
		}
	argv[argc++] = e->scenario;
	argv[argc] = NULL;
	fflush(stdout);
	fflush(stderr);
	/* what a salvage must leave: the run removes only what it made */
	j->keep = bn_run_temps(j->dir);
	memset(&shared->beacon, 0, sizeof(shared->beacon));
	shared->ready = shared->len = 0;
	j->shared = shared;
	inherit.beacon = &shared->beacon;
	inherit.suite_pid = getpid();
	eb = (struct entry_body){ .argc = argc - 1, .argv = (char **)argv + 1, .log_fd = fd,
				  .inherit = &inherit, .r = r, .j = j };
	j->iso = (struct bn_isolate){ .watchdog_s = r->watchdog_s, .grace_s = BN_CLI_RUN_GRACE_S,
				      .stop_flag = bn_cli_stop_flag(), .beacon = &shared->beacon,
				      .supervised = true };
	rc = bn_isolate_start(&j->iso, run_entry_body, &eb, &j->ch);
	close(fd);
	if (rc < 0) {
		free(j->keep);
		j->keep = NULL;
		bn_err_set(err, BN_ERR_IO, "fork: %s", strerror(errno));
		return -1;
	}
	j->pid = j->ch.pid;
	j->t0 = bn_mono_s();
	return j->pid;
}

static void progress_line(struct suite_run *r)
{
	double el = bn_mono_s() - r->t0, eta = 0;

	if (!r->tty || r->quiet)
		return;
	if (r->cost_done > 0 && r->n_done < r->n_pick)
		eta = el * (r->cost_total - r->cost_done) / r->cost_done;
	printf("\r\033[K[%d/%d] %d unexpected, %d errors, %.1f s elapsed", r->n_done, r->n_pick,
	       r->n_unexpected, r->n_error, el);
	if (r->n_done && r->n_done < r->n_pick)
		printf(", ETA %.0f s", ceil(eta));
	fflush(stdout);
}

/* The last non-empty line of DIR/run.log without the "bcbench: " prefix;
 * false when there is none. */
static bool last_log_line(const char *dir, char *buf, size_t len)
{
	char path[1700], line[1024];
	FILE *f;

	snprintf(path, sizeof(path), "%s/run.log", dir);
	f = fopen(path, "r");
	buf[0] = '\0';
	while (f && fgets(line, sizeof(line), f)) {
		const char *p = line;

		line[strcspn(line, "\r\n")] = '\0';
		if (!line[0])
			continue;
		if (!strncmp(p, "bcbench: ", 9))
			p += 9;
		/* a long line is cut: the start says what failed */
		snprintf(buf, len, "%.*s", (int)(len - 1), p);
	}
	if (f)
		fclose(f);
	return buf[0] != '\0';
}

/* The limits file the report was judged against, kept from the first
 * report that names one (all entries share it) for suite.json. */
static void limits_of(const cJSON *report, char path[1024], char sha[65])
{
	const cJSON *f;

	cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(report, "files")) {
		const cJSON *role = cJSON_GetObjectItemCaseSensitive(f, "role");
		const cJSON *p = cJSON_GetObjectItemCaseSensitive(f, "path");
		const cJSON *h = cJSON_GetObjectItemCaseSensitive(f, "sha256");

		if (cJSON_IsString(role) && !strcmp(role->valuestring, "limits") &&
		    cJSON_IsString(p) && cJSON_IsString(h)) {
			snprintf(path, 1024, "%s", p->valuestring);
			snprintf(sha, 65, "%s", h->valuestring);
			return;
		}
	}
}

static void note_limits(struct suite_run *r, const char *path, const char *sha)
{
	if (r->limits_path[0] || !path[0])
		return;
	snprintf(r->limits_path, sizeof(r->limits_path), "%s", path);
	snprintf(r->limits_sha, sizeof(r->limits_sha), "%s", sha);
}

/* DIR/report.json parsed, with the sha256 of the bytes parsed (the file
 * suite.json names must be the one judged). NULL with a cause when it is
 * there but unreadable; NULL and no cause when there is none. */
static cJSON *read_report(const char *dir, const char *id, char sha[65], char *cause,
			  size_t cause_len)
{
	char path[1700];
	struct bn_err err = { 0 };
	cJSON *report, *rules;
	char *text;
	size_t len;

	snprintf(path, sizeof(path), "%s/report.json", dir);
	if (access(path, F_OK) != 0)
		return NULL;
	if (bn_file_read(path, &text, &len, &err) < 0) {
		snprintf(cause, cause_len, "its report is unreadable: %.500s", err.msg);
		return NULL;
	}
	bn_sha256_hex(text, len, sha);
	report = cJSON_ParseWithLength(text, len);
	free(text);
	if (!cJSON_IsObject(report)) {
		cJSON_Delete(report);
		report = NULL;
		/* for the line and column of the error */
		if (bn_json_load(path, &report, &err) == BN_OK)
			bn_err_set(&err, BN_ERR_DATA, "%s: not a JSON object", path);
		cJSON_Delete(report);
		snprintf(cause, cause_len, "its report is unreadable: %.500s", err.msg);
		return NULL;
	}
	rules = bn_suite_rules_of(report, id, &err);
	if (!rules) {
		cJSON_Delete(report);
		snprintf(cause, cause_len, "its report is unreadable: %.500s", err.msg);
		return NULL;
	}
	cJSON_Delete(rules);
	return report;
}

/* The entry's run died or was killed (end says how): the suite, its
 * watcher, puts the bench in its safe state and finishes the record the
 * run left, as `bcbench run` does for its own child. What that says goes
 * to the entry's run.log, where the run's own words are. The directory's
 * lock file is the dead run's: taken (the kernel dropped its flock) for
 * the salvage, then removed. */
static void salvage_entry(struct suite_run *r, struct job *j)
{
	const struct bn_suite_entry *e = &r->s->entries[j->entry];
	char path[1700], who[400];
	struct bn_dirlock dl = { .fd = -1 };
	struct bn_err err = { 0 };
	FILE *log;

	snprintf(path, sizeof(path), "%s/run.log", j->dir);
	log = fopen(path, "a");
	snprintf(who, sizeof(who), "bcbench suite, finishing entry %.300s", e->id);
	if (bn_dirlock_take(&dl, j->dir, who, &err) < 0)
		bn_err_clear(&err);
	bn_cli_run_salvage(&(struct bn_cli_run_salvage){ .out_dir = j->dir,
							 .scenario = e->scenario,
							 .datadir = r->datadir, .conf = r->conf,
							 .keep = j->keep, .no_html = r->no_html,
							 .out = log ? log : stderr,
							 .err = log ? log : stderr },
			   &j->end);
	bn_dirlock_release(&dl);
	if (log)
		fclose(log);
}

/* The entry's record: its report read, judged against what the suite
 * expects of it, and let go (the suite keeps only the small record, so its
 * memory does not grow with the number of entries). status: the entry's
 * run's wait status; cause_in: why it did not run (then why_code, as an
 * exit code), or NULL. The limits the report names in lim_path, lim_sha
 * ("" if none). NULL when out of memory. */
static cJSON *judge_entry(const struct suite_run *r, const struct job *j, int status,
			  const char *cause_in, int why_code, char lim_path[1024], char lim_sha[65])
{
	const struct bn_suite_entry *e = &r->s->entries[j->entry];
	char cause[600] = "", line_buf[512], sha[65] = "";
	cJSON *report = NULL, *o;
	const char *cause_p = cause_in;
	int exit_code = cause_in ? why_code : -1;

	lim_path[0] = lim_sha[0] = '\0';
	report = read_report(j->dir, e->id, sha, cause, sizeof(cause));
	if (!cause_p && cause[0])
		cause_p = cause;
	if (report)
		limits_of(report, lim_path, lim_sha);
	if (!cause_p && WIFEXITED(status))
		exit_code = WEXITSTATUS(status);
	else if (!cause_p && WIFSIGNALED(status)) {
		int sig = WTERMSIG(status);

		snprintf(cause, sizeof(cause), "bcbench run was killed by signal %d", sig);
		cause_p = cause;
		/* stopped from outside, else it crashed (a firmware run without
		 * isolation) */
		exit_code = sig == SIGINT || sig == SIGTERM || sig == SIGHUP || sig == SIGKILL
				    ? BN_EXIT_INTERRUPTED(sig) : BN_EXIT_DUT_BROKE;
	}
	/* A run that wrote no report said why on its way out: the last line
	 * of its log ("bcbench: /dev/ttyUSB0: open: No such file ..."). */
	if (!cause_p && !report && last_log_line(j->dir, line_buf, sizeof(line_buf))) {
		snprintf(cause, sizeof(cause), "%s: %.480s",
			 exit_code == 2 ? "bad input" : "no report was written", line_buf);
		cause_p = cause;
	}
	o = bn_suite_judge(e, report, sha, exit_code, cause_p, j->rel,
			   j->pid ? (j->t1 > 0 ? j->t1 : bn_mono_s()) - j->t0 : 0);
	cJSON_Delete(report);
	return o;
}

/* The entry judged in its own process, as it ended (run_entry_body): the
 * suite reads that small record instead of the report (the same code on
 * the same bytes, judged beside the next entry's run instead of in the
 * suite's process, whose every page a fork has just made copy-on-write).
 * Its wall time is the suite's to say. NULL when there is none (the
 * entry died, or its record did not fit). */
static cJSON *judged_by_entry(struct job *j)
{
	const struct slot_shared *sh = j->shared;
	cJSON *o;

	if (!sh || j->end.abnormal || !__atomic_load_n(&sh->ready, __ATOMIC_ACQUIRE) || sh->len == 0 ||
	    sh->len >= sizeof(sh->text))
		return NULL;
	o = cJSON_ParseWithLength(sh->text, sh->len);
	if (!cJSON_IsObject(o)) {
		cJSON_Delete(o);
		return NULL;
	}
	snprintf(j->lim_path, sizeof(j->lim_path), "%.*s", (int)sizeof(sh->lim_path) - 1, sh->lim_path);
	snprintf(j->lim_sha, sizeof(j->lim_sha), "%.*s", (int)sizeof(sh->lim_sha) - 1, sh->lim_sha);
	cJSON_ReplaceItemInObjectCaseSensitive(o, "wall_s", cJSON_CreateNumber(j->t1 - j->t0));
	return o;
}

/* status: the entry's run's wait status; cause_in: why it did not run
 * (then why_code, as an exit code), or NULL. */
static void finish(struct suite_run *r, struct job *j, int status, const char *cause_in,
		   int why_code)
{
	const struct bn_suite_entry *e = &r->s->entries[j->entry];
	char lim_path[1024], lim_sha[65];
	cJSON *o = NULL, *u, *line;

	if (!cause_in && j->judged) {
		o = j->judged;
		snprintf(lim_path, sizeof(lim_path), "%s", j->lim_path);
		snprintf(lim_sha, sizeof(lim_sha), "%s", j->lim_sha);
	} else {
		cJSON_Delete(j->judged);
		o = judge_entry(r, j, status, cause_in, why_code, lim_path, lim_sha);
	}
	j->judged = NULL;
	if (!o)
		return;
	note_limits(r, lim_path, lim_sha);
	r->done[e->index] = o;
	r->n_done++;
	r->cost_done += e->cost;
	if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "as_expected")))
		r->n_unexpected++;
	if (!strcmp(cJSON_GetObjectItemCaseSensitive(o, "outcome")->valuestring, "error"))
		r->n_error++;
	u = cJSON_GetObjectItemCaseSensitive(o, "unexpected");
	if (r->quiet && !cJSON_GetArraySize(u))
		return;
	if (r->tty && !r->quiet)
		printf("\r\033[K");
	if (!r->tty || cJSON_GetArraySize(u) || !r->quiet)
		if (!r->tty || cJSON_GetArraySize(u))
			bn_term_printf(stdout, "[%d/%d] %-6s %s%s (%.2f s)\n", r->n_done, r->n_pick,
			       cJSON_GetObjectItemCaseSensitive(o, "outcome")->valuestring, e->id,
			       cJSON_GetArraySize(u) ? "  UNEXPECTED" : "",
			       cJSON_GetObjectItemCaseSensitive(o, "wall_s")->valuedouble);
	cJSON_ArrayForEach(line, u)
		bn_term_printf(stdout, "         %s\n", line->valuestring);
	progress_line(r);
}

static bool entry_errored(const struct suite_run *r, int entry)
{
	const cJSON *o = r->done[r->s->entries[entry].index];
	const cJSON *outcome = o ? cJSON_GetObjectItemCaseSensitive(o, "outcome") : NULL;

	return cJSON_IsString(outcome) && !strcmp(outcome->valuestring, "error");
}

/* Open the real bench and close it again (its safe state). False when it
 * opens; else cause says, for the entries not run, what is gone. */
static bool bench_gone(const struct bn_conf *conf, const char *datadir,
		       const struct bn_suite_entry *after, char *cause, size_t len)
{
	struct bn_err err = { 0 };

	if (bn_bench_hw_safe(conf, datadir, &err) == BN_OK)
		return false;
	snprintf(cause, len, "not run: the bench failed after entry %d (%.120s) ended in error: %.500s",
		 after->index, after->id, err.msg);
	return true;
}

/* The entries write their report.json and capture.sr without an fsync
 * each (bn_cli_run_inherit.defer_sync): one syncfs of the file system
 * under out_dir here makes all of them durable at once, where four
 * fsyncs an entry cost a short entry more wall time than its run (and,
 * on a disk shared with other work, far more). A power cut before this
 * loses no suite.json that names a record it could not find: suite.json
 * is written after. A write-back error (the disk failed under an
 * entry's files) is said, not passed over. */
static int sync_output(const char *out_dir, struct bn_err *err)
{
	int fd = open(out_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), e = 0;

	if (fd < 0 || syncfs(fd) < 0)
		e = errno;
	if (fd >= 0)
		close(fd);
	if (e)
		return bn_err_set(err, bn_err_from_write_errno(e),
				  "%s: syncing the entries' records: %s", out_dir, strerror(e));
	return BN_OK;
}

static int write_doc(struct suite_run *r, const int *pick, const char *filter, int shard_k,
		     int shard_n, int n_matching, double wall_s, cJSON **doc_out,
		     const char *suite_path, struct bn_err *err)
{
	cJSON *doc = cJSON_CreateObject(), *o, *entries;
	char sha[65] = "", path[1300];
	double entries_wall = 0;
	char *text;
	int rc;

	bn_file_sha256(suite_path, sha, err);
	cJSON_AddStringToObject(doc, "schema", BN_SUITE_SCHEMA);
	o = cJSON_AddObjectToObject(doc, "tool");
	cJSON_AddStringToObject(o, "name", "bcbench");
	cJSON_AddStringToObject(o, "version", BN_VERSION);
	o = cJSON_AddObjectToObject(doc, "suite");
	cJSON_AddStringToObject(o, "name", r->s->name);
	cJSON_AddStringToObject(o, "path", suite_path);
	cJSON_AddStringToObject(o, "sha256", sha);
	o = cJSON_AddObjectToObject(doc, "bench");
	cJSON_AddStringToObject(o, "backend", r->real_bench ? "real" : "sim");
	/* The limits that judged: the first report's (all share them). */
	o = cJSON_AddObjectToObject(doc, "limits");
	cJSON_AddStringToObject(o, "path", r->limits_path);
	cJSON_AddStringToObject(o, "sha256", r->limits_sha);
	if (shard_n > 1) {
		o = cJSON_AddObjectToObject(doc, "shard");
		cJSON_AddNumberToObject(o, "index", shard_k);
		cJSON_AddNumberToObject(o, "count", shard_n);
	} else {
		cJSON_AddNullToObject(doc, "shard");
	}
	if (filter)
		cJSON_AddStringToObject(doc, "filter", filter);
	else
		cJSON_AddNullToObject(doc, "filter");
	cJSON_AddNumberToObject(doc, "jobs", r->jobs);
	cJSON_AddNumberToObject(doc, "entries_in_suite", n_matching);
	entries = cJSON_AddArrayToObject(doc, "entries");
	(void)pick;
	for (int i = 0; i < r->s->n_entries; i++)
		if (r->done[i]) {
			entries_wall += cJSON_GetObjectItemCaseSensitive(r->done[i], "wall_s")->valuedouble;
			cJSON_AddItemToArray(entries, r->done[i]);
			r->done[i] = NULL;
		}
	o = cJSON_AddObjectToObject(doc, "timing");
	cJSON_AddNumberToObject(o, "wall_s", wall_s);
	cJSON_AddNumberToObject(o, "entries_wall_s", entries_wall);
	rc = bn_suite_doc_totals(doc, err);
	if (rc < 0) {
		cJSON_Delete(doc);
		return rc;
	}
	/* The entries' records made durable before suite.json names them. */
	rc = sync_output(r->out_dir, err);
	if (rc < 0) {
		cJSON_Delete(doc);
		return rc;
	}
	text = bn_json_print(doc);
	snprintf(path, sizeof(path), "%s/suite.json", r->out_dir);
	rc = text ? bn_file_write_atomic(path, text, strlen(text), err)
		  : bn_err_set(err, BN_ERR_NOMEM, "out of memory rendering suite.json");
	free(text);
	*doc_out = doc;
	return rc;
}

/* DIR/report.html from the suite.json just written (and the baseline's
 * diff): the same code as `bcbench report html`. */
static int suite_page(const cJSON *doc, const char *out_dir, const char *baseline)
{
	char path[1300], html[1300];
	struct bn_err err = { 0 };
	cJSON *base = NULL;
	int rc;

	snprintf(path, sizeof(path), "%s/suite.json", out_dir);
	snprintf(html, sizeof(html), "%s/report.html", out_dir);
	if (baseline && (bn_json_load(baseline, &base, &err) < 0 ||
			 bn_suite_doc_check(base, baseline, &err) < 0)) {
		fprintf(stderr, "bcbench suite: the baseline: %s (report.html without the diff)\n", err.msg);
		cJSON_Delete(base);
		base = NULL;
		baseline = NULL;
		bn_err_clear(&err);
	}
	rc = bn_suite_html_write(doc, path, base, baseline, html, &err);
	cJSON_Delete(base);
	if (rc < 0) {
		fprintf(stderr, "bcbench suite: cannot write %s: %s\n", html, err.msg);
		return rc;
	}
	printf("  page: %s\n", html);
	return 0;
}

/* Entries the suite expected to pass whose reports did not demonstrate
 * compliance (--require-verdicts), each named. */
static int not_demonstrated(const cJSON *doc, const char *out_dir)
{
	char path[1300];
	const cJSON *e;
	int n = 0;

	snprintf(path, sizeof(path), "%s/suite.json", out_dir);
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(doc, "entries")) {
		const cJSON *out = cJSON_GetObjectItemCaseSensitive(e, "outcome");
		const cJSON *id = cJSON_GetObjectItemCaseSensitive(e, "id");
		struct bn_err err = { 0 };
		cJSON *rep = NULL;

		if (!cJSON_IsString(out) || strcmp(out->valuestring, "pass"))
			continue;
		if (bn_suite_report_load(e, path, &rep, &err) < 0 || !rep ||
		    bn_report_json_overall(rep) == BN_OVERALL_NOT_DEMONSTRATED) {
			printf("  compliance not demonstrated: %s\n", cJSON_IsString(id) ? id->valuestring : "?");
			n++;
		}
		cJSON_Delete(rep);
	}
	if (n)
		printf("  %d entr%s did not demonstrate compliance (--require-verdicts): exit 4\n", n,
		       n == 1 ? "y" : "ies");
	return n;
}

static const char *const expect_words[] = { "pass", "xfail", "xerror" };

static bool picked(const int *pick, int n_pick, int i)
{
	for (int k = 0; k < n_pick; k++)
		if (pick[k] == i)
			return true;
	return false;
}

/* --list: one line per selected entry (index, id, expectation, rules). */
static int list_text(const struct bn_suite *s, const int *pick, int n_pick)
{
	for (int i = 0; i < s->n_entries; i++) {
		const struct bn_suite_entry *e = &s->entries[i];

		if (!picked(pick, n_pick, i))
			continue;
		printf("%4d  %-60s %s", e->index, e->id, expect_words[e->expect]);
		for (int k = 0; k < e->n_rules; k++)
			printf(" %s", e->rules[k]);
		printf("\n");
	}
	printf("%d of %d entries\n", n_pick, s->n_entries);
	return 0;
}

/* --list --json: the same as one JSON document on stdout (bcbench(1),
 * "suite --list --json"): {"schema", "suite", "path", "total",
 * "selected", "entries": [{"index", "id", "scenario", "expect",
 * "rules", "params": {AXIS: value or null}}]}. */
static int list_json(const struct bn_suite *s, const int *pick, int n_pick)
{
	cJSON *doc = cJSON_CreateObject(), *entries = cJSON_CreateArray();

	if (!doc || !entries) {
		cJSON_Delete(doc);
		cJSON_Delete(entries);
		fprintf(stderr, "bcbench suite: out of memory\n");
		return BN_EXIT_ENVIRONMENT;
	}
	cJSON_AddStringToObject(doc, "schema", "bcbench-suite-list/1");
	cJSON_AddStringToObject(doc, "suite", s->name);
	cJSON_AddStringToObject(doc, "path", s->path);
	cJSON_AddNumberToObject(doc, "total", s->n_entries);
	cJSON_AddNumberToObject(doc, "selected", n_pick);
	cJSON_AddItemToObject(doc, "entries", entries);
	for (int i = 0; i < s->n_entries; i++) {
		const struct bn_suite_entry *e = &s->entries[i];
		cJSON *o, *rules, *params;

		if (!picked(pick, n_pick, i))
			continue;
		o = cJSON_CreateObject();
		cJSON_AddItemToArray(entries, o);
		cJSON_AddNumberToObject(o, "index", e->index);
		cJSON_AddStringToObject(o, "id", e->id);
		cJSON_AddStringToObject(o, "scenario", e->scenario);
		cJSON_AddStringToObject(o, "expect", expect_words[e->expect]);
		rules = cJSON_AddArrayToObject(o, "rules");
		for (int k = 0; k < e->n_rules; k++)
			cJSON_AddItemToArray(rules, cJSON_CreateString(e->rules[k]));
		params = cJSON_AddObjectToObject(o, "params");
		for (int a = 0; a < BN_AXIS_COUNT; a++)
			if (e->param[a][0])
				cJSON_AddStringToObject(params, bn_suite_axis_name((enum bn_suite_axis)a), e->param[a]);
			else
				cJSON_AddNullToObject(params, bn_suite_axis_name((enum bn_suite_axis)a));
	}
	return bn_cli_print_json("suite", doc, 0);
}

/* --filter matched no entry: say so with the nearest to each of its
 * patterns (an entry's id, or its scenario's stem as a glob), and the
 * first few ids. */
static void nothing_matches(const struct bn_suite *s, const char *filter)
{
	int n = s->n_entries;
	const char **names = malloc((size_t)(2 * n + 1) * sizeof(*names));
	char (*stems)[200] = malloc((size_t)(n + 1) * sizeof(*stems));
	char pat[256], near_list[600] = "";
	size_t used = 0;

	fprintf(stderr, "bcbench suite: --filter '%s' matches none of the %d entries of %s", filter, n,
		s->path);
	for (int i = 0; names && stems && i < n; i++) {
		names[i] = s->entries[i].id;
		snprintf(stems[i], sizeof(stems[i]), "%.*s", (int)strcspn(s->entries[i].id, "/"),
			 s->entries[i].id);
		names[n + i] = stems[i];
	}
	for (const char *p = filter; names && stems && *p;) {
		size_t len = strcspn(p, ","), k = 0;
		const char *near;

		/* the pattern without its wildcards, against ids and stems */
		for (size_t j = 0; j < len && k < sizeof(pat) - 1; j++)
			if (p[j] != '*' && p[j] != '?')
				pat[k++] = p[j];
		pat[k] = '\0';
		near = bn_suggest_nearest(pat, names, 2 * n);
		if (near && used < sizeof(near_list))
			used += (size_t)snprintf(near_list + used, sizeof(near_list) - used, "%s'%s%s'",
						 used ? ", " : "", near, near >= stems[0] && near <= stems[n - 1]
						 ? "*" : "");
		p += len;
		if (*p == ',')
			p++;
	}
	if (near_list[0])
		fprintf(stderr, "; did you mean %s?", near_list);
	fprintf(stderr, "\n  its entries:");
	for (int i = 0; i < n && i < 8; i++)
		fprintf(stderr, " %s", s->entries[i].id);
	fprintf(stderr, "%s\n  (bcbench suite --list %s lists them all; --filter takes globs, "
		"e.g. 'dcp*')\n", n > 8 ? " ..." : "", s->path);
	free(names);
	free(stems);
}

int bn_cli_suite(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "jobs", required_argument, NULL, 'j' },
		{ "out", required_argument, NULL, 'o' },
		{ "junit", required_argument, NULL, 'J' },
		{ "shard", required_argument, NULL, 'S' },
		{ "filter", required_argument, NULL, 'F' },
		{ "fwdir", required_argument, NULL, 'B' },
		{ "watchdog", required_argument, NULL, 'W' },
		{ "limits", required_argument, NULL, 'l' },
		{ "list", no_argument, NULL, 'L' },
		{ "json", no_argument, NULL, 'N' },
		{ "baseline", required_argument, NULL, 'b' },
		{ "operator", required_argument, NULL, 'O' },
		{ "no-html", no_argument, NULL, 'X' },
		{ "no-capture", no_argument, NULL, 'Z' },
		{ "require-verdicts", no_argument, NULL, 'R' },
		{ "wait", required_argument, NULL, 'w' },
		{ "conf", required_argument, NULL, 'c' },
		{ "datadir", required_argument, NULL, 'd' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *conf_path = NULL, *out_dir = NULL, *datadir = NULL, *junit = NULL,
		   *filter = NULL, *fwdir = NULL, *limits = NULL, *baseline = NULL, *operator_opt = NULL;
	char datadir_buf[1200], out_buf[1200], operator_buf[64], fwdir_buf[BN_DATADIR_LEN],
		fw_tried[BN_DATADIR_TRIED_LEN];
	bool no_html = false, no_capture = false, require_verdicts = false;
	struct bn_conf conf;
	struct bn_err err = { 0 };
	struct bn_suite s;
	struct bn_suite_opts so;
	struct suite_run r = { 0 };
	struct job reaped = { 0 };      /* an entry that ended, not yet judged */
	int reaped_status = 0;
	bool have_reaped = false;
	struct bn_limits suite_lim = { 0 };
	struct job *slots = NULL;
	struct slot_shared *shared = MAP_FAILED;
	struct bn_isolate_child **watched = NULL;
	cJSON *doc = NULL;
	int *pick = NULL;
	int verbose = 0, quiet = 0, list = 0, json = 0, jobs = 0, shard_k = 1, shard_n = 1, c, rc, next = 0,
	    running = 0, n_matching, exit_code;
	double watchdog_s = 0, wait_s = 0;
	struct bn_lock lock = { .fd = -1 };
	struct bn_dirlock dirlock = { .fd = -1 };
	char unrun_cause[900] = "";
	int unrun_from = -1; /* entries from here on are recorded as not run */
	int unrun_code = BN_EXIT_BENCH_FAULT; /* and why, as an exit code */
	volatile sig_atomic_t *stop = bn_cli_stop_flag();

	optind = 1;
	while ((c = getopt_long(argc, argv, "j:o:c:d:l:w:vqh", opts, NULL)) != -1) {
		switch (c) {
		case 'j': {
			char *end;
			long v = strtol(optarg, &end, 10);

			if (end == optarg || *end || v < 1 || v > 256) {
				fprintf(stderr, "bcbench suite: -j \"%s\": expected a number of jobs, "
						"1 to 256\n", optarg);
				return 2;
			}
			jobs = (int)v;
			break;
		}
		case 'S':
			if (bn_suite_parse_shard(optarg, &shard_k, &shard_n, &err) < 0) {
				fprintf(stderr, "bcbench suite: %s\n", err.msg);
				return 2;
			}
			break;
		case 'W':
			if (bn_cli_parse_seconds("suite", "--watchdog", optarg, &watchdog_s))
				return 2;
			break;
		case 'w':
			if (bn_cli_parse_wait("suite", optarg, &wait_s))
				return 2;
			break;
		case 'o': out_dir = optarg; break;
		case 'J': junit = optarg; break;
		case 'F': filter = optarg; break;
		case 'B': fwdir = optarg; break;
		case 'l': limits = optarg; break;
		case 'L': list = 1; break;
		case 'N': json = 1; break;
		case 'b': baseline = optarg; break;
		case 'O': operator_opt = optarg; break;
		case 'X': no_html = true; break;
		case 'Z': no_capture = true; break;
		case 'R': require_verdicts = true; break;
		case 'c': conf_path = optarg; break;
		case 'd': datadir = optarg; break;
		case 'v': verbose++; break;
		case 'q': quiet = 1; break;
		case 'h': fputs(bn_cli_suite_usage, stdout); return 0;
		default: fputs(bn_cli_suite_usage, stderr); return 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "bcbench suite: expected one suite FILE\n%s", bn_cli_suite_usage);
		return 2;
	}
	bn_log_set_level(quiet ? BN_LOG_ERR : BN_LOG_WARN + verbose);
	if (bn_cli_conf(&conf_path, &conf))
		return 2;
	rc = bn_cli_hw_exec("bcbench suite", &conf, false);
	if (rc)
		return rc;
	datadir = bn_cli_datadir(datadir, &conf, conf_path, datadir_buf, sizeof(datadir_buf));
	if (!datadir)
		return 2;
	if (limits && access(limits, R_OK) != 0) {
		fprintf(stderr, "bcbench suite: cannot open limits file \"%s\"\n", limits);
		return 2;
	}
	if (baseline && access(baseline, R_OK) != 0) {
		fprintf(stderr, "bcbench suite: cannot open the baseline \"%s\"\n", baseline);
		return 2;
	}
	so = (struct bn_suite_opts){ .datadir = datadir, .fwdir = fwdir };
	if (!fwdir && getenv("BCBENCH_FWDIR") && getenv("BCBENCH_FWDIR")[0]) {
		so.fwdir = getenv("BCBENCH_FWDIR");
		so.fwdir_from = "BCBENCH_FWDIR";
	}
	if (bn_fwdir_beside_exe(fwdir_buf, sizeof(fwdir_buf), fw_tried, sizeof(fw_tried)) == BN_OK)
		so.fwdir_default = fwdir_buf;
	if (bn_suite_parse_file(argv[optind], &so, &s, &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		return 2;
	}
	pick = calloc((size_t)s.n_entries, sizeof(*pick));
	r.done = calloc((size_t)s.n_entries, sizeof(*r.done));
	if ((!pick || !r.done) && s.n_entries) {
		free(pick);
		free(r.done);
		bn_suite_free(&s);
		return BN_EXIT_ENVIRONMENT;
	}
	r.n_pick = bn_suite_select(&s, filter, shard_k, shard_n, pick, &n_matching);
	if (json && !list) {
		fprintf(stderr, "bcbench suite: --json goes with --list (the run's record is suite.json)\n");
		free(pick);
		free(r.done);
		bn_suite_free(&s);
		return 2;
	}
	/* the nearest names; a run goes on to write suite.json saying that
	 * nothing ran (a CI job's artifact), a --list has nothing to list */
	if (filter && !n_matching)
		nothing_matches(&s, filter);
	if (list) {
		rc = json ? list_json(&s, pick, r.n_pick) : list_text(&s, pick, r.n_pick);
		free(pick);
		free(r.done);
		bn_suite_free(&s);
		return rc ? rc : r.n_pick ? BN_EXIT_OK : BN_EXIT_NOTHING_TO_RUN;
	}
	/* Nothing selected is not a pass: a CI job whose filter or shard
	 * went wrong must not go green (exit 7, with suite.json saying so). */
	if (!r.n_pick)
		fprintf(stderr, "bcbench suite: nothing to run: %s%s%s%s (exit 7)\n",
			!s.n_entries ? "the suite has no entries" : "no entry matches",
			filter ? " --filter " : "", filter ? filter : "",
			shard_n > 1 && s.n_entries ? " in this shard" : "");
	if (!out_dir) {
		snprintf(out_buf, sizeof(out_buf), "%s/suite-%s", conf.out, s.name);
		for (char *p = out_buf + strlen(conf.out) + 1; *p; p++)
			if (*p == ' ' || *p == '/')
				*p = '-';
		out_dir = out_buf;
	}
	if (bn_mkdir_p(out_dir, &err) < 0) {
		fprintf(stderr, "bcbench suite: %s\n", err.msg);
		free(pick);
		free(r.done);
		bn_suite_free(&s);
		return bn_cli_exit_of(err.code); /* an unwritable output: 6 */
	}
	/* One writer per output directory; the entries a killed suite left
	 * unfinished are finished and moved aside before any is run again. */
	{
		char who[400];

		snprintf(who, sizeof(who), "bcbench suite %.300s", argv[optind]);
		if (bn_dirlock_take(&dirlock, out_dir, who, &err) < 0 ||
		    bn_salvage_suite_entries(out_dir, false, &err) < 0) {
			fprintf(stderr, "bcbench suite: %s\n", err.msg);
			bn_dirlock_release(&dirlock);
			free(pick);
			free(r.done);
			bn_suite_free(&s);
			return bn_cli_exit_of(err.code);
		}
	}
	r.s = &s;
	r.out_dir = out_dir;
	r.no_html = no_html;
	r.no_capture = no_capture;
	r.operator_name = bn_cli_operator(operator_opt, operator_buf, sizeof(operator_buf));
	r.conf_path = conf_path;
	r.datadir = datadir;
	r.limits = limits ? limits : s.limits[0] ? s.limits : NULL;
	r.watchdog_s = watchdog_s > 0 ? watchdog_s : s.watchdog_s > 0 ? s.watchdog_s : 30;
	r.conf = &conf;
	r.real_bench = bn_conf_has_hardware(&conf);
	r.jobs = jobs ? jobs : bn_isolate_cores_allowed();
	if (r.jobs < 1)
		r.jobs = 1;
	if (r.real_bench && r.jobs > 1) {
		if (jobs > 1)
			fprintf(stderr, "bcbench suite: note: a real bench runs one entry at a time "
					"(-j %d ignored)\n", jobs);
		r.jobs = 1;
	}
	r.inherit.capture_threads = bn_isolate_capture_threads(bn_isolate_cores_allowed(), r.jobs);
	r.inherit.defer_sync = true;
	/* The limits every entry is judged against unless its scenario names
	 * its own, parsed once here: the entries are forked from this process
	 * and borrow it. One that cannot be parsed is left to each entry,
	 * which says why in its own record. */
	{
		char lim_path[BN_DATADIR_LEN + 600];
		struct bn_err lerr = { 0 };

		bn_run_limits_path(r.limits, conf.limits, datadir, lim_path, sizeof(lim_path));
		if (bn_limits_load(lim_path, &suite_lim, &lerr) == BN_OK)
			r.inherit.limits = &suite_lim;
	}
	r.quiet = quiet;
	r.tty = isatty(STDOUT_FILENO);
	for (int i = 0; i < r.n_pick; i++)
		r.cost_total += s.entries[pick[i]].cost;
	slots = calloc((size_t)r.jobs, sizeof(*slots));
	watched = calloc((size_t)r.jobs, sizeof(*watched));
	shared = mmap(NULL, (size_t)r.jobs * sizeof(*shared), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (!slots || !watched || shared == MAP_FAILED) {
		if (shared != MAP_FAILED)
			munmap(shared, (size_t)r.jobs * sizeof(*shared));
		free(watched);
		free(slots);
		free(pick);
		free(r.done);
		bn_suite_free(&s);
		if (r.inherit.limits)
			bn_limits_free(&suite_lim);
		return BN_EXIT_ENVIRONMENT;
	}
	bn_cli_catch_signals();
	r.t0 = bn_mono_s();
	/* The suite holds the bench for all its entries, which share the lock
	 * (BN_LOCK_FD_ENV): a run queued behind one entry must not take the
	 * bench in the middle of the suite. */
	if (r.n_pick) {
		char who[400];
		struct bn_err lerr = { 0 };

		snprintf(who, sizeof(who), "bcbench suite %.300s", argv[optind]);
		if (bn_cli_lock_err(&conf, who, wait_s, quiet, &lock, &lerr)) {
			snprintf(unrun_cause, sizeof(unrun_cause), "not run: %s", lerr.msg);
			unrun_code = bn_exit_of_err(lerr.code, (int)*stop);
			fprintf(stderr, "bcbench suite: %s\n", lerr.msg);
			unrun_from = 0;
		}
		bn_lock_share_with_children(&lock);
	}
	if (!quiet)
		bn_term_printf(stdout, "bcbench %s: suite %s (%s): %d entries%s, %d at a time, on the %s bench\n",
		       BN_VERSION, s.name, argv[optind], r.n_pick,
		       shard_n > 1 || filter ? " selected" : "", r.jobs,
		       r.real_bench ? "real" : "simulated");
	progress_line(&r);
	while ((unrun_from < 0 && next < r.n_pick) || running > 0 || have_reaped) {
		while (!*stop && unrun_from < 0 && running < r.jobs && next < r.n_pick) {
			struct job *j = NULL;
			int slot = -1;

			for (int k = 0; k < r.jobs && !j; k++)
				if (!slots[k].pid) {
					j = &slots[k];
					slot = k;
				}
			memset(j, 0, sizeof(*j));
			j->entry = pick[next++];
			if (launch(&r, j, &shared[slot], &err) < 0) {
				char cause[900];
				int code;

				snprintf(cause, sizeof(cause), "could not start: %s", err.msg);
				code = bn_exit_of_err(err.code, 0);
				bn_err_clear(&err);
				j->pid = 0;
				/* (nothing ran: not the input's, the machine's) */
				finish(&r, j, 0, cause,
				       code == BN_EXIT_BAD_INPUT ? BN_EXIT_ENVIRONMENT : code);
				continue;
			}
			running++;
		}
		/* The entry that ended is judged once the next has started: the
		 * parent's reading of its report overlaps the entries' runs
		 * instead of holding a slot empty. */
		if (have_reaped) {
			finish(&r, &reaped, reaped_status, NULL, -1);
			free(reaped.keep);
			reaped.keep = NULL;
			have_reaped = false;
		}
		if (!running)
			break;
		/* Each running entry looked at: its watchdog, the stop passed
		 * on and its grace; one that ended is taken (a real bench's is
		 * judged at once: it is checked before its next entry). */
		{
			int k, ended = -1;

			for (k = 0; k < r.jobs && ended < 0; k++) {
				if (!slots[k].pid)
					continue;
				rc = bn_isolate_step(&slots[k].iso, &slots[k].ch, &slots[k].end);
				if (rc == 1)
					ended = k;
				else if (rc < 0)
					break;
			}
			if (k < r.jobs && ended < 0) /* waitpid failed: nothing left to wait for */
				break;
			if (ended < 0) {
				for (k = 0; k < r.jobs; k++)
					watched[k] = slots[k].pid ? &slots[k].ch : NULL;
				bn_isolate_wait(watched, r.jobs);
				continue;
			}
			k = ended;
			slots[k].t1 = bn_mono_s();
			running--;
			/* a run that died or was killed: its record finished here,
			 * as its own watcher would have */
			if (slots[k].end.abnormal)
				salvage_entry(&r, &slots[k]);
			/* taken now: the slot's memory is the next entry's */
			slots[k].judged = judged_by_entry(&slots[k]);
			if (!r.real_bench) {
				reaped = slots[k];
				reaped_status = slots[k].end.exit_code << 8;
				have_reaped = true;
				slots[k].pid = 0;
				slots[k].keep = NULL;
				continue;
			}
			finish(&r, &slots[k], slots[k].end.exit_code << 8, NULL, -1);
			free(slots[k].keep);
			slots[k].keep = NULL;
			slots[k].pid = 0;
			/* A real bench after an entry's error: is it still
			 * there? If not, the rest would each fail the same
			 * way, one instrument time-out after another. */
			if (unrun_from < 0 && !*stop && next < r.n_pick &&
			    entry_errored(&r, slots[k].entry) &&
			    bench_gone(&conf, datadir, &r.s->entries[slots[k].entry], unrun_cause,
				       sizeof(unrun_cause))) {
				fprintf(stderr, "bcbench suite: %s\n", unrun_cause + 9);
				unrun_from = next;
			}
		}
	}
	/* What an interrupt or a bench in use left unrun is recorded, not
	 * silently dropped. */
	for (next = unrun_from >= 0 ? unrun_from : next; next < r.n_pick; next++) {
		struct job j = { .entry = pick[next] };

		entry_dirname(&s.entries[j.entry], j.rel + 8, sizeof(j.rel) - 8);
		memcpy(j.rel, "entries/", 8);
		snprintf(j.dir, sizeof(j.dir), "%s/%s", out_dir, j.rel);
		if (!unrun_cause[0]) {
			snprintf(unrun_cause, sizeof(unrun_cause),
				 "not run: the suite was interrupted by %s", bn_cli_signal_name(*stop));
			unrun_code = BN_EXIT_INTERRUPTED((int)*stop);
		}
		finish(&r, &j, 0, unrun_cause, unrun_code);
	}
	if (r.tty && !quiet)
		printf("\r\033[K");
	rc = write_doc(&r, pick, filter, shard_k, shard_n, n_matching, bn_mono_s() - r.t0, &doc,
		       argv[optind], &err);
	if (rc < 0) {
		fprintf(stderr, "bcbench suite: cannot write %s/suite.json: %s\n", out_dir, err.msg);
		exit_code = bn_exit_of_err(err.code, 0);
		if (*stop)
			exit_code = bn_exit_most_urgent(exit_code, BN_EXIT_INTERRUPTED((int)*stop));
	} else {
		const cJSON *t = cJSON_GetObjectItemCaseSensitive(doc, "totals");
		int n;

		exit_code = cJSON_GetObjectItemCaseSensitive(doc, "exit_code")->valueint;
		if (*stop)
			exit_code = bn_exit_most_urgent(exit_code, BN_EXIT_INTERRUPTED((int)*stop));
#define T(k) cJSON_GetObjectItemCaseSensitive(t, k)->valueint
		n = printf("suite %s: %d entries: %d passed, %d xfail, %d failed, %d xpass, %d errors "
			   "— %d unexpected (%.1f s)\n",
			   s.name, T("entries"), T("pass"), T("xfail"), T("fail"), T("xpass"),
			   T("error"), T("unexpected"), cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "timing"), "wall_s")->valuedouble);
#undef T
		(void)n;
		printf("  suite report: %s/suite.json\n", out_dir);
		if (!no_html && suite_page(doc, out_dir, baseline) < 0)
			exit_code = bn_exit_most_urgent(exit_code, BN_EXIT_ENVIRONMENT);
		if (require_verdicts && not_demonstrated(doc, out_dir) > 0)
			exit_code = bn_exit_most_urgent(exit_code, BN_EXIT_NOT_DEMONSTRATED);
		if (junit) {
			char dir[1200], path[1300];

			snprintf(dir, sizeof(dir), "%s", junit);
			snprintf(path, sizeof(path), "%s/suite.json", out_dir);
			if (bn_mkdir_p(dirname(dir), &err) < 0 ||
			    bn_junit_write(doc, path, junit, &err) < 0) {
				fprintf(stderr, "bcbench suite: cannot write JUnit: %s\n", err.msg);
				exit_code = bn_exit_most_urgent(exit_code, bn_exit_of_err(err.code, 0));
			} else {
				printf("  junit: %s\n", junit);
			}
		}
		printf("  exit %d (%s)\n", exit_code, bn_exit_cause(exit_code));
	}
	bn_lock_release(&lock);
	bn_dirlock_release(&dirlock);
	cJSON_Delete(doc);
	for (int i = 0; i < s.n_entries; i++)
		cJSON_Delete(r.done[i]);
	free(r.done);
	munmap(shared, (size_t)r.jobs * sizeof(*shared));
	free(watched);
	free(slots);
	free(pick);
	bn_suite_free(&s);
	if (r.inherit.limits)
		bn_limits_free(&suite_lim);
	return exit_code;
}
