/* A run's record: what ran, on what, with which files (and their hashes),
 * every result with its measured value, limit and margin, and how the run
 * ended. report.json (schema "bcbench-report/3") is written from this, and
 * is the record of truth other formats are rendered from. */
#ifndef BN_REPORT_REPORT_H
#define BN_REPORT_REPORT_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdio.h>

#include "core/channel.h"
#include "core/err.h"
#include "core/time.h"

#define BN_REPORT_SCHEMA "bcbench-report/3"
/* The formats before: /2 without sides (every check judged the device,
 * "verdict" was the device's), /1 also without identity, provenance and
 * the overall verdict. Still read (rendered, diffed, merged). */
#define BN_REPORT_SCHEMA_V2 "bcbench-report/2"
#define BN_REPORT_SCHEMA_V1 "bcbench-report/1"

/* The sides a result may judge (checks/check.h, enum bn_side), by name. */
#define BN_SIDE_NAME_DEVICE "device"
#define BN_SIDE_NAME_PORT "port"

/* schema is BN_REPORT_SCHEMA, _V2 or _V1 (NULL: false). */
bool bn_report_schema_known(const char *schema);

enum bn_verdict {
	BN_VERDICT_PASS,
	BN_VERDICT_FAIL,
	BN_VERDICT_INCONCLUSIVE,
	BN_VERDICT_SKIPPED,
	BN_VERDICT_ERROR,
	BN_VERDICT_COUNT
};

const char *bn_verdict_name(enum bn_verdict v);
/* "fail" -> BN_VERDICT_FAIL; -1 for anything else (NULL too). */
int bn_verdict_parse(const char *name);

struct bn_result {
	char id[64];
	char kind[16];        /* "expect", "check", "bench" */
	char task[32];        /* the BC-1.2 device task judged (README.md, "Compliance rules"), "" if none */
	char side[8];         /* whom a check judges: "device" or "port"; "" for expectations */
	enum bn_verdict verdict;
	char text[320];       /* what was judged, as written */
	int line;             /* scenario line, 0 if none */
	bool has_measured;
	double measured;      /* SI units */
	char measured_str[48];/* for word values (telemetry) */
	char unit[8];
	char limit[64];       /* e.g. ">= 0.9 A" or a limit name */
	double limit_min, limit_max; /* NAN when open */
	bool has_margin;
	double margin;        /* distance to the limit, positive inside */
	bool has_u;
	double u;             /* expanded uncertainty U (k = 2) of measured, in unit */
	char decision[12];    /* the decision rule that judged it: "guarded", "simple" */
	char persistence[240];/* what makes an excursion count, and the window judged */
	bn_time_us t0_us, t1_us; /* window in the capture; -1 if none */
	char reason[240];     /* why inconclusive / error / failed */
	char title[240];      /* compliance rules: what the rule says */
	char clause[40];      /* compliance plan clause or tester tag */
	char limit_source[80];/* where the limit comes from (limits file "source") */
	bool warning;         /* a failure that is a warning: counted, does not fail the run */
	int n_figures;        /* figures, not verdicts (e.g. time to settle) */
	struct {
		char name[32];
		double value;
		char unit[8];
	} figures[4];
};

struct bn_file_ref {
	char role[16];
	char path[512];
	char sha256[65];
	char name[64];
};

#define BN_REPORT_MAX_FILES 12
#define BN_REPORT_MAX_ARTIFACTS 6
#define BN_REPORT_CAPTURE_OFF_LEN 1100 /* "capture off (" a scenario path ":LINE)" */

enum bn_run_status { BN_RUN_COMPLETED, BN_RUN_ABORTED, BN_RUN_ERROR };

