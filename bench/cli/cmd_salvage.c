/* bcbench salvage DIR, and what a run shares with it: finishing the
 * record a run left unfinished in its directory (the run's processes were
 * killed, a machine went down): the capture's spool zipped to capture.sr,
 * the events' temporary file closed as events.json, the report marked
 * error with the reason. A new run into such a directory does this first
 * and moves the finished record aside, so nothing of it is lost. */
#define _GNU_SOURCE /* memmem */
#define BN_LOG_MODULE "salvage"
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "capture/events.h"
#include "capture/srzip_read.h"
#include "capture/srzip_write.h"
#include "cli/cli.h"
#include "cli/common.h"
#include "core/dirlock.h"
#include "core/err.h"
#include "core/exit.h"
#include "core/file.h"
#include "core/json.h"
#include "core/log.h"
#include "core/time.h"
#include "report/report.h"

const char bn_cli_salvage_usage[] =
	"Usage: bcbench salvage DIR [-q]\n"
	"Finish the record a run left unfinished in DIR because its processes were\n"
	"killed (kill -9, a machine that went down): the capture's spool becomes\n"
	"capture.sr, the events' temporary file events.json, and report.json says\n"
	"error, the run was interrupted and not finished by its own process. For a\n"
	"suite's directory, every entry's. The result replays (bcbench replay\n"
	"DIR/capture.sr). A run into a directory holding such a record does this itself\n"
	"and moves the record to DIR/interrupted-YYYYmmdd-HHMMSS/ first.\n"
	"\n"
	"  -q, --quiet   print nothing when all goes well\n"
	"  -h, --help    this help\n"
	"\n"
	"Exit codes: 0 nothing to do, or salvaged; 2 DIR is not a bcbench output\n"
	"directory; 5 a run or suite still writes there; 6 it could not be written\n"
	"(a full disk: what could not be finished, the capture's spool, stays for the\n"
	"next bcbench salvage).\n"
	"The salvaged report.json says exit code 137, cause \"interrupted\" (killed).\n"
	"Every command's table: bcbench help.\n";

#define SALVAGE_CAUSE_CLI \
	"the run was interrupted and not finished by its own process (killed?); finished " \
	"by bcbench salvage"
#define SALVAGE_CAUSE_NEXT_RUN \
	"the run was interrupted and not finished by its own process (killed?); finished " \
	"by the next run into this directory"

/* the capture's spool directory (srzip_write.c) */
static bool capture_spool_name(const char *name)
{
	return !strncmp(name, ".capture.sr.", 12);
}

bool bn_run_temp_name(const char *name)
{
	/* the spool directory, libzip's temporary capture, an atomic
	 * write's temporary (core/file.c) */
	return capture_spool_name(name) || !strncmp(name, "capture.sr.", 11) ||
	       (name[0] == '.' && strstr(name, ".tmp-"));
}

char *bn_run_temps(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t len = 1, cap = 256;
	char *out = malloc(cap);

	if (!out) {
		if (d)
			closedir(d);
		return NULL;
	}
	strcpy(out, "\n");
	while (d && (de = readdir(d))) {
		size_t n = strlen(de->d_name);

		if (!bn_run_temp_name(de->d_name))
			continue;
		if (len + n + 2 > cap) {
			char *more = realloc(out, cap = 2 * (len + n + 2));

			if (!more) {
				free(out);
				closedir(d);
				return NULL;
			}
			out = more;
		}
		memcpy(out + len, de->d_name, n);
		len += n;
		out[len++] = '\n';
		out[len] = '\0';
	}
	if (d)
		closedir(d);
	return out;
}

static bool listed(const char *list, const char *name)
{
	char key[300];

	if (!list)
		return false;
	snprintf(key, sizeof(key), "\n%s\n", name);
	return strstr(list, key) != NULL;
}

void bn_run_temps_remove(const char *dir, const char *keep, bool spare_spools)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char path[2400];

	if (!d)
		return;
	while ((de = readdir(d))) {
		if (!bn_run_temp_name(de->d_name) || listed(keep, de->d_name) ||
		    (spare_spools && capture_spool_name(de->d_name)))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (unlink(path) < 0) {
			DIR *sd = opendir(path);
			struct dirent *se;
			char sub[2700];

			while (sd && (se = readdir(sd)))
				if (strcmp(se->d_name, ".") && strcmp(se->d_name, "..")) {
					snprintf(sub, sizeof(sub), "%s/%s", path, se->d_name);
					unlink(sub);
				}
			if (sd)
				closedir(sd);
			rmdir(path);
		}
	}
	closedir(d);
}

