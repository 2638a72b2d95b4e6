#include "report/report.h"

#include "core/units.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/channel.h"
#include "core/exit.h"
#include "core/file.h"
#include "core/json.h"
#include "core/limits.h"
#include "core/text.h"
#include "version.h"

#include <time.h>

#define REPORT_MAX_EVENTS 5000

static const char *const verdict_names[BN_VERDICT_COUNT] = {
	"pass", "fail", "inconclusive", "skipped", "error",
};

const char *bn_verdict_name(enum bn_verdict v)
{
	return (unsigned)v < BN_VERDICT_COUNT ? verdict_names[v] : "?";
}

int bn_verdict_parse(const char *name)
{
	for (int v = 0; name && v < BN_VERDICT_COUNT; v++)
		if (!strcmp(name, verdict_names[v]))
			return v;
	return -1;
}

int bn_report_json_verdict(const cJSON *report, const char *path, int totals[BN_VERDICT_COUNT],
			   struct bn_err *err)
{
	const cJSON *results = cJSON_GetObjectItemCaseSensitive(report, "results"), *res;
	const cJSON *stored = cJSON_GetObjectItemCaseSensitive(report, "verdict");
	const cJSON *sides = cJSON_GetObjectItemCaseSensitive(report, "verdicts");
	static const char *const side_names[] = { BN_SIDE_NAME_DEVICE, BN_SIDE_NAME_PORT };
	int i = 0, o;

	memset(totals, 0, sizeof(int) * BN_VERDICT_COUNT);
	cJSON_ArrayForEach(res, results) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(res, "verdict");
		int k = cJSON_IsString(v) ? bn_verdict_parse(v->valuestring) : -1;

		if (k < 0)
			return bn_err_set(err, BN_ERR_DATA, "%s: results[%d]: \"verdict\" is not one of "
					  "pass, fail, inconclusive, skipped, error", path, i);
		totals[k]++;
		i++;
	}
	o = bn_report_json_overall(report);
	if (o < 0)
		return bn_err_set(err, BN_ERR_DATA, "%s: not a report: no \"results\" array or no "
				  "\"status\": {\"state\"}", path);
	if (stored && (!cJSON_IsString(stored) || bn_overall_parse(stored->valuestring) != o))
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: \"verdict\" says %s, its results and status give %s: the record "
				  "is not consistent", path,
				  cJSON_IsString(stored) ? stored->valuestring : "something else",
				  bn_overall_id(o));
	/* each side's stored verdict, when the record has them (/3) */
	for (size_t k = 0; sides && k < sizeof(side_names) / sizeof(side_names[0]); k++) {
		const cJSON *sv = cJSON_GetObjectItemCaseSensitive(sides, side_names[k]);
		bool judged = false;
		int so = bn_report_json_overall_side(report, side_names[k], &judged);
		bool mine = !strcmp(side_names[k], bn_report_json_judges(report));
		const char *want = judged || mine ? bn_overall_id(so) : NULL;

		if (!cJSON_IsObject(sides) ||
		    (want ? !cJSON_IsString(sv) || strcmp(sv->valuestring, want) : !cJSON_IsNull(sv)))
			return bn_err_set(err, BN_ERR_DATA,
					  "%s: \"verdicts\": {\"%s\"} says %s, its results and status "
					  "give %s: the record is not consistent", path, side_names[k],
					  cJSON_IsString(sv) ? sv->valuestring : "something else",
					  want ? want : "null (that side judged nothing)");
	}
	return o;
}

void bn_report_init(struct bn_report *r)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->backend, sizeof(r->backend), "sim");
	r->events = cJSON_CreateArray();
	r->telemetry = cJSON_CreateObject();
	r->configs = cJSON_CreateArray();
	r->status = BN_RUN_ERROR;
}

void bn_report_free(struct bn_report *r)
{
	free(r->results);
	cJSON_Delete(r->events);
	cJSON_Delete(r->telemetry);
	cJSON_Delete(r->configs);
	cJSON_Delete(r->measurement);
	cJSON_Delete(r->instruments);
	cJSON_Delete(r->dut_usb);
	cJSON_Delete(r->limits_values);
	memset(r, 0, sizeof(*r));
}

struct bn_result *bn_report_add(struct bn_report *r)
{
	struct bn_result *res;