struct bn_report {
	/* The side the record judges: "device" (a device on a port; also
	 * "") or "port" (the bench plays the device and judges the port),
	 * set by the runner. Its verdict is the record's "verdict" and the
	 * exit code's; the other side's is reported beside it. */
	char judges[8];
	char backend[16];
	char scenario_name[160];
	char fw_name[64], fw_version[32];
	char port_name[48], port_expect[16];
	int n_files;
	struct bn_file_ref files[BN_REPORT_MAX_FILES];
	double rate_hz;
	unsigned channel_mask;
	/* A replayed file's own channel behind each bench channel, and the
	 * gain that makes its numbers SI (--map); "" and 0: the channel's own
	 * name, as it is. */
	char chan_src[BN_CH_COUNT][64];
	double chan_gain[BN_CH_COUNT];
	char capture_source[96];  /* "" : the bench's own samples; "sigrok:demo (...)" */
	/* Why no capture.sr was written though samples were judged
	 * ("--no-capture", "capture off (x.scn:4)"); "": one was, or none
	 * was captured at all. report.json's capture.not_written. */
	char capture_off[BN_REPORT_CAPTURE_OFF_LEN];
	long n_samples;
	int n_results, cap_results;
	struct bn_result *results;
	cJSON *events;        /* array, owned */
	long n_events, n_events_dropped;
	cJSON *telemetry;     /* object, owned */
	cJSON *configs;       /* array, owned */
	/* How the channels were measured and which decision rule judged
	 * ({"decision_rule", "channels": {LABEL: {"spec", "source"}}}), owned;
	 * NULL: not said. */
	cJSON *measurement;
	enum bn_run_status status;
	char reason[BN_ERR_MSG_LEN];
	/* A run that did not complete: why, as an exit code (core/exit.h:
	 * 3 the device broke it, 5 a bench fault, 6 the environment, 128+N a
	 * signal); 0 for one that completed. */
	int exit_code;
	/* --require-verdicts: a record that demonstrates nothing exits 4. */
	bool require_verdicts;
	double sim_s, wall_s;
	long fw_wakes;
	/* Provenance: who made the record, when, where, on what. */
	char started_utc[32], ended_utc[32]; /* ISO 8601, "2026-12-06T12:00:00Z"; "" unknown */
	char host[128];
	char operator_name[64];
	char bench_name[64];
	cJSON *instruments;   /* array of {"role","spec","identity"[,"serial"]}, owned */
	cJSON *dut_usb;       /* {"vid","pid","manufacturer","product","serial","path"}, owned; NULL: not seen */
	/* The values of the limits judged against, so the record reads
	 * without the limits file: {NAME: {"min","typ","max","unit"}}, owned. */
	cJSON *limits_values;
	double droop_threshold_v; /* the device's declared droop threshold, 0: none */
	/* Files written beside report.json (names relative to it). */
	int n_artifacts;
	struct {
		char role[16];
		char name[64];
		char sha256[65];  /* "" until bn_report_hash_artifacts */
	} artifacts[BN_REPORT_MAX_ARTIFACTS];
};

void bn_report_init(struct bn_report *r);
void bn_report_free(struct bn_report *r);
struct bn_result *bn_report_add(struct bn_report *r);
void bn_report_add_file(struct bn_report *r, const char *role, const char *path,
			const char *name);
/* The same with a hash computed elsewhere (e.g. while the file streams). */
struct bn_file_ref *bn_report_add_file_sha(struct bn_report *r, const char *role, const char *path,
					   const char *name, const char *sha256);
void bn_report_artifact(struct bn_report *r, const char *role, const char *name);
/* The SHA-256 of each artifact present in dir (report.json's
 * "artifacts_sha256"), so a renderer can tell the files are the run's. */