/* A report the run wrote when the bench started, never replaced by its
 * final one. */
static bool report_provisional(const char *dir)
{
	char path[1400], *text;
	struct bn_err err = { 0 };
	cJSON *root = NULL;
	const cJSON *st, *reason;
	bool prov = false, maybe;
	size_t len;

	snprintf(path, sizeof(path), "%s/report.json", dir);
	if (access(path, F_OK) != 0 || bn_file_read(path, &text, &len, &err) < 0)
		return false;
	/* A final report (every one a suite run again into its directory
	 * meets) lacks the reason's words: not parsed (the reason has nothing
	 * JSON escapes, so a provisional report holds it as it is). */
	maybe = memmem(text, len, BN_PROVISIONAL_REASON, strlen(BN_PROVISIONAL_REASON)) != NULL;
	root = maybe ? cJSON_ParseWithLength(text, len) : NULL;
	free(text);
	if (!root)
		return false;
	st = cJSON_GetObjectItemCaseSensitive(root, "status");
	reason = cJSON_GetObjectItemCaseSensitive(st, "reason");
	prov = cJSON_IsString(reason) && !strcmp(reason->valuestring, BN_PROVISIONAL_REASON);
	cJSON_Delete(root);
	return prov;
}

bool bn_salvage_needed(const char *dir)
{
	char *temps = bn_run_temps(dir);
	bool any = temps && strcmp(temps, "\n");

	free(temps);
	return any || report_provisional(dir);
}

/* The time the capture ends: its frames at its rate; -1 without one. */
static int64_t capture_end_us(const char *dir)
{
	char path[1400];
	struct bn_err err = { 0 };
	struct bn_srr *r = NULL;
	int64_t t = -1;

	snprintf(path, sizeof(path), "%s/capture.sr", dir);
	if (access(path, R_OK) == 0 && bn_srr_open(path, &r, &err) == BN_OK) {
		const struct bn_srr_info *in = bn_srr_info(r);

		t = (int64_t)((double)in->n_frames / in->rate_hz * 1e6 + 0.5);
		bn_srr_close(r);
	}
	return t;
}

#define KEPT_CAPTURE 1
#define KEPT_EVENTS 2
/* the capture's salvage failed and left its spool for the next one */
#define KEPT_SPOOL 4