	if (r->n_results == r->cap_results) {
		int cap = r->cap_results ? r->cap_results * 2 : 16;
		struct bn_result *v = realloc(r->results, sizeof(*v) * (size_t)cap);

		if (!v)
			return NULL;
		r->results = v;
		r->cap_results = cap;
	}
	res = &r->results[r->n_results++];
	memset(res, 0, sizeof(*res));
	res->limit_min = res->limit_max = NAN;
	res->t0_us = res->t1_us = -1;
	return res;
}

struct bn_file_ref *bn_report_add_file_sha(struct bn_report *r, const char *role, const char *path,
					   const char *name, const char *sha256)
{
	struct bn_file_ref *f;
	struct bn_err e = { 0 };

	if (r->n_files == BN_REPORT_MAX_FILES || !path || !path[0])
		return NULL;
	f = &r->files[r->n_files++];
	snprintf(f->role, sizeof(f->role), "%s", role);
	bn_str_copy(f->path, sizeof(f->path), path);
	bn_str_copy(f->name, sizeof(f->name), name);
	if (sha256)
		snprintf(f->sha256, sizeof(f->sha256), "%s", sha256);
	else if (bn_file_sha256(path, f->sha256, &e) < 0)
		f->sha256[0] = '\0';
	return f;
}

void bn_report_add_file(struct bn_report *r, const char *role, const char *path,
			const char *name)
{
	bn_report_add_file_sha(r, role, path, name, NULL);
}

void bn_report_event(struct bn_report *r, bn_time_us t, const char *kind, const char *detail)
{
	cJSON *ev;

	r->n_events++;
	if (cJSON_GetArraySize(r->events) >= REPORT_MAX_EVENTS) {
		r->n_events_dropped++;
		return;
	}
	ev = cJSON_CreateObject();
	cJSON_AddNumberToObject(ev, "t_s", bn_time_to_s(t));
	cJSON_AddStringToObject(ev, "kind", kind);
	cJSON_AddStringToObject(ev, "detail", detail);
	cJSON_AddItemToArray(r->events, ev);
}

bool bn_report_schema_known(const char *schema)
{
	return schema && (!strcmp(schema, BN_REPORT_SCHEMA) || !strcmp(schema, BN_REPORT_SCHEMA_V2) ||
			  !strcmp(schema, BN_REPORT_SCHEMA_V1));
}

const char *bn_tool_commit(void)
{
	return BN_GIT_DESCRIBE;
}

void bn_report_utc_now(char *buf, size_t len)
{
	time_t now = time(NULL);
	struct tm tm;

	if (!gmtime_r(&now, &tm) || !strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm))
		bn_str_copy(buf, len, "");
}

static void add_num_or_null(cJSON *o, const char *key, double v);

void bn_report_set_limits(struct bn_report *r, const struct bn_limits *lim)
{
	cJSON_Delete(r->limits_values);
	r->limits_values = cJSON_CreateObject();
	for (size_t i = 0; i < lim->n; i++) {
		cJSON *o = cJSON_AddObjectToObject(r->limits_values, lim->v[i].name);

		add_num_or_null(o, "min", lim->v[i].min);
		add_num_or_null(o, "typ", lim->v[i].typ);
		add_num_or_null(o, "max", lim->v[i].max);
		/* the values are SI (limits.h): the unit with them is too */
		cJSON_AddStringToObject(o, "unit", bn_dim_unit(lim->v[i].dim));
	}
}

void bn_report_totals(const struct bn_report *r, int totals[BN_VERDICT_COUNT])
{
	memset(totals, 0, sizeof(int) * BN_VERDICT_COUNT);
	for (int i = 0; i < r->n_results; i++)
		totals[r->results[i].verdict]++;
}

const char *bn_report_judges(const struct bn_report *r)
{
	return !strcmp(r->judges, BN_SIDE_NAME_PORT) ? BN_SIDE_NAME_PORT : BN_SIDE_NAME_DEVICE;
}

const char *bn_result_side_in(const char *kind, const char *side, const char *judges)
{
	if (side && side[0])
		return side;
	if (kind && !strcmp(kind, "check"))
		return BN_SIDE_NAME_DEVICE;
	return judges && !strcmp(judges, BN_SIDE_NAME_PORT) ? BN_SIDE_NAME_PORT : BN_SIDE_NAME_DEVICE;
}