void bn_report_hash_artifacts(struct bn_report *r, const char *dir);
/* Keep the limits' values in the record (limits_values). */
struct bn_limits;
void bn_report_set_limits(struct bn_report *r, const struct bn_limits *lim);
/* "now" as ISO 8601 UTC with seconds into buf (>= 21 bytes). */
void bn_report_utc_now(char *buf, size_t len);
/* The tool's version with its source's git describe ("0.1.0 (v0.1.0-12-gabc1234)"). */
const char *bn_tool_commit(void);
void bn_report_event(struct bn_report *r, bn_time_us t, const char *kind, const char *detail);
/* One line: time, verdict, id, text, measured, margin, reason. */
void bn_result_print(FILE *f, const struct bn_result *r);
/* Counts of each verdict. */
void bn_report_totals(const struct bn_report *r, int totals[BN_VERDICT_COUNT]);
/* The record's overall verdict, for a person signing it: COMPLIANT when
 * the run completed, at least one result passed and every applicable
 * one did; NOT_COMPLIANT when a result failed (a warning does not count);
 * otherwise NOT_DEMONSTRATED: no failure, but something applicable was
 * inconclusive or errored, the run did not complete, or nothing was
 * judged, so a record where nothing could be judged never reads as a
 * pass. Skipped (not applicable) results do not count either way. */
enum bn_overall { BN_OVERALL_COMPLIANT, BN_OVERALL_NOT_COMPLIANT, BN_OVERALL_NOT_DEMONSTRATED };
/* "compliant", "not compliant", "compliance not demonstrated" */
const char *bn_overall_name(enum bn_overall o);
/* "compliant", "not-compliant", "not-demonstrated" (report.json's "verdict") */
const char *bn_overall_id(enum bn_overall o);
/* -1 for anything but an id above */
int bn_overall_parse(const char *id);
/* The verdict of the side the record judges. */
enum bn_overall bn_report_overall(const struct bn_report *r);
/* The side a record judges: "device" or "port" (judges "" : "device"). */
const char *bn_report_judges(const struct bn_report *r);
/* The side a result judges within a record judging `judges`: its own
 * side when it has one; a check without one (records before
 * bcbench-report/3) the device; an expectation or a bench result the
 * side the record judges (expectations belong to the run). */
const char *bn_result_side_in(const char *kind, const char *side, const char *judges);
/* One side's verdict (side "device" or "port"), by the rule above over
 * that side's results; *judged (may be NULL) says whether a result of
 * that side passed or failed: a side that judged nothing has no verdict
 * in "verdicts" (null), unless it is the side the record judges. */
enum bn_overall bn_report_overall_side(const struct bn_report *r, const char *side, bool *judged);
/* The same from a report.json document (its "results" and "status"),
 * for records written before the verdict was: -1 when it is not one.
 * The judged side's ("judges", absent: the device). */
int bn_report_json_overall(const cJSON *report);
/* "judges" of a document: "device" or "port" (absent or unknown: "device"). */
const char *bn_report_json_judges(const cJSON *report);
/* One side's verdict from a document, -1 when it is not a report. */
int bn_report_json_overall_side(const cJSON *report, const char *side, bool *judged);
/* Set a document's "verdict" and, for a bcbench-report/3 one, "verdicts"
 * to what its results and status give (a record finished elsewhere, e.g.
 * salvaged). Nothing when it is not a report. */
void bn_report_json_set_verdicts(cJSON *report);
/* The overall verdict of a report.json read to be shown: computed from
 * its results and status (never taken on trust), with the count of each
 * verdict into totals. BN_ERR_DATA naming path when a result's verdict is
 * not a known word, the document is not a report, or a stored "verdict"
 * or "verdicts" contradicts the results. */
int bn_report_json_verdict(const cJSON *report, const char *path, int totals[BN_VERDICT_COUNT],
			   struct bn_err *err);
/* Exit code by the table of core/exit.h from the results and the status:
 * a run that did not complete its own exit_code; a result in error 6; "a
 * rule failed" (1) counts the judged side's failures and the expectations
 * only (a port's failure in a device run is reported, never the
 * device's); with require_verdicts, 4 for a record that demonstrates
 * nothing; else 0. report.json's status.exit_code and status.cause. */
int bn_report_exit_code(const struct bn_report *r);
cJSON *bn_report_to_json(const struct bn_report *r);
/* Atomic. */
int bn_report_write_json(const struct bn_report *r, const char *path, struct bn_err *err);
/* The same without an fsync: the caller syncs the directory later. */
int bn_report_write_json_nosync(const struct bn_report *r, const char *path, struct bn_err *err);

#endif