static void append(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void append(char *buf, size_t len, const char *fmt, ...)
{
	size_t n = strlen(buf);
	va_list ap;

	if (n + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + n, len - n, fmt, ap);
	va_end(ap);
}

/* The capture and events, finished from what the dead writers left on
 * disk; says in reason what was kept. KEPT_* bits. */
static int finish_files(const struct bn_salvage *s, int64_t *t_end_us, char *reason, size_t len)
{
	char path[1400];
	struct bn_err err = { 0 };
	int64_t frames = 0;
	int kept = 0, n_events = 0, rc;

	snprintf(path, sizeof(path), "%s/capture.sr", s->dir);
	rc = bn_srw_salvage(path, &frames, &err);
	if (rc == BN_OK) {
		kept |= KEPT_CAPTURE;
		append(reason, len, "; the capture up to then was kept: capture.sr (%lld frames)",
		       (long long)frames);
	} else if (rc != BN_ERR_NA) {
		/* a full disk, no memory: the spool stays for a salvage once the
		 * cause is gone; one bcbench did not write (BN_ERR_DATA) would
		 * fail every time, and goes with the other temporaries */
		if (rc == BN_ERR_ENV || rc == BN_ERR_NOMEM)
			kept |= KEPT_SPOOL;
		append(reason, len, "; its capture could not be kept: %.500s", err.msg);
	}
	bn_err_clear(&err);
	*t_end_us = s->sim_t_us >= 0 ? s->sim_t_us : (kept & KEPT_CAPTURE) ? capture_end_us(s->dir) : 0;
	if (*t_end_us < 0)
		*t_end_us = 0;
	snprintf(path, sizeof(path), "%s/events.json", s->dir);
	rc = bn_evlog_salvage(path, t_end_us, frames, "error", &n_events, &err);
	if (rc == BN_OK) {
		kept |= KEPT_EVENTS;
		append(reason, len, "%s events.json (%d events)",
		       kept & KEPT_CAPTURE ? "," : "; the events up to then were kept:", n_events);
	} else if (rc != BN_ERR_NA) {
		append(reason, len, "; its events could not be kept: %.150s", err.msg);
	}
	return kept;
}

int bn_salvage_record(const struct bn_salvage *s, char *reason, size_t len, struct bn_err *err)
{
	char path[1400];
	cJSON *root = NULL, *st;
	int64_t t_end_us = 0;
	/* not known: a process killed from outside (kill -9, a machine down) */
	int kept, code = s->exit_code ? s->exit_code : BN_EXIT_INTERRUPTED(SIGKILL);

	snprintf(reason, len, "%s", s->cause);
	kept = finish_files(s, &t_end_us, reason, len);
	/* Whatever could not be finished goes rather than pass for evidence;
	 * what was there before the run is not this run's to remove, and a
	 * capture spool whose salvage failed (a full disk) stays for the next
	 * salvage, which finds it (bn_salvage_needed): its frames are the
	 * capture. */
	bn_run_temps_remove(s->dir, s->keep, kept & KEPT_SPOOL);
	snprintf(path, sizeof(path), "%s/report.json", s->dir);
	if (access(path, F_OK) == 0 && bn_json_load(path, &root, err) < 0) {
		bn_err_clear(err);
		root = NULL;
	}
	if (root && (st = cJSON_GetObjectItemCaseSensitive(root, "status")) && cJSON_IsObject(st)) {
		cJSON *timing = cJSON_GetObjectItemCaseSensitive(root, "timing");

		cJSON_ReplaceItemInObjectCaseSensitive(st, "state", cJSON_CreateString("error"));
		cJSON_ReplaceItemInObjectCaseSensitive(st, "reason", cJSON_CreateString(reason));
		/* the rules the provisional report marked unfinished: why */
		{
			const cJSON *res = cJSON_GetObjectItemCaseSensitive(root, "results"), *it;
			char why[BN_ERR_MSG_LEN + 32];

			snprintf(why, sizeof(why), "the run ended early: %s", reason);
			cJSON_ArrayForEach(it, res) {
				const cJSON *v = cJSON_GetObjectItemCaseSensitive(it, "verdict");

				if (cJSON_IsString(v) && !strcmp(v->valuestring, "error"))
					cJSON_ReplaceItemInObjectCaseSensitive((cJSON *)it, "reason",
									  cJSON_CreateString(why));
			}
		}
		cJSON_ReplaceItemInObjectCaseSensitive(st, "exit_code", cJSON_CreateNumber(code));
		bn_json_set(st, "cause", cJSON_CreateString(bn_exit_cause(code)));
		if (kept) {
			cJSON *art = cJSON_GetObjectItemCaseSensitive(root, "artifacts");

			if (!cJSON_IsObject(art))
				art = cJSON_AddObjectToObject(root, "artifacts");
			if ((kept & KEPT_CAPTURE) && !cJSON_HasObjectItem(art, "capture"))
				cJSON_AddStringToObject(art, "capture", "capture.sr");
			if ((kept & KEPT_EVENTS) && !cJSON_HasObjectItem(art, "events"))
				cJSON_AddStringToObject(art, "events", "events.json");
		}
		if (cJSON_IsObject(timing) && t_end_us > 0)
			cJSON_ReplaceItemInObjectCaseSensitive(timing, "sim_s",
						  cJSON_CreateNumber(bn_time_to_s(t_end_us)));
		/* the files as finished here, so a page drawn from them can tell
		 * they are these; the verdict of what the record now says */
		{
			cJSON *art = cJSON_GetObjectItemCaseSensitive(root, "artifacts"), *a;
			cJSON *sums = cJSON_CreateObject();

			cJSON_ArrayForEach(a, art) {
				char file[1500], sha[65];
				struct bn_err e = { 0 };

				if (!cJSON_IsString(a) || !strcmp(a->string, "report") ||
				    !strcmp(a->string, "html"))
					continue;
				snprintf(file, sizeof(file), "%s/%s", s->dir, a->valuestring);
				if (bn_file_sha256(file, sha, &e) == 0)
					cJSON_AddStringToObject(sums, a->string, sha);
			}
			bn_json_set(root, "artifacts_sha256", sums);
			bn_report_json_set_verdicts(root);
		}
		return bn_json_write_atomic(path, root, err);
	} else {
		struct bn_report rep;
		int rc;

		cJSON_Delete(root);
		bn_report_init(&rep);
		snprintf(rep.scenario_name, sizeof(rep.scenario_name), "%s",
			 s->scenario ? s->scenario : "unknown");
		snprintf(rep.reason, sizeof(rep.reason), "%s", reason);
		rep.status = BN_RUN_ERROR;
		rep.exit_code = code;
		rep.sim_s = bn_time_to_s(t_end_us);
		if (s->scenario)
			bn_report_add_file(&rep, "scenario", s->scenario, NULL);
		if (kept & KEPT_CAPTURE)
			bn_report_artifact(&rep, "capture", "capture.sr");
		if (kept & KEPT_EVENTS)
			bn_report_artifact(&rep, "events", "events.json");
		bn_report_hash_artifacts(&rep, s->dir);
		rc = bn_report_write_json(&rep, path, err);
		bn_report_free(&rep);
		return rc;
	}
}

/* The capture spools in dir moved into aside: how many, or an error. */
static int move_spools(const char *dir, const char *aside, struct bn_err *err)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char from[1400], to[1700];
	int n = 0;

	while (d && (de = readdir(d))) {
		if (!capture_spool_name(de->d_name))
			continue;
		snprintf(from, sizeof(from), "%s/%s", dir, de->d_name);
		snprintf(to, sizeof(to), "%s/%s", aside, de->d_name);
		if (rename(from, to) != 0) {
			int e = errno;

			closedir(d);
			return bn_err_set(err, bn_err_from_write_errno(e), "%s: cannot move to %s: %s",
					  from, aside, strerror(e));
		}
		n++;
	}
	if (d)
		closedir(d);
	return n;
}