static bool result_on(const struct bn_report *r, const struct bn_result *res, const char *side)
{
	return !strcmp(bn_result_side_in(res->kind, res->side, bn_report_judges(r)), side);
}

int bn_report_exit_code(const struct bn_report *r)
{
	int totals[BN_VERDICT_COUNT];
	const char *judges = bn_report_judges(r);

	/* A run that did not complete says why in its own exit code; one
	 * that does not (a record made before) the device broke it. */
	if (r->status != BN_RUN_COMPLETED)
		return r->exit_code ? r->exit_code : BN_EXIT_DUT_BROKE;
	bn_report_totals(r, totals);
	/* a rule the bench could not judge in a run that completed (out of
	 * memory, an expectation it cannot evaluate): a retry repeats it */
	if (totals[BN_VERDICT_ERROR])
		return BN_EXIT_ENVIRONMENT;
	for (int i = 0; i < r->n_results; i++)
		if (r->results[i].verdict == BN_VERDICT_FAIL && !r->results[i].warning &&
		    result_on(r, &r->results[i], judges))
			return BN_EXIT_FAILED;
	if (r->require_verdicts && bn_report_overall(r) == BN_OVERALL_NOT_DEMONSTRATED)
		return BN_EXIT_NOT_DEMONSTRATED;
	return BN_EXIT_OK;
}

const char *bn_overall_name(enum bn_overall o)
{
	return o == BN_OVERALL_COMPLIANT ? "compliant"
	       : o == BN_OVERALL_NOT_COMPLIANT ? "not compliant" : "compliance not demonstrated";
}

const char *bn_overall_id(enum bn_overall o)
{
	return o == BN_OVERALL_COMPLIANT ? "compliant"
	       : o == BN_OVERALL_NOT_COMPLIANT ? "not-compliant" : "not-demonstrated";
}

int bn_overall_parse(const char *id)
{
	for (int o = BN_OVERALL_COMPLIANT; o <= BN_OVERALL_NOT_DEMONSTRATED; o++)
		if (id && !strcmp(id, bn_overall_id(o)))
			return o;
	return -1;
}

/* One rule for both the struct and the document: counts in, verdict out. */
static enum bn_overall overall_of(bool completed, int n_pass, int n_fail, int n_open)
{
	if (n_fail)
		return BN_OVERALL_NOT_COMPLIANT;
	if (!completed || n_open || !n_pass)
		return BN_OVERALL_NOT_DEMONSTRATED;
	return BN_OVERALL_COMPLIANT;
}

enum bn_overall bn_report_overall_side(const struct bn_report *r, const char *side, bool *judged)
{
	int n_pass = 0, n_fail = 0, n_open = 0;

	for (int i = 0; i < r->n_results; i++) {
		enum bn_verdict v = r->results[i].verdict;

		if (!result_on(r, &r->results[i], side))
			continue;
		n_pass += v == BN_VERDICT_PASS;
		/* a warning is a judgement, not a failure of the side */
		n_fail += v == BN_VERDICT_FAIL && !r->results[i].warning;
		n_open += v == BN_VERDICT_INCONCLUSIVE || v == BN_VERDICT_ERROR;
		if (judged)
			*judged = *judged || v == BN_VERDICT_PASS || v == BN_VERDICT_FAIL;
	}
	return overall_of(r->status == BN_RUN_COMPLETED, n_pass, n_fail, n_open);
}

enum bn_overall bn_report_overall(const struct bn_report *r)
{
	return bn_report_overall_side(r, bn_report_judges(r), NULL);
}

const char *bn_report_json_judges(const cJSON *report)
{
	const cJSON *j = cJSON_GetObjectItemCaseSensitive(report, "judges");

	return cJSON_IsString(j) && !strcmp(j->valuestring, BN_SIDE_NAME_PORT) ? BN_SIDE_NAME_PORT
										: BN_SIDE_NAME_DEVICE;
}

