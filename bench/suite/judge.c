#include "suite/judge.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "core/text.h"
#include "core/exit.h"
#include "report/report.h"
#include "report/suite_doc.h"

static const char *const expect_names[] = { "pass", "fail", "error" };

static bool listed(const struct bn_suite_entry *e, const char *id)
{
	for (int i = 0; i < e->n_rules; i++)
		if (!strcmp(e->rules[i], id))
			return true;
	return false;
}

static bool verdict_is_fail(const cJSON *r)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(r, "verdict");

	return cJSON_IsString(v) && !strcmp(v->valuestring, "fail");
}

/* A result fails the entry when its verdict is fail and it is not a
 * warning (report.json: "severity": "warning"). A rule the suite lists
 * as xfail is satisfied by either: the rule fired. */
static bool result_fails(const cJSON *r)
{
	const cJSON *sev = cJSON_GetObjectItemCaseSensitive(r, "severity");

	return verdict_is_fail(r) && !(cJSON_IsString(sev) && !strcmp(sev->valuestring, "warning"));
}

static const char *str_of(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* "bc12.cur.droop failed: measured 4.31 V, limit >= 4.5 V" */
static void describe(const cJSON *r, const char *what, char *buf, size_t len)
{
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(r, "measured");
	const cJSON *lim = cJSON_GetObjectItemCaseSensitive(r, "limit");
	const char *unit = str_of(r, "unit"), *limname = lim ? str_of(lim, "name") : NULL;
	const char *id = str_of(r, "id"), *reason = str_of(r, "reason");
	int n;

	n = snprintf(buf, len, "%s %s", id ? id : "?", what);
	if (n < 0 || (size_t)n >= len)
		return;
	if (cJSON_IsNumber(m))
		n += snprintf(buf + n, len - (size_t)n, ": measured %.4g%s%s", m->valuedouble,
			      unit && unit[0] ? " " : "", unit ? unit : "");
	else if (cJSON_IsString(m))
		n += snprintf(buf + n, len - (size_t)n, ": measured %s", m->valuestring);
	if (n > 0 && (size_t)n < len && limname && limname[0])
		n += snprintf(buf + n, len - (size_t)n, ", limit %s", limname);
	if (n > 0 && (size_t)n < len && reason && reason[0])
		snprintf(buf + n, len - (size_t)n, " (%s)", reason);
}

/* The side a result judges in a report judging `judges`. */
static const char *side_of(const cJSON *r, const char *judges)
{
	return bn_result_side_in(str_of(r, "kind"), str_of(r, "side"), judges);
}

/* An exit code that says why a run ended in error. */
static bool is_error_code(int code)
{
	return code == BN_EXIT_BAD_INPUT || code == BN_EXIT_DUT_BROKE ||
	       code == BN_EXIT_BENCH_FAULT || code == BN_EXIT_ENVIRONMENT ||
	       (code >= BN_EXIT_SIGNAL_MIN && code <= BN_EXIT_SIGNAL_MAX);
}

/* Why an entry ended in error, as an exit code: its report's status (the
 * run knew), else the exit code of its run, or of why it did not run (the
 * suite knew). An error that says nothing more is the environment's (a
 * report that cannot be read). */
static int error_code(const cJSON *status, int exit_code)
{
	const cJSON *n = status ? cJSON_GetObjectItemCaseSensitive(status, "exit_code") : NULL;
	int code = cJSON_IsNumber(n) ? n->valueint : -1;

	if (!is_error_code(code))
		code = bn_exit_from_cause(status ? str_of(status, "cause") : NULL, 0);
	if (!is_error_code(code))
		code = exit_code;
	return is_error_code(code) ? code : BN_EXIT_ENVIRONMENT;
}

/* other: the failures of the side the report does not judge (a port's in
 * a device run): shown with the entry, never counted as its failure.
 * *code: why an entry in error ended so (error_code). */
static const char *judge(const struct bn_suite_entry *e, const cJSON *report, int exit_code,
			 const char *cause, cJSON *unexpected, cJSON *other, char *cause_out,
			 size_t cause_len, int *code)
{
	const char *judges = bn_report_json_judges(report);
	const cJSON *status = cJSON_GetObjectItemCaseSensitive(report, "status");
	const char *state = status ? str_of(status, "state") : NULL;
	const cJSON *results = cJSON_GetObjectItemCaseSensitive(report, "results"), *r;
	bool failed_other = false, missing = false;
	char line[512];

	cause_out[0] = '\0';
	if (cause || !report || !state || strcmp(state, "completed")) {
		const char *why = cause;

		if (!why && status)
			why = str_of(status, "reason");
		if (!why && !report)
			why = exit_code == 2 ? "bad input: the run refused it (see run.log)"
					     : "no report was written (see run.log)";
		snprintf(cause_out, cause_len, "%s", why ? why : "the run did not complete");
		*code = error_code(report ? status : NULL, exit_code);
		/* xerror expects the device to break the run: a bench that
		 * failed, an interrupt, a full disk never tested it */
		if (e->expect != BN_SUITE_EXPECT_ERROR) {
			bn_str_fmt(line, sizeof(line), "ended in error: %s", cause_out);
			cJSON_AddItemToArray(unexpected, cJSON_CreateString(line));
		} else if (*code != BN_EXIT_DUT_BROKE) {
			bn_str_fmt(line, sizeof(line), "ended in error (%s), not one of the device's "
				   "(xerror): %s", bn_exit_cause(*code), cause_out);
			cJSON_AddItemToArray(unexpected, cJSON_CreateString(line));
		}
		return "error";
	}
	cJSON_ArrayForEach(r, results) {
		const char *id = str_of(r, "id");

		if (!id || !result_fails(r))
			continue;
		if (e->expect == BN_SUITE_EXPECT_FAIL && listed(e, id))
			continue;
		if (strcmp(side_of(r, judges), judges)) {
			char what[96];

			snprintf(what, sizeof(what), "failed (the %s's; the entry judges the %s: not "
				 "counted)", side_of(r, judges), judges);
			describe(r, what, line, sizeof(line));
			cJSON_AddItemToArray(other, cJSON_CreateString(line));
			continue;
		}
		describe(r, "failed", line, sizeof(line));
		cJSON_AddItemToArray(unexpected, cJSON_CreateString(line));
		failed_other = true;
	}
	for (int i = 0; e->expect == BN_SUITE_EXPECT_FAIL && i < e->n_rules; i++) {
		const cJSON *found = NULL;

		cJSON_ArrayForEach(r, results) {
			const char *id = str_of(r, "id");

			if (id && !strcmp(id, e->rules[i]))
				found = r;
		}
		if (found && verdict_is_fail(found))
			continue;
		if (found) {
			const char *v = str_of(found, "verdict");
			char what[64];

			snprintf(what, sizeof(what), "was expected to fail but is %s", v ? v : "?");
			describe(found, what, line, sizeof(line));
		} else {
			snprintf(line, sizeof(line), "%s was expected to fail but was not judged "
				 "(not in the report)", e->rules[i]);
		}
		cJSON_AddItemToArray(unexpected, cJSON_CreateString(line));
		missing = true;
	}
	if (e->expect == BN_SUITE_EXPECT_ERROR)
		cJSON_AddItemToArray(unexpected,
				     cJSON_CreateString("was expected to end in error but completed"));
	if (failed_other)
		return "fail";
	if (missing)
		return "xpass";
	return e->expect == BN_SUITE_EXPECT_FAIL ? "xfail" : "pass";
}

static cJSON *str_or_null(const char *s)
{
	return s && s[0] ? cJSON_CreateString(s) : cJSON_CreateNull();
}

cJSON *bn_suite_judge(const struct bn_suite_entry *e, const cJSON *report,
		      const char *report_sha256, int exit_code, const char *cause,
		      const char *dir, double wall_s)
{
	cJSON *o = cJSON_CreateObject(), *params, *ex, *rules, *unexpected, *other, *counts;
	char cause_buf[1024], path[1024];
	struct bn_err err = { 0 };
	const char *outcome;
	int code = BN_EXIT_OK;
	bool as_expected;

	if (!o)
		return NULL;
	cJSON_AddNumberToObject(o, "index", e->index);
	cJSON_AddStringToObject(o, "id", e->id);
	cJSON_AddStringToObject(o, "scenario", e->scenario);
	cJSON_AddNumberToObject(o, "line", e->line);
	params = cJSON_AddObjectToObject(o, "params");
	for (int a = 0; a < BN_AXIS_COUNT; a++)
		cJSON_AddItemToObject(params, bn_suite_axis_name(a), str_or_null(e->param[a]));
	ex = cJSON_AddObjectToObject(o, "expect");
	cJSON_AddStringToObject(ex, "outcome", expect_names[e->expect]);
	rules = cJSON_AddArrayToObject(ex, "rules");
	for (int i = 0; i < e->n_rules; i++)
		cJSON_AddItemToArray(rules, cJSON_CreateString(e->rules[i]));
	unexpected = cJSON_CreateArray();
	other = cJSON_CreateArray();
	outcome = judge(e, report, exit_code, cause, unexpected, other, cause_buf, sizeof(cause_buf),
			&code);
	as_expected = cJSON_GetArraySize(unexpected) == 0;
	cJSON_AddStringToObject(o, "outcome", outcome);
	cJSON_AddBoolToObject(o, "as_expected", as_expected);
	/* what the entry gives the suite's exit code: an error's own cause
	 * (expected or not), else a rule failed or all is well */
	if (strcmp(outcome, "error"))
		code = as_expected ? BN_EXIT_OK : BN_EXIT_FAILED;
	cJSON_AddStringToObject(o, "exit_cause", bn_exit_cause(code));
	cJSON_AddItemToObject(o, "unexpected", unexpected);
	if (report)
		cJSON_AddStringToObject(o, "judges", bn_report_json_judges(report));
	cJSON_AddItemToObject(o, "other_side", other);
	cJSON_AddNumberToObject(o, "exit_code", exit_code);
	cJSON_AddItemToObject(o, "cause", str_or_null(cause_buf));
	cJSON_AddNumberToObject(o, "wall_s", wall_s);
	cJSON_AddStringToObject(o, "dir", dir);
	if (report) {
		cJSON *ref = cJSON_AddObjectToObject(o, "report");

		snprintf(path, sizeof(path), "%s/report.json", dir);
		cJSON_AddStringToObject(ref, "path", path);
		cJSON_AddStringToObject(ref, "sha256", report_sha256 ? report_sha256 : "");
	} else {
		cJSON_AddNullToObject(o, "report");
	}
	counts = bn_suite_rules_of(report, e->id, &err);
	if (!counts) {
		cJSON_Delete(o);
		return NULL;
	}
	cJSON_AddItemToObject(o, "rules", counts);
	return o;
}