int bn_salvage_move_aside(const char *dir, bool quiet, struct bn_err *err)
{
	static const char *const files[] = { "report.json", "capture.sr", "events.json" };
	struct bn_salvage s = { .dir = dir, .cause = SALVAGE_CAUSE_NEXT_RUN, .sim_t_us = -1 };
	char reason[BN_ERR_MSG_LEN], aside[1400], stamp[32], from[1400], to[1700];
	time_t now = time(NULL);
	struct tm tm;
	int rc;

	if (!bn_salvage_needed(dir))
		return 0;
	rc = bn_salvage_record(&s, reason, sizeof(reason), err);
	if (rc < 0)
		return rc;
	localtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	snprintf(aside, sizeof(aside), "%s/interrupted-%s", dir, stamp);
	for (int k = 2; mkdir(aside, 0755) != 0; k++) {
		if (errno != EEXIST || k > 99)
			return bn_err_set(err, bn_err_from_write_errno(errno), "%s: cannot create: %s",
					  aside, strerror(errno));
		snprintf(aside, sizeof(aside), "%s/interrupted-%s-%d", dir, stamp, k);
	}
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(from, sizeof(from), "%s/%s", dir, files[i]);
		snprintf(to, sizeof(to), "%s/%s", aside, files[i]);
		if (rename(from, to) != 0 && errno != ENOENT)
			return bn_err_set(err, bn_err_from_write_errno(errno), "%s: cannot move to %s: %s",
					  from, aside, strerror(errno));
	}
	/* a capture spool its salvage had to keep (a full disk) goes with
	 * the record, where bcbench salvage finds it: left here, the next
	 * run's salvage would take it for that run's */
	rc = move_spools(dir, aside, err);
	if (rc < 0)
		return rc;
	if (!quiet)
		fprintf(stderr,
			"bcbench: note: %s held the unfinished record of an interrupted run: "
			"finished and moved to %s (%s)%s\n",
			dir, aside, reason,
			rc > 0 ? "; its capture is not finished: bcbench salvage it there once the "
				 "cause is fixed"
			       : "");
	return 1;
}

/* A run's directory: 0 nothing to do, 1 salvaged, minus the exit code
 * when it could not (core/exit.h). */
static int salvage_one(const char *dir, bool quiet)
{
	struct bn_salvage s = { .dir = dir, .cause = SALVAGE_CAUSE_CLI, .sim_t_us = -1 };
	struct bn_dirlock lock;
	struct bn_err err = { 0 };
	char reason[BN_ERR_MSG_LEN];
	int rc;

	/* a run still writing there is not interrupted: leave it be */
	if (bn_dirlock_take(&lock, dir, "bcbench salvage", &err) < 0) {
		fprintf(stderr, "bcbench salvage: %s\n", err.msg);
		return -bn_cli_exit_of(err.code);
	}
	if (!bn_salvage_needed(dir)) {
		bn_dirlock_release(&lock);
		if (!quiet)
			printf("%s: nothing to salvage\n", dir);
		return 0;
	}
	rc = bn_salvage_record(&s, reason, sizeof(reason), &err);
	bn_dirlock_release(&lock);
	if (rc < 0) {
		fprintf(stderr, "bcbench salvage: %s: cannot write the report: %s\n", dir, err.msg);
		return -bn_cli_exit_of(err.code);
	}
	if (bn_salvage_needed(dir)) {
		/* the capture's spool stayed: its salvage failed (a full disk) */
		fprintf(stderr, "bcbench salvage: %s: not finished: %s\n", dir, reason);
		return -BN_EXIT_ENVIRONMENT;
	}
	if (!quiet)
		printf("%s: salvaged: %s\n  report: %s/report.json\n", dir, reason, dir);
	return 1;
}