int bn_report_json_overall_side(const cJSON *report, const char *side, bool *judged)
{
	const cJSON *results = cJSON_GetObjectItemCaseSensitive(report, "results");
	const cJSON *st = cJSON_GetObjectItemCaseSensitive(report, "status"), *res;
	const cJSON *state = cJSON_GetObjectItemCaseSensitive(st, "state");
	const char *judges = bn_report_json_judges(report);
	int n_pass = 0, n_fail = 0, n_open = 0;

	if (judged)
		*judged = false;
	if (!cJSON_IsArray(results) || !cJSON_IsString(state))
		return -1;
	cJSON_ArrayForEach(res, results) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(res, "verdict");
		const cJSON *sev = cJSON_GetObjectItemCaseSensitive(res, "severity");
		const cJSON *kind = cJSON_GetObjectItemCaseSensitive(res, "kind");
		const cJSON *rs = cJSON_GetObjectItemCaseSensitive(res, "side");
		bool pass, fail;

		if (!cJSON_IsString(v) || bn_verdict_parse(v->valuestring) < 0)
			return -1;
		if (strcmp(bn_result_side_in(cJSON_IsString(kind) ? kind->valuestring : NULL,
					     cJSON_IsString(rs) ? rs->valuestring : NULL, judges), side))
			continue;
		pass = !strcmp(v->valuestring, "pass");
		fail = !strcmp(v->valuestring, "fail");
		n_pass += pass;
		n_fail += fail && !(cJSON_IsString(sev) && !strcmp(sev->valuestring, "warning"));
		n_open += !strcmp(v->valuestring, "inconclusive") || !strcmp(v->valuestring, "error");
		if (judged)
			*judged = *judged || pass || fail;
	}
	return overall_of(!strcmp(state->valuestring, "completed"), n_pass, n_fail, n_open);
}

void bn_report_json_set_verdicts(cJSON *report)
{
	const cJSON *schema = cJSON_GetObjectItemCaseSensitive(report, "schema");
	int o = bn_report_json_overall(report);
	cJSON *vs;

	if (o < 0)
		return;
	bn_json_set(report, "verdict", cJSON_CreateString(bn_overall_id(o)));
	if (!cJSON_IsString(schema) || strcmp(schema->valuestring, BN_REPORT_SCHEMA))
		return;
	vs = cJSON_CreateObject();
	for (int k = 0; vs && k < 2; k++) {
		const char *side = k ? BN_SIDE_NAME_PORT : BN_SIDE_NAME_DEVICE;
		bool judged = false;
		int so = bn_report_json_overall_side(report, side, &judged);

		if (judged || !strcmp(side, bn_report_json_judges(report)))
			cJSON_AddStringToObject(vs, side, bn_overall_id(so));
		else
			cJSON_AddNullToObject(vs, side);
	}
	bn_json_set(report, "verdicts", vs);
}

int bn_report_json_overall(const cJSON *report)
{
	return bn_report_json_overall_side(report, bn_report_json_judges(report), NULL);
}

static void add_num_or_null(cJSON *o, const char *key, double v)
{
	if (isnan(v) || isinf(v))
		cJSON_AddNullToObject(o, key);
	else
		cJSON_AddNumberToObject(o, key, v);
}

static void add_str_or_null(cJSON *o, const char *key, const char *v)
{
	if (v && v[0])
		cJSON_AddStringToObject(o, key, v);
	else
		cJSON_AddNullToObject(o, key);
}