static bool exists(const char *dir, const char *name, bool want_dir)
{
	char path[1400];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return stat(path, &st) == 0 && (want_dir ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode));
}

static bool is_run_dir(const char *dir)
{
	char *temps = bn_run_temps(dir);
	bool any = temps && strcmp(temps, "\n");

	free(temps);
	return any || exists(dir, "report.json", false) || exists(dir, "capture.sr", false) ||
	       exists(dir, "events.json", false);
}

/* Call each(DIR/entries/NAME, user) for every entry directory of a suite's
 * DIR; stop at the first negative return and return it, else the sum of
 * the returns. No entries/ is no entry. */
static int for_each_entry(const char *dir, int (*each)(const char *entry, void *user),
			  void *user)
{
	char entries[1400], sub[2400];
	struct dirent *de;
	DIR *d;
	int n = 0;

	snprintf(entries, sizeof(entries), "%s/entries", dir);
	d = opendir(entries);
	while (d && (de = readdir(d))) {
		int rc;

		if (de->d_name[0] == '.' || !exists(entries, de->d_name, true))
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", entries, de->d_name);
		rc = each(sub, user);
		if (rc < 0) {
			closedir(d);
			return rc;
		}
		n += rc;
	}
	if (d)
		closedir(d);
	return n;
}

struct move_aside_ctx {
	bool quiet;
	struct bn_err *err;
};

static int move_entry_aside(const char *entry, void *user)
{
	struct move_aside_ctx *m = user;

	return bn_salvage_move_aside(entry, m->quiet, m->err);
}

int bn_salvage_suite_entries(const char *dir, bool quiet, struct bn_err *err)
{
	struct move_aside_ctx m = { quiet, err };

	return for_each_entry(dir, move_entry_aside, &m);
}

struct salvage_ctx {
	bool quiet;
	int worst; /* the most urgent exit code of an entry that could not be salvaged */
};

/* 1 when the entry was salvaged, else 0. */
static int salvage_entry(const char *entry, void *user)
{
	struct salvage_ctx *sc = user;
	int rc;

	if (!bn_salvage_needed(entry))
		return 0;
	rc = salvage_one(entry, sc->quiet);
	if (rc < 0)
		sc->worst = bn_exit_most_urgent(sc->worst, -rc);
	return rc == 1;
}

int bn_cli_salvage(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dir;
	struct stat st;
	bool quiet = false;
	int c, n;

	optind = 1;
	while ((c = getopt_long(argc, argv, "qh", opts, NULL)) != -1) {
		switch (c) {
		case 'q': quiet = true; break;
		case 'h': fputs(bn_cli_salvage_usage, stdout); return 0;
		default: fputs(bn_cli_salvage_usage, stderr); return 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "bcbench salvage: expected one DIR\n%s", bn_cli_salvage_usage);
		return 2;
	}
	dir = argv[optind];
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "bcbench salvage: %s: not a directory\n", dir);
		return 2;
	}
	if (exists(dir, "entries", true) || exists(dir, "suite.json", false)) {
		struct salvage_ctx sc = { quiet, 0 };
		struct bn_dirlock lock;
		struct bn_err err = { 0 };

		/* a suite still running owns its entries */
		if (bn_dirlock_take(&lock, dir, "bcbench salvage", &err) < 0) {
			fprintf(stderr, "bcbench salvage: %s\n", err.msg);
			return bn_cli_exit_of(err.code);
		}
		n = for_each_entry(dir, salvage_entry, &sc);
		bn_dirlock_release(&lock);
		if (!quiet && !n && !sc.worst)
			printf("%s: nothing to salvage in its entries\n", dir);
		return sc.worst;
	}
	if (!is_run_dir(dir)) {
		fprintf(stderr, "bcbench salvage: %s: not a bcbench output directory (no report.json, "
				"capture.sr, events.json or unfinished capture; no suite's entries/)\n",
			dir);
		return 2;
	}
	c = salvage_one(dir, quiet);
	return c < 0 ? -c : BN_EXIT_OK;
}