static cJSON *result_json(const struct bn_result *res)
{
	cJSON *o = cJSON_CreateObject(), *lim, *win;

	cJSON_AddStringToObject(o, "id", res->id);
	cJSON_AddStringToObject(o, "kind", res->kind);
	if (res->task[0])
		cJSON_AddStringToObject(o, "task", res->task);
	else
		cJSON_AddNullToObject(o, "task");
	/* whom it judges; an expectation or a bench result belongs to the run */
	if (res->side[0])
		cJSON_AddStringToObject(o, "side", res->side);
	else
		cJSON_AddNullToObject(o, "side");
	cJSON_AddStringToObject(o, "verdict", bn_verdict_name(res->verdict));
	if (res->warning)
		cJSON_AddStringToObject(o, "severity", "warning");
	if (res->title[0])
		cJSON_AddStringToObject(o, "title", res->title);
	if (res->clause[0])
		cJSON_AddStringToObject(o, "clause", res->clause);
	cJSON_AddStringToObject(o, "text", res->text);
	if (res->line)
		cJSON_AddNumberToObject(o, "line", res->line);
	if (res->has_measured)
		add_num_or_null(o, "measured", res->measured);
	else if (res->measured_str[0])
		cJSON_AddStringToObject(o, "measured", res->measured_str);
	else
		cJSON_AddNullToObject(o, "measured");
	cJSON_AddStringToObject(o, "unit", res->unit);
	lim = cJSON_AddObjectToObject(o, "limit");
	cJSON_AddStringToObject(lim, "name", res->limit);
	add_num_or_null(lim, "min", res->limit_min);
	add_num_or_null(lim, "max", res->limit_max);
	if (res->limit_source[0])
		cJSON_AddStringToObject(lim, "source", res->limit_source);
	if (res->has_margin)
		add_num_or_null(o, "margin", res->margin);
	else
		cJSON_AddNullToObject(o, "margin");
	if (res->has_u)
		add_num_or_null(o, "uncertainty", res->u);
	else
		cJSON_AddNullToObject(o, "uncertainty");
	if (res->has_u && res->decision[0])
		cJSON_AddStringToObject(o, "decision_rule", res->decision);
	if (res->persistence[0])
		cJSON_AddStringToObject(o, "persistence", res->persistence);
	if (res->t0_us >= 0) {
		win = cJSON_AddObjectToObject(o, "window");
		cJSON_AddNumberToObject(win, "t0_s", bn_time_to_s(res->t0_us));
		cJSON_AddNumberToObject(win, "t1_s", bn_time_to_s(res->t1_us));
	} else {
		cJSON_AddNullToObject(o, "window");
	}
	if (res->reason[0])
		cJSON_AddStringToObject(o, "reason", res->reason);
	if (res->n_figures) {
		cJSON *figs = cJSON_AddObjectToObject(o, "figures");

		for (int i = 0; i < res->n_figures; i++) {
			cJSON *f = cJSON_AddObjectToObject(figs, res->figures[i].name);

			add_num_or_null(f, "value", res->figures[i].value);
			cJSON_AddStringToObject(f, "unit", res->figures[i].unit);
		}
	}
	return o;
}

cJSON *bn_report_to_json(const struct bn_report *r)
{
	static const char *const status_names[] = { "completed", "aborted", "error" };
	cJSON *root = cJSON_CreateObject(), *o, *a;
	int totals[BN_VERDICT_COUNT];
	const char *cause;

	cJSON_AddStringToObject(root, "schema", BN_REPORT_SCHEMA);
	cJSON_AddStringToObject(root, "judges", bn_report_judges(r));
	cJSON_AddStringToObject(root, "verdict", bn_overall_id(bn_report_overall(r)));
	o = cJSON_AddObjectToObject(root, "verdicts");
	for (int k = 0; k < 2; k++) {
		const char *side = k ? BN_SIDE_NAME_PORT : BN_SIDE_NAME_DEVICE;
		bool judged = false;
		enum bn_overall so = bn_report_overall_side(r, side, &judged);

		/* a side that judged nothing has no verdict, unless the record judges it */
		if (judged || !strcmp(side, bn_report_judges(r)))
			cJSON_AddStringToObject(o, side, bn_overall_id(so));
		else
			cJSON_AddNullToObject(o, side);
	}
	o = cJSON_AddObjectToObject(root, "tool");
	cJSON_AddStringToObject(o, "name", "bcbench");
	cJSON_AddStringToObject(o, "version", BN_VERSION);
	cJSON_AddStringToObject(o, "commit", bn_tool_commit());
	o = cJSON_AddObjectToObject(root, "record");
	add_str_or_null(o, "started_utc", r->started_utc);
	add_str_or_null(o, "ended_utc", r->ended_utc);
	add_str_or_null(o, "host", r->host);
	add_str_or_null(o, "operator", r->operator_name);
	o = cJSON_AddObjectToObject(root, "bench");
	cJSON_AddStringToObject(o, "backend", r->backend);
	add_str_or_null(o, "name", r->bench_name);
	cJSON_AddItemToObject(o, "instruments", r->instruments ? cJSON_Duplicate(r->instruments, 1)
							       : cJSON_CreateArray());
	o = cJSON_AddObjectToObject(root, "scenario");
	cJSON_AddStringToObject(o, "name", r->scenario_name);
	o = cJSON_AddObjectToObject(root, "dut");
	cJSON_AddStringToObject(o, "firmware", r->fw_name);
	cJSON_AddStringToObject(o, "firmware_version", r->fw_version);
	{
		const char *fw_sha = NULL;

		for (int i = 0; i < r->n_files; i++)
			if (!strcmp(r->files[i].role, "firmware") && r->files[i].sha256[0])
				fw_sha = r->files[i].sha256;
		add_str_or_null(o, "firmware_sha256", fw_sha);
	}
	cJSON_AddItemToObject(o, "usb", r->dut_usb ? cJSON_Duplicate(r->dut_usb, 1) : cJSON_CreateNull());
	if (r->droop_threshold_v > 0)
		cJSON_AddNumberToObject(o, "droop_threshold_v", r->droop_threshold_v);
	cJSON_AddItemToObject(o, "configurations", cJSON_Duplicate(r->configs, 1));
	cJSON_AddItemToObject(o, "telemetry", cJSON_Duplicate(r->telemetry, 1));
	if (r->measurement)
		cJSON_AddItemToObject(root, "measurement", cJSON_Duplicate(r->measurement, 1));
	o = cJSON_AddObjectToObject(root, "port");
	cJSON_AddStringToObject(o, "profile", r->port_name);
	cJSON_AddStringToObject(o, "expect", r->port_expect);
	a = cJSON_AddArrayToObject(root, "files");
	for (int i = 0; i < r->n_files; i++) {
		cJSON *f = cJSON_CreateObject();

		cJSON_AddStringToObject(f, "role", r->files[i].role);
		cJSON_AddStringToObject(f, "path", r->files[i].path);
		cJSON_AddStringToObject(f, "sha256", r->files[i].sha256);
		if (r->files[i].name[0])
			cJSON_AddStringToObject(f, "name", r->files[i].name);
		cJSON_AddItemToArray(a, f);
	}
	/* empty when the run ended before its limits were read */
	cJSON_AddItemToObject(root, "limits", r->limits_values ? cJSON_Duplicate(r->limits_values, 1)
							      : cJSON_CreateObject());
	o = cJSON_AddObjectToObject(root, "capture");
	cJSON_AddStringToObject(o, "source", r->capture_source[0] ? r->capture_source
				: !strcmp(r->backend, "replay") ? "file" : r->backend);
	cJSON_AddNumberToObject(o, "rate_hz", r->rate_hz);
	if (r->capture_off[0])
		cJSON_AddStringToObject(o, "not_written", r->capture_off);
	a = cJSON_AddArrayToObject(o, "channels");
	for (int ch = 0; ch < BN_CH_COUNT; ch++) {
		cJSON *c;

		if (!(r->channel_mask & (1u << ch)))
			continue;
		c = cJSON_CreateObject();
		cJSON_AddStringToObject(c, "name", bn_chan_label(ch));
		cJSON_AddStringToObject(c, "unit", bn_chan_unit(ch));
		cJSON_AddStringToObject(c, "where", ch == BN_CH_IBUS ? "device input current, signed"
						    : ch == BN_CH_VBUS ? "device receptacle"
								       : "device receptacle, to GND");
		/* the file's own channel, when a map named another (a plot reads it) */
		if (r->chan_src[ch][0] && strcmp(r->chan_src[ch], bn_chan_label(ch))) {
			cJSON_AddStringToObject(c, "source_channel", r->chan_src[ch]);
			cJSON_AddNumberToObject(c, "gain", r->chan_gain[ch]);
		}
		cJSON_AddItemToArray(a, c);
	}
	cJSON_AddNumberToObject(o, "samples", (double)r->n_samples);
	a = cJSON_AddArrayToObject(root, "results");
	for (int i = 0; i < r->n_results; i++)
		cJSON_AddItemToArray(a, result_json(&r->results[i]));
	bn_report_totals(r, totals);
	o = cJSON_AddObjectToObject(root, "totals");
	for (int v = 0; v < BN_VERDICT_COUNT; v++)
		cJSON_AddNumberToObject(o, bn_verdict_name(v), totals[v]);
	o = cJSON_AddObjectToObject(root, "status");
	cJSON_AddStringToObject(o, "state", status_names[r->status]);
	if (r->reason[0])
		cJSON_AddStringToObject(o, "reason", r->reason);
	else
		cJSON_AddNullToObject(o, "reason");
	cause = bn_exit_cause(bn_report_exit_code(r));
	cJSON_AddStringToObject(o, "cause", cause ? cause : BN_CAUSE_ENVIRONMENT);
	cJSON_AddNumberToObject(o, "exit_code", bn_report_exit_code(r));
	o = cJSON_AddObjectToObject(root, "timing");
	cJSON_AddNumberToObject(o, "sim_s", r->sim_s);
	cJSON_AddNumberToObject(o, "wall_s", r->wall_s);
	cJSON_AddNumberToObject(o, "firmware_wakes", (double)r->fw_wakes);
	o = cJSON_AddObjectToObject(root, "events");
	cJSON_AddNumberToObject(o, "count", (double)r->n_events);
	cJSON_AddNumberToObject(o, "dropped", (double)r->n_events_dropped);
	cJSON_AddItemToObject(o, "list", cJSON_Duplicate(r->events, 1));
	o = cJSON_AddObjectToObject(root, "artifacts");
	cJSON_AddStringToObject(o, "report", "report.json");
	for (int i = 0; i < r->n_artifacts; i++)
		cJSON_AddStringToObject(o, r->artifacts[i].role, r->artifacts[i].name);
	o = cJSON_AddObjectToObject(root, "artifacts_sha256");
	for (int i = 0; i < r->n_artifacts; i++)
		if (r->artifacts[i].sha256[0])
			cJSON_AddStringToObject(o, r->artifacts[i].role, r->artifacts[i].sha256);
	return root;
}

void bn_report_artifact(struct bn_report *r, const char *role, const char *name)
{
	if (r->n_artifacts >= BN_REPORT_MAX_ARTIFACTS)
		return;
	snprintf(r->artifacts[r->n_artifacts].role, sizeof(r->artifacts[0].role), "%s", role);
	bn_str_copy(r->artifacts[r->n_artifacts].name, sizeof(r->artifacts[0].name), name);
	r->n_artifacts++;
}

void bn_report_hash_artifacts(struct bn_report *r, const char *dir)
{
	for (int i = 0; i < r->n_artifacts; i++) {
		char path[1200];
		struct bn_err e = { 0 };

		snprintf(path, sizeof(path), "%s/%s", dir, r->artifacts[i].name);
		if (bn_file_sha256(path, r->artifacts[i].sha256, &e) < 0)
			r->artifacts[i].sha256[0] = '\0';
	}
}

void bn_result_print(FILE *f, const struct bn_result *r)
{
	/* text, measured words and reasons quote the scenario, the device
	 * and its telemetry: escaped, so none of them drives the terminal */
	fprintf(f, "  %9.3f s  %-5s  ", bn_time_to_s(r->t1_us >= 0 ? r->t1_us : 0),
		r->verdict == BN_VERDICT_PASS ? "PASS" : r->verdict == BN_VERDICT_FAIL ? "FAIL"
			: r->verdict == BN_VERDICT_INCONCLUSIVE ? "INCON" : r->verdict == BN_VERDICT_SKIPPED ? "SKIP" : "ERROR");
	if (r->kind[0] == 'c') {
		bn_term_puts(f, r->id);
		/* a port's rule says so: its failure is not the device's */
		if (!strcmp(r->side, BN_SIDE_NAME_PORT))
			fputs(" [the port]", f);
		fputs(": ", f);
	}
	bn_term_puts(f, r->text);
	if (r->has_measured) {
		char q[64];

		bn_qty_format(r->measured, r->unit, q, sizeof(q));
		fputs("  (measured ", f);
		bn_term_puts(f, q);
	} else if (r->measured_str[0]) {
		fputs("  (measured ", f);
		bn_term_puts(f, r->measured_str);
	}
	if (r->has_measured || r->measured_str[0]) {
		char lim[160], q[64];

		bn_limit_format(r->limit, r->limit_min, r->limit_max, r->unit, lim, sizeof(lim));
		if (lim[0]) {
			fputs(", limit ", f);
			bn_term_puts(f, lim);
		}
		if (r->has_margin) {
			bn_qty_format(r->margin, r->unit, q, sizeof(q));
			fputs(", margin ", f);
			bn_term_puts(f, q);
		}
		fputc(')', f);
	}
	if (r->warning)
		fputs(" [warning]", f);
	if (r->reason[0]) {
		fputs("  [", f);
		bn_term_puts(f, r->reason);
		fputc(']', f);
	}
	fputc('\n', f);
	fflush(f);
}

int bn_report_write_json(const struct bn_report *r, const char *path, struct bn_err *err)
{
	return bn_json_write_atomic(path, bn_report_to_json(r), err);
}

int bn_report_write_json_nosync(const struct bn_report *r, const char *path, struct bn_err *err)
{
	return bn_json_write_atomic_nosync(path, bn_report_to_json(r), err);
}
